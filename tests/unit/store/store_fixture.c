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
char scratch_db[300];
struct store *scratch_mem;

void scratch_dir_setup(void)
{
  snprintf(scratch_dir, sizeof(scratch_dir), "%s/tabula-store-XXXXXX", P_tmpdir);
  ck_assert_ptr_nonnull(mkdtemp(scratch_dir));
  snprintf(scratch_db, sizeof(scratch_db), "%s/tabula.db", scratch_dir);
}

void scratch_dir_teardown(void)
{
  char path[600];
  struct dirent *d;
  DIR *dir = opendir(scratch_dir);

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
  char err[256];
  ck_assert_int_eq(store_open(&scratch_mem, ":memory:", err, sizeof(err)), STORE_OK);
}

void scratch_memory_teardown(void)
{
  store_close(scratch_mem);
  scratch_mem = NULL;
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
