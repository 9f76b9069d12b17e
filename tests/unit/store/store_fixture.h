/*
 * store_fixture.h: the scratch stores of the store's unit tests
 * (tests/unit/store), written once (store_fixture.c, linked into each).
 *
 * Two kinds, each a check fixture of its own (tcase_add_checked_fixture,
 * so every test starts from nothing):
 * - a store file: scratch_dir_setup makes a fresh directory (mkdtemp),
 *   scratch_db names tabula.db in it, not yet created; a test opens it,
 *   or any other path in scratch_dir, with scratch_open as often as it
 *   needs (a second handle stands for a second process), and may make
 *   other files beside it; scratch_dir_teardown removes what is in the
 *   directory (the database, its -wal and -shm) and the directory.
 * - an in-memory store: scratch_memory_setup opens scratch_mem on
 *   ":memory:", scratch_memory_teardown closes it; scratch_game adds a
 *   bare game row to it, for the tables that refer to a game.
 */
#ifndef TABULA_STORE_FIXTURE_H
#define TABULA_STORE_FIXTURE_H

#include "store.h"

extern char scratch_dir[256];
extern char scratch_db[600];
extern struct store *scratch_mem;

/* Whether the scratch stores are on PostgreSQL: TABULA_TEST_ENGINE=pg
 * (the store tests' ctests named *_pg, run under
 * tests/harness/pg_cluster.sh). Then scratch_db and scratch_mem name a
 * fresh schema each in the cluster's database, dropped at teardown, and a
 * test of what only the SQLite driver has (its file, WAL, PRAGMAs) is not
 * registered. */
bool scratch_pg(void);

/* Registers a test of what only the SQLite driver has: not on PostgreSQL. */
#define scratch_add_sqlite_test(tc, test)                                                      \
  do {                                                                                          \
    if(!scratch_pg())                                                                           \
      tcase_add_test(tc, test);                                                                 \
  } while(0)

void scratch_dir_setup(void);
void scratch_dir_teardown(void);
/* The store at path, opened or the test fails. */
struct store *scratch_open(const char *path);

void scratch_memory_setup(void);
void scratch_memory_teardown(void);
/* A game of this kind in scratch_mem, nothing else set (no turn, no draw
 * offered); its id. */
int64_t scratch_game(const char *kind);

/* A connection of its own to the database at path, as another process
 * would have, through the engine alone (store_open_bare: no schema check,
 * no migration, no settings), so a test can see or damage what the store
 * wrote. Each fails the test when the SQL does. scratch_raw_exec runs one
 * or more statements and returns the rows the last one changed;
 * scratch_raw_int and scratch_raw_text read column 0 of the first row. */
int64_t scratch_raw_exec(const char *path, const char *sql);
int64_t scratch_raw_int(const char *path, const char *sql);
void scratch_raw_text(char *buf, size_t cap, const char *path, const char *sql);

/* SQL that takes a store at the latest version back to v12 (before the
 * history's history_sent). */
#define SCRATCH_UNDO_V13 "DROP TABLE history_sent;"

/* SQL that takes a store at v12 back to v11: the knockout tables gone. */
#define SCRATCH_UNDO_V12                                                                      \
  SCRATCH_UNDO_V13                                                                            \
  "DROP TABLE knockout_slots; DROP TABLE knockout_entries; DROP TABLE knockouts;"

/* SQL that takes a store at the latest version back to v10 (before the
 * time controls' columns, clock_control.c): those columns dropped. */
#define SCRATCH_UNDO_V11                                                                      \
  SCRATCH_UNDO_V12                                                                            \
  "ALTER TABLE clocks DROP COLUMN control; ALTER TABLE clocks DROP COLUMN bank0;"             \
  "ALTER TABLE clocks DROP COLUMN bank1; ALTER TABLE clocks DROP COLUMN done0;"              \
  "ALTER TABLE clocks DROP COLUMN done1; ALTER TABLE prefs DROP COLUMN timezone;"            \
  "ALTER TABLE prefs DROP COLUMN leave_auto; ALTER TABLE prefs DROP COLUMN calendar;"

/* SQL that takes a store at the latest version back to v9 (before the
 * game state's tables): its tables dropped, empty as a rewound test's are. */
#define SCRATCH_UNDO_V10                                                                      \
  SCRATCH_UNDO_V11                                                                            \
  "DROP TABLE resign_offers; DROP TABLE takeback_requests; DROP TABLE standing_rolls;"       \
  "DROP TABLE cube_answers; DROP TABLE observers; DROP TABLE private_games;"                 \
  "DROP TABLE public_comment_games; DROP TABLE comments_off; DROP TABLE dice_protocols;"     \
  "DROP TABLE lag_previews; DROP TABLE hourly_counts;"

/* SQL that takes a store at the latest version back to v8 (before the
 * outbox_message table): the texts back into outbox.message. A test that
 * rewinds a store to an older version runs it first. */
#define SCRATCH_UNDO_V9                                                                       \
  SCRATCH_UNDO_V10                                                                            \
  "ALTER TABLE outbox ADD COLUMN message TEXT NOT NULL DEFAULT '';"                          \
  "UPDATE outbox SET message = (SELECT m.message FROM outbox_message m WHERE m.id = outbox.id);" \
  "DROP TABLE outbox_message;"

#endif
