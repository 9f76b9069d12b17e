/*
 * board_geometry_int.h: chess on boards that are not 8x8 (library
 * tabula_rules, internal). rules-spec.md §9: "a set of existing cells +
 * adjacency steps with a blocked-step predicate".
 *
 * chess.c's bitboards hold 64 squares and bake the 8x8 shape into their
 * shifts; Back-to-Back Chess (§8) needs 14 columns, missing cells and a
 * barrier. Here a board is *data*: a geometry spec (struct ref_geo_spec)
 * says which cells exist, which single steps a wall forbids, how pawns walk
 * and promote, where pawns start and how castling bends. ref_geo_build turns
 * a spec into lookup tables (struct ref_geo), and one generic mailbox engine
 * (legal moves, make, attacks, perft, FEN, the invariant checker) runs on
 * any such table. Back-to-Back Chess (backtoback.c) is two specs; the plain
 * 8x8 board with no barrier is a third, used by the tests to reproduce the
 * published chess perft numbers (an outside oracle for the machinery).
 *
 * Cells are numbered 0x88-style: cell = row * 16 + col, row 0 = rank 1,
 * col 0 = file a, so 128 cells hold boards up to 16 x 8. Plain data, no
 * pointers: tables and positions are copied with memcpy.
 */
#ifndef TABULA_BOARD_GEOMETRY_INT_H
#define TABULA_BOARD_GEOMETRY_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules.h"

#define REF_GEO_CELLS 128
#define REF_GEO_ROW 16    /* index stride of a row */
#define REF_GEO_NONE 0xFF /* "no cell": off the board, missing, or walled off */
#define REF_GEO_MAX_COLS 14
#define REF_GEO_MAX_ROWS 8

enum { REF_GEO_WHITE = 0, REF_GEO_BLACK = 1 };
enum {
  REF_GEO_PAWN = 0,
  REF_GEO_KNIGHT = 1,
  REF_GEO_BISHOP = 2,
  REF_GEO_ROOK = 3,
  REF_GEO_QUEEN = 4,
  REF_GEO_KING = 5
};
#define REF_GEO_EMPTY 0
#define REF_GEO_PIECE(color, type) ((uint8_t)(((color) << 3) | ((type) + 1)))
#define REF_GEO_TYPE(code) (((code) & 7) - 1)
#define REF_GEO_COLOR(code) ((code) >> 3)

/* Directions: even = orthogonal, odd = diagonal; d ^ 4 is the opposite. */
enum { REF_GEO_N, REF_GEO_NE, REF_GEO_E, REF_GEO_SE, REF_GEO_S, REF_GEO_SW, REF_GEO_W, REF_GEO_NW };

static inline int ref_geo_row(int cell)
{
  return cell >> 4;
}
static inline int ref_geo_col(int cell)
{
  return cell & 15;
}

/* ---- the spec: a geometry as data ---- */

/* A wall between row `row` and row + 1 (0-based): a single step, orthogonal
 * or diagonal, from a cell of one row to a cell of the other is forbidden
 * when *both* columns lie in [col_lo, col_hi] (BB-2: steps that only touch
 * an end of the barrier, E4-F5, stay allowed). Sliders walk step by step, so
 * they stop at the wall; the knight's path is checked step by step (BB-3). */
struct ref_geo_wall {
  int row, col_lo, col_hi;
};

/* One castling move (§2.2, BB-8), squares by name ("h1"). */
struct ref_geo_castle_spec {
  char letter;           /* FEN castling letter: K Q k q */
  const char *king_from, *king_to, *rook_from, *rook_to;
  const char *empty;     /* squares that must be empty, space separated */
  const char *safe;      /* squares the king stands on, crosses or lands on:
                            none may be attacked (CH-1) */
};

struct ref_geo_spec {
  const char *name;
  int cols, rows;
  const char *holes;           /* cells of the frame that are not squares */
  int nwalls;
  struct ref_geo_wall walls[2];
  bool pawn_sideways;          /* BB-4: pawns also step left and right */
  const char *pawn_start[2];   /* where each colour's unmoved pawns stand */
  int promo_row[2];            /* 0-based row where a pawn of that colour promotes */
  unsigned pawn_bad_rows[2];   /* bit r: no pawn of that colour may stand on row r */
  struct ref_geo_castle_spec castles[4];
  const char *start_fen;
};

/* ---- the tables built from a spec ---- */

struct ref_geo_castle {
  uint8_t right;   /* bit in ref_geo_pos.castle */
  uint8_t color;
  uint8_t king_from, king_to, rook_from, rook_to;
  uint8_t nempty, nsafe;
  uint8_t empty[6], safe[6];
  char letter;
};

struct ref_geo {
  uint8_t cols, rows;
  uint8_t ncastles;
  uint8_t pad;
  uint8_t exists[REF_GEO_CELLS];          /* 1 for a square of the board */
  uint8_t step[REF_GEO_CELLS][8];         /* one step in direction d, or NONE */
  uint8_t knight[REF_GEO_CELLS][8];       /* BB-3 knight moves from a cell, or NONE */
  uint8_t knight_from[REF_GEO_CELLS][8];  /* cells whose knight reaches this one */
  uint8_t push[2][3];                     /* pawn step directions per colour */
  uint8_t npush;                          /* 1 (forward) or 3 (forward, sideways) */
  uint8_t capt[2][2];                     /* pawn capture directions per colour */
  uint8_t promo_row[2];
  uint8_t pawn_bad_rows[2];
  uint8_t castle_keep[REF_GEO_CELLS];     /* rights kept when a move touches the cell */
  uint64_t pawn_start[2][2];              /* 128-bit sets: [colour][word] */
  struct ref_geo_castle castles[4];
};

/* Builds g from spec. REF_EINVAL when the spec is malformed (a programming
 * error: specs are const data, and the tests build every one). */
int ref_geo_build(struct ref_geo *g, const struct ref_geo_spec *spec);

/* ---- positions ---- */

/*
 * A position. `virgin` marks pawns that have never moved (BB-4: only they
 * may step two squares; a Back-to-Back pawn can walk sideways back onto its
 * start square, so "on the start square" is not enough). `ep` is the square
 * a two-step just crossed and `ep_victim` the pawn that made it (sideways
 * two-steps put the victim beside, not in front of, the square: BB-6); set
 * only when an e.p. capture is legal (FIDE 9.2.3), as chess.c does.
 */
struct ref_geo_pos {
  uint8_t board[REF_GEO_CELLS];
  uint8_t king[2];
  uint8_t side;
  uint8_t castle;
  uint8_t ep, ep_victim; /* REF_GEO_NONE when no e.p. */
  uint8_t pad[2];
  uint32_t halfmove, fullmove;
  uint64_t virgin[2]; /* 128-bit set over cells, both colours */
};

/* The position string's counters have at most six digits, and a move never
 * counts past that: every position a game reaches must decode from its own
 * string. */
#define REF_GEO_COUNTER_MAX 999999u

static inline bool ref_geo_is_virgin(const struct ref_geo_pos *p, int cell)
{
  return (p->virgin[cell >> 6] >> (cell & 63)) & 1u;
}

/*
 * A move in 18 bits: from (0-6), to (7-13), kind (14-15), promotion piece
 * (16-17: knight, bishop, rook, queen). Castling is the king's move with
 * kind CASTLE (a Back-to-Back O-O-O, H1-G2, is also a plain king step, so
 * the kind tells them apart). Never 0: from != to.
 */
enum { REF_GEO_MV_NORMAL, REF_GEO_MV_PROMO, REF_GEO_MV_EP, REF_GEO_MV_CASTLE };
#define REF_GEO_MAX_MOVES 512 /* pseudo-legal: 9 queens on 14x8 and the rest stay below */

static inline uint32_t ref_geo_move(int from, int to, int kind, int promo_type)
{
  uint32_t p = kind == REF_GEO_MV_PROMO ? (uint32_t)(promo_type - REF_GEO_KNIGHT) : 0;
  return (uint32_t)from | ((uint32_t)to << 7) | ((uint32_t)kind << 14) | (p << 16);
}
static inline int ref_geo_move_from(uint32_t m)
{
  return (int)(m & 127);
}
static inline int ref_geo_move_to(uint32_t m)
{
  return (int)((m >> 7) & 127);
}
static inline int ref_geo_move_kind(uint32_t m)
{
  return (int)((m >> 14) & 3);
}
static inline int ref_geo_move_promo(uint32_t m)
{
  return REF_GEO_KNIGHT + (int)((m >> 16) & 3);
}

/* Is `cell` attacked by a piece of colour `by`? */
bool ref_geo_attacked(const struct ref_geo *g, const struct ref_geo_pos *p, int cell, int by);
bool ref_geo_in_check(const struct ref_geo *g, const struct ref_geo_pos *p);

/* Pseudo-legal moves (piece movement, castling with its attack tests, no
 * test of the mover's own king). OUT: moves, room for REF_GEO_MAX_MOVES. */
int ref_geo_gen_pseudo(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t *moves);
/* Legal moves. OUT: moves (room for REF_GEO_MAX_MOVES), or NULL to count. */
int ref_geo_gen_legal(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t *moves);
/* Would pseudo-legal m leave the mover's king attacked? */
bool ref_geo_leaves_check(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t m);
/* Plays m (from a generator) in place. */
void ref_geo_make(const struct ref_geo *g, struct ref_geo_pos *p, uint32_t m);
uint64_t ref_geo_perft(const struct ref_geo *g, const struct ref_geo_pos *p, int depth);
/* The castling shape of a CASTLE move, or NULL. */
const struct ref_geo_castle *ref_geo_castle_of(const struct ref_geo *g, uint32_t m);

/* Zobrist-style hash of everything that makes positions differ (FIDE 9.2:
 * pieces, side, castling rights, e.p.; here also the unmoved pawns). */
uint64_t ref_geo_key(const struct ref_geo_pos *p);

/*
 * The position string: FEN generalised. Rows from the top, cells left to
 * right: piece letters, runs of empty squares as decimal numbers (1-14),
 * '#' for a cell that is not a square. Then side, castling letters of the
 * geometry (or -), e.p. ("-", the crossed square "e3", or crossed square and
 * pawn "e7d7" when the pawn is not in front of it: a sideways two-step),
 * halfmove clock, fullmove number, and, only when some pawn stands on a
 * start square after having moved, a 7th field listing those squares
 * ("f1i3"). Four fields read as counters "0 1". Everything is validated:
 * the text may come from a mail. On failure *reason is a reason key.
 */
int ref_geo_fen_read(const struct ref_geo *g, struct ref_geo_pos *p, const char *fen,
                     const char **reason);
int ref_geo_fen_write(const struct ref_geo *g, const struct ref_geo_pos *p, char *buf,
                      size_t cap);

/* The name of a cell, "a1".."n8" (out: room for 3 bytes). */
void ref_geo_square_name(int cell, char *out);

/* Recomputes every redundant field; false on the first inconsistency. */
bool ref_geo_pos_ok(const struct ref_geo *g, const struct ref_geo_pos *p);

#endif /* TABULA_BOARD_GEOMETRY_INT_H */
