/*
 * test_transport.c: the parts of the mail transports that need no server
 * (the servers themselves: tests/scripts/mail_servers.py).
 *
 * - mail_tls_verify_der: libetpan verifies no certificate, so tabula does
 *   (issue 5: "TLS with verification on, a wrong CA is refused"); checked
 *   with the fixed certificates of tests/data/tls/ (see its README).
 * - mail_sendmail: the pipe mode runs `sendmail -i -f FROM -- RCPT` without
 *   a shell, the message on stdin; exit 0 = sent, 75 = try again, others
 *   = refused; an address that could be an option never reaches argv.
 * - group delivery to a Maildir (deliver_nosync + one sync) and the batch
 *   acknowledgement (new/ -> cur/:2,S), the throughput path of a batch.
 */
#include "mail.h"

#include <check.h>
#include <dirent.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define TLS_DIR TABULA_TEST_DATA "/tls"

static char tmpdir[256];

static void setup(void)
{
  snprintf(tmpdir, sizeof(tmpdir), "%s/tabula-transport-XXXXXX", P_tmpdir);
  ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
  char cmd[400];
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
  ck_assert_int_eq(system(cmd), 0);
}

/* The DER form of a PEM certificate file, as a TLS handshake hands it over. */
static unsigned char *der_of(const char *pem_path, size_t *len)
{
  gnutls_datum_t pem = {NULL, 0}, der = {NULL, 0};
  gnutls_x509_crt_t crt;
  unsigned char *out;

  ck_assert_int_ge(gnutls_load_file(pem_path, &pem), 0);
  ck_assert_int_ge(gnutls_x509_crt_init(&crt), 0);
  ck_assert_int_ge(gnutls_x509_crt_import(crt, &pem, GNUTLS_X509_FMT_PEM), 0);
  ck_assert_int_ge(gnutls_x509_crt_export2(crt, GNUTLS_X509_FMT_DER, &der), 0);
  out = malloc(der.size);
  ck_assert_ptr_nonnull(out);
  memcpy(out, der.data, der.size);
  *len = der.size;
  gnutls_free(der.data);
  gnutls_free(pem.data);
  gnutls_x509_crt_deinit(crt);
  return out;
}

START_TEST(test_tls_verify)
{
  char err[300];
  size_t len;
  unsigned char *der = der_of(TLS_DIR "/server.pem", &len);

  /* Trusted anchor, right name (DNS and IP SAN). */
  ck_assert_int_eq(mail_tls_verify_der(der, len, TLS_DIR "/server.pem", "localhost", err,
                                       sizeof(err)),
                   0);
  ck_assert_int_eq(mail_tls_verify_der(der, len, TLS_DIR "/server.pem", "127.0.0.1", err,
                                       sizeof(err)),
                   0);
  /* A CA that did not sign it: refused (issue 5, "a wrong CA is refused"). */
  ck_assert_int_eq(mail_tls_verify_der(der, len, TLS_DIR "/other.pem", "localhost", err,
                                       sizeof(err)),
                   MAIL_ETLS);
  ck_assert_ptr_nonnull(strstr(err, "not trusted"));
  /* Trusted, but for another host (RFC 6125 name check). */
  ck_assert_int_eq(mail_tls_verify_der(der, len, TLS_DIR "/server.pem", "mail.example.org", err,
                                       sizeof(err)),
                   MAIL_ETLS);
  ck_assert_ptr_nonnull(strstr(err, "not for host"));
  /* No certificate, garbage, a missing CA file. */
  ck_assert_int_eq(mail_tls_verify_der(NULL, 0, TLS_DIR "/server.pem", "localhost", err,
                                       sizeof(err)),
                   MAIL_ETLS);
  ck_assert_int_eq(mail_tls_verify_der((const unsigned char *)"junk", 4, TLS_DIR "/server.pem",
                                       "localhost", err, sizeof(err)),
                   MAIL_ETLS);
  ck_assert_int_eq(mail_tls_verify_der(der, len, TLS_DIR "/absent.pem", "localhost", err,
                                       sizeof(err)),
                   MAIL_ETLS);
  free(der);
}
END_TEST

START_TEST(test_tls_parse)
{
  enum mail_tls t;
  ck_assert_int_eq(mail_tls_parse("implicit", &t), 0);
  ck_assert_int_eq(t, MAIL_TLS_IMPLICIT);
  ck_assert_int_eq(mail_tls_parse("starttls", &t), 0);
  ck_assert_int_eq(t, MAIL_TLS_STARTTLS);
  ck_assert_int_eq(mail_tls_parse("none", &t), 0);
  ck_assert_int_eq(t, MAIL_TLS_NONE);
  ck_assert_int_eq(mail_tls_parse("ssl", &t), -1);
  ck_assert_int_eq(mail_tls_parse("", &t), -1);
}
END_TEST

/* A stand-in sendmail: records its arguments and input, exits with the
 * code in the file "code". */
static void fake_sendmail(char *path, size_t cap, int code)
{
  char p[400];
  FILE *f;
  snprintf(path, cap, "%s/sendmail", tmpdir);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "#!/bin/sh\nfor a in \"$@\"; do printf '%%s\\n' \"$a\"; done >'%s/args'\n"
             "cat >'%s/stdin'\nexit %d\n",
          tmpdir, tmpdir, code);
  fclose(f);
  ck_assert_int_eq(chmod(path, 0700), 0);
  snprintf(p, sizeof(p), "%s/args", tmpdir);
  unlink(p);
}

static char *slurp(const char *name)
{
  char p[400];
  static char buf[4096];
  size_t n;
  FILE *f;
  snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
  f = fopen(p, "r");
  if(!f)
    return NULL;
  n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

START_TEST(test_sendmail_pipe)
{
  static const char msg[] = "From: r@example.org\nTo: a@example.org\nSubject: x\n\n.\nboard\n";
  char path[300], err[300];
  char *s;

  fake_sendmail(path, sizeof(path), 0);
  ck_assert_int_eq(mail_sendmail(path, "r@example.org", "a@example.org", msg, strlen(msg), err,
                                 sizeof(err)),
                   0);
  s = slurp("args");
  ck_assert_ptr_nonnull(s);
  /* -i: a lone "." line does not end the message; --: no option smuggling */
  ck_assert_str_eq(s, "-i\n-f\nr@example.org\n--\na@example.org\n");
  ck_assert_str_eq(slurp("stdin"), msg);

  fake_sendmail(path, sizeof(path), 75); /* EX_TEMPFAIL: queued for a retry */
  ck_assert_int_eq(mail_sendmail(path, "r@example.org", "a@example.org", msg, strlen(msg), err,
                                 sizeof(err)),
                   MAIL_ENET);
  ck_assert_ptr_nonnull(strstr(err, "75"));
  fake_sendmail(path, sizeof(path), 67); /* EX_NOUSER: refused */
  ck_assert_int_eq(mail_sendmail(path, "r@example.org", "a@example.org", msg, strlen(msg), err,
                                 sizeof(err)),
                   MAIL_EREFUSED);

  /* Unchecked input never reaches the command line. */
  fake_sendmail(path, sizeof(path), 0);
  ck_assert_int_eq(mail_sendmail(path, "r@example.org", "-oQ/tmp@x.org", msg, strlen(msg), err,
                                 sizeof(err)),
                   MAIL_EREFUSED);
  ck_assert_int_eq(mail_sendmail(path, "r@example.org", "a@example.org\nBcc: b@x.org", msg,
                                 strlen(msg), err, sizeof(err)),
                   MAIL_EREFUSED);
  ck_assert_ptr_null(slurp("args"));
  ck_assert_int_eq(mail_sendmail("sendmail", "r@example.org", "a@example.org", msg, strlen(msg),
                                 err, sizeof(err)),
                   MAIL_EIO); /* relative path: refused */
}
END_TEST

static size_t count(const char *dir, const char *sub, const char *suffix)
{
  char p[400];
  size_t n = 0;
  struct dirent *e;
  DIR *d;
  snprintf(p, sizeof(p), "%s/%s", dir, sub);
  d = opendir(p);
  ck_assert_ptr_nonnull(d);
  while((e = readdir(d)))
    if(e->d_name[0] != '.' && (!suffix || strstr(e->d_name, suffix)))
      n++;
  closedir(d);
  return n;
}

START_TEST(test_maildir_group)
{
  char dir[300], names[3][256];
  char *list[4];
  char **listed = NULL;
  size_t n = 0, i;

  snprintf(dir, sizeof(dir), "%s/md", tmpdir);
  ck_assert_int_eq(mail_maildir_init(dir), 0);
  for(i = 0; i < 3; i++)
    ck_assert_int_eq(mail_maildir_deliver_nosync(dir, "x\n", 2, names[i], sizeof(names[i])), 0);
  ck_assert_int_eq(mail_maildir_sync(dir), 0);
  ck_assert_uint_eq(count(dir, "new", NULL), 3);
  ck_assert_uint_eq(count(dir, "tmp", NULL), 0);
  ck_assert_int_eq(mail_maildir_list_new(dir, &listed, &n), 0);
  ck_assert_uint_eq(n, 3);
  for(i = 0; i < 3; i++) /* delivery order */
    ck_assert_str_eq(listed[i], names[i]);
  mail_names_free(listed, n);
  /* The batch acknowledgement: all three to cur/ with ":2,S"; a name that
   * is not there counts as failed, one already moved does not. */
  for(i = 0; i < 3; i++)
    list[i] = names[i];
  list[3] = "1700000000.M1P1.gone";
  ck_assert_uint_eq(mail_maildir_ack_batch(dir, list, 4), 1);
  ck_assert_uint_eq(count(dir, "new", NULL), 0);
  ck_assert_uint_eq(count(dir, "cur", ":2,S"), 3);
  ck_assert_uint_eq(mail_maildir_ack_batch(dir, list, 3), 0); /* repeat after a crash */
  ck_assert_int_eq(mail_maildir_sync(tmpdir), MAIL_EIO);      /* not a Maildir */
}
END_TEST

static Suite *transport_suite(void)
{
  Suite *s = suite_create("mail transports");
  TCase *tc = tcase_create("transport");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_tls_verify);
  tcase_add_test(tc, test_tls_parse);
  tcase_add_test(tc, test_sendmail_pipe);
  tcase_add_test(tc, test_maildir_group);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(transport_suite());
  int failed;
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
