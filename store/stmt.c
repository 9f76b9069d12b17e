/*
 * stmt.c: every statement of tabula_store through one door. A statement is
 * its SQL, a name for the operator's error text, and its arguments bound by
 * a format string; it runs to its end, its rows (if any) read by a row
 * reader into a caller's array or one element. One error model: STORE_OK
 * or a negative store code, st->err already written (store_int.h).
 *
 * Why one door: the SQL engine is touched here and in the row readers only,
 * so a second engine (docs/architecture.md, "The store") means a second
 * version of this file and of the column reads, not of every caller.
 */
#include "store_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors, the statement cache, binds and columns (store_int.h) ---- */

int store_fail(struct store *st, int rc, const char *fmt, ...)
{
  va_list ap;

  va_start(ap, fmt);
  vsnprintf(st->err, sizeof(st->err), fmt, ap);
  va_end(ap);
  return rc;
}

static int map_sqlite_rc(int sqlite_rc)
{
  switch(sqlite_rc & 0xff) {
  case SQLITE_FULL:
    return STORE_EFULL;
  case SQLITE_OK:
  case SQLITE_DONE:
  case SQLITE_ROW:
    return STORE_OK;
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return STORE_EBUSY;
  case SQLITE_NOMEM:
    return STORE_ENOMEM;
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
    return STORE_ECORRUPT;
  default:
    return STORE_EIO;
  }
}

int store_fail_sql(struct store *st, int sqlite_rc, const char *what)
{
  int rc = map_sqlite_rc(sqlite_rc);
  int primary = sqlite_rc & 0xff;
  /* The errno of SQLite's last failed system call, meaningful only when
   * this failure is one of the file's. */
  int sys =
      st->db && (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)
          ? sqlite3_system_errno(st->db)
          : 0;
  const char *msg = st->db ? sqlite3_errmsg(st->db) : "no database";

  /* A caller may hand us SQLITE_ROW/DONE where neither was expected. */
  if(rc == STORE_OK)
    rc = STORE_EIO;
  /* SQLite says "disk I/O error" when a write of its -wal or -shm file
   * fails for want of space: the operator needs the cause. */
  if(rc == STORE_EFULL || sys == ENOSPC || sys == EDQUOT)
    return store_fail(st, STORE_EFULL, "%s: the disk is full (%s; SQLite: %s)", what,
                      strerror(sys == EDQUOT ? EDQUOT : ENOSPC), msg);
  if(sys)
    return store_fail(st, rc, "%s: %s (%s)", what, msg, strerror(sys));
  return store_fail(st, rc, "%s: %s", what, msg);
}

int store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql, const char *what)
{
  size_t i;
  int rc;

  /* The callers' SQL are string literals: the same pointer first, the
   * same text (another literal of it) only then. */
  for(i = 0; i < st->ncache; i++) {
    struct store_cached *c = &st->cache[i];
    if(!c->busy && c->sql == sql) {
      c->busy = true;
      *stmt = c->stmt;
      return STORE_OK;
    }
  }
  for(i = 0; i < st->ncache; i++) {
    struct store_cached *c = &st->cache[i];
    if(!c->busy && !strcmp(c->sql, sql)) {
      c->busy = true;
      *stmt = c->stmt;
      return STORE_OK;
    }
  }
  rc = sqlite3_prepare_v3(
      st->db, sql, -1, st->ncache < STORE_STMT_CACHE ? SQLITE_PREPARE_PERSISTENT : 0, stmt, NULL);
  if(rc != SQLITE_OK) {
    *stmt = NULL;
    return store_fail_sql(st, rc, what);
  }
  /* A statement already handed out (a nested use of the same SQL) gets a
   * second copy; both are kept while there is room. */
  if(st->ncache < STORE_STMT_CACHE) {
    st->cache[st->ncache].sql = sql;
    st->cache[st->ncache].stmt = *stmt;
    st->cache[st->ncache].busy = true;
    st->ncache++;
  }
  return STORE_OK;
}

void store_finish(struct store *st, sqlite3_stmt *stmt)
{
  size_t i;

  if(!stmt)
    return;
  for(i = 0; i < st->ncache; i++)
    if(st->cache[i].stmt == stmt) {
      sqlite3_reset(stmt);
      sqlite3_clear_bindings(stmt);
      st->cache[i].busy = false;
      return;
    }
  /* not cached (the cache was full when it was prepared) */
  sqlite3_finalize(stmt);
}

int store_step_done(struct store *st, sqlite3_stmt *stmt, const char *what)
{
  int rc = sqlite3_step(stmt);

  if(rc != SQLITE_DONE)
    return store_fail_sql(st, rc, what);
  return STORE_OK;
}

int store_bind_field(struct store *st, sqlite3_stmt *stmt, int idx, const char *field, size_t size,
                     const char *name)
{
  size_t len = strnlen(field, size);

  if(len == size)
    return store_fail(st, STORE_EIO, "%s is not NUL-terminated within %zu bytes", name, size);
  if(sqlite3_bind_text(stmt, idx, field, (int)len, SQLITE_TRANSIENT) != SQLITE_OK)
    return store_fail_sql(st, sqlite3_errcode(st->db), name);
  return STORE_OK;
}

int store_bind_text(struct store *st, sqlite3_stmt *stmt, int idx, const char *text,
                    const char *name)
{
  int rc;

  if(!text)
    rc = sqlite3_bind_null(stmt, idx);
  else
    rc = sqlite3_bind_text(stmt, idx, text, -1, SQLITE_TRANSIENT);
  if(rc != SQLITE_OK)
    return store_fail_sql(st, rc, name);
  return STORE_OK;
}

int store_bind_int64(struct store *st, sqlite3_stmt *stmt, int idx, int64_t value, const char *name)
{
  int rc = sqlite3_bind_int64(stmt, idx, (sqlite3_int64)value);

  if(rc != SQLITE_OK)
    return store_fail_sql(st, rc, name);
  return STORE_OK;
}

int store_copy_column(struct store *st, char *dst, size_t cap, sqlite3_stmt *stmt, int col,
                      const char *name)
{
  const unsigned char *text = sqlite3_column_text(stmt, col);
  size_t len;

  if(!text) {
    /* NULL is either a NULL column or out of memory converting it. */
    if(sqlite3_errcode(st->db) == SQLITE_NOMEM)
      return store_fail(st, STORE_ENOMEM, "%s: out of memory", name);
    dst[0] = '\0';
    return STORE_OK;
  }
  len = (size_t)sqlite3_column_bytes(stmt, col);
  if(len >= cap) {
    dst[0] = '\0';
    return store_fail(st, STORE_EIO, "%s holds %zu bytes, more than the %zu that fit", name, len,
                      cap - 1);
  }
  memcpy(dst, text, len);
  dst[len] = '\0';
  return STORE_OK;
}

void *store_grow(void *v, size_t *cap, size_t n, size_t elem)
{
  size_t newcap;
  void *p;

  if(n < *cap)
    return v;
  newcap = *cap ? *cap * 2 : 8;
  if(newcap > SIZE_MAX / elem)
    return NULL;
  p = realloc(v, newcap * elem);
  if(p)
    *cap = newcap;
  return p;
}

int store_collect(struct store *st, sqlite3_stmt *stmt, size_t elem, void **v, size_t *n,
                  store_row_fn read_row, const char *what)
{
  size_t cap = *n;
  void *p;
  int rc;

  for(;;) {
    rc = sqlite3_step(stmt);
    if(rc == SQLITE_DONE)
      return STORE_OK;
    if(rc != SQLITE_ROW)
      return store_fail_sql(st, rc, what);
    p = store_grow(*v, &cap, *n, elem);
    if(!p)
      return store_fail(st, STORE_ENOMEM, "%s: out of memory", what);
    *v = p;
    memset((char *)p + *n * elem, 0, elem);
    (*n)++;
    rc = read_row(st, stmt, (char *)p + (*n - 1) * elem);
    if(rc)
      return rc;
  }
}

/* ---- statements by format ---- */

/* A NULL pointer binds SQL NULL: games.c's optional blobs (snapshots,
 * checkpoints) are NULL when absent. */
static int bind_blob(struct store *st, sqlite3_stmt *stmt, int idx, const void *p, size_t len,
                     const char *what)
{
  int rc;

  if(len > (size_t)INT32_MAX)
    return store_fail(st, STORE_EIO, "%s: a blob of %zu bytes is too long", what, len);
  rc = p ? sqlite3_bind_blob(stmt, idx, p, (int)len, SQLITE_TRANSIENT)
         : sqlite3_bind_null(stmt, idx);
  if(rc != SQLITE_OK)
    return store_fail_sql(st, rc, what);
  return STORE_OK;
}

int store_bind_args(struct store *st, sqlite3_stmt *stmt, const char *what, const char *fmt,
                    va_list ap)
{
  int i, rc = STORE_OK;

  for(i = 0; fmt[i] && rc == STORE_OK; i++) {
    int idx = i + 1;
    switch(fmt[i]) {
    case 'i':
      rc = store_bind_int64(st, stmt, idx, va_arg(ap, int64_t), what);
      break;
    case 't':
      rc = store_bind_text(st, stmt, idx, va_arg(ap, const char *), what);
      break;
    case 'f': {
      const char *field = va_arg(ap, const char *);
      size_t size = va_arg(ap, size_t);
      const char *name = va_arg(ap, const char *);
      rc = store_bind_field(st, stmt, idx, field, size, name);
      break;
    }
    case 's': {
      const char *text = va_arg(ap, const char *);
      size_t len = va_arg(ap, size_t);
      int r = len > (size_t)INT32_MAX
                ? SQLITE_TOOBIG
                : sqlite3_bind_text(stmt, idx, text, (int)len, SQLITE_TRANSIENT);
      if(r != SQLITE_OK)
        rc = store_fail_sql(st, r, what);
      break;
    }
    case 'b': {
      const void *p = va_arg(ap, const void *);
      size_t len = va_arg(ap, size_t);
      rc = bind_blob(st, stmt, idx, p, len, what);
      break;
    }
    case 'd':
      if(sqlite3_bind_double(stmt, idx, va_arg(ap, double)) != SQLITE_OK)
        rc = store_fail_sql(st, sqlite3_errcode(st->db), what);
      break;
    case 'n':
      if(sqlite3_bind_null(stmt, idx) != SQLITE_OK)
        rc = store_fail_sql(st, sqlite3_errcode(st->db), what);
      break;
    default:
      rc = store_fail(st, STORE_EIO, "%s: bad bind format '%c'", what, fmt[i]);
    }
  }
  return rc;
}

int store_prepare_args(struct store *st, sqlite3_stmt **stmt, const char *sql, const char *what,
                       const char *fmt, ...)
{
  va_list ap;
  int rc = store_prepare(st, stmt, sql, what);

  if(rc == STORE_OK) {
    va_start(ap, fmt);
    rc = store_bind_args(st, *stmt, what, fmt, ap);
    va_end(ap);
  }
  if(rc) {
    store_finish(st, *stmt);
    *stmt = NULL;
  }
  return rc;
}

int store_run(struct store *st, const char *sql, const char *what, const char *fmt, ...)
{
  sqlite3_stmt *stmt = NULL;
  va_list ap;
  int rc = store_prepare(st, &stmt, sql, what);

  if(rc == STORE_OK) {
    va_start(ap, fmt);
    rc = store_bind_args(st, stmt, what, fmt, ap);
    va_end(ap);
  }
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, what);
  store_finish(st, stmt);
  return rc;
}

int store_query(struct store *st, void **v, size_t *n, size_t elem, store_row_fn read_row,
                const char *sql, const char *what, const char *fmt, ...)
{
  sqlite3_stmt *stmt = NULL;
  va_list ap;
  int rc = store_prepare(st, &stmt, sql, what);

  *v = NULL;
  *n = 0;
  if(rc == STORE_OK) {
    va_start(ap, fmt);
    rc = store_bind_args(st, stmt, what, fmt, ap);
    va_end(ap);
  }
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, elem, v, n, read_row, what);
  store_finish(st, stmt);
  if(rc) {
    free(*v);
    *v = NULL;
    *n = 0;
  }
  return rc;
}

/* The one row of a query into the zeroed *out, if there is one. */
static int query_row(struct store *st, bool *found, void *out, size_t elem,
                     store_row_fn read_row, const char *sql, const char *what, const char *fmt,
                     va_list ap)
{
  sqlite3_stmt *stmt = NULL;
  int rc = store_prepare(st, &stmt, sql, what);

  *found = false;
  memset(out, 0, elem);
  if(rc == STORE_OK)
    rc = store_bind_args(st, stmt, what, fmt, ap);
  if(rc == STORE_OK) {
    int s = sqlite3_step(stmt);
    if(s == SQLITE_ROW) {
      *found = true;
      rc = read_row(st, stmt, out);
    }
    else if(s != SQLITE_DONE)
      rc = store_fail_sql(st, s, what);
  }
  store_finish(st, stmt);
  return rc;
}

int store_query_one(struct store *st, void *out, size_t elem, store_row_fn read_row,
                    const char *sql, const char *what, const char *fmt, ...)
{
  va_list ap;
  bool found;
  int rc;

  va_start(ap, fmt);
  rc = query_row(st, &found, out, elem, read_row, sql, what, fmt, ap);
  va_end(ap);
  if(rc == STORE_OK && !found)
    rc = store_fail(st, STORE_ENOTFOUND, "%s: not found", what);
  return rc;
}

int store_query_maybe(struct store *st, bool *found, void *out, size_t elem,
                      store_row_fn read_row, const char *sql, const char *what,
                      const char *fmt, ...)
{
  va_list ap;
  int rc;

  va_start(ap, fmt);
  rc = query_row(st, found, out, elem, read_row, sql, what, fmt, ap);
  va_end(ap);
  return rc;
}

int store_query_exists(struct store *st, bool *yes, const char *sql, const char *what,
                       const char *fmt, ...)
{
  sqlite3_stmt *stmt = NULL;
  va_list ap;
  int rc = store_prepare(st, &stmt, sql, what);

  *yes = false;
  if(rc == STORE_OK) {
    va_start(ap, fmt);
    rc = store_bind_args(st, stmt, what, fmt, ap);
    va_end(ap);
  }
  if(rc == STORE_OK) {
    int s = sqlite3_step(stmt);
    if(s == SQLITE_ROW)
      *yes = true;
    else if(s != SQLITE_DONE)
      rc = store_fail_sql(st, s, what);
  }
  store_finish(st, stmt);
  return rc;
}

int store_row_int64(struct store *st, sqlite3_stmt *stmt, void *row)
{
  (void)st;
  *(int64_t *)row = sqlite3_column_int64(stmt, 0);
  return STORE_OK;
}
