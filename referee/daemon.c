/*
 * daemon.c: the loop and the transports of the embedded default (Maildir in,
 * Maildir out, MTA pipe). Ordered as the brief says: process a message,
 * commit, only then acknowledge it to its source, then send the outbox.
 * Signals only set a flag; the loop notices it between messages, so a
 * SIGTERM never cuts a transaction in half.
 */
#include "service_int.h"

#include "log.h"
#include "mail.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Retries back off exponentially: 1, 2, 4 ... minutes, at most 6 hours. */
static int64_t backoff(int attempts)
{
  int64_t s = 60;
  while(attempts-- > 0 && s < 6 * 3600)
    s *= 2;
  return s < 6 * 3600 ? s : 6 * 3600;
}

/* Maildir files hold LF line ends (the form mail readers and Dovecot
 * expect on disk); the stored message keeps CRLF for SMTP. In place. */
static size_t to_lf(char *s)
{
  char *r = s, *w = s;
  for(; *r; r++)
    if(!(r[0] == '\r' && r[1] == '\n'))
      *w++ = *r;
  *w = '\0';
  return (size_t)(w - s);
}

int ref_service_flush_outbox(struct ref_service *svc, size_t *sent)
{
  struct store_outbox *rows = NULL;
  size_t n = 0, i;
  int rc = 0;

  *sent = 0;
  for(;;) {
    if(store_outbox_due(svc->st, &rows, &n, ref_now(svc), 256) != STORE_OK)
      return -1;
    if(n == 0)
      break;
    for(i = 0; i < n; i++) {
      char name[256];
      /* Delivered first, marked after: a crash in between sends a reply
       * twice, never loses one. */
      size_t len = to_lf(rows[i].message);
      if(mail_maildir_deliver(svc->cfg.outbox, rows[i].message, len, name, sizeof(name)) !=
         MAIL_OK) {
        ref_log_warn("outbox %lld to %s: cannot write to %s: %s", (long long)rows[i].id,
                     rows[i].recipient, svc->cfg.outbox, strerror(errno));
        store_outbox_retry(svc->st, rows[i].id, ref_now(svc) + backoff(rows[i].attempts),
                           strerror(errno), false);
        rc = -1;
        continue;
      }
      store_outbox_sent(svc->st, rows[i].id, ref_now(svc));
      ref_log_debug("outbox %lld to %s: written as %s", (long long)rows[i].id,
                    rows[i].recipient, name);
      (*sent)++;
    }
    store_outbox_free(rows, n);
    rows = NULL;
    if(rc)
      break;
  }
  return rc;
}

int ref_service_poll(struct ref_service *svc, size_t *processed)
{
  char **names = NULL;
  size_t n = 0, i, sent;
  int rc = 0;

  *processed = 0;
  if(mail_maildir_list_new(svc->cfg.inbox, &names, &n) != MAIL_OK) {
    ref_log_error("cannot read %s/new", svc->cfg.inbox);
    return -1;
  }
  for(i = 0; i < n; i++) {
    enum ref_outcome outcome;
    char *data = NULL;
    size_t len = 0;
    int r = mail_maildir_read(svc->cfg.inbox, names[i], &data, &len);
    if(r == MAIL_ETOOBIG) {
      /* Too big to be a move: set aside unread, never lost. */
      ref_log_warn("message %s is larger than %u bytes: set aside unread", names[i],
                   MAIL_MAX_MESSAGE);
      mail_maildir_ack(svc->cfg.inbox, names[i]);
      continue;
    }
    if(r != MAIL_OK)
      continue; /* vanished or unreadable now: try again next pass */
    if(ref_service_process(svc, data, len, &outcome) == 0) {
      /* Acknowledge only after the commit (docs/architecture.md). */
      if(mail_maildir_ack(svc->cfg.inbox, names[i]) != MAIL_OK)
        ref_log_warn("cannot move %s to cur/; the repeat will be a no-op", names[i]);
      (*processed)++;
    }
    else
      rc = -1;
    free(data);
  }
  mail_names_free(names, n);
  if(ref_service_flush_outbox(svc, &sent))
    rc = -1;
  return rc;
}

int ref_service_deliver_fd(struct ref_service *svc, int fd)
{
  enum ref_outcome outcome;
  char *data = NULL;
  size_t len = 0, sent;
  int rc = -1;

  if(mail_read_fd(fd, &data, &len) != MAIL_OK) {
    ref_log_error("cannot read the message from standard input");
    return -1;
  }
  if(ref_service_process(svc, data, len, &outcome) == 0)
    rc = 0;
  free(data);
  ref_service_flush_outbox(svc, &sent);
  return rc;
}

int ref_service_run(struct ref_service *svc, volatile sig_atomic_t *stop)
{
  struct timespec pause;
  size_t processed = 0, sent = 0;

  ref_log_info("serving: drop mail into %s/new; replies appear in %s/new; store %s",
               svc->cfg.inbox, svc->cfg.outbox, svc->cfg.store_path);
  /* Replies queued before a crash go out first. */
  ref_service_flush_outbox(svc, &sent);
  while(!*stop) {
    if(ref_service_poll(svc, &processed) == 0 && processed)
      ref_log_debug("processed %zu message(s)", processed);
    pause.tv_sec = svc->cfg.poll_ms / 1000;
    pause.tv_nsec = (long)(svc->cfg.poll_ms % 1000) * 1000000L;
    nanosleep(&pause, NULL); /* a signal cuts it short; the loop checks */
  }
  ref_log_info("stopping: signal received");
  return 0;
}
