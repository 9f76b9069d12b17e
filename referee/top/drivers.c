/*
 * drivers.c: what the mail sources' and sinks' drivers share
 * (transport_int.h): a server's settings from the configuration, LF line
 * ends for the local sinks, the monotonic clock.
 */
#include "transport_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

void ref_driver_server(const struct ref_config *cfg, bool in, struct mail_server *s)
{
  enum ref_tls tls = in ? cfg->in_tls : cfg->smtp_tls;

  memset(s, 0, sizeof(*s));
  s->host = in ? cfg->in_host : cfg->smtp_host;
  s->port = in ? cfg->in_port : cfg->smtp_port;
  s->tls = tls == REF_TLS_IMPLICIT   ? MAIL_TLS_IMPLICIT
           : tls == REF_TLS_STARTTLS ? MAIL_TLS_STARTTLS
                                     : MAIL_TLS_NONE;
  s->user = in ? cfg->in_user : cfg->smtp_user;
  s->password = in ? cfg->in_password : cfg->smtp_password;
  s->cafile = cfg->tls_cafile;
  s->verify = cfg->tls_verify != 0;
  s->timeout_s = cfg->net_timeout_s;
}

/* Maildir files hold LF line ends (the form mail readers and Dovecot
 * expect on disk); the stored message keeps CRLF for SMTP. */
char *ref_driver_lf_copy(const char *s, size_t *len)
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

double ref_driver_seconds(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
