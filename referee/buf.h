/* buf.h: a growable text buffer for the service (curl's dynbuf, smaller).
 * Bounded: appending past `max` fails, so no input can make it grow without
 * limit. */
#ifndef TABULA_BUF_H
#define TABULA_BUF_H

#include <stddef.h>

struct ref_buf {
  char *s;     /* NUL-terminated; NULL until the first append */
  size_t len, cap, max;
};

void ref_buf_init(struct ref_buf *b, size_t max);
int ref_buf_add(struct ref_buf *b, const char *s, size_t len); /* 0 or -1 */
int ref_buf_puts(struct ref_buf *b, const char *s);
int ref_buf_printf(struct ref_buf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
/* Hands the string to the caller (never NULL on success: "" when empty). */
char *ref_buf_take(struct ref_buf *b);
void ref_buf_free(struct ref_buf *b);

#endif
