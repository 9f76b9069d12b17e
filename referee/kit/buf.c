/* buf.c: see buf.h. */
#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ref_buf_init(struct ref_buf *b, size_t max)
{
  b->s = NULL;
  b->len = b->cap = 0;
  b->max = max;
}

int ref_buf_add_slow(struct ref_buf *b, const char *s, size_t len)
{
  if(len > b->max || b->len + len > b->max)
    return -1;
  if(b->len + len + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    char *p;
    while(cap < b->len + len + 1)
      cap *= 2;
    p = realloc(b->s, cap);
    if(!p)
      return -1;
    b->s = p;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, len);
  b->len += len;
  b->s[b->len] = '\0';
  return 0;
}

int ref_buf_printf(struct ref_buf *b, const char *fmt, ...)
{
  char small[512];
  char *big = NULL;
  va_list ap;
  int n, rc;

  va_start(ap, fmt);
  n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if(n < 0)
    return -1;
  if((size_t)n < sizeof(small))
    return ref_buf_add(b, small, (size_t)n);
  big = malloc((size_t)n + 1);
  if(!big)
    return -1;
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  rc = ref_buf_add(b, big, (size_t)n);
  free(big);
  return rc;
}

char *ref_buf_take(struct ref_buf *b)
{
  char *s = b->s ? b->s : strdup("");
  b->s = NULL;
  b->len = b->cap = 0;
  return s;
}

void ref_buf_free(struct ref_buf *b)
{
  free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
}
