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
int ref_autoroll_set(struct ref_service *svc, int64_t game, int seat, int on);
int ref_dice_new_chain(struct ref_service *svc, int64_t game, int chain, int64_t rolls);
int ref_dice_commitment_line(struct ref_service *svc, int64_t game, char *buf, size_t cap);
int ref_dice_fix_entropy(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *shown);
int ref_dice_transcript(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out,
                        int *nrolls);

/* The message path (process.c). */
int ref_process_commands(struct ref_msg_ctx *m);

#endif
