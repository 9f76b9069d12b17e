/* buf.h: a growable text buffer for the service (curl's dynbuf, smaller).
 * Bounded: appending past `max` fails, so no input can make it grow without
 * limit. */
#ifndef TABULA_BUF_H
#define TABULA_BUF_H

#include <stddef.h>
#include <string.h>

struct ref_buf {
  char *s;     /* NUL-terminated; NULL until the first append */
  size_t len, cap, max;
};

void ref_buf_init(struct ref_buf *b, size_t max);
/* Grows the buffer, then appends; ref_buf_add's way when there is no room. */
int ref_buf_add_slow(struct ref_buf *b, const char *s, size_t len);
/* Appends len bytes of s; 0 or -1. Inline while the room suffices: replies
 * are written a few bytes at a time (the call and the strlen of
 * a literal were a hot spot of the poll). */
static inline int ref_buf_add(struct ref_buf *b, const char *s, size_t len)
{
  if(len < b->cap - b->len && b->len + len <= b->max) {
    memcpy(b->s + b->len, s, len);
    b->len += len;
    b->s[b->len] = '\0';
    return 0;
  }
  return ref_buf_add_slow(b, s, len);
}
/* Inline, so that the length of a literal is known when compiled. */
static inline int ref_buf_puts(struct ref_buf *b, const char *s)
{
  return ref_buf_add(b, s, strlen(s));
}
int ref_buf_printf(struct ref_buf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
/* Hands the string to the caller (never NULL on success: "" when empty). */
char *ref_buf_take(struct ref_buf *b);
void ref_buf_free(struct ref_buf *b);

#endif
