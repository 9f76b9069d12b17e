/*
 * chess_board.c: the 8x8 bitboards of chess_int.h, which chess.c and its
 * 8x8 variants (Chessgammon, Backgammon Chess) stand on: compile-time
 * attack tables, the board primitives, the legal generator (pins, check
 * evasions, CH-1 castling, bulk counting for perft), the pseudo-legal
 * generator and make, and SAN/UCI writing (PGN standard §8.2.3).
 */
#include "chess_int.h"

#include <stdbool.h>

#include <stdio.h>
#include <string.h>

#define CH_INLINE static inline __attribute__((always_inline))

/* ------------------------------------------------------------------------ */
/* Const tables, computed by the compiler: the core has no initialisation
 * step and no global that changes (rules.h). */

#define BIT(s) (1ull << (s))
#define FILE_A_BB 0x0101010101010101ull
#define FILE_H_BB 0x8080808080808080ull
#define RANK_1_BB 0x00000000000000FFull
#define RANK_3_BB 0x0000000000FF0000ull
#define RANK_6_BB 0x0000FF0000000000ull
#define RANK_8_BB 0xFF00000000000000ull
#define NOT_A (~FILE_A_BB)
#define NOT_AB (~(FILE_A_BB | (FILE_A_BB << 1)))
#define NOT_H (~FILE_H_BB)
#define NOT_GH (~(FILE_H_BB | (FILE_H_BB >> 1)))

#define T8(M, b)                                                                                   \
  M((b) + 0), M((b) + 1), M((b) + 2), M((b) + 3), M((b) + 4), M((b) + 5), M((b) + 6), M((b) + 7)
#define T64(M, b)                                                                                  \
  T8(M, (b) + 0), T8(M, (b) + 8), T8(M, (b) + 16), T8(M, (b) + 24), T8(M, (b) + 32),             \
    T8(M, (b) + 40), T8(M, (b) + 48), T8(M, (b) + 56)

#define KNIGHT_ATT(s)                                                                              \
  ((((BIT(s) << 17) | (BIT(s) >> 15)) & NOT_A) | (((BIT(s) << 15) | (BIT(s) >> 17)) & NOT_H) |   \
   (((BIT(s) << 10) | (BIT(s) >> 6)) & NOT_AB) | (((BIT(s) << 6) | (BIT(s) >> 10)) & NOT_GH))
#define KING_ATT(s)                                                                                \
  ((BIT(s) << 8) | (BIT(s) >> 8) | (((BIT(s) << 1) | (BIT(s) << 9) | (BIT(s) >> 7)) & NOT_A) |    \
   (((BIT(s) >> 1) | (BIT(s) >> 9) | (BIT(s) << 7)) & NOT_H))
#define WPAWN_ATT(s) (((BIT(s) << 7) & NOT_H) | ((BIT(s) << 9) & NOT_A))
#define BPAWN_ATT(s) (((BIT(s) >> 9) & NOT_H) | ((BIT(s) >> 7) & NOT_A))

const uint64_t ref_chess_knight_att[64] = {T64(KNIGHT_ATT, 0)};
const uint64_t ref_chess_king_att[64] = {T64(KING_ATT, 0)};
const uint64_t ref_chess_pawn_att[2][64] = {{T64(WPAWN_ATT, 0)}, {T64(BPAWN_ATT, 0)}};

#define SQ_FILE(s) ((unsigned)(s) & 7u)
#define SQ_RANK(s) ((unsigned)(s) >> 3)
#define BELOW(s) (BIT(s) - 1)
#define ABOVE(s) (~((BIT(s) << 1) - 1))
#define FILE_MASK(s) (FILE_A_BB << SQ_FILE(s))
#define RANK_MASK(s) (0xFFull << (SQ_RANK(s) * 8))
#define DIAG_MAIN 0x8040201008040201ull
#define ANTI_MAIN 0x0102040810204080ull
/* Shift counts are masked with 7 so that the arm a ternary does not take
 * still has a valid (non-negative) count. */
#define DIAG_MASK(s)                                                                               \
  (SQ_FILE(s) >= SQ_RANK(s) ? DIAG_MAIN >> (8 * ((SQ_FILE(s) - SQ_RANK(s)) & 7))                    \
                            : DIAG_MAIN << (8 * ((SQ_RANK(s) - SQ_FILE(s)) & 7)))
#define ANTI_MASK(s)                                                                               \
  (SQ_FILE(s) + SQ_RANK(s) >= 7 ? ANTI_MAIN << (8 * ((SQ_FILE(s) + SQ_RANK(s) - 7) & 7))            \
                                : ANTI_MAIN >> (8 * ((7 - SQ_FILE(s) - SQ_RANK(s)) & 7)))
#define LINE_ENTRY(s)                                                                              \
  {                                                                                                \
    {FILE_MASK(s) & BELOW(s), RANK_MASK(s) & BELOW(s), DIAG_MASK(s) & BELOW(s),                    \
     ANTI_MASK(s) & BELOW(s)},                                                                     \
    {                                                                                              \
      FILE_MASK(s) & ABOVE(s), RANK_MASK(s) & ABOVE(s), DIAG_MASK(s) & ABOVE(s),                   \
        ANTI_MASK(s) & ABOVE(s)                                                                    \
    }                                                                                              \
  }

const struct ref_chess_line ref_chess_lines[64] = {T64(LINE_ENTRY, 0)};

/* Zobrist keys: SplitMix64 of the index. Any fixed distinct pseudo-random
 * numbers do; deriving them keeps 781 magic constants out of the source and
 * lets ref_chess_key_compute be checked against make's updates. */
#define GOLDEN 0x9E3779B97F4A7C15ull
#define SM_A(i) (((uint64_t)(i) + 1) * GOLDEN)
#define SM_B(z) (((z) ^ ((z) >> 30)) * 0xBF58476D1CE4E5B9ull)
#define SM_C(z) (((z) ^ ((z) >> 27)) * 0x94D049BB133111EBull)
#define SM_D(z) ((z) ^ ((z) >> 31))
#define ZOB(i) SM_D(SM_C(SM_B(SM_A(i))))

const uint64_t ref_chess_zobrist_piece[2][6][64] = {
  {{T64(ZOB, 0)}, {T64(ZOB, 64)}, {T64(ZOB, 128)}, {T64(ZOB, 192)}, {T64(ZOB, 256)},
   {T64(ZOB, 320)}},
  {{T64(ZOB, 384)}, {T64(ZOB, 448)}, {T64(ZOB, 512)}, {T64(ZOB, 576)}, {T64(ZOB, 640)},
   {T64(ZOB, 704)}},
};
const uint64_t ref_chess_zobrist_ep[8] = {T8(ZOB, 768)};
#define CASTLE_KEY(r)                                                                              \
  (((r) & 1 ? ZOB(776) : 0) ^ ((r) & 2 ? ZOB(777) : 0) ^ ((r) & 4 ? ZOB(778) : 0) ^               \
   ((r) & 8 ? ZOB(779) : 0))
const uint64_t ref_chess_zobrist_castle[16] = {T8(CASTLE_KEY, 0), T8(CASTLE_KEY, 8)};
const uint64_t ref_chess_zobrist_side = ZOB(780);

/* Rights that survive a move touching a square: moving or capturing on a
 * king's or rook's home square ends the rights that piece carries. */
#define CASTLE_KEEP(s)                                                                             \
  ((s) == 0    ? 15 & ~REF_CH_WQ                                                                   \
   : (s) == 4  ? 15 & ~(REF_CH_WK | REF_CH_WQ)                                                     \
   : (s) == 7  ? 15 & ~REF_CH_WK                                                                   \
   : (s) == 56 ? 15 & ~REF_CH_BQ                                                                   \
   : (s) == 60 ? 15 & ~(REF_CH_BK | REF_CH_BQ)                                                     \
   : (s) == 63 ? 15 & ~REF_CH_BK                                                                   \
               : 15)
static const uint8_t castle_keep[64] = {T64(CASTLE_KEEP, 0)};

#define SQ_A1 0
#define SQ_B1 1
#define SQ_C1 2
#define SQ_D1 3
#define SQ_E1 4
#define SQ_F1 5
#define SQ_G1 6
#define SQ_H1 7
#define SQ_A8 56
#define SQ_E8 60
#define SQ_H8 63

static const char piece_letters[] = "PNBRQK";

/* Material a game could have reached (chess_int.h): at most 8 pawns, and
 * every piece beyond the starting set must be a promoted pawn. */
bool ref_chess_dead_material(uint64_t heavy, uint64_t knights, uint64_t bishops)
{
  const uint64_t dark = 0xAA55AA55AA55AA55ull;

  if(heavy)
    return false;
  if(ref_chess_popcount(knights | bishops) <= 1)
    return true;
  return !knights && (!(bishops & dark) || !(bishops & ~dark));
}

bool ref_chess_material_possible(const struct ref_chess_pos *p, int c)
{
  const uint64_t *pc = p->pieces[c];
  int pawns = ref_chess_popcount(pc[REF_CH_PAWN]), extra = 0;
  int q = ref_chess_popcount(pc[REF_CH_QUEEN]), r = ref_chess_popcount(pc[REF_CH_ROOK]);
  int bsh = ref_chess_popcount(pc[REF_CH_BISHOP]), n = ref_chess_popcount(pc[REF_CH_KNIGHT]);

  extra += q > 1 ? q - 1 : 0;
  extra += r > 2 ? r - 2 : 0;
  extra += bsh > 2 ? bsh - 2 : 0;
  extra += n > 2 ? n - 2 : 0;
  return pawns <= 8 && extra <= 8 - pawns;
}

/* ------------------------------------------------------------------------ */
/* Board primitives */

CH_INLINE void put_piece(struct ref_chess_pos *p, int color, int type, int sq)
{
  uint64_t b = BIT(sq);
  p->pieces[color][type] |= b;
  p->occ[color] |= b;
  p->board[sq] = REF_CH_PIECE(color, type);
  p->key ^= ref_chess_zobrist_piece[color][type][sq];
}

CH_INLINE void remove_piece(struct ref_chess_pos *p, int sq)
{
  int code = p->board[sq], color = REF_CH_COLOR(code), type = REF_CH_TYPE(code);
  uint64_t b = BIT(sq);
  p->pieces[color][type] &= ~b;
  p->occ[color] &= ~b;
  p->board[sq] = REF_CH_EMPTY;
  p->key ^= ref_chess_zobrist_piece[color][type][sq];
}

CH_INLINE void move_piece(struct ref_chess_pos *p, int from, int to)
{
  int code = p->board[from], color = REF_CH_COLOR(code), type = REF_CH_TYPE(code);
  uint64_t b = BIT(from) | BIT(to);
  p->pieces[color][type] ^= b;
  p->occ[color] ^= b;
  p->board[to] = (uint8_t)code;
  p->board[from] = REF_CH_EMPTY;
  p->key ^= ref_chess_zobrist_piece[color][type][from] ^ ref_chess_zobrist_piece[color][type][to];
}

void ref_chess_put(struct ref_chess_pos *p, int color, int type, int sq)
{
  if(p->board[sq] != REF_CH_EMPTY)
    remove_piece(p, sq);
  put_piece(p, color, type, sq);
}

void ref_chess_remove(struct ref_chess_pos *p, int sq)
{
  if(p->board[sq] != REF_CH_EMPTY)
    remove_piece(p, sq);
}

void ref_chess_clear(struct ref_chess_pos *p)
{
  memset(p, 0, sizeof(*p));
  p->ep = REF_CH_NO_SQ;
  p->fullmove = 1;
}

bool ref_chess_tables_ok(const struct ref_chess_pos *p)
{
  uint64_t pieces[2][6] = {{0}}, occ[2] = {0, 0};
  int sq, c, t;

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
  return !memcmp(pieces, p->pieces, sizeof(pieces)) && !memcmp(occ, p->occ, sizeof(occ));
}

uint64_t ref_chess_key_compute(const struct ref_chess_pos *p)
{
  uint64_t key = 0;
  int sq;

  for(sq = 0; sq < 64; sq++) {
    int code = p->board[sq];
    if(code != REF_CH_EMPTY)
      key ^= ref_chess_zobrist_piece[REF_CH_COLOR(code)][REF_CH_TYPE(code)][sq];
  }
  if(p->side == REF_CH_BLACK)
    key ^= ref_chess_zobrist_side;
  if(p->ep != REF_CH_NO_SQ)
    key ^= ref_chess_zobrist_ep[p->ep & 7];
  return key ^ ref_chess_zobrist_castle[p->castle & 15];
}

uint64_t ref_chess_between(int a, int b)
{
  uint64_t bb = BIT(b);
  int l;

  for(l = 0; l < 4; l++) {
    if(ref_chess_lines[a].upper[l] & bb)
      return ref_chess_lines[a].upper[l] & ref_chess_lines[b].lower[l];
    if(ref_chess_lines[a].lower[l] & bb)
      return ref_chess_lines[a].lower[l] & ref_chess_lines[b].upper[l];
  }
  return 0;
}

uint64_t ref_chess_line_through(int a, int b)
{
  uint64_t bb = BIT(b);
  int l;

  for(l = 0; l < 4; l++) {
    uint64_t line = ref_chess_lines[a].lower[l] | ref_chess_lines[a].upper[l];
    if(line & bb)
      return line | BIT(a);
  }
  return 0;
}

uint64_t ref_chess_attackers(const struct ref_chess_pos *p, int sq, uint64_t occ)
{
  const uint64_t(*pc)[6] = p->pieces;
  return (ref_chess_pawn_att[REF_CH_BLACK][sq] & pc[REF_CH_WHITE][REF_CH_PAWN]) |
         (ref_chess_pawn_att[REF_CH_WHITE][sq] & pc[REF_CH_BLACK][REF_CH_PAWN]) |
         (ref_chess_knight_att[sq] & (pc[0][REF_CH_KNIGHT] | pc[1][REF_CH_KNIGHT])) |
         (ref_chess_king_att[sq] & (pc[0][REF_CH_KING] | pc[1][REF_CH_KING])) |
         (ref_chess_bishop_att(sq, occ) & (pc[0][REF_CH_BISHOP] | pc[1][REF_CH_BISHOP] |
                                           pc[0][REF_CH_QUEEN] | pc[1][REF_CH_QUEEN])) |
         (ref_chess_rook_att(sq, occ) &
          (pc[0][REF_CH_ROOK] | pc[1][REF_CH_ROOK] | pc[0][REF_CH_QUEEN] | pc[1][REF_CH_QUEEN]));
}

bool ref_chess_attacked(const struct ref_chess_pos *p, int sq, int by)
{
  return (ref_chess_attackers(p, sq, p->occ[0] | p->occ[1]) & p->occ[by]) != 0;
}

bool ref_chess_in_check(const struct ref_chess_pos *p)
{
  uint64_t k = p->pieces[p->side][REF_CH_KING];
  return k && ref_chess_attacked(p, ref_chess_lsb(k), p->side ^ 1);
}

/* ------------------------------------------------------------------------ */
/* The legal generator. One body serves listing and counting: with moves ==
 * NULL every emit is a popcount, which is perft's bulk counting. */

CH_INLINE int emit_from(uint16_t *moves, int n, int from, uint64_t targets)
{
  if(!moves)
    return n + ref_chess_popcount(targets);
  while(targets) {
    moves[n++] = ref_chess_move(from, ref_chess_lsb(targets), REF_CH_MV_NORMAL, 0);
    targets &= targets - 1;
  }
  return n;
}

/* Pawn moves given as a set of destinations, all `delta` away from their
 * origins. Promotions fan out into four moves (§2.2: Q, R, B or N). */
CH_INLINE int emit_pawns(uint16_t *moves, int n, uint64_t targets, int delta, bool promo)
{
  if(!moves)
    return n + ref_chess_popcount(targets) * (promo ? 4 : 1);
  while(targets) {
    int to = ref_chess_lsb(targets), from = to - delta;
    targets &= targets - 1;
    if(promo) {
      moves[n++] = ref_chess_move(from, to, REF_CH_MV_PROMO, REF_CH_QUEEN);
      moves[n++] = ref_chess_move(from, to, REF_CH_MV_PROMO, REF_CH_ROOK);
      moves[n++] = ref_chess_move(from, to, REF_CH_MV_PROMO, REF_CH_BISHOP);
      moves[n++] = ref_chess_move(from, to, REF_CH_MV_PROMO, REF_CH_KNIGHT);
    }
    else {
      moves[n++] = ref_chess_move(from, to, REF_CH_MV_NORMAL, 0);
    }
  }
  return n;
}

/* One pawn's destinations taken separately (pinned pawns), each sorted into
 * promotion or not by its rank. */
CH_INLINE int emit_pawn_from(uint16_t *moves, int n, int from, uint64_t targets)
{
  while(targets) {
    int to = ref_chess_lsb(targets);
    bool promo = (BIT(to) & (RANK_1_BB | RANK_8_BB)) != 0;
    targets &= targets - 1;
    n = emit_pawns(moves, n, BIT(to), to - from, promo);
  }
  return n;
}

/*
 * The legal generator (§2.2): a move may not leave the mover's king
 * attacked. Instead of trying each move, the position is read once:
 *  - `danger`, the squares the enemy attacks with our king lifted off, gives
 *    the king's moves and the castling test (CH-1) directly;
 *  - `checkers` restricts everything else to capturing the checker or
 *    blocking its line (`target`), or to king moves alone in double check;
 *  - pinned pieces keep to the line between king and pinner.
 * Only e.p. is tested by replaying its occupancy (two pawns leave one rank).
 * OUT: moves (or NULL to count only). Returns the number of moves.
 */
CH_INLINE int gen_legal(const struct ref_chess_pos *p, uint16_t *moves)
{
  int us = p->side, them = us ^ 1, n = 0, ksq, sq;
  const uint64_t *mp = p->pieces[us], *tp = p->pieces[them];
  uint64_t mine = p->occ[us], theirs = p->occ[them], occ = mine | theirs;
  uint64_t danger, checkers = 0, pinned = 0, target, b, t, occ_nok;
  uint64_t pawns, free_pawns, s1, s2, cl, cr, last;
  int up;

  ksq = ref_chess_lsb(mp[REF_CH_KING]);
  /* Squares the enemy attacks with our king lifted off the board, so that
   * the king cannot step back along the line of a checking slider. */
  occ_nok = occ ^ BIT(ksq);
  b = tp[REF_CH_PAWN];
  danger = them == REF_CH_WHITE ? ((b << 7) & NOT_H) | ((b << 9) & NOT_A)
                                : ((b >> 9) & NOT_H) | ((b >> 7) & NOT_A);
  for(b = tp[REF_CH_KNIGHT]; b; b &= b - 1)
    danger |= ref_chess_knight_att[ref_chess_lsb(b)];
  for(b = tp[REF_CH_BISHOP] | tp[REF_CH_QUEEN]; b; b &= b - 1)
    danger |= ref_chess_bishop_att(ref_chess_lsb(b), occ_nok);
  for(b = tp[REF_CH_ROOK] | tp[REF_CH_QUEEN]; b; b &= b - 1)
    danger |= ref_chess_rook_att(ref_chess_lsb(b), occ_nok);
  danger |= ref_chess_king_att[ref_chess_lsb(tp[REF_CH_KING])];

  n = emit_from(moves, n, ksq, ref_chess_king_att[ksq] & ~mine & ~danger);

  target = ~mine;
  if(danger & BIT(ksq)) {
    checkers = (ref_chess_knight_att[ksq] & tp[REF_CH_KNIGHT]) |
               (ref_chess_pawn_att[us][ksq] & tp[REF_CH_PAWN]) |
               (ref_chess_bishop_att(ksq, occ) & (tp[REF_CH_BISHOP] | tp[REF_CH_QUEEN])) |
               (ref_chess_rook_att(ksq, occ) & (tp[REF_CH_ROOK] | tp[REF_CH_QUEEN]));
    /* Double check: only the king may move. */
    if(checkers & (checkers - 1))
      return n;
    target &= checkers | ref_chess_between(ksq, ref_chess_lsb(checkers));
  }

  /* Pins: sliders that see our king through exactly one of our pieces.
   * Attacks computed with only enemy blockers reach through our men. */
  b = (ref_chess_rook_att(ksq, theirs) & (tp[REF_CH_ROOK] | tp[REF_CH_QUEEN])) |
      (ref_chess_bishop_att(ksq, theirs) & (tp[REF_CH_BISHOP] | tp[REF_CH_QUEEN]));
  for(; b; b &= b - 1) {
    t = ref_chess_between(ksq, ref_chess_lsb(b)) & occ;
    if(t && !(t & (t - 1)))
      pinned |= t;
  }

  /* A pinned knight never moves: it cannot stay on its line. */
  for(b = mp[REF_CH_KNIGHT] & ~pinned; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    n = emit_from(moves, n, sq, ref_chess_knight_att[sq] & target);
  }
  for(b = mp[REF_CH_BISHOP] | mp[REF_CH_QUEEN]; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    t = ref_chess_bishop_att(sq, occ) & target;
    if(pinned & BIT(sq))
      t &= ref_chess_line_through(ksq, sq);
    n = emit_from(moves, n, sq, t);
  }
  for(b = mp[REF_CH_ROOK] | mp[REF_CH_QUEEN]; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    t = ref_chess_rook_att(sq, occ) & target;
    if(pinned & BIT(sq))
      t &= ref_chess_line_through(ksq, sq);
    n = emit_from(moves, n, sq, t);
  }

  /* Pawns that are not pinned, set-wise. */
  pawns = mp[REF_CH_PAWN];
  free_pawns = pawns & ~pinned;
  if(us == REF_CH_WHITE) {
    up = 8;
    last = RANK_8_BB;
    s1 = (free_pawns << 8) & ~occ;
    s2 = ((s1 & RANK_3_BB) << 8) & ~occ;
    cl = (free_pawns << 7) & NOT_H & theirs;
    cr = (free_pawns << 9) & NOT_A & theirs;
  }
  else {
    up = -8;
    last = RANK_1_BB;
    s1 = (free_pawns >> 8) & ~occ;
    s2 = ((s1 & RANK_6_BB) >> 8) & ~occ;
    cl = (free_pawns >> 9) & NOT_H & theirs;
    cr = (free_pawns >> 7) & NOT_A & theirs;
  }
  s1 &= target;
  s2 &= target;
  cl &= target;
  cr &= target;
  n = emit_pawns(moves, n, s1 & ~last, up, false);
  n = emit_pawns(moves, n, s1 & last, up, true);
  n = emit_pawns(moves, n, s2, 2 * up, false);
  n = emit_pawns(moves, n, cl & ~last, up - 1, false);
  n = emit_pawns(moves, n, cl & last, up - 1, true);
  n = emit_pawns(moves, n, cr & ~last, up + 1, false);
  n = emit_pawns(moves, n, cr & last, up + 1, true);

  /* Pinned pawns, one by one, along their pin line. */
  for(b = pawns & pinned; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    t = BIT(sq + up) & ~occ;
    if(t && (BIT(sq) & (us == REF_CH_WHITE ? 0xFF00ull : 0x00FF000000000000ull)))
      t |= BIT(sq + 2 * up) & ~occ;
    t |= ref_chess_pawn_att[us][sq] & theirs;
    n = emit_pawn_from(moves, n, sq, t & target & ref_chess_line_through(ksq, sq));
  }

  /* En passant (§2.2): `ep` is only set when some capture is legal, but
   * each candidate is tried on its own, since the capture removes two
   * pawns from one rank and can expose the king sideways. */
  if(p->ep != REF_CH_NO_SQ) {
    int capsq = p->ep - up;
    for(b = ref_chess_pawn_att[them][p->ep] & pawns; b; b &= b - 1) {
      uint64_t o2;
      sq = ref_chess_lsb(b);
      o2 = (occ ^ BIT(sq) ^ BIT(capsq)) | BIT(p->ep);
      if((ref_chess_rook_att(ksq, o2) & (tp[REF_CH_ROOK] | tp[REF_CH_QUEEN])) ||
         (ref_chess_bishop_att(ksq, o2) & (tp[REF_CH_BISHOP] | tp[REF_CH_QUEEN])) ||
         (ref_chess_knight_att[ksq] & tp[REF_CH_KNIGHT]) ||
         (ref_chess_pawn_att[us][ksq] & tp[REF_CH_PAWN] & ~BIT(capsq)))
        continue;
      if(moves)
        moves[n] = ref_chess_move(sq, p->ep, REF_CH_MV_EP, 0);
      n++;
    }
  }

  /* Castling (§2.2, CH-1): not out of check, over empty squares, and the
   * king neither crosses nor lands on an attacked square. The rook's path
   * on the queen side (b-file) may be attacked. */
  if(!checkers) {
    int home = us == REF_CH_WHITE ? SQ_E1 : SQ_E8;
    unsigned kside = us == REF_CH_WHITE ? REF_CH_WK : REF_CH_BK;
    unsigned qside = us == REF_CH_WHITE ? REF_CH_WQ : REF_CH_BQ;
    if((p->castle & kside) && !(occ & (BIT(home + 1) | BIT(home + 2))) &&
       !(danger & (BIT(home + 1) | BIT(home + 2)))) {
      if(moves)
        moves[n] = ref_chess_move(home, home + 2, REF_CH_MV_CASTLE, 0);
      n++;
    }
    if((p->castle & qside) && !(occ & (BIT(home - 1) | BIT(home - 2) | BIT(home - 3))) &&
       !(danger & (BIT(home - 1) | BIT(home - 2)))) {
      if(moves)
        moves[n] = ref_chess_move(home, home - 2, REF_CH_MV_CASTLE, 0);
      n++;
    }
  }
  return n;
}

int ref_chess_gen_legal(const struct ref_chess_pos *p, uint16_t *moves)
{
  return gen_legal(p, moves);
}

int ref_chess_count_legal(const struct ref_chess_pos *p)
{
  return gen_legal(p, NULL);
}

/* ------------------------------------------------------------------------ */
/* Pseudo-legal moves and making a move */

int ref_chess_gen_pseudo(const struct ref_chess_pos *p, unsigned flags, uint16_t *moves)
{
  int us = p->side, them = us ^ 1, n = 0, sq, up = us == REF_CH_WHITE ? 8 : -8;
  const uint64_t *mp = p->pieces[us];
  uint64_t mine = p->occ[us], theirs = p->occ[them], occ = mine | theirs, b, t;
  uint64_t start_rank = us == REF_CH_WHITE ? 0xFF00ull : 0x00FF000000000000ull;

  for(b = mp[REF_CH_KNIGHT]; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    n = emit_from(moves, n, sq, ref_chess_knight_att[sq] & ~mine);
  }
  for(b = mp[REF_CH_BISHOP] | mp[REF_CH_QUEEN]; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    n = emit_from(moves, n, sq, ref_chess_bishop_att(sq, occ) & ~mine);
  }
  for(b = mp[REF_CH_ROOK] | mp[REF_CH_QUEEN]; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    n = emit_from(moves, n, sq, ref_chess_rook_att(sq, occ) & ~mine);
  }
  for(b = mp[REF_CH_KING]; b; b &= b - 1) {
    sq = ref_chess_lsb(b);
    n = emit_from(moves, n, sq, ref_chess_king_att[sq] & ~mine);
  }
  for(b = mp[REF_CH_PAWN]; b; b &= b - 1) {
    int to;
    sq = ref_chess_lsb(b);
    to = sq + up;
    t = 0;
    if(to >= 0 && to < 64) {
      t = BIT(to) & ~occ;
      if(t && (BIT(sq) & start_rank))
        t |= BIT(to + up) & ~occ;
    }
    t |= ref_chess_pawn_att[us][sq] & theirs;
    if(flags & REF_CH_GEN_NO_PROMO)
      n = emit_from(moves, n, sq, t);
    else
      n = emit_pawn_from(moves, n, sq, t);
    if(p->ep != REF_CH_NO_SQ && (ref_chess_pawn_att[us][sq] & BIT(p->ep)))
      moves[n++] = ref_chess_move(sq, p->ep, REF_CH_MV_EP, 0);
  }
  if(!(flags & REF_CH_GEN_NO_CASTLE)) {
    int home = us == REF_CH_WHITE ? SQ_E1 : SQ_E8;
    if((p->castle & (us == REF_CH_WHITE ? REF_CH_WK : REF_CH_BK)) &&
       !(occ & (BIT(home + 1) | BIT(home + 2))))
      moves[n++] = ref_chess_move(home, home + 2, REF_CH_MV_CASTLE, 0);
    if((p->castle & (us == REF_CH_WHITE ? REF_CH_WQ : REF_CH_BQ)) &&
       !(occ & (BIT(home - 1) | BIT(home - 2) | BIT(home - 3))))
      moves[n++] = ref_chess_move(home, home - 2, REF_CH_MV_CASTLE, 0);
  }
  return n;
}

bool ref_chess_pseudo_is_legal(const struct ref_chess_pos *p, uint16_t m)
{
  struct ref_chess_pos c;
  int us = p->side;

  if(ref_chess_move_kind(m) == REF_CH_MV_CASTLE) {
    int from = ref_chess_move_from(m), to = ref_chess_move_to(m);
    int pass = (from + to) / 2;
    /* CH-1: not out of, through or into check. */
    return !ref_chess_attacked(p, from, us ^ 1) && !ref_chess_attacked(p, pass, us ^ 1) &&
           !ref_chess_attacked(p, to, us ^ 1);
  }
  c = *p;
  ref_chess_make(&c, m);
  return !ref_chess_attacked(&c, ref_chess_lsb(c.pieces[us][REF_CH_KING]), us ^ 1);
}

/* After a double step to `to`: may the side now to move (them) capture en
 * passant on `ep` without exposing its king? FIDE 9.2.3 and the FEN
 * convention both want the e.p. square only when it can. */
static bool ep_capture_legal(const struct ref_chess_pos *p, int ep, int to)
{
  int pusher = REF_CH_COLOR(p->board[to]), them = pusher ^ 1;
  const uint64_t *up = p->pieces[pusher];
  uint64_t occ = p->occ[0] | p->occ[1], b;
  int ksq;

  /* A variant where kings can be taken (Chessgammon §5.2) may have none:
   * then nothing can be exposed and any attacking pawn may take. */
  if(!p->pieces[them][REF_CH_KING])
    return (ref_chess_pawn_att[pusher][ep] & p->pieces[them][REF_CH_PAWN]) != 0;
  ksq = ref_chess_lsb(p->pieces[them][REF_CH_KING]);
  for(b = ref_chess_pawn_att[pusher][ep] & p->pieces[them][REF_CH_PAWN]; b; b &= b - 1) {
    int sq = ref_chess_lsb(b);
    uint64_t o2 = (occ ^ BIT(sq) ^ BIT(to)) | BIT(ep);
    if((ref_chess_rook_att(ksq, o2) & (up[REF_CH_ROOK] | up[REF_CH_QUEEN])) ||
       (ref_chess_bishop_att(ksq, o2) & (up[REF_CH_BISHOP] | up[REF_CH_QUEEN])) ||
       (ref_chess_knight_att[ksq] & up[REF_CH_KNIGHT]) ||
       (ref_chess_pawn_att[them][ksq] & up[REF_CH_PAWN] & ~BIT(to)))
      continue;
    return true;
  }
  return false;
}

/*
 * Makes m in place: board, key, e.p. square (set only when the capture is
 * legal), castling rights (lost when a king or rook leaves or is captured
 * on its home square), the 50-move clock (reset by captures and pawn moves,
 * FIDE 9.3) and the move counters. No legality check: callers pass moves of
 * a generator.
 */
void ref_chess_make(struct ref_chess_pos *p, uint16_t m)
{
  int from = ref_chess_move_from(m), to = ref_chess_move_to(m), kind = ref_chess_move_kind(m);
  int us = p->side, type = REF_CH_TYPE(p->board[from]);
  unsigned rights;

  if(p->ep != REF_CH_NO_SQ) {
    p->key ^= ref_chess_zobrist_ep[p->ep & 7];
    p->ep = REF_CH_NO_SQ;
  }
  if(p->halfmove < REF_CH_COUNTER_MAX)
    p->halfmove++;
  if(kind == REF_CH_MV_CASTLE) {
    move_piece(p, from, to);
    if(to > from)
      move_piece(p, to + 1, to - 1);
    else
      move_piece(p, to - 2, to + 1);
  }
  else if(kind == REF_CH_MV_EP) {
    remove_piece(p, us == REF_CH_WHITE ? to - 8 : to + 8);
    move_piece(p, from, to);
  }
  else {
    if(p->board[to] != REF_CH_EMPTY) {
      remove_piece(p, to);
      p->halfmove = 0;
    }
    move_piece(p, from, to);
    if(kind == REF_CH_MV_PROMO) {
      remove_piece(p, to);
      put_piece(p, us, ref_chess_move_promo(m), to);
    }
  }
  if(type == REF_CH_PAWN) {
    p->halfmove = 0;
    if((from ^ to) == 16 && ep_capture_legal(p, (from + to) / 2, to)) {
      p->ep = (uint8_t)((from + to) / 2);
      p->key ^= ref_chess_zobrist_ep[p->ep & 7];
    }
  }
  rights = p->castle & castle_keep[from] & castle_keep[to];
  if(rights != p->castle) {
    p->key ^= ref_chess_zobrist_castle[p->castle] ^ ref_chess_zobrist_castle[rights];
    p->castle = (uint8_t)rights;
  }
  p->side ^= 1;
  p->key ^= ref_chess_zobrist_side;
  if(p->side == REF_CH_WHITE && p->fullmove < REF_CH_COUNTER_MAX)
    p->fullmove++;
}

/* Copy-make on the stack, no allocation; depth 1 is counted, not made
 * (bulk counting: the leaves are never visited). */
static uint64_t perft_rec(const struct ref_chess_pos *p, int depth)
{
  uint16_t moves[REF_CH_MAX_MOVES];
  uint64_t total = 0;
  int i, n;

  if(depth == 1)
    return (uint64_t)gen_legal(p, NULL);
  n = gen_legal(p, moves);
  for(i = 0; i < n; i++) {
    struct ref_chess_pos c = *p;
    ref_chess_make(&c, moves[i]);
    total += perft_rec(&c, depth - 1);
  }
  return total;
}

uint64_t ref_chess_perft(const struct ref_chess_pos *p, int depth)
{
  if(depth <= 0)
    return 1;
  return perft_rec(p, depth);
}

/* ------------------------------------------------------------------------ */
/* Move notation out */

static void square_name(int sq, char *out)
{
  out[0] = (char)('a' + SQ_FILE(sq));
  out[1] = (char)('1' + SQ_RANK(sq));
  out[2] = '\0';
}

int ref_chess_uci(uint16_t m, char *buf, size_t cap)
{
  char out[8];
  square_name(ref_chess_move_from(m), out);
  square_name(ref_chess_move_to(m), out + 2);
  if(ref_chess_move_kind(m) == REF_CH_MV_PROMO) {
    out[4] = (char)(piece_letters[ref_chess_move_promo(m)] - 'A' + 'a');
    out[5] = '\0';
  }
  if(strlen(out) + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, strlen(out) + 1);
  return REF_OK;
}

/* SAN as the PGN standard (§8.2.3) writes it: piece letter, the least
 * disambiguation among *legal* moves (file, else rank, else both), x for
 * captures (pawns name their file), =Q, and + or # from the position
 * after the move. */
int ref_chess_san(const struct ref_chess_pos *p, uint16_t m, char *buf, size_t cap)
{
  char out[16];
  size_t k = 0;
  int from = ref_chess_move_from(m), to = ref_chess_move_to(m), kind = ref_chess_move_kind(m);
  int type = REF_CH_TYPE(p->board[from]);
  bool capture = p->board[to] != REF_CH_EMPTY || kind == REF_CH_MV_EP;
  struct ref_chess_pos c;

  if(kind == REF_CH_MV_CASTLE) {
    memcpy(out, to > from ? "O-O" : "O-O-O", to > from ? 3 : 5);
    k = to > from ? 3 : 5;
  }
  else if(type == REF_CH_PAWN) {
    if(capture) {
      out[k++] = (char)('a' + SQ_FILE(from));
      out[k++] = 'x';
    }
    square_name(to, out + k);
    k += 2;
    if(kind == REF_CH_MV_PROMO) {
      out[k++] = '=';
      out[k++] = piece_letters[ref_chess_move_promo(m)];
    }
  }
  else {
    uint16_t moves[REF_CH_MAX_MOVES];
    int i, n = gen_legal(p, moves);
    bool others = false, same_file = false, same_rank = false;
    out[k++] = piece_letters[type];
    for(i = 0; i < n; i++) {
      int f2 = ref_chess_move_from(moves[i]);
      if(f2 == from || ref_chess_move_to(moves[i]) != to || p->board[f2] != p->board[from])
        continue;
      others = true;
      if(SQ_FILE(f2) == SQ_FILE(from))
        same_file = true;
      if(SQ_RANK(f2) == SQ_RANK(from))
        same_rank = true;
    }
    if(others && (!same_file || same_rank))
      out[k++] = (char)('a' + SQ_FILE(from));
    if(others && same_file)
      out[k++] = (char)('1' + SQ_RANK(from));
    if(capture)
      out[k++] = 'x';
    square_name(to, out + k);
    k += 2;
  }
  c = *p;
  ref_chess_make(&c, m);
  if(ref_chess_in_check(&c))
    out[k++] = ref_chess_count_legal(&c) ? '+' : '#';
  out[k] = '\0';
  if(k + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
}

size_t ref_chess_placement_write(const struct ref_chess_pos *p, char *out)
{
  static const char letters[2][7] = {"PNBRQK", "pnbrqk"};
  size_t k = 0;
  int rank, file, empty;

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
      out[k++] = letters[REF_CH_COLOR(code)][REF_CH_TYPE(code)];
    }
    if(empty)
      out[k++] = (char)('0' + empty);
    if(rank)
      out[k++] = '/';
  }
  out[k] = '\0';
  return k;
}

size_t ref_chess_diagram(const struct ref_chess_pos *p, int seat, int from, int to, char *out)
{
  static const char letters[2][7] = {"PNBRQK", "pnbrqk"};
  size_t k = 0;
  int row, col, i;
  bool flip = seat == 1;

  /* byte by byte, not sprintf: every reply draws a board */
  for(i = 0; i < 2; i++) {
    for(row = 0; i == 1 && row < 8; row++) {
      int rank = flip ? row : 7 - row;
      out[k++] = ' ';
      out[k++] = (char)('1' + rank);
      out[k++] = ' ';
      for(col = 0; col < 8; col++) {
        int file = flip ? 7 - col : col, sq = rank * 8 + file, code = p->board[sq];
        bool mark = sq == from || sq == to;
        char c = code == REF_CH_EMPTY ? '.' : letters[REF_CH_COLOR(code)][REF_CH_TYPE(code)];
        out[k++] = mark ? '[' : ' ';
        out[k++] = c;
        out[k++] = mark ? ']' : ' ';
      }
      out[k++] = ' ';
      out[k++] = (char)('1' + rank);
      out[k++] = '\n';
    }
    out[k++] = ' ';
    out[k++] = ' ';
    out[k++] = ' ';
    for(col = 0; col < 8; col++) {
      out[k++] = ' ';
      out[k++] = (char)('a' + (flip ? 7 - col : col));
      out[k++] = col < 7 ? ' ' : '\n';
    }
  }
  out[k] = '\0';
  return k;
}
