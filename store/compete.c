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

static int rating_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_rating *r = row;
  int rc = store_copy_column(st, r->kind, sizeof(r->kind), src, 0, "ratings.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, r->address, sizeof(r->address), src, 1, "ratings.address");
  r->rating = store_col_double(src, 2);
  r->rd = store_col_double(src, 3);
  r->volatility = store_col_double(src, 4);
  r->games = store_col_int(src, 5);
  r->wins = store_col_int(src, 6);
  r->draws = store_col_int(src, 7);
  r->losses = store_col_int(src, 8);
  r->last_ended = store_col_int64(src, 9);
  r->last_unit = store_col_int64(src, 10);
  return rc;
}

int store_rating_get(struct store *st, struct store_rating *out, const char *kind,
                     const char *address)
{
  return store_query_one(st, out, sizeof(*out), rating_row,
                         "SELECT " RATING_COLUMNS " FROM ratings WHERE kind = $1 AND address = $2",
                         "rating_get", "tt", kind, address);
}

int store_rating_put(struct store *st, const struct store_rating *r)
{
  return store_run(
      st,
      "INSERT INTO ratings(" RATING_COLUMNS ") VALUES($1, $2, $3, $4, $5, $6, $7, $8,"
      " $9, $10, $11) ON CONFLICT(kind, address) DO UPDATE SET rating = excluded.rating,"
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
                       "SELECT " RATING_COLUMNS " FROM ratings WHERE $1 IS NULL OR kind = $1"
                       " ORDER BY kind, rating DESC, address",
                       "rating_list", "t", kind);
  *rows = v;
  return rc;
}

int store_rating_clear(struct store *st, const char *kind)
{
  return store_run(st, "DELETE FROM ratings WHERE $1 IS NULL OR kind = $1", "rating_clear", "t",
                   kind);
}

/* ---- matches ---- */

static const char *const match_phases[] = {"playing", "finished"};

static int match_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_match *m = row;
  size_t len;
  const char *phase = store_col_text(src, 2, &len);
  m->id = store_col_int64(src, 0);
  m->length = store_col_int(src, 1);
  m->phase = phase && !strcmp(phase, "finished") ? STORE_MATCH_FINISHED : STORE_MATCH_PLAYING;
  m->winner = store_col_int(src, 3);
  m->created = store_col_int64(src, 4);
  (void)st;
  return STORE_OK;
}

int store_match_create(struct store *st, int64_t *id, int length, int64_t created)
{
  int64_t row = 0;
  int rc = store_query_one(
      st, &row, sizeof(row), store_row_int64,
      "INSERT INTO matches(length, phase, winner, created) VALUES($1, 'playing', -1, $2)"
      " RETURNING id",
      "match_create", "ii", (int64_t)length, created);
  if(rc == STORE_OK)
    *id = row;
  return rc;
}

int store_match_load(struct store *st, struct store_match *out, int64_t id)
{
  return store_query_one(st, out, sizeof(*out), match_row,
                         "SELECT id, length, phase, winner, created FROM matches WHERE id = $1",
                         "match_load", "i", id);
}

int store_match_update(struct store *st, const struct store_match *m)
{
  return store_run(st, "UPDATE matches SET phase = $1, winner = $2 WHERE id = $3", "match_update",
                   "tii", match_phases[m->phase == STORE_MATCH_FINISHED], (int64_t)m->winner,
                   m->id);
}

int store_match_add_game(struct store *st, int64_t match, int number, int64_t game)
{
  return store_run(st, "INSERT INTO match_games(match, number, game) VALUES($1, $2, $3)",
                   "match_add_game", "iii", match, (int64_t)number, game);
}

int store_match_games(struct store *st, int64_t **games, size_t *n, int64_t match)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT game FROM match_games WHERE match = $1 ORDER BY number",
                       "match_games", "i", match);
  *games = v;
  return rc;
}

struct match_link {
  int64_t match;
  int number;
};

static int link_row(struct store *st, const struct store_row *src, void *row)
{
  struct match_link *l = row;
  (void)st;
  l->match = store_col_int64(src, 0);
  l->number = store_col_int(src, 1);
  return STORE_OK;
}

int store_match_of_game(struct store *st, int64_t *match, int *number, int64_t game)
{
  struct match_link l;
  int rc = store_query_one(st, &l, sizeof(l), link_row,
                           "SELECT match, number FROM match_games WHERE game = $1", "match_of_game",
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

static int tournament_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_tournament *t = row;
  size_t len;
  const char *phase = store_col_text(src, 6, &len);
  int rc, i;
  t->id = store_col_int64(src, 0);
  rc = store_copy_column(st, t->name, sizeof(t->name), src, 1, "tournaments.name");
  if(rc == STORE_OK)
    rc = store_copy_column(st, t->kind, sizeof(t->kind), src, 2, "tournaments.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, t->options, sizeof(t->options), src, 3, "tournaments.options");
  t->cycles = store_col_int(src, 4);
  if(rc == STORE_OK)
    rc = store_copy_column(st, t->organizer, sizeof(t->organizer), src, 5,
                           "tournaments.organizer");
  t->phase = STORE_TOURNAMENT_INVITED;
  for(i = 0; phase && i < 4; i++)
    if(!strcmp(phase, tournament_phases[i]))
      t->phase = (enum store_tournament_phase)i;
  t->created = store_col_int64(src, 7);
  t->finished = store_col_int64(src, 8);
  return rc;
}

int store_tournament_create(struct store *st, int64_t *id, const struct store_tournament *t)
{
  int64_t row = 0;
  int rc = store_query_one(
      st, &row, sizeof(row), store_row_int64,
      "INSERT INTO tournaments(name, kind, options, cycles, organizer, phase, created,"
      " finished) VALUES($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
      "tournament_create", "tttittii", t->name, t->kind, t->options, (int64_t)t->cycles,
      t->organizer, tournament_phases[t->phase], t->created, t->finished);
  if(rc == STORE_OK)
    *id = row;
  return rc;
}

int store_tournament_load(struct store *st, struct store_tournament *out, int64_t id)
{
  return store_query_one(st, out, sizeof(*out), tournament_row,
                         "SELECT " TOURNAMENT_COLUMNS " FROM tournaments WHERE id = $1",
                         "tournament_load", "i", id);
}

int store_tournament_find(struct store *st, struct store_tournament *out, const char *name)
{
  return store_query_one(st, out, sizeof(*out), tournament_row,
                         "SELECT " TOURNAMENT_COLUMNS
                         " FROM tournaments WHERE name = $1 COLLATE NOCASE",
                         "tournament_find", "t", name);
}

int store_tournament_update(struct store *st, const struct store_tournament *t)
{
  return store_run(st, "UPDATE tournaments SET phase = $1, finished = $2 WHERE id = $3",
                   "tournament_update", "tii", tournament_phases[t->phase], t->finished, t->id);
}

int store_tournament_add_player(struct store *st, int64_t tournament, int number,
                                const char *address)
{
  return store_run(st,
                   "INSERT INTO tournament_players(tournament, number, address) VALUES($1, $2, $3)",
                   "tournament_add_player", "iit", tournament, (int64_t)number, address);
}

static int player_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_tournament_player *p = row;
  p->number = store_col_int(src, 0);
  return store_copy_column(st, p->address, sizeof(p->address), src, 1,
                           "tournament_players.address");
}

int store_tournament_players(struct store *st, struct store_tournament_player **players,
                             size_t *n, int64_t tournament)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(**players), player_row,
                       "SELECT number, address FROM tournament_players WHERE tournament = $1"
                       " ORDER BY number",
                       "tournament_players", "i", tournament);
  *players = v;
  return rc;
}

int store_tournament_add_game(struct store *st, int64_t tournament, int64_t game, int round)
{
  return store_run(st, "INSERT INTO tournament_games(tournament, game, round) VALUES($1, $2, $3)",
                   "tournament_add_game", "iii", tournament, game, (int64_t)round);
}

int store_tournament_games(struct store *st, int64_t **games, size_t *n, int64_t tournament)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT game FROM tournament_games WHERE tournament = $1 ORDER BY game",
                       "tournament_games", "i", tournament);
  *games = v;
  return rc;
}

int store_tournament_of_game(struct store *st, int64_t *tournament, int64_t game)
{
  return store_query_one(st, tournament, sizeof(*tournament), store_row_int64,
                         "SELECT tournament FROM tournament_games WHERE game = $1",
                         "tournament_of_game", "i", game);
}

int store_tournament_list(struct store *st, int64_t **ids, size_t *n, const char *address)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT id FROM tournaments t WHERE $1 IS NULL OR EXISTS(SELECT 1 FROM"
                       " tournament_players p WHERE p.tournament = t.id AND p.address = $1"
                       " COLLATE NOCASE) ORDER BY id",
                       "tournament_list", "t", address);
  *ids = v;
  return rc;
}

int store_tournament_game_round(struct store *st, int *round, int64_t game)
{
  int64_t r = 0;
  int rc = store_query_one(st, &r, sizeof(r), store_row_int64,
                           "SELECT round FROM tournament_games WHERE game = $1",
                           "tournament_game_round", "i", game);
  *round = (int)r;
  return rc;
}

/* ---- knockouts ---- */

int store_knockout_create(struct store *st, int64_t tournament, int length)
{
  return store_run(st, "INSERT INTO knockouts(tournament, length) VALUES($1, $2)",
                   "knockout_create", "ii", tournament, (int64_t)length);
}

int store_knockout_length(struct store *st, int *length, int64_t tournament)
{
  int64_t l = 0;
  int rc = store_query_one(st, &l, sizeof(l), store_row_int64,
                           "SELECT length FROM knockouts WHERE tournament = $1",
                           "knockout_length", "i", tournament);
  *length = (int)l;
  return rc;
}

int store_knockout_entry_put(struct store *st, int64_t tournament,
                             const struct store_knockout_entry *e)
{
  int rc = store_run(st, "DELETE FROM knockout_entries WHERE tournament = $1 AND number = $2",
                     "knockout_entry_delete", "ii", tournament, (int64_t)e->number);
  if(rc != STORE_OK)
    return rc;
  return store_run(st,
                   "INSERT INTO knockout_entries(tournament, number, entropy, accepted, position,"
                   " withdrawn) VALUES($1, $2, $3, $4, $5, $6)",
                   "knockout_entry_put", "iitiii", tournament, (int64_t)e->number, e->entropy,
                   (int64_t)(e->accepted != 0), (int64_t)e->position,
                   (int64_t)(e->withdrawn != 0));
}

static int entry_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_knockout_entry *e = row;
  e->number = store_col_int(src, 0);
  e->accepted = store_col_int(src, 2);
  e->position = store_col_int(src, 3);
  e->withdrawn = store_col_int(src, 4);
  return store_copy_column(st, e->entropy, sizeof(e->entropy), src, 1,
                           "knockout_entries.entropy");
}

int store_knockout_entries(struct store *st, struct store_knockout_entry **entries, size_t *n,
                           int64_t tournament)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(**entries), entry_row,
                       "SELECT number, entropy, accepted, position, withdrawn"
                       " FROM knockout_entries WHERE tournament = $1 ORDER BY number",
                       "knockout_entries", "i", tournament);
  *entries = v;
  return rc;
}

int store_knockout_slot_put(struct store *st, int64_t tournament,
                            const struct store_knockout_slot *s)
{
  int rc = store_run(st, "DELETE FROM knockout_slots WHERE tournament = $1 AND slot = $2",
                     "knockout_slot_delete", "ii", tournament, (int64_t)s->slot);
  if(rc != STORE_OK)
    return rc;
  if(s->match > 0)
    return store_run(st,
                     "INSERT INTO knockout_slots(tournament, slot, commitment, secret, match,"
                     " winner) VALUES($1, $2, $3, $4, $5, $6)",
                     "knockout_slot_put", "iittii", tournament, (int64_t)s->slot, s->commitment,
                     s->secret, s->match, (int64_t)s->winner);
  return store_run(st,
                   "INSERT INTO knockout_slots(tournament, slot, commitment, secret, winner)"
                   " VALUES($1, $2, $3, $4, $5)",
                   "knockout_slot_put", "iitti", tournament, (int64_t)s->slot, s->commitment,
                   s->secret, (int64_t)s->winner);
}

static int slot_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_knockout_slot *s = row;
  int rc;
  s->slot = store_col_int(src, 0);
  s->match = store_col_int64(src, 3);
  s->winner = store_col_int(src, 4);
  rc = store_copy_column(st, s->commitment, sizeof(s->commitment), src, 1,
                         "knockout_slots.commitment");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->secret, sizeof(s->secret), src, 2, "knockout_slots.secret");
  return rc;
}

int store_knockout_slots(struct store *st, struct store_knockout_slot **slots, size_t *n,
                         int64_t tournament)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(**slots), slot_row,
                       "SELECT slot, commitment, secret, COALESCE(match, 0), winner"
                       " FROM knockout_slots WHERE tournament = $1 ORDER BY slot",
                       "knockout_slots", "i", tournament);
  *slots = v;
  return rc;
}
