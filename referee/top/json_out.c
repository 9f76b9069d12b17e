/*
 * json_out.c: the one writer of tabula's JSON (docs/json.md): the
 * operator's `--json` (admin.c, admin_compete.c, main.c's check-config)
 * and the web view's index.json and game-N.json (site.c). Each of those
 * gathers its data once and hands it to two writers, the text one and a
 * JSON one; this file is what the JSON writers share: the document with
 * its version first, strings made valid UTF-8, and the one way a document
 * is written (keys in the order they were set, two-space indent, a final
 * newline). Layer 8, the top (docs/architecture.md).
 */
#include "service_int.h"

#include <stdlib.h>
#include <string.h>

/* Bytes of the UTF-8 sequence at s (1..4), 0 when it is not one
 * (RFC 3629: no overlong forms, no surrogates, nothing past U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
  size_t len, i;
  unsigned cp;
  if(s[0] < 0x80)
    return 1;
  if(s[0] >= 0xc2 && s[0] <= 0xdf) {
    len = 2;
    cp = s[0] & 0x1f;
  }
  else if(s[0] >= 0xe0 && s[0] <= 0xef) {
    len = 3;
    cp = s[0] & 0x0f;
  }
  else if(s[0] >= 0xf0 && s[0] <= 0xf4) {
    len = 4;
    cp = s[0] & 0x07;
  }
  else
    return 0;
  if(n < len)
    return 0;
  for(i = 1; i < len; i++) {
    if((s[i] & 0xc0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3f);
  }
  if((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
     (cp >= 0xd800 && cp <= 0xdfff))
    return 0;
  return len;
}

json_t *ref_json_str(const char *s)
{
  const unsigned char *p = (const unsigned char *)(s ? s : "");
  size_t n = strlen((const char *)p), i = 0, k, len = 0;
  char *fixed;
  json_t *j = json_stringn((const char *)p, n);
  if(j)
    return j;
  /* Not UTF-8 (a store written by hand, an old row): each byte that
   * begins no sequence becomes U+FFFD, so the document is still JSON
   * (RFC 8259 section 8.1) and says where the text was damaged */
  fixed = malloc(n * 3 + 1);
  if(!fixed)
    return NULL;
  while(i < n) {
    size_t q = p[i] ? utf8_seq(p + i, n - i) : 0;
    if(q) {
      for(k = 0; k < q; k++)
        fixed[len++] = (char)p[i + k];
      i += q;
    }
    else {
      memcpy(fixed + len, "\xef\xbf\xbd", 3);
      len += 3;
      i++;
    }
  }
  j = json_stringn(fixed, len);
  free(fixed);
  return j;
}

int ref_json_set(json_t *obj, const char *key, json_t *value)
{
  /* json_object_set_new takes the reference even when it fails */
  return value && !json_object_set_new(obj, key, value) ? 0 : -1;
}

int ref_json_set_str(json_t *obj, const char *key, const char *s)
{
  return ref_json_set(obj, key, ref_json_str(s));
}

int ref_json_push(json_t *array, json_t *value)
{
  return value && !json_array_append_new(array, value) ? 0 : -1;
}

json_t *ref_json_doc(const char *what)
{
  json_t *doc = json_object();
  if(doc && (ref_json_set(doc, "tabula_json", json_integer(REF_JSON_VERSION)) ||
             ref_json_set_str(doc, "what", what))) {
    json_decref(doc);
    return NULL;
  }
  return doc;
}

char *ref_json_text(json_t *doc)
{
  /* JSON_PRESERVE_ORDER: the keys as docs/json.md lists them, so two
   * runs over the same store give the same bytes */
  char *s = doc ? json_dumps(doc, JSON_PRESERVE_ORDER | JSON_INDENT(2)) : NULL;
  char *t = s ? realloc(s, strlen(s) + 2) : NULL;
  if(!t) {
    free(s);
    return NULL;
  }
  strcat(t, "\n");
  return t;
}

int ref_json_write(FILE *out, json_t *doc)
{
  char *s = ref_json_text(doc);
  int rc = s && fputs(s, out) >= 0 ? 0 : -1;
  if(!s)
    fprintf(stderr, "tabula: the JSON could not be made (out of memory)\n");
  free(s);
  json_decref(doc);
  return rc;
}

/* ---- tabula check-config --json ---- */

int ref_config_json(FILE *out, const struct ref_config *cfg, const char *path,
                    const char *origin)
{
  json_t *doc = ref_json_doc("check-config"), *opts = json_array();
  struct ref_config_item it;
  size_t i;
  int bad = !doc || !opts;

  for(i = 0; !bad && !ref_config_option(cfg, i, &it); i++) {
    json_t *o = json_object();
    bad = !o || ref_json_set_str(o, "name", it.name) ||
          ref_json_set(o, "value", it.hidden ? json_null()
                                   : it.is_int ? json_integer(it.value_int)
                                               : ref_json_str(it.value)) ||
          ref_json_set(o, "hidden", json_boolean(it.hidden)) ||
          ref_json_set(o, "default", it.is_int ? json_integer(atoi(it.deflt))
                                               : ref_json_str(it.deflt)) ||
          ref_json_set_str(o, "help", it.help);
    bad = bad ? (json_decref(o), 1) : ref_json_push(opts, o);
  }
  if(bad || ref_json_set(doc, "file", path ? ref_json_str(path) : json_null()) ||
     ref_json_set_str(doc, "origin", origin) || ref_json_set(doc, "options", json_incref(opts))) {
    json_decref(opts);
    json_decref(doc);
    fprintf(stderr, "tabula: the JSON could not be made (out of memory)\n");
    return -1;
  }
  json_decref(opts);
  return ref_json_write(out, doc);
}
