/*
 * problems.c: what `tabula check` found, as data: each problem with what
 * it is about (the store file, a game, a match, the ratings), its number
 * and its words, so that admin.c writes the one list as text or as JSON
 * (docs/json.md) and the checks of match.c and ratings.c say nothing
 * themselves. Layer 3, games (docs/architecture.md).
 */
#include "compete_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ref_problem_add(struct ref_problems *p, const char *about, int64_t number,
                     const char *fmt, ...)
{
  va_list ap;
  char *text = NULL;
  int len;

  if(p->n == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 16;
    struct ref_problem *v = realloc(p->v, cap * sizeof(*v));
    if(!v) {
      p->lost++;
      return;
    }
    p->v = v;
    p->cap = cap;
  }
  va_start(ap, fmt);
  len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if(len >= 0)
    text = malloc((size_t)len + 1);
  if(!text) {
    /* counted, so that the check still fails: a problem is never lost quietly */
    p->lost++;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(text, (size_t)len + 1, fmt, ap);
  va_end(ap);
  p->v[p->n].about = about;
  p->v[p->n].number = number;
  p->v[p->n].text = text;
  p->n++;
}

void ref_problems_free(struct ref_problems *p)
{
  size_t i;
  for(i = 0; i < p->n; i++)
    free(p->v[i].text);
  free(p->v);
  memset(p, 0, sizeof(*p));
}
