/*
 * game_end.c: how the games without dice end (game_end_int.h): section
 * 2.3 with CH-2 for chess and Back-to-Back Chess, section 5.2 rule 9
 * (CG-10, CG-11, CG-12) for the Chessgammon family.
 */
#include "game_end_int.h"

#include <string.h>

void ref_ge_start(struct ref_ge *e, uint64_t key)
{
  e->over = 0;
  e->winner = -1;
  e->end = REF_END_NONE;
  e->hist[0] = key;
  e->nhist = 1;
}

void ref_ge_push(struct ref_ge *e, uint64_t key, bool irreversible)
{
  if(irreversible)
    e->nhist = 0;
  if(e->nhist == REF_GE_HIST_MAX) {
    memmove(e->hist, e->hist + 2, (REF_GE_HIST_MAX - 2) * sizeof(e->hist[0]));
    e->nhist -= 2;
  }
  e->hist[e->nhist++] = key;
}

int ref_ge_repetitions(const struct ref_ge *e)
{
  uint64_t key = e->hist[e->nhist - 1];
  int i, count = 0;
  for(i = (int)e->nhist - 1; i >= 0; i -= 2)
    if(e->hist[i] == key)
      count++;
  return count;
}

void ref_ge_finish(struct ref_ge *e, int winner, enum ref_end end)
{
  e->over = 1;
  e->winner = (int8_t)winner;
  e->end = (uint8_t)end;
}

static void running(struct ref_ge *e)
{
  e->over = 0;
  e->winner = -1;
  e->end = REF_END_NONE;
}

void ref_ge_fide(struct ref_ge *e, bool fide_draws, bool has_moves, bool in_check, bool dead,
                 uint32_t plies, int mover)
{
  running(e);
  /* Checkmate comes first, as FIDE 9.6.2 says it does over the 75-move
   * rule; no legal move and no check is stalemate (section 2.3). */
  if(!has_moves)
    ref_ge_finish(e, in_check ? mover : -1, in_check ? REF_END_CHECKMATE : REF_END_STALEMATE);
  else if(!fide_draws)
    return;
  else if(dead)
    ref_ge_finish(e, -1, REF_END_DEAD_POSITION);
  else if(ref_ge_repetitions(e) >= 5)
    ref_ge_finish(e, -1, REF_END_FIVEFOLD);
  else if(plies >= 150)
    ref_ge_finish(e, -1, REF_END_SEVENTY_FIVE);
}

enum ref_end ref_ge_fide_claim(const struct ref_ge *e, bool fide_draws, uint32_t plies)
{
  /* CH-2: threefold and fifty moves are draws only when claimed. */
  if(!fide_draws)
    return REF_END_NONE;
  return ref_ge_repetitions(e) >= 3 ? REF_END_THREEFOLD
         : plies >= 100             ? REF_END_FIFTY_MOVES
                                    : REF_END_NONE;
}

void ref_ge_chessgammon(struct ref_ge *e, int moved, const bool done[2],
                        bool (*can_move)(const void *ctx, bool other), const void *ctx)
{
  running(e);
  if(moved == 1) {
    if(done[0] && done[1])
      ref_ge_finish(e, -1, REF_END_SAME_MOVE_NUMBER); /* CG-10 */
    else if(done[1])
      ref_ge_finish(e, 1, REF_END_BORNE_OFF);
    else if(done[0])
      ref_ge_finish(e, 0, REF_END_BORNE_OFF);
  }
  else if(done[1]) {
    ref_ge_finish(e, 1, REF_END_BORNE_OFF); /* HB-4: captured out in White's half */
  }
  if(e->over || can_move(ctx, false))
    return;
  if(done[0]) /* CG-10: "otherwise (including Black having to pass) White wins" */
    ref_ge_finish(e, 0, REF_END_BORNE_OFF);
  else if(!can_move(ctx, true))
    ref_ge_finish(e, -1, REF_END_NO_MOVES); /* CG-11 */
}

enum ref_end ref_ge_cg_claim(const struct ref_ge *e, bool fifty, uint32_t turns)
{
  return ref_ge_repetitions(e) >= 3 ? REF_END_THREEFOLD
         : fifty && turns >= 100    ? REF_END_FIFTY_MOVES
                                    : REF_END_NONE;
}

int ref_ge_act(struct ref_ge *e, int seat, enum ref_action action, enum ref_end claim,
               const char *no_claim, struct ref_err *err)
{
  enum ref_end end;
  int winner, rc = ref_plain_act(seat, action, e->over, claim, no_claim, &winner, &end, err);
  if(rc == REF_OK)
    ref_ge_finish(e, winner, end);
  return rc;
}

void ref_ge_status(const struct ref_ge *e, int side, int move_number, bool in_check,
                   bool claimable, struct ref_status *out)
{
  memset(out, 0, sizeof(*out));
  out->phase = e->over ? REF_PHASE_OVER : REF_PHASE_MOVE;
  out->turn = e->over ? -1 : side;
  out->winner = e->over ? e->winner : -1;
  out->end = e->over ? (enum ref_end)e->end : REF_END_NONE;
  out->points = e->over && e->winner >= 0 ? 1 : 0;
  out->move_number = move_number;
  out->in_check = in_check;
  out->draw_claimable = !e->over && claimable;
  out->cube = 0;
  out->cube_owner = -1;
}

int ref_ge_moves(const struct ref_ge *e, const uint32_t *v, int n, uint32_t pass,
                 struct ref_movelist *out)
{
  struct ref_move m;
  int i;

  if(e->over)
    return REF_OK;
  memset(&m, 0, sizeof(m));
  if(!n && pass) {
    m.w[0] = pass;
    return ref_movelist_push(out, &m) == REF_OK ? REF_OK : REF_ENOMEM;
  }
  for(i = 0; i < n; i++) {
    m.w[0] = v[i];
    if(ref_movelist_push(out, &m) != REF_OK)
      return REF_ENOMEM;
  }
  return REF_OK;
}

uint32_t ref_ge_find(const uint32_t *moves, int n, const struct ref_move *m)
{
  int i;
  for(i = 1; i < REF_MOVE_WORDS; i++)
    if(m->w[i])
      return 0;
  for(i = 0; i < n; i++)
    if(moves[i] == m->w[0])
      return moves[i];
  return 0;
}

bool ref_ge_ok(const struct ref_ge *e, const struct ref_ge *again, bool threefold, bool fifty)
{
  if(e->over > 1)
    return false;
  if(!e->over)
    return e->end == REF_END_NONE && e->winner == -1 && !again->over;
  if(e->end == REF_END_NONE || e->end >= REF_END_LAST || e->winner < -1 || e->winner > 1)
    return false;
  switch(e->end) {
  case REF_END_RESIGNATION:
    return e->winner >= 0;
  case REF_END_AGREEMENT:
    return e->winner == -1;
  case REF_END_THREEFOLD:
    return e->winner == -1 && threefold;
  case REF_END_FIFTY_MOVES:
    return e->winner == -1 && fifty;
  default:
    /* Automatic results must be exactly what the position says. */
    return again->over && again->end == e->end && again->winner == e->winner;
  }
}

bool ref_ge_hist_ok(const struct ref_ge *e, uint64_t key)
{
  return e->nhist >= 1 && e->nhist <= REF_GE_HIST_MAX && e->hist[e->nhist - 1] == key;
}
