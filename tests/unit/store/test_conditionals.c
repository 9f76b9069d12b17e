/*
 * test_conditionals.c: the prepared lines of tabula_store
 * (store/conditionals.c) against store.h: a branch comes back as
 * put, the list keeps its order and filters by seat, a branch goes one
 * step on (update) or away (delete), and store_conditionals_clear (the
 * contract with takeback) drops one seat's or every seat's, succeeding
 * when there is nothing to drop; a branch of no game is refused.
 */
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t add(int64_t game, int seat, int64_t ply, const char *plies, const char *line)
{
  struct store_conditional c;
  int64_t id = 0;
  memset(&c, 0, sizeof(c));
  c.game = game;
  c.seat = seat;
  c.ply = ply;
  snprintf(c.plies, sizeof(c.plies), "%s", plies);
  snprintf(c.line, sizeof(c.line), "%s", line);
  c.created = 1795000000;
  ck_assert_int_eq(store_conditional_add(scratch_mem, &id, &c), STORE_OK);
  ck_assert(id > 0);
  return id;
}

START_TEST(test_conditionals_rows)
{
  int64_t g = scratch_game("chess"), other = scratch_game("chess"), a, b;
  struct store_conditional *rows = NULL;
  size_t n = 0;

  a = add(g, 0, 1, "e5 Nf3", "if 1...e5 then 2.Nf3");
  b = add(g, 0, 1, "e5 Nf3 Nc6 Bb5", "if e5 Nf3 Nc6 then Bb5");
  add(g, 1, 2, "Nf3 Nc6", "if Nf3 then Nc6");
  add(other, 0, 1, "c5 Nf3", "if c5 then Nf3");

  ck_assert_int_eq(store_conditional_list(scratch_mem, &rows, &n, g, 0), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert(rows[0].id == a && rows[1].id == b);
  ck_assert_str_eq(rows[0].plies, "e5 Nf3");
  ck_assert_str_eq(rows[0].line, "if 1...e5 then 2.Nf3");
  ck_assert(rows[0].game == g && rows[0].seat == 0 && rows[0].ply == 1);
  ck_assert(rows[0].created == 1795000000);
  free(rows);
  ck_assert_int_eq(store_conditional_list(scratch_mem, &rows, &n, g, -1), STORE_OK);
  ck_assert_uint_eq(n, 3);
  free(rows);

  /* one step on, then played out */
  ck_assert_int_eq(store_conditional_update(scratch_mem, b, 3, "Nc6 Bb5"), STORE_OK);
  ck_assert_int_eq(store_conditional_delete(scratch_mem, a), STORE_OK);
  ck_assert_int_eq(store_conditional_list(scratch_mem, &rows, &n, g, 0), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert(rows[0].id == b && rows[0].ply == 3);
  ck_assert_str_eq(rows[0].plies, "Nc6 Bb5");
  ck_assert_str_eq(rows[0].line, "if e5 Nf3 Nc6 then Bb5");
  free(rows);
}
END_TEST

START_TEST(test_conditionals_clear)
{
  int64_t g = scratch_game("chess"), other = scratch_game("chess");
  struct store_conditional *rows = NULL;
  size_t n = 0;

  add(g, 0, 1, "e5 Nf3", "if e5 then Nf3");
  add(g, 1, 2, "Nf3 Nc6", "if Nf3 then Nc6");
  add(other, 1, 2, "Nf3 Nc6", "if Nf3 then Nc6");
  ck_assert_int_eq(store_conditionals_clear(scratch_mem, g, 1), 0);
  ck_assert_int_eq(store_conditional_list(scratch_mem, &rows, &n, g, -1), STORE_OK);
  ck_assert(n == 1 && rows[0].seat == 0);
  free(rows);
  ck_assert_int_eq(store_conditionals_clear(scratch_mem, g, -1), 0);
  ck_assert_int_eq(store_conditional_list(scratch_mem, &rows, &n, g, -1), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(rows);
  /* nothing left to clear is no error; another game's lines stay */
  ck_assert_int_eq(store_conditionals_clear(scratch_mem, g, -1), 0);
  ck_assert_int_eq(store_conditional_list(scratch_mem, &rows, &n, other, -1), STORE_OK);
  ck_assert_uint_eq(n, 1);
  free(rows);
}
END_TEST

START_TEST(test_conditionals_no_game)
{
  struct store_conditional c;
  memset(&c, 0, sizeof(c));
  c.game = 99;
  snprintf(c.plies, sizeof(c.plies), "e5 Nf3");
  snprintf(c.line, sizeof(c.line), "if e5 then Nf3");
  ck_assert_int_ne(store_conditional_add(scratch_mem, NULL, &c), STORE_OK);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("conditionals");
  TCase *tc = tcase_create("conditionals");

  tcase_add_checked_fixture(tc, scratch_memory_setup, scratch_memory_teardown);
  tcase_add_test(tc, test_conditionals_rows);
  tcase_add_test(tc, test_conditionals_clear);
  tcase_add_test(tc, test_conditionals_no_game);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
