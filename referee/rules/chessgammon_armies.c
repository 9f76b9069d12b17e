/*
 * chessgammon_armies.c: Diceless Chessgammon with different armies
 * (docs/rules-spec.md §5.7, CGA-1 ... CGA-4), for the 8x8 games of the
 * family (chessgammon.c and its variants).
 *
 * "The author would prefer that you play this game with different
 * armies" [seed 000]. The board stays the chess core's (chess_int.h): a
 * side's rook, knight, bishop and queen stand for its army's pieces of
 * those places (DA-2), so the appropriate squares of rule 6 follow from
 * the army's setup. Those pieces move by the army table (armies.c), each
 * Betza string read once when a game is set up into the state's leaps and
 * rays; nothing here names a piece.
 */
#include "chessgammon_int.h"

#include <string.h>

#define BIT(s) (1ull << (s))
#define SQ_FILE(s) ((int)((unsigned)(s) & 7u))
#define SQ_RANK(s) ((int)((unsigned)(s) >> 3))

static const char piece_letters[] = "PNBRQK";

/* The army slot of a chess type, -1 for pawn and king. */
int ref_cg_slot_of_type(int t)
{
  static const int8_t slot[6] = {-1, REF_ARMY_KNIGHT, REF_ARMY_BISHOP, REF_ARMY_ROOK,
                                 REF_ARMY_QUEEN, -1};
  return t >= 0 && t < 6 ? slot[t] : -1;
}

int ref_cg_type_of_slot(int slot)
{
  static const int8_t type[REF_ARMY_SLOTS] = {REF_CH_ROOK, REF_CH_KNIGHT, REF_CH_BISHOP,
                                              REF_CH_QUEEN};
  return type[slot];
}

char ref_cg_letter(const uint8_t *army, int c, int t)
{
  int slot = ref_cg_slot_of_type(t);
  char l = slot < 0 || !army ? piece_letters[t] : ref_armies[army[c]].piece[slot].letter;
  return c == REF_CH_BLACK ? (char)(l - 'A' + 'a') : l;
}

/* A letter of either case as (chess type, army): *army is -1 for pawn
 * and king, which every army has. Returns the type, -1 for no piece. */
int ref_cg_letter_type(int ch, int *army)
{
  int kind = ref_army_letter_kind((char)ch);

  *army = -1;
  if(kind < 0 || !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
    return -1;
  if(kind == REF_AK_PAWN)
    return REF_CH_PAWN;
  if(kind == REF_AK_KING)
    return REF_CH_KING;
  *army = REF_AK_ARMY(kind);
  return ref_cg_type_of_slot(REF_AK_SLOT(kind));
}

/* CGA-1: reads each army piece's Betza string once (armies.c) into the
 * state's (dr, df) leaps and rays. Every leap of the armies is at most 3
 * squares each way, so all of them show from d4 (square 27). */
bool ref_cg_armies_read(struct ref_cg_state *st)
{
  int c, slot, b;

  for(c = 0; c < 2; c++)
    for(slot = 0; slot < REF_ARMY_SLOTS; slot++) {
      struct ref_betza_moves m;
      struct ref_cg_army_moves *am = &st->am[c][slot];
      uint64_t l;
      if(st->army[c] >= REF_ARMY_COUNT ||
         !ref_betza_read(ref_armies[st->army[c]].piece[slot].betza, c, &m))
        return false;
      memset(am, 0, sizeof(*am));
      for(l = m.leap[27]; l; l &= l - 1) {
        b = ref_chess_lsb(l);
        if(am->nleap == REF_CG_ARMY_LEAPS)
          return false;
        am->leap[am->nleap][0] = (int8_t)(SQ_RANK(b) - 3);
        am->leap[am->nleap][1] = (int8_t)(SQ_FILE(b) - 3);
        am->nleap++;
      }
      am->nray = (uint8_t)m.nrays;
      memcpy(am->ray, m.ray, (size_t)m.nrays * sizeof(m.ray[0]));
    }
  return true;
}

/* The squares an army piece on `from` moves to (capture or not, own
 * pieces included: the caller masks them): leaps jump, riders stop on
 * the first occupied square or after their range (DA-1). */
uint64_t ref_cg_army_targets(const struct ref_cg_army_moves *am, int from, uint64_t occ)
{
  uint64_t to = 0;
  int r0 = SQ_RANK(from), f0 = SQ_FILE(from), i, k;

  for(i = 0; i < am->nleap; i++) {
    int r = r0 + am->leap[i][0], f = f0 + am->leap[i][1];
    if(r >= 0 && r < 8 && f >= 0 && f < 8)
      to |= BIT(r * 8 + f);
  }
  for(i = 0; i < am->nray; i++) {
    const struct ref_betza_ray *ray = &am->ray[i];
    for(k = 1; !ray->max || k <= ray->max; k++) {
      int r = r0 + k * ray->dr, f = f0 + k * ray->df;
      if(r < 0 || r > 7 || f < 0 || f > 7)
        break;
      to |= BIT(r * 8 + f);
      if(occ & BIT(r * 8 + f))
        break;
    }
  }
  return to;
}

/* CG-2 for an army piece: each move that by its normal movement lands on
 * rank `beyond` (one past the far edge) on files a-h bears it off: a leap
 * exactly, a rider within its range over empty squares. Appends the
 * target files to out; returns the new count. */
int ref_cg_army_off(const struct ref_cg_army_moves *am, int from, int beyond, uint64_t occ,
                    uint32_t *out, int n)
{
  int r0 = SQ_RANK(from), f0 = SQ_FILE(from), i, k;
  uint64_t files = 0; /* one bear-off per target file */

  for(i = 0; i < am->nleap; i++) {
    int f = f0 + am->leap[i][1];
    if(r0 + am->leap[i][0] == beyond && f >= 0 && f < 8)
      files |= 1u << f;
  }
  for(i = 0; i < am->nray; i++) {
    const struct ref_betza_ray *ray = &am->ray[i];
    for(k = 1; !ray->max || k <= ray->max; k++) {
      int r = r0 + k * ray->dr, f = f0 + k * ray->df;
      if(r == beyond) {
        if(f >= 0 && f < 8)
          files |= 1u << f;
        break;
      }
      if(r < 0 || r > 7 || f < 0 || f > 7 || (occ & BIT(r * 8 + f)))
        break;
    }
  }
  for(i = 0; i < 8; i++)
    if(files & (1u << i))
      out[n++] = ref_cg_half(REF_CG_K_OFF, from, i, 0);
  return n;
}

/* Is sq attacked by side `by` (RK-2 with armies, CGA-4)? The chess
 * core's test for the FIDEs; otherwise the army pieces by their tables,
 * then the pawns and the king by the chess core's, with the army pieces
 * lifted off (pawn and king do not slide: the occupancy does not matter). */
bool ref_cg_attacked(const struct ref_cg_state *st, const struct ref_chess_pos *p, int sq,
                     int by)
{
  struct ref_chess_pos q;
  uint64_t occ = p->occ[0] | p->occ[1], b;
  int slot;

  if(st->army[by] == REF_ARMY_FIDE)
    return ref_chess_attacked(p, sq, by);
  q = *p;
  for(slot = 0; slot < REF_ARMY_SLOTS; slot++)
    for(b = p->pieces[by][ref_cg_type_of_slot(slot)]; b; b &= b - 1) {
      int from = ref_chess_lsb(b);
      if(ref_cg_army_targets(&st->am[by][slot], from, occ) & BIT(sq))
        return true;
      ref_chess_remove(&q, from);
    }
  return ref_chess_attacked(&q, sq, by);
}

