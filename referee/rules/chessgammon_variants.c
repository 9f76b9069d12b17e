/*
 * chessgammon_variants.c: what each 8x8 Diceless Chessgammon variant
 * changes in the shared rules (chessgammon.c), one table a variant, found
 * by its number (docs/rules-spec.md §5.2-5.6).
 *
 * The tables are here, not in the variants' own files, so that the shared
 * machinery can find a table from the number a state keeps without using
 * those files (they use it: a cycle, scripts/check-layers.py).
 * A number and not a pointer in the state: its bytes are the same in every
 * process, so a game loads from its snapshot instead of replaying its
 * journal. This file uses the chess core only.
 */
#include "chessgammon_int.h"

/* RK-2: neither king (when on the board) attacked. */
static bool kings_safe(const struct ref_cg_state *st, const struct ref_chess_pos *p)
{
  int c;
  for(c = 0; c < 2; c++) {
    uint64_t k = p->pieces[c][REF_CH_KING];
    /* CGA-4: attacked by the other side's army */
    if(k && ref_cg_attacked(st, p, ref_chess_lsb(k), c ^ 1))
      return false;
  }
  return true;
}

/* One half a turn, the bar, no position test, no options beyond fen= and fifty_moves=. */
const struct ref_cg_rules ref_cg_rules_plain = {REF_CG_PLAIN, 1, true, NULL, false};

/* DM-1: two halves a turn; the bar; DM-2: the balanced_start option. */
const struct ref_cg_rules ref_cg_rules_doublemove = {REF_CG_DOUBLEMOVE, 2, true, NULL, true};

/* One half a turn, the bar; RK-2: kings_safe after every half. */
const struct ref_cg_rules ref_cg_rules_racing_kings = {REF_CG_RACING_KINGS, 1, true, kings_safe,
                                                       false};

/* One half a turn; HB-1: no bar, captured pieces count as off. */
const struct ref_cg_rules ref_cg_rules_bodlaender = {REF_CG_BODLAENDER, 1, false, NULL, false};

const struct ref_cg_rules *ref_cg_rules_of(int variant)
{
  static const struct ref_cg_rules *const by_number[REF_CG_VARIANTS] = {
    [REF_CG_PLAIN] = &ref_cg_rules_plain,
    [REF_CG_DOUBLEMOVE] = &ref_cg_rules_doublemove,
    [REF_CG_RACING_KINGS] = &ref_cg_rules_racing_kings,
    [REF_CG_BODLAENDER] = &ref_cg_rules_bodlaender,
  };
  return variant >= 0 && variant < REF_CG_VARIANTS ? by_number[variant] : NULL;
}
