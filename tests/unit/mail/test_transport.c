/*
 * test_transport.c: the parts of the mail transports that need no server
 * (the servers themselves: tests/scripts/mail_servers.py).
 *
 * - mail_tls_verify_der: libetpan verifies no certificate, so tabula does
 *   ("TLS with verification on, a wrong CA is refused"); checked
 *   with the fixed certificates of tests/data/tls/ (see its README).
 * - mail_sendmail: the pipe mode runs `sendmail -i -f FROM -- RCPT` without
 *   a shell, the message on stdin; exit 0 = sent, 75 = try again, others
 *   = refused; an address that could be an option never reaches argv.
 * - group delivery to a Maildir (deliver_nosync + one sync) and the batch
 *   acknowledgement (new/ -> cur/:2,S), the throughput path of a batch.
 * - the arrival time of each message: a Maildir file's delivery
 *   time, IMAP INTERNALDATE (from a scripted IMAP server on loopback, so a
 *   server's hostile values can be sent too), and the search that lets
 *   interrupted IMAP moves finish in one pass.
 */
#include "mail.h"
#include "support/support.h"
#include "unit_run.h"

#include <arpa/inet.h>
#include <check.h>
#include <dirent.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
  /* A CA that did not sign it: refused ("a wrong CA is refused"). */
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

/* What the fake sendmail wrote to tmpdir/name, or NULL; the buffer lasts
 * until the next call. */
static char *written(const char *name)
{
  static char *last;
  char p[400];

  free(last);
  snprintf(p, sizeof(p), "%s/%s", tmpdir, name);
  last = ts_slurp(p, NULL);
  return last;
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
  s = written("args");
  ck_assert_ptr_nonnull(s);
  /* -i: a lone "." line does not end the message; --: no option smuggling */
  ck_assert_str_eq(s, "-i\n-f\nr@example.org\n--\na@example.org\n");
  ck_assert_str_eq(written("stdin"), msg);

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
  ck_assert_ptr_null(written("args"));
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

/* The daemon's inbox watch wakes on each arrival, once; a small
 * group of replies is synced file by file (MAIL_SYNC_FILE), then new/. */
START_TEST(test_maildir_watch_and_folder_sync)
{
  char dir[300], name[256];
  struct mail_maildir_watch *w = NULL;
  bool already = false;
  size_t i;

  snprintf(dir, sizeof(dir), "%s/sn", tmpdir);
  ck_assert_int_eq(mail_maildir_init(dir), 0);
  /* the watch opened before the deliveries sees them, and only once */
  ck_assert_int_eq(mail_maildir_watch_open(dir, &w), 0);
  ck_assert_int_eq(mail_maildir_watch_wait(w, 0), 0);
  for(i = 0; i < 2; i++)
    ck_assert_int_eq(mail_maildir_deliver_nosync(dir, "x\n", 2, name, sizeof(name)), 0);
  ck_assert_int_eq(mail_maildir_watch_wait(w, 1000), 1);
  ck_assert_int_eq(mail_maildir_watch_wait(w, 0), 0);
  /* a put (rename from tmp/) wakes it too */
  ck_assert_int_eq(mail_maildir_put(dir, "r1.tabula", "abc", 3, MAIL_SYNC_FILE, NULL), 0);
  ck_assert_int_eq(mail_maildir_watch_wait(w, 1000), 1);
  mail_maildir_watch_close(w);
  ck_assert_int_eq(mail_maildir_put(dir, "r1.tabula", "abc", 3, MAIL_SYNC_FILE, &already), 0);
  ck_assert(already); /* there whole: not written twice */
  ck_assert_uint_eq(count(dir, "new", NULL), 3);
  ck_assert_uint_eq(count(dir, "tmp", NULL), 0);
  ck_assert_int_eq(mail_maildir_sync_folder(dir), 0);
  ck_assert_int_eq(mail_maildir_sync_folder(tmpdir), MAIL_EIO); /* not a Maildir */
  ck_assert_int_eq(mail_maildir_watch_open(tmpdir, &w), MAIL_EIO);
  ck_assert_ptr_null(w);
}
END_TEST

/* A file written in new/ itself, not by the Maildir way of tmp/ and a
 * rename, is read only once whole (docs/architecture.md, "The inbox"):
 * empty, it is MAIL_EEMPTY; open for writing (here by this very process),
 * MAIL_EAGAIN, whatever it holds so far; closed, read. Where the kernel
 * cannot be asked (a file of another user: no lease without CAP_LEASE),
 * a file changed in the last MAIL_SETTLE_S seconds waits, an older one
 * is read. */
START_TEST(test_maildir_read_whole)
{
  char dir[300], path[700], *data = NULL;
  size_t len = 0;
  FILE *f;
  struct stat st;

  snprintf(dir, sizeof(dir), "%s/wh", tmpdir);
  ck_assert_int_eq(mail_maildir_init(dir), 0);
  snprintf(path, sizeof(path), "%s/new/m", dir);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(mail_maildir_read(dir, "m", &data, &len), MAIL_EAGAIN); /* open, empty */
  ck_assert_ptr_null(data);
  fputs("From: a@example.org\n", f);
  fflush(f);
  ck_assert_int_eq(mail_maildir_read(dir, "m", &data, &len), MAIL_EAGAIN); /* half written */
  ck_assert_ptr_null(data);
  fputs("\nbody\n", f);
  fclose(f);
  ck_assert_int_eq(mail_maildir_read(dir, "m", &data, &len), MAIL_OK);
  ck_assert_str_eq(data, "From: a@example.org\n\nbody\n");
  ck_assert_uint_eq(len, 26);
  free(data);
  data = NULL;
  /* empty and closed: no mail, never one to acknowledge */
  snprintf(path, sizeof(path), "%s/new/e", dir);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fclose(f);
  ck_assert_int_eq(mail_maildir_read(dir, "e", &data, &len), MAIL_EEMPTY);
  ck_assert_ptr_null(data);
  /* another user's file: a child without CAP_LEASE (only as root, who
   * can make one) sees a fresh file as still being written, an old one
   * as whole */
  snprintf(path, sizeof(path), "%s/new/m", dir);
  if(geteuid() == 0) {
    pid_t pid;
    int status = 0;
    struct timeval old[2];
    ck_assert_int_eq(chmod(dir, 0755), 0);
    snprintf(path, sizeof(path), "%s/new", dir);
    ck_assert_int_eq(chmod(path, 0755), 0);
    ck_assert_int_eq(chmod(tmpdir, 0755), 0);
    snprintf(path, sizeof(path), "%s/new/m", dir);
    ck_assert_int_eq(chmod(path, 0644), 0);
    ck_assert_int_eq(utimes(path, NULL), 0); /* changed now */
    for(int round = 0; round < 2; round++) {
      pid = fork();
      ck_assert_int_ge(pid, 0);
      if(!pid) {
        char *d = NULL;
        size_t l = 0;
        int want = round ? MAIL_OK : MAIL_EAGAIN;
        if(setgid(65534) || setuid(65534))
          _exit(2);
        _exit(mail_maildir_read(dir, "m", &d, &l) == want ? 0 : 1);
      }
      ck_assert_int_eq(waitpid(pid, &status, 0), pid);
      ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "round %d: exit %d", round,
                    WEXITSTATUS(status));
      ck_assert_int_eq(stat(path, &st), 0);
      old[0].tv_sec = old[1].tv_sec = st.st_mtime - MAIL_SETTLE_S - 1;
      old[0].tv_usec = old[1].tv_usec = 0;
      ck_assert_int_eq(utimes(path, old), 0);
    }
  }
}
END_TEST

/* The watch names what arrived, so a pass need not list a big
 * new/: in delivery order, each once, only regular files still there;
 * what arrived before the watch opened is for a listing, not the watch. */
START_TEST(test_maildir_watch_take)
{
  char dir[300], path[700], name[3][256];
  struct mail_maildir_watch *w = NULL;
  char **names = NULL;
  size_t n = 9, i;

  snprintf(dir, sizeof(dir), "%s/wt", tmpdir);
  ck_assert_int_eq(mail_maildir_init(dir), 0);
  ck_assert_int_eq(mail_maildir_deliver_nosync(dir, "early\n", 6, name[0], sizeof(name[0])), 0);
  ck_assert_int_eq(mail_maildir_watch_open(dir, &w), 0);
  ck_assert_int_eq(mail_maildir_watch_take(w, dir, &names, &n), 0);
  ck_assert_uint_eq(n, 0); /* the early one: before the watch */
  ck_assert_ptr_null(names);
  /* out of order by hand: the later name first */
  snprintf(path, sizeof(path), "%s/new/1700000002.M1P1.h", dir);
  fclose(fopen(path, "w"));
  snprintf(path, sizeof(path), "%s/new/1700000001.M1P1.h", dir);
  fclose(fopen(path, "w"));
  snprintf(path, sizeof(path), "%s/new/.hidden", dir);
  fclose(fopen(path, "w"));
  snprintf(path, sizeof(path), "%s/new/1700000003.dir", dir);
  ck_assert_int_eq(mkdir(path, 0700), 0);
  ck_assert_int_eq(mail_maildir_put(dir, "1700000000.M9P9.r", "abc", 3, MAIL_SYNC_NONE, NULL), 0);
  ck_assert_int_eq(mail_maildir_put(dir, "1700000000.M9P9.r", "abd", 3, MAIL_SYNC_NONE, NULL), 0);
  ck_assert_int_eq(mail_maildir_deliver_nosync(dir, "gone\n", 5, name[1], sizeof(name[1])), 0);
  ck_assert_int_eq(mail_maildir_watch_wait(w, 1000), 1);
  snprintf(path, sizeof(path), "%s/new/%s", dir, name[1]);
  ck_assert_int_eq(unlink(path), 0); /* taken by someone else meanwhile */
  ck_assert_int_eq(mail_maildir_watch_take(w, dir, &names, &n), 0);
  ck_assert_uint_eq(n, 3);
  ck_assert_str_eq(names[0], "1700000000.M9P9.r"); /* renamed in twice: once */
  ck_assert_str_eq(names[1], "1700000001.M1P1.h");
  ck_assert_str_eq(names[2], "1700000002.M1P1.h");
  mail_names_free(names, n);
  ck_assert_int_eq(mail_maildir_watch_take(w, dir, &names, &n), 0);
  ck_assert_uint_eq(n, 0); /* taken once */
  /* forgotten (new/ listed whole instead): not taken again */
  ck_assert_int_eq(mail_maildir_put(dir, "1700000004.M9P9.r", "abc", 3, MAIL_SYNC_NONE, NULL), 0);
  ck_assert_int_eq(mail_maildir_watch_wait(w, 1000), 1);
  mail_maildir_watch_forget(w);
  ck_assert_int_eq(mail_maildir_watch_take(w, dir, &names, &n), 0);
  ck_assert_uint_eq(n, 0);
  /* a name not taken is dropped with the watch: nothing leaks */
  ck_assert_int_eq(mail_maildir_deliver_nosync(dir, "late\n", 5, name[2], sizeof(name[2])), 0);
  ck_assert_int_eq(mail_maildir_watch_wait(w, 1000), 1);
  mail_maildir_watch_close(w);
  for(i = 0; i < 3; i++)
    ck_assert(name[i][0]);
  ck_assert_int_eq(mail_maildir_watch_take(NULL, dir, &names, &n), MAIL_EIO);
}
END_TEST

/* The Maildir delivery time is the time the unique name starts
 * with, else the file's modification time. */
START_TEST(test_maildir_arrival)
{
  static const struct {
    const char *name;
    int64_t t; /* 0: the file's mtime */
  } names[] = {
      {"1795507200.M12P34.host", 1795507200},
      {"1795507200.M12P34.host:2,", 1795507200},
      {"9223372036854775807.x", INT64_MAX},
      {"9223372036854775808.x", 0},        /* past int64: no wrap, the mtime */
      {"99999999999999999999999999.x", 0}, /* more than 19 digits */
      {"999999999.x", 0},                  /* fewer than 10: no delivery time */
      {"1795507200", 0},                   /* no '.' after it */
      {"move.eml", 0},
  };
  char dir[300], path[700], name[256];
  struct timeval tv[2] = {{1795500000, 0}, {1795500000, 0}};
  struct timespec now;
  int64_t t;
  size_t i;

  snprintf(dir, sizeof(dir), "%s/arrive", tmpdir);
  ck_assert_int_eq(mail_maildir_init(dir), 0);
  /* what mail_maildir_deliver names: now */
  clock_gettime(CLOCK_REALTIME, &now);
  ck_assert_int_eq(mail_maildir_deliver(dir, "x\n", 2, name, sizeof(name)), 0);
  t = mail_maildir_arrival(dir, name);
  ck_assert(t >= now.tv_sec && t <= now.tv_sec + 2);
  for(i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    FILE *f;
    snprintf(path, sizeof(path), "%s/new/%s", dir, names[i].name);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    ck_assert_int_eq(utimes(path, tv), 0);
    ck_assert_msg(mail_maildir_arrival(dir, names[i].name) ==
                      (names[i].t ? names[i].t : 1795500000),
                  "%s: %lld", names[i].name, (long long)mail_maildir_arrival(dir, names[i].name));
  }
  ck_assert_int_eq(mail_maildir_arrival(dir, "gone.eml"), -1);
  ck_assert_int_eq(mail_maildir_arrival(dir, "../x"), -1);
  ck_assert_int_eq(mail_maildir_arrival(NULL, "x"), -1);
}
END_TEST

/* ---- a scripted IMAP server on loopback ---- */

/* One message the fake server holds: its INTERNALDATE as sent (NULL: the
 * server sends none). */
struct fake_msg {
  unsigned uid;
  const char *date;
};

static const struct fake_msg fake_msgs[] = {
    {4, "\"24-Nov-2026 09:00:00 +0100\""},
    {5, "\"24-Nov-2026 03:00:00 -0500\""},
    {6, "\"24-Nov-2026 09:00:00 +0199\""}, /* minutes past 59 */
    {7, "\"31-Feb-2026 08:00:00 +0000\""}, /* no such day */
    {8, NULL},
};

#define FAKE_BODY "From: a@b.test\r\n\r\ne4\r\n"

static void fake_send(int fd, const char *s)
{
  size_t n = strlen(s);
  while(n) {
    ssize_t w = write(fd, s, n);
    if(w <= 0)
      _exit(1);
    s += w;
    n -= (size_t)w;
  }
}

/* Serves one client on fd: the commands mail_imap_open, _search and
 * _fetch send, each line logged to log. */
static void fake_imap(int fd, FILE *log)
{
  char line[1024];
  size_t k = 0;
  char c;

  fake_send(fd, "* OK [CAPABILITY IMAP4rev1 MOVE UIDPLUS] fake ready\r\n");
  while(read(fd, &c, 1) == 1) {
    char tag[32], out[512];
    const char *cmd;
    if(c != '\n') {
      if(k + 1 < sizeof(line) && c != '\r')
        line[k++] = c;
      continue;
    }
    line[k] = '\0';
    k = 0;
    fprintf(log, "%s\n", line);
    fflush(log);
    if(sscanf(line, "%31s", tag) != 1)
      continue;
    cmd = line + strlen(tag) + 1;
    if(!strncasecmp(cmd, "LOGIN", 5))
      snprintf(out, sizeof(out), "%s OK LOGIN done\r\n", tag);
    else if(!strncasecmp(cmd, "CAPABILITY", 10))
      snprintf(out, sizeof(out), "* CAPABILITY IMAP4rev1 MOVE UIDPLUS\r\n%s OK done\r\n", tag);
    else if(!strncasecmp(cmd, "SELECT", 6))
      snprintf(out, sizeof(out),
               "* 5 EXISTS\r\n* OK [UIDVALIDITY 7] v\r\n* OK [UIDNEXT 9] n\r\n"
               "%s OK [READ-WRITE] done\r\n",
               tag);
    else if(!strncasecmp(cmd, "UID SEARCH", 10))
      snprintf(out, sizeof(out), "* SEARCH 4 5 6 7 8\r\n%s OK done\r\n", tag);
    else if(!strncasecmp(cmd, "UID FETCH", 9)) {
      unsigned uid = (unsigned)strtoul(cmd + 10, NULL, 10);
      const struct fake_msg *m = NULL;
      size_t i;
      for(i = 0; i < sizeof(fake_msgs) / sizeof(fake_msgs[0]); i++)
        if(fake_msgs[i].uid == uid)
          m = &fake_msgs[i];
      if(!m)
        snprintf(out, sizeof(out), "%s OK nothing\r\n", tag);
      else if(strstr(cmd, "BODY.PEEK"))
        snprintf(out, sizeof(out), "* 1 FETCH (UID %u%s%s BODY[] {%zu}\r\n%s)\r\n%s OK done\r\n",
                 uid, m->date ? " INTERNALDATE " : "", m->date ? m->date : "", strlen(FAKE_BODY),
                 FAKE_BODY, tag);
      else
        snprintf(out, sizeof(out), "* 1 FETCH (UID %u RFC822.SIZE %zu)\r\n%s OK done\r\n", uid,
                 strlen(FAKE_BODY), tag);
    } else if(!strncasecmp(cmd, "LOGOUT", 6)) {
      snprintf(out, sizeof(out), "* BYE\r\n%s OK done\r\n", tag);
      fake_send(fd, out);
      return;
    } else
      snprintf(out, sizeof(out), "%s BAD not in the script\r\n", tag);
    fake_send(fd, out);
  }
}

/* Starts the fake server (one connection per child) on a loopback port. */
static pid_t fake_start(int *port, const char *logpath)
{
  struct sockaddr_in a;
  socklen_t al = sizeof(a);
  int ls = socket(AF_INET, SOCK_STREAM, 0);
  pid_t pid;

  ck_assert_int_ge(ls, 0);
  memset(&a, 0, sizeof(a));
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ck_assert_int_eq(bind(ls, (struct sockaddr *)&a, sizeof(a)), 0);
  ck_assert_int_eq(listen(ls, 4), 0);
  ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&a, &al), 0);
  *port = ntohs(a.sin_port);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if(!pid) {
    FILE *log = fopen(logpath, "a");
    int fd;
    /* never outlive a test that failed half-way */
    signal(SIGALRM, SIG_DFL);
    alarm(60);
    if(!log)
      _exit(1);
    while((fd = accept(ls, NULL, NULL)) >= 0) {
      fake_imap(fd, log);
      close(fd);
    }
    _exit(0);
  }
  close(ls);
  return pid;
}

/* INTERNALDATE comes with the body, as Unix seconds; a date the server
 * got wrong is no date (-1), and so is none. With handled, the search asks
 * for every message, so all the committed ones can be moved at once. */
START_TEST(test_imap_arrival_and_search)
{
  static const int64_t want[] = {1795507200, 1795507200, -1, -1, -1};
  struct mail_server srv;
  struct mail_imap *im = NULL;
  char logpath[300], err[300], line[1024];
  uint32_t *uids = NULL;
  size_t n = 0, i;
  int port, status;
  bool all = false, unseen = false;
  pid_t pid;
  FILE *log;

  snprintf(logpath, sizeof(logpath), "%s/imap.log", tmpdir);
  pid = fake_start(&port, logpath);
  memset(&srv, 0, sizeof(srv));
  srv.host = "127.0.0.1";
  srv.port = port;
  srv.tls = MAIL_TLS_NONE;
  srv.user = "referee";
  srv.password = "secret";
  srv.timeout_s = 10;
  ck_assert_msg(mail_imap_open(&im, &srv, "INBOX", err, sizeof(err)) == 0, "%s", err);
  ck_assert_uint_eq(mail_imap_uidvalidity(im), 7);
  ck_assert_int_eq(mail_imap_search(im, 6, true, &uids, &n), 0);
  ck_assert_uint_eq(n, 5);
  free(uids);
  ck_assert_int_eq(mail_imap_search(im, 6, false, &uids, &n), 0);
  free(uids);
  for(i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
    char *data = NULL;
    size_t len = 0;
    int64_t at = 0;
    ck_assert_int_eq(mail_imap_fetch(im, 4 + (uint32_t)i, &data, &len, &at), 0);
    ck_assert_uint_eq(len, strlen(FAKE_BODY));
    ck_assert_msg(at == want[i], "UID %zu: %lld", 4 + i, (long long)at);
    free(data);
  }
  mail_imap_close(im);
  /* SIGKILL: the child has check's own SIGTERM handler, which ends the
   * whole process group */
  kill(pid, SIGKILL);
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  log = fopen(logpath, "r");
  ck_assert_ptr_nonnull(log);
  while(fgets(line, sizeof(line), log)) {
    if(strstr(line, "UID SEARCH ALL"))
      all = true;
    if(strstr(line, "UID SEARCH OR UNSEEN UID 7:*"))
      unseen = true;
    if(strstr(line, "BODY.PEEK"))
      ck_assert_msg(strstr(line, "INTERNALDATE") != NULL, "%s", line);
  }
  fclose(log);
  ck_assert_msg(all && unseen, "searches sent: all %d, unseen-or-above %d", all, unseen);
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
  tcase_add_test(tc, test_maildir_watch_and_folder_sync);
  tcase_add_test(tc, test_maildir_watch_take);
  tcase_add_test(tc, test_maildir_read_whole);
  tcase_add_test(tc, test_maildir_arrival);
  tcase_add_test(tc, test_imap_arrival_and_search);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(transport_suite());
}
