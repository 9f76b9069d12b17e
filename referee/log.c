/* log.c: see log.h. */
#include "log.h"

#include <stdarg.h>
#include <time.h>

static enum ref_log_level log_level = REF_LOG_INFO;
static FILE *log_stream;

void ref_log_set_level(enum ref_log_level level)
{
  log_level = level;
}

void ref_log_set_stream(FILE *stream)
{
  log_stream = stream;
}

void ref_log(enum ref_log_level level, const char *fmt, ...)
{
  static const char *const names[] = {"error", "warn", "info", "debug"};
  FILE *out = log_stream ? log_stream : stderr;
  char stamp[32];
  time_t now;
  struct tm tm;
  va_list ap;

  if(level > log_level)
    return;
  now = time(NULL);
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
  fprintf(out, "%s tabula %s: ", stamp, names[level]);
  va_start(ap, fmt);
  vfprintf(out, fmt, ap);
  va_end(ap);
  fputc('\n', out);
  fflush(out);
}
