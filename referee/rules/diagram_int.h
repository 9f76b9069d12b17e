/*
 * diagram_int.h: helpers for ops->diagram (diagram.c), private
 * to the rules core.
 */
#ifndef TABULA_DIAGRAM_INT_H
#define TABULA_DIAGRAM_INT_H

#include "rules.h"

/* A grid of files x ranks: every square there, a1 dark, "a".. and "1"..
 * as coordinates; everything else cleared. */
void ref_diag_grid(struct ref_diagram *d, int files, int ranks, bool flip);
/* A 24-point board, empty. */
void ref_diag_points(struct ref_diagram *d, bool flip);
/* One more piece on a stack (listed while there is room, always counted). */
void ref_diag_put(struct ref_diag_stack *s, int kind, int dark);
/* A piece shown by its letter (DA-4: no figurine), upper case. */
void ref_diag_put_lettered(struct ref_diag_stack *s, char letter, int dark);
void ref_diag_put_n(struct ref_diag_stack *s, int kind, int dark, int n);
/* A FEN letter (upper case White; V and X Backgammon Chess's stones) as
 * a kind, and put on a stack with its colour. */
int ref_diag_kind(char letter);
void ref_diag_put_letter(struct ref_diag_stack *s, char letter);

/* An 8x8 chess board of chess_int.h piece codes, the last move marked
 * (squares a1 = 0 .. h8 = 63). */
void ref_diag_chess_board(struct ref_diagram *d, const uint8_t *board, int last_from,
                          int last_to);
/* The Chessgammon family's bars ([colour][type], types P N B R Q K) and
 * borne-off counts, out of `of` pieces. */
void ref_diag_reserves(struct ref_diagram *d, const uint8_t bar[2][6], const uint8_t off[2],
                       int of);

struct ref_bg_board;
/* The checkers of a backgammon board (backgammon_int.h) on the diagram's
 * points, bar and off tray; White light, Black dark. */
void ref_diag_bg_board(struct ref_diagram *d, const struct ref_bg_board *b);
struct ref_bg_turn;
/* What the dice games' turn frame (backgammon_board.c) shows: the dice to
 * play while a play is due and, when `mark_play`, the last play (gnubg's
 * notation, "13/7* 8/7", "Nbar/5") marked on the points it left and
 * reached: backgammon and Tables Chess; Backgammon Chess's frame keeps no
 * play's text. */
void ref_diag_bg_turn(struct ref_diagram *d, const struct ref_bg_turn *t, bool mark_play);

#endif
