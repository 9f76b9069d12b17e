/*
 * context_int.h: layer 2 of the service, "mail out" (docs/architecture.md):
 * the three contexts every layer above passes around (the service, a game,
 * one message), the time now and tokens (context.c), and the one way a
 * mail leaves: ref_reply (reply.c). Nothing here calls a layer above.
 */
#ifndef TABULA_CONTEXT_INT_H
#define TABULA_CONTEXT_INT_H

#include "buf.h"
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

/* A game rebuilt from its journal (game.c). */
struct ref_game_ctx {
  struct store_game row;
  struct store_seat *seats;
  size_t nseats;
  const struct ref_game_desc *desc;
  struct ref_state *state; /* valid once started */
  int started;
  size_t journal_len;
  /* The journal's head as this process last wrote or read it, and the
   * "move" entries up to it: the snapshot's facts (game.c, issue 15). */
  int64_t head_seq;
  char head_hash[65];
  int64_t moves;
  char last_move[160]; /* "12. Nf3", as the last move mail showed it */
  char played[160];    /* the move this message made ("" if none): its mails name it,
                        * not a forced play or pass that followed it */
};

/* One inbound message being processed (message.c), or the stand-in a tick
 * or the operator uses to send mail (mail NULL, message_id ""). */
struct ref_msg_ctx {
  struct ref_buf events;  /* rolls and automatic plays made for it: shown in its mails */
  struct ref_service *svc;
  const struct mail_msg *mail;
  const char *message_id; /* the mail's, or a digest-derived stand-in */
  int64_t arrived;        /* when it reached the mailbox, at most now (issue 13):
                             the clock judges the mail at this time */
  int replied;            /* replies queued */
  int changed;            /* state changed */
  int refused;
  int observed;           /* a change observers are shown (observe GAME) */
  int64_t game;           /* the game it was about, 0 for none: the log's line per mail */
};

/* context.c */
int64_t ref_now(struct ref_service *svc);
/* The time from the file test_clock_file names (tests only, logged). */
int ref_now_use_file(struct ref_service *svc, char *errbuf, size_t errcap);
int ref_make_token(char *out, size_t cap);
/* A message context with no inbound mail (ticks, the operator); free its
 * events with ref_buf_free. */
void ref_msg_init(struct ref_msg_ctx *m, struct ref_service *svc);

/* Replies (reply.c). `m` non-NULL and `to` equal to its sender makes the
 * reply thread under the inbound message. `g`/`seat` give the subject tag
 * and the tokened Reply-To; seat -1 for none. A mail the reader's digest
 * may hold (news of what others did) goes to the digest queue instead. */
int ref_reply(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *to,
              const char *tmpl, const struct tpl_var *vars, size_t nvars);

#endif
