/*
 * conditionals.c: a player's prepared lines in tabula_store:
 * "if Nf6 then e5", one row per branch. Contract in store.h, schema in
 * store.c (migration 7). The store keeps the rows; what a line means, when
 * it fires and who may see it are the service's (referee/cmd_conditional.c,
 * cmd_play.c). Rows are never shown to the opponent.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#define COND_COLUMNS "id, game, seat, ply, plies, line, created"

static int cond_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_conditional *c = row;
  int rc;
  c->id = sqlite3_column_int64(stmt, 0);
  c->game = sqlite3_column_int64(stmt, 1);
  c->seat = sqlite3_column_int(stmt, 2);
  c->ply = sqlite3_column_int64(stmt, 3);
  rc = store_copy_column(st, c->plies, sizeof(c->plies), stmt, 4, "conditionals.plies");
  if(rc == STORE_OK)
    rc = store_copy_column(st, c->line, sizeof(c->line), stmt, 5, "conditionals.line");
  c->created = sqlite3_column_int64(stmt, 6);
  return rc;
}

int store_conditional_add(struct store *st, int64_t *id, const struct store_conditional *c)
{
  sqlite3_stmt *stmt = NULL;
  int rc = store_prepare(st, &stmt,
                         "INSERT INTO conditionals(game, seat, ply, plies, line, created)"
                         " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                         "conditional_add");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, c->game, "conditionals.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, c->seat, "conditionals.seat");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 3, c->ply, "conditionals.ply");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 4, c->plies, sizeof(c->plies), "conditionals.plies");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 5, c->line, sizeof(c->line), "conditionals.line");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 6, c->created, "conditionals.created");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "conditional_add");
  store_finish(st, stmt);
  if(rc == STORE_OK && id)
    *id = sqlite3_last_insert_rowid(st->db);
  return rc;
}

int store_conditional_list(struct store *st, struct store_conditional **rows, size_t *n,
                           int64_t game, int seat)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc = store_prepare(st, &stmt,
                         "SELECT " COND_COLUMNS " FROM conditionals"
                         " WHERE game = ?1 AND (?2 < 0 OR seat = ?2) ORDER BY seat, id",
                         "conditional_list");
  *rows = NULL;
  *n = 0;
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, game, "conditionals.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, seat, "conditionals.seat");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(**rows), &v, n, cond_row, "conditional_list");
  store_finish(st, stmt);
  if(rc) {
    free(v);
    *n = 0;
    return rc;
  }
  *rows = v;
  return STORE_OK;
}

int store_conditional_update(struct store *st, int64_t id, int64_t ply, const char *plies)
{
  sqlite3_stmt *stmt = NULL;
  int rc = store_prepare(st, &stmt, "UPDATE conditionals SET ply = ?2, plies = ?3 WHERE id = ?1",
                         "conditional_update");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, id, "conditionals.id");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, ply, "conditionals.ply");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 3, plies, "conditionals.plies");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "conditional_update");
  store_finish(st, stmt);
  return rc;
}

int store_conditional_delete(struct store *st, int64_t id)
{
  sqlite3_stmt *stmt = NULL;
  int rc = store_prepare(st, &stmt, "DELETE FROM conditionals WHERE id = ?1",
                         "conditional_delete");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, id, "conditionals.id");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "conditional_delete");
  store_finish(st, stmt);
  return rc;
}

int store_conditionals_clear(struct store *st, int64_t game, int seat)
{
  sqlite3_stmt *stmt = NULL;
  int rc = store_prepare(st, &stmt,
                         "DELETE FROM conditionals WHERE game = ?1 AND (?2 < 0 OR seat = ?2)",
                         "conditionals_clear");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, game, "conditionals.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, seat, "conditionals.seat");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "conditionals_clear");
  store_finish(st, stmt);
  return rc == STORE_OK ? 0 : -1;
}
