/*
 * test_confirm.c: unit tests of store/confirm.c (nothing to an
 * address that has not asked) against store.h: the pending confirmation
 * requests (put, get, delete, prune) and the confirmed addresses (case
 * does not matter, the first answer is kept), migration 4, which counts
 * as confirmed the seats the journal shows answering a keyed mail, and
 * migration 6 (the competition tables), which keeps them.
 */
#include "driver.h"
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

static void raw_exec(const char *path, const char *sql)
{
  (void)scratch_raw_exec(path, sql);
}

static struct store_confirm request(const char *key, const char *address, int64_t expires)
{
  struct store_confirm c;
  memset(&c, 0, sizeof(c));
  snprintf(c.key, sizeof(c.key), "%s", key);
  snprintf(c.address, sizeof(c.address), "%s", address);
  snprintf(c.kind, sizeof(c.kind), "new");
  snprintf(c.request, sizeof(c.request), "new chess with bob@example.org");
  c.created = 1000;
  c.expires = expires;
  return c;
}

START_TEST(test_requests)
{
  struct store *st = scratch_open(":memory:");
  struct store_confirm a = request("k1", "alice@example.org", 5000), got;

  ck_assert_int_eq(store_confirm_put(st, &a), STORE_OK);
  ck_assert_int_eq(store_confirm_put(st, &a), STORE_EIO); /* a key is one request */
  a = request("k2", "carol@example.net", 9000);
  snprintf(a.kind, sizeof(a.kind), "observe");
  a.game = 7;
  ck_assert_int_eq(store_confirm_put(st, &a), STORE_OK);
  ck_assert_int_eq(store_confirm_get(st, &got, "k2"), STORE_OK);
  ck_assert_str_eq(got.address, "carol@example.net");
  ck_assert_str_eq(got.kind, "observe");
  ck_assert_str_eq(got.request, "new chess with bob@example.org");
  ck_assert_int_eq(got.game, 7);
  ck_assert_int_eq(got.created, 1000);
  ck_assert_int_eq(got.expires, 9000);
  ck_assert_int_eq(store_confirm_get(st, &got, "nope"), STORE_ENOTFOUND);
  /* a kind the schema does not know is refused */
  a = request("k3", "dave@example.net", 9000);
  snprintf(a.kind, sizeof(a.kind), "resign");
  ck_assert_int_ne(store_confirm_put(st, &a), STORE_OK);
  /* prune drops what expired before the time given, nothing else */
  ck_assert_int_eq(store_confirm_prune(st, 6000), STORE_OK);
  ck_assert_int_eq(store_confirm_get(st, &got, "k1"), STORE_ENOTFOUND);
  ck_assert_int_eq(store_confirm_get(st, &got, "k2"), STORE_OK);
  ck_assert_int_eq(store_confirm_delete(st, "k2"), STORE_OK);
  ck_assert_int_eq(store_confirm_get(st, &got, "k2"), STORE_ENOTFOUND);
  store_close(st);
}
END_TEST

START_TEST(test_confirmed)
{
  struct store *st = scratch_open(":memory:");
  bool yes = true;
  ck_assert_int_eq(store_confirmed_get(st, &yes, "alice@example.org"), STORE_OK);
  ck_assert(!yes);
  ck_assert_int_eq(store_confirmed_add(st, "Alice@Example.org", 100, "confirmed a request"),
                   STORE_OK);
  ck_assert_int_eq(store_confirmed_add(st, "alice@example.org", 200, "answered a keyed mail"),
                   STORE_OK);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "alice@example.org"), STORE_OK);
  ck_assert(yes);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "ALICE@EXAMPLE.ORG"), STORE_OK);
  ck_assert(yes);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "bob@example.org"), STORE_OK);
  ck_assert(!yes);
  store_close(st);
}
END_TEST

/* A store at version 3 (claims, before confirmations, v5's columns and
 * v6's competition tables) with game 1: alice invited (only 'create'), bob
 * accepted and moved; game 2: carol invited dave, who never answered.
 * Opening it migrates to the latest (4: confirmations, 5: the outbox's
 * columns, 6: competition) and counts bob as confirmed, no one else. */
START_TEST(test_migration_counts_answers)
{
  struct store *st = scratch_open(scratch_db);
  bool yes = false;
  store_close(st);
  raw_exec(scratch_db,
           SCRATCH_UNDO_V9 "DROP INDEX games_invited; DROP INDEX clocks_due;"
           "ALTER TABLE games DROP COLUMN snapshot; ALTER TABLE clocks DROP COLUMN next_event;"
           "ALTER TABLE dice DROP COLUMN checkpoints;"
           "DROP TABLE confirmations; DROP TABLE confirmed;"
           "DROP TABLE tournament_games; DROP TABLE tournament_players; DROP TABLE tournaments;"
           "DROP TABLE match_games; DROP TABLE matches; DROP TABLE ratings;"
           "DROP TABLE conditionals; DROP TABLE seeks;"
           "PRAGMA user_version = 3;"
           "INSERT INTO players VALUES('alice@example.org', 1), ('bob@example.org', 1),"
           " ('carol@example.org', 1), ('dave@example.org', 1);"
           "INSERT INTO games(id, kind, rules_version, options, phase, state, turn, result,"
           " created, updated) VALUES(1, 'chess', 1, '', 'active', '', 0, '', 1, 1),"
           " (2, 'chess', 1, '', 'invited', '', -1, '', 1, 1);"
           "INSERT INTO seats VALUES(1, 0, 'alice@example.org', 't1', 1, ''),"
           " (1, 1, 'bob@example.org', 't2', 1, ''), (2, 0, 'carol@example.org', 't3', 1, ''),"
           " (2, 1, 'dave@example.org', 't4', 0, '');"
           "INSERT INTO journal VALUES(1, 1, 10, 0, 'create', 'new chess', '', '', ''),"
           " (1, 2, 20, 1, 'accept', '', '', '', ''), (1, 3, 30, -1, 'start', '', '', '', ''),"
           " (1, 4, 40, 1, 'move', 'e5', '', '', ''),"
           " (2, 1, 50, 0, 'create', 'new chess', '', '', '');");
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_LATEST);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "bob@example.org"), STORE_OK);
  ck_assert(yes);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "alice@example.org"), STORE_OK);
  ck_assert(!yes);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "carol@example.org"), STORE_OK);
  ck_assert(!yes);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "dave@example.org"), STORE_OK);
  ck_assert(!yes);
  store_close(st);
}
END_TEST

/* A store at version 5 (confirmations, v5's columns, before v6's
 * competition tables): opening it migrates to 6, keeps who is
 * confirmed and the requests waiting, and the ratings table is there to
 * use. */
START_TEST(test_migration_to_competition_keeps_them)
{
  struct store *st = scratch_open(scratch_db);
  struct store_confirm c = request("k4", "erin@example.org", 500), back;
  struct store_rating r;
  bool yes = false;
  ck_assert_int_eq(store_confirm_put(st, &c), STORE_OK);
  ck_assert_int_eq(store_confirmed_add(st, "frank@example.org", 40, "new"), STORE_OK);
  store_close(st);
  raw_exec(scratch_db,
           SCRATCH_UNDO_V9 "DROP TABLE tournament_games; DROP TABLE tournament_players; DROP TABLE tournaments;"
           "DROP TABLE match_games; DROP TABLE matches; DROP TABLE ratings;"
           "DROP TABLE conditionals; DROP TABLE seeks;"
           "PRAGMA user_version = 5;");
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_LATEST);
  ck_assert_int_eq(store_confirmed_get(st, &yes, "Frank@example.org"), STORE_OK);
  ck_assert(yes);
  ck_assert_int_eq(store_confirm_get(st, &back, "k4"), STORE_OK);
  ck_assert_str_eq(back.address, "erin@example.org");
  memset(&r, 0, sizeof(r));
  snprintf(r.kind, sizeof(r.kind), "chess");
  snprintf(r.address, sizeof(r.address), "frank@example.org");
  r.rating = 1500;
  ck_assert_int_eq(store_rating_put(st, &r), STORE_OK);
  ck_assert_int_eq(store_rating_get(st, &r, "chess", "frank@example.org"), STORE_OK);
  store_close(st);
}
END_TEST

/* v8: the table rebuilt with more kinds. A store at v7 (the old
 * CHECK: 'new' and 'observe' only) keeps its waiting requests, then takes
 * a 'keyless' request (a player's mail without a game's key) with its
 * game, and still refuses a kind it does not know. */
START_TEST(test_migration_v8_kinds)
{
  struct store *st = scratch_open(scratch_db);
  struct store_confirm c = request("k7", "gina@example.org", 900), back;
  store_close(st);
  raw_exec(scratch_db,
           SCRATCH_UNDO_V9 "DROP TABLE confirmations;"
           "CREATE TABLE confirmations(key TEXT PRIMARY KEY,"
           " address TEXT NOT NULL COLLATE NOCASE,"
           " kind TEXT NOT NULL CHECK(kind IN ('new', 'observe')), request TEXT NOT NULL,"
           " game INTEGER NOT NULL DEFAULT 0, created INTEGER NOT NULL,"
           " expires INTEGER NOT NULL) STRICT;"
           "CREATE INDEX confirmations_by_expiry ON confirmations(expires);"
           "INSERT INTO confirmations VALUES('k6', 'hal@example.org', 'observe', 'observe 3',"
           " 3, 100, 800);"
           "PRAGMA user_version = 7;");
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_LATEST);
  ck_assert_int_eq(store_confirm_get(st, &back, "k6"), STORE_OK);
  ck_assert_str_eq(back.kind, "observe");
  ck_assert_str_eq(back.request, "observe 3");
  ck_assert_int_eq(back.game, 3);
  ck_assert_int_eq(back.expires, 800);
  snprintf(c.kind, sizeof(c.kind), "keyless");
  snprintf(c.request, sizeof(c.request), "e4\n#12");
  c.game = 12;
  ck_assert_int_eq(store_confirm_put(st, &c), STORE_OK);
  ck_assert_int_eq(store_confirm_get(st, &back, "k7"), STORE_OK);
  ck_assert_str_eq(back.kind, "keyless");
  ck_assert_str_eq(back.request, "e4\n#12");
  ck_assert_int_eq(back.game, 12);
  snprintf(c.key, sizeof(c.key), "k8");
  snprintf(c.kind, sizeof(c.kind), "resign");
  ck_assert_int_ne(store_confirm_put(st, &c), STORE_OK);
  /* the index on expiry is back: pruning finds by it */
  ck_assert_int_eq(store_confirm_prune(st, 850), STORE_OK);
  ck_assert_int_eq(store_confirm_get(st, &back, "k6"), STORE_ENOTFOUND);
  ck_assert_int_eq(store_confirm_get(st, &back, "k7"), STORE_OK);
  store_close(st);
}
END_TEST


int main(void)
{
  Suite *s = suite_create("confirm");
  TCase *tc = tcase_create("confirm");
  tcase_add_checked_fixture(tc, scratch_dir_setup, scratch_dir_teardown);
  tcase_add_test(tc, test_requests);
  tcase_add_test(tc, test_confirmed);
  scratch_add_sqlite_test(tc, test_migration_counts_answers);
  scratch_add_sqlite_test(tc, test_migration_to_competition_keeps_them);
  scratch_add_sqlite_test(tc, test_migration_v8_kinds);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
