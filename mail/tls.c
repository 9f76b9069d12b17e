/*
 * tls.c: checking a mail server's certificate ourselves.
 *
 * Debian's libetpan is built against GnuTLS, and in that build
 * mailstream_ssl_set_server_certicate() is a stub: libetpan completes the
 * handshake with any certificate at all. So after the handshake, and before
 * LOGIN/USER/PASS send a password, imap.c and pop3.c hand the server's
 * certificate to mail_tls_verify_der, which checks it against the trust
 * anchors (the operator's CA file, or the system store) and the host name
 * (RFC 6125 via gnutls_x509_crt_check_hostname). libcurl (smtp.c) verifies
 * on its own (CURLOPT_SSL_VERIFYPEER/VERIFYHOST, CURLOPT_CAINFO).
 *
 * Limitation: libetpan hands out the leaf certificate only, not the chain
 * the server sent, so a server whose certificate is signed by an
 * intermediate needs that intermediate in the CA file too.
 */
#include "mail_int.h"

#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <string.h>

int mail_tls_parse(const char *word, enum mail_tls *out)
{
  if(!word || !out)
    return -1;
  if(!strcmp(word, "none"))
    *out = MAIL_TLS_NONE;
  else if(!strcmp(word, "starttls"))
    *out = MAIL_TLS_STARTTLS;
  else if(!strcmp(word, "implicit"))
    *out = MAIL_TLS_IMPLICIT;
  else
    return -1;
  return 0;
}

int mail_tls_verify_der(const unsigned char *der, size_t len, const char *cafile,
                        const char *host, char *err, size_t errcap)
{
  gnutls_x509_crt_t crt = NULL;
  gnutls_x509_trust_list_t tl = NULL;
  gnutls_datum_t d;
  unsigned int status = 0;
  int rc = MAIL_ETLS;
  int r;

  if(!der || !len || len > 1024u * 1024u || !host || !host[0]) {
    snprintf(err, errcap, "the server sent no certificate");
    return MAIL_ETLS;
  }
  d.data = (unsigned char *)der;
  d.size = (unsigned int)len;
  if(gnutls_x509_crt_init(&crt) < 0 || gnutls_x509_trust_list_init(&tl, 0) < 0) {
    snprintf(err, errcap, "out of memory checking the certificate");
    goto out;
  }
  if(gnutls_x509_crt_import(crt, &d, GNUTLS_X509_FMT_DER) < 0) {
    snprintf(err, errcap, "the server's certificate cannot be read");
    goto out;
  }
  if(cafile && cafile[0])
    r = gnutls_x509_trust_list_add_trust_file(tl, cafile, NULL, GNUTLS_X509_FMT_PEM, 0, 0);
  else
    r = gnutls_x509_trust_list_add_system_trust(tl, 0, 0);
  if(r <= 0) {
    snprintf(err, errcap, "no trust anchors in %s",
             cafile && cafile[0] ? cafile : "the system's certificate store");
    goto out;
  }
  r = gnutls_x509_trust_list_verify_crt(tl, &crt, 1, 0, &status, NULL);
  if(r < 0 || status) {
    gnutls_datum_t why = {NULL, 0};
    if(r >= 0 &&
       gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &why, 0) >= 0) {
      snprintf(err, errcap, "certificate not trusted: %s", (const char *)why.data);
      gnutls_free(why.data);
    }
    else
      snprintf(err, errcap, "certificate not trusted");
    goto out;
  }
  if(!gnutls_x509_crt_check_hostname(crt, host)) {
    snprintf(err, errcap, "the certificate is not for host %s", host);
    goto out;
  }
  rc = 0;
out:
  if(tl)
    gnutls_x509_trust_list_deinit(tl, 1);
  if(crt)
    gnutls_x509_crt_deinit(crt);
  return rc;
}
