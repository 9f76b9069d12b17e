/*
 * imap.c: reading the referee's mailbox over IMAP (libetpan).
 *
 * RFC 3501 (IMAP4rev1), RFC 2177 (IDLE), RFC 6851 (MOVE), RFC 4315
 * (UIDPLUS), RFC 2595/8314 (STARTTLS, implicit TLS).
 *
 * What matters here is that nothing is acknowledged early:
 * - bodies are fetched with BODY.PEEK[] (RFC 3501 6.4.5), which does not
 *   set \Seen, so a crash before the commit leaves the mail unseen;
 * - \Seen (or the MOVE) is set by mail_imap_ack, which the caller runs only
 *   after its transaction committed;
 * - the caller keeps UIDVALIDITY and the last committed UID in its store,
 *   and mail_imap_search returns every unseen message and every message
 *   above that UID, so a mail another client marked seen is not skipped.
 *
 * TLS: libetpan (GnuTLS build) verifies nothing, so the certificate is
 * checked by mail_tls_verify_der after the handshake and before LOGIN.
 *
 * IDLE (libetpan): mailimap_idle, then poll() the socket, then
 * mailimap_idle_done. Bytes libetpan already buffered are invisible to
 * poll(), so the buffer is looked at first. Untagged EXISTS is consumed by
 * idle_done; the caller simply searches again. IDLE is renewed well within
 * the 29 minutes of RFC 2177.
 */
#include "mail_int.h"

#include <libetpan/libetpan.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct mail_imap {
  mailimap *imap;
  uint32_t uidvalidity;
  bool idle;
  bool move;
  bool uidplus;
  const char *host; /* the configuration's, for the error words */
  unsigned port;
  char err[512];
};

static bool ok(int r)
{
  return r == MAILIMAP_NO_ERROR || r == MAILIMAP_NO_ERROR_AUTHENTICATED ||
         r == MAILIMAP_NO_ERROR_NON_AUTHENTICATED;
}

/* A failure: the server, the step, the cause in words (neterr.c) and the
 * server's own words when it sent some. */
static int fail_why(struct mail_imap *im, int code, const char *what, int r, const char *detail)
{
  const char *resp = im->imap ? im->imap->imap_response : NULL;
  mail_server_error(im->err, sizeof(im->err), "IMAP", im->host, im->port, what,
                    r ? mail_imap_words(r) : "the server's answer lacks it", detail, resp);
  return code;
}

static int fail(struct mail_imap *im, int code, const char *what, int r)
{
  return fail_why(im, code, what, r, NULL);
}

const char *mail_imap_error(const struct mail_imap *im)
{
  return im ? im->err : "no IMAP session";
}

static void sni(struct mailstream_ssl_context *ctx, void *host)
{
  mailstream_ssl_set_server_name(ctx, host); /* RFC 6066 server name */
}

static int verify_peer(struct mail_imap *im, const struct mail_server *srv)
{
  unsigned char *der = NULL;
  ssize_t n;
  int rc;

  if(!srv->verify)
    return 0;
  n = mailstream_ssl_get_certificate(im->imap->imap_stream, &der);
  rc = mail_tls_verify_der(der, n > 0 ? (size_t)n : 0, srv->cafile, srv->host, im->err,
                           sizeof(im->err));
  free(der);
  return rc;
}

void mail_imap_close(struct mail_imap *im)
{
  if(!im)
    return;
  if(im->imap) {
    if(im->imap->imap_stream)
      mailimap_logout(im->imap);
    mailimap_free(im->imap);
  }
  free(im);
}

int mail_imap_open(struct mail_imap **out, const struct mail_server *srv, const char *mailbox,
                   char *err, size_t errcap)
{
  struct mailimap_capability_data *cap = NULL;
  struct mail_imap *im;
  uint16_t port;
  int r, rc = MAIL_ENET;

  *out = NULL;
  if(!srv || !srv->host || !srv->host[0] || !mailbox || !mailbox[0]) {
    snprintf(err, errcap, "IMAP: no host or mailbox configured");
    return MAIL_EIO;
  }
  im = calloc(1, sizeof(*im));
  if(!im)
    return MAIL_ENOMEM;
  im->imap = mailimap_new(0, NULL);
  if(!im->imap) {
    free(im);
    return MAIL_ENOMEM;
  }
  mailimap_set_timeout(im->imap, srv->timeout_s > 0 ? srv->timeout_s : 30);
  port = (uint16_t)(srv->port ? srv->port : srv->tls == MAIL_TLS_IMPLICIT ? 993 : 143);
  im->host = srv->host;
  im->port = port;
  if(srv->tls == MAIL_TLS_IMPLICIT)
    r = mailimap_ssl_connect_with_callback(im->imap, srv->host, port, sni, (void *)srv->host);
  else
    r = mailimap_socket_connect(im->imap, srv->host, port);
  if(!ok(r)) {
    char cause[200] = "";
    if(r == MAILIMAP_ERROR_CONNECTION_REFUSED)
      mail_connect_cause(srv->host, port, srv->timeout_s, cause, sizeof(cause));
    rc = fail_why(im, srv->tls == MAIL_TLS_IMPLICIT ? MAIL_ETLS : MAIL_ENET,
                  srv->tls == MAIL_TLS_IMPLICIT ? "connect with TLS" : "connect", r, cause);
    goto bad;
  }
  if(srv->tls == MAIL_TLS_STARTTLS) {
    r = mailimap_socket_starttls_with_callback(im->imap, sni, (void *)srv->host);
    if(!ok(r)) {
      rc = fail(im, MAIL_ETLS, "STARTTLS", r);
      goto bad;
    }
  }
  /* The password goes out only to a server whose certificate we trust. */
  if(srv->tls != MAIL_TLS_NONE && (rc = verify_peer(im, srv)) != 0) {
    char why[sizeof(im->err)];
    snprintf(why, sizeof(why), "%s", im->err);
    mail_server_error(im->err, sizeof(im->err), "IMAP", im->host, im->port,
                      "the certificate check", why, NULL, NULL);
    goto bad;
  }
  r = mailimap_login(im->imap, srv->user ? srv->user : "", srv->password ? srv->password : "");
  if(!ok(r)) {
    rc = fail(im, r == MAILIMAP_ERROR_LOGIN ? MAIL_EAUTH : MAIL_ENET, "LOGIN", r);
    goto bad;
  }
  /* The capabilities after LOGIN (they may differ from the greeting's);
   * libetpan keeps them in the session for mailimap_has_*. */
  r = mailimap_capability(im->imap, &cap);
  if(cap)
    mailimap_capability_data_free(cap);
  if(!ok(r)) {
    rc = fail(im, MAIL_ENET, "CAPABILITY", r);
    goto bad;
  }
  im->idle = mailimap_has_idle(im->imap) != 0;
  im->move = mailimap_has_extension(im->imap, "MOVE") != 0;
  im->uidplus = mailimap_has_uidplus(im->imap) != 0;
  r = mailimap_select(im->imap, mailbox);
  if(!ok(r)) {
    rc = fail(im, MAIL_ENET, "SELECT", r);
    goto bad;
  }
  if(!im->imap->imap_selection_info || !im->imap->imap_selection_info->sel_uidvalidity) {
    rc = fail(im, MAIL_ENET, "SELECT (no UIDVALIDITY)", 0);
    goto bad;
  }
  im->uidvalidity = im->imap->imap_selection_info->sel_uidvalidity;
  *out = im;
  return 0;
bad:
  snprintf(err, errcap, "%s", im->err);
  mail_imap_close(im);
  return rc;
}

uint32_t mail_imap_uidvalidity(const struct mail_imap *im)
{
  return im->uidvalidity;
}

bool mail_imap_has_idle(const struct mail_imap *im)
{
  return im->idle;
}

/* libetpan has helpers for most keys but none for UNSEEN. */
static struct mailimap_search_key *key_unseen(void)
{
  return mailimap_search_key_new(MAILIMAP_SEARCH_KEY_UNSEEN, NULL, NULL, NULL, NULL, NULL, NULL,
                                 NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL,
                                 NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL);
}

static int cmp_u32(const void *a, const void *b)
{
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

int mail_imap_search(struct mail_imap *im, uint32_t after, bool handled, uint32_t **uids, size_t *n)
{
  struct mailimap_search_key *key =
      handled && after > 0 ? mailimap_search_key_new_all() : key_unseen();
  clist *res = NULL;
  clistiter *it;
  uint32_t *v;
  size_t k = 0, i;
  int r;

  *uids = NULL;
  *n = 0;
  if(!key)
    return MAIL_ENOMEM;
  if(after > 0 && after < UINT32_MAX && !handled) {
    /* UNSEEN OR UID after+1:* . Note "n:*" always matches the highest UID
     * even when it is below n (RFC 3501 6.4.8): the caller takes what is at
     * or below after as committed before. */
    struct mailimap_set *set = mailimap_set_new_interval(after + 1, 0);
    struct mailimap_search_key *above = set ? mailimap_search_key_new_uid(set) : NULL;
    struct mailimap_search_key *either = above ? mailimap_search_key_new_or(key, above) : NULL;
    if(!either) {
      if(above)
        mailimap_search_key_free(above);
      else if(set)
        mailimap_set_free(set);
      mailimap_search_key_free(key);
      return MAIL_ENOMEM;
    }
    key = either;
  }
  r = mailimap_uid_search(im->imap, NULL, key, &res);
  mailimap_search_key_free(key);
  if(!ok(r))
    return fail(im, MAIL_ENET, "UID SEARCH", r);
  v = malloc((clist_count(res) + 1) * sizeof(*v));
  if(!v) {
    mailimap_search_result_free(res);
    return MAIL_ENOMEM;
  }
  for(it = clist_begin(res); it; it = clist_next(it))
    v[k++] = *(uint32_t *)clist_content(it);
  mailimap_search_result_free(res);
  qsort(v, k, sizeof(*v), cmp_u32);
  /* Drop duplicates (a server may list one twice). */
  for(i = 0, *n = 0; i < k; i++)
    if(!*n || v[*n - 1] != v[i])
      v[(*n)++] = v[i];
  *uids = v;
  return 0;
}

/* One UID FETCH of one or two attributes (att2 may be NULL); calls each()
 * with every static item the server sent, until it returns non-zero (a
 * mail_code, returned). Whether what was wanted came is each()'s to note. */
static int fetch_items(struct mail_imap *im, uint32_t uid, struct mailimap_fetch_att *att,
                       struct mailimap_fetch_att *att2,
                       int (*each)(struct mailimap_msg_att_static *, void *), void *arg,
                       const char *what)
{
  struct mailimap_set *set = mailimap_set_new_single(uid);
  struct mailimap_fetch_type *ft = mailimap_fetch_type_new_fetch_att_list_empty();
  clist *res = NULL;
  clistiter *a, *m;
  int r, rc = 0;

  if(!set || !ft || !att) {
    rc = MAIL_ENOMEM;
    goto out;
  }
  if(mailimap_fetch_type_new_fetch_att_list_add(ft, att) != MAILIMAP_NO_ERROR) {
    rc = MAIL_ENOMEM;
    goto out;
  }
  att = NULL; /* owned by ft now */
  if(att2) {
    if(mailimap_fetch_type_new_fetch_att_list_add(ft, att2) != MAILIMAP_NO_ERROR) {
      rc = MAIL_ENOMEM;
      goto out;
    }
    att2 = NULL;
  }
  r = mailimap_uid_fetch(im->imap, set, ft, &res);
  if(!ok(r)) {
    rc = fail(im, MAIL_ENET, what, r);
    goto out;
  }
  for(m = clist_begin(res); m && !rc; m = clist_next(m)) {
    struct mailimap_msg_att *ma = clist_content(m);
    for(a = clist_begin(ma->att_list); a && !rc; a = clist_next(a)) {
      struct mailimap_msg_att_item *item = clist_content(a);
      if(item->att_type == MAILIMAP_MSG_ATT_ITEM_STATIC)
        rc = each(item->att_data.att_static, arg);
    }
  }
out:
  if(res)
    mailimap_fetch_list_free(res);
  if(ft)
    mailimap_fetch_type_free(ft);
  if(att)
    mailimap_fetch_att_free(att);
  if(att2)
    mailimap_fetch_att_free(att2);
  if(set)
    mailimap_set_free(set);
  return rc;
}

static int gone(struct mail_imap *im, uint32_t uid, const char *what)
{
  snprintf(im->err, sizeof(im->err), "IMAP server %s port %u: %s: message %u is gone", im->host,
           im->port, what, uid);
  return MAIL_ENET;
}

struct size_item {
  size_t size;
  bool found;
};

static int take_size(struct mailimap_msg_att_static *s, void *arg)
{
  struct size_item *z = arg;

  if(s->att_type == MAILIMAP_MSG_ATT_RFC822_SIZE && !z->found) {
    z->size = s->att_data.att_rfc822_size;
    z->found = true;
  }
  return 0;
}

int mail_imap_size(struct mail_imap *im, uint32_t uid, size_t *size)
{
  struct size_item z = {0, false};
  int rc = fetch_items(im, uid, mailimap_fetch_att_new_rfc822_size(), NULL, take_size, &z,
                       "UID FETCH RFC822.SIZE");

  *size = z.size;
  if(!rc && !z.found)
    rc = gone(im, uid, "UID FETCH RFC822.SIZE");
  return rc;
}

/* RFC 3501 INTERNALDATE as libetpan hands it over (the zone as the number
 * +hhmm reads as: -0500 is -500), checked field by field: a server's
 * values are no more trusted than a sender's. */
static int64_t internaldate(const struct mailimap_date_time *d)
{
  int z;

  if(!d || d->dt_zone < -9999 || d->dt_zone > 9999)
    return -1;
  z = d->dt_zone < 0 ? -d->dt_zone : d->dt_zone;
  if(z % 100 > 59)
    return -1;
  z = z / 100 * 60 + z % 100;
  return mail_civil_time(d->dt_year, d->dt_month, d->dt_day, d->dt_hour, d->dt_min, d->dt_sec,
                         d->dt_zone < 0 ? -z : z);
}

struct body {
  char *data;
  size_t len;
  bool found;
  int64_t arrived;
};

static int take_body(struct mailimap_msg_att_static *s, void *arg)
{
  struct body *b = arg;
  struct mailimap_msg_att_body_section *sec;

  if(s->att_type == MAILIMAP_MSG_ATT_INTERNALDATE) {
    b->arrived = internaldate(s->att_data.att_internal_date);
    return 0;
  }
  if(s->att_type != MAILIMAP_MSG_ATT_BODY_SECTION || b->found)
    return 0;
  sec = s->att_data.att_body_section;
  if(sec->sec_length > MAIL_MAX_MESSAGE)
    return MAIL_ETOOBIG;
  b->data = malloc(sec->sec_length + 1);
  if(!b->data)
    return MAIL_ENOMEM;
  if(sec->sec_length)
    memcpy(b->data, sec->sec_body_part, sec->sec_length);
  b->data[sec->sec_length] = '\0';
  b->len = sec->sec_length;
  b->found = true;
  return 0;
}

int mail_imap_fetch(struct mail_imap *im, uint32_t uid, char **data, size_t *len, int64_t *arrived)
{
  struct body b = {NULL, 0, false, -1};
  size_t size = 0;
  int rc;

  *data = NULL;
  *len = 0;
  if(arrived)
    *arrived = -1;
  /* Size first: a message too big to be a move is never downloaded. */
  rc = mail_imap_size(im, uid, &size);
  if(rc)
    return rc;
  if(size > MAIL_MAX_MESSAGE)
    return MAIL_ETOOBIG;
  /* BODY.PEEK[]: fetching must not set \Seen (RFC 3501 6.4.5); with it
   * INTERNALDATE, the time the message reached the mailbox. */
  rc = fetch_items(im, uid, mailimap_fetch_att_new_internaldate(),
                   mailimap_fetch_att_new_body_peek_section(mailimap_section_new(NULL)), take_body,
                   &b, "UID FETCH (INTERNALDATE BODY.PEEK[])");
  if(!rc && !b.found)
    rc = gone(im, uid, "UID FETCH BODY.PEEK[]");
  if(rc) {
    free(b.data);
    return rc;
  }
  *data = b.data;
  *len = b.len;
  if(arrived)
    *arrived = b.arrived;
  return 0;
}

static struct mailimap_set *set_of(const uint32_t *uids, size_t n)
{
  struct mailimap_set *set = mailimap_set_new_empty();
  size_t i;

  if(!set)
    return NULL;
  for(i = 0; i < n; i++)
    if(mailimap_set_add_single(set, uids[i]) != MAILIMAP_NO_ERROR) {
      mailimap_set_free(set);
      return NULL;
    }
  return set;
}

static int add_flags(struct mail_imap *im, struct mailimap_set *set, bool deleted)
{
  struct mailimap_flag_list *fl = mailimap_flag_list_new_empty();
  struct mailimap_store_att_flags *sf;
  int r;

  if(!fl)
    return MAIL_ENOMEM;
  mailimap_flag_list_add(fl, mailimap_flag_new_seen());
  if(deleted)
    mailimap_flag_list_add(fl, mailimap_flag_new_deleted());
  sf = mailimap_store_att_flags_new_add_flags_silent(fl);
  if(!sf) {
    mailimap_flag_list_free(fl);
    return MAIL_ENOMEM;
  }
  r = mailimap_uid_store(im->imap, set, sf);
  mailimap_store_att_flags_free(sf);
  return ok(r) ? 0 : fail(im, MAIL_ENET, "UID STORE +FLAGS", r);
}

int mail_imap_ack(struct mail_imap *im, const uint32_t *uids, size_t n, const char *move_to)
{
  struct mailimap_set *set;
  int r, rc = 0;

  if(!n)
    return 0;
  set = set_of(uids, n);
  if(!set)
    return MAIL_ENOMEM;
  if(!move_to || !move_to[0])
    rc = add_flags(im, set, false);
  else if(im->move) {
    /* \Seen first, so the moved copy reads as handled too. */
    rc = add_flags(im, set, false);
    if(!rc) {
      r = mailimap_uid_move(im->imap, set, move_to);
      if(!ok(r))
        rc = fail(im, MAIL_ENET, "UID MOVE", r);
    }
  }
  else {
    /* RFC 6851 §3.3: without MOVE, COPY then \Deleted then EXPUNGE. */
    r = mailimap_uid_copy(im->imap, set, move_to);
    if(!ok(r))
      rc = fail(im, MAIL_ENET, "UID COPY", r);
    if(!rc)
      rc = add_flags(im, set, true);
    if(!rc) {
      r = im->uidplus ? mailimap_uid_expunge(im->imap, set) : mailimap_expunge(im->imap);
      if(!ok(r))
        rc = fail(im, MAIL_ENET, "EXPUNGE", r);
    }
  }
  mailimap_set_free(set);
  return rc;
}

static int64_t now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int mail_imap_wait(struct mail_imap *im, int timeout_ms, bool (*stop)(void *), void *arg)
{
  int64_t end = now_ms() + timeout_ms;
  int woke = 0, r;

  /* RFC 2177: re-issue IDLE at least every 29 minutes. */
  if(timeout_ms > 25 * 60 * 1000)
    end = now_ms() + 25 * 60 * 1000;
  if(!im->idle) {
    /* No IDLE: the plain wait; the caller's next search is the poll. */
    while(now_ms() < end && !(stop && stop(arg))) {
      int64_t left = end - now_ms();
      struct timespec ts = {0, (long)(left < 200 ? left : 200) * 1000000L};
      nanosleep(&ts, NULL);
    }
    return 0;
  }
  r = mailimap_idle(im->imap);
  if(!ok(r))
    return fail(im, MAIL_ENET, "IDLE", r);
  /* Bytes libetpan already read past the continuation line are not seen
   * by poll(). */
  if(im->imap->imap_stream->read_buffer_len > 0)
    woke = 1;
  while(!woke && !(stop && stop(arg))) {
    struct pollfd pfd = {mailimap_idle_get_fd(im->imap), POLLIN, 0};
    int64_t left = end - now_ms();
    int p;
    if(left <= 0)
      break;
    p = poll(&pfd, 1, (int)(left < 200 ? left : 200));
    if(p > 0) {
      if(pfd.revents & (POLLERR | POLLNVAL)) {
        snprintf(im->err, sizeof(im->err),
                 "IMAP server %s port %u: IDLE failed: the connection was lost", im->host,
                 im->port);
        return MAIL_ENET;
      }
      woke = 1;
    }
  }
  /* DONE also reads what the server said (EXISTS, "OK Still here"). */
  r = mailimap_idle_done(im->imap);
  if(!ok(r))
    return fail(im, MAIL_ENET, "IDLE DONE", r);
  return woke;
}
