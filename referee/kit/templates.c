/* templates.c: see templates.h. */
#include "templates.h"
#include "base.h"
#include "templates_embedded.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TPL_MAX_FILE (256u * 1024u)
#define TPL_MAX_OUT (4u * 1024u * 1024u)

static char *read_override(const char *dir, const char *name)
{
  char path[1024];
  FILE *f;
  char *data = NULL;
  size_t n;

  if(!dir || !dir[0])
    return NULL;
  if(strchr(name, '/'))
    return NULL;
  if(base_format(path, sizeof(path), "%s/%s", dir, name))
    return NULL; /* never another file than the one named */
  f = fopen(path, "rb");
  if(!f)
    return NULL;
  data = malloc(TPL_MAX_FILE + 1);
  if(data) {
    n = fread(data, 1, TPL_MAX_FILE, f);
    data[n] = '\0';
  }
  fclose(f);
  return data;
}

/* The template's text: an override (read into *owned, which the caller
 * frees) or the embedded text itself, not copied (every reply
 * loads two or three templates). */
static const char *load(const char *dir, const char *name, char **owned)
{
  size_t i;
  *owned = read_override(dir, name);
  if(*owned)
    return *owned;
  /* the first letter tells most of the ninety names apart without a call */
  for(i = 0; tpl_embedded[i].name; i++)
    if(tpl_embedded[i].name[0] == name[0] && !strcmp(tpl_embedded[i].name, name))
      return tpl_embedded[i].text;
  return NULL;
}

/* The value of the variable named by the len bytes at name, or NULL. */
static const char *lookup(const struct tpl_var *vars, size_t n, const char *name, size_t len)
{
  size_t i;
  for(i = 0; i < n; i++)
    if((!len || vars[i].name[0] == name[0]) && !strncmp(vars[i].name, name, len) &&
       !vars[i].name[len])
      return vars[i].value ? vars[i].value : "";
  return NULL;
}

/* Expands one line into out. *only_empty is set when the line consisted of
 * placeholders (and blanks) that all expanded to nothing. */
static int expand_line(struct base_buf *out, const char *line, size_t len,
                       const struct tpl_var *vars, size_t nvars, int *only_empty)
{
  size_t i = 0;
  int placeholders = 0, text = 0, filled = 0;

  while(i < len) {
    /* the text up to the next '{' in one append, not a byte at a time
     * */
    const char *brace = memchr(line + i, '{', len - i);
    size_t run = brace ? (size_t)(brace - line) - i : len - i, k;
    for(k = i; k < i + run && !text; k++)
      if(line[k] != ' ' && line[k] != '\t')
        text = 1;
    if(run && base_buf_add(out, line + i, run))
      return -1;
    i += run;
    if(i == len)
      break;
    {
      const char *close = memchr(line + i, '}', len - i);
      const char *value = NULL;
      if(close)
        value = lookup(vars, nvars, line + i + 1, (size_t)(close - line - i - 1));
      if(value) {
        placeholders++;
        if(*value)
          filled++;
        if(base_buf_puts(out, value))
          return -1;
        i = (size_t)(close - line) + 1;
        continue;
      }
    }
    /* a '{' that opens no known placeholder is text */
    text = 1;
    if(base_buf_add(out, line + i, 1))
      return -1;
    i++;
  }
  *only_empty = placeholders > 0 && !filled && !text;
  return 0;
}

/* Expands the n bytes of text. */
static int expand(char **out, const char *text, size_t n, const struct tpl_var *vars,
                  size_t nvars)
{
  struct base_buf b;
  const char *p = text, *end = text + n;

  base_buf_init(&b, TPL_MAX_OUT);
  while(p < end) {
    const char *nl = memchr(p, '\n', (size_t)(end - p));
    size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
    size_t mark = b.len;
    int only_empty = 0;
    /* "{?name} text": the line only when name has a value */
    if(len > 3 && p[0] == '{' && p[1] == '?') {
      const char *close = memchr(p, '}', len);
      const char *value = close ? lookup(vars, nvars, p + 2, (size_t)(close - p - 2)) : NULL;
      size_t skip = close ? (size_t)(close - p) + 1 : 0;
      if(!value || !*value) {
        p = nl ? nl + 1 : p + len;
        continue;
      }
      if(skip < len && p[skip] == ' ')
        skip++;
      p += skip;
      len -= skip;
    }
    if(expand_line(&b, p, len, vars, nvars, &only_empty))
      goto fail;
    if(only_empty) {
      b.len = mark; /* drop the line */
      if(b.s)
        b.s[b.len] = '\0';
    }
    else if(nl && base_buf_add(&b, "\n", 1))
      goto fail;
    p = nl ? nl + 1 : p + len;
  }
  *out = base_buf_take(&b);
  return *out ? 0 : -1;
fail:
  base_buf_free(&b);
  return -1;
}

int tpl_render(char **subject, char **body, const char *dir, const char *name,
               const struct tpl_var *vars, size_t nvars)
{
  char *owned;
  const char *text = load(dir, name, &owned);
  const char *p, *subj_line, *subj_end, *rest;
  int rc = -1;

  *subject = *body = NULL;
  if(!text)
    return -1;
  p = text;
  while(!strncmp(p, "##", 2)) { /* documentation lines */
    const char *nl = strchr(p, '\n');
    p = nl ? nl + 1 : p + strlen(p);
  }
  if(strncmp(p, "Subject: ", 9))
    goto out;
  subj_line = p + 9;
  subj_end = strchr(subj_line, '\n');
  if(!subj_end)
    goto out;
  rest = subj_end + 1;
  if(*rest == '\n')
    rest++;
  if(expand(subject, subj_line, (size_t)(subj_end - subj_line), vars, nvars))
    goto out;
  if(expand(body, rest, strlen(rest), vars, nvars)) {
    free(*subject);
    *subject = NULL;
    goto out;
  }
  rc = 0;
out:
  free(owned);
  return rc;
}

void tpl_line(char *buf, size_t cap, const char *dir, const char *file, const char *key,
              const struct tpl_var *vars, size_t nvars)
{
  char *owned;
  const char *text = load(dir, file, &owned);
  const char *p = text;
  size_t klen = strlen(key);

  snprintf(buf, cap, "%s", key);
  /* the first line "key = text" (not a comment): the key searched for, not
   * each line compared (a reply looks up a few phrases) */
  while(p && (p = strstr(p, key)) && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    if((p == text || p[-1] == '\n') && p[0] != '#' && len > klen + 3 &&
       !strncmp(p + klen, " = ", 3)) {
      char *out = NULL;
      if(!expand(&out, p + klen + 3, len - klen - 3, vars, nvars))
        snprintf(buf, cap, "%s", out);
      free(out);
      break;
    }
    p++;
  }
  free(owned);
}

void tpl_reason(char *buf, size_t cap, const char *dir, const char *key, const char *detail)
{
  struct tpl_var v = {"detail", detail};
  tpl_line(buf, cap, dir, "reasons.txt", key, &v, 1);
}

int tpl_exists(const char *dir, const char *name)
{
  char *owned;
  int found = load(dir, name, &owned) != NULL;
  free(owned);
  return found;
}

int tpl_mentions(const char *dir, const char *name, const char *placeholder)
{
  char *owned;
  const char *text = load(dir, name, &owned);
  char want[64];
  int found;
  snprintf(want, sizeof(want), "{%s}", placeholder);
  found = text && strstr(text, want) != NULL;
  free(owned);
  return found;
}
