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
extern char scratch_db[300];
extern struct store *scratch_mem;

void scratch_dir_setup(void);
void scratch_dir_teardown(void);
/* The store at path, opened or the test fails. */
struct store *scratch_open(const char *path);

void scratch_memory_setup(void);
void scratch_memory_teardown(void);
/* A game of this kind in scratch_mem, nothing else set (no turn, no draw
 * offered); its id. */
int64_t scratch_game(const char *kind);

/* SQL that takes a store at the latest version back to v9 (before the
 * game state's tables): its tables dropped, empty as a rewound test's are. */
#define SCRATCH_UNDO_V10                                                                      \
  "DROP TABLE resign_offers; DROP TABLE takeback_requests; DROP TABLE standing_rolls;"       \
  "DROP TABLE cube_answers; DROP TABLE observers; DROP TABLE private_games;"                 \
  "DROP TABLE public_comment_games; DROP TABLE comments_off; DROP TABLE dice_protocols;"     \
  "DROP TABLE lag_previews; DROP TABLE hourly_counts;"

/* SQL that takes a store at the latest version back to v8 (before issue
 * 15's outbox_message): the texts back into outbox.message. A test that
 * rewinds a store to an older version runs it first. */
#define SCRATCH_UNDO_V9                                                                       \
  SCRATCH_UNDO_V10                                                                            \
  "ALTER TABLE outbox ADD COLUMN message TEXT NOT NULL DEFAULT '';"                          \
  "UPDATE outbox SET message = (SELECT m.message FROM outbox_message m WHERE m.id = outbox.id);" \
  "DROP TABLE outbox_message;"

#endif
