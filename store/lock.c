/*
 * lock.c: processes sharing one store. Contract in store.h
 * (store_lock_daemon) and store_int.h (owners).
 *
 * Beside the database lies PATH.lock, a file of byte-range locks that the
 * kernel drops when their holder ends, however it ends (kill -9 included):
 *   byte 0        the daemon's lock: one `tabula serve` per store; the
 *                 file's text is that daemon's pid, for the message that
 *                 turns a second one away;
 *   byte 1 + T    held by the process whose outbox claims carry token T
 *                 (outbox.claim), for as long as it lives. A claim whose
 *                 byte nobody holds belongs to a process that died: its
 *                 rows are taken over (outbox.c, store_outbox_claim).
 * A store on a database server has no file to put locks beside: there the
 * driver's locks do the same (driver.h lock_take, PostgreSQL's session
 * advisory locks), numbered as the bytes above, with two differences:
 * several daemons serve one database (lock 0 is taken shared), and one
 * more lock, the tick's (STORE_LOCK_TICK), picks the one of them that
 * runs the time-driven work (store_lock_tick).
 * Open file description locks (F_OFD_*, Linux) belong to the open file,
 * not the process, so two store handles in one process exclude each other
 * as two processes do (the unit tests rely on it), and closing some other
 * descriptor of the file drops nothing. Without them, classic POSIX
 * record locks do the same between processes.
 */
#define _GNU_SOURCE /* F_OFD_SETLK, F_OFD_GETLK */
#include "store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef F_OFD_SETLK
#define LOCK_SET F_OFD_SETLK
#define LOCK_GET F_OFD_GETLK
#else
#define LOCK_SET F_SETLK
#define LOCK_GET F_GETLK
#endif

/* Tokens stay below 2^62 so that 1 + T is a valid file offset. */
#define OWNER_MASK ((INT64_C(1) << 62) - 1)

static int lock_path(struct store *st, char *buf, size_t cap)
{
  /* beside the real file, not the name given: a symlink or a `..` path
   * to the same store must find the same lock (store_int.h, real_path) */
  int n = snprintf(buf, cap, "%s.lock", st->real_path ? st->real_path : st->path);
  if(n < 0 || (size_t)n >= cap)
    return store_fail(st, STORE_EIO, "the store's path is too long for its lock file");
  return STORE_OK;
}

/* Opens PATH.lock once; created with the database's mode and, when we are
 * root (an operator's command), its owner, so the daemon can still lock it
 * afterwards (SQLite does the same for its -wal and -shm files). */
static int lock_open(struct store *st)
{
  char path[4200];
  struct stat db;
  bool have_db;
  int fd, rc;

  if(st->lock_fd >= 0)
    return STORE_OK;
  if(!st->path)
    return store_fail(st, STORE_EIO, "an in-memory store has no lock file");
  rc = lock_path(st, path, sizeof(path));
  if(rc)
    return rc;
  have_db = stat(st->real_path ? st->real_path : st->path, &db) == 0;
  fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, have_db ? (db.st_mode & 0666) : 0600);
  if(fd < 0)
    return store_fail(st, errno == ENOSPC ? STORE_EFULL : STORE_EIO, "opening %s: %s", path,
                      strerror(errno));
  if(have_db && geteuid() == 0 && (db.st_uid != 0 || db.st_gid != 0) &&
     fchown(fd, db.st_uid, db.st_gid)) {
    /* best effort: the daemon may run as root too */
  }
  st->lock_fd = fd;
  return STORE_OK;
}

static int range(int fd, int cmd, short type, off_t start, struct flock *fl)
{
  memset(fl, 0, sizeof(*fl));
  fl->l_type = type;
  fl->l_whence = SEEK_SET;
  fl->l_start = start;
  fl->l_len = 1;
  return fcntl(fd, cmd, fl);
}

int store_owner(struct store *st, int64_t *owner)
{
  struct flock fl;
  int tries, rc;

  *owner = 0;
  if(st->owner) {
    *owner = st->owner;
    return STORE_OK;
  }
  if(st->path) {
    rc = lock_open(st);
    if(rc)
      return rc;
  }
  for(tries = 0; tries < 8; tries++) {
    int64_t t = 0;
    bool got = false;
    if(getrandom(&t, sizeof(t), 0) != (ssize_t)sizeof(t))
      return store_fail(st, STORE_EIO, "no randomness for the claim token: %s",
                        strerror(errno));
    t &= OWNER_MASK;
    if(!t)
      continue;
    if(st->drv->lock_take) {
      rc = st->drv->lock_take(st, 1 + t, &got);
      if(rc)
        return rc;
      if(!got)
        continue;
      st->owner = t;
      *owner = t;
      return STORE_OK;
    }
    if(st->lock_fd < 0 || !range(st->lock_fd, LOCK_SET, F_WRLCK, (off_t)(1 + t), &fl)) {
      st->owner = t;
      *owner = t;
      return STORE_OK;
    }
    if(errno != EAGAIN && errno != EACCES)
      return store_fail(st, STORE_EIO, "locking the claim token: %s", strerror(errno));
  }
  return store_fail(st, STORE_EIO, "no free claim token");
}

bool store_owner_alive(struct store *st, int64_t owner)
{
  struct flock fl;

  if(owner == st->owner)
    return true;
  if(owner <= 0 || owner > OWNER_MASK)
    return false; /* not a token this code hands out */
  if(st->drv->lock_held) {
    bool held = true;
    /* Cannot look: say alive. Rows then wait rather than go twice. */
    if(st->drv->lock_held(st, 1 + owner, &held))
      return true;
    return held;
  }
  if(!st->path)
    return false; /* an in-memory store is this process's alone */
  /* Cannot look: say alive. Rows then wait rather than go twice. */
  if(lock_open(st) || range(st->lock_fd, LOCK_GET, F_WRLCK, (off_t)(1 + owner), &fl))
    return true;
  return fl.l_type != F_UNLCK;
}

int store_lock_daemon(struct store *st)
{
  char text[200], path[4200];
  struct flock fl;
  ssize_t got;
  int n, rc;

  if(st->drv->lock_take) {
    bool taken = false;
    rc = st->drv->lock_take(st, STORE_LOCK_DAEMON, &taken);
    if(rc == STORE_OK && !taken) {
      /* several daemons share the lock: the holder that refuses us is
       * one that serves the database alone (an older tabula) */
      const char *what = st->drv->several_daemons ? "a tabula serve that allows no other"
                                                  : "another tabula serve";
      st->drv->lock_holder(st, STORE_LOCK_DAEMON, text, sizeof(text));
      if(text[0])
        return store_fail(st, STORE_EBUSY,
                          "%s is running on this %s database (%s): stop it first", what,
                          st->drv->name, text);
      return store_fail(st, STORE_EBUSY, "%s is running on this %s database: stop it first",
                        what, st->drv->name);
    }
    return rc;
  }
  rc = lock_open(st);
  if(rc)
    return rc;
  if(range(st->lock_fd, LOCK_SET, F_WRLCK, 0, &fl)) {
    long pid = 0;
    if(errno != EAGAIN && errno != EACCES)
      return store_fail(st, STORE_EIO, "locking the store for the daemon: %s",
                        strerror(errno));
    got = pread(st->lock_fd, text, sizeof(text) - 1, 0);
    text[got > 0 ? got : 0] = '\0';
    pid = strtol(text, NULL, 10);
    lock_path(st, path, sizeof(path));
    if(pid > 0)
      return store_fail(st, STORE_EBUSY,
                        "another tabula serve (pid %ld) is running on the store %s "
                        "(lock %s): one daemon per store; stop it first",
                        pid, st->path, path);
    return store_fail(st, STORE_EBUSY,
                      "another tabula serve is running on the store %s (lock %s): one "
                      "daemon per store; stop it first",
                      st->path, path);
  }
  /* The pid is for the message above; the lock itself is what counts. */
  n = snprintf(text, sizeof(text), "%ld\n", (long)getpid());
  if(ftruncate(st->lock_fd, 0) || pwrite(st->lock_fd, text, (size_t)n, 0) != n) {
    /* a daemon without its pid on record still holds the lock */
  }
  return STORE_OK;
}

int store_lock_tick(struct store *st, bool *got)
{
  *got = true;
  if(!st->drv->lock_take)
    return STORE_OK; /* a file: its one daemon ticks (store_lock_daemon) */
  return st->drv->lock_take(st, STORE_LOCK_TICK, got);
}

bool store_several_daemons(struct store *st)
{
  return st->drv->several_daemons;
}

int store_wake_fd(struct store *st)
{
  int fd = -1;

  if(!st->drv->listen)
    return -1;
  if(st->wake_fd >= 0)
    return st->wake_fd;
  if(st->drv->listen(st, &fd) != STORE_OK)
    return -1; /* not heard: found at the next look */
  st->wake_fd = fd;
  return fd;
}

int store_woken(struct store *st, bool *any)
{
  *any = false;
  if(!st->drv->heard || st->wake_fd < 0)
    return STORE_OK;
  return st->drv->heard(st, any);
}

void store_wake_others(struct store *st)
{
  char saved[sizeof(st->err)];

  if(!st->drv->call)
    return;
  memcpy(saved, st->err, sizeof(saved));
  (void)st->drv->call(st);
  memcpy(st->err, saved, sizeof(saved));
}

void store_lock_close(struct store *st)
{
  if(st->lock_fd >= 0)
    close(st->lock_fd); /* drops every lock of this handle */
  st->lock_fd = -1;
  st->owner = 0;
}
