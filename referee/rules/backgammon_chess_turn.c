/*
 * backgammon_chess_turn.c: a Backgammon Chess turn played part by part
 * (rules-spec section 6.2): the cube question and the roll's start, the
 * backgammon play, each stone's placement, the chess move and the wins
 * that come between them; a turn packed into a ref_move and back. Below
 * both backgammon_chess.c (the position string, the ops) and
 * backgammon_chess_notation.c (reading and writing a turn), which each
 * call it, so neither calls the other back.
 */
#include "backgammon_chess_int.h"

#include <string.h>

/* ---------------------------------------------------------------------- */
/* The turn                                                                */
/* ---------------------------------------------------------------------- */

void ref_bc_finish(struct bc_state *st, int winner, enum ref_end end, int points)
{
  ref_bg_turn_finish(&st->t, winner, end, points);
  st->stage = ST_NONE;
}

/* Section 1.6 / 4.3: the cube question comes before the roll, and only
 * when a double is legal. */
void ref_bc_start_turn(struct bc_state *st, int seat)
{
  st->t.onroll = st->t.turn = (int8_t)seat;
  st->t.dice[0] = st->t.dice[1] = 0;
  st->stage = ST_NONE;
  st->pending = 0;
  st->first = 0;
  st->bgtext[0] = '\0';
  st->t.phase = ref_bg_cube_may_double(&st->cube, seat) ? REF_PHASE_CUBE : REF_PHASE_ROLL;
}

/* 6.2e: before the chess move. The opponent's king attacked and a legal
 * chess move at hand: the player wins (seed: "you may be able to make a
 * chess move while opponent is in check. In this case, you win"). No legal
 * chess move: in check loses, else the only draw there is (6.6). */
static int enter_chess(struct bc_state *st)
{
  struct bc_cmlist l = {0};
  int us = st->t.onroll, rc = ref_bc_gen_chess(st, &l), n = l.n;
  int cube = ref_bg_cube_value(&st->cube);

  ref_bc_cm_free(&l);
  if(rc)
    return rc;
  if(n && ref_bc_king_attacked(st, !us))
    ref_bc_finish(st, us, REF_END_CHECKMATE, cube);
  else if(!n && ref_bc_king_attacked(st, us))
    ref_bc_finish(st, !us, REF_END_CHECKMATE, cube);
  else if(!n)
    ref_bc_finish(st, -1, REF_END_STALEMATE, 0);
  else
    st->stage = ST_CHESS;
  return REF_OK;
}

/* After the backgammon play and its placements. */
static int after_backgammon(struct bc_state *st, bool played)
{
  if(!played) {
    /* 6.2f: no die played, no chess move; the chess side passes too. */
    st->ep = NO_SQ;
    ref_bc_flip_side(&st->pos);
    ref_bc_start_turn(st, !st->t.onroll);
    return REF_OK;
  }
  return enter_chess(st);
}

/* Plays the backgammon part. With `check`, the play must be one of
 * ref_bg_plays (must-play, BG-2), else REF_EILLEGAL; without, the caller
 * knows it is (it came from that list or from the backgammon parser). */
int ref_bc_do_bg(struct bc_state *st, const struct ref_bg_play *p, bool check)
{
  struct ref_bg_playlist list = {0};
  struct ref_bg_board nb = st->b;
  int mover = st->t.onroll, i, off = 0, rc;

  if(st->t.phase != REF_PHASE_MOVE || st->stage != ST_BG)
    return REF_EPHASE;
  for(i = 0; i < p->n; i++) {
    int to;
    if(p->from[i] < 1 || p->from[i] > REF_BG_BAR || p->to[i] >= p->from[i] ||
       ref_bg_step(&nb, mover, p->from[i], p->from[i] - p->to[i] > 6 ? 6 : 1, &to) ==
         REF_BG_NO_CHECKER)
      return REF_EILLEGAL;
    ref_bg_step_apply(&nb, mover, p->from[i], p->to[i]);
    off += p->to[i] == REF_BG_OFF;
  }
  rc = check ? ref_bg_plays(&st->b, mover, st->t.dice[0], st->t.dice[1], &list) : REF_OK;
  if(!rc && check && ref_bg_playlist_find(&list, &nb) < 0)
    rc = REF_EILLEGAL;
  if(!rc && ref_bg_play_format(&st->b, mover, p, st->bgtext, sizeof(st->bgtext)) < 0)
    st->bgtext[0] = '\0';
  ref_bg_playlist_free(&list);
  if(rc)
    return rc;
  st->b = nb;
  if(st->b.pt[mover][REF_BG_OFF] == REF_BG_CHECKERS) {
    /* 6.2d, BC-9: a backgammon win takes the gammon multipliers; the last
     * stones need no placing. */
    st->pending = (uint8_t)off;
    ref_bc_finish(st, mover, REF_END_BORNE_OFF,
           ref_bg_game_multiplier(&st->b, mover) * ref_bg_cube_value(&st->cube));
    return REF_OK;
  }
  if(off) {
    st->stage = ST_PLACE;
    st->pending = (uint8_t)off;
    return REF_OK;
  }
  return after_backgammon(st, p->n > 0);
}

/* Why a stone may not go on sq (BC-2: any vacant square, or on one's own
 * single stone making it doubled), or NULL. */
const char *ref_bc_place_refusal(const struct bc_state *st, int sq)
{
  int us = st->t.onroll;
  if(sq < 0 || sq > 63)
    return "bc-bad-square";
  if(st->pos.board[sq] != REF_CH_EMPTY || (st->stones[!us] & BIT(sq)))
    return "bc-square-occupied";
  if(st->dbl[us] & BIT(sq))
    return "bc-stone-full";
  return NULL;
}

int ref_bc_do_place(struct bc_state *st, int sq)
{
  int us = st->t.onroll;
  if(st->t.phase != REF_PHASE_MOVE || st->stage != ST_PLACE || !st->pending)
    return REF_EPHASE;
  if(ref_bc_place_refusal(st, sq))
    return REF_EILLEGAL;
  if(st->stones[us] & BIT(sq))
    st->dbl[us] |= BIT(sq);
  else
    st->stones[us] |= BIT(sq);
  st->last_from = st->last_to = (uint8_t)sq;
  if(--st->pending == 0)
    return after_backgammon(st, true);
  return REF_OK;
}

static int do_chess(struct bc_state *st, const struct bc_cmove *cm)
{
  struct bc_cmlist l = {0};
  int i, rc, us = st->t.onroll;
  bool found = false;

  if(st->t.phase != REF_PHASE_MOVE || st->stage != ST_CHESS)
    return REF_EPHASE;
  rc = ref_bc_gen_chess(st, &l);
  for(i = 0; !rc && i < l.n && !found; i++)
    if(ref_bc_cm_same(&l.v[i], cm)) {
      found = true;
      ref_bc_cm_do(st, &l.v[i]); /* the generator's path: it knows what was jumped */
    }
  ref_bc_cm_free(&l);
  if(rc)
    return rc;
  if(!found)
    return REF_EILLEGAL;
  /* 6.2.3: the opponent checkmated (attacked, no legal chess move) loses at
   * once; future placements do not count (BC-4). */
  if(ref_bc_king_attacked(st, !us)) {
    rc = ref_bc_gen_chess(st, &l);
    if(!rc && l.n == 0)
      ref_bc_finish(st, us, REF_END_CHECKMATE, ref_bg_cube_value(&st->cube));
    ref_bc_cm_free(&l);
    if(rc)
      return rc;
    if(st->t.phase == REF_PHASE_OVER)
      return REF_OK;
  }
  ref_bc_start_turn(st, !us);
  return REF_OK;
}

/* ---------------------------------------------------------------------- */
/* ref_move <-> turn                                                       */
/* ---------------------------------------------------------------------- */

void ref_bc_turn_to_move(const struct bc_turn *t, struct ref_move *m)
{
  int i;
  memset(m, 0, sizeof(*m));
  m->w[0] = BC_TAG | (t->has_bg ? BC_HAS_BG : 0) | (t->has_chess ? BC_HAS_CHESS : 0) |
            (uint32_t)t->nplace << BC_NPLACE_SHIFT;
  if(t->has_bg) {
    m->w[1] = t->play.n;
    for(i = 0; i < t->play.n; i++) {
      m->w[2] |= (uint32_t)t->play.from[i] << (8 * i);
      m->w[3] |= (uint32_t)t->play.to[i] << (8 * i);
    }
  }
  for(i = 0; i < t->nplace; i++)
    m->w[4] |= (uint32_t)t->place[i] << (8 * i);
  if(t->has_chess) {
    if(!t->cm.stone) {
      m->w[5] = 1u | (uint32_t)t->cm.m << 16;
    }
    else {
      m->w[5] = 2u;
      m->w[6] = t->cm.path.from | (uint32_t)t->cm.path.nhops << 8 |
                (uint32_t)t->cm.path.capture << 16;
      for(i = 0; i < t->cm.path.nhops; i++)
        m->w[7 + i / 4] |= (uint32_t)t->cm.path.to[i] << (8 * (i % 4));
    }
  }
}

int ref_bc_move_to_turn(const struct ref_move *m, struct bc_turn *t)
{
  int i;
  memset(t, 0, sizeof(*t));
  if((m->w[0] & 0xffff0000u) != BC_TAG)
    return REF_EINVAL;
  t->has_bg = (m->w[0] & BC_HAS_BG) != 0;
  t->has_chess = (m->w[0] & BC_HAS_CHESS) != 0;
  t->nplace = (int)(m->w[0] >> BC_NPLACE_SHIFT & 7);
  if(t->nplace > 4 || m->w[1] > 4)
    return REF_EINVAL;
  t->play.n = (uint8_t)m->w[1];
  for(i = 0; i < t->play.n; i++) {
    t->play.from[i] = (uint8_t)(m->w[2] >> (8 * i));
    t->play.to[i] = (uint8_t)(m->w[3] >> (8 * i));
  }
  for(i = 0; i < t->nplace; i++) {
    t->place[i] = (uint8_t)(m->w[4] >> (8 * i));
    if(t->place[i] > 63)
      return REF_EINVAL;
  }
  if(t->has_chess) {
    if((m->w[5] & 0xffff) == 1) {
      t->cm.m = (uint16_t)(m->w[5] >> 16);
    }
    else if((m->w[5] & 0xffff) == 2) {
      t->cm.stone = 1;
      t->cm.path.from = (uint8_t)m->w[6];
      t->cm.path.nhops = (uint8_t)(m->w[6] >> 8);
      t->cm.path.capture = (m->w[6] >> 16 & 1) != 0;
      if(t->cm.path.from > 63 || !t->cm.path.nhops || t->cm.path.nhops > REF_CK_HOPS_MAX)
        return REF_EINVAL;
      for(i = 0; i < t->cm.path.nhops; i++)
        t->cm.path.to[i] = (uint8_t)(m->w[7 + i / 4] >> (8 * (i % 4)));
    }
    else {
      return REF_EINVAL;
    }
  }
  return REF_OK;
}

/* Plays every part of a turn in order; stops at the first refusal. */
int ref_bc_do_turn(struct bc_state *st, const struct bc_turn *t)
{
  int rc = REF_OK, i;
  if(t->has_bg)
    rc = ref_bc_do_bg(st, &t->play, true);
  for(i = 0; !rc && i < t->nplace; i++)
    rc = st->t.phase == REF_PHASE_OVER ? REF_EILLEGAL : ref_bc_do_place(st, t->place[i]);
  /* A chess part after a win before the chess move (6.2d, 6.2e) is moot. */
  if(!rc && t->has_chess && st->t.phase != REF_PHASE_OVER)
    rc = do_chess(st, &t->cm);
  return rc;
}

void ref_bc_match_of(const struct bc_state *st, struct ref_bg_match *m)
{
  memset(m, 0, sizeof(*m));
  m->cube_log2 = st->cube.log2;
  m->cube_owner = st->cube.owner;
  m->state = 1;
  m->on_roll = st->t.onroll;
  m->turn = st->t.turn < 0 ? st->t.onroll : st->t.turn;
  m->doubled = st->t.phase == REF_PHASE_CUBE_REPLY;
  if(st->t.phase == REF_PHASE_MOVE && !st->first) {
    m->dice[0] = st->t.dice[0];
    m->dice[1] = st->t.dice[1];
  }
}
