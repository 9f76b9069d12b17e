/*
 * cmd_play.c: the commands that play (rules-spec.md §1): a move (one turn
 * per mail, §1.1), draws (offer, accept, decline, claim), the cube and the
 * roll (§4.3, §1.6), resignations (BG-5's offers in cube games). The rules
 * judge each; after a change, turns.c rolls and plays forced turns, and
 * the result or the next turn is mailed. Layer 6, "handlers"
 * (docs/architecture.md).
 */
#include "handlers_int.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Finishes the bookkeeping of a rules change: save, and if the game ended,
 * journal the result and tell everyone. */
static int after_change(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const char *mover_tmpl, const char *other_tmpl)
{
  struct ref_status s;
  size_t i;

  if(ref_game_advance(m, g, &m->events) || ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  m->observed = 1;
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER) {
    if(ref_journal(m->svc, g, -1, "end", g->row.result, NULL))
      return -1;
    ref_log_info("game %lld: over, %s", (long long)g->row.id, g->row.result);
    return ref_tell_result(m, g, "game-over.txt", NULL, 0) || ref_compete_game_over(m, g);
  }
  /* A turn mailed in parts (Backgammon Chess: the play, then the chess
   * move): the mover still holds the turn and nothing was rolled or played
   * for anyone else, so the opponent has nothing new to hear yet. */
  if(s.turn == seat && s.phase == REF_PHASE_MOVE && !(m->events.s && m->events.s[0]))
    other_tmpl = NULL;
  for(i = 0; i < g->nseats; i++) {
    const char *t = (int)i == seat ? mover_tmpl : other_tmpl;
    if(t && ref_tell_seat(m, g, (int)i, t, NULL, 0))
      return -1;
  }
  return 0;
}

static int do_action(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c, enum ref_action a, int arg)
{
  struct ref_err err;
  char text[64];
  memset(&err, 0, sizeof(err));
  if(g->desc->ops->act(g->state, seat, a, arg, &err) != REF_OK)
    return ref_refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "illegal", err.detail,
                      &err);
  ref_action_text(text, sizeof(text), a, arg);
  if(ref_journal(m->svc, g, seat, "action", text, NULL))
    return -1;
  return after_change(m, g, seat, NULL, NULL);
}

int ref_do_draw(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                const struct ref_cmd *c)
{
  int offer = (int)g->row.draw_offer_seat;
  if(!(g->desc->flags & REF_GAME_DRAWS))
    return ref_refuse(m, g, seat, c->line, "no-draws", g->desc->title, NULL);
  switch(c->kind) {
  case REF_CMD_DRAW_OFFER:
    if(offer == seat)
      return ref_refuse(m, g, seat, c->line, "draw-already-offered", "", NULL);
    if(offer >= 0) /* both offered: that is agreement */
      break;
    g->row.draw_offer_seat = seat;
    if(ref_journal(m->svc, g, seat, "offer", "draw offer", NULL) || ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_seat(m, g, 1 - seat, "draw-offered.txt", NULL, 0) ||
           ref_tell_seat(m, g, seat, "draw-offer-sent.txt", NULL, 0);
  case REF_CMD_DRAW_DECLINE:
    if(offer < 0 || offer == seat)
      return ref_refuse(m, g, seat, c->line, "no-draw-offer", "", NULL);
    g->row.draw_offer_seat = -1;
    if(ref_journal(m->svc, g, seat, "offer", "draw declined", NULL) ||
       ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_all(m, g, "draw-declined.txt", NULL, 0);
  case REF_CMD_DRAW_ACCEPT:
    if(offer < 0 || offer == seat)
      return ref_refuse(m, g, seat, c->line, "no-draw-offer", "", NULL);
    break;
  case REF_CMD_DRAW_CLAIM:
    return do_action(m, g, seat, c, REF_ACT_DRAW_CLAIM, 0);
  default:
    return -1;
  }
  g->row.draw_offer_seat = -1;
  return do_action(m, g, seat, c, REF_ACT_DRAW_AGREED, 0);
}

/* The move of this mail: its candidate lines must read as one legal turn
 * (rules-spec.md §1.1: one turn per email; turnread.c joins a play written
 * over several lines, issue 13). */
int ref_do_move(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                const struct ref_cmds *cmds, int notify)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_turn *t;
  struct ref_move found;
  struct ref_status s;
  char canon[REF_NOTATION_MAX], numbered[160];
  int rc;

  ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER)
    return ref_refuse(m, g, seat, cmds->cand[0], "game-over", "", NULL);
  if(s.turn != seat)
    return ref_refuse(m, g, seat, cmds->cand[0], "not-your-turn", g->desc->seat_names[s.turn],
                      NULL);
  if(!(t = malloc(sizeof(*t))))
    return -1;
  if(ref_read_turn(g, cmds, t)) {
    free(t);
    return -1;
  }
  if(!t->found) {
    rc = t->conflict ? ref_refuse(m, g, seat, t->input, "one-move-per-mail", "", NULL)
                     : ref_refuse(m, g, seat, t->input,
                                  t->err.reason[0] ? t->err.reason : "unreadable", t->err.detail,
                                  &t->err);
    free(t);
    return rc;
  }
  found = t->mv;
  free(t);

  ops->format(g->state, &found, REF_NOTATION_CANONICAL, canon, sizeof(canon));
  ref_move_label(g, canon, numbered, sizeof(numbered));
  ops->apply(g->state, &found);
  snprintf(g->last_move, sizeof(g->last_move), "%s", numbered);
  snprintf(g->played, sizeof(g->played), "%s", numbered);
  /* issue 18: a move declines the opponent's standing takeback request,
   * as it declines a draw offer (journaled before the move) */
  if(ref_takeback_moved(m, g, seat) || ref_journal(m->svc, g, seat, "move", canon, NULL))
    return -1;
  /* FIDE 9.1.2.2: a move declines a standing draw offer of the opponent. */
  if(g->row.draw_offer_seat >= 0 && g->row.draw_offer_seat != seat)
    g->row.draw_offer_seat = -1;
  ref_log_info("game %lld: %s %s", (long long)g->row.id, g->desc->seat_names[seat], numbered);
  if(!notify)
    return after_change(m, g, seat, NULL, NULL);
  return after_change(m, g, seat, "move-accepted.txt", "your-move.txt");
}

/* Cube decisions and the roll (rules-spec.md §4.3, §1.6). The rules
 * judge whether each is allowed now; their reason key words the refusal. */
int ref_do_cube(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                const struct ref_cmd *c, enum ref_cmd_kind kind, int has_move)
{
  struct ref_status s;
  struct ref_err err;
  enum ref_action a;
  char text[64];

  if(!(g->desc->flags & REF_GAME_DICE))
    return ref_refuse(m, g, seat, c->line, "not-available", ref_cmd_name(kind), NULL);
  g->desc->ops->status(g->state, &s);
  if(kind == REF_CMD_ROLL) {
    if(s.phase == REF_PHASE_CUBE && s.turn == seat) {
      if(ref_game_roll_now(m, g, &m->events))
        return -1;
      return after_change(m, g, seat, "rolled.txt", "rolled.txt");
    }
    /* Not now: a standing answer to this player's next cube question. */
    if(ref_autoroll_set(m->svc, g->row.id, seat, 1))
      return -1;
    m->changed = 1;
    return has_move ? 0 : ref_tell_seat(m, g, seat, "roll-noted.txt", NULL, 0);
  }
  if(!(g->desc->flags & REF_GAME_CUBE))
    return ref_refuse(m, g, seat, c->line, "not-available", ref_cmd_name(kind), NULL);
  a = kind == REF_CMD_DOUBLE ? REF_ACT_DOUBLE : kind == REF_CMD_TAKE ? REF_ACT_TAKE
                                                                     : REF_ACT_DROP;
  memset(&err, 0, sizeof(err));
  if(g->desc->ops->act(g->state, seat, a, 0, &err) != REF_OK)
    return ref_refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "illegal", err.detail,
                      &err);
  ref_action_text(text, sizeof(text), a, 0);
  if(ref_journal(m->svc, g, seat, "action", text, NULL))
    return -1;
  if(a == REF_ACT_DOUBLE) {
    if(ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_seat(m, g, 1 - seat, "double-offered.txt", NULL, 0) ||
           ref_tell_seat(m, g, seat, "double-sent.txt", NULL, 0);
  }
  return after_change(m, g, seat, "cube-taken.txt", "cube-taken.txt");
}

/* BG-5: in a cube game "resign [gammon|backgammon]" offers to lose that
 * much; the opponent accepts (the game ends at level x cube) or rejects
 * (play continues). The standing offer lives in the kv table; offers and
 * answers are journaled for the record. */
static void resign_key(char *buf, size_t cap, int64_t game)
{
  snprintf(buf, cap, "resign:%lld", (long long)game);
}

static int pending_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int *seat, int *level)
{
  char key[48], value[32];
  resign_key(key, sizeof(key), g->row.id);
  if(store_kv_get(m->svc->st, value, sizeof(value), key) != STORE_OK ||
     sscanf(value, "%d %d", seat, level) != 2 || *seat < 0)
    return 0;
  return 1;
}

static int set_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, int level)
{
  char key[48], value[32];
  resign_key(key, sizeof(key), g->row.id);
  snprintf(value, sizeof(value), "%d %d", seat, level);
  return store_kv_set(m->svc->st, key, value) == STORE_OK ? 0 : -1;
}

int ref_do_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                  const struct ref_cmd *c, int level)
{
  static const char *const names[] = {"", "a single game", "a gammon", "a backgammon"};
  struct tpl_var extra[1];
  char text[32];
  if(!(g->desc->flags & REF_GAME_CUBE))
    return do_action(m, g, seat, c, REF_ACT_RESIGN, level);
  snprintf(text, sizeof(text), "resign offer %d", level);
  if(set_resign(m, g, seat, level) || ref_journal(m->svc, g, seat, "offer", text, NULL))
    return -1;
  m->changed = 1;
  extra[0].name = "level";
  extra[0].value = names[level];
  return ref_tell_seat(m, g, 1 - seat, "resign-offered.txt", extra, 1) ||
         ref_tell_seat(m, g, seat, "resign-offer-sent.txt", extra, 1);
}

int ref_resign_offer_pending(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  int seat, level;
  return pending_resign(m, g, &seat, &level);
}

/* The opponent's answer to a standing resignation offer. */
int ref_do_resign_answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmd *c, int accept)
{
  int offerer, level;
  if(!pending_resign(m, g, &offerer, &level) || offerer == seat)
    return ref_refuse(m, g, seat, c->line, "no-resign-offer", "", NULL);
  if(set_resign(m, g, -1, 0))
    return -1;
  if(accept)
    return do_action(m, g, offerer, c, REF_ACT_RESIGN, level);
  if(ref_journal(m->svc, g, seat, "offer", "resign rejected", NULL))
    return -1;
  m->changed = 1;
  return ref_tell_all(m, g, "resign-rejected.txt", NULL, 0);
}
