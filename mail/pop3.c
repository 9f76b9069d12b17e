/*
 * pop3.c: reading the referee's maildrop over POP3 (libetpan).
 *
 * RFC 1939 (POP3, UIDL), RFC 2595 (STLS), RFC 8314 (implicit TLS, 995).
 * A DELE is only a mark until QUIT moves the session into the UPDATE
 * state (RFC 1939 §6): the caller marks what it committed and then QUITs,
 * so a crash anywhere before the QUIT's +OK deletes nothing and the
 * messages are read again (and found already processed) next time.
 *
 * TLS: as in imap.c, the certificate is checked by mail_tls_verify_der
 * after the handshake and before USER/PASS.
 */
#include "mail_int.h"

#include <libetpan/libetpan.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mail_pop3 {
  mailpop3 *pop;
  const char *host; /* the configuration's, for the error words */
  unsigned port;
  char err[512];
};

/* A failure: the server, the step, the cause in words (neterr.c) and the
 * server's own words when it sent some. */
static int fail_why(struct mail_pop3 *p, int code, const char *what, int r, const char *detail)
{
  const char *resp = p->pop ? p->pop->pop3_response : NULL;
  mail_server_error(p->err, sizeof(p->err), "POP3", p->host, p->port, what, mail_pop3_words(r),
                    detail, resp);
  return code;
}

static int fail(struct mail_pop3 *p, int code, const char *what, int r)
{
  return fail_why(p, code, what, r, NULL);
}

const char *mail_pop3_error(const struct mail_pop3 *p)
{
  return p ? p->err : "no POP3 session";
}

static void sni(struct mailstream_ssl_context *ctx, void *host)
{
  mailstream_ssl_set_server_name(ctx, host);
}

void mail_pop3_close(struct mail_pop3 *p)
{
  if(!p)
    return;
  /* mailpop3_free closes the stream without QUIT: no deletion happens. */
  if(p->pop)
    mailpop3_free(p->pop);
  free(p);
}

int mail_pop3_open(struct mail_pop3 **out, const struct mail_server *srv, char *err,
                   size_t errcap)
{
  struct mail_pop3 *p;
  uint16_t port;
  int r, rc = MAIL_ENET;

  *out = NULL;
  if(!srv || !srv->host || !srv->host[0]) {
    snprintf(err, errcap, "POP3: no host configured");
    return MAIL_EIO;
  }
  p = calloc(1, sizeof(*p));
  if(!p)
    return MAIL_ENOMEM;
  p->pop = mailpop3_new(0, NULL);
  if(!p->pop) {
    free(p);
    return MAIL_ENOMEM;
  }
  mailpop3_set_timeout(p->pop, srv->timeout_s > 0 ? srv->timeout_s : 30);
  port = (uint16_t)(srv->port ? srv->port : srv->tls == MAIL_TLS_IMPLICIT ? 995 : 110);
  p->host = srv->host;
  p->port = port;
  if(srv->tls == MAIL_TLS_IMPLICIT)
    r = mailpop3_ssl_connect_with_callback(p->pop, srv->host, port, sni, (void *)srv->host);
  else
    r = mailpop3_socket_connect(p->pop, srv->host, port);
  if(r != MAILPOP3_NO_ERROR) {
    char cause[200] = "";
    if(r == MAILPOP3_ERROR_CONNECTION_REFUSED)
      mail_connect_cause(srv->host, port, srv->timeout_s, cause, sizeof(cause));
    rc = fail_why(p, srv->tls == MAIL_TLS_IMPLICIT ? MAIL_ETLS : MAIL_ENET,
                  srv->tls == MAIL_TLS_IMPLICIT ? "connect with TLS" : "connect", r, cause);
    goto bad;
  }
  if(srv->tls == MAIL_TLS_STARTTLS) {
    r = mailpop3_socket_starttls_with_callback(p->pop, sni, (void *)srv->host);
    if(r != MAILPOP3_NO_ERROR) {
      rc = fail(p, MAIL_ETLS, "STLS", r);
      goto bad;
    }
  }
  if(srv->tls != MAIL_TLS_NONE && srv->verify) {
    unsigned char *der = NULL;
    ssize_t n = mailstream_ssl_get_certificate(p->pop->pop3_stream, &der);
    char why[sizeof(p->err)];
    rc = mail_tls_verify_der(der, n > 0 ? (size_t)n : 0, srv->cafile, srv->host, why,
                             sizeof(why));
    free(der);
    if(rc) {
      mail_server_error(p->err, sizeof(p->err), "POP3", p->host, p->port,
                        "the certificate check", why, NULL, NULL);
      goto bad;
    }
  }
  r = mailpop3_user(p->pop, srv->user ? srv->user : "");
  if(r == MAILPOP3_NO_ERROR)
    r = mailpop3_pass(p->pop, srv->password ? srv->password : "");
  if(r != MAILPOP3_NO_ERROR) {
    rc = fail(p, r == MAILPOP3_ERROR_BAD_USER || r == MAILPOP3_ERROR_BAD_PASSWORD ? MAIL_EAUTH
                                                                                  : MAIL_ENET,
              "login", r);
    goto bad;
  }
  *out = p;
  return 0;
bad:
  snprintf(err, errcap, "%s", p->err);
  mail_pop3_close(p);
  return rc;
}

int mail_pop3_list(struct mail_pop3 *p, struct mail_pop3_item **items, size_t *n)
{
  carray *msgs = NULL;
  struct mail_pop3_item *v;
  unsigned int i;
  size_t k = 0;
  int r;

  *items = NULL;
  *n = 0;
  r = mailpop3_list(p->pop, &msgs);
  if(r != MAILPOP3_NO_ERROR)
    return fail(p, MAIL_ENET, "LIST/UIDL", r);
  v = calloc(carray_count(msgs) + 1, sizeof(*v));
  if(!v)
    return MAIL_ENOMEM;
  for(i = 0; i < carray_count(msgs); i++) {
    struct mailpop3_msg_info *info = carray_get(msgs, i);
    size_t ulen;
    if(!info || info->msg_deleted)
      continue;
    /* Without UIDL (RFC 1939 optional command) there is no stable name:
     * the caller then relies on Message-IDs alone. */
    ulen = info->msg_uidl ? strlen(info->msg_uidl) : 0;
    v[k].index = info->msg_index;
    v[k].size = info->msg_size;
    if(ulen && ulen < sizeof(v[k].uidl))
      memcpy(v[k].uidl, info->msg_uidl, ulen + 1);
    k++;
  }
  *items = v;
  *n = k;
  return 0;
}

int mail_pop3_retr(struct mail_pop3 *p, unsigned int index, char **data, size_t *len)
{
  struct mailpop3_msg_info *info = NULL;
  char *raw = NULL;
  size_t rlen = 0;
  int r;

  *data = NULL;
  *len = 0;
  /* The size LIST gave, before downloading anything. */
  r = mailpop3_get_msg_info(p->pop, index, &info);
  if(r != MAILPOP3_NO_ERROR)
    return fail(p, MAIL_ENET, "LIST", r);
  if(info && info->msg_size > MAIL_MAX_MESSAGE)
    return MAIL_ETOOBIG;
  r = mailpop3_retr(p->pop, index, &raw, &rlen);
  if(r != MAILPOP3_NO_ERROR)
    return fail(p, MAIL_ENET, "RETR", r);
  if(rlen > MAIL_MAX_MESSAGE) {
    mailpop3_retr_free(raw);
    return MAIL_ETOOBIG;
  }
  *data = malloc(rlen + 1);
  if(!*data) {
    mailpop3_retr_free(raw);
    return MAIL_ENOMEM;
  }
  memcpy(*data, raw, rlen);
  (*data)[rlen] = '\0';
  *len = rlen;
  mailpop3_retr_free(raw);
  return 0;
}

int mail_pop3_dele(struct mail_pop3 *p, unsigned int index)
{
  int r = mailpop3_dele(p->pop, index);
  return r == MAILPOP3_NO_ERROR ? 0 : fail(p, MAIL_ENET, "DELE", r);
}

int mail_pop3_quit(struct mail_pop3 *p)
{
  int r = mailpop3_quit(p->pop);
  return r == MAILPOP3_NO_ERROR ? 0 : fail(p, MAIL_ENET, "QUIT", r);
}
