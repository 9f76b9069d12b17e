/*
 * outbox.c: the durable outbox of tabula_store. Contract in store.h; the
 * table is created in schema_sqlite.c / schema_pg.c.
 *
 * Replies are written in the same transaction as the move that caused them
 * and sent afterwards (docs/architecture.md, "commit before replying"), so a
 * crash between commit and send only delays a reply: the row is still
 * queued on restart. Rows leave the queue in creation order (id), so two
 * replies to one player arrive in the order they were composed.
 *
 * Exactly once: a row is sent only by the process holding its
 * claim (outbox.claim, a token whose liveness lock.c can tell). The
 * process that queues a reply claims it in the same transaction, so the
 * usual path costs no transaction of its own; what is left (retries, rows
 * of a process that died) is claimed in one transaction. On SQLite that is
 * BEGIN IMMEDIATE, which no other process can interleave with. On
 * PostgreSQL, where several daemons serve one database, it takes no
 * writers' lock (driver.h begin_rows): each claim locks the rows it takes
 * and passes over those another claim holds (FOR UPDATE SKIP LOCKED), so
 * two daemons claiming at once take disjoint rows, and neither waits for
 * the other's batch of moves (docs/architecture.md, "Several daemons").
 */
#include "store_int.h"

#include <stdlib.h>
#include <string.h>

/* Indexed by enum store_outbox_state; the words are what outbox.state holds. */
static const char *const state_names[] = {"queued", "sent", "failed"};
#define STATE_COUNT (sizeof(state_names) / sizeof(state_names[0]))

static void fresh_add(struct store *st, int64_t id, int64_t game, const char *recipient,
                      const char *message, int64_t now);
static void fresh_truncate(struct store *st, size_t n);
static const struct store_tx_hook fresh_hook;

int store_outbox_add(struct store *st, int64_t *id, int64_t game, const char *recipient,
                     const char *message, int64_t now)
{
  struct store_group g;
  int64_t owner = 0, row = 0;
  int rc;

  if(id)
    *id = 0;
  /* Without a claim token (no lock file: a read-only folder) the row
   * waits unclaimed, and the flush's claim says what is wrong. */
  if(store_owner(st, &owner) != STORE_OK)
    owner = 0;
  /* The list hears of commits and rollbacks from the transaction core;
   * registered before the group begins, so that the group's mark is the
   * list's. */
  store_tx_hook(st, &fresh_hook);
  /* The row and its text (outbox_message, schema v9) both or neither. */
  rc = store_group_begin(st, &g);
  if(rc == STORE_OK)
    rc = store_query_one(st, &row, sizeof(row), store_row_int64,
                         "INSERT INTO outbox(game, recipient, state, attempts, next_try,"
                         " last_error, created, claim) VALUES($1, $2, 'queued', 0, $3, '', $3,"
                         " nullif($4, 0)) RETURNING id",
                         "outbox_add", "itii", game, recipient, now, owner);
  if(rc == STORE_OK) {
    rc = store_run(st, "INSERT INTO outbox_message(id, message) VALUES($1, $2)",
                   "outbox_add: message", "it", row, message);
  }
  /* Kept in memory for this process's flush: only a row it
   * claims, since nobody else may send it. Inside the group: a rollback
   * of it forgets the row again. */
  if(rc == STORE_OK && owner)
    fresh_add(st, row, game, recipient, message, now);
  rc = store_group_end(st, &g, rc);
  if(rc == STORE_OK && id)
    *id = row;
  return rc;
}

/* ---- replies queued by this process, in memory ---- */

static void fresh_add(struct store *st, int64_t id, int64_t game, const char *recipient,
                      const char *message, int64_t now)
{
  struct store_outbox *r;
  size_t n = strlen(recipient);

  /* A row left out is read back from the table instead, and so are the
   * ones after it: the list is handed out only without holes (rows leave
   * in creation order). */
  if(st->fresh_gap || st->nfresh >= STORE_FRESH_MAX || n >= sizeof(r->recipient)) {
    st->fresh_gap = true;
    return;
  }
  if(st->nfresh == st->capfresh) {
    size_t cap = st->capfresh ? 2 * st->capfresh : 64;
    struct store_outbox *p = realloc(st->fresh, cap * sizeof(*p));
    if(!p) {
      st->fresh_gap = true;
      return;
    }
    st->fresh = p;
    st->capfresh = cap;
  }
  r = &st->fresh[st->nfresh];
  memset(r, 0, sizeof(*r));
  if(!(r->message = strdup(message))) {
    st->fresh_gap = true;
    return;
  }
  r->id = id;
  r->game = game;
  r->created = now;
  r->next_try = now;
  r->state = STORE_OUTBOX_QUEUED;
  memcpy(r->recipient, recipient, n + 1);
  st->nfresh++;
  /* Always inside store_outbox_add's group: when that group was the
   * transaction, its commit marks the row committed (store_group_end). */
}

/* The list cut back to its first n (a rollback). */
static void fresh_truncate(struct store *st, size_t n)
{
  while(st->nfresh > n)
    free(st->fresh[--st->nfresh].message);
  if(st->fresh_committed > st->nfresh)
    st->fresh_committed = st->nfresh;
  if(!n)
    st->fresh_gap = false;
}

/* The list committed up to its end. */
static void fresh_committed(struct store *st)
{
  st->fresh_committed = st->nfresh;
}

static size_t fresh_mark(struct store *st)
{
  return st->nfresh;
}

static void fresh_close(struct store *st)
{
  fresh_truncate(st, 0);
  free(st->fresh);
  st->fresh = NULL;
  st->capfresh = 0;
}

static const struct store_tx_hook fresh_hook = {
    .mark = fresh_mark,
    .committed = fresh_committed,
    .undone = fresh_truncate,
    .close = fresh_close,
};

int store_outbox_fresh(struct store *st, struct store_outbox **rows, size_t *n)
{
  bool older;
  int rc;

  *rows = NULL;
  *n = 0;
  /* only between transactions: then every row listed is committed */
  if(!st->nfresh || store_in_tx(st) || st->fresh_committed != st->nfresh ||
     st->fresh_gap) {
    if(!store_in_tx(st))
      fresh_truncate(st, 0);
    return STORE_OK;
  }
  /* A row of this process queued before these and not yet sent (its send
   * failed and waits, say) goes first: rows leave in creation order. Then
   * every row is read back, in order, by store_outbox_claim. */
  rc = store_query_exists(st, &older,
                          "SELECT 1 FROM outbox WHERE claim = $1 AND state = 'queued'"
                          " AND id < $2 LIMIT 1",
                          "outbox_fresh", "ii", st->owner, st->fresh[0].id);
  if(rc || older)
    fresh_truncate(st, 0);
  if(rc || !st->nfresh) {
    fresh_truncate(st, 0);
    return rc;
  }
  *rows = st->fresh;
  *n = st->nfresh;
  st->fresh = NULL;
  st->nfresh = st->capfresh = st->fresh_committed = 0;
  return STORE_OK;
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
static int outbox_row(struct store *st, struct store_outbox *r, const struct store_row *src)
{
  char state[16];
  const char *text;
  size_t len;
  int rc;

  r->id = store_col_int64(src, 0);
  r->game = store_col_int64(src, 1);
  r->attempts = store_col_int(src, 5);
  r->next_try = store_col_int64(src, 6);
  r->created = store_col_int64(src, 8);
  r->in_doubt = store_col_int(src, 9) != 0;
  rc = store_copy_column(st, r->recipient, sizeof(r->recipient), src, 2, "outbox.recipient");
  if(rc == STORE_OK)
    rc = store_copy_column(st, state, sizeof(state), src, 4, "outbox.state");
  if(rc == STORE_OK)
    rc = state_from_word(st, &r->state, state);
  if(rc == STORE_OK)
    rc = store_copy_column(st, r->last_error, sizeof(r->last_error), src, 7,
                           "outbox.last_error");
  if(rc)
    return rc;
  if(store_col_null(src, 3))
    return store_fail(st, STORE_ECORRUPT, "outbox row %lld has no message",
                      (long long)r->id);
  text = store_col_text(src, 3, &len);
  r->message = malloc(len + 1);
  if(!r->message)
    return store_fail(st, STORE_ENOMEM, "outbox_due: out of memory");
  if(len)
    memcpy(r->message, text, len);
  r->message[len] = '\0';
  return STORE_OK;
}

static int outbox_row_fn(struct store *st, const struct store_row *src, void *row)
{
  return outbox_row(st, row, src);
}

/* The text lives in outbox_message (schema v9): a row without one is
 * damage, said as such (outbox_row), not sent empty. */
#define OUTBOX_COLUMNS                                                                        \
  "o.id, o.game, o.recipient, m.message, o.state, o.attempts, o.next_try, o.last_error,"     \
  " o.created, o.in_doubt"
#define OUTBOX_FROM " FROM outbox o LEFT JOIN outbox_message m ON m.id = o.id"

/* The rows of a query (bound $1 and $2) into a fresh array (freed on
 * failure). Not store_query: the rows own their messages. */
static int outbox_collect(struct store *st, struct store_outbox **rows, size_t *n,
                          const char *sql, const char *what, int64_t arg1, int64_t arg2)
{
  struct store_stmt *stmt = NULL;
  void *raw = NULL;
  size_t count = 0;
  int rc = store_prepare_args(st, &stmt, sql, what, "ii", arg1, arg2);

  /* A half-filled last row is freed with the rest (store_collect). */
  if(rc == STORE_OK)
    rc = store_collect(st, stmt, sizeof(struct store_outbox), &raw, &count, outbox_row_fn,
                       what);
  store_finish(st, stmt);
  if(rc) {
    store_outbox_free(raw, count);
    raw = NULL;
    count = 0;
  }
  *rows = raw;
  *n = count;
  return rc;
}

int store_outbox_due(struct store *st, struct store_outbox **rows, size_t *n, int64_t now,
                     size_t max)
{
  *rows = NULL;
  *n = 0;
  if(max == 0)
    return STORE_OK;
  if((uint64_t)max > (uint64_t)INT64_MAX)
    max = (size_t)INT64_MAX;
  return outbox_collect(st, rows, n,
                        "SELECT " OUTBOX_COLUMNS OUTBOX_FROM " WHERE o.state = 'queued'"
                        " AND o.next_try <= $1 ORDER BY o.id LIMIT $2",
                        "outbox_due", now, (int64_t)max);
}

/* This process's claimed, unsent rows, oldest first, at most max. */
static int claimed_rows(struct store *st, struct store_outbox **rows, size_t *n, size_t max)
{
  return outbox_collect(st, rows, n,
                        "SELECT " OUTBOX_COLUMNS OUTBOX_FROM " WHERE o.claim = $1"
                        " AND o.state = 'queued' ORDER BY o.id LIMIT $2",
                        "outbox_claim", st->owner, (int64_t)max);
}

/* Whether a claim transaction could find anything: a due row nobody
 * holds, or a row held by another process (which may have died). A read,
 * so an idle daemon never takes the write lock to learn there is nothing. */
static int claim_worth_it(struct store *st, int64_t now, bool *any)
{
  return store_query_exists(st, any,
                            "SELECT 1 FROM outbox WHERE state = 'queued' AND ((claim IS NULL AND"
                            " next_try <= $1) OR (claim IS NOT NULL AND claim != $2)) LIMIT 1",
                            "outbox_claim: looking", "ii", now, st->owner);
}

/* Inside the claim transaction: rows held by processes that ended go back
 * to the queue, marked in_doubt. */
static int take_over_dead(struct store *st)
{
  struct store_stmt *stmt = NULL;
  struct store_row row;
  int64_t *owners = NULL, *p;
  size_t n = 0, cap = 0, i;
  int rc, r = STORE_OK;

  /* a row loop that asks the lock file of each owner: stepped here */
  rc = store_prepare_args(st, &stmt,
                          "SELECT DISTINCT claim FROM outbox WHERE claim IS NOT NULL"
                          " AND claim != $1 AND state = 'queued'",
                          "outbox_claim: owners", "i", st->owner);
  while(rc == STORE_OK && (r = store_step(st, stmt, &row, "outbox_claim: owners")) == STORE_ROW) {
    int64_t o = store_col_int64(&row, 0);
    if(store_owner_alive(st, o))
      continue;
    p = store_grow(owners, &cap, n, sizeof(*owners));
    if(!p) {
      rc = store_fail(st, STORE_ENOMEM, "outbox_claim: out of memory");
      break;
    }
    owners = p;
    owners[n++] = o;
  }
  if(rc == STORE_OK)
    rc = r; /* STORE_OK at the end, or the step's failure */
  store_finish(st, stmt);
  for(i = 0; rc == STORE_OK && i < n; i++)
    rc = store_run(st,
                   "UPDATE outbox SET claim = NULL, in_doubt = 1"
                   " WHERE claim = $1 AND state = 'queued'",
                   "outbox_claim: taking over", "i", owners[i]);
  free(owners);
  return rc;
}

int store_outbox_claim(struct store *st, struct store_outbox **rows, size_t *n, int64_t now,
                       size_t max)
{
  struct store_group g;
  int64_t owner;
  bool any = false;
  int rc;

  *rows = NULL;
  *n = 0;
  if(max == 0)
    return STORE_OK;
  if((uint64_t)max > (uint64_t)INT64_MAX)
    max = (size_t)INT64_MAX;
  rc = store_owner(st, &owner);
  if(rc == STORE_OK)
    rc = claimed_rows(st, rows, n, max);
  if(rc == STORE_OK && *n < max)
    rc = claim_worth_it(st, now, &any);
  if(rc || !any)
    return rc;
  rc = store_group_begin_rows(st, &g);
  if(rc == STORE_OK)
    rc = take_over_dead(st);
  /* Without SKIP LOCKED, two claims at once on PostgreSQL would both pick
   * the same free rows from their snapshots, and the second, let through
   * when the first committed, would set its token over the first's while
   * the first sends them: one reply twice (test_claims.c,
   * test_claim_skips_locked_rows). The outer `claim IS NULL` is checked
   * again on the row as it is when locked. */
  if(rc == STORE_OK)
    rc = store_run(st,
                   st->drv->skip_locked
                     ? "UPDATE outbox SET claim = $1 WHERE claim IS NULL AND id IN (SELECT id"
                       " FROM outbox WHERE state = 'queued' AND claim IS NULL AND next_try <= $2"
                       " ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED)"
                     : "UPDATE outbox SET claim = $1 WHERE id IN (SELECT id FROM outbox"
                       " WHERE state = 'queued' AND claim IS NULL AND next_try <= $2"
                       " ORDER BY id LIMIT $3)",
                   "outbox_claim", "iii", owner, now, (int64_t)(max - *n));
  rc = store_group_end(st, &g, rc);
  store_outbox_free(*rows, *n);
  *rows = NULL;
  *n = 0;
  if(rc == STORE_OK)
    rc = claimed_rows(st, rows, n, max);
  return rc;
}

int store_outbox_release(struct store *st)
{
  /* given back: another process may send them now */
  if(!store_in_tx(st))
    fresh_truncate(st, 0);
  int rc;

  if(!st->owner)
    return STORE_OK;
  rc = store_run(st, "UPDATE outbox SET claim = NULL WHERE claim = $1 AND state = 'queued'",
                 "outbox_release", "i", st->owner);
  /* the other daemons on the database may send them now: told so */
  if(rc == STORE_OK && store_changes(st) > 0)
    store_wake_others(st);
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
  int rc = store_run(st,
                     "UPDATE outbox SET state = 'sent', sent = $1, claim = NULL WHERE id = $2",
                     "outbox_sent", "ii", now, id);
  if(rc == STORE_OK && store_changes(st) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "outbox_sent: no row %lld", (long long)id);
  return rc;
}

int store_outbox_sent_range(struct store *st, int64_t lo, int64_t hi, int64_t now, size_t *n)
{
  int rc;

  *n = 0;
  if(!st->owner)
    return STORE_OK; /* nothing claimed, nothing of ours to mark */
  rc = store_run(st,
                 "UPDATE outbox SET state = 'sent', sent = $1, claim = NULL"
                 " WHERE id >= $2 AND id <= $3 AND claim = $4 AND state = 'queued'",
                 "outbox_sent_range", "iiii", now, lo, hi, st->owner);
  if(rc == STORE_OK)
    *n = (size_t)store_changes(st);
  return rc;
}

/* Two integer columns of a row; `set` when the first is not NULL. */
struct ints {
  int64_t first, second;
  bool set;
};

static int ints_row(struct store *st, const struct store_row *src, void *row)
{
  struct ints *r = row;
  (void)st;
  r->set = !store_col_null(src, 0);
  r->first = store_col_int64(src, 0);
  if(store_col_count(src) > 1)
    r->second = store_col_int64(src, 1);
  return STORE_OK;
}

int store_outbox_prune(struct store *st, int64_t before, size_t *n)
{
  static const char *const prune_sql[2] = {
      "DELETE FROM outbox_message WHERE id IN (SELECT id FROM outbox WHERE id < $1"
      " AND id < $2 AND state = 'sent' AND sent < $3)",
      "DELETE FROM outbox WHERE id < $1 AND id < $2 AND state = 'sent' AND sent < $3"};
  struct store_group g;
  struct ints r;
  size_t i;
  int64_t top = 0, lo = 0, hi, id = 0;
  bool found;
  int rc;

  *n = 0;
  /* The newest row is never deleted: SQLite gives a new row the highest
   * id + 1, and an id handed out twice would name an old reply's Maildir
   * file (transport.c), which the flush would take for the new one. */
  rc = store_query_maybe(st, &found, &r, sizeof(r), ints_row, "SELECT max(id) FROM outbox",
                         "outbox_prune", "");
  if(rc || !found || !r.set)
    return rc;
  top = r.first;
  /* Ids grow with `created`: the first row created at or after `before`,
   * by halving on ids, bounds the rows to look at. */
  hi = top + 1; /* lo: every row below it is older; the bound is at most hi */
  while(lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    rc = store_query_maybe(st, &found, &r, sizeof(r), ints_row,
                           "SELECT id, created FROM outbox WHERE id >= $1 ORDER BY id LIMIT 1",
                           "outbox_prune", "i", mid);
    if(rc)
      return rc;
    found = found && r.set;
    id = r.first;
    if(!found || r.second >= before)
      hi = mid; /* no row lies in [mid, id) */
    else
      lo = id + 1;
  }
  /* The texts first (they are found by their rows), then the rows, in
   * one transaction. */
  rc = store_group_begin(st, &g);
  for(i = 0; rc == STORE_OK && i < 2; i++) {
    rc = store_run(st, prune_sql[i], "outbox_prune", "iii", lo, top, before);
    if(rc == STORE_OK)
      *n = (size_t)store_changes(st);
  }
  rc = store_group_end(st, &g, rc);
  if(rc)
    *n = 0;
  return rc;
}

int store_outbox_retry(struct store *st, int64_t id, int64_t next_try, const char *error,
                       bool permanent)
{
  size_t cap = sizeof(((struct store_outbox *)0)->last_error) - 1;
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
  rc = store_run(st,
                 "UPDATE outbox SET attempts = attempts + 1, next_try = $1,"
                 " last_error = $2, claim = NULL,"
                 " state = CASE WHEN $3 <> 0 THEN 'failed' ELSE state END"
                 " WHERE id = $4",
                 "outbox_retry", "isii", next_try, error, len, (int64_t)(permanent ? 1 : 0), id);
  if(rc == STORE_OK && store_changes(st) == 0)
    rc = store_fail(st, STORE_ENOTFOUND, "outbox_retry: no row %lld", (long long)id);
  return rc;
}

int store_outbox_count(struct store *st, size_t *n, enum store_outbox_state state)
{
  int64_t count = 0;
  int rc;

  *n = 0;
  if((unsigned)state >= STATE_COUNT)
    return store_fail(st, STORE_EIO, "outbox_count: state %d is not a known state", (int)state);
  rc = store_query_one(st, &count, sizeof(count), store_row_int64,
                       "SELECT count(*) FROM outbox WHERE state = $1", "outbox_count", "t",
                       state_names[state]);
  if(rc == STORE_OK)
    *n = (size_t)count;
  return rc;
}
