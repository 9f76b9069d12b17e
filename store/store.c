/*
 * store.c: opening the SQLite file, schema migrations, transactions, the
 * processed-message table and the kv table of tabula_store (see store.h for
 * the contract, store_int.h for internals; the statement helpers every file
 * shares are in stmt.c).
 *
 * Follows docs/architecture.md "The store": one SQLite file in WAL mode,
 * every write of one message in one transaction. Durability matters more
 * than speed here (a referee handles a few mails a minute), hence
 * synchronous=FULL: a move the player was told about must survive a power
 * cut, and WAL+NORMAL may lose the last commits.
 *
 * Schema versions live in PRAGMA user_version and are migrated forward on
 * open by the ordered migrations[] table below, all steps in one
 * transaction, so a crash mid-migration leaves the old version intact.
 *
 * The other files: games.c (games, seats, players, dice), journal.c (the
 * hash chain and its exact serialisation, journal_hash), outbox.c,
 * clocks.c, confirm.c (confirmations, confirmed addresses).
 */
#include "store_int.h"

#include "base.h"

#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a process waits for another's write transaction: a daemon's
 * batch of batch_max mails can take seconds on a slow machine, and a
 * `deliver` run by an MTA beside it should wait rather than defer the mail;
 * bounded, so nothing waits forever. */
#define STORE_BUSY_TIMEOUT_MS 15000

struct migration {
  int version; /* user_version after this step */
  const char *sql;
};

/* Steps that also move rows in C after their SQL, in the same
 * transaction: where SQL alone would need one engine's string functions
 * (splitting "a b c", reading "SEAT LEVEL"). */
static int move_kv_state(struct store *st);
static const struct {
  int version;
  int (*move)(struct store *st);
} migration_moves[] = {
  {10, move_kv_state},
};

/*
 * Schema steps, oldest first. Never edit a step that has shipped: add a new
 * entry {N+1, "ALTER TABLE ..."} instead, and an old file is brought forward
 * on its next open.
 *
 * v1 design notes:
 * - STRICT tables, so a wrong type from a bug is refused, not stored.
 * - games.phase and outbox.state are words, not enum numbers, so the file
 *   reads well in the sqlite3 shell and survives reordering the C enums.
 * - seats.address references players: store_seat_put registers the player
 *   (created = the game's creation time) so the service never has to.
 * - outbox.game is a plain integer, 0 meaning "not about a game": replies to
 *   unknown senders have no game to reference.
 * - outbox.sent is NULL until the row is sent.
 */
static const struct migration migrations[] = {
  {1, "CREATE TABLE players("
      "  address TEXT PRIMARY KEY,"
      "  created INTEGER NOT NULL"
      ") STRICT;"
      "CREATE TABLE games("
      "  id INTEGER PRIMARY KEY,"
      "  kind TEXT NOT NULL,"
      "  rules_version INTEGER NOT NULL,"
      "  options TEXT NOT NULL,"
      "  phase TEXT NOT NULL"
      "    CHECK(phase IN ('invited', 'active', 'finished', 'cancelled')),"
      "  state TEXT NOT NULL,"
      "  turn INTEGER NOT NULL,"
      "  result TEXT NOT NULL,"
      "  created INTEGER NOT NULL,"
      "  updated INTEGER NOT NULL,"
      "  deadline INTEGER NOT NULL DEFAULT 0,"
      "  draw_offer_seat INTEGER NOT NULL DEFAULT -1"
      ") STRICT;"
      "CREATE TABLE seats("
      "  game INTEGER NOT NULL REFERENCES games(id),"
      "  seat INTEGER NOT NULL CHECK(seat >= 0),"
      "  address TEXT NOT NULL REFERENCES players(address),"
      "  token TEXT NOT NULL UNIQUE,"
      "  accepted INTEGER NOT NULL CHECK(accepted IN (0, 1)),"
      "  entropy TEXT NOT NULL,"
      "  PRIMARY KEY(game, seat)"
      ") STRICT;"
      "CREATE INDEX seats_by_address ON seats(address, game);"
      "CREATE TABLE journal("
      "  game INTEGER NOT NULL REFERENCES games(id),"
      "  seq INTEGER NOT NULL CHECK(seq >= 1),"
      "  time INTEGER NOT NULL,"
      "  seat INTEGER NOT NULL,"
      "  kind TEXT NOT NULL,"
      "  text TEXT NOT NULL,"
      "  dice TEXT NOT NULL,"
      "  prev_hash TEXT NOT NULL,"
      "  hash TEXT NOT NULL,"
      "  PRIMARY KEY(game, seq)"
      ") STRICT;"
      "CREATE TABLE messages("
      "  message_id TEXT PRIMARY KEY,"
      "  digest TEXT NOT NULL,"
      "  received INTEGER NOT NULL,"
      "  outcome TEXT NOT NULL"
      ") STRICT;"
      "CREATE TABLE outbox("
      "  id INTEGER PRIMARY KEY,"
      "  game INTEGER NOT NULL DEFAULT 0,"
      "  recipient TEXT NOT NULL,"
      "  message TEXT NOT NULL,"
      "  state TEXT NOT NULL CHECK(state IN ('queued', 'sent', 'failed')),"
      "  attempts INTEGER NOT NULL DEFAULT 0,"
      "  next_try INTEGER NOT NULL,"
      "  last_error TEXT NOT NULL DEFAULT '',"
      "  created INTEGER NOT NULL,"
      "  sent INTEGER"
      ") STRICT;"
      "CREATE INDEX outbox_due ON outbox(state, next_try);"
      "CREATE TABLE dice("
      "  game INTEGER NOT NULL REFERENCES games(id),"
      "  chain INTEGER NOT NULL CHECK(chain >= 1),"
      "  commitment TEXT NOT NULL,"
      "  secret TEXT NOT NULL,"
      "  n INTEGER NOT NULL,"
      "  next_index INTEGER NOT NULL,"
      "  entropy TEXT NOT NULL,"
      "  roll_count INTEGER NOT NULL,"
      "  PRIMARY KEY(game, chain)"
      ") STRICT;"
      "CREATE TABLE kv("
      "  key TEXT PRIMARY KEY,"
      "  value TEXT NOT NULL"
      ") STRICT;"},
  /* v2 (clocks.c): the clock of each game (seat whose time runs,
   * when it started, reminders sent as bits), vacations as whole UTC days
   * (days since 1970-01-01, inclusive), the digest preference and the
   * queue of mails held back for a player's daily digest. */
  {2, "CREATE TABLE clocks("
      "  game INTEGER PRIMARY KEY REFERENCES games(id),"
      "  days INTEGER NOT NULL CHECK(days >= 1),"
      "  weekends INTEGER NOT NULL CHECK(weekends IN (0, 1)),"
      "  seat INTEGER NOT NULL,"
      "  moves INTEGER NOT NULL,"
      "  started INTEGER NOT NULL,"
      "  deadline INTEGER NOT NULL,"
      "  reminded INTEGER NOT NULL"
      ") STRICT;"
      "CREATE TABLE vacations("
      "  id INTEGER PRIMARY KEY,"
      "  address TEXT NOT NULL REFERENCES players(address),"
      "  first_day INTEGER NOT NULL,"
      "  last_day INTEGER NOT NULL CHECK(last_day >= first_day),"
      "  created INTEGER NOT NULL"
      ") STRICT;"
      "CREATE INDEX vacations_by_address ON vacations(address, first_day);"
      "CREATE TABLE prefs("
      "  address TEXT PRIMARY KEY REFERENCES players(address),"
      "  digest INTEGER NOT NULL CHECK(digest IN (0, 1))"
      ") STRICT;"
      "CREATE TABLE digest("
      "  id INTEGER PRIMARY KEY,"
      "  address TEXT NOT NULL,"
      "  game INTEGER NOT NULL,"
      "  created INTEGER NOT NULL,"
      "  subject TEXT NOT NULL,"
      "  reply_to TEXT NOT NULL,"
      "  body TEXT NOT NULL"
      ") STRICT;"
      "CREATE INDEX digest_by_address ON digest(address, id);"},
  /* v3 (every reply exactly once): outbox.claim is the token of
   * the process that holds the row to send it (lock.c: that process holds
   * byte 1 + claim of PATH.lock while it lives), NULL when nobody does;
   * in_doubt marks a row taken over from a process that died holding it,
   * which may have sent it. The store's random id names replies uniquely
   * across stores (the Maildir sink's file names). */
  {3, "ALTER TABLE outbox ADD COLUMN claim INTEGER;"
      "ALTER TABLE outbox ADD COLUMN in_doubt INTEGER NOT NULL DEFAULT 0"
      "  CHECK(in_doubt IN (0, 1));"
      "CREATE INDEX outbox_claimed ON outbox(claim) WHERE claim IS NOT NULL;"
      "INSERT OR IGNORE INTO kv(key, value) VALUES('store id', lower(hex(randomblob(8))));"},
  /* v4 (confirm.c: nothing to an address that has not asked):
   * the requests waiting for their one-time key to come back from their
   * address (`new` or `observe`, the command line as written), and the
   * addresses that have answered one of our mails. Those already in the
   * journal as answering a keyed mail (accept, decline, a move, an action
   * or an offer by their seat) count as having answered. */
  {4, "CREATE TABLE confirmations("
      "  key TEXT PRIMARY KEY,"
      "  address TEXT NOT NULL COLLATE NOCASE,"
      "  kind TEXT NOT NULL CHECK(kind IN ('new', 'observe')),"
      "  request TEXT NOT NULL,"
      "  game INTEGER NOT NULL DEFAULT 0,"
      "  created INTEGER NOT NULL,"
      "  expires INTEGER NOT NULL"
      ") STRICT;"
      "CREATE INDEX confirmations_by_expiry ON confirmations(expires);"
      "CREATE TABLE confirmed("
      "  address TEXT PRIMARY KEY COLLATE NOCASE,"
      "  since INTEGER NOT NULL,"
      "  how TEXT NOT NULL"
      ") STRICT;"
      "INSERT OR IGNORE INTO confirmed(address, since, how)"
      "  SELECT s.address, min(j.time), 'answered before schema v4'"
      "  FROM seats s JOIN journal j ON j.game = s.game AND j.seat = s.seat"
      "  WHERE j.kind IN ('accept', 'decline', 'move', 'action', 'offer')"
      "  GROUP BY s.address;"},
  /* v5 (a mail costs less than a process start):
   * - outbox rebuilt with the same columns: its CHECKs without IN lists
   *   (SQLite runs a constant IN list through a temporary table at every
   *   insert, and at every update that sets the column), the message last
   *   (an update of the state reads and rewrites less), and the due index
   *   over queued rows only. Row ids name the Maildir files (transport.c):
   *   store_outbox_prune never deletes the newest row, so SQLite never
   *   hands an id out twice;
   * - games.snapshot: the rules' state as of a journal entry, checked
   *   against that entry's hash when a game is loaded (referee/games/game.c), so
   *   a mail replays nothing, or the few entries after the snapshot;
   * - clocks.next_event: the earliest moment something may be due (a
   *   lower bound, 0 = look now), so the tick reads only what is due;
   * - the invitations waiting, by creation time, for the same reason;
   * - dice.checkpoints: every 64th key of a chain, so a roll hashes at most
   *   63 times instead of up to 8,192 (the secret's equals: never shown). */
  {5, "CREATE TABLE outbox_v5("
      "  id INTEGER PRIMARY KEY,"
      "  game INTEGER NOT NULL DEFAULT 0,"
      "  recipient TEXT NOT NULL,"
      "  state TEXT NOT NULL CHECK(state = 'queued' OR state = 'sent' OR state = 'failed'),"
      "  attempts INTEGER NOT NULL DEFAULT 0,"
      "  next_try INTEGER NOT NULL,"
      "  last_error TEXT NOT NULL DEFAULT '',"
      "  created INTEGER NOT NULL,"
      "  sent INTEGER,"
      "  claim INTEGER,"
      "  in_doubt INTEGER NOT NULL DEFAULT 0 CHECK(in_doubt = 0 OR in_doubt = 1),"
      "  message TEXT NOT NULL"
      ") STRICT;"
      "INSERT INTO outbox_v5(id, game, recipient, state, attempts, next_try, last_error,"
      "  created, sent, claim, in_doubt, message)"
      "  SELECT id, game, recipient, state, attempts, next_try, last_error, created, sent,"
      "  claim, in_doubt, message FROM outbox;"
      "DROP TABLE outbox;"
      "ALTER TABLE outbox_v5 RENAME TO outbox;"
      "CREATE INDEX outbox_due ON outbox(next_try) WHERE state = 'queued';"
      "CREATE INDEX outbox_claimed ON outbox(claim) WHERE claim IS NOT NULL;"
      "ALTER TABLE games ADD COLUMN snapshot BLOB;"
      "CREATE INDEX games_invited ON games(created) WHERE phase = 'invited';"
      "ALTER TABLE clocks ADD COLUMN next_event INTEGER;"
      "UPDATE clocks SET next_event = 0 WHERE seat >= 0;"
      "CREATE INDEX clocks_due ON clocks(next_event) WHERE next_event IS NOT NULL;"
      "ALTER TABLE dice ADD COLUMN checkpoints BLOB;"},
  /* v6 (compete.c): competition. `ratings` is derived data, one
   * Glicko-2 rating per player per game system, rebuilt from the journals
   * on demand (`tabula check` compares); REAL columns keep the doubles
   * exactly. A backgammon match is its games in order (match_games), its
   * score recounted from their journals; phase and winner are set when it
   * ends. A round robin is its players (by starting number) and its games,
   * all created at once; `finished` is when the final table went out (0
   * before), so it goes out once. */
  {6, "CREATE TABLE ratings("
      "  kind TEXT NOT NULL,"
      "  address TEXT NOT NULL,"
      "  rating REAL NOT NULL,"
      "  rd REAL NOT NULL,"
      "  volatility REAL NOT NULL,"
      "  games INTEGER NOT NULL,"
      "  wins INTEGER NOT NULL,"
      "  draws INTEGER NOT NULL,"
      "  losses INTEGER NOT NULL,"
      "  last_ended INTEGER NOT NULL,"
      "  last_unit INTEGER NOT NULL,"
      "  PRIMARY KEY(kind, address)"
      ") STRICT;"
      "CREATE TABLE matches("
      "  id INTEGER PRIMARY KEY,"
      "  length INTEGER NOT NULL CHECK(length >= 1),"
      "  phase TEXT NOT NULL CHECK(phase IN ('playing', 'finished')),"
      "  winner INTEGER NOT NULL,"
      "  created INTEGER NOT NULL"
      ") STRICT;"
      "CREATE TABLE match_games("
      "  match INTEGER NOT NULL REFERENCES matches(id),"
      "  number INTEGER NOT NULL CHECK(number >= 1),"
      "  game INTEGER NOT NULL UNIQUE REFERENCES games(id),"
      "  PRIMARY KEY(match, number)"
      ") STRICT;"
      "CREATE TABLE tournaments("
      "  id INTEGER PRIMARY KEY,"
      "  name TEXT NOT NULL UNIQUE,"
      "  kind TEXT NOT NULL,"
      "  options TEXT NOT NULL,"
      "  cycles INTEGER NOT NULL CHECK(cycles IN (1, 2)),"
      "  organizer TEXT NOT NULL,"
      "  phase TEXT NOT NULL"
      "    CHECK(phase IN ('invited', 'playing', 'finished', 'cancelled')),"
      "  created INTEGER NOT NULL,"
      "  finished INTEGER NOT NULL DEFAULT 0"
      ") STRICT;"
      "CREATE TABLE tournament_players("
      "  tournament INTEGER NOT NULL REFERENCES tournaments(id),"
      "  number INTEGER NOT NULL CHECK(number >= 1),"
      "  address TEXT NOT NULL,"
      "  PRIMARY KEY(tournament, number),"
      "  UNIQUE(tournament, address)"
      ") STRICT;"
      "CREATE TABLE tournament_games("
      "  tournament INTEGER NOT NULL REFERENCES tournaments(id),"
      "  game INTEGER NOT NULL UNIQUE REFERENCES games(id),"
      "  round INTEGER NOT NULL,"
      "  PRIMARY KEY(tournament, game)"
      ") STRICT;"},
  /* v7 (comfort by mail):
   * - conditionals: a player's prepared lines in one game ("if Nf6 then
   *   e5", "if Nf6 e5 then Nd5"), one row per branch. `plies` are the
   *   moves as the rules format them, space-separated, starting with the
   *   opponent's expected move and alternating; `line` is the line as the
   *   player wrote it, for `conditionals`; `ply` the game's ply count when
   *   it was sent (what the first expected move answers). A branch is
   *   deleted when it is played out, discarded or cleared; never shown to
   *   the opponent (cmd_conditional.c);
   * - seeks: an open request for an opponent from a confirmed address
   *   (`seek GAME [days=N] [rated|unrated]`): `options` as `new` stores
   *   them; paired (with `game` the game it started), expired or withdrawn
   *   (cmd_seek.c). */
  {7, "CREATE TABLE conditionals("
      "  id INTEGER PRIMARY KEY,"
      "  game INTEGER NOT NULL REFERENCES games(id),"
      "  seat INTEGER NOT NULL CHECK(seat >= 0),"
      "  ply INTEGER NOT NULL,"
      "  plies TEXT NOT NULL,"
      "  line TEXT NOT NULL,"
      "  created INTEGER NOT NULL"
      ") STRICT;"
      "CREATE INDEX conditionals_by_game ON conditionals(game, seat, id);"
      "CREATE TABLE seeks("
      "  id INTEGER PRIMARY KEY,"
      "  address TEXT NOT NULL COLLATE NOCASE,"
      "  kind TEXT NOT NULL,"
      "  options TEXT NOT NULL,"
      "  days INTEGER NOT NULL CHECK(days >= 0),"
      "  rated INTEGER NOT NULL CHECK(rated = 0 OR rated = 1),"
      "  created INTEGER NOT NULL,"
      "  expires INTEGER NOT NULL,"
      "  phase TEXT NOT NULL"
      "    CHECK(phase = 'open' OR phase = 'paired' OR phase = 'expired' OR phase = 'withdrawn'),"
      "  game INTEGER NOT NULL DEFAULT 0"
      ") STRICT;"
      "CREATE INDEX seeks_open ON seeks(kind, created) WHERE phase = 'open';"
      "CREATE INDEX seeks_expiry ON seeks(expires) WHERE phase = 'open';"
      "CREATE INDEX seeks_by_address ON seeks(address) WHERE phase = 'open';"},
  /* v8: confirmation requests of more kinds. `keyless`: the
   * action of a player's mail without a game's key, done once the player
   * confirms it from the address of record (referee/handlers/cmd_keyless.c);
   * `seek` and `tournament` for the requests of those commands. SQLite
   * cannot change a CHECK in place: the table is rebuilt, rows kept. */
  {8, "CREATE TABLE confirmations_v8("
      "  key TEXT PRIMARY KEY,"
      "  address TEXT NOT NULL COLLATE NOCASE,"
      "  kind TEXT NOT NULL"
      "    CHECK(kind IN ('new', 'observe', 'keyless', 'seek', 'tournament')),"
      "  request TEXT NOT NULL,"
      "  game INTEGER NOT NULL DEFAULT 0,"
      "  created INTEGER NOT NULL,"
      "  expires INTEGER NOT NULL"
      ") STRICT;"
      "INSERT INTO confirmations_v8(key, address, kind, request, game, created, expires)"
      "  SELECT key, address, kind, request, game, created, expires FROM confirmations;"
      "DROP TABLE confirmations;"
      "ALTER TABLE confirmations_v8 RENAME TO confirmations;"
      "CREATE INDEX confirmations_by_expiry ON confirmations(expires);"},
  /* v9: a reply's text in a table of its own, keyed by the
   * outbox row's id. The outbox row changes several times (claimed, sent,
   * retried, taken over in doubt) and SQLite rewrites a row whose size
   * changes whole, overflow pages and all: the sent mark of a 9.7 KB
   * reply wrote ~10 KB to the WAL (and again at the checkpoint), now
   * ~100 bytes. The text is written once, with its row, in the same
   * transaction (store_outbox_add), read with it (a join) and deleted with
   * it (store_outbox_prune). */
  {9, "CREATE TABLE outbox_message("
      "  id INTEGER PRIMARY KEY,"
      "  message TEXT NOT NULL"
      ") STRICT;"
      "INSERT INTO outbox_message(id, message) SELECT id, message FROM outbox;"
      "ALTER TABLE outbox DROP COLUMN message;"},
  /* v10 (game state in the schema): what the service kept as strings in
   * kv ("resign:GAME" = "SEAT LEVEL", "observers:GAME" = "a b c", ...),
   * where no constraint held it, `tabula check` could not see it and no
   * migration could reach it, gets a table each, referring to the game,
   * seat or player it belongs to (gamestate.c). move_kv_state moves the
   * rows over, read as the service read them, and deletes them from kv;
   * kv keeps the installation's own keys (the store id, the mail
   * sources' positions). observers.id keeps the order they came in
   * (mails to observers go out in it). */
  {10, "CREATE TABLE resign_offers("
       "  game INTEGER PRIMARY KEY REFERENCES games(id),"
       "  seat INTEGER NOT NULL CHECK(seat >= 0),"
       "  level INTEGER NOT NULL CHECK(level >= 1 AND level <= 3),"
       "  FOREIGN KEY(game, seat) REFERENCES seats(game, seat)"
       ") STRICT;"
       "CREATE TABLE takeback_requests("
       "  game INTEGER PRIMARY KEY REFERENCES games(id),"
       "  seat INTEGER NOT NULL CHECK(seat >= 0),"
       "  seq INTEGER NOT NULL CHECK(seq >= 1),"
       "  FOREIGN KEY(game, seat) REFERENCES seats(game, seat)"
       ") STRICT;"
       "CREATE TABLE standing_rolls("
       "  game INTEGER NOT NULL REFERENCES games(id),"
       "  seat INTEGER NOT NULL CHECK(seat >= 0),"
       "  PRIMARY KEY(game, seat),"
       "  FOREIGN KEY(game, seat) REFERENCES seats(game, seat)"
       ") STRICT;"
       "CREATE TABLE cube_answers("
       "  game INTEGER NOT NULL REFERENCES games(id),"
       "  seat INTEGER NOT NULL CHECK(seat >= 0),"
       "  answer TEXT NOT NULL CHECK(answer = 'take' OR answer = 'drop'),"
       "  PRIMARY KEY(game, seat),"
       "  FOREIGN KEY(game, seat) REFERENCES seats(game, seat)"
       ") STRICT;"
       "CREATE TABLE observers("
       "  id INTEGER PRIMARY KEY,"
       "  game INTEGER NOT NULL REFERENCES games(id),"
       "  address TEXT NOT NULL CHECK(address <> ''),"
       "  UNIQUE(game, address)"
       ") STRICT;"
       "CREATE TABLE private_games("
       "  game INTEGER PRIMARY KEY REFERENCES games(id)"
       ") STRICT;"
       "CREATE TABLE public_comment_games("
       "  game INTEGER PRIMARY KEY REFERENCES games(id)"
       ") STRICT;"
       "CREATE TABLE comments_off("
       "  address TEXT PRIMARY KEY REFERENCES players(address)"
       ") STRICT;"
       "CREATE TABLE dice_protocols("
       "  game INTEGER PRIMARY KEY REFERENCES games(id),"
       "  version INTEGER NOT NULL CHECK(version >= 1 AND version <= 2)"
       ") STRICT;"
       "CREATE TABLE lag_previews("
       "  game INTEGER PRIMARY KEY REFERENCES games(id),"
       "  roll INTEGER NOT NULL CHECK(roll >= 0)"
       ") STRICT;"
       "CREATE TABLE hourly_counts("
       "  counter TEXT NOT NULL"
       "    CHECK(counter = 'rate' OR counter = 'unasked' OR counter = 'strangers'),"
       "  address TEXT NOT NULL,"
       "  start INTEGER NOT NULL,"
       "  count INTEGER NOT NULL CHECK(count >= 0),"
       "  PRIMARY KEY(counter, address)"
       ") STRICT;"},
};

#define STORE_SCHEMA_LATEST (migrations[sizeof(migrations) / sizeof(migrations[0]) - 1].version)

/* ---- the transaction hook (store_int.h) ---- */

void store_tx_hook(struct store *st, const struct store_tx_hook *hook)
{
  st->hook = hook;
}

static size_t tx_mark(struct store *st)
{
  return st->hook ? st->hook->mark(st) : 0;
}

static void tx_committed(struct store *st)
{
  if(st->hook)
    st->hook->committed(st);
}

static void tx_undone(struct store *st, size_t mark)
{
  if(st->hook)
    st->hook->undone(st, mark);
}

static int exec_sql(struct store *st, const char *sql, const char *what)
{
  int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

  if(rc != SQLITE_OK)
    return store_fail_sql(st, rc, what);
  return STORE_OK;
}

/* One statement from the cache, run to its end: the transaction and
 * savepoint statements run several times a message, and sqlite3_exec
 * parses them anew each time. */
static int run_sql(struct store *st, const char *sql, const char *what)
{
  return store_run(st, sql, what, "");
}

int store_group_begin(struct store *st, struct store_group *g)
{
  int rc;

  g->own_tx = sqlite3_get_autocommit(st->db) != 0;
  g->active = false;
  g->mark = tx_mark(st);
  if(g->own_tx)
    rc = run_sql(st, "BEGIN IMMEDIATE", "begin");
  else
    rc = run_sql(st, "SAVEPOINT store_group", "savepoint");
  if(rc == STORE_OK)
    g->active = true;
  return rc;
}

int store_group_end(struct store *st, struct store_group *g, int rc)
{
  int rc2;

  if(!g->active)
    return rc;
  g->active = false;
  if(rc == STORE_OK) {
    if(g->own_tx)
      rc2 = run_sql(st, "COMMIT", "commit");
    else
      rc2 = run_sql(st, "RELEASE store_group", "release savepoint");
    if(rc2 == STORE_OK) {
      if(g->own_tx)
        tx_committed(st);
      return STORE_OK;
    }
    rc = rc2;
  }
  tx_undone(st, g->mark);
  /* Undo without overwriting the first error's text: that is the one the
   * operator needs. */
  if(g->own_tx) {
    if(!sqlite3_get_autocommit(st->db))
      sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  }
  else {
    sqlite3_exec(st->db, "ROLLBACK TO store_group; RELEASE store_group", NULL, NULL, NULL);
  }
  return rc;
}

/* ---- open, migrate, close ---- */

static int read_user_version(struct store *st, int *version)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt, "PRAGMA user_version", "reading the schema version");
  if(rc)
    goto out;
  if(sqlite3_step(stmt) != SQLITE_ROW) {
    rc = store_fail_sql(st, sqlite3_errcode(st->db), "reading the schema version");
    goto out;
  }
  *version = sqlite3_column_int(stmt, 0);
out:
  store_finish(st, stmt);
  return rc;
}

static int refuse_newer(struct store *st, int version)
{
  return store_fail(st, STORE_ECORRUPT,
                    "database schema version %d is newer than this tabula understands "
                    "(up to %d); upgrade tabula or use a matching database",
                    version, STORE_SCHEMA_LATEST);
}

/* Applies every step above the file's version inside one BEGIN IMMEDIATE, so
 * two processes opening a fresh file cannot both migrate, and a failed step
 * leaves the file as it was. */
static int migrate(struct store *st)
{
  char pragma[48];
  int version = 0;
  size_t i, j;
  int rc;

  rc = exec_sql(st, "BEGIN IMMEDIATE", "beginning the schema migration");
  if(rc)
    return rc;
  rc = read_user_version(st, &version);
  if(rc)
    goto out;
  if(version > STORE_SCHEMA_LATEST) {
    rc = refuse_newer(st, version);
    goto out;
  }
  if(version < 0) {
    rc = store_fail(st, STORE_ECORRUPT, "database schema version %d is not valid", version);
    goto out;
  }
  for(i = 0; i < sizeof(migrations) / sizeof(migrations[0]); i++) {
    if(migrations[i].version <= version)
      continue;
    rc = exec_sql(st, migrations[i].sql, "migrating the schema");
    for(j = 0; rc == STORE_OK && j < sizeof(migration_moves) / sizeof(migration_moves[0]); j++)
      if(migration_moves[j].version == migrations[i].version)
        rc = migration_moves[j].move(st);
    if(rc)
      goto out;
    /* PRAGMA takes no bound parameters; the number comes from the table
     * above, never from outside. */
    snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %d", migrations[i].version);
    rc = exec_sql(st, pragma, "recording the schema version");
    if(rc)
      goto out;
  }
  rc = exec_sql(st, "COMMIT", "committing the schema migration");
out:
  if(rc && !sqlite3_get_autocommit(st->db))
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  return rc;
}

/* Reads back a one-row PRAGMA as text into buf. */
static int pragma_text(struct store *st, char *buf, size_t cap, const char *sql)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  rc = store_prepare(st, &stmt, sql, "setting up the connection");
  if(rc)
    goto out;
  if(sqlite3_step(stmt) != SQLITE_ROW) {
    rc = store_fail_sql(st, sqlite3_errcode(st->db), "setting up the connection");
    goto out;
  }
  rc = store_copy_column(st, buf, cap, stmt, 0, "pragma result");
out:
  store_finish(st, stmt);
  return rc;
}

static int configure(struct store *st)
{
  char value[32];
  int version = 0;
  int rc;

  sqlite3_extended_result_codes(st->db, 1);
  sqlite3_busy_timeout(st->db, STORE_BUSY_TIMEOUT_MS);
  /* Defensive mode: no writable_schema tricks through this connection. */
  sqlite3_db_config(st->db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);

  /* Check the version before anything writes to the file, so a newer
   * database is refused untouched (not even switched to WAL). */
  rc = read_user_version(st, &version);
  if(rc)
    return rc;
  if(version > STORE_SCHEMA_LATEST)
    return refuse_newer(st, version);

  rc = exec_sql(st, "PRAGMA foreign_keys = ON", "enabling foreign keys");
  if(rc == STORE_OK)
    rc = pragma_text(st, value, sizeof(value), "PRAGMA foreign_keys");
  if(rc)
    return rc;
  if(strcmp(value, "1"))
    return store_fail(st, STORE_EIO, "this SQLite cannot enforce foreign keys");

  rc = pragma_text(st, value, sizeof(value), "PRAGMA journal_mode = WAL");
  if(rc)
    return rc;
  /* An in-memory database (tests) reports "memory" and has nothing to
   * protect; a file that stays in rollback mode would break the durability
   * and concurrency the service counts on. */
  if(strcmp(value, "wal") && strcmp(value, "memory"))
    return store_fail(st, STORE_EIO, "cannot switch the database to WAL mode (got %s)", value);

  rc = exec_sql(st, "PRAGMA synchronous = FULL", "setting synchronous=FULL");
  if(rc)
    return rc;
  /* The WAL and its index stay beside the database between processes:
   * each `deliver` used to create db-wal and db-shm and unlink
   * both at its close, ~0.75 ms of a 10 ms deliver in the kernel (a new
   * inode each, the WAL's blocks freed). The close still checkpoints
   * everything into the database file, durably, and then, because
   * journal_size_limit is set, truncates the WAL to 0 bytes: a copy of the
   * database file alone still holds every move, and no frame is left
   * behind. The syncs are the same (daemon.c). SQLite gives both files
   * the database file's owner and mode, as before. The limit also shrinks
   * a WAL a long batch grew, at the daemon's next checkpoint. An in-memory
   * database has no file: the file control says SQLITE_NOTFOUND. */
  {
    int one = 1;
    (void)sqlite3_file_control(st->db, "main", SQLITE_FCNTL_PERSIST_WAL, &one);
  }
  rc = exec_sql(st, "PRAGMA journal_size_limit = 16777216", "limiting the WAL");
  if(rc)
    return rc;
  /* A batch (store_batch_begin) holds hundreds of messages, each in a
   * savepoint: keep savepoint journals in memory and give the page cache
   * room for a whole batch, so pages are written once, at the commit,
   * instead of spilled and re-journaled. Durability is unchanged. A batch
   * of 256 moves dirties about 1,500 pages (6 MiB) on a store of a million
   * games; 8 MiB holds it, and keeps the daemon small (64 MiB
   * made it 83 MB). */
  rc = exec_sql(st, "PRAGMA temp_store = MEMORY; PRAGMA cache_size = -8192",
                "sizing the page cache");
  if(rc)
    return rc;
  /* Up to date: no need for the write lock migrate() takes. */
  if(version == STORE_SCHEMA_LATEST)
    return STORE_OK;
  return migrate(st);
}

int store_open(struct store **out, const char *path, char *errbuf, size_t errcap)
{
  struct store *st = NULL;
  int rc, waited;

  *out = NULL;
  if(errbuf && errcap)
    errbuf[0] = '\0';
  st = calloc(1, sizeof(*st));
  if(st) {
    st->lock_fd = -1;
    /* lock.c's PATH.lock lies beside a real file only */
    if(path[0] && strcmp(path, ":memory:") && strncmp(path, "file:", 5) &&
       !(st->path = strdup(path))) {
      free(st);
      st = NULL;
    }
  }
  if(!st) {
    if(errbuf && errcap)
      snprintf(errbuf, errcap, "out of memory");
    return STORE_ENOMEM;
  }
  /* One thread per connection (the store is single-threaded): no mutex
   * calls, ~900 of them a move before. */
  rc = sqlite3_open_v2(path, &st->db,
                       SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if(rc != SQLITE_OK) {
    rc = store_fail_sql(st, rc, "opening the database");
    goto out;
  }
  if(st->path) {
    /* SQLite's full name of the file: symlinks (also one whose target it
     * just created) and `..` resolved, as it names the -wal and -shm */
    const char *real = sqlite3_db_filename(st->db, "main");
    if(!(st->real_path = strdup(real && real[0] ? real : st->path))) {
      rc = store_fail(st, STORE_ENOMEM, "out of memory");
      goto out;
    }
  }
  /* SQLite does not always call the busy handler while a connection sets
   * itself up (a WAL index being rebuilt or checkpointed away by another
   * process's close): a `deliver` started by an MTA beside others would
   * fail with "database is locked". configure() only reads and
   * sets up, so it is tried again, up to the busy timeout. */
  for(waited = 0;; waited += 20) {
    struct timespec pause = {0, 20 * 1000000L};
    rc = configure(st);
    if(rc != STORE_EBUSY || waited >= STORE_BUSY_TIMEOUT_MS)
      break;
    nanosleep(&pause, NULL);
  }
out:
  if(rc) {
    if(errbuf && errcap)
      snprintf(errbuf, errcap, "%s", st->err);
    store_close(st);
    return rc;
  }
  *out = st;
  return STORE_OK;
}

#define STORE_CHECKPOINT_PAGES 1000 /* SQLite's own wal_autocheckpoint */

/* In place of SQLite's automatic checkpoint: only notes the WAL's length. */
static int wal_noted(void *arg, sqlite3 *db, const char *name, int pages)
{
  struct store *st = arg;
  (void)db;
  (void)name;
  st->wal_pages = pages;
  return SQLITE_OK;
}

void store_checkpoint_later(struct store *st)
{
  if(st)
    sqlite3_wal_hook(st->db, wal_noted, st);
}

int store_checkpoint_idle(struct store *st)
{
  int rc;

  if(!st || st->wal_pages < STORE_CHECKPOINT_PAGES || st->batch ||
     !sqlite3_get_autocommit(st->db))
    return STORE_OK;
  rc = sqlite3_wal_checkpoint_v2(st->db, "main", SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
  if(rc != SQLITE_OK && rc != SQLITE_BUSY)
    return store_fail_sql(st, rc, "checkpointing the WAL");
  st->wal_pages = 0; /* the next commit says how long the WAL is now */
  return STORE_OK;
}

void store_close(struct store *st)
{
  if(!st)
    return;
  /* Every other statement went back through store_finish, so once the
   * cache is finalized plain close succeeds; an open transaction is rolled
   * back by SQLite. */
  while(st->ncache)
    sqlite3_finalize(st->cache[--st->ncache].stmt);
  if(st->hook && st->hook->close)
    st->hook->close(st);
  sqlite3_close(st->db);
  store_lock_close(st);
  free(st->path);
  free(st->real_path);
  free(st);
}

const char *store_errmsg(const struct store *st)
{
  if(!st)
    return "no store";
  return st->err;
}

int store_schema_version(struct store *st)
{
  int version = 0;
  int rc = read_user_version(st, &version);

  if(rc)
    return rc;
  return version;
}

const char *store_id(struct store *st)
{
  if(!st->id[0] && store_kv_get(st, st->id, sizeof(st->id), "store id") != STORE_OK)
    st->id[0] = '\0';
  return st->id[0] ? st->id : "0000000000000000";
}

/* The ceiling of store_integrity_check's text: SQLite stops at 100
 * problems a check, each line under 800 bytes, and a store has a few dozen
 * tables. */
#define INTEGRITY_TEXT_MAX (16u * 1024u * 1024u)

/* The rows of an integrity_check that are not "ok", after prefix; returns
 * the SQLite code that ended it (SQLITE_DONE when it ran through). */
static int integrity_rows(struct store *st, const char *sql, const char *prefix,
                          struct base_buf *l)
{
  sqlite3_stmt *stmt = NULL;
  int rc = sqlite3_prepare_v2(st->db, sql, -1, &stmt, NULL);

  while(rc == SQLITE_OK || rc == SQLITE_ROW) {
    const char *line;
    rc = sqlite3_step(stmt);
    if(rc != SQLITE_ROW)
      break;
    line = (const char *)sqlite3_column_text(stmt, 0);
    /* a row may hold several lines, headed "*** in database main ***" */
    while(line && *line && strcmp(line, "ok")) {
      const char *nl = strchr(line, '\n');
      size_t n = nl ? (size_t)(nl - line) : strlen(line);
      char one[600];
      snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), line);
      if(strncmp(one, "*** in database", 15) && base_buf_printf(l, "%s%s\n", prefix, one))
        break; /* the error sticks in l: store_integrity_check reports it */
      line = nl ? nl + 1 : NULL;
    }
  }
  sqlite3_finalize(stmt);
  return rc;
}

int store_integrity_check(struct store *st, char **problems)
{
  struct base_buf l;
  sqlite3_stmt *stmt = NULL;
  int rc;

  *problems = NULL;
  base_buf_init(&l, INTEGRITY_TEXT_MAX);
  rc = integrity_rows(st, "PRAGMA integrity_check(100)", "", &l);
  if(rc != SQLITE_DONE) {
    base_buf_reset(&l); /* partial: the tables one by one say it better */
    /* The check itself stumbled on a damaged page: check each table with
     * its indexes alone (SQLite 3.33+), so the operator learns which. */
    rc = sqlite3_prepare_v2(st->db,
                            "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name",
                            -1, &stmt, NULL);
    while(rc == SQLITE_OK || rc == SQLITE_ROW) {
      char sql[200], prefix[160];
      const char *name;
      rc = sqlite3_step(stmt);
      if(rc != SQLITE_ROW)
        break;
      name = (const char *)sqlite3_column_text(stmt, 0);
      /* names come from our own schema: plain words, no quotes */
      if(!name || strlen(name) > 100 || strchr(name, '"'))
        continue;
      snprintf(sql, sizeof(sql), "PRAGMA integrity_check(\"%s\")", name);
      snprintf(prefix, sizeof(prefix), "table %s: ", name);
      if(integrity_rows(st, sql, prefix, &l) != SQLITE_DONE && /* its pages cannot be walked */
         base_buf_printf(&l, "%s%s\n", prefix, sqlite3_errmsg(st->db)))
        continue; /* the error sticks in l: reported below */
    }
    if(rc != SQLITE_DONE) {
      rc = store_fail_sql(st, rc, "integrity check: reading the schema");
      sqlite3_finalize(stmt);
      base_buf_free(&l);
      return rc;
    }
    sqlite3_finalize(stmt);
  }
  if(l.len)
    l.s[--l.len] = '\0'; /* no newline after the last line */
  *problems = base_buf_take(&l);
  if(!*problems)
    return store_fail(st, STORE_ENOMEM,
                      base_buf_err(&l) == BASE_BUF_ETOOBIG
                        ? "integrity check: too many problems to list"
                        : "integrity check: out of memory");
  return STORE_OK;
}

/* ---- transactions ---- */

int store_begin(struct store *st)
{
  int rc;

  if(st->batch) {
    if(st->unit)
      return store_fail(st, STORE_EIO, "begin: a transaction is already open");
    /* SQLite undoes a whole transaction on some errors (SQLITE_FULL,
     * IOERR): a savepoint then would silently start a transaction of its
     * own and commit this message ahead of the lost ones. */
    if(!store_batch_open(st))
      return store_fail(st, STORE_EIO, "begin: the batch's transaction was rolled back");
    rc = run_sql(st, "SAVEPOINT store_unit", "begin (savepoint)");
    st->unit = rc == STORE_OK;
    st->unit_mark = tx_mark(st);
    return rc;
  }
  if(!sqlite3_get_autocommit(st->db))
    return store_fail(st, STORE_EIO, "begin: a transaction is already open");
  st->tx_mark = tx_mark(st);
  return run_sql(st, "BEGIN IMMEDIATE", "begin");
}

int store_commit(struct store *st)
{
  int rc;

  if(st->batch) {
    if(!st->unit)
      return store_fail(st, STORE_EIO, "commit: no transaction is open");
    st->unit = false;
    return run_sql(st, "RELEASE store_unit", "commit (release savepoint)");
  }
  if(sqlite3_get_autocommit(st->db))
    return store_fail(st, STORE_EIO, "commit: no transaction is open");
  rc = run_sql(st, "COMMIT", "commit");
  if(rc == STORE_OK)
    tx_committed(st);
  return rc;
}

int store_rollback(struct store *st)
{
  int rc;

  if(st->batch) {
    if(!st->unit)
      return STORE_OK;
    st->unit = false;
    /* If SQLite already undid the whole transaction (an I/O error), this
     * fails, and so will store_batch_commit: the batch is retried whole. */
    tx_undone(st, st->unit_mark);
    rc = run_sql(st, "ROLLBACK TO store_unit", "rollback (savepoint)");
    if(rc == STORE_OK)
      rc = run_sql(st, "RELEASE store_unit", "rollback (savepoint)");
    return rc;
  }
  tx_undone(st, st->tx_mark);
  if(sqlite3_get_autocommit(st->db))
    return STORE_OK;
  return run_sql(st, "ROLLBACK", "rollback");
}

bool store_batch_open(struct store *st)
{
  return st->batch && !sqlite3_get_autocommit(st->db);
}

int store_batch_begin(struct store *st)
{
  int rc;

  if(st->batch || !sqlite3_get_autocommit(st->db))
    return store_fail(st, STORE_EIO, "batch: a transaction is already open");
  st->tx_mark = tx_mark(st);
  rc = run_sql(st, "BEGIN IMMEDIATE", "batch begin");
  st->batch = rc == STORE_OK;
  st->unit = false;
  return rc;
}

/* Back to synchronous=FULL after a lazy batch (SQLite takes the setting
 * only outside a transaction). */
static void lazy_end(struct store *st)
{
  if(!st->lazy)
    return;
  st->lazy = false;
  if(sqlite3_get_autocommit(st->db))
    sqlite3_exec(st->db, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
}

int store_batch_begin_lazy(struct store *st)
{
  int rc;

  if(st->batch || !sqlite3_get_autocommit(st->db))
    return store_fail(st, STORE_EIO, "batch: a transaction is already open");
  rc = run_sql(st, "PRAGMA synchronous = NORMAL", "lazy batch");
  if(rc)
    return rc;
  st->lazy = true;
  rc = store_batch_begin(st);
  if(rc)
    lazy_end(st);
  return rc;
}

int store_batch_commit(struct store *st)
{
  int rc;

  if(!st->batch)
    return store_fail(st, STORE_EIO, "batch commit: no batch is open");
  if(st->unit) {
    rc = store_rollback(st); /* a message left half-done is not kept */
    if(rc != STORE_OK) {
      /* nor committed with the others when it cannot be undone alone:
       * nothing of the batch is kept, the batch is retried whole */
      int undone = store_batch_rollback(st);
      return undone != STORE_OK ? undone : rc;
    }
  }
  st->batch = false;
  rc = run_sql(st, "COMMIT", "batch commit");
  if(rc != STORE_OK && !sqlite3_get_autocommit(st->db))
    sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
  if(rc == STORE_OK)
    tx_committed(st);
  else
    tx_undone(st, st->tx_mark);
  lazy_end(st);
  return rc;
}

int store_batch_rollback(struct store *st)
{
  int rc = STORE_OK;

  st->batch = false;
  st->unit = false;
  tx_undone(st, st->tx_mark);
  if(!sqlite3_get_autocommit(st->db))
    rc = run_sql(st, "ROLLBACK", "batch rollback");
  lazy_end(st);
  return rc;
}

/* ---- messages ---- */

int store_message_seen(struct store *st, const char *message_id, bool *seen)
{
  return store_query_exists(st, seen, "SELECT 1 FROM messages WHERE message_id = ?1",
                            "message_seen", "t", message_id);
}

int store_message_record(struct store *st, const char *message_id, const char *digest,
                         int64_t received, const char *outcome)
{
  /* A plain INSERT: recording the same Message-ID twice means the caller
   * skipped store_message_seen, which is a bug worth an error. */
  return store_run(st,
                   "INSERT INTO messages(message_id, digest, received, outcome)"
                   " VALUES(?1, ?2, ?3, ?4)",
                   "message_record", "ttit", message_id, digest, received, outcome);
}

/* ---- kv ---- */

int store_kv_get(struct store *st, char *buf, size_t cap, const char *key)
{
  sqlite3_stmt *stmt = NULL;
  int rc;

  if(cap)
    buf[0] = '\0';
  /* stepped here: the value goes into the caller's buffer */
  rc = store_prepare_args(st, &stmt, "SELECT value FROM kv WHERE key = ?1", "kv_get", "t", key);
  if(rc)
    return rc;
  rc = sqlite3_step(stmt);
  if(rc == SQLITE_DONE)
    rc = store_fail(st, STORE_ENOTFOUND, "kv_get: no such key");
  else if(rc != SQLITE_ROW)
    rc = store_fail_sql(st, rc, "kv_get");
  else if(!cap)
    rc = store_fail(st, STORE_EIO, "kv_get: no room for the value");
  else
    rc = store_copy_column(st, buf, cap, stmt, 0, "kv.value");
  store_finish(st, stmt);
  return rc;
}

int store_kv_set(struct store *st, const char *key, const char *value)
{
  return store_run(st,
                   "INSERT INTO kv(key, value) VALUES(?1, ?2)"
                   " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                   "kv_set", "tt", key, value);
}

/* ---- v10: the game state kv held, moved to its tables ---- */

struct kv_row {
  char *key, *value;
};

static int read_kv_row(struct store *st, sqlite3_stmt *stmt, void *row)
{
  struct kv_row *r = row;
  const unsigned char *k = sqlite3_column_text(stmt, 0), *v = sqlite3_column_text(stmt, 1);
  r->key = strdup(k ? (const char *)k : "");
  r->value = strdup(v ? (const char *)v : "");
  if(!r->key || !r->value)
    return store_fail(st, STORE_ENOMEM, "migrating kv: out of memory");
  return STORE_OK;
}

/* rest starts with a game id (digits) ended by `end`; *after past it. */
static bool kv_game(const char *rest, char end, int64_t *game, const char **after)
{
  int64_t v = 0;
  const char *p = rest;
  if(*p < '0' || *p > '9')
    return false;
  for(; *p >= '0' && *p <= '9'; p++) {
    if(v > (INT64_MAX - 9) / 10)
      return false;
    v = v * 10 + (*p - '0');
  }
  if(*p != end)
    return false;
  *game = v;
  if(after)
    *after = end ? p + 1 : p;
  return true;
}

/* "GAME:SEAT" */
static bool kv_game_seat(const char *rest, int64_t *game, int64_t *seat)
{
  const char *after;
  return kv_game(rest, ':', game, &after) && kv_game(after, '\0', seat, NULL) && *seat < 1000;
}

static bool kv_prefixed(const char *key, const char *prefix, const char **rest)
{
  size_t n = strlen(prefix);
  if(strncmp(key, prefix, n))
    return false;
  *rest = key + n;
  return true;
}

#define KV_IF_SEAT " WHERE EXISTS(SELECT 1 FROM seats WHERE game = ?1 AND seat = ?2)"
#define KV_IF_GAME " WHERE EXISTS(SELECT 1 FROM games WHERE id = ?1)"

static int kv_hourly(struct store *st, const char *counter, const char *address,
                     const char *value)
{
  long long start, count;
  if(sscanf(value, "%lld %lld", &start, &count) != 2 || count < 0)
    return STORE_OK;
  return store_run(st, "INSERT INTO hourly_counts(counter, address, start, count)"
                       " VALUES(?1, ?2, ?3, ?4)",
                   "migrating kv: hourly counts", "ttii", counter, address, (int64_t)start,
                   (int64_t)count);
}

/* One kv row as the service read it (referee/: what it read as "none"
 * moves nothing), into its table; rows of a game, seat or player that
 * does not exist are dropped (nothing could read them). */
static int kv_move_one(struct store *st, const char *key, const char *value)
{
  const char *rest;
  int64_t game, seat;
  int a, b;
  long long l;

  if(kv_prefixed(key, "resign:", &rest))
    return kv_game(rest, '\0', &game, NULL) && sscanf(value, "%d %d", &a, &b) == 2 && a >= 0 &&
                   b >= 1 && b <= 3
             ? store_run(st, "INSERT INTO resign_offers(game, seat, level) SELECT ?1, ?2, ?3"
                             KV_IF_SEAT,
                         "migrating kv: resign offers", "iii", game, (int64_t)a, (int64_t)b)
             : STORE_OK;
  if(kv_prefixed(key, "takeback:", &rest))
    return kv_game(rest, '\0', &game, NULL) && sscanf(value, "%d %lld", &a, &l) == 2 &&
                   a >= 0 && l >= 1
             ? store_run(st, "INSERT INTO takeback_requests(game, seat, seq) SELECT ?1, ?2, ?3"
                             KV_IF_SEAT,
                         "migrating kv: takeback requests", "iii", game, (int64_t)a, (int64_t)l)
             : STORE_OK;
  if(kv_prefixed(key, "autoroll:", &rest))
    return kv_game_seat(rest, &game, &seat) && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO standing_rolls(game, seat) SELECT ?1, ?2" KV_IF_SEAT,
                         "migrating kv: standing rolls", "ii", game, seat)
             : STORE_OK;
  if(kv_prefixed(key, "cubeanswer:", &rest))
    return kv_game_seat(rest, &game, &seat) && (!strcmp(value, "take") || !strcmp(value, "drop"))
             ? store_run(st, "INSERT INTO cube_answers(game, seat, answer) SELECT ?1, ?2, ?3"
                             KV_IF_SEAT,
                         "migrating kv: cube answers", "iit", game, seat, value)
             : STORE_OK;
  if(kv_prefixed(key, "observers:", &rest)) {
    /* "a b c", in the order they came */
    char *list, *tok, *save = NULL;
    int rc = STORE_OK;
    if(!kv_game(rest, '\0', &game, NULL))
      return STORE_OK;
    if(!(list = strdup(value)))
      return store_fail(st, STORE_ENOMEM, "migrating kv: out of memory");
    for(tok = strtok_r(list, " ", &save); tok && rc == STORE_OK; tok = strtok_r(NULL, " ", &save))
      rc = store_run(st, "INSERT INTO observers(game, address) SELECT ?1, ?2" KV_IF_GAME
                         " ON CONFLICT(game, address) DO NOTHING",
                     "migrating kv: observers", "it", game, tok);
    free(list);
    return rc;
  }
  if(kv_prefixed(key, "private:", &rest))
    return kv_game(rest, '\0', &game, NULL) && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO private_games(game) SELECT ?1" KV_IF_GAME,
                         "migrating kv: private games", "i", game)
             : STORE_OK;
  if(kv_prefixed(key, "public-comments:", &rest))
    return kv_game(rest, '\0', &game, NULL) && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO public_comment_games(game) SELECT ?1" KV_IF_GAME,
                         "migrating kv: public-comments games", "i", game)
             : STORE_OK;
  if(kv_prefixed(key, "comments-off:", &rest))
    return rest[0] && !strcmp(value, "1")
             ? store_run(st, "INSERT INTO comments_off(address) SELECT ?1"
                             " WHERE EXISTS(SELECT 1 FROM players WHERE address = ?1)",
                         "migrating kv: comments off", "t", rest)
             : STORE_OK;
  if(kv_prefixed(key, "dice-protocol:", &rest))
    /* docs/dice-protocol.md, "Versions": the one name written was
     * "tabula-dice-2"; anything else read as tabula-dice-1 */
    return kv_game(rest, '\0', &game, NULL)
             ? store_run(st, "INSERT INTO dice_protocols(game, version) SELECT ?1, ?2" KV_IF_GAME,
                         "migrating kv: dice protocols", "ii", game,
                         (int64_t)(strcmp(value, "tabula-dice-2") ? 1 : 2))
             : STORE_OK;
  if(kv_prefixed(key, "lag:", &rest))
    return kv_game(rest, '\0', &game, NULL) && (l = atoll(value)) > 0
             ? store_run(st, "INSERT INTO lag_previews(game, roll) SELECT ?1, ?2" KV_IF_GAME,
                         "migrating kv: lag previews", "ii", game, (int64_t)l)
             : STORE_OK;
  if(kv_prefixed(key, "rate:", &rest))
    return kv_hourly(st, "rate", rest, value);
  if(kv_prefixed(key, "unasked:", &rest))
    return kv_hourly(st, "unasked", rest, value);
  if(!strcmp(key, "budget:strangers"))
    return kv_hourly(st, "strangers", "", value);
  return STORE_OK;
}

static int move_kv_state(struct store *st)
{
  void *v = NULL;
  struct kv_row *rows;
  size_t n = 0, i;
  int rc = store_query(st, &v, &n, sizeof(struct kv_row), read_kv_row,
                       "SELECT key, value FROM kv WHERE " STORE_KV_STATE_KEYS " ORDER BY key",
                       "migrating kv", "");
  rows = v;
  for(i = 0; rc == STORE_OK && i < n; i++)
    rc = kv_move_one(st, rows[i].key, rows[i].value);
  if(rc == STORE_OK)
    rc = store_run(st, "DELETE FROM kv WHERE " STORE_KV_STATE_KEYS, "migrating kv: deleting", "");
  for(i = 0; i < n; i++) {
    free(rows[i].key);
    free(rows[i].value);
  }
  free(rows);
  return rc;
}

/* ---- hashing ---- */

void store_sha256_hex(char hex[65], const void *data, size_t len)
{
  static const char digits[] = "0123456789abcdef";
  uint8_t digest[SHA256_DIGEST_SIZE];
  struct sha256_ctx ctx;
  size_t i;

  sha256_init(&ctx);
  sha256_update(&ctx, len, data);
  sha256_digest(&ctx, sizeof(digest), digest);
  for(i = 0; i < sizeof(digest); i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 0xf];
  }
  hex[64] = '\0';
}
