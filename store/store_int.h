/*
 * store_int.h: internals shared by the files of tabula_store. Not part of
 * the interface: only store.h is. Statements go through stmt.c's helpers
 * (store_run, store_query, ...), below.
 *
 * Every helper here follows the public convention: it returns STORE_OK or a
 * negative store code and, on failure, has already written the operator's
 * text into st->err. Error text names the operation and the column, never a
 * value, so nothing secret (dice.secret, seat tokens) can leak through it.
 */
#ifndef TABULA_STORE_INT_H
#define TABULA_STORE_INT_H

#include "store.h"

#include <sqlite3.h>
#include <stdarg.h>

/* The kv keys of game state before schema v10 (the service's strings,
 * "resign:GAME", ...), as SQL conditions on kv.key: the v10 migration
 * moves them to their tables (store.c), `tabula check` reports any left
 * (gamestate.c). */
#define STORE_KV_STATE_KEYS                                                                  \
  "key LIKE 'resign:%' OR key LIKE 'takeback:%' OR key LIKE 'autoroll:%'"                    \
  " OR key LIKE 'cubeanswer:%' OR key LIKE 'observers:%' OR key LIKE 'private:%'"            \
  " OR key LIKE 'public-comments:%' OR key LIKE 'comments-off:%'"                            \
  " OR key LIKE 'dice-protocol:%' OR key LIKE 'lag:%' OR key LIKE 'rate:%'"                  \
  " OR key LIKE 'unasked:%' OR key = 'budget:strangers'"

/* Prepared statements kept for reuse, keyed by their SQL text: a move mail
 * runs a few dozen statements, and parsing them anew each time was a fifth
 * of the daemon's CPU (bench/throughput.sh). */
#define STORE_STMT_CACHE 96
struct store_cached {
  const char *sql; /* the caller's string literal */
  sqlite3_stmt *stmt;
  bool busy;       /* handed out and not yet given back */
};

struct store {
  sqlite3 *db;
  struct store_cached cache[STORE_STMT_CACHE];
  size_t ncache;
  char err[512];
  bool batch; /* store_batch_begin: one outer transaction for many messages */
  bool unit;  /* inside a batch: store_begin's savepoint is open */
  bool lazy;  /* store_batch_begin_lazy: synchronous=NORMAL until its end */
  int wal_pages; /* store_checkpoint_later: the WAL's length after the last commit */
  /* lock.c: the file PATH.lock beside the database, whose
   * byte 0 is the daemon's lock and whose byte 1 + owner is held by this
   * process while it owns outbox claims. -1 and 0 until first needed.
   * path is the name the store was opened by (for messages); real_path
   * the file SQLite opened through it, symlinks and `..` resolved, beside
   * which SQLite keeps its -wal and -shm and lock.c its PATH.lock, so
   * that every name of one store locks one file. */
  char *path;
  char *real_path;
  int lock_fd;
  int64_t owner;
  char id[24]; /* kv "store id", read once ("" until then) */
  /* Replies this process queued (store_outbox_add), kept in memory so
   * the flush writes them without reading them back. The list
   * follows the transactions: what a rollback undoes leaves it, and only
   * the first fresh_committed are committed (store_outbox_fresh hands
   * those out). It hears of transactions through store_tx_hook. */
  struct store_outbox *fresh;
  size_t nfresh, capfresh, fresh_committed;
  /* A queued row could not be listed (no memory, the cap): the list has a
   * hole, so it is not handed out; the table has every row, in order. */
  bool fresh_gap;
  /* The transaction hook (store_tx_hook), NULL until registered. The
   * marks are the hook's, taken where a transaction (tx_mark) and
   * store_begin's savepoint (unit_mark) began. */
  const struct store_tx_hook *hook;
  size_t tx_mark, unit_mark;
};

/* At most this many replies wait in memory; more are read back from the
 * table (they are claimed all the same). */
#define STORE_FRESH_MAX 4096

/* What a file of the store needs to hear from the transaction core
 * (store.c) about transactions, registered with it rather than called by
 * name, so that store.c names no file above it (SQLite's way:
 * sqlite3_commit_hook, sqlite3_rollback_hook). A savepoint's undo is
 * partial, hence marks: mark() is taken where a transaction or savepoint
 * begins, undone() gets it back when that is rolled back. outbox.c's
 * in-memory list of fresh replies is the one user. */
struct store_tx_hook {
  size_t (*mark)(struct store *st);
  void (*committed)(struct store *st); /* the outermost transaction committed */
  void (*undone)(struct store *st, size_t mark);
  void (*close)(struct store *st); /* store_close, before the database closes */
};

/* Registers the hook (one; a second registration replaces it). The hook
 * must be registered before its user holds state a mark must count: the
 * marks taken without one are 0. */
void store_tx_hook(struct store *st, const struct store_tx_hook *hook);

/* This process's claim token (lock.c): taken on first use with its lock
 * byte held until store_close, so another process can tell it is alive.
 * 0 when the store has no lock file (":memory:"). */
int store_owner(struct store *st, int64_t *owner) STORE_CHECKED;
/* Whether the process holding claim token `owner` still runs. */
bool store_owner_alive(struct store *st, int64_t owner);
void store_lock_close(struct store *st);

/* A group of statements that must land together (journal_append reads the
 * chain head then inserts; seat_put registers the player then the seat).
 * Outside the caller's transaction it opens its own BEGIN IMMEDIATE; inside
 * one it uses a savepoint so a failure undoes only the group. */
struct store_group {
  bool own_tx;
  bool active;
  size_t mark; /* the transaction hook's mark when it began */
};

/* Sets st->err from printf arguments and returns rc. */
int store_fail(struct store *st, int rc, const char *fmt, ...)
#if defined(__GNUC__)
  __attribute__((format(printf, 3, 4)))
#endif
  ;
/* Maps an SQLite result code to a store code and sets st->err to
 * "<what>: <sqlite message>". */
int store_fail_sql(struct store *st, int sqlite_rc, const char *what) STORE_CHECKED;

/* A statement for sql, from the cache when one is free, with the error path
 * filled in. Every statement from it goes back through store_finish. */
int store_prepare(struct store *st, sqlite3_stmt **stmt, const char *sql, const char *what) STORE_CHECKED;
/* Gives a statement back: reset and kept when cached, finalized otherwise.
 * NULL is fine. */
void store_finish(struct store *st, sqlite3_stmt *stmt);
/* sqlite3_step expecting SQLITE_DONE. */
int store_step_done(struct store *st, sqlite3_stmt *stmt, const char *what) STORE_CHECKED;

/* Binds a fixed-size struct field as text. Refuses a field that is not
 * NUL-terminated within its size (the struct came from the caller, and
 * reading past it would be undefined). */
int store_bind_field(struct store *st, sqlite3_stmt *stmt, int idx, const char *field,
                     size_t size, const char *name) STORE_CHECKED;
/* Binds a plain C string (NULL binds SQL NULL). */
int store_bind_text(struct store *st, sqlite3_stmt *stmt, int idx, const char *text,
                    const char *name) STORE_CHECKED;
int store_bind_int64(struct store *st, sqlite3_stmt *stmt, int idx, int64_t value,
                     const char *name) STORE_CHECKED;

/* Copies a text column into a fixed-size field. A value that does not fit is
 * STORE_EIO rather than silently truncated: a cut state or hash would be
 * misread later as a different position or a broken chain. */
int store_copy_column(struct store *st, char *dst, size_t cap, sqlite3_stmt *stmt, int col,
                      const char *name) STORE_CHECKED;

/* Returns v grown so that index n fits (*cap updated), or NULL when memory
 * runs out, in which case v is untouched and still owned by the caller. */
void *store_grow(void *v, size_t *cap, size_t n, size_t elem);

/* Reads one result row into a zeroed element. */
typedef int (*store_row_fn)(struct store *st, sqlite3_stmt *stmt, void *row);

/* Steps stmt to its end, appending one element of `elem` bytes per row to
 * the array *v (count *n), each zeroed and then filled by read_row. A row
 * is counted before it is filled, so on failure the caller frees *v with
 * its usual free (which must accept a half-filled last element). */
int store_collect(struct store *st, sqlite3_stmt *stmt, size_t elem, void **v, size_t *n,
                  store_row_fn read_row, const char *what) STORE_CHECKED;

/* ---- statements through one door (stmt.c) ----
 *
 * Every statement of the store goes through these: its SQL, `what` (the
 * operation, for the operator's error text), and its arguments ?1, ?2, ...
 * bound in order by `fmt`, one letter each:
 *   'i' int64_t
 *   'd' double
 *   't' const char * (NULL binds SQL NULL)
 *   'f' const char *, size_t, const char *: a fixed-size struct field, its
 *       size and its column's name ("games.kind"), refused when it is not
 *       NUL-terminated within its size, the column named (store_bind_field)
 *   's' const char *, size_t: the first size_t bytes of a string as text
 *   'b' const void *, size_t: a blob (a NULL pointer binds SQL NULL)
 *   'n' SQL NULL (no argument)
 * The SQL engine is named only here, in the row readers and in store.c's
 * transaction core: the seam where a second engine would sit. */

/* Binds ?1.. of stmt from fmt and ap. */
int store_bind_args(struct store *st, sqlite3_stmt *stmt, const char *what, const char *fmt,
                    va_list ap) STORE_CHECKED;
/* A statement prepared and bound, for a caller that steps it itself (a
 * row loop with a stop condition); NULL and finished on failure. */
int store_prepare_args(struct store *st, sqlite3_stmt **stmt, const char *sql, const char *what,
                       const char *fmt, ...) STORE_CHECKED;
/* A statement that returns no rows, run to its end. */
int store_run(struct store *st, const char *sql, const char *what, const char *fmt,
              ...) STORE_CHECKED;
/* A query: one element of `elem` bytes per row, each zeroed and filled by
 * read_row, into a malloc'd array (NULL and 0 on failure). */
int store_query(struct store *st, void **v, size_t *n, size_t elem, store_row_fn read_row,
                const char *sql, const char *what, const char *fmt, ...) STORE_CHECKED;
/* A query of at most one row into the zeroed *out; STORE_ENOTFOUND (with
 * "<what>: not found") when there is none. */
int store_query_one(struct store *st, void *out, size_t elem, store_row_fn read_row,
                    const char *sql, const char *what, const char *fmt, ...) STORE_CHECKED;
/* As store_query_one, but no row is no failure: STORE_OK with *found
 * false (and *out zeroed). */
int store_query_maybe(struct store *st, bool *found, void *out, size_t elem,
                      store_row_fn read_row, const char *sql, const char *what,
                      const char *fmt, ...) STORE_CHECKED;
/* Whether the query has a row (its first row is not read further). */
int store_query_exists(struct store *st, bool *yes, const char *sql, const char *what,
                       const char *fmt, ...) STORE_CHECKED;
/* A row reader: column 0 as an int64_t. */
int store_row_int64(struct store *st, sqlite3_stmt *stmt, void *row);

int store_group_begin(struct store *st, struct store_group *g) STORE_CHECKED;
/* Ends the group: commits (or releases) when rc is STORE_OK, else undoes it.
 * Returns rc, or the commit's failure when rc was STORE_OK. */
int store_group_end(struct store *st, struct store_group *g, int rc) STORE_CHECKED;

#endif /* TABULA_STORE_INT_H */
