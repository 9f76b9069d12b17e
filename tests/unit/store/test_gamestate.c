/*
 * test_gamestate.c: the game state beside the games (store/gamestate.c,
 * schema v10) against store.h:
 *  - each kind comes back as put, "none" when never put or cleared, and a
 *    row of a game (or seat, or player) that does not exist is refused;
 *  - observers keep the order they came in, are added once, and are
 *    removed whatever the case of the address;
 *  - a v9 store (the kv strings of the old service) opens as v10 with
 *    every kind moved to its table, read as the old service read it
 *    (what it read as "none" moves nothing), the installation's own kv
 *    keys kept (on either engine: the schema's version rewound, the v10
 *    tables dropped);
 *  - store_state_check says nothing of a sound store and names every row
 *    that points nowhere or holds a value out of range, and kv rows of a
 *    kind that has its table.
 */
#include "driver.h"
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* behind the store's back, on either engine (store_fixture.h) */
#define raw_exec(path, sql) ((void)scratch_raw_exec(path, sql))
#define raw_int scratch_raw_int

/* A game of two seats in st, their players alice and bob. */
static int64_t two_seat_game(struct store *st)
{
  struct store_game g;
  struct store_seat s;
  int64_t id = 0;
  int i;
  memset(&g, 0, sizeof(g));
  snprintf(g.kind, sizeof(g.kind), "backgammon");
  g.turn = -1;
  g.draw_offer_seat = -1;
  ck_assert_int_eq(store_game_create(st, &id, &g), STORE_OK);
  for(i = 0; i < 2; i++) {
    memset(&s, 0, sizeof(s));
    s.game = id;
    s.seat = i;
    snprintf(s.address, sizeof(s.address), "%s@example.org", i ? "bob" : "alice");
    snprintf(s.token, sizeof(s.token), "t%lld-%d", (long long)id, i);
    s.accepted = true;
    ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  }
  return id;
}

START_TEST(test_offers)
{
  struct store *st = scratch_mem;
  int64_t g = two_seat_game(st), seq = -5;
  bool found = true;
  int seat = 7, level = 7;

  ck_assert_int_eq(store_resign_get(st, &found, &seat, &level, g), STORE_OK);
  ck_assert(!found);
  ck_assert_int_eq(store_resign_set(st, g, 1, 2), STORE_OK);
  ck_assert_int_eq(store_resign_get(st, &found, &seat, &level, g), STORE_OK);
  ck_assert(found && seat == 1 && level == 2);
  ck_assert_int_eq(store_resign_set(st, g, 0, 3), STORE_OK); /* one offer a game */
  ck_assert_int_eq(store_resign_get(st, &found, &seat, &level, g), STORE_OK);
  ck_assert(found && seat == 0 && level == 3);
  ck_assert_int_eq(store_resign_clear(st, g), STORE_OK);
  ck_assert_int_eq(store_resign_get(st, &found, &seat, &level, g), STORE_OK);
  ck_assert(!found);
  /* no such seat, no such level, no such game */
  ck_assert_int_ne(store_resign_set(st, g, 2, 1), STORE_OK);
  ck_assert_int_ne(store_resign_set(st, g, 0, 4), STORE_OK);
  ck_assert_int_ne(store_resign_set(st, g + 1, 0, 1), STORE_OK);

  ck_assert_int_eq(store_takeback_get(st, &found, &seat, &seq, g), STORE_OK);
  ck_assert(!found);
  ck_assert_int_eq(store_takeback_set(st, g, 0, 12), STORE_OK);
  ck_assert_int_eq(store_takeback_get(st, &found, &seat, &seq, g), STORE_OK);
  ck_assert(found && seat == 0 && seq == 12);
  ck_assert_int_eq(store_takeback_clear(st, g), STORE_OK);
  ck_assert_int_eq(store_takeback_get(st, &found, &seat, &seq, g), STORE_OK);
  ck_assert(!found);
  ck_assert_int_ne(store_takeback_set(st, g, 3, 12), STORE_OK);
  ck_assert_int_ne(store_takeback_set(st, g, 0, 0), STORE_OK);
}
END_TEST

START_TEST(test_standing_answers)
{
  struct store *st = scratch_mem;
  int64_t g = two_seat_game(st);
  enum store_cube_answer a = STORE_CUBE_TAKE;
  bool on = true;

  ck_assert_int_eq(store_autoroll_get(st, &on, g, 1), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_autoroll_set(st, g, 1, true), STORE_OK);
  ck_assert_int_eq(store_autoroll_set(st, g, 1, true), STORE_OK); /* twice is once */
  ck_assert_int_eq(store_autoroll_get(st, &on, g, 1), STORE_OK);
  ck_assert(on);
  ck_assert_int_eq(store_autoroll_get(st, &on, g, 0), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_autoroll_set(st, g, 1, false), STORE_OK);
  ck_assert_int_eq(store_autoroll_get(st, &on, g, 1), STORE_OK);
  ck_assert(!on);
  ck_assert_int_ne(store_autoroll_set(st, g, 5, true), STORE_OK);

  ck_assert_int_eq(store_cube_answer_get(st, &a, g, 0), STORE_OK);
  ck_assert_int_eq(a, STORE_CUBE_NONE);
  ck_assert_int_eq(store_cube_answer_set(st, g, 0, STORE_CUBE_DROP), STORE_OK);
  ck_assert_int_eq(store_cube_answer_get(st, &a, g, 0), STORE_OK);
  ck_assert_int_eq(a, STORE_CUBE_DROP);
  ck_assert_int_eq(store_cube_answer_set(st, g, 0, STORE_CUBE_TAKE), STORE_OK);
  ck_assert_int_eq(store_cube_answer_get(st, &a, g, 0), STORE_OK);
  ck_assert_int_eq(a, STORE_CUBE_TAKE);
  ck_assert_int_eq(store_cube_answer_set(st, g, 0, STORE_CUBE_NONE), STORE_OK);
  ck_assert_int_eq(store_cube_answer_get(st, &a, g, 0), STORE_OK);
  ck_assert_int_eq(a, STORE_CUBE_NONE);
}
END_TEST

START_TEST(test_observers)
{
  struct store *st = scratch_mem;
  int64_t g = two_seat_game(st), other = two_seat_game(st);
  struct store_observer *rows = NULL;
  size_t n = 9;
  bool done = false;

  ck_assert_int_eq(store_observer_list(st, &rows, &n, g), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(rows);
  ck_assert_int_eq(store_observer_add(st, &done, g, "zoe@example.org"), STORE_OK);
  ck_assert(done);
  ck_assert_int_eq(store_observer_add(st, &done, g, "carol@example.org"), STORE_OK);
  ck_assert_int_eq(store_observer_add(st, &done, other, "dave@example.org"), STORE_OK);
  ck_assert_int_eq(store_observer_add(st, &done, g, "zoe@example.org"), STORE_OK);
  ck_assert(!done);
  ck_assert_int_eq(store_observer_list(st, &rows, &n, g), STORE_OK);
  ck_assert_uint_eq(n, 2); /* in the order they came, not by name */
  ck_assert_str_eq(rows[0].address, "zoe@example.org");
  ck_assert_str_eq(rows[1].address, "carol@example.org");
  free(rows);
  ck_assert_int_eq(store_observer_remove(st, &done, g, "Zoe@Example.ORG"), STORE_OK);
  ck_assert(done);
  ck_assert_int_eq(store_observer_remove(st, &done, g, "zoe@example.org"), STORE_OK);
  ck_assert(!done);
  ck_assert_int_eq(store_observer_list(st, &rows, &n, g), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(rows[0].address, "carol@example.org");
  free(rows);
  ck_assert_int_ne(store_observer_add(st, &done, other + 1, "x@example.org"), STORE_OK);
  ck_assert(!done);
}
END_TEST

START_TEST(test_flags_and_counts)
{
  struct store *st = scratch_mem;
  int64_t g = two_seat_game(st), roll = 9;
  struct store_hourly h = {0, 0};
  bool on = true, found = true;
  int version = 9;

  ck_assert_int_eq(store_game_flag_get(st, &on, g, STORE_FLAG_PRIVATE), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_game_flag_set(st, g, STORE_FLAG_PRIVATE), STORE_OK);
  ck_assert_int_eq(store_game_flag_set(st, g, STORE_FLAG_PRIVATE), STORE_OK);
  ck_assert_int_eq(store_game_flag_get(st, &on, g, STORE_FLAG_PRIVATE), STORE_OK);
  ck_assert(on);
  ck_assert_int_eq(store_game_flag_get(st, &on, g, STORE_FLAG_PUBLIC_COMMENTS), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_game_flag_set(st, g, STORE_FLAG_PUBLIC_COMMENTS), STORE_OK);
  ck_assert_int_eq(store_game_flag_get(st, &on, g, STORE_FLAG_PUBLIC_COMMENTS), STORE_OK);
  ck_assert(on);
  ck_assert_int_ne(store_game_flag_set(st, g + 1, STORE_FLAG_PRIVATE), STORE_OK);

  ck_assert_int_eq(store_comments_off_get(st, &on, "bob@example.org"), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_comments_off_set(st, "bob@example.org", true), STORE_OK);
  ck_assert_int_eq(store_comments_off_get(st, &on, "bob@example.org"), STORE_OK);
  ck_assert(on);
  ck_assert_int_eq(store_comments_off_set(st, "bob@example.org", false), STORE_OK);
  ck_assert_int_eq(store_comments_off_get(st, &on, "bob@example.org"), STORE_OK);
  ck_assert(!on);
  ck_assert_int_ne(store_comments_off_set(st, "nobody@example.org", true), STORE_OK);

  ck_assert_int_eq(store_dice_protocol_get(st, &version, g), STORE_OK);
  ck_assert_int_eq(version, 0);
  ck_assert_int_eq(store_dice_protocol_set(st, g, 2), STORE_OK);
  ck_assert_int_eq(store_dice_protocol_get(st, &version, g), STORE_OK);
  ck_assert_int_eq(version, 2);
  ck_assert_int_ne(store_dice_protocol_set(st, g, 3), STORE_OK);

  ck_assert_int_eq(store_lag_get(st, &roll, g), STORE_OK);
  ck_assert_int_eq(roll, 0);
  ck_assert_int_eq(store_lag_set(st, g, 14), STORE_OK);
  ck_assert_int_eq(store_lag_get(st, &roll, g), STORE_OK);
  ck_assert_int_eq(roll, 14);

  ck_assert_int_eq(store_hourly_get(st, &found, &h, STORE_COUNT_UNASKED, "bob@example.org"),
                   STORE_OK);
  ck_assert(!found);
  h.start = 1795000000;
  h.count = 3;
  ck_assert_int_eq(store_hourly_set(st, STORE_COUNT_UNASKED, "bob@example.org", &h), STORE_OK);
  h.count = 1;
  ck_assert_int_eq(store_hourly_set(st, STORE_COUNT_STRANGERS, "", &h), STORE_OK);
  memset(&h, 0, sizeof(h));
  ck_assert_int_eq(store_hourly_get(st, &found, &h, STORE_COUNT_UNASKED, "bob@example.org"),
                   STORE_OK);
  ck_assert(found && h.start == 1795000000 && h.count == 3);
  ck_assert_int_eq(store_hourly_get(st, &found, &h, STORE_COUNT_RATE, "bob@example.org"),
                   STORE_OK);
  ck_assert(!found); /* each counter its own */
  ck_assert_int_eq(store_hourly_get(st, &found, &h, STORE_COUNT_STRANGERS, ""), STORE_OK);
  ck_assert(found && h.count == 1);
  h.count = -1;
  ck_assert_int_ne(store_hourly_set(st, STORE_COUNT_RATE, "a@example.org", &h), STORE_OK);
}
END_TEST

/* ---- v9 -> v10: the kv strings move to their tables ---- */

START_TEST(test_migrates_kv)
{
  struct store *st = scratch_open(scratch_db);
  int64_t g = two_seat_game(st), g2 = two_seat_game(st), seq = 0, roll = 0;
  struct store_observer *rows = NULL;
  struct store_hourly h;
  enum store_cube_answer a;
  char sql[4096], buf[64];
  bool found, on;
  size_t n = 0;
  int seat, level, version;

  store_close(st);
  /* the store as v9 left it: the service's strings in kv (as the old
   * code wrote them, "none" values included), one of a game that does
   * not exist, the installation's own keys */
  snprintf(sql, sizeof(sql),
           "%3$s%4$s"
           "INSERT INTO kv(key, value) VALUES"
           " ('resign:%1$lld', '1 2'), ('resign:%2$lld', '-1 0'),"
           " ('takeback:%1$lld', '0 7'), ('takeback:%2$lld', '-1 0'),"
           " ('autoroll:%1$lld:1', '1'), ('autoroll:%1$lld:0', '0'),"
           " ('cubeanswer:%1$lld:0', 'drop'), ('cubeanswer:%1$lld:1', ''),"
           " ('observers:%1$lld', 'zoe@example.org carol@example.org amy@example.org'),"
           " ('observers:%2$lld', ''), ('observers:999', 'ghost@example.org'),"
           " ('private:%2$lld', '1'), ('public-comments:%1$lld', '1'),"
           " ('comments-off:bob@example.org', '1'), ('comments-off:alice@example.org', '0'),"
           " ('dice-protocol:%1$lld', 'tabula-dice-2'), ('lag:%1$lld', '6'),"
           " ('rate:Bob@Example.org', '1795000000 4'),"
           " ('unasked:carol@example.org', '1795000100 2'),"
           " ('budget:strangers', '1795000200 5'),"
           " ('imap referee@example.org/INBOX', '77 12'), ('pop3 r@example.org', 'a b ');",
           (long long)g, (long long)g2, SCRATCH_UNDO_V10,
           scratch_pg() ? "UPDATE tabula_schema SET version = 9;" : "PRAGMA user_version = 9;");
  raw_exec(scratch_db, sql);

  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_LATEST);
  ck_assert_int_eq(store_resign_get(st, &found, &seat, &level, g), STORE_OK);
  ck_assert(found && seat == 1 && level == 2);
  ck_assert_int_eq(store_resign_get(st, &found, &seat, &level, g2), STORE_OK);
  ck_assert(!found);
  ck_assert_int_eq(store_takeback_get(st, &found, &seat, &seq, g), STORE_OK);
  ck_assert(found && seat == 0 && seq == 7);
  ck_assert_int_eq(store_takeback_get(st, &found, &seat, &seq, g2), STORE_OK);
  ck_assert(!found);
  ck_assert_int_eq(store_autoroll_get(st, &on, g, 1), STORE_OK);
  ck_assert(on);
  ck_assert_int_eq(store_autoroll_get(st, &on, g, 0), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_cube_answer_get(st, &a, g, 0), STORE_OK);
  ck_assert_int_eq(a, STORE_CUBE_DROP);
  ck_assert_int_eq(store_cube_answer_get(st, &a, g, 1), STORE_OK);
  ck_assert_int_eq(a, STORE_CUBE_NONE);
  ck_assert_int_eq(store_observer_list(st, &rows, &n, g), STORE_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_str_eq(rows[0].address, "zoe@example.org");
  ck_assert_str_eq(rows[1].address, "carol@example.org");
  ck_assert_str_eq(rows[2].address, "amy@example.org");
  free(rows);
  ck_assert_int_eq(store_observer_list(st, &rows, &n, g2), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(rows);
  ck_assert_int_eq(store_game_flag_get(st, &on, g2, STORE_FLAG_PRIVATE), STORE_OK);
  ck_assert(on);
  ck_assert_int_eq(store_game_flag_get(st, &on, g, STORE_FLAG_PRIVATE), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_game_flag_get(st, &on, g, STORE_FLAG_PUBLIC_COMMENTS), STORE_OK);
  ck_assert(on);
  ck_assert_int_eq(store_comments_off_get(st, &on, "bob@example.org"), STORE_OK);
  ck_assert(on);
  ck_assert_int_eq(store_comments_off_get(st, &on, "alice@example.org"), STORE_OK);
  ck_assert(!on);
  ck_assert_int_eq(store_dice_protocol_get(st, &version, g), STORE_OK);
  ck_assert_int_eq(version, 2);
  ck_assert_int_eq(store_dice_protocol_get(st, &version, g2), STORE_OK);
  ck_assert_int_eq(version, 0);
  ck_assert_int_eq(store_lag_get(st, &roll, g), STORE_OK);
  ck_assert_int_eq(roll, 6);
  ck_assert_int_eq(store_hourly_get(st, &found, &h, STORE_COUNT_RATE, "Bob@Example.org"),
                   STORE_OK);
  ck_assert(found && h.start == 1795000000 && h.count == 4);
  ck_assert_int_eq(store_hourly_get(st, &found, &h, STORE_COUNT_UNASKED, "carol@example.org"),
                   STORE_OK);
  ck_assert(found && h.start == 1795000100 && h.count == 2);
  ck_assert_int_eq(store_hourly_get(st, &found, &h, STORE_COUNT_STRANGERS, ""), STORE_OK);
  ck_assert(found && h.start == 1795000200 && h.count == 5);
  /* kv keeps the installation's keys, and nothing else */
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "imap referee@example.org/INBOX"),
                   STORE_OK);
  ck_assert_str_eq(buf, "77 12");
  store_close(st);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM kv"), 3); /* + the store id */
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM observers"), 3);
}
END_TEST

/* ---- tabula check ---- */

START_TEST(test_state_check)
{
  struct store *st = scratch_open(scratch_db);
  int64_t g = two_seat_game(st);
  char *problems = NULL, sql[2048], lag[128] = "";
  bool done;

  ck_assert_int_eq(store_resign_set(st, g, 0, 1), STORE_OK);
  ck_assert_int_eq(store_observer_add(st, &done, g, "zoe@example.org"), STORE_OK);
  ck_assert_int_eq(store_comments_off_set(st, "bob@example.org", true), STORE_OK);
  ck_assert_int_eq(store_state_check(st, &problems), STORE_OK);
  ck_assert_str_eq(problems, "");
  free(problems);
  store_close(st);

  if(!scratch_pg())
    snprintf(lag, sizeof(lag), "INSERT INTO lag_previews(game, roll) VALUES(%lld, -3);",
             (long long)g);
  /* rows written behind the store's back, its constraints off (on
   * PostgreSQL the foreign keys only: its CHECKs cannot be turned off,
   * so the row out of range is SQLite's alone) */
  snprintf(sql, sizeof(sql), "%2$s"
           "INSERT INTO observers(game, address) VALUES(404, 'ghost@example.org');"
           "INSERT INTO standing_rolls(game, seat) VALUES(%1$lld, 5);"
           "INSERT INTO takeback_requests(game, seat, seq) VALUES(%1$lld, 0, 99);"
           "%3$s"
           "INSERT INTO dice_protocols(game, version) VALUES(%1$lld, 2);"
           "INSERT INTO private_games(game) VALUES(%1$lld);"
           "INSERT INTO comments_off(address) VALUES('nobody@example.org');"
           "INSERT INTO kv(key, value) VALUES('observers:%1$lld', 'x@example.org');",
           (long long)g,
           scratch_pg() ? "SET session_replication_role = replica;"
                        : "PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON;",
           lag);
  raw_exec(scratch_db, sql);
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_state_check(st, &problems), STORE_OK);
  ck_assert_msg(strstr(problems, "observers: game 404, ghost@example.org: no such game\n"), "%s",
                problems);
  snprintf(sql, sizeof(sql), "standing_rolls: game %lld seat 5: no such seat\n", (long long)g);
  ck_assert_msg(strstr(problems, sql), "%s", problems);
  snprintf(sql, sizeof(sql),
           "takeback_requests: game %lld seat 0: names no move of the game's journal\n",
           (long long)g);
  ck_assert_msg(strstr(problems, sql), "%s", problems);
  snprintf(sql, sizeof(sql), "lag_previews: game %lld: roll below 0\n", (long long)g);
  ck_assert_msg(scratch_pg() || strstr(problems, sql), "%s", problems);
  snprintf(sql, sizeof(sql), "dice_protocols: game %lld: game without dice\n", (long long)g);
  ck_assert_msg(strstr(problems, sql), "%s", problems);
  snprintf(sql, sizeof(sql), "observers: game %lld, zoe@example.org: observes a private game\n",
           (long long)g);
  ck_assert_msg(strstr(problems, sql), "%s", problems);
  ck_assert_msg(strstr(problems, "comments_off: nobody@example.org: no such player\n"), "%s",
                problems);
  snprintf(sql, sizeof(sql), "kv: observers:%lld: game state outside its table", (long long)g);
  ck_assert_msg(strstr(problems, sql), "%s", problems);
  free(problems);
  store_close(st);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("gamestate");
  TCase *mem = tcase_create("rows"), *file = tcase_create("file");

  tcase_add_checked_fixture(mem, scratch_memory_setup, scratch_memory_teardown);
  tcase_add_test(mem, test_offers);
  tcase_add_test(mem, test_standing_answers);
  tcase_add_test(mem, test_observers);
  tcase_add_test(mem, test_flags_and_counts);
  suite_add_tcase(s, mem);
  tcase_add_checked_fixture(file, scratch_dir_setup, scratch_dir_teardown);
  tcase_add_test(file, test_migrates_kv);
  tcase_add_test(file, test_state_check);
  suite_add_tcase(s, file);
  return unit_run(s);
}
