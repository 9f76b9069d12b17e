/*
 * transport.c: where mail comes from and where replies go, the policy all
 * sources and sinks share. The drivers (transport_int.h: Maildir, IMAP,
 * POP3 sources; Maildir, SMTP, sendmail sinks) are chosen once, when the
 * service opens, from the configuration's source and sink; this file
 * calls them through their tables.
 *
 * The promise of docs/architecture.md, for every source:
 *   process (ref_service_process, one savepoint per message)
 *   -> COMMIT the batch (one fsync group for up to batch_max messages)
 *   -> only then acknowledge to the source: Maildir new/ -> cur/, IMAP
 *      \Seen or MOVE, POP3 DELE + QUIT.
 * IMAP acknowledges after the outbox flush that follows the pass
 * (ref_inbound_ack): the replies are not kept waiting for the
 * server's answer to the flagging, which is still after the commit.
 * A crash before the commit leaves every message unacknowledged at its
 * source; a crash after it leaves the source's bookkeeping in the store
 * (IMAP: UIDVALIDITY and the last committed UID; POP3: the UIDLs committed
 * but not yet deleted), so those messages are acknowledged without being
 * read again, and the Message-ID check makes any repeat a no-op anyway.
 *
 * A batch stops at the first message that fails for a temporary reason
 * (store busy, disk full): what follows waits, so moves are never applied
 * out of their order of arrival, and the IMAP "last UID" never passes a
 * message that was not committed.
 *
 * Tests may set TABULA_TEST_CRASH=before-commit|after-commit: the process
 * then dies (_exit) at that point of the first batch, as a power cut would.
 */
#include "transport_int.h"

#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ref_transport {
  const struct ref_source_driver *source; /* chosen at open */
  void *source_state;
  const struct ref_sink_driver *sink;
  void *sink_state;
  bool more; /* the last pass left mail for the next batch: do not wait */
  volatile sig_atomic_t *stop; /* set by SIGTERM: stop at the next message */
  /* Replies the sink took that the store does not yet say are sent (its
   * write failed): recorded before anything else is sent. */
  int64_t *unrecorded;
  size_t nunrecorded, capunrecorded;
  char fault[400]; /* the store's failure in this pass, "" none */
  /* The outbox flushes between a Maildir pass's batches (pass): replies
   * sent, wall and CPU seconds, read and cleared by
   * ref_transport_inner_flush for the pass's log line. */
  size_t inner_sent;
  double inner_wall, inner_cpu;
  int64_t tmp_cleaned; /* ref_now of the last clean_tmp, 0 never */
};

/* ---- the drivers, by the configuration's enum ---- */

static const struct ref_source_driver *const sources[] = {
  [REF_SOURCE_MAILDIR] = &ref_source_maildir,
  [REF_SOURCE_IMAP] = &ref_source_imap,
  [REF_SOURCE_POP3] = &ref_source_pop3,
};

static const struct ref_sink_driver *const sinks[] = {
  [REF_SINK_MAILDIR] = &ref_sink_maildir,
  [REF_SINK_SMTP] = &ref_sink_smtp,
  [REF_SINK_SENDMAIL] = &ref_sink_sendmail,
};

/* config.c stores only words its table knows, so every enum names a driver. */
static const struct ref_source_driver *source_of(const struct ref_config *cfg)
{
  return sources[cfg->source];
}

static const struct ref_sink_driver *sink_of(const struct ref_config *cfg)
{
  return sinks[cfg->sink];
}

int ref_config_check_mail(const struct ref_config *cfg, char *errbuf, size_t errcap)
{
  if(source_of(cfg)->check(cfg, errbuf, errcap) || sink_of(cfg)->check(cfg, errbuf, errcap))
    return -1;
  return 0;
}

/* The Maildirs in use are made on first start: an IMAP or POP3 source, an
 * SMTP or sendmail sink, use none, and the default ./tabula-data/inbox
 * would be an empty folder nobody reads. */
int ref_transport_open(struct ref_service *svc, char *errbuf, size_t errcap)
{
  struct ref_transport *t = calloc(1, sizeof(*t));
  const char *in, *out;

  if(!t) {
    snprintf(errbuf, errcap, "out of memory");
    return -1;
  }
  t->source = source_of(&svc->cfg);
  t->sink = sink_of(&svc->cfg);
  svc->transport = t;
  in = t->source->folder ? t->source->folder(&svc->cfg) : NULL;
  out = t->sink->folder ? t->sink->folder(&svc->cfg) : NULL;
  if((in && mail_maildir_init(in)) || (out && mail_maildir_init(out))) {
    snprintf(errbuf, errcap, "cannot create the Maildirs %s and %s", svc->cfg.inbox,
             svc->cfg.outbox);
    ref_transport_close(svc);
    return -1;
  }
  t->source_state = t->source->open(&svc->cfg);
  t->sink_state = t->sink->open(&svc->cfg);
  if(!t->source_state || !t->sink_state) {
    snprintf(errbuf, errcap, "out of memory");
    ref_transport_close(svc);
    return -1;
  }
  return 0;
}

void ref_transport_close(struct ref_service *svc)
{
  struct ref_transport *t = svc ? svc->transport : NULL;
  if(!t)
    return;
  if(t->source_state)
    t->source->close(t->source_state); /* IMAP LOGOUT */
  if(t->sink_state)
    t->sink->close(t->sink_state); /* SMTP QUIT */
  free(t->unrecorded);
  free(t);
  svc->transport = NULL;
}

void ref_transport_serving(struct ref_service *svc)
{
  struct ref_transport *t = svc->transport;
  const char *in, *out;
  char store[600]; /* a server's database named without a password */

  if(!t)
    return;
  store_display_name(ref_config_store(&svc->cfg), store, sizeof(store));
  in = t->source->folder ? t->source->folder(&svc->cfg) : NULL;
  out = t->sink->folder ? t->sink->folder(&svc->cfg) : NULL;
  if(in && out)
    /* how to hand mail in: the Maildir way, or tabula-deliver; a file
     * written in new/ itself is read too, once whole (mail_maildir_read) */
    ref_log_info("serving: write each mail into %s/tmp/ and rename it into %s/new/ (or pipe "
                 "it to tabula-deliver); replies appear in %s/new/; store %s",
                 in, in, out, store);
  else
    ref_log_info("serving: mail from %s %s, replies by %s %s; store %s", t->source->name,
                 t->source->where(&svc->cfg), t->sink->name, t->sink->where(&svc->cfg), store);
}

void ref_transport_stop_on(struct ref_service *svc, volatile sig_atomic_t *stop)
{
  if(svc->transport)
    svc->transport->stop = stop;
}

static bool stopping(struct ref_service *svc)
{
  return svc->transport && svc->transport->stop && *svc->transport->stop;
}

bool ref_transport_stopping(struct ref_service *svc)
{
  return stopping(svc);
}

static double seconds(clockid_t clock)
{
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Between two batches of one Maildir pass: the replies of the batch just
 * committed and acknowledged go out before the next batch is read, as
 * they do with IMAP and POP3 (one batch a pass). Held to the end of the
 * pass, a pass of 4,000 mails kept every reply in memory (the store's
 * fresh list, up to 4,096): serve's peak RSS was 66 MB on the scale bench.
 * A sink that fails is left to the pass's own flush, so a
 * server that is down costs one try a pass, as before. */
static bool flush_between(struct ref_service *svc)
{
  struct ref_transport *t = svc->transport;
  double w0 = seconds(CLOCK_MONOTONIC), c0 = seconds(CLOCK_PROCESS_CPUTIME_ID);
  size_t sent = 0;
  int rc = ref_service_flush_outbox(svc, &sent);

  if(t) {
    t->inner_sent += sent;
    t->inner_wall += seconds(CLOCK_MONOTONIC) - w0;
    t->inner_cpu += seconds(CLOCK_PROCESS_CPUTIME_ID) - c0;
  }
  return rc == 0;
}

void ref_transport_inner_flush(struct ref_service *svc, size_t *sent, double *wall, double *cpu)
{
  struct ref_transport *t = svc->transport;

  *sent = t ? t->inner_sent : 0;
  *wall = t ? t->inner_wall : 0;
  *cpu = t ? t->inner_cpu : 0;
  if(t) {
    t->inner_sent = 0;
    t->inner_wall = t->inner_cpu = 0;
  }
}

/* The store failed under a pass: kept for the daemon's backoff (daemon.c),
 * which says so once per change instead of once per retry. */
static void store_fault(struct ref_service *svc, const char *what)
{
  struct ref_transport *t = svc->transport;
  if(t && !t->fault[0])
    snprintf(t->fault, sizeof(t->fault), "%s: %s", what, store_errmsg(svc->st));
}

bool ref_transport_fault(struct ref_service *svc, char *buf, size_t cap)
{
  struct ref_transport *t = svc->transport;
  if(cap)
    buf[0] = '\0';
  if(!t || !t->fault[0])
    return false;
  snprintf(buf, cap, "%s", t->fault);
  t->fault[0] = '\0';
  return true;
}

/* ---- test hook: a crash at a chosen point ---- */

void ref_test_crash(const char *where)
{
  const char *want = getenv("TABULA_TEST_CRASH");
  if(want && !strcmp(want, where)) {
    ref_log_warn("TABULA_TEST_CRASH: dying %s", where);
    _exit(86);
  }
}


/* ---- one batch: process each message, commit once ---- */

static void items_free(struct ref_item *v, size_t n)
{
  size_t i;
  for(i = 0; v && i < n; i++)
    free(v[i].data);
  free(v);
}

/* Processes v[0..n) in one outer transaction; before the commit, the
 * source's record (if any) writes its bookkeeping into the same
 * transaction, told how many leading items went through. Returns how many leading items are
 * committed: 0..n, all-or-none with respect to the commit. A SIGTERM stops
 * it at the next message: what went before is committed.
 * Log lines wait for the commit, so a move is logged as played only once
 * it is (a rolled-back message's info lines are forgotten, its warnings
 * kept). */
static size_t run_batch(struct ref_service *svc, struct ref_item *v, size_t n)
{
  struct ref_transport *t = svc->transport;
  size_t i, good = 0, base;

  if(!n)
    return 0;
  if(store_batch_begin(svc->st) != STORE_OK) {
    store_fault(svc, "cannot begin a batch");
    ref_log_error("cannot begin a batch: %s", store_errmsg(svc->st));
    return 0;
  }
  ref_log_hold();
  base = ref_log_held(); /* what an outer hold kept before is not ours */
  for(i = 0; i < n && !stopping(svc); i++) {
    enum ref_outcome outcome;
    size_t mark = ref_log_held();
    if(v[i].data &&
       ref_service_process(svc, v[i].data, v[i].len, v[i].arrived, &outcome) != 0) {
      ref_log_forget(mark, REF_LOG_INFO, REF_LOG_DEBUG);
      store_fault(svc, "a message could not be processed");
      break; /* temporary: it and everything after it wait for the next pass */
    }
    good++;
  }
  if(!store_batch_open(svc->st)) {
    /* The whole transaction is gone: nothing of the batch is kept, and
     * the source's bookkeeping must not move on either. */
    store_fault(svc, "batch rolled back");
    ref_log_forget(base, REF_LOG_INFO, REF_LOG_DEBUG);
    ref_log_error("batch rolled back by the store (%s); will retry", store_errmsg(svc->st));
    ref_store_batch_rollback(svc);
    ref_log_release();
    return 0;
  }
  if(t->source->record && t->source->record(svc, t->source_state, good)) {
    store_fault(svc, "cannot record the mail source's state");
    ref_log_forget(base, REF_LOG_INFO, REF_LOG_DEBUG);
    ref_log_error("cannot record the mail source's state: %s", store_errmsg(svc->st));
    ref_store_batch_rollback(svc);
    ref_log_release();
    return 0;
  }
  ref_test_crash("before-commit");
  if(store_batch_commit(svc->st) != STORE_OK) {
    store_fault(svc, "batch not committed");
    ref_log_forget(base, REF_LOG_INFO, REF_LOG_DEBUG);
    ref_log_error("batch of %zu message(s) not committed (%s); will retry", n,
                  store_errmsg(svc->st));
    ref_log_release();
    return 0;
  }
  ref_log_release();
  ref_test_crash("after-commit");
  return good;
}

/* ---- a pass over the source ---- */

/* Batches of up to batch_max, each committed before the source is told;
 * one batch for a source that reads one a pass, else every batch there
 * is, the outbox flushed between two. through: lowered to the arrival of
 * a mail the source left (TM-1), -1 when the pass did not look at
 * everything it found. */
static int pass(struct ref_service *svc, size_t *processed, int64_t *through)
{
  struct ref_transport *t = svc->transport;
  const struct ref_source_driver *src = t->source;
  size_t max = (size_t)svc->cfg.batch_max;
  bool flushing = true, left = false;
  int rc = 0;

  if(src->begin(svc, t->source_state))
    return -1;
  while(!stopping(svc)) {
    struct ref_item *v = calloc(max, sizeof(*v));
    size_t n = 0, good, i;

    if(!v || src->read(svc, t->source_state, v, max, &n, &left, through)) {
      items_free(v, n);
      rc = -1;
      break;
    }
    if(!n) {
      free(v);
      break;
    }
    good = run_batch(svc, v, n);
    for(i = 0; i < good; i++)
      if(v[i].data)
        (*processed)++;
    src->committed(svc, t->source_state, v, n, good);
    items_free(v, n);
    if(good < n) {
      rc = -1;
      break;
    }
    if(src->one_batch || !left)
      break;
    if(flushing && !stopping(svc))
      flushing = flush_between(svc);
  }
  /* IMAP IDLE reports only what is new, a POP3 session lists once: mail
   * beyond the batch needs a pass of its own without waiting. */
  if(src->one_batch)
    t->more = left && rc == 0;
  if(src->end(svc, t->source_state, rc == 0, through))
    rc = -1;
  return rc;
}

/* What a killed writer left in the Maildirs' tmp/ (a tabula-deliver or an
 * MTA stopped mid-write, this process crashing between a reply's write and
 * its link): removed once untouched for the convention's 36 hours
 * (mail_maildir_clean_tmp), at a process's first pass (`poll`, `serve` at
 * its start) and then once an hour of the service's clock. Only the
 * Maildirs in use: another source or sink makes none. */
#define TMP_CLEAN_EVERY_S 3600

static void clean_tmp(struct ref_service *svc)
{
  struct ref_transport *t = svc->transport;
  const char *dirs[2];
  int64_t now = ref_now(svc);
  size_t i;

  if(t->tmp_cleaned && now - t->tmp_cleaned < TMP_CLEAN_EVERY_S)
    return;
  t->tmp_cleaned = now;
  dirs[0] = t->source->folder ? t->source->folder(&svc->cfg) : NULL;
  dirs[1] = t->sink->folder ? t->sink->folder(&svc->cfg) : NULL;
  for(i = 0; i < 2; i++) {
    size_t removed = 0;
    if(!dirs[i])
      continue;
    if(mail_maildir_clean_tmp(dirs[i], now, MAIL_MAILDIR_TMP_IDLE_S, &removed))
      ref_log_warn("cannot clean %s/tmp: %s", dirs[i], strerror(errno));
    if(removed)
      ref_log_info("removed %zu partial file(s) untouched for 36 hours from %s/tmp "
                   "(left by a writer that was stopped)", removed, dirs[i]);
  }
}

int ref_inbound_pass(struct ref_service *svc, size_t *processed)
{
  /* what reached the source before this pass began is read by it, unless
   * it fails or stops early (TM-1: the tick's losses on time wait) */
  int64_t through = ref_now(svc);
  int rc;

  *processed = 0;
  if(!svc->transport)
    return -1;
  clean_tmp(svc);
  rc = pass(svc, processed, &through);
  if(rc == 0 && through > svc->read_through && !stopping(svc) && !svc->transport->more)
    svc->read_through = through;
  return rc;
}

int ref_inbound_ack(struct ref_service *svc)
{
  struct ref_transport *t = svc->transport;

  if(!t || !t->source->ack)
    return 0;
  return t->source->ack(svc, t->source_state);
}

int ref_inbound_wait(struct ref_service *svc, volatile sig_atomic_t *stop)
{
  struct ref_transport *t = svc->transport;
  struct timespec pause;
  int r = 1;

  if(t && t->more && !(stop && *stop)) {
    t->more = false;
    return 0;
  }
  if(t && t->source->wait)
    r = t->source->wait(svc, t->source_state, stop); /* IMAP IDLE, the inbox's watch */
  if(r <= 0)
    return r;
  /* Nothing to watch at the source: the time, or a call of another
   * daemon on the store (store_wake_fd), whichever comes first. */
  if(store_wake_fd(svc->st) >= 0) {
    struct pollfd p = {store_wake_fd(svc->st), POLLIN, 0};
    if(stop && *stop)
      return 0;
    (void)poll(&p, 1, svc->cfg.poll_ms); /* a signal cuts it short too */
    return 0;
  }
  pause.tv_sec = svc->cfg.poll_ms / 1000;
  pause.tv_nsec = (long)(svc->cfg.poll_ms % 1000) * 1000000L;
  nanosleep(&pause, NULL); /* a signal cuts it short; the loop checks */
  return 0;
}


/* ---- the outbox: every reply exactly once ---- */

/* Retries back off exponentially: base (retry_base_s, 60 s by default),
 * twice that, four times ... at most 6 hours. */
static int64_t backoff(int base, int attempts)
{
  int64_t s = base;
  while(attempts-- > 0 && s < 6 * 3600)
    s *= 2;
  return s < 6 * 3600 ? s : 6 * 3600;
}

#define OUTBOX_CHUNK 256


#define OUTBOX_CHUNK 256

/* Records t->unrecorded as sent: one transaction, so a Maildir chunk costs
 * one commit. On failure they stay listed (and claimed by this process:
 * nobody else sends them) for the next try. lazy (a grouped sink: the
 * Maildir): the commit is not synced (store_batch_begin_lazy): the
 * replies are durable in the Maildir already, and a mark lost in a crash only makes them rows
 * in doubt, which the flush finds there by name. Runs of
 * consecutive ids are marked by one statement each. */
static int record_sent(struct ref_service *svc, struct ref_transport *t, bool lazy)
{
  bool many = t->nunrecorded > 1;
  size_t i, j;
  int rc = STORE_OK;

  if(!t->nunrecorded)
    return 0;
  if(lazy)
    rc = store_batch_begin_lazy(svc->st);
  else if(many)
    rc = store_batch_begin(svc->st);
  for(i = 0; rc == STORE_OK && i < t->nunrecorded; i = j) {
    size_t n = 0;
    for(j = i + 1; j < t->nunrecorded && t->unrecorded[j] == t->unrecorded[j - 1] + 1; j++)
      ;
    if(j - i == 1) {
      rc = store_outbox_sent(svc->st, t->unrecorded[i], ref_now(svc));
      if(rc == STORE_ENOTFOUND)
        rc = STORE_OK; /* gone (pruned): nothing to record */
    }
    else
      rc = store_outbox_sent_range(svc->st, t->unrecorded[i], t->unrecorded[j - 1],
                                   ref_now(svc), &n);
  }
  if((lazy || many) && rc == STORE_OK)
    rc = store_batch_commit(svc->st);
  else if(lazy || many)
    ref_store_batch_rollback(svc);
  if(rc != STORE_OK) {
    store_fault(svc, "outbox: cannot record what was sent");
    ref_log_error("outbox: cannot record %zu sent repl(ies) (%s); they are not sent again "
                  "while this process runs",
                  t->nunrecorded, store_errmsg(svc->st));
    return -1;
  }
  t->nunrecorded = 0;
  return 0;
}

static int remember_sent(struct ref_transport *t, int64_t id)
{
  if(t->nunrecorded == t->capunrecorded) {
    size_t cap = t->capunrecorded ? 2 * t->capunrecorded : OUTBOX_CHUNK;
    int64_t *p = realloc(t->unrecorded, cap * sizeof(*p));
    if(!p)
      return -1;
    t->unrecorded = p;
    t->capunrecorded = cap;
  }
  t->unrecorded[t->nunrecorded++] = id;
  return 0;
}

/* A failed attempt, kept with the server's own words (a row not tried
 * because the server just failed another says so once: "not tried: ...").
 * Refusals (5xx) are retried too, a few times, in case the refusal was the
 * server's passing state. */
static void failed_row(struct ref_service *svc, const struct store_outbox *row, int r,
                       const char *err, bool tried)
{
  bool permanent = r == MAIL_EREFUSED && row->attempts + 1 >= 8;

  if(tried)
    ref_log_warn("outbox %lld to %s: %s%s", (long long)row->id, row->recipient, err,
                 permanent ? " (given up)" : "; will retry");
  else
    ref_log_debug("outbox %lld to %s: %s", (long long)row->id, row->recipient, err);
  if(store_outbox_retry(svc->st, row->id,
                        ref_now(svc) + backoff(svc->cfg.retry_base_s, row->attempts), err,
                        permanent) != STORE_OK)
    store_fault(svc, "outbox: cannot record a failed attempt");
}

/* One flush: the server found down (the rest are not tried), how many
 * were not, whether claims must be kept (written, not synced). */
struct flush {
  char down[300];
  size_t untried;
  bool keep_claims;
};

/* Once the sink took the row: a sink that is not grouped has it marked
 * sent at once (a crash repeats at most the one in flight); a grouped one
 * leaves the chunk to chunk_done. 0; else the chunk stops: -1 the row not
 * even remembered, -2 remembered but not recorded. */
static int row_sent(struct ref_service *svc, struct ref_transport *t,
                    const struct store_outbox *row, size_t *sent)
{
  if(remember_sent(t, row->id)) {
    ref_log_error("outbox: out of memory");
    return -1;
  }
  if(t->sink->grouped)
    return 0;
  ref_test_crash("after-send");
  if(record_sent(svc, t, false))
    return -2;
  ref_log_info("outbox %lld to %s: sent (%s)", (long long)row->id, row->recipient,
               t->sink->name);
  (*sent)++;
  return 0;
}

/* A grouped sink's chunk written: made durable, then marked sent in one
 * lazy transaction. 0, or -1. */
static int chunk_done(struct ref_service *svc, struct ref_transport *t, struct flush *f,
                      size_t *sent)
{
  size_t chunk = t->nunrecorded;
  const char *where = t->sink->where(&svc->cfg);

  if(!chunk)
    return 0;
  if(t->sink->sync(svc, t->sink_state)) {
    /* Written but perhaps not durable: still claimed by this process,
     * found by name and synced again on the next try. */
    ref_log_error("outbox: cannot sync %s: %s; %zu repl(ies) wait", where, strerror(errno),
                  chunk);
    t->nunrecorded = 0;
    f->keep_claims = true;
    return -1;
  }
  ref_test_crash("after-send");
  if(record_sent(svc, t, true))
    return -1;
  *sent += chunk;
  ref_log_debug("outbox: %zu repl(ies) written to %s", chunk, where);
  return 0;
}

/* One chunk of claimed rows through the sink. 0, or -1 when a row failed
 * or the chunk stopped early. */
static int flush_chunk(struct ref_service *svc, struct ref_transport *t,
                       const struct store_outbox *rows, size_t n, bool fresh, struct flush *f,
                       size_t *sent)
{
  const struct ref_sink_driver *sink = t->sink;
  bool *found = calloc(n, sizeof(*found)); /* rows the sink holds already */
  size_t i;
  int rc = 0;

  if(!found || (sink->chunk && sink->chunk(svc, t->sink_state, rows, n, fresh, found))) {
    ref_log_error("outbox: cannot look into %s for replies written before a crash: %s",
                  sink->where(&svc->cfg), strerror(errno));
    free(found);
    return -2; /* still claimed: looked for again on the next try */
  }
  for(i = 0; i < n && !stopping(svc); i++) {
    char err[512];
    int r;
    if(found[i]) {
      ref_log_info("outbox %lld: in %s already, written before a crash: not again",
                   (long long)rows[i].id, sink->where(&svc->cfg));
      r = MAIL_OK;
    }
    else if(f->down[0]) {
      /* The server is down or refuses us: the rest wait their turn
       * instead of each paying a connection timeout or AUTH delay. */
      snprintf(err, sizeof(err), "not tried: %s", f->down);
      failed_row(svc, &rows[i], MAIL_ENET, err, false);
      f->untried++;
      rc = -1;
      continue;
    }
    else {
      r = sink->send(svc, t->sink_state, &rows[i], fresh, err, sizeof(err));
      /* (a grouped sink's write that fails, e.g. a full disk, is down too) */
      if(r == MAIL_ENET || r == MAIL_ETLS || r == MAIL_EAUTH || (sink->grouped && r == MAIL_EIO))
        snprintf(f->down, sizeof(f->down), "%.299s", err[0] ? err : "server unavailable");
    }
    if(r != MAIL_OK) {
      failed_row(svc, &rows[i], r, err, true);
      rc = -1;
      continue;
    }
    if((r = row_sent(svc, t, &rows[i], sent)) != 0) {
      rc = -1;
      i += r == -2; /* (that one is in the sink's hands) */
      break;
    }
  }
  if(sink->grouped && chunk_done(svc, t, f, sent))
    rc = -1;
  /* Stopped early: what this process will not send now is free for
   * another (none of it was handed to the sink). */
  if(i < n && !t->nunrecorded && !f->keep_claims && store_outbox_release(svc->st) != STORE_OK)
    ref_log_warn("outbox: cannot give back the claims: %s", store_errmsg(svc->st));
  free(found);
  return rc;
}

int ref_service_flush_outbox(struct ref_service *svc, size_t *sent)
{
  struct ref_transport *t = svc->transport;
  struct flush f = {"", 0, false};
  bool first = true;
  int rc = 0;

  *sent = 0;
  if(!t)
    return -1;
  if(record_sent(svc, t, t->sink->grouped))
    return -1;
  while(!rc && !stopping(svc)) {
    struct store_outbox *rows = NULL;
    size_t n = 0;
    /* First what this process just queued, from memory; then what the
     * table holds for it or for nobody. */
    bool fresh = first && store_outbox_fresh(svc->st, &rows, &n) == STORE_OK && n;
    first = false;
    if(!fresh &&
       store_outbox_claim(svc->st, &rows, &n, ref_now(svc), OUTBOX_CHUNK) != STORE_OK) {
      store_fault(svc, "outbox: cannot claim replies");
      ref_log_error("outbox: cannot claim replies to send: %s", store_errmsg(svc->st));
      return -1;
    }
    if(!n)
      break;
    rc = flush_chunk(svc, t, rows, n, fresh, &f, sent);
    store_outbox_free(rows, n);
    if(rc == -2)
      return -1;
  }
  /* Stopping: the replies this process queued and will not send now go
   * back to the queue, so whoever sends them next need not look for them
   * in the outbox as it must for those of a process that died. */
  if(stopping(svc) && !t->nunrecorded && !f.keep_claims &&
     store_outbox_release(svc->st) != STORE_OK)
    ref_log_warn("outbox: cannot give back the claims: %s", store_errmsg(svc->st));
  if(f.untried)
    ref_log_warn("outbox: %zu more repl(ies) not tried now: %s", f.untried, f.down);
  return rc;
}
