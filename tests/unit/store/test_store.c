/*
 * test_store.c: unit tests of tabula_store (the files in store/) against store.h.
 *
 * Every test gets a fresh directory from mkdtemp and a database file in it;
 * where a test must see or damage the file behind the store's back it opens
 * the same file with a connection of its own (scratch_raw_exec). Journal hashes are checked against
 * tests/data/store/journal_vectors.tsv, produced with coreutils sha256sum by
 * tests/oracles/store_journal_vectors.sh, not by the code under test.
 */
#define _GNU_SOURCE /* strcasestr */
#include "driver.h"
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The newest schema version: the last step of the drivers' migrations
 * (never a number here: several branches add steps). */
#define SCHEMA_LATEST STORE_SCHEMA_LATEST

/* ---- helpers ---- */

/* Behind the store's back, through a connection of its own
 * (store_fixture.h). */
#define raw_exec scratch_raw_exec
#define raw_int scratch_raw_int
#define raw_text scratch_raw_text

static void fill_game(struct store_game *g, const char *kind, int64_t created)
{
  memset(g, 0, sizeof(*g));
  snprintf(g->kind, sizeof(g->kind), "%s", kind);
  g->rules_version = 1;
  snprintf(g->options, sizeof(g->options), "clock=3d;variant=standard");
  g->phase = STORE_GAME_INVITED;
  snprintf(g->state, sizeof(g->state), "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  g->turn = 0;
  g->created = created;
  g->updated = created;
  g->deadline = 0;
  g->draw_offer_seat = -1;
}

static int64_t create_game(struct store *st, const char *kind, int64_t created)
{
  struct store_game g;
  int64_t id = -1;

  fill_game(&g, kind, created);
  ck_assert_int_eq(store_game_create(st, &id, &g), STORE_OK);
  ck_assert_int_gt(id, 0);
  return id;
}

static void assert_game_eq(const struct store_game *a, const struct store_game *b)
{
  ck_assert_int_eq(a->id, b->id);
  ck_assert_str_eq(a->kind, b->kind);
  ck_assert_int_eq(a->rules_version, b->rules_version);
  ck_assert_str_eq(a->options, b->options);
  ck_assert_int_eq(a->phase, b->phase);
  ck_assert_str_eq(a->state, b->state);
  ck_assert_int_eq(a->turn, b->turn);
  ck_assert_str_eq(a->result, b->result);
  ck_assert_int_eq(a->created, b->created);
  ck_assert_int_eq(a->updated, b->updated);
  ck_assert_int_eq(a->deadline, b->deadline);
  ck_assert_int_eq(a->draw_offer_seat, b->draw_offer_seat);
}

static void fill_seat(struct store_seat *s, int64_t game, int seat, const char *address,
                      const char *token)
{
  memset(s, 0, sizeof(*s));
  s->game = game;
  s->seat = seat;
  snprintf(s->address, sizeof(s->address), "%s", address);
  snprintf(s->token, sizeof(s->token), "%s", token);
}

static void fill_entry(struct store_entry *e, int64_t game, int64_t time, int seat,
                       const char *kind, const char *text, const char *dice)
{
  memset(e, 0, sizeof(*e));
  e->game = game;
  e->time = time;
  e->seat = seat;
  snprintf(e->kind, sizeof(e->kind), "%s", kind);
  snprintf(e->text, sizeof(e->text), "%s", text);
  snprintf(e->dice, sizeof(e->dice), "%s", dice);
}

/* ---- journal vectors (tests/data/store/journal_vectors.tsv) ---- */

#define VEC_MAX 64
struct vector {
  struct store_entry e; /* with the expected seq, prev_hash and hash */
};
static struct vector vectors[VEC_MAX];
static size_t nvectors;

/* Splits line at tabs into at most max fields, keeping empty ones. */
static size_t split_tabs(char *line, char **fields, size_t max)
{
  size_t n = 0;
  char *p = line;

  while(n < max) {
    fields[n++] = p;
    p = strchr(p, '\t');
    if(!p)
      break;
    *p++ = '\0';
  }
  return n;
}

static void load_vectors(void)
{
  char *line = NULL, *fields[9];
  size_t cap = 0;
  ssize_t len;
  FILE *f = fopen(TABULA_TEST_DATA "/store/journal_vectors.tsv", "r");

  ck_assert_msg(f != NULL, "cannot open journal_vectors.tsv");
  nvectors = 0;
  for(len = getline(&line, &cap, f); len >= 0; len = getline(&line, &cap, f)) {
    struct store_entry *e;

    if(len > 0 && line[len - 1] == '\n')
      line[--len] = '\0';
    if(line[0] == '#' || line[0] == '\0')
      continue;
    ck_assert_int_eq(split_tabs(line, fields, 9), 9);
    ck_assert_uint_lt(nvectors, VEC_MAX);
    e = &vectors[nvectors++].e;
    memset(e, 0, sizeof(*e));
    e->game = strtoll(fields[0], NULL, 10);
    e->seq = strtoll(fields[1], NULL, 10);
    e->time = strtoll(fields[2], NULL, 10);
    e->seat = (int)strtol(fields[3], NULL, 10);
    ck_assert_uint_lt(strlen(fields[4]), sizeof(e->kind));
    ck_assert_uint_lt(strlen(fields[5]), sizeof(e->text));
    ck_assert_uint_lt(strlen(fields[6]), sizeof(e->dice));
    ck_assert_uint_eq(strlen(fields[7]), 64);
    ck_assert_uint_eq(strlen(fields[8]), 64);
    snprintf(e->kind, sizeof(e->kind), "%s", fields[4]);
    snprintf(e->text, sizeof(e->text), "%s", fields[5]);
    snprintf(e->dice, sizeof(e->dice), "%s", fields[6]);
    snprintf(e->prev_hash, sizeof(e->prev_hash), "%s", fields[7]);
    snprintf(e->hash, sizeof(e->hash), "%s", fields[8]);
  }
  free(line);
  fclose(f);
  ck_assert_uint_ge(nvectors, 8);
}

/* Creates games 1 and 2 and appends every vector, checking seq and hash as
 * it goes. */
static void build_vector_journal(struct store *st)
{
  struct store_entry e;
  size_t i;

  load_vectors();
  ck_assert_int_eq(create_game(st, "chess", 1700000000), 1);
  ck_assert_int_eq(create_game(st, "backgammon", 1700000400), 2);
  for(i = 0; i < nvectors; i++) {
    const struct store_entry *v = &vectors[i].e;
    int64_t seq = -1;

    e = *v;
    /* Inputs the store must ignore. */
    e.seq = 999;
    snprintf(e.prev_hash, sizeof(e.prev_hash), "junk");
    snprintf(e.hash, sizeof(e.hash), "junk");
    ck_assert_int_eq(store_journal_append(st, &seq, &e), STORE_OK);
    ck_assert_int_eq(seq, v->seq);
  }
}

/* ======================= open / migrate ======================= */

START_TEST(test_store_open_creates_schema)
{
  static const char *const tables[] = {"players", "games", "seats",          "journal",
                                       "messages", "outbox", "outbox_message", "dice",
                                       "kv"};
  char sql[200], mode[32];
  struct store *st = scratch_open(scratch_db);
  size_t i;

  ck_assert_int_eq(store_schema_version(st), SCHEMA_LATEST);
  ck_assert_str_eq(store_errmsg(st), "");
  for(i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
    snprintf(sql, sizeof(sql),
             "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = '%s'",
             tables[i]);
    ck_assert_msg(raw_int(scratch_db, sql) == 1, "table %s missing", tables[i]);
  }
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index'"
                                       " AND name IN ('outbox_due', 'seats_by_address')"),
                   2);
  /* WAL is recorded in the file itself, so another connection sees it. */
  raw_text(mode, sizeof(mode), scratch_db, "PRAGMA journal_mode");
  ck_assert_str_eq(mode, "wal");
  ck_assert_int_eq(raw_int(scratch_db, "PRAGMA user_version"), SCHEMA_LATEST);
  store_close(st);
}
END_TEST

START_TEST(test_store_open_memory)
{
  struct store *st = scratch_open(":memory:");
  int64_t id = create_game(st, "chess", 10);
  struct store_game g;

  ck_assert_int_eq(store_schema_version(st), SCHEMA_LATEST);
  ck_assert_int_eq(store_game_load(st, &g, id), STORE_OK);
  store_close(st);
}
END_TEST

START_TEST(test_store_open_reopen_keeps_data)
{
  struct store *st = scratch_open(scratch_db);
  struct store_game g;
  char buf[64];
  int64_t id = create_game(st, "checkers", 500);

  ck_assert_int_eq(store_kv_set(st, "imap.uidnext", "4711"), STORE_OK);
  store_close(st);

  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(st), SCHEMA_LATEST);
  ck_assert_int_eq(store_game_load(st, &g, id), STORE_OK);
  ck_assert_str_eq(g.kind, "checkers");
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "imap.uidnext"), STORE_OK);
  ck_assert_str_eq(buf, "4711");
  store_close(st);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM games"), 1);
}
END_TEST

/* A v0 file (as left by an older tabula or made empty by hand) is brought
 * forward and keeps what it had. */
START_TEST(test_store_open_migrates_old)
{
  struct store *st;

  raw_exec(scratch_db, "CREATE TABLE notes(x TEXT); INSERT INTO notes VALUES('kept');"
                       " PRAGMA user_version = 0;");
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_schema_version(st), SCHEMA_LATEST);
  store_close(st);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM notes WHERE x = 'kept'"), 1);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM sqlite_schema WHERE name = 'outbox'"),
                   1);
}
END_TEST

START_TEST(test_store_open_refuses_newer)
{
  struct store *st = (struct store *)&st; /* must come back NULL */
  char err[256], mode[32];
  int rc;

  raw_exec(scratch_db, "CREATE TABLE future(x); PRAGMA user_version = 1000;");
  rc = store_open(&st, scratch_db, err, sizeof(err));
  ck_assert_int_eq(rc, STORE_ECORRUPT);
  ck_assert_ptr_null(st);
  ck_assert_msg(strstr(err, "newer") && strstr(err, "1000"), "message: %s", err);
  /* Refused untouched: version, tables and journal mode as they were. */
  ck_assert_int_eq(raw_int(scratch_db, "PRAGMA user_version"), 1000);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM sqlite_schema WHERE name = 'games'"),
                   0);
  raw_text(mode, sizeof(mode), scratch_db, "PRAGMA journal_mode");
  ck_assert_str_eq(mode, "delete");
}
END_TEST

/* A migration that fails half-way leaves the file at its old version with
 * none of the new tables: the steps run in one transaction. */
START_TEST(test_store_open_migration_atomic)
{
  struct store *st = NULL;
  char err[256];
  int rc;

  /* "kv" already exists, so the v1 step fails at its last CREATE TABLE. */
  raw_exec(scratch_db, "CREATE TABLE kv(a, b);");
  rc = store_open(&st, scratch_db, err, sizeof(err));
  ck_assert_int_eq(rc, STORE_EIO);
  ck_assert_ptr_null(st);
  ck_assert_msg(strstr(err, "migrat") != NULL, "message: %s", err);
  ck_assert_int_eq(raw_int(scratch_db, "PRAGMA user_version"), 0);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM sqlite_schema"
                                       " WHERE name IN ('players', 'games', 'journal')"),
                   0);
}
END_TEST

START_TEST(test_store_open_not_a_database)
{
  struct store *st = NULL;
  char err[256];
  FILE *f = fopen(scratch_db, "w");
  int i;

  ck_assert_ptr_nonnull(f);
  for(i = 0; i < 200; i++)
    fputs("this is not an SQLite database\n", f);
  fclose(f);
  ck_assert_int_eq(store_open(&st, scratch_db, err, sizeof(err)), STORE_ECORRUPT);
  ck_assert_ptr_null(st);
  ck_assert_str_ne(err, "");
}
END_TEST

START_TEST(test_store_open_bad_path)
{
  struct store *st = NULL;
  char path[400], err[256];

  snprintf(path, sizeof(path), "%s/no/such/dir/tabula.db", scratch_dir);
  ck_assert_int_eq(store_open(&st, path, err, sizeof(err)), STORE_EIO);
  ck_assert_ptr_null(st);
  ck_assert_msg(strstr(err, "opening") != NULL, "message: %s", err);
  /* NULL errbuf is allowed. */
  ck_assert_int_eq(store_open(&st, path, NULL, 0), STORE_EIO);
  ck_assert_ptr_null(st);
}
END_TEST

START_TEST(test_store_close_null)
{
  store_close(NULL);
  ck_assert_str_eq(store_errmsg(NULL), "no store");
}
END_TEST

/* A PostgreSQL store's name that carries a password is refused before
 * anything connects (it would show in `ps` and in tabula.ini): the message
 * says where the password goes and never repeats it. A name of libpq's
 * that is no connection (an unknown service) says libpq's why. No server
 * is needed for either; neither becomes an SQLite file. */
START_TEST(test_store_open_pg_password_refused)
{
  static const char *const names[] = {
      "postgresql://club:s3cret@localhost/club",
      "postgres://club:s3cret@localhost/club",
      "host=/nonexistent dbname=club password=s3cret",
  };
  struct store *st = (struct store *)&st;
  char err[256];
  size_t i;

  for(i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    st = (struct store *)&st;
    ck_assert_int_eq(store_open(&st, names[i], err, sizeof(err)), STORE_EIO);
    ck_assert_ptr_null(st);
    ck_assert_msg(strstr(err, "password") && strstr(err, ".pgpass"), "%s: %s", names[i], err);
    ck_assert_msg(!strstr(err, "s3cret"), "%s: %s", names[i], err);
  }
  ck_assert_int_eq(store_open(&st, "service=tabula_no_such_service", err, sizeof(err)), STORE_EIO);
  ck_assert_ptr_null(st);
  ck_assert_msg(strstr(err, "tabula_no_such_service"), "%s", err);
  ck_assert_int_eq(access("service=tabula_no_such_service", F_OK), -1);
}
END_TEST

/* ======================= transactions ======================= */

START_TEST(test_store_tx_commit)
{
  struct store *st = scratch_open(scratch_db);
  bool seen = false;

  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_message_record(st, "<a@x>", "00", 1, "applied"), STORE_OK);
  /* Not yet visible to another connection... */
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM messages"), 0);
  ck_assert_int_eq(store_commit(st), STORE_OK);
  /* ...and visible after commit. */
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM messages"), 1);
  ck_assert_int_eq(store_message_seen(st, "<a@x>", &seen), STORE_OK);
  ck_assert(seen);
  store_close(st);
}
END_TEST

START_TEST(test_store_tx_rollback_leaves_nothing)
{
  struct store *st = scratch_open(scratch_db);
  struct store_entry e;
  struct store_entry *entries = NULL;
  struct store_seat seat;
  struct store_dice d;
  int64_t *ids = NULL;
  int64_t game = create_game(st, "chess", 100);
  int64_t id = 0;
  bool seen = true;
  size_t n = 99;
  char buf[16];

  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_message_record(st, "<m1@x>", "ab", 200, "applied"), STORE_OK);
  fill_entry(&e, game, 200, 0, "move", "e2e4", "");
  ck_assert_int_eq(store_journal_append(st, NULL, &e), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &id, game, "b@example.org", "Subject: x\r\n\r\nhi", 200),
                   STORE_OK);
  ck_assert_int_eq(create_game(st, "backgammon", 200), game + 1);
  fill_seat(&seat, game, 0, "a@example.org", "tok-a");
  ck_assert_int_eq(store_seat_put(st, &seat), STORE_OK);
  memset(&d, 0, sizeof(d));
  d.game = game;
  d.chain = 1;
  ck_assert_int_eq(store_dice_put(st, &d), STORE_OK);
  ck_assert_int_eq(store_kv_set(st, "k", "v"), STORE_OK);
  ck_assert_int_eq(store_rollback(st), STORE_OK);

  ck_assert_int_eq(store_message_seen(st, "<m1@x>", &seen), STORE_OK);
  ck_assert(!seen);
  ck_assert_int_eq(store_journal_load(st, &entries, &n, game), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(entries);
  ck_assert_int_eq(store_outbox_count(st, &n, STORE_OUTBOX_QUEUED), STORE_OK);
  ck_assert_uint_eq(n, 0);
  ck_assert_int_eq(store_game_list(st, &ids, &n), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(ids[0], game);
  free(ids);
  ck_assert_int_eq(store_games_of(st, &ids, &n, "a@example.org"), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(ids);
  ck_assert_int_eq(store_dice_load(st, &d, game), STORE_ENOTFOUND);
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "k"), STORE_ENOTFOUND);
  store_close(st);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM players"), 0);
}
END_TEST

START_TEST(test_store_tx_misuse)
{
  struct store *st = scratch_open(scratch_db);
  bool seen = false;

  /* Rollback and commit with nothing open. */
  ck_assert_int_eq(store_rollback(st), STORE_OK);
  ck_assert_int_eq(store_commit(st), STORE_EIO);
  ck_assert_msg(strstr(store_errmsg(st), "no transaction") != NULL, "%s", store_errmsg(st));

  /* Nested begin is refused and the outer transaction carries on. */
  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_message_record(st, "<n@x>", "cd", 1, "applied"), STORE_OK);
  ck_assert_int_eq(store_begin(st), STORE_EIO);
  ck_assert_msg(strstr(store_errmsg(st), "already open") != NULL, "%s", store_errmsg(st));
  ck_assert_int_eq(store_commit(st), STORE_OK);
  ck_assert_int_eq(store_message_seen(st, "<n@x>", &seen), STORE_OK);
  ck_assert(seen);
  ck_assert_int_eq(store_rollback(st), STORE_OK);
  store_close(st);
}
END_TEST

/* Inside the caller's transaction a multi-statement call that fails undoes
 * only itself (savepoint); one that succeeds commits with the rest. */
START_TEST(test_store_tx_group_savepoint)
{
  struct store *st = scratch_open(scratch_db);
  struct store_entry e, *entries = NULL;
  struct store_seat s;
  int64_t game = create_game(st, "chess", 1);
  int64_t seq = 0, bad = -1;
  size_t n = 0;
  char buf[16];

  fill_seat(&s, game, 0, "a@example.org", "taken");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);

  ck_assert_int_eq(store_begin(st), STORE_OK);
  ck_assert_int_eq(store_kv_set(st, "before", "1"), STORE_OK);
  fill_entry(&e, game, 10, 0, "move", "e2e4", "");
  ck_assert_int_eq(store_journal_append(st, &seq, &e), STORE_OK);
  ck_assert_int_eq(seq, 1);
  fill_entry(&e, game, 11, 1, "move", "e7e5", "");
  ck_assert_int_eq(store_journal_append(st, &seq, &e), STORE_OK);
  ck_assert_int_eq(seq, 2);
  /* Clashing token: the player row it would have added goes too. */
  fill_seat(&s, game, 1, "c@example.org", "taken");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_EIO);
  ck_assert_int_eq(store_kv_set(st, "after", "2"), STORE_OK);
  ck_assert_int_eq(store_commit(st), STORE_OK);

  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "before"), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "after"), STORE_OK);
  ck_assert_int_eq(store_journal_load(st, &entries, &n, game), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(entries[1].prev_hash, entries[0].hash);
  free(entries);
  ck_assert_int_eq(store_journal_verify(st, &bad, game), STORE_OK);
  store_close(st);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM players"), 1);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM seats"), 1);
}
END_TEST

/* A second process is kept out while the first holds a transaction and is
 * told STORE_EBUSY after the 5 s busy timeout. */
START_TEST(test_store_tx_busy)
{
  struct store *a = scratch_open(scratch_db);
  struct store *b = scratch_open(scratch_db);
  struct timespec t0, t1;
  double elapsed;

  ck_assert_int_eq(store_begin(a), STORE_OK);
  clock_gettime(CLOCK_MONOTONIC, &t0);
  ck_assert_int_eq(store_begin(b), STORE_EBUSY);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  ck_assert_msg(elapsed > 14.5 && elapsed < 45, "waited %.2f s", elapsed); /* 15 s */
  ck_assert_int_eq(store_rollback(b), STORE_OK);
  ck_assert_int_eq(store_commit(a), STORE_OK);
  ck_assert_int_eq(store_begin(b), STORE_OK);
  ck_assert_int_eq(store_commit(b), STORE_OK);
  store_close(a);
  store_close(b);
}
END_TEST

/* ======================= messages ======================= */

START_TEST(test_store_message_seen_record)
{
  struct store *st = scratch_open(scratch_db);
  char digest[65];
  bool seen = true;

  store_sha256_hex(digest, "raw message", 11);
  ck_assert_int_eq(store_message_seen(st, "<1@example.org>", &seen), STORE_OK);
  ck_assert(!seen);
  ck_assert_int_eq(store_message_record(st, "<1@example.org>", digest, 1700000000, "applied"),
                   STORE_OK);
  ck_assert_int_eq(store_message_seen(st, "<1@example.org>", &seen), STORE_OK);
  ck_assert(seen);
  /* Exact match only. */
  ck_assert_int_eq(store_message_seen(st, "<2@example.org>", &seen), STORE_OK);
  ck_assert(!seen);
  /* Recording twice is a caller bug, refused. */
  ck_assert_int_eq(store_message_record(st, "<1@example.org>", digest, 1700000001, "refused"),
                   STORE_EIO);
  ck_assert_str_ne(store_errmsg(st), "");
  store_close(st);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT received FROM messages"
                                       " WHERE message_id = '<1@example.org>'"
                                       " AND outcome = 'applied'"),
                   1700000000);
}
END_TEST

/* ======================= games ======================= */

START_TEST(test_store_game_create_load_update)
{
  struct store *st = scratch_open(scratch_db);
  struct store_game g, got;
  int64_t id1, id2;

  fill_game(&g, "chess", 1000);
  g.deadline = 1000 + 3 * 86400;
  ck_assert_int_eq(store_game_create(st, &id1, &g), STORE_OK);
  fill_game(&g, "backgammon", 2000);
  g.id = 12345; /* ignored */
  ck_assert_int_eq(store_game_create(st, &id2, &g), STORE_OK);
  ck_assert_int_gt(id2, id1);

  ck_assert_int_eq(store_game_load(st, &got, id2), STORE_OK);
  g.id = id2;
  assert_game_eq(&got, &g);

  g.phase = STORE_GAME_FINISHED;
  snprintf(g.state, sizeof(g.state), "bg-state-after");
  snprintf(g.result, sizeof(g.result), "1-0 resigned");
  snprintf(g.options, sizeof(g.options), "cube=1");
  g.kind[0] = 'B';
  g.rules_version = 3;
  g.turn = -1;
  g.updated = 2500;
  g.deadline = 9999;
  g.draw_offer_seat = 1;
  g.created = 7; /* created is not rewritten */
  ck_assert_int_eq(store_game_update(st, &g), STORE_OK);
  ck_assert_int_eq(store_game_load(st, &got, id2), STORE_OK);
  g.created = 2000;
  assert_game_eq(&got, &g);

  /* The other game is untouched. */
  ck_assert_int_eq(store_game_load(st, &got, id1), STORE_OK);
  ck_assert_str_eq(got.kind, "chess");
  ck_assert_int_eq(got.phase, STORE_GAME_INVITED);
  ck_assert_int_eq(got.deadline, 1000 + 3 * 86400);
  store_close(st);
}
END_TEST

START_TEST(test_store_game_phases_roundtrip)
{
  static const enum store_game_phase phases[] = {STORE_GAME_INVITED, STORE_GAME_ACTIVE,
                                                 STORE_GAME_FINISHED, STORE_GAME_CANCELLED};
  static const char *const words[] = {"invited", "active", "finished", "cancelled"};
  struct store *st = scratch_open(scratch_db);
  struct store_game g, got;
  char sql[100], word[32];
  int64_t id;
  size_t i;

  for(i = 0; i < 4; i++) {
    fill_game(&g, "chess", 1);
    g.phase = phases[i];
    ck_assert_int_eq(store_game_create(st, &id, &g), STORE_OK);
    ck_assert_int_eq(store_game_load(st, &got, id), STORE_OK);
    ck_assert_int_eq(got.phase, phases[i]);
    snprintf(sql, sizeof(sql), "SELECT phase FROM games WHERE id = %lld", (long long)id);
    raw_text(word, sizeof(word), scratch_db, sql);
    ck_assert_str_eq(word, words[i]);
  }
  store_close(st);
}
END_TEST

START_TEST(test_store_game_not_found)
{
  struct store *st = scratch_open(scratch_db);
  struct store_game g;

  ck_assert_int_eq(store_game_load(st, &g, 42), STORE_ENOTFOUND);
  fill_game(&g, "chess", 1);
  g.id = 42;
  ck_assert_int_eq(store_game_update(st, &g), STORE_ENOTFOUND);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM games"), 0);
  store_close(st);
}
END_TEST

START_TEST(test_store_game_list)
{
  struct store *st = scratch_open(scratch_db);
  int64_t *ids = (int64_t *)&ids;
  int64_t want[5];
  size_t n = 99, i;

  ck_assert_int_eq(store_game_list(st, &ids, &n), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(ids);
  for(i = 0; i < 5; i++)
    want[i] = create_game(st, "chess", (int64_t)i);
  /* 12 more so the array has to grow past its first allocation. */
  for(i = 0; i < 12; i++)
    create_game(st, "checkers", 100);
  ck_assert_int_eq(store_game_list(st, &ids, &n), STORE_OK);
  ck_assert_uint_eq(n, 17);
  for(i = 0; i < 5; i++)
    ck_assert_int_eq(ids[i], want[i]);
  for(i = 1; i < n; i++)
    ck_assert_int_lt(ids[i - 1], ids[i]);
  free(ids);
  store_close(st);
}
END_TEST

/* Values that do not fit are refused, not cut: on the way in (an
 * unterminated field) and on the way out (a row made too long behind the
 * store's back). */
START_TEST(test_store_game_field_limits)
{
  struct store *st = scratch_open(scratch_db);
  struct store_game g, got;
  int64_t id = 0;
  char sql[800];

  fill_game(&g, "chess", 1);
  memset(g.kind, 'x', sizeof(g.kind)); /* no NUL */
  ck_assert_int_eq(store_game_create(st, &id, &g), STORE_EIO);
  ck_assert_msg(strstr(store_errmsg(st), "games.kind") != NULL, "%s", store_errmsg(st));
  fill_game(&g, "chess", 1);
  g.phase = (enum store_game_phase)9;
  ck_assert_int_eq(store_game_create(st, &id, &g), STORE_EIO);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM games"), 0);

  /* A state of exactly 511 bytes fits; 512 does not. */
  id = create_game(st, "chess", 1);
  snprintf(sql, sizeof(sql), "UPDATE games SET state = printf('%%.511c', 'a') WHERE id = %lld",
           (long long)id);
  raw_exec(scratch_db, sql);
  ck_assert_int_eq(store_game_load(st, &got, id), STORE_OK);
  ck_assert_uint_eq(strlen(got.state), 511);
  snprintf(sql, sizeof(sql), "UPDATE games SET state = printf('%%.512c', 'a') WHERE id = %lld",
           (long long)id);
  raw_exec(scratch_db, sql);
  ck_assert_int_eq(store_game_load(st, &got, id), STORE_EIO);
  ck_assert_msg(strstr(store_errmsg(st), "games.state") != NULL, "%s", store_errmsg(st));
  store_close(st);
}
END_TEST

/* ======================= seats ======================= */

START_TEST(test_store_seat_put_list)
{
  struct store *st = scratch_open(scratch_db);
  struct store_seat s, *seats = NULL;
  int64_t g1 = create_game(st, "chess", 111);
  int64_t g2 = create_game(st, "chess", 222);
  size_t n = 0;

  /* Seat 1 first: the list must come back in seat order anyway. */
  fill_seat(&s, g1, 1, "b@example.org", "tok-g1-b");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  fill_seat(&s, g1, 0, "a@example.org", "tok-g1-a");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  fill_seat(&s, g2, 0, "b@example.org", "tok-g2-b");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);

  ck_assert_int_eq(store_seat_list(st, &seats, &n, g1), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(seats[0].game, g1);
  ck_assert_int_eq(seats[0].seat, 0);
  ck_assert_str_eq(seats[0].address, "a@example.org");
  ck_assert_str_eq(seats[0].token, "tok-g1-a");
  ck_assert(!seats[0].accepted);
  ck_assert_str_eq(seats[0].entropy, "");
  ck_assert_int_eq(seats[1].seat, 1);
  ck_assert_str_eq(seats[1].address, "b@example.org");
  free(seats);

  /* Put again = replace: acceptance recorded with its entropy. */
  fill_seat(&s, g1, 1, "b@example.org", "tok-g1-b");
  s.accepted = true;
  snprintf(s.entropy, sizeof(s.entropy), "<accept-1@example.org>");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  ck_assert_int_eq(store_seat_list(st, &seats, &n, g1), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert(seats[1].accepted);
  ck_assert_str_eq(seats[1].entropy, "<accept-1@example.org>");
  ck_assert(!seats[0].accepted);
  free(seats);

  /* No seats: empty list. */
  ck_assert_int_eq(store_seat_list(st, &seats, &n, 999), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(seats);
  store_close(st);

  /* Players were registered once each, created = first game's creation. */
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM players"), 2);
  ck_assert_int_eq(
      raw_int(scratch_db, "SELECT created FROM players WHERE address = 'b@example.org'"), 111);
}
END_TEST

START_TEST(test_store_seat_constraints)
{
  struct store *st = scratch_open(scratch_db);
  struct store_seat s, *seats = NULL;
  int64_t g1 = create_game(st, "chess", 1);
  int64_t g2 = create_game(st, "chess", 2);
  size_t n = 0;

  fill_seat(&s, g1, 0, "a@example.org", "same-token");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  /* A token is unique across games, and a clash must not evict the holder. */
  fill_seat(&s, g2, 0, "c@example.org", "same-token");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_EIO);
  ck_assert_int_eq(store_seat_list(st, &seats, &n, g1), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(seats[0].address, "a@example.org");
  free(seats);
  /* The failed put left no player behind either. */
  ck_assert_int_eq(
      raw_int(scratch_db, "SELECT count(*) FROM players WHERE address = 'c@example.org'"), 0);
  /* Foreign keys are on: no seat for a game that does not exist. */
  fill_seat(&s, 777, 0, "d@example.org", "tok-d");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_EIO);
  ck_assert_msg(strcasestr(store_errmsg(st), "foreign key") != NULL, "%s", store_errmsg(st));
  /* Unterminated field. */
  fill_seat(&s, g1, 1, "e@example.org", "tok-e");
  memset(s.token, 'x', sizeof(s.token));
  ck_assert_int_eq(store_seat_put(st, &s), STORE_EIO);
  store_close(st);
}
END_TEST

START_TEST(test_store_games_of)
{
  struct store *st = scratch_open(scratch_db);
  struct store_seat s;
  int64_t *ids = NULL;
  int64_t g1 = create_game(st, "chess", 1);
  int64_t g2 = create_game(st, "chess", 2);
  int64_t g3 = create_game(st, "chess", 3);
  size_t n = 0;

  fill_seat(&s, g3, 0, "a@example.org", "t1");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  fill_seat(&s, g1, 1, "a@example.org", "t2");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  fill_seat(&s, g1, 0, "b@example.org", "t3");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  fill_seat(&s, g2, 0, "b@example.org", "t4");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);
  /* Both seats of one game held by one address: the game is listed once. */
  fill_seat(&s, g2, 1, "b@example.org", "t5");
  ck_assert_int_eq(store_seat_put(st, &s), STORE_OK);

  ck_assert_int_eq(store_games_of(st, &ids, &n, "a@example.org"), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(ids[0], g1);
  ck_assert_int_eq(ids[1], g3);
  free(ids);
  ck_assert_int_eq(store_games_of(st, &ids, &n, "b@example.org"), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(ids[0], g1);
  ck_assert_int_eq(ids[1], g2);
  free(ids);
  ck_assert_int_eq(store_games_of(st, &ids, &n, "nobody@example.org"), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(ids);
  store_close(st);
}
END_TEST

/* ======================= journal ======================= */

/* The store's hashes equal the independently computed vectors. */
START_TEST(test_store_journal_append_vectors)
{
  struct store *st = scratch_open(scratch_db);
  struct store_entry *entries = NULL;
  size_t n = 0, i, k;
  int64_t game, bad = -1;

  build_vector_journal(st);
  for(game = 1; game <= 2; game++) {
    ck_assert_int_eq(store_journal_load(st, &entries, &n, game), STORE_OK);
    k = 0;
    for(i = 0; i < nvectors; i++) {
      const struct store_entry *v = &vectors[i].e;

      if(v->game != game)
        continue;
      ck_assert_uint_lt(k, n);
      ck_assert_int_eq(entries[k].game, game);
      ck_assert_int_eq(entries[k].seq, v->seq);
      ck_assert_int_eq(entries[k].seq, (int64_t)k + 1);
      ck_assert_int_eq(entries[k].time, v->time);
      ck_assert_int_eq(entries[k].seat, v->seat);
      ck_assert_str_eq(entries[k].kind, v->kind);
      ck_assert_str_eq(entries[k].text, v->text);
      ck_assert_str_eq(entries[k].dice, v->dice);
      ck_assert_str_eq(entries[k].prev_hash, v->prev_hash);
      ck_assert_str_eq(entries[k].hash, v->hash);
      k++;
    }
    ck_assert_uint_eq(k, n);
    free(entries);
    ck_assert_int_eq(store_journal_verify(st, &bad, game), STORE_OK);
    ck_assert_int_eq(bad, 0);
  }
  store_close(st);
}
END_TEST

START_TEST(test_store_journal_first_link_and_empty)
{
  struct store *st = scratch_open(scratch_db);
  struct store_entry e, *entries = NULL;
  int64_t game = create_game(st, "chess", 1);
  int64_t seq = 0, bad = -1;
  size_t n = 9;

  ck_assert_int_eq(store_journal_verify(st, &bad, game), STORE_OK);
  ck_assert_int_eq(bad, 0);
  ck_assert_int_eq(store_journal_load(st, &entries, &n, game), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(entries);
  fill_entry(&e, game, 5, -1, "create", "chess", "");
  ck_assert_int_eq(store_journal_append(st, &seq, &e), STORE_OK);
  ck_assert_int_eq(seq, 1);
  ck_assert_int_eq(store_journal_load(st, &entries, &n, game), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_str_eq(entries[0].prev_hash,
                   "0000000000000000000000000000000000000000000000000000000000000000");
  ck_assert_uint_eq(strlen(entries[0].hash), 64);
  free(entries);
  store_close(st);
}
END_TEST

START_TEST(test_store_journal_refuses)
{
  struct store *st = scratch_open(scratch_db);
  struct store_entry e, *entries = NULL;
  int64_t game = create_game(st, "chess", 1);
  int64_t seq = 5;
  size_t n = 0;

  /* A line break would make the hashed serialisation ambiguous. */
  fill_entry(&e, game, 5, 0, "move", "e2e4\nforged", "");
  ck_assert_int_eq(store_journal_append(st, &seq, &e), STORE_EIO);
  ck_assert_int_eq(seq, 0);
  ck_assert_msg(strstr(store_errmsg(st), "line break") != NULL, "%s", store_errmsg(st));
  fill_entry(&e, game, 5, 0, "move", "e2e4", "");
  memset(e.dice, 'x', sizeof(e.dice));
  ck_assert_int_eq(store_journal_append(st, &seq, &e), STORE_EIO);
  /* No game, no journal (foreign key). */
  fill_entry(&e, game + 1, 5, 0, "move", "e2e4", "");
  ck_assert_int_eq(store_journal_append(st, &seq, &e), STORE_EIO);
  ck_assert_int_eq(store_journal_load(st, &entries, &n, game), STORE_OK);
  ck_assert_uint_eq(n, 0);
  free(entries);
  store_close(st);
}
END_TEST

/* Damage applied with raw SQL to game 1 of the vector journal, and the seq
 * verify must name. */
struct tamper {
  const char *sql;
  int64_t bad_seq;
};

static const struct tamper tampers[] = {
  {"UPDATE journal SET text = 'e2e5' WHERE game = 1 AND seq = 4", 4},
  {"UPDATE journal SET seat = 0 WHERE game = 1 AND seq = 5", 5},
  {"UPDATE journal SET time = time + 1 WHERE game = 1 AND seq = 3", 3},
  {"UPDATE journal SET kind = 'move' WHERE game = 1 AND seq = 6", 6},
  {"UPDATE journal SET dice = 'roll 9' WHERE game = 1 AND seq = 7", 7},
  {"UPDATE journal SET hash = '" "0123456789abcdef0123456789abcdef"
   "0123456789abcdef0123456789abcdef' WHERE game = 1 AND seq = 2",
   2},
  {"UPDATE journal SET prev_hash = '" "1111111111111111111111111111111111111111111111111111111111111111"
   "' WHERE game = 1 AND seq = 1",
   1},
  /* A whole row gone: the next one no longer follows. */
  {"DELETE FROM journal WHERE game = 1 AND seq = 3", 4},
  /* Rewriting text and recomputing only that hash breaks the next link. */
  {"UPDATE journal SET text = 'e7e6', hash = (SELECT hash FROM journal WHERE game = 2"
   " AND seq = 1) WHERE game = 1 AND seq = 5",
   5},
  /* A longer text than struct store_entry holds is still hashed and found
   * (SQLite's words for a long text: last, not run on PostgreSQL). */
  {"UPDATE journal SET text = printf('%.300c', 'z') WHERE game = 1 AND seq = 2", 2},
};

START_TEST(test_store_journal_verify_tampered)
{
  const struct tamper *t = &tampers[_i];
  struct store *st = scratch_open(scratch_db);
  int64_t bad = 0;

  build_vector_journal(st);
  ck_assert_int_eq(store_journal_verify(st, &bad, 1), STORE_OK);
  ck_assert_int_eq(raw_exec(scratch_db, t->sql), 1);
  ck_assert_int_eq(store_journal_verify(st, &bad, 1), STORE_ECORRUPT);
  ck_assert_msg(bad == t->bad_seq, "%s: bad_seq %lld, want %lld", t->sql, (long long)bad,
                (long long)t->bad_seq);
  ck_assert_str_ne(store_errmsg(st), "");
  /* The other game's chain is independent and still holds. */
  ck_assert_int_eq(store_journal_verify(st, &bad, 2), STORE_OK);
  ck_assert_int_eq(bad, 0);
  store_close(st);
}
END_TEST

/* ======================= outbox ======================= */

START_TEST(test_store_outbox_add_due)
{
  struct store *st = scratch_open(scratch_db);
  struct store_outbox *rows = NULL;
  int64_t game = create_game(st, "chess", 1);
  int64_t id[4];
  size_t n = 0;

  ck_assert_int_eq(store_outbox_add(st, &id[0], game, "a@example.org",
                                    "To: a@example.org\r\nSubject: Re: move\r\n\r\nok\r\n", 100),
                   STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &id[1], 0, "b@example.org", "B", 300), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &id[2], game, "c@example.org", "C", 200), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, NULL, game, "d@example.org", "D", 100), STORE_OK);
  id[3] = id[2] + 1;
  ck_assert_int_lt(id[0], id[1]);
  ck_assert_int_lt(id[1], id[2]);

  /* Nothing due before the first next_try. */
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 99, 10), STORE_OK);
  ck_assert_uint_eq(n, 0);
  ck_assert_ptr_null(rows);

  /* At 200: rows 0, 2, 3 (next_try <= now), oldest first; row 1 waits. */
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 200, 10), STORE_OK);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(rows[0].id, id[0]);
  ck_assert_int_eq(rows[1].id, id[2]);
  ck_assert_int_eq(rows[2].id, id[3]);
  ck_assert_int_eq(rows[0].game, game);
  ck_assert_str_eq(rows[0].recipient, "a@example.org");
  ck_assert_str_eq(rows[0].message, "To: a@example.org\r\nSubject: Re: move\r\n\r\nok\r\n");
  ck_assert_int_eq(rows[0].state, STORE_OUTBOX_QUEUED);
  ck_assert_int_eq(rows[0].attempts, 0);
  ck_assert_int_eq(rows[0].next_try, 100);
  ck_assert_str_eq(rows[0].last_error, "");
  ck_assert_str_eq(rows[2].recipient, "d@example.org");
  store_outbox_free(rows, n);

  /* max limits, keeping the oldest. */
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 1000, 2), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(rows[0].id, id[0]);
  ck_assert_int_eq(rows[1].id, id[1]);
  ck_assert_int_eq(rows[1].game, 0);
  store_outbox_free(rows, n);
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 1000, 0), STORE_OK);
  ck_assert_uint_eq(n, 0);
  store_outbox_free(rows, n);
  ck_assert_int_eq(store_outbox_count(st, &n, STORE_OUTBOX_QUEUED), STORE_OK);
  ck_assert_uint_eq(n, 4);
  store_outbox_free(NULL, 0);
  store_close(st);
}
END_TEST

START_TEST(test_store_outbox_sent_retry)
{
  struct store *st = scratch_open(scratch_db);
  struct store_outbox *rows = NULL;
  int64_t a, b, c;
  size_t n = 0;

  ck_assert_int_eq(store_outbox_add(st, &a, 0, "a@example.org", "A", 100), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &b, 0, "b@example.org", "B", 100), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &c, 0, "c@example.org", "C", 100), STORE_OK);

  ck_assert_int_eq(store_outbox_sent(st, a, 150), STORE_OK);
  ck_assert_int_eq(store_outbox_retry(st, b, 400, "421 4.7.0 try again later", false),
                   STORE_OK);
  ck_assert_int_eq(store_outbox_retry(st, c, 0, "550 5.1.1 no such user", true), STORE_OK);

  ck_assert_int_eq(store_outbox_count(st, &n, STORE_OUTBOX_SENT), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(store_outbox_count(st, &n, STORE_OUTBOX_QUEUED), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(store_outbox_count(st, &n, STORE_OUTBOX_FAILED), STORE_OK);
  ck_assert_uint_eq(n, 1);

  /* Sent and failed rows are never due; the retried one waits for next_try. */
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 399, 10), STORE_OK);
  ck_assert_uint_eq(n, 0);
  store_outbox_free(rows, n);
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 400, 10), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(rows[0].id, b);
  ck_assert_int_eq(rows[0].attempts, 1);
  ck_assert_int_eq(rows[0].next_try, 400);
  ck_assert_str_eq(rows[0].last_error, "421 4.7.0 try again later");
  store_outbox_free(rows, n);

  /* A second failure counts up and replaces the error. */
  ck_assert_int_eq(store_outbox_retry(st, b, 800, "connection refused", false), STORE_OK);
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 800, 10), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(rows[0].attempts, 2);
  ck_assert_str_eq(rows[0].last_error, "connection refused");
  store_outbox_free(rows, n);

  ck_assert_int_eq(store_outbox_sent(st, 999, 1), STORE_ENOTFOUND);
  ck_assert_int_eq(store_outbox_retry(st, 999, 1, "x", false), STORE_ENOTFOUND);
  ck_assert_int_eq(store_outbox_count(st, &n, (enum store_outbox_state)7), STORE_EIO);
  store_close(st);

  ck_assert_int_eq(raw_int(scratch_db, "SELECT sent FROM outbox WHERE state = 'sent'"), 150);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT attempts FROM outbox WHERE state = 'failed'"), 1);
}
END_TEST

/* An over-long server error is cut to the struct field, on a character
 * boundary, rather than failing the retry. */
START_TEST(test_store_outbox_long_error)
{
  struct store *st = scratch_open(scratch_db);
  struct store_outbox *rows = NULL;
  char err[600];
  size_t n = 0, len;
  int64_t id;

  /* 254 ASCII bytes, then two-byte characters: byte 255 is mid-character. */
  memset(err, 'e', 254);
  snprintf(err + 254, sizeof(err) - 254, "%s", "ééééé");
  ck_assert_int_eq(store_outbox_add(st, &id, 0, "a@example.org", "A", 1), STORE_OK);
  ck_assert_int_eq(store_outbox_retry(st, id, 2, err, false), STORE_OK);
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 2, 1), STORE_OK);
  ck_assert_uint_eq(n, 1);
  len = strlen(rows[0].last_error);
  ck_assert_uint_eq(len, 254);
  ck_assert_int_eq(strncmp(rows[0].last_error, err, len), 0);
  store_outbox_free(rows, n);
  store_close(st);
}
END_TEST

/* A large message with 8-bit bytes and CRLF survives byte for byte. */
START_TEST(test_store_outbox_big_message)
{
  struct store *st = scratch_open(scratch_db);
  struct store_outbox *rows = NULL;
  size_t big = 300000, n = 0, i;
  char *msg = malloc(big + 1);
  int64_t id;

  ck_assert_ptr_nonnull(msg);
  for(i = 0; i < big; i++)
    msg[i] = (i % 78 == 76) ? '\r' : (i % 78 == 77) ? '\n' : (char)(0x20 + (i * 7) % 0x5f);
  msg[big] = '\0';
  memcpy(msg + 1000, "\xc3\xa9", 2);
  ck_assert_int_eq(store_outbox_add(st, &id, 0, "a@example.org", msg, 1), STORE_OK);
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 1, 5), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_uint_eq(strlen(rows[0].message), big);
  ck_assert_int_eq(memcmp(rows[0].message, msg, big), 0);
  store_outbox_free(rows, n);
  free(msg);
  store_close(st);
}
END_TEST

/* Schema v9: the text lies beside the row, so marking a reply
 * sent rewrites a small row, not the reply. SQLite rewrites a row whose
 * size changes whole, overflow pages and all: with the text in the row
 * the mark of this 40 KB reply wrote its ten overflow pages again. Counted
 * in WAL frames, from an empty WAL (the close checkpoints and empties it). */
START_TEST(test_store_outbox_mark_writes_little)
{
  struct store *st = scratch_open(scratch_db);
  size_t big = 40000, i;
  char *msg = malloc(big + 1), wal[620];
  int64_t id, page, frames;
  struct stat sb;

  ck_assert_ptr_nonnull(msg);
  for(i = 0; i < big; i++)
    msg[i] = (i % 78 == 77) ? '\n' : (char)('a' + i % 26);
  msg[big] = '\0';
  ck_assert_int_eq(store_outbox_add(st, &id, 0, "a@example.org", msg, 100), STORE_OK);
  store_close(st);
  snprintf(wal, sizeof(wal), "%s-wal", scratch_db);
  page = raw_int(scratch_db, "PRAGMA page_size");
  st = scratch_open(scratch_db);
  ck_assert_int_eq(stat(wal, &sb), 0);
  ck_assert_int_eq(sb.st_size, 0);
  ck_assert_int_eq(store_outbox_sent(st, id, 200), STORE_OK);
  ck_assert_int_eq(stat(wal, &sb), 0);
  frames = ((int64_t)sb.st_size - 32) / (24 + page);
  /* the row's leaf, the two partial indexes it leaves (queued, claimed) */
  ck_assert_msg(frames >= 1 && frames <= 4, "%lld WAL frames for the sent mark",
                (long long)frames);
  ck_assert_int_gt((int64_t)big / page, 8);
  store_close(st);
  /* the text is still whole, beside its row */
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM pragma_table_info('outbox')"
                                       " WHERE name = 'message'"),
                   0);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT length(message) FROM outbox_message"),
                   (int64_t)big);
  free(msg);
}
END_TEST

/* Sent rows older than the bound leave with their texts; queued
 * rows stay, the newest row always stays (ids are never handed out
 * twice), and what stays keeps its text. */
START_TEST(test_store_outbox_prune)
{
  struct store *st = scratch_open(scratch_db);
  struct store_outbox *rows = NULL;
  int64_t id[5];
  size_t n = 0;

  ck_assert_int_eq(store_outbox_add(st, &id[0], 0, "a@example.org", "A", 100), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &id[1], 0, "b@example.org", "B", 200), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &id[2], 0, "c@example.org", "C", 300), STORE_OK);
  ck_assert_int_eq(store_outbox_add(st, &id[3], 0, "d@example.org", "D", 400), STORE_OK);
  ck_assert_int_eq(store_outbox_sent(st, id[0], 150), STORE_OK);
  ck_assert_int_eq(store_outbox_sent(st, id[1], 250), STORE_OK);
  ck_assert_int_eq(store_outbox_sent(st, id[2], 350), STORE_OK);
  ck_assert_int_eq(store_outbox_sent(st, id[3], 450), STORE_OK);
  /* sent before 300: a and b */
  ck_assert_int_eq(store_outbox_prune(st, 300, &n), STORE_OK);
  ck_assert_uint_eq(n, 2);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM outbox"), 2);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM outbox_message"), 2);
  /* everything: c, not d, the newest */
  ck_assert_int_eq(store_outbox_prune(st, 1000, &n), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM outbox_message"), 1);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM outbox_message m"
                                       " JOIN outbox o ON o.id = m.id WHERE m.message = 'D'"),
                   1);
  /* a queued row after it: d goes, the queued one stays with its text */
  ck_assert_int_eq(store_outbox_add(st, &id[4], 0, "e@example.org", "E", 500), STORE_OK);
  ck_assert_int_eq(store_outbox_prune(st, 2000, &n), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM outbox"), 1);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM outbox_message"), 1);
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 2000, 5), STORE_OK);
  ck_assert_uint_eq(n, 1);
  ck_assert_int_eq(rows[0].id, id[4]);
  ck_assert_str_eq(rows[0].message, "E");
  store_outbox_free(rows, n);
  store_close(st);
}
END_TEST

/* A row whose text is missing (a damaged file) is said to be damaged,
 * never sent empty. */
START_TEST(test_store_outbox_text_missing)
{
  struct store *st = scratch_open(scratch_db);
  struct store_outbox *rows = NULL;
  size_t n = 0;
  int64_t id;

  ck_assert_int_eq(store_outbox_add(st, &id, 0, "a@example.org", "A", 1), STORE_OK);
  raw_exec(scratch_db, "DELETE FROM outbox_message");
  ck_assert_int_eq(store_outbox_due(st, &rows, &n, 1, 5), STORE_ECORRUPT);
  ck_assert_uint_eq(n, 0);
  ck_assert_ptr_null(rows);
  ck_assert_msg(strstr(store_errmsg(st), "no message") != NULL, "%s", store_errmsg(st));
  store_close(st);
}
END_TEST

/* ======================= dice ======================= */

static void fill_dice(struct store_dice *d, int64_t game, int chain, char c)
{
  memset(d, 0, sizeof(*d));
  d->game = game;
  d->chain = chain;
  memset(d->commitment, c, 64);
  memset(d->secret, (char)(c + 1), 64);
  d->n = 4096;
  d->next_index = 1;
  d->roll_count = 0;
}

static void assert_dice_eq(const struct store_dice *a, const struct store_dice *b)
{
  ck_assert_int_eq(a->game, b->game);
  ck_assert_int_eq(a->chain, b->chain);
  ck_assert_str_eq(a->commitment, b->commitment);
  ck_assert_str_eq(a->secret, b->secret);
  ck_assert_int_eq(a->n, b->n);
  ck_assert_int_eq(a->next_index, b->next_index);
  ck_assert_str_eq(a->entropy, b->entropy);
  ck_assert_int_eq(a->roll_count, b->roll_count);
}

START_TEST(test_store_dice_put_load)
{
  struct store *st = scratch_open(scratch_db);
  struct store_dice d1, d2, got;
  int64_t game = create_game(st, "backgammon", 1);
  int64_t other = create_game(st, "backgammon", 2);

  ck_assert_int_eq(store_dice_load(st, &got, game), STORE_ENOTFOUND);
  fill_dice(&d1, game, 1, 'a');
  ck_assert_int_eq(store_dice_put(st, &d1), STORE_OK);
  ck_assert_int_eq(store_dice_load(st, &got, game), STORE_OK);
  assert_dice_eq(&got, &d1);

  /* Update in place: entropy fixed once every seat accepted, rolls made. */
  memset(d1.entropy, 'e', 64);
  d1.next_index = 4096;
  d1.roll_count = 4095;
  ck_assert_int_eq(store_dice_put(st, &d1), STORE_OK);
  ck_assert_int_eq(store_dice_load_chain(st, &got, game, 1), STORE_OK);
  assert_dice_eq(&got, &d1);

  /* A second chain becomes the newest; the first stays readable. */
  fill_dice(&d2, game, 2, 'c');
  d2.roll_count = 4096;
  ck_assert_int_eq(store_dice_put(st, &d2), STORE_OK);
  ck_assert_int_eq(store_dice_load(st, &got, game), STORE_OK);
  assert_dice_eq(&got, &d2);
  ck_assert_int_eq(store_dice_load_chain(st, &got, game, 1), STORE_OK);
  assert_dice_eq(&got, &d1);
  ck_assert_int_eq(store_dice_load_chain(st, &got, game, 3), STORE_ENOTFOUND);
  ck_assert_int_eq(store_dice_load(st, &got, other), STORE_ENOTFOUND);
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM dice"), 2);
  store_close(st);
}
END_TEST

/* Failing writes of a dice row never echo the secret into the error text. */
START_TEST(test_store_dice_secret_not_in_errors)
{
  struct store *st = scratch_open(scratch_db);
  struct store_dice d;

  fill_dice(&d, 4242, 1, 'q'); /* secret is 64 'r' */
  ck_assert_int_eq(store_dice_put(st, &d), STORE_EIO); /* no such game */
  ck_assert_ptr_null(strstr(store_errmsg(st), "rrrr"));
  ck_assert_str_ne(store_errmsg(st), "");
  d.game = create_game(st, "backgammon", 1);
  memset(d.secret, 'r', sizeof(d.secret)); /* unterminated */
  ck_assert_int_eq(store_dice_put(st, &d), STORE_EIO);
  ck_assert_ptr_null(strstr(store_errmsg(st), "rrrr"));
  ck_assert_msg(strstr(store_errmsg(st), "dice.secret") != NULL, "%s", store_errmsg(st));
  store_close(st);
}
END_TEST

/* ======================= kv ======================= */

START_TEST(test_store_kv)
{
  struct store *st = scratch_open(scratch_db);
  char buf[16];

  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "imap.uidvalidity"), STORE_ENOTFOUND);
  ck_assert_str_eq(buf, "");
  ck_assert_int_eq(store_kv_set(st, "imap.uidvalidity", "1234"), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "imap.uidvalidity"), STORE_OK);
  ck_assert_str_eq(buf, "1234");
  ck_assert_int_eq(store_kv_set(st, "imap.uidvalidity", "99"), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "imap.uidvalidity"), STORE_OK);
  ck_assert_str_eq(buf, "99");
  ck_assert_int_eq(store_kv_set(st, "empty", ""), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "empty"), STORE_OK);
  ck_assert_str_eq(buf, "");
  /* 15 bytes fit in 16; 16 do not, and are refused rather than cut. */
  ck_assert_int_eq(store_kv_set(st, "long", "123456789012345"), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "long"), STORE_OK);
  ck_assert_str_eq(buf, "123456789012345");
  ck_assert_int_eq(store_kv_set(st, "long", "1234567890123456"), STORE_OK);
  ck_assert_int_eq(store_kv_get(st, buf, sizeof(buf), "long"), STORE_EIO);
  ck_assert_int_eq(store_kv_get(st, buf, 0, "long"), STORE_EIO);
  store_close(st);
  /* the three above and the store's own id (v3) */
  ck_assert_int_eq(raw_int(scratch_db, "SELECT count(*) FROM kv"), 4);
}
END_TEST

/* ======================= sha256 ======================= */

START_TEST(test_store_sha256_fips)
{
  char hex[65], *million;

  /* FIPS 180-2 appendix B vectors. */
  store_sha256_hex(hex, "abc", 3);
  ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  store_sha256_hex(hex, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
  ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  million = malloc(1000000);
  ck_assert_ptr_nonnull(million);
  memset(million, 'a', 1000000);
  store_sha256_hex(hex, million, 1000000);
  free(million);
  ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  store_sha256_hex(hex, "", 0);
  ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}
END_TEST

static Suite *store_suite(void)
{
  Suite *s = suite_create("store");
  TCase *tc;

#define TCASE(name)                                                                                \
  tc = tcase_create(name);                                                                         \
  tcase_add_checked_fixture(tc, scratch_dir_setup, scratch_dir_teardown);                          \
  suite_add_tcase(s, tc)

  TCASE("open");
  scratch_add_sqlite_test(tc, test_store_open_creates_schema);
  scratch_add_sqlite_test(tc, test_store_open_memory);
  tcase_add_test(tc, test_store_open_reopen_keeps_data);
  scratch_add_sqlite_test(tc, test_store_open_migrates_old);
  scratch_add_sqlite_test(tc, test_store_open_refuses_newer);
  scratch_add_sqlite_test(tc, test_store_open_migration_atomic);
  scratch_add_sqlite_test(tc, test_store_open_not_a_database);
  scratch_add_sqlite_test(tc, test_store_open_bad_path);
  tcase_add_test(tc, test_store_close_null);
  tcase_add_test(tc, test_store_open_pg_password_refused);

  TCASE("transactions");
  tcase_add_test(tc, test_store_tx_commit);
  tcase_add_test(tc, test_store_tx_rollback_leaves_nothing);
  tcase_add_test(tc, test_store_tx_misuse);
  tcase_add_test(tc, test_store_tx_group_savepoint);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_store_tx_busy);

  TCASE("message");
  tcase_add_test(tc, test_store_message_seen_record);

  TCASE("game");
  tcase_add_test(tc, test_store_game_create_load_update);
  tcase_add_test(tc, test_store_game_phases_roundtrip);
  tcase_add_test(tc, test_store_game_not_found);
  tcase_add_test(tc, test_store_game_list);
  scratch_add_sqlite_test(tc, test_store_game_field_limits);

  TCASE("seat");
  tcase_add_test(tc, test_store_seat_put_list);
  tcase_add_test(tc, test_store_seat_constraints);
  tcase_add_test(tc, test_store_games_of);

  TCASE("journal");
  tcase_add_test(tc, test_store_journal_append_vectors);
  tcase_add_test(tc, test_store_journal_first_link_and_empty);
  tcase_add_test(tc, test_store_journal_refuses);
  tcase_add_loop_test(tc, test_store_journal_verify_tampered, 0,
                      (int)(sizeof(tampers) / sizeof(tampers[0])) - (scratch_pg() ? 1 : 0));

  TCASE("outbox");
  tcase_add_test(tc, test_store_outbox_add_due);
  tcase_add_test(tc, test_store_outbox_sent_retry);
  tcase_add_test(tc, test_store_outbox_long_error);
  tcase_add_test(tc, test_store_outbox_big_message);
  scratch_add_sqlite_test(tc, test_store_outbox_mark_writes_little);
  tcase_add_test(tc, test_store_outbox_prune);
  tcase_add_test(tc, test_store_outbox_text_missing);

  TCASE("dice");
  tcase_add_test(tc, test_store_dice_put_load);
  tcase_add_test(tc, test_store_dice_secret_not_in_errors);

  TCASE("kv");
  tcase_add_test(tc, test_store_kv);

  TCASE("sha256");
  tcase_add_test(tc, test_store_sha256_fips);
#undef TCASE
  return s;
}

int main(void)
{
  return unit_run(store_suite());
}
