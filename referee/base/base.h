/*
 * base.h: the bottom library of tabula (referee/base/, tabula_base), below
 * the rules core, the store, mail and the service; it needs nothing but the
 * C library. Its one module is the growable text buffer every part of the
 * program writes its texts with (replies, mail, board diagrams, exports,
 * store reports, the held log lines).
 *
 * One error model (curl's dynbuf is the model, plus a sticky error):
 *  - every call that can fail returns 0 or a negative enum base_buf_code and
 *    is marked BASE_CHECK (warn_unused_result): the compiler reports a
 *    result nobody looked at;
 *  - the first failure also sticks in the buffer (until base_buf_reset or
 *    base_buf_init): every later append does nothing and returns it, and
 *    base_buf_take gives NULL. So a text built
 *    by several appends is either whole or refused, never sent with a hole
 *    where an append failed;
 *  - a buffer has a ceiling (max) fixed at init: no input can make it grow
 *    without limit (BASE_BUF_ETOOBIG).
 * The bytes are counted, not scanned: embedded NULs are kept (base_buf_add),
 * and s is always NUL-terminated once it is not NULL.
 */
#ifndef TABULA_BASE_H
#define TABULA_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define BASE_CHECK __attribute__((warn_unused_result))

enum base_buf_code {
  BASE_BUF_OK = 0,
  BASE_BUF_ENOMEM = -1, /* the allocation failed */
  BASE_BUF_ETOOBIG = -2 /* past the buffer's max (or a fixed buffer's room) */
};

struct base_buf {
  char *s;    /* NUL-terminated; NULL until the first append (growable) */
  size_t len; /* bytes in s, without the NUL */
  size_t cap; /* bytes allocated (or the fixed room) */
  size_t max; /* most bytes s may hold */
  int err;    /* 0 or the first failure, sticky until base_buf_reset */
  bool fixed; /* s is the caller's memory: never grown, never freed */
};

/* A growable buffer holding at most max bytes; nothing allocated yet. */
void base_buf_init(struct base_buf *b, size_t max);
/* A buffer over the caller's cap bytes (cap > 0) that never grows: at most
 * cap - 1 bytes and the NUL. mem is "" at once. For the rules core's
 * diagrams, written into the caller's array (rules.h, ops->render). */
void base_buf_init_fixed(struct base_buf *b, char *mem, size_t cap);

/* The slow paths of the inline appends below (growing, errors). */
BASE_CHECK int base_buf_add_slow(struct base_buf *b, const void *p, size_t n);

/* Appends n bytes of p (NULs too). Inline while there is room: replies and
 * mail are written a few bytes at a time (the call was the poll's hottest
 * function). */
BASE_CHECK static inline int base_buf_add(struct base_buf *b, const void *p, size_t n)
{
  if(!b->err && n < b->cap - b->len && n <= b->max - b->len) {
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
  }
  return base_buf_add_slow(b, p, n);
}
/* Appends a string; inline, so that the length of a literal is known when
 * compiled. */
BASE_CHECK static inline int base_buf_puts(struct base_buf *b, const char *s)
{
  return base_buf_add(b, s, strlen(s));
}
/* Appends one byte. */
BASE_CHECK static inline int base_buf_putc(struct base_buf *b, char c)
{
  return base_buf_add(b, &c, 1);
}
/* Appends printf-style: the whole text or nothing (never cut short). */
BASE_CHECK int base_buf_printf(struct base_buf *b, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));
BASE_CHECK int base_buf_vprintf(struct base_buf *b, const char *fmt, va_list ap)
  __attribute__((format(printf, 2, 0)));

/* snprintf checked: the whole text into buf (cap bytes), or
 * BASE_BUF_ETOOBIG with buf "" (never a cut text: a cut path, key or
 * header would name another thing). For paths, store keys, header
 * fields, anything sent or stored. */
BASE_CHECK int base_format(char *buf, size_t cap, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));

/* Room for n more bytes: where to write them (then base_buf_commit with
 * how many were written, at most n), or NULL with the error set. */
BASE_CHECK char *base_buf_reserve(struct base_buf *b, size_t n);
void base_buf_commit(struct base_buf *b, size_t n);

/* The sticky error: 0 when every append so far succeeded. */
BASE_CHECK static inline int base_buf_err(const struct base_buf *b)
{
  return b->err;
}
/* Hands the text to the caller (free it): NULL when an append failed
 * (the memory is freed, the error stays to be read), else never NULL (""
 * when empty) and the buffer is empty and reusable after. Not for a fixed
 * buffer (NULL). */
BASE_CHECK char *base_buf_take(struct base_buf *b);
/* Empties the buffer and clears its error, keeping the memory: to reuse it. */
void base_buf_reset(struct base_buf *b);
/* Frees the memory (not a fixed buffer's); the buffer is empty after. Its
 * error stays, to be read after the cleanup; base_buf_reset clears it. */
void base_buf_free(struct base_buf *b);

#endif /* TABULA_BASE_H */
