/*
 * rules.c: what every game system shares through rules.h: move lists, states
 * as plain data, perft over the operations table, the refusal record, the
 * plain resign/draw actions and the end names. It names no game.
 */
#include "rules.h"

#include <stdlib.h>
#include <string.h>

int ref_movelist_push(struct ref_movelist *list, const struct ref_move *m)
{
  if(list->n == list->cap) {
    size_t cap = list->cap ? list->cap * 2 : 64;
    struct ref_move *v = realloc(list->v, cap * sizeof(*v));
    if(!v)
      return REF_ENOMEM;
    list->v = v;
    list->cap = cap;
  }
  list->v[list->n++] = *m;
  return REF_OK;
}

void ref_movelist_clear(struct ref_movelist *list)
{
  list->n = 0;
}

void ref_movelist_free(struct ref_movelist *list)
{
  free(list->v);
  list->v = NULL;
  list->n = list->cap = 0;
}

struct ref_state *ref_state_new(const struct ref_game_desc *g)
{
  return calloc(1, g->state_size);
}

struct ref_state *ref_state_dup(const struct ref_game_desc *g, const struct ref_state *s)
{
  struct ref_state *c = malloc(g->state_size);
  if(c)
    memcpy(c, s, g->state_size);
  return c;
}

uint64_t ref_perft(const struct ref_game_desc *g, const struct ref_state *s, int depth)
{
  struct ref_status st;

  /* G-1: a game over at the root lists no move, so its tree is empty
   * (divide and moves say the same) */
  if(depth <= 0)
    return 1;
  memset(&st, 0, sizeof(st));
  g->ops->status(s, &st);
  return st.phase == REF_PHASE_OVER ? 0 : ref_perft_below(g, s, depth);
}

/* The game's own perft, or for games without a fast one a walk of
 * legal/apply on copies. Dice games count only move plies (the caller
 * fixes the dice). */
uint64_t ref_perft_below(const struct ref_game_desc *g, const struct ref_state *s, int depth)
{
  struct ref_movelist list = {0};
  struct ref_state *child = NULL;
  uint64_t total = 0;
  size_t i;

  /* G-1: below the root a game's own perft counts its generator's moves
   * through positions the rules call over, as the oracles do */
  if(g->ops->perft)
    return g->ops->perft(s, depth);
  if(depth <= 0)
    return 1;
  if(g->ops->legal(s, &list) != REF_OK)
    goto out;
  if(depth == 1) {
    total = list.n;
    goto out;
  }
  child = malloc(g->state_size);
  if(!child)
    goto out;
  for(i = 0; i < list.n; i++) {
    memcpy(child, s, g->state_size);
    g->ops->apply(child, &list.v[i]);
    total += ref_perft_below(g, child, depth - 1);
  }
out:
  free(child);
  ref_movelist_free(&list);
  return total;
}

void ref_err_set(struct ref_err *err, enum ref_code code, const char *reason, const char *detail)
{
  if(!err)
    return;
  memset(err, 0, sizeof(*err));
  err->code = code;
  if(reason)
    strncpy(err->reason, reason, sizeof(err->reason) - 1);
  if(detail)
    strncpy(err->detail, detail, sizeof(err->detail) - 1);
}

int ref_plain_act(int seat, enum ref_action action, bool over, enum ref_end claim,
                  const char *no_claim, int *winner, enum ref_end *end, struct ref_err *err)
{
  if(seat != 0 && seat != 1) {
    ref_err_set(err, REF_EINVAL, "ch-no-such-seat", NULL);
    return REF_EINVAL;
  }
  if(action == REF_ACT_DOUBLE || action == REF_ACT_TAKE || action == REF_ACT_DROP ||
     action == REF_ACT_BEAVER) {
    ref_err_set(err, REF_EPHASE, "ch-no-cube", NULL);
    return REF_EPHASE;
  }
  if(action != REF_ACT_RESIGN && action != REF_ACT_DRAW_AGREED && action != REF_ACT_DRAW_CLAIM) {
    ref_err_set(err, REF_EINVAL, "ch-unknown-action", NULL);
    return REF_EINVAL;
  }
  if(over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  *winner = -1;
  if(action == REF_ACT_RESIGN) {
    *winner = seat ^ 1;
    *end = REF_END_RESIGNATION;
  }
  else if(action == REF_ACT_DRAW_AGREED)
    *end = REF_END_AGREEMENT;
  else if(claim != REF_END_NONE)
    *end = claim; /* CH-2: claimed by either player */
  else {
    ref_err_set(err, REF_EILLEGAL, no_claim, NULL);
    return REF_EILLEGAL;
  }
  return REF_OK;
}

const char *ref_end_name(enum ref_end end)
{
  /* Keys for templates/ (results.txt); keep in enum order. */
  static const char *const names[REF_END_LAST] = {
    "none", "checkmate", "stalemate", "resignation", "agreement", "threefold",
    "fifty-moves", "fivefold", "seventy-five-moves", "dead-position", "no-moves",
    "borne-off", "cube-dropped", "repetition", "forty-moves", "time", "adjudicated",
    "same-move-number",
    "king-home",
  };
  return (unsigned)end < REF_END_LAST ? names[end] : "unknown";
}
