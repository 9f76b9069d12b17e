/*
 * chess.c: the chess rules core (game "chess", library tabula_rules).
 *
 * Follows docs/rules-spec.md §1 (referee conventions: tolerant move input,
 * canonical output) and §2 (chess: ChromaGames rules completed from the FIDE
 * Laws of Chess), in particular CH-1 (castling neither through nor onto an
 * attacked square) and CH-2 (the FIDE draw block, option fide_draws:
 * threefold repetition and the fifty-move rule on claim; fivefold
 * repetition, the 75-move rule and dead positions automatic). Position
 * strings are FEN as the Chess Programming Wiki and Stockfish write it;
 * moves go out as SAN (PGN standard §8.2.3) and UCI.
 *
 * Layout: const tables; board primitives; the legal generator (bitboards,
 * pin and check masks, bulk counting for perft); the pseudo-legal generator
 * and make; FEN; SAN/UCI; the invariant checker; then the game layer (state
 * with repetition history, options, draws, the tolerant parser, the ASCII
 * board) and the ops table. The board half is declared in chess_int.h for
 * the chess-family variants.
 */
#include "chess_int.h"
#include "diagram_int.h"
#include "rules.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
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
  if(p->side == REF_CH_WHITE)
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
/* FEN */

static int piece_from_letter(int c)
{
  const char *hit = c ? strchr(piece_letters, c) : NULL;
  return hit ? (int)(hit - piece_letters) : -1;
}

/* Reads an unsigned decimal of at most `maxdigits` digits; no sign, no
 * spaces, no leading "+". */
static bool read_counter(const char *s, unsigned maxdigits, uint32_t *out)
{
  uint32_t v = 0;
  unsigned n = 0;

  if(!*s)
    return false;
  for(; *s; s++, n++) {
    if(*s < '0' || *s > '9' || n >= maxdigits)
      return false;
    v = v * 10 + (uint32_t)(*s - '0');
  }
  *out = v;
  return true;
}

/* Material a game could have reached: at most 8 pawns, and every piece
 * beyond the starting set must be a promoted pawn. */
static bool material_possible(const struct ref_chess_pos *p, int c)
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

/* Does the castling right `right` have its king and rook at home? */
static bool castle_right_ok(const struct ref_chess_pos *p, unsigned right)
{
  int color = right & (REF_CH_WK | REF_CH_WQ) ? REF_CH_WHITE : REF_CH_BLACK;
  int king = color == REF_CH_WHITE ? SQ_E1 : SQ_E8;
  int rook = king + (right & (REF_CH_WK | REF_CH_BK) ? 3 : -4);
  return p->board[king] == REF_CH_PIECE(color, REF_CH_KING) &&
         p->board[rook] == REF_CH_PIECE(color, REF_CH_ROOK);
}

/*
 * The FEN reader. Mail is hostile (style rule 6, "validate at the
 * boundary"): everything the generator relies on is checked here, so
 * nothing past this point needs to defend itself. Stockfish crashes or
 * invents moves on such input (oracles.md §1.1); we refuse it with a key.
 * Four-field FENs (EPD style) are read with counters "0 1".
 */
int ref_chess_fen_read(struct ref_chess_pos *p, const char *fen, const char **reason)
{
  char buf[128], *field[7], *s;
  int nfield = 0, rank, file, c, checkers;
  uint32_t half = 0, full = 1;
  uint16_t moves[REF_CH_MAX_MOVES];
  size_t len;

  *reason = "fen-syntax";
  if(!fen)
    return REF_EINVAL;
  len = strlen(fen);
  if(len >= sizeof(buf))
    return REF_EINVAL;
  memcpy(buf, fen, len + 1);
  for(s = buf; *s;) {
    while(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
      *s++ = '\0';
    if(!*s)
      break;
    if(nfield == 7)
      return REF_EINVAL;
    field[nfield++] = s;
    while(*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
      s++;
  }
  if(nfield != 4 && nfield != 6)
    return REF_EINVAL;

  ref_chess_clear(p);
  *reason = "fen-board";
  rank = 7;
  file = 0;
  for(s = field[0]; *s; s++) {
    c = (unsigned char)*s;
    if(c == '/') {
      if(file != 8 || rank == 0)
        return REF_EINVAL;
      rank--;
      file = 0;
    }
    else if(c >= '1' && c <= '8') {
      /* Two digits in a row (e.g. "44") are a non-canonical board. */
      if(s > field[0] && s[-1] >= '1' && s[-1] <= '8')
        return REF_EINVAL;
      file += c - '0';
      if(file > 8)
        return REF_EINVAL;
    }
    else {
      int type = piece_from_letter(c >= 'a' ? c - 'a' + 'A' : c);
      if(type < 0 || file > 7)
        return REF_EINVAL;
      put_piece(p, c >= 'a' ? REF_CH_BLACK : REF_CH_WHITE, type, rank * 8 + file);
      file++;
    }
  }
  if(rank != 0 || file != 8)
    return REF_EINVAL;

  *reason = "fen-kings";
  if(ref_chess_popcount(p->pieces[0][REF_CH_KING]) != 1 ||
     ref_chess_popcount(p->pieces[1][REF_CH_KING]) != 1)
    return REF_EINVAL;
  *reason = "fen-pawn-rank";
  if((p->pieces[0][REF_CH_PAWN] | p->pieces[1][REF_CH_PAWN]) & (RANK_1_BB | RANK_8_BB))
    return REF_EINVAL;
  *reason = "fen-material";
  if(!material_possible(p, REF_CH_WHITE) || !material_possible(p, REF_CH_BLACK))
    return REF_EINVAL;

  *reason = "fen-side";
  if(!strcmp(field[1], "w"))
    p->side = REF_CH_WHITE;
  else if(!strcmp(field[1], "b"))
    p->side = REF_CH_BLACK;
  else
    return REF_EINVAL;

  *reason = "fen-castling";
  if(strcmp(field[2], "-")) {
    for(s = field[2]; *s; s++) {
      const char *hit = strchr("KQkq", *s);
      unsigned right;
      if(!*s || !hit)
        return REF_EINVAL;
      right = 1u << (hit - "KQkq");
      if((p->castle & right) || !castle_right_ok(p, right))
        return REF_EINVAL;
      p->castle |= (uint8_t)right;
    }
  }

  if(nfield == 6) {
    *reason = "fen-counters";
    if(!read_counter(field[4], 6, &half) || !read_counter(field[5], 6, &full) || full < 1)
      return REF_EINVAL;
  }
  p->halfmove = half;
  p->fullmove = full;

  *reason = "fen-en-passant";
  if(strcmp(field[3], "-")) {
    int ep, behind, front;
    if(field[3][0] < 'a' || field[3][0] > 'h' || field[3][1] < '1' || field[3][1] > '8' ||
       field[3][2])
      return REF_EINVAL;
    ep = (field[3][1] - '1') * 8 + (field[3][0] - 'a');
    /* The square a pawn of the side not to move just crossed: rank 6 with
     * White to move, with that pawn in front of it and both the square and
     * the one it came from empty; the double step also reset the clock. */
    if(p->side == REF_CH_WHITE) {
      front = ep - 8;
      behind = ep + 8;
      if(SQ_RANK(ep) != 5)
        return REF_EINVAL;
    }
    else {
      front = ep + 8;
      behind = ep - 8;
      if(SQ_RANK(ep) != 2)
        return REF_EINVAL;
    }
    if(p->board[ep] != REF_CH_EMPTY || p->board[behind] != REF_CH_EMPTY ||
       p->board[front] != REF_CH_PIECE(p->side ^ 1, REF_CH_PAWN) || half != 0)
      return REF_EINVAL;
    p->ep = (uint8_t)ep;
  }

  *reason = "fen-check";
  if(ref_chess_attacked(p, ref_chess_lsb(p->pieces[p->side ^ 1][REF_CH_KING]), p->side))
    return REF_EINVAL;
  /* No single move gives check from three pieces at once. */
  *reason = "fen-impossible-check";
  checkers = ref_chess_popcount(
    ref_chess_attackers(p, ref_chess_lsb(p->pieces[p->side][REF_CH_KING]), p->occ[0] | p->occ[1]) &
    p->occ[p->side ^ 1]);
  if(checkers > 2)
    return REF_EINVAL;

  /* Keep the e.p. square only when a capture is legal, as Stockfish and
   * chess.js write it (oracles.md §1.1), so equal positions hash equal. */
  if(p->ep != REF_CH_NO_SQ) {
    int i, n = gen_legal(p, moves);
    bool any = false;
    for(i = 0; i < n; i++)
      if(ref_chess_move_kind(moves[i]) == REF_CH_MV_EP)
        any = true;
    if(!any)
      p->ep = REF_CH_NO_SQ;
  }
  p->key = ref_chess_key_compute(p);
  *reason = NULL;
  return REF_OK;
}

/* Built in a local buffer first so a too-small buf is left untouched. */
int ref_chess_fen_write(const struct ref_chess_pos *p, char *buf, size_t cap)
{
  char out[128];
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
      out[k] = piece_letters[REF_CH_TYPE(code)];
      if(REF_CH_COLOR(code) == REF_CH_BLACK)
        out[k] = (char)(out[k] - 'A' + 'a');
      k++;
    }
    if(empty)
      out[k++] = (char)('0' + empty);
    if(rank)
      out[k++] = '/';
  }
  out[k++] = ' ';
  out[k++] = p->side == REF_CH_WHITE ? 'w' : 'b';
  out[k++] = ' ';
  if(!p->castle)
    out[k++] = '-';
  if(p->castle & REF_CH_WK)
    out[k++] = 'K';
  if(p->castle & REF_CH_WQ)
    out[k++] = 'Q';
  if(p->castle & REF_CH_BK)
    out[k++] = 'k';
  if(p->castle & REF_CH_BQ)
    out[k++] = 'q';
  out[k++] = ' ';
  if(p->ep == REF_CH_NO_SQ) {
    out[k++] = '-';
  }
  else {
    out[k++] = (char)('a' + SQ_FILE(p->ep));
    out[k++] = (char)('1' + SQ_RANK(p->ep));
  }
  k += (size_t)snprintf(out + k, sizeof(out) - k, " %u %u", (unsigned)p->halfmove,
                        (unsigned)p->fullmove);
  if(k + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
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

/* ------------------------------------------------------------------------ */
/* The position checker (Weiss PositionOk, style-anchors.md §6): every
 * redundant field recomputed from the mailbox. */

bool ref_chess_pos_ok(const struct ref_chess_pos *p)
{
  uint64_t pieces[2][6] = {{0}}, occ[2] = {0, 0}, all = 0;
  uint16_t moves[REF_CH_MAX_MOVES];
  int sq, c, t, i, n;
  unsigned r;

  if(p->side > 1 || p->castle > 15 || p->fullmove < 1)
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
  for(c = 0; c < 2; c++) {
    for(t = 0; t < 6; t++) {
      if(pieces[c][t] != p->pieces[c][t] || (all & pieces[c][t]))
        return false;
      all |= pieces[c][t];
    }
    if(occ[c] != p->occ[c])
      return false;
    if(ref_chess_popcount(pieces[c][REF_CH_KING]) != 1)
      return false;
  }
  if((pieces[0][REF_CH_PAWN] | pieces[1][REF_CH_PAWN]) & (RANK_1_BB | RANK_8_BB))
    return false;
  for(r = 1; r <= 8; r <<= 1)
    if((p->castle & r) && !castle_right_ok(p, r))
      return false;
  /* The side that just moved cannot have left its king attacked. */
  if(ref_chess_attacked(p, ref_chess_lsb(pieces[p->side ^ 1][REF_CH_KING]), p->side))
    return false;
  if(p->ep != REF_CH_NO_SQ) {
    bool any = false;
    if(p->ep > 63 || SQ_RANK(p->ep) != (p->side == REF_CH_WHITE ? 5u : 2u) || p->halfmove != 0)
      return false;
    n = gen_legal(p, moves);
    for(i = 0; i < n; i++)
      if(ref_chess_move_kind(moves[i]) == REF_CH_MV_EP)
        any = true;
    if(!any)
      return false;
  }
  return p->key == ref_chess_key_compute(p);
}

/* ------------------------------------------------------------------------ */
/* The game: a position plus what the rules need beyond it */

#define CHESS_MAGIC 0x43485331u /* "CHS1": bump when the layout changes */

/*
 * Repetition (CH-2) compares positions since the last capture or pawn move,
 * so the history holds the Zobrist keys of exactly those. With fide_draws on
 * the 75-move rule ends the game at 150 such plies, bounding it at 151 keys;
 * with the rules off nothing reads it and the oldest keys are dropped.
 */
#define CHESS_HIST_MAX 160

struct chess_state {
  uint32_t magic;
  uint8_t fide_draws; /* CH-2 block on (1) or off (0) */
  uint8_t over;       /* 1 once the game has ended */
  int8_t winner;      /* seat, or -1 for a draw (when over) */
  uint8_t end;        /* enum ref_end (when over) */
  uint8_t last_from;  /* the last move, for render; REF_CH_NO_SQ if none */
  uint8_t last_to;
  uint16_t nhist; /* keys in hist; hist[nhist - 1] is the current key */
  struct ref_chess_pos pos;
  uint64_t hist[CHESS_HIST_MAX];
};

static bool chess_ok(const struct ref_state *s);

static struct chess_state *state_of(struct ref_state *s)
{
  return (struct chess_state *)(void *)s;
}

static const struct chess_state *cstate_of(const struct ref_state *s)
{
  return (const struct chess_state *)(const void *)s;
}

static const char start_fen[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/* How often the current position has occurred, this time included (FIDE
 * 9.2: same side to move, so only every second ply can match). */
static int repetitions(const struct chess_state *st)
{
  int i, count = 0;
  uint64_t key = st->pos.key;

  for(i = (int)st->nhist - 1; i >= 0; i -= 2)
    if(st->hist[i] == key)
      count++;
  return count;
}

/*
 * Dead position (CH-2, FIDE 5.2.2) for the material rules-spec lists: K v K,
 * K+B v K, K+N v K, K+B v K+B with bishops on one colour. Any number of
 * bishops all on one colour is dead for the same reason (no mate can be
 * built from one colour complex), so that is how the last case is tested.
 */
static bool dead_position(const struct ref_chess_pos *p)
{
  uint64_t heavy = p->pieces[0][REF_CH_PAWN] | p->pieces[1][REF_CH_PAWN] |
                   p->pieces[0][REF_CH_ROOK] | p->pieces[1][REF_CH_ROOK] |
                   p->pieces[0][REF_CH_QUEEN] | p->pieces[1][REF_CH_QUEEN];
  uint64_t knights = p->pieces[0][REF_CH_KNIGHT] | p->pieces[1][REF_CH_KNIGHT];
  uint64_t bishops = p->pieces[0][REF_CH_BISHOP] | p->pieces[1][REF_CH_BISHOP];
  const uint64_t dark = 0xAA55AA55AA55AA55ull;

  if(heavy)
    return false;
  if(ref_chess_popcount(knights | bishops) <= 1)
    return true;
  return !knights && (!(bishops & dark) || !(bishops & ~dark));
}

/* Sets the result from the position alone: checkmate and stalemate (§2.3),
 * then the automatic FIDE draws (CH-2). Checkmate comes first, as FIDE
 * 9.6.2 says it does over the 75-move rule. */
static void settle(struct chess_state *st)
{
  const struct ref_chess_pos *p = &st->pos;

  st->over = 0;
  st->winner = -1;
  st->end = REF_END_NONE;
  if(!ref_chess_count_legal(p)) {
    st->over = 1;
    if(ref_chess_in_check(p)) {
      st->end = REF_END_CHECKMATE;
      st->winner = (int8_t)(p->side ^ 1);
    }
    else {
      st->end = REF_END_STALEMATE;
    }
    return;
  }
  if(!st->fide_draws)
    return;
  if(dead_position(p))
    st->end = REF_END_DEAD_POSITION;
  else if(repetitions(st) >= 5)
    st->end = REF_END_FIVEFOLD;
  else if(p->halfmove >= 150)
    st->end = REF_END_SEVENTY_FIVE;
  if(st->end != REF_END_NONE)
    st->over = 1;
}

static void history_push(struct chess_state *st)
{
  if(st->pos.halfmove == 0)
    st->nhist = 0;
  if(st->nhist == CHESS_HIST_MAX) {
    memmove(st->hist, st->hist + 2, (CHESS_HIST_MAX - 2) * sizeof(st->hist[0]));
    st->nhist -= 2;
  }
  st->hist[st->nhist++] = st->pos.key;
}

/* A fresh game state around a validated position. */
static void state_start(struct chess_state *st, const struct ref_chess_pos *p, int fide_draws)
{
  memset(st, 0, sizeof(*st));
  st->magic = CHESS_MAGIC;
  st->fide_draws = (uint8_t)fide_draws;
  st->pos = *p;
  st->last_from = st->last_to = REF_CH_NO_SQ;
  st->hist[0] = p->key;
  st->nhist = 1;
  settle(st);
}

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

/* What the options string asks for. */
struct chess_options {
  int fide_draws;
  bool seen_fide, seen_fen;
  char fen[128];
};

/* One "key=value" segment [b, e) of the options string. A key given twice
 * is refused like a bad value: either way honouring it would be a guess. */
static int option_one(struct chess_options *o, const char *b, const char *e, struct ref_err *err)
{
  const char *eq = memchr(b, '=', (size_t)(e - b)), *kb = b, *ke = eq ? eq : e, *vb, *ve;
  char key[32];

  trim(&kb, &ke);
  snprintf(key, sizeof(key), "%.*s", (int)(ke - kb), kb);
  if(kb == ke && !eq)
    return REF_OK; /* an empty segment, e.g. after a trailing ';' */
  vb = eq ? eq + 1 : e;
  ve = e;
  trim(&vb, &ve);
  if(span_is(kb, ke, "fide_draws")) {
    if(!eq || o->seen_fide || !(span_is(vb, ve, "on") || span_is(vb, ve, "off"))) {
      ref_err_set(err, REF_EINVAL, "ch-bad-option", key);
      return REF_EINVAL;
    }
    o->seen_fide = true;
    o->fide_draws = span_is(vb, ve, "on");
    return REF_OK;
  }
  if(span_is(kb, ke, "fen")) {
    if(!eq || o->seen_fen) {
      ref_err_set(err, REF_EINVAL, "ch-bad-option", key);
      return REF_EINVAL;
    }
    if((size_t)(ve - vb) >= sizeof(o->fen)) {
      ref_err_set(err, REF_EINVAL, "fen-syntax", NULL);
      return REF_EINVAL;
    }
    o->seen_fen = true;
    snprintf(o->fen, sizeof(o->fen), "%.*s", (int)(ve - vb), vb);
    return REF_OK;
  }
  ref_err_set(err, REF_EINVAL, "ch-unknown-option", key);
  return REF_EINVAL;
}

/*
 * Options "key=value;key=value" (rules.h): fide_draws=on|off (CH-2,
 * default on) and fen=FEN (start position, validated like decode). Unknown
 * keys are REF_EINVAL. On failure the state is left as it was.
 */
static int chess_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct chess_options o;
  struct ref_chess_pos pos;
  const char *reason = NULL, *b = options ? options : "";
  int rc = REF_OK;

  memset(&o, 0, sizeof(o));
  o.fide_draws = 1;
  strcpy(o.fen, start_fen);
  while(*b && rc == REF_OK) {
    const char *e = strchr(b, ';');
    if(!e)
      e = b + strlen(b);
    rc = option_one(&o, b, e, err);
    b = *e ? e + 1 : e;
  }
  if(rc != REF_OK)
    goto out;
  if(ref_chess_fen_read(&pos, o.fen, &reason) != REF_OK) {
    ref_err_set(err, REF_EINVAL, reason, NULL);
    rc = REF_EINVAL;
    goto out;
  }
  state_start(state_of(s), &pos, o.fide_draws);
out:
  return rc;
}

/* Decoding keeps the fide_draws option of a state made by init (options
 * are not part of a FEN) and starts a fresh repetition history. */
static int chess_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct chess_state *st = state_of(s);
  struct ref_chess_pos pos;
  const char *reason = NULL;
  int fide = st->magic == CHESS_MAGIC ? st->fide_draws : 1;

  if(ref_chess_fen_read(&pos, text, &reason) != REF_OK) {
    ref_err_set(err, REF_EINVAL, reason, NULL);
    return REF_EINVAL;
  }
  state_start(st, &pos, fide);
  return REF_OK;
}

/* FEN of the current position; the e.p. square only when a capture is
 * legal (see struct ref_chess_pos). REF_EINVAL if buf is too small. */
static int chess_encode(const struct ref_state *s, char *buf, size_t cap)
{
  return ref_chess_fen_write(&cstate_of(s)->pos, buf, cap);
}

/* Every legal move of the position, in generation order. Whether the game
 * still runs is status()'s business: perft, divide and the oracles compare
 * move generation on positions that may be dead or drawn by rule. */
static int chess_legal(const struct ref_state *s, struct ref_movelist *out)
{
  uint16_t moves[REF_CH_MAX_MOVES];
  struct ref_move m;
  int i, n = ref_chess_gen_legal(&cstate_of(s)->pos, moves);

  memset(&m, 0, sizeof(m));
  for(i = 0; i < n; i++) {
    m.w[0] = moves[i];
    if(ref_movelist_push(out, &m) != REF_OK)
      return REF_ENOMEM;
  }
  return REF_OK;
}

/* The 16-bit move inside m if it is one of the legal moves of p, else 0
 * (no legal move encodes as 0: from == to never happens). */
static uint16_t legal_move_of(const struct ref_chess_pos *p, const struct ref_move *m)
{
  uint16_t moves[REF_CH_MAX_MOVES];
  int i, n;

  for(i = 1; i < REF_MOVE_WORDS; i++)
    if(m->w[i])
      return 0;
  if(m->w[0] > 0xFFFFu)
    return 0;
  n = ref_chess_gen_legal(p, moves);
  for(i = 0; i < n; i++)
    if(moves[i] == m->w[0])
      return moves[i];
  return 0;
}

/* SAN (canonical, §2.4) or UCI (computer) of m. REF_EINVAL when m is not a
 * legal move of the position or buf is too small. */
static int chess_format(const struct ref_state *s, const struct ref_move *m,
                        enum ref_notation style, char *buf, size_t cap)
{
  const struct ref_chess_pos *p = &cstate_of(s)->pos;
  uint16_t mv = legal_move_of(p, m);

  if(!mv)
    return REF_EINVAL;
  if(style == REF_NOTATION_COMPUTER)
    return ref_chess_uci(mv, buf, cap);
  return ref_chess_san(p, mv, buf, cap);
}

/*
 * Plays m and settles the result (§2.3, CH-2). The move is checked against
 * the legal list although rules.h lets apply trust it: a journal replayed
 * after a rules change must fail loudly, not corrupt the state. Returns
 * REF_EPHASE once the game is over, REF_EILLEGAL for a move not legal here.
 */
static int chess_apply(struct ref_state *s, const struct ref_move *m)
{
  struct chess_state *st = state_of(s);
  uint16_t mv;

  if(st->over)
    return REF_EPHASE;
  mv = legal_move_of(&st->pos, m);
  if(!mv)
    return REF_EILLEGAL;
  ref_chess_make(&st->pos, mv);
  st->last_from = (uint8_t)ref_chess_move_from(mv);
  st->last_to = (uint8_t)ref_chess_move_to(mv);
  history_push(st);
  settle(st);
  assert(chess_ok(s)); /* style rule 6: the checker after every apply in debug builds */
  return REF_OK;
}

/*
 * Resignation (the other seat wins, any time, either seat), agreed draw,
 * and draw claims (CH-2). Cube actions are REF_EPHASE: chess has none.
 * Returns REF_EPHASE when the game is over, REF_EILLEGAL for a claim that
 * does not hold, REF_EINVAL for a seat or action that does not exist.
 */
static int chess_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                     struct ref_err *err)
{
  struct chess_state *st = state_of(s);
  enum ref_end claim = REF_END_NONE, end;
  int winner, rc;

  /* CH-2: threefold and fifty moves are draws only when claimed; either
   * player may claim (the one to move, or the one who just moved and so
   * made the position appear). */
  if(st->fide_draws)
    claim = repetitions(st) >= 3 ? REF_END_THREEFOLD
          : st->pos.halfmove >= 100 ? REF_END_FIFTY_MOVES : REF_END_NONE;
  rc = ref_plain_act(seat, action, st->over, claim,
                     st->fide_draws ? "draw-not-claimable" : "draw-rules-off", &winner, &end, err);
  if(rc)
    return rc;
  st->winner = (int8_t)winner;
  st->end = (uint8_t)end;
  st->over = 1;
  assert(chess_ok(s));
  return REF_OK;
}

/* OUT: out. Points are 1 for a win and 0 for a draw; move_number is the
 * FEN fullmove number; in_check is reported in finished games too (a mate
 * shows as in check). */
static void chess_status(const struct ref_state *s, struct ref_status *out)
{
  const struct chess_state *st = cstate_of(s);

  memset(out, 0, sizeof(*out));
  out->phase = st->over ? REF_PHASE_OVER : REF_PHASE_MOVE;
  out->turn = st->over ? -1 : st->pos.side;
  out->winner = st->over ? st->winner : -1;
  out->end = st->over ? (enum ref_end)st->end : REF_END_NONE;
  out->points = st->over && st->winner >= 0 ? 1 : 0;
  out->move_number = (int)st->pos.fullmove;
  out->in_check = ref_chess_in_check(&st->pos);
  out->draw_claimable =
    !st->over && st->fide_draws && (repetitions(st) >= 3 || st->pos.halfmove >= 100);
  out->cube = 0;
  out->cube_owner = -1;
}

static uint64_t chess_perft(const struct ref_state *s, int depth)
{
  return ref_chess_perft(&cstate_of(s)->pos, depth);
}

/* The game-level checker: the position's, plus history and result. */
static bool chess_ok(const struct ref_state *s)
{
  const struct chess_state *st = cstate_of(s);
  struct chess_state again;

  if(st->magic != CHESS_MAGIC || st->fide_draws > 1 || st->over > 1)
    return false;
  if(!ref_chess_pos_ok(&st->pos))
    return false;
  if(st->nhist < 1 || st->nhist > CHESS_HIST_MAX || st->hist[st->nhist - 1] != st->pos.key)
    return false;
  if(st->nhist > st->pos.halfmove + 1)
    return false;
  if((st->last_from == REF_CH_NO_SQ) != (st->last_to == REF_CH_NO_SQ) ||
     st->last_from > REF_CH_NO_SQ || st->last_to > REF_CH_NO_SQ)
    return false;
  if(st->last_to != REF_CH_NO_SQ &&
     (st->pos.board[st->last_to] == REF_CH_EMPTY ||
      REF_CH_COLOR(st->pos.board[st->last_to]) != (st->pos.side ^ 1)))
    return false;
  if(!st->over) {
    /* A running game must not have missed an automatic ending. */
    memcpy(&again, st, sizeof(again));
    settle(&again);
    return st->end == REF_END_NONE && st->winner == -1 && !again.over;
  }
  if(st->end == REF_END_NONE || st->end >= REF_END_LAST || st->winner < -1 || st->winner > 1)
    return false;
  switch(st->end) {
  case REF_END_CHECKMATE:
  case REF_END_STALEMATE:
  case REF_END_DEAD_POSITION:
  case REF_END_FIVEFOLD:
  case REF_END_SEVENTY_FIVE:
    /* Automatic results must be exactly what the position says. */
    memcpy(&again, st, sizeof(again));
    settle(&again);
    return again.over && again.end == st->end && again.winner == st->winner;
  case REF_END_RESIGNATION:
    return st->winner >= 0;
  case REF_END_AGREEMENT:
    return st->winner == -1;
  case REF_END_THREEFOLD:
    return st->winner == -1 && st->fide_draws && repetitions(st) >= 3;
  case REF_END_FIFTY_MOVES:
    return st->winner == -1 && st->fide_draws && st->pos.halfmove >= 100;
  default:
    return false;
  }
}

/* ------------------------------------------------------------------------ */
/* The tolerant parser (rules-spec §1.1-1.4, §2.4). Input is cleaned of
 * move numbers, glyphs and check marks, read into one or two patterns
 * (two when an all-capitals "B" could be the bishop or the b-file), and the
 * patterns are matched against the legal moves. Nothing is guessed: no
 * match or several matches is an error that names the reason and offers
 * the nearest legal moves. */

#define PIECE_ANY (-1)   /* origin square written without a letter: UCI/long */
#define PIECE_UNSET (-2) /* no letter yet */

struct pattern {
  int castle;   /* 0, 1 for O-O, 2 for O-O-O */
  int piece;    /* piece type, or PIECE_ANY */
  int ff, fr;   /* origin file and rank, -1 when not written */
  int to;       /* destination square, -1 for castling */
  int promo;    /* promotion piece type, -1 when none written */
  bool capture; /* a capture mark (x : *) was written */
};

enum match { MATCH_NONE, MATCH_FULL, MATCH_PROMO_MISSING, MATCH_NOT_CAPTURE };

static bool is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static bool is_digit(int c)
{
  return c >= '0' && c <= '9';
}

static int file_of(int c)
{
  if(c >= 'a' && c <= 'h')
    return c - 'a';
  if(c >= 'A' && c <= 'H')
    return c - 'A';
  return -1;
}

static int rank_of(int c)
{
  return c >= '1' && c <= '8' ? c - '1' : -1;
}

static int promo_of(int c)
{
  switch(c) {
  case 'Q':
  case 'q':
    return REF_CH_QUEEN;
  case 'R':
  case 'r':
    return REF_CH_ROOK;
  case 'B':
  case 'b':
    return REF_CH_BISHOP;
  case 'N':
  case 'n':
    return REF_CH_KNIGHT;
  default:
    return -1;
  }
}

static bool ends_with_ci(const unsigned char *b, const unsigned char *e, const char *suffix)
{
  size_t n = strlen(suffix), i;
  if((size_t)(e - b) < n)
    return false;
  for(i = 0; i < n; i++) {
    int c = e[(ptrdiff_t)i - (ptrdiff_t)n];
    if(c >= 'A' && c <= 'Z')
      c += 'a' - 'A';
    if(c != suffix[i])
      return false;
  }
  return true;
}

/*
 * Strips what §1.1 says to ignore: surrounding whitespace and punctuation,
 * a move number ("12." or "12..."), annotation glyphs, check marks (+ # ch)
 * and "e.p.". OUT: out, the move proper. False when nothing is left, when
 * it is too long to be a move, or when a space is left inside (two moves in
 * one line are not one move).
 */
static bool clean_input(const char *text, char *out, size_t cap)
{
  const unsigned char *b = (const unsigned char *)text, *e = b + strlen(text), *q;
  bool changed = true;
  size_t len;

  while(changed) {
    changed = false;
    while(b < e && (is_space(*b) || *b >= 0x80 || strchr("\"'`.,;:([{<", *b))) {
      b++;
      changed = true;
    }
    q = b;
    while(q < e && is_digit(*q))
      q++;
    if(q > b && q < e && *q == '.') {
      b = q;
      changed = true;
    }
  }
  changed = true;
  while(changed && e > b) {
    int c = e[-1];
    changed = true;
    if(is_space(c) || c >= 0x80 || strchr("!?+#.,;:\"'`]}>", c))
      e--;
    else if(c == ')' && !memchr(b, '(', (size_t)(e - b)))
      e--;
    else if(ends_with_ci(b, e, "e.p") && (e - b == 3 || is_digit(e[-4]) || is_space(e[-4])))
      e -= 3;
    else if(ends_with_ci(b, e, "ep") && e - b > 2 && (is_digit(e[-3]) || is_space(e[-3])))
      e -= 2;
    else if(ends_with_ci(b, e, "ch") && e - b > 2 &&
            (is_digit(e[-3]) || (e[-3] && strchr("QRBNqrbn)", e[-3]))))
      e -= 2;
    else
      changed = false;
  }
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

/* O-O / 0-0 / o-o and the long forms (§2.4): 1 king side, 2 queen side. */
static int castle_kind(const char *s)
{
  int os = 0;

  for(; *s; s++) {
    if(*s == 'O' || *s == 'o' || *s == '0')
      os++;
    else if(*s != '-')
      return 0;
  }
  return os == 2 ? 1 : os == 3 ? 2 : 0;
}

/*
 * One reading of a cleaned move: [piece] [origin file] [origin rank]
 * [- x : *] destination [promotion]. Piece letters are upper case, and
 * lower case too where the letter is not a file (§1.3): "nf3" is a knight,
 * "bc4" a b-pawn. With b_is_file, a leading capital B is read as the file.
 * A full origin square without a letter matches any piece (UCI, long
 * algebraic); no origin square and no letter means a pawn (SAN).
 */
static bool parse_pattern(const char *s, bool b_is_file, struct pattern *pt)
{
  size_t n = strlen(s), i = 0, end;
  int c = (unsigned char)s[0], nsep = 0;

  pt->castle = 0;
  pt->piece = PIECE_UNSET;
  pt->ff = pt->fr = pt->to = pt->promo = -1;
  pt->capture = false;
  if(c == 'K' || c == 'k') {
    /* "Kt" and "Kn" are old names of the knight (§1.3). */
    if(n > 1 && (s[1] == 't' || s[1] == 'T' || s[1] == 'n' || s[1] == 'N')) {
      pt->piece = REF_CH_KNIGHT;
      i = 2;
    }
    else {
      pt->piece = REF_CH_KING;
      i = 1;
    }
  }
  else if(c == 'Q' || c == 'q' || c == 'R' || c == 'r' || c == 'N' || c == 'n') {
    pt->piece = promo_of(c);
    i = 1;
  }
  else if(c == 'P' || c == 'p') {
    pt->piece = REF_CH_PAWN;
    i = 1;
  }
  else if(c == 'B' && !b_is_file) {
    pt->piece = REF_CH_BISHOP;
    i = 1;
  }

  /* Promotion: =Q, /Q, (Q), or the bare letter after the rank (§2.4). A
   * trailing = or / alone says "promote" without saying to what. */
  end = n;
  if(end >= i + 5 && s[end - 1] == ')' && s[end - 3] == '(' && promo_of(s[end - 2]) >= 0) {
    pt->promo = promo_of(s[end - 2]);
    end -= 3;
  }
  else if(end >= i + 3 && promo_of(s[end - 1]) >= 0 &&
          (s[end - 2] == '=' || s[end - 2] == '/' || rank_of(s[end - 2]) >= 0)) {
    pt->promo = promo_of(s[end - 1]);
    end--;
    if(s[end - 1] == '=' || s[end - 1] == '/')
      end--;
  }
  else if(end >= i + 3 && (s[end - 1] == '=' || s[end - 1] == '/')) {
    end--;
  }

  if(end < i + 2 || file_of(s[end - 2]) < 0 || rank_of(s[end - 1]) < 0)
    return false;
  pt->to = rank_of(s[end - 1]) * 8 + file_of(s[end - 2]);
  end -= 2;

  while(end > i && (s[end - 1] == '-' || s[end - 1] == 'x' || s[end - 1] == 'X' ||
                    s[end - 1] == ':' || s[end - 1] == '*')) {
    if(s[end - 1] != '-')
      pt->capture = true;
    end--;
    if(++nsep > 2)
      return false;
  }

  if(end - i == 2) {
    pt->ff = file_of(s[i]);
    pt->fr = rank_of(s[i + 1]);
    if(pt->ff < 0 || pt->fr < 0)
      return false;
  }
  else if(end - i == 1) {
    pt->ff = file_of(s[i]);
    if(pt->ff < 0) {
      pt->fr = rank_of(s[i]);
      if(pt->fr < 0)
        return false;
    }
  }
  else if(end != i) {
    return false;
  }
  if(pt->piece == PIECE_UNSET)
    pt->piece = pt->ff >= 0 && pt->fr >= 0 ? PIECE_ANY : REF_CH_PAWN;
  return true;
}

/* How move m of p fits pattern pt: fully, or short only of the promotion
 * piece or of being a capture (so the error can say exactly that). */
static enum match pattern_match(const struct ref_chess_pos *p, const struct pattern *pt,
                                uint16_t m)
{
  int from = ref_chess_move_from(m), to = ref_chess_move_to(m), kind = ref_chess_move_kind(m);
  int type = REF_CH_TYPE(p->board[from]);
  bool capture = p->board[to] != REF_CH_EMPTY || kind == REF_CH_MV_EP;

  if(pt->castle)
    return kind == REF_CH_MV_CASTLE && (to > from) == (pt->castle == 1) ? MATCH_FULL : MATCH_NONE;
  if(to != pt->to || (pt->piece >= 0 && type != pt->piece))
    return MATCH_NONE;
  if((pt->ff >= 0 && (int)SQ_FILE(from) != pt->ff) || (pt->fr >= 0 && (int)SQ_RANK(from) != pt->fr))
    return MATCH_NONE;
  /* SAN names a pawn capture by its file: a bare "e4" is the push only. */
  if(pt->piece == REF_CH_PAWN && pt->ff < 0 && !pt->capture && capture)
    return MATCH_NONE;
  if(kind == REF_CH_MV_PROMO) {
    if(pt->promo < 0)
      return MATCH_PROMO_MISSING;
    if(ref_chess_move_promo(m) != pt->promo)
      return MATCH_NONE;
  }
  else if(pt->promo >= 0) {
    return MATCH_NONE;
  }
  if(pt->capture && !capture)
    return MATCH_NOT_CAPTURE;
  return MATCH_FULL;
}

/* Why castling that way is refused (§2.2, CH-1). */
static const char *castle_refusal(const struct ref_chess_pos *p, bool kingside)
{
  int us = p->side, home = us == REF_CH_WHITE ? SQ_E1 : SQ_E8, dir = kingside ? 1 : -1;
  unsigned right = us == REF_CH_WHITE ? (kingside ? REF_CH_WK : REF_CH_WQ)
                                      : (kingside ? REF_CH_BK : REF_CH_BQ);
  uint64_t path = kingside ? BIT(home + 1) | BIT(home + 2)
                           : BIT(home - 1) | BIT(home - 2) | BIT(home - 3);

  if(!(p->castle & right))
    return "castle-no-right";
  if((p->occ[0] | p->occ[1]) & path)
    return "castle-blocked";
  if(ref_chess_in_check(p))
    return "castle-in-check";
  if(ref_chess_attacked(p, home + dir, us ^ 1) || ref_chess_attacked(p, home + 2 * dir, us ^ 1))
    return "castle-through-check";
  return "no-such-move";
}

/* Best-effort reading of unreadable text for suggestions: its last square
 * is taken as the destination, an earlier one as the origin, a leading
 * capital as the piece. */
static void hint_pattern(const char *text, struct pattern *pt)
{
  const char *s;
  int last = -1, prev = -1;

  pt->castle = 0;
  pt->piece = PIECE_ANY;
  pt->ff = pt->fr = pt->to = pt->promo = -1;
  pt->capture = false;
  for(s = text; *s && s[1]; s++) {
    if(file_of(*s) >= 0 && rank_of(s[1]) >= 0) {
      prev = last;
      last = rank_of(s[1]) * 8 + file_of(*s);
    }
  }
  pt->to = last;
  if(prev >= 0) {
    pt->ff = (int)SQ_FILE(prev);
    pt->fr = (int)SQ_RANK(prev);
  }
  while(*text && is_space((unsigned char)*text))
    text++;
  if(*text && strchr("KQRNB", *text))
    pt->piece = piece_from_letter(*text);
}

struct suggestion {
  int score;
  char san[REF_NOTATION_MAX];
};

static int cmp_suggestion(const void *a, const void *b)
{
  const struct suggestion *x = a, *y = b;
  if(x->score != y->score)
    return y->score - x->score;
  return strcmp(x->san, y->san);
}

/*
 * Fills err->suggest (§1.4): with `only`, exactly those moves; otherwise
 * the legal moves sharing the destination, the origin or the piece type
 * with what was read, best first, or all of them when there are at most
 * REF_SUGGEST_MAX (a player with few choices sees them all).
 */
static void suggest(const struct ref_chess_pos *p, const struct pattern *pt, const uint16_t *only,
                    int nonly, struct ref_err *err)
{
  struct suggestion sg[REF_CH_MAX_MOVES];
  uint16_t moves[REF_CH_MAX_MOVES];
  int i, n, k = 0, kept = 0;

  if(!err)
    return;
  if(only) {
    n = nonly;
    memcpy(moves, only, (size_t)n * sizeof(moves[0]));
  }
  else {
    n = ref_chess_gen_legal(p, moves);
  }
  for(i = 0; i < n; i++) {
    int from = ref_chess_move_from(moves[i]), score = 0;
    if(pt && !only) {
      if(pt->castle && ref_chess_move_kind(moves[i]) == REF_CH_MV_CASTLE)
        score += 4;
      if(ref_chess_move_to(moves[i]) == pt->to)
        score += 4;
      if((pt->ff >= 0 || pt->fr >= 0) && (pt->ff < 0 || (int)SQ_FILE(from) == pt->ff) &&
         (pt->fr < 0 || (int)SQ_RANK(from) == pt->fr))
        score += 2;
      if(pt->piece >= 0 && REF_CH_TYPE(p->board[from]) == pt->piece)
        score += 1;
    }
    sg[k].score = score;
    ref_chess_san(p, moves[i], sg[k].san, sizeof(sg[k].san));
    k++;
  }
  qsort(sg, (size_t)k, sizeof(sg[0]), cmp_suggestion);
  for(i = 0; i < k && kept < REF_SUGGEST_MAX; i++) {
    /* Many moves: only related ones, unless nothing relates at all. */
    if(!only && k > REF_SUGGEST_MAX && sg[i].score == 0 && sg[0].score > 0)
      break;
    memcpy(err->suggest[kept++], sg[i].san, sizeof(sg[i].san));
  }
  err->nsuggest = kept;
}

/* Fills err (reason, detail, suggestions) and returns code. */
static int parse_fail(const struct ref_chess_pos *p, struct ref_err *err, enum ref_code code,
                      const char *reason, const char *detail, const struct pattern *pt)
{
  ref_err_set(err, code, reason, detail);
  suggest(p, pt, NULL, 0, err);
  return code;
}

/*
 * Reads one move of player input. OUT: out (REF_OK only). On failure err
 * carries the reason key and suggestions, chosen in this order so the
 * player hears the most specific truth:
 *   unreadable (REF_EPARSE); ambiguous (REF_EAMBIGUOUS); then REF_EILLEGAL
 *   with promotion-piece-missing, not-a-capture, the castling refusals,
 *   king-in-check (a pseudo-legal match), no-piece-there / not-your-piece
 *   (a named origin), and no-such-move.
 * REF_EPHASE when the game is over.
 */
static int chess_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                       struct ref_err *err)
{
  const struct chess_state *st = cstate_of(s);
  const struct ref_chess_pos *p = &st->pos;
  struct pattern pats[2], hint;
  uint16_t moves[REF_CH_MAX_MOVES], found[REF_CH_MAX_MOVES];
  uint16_t promo_missing = 0, not_capture = 0;
  char in[24], detail[96], sq[3];
  int npat = 0, nfound = 0, n, i, k, castle;
  bool lower = false;

  if(st->over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  if(!text || !clean_input(text, in, sizeof(in))) {
    hint_pattern(text ? text : "", &hint);
    return parse_fail(p, err, REF_EPARSE, "unreadable", NULL, &hint);
  }
  castle = castle_kind(in);
  if(castle) {
    memset(&pats[0], 0, sizeof(pats[0]));
    pats[0].castle = castle;
    pats[0].to = pats[0].promo = pats[0].ff = pats[0].fr = -1;
    pats[0].piece = REF_CH_KING;
    npat = 1;
  }
  else {
    for(i = 0; in[i]; i++)
      if(in[i] >= 'a' && in[i] <= 'z')
        lower = true;
    if(parse_pattern(in, false, &pats[npat]))
      npat++;
    /* "BC4" in capitals: the bishop, or the b-pawn taking on c4 (§1.3:
     * upper-case squares only where unambiguous, so both are tried). */
    if(in[0] == 'B' && !lower && parse_pattern(in, true, &pats[npat]))
      npat++;
  }
  if(!npat) {
    hint_pattern(in, &hint);
    return parse_fail(p, err, REF_EPARSE, "unreadable", in, &hint);
  }

  n = ref_chess_gen_legal(p, moves);
  for(i = 0; i < n; i++) {
    bool full = false;
    for(k = 0; k < npat; k++) {
      enum match m = pattern_match(p, &pats[k], moves[i]);
      if(m == MATCH_FULL)
        full = true;
      else if(m == MATCH_PROMO_MISSING && !promo_missing)
        promo_missing = moves[i];
      else if(m == MATCH_NOT_CAPTURE && !not_capture)
        not_capture = moves[i];
    }
    if(full)
      found[nfound++] = moves[i];
  }

  if(nfound == 1) {
    memset(out, 0, sizeof(*out));
    out->w[0] = found[0];
    return REF_OK;
  }
  if(nfound > 1) {
    struct suggestion sg[REF_CH_MAX_MOVES];
    size_t len = 0;
    detail[0] = '\0';
    for(i = 0; i < nfound; i++) {
      sg[i].score = 0;
      ref_chess_san(p, found[i], sg[i].san, sizeof(sg[i].san));
    }
    qsort(sg, (size_t)nfound, sizeof(sg[0]), cmp_suggestion);
    for(i = 0; i < nfound; i++) {
      if(len + strlen(sg[i].san) + 3 < sizeof(detail))
        len += (size_t)snprintf(detail + len, sizeof(detail) - len, "%s%s", i ? ", " : "",
                                sg[i].san);
    }
    ref_err_set(err, REF_EAMBIGUOUS, "ambiguous", detail);
    suggest(p, NULL, found, nfound, err);
    return REF_EAMBIGUOUS;
  }
  if(promo_missing) {
    /* §2.4: no default queen; name the move without its piece. */
    int from = ref_chess_move_from(promo_missing), to = ref_chess_move_to(promo_missing);
    square_name(to, sq);
    if(SQ_FILE(from) != SQ_FILE(to))
      snprintf(detail, sizeof(detail), "%cx%s", 'a' + SQ_FILE(from), sq);
    else
      snprintf(detail, sizeof(detail), "%s", sq);
    return parse_fail(p, err, REF_EILLEGAL, "promotion-piece-missing", detail, &pats[0]);
  }
  if(not_capture) {
    square_name(ref_chess_move_to(not_capture), sq);
    return parse_fail(p, err, REF_EILLEGAL, "not-a-capture", sq, &pats[0]);
  }

  /* Readable but not legal: say why, from the pseudo-legal moves. */
  for(k = 0; k < npat; k++) {
    if(pats[k].castle)
      return parse_fail(p, err, REF_EILLEGAL, castle_refusal(p, pats[k].castle == 1), NULL,
                        &pats[k]);
  }
  n = ref_chess_gen_pseudo(p, 0, moves);
  for(i = 0; i < n; i++) {
    for(k = 0; k < npat; k++) {
      enum match m = pattern_match(p, &pats[k], moves[i]);
      if(m == MATCH_NONE)
        continue;
      if(ref_chess_move_kind(moves[i]) == REF_CH_MV_CASTLE)
        return parse_fail(p, err, REF_EILLEGAL,
                          castle_refusal(p, ref_chess_move_to(moves[i]) > ref_chess_move_from(moves[i])),
                          NULL, &pats[k]);
      return parse_fail(p, err, REF_EILLEGAL, "king-in-check", NULL, &pats[k]);
    }
  }
  for(k = 0; k < npat; k++) {
    if(pats[k].ff >= 0 && pats[k].fr >= 0) {
      int from = pats[k].fr * 8 + pats[k].ff;
      square_name(from, sq);
      if(p->board[from] == REF_CH_EMPTY)
        return parse_fail(p, err, REF_EILLEGAL, "no-piece-there", sq, &pats[k]);
      if(REF_CH_COLOR(p->board[from]) != p->side)
        return parse_fail(p, err, REF_EILLEGAL, "not-your-piece", sq, &pats[k]);
    }
  }
  return parse_fail(p, err, REF_EILLEGAL, "no-such-move", in, &pats[0]);
}

/* ------------------------------------------------------------------------ */
/* The ASCII board */

/*
 * The board as `seat` sees it: White from rank 1 up, Black (seat 1) with
 * ranks and files turned round. Three columns a square, the last move's
 * origin and destination in brackets, letters as in FEN (upper case White),
 * '.' for an empty square; 29 columns wide, plain ASCII for text/plain mail.
 */
static int chess_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct chess_state *st = cstate_of(s);
  char out[512];
  size_t k = 0;
  int row, col, i;
  bool flip = seat == 1;

  for(i = 0; i < 2; i++) {
    if(i == 1) {
      for(row = 0; row < 8; row++) {
        int rank = flip ? row : 7 - row;
        out[k++] = ' ';
        out[k++] = (char)('1' + rank);
        out[k++] = ' ';
        for(col = 0; col < 8; col++) {
          int file = flip ? 7 - col : col, sq = rank * 8 + file, code = st->pos.board[sq];
          bool mark = sq == st->last_from || sq == st->last_to;
          char c = '.';
          if(code != REF_CH_EMPTY) {
            c = piece_letters[REF_CH_TYPE(code)];
            if(REF_CH_COLOR(code) == REF_CH_BLACK)
              c = (char)(c - 'A' + 'a');
          }
          out[k++] = mark ? '[' : ' ';
          out[k++] = c;
          out[k++] = mark ? ']' : ' ';
        }
        out[k++] = ' ';
        out[k++] = (char)('1' + rank);
        out[k++] = '\n';
      }
    }
    out[k++] = ' ';
    out[k++] = ' ';
    out[k++] = ' ';
    for(col = 0; col < 8; col++) {
      out[k++] = ' ';
      out[k++] = (char)('a' + (flip ? 7 - col : col));
      if(col < 7)
        out[k++] = ' ';
    }
    out[k++] = '\n';
  }
  out[k] = '\0';
  if(k + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
}

/* The board as data (issue 17): FEN letters, the last move marked; Black
 * (seat 1) reads from the other side. */
static int chess_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct chess_state *st = cstate_of(s);
  ref_diag_grid(d, 8, 8, seat == 1);
  ref_diag_chess_board(d, st->pos.board, st->last_from, st->last_to);
  return REF_OK;
}

/* ------------------------------------------------------------------------ */

static const struct ref_game_ops chess_ops = {
  chess_init,   /* init */
  chess_decode, /* decode */
  chess_encode, /* encode */
  chess_legal,  /* legal */
  chess_parse,  /* parse */
  chess_format, /* format */
  chess_apply,  /* apply */
  NULL,         /* roll: diceless */
  chess_act,    /* act */
  chess_status, /* status */
  chess_render, /* render */
  chess_perft,  /* perft */
  chess_ok,     /* ok */
  chess_diagram, /* diagram */
};

const struct ref_game_desc ref_game_chess = {
  "chess",                    /* name */
  "Chess",                    /* title */
  1,                          /* version: bump when any ruling changes */
  2,                          /* seats */
  {"White", "Black"},         /* seat_names */
  REF_GAME_DRAWS,             /* flags */
  sizeof(struct chess_state), /* state_size */
  &chess_ops,                 /* ops */
};
