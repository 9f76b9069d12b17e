/* buf.c: the growable text buffer of base.h. */
#include "base.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void base_buf_init(struct base_buf *b, size_t max)
{
  b->s = NULL;
  b->len = b->cap = 0;
  /* s also holds the NUL: a ceiling at SIZE_MAX would wrap */
  b->max = max < SIZE_MAX / 2 ? max : SIZE_MAX / 2;
  b->err = 0;
  b->fixed = false;
}

void base_buf_init_fixed(struct base_buf *b, char *mem, size_t cap)
{
  b->s = mem;
  b->len = 0;
  b->cap = cap;
  b->max = cap ? cap - 1 : 0;
  b->err = cap ? 0 : BASE_BUF_ETOOBIG;
  b->fixed = true;
  if(cap)
    mem[0] = '\0';
}

static int fail(struct base_buf *b, int err)
{
  if(!b->err)
    b->err = err;
  return b->err;
}

/* Makes room for n more bytes and the NUL. */
static int grow(struct base_buf *b, size_t n)
{
  size_t need, cap;
  char *p;

  if(b->err)
    return b->err;
  if(n > b->max - b->len)
    return fail(b, BASE_BUF_ETOOBIG);
  need = b->len + n + 1;
  if(need <= b->cap)
    return 0;
  if(b->fixed) /* not reached: max is cap - 1 */
    return fail(b, BASE_BUF_ETOOBIG);
  cap = b->cap ? b->cap : 256;
  while(cap < need)
    cap *= 2; /* need <= SIZE_MAX / 2 + 1 (max's bound): no wrap */
  p = realloc(b->s, cap);
  if(!p)
    return fail(b, BASE_BUF_ENOMEM);
  p[b->len] = '\0'; /* a first allocation too: s is a string from now on */
  b->s = p;
  b->cap = cap;
  return 0;
}

int base_buf_add_slow(struct base_buf *b, const void *p, size_t n)
{
  int rc = grow(b, n);
  if(rc)
    return rc;
  if(n)
    memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = '\0';
  return 0;
}

int base_buf_vprintf(struct base_buf *b, const char *fmt, va_list ap)
{
  va_list again;
  size_t room;
  int n, rc;

  if(b->err)
    return b->err;
  /* straight into the free room; a second pass when it was too small */
  room = b->s ? b->cap - b->len : 0;
  va_copy(again, ap);
  n = vsnprintf(room ? b->s + b->len : NULL, room, fmt, ap);
  if(n < 0) {
    va_end(again);
    if(b->s)
      b->s[b->len] = '\0';
    return fail(b, BASE_BUF_ENOMEM); /* EOVERFLOW, or a wide char it cannot encode */
  }
  if((size_t)n >= room || (size_t)n > b->max - b->len) {
    if(b->s)
      b->s[b->len] = '\0'; /* what did fit is not appended */
    rc = grow(b, (size_t)n);
    if(!rc)
      vsnprintf(b->s + b->len, (size_t)n + 1, fmt, again);
    va_end(again);
    if(rc)
      return rc;
  } else {
    va_end(again);
  }
  b->len += (size_t)n;
  return 0;
}

int base_buf_printf(struct base_buf *b, const char *fmt, ...)
{
  va_list ap;
  int rc;

  va_start(ap, fmt);
  rc = base_buf_vprintf(b, fmt, ap);
  va_end(ap);
  return rc;
}

int base_format(char *buf, size_t cap, const char *fmt, ...)
{
  struct base_buf b;
  va_list ap;
  int rc;

  base_buf_init_fixed(&b, buf, cap);
  va_start(ap, fmt);
  rc = base_buf_vprintf(&b, fmt, ap);
  va_end(ap);
  if(rc && cap)
    buf[0] = '\0';
  return rc;
}

char *base_buf_reserve(struct base_buf *b, size_t n)
{
  return grow(b, n) ? NULL : b->s + b->len;
}

void base_buf_commit(struct base_buf *b, size_t n)
{
  b->len += n;
  b->s[b->len] = '\0';
}

char *base_buf_take(struct base_buf *b)
{
  char *s;

  if(b->fixed || b->err) {
    base_buf_free(b); /* the error stays, to be read */
    return NULL;
  }
  s = b->s ? b->s : strdup("");
  b->s = NULL;
  b->len = b->cap = 0;
  return s;
}

void base_buf_reset(struct base_buf *b)
{
  b->len = 0;
  b->err = b->fixed && !b->cap ? BASE_BUF_ETOOBIG : 0;
  if(b->s)
    b->s[0] = '\0';
}

void base_buf_free(struct base_buf *b)
{
  if(!b->fixed) {
    free(b->s);
    b->s = NULL;
    b->cap = 0;
  }
  b->len = 0;
  if(b->s)
    b->s[0] = '\0';
}
