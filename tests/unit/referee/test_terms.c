/*
 * test_terms.c: a game's terms read one word at a time (referee/turns/terms.c),
 * answering in the service's one result type (referee/kit/rc.h):
 *
 *  - a word of the terms is taken: REF_RC_OK;
 *  - a word that is no term (the caller's own: a tournament's name, a
 *    player) is left to the caller: REF_RC_PASS, nothing taken;
 *  - a term written wrongly is refused with its reason: REF_RC_REFUSED,
 *    never -1 (which is a failure everywhere in the service);
 *  - options that make no game are refused, options that do are taken.
 */
#include "lifecycle_int.h"
#include "unit_run.h"

#include <check.h>
#include <string.h>

START_TEST(test_words)
{
  const struct ref_game_desc *d = ref_game_find("chess");
  struct ref_terms t;
  struct ref_err err;

  ck_assert_ptr_nonnull(d);
  ref_terms_init(&t);
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(ref_terms_word(d, &t, "private", &err), REF_RC_OK);
  ck_assert_int_eq(t.priv, 1);
  ck_assert_int_eq(ref_terms_word(d, &t, "as", &err), REF_RC_OK);
  ck_assert_int_eq(ref_terms_word(d, &t, "black", &err), REF_RC_OK);
  ck_assert_int_eq(t.seat, 1);
  ck_assert_int_eq(ref_terms_word(d, &t, "days=3", &err), REF_RC_OK);
  ck_assert_int_eq(t.days, 3);
  /* the caller's own word: a round robin's name */
  ck_assert_int_eq(ref_terms_word(d, &t, "spring", &err), REF_RC_PASS);
  ck_assert_str_eq(t.opts, "");
  /* refused, with the reason */
  ck_assert_int_eq(ref_terms_word(d, &t, "as", &err), REF_RC_OK);
  ck_assert_int_eq(ref_terms_word(d, &t, "purple", &err), REF_RC_REFUSED);
  ck_assert_str_eq(err.reason, "bad-seat");
  ck_assert_int_eq(ref_terms_word(d, &t, "days=x", &err), REF_RC_REFUSED);
  ck_assert_str_eq(err.reason, "bad-clock-option");
}
END_TEST

START_TEST(test_check)
{
  const struct ref_game_desc *d = ref_game_find("chess");
  struct ref_err err;

  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(ref_terms_check(d, "", &err), REF_RC_OK);
  ck_assert_int_eq(ref_terms_check(d, "no_such_option=1", &err), REF_RC_REFUSED);
  ck_assert(err.reason[0]);
  /* a position the rules have ended starts no game (POS-1) */
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(ref_terms_check(d, "fen=7k/5QQ1/8/8/8/8/8/K7 b - - 0 1", &err),
                   REF_RC_REFUSED);
  ck_assert_str_eq(err.reason, "position-over");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("terms");
  TCase *tc = tcase_create("terms");
  tcase_add_test(tc, test_words);
  tcase_add_test(tc, test_check);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
