/* log.c: see log.h. */
#include "log.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static enum ref_log_level log_level = REF_LOG_INFO;
static FILE *log_stream;

/* Held lines (ref_log_hold): each one level byte, then the line with its
 * newline. Bounded, so a stuck hold cannot eat the memory: past it, lines
 * are written at once. */
#define HELD_MAX (4u * 1024u * 1024u)
static char *held;
static size_t held_len, held_cap;
static int hold_depth;

void ref_log_set_level(enum ref_log_level level)
{
  log_level = level;
}

void ref_log_set_stream(FILE *stream)
{
  log_stream = stream;
}

/* Keeps one line; false when it must be written now instead. */
static bool hold_line(enum ref_log_level level, const char *line, size_t len)
{
  char *p;

  if(held_len + len + 2 > HELD_MAX)
    return false;
  if(held_len + len + 2 > held_cap) {
    size_t cap = held_cap ? held_cap : 4096;
    while(cap < held_len + len + 2)
      cap *= 2;
    p = realloc(held, cap);
    if(!p)
      return false;
    held = p;
    held_cap = cap;
  }
  held[held_len++] = (char)level;
  memcpy(held + held_len, line, len);
  held_len += len;
  held[held_len++] = '\n';
  return true;
}

void ref_log(enum ref_log_level level, const char *fmt, ...)
{
  static const char *const names[] = {"error", "warn", "info", "debug"};
  FILE *out = log_stream ? log_stream : stderr;
  char line[2048];
  time_t now;
  struct tm tm;
  va_list ap;
  int n;
  size_t len;

  if(level > log_level)
    return;
  now = time(NULL);
  gmtime_r(&now, &tm);
  len = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%SZ", &tm);
  n = snprintf(line + len, sizeof(line) - len, " tabula %s: ", names[level]);
  len += n > 0 ? (size_t)n : 0;
  va_start(ap, fmt);
  n = vsnprintf(line + len, sizeof(line) - len, fmt, ap);
  va_end(ap);
  len = n < 0 ? len : len + (size_t)n < sizeof(line) ? len + (size_t)n : sizeof(line) - 1;
  if(hold_depth && hold_line(level, line, len))
    return;
  fwrite(line, 1, len, out);
  fputc('\n', out);
  fflush(out);
}

void ref_log_hold(void)
{
  hold_depth++;
}

size_t ref_log_held(void)
{
  return held_len;
}

void ref_log_forget(size_t mark, enum ref_log_level from, enum ref_log_level to)
{
  size_t r, w;

  if(mark > held_len)
    return;
  for(r = w = mark; r < held_len;) {
    size_t len = (size_t)((char *)memchr(held + r, '\n', held_len - r) - (held + r)) + 1;
    if(held[r] < (char)from || held[r] > (char)to) {
      memmove(held + w, held + r, len);
      w += len;
    }
    r += len;
  }
  held_len = w;
}

void ref_log_release(void)
{
  FILE *out = log_stream ? log_stream : stderr;
  size_t r;

  if(hold_depth > 0)
    hold_depth--;
  if(hold_depth)
    return;
  for(r = 0; r < held_len;) {
    size_t len = (size_t)((char *)memchr(held + r, '\n', held_len - r) - (held + r)) + 1;
    fwrite(held + r + 1, 1, len - 1, out);
    r += len;
  }
  if(held_len)
    fflush(out);
  held_len = 0;
}
