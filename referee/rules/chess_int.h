/*
 * chess_int.h: the board machinery of the chess rules core (chess.c), shared
 * inside tabula_rules only. Not a public header: the service sees chess
 * through rules.h and ref_game_chess.
 *
 * What lives here is what a chess-family variant reuses instead of copying
 * (rules-spec.md §9): 64-square bitboards (a1 = 0, b1 = 1, ..., h8 = 63),
 * compile-time attack tables, sliding attacks by obstruction difference, the
 * position struct with its Zobrist key, the move encoding, primitives that
 * keep bitboards, mailbox and key in step, a legal generator (chess rules
 * §2.2: pins, check evasions, CH-1 castling) and a pseudo-legal one (piece
 * movement only, for games without check such as Diceless Chessgammon §5.2).
 *
 * Everything is plain data; no function here allocates, keeps state between
 * calls or reads anything but its arguments and the const tables.
 */
#ifndef TABULA_CHESS_INT_H
#define TABULA_CHESS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules.h"

/* Colours and piece types. */
enum { REF_CH_WHITE = 0, REF_CH_BLACK = 1 };
enum {
  REF_CH_PAWN = 0,
  REF_CH_KNIGHT = 1,
  REF_CH_BISHOP = 2,
  REF_CH_ROOK = 3,
  REF_CH_QUEEN = 4,
  REF_CH_KING = 5
};

/* Mailbox codes: 0 is an empty square, else (colour << 3) | (type + 1). */
#define REF_CH_EMPTY 0
#define REF_CH_PIECE(color, type) ((uint8_t)(((color) << 3) | ((type) + 1)))
#define REF_CH_TYPE(code) (((code) & 7) - 1)
#define REF_CH_COLOR(code) ((code) >> 3)

#define REF_CH_NO_SQ 64 /* "no square": no e.p. target, no last move */

/* Castling rights, one bit each. */
#define REF_CH_WK 1u /* White O-O */
#define REF_CH_WQ 2u /* White O-O-O */
#define REF_CH_BK 4u
#define REF_CH_BQ 8u

/* The most legal moves any chess position has is 218; the pseudo-legal
 * generator can list more (kings walking into check), so lists get room. */
#define REF_CH_MAX_MOVES 320

/*
 * A move in 16 bits: from (bits 0-5), to (6-11), kind (12-13), promotion
 * piece (14-15: knight, bishop, rook, queen). Castling is the king's move
 * (e1g1), as UCI writes it. Stored in ref_move.w[0]; the other words are 0.
 */
enum {
  REF_CH_MV_NORMAL = 0,
  REF_CH_MV_PROMO = 1,
  REF_CH_MV_EP = 2,
  REF_CH_MV_CASTLE = 3
};

static inline uint16_t ref_chess_move(int from, int to, int kind, int promo_type)
{
  int p = kind == REF_CH_MV_PROMO ? promo_type - REF_CH_KNIGHT : 0;
  return (uint16_t)(from | (to << 6) | (kind << 12) | (p << 14));
}
static inline int ref_chess_move_from(uint16_t m)
{
  return m & 63;
}
static inline int ref_chess_move_to(uint16_t m)
{
  return (m >> 6) & 63;
}
static inline int ref_chess_move_kind(uint16_t m)
{
  return (m >> 12) & 3;
}
/* The piece type a promotion makes (meaningful for REF_CH_MV_PROMO only). */
static inline int ref_chess_move_promo(uint16_t m)
{
  return REF_CH_KNIGHT + (m >> 14);
}

/*
 * A position. Bitboards and mailbox say the same thing twice, and `key` is
 * a function of the rest: ref_chess_pos_ok recomputes all of it.
 *
 * `ep` is set only when an en-passant capture is actually legal (FIDE 9.2.3:
 * positions differ only if the capture "could have been" made), so the
 * Zobrist key, repetition and the FEN writer all agree with Stockfish and
 * chess.js without a second test.
 */
struct ref_chess_pos {
  uint64_t pieces[2][6]; /* [colour][type] */
  uint64_t occ[2];       /* per colour */
  uint64_t key;          /* Zobrist hash of board, side, castling, e.p. */
  uint8_t board[64];     /* mailbox, REF_CH_PIECE codes */
  uint8_t side;          /* colour to move */
  uint8_t castle;        /* REF_CH_WK | ... */
  uint8_t ep;            /* e.p. target square or REF_CH_NO_SQ */
  uint8_t pad;
  uint32_t halfmove; /* plies since the last capture or pawn move */
  uint32_t fullmove; /* FEN fullmove number, starts at 1 */
};

/* The FEN counters are read with at most six digits, and a move never
 * counts past that: every position a game reaches must decode from its own
 * string (a fen= start at 999999 used to write 1000000, refused). */
#define REF_CH_COUNTER_MAX 999999u

/* ---- bitboard helpers ---- */

static inline uint64_t ref_chess_bit(int sq)
{
  return 1ull << sq;
}
static inline int ref_chess_lsb(uint64_t b)
{
  return __builtin_ctzll(b);
}
static inline int ref_chess_popcount(uint64_t b)
{
  /* SWAR count: the builtin becomes a slow library call unless the build
   * targets POPCNT, which the project does not assume. */
  b = b - ((b >> 1) & 0x5555555555555555ull);
  b = (b & 0x3333333333333333ull) + ((b >> 2) & 0x3333333333333333ull);
  b = (b + (b >> 4)) & 0x0F0F0F0F0F0F0F0Full;
  return (int)((b * 0x0101010101010101ull) >> 56);
}

/* ---- attack tables (const, computed by the compiler in chess.c) ---- */

extern const uint64_t ref_chess_knight_att[64];
extern const uint64_t ref_chess_king_att[64];
extern const uint64_t ref_chess_pawn_att[2][64]; /* squares a pawn of colour c on sq attacks */
/* For each square and each line through it (file, rank, diagonal,
 * anti-diagonal): the line's squares below and above the square. */
struct ref_chess_line {
  uint64_t lower[4];
  uint64_t upper[4];
};
extern const struct ref_chess_line ref_chess_lines[64];
extern const uint64_t ref_chess_zobrist_piece[2][6][64];
extern const uint64_t ref_chess_zobrist_ep[8];
extern const uint64_t ref_chess_zobrist_castle[16];
extern const uint64_t ref_chess_zobrist_side;

/* Attacks along line `l` (0 file, 1 rank, 2 diagonal, 3 anti-diagonal) from
 * sq, stopping at (and including) the first occupied square each way.
 * Obstruction difference: branch-free, needs only the 4 KB line table. */
static inline uint64_t ref_chess_line_att(int sq, int l, uint64_t occ)
{
  const struct ref_chess_line *t = &ref_chess_lines[sq];
  uint64_t lower = t->lower[l] & occ, upper = t->upper[l] & occ;
  uint64_t ms1b = 0x8000000000000000ull >> __builtin_clzll(lower | 1);
  uint64_t odiff = upper ^ (upper - ms1b);
  return (t->lower[l] | t->upper[l]) & odiff;
}
static inline uint64_t ref_chess_rook_att(int sq, uint64_t occ)
{
  return ref_chess_line_att(sq, 0, occ) | ref_chess_line_att(sq, 1, occ);
}
static inline uint64_t ref_chess_bishop_att(int sq, uint64_t occ)
{
  return ref_chess_line_att(sq, 2, occ) | ref_chess_line_att(sq, 3, occ);
}
static inline uint64_t ref_chess_queen_att(int sq, uint64_t occ)
{
  return ref_chess_rook_att(sq, occ) | ref_chess_bishop_att(sq, occ);
}

/* Squares strictly between a and b when they share a line, else 0. */
uint64_t ref_chess_between(int a, int b);
/* The whole line through a and b (both included) when they share one, else 0. */
uint64_t ref_chess_line_through(int a, int b);

/* Pieces of either colour attacking sq, with `occ` as the blockers. */
uint64_t ref_chess_attackers(const struct ref_chess_pos *p, int sq, uint64_t occ);
/* Is sq attacked by a piece of colour `by`? */
bool ref_chess_attacked(const struct ref_chess_pos *p, int sq, int by);
/* Is the side to move in check? */
bool ref_chess_in_check(const struct ref_chess_pos *p);

/* ---- primitives: each keeps bitboards, mailbox and key consistent ---- */

void ref_chess_put(struct ref_chess_pos *p, int color, int type, int sq);
void ref_chess_remove(struct ref_chess_pos *p, int sq);
/* Empties the board: no pieces, White to move, no rights, counters 0 1. */
void ref_chess_clear(struct ref_chess_pos *p);
/* The key recomputed from scratch (for set-up code and the checker). */
uint64_t ref_chess_key_compute(const struct ref_chess_pos *p);
/* The bitboards (pieces, occ) recomputed from the mailbox: true when every
 * square holds a valid code and they match (for the checkers). */
bool ref_chess_tables_ok(const struct ref_chess_pos *p);

/* ---- move generation and making ---- */

/*
 * Legal moves (§2.2: the move must not leave the mover's king attacked;
 * castling per CH-1). OUT: moves, room for REF_CH_MAX_MOVES. Returns the
 * count. ref_chess_count_legal returns the same count without listing
 * (perft bulk counting).
 */
int ref_chess_gen_legal(const struct ref_chess_pos *p, uint16_t *moves);
int ref_chess_count_legal(const struct ref_chess_pos *p);

/*
 * Pseudo-legal moves: piece movement alone (§2.2 first bullets), with no
 * regard to check. Castling is listed when the right exists and the squares
 * between king and rook are empty (no attack test); e.p. when `ep` is set.
 * Flags drop families a variant does not have. OUT: moves (not NULL, room
 * for REF_CH_MAX_MOVES). Returns the count.
 */
#define REF_CH_GEN_NO_CASTLE 1u
#define REF_CH_GEN_NO_PROMO 2u /* a pawn reaching the last rank stays a pawn */
int ref_chess_gen_pseudo(const struct ref_chess_pos *p, unsigned flags, uint16_t *moves);

/* Full legality of one pseudo-legal move by playing it on a copy. Slow;
 * for tests and error messages, not for generation. */
bool ref_chess_pseudo_is_legal(const struct ref_chess_pos *p, uint16_t m);

/* Plays m (legal, or pseudo-legal for a variant without check) in place. */
void ref_chess_make(struct ref_chess_pos *p, uint16_t m);

/* Leaf count of the legal-move tree, bulk-counted at depth 1. */
uint64_t ref_chess_perft(const struct ref_chess_pos *p, int depth);

/* ---- text ---- */

/*
 * Reads a FEN, validating it as described in chess.c (one king each, no
 * pawn on the first or last rank, side not to move not in check, castling
 * rights matching king and rook squares, a plausible e.p. square, sane
 * counters). OUT: p. On failure returns REF_EINVAL and sets `*reason` to a
 * static reason key; p is then unspecified.
 */
int ref_chess_fen_read(struct ref_chess_pos *p, const char *fen, const char **reason);
/* FEN's first field, the placement, into out (room for 72): "rnbqkbnr/...".
 * Returns its length; out is NUL-terminated. */
size_t ref_chess_placement_write(const struct ref_chess_pos *p, char *out);
/* The board as `seat` sees it (seat 1: turned round), three columns a
 * square, letters as in FEN, '.' empty, the squares `from` and `to` (the
 * last move; REF_CH_NO_SQ for none) in brackets, file letters above and
 * below, rank numbers on both sides. Into out (room for 400); returns the
 * length, out NUL-terminated. */
size_t ref_chess_diagram(const struct ref_chess_pos *p, int seat, int from, int to, char *out);
/* Writes the FEN (NUL-terminated). REF_EINVAL if cap is too small. */
int ref_chess_fen_write(const struct ref_chess_pos *p, char *buf, size_t cap);

/* Canonical SAN of legal move m, with + or #. REF_EINVAL if cap is small. */
int ref_chess_san(const struct ref_chess_pos *p, uint16_t m, char *buf, size_t cap);
/* UCI of m (castling as the king's move). */
int ref_chess_uci(uint16_t m, char *buf, size_t cap);

/* Recomputes every redundant field; false on the first inconsistency. */
bool ref_chess_pos_ok(const struct ref_chess_pos *p);

/* Could side c's men arise in a game (§2.1, §2.2 promotion)? At most 8
 * pawns, and pieces beyond the starting set only in place of missing
 * pawns. Chess and Backgammon Chess (POS-1). */
bool ref_chess_material_possible(const struct ref_chess_pos *p, int c);
/* CH-2's dead positions by material (both sides' pieces together): no
 * pawn, rook or queen (`heavy` empty) and at most one minor piece, or only
 * bishops, all on squares of one colour. Chess and DA-7 (the armies, when
 * only FIDE pieces are left). */
bool ref_chess_dead_material(uint64_t heavy, uint64_t knights, uint64_t bishops);

#endif /* TABULA_CHESS_INT_H */
