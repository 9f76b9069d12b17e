/*
 * turnread.c: a mail's move lines read as its one turn (rules-spec.md
 * §1.1: one turn per mail, its plays over several lines).
 * Layer 3, "games" (docs/architecture.md).
 *
 * commands.c (layer 1) only splits a mail into command lines and short
 * move candidates: it knows no game. The rules' parse reads one text as a
 * turn (or the stage of a turn that is left) and knows nothing of mail
 * lines. Which lines of a mail make its turn needs both, the candidates
 * and the game's position, so it is decided here, once, for every handler
 * that plays or weighs a move (cmd_play.c's move, dispatch.c's "is this
 * prose?"), whatever the game.
 *
 * The rule: a line that alone is a legal whole turn is the turn, and two
 * different such lines are refused (§1.1). When no line alone is a legal
 * whole turn, consecutive lines are joined: a client that breaks a play
 * over lines (Outlook for Android writes "24/21" and "13/7" on two) meant
 * one turn. Of the lines and runs of lines that read as a legal move (a
 * whole turn, or a stage of one: the backgammon part of a Backgammon Chess
 * turn), the longest win; two different longest are refused as two turns.
 */
#include "game_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether mv, legal here, ends the mover's turn (1) or leaves the same
 * seat a further stage to play (0: Backgammon Chess's backgammon part),
 * -1 without memory. */
static int whole_turn(const struct ref_game_ctx *g, const struct ref_move *mv)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_status before, after;
  struct ref_state *copy = ref_state_dup(g->desc, g->state);
  if(!copy)
    return -1;
  ops->status(g->state, &before);
  ops->apply(copy, mv);
  ops->status(copy, &after);
  free(copy);
  return after.phase == REF_PHASE_OVER || after.turn != before.turn ||
         after.phase != REF_PHASE_MOVE;
}

/* A run of candidate lines that reads as a legal move. */
struct run {
  int start, len;
  struct ref_move mv;
};

static void join(const struct ref_cmds *cmds, int start, int len, char *buf, size_t cap)
{
  int i;
  buf[0] = '\0';
  for(i = start; i < start + len; i++)
    snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s", i > start ? " " : "",
             cmds->cand[i]);
}

static int contains(const struct run *outer, const struct run *inner)
{
  return outer->len > inner->len && inner->start >= outer->start &&
         inner->start + inner->len <= outer->start + outer->len;
}

static void conflict(struct ref_turn *t, const struct ref_cmds *cmds, const struct run *r)
{
  t->found = 0;
  t->conflict = 1;
  join(cmds, r->start, r->len, t->input, sizeof(t->input));
}

int ref_read_turn(const struct ref_game_ctx *g, const struct ref_cmds *cmds, struct ref_turn *t)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct run runs[REF_CAND_MAX * (REF_CAND_MAX + 1) / 2];
  char text[REF_CAND_MAX * (sizeof(cmds->cand[0]) + 1)];
  int nruns = 0, whole = -1, best_rank = -1, i, len, n = cmds->ncand;

  memset(t, 0, sizeof(*t));
  if(n > REF_CAND_MAX)
    n = REF_CAND_MAX;
  /* Each line alone. */
  for(i = 0; i < n; i++) {
    struct ref_err err;
    struct run *r = &runs[nruns];
    int w;
    memset(&err, 0, sizeof(err));
    if(ops->parse(g->state, cmds->cand[i], &r->mv, &err) != REF_OK) {
      /* Keep the most telling failure: an illegal or ambiguous move says
       * more than an unreadable greeting. */
      int rank = err.code == REF_EPARSE ? 0 : 1;
      if(rank > best_rank) {
        best_rank = rank;
        t->err = err;
        snprintf(t->input, sizeof(t->input), "%s", cmds->cand[i]);
      }
      continue;
    }
    r->start = i;
    r->len = 1;
    if((w = whole_turn(g, &r->mv)) < 0)
      return -1;
    if(w) {
      /* §1.1: two lines that are each a whole turn are two turns */
      if(whole >= 0 && memcmp(&r->mv, &runs[whole].mv, sizeof(r->mv))) {
        conflict(t, cmds, r);
        return 0;
      }
      if(whole < 0)
        whole = nruns;
    }
    nruns++;
  }
  if(whole >= 0) {
    t->found = 1;
    t->mv = runs[whole].mv;
    t->start = runs[whole].start;
    t->len = 1;
    snprintf(t->input, sizeof(t->input), "%s", cmds->cand[runs[whole].start]);
    return 0;
  }
  /* No line alone is a whole turn: consecutive lines joined, longest
   * first, a run inside a longer one that reads already left out. */
  for(len = n; len >= 2; len--)
    for(i = 0; i + len <= n; i++) {
      struct ref_err err;
      struct run *r = &runs[nruns];
      int k, inside = 0;
      r->start = i;
      r->len = len;
      for(k = 0; k < nruns && !inside; k++)
        inside = contains(&runs[k], r);
      if(inside)
        continue;
      join(cmds, i, len, text, sizeof(text));
      memset(&err, 0, sizeof(err));
      if(ops->parse(g->state, text, &r->mv, &err) == REF_OK)
        nruns++;
    }
  /* The longest readings: one turn, or two turns refused. */
  for(i = 0; i < nruns; i++) {
    int k, inside = 0;
    for(k = 0; k < nruns && !inside; k++)
      inside = contains(&runs[k], &runs[i]);
    if(inside)
      continue;
    if(t->found && memcmp(&runs[i].mv, &t->mv, sizeof(t->mv))) {
      conflict(t, cmds, &runs[i]);
      return 0;
    }
    if(!t->found) {
      t->found = 1;
      t->mv = runs[i].mv;
      t->start = runs[i].start;
      t->len = runs[i].len;
      join(cmds, runs[i].start, runs[i].len, t->input, sizeof(t->input));
    }
  }
  return 0;
}
