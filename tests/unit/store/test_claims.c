/*
 * test_claims.c: processes sharing one store ("every reply
 * exactly once"; store/lock.c, store/outbox.c).
 *
 * Two store handles on one file stand for two processes: lock.c's locks
 * belong to the open file, not the process, so two handles exclude each
 * other as two processes do, and closing a handle is what the kernel does
 * for a process killed with -9.
 *
 * What must hold:
 * - a reply is claimed by the process that queued it, and no other process
 *   gets it while that one lives;
 * - rows nobody holds are claimed by exactly one of two claimers, oldest
 *   first, at most max at a time;
 * - a claim ends with sent, retry (the row goes back to the queue) or
 *   release, and with its process: the rows of a process that died are
 *   taken over marked in_doubt, because it may have sent them;
 * - the rows a process queued come back from memory once committed, in
 *   order, never one a rollback undid;
 * - one daemon per store: the second lock is refused, naming the first's
 *   pid, and is granted once the first is gone;
 * - an old (v2) outbox's queued rows are claimable after the migration;
 * - a v8 store's queued and sent rows (texts in the row, before v9's
 *   outbox_message) keep their texts through the v9 migration, and each
 *   queued one is claimed and sent once, a sent one never again;
 * - SQLite's integrity check says "" for a sound file and names what is
 *   broken in a damaged one.
 */
#include "driver.h"
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void raw_exec(const char *sql)
{
  (void)scratch_raw_exec(scratch_db, sql);
}

static int64_t add(struct store *st, const char *to, int64_t now)
{
  int64_t id = 0;
  ck_assert_int_eq(store_outbox_add(st, &id, 0, to, "Subject: x\r\n\r\nbody\r\n", now), STORE_OK);
  return id;
}

/* Claims and returns how many rows came; ids[] gets them, in order. */
static size_t claim(struct store *st, int64_t now, size_t max, int64_t *ids, bool *doubt)
{
  struct store_outbox *rows = NULL;
  size_t n = 0, i;
  ck_assert_int_eq(store_outbox_claim(st, &rows, &n, now, max), STORE_OK);
  for(i = 0; i < n; i++) {
    if(ids)
      ids[i] = rows[i].id;
    if(doubt)
      doubt[i] = rows[i].in_doubt;
  }
  store_outbox_free(rows, n);
  return n;
}

START_TEST(test_claim_queued_by_its_process)
{
  struct store *a = scratch_open(scratch_db), *b = scratch_open(scratch_db);
  int64_t id[3], got[8];
  bool doubt[8];

  id[0] = add(a, "x@example.org", 100);
  id[1] = add(a, "y@example.org", 100);
  id[2] = add(a, "z@example.org", 100);
  /* b gets nothing while a lives; a gets its own, oldest first */
  ck_assert_uint_eq(claim(b, 1000, 8, NULL, NULL), 0);
  ck_assert_uint_eq(claim(a, 1000, 8, got, doubt), 3);
  ck_assert_int_eq(got[0], id[0]);
  ck_assert_int_eq(got[2], id[2]);
  ck_assert(!doubt[0] && !doubt[1] && !doubt[2]);
  /* max limits, keeping the oldest */
  ck_assert_uint_eq(claim(a, 1000, 2, got, NULL), 2);
  ck_assert_int_eq(got[1], id[1]);
  /* sent: gone from the queue */
  ck_assert_int_eq(store_outbox_sent(a, id[0], 101), STORE_OK);
  ck_assert_uint_eq(claim(a, 1000, 8, got, NULL), 2);
  ck_assert_int_eq(got[0], id[1]);
  ck_assert_uint_eq(claim(b, 1000, 8, NULL, NULL), 0);
  store_close(b);
  store_close(a);
}
END_TEST

/* a dies holding claims (kill -9 closes its files): b takes them over,
 * in_doubt, and the row a recorded as sent stays sent. */
START_TEST(test_claim_taken_over_from_the_dead)
{
  struct store *a = scratch_open(scratch_db), *b = scratch_open(scratch_db);
  int64_t id[3], got[8];
  bool doubt[8];

  id[0] = add(a, "x@example.org", 100);
  id[1] = add(a, "y@example.org", 100);
  id[2] = add(a, "z@example.org", 100);
  ck_assert_int_eq(store_outbox_sent(a, id[0], 101), STORE_OK);
  store_close(a);
  ck_assert_uint_eq(claim(b, 1000, 8, got, doubt), 2);
  ck_assert_int_eq(got[0], id[1]);
  ck_assert_int_eq(got[1], id[2]);
  ck_assert(doubt[0] && doubt[1]);
  /* now b's: a third process gets nothing while b lives */
  a = scratch_open(scratch_db);
  ck_assert_uint_eq(claim(a, 1000, 8, NULL, NULL), 0);
  /* a failed attempt gives the row back, still in doubt */
  ck_assert_int_eq(store_outbox_retry(b, id[1], 2000, "421 later", false), STORE_OK);
  ck_assert_uint_eq(claim(a, 1999, 8, NULL, NULL), 0);
  ck_assert_uint_eq(claim(a, 2000, 8, got, doubt), 1);
  ck_assert_int_eq(got[0], id[1]);
  ck_assert(doubt[0]);
  store_close(a);
  store_close(b);
}
END_TEST

/* Rows nobody holds (left by an older tabula, or given back): two
 * claimers split them, never share one. */
START_TEST(test_claim_unheld_rows_once)
{
  struct store *a = scratch_open(scratch_db), *b = scratch_open(scratch_db);
  int64_t ga[64], gb[64];
  size_t na, nb, i, j;
  char sql[256];

  for(i = 0; i < 40; i++) {
    snprintf(sql, sizeof(sql),
             "INSERT INTO outbox(recipient, state, next_try, created)"
             " VALUES('r%zu@example.org', 'queued', %zu, 1);"
             "INSERT INTO outbox_message(id, message) VALUES(last_insert_rowid(), 'm');",
             i, i < 30 ? (size_t)10 : (size_t)5000);
    raw_exec(sql);
  }
  na = claim(a, 100, 16, ga, NULL);
  nb = claim(b, 100, 64, gb, NULL);
  ck_assert_uint_eq(na, 16);
  ck_assert_uint_eq(nb, 14); /* 30 due, the other 10 not yet */
  for(i = 0; i < na; i++)
    for(j = 0; j < nb; j++)
      ck_assert_int_ne(ga[i], gb[j]);
  ck_assert_int_lt(ga[15], gb[0]); /* a came first and got the oldest */
  /* release: b's rows go to whoever claims next, not in doubt */
  ck_assert_int_eq(store_outbox_release(b), STORE_OK);
  ck_assert_uint_eq(claim(a, 100, 64, ga, NULL), 30);
  ck_assert_uint_eq(claim(b, 100, 64, NULL, NULL), 0);
  store_close(a);
  store_close(b);
}
END_TEST

/* The replies a process queued come back from memory, in order,
 * once committed; what a rollback undid never does, and while an older row
 * of the process still waits, none do (the table gives them all, in
 * order). */
static size_t fresh(struct store *st, int64_t *ids)
{
  struct store_outbox *rows = NULL;
  size_t n = 0, i;
  ck_assert_int_eq(store_outbox_fresh(st, &rows, &n), STORE_OK);
  for(i = 0; i < n; i++)
    ids[i] = rows[i].id;
  store_outbox_free(rows, n);
  return n;
}

START_TEST(test_claim_fresh_from_memory)
{
  struct store *a = scratch_open(scratch_db);
  int64_t id[4], got[8];
  size_t marked = 0;

  /* committed by themselves: both, in order, then nothing more */
  id[0] = add(a, "x@example.org", 100);
  id[1] = add(a, "y@example.org", 100);
  ck_assert_uint_eq(fresh(a, got), 2);
  ck_assert_int_eq(got[0], id[0]);
  ck_assert_int_eq(got[1], id[1]);
  ck_assert_uint_eq(fresh(a, got), 0);
  ck_assert_int_eq(store_outbox_sent_range(a, id[0], id[1], 101, &marked), STORE_OK);
  ck_assert_uint_eq(marked, 2);
  /* rolled back: not handed out, and not in the table either */
  ck_assert_int_eq(store_begin(a), STORE_OK);
  add(a, "z@example.org", 100);
  ck_assert_uint_eq(fresh(a, got), 0); /* open transaction: nothing yet */
  ck_assert_int_eq(store_rollback(a), STORE_OK);
  ck_assert_uint_eq(fresh(a, got), 0);
  ck_assert_uint_eq(claim(a, 1000, 8, NULL, NULL), 0);
  /* a batch: one unit undone, one kept */
  ck_assert_int_eq(store_batch_begin(a), STORE_OK);
  ck_assert_int_eq(store_begin(a), STORE_OK);
  add(a, "u@example.org", 100);
  ck_assert_int_eq(store_rollback(a), STORE_OK);
  ck_assert_int_eq(store_begin(a), STORE_OK);
  id[2] = add(a, "v@example.org", 100);
  ck_assert_int_eq(store_commit(a), STORE_OK);
  ck_assert_uint_eq(fresh(a, got), 0);
  ck_assert_int_eq(store_batch_commit(a), STORE_OK);
  ck_assert_uint_eq(fresh(a, got), 1);
  ck_assert_int_eq(got[0], id[2]);
  /* id[2] not sent: it waits, so the next one is not handed out before it */
  id[3] = add(a, "w@example.org", 100);
  ck_assert_uint_eq(fresh(a, got), 0);
  ck_assert_uint_eq(claim(a, 1000, 8, got, NULL), 2);
  ck_assert_int_eq(got[0], id[2]);
  ck_assert_int_eq(got[1], id[3]);
  store_close(a);
}
END_TEST

START_TEST(test_daemon_lock)
{
  struct store *a = scratch_open(scratch_db), *b = scratch_open(scratch_db);
  char pid[32];

  ck_assert_int_eq(store_lock_daemon(a), STORE_OK);
  ck_assert_int_eq(store_lock_daemon(b), STORE_EBUSY);
  snprintf(pid, sizeof(pid), "(pid %ld)", (long)getpid());
  ck_assert_msg(strstr(store_errmsg(b), pid) && strstr(store_errmsg(b), "serve"), "%s",
                store_errmsg(b));
  /* the daemon's lock does not stand in the way of claims */
  add(b, "x@example.org", 1);
  ck_assert_uint_eq(claim(b, 10, 8, NULL, NULL), 1);
  store_close(a);
  ck_assert_int_eq(store_lock_daemon(b), STORE_OK);
  store_close(b);
}
END_TEST

/* The daemon's lock follows the real file: a second serve that names the
 * same store through a symlink (to the file or to its directory), through
 * a `..` path, or through a symlink whose target does not exist yet, is
 * turned away naming the first's pid. SQLite resolves the same names to
 * one file and puts its -wal and -shm beside it; two lock files there
 * would let two daemons run on one database. */
START_TEST(test_daemon_lock_real_file)
{
  char pid[32], alias[400], dirlink[400], viadir[420], dotdot[420], sub[400], later[400],
    later_real[400];
  const char *names[3];
  struct store *a, *b;
  size_t i;

  snprintf(pid, sizeof(pid), "(pid %ld)", (long)getpid());
  snprintf(alias, sizeof(alias), "%s/alias.db", scratch_dir);
  snprintf(dirlink, sizeof(dirlink), "%s/dirlink", scratch_dir);
  snprintf(viadir, sizeof(viadir), "%s/tabula.db", dirlink);
  snprintf(sub, sizeof(sub), "%s/sub", scratch_dir);
  snprintf(dotdot, sizeof(dotdot), "%s/../tabula.db", sub);
  ck_assert_int_eq(symlink("tabula.db", alias), 0);
  ck_assert_int_eq(symlink(scratch_dir, dirlink), 0);
  ck_assert_int_eq(mkdir(sub, 0700), 0);
  names[0] = alias;
  names[1] = viadir;
  names[2] = dotdot;

  a = scratch_open(scratch_db);
  ck_assert_int_eq(store_lock_daemon(a), STORE_OK);
  for(i = 0; i < 3; i++) {
    /* tabula-deliver's probe sees the daemon by every name too */
    ck_assert_msg(store_daemon_running(names[i]), "%s: probe", names[i]);
    b = scratch_open(names[i]);
    ck_assert_msg(store_lock_daemon(b) == STORE_EBUSY, "%s: a second daemon", names[i]);
    ck_assert_msg(strstr(store_errmsg(b), pid), "%s: %s", names[i], store_errmsg(b));
    store_close(b);
  }
  store_close(a);
  /* and the other way round: the first daemon came through a name */
  a = scratch_open(dotdot);
  ck_assert_int_eq(store_lock_daemon(a), STORE_OK);
  b = scratch_open(scratch_db);
  ck_assert_int_eq(store_lock_daemon(b), STORE_EBUSY);
  store_close(b);
  store_close(a);

  /* a store that does not exist yet, named through a dangling symlink */
  snprintf(later, sizeof(later), "%s/later.db", scratch_dir);
  snprintf(later_real, sizeof(later_real), "%s/later-real.db", scratch_dir);
  ck_assert_int_eq(symlink("later-real.db", later), 0);
  a = scratch_open(later);
  ck_assert_int_eq(store_lock_daemon(a), STORE_OK);
  ck_assert_int_eq(access(later_real, F_OK), 0); /* SQLite made the real file */
  b = scratch_open(later_real);
  ck_assert_int_eq(store_lock_daemon(b), STORE_EBUSY);
  ck_assert_msg(strstr(store_errmsg(b), pid), "%s", store_errmsg(b));
  store_close(b);
  store_close(a);
  ck_assert_int_eq(rmdir(sub), 0);
}
END_TEST

START_TEST(test_claim_in_memory)
{
  struct store *st = NULL;
  char err[256];
  int64_t got[4];

  ck_assert_int_eq(store_open(&st, ":memory:", err, sizeof(err)), STORE_OK);
  add(st, "x@example.org", 1);
  ck_assert_uint_eq(claim(st, 10, 4, got, NULL), 1);
  ck_assert_int_eq(store_outbox_sent(st, got[0], 11), STORE_OK);
  ck_assert_uint_eq(claim(st, 10, 4, NULL, NULL), 0);
  ck_assert_int_eq(store_lock_daemon(st), STORE_EIO); /* nothing to lock */
  ck_assert_int_eq(strlen(store_id(st)), 16);
  store_close(st);
}
END_TEST

/* A v2 file with queued replies (before claims existed, before the
 * confirmations of v4, the outbox of v5 and the competition tables of v6):
 * brought forward to the latest version, its rows are
 * claimable, and it got its own random id. */
START_TEST(test_claim_after_migration)
{
  struct store *st = scratch_open(scratch_db), *other;
  char id1[24];
  int64_t got[4];

  store_close(st);
  /* back to v2: v6's competition tables (below), v5's additions (issue
   * 15), v4's confirmations and v3's claims dropped */
  raw_exec(SCRATCH_UNDO_V9 "DROP INDEX outbox_claimed; DROP INDEX games_invited; DROP INDEX clocks_due;"
           "ALTER TABLE games DROP COLUMN snapshot; ALTER TABLE clocks DROP COLUMN next_event;"
           "ALTER TABLE dice DROP COLUMN checkpoints;"
           "ALTER TABLE outbox DROP COLUMN claim; ALTER TABLE outbox DROP COLUMN in_doubt;"
           "DROP TABLE confirmations; DROP TABLE confirmed;"
           "DROP TABLE tournament_games; DROP TABLE tournament_players; DROP TABLE tournaments;"
           "DROP TABLE match_games; DROP TABLE matches; DROP TABLE ratings;"
           "DROP TABLE conditionals; DROP TABLE seeks;"
           "DELETE FROM kv; PRAGMA user_version = 2;"
           "INSERT INTO outbox(recipient, message, state, next_try, created)"
           " VALUES('old@example.org', 'm', 'queued', 1, 1);");
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(st), STORE_SCHEMA_LATEST);
  ck_assert_uint_eq(claim(st, 10, 4, got, NULL), 1);
  snprintf(id1, sizeof(id1), "%s", store_id(st));
  ck_assert_int_eq(strlen(id1), 16);
  store_close(st);
  /* another file, another id */
  snprintf(scratch_db + strlen(scratch_db) - 3, 8, "2.db");
  other = scratch_open(scratch_db);
  ck_assert_str_ne(store_id(other), id1);
  store_close(other);
}
END_TEST

/* A v8 store (each text in its outbox row) with a sent reply and two
 * queued ones nobody holds: opened, it is v9, each text beside its row
 * (outbox_message); the queued rows come back with their own texts, to one
 * process only, in order, not in doubt; once sent nobody gets them again,
 * and the sent one is never offered. A new reply after them takes the next
 * id. */
static int64_t add_text(struct store *st, const char *to, const char *text, int64_t now)
{
  int64_t id = 0;
  ck_assert_int_eq(store_outbox_add(st, &id, 0, to, text, now), STORE_OK);
  return id;
}

START_TEST(test_claim_after_migration_v9)
{
  static const char *const text[3] = {"Subject: one\r\n\r\nfirst\r\n",
                                      "Subject: two\r\n\r\nsecond\r\n",
                                      "Subject: three\r\n\r\nthird \xc3\xa9\r\n"};
  struct store *a = scratch_open(scratch_db), *b;
  struct store_outbox *rows = NULL;
  int64_t id[4], got[4];
  size_t n = 0, i;

  for(i = 0; i < 3; i++)
    id[i] = add_text(a, "x@example.org", text[i], 100);
  ck_assert_int_eq(store_outbox_sent(a, id[0], 101), STORE_OK);
  ck_assert_int_eq(store_outbox_release(a), STORE_OK);
  store_close(a);
  raw_exec(SCRATCH_UNDO_V9 "PRAGMA user_version = 8;");

  a = scratch_open(scratch_db);
  b = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(a), STORE_SCHEMA_LATEST);
  ck_assert_int_eq(store_outbox_claim(a, &rows, &n, 1000, 8), STORE_OK);
  ck_assert_uint_eq(n, 2);
  for(i = 0; i < n; i++) {
    ck_assert_int_eq(rows[i].id, id[i + 1]);
    ck_assert_str_eq(rows[i].message, text[i + 1]);
    ck_assert(!rows[i].in_doubt);
  }
  store_outbox_free(rows, n);
  ck_assert_uint_eq(claim(b, 1000, 8, NULL, NULL), 0);
  ck_assert_int_eq(store_outbox_sent_range(a, id[1], id[2], 102, &n), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_uint_eq(claim(a, 1000, 8, NULL, NULL), 0);
  ck_assert_uint_eq(claim(b, 1000, 8, NULL, NULL), 0);
  ck_assert_int_eq(store_outbox_count(a, &n, STORE_OUTBOX_SENT), STORE_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(store_outbox_count(a, &n, STORE_OUTBOX_QUEUED), STORE_OK);
  ck_assert_uint_eq(n, 0);
  /* the next reply: the next id, its own text, sent by its process */
  id[3] = add_text(a, "y@example.org", "Subject: four\r\n\r\nfourth\r\n", 200);
  ck_assert_int_eq(id[3], id[2] + 1);
  ck_assert_uint_eq(claim(b, 1000, 8, NULL, NULL), 0);
  ck_assert_int_eq(store_outbox_claim(a, &rows, &n, 1000, 8), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(rows[0].id, id[3]);
  ck_assert_str_eq(rows[0].message, "Subject: four\r\n\r\nfourth\r\n");
  store_outbox_free(rows, n);
  ck_assert_uint_eq(claim(a, 1000, 8, got, NULL), 1);
  ck_assert_int_eq(got[0], id[3]);
  store_close(b);
  store_close(a);
}
END_TEST

START_TEST(test_integrity_check)
{
  struct store *st = scratch_open(scratch_db);
  char *problems = NULL;
  int i;

  for(i = 0; i < 300; i++)
    add(st, "x@example.org", i);
  ck_assert_int_eq(store_integrity_check(st, &problems), STORE_OK);
  ck_assert_str_eq(problems, "");
  free(problems);
  store_close(st);

  /* An index that no longer matches its table, as a flipped byte in its
   * page would leave it: SQLite's check names the index. */
  raw_exec("PRAGMA writable_schema = ON;"
           "UPDATE sqlite_schema SET sql = 'CREATE INDEX outbox_due ON outbox(next_try, state)'"
           " WHERE name = 'outbox_due';");
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_integrity_check(st, &problems), STORE_OK);
  ck_assert_msg(strstr(problems, "outbox_due") != NULL, "%s", problems);
  free(problems);
  store_close(st);
}
END_TEST

static Suite *claims_suite(void)
{
  Suite *s = suite_create("claims");
  TCase *tc = tcase_create("claims");

  tcase_add_checked_fixture(tc, scratch_dir_setup, scratch_dir_teardown);
  tcase_add_test(tc, test_claim_queued_by_its_process);
  tcase_add_test(tc, test_claim_taken_over_from_the_dead);
  scratch_add_sqlite_test(tc, test_claim_unheld_rows_once);
  tcase_add_test(tc, test_claim_fresh_from_memory);
  tcase_add_test(tc, test_daemon_lock);
  scratch_add_sqlite_test(tc, test_daemon_lock_real_file);
  scratch_add_sqlite_test(tc, test_claim_in_memory);
  scratch_add_sqlite_test(tc, test_claim_after_migration);
  scratch_add_sqlite_test(tc, test_claim_after_migration_v9);
  scratch_add_sqlite_test(tc, test_integrity_check);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(claims_suite());
}
