/*
 * test_glicko.c: Glicko-2 (referee/kit/glicko.c) against the worked
 * example of Mark E. Glickman, "Example of the Glicko-2 system": a player
 * rated 1500, RD 200, volatility 0.06, tau 0.5, who in one rating period
 * beats a 1400 (RD 30) and loses to a 1550 (RD 100) and to a 1700 (RD
 * 300). The paper prints, on the Glicko-2 scale, mu = 0, phi = 1.1513,
 * v = 1.7785, Delta = -0.4834, sigma' = 0.05999, mu' = -0.2069,
 * phi' = 0.8722, and converts those (rounded) values to r' = 1464.06 and
 * RD' = 151.52. Each is compared here at the paper's precision (v and
 * Delta, which the paper sums from rounded terms, to 0.001).
 *
 * The paper's r' is 173.7178 x (-0.2069) + 1500 with mu' already rounded
 * to four places; unrounded, mu' is -0.206945 and r' 1464.0507, which the
 * test also pins, so that a change in the arithmetic cannot hide behind
 * the rounding. Its sigma' = 0.05999 is the unrounded 0.0599960 cut after
 * five places.
 */
#include "glicko.h"
#include "unit_run.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* x rounded to `places` decimals, as the paper prints it, as text */
static void printed(char *buf, size_t cap, double x, int places)
{
  snprintf(buf, cap, "%.*f", places, x);
}

START_TEST(test_glicko_glickman_example)
{
  struct ref_glicko p = {1500, 200, 0.06};
  const struct ref_glicko_game games[3] = {
    {1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0},
  };
  struct ref_glicko_steps st;
  char buf[32];
  ref_glicko_period(&p, games, 3, 0.5, &st);
  printed(buf, sizeof(buf), st.mu, 4);
  ck_assert_str_eq(buf, "0.0000");
  printed(buf, sizeof(buf), st.phi, 4);
  ck_assert_str_eq(buf, "1.1513");
  /* v and Delta the paper sums from g(phi_j) and E rounded to three or
   * four places (0.9955, 0.639, ...): unrounded they are 1.7790 and
   * -0.4840, within the half-thousandth those roundings move them */
  ck_assert(fabs(st.v - 1.7785) < 0.001);
  ck_assert(fabs(st.delta - -0.4834) < 0.001);
  /* sigma' is 0.0599960: the paper prints its first five places */
  printed(buf, sizeof(buf), floor(p.volatility * 1e5) / 1e5, 5);
  ck_assert_str_eq(buf, "0.05999");
  printed(buf, sizeof(buf), p.volatility, 7);
  ck_assert_str_eq(buf, "0.0599960");
  printed(buf, sizeof(buf), st.mu_new, 4);
  ck_assert_str_eq(buf, "-0.2069");
  printed(buf, sizeof(buf), st.phi_new, 4);
  ck_assert_str_eq(buf, "0.8722");
  /* Step 8 as the paper does it, from its printed mu' and phi' */
  printed(buf, sizeof(buf), 173.7178 * -0.2069 + 1500, 2);
  ck_assert_str_eq(buf, "1464.06");
  printed(buf, sizeof(buf), 173.7178 * 0.8722, 2);
  ck_assert_str_eq(buf, "151.52");
  /* and unrounded: RD' agrees at the paper's digits, r' to 0.01 */
  printed(buf, sizeof(buf), p.rd, 2);
  ck_assert_str_eq(buf, "151.52");
  ck_assert(fabs(p.rating - 1464.06) < 0.01);
  printed(buf, sizeof(buf), p.rating, 4);
  ck_assert_str_eq(buf, "1464.0507");
}
END_TEST

/* The same period in another order gives the same result: the games of a
 * rating period count as simultaneous. */
START_TEST(test_glicko_order_within_a_period)
{
  struct ref_glicko a = {1500, 200, 0.06}, b = {1500, 200, 0.06};
  const struct ref_glicko_game g1[3] = {{1400, 30, 1}, {1550, 100, 0}, {1700, 300, 0}};
  const struct ref_glicko_game g2[3] = {{1700, 300, 0}, {1400, 30, 1}, {1550, 100, 0}};
  ref_glicko_period(&a, g1, 3, 0.5, NULL);
  ref_glicko_period(&b, g2, 3, 0.5, NULL);
  ck_assert(fabs(a.rating - b.rating) < 1e-9);
  ck_assert(fabs(a.rd - b.rd) < 1e-9);
  ck_assert(fabs(a.volatility - b.volatility) < 1e-12);
}
END_TEST

/* A player who does not compete: rating and volatility stay, the deviation
 * grows to sqrt(phi^2 + sigma^2) (step 6 alone). */
START_TEST(test_glicko_no_games)
{
  struct ref_glicko p = {1500, 200, 0.06};
  char rd[32];
  ref_glicko_period(&p, NULL, 0, 0.5, NULL);
  ck_assert(p.rating == 1500 && p.volatility == 0.06);
  printed(rd, sizeof(rd), p.rd, 4);
  /* 173.7178 * sqrt((200/173.7178)^2 + 0.06^2) */
  ck_assert_str_eq(rd, "200.2714");
}
END_TEST

/* One game between two new players: the winner gains what the loser
 * loses, both deviations shrink the same, and a draw moves nobody. */
START_TEST(test_glicko_one_game_symmetry)
{
  struct ref_glicko w, l, d1;
  struct ref_glicko_game gw = {1500, 350, 1}, gl = {1500, 350, 0}, gd = {1500, 350, 0.5};
  ref_glicko_init(&w);
  ref_glicko_init(&l);
  ref_glicko_init(&d1);
  ref_glicko_period(&w, &gw, 1, REF_GLICKO_TAU, NULL);
  ref_glicko_period(&l, &gl, 1, REF_GLICKO_TAU, NULL);
  ref_glicko_period(&d1, &gd, 1, REF_GLICKO_TAU, NULL);
  ck_assert(w.rating > 1500 && l.rating < 1500);
  ck_assert(fabs((w.rating - 1500) + (l.rating - 1500)) < 1e-9);
  ck_assert(fabs(w.rd - l.rd) < 1e-9 && w.rd < 350);
  ck_assert(fabs(d1.rating - 1500) < 1e-9 && d1.rd < 350);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("glicko");
  TCase *tc = tcase_create("glicko");

  tcase_add_test(tc, test_glicko_glickman_example);
  tcase_add_test(tc, test_glicko_order_within_a_period);
  tcase_add_test(tc, test_glicko_no_games);
  tcase_add_test(tc, test_glicko_one_game_symmetry);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
