/*
 * history.c: what the history of games (docs/history-protocol.md) keeps in
 * the store: the tree size last mailed to each address of a game (table
 * history_sent, schema v11) and the referee's signing key. The tree itself
 * is tlog.c's. Contract in store.h.
 */
#include "store_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

int store_history_sent_get(struct store *st, int64_t *size, int64_t game, const char *address)
{
  bool found;
  int rc;

  *size = 0;
  rc = store_query_maybe(st, &found, size, sizeof(*size), store_row_int64,
                         "SELECT size FROM history_sent WHERE game = $1 AND address = $2",
                         "history_sent_get", "it", game, address);
  if(rc == STORE_OK && !found)
    *size = 0;
  return rc;
}

int store_history_sent_put(struct store *st, int64_t game, const char *address, int64_t size)
{
  return store_run(st,
                   "INSERT INTO history_sent(game, address, size) VALUES($1, $2, $3)"
                   " ON CONFLICT(game, address) DO UPDATE SET size = excluded.size",
                   "history_sent_put", "iti", game, address, size);
}

/* ---- the key ---- */

#define KEY_KV "history-key"

static const char hexd[] = "0123456789abcdef";

static void to_hex(char out[65], const uint8_t seed[32])
{
  for(int i = 0; i < 32; i++) {
    out[2 * i] = hexd[seed[i] >> 4];
    out[2 * i + 1] = hexd[seed[i] & 15];
  }
  out[64] = '\0';
}

static int from_hex(uint8_t seed[32], const char *s)
{
  for(int i = 0; i < 64; i++) {
    const char *p = s[i] ? strchr(hexd, s[i]) : NULL;
    if(!p)
      return -1;
    if(i & 1)
      seed[i / 2] |= (uint8_t)(p - hexd);
    else
      seed[i / 2] = (uint8_t)((p - hexd) << 4);
  }
  return s[64] == '\0' || s[64] == '\n' ? 0 : -1;
}

static int key_path(struct store *st, char *buf, size_t cap, int old)
{
  /* beside the real file, as lock.c's STORE.lock */
  const char *base = st->real_path ? st->real_path : st->path;
  int n = old ? snprintf(buf, cap, "%s.key.%d", base, old) : snprintf(buf, cap, "%s.key", base);
  if(n < 0 || (size_t)n >= cap)
    return store_fail(st, STORE_EIO, "the store's path is too long for its key file");
  return STORE_OK;
}

static int read_key_file(struct store *st, uint8_t seed[32], const char *path)
{
  char text[80];
  ssize_t got;
  int fd = open(path, O_RDONLY | O_CLOEXEC);

  if(fd < 0)
    return errno == ENOENT ? STORE_ENOTFOUND
                           : store_fail(st, STORE_EIO, "opening %s: %s", path, strerror(errno));
  got = read(fd, text, sizeof(text) - 1);
  close(fd);
  if(got < 64)
    return store_fail(st, STORE_ECORRUPT, "%s holds no key", path);
  text[got] = '\0';
  if(from_hex(seed, text))
    return store_fail(st, STORE_ECORRUPT, "%s holds no key", path);
  return STORE_OK;
}

/* Written whole in a file of its own (tmp), synced, then linked to its
 * name: a crash leaves no half-written key, and link's EEXIST makes two
 * first starts one key. The store file's mode cut to its owner's bits and
 * its owner, so that the key is readable by whoever may read the store and
 * nobody else (lock.c does the same for STORE.lock). */
static int write_key_file(struct store *st, const uint8_t seed[32], const char *path)
{
  char text[66], tmp[4300];
  struct stat db;
  bool have_db = stat(st->real_path ? st->real_path : st->path, &db) == 0;
  mode_t mode = have_db ? (db.st_mode & 0600) | 0400 : 0600;
  int fd, rc = STORE_OK;

  if(snprintf(tmp, sizeof(tmp), "%s.tmp%ld", path, (long)getpid()) >= (int)sizeof(tmp))
    return store_fail(st, STORE_EIO, "the store's path is too long for its key file");
  unlink(tmp);
  fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if(fd < 0)
    return store_fail(st, errno == ENOSPC ? STORE_EFULL : STORE_EIO, "creating %s: %s", tmp,
                      strerror(errno));
  if(have_db && geteuid() == 0 && (db.st_uid != 0 || db.st_gid != 0) &&
     fchown(fd, db.st_uid, db.st_gid)) {
    /* best effort, as lock.c */
  }
  to_hex(text, seed);
  text[64] = '\n';
  if(write(fd, text, 65) != 65 || fsync(fd)) {
    int e = errno;
    rc = store_fail(st, e == ENOSPC ? STORE_EFULL : STORE_EIO, "writing %s: %s", tmp,
                    strerror(e));
  }
  close(fd);
  if(rc == STORE_OK && link(tmp, path))
    rc = errno == EEXIST ? STORE_EBUSY
                         : store_fail(st, STORE_EIO, "creating %s: %s", path, strerror(errno));
  unlink(tmp);
  return rc;
}

static int fresh_seed(struct store *st, uint8_t seed[32])
{
  if(getrandom(seed, 32, 0) != 32)
    return store_fail(st, STORE_EIO, "no randomness for the referee's key: %s", strerror(errno));
  return STORE_OK;
}

int store_referee_key(struct store *st, uint8_t seed[32], bool create, bool *created)
{
  char path[4200], text[80];
  int rc;

  if(created)
    *created = false;
  if(st->path) {
    rc = key_path(st, path, sizeof(path), 0);
    if(rc)
      return rc;
    rc = read_key_file(st, seed, path);
    if(rc != STORE_ENOTFOUND || !create)
      return rc == STORE_ENOTFOUND ? store_fail(st, rc, "no referee key at %s", path) : rc;
    rc = fresh_seed(st, seed);
    if(rc)
      return rc;
    rc = write_key_file(st, seed, path);
    if(rc == STORE_EBUSY) /* another process made it first: use that one */
      return read_key_file(st, seed, path);
    if(rc == STORE_OK && created)
      *created = true;
    return rc;
  }
  rc = store_kv_get(st, text, sizeof(text), KEY_KV);
  if(rc == STORE_OK)
    return from_hex(seed, text) ? store_fail(st, STORE_ECORRUPT, "kv %s holds no key", KEY_KV)
                                : STORE_OK;
  if(rc != STORE_ENOTFOUND || !create)
    return rc;
  rc = fresh_seed(st, seed);
  if(rc)
    return rc;
  to_hex(text, seed);
  /* ON CONFLICT DO NOTHING, then read: a second daemon's first start at
   * the same moment keeps the first one's key */
  rc = store_run(st, "INSERT INTO kv(key, value) VALUES($1, $2) ON CONFLICT(key) DO NOTHING",
                 "referee_key", "tt", KEY_KV, text);
  if(rc)
    return rc;
  rc = store_kv_get(st, text, sizeof(text), KEY_KV);
  if(rc)
    return rc;
  if(from_hex(seed, text))
    return store_fail(st, STORE_ECORRUPT, "kv %s holds no key", KEY_KV);
  if(created)
    *created = true;
  return STORE_OK;
}

int store_referee_key_put(struct store *st, const uint8_t seed[32])
{
  char path[4200], text[80];
  uint8_t had[32];
  int rc;

  if(st->path) {
    rc = key_path(st, path, sizeof(path), 0);
    if(rc == STORE_OK)
      rc = write_key_file(st, seed, path);
    if(rc != STORE_EBUSY)
      return rc;
    /* a key file was there already: the same key is no harm, another
     * one would make the copy sign as a different referee */
    rc = read_key_file(st, had, path);
    if(rc == STORE_OK && memcmp(had, seed, sizeof(had)))
      rc = store_fail(st, STORE_EEXIST,
                      "%s holds another referee key; move it away and copy again", path);
    memset(had, 0, sizeof(had));
    return rc;
  }
  to_hex(text, seed);
  rc = store_run(st,
                 "INSERT INTO kv(key, value) VALUES($1, $2)"
                 " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                 "referee_key_put", "tt", KEY_KV, text);
  memset(text, 0, sizeof(text));
  return rc;
}

int store_history_seal(struct store *st, uint8_t seal[32])
{
  char text[80];
  int rc = store_kv_get(st, text, sizeof(text), "history-seal");

  if(rc == STORE_ENOTFOUND) {
    rc = fresh_seed(st, seal);
    if(rc)
      return rc;
    to_hex(text, seal);
    rc = store_run(st, "INSERT INTO kv(key, value) VALUES($1, $2) ON CONFLICT(key) DO NOTHING",
                   "history_seal", "tt", "history-seal", text);
    if(rc == STORE_OK)
      rc = store_kv_get(st, text, sizeof(text), "history-seal");
  }
  if(rc)
    return rc;
  return from_hex(seal, text) ? store_fail(st, STORE_ECORRUPT, "kv history-seal holds no key")
                              : STORE_OK;
}

int store_referee_key_rotate(struct store *st, uint8_t seed[32])
{
  char path[4200], old[4200], key[40], text[80];
  uint8_t cur[32];
  int rc, n;

  rc = fresh_seed(st, seed);
  if(rc)
    return rc;
  if(st->path) {
    rc = key_path(st, path, sizeof(path), 0);
    if(rc)
      return rc;
    for(n = 1; n < 1000; n++) {
      rc = key_path(st, old, sizeof(old), n);
      if(rc)
        return rc;
      if(access(old, F_OK))
        break;
    }
    if(rename(path, old))
      return store_fail(st, STORE_EIO, "keeping the old key as %s: %s", old, strerror(errno));
    return write_key_file(st, seed, path);
  }
  rc = store_kv_get(st, text, sizeof(text), KEY_KV);
  if(rc)
    return rc;
  if(from_hex(cur, text))
    return store_fail(st, STORE_ECORRUPT, "kv %s holds no key", KEY_KV);
  for(n = 1; n < 1000; n++) {
    char dummy[80];
    snprintf(key, sizeof(key), KEY_KV "-%d", n);
    rc = store_kv_get(st, dummy, sizeof(dummy), key);
    if(rc == STORE_ENOTFOUND)
      break;
    if(rc)
      return rc;
  }
  rc = store_kv_set(st, key, text);
  if(rc)
    return rc;
  to_hex(text, seed);
  return store_kv_set(st, KEY_KV, text);
}
