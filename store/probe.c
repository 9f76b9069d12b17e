/*
 * probe.c: is a daemon serving this store? Read from outside the store,
 * without opening the database: the one question `tabula-deliver` asks
 * before it leaves a mail in the inbox for that daemon.
 *
 * The answer is byte 0 of PATH.lock (lock.c: the daemon holds it for as
 * long as it lives, and the kernel drops it however it ends). This file
 * uses nothing but the C library, so a program that only needs the probe
 * links no SQLite.
 */
#define _GNU_SOURCE /* F_OFD_GETLK */
#include "store.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef F_OFD_GETLK
#define PROBE_GET F_OFD_GETLK
#else
#define PROBE_GET F_GETLK
#endif

bool store_daemon_running(const char *db_path)
{
  char path[4200], real[PATH_MAX];
  struct flock fl;
  int fd, n;
  bool held;

  if(!db_path)
    return false;
  /* The lock lies beside the real file (lock.c, store_int.h real_path):
   * the store named through a symlink or a `..` path is the same store.
   * A name that resolves to nothing names a store no daemon has made. */
  if(!realpath(db_path, real))
    return false;
  n = snprintf(path, sizeof(path), "%s.lock", real);
  if(n < 0 || (size_t)n >= sizeof(path))
    return false;
  fd = open(path, O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return false; /* no lock file: no daemon has ever served this store */
  /* F_GETLK asks whether a write lock could be taken; it takes nothing,
   * so a read-only descriptor is enough and the daemon is not disturbed */
  memset(&fl, 0, sizeof(fl));
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  fl.l_start = 0;
  fl.l_len = 1;
  held = fcntl(fd, PROBE_GET, &fl) == 0 && fl.l_type != F_UNLCK;
  close(fd);
  return held;
}
