/*
 * test_takeback.c: the one replay rule of takebacks (referee/games/game.c,
 * ref_journal_undone). History is never rewritten: an `undo`
 * entry cancels the move it names, which every replay then skips.
 *
 *  - an agreed undo skips exactly the move it names; the bookkeeping
 *    around it (the request, the answer, a draw offer, a `conditional`
 *    entry of the conditional moves) has no rules effect;
 *  - replayed through the rules, the position is the one before the move,
 *    and a different move then replays on it;
 *  - undos in a row take back the moves in turn, the latest first;
 *  - an undo of a move that is not the last one standing (a move, a roll
 *    or an action came after it), of a move undone already, of no move,
 *    or written wrongly is refused (a journal edited behind tabula's back
 *    fails `tabula check`);
 *  - a part of the journal (after a snapshot) whose undo names a move
 *    before it says so (1): the loader then replays the whole journal.
 */
#include "game_int.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct store_entry entries[32];
static size_t nentries;

static void add(int seat, const char *kind, const char *text)
{
  struct store_entry *e = &entries[nentries];
  ck_assert_uint_lt(nentries, sizeof(entries) / sizeof(entries[0]));
  memset(e, 0, sizeof(*e));
  e->game = 1;
  e->seq = (int64_t)++nentries;
  e->seat = seat;
  snprintf(e->kind, sizeof(e->kind), "%s", kind);
  snprintf(e->text, sizeof(e->text), "%s", text);
}

static void opening(void)
{
  nentries = 0;
  add(0, "create", "new chess by a@example.org");
  add(1, "accept", "");
  add(-1, "start", "");
  add(0, "move", "e4");  /* 4 */
  add(1, "move", "e5");  /* 5 */
  add(0, "move", "Nf3"); /* 6 */
}

static int undone_of(unsigned char *undone, char *why)
{
  return ref_journal_undone(entries, nentries, undone, why, 256);
}

/* The chess position the entries replay to, skipping what is undone. */
static void replay_fen(char *fen, size_t cap)
{
  struct ref_game_ctx g;
  unsigned char undone[32];
  char why[256];
  size_t i;
  memset(&g, 0, sizeof(g));
  g.desc = ref_game_find("chess");
  ck_assert_ptr_nonnull(g.desc);
  g.state = ref_state_new(g.desc);
  ck_assert_int_eq(undone_of(undone, why), 0);
  for(i = 0; i < nentries; i++)
    if(!undone[i])
      ck_assert_int_eq(ref_game_replay_entry(&g, &entries[i], why, sizeof(why)), 0);
  ck_assert_int_eq(g.desc->ops->encode(g.state, fen, cap), REF_OK);
  free(g.state);
}

START_TEST(test_agreed_undo)
{
  unsigned char undone[32];
  char why[256], fen[128];
  int64_t target = 0;

  opening();
  add(0, "offer", "draw offer");
  add(0, "takeback", "ask 6 2. Nf3");
  add(1, "takeback", "accept 6");
  add(0, "undo", "move 6 2. Nf3");
  ck_assert_int_eq(ref_undo_target(&entries[9], &target), 0);
  ck_assert_int_eq(target, 6);
  ck_assert_int_eq(ref_undo_target(&entries[8], &target), -1);
  ck_assert_int_eq(undone_of(undone, why), 0);
  for(size_t i = 0; i < nentries; i++)
    ck_assert_int_eq(undone[i], i == 5);
  replay_fen(fen, sizeof(fen));
  ck_assert_str_eq(fen, "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2");
  /* another move on the position before the undone one */
  add(0, "move", "Bc4");
  replay_fen(fen, sizeof(fen));
  ck_assert_str_eq(fen, "rnbqkbnr/pppp1ppp/8/4p3/2B1P3/8/PPPP1PPP/RNBQK1NR b KQkq - 1 2");
}
END_TEST

START_TEST(test_conditional_is_bookkeeping)
{
  char fen[128];
  opening();
  add(-1, "conditional", "b 1");
  add(1, "move", "Nc6");
  replay_fen(fen, sizeof(fen));
  ck_assert_str_eq(fen, "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
}
END_TEST

START_TEST(test_undos_in_a_row)
{
  unsigned char undone[32];
  char why[256], fen[128];
  opening();
  add(0, "undo", "move 6 2. Nf3");
  add(1, "undo", "move 5 1... e5");
  ck_assert_int_eq(undone_of(undone, why), 0);
  ck_assert(undone[4] && undone[5] && !undone[3]);
  replay_fen(fen, sizeof(fen));
  ck_assert_str_eq(fen, "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
}
END_TEST

START_TEST(test_refused_undos)
{
  unsigned char undone[32];
  char why[256];

  /* not the last move: Nf3 was answered */
  opening();
  add(1, "move", "Nc6");
  add(0, "undo", "move 6 2. Nf3");
  ck_assert_int_eq(undone_of(undone, why), -1);
  ck_assert_ptr_nonnull(strstr(why, "not the last move"));
  /* a roll after the move (dice games): the move is no longer the last */
  opening();
  add(-1, "roll", "chain 1 roll 1 faces 3 1");
  add(0, "undo", "move 6 x");
  ck_assert_int_eq(undone_of(undone, why), -1);
  /* an action after it */
  opening();
  add(1, "action", "double");
  add(0, "undo", "move 6 x");
  ck_assert_int_eq(undone_of(undone, why), -1);
  /* the same move twice */
  opening();
  add(0, "undo", "move 6 x");
  add(0, "undo", "move 6 x");
  ck_assert_int_eq(undone_of(undone, why), -1);
  /* an entry that is no move */
  opening();
  add(0, "undo", "move 3 start");
  ck_assert_int_eq(undone_of(undone, why), -1);
  /* written wrongly */
  opening();
  add(0, "undo", "6");
  ck_assert_int_eq(undone_of(undone, why), -1);
  ck_assert_ptr_nonnull(strstr(why, "names no move"));
  /* a move from the future */
  opening();
  add(0, "undo", "move 40 x");
  ck_assert_int_eq(undone_of(undone, why), -1);
}
END_TEST

START_TEST(test_part_of_the_journal)
{
  unsigned char undone[32];
  char why[256];
  opening();
  add(0, "takeback", "ask 6 2. Nf3");
  add(0, "undo", "move 6 2. Nf3");
  /* from a snapshot taken at entry 7: the move is before it */
  ck_assert_int_eq(ref_journal_undone(entries + 6, nentries - 6, undone, why, sizeof(why)), 1);
  /* from entry 6 on, the move is in the part */
  ck_assert_int_eq(ref_journal_undone(entries + 5, nentries - 5, undone, why, sizeof(why)), 0);
  ck_assert(undone[0]);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("takeback");
  TCase *tc = tcase_create("takeback");
  tcase_add_test(tc, test_agreed_undo);
  tcase_add_test(tc, test_conditional_is_bookkeeping);
  tcase_add_test(tc, test_undos_in_a_row);
  tcase_add_test(tc, test_refused_undos);
  tcase_add_test(tc, test_part_of_the_journal);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
