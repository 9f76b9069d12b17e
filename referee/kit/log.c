/* log.c: see log.h. */
#include "log.h"

#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static enum ref_log_level log_level = REF_LOG_INFO;
static FILE *log_stream;
static bool journal;          /* "<N>" priority prefixes for systemd's journal */
static char log_path[512];    /* log_file, "" for none */
static bool log_path_failed;  /* said once that it cannot be opened */

/* Held lines (ref_log_hold): each one level byte, the time stamp, a tab,
 * the message and a newline. Bounded, so a stuck hold cannot eat the
 * memory: past it, lines are written at once. */
#define HELD_MAX (4u * 1024u * 1024u)
static struct base_buf held = {.max = HELD_MAX}; /* base_buf_init's empty buffer */
static int hold_depth;

void ref_log_set_level(enum ref_log_level level)
{
  log_level = level;
}

void ref_log_set_stream(FILE *stream)
{
  log_stream = stream;
}

/* systemd sets JOURNAL_STREAM=DEV:INODE for a service whose standard
 * error is the journal's stream (systemd.exec(5)); it only counts when it
 * names the standard error this process really has, not one inherited by
 * a command started from such a service with other redirections. */
static bool stderr_is_journal(void)
{
  const char *js = getenv("JOURNAL_STREAM");
  unsigned long long dev, ino;
  struct stat st;
  if(!js || sscanf(js, "%llu:%llu", &dev, &ino) != 2 || fstat(STDERR_FILENO, &st))
    return false;
  return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

int ref_log_setup(const char *format, const char *file)
{
  if(!format || !strcmp(format, "auto"))
    journal = stderr_is_journal();
  else if(!strcmp(format, "journal"))
    journal = true;
  else if(!strcmp(format, "plain"))
    journal = false;
  else
    return -1;
  snprintf(log_path, sizeof(log_path), "%s", file ? file : "");
  log_path_failed = false;
  return 0;
}

/* Appends one line to log_file, opened for each line so that logrotate
 * may move the file away at any time (no copytruncate, no signal). */
static bool write_file_line(const char *line, size_t len)
{
  int fd = open(log_path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);
  ssize_t w;
  if(fd < 0) {
    if(!log_path_failed)
      fprintf(log_stream ? log_stream : stderr,
              "%stabula: cannot open log_file %s: %s; logging to standard error\n",
              journal ? "<4>" : "", log_path, strerror(errno));
    log_path_failed = true;
    return false;
  }
  w = write(fd, line, len); /* O_APPEND: one write, one whole line */
  close(fd);
  return w == (ssize_t)len;
}

static const char *const names[] = {"error", "warn", "info", "debug"};

/* Writes one line, with the time it was made. */
static void emit(enum ref_log_level level, const char *stamp, const char *msg)
{
  /* syslog(3) priorities: LOG_ERR, LOG_WARNING, LOG_INFO, LOG_DEBUG */
  static const int priorities[] = {3, 4, 6, 7};
  FILE *out = log_stream ? log_stream : stderr;
  char line[2200];
  int n;

  /* the same words everywhere; the file gets the process id too, since
   * serve, deliver and cron's tick may all append to it */
  if(log_path[0]) {
    n = snprintf(line, sizeof(line), "%s tabula[%ld] %s: %s\n", stamp, (long)getpid(),
                 names[level], msg);
    if(n > 0 && write_file_line(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1) &&
       level != REF_LOG_ERROR)
      return; /* errors go to standard error as well: cron and the journal see them */
  }
  if(journal)
    fprintf(out, "<%d>%s\n", priorities[level], msg); /* the journal stamps it */
  else
    fprintf(out, "%s tabula %s: %s\n", stamp, names[level], msg);
  fflush(out);
}

/* Keeps one line; false when it must be written now instead. */
static bool hold_line(enum ref_log_level level, const char *stamp, const char *msg)
{
  size_t slen = strlen(stamp), mlen = strlen(msg), need = 1 + slen + 1 + mlen + 1;
  char *p;

  /* checked here, not by the buffer, so that a line past the bound is
   * written at once and the next one may still be held; out of memory
   * sticks until ref_log_release */
  if(held.len + need > HELD_MAX || !(p = base_buf_reserve(&held, need)))
    return false;
  /* one reserve, so a line is held whole or not at all */
  p[0] = (char)level;
  memcpy(p + 1, stamp, slen);
  p[1 + slen] = '\t';
  memcpy(p + 1 + slen + 1, msg, mlen);
  p[need - 1] = '\n';
  base_buf_commit(&held, need);
  return true;
}

void ref_log(enum ref_log_level level, const char *fmt, ...)
{
  char stamp[32], msg[2048], *nl;
  time_t now;
  struct tm tm;
  va_list ap;

  if(level > log_level)
    return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  /* one line a message: a held line ends at its newline */
  while((nl = strchr(msg, '\n')))
    *nl = ' ';
  now = time(NULL);
  gmtime_r(&now, &tm);
  strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm);
  if(hold_depth && hold_line(level, stamp, msg))
    return;
  emit(level, stamp, msg);
}

void ref_log_hold(void)
{
  hold_depth++;
}

size_t ref_log_held(void)
{
  return held.len;
}

void ref_log_forget(size_t mark, enum ref_log_level from, enum ref_log_level to)
{
  size_t r, w;

  if(mark > held.len)
    return;
  for(r = w = mark; r < held.len;) {
    size_t len = (size_t)((char *)memchr(held.s + r, '\n', held.len - r) - (held.s + r)) + 1;
    if(held.s[r] < (char)from || held.s[r] > (char)to) {
      memmove(held.s + w, held.s + r, len);
      w += len;
    }
    r += len;
  }
  held.len = w;
  if(held.s)
    held.s[w] = '\0';
}

void ref_log_release(void)
{
  size_t r;

  if(hold_depth > 0)
    hold_depth--;
  if(hold_depth)
    return;
  for(r = 0; r < held.len;) {
    char *line = held.s + r, *tab, *end;
    end = memchr(line, '\n', held.len - r);
    r += (size_t)(end - line) + 1;
    *end = '\0';
    tab = strchr(line + 1, '\t');
    *tab = '\0';
    emit((enum ref_log_level)line[0], line + 1, tab + 1);
  }
  base_buf_reset(&held); /* the memory kept for the next hold */
}
