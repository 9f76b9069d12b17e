/*
 * game_int.h: layer 3 of the service, "games" (docs/architecture.md): a
 * game rebuilt from its journal and the journal written (game.c), its dice
 * chain in the store (dicechain.c), its record (record.c) and its
 * observers (observers.c). Calls only layers 1 and 2.
 */
#ifndef TABULA_GAME_INT_H
#define TABULA_GAME_INT_H

#include "context_int.h"

/* game.c */
int ref_game_load(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                  size_t cap);
/* The same by replaying the whole journal, whatever the snapshot says
 * (`tabula check`). */
int ref_game_load_full(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                       size_t cap);
/* Whether the game's stored snapshot agrees with g, a full replay: 0 yes
 * (or none, or one this build does not use), 1 no (why says how). */
int ref_game_snapshot_check(struct ref_service *svc, const struct ref_game_ctx *g, char *why,
                            size_t cap);
void ref_game_free(struct ref_game_ctx *g);
/* Replays one journal entry into g->state (game loading and record.c). */
int ref_game_replay_entry(struct ref_game_ctx *g, const struct store_entry *e, char *why,
                          size_t cap);
int ref_game_save(struct ref_service *svc, struct ref_game_ctx *g);
int ref_journal(struct ref_service *svc, struct ref_game_ctx *g, int seat, const char *kind,
                const char *text, const char *dice);
/* "12. Nf3" / "12... Nf6", or the bare move in dice games; before the move. */
void ref_move_label(struct ref_game_ctx *g, const char *canon, char *buf, size_t cap);
void ref_result_text(char *buf, size_t cap, const struct ref_game_desc *d,
                     const struct ref_status *s);
void ref_action_text(char *buf, size_t cap, enum ref_action a, int arg);
int ref_action_parse(const char *text, enum ref_action *a, int *arg);
int ref_seat_of(const struct ref_game_ctx *g, const char *address);

/* The game's dice chain in the store (dicechain.c, tabula-dice-1). The
 * lines the mails show go to `shown`. */
int ref_dice_new_chain(struct ref_service *svc, int64_t game, int chain, int64_t rolls);
int ref_dice_commitment_line(struct ref_service *svc, int64_t game, char *buf, size_t cap);
int ref_dice_fix_entropy(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *shown);
/* Rolls `need` faces: the rules get them, the journal and `shown` the proof. */
int ref_dice_roll(struct ref_service *svc, struct ref_game_ctx *g, int need,
                  struct ref_buf *shown);
int ref_dice_transcript(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out,
                        int *nrolls);

/* The record of a game (record.c): `history` by mail, `tabula export`. */
int ref_game_history(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out);
int ref_game_export(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out);

/* Observers (observers.c): the list, addresses separated by spaces.
 * ref_observer_set: 0 done, 1 nothing to do (already / not an observer),
 * -2 full, -1 error. */
int ref_observers(struct ref_service *svc, int64_t game, char *buf, size_t cap);
int ref_observer_set(struct ref_service *svc, int64_t game, const char *address, int on);

#endif
