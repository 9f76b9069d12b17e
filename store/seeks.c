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

static int read_seek(struct store *st, const struct store_row *src, void *row)
{
  struct store_seek *s = row;
  int rc;
  s->id = store_col_int64(src, 0);
  rc = store_copy_column(st, s->address, sizeof(s->address), src, 1, "seeks.address");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->kind, sizeof(s->kind), src, 2, "seeks.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->options, sizeof(s->options), src, 3, "seeks.options");
  s->days = store_col_int(src, 4);
  s->rated = store_col_int(src, 5);
  s->created = store_col_int64(src, 6);
  s->expires = store_col_int64(src, 7);
  if(rc == STORE_OK)
    rc = store_copy_column(st, s->phase, sizeof(s->phase), src, 8, "seeks.phase");
  s->game = store_col_int64(src, 9);
  return rc;
}

int store_seek_put(struct store *st, int64_t *id, const struct store_seek *s)
{
  int64_t row = 0;
  int rc = store_query_one(
      st, &row, sizeof(row), store_row_int64,
      "INSERT INTO seeks(address, kind, options, days, rated, created, expires,"
      " phase, game) VALUES($1, $2, $3, $4, $5, $6, $7, 'open', 0) RETURNING id",
      "seek_put", "fffiiii", s->address, sizeof(s->address), "seeks.address", s->kind,
      sizeof(s->kind), "seeks.kind", s->options, sizeof(s->options), "seeks.options",
      (int64_t)s->days, (int64_t)(s->rated ? 1 : 0), s->created, s->expires);
  if(id)
    *id = rc == STORE_OK ? row : 0;
  return rc;
}

int store_seek_get(struct store *st, struct store_seek *out, int64_t id)
{
  int rc = store_query_one(st, out, sizeof(*out), read_seek,
                           "SELECT " SEEK_COLUMNS " FROM seeks WHERE id = $1", "seek_get", "i",
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
                       " AND ($1 IS NULL OR kind = $1) AND ($2 IS NULL OR address = $2)"
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
                     "UPDATE seeks SET phase = $1, game = $2 WHERE id = $3 AND phase = 'open'",
                     "seek_close", "tii", phase, game, id);
  if(rc == STORE_OK && store_changes(st) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "seek_close: no open seek %lld", (long long)id);
  return rc;
}

int store_seeks_expired(struct store *st, int64_t **ids, size_t *n, int64_t now)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(int64_t), store_row_int64,
                       "SELECT id FROM seeks WHERE phase = 'open' AND expires <= $1 ORDER BY id",
                       "seeks_expired", "i", now);
  *ids = v;
  return rc;
}
