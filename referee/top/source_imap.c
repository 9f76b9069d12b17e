/*
 * source_imap.c: mail from an IMAP mailbox (`source = imap`; mail/imap.c,
 * libetpan). One session kept open; a pass reads one batch of the UIDs
 * above the last committed one, fetched with BODY.PEEK[] (nothing is \Seen
 * early). The store keeps, in the batch's own transaction, UIDVALIDITY and
 * the last committed UID, so mail committed but not yet flagged is flagged
 * after a crash without being read again. The batch is flagged \Seen (or
 * MOVEd) after the outbox flush that follows the pass (ack): the replies
 * do not wait for the server's answer to the flagging, which is still after
 * the commit. The daemon waits in IDLE where the server has it.
 */
#include "transport_int.h"

#include "log.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct imap_source {
  struct mail_imap *imap;
  /* UIDs committed, to be flagged by ack */
  uint32_t *unacked;
  size_t nunacked, capunacked;
  /* this pass: the UIDs searched, the next to read, the batch's */
  uint32_t *uids, *batch_uids;
  size_t n, next, nbatch;
  uint32_t uidvalidity; /* of the pass, read before a fetch may drop the session */
};

static int check(const struct ref_config *cfg, char *err, size_t cap)
{
  if(!cfg->in_host[0]) {
    snprintf(err, cap, "source = imap needs in_host");
    return -1;
  }
  return 0;
}

static const char *where(const struct ref_config *cfg)
{
  return cfg->in_host;
}

static void *open_state(const struct ref_config *cfg)
{
  (void)cfg;
  return calloc(1, sizeof(struct imap_source));
}

static void close_state(void *state)
{
  struct imap_source *s = state;
  if(!s)
    return;
  mail_imap_close(s->imap);
  free(s->unacked);
  free(s->uids);
  free(s->batch_uids);
  free(s);
}

/* kv: "imap <user>@<host>/<mailbox>" = "<uidvalidity> <last committed uid>" */
static void imap_key(const struct ref_config *cfg, char *key, size_t cap)
{
  snprintf(key, cap, "imap %s@%s/%s", cfg->in_user, cfg->in_host, cfg->imap_mailbox);
}

static void imap_drop(struct imap_source *s, const char *why)
{
  ref_log_warn("%s", why);
  mail_imap_close(s->imap);
  s->imap = NULL;
  s->nunacked = 0; /* the next session finds them by the last committed UID */
}

/* Keeps committed UIDs for ack; false when memory fails (they are then
 * acknowledged at once). */
static bool imap_defer(struct imap_source *s, const uint32_t *uids, size_t n)
{
  if(s->nunacked + n > s->capunacked) {
    size_t cap = s->capunacked ? s->capunacked : 64;
    uint32_t *p;
    while(cap < s->nunacked + n)
      cap *= 2;
    if(!(p = realloc(s->unacked, cap * sizeof(*p))))
      return false;
    s->unacked = p;
    s->capunacked = cap;
  }
  memcpy(s->unacked + s->nunacked, uids, n * sizeof(*uids));
  s->nunacked += n;
  return true;
}

static int begin(struct ref_service *svc, void *state)
{
  struct imap_source *s = state;
  struct mail_server srv;
  uint32_t last = 0, validity = 0, *acks;
  size_t nold = 0, i;
  char key[800], val[64], err[600];
  bool known = false;
  int got;

  free(s->uids);
  free(s->batch_uids);
  s->uids = s->batch_uids = NULL;
  s->n = s->next = s->nbatch = 0;
  if(!s->imap) {
    ref_driver_server(&svc->cfg, true, &srv);
    if(mail_imap_open(&s->imap, &srv, svc->cfg.imap_mailbox, err, sizeof(err))) {
      ref_log_error("%s", err);
      return -1;
    }
    ref_log_info("IMAP %s: %s selected, UIDVALIDITY %" PRIu32 "%s", svc->cfg.in_host,
                 svc->cfg.imap_mailbox, mail_imap_uidvalidity(s->imap),
                 mail_imap_has_idle(s->imap) ? ", IDLE" : ", no IDLE: polling");
  }
  imap_key(&svc->cfg, key, sizeof(key));
  got = store_kv_get(svc->st, val, sizeof(val), key);
  if(got != STORE_OK && got != STORE_ENOTFOUND) {
    /* not "nothing read yet": this pass waits for the store */
    ref_log_error("IMAP %s: cannot read the last committed UID: %s", key, store_errmsg(svc->st));
    return -1;
  }
  if(got == STORE_OK && sscanf(val, "%" SCNu32 " %" SCNu32, &validity, &last) == 2) {
    if(validity == mail_imap_uidvalidity(s->imap))
      known = true;
    else
      /* RFC 3501 2.3.1.1: new UIDVALIDITY, old UIDs mean nothing. What is
       * unseen is what was not acknowledged; Message-IDs catch repeats. */
      ref_log_warn("IMAP %s: UIDVALIDITY changed (%" PRIu32 " -> %" PRIu32 "): reading unseen mail",
                   key, validity, mail_imap_uidvalidity(s->imap));
  }
  if(!known)
    last = 0;
  /* with imap_move_to, every message: those committed before a kill
   * between \Seen and MOVE all move now, not one a pass */
  if(mail_imap_search(s->imap, last, svc->cfg.imap_move_to[0] != '\0', &s->uids, &s->n)) {
    imap_drop(s, mail_imap_error(s->imap));
    return -1;
  }
  acks = malloc((s->n + 1) * sizeof(*acks));
  s->batch_uids = malloc((s->n + 1) * sizeof(*s->batch_uids));
  if(!acks || !s->batch_uids) {
    free(acks);
    return -1;
  }
  /* At or below the last committed UID: processed before a crash or a
   * lost connection kept it from being acknowledged. Not read again. */
  for(i = 0; i < s->n && s->uids[i] <= last; i++)
    acks[nold++] = s->uids[i];
  s->next = i;
  if(nold && mail_imap_ack(s->imap, acks, nold, svc->cfg.imap_move_to)) {
    imap_drop(s, mail_imap_error(s->imap));
    free(acks);
    return -1;
  }
  free(acks);
  if(nold)
    ref_log_info("IMAP: %zu message(s) committed before were acknowledged now", nold);
  s->uidvalidity = mail_imap_uidvalidity(s->imap);
  return 0;
}

static int read_batch(struct ref_service *svc, void *state, struct ref_item *v, size_t max,
                      size_t *n, bool *left, int64_t *through)
{
  struct imap_source *s = state;
  size_t k = 0, i;

  (void)svc;
  (void)through;
  for(i = s->next; s->imap && i < s->n && k < max; i++) {
    int r = mail_imap_fetch(s->imap, s->uids[i], &v[k].data, &v[k].len, &v[k].arrived);
    v[k].ack = true;
    if(r == MAIL_ETOOBIG)
      ref_log_warn("IMAP UID %" PRIu32 " is larger than %u bytes: left unread", s->uids[i],
                   MAIL_MAX_MESSAGE);
    else if(r) {
      imap_drop(s, mail_imap_error(s->imap));
      break;
    }
    s->batch_uids[k++] = s->uids[i];
  }
  s->next = i;
  s->nbatch = k;
  *n = k;
  /* IDLE reports only what is new: mail beyond this batch needs a pass
   * of its own without waiting. */
  *left = i < s->n;
  return 0;
}

static int record(struct ref_service *svc, void *state, size_t good)
{
  struct imap_source *s = state;
  char key[800], val[64];

  if(!good)
    return 0;
  imap_key(&svc->cfg, key, sizeof(key));
  snprintf(val, sizeof(val), "%" PRIu32 " %" PRIu32, s->uidvalidity, s->batch_uids[good - 1]);
  return store_kv_set(svc->st, key, val) == STORE_OK ? 0 : -1;
}

/* Too-big ones are acknowledged with the rest (they stay in the mailbox,
 * flagged, for a human). Committed now; flagged after the replies went
 * out (ack), so they do not wait for it. */
static void committed(struct ref_service *svc, void *state, const struct ref_item *v, size_t n,
                      size_t good)
{
  struct imap_source *s = state;

  (void)v;
  (void)n;
  if(good && s->imap && !imap_defer(s, s->batch_uids, good) &&
     mail_imap_ack(s->imap, s->batch_uids, good, svc->cfg.imap_move_to))
    imap_drop(s, mail_imap_error(s->imap));
}

static int end(struct ref_service *svc, void *state, bool all_good, int64_t *through)
{
  struct imap_source *s = state;

  (void)svc;
  (void)all_good;
  (void)through;
  free(s->uids);
  free(s->batch_uids);
  s->uids = s->batch_uids = NULL;
  s->n = s->next = s->nbatch = 0;
  return s->imap ? 0 : -1;
}

static int ack(struct ref_service *svc, void *state)
{
  struct imap_source *s = state;
  int rc = 0;

  if(!s->nunacked)
    return 0;
  if(s->imap && mail_imap_ack(s->imap, s->unacked, s->nunacked, svc->cfg.imap_move_to)) {
    imap_drop(s, mail_imap_error(s->imap));
    rc = -1;
  }
  s->nunacked = 0;
  return rc;
}

struct stop_arg {
  volatile sig_atomic_t *stop;
};

static bool should_stop(void *arg)
{
  struct stop_arg *sa = arg;
  return sa->stop && *sa->stop;
}

/* IDLE: woken by the server at once. Renewed at least every minute, which
 * also lets queued replies be retried on time. */
static int wait_news(struct ref_service *svc, void *state, volatile sig_atomic_t *stop)
{
  struct imap_source *s = state;
  struct stop_arg sa = {stop};
  int ms, r;

  if(!s->imap || !mail_imap_has_idle(s->imap))
    return 1;
  ms = svc->cfg.retry_base_s < 60 ? svc->cfg.retry_base_s * 1000 : 60000;
  r = mail_imap_wait(s->imap, ms, should_stop, &sa);
  if(r < 0)
    imap_drop(s, mail_imap_error(s->imap));
  return r < 0 ? -1 : 0;
}

const struct ref_source_driver ref_source_imap = {
  .name = "imap",
  .one_batch = true,
  .check = check,
  .where = where,
  .folder = NULL,
  .open = open_state,
  .close = close_state,
  .begin = begin,
  .read = read_batch,
  .record = record,
  .committed = committed,
  .end = end,
  .ack = ack,
  .wait = wait_news,
};
