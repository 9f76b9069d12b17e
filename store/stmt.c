/*
 * stmt.c: every statement of tabula_store through one door. A statement is
 * its SQL, a name for the operator's error text, and its arguments bound by
 * a format string; it runs to its end, its rows (if any) read by a row
 * reader into a caller's array or one element. One error model: STORE_OK
 * or a negative store code, st->err already written (store_int.h).
 *
 * Why one door: the SQL engine is reached only through st->drv (driver.h),
 * here and in the row readers' store_col_* calls, so a second engine is a
 * second driver, not a change to every caller.
 */
#include "store_int.h"

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

/* A statement for sql, from the cache when one is free. Every statement
 * from it goes back through store_finish. */
static int prepare(struct store *st, struct store_stmt **stmt, const char *sql, const char *fmt,
                   const char *what)
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
  *stmt = NULL;
  rc = st->drv->prepare(st, stmt, sql, fmt, st->ncache < STORE_STMT_CACHE, what);
  if(rc) {
    *stmt = NULL;
    return rc;
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

void store_finish(struct store *st, struct store_stmt *stmt)
{
  size_t i;

  if(!stmt)
    return;
  for(i = 0; i < st->ncache; i++)
    if(st->cache[i].stmt == stmt) {
      st->drv->reset(stmt);
      st->cache[i].busy = false;
      return;
    }
  /* not cached (the cache was full when it was prepared) */
  st->drv->finalize(stmt);
}

int store_step(struct store *st, struct store_stmt *stmt, struct store_row *row,
               const char *what)
{
  int rc = st->drv->step(st, stmt, what);

  row->drv = st->drv;
  row->stmt = stmt;
  return rc;
}

/* A step expecting the end. */
static int step_done(struct store *st, struct store_stmt *stmt, const char *what)
{
  int rc = st->drv->step(st, stmt, what);

  if(rc == STORE_ROW)
    return store_fail(st, STORE_EIO, "%s: a row where none was expected", what);
  return rc;
}

int store_col_count(const struct store_row *row)
{
  return row->drv->col_count(row->stmt);
}

bool store_col_null(const struct store_row *row, int col)
{
  return row->drv->col_null(row->stmt, col);
}

int64_t store_col_int64(const struct store_row *row, int col)
{
  return row->drv->col_int64(row->stmt, col);
}

int store_col_int(const struct store_row *row, int col)
{
  return (int)row->drv->col_int64(row->stmt, col);
}

double store_col_double(const struct store_row *row, int col)
{
  return row->drv->col_double(row->stmt, col);
}

const char *store_col_text(const struct store_row *row, int col, size_t *len)
{
  return row->drv->col_text(row->stmt, col, len);
}

const void *store_col_blob(const struct store_row *row, int col, size_t *len)
{
  return row->drv->col_blob(row->stmt, col, len);
}

int store_copy_column(struct store *st, char *dst, size_t cap, const struct store_row *row,
                      int col, const char *name)
{
  size_t len = 0;
  const char *text = store_col_text(row, col, &len);

  if(!text) {
    /* NULL is either a NULL column or out of memory converting it. */
    dst[0] = '\0';
    if(!store_col_null(row, col))
      return store_fail(st, STORE_ENOMEM, "%s: out of memory", name);
    return STORE_OK;
  }
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

int store_collect(struct store *st, struct store_stmt *stmt, size_t elem, void **v, size_t *n,
                  store_row_fn read_row, const char *what)
{
  struct store_row row;
  size_t cap = *n;
  void *p;
  int rc;

  for(;;) {
    rc = store_step(st, stmt, &row, what);
    if(rc != STORE_ROW)
      return rc;
    p = store_grow(*v, &cap, *n, elem);
    if(!p)
      return store_fail(st, STORE_ENOMEM, "%s: out of memory", what);
    *v = p;
    memset((char *)p + *n * elem, 0, elem);
    (*n)++;
    rc = read_row(st, &row, (char *)p + (*n - 1) * elem);
    if(rc)
      return rc;
  }
}

/* ---- statements by format ---- */

/* Binds a fixed-size struct field as text. Refuses a field that is not
 * NUL-terminated within its size (the struct came from the caller, and
 * reading past it would be undefined). */
static int bind_field(struct store *st, struct store_stmt *stmt, int idx, const char *field,
                      size_t size, const char *name)
{
  size_t len = strnlen(field, size);

  if(len == size)
    return store_fail(st, STORE_EIO, "%s is not NUL-terminated within %zu bytes", name, size);
  return st->drv->bind_text(st, stmt, idx, field, len, name);
}

/* Binds $1.. of stmt from fmt and ap. */
static int bind_args(struct store *st, struct store_stmt *stmt, const char *what,
                     const char *fmt, va_list ap)
{
  const struct store_driver *drv = st->drv;
  int i, rc = STORE_OK;

  for(i = 0; fmt[i] && rc == STORE_OK; i++) {
    int idx = i + 1;
    switch(fmt[i]) {
    case 'i':
      rc = drv->bind_int64(st, stmt, idx, va_arg(ap, int64_t), what);
      break;
    case 't': {
      const char *text = va_arg(ap, const char *);
      rc = text ? drv->bind_text(st, stmt, idx, text, strlen(text), what)
                : drv->bind_null(st, stmt, idx, what);
      break;
    }
    case 'f': {
      const char *field = va_arg(ap, const char *);
      size_t size = va_arg(ap, size_t);
      const char *name = va_arg(ap, const char *);
      rc = bind_field(st, stmt, idx, field, size, name);
      break;
    }
    case 's': {
      const char *text = va_arg(ap, const char *);
      size_t len = va_arg(ap, size_t);
      rc = drv->bind_text(st, stmt, idx, text, len, what);
      break;
    }
    case 'b': {
      /* A NULL pointer binds SQL NULL: games.c's optional blobs
       * (snapshots, checkpoints) are NULL when absent. */
      const void *p = va_arg(ap, const void *);
      size_t len = va_arg(ap, size_t);
      rc = drv->bind_blob(st, stmt, idx, p, len, what);
      break;
    }
    case 'd':
      rc = drv->bind_double(st, stmt, idx, va_arg(ap, double), what);
      break;
    case 'n':
      rc = drv->bind_null(st, stmt, idx, what);
      break;
    default:
      rc = store_fail(st, STORE_EIO, "%s: bad bind format '%c'", what, fmt[i]);
    }
  }
  return rc;
}

/* The one place a statement is prepared and bound from a format: every
 * helper below starts here. *stmt is NULL (and finished) on failure. */
static int prepare_bound(struct store *st, struct store_stmt **stmt, const char *sql,
                         const char *what, const char *fmt, va_list ap)
{
  int rc = prepare(st, stmt, sql, fmt, what);

  if(rc == STORE_OK)
    rc = bind_args(st, *stmt, what, fmt, ap);
  if(rc) {
    store_finish(st, *stmt);
    *stmt = NULL;
  }
  return rc;
}

int store_prepare_args(struct store *st, struct store_stmt **stmt, const char *sql,
                       const char *what, const char *fmt, ...)
{
  va_list ap;
  int rc;

  va_start(ap, fmt);
  rc = prepare_bound(st, stmt, sql, what, fmt, ap);
  va_end(ap);
  return rc;
}

int store_run(struct store *st, const char *sql, const char *what, const char *fmt, ...)
{
  struct store_stmt *stmt = NULL;
  va_list ap;
  int rc;

  va_start(ap, fmt);
  rc = prepare_bound(st, &stmt, sql, what, fmt, ap);
  va_end(ap);
  if(rc == STORE_OK)
    rc = step_done(st, stmt, what);
  store_finish(st, stmt);
  return rc;
}

int store_query(struct store *st, void **v, size_t *n, size_t elem, store_row_fn read_row,
                const char *sql, const char *what, const char *fmt, ...)
{
  struct store_stmt *stmt = NULL;
  va_list ap;
  int rc;

  *v = NULL;
  *n = 0;
  va_start(ap, fmt);
  rc = prepare_bound(st, &stmt, sql, what, fmt, ap);
  va_end(ap);
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

/* The first row of a query into the zeroed *out (read_row NULL: only
 * whether there is one). */
static int query_row(struct store *st, bool *found, void *out, size_t elem,
                     store_row_fn read_row, const char *sql, const char *what, const char *fmt,
                     va_list ap)
{
  struct store_stmt *stmt = NULL;
  struct store_row row;
  int rc;

  *found = false;
  if(out)
    memset(out, 0, elem);
  rc = prepare_bound(st, &stmt, sql, what, fmt, ap);
  if(rc == STORE_OK) {
    rc = store_step(st, stmt, &row, what);
    if(rc == STORE_ROW) {
      *found = true;
      rc = read_row ? read_row(st, &row, out) : STORE_OK;
    }
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
  va_list ap;
  int rc;

  va_start(ap, fmt);
  rc = query_row(st, yes, NULL, 0, NULL, sql, what, fmt, ap);
  va_end(ap);
  return rc;
}

int store_row_int64(struct store *st, const struct store_row *src, void *row)
{
  (void)st;
  *(int64_t *)row = store_col_int64(src, 0);
  return STORE_OK;
}

/* ---- the connection (store_int.h) ---- */

int store_exec(struct store *st, const char *sql, const char *what)
{
  return st->drv->exec(st, sql, what);
}

bool store_in_tx(struct store *st)
{
  return st->drv->in_tx(st);
}

int64_t store_changes(struct store *st)
{
  return st->drv->changes(st);
}
