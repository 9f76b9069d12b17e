/*
 * chessgammon_bodlaender.c: Hans Bodlaender's Chessgammon (game
 * "bodlaender"), docs/rules-spec.md §5.6: Diceless Chessgammon
 * (chessgammon.c) without a bar.
 *
 * The seed: "Pieces that are captured are counted as borne off", "a form
 * of Giveaway Chess, but without forced capture".
 * - HB-1: a captured piece leaves the game and counts as borne off for its
 *   owner; no bar, no bringing in, so rule 7 never applies. Captures are
 *   never compulsory. Everything else of §5.2 stands: no check, castling or
 *   promotion, rank-9 bear-off, passes.
 * - HB-4: a player finishes when all 16 own pieces are off, borne off or
 *   captured. A capture that finishes the opponent makes the opponent win
 *   at once; bear-off finishes follow CG-10 (same move number: draw).
 * The shared code does all of it from the `bar` flag below: captures go
 * to `off`, and the result (chessgammon.c settle) reads finishes from the
 * off counts whoever caused them.
 */
#include "chessgammon_int.h"

static int hb_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  return ref_cg_init(s, options, err, &ref_cg_rules_bodlaender);
}

static int hb_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  return ref_cg_decode(s, text, err, &ref_cg_rules_bodlaender);
}

static const struct ref_game_ops bodlaender_ops = REF_CG_ONE_HALF_OPS(hb_init, hb_decode);

const struct ref_game_desc ref_game_bodlaender_chessgammon = {
  "bodlaender", "Hans Bodlaender's Chessgammon", 1 /* version: bump when any ruling changes */, 2,
  {"White", "Black"}, REF_GAME_DRAWS, sizeof(struct ref_cg_state), &bodlaender_ops};

