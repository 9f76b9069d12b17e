/*
 * service_int.h: what the service's files share (not exported beyond
 * tabula_service). The public face is referee.h.
 */
#ifndef TABULA_SERVICE_INT_H
#define TABULA_SERVICE_INT_H

#include "referee.h"
#include "rules.h"
#include "store.h"
#include "templates.h"

struct mail_msg;

struct ref_service {
  struct ref_config cfg;
  struct store *st;
  int64_t (*clock)(void *arg);
  void *clock_arg;
  struct ref_transport *transport; /* transport.c: live IMAP/SMTP sessions, or NULL */
};

/* A game rebuilt from its journal. */
struct ref_game_ctx {
  struct store_game row;
  struct store_seat *seats;
  size_t nseats;
  const struct ref_game_desc *desc;
  struct ref_state *state; /* valid once started */
  int started;
  size_t journal_len;
  char last_move[160]; /* "12. Nf3", as the last move mail showed it */
  char played[160];    /* the move this message made ("" if none): its mails name it,
                        * not a forced play or pass that followed it */
};

#include "buf.h"

/* One inbound message being processed. */
struct ref_msg_ctx {
  struct ref_buf events;  /* rolls and automatic plays made for it: shown in its mails */
  struct ref_service *svc;
  const struct mail_msg *mail;
  const char *message_id; /* the mail's, or a digest-derived stand-in */
  int replied;            /* replies queued */
  int changed;            /* state changed */
  int refused;
  int observed;           /* a change observers are shown (observe GAME) */
};

int64_t ref_now(struct ref_service *svc);
int ref_make_token(char *out, size_t cap);
void ref_move_label(struct ref_game_ctx *g, const char *canon, char *buf, size_t cap);
int ref_mkdirs(const char *path);

int ref_game_load(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                  size_t cap);
void ref_game_free(struct ref_game_ctx *g);
int ref_game_save(struct ref_service *svc, struct ref_game_ctx *g);
int ref_journal(struct ref_service *svc, struct ref_game_ctx *g, int seat, const char *kind,
                const char *text, const char *dice);
void ref_result_text(char *buf, size_t cap, const struct ref_game_desc *d,
                     const struct ref_status *s);
void ref_action_text(char *buf, size_t cap, enum ref_action a, int arg);
int ref_action_parse(const char *text, enum ref_action *a, int *arg);

/* Replies (reply.c). `m` non-NULL and `to` equal to its sender makes the
 * reply thread under the inbound message. `g`/`seat` give the subject tag
 * and the tokened Reply-To; seat -1 for none. */
int ref_reply(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *to,
              const char *tmpl, const struct tpl_var *vars, size_t nvars);

/* Between decisions (turns.c): roll, play forced turns, until a player
 * must decide. Lines for the mails go to `shown`. */
int ref_game_advance(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct ref_buf *shown);
int ref_game_roll_now(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct ref_buf *shown);
/* Lag Backgammon Chess (lag.c, rules-spec 6.9): mails each player, privately,
 * the faces of their next L rolls not yet mailed. 0 for other games. */
int ref_lag_mail(struct ref_msg_ctx *m, struct ref_game_ctx *g);
int ref_autoroll_set(struct ref_service *svc, int64_t game, int seat, int on);
int ref_dice_new_chain(struct ref_service *svc, int64_t game, int chain, int64_t rolls);
int ref_dice_commitment_line(struct ref_service *svc, int64_t game, char *buf, size_t cap);
int ref_dice_fix_entropy(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *shown);
int ref_dice_transcript(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out,
                        int *nrolls);

/* Mail sources and sinks (transport.c). ref_inbound_pass: one batch-wise
 * pass over the configured source (process, commit, then acknowledge);
 * ref_inbound_wait: until there may be news (IMAP IDLE, else poll_ms).
 * The outbox goes through the sink in ref_service_flush_outbox. */
int ref_inbound_pass(struct ref_service *svc, size_t *processed);
int ref_inbound_wait(struct ref_service *svc, volatile sig_atomic_t *stop);
void ref_transport_close(struct ref_service *svc);
/* The daemon's stop flag: batches and the outbox flush stop at the next
 * message once it is set (issue 13: SIGTERM in under a second). */
void ref_transport_stop_on(struct ref_service *svc, volatile sig_atomic_t *stop);
/* The store's failure during the last pass (copied into buf, then
 * cleared): false when the store did not fail. daemon.c backs off on it. */
bool ref_transport_fault(struct ref_service *svc, char *buf, size_t cap);
/* Tests only: dies (_exit 86) here when TABULA_TEST_CRASH names `where`. */
void ref_test_crash(const char *where);

/* The message path (process.c). */
int ref_process_commands(struct ref_msg_ctx *m);
/* process.c's refusal for other files (reason key, nothing changed). */
int ref_refuse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *input,
               const char *reason, const char *detail, const struct ref_err *err);

/* Time (clock.c): dates are whole UTC days since 1970-01-01. */
struct ref_clock_rules {
  int weekends;                     /* Saturdays and Sundays count */
  const struct store_vacation *vac; /* days that never count */
  size_t nvac;
};
int64_t ref_day_of(int64_t t);
int ref_weekday(int64_t day); /* 0 Sunday .. 6 Saturday */
int ref_year_of_day(int64_t day);
int ref_date_parse(const char *s, int64_t *day); /* exactly YYYY-MM-DD; 0 or -1 */
void ref_date_text(char *buf, size_t cap, int64_t day);
void ref_time_text(char *buf, size_t cap, int64_t t); /* "2026-11-30 09:00 UTC" */
/* Counted seconds in [from, to); the moment `need` counted seconds after from
 * (INT64_MAX if never). */
int64_t ref_clock_counted(const struct ref_clock_rules *r, int64_t from, int64_t to);
int64_t ref_clock_reach(const struct ref_clock_rules *r, int64_t from, int64_t need);
/* A `new` option word: 1 taken (days=N, weekends=on|off), 0 not a clock
 * option, -1 a clock option with a bad value. */
int ref_clock_option(const char *tok, int *days, int *weekends);
int ref_clock_create(struct ref_service *svc, int64_t game, int days, int weekends);
/* After a mail changed a game: restart the clock if another decision is now
 * awaited. Before its commands: a game whose time is up is lost on time
 * (timeout=auto). */
int ref_clock_sync(struct ref_service *svc, struct ref_game_ctx *g);
/* For a mail's view: the time control ("7 days per move, weekends
 * counted") and, when `seat` must act, its deadline ("" otherwise). */
void ref_clock_view(struct ref_service *svc, struct ref_game_ctx *g, int seat, char *control,
                    size_t ccap, char *deadline, size_t dcap);
int ref_clock_overdue(struct ref_msg_ctx *m, struct ref_game_ctx *g);
/* vacation, digest, claim time (enum ref_cmd_kind values). */
struct ref_cmd;
int ref_clock_is_command(int kind);
int ref_clock_command(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_cmd *c);
/* 1 when the mail was held for the player's daily digest (reply.c). */
int ref_digest_hold(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *to,
                    const char *tmpl, const char *subject, const char *reply_to,
                    const char *body);
int ref_clock_use_file(struct ref_service *svc, char *errbuf, size_t errcap);
/* Mails to the players of g and to its observers (process.c): the seat's
 * view of the game plus `extra`; observers get the view from the first
 * seat's side, no key, nothing that lets them act. */
int ref_tell_seat(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *tmpl,
                  const struct tpl_var *extra, size_t nextra);
int ref_tell_all(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                 const struct tpl_var *extra, size_t nextra);
int ref_tell_observers(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                       const struct tpl_var *extra, size_t nextra);

/* The record of a game (record.c): `history`, `tabula export`, observers. */
int ref_game_replay_entry(struct ref_game_ctx *g, const struct store_entry *e, char *why,
                          size_t cap);
int ref_game_history(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out);
int ref_game_export(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out);
int ref_adjudication_parse(const char *text, int *winner);
int ref_observers(struct ref_service *svc, int64_t game, char *buf, size_t cap);
/* 0 done, 1 nothing to do (already / not an observer), -2 full, -1 error */
int ref_observer_set(struct ref_service *svc, int64_t game, const char *address, int on);
int ref_is_observer(struct ref_service *svc, int64_t game, const char *address);

#endif
