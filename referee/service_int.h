/*
 * service_int.h: what the service's files share (not exported beyond
 * tabula_service). The public face is referee.h.
 */
#ifndef TABULA_SERVICE_INT_H
#define TABULA_SERVICE_INT_H

#include "calendar_int.h"
#include "game_int.h"

/* Between decisions (turns.c): roll, play forced turns, until a player
 * must decide. Lines for the mails go to `shown`. */
int ref_game_advance(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct ref_buf *shown);
int ref_game_roll_now(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct ref_buf *shown);
/* Lag Backgammon Chess (lag.c, rules-spec 6.9): mails each player, privately,
 * the faces of their next L rolls not yet mailed. 0 for other games. */
int ref_lag_mail(struct ref_msg_ctx *m, struct ref_game_ctx *g);
int ref_autoroll_set(struct ref_service *svc, int64_t game, int seat, int on);

/* Mail sources and sinks (transport.c). ref_inbound_pass: one batch-wise
 * pass over the configured source (process, commit, then acknowledge);
 * ref_inbound_wait: until there may be news (IMAP IDLE, else poll_ms);
 * ref_outbound_send: one outbox row through the configured sink, 0 once
 * the server took it (SMTP 250, sendmail exit 0, Maildir synced), else a
 * mail_code with the reason in err. */
int ref_inbound_pass(struct ref_service *svc, size_t *processed);
int ref_inbound_wait(struct ref_service *svc, volatile sig_atomic_t *stop);
int ref_outbound_send(struct ref_service *svc, const struct store_outbox *row, char *err,
                      size_t cap);
/* Makes every message ref_outbound_send wrote durable (the Maildir sink
 * writes without fsync and syncs the group here); 0 on success. */
int ref_outbound_sync(struct ref_service *svc);
void ref_transport_close(struct ref_service *svc);

/* The message path (process.c). */
int ref_process_commands(struct ref_msg_ctx *m);
/* process.c's refusal for other files (reason key, nothing changed). */
int ref_refuse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *input,
               const char *reason, const char *detail, const struct ref_err *err);

/* Time (clock.c); dates and counted time in calendar_int.h. */
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
/* Mails to the players of g and to its observers (process.c): the seat's
 * view of the game plus `extra`; observers get the view from the first
 * seat's side, no key, nothing that lets them act. */
int ref_tell_seat(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *tmpl,
                  const struct tpl_var *extra, size_t nextra);
int ref_tell_all(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                 const struct tpl_var *extra, size_t nextra);
int ref_tell_observers(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                       const struct tpl_var *extra, size_t nextra);

#endif
