/*
 * rules_fuzz.h: what the rules fuzz targets (fuzz_position.c, fuzz_move.c)
 * share: choosing the game from an input byte, and the property checks run
 * on every position a target reaches. rules_fuzz.c has the details.
 */
#ifndef TABULA_RULES_FUZZ_H
#define TABULA_RULES_FUZZ_H

#include "fuzz.h"
#include "rules.h"

#include <stdbool.h>

/* The buffers the service gives the rules (store.h games.state, process.c
 * BOARD_MAX and canon[REF_NOTATION_MAX]): what a position reached by mail
 * must fit in. */
#define FZ_STATE_MAX 512
#define FZ_BOARD_MAX 8192

/* Every registered game, in a fixed order: input byte 'a' + i is game i. */
struct fz_game {
  const char *name;
  const char *posopt; /* the init option that takes a position, or NULL */
  bool whole_turns;   /* parse may read a whole turn that legal() lists in stages */
  const struct ref_game_desc *desc;
  long runs, accepted; /* inputs given this game; inputs that reached a position */
};

/* Set-up: finds every game (aborting when the registry holds one this table
 * lacks), loads templates/reasons.txt, reads TABULA_FUZZ_GAME (a game name:
 * every input goes to that game) and prints the per-game counts at exit. */
void fz_init(const char *target);
/* The game an input's first byte selects (TABULA_FUZZ_GAME overrides). */
struct fz_game *fz_pick(uint8_t selector);
size_t fz_ngames(void);
struct fz_game *fz_game_at(size_t i);

/* Starts an input (size >= 1): keeps it for failure reports, picks the
 * game from its first byte and counts the input for that game. */
struct fz_game *fz_start(const uint8_t *data, size_t size);
/* Prints the game, what broke and the input, then aborts. */
void fz_fail(const struct ref_game_desc *g, const char *fmt, ...)
  __attribute__((format(printf, 2, 3), noreturn));

/* A refusal: code negative, err->code equal, reason a key worded in
 * templates/reasons.txt (or empty when allow_empty: init's unknown option,
 * which the service words itself). */
void fz_check_refusal(const struct ref_game_desc *g, int rc, const struct ref_err *err,
                      bool allow_empty, const char *what);

/*
 * The position properties:
 *   ops->ok holds; the position string fits the store's column and
 *   re-encodes byte-identically after a decode; status is sane (phase,
 *   seat, dice, a result only when over, a MOVE phase with a legal move).
 * With depth > 0 also: render from every seat (fits, at most 72 columns a
 * line); every legal move (a sample of 64 when there are more) formats
 * into the service's buffer, parses back to the same move and applies,
 * each result again checked at depth 0; the actions (double, take, drop,
 * resign, draw claim) on copies, each result checked; a ROLL or CUBE phase
 * rolled (faces from `dice`) and the result checked at depth - 1.
 * `fresh`: s came from decode or init, so a decode of its string must give
 * the same status, legal moves and boards (nothing outside the string).
 */
void fz_check_position(const struct ref_game_desc *g, const struct ref_state *s, int depth,
                       bool fresh, uint32_t dice);

/* Plays `plies` steps from start (moves, rolls, cube answers chosen by
 * seed), checking each position reached at depth 0 and the notation of
 * each move played, the last position at depth 1: positions a decoded
 * string leads to, far from any start. */
void fz_walk(const struct ref_game_desc *g, const struct ref_state *start, int plies,
             uint32_t seed);

/* Gives the dice a ROLL or CUBE phase asks for (faces from `dice`, an
 * opening double replaced); returns the ops->roll code, or 1 when no roll
 * is due. */
int fz_roll(const struct ref_game_desc *g, struct ref_state *s, uint32_t dice);

/* ops->legal, where REF_EPHASE out of the MOVE phase is an empty list. */
void fz_legal(const struct ref_game_desc *g, const struct ref_state *s, struct ref_movelist *list);

/* Whether m is memcmp-equal to a move of list. */
bool fz_in_list(const struct ref_movelist *list, const struct ref_move *m);

#endif /* TABULA_RULES_FUZZ_H */
