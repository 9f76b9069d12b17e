/*
 * clocks.c: the tables behind time in tabula_store: each game's
 * clock, players' vacations, the digest preference and the digest queue.
 * Contract in store.h; schema in store.c (migration 2). The arithmetic
 * (what a deadline is, when a reminder is due) is the service's
 * (referee/clock.c): the store only keeps the facts.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- clocks ---- */

int store_clock_put(struct store *st, const struct store_clock *c)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt,
                     "INSERT INTO clocks(game, days, weekends, seat, moves, started, deadline,"
                     " reminded, next_event) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
                     " ON CONFLICT(game) DO UPDATE SET days = excluded.days,"
                     " weekends = excluded.weekends, seat = excluded.seat,"
                     " moves = excluded.moves, started = excluded.started,"
                     " deadline = excluded.deadline, reminded = excluded.reminded,"
                     " next_event = excluded.next_event",
                     "clock_put");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, c->game, "clocks.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, c->days, "clocks.days");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 3, c->weekends ? 1 : 0, "clocks.weekends");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 4, c->seat, "clocks.seat");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 5, c->moves, "clocks.moves");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 6, c->started, "clocks.started");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 7, c->deadline, "clocks.deadline");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 8, c->reminded, "clocks.reminded");
  if(rc == STORE_OK && c->next_event >= 0)
    rc = store_bind_int64(st, stmt, 9, c->next_event, "clocks.next_event");
  else if(rc == STORE_OK && sqlite3_bind_null(stmt, 9) != SQLITE_OK)
    rc = store_fail_sql(st, sqlite3_errcode(st->db), "clocks.next_event");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "clock_put");
  store_finish(st, stmt);
  return rc;
}

#define CLOCK_COLUMNS                                                                         \
  "c.game, c.days, c.weekends, c.seat, c.moves, c.started, c.deadline, c.reminded,"          \
  " coalesce(c.next_event, -1)"

static int clock_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_clock *c = row;
  (void)st;
  c->game = sqlite3_column_int64(stmt, 0);
  c->days = sqlite3_column_int(stmt, 1);
  c->weekends = sqlite3_column_int(stmt, 2) != 0;
  c->seat = sqlite3_column_int(stmt, 3);
  c->moves = sqlite3_column_int64(stmt, 4);
  c->started = sqlite3_column_int64(stmt, 5);
  c->deadline = sqlite3_column_int64(stmt, 6);
  c->reminded = sqlite3_column_int(stmt, 7);
  c->next_event = sqlite3_column_int64(stmt, 8);
  return STORE_OK;
}

int store_clock_load(struct store *st, struct store_clock *out, int64_t game)
{
  void *v = NULL;
  size_t n = 0;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = store_collect_game(st, &v, &n, "SELECT " CLOCK_COLUMNS " FROM clocks c WHERE c.game = ?1",
                          game, sizeof(struct store_clock), clock_row, "clock_load");
  if(rc == STORE_OK && n == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "clock_load: no clock for game %lld", (long long)game);
  if(rc == STORE_OK)
    *out = *(struct store_clock *)v;
  free(v);
  return rc;
}

int store_clock_running(struct store *st, struct store_clock **clocks, size_t *n)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *clocks = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt,
                     "SELECT " CLOCK_COLUMNS " FROM clocks c JOIN games g ON g.id = c.game"
                     " WHERE g.phase = 'active' AND c.seat >= 0 ORDER BY c.game",
                     "clock_running");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(struct store_clock), &v, n, clock_row, "clock_running");
  store_finish(st, stmt);
  if(rc) {
    free(v);
    v = NULL;
    *n = 0;
  }
  *clocks = v;
  return rc;
}

int store_clock_due(struct store *st, struct store_clock **clocks, size_t *n, int64_t now,
                    size_t max)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *clocks = NULL;
  *n = 0;
  if((uint64_t)max > (uint64_t)INT64_MAX)
    max = (size_t)INT64_MAX;
  rc = store_prepare(st, &stmt,
                     "SELECT " CLOCK_COLUMNS " FROM clocks c JOIN games g ON g.id = c.game"
                     " WHERE c.next_event IS NOT NULL AND c.next_event <= ?1"
                     " AND g.phase = 'active' AND c.seat >= 0 ORDER BY c.next_event LIMIT ?2",
                     "clock_due");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, now, "clock_due: now");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, (int64_t)max, "clock_due: max");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(struct store_clock), &v, n, clock_row, "clock_due");
  store_finish(st, stmt);
  if(rc) {
    free(v);
    v = NULL;
    *n = 0;
  }
  *clocks = v;
  return rc;
}

int store_clock_set_next(struct store *st, int64_t game, int64_t next_event)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt, "UPDATE clocks SET next_event = ?1 WHERE game = ?2",
                     "clock_set_next");
  if(rc == STORE_OK && next_event >= 0)
    rc = store_bind_int64(st, stmt, 1, next_event, "clocks.next_event");
  else if(rc == STORE_OK && sqlite3_bind_null(stmt, 1) != SQLITE_OK)
    rc = store_fail_sql(st, sqlite3_errcode(st->db), "clocks.next_event");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, game, "clocks.game");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "clock_set_next");
  store_finish(st, stmt);
  return rc;
}

static int id_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  (void)st;
  *(int64_t *)row = sqlite3_column_int64(stmt, 0);
  return STORE_OK;
}

int store_games_invited_before(struct store *st, int64_t **ids, size_t *n, int64_t before)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *ids = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt,
                     /* oldest first, in the order of the games_invited index:
                      * ORDER BY id alone made SQLite walk every game by its
                      * id instead (0.26 s a tick at a million) */
                     "SELECT id FROM games WHERE phase = 'invited' AND created <= ?1"
                     " ORDER BY created, id",
                     "games_invited_before");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, before, "games_invited_before: before");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(int64_t), &v, n, id_row, "games_invited_before");
  store_finish(st, stmt);
  if(rc) {
    free(v);
    v = NULL;
    *n = 0;
  }
  *ids = v;
  return rc;
}

int store_journal_count(struct store *st, int64_t *n, int64_t game, const char *kind)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *n = 0;
  rc = store_prepare(st, &stmt, "SELECT count(*) FROM journal WHERE game = ?1 AND kind = ?2",
                     "journal_count");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, game, "journal_count: game");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 2, kind, "journal_count: kind");
  if(rc == STORE_OK) {
    if(sqlite3_step(stmt) == SQLITE_ROW)
      *n = sqlite3_column_int64(stmt, 0);
    else
      rc = store_fail_sql(st, sqlite3_errcode(st->db), "journal_count");
  }
  store_finish(st, stmt);
  return rc;
}

/* ---- vacations ---- */

int store_vacation_add(struct store *st, const char *address, int64_t first_day,
                       int64_t last_day, int64_t created)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt,
                     "INSERT INTO vacations(address, first_day, last_day, created)"
                     " VALUES(?1, ?2, ?3, ?4)",
                     "vacation_add");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "vacations.address");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, first_day, "vacations.first_day");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 3, last_day, "vacations.last_day");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 4, created, "vacations.created");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "vacation_add");
  store_finish(st, stmt);
  return rc;
}

static int vacation_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_vacation *v = row;
  (void)st;
  v->first_day = sqlite3_column_int64(stmt, 0);
  v->last_day = sqlite3_column_int64(stmt, 1);
  v->created = sqlite3_column_int64(stmt, 2);
  return STORE_OK;
}

int store_vacation_list(struct store *st, struct store_vacation **vacs, size_t *n,
                        const char *address)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *vacs = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt,
                     "SELECT first_day, last_day, created FROM vacations WHERE address = ?1"
                     " ORDER BY first_day",
                     "vacation_list");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "vacation_list: address");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(struct store_vacation), &v, n, vacation_row,
                       "vacation_list");
  store_finish(st, stmt);
  if(rc) {
    free(v);
    v = NULL;
    *n = 0;
  }
  *vacs = v;
  return rc;
}

/* ---- the digest: preference and queue ---- */

int store_digest_pref_get(struct store *st, bool *on, const char *address)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *on = false;
  rc = store_prepare(st, &stmt, "SELECT digest FROM prefs WHERE address = ?1", "digest_pref_get");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "digest_pref_get: address");
  if(rc == STORE_OK) {
    int s = sqlite3_step(stmt);
    if(s == SQLITE_ROW)
      *on = sqlite3_column_int(stmt, 0) != 0;
    else if(s != SQLITE_DONE)
      rc = store_fail_sql(st, s, "digest_pref_get");
  }
  store_finish(st, stmt);
  return rc;
}

int store_digest_pref_set(struct store *st, const char *address, bool on)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt,
                     "INSERT INTO prefs(address, digest) VALUES(?1, ?2)"
                     " ON CONFLICT(address) DO UPDATE SET digest = excluded.digest",
                     "digest_pref_set");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "prefs.address");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, on ? 1 : 0, "prefs.digest");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "digest_pref_set");
  store_finish(st, stmt);
  return rc;
}

int store_digest_add(struct store *st, const char *address, int64_t game, int64_t created,
                     const char *subject, const char *reply_to, const char *body)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt,
                     "INSERT INTO digest(address, game, created, subject, reply_to, body)"
                     " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                     "digest_add");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "digest.address");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, game, "digest.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 3, created, "digest.created");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 4, subject, "digest.subject");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 5, reply_to, "digest.reply_to");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 6, body, "digest.body");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "digest_add");
  store_finish(st, stmt);
  return rc;
}

static int waiting_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_digest_due *d = row;
  d->oldest = sqlite3_column_int64(stmt, 1);
  return store_copy_column(st, d->address, sizeof(d->address), stmt, 0, "digest.address");
}

int store_digest_waiting(struct store *st, struct store_digest_due **due, size_t *n)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *due = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt,
                     "SELECT address, min(created) FROM digest GROUP BY address ORDER BY address",
                     "digest_waiting");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(struct store_digest_due), &v, n, waiting_row,
                       "digest_waiting");
  store_finish(st, stmt);
  if(rc) {
    free(v);
    v = NULL;
    *n = 0;
  }
  *due = v;
  return rc;
}

static int item_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_digest_item *it = row;
  const unsigned char *body;
  int rc;

  it->id = sqlite3_column_int64(stmt, 0);
  it->game = sqlite3_column_int64(stmt, 1);
  it->created = sqlite3_column_int64(stmt, 2);
  rc = store_copy_column(st, it->subject, sizeof(it->subject), stmt, 3, "digest.subject");
  if(rc == STORE_OK)
    rc = store_copy_column(st, it->reply_to, sizeof(it->reply_to), stmt, 4, "digest.reply_to");
  if(rc)
    return rc;
  body = sqlite3_column_text(stmt, 5);
  it->body = strdup(body ? (const char *)body : "");
  if(!it->body)
    return store_fail(st, STORE_ENOMEM, "digest.body: out of memory");
  return STORE_OK;
}

void store_digest_free(struct store_digest_item *items, size_t n)
{
  size_t i;
  for(i = 0; items && i < n; i++)
    free(items[i].body);
  free(items);
}

int store_digest_items(struct store *st, struct store_digest_item **items, size_t *n,
                       const char *address)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *items = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt,
                     "SELECT id, game, created, subject, reply_to, body FROM digest"
                     " WHERE address = ?1 ORDER BY id",
                     "digest_items");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "digest_items: address");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(struct store_digest_item), &v, n, item_row,
                       "digest_items");
  store_finish(st, stmt);
  if(rc) {
    store_digest_free(v, *n);
    v = NULL;
    *n = 0;
  }
  *items = v;
  return rc;
}

int store_digest_clear(struct store *st, const char *address, int64_t upto_id)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt, "DELETE FROM digest WHERE address = ?1 AND id <= ?2",
                     "digest_clear");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "digest_clear: address");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, upto_id, "digest_clear: id");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "digest_clear");
  store_finish(st, stmt);
  return rc;
}
