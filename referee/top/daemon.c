/*
 * daemon.c: the loop and the MTA pipe. The sources, the sinks and the
 * outbox flush are in transport.c and its drivers. Ordered as the brief says: process a
 * batch, commit, only then acknowledge it to its source, then send.
 * Signals only set a flag; batches and the flush look at it between
 * messages, so a SIGTERM never cuts a transaction in half and is obeyed
 * within one message.
 *
 * One daemon per store file, several on a PostgreSQL database
 * (store_lock_daemon; one of them ticks, store_lock_tick). When the store fails (a full
 * disk, an unreadable file), the daemon does not exit: it tries again
 * after 1 s, 2 s, 4 s ... at most 5 minutes, and says so once when the
 * store goes and once when it comes back, not at every try.
 */
#include "service_int.h"

#include "log.h"
#include "mail.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdlib.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>

int ref_service_poll(struct ref_service *svc, size_t *processed)
{
  size_t sent;
  return ref_service_poll_sent(svc, processed, &sent);
}

int ref_service_poll_sent(struct ref_service *svc, size_t *processed, size_t *sent_out)
{
  size_t sent = 0, inner_sent = 0;
  double inner_wall, inner_cpu;
  int rc;

  struct timespec t0, t1, t2, c0, c1;

  /* transport.c: batches, each committed before it is acknowledged; a
   * Maildir pass sends each batch's replies before the next (inner). */
  clock_gettime(CLOCK_MONOTONIC, &t0);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
  rc = ref_inbound_pass(svc, processed);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
  ref_transport_inner_flush(svc, &inner_sent, &inner_wall, &inner_cpu);
  if(ref_service_flush_outbox(svc, &sent))
    rc = -1;
  /* after the replies: a reply does not wait for the flagging */
  if(ref_inbound_ack(svc))
    rc = -1;
  /* nor for a checkpoint (the daemon's, store_checkpoint_later); when
   * stopping, the close checkpoints everything anyway, once */
  if(!ref_transport_stopping(svc) && store_checkpoint_idle(svc->st) != STORE_OK)
    ref_log_warn("%s", store_errmsg(svc->st));
  clock_gettime(CLOCK_MONOTONIC, &t2);
  sent += inner_sent;
  *sent_out = sent;
  /* The processing alone, the replies' writing apart (bench/throughput.sh
   * and scale.sh read this line). */
  if(*processed || sent)
    ref_log_info("pass: %zu message(s) processed in %.3f s (cpu %.3f s), %zu repl(ies) sent in %.3f s",
                 *processed,
                 (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9 -
                   inner_wall,
                 (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9 -
                   inner_cpu,
                 sent,
                 (double)(t2.tv_sec - t1.tv_sec) + (double)(t2.tv_nsec - t1.tv_nsec) / 1e9 +
                   inner_wall);
  return rc;
}

/* The syncs of one move mail through `tabula deliver`, Maildir sink (issue
 * 15; the goal was at most 2, met by tabula-deliver beside a running serve:
 * deliver_main.c, the message file and new/. Here, in a process of its own,
 * these 8 are each needed by a promise):
 *   1-3. the commit of the move (store.c, synchronous=FULL), durable before
 *        deliver exits 0: SQLite's unix VFS syncs the folder at the first
 *        sync of every WAL file it opens (1), syncs the WAL header when the
 *        WAL starts over after a complete checkpoint, i.e. at each deliver
 *        (2: without it a power cut after the restart could replay stale
 *        frames), and the commit (3). The WAL file is kept between
 *        processes (PERSIST_WAL, store.c), which saves creating and
 *        unlinking it and its index, but the folder is synced all the
 *        same: SQLite opens the WAL with O_CREAT each time.
 *   4-6. the two reply files, each before its rename into new/, and new/
 *        (transport.c, MAIL_SYNC_FILE; a chunk of more than 16 replies takes one
 *        syncfs instead, which would also write every other program's dirty
 *        pages): the replies are durable before the store says they are
 *        sent, or a power cut could lose a reply the store will never write
 *        again. They cannot share the commit's sync: a reply is never
 *        visible before its move is durable.
 *   7-8. the checkpoint when the store closes: the WAL (7), then the
 *        database file (8), so a copy of the database file alone holds
 *        every move (ISSUE-15 decision: no WAL left behind). Committing the
 *        move with synchronous=NORMAL and checkpointing at once would fold
 *        3 into 7, but the "sent" mark after the replies then starts a new
 *        WAL and pays 2, 7 and 8 again. */
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
  /* A move is logged as played once it is committed. An MTA
   * pipe runs at delivery: the mail arrives now. */
  ref_log_hold();
  if(ref_service_process(svc, data, len, ref_now(svc), &outcome) == 0)
    rc = 0;
  else
    ref_log_forget(0, REF_LOG_INFO, REF_LOG_DEBUG);
  ref_log_release();
  free(data);
  /* Only what this process queued, or what nobody holds: a deliver run in
   * parallel with others (an MTA's pipe) never sends another's replies. */
  ref_service_flush_outbox(svc, &sent);
  return rc;
}

#define STORE_WAIT_FIRST_MS 1000
#define STORE_WAIT_MAX_MS (5 * 60 * 1000)

static void sleep_ms(int ms, volatile sig_atomic_t *stop)
{
  /* in slices, so a signal that lands between checks costs at most one */
  while(ms > 0 && !*stop) {
    int step = ms < 100 ? ms : 100;
    struct timespec pause = {0, (long)step * 1000000L};
    nanosleep(&pause, NULL);
    ms -= step;
  }
}

/* Whether another daemon on the store called since the last look. */
static bool called(struct ref_service *svc)
{
  bool any = false;
  return store_woken(svc->st, &any) == STORE_OK && any;
}

int ref_service_run(struct ref_service *svc, volatile sig_atomic_t *stop)
{
  size_t processed = 0, sent = 0, ticked = 0;
  int64_t next_tick = 0, down_since = 0;
  char fault[400];
  int wait_ms = 0; /* > 0 while the store is failing: the next wait */
  size_t pages = 0;
  int64_t site_since = 0;
  int site_due = svc->cfg.site_dir[0] != '\0';

  if(store_lock_daemon(svc->st) != STORE_OK) {
    ref_log_error("%s", store_errmsg(svc->st));
    return -1;
  }
  /* Several daemons on one database wake each other (store_wake_fd):
   * listening from now on. */
  (void)store_wake_fd(svc->st);
  ref_transport_stop_on(svc, stop);
  store_checkpoint_later(svc->st); /* After each pass's replies */
  ref_transport_serving(svc); /* where mail comes from, where replies go */
  /* Replies queued before a crash go out first. */
  ref_service_flush_outbox(svc, &sent);
  while(!*stop) {
    /* While the store is down, a try that fails the same way again has
     * nothing new to say: its lines are held, and its errors dropped. */
    if(wait_ms)
      ref_log_hold();
    if(ref_service_poll(svc, &processed) == 0 && processed)
      ref_log_debug("processed %zu message(s)", processed);
#ifdef __GLIBC__
    /* After a backlog (a pass of more than one batch) the heap's free
     * pages go back to the system: its replies, freed batch by batch
     * between longer-lived blocks, would otherwise stay in the daemon's
     * RSS (goal 32 MB; 2.5 MB on the scale bench's 4,000
     * mails). A pass of a few mails, the usual one, pays nothing. */
    if(processed > (size_t)svc->cfg.batch_max)
      malloc_trim(0);
#endif
    /* Time-driven work (clock.c), at most once a minute of the service's clock. */
    if(!*stop && ref_now(svc) >= next_tick) {
      next_tick = ref_now(svc) + 60;
      if(ref_service_tick(svc, &ticked) == 0 && ticked) {
        ref_service_flush_outbox(svc, &sent);
        site_due = svc->cfg.site_dir[0] != '\0';
      }
    }
    /* The web view (site_dir): the pages of the games changed
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
    if(ref_transport_fault(svc, fault, sizeof(fault))) {
      if(wait_ms) {
        /* what this try did stays (a batch may have committed); its
         * failure, the same as before, is not said again */
        ref_log_forget(0, REF_LOG_ERROR, REF_LOG_WARN);
        ref_log_release();
        wait_ms = wait_ms < STORE_WAIT_MAX_MS / 2 ? 2 * wait_ms : STORE_WAIT_MAX_MS;
      }
      else {
        down_since = (int64_t)time(NULL);
        wait_ms = STORE_WAIT_FIRST_MS;
        ref_log_error("store unavailable (%s): nothing is lost, mail waits at its source; "
                      "trying again after 1 s, then less often, at most every %d minutes",
                      fault, STORE_WAIT_MAX_MS / 60000);
      }
      ref_log_debug("store: next try in %d ms", wait_ms);
      sleep_ms(wait_ms, stop);
      continue;
    }
    if(wait_ms) {
      ref_log_release();
      ref_log_info("store available again after %lld s: serving", 
                   (long long)((int64_t)time(NULL) - down_since));
      wait_ms = 0;
    }
    /* A call of another daemon on the store (rows it gave back, the tick
     * it left): the outbox at the next pass, the tick's lock asked at once
     * rather than at the next minute. One heard during this pass's
     * statements is waiting already: no wait then. */
    if(called(svc)) {
      next_tick = 0;
      continue;
    }
    ref_inbound_wait(svc, stop); /* IMAP IDLE, else poll_ms; a signal cuts it short */
    if(called(svc))
      next_tick = 0;
  }
  ref_transport_close(svc);
  ref_log_info("stopping: signal received");
  return 0;
}

/* Whether a store that cannot be opened may come back by itself (a full
 * disk, a busy or unreadable file) rather than never (a newer schema, not
 * a database, a bad configuration). The same open, once more, says which:
 * ref_service_open does not pass the store's code on. Only for a file that
 * exists, so the probe never creates one (the failure may not have been
 * the store's at all). */
static bool store_may_come_back(const char *path)
{
  struct store *st = NULL;
  struct stat sb;
  char err[64];
  int rc;

  /* a file that is gone will not come back; a server may */
  if(store_names_file(path) && (stat(path, &sb) || !S_ISREG(sb.st_mode)))
    return false;
  rc = store_open(&st, path, err, sizeof(err));
  store_close(st);
  return rc == STORE_EFULL || rc == STORE_EBUSY || rc == STORE_EIO;
}

int ref_service_serve(const struct ref_config *cfg, volatile sig_atomic_t *stop)
{
  struct ref_service *svc = NULL;
  char err[512];
  int wait_ms = STORE_WAIT_FIRST_MS, rc;

  ref_log_set_level((enum ref_log_level)cfg->log_level);
  while((rc = ref_service_open(&svc, cfg, err, sizeof(err))) != 0) {
    if(rc == REF_OPEN_EDAMAGED || !store_may_come_back(ref_config_store(cfg))) {
      char name[600];
      ref_service_store_name(cfg, name, sizeof(name));
      ref_log_error("%s (store %s)", err, name);
      return rc == REF_OPEN_EDAMAGED ? rc : -1;
    }
    /* The daemon waits for its store instead of exiting */
    if(wait_ms == STORE_WAIT_FIRST_MS)
      ref_log_error("store unavailable (%s): waiting for it, trying again after 1 s, then "
                    "less often, at most every %d minutes",
                    err, STORE_WAIT_MAX_MS / 60000);
    sleep_ms(wait_ms, stop);
    if(*stop) {
      ref_log_info("stopping: signal received");
      return 0;
    }
    wait_ms = wait_ms < STORE_WAIT_MAX_MS / 2 ? 2 * wait_ms : STORE_WAIT_MAX_MS;
  }
  if(wait_ms != STORE_WAIT_FIRST_MS)
    ref_log_info("store available again: starting");
  rc = ref_service_run(svc, stop);
  ref_service_close(svc);
  return rc;
}
