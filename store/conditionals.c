/*
 * conditionals.c: a player's prepared lines in tabula_store:
 * "if Nf6 then e5", one row per branch. Contract in store.h, schema in
 * store.c (migration 7). The store keeps the rows; what a line means, when
 * it fires and who may see it are the service's (referee/handlers/cmd_conditional.c,
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
  int rc = store_run(st,
                     "INSERT INTO conditionals(game, seat, ply, plies, line, created)"
                     " VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                     "conditional_add", "iiiffi", c->game, (int64_t)c->seat, c->ply, c->plies,
                     sizeof(c->plies), "conditionals.plies", c->line, sizeof(c->line), "conditionals.line", c->created);
  if(rc == STORE_OK && id)
    *id = sqlite3_last_insert_rowid(st->db);
  return rc;
}

int store_conditional_list(struct store *st, struct store_conditional **rows, size_t *n,
                           int64_t game, int seat)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(**rows), cond_row,
                       "SELECT " COND_COLUMNS " FROM conditionals"
                       " WHERE game = ?1 AND (?2 < 0 OR seat = ?2) ORDER BY seat, id",
                       "conditional_list", "ii", game, (int64_t)seat);
  *rows = v;
  return rc;
}

int store_conditional_update(struct store *st, int64_t id, int64_t ply, const char *plies)
{
  return store_run(st, "UPDATE conditionals SET ply = ?2, plies = ?3 WHERE id = ?1",
                   "conditional_update", "iit", id, ply, plies);
}

int store_conditional_delete(struct store *st, int64_t id)
{
  return store_run(st, "DELETE FROM conditionals WHERE id = ?1", "conditional_delete", "i", id);
}

int store_conditionals_clear(struct store *st, int64_t game, int seat)
{
  int rc = store_run(st, "DELETE FROM conditionals WHERE game = ?1 AND (?2 < 0 OR seat = ?2)",
                     "conditionals_clear", "ii", game, (int64_t)seat);
  return rc == STORE_OK ? 0 : -1;
}
