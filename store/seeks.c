/*
 * seeks.c: the `seeks` table (schema v7) in tabula_store: open
 * requests for an opponent from confirmed addresses, and what became of
 * them (paired with the game they started, expired, withdrawn). Contract
 * in store.h; schema in store.c. Which seeks match, who plays which side
 * and who is told is the service's (referee/handlers/cmd_seek.c): the store keeps
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
  int rc = store_run(st,
                     "INSERT INTO seeks(address, kind, options, days, rated, created, expires,"
                     " phase, game) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, 'open', 0)",
                     "seek_put", "fffiiii", s->address, sizeof(s->address), "seeks.address", s->kind,
                     sizeof(s->kind), "seeks.kind", s->options, sizeof(s->options), "seeks.options", (int64_t)s->days,
                     (int64_t)(s->rated ? 1 : 0), s->created, s->expires);
  if(rc == STORE_OK && id)
    *id = sqlite3_last_insert_rowid(st->db);
  return rc;
}

int store_seek_get(struct store *st, struct store_seek *out, int64_t id)
{
  int rc = store_query_one(st, out, sizeof(*out), read_seek,
                           "SELECT " SEEK_COLUMNS " FROM seeks WHERE id = ?1", "seek_get", "i",
                           id);
  if(rc == STORE_ENOTFOUND)
    rc = store_fail(st, STORE_ENOTFOUND, "seek_get: no seek %lld", (long long)id);
  return rc;
}

/* The open seeks of one kind (NULL: every kind) or of one address (NULL:
 * everyone's), oldest first. */
int store_seeks_open(struct store *st, struct store_seek **seeks, size_t *n, const char *kind,
                     const char *address)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(struct store_seek), read_seek,
                       "SELECT " SEEK_COLUMNS " FROM seeks WHERE phase = 'open'"
                       " AND (?1 IS NULL OR kind = ?1) AND (?2 IS NULL OR address = ?2)"
                       " ORDER BY created, id",
                       "seeks_open", "tt", kind, address);
  *seeks = v;
  return rc;
}

int store_seek_close(struct store *st, int64_t id, const char *phase, int64_t game)
{
  /* Only an open seek closes: a second close (a repeated tick) changes
   * nothing and says so. */
  int rc = store_run(st,
                     "UPDATE seeks SET phase = ?2, game = ?3 WHERE id = ?1 AND phase = 'open'",
                     "seek_close", "iti", id, phase, game);
  if(rc == STORE_OK && sqlite3_changes(st->db) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "seek_close: no open seek %lld", (long long)id);
  return rc;
}

int store_seeks_expired(struct store *st, int64_t **ids, size_t *n, int64_t now)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT id FROM seeks WHERE phase = 'open' AND expires <= ?1 ORDER BY id",
                       "seeks_expired", "i", now);
  *ids = v;
  return rc;
}
