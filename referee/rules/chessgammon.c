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
#include "chessgammon_int.h"
#include "diagram_int.h"

#include <assert.h>
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

const struct ref_cg_rules *ref_cg_rules_of(int id)
{
  switch(id) {
  case REF_CG_DOUBLEMOVE:
    return &ref_cg_rules_doublemove;
  case REF_CG_RACING_KINGS:
    return &ref_cg_rules_racing_kings;
  case REF_CG_BODLAENDER:
    return &ref_cg_rules_bodlaender;
  default:
    return &ref_cg_rules_plain;
  }
}

static const struct ref_cg_rules *rules_of(const struct ref_cg_state *st)
{
  return ref_cg_rules_of(st->variant);
}

static struct ref_cg_state *state_of(struct ref_state *s)
{
  return (struct ref_cg_state *)(void *)s;
}

static const struct ref_cg_state *cstate_of(const struct ref_state *s)
{
  return (const struct ref_cg_state *)(const void *)s;
}

static int bar_total(const struct ref_cg_state *st, int c)
{
  int t, n = 0;
  for(t = 0; t < 6; t++)
    n += st->bar[c][t];
  return n;
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
    if(r->position_ok(&c))
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
static int gen_off(const struct ref_chess_pos *p, bool up, uint32_t *out, int n)
{
  int us = p->side, dr = up ? 1 : -1, last = up ? 7 : 0;
  int beyond = last + dr;
  uint64_t occ = p->occ[0] | p->occ[1], b;

  for(b = p->occ[us]; b; b &= b - 1) {
    int sq = ref_chess_lsb(b), f = SQ_FILE(sq), r = SQ_RANK(sq);
    int type = REF_CH_TYPE(p->board[sq]), df, d;

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

/* The families of halves before the bar restriction: captures (board and
 * e.p.), quiet board moves, bear-offs, bring-ins. */
struct families {
  uint32_t cap[REF_CG_MAX_HALVES], quiet[REF_CG_MAX_HALVES], off[64], drop[64];
  int ncap, nquiet, noff, ndrop;
};

static void gen_families(const struct ref_cg_state *st, struct families *f)
{
  const struct ref_chess_pos *p = &st->pos;
  uint16_t cm[REF_CH_MAX_MOVES];
  int i, n;

  f->ncap = f->nquiet = f->noff = f->ndrop = 0;
  n = ref_chess_gen_pseudo(p, REF_CH_GEN_NO_CASTLE | REF_CH_GEN_NO_PROMO, cm);
  for(i = 0; i < n; i++) {
    int from = ref_chess_move_from(cm[i]), to = ref_chess_move_to(cm[i]);
    uint32_t h = ref_cg_half(REF_CG_K_NORMAL, from, to, 0);
    if(p->board[to] != REF_CH_EMPTY)
      f->cap[f->ncap++] = h;
    else
      f->quiet[f->nquiet++] = h;
  }
  f->ncap = gen_ep(st, f->cap, f->ncap);
  f->noff = gen_off(p, up_of(st), f->off, 0);
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
  if(!bar_total(st, us)) {
    /* The common case, straight into out: every piece move, e.p. and
     * bear-off (no bar, no restriction). */
    uint16_t cm[REF_CH_MAX_MOVES];
    int nc = ref_chess_gen_pseudo(p, REF_CH_GEN_NO_CASTLE | REF_CH_GEN_NO_PROMO, cm);
    for(i = 0; i < nc; i++)
      out[n++] = ref_cg_half(REF_CG_K_NORMAL, ref_chess_move_from(cm[i]),
                             ref_chess_move_to(cm[i]), 0);
    n = gen_ep(st, out, n);
    n = gen_off(p, up_of(st), out, n);
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
  int i, n = ref_cg_gen(st, v);

  for(i = 0; i < n; i++)
    if(v[i] == h)
      return true;
  return false;
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

/* How often the current position has occurred, this time included. */
static int repetitions(const struct ref_cg_state *st)
{
  int i, count = 0;
  uint64_t key = st->hist[st->nhist - 1];

  for(i = (int)st->nhist - 1; i >= 0; i--)
    if(st->hist[i] == key)
      count++;
  return count;
}

/* Can the side that is not to move move here (CG-11)? */
static bool other_can_move(const struct ref_cg_state *st)
{
  struct ref_cg_state c;
  uint32_t v[REF_CG_MAX_HALVES];

  memcpy(&c, st, offsetof(struct ref_cg_state, hist));
  c.pos.side ^= 1;
  c.pos.key ^= ref_chess_zobrist_side;
  c.ep[0] = c.ep[1] = NO_SQ;
  c.half = 0;
  c.first_ep = 0;
  return ref_cg_gen(&c, v) > 0;
}

static void finish(struct ref_cg_state *st, int winner, enum ref_end end)
{
  st->over = 1;
  st->winner = (int8_t)winner;
  st->end = (uint8_t)end;
}

/*
 * The result after a completed turn (rule 9), from the position alone so
 * decode and the checker reach the same verdict:
 * - CG-10: a move number is White's half, then Black's. After Black's:
 *   both finished is a draw, one finished wins. After White's: White
 *   finished means Black still replies (and loses at once if it cannot
 *   move); Black finished (only by being captured out, HB-4) wins at once.
 * - rule 8, CG-11, CG-14: no legal move passes (being "stalemated" is
 *   passing), unless neither side can move.
 * RK-1 rk_array keeps CG-10 as it is: both sides then race up the same
 * distance from mirrored arrays and White moves first, so Black's reply in
 * the same move number is exactly Racing Kings' own "Black reaches on the
 * next move: draw" [src: lichess] (rules-spec §5.5 End). Finishing means
 * the whole army off: 8 pieces in that array.
 */
static void settle(struct ref_cg_state *st)
{
  int mover = st->pos.side ^ 1;
  bool w = st->off[WHITE] == army_of(st), b = st->off[BLACK] == army_of(st);
  uint32_t v[REF_CG_MAX_HALVES];

  st->over = 0;
  st->winner = -1;
  st->end = REF_END_NONE;
  if(mover == BLACK) {
    if(w && b)
      finish(st, -1, REF_END_SAME_MOVE_NUMBER);
    else if(b)
      finish(st, BLACK, REF_END_BORNE_OFF);
    else if(w)
      finish(st, WHITE, REF_END_BORNE_OFF);
  }
  else if(b) {
    finish(st, BLACK, REF_END_BORNE_OFF);
  }
  if(st->over)
    return;
  if(ref_cg_gen(st, v))
    return;
  if(w) /* CG-10: "otherwise (including Black having to pass) White wins" */
    finish(st, WHITE, REF_END_BORNE_OFF);
  else if(!other_can_move(st))
    finish(st, -1, REF_END_NO_MOVES); /* CG-11 */
}

static void history_push(struct ref_cg_state *st)
{
  if(st->nhist == REF_CG_HIST_MAX) {
    memmove(st->hist, st->hist + 2, (REF_CG_HIST_MAX - 2) * sizeof(st->hist[0]));
    st->nhist -= 2;
  }
  st->hist[st->nhist++] = cg_key(st);
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
  if(mover == BLACK)
    p->fullmove++;
  st->ep[0] = ep[0];
  st->ep[1] = ep[1];
  st->pend[0] = st->pend[1] = NO_SQ;
  st->half = 0;
  st->first_ep = 0;
  history_push(st);
  settle(st);
}

/* ------------------------------------------------------------------------ */
/* The position string (§5.1): FEN-like board, side, "bar:" (upper case
 * White, letters in ASCII order), "off:W/B", "ep:" targets, move number,
 * and "array:rk" for the Racing Kings array (RK-1 rk_array). */

static void square_name(int sq, char *out)
{
  out[0] = (char)('a' + SQ_FILE(sq));
  out[1] = (char)('1' + SQ_RANK(sq));
  out[2] = '\0';
}

int ref_cg_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct ref_cg_state *st = cstate_of(s);
  const struct ref_chess_pos *p = &st->pos;
  char out[192], sq[3];
  size_t k = 0;
  int rank, file, empty, c, t, i, nbar = 0;
  static const char order[] = "BKNPQRbknpqr"; /* ASCII order */

  for(rank = 7; rank >= 0; rank--) {
    empty = 0;
    for(file = 0; file < 8; file++) {
      int code = p->board[rank * 8 + file];
      if(code == REF_CH_EMPTY) {
        empty++;
        continue;
      }
      if(empty)
        out[k++] = (char)('0' + empty);
      empty = 0;
      out[k] = piece_letters[REF_CH_TYPE(code)];
      if(REF_CH_COLOR(code) == BLACK)
        out[k] = (char)(out[k] - 'A' + 'a');
      k++;
    }
    if(empty)
      out[k++] = (char)('0' + empty);
    if(rank)
      out[k++] = '/';
  }
  k += (size_t)snprintf(out + k, sizeof(out) - k, " %c bar:", p->side == WHITE ? 'w' : 'b');
  for(i = 0; order[i]; i++) {
    char ch = order[i];
    c = ch >= 'a' ? BLACK : WHITE;
    t = (int)(strchr(piece_letters, c == BLACK ? ch - 'a' + 'A' : ch) - piece_letters);
    for(int j = 0; j < st->bar[c][t]; j++) {
      out[k++] = ch;
      nbar++;
    }
  }
  if(!nbar)
    out[k++] = '-';
  k += (size_t)snprintf(out + k, sizeof(out) - k, " off:%d/%d ep:", st->off[0], st->off[1]);
  if(st->ep[0] == NO_SQ) {
    out[k++] = '-';
  }
  else {
    for(i = 0; i < 2 && st->ep[i] != NO_SQ; i++) {
      square_name(st->ep[i], sq);
      k += (size_t)snprintf(out + k, sizeof(out) - k, "%s%s", i ? "," : "", sq);
    }
  }
  k += (size_t)snprintf(out + k, sizeof(out) - k, " %u%s", (unsigned)p->fullmove,
                        st->rk_array ? " array:rk" : "");
  if(k + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
}

static int type_of_letter(int c)
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

/* Reads and validates a position string into st (a fresh state for the
 * rules given). On failure returns REF_EINVAL with a reason key. */
static int read_position(struct ref_cg_state *st, const char *text, const struct ref_cg_rules *r,
                         const char **reason)
{
  char buf[200], *field[8], *s;
  int nfield = 0, rank = 7, file = 0, c, t, i, offw = -1, offb = -1;
  struct ref_chess_pos *p = &st->pos;
  bool seen_bar = false, seen_off = false, seen_ep = false, seen_num = false, seen_arr = false;
  size_t len;

  *reason = "cg-position-syntax";
  if(!text || (len = strlen(text)) >= sizeof(buf))
    return REF_EINVAL;
  memcpy(buf, text, len + 1);
  /* '_' stands for a space, so a position fits in one word of a mail
   * command ("new chessgammon fen=8/8/8/8/8/8/8/r2R4_w with ..."). */
  for(s = buf; *s; s++)
    if(*s == '_')
      *s = ' ';
  for(s = buf; *s;) {
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
  if(nfield < 2)
    return REF_EINVAL;
  ref_chess_clear(p);
  for(s = field[0]; *s; s++) {
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
      t = type_of_letter(*s);
      if(t < 0 || file > 7)
        return REF_EINVAL;
      ref_chess_put(p, *s >= 'a' ? BLACK : WHITE, t, rank * 8 + file);
      file++;
    }
  }
  if(rank != 0 || file != 8)
    return REF_EINVAL;
  if(!strcmp(field[1], "w"))
    p->side = WHITE;
  else if(!strcmp(field[1], "b"))
    p->side = BLACK;
  else
    return REF_EINVAL;
  for(i = 2; i < nfield; i++) {
    char *f = field[i];
    if(!strncmp(f, "bar:", 4) && !seen_bar) {
      seen_bar = true;
      if(!strcmp(f + 4, "-"))
        continue;
      for(s = f + 4; *s; s++) {
        t = type_of_letter(*s);
        if(t < 0)
          return REF_EINVAL;
        st->bar[*s >= 'a' ? BLACK : WHITE][t]++;
      }
    }
    else if(!strncmp(f, "off:", 4) && !seen_off) {
      char *slash = strchr(f + 4, '/');
      seen_off = true;
      if(!slash || slash == f + 4 || !slash[1] || strlen(f) > 9)
        return REF_EINVAL;
      offw = atoi(f + 4);
      offb = atoi(slash + 1);
      for(s = f + 4; *s; s++)
        if((*s < '0' || *s > '9') && s != slash)
          return REF_EINVAL;
    }
    else if(!strncmp(f, "ep:", 3) && !seen_ep) {
      seen_ep = true;
      if(!strcmp(f + 3, "-"))
        continue;
      for(s = f + 3, c = 0; *s; c++) {
        int sq;
        if(c == 2 || !read_square(s, &sq))
          return REF_EINVAL;
        st->ep[c] = (uint8_t)sq;
        s += 2;
        if(*s == ',')
          s++;
      }
    }
    else if(!strcmp(f, "array:rk") && !seen_arr && r->id == REF_CG_RACING_KINGS) {
      seen_arr = true; /* RK-1 config rk_array */
      st->rk_array = 1;
    }
    else if(!seen_num && f[0] >= '1' && f[0] <= '9' && strlen(f) <= 6 &&
            strspn(f, "0123456789") == strlen(f)) {
      seen_num = true;
      p->fullmove = (uint32_t)atoi(f);
    }
    else {
      return REF_EINVAL;
    }
  }
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
  if(!r->bar && (bar_total(st, WHITE) || bar_total(st, BLACK))) {
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
  if(r->position_ok && !r->position_ok(p)) {
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
  fresh.hist[0] = cg_key(&fresh);
  fresh.nhist = 1;
  settle(&fresh);
  memcpy(st, &fresh, sizeof(fresh));
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* Notation out: Betza's long form (§5.1). Captures with ':', bring-ins from
 * rank 0, bear-offs to rank 9, pawns without a letter, a pass "--". The
 * computer form: e2e4, P@h7, h6e9, 0000. */

int ref_cg_format_half(const struct ref_cg_state *st, uint32_t h, enum ref_notation style,
                       char *buf, size_t cap)
{
  const struct ref_chess_pos *p = &st->pos;
  int kind = ref_cg_half_kind(h), from = ref_cg_half_from(h), to = ref_cg_half_to(h);
  char out[24], a[3], b[3];
  char letter = '\0';

  if(kind == REF_CG_K_NORMAL || kind == REF_CG_K_EP || kind == REF_CG_K_OFF) {
    int type = REF_CH_TYPE(p->board[from]);
    if(p->board[from] == REF_CH_EMPTY)
      return REF_EINVAL;
    letter = type == REF_CH_PAWN ? '\0' : piece_letters[type];
  }
  else if(kind == REF_CG_K_DROP) {
    letter = piece_letters[ref_cg_half_type(h)];
  }
  square_name(from, a);
  square_name(to, b);
  switch(kind) {
  case REF_CG_K_NORMAL:
  case REF_CG_K_EP: {
    bool capture = kind == REF_CG_K_EP || p->board[to] != REF_CH_EMPTY;
    if(style == REF_NOTATION_COMPUTER)
      snprintf(out, sizeof(out), "%s%s", a, b);
    else if(letter)
      snprintf(out, sizeof(out), "%c%s%c%s", letter, a, capture ? ':' : '-', b);
    else
      snprintf(out, sizeof(out), "%s%c%s", a, capture ? ':' : '-', b);
    break;
  }
  case REF_CG_K_DROP:
    if(style == REF_NOTATION_COMPUTER)
      snprintf(out, sizeof(out), "%c@%s", letter, b);
    else if(letter == 'P')
      snprintf(out, sizeof(out), "%c0-%s", b[0], b);
    else
      snprintf(out, sizeof(out), "%c%c0-%s", letter, b[0], b);
    break;
  case REF_CG_K_OFF:
    if(style == REF_NOTATION_COMPUTER)
      snprintf(out, sizeof(out), "%s%c9", a, 'a' + to);
    else if(letter)
      snprintf(out, sizeof(out), "%c%s-%c9", letter, a, 'a' + to);
    else
      snprintf(out, sizeof(out), "%s-%c9", a, 'a' + to);
    break;
  case REF_CG_K_PASS:
    snprintf(out, sizeof(out), "%s", style == REF_NOTATION_COMPUTER ? "0000" : "--");
    break;
  default:
    return REF_EINVAL;
  }
  if(strlen(out) + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, strlen(out) + 1);
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* The tolerant parser (§1.1-1.4, §5.1 notation). One half is read into up
 * to two patterns (an all-capitals "B" may be the bishop or the b-file) and
 * matched against the legal halves; nothing is guessed. */

#define PIECE_ANY REF_CG_PIECE_ANY
#define PIECE_UNSET (-2)
#define pattern ref_cg_pattern

enum match { MATCH_NONE, MATCH_FULL, MATCH_NOT_CAPTURE };

static bool is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static int lower(int c)
{
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

static int file_of(int c)
{
  c = lower(c);
  return c >= 'a' && c <= 'h' ? c - 'a' : -1;
}

/*
 * Strips what §1.1 ignores: whitespace, a move number ("12." "12..."),
 * glyphs, check marks, surrounding punctuation. OUT: out. False when
 * nothing is left, it is too long, or a space remains inside.
 */
bool ref_cg_clean_input(const char *text, char *out, size_t cap)
{
  const unsigned char *b = (const unsigned char *)text, *e = b + strlen(text), *q;
  bool changed = true;
  size_t len;

  while(changed) {
    changed = false;
    while(b < e && (is_space(*b) || *b >= 0x80 || strchr("\"'`.,;([{<", *b))) {
      b++;
      changed = true;
    }
    q = b;
    while(q < e && *q >= '0' && *q <= '9')
      q++;
    if(q > b && q < e && *q == '.') {
      b = q;
      changed = true;
    }
  }
  while(e > b && (is_space(e[-1]) || e[-1] >= 0x80 || strchr("!?+#.,;\"'`]}>", e[-1])))
    e--;
  len = (size_t)(e - b);
  if(!len || len + 1 > cap)
    return false;
  for(q = b; q < e; q++)
    if(is_space(*q))
      return false;
  memcpy(out, b, len);
  out[len] = '\0';
  return true;
}

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
  size_t k = strlen(suffix), i;
  if(n < k)
    return false;
  for(i = 0; i < k; i++)
    if(lower(s[n - k + i]) != suffix[i])
      return false;
  return true;
}

enum shape {
  SHAPE_OK = REF_CG_SHAPE_OK,
  SHAPE_BAD = REF_CG_SHAPE_BAD,
  SHAPE_CASTLE = REF_CG_SHAPE_CASTLE,
  SHAPE_PROMO = REF_CG_SHAPE_PROMO
};

int ref_cg_read_pattern(const char *s, bool b_is_file, struct pattern *pt)
{
  size_t n = strlen(s), i = 0, end;
  int c = (unsigned char)s[0], nsep = 0, os = 0;
  const char *q;

  memset(pt, 0, sizeof(*pt));
  pt->piece = PIECE_UNSET;
  pt->ff = pt->fr = pt->tf = pt->tr = -1;
  for(q = s; *q && (*q == 'O' || *q == 'o' || *q == '0' || *q == '-'); q++)
    os += *q != '-';
  if(!*q && (os == 2 || os == 3) && strchr(s, '-'))
    return SHAPE_CASTLE; /* §5.2 rule 2: no castling */
  if((c == 'K' || c == 'k') && n > 1 && strchr("tTnN", s[1])) {
    pt->piece = REF_CH_KNIGHT; /* "Kt", "Kn" (§1.3) */
    i = 2;
  }
  else if(strchr("KkQqRrNnPp", c) && c) {
    pt->piece = type_of_letter(c);
    i = 1;
  }
  else if(c == 'B' && !b_is_file) {
    pt->piece = REF_CH_BISHOP;
    i = 1;
  }
  end = n;
  /* A promotion suffix: =Q, /Q, (Q), or a letter after the rank. */
  if((end >= i + 4 && s[end - 1] == ')' && s[end - 3] == '(') ||
     (end >= i + 3 && strchr("QRBNqrbn", s[end - 1]) &&
      (s[end - 2] == '=' || s[end - 2] == '/' || (s[end - 2] >= '1' && s[end - 2] <= '8'))))
    return SHAPE_PROMO; /* §5.2 rule 2: no promotion */
  if(ends_with_ci(s, end, "off") && end >= i + 3) {
    pt->tr = 9;
    end -= 3;
  }
  else {
    if(end < i + 2 || file_of(s[end - 2]) < 0 || s[end - 1] < '1' || s[end - 1] > '9')
      return SHAPE_BAD;
    pt->tf = file_of(s[end - 2]);
    pt->tr = s[end - 1] - '0';
    end -= 2;
  }
  while(end > i && strchr("-xX:*@", s[end - 1])) {
    if(s[end - 1] == '@')
      pt->drop = true;
    else if(s[end - 1] == '*')
      pt->star = true;
    else if(s[end - 1] != '-')
      pt->capture = true;
    end--;
    if(++nsep > 2)
      return SHAPE_BAD;
  }
  if(end == 0 && (pt->drop || pt->star) && pt->piece == PIECE_UNSET)
    pt->piece = REF_CH_PAWN; /* "@h7" */
  if(end - i == 2) {
    pt->ff = file_of(s[i]);
    if(pt->ff < 0 || s[i + 1] < '0' || s[i + 1] > '8')
      return SHAPE_BAD;
    pt->fr = s[i + 1] - '0';
  }
  else if(end - i == 1) {
    pt->ff = file_of(s[i]);
    if(pt->ff < 0) {
      if(s[i] < '0' || s[i] > '8')
        return SHAPE_BAD;
      pt->fr = s[i] - '0';
    }
  }
  else if(end != i) {
    return SHAPE_BAD;
  }
  if(pt->star) {
    /* "Q*d1" is a bring-in (§5.1), "Qh4*h7" a capture (§1.2) */
    if(end == i)
      pt->drop = true;
    pt->capture = true;
  }
  if(pt->fr == 0)
    pt->drop = true;
  if(pt->drop && (pt->tr == 9 || (pt->fr > 0)))
    return SHAPE_BAD;
  if(pt->piece == PIECE_UNSET)
    pt->piece = pt->ff >= 0 && pt->fr > 0 ? PIECE_ANY : REF_CH_PAWN;
  return SHAPE_OK;
}

static enum match pattern_match(const struct ref_cg_state *st, const struct pattern *pt,
                                uint32_t h)
{
  const struct ref_chess_pos *p = &st->pos;
  int kind = ref_cg_half_kind(h), from = ref_cg_half_from(h), to = ref_cg_half_to(h);
  int type;
  bool capture;

  if(kind == REF_CG_K_PASS)
    return MATCH_NONE;
  if(kind == REF_CG_K_DROP) {
    if(!pt->drop)
      return MATCH_NONE;
    if((pt->piece >= 0 && ref_cg_half_type(h) != pt->piece) || pt->tr != SQ_RANK(to) + 1 ||
       pt->tf != SQ_FILE(to) || (pt->ff >= 0 && pt->ff != SQ_FILE(to)))
      return MATCH_NONE;
    if(pt->capture && !pt->star)
      return MATCH_NOT_CAPTURE;
    return MATCH_FULL;
  }
  if(pt->drop && !pt->star)
    return MATCH_NONE;
  if(pt->fr == 0)
    return MATCH_NONE;
  if(kind == REF_CG_K_OFF) {
    if(pt->tr != 9 || (pt->tf >= 0 && pt->tf != to))
      return MATCH_NONE;
  }
  else if(pt->tr != SQ_RANK(to) + 1 || pt->tf != SQ_FILE(to)) {
    return MATCH_NONE;
  }
  type = REF_CH_TYPE(p->board[from]);
  if(pt->piece >= 0 && type != pt->piece)
    return MATCH_NONE;
  if((pt->ff >= 0 && SQ_FILE(from) != pt->ff) || (pt->fr > 0 && SQ_RANK(from) + 1 != pt->fr))
    return MATCH_NONE;
  capture = kind == REF_CG_K_EP || (kind == REF_CG_K_NORMAL && p->board[to] != REF_CH_EMPTY);
  /* SAN names a pawn capture by its file: a bare "e5" is the step only. */
  if(pt->piece == REF_CH_PAWN && pt->ff < 0 && !pt->capture && capture)
    return MATCH_NONE;
  if(pt->capture && !capture)
    return pt->star && pt->drop ? MATCH_NONE : MATCH_NOT_CAPTURE;
  return MATCH_FULL;
}

struct suggestion {
  int score;
  char text[REF_NOTATION_MAX];
};

static int cmp_suggestion(const void *a, const void *b)
{
  const struct suggestion *x = a, *y = b;
  if(x->score != y->score)
    return y->score - x->score;
  return strcmp(x->text, y->text);
}

/* Fills err->suggest (§1.4): `only` exactly, or the legal halves sharing
 * destination, origin or piece with what was read, best first (all of
 * them when few). */
static void suggest(const struct ref_cg_state *st, const struct pattern *pt, const uint32_t *only,
                    int nonly, struct ref_err *err)
{
  static const struct pattern none = {PIECE_ANY, -1, -1, -2, -2, false, false, false};
  struct suggestion sg[REF_CG_MAX_HALVES];
  uint32_t v[REF_CG_MAX_HALVES];
  int i, n, kept = 0;

  if(!err)
    return;
  if(!pt)
    pt = &none;
  if(only) {
    n = nonly;
    memcpy(v, only, (size_t)n * sizeof(v[0]));
  }
  else {
    n = ref_cg_gen(st, v);
    if(!n) {
      /* rule 8: nothing to offer but the pass */
      snprintf(err->suggest[0], REF_NOTATION_MAX, "--");
      err->nsuggest = 1;
      return;
    }
  }
  for(i = 0; i < n; i++) {
    int kind = ref_cg_half_kind(v[i]), from = ref_cg_half_from(v[i]), to = ref_cg_half_to(v[i]);
    int score = 0;
    if(!only) {
      if(kind == REF_CG_K_OFF ? pt->tr == 9 : (kind != REF_CG_K_PASS && pt->tf == SQ_FILE(to) &&
                                                pt->tr == SQ_RANK(to) + 1))
        score += 4;
      if(kind == REF_CG_K_DROP ? pt->drop
                               : (pt->ff >= 0 || pt->fr > 0) &&
                                   (pt->ff < 0 || SQ_FILE(from) == pt->ff) &&
                                   (pt->fr <= 0 || SQ_RANK(from) + 1 == pt->fr))
        score += 2;
      if(pt->piece >= 0 &&
         (kind == REF_CG_K_DROP ? ref_cg_half_type(v[i])
                                : REF_CH_TYPE(st->pos.board[from])) == pt->piece)
        score += 1;
    }
    sg[i].score = score;
    ref_cg_format_half(st, v[i], REF_NOTATION_CANONICAL, sg[i].text, sizeof(sg[i].text));
  }
  qsort(sg, (size_t)n, sizeof(sg[0]), cmp_suggestion);
  for(i = 0; i < n && kept < REF_SUGGEST_MAX; i++) {
    if(!only && n > REF_SUGGEST_MAX && sg[i].score == 0 && sg[0].score > 0)
      break;
    memcpy(err->suggest[kept++], sg[i].text, sizeof(sg[i].text));
  }
  err->nsuggest = kept;
}

static int fail(const struct ref_cg_state *st, struct ref_err *err, enum ref_code code,
                const char *reason, const char *detail, const struct pattern *pt)
{
  ref_err_set(err, code, reason, detail);
  suggest(st, pt, NULL, 0, err);
  return code;
}

/* Why a readable half that matches no legal half is refused: the most
 * specific truth first (RK-2, rule 7, rule 6, the origin square). */
static int explain(const struct ref_cg_state *st, const struct pattern *pats, int npat,
                   const char *in, struct ref_err *err)
{
  const struct ref_chess_pos *p = &st->pos;
  struct families f;
  uint32_t all[REF_CG_MAX_HALVES * 2];
  int n = 0, i, k, us = p->side;
  char sq[3];

  gen_families(st, &f);
  n = append(all, n, f.cap, f.ncap);
  n = append(all, n, f.quiet, f.nquiet);
  n = append(all, n, f.off, f.noff);
  n = append(all, n, f.drop, f.ndrop);
  for(i = 0; i < n; i++)
    for(k = 0; k < npat; k++)
      if(pattern_match(st, &pats[k], all[i]) == MATCH_FULL) {
        uint32_t one = all[i];
        if(filter(st, &one, 1) == 0)
          return fail(st, err, REF_EILLEGAL, "rk-king-attacked", NULL, &pats[k]);
        return fail(st, err, REF_EILLEGAL, "cg-bar-restriction", NULL, &pats[k]);
      }
  for(k = 0; k < npat; k++) {
    const struct pattern *pt = &pats[k];
    if(pt->drop && pt->piece >= 0 && pt->tr >= 1 && pt->tr <= 8) {
      int to = (pt->tr - 1) * 8 + pt->tf;
      square_name(to, sq);
      if(!rules_of(st)->bar)
        return fail(st, err, REF_EILLEGAL, "hb-no-bar", NULL, pt);
      if(!st->bar[us][pt->piece])
        return fail(st, err, REF_EILLEGAL, "cg-not-on-bar", NULL, pt);
      if(!(appropriate_of(st, us, pt->piece) & BIT(to)))
        return fail(st, err, REF_EILLEGAL, "cg-not-appropriate", sq, pt);
      if(p->board[to] != REF_CH_EMPTY)
        return fail(st, err, REF_EILLEGAL, "cg-square-occupied", sq, pt);
    }
    if(pt->ff >= 0 && pt->fr > 0) {
      int from = (pt->fr - 1) * 8 + pt->ff;
      square_name(from, sq);
      if(p->board[from] == REF_CH_EMPTY)
        return fail(st, err, REF_EILLEGAL, "no-piece-there", sq, pt);
      if(REF_CH_COLOR(p->board[from]) != us)
        return fail(st, err, REF_EILLEGAL, "not-your-piece", sq, pt);
    }
    if(pt->tr == 9)
      return fail(st, err, REF_EILLEGAL, "cg-cannot-bear-off", NULL, pt);
  }
  return fail(st, err, REF_EILLEGAL, "no-such-move", in, &pats[0]);
}

int ref_cg_parse_half(const struct ref_cg_state *st, const char *text, uint32_t *out,
                      struct ref_err *err)
{
  struct pattern pats[2];
  uint32_t v[REF_CG_MAX_HALVES], found[REF_CG_MAX_HALVES], not_capture = 0;
  char in[32], low[32];
  int npat = 0, nfound = 0, n, i, k;
  bool has_lower = false;
  enum shape sh;

  if(!text || !ref_cg_clean_input(text, in, sizeof(in)))
    return fail(st, err, REF_EPARSE, "unreadable", NULL, NULL);
  for(i = 0; in[i]; i++) {
    low[i] = (char)lower(in[i]);
    if(in[i] >= 'a' && in[i] <= 'z')
      has_lower = true;
  }
  low[i] = '\0';
  n = ref_cg_gen(st, v);
  if(!strcmp(low, "--") || !strcmp(low, "pass") || !strcmp(low, "0000")) {
    /* Rule 8: a pass only when there is no legal move. */
    if(n)
      return fail(st, err, REF_EILLEGAL, "cg-cannot-pass", NULL, NULL);
    *out = ref_cg_half(REF_CG_K_PASS, 0, 0, 0);
    return REF_OK;
  }
  sh = ref_cg_read_pattern(in, false, &pats[0]);
  if(sh == SHAPE_CASTLE)
    return fail(st, err, REF_EILLEGAL, "cg-no-castling", NULL, NULL);
  if(sh == SHAPE_PROMO)
    return fail(st, err, REF_EILLEGAL, "cg-no-promotion", NULL, NULL);
  if(sh == SHAPE_OK)
    npat++;
  if(in[0] == 'B' && !has_lower && ref_cg_read_pattern(in, true, &pats[npat]) == SHAPE_OK)
    npat++;
  if(!npat)
    return fail(st, err, REF_EPARSE, "unreadable", in, NULL);
  for(i = 0; i < n; i++) {
    bool full = false;
    for(k = 0; k < npat; k++) {
      enum match m = pattern_match(st, &pats[k], v[i]);
      if(m == MATCH_FULL)
        full = true;
      else if(m == MATCH_NOT_CAPTURE && !not_capture)
        not_capture = v[i];
    }
    if(full)
      found[nfound++] = v[i];
  }
  if(nfound == 1) {
    *out = found[0];
    return REF_OK;
  }
  if(nfound > 1) {
    char detail[96];
    size_t len = 0;
    struct suggestion sg[REF_CG_MAX_HALVES];
    for(i = 0; i < nfound; i++) {
      sg[i].score = 0;
      ref_cg_format_half(st, found[i], REF_NOTATION_CANONICAL, sg[i].text, sizeof(sg[i].text));
    }
    qsort(sg, (size_t)nfound, sizeof(sg[0]), cmp_suggestion);
    detail[0] = '\0';
    for(i = 0; i < nfound; i++)
      if(len + strlen(sg[i].text) + 3 < sizeof(detail))
        len += (size_t)snprintf(detail + len, sizeof(detail) - len, "%s%s", i ? ", " : "",
                                sg[i].text);
    ref_err_set(err, REF_EAMBIGUOUS, "ambiguous", detail);
    suggest(st, NULL, found, nfound, err);
    return REF_EAMBIGUOUS;
  }
  if(not_capture) {
    char sq[3];
    square_name(ref_cg_half_to(not_capture), sq);
    return fail(st, err, REF_EILLEGAL, "not-a-capture", sq, &pats[0]);
  }
  return explain(st, pats, npat, in, err);
}

/* ------------------------------------------------------------------------ */
/* Ops shared by the variants (one half per turn; Doublemove has its own
 * legal, parse, format and apply in chessgammon_doublemove.c). */

static void trim(const char **b, const char **e)
{
  while(*b < *e && (**b == ' ' || **b == '\t'))
    (*b)++;
  while(*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
    (*e)--;
}

static bool span_is(const char *b, const char *e, const char *word)
{
  return (size_t)(e - b) == strlen(word) && !strncmp(b, word, (size_t)(e - b));
}

/*
 * Options "key=value;...": fen=POSITION (the §5.1 record), fifty_moves=
 * on|off (CG-12, default off), in Doublemove balanced_start=on|off
 * (DM-2, default off), and in Racing Kings rk_array=on|off (RK-1, default
 * off: the Racing Kings array; with fen= the position is read in that
 * array). Unknown or repeated keys are REF_EINVAL.
 */
int ref_cg_init(struct ref_state *s, const char *options, struct ref_err *err,
                const struct ref_cg_rules *rules)
{
  char fen[200];
  const char *b = options ? options : "";
  int fifty = 0, balanced = 0, rk_array = 0, rc;
  bool seen_fen = false, seen_fifty = false, seen_bal = false, seen_arr = false;
  bool rk = rules->id == REF_CG_RACING_KINGS;

  while(*b) {
    const char *e = strchr(b, ';'), *eq, *kb = b, *ke, *vb, *ve;
    char key[32];
    if(!e)
      e = b + strlen(b);
    eq = memchr(b, '=', (size_t)(e - b));
    ke = eq ? eq : e;
    trim(&kb, &ke);
    vb = eq ? eq + 1 : e;
    ve = e;
    trim(&vb, &ve);
    snprintf(key, sizeof(key), "%.*s", (int)(ke - kb), kb);
    if(kb == ke && !eq) {
      /* an empty segment */
    }
    else if(span_is(kb, ke, "fen") && eq && !seen_fen && (size_t)(ve - vb) < sizeof(fen)) {
      seen_fen = true;
      snprintf(fen, sizeof(fen), "%.*s", (int)(ve - vb), vb);
    }
    else if((span_is(kb, ke, "fifty_moves") && !seen_fifty) ||
            (rules->balanced_option && span_is(kb, ke, "balanced_start") && !seen_bal) ||
            (rk && span_is(kb, ke, "rk_array") && !seen_arr)) {
      int on = span_is(vb, ve, "on");
      if(!eq || (!on && !span_is(vb, ve, "off"))) {
        ref_err_set(err, REF_EINVAL, "cg-bad-option", key);
        return REF_EINVAL;
      }
      if(span_is(kb, ke, "fifty_moves")) {
        seen_fifty = true;
        fifty = on;
      }
      else if(span_is(kb, ke, "rk_array")) {
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
    b = *e ? e + 1 : e;
  }
  if(!seen_fen)
    snprintf(fen, sizeof(fen), "%s", rk_array ? rk_start_position : start_position);
  rc = state_from(state_of(s), fen, rules, fifty, balanced, rk_array, err);
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

int ref_cg_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct ref_cg_state *st = cstate_of(s);
  uint32_t v[REF_CG_MAX_HALVES];
  struct ref_move m;
  int i, n;

  memset(&m, 0, sizeof(m));
  n = ref_cg_gen(st, v);
  if(!n) {
    /* Rule 8, CG-14: a side with no legal move (a "stalemate") passes;
     * the pass is the one move (the service plays it, §1.5). */
    v[0] = ref_cg_half(REF_CG_K_PASS, 0, 0, 0);
    n = 1;
  }
  for(i = 0; i < n; i++) {
    m.w[0] = v[i];
    if(ref_movelist_push(out, &m) != REF_OK)
      return REF_ENOMEM;
  }
  return REF_OK;
}

int ref_cg_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                 struct ref_err *err)
{
  const struct ref_cg_state *st = cstate_of(s);
  uint32_t h;
  int rc;

  if(st->over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  {
    char in[64];
    /* Two moves in one turn are Doublemove's (§5.4). */
    if(text && ref_cg_clean_input(text, in, sizeof(in)) && strchr(in, ','))
      return fail(st, err, REF_EILLEGAL, "cg-one-move-per-turn", NULL, NULL);
  }
  rc = ref_cg_parse_half(st, text, &h, err);
  if(rc != REF_OK)
    return rc;
  memset(out, 0, sizeof(*out));
  out->w[0] = h;
  return REF_OK;
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

  if(st->over)
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
  enum ref_end claim, end;
  int winner, rc;

  (void)arg;
  /* CG-12: the fifty-move claim counts 100 turns, fifty moves of each side */
  claim = repetitions(st) >= 3 ? REF_END_THREEFOLD
        : st->fifty && st->plies >= 100 ? REF_END_FIFTY_MOVES : REF_END_NONE;
  rc = ref_plain_act(seat, action, st->over, claim, "draw-not-claimable", &winner, &end, err);
  if(rc)
    return rc;
  finish(st, winner, end);
  assert(ref_cg_ok(s));
  return REF_OK;
}

void ref_cg_status(const struct ref_state *s, struct ref_status *out)
{
  const struct ref_cg_state *st = cstate_of(s);

  memset(out, 0, sizeof(*out));
  out->phase = st->over ? REF_PHASE_OVER : REF_PHASE_MOVE;
  out->turn = st->over ? -1 : st->pos.side;
  out->winner = st->over ? st->winner : -1;
  out->end = st->over ? (enum ref_end)st->end : REF_END_NONE;
  out->points = st->over && st->winner >= 0 ? 1 : 0;
  out->move_number = (int)st->pos.fullmove;
  out->in_check = false; /* §5.2 rule 2: there is no check */
  out->draw_claimable = !st->over && (repetitions(st) >= 3 || (st->fifty && st->plies >= 100));
  out->cube_owner = -1;
}

/* ------------------------------------------------------------------------ */
/* The board: the chess diagram (three columns a square, the last half's
 * squares in brackets), then both bars and the borne-off counts. At most
 * 45 columns. */

int ref_cg_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct ref_cg_state *st = cstate_of(s);
  char out[1024];
  size_t k = 0;
  int row, col, i, c, t;
  bool flip = seat == 1;

  for(i = 0; i < 2; i++) {
    if(i == 1) {
      for(row = 0; row < 8; row++) {
        int rank = flip ? row : 7 - row;
        k += (size_t)snprintf(out + k, sizeof(out) - k, " %d ", rank + 1);
        for(col = 0; col < 8; col++) {
          int file = flip ? 7 - col : col, sq = rank * 8 + file, code = st->pos.board[sq];
          bool mark = sq == st->last_from || sq == st->last_to;
          char ch = '.';
          if(code != REF_CH_EMPTY) {
            ch = piece_letters[REF_CH_TYPE(code)];
            if(REF_CH_COLOR(code) == BLACK)
              ch = (char)(ch - 'A' + 'a');
          }
          out[k++] = mark ? '[' : ' ';
          out[k++] = ch;
          out[k++] = mark ? ']' : ' ';
        }
        k += (size_t)snprintf(out + k, sizeof(out) - k, " %d\n", rank + 1);
      }
    }
    k += (size_t)snprintf(out + k, sizeof(out) - k, "   ");
    for(col = 0; col < 8; col++)
      k += (size_t)snprintf(out + k, sizeof(out) - k, " %c%s", 'a' + (flip ? 7 - col : col),
                            col < 7 ? " " : "\n");
  }
  for(c = 0; c < 2; c++) {
    int who = flip ? c ^ 1 : c, nb = 0;
    k += (size_t)snprintf(out + k, sizeof(out) - k, "%s bar:", who == WHITE ? "White" : "Black");
    for(t = 0; t < 6; t++)
      for(i = 0; i < st->bar[who][t]; i++) {
        char ch = piece_letters[t];
        k += (size_t)snprintf(out + k, sizeof(out) - k, " %c",
                              who == BLACK ? ch - 'A' + 'a' : ch);
        nb++;
      }
    k += (size_t)snprintf(out + k, sizeof(out) - k, "%s   off: %d of %d\n", nb ? "" : " -",
                          st->off[who], army_of(st));
  }
  if(k + 1 > cap || k + 1 > sizeof(out))
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
}

/* The board as data (issue 17): the chess diagram, the last half marked,
 * each side's bar and borne-off count out of its army (the variants share
 * it: ref_cg_diagram). */
int ref_cg_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct ref_cg_state *st = cstate_of(s);
  ref_diag_grid(d, 8, 8, seat == 1);
  ref_diag_chess_board(d, st->pos.board, st->last_from, st->last_to);
  ref_diag_reserves(d, st->bar, st->off, army_of(st));
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* The invariant checker (issue 7 point 3): the board's redundant fields,
 * 16 pieces a side between board, bar and off, no more of a type than
 * started, no bar in Bodlaender's game, no king attacked in Racing Kings,
 * the e.p. targets, the history, and a result the position agrees with. */

bool ref_cg_ok(const struct ref_state *s)
{
  const struct ref_cg_state *st = cstate_of(s);
  const struct ref_chess_pos *p = &st->pos;
  const struct ref_cg_rules *r;
  uint64_t pieces[2][6] = {{0}}, occ[2] = {0, 0};
  struct ref_cg_state again;
  int sq, c, t, i;

  if(st->magic != REF_CG_MAGIC || st->variant >= REF_CG_VARIANTS || st->fifty > 1 ||
     st->balanced > 1 || st->over > 1 || st->half || st->first_ep || st->fresh ||
     st->rk_array > 1 || (st->rk_array && st->variant != REF_CG_RACING_KINGS))
    return false;
  r = rules_of(st);
  if(p->side > 1 || p->castle || p->ep != NO_SQ || p->fullmove < 1 || st->pend[0] != NO_SQ ||
     st->pend[1] != NO_SQ)
    return false;
  for(sq = 0; sq < 64; sq++) {
    int code = p->board[sq];
    if(code == REF_CH_EMPTY)
      continue;
    c = REF_CH_COLOR(code);
    t = REF_CH_TYPE(code);
    if(c > 1 || t < 0 || t > REF_CH_KING)
      return false;
    pieces[c][t] |= BIT(sq);
    occ[c] |= BIT(sq);
  }
  if(memcmp(pieces, p->pieces, sizeof(pieces)) || memcmp(occ, p->occ, sizeof(occ)) ||
     (occ[0] & occ[1]) || p->key != ref_chess_key_compute(p))
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
  if(r->position_ok && !r->position_ok(p))
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
  if(st->nhist < 1 || st->nhist > REF_CG_HIST_MAX || st->hist[st->nhist - 1] != cg_key(st))
    return false;
  memcpy(&again, st, sizeof(again));
  settle(&again);
  if(!st->over)
    return st->end == REF_END_NONE && st->winner == -1 && !again.over;
  if(st->winner < -1 || st->winner > 1)
    return false;
  switch(st->end) {
  case REF_END_BORNE_OFF:
  case REF_END_SAME_MOVE_NUMBER:
  case REF_END_NO_MOVES:
    return again.over && again.end == st->end && again.winner == st->winner;
  case REF_END_RESIGNATION:
    return st->winner >= 0;
  case REF_END_AGREEMENT:
    return st->winner == -1;
  case REF_END_THREEFOLD:
    return st->winner == -1 && repetitions(st) >= 3;
  case REF_END_FIFTY_MOVES:
    return st->winner == -1 && st->fifty && st->plies >= 100;
  default:
    return false;
  }
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

static const struct ref_game_ops chessgammon_ops = {
  plain_init,      /* init */
  plain_decode,    /* decode */
  ref_cg_encode,   /* encode */
  ref_cg_legal,    /* legal */
  ref_cg_parse,    /* parse */
  ref_cg_format,   /* format */
  ref_cg_apply,    /* apply */
  NULL,            /* roll: diceless */
  ref_cg_act,      /* act */
  ref_cg_status,   /* status */
  ref_cg_render,   /* render */
  NULL,            /* perft: the generic walk */
  ref_cg_ok,       /* ok */
  ref_cg_diagram,  /* diagram */
};

const struct ref_game_desc ref_game_chessgammon = {
  "chessgammon",                  /* name */
  "Diceless Chessgammon",         /* title */
  1,                              /* version: bump when any ruling changes */
  2,                              /* seats */
  {"White", "Black"},             /* seat_names */
  REF_GAME_DRAWS,                 /* flags */
  sizeof(struct ref_cg_state),    /* state_size */
  &chessgammon_ops,               /* ops */
};

const struct ref_cg_rules ref_cg_rules_plain = {
  REF_CG_PLAIN,           /* id */
  &ref_game_chessgammon,  /* desc */
  1,                      /* halves_per_turn */
  true,                   /* bar */
  NULL,                   /* position_ok */
  false,                  /* balanced_option */
};
