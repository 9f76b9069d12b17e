/*
 * views_int.h: layer 5 of the service, "views" (views.c,
 * docs/architecture.md): what every game mail shows, one seat's view of the
 * game (board, position, whose turn, the "#N" guard, the dice commitment,
 * the deadline), sent to a seat, to all seats, to the observers; and the
 * refusal. Calls only layers 1 to 4.
 */
#ifndef TABULA_VIEWS_INT_H
#define TABULA_VIEWS_INT_H

#include "lifecycle_int.h"

/* Mails to the players of g and to its observers: the seat's view of the
 * game plus `extra`; observers get the view from the first seat's side,
 * no key, nothing that lets them act. */
int ref_tell_seat(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *tmpl,
                  const struct tpl_var *extra, size_t nextra);
int ref_tell_all(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                 const struct tpl_var *extra, size_t nextra);
/* The end of the game to every player with the game's record attached. */
int ref_tell_result(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                    const struct tpl_var *extra, size_t nextra);
/* A seat's prepared lines that still wait, one a line ("" none); -1 on
 * a store failure (never read as "none"). */
int ref_conditionals_text(struct ref_service *svc, struct ref_game_ctx *g, int seat, char *buf,
                          size_t cap);
/* A game's page on the web view (site_url; "" when none, or when the game
 * is private: new GAME private). -1 when whether it is private cannot be
 * read. */
int ref_game_link(struct ref_service *svc, const struct ref_game_ctx *g, char *buf, size_t cap);
int ref_tell_observers(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                       const struct tpl_var *extra, size_t nextra);
/* The observer's view of g (from the first seat's side, no key) to one
 * address. */
int ref_tell_observer(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *to,
                      const char *tmpl, const struct tpl_var *extra, size_t nextra);
/* A refusal (refused.txt): quotes the input, says why (a reason key of
 * templates/reasons.txt), offers the nearest legal moves from err. To the
 * seat when g and seat are given, else to the mail's sender. Sets
 * m->refused; the game is not touched. */
/* A handler's result from what it did (rc: 0 done, else a failure) and
 * whether it refused (ref_refuse and its kin record that on the message,
 * m->refused, as its outcome): REF_RC_OK, REF_RC_REFUSED or REF_RC_FAIL. */
enum ref_rc ref_rc_of(const struct ref_msg_ctx *m, int rc);
int ref_refuse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *input,
               const char *reason, const char *detail, const struct ref_err *err);
/* A refusal to a mail that names no game of the sender's: a player of
 * some game or a confirmed address (optin.c) is told why, a stranger
 * hears nothing (no backscatter). */
int ref_refuse_player(struct ref_msg_ctx *m, const char *input, const char *reason,
                      const char *detail);
/* A refusal of a request that would otherwise first be confirmed (`new`,
 * `tournament`: validated whole before anyone is asked to confirm): a
 * player or confirmed address is told at once; a stranger too, within the
 * stranger budget (optin.c), as its confirmation request would have been:
 * one mail to the From either way, and nothing stored. */
int ref_refuse_request(struct ref_msg_ctx *m, const char *input, const char *reason,
                       const char *detail);
/* Whether `address` holds a seat in any game or has confirmed (so may be
 * answered). */
int ref_known_player(struct ref_service *svc, const char *address);

#endif
