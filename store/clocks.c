/*
 * clocks.c: the tables behind time in tabula_store: each game's
 * clock, players' vacations, the digest preference and the digest queue.
 * Contract in store.h; schema in store.c (migration 2). The arithmetic
 * (what a deadline is, when a reminder is due) is the service's
 * (referee/turns/clock.c): the store only keeps the facts.
 */
#include "store_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- clocks ---- */

int store_clock_put(struct store *st, const struct store_clock *c)
{
  /* next_event < 0 (never) is NULL: the due index leaves the row out;
   * NULL ('n') takes no argument, so next_event is bound last */
  return store_run(st,
                   "INSERT INTO clocks(game, days, weekends, seat, moves, started, deadline,"
                   " reminded, control, bank0, bank1, done0, done1, next_event)"
                   " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)"
                   " ON CONFLICT(game) DO UPDATE SET days = excluded.days,"
                   " weekends = excluded.weekends, seat = excluded.seat,"
                   " moves = excluded.moves, started = excluded.started,"
                   " deadline = excluded.deadline, reminded = excluded.reminded,"
                   " next_event = excluded.next_event, control = excluded.control,"
                   " bank0 = excluded.bank0, bank1 = excluded.bank1,"
                   " done0 = excluded.done0, done1 = excluded.done1",
                   "clock_put", c->next_event >= 0 ? "iiiiiiiitiiiii" : "iiiiiiiitiiiin", c->game,
                   (int64_t)c->days, (int64_t)(c->weekends ? 1 : 0), (int64_t)c->seat, c->moves,
                   c->started, c->deadline, (int64_t)c->reminded, c->control, c->bank[0],
                   c->bank[1], c->done[0], c->done[1], c->next_event);
}

#define CLOCK_COLUMNS                                                                         \
  "c.game, c.days, c.weekends, c.seat, c.moves, c.started, c.deadline, c.reminded,"          \
  " coalesce(c.next_event, -1), c.control, c.bank0, c.bank1, c.done0, c.done1"

static int clock_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_clock *c = row;
  c->game = store_col_int64(src, 0);
  c->days = store_col_int(src, 1);
  c->weekends = store_col_int(src, 2) != 0;
  c->seat = store_col_int(src, 3);
  c->moves = store_col_int64(src, 4);
  c->started = store_col_int64(src, 5);
  c->deadline = store_col_int64(src, 6);
  c->reminded = store_col_int(src, 7);
  c->next_event = store_col_int64(src, 8);
  c->bank[0] = store_col_int64(src, 10);
  c->bank[1] = store_col_int64(src, 11);
  c->done[0] = store_col_int64(src, 12);
  c->done[1] = store_col_int64(src, 13);
  return store_copy_column(st, c->control, sizeof(c->control), src, 9, "clocks.control");
}

int store_clock_load(struct store *st, struct store_clock *out, int64_t game)
{
  bool found;
  int rc = store_query_maybe(st, &found, out, sizeof(*out), clock_row,
                             "SELECT " CLOCK_COLUMNS " FROM clocks c WHERE c.game = $1",
                             "clock_load", "i", game);
  if(rc == STORE_OK && !found)
    rc = store_fail(st, STORE_ENOTFOUND, "clock_load: no clock for game %lld", (long long)game);
  return rc;
}

int store_clock_running(struct store *st, struct store_clock **clocks, size_t *n)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(struct store_clock), clock_row,
                       "SELECT " CLOCK_COLUMNS " FROM clocks c JOIN games g ON g.id = c.game"
                       " WHERE g.phase = 'active' AND c.seat >= 0 ORDER BY c.game",
                       "clock_running", "");
  *clocks = v;
  return rc;
}

int store_clock_due(struct store *st, struct store_clock **clocks, size_t *n, int64_t now,
                    size_t max)
{
  void *v = NULL;
  int rc;

  if((uint64_t)max > (uint64_t)INT64_MAX)
    max = (size_t)INT64_MAX;
  rc = store_query(st, &v, n, sizeof(struct store_clock), clock_row,
                   "SELECT " CLOCK_COLUMNS " FROM clocks c JOIN games g ON g.id = c.game"
                   " WHERE c.next_event IS NOT NULL AND c.next_event <= $1"
                   " AND g.phase = 'active' AND c.seat >= 0 ORDER BY c.next_event LIMIT $2",
                   "clock_due", "ii", now, (int64_t)max);
  *clocks = v;
  return rc;
}

int store_clock_set_next(struct store *st, int64_t game, int64_t next_event)
{
  static const char sql[] = "UPDATE clocks SET next_event = $1 WHERE game = $2";
  /* < 0 (never) is NULL, as in store_clock_put */
  if(next_event < 0)
    return store_run(st, sql, "clock_set_next", "ni", game);
  return store_run(st, sql, "clock_set_next", "ii", next_event, game);
}

int store_games_invited_before(struct store *st, int64_t **ids, size_t *n, int64_t before)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       /* oldest first, in the order of the games_invited index:
                        * ORDER BY id alone made SQLite walk every game by its
                        * id instead (0.26 s a tick at a million) */
                       "SELECT id FROM games WHERE phase = 'invited' AND created <= $1"
                       " ORDER BY created, id",
                       "games_invited_before", "i", before);
  *ids = v;
  return rc;
}

int store_journal_count(struct store *st, int64_t *n, int64_t game, const char *kind)
{
  return store_query_one(st, n, sizeof(*n), store_row_int64,
                         "SELECT count(*) FROM journal WHERE game = $1 AND kind = $2",
                         "journal_count", "it", game, kind);
}

/* ---- vacations ---- */

int store_vacation_add(struct store *st, const char *address, int64_t first_day,
                       int64_t last_day, int64_t created)
{
  return store_run(st,
                   "INSERT INTO vacations(address, first_day, last_day, created)"
                   " VALUES($1, $2, $3, $4)",
                   "vacation_add", "tiii", address, first_day, last_day, created);
}

static int vacation_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_vacation *v = row;
  (void)st;
  v->first_day = store_col_int64(src, 0);
  v->last_day = store_col_int64(src, 1);
  v->created = store_col_int64(src, 2);
  return STORE_OK;
}

int store_vacation_list(struct store *st, struct store_vacation **vacs, size_t *n,
                        const char *address)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(struct store_vacation), vacation_row,
                       "SELECT first_day, last_day, created FROM vacations WHERE address = $1"
                       " ORDER BY first_day",
                       "vacation_list", "t", address);
  *vacs = v;
  return rc;
}

/* ---- the digest: preference and queue ---- */

int store_digest_pref_get(struct store *st, bool *on, const char *address)
{
  int64_t digest = 0;
  bool found;
  int rc = store_query_maybe(st, &found, &digest, sizeof(digest), store_row_int64,
                             "SELECT digest FROM prefs WHERE address = $1", "digest_pref_get",
                             "t", address);
  *on = rc == STORE_OK && found && digest != 0;
  return rc;
}

int store_digest_pref_set(struct store *st, const char *address, bool on)
{
  return store_run(st,
                   "INSERT INTO prefs(address, digest) VALUES($1, $2)"
                   " ON CONFLICT(address) DO UPDATE SET digest = excluded.digest",
                   "digest_pref_set", "ti", address, (int64_t)(on ? 1 : 0));
}

static int text_row(struct store *st, const struct store_row *src, void *row)
{
  char *buf = row;
  return store_copy_column(st, buf, 64, src, 0, "prefs.timezone");
}

int store_timezone_get(struct store *st, char *buf, size_t cap, const char *address)
{
  char zone[64] = "";
  bool found;
  int rc = store_query_maybe(st, &found, zone, sizeof(zone), text_row,
                             "SELECT timezone FROM prefs WHERE address = $1", "timezone_get",
                             "t", address);
  snprintf(buf, cap, "%s", rc == STORE_OK && found ? zone : "");
  return rc;
}

int store_timezone_set(struct store *st, const char *address, const char *zone)
{
  /* a new row's digest is off, as with no row */
  return store_run(st,
                   "INSERT INTO prefs(address, digest, timezone) VALUES($1, 0, $2)"
                   " ON CONFLICT(address) DO UPDATE SET timezone = excluded.timezone",
                   "timezone_set", "tt", address, zone);
}

int store_leave_auto_get(struct store *st, bool *on, const char *address)
{
  int64_t v = 0;
  bool found;
  int rc = store_query_maybe(st, &found, &v, sizeof(v), store_row_int64,
                             "SELECT leave_auto FROM prefs WHERE address = $1", "leave_auto_get",
                             "t", address);
  *on = rc == STORE_OK && found && v != 0;
  return rc;
}

int store_leave_auto_set(struct store *st, const char *address, bool on)
{
  return store_run(st,
                   "INSERT INTO prefs(address, digest, leave_auto) VALUES($1, 0, $2)"
                   " ON CONFLICT(address) DO UPDATE SET leave_auto = excluded.leave_auto",
                   "leave_auto_set", "ti", address, (int64_t)(on ? 1 : 0));
}

int store_calendar_get(struct store *st, bool *on, const char *address)
{
  int64_t v = 0;
  bool found;
  int rc = store_query_maybe(st, &found, &v, sizeof(v), store_row_int64,
                             "SELECT calendar FROM prefs WHERE address = $1", "calendar_get", "t",
                             address);
  *on = rc == STORE_OK && found && v != 0;
  return rc;
}

int store_calendar_set(struct store *st, const char *address, bool on)
{
  return store_run(st,
                   "INSERT INTO prefs(address, digest, calendar) VALUES($1, 0, $2)"
                   " ON CONFLICT(address) DO UPDATE SET calendar = excluded.calendar",
                   "calendar_set", "ti", address, (int64_t)(on ? 1 : 0));
}

int store_digest_add(struct store *st, const char *address, int64_t game, int64_t created,
                     const char *subject, const char *reply_to, const char *body)
{
  return store_run(st,
                   "INSERT INTO digest(address, game, created, subject, reply_to, body)"
                   " VALUES($1, $2, $3, $4, $5, $6)",
                   "digest_add", "tiittt", address, game, created, subject, reply_to, body);
}

static int waiting_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_digest_due *d = row;
  d->oldest = store_col_int64(src, 1);
  return store_copy_column(st, d->address, sizeof(d->address), src, 0, "digest.address");
}

int store_digest_waiting(struct store *st, struct store_digest_due **due, size_t *n)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(struct store_digest_due), waiting_row,
                       "SELECT address, min(created) FROM digest GROUP BY address ORDER BY address",
                       "digest_waiting", "");
  *due = v;
  return rc;
}

static int item_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_digest_item *it = row;
  const char *body;
  size_t len;
  int rc;

  it->id = store_col_int64(src, 0);
  it->game = store_col_int64(src, 1);
  it->created = store_col_int64(src, 2);
  rc = store_copy_column(st, it->subject, sizeof(it->subject), src, 3, "digest.subject");
  if(rc == STORE_OK)
    rc = store_copy_column(st, it->reply_to, sizeof(it->reply_to), src, 4, "digest.reply_to");
  if(rc)
    return rc;
  body = store_col_text(src, 5, &len);
  it->body = strdup(body ? body : "");
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
  struct store_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *items = NULL;
  *n = 0;
  /* not store_query: a failure frees the bodies of the rows read */
  rc = store_prepare_args(st, &stmt,
                          "SELECT id, game, created, subject, reply_to, body FROM digest"
                          " WHERE address = $1 ORDER BY id",
                          "digest_items", "t", address);
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
  return store_run(st, "DELETE FROM digest WHERE address = $1 AND id <= $2", "digest_clear",
                   "ti", address, upto_id);
}
