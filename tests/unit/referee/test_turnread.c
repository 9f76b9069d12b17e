/*
 * test_turnread.c: a mail's move lines read as its one turn
 * (referee/games/turnread.c; rules-spec §1.1).
 *
 *  - a play over several lines, each no whole play alone, is one turn,
 *    with prose before and after it;
 *  - two lines that are each a whole turn are two turns (conflict), the
 *    same turn twice is one;
 *  - two different readings of overlapping lines are refused, not guessed;
 *  - a lone illegal line keeps the rules' reason;
 *  - chess: one move per line, as before.
 */
#include "game_int.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* White to play 6-3 from the start (gnubg Position ID:Match ID). */
#define BG_63 "fen=4HPwATDgc/ABMA:MAEPAAAAAAAE"

static void game(struct ref_game_ctx *g, const char *name, const char *options)
{
  struct ref_err err;
  memset(g, 0, sizeof(*g));
  g->desc = ref_game_find(name);
  ck_assert_ptr_nonnull(g->desc);
  g->state = ref_state_new(g->desc);
  ck_assert_ptr_nonnull(g->state);
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(g->desc->ops->init(g->state, options, &err), REF_OK);
  g->started = 1;
}

static void lines(struct ref_cmds *c, const char *const *v, int n)
{
  int i;
  memset(c, 0, sizeof(*c));
  for(i = 0; i < n; i++)
    snprintf(c->cand[i], sizeof(c->cand[i]), "%s", v[i]);
  c->ncand = n;
  c->guard = -1;
}

/* The turn the rules read from one text. */
static struct ref_move move_of(struct ref_game_ctx *g, const char *text)
{
  struct ref_move mv;
  struct ref_err err;
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(g->desc->ops->parse(g->state, text, &mv, &err), REF_OK);
  return mv;
}

static struct ref_turn read_turn_of(struct ref_game_ctx *g, const char *const *v, int n)
{
  struct ref_cmds c;
  struct ref_turn t;
  lines(&c, v, n);
  ck_assert_int_eq(ref_read_turn(g, &c, &t), 0);
  return t;
}

START_TEST(test_backgammon)
{
  struct ref_game_ctx g;
  struct ref_move want;
  struct ref_turn t;
  static const char *const two[] = {"24/21", "13/7"};
  static const char *const prose[] = {"Here we go:", "24/21", "13/7", "Alice"};
  static const char *const wholes[] = {"24/21 13/7", "24/18 13/10"};
  static const char *const same[] = {"24/21 13/7", "13/7 24/21"};
  static const char *const overlap[] = {"24/18", "13/10", "8/2"};
  static const char *const half[] = {"24/21"};

  game(&g, "backgammon", BG_63);
  want = move_of(&g, "24/21 13/7");
  t = read_turn_of(&g, two, 2);
  ck_assert(t.found && !memcmp(&t.mv, &want, sizeof(want)));
  ck_assert_str_eq(t.input, "24/21 13/7");
  t = read_turn_of(&g, prose, 4);
  ck_assert(t.found && !memcmp(&t.mv, &want, sizeof(want)));
  t = read_turn_of(&g, wholes, 2);
  ck_assert(!t.found && t.conflict);
  ck_assert_str_eq(t.input, "24/18 13/10");
  t = read_turn_of(&g, same, 2);
  ck_assert(t.found && !t.conflict && !memcmp(&t.mv, &want, sizeof(want)));
  /* "24/18 13/10" and "13/10 8/2" both read; which was meant is a guess */
  t = read_turn_of(&g, overlap, 3);
  ck_assert(!t.found && t.conflict);
  t = read_turn_of(&g, half, 1);
  ck_assert(!t.found && !t.conflict);
  ck_assert_str_eq(t.input, "24/21");
  ck_assert(t.err.reason[0]);
  free(g.state);
}
END_TEST

START_TEST(test_chess)
{
  struct ref_game_ctx g;
  struct ref_turn t;
  static const char *const one[] = {"Good luck!", "1. e4!?"};
  static const char *const two[] = {"e4", "d4"};
  static const char *const prose[] = {"Hello there"};

  game(&g, "chess", NULL);
  t = read_turn_of(&g, one, 2);
  ck_assert(t.found);
  ck_assert_str_eq(t.input, "1. e4!?");
  t = read_turn_of(&g, two, 2);
  ck_assert(!t.found && t.conflict);
  t = read_turn_of(&g, prose, 1);
  ck_assert(!t.found && !t.conflict && t.err.code == REF_EPARSE);
  free(g.state);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("turnread");
  TCase *tc = tcase_create("turnread");
  tcase_add_test(tc, test_backgammon);
  tcase_add_test(tc, test_chess);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
