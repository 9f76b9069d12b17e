/*
 * dicechain.c: a game's dice in the store (tabula-dice-2, or -1 for a game
 * drawn before it; docs/dice-protocol.md; docs/architecture.md layer 3,
 * "games"). The chain
 * is drawn at `new` and its commitment mailed before anyone accepts; E is
 * fixed from the seats' entropy when the last seat accepts; each roll
 * takes the chain's next key, gives the faces to the rules and journals
 * them with the proof line the mails show; a used-up chain is followed by
 * a fresh one, committed before its first use. The transcript is every
 * dice line of a game in the order the mails showed them (`verify`,
 * `tabula export`). The arithmetic itself is dice.c.
 */
#include "game_int.h"

#include "dice.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whose chain a game's dice come from: its own, or for the later games of
 * a backgammon match the match's first game's (docs/dice-protocol.md,
 * "Matches": one commitment for the whole match). -1 on a store failure
 * (never the game itself: its own chain may not exist, or be the wrong
 * one). */
int64_t ref_dice_game(struct ref_service *svc, int64_t game)
{
  int64_t match, *games = NULL, first = game;
  size_t n = 0;
  int number, rc = store_match_of_game(svc->st, &match, &number, game);
  if(rc == STORE_ENOTFOUND)
    return game; /* no match: its own */
  if(rc != STORE_OK)
    return -1;
  if(number > 1) {
    if(store_match_games(svc->st, &games, &n, match) != STORE_OK || !n)
      first = -1;
    else
      first = games[0];
  }
  free(games);
  return first;
}

/* The version a game's dice follow (docs/dice-protocol.md, "Versions"):
 * the store's dice_protocols row of the owner is written when the owner's
 * first chain is drawn; a game drawn before tabula-dice-2 existed has
 * none and stays tabula-dice-1, so its mails, its rolls and its
 * verification never change. 2, 1, or -1 on a store error. */
static int dice_version(struct ref_service *svc, int64_t owner)
{
  int version = 0;
  if(owner < 0 || store_dice_protocol_get(svc->st, &version, owner) != STORE_OK)
    return -1;
  return version == 2 ? 2 : 1;
}

static const char *version_name(int version)
{
  return version == 2 ? REF_DICE_PROTOCOL_2 : REF_DICE_PROTOCOL;
}

/* The salt of a tabula-dice-2 game (dice.h): from its first chain's secret,
 * so it was fixed before anyone accepted and needs no column of its own. */
static int game_salt(struct ref_service *svc, int64_t owner, char out[65])
{
  struct store_dice d;
  uint8_t secret[32];
  int rc = -1;
  if(store_dice_load_chain(svc->st, &d, owner, 1) == STORE_OK &&
     !ref_dice_unhex(secret, 32, d.secret)) {
    ref_dice_salt(out, secret);
    rc = 0;
  }
  explicit_bzero(secret, sizeof(secret));
  explicit_bzero(d.secret, sizeof(d.secret));
  return rc;
}

int ref_dice_seat_entropy(struct ref_service *svc, int64_t game, const char *text,
                          const char *message_id, char *out, size_t cap)
{
  char salt[65];
  int64_t owner = ref_dice_game(svc, game);
  int version;
  /* dice-protocol.md: the text after "entropy:", as the player wrote it */
  if(text && text[0]) {
    snprintf(out, cap, "%s", text);
    return 0;
  }
  version = dice_version(svc, owner);
  if(version < 0)
    return -1;
  /* tabula-dice-1 (and a game without dice, which has no version): the
   * Message-ID itself */
  if(version == 1) {
    snprintf(out, cap, "%s", message_id);
    return 0;
  }
  if(game_salt(svc, owner, salt))
    return -1;
  ref_dice_mid_entropy(out, cap, salt, message_id);
  return 0;
}

int ref_dice_version(struct ref_service *svc, int64_t game)
{
  return dice_version(svc, ref_dice_game(svc, game));
}

int ref_dice_salt_line(struct ref_service *svc, int64_t game, char *buf, size_t cap)
{
  char salt[65];
  int64_t owner = ref_dice_game(svc, game);
  int version = dice_version(svc, owner);
  buf[0] = '\0';
  if(version != 2)
    return version < 0 ? -1 : 0;
  if(game_salt(svc, owner, salt))
    return -1;
  snprintf(buf, cap, "Dice salt: game %lld %s", (long long)owner, salt);
  return 0;
}

/* "Dice commitment: ..." for the newest chain (invitations, chain 2 ...). */
int ref_dice_commitment_line(struct ref_service *svc, int64_t game, char *buf, size_t cap)
{
  struct store_dice d;
  int version;
  buf[0] = '\0';
  game = ref_dice_game(svc, game);
  if(store_dice_load(svc->st, &d, game) != STORE_OK || (version = dice_version(svc, game)) < 0)
    return -1;
  snprintf(buf, cap, "Dice commitment: %s game %lld chain %d N %d commitment %s",
           version_name(version), (long long)game, d.chain, d.n, d.commitment);
  return 0;
}

/* A fresh chain for a dice game: drawn before anyone accepts, so the
 * operator cannot pick one after seeing the players' entropy. */
int ref_dice_new_chain(struct ref_service *svc, int64_t game, int chain, int64_t rolls)
{
  struct ref_dice_chain c;
  struct store_dice d;
  memset(&d, 0, sizeof(d));
  if(ref_dice_chain_new(&c, REF_DICE_DEFAULT_N))
    return -1;
  d.game = game;
  d.chain = chain;
  d.n = c.n;
  d.next_index = 1;
  d.roll_count = rolls;
  ref_dice_hex(d.commitment, c.commitment, 32);
  ref_dice_hex(d.secret, c.secret, 32);
  memset(&c, 0, sizeof(c));
  if(chain > 1) {
    struct store_dice prev;
    /* the chain before it exists: a failure to read it fails the roll
     * (retried) rather than draw a chain without the game's entropy */
    if(store_dice_load(svc->st, &prev, game) != STORE_OK)
      return -1;
    memcpy(d.entropy, prev.entropy, sizeof(d.entropy));
  }
  else {
    /* a game's first chain: its dice follow tabula-dice-2 */
    if(store_dice_protocol_set(svc->st, game, 2) != STORE_OK)
      return -1;
  }
  return store_dice_put(svc->st, &d) == STORE_OK ? 0 : -1;
}

/* A knockout match's chain (docs/dice-protocol.md, "Knockouts"): drawn
 * and committed with the event's invitation, before anyone accepted, and
 * kept in its slot until the match is made; the match's first game takes
 * it as its chain 1. */
int ref_dice_adopt_chain(struct ref_service *svc, int64_t game, const char *secret_hex)
{
  struct ref_dice_chain c;
  struct store_dice d;
  uint8_t secret[32];
  int rc;
  memset(&d, 0, sizeof(d));
  if(ref_dice_unhex(secret, 32, secret_hex))
    return -1;
  ref_dice_chain_from_secret(&c, secret, REF_DICE_DEFAULT_N);
  explicit_bzero(secret, sizeof(secret));
  d.game = game;
  d.chain = 1;
  d.n = c.n;
  d.next_index = 1;
  ref_dice_hex(d.commitment, c.commitment, 32);
  ref_dice_hex(d.secret, c.secret, 32);
  explicit_bzero(&c, sizeof(c));
  rc = store_dice_protocol_set(svc->st, game, 2) == STORE_OK &&
           store_dice_put(svc->st, &d) == STORE_OK
         ? 0
         : -1;
  explicit_bzero(d.secret, sizeof(d.secret));
  return rc;
}

/* E from the seats' entropy, once every seat is filled; the lines that show
 * it go into `shown`. */
int ref_dice_fix_entropy(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *shown)
{
  const char *e[8];
  struct store_dice d;
  size_t i;

  if(store_dice_load(svc->st, &d, g->row.id) != STORE_OK)
    return -1;
  for(i = 0; i < g->nseats && i < 8; i++)
    e[i] = g->seats[i].entropy;
  ref_dice_entropy(d.entropy, e, i);
  if(store_dice_put(svc->st, &d) != STORE_OK)
    return -1;
  for(i = 0; i < g->nseats && i < 8; i++)
    if(base_buf_printf(shown, "Dice entropy: game %lld e%zu %s\n", (long long)g->row.id, i + 1,
                       e[i]))
      return -1;
  if(base_buf_printf(shown, "Dice entropy: game %lld E %s\n", (long long)g->row.id, d.entropy))
    return -1;
  return 0;
}

/* Rolls `need` faces for the game, gives them to the rules, journals them. */
int ref_dice_roll(struct ref_service *svc, struct ref_game_ctx *g, int need,
                  struct base_buf *shown)
{
  struct ref_dice_chain c;
  struct store_dice d;
  struct ref_err err;
  uint8_t secret[32], key[32];
  char game[24], keyhex[65], line[200], text[64];
  int faces[REF_DICE_MAX_FACES], i, rc = -1;
  int64_t owner = ref_dice_game(svc, g->row.id); /* a match's later games: its first's */

  if(need < 1 || need > REF_DICE_MAX_FACES)
    return -1;
  if(store_dice_load(svc->st, &d, owner) != STORE_OK)
    return -1;
  if(d.next_index > d.n) {
    /* The chain is used up: a fresh one, its commitment shown before its
     * first use (dice-protocol.md). */
    if(ref_dice_new_chain(svc, owner, d.chain + 1, d.roll_count) ||
       store_dice_load(svc->st, &d, owner) != STORE_OK ||
       ref_dice_commitment_line(svc, owner, line, sizeof(line)))
      return -1;
    if(base_buf_printf(shown, "%s\n", line))
      return -1;
  }
  if(ref_dice_unhex(secret, 32, d.secret))
    return -1;
  ref_dice_chain_from_secret(&c, secret, d.n);
  memset(secret, 0, sizeof(secret));
  ref_dice_key(key, &c, d.next_index);
  memset(&c, 0, sizeof(c));
  snprintf(game, sizeof(game), "%lld", (long long)owner);
  if(ref_dice_faces(faces, need, key, game, (long)(d.roll_count + 1), d.entropy))
    goto out;
  ref_dice_hex(keyhex, key, 32);
  {
    /* the proof line whole or no roll: a cut one would not verify */
    struct base_buf lb, tb;
    base_buf_init_fixed(&lb, line, sizeof(line));
    base_buf_init_fixed(&tb, text, sizeof(text));
    if(base_buf_printf(&lb, "Dice roll: game %s chain %d roll %lld key %s faces", game, d.chain,
                       (long long)(d.roll_count + 1), keyhex) ||
       base_buf_printf(&tb, "roll %lld faces", (long long)(d.roll_count + 1)))
      goto out;
    for(i = 0; i < need; i++)
      if(base_buf_printf(&lb, " %d", faces[i]) || base_buf_printf(&tb, " %d", faces[i]))
        goto out;
  }
  if(g->desc->ops->roll(g->state, faces, need, &err) != REF_OK) {
    ref_log_error("game %s: the rules refused the dice: %s", game, err.reason);
    goto out;
  }
  if(ref_journal(svc, g, -1, "roll", text, line))
    goto out;
  d.next_index++;
  d.roll_count++;
  if(store_dice_put(svc->st, &d) != STORE_OK)
    goto out;
  if(base_buf_printf(shown, "%s\n", line))
    goto out;
  rc = 0;
out:
  memset(key, 0, sizeof(key));
  return rc;
}

/* Every dice line of a game, in the order the mails showed them: the
 * chains' commitments, the entropy, and each roll from the journal. For a
 * later game of a match: the match's chain and entropy (its first game's),
 * and the rolls of every game of the match up to this one. */
int ref_dice_transcript(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                        int *nrolls, int published)
{
  struct store_entry *e = NULL;
  struct store_seat *seats = NULL;
  struct store_dice d;
  int64_t owner = ref_dice_game(svc, g->row.id), *games = &g->row.id, match;
  size_t n = 0, i, ns = 0, ngames = 1, k;
  int chain, number, rc = -1, version = dice_version(svc, owner);
  char salt[200];

  *nrolls = 0;
  if(version < 0)
    return -1;
  for(chain = 1; (rc = store_dice_load_chain(svc->st, &d, owner, chain)) == STORE_OK; chain++)
    if(base_buf_printf(out, "Dice commitment: %s game %lld chain %d N %d commitment %s\n",
                       version_name(version), (long long)owner, d.chain, d.n, d.commitment))
      return -1;
  if(rc != STORE_ENOTFOUND)
    return -1; /* a chain that cannot be read: no transcript without it */
  rc = -1;
  if(chain == 1)
    return 1; /* no dice committed */
  if(store_seat_list(svc->st, &seats, &ns, owner) != STORE_OK)
    return -1;
  /* rules-spec G-4: a published tabula-dice-1 game's entropy lines were
   * Message-IDs; it shows E alone (dice.h, step 3) */
  for(i = 0; i < ns && i < 8 && !(published && version == 1); i++)
    if(base_buf_printf(out, "Dice entropy: game %lld e%zu %s\n", (long long)owner, i + 1,
                       seats[i].entropy))
      break;
  free(seats);
  /* E, once every seat is filled (each chain holds it) */
  if(store_dice_load(svc->st, &d, owner) != STORE_OK)
    return -1;
  if(d.entropy[0] &&
     base_buf_printf(out, "Dice entropy: game %lld E %s\n", (long long)owner, d.entropy))
    return -1;
  /* the salt of tabula-dice-2 is the players' alone: never published */
  if(!published && ref_dice_salt_line(svc, owner, salt, sizeof(salt)))
    return -1;
  if(!published && salt[0] && base_buf_printf(out, "%s\n", salt))
    return -1;
  if(owner != g->row.id && (store_match_of_game(svc->st, &match, &number, g->row.id) != STORE_OK ||
                            store_match_games(svc->st, &games, &ngames, match) != STORE_OK))
    return -1;
  for(k = 0; k < ngames && (k == 0 || games[k - 1] != g->row.id); k++) {
    if(store_journal_load(svc->st, &e, &n, games[k]) != STORE_OK)
      goto out;
    for(i = 0; i < n; i++)
      if(!strcmp(e[i].kind, "roll")) {
        if(base_buf_printf(out, "%s\n", e[i].dice))
          break;
        (*nrolls)++;
      }
    free(e);
    e = NULL;
  }
  /* a transcript missing a line would not verify: none at all */
  rc = base_buf_err(out) ? -1 : 0;
out:
  if(games != &g->row.id)
    free(games);
  return rc;
}

/* The line that ties a later game of a match to the match's dice:
 * "Dice match: game D part K played as game G from roll I" (D the first
 * game, whose chain it is; I the number its first roll will have). */
int ref_dice_match_line(struct ref_service *svc, struct ref_game_ctx *g, int part,
                        struct base_buf *shown)
{
  struct store_dice d;
  int64_t owner = ref_dice_game(svc, g->row.id);
  if(store_dice_load(svc->st, &d, owner) != STORE_OK)
    return -1;
  if(base_buf_printf(shown, "Dice match: game %lld part %d played as game %lld from roll %lld\n",
                     (long long)owner, part, (long long)g->row.id, (long long)(d.roll_count + 1)))
    return -1;
  return 0;
}
