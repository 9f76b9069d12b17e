/*
 * store.c: opening a store, schema migrations, transactions, the
 * processed-message table and the kv table of tabula_store (see store.h for
 * the contract, store_int.h for internals; the statement helpers every file
 * shares are in stmt.c, the engine behind them in a driver, driver.h).
 *
 * Follows docs/architecture.md "The store": every write of one message in
 * one transaction, durable when committed.
 *
 * The schema's version is kept by the driver and migrated forward on open
 * by the driver's list of steps (one list of versions for every engine,
 * STORE_SCHEMA_LATEST), all steps in one transaction, so a crash
 * mid-migration leaves the old version intact.
 *
 * The other files: games.c (games, seats, players, dice), journal.c (the
 * hash chain and its exact serialisation, journal_hash), outbox.c,
 * clocks.c, confirm.c (confirmations, confirmed addresses).
 */
#include "store_int.h"

#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long store_open keeps trying a connection's setup that another
 * process holds up (the driver's busy timeout, driver_sqlite.c). */
#define STORE_BUSY_TIMEOUT_MS 15000

/* The drivers, asked in order whose a store's name is (driver.h); the
 * last takes any name. */
static const struct store_driver *const drivers[] = {
  &store_driver_pg,
  &store_driver_sqlite,
};

/* Steps that also move rows in C after their SQL, in the same
 * transaction: where SQL alone would need one engine's string functions
 * (splitting "a b c", reading "SEAT LEVEL"). */
static int move_kv_state(struct store *st);
static const struct {
  int version;
  int (*move)(struct store *st);
} migration_moves[] = {
  {10, move_kv_state},
};

/* ---- the transaction hook (store_int.h) ---- */

void store_tx_hook(struct store *st, const struct store_tx_hook *hook)
{
  st->hook = hook;
}

static size_t tx_mark(struct store *st)
{
  return st->hook ? st->hook->mark(st) : 0;
}

static void tx_committed(struct store *st)
{
  if(st->hook)
    st->hook->committed(st);
}

static void tx_undone(struct store *st, size_t mark)
{
  if(st->hook)
    st->hook->undone(st, mark);
}

/* Undoing after a failure, without overwriting the first error's text:
 * that is the one the operator needs. */
static void exec_quiet(struct store *st, const char *sql)
{
  char saved[sizeof(st->err)];

  memcpy(saved, st->err, sizeof(saved));
  if(store_exec(st, sql, "undo") != STORE_OK) {
    /* already failing: the first failure is the one reported */
  }
  memcpy(st->err, saved, sizeof(saved));
}

/* One statement from the cache, run to its end: the transaction and
 * savepoint statements run several times a message, and an exec parses
 * them anew each time. */
static int run_sql(struct store *st, const char *sql, const char *what)
{
  return store_run(st, sql, what, "");
}

/* The transaction of a group, a batch: the writers' kind, or one kept
 * right by its rows' locks (driver.h begin_rows; begin where the engine
 * has one kind only). */
static int begin_tx(struct store *st, bool rows, const char *what)
{
  if(rows && st->drv->begin_rows)
    return st->drv->begin_rows(st, what);
  return st->drv->begin(st, what);
}

static int group_begin(struct store *st, struct store_group *g, bool rows)
{
  int rc;

  g->own_tx = !store_in_tx(st);
  g->active = false;
  g->mark = tx_mark(st);
  if(g->own_tx)
    rc = begin_tx(st, rows, "begin");
  else
    rc = run_sql(st, "SAVEPOINT store_group", "savepoint");
  if(rc == STORE_OK)
    g->active = true;
  return rc;
}

int store_group_begin(struct store *st, struct store_group *g)
{
  return group_begin(st, g, false);
}

int store_group_begin_rows(struct store *st, struct store_group *g)
{
  return group_begin(st, g, true);
}

int store_group_end(struct store *st, struct store_group *g, int rc)
{
  int rc2;

  if(!g->active)
    return rc;
  g->active = false;
  if(rc == STORE_OK) {
    if(g->own_tx)
      rc2 = run_sql(st, "COMMIT", "commit");
    else
      rc2 = run_sql(st, "RELEASE store_group", "release savepoint");
    if(rc2 == STORE_OK) {
      if(g->own_tx)
        tx_committed(st);
      return STORE_OK;
    }
    rc = rc2;
  }
  tx_undone(st, g->mark);
  if(g->own_tx) {
    if(store_in_tx(st))
      exec_quiet(st, "ROLLBACK");
  }
  else {
    exec_quiet(st, "ROLLBACK TO store_group; RELEASE store_group");
  }
  return rc;
}

/* ---- open, migrate, close ---- */

static int refuse_newer(struct store *st, int version)
{
  return store_fail(st, STORE_ECORRUPT,
                    "database schema version %d is newer than this tabula understands "
                    "(up to %d); upgrade tabula or use a matching database",
                    version, STORE_SCHEMA_LATEST);
}

/* Applies every step above the store's version inside one write
 * transaction, so two processes opening a fresh store cannot both migrate,
 * and a failed step leaves the store as it was. */
static int migrate(struct store *st)
{
  int version = 0, v;
  size_t j;
  int rc;

  rc = st->drv->begin(st, "beginning the schema migration");
  if(rc)
    return rc;
  rc = st->drv->schema_version(st, &version);
  if(rc)
    goto out;
  if(version > STORE_SCHEMA_LATEST) {
    rc = refuse_newer(st, version);
    goto out;
  }
  if(version < 0) {
    rc = store_fail(st, STORE_ECORRUPT, "database schema version %d is not valid", version);
    goto out;
  }
  for(v = version + 1; v <= STORE_SCHEMA_LATEST; v++) {
    const char *sql = st->drv->migrations[v - 1];
    /* NULL: a step this engine has nothing to do for */
    if(sql) {
      rc = store_exec(st, sql, "migrating the schema");
      if(rc)
        goto out;
    }
    /* then the step's rows moved in C, the same on every engine */
    for(j = 0; j < sizeof(migration_moves) / sizeof(migration_moves[0]); j++)
      if(migration_moves[j].version == v && (rc = migration_moves[j].move(st)) != STORE_OK)
        goto out;
    rc = st->drv->set_schema_version(st, v);
    if(rc)
      goto out;
  }
  rc = store_exec(st, "COMMIT", "committing the schema migration");
out:
  if(rc && store_in_tx(st))
    exec_quiet(st, "ROLLBACK");
  return rc;
}

static int configure(struct store *st)
{
  int version = 0;
  int rc;

  /* Check the version before anything writes to the store, so a newer
   * database is refused untouched (not even switched to WAL). */
  rc = st->drv->schema_version(st, &version);
  if(rc)
    return rc;
  if(version > STORE_SCHEMA_LATEST)
    return refuse_newer(st, version);
  rc = st->drv->configure(st);
  if(rc)
    return rc;
  /* Up to date: no need for the write lock migrate() takes. */
  if(version == STORE_SCHEMA_LATEST)
    return STORE_OK;
  return migrate(st);
}

/* A store handle on the driver whose target is; the engine connected. */
static int open_driver(struct store **out, const char *target, char *errbuf, size_t errcap)
{
  struct store *st = NULL;
  size_t i;
  int rc;

  *out = NULL;
  if(errbuf && errcap)
    errbuf[0] = '\0';
  st = calloc(1, sizeof(*st));
  if(st) {
    st->lock_fd = -1;
    st->wake_fd = -1;
  }
  if(!st) {
    if(errbuf && errcap)
      snprintf(errbuf, errcap, "out of memory");
    return STORE_ENOMEM;
  }
  for(i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
    if(drivers[i]->claims(target) || i + 1 == sizeof(drivers) / sizeof(drivers[0])) {
      st->drv = drivers[i];
      break;
    }
  rc = st->drv->open(st, target);
  if(rc) {
    if(errbuf && errcap)
      snprintf(errbuf, errcap, "%s", st->err);
    store_close(st);
    return rc;
  }
  *out = st;
  return STORE_OK;
}

int store_open_bare(struct store **out, const char *target, char *errbuf, size_t errcap)
{
  return open_driver(out, target, errbuf, errcap);
}

bool store_names_file(const char *name)
{
  size_t i;

  for(i = 0; i + 1 < sizeof(drivers) / sizeof(drivers[0]); i++)
    if(drivers[i]->claims(name))
      return drivers[i] == &store_driver_sqlite;
  return true; /* the last driver, SQLite, takes every other name */
}

void store_display_name(const char *name, char *buf, size_t cap)
{
  size_t i;

  for(i = 0; i < sizeof(drivers) / sizeof(drivers[0]); i++)
    if(drivers[i]->claims(name) || i + 1 == sizeof(drivers) / sizeof(drivers[0])) {
      if(drivers[i]->display)
        drivers[i]->display(name, buf, cap);
      else
        snprintf(buf, cap, "%s", name);
      return;
    }
}

int store_peek_version(const char *name, int *version, char *errbuf, size_t errcap)
{
  struct store *st = NULL;
  int rc = open_driver(&st, name, errbuf, errcap);

  *version = 0;
  if(rc == STORE_OK) {
    rc = st->drv->schema_version(st, version);
    if(rc && errbuf && errcap)
      snprintf(errbuf, errcap, "%s", st->err);
  }
  store_close(st);
  return rc;
}

int store_open(struct store **out, const char *path, char *errbuf, size_t errcap)
{
  struct store *st = NULL;
  int rc, waited;

  *out = NULL;
  rc = open_driver(&st, path, errbuf, errcap);
  if(rc)
    return rc;
  /* SQLite does not always call the busy handler while a connection sets
   * itself up (a WAL index being rebuilt or checkpointed away by another
   * process's close): a `deliver` started by an MTA beside others would
   * fail with "database is locked". configure() only reads and
   * sets up, so it is tried again, up to the busy timeout. */
  for(waited = 0;; waited += 20) {
    struct timespec pause = {0, 20 * 1000000L};
    rc = configure(st);
    if(rc != STORE_EBUSY || waited >= STORE_BUSY_TIMEOUT_MS)
      break;
    nanosleep(&pause, NULL);
  }
  if(rc) {
    if(errbuf && errcap)
      snprintf(errbuf, errcap, "%s", st->err);
    store_close(st);
    return rc;
  }
  *out = st;
  return STORE_OK;
}

void store_checkpoint_later(struct store *st)
{
  if(st && st->drv->checkpoint_later)
    st->drv->checkpoint_later(st);
}

int store_checkpoint_idle(struct store *st)
{
  if(!st || !st->drv->checkpoint_idle)
    return STORE_OK;
  return st->drv->checkpoint_idle(st);
}

void store_close(struct store *st)
{
  if(!st)
    return;
  /* Every other statement went back through store_finish, so once the
   * cache is finalized the driver's close succeeds; an open transaction
   * is rolled back by the engine. */
  while(st->ncache)
    st->drv->finalize(st->cache[--st->ncache].stmt);
  if(st->hook && st->hook->close)
    st->hook->close(st);
  if(st->drv)
    st->drv->close(st);
  store_lock_close(st);
  free(st->path);
  free(st->real_path);
  free(st);
}

const char *store_errmsg(const struct store *st)
{
  if(!st)
    return "no store";
  return st->err;
}

int store_schema_version(struct store *st)
{
  int version = 0;
  int rc = st->drv->schema_version(st, &version);

  if(rc)
    return rc;
  return version;
}

const char *store_id(struct store *st)
{
  if(!st->id[0] && store_kv_get(st, st->id, sizeof(st->id), "store id") != STORE_OK)
    st->id[0] = '\0';
  return st->id[0] ? st->id : "0000000000000000";
}

int store_integrity_check(struct store *st, char **problems)
{
  return st->drv->integrity_check(st, problems);
}

/* ---- transactions ---- */

int store_begin(struct store *st)
{
  int rc;

  if(st->batch) {
    if(st->unit)
      return store_fail(st, STORE_EIO, "begin: a transaction is already open");
    /* SQLite undoes a whole transaction on some errors (SQLITE_FULL,
     * IOERR): a savepoint then would silently start a transaction of its
     * own and commit this message ahead of the lost ones. */
    if(!store_batch_open(st))
      return store_fail(st, STORE_EIO, "begin: the batch's transaction was rolled back");
    rc = run_sql(st, "SAVEPOINT store_unit", "begin (savepoint)");
    st->unit = rc == STORE_OK;
    st->unit_mark = tx_mark(st);
    return rc;
  }
  if(store_in_tx(st))
    return store_fail(st, STORE_EIO, "begin: a transaction is already open");
  st->tx_mark = tx_mark(st);
  return st->drv->begin(st, "begin");
}

int store_commit(struct store *st)
{
  int rc;

  if(st->batch) {
    if(!st->unit)
      return store_fail(st, STORE_EIO, "commit: no transaction is open");
    st->unit = false;
    return run_sql(st, "RELEASE store_unit", "commit (release savepoint)");
  }
  if(!store_in_tx(st))
    return store_fail(st, STORE_EIO, "commit: no transaction is open");
  rc = run_sql(st, "COMMIT", "commit");
  if(rc == STORE_OK)
    tx_committed(st);
  return rc;
}

int store_rollback(struct store *st)
{
  int rc;

  if(st->batch) {
    if(!st->unit)
      return STORE_OK;
    st->unit = false;
    /* If SQLite already undid the whole transaction (an I/O error), this
     * fails, and so will store_batch_commit: the batch is retried whole. */
    tx_undone(st, st->unit_mark);
    rc = run_sql(st, "ROLLBACK TO store_unit", "rollback (savepoint)");
    if(rc == STORE_OK)
      rc = run_sql(st, "RELEASE store_unit", "rollback (savepoint)");
    return rc;
  }
  tx_undone(st, st->tx_mark);
  if(!store_in_tx(st))
    return STORE_OK;
  return run_sql(st, "ROLLBACK", "rollback");
}

bool store_batch_open(struct store *st)
{
  return st->batch && store_in_tx(st);
}

static int batch_begin(struct store *st, bool rows)
{
  int rc;

  if(st->batch || store_in_tx(st))
    return store_fail(st, STORE_EIO, "batch: a transaction is already open");
  st->tx_mark = tx_mark(st);
  rc = begin_tx(st, rows, "batch begin");
  st->batch = rc == STORE_OK;
  st->unit = false;
  return rc;
}

int store_batch_begin(struct store *st)
{
  return batch_begin(st, false);
}

/* Back to full durability after a lazy batch. */
static void lazy_end(struct store *st)
{
  char saved[sizeof(st->err)];

  if(!st->lazy)
    return;
  st->lazy = false;
  memcpy(saved, st->err, sizeof(saved));
  (void)st->drv->lazy(st, false);
  memcpy(st->err, saved, sizeof(saved));
}

int store_batch_begin_lazy(struct store *st)
{
  int rc;

  if(st->batch || store_in_tx(st))
    return store_fail(st, STORE_EIO, "batch: a transaction is already open");
  rc = st->drv->lazy(st, true);
  if(rc)
    return rc;
  st->lazy = true;
  /* A lazy batch holds sent marks only (store.h): rows this process
   * claimed, kept right by their claims and their rows' locks, so it
   * need not wait for another daemon's moves (driver.h begin_rows). */
  rc = batch_begin(st, true);
  if(rc)
    lazy_end(st);
  return rc;
}

int store_batch_commit(struct store *st)
{
  int rc;

  if(!st->batch)
    return store_fail(st, STORE_EIO, "batch commit: no batch is open");
  if(st->unit) {
    rc = store_rollback(st); /* a message left half-done is not kept */
    if(rc != STORE_OK) {
      /* nor committed with the others when it cannot be undone alone:
       * nothing of the batch is kept, the batch is retried whole */
      int undone = store_batch_rollback(st);
      return undone != STORE_OK ? undone : rc;
    }
  }
  st->batch = false;
  rc = run_sql(st, "COMMIT", "batch commit");
  if(rc != STORE_OK && store_in_tx(st))
    exec_quiet(st, "ROLLBACK");
  if(rc == STORE_OK)
    tx_committed(st);
  else
    tx_undone(st, st->tx_mark);
  lazy_end(st);
  return rc;
}

int store_batch_rollback(struct store *st)
{
  int rc = STORE_OK;

  st->batch = false;
  st->unit = false;
  tx_undone(st, st->tx_mark);
  if(store_in_tx(st))
    rc = run_sql(st, "ROLLBACK", "batch rollback");
  lazy_end(st);
  return rc;
}

/* ---- messages ---- */

int store_message_seen(struct store *st, const char *message_id, bool *seen)
{
  return store_query_exists(st, seen, "SELECT 1 FROM messages WHERE message_id = $1",
                            "message_seen", "t", message_id);
}

int store_message_record(struct store *st, const char *message_id, const char *digest,
                         int64_t received, const char *outcome)
{
  /* A plain INSERT: recording the same Message-ID twice means the caller
   * skipped store_message_seen, which is a bug worth an error. */
  return store_run(st,
                   "INSERT INTO messages(message_id, digest, received, outcome)"
                   " VALUES($1, $2, $3, $4)",
                   "message_record", "ttit", message_id, digest, received, outcome);
}

/* ---- kv ---- */

int store_kv_get(struct store *st, char *buf, size_t cap, const char *key)
{
  struct store_stmt *stmt = NULL;
  struct store_row row;
  int rc;

  if(cap)
    buf[0] = '\0';
  /* stepped here: the value goes into the caller's buffer */
  rc = store_prepare_args(st, &stmt, "SELECT value FROM kv WHERE key = $1", "kv_get", "t", key);
  if(rc)
    return rc;
  rc = store_step(st, stmt, &row, "kv_get");
  if(rc == STORE_OK)
    rc = store_fail(st, STORE_ENOTFOUND, "kv_get: no such key");
  else if(rc == STORE_ROW)
    rc = cap ? store_copy_column(st, buf, cap, &row, 0, "kv.value")
             : store_fail(st, STORE_EIO, "kv_get: no room for the value");
  store_finish(st, stmt);
  return rc;
}

int store_kv_set(struct store *st, const char *key, const char *value)
{
  return store_run(st,
                   "INSERT INTO kv(key, value) VALUES($1, $2)"
                   " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                   "kv_set", "tt", key, value);
}

/* ---- v10: the game state kv held, moved to its tables ---- */

struct kv_row {
  char *key, *value;
};

static int read_kv_row(struct store *st, const struct store_row *src, void *row)
{
  struct kv_row *r = row;
  size_t len;
  const char *k = store_col_text(src, 0, &len), *v = store_col_text(src, 1, &len);
  r->key = strdup(k ? k : "");
  r->value = strdup(v ? v : "");
  if(!r->key || !r->value)
    return store_fail(st, STORE_ENOMEM, "migrating kv: out of memory");
  return STORE_OK;
}

/* rest starts with a game id (digits) ended by `end`; *after past it. */
static bool kv_game(const char *rest, char end, int64_t *game, const char **after)
{
  int64_t v = 0;
  const char *p = rest;
  if(*p < '0' || *p > '9')
    return false;
  for(; *p >= '0' && *p <= '9'; p++) {
    if(v > (INT64_MAX - 9) / 10)
      return false;
    v = v * 10 + (*p - '0');
  }
  if(*p != end)
    return false;
  *game = v;
  if(after)
    *after = end ? p + 1 : p;
  return true;
}

/* "GAME:SEAT" */
static bool kv_game_seat(const char *rest, int64_t *game, int64_t *seat)
{
  const char *after;
  return kv_game(rest, ':', game, &after) && kv_game(after, '\0', seat, NULL) && *seat < 1000;
}

static bool kv_prefixed(const char *key, const char *prefix, const char **rest)
{
  size_t n = strlen(prefix);
  if(strncmp(key, prefix, n))
    return false;
  *rest = key + n;
  return true;
}

#define KV_IF_SEAT " WHERE EXISTS(SELECT 1 FROM seats WHERE game = $1 AND seat = $2)"
#define KV_IF_GAME " WHERE EXISTS(SELECT 1 FROM games WHERE id = $1)"

static int kv_hourly(struct store *st, const char *counter, const char *address,
                     const char *value)
{
  long long start, count;
  if(sscanf(value, "%lld %lld", &start, &count) != 2 || count < 0)
    return STORE_OK;
  return store_run(st, "INSERT INTO hourly_counts(counter, address, start, count)"
                       " VALUES($1, $2, $3, $4)",
                   "migrating kv: hourly counts", "ttii", counter, address, (int64_t)start,
                   (int64_t)count);
}

/* One kv row as the service read it (referee/: what it read as "none"
 * moves nothing), into its table; rows of a game, seat or player that
 * does not exist are dropped (nothing could read them). */
static int kv_move_one(struct store *st, const char *key, const char *value)
{
  const char *rest;
  int64_t game, seat;
  int a, b;
  long long l;

  if(kv_prefixed(key, "resign:", &rest))
    return kv_game(rest, '\0', &game, NULL) && sscanf(value, "%d %d", &a, &b) == 2 && a >= 0 &&
                   b >= 1 && b <= 3
             ? store_run(st, "INSERT INTO resign_offers(game, seat, level) SELECT $1, $2, $3"
                             KV_IF_SEAT,
                         "migrating kv: resign offers", "iii", game, (int64_t)a, (int64_t)b)
             : STORE_OK;
  if(kv_prefixed(key, "takeback:", &rest))
    return kv_game(rest, '\0', &game, NULL) && sscanf(value, "%d %lld", &a, &l) == 2 &&
                   a >= 0 && l >= 1
             ? store_run(st, "INSERT INTO takeback_requests(game, seat, seq) SELECT $1, $2, $3"
                             KV_IF_SEAT,
                         "migrating kv: takeback requests", "iii", game, (int64_t)a, (int64_t)l)
             : STORE_OK;
  if(kv_prefixed(key, "autoroll:", &rest))
    return kv_game_seat(rest, &game, &seat) && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO standing_rolls(game, seat) SELECT $1, $2" KV_IF_SEAT,
                         "migrating kv: standing rolls", "ii", game, seat)
             : STORE_OK;
  if(kv_prefixed(key, "cubeanswer:", &rest))
    return kv_game_seat(rest, &game, &seat) && (!strcmp(value, "take") || !strcmp(value, "drop"))
             ? store_run(st, "INSERT INTO cube_answers(game, seat, answer) SELECT $1, $2, $3"
                             KV_IF_SEAT,
                         "migrating kv: cube answers", "iit", game, seat, value)
             : STORE_OK;
  if(kv_prefixed(key, "observers:", &rest)) {
    /* "a b c", in the order they came */
    char *list, *tok, *save = NULL;
    int rc = STORE_OK;
    if(!kv_game(rest, '\0', &game, NULL))
      return STORE_OK;
    if(!(list = strdup(value)))
      return store_fail(st, STORE_ENOMEM, "migrating kv: out of memory");
    for(tok = strtok_r(list, " ", &save); tok && rc == STORE_OK; tok = strtok_r(NULL, " ", &save))
      rc = store_run(st, "INSERT INTO observers(game, address) SELECT $1, $2" KV_IF_GAME
                         " ON CONFLICT(game, address) DO NOTHING",
                     "migrating kv: observers", "it", game, tok);
    free(list);
    return rc;
  }
  if(kv_prefixed(key, "private:", &rest))
    return kv_game(rest, '\0', &game, NULL) && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO private_games(game) SELECT $1" KV_IF_GAME,
                         "migrating kv: private games", "i", game)
             : STORE_OK;
  if(kv_prefixed(key, "public-comments:", &rest))
    return kv_game(rest, '\0', &game, NULL) && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO public_comment_games(game) SELECT $1" KV_IF_GAME,
                         "migrating kv: public-comments games", "i", game)
             : STORE_OK;
  if(kv_prefixed(key, "comments-off:", &rest))
    return rest[0] && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO comments_off(address) SELECT $1"
                             " WHERE EXISTS(SELECT 1 FROM players WHERE address = $1)",
                         "migrating kv: comments off", "t", rest)
             : STORE_OK;
  if(kv_prefixed(key, "dice-protocol:", &rest))
    /* docs/dice-protocol.md, "Versions": the one name written was
     * "tabula-dice-2"; anything else read as tabula-dice-1 */
    return kv_game(rest, '\0', &game, NULL)
             ? store_run(st, "INSERT INTO dice_protocols(game, version) SELECT $1, $2" KV_IF_GAME,
                         "migrating kv: dice protocols", "ii", game,
                         (int64_t)(strcmp(value, "tabula-dice-2") ? 1 : 2))
             : STORE_OK;
  if(kv_prefixed(key, "lag:", &rest))
    return kv_game(rest, '\0', &game, NULL) && (l = atoll(value)) > 0
             ? store_run(st, "INSERT INTO lag_previews(game, roll) SELECT $1, $2" KV_IF_GAME,
                         "migrating kv: lag previews", "ii", game, (int64_t)l)
             : STORE_OK;
  if(kv_prefixed(key, "rate:", &rest))
    return kv_hourly(st, "rate", rest, value);
  if(kv_prefixed(key, "unasked:", &rest))
    return kv_hourly(st, "unasked", rest, value);
  if(!strcmp(key, "budget:strangers"))
    return kv_hourly(st, "strangers", "", value);
  return STORE_OK;
}

static int move_kv_state(struct store *st)
{
  void *v = NULL;
  struct kv_row *rows;
  size_t n = 0, i;
  int rc = store_query(st, &v, &n, sizeof(struct kv_row), read_kv_row,
                       "SELECT key, value FROM kv WHERE " STORE_KV_STATE_KEYS " ORDER BY key",
                       "migrating kv", "");
  rows = v;
  for(i = 0; rc == STORE_OK && i < n; i++)
    rc = kv_move_one(st, rows[i].key, rows[i].value);
  if(rc == STORE_OK)
    rc = store_run(st, "DELETE FROM kv WHERE " STORE_KV_STATE_KEYS, "migrating kv: deleting", "");
  for(i = 0; i < n; i++) {
    free(rows[i].key);
    free(rows[i].value);
  }
  free(rows);
  return rc;
}

/* ---- hashing ---- */

void store_sha256_hex(char hex[65], const void *data, size_t len)
{
  static const char digits[] = "0123456789abcdef";
  uint8_t digest[SHA256_DIGEST_SIZE];
  struct sha256_ctx ctx;
  size_t i;

  sha256_init(&ctx);
  sha256_update(&ctx, len, data);
  sha256_digest(&ctx, sizeof(digest), digest);
  for(i = 0; i < sizeof(digest); i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 0xf];
  }
  hex[64] = '\0';
}
