/*
 * schema_sqlite.c: the SQLite driver's SQL (driver_sqlite.c): the schema's
 * steps as SQLite runs them. One list of versions for every engine
 * (STORE_SCHEMA_LATEST, driver.h); each driver's file says each step in its
 * engine's words.
 */
#include "store_int.h"

#include <assert.h>

/*
 * Schema steps, oldest first. Never edit a step that has shipped: add a new
 * step ("ALTER TABLE ...") at the end, in every driver's schema file, and
 * raise STORE_SCHEMA_LATEST; an old store is brought forward on its next
 * open.
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
const char *const store_sqlite_migrations[] = {
  /* v1 */ "CREATE TABLE players("
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
      ") STRICT;",
  /* v2 (clocks.c): the clock of each game (seat whose time runs,
   * when it started, reminders sent as bits), vacations as whole UTC days
   * (days since 1970-01-01, inclusive), the digest preference and the
   * queue of mails held back for a player's daily digest. */
  /* v2 */ "CREATE TABLE clocks("
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
      "CREATE INDEX digest_by_address ON digest(address, id);",
  /* v3 (every reply exactly once): outbox.claim is the token of
   * the process that holds the row to send it (lock.c: that process holds
   * byte 1 + claim of PATH.lock while it lives), NULL when nobody does;
   * in_doubt marks a row taken over from a process that died holding it,
   * which may have sent it. The store's random id names replies uniquely
   * across stores (the Maildir sink's file names). */
  /* v3 */ "ALTER TABLE outbox ADD COLUMN claim INTEGER;"
      "ALTER TABLE outbox ADD COLUMN in_doubt INTEGER NOT NULL DEFAULT 0"
      "  CHECK(in_doubt IN (0, 1));"
      "CREATE INDEX outbox_claimed ON outbox(claim) WHERE claim IS NOT NULL;"
      "INSERT OR IGNORE INTO kv(key, value) VALUES('store id', lower(hex(randomblob(8))));",
  /* v4 (confirm.c: nothing to an address that has not asked):
   * the requests waiting for their one-time key to come back from their
   * address (`new` or `observe`, the command line as written), and the
   * addresses that have answered one of our mails. Those already in the
   * journal as answering a keyed mail (accept, decline, a move, an action
   * or an offer by their seat) count as having answered. */
  /* v4 */ "CREATE TABLE confirmations("
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
      "  GROUP BY s.address;",
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
  /* v5 */ "CREATE TABLE outbox_v5("
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
      "ALTER TABLE dice ADD COLUMN checkpoints BLOB;",
  /* v6 (compete.c): competition. `ratings` is derived data, one
   * Glicko-2 rating per player per game system, rebuilt from the journals
   * on demand (`tabula check` compares); REAL columns keep the doubles
   * exactly. A backgammon match is its games in order (match_games), its
   * score recounted from their journals; phase and winner are set when it
   * ends. A round robin is its players (by starting number) and its games,
   * all created at once; `finished` is when the final table went out (0
   * before), so it goes out once. */
  /* v6 */ "CREATE TABLE ratings("
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
      ") STRICT;",
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
  /* v7 */ "CREATE TABLE conditionals("
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
      "CREATE INDEX seeks_by_address ON seeks(address) WHERE phase = 'open';",
  /* v8: confirmation requests of more kinds. `keyless`: the
   * action of a player's mail without a game's key, done once the player
   * confirms it from the address of record (referee/handlers/cmd_keyless.c);
   * `seek` and `tournament` for the requests of those commands. SQLite
   * cannot change a CHECK in place: the table is rebuilt, rows kept. */
  /* v8 */ "CREATE TABLE confirmations_v8("
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
      "CREATE INDEX confirmations_by_expiry ON confirmations(expires);",
  /* v9: a reply's text in a table of its own, keyed by the
   * outbox row's id. The outbox row changes several times (claimed, sent,
   * retried, taken over in doubt) and SQLite rewrites a row whose size
   * changes whole, overflow pages and all: the sent mark of a 9.7 KB
   * reply wrote ~10 KB to the WAL (and again at the checkpoint), now
   * ~100 bytes. The text is written once, with its row, in the same
   * transaction (store_outbox_add), read with it (a join) and deleted with
   * it (store_outbox_prune). */
  /* v9 */ "CREATE TABLE outbox_message("
      "  id INTEGER PRIMARY KEY,"
      "  message TEXT NOT NULL"
      ") STRICT;"
      "INSERT INTO outbox_message(id, message) SELECT id, message FROM outbox;"
      "ALTER TABLE outbox DROP COLUMN message;",
  /* v10 (game state in the schema): what the service kept as strings in
   * kv ("resign:GAME" = "SEAT LEVEL", "observers:GAME" = "a b c", ...),
   * where no constraint held it, `tabula check` could not see it and no
   * migration could reach it, gets a table each, referring to the game,
   * seat or player it belongs to (gamestate.c). store.c's move_kv_state
   * then moves the rows over, read as the service read them, and deletes
   * them from kv; kv keeps the installation's own keys (the store id, the
   * mail sources' positions). observers.id keeps the order they came in
   * (mails to observers go out in it). */
  /* v10 */ "CREATE TABLE resign_offers("
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
      ") STRICT;",
  /* v11 (time controls, referee/turns/clock_control.c): a clock's control
   * beyond days per move ("time=30d+1d;double=on", rules-spec TM-2..TM-5),
   * each seat's bank and moves made on it (an old clock's banks are its
   * days per move); a player's time zone for the deadlines shown (TM-6)
   * and whether leave is taken for them at a deadline (`leave auto`, TM-8)
   * and their mails carry the deadline as an iCalendar event (TM-10). */
  /* v11 */ "ALTER TABLE clocks ADD COLUMN control TEXT NOT NULL DEFAULT '';"
  "ALTER TABLE clocks ADD COLUMN bank0 INTEGER NOT NULL DEFAULT 0;"
  "ALTER TABLE clocks ADD COLUMN bank1 INTEGER NOT NULL DEFAULT 0;"
  "ALTER TABLE clocks ADD COLUMN done0 INTEGER NOT NULL DEFAULT 0 CHECK(done0 >= 0);"
  "ALTER TABLE clocks ADD COLUMN done1 INTEGER NOT NULL DEFAULT 0 CHECK(done1 >= 0);"
  "UPDATE clocks SET bank0 = days * 86400, bank1 = days * 86400;"
  "ALTER TABLE prefs ADD COLUMN timezone TEXT NOT NULL DEFAULT '';"
  "ALTER TABLE prefs ADD COLUMN leave_auto INTEGER NOT NULL DEFAULT 0 CHECK(leave_auto IN (0, 1));"
  "ALTER TABLE prefs ADD COLUMN calendar INTEGER NOT NULL DEFAULT 0 CHECK(calendar IN (0, 1));",
  /* v12 (knockout events, rules-spec KO-1..KO-4; compete.c):
   * - knockouts: a tournament that is a knockout of backgammon matches to
   *   `length` points (no row: a round robin);
   * - knockout_entries: per player, the entropy of their accept (e_s,
   *   docs/dice-protocol.md "Knockouts"; '' until accepted), the bracket
   *   position the draw gave (0 before the draw), whether they withdrew;
   * - knockout_slots: slot 0 the draw, slot k >= 1 the match whose
   *   winner goes to slot k/2 (1 the final): each a dice chain drawn and
   *   committed when the event is made, before anyone accepts; the match
   *   played in it once both players are known, and who went on
   *   (a starting number; 0 not yet, -1 nobody: two byes).
   * A knockout's games are in tournament_games with their slot as round. */
      "CREATE TABLE knockouts("
      "  tournament INTEGER PRIMARY KEY REFERENCES tournaments(id),"
      "  length INTEGER NOT NULL CHECK(length >= 1)"
      ") STRICT;"
      "CREATE TABLE knockout_entries("
      "  tournament INTEGER NOT NULL REFERENCES knockouts(tournament),"
      "  number INTEGER NOT NULL CHECK(number >= 1),"
      "  entropy TEXT NOT NULL DEFAULT '',"
      "  accepted INTEGER NOT NULL DEFAULT 0 CHECK(accepted IN (0, 1)),"
      "  position INTEGER NOT NULL DEFAULT 0 CHECK(position >= 0),"
      "  withdrawn INTEGER NOT NULL DEFAULT 0 CHECK(withdrawn IN (0, 1)),"
      "  PRIMARY KEY(tournament, number),"
      "  FOREIGN KEY(tournament, number) REFERENCES tournament_players(tournament, number)"
      ") STRICT;"
      "CREATE TABLE knockout_slots("
      "  tournament INTEGER NOT NULL REFERENCES knockouts(tournament),"
      "  slot INTEGER NOT NULL CHECK(slot >= 0),"
      "  commitment TEXT NOT NULL,"
      "  secret TEXT NOT NULL,"
      "  match INTEGER REFERENCES matches(id),"
      "  winner INTEGER NOT NULL DEFAULT 0 CHECK(winner >= -1),"
      "  PRIMARY KEY(tournament, slot)"
      ") STRICT;",
  /* v13: the size of a game's history tree last mailed to each address
   * (docs/history-protocol.md, "Mails"): the next mail to it proves its
   * tree consistent with that one. */
  "CREATE TABLE history_sent("
  "  game INTEGER NOT NULL REFERENCES games(id),"
  "  address TEXT NOT NULL CHECK(address <> ''),"
  "  size INTEGER NOT NULL CHECK(size >= 0),"
  "  PRIMARY KEY(game, address)"
  ") STRICT;",
};

static_assert(sizeof(store_sqlite_migrations) / sizeof(store_sqlite_migrations[0]) ==
                  STORE_SCHEMA_LATEST,
              "one SQLite step per schema version");
