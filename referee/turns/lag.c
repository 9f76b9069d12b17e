/*
 * lag.c: the private dice of Lag Backgammon Chess (rules-spec.md 6.9, LG-1).
 *
 * Each player sees their own next L rolls in advance, and the opponent sees
 * a roll only when it is played. The rolls come from the game's one
 * tabula-dice-1 chain like every other roll (docs/dice-protocol.md): this
 * file only mails, privately, the *faces* of future rolls to their owner,
 * computed with ref_dice_peek, which never hands out a key (hashing a key
 * would give every earlier key, the opponent's unplayed rolls among them).
 * When a roll is played, turns.c publishes its key as always, and the
 * owner's opponent can check that the faces shown in advance were real.
 *
 * Whose roll is roll i: in Backgammon Chess every turn but White's first
 * makes exactly one roll (6.2: a drop ends the game, a take is followed by
 * the same turn's roll), and Black rolls first, so odd rolls are Black's
 * and even rolls White's. At the start each player gets their first L rolls
 * (Black rolls 1, 3, ..., White 2, 4, ...); after roll i is made, roll
 * i + 2L, the same player's roll L turns later, goes to its owner. The
 * highest roll mailed is kept in the store (lag_previews), so a replayed
 * or repeated step mails nothing twice.
 *
 * A roll beyond the current chain's end cannot be previewed until the
 * service has drawn and committed the next chain (which it does at the
 * first roll past the end): such rolls are mailed as soon as they can be,
 * late; with N = 4096 a game never gets near it.
 *
 * Layer 4, "turns and time" (docs/architecture.md): turns.c asks for these
 * mails at the end of every ref_game_advance.
 */
#include "lifecycle_int.h"

#include "base.h"
#include "dice.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAG_MAX 9
#define LAG_DEFAULT 2 /* lagbgchess without lag=: as the rules core's init */

/* L of the game: option lag=L; the game `lagbgchess` defaults to 2. */
static int lag_of(const struct ref_game_ctx *g)
{
  const char *p = g->row.options;
  int named = !strcmp(g->desc->name, "lagbgchess"), lag = named ? LAG_DEFAULT : 0;

  if(!named && strcmp(g->desc->name, "bgchess"))
    return 0;
  for(; (p = strstr(p, "lag=")) != NULL; p += 4)
    if(p == g->row.options || p[-1] == ';')
      lag = atoi(p + 4);
  return lag < 0 ? 0 : lag > LAG_MAX ? LAG_MAX : lag;
}

/* Mails seat `seat` the lines in `rolls`. */
static int mail_faces(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, int lag,
                      const char *rolls)
{
  struct tpl_var vars[5];
  char game[24], l[8];
  snprintf(game, sizeof(game), "%lld", (long long)g->row.id);
  snprintf(l, sizeof(l), "%d", lag);
  vars[0].name = "game";
  vars[0].value = game;
  vars[1].name = "seat";
  vars[1].value = g->desc->seat_names[seat];
  vars[2].name = "title";
  vars[2].value = g->desc->title;
  vars[3].name = "lag";
  vars[3].value = l;
  vars[4].name = "rolls";
  vars[4].value = rolls;
  return ref_reply(m, g, seat, g->seats[seat].address, "lag-faces.txt", vars, 5);
}

int ref_lag_mail(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  struct ref_service *svc = m->svc;
  struct ref_dice_chain c;
  struct store_dice d;
  struct ref_status s;
  struct base_buf out[2];
  char game[24];
  int64_t previewed = 0;
  uint8_t secret[32];
  long sent = 0, next, last, i;
  int lag = lag_of(g), seat, rc = 0;

  if(!lag || !g->started || !(g->desc->flags & REF_GAME_DICE))
    return 0;
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER)
    return 0;
  if(store_dice_load(svc->st, &d, g->row.id) != STORE_OK || !d.entropy[0])
    return -1;
  /* unread, the message fails (and is retried): read as none, every
   * preview would be mailed again */
  if(store_lag_get(svc->st, &previewed, g->row.id) != STORE_OK)
    return -1;
  sent = (long)previewed;
  next = (long)d.roll_count + 1;
  last = (long)d.roll_count + 2L * lag; /* each player's next L rolls */
  if(sent >= last)
    return 0;
  if(ref_dice_unhex(secret, 32, d.secret))
    return -1;
  ref_dice_chain_from_secret(&c, secret, d.n);
  memset(secret, 0, sizeof(secret));
  snprintf(game, sizeof(game), "%lld", (long long)g->row.id);
  base_buf_init(&out[0], 4096);
  base_buf_init(&out[1], 4096);
  for(i = sent + 1 > next ? sent + 1 : next; i <= last; i++) {
    int faces[2];
    if(ref_dice_peek(faces, 2, &c, d.next_index, next, (int)(i - next), game, d.entropy)) {
      /* Beyond this chain: mailed once the next chain is committed. */
      ref_log_info("game %s: roll %ld lies beyond chain %d, previewed later", game, i, d.chain);
      break;
    }
    seat = i % 2 ? 1 : 0;
    /* Faces only: a private preview is no proof, the key comes with the
     * roll (dice-protocol.md). */
    if(base_buf_printf(&out[seat], "Dice preview: game %s roll %ld faces %d %d\n", game, i,
                       faces[0], faces[1]))
      break; /* not sent: previewed again by the next mail */
    sent = i;
  }
  memset(&c, 0, sizeof(c));
  for(seat = 0; seat < 2 && !rc; seat++)
    if(out[seat].s && out[seat].s[0])
      rc = mail_faces(m, g, seat, lag, out[seat].s);
  base_buf_free(&out[0]);
  base_buf_free(&out[1]);
  if(rc)
    return -1;
  return store_lag_set(svc->st, g->row.id, (int64_t)sent) == STORE_OK ? 0 : -1;
}
