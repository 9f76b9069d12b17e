/*
 * driver.h: the engine under tabula_store, one driver per SQL engine
 * (docs/architecture.md, "The store"). Internal to store/, included
 * through store_int.h; only a driver's own files name its engine's library.
 *
 * The shape is Dovecot lib-sql's (struct sql_db_vfuncs): one table of
 * functions per engine, chosen once when the store opens, and everything
 * above it (stmt.c's one door for statements, store.c's transactions and
 * migrations, the files of each table) written once. What differs between
 * engines is either a function here or SQL in the driver's own schema file
 * (the migrations, the words that begin a write transaction), never a
 * string rewritten at run time: the statements of the table files are
 * written in the SQL both engines read (docs/architecture.md lists what
 * that excludes).
 *
 * Every function that can fail returns STORE_OK or a negative store code
 * with st->err written ("<what>: <the engine's message>"), as the rest of
 * the store does (store_int.h).
 */
#ifndef TABULA_STORE_DRIVER_H
#define TABULA_STORE_DRIVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct store;
/* A driver's prepared statement; only the driver sees inside. */
struct store_stmt;

/* The newest schema version: every driver's migrations run 1..this. */
#define STORE_SCHEMA_LATEST 13

/* lock.c's locks (lock_take below): the daemons' and the tick's. */
#define STORE_LOCK_DAEMON 0
#define STORE_LOCK_TICK (-1)

/* store_step: a row is there to read (STORE_OK, 0: the statement is done). */
#define STORE_ROW 1

struct store_driver {
  const char *name; /* for messages: "SQLite" */
  /* Whether the store named `target` (store_path) is this driver's. The
   * drivers are asked in order (store.c); the last takes any name. */
  bool (*claims)(const char *target);
  /* The store's name for messages and logs, without what must not be
   * shown (a password someone put in it); NULL: the name itself. */
  void (*display)(const char *target, char *buf, size_t cap);

  /* ---- the connection ---- */
  /* Connects to target and sets st->conn; nothing in the database is
   * written or checked yet (the schema's version is read next, so that a
   * newer database is refused untouched). A file driver also sets
   * st->real_path. On failure st->conn may be set: close frees it. */
  int (*open)(struct store *st, const char *target);
  /* The connection's settings for serving (durability, caches, the
   * engine's checks), after the version check, before migrations. */
  int (*configure)(struct store *st);
  /* Frees st->conn (NULL is fine); an open transaction is rolled back. */
  void (*close)(struct store *st);

  /* ---- statements ---- */
  /* Runs one or more statements without parameters or rows (migrations,
   * the transaction words). */
  int (*exec)(struct store *st, const char *sql, const char *what);
  /* Prepares sql; `keep` says it will be cached and reused (stmt.c).
   * fmt is the bind format of its first use (store_int.h: one letter a
   * parameter), for an engine that types parameters when it prepares. */
  int (*prepare)(struct store *st, struct store_stmt **stmt, const char *sql, const char *fmt,
                 bool keep, const char *what);
  /* Binds parameter idx (1-based); text and blobs are copied. A NULL blob
   * pointer binds SQL NULL. */
  int (*bind_int64)(struct store *st, struct store_stmt *stmt, int idx, int64_t v,
                    const char *what);
  int (*bind_double)(struct store *st, struct store_stmt *stmt, int idx, double v,
                     const char *what);
  int (*bind_text)(struct store *st, struct store_stmt *stmt, int idx, const char *p, size_t len,
                   const char *what);
  int (*bind_blob)(struct store *st, struct store_stmt *stmt, int idx, const void *p, size_t len,
                   const char *what);
  int (*bind_null)(struct store *st, struct store_stmt *stmt, int idx, const char *what);
  /* STORE_ROW, STORE_OK at the end, or a failure. */
  int (*step)(struct store *st, struct store_stmt *stmt, const char *what);
  /* Back to before the first step, bindings cleared, for reuse. */
  void (*reset)(struct store_stmt *stmt);
  void (*finalize)(struct store_stmt *stmt);

  /* ---- the current row (store_col_* in store_int.h) ---- */
  int (*col_count)(struct store_stmt *stmt);
  bool (*col_null)(struct store_stmt *stmt, int col);
  int64_t (*col_int64)(struct store_stmt *stmt, int col);
  double (*col_double)(struct store_stmt *stmt, int col);
  /* NULL for SQL NULL, and when the engine ran out of memory converting a
   * value (col_null then says false). */
  const char *(*col_text)(struct store_stmt *stmt, int col, size_t *len);
  const void *(*col_blob)(struct store_stmt *stmt, int col, size_t *len);
  /* The column's name, and the kind of its value in the current row as a
   * bind format letter (store_int.h): 'i', 'd', 't', 'b', or 'n' for SQL
   * NULL. For a copy that moves any table's rows as they are (copy.c). */
  const char *(*col_name)(struct store_stmt *stmt, int col);
  char (*col_kind)(struct store_stmt *stmt, int col);

  /* ---- the connection's state ---- */
  bool (*in_tx)(struct store *st);      /* a transaction is open */
  int64_t (*changes)(struct store *st); /* rows the last statement changed */

  /* Opens a write transaction, taking the engine's write lock at once so
   * that two writers never deadlock upgrading a read lock, and writers
   * take turns (SQLite: BEGIN IMMEDIATE). */
  int (*begin)(struct store *st, const char *what);
  /* Opens a transaction whose statements are kept correct by the locks
   * of the rows they touch alone, so it need not wait for the writers'
   * lock: the outbox's claims and sent marks (outbox.c), which several
   * daemons on one database run beside each other's moves. NULL: begin
   * (SQLite locks the whole file; BEGIN IMMEDIATE is its only kind). */
  int (*begin_rows)(struct store *st, const char *what);
  /* The engine reads `FOR UPDATE SKIP LOCKED`: a claim passes over the
   * rows another transaction is claiming instead of waiting for them, and
   * never takes a row that transaction took (outbox.c). False where a
   * claim runs under the writers' lock and no other claim can be under
   * way (SQLite). */
  bool skip_locked;

  /* ---- the schema ---- */
  int (*schema_version)(struct store *st, int *version);
  /* Records version inside the migration's transaction. */
  int (*set_schema_version)(struct store *st, int version);
  /* The driver's SQL of each schema step: [v - 1] takes a store from
   * version v - 1 to v, for v = 1..STORE_SCHEMA_LATEST (one list of
   * versions for every engine; a driver's schema file checks its count at
   * compile time). */
  const char *const *migrations;

  /* ---- processes sharing the store (lock.c) ---- */
  /* Locks the engine drops when their holder ends, however it ends
   * (kill -9 included): lock 0 (STORE_LOCK_DAEMON) the daemons', 1 + T
   * that of the process whose outbox claims carry token T, -1
   * (STORE_LOCK_TICK) that of the one daemon that runs the tick.
   * lock_take takes lock n for this connection until it closes (*got
   * false: another holds it); taking a lock this connection holds again
   * changes nothing. Lock 0 is taken shared where several daemons may
   * serve one database (several_daemons), exclusive otherwise. lock_held
   * says whether another connection holds it; lock_holder names the
   * holder for a message ("" when unknown). NULL on an engine whose store
   * is a file: lock.c's PATH.lock beside it serves. */
  bool several_daemons;
  int (*lock_take)(struct store *st, int64_t n, bool *got);
  /* Waking the other daemons on one database (store_wake_fd, store.h):
   * listen starts hearing the others' calls and gives a descriptor that
   * becomes readable when one comes; heard drains what came (*any: at
   * least one); call tells the others there is work (given back claims).
   * The driver calls too when a handle that held the tick's lock closes.
   * NULL where one daemon serves the store. */
  int (*listen)(struct store *st, int *fd);
  int (*heard)(struct store *st, bool *any);
  int (*call)(struct store *st);
  int (*lock_held)(struct store *st, int64_t n, bool *held);
  void (*lock_holder)(struct store *st, int64_t n, char *buf, size_t cap);

  /* ---- durability and upkeep ---- */
  /* on: commits of a batch may be lost in a power cut (never torn); off:
   * back to full durability (store_batch_begin_lazy). Outside a
   * transaction only. */
  int (*lazy)(struct store *st, bool on);
  /* store_checkpoint_later and store_checkpoint_idle (store.h); NULL
   * where the engine keeps its log itself. */
  void (*checkpoint_later)(struct store *st);
  int (*checkpoint_idle)(struct store *st);
  /* store_integrity_check (store.h). */
  int (*integrity_check)(struct store *st, char **problems);

  /* ---- moving a store (copy.c) ---- */
  /* A query naming every table of the store, one a row, without the
   * engine's own bookkeeping (SQLite's sqlite_*, tabula_schema). */
  const char *tables_sql;
  /* After rows were written with their ids kept: the ids `table` hands
   * out next follow the highest it holds (PostgreSQL's identity columns
   * keep a sequence of their own). NULL where the engine takes the next id
   * from the table itself (SQLite's INTEGER PRIMARY KEY). */
  int (*ids_follow)(struct store *st, const char *table);
};

/* The drivers (driver_*.c) and their schema steps (schema_*.c). */
extern const struct store_driver store_driver_sqlite;
extern const char *const store_sqlite_migrations[];
extern const struct store_driver store_driver_pg;
extern const char *const store_pg_migrations[];

#endif /* TABULA_STORE_DRIVER_H */
