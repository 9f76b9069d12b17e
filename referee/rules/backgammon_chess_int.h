/*
 * backgammon_chess_int.h: Backgammon Chess (rules-spec.md section 6),
 * private to its three files (not part of rules.h):
 *   backgammon_chess.c           the turn, the position string, the game ops;
 *   backgammon_chess_board.c     the chess board with stones: attack (BC-7),
 *                                the legal chess-board moves, SAN out;
 *   backgammon_chess_notation.c  a turn written out and read (6.5).
 */
#ifndef TABULA_BACKGAMMON_CHESS_INT_H
#define TABULA_BACKGAMMON_CHESS_INT_H

#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backgammon_int.h"
#include "checkers_int.h"
#include "chess_int.h"
#include "rules.h"

#define BC_MAGIC 0x42434831u /* "BCH1" */
#define BC_TAG 0x42430000u   /* "BC": marks a ref_move made here */
#define BC_HAS_BG 0x1u
#define BC_HAS_CHESS 0x2u
#define BC_NPLACE_SHIFT 4
#define BC_LAG_MAX 9
#define BC_LAG_DEFAULT 2 /* lagbgchess without lag=: section 6.9 leaves L open */
#define BIT(sq) (UINT64_C(1) << (sq))
#define NO_SQ REF_CH_NO_SQ

enum bc_stage { ST_NONE, ST_BG, ST_PLACE, ST_CHESS };

/*
 * The state. pos holds pieces only; pos.side is always `onroll` while the
 * game runs and pos.ep always NO_SQ (our own `ep` is stone-aware).
 * `bgtext` is this turn's backgammon play as played (so a player who
 * repeats it with the chess move is understood); it is not part of the
 * position string.
 */
struct bc_state {
  uint32_t magic;
  struct ref_chess_pos pos;
  uint64_t stones[2]; /* squares holding a stone of that side */
  uint64_t dbl[2];    /* the doubled ones (X), a subset */
  struct ref_bg_board b;
  struct ref_bg_cube cube;
  struct ref_bg_turn t; /* phase, seats, dice, result (no opening roll: BC-1) */
  uint8_t stage;   /* enum bc_stage, in REF_PHASE_MOVE */
  uint8_t pending; /* stones still to place (stage ST_PLACE) */
  uint8_t first;   /* White's first turn: chess only (6.2.1) */
  uint8_t ep;      /* e.p. target or NO_SQ */
  uint8_t lag;
  uint8_t draws;
  uint8_t last_from, last_to; /* the last chess move, for render */
  char bgtext[48];
};

/* One chess-board move: a piece move (the chess core's 16 bits) or a stone
 * path (the checkers generator's). A stone's "piece type" in notation: */
#define BC_STONE 6
struct bc_cmove {
  uint8_t stone;
  uint16_t m;
  struct ref_ck_path path;
};

struct bc_cmlist {
  int n, cap;
  struct bc_cmove *v;
};

/* A whole or partial turn as parsed or listed. */
struct bc_turn {
  bool has_bg;
  struct ref_bg_play play;
  int nplace;
  uint8_t place[4];
  bool has_chess;
  struct bc_cmove cm;
};

static inline struct bc_state *ref_bc_st(struct ref_state *s)
{
  return (struct bc_state *)(void *)s;
}

static inline const struct bc_state *ref_bc_cst(const struct ref_state *s)
{
  return (const struct bc_state *)(const void *)s;
}

static inline void ref_bc_sq_name(int sq, char out[3])
{
  out[0] = (char)('a' + sq % 8);
  out[1] = (char)('1' + sq / 8);
  out[2] = '\0';
}

/* "e4" (either case) at p: the square, else -1. */
static inline int ref_bc_sq_read(const char *p)
{
  int f = tolower((unsigned char)p[0]) - 'a', r = p[1] - '1';
  if(f < 0 || f > 7 || r < 0 || r > 7)
    return -1;
  return r * 8 + f;
}

/* backgammon_chess_board.c */
int ref_bc_stone_checkers(const struct bc_state *st, int side);
bool ref_bc_king_attacked(const struct bc_state *st, int side);
void ref_bc_cm_free(struct bc_cmlist *l);
void ref_bc_flip_side(struct ref_chess_pos *p);
void ref_bc_cm_do(struct bc_state *st, const struct bc_cmove *cm);
int ref_bc_gen_chess(const struct bc_state *st, struct bc_cmlist *out);
bool ref_bc_cm_same(const struct bc_cmove *a, const struct bc_cmove *b);
void ref_bc_cm_format(const struct bc_state *st, const struct bc_cmlist *legal,
                      const struct bc_cmove *cm, char *out, size_t cap);

/* backgammon_chess_turn.c: a turn part by part (below the ops and the
 * notation, which both call it) */
void ref_bc_finish(struct bc_state *st, int winner, enum ref_end end, int points);
void ref_bc_start_turn(struct bc_state *st, int seat);
int ref_bc_do_bg(struct bc_state *st, const struct ref_bg_play *p, bool check);
const char *ref_bc_place_refusal(const struct bc_state *st, int sq);
int ref_bc_do_place(struct bc_state *st, int sq);
void ref_bc_turn_to_move(const struct bc_turn *t, struct ref_move *m);
void ref_bc_match_of(const struct bc_state *st, struct ref_bg_match *m);
int ref_bc_move_to_turn(const struct ref_move *m, struct bc_turn *t);
int ref_bc_do_turn(struct bc_state *st, const struct bc_turn *t);

/* backgammon_chess_notation.c */
bool ref_bc_turn_format(const struct bc_state *st, const struct bc_turn *t, char *out,
                        size_t cap);
int ref_bc_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                 struct ref_err *err);

#endif
