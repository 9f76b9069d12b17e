/*
 * tables_chess_int.h: the board arithmetic of Tables Chess (Adam Goss),
 * private to the rules core. The game ops live in tables_chess.c; this
 * header exposes the steps and the play generator so that tests can check
 * them against backgammon's (backgammon_int.h) where the rules coincide.
 *
 * Rules: docs/rules-spec.md section 7 (TC-0 .. TC-11).
 *
 * Numbering. The board is a struct ref_bg_board plus the piece types: the
 * counts live in backgammon's layout and numbering, so backgammon's step,
 * hit and invariant helpers work on it unchanged. A Tables Chess side's own
 * point p (1 = its starting corner, 24 = its king's goal, section 7.1) is
 * backgammon point q = 25 - p of that side; the bar is 25 in both layouts
 * (TC-5: die d enters on own point d, i.e. q = 25 - d, exactly where
 * backgammon enters). Moving forward lowers q. Backgammon's "off" slot
 * (q = 0) holds the checkers a side does not have: 15 - 12, so that
 * ref_bg_board_ok holds (TC-10: nothing is ever borne off).
 */
#ifndef TABULA_TABLES_CHESS_INT_H
#define TABULA_TABLES_CHESS_INT_H

#include "backgammon_int.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum { REF_TC_KING, REF_TC_ROOK, REF_TC_BISHOP, REF_TC_KNIGHT, REF_TC_PAWN, REF_TC_TYPES };

/* bg.pt[side][q]: all of side's pieces on q; n[side][q][type]: by type.
 * n[side][0][*] is always 0 (the padding in bg.pt[side][0] is no piece). */
struct ref_tc_board {
  struct ref_bg_board bg;
  uint8_t n[2][26][REF_TC_TYPES];
};

/* Why one step is refused (ref_tc_step). */
enum ref_tc_why {
  REF_TC_STEP_OK = 0,
  REF_TC_NO_PIECE,     /* no piece of that type there */
  REF_TC_BAR_FIRST,    /* a piece is on the bar and this one is not it (7.4) */
  REF_TC_BLOCKED,      /* two or more enemy pieces on the landing point (7.3) */
  REF_TC_OFF_TRACK,    /* beyond point 24, or behind point 1 (TC-10) */
  REF_TC_WRONG_DIE,    /* the piece cannot use that die (TC-2, TC-3) */
  REF_TC_BACKWARD,     /* king, pawn or a piece entering from the bar backward */
  REF_TC_PAWN_NO_BLOT  /* a pawn's 2 must hit a blot (TC-3) */
};

/* Build a board from typed counts n (bg is recomputed, padding included).
 * Returns false when a side has more than 15 pieces. */
bool ref_tc_board_sync(struct ref_tc_board *b);

/* One step of `side`'s piece of `type` from q `from` (25 = bar) by `die`,
 * forward (dir > 0, toward the goal) or backward (dir < 0). OUT: *to. */
enum ref_tc_why ref_tc_step(const struct ref_tc_board *b, int side, int type, int from, int die,
                            int dir, int *to);
/* Play a legal step; an enemy blot on `to` goes to its bar. Returns true
 * on a hit. */
bool ref_tc_step_apply(struct ref_tc_board *b, int side, int type, int from, int to);
/* TC-4: side's king (if it has one) shares its point with a friend, or has
 * arrived (q = 1, TC-9). */
bool ref_tc_king_safe(const struct ref_tc_board *b, int side);
/* q of side's king, or -1 when it has none (test boards). */
int ref_tc_king_at(const struct ref_tc_board *b, int side);
/* TC-8: side's king cannot move with any roll: the two points ahead of it
 * (the king's 1 and 2, forward only) are enemy blocks or beyond its point
 * 24. False for a side without a king. */
bool ref_tc_king_stuck(const struct ref_tc_board *b, int side);

/* One turn is a struct ref_bg_play: steps in the order played, q
 * numbering, each with its piece type; `won`: the last step took the king
 * to its point 24 (TC-9), ending the game. */

/* Every legal play of a roll, one per distinct resulting board, in a
 * stable order (ref_tc_play_result gives the board after v[i]). */
struct ref_tc_playlist {
  size_t n, cap;
  struct ref_bg_play *v;
  uint64_t *hash; /* of the board after v[i] */
  uint32_t *slot;
  size_t nslot;
  int max_dice, max_pips;
  struct ref_tc_board start; /* the board the plays start from */
  int side;
};

/*
 * The legal plays of `side` for the roll d1, d2 (section 7.2-7.4): every
 * step by ref_tc_step; TC-4 judged on the board at the end of the turn;
 * must-play TC-7 by backgammon's rule (ref_bg_mustplay_cmp: most dice,
 * then most pips). A play that brings the king home (TC-9) ends the turn
 * at once and counts as using the whole roll. With nothing playable the
 * list holds the empty play. Returns 0 or REF_ENOMEM.
 */
int ref_tc_plays(const struct ref_tc_board *b, int side, int d1, int d2,
                 struct ref_tc_playlist *out);
long ref_tc_playlist_find(const struct ref_tc_playlist *list, const struct ref_tc_board *res);
void ref_tc_play_result(const struct ref_tc_playlist *list, size_t i, struct ref_tc_board *out);
void ref_tc_playlist_free(struct ref_tc_playlist *list);

#endif /* TABULA_TABLES_CHESS_INT_H */
