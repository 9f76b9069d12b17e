/*
 * games.c: the games, seats (with players) and dice tables of tabula_store.
 * Contract in store.h; schema in store.c (migrations[]).
 *
 * Dice rows hold the secret end x_N of a tabula-dice-1 chain
 * (docs/dice-protocol.md): nothing here ever puts a column value into an
 * error message, so the secret cannot leave through store_errmsg.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* Indexed by enum store_game_phase; the words are what games.phase holds. */
static const char *const phase_names[] = {"invited", "active", "finished", "cancelled"};
#define PHASE_COUNT (sizeof(phase_names) / sizeof(phase_names[0]))

static int phase_from_word(struct store *st, enum store_game_phase *out, const char *word)
{
  size_t i;

  for(i = 0; i < PHASE_COUNT; i++) {
    if(!strcmp(word, phase_names[i])) {
      *out = (enum store_game_phase)i;
      return STORE_OK;
    }
  }
  return store_fail(st, STORE_ECORRUPT, "games.phase holds an unknown word");
}

static int id_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  (void)st;
  *(int64_t *)row = sqlite3_column_int64(stmt, 0);
  return STORE_OK;
}

/* Runs a query whose rows are one integer id each into a malloc'd array. */
static int collect_ids(struct store *st, int64_t **ids, size_t *n, sqlite3_stmt *stmt,
                       const char *what)
{
  void *v = NULL;
  size_t count = 0;
  int rc = store_collect(st, stmt, sizeof(int64_t), &v, &count, id_row, what);

  if(rc) {
    free(v);
    v = NULL;
    count = 0;
  }
  *ids = v;
  *n = count;
  return rc;
}

/* ---- games ---- */

/* Binds the columns common to create (?1..?11) and update (?1..?10 + id):
 * kind, rules_version, options, phase, state, turn, result, updated,
 * deadline, draw_offer_seat at 1..10. */
static int bind_game(struct store *st, sqlite3_stmt *stmt, const struct store_game *g)
{
  int rc;

  if((unsigned)g->phase >= PHASE_COUNT)
    return store_fail(st, STORE_EIO, "game: phase %d is not a known phase", (int)g->phase);
  rc = store_bind_field(st, stmt, 1, g->kind, sizeof(g->kind), "games.kind");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, g->rules_version, "games.rules_version");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 3, g->options, sizeof(g->options), "games.options");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 4, phase_names[g->phase], "games.phase");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 5, g->state, sizeof(g->state), "games.state");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 6, g->turn, "games.turn");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 7, g->result, sizeof(g->result), "games.result");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 8, g->updated, "games.updated");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 9, g->deadline, "games.deadline");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 10, g->draw_offer_seat, "games.draw_offer_seat");
  return rc;
}

int store_game_create(struct store *st, int64_t *id, const struct store_game *g)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *id = 0;
  rc = store_prepare(st, &stmt,
                     "INSERT INTO games(kind, rules_version, options, phase, state, turn,"
                     " result, updated, deadline, draw_offer_seat, created)"
                     " VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                     "game_create");
  if(rc == STORE_OK)
    rc = bind_game(st, stmt, g);
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 11, g->created, "games.created");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "game_create");
  if(rc == STORE_OK)
    *id = sqlite3_last_insert_rowid(st->db);
  store_finish(st, stmt);
  return rc;
}

int store_game_load(struct store *st, struct store_game *out, int64_t id)
{
  char phase[16];
  sqlite3_stmt *stmt = NULL;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = store_prepare(st, &stmt,
                     "SELECT id, kind, rules_version, options, phase, state, turn, result,"
                     " created, updated, deadline, draw_offer_seat FROM games WHERE id = ?1",
                     "game_load");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, id, "game_load: id");
  if(rc)
    goto out;
  rc = sqlite3_step(stmt);
  if(rc == SQLITE_DONE) {
    rc = store_fail(st, STORE_ENOTFOUND, "game_load: no game %lld", (long long)id);
    goto out;
  }
  if(rc != SQLITE_ROW) {
    rc = store_fail_sql(st, rc, "game_load");
    goto out;
  }
  out->id = sqlite3_column_int64(stmt, 0);
  rc = store_copy_column(st, out->kind, sizeof(out->kind), stmt, 1, "games.kind");
  if(rc)
    goto out;
  out->rules_version = sqlite3_column_int(stmt, 2);
  rc = store_copy_column(st, out->options, sizeof(out->options), stmt, 3, "games.options");
  if(rc == STORE_OK)
    rc = store_copy_column(st, phase, sizeof(phase), stmt, 4, "games.phase");
  if(rc == STORE_OK)
    rc = phase_from_word(st, &out->phase, phase);
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->state, sizeof(out->state), stmt, 5, "games.state");
  if(rc)
    goto out;
  out->turn = sqlite3_column_int(stmt, 6);
  rc = store_copy_column(st, out->result, sizeof(out->result), stmt, 7, "games.result");
  if(rc)
    goto out;
  out->created = sqlite3_column_int64(stmt, 8);
  out->updated = sqlite3_column_int64(stmt, 9);
  out->deadline = sqlite3_column_int64(stmt, 10);
  out->draw_offer_seat = sqlite3_column_int64(stmt, 11);
out:
  store_finish(st, stmt);
  return rc;
}

/* The row (and, with snap, the snapshot) of g. The phase is set by a
 * statement of its own, and only when it changes: SQLite checks a CHECK
 * constraint only in an update that sets its column, and the IN list of
 * games.phase costs a temporary table each time. */
static int game_update(struct store *st, const struct store_game *g, bool snap,
                       const void *blob, size_t len)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if((unsigned)g->phase >= PHASE_COUNT)
    return store_fail(st, STORE_EIO, "game: phase %d is not a known phase", (int)g->phase);
  rc = store_prepare(st, &stmt, "UPDATE games SET phase = ?1 WHERE id = ?2 AND phase <> ?1",
                     "game_update: phase");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, phase_names[g->phase], "games.phase");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, g->id, "game_update: id");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "game_update: phase");
  store_finish(st, stmt);
  stmt = NULL;
  if(rc)
    return rc;
  /* created is fixed at creation and not rewritten; ?4 (the phase) is
   * bound by bind_game and unused here. */
  if(snap)
    rc = store_prepare(st, &stmt,
                       "UPDATE games SET kind = ?1, rules_version = ?2, options = ?3,"
                       " state = ?5, turn = ?6, result = ?7, updated = ?8,"
                       " deadline = ?9, draw_offer_seat = ?10, snapshot = ?12 WHERE id = ?11",
                       "game_update");
  else
    rc = store_prepare(st, &stmt,
                       "UPDATE games SET kind = ?1, rules_version = ?2, options = ?3,"
                       " state = ?5, turn = ?6, result = ?7, updated = ?8,"
                       " deadline = ?9, draw_offer_seat = ?10 WHERE id = ?11",
                       "game_update");
  if(rc == STORE_OK)
    rc = bind_game(st, stmt, g);
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 11, g->id, "game_update: id");
  if(rc == STORE_OK && snap) {
    int r = blob ? sqlite3_bind_blob(stmt, 12, blob, (int)len, SQLITE_TRANSIENT)
                 : sqlite3_bind_null(stmt, 12);
    if(r != SQLITE_OK)
      rc = store_fail_sql(st, r, "games.snapshot");
  }
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "game_update");
  if(rc == STORE_OK && sqlite3_changes(st->db) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "game_update: no game %lld", (long long)g->id);
  store_finish(st, stmt);
  return rc;
}

int store_game_update(struct store *st, const struct store_game *g)
{
  return game_update(st, g, false, NULL, 0);
}

int store_game_update_snapshot(struct store *st, const struct store_game *g, const void *blob,
                               size_t len)
{
  if(blob && len > STORE_SNAPSHOT_MAX)
    return store_fail(st, STORE_EIO, "game_update: a snapshot of %zu bytes is too big", len);
  return game_update(st, g, true, blob, len);
}

int store_game_snapshot(struct store *st, void **blob, size_t *len, int64_t id)
{
  sqlite3_stmt *stmt = NULL;
  const void *p;
  int rc, r;

  *blob = NULL;
  *len = 0;
  rc = store_prepare(st, &stmt, "SELECT snapshot FROM games WHERE id = ?1", "game_snapshot");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, id, "game_snapshot: id");
  if(rc)
    goto out;
  r = sqlite3_step(stmt);
  if(r == SQLITE_DONE) {
    rc = store_fail(st, STORE_ENOTFOUND, "game_snapshot: no game %lld", (long long)id);
    goto out;
  }
  if(r != SQLITE_ROW) {
    rc = store_fail_sql(st, r, "game_snapshot");
    goto out;
  }
  p = sqlite3_column_blob(stmt, 0);
  r = sqlite3_column_bytes(stmt, 0);
  if(!p || r <= 0 || (size_t)r > STORE_SNAPSHOT_MAX)
    goto out; /* none (NULL), or not one of ours: the caller replays */
  *blob = malloc((size_t)r);
  if(!*blob) {
    rc = store_fail(st, STORE_ENOMEM, "game_snapshot: out of memory");
    goto out;
  }
  memcpy(*blob, p, (size_t)r);
  *len = (size_t)r;
out:
  store_finish(st, stmt);
  return rc;
}

int store_game_list(struct store *st, int64_t **ids, size_t *n)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *ids = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt, "SELECT id FROM games ORDER BY id", "game_list");
  if(rc == STORE_OK)
    rc = collect_ids(st, ids, n, stmt, "game_list");
  store_finish(st, stmt);
  return rc;
}

/* ---- seats ---- */

int store_seat_put(struct store *st, const struct store_seat *s)
{
  struct store_group group = {false, false, 0};
  sqlite3_stmt *player = NULL;
  sqlite3_stmt *seat = NULL;
  int rc;

  rc = store_group_begin(st, &group);
  if(rc)
    goto out;
  /* The player row is a side effect of the first seat: created is the
   * game's creation time, so the store keeps no clock of its own. A missing
   * game inserts nothing here and the seat insert then fails its foreign
   * key. */
  rc = store_prepare(st, &player,
                     "INSERT INTO players(address, created)"
                     " SELECT ?1, created FROM games WHERE id = ?2"
                     " ON CONFLICT(address) DO NOTHING",
                     "seat_put: player");
  if(rc == STORE_OK)
    rc = store_bind_field(st, player, 1, s->address, sizeof(s->address), "seats.address");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, player, 2, s->game, "seats.game");
  if(rc == STORE_OK)
    rc = store_step_done(st, player, "seat_put: player");
  if(rc)
    goto out;
  /* An upsert, not INSERT OR REPLACE: REPLACE would silently delete another
   * seat that happened to hold the same token; here that is an error. */
  rc = store_prepare(st, &seat,
                     "INSERT INTO seats(game, seat, address, token, accepted, entropy)"
                     " VALUES(?1, ?2, ?3, ?4, ?5, ?6)"
                     " ON CONFLICT(game, seat) DO UPDATE SET address = excluded.address,"
                     " token = excluded.token, accepted = excluded.accepted,"
                     " entropy = excluded.entropy",
                     "seat_put");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, seat, 1, s->game, "seats.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, seat, 2, s->seat, "seats.seat");
  if(rc == STORE_OK)
    rc = store_bind_field(st, seat, 3, s->address, sizeof(s->address), "seats.address");
  if(rc == STORE_OK)
    rc = store_bind_field(st, seat, 4, s->token, sizeof(s->token), "seats.token");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, seat, 5, s->accepted ? 1 : 0, "seats.accepted");
  if(rc == STORE_OK)
    rc = store_bind_field(st, seat, 6, s->entropy, sizeof(s->entropy), "seats.entropy");
  if(rc == STORE_OK)
    rc = store_step_done(st, seat, "seat_put");
out:
  store_finish(st, player);
  store_finish(st, seat);
  return store_group_end(st, &group, rc);
}

static int seat_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_seat *s = row;
  int rc;

  s->game = sqlite3_column_int64(stmt, 0);
  s->seat = sqlite3_column_int(stmt, 1);
  s->accepted = sqlite3_column_int(stmt, 4) != 0;
  rc = store_copy_column(st, s->address, sizeof(s->address), stmt, 2, "seats.address");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->token, sizeof(s->token), stmt, 3, "seats.token");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->entropy, sizeof(s->entropy), stmt, 5, "seats.entropy");
  return rc;
}

int store_seat_list(struct store *st, struct store_seat **seats, size_t *n, int64_t game)
{
  void *v;
  int rc = store_collect_game(st, &v, n,
                              "SELECT game, seat, address, token, accepted, entropy FROM seats"
                              " WHERE game = ?1 ORDER BY seat",
                              game, sizeof(struct store_seat), seat_row, "seat_list");
  *seats = v;
  return rc;
}

int store_games_of(struct store *st, int64_t **ids, size_t *n, const char *address)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *ids = NULL;
  *n = 0;
  /* Exact match: the service lower-cases addresses before they get here
   * (store.h, struct store_seat). */
  rc = store_prepare(st, &stmt,
                     "SELECT DISTINCT game FROM seats WHERE address = ?1 ORDER BY game",
                     "games_of");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "games_of: address");
  if(rc == STORE_OK)
    rc = collect_ids(st, ids, n, stmt, "games_of");
  store_finish(st, stmt);
  return rc;
}

/* ---- dice ---- */

int store_dice_put(struct store *st, const struct store_dice *d)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt,
                     "INSERT INTO dice(game, chain, commitment, secret, n, next_index,"
                     " entropy, roll_count, checkpoints) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
                     " ?9)"
                     " ON CONFLICT(game, chain) DO UPDATE SET commitment = excluded.commitment,"
                     " secret = excluded.secret, n = excluded.n,"
                     " next_index = excluded.next_index, entropy = excluded.entropy,"
                     " roll_count = excluded.roll_count, checkpoints = excluded.checkpoints",
                     "dice_put");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, d->game, "dice.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, d->chain, "dice.chain");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 3, d->commitment, sizeof(d->commitment), "dice.commitment");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 4, d->secret, sizeof(d->secret), "dice.secret");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 5, d->n, "dice.n");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 6, d->next_index, "dice.next_index");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 7, d->entropy, sizeof(d->entropy), "dice.entropy");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 8, d->roll_count, "dice.roll_count");
  if(rc == STORE_OK && d->checkpoints_len > sizeof(d->checkpoints))
    rc = store_fail(st, STORE_EIO, "dice.checkpoints: more than fits");
  if(rc == STORE_OK) {
    int r = d->checkpoints_len ? sqlite3_bind_blob(stmt, 9, d->checkpoints,
                                                   (int)d->checkpoints_len, SQLITE_TRANSIENT)
                               : sqlite3_bind_null(stmt, 9);
    if(r != SQLITE_OK)
      rc = store_fail_sql(st, r, "dice.checkpoints");
  }
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "dice_put");
  store_finish(st, stmt);
  return rc;
}

/* Shared by both loads: stmt selects the nine columns in table order. */
static int dice_row(struct store *st, struct store_dice *out, sqlite3_stmt *stmt,
                    const char *what)
{
  int rc = sqlite3_step(stmt);

  if(rc == SQLITE_DONE)
    return store_fail(st, STORE_ENOTFOUND, "%s: no dice chain", what);
  if(rc != SQLITE_ROW)
    return store_fail_sql(st, rc, what);
  out->game = sqlite3_column_int64(stmt, 0);
  out->chain = sqlite3_column_int(stmt, 1);
  out->n = sqlite3_column_int(stmt, 4);
  out->next_index = sqlite3_column_int(stmt, 5);
  out->roll_count = sqlite3_column_int64(stmt, 7);
  rc = store_copy_column(st, out->commitment, sizeof(out->commitment), stmt, 2,
                         "dice.commitment");
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->secret, sizeof(out->secret), stmt, 3, "dice.secret");
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->entropy, sizeof(out->entropy), stmt, 6, "dice.entropy");
  if(rc == STORE_OK) {
    /* none (NULL, a chain from before v5) or not ours: the service
     * hashes from the secret and makes them anew */
    const void *p = sqlite3_column_blob(stmt, 8);
    int len = sqlite3_column_bytes(stmt, 8);
    out->checkpoints_len = 0;
    if(p && len > 0 && (size_t)len <= sizeof(out->checkpoints)) {
      memcpy(out->checkpoints, p, (size_t)len);
      out->checkpoints_len = (size_t)len;
    }
  }
  return rc;
}

int store_dice_load(struct store *st, struct store_dice *out, int64_t game)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = store_prepare(st, &stmt,
                     "SELECT game, chain, commitment, secret, n, next_index, entropy,"
                     " roll_count, checkpoints FROM dice WHERE game = ?1 ORDER BY chain DESC"
                     " LIMIT 1",
                     "dice_load");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, game, "dice_load: game");
  if(rc == STORE_OK)
    rc = dice_row(st, out, stmt, "dice_load");
  if(rc)
    memset(out, 0, sizeof(*out));
  store_finish(st, stmt);
  return rc;
}

int store_dice_load_chain(struct store *st, struct store_dice *out, int64_t game, int chain)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = store_prepare(st, &stmt,
                     "SELECT game, chain, commitment, secret, n, next_index, entropy,"
                     " roll_count, checkpoints FROM dice WHERE game = ?1 AND chain = ?2",
                     "dice_load_chain");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, game, "dice_load_chain: game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, chain, "dice_load_chain: chain");
  if(rc == STORE_OK)
    rc = dice_row(st, out, stmt, "dice_load_chain");
  if(rc)
    memset(out, 0, sizeof(*out));
  store_finish(st, stmt);
  return rc;
}
