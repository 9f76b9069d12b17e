/*
 * maildir.c: the Maildir transport, in (list, read, acknowledge) and out
 * (deliver), and the bounded read of a message from a pipe (MTA mode).
 *
 * Follows the Maildir specification (cr.yp.to/proto/maildir.html, and
 * maildir(5) of qmail): a message is written under tmp/, synced, then
 * linked into new/; a reader moves what it has handled from new/ to cur/
 * with an info suffix (":2," then flags, here S for seen). Files whose
 * names start with a dot are not messages. Unique names follow the
 * modern form "seconds.M<micro>P<pid>_<counter>.<host>".
 *
 * Durability: a delivered message is fsync'ed before it becomes visible,
 * and the new/ directory is fsync'ed after the link, so a message that
 * mail_maildir_deliver reported as delivered survives a crash.
 */
#define _GNU_SOURCE /* syncfs(2) */
#include "mail_int.h"

#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/inotify.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

/* Deliveries by this process, the part of a unique name that tells two
 * deliveries in one microsecond apart. */
static unsigned int delivery_count;

static int path_of(char *dst, size_t cap, const char *dir, const char *sub, const char *name)
{
  int n;

  if(name)
    n = snprintf(dst, cap, "%s/%s/%s", dir, sub, name);
  else
    n = snprintf(dst, cap, "%s/%s", dir, sub);
  return n < 0 || (size_t)n >= cap ? MAIL_EIO : 0;
}

/* A message name as found in new/: one path component, not a dot file. */
static bool name_ok(const char *name)
{
  size_t n;

  if(!name || !name[0] || name[0] == '.')
    return false;
  n = strlen(name);
  return n < NAME_MAX && !strchr(name, '/');
}

static int make_dir(const char *path)
{
  struct stat st;

  if(!mkdir(path, 0700))
    return 0;
  if(errno != EEXIST || stat(path, &st) || !S_ISDIR(st.st_mode))
    return MAIL_EIO;
  return 0;
}

static int sync_dir(const char *path)
{
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  int rc = 0;

  if(fd < 0)
    return MAIL_EIO;
  if(fsync(fd))
    rc = MAIL_EIO;
  close(fd);
  return rc;
}

int mail_maildir_init(const char *dir)
{
  static const char *const subs[] = {"tmp", "new", "cur"};
  char path[PATH_MAX];
  size_t i;
  size_t n;

  if(!dir || !dir[0])
    return MAIL_EIO;
  n = strlen(dir);
  if(n >= sizeof(path))
    return MAIL_EIO;
  memcpy(path, dir, n + 1);
  /* mkdir -p: each parent in turn */
  for(i = 1; i < n; i++) {
    if(path[i] != '/')
      continue;
    path[i] = '\0';
    if(make_dir(path))
      return MAIL_EIO;
    path[i] = '/';
  }
  if(make_dir(path))
    return MAIL_EIO;
  for(i = 0; i < 3; i++) {
    if(path_of(path, sizeof(path), dir, subs[i], NULL) || make_dir(path))
      return MAIL_EIO;
  }
  return 0;
}

/* Leading decimal number of s (at most 19 digits), *end after it. */
static unsigned long long number(const char *s, const char **end)
{
  unsigned long long v = 0;
  int k = 0;

  while(s[k] >= '0' && s[k] <= '9' && k < 19) {
    v = v * 10 + (unsigned long long)(s[k] - '0');
    k++;
  }
  *end = s + k;
  return v;
}

/* Delivery order: by the seconds the name starts with, then by the
 * microseconds of an ".M<micro>" part (other deliverers do not pad it, so
 * text order would put M99 after M123), then by the name. */
static int cmp_names(const void *pa, const void *pb)
{
  const char *a = *(const char *const *)pa;
  const char *b = *(const char *const *)pb;
  const char *ea;
  const char *eb;
  unsigned long long na = number(a, &ea);
  unsigned long long nb = number(b, &eb);

  if(ea != a && eb != b) {
    if(na != nb)
      return na < nb ? -1 : 1;
    if(!strncmp(ea, ".M", 2) && !strncmp(eb, ".M", 2)) {
      na = number(ea + 2, &ea);
      nb = number(eb + 2, &eb);
      if(na != nb)
        return na < nb ? -1 : 1;
    }
  }
  return strcmp(a, b);
}

void mail_names_free(char **names, size_t n)
{
  size_t i;

  if(!names)
    return;
  for(i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

/* A message in a folder: a name Maildir allows (no dot file) that is a
 * regular file there; a stray directory or FIFO is not. */
static bool message_at(int dfd, const char *name)
{
  struct stat st;
  return name_ok(name) && !fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) && S_ISREG(st.st_mode);
}

int mail_maildir_list_new(const char *dir, char ***names, size_t *n)
{
  char path[PATH_MAX];
  DIR *d = NULL;
  struct dirent *e;
  char **list = NULL;
  size_t count = 0;
  size_t cap = 0;
  int rc = MAIL_EIO;

  if(!names || !n)
    return MAIL_EIO;
  *names = NULL;
  *n = 0;
  if(!dir || path_of(path, sizeof(path), dir, "new", NULL))
    goto out;
  d = opendir(path);
  if(!d)
    goto out;
  for(;;) {
    errno = 0;
    e = readdir(d);
    if(!e) {
      if(errno)
        goto out;
      break;
    }
    if(!message_at(dirfd(d), e->d_name))
      continue;
    if(count == cap) {
      size_t ncap = cap ? cap * 2 : 16;
      char **p = realloc(list, ncap * sizeof(*list));
      if(!p) {
        rc = MAIL_ENOMEM;
        goto out;
      }
      list = p;
      cap = ncap;
    }
    list[count] = strdup(e->d_name);
    if(!list[count]) {
      rc = MAIL_ENOMEM;
      goto out;
    }
    count++;
  }
  if(count)
    qsort(list, count, sizeof(*list), cmp_names);
  *names = list;
  *n = count;
  list = NULL;
  count = 0;
  rc = 0;
out:
  mail_names_free(list, count);
  if(d)
    closedir(d);
  return rc;
}

/* Reads fd to its end, at most MAIL_MAX_MESSAGE bytes; the data is
 * NUL-terminated for convenience (len does not count the NUL). */
static int read_all(int fd, char **data, size_t *len)
{
  struct base_buf b;
  int rc = MAIL_EIO;

  *data = NULL;
  *len = 0;
  /* one byte past the limit is read, to know the message is past it */
  base_buf_init(&b, (size_t)MAIL_MAX_MESSAGE + 1);
  for(;;) {
    /* the room there is, else as much again as was read (64 KiB first) */
    size_t room = b.cap ? b.cap - b.len - 1 : 0;
    char *w;
    ssize_t r;

    if(!room)
      room = b.len < 65536 ? 65536 : b.len;
    if(room > b.max - b.len)
      room = b.max - b.len;
    if(!room) {
      rc = MAIL_ETOOBIG; /* MAIL_MAX_MESSAGE + 1 bytes were read */
      goto out;
    }
    if(!(w = base_buf_reserve(&b, room))) {
      rc = mail_buf_code(base_buf_err(&b));
      goto out;
    }
    r = read(fd, w, room);
    if(r < 0 && errno == EINTR)
      continue;
    if(r < 0)
      goto out;
    if(!r)
      break;
    base_buf_commit(&b, (size_t)r);
  }
  if(b.len > MAIL_MAX_MESSAGE) {
    rc = MAIL_ETOOBIG;
    goto out;
  }
  *len = b.len;
  *data = base_buf_take(&b); /* "" for an empty file */
  if(!*data) {
    *len = 0;
    rc = MAIL_ENOMEM;
    goto out;
  }
  rc = 0;
out:
  base_buf_free(&b);
  return rc;
}

int mail_read_fd(int fd, char **data, size_t *len)
{
  if(!data || !len)
    return MAIL_EIO;
  return read_all(fd, data, len);
}

int64_t mail_maildir_arrival(const char *dir, const char *name)
{
  char path[PATH_MAX];
  struct stat st;
  const char *end;
  unsigned long long t;

  if(!dir || !name_ok(name))
    return -1;
  /* ten to nineteen digits, then the '.' of "time.unique.host" (number()
   * stops at nineteen, so a longer run is no time and cannot wrap) */
  t = number(name, &end);
  if(end - name >= 10 && *end == '.' && t <= (unsigned long long)INT64_MAX)
    return (int64_t)t;
  if(path_of(path, sizeof(path), dir, "new", name) || lstat(path, &st) || !S_ISREG(st.st_mode) ||
     st.st_mtime < 0)
    return -1;
  return (int64_t)st.st_mtime;
}

/* Whether a writer may still hold the file open, asked of the kernel: a
 * read lease (fcntl(2) F_SETLEASE) is refused with EAGAIN while any
 * descriptor of the file is open for writing. 1 leased (no writer now, and
 * one that opens it meanwhile breaks the lease: lease_broken), 0 a writer
 * holds it, -1 cannot be asked (another user's file without CAP_LEASE, a
 * file system without leases, not Linux). A broken lease is told by a
 * signal, SIGIO unless F_SETSIG names another: SIGURG, which is ignored
 * unless handled, so a writer never kills the reader; the writer's open
 * waits until the lease is given up, the length of one read. */
static int lease_take(int fd)
{
#if defined(F_SETLEASE) && defined(F_SETSIG)
  if(fcntl(fd, F_SETSIG, SIGURG))
    return -1;
  if(!fcntl(fd, F_SETLEASE, F_RDLCK))
    return 1;
  return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
#else
  (void)fd;
  return -1;
#endif
}

static bool lease_broken(int fd)
{
#if defined(F_GETLEASE)
  return fcntl(fd, F_GETLEASE) != F_RDLCK;
#else
  (void)fd;
  return false;
#endif
}

static void lease_give(int fd)
{
#if defined(F_SETLEASE)
  fcntl(fd, F_SETLEASE, F_UNLCK);
#else
  (void)fd;
#endif
}

/* Changed within the last MAIL_SETTLE_S seconds (or in the future): a
 * writer whose descriptor cannot be asked about may be between writes. */
static bool recent(const struct stat *st)
{
  time_t now = time(NULL);
  return st->st_mtime > now - MAIL_SETTLE_S || st->st_ctime > now;
}

int mail_maildir_read(const char *dir, const char *name, char **data, size_t *len)
{
  return mail_maildir_read_in(dir, name, NULL, data, len);
}

int mail_maildir_read_in(const char *dir, const char *name, const struct mail_maildir_watch *w,
                         char **data, size_t *len)
{
  char path[PATH_MAX];
  struct stat st, after;
  int fd = -1, lease = -1;
  int rc = MAIL_EIO;

  if(!data || !len)
    return MAIL_EIO;
  *data = NULL;
  *len = 0;
  if(!dir || !name_ok(name) || path_of(path, sizeof(path), dir, "new", name))
    goto out;
  /* O_NONBLOCK: a FIFO planted in new/ must not hang the daemon. */
  fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if(fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode))
    goto out;
  /* Whole yet? A Maildir deliverer writes in tmp/ and renames, so what it
   * puts in new/ is whole; a person or a program writing in new/ itself
   * is not, until it closes the file (docs/architecture.md, "The inbox"). */
  lease = lease_take(fd);
  if(lease == 0 || (lease < 0 && (mail_maildir_watch_writing(w, name) || recent(&st)))) {
    rc = MAIL_EAGAIN;
    goto out;
  }
  if(!st.st_size) {
    rc = MAIL_EEMPTY;
    goto out;
  }
  if(st.st_size > (off_t)MAIL_MAX_MESSAGE) {
    rc = MAIL_ETOOBIG;
    goto out;
  }
  rc = read_all(fd, data, len);
  /* a writer came while it was read: what was read may be cut short */
  if(rc == MAIL_OK &&
     ((lease > 0 && lease_broken(fd)) || fstat(fd, &after) || after.st_size != st.st_size ||
      after.st_mtim.tv_sec != st.st_mtim.tv_sec || after.st_mtim.tv_nsec != st.st_mtim.tv_nsec ||
      (size_t)after.st_size != *len)) {
    free(*data);
    *data = NULL;
    *len = 0;
    rc = MAIL_EAGAIN;
  }
out:
  if(lease > 0)
    lease_give(fd);
  if(fd >= 0)
    close(fd);
  return rc;
}

int mail_maildir_ack(const char *dir, const char *name)
{
  return mail_maildir_ack_batch(dir, &(char *){(char *)name}, 1) ? MAIL_EIO : 0;
}

/* The host part of a unique name, with '/' and ':' written as the spec
 * says (\057, \072) and anything unprintable as '_'. */
static void host_part(char *dst, size_t cap)
{
  char host[256];
  size_t i;
  size_t k = 0;

  if(gethostname(host, sizeof(host)))
    host[0] = '\0';
  host[sizeof(host) - 1] = '\0';
  if(!host[0])
    memcpy(host, "localhost", 10);
  for(i = 0; host[i] && k + 5 < cap && i < 64; i++) {
    char c = host[i];
    if(c == '/' || c == ':') {
      memcpy(dst + k, c == '/' ? "\\057" : "\\072", 4);
      k += 4;
    } else if(c > 0x20 && c < 0x7f)
      dst[k++] = c;
    else
      dst[k++] = '_';
  }
  dst[k] = '\0';
}

static int write_all(int fd, const char *data, size_t len)
{
  while(len) {
    ssize_t w = write(fd, data, len);
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0)
      return MAIL_EIO;
    data += w;
    len -= (size_t)w;
  }
  return 0;
}

/* sync: the message and new/ are fsync'ed before returning (a lone
 * delivery); without it the caller syncs a whole group afterwards with
 * mail_maildir_sync. */
static int deliver(const char *dir, const char *data, size_t len, char *name_out, size_t cap,
                   bool sync)
{
  char host[300];
  char name[NAME_MAX + 1];
  char tmp[PATH_MAX];
  char dst[PATH_MAX];
  char newdir[PATH_MAX];
  int attempt;
  int fd = -1;
  bool tmp_made = false;
  bool linked = false;
  int rc = MAIL_EIO;

  if(!dir || (!data && len))
    return MAIL_EIO;
  if(len > MAIL_MAX_MESSAGE)
    return MAIL_ETOOBIG;
  host_part(host, sizeof(host));
  if(path_of(newdir, sizeof(newdir), dir, "new", NULL))
    return MAIL_EIO;
  for(attempt = 0; attempt < 3; attempt++) {
    struct timespec ts;
    int n;

    clock_gettime(CLOCK_REALTIME, &ts);
    delivery_count++;
    n = snprintf(name, sizeof(name), "%lld.M%06ldP%ld_%u.%s", (long long)ts.tv_sec,
                 (long)(ts.tv_nsec / 1000), (long)getpid(), delivery_count, host);
    if(n < 0 || (size_t)n >= sizeof(name) || (name_out && (size_t)n >= cap))
      goto out;
    if(path_of(tmp, sizeof(tmp), dir, "tmp", name) || path_of(dst, sizeof(dst), dir, "new", name))
      goto out;
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if(fd < 0 && errno == EEXIST)
      continue; /* a name in use: the next attempt has a new counter */
    if(fd < 0)
      goto out;
    tmp_made = true;
    if(write_all(fd, data, len) || (sync && fsync(fd)))
      goto out;
    if(close(fd)) {
      fd = -1;
      goto out;
    }
    fd = -1;
    if(!link(tmp, dst)) {
      linked = true;
      break;
    }
    if(errno == EPERM || errno == ENOTSUP) {
      /* A file system without hard links (the spec's fallback): the name
       * is unique, so rename cannot replace another message. */
      if(rename(tmp, dst))
        goto out;
      tmp_made = false;
      linked = true;
      break;
    }
    if(errno != EEXIST)
      goto out;
    unlink(tmp);
    tmp_made = false;
  }
  if(!linked)
    goto out;
  if(tmp_made)
    unlink(tmp);
  tmp_made = false;
  if(sync && sync_dir(newdir))
    goto out;
  if(name_out)
    memcpy(name_out, name, strlen(name) + 1);
  rc = 0;
out:
  if(fd >= 0)
    close(fd);
  if(tmp_made)
    unlink(tmp);
  /* Not reported as delivered, so not left visible either: the caller
   * will try again, and a copy here would be a duplicate. */
  if(rc && linked)
    unlink(dst);
  return rc;
}

size_t mail_maildir_ack_batch(const char *dir, char *const *names, size_t n)
{
  size_t i, failed = 0;

  /* No sync: a rename lost in a crash leaves the message in new/, and
   * the store, which keeps every message's Message-ID and digest for
   * good, knows it was processed, so the repeat is a no-op
   * (docs/architecture.md). A daemon's pass over one mail made five
   * syncs with an fsync of cur/ here; four are what the promises need:
   * the commit, each reply, and the outbox's new/. */
  for(i = 0; i < n; i++) {
    char from[PATH_MAX], to[PATH_MAX], base[NAME_MAX + 8];
    struct stat st;
    size_t k;
    if(!dir || !name_ok(names[i])) {
      failed++;
      continue;
    }
    k = strcspn(names[i], ":");
    memcpy(base, names[i], k);
    memcpy(base + k, ":2,S", 5);
    if(path_of(from, sizeof(from), dir, "new", names[i]) ||
       path_of(to, sizeof(to), dir, "cur", base) ||
       (rename(from, to) && !(errno == ENOENT && !lstat(to, &st))))
      failed++;
  }
  return failed;
}

int mail_maildir_deliver(const char *dir, const char *data, size_t len, char *name_out, size_t cap)
{
  return deliver(dir, data, len, name_out, cap, true);
}

int mail_maildir_deliver_nosync(const char *dir, const char *data, size_t len, char *name_out,
                                size_t cap)
{
  return deliver(dir, data, len, name_out, cap, false);
}

int mail_maildir_sync(const char *dir)
{
  char newdir[PATH_MAX];
  int fd, rc = 0;

  if(!dir || path_of(newdir, sizeof(newdir), dir, "new", NULL))
    return MAIL_EIO;
  fd = open(newdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if(fd < 0)
    return MAIL_EIO;
    /* One flush of the file system holding the Maildir (Linux syncfs(2))
     * covers every message written since, instead of one fsync each, and
     * the renames into new/ with them: one sync. Elsewhere
     * sync(2), which waits on the BSDs and Linux (POSIX allows it to
     * return early), then new/ itself. */
#ifdef __linux__
  if(syncfs(fd))
    rc = MAIL_EIO;
#else
  sync();
  if(!rc && fsync(fd))
    rc = MAIL_EIO;
#endif
  close(fd);
  return rc;
}

int mail_maildir_sync_folder(const char *dir)
{
  char newdir[PATH_MAX];

  if(!dir || path_of(newdir, sizeof(newdir), dir, "new", NULL) || sync_dir(newdir))
    return MAIL_EIO;
  return 0;
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

int mail_maildir_find(const char *dir, char *const *names, const size_t *lens, size_t n,
                      bool *found)
{
  char path[PATH_MAX];
  char **missing = NULL;
  size_t i, nmissing = 0;
  struct dirent *e;
  struct stat st;
  DIR *d;
  int rc = 0;

  for(i = 0; i < n; i++) {
    found[i] = false;
    if(!dir || !name_ok(names[i]) || path_of(path, sizeof(path), dir, "new", names[i]))
      return MAIL_EIO;
    found[i] = !lstat(path, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size == lens[i];
  }
  /* Then cur/, after new/: a message a reader moves from new/ to cur/
   * while we look is seen in one or the other. */
  missing = calloc(n + 1, sizeof(*missing));
  if(!missing)
    return MAIL_ENOMEM;
  for(i = 0; i < n; i++)
    if(!found[i])
      missing[nmissing++] = names[i];
  if(!nmissing)
    goto out;
  qsort(missing, nmissing, sizeof(*missing), cmp_str);
  if(path_of(path, sizeof(path), dir, "cur", NULL) || !(d = opendir(path))) {
    rc = MAIL_EIO;
    goto out;
  }
  while((e = readdir(d))) {
    char base[NAME_MAX + 1];
    const char *key = base;
    char **hit;
    size_t k = strcspn(e->d_name, ":");
    if(e->d_name[0] == '.' || k > NAME_MAX)
      continue;
    memcpy(base, e->d_name, k);
    base[k] = '\0';
    hit = bsearch(&key, missing, nmissing, sizeof(*missing), cmp_str);
    if(!hit)
      continue;
    for(i = 0; i < n; i++)
      if(!found[i] && !strcmp(names[i], base))
        found[i] = true;
  }
  closedir(d);
out:
  free(missing);
  return rc;
}

int mail_maildir_put(const char *dir, const char *name, const char *data, size_t len,
                     enum mail_sync sync,
                     bool *already)
{
  char tmp[PATH_MAX], dst[PATH_MAX], newdir[PATH_MAX];
  struct stat st;
  int fd, rc = MAIL_EIO;

  if(already)
    *already = false;
  if(!dir || !name_ok(name) || strchr(name, ':') || (!data && len))
    return MAIL_EIO;
  if(len > MAIL_MAX_MESSAGE)
    return MAIL_ETOOBIG;
  if(path_of(tmp, sizeof(tmp), dir, "tmp", name) || path_of(dst, sizeof(dst), dir, "new", name) ||
     path_of(newdir, sizeof(newdir), dir, "new", NULL))
    return MAIL_EIO;
  /* already NULL: the caller knows the name is new (a reply just
   * queued), so nothing is looked up */
  if(already && !lstat(dst, &st) && S_ISREG(st.st_mode) && (size_t)st.st_size == len) {
    *already = true;
    return 0;
  }
  /* The caller holds the message's claim, so nobody else writes this
   * name: a tmp/ file left by a crash is overwritten. */
  fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if(fd < 0)
    return MAIL_EIO;
  if(write_all(fd, data, len) || (sync != MAIL_SYNC_NONE && fdatasync(fd))) {
    close(fd);
    goto out;
  }
  if(close(fd))
    goto out;
  /* rename, not link + unlink: it also replaces a copy cut short, and the
   * name is the message's own, so nothing else can be replaced. */
  if(rename(tmp, dst))
    goto out;
  if(sync == MAIL_SYNC_ALL && sync_dir(newdir))
    return MAIL_EIO;
  return 0;
out:
  unlink(tmp);
  return rc;
}

/* ---- waiting for mail ---- */

struct mail_maildir_watch {
  int fd; /* inotify(7) */
  /* The names that arrived since the last mail_maildir_watch_take, so a
   * pass opens them instead of reading the whole of new/: a folder that
   * once held a backlog keeps its size on ext4, and listing it cost more
   * than the message. lost: the kernel's queue overflowed or
   * memory failed, so the names are not all here. */
  char **names;
  size_t n, cap;
  bool lost;
  /* Names written in new/ itself (IN_MODIFY) and not closed since
   * (IN_CLOSE_WRITE): a writer holds them open. What mail_maildir_read_in
   * goes by where it cannot ask the kernel for a lease (another user's
   * file): inotify tells of every writer, whoever it is. At most
   * WRITING_MAX; past that the modification time decides. */
  char *writing[32];
  size_t nwriting;
};

#define WRITING_MAX (sizeof(((struct mail_maildir_watch *)0)->writing) / sizeof(char *))

static size_t writing_at(const struct mail_maildir_watch *w, const char *name)
{
  size_t i;
  for(i = 0; i < w->nwriting; i++)
    if(!strcmp(w->writing[i], name))
      break;
  return i;
}

/* name is being written (on) or was closed or renamed in whole (off). */
static void writing_mark(struct mail_maildir_watch *w, const char *name, bool on)
{
  size_t i = writing_at(w, name);
  if(on && i == w->nwriting && w->nwriting < WRITING_MAX) {
    char *copy = strdup(name);
    if(copy)
      w->writing[w->nwriting++] = copy;
  } else if(!on && i < w->nwriting) {
    free(w->writing[i]);
    w->writing[i] = w->writing[--w->nwriting];
  }
}

bool mail_maildir_watch_writing(const struct mail_maildir_watch *w, const char *name)
{
  return w && name && writing_at(w, name) < w->nwriting;
}

int mail_maildir_watch_open(const char *dir, struct mail_maildir_watch **out)
{
  char newdir[PATH_MAX];
  struct mail_maildir_watch *w;
  int fd;

  *out = NULL;
  if(!dir || path_of(newdir, sizeof(newdir), dir, "new", NULL))
    return MAIL_EIO;
  fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if(fd < 0)
    return MAIL_EIO;
  /* a message appears in new/ by link(2) (IN_CREATE) or rename(2) from
   * tmp/ (IN_MOVED_TO); one written in new/ itself is whole only when its
   * writer closes it (IN_CLOSE_WRITE: mail_maildir_read left it while it
   * was open or empty); nothing else there is news */
  if(inotify_add_watch(fd, newdir,
                       IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_MODIFY | IN_ONLYDIR) < 0) {
    close(fd);
    return MAIL_EIO;
  }
  w = calloc(1, sizeof(*w));
  if(!w) {
    close(fd);
    return MAIL_EIO;
  }
  w->fd = fd;
  *out = w;
  return 0;
}

/* Keeps name for the next take (the list, once the queue overflowed). */
static void keep_name(struct mail_maildir_watch *w, const char *name)
{
  if(!name_ok(name) || w->lost)
    return;
  if(w->n == w->cap) {
    size_t ncap = w->cap ? w->cap * 2 : 16;
    char **p = realloc(w->names, ncap * sizeof(*p));
    if(!p) {
      w->lost = true;
      return;
    }
    w->names = p;
    w->cap = ncap;
  }
  if(!(w->names[w->n] = strdup(name)))
    w->lost = true;
  else
    w->n++;
}

/* Keeps the names of the events in buf (a read of the inotify fd). */
static void keep_names(struct mail_maildir_watch *w, const char *buf, size_t len)
{
  size_t off = 0;

  while(off + sizeof(struct inotify_event) <= len) {
    const struct inotify_event *e = (const void *)(buf + off);
    off += sizeof(*e) + e->len;
    if(e->mask & IN_Q_OVERFLOW) {
      w->lost = true;
      continue;
    }
    /* a directory or a dot file is no message; list_new skips them too */
    if(!e->len || (e->mask & IN_ISDIR) || !name_ok(e->name))
      continue;
    /* written in place: not whole until its writer closes it, which
     * brings the name back; renamed in: whole */
    if(e->mask & (IN_CLOSE_WRITE | IN_MOVED_TO))
      writing_mark(w, e->name, false);
    else if(e->mask & IN_MODIFY) {
      writing_mark(w, e->name, true);
      continue;
    }
    keep_name(w, e->name);
  }
}

void mail_maildir_watch_again(struct mail_maildir_watch *w, const char *name)
{
  if(w)
    keep_name(w, name);
}

int mail_maildir_watch_fd(const struct mail_maildir_watch *w)
{
  return w ? w->fd : -1;
}

int mail_maildir_watch_wait(struct mail_maildir_watch *w, int timeout_ms)
{
  struct pollfd p;
  int r;
  bool got = false;

  if(!w)
    return -1;
  p.fd = w->fd;
  p.events = POLLIN;
  p.revents = 0;
  r = poll(&p, 1, timeout_ms);
  if(r < 0)
    return errno == EINTR ? 0 : -1; /* a signal: the caller looks at why */
  if(r == 0)
    return 0;
  for(;;) { /* read them all: one pass handles every arrival so far */
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n = read(w->fd, buf, sizeof(buf));
    if(n > 0) {
      got = true;
      keep_names(w, buf, (size_t)n);
      continue;
    }
    if(n < 0 && errno == EINTR)
      continue;
    break; /* EAGAIN: drained */
  }
  return got ? 1 : 0;
}

void mail_maildir_watch_forget(struct mail_maildir_watch *w)
{
  if(!w)
    return;
  mail_names_free(w->names, w->n);
  w->names = NULL;
  w->n = w->cap = 0;
  w->lost = false;
}

int mail_maildir_watch_take(struct mail_maildir_watch *w, const char *dir, char ***names,
                            size_t *n)
{
  char path[PATH_MAX];
  size_t i, k;
  int dfd;

  *names = NULL;
  *n = 0;
  if(!w || !dir || path_of(path, sizeof(path), dir, "new", NULL))
    return MAIL_EIO;
  if(w->lost) {
    mail_maildir_watch_forget(w);
    return 1;
  }
  if(!w->n)
    return 0;
  dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if(dfd < 0)
    return MAIL_EIO;
  /* In delivery order, once each (a name linked, then renamed over, is
   * two events), and only what is still a regular file there, as
   * mail_maildir_list_new would give them. */
  qsort(w->names, w->n, sizeof(*w->names), cmp_names);
  for(i = 0, k = 0; i < w->n; i++) {
    if((k && !strcmp(w->names[k - 1], w->names[i])) || !message_at(dfd, w->names[i])) {
      free(w->names[i]);
      continue;
    }
    w->names[k++] = w->names[i];
  }
  close(dfd);
  *names = w->names;
  *n = k;
  w->names = NULL;
  w->n = w->cap = 0;
  if(!k) {
    free(*names);
    *names = NULL;
  }
  return 0;
}

void mail_maildir_watch_close(struct mail_maildir_watch *w)
{
  if(!w)
    return;
  close(w->fd);
  mail_maildir_watch_forget(w);
  while(w->nwriting)
    free(w->writing[--w->nwriting]);
  free(w);
}

/* The Maildir convention (cr.yp.to/proto/maildir.html): "a file in tmp
 * that has not been accessed in 36 hours" is left over by a writer that
 * died (a killed tabula-deliver or MTA, a crash between the write and the
 * link into new/) and is deleted. A writer still at work touches its file
 * (its modification time), so the newer of the access and modification
 * times is what counts; names starting with a dot are left alone. */
int mail_maildir_clean_tmp(const char *dir, int64_t now, int64_t idle_s, size_t *removed)
{
  char tmpdir[PATH_MAX];
  struct dirent *e;
  DIR *d;
  int dfd, rc = 0;

  *removed = 0;
  if(!dir || path_of(tmpdir, sizeof(tmpdir), dir, "tmp", NULL))
    return MAIL_EIO;
  d = opendir(tmpdir);
  if(!d)
    return errno == ENOENT ? 0 : MAIL_EIO;
  dfd = dirfd(d);
  while((e = readdir(d)) != NULL) {
    struct stat st;
    int64_t touched;
    if(e->d_name[0] == '.' || fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
       !S_ISREG(st.st_mode))
      continue;
    touched = st.st_mtime > st.st_atime ? (int64_t)st.st_mtime : (int64_t)st.st_atime;
    if(now - touched < idle_s)
      continue;
    if(unlinkat(dfd, e->d_name, 0) == 0)
      (*removed)++;
    else if(errno != ENOENT)
      rc = MAIL_EIO;
  }
  closedir(d);
  return rc;
}
