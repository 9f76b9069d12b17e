/*
 * test_seeks.c: unit tests of store/seeks.c (finding a game)
 * against store.h: an open seek put and read back, the open ones listed
 * by game system and by address (case does not matter) oldest first, a
 * seek closed only while open (a repeated close is ENOTFOUND and changes
 * nothing), and the ones due to expire.
 */
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int64_t put(struct store *st, const char *address, const char *kind, const char *options,
                   int64_t created, int64_t expires)
{
  struct store_seek s;
  int64_t id = 0;
  memset(&s, 0, sizeof(s));
  snprintf(s.address, sizeof(s.address), "%s", address);
  snprintf(s.kind, sizeof(s.kind), "%s", kind);
  snprintf(s.options, sizeof(s.options), "%s", options);
  s.days = 3;
  s.rated = 1;
  s.created = created;
  s.expires = expires;
  ck_assert_int_eq(store_seek_put(st, &id, &s), STORE_OK);
  ck_assert_int_gt(id, 0);
  return id;
}

START_TEST(test_seeks)
{
  struct store *st = NULL;
  struct store_seek back, *open = NULL;
  int64_t *ids = NULL, a, b, c;
  size_t n = 0;
  char err[256];

  ck_assert_msg(store_open(&st, scratch_db, err, sizeof(err)) == STORE_OK, "store_open: %s", err);
  a = put(st, "alice@example.org", "chess", "as=Black;fide_draws=off", 100, 1000);
  b = put(st, "bob@example.org", "backgammon", "", 200, 2000);
  c = put(st, "Alice@Example.org", "chess", "", 300, 3000);

  ck_assert_int_eq(store_seek_get(st, &back, a), STORE_OK);
  ck_assert_str_eq(back.address, "alice@example.org");
  ck_assert_str_eq(back.kind, "chess");
  ck_assert_str_eq(back.options, "as=Black;fide_draws=off");
  ck_assert_str_eq(back.phase, "open");
  ck_assert_int_eq(back.days, 3);
  ck_assert_int_eq(back.rated, 1);
  ck_assert_int_eq(back.created, 100);
  ck_assert_int_eq(back.expires, 1000);
  ck_assert_int_eq(back.game, 0);
  ck_assert_int_eq(store_seek_get(st, &back, 999), STORE_ENOTFOUND);

  /* by game system, oldest first */
  ck_assert_int_eq(store_seeks_open(st, &open, &n, "chess", NULL), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(open[0].id, a);
  ck_assert_int_eq(open[1].id, c);
  free(open);
  /* by address, whatever its case */
  ck_assert_int_eq(store_seeks_open(st, &open, &n, NULL, "ALICE@example.org"), STORE_OK);
  ck_assert_uint_eq(n, 2);
  free(open);
  ck_assert_int_eq(store_seeks_open(st, &open, &n, NULL, NULL), STORE_OK);
  ck_assert_uint_eq(n, 3);
  free(open);

  /* due to expire at 2000: a and b */
  ck_assert_int_eq(store_seeks_expired(st, &ids, &n, 2000), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(ids[0], a);
  ck_assert_int_eq(ids[1], b);
  free(ids);

  /* closed once; a closed seek is no longer open, due, or closable */
  ck_assert_int_eq(store_seek_close(st, a, "paired", 7), STORE_OK);
  ck_assert_int_eq(store_seek_close(st, a, "expired", 0), STORE_ENOTFOUND);
  ck_assert_int_eq(store_seek_get(st, &back, a), STORE_OK);
  ck_assert_str_eq(back.phase, "paired");
  ck_assert_int_eq(back.game, 7);
  ck_assert_int_eq(store_seek_close(st, b, "expired", 0), STORE_OK);
  ck_assert_int_eq(store_seeks_expired(st, &ids, &n, 5000), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(ids[0], c);
  free(ids);
  ck_assert_int_eq(store_seeks_open(st, &open, &n, "chess", NULL), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(open[0].id, c);
  free(open);
  /* the schema's CHECK: no phase it does not know */
  ck_assert_int_ne(store_seek_close(st, c, "lost", 0), STORE_OK);
  store_close(st);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("seeks");
  TCase *tc = tcase_create("seeks");
  tcase_add_checked_fixture(tc, scratch_dir_setup, scratch_dir_teardown);
  tcase_add_test(tc, test_seeks);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
