/*
 * test_backgammon_chess.c: Backgammon Chess and Lag Backgammon Chess
 * (referee/rules/backgammon_chess.c) against docs/rules-spec.md section 6.
 *
 * - the spec's cases T-BC-1 .. T-BC-4, and one test per ambiguity ID of
 *   section 6 (BC-1, BC-2, BC-4 .. BC-9, LG-1), each named in the test;
 * - reading and refusing input (tests/data/backgammon_chess/parse.txt) and
 *   position strings (positions.txt, bad_positions.txt);
 * - 1,000 seeded random playouts with ops->ok and an independent
 *   conservation count after every step, cross-checked against the
 *   backgammon core on every backgammon stage (same plays) and against the
 *   chess core on every chess stage with no stone on the board (same moves);
 * - the boards within 72 columns (render_start_*.txt).
 */
#include "backgammon_int.h"
#include "chess_int.h"
#include "rules.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TABULA_TEST_DATA "/backgammon_chess/"

extern const struct ref_game_desc ref_game_backgammon_chess;
extern const struct ref_game_desc ref_game_lag_backgammon_chess;
extern const struct ref_game_desc ref_game_backgammon;
extern const struct ref_game_desc ref_game_chess;
static const struct ref_game_desc *G = &ref_game_backgammon_chess;

/* ---- helpers ----------------------------------------------------------- */

static uint64_t rng_state;

static uint64_t rnd(uint64_t n)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return (z ^ (z >> 31)) % n;
}

static struct ref_state *game(const char *options)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  ck_assert_ptr_nonnull(s);
  memset(&err, 0, sizeof(err));
  ck_assert_msg(G->ops->init(s, options, &err) == REF_OK, "init %s: %s %s",
                options ? options : "", err.reason, err.detail);
  ck_assert(G->ops->ok(s));
  return s;
}

/* A state from a position string (via the pos= option). */
static struct ref_state *at(const char *pos)
{
  char opt[1100];
  snprintf(opt, sizeof(opt), "pos=%s", pos);
  return game(opt);
}

static void roll(struct ref_state *s, int a, int b)
{
  int f[2] = {a, b};
  struct ref_err err;
  ck_assert_int_eq(G->ops->roll(s, f, 2, &err), REF_OK);
  ck_assert(G->ops->ok(s));
}

/* Parses and plays `text`; returns the canonical notation it was echoed as. */
static const char *play(struct ref_state *s, const char *text)
{
  static char canon[REF_NOTATION_MAX];
  struct ref_move m;
  struct ref_err err;
  memset(&err, 0, sizeof(err));
  ck_assert_msg(G->ops->parse(s, text, &m, &err) == REF_OK, "'%s' refused: %s (%s)", text,
                err.reason, err.detail);
  ck_assert_int_eq(G->ops->format(s, &m, REF_NOTATION_CANONICAL, canon, sizeof(canon)), REF_OK);
  ck_assert_int_eq(G->ops->apply(s, &m), REF_OK);
  ck_assert_msg(G->ops->ok(s), "invariants broken after '%s'", text);
  return canon;
}

/* Expects a refusal with `reason`; the state must not change. */
static void refused(struct ref_state *s, const char *text, const char *reason)
{
  struct ref_move m;
  struct ref_err err;
  char before[600], after[600];
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(G->ops->encode(s, before, sizeof(before)), REF_OK);
  ck_assert_msg(G->ops->parse(s, text, &m, &err) != REF_OK, "'%s' accepted", text);
  ck_assert_msg(!strcmp(err.reason, reason), "'%s': reason %s, wanted %s", text, err.reason,
                reason);
  ck_assert_int_eq(G->ops->encode(s, after, sizeof(after)), REF_OK);
  ck_assert_str_eq(before, after);
}

static void status(const struct ref_state *s, struct ref_status *st)
{
  G->ops->status(s, st);
}

/* Every legal move of s, formatted, joined by '|'. */
static void legal_text(const struct ref_state *s, char *out, size_t cap)
{
  struct ref_movelist l = {0};
  size_t i, k = 0;
  char mv[REF_NOTATION_MAX];
  out[0] = '\0';
  ck_assert_int_eq(G->ops->legal(s, &l), REF_OK);
  for(i = 0; i < l.n; i++) {
    ck_assert_int_eq(G->ops->format(s, &l.v[i], REF_NOTATION_CANONICAL, mv, sizeof(mv)), REF_OK);
    k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s", i ? "|" : "", mv);
  }
  ref_movelist_free(&l);
}

/*
 * A position string: the chess placement, side, castling, a backgammon
 * board, dice and the stage (rules-spec section 6, the format documented
 * in backgammon_chess.c).
 */
static void mkpos(char *out, size_t cap, const char *placement, int side, const char *castle,
                  const struct ref_bg_board *b, int d1, int d2, const char *stage)
{
  struct ref_bg_match m;
  char pid[15], mid[13];
  memset(&m, 0, sizeof(m));
  m.cube_owner = -1;
  m.state = 1;
  m.on_roll = m.turn = side;
  m.dice[0] = d1;
  m.dice[1] = d2;
  ref_bg_position_id(b, side, pid);
  ref_bg_match_id(&m, mid);
  snprintf(out, cap, "%s %c %s - 10 %s:%s %s", placement, side ? 'b' : 'w', castle, pid, mid,
           stage);
}

/* The start board with n of `side`'s checkers borne off (from its 6, then
 * 8, then 13 point) and j in jail (from its 24 point, then 13). */
static void board_with(struct ref_bg_board *b, int side, int off, int jail)
{
  static const int from[] = {6, 6, 6, 6, 6, 8, 8, 8, 13, 13, 13, 13, 13, 24, 24};
  int i;
  for(i = 0; i < off; i++) {
    b->pt[side][from[i]]--;
    b->pt[side][REF_BG_OFF]++;
  }
  for(i = 0; i < jail; i++) {
    int p = b->pt[side][24] ? 24 : 13;
    b->pt[side][p]--;
    b->pt[side][REF_BG_BAR]++;
  }
}

/* ---- the spec's cases (section 10.6) ------------------------------------ */

/* T-BC-1: 1. e4 (White: no dice). Black: (roll 3-1) 8/5 6/5 ; e5. White:
 * (roll 6-5) 24/13 ; Nf3. */
START_TEST(test_t_bc_1)
{
  struct ref_state *s = game(NULL);
  struct ref_status st;
  char pos[600];

  status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE); /* 6.2.1: White starts with chess, no dice */
  ck_assert_int_eq(st.ndice, 0);
  ck_assert_str_eq(play(s, "1. e4"), "e4");
  status(s, &st);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(st.phase, REF_PHASE_CUBE); /* Black may double before the roll */
  roll(s, 3, 1);
  ck_assert_str_eq(play(s, "(roll 3-1) 8/5 6/5 ; e5"), "(roll 3-1) 8/5 6/5 ; e5");
  roll(s, 6, 5);
  ck_assert_str_eq(play(s, "24/13 ; Nf3"), "(roll 6-5) 24/13 ; Nf3");
  status(s, &st);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(G->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_str_eq(pos, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 "
                        "4HPwAyCwZ/ABMA:cAkAAAAAAAAE turn");
  free(s);
}
END_TEST

/* T-BC-2: a White V on d5, a Black pawn on e6, f7 empty: Vd5xf7 is legal;
 * a White V on c8 steps to b1 or d1 (ranks wrap, 6.3). */
START_TEST(test_t_bc_2)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_status st;
  char pos[600], moves[4096];

  ref_bg_board_start(&b);
  board_with(&b, 0, 2, 0);
  mkpos(pos, sizeof(pos), "k7/8/4p3/3V4/8/8/8/2V4K", 0, "-", &b, 6, 5, "chess");
  s = at(pos);
  legal_text(s, moves, sizeof(moves));
  ck_assert_msg(strstr(moves, "Vd5xf7") != NULL, "%s", moves);
  ck_assert_str_eq(play(s, "Vd5xf7"), "Vd5xf7");
  /* BC-6: the pawn leaves the game; a jump is a capture of a unit. */
  ck_assert_int_eq(G->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_msg(!strncmp(pos, "k7/5V2/8/8/8/8/8/2V4K b", 23), "%s", pos);
  free(s);

  ref_bg_board_start(&b);
  board_with(&b, 0, 1, 0);
  mkpos(pos, sizeof(pos), "k1V5/8/8/8/8/8/8/7K", 0, "-", &b, 6, 5, "chess");
  s = at(pos);
  legal_text(s, moves, sizeof(moves));
  ck_assert_msg(strstr(moves, "Vc8-b1") && strstr(moves, "Vc8-d1"), "%s", moves);
  ck_assert_str_eq(play(s, "Vc8-d1"), "Vc8-d1");
  status(s, &st);
  ck_assert_int_eq(st.turn, 1);
  free(s);
}
END_TEST

/* T-BC-3: a White stone placed by a bear-off so that it could jump the
 * Black king; White has a legal chess move: White wins at once (6.2e). */
START_TEST(test_t_bc_3)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_status st;
  char pos[600];

  ref_bg_board_start(&b); /* Black's checkers as at the start, White's all home */
  memset(b.pt[0], 0, sizeof(b.pt[0]));
  b.pt[0][6] = b.pt[0][5] = b.pt[0][4] = 5;
  mkpos(pos, sizeof(pos), "8/8/8/4k3/8/8/8/K7", 0, "-", &b, 6, 5, "bg");
  s = at(pos);
  /* d4 V jumps e5 (the king) to f6: the king is attacked (BC-7). */
  ck_assert_str_eq(play(s, "6/off@d4 5/off@h8 ; Ka2"), "(roll 6-5) 6/off@d4 5/off@h8");
  status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.end, REF_END_CHECKMATE);
  ck_assert_int_eq(st.points, 1);
  free(s);

  /* The same bear-off placed out of reach: the game goes on to chess. */
  s = at(pos);
  ck_assert_str_eq(play(s, "6/off@h8 5/off@h7"), "(roll 6-5) 6/off@h8 5/off@h7");
  status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert_int_eq(st.turn, 0);
  free(s);
}
END_TEST

/* T-BC-4: Black has a checker in jail and White holds all six home points:
 * Black has no backgammon move, so no chess move; White to move. */
START_TEST(test_t_bc_4)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_status st;
  char pos[600], moves[256];
  int p;

  memset(&b, 0, sizeof(b));
  for(p = 1; p <= 6; p++)
    b.pt[0][p] = 2;
  b.pt[0][8] = 3;
  b.pt[1][REF_BG_BAR] = 1;
  b.pt[1][13] = 6;
  b.pt[1][8] = 3;
  b.pt[1][6] = 5;
  mkpos(pos, sizeof(pos), "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR", 1, "KQkq", &b, 6, 5,
        "bg");
  s = at(pos);
  legal_text(s, moves, sizeof(moves));
  ck_assert_str_eq(moves, "(roll 6-5) --");
  refused(s, "-- ; e5", "bc-no-chess-move");
  ck_assert_str_eq(play(s, "--"), "(roll 6-5) --");
  status(s, &st);
  ck_assert_int_eq(st.turn, 0);
  ck_assert(st.phase == REF_PHASE_CUBE || st.phase == REF_PHASE_ROLL);
  ck_assert_int_eq(G->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_msg(strstr(pos, " w KQkq - 11 ") != NULL, "%s", pos); /* White's chess move next */
  free(s);
}
END_TEST

/* A turn sent in parts (6.5): the play, then the rest; the play may be
 * repeated with the rest, and must then be the one played. */
START_TEST(test_turn_in_parts)
{
  struct ref_state *s = game(NULL);
  struct ref_bg_board b;
  struct ref_status st;
  char pos[600];

  play(s, "e4");
  roll(s, 3, 1);
  ck_assert_str_eq(play(s, "8/5 6/5"), "(roll 3-1) 8/5 6/5");
  status(s, &st);
  ck_assert_int_eq(st.turn, 1); /* still Black: the chess move is due */
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  refused(s, "13/10 6/5 ; e5", "bc-backgammon-done");
  refused(s, "8/5 6/5", "bc-backgammon-done");
  ck_assert_str_eq(play(s, "6/5 8/5 ; e5"), "e5");
  status(s, &st);
  ck_assert_int_eq(st.turn, 0);
  free(s);

  ref_bg_board_start(&b);
  memset(b.pt[0], 0, sizeof(b.pt[0]));
  b.pt[0][6] = b.pt[0][5] = b.pt[0][4] = 5;
  mkpos(pos, sizeof(pos), "4k3/8/8/8/8/8/8/4K3", 0, "-", &b, 6, 5, "bg");
  s = at(pos);
  ck_assert_str_eq(play(s, "6/off 5/off"), "(roll 6-5) 6/off 5/off");
  ck_assert_str_eq(play(s, "6/off@a3 5/off@h6 ; Kd2"), "@a3 @h6 ; Kd2");
  free(s);
}
END_TEST

/* ---- the ambiguity register of section 6 -------------------------------- */

/* BC-1: Black's first backgammon turn is an ordinary two-dice roll; doubles
 * give four moves (no opening one-die roll). */
START_TEST(test_bc_1_first_roll)
{
  struct ref_state *s = game(NULL);
  struct ref_status st;
  play(s, "e4");
  roll(s, 3, 3);
  status(s, &st);
  ck_assert_int_eq(st.ndice, 2);
  ck_assert_int_eq(st.dice[0], 3);
  ck_assert_str_eq(play(s, "8/5(2) 6/3(2) ; e5"), "(roll 3-3) 8/5(2) 6/3(2) ; e5");
  free(s);
}
END_TEST

/* BC-2: a stone goes on any vacant square, light or dark, or on one's own
 * single stone (then doubled); never on an occupied or doubled square. */
START_TEST(test_bc_2_placement)
{
  struct ref_bg_board b;
  struct ref_state *s;
  char pos[600], moves[8192];

  ref_bg_board_start(&b);
  memset(b.pt[0], 0, sizeof(b.pt[0]));
  b.pt[0][6] = 5;
  b.pt[0][5] = 5;
  b.pt[0][4] = 3;
  b.pt[0][REF_BG_OFF] = 2; /* on the board as the X on a3 */
  mkpos(pos, sizeof(pos), "4k3/8/8/8/8/X7/8/4K3", 0, "-", &b, 6, 5, "bg");
  s = at(pos);
  refused(s, "6/off@e1 5/off@h8", "bc-square-occupied");
  refused(s, "6/off@a3 5/off@h8", "bc-stone-full");
  refused(s, "6/off@e4 5/off@h8 4/off@g2", "bg-wrong-dice");
  /* a light square (h1 is light) and one stone on top of the other */
  ck_assert_str_eq(play(s, "6/off@h1 5/off@h1"), "(roll 6-5) 6/off@h1 5/off@h1");
  ck_assert_int_eq(G->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_msg(!strncmp(pos, "4k3/8/8/8/8/X7/8/4K2X w", 23), "%s", pos);
  free(s);

  /* The stage by stage route: the play, then one placement at a time. */
  mkpos(pos, sizeof(pos), "4k3/8/8/8/8/X7/8/4K3", 0, "-", &b, 6, 5, "bg");
  s = at(pos);
  ck_assert_str_eq(play(s, "6/off 5/off"), "(roll 6-5) 6/off 5/off");
  legal_text(s, moves, sizeof(moves));
  ck_assert_msg(strstr(moves, "@a1|@b1|@c1|@d1|@f1") != NULL, "%s", moves); /* e1: king */
  ck_assert_ptr_null(strstr(moves, "@a3"));                                 /* doubled */
  refused(s, "e1", "bc-square-occupied");
  ck_assert_str_eq(play(s, "@d4"), "@d4");
  refused(s, "Ke2", "bc-placement-missing"); /* one stone still to place */
  ck_assert_str_eq(play(s, "d4 ; Ke2"), "@d4 ; Ke2"); /* on its own single stone */
  ck_assert_int_eq(G->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_msg(!strncmp(pos, "4k3/8/8/8/3X4/X7/4K3/8 b", 24), "%s", pos);
  free(s);
}
END_TEST

/* BC-4: mate is judged on chess-board moves only; a placement the mated
 * side could make next turn does not save it. */
START_TEST(test_bc_4_mate_ignores_placements)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_status st;
  char pos[600];

  ref_bg_board_start(&b);
  /* Black: Kh8, pawns g7 h7; White's Ra8 mates on the back rank at once,
   * though a stone Black might place on b8..g8 next turn would block. */
  mkpos(pos, sizeof(pos), "7k/6pp/8/8/8/8/8/R5K1", 0, "-", &b, 6, 5, "chess");
  s = at(pos);
  ck_assert_str_eq(play(s, "Ra8"), "Ra8#");
  status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.end, REF_END_CHECKMATE);
  free(s);
}
END_TEST

/* BC-5: a doubled stone moves and jumps like a checkers king (backward too,
 * ranks wrapping); a single one only forward. */
START_TEST(test_bc_5_doubled_stone)
{
  struct ref_bg_board b;
  struct ref_state *s;
  char pos[600], moves[4096];

  ref_bg_board_start(&b);
  board_with(&b, 0, 3, 0);
  mkpos(pos, sizeof(pos), "k7/8/8/8/3X4/2p5/3V4/7K", 0, "-", &b, 6, 5, "chess");
  s = at(pos);
  legal_text(s, moves, sizeof(moves));
  ck_assert_msg(strstr(moves, "Xd4-e3") && strstr(moves, "Xd4xb2") && strstr(moves, "Xd4-e5"),
                "%s", moves);
  ck_assert_msg(!strstr(moves, "Vd2-c1") && !strstr(moves, "Vd2-e1"), "%s", moves);
  ck_assert_msg(strstr(moves, "Vd2-e3") != NULL, "%s", moves);
  refused(s, "Vd2-e1", "bc-stone-cannot");
  free(s);
  /* A Black X on b1 steps "back" onto rank 2 and, wrapping, to rank 8. */
  ref_bg_board_start(&b);
  board_with(&b, 1, 2, 0);
  mkpos(pos, sizeof(pos), "7k/8/8/8/8/8/8/1x5K", 1, "-", &b, 6, 5, "chess");
  s = at(pos);
  legal_text(s, moves, sizeof(moves));
  ck_assert_msg(strstr(moves, "Xb1-a2") && strstr(moves, "Xb1-c8") && strstr(moves, "Xb1-a8"),
                "%s", moves);
  free(s);
}
END_TEST

/* BC-6: a captured stone goes to its owner's jail, 1 checker for V, 2 for
 * X, and stops counting as borne off. */
START_TEST(test_bc_6_jail)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_bg_board after;
  char pos[600], id[40];

  ref_bg_board_start(&b);
  board_with(&b, 1, 3, 0);
  /* Black: x on d5 (2 checkers) and v on a6 (1). White: Qd1, Nb4. */
  mkpos(pos, sizeof(pos), "4k3/8/v7/3x4/1N6/8/8/3QK3", 0, "-", &b, 6, 5, "chess");
  s = at(pos);
  ck_assert_str_eq(play(s, "Qxd5"), "Qxd5");
  ck_assert_int_eq(G->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_int_eq(sscanf(pos, "%*s %*s %*s %*s %*s %39s", id), 1);
  id[14] = '\0';
  ck_assert_int_eq(ref_bg_position_decode(&after, 1, id), REF_OK);
  ck_assert_int_eq(after.pt[1][REF_BG_BAR], 2);
  ck_assert_int_eq(after.pt[1][REF_BG_OFF], 1);
  free(s);
}
END_TEST

/* BC-7: a stone attacks what its jump sequence could take: the king may not
 * stay or step there, and may not castle through it. */
START_TEST(test_bc_7_stone_attack)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_status st;
  char pos[600], moves[4096];

  ref_bg_board_start(&b);
  board_with(&b, 1, 1, 0);
  /* A black v on e3 jumps d2 to c1 or f2 to g1: a king on d2 or f2 would
   * be taken, so it may not step there. */
  mkpos(pos, sizeof(pos), "4k3/8/8/8/8/4v3/8/R3K2R", 0, "KQ", &b, 6, 5, "chess");
  s = at(pos);
  legal_text(s, moves, sizeof(moves));
  ck_assert_msg(!strstr(moves, "Kd2") && !strstr(moves, "Kf2"), "%s", moves);
  /* O-O-O passes d1; the stone on e3 attacks d2 and f2 only: allowed. */
  ck_assert_msg(strstr(moves, "O-O-O") && strstr(moves, "O-O|"), "%s", moves);
  free(s);
  /* A black v on e2 jumps d1 to c8 (ranks wrap): a king passing d1 could
   * be taken there, so O-O-O is refused (CH-1 with BC-7), though d1 is
   * empty and no piece attacks it. */
  mkpos(pos, sizeof(pos), "4k3/8/8/8/8/8/4v3/R3K2R", 0, "KQ", &b, 6, 5, "chess");
  s = at(pos);
  legal_text(s, moves, sizeof(moves));
  ck_assert_msg(!strstr(moves, "O-O-O"), "%s", moves);
  refused(s, "O-O-O", "bc-cannot-castle");
  status(s, &st);
  ck_assert(!st.in_check);
  free(s);
}
END_TEST

/* BC-8: no draw by agreement unless the option allows it, no draw claims;
 * stalemate (no legal chess move, not attacked) draws. */
START_TEST(test_bc_8_draws)
{
  struct ref_state *s = game(NULL);
  struct ref_bg_board b;
  struct ref_status st;
  struct ref_err err;
  char pos[600];

  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_AGREED, 0, &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bc-no-draw-agreement");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bc-no-draw-claim");
  free(s);
  s = game("draws=on");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_AGREED, 0, &err), REF_OK);
  status(s, &st);
  ck_assert_int_eq(st.winner, -1);
  ck_assert_int_eq(st.end, REF_END_AGREEMENT);
  free(s);
  /* Stalemate: Black Ka8, White Qb6 Kh1; Black plays a die, then has no
   * chess move and is not attacked: drawn. */
  ref_bg_board_start(&b);
  mkpos(pos, sizeof(pos), "k7/8/1Q6/8/8/8/8/7K", 1, "-", &b, 6, 5, "bg");
  s = at(pos);
  play(s, "13/7 13/8");
  status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, -1);
  ck_assert_int_eq(st.end, REF_END_STALEMATE);
  free(s);
}
END_TEST

/* BC-9: the cube counts in every win; only a backgammon-part win takes the
 * gammon (loser has no stone on the chess board) and backgammon (also a
 * loser's checker in jail or in the winner's home board) factors. */
START_TEST(test_bc_9_scoring)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_status st;
  struct ref_err err;
  char pos[600];

  memset(&b, 0, sizeof(b));
  b.pt[0][1] = 1;
  b.pt[0][REF_BG_OFF] = 14;
  b.pt[1][REF_BG_BAR] = 1; /* a Black checker in jail */
  b.pt[1][13] = 14;
  /* 14 White checkers off = 7 X stones on the board. */
  mkpos(pos, sizeof(pos), "4k3/8/8/8/8/8/XXXXXXX1/4K3", 0, "-", &b, 6, 5, "bg");
  s = at(pos);
  play(s, "1/off");
  status(s, &st);
  ck_assert_int_eq(st.end, REF_END_BORNE_OFF);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.points, 3); /* backgammon: none off, one in jail */
  free(s);
  /* A chess win with the cube at 2 is worth 2, whatever the checkers. */
  s = game(NULL);
  play(s, "f3");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_TAKE, 0, &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5 ; e5");
  roll(s, 2, 1);
  play(s, "24/21 ; g4");
  roll(s, 4, 2);
  ck_assert_str_eq(play(s, "8/4 6/4 ; Qh4"), "(roll 4-2) 8/4* 6/4 ; Qh4#");
  status(s, &st);
  ck_assert_int_eq(st.end, REF_END_CHECKMATE);
  ck_assert_int_eq(st.winner, 1);
  ck_assert_int_eq(st.points, 2);
  free(s);
}
END_TEST

/* LG-1 (section 6.9): Lag Backgammon Chess plays by the same rules; its
 * private dice are the service's. lag=L is an option of both names,
 * lagbgchess defaults to 2 and refuses 0. */
START_TEST(test_lg_1_lag_option)
{
  const struct ref_game_desc *lag = ref_game_find("lagbgchess");
  struct ref_state *s;
  struct ref_err err;
  char pos[600];

  ck_assert_ptr_eq(lag, &ref_game_lag_backgammon_chess);
  ck_assert_ptr_eq(ref_game_find("bgchess"), G);
  ck_assert(lag->flags & REF_GAME_DICE);
  ck_assert(lag->flags & REF_GAME_CUBE);
  s = ref_state_new(lag);
  ck_assert_int_eq(lag->ops->init(s, NULL, &err), REF_OK);
  ck_assert_int_eq(lag->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_msg(strstr(pos, " first lag=2") != NULL, "%s", pos);
  ck_assert_int_eq(lag->ops->init(s, "lag=0", &err), REF_EINVAL);
  ck_assert_int_eq(lag->ops->init(s, "lag=3", &err), REF_OK);
  ck_assert_int_eq(lag->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_msg(strstr(pos, " lag=3") != NULL, "%s", pos);
  free(s);
  s = game("lag=2");
  ck_assert_int_eq(G->ops->encode(s, pos, sizeof(pos)), REF_OK);
  ck_assert_msg(strstr(pos, " lag=2") != NULL, "%s", pos);
  ck_assert_int_eq(G->ops->init(s, "lag=x", &err), REF_EINVAL);
  ck_assert_int_eq(G->ops->init(s, "colour=red", &err), REF_EINVAL);
  free(s);
}
END_TEST

/* ---- input, positions, board ------------------------------------------- */

static void trim_line(char *s)
{
  size_t n = strlen(s);
  while(n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' '))
    s[--n] = '\0';
  while(*s == ' ')
    memmove(s, s + 1, strlen(s));
}

/* tests/data/backgammon_chess/parse.txt: "POSITION | INPUT | WANT", WANT the
 * canonical echo or "!reason" for a refusal. Section 1 tolerance, 6.5. */
START_TEST(test_parse_table)
{
  FILE *f = fopen(DATA "parse.txt", "r");
  char line[1024];
  int n = 0;
  ck_assert_ptr_nonnull(f);
  while(fgets(line, sizeof(line), f)) {
    char *a = line, *b, *c;
    struct ref_state *s;
    if(line[0] == '#' || line[0] == '\n')
      continue;
    b = strchr(a, '|');
    ck_assert_ptr_nonnull(b);
    *b++ = '\0';
    c = strchr(b, '|');
    ck_assert_ptr_nonnull(c);
    *c++ = '\0';
    trim_line(a);
    trim_line(b);
    trim_line(c);
    s = !strcmp(a, "start") ? game(NULL) : at(a);
    if(c[0] == '!')
      refused(s, b, c + 1);
    else
      ck_assert_str_eq(play(s, b), c);
    free(s);
    n++;
  }
  fclose(f);
  ck_assert_int_ge(n, 20);
}
END_TEST

/* Position strings: good ones round-trip; bad ones are refused with a
 * reason and change nothing (rules.h: decode validates fully). */
START_TEST(test_positions)
{
  FILE *f = fopen(DATA "bad_positions.txt", "r");
  struct ref_state *s = game(NULL);
  struct ref_err err;
  char line[1024], before[600], after[600];
  int n = 0;

  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(G->ops->encode(s, before, sizeof(before)), REF_OK);
  while(fgets(line, sizeof(line), f)) {
    if(line[0] == '#' || line[0] == '\n')
      continue;
    trim_line(line);
    memset(&err, 0, sizeof(err));
    ck_assert_msg(G->ops->decode(s, line, &err) == REF_EINVAL, "accepted: %s", line);
    ck_assert_str_eq(err.reason, "bc-bad-position");
    ck_assert_int_eq(G->ops->encode(s, after, sizeof(after)), REF_OK);
    ck_assert_str_eq(before, after);
    n++;
  }
  fclose(f);
  ck_assert_int_ge(n, 15);
  f = fopen(DATA "positions.txt", "r");
  ck_assert_ptr_nonnull(f);
  n = 0;
  while(fgets(line, sizeof(line), f)) {
    if(line[0] == '#' || line[0] == '\n')
      continue;
    trim_line(line);
    ck_assert_msg(G->ops->decode(s, line, &err) == REF_OK, "%s: %s", line, err.detail);
    ck_assert(G->ops->ok(s));
    ck_assert_int_eq(G->ops->encode(s, after, sizeof(after)), REF_OK);
    ck_assert_str_eq(line, after);
    n++;
  }
  fclose(f);
  ck_assert_int_ge(n, 5);
  free(s);
}
END_TEST

START_TEST(test_render)
{
  struct ref_state *s = game(NULL);
  static const char *const files[2] = {DATA "render_start_white.txt",
                                       DATA "render_start_black.txt"};
  char buf[8192], *want;
  const char *line, *nl;
  int seat;

  for(seat = 0; seat < 2; seat++) {
    ck_assert_int_eq(G->ops->render(s, seat, buf, sizeof(buf)), REF_OK);
    for(line = buf; *line; line = nl + 1) {
      nl = strchr(line, '\n');
      ck_assert_ptr_nonnull(nl);
      ck_assert_int_le(nl - line, 72);
    }
    want = ts_read(files[seat]);
    ck_assert_msg(!strcmp(buf, want), "render seat %d:\n%s", seat, buf);
    free(want);
  }
  free(s);
}
END_TEST

/* Every reason key the game's files (backgammon_chess*.c) return is worded
 * in reasons.txt. */
START_TEST(test_reason_keys)
{
  static const char *const files[] = {"backgammon_chess.c", "backgammon_chess_board.c",
                                      "backgammon_chess_notation.c"};
  static const char *const shared[] = {"unreadable", "ambiguous", "game-over", "not-your-turn",
                                       "bad-option", "bad-seat", "no-such-move",
                                       "promotion-piece-missing", "illegal"};

  ts_assert_reason_keys(files, sizeof(files) / sizeof(files[0]), "bc-", 15, shared,
                        sizeof(shared) / sizeof(shared[0]));
}
END_TEST

/* ---- playouts and cross-checks ----------------------------------------- */

/* check(3) records every assertion it passes (a write each): in the hot
 * loop only failures call it. */
#define CHECK(cond, ...)                                                                         \
  do {                                                                                           \
    if(!(cond))                                                                                  \
      ck_abort_msg(__VA_ARGS__);                                                                 \
  } while(0)

/* Sorted '|'-joined list of the formatted moves of g in state s, a roll
 * prefix "(roll a-b) " dropped. */
static void move_set(const struct ref_game_desc *g, const struct ref_state *s, char *out,
                     size_t cap)
{
  struct ref_movelist l = {0};
  char **v, mv[REF_NOTATION_MAX];
  size_t i, k = 0;

  out[0] = '\0';
  CHECK(g->ops->legal(s, &l) == REF_OK, "legal");
  v = calloc(l.n + 1, sizeof(*v));
  CHECK(v != NULL, "memory");
  for(i = 0; i < l.n; i++) {
    const char *t = mv;
    CHECK(g->ops->format(s, &l.v[i], REF_NOTATION_CANONICAL, mv, sizeof(mv)) == REF_OK, "format");
    if(!strncmp(t, "(roll ", 6))
      t = strchr(t, ')') + 2;
    v[i] = strdup(t);
  }
  qsort(v, l.n, sizeof(*v), ts_cmp_str);
  for(i = 0; i < l.n; i++) {
    k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s", i ? "|" : "", v[i]);
    free(v[i]);
  }
  free(v);
  ref_movelist_free(&l);
}

/* Independent conservation count from the position string: per side the
 * Position ID's checkers (points + jail + off = 15 by construction) with
 * off = V + 2 X on the chess board + placements owed; chess pieces at most
 * 16 a side and never more than before. */
static void conservation(const char *pos, int *pieces)
{
  struct ref_bg_board b;
  char place[100], side, stage[64], ids[40];
  int owed = 0, stones[2] = {0, 0}, np[2] = {0, 0}, s, i;
  const char *p;

  CHECK(sscanf(pos, "%99s %c %*s %*s %*s %39s %63s", place, &side, ids, stage) == 4, "%s", pos);
  ids[14] = '\0';
  CHECK(ref_bg_position_decode(&b, side == 'b', ids) == REF_OK, "%s", pos);
  if(!strncmp(stage, "place:", 6))
    owed = stage[6] - '0';
  if(!strncmp(stage, "over:", 5))
    owed = -1; /* a bear-off win may leave its last stones unplaced */
  for(p = place; *p; p++) {
    if(*p == 'V' || *p == 'X')
      stones[0] += *p == 'X' ? 2 : 1;
    else if(*p == 'v' || *p == 'x')
      stones[1] += *p == 'x' ? 2 : 1;
    else if(strchr("PNBRQK", *p))
      np[0]++;
    else if(strchr("pnbrqk", *p))
      np[1]++;
  }
  for(s = 0; s < 2; s++) {
    int total = 0;
    for(i = 0; i <= 25; i++)
      total += b.pt[s][i];
    CHECK(total == 15, "%d checkers: %s", total, pos);
    if(owed >= 0)
      CHECK(b.pt[s][REF_BG_OFF] == stones[s] + ((side == 'b') == s ? owed : 0),
                    "off %d, stones %d: %s", b.pt[s][REF_BG_OFF], stones[s], pos);
    else
      CHECK(b.pt[s][REF_BG_OFF] >= stones[s], "%s", pos);
    CHECK(np[s] <= pieces[s], "pieces grew: %s", pos);
    pieces[s] = np[s];
  }
}

/*
 * 1,000 seeded games of random legal moves and random dice (a cube action
 * now and then). After every step: ops->ok, the position string round trip
 * and the conservation count. On every backgammon stage the plays equal the
 * backgammon core's for the same board and dice (decoded from our Position
 * ID and Match ID); on every chess stage with no stone on the board the
 * moves equal the chess core's for our FEN.
 */
START_TEST(test_playouts)
{
  struct ref_state *s = ref_state_new(G), *t = ref_state_new(G);
  struct ref_state *bg = ref_state_new(&ref_game_backgammon);
  struct ref_state *ch = ref_state_new(&ref_game_chess);
  struct ref_movelist list = {0};
  struct ref_status st;
  struct ref_err err;
  char pos[600], pos2[600], *ours = malloc(1 << 18), *theirs = malloc(1 << 18);
  int game, steps, ends[REF_END_LAST] = {0}, bg_checks = 0, chess_checks = 0, capped = 0;
  int games = getenv("BC_GAMES") ? atoi(getenv("BC_GAMES")) : 1000;
  long total_steps = 0;

  ck_assert(s && t && bg && ch && ours && theirs);
  rng_state = 20261122;
  for(game = 0; game < games; game++) {
    int pieces[2] = {16, 16};
    CHECK(G->ops->init(s, game % 7 == 3 ? "lag=2" : NULL, &err) == REF_OK, "init");
    for(steps = 0; steps < 3000; steps++) {
      G->ops->status(s, &st);
      CHECK(G->ops->ok(s), "ops->ok refused game %d step %d", game, steps);
      CHECK(G->ops->encode(s, pos, sizeof(pos)) == REF_OK, "encode");
      CHECK(G->ops->decode(t, pos, &err) == REF_OK, "%s: %s", pos, err.detail);
      CHECK(G->ops->encode(t, pos2, sizeof(pos2)) == REF_OK && !strcmp(pos, pos2),
            "round trip %s -> %s", pos, pos2);
      conservation(pos, pieces);
      if(st.phase == REF_PHASE_OVER)
        break;
      switch(st.phase) {
      case REF_PHASE_CUBE:
      case REF_PHASE_ROLL: {
        int f[2] = {1 + (int)rnd(6), 1 + (int)rnd(6)};
        if(st.phase == REF_PHASE_CUBE && rnd(40) == 0) {
          CHECK(G->ops->act(s, st.turn, REF_ACT_DOUBLE, 0, &err) == REF_OK, "double");
          break;
        }
        CHECK(G->ops->roll(s, f, 2, &err) == REF_OK, "roll");
        break;
      }
      case REF_PHASE_CUBE_REPLY:
        CHECK(G->ops->act(s, st.turn, rnd(6) ? REF_ACT_TAKE : REF_ACT_DROP, 0, &err) == REF_OK,
              "take/drop");
        break;
      case REF_PHASE_MOVE: {
        char *stage = strrchr(pos, ' ');
        if(rnd(3000) == 0) {
          /* 6.8: resignation at any stage, a placement pending or not. */
          CHECK(G->ops->act(s, (int)rnd(2), REF_ACT_RESIGN, 1 + (int)rnd(3), &err) == REF_OK,
                "resign");
          break;
        }
        char mv[REF_NOTATION_MAX];
        struct ref_move back;
        size_t pick;
        if(!strncmp(stage, " lag=", 5)) {
          *stage = '\0';
          stage = strrchr(pos, ' ');
        }
        if(!strcmp(stage, " bg")) {
          /* The backgammon half against the backgammon core. */
          char id[40];
          CHECK(sscanf(pos, "%*s %*s %*s %*s %*s %39s", id) == 1, "%s", pos);
          CHECK(ref_game_backgammon.ops->decode(bg, id, &err) == REF_OK, "%s", id);
          move_set(G, s, ours, 1 << 18);
          move_set(&ref_game_backgammon, bg, theirs, 1 << 18);
          CHECK(!strcmp(ours, theirs), "%s:\n ours   %s\n theirs %s", pos, ours, theirs);
          bg_checks++;
        }
        else if(!strcmp(stage, " chess") && !strpbrk(strtok(pos, " "), "VXvx")) {
          /* The chess half against the chess core, when no stone is out. */
          char fen[200], opt[260], *f[5];
          int i;
          CHECK(G->ops->encode(s, pos, sizeof(pos)) == REF_OK, "encode");
          f[0] = strtok(pos, " ");
          for(i = 1; i < 5; i++)
            f[i] = strtok(NULL, " ");
          snprintf(fen, sizeof(fen), "%s %s %s %s 0 %s", f[0], f[1], f[2], f[3], f[4]);
          snprintf(opt, sizeof(opt), "fide_draws=off;fen=%s", fen);
          CHECK(ref_game_chess.ops->init(ch, opt, &err) == REF_OK, "%s: %s", fen, err.reason);
          move_set(G, s, ours, 1 << 18);
          move_set(&ref_game_chess, ch, theirs, 1 << 18);
          CHECK(!strcmp(ours, theirs), "%s:\n ours   %s\n theirs %s", fen, ours, theirs);
          chess_checks++;
        }
        ref_movelist_clear(&list);
        CHECK(G->ops->legal(s, &list) == REF_OK && list.n > 0, "no legal move: %s", pos);
        pick = (size_t)rnd(list.n);
        /* What the reply prints reads back as the same move. */
        CHECK(G->ops->format(s, &list.v[pick], REF_NOTATION_CANONICAL, mv, sizeof(mv)) == REF_OK,
              "format");
        CHECK(G->ops->parse(s, mv, &back, &err) == REF_OK, "'%s': %s", mv, err.reason);
        CHECK(!memcmp(&back, &list.v[pick], sizeof(back)), "'%s' reads back otherwise", mv);
        CHECK(G->ops->apply(s, &list.v[pick]) == REF_OK, "apply");
        break;
      }
      default:
        break;
      }
      total_steps++;
    }
    G->ops->status(s, &st);
    if(st.phase == REF_PHASE_OVER)
      ends[st.end]++;
    else
      capped++;
  }
  fprintf(stderr,
          "bgchess playouts: 1000 games, %ld steps, %d backgammon and %d chess stages "
          "cross-checked; checkmate %d, stalemate %d, borne-off %d, cube-dropped %d, "
          "resigned %d, capped %d\n",
          total_steps, bg_checks, chess_checks, ends[REF_END_CHECKMATE], ends[REF_END_STALEMATE],
          ends[REF_END_BORNE_OFF], ends[REF_END_CUBE_DROPPED], ends[REF_END_RESIGNATION], capped);
  ck_assert_int_gt(bg_checks, 10000);
  ck_assert_int_gt(chess_checks, 1000);
  ck_assert_int_gt(ends[REF_END_BORNE_OFF], 0);
  ck_assert_int_gt(ends[REF_END_CHECKMATE], 0);
  ref_movelist_free(&list);
  free(ours);
  free(theirs);
  free(s);
  free(t);
  free(bg);
  free(ch);
}
END_TEST

static Suite *bc_suite(void)
{
  Suite *s = suite_create("backgammon_chess");
  TCase *tc = tcase_create("rules");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_t_bc_1);
  tcase_add_test(tc, test_t_bc_2);
  tcase_add_test(tc, test_t_bc_3);
  tcase_add_test(tc, test_t_bc_4);
  tcase_add_test(tc, test_turn_in_parts);
  tcase_add_test(tc, test_bc_1_first_roll);
  tcase_add_test(tc, test_bc_2_placement);
  tcase_add_test(tc, test_bc_4_mate_ignores_placements);
  tcase_add_test(tc, test_bc_5_doubled_stone);
  tcase_add_test(tc, test_bc_6_jail);
  tcase_add_test(tc, test_bc_7_stone_attack);
  tcase_add_test(tc, test_bc_8_draws);
  tcase_add_test(tc, test_bc_9_scoring);
  tcase_add_test(tc, test_lg_1_lag_option);
  tcase_add_test(tc, test_parse_table);
  tcase_add_test(tc, test_positions);
  tcase_add_test(tc, test_render);
  tcase_add_test(tc, test_reason_keys);
  suite_add_tcase(s, tc);
  tc = tcase_create("playouts");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_playouts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(bc_suite());
}
