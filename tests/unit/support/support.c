/* support.c: the unit tests' shared helpers (support.h). */
#include "support.h"

#include <check.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *ts_slurp(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  long n;

  if(!f)
    return NULL;
  if(fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
    goto out;
  buf = malloc((size_t)n + 1);
  if(buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
    free(buf);
    buf = NULL;
  }
  if(buf) {
    buf[n] = '\0';
    if(len)
      *len = (size_t)n;
  }
out:
  fclose(f);
  return buf;
}

char *ts_read(const char *path)
{
  char *buf = ts_slurp(path, NULL);

  ck_assert_msg(buf != NULL, "cannot read %s", path);
  return buf;
}

char *ts_readf(const char *fmt, ...)
{
  char path[1024];
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(path, sizeof(path), fmt, ap);
  va_end(ap);
  ck_assert_msg(n >= 0 && (size_t)n < sizeof(path), "path too long: %s", path);
  return ts_read(path);
}

char *ts_next_line(char **cursor)
{
  char *line = *cursor, *nl;

  if(!line || !*line)
    return NULL;
  nl = strchr(line, '\n');
  if(nl) {
    *nl = '\0';
    *cursor = nl + 1;
  } else {
    *cursor = line + strlen(line);
  }
  return line;
}

int ts_cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

long ts_env_long(const char *name, long def)
{
  const char *v = getenv(name);

  return v && *v ? strtol(v, NULL, 10) : def;
}

uint32_t ts_lcg(uint64_t *state)
{
  *state = *state * 6364136223846793005ull + 1442695040888963407ull;
  return (uint32_t)(*state >> 33);
}

/* templates/reasons.txt with a newline in front, so that "\nKEY = " finds
 * the first key too; read once per test process. */
static const char *reasons(void)
{
  static char *text;

  if(!text) {
    size_t len;
    char *file = ts_slurp(TABULA_SOURCE_DIR "/templates/reasons.txt", &len);

    ck_assert_msg(file != NULL, "cannot read %s", TABULA_SOURCE_DIR "/templates/reasons.txt");
    text = malloc(len + 2);
    ck_assert_ptr_nonnull(text);
    text[0] = '\n';
    memcpy(text + 1, file, len + 1);
    free(file);
  }
  return text;
}

void ts_assert_worded(const char *reason)
{
  char key[80];

  snprintf(key, sizeof(key), "\n%s = ", reason);
  ck_assert_msg(strstr(reasons(), key) != NULL, "reason key %s is not in templates/reasons.txt",
                reason);
}

void ts_assert_reason_keys(const char *const *files, size_t nfiles, const char *prefix, int min,
                           const char *const *shared, size_t nshared)
{
  char quoted[16], key[64];
  size_t f, i;
  int n = 0;

  snprintf(quoted, sizeof(quoted), "\"%s", prefix);
  for(f = 0; f < nfiles; f++) {
    char *code = ts_readf("%s/referee/rules/%s", TABULA_SOURCE_DIR, files[f]);
    const char *p, *q;

    for(p = strstr(code, quoted); p; p = strstr(q + 1, quoted)) {
      q = strchr(p + 1, '"');
      ck_assert_ptr_nonnull(q);
      snprintf(key, sizeof(key), "%.*s", (int)(q - p - 1), p + 1);
      ts_assert_worded(key);
      n++;
    }
    free(code);
  }
  ck_assert_msg(n >= min, "%d reason keys \"%s...\" in the code, want at least %d", n, prefix, min);
  for(i = 0; i < nshared; i++)
    ts_assert_worded(shared[i]);
}
