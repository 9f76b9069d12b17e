/*
 * smtp.c: SMTP submission through libcurl (RFC 5321, RFC 6409 submission,
 * RFC 3207 STARTTLS, RFC 8314 implicit TLS, RFC 4954 AUTH).
 *
 * libcurl verifies the server's certificate and host name itself
 * (CURLOPT_SSL_VERIFYPEER/VERIFYHOST, on unless the operator turned
 * verification off) before AUTH sends the password. One easy handle is
 * kept for the session, so consecutive messages reuse the connection.
 *
 * A message counts as sent only when curl_easy_perform succeeds, that is
 * when the server answered 250 to the end of DATA (RFC 5321 4.1.1.4).
 * A 5xx reply is a refusal for good (MAIL_EREFUSED); anything else (no
 * connection, 4xx, TLS, AUTH) is for a retry. The server's last reply
 * line is kept for the outbox row's last_error.
 *
 * The envelope comes from checked addresses only (mail_addr_valid); the
 * message itself was composed by compose.c from checked fields. libcurl
 * does the dot-stuffing of DATA.
 *
 * libcurl is opened with dlopen at the first mail_smtp_open, not linked:
 * loading it and the libraries it needs (LDAP, Kerberos, SSH,
 * RTMP, HTTP/2, ...) cost about 4 ms of CPU in every process, more than a
 * whole Maildir-in, Maildir-out `tabula deliver`, which never sends by
 * SMTP. TABULA_CURL_SONAME is the soname of the library the build found
 * (mail/CMakeLists.txt); the Debian package depends on it by name
 * (debian/control), since dh_shlibdeps cannot see a dlopen.
 */
#include "mail_int.h"

#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct mail_smtp {
  CURL *curl;
  const char *host; /* the configuration's, for the error words */
  int port;
  char url[600];
  char errbuf[CURL_ERROR_SIZE];
  char last_reply[256]; /* the last reply line the server sent */
};

struct upload {
  const char *p;
  size_t left;
};

static size_t read_cb(char *dst, size_t size, size_t nmemb, void *arg)
{
  struct upload *u = arg;
  size_t n = size * nmemb;

  if(n > u->left)
    n = u->left;
  memcpy(dst, u->p, n);
  u->p += n;
  u->left -= n;
  return n;
}

/* Server replies arrive through the header callback: keep the last one
 * (a 5xx text is what the operator needs in last_error), but never let a
 * later success (libcurl's QUIT after a refusal: "221 bye") replace the
 * refusal's words. */
static size_t header_cb(char *data, size_t size, size_t nmemb, void *arg)
{
  struct mail_smtp *s = arg;
  size_t n = size * nmemb, k;
  bool refused = s->last_reply[0] == '4' || s->last_reply[0] == '5';

  if(n >= 4 && data[0] >= '2' && data[0] <= '5' && !(refused && data[0] < '4')) {
    k = n < sizeof(s->last_reply) - 1 ? n : sizeof(s->last_reply) - 1;
    memcpy(s->last_reply, data, k);
    while(k && (s->last_reply[k - 1] == '\n' || s->last_reply[k - 1] == '\r'))
      k--;
    s->last_reply[k] = '\0';
    /* Only printable ASCII goes on into logs and the store. */
    for(size_t i = 0; i < k; i++)
      if((unsigned char)s->last_reply[i] < 0x20 || (unsigned char)s->last_reply[i] > 0x7e)
        s->last_reply[i] = '?';
  }
  return n;
}

/* The libcurl functions used here, looked up once. */
static struct {
  CURLcode (*global_init)(long);
  CURL *(*easy_init)(void);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_perform)(CURL *);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  void (*easy_cleanup)(CURL *);
  const char *(*easy_strerror)(CURLcode);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
} cx;
static int curl_ready;

/* Opens libcurl and initializes it, once a process. The library stays
 * loaded until the process ends, as a linked one would. */
static int curl_load(char *err, size_t errcap)
{
  void *h;

  if(curl_ready)
    return 0;
  h = dlopen(TABULA_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
  if(!h) {
    snprintf(err, errcap, "SMTP: cannot load libcurl (%s): %s", TABULA_CURL_SONAME, dlerror());
    return MAIL_EIO;
  }
  /* A function pointer read through a void * (POSIX dlsym's contract). */
#define CX(field, name) *(void **)(&cx.field) = dlsym(h, name)
  CX(global_init, "curl_global_init");
  CX(easy_init, "curl_easy_init");
  CX(easy_setopt, "curl_easy_setopt");
  CX(easy_perform, "curl_easy_perform");
  CX(easy_getinfo, "curl_easy_getinfo");
  CX(easy_cleanup, "curl_easy_cleanup");
  CX(easy_strerror, "curl_easy_strerror");
  CX(slist_append, "curl_slist_append");
  CX(slist_free_all, "curl_slist_free_all");
#undef CX
  if(!cx.global_init || !cx.easy_init || !cx.easy_setopt || !cx.easy_perform ||
     !cx.easy_getinfo || !cx.easy_cleanup || !cx.easy_strerror || !cx.slist_append ||
     !cx.slist_free_all) {
    snprintf(err, errcap, "SMTP: %s lacks a function tabula needs", TABULA_CURL_SONAME);
    return MAIL_EIO;
  }
  if(cx.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    snprintf(err, errcap, "SMTP: libcurl cannot start");
    return MAIL_EIO;
  }
  curl_ready = 1;
  return 0;
}

int mail_smtp_open(struct mail_smtp **out, const struct mail_server *srv, const char *helo,
                   char *err, size_t errcap)
{
  struct mail_smtp *s;
  int port, n;

  *out = NULL;
  if(!srv || !srv->host || !srv->host[0] || strpbrk(srv->host, "/@?# \r\n") ||
     (helo && strpbrk(helo, "/@?# \r\n"))) {
    snprintf(err, errcap, "SMTP: no usable host configured");
    return MAIL_EIO;
  }
  if((n = curl_load(err, errcap)) != 0)
    return n;
  s = calloc(1, sizeof(*s));
  if(!s)
    return MAIL_ENOMEM;
  s->curl = cx.easy_init();
  if(!s->curl) {
    free(s);
    return MAIL_ENOMEM;
  }
  port = srv->port ? srv->port : srv->tls == MAIL_TLS_IMPLICIT ? 465 : 587;
  s->host = srv->host;
  s->port = port;
  /* The URL path is the EHLO name (libcurl's SMTP URL form). */
  n = snprintf(s->url, sizeof(s->url), "%s://%s:%d/%s",
               srv->tls == MAIL_TLS_IMPLICIT ? "smtps" : "smtp", srv->host, port,
               helo && helo[0] ? helo : "localhost");
  if(n < 0 || (size_t)n >= sizeof(s->url)) {
    mail_smtp_close(s);
    snprintf(err, errcap, "SMTP: host name too long");
    return MAIL_EIO;
  }
  cx.easy_setopt(s->curl, CURLOPT_URL, s->url);
  cx.easy_setopt(s->curl, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
  cx.easy_setopt(s->curl, CURLOPT_ERRORBUFFER, s->errbuf);
  cx.easy_setopt(s->curl, CURLOPT_NOSIGNAL, 1L);
  cx.easy_setopt(s->curl, CURLOPT_CONNECTTIMEOUT, (long)(srv->timeout_s > 0 ? srv->timeout_s : 30));
  cx.easy_setopt(s->curl, CURLOPT_TIMEOUT, (long)(srv->timeout_s > 0 ? 2 * srv->timeout_s : 60));
  if(srv->tls == MAIL_TLS_STARTTLS)
    cx.easy_setopt(s->curl, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL); /* STARTTLS or fail */
  if(srv->tls != MAIL_TLS_NONE) {
    cx.easy_setopt(s->curl, CURLOPT_SSL_VERIFYPEER, srv->verify ? 1L : 0L);
    cx.easy_setopt(s->curl, CURLOPT_SSL_VERIFYHOST, srv->verify ? 2L : 0L);
    if(srv->cafile && srv->cafile[0]) {
      /* Only the operator's anchors: without this libcurl-gnutls also
       * loads every file of /etc/ssl/certs on each handshake (~1.5 s). */
      cx.easy_setopt(s->curl, CURLOPT_CAINFO, srv->cafile);
      cx.easy_setopt(s->curl, CURLOPT_CAPATH, NULL);
    }
  }
  if(srv->user && srv->user[0]) {
    /* In options, not the URL: user names hold '@'. */
    cx.easy_setopt(s->curl, CURLOPT_USERNAME, srv->user);
    cx.easy_setopt(s->curl, CURLOPT_PASSWORD, srv->password ? srv->password : "");
  }
  cx.easy_setopt(s->curl, CURLOPT_READFUNCTION, read_cb);
  cx.easy_setopt(s->curl, CURLOPT_HEADERFUNCTION, header_cb);
  cx.easy_setopt(s->curl, CURLOPT_HEADERDATA, s);
  cx.easy_setopt(s->curl, CURLOPT_UPLOAD, 1L);
  *out = s;
  return 0;
}

void mail_smtp_close(struct mail_smtp *s)
{
  if(!s)
    return;
  if(s->curl)
    cx.easy_cleanup(s->curl); /* sends QUIT on a live connection */
  free(s);
}

/* The step of the SMTP exchange a libcurl code tells of, for the error
 * words (neterr.c); libcurl's own words say the cause. */
static const struct {
  CURLcode cc;
  const char *step;
} smtp_steps[] = {
  {CURLE_COULDNT_RESOLVE_HOST, "looking up the host name"},
  {CURLE_COULDNT_CONNECT, "connect"},
  {CURLE_OPERATION_TIMEDOUT, "the exchange (timed out)"},
  {CURLE_SSL_CONNECT_ERROR, "the TLS handshake"},
  {CURLE_USE_SSL_FAILED, "STARTTLS"},
  {CURLE_PEER_FAILED_VERIFICATION, "the certificate check"},
  {CURLE_SSL_CACERT_BADFILE, "reading tls_cafile"},
  {CURLE_LOGIN_DENIED, "AUTH"},
  {CURLE_WEIRD_SERVER_REPLY, "reading the server's answer"},
  {CURLE_GOT_NOTHING, "reading the server's answer"},
  {CURLE_SEND_ERROR, "sending"},
  {CURLE_RECV_ERROR, "receiving"},
};

static const char *step_of(CURLcode cc)
{
  size_t i;
  for(i = 0; i < sizeof(smtp_steps) / sizeof(smtp_steps[0]); i++)
    if(smtp_steps[i].cc == cc)
      return smtp_steps[i].step;
  return "sending the message";
}

int mail_smtp_send(struct mail_smtp *s, const char *from, const char *rcpt, const char *data,
                   size_t len, char *err, size_t errcap)
{
  struct curl_slist *rcpts = NULL;
  struct upload up = {data, len};
  long code = 0;
  CURLcode cc;
  int rc;

  if(!mail_addr_valid(from) || !mail_addr_valid(rcpt)) {
    snprintf(err, errcap, "SMTP: envelope address refused before sending");
    return MAIL_EREFUSED;
  }
  if(len > MAIL_MAX_MESSAGE) {
    snprintf(err, errcap, "SMTP: message larger than %u bytes", MAIL_MAX_MESSAGE);
    return MAIL_EREFUSED;
  }
  rcpts = cx.slist_append(NULL, rcpt);
  if(!rcpts)
    return MAIL_ENOMEM;
  s->errbuf[0] = '\0';
  s->last_reply[0] = '\0';
  cx.easy_setopt(s->curl, CURLOPT_MAIL_FROM, from);
  cx.easy_setopt(s->curl, CURLOPT_MAIL_RCPT, rcpts);
  cx.easy_setopt(s->curl, CURLOPT_READDATA, &up);
  cx.easy_setopt(s->curl, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
  cc = cx.easy_perform(s->curl);
  cx.easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &code);
  cx.easy_setopt(s->curl, CURLOPT_MAIL_RCPT, NULL);
  cx.slist_free_all(rcpts);
  if(cc == CURLE_OK) {
    err[0] = '\0';
    return 0;
  }
  if(cc == CURLE_LOGIN_DENIED)
    rc = MAIL_EAUTH;
  else if(cc == CURLE_SSL_CONNECT_ERROR || cc == CURLE_PEER_FAILED_VERIFICATION ||
          cc == CURLE_SSL_CACERT_BADFILE || cc == CURLE_USE_SSL_FAILED)
    rc = MAIL_ETLS;
  else if(code >= 500 && code < 600)
    rc = MAIL_EREFUSED;
  else
    rc = MAIL_ENET;
  mail_server_error(err, errcap, "SMTP", s->host, (unsigned)s->port, step_of(cc),
                    s->errbuf[0] ? s->errbuf : cx.easy_strerror(cc), NULL, s->last_reply);
  return rc;
}
