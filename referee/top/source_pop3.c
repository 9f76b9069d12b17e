/*
 * source_pop3.c: mail from a POP3 mailbox (`source = pop3`; mail/pop3.c,
 * libetpan). POP3 sessions are short: one a pass, one batch a pass. The
 * UIDLs committed but not yet deleted are kept in the store, written in
 * the batch's own transaction; the batch is deleted at QUIT, after the
 * commit (RFC 1939 §6), and a UIDL committed before a crash is deleted
 * without being read again.
 */
#include "transport_int.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define POP3_PENDING_MAX (256u * 1024u)

struct pop3_source {
  /* this pass */
  struct mail_pop3 *pop;
  struct mail_pop3_item *items;
  size_t n, next;
  size_t *batch_idx; /* item index of each batch entry */
  size_t nbatch, good;
  char *pending; /* UIDLs to delete, each followed by one space */
};

static int check(const struct ref_config *cfg, char *err, size_t cap)
{
  if(!cfg->in_host[0]) {
    snprintf(err, cap, "source = pop3 needs in_host");
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
  return calloc(1, sizeof(struct pop3_source));
}

/* What one pass holds, let go. */
static void pass_free(struct pop3_source *s)
{
  mail_pop3_close(s->pop);
  free(s->items);
  free(s->batch_idx);
  free(s->pending);
  memset(s, 0, sizeof(*s));
}

static void close_state(void *state)
{
  if(!state)
    return;
  pass_free(state);
  free(state);
}

/* kv: "pop3 <user>@<host>" = the UIDLs committed but not yet deleted, each
 * followed by one space. */
static void pop3_key(const struct ref_config *cfg, char *key, size_t cap)
{
  snprintf(key, cap, "pop3 %s@%s", cfg->in_user, cfg->in_host);
}

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

static int begin(struct ref_service *svc, void *state)
{
  struct pop3_source *s = state;
  struct mail_server srv;
  char key[600], err[600];
  int got;

  pass_free(s);
  ref_driver_server(&svc->cfg, true, &srv);
  if(mail_pop3_open(&s->pop, &srv, err, sizeof(err))) {
    ref_log_error("%s", err);
    return -1;
  }
  s->pending = calloc(1, POP3_PENDING_MAX);
  if(!s->pending)
    goto fail;
  pop3_key(&svc->cfg, key, sizeof(key));
  got = store_kv_get(svc->st, s->pending, POP3_PENDING_MAX, key);
  if(got != STORE_OK && got != STORE_ENOTFOUND) {
    /* read as empty, the list would be rewritten without them (the
     * messages committed but not yet deleted): this pass waits instead */
    ref_log_error("POP3: cannot read the messages committed before: %s", store_errmsg(svc->st));
    goto fail;
  }
  if(got != STORE_OK)
    s->pending[0] = '\0';
  if(mail_pop3_list(s->pop, &s->items, &s->n)) {
    ref_log_error("%s", mail_pop3_error(s->pop));
    goto fail;
  }
  s->batch_idx = calloc(s->n + 1, sizeof(*s->batch_idx));
  if(!s->batch_idx)
    goto fail;
  return 0;
fail:
  pass_free(s);
  return -1;
}

static int read_batch(struct ref_service *svc, void *state, struct ref_item *v, size_t max,
                      size_t *n, bool *left, int64_t *through)
{
  struct pop3_source *s = state;
  size_t k = 0, i;

  (void)svc;
  (void)through;
  for(i = s->next; i < s->n && k < max; i++) {
    int r;
    if(uidl_ok(s->items[i].uidl) && in_list(s->pending, s->items[i].uidl))
      continue; /* committed before: deleted at the end, not read again */
    if(s->items[i].size > MAIL_MAX_MESSAGE) {
      ref_log_warn("POP3 message %s is larger than %u bytes: left on the server",
                   s->items[i].uidl, MAIL_MAX_MESSAGE);
      continue;
    }
    r = mail_pop3_retr(s->pop, s->items[i].index, &v[k].data, &v[k].len);
    if(r) {
      ref_log_error("%s", mail_pop3_error(s->pop));
      break;
    }
    /* POP3 has no arrival time: the top Received: of the operator's own
     * server has it; without one, now */
    v[k].arrived = mail_received_time(v[k].data, v[k].len);
    s->batch_idx[k++] = i;
  }
  s->next = i;
  s->nbatch = k;
  *n = k;
  *left = i < s->n;
  return 0;
}

static int record(struct ref_service *svc, void *state, size_t good)
{
  struct pop3_source *s = state;
  char key[600];
  size_t i, len = strlen(s->pending);

  for(i = 0; i < good; i++) {
    const char *u = s->items[s->batch_idx[i]].uidl;
    size_t ul = strlen(u);
    if(!uidl_ok(u) || in_list(s->pending, u) || len + ul + 2 >= POP3_PENDING_MAX)
      continue;
    memcpy(s->pending + len, u, ul);
    len += ul;
    s->pending[len++] = ' ';
    s->pending[len] = '\0';
  }
  pop3_key(&svc->cfg, key, sizeof(key));
  return store_kv_set(svc->st, key, s->pending) == STORE_OK ? 0 : -1;
}

static void committed(struct ref_service *svc, void *state, const struct ref_item *v, size_t n,
                      size_t good)
{
  struct pop3_source *s = state;

  (void)svc;
  (void)v;
  (void)n;
  s->good = good;
}

/* RFC 1939 §6: deletions happen at QUIT, after the commit. */
static int end(struct ref_service *svc, void *state, bool all_good, int64_t *through)
{
  struct pop3_source *s = state;
  char key[600];
  size_t i;
  int rc = -1;

  (void)all_good;
  (void)through;
  for(i = 0; i < s->n; i++) {
    bool done = uidl_ok(s->items[i].uidl) && in_list(s->pending, s->items[i].uidl);
    size_t j;
    for(j = 0; !done && j < s->good; j++)
      done = s->batch_idx[j] == i;
    if(done && mail_pop3_dele(s->pop, s->items[i].index)) {
      ref_log_error("%s", mail_pop3_error(s->pop));
      goto out;
    }
  }
  if(mail_pop3_quit(s->pop)) {
    ref_log_warn("%s: the deletions wait for the next pass", mail_pop3_error(s->pop));
    goto out;
  }
  /* Deleted for good: nothing pending any more. */
  pop3_key(&svc->cfg, key, sizeof(key));
  if(s->pending[0] && store_kv_set(svc->st, key, "") != STORE_OK)
    ref_log_warn("cannot clear the POP3 list: %s", store_errmsg(svc->st));
  rc = 0;
out:
  pass_free(s);
  return rc;
}

const struct ref_source_driver ref_source_pop3 = {
  .name = "pop3",
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
  .ack = NULL,
  .wait = NULL,
};
