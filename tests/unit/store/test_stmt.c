/*
 * test_stmt.c: unit tests of store/stmt.c, the one door every statement of
 * the store goes through (store_int.h): each bind letter lands as its SQL
 * type and value, a fixed-size field that is not NUL-terminated is refused
 * and nothing is written, a bad letter is refused, a query collects its
 * rows in order, a one-row query of no row is ENOTFOUND with the
 * operation named, and SQLite's failures map onto the store's codes.
 */
#include "store_fixture.h"
#include "store_int.h"
#include "unit_run.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

struct row {
  char kinds[6][8]; /* typeof() of each column */
  int64_t i;
  double d;
  char t[16];
  char f[8];
  size_t blen;
  unsigned char b[4];
};

static int read_row(struct store *st, const struct store_row *src, void *out)
{
  struct row *r = out;
  int c, rc = STORE_OK;
  for(c = 0; c < 6 && rc == STORE_OK; c++)
    rc = store_copy_column(st, r->kinds[c], sizeof(r->kinds[c]), src, 6 + c, "kind");
  r->i = store_col_int64(src, 0);
  r->d = store_col_double(src, 1);
  if(rc == STORE_OK)
    rc = store_copy_column(st, r->t, sizeof(r->t), src, 2, "t");
  if(rc == STORE_OK)
    rc = store_copy_column(st, r->f, sizeof(r->f), src, 3, "f");
  {
    const void *p = store_col_blob(src, 4, &r->blen);
    if(p && r->blen && r->blen <= sizeof(r->b))
      memcpy(r->b, p, r->blen);
  }
  return rc;
}

#define SELECT_ROWS                                                                                \
  "SELECT i, d, t, f, b, n, typeof(i), typeof(d), typeof(t), typeof(f), typeof(b), typeof(n)"      \
  " FROM x"

static int64_t count(struct store *st)
{
  int64_t n = -1;
  ck_assert_int_eq(
      store_query_one(st, &n, sizeof(n), store_row_int64, "SELECT count(*) FROM x", "count", ""),
      STORE_OK);
  return n;
}

START_TEST(test_binds)
{
  struct store *st = scratch_mem;
  struct row *rows = NULL, one;
  void *v = NULL;
  size_t n = 0;
  char field[8] = "field";
  char full[4] = {'a', 'b', 'c', 'd'}; /* no NUL within its size */
  const unsigned char blob[3] = {0, 1, 2};

  ck_assert_int_eq(store_run(st, "CREATE TABLE x(i, d, t, f, b, n)", "create", ""), STORE_OK);
  ck_assert_int_eq(store_run(st, "INSERT INTO x VALUES($1, $2, $3, $4, $5, $6)", "insert", "idtfbn",
                             (int64_t)-7, 2.5, "text", field, sizeof(field), "x.f",
                             (const void *)blob, sizeof(blob)),
                   STORE_OK);
  /* NULL text and a NULL blob bind SQL NULL */
  ck_assert_int_eq(store_run(st, "INSERT INTO x VALUES($1, $2, $3, $4, $5, $6)", "insert", "idtfbn",
                             INT64_MAX, 0.0, (const char *)NULL, field, sizeof(field), "x.f",
                             (const void *)NULL, (size_t)0),
                   STORE_OK);
  ck_assert_int_eq(store_query(st, &v, &n, sizeof(struct row), read_row,
                               SELECT_ROWS " ORDER BY rowid", "select", ""),
                   STORE_OK);
  rows = v;
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(rows[0].kinds[0], "integer");
  ck_assert_int_eq(rows[0].i, -7);
  ck_assert_str_eq(rows[0].kinds[1], "real");
  ck_assert(rows[0].d == 2.5);
  ck_assert_str_eq(rows[0].kinds[2], "text");
  ck_assert_str_eq(rows[0].t, "text");
  ck_assert_str_eq(rows[0].kinds[3], "text");
  ck_assert_str_eq(rows[0].f, "field");
  ck_assert_str_eq(rows[0].kinds[4], "blob");
  ck_assert_uint_eq(rows[0].blen, 3);
  ck_assert_int_eq(memcmp(rows[0].b, blob, 3), 0);
  ck_assert_str_eq(rows[0].kinds[5], "null");
  ck_assert_int_eq(rows[1].i, INT64_MAX);
  ck_assert_str_eq(rows[1].kinds[2], "null");
  ck_assert_str_eq(rows[1].kinds[4], "null");
  free(rows);

  /* a field not NUL-terminated within its size: refused, nothing written */
  ck_assert_int_eq(
      store_run(st, "INSERT INTO x(f) VALUES($1)", "insert", "f", full, sizeof(full), "x.f"),
      STORE_EIO);
  ck_assert_str_eq(store_errmsg(st), "x.f is not NUL-terminated within 4 bytes");
  ck_assert_int_eq(count(st), 2);
  /* a letter the helper does not know: refused, nothing written */
  ck_assert_int_eq(store_run(st, "INSERT INTO x(i) VALUES($1)", "insert", "x", (int64_t)1),
                   STORE_EIO);
  ck_assert_ptr_nonnull(strstr(store_errmsg(st), "bad bind format"));
  ck_assert_int_eq(count(st), 2);

  /* one row: found, and not found */
  ck_assert_int_eq(store_query_one(st, &one, sizeof(one), read_row, SELECT_ROWS " WHERE i = $1",
                                   "one", "i", (int64_t)-7),
                   STORE_OK);
  ck_assert_str_eq(one.t, "text");
  ck_assert_int_eq(store_query_one(st, &one, sizeof(one), read_row, SELECT_ROWS " WHERE i = $1",
                                   "one", "i", (int64_t)5),
                   STORE_ENOTFOUND);
  ck_assert_str_eq(store_errmsg(st), "one: not found");
  /* no rows is an empty array, not a failure */
  ck_assert_int_eq(store_query(st, &v, &n, sizeof(struct row), read_row,
                               SELECT_ROWS " WHERE i = $1", "select", "i", (int64_t)5),
                   STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(v);
}
END_TEST

START_TEST(test_errors)
{
  struct store *st = scratch_mem;
  void *v = (void *)1;
  size_t n = 9;
  int64_t id;

  /* SQL that does not parse: EIO, the operation named */
  ck_assert_int_eq(store_run(st, "INSERT INTO nowhere VALUES($1)", "the insert", "i", (int64_t)1),
                   STORE_EIO);
  ck_assert_int_eq(strncmp(store_errmsg(st), "the insert: ", 12), 0);
  /* a failed query leaves no array behind */
  ck_assert_int_eq(store_query(st, &v, &n, sizeof(int64_t), store_row_int64,
                               "SELECT id FROM nowhere", "the query", ""),
                   STORE_EIO);
  ck_assert_ptr_null(v);
  ck_assert_uint_eq(n, 0);
  /* a constraint: EIO as well; the row is not there */
  ck_assert_int_eq(
      store_run(st, "CREATE TABLE y(id INTEGER PRIMARY KEY, v TEXT NOT NULL)", "create", ""), STORE_OK);
  ck_assert_int_eq(store_run(st, "INSERT INTO y(v) VALUES($1)", "insert", "n"), STORE_EIO);
  ck_assert_int_eq(
      store_query_one(st, &id, sizeof(id), store_row_int64, "SELECT count(*) FROM y", "count", ""),
      STORE_OK);
  ck_assert_int_eq(id, 0);
}
END_TEST

/* The store's SQL is read by SQLite and PostgreSQL alike: SQLite numbers
 * $N by its first appearance, PostgreSQL by N. A statement where the two
 * would disagree (a later number first, a number skipped) is refused
 * before anything is bound, with the parameter named; nothing is written. */
START_TEST(test_params_in_order)
{
  struct store *st = scratch_mem;
  int64_t n = -1;

  ck_assert_int_eq(store_run(st, "CREATE TABLE z(a INTEGER, b TEXT)", "create", ""), STORE_OK);
  ck_assert_int_eq(store_run(st, "INSERT INTO z(b, a) VALUES($2, $1)", "out of order", "it",
                             (int64_t)1, "x"),
                   STORE_EIO);
  ck_assert_msg(strstr(store_errmsg(st), "out of order: parameter 1 is not named $1"), "%s",
                store_errmsg(st));
  ck_assert_int_eq(store_run(st, "INSERT INTO z(a, b) VALUES($1, $3)", "skipped", "iit",
                             (int64_t)1, (int64_t)2, "x"),
                   STORE_EIO);
  ck_assert_msg(strstr(store_errmsg(st), "skipped: parameter 2 is not named $2"), "%s",
                store_errmsg(st));
  /* a number used twice is one parameter */
  ck_assert_int_eq(store_run(st, "INSERT INTO z(a, b) SELECT $1, $2 WHERE $1 > 0", "twice", "it",
                             (int64_t)1, "x"),
                   STORE_OK);
  ck_assert_int_eq(
      store_query_one(st, &n, sizeof(n), store_row_int64, "SELECT count(*) FROM z", "count", ""),
      STORE_OK);
  ck_assert_int_eq(n, 1);
}
END_TEST

/* Inside a transaction a failed write fails its group, whenever the engine
 * says so: PostgreSQL's driver sends a write ahead without waiting for it
 * (driver_pg.c, pq_step) and hears of its failure with the group's
 * RELEASE. The group is undone, the one before kept, the next one works;
 * the failure names the write; a read sees the writes sent before it, and
 * store_changes counts the rows of a write sent ahead. */
START_TEST(test_group_failure)
{
  struct store *st = scratch_mem;
  struct store_group g;
  int64_t n = -1;
  int rc;

  ck_assert_int_eq(store_run(st, "CREATE TABLE w(id INTEGER PRIMARY KEY, v TEXT NOT NULL)",
                             "create", ""),
                   STORE_OK);
  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_group_begin(st, &g), STORE_OK);
  rc = store_run(st, "INSERT INTO w(id, v) VALUES($1, $2)", "insert", "it", (int64_t)1, "a");
  ck_assert_int_eq(store_group_end(st, &g, rc), STORE_OK);

  ck_assert_int_eq(store_group_begin(st, &g), STORE_OK);
  rc = store_run(st, "INSERT INTO w(id, v) VALUES($1, $2)", "insert", "it", (int64_t)2, "b");
  if(rc == STORE_OK)
    rc = store_run(st, "INSERT INTO w(id, v) VALUES($1, $2)", "the bad insert", "in",
                   (int64_t)3);
  rc = store_group_end(st, &g, rc);
  ck_assert_int_eq(rc, STORE_EIO);
  ck_assert_msg(!strncmp(store_errmsg(st), "the bad insert: ", 16), "%s", store_errmsg(st));

  ck_assert_int_eq(store_group_begin(st, &g), STORE_OK);
  rc = store_run(st, "INSERT INTO w(id, v) VALUES($1, $2)", "insert", "it", (int64_t)4, "c");
  if(rc == STORE_OK)
    rc = store_query_one(st, &n, sizeof(n), store_row_int64, "SELECT count(*) FROM w", "count",
                         "");
  ck_assert_int_eq(store_group_end(st, &g, rc), STORE_OK);
  ck_assert_int_eq(n, 2); /* a and c: b went with the bad insert */
  ck_assert_int_eq(store_run(st, "UPDATE w SET v = $1 WHERE id <> $2", "update", "ti", "z",
                             (int64_t)0),
                   STORE_OK);
  ck_assert_int_eq(store_changes(st), 2);
  ck_assert_int_eq(store_commit(st), STORE_OK);
  ck_assert_int_eq(store_query_one(st, &n, sizeof(n), store_row_int64,
                                   "SELECT sum(id) FROM w WHERE v = 'z'", "sum", ""),
                   STORE_OK);
  ck_assert_int_eq(n, 5);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("stmt");
  TCase *tc = tcase_create("stmt");
  tcase_add_checked_fixture(tc, scratch_memory_setup, scratch_memory_teardown);
  scratch_add_sqlite_test(tc, test_binds);
  tcase_add_test(tc, test_errors);
  scratch_add_sqlite_test(tc, test_params_in_order);
  tcase_add_test(tc, test_group_failure);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
