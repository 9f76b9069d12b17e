/*
 * turns.c: what the referee does between players' decisions. After every
 * change it asks the rules what they wait for (ops->status) and, until a
 * player must decide, rolls the dice (dicechain.c: tabula-dice-1,
 * docs/dice-protocol.md) and plays forced turns (rules-spec.md §1.5: "forced passes are
 * automatic"; a single legal play is made for the player and shown).
 * Everything here happens inside the message's transaction, and every roll
 * and automatic play is journaled, so the game still replays exactly.
 * Layer 4, "turns and time" (docs/architecture.md).
 */
#include "lifecycle_int.h"

#include "base.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ADVANCE_MAX 64 /* automatic steps in one go; a game that loops is a bug */

/* A player's standing "roll" (rules-spec.md §1.6): a pre-answer to their
 * next cube question, kept in the store (standing_rolls) until used. */
int ref_autoroll_set(struct ref_service *svc, int64_t game, int seat, int on)
{
  return store_autoroll_set(svc->st, game, seat, on != 0) == STORE_OK ? 0 : -1;
}

/* 1 when the seat's standing "roll" waits to be used, 0 when not, -1 on a
 * store error. */
int ref_autoroll_get(struct ref_service *svc, int64_t game, int seat)
{
  bool on = false;
  if(store_autoroll_get(svc->st, &on, game, seat) != STORE_OK)
    return -1;
  return on ? 1 : 0;
}

/* "if double then take|drop", beside the standing roll (cube_answers). */
int ref_cube_answer_set(struct ref_service *svc, int64_t game, int seat, int answer)
{
  enum store_cube_answer a = answer == REF_CUBE_ANSWER_TAKE   ? STORE_CUBE_TAKE
                             : answer == REF_CUBE_ANSWER_DROP ? STORE_CUBE_DROP
                                                              : STORE_CUBE_NONE;
  return store_cube_answer_set(svc->st, game, seat, a) == STORE_OK ? 0 : -1;
}

int ref_cube_answer_get(struct ref_service *svc, int64_t game, int seat)
{
  enum store_cube_answer a = STORE_CUBE_NONE;
  if(store_cube_answer_get(svc->st, &a, game, seat) != STORE_OK)
    return -1;
  return a == STORE_CUBE_TAKE   ? REF_CUBE_ANSWER_TAKE
         : a == STORE_CUBE_DROP ? REF_CUBE_ANSWER_DROP
                                : REF_CUBE_ANSWER_NONE;
}

/* The standing roll used up: 1 when there was one, 0 none, -1 on a
 * store failure. */
static int autoroll_take(struct ref_service *svc, int64_t game, int seat)
{
  int on = ref_autoroll_get(svc, game, seat);
  if(on != 1)
    return on;
  return ref_autoroll_set(svc, game, seat, 0) ? -1 : 1;
}

int ref_game_roll_now(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct base_buf *shown)
{
  struct ref_status s;
  g->desc->ops->status(g->state, &s);
  return ref_dice_roll(m->svc, g, s.need_faces > 0 ? s.need_faces : 2, shown);
}

int ref_game_advance(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct base_buf *shown)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_movelist list = {0};
  int steps, rc = -1;

  for(steps = 0; steps < ADVANCE_MAX; steps++) {
    struct ref_status s;
    ops->status(g->state, &s);
    if(s.phase == REF_PHASE_OVER || s.phase == REF_PHASE_CUBE_REPLY) {
      rc = 0;
      break;
    }
    if(s.phase == REF_PHASE_ROLL) {
      if(ref_dice_roll(m->svc, g, s.need_faces, shown))
        break;
      continue;
    }
    if(s.phase == REF_PHASE_CUBE) {
      int take = autoroll_take(m->svc, g->row.id, s.turn);
      if(take < 0)
        break; /* a store failure: the message fails, retried */
      if(!take) {
        rc = 0;
        break;
      }
      if(ref_dice_roll(m->svc, g, s.need_faces > 0 ? s.need_faces : 2, shown))
        break;
      continue;
    }
    /* REF_PHASE_MOVE: a player decides, unless there is only one play
     * (dice games only: in chess a single legal move is still the
     * player's to make) or the only move is a pass, "--" (rules-spec.md
     * §1.5: forced passes are automatic in every game, e.g. Chessgammon's
     * rule 8). */
    ref_movelist_clear(&list);
    if(ops->legal(g->state, &list) != REF_OK)
      break;
    if(list.n != 1) {
      rc = 0;
      break;
    }
    {
      char canon[REF_NOTATION_MAX], line[256];
      struct tpl_var vars[2];
      int dice = (g->desc->flags & REF_GAME_DICE) != 0;
      ops->format(g->state, &list.v[0], REF_NOTATION_CANONICAL, canon, sizeof(canon));
      if(!dice && strcmp(canon, "--")) {
        rc = 0;
        break;
      }
      ref_move_label(g, canon, g->last_move, sizeof(g->last_move));
      ops->apply(g->state, &list.v[0]);
      if(ref_journal(m->svc, g, s.turn, "move", canon, NULL))
        break;
      vars[0].name = "seat";
      vars[0].value = g->desc->seat_names[s.turn];
      vars[1].name = "move";
      vars[1].value = canon;
      tpl_line(line, sizeof(line), m->svc->cfg.templates_dir, "phrases.txt",
               strcmp(canon, "--") ? "forced-play" : dice ? "no-play" : "no-move-pass", vars,
               2);
      if(base_buf_printf(shown, "%s\n", line))
        break; /* rc is -1 */
    }
  }
  if(steps == ADVANCE_MAX)
    ref_log_error("game %lld: more than %d automatic steps", (long long)g->row.id,
                  ADVANCE_MAX);
  ref_movelist_free(&list);
  /* Lag Backgammon Chess: the private faces of the rolls now due (lag.c). */
  if(!rc && ref_lag_mail(m, g))
    rc = -1;
  return rc;
}
