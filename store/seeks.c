/*
 * seeks.c: the `seeks` table (schema v7) in tabula_store: open
 * requests for an opponent from confirmed addresses, and what became of
 * them (paired with the game they started, expired, withdrawn). Contract
 * in store.h; schema in store.c. Which seeks match, who plays which side
 * and who is told is the service's (referee/cmd_seek.c): the store keeps
 * the facts. Addresses compare without regard to case (COLLATE NOCASE).
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

#define SEEK_COLUMNS "id, address, kind, options, days, rated, created, expires, phase, game"

static int read_seek(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_seek *s = row;
  int rc;
  s->id = sqlite3_column_int64(stmt, 0);
  rc = store_copy_column(st, s->address, sizeof(s->address), stmt, 1, "seeks.address");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->kind, sizeof(s->kind), stmt, 2, "seeks.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->options, sizeof(s->options), stmt, 3, "seeks.options");
  s->days = sqlite3_column_int(stmt, 4);
  s->rated = sqlite3_column_int(stmt, 5);
  s->created = sqlite3_column_int64(stmt, 6);
  s->expires = sqlite3_column_int64(stmt, 7);
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->phase, sizeof(s->phase), stmt, 8, "seeks.phase");
  s->game = sqlite3_column_int64(stmt, 9);
  return rc;
}

int store_seek_put(struct store *st, int64_t *id, const struct store_seek *s)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt,
                     "INSERT INTO seeks(address, kind, options, days, rated, created, expires,"
                     " phase, game) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', 0)",
                     "seek_put");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 1, s->address, sizeof(s->address), "seeks.address");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 2, s->kind, sizeof(s->kind), "seeks.kind");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 3, s->options, sizeof(s->options), "seeks.options");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 4, s->days, "seeks.days");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 5, s->rated ? 1 : 0, "seeks.rated");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 6, s->created, "seeks.created");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 7, s->expires, "seeks.expires");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "seek_put");
  store_finish(st, stmt);
  if(rc == STORE_OK && id)
    *id = sqlite3_last_insert_rowid(st->db);
  return rc;
}

int store_seek_get(struct store *st, struct store_seek *out, int64_t id)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = store_prepare(st, &stmt, "SELECT " SEEK_COLUMNS " FROM seeks WHERE id = ?1", "seek_get");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, id, "seeks.id");
  if(rc)
    goto out;
  rc = sqlite3_step(stmt);
  if(rc == SQLITE_DONE)
    rc = store_fail(st, STORE_ENOTFOUND, "seek_get: no seek %lld", (long long)id);
  else if(rc != SQLITE_ROW)
    rc = store_fail_sql(st, rc, "seek_get");
  else
    rc = read_seek(st, stmt, out);
out:
  store_finish(st, stmt);
  return rc;
}

/* The open seeks of one kind (NULL: every kind) or of one address (NULL:
 * everyone's), oldest first. */
int store_seeks_open(struct store *st, struct store_seek **seeks, size_t *n, const char *kind,
                     const char *address)
{
  sqlite3_stmt *stmt = NULL;
  void *v = NULL;
  int rc;

  *seeks = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt,
                     "SELECT " SEEK_COLUMNS " FROM seeks WHERE phase = 'open'"
                     " AND (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR address = ?2)"
                     " ORDER BY created, id",
                     "seeks_open");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, kind, "seeks.kind");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 2, address, "seeks.address");
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(struct store_seek), &v, n, read_seek, "seeks_open");
  store_finish(st, stmt);
  if(rc) {
    free(v);
    *n = 0;
    return rc;
  }
  *seeks = v;
  return STORE_OK;
}

int store_seek_close(struct store *st, int64_t id, const char *phase, int64_t game)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  /* Only an open seek closes: a second close (a repeated tick) changes
   * nothing and says so. */
  rc = store_prepare(st, &stmt,
                     "UPDATE seeks SET phase = ?2, game = ?3 WHERE id = ?1 AND phase = 'open'",
                     "seek_close");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, id, "seeks.id");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 2, phase, "seeks.phase");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 3, game, "seeks.game");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "seek_close");
  store_finish(st, stmt);
  if(rc == STORE_OK && sqlite3_changes(st->db) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "seek_close: no open seek %lld", (long long)id);
  return rc;
}

int store_seeks_expired(struct store *st, int64_t **ids, size_t *n, int64_t now)
{
  sqlite3_stmt *stmt = NULL;
  size_t cap = 0;
  int rc;

  *ids = NULL;
  *n = 0;
  rc = store_prepare(st, &stmt,
                     "SELECT id FROM seeks WHERE phase = 'open' AND expires <= ?1 ORDER BY id",
                     "seeks_expired");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, now, "seeks.expires");
  while(rc == STORE_OK) {
    int s = sqlite3_step(stmt);
    int64_t *grown;
    if(s == SQLITE_DONE)
      break;
    if(s != SQLITE_ROW) {
      rc = store_fail_sql(st, s, "seeks_expired");
      break;
    }
    if(!(grown = store_grow(*ids, &cap, *n, sizeof(**ids)))) {
      rc = store_fail(st, STORE_ENOMEM, "seeks_expired: out of memory");
      break;
    }
    *ids = grown;
    (*ids)[(*n)++] = sqlite3_column_int64(stmt, 0);
  }
  store_finish(st, stmt);
  if(rc) {
    free(*ids);
    *ids = NULL;
    *n = 0;
  }
  return rc;
}
