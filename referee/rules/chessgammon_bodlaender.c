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

static const struct ref_game_ops bodlaender_ops = {
  hb_init,        /* init */
  hb_decode,      /* decode: a position with pieces on a bar is refused */
  ref_cg_encode,  /* encode */
  ref_cg_legal,   /* legal */
  ref_cg_parse,   /* parse */
  ref_cg_format,  /* format */
  ref_cg_apply,   /* apply */
  NULL,           /* roll: diceless */
  ref_cg_act,     /* act */
  ref_cg_status,  /* status */
  ref_cg_render,  /* render */
  NULL,           /* perft: the generic walk */
  ref_cg_ok,      /* ok: no piece on a bar */
  ref_cg_diagram, /* diagram */
};

const struct ref_game_desc ref_game_bodlaender_chessgammon = {
  "bodlaender",                       /* name */
  "Hans Bodlaender's Chessgammon",    /* title */
  1,                                  /* version: bump when any ruling changes */
  2,                                  /* seats */
  {"White", "Black"},                 /* seat_names */
  REF_GAME_DRAWS,                     /* flags */
  sizeof(struct ref_cg_state),        /* state_size */
  &bodlaender_ops,                    /* ops */
};

const struct ref_cg_rules ref_cg_rules_bodlaender = {
  REF_CG_BODLAENDER,                 /* id */
  &ref_game_bodlaender_chessgammon,  /* desc */
  1,                                 /* halves_per_turn */
  false,                             /* bar: HB-1, captured pieces count as off */
  NULL,                              /* position_ok */
  false,                             /* balanced_option */
};
