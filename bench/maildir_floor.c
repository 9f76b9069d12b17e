/*
 * maildir_floor.c: the floor under the latency goals (bench/mail_latency.sh), the file work any
 * Maildir referee must do on this machine, with nothing else (no parsing,
 * no store, no rules), so bench/vs_pbmserv.sh and bench/throughput.sh can
 * print it beside tabula in the same run. A goal below this floor cannot
 * be met by any program that keeps Maildir's promises on this disk.
 *
 *   maildir_floor start
 *       reads standard input to its end and exits 0: starting a C program
 *       that takes the mail (dynamic loader, libc, exit).
 *   maildir_floor deliver MAILDIR
 *       the least a durable delivery does, what tabula-deliver does without
 *       its configuration and its daemon probe (mail/maildir.c): standard
 *       input to MAILDIR/tmp/<unique>, fdatasync, rename into new/, fsync of
 *       new/ (two syncs), exit 0.
 *   maildir_floor poll INBOX OUTBOX REPLIES_PER_MAIL REPLY_BYTES
 *       the file work of one `tabula poll`: each mail of INBOX/new in name
 *       order opened, read whole, closed and renamed into cur/ (":2,S");
 *       REPLIES_PER_MAIL files of REPLY_BYTES each written into OUTBOX
 *       (tmp/, write, close, rename into new/); at the end one syncfs(2)
 *       of OUTBOX's file system, as tabula does for a big batch
 *       (mail_maildir_sync; its acknowledgement, mail_maildir_ack_batch,
 *       syncs nothing: the store knows every message it processed).
 *
 * Silent on success; a failure says what and exits 1. Not installed.
 */
#define _GNU_SOURCE /* syncfs(2) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what, const char *path)
{
  fprintf(stderr, "maildir_floor: %s %s: %s\n", what, path, strerror(errno));
  exit(1);
}

static void path(char *dst, const char *dir, const char *sub, const char *name)
{
  if(snprintf(dst, PATH_MAX, "%s/%s/%s", dir, sub, name) >= PATH_MAX) {
    errno = ENAMETOOLONG;
    die("path", dir);
  }
}

static void write_all(int fd, const char *data, size_t len, const char *p)
{
  while(len) {
    ssize_t w = write(fd, data, len);
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0)
      die("write", p);
    data += w;
    len -= (size_t)w;
  }
}

/* the whole of fd, in one buffer grown as it fills */
static char *read_all(int fd, size_t *len, const char *p)
{
  size_t cap = 16384, n = 0;
  char *buf = malloc(cap);

  for(;;) {
    ssize_t r;
    if(!buf)
      die("malloc for", p);
    if(n == cap)
      buf = realloc(buf, cap *= 2);
    if(!buf)
      die("realloc for", p);
    r = read(fd, buf + n, cap - n);
    if(r < 0 && errno == EINTR)
      continue;
    if(r < 0)
      die("read", p);
    if(!r)
      break;
    n += (size_t)r;
  }
  *len = n;
  return buf;
}

static void fsync_dir(const char *p)
{
  int fd = open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if(fd < 0 || fsync(fd))
    die("fsync", p);
  close(fd);
}

static int deliver(const char *maildir)
{
  char host[256] = "localhost", name[NAME_MAX + 1], tmp[PATH_MAX], dst[PATH_MAX];
  struct timespec ts;
  size_t len;
  char *data = read_all(0, &len, "standard input");
  int fd;

  /* the unique name of the Maildir specification: time, pid, host */
  gethostname(host, sizeof(host) - 1);
  host[strcspn(host, "/:")] = '\0';
  clock_gettime(CLOCK_REALTIME, &ts);
  snprintf(name, sizeof(name), "%lld.M%06ldP%ld.%.64s", (long long)ts.tv_sec,
           (long)(ts.tv_nsec / 1000), (long)getpid(), host);
  path(tmp, maildir, "tmp", name);
  path(dst, maildir, "new", name);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if(fd < 0)
    die("open", tmp);
  write_all(fd, data, len, tmp);
  if(fdatasync(fd) || close(fd))
    die("fdatasync", tmp);
  if(rename(tmp, dst))
    die("rename", tmp);
  path(dst, maildir, "new", "");
  fsync_dir(dst);
  free(data);
  return 0;
}

static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the names in DIR/new that are messages (no dot files), sorted */
static char **list_new(const char *dir, size_t *n)
{
  char p[PATH_MAX];
  size_t cap = 1024;
  char **names = malloc(cap * sizeof(*names));
  struct dirent *e;
  DIR *d;

  path(p, dir, "new", "");
  if(!(d = opendir(p)))
    die("opendir", p);
  *n = 0;
  while((e = readdir(d))) {
    if(e->d_name[0] == '.')
      continue;
    if(names && *n == cap)
      names = realloc(names, (cap *= 2) * sizeof(*names));
    if(!names || !(names[*n] = strdup(e->d_name)))
      die("malloc for", p);
    (*n)++;
  }
  closedir(d);
  qsort(names, *n, sizeof(*names), by_name);
  return names;
}

static int poll_pass(const char *inbox, const char *outbox, long replies, long bytes)
{
  char from[PATH_MAX], to[PATH_MAX], name[NAME_MAX + 8];
  size_t n, i, len;
  char **names = list_new(inbox, &n);
  char *reply = malloc((size_t)bytes + 1);
  long k;
  int fd;

  if(!reply)
    die("malloc for", outbox);
  memset(reply, 'x', (size_t)bytes);
  for(i = 0; i < n; i++) {
    char *mail;
    path(from, inbox, "new", names[i]);
    if((fd = open(from, O_RDONLY | O_CLOEXEC)) < 0)
      die("open", from);
    mail = read_all(fd, &len, from);
    close(fd);
    free(mail);
    snprintf(name, sizeof(name), "%s:2,S", names[i]);
    path(to, inbox, "cur", name);
    if(rename(from, to))
      die("rename", from);
    /* names as long as tabula's "<created>.R<row>S<store>.tabula" */
    for(k = 0; k < replies; k++) {
      snprintf(name, sizeof(name), "1700000000.R%010zuS%02ld5f3759df.floor", i, k);
      path(from, outbox, "tmp", name);
      path(to, outbox, "new", name);
      fd = open(from, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
      if(fd < 0)
        die("open", from);
      write_all(fd, reply, (size_t)bytes, from);
      if(close(fd))
        die("close", from);
      if(rename(from, to))
        die("rename", from);
    }
    free(names[i]);
  }
  path(to, outbox, "new", "");
  if((fd = open(to, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 || syncfs(fd))
    die("syncfs", to);
  close(fd);
  free(names);
  free(reply);
  return 0;
}

int main(int argc, char **argv)
{
  if(argc == 2 && !strcmp(argv[1], "start")) {
    char buf[65536];
    ssize_t r;
    while((r = read(0, buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR))
      ;
    return r < 0;
  }
  if(argc == 3 && !strcmp(argv[1], "deliver"))
    return deliver(argv[2]);
  if(argc == 6 && !strcmp(argv[1], "poll") && atol(argv[4]) >= 0 && atol(argv[5]) >= 0)
    return poll_pass(argv[2], argv[3], atol(argv[4]), atol(argv[5]));
  fprintf(stderr, "usage: maildir_floor start\n"
                  "       maildir_floor deliver MAILDIR\n"
                  "       maildir_floor poll INBOX OUTBOX REPLIES_PER_MAIL REPLY_BYTES\n");
  return 2;
}
