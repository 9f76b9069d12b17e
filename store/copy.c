/*
 * copy.c: moving a club's store to another engine (store_copy, store.h):
 * `tabula store copy FROM TO`, SQLite to PostgreSQL and back
 * (docs/architecture.md, "The store"; README, "Moving a club"). The shape
 * is Synapse's synapse_port_db: the old store stopped, the new one empty,
 * every table copied row for row with its ids, then checked.
 *
 * Engine-neutral: every row goes through the drivers (driver.h), read as
 * the kind of value it holds (col_kind) and written with the same kind,
 * so what one engine wrote the other reads back bit for bit (text, blobs,
 * 64-bit integers, doubles to the last bit). The ids are kept (the
 * journals, seats and matches refer to games by id, the outbox's reply
 * files are named by them): PostgreSQL's identity columns are BY DEFAULT
 * for it (schema_pg.c), and the driver moves their sequences past the
 * highest id afterwards (ids_follow).
 *
 * Both stores are opened as tabula opens any store (migrated to this
 * tabula's schema first, so their tables are the same), the daemon's lock
 * is taken on both (a daemon serving either refuses the copy: unserved), the source is read inside one transaction (a `tabula
 * deliver` waits or gives up, nothing changes under the copy), and the
 * target is written inside one: a copy that fails leaves it as empty as
 * it was. Before its commit every table's rows are counted on both sides.
 */
#include "store_int.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Every table of the schema (STORE_SCHEMA_LATEST), in an order where each
 * table comes after those its foreign keys name (schema_*.c). A table the
 * store has and this list lacks stops the copy (nothing would copy it):
 * a schema step that adds a table adds it here. */
static const char *const tables[] = {
  "players",
  "games",
  "seats",
  "journal",
  "messages",
  "outbox",
  "outbox_message",
  "dice",
  "kv",
  "clocks",
  "vacations",
  "prefs",
  "digest",
  "confirmations",
  "confirmed",
  "ratings",
  "matches",
  "match_games",
  "tournaments",
  "tournament_players",
  "tournament_games",
  "knockouts",
  "knockout_entries",
  "knockout_slots",
  "conditionals",
  "seeks",
  "resign_offers",
  "takeback_requests",
  "standing_rolls",
  "cube_answers",
  "observers",
  "private_games",
  "public_comment_games",
  "comments_off",
  "dice_protocols",
  "lag_previews",
  "hourly_counts",
  "history_sent",
};

#define NTABLES (sizeof(tables) / sizeof(tables[0]))

static_assert(NTABLES <= STORE_COPY_TABLES, "store_copy_report holds every table");

/* A statement of our own SQL text (a table's name in it), not the cache's:
 * the cache is keyed by the callers' string literals. */
static int prepare(struct store *st, struct store_stmt **stmt, const char *sql, const char *fmt,
                   const char *what)
{
  *stmt = NULL;
  return st->drv->prepare(st, stmt, sql, fmt, false, what);
}

static void finish(struct store *st, struct store_stmt *stmt)
{
  if(stmt)
    st->drv->finalize(stmt);
}

/* One number from a query without parameters. */
static int count(struct store *st, const char *sql, int64_t *n, const char *what)
{
  struct store_stmt *stmt;
  int rc = prepare(st, &stmt, sql, "", what);

  *n = 0;
  if(rc == STORE_OK) {
    rc = st->drv->step(st, stmt, what);
    if(rc == STORE_ROW) {
      *n = st->drv->col_int64(stmt, 0);
      rc = STORE_OK;
    }
    else if(rc == STORE_OK)
      rc = store_fail(st, STORE_EIO, "%s: no row", what);
  }
  finish(st, stmt);
  return rc;
}

static int table_rows(struct store *st, const char *table, int64_t *n)
{
  char sql[160], what[120];

  snprintf(sql, sizeof(sql), "SELECT count(*) FROM %s", table);
  snprintf(what, sizeof(what), "counting the rows of %s", table);
  return count(st, sql, n, what);
}

/* No daemon serves the store, and none can start until it closes: the
 * daemons' lock (lock.c's lock 0) asked first where the engine can tell
 * whether another connection holds it (on a database several daemons may
 * share it, so taking it would not refuse them), then taken. */
static int unserved(struct store *st, const char *side)
{
  bool held = false;
  int rc = st->drv->lock_held ? st->drv->lock_held(st, 0, &held) : STORE_OK;

  if(rc == STORE_OK && held)
    return store_fail(st, STORE_EBUSY,
                      "a tabula serve is running on the %s %s database: the %s is being "
                      "served; stop it first",
                      side, st->drv->name, side);
  if(rc == STORE_OK && (rc = store_lock_daemon(st)) == STORE_EBUSY)
    rc = store_fail(st, rc, "%s: the %s is being served; stop it first", st->err, side);
  return rc;
}

/* Every table the store has is one the copy knows. */
static int known_tables(struct store *st, const char *side)
{
  struct store_stmt *stmt;
  int rc = prepare(st, &stmt, st->drv->tables_sql, "", "listing the tables");
  size_t i;

  while(rc == STORE_OK && (rc = st->drv->step(st, stmt, "listing the tables")) == STORE_ROW) {
    size_t len;
    const char *name = st->drv->col_text(stmt, 0, &len);
    for(i = 0; name && i < NTABLES; i++)
      if(strlen(tables[i]) == len && !memcmp(tables[i], name, len))
        break;
    rc = STORE_OK;
    if(!name || i == NTABLES)
      rc = store_fail(st, STORE_EIO,
                      "the %s store has a table this tabula's copy does not know (%.*s): "
                      "nothing was copied",
                      side, name ? (int)len : 0, name ? name : "");
  }
  finish(st, stmt);
  return rc;
}

/* The target holds no club yet: every table empty, but for the store id a
 * new store makes itself (the copy brings the source's). */
static int target_empty(struct store *dst)
{
  size_t i;
  int64_t n;
  int rc;

  for(i = 0; i < NTABLES; i++) {
    if(!strcmp(tables[i], "kv"))
      rc = count(dst, "SELECT count(*) FROM kv WHERE key <> 'store id'", &n,
                 "counting the rows of kv");
    else
      rc = table_rows(dst, tables[i], &n);
    if(rc)
      return rc;
    if(n)
      return store_fail(dst, STORE_EEXIST,
                        "the target store is not empty (%s: %lld row(s)): a store is copied "
                        "into a new, empty one only; nothing was copied",
                        tables[i], (long long)n);
  }
  return STORE_OK;
}

/* The columns of the current row bound to the insert, value for value. */
static int bind_row(struct store *src, struct store_stmt *sel, struct store *dst,
                    struct store_stmt *ins, int ncols, const char *what)
{
  int c, rc = STORE_OK;

  for(c = 0; rc == STORE_OK && c < ncols; c++) {
    size_t len = 0;
    const void *p;
    switch(src->drv->col_kind(sel, c)) {
    case 'n':
      rc = dst->drv->bind_null(dst, ins, c + 1, what);
      break;
    case 'i':
      rc = dst->drv->bind_int64(dst, ins, c + 1, src->drv->col_int64(sel, c), what);
      break;
    case 'd':
      rc = dst->drv->bind_double(dst, ins, c + 1, src->drv->col_double(sel, c), what);
      break;
    case 'b':
      p = src->drv->col_blob(sel, c, &len);
      /* an empty blob is a blob, not NULL */
      rc = dst->drv->bind_blob(dst, ins, c + 1, p ? p : "", len, what);
      break;
    default:
      p = src->drv->col_text(sel, c, &len);
      if(!p)
        rc = store_fail(src, STORE_ENOMEM, "%s: out of memory reading a value", what);
      else
        rc = dst->drv->bind_text(dst, ins, c + 1, p, len, what);
      break;
    }
  }
  return rc;
}

/* Copies one table's rows; *rows gets their number. A failure's text is
 * in dst's error (copied there from src's when reading failed). */
static int copy_table(struct store *src, struct store *dst, const char *table, int64_t *rows)
{
  char sql[160], what[120], *ins_sql = NULL, fmt[65];
  struct store_stmt *sel = NULL, *ins = NULL, *probe = NULL;
  int rc, step, ncols, dcols, c;
  size_t len, cap;

  *rows = 0;
  snprintf(what, sizeof(what), "copying %s", table);
  snprintf(sql, sizeof(sql), "SELECT * FROM %s", table);
  rc = prepare(src, &sel, sql, "", what);
  /* the first row (or the end): the columns are known from here on */
  step = rc == STORE_OK ? src->drv->step(src, sel, what) : rc;
  if(step < 0) {
    finish(src, sel);
    return store_fail(dst, step, "%s", src->err);
  }
  ncols = src->drv->col_count(sel);
  /* The same columns on both sides: a column the target lacks would fail
   * the insert, one the source lacks would be left to its default. */
  rc = prepare(dst, &probe, sql, "", what);
  if(rc == STORE_OK && (rc = dst->drv->step(dst, probe, what)) >= 0) {
    dcols = dst->drv->col_count(probe);
    rc = STORE_OK;
    if(dcols != ncols)
      rc = store_fail(dst, STORE_EIO, "%s: %d column(s) in the source, %d in the target", what,
                      ncols, dcols);
  }
  finish(dst, probe);
  if(rc)
    goto out;
  if(ncols < 1 || ncols > (int)sizeof(fmt) - 1) {
    rc = store_fail(dst, STORE_EIO, "%s: %d columns", what, ncols);
    goto out;
  }
  /* INSERT INTO t("a", "b") VALUES($1, $2): the columns by name, so their
   * order in either engine's CREATE TABLE does not matter */
  cap = 64 + strlen(table);
  for(c = 0; c < ncols; c++)
    cap += strlen(src->drv->col_name(sel, c)) + 24;
  ins_sql = malloc(cap);
  if(!ins_sql) {
    rc = store_fail(dst, STORE_ENOMEM, "%s: out of memory", what);
    goto out;
  }
  len = (size_t)snprintf(ins_sql, cap, "INSERT INTO %s(", table);
  for(c = 0; c < ncols; c++) {
    const char *n = src->drv->col_name(sel, c);
    if(!n[0] || strchr(n, '"')) {
      rc = store_fail(dst, STORE_EIO, "%s: a column's name is not a plain word", what);
      goto out;
    }
    len += (size_t)snprintf(ins_sql + len, cap - len, "%s\"%s\"", c ? ", " : "", n);
  }
  len += (size_t)snprintf(ins_sql + len, cap - len, ") VALUES(");
  for(c = 0; c < ncols; c++)
    len += (size_t)snprintf(ins_sql + len, cap - len, "%s$%d", c ? ", " : "", c + 1);
  snprintf(ins_sql + len, cap - len, ")");
  /* Untyped parameters ('n': the engine reads each as its column's type),
   * so a value SQLite kept as text in an integer column still lands. */
  memset(fmt, 'n', (size_t)ncols);
  fmt[ncols] = '\0';
  rc = dst->drv->prepare(dst, &ins, ins_sql, fmt, true, what);
  for(; rc == STORE_OK && step == STORE_ROW; step = src->drv->step(src, sel, what)) {
    rc = bind_row(src, sel, dst, ins, ncols, what);
    if(rc == STORE_OK && (rc = dst->drv->step(dst, ins, what)) > 0)
      rc = STORE_OK;
    dst->drv->reset(ins);
    if(rc == STORE_OK)
      ++*rows;
  }
  if(rc == STORE_OK && step < 0)
    rc = store_fail(dst, step, "%s", src->err);
out:
  free(ins_sql);
  finish(dst, ins);
  finish(src, sel);
  return rc;
}

/* The failure's text for the caller, from the store it happened on. */
static int failed(struct store *st, int rc, char *errbuf, size_t errcap)
{
  if(errbuf && errcap)
    snprintf(errbuf, errcap, "%s", st->err);
  return rc;
}

int store_copy(const char *from, const char *to, struct store_copy_report *rep, char *errbuf,
               size_t errcap)
{
  struct store *src = NULL, *dst = NULL;
  int version = 0, rc;
  size_t i;

  memset(rep, 0, sizeof(*rep));
  if(errbuf && errcap)
    errbuf[0] = '\0';
  /* Never an empty store made where the source was named wrong */
  if(store_names_file(from) && access(from, F_OK)) {
    snprintf(errbuf, errcap, "no store at %s", from);
    return STORE_ENOTFOUND;
  }
  rc = store_peek_version(from, &version, errbuf, errcap);
  if(rc)
    return rc;
  if(version == 0) {
    char name[600];
    store_display_name(from, name, sizeof(name));
    snprintf(errbuf, errcap, "no store in %s", name);
    return STORE_ENOTFOUND;
  }
  rc = store_open(&src, from, errbuf, errcap);
  if(rc)
    return rc;
  rc = unserved(src, "source");
  if(rc == STORE_OK)
    rc = known_tables(src, "source");
  if(rc) {
    failed(src, rc, errbuf, errcap);
    store_close(src);
    return rc;
  }
  rc = store_open(&dst, to, errbuf, errcap);
  if(rc) {
    store_close(src);
    return rc;
  }
  rc = unserved(dst, "target");
  if(rc == STORE_OK)
    rc = known_tables(dst, "target");
  if(rc == STORE_OK)
    rc = target_empty(dst);
  if(rc)
    goto out;
  /* one snapshot of the source: nothing writes to it during the copy */
  rc = src->drv->begin(src, "reading the source");
  if(rc) {
    failed(src, rc, errbuf, errcap);
    goto close;
  }
  rc = dst->drv->begin(dst, "writing the target");
  if(rc == STORE_OK)
    rc = store_exec(dst, "DELETE FROM kv", "making room for the source's store id");
  for(i = 0; rc == STORE_OK && i < NTABLES; i++) {
    snprintf(rep->tables[i].name, sizeof(rep->tables[i].name), "%s", tables[i]);
    rc = copy_table(src, dst, tables[i], &rep->tables[i].rows);
    if(rc == STORE_OK && dst->drv->ids_follow)
      rc = dst->drv->ids_follow(dst, tables[i]);
    rep->ntables = i + 1;
    rep->rows += rep->tables[i].rows;
  }
  /* Counted again on both sides before the commit, each inside its
   * transaction: the source's snapshot against what the target holds */
  for(i = 0; rc == STORE_OK && i < NTABLES; i++) {
    int64_t a, b;
    rc = table_rows(src, tables[i], &a);
    if(rc) {
      rc = store_fail(dst, rc, "%s", src->err);
      break;
    }
    rc = table_rows(dst, tables[i], &b);
    if(rc == STORE_OK && (a != b || b != rep->tables[i].rows))
      rc = store_fail(dst, STORE_ECORRUPT,
                      "%s: %lld row(s) in the source, %lld copied, %lld in the target",
                      tables[i], (long long)a, (long long)rep->tables[i].rows, (long long)b);
  }
  /* The referee's key goes with the club (docs/history-protocol.md, "The
   * referee's key"): else the copy would make a new key at its first mail
   * and sign the running games as a referee the players do not know. It
   * lives outside the tables (STORE.key beside a file store), so it is
   * read and written by the store's own functions, either engine. Written
   * before the commit: a key that cannot be written fails the copy. */
  if(rc == STORE_OK) {
    uint8_t seed[32];
    int k = store_referee_key(src, seed, false, NULL);
    if(k == STORE_OK) {
      rc = store_referee_key_put(dst, seed);
      rep->key = rc == STORE_OK;
    }
    else if(k != STORE_ENOTFOUND)
      rc = store_fail(dst, k, "reading the source's referee key: %s", src->err);
    memset(seed, 0, sizeof(seed));
  }
  if(rc == STORE_OK)
    rc = store_exec(dst, "COMMIT", "committing the copy");
  if(rc && store_in_tx(dst)) {
    char saved[sizeof(dst->err)];
    memcpy(saved, dst->err, sizeof(saved));
    if(store_exec(dst, "ROLLBACK", "undoing the copy") != STORE_OK) {
      /* the first failure is the one to report */
    }
    memcpy(dst->err, saved, sizeof(saved));
  }
  if(store_in_tx(src) && store_exec(src, "ROLLBACK", "ending the read") != STORE_OK && !rc) {
    /* only read: nothing to lose */
  }
out:
  if(rc)
    failed(dst, rc, errbuf, errcap);
close:
  store_close(dst);
  store_close(src);
  return rc;
}
