/*
 * chessgammon_4x8.c: Diceless 4x8 Chessgammon (game "chessgammon4x8"),
 * docs/rules-spec.md §5.3: four files, eight ranks, two pieces per square
 * at the start; stacks, blots and blocks as in backgammon.
 *
 * Rules = Diceless Chessgammon (chessgammon.c: no check, castling or
 * promotion; bar, bring-in, rank-9 bear-off, passes, CG-10, CG-11, CG-12)
 * with these changes:
 * - V4-2: any number of friendly pieces may share a square; option
 *   max_stack=N (2..16) limits stacks.
 * - V4-3: one enemy piece on a square (a blot) may be captured (hit); two
 *   or more (a block) may not be entered at all.
 * - Moving onto friendly pieces stacks. Sliders pass only empty squares;
 *   knights leap. A pawn's straight step lands on an empty or friendly
 *   square, its two-step needs an empty middle square, its diagonal
 *   capture an enemy blot. V4-12: e.p. only against a pawn that stands
 *   alone after its two-step.
 * - A move out of a stack names the piece; identical pieces are
 *   interchangeable, so one move per type, origin and destination.
 * - Appropriate squares: White R a1,d1; N a1,d1; B b1,c1; Q b1; K c1;
 *   P a2-d2; Black likewise on ranks 8 and 7.
 * - V4-7: bringing in onto an appropriate square that is empty or holds
 *   only friendly pieces, never onto enemy pieces.
 * - V4-8 (seed: "If you allow multiple pieces per square, discard this
 *   rule", said of both permissions): with a piece on the bar the only
 *   moves are bring-ins; if none is possible the side passes.
 * - Bearing off lands on a9-d9 only (CG-2 on four files).
 * - V4-13: no Doublemove combination (the seed: "probably a bad idea").
 * Record: FEN-like rows of four squares, a stack in parentheses
 * ("(RN)(QB)(KB)(RN)", letters in the order KQRBNP), then as in §5.1.
 *
 * The board lives on files a-d of the chess core's 8x8 bitboards: the
 * chess attack tables and sliding attacks (chess_int.h) serve here with
 * files e-h treated as a wall. The stacks need their own representation:
 * counts per square and type, one colour per square.
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
#define WHITE REF_CH_WHITE
#define BLACK REF_CH_BLACK
#define NO_SQ REF_CH_NO_SQ
#define EMPTY 2
#define FILES_ABCD 0x0F0F0F0F0F0F0F0Full
#define V4_MAGIC 0x43473439u /* "CG49": bump when the layout changes */
#define V4_MAX_HALVES 256

/* 4x8 squares 0..31 (a1 = 0, d1 = 3, a2 = 4, ...) and their chess index. */
#define SQ(f, r) ((r) * 4 + (f))
#define FILE_OF(s) ((s) & 3)
#define RANK_OF(s) ((s) >> 2)
#define TO64(s) (RANK_OF(s) * 8 + FILE_OF(s))
#define FROM64(b) (((b) >> 3) * 4 + ((b) & 7))

static const char piece_letters[] = "PNBRQK";
static const char stack_order[] = "KQRBNP";
static const uint8_t start_count[6] = {8, 2, 2, 2, 1, 1};

/* Appropriate squares (§5.3) as 4x8 bit masks, [colour][type]. */
static const uint32_t appropriate[2][6] = {
  {0x000000F0u, 0x00000009u, 0x00000006u, 0x00000009u, 0x00000002u, 0x00000004u},
  {0x0F000000u, 0x90000000u, 0x60000000u, 0x90000000u, 0x20000000u, 0x40000000u},
};

static const char start_position[] = "(rn)(qb)(kb)(rn)/(pp)(pp)(pp)(pp)/4/4/4/4/(PP)(PP)(PP)(PP)/"
                                     "(RN)(QB)(KB)(RN) w bar:- off:0/0 ep:- 1";

struct v4_state {
  uint32_t magic;
  uint8_t max_stack; /* V4-2: 0 unlimited */
  uint8_t fifty;     /* CG-12 */
  uint8_t side;
  uint8_t ep; /* V4-12 target (4x8 square) or NO_SQ */
  uint8_t last_from, last_to;
  uint8_t color[32]; /* WHITE, BLACK or EMPTY */
  uint8_t n[32][6];  /* pieces per square and type */
  uint8_t bar[2][6];
  uint8_t off[2];
  uint32_t fullmove;
  uint32_t plies;
  struct ref_ge e; /* result, repetition keys (CG-12); last: the generator needs no copy */
};

static bool v4_ok(const struct ref_state *s);

static struct v4_state *state_of(struct ref_state *s)
{
  return (struct v4_state *)(void *)s;
}

static const struct v4_state *cstate_of(const struct ref_state *s)
{
  return (const struct v4_state *)(const void *)s;
}

static int count_at(const struct v4_state *st, int sq)
{
  int t, k = 0;
  for(t = 0; t < 6; t++)
    k += st->n[sq][t];
  return k;
}

static uint64_t occ64(const struct v4_state *st)
{
  uint64_t b = ~FILES_ABCD;
  int sq;
  for(sq = 0; sq < 32; sq++)
    if(st->color[sq] != EMPTY)
      b |= BIT(TO64(sq));
  return b;
}

/* FNV-1a over what makes a position (CG-12 repetition). */
static uint64_t v4_key(const struct v4_state *st)
{
  uint64_t h = 0xcbf29ce484222325ull;
  const uint8_t *parts[4] = {st->color, &st->n[0][0], &st->bar[0][0], &st->side};
  size_t lens[4] = {sizeof(st->color), sizeof(st->n), sizeof(st->bar), 1};
  size_t i, k;
  for(i = 0; i < 4; i++)
    for(k = 0; k < lens[i]; k++) {
      h ^= parts[i][k];
      h *= 0x100000001b3ull;
    }
  h ^= st->ep;
  return h * 0x100000001b3ull;
}

/* ------------------------------------------------------------------------ */
/* Moves */

/* May a piece of colour us end its move on sq (V4-2, V4-3)? 1 plain, 2 a
 * hit, 0 no. */
static int landing(const struct v4_state *st, int us, int sq)
{
  int k;
  if(st->color[sq] == EMPTY)
    return 1;
  k = count_at(st, sq);
  if(st->color[sq] == us)
    return !st->max_stack || k < st->max_stack ? 1 : 0;
  return k == 1 ? 2 : 0;
}

/* Bear-off targets (CG-2, CG-3 on files a-d) of a piece of type t at sq. */
static int gen_off(const struct v4_state *st, int us, int t, int sq, uint32_t *out, int n)
{
  int f = FILE_OF(sq), r = RANK_OF(sq), dr = us == WHITE ? 1 : -1, last = us == WHITE ? 7 : 0;
  int beyond = last + dr, df, d;
  static const int two[4] = {-2, -1, 1, 2};

  switch(t) {
  case REF_CH_PAWN:
    if(r == last)
      out[n++] = ref_cg_half(REF_CG_K_OFF, sq, f, t);
    break;
  case REF_CH_KING:
    if(r == last)
      for(df = -1; df <= 1; df++)
        if(f + df >= 0 && f + df < 4)
          out[n++] = ref_cg_half(REF_CG_K_OFF, sq, f + df, t);
    break;
  case REF_CH_KNIGHT:
    for(d = 0; d < 4; d++) {
      int step = two[d] == -2 || two[d] == 2 ? 1 : 2;
      if(r + step * dr == beyond && f + two[d] >= 0 && f + two[d] < 4)
        out[n++] = ref_cg_half(REF_CG_K_OFF, sq, f + two[d], t);
    }
    break;
  default: /* sliders: straight (rook, queen) or diagonal (bishop, queen) */
    for(df = -1; df <= 1; df++) {
      int ff = f + df, rr = r + dr;
      if(t == REF_CH_ROOK ? df != 0 : t == REF_CH_BISHOP && df == 0)
        continue;
      while(rr != beyond && ff >= 0 && ff <= 3 && st->color[SQ(ff, rr)] == EMPTY) {
        ff += df;
        rr += dr;
      }
      if(rr == beyond && ff >= 0 && ff < 4)
        out[n++] = ref_cg_half(REF_CG_K_OFF, sq, ff, t);
    }
    break;
  }
  return n;
}

/* Every legal half of the side to move (V4-8 first). */
static int gen(const struct v4_state *st, uint32_t *out)
{
  int us = st->side, them = us ^ 1, n = 0, sq, t;
  uint64_t occ = occ64(st), b;

  if(st->off[us] == 16)
    return 0;
  if(ref_cg_bar_count(st->bar[us])) {
    /* V4-8, V4-7: bring-ins only, onto empty or own appropriate squares */
    for(t = 0; t < 6; t++) {
      uint32_t m = appropriate[us][t];
      if(!st->bar[us][t])
        continue;
      for(sq = 0; sq < 32; sq++)
        if((m & (1u << sq)) && st->color[sq] != them && landing(st, us, sq) == 1)
          out[n++] = ref_cg_half(REF_CG_K_DROP, 0, sq, t);
    }
    return n;
  }
  for(sq = 0; sq < 32; sq++) {
    int b64 = TO64(sq);
    if(st->color[sq] != us)
      continue;
    for(t = 0; t < 6; t++) {
      uint64_t targets = 0;
      if(!st->n[sq][t])
        continue;
      switch(t) {
      case REF_CH_KNIGHT:
        targets = ref_chess_knight_att[b64];
        break;
      case REF_CH_KING:
        targets = ref_chess_king_att[b64];
        break;
      case REF_CH_BISHOP:
        targets = ref_chess_bishop_att(b64, occ);
        break;
      case REF_CH_ROOK:
        targets = ref_chess_rook_att(b64, occ);
        break;
      case REF_CH_QUEEN:
        targets = ref_chess_queen_att(b64, occ);
        break;
      default: {
        int up = us == WHITE ? 4 : -4, one = sq + up, r = RANK_OF(sq);
        if(one >= 0 && one < 32 && st->color[one] != them && landing(st, us, one) == 1) {
          out[n++] = ref_cg_half(REF_CG_K_NORMAL, sq, one, t);
          /* two-step from the second rank over an empty square (rule 5) */
          if(r == (us == WHITE ? 1 : 6) && st->color[one] == EMPTY &&
             st->color[one + up] != them && landing(st, us, one + up) == 1)
            out[n++] = ref_cg_half(REF_CG_K_NORMAL, sq, one + up, t);
        }
        for(b = ref_chess_pawn_att[us][b64] & FILES_ABCD; b; b &= b - 1) {
          int to = FROM64(ref_chess_lsb(b));
          if(st->color[to] == them && landing(st, us, to) == 2)
            out[n++] = ref_cg_half(REF_CG_K_NORMAL, sq, to, t);
          else if(to == st->ep)
            out[n++] = ref_cg_half(REF_CG_K_EP, sq, to, t);
        }
        break;
      }
      }
      for(b = targets & FILES_ABCD; b; b &= b - 1) {
        int to = FROM64(ref_chess_lsb(b));
        if(landing(st, us, to))
          out[n++] = ref_cg_half(REF_CG_K_NORMAL, sq, to, t);
      }
      n = gen_off(st, us, t, sq, out, n);
    }
  }
  return n;
}

static bool half_legal(const struct v4_state *st, uint32_t h)
{
  uint32_t v[V4_MAX_HALVES];
  return ref_cg_has(v, gen(st, v), h);
}

static void put(struct v4_state *st, int c, int t, int sq)
{
  st->color[sq] = (uint8_t)c;
  st->n[sq][t]++;
}

static void take(struct v4_state *st, int t, int sq)
{
  st->n[sq][t]--;
  if(!count_at(st, sq))
    st->color[sq] = EMPTY;
}

static void play(struct v4_state *st, uint32_t h)
{
  int us = st->side, them = us ^ 1, kind = ref_cg_half_kind(h), t = ref_cg_half_type(h);
  int from = ref_cg_half_from(h), to = ref_cg_half_to(h);

  st->ep = NO_SQ;
  switch(kind) {
  case REF_CG_K_NORMAL:
  case REF_CG_K_EP: {
    int hit = kind == REF_CG_K_EP ? (us == WHITE ? to - 4 : to + 4) : to;
    bool capture = st->color[hit] == them;
    if(capture) {
      int ht;
      for(ht = 0; ht < 6 && !st->n[hit][ht]; ht++)
        ;
      take(st, ht, hit);
      st->bar[them][ht]++; /* V4-3: the blot is hit, to its owner's bar */
    }
    take(st, t, from);
    put(st, us, t, to);
    st->plies = capture || t == REF_CH_PAWN ? 0 : st->plies + 1;
    /* V4-12: e.p. only against a pawn alone on its square */
    if(t == REF_CH_PAWN && (from ^ to) == 8 && count_at(st, to) == 1) {
      int mid = (from + to) / 2;
      uint64_t att = ref_chess_pawn_att[us][TO64(mid)] & FILES_ABCD, b;
      for(b = att; b; b &= b - 1) {
        int sq = FROM64(ref_chess_lsb(b));
        if(st->color[sq] == them && st->n[sq][REF_CH_PAWN])
          st->ep = (uint8_t)mid;
      }
    }
    st->last_from = (uint8_t)from;
    st->last_to = (uint8_t)to;
    break;
  }
  case REF_CG_K_DROP:
    st->bar[us][t]--;
    put(st, us, t, to);
    st->plies = 0;
    st->last_from = NO_SQ;
    st->last_to = (uint8_t)to;
    break;
  case REF_CG_K_OFF:
    take(st, t, from);
    st->last_from = (uint8_t)from;
    st->last_to = NO_SQ;
    st->off[us]++;
    st->plies = 0;
    break;
  default:
    st->last_from = st->last_to = NO_SQ;
    break;
  }
}

/* Can the side to move (other false) or the other side move here? */
static bool can_move(const void *ctx, bool other)
{
  struct v4_state c;
  uint32_t v[V4_MAX_HALVES];

  memcpy(&c, ctx, offsetof(struct v4_state, e)); /* the generator reads no history */
  if(other) {
    c.side ^= 1;
    c.ep = NO_SQ;
  }
  return gen(&c, v) > 0;
}

/* The result after a turn, as in chessgammon.c: CG-10, CG-11 (game_end.c). */
static void settle(struct v4_state *st)
{
  bool done[2] = {st->off[WHITE] == 16, st->off[BLACK] == 16};
  ref_ge_chessgammon(&st->e, st->side ^ 1, done, can_move, st);
}

static void end_turn(struct v4_state *st)
{
  if(st->side == BLACK && st->fullmove < REF_CH_COUNTER_MAX)
    st->fullmove++; /* six digits, as read: every position decodes */
  st->side ^= 1;
  ref_ge_push(&st->e, v4_key(st), false);
  settle(st);
}

/* ------------------------------------------------------------------------ */
/* The position string */

static int v4_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct v4_state *st = cstate_of(s);
  char out[400], sq[3];
  size_t k = 0;
  int rank, file, i;

  for(rank = 7; rank >= 0; rank--) {
    int empty = 0;
    for(file = 0; file < 4; file++) {
      int x = SQ(file, rank), total = count_at(st, x);
      if(!total) {
        empty++;
        continue;
      }
      if(empty)
        out[k++] = (char)('0' + empty);
      empty = 0;
      if(total > 1)
        out[k++] = '(';
      for(i = 0; stack_order[i]; i++) {
        int j, tt = (int)(strchr(piece_letters, stack_order[i]) - piece_letters);
        for(j = 0; j < st->n[x][tt]; j++)
          out[k++] = st->color[x] == BLACK ? (char)(stack_order[i] - 'A' + 'a') : stack_order[i];
      }
      if(total > 1)
        out[k++] = ')';
    }
    if(empty)
      out[k++] = (char)('0' + empty);
    if(rank)
      out[k++] = '/';
  }
  if(st->ep != NO_SQ)
    ref_cn_square(FILE_OF(st->ep), RANK_OF(st->ep) + 1, sq);
  k += ref_cg_write_record(out + k, sizeof(out) - k, st->side, st->bar, st->off,
                           st->ep != NO_SQ ? sq : "-", st->fullmove, NULL, NULL);
  return ref_text_copy(out, k, buf, cap);
}

/* Reads one square's content at *p: a letter or a parenthesised stack of
 * one colour. Returns false on a malformed or mixed stack. */
static bool read_stack(struct v4_state *st, const char **p, int sq)
{
  const char *s = *p;
  bool paren = *s == '(';
  int c = -1, k = 0;

  if(paren)
    s++;
  do {
    int t = ref_cg_type_of_letter(*s), cc = *s >= 'a' ? BLACK : WHITE;
    /* a count never wraps: no side has 16 of a type */
    if(t < 0 || (c >= 0 && cc != c) || st->n[sq][t] >= 16)
      return false;
    c = cc;
    put(st, c, t, sq);
    s++;
    k++;
  } while(paren && *s && *s != ')');
  if(paren) {
    if(*s != ')' || k < 1)
      return false;
    s++;
  }
  *p = s;
  return true;
}

static int read_position(struct v4_state *st, const char *text, const char **reason)
{
  struct ref_cg_record rec;
  int rank = 7, file = 0, c, t, sq;
  const char *q;

  *reason = "cg-position-syntax";
  /* CGA-3: no armies on the 4x8 board */
  if(ref_cg_read_record(text, 400, NULL, &rec) || rec.has_armies)
    return REF_EINVAL;
  memset(st->color, EMPTY, sizeof(st->color));
  for(q = rec.board; *q;) {
    if(*q == '/') {
      if(file != 4 || rank == 0)
        return REF_EINVAL;
      rank--;
      file = 0;
      q++;
    }
    else if(*q >= '1' && *q <= '4') {
      file += *q - '0';
      q++;
      if(file > 4)
        return REF_EINVAL;
    }
    else {
      if(file > 3 || !read_stack(st, &q, SQ(file, rank)))
        return REF_EINVAL;
      file++;
    }
  }
  if(rank != 0 || file != 4)
    return REF_EINVAL;
  st->side = (uint8_t)rec.side;
  memcpy(st->bar, rec.bar, sizeof(st->bar));
  if(rec.ep && strcmp(rec.ep, "-")) {
    if(strlen(rec.ep) != 2 || rec.ep[0] < 'a' || rec.ep[0] > 'd' || rec.ep[1] < '1' ||
       rec.ep[1] > '8')
      return REF_EINVAL;
    st->ep = (uint8_t)SQ(rec.ep[0] - 'a', rec.ep[1] - '1');
  }
  if(rec.fullmove)
    st->fullmove = rec.fullmove;
  for(c = 0; c < 2; c++) {
    int total = 0;
    for(t = 0; t < 6; t++) {
      int k = st->bar[c][t];
      for(sq = 0; sq < 32; sq++)
        if(st->color[sq] == c)
          k += st->n[sq][t];
      if(k > start_count[t]) {
        *reason = "cg-too-many-pieces";
        return REF_EINVAL;
      }
      total += k;
    }
    st->off[c] = (uint8_t)(16 - total);
  }
  if((rec.offw >= 0 && rec.offw != st->off[WHITE]) ||
     (rec.offb >= 0 && rec.offb != st->off[BLACK])) {
    *reason = "cg-off-mismatch";
    return REF_EINVAL;
  }
  for(sq = 0; sq < 4; sq++)
    if((st->color[sq] == WHITE && st->n[sq][REF_CH_PAWN]) ||
       (st->color[28 + sq] == BLACK && st->n[28 + sq][REF_CH_PAWN])) {
      *reason = "cg-pawn-on-first-rank";
      return REF_EINVAL;
    }
  for(sq = 0; sq < 32 && st->max_stack; sq++)
    if(count_at(st, sq) > st->max_stack) {
      *reason = "v4-stack-too-high";
      return REF_EINVAL;
    }
  if(st->ep != NO_SQ) {
    int mover = st->side ^ 1, e = st->ep, pawn = mover == WHITE ? e + 4 : e - 4;
    if(RANK_OF(e) != (mover == WHITE ? 2 : 5) || st->color[e] != EMPTY ||
       st->color[pawn] != mover || count_at(st, pawn) != 1 || !st->n[pawn][REF_CH_PAWN]) {
      *reason = "cg-bad-ep";
      return REF_EINVAL;
    }
  }
  *reason = NULL;
  return REF_OK;
}

static int state_from(struct v4_state *st, const char *text, int max_stack, int fifty,
                      struct ref_err *err)
{
  struct v4_state fresh;
  const char *reason = NULL;
  int rc;

  memset(&fresh, 0, sizeof(fresh));
  fresh.magic = V4_MAGIC;
  fresh.max_stack = (uint8_t)max_stack;
  fresh.fifty = (uint8_t)fifty;
  fresh.ep = fresh.last_from = fresh.last_to = NO_SQ;
  fresh.fullmove = 1;
  rc = read_position(&fresh, text, &reason);
  if(rc == REF_OK) {
    ref_ge_start(&fresh.e, v4_key(&fresh));
    settle(&fresh);
    *st = fresh;
  }
  else {
    ref_err_set(err, rc, reason, NULL);
  }
  return rc;
}

/* ------------------------------------------------------------------------ */
/* Notation */

static void describe(const void *ctx, uint32_t h, struct ref_cn_move *d)
{
  const struct v4_state *st = ctx;
  int kind = ref_cg_half_kind(h), from = ref_cg_half_from(h), to = ref_cg_half_to(h);

  memset(d, 0, sizeof(*d));
  d->promo = -1;
  d->piece = (int8_t)ref_cg_half_type(h); /* stacks: the half names its piece */
  d->ff = (int8_t)FILE_OF(from);
  d->fr = (int8_t)(RANK_OF(from) + 1);
  d->tf = (int8_t)FILE_OF(to);
  d->tr = (int8_t)(RANK_OF(to) + 1);
  if(kind == REF_CG_K_DROP) {
    d->kind = REF_CN_DROP;
    d->ff = -1;
    d->fr = 0;
  }
  else if(kind == REF_CG_K_OFF) {
    d->kind = REF_CN_OFF;
    d->tf = (int8_t)to; /* a9-d9 */
    d->tr = 9;
  }
  else if(kind == REF_CG_K_PASS) {
    d->kind = REF_CN_PASS;
  }
  else {
    d->capture = kind == REF_CG_K_EP || st->color[to] == (st->side ^ 1);
  }
}

/* Reading a half (§1.1-1.4, §5.1, §5.3): chess_notation.c reads and
 * matches; here are the legal halves as it sees them and the rules'
 * reasons for a readable half that matches none. */

static void half_text(const void *ctx, uint32_t h, char *buf, size_t cap)
{
  struct ref_cn_move d;
  describe(ctx, h, &d);
  ref_cn_write_betza(&d, false, true, buf, cap);
}

/* Readable, not legal: the most specific reason. */
static int explain(const struct ref_cn_game *g, const struct ref_cn_pattern *pats, int npat,
                   const char *in, struct ref_err *err)
{
  const struct v4_state *st = g->ctx;
  int k, us = st->side;
  char sq[3];

  for(k = 0; k < npat; k++) {
    const struct ref_cn_pattern *pt = &pats[k];
    if(pt->tf > 3 || pt->ff > 3)
      return ref_cn_refuse(g, REF_EILLEGAL, "v4-no-such-square", NULL, pt, err);
    if(ref_cg_bar_count(st->bar[us]) && !pt->drop)
      return ref_cn_refuse(g, REF_EILLEGAL, "v4-bar-first", NULL, pt, err); /* V4-8 */
    if(pt->drop && pt->piece >= 0 && pt->tr >= 1 && pt->tr <= 8) {
      int to = SQ(pt->tf, pt->tr - 1);
      ref_cn_square(FILE_OF(to), RANK_OF(to) + 1, sq);
      if(!st->bar[us][pt->piece])
        return ref_cn_refuse(g, REF_EILLEGAL, "cg-not-on-bar", NULL, pt, err);
      if(!(appropriate[us][pt->piece] & (1u << to)))
        return ref_cn_refuse(g, REF_EILLEGAL, "cg-not-appropriate", sq, pt, err);
      if(st->color[to] == (us ^ 1))
        return ref_cn_refuse(g, REF_EILLEGAL, "v4-enemy-there", sq, pt, err); /* V4-7 */
    }
    if(pt->tr >= 1 && pt->tr <= 8 && !pt->drop) {
      int to = SQ(pt->tf, pt->tr - 1);
      ref_cn_square(FILE_OF(to), RANK_OF(to) + 1, sq);
      if(st->color[to] == (us ^ 1) && count_at(st, to) > 1)
        return ref_cn_refuse(g, REF_EILLEGAL, "v4-blocked", sq, pt, err); /* V4-3 */
      if(st->color[to] == us && st->max_stack && count_at(st, to) >= st->max_stack)
        return ref_cn_refuse(g, REF_EILLEGAL, "v4-stack-full", sq, pt, err); /* V4-2 */
    }
    if(pt->ff >= 0 && pt->fr > 0) {
      int from = SQ(pt->ff, pt->fr - 1);
      ref_cn_square(FILE_OF(from), RANK_OF(from) + 1, sq);
      if(st->color[from] == EMPTY)
        return ref_cn_refuse(g, REF_EILLEGAL, "no-piece-there", sq, pt, err);
      if(st->color[from] != us)
        return ref_cn_refuse(g, REF_EILLEGAL, "not-your-piece", sq, pt, err);
    }
    if(pt->tr == 9)
      return ref_cn_refuse(g, REF_EILLEGAL, "cg-cannot-bear-off", NULL, pt, err);
  }
  return ref_cn_refuse(g, REF_EILLEGAL, "no-such-move", in, &pats[0], err);
}

/* V4-13: one move a turn; a letterless move out of a stack is the pawn's.
 * Files e-h are read so that a move there is told they do not exist. */
static const struct ref_cn_dialect v4_dialect = {8, 8, true, true, true, "cg-one-move-per-turn", 0};
static const struct ref_cn_rules v4_reader = {&v4_dialect, describe, half_text, explain};

static int v4_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  const struct v4_state *st = cstate_of(s);
  uint32_t v[V4_MAX_HALVES];
  int n = gen(st, v);

  if(!n) /* rule 8: the pass is the one move */
    v[n++] = ref_cg_half(REF_CG_K_PASS, 0, 0, 0);
  return ref_cn_parse(&v4_reader, st, st->e.over, v, n, text, out, err);
}

static bool turn_of(const struct v4_state *st, const struct ref_move *m)
{
  uint32_t v[V4_MAX_HALVES];
  int i;
  for(i = 1; i < REF_MOVE_WORDS; i++)
    if(m->w[i])
      return false;
  if(ref_cg_half_kind(m->w[0]) == REF_CG_K_PASS)
    return m->w[0] == ref_cg_half(REF_CG_K_PASS, 0, 0, 0) && !gen(st, v);
  return half_legal(st, m->w[0]);
}

/* ------------------------------------------------------------------------ */
/* Ops */

/* Options (game_text.c): fen=POSITION, max_stack=2..16|unlimited (V4-2),
 * fifty_moves=on|off (CG-12); V4-13: balanced_start and the like
 * (Doublemove) are not options here. */
static int v4_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct ref_opt o;
  char fen[400], key[32], val[400];
  const char *b = options;
  int max_stack = 0, fifty = 0;
  bool seen_fen = false, seen_max = false, seen_fifty = false;

  snprintf(fen, sizeof(fen), "%s", start_position);
  while(ref_opt_next(&b, &o)) {
    ref_opt_key(&o, key, sizeof(key));
    snprintf(val, sizeof(val), "%.*s", (int)(o.ve - o.vb), o.vb);
    if(o.kb == o.ke && !o.has_value) {
      /* an empty segment */
    }
    else if(!strcmp(key, "fen") && o.has_value && !seen_fen) {
      seen_fen = true;
      snprintf(fen, sizeof(fen), "%s", val);
    }
    else if(!strcmp(key, "max_stack") && o.has_value && !seen_max) {
      seen_max = true;
      if(!strcmp(val, "unlimited"))
        max_stack = 0;
      else if(strspn(val, "0123456789") == strlen(val) && strlen(val) <= 2 && atoi(val) >= 2 &&
              atoi(val) <= 16)
        max_stack = atoi(val);
      else
        goto bad;
    }
    else if(!strcmp(key, "fifty_moves") && o.has_value && !seen_fifty &&
            (!strcmp(val, "on") || !strcmp(val, "off"))) {
      seen_fifty = true;
      fifty = !strcmp(val, "on");
    }
    else if(!strcmp(key, "fifty_moves") || !strcmp(key, "fen") || !strcmp(key, "max_stack")) {
      goto bad;
    }
    else {
      ref_err_set(err, REF_EINVAL, "cg-unknown-option", key);
      return REF_EINVAL;
    }
  }
  return state_from(state_of(s), fen, max_stack, fifty, err);
bad:
  ref_err_set(err, REF_EINVAL, "cg-bad-option", key);
  return REF_EINVAL;
}

static int v4_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  const struct v4_state *old = cstate_of(s);
  bool ours = old->magic == V4_MAGIC;
  return state_from(state_of(s), text, ours ? old->max_stack : 0, ours ? old->fifty : 0, err);
}

/* Rule 8: the pass when no half is legal; none once over (G-1). */
static int v4_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct v4_state *st = cstate_of(s);
  uint32_t v[V4_MAX_HALVES];
  return ref_ge_moves(&st->e, v, gen(st, v), ref_cg_half(REF_CG_K_PASS, 0, 0, 0), out);
}

/* Betza's long form (§5.1, chess_notation.c); the computer form names the
 * piece of every move (a stack may hold several). */
static int v4_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  struct ref_cn_move d;
  if(!turn_of(cstate_of(s), m))
    return REF_EINVAL;
  describe(cstate_of(s), m->w[0], &d);
  return ref_cn_write_betza(&d, style == REF_NOTATION_COMPUTER, true, buf, cap);
}

static int v4_apply(struct ref_state *s, const struct ref_move *m)
{
  struct v4_state *st = state_of(s);
  if(st->e.over)
    return REF_EPHASE;
  if(!turn_of(st, m))
    return REF_EILLEGAL;
  play(st, m->w[0]);
  end_turn(st);
  assert(v4_ok(s));
  return REF_OK;
}

/* CG-12, as in chessgammon.c: the fifty-move claim counts 100 turns. */
static int v4_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct v4_state *st = state_of(s);
  enum ref_end claim = ref_ge_cg_claim(&st->e, st->fifty, st->plies);
  int rc;

  (void)arg;
  rc = ref_ge_act(&st->e, seat, action, claim, "draw-not-claimable", err);
  assert(rc || v4_ok(s));
  return rc;
}

static void v4_status(const struct ref_state *s, struct ref_status *out)
{
  const struct v4_state *st = cstate_of(s);
  ref_ge_status(&st->e, st->side, (int)st->fullmove, false,
                ref_ge_cg_claim(&st->e, st->fifty, st->plies) != REF_END_NONE, out);
}

/*
 * The board from `seat`'s side: each square eight columns wide, showing its
 * stack (up to five letters, else two and "+N"), the last move's squares
 * in brackets; then both bars and the borne-off counts. 40 columns.
 */
static int v4_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct v4_state *st = cstate_of(s);
  char out[1200];
  size_t k = 0;
  int row, col, i;
  bool flip = seat == 1;

  k += (size_t)snprintf(out + k, sizeof(out) - k, "   ");
  for(col = 0; col < 4; col++)
    k += (size_t)snprintf(out + k, sizeof(out) - k, " %c      ", 'a' + (flip ? 3 - col : col));
  out[k++] = '\n';
  for(row = 0; row < 8; row++) {
    int rank = flip ? row : 7 - row;
    k += (size_t)snprintf(out + k, sizeof(out) - k, " %d ", rank + 1);
    for(col = 0; col < 4; col++) {
      int file = flip ? 3 - col : col, sq = SQ(file, rank), total = count_at(st, sq), shown = 0;
      int room = total > 5 ? 2 : 5;
      bool mark = sq == st->last_from || sq == st->last_to;
      char cell[9];
      memset(cell, ' ', sizeof(cell));
      if(!total)
        cell[1] = '.';
      for(i = 0; stack_order[i] && shown < room; i++) {
        int tt = (int)(strchr(piece_letters, stack_order[i]) - piece_letters), j;
        for(j = 0; j < st->n[sq][tt] && shown < room; j++)
          cell[1 + shown++] =
            st->color[sq] == BLACK ? (char)(stack_order[i] - 'A' + 'a') : stack_order[i];
      }
      if(total > 5) {
        /* at most 16 pieces a square: "+14" fits columns 3-5 */
        int more = total - 2;
        cell[3] = '+';
        cell[4] = (char)(more >= 10 ? '0' + more / 10 : '0' + more);
        if(more >= 10)
          cell[5] = (char)('0' + more % 10);
      }
      if(mark) {
        cell[0] = '[';
        cell[6] = ']';
      }
      memcpy(out + k, cell, 8);
      k += 8;
    }
    k += (size_t)snprintf(out + k, sizeof(out) - k, " %d\n", rank + 1);
  }
  k += ref_cg_render_bars(out + k, sizeof(out) - k, st->bar, st->off, 16, seat, NULL);
  return k + 1 > sizeof(out) ? REF_EINVAL : ref_text_copy(out, k, buf, cap);
}

/* The board as data: 4 files x 8 ranks, each square's stack in
 * the order render lists it, the last move marked, bars and borne-off. */
static int v4_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct v4_state *st = cstate_of(s);
  int file, rank, i, j;
  ref_diag_grid(d, 4, 8, seat == 1);
  for(rank = 0; rank < 8; rank++)
    for(file = 0; file < 4; file++) {
      int sq = SQ(file, rank);
      struct ref_diag_cell *cell = &d->cell[rank][file];
      for(i = 0; stack_order[i]; i++) {
        int tt = (int)(strchr(piece_letters, stack_order[i]) - piece_letters);
        for(j = 0; j < st->n[sq][tt]; j++)
          ref_diag_put(&cell->s, ref_diag_kind(stack_order[i]), st->color[sq] == BLACK);
      }
      cell->s.mark = (uint8_t)((sq == st->last_from ? REF_DIAG_FROM : 0) |
                               (sq == st->last_to ? REF_DIAG_TO : 0));
    }
  ref_diag_reserves(d, st->bar, st->off, 16);
  return REF_OK;
}

/* The invariant checker: colours and counts agree square by square, 16
 * pieces a side between board, bar and off (stacks included), no more of a
 * type than started, the stack limit, no pawn on its own first rank, the
 * e.p. target, the history, and a result the position agrees with. */
static bool v4_ok(const struct ref_state *s)
{
  const struct v4_state *st = cstate_of(s);
  struct v4_state again;
  int sq, c, t;

  if(!ref_ge_hist_ok(&st->e, v4_key(st)))
    return false;
  if(st->magic != V4_MAGIC || st->side > 1 || st->fifty > 1 ||
     st->max_stack == 1 || st->max_stack > 16 || st->fullmove < 1)
    return false;
  for(sq = 0; sq < 32; sq++) {
    int total = count_at(st, sq);
    if(st->color[sq] > EMPTY || (total == 0) != (st->color[sq] == EMPTY))
      return false;
    if(st->max_stack && total > st->max_stack)
      return false;
  }
  for(c = 0; c < 2; c++) {
    int all = st->off[c];
    for(t = 0; t < 6; t++) {
      int k = st->bar[c][t];
      for(sq = 0; sq < 32; sq++)
        if(st->color[sq] == c)
          k += st->n[sq][t];
      if(k > start_count[t])
        return false;
      all += k;
    }
    if(all != 16)
      return false;
  }
  for(sq = 0; sq < 4; sq++)
    if((st->color[sq] == WHITE && st->n[sq][REF_CH_PAWN]) ||
       (st->color[28 + sq] == BLACK && st->n[28 + sq][REF_CH_PAWN]))
      return false;
  if(st->ep != NO_SQ) {
    int mover = st->side ^ 1, e = st->ep, pawn = mover == WHITE ? e + 4 : e - 4;
    if(e > 31 || RANK_OF(e) != (mover == WHITE ? 2 : 5) || st->color[e] != EMPTY ||
       st->color[pawn] != mover || count_at(st, pawn) != 1 || !st->n[pawn][REF_CH_PAWN])
      return false;
  }
  if((st->last_from > 31 && st->last_from != NO_SQ) || (st->last_to > 31 && st->last_to != NO_SQ))
    return false;
  /* The result the position says, on a copy; claimed draws that still
   * hold (CG-12). */
  again = *st;
  settle(&again);
  return ref_ge_ok(&st->e, &again.e, ref_ge_repetitions(&st->e) >= 3,
                   st->fifty && st->plies >= 100);
}

static const struct ref_game_ops chessgammon_4x8_ops = {
  v4_init,    /* init */
  v4_decode,  /* decode */
  v4_encode,  /* encode */
  v4_legal,   /* legal */
  v4_parse,   /* parse */
  v4_format,  /* format */
  v4_apply,   /* apply */
  NULL,       /* roll: diceless */
  v4_act,     /* act */
  v4_status,  /* status */
  v4_render,  /* render */
  NULL,       /* perft: the generic walk */
  v4_ok,      /* ok */
  v4_diagram, /* diagram */
};

const struct ref_game_desc ref_game_chessgammon_4x8 = {
  "chessgammon4x8",               /* name */
  "Diceless 4x8 Chessgammon",     /* title */
  1,                              /* version: bump when any ruling changes */
  2,                              /* seats */
  {"White", "Black"},             /* seat_names */
  REF_GAME_DRAWS,                 /* flags */
  sizeof(struct v4_state),        /* state_size */
  &chessgammon_4x8_ops,           /* ops */
};
