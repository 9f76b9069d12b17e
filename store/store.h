/*
 * store.h: tabula's durable state in one SQLite file (library tabula_store).
 *
 * WAL mode, foreign keys on, schema versioned with PRAGMA user_version and
 * migrated forward on open. The service wraps everything one message causes
 * in one transaction (store_begin .. store_commit): message seen, journal
 * entries, new state, outbox rows. A crash before commit leaves nothing; a
 * crash after it is made harmless by the Message-ID check (store_message_seen).
 *
 * The journal is a hash chain per game: hash = SHA-256 over prev_hash and the
 * entry's fields (see journal.c), so an entry altered behind the
 * store's back is found by store_journal_verify.
 *
 * Conventions: functions return STORE_OK (0) or a negative store code; text
 * for the operator goes into the store's last error (store_errmsg). Output
 * parameters come first after the handle. Strings handed out are owned by the
 * caller and freed with the matching _free.
 */
#ifndef TABULA_STORE_H
#define TABULA_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Every store result is a store code the caller must look at: a failure
 * either fails what the caller is doing (the service's message is then
 * retried) or is logged where going on is right. */
#if defined(__GNUC__)
#define STORE_CHECKED __attribute__((warn_unused_result))
#else
#define STORE_CHECKED
#endif

enum store_code {
  STORE_OK = 0,
  STORE_ENOTFOUND = -1,
  STORE_EBUSY = -2,    /* locked by another process past the busy timeout */
  STORE_ECORRUPT = -3, /* hash chain or schema mismatch */
  STORE_EIO = -4,      /* any other SQLite failure */
  STORE_ENOMEM = -5,
  STORE_EFULL = -6,    /* the disk (or the database's size limit) is full */
  STORE_EEXIST = -7    /* store_copy: the target holds a club already */
};

struct store; /* opaque */

/* Opens (creating and migrating as needed) the store named: an SQLite
 * file's path (":memory:" works for tests), or a PostgreSQL database
 * (postgresql://..., postgres://..., or libpq keywords such as
 * service=club; a name that carries a password is refused). On failure
 * *out is NULL and errbuf says why. */
int store_open(struct store **out, const char *path, char *errbuf, size_t errcap) STORE_CHECKED;
void store_close(struct store *st); /* NULL is fine */
const char *store_errmsg(const struct store *st);
int store_schema_version(struct store *st) STORE_CHECKED; /* the schema's version, or a store code */

/* Whether name names a store kept in a file (SQLite's), rather than a
 * database on a server (PostgreSQL's). The service makes a file store's
 * folder, and looks for the file before a command that must not create
 * one; a server's database it only connects to. */
bool store_names_file(const char *name);
/* The store's name for messages and logs: the name itself, but for a
 * database on a server only where it is (never a password, should the name
 * carry one). */
void store_display_name(const char *name, char *buf, size_t cap);
/* The schema version of the store named, read without changing anything
 * (no migration, no settings): 0 for a database nobody has made a store
 * in. STORE_OK or a store code with errbuf written. */
int store_peek_version(const char *name, int *version, char *errbuf, size_t errcap) STORE_CHECKED;

/* ---- moving a club to another engine (copy.c) ---- */

#define STORE_COPY_TABLES 64
struct store_copy_report {
  struct {
    char name[32];
    int64_t rows;
  } tables[STORE_COPY_TABLES];
  size_t ntables;
  int64_t rows; /* all tables' */
  bool key;     /* the referee's key was carried (false: the source had none) */
};

/* Copies the store named `from` into the store named `to` (either engine:
 * an SQLite file, a PostgreSQL database; store_open's names), ids kept,
 * every table inside one transaction of the target, then counts every
 * table's rows on both sides. Both are opened as any command opens them
 * (migrated to this tabula's schema). Refused, nothing written: no store
 * at `from` (STORE_ENOTFOUND; none is made), a daemon serving either
 * (STORE_EBUSY; the daemon's lock is held on both until the end, so none
 * starts meanwhile), a target that holds anything (STORE_EEXIST), a table
 * the copy does not know. A target made here for the copy stays, empty,
 * when the copy fails. The games themselves are checked by the caller
 * (tabula check on the target: journals and replays). */
int store_copy(const char *from, const char *to, struct store_copy_report *rep, char *errbuf,
               size_t errcap) STORE_CHECKED;

/* SQLite's own check of the file (PRAGMA integrity_check: every page,
 * index and constraint), for `tabula check`. *problems gets SQLite's lines
 * joined by newlines ("" when the file is sound; free()); STORE_OK means
 * the check ran, whatever it found. */
int store_integrity_check(struct store *st, char **problems) STORE_CHECKED;

/* One daemon per store file: an exclusive lock on PATH.lock, held
 * until store_close or the process's end, however it ends. STORE_EBUSY
 * when another process holds it; store_errmsg then names its pid. A
 * database on a server (PostgreSQL) is served by as many daemons as its
 * operator starts (two MX hosts, say): there the lock is shared, and
 * refused only beside a tabula that allows one daemon alone. */
int store_lock_daemon(struct store *st) STORE_CHECKED;
/* The tick's lock: of the daemons serving one database, the one that holds
 * it runs the time-driven work (reminders, losses on time, expiries,
 * digests), so none of it is done twice at once; the others ask again at
 * their next tick and take it once its holder is gone, however it ended.
 * *got true when this handle holds it (taking it again is free). A store
 * file has one daemon (store_lock_daemon): always true there. */
int store_lock_tick(struct store *st, bool *got) STORE_CHECKED;
/* Whether several daemons may serve this store at once (a database on a
 * server), each holding store_lock_daemon's lock shared. */
bool store_several_daemons(struct store *st);
/* The daemons of one database wake each other when there is work for
 * any (PostgreSQL's LISTEN/NOTIFY), instead of each finding it at its
 * next look: rows given back (store_outbox_release), the tick's lock freed
 * (its holder's handle closed). store_wake_fd: a descriptor to wait on
 * beside the inbox's (readable when a call came), -1 where one daemon
 * serves the store; store_woken drains what came (*any: a call came since
 * the last look); store_wake_others calls (best effort: a call lost is
 * work found at the next look all the same). */
int store_wake_fd(struct store *st);
int store_woken(struct store *st, bool *any) STORE_CHECKED;
void store_wake_others(struct store *st);

/* Whether a daemon holds that lock on the store at DB_PATH now (probe.c),
 * asked without opening the store: false when nobody does or when it
 * cannot be told. Needs nothing but the C library (tabula-deliver). */
bool store_daemon_running(const char *db_path);

/* One transaction at a time (BEGIN IMMEDIATE). */
int store_begin(struct store *st) STORE_CHECKED;
int store_commit(struct store *st) STORE_CHECKED;
int store_rollback(struct store *st) STORE_CHECKED; /* safe to call when no transaction is open */

/* A batch: one outer transaction (BEGIN IMMEDIATE) holding many messages,
 * so a batch costs one commit, one fsync group, instead of one per message.
 * While a batch is open, store_begin/store_commit/store_rollback work on a
 * savepoint each: a message that fails rolls back alone, and what the
 * others did stays for the batch's commit. Nothing is durable, so nothing
 * may be acknowledged to a mail source, before store_batch_commit returns
 * STORE_OK. store_batch_rollback drops the whole batch. */
int store_batch_begin(struct store *st) STORE_CHECKED;
/* A batch whose commit is not synced to disk at once (synchronous=NORMAL
 * for its time): it becomes durable with the next synced commit, or is
 * lost in a crash before that. Only for what a crash may undo because it
 * is found again: the "sent" marks of replies in the outbox Maildir,
 * which are looked for by name after a crash. Its transaction is one
 * kept right by its rows' locks (driver.h begin_rows): on a database
 * several daemons serve, it does not wait for another's moves. */
int store_batch_begin_lazy(struct store *st) STORE_CHECKED;
int store_batch_commit(struct store *st) STORE_CHECKED;
int store_batch_rollback(struct store *st) STORE_CHECKED;
/* true while the batch's transaction is still open (SQLite rolls a whole
 * transaction back by itself on some I/O errors). */
bool store_batch_open(struct store *st);
/* The daemon's checkpoints. SQLite checkpoints the WAL into the
 * database inside the commit that grows it past 1,000 pages, and syncs the
 * database file there: one move in thirty waited for that before its
 * replies went out. After store_checkpoint_later, commits leave the WAL as
 * it is, and store_checkpoint_idle, called when the replies are out,
 * checkpoints (passive, synced) once the WAL holds that much. Durability
 * is the WAL's either way; store_close checkpoints everything as before. */
void store_checkpoint_later(struct store *st);
int store_checkpoint_idle(struct store *st) STORE_CHECKED;

/* ---- messages: exactly-once processing ---- */

/* *seen = whether a message with this Message-ID was already processed. */
int store_message_seen(struct store *st, const char *message_id, bool *seen) STORE_CHECKED;
/* Records a processed message: digest is hex SHA-256 of the raw bytes,
 * outcome a short word ("applied", "refused", "ignored: auto-submitted"). */
int store_message_record(struct store *st, const char *message_id, const char *digest,
                         int64_t received, const char *outcome) STORE_CHECKED;

/* ---- games and seats ---- */

enum store_game_phase {
  STORE_GAME_INVITED,  /* waiting for every invitee to accept */
  STORE_GAME_ACTIVE,
  STORE_GAME_FINISHED,
  STORE_GAME_CANCELLED /* declined or invitation expired */
};

struct store_game {
  int64_t id;
  char kind[32];           /* registry name: "chess" */
  int rules_version;
  char options[256];       /* "key=value;..." as given to ops->init */
  enum store_game_phase phase;
  char state[512];         /* ops->encode of the current position */
  int turn;                /* seat to act, -1 none */
  char result[64];         /* "1-0 checkmate", "" while running */
  int64_t created, updated, deadline; /* unix seconds; deadline 0 = none */
  int64_t draw_offer_seat; /* seat with a standing draw offer, -1 none */
};

/* Inserts g (g->id ignored); *id gets the new id. */
int store_game_create(struct store *st, int64_t *id, const struct store_game *g) STORE_CHECKED;
int store_game_load(struct store *st, struct store_game *out, int64_t id) STORE_CHECKED;
int store_game_update(struct store *st, const struct store_game *g) STORE_CHECKED;
/* The same, with the game's snapshot: the service's bytes,
 * opaque to the store, at most STORE_SNAPSHOT_MAX; NULL clears it. */
#define STORE_SNAPSHOT_MAX 65536u
int store_game_update_snapshot(struct store *st, const struct store_game *g, const void *blob,
                               size_t len) STORE_CHECKED;
/* The game's snapshot into a malloc'd *blob (free()), or *blob NULL and
 * *len 0 when it has none. */
int store_game_snapshot(struct store *st, void **blob, size_t *len, int64_t id) STORE_CHECKED;
/* Every game id, ascending; free *ids with free(). */
int store_game_list(struct store *st, int64_t **ids, size_t *n) STORE_CHECKED;

struct store_seat {
  int64_t game;
  int seat;            /* 0-based, in the game's seat order */
  char address[256];   /* the player's mail address, lower-cased */
  char token[40];      /* per-game, per-player secret */
  bool accepted;
  char entropy[256];   /* tabula-dice-1 e_s (accept mail's entropy or Message-ID) */
};

int store_seat_put(struct store *st, const struct store_seat *s) STORE_CHECKED; /* insert or replace */
/* Seats of a game in seat order; free *seats with free(). */
int store_seat_list(struct store *st, struct store_seat **seats, size_t *n, int64_t game) STORE_CHECKED;
/* Game ids where address holds a seat, ascending; free with free(). */
int store_games_of(struct store *st, int64_t **ids, size_t *n, const char *address) STORE_CHECKED;

/* ---- journal: hash chain per game ---- */

struct store_entry {
  int64_t game;
  int64_t seq;        /* 1, 2, ... per game */
  int64_t time;
  int seat;           /* acting seat, -1 for the referee */
  char kind[16];      /* "move", "roll", "action", "create", "accept", "start", "end" */
  char text[256];     /* canonical notation or action words */
  char dice[160];     /* "chain 1 roll 3 key <hex> faces 5 2" or "" */
  char prev_hash[65]; /* hex; 64 zeros for seq 1 */
  char hash[65];
};

/* Appends an entry: seq, prev_hash and hash are computed here (e->seq,
 * prev_hash, hash are ignored on input). *out_seq gets the new seq (may be NULL). */
int store_journal_append(struct store *st, int64_t *out_seq, const struct store_entry *e) STORE_CHECKED;
/* All entries of a game in seq order; free *entries with free(). */
int store_journal_load(struct store *st, struct store_entry **entries, size_t *n, int64_t game) STORE_CHECKED;
/* The entries of a game from seq `from` on, in seq order (a snapshot's
 * entry and what followed it); free *entries with free(). */
int store_journal_load_from(struct store *st, struct store_entry **entries, size_t *n,
                            int64_t game, int64_t from) STORE_CHECKED;
/* store_journal_append that also says the new entry's hash (hash[65], may
 * be NULL): the service keeps the head it will snapshot at. */
int store_journal_append_head(struct store *st, int64_t *out_seq, char *out_hash,
                              const struct store_entry *e) STORE_CHECKED;
/* Recomputes the chain: STORE_OK, or STORE_ECORRUPT with *bad_seq set to the
 * first entry whose hash or link does not hold. */
int store_journal_verify(struct store *st, int64_t *bad_seq, int64_t game) STORE_CHECKED;

/* ---- history: the Merkle tree of a game's journal (tlog.c, history.c;
 * docs/history-protocol.md) ----
 *
 * One tree per game, its leaves the journal's entries in seq order (leaf
 * index = seq - 1), built as RFC 9162 §2.1 with SHA-256. tlog.c is pure:
 * it hashes what it is given and touches nothing. */

#define STORE_TLOG_HASH 32
/* The deepest proof a tree of up to 2^63 leaves needs. */
#define STORE_TLOG_MAX_PROOF 64

/* SHA-256(0x00 || leaf data) of a journal entry (docs/history-protocol.md,
 * "Leaves"); nonce: a sealed entry's (64 hex digits), else NULL. */
void store_tlog_leaf_hash(uint8_t out[STORE_TLOG_HASH], const struct store_entry *e,
                          const char *nonce);
/* Whether entries of this kind are sealed: shown to their seat only, the
 * others get the leaf hash (docs/history-protocol.md, "Sealed entries"). */
bool store_tlog_sealed(const char *kind);
/* SHA-256(0x01 || left || right). */
void store_tlog_node(uint8_t out[STORE_TLOG_HASH], const uint8_t left[STORE_TLOG_HASH],
                     const uint8_t right[STORE_TLOG_HASH]);
/* MTH of the first n leaf hashes (RFC 9162 §2.1.1; n = 0: SHA-256 of nothing). */
void store_tlog_root(uint8_t out[STORE_TLOG_HASH], const uint8_t (*leaves)[STORE_TLOG_HASH],
                     size_t n);
/* The inclusion proof of leaf `index` in the tree of n leaves (RFC 9162
 * §2.1.3.1), at most STORE_TLOG_MAX_PROOF hashes into proof; -1 when index >= n. */
int store_tlog_inclusion(uint8_t (*proof)[STORE_TLOG_HASH], size_t *np,
                         const uint8_t (*leaves)[STORE_TLOG_HASH], size_t n, size_t index);
/* The consistency proof from the tree of m leaves to that of n (RFC 9162
 * §2.1.4.1; empty for m = 0 or m = n); -1 when m > n. */
int store_tlog_consistency(uint8_t (*proof)[STORE_TLOG_HASH], size_t *np,
                           const uint8_t (*leaves)[STORE_TLOG_HASH], size_t n, size_t m);
/* RFC 9162 §2.1.3.2 and §2.1.4.2: 0 when the proof holds, else -1. */
int store_tlog_verify_inclusion(const uint8_t leaf[STORE_TLOG_HASH], size_t index, size_t n,
                                const uint8_t (*proof)[STORE_TLOG_HASH], size_t np,
                                const uint8_t root[STORE_TLOG_HASH]);
int store_tlog_verify_consistency(size_t m, size_t n, const uint8_t old_root[STORE_TLOG_HASH],
                                  const uint8_t new_root[STORE_TLOG_HASH],
                                  const uint8_t (*proof)[STORE_TLOG_HASH], size_t np);

/* The game's tree size last mailed to address (0 when none). */
int store_history_sent_get(struct store *st, int64_t *size, int64_t game,
                           const char *address) STORE_CHECKED;
int store_history_sent_put(struct store *st, int64_t game, const char *address,
                           int64_t size) STORE_CHECKED;
/* The referee's Ed25519 private key (a 32-byte seed, RFC 8032 §5.1.5),
 * made from getrandom at the first call with create set, else
 * STORE_ENOTFOUND. A store in a file keeps it beside the file, STORE.key,
 * with the file's mode (at most 0600) and owner; a store on a server (and
 * an in-memory one) keeps it in the database (kv "history-key"), so that
 * every daemon serving one database signs with one key
 * (docs/history-protocol.md, "The referee's key"). *created says whether
 * this call made it (may be NULL). */
int store_referee_key(struct store *st, uint8_t seed[32], bool create,
                      bool *created) STORE_CHECKED;
/* The secret the nonces of sealed entries are made with (32 bytes, kv
 * "history-seal", made at the first call; never rotated: the nonces of
 * past entries must not change). */
int store_history_seal(struct store *st, uint8_t seal[32]) STORE_CHECKED;
/* Replaces the key (rotation, `tabula key rotate`): the old one is kept
 * as STORE.key.N / kv "history-key-N", N = 1, 2, ... */
int store_referee_key_rotate(struct store *st, uint8_t seed[32]) STORE_CHECKED;
/* Makes seed the store's referee key, where store_referee_key reads it
 * (STORE.key beside a file store, kv "history-key" in a database):
 * store_copy carries the key with the club. A key file already there
 * holding another key is an error (STORE_EEXIST), the same key none. */
int store_referee_key_put(struct store *st, const uint8_t seed[32]) STORE_CHECKED;

/* ---- outbox: replies, written in the same transaction, sent afterwards ----
 *
 * A row's text is kept apart from its state (table outbox_message, schema
 * v9): the state changes (claimed, sent, retried, taken over)
 * rewrite a row of ~100 bytes, never the reply's kilobytes. The text is
 * written with its row, read with it and deleted with it; callers see one
 * row. */

enum store_outbox_state { STORE_OUTBOX_QUEUED, STORE_OUTBOX_SENT, STORE_OUTBOX_FAILED };

struct store_outbox {
  int64_t id;
  int64_t game;        /* 0 when not about a game */
  int64_t created;
  char recipient[256];
  char *message;       /* the whole RFC 5322 message, CRLF or LF line ends as composed */
  enum store_outbox_state state;
  int attempts;
  int64_t next_try;
  char last_error[256];
  bool in_doubt;       /* claimed before by a process that died: it may have
                        * been sent (store_outbox_claim) */
};

/* Queues a reply: the row and its text, both or neither (a savepoint
 * inside the caller's transaction, or a transaction of its own). The row
 * is claimed for this process at once (see store_outbox_claim): whoever
 * composed a reply sends it, without a transaction of its own to claim it. */
int store_outbox_add(struct store *st, int64_t *id, int64_t game, const char *recipient,
                     const char *message, int64_t now) STORE_CHECKED;
/* Exactly once: a row is sent only by the process that holds
 * its claim. Returns up to max rows claimed by this process, oldest first:
 * those it queued itself and not yet sent, then due rows nobody holds,
 * claimed here in one transaction, so no two processes ever get one row.
 * A claim ends with store_outbox_sent, store_outbox_retry,
 * store_outbox_release, or the end of its process: the rows of a process
 * that died are taken over with in_doubt set, because it may have sent
 * them before it could record so (a sink that can look, the Maildir, looks
 * before sending again). Free with store_outbox_free. */
int store_outbox_claim(struct store *st, struct store_outbox **rows, size_t *n, int64_t now,
                       size_t max) STORE_CHECKED;
/* Gives back this process's claims on rows it will not send now. */
int store_outbox_release(struct store *st) STORE_CHECKED;
/* The rows this process queued and committed since the last call, in id
 * order, from memory (the flush writes them without a round trip
 * through the table); claimed by this process like every row it queues.
 * None while a transaction is open, or when an older row of this process
 * still waits (store_outbox_claim then reads them all back, in order).
 * Free with store_outbox_free. */
int store_outbox_fresh(struct store *st, struct store_outbox **rows, size_t *n) STORE_CHECKED;
/* The store's own random id (16 hex digits, made with the file): with a
 * row's id it names a reply uniquely across stores, e.g. its Maildir file. */
const char *store_id(struct store *st);
/* Queued rows with next_try <= now, oldest first, at most max, claimed or
 * not: a view for tests and status; a sender uses store_outbox_claim.
 * Free with store_outbox_free. */
int store_outbox_due(struct store *st, struct store_outbox **rows, size_t *n, int64_t now,
                     size_t max) STORE_CHECKED;
void store_outbox_free(struct store_outbox *rows, size_t n);
int store_outbox_sent(struct store *st, int64_t id, int64_t now) STORE_CHECKED;
/* Marks sent every queued row this process claims with lo <= id <= hi
 * (a chunk written at once); *n gets how many. */
int store_outbox_sent_range(struct store *st, int64_t lo, int64_t hi, int64_t now, size_t *n) STORE_CHECKED;
/* Deletes sent rows sent before `before`, with their texts, in one
 * transaction (the table no longer grows with every move), never
 * the newest row of all (its id + 1 is the next id: ids are never handed
 * out twice). *n gets how many. */
int store_outbox_prune(struct store *st, int64_t before, size_t *n) STORE_CHECKED;
/* A failed attempt: attempts+1, next_try set, last_error kept, the claim
 * given back; permanent failures move to STORE_OUTBOX_FAILED. */
int store_outbox_retry(struct store *st, int64_t id, int64_t next_try, const char *error,
                       bool permanent) STORE_CHECKED;
/* Counts rows in a state (for tests and `tabula status`). */
int store_outbox_count(struct store *st, size_t *n, enum store_outbox_state state) STORE_CHECKED;

/* ---- dice: tabula-dice-1 chains (the secret end never leaves the store) ---- */

struct store_dice {
  int64_t game;
  int chain;             /* 1, 2, ... */
  char commitment[65];   /* hex x_0 */
  char secret[65];       /* hex x_N: never logged, never mailed */
  int n;                 /* chain length N */
  int next_index;        /* next roll index i within this chain, 1-based */
  char entropy[65];      /* hex E, "" until every seat accepted */
  int64_t roll_count;    /* rolls made in the game over all chains */
  /* Keys of the chain kept so a roll hashes down from the nearest one;
   * the service's bytes, as secret as `secret` itself.
   * checkpoints_len 0: none stored. */
  uint8_t checkpoints[4096];
  size_t checkpoints_len;
};

int store_dice_put(struct store *st, const struct store_dice *d) STORE_CHECKED; /* insert or replace (game, chain) */
/* The newest chain of a game. */
int store_dice_load(struct store *st, struct store_dice *out, int64_t game) STORE_CHECKED;
int store_dice_load_chain(struct store *st, struct store_dice *out, int64_t game, int chain) STORE_CHECKED;

/* ---- small key/value table for the service (mail UIDs, schema notes) ---- */
int store_kv_get(struct store *st, char *buf, size_t cap, const char *key) STORE_CHECKED; /* ENOTFOUND if absent */
int store_kv_set(struct store *st, const char *key, const char *value) STORE_CHECKED;

/* ---- time (clocks.c): clocks, vacations, the digest ---- */

/* A game's clock. Days are whole UTC days since 1970-01-01. */
struct store_clock {
  int64_t game;
  int days;          /* time per move, in counted days */
  bool weekends;     /* Saturdays and Sundays count toward it */
  int seat;          /* seat whose time runs, -1 none (invited, over) */
  int64_t moves;     /* "move" journal entries when it started */
  int64_t started;   /* unix seconds */
  int64_t deadline;  /* unix seconds, as last computed (for display) */
  int reminded;      /* bits: 1 half time, 8 three days, 2 last day, 4 time up told */
  int64_t next_event; /* unix seconds: nothing is due before it (a lower
                       * bound); 0 = look at the next tick,
                       * < 0 = never (no clock runs) */
  char control[64];  /* the control's words beyond days per move,
                      * "time=30d+1d;double=on"; "" days per move */
  int64_t bank[2];   /* counted seconds each seat may use from the start
                      * of its next (or running) move */
  int64_t done[2];   /* moves each seat completed on this clock */
};

int store_clock_put(struct store *st, const struct store_clock *c) STORE_CHECKED; /* insert or replace */
int store_clock_load(struct store *st, struct store_clock *out, int64_t game) STORE_CHECKED; /* ENOTFOUND */
/* Clocks that run (seat >= 0) in active games, by game; free() *clocks. */
int store_clock_running(struct store *st, struct store_clock **clocks, size_t *n) STORE_CHECKED;
/* The same, only those whose next_event is at or before `now` (an index
 * lookup: the tick reads what may be due, not every clock); at most max
 * of them, by next_event. */
int store_clock_due(struct store *st, struct store_clock **clocks, size_t *n, int64_t now,
                    size_t max) STORE_CHECKED;
/* Sets a clock's next_event alone (< 0: never). */
int store_clock_set_next(struct store *st, int64_t game, int64_t next_event) STORE_CHECKED;
/* Games still "invited" that were created at or before `before`, oldest
 * first; free() *ids. */
int store_games_invited_before(struct store *st, int64_t **ids, size_t *n, int64_t before) STORE_CHECKED;
/* How many journal entries of a game have this kind. */
int store_journal_count(struct store *st, int64_t *n, int64_t game, const char *kind) STORE_CHECKED;

struct store_vacation {
  int64_t first_day, last_day; /* inclusive */
  int64_t created;
};

int store_vacation_add(struct store *st, const char *address, int64_t first_day,
                       int64_t last_day, int64_t created) STORE_CHECKED;
/* A player's vacations by first day; free() *vacs. */
int store_vacation_list(struct store *st, struct store_vacation **vacs, size_t *n,
                        const char *address) STORE_CHECKED;

/* Whether a player takes one daily digest instead of one mail per event
 * (false when never set). */
int store_digest_pref_get(struct store *st, bool *on, const char *address) STORE_CHECKED;
int store_digest_pref_set(struct store *st, const char *address, bool on) STORE_CHECKED;

/* A mail held for a player's digest. */
int store_digest_add(struct store *st, const char *address, int64_t game, int64_t created,
                     const char *subject, const char *reply_to, const char *body) STORE_CHECKED;

struct store_digest_due {
  char address[256];
  int64_t oldest; /* created time of the oldest held mail */
};
/* Players with held mails; free() *due. */
int store_digest_waiting(struct store *st, struct store_digest_due **due, size_t *n) STORE_CHECKED;

struct store_digest_item {
  int64_t id, game, created;
  char subject[600];
  char reply_to[256];
  char *body;
};
/* A player's held mails, oldest first; free with store_digest_free. */
int store_digest_items(struct store *st, struct store_digest_item **items, size_t *n,
                       const char *address) STORE_CHECKED;
void store_digest_free(struct store_digest_item *items, size_t n);
/* Drops a player's held mails up to and including id `upto_id`. */
int store_digest_clear(struct store *st, const char *address, int64_t upto_id) STORE_CHECKED;

/* ---- competition (compete.c): ratings, matches, round robins ---- */

/* One Glicko-2 rating of one player in one game system: derived data,
 * rebuilt from the journals on demand. last_ended/last_unit: the rating
 * period (a finished game or match) that last changed it. */
struct store_rating {
  char kind[32];
  char address[256];
  double rating, rd, volatility;
  int games, wins, draws, losses;
  int64_t last_ended, last_unit;
};

int store_rating_get(struct store *st, struct store_rating *out, const char *kind,
                     const char *address) STORE_CHECKED; /* ENOTFOUND if unrated */
int store_rating_put(struct store *st, const struct store_rating *r) STORE_CHECKED; /* insert or replace */
/* One system's table (kind NULL: every system's), by kind, then rating
 * from the highest, then address; free() *rows. */
int store_rating_list(struct store *st, struct store_rating **rows, size_t *n, const char *kind) STORE_CHECKED;
/* Forgets a system's ratings (kind NULL: all) before a rebuild. */
int store_rating_clear(struct store *st, const char *kind) STORE_CHECKED;

/* A backgammon match to `length` points: its games in order. */
enum store_match_phase { STORE_MATCH_PLAYING, STORE_MATCH_FINISHED };
struct store_match {
  int64_t id;
  int length;
  enum store_match_phase phase;
  int winner; /* seat, -1 while playing */
  int64_t created;
};

int store_match_create(struct store *st, int64_t *id, int length, int64_t created) STORE_CHECKED;
int store_match_load(struct store *st, struct store_match *out, int64_t id) STORE_CHECKED;
int store_match_update(struct store *st, const struct store_match *m) STORE_CHECKED; /* phase, winner */
int store_match_add_game(struct store *st, int64_t match, int number, int64_t game) STORE_CHECKED;
/* The games of a match by number (1, 2, ...); free() *games. */
int store_match_games(struct store *st, int64_t **games, size_t *n, int64_t match) STORE_CHECKED;
/* The match a game belongs to and its number in it; ENOTFOUND for none. */
int store_match_of_game(struct store *st, int64_t *match, int *number, int64_t game) STORE_CHECKED;
/* Every match id, ascending; free() *ids. */
int store_match_list(struct store *st, int64_t **ids, size_t *n) STORE_CHECKED;

/* A round-robin tournament: every pairing created at once, once or twice
 * (cycles 2: colours swapped). */
enum store_tournament_phase {
  STORE_TOURNAMENT_INVITED,  /* waiting for every player to accept */
  STORE_TOURNAMENT_PLAYING,
  STORE_TOURNAMENT_FINISHED, /* the final table went out */
  STORE_TOURNAMENT_CANCELLED
};
struct store_tournament {
  int64_t id;
  char name[64];
  char kind[32];
  char options[256];   /* the games' options, as `new` takes them */
  int cycles;          /* 1 single, 2 double round robin */
  char organizer[256]; /* the player who asked, or the referee's address */
  enum store_tournament_phase phase;
  int64_t created, finished;
};
struct store_tournament_player {
  int number; /* starting number, 1-based */
  char address[256];
};

int store_tournament_create(struct store *st, int64_t *id, const struct store_tournament *t) STORE_CHECKED;
int store_tournament_load(struct store *st, struct store_tournament *out, int64_t id) STORE_CHECKED;
/* By name (exact, case-insensitive); ENOTFOUND for none. */
int store_tournament_find(struct store *st, struct store_tournament *out, const char *name) STORE_CHECKED;
int store_tournament_update(struct store *st, const struct store_tournament *t) STORE_CHECKED;
int store_tournament_add_player(struct store *st, int64_t tournament, int number,
                                const char *address) STORE_CHECKED;
/* By starting number; free() *players. */
int store_tournament_players(struct store *st, struct store_tournament_player **players,
                             size_t *n, int64_t tournament) STORE_CHECKED;
int store_tournament_add_game(struct store *st, int64_t tournament, int64_t game, int round) STORE_CHECKED;
/* The games by id; free() *games. */
int store_tournament_games(struct store *st, int64_t **games, size_t *n, int64_t tournament) STORE_CHECKED;
/* The tournament a game belongs to; ENOTFOUND for none. */
int store_tournament_of_game(struct store *st, int64_t *tournament, int64_t game) STORE_CHECKED;
/* Tournaments `address` plays in (NULL: all), ascending; free() *ids. */
int store_tournament_list(struct store *st, int64_t **ids, size_t *n, const char *address) STORE_CHECKED;
/* The round (a knockout: the slot) a tournament's game was added with;
 * ENOTFOUND for a game of none. */
int store_tournament_game_round(struct store *st, int *round, int64_t game) STORE_CHECKED;

/* A knockout of backgammon matches (rules-spec KO-1..KO-4): a tournament
 * with a knockouts row; its entries (one per player, by starting number)
 * and its slots (0 the draw, k >= 1 a match of the bracket, 1 the
 * final), each slot's dice chain committed when the event was made. */
struct store_knockout_entry {
  int number;
  char entropy[256]; /* e_s of the accept, "" before it */
  int accepted, position, withdrawn;
};
struct store_knockout_slot {
  int slot;
  char commitment[65], secret[65];
  int64_t match; /* 0 none yet */
  int winner;    /* a starting number, 0 not yet, -1 nobody */
};
int store_knockout_create(struct store *st, int64_t tournament, int length) STORE_CHECKED;
/* The match length; ENOTFOUND: the tournament is no knockout. */
int store_knockout_length(struct store *st, int *length, int64_t tournament) STORE_CHECKED;
int store_knockout_entry_put(struct store *st, int64_t tournament,
                             const struct store_knockout_entry *e) STORE_CHECKED; /* insert or replace */
/* By starting number; free() *entries. */
int store_knockout_entries(struct store *st, struct store_knockout_entry **entries, size_t *n,
                           int64_t tournament) STORE_CHECKED;
int store_knockout_slot_put(struct store *st, int64_t tournament,
                            const struct store_knockout_slot *s) STORE_CHECKED; /* insert or replace */
/* By slot; free() *slots. */
int store_knockout_slots(struct store *st, struct store_knockout_slot **slots, size_t *n,
                         int64_t tournament) STORE_CHECKED;

/* ---- confirmations (confirm.c): nothing to an address that has
 * not asked ---- */

/* A request waiting for its one-time key to come back from its address. */
struct store_confirm {
  char key[40];       /* the one-time key, as mailed */
  char address[256];  /* who must answer: the request's From */
  char kind[16];      /* "new" (new, tournament), "observe", "keyless" (an action of a
                         mail without a game's key); since v8 also "seek",
                         "tournament" */
  char request[256];  /* the command line as written */
  int64_t game;       /* observe, keyless: the game; 0 otherwise */
  int64_t created, expires; /* unix seconds */
};

int store_confirm_put(struct store *st, const struct store_confirm *c) STORE_CHECKED;
int store_confirm_get(struct store *st, struct store_confirm *out, const char *key) STORE_CHECKED; /* ENOTFOUND */
int store_confirm_delete(struct store *st, const char *key) STORE_CHECKED;
/* Drops the requests that expired before `before`. */
int store_confirm_prune(struct store *st, int64_t before) STORE_CHECKED;
/* Whether an address has answered one of our mails (case-insensitive). */
int store_confirmed_get(struct store *st, bool *yes, const char *address) STORE_CHECKED;
/* Records that it has: the first time is kept ("how": what it answered). */
int store_confirmed_add(struct store *st, const char *address, int64_t since, const char *how) STORE_CHECKED;

/* ---- conditional moves (conditionals.c): a player's prepared
 * lines ---- */

/* One branch of a prepared line: `plies` are the moves still to come as
 * the rules format them, space-separated, the opponent's expected move
 * first and then alternating, ending with the player's answer; `ply` is
 * the game's count of "move" entries before the expected move (a branch
 * whose count has passed is stale); `line` is the line as written. */
struct store_conditional {
  int64_t id, game;
  int seat;
  int64_t ply;
  char plies[600];
  char line[256];
  int64_t created;
};

int store_conditional_add(struct store *st, int64_t *id, const struct store_conditional *c) STORE_CHECKED;
/* The branches of one seat (seat < 0: every seat's) of a game, oldest
 * first; free() *rows. */
int store_conditional_list(struct store *st, struct store_conditional **rows, size_t *n,
                           int64_t game, int seat) STORE_CHECKED;
/* A branch that went one step on: its remaining plies and new ply count. */
int store_conditional_update(struct store *st, int64_t id, int64_t ply, const char *plies) STORE_CHECKED;
int store_conditional_delete(struct store *st, int64_t id) STORE_CHECKED;
/* Forgets one seat's branches of a game (seat < 0: every seat's; an
 * agreed takeback discards them all). 0 (STORE_OK) on success, -1 on a
 * store error. */
int store_conditionals_clear(struct store *st, int64_t game, int seat) STORE_CHECKED;
/* A player's time zone ("" none: deadlines in UTC alone), clocks.c. */
int store_timezone_get(struct store *st, char *buf, size_t cap, const char *address) STORE_CHECKED;
int store_timezone_set(struct store *st, const char *address, const char *zone) STORE_CHECKED;
/* `leave auto on|off` (clocks.c): leave taken for the player at a deadline. */
int store_leave_auto_get(struct store *st, bool *on, const char *address) STORE_CHECKED;
int store_leave_auto_set(struct store *st, const char *address, bool on) STORE_CHECKED;
/* `calendar on|off` (clocks.c): "your move" mails carry an iCalendar event. */
int store_calendar_get(struct store *st, bool *on, const char *address) STORE_CHECKED;
int store_calendar_set(struct store *st, const char *address, bool on) STORE_CHECKED;

/* ---- seeks (seeks.c): open requests for an opponent ---- */

/* One seek. `options` holds the seek's terms after its kind: the
 * service's words (private, weekends=off, as=SEAT) and then the rules'
 * options as `new` stores them, "key=value;..." (referee/handlers/cmd_seek.c). */
struct store_seek {
  int64_t id;
  char address[256]; /* the seeker: a confirmed address */
  char kind[32];     /* the game system */
  char options[256];
  int days;          /* days per move */
  int rated;         /* 1 rated, 0 unrated */
  int64_t created, expires; /* unix seconds */
  char phase[16];    /* open, paired, expired, withdrawn */
  int64_t game;      /* paired: the game it started; else 0 */
};

/* A new open seek; its id in *id. */
int store_seek_put(struct store *st, int64_t *id, const struct store_seek *s) STORE_CHECKED;
int store_seek_get(struct store *st, struct store_seek *out, int64_t id) STORE_CHECKED; /* ENOTFOUND */
/* The open seeks of `kind` (NULL: all) and of `address` (NULL: everyone's),
 * oldest first; free() *seeks. */
int store_seeks_open(struct store *st, struct store_seek **seeks, size_t *n, const char *kind,
                     const char *address) STORE_CHECKED;
/* An open seek becomes `phase` ("paired" with `game`, "expired",
 * "withdrawn"); ENOTFOUND when it is not open (closed already). */
int store_seek_close(struct store *st, int64_t id, const char *phase, int64_t game) STORE_CHECKED;
/* The open seeks whose expiry is at or before `now`, by id; free() *ids. */
int store_seeks_expired(struct store *st, int64_t **ids, size_t *n, int64_t now) STORE_CHECKED;

/* ---- game state beside the games (gamestate.c, schema v10) ----
 *
 * What the service keeps about a game, a seat or a player besides their
 * own rows: until v10 strings in the kv table ("resign:GAME", ...), where
 * no constraint held them and `tabula check` could not see them; a table
 * each since, referring to the game, the seat or the player it belongs to
 * (docs/architecture.md, "The store"). A getter of a thing not set says
 * so (*found false, *on false, ...) and returns STORE_OK: only a failure
 * is a store code. */

/* BG-5: a cube game's standing resignation offer: the offering seat and
 * its level (1 single, 2 gammon, 3 backgammon). */
int store_resign_get(struct store *st, bool *found, int *seat, int *level, int64_t game) STORE_CHECKED;
int store_resign_set(struct store *st, int64_t game, int seat, int level) STORE_CHECKED;
int store_resign_clear(struct store *st, int64_t game) STORE_CHECKED;

/* A standing takeback request: the asking seat and the journal seq of the
 * move it would take back. */
int store_takeback_get(struct store *st, bool *found, int *seat, int64_t *seq, int64_t game) STORE_CHECKED;
int store_takeback_set(struct store *st, int64_t game, int seat, int64_t seq) STORE_CHECKED;
int store_takeback_clear(struct store *st, int64_t game) STORE_CHECKED;

/* rules-spec 1.6: a seat's standing "roll", the answer to its next cube
 * question, kept until used. */
int store_autoroll_get(struct store *st, bool *on, int64_t game, int seat) STORE_CHECKED;
int store_autoroll_set(struct store *st, int64_t game, int seat, bool on) STORE_CHECKED;

/* "if double then take|drop": a seat's standing answer to the next double. */
enum store_cube_answer { STORE_CUBE_NONE, STORE_CUBE_TAKE, STORE_CUBE_DROP };
int store_cube_answer_get(struct store *st, enum store_cube_answer *answer, int64_t game,
                          int seat) STORE_CHECKED;
int store_cube_answer_set(struct store *st, int64_t game, int seat,
                          enum store_cube_answer answer) STORE_CHECKED; /* NONE forgets it */

/* Who watches a game, in the order they came; free() *rows. */
struct store_observer {
  char address[256];
};
int store_observer_list(struct store *st, struct store_observer **rows, size_t *n, int64_t game) STORE_CHECKED;
/* Adds an observer (*added false: it was one already). */
int store_observer_add(struct store *st, bool *added, int64_t game, const char *address) STORE_CHECKED;
/* Removes one, its address compared without regard to case (*removed
 * false: it was none). */
int store_observer_remove(struct store *st, bool *removed, int64_t game, const char *address) STORE_CHECKED;

/* What a game was created as: private (no observers), public-comments
 * (observers read the players' comments). Set once, never unset. */
enum store_game_flag { STORE_FLAG_PRIVATE, STORE_FLAG_PUBLIC_COMMENTS };
int store_game_flag_get(struct store *st, bool *on, int64_t game, enum store_game_flag flag) STORE_CHECKED;
int store_game_flag_set(struct store *st, int64_t game, enum store_game_flag flag) STORE_CHECKED;

/* A player who turned the opponents' comments off (address lower-cased). */
int store_comments_off_get(struct store *st, bool *off, const char *address) STORE_CHECKED;
int store_comments_off_set(struct store *st, const char *address, bool off) STORE_CHECKED;

/* The dice protocol a game's dice follow (docs/dice-protocol.md,
 * "Versions"), recorded with its first chain: *version 0 when none is
 * recorded (a game drawn before tabula-dice-2). */
int store_dice_protocol_get(struct store *st, int *version, int64_t game) STORE_CHECKED;
int store_dice_protocol_set(struct store *st, int64_t game, int version) STORE_CHECKED;

/* The highest roll of a game whose faces were previewed to its players
 * (lag): *roll 0 when none was. */
int store_lag_get(struct store *st, int64_t *roll, int64_t game) STORE_CHECKED;
int store_lag_set(struct store *st, int64_t game, int64_t roll) STORE_CHECKED;

/* Hourly counts of mail (rules-spec MX-4): the per-sender rate, the
 * unasked mails to an address, the budget of mail to strangers (address
 * ""). A window started at `start` and holds `count` mails. */
enum store_counter { STORE_COUNT_RATE, STORE_COUNT_UNASKED, STORE_COUNT_STRANGERS };
struct store_hourly {
  int64_t start, count;
};
int store_hourly_get(struct store *st, bool *found, struct store_hourly *out,
                     enum store_counter counter, const char *address) STORE_CHECKED;
int store_hourly_set(struct store *st, enum store_counter counter, const char *address,
                     const struct store_hourly *h) STORE_CHECKED;

/* For `tabula check`: the rows of those tables that point to no game, no
 * seat or no journal entry, hold a value out of range, and kv rows of a
 * kind that has its table. *problems gets one line per row ("" when all
 * hold; free()); STORE_OK means the check ran, whatever it found. */
int store_state_check(struct store *st, char **problems) STORE_CHECKED;

/* Hex SHA-256 of len bytes (nettle), written to hex[65]. For message digests. */
void store_sha256_hex(char hex[65], const void *data, size_t len);

#endif /* TABULA_STORE_H */
