/*
 * transport.c: where mail comes from (Maildir, IMAP, POP3) and where replies
 * go (Maildir, SMTP, sendmail), chosen by the configuration (source, sink).
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
#include "service_int.h"

#include "log.h"
#include "mail.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct ref_transport {
  struct mail_imap *imap;
  struct mail_smtp *smtp;
  bool more; /* the last pass left mail for the next batch: do not wait */
  struct mail_maildir_watch *inbox_watch; /* source maildir: new/ watched */
  bool inbox_unwatchable;                 /* it could not be: poll_ms */
  /* With the watch, a pass reads only the names it saw arrive;
   * new/ is listed whole after the watch opens, after a pass that left a
   * message there, and at least every INBOX_RELIST_S. */
  bool inbox_relist;
  double inbox_listed; /* CLOCK_MONOTONIC seconds of the last listing */
  volatile sig_atomic_t *stop; /* set by SIGTERM: stop at the next message */
  /* Replies the sink took that the store does not yet say are sent (its
   * write failed): recorded before anything else is sent. */
  int64_t *unrecorded;
  size_t nunrecorded, capunrecorded;
  /* IMAP UIDs committed, to be flagged by ref_inbound_ack */
  uint32_t *unacked;
  size_t nunacked, capunacked;
  char fault[400]; /* the store's failure in this pass, "" none */
  /* The outbox flushes between a Maildir pass's batches (pass_maildir):
   * replies sent, wall and CPU seconds, read and cleared by
   * ref_transport_inner_flush for the pass's log line. */
  size_t inner_sent;
  double inner_wall, inner_cpu;
  int64_t tmp_cleaned; /* ref_now of the last clean_tmp, 0 never */
};

/* ---- configuration ---- */

static bool one_of(const char *v, const char *a, const char *b, const char *c)
{
  return !strcmp(v, a) || !strcmp(v, b) || (c && !strcmp(v, c));
}

int ref_config_check_mail(const struct ref_config *cfg, char *errbuf, size_t errcap)
{
  enum mail_tls t;

  if(!one_of(cfg->source, "maildir", "imap", "pop3")) {
    snprintf(errbuf, errcap, "source: '%s' is not maildir, imap or pop3", cfg->source);
    return -1;
  }
  if(!one_of(cfg->sink, "maildir", "smtp", "sendmail")) {
    snprintf(errbuf, errcap, "sink: '%s' is not maildir, smtp or sendmail", cfg->sink);
    return -1;
  }
  if(mail_tls_parse(cfg->in_tls, &t) || mail_tls_parse(cfg->smtp_tls, &t)) {
    snprintf(errbuf, errcap, "in_tls and smtp_tls take implicit, starttls or none");
    return -1;
  }
  if(strcmp(cfg->source, "maildir") && !cfg->in_host[0]) {
    snprintf(errbuf, errcap, "source = %s needs in_host", cfg->source);
    return -1;
  }
  if(!strcmp(cfg->sink, "smtp") && !cfg->smtp_host[0]) {
    snprintf(errbuf, errcap, "sink = smtp needs smtp_host");
    return -1;
  }
  if(!strcmp(cfg->sink, "sendmail") && cfg->sendmail_path[0] != '/') {
    snprintf(errbuf, errcap, "sendmail_path must be an absolute path");
    return -1;
  }
  return 0;
}

static void server_of(const struct ref_config *cfg, bool in, struct mail_server *s)
{
  memset(s, 0, sizeof(*s));
  s->host = in ? cfg->in_host : cfg->smtp_host;
  s->port = in ? cfg->in_port : cfg->smtp_port;
  mail_tls_parse(in ? cfg->in_tls : cfg->smtp_tls, &s->tls);
  s->user = in ? cfg->in_user : cfg->smtp_user;
  s->password = in ? cfg->in_password : cfg->smtp_password;
  s->cafile = cfg->tls_cafile;
  s->verify = cfg->tls_verify != 0;
  s->timeout_s = cfg->net_timeout_s;
}

static struct ref_transport *transport(struct ref_service *svc)
{
  if(!svc->transport)
    svc->transport = calloc(1, sizeof(*svc->transport));
  return svc->transport;
}

void ref_transport_close(struct ref_service *svc)
{
  if(!svc || !svc->transport)
    return;
  mail_imap_close(svc->transport->imap);
  mail_smtp_close(svc->transport->smtp);
  mail_maildir_watch_close(svc->transport->inbox_watch);
  free(svc->transport->unrecorded);
  free(svc->transport->unacked);
  free(svc->transport);
  svc->transport = NULL;
}

void ref_transport_stop_on(struct ref_service *svc, volatile sig_atomic_t *stop)
{
  struct ref_transport *t = transport(svc);
  if(t)
    t->stop = stop;
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
  struct ref_transport *t = transport(svc);
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
  struct ref_transport *t = transport(svc);
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

struct item {
  char *data;
  size_t len;
  int64_t arrived; /* when it reached the mailbox, -1 unknown */
  bool ack;  /* to be acknowledged once committed (false: unreadable, left) */
  bool writing; /* a Maildir file still being written: left, looked at again */
  bool empty;   /* a Maildir file with nothing in it: left, until written */
};

static void items_free(struct item *v, size_t n)
{
  size_t i;
  for(i = 0; v && i < n; i++)
    free(v[i].data);
  free(v);
}

/* Processes v[0..n) in one outer transaction; before the commit, extra()
 * (if any) writes the source's bookkeeping into the same transaction, told
 * how many leading items went through. Returns how many leading items are
 * committed: 0..n, all-or-none with respect to the commit. A SIGTERM stops
 * it at the next message: what went before is committed.
 * Log lines wait for the commit, so a move is logged as played only once
 * it is (a rolled-back message's info lines are forgotten, its warnings
 * kept). */
static size_t run_batch(struct ref_service *svc, struct item *v, size_t n,
                        int (*extra)(struct ref_service *, size_t, void *), void *arg)
{
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
  if(extra && extra(svc, good, arg)) {
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

/* ---- Maildir source ---- */

/* A listing of new/ this often even with the watch: the watch misses
 * nothing once open, so this only bounds what a fault nobody foresaw
 * could leave behind. */
#define INBOX_RELIST_S 60.0

/* The names a pass reads: those the watch saw arrive, or, without a
 * watch or when it cannot tell, the whole of new/ (0, else -1). A folder
 * that once held a backlog keeps its size (ext4 does not shrink a
 * directory), and listing it cost more than the message. */
static int inbox_names(struct ref_service *svc, char ***names, size_t *n)
{
  struct ref_transport *t = svc->transport;
  double now = seconds(CLOCK_MONOTONIC);

  if(t && t->inbox_watch && !t->inbox_relist && now - t->inbox_listed < INBOX_RELIST_S) {
    int r = mail_maildir_watch_take(t->inbox_watch, svc->cfg.inbox, names, n);
    if(r == 0)
      return 0;
    if(r < 0)
      ref_log_warn("cannot read the inbox watch's names: listing %s/new", svc->cfg.inbox);
  } else if(t && t->inbox_watch)
    mail_maildir_watch_forget(t->inbox_watch); /* the listing holds them too */
  if(mail_maildir_list_new(svc->cfg.inbox, names, n) != MAIL_OK) {
    ref_log_error("cannot read %s/new", svc->cfg.inbox);
    return -1;
  }
  if(t) {
    t->inbox_relist = false;
    t->inbox_listed = now;
  }
  return 0;
}

/* through: lowered to the arrival of a mail left because it is still
 * being written; -1 when the pass did not look at everything it found. */
static int pass_maildir(struct ref_service *svc, size_t *processed, int64_t *through)
{
  char **names = NULL, **acks = NULL;
  size_t n = 0, start, m, k, i, good, nack, failed;
  int rc = 0;
  bool flushing = true;
  struct ref_transport *t = svc->transport;

  if(inbox_names(svc, &names, &n))
    return -1;
  acks = calloc(n + 1, sizeof(*acks));
  if(!acks) {
    mail_names_free(names, n);
    return -1;
  }
  for(start = 0; start < n && rc == 0 && !stopping(svc); start += m) {
    struct item *v;
    m = n - start < (size_t)svc->cfg.batch_max ? n - start : (size_t)svc->cfg.batch_max;
    v = calloc(m, sizeof(*v));
    if(!v) {
      rc = -1;
      break;
    }
    for(k = 0; k < m; k++) {
      const char *name = names[start + k];
      int r = mail_maildir_read_in(svc->cfg.inbox, name, t ? t->inbox_watch : NULL,
                                   &v[k].data, &v[k].len);
      v[k].arrived = mail_maildir_arrival(svc->cfg.inbox, name);
      v[k].ack = r == MAIL_OK || r == MAIL_ETOOBIG;
      if(r == MAIL_ETOOBIG) /* too big to be a move: set aside unread, never lost */
        ref_log_warn("message %s is larger than %u bytes: set aside unread", name,
                     MAIL_MAX_MESSAGE);
      else if(r == MAIL_EAGAIN) {
        /* written in new/ itself and not finished (docs/architecture.md,
         * "The inbox"): read once its writer is done; until then, no
         * deadline after its arrival so far is ruled on (TM-1) */
        v[k].writing = true;
        ref_log_debug("message %s is still being written: left in new/ for now", name);
        if(v[k].arrived >= 0 && v[k].arrived < *through)
          *through = v[k].arrived;
      }
      else if((v[k].empty = r == MAIL_EEMPTY)) /* no mail yet: a writer's close wakes the watch */
        ref_log_info("message %s is empty: left in new/ until something is written in it",
                     name);
      /* else vanished or unreadable now: left where it is for the next pass */
    }
    good = run_batch(svc, v, m, NULL, NULL);
    for(i = 0, nack = 0; i < good; i++) {
      if(v[i].ack)
        acks[nack++] = names[start + i];
      else if(v[i].writing && t && t->inbox_watch)
        mail_maildir_watch_again(t->inbox_watch, names[start + i]);
      else if(!v[i].empty && t)
        t->inbox_relist = true; /* unreadable now: the next pass lists new/ */
      if(v[i].data)
        (*processed)++;
    }
    if(good < m && t)
      t->inbox_relist = true; /* not committed: the next pass finds them */
    failed = mail_maildir_ack_batch(svc->cfg.inbox, acks, nack);
    if(failed)
      ref_log_warn("cannot move %zu message(s) to cur/; the repeat will be a no-op", failed);
    items_free(v, m);
    if(good < m)
      rc = -1;
    if(rc == 0 && flushing && start + m < n && !stopping(svc))
      flushing = flush_between(svc);
  }
  if(start < n) {
    *through = -1;
    if(t)
      t->inbox_relist = true; /* stopped with names unread */
  }
  free(acks);
  mail_names_free(names, n);
  return rc;
}

/* ---- IMAP source ---- */

/* kv: "imap <user>@<host>/<mailbox>" = "<uidvalidity> <last committed uid>" */
static void imap_key(const struct ref_config *cfg, char *key, size_t cap)
{
  snprintf(key, cap, "imap %s@%s/%s", cfg->in_user, cfg->in_host, cfg->imap_mailbox);
}

struct imap_pass {
  uint32_t uidvalidity;
  const uint32_t *uids; /* of the batch's items */
};

static int imap_record(struct ref_service *svc, size_t good, void *arg)
{
  struct imap_pass *p = arg;
  char key[800], val[64];

  if(!good)
    return 0;
  imap_key(&svc->cfg, key, sizeof(key));
  snprintf(val, sizeof(val), "%" PRIu32 " %" PRIu32, p->uidvalidity, p->uids[good - 1]);
  return store_kv_set(svc->st, key, val) == STORE_OK ? 0 : -1;
}

static void imap_drop(struct ref_transport *t, const char *why)
{
  ref_log_warn("%s", why);
  mail_imap_close(t->imap);
  t->imap = NULL;
  t->nunacked = 0; /* the next session finds them by the last committed UID */
}

/* Keeps committed UIDs for ref_inbound_ack; false when memory fails (they
 * are then acknowledged at once). */
static bool imap_defer(struct ref_transport *t, const uint32_t *uids, size_t n)
{
  if(t->nunacked + n > t->capunacked) {
    size_t cap = t->capunacked ? t->capunacked : 64;
    uint32_t *p;
    while(cap < t->nunacked + n)
      cap *= 2;
    if(!(p = realloc(t->unacked, cap * sizeof(*p))))
      return false;
    t->unacked = p;
    t->capunacked = cap;
  }
  memcpy(t->unacked + t->nunacked, uids, n * sizeof(*uids));
  t->nunacked += n;
  return true;
}

int ref_inbound_ack(struct ref_service *svc)
{
  struct ref_transport *t = svc->transport;
  int rc = 0;

  if(!t || !t->nunacked)
    return 0;
  if(t->imap && mail_imap_ack(t->imap, t->unacked, t->nunacked, svc->cfg.imap_move_to)) {
    imap_drop(t, mail_imap_error(t->imap));
    rc = -1;
  }
  t->nunacked = 0;
  return rc;
}

static int pass_imap(struct ref_service *svc, size_t *processed)
{
  struct ref_transport *t = transport(svc);
  struct mail_server srv;
  struct imap_pass pass;
  struct item *v = NULL;
  uint32_t *uids = NULL, *batch_uids = NULL, *acks = NULL;
  uint32_t last = 0, validity = 0;
  size_t n = 0, nold = 0, nnew = 0, k = 0, good, i;
  char key[800], val[64], err[600];
  bool state = false;
  int rc = -1, got;

  if(!t)
    return -1;
  if(!t->imap) {
    server_of(&svc->cfg, true, &srv);
    if(mail_imap_open(&t->imap, &srv, svc->cfg.imap_mailbox, err, sizeof(err))) {
      ref_log_error("%s", err);
      return -1;
    }
    ref_log_info("IMAP %s: %s selected, UIDVALIDITY %" PRIu32 "%s", svc->cfg.in_host,
                 svc->cfg.imap_mailbox, mail_imap_uidvalidity(t->imap),
                 mail_imap_has_idle(t->imap) ? ", IDLE" : ", no IDLE: polling");
  }
  imap_key(&svc->cfg, key, sizeof(key));
  got = store_kv_get(svc->st, val, sizeof(val), key);
  if(got != STORE_OK && got != STORE_ENOTFOUND) {
    /* not "nothing read yet": this pass waits for the store */
    ref_log_error("IMAP %s: cannot read the last committed UID: %s", key, store_errmsg(svc->st));
    return -1;
  }
  if(got == STORE_OK && sscanf(val, "%" SCNu32 " %" SCNu32, &validity, &last) == 2) {
    if(validity == mail_imap_uidvalidity(t->imap))
      state = true;
    else
      /* RFC 3501 2.3.1.1: new UIDVALIDITY, old UIDs mean nothing. What is
       * unseen is what was not acknowledged; Message-IDs catch repeats. */
      ref_log_warn("IMAP %s: UIDVALIDITY changed (%" PRIu32 " -> %" PRIu32 "): reading unseen mail",
                   key, validity, mail_imap_uidvalidity(t->imap));
  }
  if(!state)
    last = 0;
  /* with imap_move_to, every message: those committed before a kill
   * between \Seen and MOVE all move now, not one a pass */
  if(mail_imap_search(t->imap, last, svc->cfg.imap_move_to[0] != '\0', &uids, &n)) {
    imap_drop(t, mail_imap_error(t->imap));
    return -1;
  }
  acks = malloc((n + 1) * sizeof(*acks));
  batch_uids = malloc((n + 1) * sizeof(*batch_uids));
  v = calloc(n + 1, sizeof(*v));
  if(!acks || !batch_uids || !v)
    goto out;
  /* At or below the last committed UID: processed before a crash or a
   * lost connection kept it from being acknowledged. Not read again. */
  for(i = 0; i < n && uids[i] <= last; i++)
    acks[nold++] = uids[i];
  if(nold && mail_imap_ack(t->imap, acks, nold, svc->cfg.imap_move_to)) {
    imap_drop(t, mail_imap_error(t->imap));
    goto out;
  }
  if(nold)
    ref_log_info("IMAP: %zu message(s) committed before were acknowledged now", nold);
  pass.uidvalidity = mail_imap_uidvalidity(t->imap); /* before a fetch may drop the session */
  for(; i < n && nnew < (size_t)svc->cfg.batch_max; i++) {
    int r = mail_imap_fetch(t->imap, uids[i], &v[nnew].data, &v[nnew].len, &v[nnew].arrived);
    v[nnew].ack = true;
    if(r == MAIL_ETOOBIG)
      ref_log_warn("IMAP UID %" PRIu32 " is larger than %u bytes: left unread", uids[i],
                   MAIL_MAX_MESSAGE);
    else if(r) {
      imap_drop(t, mail_imap_error(t->imap));
      break;
    }
    batch_uids[nnew++] = uids[i];
  }
  /* IDLE reports only what is new: mail beyond this batch needs a pass
   * of its own without waiting. */
  t->more = i < n;
  pass.uids = batch_uids;
  good = run_batch(svc, v, nnew, imap_record, &pass);
  for(i = 0; i < good; i++)
    if(v[i].data)
      (*processed)++;
  /* Too-big ones are acknowledged with the rest (they stay in the
   * mailbox, flagged, for a human). Committed now; flagged after the
   * replies went out (ref_inbound_ack), so they do not wait for it. */
  if(good && t->imap && !imap_defer(t, batch_uids, good) &&
     mail_imap_ack(t->imap, batch_uids, good, svc->cfg.imap_move_to))
    imap_drop(t, mail_imap_error(t->imap));
  rc = good == nnew && t->imap ? 0 : -1;
  k = nnew;
out:
  items_free(v, k);
  free(uids);
  free(acks);
  free(batch_uids);
  return rc;
}

/* ---- POP3 source ---- */

/* kv: "pop3 <user>@<host>" = the UIDLs committed but not yet deleted, each
 * followed by one space. POP3 sessions are short: one per pass. */
static void pop3_key(const struct ref_config *cfg, char *key, size_t cap)
{
  snprintf(key, cap, "pop3 %s@%s", cfg->in_user, cfg->in_host);
}

#define POP3_PENDING_MAX (256u * 1024u)

static bool in_list(const char *list, const char *uidl)
{
  size_t n = strlen(uidl);
  const char *p = list;
  while(p && *p) {
    const char *sp = strchr(p, ' ');
    size_t k = sp ? (size_t)(sp - p) : strlen(p);
    if(k == n && !memcmp(p, uidl, n))
      return true;
    p = sp ? sp + 1 : NULL;
  }
  return false;
}

struct pop3_pass {
  struct mail_pop3_item *items;
  size_t *batch_idx; /* item index of each batch entry */
  char *pending;     /* in/out: UIDLs to delete */
};

/* UIDLs are printable and space-free (RFC 1939 §7), so a space list works. */
static bool uidl_ok(const char *u)
{
  if(!u[0])
    return false;
  for(; *u; u++)
    if(*u <= 0x20 || *u >= 0x7f)
      return false;
  return true;
}

static int pop3_record(struct ref_service *svc, size_t good, void *arg)
{
  struct pop3_pass *p = arg;
  char key[600];
  size_t i, len = strlen(p->pending);

  for(i = 0; i < good; i++) {
    const char *u = p->items[p->batch_idx[i]].uidl;
    size_t ul = strlen(u);
    if(!uidl_ok(u) || in_list(p->pending, u) || len + ul + 2 >= POP3_PENDING_MAX)
      continue;
    memcpy(p->pending + len, u, ul);
    len += ul;
    p->pending[len++] = ' ';
    p->pending[len] = '\0';
  }
  pop3_key(&svc->cfg, key, sizeof(key));
  return store_kv_set(svc->st, key, p->pending) == STORE_OK ? 0 : -1;
}

static int pass_pop3(struct ref_service *svc, size_t *processed)
{
  struct mail_server srv;
  struct mail_pop3 *pop = NULL;
  struct mail_pop3_item *items = NULL;
  struct pop3_pass pass = {NULL, NULL, NULL};
  struct item *v = NULL;
  size_t n = 0, k = 0, good = 0, i;
  char key[600], err[600];
  int rc = -1, got;

  server_of(&svc->cfg, true, &srv);
  if(mail_pop3_open(&pop, &srv, err, sizeof(err))) {
    ref_log_error("%s", err);
    return -1;
  }
  pass.pending = calloc(1, POP3_PENDING_MAX);
  if(!pass.pending)
    goto out;
  pop3_key(&svc->cfg, key, sizeof(key));
  got = store_kv_get(svc->st, pass.pending, POP3_PENDING_MAX, key);
  if(got != STORE_OK && got != STORE_ENOTFOUND) {
    /* read as empty, the list would be rewritten without them (the
     * messages committed but not yet deleted): this pass waits instead */
    ref_log_error("POP3: cannot read the messages committed before: %s", store_errmsg(svc->st));
    goto out;
  }
  if(got != STORE_OK)
    pass.pending[0] = '\0';
  if(mail_pop3_list(pop, &items, &n)) {
    ref_log_error("%s", mail_pop3_error(pop));
    goto out;
  }
  pass.items = items;
  v = calloc(n + 1, sizeof(*v));
  pass.batch_idx = calloc(n + 1, sizeof(*pass.batch_idx));
  if(!v || !pass.batch_idx)
    goto out;
  for(i = 0; i < n && k < (size_t)svc->cfg.batch_max; i++) {
    int r;
    if(uidl_ok(items[i].uidl) && in_list(pass.pending, items[i].uidl))
      continue; /* committed before: deleted below, not read again */
    if(items[i].size > MAIL_MAX_MESSAGE) {
      ref_log_warn("POP3 message %s is larger than %u bytes: left on the server",
                   items[i].uidl, MAIL_MAX_MESSAGE);
      continue;
    }
    r = mail_pop3_retr(pop, items[i].index, &v[k].data, &v[k].len);
    if(r) {
      ref_log_error("%s", mail_pop3_error(pop));
      break;
    }
    /* POP3 has no arrival time: the top Received: of the operator's own
     * server has it; without one, now */
    v[k].arrived = mail_received_time(v[k].data, v[k].len);
    pass.batch_idx[k++] = i;
  }
  good = run_batch(svc, v, k, pop3_record, &pass);
  *processed += good;
  if(transport(svc))
    svc->transport->more = i < n && good == k;
  /* RFC 1939 §6: deletions happen at QUIT, after the commit above. */
  for(i = 0; i < n; i++) {
    bool done = uidl_ok(items[i].uidl) && in_list(pass.pending, items[i].uidl);
    size_t j;
    for(j = 0; !done && j < good; j++)
      done = pass.batch_idx[j] == i;
    if(done && mail_pop3_dele(pop, items[i].index)) {
      ref_log_error("%s", mail_pop3_error(pop));
      goto out;
    }
  }
  if(mail_pop3_quit(pop)) {
    ref_log_warn("%s: the deletions wait for the next pass", mail_pop3_error(pop));
    goto out;
  }
  /* Deleted for good: nothing pending any more. */
  if(pass.pending[0] && store_kv_set(svc->st, key, "") != STORE_OK)
    ref_log_warn("cannot clear the POP3 list: %s", store_errmsg(svc->st));
  rc = good == k ? 0 : -1;
out:
  mail_pop3_close(pop);
  items_free(v, k);
  free(items);
  free(pass.batch_idx);
  free(pass.pending);
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
  struct ref_transport *t = transport(svc);
  const char *dirs[2] = {NULL, NULL};
  int64_t now = ref_now(svc);
  size_t i;

  if(!t || (t->tmp_cleaned && now - t->tmp_cleaned < TMP_CLEAN_EVERY_S))
    return;
  t->tmp_cleaned = now;
  if(!strcmp(svc->cfg.source, "maildir"))
    dirs[0] = svc->cfg.inbox;
  if(!strcmp(svc->cfg.sink, "maildir"))
    dirs[1] = svc->cfg.outbox;
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
  clean_tmp(svc);
  if(!strcmp(svc->cfg.source, "imap"))
    rc = pass_imap(svc, processed);
  else if(!strcmp(svc->cfg.source, "pop3"))
    rc = pass_pop3(svc, processed);
  else
    rc = pass_maildir(svc, processed, &through);
  if(rc == 0 && through > svc->read_through && !stopping(svc) &&
     !(svc->transport && svc->transport->more))
    svc->read_through = through;
  return rc;
}

struct stop_arg {
  volatile sig_atomic_t *stop;
};

static bool should_stop(void *arg)
{
  struct stop_arg *s = arg;
  return s->stop && *s->stop;
}

int ref_inbound_wait(struct ref_service *svc, volatile sig_atomic_t *stop)
{
  struct ref_transport *t = svc->transport;
  struct stop_arg sa = {stop};
  struct timespec pause;

  if(t && t->more && !(stop && *stop)) {
    t->more = false;
    return 0;
  }
  if(!strcmp(svc->cfg.source, "imap") && t && t->imap && mail_imap_has_idle(t->imap)) {
    /* IDLE: woken by the server at once. Renewed at least every minute,
     * which also lets queued replies be retried on time. */
    int ms = svc->cfg.retry_base_s < 60 ? svc->cfg.retry_base_s * 1000 : 60000;
    int r = mail_imap_wait(t->imap, ms, should_stop, &sa);
    if(r < 0)
      imap_drop(t, mail_imap_error(t->imap));
    return r < 0 ? -1 : 0;
  }
  if(!strcmp(svc->cfg.source, "maildir") && (t = transport(svc))) {
    /* Woken by a new file at once (tabula-deliver leaves mail here for
     * the daemon); poll_ms still bounds the wait, for the tick
     * and retries. The first call only opens the watch and returns: mail
     * that came between the last pass and the watch is found by the next
     * pass, and after that the kernel queues every arrival. */
    if(!t->inbox_watch && !t->inbox_unwatchable) {
      if(mail_maildir_watch_open(svc->cfg.inbox, &t->inbox_watch)) {
        t->inbox_unwatchable = true;
        ref_log_debug("inbox %s cannot be watched: polling every %d ms", svc->cfg.inbox,
                      svc->cfg.poll_ms);
      }
      t->inbox_relist = true;
      return 0;
    }
    if(t->inbox_watch) {
      if(mail_maildir_watch_wait(t->inbox_watch, svc->cfg.poll_ms) < 0) {
        mail_maildir_watch_close(t->inbox_watch); /* polled from now on */
        t->inbox_watch = NULL;
        t->inbox_unwatchable = true;
      }
      return 0;
    }
  }
  pause.tv_sec = svc->cfg.poll_ms / 1000;
  pause.tv_nsec = (long)(svc->cfg.poll_ms % 1000) * 1000000L;
  nanosleep(&pause, NULL); /* a signal cuts it short; the loop checks */
  return 0;
}

/* ---- the sinks ---- */

/* Maildir files hold LF line ends (the form mail readers and Dovecot
 * expect on disk); the stored message keeps CRLF for SMTP. */
static char *lf_copy(const char *s, size_t *len)
{
  size_t n = strlen(s);
  const char *end = s + n;
  char *out = malloc(n + 1), *w = out;
  if(!out)
    return NULL;
  /* a line at a time, not a byte (a reply is ~20 KB) */
  while(s < end) {
    const char *cr = memchr(s, '\r', (size_t)(end - s));
    size_t k = cr ? (size_t)(cr - s) : (size_t)(end - s);
    memcpy(w, s, k);
    w += k;
    s += k;
    if(cr) {
      if(cr[1] != '\n')
        *w++ = '\r';
      s++;
    }
  }
  *w = '\0';
  *len = (size_t)(w - out);
  return out;
}

static char *crlf_copy(const char *s, size_t *len)
{
  size_t n = strlen(s), extra = 0, i;
  char *out, *w;
  for(i = 0; i < n; i++)
    if(s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
      extra++;
  out = malloc(n + extra + 1);
  if(!out)
    return NULL;
  for(w = out, i = 0; i < n; i++) {
    if(s[i] == '\n' && (i == 0 || s[i - 1] != '\r'))
      *w++ = '\r';
    *w++ = s[i];
  }
  *w = '\0';
  *len = (size_t)(w - out);
  return out;
}

/* The Maildir sink's file for a row: the row's own name, so a
 * reply written before a crash and written again after it is the same
 * file, recognised instead of doubled. "<created>.R<id>S<store id>.tabula":
 * seconds first, as Maildir names go and readers sort; the row id padded so
 * the text order is the order of composition; the store's random id keeps
 * two stores writing into one Maildir (or a store made anew beside an old
 * outbox) apart. No host name: the name must not change with the host.
 * Whoever prunes sent rows must keep row ids from being reused
 * (SQLite reuses the highest id once its row is gone), or a new reply
 * could be taken for an old one's file. */
static int maildir_name(struct ref_service *svc, const struct store_outbox *row, char *buf,
                        size_t cap)
{
  int n = snprintf(buf, cap, "%lld.R%010lldS%s.tabula", (long long)row->created,
                   (long long)row->id, store_id(svc->st));
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* One row through the sink: 0 once it took the message (SMTP 250,
 * sendmail exit 0, Maildir written: durable after ref_outbound_sync), else
 * a mail_code with the reason in err. */
static int outbound_send(struct ref_service *svc, const struct store_outbox *row, bool fresh,
                         bool by_file, char *err, size_t cap)
{
  struct ref_transport *t;
  struct mail_server srv;
  char name[128];
  size_t len = 0;
  bool already = false;
  char *msg;
  int rc;

  err[0] = '\0';
  if(!strcmp(svc->cfg.sink, "smtp")) {
    t = transport(svc);
    if(!t)
      return MAIL_ENOMEM;
    if(!t->smtp) {
      server_of(&svc->cfg, false, &srv);
      rc = mail_smtp_open(&t->smtp, &srv, svc->cfg.domain, err, cap);
      if(rc)
        return rc;
    }
    msg = crlf_copy(row->message, &len);
    if(!msg)
      return MAIL_ENOMEM;
    rc = mail_smtp_send(t->smtp, svc->cfg.address, row->recipient, msg, len, err, cap);
    free(msg);
    if(rc && rc != MAIL_EREFUSED) {
      /* A fresh connection for the next attempt. */
      mail_smtp_close(t->smtp);
      t->smtp = NULL;
    }
    return rc;
  }
  msg = lf_copy(row->message, &len);
  if(!msg)
    return MAIL_ENOMEM;
  if(!strcmp(svc->cfg.sink, "sendmail"))
    rc = mail_sendmail(svc->cfg.sendmail_path, svc->cfg.address, row->recipient, msg, len, err,
                       cap);
  else if(maildir_name(svc, row, name, sizeof(name)))
    rc = MAIL_EIO;
  else {
    /* Here already when a sync failed after the write (rows in doubt were
     * looked for before: in_doubt_found). A row just queued (fresh) was
     * never written: nothing to look for. */
    rc = mail_maildir_put(svc->cfg.outbox, name, msg, len,
                          by_file ? MAIL_SYNC_FILE : MAIL_SYNC_NONE, fresh ? NULL : &already);
    if(rc)
      snprintf(err, cap, "cannot write to %.300s: %s", svc->cfg.outbox, strerror(errno));
    else if(already)
      ref_log_info("outbox %lld: already in %s as %s, not written again", (long long)row->id,
                   svc->cfg.outbox, name);
  }
  free(msg);
  return rc;
}

/* A chunk of at most this many fresh replies is synced file by file (an
 * fdatasync each as it is written, then one of new/) instead of by
 * syncfs, which also writes every other dirty page of the file system: on
 * a shared server, other programs' data, at this daemon's cost and theirs.
 * A daemon's pass over one or two mails writes two to four replies; a big
 * batch keeps the one syncfs. */
#define SYNC_BY_FILE_MAX 16

/* Makes every message outbound_send wrote durable (the Maildir sink writes
 * without a sync of new/ and syncs the group here); 0 on success.
 * by_file: each file was synced as it was written (MAIL_SYNC_FILE). */
static int outbound_sync(struct ref_service *svc, bool by_file)
{
  if(strcmp(svc->cfg.sink, "maildir"))
    return 0; /* sendmail took each message when it exited 0; SMTP on its 250 */
  if(by_file)
    return mail_maildir_sync_folder(svc->cfg.outbox) ? -1 : 0;
  return mail_maildir_sync(svc->cfg.outbox) ? -1 : 0;
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

/* The length of lf_copy(s) without making it. */
static size_t lf_len(const char *s)
{
  size_t n = strlen(s);
  const char *end = s + n, *cr = s;
  while((cr = memchr(cr, '\r', (size_t)(end - cr)))) {
    if(cr[1] == '\n')
      n--;
    cr++;
  }
  return n;
}

/* Maildir sink: which rows of a chunk taken over from a process that died
 * (in_doubt) are in the outbox already, written before the crash and
 * perhaps moved to cur/ by a reader since: found[i]. One look at new/ and
 * cur/ for the whole chunk. */
static int in_doubt_found(struct ref_service *svc, const struct store_outbox *rows, size_t n,
                          bool *found)
{
  char **names = calloc(n + 1, sizeof(*names));
  size_t *lens = calloc(n + 1, sizeof(*lens));
  bool *hit = calloc(n + 1, sizeof(*hit));
  size_t i, k = 0;
  int rc = -1;

  if(!names || !lens || !hit)
    goto out;
  for(i = 0; i < n; i++) {
    found[i] = false;
    if(!rows[i].in_doubt)
      continue;
    names[k] = malloc(128);
    if(!names[k] || maildir_name(svc, &rows[i], names[k], 128))
      goto out;
    lens[k++] = lf_len(rows[i].message);
  }
  rc = 0;
  if(k && mail_maildir_find(svc->cfg.outbox, names, lens, k, hit))
    rc = -1;
  for(i = 0, k = 0; rc == 0 && i < n; i++)
    if(rows[i].in_doubt)
      found[i] = hit[k++];
out:
  for(i = 0; names && i < n; i++)
    free(names[i]);
  free(names);
  free(lens);
  free(hit);
  return rc;
}

/* Records t->unrecorded as sent: one transaction, so a Maildir chunk costs
 * one commit. On failure they stay listed (and claimed by this process:
 * nobody else sends them) for the next try. lazy (the Maildir sink): the
 * commit is not synced (store_batch_begin_lazy): the replies are durable
 * in the Maildir already, and a mark lost in a crash only makes them rows
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

int ref_service_flush_outbox(struct ref_service *svc, size_t *sent)
{
  struct ref_transport *t = transport(svc);
  /* Local Maildir: a chunk written, one sync, then marked sent in one
   * transaction; a crash in between finds the files by their names.
   * SMTP and sendmail: each row marked as the server takes it, so a crash
   * repeats at most the one in flight. */
  bool grouped = !strcmp(svc->cfg.sink, "maildir");
  bool *found = NULL; /* rows found in the outbox already (in_doubt_found) */
  bool keep_claims = false; /* written, not synced: nobody else may take them */
  char down[300] = "";
  size_t untried = 0;
  bool first = true;
  int rc = 0;

  *sent = 0;
  if(!t)
    return -1;
  if(record_sent(svc, t, grouped))
    return -1;
  while(!rc && !stopping(svc)) {
    struct store_outbox *rows = NULL;
    size_t n = 0, i, chunk;
    bool by_file;
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
    /* rows found written before a crash are not synced by file: syncfs */
    by_file = grouped && fresh && n <= SYNC_BY_FILE_MAX;
    if(!(found = calloc(n, sizeof(*found))) ||
       (grouped && in_doubt_found(svc, rows, n, found))) {
      ref_log_error("outbox: cannot look into %s for replies written before a crash: %s",
                    svc->cfg.outbox, strerror(errno));
      free(found);
      store_outbox_free(rows, n);
      return -1; /* still claimed: looked for again on the next try */
    }
    for(i = 0; i < n && !stopping(svc); i++) {
      char err[512];
      int r;
      if(found[i]) {
        ref_log_info("outbox %lld: in %s already, written before a crash: not again",
                     (long long)rows[i].id, svc->cfg.outbox);
        r = MAIL_OK;
      }
      else if(down[0]) {
        /* The server is down or refuses us: the rest wait their turn
         * instead of each paying a connection timeout or AUTH delay. */
        snprintf(err, sizeof(err), "not tried: %s", down);
        failed_row(svc, &rows[i], MAIL_ENET, err, false);
        untried++;
        rc = -1;
        continue;
      }
      else {
        r = outbound_send(svc, &rows[i], fresh, by_file, err, sizeof(err));
        /* (a Maildir that cannot be written, e.g. a full disk, is down too) */
        if(r == MAIL_ENET || r == MAIL_ETLS || r == MAIL_EAUTH || (grouped && r == MAIL_EIO))
          snprintf(down, sizeof(down), "%.299s", err[0] ? err : "server unavailable");
      }
      if(r != MAIL_OK) {
        failed_row(svc, &rows[i], r, err, true);
        rc = -1;
        continue;
      }
      if(remember_sent(t, rows[i].id)) {
        ref_log_error("outbox: out of memory");
        rc = -1;
        break;
      }
      if(!grouped) {
        ref_test_crash("after-send");
        if(record_sent(svc, t, false)) {
          rc = -1;
          i++;
          break;
        }
        ref_log_info("outbox %lld to %s: sent (%s)", (long long)rows[i].id, rows[i].recipient,
                     svc->cfg.sink);
        (*sent)++;
      }
    }
    chunk = t->nunrecorded;
    if(grouped && chunk && outbound_sync(svc, by_file)) {
      /* Written but perhaps not durable: still claimed by this process,
       * found by name and synced again on the next try. */
      ref_log_error("outbox: cannot sync %s: %s; %zu repl(ies) wait", svc->cfg.outbox,
                    strerror(errno), chunk);
      t->nunrecorded = 0;
      keep_claims = true;
      rc = -1;
    }
    else if(grouped && chunk) {
      ref_test_crash("after-send");
      if(record_sent(svc, t, true))
        rc = -1;
      else {
        *sent += chunk;
        ref_log_debug("outbox: %zu repl(ies) written to %s", chunk, svc->cfg.outbox);
      }
    }
    /* Stopped early: what this process will not send now is free for
     * another (none of it was handed to the sink). */
    if(i < n && !t->nunrecorded && !keep_claims && store_outbox_release(svc->st) != STORE_OK)
      ref_log_warn("outbox: cannot give back the claims: %s", store_errmsg(svc->st));
    store_outbox_free(rows, n);
    free(found);
    found = NULL;
  }
  /* Stopping: the replies this process queued and will not send now go
   * back to the queue, so whoever sends them next need not look for them
   * in the outbox as it must for those of a process that died. */
  if(stopping(svc) && !t->nunrecorded && !keep_claims && store_outbox_release(svc->st) != STORE_OK)
    ref_log_warn("outbox: cannot give back the claims: %s", store_errmsg(svc->st));
  if(untried)
    ref_log_warn("outbox: %zu more repl(ies) not tried now: %s", untried, down);
  return rc;
}
