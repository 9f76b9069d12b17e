/*
 * confirm.c: the tables behind "nothing to an address that has not
 * asked" in tabula_store: the requests waiting for their
 * one-time key to come back from their address, and the addresses that
 * have answered one of our mails. Contract in store.h; schema in store.c
 * (migration 4). What a request does once confirmed, and who may be
 * mailed, is the service's (referee/mailout/optin.c): the store keeps the facts.
 * Addresses compare without regard to case (COLLATE NOCASE).
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

int store_confirm_put(struct store *st, const struct store_confirm *c)
{
  return store_run(st,
                   "INSERT INTO confirmations(key, address, kind, request, game, created,"
                   " expires) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                   "confirm_put", "ffffiii", c->key, sizeof(c->key), "confirmations.key", c->address,
                   sizeof(c->address), "confirmations.address", c->kind, sizeof(c->kind), "confirmations.kind", c->request, sizeof(c->request), "confirmations.request",
                   c->game, c->created, c->expires);
}

static int confirm_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct store_confirm *out = row;
  int rc = store_copy_column(st, out->key, sizeof(out->key), stmt, 0, "confirmations.key");
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->address, sizeof(out->address), stmt, 1,
                           "confirmations.address");
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->kind, sizeof(out->kind), stmt, 2, "confirmations.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, out->request, sizeof(out->request), stmt, 3,
                           "confirmations.request");
  out->game = sqlite3_column_int64(stmt, 4);
  out->created = sqlite3_column_int64(stmt, 5);
  out->expires = sqlite3_column_int64(stmt, 6);
  return rc;
}

int store_confirm_get(struct store *st, struct store_confirm *out, const char *key)
{
  int rc = store_query_one(st, out, sizeof(*out), confirm_row,
                           "SELECT key, address, kind, request, game, created, expires"
                           " FROM confirmations WHERE key = ?1",
                           "confirm_get", "t", key);
  if(rc == STORE_ENOTFOUND)
    rc = store_fail(st, STORE_ENOTFOUND, "confirm_get: no such key");
  return rc;
}

int store_confirm_delete(struct store *st, const char *key)
{
  return store_run(st, "DELETE FROM confirmations WHERE key = ?1", "confirm_delete", "t", key);
}

int store_confirm_prune(struct store *st, int64_t before)
{
  return store_run(st, "DELETE FROM confirmations WHERE expires < ?1", "confirm_prune", "i",
                   before);
}

int store_confirmed_get(struct store *st, bool *yes, const char *address)
{
  return store_query_exists(st, yes, "SELECT 1 FROM confirmed WHERE address = ?1",
                            "confirmed_get", "t", address);
}

int store_confirmed_add(struct store *st, const char *address, int64_t since, const char *how)
{
  /* The first answer is the one kept: since and how say when and by what
   * the address first proved it reads our mail. */
  return store_run(st,
                   "INSERT OR IGNORE INTO confirmed(address, since, how) VALUES(?1, ?2, ?3)",
                   "confirmed_add", "tit", address, since, how);
}
