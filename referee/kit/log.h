/*
 * log.h: the service's one log module (OpenSMTPD-style). Lines go to stderr
 * as "TIME tabula LEVEL: message", or, when standard error is systemd's
 * journal, as "<PRIORITY>message" (sd-daemon(3) prefixes, read by the
 * journal under SyslogLevelPrefix=yes, its default), so `journalctl -p err`
 * finds the errors. With log_file set, lines are appended there
 * and only errors still go to stderr too. Nothing secret (a dice chain's
 * secret end, a player's token) is ever passed to it.
 */
#ifndef TABULA_LOG_H
#define TABULA_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum ref_log_level { REF_LOG_ERROR, REF_LOG_WARN, REF_LOG_INFO, REF_LOG_DEBUG };

void ref_log_set_level(enum ref_log_level level);
/* format: "auto" (journal prefixes when JOURNAL_STREAM names our stderr),
 * "journal" or "plain"; file: "" or a path (config log_file). -1 for an
 * unknown format. */
int ref_log_setup(const char *format, const char *file);
/* Where lines go; default stderr. Tests point it at a file to scan it. */
void ref_log_set_stream(FILE *stream);
void ref_log(enum ref_log_level level, const char *fmt, ...)
  __attribute__((format(printf, 2, 3)));

/* Holding lines back: a move is logged as played only once its
 * transaction committed. ref_log_hold: from now on lines are kept, not
 * written (holds nest). ref_log_held: a mark. ref_log_forget drops the
 * held lines after a mark whose level is from..to: a rolled-back
 * message's story (REF_LOG_INFO..REF_LOG_DEBUG) goes and its warnings
 * stay; a retry that failed as the last one did drops its errors
 * (REF_LOG_ERROR..REF_LOG_WARN) and keeps what it did. ref_log_release
 * ends one hold; the outermost writes what is held, with the times it
 * happened. */
void ref_log_hold(void);
size_t ref_log_held(void);
void ref_log_forget(size_t mark, enum ref_log_level from, enum ref_log_level to);
void ref_log_release(void);

#define ref_log_error(...) ref_log(REF_LOG_ERROR, __VA_ARGS__)
#define ref_log_warn(...) ref_log(REF_LOG_WARN, __VA_ARGS__)
#define ref_log_info(...) ref_log(REF_LOG_INFO, __VA_ARGS__)
#define ref_log_debug(...) ref_log(REF_LOG_DEBUG, __VA_ARGS__)

#endif
