/*
 * chessgammon_racing_kings.c: Racing Kings Chessgammon (game "racingkings"),
 * docs/rules-spec.md §5.5: Diceless Chessgammon (chessgammon.c) in which no
 * king may ever stand attacked.
 *
 * The seed: "The King may not be checked, nor may he move into check.
 * Chessgammon capture and rules of bringing-in are used. You win by bearing
 * off all your pieces."
 * - RK-1: the standard Chessgammon array, Black bearing off beyond rank 1
 *   (the seed mixes rules, not setups). Option rk_array=on: the Racing
 *   Kings array 8/8/8/8/8/8/krbnNBRK/qrbnNBRQ [src: lichess], eight pieces
 *   a side, both sides moving up and bearing off beyond rank 8, bringing
 *   in onto the squares of that array; recorded as "array:rk" in the
 *   position string. CG-10 (same move number) stands unchanged: it is
 *   Racing Kings' own draw rule. The geometry lives in chessgammon.c
 *   (ref_cg_state.rk_array).
 * - RK-2: a half (ordinary, capture, bring-in, bear-off) is illegal if
 *   after it either king is attacked. Attack is ordinary chess capture
 *   geometry; the bar restriction is ignored for it (the attacker could
 *   always capture under rule 7 (2)). Rule 7's "can" means can legally: the
 *   shared generator filters before it falls back to vacating (CG-4).
 * - Consequences: kings are never captured, so never on the bar; a king
 *   borne off is immune. RK-6: a side without a legal move passes.
 */
#include "chessgammon_int.h"

static int rk_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  return ref_cg_init(s, options, err, &ref_cg_rules_racing_kings);
}

static int rk_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  return ref_cg_decode(s, text, err, &ref_cg_rules_racing_kings);
}

static const struct ref_game_ops racing_kings_ops = REF_CG_ONE_HALF_OPS(rk_init, rk_decode);

const struct ref_game_desc ref_game_racing_kings_chessgammon = {
  "racingkings", "Racing Kings Chessgammon", 1 /* version: bump when any ruling changes */, 2,
  {"White", "Black"}, REF_GAME_DRAWS, sizeof(struct ref_cg_state), &racing_kings_ops};

