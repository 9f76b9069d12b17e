/*
 * test_compete.c: the competition tables of tabula_store (store/compete.c)
 * against store.h: a rating's doubles come back bit for bit (the
 * stored table is compared with a rebuild by equality), the lists keep
 * their order, a match and a tournament know their games, and the
 * constraints refuse what cannot be (a game in two matches, a player twice
 * in one tournament, a tournament name used twice).
 */
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_compete_ratings_exact)
{
  struct store_rating r, back, *rows = NULL;
  size_t n = 0;
  memset(&r, 0, sizeof(r));
  snprintf(r.kind, sizeof(r.kind), "chess");
  snprintf(r.address, sizeof(r.address), "bob@example.org");
  r.rating = 1464.0506569391637;
  r.rd = 151.51652412385727;
  r.volatility = 0.059995984286488495;
  r.games = 3;
  r.wins = 1;
  r.losses = 2;
  r.last_ended = 1795000000;
  r.last_unit = 7;
  ck_assert_int_eq(store_rating_put(scratch_mem, &r), STORE_OK);
  ck_assert_int_eq(store_rating_get(scratch_mem, &back, "chess", "bob@example.org"), STORE_OK);
  ck_assert(back.rating == r.rating && back.rd == r.rd && back.volatility == r.volatility);
  ck_assert_int_eq(back.games, 3);
  ck_assert_int_eq(back.last_unit, 7);
  ck_assert_int_eq(store_rating_get(scratch_mem, &back, "checkers", "bob@example.org"),
                   STORE_ENOTFOUND);
  /* replace, then a second player above: listed by rating */
  r.rating = 1400;
  ck_assert_int_eq(store_rating_put(scratch_mem, &r), STORE_OK);
  snprintf(r.address, sizeof(r.address), "alice@example.org");
  r.rating = 1600;
  ck_assert_int_eq(store_rating_put(scratch_mem, &r), STORE_OK);
  snprintf(r.kind, sizeof(r.kind), "backgammon");
  ck_assert_int_eq(store_rating_put(scratch_mem, &r), STORE_OK);
  ck_assert_int_eq(store_rating_list(scratch_mem, &rows, &n, "chess"), STORE_OK);
  ck_assert_int_eq(n, 2);
  ck_assert_str_eq(rows[0].address, "alice@example.org");
  ck_assert(rows[1].rating == 1400);
  free(rows);
  ck_assert_int_eq(store_rating_list(scratch_mem, &rows, &n, NULL), STORE_OK);
  ck_assert_int_eq(n, 3);
  ck_assert_str_eq(rows[0].kind, "backgammon");
  free(rows);
  ck_assert_int_eq(store_rating_clear(scratch_mem, "chess"), STORE_OK);
  ck_assert_int_eq(store_rating_list(scratch_mem, &rows, &n, NULL), STORE_OK);
  ck_assert_int_eq(n, 1);
  free(rows);
}
END_TEST

START_TEST(test_compete_matches)
{
  struct store_match m;
  int64_t id = 0, g1 = scratch_game("backgammon"), g2 = scratch_game("backgammon"), match,
          *games = NULL;
  int number;
  size_t n = 0;
  ck_assert_int_eq(store_match_create(scratch_mem, &id, 3, 100), STORE_OK);
  ck_assert_int_eq(store_match_add_game(scratch_mem, id, 1, g1), STORE_OK);
  ck_assert_int_eq(store_match_add_game(scratch_mem, id, 2, g2), STORE_OK);
  /* a game belongs to one match, once */
  ck_assert_int_ne(store_match_add_game(scratch_mem, id, 3, g2), STORE_OK);
  ck_assert_int_eq(store_match_of_game(scratch_mem, &match, &number, g2), STORE_OK);
  ck_assert(match == id && number == 2);
  ck_assert_int_eq(store_match_of_game(scratch_mem, &match, &number, 999), STORE_ENOTFOUND);
  ck_assert_int_eq(store_match_games(scratch_mem, &games, &n, id), STORE_OK);
  ck_assert(n == 2 && games[0] == g1 && games[1] == g2);
  free(games);
  ck_assert_int_eq(store_match_load(scratch_mem, &m, id), STORE_OK);
  ck_assert(m.length == 3 && m.phase == STORE_MATCH_PLAYING && m.winner == -1);
  m.phase = STORE_MATCH_FINISHED;
  m.winner = 1;
  ck_assert_int_eq(store_match_update(scratch_mem, &m), STORE_OK);
  ck_assert_int_eq(store_match_load(scratch_mem, &m, id), STORE_OK);
  ck_assert(m.phase == STORE_MATCH_FINISHED && m.winner == 1);
}
END_TEST

START_TEST(test_compete_tournaments)
{
  struct store_tournament t, back;
  struct store_tournament_player *p = NULL;
  int64_t id = 0, g = scratch_game("backgammon"), of = 0, *ids = NULL;
  size_t n = 0;
  memset(&t, 0, sizeof(t));
  snprintf(t.name, sizeof(t.name), "Spring");
  snprintf(t.kind, sizeof(t.kind), "chess");
  t.cycles = 2;
  snprintf(t.organizer, sizeof(t.organizer), "alice@example.org");
  ck_assert_int_eq(store_tournament_create(scratch_mem, &id, &t), STORE_OK);
  ck_assert_int_ne(store_tournament_create(scratch_mem, &id, &t), STORE_OK); /* the name is taken */
  ck_assert_int_eq(store_tournament_find(scratch_mem, &back, "spring"), STORE_OK);
  ck_assert(back.id == id && back.cycles == 2 && back.phase == STORE_TOURNAMENT_INVITED);
  ck_assert_int_eq(store_tournament_add_player(scratch_mem, id, 1, "alice@example.org"), STORE_OK);
  ck_assert_int_eq(store_tournament_add_player(scratch_mem, id, 2, "bob@example.org"), STORE_OK);
  ck_assert_int_ne(store_tournament_add_player(scratch_mem, id, 3, "bob@example.org"), STORE_OK);
  ck_assert_int_eq(store_tournament_players(scratch_mem, &p, &n, id), STORE_OK);
  ck_assert(n == 2 && p[1].number == 2);
  ck_assert_str_eq(p[1].address, "bob@example.org");
  free(p);
  ck_assert_int_eq(store_tournament_add_game(scratch_mem, id, g, 1), STORE_OK);
  ck_assert_int_eq(store_tournament_of_game(scratch_mem, &of, g), STORE_OK);
  ck_assert(of == id);
  ck_assert_int_eq(store_tournament_list(scratch_mem, &ids, &n, "BOB@example.org"), STORE_OK);
  ck_assert(n == 1 && ids[0] == id);
  free(ids);
  ck_assert_int_eq(store_tournament_list(scratch_mem, &ids, &n, "carol@example.org"), STORE_OK);
  ck_assert(n == 0);
  free(ids);
  back.phase = STORE_TOURNAMENT_FINISHED;
  back.finished = 1234;
  ck_assert_int_eq(store_tournament_update(scratch_mem, &back), STORE_OK);
  ck_assert_int_eq(store_tournament_load(scratch_mem, &back, id), STORE_OK);
  ck_assert(back.phase == STORE_TOURNAMENT_FINISHED && back.finished == 1234);
}
END_TEST

/* A knockout's rows (schema v11): its length marks it, entries and slots
 * replace in place and come back in order, a slot's match and winner
 * round-trip, a round robin has no length, and an entry needs its player. */
START_TEST(test_compete_knockouts)
{
  struct store_tournament t;
  struct store_knockout_entry e, *es = NULL;
  struct store_knockout_slot sl, *ss = NULL;
  int64_t id = 0, match = 0, g = scratch_game("backgammon");
  size_t n = 0;
  int length = 0, round = 0;
  memset(&t, 0, sizeof(t));
  snprintf(t.name, sizeof(t.name), "cup");
  snprintf(t.kind, sizeof(t.kind), "backgammon");
  t.cycles = 1;
  snprintf(t.organizer, sizeof(t.organizer), "alice@example.org");
  ck_assert_int_eq(store_tournament_create(scratch_mem, &id, &t), STORE_OK);
  ck_assert_int_eq(store_knockout_length(scratch_mem, &length, id), STORE_ENOTFOUND);
  ck_assert_int_eq(store_knockout_create(scratch_mem, id, 5), STORE_OK);
  ck_assert_int_eq(store_knockout_length(scratch_mem, &length, id), STORE_OK);
  ck_assert_int_eq(length, 5);
  memset(&e, 0, sizeof(e));
  e.number = 1;
  ck_assert_int_ne(store_knockout_entry_put(scratch_mem, id, &e), STORE_OK); /* no player 1 */
  ck_assert_int_eq(store_tournament_add_player(scratch_mem, id, 1, "alice@example.org"), STORE_OK);
  ck_assert_int_eq(store_tournament_add_player(scratch_mem, id, 2, "bob@example.org"), STORE_OK);
  e.number = 2;
  ck_assert_int_eq(store_knockout_entry_put(scratch_mem, id, &e), STORE_OK);
  e.number = 1;
  snprintf(e.entropy, sizeof(e.entropy), "mid:abc");
  e.accepted = 1;
  e.position = 2;
  ck_assert_int_eq(store_knockout_entry_put(scratch_mem, id, &e), STORE_OK);
  e.withdrawn = 1;
  ck_assert_int_eq(store_knockout_entry_put(scratch_mem, id, &e), STORE_OK); /* replaced */
  ck_assert_int_eq(store_knockout_entries(scratch_mem, &es, &n, id), STORE_OK);
  ck_assert(n == 2 && es[0].number == 1 && es[0].accepted && es[0].position == 2 &&
            es[0].withdrawn && !es[1].accepted);
  ck_assert_str_eq(es[0].entropy, "mid:abc");
  free(es);
  memset(&sl, 0, sizeof(sl));
  snprintf(sl.commitment, sizeof(sl.commitment), "%064d", 1);
  snprintf(sl.secret, sizeof(sl.secret), "%064d", 2);
  sl.slot = 1;
  ck_assert_int_eq(store_knockout_slot_put(scratch_mem, id, &sl), STORE_OK);
  sl.slot = 0;
  ck_assert_int_eq(store_knockout_slot_put(scratch_mem, id, &sl), STORE_OK);
  ck_assert_int_eq(store_match_create(scratch_mem, &match, 5, 1), STORE_OK);
  sl.slot = 1;
  sl.match = match;
  sl.winner = 2;
  ck_assert_int_eq(store_knockout_slot_put(scratch_mem, id, &sl), STORE_OK);
  ck_assert_int_eq(store_knockout_slots(scratch_mem, &ss, &n, id), STORE_OK);
  ck_assert(n == 2 && ss[0].slot == 0 && ss[0].match == 0 && ss[0].winner == 0 &&
            ss[1].slot == 1 && ss[1].match == match && ss[1].winner == 2);
  ck_assert_str_eq(ss[1].secret, sl.secret);
  free(ss);
  ck_assert_int_eq(store_tournament_add_game(scratch_mem, id, g, 3), STORE_OK);
  ck_assert_int_eq(store_tournament_game_round(scratch_mem, &round, g), STORE_OK);
  ck_assert_int_eq(round, 3);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("compete");
  TCase *tc = tcase_create("compete");

  tcase_add_checked_fixture(tc, scratch_memory_setup, scratch_memory_teardown);
  tcase_add_test(tc, test_compete_ratings_exact);
  tcase_add_test(tc, test_compete_matches);
  tcase_add_test(tc, test_compete_tournaments);
  tcase_add_test(tc, test_compete_knockouts);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
