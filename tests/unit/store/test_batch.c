/*
 * test_batch.c: the store's batches (store_batch_begin/commit/rollback),
 * which let the daemon commit many messages with one fsync group
 * (throughput "durable"; docs/architecture.md "The store").
 *
 * What must hold:
 * - inside a batch, each store_begin..store_commit is a savepoint: a
 *   message that fails (store_rollback) is undone alone, the others stay;
 * - nothing of a batch is visible to another connection, i.e. on disk,
 *   before store_batch_commit; after it, everything committed is;
 * - store_batch_rollback (or a process that dies) drops the whole batch;
 * - outside a batch the single-message transactions work as before.
 * A second connection (store_open_bare) plays the part of a power cut: it
 * sees only what a commit made durable.
 */
#include "store.h"
#include "store_int.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

/* What another process would read: messages recorded, by id. */
static int seen_elsewhere(const char *id)
{
  char err[256];
  struct store *other = NULL;
  bool found = false;

  ck_assert_int_eq(store_open_bare(&other, scratch_db, err, sizeof(err)), STORE_OK);
  ck_assert_int_eq(store_message_seen(other, id, &found), STORE_OK);
  store_close(other);
  return found;
}

/* One "message": store_begin, record, then commit or roll back. */
static void message(struct store *st, const char *id, int keep)
{
  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_message_record(st, id, "00", 1, "applied"), STORE_OK);
  if(keep)
    ck_assert_int_eq(store_commit(st), STORE_OK);
  else
    ck_assert_int_eq(store_rollback(st), STORE_OK);
}

START_TEST(test_batch_savepoint_per_message)
{
  struct store *st = scratch_open(scratch_db);
  bool seen;

  ck_assert_int_eq(store_batch_begin(st), STORE_OK);
  message(st, "<a@x>", 1);
  message(st, "<b@x>", 0); /* fails: undone alone */
  message(st, "<c@x>", 1);
  /* Inside the batch the store sees its own work... */
  ck_assert_int_eq(store_message_seen(st, "<a@x>", &seen), STORE_OK);
  ck_assert(seen);
  ck_assert_int_eq(store_message_seen(st, "<b@x>", &seen), STORE_OK);
  ck_assert(!seen);
  /* ...and nothing is durable before the batch commits. */
  ck_assert(!seen_elsewhere("<a@x>"));
  ck_assert_int_eq(store_batch_commit(st), STORE_OK);
  ck_assert(seen_elsewhere("<a@x>"));
  ck_assert(!seen_elsewhere("<b@x>"));
  ck_assert(seen_elsewhere("<c@x>"));
  store_close(st);
}
END_TEST

START_TEST(test_batch_rollback_drops_all)
{
  struct store *st = scratch_open(scratch_db);

  ck_assert_int_eq(store_batch_begin(st), STORE_OK);
  message(st, "<a@x>", 1);
  message(st, "<b@x>", 1);
  ck_assert_int_eq(store_batch_rollback(st), STORE_OK);
  ck_assert(!seen_elsewhere("<a@x>"));
  ck_assert(!seen_elsewhere("<b@x>"));
  /* Single-message transactions work again afterwards. */
  message(st, "<d@x>", 1);
  ck_assert(seen_elsewhere("<d@x>"));
  store_close(st);
}
END_TEST

START_TEST(test_batch_dies_before_commit)
{
  struct store *st = scratch_open(scratch_db);

  /* A process killed before store_batch_commit: closing without a commit
   * is what SQLite sees then. */
  ck_assert_int_eq(store_batch_begin(st), STORE_OK);
  message(st, "<a@x>", 1);
  store_close(st);
  ck_assert(!seen_elsewhere("<a@x>"));
}
END_TEST

START_TEST(test_batch_misuse_refused)
{
  struct store *st = scratch_open(scratch_db);

  ck_assert_int_eq(store_batch_commit(st), STORE_EIO); /* none open */
  ck_assert_int_eq(store_batch_begin(st), STORE_OK);
  ck_assert_int_eq(store_batch_begin(st), STORE_EIO); /* no nesting */
  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_begin(st), STORE_EIO); /* one message at a time */
  ck_assert_int_eq(store_commit(st), STORE_OK);
  ck_assert_int_eq(store_commit(st), STORE_EIO);
  /* A message left open when the batch commits is not kept. */
  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_message_record(st, "<open@x>", "00", 1, "applied"), STORE_OK);
  ck_assert_int_eq(store_batch_commit(st), STORE_OK);
  ck_assert(!seen_elsewhere("<open@x>"));
  store_close(st);
}
END_TEST

START_TEST(test_batch_kv_with_messages)
{
  struct store *st = scratch_open(scratch_db);
  char v[64];

  /* The IMAP "last UID" is written in the batch, beside its messages. */
  ck_assert_int_eq(store_batch_begin(st), STORE_OK);
  message(st, "<a@x>", 1);
  ck_assert_int_eq(store_kv_set(st, "imap u@h/INBOX", "7 42"), STORE_OK);
  ck_assert_int_eq(store_batch_rollback(st), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, v, sizeof(v), "imap u@h/INBOX"), STORE_ENOTFOUND);
  ck_assert_int_eq(store_batch_begin(st), STORE_OK);
  message(st, "<a@x>", 1);
  ck_assert_int_eq(store_kv_set(st, "imap u@h/INBOX", "7 42"), STORE_OK);
  ck_assert_int_eq(store_batch_commit(st), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, v, sizeof(v), "imap u@h/INBOX"), STORE_OK);
  ck_assert_str_eq(v, "7 42");
  ck_assert(seen_elsewhere("<a@x>"));
  store_close(st);
}
END_TEST

/* The size of a file of the test's folder, 0 when it is missing. */
static long file_size(const char *name)
{
  char path[400];
  FILE *f;
  long n = 0;
  snprintf(path, sizeof(path), "%s/%s", scratch_dir, name);
  if((f = fopen(path, "rb"))) {
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fclose(f);
  }
  return n;
}

/* The daemon's checkpoint waits for store_checkpoint_idle
 * (after the replies) instead of running inside the commit that grows the
 * WAL past 1,000 pages; what the commits hold is durable in the WAL all
 * the same (another connection reads it), and the idle checkpoint copies
 * it into the database file. Below 1,000 pages the idle call does nothing. */
START_TEST(test_checkpoint_later)
{
  struct store *st = scratch_open(scratch_db);
  char key[32], value[4001];
  long before;
  int i;

  store_checkpoint_later(st);
  ck_assert_int_eq(store_checkpoint_idle(st), STORE_OK); /* nothing to do */
  memset(value, 'v', sizeof(value) - 1);
  value[sizeof(value) - 1] = '\0';
  before = file_size("tabula.db");
  /* about 1,250 pages, in 25 commits */
  for(i = 0; i < 1250; i++) {
    if(i % 50 == 0)
      ck_assert_int_eq(store_batch_begin(st), STORE_OK);
    snprintf(key, sizeof(key), "big %d", i);
    ck_assert_int_eq(store_kv_set(st, key, value), STORE_OK);
    if(i % 50 == 49)
      ck_assert_int_eq(store_batch_commit(st), STORE_OK);
  }
  message(st, "<last@x>", 1);
  ck_assert(seen_elsewhere("<last@x>"));           /* committed: in the WAL */
  ck_assert_int_eq(file_size("tabula.db"), before); /* not checkpointed by a commit */
  ck_assert_int_gt(file_size("tabula.db-wal"), 1000L * 4096);
  ck_assert_int_eq(store_checkpoint_idle(st), STORE_OK);
  ck_assert_int_gt(file_size("tabula.db"), 1000L * 4096); /* now it is */
  ck_assert(seen_elsewhere("<last@x>"));
  store_close(st);
}
END_TEST

static Suite *batch_suite(void)
{
  Suite *s = suite_create("store batches");
  TCase *tc = tcase_create("batch");
  tcase_add_checked_fixture(tc, scratch_dir_setup, scratch_dir_teardown);
  tcase_add_test(tc, test_batch_savepoint_per_message);
  tcase_add_test(tc, test_batch_rollback_drops_all);
  tcase_add_test(tc, test_batch_dies_before_commit);
  tcase_add_test(tc, test_batch_misuse_refused);
  tcase_add_test(tc, test_batch_kv_with_messages);
  scratch_add_sqlite_test(tc, test_checkpoint_later);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(batch_suite());
}
