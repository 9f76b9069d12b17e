/*
 * sink_smtp.c: replies handed to an SMTP submission server (`sink = smtp`;
 * mail/smtp.c, libcurl, which verifies the server on its own). One
 * connection kept open between rows; a reply is sent on the server's 250,
 * and marked so at once by transport.c.
 */
#include "transport_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct smtp_sink {
  struct mail_smtp *smtp;
};

static int check(const struct ref_config *cfg, char *err, size_t cap)
{
  if(!cfg->smtp_host[0]) {
    snprintf(err, cap, "sink = smtp needs smtp_host");
    return -1;
  }
  return 0;
}

static const char *where(const struct ref_config *cfg)
{
  return cfg->smtp_host;
}

static void *open_state(const struct ref_config *cfg)
{
  (void)cfg;
  return calloc(1, sizeof(struct smtp_sink));
}

static void close_state(void *state)
{
  struct smtp_sink *s = state;
  if(!s)
    return;
  mail_smtp_close(s->smtp);
  free(s);
}

/* The stored message as SMTP wants it: every line ending in CRLF. */
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

static int send_row(struct ref_service *svc, void *state, const struct store_outbox *row,
                    bool fresh, char *err, size_t cap)
{
  struct smtp_sink *s = state;
  struct mail_server srv;
  size_t len = 0;
  char *msg;
  int rc;

  (void)fresh;
  err[0] = '\0';
  if(!s->smtp) {
    ref_driver_server(&svc->cfg, false, &srv);
    rc = mail_smtp_open(&s->smtp, &srv, svc->cfg.domain, err, cap);
    if(rc)
      return rc;
  }
  msg = crlf_copy(row->message, &len);
  if(!msg)
    return MAIL_ENOMEM;
  rc = mail_smtp_send(s->smtp, svc->cfg.address, row->recipient, msg, len, err, cap);
  free(msg);
  if(rc && rc != MAIL_EREFUSED) {
    /* A fresh connection for the next attempt. */
    mail_smtp_close(s->smtp);
    s->smtp = NULL;
  }
  return rc;
}

const struct ref_sink_driver ref_sink_smtp = {
  .name = "smtp",
  .grouped = false,
  .check = check,
  .where = where,
  .folder = NULL,
  .open = open_state,
  .close = close_state,
  .chunk = NULL,
  .send = send_row,
  .sync = NULL,
};
