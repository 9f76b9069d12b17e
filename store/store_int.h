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

#include "driver.h"
#include "store.h"

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
  struct store_stmt *stmt;
  bool busy;       /* handed out and not yet given back */
};

struct store {
  const struct store_driver *drv; /* chosen once, at open (driver.h) */
  void *conn;                     /* the driver's connection */
  struct store_cached cache[STORE_STMT_CACHE];
  size_t ncache;
  char err[512];
  bool batch; /* store_batch_begin: one outer transaction for many messages */
  bool unit;  /* inside a batch: store_begin's savepoint is open */
  bool lazy;  /* store_batch_begin_lazy: less durable commits until its end */
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
  int wake_fd; /* store_wake_fd: the connection's, once listening; -1 */
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

/* The current row of a statement, as a row reader sees it: read with the
 * store_col_* functions below, whatever the engine. */
struct store_row {
  const struct store_driver *drv;
  struct store_stmt *stmt;
};

int store_col_count(const struct store_row *row);
bool store_col_null(const struct store_row *row, int col);
int64_t store_col_int64(const struct store_row *row, int col);
/* An int64 column that the schema keeps within int (seat numbers, counts). */
int store_col_int(const struct store_row *row, int col);
double store_col_double(const struct store_row *row, int col);
/* Text as (pointer, length), valid until the statement moves on; NULL for
 * SQL NULL (and for an engine out of memory: store_copy_column tells). */
const char *store_col_text(const struct store_row *row, int col, size_t *len);
/* A blob as (pointer, length); NULL for SQL NULL or an empty blob. */
const void *store_col_blob(const struct store_row *row, int col, size_t *len);

/* Copies a text column into a fixed-size field. A value that does not fit is
 * STORE_EIO rather than silently truncated: a cut state or hash would be
 * misread later as a different position or a broken chain. */
int store_copy_column(struct store *st, char *dst, size_t cap, const struct store_row *row,
                      int col, const char *name) STORE_CHECKED;

/* Returns v grown so that index n fits (*cap updated), or NULL when memory
 * runs out, in which case v is untouched and still owned by the caller. */
void *store_grow(void *v, size_t *cap, size_t n, size_t elem);

/* Reads one result row into a zeroed element. */
typedef int (*store_row_fn)(struct store *st, const struct store_row *src, void *row);

/* ---- statements through one door (stmt.c) ----
 *
 * Every statement of the store goes through these: its SQL, `what` (the
 * operation, for the operator's error text), and its arguments $1, $2, ...
 * bound in order by `fmt`, one letter each (the SQL both engines read:
 * every parameter used, each first used in the order of its number;
 * docs/architecture.md, "The store"):
 *   'i' int64_t
 *   'd' double
 *   't' const char * (NULL binds SQL NULL)
 *   'f' const char *, size_t, const char *: a fixed-size struct field, its
 *       size and its column's name ("games.kind"), refused when it is not
 *       NUL-terminated within its size, the column named
 *   's' const char *, size_t: the first size_t bytes of a string as text
 *   'b' const void *, size_t: a blob (a NULL pointer binds SQL NULL)
 *   'n' SQL NULL (no argument)
 * The SQL engine is named only in its driver (driver.h): here every call
 * goes through st->drv. */

/* A statement prepared and bound, for a caller that steps it itself with
 * store_step (a row loop with a stop condition); NULL and finished on
 * failure. Given back with store_finish. */
int store_prepare_args(struct store *st, struct store_stmt **stmt, const char *sql,
                       const char *what, const char *fmt, ...) STORE_CHECKED;
/* The next row of stmt: STORE_ROW with *row set to it, STORE_OK at the
 * end, or a failure. */
int store_step(struct store *st, struct store_stmt *stmt, struct store_row *row,
               const char *what) STORE_CHECKED;
/* Gives a statement back: reset and kept when cached, finalized otherwise.
 * NULL is fine. */
void store_finish(struct store *st, struct store_stmt *stmt);
/* Steps stmt to its end, appending one element of `elem` bytes per row to
 * the array *v (count *n), each zeroed and then filled by read_row. A row
 * is counted before it is filled, so on failure the caller frees *v with
 * its usual free (which must accept a half-filled last element). */
int store_collect(struct store *st, struct store_stmt *stmt, size_t elem, void **v, size_t *n,
                  store_row_fn read_row, const char *what) STORE_CHECKED;
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
int store_row_int64(struct store *st, const struct store_row *src, void *row);

/* Statements without parameters or rows, one or more (the driver's exec). */
int store_exec(struct store *st, const char *sql, const char *what) STORE_CHECKED;
/* Whether a transaction is open; the rows the last statement changed (the
 * driver's). A new row's id comes back with INSERT ... RETURNING id. */
bool store_in_tx(struct store *st);
int64_t store_changes(struct store *st);

/* The engine alone, without the store's setup: no schema check, no
 * migration, no settings (for tests that must see or damage a database
 * behind the store's back, as another process would). Closed with
 * store_close. */
int store_open_bare(struct store **out, const char *target, char *errbuf,
                    size_t errcap) STORE_CHECKED;

int store_group_begin(struct store *st, struct store_group *g) STORE_CHECKED;
/* The same for statements kept correct by their rows' locks alone
 * (driver.h begin_rows): the outbox's claims. Inside a transaction a
 * savepoint, as store_group_begin. */
int store_group_begin_rows(struct store *st, struct store_group *g) STORE_CHECKED;
/* Ends the group: commits (or releases) when rc is STORE_OK, else undoes it.
 * Returns rc, or the commit's failure when rc was STORE_OK. */
int store_group_end(struct store *st, struct store_group *g, int rc) STORE_CHECKED;

#endif /* TABULA_STORE_INT_H */
