/*
 * store_fixture.c: the store tests' scratch stores (store_fixture.h).
 */
#include "store_fixture.h"
#include "store_int.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char scratch_dir[256];
char scratch_db[600];
struct store *scratch_mem;

/* On PostgreSQL: the schema of the test's store, "" before */
static char pg_schema[2][32];

bool scratch_pg(void)
{
  const char *engine = getenv("TABULA_TEST_ENGINE");
  return engine && !strcmp(engine, "pg");
}

/* A fresh schema in the test cluster's database for one store; the
 * connection string of a store in it into conninfo. */
static void pg_schema_new(char *name, size_t cap, char *conninfo, size_t ccap)
{
  const char *base = getenv("TABULA_TEST_PG");
  static unsigned counter;
  char sql[100], err[256];
  struct store *st = NULL;

  ck_assert_msg(base && *base, "TABULA_TEST_ENGINE=pg without TABULA_TEST_PG "
                               "(run under tests/harness/pg_cluster.sh)");
  snprintf(name, cap, "t%ld_%u", (long)getpid(), ++counter);
  ck_assert_int_eq(store_open_bare(&st, base, err, sizeof(err)), STORE_OK);
  snprintf(sql, sizeof(sql), "CREATE SCHEMA %s", name);
  ck_assert_msg(store_exec(st, sql, "schema") == STORE_OK, "%s", store_errmsg(st));
  store_close(st);
  snprintf(conninfo, ccap, "%s options=-csearch_path=%s", base, name);
}

static void pg_schema_drop(char *name)
{
  char sql[100], err[256];
  struct store *st = NULL;

  if(!name[0])
    return;
  if(store_open_bare(&st, getenv("TABULA_TEST_PG"), err, sizeof(err)) == STORE_OK) {
    snprintf(sql, sizeof(sql), "DROP SCHEMA %s CASCADE", name);
    if(store_exec(st, sql, "schema") != STORE_OK) {
      /* the cluster goes away with its test anyway */
    }
  }
  store_close(st);
  name[0] = '\0';
}

void scratch_dir_setup(void)
{
  snprintf(scratch_dir, sizeof(scratch_dir), "%s/tabula-store-XXXXXX", P_tmpdir);
  ck_assert_ptr_nonnull(mkdtemp(scratch_dir));
  if(scratch_pg())
    pg_schema_new(pg_schema[0], sizeof(pg_schema[0]), scratch_db, sizeof(scratch_db));
  else
    snprintf(scratch_db, sizeof(scratch_db), "%s/tabula.db", scratch_dir);
}

void scratch_dir_teardown(void)
{
  char path[600];
  struct dirent *d;
  DIR *dir;

  pg_schema_drop(pg_schema[0]);
  dir = opendir(scratch_dir);
  if(!dir)
    return;
  for(d = readdir(dir); d; d = readdir(dir)) {
    if(!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
      continue;
    snprintf(path, sizeof(path), "%s/%s", scratch_dir, d->d_name);
    unlink(path);
  }
  closedir(dir);
  rmdir(scratch_dir);
}

struct store *scratch_open(const char *path)
{
  char err[256];
  struct store *st = NULL;
  int rc = store_open(&st, path, err, sizeof(err));

  ck_assert_msg(rc == STORE_OK, "store_open(%s): %d %s", path, rc, err);
  ck_assert_ptr_nonnull(st);
  return st;
}

void scratch_memory_setup(void)
{
  static char conninfo[600];
  char err[256];
  int rc;

  if(scratch_pg())
    pg_schema_new(pg_schema[1], sizeof(pg_schema[1]), conninfo, sizeof(conninfo));
  rc = store_open(&scratch_mem, scratch_pg() ? conninfo : ":memory:", err, sizeof(err));
  ck_assert_msg(rc == STORE_OK, "scratch store: %s", err);
}

void scratch_memory_teardown(void)
{
  store_close(scratch_mem);
  scratch_mem = NULL;
  pg_schema_drop(pg_schema[1]);
}

int64_t scratch_game(const char *kind)
{
  struct store_game g;
  int64_t id = 0;
  memset(&g, 0, sizeof(g));
  snprintf(g.kind, sizeof(g.kind), "%s", kind);
  g.turn = -1;
  g.draw_offer_seat = -1;
  ck_assert_int_eq(store_game_create(scratch_mem, &id, &g), STORE_OK);
  return id;
}

/* ---- behind the store's back ---- */

static struct store *raw_open(const char *path)
{
  char err[256];
  struct store *st = NULL;
  int rc = store_open_bare(&st, path, err, sizeof(err));

  ck_assert_msg(rc == STORE_OK, "store_open_bare(%s): %d %s", path, rc, err);
  return st;
}

int64_t scratch_raw_exec(const char *path, const char *sql)
{
  struct store *st = raw_open(path);
  int rc = store_exec(st, sql, "raw sql");
  int64_t changes;

  ck_assert_msg(rc == STORE_OK, "raw sql %s: %s", sql, store_errmsg(st));
  changes = store_changes(st);
  store_close(st);
  return changes;
}

int64_t scratch_raw_int(const char *path, const char *sql)
{
  struct store *st = raw_open(path);
  int64_t v = 0;
  int rc = store_query_one(st, &v, sizeof(v), store_row_int64, sql, "raw query", "");

  ck_assert_msg(rc == STORE_OK, "raw query %s: %s", sql, store_errmsg(st));
  store_close(st);
  return v;
}

struct raw_text {
  char s[256];
};

static int raw_text_row(struct store *st, const struct store_row *src, void *row)
{
  struct raw_text *t = row;
  return store_copy_column(st, t->s, sizeof(t->s), src, 0, "raw text");
}

void scratch_raw_text(char *buf, size_t cap, const char *path, const char *sql)
{
  struct store *st = raw_open(path);
  struct raw_text t;
  int rc = store_query_one(st, &t, sizeof(t), raw_text_row, sql, "raw query", "");

  ck_assert_msg(rc == STORE_OK, "raw query %s: %s", sql, store_errmsg(st));
  store_close(st);
  snprintf(buf, cap, "%s", t.s);
}
