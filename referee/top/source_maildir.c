/*
 * source_maildir.c: mail from the inbox Maildir (`source = maildir`, the
 * default; tabula-deliver and MTAs write into it). A pass reads every
 * batch new/ holds; a batch is acknowledged by moving its files to cur/
 * (not synced: the store keeps every message's id and digest, so one a
 * crash puts back in new/ is read again as a no-op). A file still being
 * written is left for the next pass (docs/architecture.md, "The inbox").
 * The daemon waits on an inotify watch of new/, which names what arrived.
 */
#include "transport_int.h"

#include "log.h"

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A listing of new/ this often even with the watch: the watch misses
 * nothing once open, so this only bounds what a fault nobody foresaw
 * could leave behind. */
#define INBOX_RELIST_S 60.0

struct maildir_source {
  struct mail_maildir_watch *watch; /* new/ watched */
  bool unwatchable;                 /* it could not be: poll_ms */
  /* With the watch, a pass reads only the names it saw arrive;
   * new/ is listed whole after the watch opens, after a pass that left a
   * message there, and at least every INBOX_RELIST_S. */
  bool relist;
  double listed; /* CLOCK_MONOTONIC seconds of the last listing */
  /* this pass: the names, how many were read, the acknowledged ones */
  char **names, **acks;
  size_t n, pos;
};

static int check(const struct ref_config *cfg, char *err, size_t cap)
{
  (void)cfg;
  (void)err;
  (void)cap;
  return 0;
}

static const char *folder(const struct ref_config *cfg)
{
  return cfg->inbox;
}

static void *open_state(const struct ref_config *cfg)
{
  (void)cfg;
  return calloc(1, sizeof(struct maildir_source));
}

static void close_state(void *state)
{
  struct maildir_source *s = state;
  if(!s)
    return;
  mail_maildir_watch_close(s->watch);
  mail_names_free(s->names, s->n);
  free(s->acks);
  free(s);
}

/* The names a pass reads: those the watch saw arrive, or, without a
 * watch or when it cannot tell, the whole of new/ (0, else -1). A folder
 * that once held a backlog keeps its size (ext4 does not shrink a
 * directory), and listing it cost more than the message. */
static int inbox_names(struct ref_service *svc, struct maildir_source *s)
{
  double now = ref_driver_seconds();

  if(s->watch && !s->relist && now - s->listed < INBOX_RELIST_S) {
    int r = mail_maildir_watch_take(s->watch, svc->cfg.inbox, &s->names, &s->n);
    if(r == 0)
      return 0;
    if(r < 0)
      ref_log_warn("cannot read the inbox watch's names: listing %s/new", svc->cfg.inbox);
  } else if(s->watch)
    mail_maildir_watch_forget(s->watch); /* the listing holds them too */
  if(mail_maildir_list_new(svc->cfg.inbox, &s->names, &s->n) != MAIL_OK) {
    ref_log_error("cannot read %s/new", svc->cfg.inbox);
    return -1;
  }
  s->relist = false;
  s->listed = now;
  return 0;
}

static int begin(struct ref_service *svc, void *state)
{
  struct maildir_source *s = state;

  s->names = NULL;
  s->n = s->pos = 0;
  if(inbox_names(svc, s))
    return -1;
  s->acks = calloc(s->n + 1, sizeof(*s->acks));
  if(!s->acks) {
    mail_names_free(s->names, s->n);
    s->names = NULL;
    s->n = 0;
    return -1;
  }
  return 0;
}

static int read_batch(struct ref_service *svc, void *state, struct ref_item *v, size_t max,
                      size_t *n, bool *left, int64_t *through)
{
  struct maildir_source *s = state;
  size_t m = s->n - s->pos < max ? s->n - s->pos : max, k;

  for(k = 0; k < m; k++) {
    const char *name = s->names[s->pos + k];
    int r = mail_maildir_read_in(svc->cfg.inbox, name, s->watch, &v[k].data, &v[k].len);
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
  *n = m;
  *left = s->pos + m < s->n;
  return 0;
}

static void committed(struct ref_service *svc, void *state, const struct ref_item *v, size_t n,
                      size_t good)
{
  struct maildir_source *s = state;
  size_t i, nack = 0, failed;

  for(i = 0; i < good; i++) {
    if(v[i].ack)
      s->acks[nack++] = s->names[s->pos + i];
    else if(v[i].writing && s->watch)
      mail_maildir_watch_again(s->watch, s->names[s->pos + i]);
    else if(!v[i].empty)
      s->relist = true; /* unreadable now: the next pass lists new/ */
  }
  if(good < n)
    s->relist = true; /* not committed: the next pass finds them */
  failed = mail_maildir_ack_batch(svc->cfg.inbox, s->acks, nack);
  if(failed)
    ref_log_warn("cannot move %zu message(s) to cur/; the repeat will be a no-op", failed);
  s->pos += n;
}

static int end(struct ref_service *svc, void *state, bool all_good, int64_t *through)
{
  struct maildir_source *s = state;

  (void)svc;
  (void)all_good;
  if(s->pos < s->n) {
    *through = -1;
    s->relist = true; /* stopped with names unread */
  }
  free(s->acks);
  s->acks = NULL;
  mail_names_free(s->names, s->n);
  s->names = NULL;
  s->n = s->pos = 0;
  return 0;
}

/* Woken by a new file at once (tabula-deliver leaves mail here for the
 * daemon); poll_ms still bounds the wait, for the tick and retries. The
 * first call only opens the watch and returns: mail that came between the
 * last pass and the watch is found by the next pass, and after that the
 * kernel queues every arrival. */
static int wait_news(struct ref_service *svc, void *state, volatile sig_atomic_t *stop)
{
  struct maildir_source *s = state;

  if(!s->watch && !s->unwatchable) {
    if(mail_maildir_watch_open(svc->cfg.inbox, &s->watch)) {
      s->unwatchable = true;
      ref_log_debug("inbox %s cannot be watched: polling every %d ms", svc->cfg.inbox,
                    svc->cfg.poll_ms);
    }
    s->relist = true;
    return 0;
  }
  if(s->watch) {
    /* Beside the other daemons' calls, where several serve the store
     * (store_wake_fd): woken by either; the caller looks at the calls. */
    int wake = store_wake_fd(svc->st);
    int timeout = svc->cfg.poll_ms;
    if(wake >= 0) {
      struct pollfd p[2] = {{mail_maildir_watch_fd(s->watch), POLLIN, 0}, {wake, POLLIN, 0}};
      if(stop && *stop)
        return 0; /* a signal during the pass: not a whole wait more */
      if(poll(p, 2, timeout) <= 0 || !p[0].revents)
        return 0; /* the timeout, a signal, or a call: nothing in the inbox */
      timeout = 0; /* the inbox's: its names read at once */
    }
    if(mail_maildir_watch_wait(s->watch, timeout) < 0) {
      mail_maildir_watch_close(s->watch); /* polled from now on */
      s->watch = NULL;
      s->unwatchable = true;
    }
    return 0;
  }
  return 1;
}

const struct ref_source_driver ref_source_maildir = {
  .name = "maildir",
  .one_batch = false,
  .check = check,
  .where = folder,
  .folder = folder,
  .open = open_state,
  .close = close_state,
  .begin = begin,
  .read = read_batch,
  .record = NULL,
  .committed = committed,
  .end = end,
  .ack = NULL,
  .wait = wait_news,
};
