/*
 * game_text.c: the text helpers of game_text_int.h.
 */
#include "game_text_int.h"
#include "rules.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

int ref_text_copy(const char *out, size_t len, char *buf, size_t cap)
{
  if(len + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, len);
  buf[len] = '\0';
  return REF_OK;
}

void ref_text_emit(struct base_buf *o, const char *fmt, ...)
{
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = base_buf_vprintf(o, fmt, ap); /* sticks in o: the render reads it at its end */
  va_end(ap);
  (void)rc;
}

char *ref_text_uint(char *p, unsigned n)
{
  char d[10]; /* UINT_MAX has 10 digits */
  int k = 0;
  do {
    d[k++] = (char)('0' + n % 10);
    n /= 10;
  } while(n);
  while(k)
    *p++ = d[--k];
  return p;
}

static void trim(const char **b, const char **e)
{
  while(*b < *e && (**b == ' ' || **b == '\t'))
    (*b)++;
  while(*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
    (*e)--;
}

bool ref_opt_next(const char **p, struct ref_opt *o)
{
  const char *b = *p, *e, *eq;

  if(!b || !*b)
    return false;
  e = strchr(b, ';');
  if(!e)
    e = b + strlen(b);
  eq = memchr(b, '=', (size_t)(e - b));
  o->kb = b;
  o->ke = eq ? eq : e;
  o->vb = eq ? eq + 1 : e;
  o->ve = e;
  o->has_value = eq != NULL;
  trim(&o->kb, &o->ke);
  trim(&o->vb, &o->ve);
  *p = *e ? e + 1 : e;
  return true;
}

bool ref_opt_is(const char *b, const char *e, const char *word)
{
  return (size_t)(e - b) == strlen(word) && !strncmp(b, word, (size_t)(e - b));
}

bool ref_opt_is_ci(const char *b, const char *e, const char *word)
{
  return (size_t)(e - b) == strlen(word) && !strncasecmp(b, word, (size_t)(e - b));
}

void ref_opt_key(const struct ref_opt *o, char *buf, size_t cap)
{
  snprintf(buf, cap, "%.*s", (int)(o->ke - o->kb), o->kb);
}

int ref_text_fields(const char *src, char *buf, size_t cap, char **field, int max)
{
  size_t len = strlen(src);
  char *s;
  int n = 0;

  if(len >= cap)
    return -1;
  memcpy(buf, src, len + 1);
  for(s = buf; *s;) {
    while(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
      *s++ = '\0';
    if(!*s)
      break;
    if(n == max)
      return -1;
    field[n++] = s;
    while(*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
      s++;
  }
  return n;
}

bool ref_text_counter(const char *s, unsigned maxdigits, uint32_t *out)
{
  uint32_t v = 0;
  unsigned n = 0;

  if(!*s)
    return false;
  for(; *s; s++, n++) {
    if(*s < '0' || *s > '9' || n >= maxdigits)
      return false;
    v = v * 10 + (uint32_t)(*s - '0');
  }
  *out = v;
  return true;
}
