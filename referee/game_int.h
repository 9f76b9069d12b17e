/*
 * game_int.h: layer 3 of the service, "games" (docs/architecture.md): a
 * game rebuilt from its journal and the journal written (game.c), its dice
 * chain in the store (dicechain.c), its record (record.c), its observers
 * (observers.c) and a mail's move lines read as its turn (turnread.c).
 * Calls only layers 1 and 2.
 */
#ifndef TABULA_GAME_INT_H
#define TABULA_GAME_INT_H

#include "commands.h"
#include "context_int.h"

/* game.c */
int ref_game_load(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
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
/* Whose chain a game's dice come from: itself, or the first game of its
 * backgammon match (one commitment a match, issue 19). */
int64_t ref_dice_game(struct ref_service *svc, int64_t game);
/* "Dice match: game D part K played as game G from roll I" into `shown`:
 * where a later game of a match takes up the match's dice. */
int ref_dice_match_line(struct ref_service *svc, struct ref_game_ctx *g, int part,
                        struct ref_buf *shown);

/* The record of a game (record.c): `history` by mail, `tabula export`. */
int ref_game_history(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out);
int ref_game_export(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out);

/* Observers (observers.c): the list, addresses separated by spaces.
 * ref_observer_set: 0 done, 1 nothing to do (already / not an observer),
 * -2 full, -1 error. */
int ref_observers(struct ref_service *svc, int64_t game, char *buf, size_t cap);
int ref_observer_set(struct ref_service *svc, int64_t game, const char *address, int on);
int ref_is_observer(struct ref_service *svc, int64_t game, const char *address); /* 1, 0, -1 */
/* A private game (new GAME private, issue 13) takes no observers: 1 when
 * private, 0 when not, -1 on a store error. */
int ref_game_private(struct ref_service *svc, int64_t game);
int ref_game_set_private(struct ref_service *svc, int64_t game);

/* A mail's move lines read as its one turn (turnread.c; rules-spec §1.1,
 * issue 13): a line that alone is a legal whole turn, else consecutive
 * lines joined. found: mv is the turn, input the line(s) it was read from.
 * conflict: two different turns, input the second. Neither: err and input
 * are the most telling failure of a single line (input may be empty).
 * 0, or -1 without memory. */
struct ref_turn {
  int found, conflict;
  struct ref_move mv;
  struct ref_err err;
  char input[REF_CAND_MAX * 129]; /* the candidates joined by spaces */
};
int ref_read_turn(const struct ref_game_ctx *g, const struct ref_cmds *cmds, struct ref_turn *t);

#endif
