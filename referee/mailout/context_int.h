/*
 * context_int.h: layer 2 of the service, "mail out" (docs/architecture.md):
 * the three contexts every layer above passes around (the service, a game,
 * one message), the time now and tokens (context.c), the one way a mail
 * leaves: ref_reply (reply.c), and who may be sent mail at all (optin.c).
 * Nothing here calls a layer above.
 */
#ifndef TABULA_CONTEXT_INT_H
#define TABULA_CONTEXT_INT_H

#include "base.h"
#include "rc.h"
#include "referee.h"
#include "rules.h"
#include "store.h"
#include "templates.h"

struct mail_msg;
struct mail_part;
struct ref_history_key;
struct ref_history_cache;

struct ref_service {
  struct ref_config cfg;
  struct store *st;
  int64_t (*clock)(void *arg);
  void *clock_arg;
  struct ref_transport *transport; /* transport.c: live IMAP/SMTP sessions, or NULL */
  /* Every mail that reached the inbox before this time (the service's
   * clock) has been read: the start of the last inbox pass that read all
   * it found, or the arrival of a mail it left because it was still being
   * written, if earlier; 0 before any such pass. The tick rules a loss on
   * time only for a deadline before it (rules-spec TM-1). */
  int64_t read_through;
  /* This process runs the tick: it holds the tick's lock (store_lock_tick;
   * of several daemons on one database, one does). Said once in the log. */
  bool ticking;
  /* history.c: the referee's signing key, read at the first mail that
   * needs it, and the last game's tree leaves */
  struct ref_history_key *hkey;
  struct ref_history_cache *hcache;
};

/* A game rebuilt from its journal (game.c). */
struct ref_game_ctx {
  struct store_game row;
  struct store_seat *seats;
  size_t nseats;
  const struct ref_game_desc *desc;
  struct ref_state *state; /* valid once started, or with preview */
  int started;
  int preview; /* not started: state is the position an invitation starts
                * from (given with the options), shown to the invitee */
  size_t journal_len;
  /* The journal's head as this process last wrote or read it, and the
   * "move" entries up to it: the snapshot's facts (game.c). */
  int64_t head_seq;
  char head_hash[65];
  int64_t moves;
  char last_move[160]; /* "12. Nf3", as the last move mail showed it */
  char played[160];    /* the move this message made ("" if none): its mails name it,
                        * not a forced play or pass that followed it */
  char reply[400];     /* moves prepared lines made after it ("3. e5") */
  char played_canon[REF_NOTATION_MAX]; /* that move as the rules format it */
};

/* One inbound message being processed (message.c), or the stand-in a tick
 * or the operator uses to send mail (mail NULL, message_id ""). */
struct ref_msg_ctx {
  struct base_buf events;  /* rolls and automatic plays made for it: shown in its mails */
  struct ref_service *svc;
  const struct mail_msg *mail;
  const char *message_id; /* the mail's, or a digest-derived stand-in */
  int64_t arrived;        /* when it reached the mailbox, at most now:
                             the clock judges the mail at this time */
  int replied;            /* replies queued */
  int changed;            /* state changed */
  int refused;
  int observed;           /* a change observers are shown (observe GAME) */
  int unproven;           /* its From is not proven (no key of the From's own, no
                             confirmation key sent to it, no vouching server): its
                             answers are sent text only, within the From's hourly
                             allowance of unasked mail (dispatch.c, optin.c) */
  int64_t game;           /* the game it was about, 0 for none: the log's line per mail */
  /* The sender's words to the opponent (talk.c), NULL or "" for
   * none: "alice@example.org writes:" and the lines, shown by views.c to
   * the other seats of comment_game (once each, comment_told a bit per
   * seat) unless they turned comments off, and to its observers in a
   * public-comments game */
  const char *comment;
  int64_t comment_game;
  int comment_seat;
  unsigned comment_told;  /* seats that were shown it or told it was not passed */
  int comment_observers;  /* observers were shown it */
};

/* context.c */
int64_t ref_now(struct ref_service *svc);
/* The time from the file test_clock_file names (tests only, logged). */
int ref_now_use_file(struct ref_service *svc, char *errbuf, size_t errcap);
int ref_make_token(char *out, size_t cap);
/* A message context with no inbound mail (ticks, the operator); free its
 * events with base_buf_free. */
void ref_msg_init(struct ref_msg_ctx *m, struct ref_service *svc);
/* The undo of a transaction (a batch) on a path that fails already:
 * what failed is reported by the caller and the message is retried; a
 * failure of the undo itself is logged, nothing more can be done about
 * it here (the next transaction finds the store as SQLite left it). */
void ref_store_rollback(struct ref_service *svc);
void ref_store_batch_rollback(struct ref_service *svc);

/* An hourly count in the store (hourly_counts): `counter` of `address`
 * (the rate limit per sender, the unasked mails to an address; the
 * budget for mail to strangers, address ""): a window that
 * starts with the first count and lasts an hour, written in the caller's
 * transaction, so a message rolled back takes its count back with it.
 * Adds n, unless that passes `limit` and !count_over. 1 when the count
 * with n passes limit, 0 when not, -1 on a store failure. */
int ref_hourly_count(struct ref_service *svc, enum store_counter counter, const char *address,
                     int n, int limit, bool count_over);
/* Whether n more fit under `limit` in that count now, taking nothing: 1
 * yes, 0 no, -1 on a store failure. */
int ref_hourly_room(struct ref_service *svc, enum store_counter counter, const char *address,
                    int n, int limit);

/* Replies (reply.c). `m` non-NULL and `to` equal to its sender makes the
 * reply thread under the inbound message. `g`/`seat` give the subject tag
 * and the tokened Reply-To; seat -1 for none. A mail the reader's digest
 * may hold (news of what others did) goes to the digest queue instead. */
int ref_reply(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *to,
              const char *tmpl, const struct tpl_var *vars, size_t nvars);
/* The address a mail to seat's player of g answers to, the seat's key in
 * it ("referee+12.KEY@example.org"): where a reply acts in g. */
int ref_seat_reply_to(const struct ref_service *svc, const struct ref_game_ctx *g, int seat,
                      char *buf, size_t cap);
/* What a mail may carry beside its words: the board as data for
 * the HTML part (NULL: the ASCII board is shown there), files, the game's
 * web page. */
struct ref_reply_extra {
  const struct ref_diagram *diagram;
  const struct mail_part *attach;
  size_t nattach;
  const char *link;
};
int ref_reply_ex(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *to,
                 const char *tmpl, const struct tpl_var *vars, size_t nvars,
                 const struct ref_reply_extra *x);

/* A confirmation request (optin.c): the one-time key in the subject and the
 * Reply-To, as a game mail carries a seat's key. */
int ref_reply_confirm(struct ref_msg_ctx *m, const char *to, const char *key, const char *tmpl,
                      const struct tpl_var *vars, size_t nvars);

/* Nothing to an address that has not asked (optin.c). Each
 * returns -1 on a store error. */
/* 1 when the address has answered one of our mails (a confirmation, or a
 * mail with its seat's key from its own address), else 0. */
int ref_confirmed(struct ref_service *svc, const char *address);
int ref_confirmed_add(struct ref_service *svc, const char *address, const char *how);
/* 1 when the address holds no seat in any game and has not confirmed. */
int ref_stranger(struct ref_service *svc, const char *address);
/* Takes n mails to strangers from the hourly budget (stranger_mails_per_hour):
 * 1 taken, 0 over it (nothing taken, logged with what and to). */
int ref_stranger_budget(struct ref_service *svc, int n, const char *what, const char *to);
/* An answer to m's sender that asked for nothing of its own (help,
 * ratings): 1 it may go (a known address, or a stranger within the budget,
 * counted), 0 not (m->refused set). */
int ref_stranger_answer(struct ref_msg_ctx *m, const char *what);
/* Mail an address did not ask for with a key of its own (rules-spec
 * MX-4): the answers to mail under its From that proves nothing (no key,
 * a wrong key, a bogus confirmation key), the notice that someone used
 * its key, invitations to it whoever sends them. At most
 * REF_UNASKED_PER_HOUR an hour to one address: a forger reaches a real
 * player no more often than that. ref_unasked_take takes n: 1 taken, 0
 * over it (nothing taken, logged with `what`), -1 a store error. */
#define REF_UNASKED_PER_HOUR 10
int ref_unasked_take(struct ref_service *svc, const char *address, int n, const char *what);
/* Invitations to the n addresses `to`: each counts against its address's
 * allowance of unasked mail (ref_unasked_take), those that are strangers
 * against the stranger budget too, all together. 1 taken (or none
 * needed), 0 over either: nothing taken. `list` gets the addresses, ", "
 * between, for the refusal; *which says which limit ("stranger-budget" or
 * "invitation-budget", the reason key of the refusal). */
int ref_invitations_budget(struct ref_service *svc, const char *const *to, int n, char *list,
                           size_t cap, const char **which);
/* Whether an address written after "with" may be invited (mail/address.c,
 * RFC 5322's addr-spec read as written, never repaired): NULL yes, else the
 * reason key (bad-address, address-quoted, address-literal: a machine by
 * its IP address, address-this-host: the referee's own address, this
 * machine, localhost). */
const char *ref_invitee_refused(struct ref_service *svc, const char *address);
/* Asks m's sender to confirm `request` (the command line, kind "new" or
 * "observe", game for observe): a one-time key stored for confirm_days and
 * mailed with `tmpl` ({request}, {referee}, {expires} and the extras), within
 * the budget; over it nothing is stored or sent (m->refused set). Kind
 * "new" is any request that creates games and invites others: `new` and
 * `tournament` (cmd_confirm.c runs the one the line says). */
int ref_ask_confirmation(struct ref_msg_ctx *m, const char *kind, const char *request,
                         int64_t game, const char *tmpl, const struct tpl_var *extra,
                         size_t nextra);
/* Before a command that creates games and invites others (`new`,
 * `tournament`, `seek`): REF_RC_OK when m's sender is confirmed, so it may
 * run; REF_RC_STOP when the sender was asked to confirm `line` (kind
 * "new") instead: the command waits for the answer, nothing else is done;
 * REF_RC_FAIL on a store failure. */
enum ref_rc ref_confirm_first(struct ref_msg_ctx *m, const char *line);
enum ref_confirm_state {
  REF_CONFIRM_OK,     /* the request is *out: run it */
  REF_CONFIRM_LAPSED, /* answered after confirm_days: not run */
  REF_CONFIRM_UNKNOWN /* no such key, used, or from another address */
};
/* The request a key names, answered from `from` by a mail that reached the
 * mailbox at `arrived` (lapsed or not by its arrival, not by
 * when it is read). OK and LAPSED use the key up and record `from` as
 * confirmed: it answered the mail we sent it. */
int ref_confirmation_take(struct ref_service *svc, const char *key, const char *from,
                          int64_t arrived, struct store_confirm *out,
                          enum ref_confirm_state *state);
/* Drops requests that lapsed long ago (tick.c). */
int ref_confirmations_prune(struct ref_service *svc);

/* history.c: the "Record" lines of a mail about game g to seat's `to` (the
 * signed checkpoint, the entries since the last mail to `to`, their
 * inclusion proofs and the consistency proof from that mail's tree:
 * docs/history-protocol.md), appended to out; records the size mailed.
 * -1 on a store failure (the mail is then not sent). */
int ref_history_block(struct ref_service *svc, const struct ref_game_ctx *g, int seat,
                      const char *to, struct base_buf *out);
/* The referee's verifier key ("NAME+KEYID+KEY"), made at the first call
 * (docs/history-protocol.md, "The referee's key"); -1 when it cannot be. */
int ref_history_vkey_text(struct ref_service *svc, char *buf, size_t cap);
/* The signed checkpoint of game's whole tree as it stands, the exact
 * signed-note text (C2SP tlog-checkpoint; docs/history-protocol.md,
 * "Witnesses"), malloc'd; NULL on a store failure. */
char *ref_history_note(struct ref_service *svc, int64_t game);
/* Frees what ref_history_block keeps in svc. */
void ref_history_free(struct ref_service *svc);

#endif
