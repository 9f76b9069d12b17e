/*
 * driver_sqlite.c: the SQLite driver of tabula_store (driver.h), the
 * embedded default: one file in WAL mode, one daemon per file (lock.c).
 * The only file of the store besides schema_sqlite.c (its SQL) that names
 * SQLite.
 *
 * Durability matters more than speed here (a referee handles a few mails a
 * minute), hence synchronous=FULL: a move the player was told about must
 * survive a power cut, and WAL+NORMAL may lose the last commits
 * (docs/architecture.md "The store").
 *
 * The schema's version lives in PRAGMA user_version.
 */
#include "store_int.h"

#include "base.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a process waits for another's write transaction: a daemon's
 * batch of batch_max mails can take seconds on a slow machine, and a
 * `deliver` run by an MTA beside it should wait rather than defer the mail;
 * bounded, so nothing waits forever. */
#define BUSY_TIMEOUT_MS 15000

#define CHECKPOINT_PAGES 1000 /* SQLite's own wal_autocheckpoint */

struct sqlite_conn {
  sqlite3 *db;
  int wal_pages; /* store_checkpoint_later: the WAL's length after the last commit */
};

static sqlite3 *db_of(struct store *st)
{
  struct sqlite_conn *c = st->conn;
  return c ? c->db : NULL;
}

#define STMT(s) ((sqlite3_stmt *)(s))

/* ---- errors ---- */

static int map_rc(int sqlite_rc)
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

/* Maps an SQLite result code to a store code and sets st->err to
 * "<what>: <sqlite message>". */
static int fail_sql(struct store *st, int sqlite_rc, const char *what)
{
  sqlite3 *db = db_of(st);
  int rc = map_rc(sqlite_rc);
  int primary = sqlite_rc & 0xff;
  /* The errno of SQLite's last failed system call, meaningful only when
   * this failure is one of the file's. */
  int sys = db && (primary == SQLITE_IOERR || primary == SQLITE_FULL || primary == SQLITE_CANTOPEN)
                ? sqlite3_system_errno(db)
                : 0;
  const char *msg = db ? sqlite3_errmsg(db) : "no database";

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

/* ---- statements ---- */

static int sq_exec(struct store *st, const char *sql, const char *what)
{
  int rc = sqlite3_exec(db_of(st), sql, NULL, NULL, NULL);

  if(rc != SQLITE_OK)
    return fail_sql(st, rc, what);
  return STORE_OK;
}

/* Whether parameter i of s is named $i (or ?i). SQLite numbers a named
 * parameter ($1) by its first appearance, PostgreSQL by its digits: the two
 * agree only when the statement uses $1, $2, ... each first in that order
 * and none is skipped (the store's SQL, store_int.h). Checked once per
 * prepare, so a statement that would bind the wrong values on one engine
 * fails on both. */
static bool param_numbered(sqlite3_stmt *s, int i)
{
  const char *name = sqlite3_bind_parameter_name(s, i);
  char *end;

  return name && (name[0] == '$' || name[0] == '?') && strtol(name + 1, &end, 10) == i && !*end;
}

static int sq_prepare(struct store *st, struct store_stmt **stmt, const char *sql,
                      const char *fmt, bool keep, const char *what)
{
  (void)fmt; /* SQLite types values, not parameters */
  sqlite3_stmt *s = NULL;
  int rc = sqlite3_prepare_v3(db_of(st), sql, -1, keep ? SQLITE_PREPARE_PERSISTENT : 0, &s, NULL);
  int i, n;

  if(rc != SQLITE_OK)
    return fail_sql(st, rc, what);
  n = sqlite3_bind_parameter_count(s);
  for(i = 1; i <= n; i++)
    if(!param_numbered(s, i)) {
      sqlite3_finalize(s);
      return store_fail(st, STORE_EIO, "%s: parameter %d is not named $%d", what, i, i);
    }
  *stmt = (struct store_stmt *)s;
  return STORE_OK;
}

static int bound(struct store *st, int rc, const char *what)
{
  return rc == SQLITE_OK ? STORE_OK : fail_sql(st, rc, what);
}

static int sq_bind_int64(struct store *st, struct store_stmt *stmt, int idx, int64_t v,
                         const char *what)
{
  return bound(st, sqlite3_bind_int64(STMT(stmt), idx, (sqlite3_int64)v), what);
}

static int sq_bind_double(struct store *st, struct store_stmt *stmt, int idx, double v,
                          const char *what)
{
  return bound(st, sqlite3_bind_double(STMT(stmt), idx, v), what);
}

static int sq_bind_text(struct store *st, struct store_stmt *stmt, int idx, const char *p,
                        size_t len, const char *what)
{
  if(len > (size_t)INT32_MAX)
    return store_fail(st, STORE_EIO, "%s: a text of %zu bytes is too long", what, len);
  return bound(st, sqlite3_bind_text(STMT(stmt), idx, p, (int)len, SQLITE_TRANSIENT), what);
}

static int sq_bind_blob(struct store *st, struct store_stmt *stmt, int idx, const void *p,
                        size_t len, const char *what)
{
  if(len > (size_t)INT32_MAX)
    return store_fail(st, STORE_EIO, "%s: a blob of %zu bytes is too long", what, len);
  if(!p)
    return bound(st, sqlite3_bind_null(STMT(stmt), idx), what);
  return bound(st, sqlite3_bind_blob(STMT(stmt), idx, p, (int)len, SQLITE_TRANSIENT), what);
}

static int sq_bind_null(struct store *st, struct store_stmt *stmt, int idx, const char *what)
{
  return bound(st, sqlite3_bind_null(STMT(stmt), idx), what);
}

static int sq_step(struct store *st, struct store_stmt *stmt, const char *what)
{
  int rc = sqlite3_step(STMT(stmt));

  if(rc == SQLITE_ROW)
    return STORE_ROW;
  if(rc == SQLITE_DONE)
    return STORE_OK;
  return fail_sql(st, rc, what);
}

static void sq_reset(struct store_stmt *stmt)
{
  sqlite3_reset(STMT(stmt));
  sqlite3_clear_bindings(STMT(stmt));
}

static void sq_finalize(struct store_stmt *stmt)
{
  sqlite3_finalize(STMT(stmt));
}

static int sq_col_count(struct store_stmt *stmt)
{
  return sqlite3_column_count(STMT(stmt));
}

static bool sq_col_null(struct store_stmt *stmt, int col)
{
  return sqlite3_column_type(STMT(stmt), col) == SQLITE_NULL;
}

static int64_t sq_col_int64(struct store_stmt *stmt, int col)
{
  return sqlite3_column_int64(STMT(stmt), col);
}

static double sq_col_double(struct store_stmt *stmt, int col)
{
  return sqlite3_column_double(STMT(stmt), col);
}

static const char *sq_col_text(struct store_stmt *stmt, int col, size_t *len)
{
  const char *text = (const char *)sqlite3_column_text(STMT(stmt), col);

  *len = text ? (size_t)sqlite3_column_bytes(STMT(stmt), col) : 0;
  return text;
}

static const char *sq_col_name(struct store_stmt *stmt, int col)
{
  return sqlite3_column_name(STMT(stmt), col);
}

static char sq_col_kind(struct store_stmt *stmt, int col)
{
  switch(sqlite3_column_type(STMT(stmt), col)) {
  case SQLITE_INTEGER: return 'i';
  case SQLITE_FLOAT: return 'd';
  case SQLITE_BLOB: return 'b';
  case SQLITE_NULL: return 'n';
  default: return 't';
  }
}

static const void *sq_col_blob(struct store_stmt *stmt, int col, size_t *len)
{
  const void *p = sqlite3_column_blob(STMT(stmt), col);
  int n = sqlite3_column_bytes(STMT(stmt), col);

  *len = p && n > 0 ? (size_t)n : 0;
  return p;
}

/* ---- the connection's state ---- */

static bool sq_in_tx(struct store *st)
{
  return !sqlite3_get_autocommit(db_of(st));
}

static int64_t sq_changes(struct store *st)
{
  return sqlite3_changes(db_of(st));
}

/* The write lock at once; from the cache (store_run): a message runs it. */
static int sq_begin(struct store *st, const char *what)
{
  return store_run(st, "BEGIN IMMEDIATE", what, "");
}

/* ---- the schema ---- */

static int sq_schema_version(struct store *st, int *version)
{
  struct store_stmt *stmt = NULL;
  struct store_row row;
  int rc = store_prepare_args(st, &stmt, "PRAGMA user_version", "reading the schema version", "");

  if(rc == STORE_OK) {
    rc = store_step(st, stmt, &row, "reading the schema version");
    if(rc == STORE_ROW) {
      *version = store_col_int(&row, 0);
      rc = STORE_OK;
    } else if(rc == STORE_OK)
      rc = store_fail(st, STORE_EIO, "reading the schema version: no row");
  }
  store_finish(st, stmt);
  return rc;
}

static int sq_set_schema_version(struct store *st, int version)
{
  char pragma[48];

  /* PRAGMA takes no bound parameters; the number comes from the store's
   * own list of versions, never from outside. */
  snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", version);
  return sq_exec(st, pragma, "recording the schema version");
}

/* ---- the connection ---- */

static bool sq_claims(const char *target)
{
  (void)target;
  return true; /* a file name, ":memory:" or an SQLite "file:" URI */
}

static int sq_open(struct store *st, const char *target)
{
  struct sqlite_conn *c = calloc(1, sizeof(*c));
  int rc;

  if(!c)
    return store_fail(st, STORE_ENOMEM, "out of memory");
  st->conn = c;
  /* lock.c's PATH.lock lies beside a real file only */
  if(target[0] && strcmp(target, ":memory:") && strncmp(target, "file:", 5) &&
     !(st->path = strdup(target)))
    return store_fail(st, STORE_ENOMEM, "out of memory");
  /* One thread per connection (the store is single-threaded): no mutex
   * calls, ~900 of them a move before. */
  rc = sqlite3_open_v2(target, &c->db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if(rc != SQLITE_OK)
    return fail_sql(st, rc, "opening the database");
  if(st->path) {
    /* SQLite's full name of the file: symlinks (also one whose target it
     * just created) and `..` resolved, as it names the -wal and -shm */
    const char *real = sqlite3_db_filename(c->db, "main");
    if(!(st->real_path = strdup(real && real[0] ? real : st->path)))
      return store_fail(st, STORE_ENOMEM, "out of memory");
  }
  sqlite3_extended_result_codes(c->db, 1);
  sqlite3_busy_timeout(c->db, BUSY_TIMEOUT_MS);
  return STORE_OK;
}

/* Reads back a one-row PRAGMA as text into buf. */
static int pragma_text(struct store *st, char *buf, size_t cap, const char *sql)
{
  struct store_stmt *stmt = NULL;
  struct store_row row;
  int rc = store_prepare_args(st, &stmt, sql, "setting up the connection", "");

  if(rc == STORE_OK) {
    rc = store_step(st, stmt, &row, "setting up the connection");
    if(rc == STORE_ROW)
      rc = store_copy_column(st, buf, cap, &row, 0, "pragma result");
    else if(rc == STORE_OK)
      rc = store_fail(st, STORE_EIO, "setting up the connection: %s gave no row", sql);
  }
  store_finish(st, stmt);
  return rc;
}

static int sq_configure(struct store *st)
{
  sqlite3 *db = db_of(st);
  char value[32];
  int rc;

  /* Defensive mode: no writable_schema tricks through this connection. */
  sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);

  rc = sq_exec(st, "PRAGMA foreign_keys = ON", "enabling foreign keys");
  if(rc == STORE_OK)
    rc = pragma_text(st, value, sizeof(value), "PRAGMA foreign_keys");
  if(rc)
    return rc;
  if(strcmp(value, "1"))
    return store_fail(st, STORE_EIO, "this SQLite cannot enforce foreign keys");

  rc = pragma_text(st, value, sizeof(value), "PRAGMA journal_mode = WAL");
  if(rc)
    return rc;
  /* An in-memory database (tests) reports "memory" and has nothing to
   * protect; a file that stays in rollback mode would break the durability
   * and concurrency the service counts on. */
  if(strcmp(value, "wal") && strcmp(value, "memory"))
    return store_fail(st, STORE_EIO, "cannot switch the database to WAL mode (got %s)", value);

  rc = sq_exec(st, "PRAGMA synchronous = FULL", "setting synchronous=FULL");
  if(rc)
    return rc;
  /* The WAL and its index stay beside the database between processes:
   * each `deliver` used to create db-wal and db-shm and unlink
   * both at its close, ~0.75 ms of a 10 ms deliver in the kernel (a new
   * inode each, the WAL's blocks freed). The close still checkpoints
   * everything into the database file, durably, and then, because
   * journal_size_limit is set, truncates the WAL to 0 bytes: a copy of the
   * database file alone still holds every move, and no frame is left
   * behind. The syncs are the same (daemon.c). SQLite gives both files
   * the database file's owner and mode, as before. The limit also shrinks
   * a WAL a long batch grew, at the daemon's next checkpoint. An in-memory
   * database has no file: the file control says SQLITE_NOTFOUND. */
  {
    int one = 1;
    (void)sqlite3_file_control(db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
  }
  rc = sq_exec(st, "PRAGMA journal_size_limit = 16777216", "limiting the WAL");
  if(rc)
    return rc;
  /* A batch (store_batch_begin) holds hundreds of messages, each in a
   * savepoint: keep savepoint journals in memory and give the page cache
   * room for a whole batch, so pages are written once, at the commit,
   * instead of spilled and re-journaled. Durability is unchanged. A batch
   * of 256 moves dirties about 1,500 pages (6 MiB) on a store of a million
   * games; 8 MiB holds it, and keeps the daemon small (64 MiB
   * made it 83 MB). */
  return sq_exec(st, "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -8192",
                 "sizing the page cache");
}

static void sq_close(struct store *st)
{
  struct sqlite_conn *c = st->conn;

  if(!c)
    return;
  /* Every statement was finalized by the store before this, so plain close
   * succeeds; an open transaction is rolled back by SQLite. */
  sqlite3_close(c->db);
  free(c);
  st->conn = NULL;
}

/* ---- durability and upkeep ---- */

/* synchronous=NORMAL for a lazy batch and back to FULL after it (SQLite
 * takes the setting only outside a transaction). */
static int sq_lazy(struct store *st, bool on)
{
  if(on)
    return sq_exec(st, "PRAGMA synchronous = NORMAL", "lazy batch");
  if(!sqlite3_get_autocommit(db_of(st)))
    return STORE_OK;
  return sq_exec(st, "PRAGMA synchronous = FULL", "lazy batch: back to synchronous=FULL");
}

/* In place of SQLite's automatic checkpoint: only notes the WAL's length. */
static int wal_noted(void *arg, sqlite3 *db, const char *name, int pages)
{
  struct sqlite_conn *c = arg;
  (void)db;
  (void)name;
  c->wal_pages = pages;
  return SQLITE_OK;
}

static void sq_checkpoint_later(struct store *st)
{
  struct sqlite_conn *c = st->conn;

  sqlite3_wal_hook(c->db, wal_noted, c);
}

static int sq_checkpoint_idle(struct store *st)
{
  struct sqlite_conn *c = st->conn;
  int rc;

  if(c->wal_pages < CHECKPOINT_PAGES || st->batch || !sqlite3_get_autocommit(c->db))
    return STORE_OK;
  rc = sqlite3_wal_checkpoint_v2(c->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
  if(rc != SQLITE_OK && rc != SQLITE_BUSY)
    return fail_sql(st, rc, "checkpointing the WAL");
  c->wal_pages = 0; /* the next commit says how long the WAL is now */
  return STORE_OK;
}

/* The ceiling of the integrity check's text: SQLite stops at 100
 * problems a check, each line under 800 bytes, and a store has a few dozen
 * tables. */
#define INTEGRITY_TEXT_MAX (16u * 1024u * 1024u)

/* The rows of an integrity_check that are not "ok", after prefix; returns
 * the SQLite code that ended it (SQLITE_DONE when it ran through). */
static int integrity_rows(sqlite3 *db, const char *sql, const char *prefix, struct base_buf *l)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(db, sql, -1, &stmt, NULL);

  while(rc == SQLITE_OK || rc == SQLITE_ROW) {
    const char *line;
    rc = sqlite3_step(stmt);
    if(rc != SQLITE_ROW)
      break;
    line = (const char *)sqlite3_column_text(stmt, 0);
    /* a row may hold several lines, headed "*** in database main ***" */
    while(line && *line && strcmp(line, "ok")) {
      const char *nl = strchr(line, '\n');
      size_t n = nl ? (size_t)(nl - line) : strlen(line);
      char one[600];
      snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), line);
      if(strncmp(one, "*** in database", 15) && base_buf_printf(l, "%s%s\n", prefix, one))
        break; /* the error sticks in l: sq_integrity_check reports it */
      line = nl ? nl + 1 : NULL;
    }
  }
  sqlite3_finalize(stmt);
  return rc;
}

static int sq_integrity_check(struct store *st, char **problems)
{
  sqlite3 *db = db_of(st);
  struct base_buf l;
  sqlite3_stmt *stmt = NULL;
  int rc;

  *problems = NULL;
  base_buf_init(&l, INTEGRITY_TEXT_MAX);
  rc = integrity_rows(db, "PRAGMA integrity_check(100)", "", &l);
  if(rc != SQLITE_DONE) {
    base_buf_reset(&l); /* partial: the tables one by one say it better */
    /* The check itself stumbled on a damaged page: check each table with
     * its indexes alone (SQLite 3.33+), so the operator learns which. */
    rc = sqlite3_prepare_v2(db, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
                            -1, &stmt, NULL);
    while(rc == SQLITE_OK || rc == SQLITE_ROW) {
      char sql[200], prefix[160];
      const char *name;
      rc = sqlite3_step(stmt);
      if(rc != SQLITE_ROW)
        break;
      name = (const char *)sqlite3_column_text(stmt, 0);
      /* names come from our own schema: plain words, no quotes */
      if(!name || strlen(name) > 100 || strchr(name, '"'))
        continue;
      snprintf(sql, sizeof(sql), "PRAGMA integrity_check(\"%s\")", name);
      snprintf(prefix, sizeof(prefix), "table %s: ", name);
      if(integrity_rows(db, sql, prefix, &l) != SQLITE_DONE && /* its pages cannot be walked */
         base_buf_printf(&l, "%s%s\n", prefix, sqlite3_errmsg(db)))
        continue; /* the error sticks in l: reported below */
    }
    if(rc != SQLITE_DONE) {
      rc = fail_sql(st, rc, "integrity check: reading the schema");
      sqlite3_finalize(stmt);
      base_buf_free(&l);
      return rc;
    }
    sqlite3_finalize(stmt);
  }
  if(l.len)
    l.s[--l.len] = '\0'; /* no newline after the last line */
  *problems = base_buf_take(&l);
  if(!*problems)
    return store_fail(st, STORE_ENOMEM,
                      base_buf_err(&l) == BASE_BUF_ETOOBIG
                        ? "integrity check: too many problems to list"
                        : "integrity check: out of memory");
  return STORE_OK;
}

const struct store_driver store_driver_sqlite = {
    .name = "SQLite",
    .claims = sq_claims,
    .open = sq_open,
    .configure = sq_configure,
    .close = sq_close,
    .exec = sq_exec,
    .prepare = sq_prepare,
    .bind_int64 = sq_bind_int64,
    .bind_double = sq_bind_double,
    .bind_text = sq_bind_text,
    .bind_blob = sq_bind_blob,
    .bind_null = sq_bind_null,
    .step = sq_step,
    .reset = sq_reset,
    .finalize = sq_finalize,
    .col_count = sq_col_count,
    .col_null = sq_col_null,
    .col_int64 = sq_col_int64,
    .col_double = sq_col_double,
    .col_text = sq_col_text,
    .col_blob = sq_col_blob,
    .col_name = sq_col_name,
    .col_kind = sq_col_kind,
    .in_tx = sq_in_tx,
    .changes = sq_changes,
  .begin = sq_begin,
    .schema_version = sq_schema_version,
    .set_schema_version = sq_set_schema_version,
    .migrations = store_sqlite_migrations,
      .lazy = sq_lazy,
    .checkpoint_later = sq_checkpoint_later,
    .checkpoint_idle = sq_checkpoint_idle,
    .integrity_check = sq_integrity_check,
    .tables_sql = "SELECT name FROM sqlite_schema WHERE type = 'table'"
                  " AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    .ids_follow = NULL,
};
