/*
 * daemon.c: the loop, the outbox flush with its backoff, and the MTA pipe.
 * The sources and sinks themselves (Maildir, IMAP, POP3; Maildir, SMTP,
 * sendmail) are in transport.c. Ordered as the brief says: process a
 * batch, commit, only then acknowledge it to its source, then send.
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

/* Retries back off exponentially: base (retry_base_s, 60 s by default),
 * twice that, four times ... at most 6 hours. */
static int64_t backoff(int base, int attempts)
{
  int64_t s = base;
  while(attempts-- > 0 && s < 6 * 3600)
    s *= 2;
  return s < 6 * 3600 ? s : 6 * 3600;
}

int ref_service_flush_outbox(struct ref_service *svc, size_t *sent)
{
  struct store_outbox *rows = NULL;
  size_t n = 0, i, nok;
  int64_t *ok_ids = NULL;
  /* SMTP marks each row as its 250 arrives (no transaction held open over
   * the network). The local sinks work a chunk at a time: every message
   * written, then one sync for the chunk (ref_outbound_sync), then every
   * row marked in one transaction. A crash before that commit sends again:
   * a reply may come twice, never not at all. */
  bool grouped = strcmp(svc->cfg.sink, "smtp") != 0;
  char down[400] = "";
  int rc = 0;

  *sent = 0;
  for(;;) {
    if(store_outbox_due(svc->st, &rows, &n, ref_now(svc), 256) != STORE_OK)
      return -1;
    if(n == 0)
      break;
    free(ok_ids);
    ok_ids = calloc(n, sizeof(*ok_ids));
    if(!ok_ids || (grouped && store_batch_begin(svc->st) != STORE_OK)) {
      store_outbox_free(rows, n);
      free(ok_ids);
      return -1;
    }
    for(i = 0, nok = 0; i < n; i++) {
      char err[512];
      int r;
      if(down[0]) {
        /* The server is down or refuses us: the rest wait their turn
         * instead of each paying a connection timeout or AUTH delay. */
        r = MAIL_ENET;
        snprintf(err, sizeof(err), "not tried: %.300s", down);
      }
      else
        r = ref_outbound_send(svc, &rows[i], err, sizeof(err));
      if(r == MAIL_ENET || r == MAIL_ETLS || r == MAIL_EAUTH)
        snprintf(down, sizeof(down), "%.300s", err[0] ? err : "server unavailable");
      if(r != MAIL_OK) {
        /* Kept with the server's words; refusals (5xx) are retried too, a
         * few times, in case the refusal was the server's passing state. */
        bool permanent = r == MAIL_EREFUSED && rows[i].attempts + 1 >= 8;
        ref_log_warn("outbox %lld to %s: %s%s", (long long)rows[i].id, rows[i].recipient, err,
                     permanent ? " (given up)" : "; will retry");
        store_outbox_retry(svc->st, rows[i].id,
                           ref_now(svc) + backoff(svc->cfg.retry_base_s, rows[i].attempts), err,
                           permanent);
        rc = -1;
        continue;
      }
      if(!grouped) {
        store_outbox_sent(svc->st, rows[i].id, ref_now(svc));
        ref_log_info("outbox %lld to %s: sent (%s)", (long long)rows[i].id, rows[i].recipient,
                     svc->cfg.sink);
        (*sent)++;
      }
      else
        ok_ids[nok++] = rows[i].id;
    }
    store_outbox_free(rows, n);
    rows = NULL;
    if(grouped) {
      if(nok && ref_outbound_sync(svc)) {
        ref_log_error("outbox: cannot sync %s; %zu repl(ies) will be written again",
                      svc->cfg.outbox, nok);
        nok = 0;
        rc = -1;
      }
      for(i = 0; i < nok; i++)
        store_outbox_sent(svc->st, ok_ids[i], ref_now(svc));
      if(store_batch_commit(svc->st) != STORE_OK) {
        ref_log_error("outbox: cannot record what was sent (%s); it will go again",
                      store_errmsg(svc->st));
        free(ok_ids);
        return -1;
      }
      *sent += nok;
      ref_log_debug("outbox: %zu repl(ies) written to the %s sink", nok, svc->cfg.sink);
    }
    if(rc)
      break;
  }
  free(ok_ids);
  return rc;
}

int ref_service_poll(struct ref_service *svc, size_t *processed)
{
  size_t sent;
  int rc;

  struct timespec t0, t1, t2, c0, c1;

  /* transport.c: batches, each committed before it is acknowledged. */
  clock_gettime(CLOCK_MONOTONIC, &t0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  rc = ref_inbound_pass(svc, processed);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  if(ref_service_flush_outbox(svc, &sent))
    rc = -1;
  clock_gettime(CLOCK_MONOTONIC, &t2);
  if(*processed || sent)
    ref_log_info("pass: %zu message(s) processed in %.3f s (cpu %.3f s), %zu repl(ies) sent in %.3f s",
                 *processed,
                 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9,
                 (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9, sent,
                 (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) / 1e9);
  return rc;
}

int ref_service_deliver_fd(struct ref_service *svc, int fd)
{
  enum ref_outcome outcome;
  char *data = NULL;
  size_t len = 0, sent;
  int rc = -1;

  rc = mail_read_fd(fd, &data, &len);
  if(rc == MAIL_ETOOBIG) {
    ref_log_error("message on standard input is over the size limit: refused for good");
    return 1;
  }
  if(rc != MAIL_OK) {
    ref_log_error("cannot read the message from standard input");
    return -1;
  }
  rc = -1;
  if(ref_service_process(svc, data, len, &outcome) == 0)
    rc = 0;
  free(data);
  ref_service_flush_outbox(svc, &sent);
  return rc;
}

int ref_service_run(struct ref_service *svc, volatile sig_atomic_t *stop)
{
  size_t processed = 0, sent = 0, ticked = 0, pages = 0;
  int64_t next_tick = 0, site_since = 0;
  int site_due = svc->cfg.site_dir[0] != '\0';

  if(!strcmp(svc->cfg.source, "maildir") && !strcmp(svc->cfg.sink, "maildir"))
    ref_log_info("serving: drop mail into %s/new; replies appear in %s/new; store %s",
                 svc->cfg.inbox, svc->cfg.outbox, svc->cfg.store_path);
  else
    ref_log_info("serving: mail from %s %s, replies by %s %s; store %s", svc->cfg.source,
                 strcmp(svc->cfg.source, "maildir") ? svc->cfg.in_host : svc->cfg.inbox,
                 svc->cfg.sink,
                 !strcmp(svc->cfg.sink, "smtp")       ? svc->cfg.smtp_host
                 : !strcmp(svc->cfg.sink, "sendmail") ? svc->cfg.sendmail_path
                                                      : svc->cfg.outbox,
                 svc->cfg.store_path);
  /* Replies queued before a crash go out first. */
  ref_service_flush_outbox(svc, &sent);
  while(!*stop) {
    if(ref_service_poll(svc, &processed) == 0 && processed)
      ref_log_debug("processed %zu message(s)", processed);
    /* Time-driven work (clock.c), at most once a minute of the service's clock. */
    if(ref_now(svc) >= next_tick) {
      next_tick = ref_now(svc) + 60;
      if(ref_service_tick(svc, &ticked) == 0 && ticked) {
        ref_service_flush_outbox(svc, &sent);
        site_due = svc->cfg.site_dir[0] != '\0';
      }
    }
    /* The web view (site_dir, issue 17): the pages of the games changed
     * since the last writing, and the index, after every pass that
     * changed something; a failure is logged and tried at the next. */
    if(processed && svc->cfg.site_dir[0])
      site_due = 1;
    if(site_due) {
      int64_t now = ref_now(svc);
      if(ref_service_site(svc, svc->cfg.site_dir, site_since, &pages) == 0) {
        site_since = now;
        site_due = 0;
        ref_log_debug("site: %zu page(s) written to %s", pages, svc->cfg.site_dir);
      }
    }
    ref_inbound_wait(svc, stop); /* IMAP IDLE, else poll_ms; a signal cuts it short */
  }
  ref_transport_close(svc);
  ref_log_info("stopping: signal received");
  return 0;
}
