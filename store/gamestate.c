/*
 * gamestate.c: what the service keeps about a game, a seat or a player
 * beside their own rows (schema v10, store.c; contract in store.h):
 * standing resignation offers and takeback requests, standing rolls and
 * cube answers, observers, private and public-comments games, comments
 * turned off, a game's dice protocol, the lag previews sent, and the
 * hourly counts of mail. Until v10 these were strings in the kv table; a
 * table each since, so their constraints hold and `tabula check` sees
 * them (store_state_check). What they mean is the service's.
 */
#include "store_int.h"

#include "base.h"

#include <stdlib.h>
#include <string.h>

/* ---- row readers ---- */

struct two_ints {
  int64_t a, b;
};

static int read_two_ints(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct two_ints *r = row;
  (void)st;
  r->a = sqlite3_column_int64(stmt, 0);
  r->b = sqlite3_column_int64(stmt, 1);
  return STORE_OK;
}

/* ---- resignation offers (BG-5) ---- */

int store_resign_get(struct store *st, bool *found, int *seat, int *level, int64_t game)
{
  struct two_ints r;
  int rc = store_query_maybe(st, found, &r, sizeof(r), read_two_ints,
                             "SELECT seat, level FROM resign_offers WHERE game = ?1",
                             "resign_get", "i", game);
  *seat = rc == STORE_OK && *found ? (int)r.a : -1;
  *level = rc == STORE_OK && *found ? (int)r.b : 0;
  return rc;
}

int store_resign_set(struct store *st, int64_t game, int seat, int level)
{
  return store_run(st,
                   "INSERT INTO resign_offers(game, seat, level) VALUES(?1, ?2, ?3)"
                   " ON CONFLICT(game) DO UPDATE SET seat = excluded.seat, level = excluded.level",
                   "resign_set", "iii", game, (int64_t)seat, (int64_t)level);
}

int store_resign_clear(struct store *st, int64_t game)
{
  return store_run(st, "DELETE FROM resign_offers WHERE game = ?1", "resign_clear", "i", game);
}

/* ---- takeback requests ---- */

int store_takeback_get(struct store *st, bool *found, int *seat, int64_t *seq, int64_t game)
{
  struct two_ints r;
  int rc = store_query_maybe(st, found, &r, sizeof(r), read_two_ints,
                             "SELECT seat, seq FROM takeback_requests WHERE game = ?1",
                             "takeback_get", "i", game);
  *seat = rc == STORE_OK && *found ? (int)r.a : -1;
  *seq = rc == STORE_OK && *found ? r.b : 0;
  return rc;
}

int store_takeback_set(struct store *st, int64_t game, int seat, int64_t seq)
{
  return store_run(st,
                   "INSERT INTO takeback_requests(game, seat, seq) VALUES(?1, ?2, ?3)"
                   " ON CONFLICT(game) DO UPDATE SET seat = excluded.seat, seq = excluded.seq",
                   "takeback_set", "iii", game, (int64_t)seat, seq);
}

int store_takeback_clear(struct store *st, int64_t game)
{
  return store_run(st, "DELETE FROM takeback_requests WHERE game = ?1", "takeback_clear", "i",
                   game);
}

/* ---- standing rolls and cube answers (rules-spec 1.6) ---- */

int store_autoroll_get(struct store *st, bool *on, int64_t game, int seat)
{
  return store_query_exists(st, on, "SELECT 1 FROM standing_rolls WHERE game = ?1 AND seat = ?2",
                            "autoroll_get", "ii", game, (int64_t)seat);
}

int store_autoroll_set(struct store *st, int64_t game, int seat, bool on)
{
  if(!on)
    return store_run(st, "DELETE FROM standing_rolls WHERE game = ?1 AND seat = ?2",
                     "autoroll_set", "ii", game, (int64_t)seat);
  return store_run(st,
                   "INSERT INTO standing_rolls(game, seat) VALUES(?1, ?2)"
                   " ON CONFLICT(game, seat) DO NOTHING",
                   "autoroll_set", "ii", game, (int64_t)seat);
}

static int read_answer(struct store *st, sqlite3_stmt *stmt, void *row)
{
  enum store_cube_answer *a = row;
  const unsigned char *t = sqlite3_column_text(stmt, 0);
  (void)st;
  *a = !t                               ? STORE_CUBE_NONE
       : !strcmp((const char *)t, "take") ? STORE_CUBE_TAKE
       : !strcmp((const char *)t, "drop") ? STORE_CUBE_DROP
                                          : STORE_CUBE_NONE;
  return STORE_OK;
}

int store_cube_answer_get(struct store *st, enum store_cube_answer *answer, int64_t game,
                          int seat)
{
  bool found;
  int rc = store_query_maybe(st, &found, answer, sizeof(*answer), read_answer,
                             "SELECT answer FROM cube_answers WHERE game = ?1 AND seat = ?2",
                             "cube_answer_get", "ii", game, (int64_t)seat);
  if(rc != STORE_OK || !found)
    *answer = STORE_CUBE_NONE;
  return rc;
}

int store_cube_answer_set(struct store *st, int64_t game, int seat, enum store_cube_answer answer)
{
  if(answer != STORE_CUBE_TAKE && answer != STORE_CUBE_DROP)
    return store_run(st, "DELETE FROM cube_answers WHERE game = ?1 AND seat = ?2",
                     "cube_answer_set", "ii", game, (int64_t)seat);
  return store_run(st,
                   "INSERT INTO cube_answers(game, seat, answer) VALUES(?1, ?2, ?3)"
                   " ON CONFLICT(game, seat) DO UPDATE SET answer = excluded.answer",
                   "cube_answer_set", "iit", game, (int64_t)seat,
                   answer == STORE_CUBE_TAKE ? "take" : "drop");
}

/* ---- observers ---- */

static int read_observer(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_observer *o = row;
  return store_copy_column(st, o->address, sizeof(o->address), stmt, 0, "observers.address");
}

int store_observer_list(struct store *st, struct store_observer **rows, size_t *n, int64_t game)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(**rows), read_observer,
                       "SELECT address FROM observers WHERE game = ?1 ORDER BY id",
                       "observer_list", "i", game);
  *rows = v;
  return rc;
}

int store_observer_add(struct store *st, bool *added, int64_t game, const char *address)
{
  bool yes = false;
  int rc = store_query_exists(st, &yes,
                              "SELECT 1 FROM observers WHERE game = ?1 AND address = ?2",
                              "observer_add", "it", game, address);
  *added = false;
  if(rc != STORE_OK || yes)
    return rc;
  rc = store_run(st, "INSERT INTO observers(game, address) VALUES(?1, ?2)", "observer_add", "it",
                 game, address);
  *added = rc == STORE_OK;
  return rc;
}

int store_observer_remove(struct store *st, bool *removed, int64_t game, const char *address)
{
  bool yes = false;
  int rc = store_query_exists(st, &yes,
                              "SELECT 1 FROM observers WHERE game = ?1 AND lower(address) = lower(?2)",
                              "observer_remove", "it", game, address);
  *removed = false;
  if(rc != STORE_OK || !yes)
    return rc;
  rc = store_run(st, "DELETE FROM observers WHERE game = ?1 AND lower(address) = lower(?2)",
                 "observer_remove", "it", game, address);
  *removed = rc == STORE_OK;
  return rc;
}

/* ---- what a game was created as ---- */

int store_game_flag_get(struct store *st, bool *on, int64_t game, enum store_game_flag flag)
{
  if(flag == STORE_FLAG_PRIVATE)
    return store_query_exists(st, on, "SELECT 1 FROM private_games WHERE game = ?1",
                              "game_flag_get", "i", game);
  return store_query_exists(st, on, "SELECT 1 FROM public_comment_games WHERE game = ?1",
                            "game_flag_get", "i", game);
}

int store_game_flag_set(struct store *st, int64_t game, enum store_game_flag flag)
{
  if(flag == STORE_FLAG_PRIVATE)
    return store_run(st,
                     "INSERT INTO private_games(game) VALUES(?1) ON CONFLICT(game) DO NOTHING",
                     "game_flag_set", "i", game);
  return store_run(st,
                   "INSERT INTO public_comment_games(game) VALUES(?1)"
                   " ON CONFLICT(game) DO NOTHING",
                   "game_flag_set", "i", game);
}

/* ---- comments turned off ---- */

int store_comments_off_get(struct store *st, bool *off, const char *address)
{
  return store_query_exists(st, off, "SELECT 1 FROM comments_off WHERE address = ?1",
                            "comments_off_get", "t", address);
}

int store_comments_off_set(struct store *st, const char *address, bool off)
{
  if(!off)
    return store_run(st, "DELETE FROM comments_off WHERE address = ?1", "comments_off_set", "t",
                     address);
  return store_run(st,
                   "INSERT INTO comments_off(address) VALUES(?1)"
                   " ON CONFLICT(address) DO NOTHING",
                   "comments_off_set", "t", address);
}

/* ---- a game's dice protocol, its lag previews ---- */

int store_dice_protocol_get(struct store *st, int *version, int64_t game)
{
  int64_t v = 0;
  bool found;
  int rc = store_query_maybe(st, &found, &v, sizeof(v), store_row_int64,
                             "SELECT version FROM dice_protocols WHERE game = ?1",
                             "dice_protocol_get", "i", game);
  *version = rc == STORE_OK && found ? (int)v : 0;
  return rc;
}

int store_dice_protocol_set(struct store *st, int64_t game, int version)
{
  return store_run(st,
                   "INSERT INTO dice_protocols(game, version) VALUES(?1, ?2)"
                   " ON CONFLICT(game) DO UPDATE SET version = excluded.version",
                   "dice_protocol_set", "ii", game, (int64_t)version);
}

int store_lag_get(struct store *st, int64_t *roll, int64_t game)
{
  bool found;
  int rc = store_query_maybe(st, &found, roll, sizeof(*roll), store_row_int64,
                             "SELECT roll FROM lag_previews WHERE game = ?1", "lag_get", "i",
                             game);
  if(rc != STORE_OK || !found)
    *roll = 0;
  return rc;
}

int store_lag_set(struct store *st, int64_t game, int64_t roll)
{
  return store_run(st,
                   "INSERT INTO lag_previews(game, roll) VALUES(?1, ?2)"
                   " ON CONFLICT(game) DO UPDATE SET roll = excluded.roll",
                   "lag_set", "ii", game, roll);
}

/* ---- hourly counts (rules-spec MX-4) ---- */

static const char *counter_name(enum store_counter c)
{
  switch(c) {
  case STORE_COUNT_RATE: return "rate";
  case STORE_COUNT_UNASKED: return "unasked";
  case STORE_COUNT_STRANGERS: return "strangers";
  }
  return "";
}

int store_hourly_get(struct store *st, bool *found, struct store_hourly *out,
                     enum store_counter counter, const char *address)
{
  struct two_ints r;
  int rc = store_query_maybe(st, found, &r, sizeof(r), read_two_ints,
                             "SELECT start, count FROM hourly_counts"
                             " WHERE counter = ?1 AND address = ?2",
                             "hourly_get", "tt", counter_name(counter), address);
  out->start = rc == STORE_OK && *found ? r.a : 0;
  out->count = rc == STORE_OK && *found ? r.b : 0;
  return rc;
}

int store_hourly_set(struct store *st, enum store_counter counter, const char *address,
                     const struct store_hourly *h)
{
  return store_run(st,
                   "INSERT INTO hourly_counts(counter, address, start, count)"
                   " VALUES(?1, ?2, ?3, ?4) ON CONFLICT(counter, address)"
                   " DO UPDATE SET start = excluded.start, count = excluded.count",
                   "hourly_set", "ttii", counter_name(counter), address, h->start, h->count);
}

/* ---- tabula check ---- */

/* One check: a query whose rows are problems, read as (game, seat,
 * address); the line names the table, then what the row holds, then
 * `problem`. */
struct state_check {
  const char *table;
  const char *problem;
  const char *sql;
  bool seat, address;
};

/* A row of a game that does not exist, of a seat the game does not have. */
#define NO_GAME(t) "SELECT game, -1, '' FROM " t " WHERE game NOT IN (SELECT id FROM games)"
#define NO_SEAT(t)                                                                           \
  "SELECT game, seat, '' FROM " t " x WHERE game IN (SELECT id FROM games) AND NOT EXISTS("  \
  "SELECT 1 FROM seats s WHERE s.game = x.game AND s.seat = x.seat)"

static const struct state_check checks[] = {
  {"resign_offers", "no such game", NO_GAME("resign_offers"), false, false},
  {"resign_offers", "no such seat", NO_SEAT("resign_offers"), true, false},
  {"resign_offers", "level not 1 to 3",
   "SELECT game, seat, '' FROM resign_offers WHERE level < 1 OR level > 3", true, false},
  {"takeback_requests", "no such game", NO_GAME("takeback_requests"), false, false},
  {"takeback_requests", "no such seat", NO_SEAT("takeback_requests"), true, false},
  {"takeback_requests", "names no move of the game's journal",
   "SELECT game, seat, '' FROM takeback_requests t WHERE game IN (SELECT id FROM games)"
   " AND NOT EXISTS(SELECT 1 FROM journal j WHERE j.game = t.game AND j.seq = t.seq"
   " AND j.kind = 'move')",
   true, false},
  {"standing_rolls", "no such game", NO_GAME("standing_rolls"), false, false},
  {"standing_rolls", "no such seat", NO_SEAT("standing_rolls"), true, false},
  {"cube_answers", "no such game", NO_GAME("cube_answers"), false, false},
  {"cube_answers", "no such seat", NO_SEAT("cube_answers"), true, false},
  {"cube_answers", "answer not take or drop",
   "SELECT game, seat, '' FROM cube_answers WHERE answer <> 'take' AND answer <> 'drop'", true,
   false},
  {"observers", "no such game", "SELECT game, -1, address FROM observers"
                                " WHERE game NOT IN (SELECT id FROM games)",
   false, true},
  {"observers", "observes a private game",
   "SELECT game, -1, address FROM observers WHERE game IN (SELECT game FROM private_games)",
   false, true},
  {"private_games", "no such game", NO_GAME("private_games"), false, false},
  {"public_comment_games", "no such game", NO_GAME("public_comment_games"), false, false},
  {"comments_off", "no such player",
   "SELECT 0, -1, address FROM comments_off WHERE address NOT IN (SELECT address FROM players)",
   false, true},
  {"dice_protocols", "no such game", NO_GAME("dice_protocols"), false, false},
  {"dice_protocols", "version not 1 or 2",
   "SELECT game, -1, '' FROM dice_protocols WHERE version < 1 OR version > 2", false, false},
  {"dice_protocols", "game without dice",
   "SELECT game, -1, '' FROM dice_protocols p WHERE game IN (SELECT id FROM games)"
   " AND NOT EXISTS(SELECT 1 FROM dice d WHERE d.game = p.game)",
   false, false},
  {"lag_previews", "no such game", NO_GAME("lag_previews"), false, false},
  {"lag_previews", "roll below 0", "SELECT game, -1, '' FROM lag_previews WHERE roll < 0",
   false, false},
  {"hourly_counts", "count below 0 or counter unknown",
   "SELECT 0, -1, counter || ' ' || address FROM hourly_counts WHERE count < 0"
   " OR (counter <> 'rate' AND counter <> 'unasked' AND counter <> 'strangers')",
   false, true},
  {"kv", "game state outside its table (schema v10)",
   "SELECT 0, -1, key FROM kv WHERE " STORE_KV_STATE_KEYS,
   false, true},
};

struct problem_row {
  int64_t game, seat;
  char address[600];
};

static int read_problem(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct problem_row *p = row;
  p->game = sqlite3_column_int64(stmt, 0);
  p->seat = sqlite3_column_int64(stmt, 1);
  return store_copy_column(st, p->address, sizeof(p->address), stmt, 2, "check.address");
}

/* Appends the line of one problem row. */
static int add_line(struct base_buf *out, const struct state_check *c,
                    const struct problem_row *p)
{
  if(c->address && p->game)
    return base_buf_printf(out, "%s: game %lld, %s: %s\n", c->table, (long long)p->game,
                           p->address, c->problem);
  if(c->address)
    return base_buf_printf(out, "%s: %s: %s\n", c->table, p->address, c->problem);
  if(c->seat)
    return base_buf_printf(out, "%s: game %lld seat %lld: %s\n", c->table, (long long)p->game,
                           (long long)p->seat, c->problem);
  return base_buf_printf(out, "%s: game %lld: %s\n", c->table, (long long)p->game, c->problem);
}

/* The problems' text is for the operator: at most this much of it. */
#define STATE_CHECK_TEXT_MAX (1024u * 1024u)

int store_state_check(struct store *st, char **problems)
{
  struct base_buf out;
  size_t i, j;
  int rc = STORE_OK;

  *problems = NULL;
  base_buf_init(&out, STATE_CHECK_TEXT_MAX);
  for(i = 0; rc == STORE_OK && i < sizeof(checks) / sizeof(checks[0]); i++) {
    void *v = NULL;
    struct problem_row *rows;
    size_t n = 0;
    rc = store_query(st, &v, &n, sizeof(*rows), read_problem, checks[i].sql, "state_check", "");
    rows = v;
    for(j = 0; rc == STORE_OK && j < n; j++)
      if(add_line(&out, &checks[i], &rows[j]))
        rc = store_fail(st, STORE_ENOMEM, "state_check: the problems' text is too long");
    free(rows);
  }
  if(rc == STORE_OK && !(*problems = base_buf_take(&out)))
    rc = store_fail(st, STORE_ENOMEM, "state_check: out of memory");
  base_buf_free(&out);
  return rc;
}
