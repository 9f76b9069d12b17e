/*
 * buf.c: the bounded growable buffer of mail_int.h. Every text the mail layer
 * builds from hostile input goes through it, so the ceiling lives in one
 * place (curl's dynbuf with its "toobig" limit is the model).
 */
#include "mail_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mail_buf_init(struct mail_buf *b, size_t max)
{
  memset(b, 0, sizeof(*b));
  b->max = max ? max : (size_t)MAIL_MAX_MESSAGE * 4;
}

/* Makes room for n more bytes plus the terminating NUL. */
static int buf_grow(struct mail_buf *b, size_t n)
{
  size_t need;
  size_t cap;
  char *p;

  if(b->err)
    return b->err;
  if(n > b->max || b->len > b->max - n) {
    b->err = MAIL_ETOOBIG;
    return b->err;
  }
  need = b->len + n + 1;
  if(need <= b->cap)
    return 0;
  cap = b->cap ? b->cap : 256;
  while(cap < need)
    cap *= 2;
  p = realloc(b->data, cap);
  if(!p) {
    b->err = MAIL_ENOMEM;
    return b->err;
  }
  b->data = p;
  b->cap = cap;
  return 0;
}

int mail_buf_add(struct mail_buf *b, const void *p, size_t n)
{
  if(buf_grow(b, n))
    return b->err;
  if(n)
    memcpy(b->data + b->len, p, n);
  b->len += n;
  b->data[b->len] = '\0';
  return 0;
}

int mail_buf_addc_slow(struct mail_buf *b, char c)
{
  return mail_buf_add(b, &c, 1);
}

char *mail_buf_reserve(struct mail_buf *b, size_t n)
{
  return buf_grow(b, n) ? NULL : b->data + b->len;
}

void mail_buf_commit(struct mail_buf *b, size_t n)
{
  b->len += n;
  b->data[b->len] = '\0';
}

int mail_buf_adds(struct mail_buf *b, const char *s)
{
  return mail_buf_add(b, s, strlen(s));
}

int mail_buf_printf(struct mail_buf *b, const char *fmt, ...)
{
  char small[256];
  char *big = NULL;
  va_list ap;
  int n;

  if(b->err)
    return b->err;
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof(small), fmt, ap);
  va_end(ap);
  if(n < 0) {
    b->err = MAIL_ENOMEM;
    goto out;
  }
  if((size_t)n < sizeof(small)) {
    mail_buf_add(b, small, (size_t)n);
    goto out;
  }
  big = malloc((size_t)n + 1);
  if(!big) {
    b->err = MAIL_ENOMEM;
    goto out;
  }
  va_start(ap, fmt);
  vsnprintf(big, (size_t)n + 1, fmt, ap);
  va_end(ap);
  mail_buf_add(b, big, (size_t)n);
out:
  free(big);
  return b->err;
}

int mail_buf_add_cp(struct mail_buf *b, unsigned long cp)
{
  unsigned char u[4];
  size_t n;

  if(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    cp = 0xfffd;
  if(cp < 0x80) {
    u[0] = (unsigned char)cp;
    n = 1;
  } else if(cp < 0x800) {
    u[0] = (unsigned char)(0xc0 | (cp >> 6));
    u[1] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 2;
  } else if(cp < 0x10000) {
    u[0] = (unsigned char)(0xe0 | (cp >> 12));
    u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    u[2] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 3;
  } else {
    u[0] = (unsigned char)(0xf0 | (cp >> 18));
    u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    u[3] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 4;
  }
  return mail_buf_add(b, u, n);
}

char *mail_buf_steal(struct mail_buf *b)
{
  char *p;

  if(b->err)
    return NULL;
  if(!b->data && mail_buf_add(b, "", 0))
    return NULL;
  p = b->data;
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
  return p;
}

void mail_buf_free(struct mail_buf *b)
{
  free(b->data);
  b->data = NULL;
  b->len = 0;
  b->cap = 0;
}
