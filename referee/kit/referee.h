/*
 * referee.h: the service's public header (library tabula_service). The one
 * place that joins the rules core, the store and the mail layer.
 *
 * The path of one message (docs/architecture.md):
 *   raw bytes -> mail_parse -> find game and seat by token -> commands ->
 *   rules -> ONE store transaction (message seen, journal, state, outbox)
 *   -> acknowledge the source -> send the outbox.
 */
#ifndef TABULA_REFEREE_H
#define TABULA_REFEREE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The configuration: one table of options (config.c) drives defaults,
 * parsing, validation and `tabula check-config`. */
/* The words of the enum options (config.c's table maps each word to its
 * value, once, when the file is read; nothing else compares the words). */
enum ref_source { REF_SOURCE_MAILDIR, REF_SOURCE_IMAP, REF_SOURCE_POP3 };
enum ref_sink { REF_SINK_MAILDIR, REF_SINK_SMTP, REF_SINK_SENDMAIL };
enum ref_tls { REF_TLS_IMPLICIT, REF_TLS_STARTTLS, REF_TLS_NONE };
enum ref_auth { REF_AUTH_TOKEN_FROM, REF_AUTH_TOKEN };
enum ref_keyless { REF_KEYLESS_CONFIRM, REF_KEYLESS_ACT, REF_KEYLESS_OFF };
enum ref_timeout { REF_TIMEOUT_AUTO, REF_TIMEOUT_CLAIM };
enum ref_log_format { REF_LOG_FORMAT_AUTO, REF_LOG_FORMAT_JOURNAL, REF_LOG_FORMAT_PLAIN };

struct ref_config {
  char store_path[512];    /* SQLite file */
  char store[1024];        /* a PostgreSQL database instead ("" = store_path) */
  char inbox[512];         /* Maildir read by `serve` */
  char outbox[512];        /* Maildir that replies are written to */
  char address[256];       /* the referee's address; replies come from it */
  char domain[128];        /* right side of Message-IDs */
  char templates_dir[512]; /* override for templates/, "" = the embedded ones */
  int poll_ms;             /* inbox poll interval of `serve` */
  int log_level;           /* 0 error .. 3 debug */
  char log_file[512];      /* "" : standard error only; else lines appended here too (log.c) */
  enum ref_log_format log_format; /* auto | journal | plain (priorities for the journal) */
  char help_url[256];      /* a page of rules and help named in help mails; "" = none */
  enum ref_auth auth;      /* token+from: key and From must both match the seat
                              (default); token: the key alone, the seat's player of
                              record is copied on what another address did */
  enum ref_keyless keyless; /* a known player's mail without a key: confirm
                              (queries answered, actions asked to be confirmed from the
                              address of record; default), act (at once), off */
  char trusted_authserv_id[256]; /* The receiving server whose Authentication-Results
                              (dmarc=pass, or dkim=pass for the From's domain) let a
                              keyless mail act at once under keyless = confirm; "" none */
  int rate_limit;          /* mails per hour per sender; 0 = no limit */
  /* Nothing to an address that has not asked (optin.c). */
  int stranger_mails_per_hour; /* all mails an hour, together, to addresses that hold no seat
                                  and never answered us: confirmations, help, invitations */
  int confirm_days;        /* a confirmation request's key lapses after this */
  int recipient_delimiter; /* local+GAME.KEY@domain: '+' (or '-' '=' '_' as the MTA uses) */
  /* Mail transports (transport.c): where mail comes from and goes. */
  enum ref_source source;  /* maildir | imap | pop3 (the MTA pipe is `tabula deliver`) */
  char in_host[256];       /* IMAP or POP3 server */
  int in_port;             /* 0: 993/143 or 995/110 after in_tls */
  enum ref_tls in_tls;     /* implicit | starttls | none */
  char in_user[256];
  char in_password[256];
  char in_password_file[512]; /* the password's file; config.c reads it into in_password */
  char imap_mailbox[256];  /* the folder read, INBOX */
  char imap_move_to[256];  /* "" : flag \Seen after commit; else MOVE there */
  enum ref_sink sink;      /* maildir | smtp | sendmail */
  char smtp_host[256];
  int smtp_port;           /* 0: 587 (starttls, none) or 465 (implicit) */
  enum ref_tls smtp_tls;   /* starttls | implicit | none */
  char smtp_user[256];
  char smtp_password[256];
  char smtp_password_file[512];
  char sendmail_path[256]; /* the sendmail sink's program */
  char tls_cafile[512];    /* PEM trust anchors; "" = the system store */
  int tls_verify;          /* 1: servers' certificates and names are checked */
  int net_timeout_s;       /* per network operation */
  int batch_max;           /* messages per transaction (one fsync group) */
  int retry_base_s;        /* first outbox retry after this; doubles each time */
  int outbox_keep_days;    /* sent replies are pruned after this (0: kept) */
  /* Time (clock.c). */
  int days_per_move;       /* default time per move, game option days=N */
  char time_control[32];  /* default control ("30d+1d", "10/50d"; "" days_per_move), game option time=... */
  int weekends;            /* 1: Saturdays and Sundays count (game option weekends=on|off) */
  enum ref_timeout timeout; /* auto: the late player loses; claim: the opponent may claim */
  int vacation_days;       /* vacation allowance per player per calendar year */
  int vacation_min_days;   /* the shortest vacation that may be booked (TM-8) */
  int invite_days;         /* an invitation not accepted by then is cancelled */
  int seek_days;           /* an open seek not paired by then expires */
  int digest_hour;         /* UTC hour at which daily digests go out */
  char test_clock_file[512]; /* TESTS ONLY: epoch seconds read from this file */
  /* The HTML part of mails that show a board; the web view. */
  int html;                /* 1: a mail that shows a board also has an HTML part */
  char site_dir[512];      /* "" : no web view; else the daemon writes it there */
  char site_url[256];      /* the web view's address: mails carry the game's link */
};

void ref_config_defaults(struct ref_config *cfg);
/* Reads an INI file over the current values; unknown keys are errors.
 * 0 when loaded; REF_CONFIG_EREAD when the file cannot be read at all;
 * REF_CONFIG_EINVALID when it holds an error (errbuf says which line). */
#define REF_CONFIG_EREAD (-1)
#define REF_CONFIG_EINVALID (-2)
int ref_config_load(struct ref_config *cfg, const char *path, char *errbuf, size_t errcap);
/* One option of the table as check-config shows it, in the table's
 * order: its value is value_int when is_int, else value; a password that
 * is set is hidden (value NULL), never shown. */
struct ref_config_item {
  const char *name, *help, *deflt;
  bool is_int, hidden;
  int value_int;
  const char *value;
};
/* The option at i (0, 1, ...): 0, or -1 past the last. */
int ref_config_option(const struct ref_config *cfg, size_t i, struct ref_config_item *item);
void ref_config_dump(FILE *out, const struct ref_config *cfg);
/* The store the service opens: `store` when set (a PostgreSQL database),
 * else store_path (the SQLite file). */
const char *ref_config_store(const struct ref_config *cfg);
/* The same as JSON (docs/json.md), with the file read (NULL: none, the
 * built-in defaults) and how it was chosen (json_out.c: not in config.c,
 * which tabula-deliver links without jansson). 0, or -1. */
int ref_config_json(FILE *out, const struct ref_config *cfg, const char *path,
                    const char *origin);
/* Which file configures every command (tabula(1), FILES): the -c FILE
 * given (option_path), else $TABULA_CONFIG, else the system file
 * (REF_CONFIG_SYSTEM_FILE) when it exists, else none: the built-in
 * defaults, which keep everything in ./tabula-data. Returns the path or
 * NULL for the defaults; *origin says how it was chosen, in words. */
const char *ref_config_locate(const char *option_path, const char **origin);
/* The system configuration file: SYSCONFDIR/tabula/tabula.ini of the
 * installation (/etc/tabula/tabula.ini for the Debian package). */
extern const char ref_config_system_file[];
/* The transport options (source, sink, TLS words, hosts) hang together:
 * 0 when they do, else -1 with the reason (transport.c). Not part of
 * ref_config_load, whose caller asks it next: config.c stays free of the
 * mail stack, so tabula-deliver links it alone. */
int ref_config_check_mail(const struct ref_config *cfg, char *errbuf, size_t errcap);

/* What became of one message. */
enum ref_outcome {
  REF_MSG_APPLIED,   /* commands ran; state may have changed */
  REF_MSG_REFUSED,   /* answered with an error; nothing changed */
  REF_MSG_IGNORED,   /* automatic mail, stranger, unreadable: no reply */
  REF_MSG_DUPLICATE  /* Message-ID already processed: nothing at all */
};

struct ref_service;

/* 0, or why not: REF_OPEN_EDAMAGED when the store is no store this
 * program can use (not a database, damaged, a newer schema): trying again
 * the same way cannot help; REF_OPEN_EFAIL for anything else (busy, a full
 * disk, a folder that cannot be made). */
enum { REF_OPEN_EFAIL = -1, REF_OPEN_EDAMAGED = -2 };
int ref_service_open(struct ref_service **out, const struct ref_config *cfg, char *errbuf,
                     size_t errcap);
void ref_service_close(struct ref_service *svc); /* NULL is fine */
/* Whether the configured store is a file (store_path's SQLite) rather than
 * a database on a server (`store`). */
bool ref_service_store_is_file(const struct ref_config *cfg);
/* The configured store's name for messages and logs (store_display_name:
 * a server's database named without a password). */
void ref_service_store_name(const struct ref_config *cfg, char *buf, size_t cap);
/* For a store on a server: whether a store has been made in it (1), not
 * (0), or it cannot be told now (-1, errbuf says why). */
int ref_service_store_made(const struct ref_config *cfg, char *errbuf, size_t errcap);

/* The clock, injectable for tests (seconds since the epoch). */
void ref_service_set_clock(struct ref_service *svc, int64_t (*now)(void *arg), void *arg);

/* Processes one raw message in one transaction. arrived: when it reached
 * the referee's mailbox (Unix seconds; the source's time: Maildir delivery,
 * IMAP INTERNALDATE, the top Received: for POP3, now for deliver), -1 when
 * unknown; a time in the future counts as now. The clock's rulings on the
 * mail (loss on time, a time claim) are made at that time.
 * Returns 0 when the message may be acknowledged to its source (whatever
 * the outcome), -1 on a temporary failure (store busy, disk full): keep it
 * and retry. */
int ref_service_process(struct ref_service *svc, const char *raw, size_t len, int64_t arrived,
                        enum ref_outcome *outcome);
/* The time-driven work (tick.c): invitations expired, reminders, loss on
 * time, daily digests; one transaction per game or player, idempotent
 * (a second call at the same time sends nothing). *actions counts what was
 * done. Does not flush the outbox. */
int ref_service_tick(struct ref_service *svc, size_t *actions);
/* The MTA-pipe mode: one message from fd, processed, outbox flushed.
 * Returns 0 when done, 1 when the message can never be taken (over the size
 * limit: the MTA should return it to its sender), -1 when it should be
 * offered again later (nothing was changed). */
int ref_service_deliver_fd(struct ref_service *svc, int fd);
/* One pass over inbox/new: process, acknowledge after commit, flush. */
int ref_service_poll(struct ref_service *svc, size_t *processed);
/* The same, *sent set to the replies it sent (`tabula tick` prints them). */
int ref_service_poll_sent(struct ref_service *svc, size_t *processed, size_t *sent);
/* Writes every due outbox row to the outbox Maildir, marking each sent. */
int ref_service_flush_outbox(struct ref_service *svc, size_t *sent);
/* The daemon loop: poll until *stop is set (SIGTERM/SIGINT). Takes the
 * store's daemon lock first: -1 when another daemon holds it. */
int ref_service_run(struct ref_service *svc, volatile sig_atomic_t *stop);
/* `tabula serve`: opens the service, waiting (with backoff) while the
 * store is unavailable, then ref_service_run, then closes. 0 when stopped
 * by a signal, REF_OPEN_EDAMAGED for a store that is no usable store,
 * -1 for anything else. */
int ref_service_serve(const struct ref_config *cfg, volatile sig_atomic_t *stop);

/* Operator views. What each found, for tabula(1)'s exit status. */
enum ref_admin_rc {
  REF_ADMIN_OK = 0,
  REF_ADMIN_FAULT = 1,   /* it ran and found a fault (a roll that does not verify) */
  REF_ADMIN_NO_GAME = 2, /* no game of that number in the store */
  REF_ADMIN_REFUSED = 3, /* not for that game: not running, not one of its results */
  REF_ADMIN_FAILED = 4   /* the store failed or was busy: nothing changed */
};
/* What the operator's read-only commands write: the text for a person,
 * or one JSON document for a script (docs/json.md), from the same data. */
enum ref_output { REF_OUTPUT_TEXT, REF_OUTPUT_JSON };
/* Every game: number, kind, phase, the side to move, the players by side,
 * the result; columns aligned. */
int ref_service_print_games(struct ref_service *svc, FILE *out, enum ref_output form);
/* One game: its players, the board, the position string, the journal. */
int ref_service_print_game(struct ref_service *svc, FILE *out, int64_t game,
                           enum ref_output form);
/* Replays every game's journal through the rules and compares with the
 * stored state and the journal's hash chain. 0 when all agree. */
int ref_service_check(struct ref_service *svc, FILE *out, enum ref_output form);
/* `tabula store copy FROM TO`: the store named FROM copied into the empty
 * store named TO (an SQLite file or a PostgreSQL database, either way:
 * store_copy), then TO checked as ref_service_check checks a store (every
 * journal's chain, every game replayed) with cfg's other settings. What it
 * did and found is written to out. */
enum ref_copy_rc {
  REF_COPY_OK = 0,
  REF_COPY_FAULT = 1,     /* copied, but the check of the copy found a fault */
  REF_COPY_NO_SOURCE = 2, /* no store at FROM: nothing made there */
  REF_COPY_BUSY = 3,      /* a daemon serves FROM or TO */
  REF_COPY_NOT_EMPTY = 4, /* TO holds a club already */
  REF_COPY_FAILED = 5     /* anything else: TO is left as empty as it was */
};
int ref_service_store_copy(const struct ref_config *cfg, const char *from, const char *to,
                           FILE *out);
/* The operator decides a running game: RESULT is a seat's name (it wins),
 * 1-0 / 0-1, or draw. Journaled (with the reason, when given), every
 * player and observer mailed (REF_END_ADJUDICATED, adjudicated.txt). */
int ref_service_adjudicate(struct ref_service *svc, FILE *out, int64_t game,
                           const char *result, const char *reason);
/* The operator and a game's clocks (rules-spec TM-7): with seat NULL,
 * prints the control, both clocks (time left, the deadline of the one
 * that runs, moves made) and their history (the moves' times, time
 * given, a loss on time); with seat ("white"), amount ("2d", "12h") and
 * a reason, adds that time to the seat's clock, journaled ("time") and
 * both players mailed (time-added.txt). */
int ref_service_time(struct ref_service *svc, FILE *out, int64_t game, const char *seat,
                     const char *amount, const char *reason);
/* The game's record: PGN for chess, PDN for checkers, .mat for
 * backgammon, a transcript with the dice lines for the other games (so
 * tools/tabula-verify-dice.py checks it). `format` NULL is that record;
 * else a file extension of the game's formats ("sgf" for backgammon,
 * docs/records.md): REF_ADMIN_REFUSED, said on stderr, when it has none. */
int ref_service_export(struct ref_service *svc, FILE *out, int64_t game, const char *format);
/* The referee's public key, the verifier key every game mail's history
 * lines are signed with (docs/history-protocol.md), made at the first
 * call; with rotate a new key first, the old one kept beside it. */
int ref_service_key(struct ref_service *svc, FILE *out, int rotate);
/* Checks every dice roll of a game (tabula-dice-1) from the store. */
int ref_service_verify(struct ref_service *svc, FILE *out, int64_t game);
/* The Glicko-2 ratings of one game system (kind NULL: every system), after
 * rebuilding the stored table from the journals when `rebuild`
 * (admin_compete.c). */
int ref_service_ratings(struct ref_service *svc, FILE *out, const char *kind, int rebuild,
                        enum ref_output form);
/* A round robin made by the operator: GAME, NAME, the players (and
 * key=value options, "unrated"), once or twice (cycles 2); every player is
 * invited by mail and accepts. */
int ref_service_tournament_new(struct ref_service *svc, FILE *out, const char *kind,
                               const char *name, char *const *words, int nwords, int cycles);
/* A round robin's standings, by name or number. */
int ref_service_standings(struct ref_service *svc, FILE *out, const char *name,
                          enum ref_output form);
/* The read-only web view (site.c): index.html, a page and the
 * record of every published game updated at or after `since` (0: all)
 * written into dir. *written counts the pages. */
int ref_service_site(struct ref_service *svc, const char *dir, int64_t since, size_t *written);

#endif /* TABULA_REFEREE_H */
