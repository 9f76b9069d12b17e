/*
 * game_end_int.h: how the games without dice end, private to the rules
 * core: chess and Back-to-Back Chess (section 2.3 and the FIDE block
 * CH-2), and the Chessgammon family (section 5.2 rule 9: CG-10, CG-11,
 * CG-12, HB-4), on any board.
 *
 * A game keeps a struct ref_ge in its state: the result once over, and
 * the repetition history (the position keys since the last irreversible
 * move). The game says what its position is (mate, moves left, armies
 * off); the verdicts, claims, actions, status and the invariant checker's
 * test of the result are here, once.
 */
#ifndef TABULA_GAME_END_INT_H
#define TABULA_GAME_END_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules.h"

/* Keys since the last irreversible move: the 75-move rule (CH-2) ends a
 * game at 150 such plies; where nothing resets them (Chessgammon) the
 * oldest are dropped. */
#define REF_GE_HIST_MAX 200

struct ref_ge {
  uint8_t over;
  int8_t winner; /* seat, or -1 for a draw (when over) */
  uint8_t end;   /* enum ref_end (when over) */
  uint16_t nhist; /* keys in hist; hist[nhist - 1] is the current key */
  uint64_t hist[REF_GE_HIST_MAX];
};

/* A game starts (or is set up) at the position with this key. */
void ref_ge_start(struct ref_ge *e, uint64_t key);
/* A move was made: the new key; `irreversible` (a capture, a pawn move)
 * forgets the earlier ones, no position before it can come back. */
void ref_ge_push(struct ref_ge *e, uint64_t key, bool irreversible);
/* How often the current position has occurred, this time included (FIDE
 * 9.2: the same side to move, so every second key). */
int ref_ge_repetitions(const struct ref_ge *e);
void ref_ge_finish(struct ref_ge *e, int winner, enum ref_end end);

/*
 * CH-2 and section 2.3, in FIDE's order: checkmate or stalemate (no legal
 * move), then, with the FIDE block on, a dead position, the fivefold
 * repetition and the 75-move rule. `plies` counts plies since the last
 * capture or pawn move; `mover` is the side that just moved. Sets the
 * result, or leaves the game running.
 */
void ref_ge_fide(struct ref_ge *e, bool fide_draws, bool has_moves, bool in_check, bool dead,
                 uint32_t plies, int mover);
/* CH-2: the draw a claim would give now (threefold repetition, fifty
 * moves), or REF_END_NONE. */
enum ref_end ref_ge_fide_claim(const struct ref_ge *e, bool fide_draws, uint32_t plies);

/*
 * Section 5.2 rule 9 after a completed turn; `moved` is the side that
 * just moved, done[c] whether side c has its whole army off. CG-10: after
 * Black's half both finished is a draw, one finished wins; after White's
 * a Black finished (only by being captured out, HB-4) wins at once, a
 * White finished waits for Black's reply. Rule 8, CG-11, CG-14: a side
 * without a move passes (and a finished White then wins), unless neither
 * side can move: a draw. can_move(ctx, other): does the side to move
 * (other false) or the other side have a legal move?
 */
void ref_ge_chessgammon(struct ref_ge *e, int moved, const bool done[2],
                        bool (*can_move)(const void *ctx, bool other), const void *ctx);
/* CG-12: threefold on claim; fifty moves (100 turns without capture,
 * pawn move, bring-in or bear-off) only with the option on. */
enum ref_end ref_ge_cg_claim(const struct ref_ge *e, bool fifty, uint32_t turns);

/* ops->act of a game without cube or dice (ref_plain_act): resignation,
 * agreement, or the claim given. */
int ref_ge_act(struct ref_ge *e, int seat, enum ref_action action, enum ref_end claim,
               const char *no_claim, struct ref_err *err);
/* ops->status: side to move, the game's move number, check, a claim
 * that would succeed now. */
void ref_ge_status(const struct ref_ge *e, int side, int move_number, bool in_check,
                   bool claimable, struct ref_status *out);
/*
 * ops->legal of a game whose every turn is one 32-bit move: none once the
 * game is over, the pass when the side to move has no move
 * (`pass`: Chessgammon's rule 8), else each of v[0..n-1].
 */
int ref_ge_moves(const struct ref_ge *e, const uint32_t *v, int n, uint32_t pass,
                 struct ref_movelist *out);
/* The move in m if it is one of moves[0..n-1] (a one-word move: the other
 * words zero), else 0: apply's and format's check that m is legal here
 * (a journal replayed after a rules change must fail loudly). */
uint32_t ref_ge_find(const uint32_t *moves, int n, const struct ref_move *m);

/*
 * The checker's test of the result: `again` is e settled afresh from the
 * position alone. A running game has missed no automatic end; an
 * automatic end is exactly what the position says; a resignation has a
 * winner, an agreement none; a claimed draw still holds (`threefold`,
 * `fifty`: those claims would succeed now).
 */
bool ref_ge_ok(const struct ref_ge *e, const struct ref_ge *again, bool threefold, bool fifty);
/* The history's own invariants: 1..max keys, the last one `key`. */
bool ref_ge_hist_ok(const struct ref_ge *e, uint64_t key);

#endif /* TABULA_GAME_END_INT_H */
