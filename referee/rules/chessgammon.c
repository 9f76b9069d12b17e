/*
 * chessgammon.c: Diceless Chessgammon, Ralph Betza's "Bear With Me" (game
 * "chessgammon", library tabula_rules), and the machinery its 8x8 variants
 * share (chessgammon_int.h): Doublemove, Racing Kings and Hans Bodlaender's
 * Chessgammon each add their hooks in a file of their own.
 *
 * Follows docs/rules-spec.md §5.1-5.2: the chess board and pieces (the
 * chess core's bitboards and its pseudo-legal generator, chess_int.h) with
 * no check, no castling, no promotion; captured pieces to the bar, brought
 * back in only on an empty square where a piece of that colour and type
 * started (rule 6); the bar restriction (rule 7, CG-4, CG-5); bearing off
 * to the imaginary rank 9 on files a-h only (CG-2, CG-3); passes instead of
 * stalemate (rule 8); the ends of rule 9 (CG-10 same move number, CG-11
 * neither can move, CG-12 agreement, threefold and an optional fifty-move
 * claim); e.p. after any two-step (CG-9).
 *
 * Layout: tables; the half-move generator; playing halves and ending turns;
 * the result; the position string; notation out; the tolerant parser; the
 * ops shared by the variants; the board; the invariant checker; the
 * descriptor of the plain game.
 */
#include "chess_notation_int.h"
#include "chessgammon_int.h"
#include "diagram_int.h"
#include "game_text_int.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIT(s) (1ull << (s))
#define SQ_FILE(s) ((int)((unsigned)(s) & 7u))
#define SQ_RANK(s) ((int)((unsigned)(s) >> 3))
#define WHITE REF_CH_WHITE
#define BLACK REF_CH_BLACK
#define NO_SQ REF_CH_NO_SQ

static const char piece_letters[] = "PNBRQK";

/* How many of each type an army has: no promotion (§5.2 rule 2), so no
 * side ever has more of a type than it started with. */
static const uint8_t start_count[6] = {8, 2, 2, 2, 1, 1};

/*
 * Rule 6: the squares a piece of each colour and type started on, the only
 * ones it may be brought back to. [colour][type].
 */
static const uint64_t appropriate[2][6] = {
  {0xFF00ull, 0x42ull, 0x24ull, 0x81ull, 0x08ull, 0x10ull},
  {0x00FF000000000000ull, 0x42ull << 56, 0x24ull << 56, 0x81ull << 56, 0x08ull << 56,
   0x10ull << 56},
};

static const char start_position[] =
  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w bar:- off:0/0 ep:- 1";

/*
 * RK-1 config rk_array (Racing Kings Chessgammon only): the Racing Kings
 * array 8/8/8/8/8/8/krbnNBRK/qrbnNBRQ [src: lichess], eight pieces a side
 * and no pawns; both sides move up and bear off beyond rank 8. Rule 6 then
 * reads this array: a piece comes back where one of its colour and type
 * started in it. The position string records the array ("array:rk").
 */
static const uint8_t rk_start_count[6] = {0, 2, 2, 2, 1, 1};
static const uint64_t rk_appropriate[2][6] = {
  {0, 0x1010ull, 0x2020ull, 0x4040ull, 0x80ull, 0x8000ull},
  {0, 0x0808ull, 0x0404ull, 0x0202ull, 0x01ull, 0x0100ull},
};
static const char rk_start_position[] =
  "8/8/8/8/8/8/krbnNBRK/qrbnNBRQ w bar:- off:0/0 ep:- 1 array:rk";

static const uint8_t *start_count_of(const struct ref_cg_state *st)
{
  return st->rk_array ? rk_start_count : start_count;
}

/* The army: 16 pieces, 8 in the Racing Kings array (RK-1). */
static int army_of(const struct ref_cg_state *st)
{
  return st->rk_array ? 8 : 16;
}

static uint64_t appropriate_of(const struct ref_cg_state *st, int c, int t)
{
  return st->rk_array ? rk_appropriate[c][t] : appropriate[c][t];
}

static const struct ref_cg_rules *rules_of(const struct ref_cg_state *st)
{
  return ref_cg_rules_of(st->variant); /* never NULL: ref_cg_ok checks the number */
}

static struct ref_cg_state *state_of(struct ref_state *s)
{
  return (struct ref_cg_state *)(void *)s;
}

static const struct ref_cg_state *cstate_of(const struct ref_state *s)
{
  return (const struct ref_cg_state *)(const void *)s;
}

/* The repetition key (CG-12): the board and side (the chess key), the bars
 * and the open e.p. targets. Borne-off counts follow from board and bar. */
static uint64_t cg_key(const struct ref_cg_state *st)
{
  uint64_t k = st->pos.key, z = 0;
  int c, t;

  for(c = 0; c < 2; c++)
    for(t = 0; t < 6; t++)
      z = z * 17 + st->bar[c][t];
  z = (z << 16) ^ ((uint64_t)st->ep[0] << 8) ^ st->ep[1];
  /* splitmix64 finaliser: spreads the small numbers over 64 bits */
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return k ^ z ^ (z >> 31);
}

/* ------------------------------------------------------------------------ */
/* The half-move generator */

static uint16_t chess_of(uint32_t h)
{
  int kind = ref_cg_half_kind(h);
  return ref_chess_move(ref_cg_half_from(h), ref_cg_half_to(h),
                        kind == REF_CG_K_EP ? REF_CH_MV_EP : REF_CH_MV_NORMAL, 0);
}

/* Does the side to move bear off beyond rank 8? White always; Black too
 * in the Racing Kings array (RK-1: "both sides moving up"). */
static bool up_of(const struct ref_cg_state *st)
{
  return st->pos.side == WHITE || st->rk_array;
}

/* The board effect of a half alone (no bars, no counters), for the
 * variant's position test (RK-2). */
static void board_make(struct ref_chess_pos *p, uint32_t h)
{
  switch(ref_cg_half_kind(h)) {
  case REF_CG_K_NORMAL:
  case REF_CG_K_EP:
    ref_chess_make(p, chess_of(h));
    break;
  case REF_CG_K_DROP:
    ref_chess_put(p, p->side, ref_cg_half_type(h), ref_cg_half_to(h));
    break;
  case REF_CG_K_OFF:
    ref_chess_remove(p, ref_cg_half_from(h));
    break;
  default:
    break;
  }
}

/* Keeps the halves the variant's position test allows (RK-2: no king may
 * stand attacked after any half). Returns the new count. */
static int filter(const struct ref_cg_state *st, uint32_t *v, int n)
{
  const struct ref_cg_rules *r = rules_of(st);
  int i, k = 0;

  if(!r->position_ok)
    return n;
  for(i = 0; i < n; i++) {
    struct ref_chess_pos c = st->pos;
    board_make(&c, v[i]);
    if(r->position_ok(st, &c))
      v[k++] = v[i];
  }
  return k;
}

/*
 * CG-2, CG-3: bearing off. A piece bears off by a move that, by its normal
 * movement, would land one rank beyond the far edge (White: rank 9 above
 * rank 8; Black: below rank 1, also written 9), on files a-h only, every
 * board square crossed being empty. Pawns: a single straight step from the
 * last rank only (CG-3). up: the side to move leaves beyond rank 8 (White;
 * both sides in the RK-1 array). Appends to out; returns the new count.
 */
static int gen_off(const struct ref_cg_state *st, bool up, uint32_t *out, int n)
{
  const struct ref_chess_pos *p = &st->pos;
  int us = p->side, dr = up ? 1 : -1, last = up ? 7 : 0;
  int beyond = last + dr;
  uint64_t occ = p->occ[0] | p->occ[1], b;

  for(b = p->occ[us]; b; b &= b - 1) {
    int sq = ref_chess_lsb(b), f = SQ_FILE(sq), r = SQ_RANK(sq);
    int type = REF_CH_TYPE(p->board[sq]), df, d;

    if(st->army[us] != REF_ARMY_FIDE && ref_cg_slot_of_type(type) >= 0) {
      /* CGA-1: an army piece by its table's moves */
      n = ref_cg_army_off(&st->am[us][ref_cg_slot_of_type(type)], sq, beyond, occ, out, n);
      continue;
    }
    switch(type) {
    case REF_CH_PAWN:
      if(r == last)
        out[n++] = ref_cg_half(REF_CG_K_OFF, sq, f, 0);
      break;
    case REF_CH_KING:
      if(r == last)
        for(df = -1; df <= 1; df++)
          if(f + df >= 0 && f + df < 8)
            out[n++] = ref_cg_half(REF_CG_K_OFF, sq, f + df, 0);
      break;
    case REF_CH_KNIGHT: {
      /* (±2, +1) from the last rank, (±1, +2) from the one before it, in
       * file order so the list is stable. */
      static const int two[4] = {-2, -1, 1, 2};
      for(d = 0; d < 4; d++) {
        int step = two[d] == -2 || two[d] == 2 ? 1 : 2;
        if(r + step * dr == beyond && f + two[d] >= 0 && f + two[d] < 8)
          out[n++] = ref_cg_half(REF_CG_K_OFF, sq, f + two[d], 0);
      }
      break;
    }
    default: /* bishop, rook, queen: slide forward until the edge */
      for(df = -1; df <= 1; df++) {
        int k;
        if((type == REF_CH_ROOK && df) || (type == REF_CH_BISHOP && !df))
          continue;
        for(k = 1;; k++) {
          int ff = f + k * df, rr = r + k * dr;
          if(rr == beyond) {
            if(ff >= 0 && ff < 8) /* the seed's bishop note: no i9, no file left of a */
              out[n++] = ref_cg_half(REF_CG_K_OFF, sq, ff, 0);
            break;
          }
          if(ff < 0 || ff > 7 || (occ & BIT(rr * 8 + ff)))
            break;
        }
      }
      break;
    }
  }
  return n;
}

/* e.p. captures open now (CG-9; DM-4: on the second half of a Doublemove
 * turn only when the first half was one). */
static int gen_ep(const struct ref_cg_state *st, uint32_t *out, int n)
{
  const struct ref_chess_pos *p = &st->pos;
  int us = p->side, i;

  if(st->half && !st->first_ep)
    return n;
  for(i = 0; i < 2; i++) {
    int e = st->ep[i], victim;
    uint64_t b;
    if(e == NO_SQ || p->board[e] != REF_CH_EMPTY)
      continue;
    victim = us == WHITE ? e - 8 : e + 8;
    if(p->board[victim] != REF_CH_PIECE(us ^ 1, REF_CH_PAWN))
      continue;
    for(b = ref_chess_pawn_att[us ^ 1][e] & p->pieces[us][REF_CH_PAWN]; b; b &= b - 1)
      out[n++] = ref_cg_half(REF_CG_K_EP, ref_chess_lsb(b), e, 0);
  }
  return n;
}

/* Rule 6: bringing in, one piece per half, onto an empty square where a
 * piece of that colour and type started. CG-5: any barred piece. */
static int gen_drops(const struct ref_cg_state *st, uint32_t *out, int n)
{
  const struct ref_chess_pos *p = &st->pos;
  int us = p->side, t;
  uint64_t empty = ~(p->occ[0] | p->occ[1]), b;

  for(t = 0; t < 6; t++)
    if(st->bar[us][t])
      for(b = appropriate_of(st, us, t) & empty; b; b &= b - 1)
        out[n++] = ref_cg_half(REF_CG_K_DROP, 0, ref_chess_lsb(b), t);
  return n;
}

/* Every board move of the side to move (capture or not), no castling and
 * no promotion (§5.2 rule 2): the chess core's pseudo-legal moves, but an
 * army's pieces by their tables (CGA-1). Returns the count. */
static int gen_board(const struct ref_cg_state *st, uint32_t *out)
{
  const struct ref_chess_pos *p = &st->pos;
  uint16_t cm[REF_CH_MAX_MOVES];
  int us = p->side, n = 0, i, slot;
  int nc = ref_chess_gen_pseudo(p, REF_CH_GEN_NO_CASTLE | REF_CH_GEN_NO_PROMO, cm);
  bool army = st->army[us] != REF_ARMY_FIDE;
  uint64_t occ = p->occ[0] | p->occ[1], b, to;

  for(i = 0; i < nc; i++) {
    int from = ref_chess_move_from(cm[i]);
    if(army && ref_cg_slot_of_type(REF_CH_TYPE(p->board[from])) >= 0)
      continue;
    out[n++] = ref_cg_half(REF_CG_K_NORMAL, from, ref_chess_move_to(cm[i]), 0);
  }
  for(slot = 0; army && slot < REF_ARMY_SLOTS; slot++)
    for(b = p->pieces[us][ref_cg_type_of_slot(slot)]; b; b &= b - 1) {
      int from = ref_chess_lsb(b);
      for(to = ref_cg_army_targets(&st->am[us][slot], from, occ) & ~p->occ[us]; to; to &= to - 1)
        out[n++] = ref_cg_half(REF_CG_K_NORMAL, from, ref_chess_lsb(to), 0);
    }
  return n;
}

/* The families of halves before the bar restriction: captures (board and
 * e.p.), quiet board moves, bear-offs, bring-ins. */
struct families {
  uint32_t cap[REF_CG_MAX_HALVES], quiet[REF_CG_MAX_HALVES], off[64], drop[64];
  int ncap, nquiet, noff, ndrop;
};

static void gen_families(const struct ref_cg_state *st, struct families *f)
{
  const struct ref_chess_pos *p = &st->pos;
  uint32_t all[REF_CG_MAX_HALVES];
  int i, n;

  f->ncap = f->nquiet = f->noff = f->ndrop = 0;
  n = gen_board(st, all);
  for(i = 0; i < n; i++) {
    uint32_t h = all[i];
    if(p->board[ref_cg_half_to(h)] != REF_CH_EMPTY)
      f->cap[f->ncap++] = h;
    else
      f->quiet[f->nquiet++] = h;
  }
  f->ncap = gen_ep(st, f->cap, f->ncap);
  f->noff = gen_off(st, up_of(st), f->off, 0);
  if(rules_of(st)->bar)
    f->ndrop = gen_drops(st, f->drop, 0);
}

static int append(uint32_t *out, int n, const uint32_t *v, int k)
{
  memcpy(out + n, v, (size_t)k * sizeof(*v));
  return n + k;
}

int ref_cg_gen(const struct ref_cg_state *st, uint32_t *out)
{
  const struct ref_chess_pos *p = &st->pos;
  int us = p->side, n = 0, i, k;
  struct families f;
  uint64_t need = 0;

  if(st->off[us] == army_of(st))
    return 0;
  if(!ref_cg_bar_count(st->bar[us])) {
    /* The common case, straight into out: every piece move, e.p. and
     * bear-off (no bar, no restriction). */
    n = gen_board(st, out);
    n = gen_ep(st, out, n);
    n = gen_off(st, up_of(st), out, n);
    return filter(st, out, n);
  }
  gen_families(st, &f);
  /* Rule 7 (1) and (2): bring in, or capture; "can" means can legally
   * (RK-2), so the variant's filter comes first. */
  n = append(out, n, f.drop, f.ndrop);
  n = append(out, n, f.cap, f.ncap);
  n = filter(st, out, n);
  if(n)
    return n;
  /* Rule 7 (3), CG-4: only if neither is possible, a non-capturing move
   * (bear-off included) of a piece standing on an appropriate square of
   * any piece on the bar. */
  for(i = 0; i < 6; i++)
    if(st->bar[us][i])
      need |= appropriate_of(st, us, i);
  need &= p->occ[us];
  for(k = 0; k < f.nquiet; k++)
    if(need & BIT(ref_cg_half_from(f.quiet[k])))
      out[n++] = f.quiet[k];
  for(k = 0; k < f.noff; k++)
    if(need & BIT(ref_cg_half_from(f.off[k])))
      out[n++] = f.off[k];
  return filter(st, out, n);
}

bool ref_cg_half_legal(const struct ref_cg_state *st, uint32_t h)
{
  uint32_t v[REF_CG_MAX_HALVES];
  return ref_cg_has(v, ref_cg_gen(st, v), h);
}

/* ------------------------------------------------------------------------ */
/* Playing halves, ending turns, the result */

void ref_cg_play(struct ref_cg_state *st, uint32_t h)
{
  struct ref_chess_pos *p = &st->pos;
  int us = p->side, them = us ^ 1, kind = ref_cg_half_kind(h);
  int from = ref_cg_half_from(h), to = ref_cg_half_to(h);

  switch(kind) {
  case REF_CG_K_NORMAL:
  case REF_CG_K_EP: {
    int cap_sq = kind == REF_CG_K_EP ? (us == WHITE ? to - 8 : to + 8) : to;
    int type = REF_CH_TYPE(p->board[from]);
    bool capture = p->board[cap_sq] != REF_CH_EMPTY;
    if(capture) {
      /* Rule 3: to the owner's bar; HB-1: counted as borne off. */
      if(rules_of(st)->bar)
        st->bar[them][REF_CH_TYPE(p->board[cap_sq])]++;
      else
        st->off[them]++;
    }
    ref_chess_make(p, chess_of(h));
    /* The chess make ends the chess turn; here the turn ends in
     * ref_cg_end_turn (a Doublemove turn has two halves). */
    p->side = (uint8_t)us;
    p->key ^= ref_chess_zobrist_side;
    if(us == BLACK)
      p->fullmove--;
    if(p->ep != NO_SQ) {
      p->key ^= ref_chess_zobrist_ep[p->ep & 7];
      p->ep = NO_SQ;
    }
    p->halfmove = 0;
    if(capture || type == REF_CH_PAWN)
      st->fresh = 1;
    if(type == REF_CH_PAWN && (from ^ to) == 16)
      st->pend[st->pend[0] == NO_SQ ? 0 : 1] = (uint8_t)((from + to) / 2);
    if(kind == REF_CG_K_EP && st->half == 0)
      st->first_ep = 1;
    st->last_from = (uint8_t)from;
    st->last_to = (uint8_t)to;
    break;
  }
  case REF_CG_K_DROP:
    st->bar[us][ref_cg_half_type(h)]--;
    ref_chess_put(p, us, ref_cg_half_type(h), to);
    st->fresh = 1;
    st->last_from = NO_SQ;
    st->last_to = (uint8_t)to;
    break;
  case REF_CG_K_OFF:
    ref_chess_remove(p, from);
    st->off[us]++;
    st->fresh = 1;
    st->last_from = (uint8_t)from;
    st->last_to = NO_SQ;
    break;
  default:
    break;
  }
  st->half++;
}

/* Can the side to move (other false) or the other side move here
 * (rule 8, CG-11)? */
static bool can_move(const void *ctx, bool other)
{
  const struct ref_cg_state *st = ctx;
  struct ref_cg_state c;
  uint32_t v[REF_CG_MAX_HALVES];

  if(!other)
    return ref_cg_gen(st, v) > 0;
  memcpy(&c, st, offsetof(struct ref_cg_state, e));
  c.pos.side ^= 1;
  c.pos.key ^= ref_chess_zobrist_side;
  c.ep[0] = c.ep[1] = NO_SQ;
  c.half = 0;
  c.first_ep = 0;
  return ref_cg_gen(&c, v) > 0;
}

/*
 * The result after a completed turn (rule 9, game_end.c), from the
 * position alone so decode and the checker reach the same verdict. RK-1
 * rk_array keeps CG-10 as it is: both sides then race up the same
 * distance from mirrored arrays and White moves first, so Black's reply in
 * the same move number is exactly Racing Kings' own "Black reaches on the
 * next move: draw" [src: lichess] (rules-spec §5.5 End). Finishing means
 * the whole army off: 8 pieces in that array.
 */
static void settle(struct ref_cg_state *st)
{
  bool done[2] = {st->off[WHITE] == army_of(st), st->off[BLACK] == army_of(st)};
  ref_ge_chessgammon(&st->e, st->pos.side ^ 1, done, can_move, st);
}

void ref_cg_end_turn(struct ref_cg_state *st)
{
  struct ref_chess_pos *p = &st->pos;
  int mover = p->side, them = mover ^ 1, i, k = 0;
  uint8_t ep[2] = {NO_SQ, NO_SQ};

  /* CG-9 (DM-4): a two-step of this turn may be taken e.p. next turn if
   * the pawn still stands where it went and an enemy pawn attacks the
   * square it crossed. */
  for(i = 0; i < 2; i++) {
    int e = st->pend[i];
    if(e == NO_SQ || p->board[e] != REF_CH_EMPTY)
      continue;
    if(p->board[mover == WHITE ? e + 8 : e - 8] != REF_CH_PIECE(mover, REF_CH_PAWN))
      continue;
    if(!(ref_chess_pawn_att[mover][e] & p->pieces[them][REF_CH_PAWN]))
      continue;
    ep[k++] = (uint8_t)e;
  }
  if(k == 2 && ep[0] > ep[1]) {
    uint8_t t = ep[0];
    ep[0] = ep[1];
    ep[1] = t;
  }
  /* CG-12: the fifty-move count is of turns (a Doublemove turn is one) */
  st->plies = st->fresh ? 0 : st->plies + 1;
  st->fresh = 0;
  p->side = (uint8_t)them;
  p->key ^= ref_chess_zobrist_side;
  if(mover == BLACK && p->fullmove < REF_CH_COUNTER_MAX)
    p->fullmove++; /* six digits, as read: every position decodes */
  st->ep[0] = ep[0];
  st->ep[1] = ep[1];
  st->pend[0] = st->pend[1] = NO_SQ;
  st->half = 0;
  st->first_ep = 0;
  ref_ge_push(&st->e, cg_key(st), false);
  settle(st);
}

/* ------------------------------------------------------------------------ */
/* The position string (§5.1): FEN-like board, side, "bar:" (upper case
 * White, letters in ASCII order), "off:W/B", "ep:" targets, move number,
 * and "array:rk" for the Racing Kings array (RK-1 rk_array). */

int ref_cg_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct ref_cg_state *st = cstate_of(s);
  const struct ref_chess_pos *p = &st->pos;
  char out[192], sq[3], ep[8];
  size_t k = ref_chess_placement_write(p, out);
  int i, n;

  for(i = 0, n = 0; i < 2 && st->ep[i] != NO_SQ; i++) {
    ref_cn_square(SQ_FILE(st->ep[i]), SQ_RANK(st->ep[i]) + 1, sq);
    n += snprintf(ep + n, sizeof(ep) - (size_t)n, "%s%s", i ? "," : "", sq);
  }
  /* CGA-2: the board in the armies' letters (the placement holds piece
   * letters, digits and slashes only) */
  for(i = 0; i < (int)k; i++) {
    int t = ref_cg_type_of_letter(out[i]);
    if(t >= 0)
      out[i] = ref_cg_letter(st->army, out[i] >= 'a' ? BLACK : WHITE, t);
  }
  k += ref_cg_write_record(out + k, sizeof(out) - k, p->side, st->bar, st->off, n ? ep : "-",
                           p->fullmove, st->rk_array ? "array:rk" : NULL, st->army);
  return ref_text_copy(out, k, buf, cap);
}

int ref_cg_type_of_letter(int c)
{
  const char *hit;
  if(c >= 'a' && c <= 'z')
    c = c - 'a' + 'A';
  hit = c ? strchr(piece_letters, c) : NULL;
  return hit ? (int)(hit - piece_letters) : -1;
}

static bool read_square(const char *s, int *sq)
{
  if(s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8')
    return false;
  *sq = (s[1] - '1') * 8 + (s[0] - 'a');
  return true;
}

int ref_cg_read_record(const char *text, size_t max, const char *extra, struct ref_cg_record *r)
{
  char *field[8], *s, *bars = NULL;
  int nfield = 0, i, t, a;
  bool seen_off = false, seen_ep = false, seen_num = false;
  size_t len;

  memset(r, 0, sizeof(*r));
  r->offw = r->offb = -1;
  if(!text || (len = strlen(text)) >= max || len >= sizeof(r->buf))
    return REF_EINVAL;
  memcpy(r->buf, text, len + 1);
  for(s = r->buf; *s; s++)
    if(*s == '_')
      *s = ' ';
  for(s = r->buf; *s;) {
    while(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
      *s++ = '\0';
    if(!*s)
      break;
    if(nfield == 8)
      return REF_EINVAL;
    field[nfield++] = s;
    while(*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
      s++;
  }
  if(nfield < 2 || (strcmp(field[1], "w") && strcmp(field[1], "b")))
    return REF_EINVAL;
  r->board = field[0];
  r->side = field[1][0] == 'b' ? BLACK : WHITE;
  for(i = 2; i < nfield; i++) {
    char *f = field[i];
    if(!strncmp(f, "bar:", 4) && !bars) {
      bars = f + 4; /* read below, once the armies are known */
    }
    else if(!strncmp(f, "armies:", 7) && !r->has_armies) {
      /* CGA-2: "armies:WHITE/BLACK", the army table's words */
      char *slash = strchr(f + 7, '/');
      int w, b;
      if(!slash)
        return REF_EINVAL;
      w = ref_army_find(f + 7, (size_t)(slash - (f + 7)));
      b = ref_army_find(slash + 1, strlen(slash + 1));
      if(w < 0 || b < 0)
        return REF_EINVAL;
      r->has_armies = true;
      r->army[WHITE] = (uint8_t)w;
      r->army[BLACK] = (uint8_t)b;
    }
    else if(!strncmp(f, "off:", 4) && !seen_off) {
      char *slash = strchr(f + 4, '/');
      seen_off = true;
      if(!slash || slash == f + 4 || !slash[1] || strlen(f) > 9)
        return REF_EINVAL;
      for(s = f + 4; *s; s++)
        if((*s < '0' || *s > '9') && s != slash)
          return REF_EINVAL;
      r->offw = atoi(f + 4);
      r->offb = atoi(slash + 1);
    }
    else if(!strncmp(f, "ep:", 3) && !seen_ep) {
      seen_ep = true;
      r->ep = f + 3;
    }
    else if(extra && !r->extra && !strcmp(f, extra)) {
      r->extra = true;
    }
    else if(!seen_num && f[0] >= '1' && f[0] <= '9' && strlen(f) <= 6 &&
            strspn(f, "0123456789") == strlen(f)) {
      seen_num = true;
      r->fullmove = (uint32_t)atoi(f);
    }
    else {
      return REF_EINVAL;
    }
  }
  for(s = bars; s && strcmp(bars, "-") && *s; s++) {
    int c = *s >= 'a' ? BLACK : WHITE;
    t = ref_cg_letter_type(*s, &a);
    if(t < 0)
      return REF_EINVAL;
    if(a >= 0 && a != r->army[c])
      r->wrong_army = true; /* DA-4: a piece of another army */
    /* A count never wraps: it stops at 16, more than a side
     * has of any type, so the game still refuses it as too many. */
    if(r->bar[c][t] < 16)
      r->bar[c][t]++;
  }
  return REF_OK;
}

size_t ref_cg_write_record(char *out, size_t cap, int side, const uint8_t bar[2][6],
                           const uint8_t off[2], const char *ep, uint32_t fullmove,
                           const char *extra, const uint8_t *army)
{
  char bars[40], armies[40] = "";
  int ch, c, t, j, n = 0;

  /* ASCII order of the letters the pieces have in their armies (DA-4) */
  for(ch = 'A'; ch <= 'z'; ch++)
    for(c = 0; c < 2; c++)
      for(t = 0; t < 6; t++)
        if(ref_cg_letter(army, c, t) == ch)
          for(j = 0; j < bar[c][t] && n < (int)sizeof(bars) - 1; j++)
            bars[n++] = (char)ch;
  if(!n)
    bars[n++] = '-';
  bars[n] = '\0';
  if(army && (army[WHITE] != REF_ARMY_FIDE || army[BLACK] != REF_ARMY_FIDE))
    snprintf(armies, sizeof(armies), " armies:%s/%s", ref_armies[army[WHITE]].key,
             ref_armies[army[BLACK]].key);
  return (size_t)snprintf(out, cap, " %c bar:%s off:%d/%d ep:%s %u%s%s%s", side == WHITE ? 'w' : 'b',
                          bars, off[0], off[1], ep, (unsigned)fullmove, extra ? " " : "",
                          extra ? extra : "", armies);
}

size_t ref_cg_render_bars(char *out, size_t cap, const uint8_t bar[2][6], const uint8_t off[2],
                          int army, int seat, const uint8_t *armies)
{
  size_t k = 0;
  int c, t, i;

  for(c = 0; c < 2; c++) {
    int who = seat == 1 ? c ^ 1 : c, nb = 0;
    k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s bar:",
                          who == WHITE ? "White" : "Black");
    for(t = 0; t < 6; t++)
      for(i = 0; i < bar[who][t]; i++, nb++)
        k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, " %c",
                              ref_cg_letter(armies, who, t));
    k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s   off: %d of %d\n", nb ? "" : " -",
                          off[who], army);
  }
  return k;
}

/* Reads and validates a position string into st (a fresh state for the
 * rules given). On failure returns REF_EINVAL with a reason key. */
static int read_position(struct ref_cg_state *st, const char *text, const struct ref_cg_rules *r,
                         const char **reason)
{
  struct ref_cg_record rec;
  const char *s;
  int rank = 7, file = 0, c, t, offw, offb, a;
  bool wrong_army;
  struct ref_chess_pos *p = &st->pos;

  *reason = "cg-position-syntax";
  if(ref_cg_read_record(text, 200, r->id == REF_CG_RACING_KINGS ? "array:rk" : NULL, &rec))
    return REF_EINVAL;
  /* CGA-2: the armies are the position string's */
  st->army[WHITE] = rec.army[WHITE];
  st->army[BLACK] = rec.army[BLACK];
  wrong_army = rec.wrong_army;
  ref_chess_clear(p);
  for(s = rec.board; *s; s++) {
    if(*s == '/') {
      if(file != 8 || rank == 0)
        return REF_EINVAL;
      rank--;
      file = 0;
    }
    else if(*s >= '1' && *s <= '8') {
      file += *s - '0';
      if(file > 8)
        return REF_EINVAL;
    }
    else {
      t = ref_cg_letter_type(*s, &a);
      if(t < 0 || file > 7)
        return REF_EINVAL;
      if(a >= 0 && a != st->army[*s >= 'a' ? BLACK : WHITE])
        wrong_army = true; /* DA-4 */
      ref_chess_put(p, *s >= 'a' ? BLACK : WHITE, t, rank * 8 + file);
      file++;
    }
  }
  if(rank != 0 || file != 8)
    return REF_EINVAL;
  if(wrong_army) {
    *reason = "da-fen-army";
    return REF_EINVAL;
  }
  if(!ref_cg_armies_read(st))
    return REF_EINVAL; /* not reached: the unit tests read every army */
  if(rec.extra && (st->army[WHITE] != REF_ARMY_FIDE || st->army[BLACK] != REF_ARMY_FIDE)) {
    *reason = "cga-rk-array"; /* CGA-4: the Racing Kings array is the FIDEs' */
    return REF_EINVAL;
  }
  p->side = (uint8_t)rec.side;
  memcpy(st->bar, rec.bar, sizeof(st->bar));
  for(s = rec.ep, c = 0; s && strcmp(s, "-") && *s; c++) {
    int sq;
    if(c == 2 || !read_square(s, &sq))
      return REF_EINVAL;
    st->ep[c] = (uint8_t)sq;
    s += 2;
    if(*s == ',')
      s++;
  }
  if(rec.extra)
    st->rk_array = 1; /* RK-1 config rk_array */
  if(rec.fullmove)
    p->fullmove = rec.fullmove;
  offw = rec.offw;
  offb = rec.offb;
  /* The armies: 16 a side between board, bar and off; no more of a type
   * than started (no promotion); pawns never on their own first rank. */
  for(c = 0; c < 2; c++) {
    int total = 0;
    for(t = 0; t < 6; t++) {
      int n = ref_chess_popcount(p->pieces[c][t]) + st->bar[c][t];
      if(n > start_count_of(st)[t]) {
        *reason = "cg-too-many-pieces";
        return REF_EINVAL;
      }
      total += n;
    }
    st->off[c] = (uint8_t)(army_of(st) - total);
  }
  if((offw >= 0 && offw != st->off[WHITE]) || (offb >= 0 && offb != st->off[BLACK])) {
    *reason = "cg-off-mismatch";
    return REF_EINVAL;
  }
  if((p->pieces[WHITE][REF_CH_PAWN] & 0xFFull) || (p->pieces[BLACK][REF_CH_PAWN] & (0xFFull << 56))) {
    *reason = "cg-pawn-on-first-rank";
    return REF_EINVAL;
  }
  if(!r->bar && (ref_cg_bar_count(st->bar[WHITE]) || ref_cg_bar_count(st->bar[BLACK]))) {
    *reason = "cg-no-bar";
    return REF_EINVAL;
  }
  for(c = 0; c < 2; c++) {
    int e = st->ep[c], mover = p->side ^ 1;
    if(e == NO_SQ)
      continue;
    /* The target lies behind a pawn of the side that just moved, which
     * two-stepped from its second rank. */
    if(SQ_RANK(e) != (mover == WHITE ? 2 : 5) || p->board[e] != REF_CH_EMPTY ||
       p->board[mover == WHITE ? e + 8 : e - 8] != REF_CH_PIECE(mover, REF_CH_PAWN) ||
       (c == 1 && st->ep[1] <= st->ep[0]) || (c == 1 && r->halves_per_turn < 2) ||
       !(ref_chess_pawn_att[mover][e] & p->pieces[p->side][REF_CH_PAWN])) {
      *reason = "cg-bad-ep";
      return REF_EINVAL;
    }
  }
  if(r->position_ok && !r->position_ok(st, p)) {
    *reason = "rk-king-attacked";
    return REF_EINVAL;
  }
  p->key = ref_chess_key_compute(p);
  *reason = NULL;
  return REF_OK;
}

/* A fresh state around a position read by read_position. */
static int state_from(struct ref_cg_state *st, const char *text, const struct ref_cg_rules *r,
                      int fifty, int balanced, int rk_array, struct ref_err *err)
{
  struct ref_cg_state fresh;
  const char *reason = NULL;

  memset(&fresh, 0, sizeof(fresh));
  fresh.magic = REF_CG_MAGIC;
  fresh.variant = (uint8_t)r->id;
  fresh.fifty = (uint8_t)fifty;
  fresh.balanced = (uint8_t)balanced;
  fresh.rk_array = (uint8_t)rk_array; /* or "array:rk" in the text */
  fresh.ep[0] = fresh.ep[1] = fresh.pend[0] = fresh.pend[1] = NO_SQ;
  fresh.last_from = fresh.last_to = NO_SQ;
  if(read_position(&fresh, text, r, &reason) != REF_OK) {
    ref_err_set(err, REF_EINVAL, reason, NULL);
    return REF_EINVAL;
  }
  ref_ge_start(&fresh.e, cg_key(&fresh));
  settle(&fresh);
  memcpy(st, &fresh, sizeof(fresh));
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* Notation out: Betza's long form (§5.1), written by chess_notation.c.
 * Captures with ':', bring-ins from rank 0, bear-offs to rank 9, pawns
 * without a letter, a pass "--". The computer form: e2e4, P@h7, h6e9,
 * 0000. */

/* The notation type of a chess type t of the side to move (DA-9): an
 * army's piece has its own letter (CGA-2). */
static int notation_type(const struct ref_cg_state *st, int t)
{
  int slot = ref_cg_slot_of_type(t), army = st->army[st->pos.side];
  return slot < 0 || army == REF_ARMY_FIDE ? t : ref_army_cn_type(REF_AK_OF(army, slot));
}

/* The chess type of a notation type of the side to move, -1 for a piece
 * of another army. */
static int chess_type(const struct ref_cg_state *st, int t)
{
  int army = st->army[st->pos.side];
  if(t < REF_CN_ARMY_FIRST)
    return army == REF_ARMY_FIDE || ref_cg_slot_of_type(t) < 0 ? t : -1;
  return REF_AK_ARMY(t) == army ? ref_cg_type_of_slot(REF_AK_SLOT(t)) : -1;
}

/* Half h of the state ctx as notation sees it. */
static void describe(const void *ctx, uint32_t h, struct ref_cn_move *d)
{
  const struct ref_cg_state *st = ctx;
  const struct ref_chess_pos *p = &st->pos;
  int kind = ref_cg_half_kind(h), from = ref_cg_half_from(h), to = ref_cg_half_to(h);

  memset(d, 0, sizeof(*d));
  d->promo = -1; /* §5.2 rule 2 */
  d->ff = (int8_t)SQ_FILE(from);
  d->fr = (int8_t)(SQ_RANK(from) + 1);
  d->tf = (int8_t)SQ_FILE(to);
  d->tr = (int8_t)(SQ_RANK(to) + 1);
  d->piece = (int8_t)notation_type(st, REF_CH_TYPE(p->board[from]));
  switch(kind) {
  case REF_CG_K_DROP: /* rule 6: from the bar, "rank 0" */
    d->kind = REF_CN_DROP;
    d->piece = (int8_t)notation_type(st, ref_cg_half_type(h));
    d->ff = -1;
    d->fr = 0;
    break;
  case REF_CG_K_OFF: /* CG-2: to the imaginary rank 9, file `to` */
    d->kind = REF_CN_OFF;
    d->tf = (int8_t)to;
    d->tr = 9;
    break;
  case REF_CG_K_PASS:
    d->kind = REF_CN_PASS;
    break;
  default:
    d->capture = kind == REF_CG_K_EP || p->board[to] != REF_CH_EMPTY;
    break;
  }
}

int ref_cg_format_half(const struct ref_cg_state *st, uint32_t h, enum ref_notation style,
                       char *buf, size_t cap)
{
  int kind = ref_cg_half_kind(h);
  struct ref_cn_move d;

  if(kind < REF_CG_K_NORMAL || kind > REF_CG_K_PASS ||
     ((kind == REF_CG_K_NORMAL || kind == REF_CG_K_EP || kind == REF_CG_K_OFF) &&
      st->pos.board[ref_cg_half_from(h)] == REF_CH_EMPTY))
    return REF_EINVAL;
  describe(st, h, &d);
  return ref_cn_write_betza(&d, style == REF_NOTATION_COMPUTER, false, buf, cap);
}

/* ------------------------------------------------------------------------ */
/* Reading a half (§1.1-1.4, §5.1 notation): chess_notation.c reads and
 * matches, bring-ins from rank 0 and bear-offs to rank 9 included; here
 * are the legal halves as it sees them and the rules' reasons for a
 * readable half that matches none. */

static void half_text(const void *ctx, uint32_t h, char *buf, size_t cap)
{
  ref_cg_format_half(ctx, h, REF_NOTATION_CANONICAL, buf, cap);
}

/* Why a readable half that matches no legal half is refused: the most
 * specific truth first (RK-2, rule 7, rule 6, the origin square). */
static int explain(const struct ref_cn_game *g, const struct ref_cn_pattern *pats, int npat,
                   const char *in, struct ref_err *err)
{
  const struct ref_cg_state *st = g->ctx;
  const struct ref_chess_pos *p = &st->pos;
  struct families f;
  struct ref_cn_move d;
  uint32_t all[REF_CG_MAX_HALVES * 2];
  int n = 0, i, k, us = p->side;
  char sq[3];

  gen_families(st, &f);
  n = append(all, n, f.cap, f.ncap);
  n = append(all, n, f.quiet, f.nquiet);
  n = append(all, n, f.off, f.noff);
  n = append(all, n, f.drop, f.ndrop);
  for(i = 0; i < n; i++) {
    describe(st, all[i], &d);
    for(k = 0; k < npat; k++)
      if(ref_cn_fits(&pats[k], &d, true)) {
        uint32_t one = all[i];
        if(filter(st, &one, 1) == 0)
          return ref_cn_refuse(g, REF_EILLEGAL, "rk-king-attacked", NULL, &pats[k], err);
        return ref_cn_refuse(g, REF_EILLEGAL, "cg-bar-restriction", NULL, &pats[k], err);
      }
  }
  for(k = 0; k < npat; k++) {
    const struct ref_cn_pattern *pt = &pats[k];
    int type = pt->piece >= 0 ? chess_type(st, pt->piece) : -1;
    if(pt->drop && type >= 0 && pt->tr >= 1 && pt->tr <= 8) {
      int to = (pt->tr - 1) * 8 + pt->tf;
      ref_cn_square(SQ_FILE(to), SQ_RANK(to) + 1, sq);
      if(!rules_of(st)->bar)
        return ref_cn_refuse(g, REF_EILLEGAL, "hb-no-bar", NULL, pt, err);
      if(!st->bar[us][type])
        return ref_cn_refuse(g, REF_EILLEGAL, "cg-not-on-bar", NULL, pt, err);
      if(!(appropriate_of(st, us, type) & BIT(to)))
        return ref_cn_refuse(g, REF_EILLEGAL, "cg-not-appropriate", sq, pt, err);
      if(p->board[to] != REF_CH_EMPTY)
        return ref_cn_refuse(g, REF_EILLEGAL, "cg-square-occupied", sq, pt, err);
    }
    if(pt->ff >= 0 && pt->fr > 0) {
      int from = (pt->fr - 1) * 8 + pt->ff;
      ref_cn_square(SQ_FILE(from), SQ_RANK(from) + 1, sq);
      if(p->board[from] == REF_CH_EMPTY)
        return ref_cn_refuse(g, REF_EILLEGAL, "no-piece-there", sq, pt, err);
      if(REF_CH_COLOR(p->board[from]) != us)
        return ref_cn_refuse(g, REF_EILLEGAL, "not-your-piece", sq, pt, err);
    }
    if(pt->tr == 9)
      return ref_cn_refuse(g, REF_EILLEGAL, "cg-cannot-bear-off", NULL, pt, err);
  }
  return ref_cn_refuse(g, REF_EILLEGAL, "no-such-move", in, &pats[0], err);
}

/* §5.1: Betza's notation on the 8x8 board. A whole turn of the plain game
 * is one half; Doublemove reads its two halves one by one (§5.4). */
static const struct ref_cn_dialect cg_turn = {8, 8, true, true, false, "cg-one-move-per-turn", 0};
static const struct ref_cn_dialect cg_half = {8, 8, true, true, false, NULL, 0};

/* The reader for the side to move: DA-9's letters of its army when that
 * is not the FIDEs' (CGA-2); the chess letters alone otherwise. */
static void reader_of(const struct ref_cg_state *st, const struct ref_cn_dialect *base,
                      struct ref_cn_dialect *d, struct ref_cn_rules *r)
{
  int army = st->army[st->pos.side];
  *d = *base;
  if(army != REF_ARMY_FIDE)
    d->own = ref_army_cn_own(army);
  r->d = d;
  r->describe = describe;
  r->format = half_text;
  r->explain = explain;
}

/* The legal halves, or the pass when there are none (rule 8). */
static int halves_or_pass(const struct ref_cg_state *st, uint32_t *v)
{
  int n = ref_cg_gen(st, v);
  if(!n)
    v[n++] = ref_cg_half(REF_CG_K_PASS, 0, 0, 0);
  return n;
}

int ref_cg_parse_half(const struct ref_cg_state *st, const char *text, uint32_t *out,
                      struct ref_err *err)
{
  uint32_t v[REF_CG_MAX_HALVES];
  struct ref_move m;
  struct ref_cn_dialect d;
  struct ref_cn_rules reader;
  int rc;

  reader_of(st, &cg_half, &d, &reader);
  rc = ref_cn_parse(&reader, st, false, v, halves_or_pass(st, v), text, &m, err);

  if(rc == REF_OK)
    *out = m.w[0];
  return rc;
}

/* ------------------------------------------------------------------------ */
/* Ops shared by the variants (one half per turn; Doublemove has its own
 * legal, parse, format and apply in chessgammon_doublemove.c). */

/*
 * Options "key=value;..." (game_text.c): fen=POSITION (the §5.1 record),
 * fifty_moves=on|off (CG-12, default off), in Doublemove
 * balanced_start=on|off (DM-2, default off), and in Racing Kings
 * rk_array=on|off (RK-1, default off: the Racing Kings array; with fen=
 * the position is read in that array). Unknown or repeated keys are
 * REF_EINVAL.
 */
int ref_cg_init(struct ref_state *s, const char *options, struct ref_err *err,
                const struct ref_cg_rules *rules)
{
  struct ref_opt o;
  char fen[200], key[32];
  const char *b = options;
  int fifty = 0, balanced = 0, rk_array = 0, rc, army[2] = {REF_ARMY_FIDE, REF_ARMY_FIDE};
  bool seen_fen = false, seen_fifty = false, seen_bal = false, seen_arr = false;
  bool seen_armies = false;
  bool rk = rules->id == REF_CG_RACING_KINGS;

  while(ref_opt_next(&b, &o)) {
    bool fi = ref_opt_is(o.kb, o.ke, "fifty_moves"), ra = ref_opt_is(o.kb, o.ke, "rk_array");
    ref_opt_key(&o, key, sizeof(key));
    if(o.kb == o.ke && !o.has_value) {
      /* an empty segment */
    }
    else if(ref_opt_is(o.kb, o.ke, "armies") && !seen_armies) {
      /* CGA-1: armies=WHITE/BLACK, each a word of the army table */
      const char *slash = o.has_value ? memchr(o.vb, '/', (size_t)(o.ve - o.vb)) : NULL;
      seen_armies = true;
      if(slash) {
        army[WHITE] = ref_army_find(o.vb, (size_t)(slash - o.vb));
        army[BLACK] = ref_army_find(slash + 1, (size_t)(o.ve - slash - 1));
      }
      if(!slash || army[WHITE] < 0 || army[BLACK] < 0) {
        ref_err_set(err, REF_EINVAL, "cga-bad-armies", NULL);
        return REF_EINVAL;
      }
    }
    else if(ref_opt_is(o.kb, o.ke, "fen") && o.has_value && !seen_fen &&
            (size_t)(o.ve - o.vb) < sizeof(fen)) {
      seen_fen = true;
      snprintf(fen, sizeof(fen), "%.*s", (int)(o.ve - o.vb), o.vb);
    }
    else if((fi && !seen_fifty) || (rk && ra && !seen_arr) ||
            (rules->balanced_option && ref_opt_is(o.kb, o.ke, "balanced_start") && !seen_bal)) {
      int on = ref_opt_is(o.vb, o.ve, "on");
      if(!o.has_value || (!on && !ref_opt_is(o.vb, o.ve, "off"))) {
        ref_err_set(err, REF_EINVAL, "cg-bad-option", key);
        return REF_EINVAL;
      }
      if(fi) {
        seen_fifty = true;
        fifty = on;
      }
      else if(ra) {
        seen_arr = true;
        rk_array = on;
      }
      else {
        seen_bal = true;
        balanced = on;
      }
    }
    else {
      ref_err_set(err, REF_EINVAL, "cg-unknown-option", key);
      return REF_EINVAL;
    }
  }
  if(seen_armies && rk_array && (army[WHITE] != REF_ARMY_FIDE || army[BLACK] != REF_ARMY_FIDE)) {
    ref_err_set(err, REF_EINVAL, "cga-rk-array", NULL); /* CGA-4 */
    return REF_EINVAL;
  }
  if(!seen_fen)
    snprintf(fen, sizeof(fen), "%s", rk_array ? rk_start_position : start_position);
  if(seen_armies && (army[WHITE] != REF_ARMY_FIDE || army[BLACK] != REF_ARMY_FIDE)) {
    size_t i, len = strlen(fen);
    if(!seen_fen) /* DA-2: the armies' pieces on the chess array's squares */
      for(i = 0; fen[i] && fen[i] != ' '; i++) {
        int t = ref_cg_type_of_letter(fen[i]);
        if(t >= 0)
          fen[i] = ref_cg_letter((const uint8_t[2]){(uint8_t)army[WHITE], (uint8_t)army[BLACK]},
                                 fen[i] >= 'a' ? BLACK : WHITE, t);
      }
    if(!strstr(fen, "armies:"))
      snprintf(fen + len, sizeof(fen) - len, " armies:%s/%s", ref_armies[army[WHITE]].key,
               ref_armies[army[BLACK]].key);
  }
  rc = state_from(state_of(s), fen, rules, fifty, balanced, rk_array, err);
  if(rc == REF_OK && seen_armies &&
     (state_of(s)->army[WHITE] != army[WHITE] || state_of(s)->army[BLACK] != army[BLACK])) {
    /* armies= that another position's "armies:" contradicts */
    ref_err_set(err, REF_EINVAL, "cga-bad-armies", NULL);
    return REF_EINVAL;
  }
  if(rc == REF_OK && seen_arr && !rk_array && state_of(s)->rk_array) {
    /* rk_array=off with a position in the Racing Kings array */
    ref_err_set(err, REF_EINVAL, "cg-bad-option", "rk_array");
    return REF_EINVAL;
  }
  return rc;
}

/* Decoding keeps the options of a state made by init (they are not part of
 * the position string) and starts a fresh repetition history. */
int ref_cg_decode(struct ref_state *s, const char *text, struct ref_err *err,
                  const struct ref_cg_rules *rules)
{
  const struct ref_cg_state *old = cstate_of(s);
  bool ours = old->magic == REF_CG_MAGIC && old->variant == rules->id;

  /* the array (RK-1) is the position string's ("array:rk") */
  return state_from(state_of(s), text, rules, ours ? old->fifty : 0, ours ? old->balanced : 0, 0,
                    err);
}

/* Rule 8, CG-14: a side with no legal move (a "stalemate") passes; the
 * pass is the one move (the service plays it, §1.5). None once the game
 * is over (G-1). */
int ref_cg_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct ref_cg_state *st = cstate_of(s);
  uint32_t v[REF_CG_MAX_HALVES];
  return ref_ge_moves(&st->e, v, ref_cg_gen(st, v), ref_cg_half(REF_CG_K_PASS, 0, 0, 0), out);
}

int ref_cg_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                 struct ref_err *err)
{
  const struct ref_cg_state *st = cstate_of(s);
  uint32_t v[REF_CG_MAX_HALVES];

  /* Two moves in one turn are Doublemove's (§5.4). */
  struct ref_cn_dialect d;
  struct ref_cn_rules reader;

  reader_of(st, &cg_turn, &d, &reader);
  return ref_cn_parse(&reader, st, st->e.over, v, halves_or_pass(st, v), text, out, err);
}

/* The pass, or a legal half; anything else in m is refused. */
static bool turn_of(const struct ref_cg_state *st, const struct ref_move *m, uint32_t *h)
{
  int i;
  for(i = 1; i < REF_MOVE_WORDS; i++)
    if(m->w[i])
      return false;
  *h = m->w[0];
  if(ref_cg_half_kind(*h) == REF_CG_K_PASS) {
    uint32_t v[REF_CG_MAX_HALVES];
    return *h == ref_cg_half(REF_CG_K_PASS, 0, 0, 0) && ref_cg_gen(st, v) == 0;
  }
  return ref_cg_half_legal(st, *h);
}

int ref_cg_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                  char *buf, size_t cap)
{
  const struct ref_cg_state *st = cstate_of(s);
  uint32_t h;

  if(!turn_of(st, m, &h))
    return REF_EINVAL;
  return ref_cg_format_half(st, h, style, buf, cap);
}

/* Plays a turn and settles the result. The move is checked against the
 * legal list: a journal replayed after a rules change must fail loudly. */
int ref_cg_apply(struct ref_state *s, const struct ref_move *m)
{
  struct ref_cg_state *st = state_of(s);
  uint32_t h;

  if(st->e.over)
    return REF_EPHASE;
  if(!turn_of(st, m, &h))
    return REF_EILLEGAL;
  if(ref_cg_half_kind(h) != REF_CG_K_PASS)
    ref_cg_play(st, h);
  ref_cg_end_turn(st);
  assert(ref_cg_ok(s));
  return REF_OK;
}

/*
 * Resignation, agreed draws, and claims (CG-12): threefold repetition, and
 * fifty moves (100 turns without capture, pawn move, bring-in or bear-off)
 * when the option is on. No cube.
 */
int ref_cg_act(struct ref_state *s, int seat, enum ref_action action, int arg,
               struct ref_err *err)
{
  struct ref_cg_state *st = state_of(s);
  int rc = ref_ge_act(&st->e, seat, action, ref_ge_cg_claim(&st->e, st->fifty, st->plies),
                      "draw-not-claimable", err);

  (void)arg;
  assert(rc || ref_cg_ok(s));
  return rc;
}

/* §5.2 rule 2: there is no check. */
void ref_cg_status(const struct ref_state *s, struct ref_status *out)
{
  const struct ref_cg_state *st = cstate_of(s);
  ref_ge_status(&st->e, st->pos.side, (int)st->pos.fullmove, false,
                ref_ge_cg_claim(&st->e, st->fifty, st->plies) != REF_END_NONE, out);
}

/* ------------------------------------------------------------------------ */
/* The board: the chess diagram (three columns a square, the last half's
 * squares in brackets), then both bars and the borne-off counts. At most
 * 45 columns. */

/* "G Charging Rook, I Fibnif, ...": an army's pieces by the letters the
 * board shows (upper case White, lower case Black) and their names. */
static void legend_line(int army, int color, char *buf, size_t cap)
{
  const struct ref_army *a = &ref_armies[army];
  size_t k = 0;
  int slot;

  buf[0] = '\0';
  for(slot = 0; slot < REF_ARMY_SLOTS && k < cap; slot++) {
    char l = a->piece[slot].letter;
    int n = snprintf(buf + k, cap - k, "%s%c %s", slot ? ", " : "",
                     color ? (char)(l - 'A' + 'a') : l, a->piece[slot].name);
    if(n < 0)
      break;
    k += (size_t)n;
  }
}

int ref_cg_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct ref_cg_state *st = cstate_of(s);
  char out[1024];
  size_t k = ref_chess_diagram(&st->pos, seat, st->last_from, st->last_to, out), i;
  int c;

  /* CGA-2: the pieces in their armies' letters. The diagram (chess_board.c)
   * is a line of file letters (27 bytes), then eight rows of 30: " 8 ",
   * three columns a square with the piece in the middle one, " 8". */
  for(i = 0; i < 64; i++) {
    size_t at = 27 + (i / 8) * 30 + 4 + (i % 8) * 3;
    int t = at < k ? ref_cg_type_of_letter(out[at]) : -1;
    if(t >= 0)
      out[at] = ref_cg_letter(st->army, out[at] >= 'a' ? BLACK : WHITE, t);
  }
  k += ref_cg_render_bars(out + k, sizeof(out) - k, st->bar, st->off, army_of(st), seat,
                          st->army);
  /* CGA-2: with an army other than the FIDEs, each side's army and its
   * pieces' letters as the board writes them (as the cwda board does) */
  for(c = 0; c < 2 && (st->army[WHITE] != REF_ARMY_FIDE || st->army[BLACK] != REF_ARMY_FIDE);
      c++) {
    char pieces[96];
    legend_line(st->army[c], c, pieces, sizeof(pieces));
    k += (size_t)snprintf(out + k, k < sizeof(out) ? sizeof(out) - k : 0, "%s, %s:\n  %s\n",
                          c == WHITE ? "White" : "Black", ref_armies[st->army[c]].name, pieces);
  }
  return k + 1 > sizeof(out) ? REF_EINVAL : ref_text_copy(out, k, buf, cap);
}

/* The upper-case letter of an army piece of colour c and chess type t. */
static char upper_letter(const struct ref_cg_state *st, int c, int t)
{
  return ref_armies[st->army[c]].piece[ref_cg_slot_of_type(t)].letter;
}

/* The board as data: the chess diagram, the last half marked,
 * each side's bar and borne-off count out of its army (the variants share
 * it: ref_cg_diagram). CGA-2: an army's pieces other than the FIDEs' by
 * their letters (DA-4, no figurine), with the legend. */
int ref_cg_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct ref_cg_state *st = cstate_of(s);
  int c, t, sq, i;

  ref_diag_grid(d, 8, 8, seat == 1);
  ref_diag_chess_board(d, st->pos.board, st->last_from, st->last_to);
  ref_diag_reserves(d, st->bar, st->off, army_of(st));
  for(c = 0; c < 2; c++) {
    char pieces[80];
    if(st->army[c] == REF_ARMY_FIDE)
      continue;
    for(sq = 0; sq < 64; sq++) {
      int code = st->pos.board[sq];
      struct ref_diag_stack *cell = &d->cell[sq / 8][sq % 8].s;
      if(code == REF_CH_EMPTY || REF_CH_COLOR(code) != c ||
         ref_cg_slot_of_type(REF_CH_TYPE(code)) < 0)
        continue;
      cell->n = 0;
      ref_diag_put_lettered(cell, upper_letter(st, c, REF_CH_TYPE(code)), c);
    }
    /* the bar again, in the order ref_diag_reserves lists it */
    d->bar[c].n = 0;
    for(t = 0; t < 6; t++)
      for(i = 0; i < st->bar[c][t]; i++) {
        if(ref_cg_slot_of_type(t) < 0)
          ref_diag_put(&d->bar[c], ref_diag_kind(piece_letters[t]), c);
        else
          ref_diag_put_lettered(&d->bar[c], upper_letter(st, c, t), c);
      }
    legend_line(st->army[c], c, pieces, sizeof(pieces));
    snprintf(d->legend[c], sizeof(d->legend[c]), "%s: %s", ref_armies[st->army[c]].name, pieces);
  }
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* The invariant checker: the board's redundant fields,
 * 16 pieces a side between board, bar and off, no more of a type than
 * started, no bar in Bodlaender's game, no king attacked in Racing Kings,
 * the e.p. targets, the history, and a result the position agrees with. */

bool ref_cg_ok(const struct ref_state *s)
{
  const struct ref_cg_state *st = cstate_of(s);
  const struct ref_chess_pos *p = &st->pos;
  const struct ref_cg_rules *r;
  const uint64_t(*pieces)[6] = p->pieces;
  struct ref_cg_state again;
  int c, t, i;

  if(st->magic != REF_CG_MAGIC || !ref_cg_rules_of(st->variant) || st->fifty > 1 ||
     st->balanced > 1 || st->half || st->first_ep || st->fresh ||
     st->rk_array > 1 || (st->rk_array && st->variant != REF_CG_RACING_KINGS))
    return false;
  /* CGA-1: armies of the table, their moves as read from it, none with
   * the Racing Kings array (CGA-4) */
  if(st->army[WHITE] >= REF_ARMY_COUNT || st->army[BLACK] >= REF_ARMY_COUNT ||
     (st->rk_array && (st->army[WHITE] != REF_ARMY_FIDE || st->army[BLACK] != REF_ARMY_FIDE)))
    return false;
  memcpy(&again, st, sizeof(again));
  if(!ref_cg_armies_read(&again) || memcmp(again.am, st->am, sizeof(st->am)))
    return false;
  r = rules_of(st);
  if(p->side > 1 || p->castle || p->ep != NO_SQ || p->fullmove < 1 || st->pend[0] != NO_SQ ||
     st->pend[1] != NO_SQ)
    return false;
  if(!ref_chess_tables_ok(p) || p->key != ref_chess_key_compute(p))
    return false;
  for(c = 0; c < 2; c++) {
    int total = st->off[c];
    for(t = 0; t < 6; t++) {
      int n = ref_chess_popcount(pieces[c][t]) + st->bar[c][t];
      if(n > start_count_of(st)[t] || (!r->bar && st->bar[c][t]))
        return false;
      total += n;
    }
    if(total != army_of(st))
      return false;
  }
  if((pieces[WHITE][REF_CH_PAWN] & 0xFFull) || (pieces[BLACK][REF_CH_PAWN] & (0xFFull << 56)))
    return false;
  if(r->position_ok && !r->position_ok(st, p))
    return false;
  for(i = 0; i < 2; i++) {
    int e = st->ep[i], mover = p->side ^ 1;
    if(e == NO_SQ)
      continue;
    if(e > 63 || SQ_RANK(e) != (mover == WHITE ? 2 : 5) || p->board[e] != REF_CH_EMPTY ||
       p->board[mover == WHITE ? e + 8 : e - 8] != REF_CH_PIECE(mover, REF_CH_PAWN) ||
       (i == 1 && st->ep[1] <= st->ep[0]))
      return false;
  }
  if(st->ep[0] == NO_SQ && st->ep[1] != NO_SQ)
    return false;
  if(st->last_from > NO_SQ || st->last_to > NO_SQ)
    return false;
  if(!ref_ge_hist_ok(&st->e, cg_key(st)))
    return false;
  memcpy(&again, st, sizeof(again));
  settle(&again);
  return ref_ge_ok(&st->e, &again.e, ref_ge_repetitions(&st->e) >= 3,
                   st->fifty && st->plies >= 100);
}

/* ------------------------------------------------------------------------ */
/* Diceless Chessgammon itself */

static int plain_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  return ref_cg_init(s, options, err, &ref_cg_rules_plain);
}

static int plain_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  return ref_cg_decode(s, text, err, &ref_cg_rules_plain);
}

static const struct ref_game_ops chessgammon_ops = REF_CG_ONE_HALF_OPS(plain_init, plain_decode);

const struct ref_game_desc ref_game_chessgammon = {
  "chessgammon", "Diceless Chessgammon", 1 /* version: bump when any ruling changes */, 2,
  {"White", "Black"}, REF_GAME_DRAWS, sizeof(struct ref_cg_state), &chessgammon_ops};

