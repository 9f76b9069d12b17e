/*
 * games.c: the games, seats (with players) and dice tables of tabula_store.
 * Contract in store.h; schema in schema_sqlite.c / schema_pg.c.
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

/* ---- games ---- */

/* The columns common to create and update, bound by the format GAME_FMT
 * from GAME_ARGS: kind, rules_version, options, state, turn, result,
 * updated, deadline, draw_offer_seat at 1..9. Create adds the phase and
 * the creation time; update, which sets the phase apart, the id. The
 * phase must be a known one (checked first: it indexes phase_names). */
#define GAME_FMT "fiffifiii"
#define GAME_ARGS(g)                                                                          \
  (g)->kind, sizeof((g)->kind), "games.kind", (int64_t)(g)->rules_version, (g)->options,      \
    sizeof((g)->options), "games.options", (g)->state, sizeof((g)->state), "games.state",     \
    (int64_t)(g)->turn, (g)->result, sizeof((g)->result), "games.result", (g)->updated,       \
    (g)->deadline, (g)->draw_offer_seat

static int known_phase(struct store *st, const struct store_game *g)
{
  if((unsigned)g->phase >= PHASE_COUNT)
    return store_fail(st, STORE_EIO, "game: phase %d is not a known phase", (int)g->phase);
  return STORE_OK;
}

int store_game_create(struct store *st, int64_t *id, const struct store_game *g)
{
  int rc;

  *id = 0;
  rc = known_phase(st, g);
  if(rc == STORE_OK)
    rc = store_query_one(st, id, sizeof(*id), store_row_int64,
                         "INSERT INTO games(kind, rules_version, options, state, turn, result,"
                         " updated, deadline, draw_offer_seat, phase, created)"
                         " VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING id",
                         "game_create", GAME_FMT "ti", GAME_ARGS(g), phase_names[g->phase],
                         g->created);
  if(rc)
    *id = 0;
  return rc;
}

static int game_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_game *out = row;
  char phase[16];
  int rc;

  out->id = store_col_int64(src, 0);
  rc = store_copy_column(st, out->kind, sizeof(out->kind), src, 1, "games.kind");
  if(rc)
    return rc;
  out->rules_version = store_col_int(src, 2);
  rc = store_copy_column(st, out->options, sizeof(out->options), src, 3, "games.options");
  if(rc == STORE_OK)
    rc = store_copy_column(st, phase, sizeof(phase), src, 4, "games.phase");
  if(rc == STORE_OK)
    rc = phase_from_word(st, &out->phase, phase);
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->state, sizeof(out->state), src, 5, "games.state");
  if(rc)
    return rc;
  out->turn = store_col_int(src, 6);
  rc = store_copy_column(st, out->result, sizeof(out->result), src, 7, "games.result");
  if(rc)
    return rc;
  out->created = store_col_int64(src, 8);
  out->updated = store_col_int64(src, 9);
  out->deadline = store_col_int64(src, 10);
  out->draw_offer_seat = store_col_int64(src, 11);
  return STORE_OK;
}

int store_game_load(struct store *st, struct store_game *out, int64_t id)
{
  bool found;
  int rc = store_query_maybe(st, &found, out, sizeof(*out), game_row,
                             "SELECT id, kind, rules_version, options, phase, state, turn,"
                             " result, created, updated, deadline, draw_offer_seat FROM games"
                             " WHERE id = $1",
                             "game_load", "i", id);
  if(rc == STORE_OK && !found)
    rc = store_fail(st, STORE_ENOTFOUND, "game_load: no game %lld", (long long)id);
  return rc;
}

/* The row (and, with snap, the snapshot) of g. The phase is set by a
 * statement of its own, and only when it changes: SQLite checks a CHECK
 * constraint only in an update that sets its column, and the IN list of
 * games.phase costs a temporary table each time. */
static int game_update(struct store *st, const struct store_game *g, bool snap,
                       const void *blob, size_t len)
{
  int rc = known_phase(st, g);

  if(rc == STORE_OK)
    rc = store_run(st, "UPDATE games SET phase = $1 WHERE id = $2 AND phase <> $1",
                   "game_update: phase", "ti", phase_names[g->phase], g->id);
  if(rc)
    return rc;
  /* created is fixed at creation and not rewritten; the phase was set
   * above. */
  if(snap)
    rc = store_run(st,
                   "UPDATE games SET kind = $1, rules_version = $2, options = $3,"
                   " state = $4, turn = $5, result = $6, updated = $7,"
                   " deadline = $8, draw_offer_seat = $9, snapshot = $10 WHERE id = $11",
                   "game_update", GAME_FMT "bi", GAME_ARGS(g), blob, len, g->id);
  else
    rc = store_run(st,
                   "UPDATE games SET kind = $1, rules_version = $2, options = $3,"
                   " state = $4, turn = $5, result = $6, updated = $7,"
                   " deadline = $8, draw_offer_seat = $9 WHERE id = $10",
                   "game_update", GAME_FMT "i", GAME_ARGS(g), g->id);
  if(rc == STORE_OK && store_changes(st) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "game_update: no game %lld", (long long)g->id);
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

struct snapshot {
  void *blob;
  size_t len;
};

static int snapshot_row(struct store *st, const struct store_row *src, void *row)
{
  struct snapshot *s = row;
  size_t r;
  const void *p = store_col_blob(src, 0, &r);

  if(!p || !r || r > STORE_SNAPSHOT_MAX)
    return STORE_OK; /* none (NULL), or not one of ours: the caller replays */
  s->blob = malloc(r);
  if(!s->blob)
    return store_fail(st, STORE_ENOMEM, "game_snapshot: out of memory");
  memcpy(s->blob, p, r);
  s->len = r;
  return STORE_OK;
}

int store_game_snapshot(struct store *st, void **blob, size_t *len, int64_t id)
{
  struct snapshot snap;
  bool found;
  int rc = store_query_maybe(st, &found, &snap, sizeof(snap), snapshot_row,
                             "SELECT snapshot FROM games WHERE id = $1", "game_snapshot", "i",
                             id);
  if(rc == STORE_OK && !found)
    rc = store_fail(st, STORE_ENOTFOUND, "game_snapshot: no game %lld", (long long)id);
  *blob = rc == STORE_OK ? snap.blob : NULL;
  *len = rc == STORE_OK ? snap.len : 0;
  return rc;
}

int store_game_list(struct store *st, int64_t **ids, size_t *n)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT id FROM games ORDER BY id", "game_list", "");
  *ids = v;
  return rc;
}

/* ---- seats ---- */

int store_seat_put(struct store *st, const struct store_seat *s)
{
  struct store_group group = {false, false, 0};
  int rc;

  rc = store_group_begin(st, &group);
  if(rc)
    return store_group_end(st, &group, rc);
  /* The player row is a side effect of the first seat: created is the
   * game's creation time, so the store keeps no clock of its own. A missing
   * game inserts nothing here and the seat insert then fails its foreign
   * key. */
  rc = store_run(st,
                 "INSERT INTO players(address, created)"
                 " SELECT $1, created FROM games WHERE id = $2"
                 " ON CONFLICT(address) DO NOTHING",
                 "seat_put: player", "fi", s->address, sizeof(s->address), "seats.address", s->game);
  /* An upsert, not INSERT OR REPLACE: REPLACE would silently delete another
   * seat that happened to hold the same token; here that is an error. */
  if(rc == STORE_OK)
    rc = store_run(st,
                   "INSERT INTO seats(game, seat, address, token, accepted, entropy)"
                   " VALUES($1, $2, $3, $4, $5, $6)"
                   " ON CONFLICT(game, seat) DO UPDATE SET address = excluded.address,"
                   " token = excluded.token, accepted = excluded.accepted,"
                   " entropy = excluded.entropy",
                   "seat_put", "iiffif", s->game, (int64_t)s->seat, s->address,
                   sizeof(s->address), "seats.address", s->token, sizeof(s->token), "seats.token", (int64_t)(s->accepted ? 1 : 0),
                   s->entropy, sizeof(s->entropy), "seats.entropy");
  return store_group_end(st, &group, rc);
}

static int seat_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_seat *s = row;
  int rc;

  s->game = store_col_int64(src, 0);
  s->seat = store_col_int(src, 1);
  s->accepted = store_col_int(src, 4) != 0;
  rc = store_copy_column(st, s->address, sizeof(s->address), src, 2, "seats.address");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->token, sizeof(s->token), src, 3, "seats.token");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->entropy, sizeof(s->entropy), src, 5, "seats.entropy");
  return rc;
}

int store_seat_list(struct store *st, struct store_seat **seats, size_t *n, int64_t game)
{
  void *v;
  int rc = store_query(st, &v, n, sizeof(struct store_seat), seat_row,
                       "SELECT game, seat, address, token, accepted, entropy FROM seats"
                       " WHERE game = $1 ORDER BY seat",
                       "seat_list", "i", game);
  *seats = v;
  return rc;
}

int store_games_of(struct store *st, int64_t **ids, size_t *n, const char *address)
{
  void *v = NULL;
  /* Exact match: the service lower-cases addresses before they get here
   * (store.h, struct store_seat). */
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT DISTINCT game FROM seats WHERE address = $1 ORDER BY game",
                       "games_of", "t", address);
  *ids = v;
  return rc;
}

/* ---- dice ---- */

int store_dice_put(struct store *st, const struct store_dice *d)
{
  if(d->checkpoints_len > sizeof(d->checkpoints))
    return store_fail(st, STORE_EIO, "dice.checkpoints: more than fits");
  /* no checkpoints: NULL */
  return store_run(st,
                   "INSERT INTO dice(game, chain, commitment, secret, n, next_index,"
                   " entropy, roll_count, checkpoints) VALUES($1, $2, $3, $4, $5, $6, $7, $8,"
                   " $9)"
                   " ON CONFLICT(game, chain) DO UPDATE SET commitment = excluded.commitment,"
                   " secret = excluded.secret, n = excluded.n,"
                   " next_index = excluded.next_index, entropy = excluded.entropy,"
                   " roll_count = excluded.roll_count, checkpoints = excluded.checkpoints",
                   "dice_put", "iiffiifib", d->game, (int64_t)d->chain, d->commitment,
                   sizeof(d->commitment), "dice.commitment", d->secret, sizeof(d->secret), "dice.secret", (int64_t)d->n,
                   (int64_t)d->next_index, d->entropy, sizeof(d->entropy), "dice.entropy", d->roll_count,
                   d->checkpoints_len ? (const void *)d->checkpoints : NULL, d->checkpoints_len);
}

/* Shared by both loads: the nine columns in table order. */
static int dice_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_dice *out = row;
  int rc;

  out->game = store_col_int64(src, 0);
  out->chain = store_col_int(src, 1);
  out->n = store_col_int(src, 4);
  out->next_index = store_col_int(src, 5);
  out->roll_count = store_col_int64(src, 7);
  rc = store_copy_column(st, out->commitment, sizeof(out->commitment), src, 2,
                         "dice.commitment");
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->secret, sizeof(out->secret), src, 3, "dice.secret");
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->entropy, sizeof(out->entropy), src, 6, "dice.entropy");
  if(rc == STORE_OK) {
    /* none (NULL, a chain from before v5) or not ours: the service
     * hashes from the secret and makes them anew */
    size_t len;
    const void *p = store_col_blob(src, 8, &len);
    out->checkpoints_len = 0;
    if(p && len && len <= sizeof(out->checkpoints)) {
      memcpy(out->checkpoints, p, len);
      out->checkpoints_len = len;
    }
  }
  return rc;
}

/* A chain not there is ENOTFOUND, "<what>: no dice chain"; on any failure
 * *out is zeroed (it holds a secret). */
static int dice_found(struct store *st, struct store_dice *out, int rc, bool found,
                      const char *what)
{
  if(rc == STORE_OK && !found)
    rc = store_fail(st, STORE_ENOTFOUND, "%s: no dice chain", what);
  if(rc)
    memset(out, 0, sizeof(*out));
  return rc;
}

int store_dice_load(struct store *st, struct store_dice *out, int64_t game)
{
  bool found;
  int rc = store_query_maybe(st, &found, out, sizeof(*out), dice_row,
                             "SELECT game, chain, commitment, secret, n, next_index, entropy,"
                             " roll_count, checkpoints FROM dice WHERE game = $1"
                             " ORDER BY chain DESC LIMIT 1",
                             "dice_load", "i", game);
  return dice_found(st, out, rc, found, "dice_load");
}

int store_dice_load_chain(struct store *st, struct store_dice *out, int64_t game, int chain)
{
  bool found;
  int rc = store_query_maybe(st, &found, out, sizeof(*out), dice_row,
                             "SELECT game, chain, commitment, secret, n, next_index, entropy,"
                             " roll_count, checkpoints FROM dice WHERE game = $1 AND chain = $2",
                             "dice_load_chain", "ii", game, (int64_t)chain);
  return dice_found(st, out, rc, found, "dice_load_chain");
}
