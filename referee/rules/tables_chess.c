/*
 * tables_chess.c: Tables Chess (Adam Goss): chess pieces racing on a
 * backgammon board, moved by the dice.
 *
 * Rules: docs/rules-spec.md section 7 and its decisions TC-0 .. TC-11
 * (board and setup TC-1, piece dice TC-2/TC-3, king safety at the end of
 * the turn TC-4, entry TC-5, fresh dice for the starter TC-6, must-play
 * TC-7, the stalemate draw TC-8 (both kings stuck behind blocks), exact
 * landing TC-9, no bearing off TC-10, no cube TC-11). The board arithmetic
 * (points, blots, blocks, the bar, entry, hits, must-play ranking) is
 * backgammon's, reused through
 * backgammon_int.h; what Tables Chess adds (piece types, backward moves,
 * the king) is in tables_chess_int.h's helpers below.
 *
 * Decisions of this file that the spec does not make (also in the report
 * and named by tests):
 *   TC-9a  A king landing on its point 24 ends the turn and the game at
 *          once: dice left are not played, and for must-play (TC-7) the
 *          winning play counts as using the whole roll.
 *   TC-8a  The count of TC-8 is kept in turns of either player, passes
 *          included: the stalemate comes when both kings have been
 *          stuck at the end of 20 turns in a row (10 of each player).
 *   TC-12  Resignation is allowed (section 1.7) and is worth 1 point like
 *          every win; draws by agreement (TC-8) use "draw offer".
 *
 * Position string (the {position} of mails, the fen= option), one line, no
 * spaces, fields separated by ':':
 *
 *     WHITE/BLACK:PHASE[:IDLE[:MOVE]]
 *
 *   WHITE, BLACK  each side's pieces in that side's own numbering (1 =
 *                 its starting corner, 24 = its king's goal, section 7.1),
 *                 as groups of piece letters followed by the point, 0 for
 *                 the bar; letters K R B N P (White upper case, Black
 *                 lower case by convention; either case is read). Every
 *                 side has exactly the 12 pieces of TC-1.
 *   PHASE         o      the opening roll (one die each) is due
 *                 w, b   that side is to roll
 *                 w21    that side is to play the roll 2-1
 *                 xWH    the game is over: W = w, b or d (draw), H = k
 *                        (king home, TC-9), r (resignation), s (TC-8
 *                        stalemate), a (agreement)
 *   IDLE          turns in a row that ended with both kings stuck (TC-8,
 *                 TC-8a), default 0
 *   MOVE          turns played so far + 1, default 1
 *
 * The start:  KP1NP3RP7BP13BP16NP19/kp1np3rp7bp13bp16np19:o:0:1
 *
 * Notation (section 7.6): per piece <letter><from>/<to> in the mover's
 * numbering, `bar` as the source of an entry, `*` after a hit: `K1/3 P1/2`,
 * `R7/13*`, `Nbar/5`. One piece's consecutive steps are joined (`R7/13`);
 * a point on the way is kept where it hit or where the piece turned.
 */
#include "dice_notation_int.h"
#include "game_text_int.h"
#include "tables_chess_int.h"
#include "diagram_int.h"
#include "rules.h"

#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TC_PIECES 12
#define TC_IDLE_MAX 20 /* TC-8a: both kings stuck for 20 turns, 10 of each player */
#define TC_SUGGEST 6

enum { K = REF_TC_KING, R = REF_TC_ROOK, B = REF_TC_BISHOP, N = REF_TC_KNIGHT, P = REF_TC_PAWN };

static const char type_letter[REF_TC_TYPES] = {'K', 'R', 'B', 'N', 'P'};
static const char *const type_name[REF_TC_TYPES] = {"King", "Rook", "Bishop", "Knight", "Pawn"};
/* TC-1: the placement's 12 pieces, not the summary's 10. */
static const int type_count[REF_TC_TYPES] = {1, 1, 2, 2, 6};
static const char *const seat_name[2] = {"White", "Black"};

/* ---------------------------------------------------------------------- */
/* Board and steps                                                         */
/* ---------------------------------------------------------------------- */

bool ref_tc_board_sync(struct ref_tc_board *b)
{
  int s, q, t, total;
  for(s = 0; s < 2; s++) {
    total = 0;
    for(t = 0; t < REF_TC_TYPES; t++)
      b->n[s][0][t] = 0;
    for(q = 1; q <= REF_BG_BAR; q++) {
      int c = 0;
      for(t = 0; t < REF_TC_TYPES; t++)
        c += b->n[s][q][t];
      if(c > REF_BG_CHECKERS)
        return false;
      b->bg.pt[s][q] = (uint8_t)c;
      total += c;
    }
    if(total > REF_BG_CHECKERS)
      return false;
    b->bg.pt[s][REF_BG_OFF] = (uint8_t)(REF_BG_CHECKERS - total);
  }
  return true;
}

/* Section 7.3: which dice a piece may use. */
static bool die_fits(int type, int die)
{
  switch(type) {
  case K:
    return die == 1 || die == 2; /* seed: "one point ... or two points" */
  case R:
    return true;
  case B:
    return die % 2 == 0; /* TC-2 */
  case N:
    return die % 2 == 1; /* TC-2 */
  default:
    return die == 1 || die == 2; /* TC-3: the 2 only to hit (checked below) */
  }
}

enum ref_tc_why ref_tc_step(const struct ref_tc_board *b, int side, int type, int from, int die,
                            int dir, int *to)
{
  const uint8_t *op = b->bg.pt[!side];
  enum ref_bg_why why;
  int t;

  if(type < 0 || type >= REF_TC_TYPES || from < 1 || from > REF_BG_BAR ||
     !b->n[side][from][type])
    return REF_TC_NO_PIECE;
  if(die < 1 || die > 6 || !die_fits(type, die))
    return REF_TC_WRONG_DIE;
  if(dir > 0) {
    t = from - die;
    if(t < 1) {
      /* TC-10: no bearing off; the bar rule still comes first. */
      if(from != REF_BG_BAR && b->bg.pt[side][REF_BG_BAR])
        return REF_TC_BAR_FIRST;
      return REF_TC_OFF_TRACK;
    }
    /* Forward is backgammon's step: bar first, blocks, entry (TC-5). */
    why = ref_bg_step(&b->bg, side, from, die, &t);
    if(why == REF_BG_BAR_FIRST)
      return REF_TC_BAR_FIRST;
    if(why == REF_BG_BLOCKED)
      return REF_TC_BLOCKED;
    assert(why == REF_BG_STEP_OK);
  }
  else {
    /* Section 7.3: King and Pawn go forward only; TC-2: Rook, Bishop and
     * Knight either way; a piece on the bar can only enter (TC-5). */
    if(type == K || type == P || from == REF_BG_BAR)
      return REF_TC_BACKWARD;
    if(b->bg.pt[side][REF_BG_BAR])
      return REF_TC_BAR_FIRST;
    t = from + die;
    if(t > 24)
      return REF_TC_OFF_TRACK;
    /* The landing rule of ref_bg_step, the other way round. */
    if(op[25 - t] >= 2)
      return REF_TC_BLOCKED;
  }
  /* TC-3: "may move 2 points to capture a blot". */
  if(type == P && die == 2 && op[25 - t] != 1)
    return REF_TC_PAWN_NO_BLOT;
  *to = t;
  return REF_TC_STEP_OK;
}

bool ref_tc_step_apply(struct ref_tc_board *b, int side, int type, int from, int to)
{
  int e = 25 - to, t, ht = -1;
  bool hit;

  if(b->bg.pt[!side][e] == 1)
    for(t = 0; t < REF_TC_TYPES; t++)
      if(b->n[!side][e][t])
        ht = t;
  /* TC-4 keeps every king in company, so a king is never a blot. */
  assert(ht != K);
  hit = ref_bg_step_apply(&b->bg, side, from, to);
  assert(hit == (ht >= 0));
  b->n[side][from][type]--;
  b->n[side][to][type]++;
  if(hit) {
    b->n[!side][e][ht]--;
    b->n[!side][REF_BG_BAR][ht]++;
  }
  return hit;
}

int ref_tc_king_at(const struct ref_tc_board *b, int side)
{
  int q;
  for(q = 1; q <= REF_BG_BAR; q++)
    if(b->n[side][q][K])
      return q;
  return -1;
}

bool ref_tc_king_safe(const struct ref_tc_board *b, int side)
{
  int q = ref_tc_king_at(b, side);
  if(q < 0 || q == 1)
    return true;
  /* TC-4: "may never be left alone on a point at the end of a turn". */
  return q != REF_BG_BAR && b->bg.pt[side][q] >= 2;
}

/*
 * TC-8: "unable to pass their Kings past blocks". A king moves only 1 or
 * 2 points forward (section 7.3), so it is stuck when each of those two
 * points is an enemy block (two or more pieces) or lies beyond its point
 * 24: no roll can move it. A side without a king is never stuck.
 */
bool ref_tc_king_stuck(const struct ref_tc_board *b, int side)
{
  const uint8_t *op = b->bg.pt[!side];
  int q = ref_tc_king_at(b, side), d;

  if(q < 1 || q == REF_BG_BAR)
    return false;
  for(d = 1; d <= 2; d++)
    if(q - d >= 1 && op[25 - (q - d)] < 2)
      return false;
  return true;
}

/* ---------------------------------------------------------------------- */
/* Legal plays                                                             */
/* ---------------------------------------------------------------------- */

/*
 * Hashing. A board's hash is the sum over its pieces of a fixed random key
 * per (side, point, type), so a step changes it by a few keys and the
 * generator never rehashes a whole board. Equality is always confirmed by
 * comparing the boards.
 */
static uint64_t zkey(int side, int q, int type)
{
  uint64_t z = (uint64_t)((side * 26 + q) * REF_TC_TYPES + type + 1) * 0x9e3779b97f4a7c15u;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

static uint64_t board_hash(const struct ref_tc_board *b)
{
  uint64_t h = 0;
  int s, q, t;
  for(s = 0; s < 2; s++)
    for(q = 1; q <= REF_BG_BAR; q++)
      if(b->bg.pt[s][q])
        for(t = 0; t < REF_TC_TYPES; t++)
          h += b->n[s][q][t] * zkey(s, q, t);
  return h;
}

/* The hash after a legal step on b (b is the board before it). */
static uint64_t step_hash(uint64_t h, const struct ref_tc_board *b, int side, int type, int from,
                          int to)
{
  int e = 25 - to, t;
  h += zkey(side, to, type) - zkey(side, from, type);
  if(b->bg.pt[!side][e] == 1)
    for(t = 0; t < REF_TC_TYPES; t++)
      if(b->n[!side][e][t])
        h += zkey(!side, REF_BG_BAR, t) - zkey(!side, e, t);
  return h;
}

static size_t slot_of(uint64_t h, size_t mask)
{
  return (size_t)(h ^ (h >> 29) ^ (h >> 47)) & mask;
}

/* Room for one more entry in arrays of `cap`: the hashes, and one or two
 * more arrays of `size1`, `size2` bytes an entry (size2 may be 0); the
 * slots (index + 1, open addressing, at most half full) are rebuilt from
 * the stored hashes. */
static int table_grow(size_t n, size_t *cap, uint64_t **hashes, void **a1, size_t size1,
                      void **a2, size_t size2, uint32_t **slot, size_t *nslot)
{
  size_t c = *cap ? *cap * 2 : 64, i, j, mask;
  void *p;
  uint32_t *sl;

  if(n < *cap)
    return REF_OK;
  if(!(p = realloc(*hashes, c * sizeof(**hashes))))
    return REF_ENOMEM;
  *hashes = p;
  if(!(p = realloc(*a1, c * size1)))
    return REF_ENOMEM;
  *a1 = p;
  if(size2) {
    if(!(p = realloc(*a2, c * size2)))
      return REF_ENOMEM;
    *a2 = p;
  }
  if(!(sl = calloc(c * 2, sizeof(*sl))))
    return REF_ENOMEM;
  free(*slot);
  *slot = sl;
  *nslot = c * 2;
  *cap = c;
  mask = *nslot - 1;
  for(i = 0; i < n; i++) {
    for(j = slot_of((*hashes)[i], mask); sl[j]; j = (j + 1) & mask)
      ;
    sl[j] = (uint32_t)(i + 1);
  }
  return REF_OK;
}

static void table_put(uint32_t *slot, size_t nslot, uint64_t h, size_t index)
{
  size_t mask = nslot - 1, j;
  for(j = slot_of(h, mask); slot[j]; j = (j + 1) & mask)
    ;
  slot[j] = (uint32_t)(index + 1);
}

/* The generator's memo: (board, dice used) pairs already explored. The
 * dice mask is folded into the hash and kept beside the board. */
struct memo {
  size_t n, cap, nslot;
  struct ref_tc_board *key;
  uint64_t *hash;
  uint8_t *mask;
  uint32_t *slot;
};

/* Adds (b, mask): 1 if new, 0 if present, REF_ENOMEM. */
static int memo_add(struct memo *m, const struct ref_tc_board *b, uint64_t h, unsigned mask)
{
  size_t i, j, msk;
  uint32_t k;
  void *a1 = m->key, *a2 = m->mask;
  int rc;

  h ^= (uint64_t)(mask + 1) * 0xd6e8feb86659fd93u;
  if(m->nslot) {
    msk = m->nslot - 1;
    for(i = slot_of(h, msk);; i = (i + 1) & msk) {
      k = m->slot[i];
      if(!k)
        break;
      if(m->hash[k - 1] == h && m->mask[k - 1] == mask &&
         !memcmp(m->key[k - 1].n, b->n, sizeof(b->n)))
        return 0;
    }
  }
  rc = table_grow(m->n, &m->cap, &m->hash, &a1, sizeof(*m->key), &a2, 1, &m->slot, &m->nslot);
  m->key = a1;
  m->mask = a2;
  if(rc != REF_OK)
    return rc;
  j = m->n++;
  m->key[j] = *b;
  m->hash[j] = h;
  m->mask[j] = (uint8_t)mask;
  table_put(m->slot, m->nslot, h, j);
  return 1;
}

static void memo_free(struct memo *m)
{
  free(m->key);
  free(m->hash);
  free(m->mask);
  free(m->slot);
  memset(m, 0, sizeof(*m));
}

void ref_tc_play_result(const struct ref_tc_playlist *list, size_t i, struct ref_tc_board *out)
{
  const struct ref_bg_play *p = &list->v[i];
  int k;
  *out = list->start;
  for(k = 0; k < p->n; k++)
    ref_tc_step_apply(out, list->side, p->type[k], p->from[k], p->to[k]);
}

/* The list keeps plays and hashes, not boards: a board is compared by
 * replaying the play whose hash matches (cheap, and little memory). */
static long list_find(const struct ref_tc_playlist *l, const struct ref_tc_board *b, uint64_t h)
{
  struct ref_tc_board r;
  size_t mask, i;
  uint32_t k;
  if(!l->nslot)
    return -1;
  mask = l->nslot - 1;
  for(i = slot_of(h, mask);; i = (i + 1) & mask) {
    k = l->slot[i];
    if(!k)
      return -1;
    if(l->hash[k - 1] != h)
      continue;
    ref_tc_play_result(l, k - 1, &r);
    if(!memcmp(r.n, b->n, sizeof(b->n)))
      return (long)(k - 1);
  }
}

long ref_tc_playlist_find(const struct ref_tc_playlist *list, const struct ref_tc_board *res)
{
  return list_find(list, res, board_hash(res));
}

void ref_tc_playlist_free(struct ref_tc_playlist *list)
{
  free(list->v);
  free(list->hash);
  free(list->slot);
  memset(list, 0, sizeof(*list));
}

static int list_push(struct ref_tc_playlist *l, const struct ref_bg_play *p, uint64_t h)
{
  void *a1 = l->v;
  int rc = table_grow(l->n, &l->cap, &l->hash, &a1, sizeof(*l->v), NULL, 0, &l->slot,
                      &l->nslot);
  l->v = a1;
  if(rc != REF_OK)
    return rc;
  l->v[l->n] = *p;
  l->hash[l->n] = h;
  table_put(l->slot, l->nslot, h, l->n);
  l->n++;
  return REF_OK;
}

static void list_reset(struct ref_tc_playlist *l)
{
  l->n = 0;
  if(l->slot)
    memset(l->slot, 0, l->nslot * sizeof(*l->slot));
}

struct tgen {
  struct ref_tc_playlist *out;
  struct memo memo;
  int side;
  int dice[4];
  int ndice;
  bool doubles;
  struct ref_bg_play cur;
  int rc;
};

/* A turn may end here: keep it if must-play (TC-7, backgammon's ranking)
 * allows it and its board is new. */
static void tgen_save(struct tgen *g, const struct ref_tc_board *b, uint64_t h, unsigned mask,
                      int depth, bool won)
{
  struct ref_tc_playlist *l = g->out;
  int used = 0, pips = 0, k, c;

  for(k = 0; k < g->ndice; k++)
    if(won || (mask >> k & 1)) {
      used++;
      pips += g->dice[k];
    }
  c = ref_bg_mustplay_rank(&l->max_dice, &l->max_pips, used, pips); /* TC-7 */
  if(c < 0)
    return;
  if(c > 0)
    list_reset(l);
  g->cur.n = (uint8_t)depth;
  g->cur.won = won;
  if(list_find(l, b, h) >= 0)
    return;
  if(list_push(l, &g->cur, h) != REF_OK)
    g->rc = REF_ENOMEM;
}

/* Takes back a step made by ref_tc_step_apply; `ht` is the type of the
 * blot it hit, or -1. */
static void step_undo(struct ref_tc_board *b, int side, int type, int from, int to, int ht)
{
  int e = 25 - to;
  b->n[side][to][type]--;
  b->n[side][from][type]++;
  b->bg.pt[side][to]--;
  b->bg.pt[side][from]++;
  if(ht >= 0) {
    b->n[!side][REF_BG_BAR][ht]--;
    b->n[!side][e][ht]++;
    b->bg.pt[!side][REF_BG_BAR]--;
    b->bg.pt[!side][e]++;
  }
}

/* The type of the blot a step to `to` would hit, or -1. */
static int blot_type(const struct ref_tc_board *b, int side, int to)
{
  int e = 25 - to, t;
  if(b->bg.pt[!side][e] != 1)
    return -1;
  for(t = 0; t < REF_TC_TYPES; t++)
    if(b->n[!side][e][t])
      return t;
  return -1;
}

/*
 * Depth first over the steps, making and taking back each step on one
 * board. Every node whose king is safe (TC-4) may end the turn; must-play
 * picks among them. (board, dice used) pairs already explored are skipped:
 * their continuations are the same.
 */
static void tgen_rec(struct tgen *g, struct ref_tc_board *b, uint64_t h, unsigned mask,
                     int depth)
{
  uint64_t nh;
  int k, from, type, dir, to, r, ht;
  unsigned nmask;

  if(g->rc)
    return;
  if(ref_tc_king_safe(b, g->side))
    tgen_save(g, b, h, mask, depth, false);
  if(depth == g->ndice)
    return;
  for(k = 0; k < g->ndice; k++) {
    if(mask >> k & 1)
      continue;
    /* Doubles: the dice are alike, take them in order. */
    if(g->doubles && k != depth)
      continue;
    nmask = mask | 1u << k;
    for(from = REF_BG_BAR; from >= 1; from--) {
      if(!b->bg.pt[g->side][from])
        continue;
      for(type = 0; type < REF_TC_TYPES; type++) {
        if(!b->n[g->side][from][type])
          continue;
        for(dir = 1; dir >= -1; dir -= 2) {
          if(ref_tc_step(b, g->side, type, from, g->dice[k], dir, &to) != REF_TC_STEP_OK)
            continue;
          nh = step_hash(h, b, g->side, type, from, to);
          ht = blot_type(b, g->side, to);
          ref_tc_step_apply(b, g->side, type, from, to);
          g->cur.type[depth] = (uint8_t)type;
          g->cur.from[depth] = (uint8_t)from;
          g->cur.to[depth] = (uint8_t)to;
          if(type == K && to == 1) {
            /* TC-9, TC-9a: home; the game ends here. */
            tgen_save(g, b, nh, nmask, depth + 1, true);
          }
          else if(depth + 1 == g->ndice) {
            /* A leaf: no continuation to share, only the end to judge. */
            if(ref_tc_king_safe(b, g->side))
              tgen_save(g, b, nh, nmask, depth + 1, false);
          }
          else {
            r = memo_add(&g->memo, b, nh, nmask);
            if(r < 0)
              g->rc = r;
            else if(r)
              tgen_rec(g, b, nh, nmask, depth + 1);
          }
          step_undo(b, g->side, type, from, to, ht);
          if(g->rc)
            return;
        }
      }
    }
  }
}

int ref_tc_plays(const struct ref_tc_board *b, int side, int d1, int d2,
                 struct ref_tc_playlist *out)
{
  struct tgen g;
  struct ref_bg_play none;
  struct ref_tc_board work;
  int rc;

  memset(&g, 0, sizeof(g));
  g.out = out;
  g.side = side;
  list_reset(out);
  out->start = *b;
  out->side = side;
  out->max_dice = out->max_pips = -1;
  g.doubles = d1 == d2;
  g.ndice = g.doubles ? 4 : 2;
  g.dice[0] = d1 > d2 ? d1 : d2;
  g.dice[1] = d1 > d2 ? d2 : d1;
  g.dice[2] = g.dice[3] = d1;
  work = *b;
  tgen_rec(&g, &work, board_hash(b), 0, 0);
  rc = g.rc;
  memo_free(&g.memo);
  if(!rc && out->n == 0) {
    /* Only a board whose king is already alone (never in a game: TC-4)
     * gets here; it passes. */
    memset(&none, 0, sizeof(none));
    out->max_dice = out->max_pips = 0;
    rc = list_push(out, &none, board_hash(b));
  }
  return rc;
}

/* ---------------------------------------------------------------------- */
/* Notation                                                                */
/* ---------------------------------------------------------------------- */

/* The mover's own point of q (section 7.1); the bar is "bar". */
static char *put_point(char *p, int q)
{
  if(q == REF_BG_BAR) {
    memcpy(p, "bar", 3);
    return p + 3;
  }
  return ref_text_uint(p, (unsigned)(25 - q)); /* 1..24 */
}

/* Joins each piece's consecutive steps; keeps a point on the way where it
 * hit or turned (so the text names one resulting board). */
static int play_format(const struct ref_tc_board *b, int side, const struct ref_bg_play *p,
                       char *buf, size_t cap)
{
  struct ref_tc_board w = *b;
  char tmp[160], *o = tmp;
  bool hit[4];
  int i, j, k, len;

  if(p->n == 0) {
    if(cap < 3)
      return -1;
    memcpy(buf, "--", 3);
    return 2;
  }
  for(i = 0; i < p->n; i++)
    hit[i] = ref_tc_step_apply(&w, side, p->type[i], p->from[i], p->to[i]);
  for(i = 0; i < p->n; i = j) {
    for(j = i + 1; j < p->n && p->type[j] == p->type[i] && p->from[j] == p->to[j - 1]; j++)
      ;
    if(o != tmp)
      *o++ = ' ';
    *o++ = type_letter[p->type[i]];
    o = put_point(o, p->from[i]);
    for(k = i; k < j; k++) {
      bool last = k == j - 1;
      bool turned = !last && (p->to[k] < p->from[k]) != (p->to[k + 1] < p->from[k + 1]);
      if(!last && !hit[k] && !turned)
        continue;
      *o++ = '/';
      o = put_point(o, p->to[k]);
      if(hit[k])
        *o++ = '*';
    }
  }
  *o = '\0';
  len = (int)(o - tmp);
  if((size_t)len >= cap)
    return -1;
  memcpy(buf, tmp, (size_t)len + 1);
  return len;
}

/* ---------------------------------------------------------------------- */
/* The game                                                                */
/* ---------------------------------------------------------------------- */

/*
 * State. `onroll` is the side whose turn of play it is; `turn` the seat that
 * must act (the same, -1 when over). The opening roll (TC-6) is pending
 * while `opening` is set. `idle` counts the turns in a row that ended with
 * both kings stuck (TC-8).
 */
struct tc_state {
  struct ref_tc_board b;
  struct ref_bg_turn t; /* phases ROLL, MOVE or OVER (no cube, TC-11); TC-6 opening */
  int16_t idle;
};

#define TC_MOVE_TAG 0x54430000u /* "TC" */

static struct tc_state *st_of(struct ref_state *s)
{
  return (struct tc_state *)(void *)s;
}

static const struct tc_state *cst_of(const struct ref_state *s)
{
  return (const struct tc_state *)(const void *)s;
}

/* ---- reading a play (section 7.6): dice_notation.c --------------------- */

/* Piece words (section 1.3: Kt/Kn for the knight). */
static const struct ref_dn_word tc_words[] = {
  {"k", K},  {"king", K},  {"r", R},  {"rook", R},   {"b", B}, {"bishop", B},
  {"n", N},  {"kt", N},    {"kn", N}, {"knight", N}, {"p", P}, {"pawn", P},
};

/* Own points 1-24, pieces named, "off" refused (TC-10). */
static const struct ref_dn_syntax tc_syntax = {
  tc_words, (int)(sizeof(tc_words) / sizeof(tc_words[0])), "tc-off-track",
};

/* The board as the shared reader sees it: five piece types, both ways. */
static bool piece_on(const void *b, int side, int q, int type)
{
  return ((const struct ref_tc_board *)b)->n[side][q][type] != 0;
}

static bool any_on(const void *b, int side, int q)
{
  return ((const struct ref_tc_board *)b)->bg.pt[side][q] != 0;
}

static int reader_step(const void *b, int side, int type, int from, int die, int dir, int *to)
{
  return (int)ref_tc_step(b, side, type, from, die, dir, to);
}

static bool reader_apply(void *b, int side, int type, int from, int to)
{
  return ref_tc_step_apply(b, side, type, from, to);
}

static long reader_find(const void *legal, const void *b)
{
  return ref_tc_playlist_find(legal, b);
}

/* TC-9a: nothing moves once the king is home. */
static bool king_home(const void *b, int side)
{
  return ref_tc_king_at(b, side) == 1;
}

/* TC-4 at the end of the turn. */
static const char *king_alone(const void *b, int side)
{
  return ref_tc_king_safe(b, side) ? NULL : "tc-king-alone";
}

/* Refusal ranks by enum ref_tc_why: bar first tells most, then blocked,
 * backward, pawn blot, piece die, off track, no piece. */
static const int tc_why_rank[] = {0, 1, 7, 6, 2, 3, 4, 5};

static const struct ref_dn_board tc_reader_board = {
  sizeof(struct ref_tc_board), REF_TC_TYPES, piece_on, any_on, reader_step, reader_apply,
  reader_find, king_home, king_alone, tc_why_rank,
  1u << REF_TC_BLOCKED | 1u << REF_TC_PAWN_NO_BLOT, /* named by the point landed on */
};

static int tc_gen(const void *b, int side, int d1, int d2, void *list, struct ref_dn_plays *view)
{
  struct ref_tc_playlist *l = list;
  int rc = ref_tc_plays(b, side, d1, d2, l);
  *view = (struct ref_dn_plays){l->v, l->n, l->max_dice};
  return rc;
}

static int tc_text(const void *b, int side, const struct ref_bg_play *p, char *buf, size_t cap)
{
  return play_format(b, side, p, buf, cap);
}

static const char *why_reason(int why)
{
  switch(why) {
  case REF_TC_NO_PIECE:
    return "tc-no-piece";
  case REF_TC_BAR_FIRST:
    return "tc-bar-first";
  case REF_TC_BLOCKED:
    return "tc-blocked";
  case REF_TC_OFF_TRACK:
    return "tc-off-track";
  case REF_TC_WRONG_DIE:
    return "tc-piece-die";
  case REF_TC_BACKWARD:
    return "tc-backward";
  case REF_TC_PAWN_NO_BLOT:
    return "tc-pawn-blot";
  default:
    return "bg-wrong-dice";
  }
}

/* The refusal: the piece that cannot use the die, or the point in the
 * mover's numbering. */
static void tc_explain(const struct ref_dn_input *in, const int dice[2], int why, int at, int type,
                       const char **reason, char *detail, size_t cap)
{
  (void)in, (void)dice;
  *reason = why_reason(why);
  if(why == REF_TC_WRONG_DIE && type >= 0)
    snprintf(detail, cap, "%s", type_name[type]);
  else if(why != REF_DN_WHY_DICE && why != REF_DN_WHY_NONE) {
    if(at == REF_BG_BAR)
      snprintf(detail, cap, "bar");
    else if(at >= 1 && at <= 24)
      snprintf(detail, cap, "%d", 25 - at);
  }
}

static void tc_list_free(void *list)
{
  ref_tc_playlist_free(list);
}

/* Tables Chess as dice_notation.c plays it: typed pieces both ways, no
 * bearing off (TC-10), a play may win on the way (TC-9a). */
static const struct ref_dn_rules tc_rules = {
  TC_MOVE_TAG, &tc_syntax, &tc_reader_board,
  offsetof(struct tc_state, b), offsetof(struct tc_state, t),
  1, false, true,
  sizeof(struct ref_tc_playlist), tc_gen, tc_list_free, tc_text, tc_explain, TC_SUGGEST,
};

/* Section 7.6 read by dice_notation.c: the pieces named or not, routes in
 * any order, the hit marks. */
static int tc_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  return ref_dn_parse(&tc_rules, s, text, out, err);
}

static void board_start(struct ref_tc_board *b)
{
  /* Section 7.1, own numbering: K+P 1, N+P 3, R+P 7, B+P 13, B+P 16,
   * N+P 19, both sides alike. */
  static const int pts[6] = {1, 3, 7, 13, 16, 19};
  static const int types[6] = {K, N, R, B, B, N};
  int s, i;
  memset(b, 0, sizeof(*b));
  for(s = 0; s < 2; s++)
    for(i = 0; i < 6; i++) {
      b->n[s][25 - pts[i]][types[i]]++;
      b->n[s][25 - pts[i]][P]++;
    }
  ref_tc_board_sync(b);
}

/* Every win is worth one point (TC-12), a draw none. */
static void finish(struct tc_state *st, int winner, enum ref_end end)
{
  ref_bg_turn_finish(&st->t, winner, end, winner >= 0);
}

static void start_turn(struct tc_state *st, int seat)
{
  st->t.onroll = st->t.turn = (int8_t)seat;
  st->t.dice[0] = st->t.dice[1] = 0;
  st->t.phase = REF_PHASE_ROLL;
}

/* ---- position strings -------------------------------------------------- */

static int tc_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct tc_state *st = cst_of(s);
  char tmp[256];
  struct base_buf o;
  int side, p, q, t, c;

  /* into tmp, then copied whole: buf is untouched when it does not fit */
  base_buf_init_fixed(&o, tmp, sizeof(tmp));
  for(side = 0; side < 2; side++) {
    if(side)
      ref_text_emit(&o, "/");
    for(p = 0; p <= 24; p++) {
      q = p ? 25 - p : REF_BG_BAR;
      if(!st->b.bg.pt[side][q])
        continue;
      for(t = 0; t < REF_TC_TYPES; t++)
        for(c = 0; c < st->b.n[side][q][t]; c++)
          ref_text_emit(&o, "%c",
                        side ? (char)tolower((unsigned char)type_letter[t]) : type_letter[t]);
      ref_text_emit(&o, "%d", p);
    }
  }
  ref_text_emit(&o, ":");
  if(st->t.phase == REF_PHASE_OVER) {
    static const char how[REF_END_LAST] = {[REF_END_KING_HOME] = 'k',
                                           [REF_END_RESIGNATION] = 'r',
                                           [REF_END_STALEMATE] = 's',
                                           [REF_END_AGREEMENT] = 'a'};
    ref_text_emit(&o, "x%c%c", st->t.winner < 0 ? 'd' : "wb"[st->t.winner],
                  how[st->t.end] ? how[st->t.end] : '?');
  }
  else if(st->t.opening)
    ref_text_emit(&o, "o");
  else {
    ref_text_emit(&o, "%c", "wb"[st->t.onroll]);
    if(st->t.phase == REF_PHASE_MOVE)
      ref_text_emit(&o, "%d%d", st->t.dice[0], st->t.dice[1]);
  }
  ref_text_emit(&o, ":%d:%d", st->idle, st->t.move_number);
  if(base_buf_err(&o))
    return REF_EINVAL;
  return ref_text_copy(o.s, o.len, buf, cap);
}

static int bad_position(struct ref_err *err, const char *what)
{
  ref_err_set(err, REF_EINVAL, "tc-bad-position", what);
  return REF_EINVAL;
}

static int type_of_letter(int c)
{
  const char *q = strchr("krbnp", tolower(c));
  return c && q ? (int)(q - "krbnp") : -1;
}

/* One side's groups, e.g. "KP1NP3RP7", into b->n[side]. */
static int read_side(const char *p, const char *end, struct ref_tc_board *b, int side,
                     struct ref_err *err)
{
  int types[REF_TC_TYPES * 4], nt, i, pt, t, total[REF_TC_TYPES] = {0};
  bool seen[25] = {false};

  while(p < end) {
    nt = 0;
    while(p < end && isalpha((unsigned char)*p)) {
      if((t = type_of_letter(*p)) < 0)
        return bad_position(err, "piece letters are K R B N P");
      if(nt == (int)(sizeof(types) / sizeof(types[0])))
        return bad_position(err, "too many pieces");
      types[nt++] = t;
      p++;
    }
    if(!nt || p == end || !isdigit((unsigned char)*p))
      return bad_position(err, "each group is piece letters and a point");
    /* At most two digits are read, so the number cannot overflow
     * ("K2222222222" used to). */
    for(pt = 0, i = 0; p < end && isdigit((unsigned char)*p); p++, i++)
      if(i < 2)
        pt = pt * 10 + (*p - '0');
    if(i > 2 || pt > 24)
      return bad_position(err, "points are 1 to 24, 0 the bar");
    if(seen[pt])
      return bad_position(err, "a point is listed twice");
    seen[pt] = true;
    for(i = 0; i < nt; i++) {
      b->n[side][pt ? 25 - pt : REF_BG_BAR][types[i]]++;
      total[types[i]]++;
    }
  }
  for(t = 0; t < REF_TC_TYPES; t++)
    if(total[t] != type_count[t])
      return bad_position(err, "each side has K, R, 2 B, 2 N and 6 P (TC-1)");
  return REF_OK;
}

static bool read_uint(const char *p, const char *end, int max, int *out)
{
  int v = 0;
  if(p == end || end - p > 5)
    return false;
  for(; p < end; p++) {
    if(!isdigit((unsigned char)*p))
      return false;
    v = v * 10 + (*p - '0');
  }
  if(v > max)
    return false;
  *out = v;
  return true;
}

static bool tc_ok(const struct ref_state *s);

static int tc_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct tc_state nst;
  const char *f[5], *fe[5], *p, *slash;
  int nf = 0, side, q, v;

  if(!text)
    return bad_position(err, "empty");
  while(isspace((unsigned char)*text))
    text++;
  for(p = text, f[0] = text;; p++) {
    if(*p == ':' || !*p || isspace((unsigned char)*p)) {
      fe[nf++] = p;
      if(*p != ':')
        break;
      /* Bound checked before the store: f[5] would be one past
       * the array on a sixth field. */
      if(nf == (int)(sizeof(f) / sizeof(f[0])))
        return bad_position(err, "too many fields");
      f[nf] = p + 1;
    }
  }
  for(; *p; p++)
    if(!isspace((unsigned char)*p))
      return bad_position(err, "text after the position");
  if(nf < 2 || nf > 4)
    return bad_position(err, "fields are board:phase[:stuck[:move]]");

  memset(&nst, 0, sizeof(nst));
  nst.t.winner = -1;
  nst.t.last_seat = -1;
  nst.t.move_number = 1;
  slash = memchr(f[0], '/', (size_t)(fe[0] - f[0]));
  if(!slash)
    return bad_position(err, "the board is WHITE/BLACK");
  if(read_side(f[0], slash, &nst.b, 0, err) || read_side(slash + 1, fe[0], &nst.b, 1, err))
    return REF_EINVAL;
  ref_tc_board_sync(&nst.b);
  if(!ref_bg_board_ok(&nst.b.bg))
    return bad_position(err, "a point holds pieces of both sides");
  for(side = 0; side < 2; side++) {
    q = ref_tc_king_at(&nst.b, side);
    if(q == REF_BG_BAR)
      return bad_position(err, "a king is never on the bar (TC-4)");
  }

  if(nf >= 3 && !read_uint(f[2], fe[2], TC_IDLE_MAX, &v))
    return bad_position(err, "stuck count");
  nst.idle = (int16_t)(nf >= 3 ? v : 0);
  if(nf >= 4 && (!read_uint(f[3], fe[3], REF_BG_MOVE_MAX, &v) || v < 1))
    return bad_position(err, "move number");
  nst.t.move_number = (int16_t)(nf >= 4 ? v : 1);

  p = f[1];
  v = (int)(fe[1] - f[1]);
  if(v == 1 && *p == 'o') {
    nst.t.opening = 1;
    start_turn(&nst, 0);
  }
  else if((v == 1 || v == 3) && (*p == 'w' || *p == 'b')) {
    start_turn(&nst, *p == 'b');
    if(v == 3) {
      if(p[1] < '1' || p[1] > '6' || p[2] < '1' || p[2] > '6')
        return bad_position(err, "dice are 1 to 6");
      nst.t.dice[0] = (uint8_t)(p[1] - '0');
      nst.t.dice[1] = (uint8_t)(p[2] - '0');
      nst.t.phase = REF_PHASE_MOVE;
    }
  }
  else if(v == 3 && *p == 'x') {
    int winner = p[1] == 'w' ? 0 : p[1] == 'b' ? 1 : p[1] == 'd' ? -1 : -2;
    enum ref_end end = p[2] == 'k'   ? REF_END_KING_HOME
                       : p[2] == 'r' ? REF_END_RESIGNATION
                       : p[2] == 's' ? REF_END_STALEMATE
                       : p[2] == 'a' ? REF_END_AGREEMENT
                                     : REF_END_NONE;
    if(winner == -2 || end == REF_END_NONE)
      return bad_position(err, "game over: x, then w, b or d, then k, r, s or a");
    finish(&nst, winner, end);
  }
  else
    return bad_position(err, "phase is o, w, b, w21, b66 or x..");
  if(!tc_ok((const struct ref_state *)(const void *)&nst))
    return bad_position(err, "no game reaches it (a king alone or home, or the stuck count)");
  *st_of(s) = nst;
  return REF_OK;
}

static int tc_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct tc_state *st = st_of(s);
  char pos[256], bad[64];
  const char *p, *e;
  bool fen = false;

  memset(st, 0, sizeof(*st));
  board_start(&st->b);
  st->t.opening = 1;
  start_turn(st, 0);
  st->t.winner = -1;
  st->t.move_number = 1;
  st->t.last_seat = -1;
  /* "key=value;...": only fen=POSITION (the top comment's string). */
  for(p = options; p && *p; p = *e ? e + 1 : e) {
    e = p + strcspn(p, ";");
    if(e - p > 4 && !strncmp(p, "fen=", 4) && !fen && (size_t)(e - p - 4) < sizeof(pos)) {
      memcpy(pos, p + 4, (size_t)(e - p - 4));
      pos[e - p - 4] = '\0';
      fen = true;
      continue;
    }
    if(e == p)
      continue;
    snprintf(bad, sizeof(bad), "%.*s", (int)(e - p), p);
    ref_err_set(err, REF_EINVAL, "bad-option", bad);
    return REF_EINVAL;
  }
  return fen ? tc_decode(s, pos, err) : REF_OK;
}

/* ---- dice and actions -------------------------------------------------- */

/* Section 7.2: the opening roll is one die each (faces[0] White's), ties
 * again; TC-6: the starter then rolls two fresh dice. */
static int tc_roll(struct ref_state *s, const int *faces, int nfaces, struct ref_err *err)
{
  return ref_bg_turn_roll(&st_of(s)->t, faces, nfaces, "tc-no-roll-now", false, err);
}

/* TC-12: a resignation loses the game, whatever level was named; TC-8:
 * "Stalemate" by agreement, the referee declares the other itself; TC-11:
 * no cube. */
static const struct ref_bg_acts tc_acts = {NULL, "tc-no-draw-claim", NULL, "tc-no-cube", NULL};

static int tc_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  return ref_bg_turn_act(&st_of(s)->t, NULL, seat, action, arg, &tc_acts, err);
}

/* ---- moves ------------------------------------------------------------- */

static int tc_legal(const struct ref_state *s, struct ref_movelist *out)
{
  return ref_dn_legal(&tc_rules, s, out);
}

static int tc_apply(struct ref_state *s, const struct ref_move *m)
{
  struct tc_state *st = st_of(s);
  struct ref_bg_play p;
  int mover = st->t.onroll, rc = ref_dn_apply(&tc_rules, s, m, &p);

  if(rc)
    return rc;
  if(ref_tc_king_at(&st->b, mover) == 1) {
    finish(st, mover, REF_END_KING_HOME); /* TC-9 */
    return REF_OK;
  }
  /* TC-8, TC-8a: turns in a row (passes included) that end with both
   * kings stuck behind blocks. */
  st->idle = (int16_t)(ref_tc_king_stuck(&st->b, 0) && ref_tc_king_stuck(&st->b, 1)
                         ? st->idle + 1
                         : 0);
  if(st->idle >= TC_IDLE_MAX) {
    finish(st, -1, REF_END_STALEMATE);
    return REF_OK;
  }
  start_turn(st, !mover);
  return REF_OK;
}

static void tc_status(const struct ref_state *s, struct ref_status *out)
{
  ref_bg_turn_status(&cst_of(s)->t, NULL, out); /* TC-11: no cube */
}

/* One notation for players and programs alike (section 7.6). */
static int tc_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  (void)style;
  return ref_dn_format(&tc_rules, s, m, buf, cap);
}

static bool tc_ok(const struct ref_state *s)
{
  const struct tc_state *st = cst_of(s);
  struct ref_tc_board b = st->b;
  int side, t, q, total[REF_TC_TYPES];

  /* The counts are what the types add up to, 12 pieces a side (TC-1),
   * no point shared (backgammon's invariant, padding included). */
  if(!ref_tc_board_sync(&b) || memcmp(&b, &st->b, sizeof(b)) || !ref_bg_board_ok(&b.bg))
    return false;
  for(side = 0; side < 2; side++) {
    memset(total, 0, sizeof(total));
    for(q = 1; q <= REF_BG_BAR; q++)
      for(t = 0; t < REF_TC_TYPES; t++)
        total[t] += b.n[side][q][t];
    for(t = 0; t < REF_TC_TYPES; t++)
      if(total[t] != type_count[t])
        return false;
    q = ref_tc_king_at(&b, side);
    if(q == REF_BG_BAR)
      return false;
    /* TC-4 at every turn's end; TC-9: home only in a game won so. */
    if(q == 1) {
      if(st->t.phase != REF_PHASE_OVER || st->t.end != REF_END_KING_HOME || st->t.winner != side)
        return false;
    }
    else if(!ref_tc_king_safe(&b, side))
      return false;
  }
  if(st->t.move_number < 1 || st->idle < 0 || st->idle > TC_IDLE_MAX || st->t.onroll < 0 ||
     st->t.onroll > 1)
    return false;
  /* TC-8: a count only while both kings are stuck (it restarts at 0). */
  if(st->idle > 0 && !(ref_tc_king_stuck(&b, 0) && ref_tc_king_stuck(&b, 1)))
    return false;
  switch(st->t.phase) {
  case REF_PHASE_ROLL:
    return st->t.turn == st->t.onroll && !st->t.dice[0] && !st->t.dice[1] &&
           st->idle < TC_IDLE_MAX &&
           (!st->t.opening || st->t.turn == 0);
  case REF_PHASE_MOVE:
    return st->t.turn == st->t.onroll && !st->t.opening && st->t.dice[0] >= 1 &&
           st->t.dice[0] <= 6 &&
           st->t.dice[1] >= 1 && st->t.dice[1] <= 6 && st->idle < TC_IDLE_MAX;
  case REF_PHASE_OVER:
    if(st->t.turn != -1 || st->t.dice[0] || st->t.dice[1] || st->t.winner < -1 || st->t.winner > 1)
      return false;
    switch(st->t.end) {
    case REF_END_KING_HOME:
      return st->t.winner >= 0 && ref_tc_king_at(&b, st->t.winner) == 1;
    case REF_END_RESIGNATION:
      return st->t.winner >= 0;
    case REF_END_STALEMATE:
      return st->t.winner == -1 && st->idle >= TC_IDLE_MAX;
    case REF_END_AGREEMENT:
      return st->t.winner == -1;
    default:
      return false;
    }
  default:
    return false;
  }
}

/* ---- the board diagram ------------------------------------------------- */

/*
 * A backgammon board with the piece letters stacked on the points (section
 * 7.1's picture), from the reader's side: the reader's points 1-12 along
 * the bottom, 1 at the right, and 13-24 along the top, 24 at the right, so
 * the reader's king runs right to left along the bottom and back left to
 * right along the top. White's letters are upper case, Black's lower. The
 * bar column holds the far side's bar pieces above, the reader's below.
 * Both readers see their own numbering in the same places (as the
 * backgammon board of backgammon.c does), so Black's picture is White's
 * mirrored, not turned: "your point 1 is bottom right" holds for both.
 */
/* The letters on White's point w (1-24), or on side's bar (w = 0: White's,
 * w = 25: Black's), in the order K R B N P, White first. */
static int stack_at(const struct ref_tc_board *b, int w, char *letters)
{
  int side, q, t, c, n = 0;
  for(side = 0; side < 2; side++) {
    if(w == 0 || w == 25) {
      if(side != (w == 25))
        continue;
      q = REF_BG_BAR;
    }
    else
      q = side ? w : 25 - w;
    for(t = 0; t < REF_TC_TYPES; t++)
      for(c = 0; c < b->n[side][q][t]; c++)
        letters[n++] = side ? (char)tolower((unsigned char)type_letter[t]) : type_letter[t];
  }
  letters[n] = '\0';
  return n;
}

/* White's point shown in column i (0-11) of the upper or lower row. */
static int column_point(int reader, bool top, int i)
{
  int own = top ? 13 + i : 12 - i; /* reader's own numbering */
  return reader ? 25 - own : own;
}

static void half(struct base_buf *o, const struct tc_state *st, int reader, bool top)
{
  char stacks[13][32];
  int len[13], rows = 1, row, i, r;

  for(i = 0; i < 12; i++)
    len[i] = stack_at(&st->b, column_point(reader, top, i), stacks[i]);
  /* column 12: the bar, far side's above, the reader's below */
  len[12] = stack_at(&st->b, (top ? !reader : reader) ? 25 : 0, stacks[12]);
  for(i = 0; i < 13; i++)
    if(len[i] > rows)
      rows = len[i];
  for(r = 0; r < rows; r++) {
    row = top ? r : rows - 1 - r;
    ref_text_emit(o, " |");
    for(i = 0; i < 12; i++) {
      char c = row < len[i] ? stacks[i][row] : (row == 0 ? '.' : ' ');
      if(i == 6)
        ref_text_emit(o, " |  %c  |", row < len[12] ? stacks[12][row] : ' ');
      ref_text_emit(o, "  %c ", c);
    }
    ref_text_emit(o, " |\n");
  }
}

static void labels(struct base_buf *o, bool top)
{
  int i;
  ref_text_emit(o, "  ");
  for(i = 0; i < 12; i++) {
    if(i == 6)
      ref_text_emit(o, " | bar |");
    ref_text_emit(o, " %2d%s", top ? 13 + i : 12 - i, i == 11 ? "" : " ");
  }
  ref_text_emit(o, "\n");
}

static int tc_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct tc_state *st = cst_of(s);
  struct base_buf o;
  int reader = seat == 1 ? 1 : 0, side, q;
  char bar[32];

  if(!cap)
    return REF_EINVAL;
  base_buf_init_fixed(&o, buf, cap);
  ref_text_emit(&o, " Tables Chess, %s's side: %s upper case, %s lower case.\n", seat_name[reader],
                seat_name[0], seat_name[1]);
  /* how to read the columns: a reader new to it cannot guess the dots,
   * the blanks or the stacks */
  ref_text_emit(&o, " A point's pieces stack from the edge inward; . is an empty point.\n");
  labels(&o, true);
  ref_text_emit(&o, " +-------------------------+-----+-------------------------+\n");
  half(&o, st, reader, true);
  ref_text_emit(&o, " |                         |     |                         |\n");
  half(&o, st, reader, false);
  ref_text_emit(&o, " +-------------------------+-----+-------------------------+\n");
  labels(&o, false);
  for(side = 0; side < 2; side++) {
    stack_at(&st->b, side ? 25 : 0, bar);
    q = ref_tc_king_at(&st->b, side);
    ref_text_emit(&o, " %s: king on %d of 24%s%s.\n", seat_name[side], q > 0 ? 25 - q : 0,
                  bar[0] ? "; on the bar: " : "", bar);
  }
  if(st->idle > 0 && st->t.phase != REF_PHASE_OVER)
    ref_text_emit(&o, " Both kings stuck behind blocks for %d turn%s (a draw at %d, TC-8).\n",
                  st->idle, st->idle == 1 ? "" : "s", TC_IDLE_MAX);
  ref_bg_turn_render(&o, &st->t, NULL, "Opening roll: one die each, the higher starts.");
  return base_buf_err(&o) ? REF_EINVAL : REF_OK;
}

/* The board as data: the pieces on their points as render
 * shows them (stack_at: White's point w holds White's own q = 25 - w and
 * Black's q = w), both bars, the dice to play, the last play marked. */
static int tc_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct tc_state *st = cst_of(s);
  char letters[40];
  int w, side, i, n;
  ref_diag_points(d, seat == 1);
  for(w = 1; w <= 24; w++) {
    n = stack_at(&st->b, w, letters);
    for(i = 0; i < n; i++)
      ref_diag_put_letter(&d->point[w - 1], letters[i]);
  }
  for(side = 0; side < 2; side++) {
    n = stack_at(&st->b, side ? 25 : 0, letters);
    for(i = 0; i < n; i++)
      ref_diag_put_letter(&d->bar[side], letters[i]);
  }
  ref_diag_bg_turn(d, &st->t, true);
  return REF_OK;
}

/* No perft of its own: the generic one (dice fixed by the caller). */
static const struct ref_game_ops tc_ops = {
  .init = tc_init,     .decode = tc_decode, .encode = tc_encode, .legal = tc_legal,
  .parse = tc_parse,   .format = tc_format, .apply = tc_apply,   .roll = tc_roll,
  .act = tc_act,       .status = tc_status, .render = tc_render, .ok = tc_ok,
  .diagram = tc_diagram};

/* Two seats, White first; dice, no cube (TC-11), draws (TC-8). Version 2:
 * TC-8 is both Kings stuck behind blocks. */
const struct ref_game_desc ref_game_tables_chess = {
  "tableschess", "Tables Chess", 2 /* version: bump when any ruling changes */, 2,
  {"White", "Black"}, REF_GAME_DICE | REF_GAME_DRAWS, sizeof(struct tc_state), &tc_ops};
