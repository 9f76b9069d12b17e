/*
 * compete.c: the tables of competition in tabula_store: ratings,
 * backgammon matches, round-robin tournaments. Contract in store.h, schema
 * in store.c (migration 6). The store keeps the facts; what a rating is,
 * what a match's score is and who leads a tournament are the service's
 * (referee/kit/glicko.c; referee/games/ratings.c, match.c,
 * tournament.c).
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- ratings ---- */

#define RATING_COLUMNS                                                                      \
  "kind, address, rating, rd, volatility, games, wins, draws, losses, last_ended, last_unit"

static int rating_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_rating *r = row;
  int rc = store_copy_column(st, r->kind, sizeof(r->kind), stmt, 0, "ratings.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, r->address, sizeof(r->address), stmt, 1, "ratings.address");
  r->rating = sqlite3_column_double(stmt, 2);
  r->rd = sqlite3_column_double(stmt, 3);
  r->volatility = sqlite3_column_double(stmt, 4);
  r->games = sqlite3_column_int(stmt, 5);
  r->wins = sqlite3_column_int(stmt, 6);
  r->draws = sqlite3_column_int(stmt, 7);
  r->losses = sqlite3_column_int(stmt, 8);
  r->last_ended = sqlite3_column_int64(stmt, 9);
  r->last_unit = sqlite3_column_int64(stmt, 10);
  return rc;
}

int store_rating_get(struct store *st, struct store_rating *out, const char *kind,
                     const char *address)
{
  return store_query_one(st, out, sizeof(*out), rating_row,
                         "SELECT " RATING_COLUMNS " FROM ratings WHERE kind = ?1 AND address = ?2",
                         "rating_get", "tt", kind, address);
}

int store_rating_put(struct store *st, const struct store_rating *r)
{
  return store_run(
      st,
      "INSERT INTO ratings(" RATING_COLUMNS ") VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
      " ?9, ?10, ?11) ON CONFLICT(kind, address) DO UPDATE SET rating = excluded.rating,"
      " rd = excluded.rd, volatility = excluded.volatility, games = excluded.games,"
      " wins = excluded.wins, draws = excluded.draws, losses = excluded.losses,"
      " last_ended = excluded.last_ended, last_unit = excluded.last_unit",
      "rating_put", "ttdddiiiiii", r->kind, r->address, r->rating, r->rd, r->volatility,
      (int64_t)r->games, (int64_t)r->wins, (int64_t)r->draws, (int64_t)r->losses, r->last_ended,
      r->last_unit);
}

int store_rating_list(struct store *st, struct store_rating **rows, size_t *n, const char *kind)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(**rows), rating_row,
                       "SELECT " RATING_COLUMNS " FROM ratings WHERE ?1 IS NULL OR kind = ?1"
                       " ORDER BY kind, rating DESC, address",
                       "rating_list", "t", kind);
  *rows = v;
  return rc;
}

int store_rating_clear(struct store *st, const char *kind)
{
  return store_run(st, "DELETE FROM ratings WHERE ?1 IS NULL OR kind = ?1", "rating_clear", "t",
                   kind);
}

/* ---- matches ---- */

static const char *const match_phases[] = {"playing", "finished"};

static int match_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_match *m = row;
  const unsigned char *phase = sqlite3_column_text(stmt, 2);
  m->id = sqlite3_column_int64(stmt, 0);
  m->length = sqlite3_column_int(stmt, 1);
  m->phase = phase && !strcmp((const char *)phase, "finished") ? STORE_MATCH_FINISHED
                                                                : STORE_MATCH_PLAYING;
  m->winner = sqlite3_column_int(stmt, 3);
  m->created = sqlite3_column_int64(stmt, 4);
  (void)st;
  return STORE_OK;
}

int store_match_create(struct store *st, int64_t *id, int length, int64_t created)
{
  int rc = store_run(
      st, "INSERT INTO matches(length, phase, winner, created) VALUES(?1, 'playing', -1, ?2)",
      "match_create", "ii", (int64_t)length, created);
  if(rc == STORE_OK)
    *id = sqlite3_last_insert_rowid(st->db);
  return rc;
}

int store_match_load(struct store *st, struct store_match *out, int64_t id)
{
  return store_query_one(st, out, sizeof(*out), match_row,
                         "SELECT id, length, phase, winner, created FROM matches WHERE id = ?1",
                         "match_load", "i", id);
}

int store_match_update(struct store *st, const struct store_match *m)
{
  return store_run(st, "UPDATE matches SET phase = ?2, winner = ?3 WHERE id = ?1", "match_update",
                   "iti", m->id, match_phases[m->phase == STORE_MATCH_FINISHED],
                   (int64_t)m->winner);
}

int store_match_add_game(struct store *st, int64_t match, int number, int64_t game)
{
  return store_run(st, "INSERT INTO match_games(match, number, game) VALUES(?1, ?2, ?3)",
                   "match_add_game", "iii", match, (int64_t)number, game);
}

int store_match_games(struct store *st, int64_t **games, size_t *n, int64_t match)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT game FROM match_games WHERE match = ?1 ORDER BY number",
                       "match_games", "i", match);
  *games = v;
  return rc;
}

struct match_link {
  int64_t match;
  int number;
};

static int link_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct match_link *l = row;
  (void)st;
  l->match = sqlite3_column_int64(stmt, 0);
  l->number = sqlite3_column_int(stmt, 1);
  return STORE_OK;
}

int store_match_of_game(struct store *st, int64_t *match, int *number, int64_t game)
{
  struct match_link l;
  int rc = store_query_one(st, &l, sizeof(l), link_row,
                           "SELECT match, number FROM match_games WHERE game = ?1", "match_of_game",
                           "i", game);
  *match = rc == STORE_OK ? l.match : 0;
  *number = rc == STORE_OK ? l.number : 0;
  return rc;
}

int store_match_list(struct store *st, int64_t **ids, size_t *n)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT id FROM matches ORDER BY id", "match_list", "");
  *ids = v;
  return rc;
}

/* ---- round-robin tournaments ---- */

static const char *const tournament_phases[] = {"invited", "playing", "finished", "cancelled"};

#define TOURNAMENT_COLUMNS "id, name, kind, options, cycles, organizer, phase, created, finished"

static int tournament_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_tournament *t = row;
  const unsigned char *phase = sqlite3_column_text(stmt, 6);
  int rc, i;
  t->id = sqlite3_column_int64(stmt, 0);
  rc = store_copy_column(st, t->name, sizeof(t->name), stmt, 1, "tournaments.name");
  if(rc == STORE_OK)
    rc = store_copy_column(st, t->kind, sizeof(t->kind), stmt, 2, "tournaments.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, t->options, sizeof(t->options), stmt, 3, "tournaments.options");
  t->cycles = sqlite3_column_int(stmt, 4);
  if(rc == STORE_OK)
    rc = store_copy_column(st, t->organizer, sizeof(t->organizer), stmt, 5,
                           "tournaments.organizer");
  t->phase = STORE_TOURNAMENT_INVITED;
  for(i = 0; phase && i < 4; i++)
    if(!strcmp((const char *)phase, tournament_phases[i]))
      t->phase = (enum store_tournament_phase)i;
  t->created = sqlite3_column_int64(stmt, 7);
  t->finished = sqlite3_column_int64(stmt, 8);
  return rc;
}

int store_tournament_create(struct store *st, int64_t *id, const struct store_tournament *t)
{
  int rc =
      store_run(st,
                "INSERT INTO tournaments(name, kind, options, cycles, organizer, phase, created,"
                " finished) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                "tournament_create", "tttittii", t->name, t->kind, t->options, (int64_t)t->cycles,
                t->organizer, tournament_phases[t->phase], t->created, t->finished);
  if(rc == STORE_OK)
    *id = sqlite3_last_insert_rowid(st->db);
  return rc;
}

int store_tournament_load(struct store *st, struct store_tournament *out, int64_t id)
{
  return store_query_one(st, out, sizeof(*out), tournament_row,
                         "SELECT " TOURNAMENT_COLUMNS " FROM tournaments WHERE id = ?1",
                         "tournament_load", "i", id);
}

int store_tournament_find(struct store *st, struct store_tournament *out, const char *name)
{
  return store_query_one(st, out, sizeof(*out), tournament_row,
                         "SELECT " TOURNAMENT_COLUMNS
                         " FROM tournaments WHERE name = ?1 COLLATE NOCASE",
                         "tournament_find", "t", name);
}

int store_tournament_update(struct store *st, const struct store_tournament *t)
{
  return store_run(st, "UPDATE tournaments SET phase = ?2, finished = ?3 WHERE id = ?1",
                   "tournament_update", "iti", t->id, tournament_phases[t->phase], t->finished);
}

int store_tournament_add_player(struct store *st, int64_t tournament, int number,
                                const char *address)
{
  return store_run(st,
                   "INSERT INTO tournament_players(tournament, number, address) VALUES(?1, ?2, ?3)",
                   "tournament_add_player", "iit", tournament, (int64_t)number, address);
}

static int player_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_tournament_player *p = row;
  p->number = sqlite3_column_int(stmt, 0);
  return store_copy_column(st, p->address, sizeof(p->address), stmt, 1,
                           "tournament_players.address");
}

int store_tournament_players(struct store *st, struct store_tournament_player **players,
                             size_t *n, int64_t tournament)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(**players), player_row,
                       "SELECT number, address FROM tournament_players WHERE tournament = ?1"
                       " ORDER BY number",
                       "tournament_players", "i", tournament);
  *players = v;
  return rc;
}

int store_tournament_add_game(struct store *st, int64_t tournament, int64_t game, int round)
{
  return store_run(st, "INSERT INTO tournament_games(tournament, game, round) VALUES(?1, ?2, ?3)",
                   "tournament_add_game", "iii", tournament, game, (int64_t)round);
}

int store_tournament_games(struct store *st, int64_t **games, size_t *n, int64_t tournament)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT game FROM tournament_games WHERE tournament = ?1 ORDER BY game",
                       "tournament_games", "i", tournament);
  *games = v;
  return rc;
}

int store_tournament_of_game(struct store *st, int64_t *tournament, int64_t game)
{
  return store_query_one(st, tournament, sizeof(*tournament), store_row_int64,
                         "SELECT tournament FROM tournament_games WHERE game = ?1",
                         "tournament_of_game", "i", game);
}

int store_tournament_list(struct store *st, int64_t **ids, size_t *n, const char *address)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT id FROM tournaments t WHERE ?1 IS NULL OR EXISTS(SELECT 1 FROM"
                       " tournament_players p WHERE p.tournament = t.id AND p.address = ?1"
                       " COLLATE NOCASE) ORDER BY id",
                       "tournament_list", "t", address);
  *ids = v;
  return rc;
}
