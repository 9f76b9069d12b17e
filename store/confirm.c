/*
 * confirm.c: the tables behind "nothing to an address that has not
 * asked" in tabula_store: the requests waiting for their
 * one-time key to come back from their address, and the addresses that
 * have answered one of our mails. Contract in store.h; schema in store.c
 * (migration 4). What a request does once confirmed, and who may be
 * mailed, is the service's (referee/optin.c): the store keeps the facts.
 * Addresses compare without regard to case (COLLATE NOCASE).
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

int store_confirm_put(struct store *st, const struct store_confirm *c)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt,
                     "INSERT INTO confirmations(key, address, kind, request, game, created,"
                     " expires) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                     "confirm_put");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 1, c->key, sizeof(c->key), "confirmations.key");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 2, c->address, sizeof(c->address), "confirmations.address");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 3, c->kind, sizeof(c->kind), "confirmations.kind");
  if(rc == STORE_OK)
    rc = store_bind_field(st, stmt, 4, c->request, sizeof(c->request), "confirmations.request");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 5, c->game, "confirmations.game");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 6, c->created, "confirmations.created");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 7, c->expires, "confirmations.expires");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "confirm_put");
  store_finish(st, stmt);
  return rc;
}

int store_confirm_get(struct store *st, struct store_confirm *out, const char *key)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  memset(out, 0, sizeof(*out));
  rc = store_prepare(st, &stmt,
                     "SELECT key, address, kind, request, game, created, expires"
                     " FROM confirmations WHERE key = ?1",
                     "confirm_get");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, key, "confirmations.key");
  if(rc)
    goto out;
  rc = sqlite3_step(stmt);
  if(rc == SQLITE_DONE) {
    rc = store_fail(st, STORE_ENOTFOUND, "confirm_get: no such key");
    goto out;
  }
  if(rc != SQLITE_ROW) {
    rc = store_fail_sql(st, rc, "confirm_get");
    goto out;
  }
  rc = store_copy_column(st, out->key, sizeof(out->key), stmt, 0, "confirmations.key");
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
out:
  store_finish(st, stmt);
  return rc;
}

static int exec_bound(struct store *st, const char *sql, const char *text, int64_t value,
                      const char *what)
{
  sqlite3_stmt *stmt = NULL;
  int rc = store_prepare(st, &stmt, sql, what);
  if(rc == STORE_OK && text)
    rc = store_bind_text(st, stmt, 1, text, what);
  else if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, value, what);
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, what);
  store_finish(st, stmt);
  return rc;
}

int store_confirm_delete(struct store *st, const char *key)
{
  return exec_bound(st, "DELETE FROM confirmations WHERE key = ?1", key, 0, "confirm_delete");
}

int store_confirm_prune(struct store *st, int64_t before)
{
  return exec_bound(st, "DELETE FROM confirmations WHERE expires < ?1", NULL, before,
                    "confirm_prune");
}

int store_confirmed_get(struct store *st, bool *yes, const char *address)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *yes = false;
  rc = store_prepare(st, &stmt, "SELECT 1 FROM confirmed WHERE address = ?1", "confirmed_get");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "confirmed.address");
  if(rc)
    goto out;
  rc = sqlite3_step(stmt);
  if(rc == SQLITE_ROW) {
    *yes = true;
    rc = STORE_OK;
  }
  else if(rc == SQLITE_DONE)
    rc = STORE_OK;
  else
    rc = store_fail_sql(st, rc, "confirmed_get");
out:
  store_finish(st, stmt);
  return rc;
}

int store_confirmed_add(struct store *st, const char *address, int64_t since, const char *how)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  /* The first answer is the one kept: since and how say when and by what
   * the address first proved it reads our mail. */
  rc = store_prepare(st, &stmt,
                     "INSERT OR IGNORE INTO confirmed(address, since, how) VALUES(?1, ?2, ?3)",
                     "confirmed_add");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, address, "confirmed.address");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, since, "confirmed.since");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 3, how, "confirmed.how");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "confirmed_add");
  store_finish(st, stmt);
  return rc;
}
