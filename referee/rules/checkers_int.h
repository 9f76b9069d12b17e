/*
 * checkers_int.h: the reusable part of checkers, private to the rules core
 * (not part of rules.h).
 *
 * Two games stand on it: English checkers (checkers.c) and Backgammon Chess,
 * whose "stones" move like checkers men on a chess board, doubled stones
 * like kings, with ranks that wrap around (rules-spec.md 6.3, BC-5). So the
 * board is abstract: a set of cells with a diagonal neighbour table
 * (struct ref_ck_geom), and the generator takes what the caller's game
 * knows as plain masks: which cells are occupied, which hold something the
 * mover may jump, which directions the piece may use and where a man stops
 * because it was crowned. Whether captures are compulsory, who moves and
 * what a capture does to the captured pieces stay with the game.
 *
 * Rules this layer implements (rules-spec.md 3.2, seed 004):
 * - a step goes one cell diagonally, in one of the piece's directions, to an
 *   empty cell;
 * - a jump goes over a diagonally adjacent enemy to the empty cell directly
 *   beyond, in one of the piece's directions; once a piece has jumped it
 *   must go on jumping while it can, and may change direction;
 * - captured pieces stay on the board until the move ends, so none is
 *   jumped twice and none frees its square for a landing;
 * - the moving piece leaves its origin at once, so a king may pass through
 *   or end on the square it started from (the ring capture that
 *   rapid-draughts gets wrong, shared oracles.md 3.2);
 * - a landing on a `stop` cell ends the move (a man reaching the crown row
 *   is crowned and stops there: "stops movement and becomes a king"). The
 *   piece keeps its direction set for the whole move, so on a board whose
 *   crown row is its edge a man could not jump on anyway; `stop` states the
 *   rule outright and covers boards where that is not so (wrapping ranks).
 *
 * Every complete move is reported once per distinct path: two routes that
 * take the same pieces to the same square are two moves, as the published
 * perft counts them (OEIS A133046).
 */
#ifndef TABULA_CHECKERS_INT_H
#define TABULA_CHECKERS_INT_H

#include <stdbool.h>
#include <stdint.h>

/* Diagonal directions, named as seen from White's side of the board
 * (White's side is rank 1, "north" is toward rank 8). */
enum ref_ck_dir {
  REF_CK_NE, /* file + 1, rank + 1 */
  REF_CK_NW, /* file - 1, rank + 1 */
  REF_CK_SE, /* file + 1, rank - 1 */
  REF_CK_SW, /* file - 1, rank - 1 */
  REF_CK_NDIRS
};

/* Direction sets (bit masks of enum ref_ck_dir). White's men go north,
 * Black's south; kings (and doubled stones, BC-5) go all four ways. */
#define REF_CK_NORTH ((1u << REF_CK_NE) | (1u << REF_CK_NW))
#define REF_CK_SOUTH ((1u << REF_CK_SE) | (1u << REF_CK_SW))
#define REF_CK_ALL (REF_CK_NORTH | REF_CK_SOUTH)

#define REF_CK_CELLS_MAX 64
/* Longest jump sequence. Every cell jumped over lies in one quarter of the
 * board (one file parity, one rank parity, relative to the origin), which
 * holds 16 cells of an 8x8 board: no path can take more. */
#define REF_CK_HOPS_MAX 16

/*
 * The board: cells 0 .. ncells-1 and, for each, its diagonal neighbour in
 * each direction, or -1 off the board. Wrapping, holes and odd shapes are
 * all just entries of this table.
 */
struct ref_ck_geom {
  int ncells;
  int8_t nb[REF_CK_CELLS_MAX][REF_CK_NDIRS];
};

/* The 32 dark squares of a checkers board: cell i is square i + 1 of the
 * standard numbering (rules-spec.md 3.1: 1 = b8 ... 32 = g1). No wrap. */
extern const struct ref_ck_geom ref_ck_geom_draughts;

/* All 64 squares of a chess board, cell = rank * 8 + file (a1 = 0, h8 =
 * 63), ranks wrapping ("the first rank is after the last rank", rules-spec
 * 6.3), files not: the board of Backgammon Chess stones. */
extern const struct ref_ck_geom ref_ck_geom_wrap64;

/*
 * Fills `out` for a files x ranks grid. cell_of[rank * files + file] is the
 * cell number of that square, or -1 where there is no cell (light squares,
 * holes); cell numbers must be 0 .. ncells-1, each used once. wrap_ranks
 * joins the last rank to the first. For boards the constant tables above do
 * not cover, and to check them.
 * Returns 0, or -1 when the grid is too big or cell_of is inconsistent.
 */
int ref_ck_geom_build(struct ref_ck_geom *out, int files, int ranks, const int8_t *cell_of,
                      bool wrap_ranks);

/*
 * One complete move of one piece. A step has nhops = 1 and capture false;
 * a capture has nhops >= 1 jumps, to[i] the cell landed on by jump i and
 * over[i] the cell it jumped. The final cell is to[nhops - 1].
 */
struct ref_ck_path {
  uint8_t from;
  uint8_t nhops;
  bool capture;
  uint8_t to[REF_CK_HOPS_MAX];
  uint8_t over[REF_CK_HOPS_MAX];
  uint64_t captured; /* bit c: cell c was jumped */
};

/* What the generator sees. Bit c of a mask is cell c. */
struct ref_ck_board {
  const struct ref_ck_geom *geom;
  uint64_t occupied; /* cells nothing may step or land on (every piece, both sides) */
  uint64_t enemy;    /* cells holding something the mover may jump */
};

/*
 * Called once per complete move. Return 0 to go on; any other value stops
 * the generation and is returned by ref_ck_steps / ref_ck_jumps. The path
 * is only valid during the call.
 */
typedef int (*ref_ck_emit_fn)(void *ctx, const struct ref_ck_path *path);

/*
 * Every step of the piece on `from` in the directions `dirs`, in direction
 * order. Returns 0, or the first non-zero value of `emit`.
 */
int ref_ck_steps(const struct ref_ck_board *b, int from, unsigned dirs, ref_ck_emit_fn emit,
                 void *ctx);

/*
 * Every complete jump sequence of the piece on `from` (the piece itself
 * need not be in b->occupied; it is lifted in any case). `dirs`: the
 * directions it may jump in (a man's forward pair, a king's four). `stop`:
 * cells where a landing ends the move (the man's crown row; 0 for kings
 * and for stones, which never promote). Depth first, directions in enum
 * order, so the order is stable. Returns 0, or the first non-zero value of
 * `emit`.
 */
int ref_ck_jumps(const struct ref_ck_board *b, int from, unsigned dirs, uint64_t stop,
                 ref_ck_emit_fn emit, void *ctx);

/* Whether the piece on `from` has at least one jump (cheaper than
 * ref_ck_jumps: the first hop decides). */
bool ref_ck_can_jump(const struct ref_ck_board *b, int from, unsigned dirs);

/* The direction from cell `a` to its neighbour `b` (one step), or from `a`
 * to the landing `b` of a jump (two steps) when `two` is true; -1 if none. */
int ref_ck_dir_between(const struct ref_ck_geom *g, int a, int b, bool two);

#endif /* TABULA_CHECKERS_INT_H */
