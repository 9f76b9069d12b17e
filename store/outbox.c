/*
 * outbox.c: the durable outbox of tabula_store. Contract in store.h; the
 * table is created in store.c (migrations[]).
 *
 * Replies are written in the same transaction as the move that caused them
 * and sent afterwards (docs/architecture.md, "commit before replying"), so a
 * crash between commit and send only delays a reply: the row is still
 * queued on restart. Rows leave the queue in creation order (id), so two
 * replies to one player arrive in the order they were composed.
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* Indexed by enum store_outbox_state; the words are what outbox.state holds. */
static const char *const state_names[] = {"queued", "sent", "failed"};
#define STATE_COUNT (sizeof(state_names) / sizeof(state_names[0]))

int store_outbox_add(struct store *st, int64_t *id, int64_t game, const char *recipient,
                     const char *message, int64_t now)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if(id)
    *id = 0;
  rc = store_prepare(st, &stmt,
                     "INSERT INTO outbox(game, recipient, message, state, attempts, next_try,"
                     " last_error, created) VALUES(?1, ?2, ?3, 'queued', 0, ?4, '', ?4)",
                     "outbox_add");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, game, "outbox.game");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 2, recipient, "outbox.recipient");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 3, message, "outbox.message");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 4, now, "outbox.next_try");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "outbox_add");
  if(rc == STORE_OK && id)
    *id = sqlite3_last_insert_rowid(st->db);
  store_finish(st, stmt);
  return rc;
}

static int state_from_word(struct store *st, enum store_outbox_state *out, const char *word)
{
  size_t i;

  for(i = 0; i < STATE_COUNT; i++) {
    if(!strcmp(word, state_names[i])) {
      *out = (enum store_outbox_state)i;
      return STORE_OK;
    }
  }
  return store_fail(st, STORE_ECORRUPT, "outbox.state holds an unknown word");
}

/* Fills r from the current row (columns as selected by store_outbox_due). */
static int outbox_row(struct store *st, struct store_outbox *r, sqlite3_stmt *stmt)
{
  char state[16];
  const char *text;
  size_t len;
  int rc;

  r->id = sqlite3_column_int64(stmt, 0);
  r->game = sqlite3_column_int64(stmt, 1);
  r->attempts = sqlite3_column_int(stmt, 5);
  r->next_try = sqlite3_column_int64(stmt, 6);
  rc = store_copy_column(st, r->recipient, sizeof(r->recipient), stmt, 2, "outbox.recipient");
  if(rc == STORE_OK)
    rc = store_copy_column(st, state, sizeof(state), stmt, 4, "outbox.state");
  if(rc == STORE_OK)
    rc = state_from_word(st, &r->state, state);
  if(rc == STORE_OK)
    rc = store_copy_column(st, r->last_error, sizeof(r->last_error), stmt, 7,
                           "outbox.last_error");
  if(rc)
    return rc;
  text = (const char *)sqlite3_column_text(stmt, 3);
  len = text ? (size_t)sqlite3_column_bytes(stmt, 3) : 0;
  r->message = malloc(len + 1);
  if(!r->message)
    return store_fail(st, STORE_ENOMEM, "outbox_due: out of memory");
  if(len)
    memcpy(r->message, text, len);
  r->message[len] = '\0';
  return STORE_OK;
}

static int outbox_row_fn(struct store *st, sqlite3_stmt *stmt, void *row)
{
  return outbox_row(st, row, stmt);
}

int store_outbox_due(struct store *st, struct store_outbox **rows, size_t *n, int64_t now,
                     size_t max)
{
  struct store_outbox *v = NULL;
  size_t count = 0;
  sqlite3_stmt *stmt = NULL;
  int rc;

  *rows = NULL;
  *n = 0;
  if(max == 0)
    return STORE_OK;
  if((uint64_t)max > (uint64_t)INT64_MAX)
    max = (size_t)INT64_MAX;
  rc = store_prepare(st, &stmt,
                     "SELECT id, game, recipient, message, state, attempts, next_try,"
                     " last_error FROM outbox WHERE state = 'queued' AND next_try <= ?1"
                     " ORDER BY id LIMIT ?2",
                     "outbox_due");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, now, "outbox_due: now");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, (int64_t)max, "outbox_due: max");
  if(rc)
    goto out;
  /* A half-filled last row is freed with the rest (store_collect). */
  {
    void *raw = NULL;
    rc = store_collect(st, stmt, sizeof(struct store_outbox), &raw, &count, outbox_row_fn,
                       "outbox_due");
    v = raw;
  }
out:
  store_finish(st, stmt);
  if(rc) {
    store_outbox_free(v, count);
    v = NULL;
    count = 0;
  }
  *rows = v;
  *n = count;
  return rc;
}

void store_outbox_free(struct store_outbox *rows, size_t n)
{
  size_t i;

  if(!rows)
    return;
  for(i = 0; i < n; i++)
    free(rows[i].message);
  free(rows);
}

int store_outbox_sent(struct store *st, int64_t id, int64_t now)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt, "UPDATE outbox SET state = 'sent', sent = ?1 WHERE id = ?2",
                     "outbox_sent");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, now, "outbox.sent");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 2, id, "outbox.id");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "outbox_sent");
  if(rc == STORE_OK && sqlite3_changes(st->db) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "outbox_sent: no row %lld", (long long)id);
  store_finish(st, stmt);
  return rc;
}

int store_outbox_retry(struct store *st, int64_t id, int64_t next_try, const char *error,
                       bool permanent)
{
  size_t cap = sizeof(((struct store_outbox *)0)->last_error) - 1;
  sqlite3_stmt *stmt = NULL;
  size_t len;
  int rc;

  /* The one deliberate truncation in the store: a server's error text is
   * diagnostics of unbounded length, and refusing to record the failed
   * attempt because of it would lose the attempt count. Cut to what
   * struct store_outbox holds, on a UTF-8 character boundary. */
  if(!error)
    error = "";
  len = strlen(error);
  if(len > cap) {
    len = cap;
    while(len > 0 && ((unsigned char)error[len] & 0xc0) == 0x80)
      len--;
  }
  rc = store_prepare(st, &stmt,
                     "UPDATE outbox SET attempts = attempts + 1, next_try = ?1,"
                     " last_error = ?2,"
                     " state = CASE WHEN ?3 THEN 'failed' ELSE state END"
                     " WHERE id = ?4",
                     "outbox_retry");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 1, next_try, "outbox.next_try");
  if(rc == STORE_OK && sqlite3_bind_text(stmt, 2, error, (int)len, SQLITE_TRANSIENT))
    rc = store_fail_sql(st, sqlite3_errcode(st->db), "outbox.last_error");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 3, permanent ? 1 : 0, "outbox_retry: permanent");
  if(rc == STORE_OK)
    rc = store_bind_int64(st, stmt, 4, id, "outbox.id");
  if(rc == STORE_OK)
    rc = store_step_done(st, stmt, "outbox_retry");
  if(rc == STORE_OK && sqlite3_changes(st->db) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "outbox_retry: no row %lld", (long long)id);
  store_finish(st, stmt);
  return rc;
}

int store_outbox_count(struct store *st, size_t *n, enum store_outbox_state state)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  *n = 0;
  if((unsigned)state >= STATE_COUNT)
    return store_fail(st, STORE_EIO, "outbox_count: state %d is not a known state", (int)state);
  rc = store_prepare(st, &stmt, "SELECT count(*) FROM outbox WHERE state = ?1",
                     "outbox_count");
  if(rc == STORE_OK)
    rc = store_bind_text(st, stmt, 1, state_names[state], "outbox_count: state");
  if(rc)
    goto out;
  rc = sqlite3_step(stmt);
  if(rc != SQLITE_ROW) {
    rc = store_fail_sql(st, rc, "outbox_count");
    goto out;
  }
  *n = (size_t)sqlite3_column_int64(stmt, 0);
  rc = STORE_OK;
out:
  store_finish(st, stmt);
  return rc;
}
