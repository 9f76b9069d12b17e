/*
 * conditionals.c: a player's prepared lines in one game (issue 18, table
 * `conditionals`, schema v7; contract in store.h).
 *
 * This branch (takebacks) holds only the discarding of a game's lines: an
 * agreed takeback changes the position every stored line was validated
 * against, so all of them go in the undo's transaction. The conditional
 * moves' own file replaces this one at merge time and keeps this function.
 */
#include "store_int.h"

int store_conditionals_clear(struct store *st, int64_t game, int seat)
{
  static const char sql_all[] = "DELETE FROM conditionals WHERE game = ?1";
  static const char sql_seat[] = "DELETE FROM conditionals WHERE game = ?1 AND seat = ?2";
  const char *what = "conditionals clear";
  sqlite3_stmt *stmt = NULL;
  int rc = store_prepare(st, &stmt, seat < 0 ? sql_all : sql_seat, what);
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, game, what);
  if(rc == STORE_OK && seat >= 0)
    rc = store_bind_int64(st, stmt, 2, seat, what);
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, what);
  store_finish(st, stmt);
  return rc;
}
