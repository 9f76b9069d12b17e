/*
 * tables_chess.c: Tables Chess (Adam Goss): chess pieces racing on a
 * backgammon board, moved by the dice.
 *
 * Rules: docs/rules-spec.md section 7 and its decisions TC-0 .. TC-11
 * (board and setup TC-1, piece dice TC-2/TC-3, king safety at the end of
 * the turn TC-4, entry TC-5, fresh dice for the starter TC-6, must-play
 * TC-7, the stalemate draw TC-8, exact landing TC-9, no bearing off TC-10,
 * no cube TC-11). The board arithmetic (points, blots, blocks, the bar,
 * entry, hits, must-play ranking) is backgammon's, reused through
 * backgammon_int.h; what Tables Chess adds (piece types, backward moves,
 * the king) is in tables_chess_int.h's helpers below.
 *
 * Decisions of this file that the spec does not make (also in the report
 * and named by tests):
 *   TC-9a  A king landing on its point 24 ends the turn and the game at
 *          once: dice left are not played, and for must-play (TC-7) the
 *          winning play counts as using the whole roll.
 *   TC-8a  The idle count of TC-8 is kept in plies (turns of either
 *          player, passes included): the draw comes when 100 plies in a
 *          row have moved neither king.
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
 *   IDLE          plies in a row without a king move (TC-8), default 0
 *   MOVE          turns played so far + 1, default 1
 *
 * The start:  KP1NP3RP7BP13BP16NP19/kp1np3rp7bp13bp16np19:o:0:1
 *
 * Notation (section 7.6): per piece <letter><from>/<to> in the mover's
 * numbering, `bar` as the source of an entry, `*` after a hit: `K1/3 P1/2`,
 * `R7/13*`, `Nbar/5`. One piece's consecutive steps are joined (`R7/13`);
 * a point on the way is kept where it hit or where the piece turned.
 */
#include "tables_chess_int.h"
#include "diagram_int.h"
#include "rules.h"

#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TC_PIECES 12
#define TC_IDLE_MAX 100 /* TC-8: 50 turns of each player */
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
  const struct ref_tc_play *p = &list->v[i];
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

static int list_push(struct ref_tc_playlist *l, const struct ref_tc_play *p, uint64_t h)
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
  struct ref_tc_play cur;
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
  c = ref_bg_mustplay_cmp(used, pips, l->max_dice, l->max_pips);
  if(c < 0)
    return;
  if(c > 0) {
    list_reset(l);
    l->max_dice = used;
    l->max_pips = pips;
  }
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
  struct ref_tc_play none;
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
  if(q == REF_BG_BAR)
    return p + sprintf(p, "bar");
  return p + sprintf(p, "%d", 25 - q);
}

/* Joins each piece's consecutive steps; keeps a point on the way where it
 * hit or turned (so the text names one resulting board). */
static int play_format(const struct ref_tc_board *b, int side, const struct ref_tc_play *p,
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
 * while `opening` is set. `idle` counts plies without a king move (TC-8).
 */
struct tc_state {
  struct ref_tc_board b;
  uint8_t phase; /* enum ref_phase: ROLL, MOVE or OVER (no cube, TC-11) */
  int8_t turn;
  int8_t onroll;
  uint8_t opening;
  uint8_t dice[2];
  int8_t winner; /* -1: a draw */
  uint8_t end;   /* enum ref_end */
  int16_t idle;
  int16_t move_number;
  int8_t last_seat;
  uint8_t last_dice[2];
  char last[64];
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

static void play_to_move(const struct ref_tc_play *p, struct ref_move *m)
{
  int i;
  memset(m, 0, sizeof(*m));
  m->w[0] = TC_MOVE_TAG | p->n | (uint32_t)p->won << 8;
  for(i = 0; i < p->n; i++)
    m->w[1 + i] = (uint32_t)p->type[i] | (uint32_t)p->from[i] << 8 | (uint32_t)p->to[i] << 16;
}

static int move_to_play(const struct ref_move *m, struct ref_tc_play *p)
{
  int i;
  if((m->w[0] & 0xffff0000u) != TC_MOVE_TAG || (m->w[0] & 0xffu) > 4 ||
     (m->w[0] & 0xfe00u))
    return REF_EINVAL;
  memset(p, 0, sizeof(*p));
  p->n = (uint8_t)(m->w[0] & 0xffu);
  p->won = (uint8_t)(m->w[0] >> 8 & 1u);
  for(i = 0; i < p->n; i++) {
    p->type[i] = (uint8_t)(m->w[1 + i] & 0xff);
    p->from[i] = (uint8_t)(m->w[1 + i] >> 8 & 0xff);
    p->to[i] = (uint8_t)(m->w[1 + i] >> 16 & 0xff);
    if(p->type[i] >= REF_TC_TYPES || p->from[i] < 1 || p->from[i] > REF_BG_BAR ||
       p->to[i] < 1 || p->to[i] > 24 || p->to[i] == p->from[i])
      return REF_EINVAL;
  }
  return REF_OK;
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

static void finish(struct tc_state *st, int winner, enum ref_end end)
{
  st->phase = REF_PHASE_OVER;
  st->turn = -1;
  st->winner = (int8_t)winner;
  st->end = (uint8_t)end;
  st->dice[0] = st->dice[1] = 0;
}

static void start_turn(struct tc_state *st, int seat)
{
  st->onroll = st->turn = (int8_t)seat;
  st->dice[0] = st->dice[1] = 0;
  st->phase = REF_PHASE_ROLL;
}

/* ---- position strings -------------------------------------------------- */

static int tc_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct tc_state *st = cst_of(s);
  char tmp[256], *o = tmp;
  int side, p, q, t, c;

  for(side = 0; side < 2; side++) {
    if(side)
      *o++ = '/';
    for(p = 0; p <= 24; p++) {
      q = p ? 25 - p : REF_BG_BAR;
      if(!st->b.bg.pt[side][q])
        continue;
      for(t = 0; t < REF_TC_TYPES; t++)
        for(c = 0; c < st->b.n[side][q][t]; c++)
          *o++ = side ? (char)tolower((unsigned char)type_letter[t]) : type_letter[t];
      o += sprintf(o, "%d", p);
    }
  }
  *o++ = ':';
  if(st->phase == REF_PHASE_OVER) {
    static const char how[REF_END_LAST] = {[REF_END_KING_HOME] = 'k',
                                           [REF_END_RESIGNATION] = 'r',
                                           [REF_END_STALEMATE] = 's',
                                           [REF_END_AGREEMENT] = 'a'};
    o += sprintf(o, "x%c%c", st->winner < 0 ? 'd' : "wb"[st->winner],
                 how[st->end] ? how[st->end] : '?');
  }
  else if(st->opening)
    *o++ = 'o';
  else {
    *o++ = "wb"[st->onroll];
    if(st->phase == REF_PHASE_MOVE)
      o += sprintf(o, "%d%d", st->dice[0], st->dice[1]);
  }
  o += sprintf(o, ":%d:%d", st->idle, st->move_number);
  if((size_t)(o - tmp) >= cap)
    return REF_EINVAL;
  memcpy(buf, tmp, (size_t)(o - tmp) + 1);
  return REF_OK;
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
    /* At most two digits are read, so the number cannot overflow (issue 20:
     * "K2222222222" used to). */
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
      /* Bound checked before the store (issue 20): f[5] would be one past
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
    return bad_position(err, "fields are board:phase[:idle[:move]]");

  memset(&nst, 0, sizeof(nst));
  nst.winner = -1;
  nst.last_seat = -1;
  nst.move_number = 1;
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
    return bad_position(err, "idle count");
  nst.idle = (int16_t)(nf >= 3 ? v : 0);
  if(nf >= 4 && (!read_uint(f[3], fe[3], 30000, &v) || v < 1))
    return bad_position(err, "move number");
  nst.move_number = (int16_t)(nf >= 4 ? v : 1);

  p = f[1];
  v = (int)(fe[1] - f[1]);
  if(v == 1 && *p == 'o') {
    nst.opening = 1;
    start_turn(&nst, 0);
  }
  else if((v == 1 || v == 3) && (*p == 'w' || *p == 'b')) {
    start_turn(&nst, *p == 'b');
    if(v == 3) {
      if(p[1] < '1' || p[1] > '6' || p[2] < '1' || p[2] > '6')
        return bad_position(err, "dice are 1 to 6");
      nst.dice[0] = (uint8_t)(p[1] - '0');
      nst.dice[1] = (uint8_t)(p[2] - '0');
      nst.phase = REF_PHASE_MOVE;
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
    return bad_position(err, "no game reaches it (a king alone or home, or the idle count)");
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
  st->opening = 1;
  start_turn(st, 0);
  st->winner = -1;
  st->move_number = 1;
  st->last_seat = -1;
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

static int tc_roll(struct ref_state *s, const int *faces, int nfaces, struct ref_err *err)
{
  struct tc_state *st = st_of(s);

  if(st->phase != REF_PHASE_ROLL) {
    ref_err_set(err, REF_EPHASE, st->phase == REF_PHASE_OVER ? "game-over" : "tc-no-roll-now",
                NULL);
    return REF_EPHASE;
  }
  if(nfaces != 2 || faces[0] < 1 || faces[0] > 6 || faces[1] < 1 || faces[1] > 6) {
    ref_err_set(err, REF_EINVAL, "bg-bad-dice", NULL);
    return REF_EINVAL;
  }
  if(st->opening) {
    /* Section 7.2: one die each (faces[0] White's), ties again; TC-6:
     * the starter then rolls two fresh dice. */
    if(faces[0] != faces[1]) {
      st->opening = 0;
      start_turn(st, faces[0] > faces[1] ? 0 : 1);
    }
    return REF_OK;
  }
  st->dice[0] = (uint8_t)faces[0];
  st->dice[1] = (uint8_t)faces[1];
  st->phase = REF_PHASE_MOVE;
  return REF_OK;
}

static int tc_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct tc_state *st = st_of(s);

  (void)arg;
  if(seat < 0 || seat > 1) {
    ref_err_set(err, REF_EINVAL, "bad-seat", NULL);
    return REF_EINVAL;
  }
  if(st->phase == REF_PHASE_OVER) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  switch(action) {
  case REF_ACT_RESIGN:
    /* TC-12: a resignation loses the game, whatever level was named. */
    finish(st, !seat, REF_END_RESIGNATION);
    return REF_OK;
  case REF_ACT_DRAW_AGREED:
    /* TC-8: "Stalemate" by agreement. */
    finish(st, -1, REF_END_AGREEMENT);
    return REF_OK;
  case REF_ACT_DRAW_CLAIM:
    /* TC-8: the referee declares the idle-king draw itself. */
    ref_err_set(err, REF_EINVAL, "tc-no-draw-claim", NULL);
    return REF_EINVAL;
  case REF_ACT_DOUBLE:
  case REF_ACT_TAKE:
  case REF_ACT_DROP:
    ref_err_set(err, REF_EINVAL, "tc-no-cube", NULL); /* TC-11 */
    return REF_EINVAL;
  default:
    ref_err_set(err, REF_EINVAL, "bad-option", NULL);
    return REF_EINVAL;
  }
}

/* ---- moves ------------------------------------------------------------- */

static int tc_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct tc_state *st = cst_of(s);
  struct ref_tc_playlist list = {0};
  struct ref_move m;
  size_t i;
  int rc;

  if(st->phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  rc = ref_tc_plays(&st->b, st->onroll, st->dice[0], st->dice[1], &list);
  for(i = 0; !rc && i < list.n; i++) {
    play_to_move(&list.v[i], &m);
    rc = ref_movelist_push(out, &m);
  }
  ref_tc_playlist_free(&list);
  return rc;
}

static int tc_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  const struct tc_state *st = cst_of(s);
  struct ref_tc_play p;
  /* One notation for players and programs alike (section 7.6). */
  (void)style;
  if(move_to_play(m, &p) != REF_OK)
    return REF_EINVAL;
  if(play_format(&st->b, st->onroll, &p, buf, cap) < 0)
    return REF_EINVAL;
  return REF_OK;
}

/* apply's own check: each step legal with an unused die of the roll, the
 * king safe at the end unless home. Must-play is legal()'s business. */
static bool play_fits(const struct tc_state *st, const struct ref_tc_play *p,
                      struct ref_tc_board *after)
{
  struct ref_tc_board b = st->b;
  int dice[4], nd, i, k, to;
  bool used[4] = {false, false, false, false}, found;

  nd = st->dice[0] == st->dice[1] ? 4 : 2;
  for(i = 0; i < 4; i++)
    dice[i] = st->dice[i & 1];
  if(p->n > nd)
    return false;
  for(i = 0; i < p->n; i++) {
    if(ref_tc_king_at(&b, st->onroll) == 1)
      return false; /* TC-9a: nothing moves after the king is home */
    found = false;
    for(k = 0; k < nd && !found; k++) {
      int dir = p->to[i] < p->from[i] ? 1 : -1;
      if(!used[k] &&
         ref_tc_step(&b, st->onroll, p->type[i], p->from[i], dice[k], dir, &to) ==
           REF_TC_STEP_OK &&
         to == p->to[i]) {
        used[k] = true;
        found = true;
      }
    }
    if(!found)
      return false;
    ref_tc_step_apply(&b, st->onroll, p->type[i], p->from[i], p->to[i]);
  }
  if(!ref_tc_king_safe(&b, st->onroll))
    return false;
  *after = b;
  return true;
}

static int tc_apply(struct ref_state *s, const struct ref_move *m)
{
  struct tc_state *st = st_of(s);
  struct ref_tc_play p;
  struct ref_tc_board after;
  int mover = st->onroll, i;
  bool king_moved = false;

  if(st->phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  if(move_to_play(m, &p) != REF_OK || !play_fits(st, &p, &after))
    return REF_EILLEGAL;
  if(play_format(&st->b, mover, &p, st->last, sizeof(st->last)) < 0)
    st->last[0] = '\0';
  st->last_seat = (int8_t)mover;
  st->last_dice[0] = st->dice[0];
  st->last_dice[1] = st->dice[1];
  st->b = after;
  st->move_number++;
  for(i = 0; i < p.n; i++)
    if(p.type[i] == K)
      king_moved = true;
  if(ref_tc_king_at(&st->b, mover) == 1) {
    finish(st, mover, REF_END_KING_HOME); /* TC-9 */
    return REF_OK;
  }
  /* TC-8, TC-8a: plies without a king move, passes included. */
  st->idle = (int16_t)(king_moved ? 0 : st->idle + 1);
  if(st->idle >= TC_IDLE_MAX) {
    finish(st, -1, REF_END_STALEMATE);
    return REF_OK;
  }
  start_turn(st, !mover);
  return REF_OK;
}

static void tc_status(const struct ref_state *s, struct ref_status *out)
{
  const struct tc_state *st = cst_of(s);
  memset(out, 0, sizeof(*out));
  out->phase = (enum ref_phase)st->phase;
  out->turn = st->turn;
  out->need_faces = st->phase == REF_PHASE_ROLL ? 2 : 0;
  out->winner = st->phase == REF_PHASE_OVER ? st->winner : -1;
  out->end = st->phase == REF_PHASE_OVER ? (enum ref_end)st->end : REF_END_NONE;
  out->points = st->phase == REF_PHASE_OVER && st->winner >= 0 ? 1 : 0;
  out->move_number = st->move_number;
  out->cube = 0;
  out->cube_owner = -1;
  if(st->phase == REF_PHASE_MOVE) {
    out->dice[0] = st->dice[0];
    out->dice[1] = st->dice[1];
    out->ndice = 2;
  }
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
      if(st->phase != REF_PHASE_OVER || st->end != REF_END_KING_HOME || st->winner != side)
        return false;
    }
    else if(!ref_tc_king_safe(&b, side))
      return false;
  }
  if(st->move_number < 1 || st->idle < 0 || st->idle > TC_IDLE_MAX || st->onroll < 0 ||
     st->onroll > 1)
    return false;
  switch(st->phase) {
  case REF_PHASE_ROLL:
    return st->turn == st->onroll && !st->dice[0] && !st->dice[1] && st->idle < TC_IDLE_MAX &&
           (!st->opening || st->turn == 0);
  case REF_PHASE_MOVE:
    return st->turn == st->onroll && !st->opening && st->dice[0] >= 1 && st->dice[0] <= 6 &&
           st->dice[1] >= 1 && st->dice[1] <= 6 && st->idle < TC_IDLE_MAX;
  case REF_PHASE_OVER:
    if(st->turn != -1 || st->dice[0] || st->dice[1] || st->winner < -1 || st->winner > 1)
      return false;
    switch(st->end) {
    case REF_END_KING_HOME:
      return st->winner >= 0 && ref_tc_king_at(&b, st->winner) == 1;
    case REF_END_RESIGNATION:
      return st->winner >= 0;
    case REF_END_STALEMATE:
      return st->winner == -1 && st->idle >= TC_IDLE_MAX;
    case REF_END_AGREEMENT:
      return st->winner == -1;
    default:
      return false;
    }
  default:
    return false;
  }
}

/* ---- reading a play (section 7.6) -------------------------------------- */

/* One piece's route as written, q numbering; type -1 when not named. */
struct route {
  int type;
  int pt[6];
  int npt;
};

struct tinput {
  struct route r[4];
  int nr;
  int stars;
};

/* Piece words (section 1.3: Kt/Kn for the knight); -1 if none. */
static int piece_word(const char *w, size_t n)
{
  static const struct {
    const char *w;
    int type;
  } words[] = {{"k", K}, {"king", K}, {"r", R}, {"rook", R}, {"b", B}, {"bishop", B},
               {"n", N}, {"kt", N},   {"kn", N}, {"knight", N}, {"p", P}, {"pawn", P}};
  size_t i;
  for(i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if(strlen(words[i].w) == n && !strncmp(words[i].w, w, n))
      return words[i].type;
  return -1;
}

/*
 * Tolerant reading (sections 1.1-1.3, 7.6): "K1/3 P1/2", "R7/13*",
 * "Nbar/5", "bar/5", "r7-13", "R7/10/13", "P1/2(2)", "Kt19/22"; `*`, `x`,
 * `:` hit marks optional; a leading move number or roll and , ; . ! ? are
 * ignored. Points are the mover's own, 1-24, `bar` (or 0) as a source.
 */
static int read_input(const char *text, struct tinput *in, const char **reason)
{
  char low[256];
  const char *p, *w;
  struct route rs[8], *cur = NULL;
  int nr = 0, i, k, n, pt, type = -1;
  bool expect = false, pending = false;
  size_t wl;

  memset(in, 0, sizeof(*in));
  *reason = "unreadable";
  for(i = 0; text[i] && i < (int)sizeof(low) - 1; i++)
    low[i] = (char)tolower((unsigned char)text[i]);
  low[i] = '\0';
  if(text[i])
    return REF_EPARSE;
  p = low;
  while(isspace((unsigned char)*p))
    p++;
  for(k = 0; isdigit((unsigned char)p[k]); k++)
    ;
  if(k && p[k] == '.')
    p += k + 1;
  else if(k == 2 && p[k] == ':' && p[0] >= '1' && p[0] <= '6' && p[1] >= '1' && p[1] <= '6')
    p += 3;

  while(*p) {
    if(isspace((unsigned char)*p) || strchr(",;.!?", *p)) {
      if(pending)
        return REF_EPARSE;
      p++;
      continue;
    }
    if(*p == '*' || *p == ':' || (*p == 'x' && !isalpha((unsigned char)p[1]))) {
      if(!cur || expect || pending)
        return REF_EPARSE;
      in->stars++;
      p++;
      continue;
    }
    if(*p == '/' || *p == '-') {
      if(!cur || expect || pending)
        return REF_EPARSE;
      expect = true;
      p++;
      continue;
    }
    if(*p == '(') {
      if(!cur || expect || pending || cur->npt < 2)
        return REF_EPARSE;
      p++;
      for(n = 0; isdigit((unsigned char)*p) && n < 10; p++)
        n = n * 10 + (*p - '0');
      if(*p != ')' || n < 1 || n > 4 || nr + n - 1 > 8)
        return REF_EPARSE;
      p++;
      for(i = 1; i < n; i++)
        rs[nr++] = *cur;
      cur = &rs[nr - 1];
      continue;
    }
    pt = -1;
    if(isalpha((unsigned char)*p)) {
      for(w = p; isalpha((unsigned char)*p); p++)
        ;
      wl = (size_t)(p - w);
      if(wl >= 3 && !strncmp(p - 3, "bar", 3) && (wl == 3 || piece_word(w, wl - 3) >= 0)) {
        /* "bar", or a piece word run into it: "nbar" */
        if(wl > 3) {
          if(expect || pending)
            return REF_EPARSE;
          type = piece_word(w, wl - 3);
          pending = true;
        }
        pt = REF_BG_BAR;
      }
      else if(wl == 3 && !strncmp(w, "off", 3)) {
        *reason = "tc-off-track"; /* TC-10 */
        return REF_EILLEGAL;
      }
      else {
        if(expect || pending || piece_word(w, wl) < 0)
          return REF_EPARSE;
        type = piece_word(w, wl);
        pending = true;
        continue;
      }
    }
    else if(isdigit((unsigned char)*p)) {
      for(n = 0, k = 0; isdigit((unsigned char)*p) && k < 3; p++, k++)
        n = n * 10 + (*p - '0');
      if(k > 2 || n > 24)
        return REF_EPARSE;
      pt = n ? 25 - n : REF_BG_BAR;
    }
    else
      return REF_EPARSE;
    if(expect) {
      if(cur->npt == 6 || pt == REF_BG_BAR)
        return REF_EPARSE;
      cur->pt[cur->npt++] = pt;
      expect = false;
      continue;
    }
    if((cur && cur->npt < 2) || nr == 8)
      return REF_EPARSE;
    cur = &rs[nr++];
    cur->type = pending ? type : -1;
    cur->pt[0] = pt;
    cur->npt = 1;
    pending = false;
  }
  if(!cur || expect || pending || cur->npt < 2)
    return REF_EPARSE;
  for(i = 0; i < nr; i++)
    for(k = 1; k < rs[i].npt; k++)
      if(rs[i].pt[k] == rs[i].pt[k - 1])
        return REF_EPARSE;
  if(nr > 4) {
    *reason = "bg-wrong-dice";
    return REF_EILLEGAL;
  }
  memcpy(in->r, rs, sizeof(in->r));
  in->nr = nr;
  return REF_OK;
}

#define MAX_CAND 16

enum { WHY_WRONG_DICE = 20, WHY_NONE = 21 };

struct matcher {
  const struct tinput *in;
  const struct ref_tc_playlist *legal;
  int side;
  int dice[4];
  int ndice;
  bool used[4];
  int pos[4], next[4], type[4];
  int hits;
  long cand[MAX_CAND];
  int cand_hits[MAX_CAND];
  int ncand;
  int exec_dice, exec_pips; /* best complete, king-safe, but not legal execution */
  bool exec_alone;          /* a complete execution left the king alone (TC-4) */
  int why, why_depth, why_point, why_type;
};

static void matcher_fail(struct matcher *mt, int why, int depth, int point, int type)
{
  /* The most telling refusal: any rule over "dice do not fit", then the
   * deepest, then by rank. */
  static const int rank[] = {0, 1, 7, 6, 2, 3, 4, 5};
  int a = why == WHY_WRONG_DICE ? 0 : 1, b = mt->why == WHY_WRONG_DICE ? 0 : 1;
  if(mt->why != WHY_NONE) {
    if(a < b)
      return;
    if(a == b && depth < mt->why_depth)
      return;
    if(a == b && depth == mt->why_depth &&
       (why == WHY_WRONG_DICE || rank[why] <= rank[mt->why]))
      return;
  }
  mt->why = why;
  mt->why_depth = depth;
  mt->why_point = point;
  mt->why_type = type;
}

static void matcher_rec(struct matcher *mt, const struct ref_tc_board *b, int depth)
{
  struct ref_tc_board nb;
  int s, k, k2, t, t0, t1, to, target, from, why, dir, oldpos, oldnext, oldtype, pips, i;
  bool done = true, dup, hit;
  long idx;

  for(s = 0; s < mt->in->nr; s++)
    if(mt->next[s] < mt->in->r[s].npt)
      done = false;
  if(done) {
    idx = ref_tc_playlist_find(mt->legal, b);
    if(idx < 0) {
      if(!ref_tc_king_safe(b, mt->side)) {
        mt->exec_alone = true;
        return;
      }
      pips = 0;
      for(k = 0; k < mt->ndice; k++)
        pips += mt->used[k] ? mt->dice[k] : 0;
      if(ref_bg_mustplay_cmp(depth, pips, mt->exec_dice, mt->exec_pips) > 0) {
        mt->exec_dice = depth;
        mt->exec_pips = pips;
      }
      return;
    }
    for(i = 0; i < mt->ncand; i++)
      if(mt->cand[i] == idx)
        return;
    if(mt->ncand < MAX_CAND) {
      mt->cand[mt->ncand] = idx;
      mt->cand_hits[mt->ncand++] = mt->hits;
    }
    return;
  }
  if(depth == mt->ndice || ref_tc_king_at(b, mt->side) == 1) {
    matcher_fail(mt, WHY_WRONG_DICE, depth, mt->pos[0], -1);
    return;
  }
  for(s = 0; s < mt->in->nr; s++) {
    if(mt->next[s] >= mt->in->r[s].npt)
      continue;
    from = mt->pos[s];
    target = mt->in->r[s].pt[mt->next[s]];
    dir = target < from ? 1 : -1;
    t0 = mt->type[s] >= 0 ? mt->type[s] : 0;
    t1 = mt->type[s] >= 0 ? mt->type[s] : REF_TC_TYPES - 1;
    for(k = 0; k < mt->ndice; k++) {
      if(mt->used[k])
        continue;
      for(dup = false, k2 = 0; k2 < k; k2++)
        if(!mt->used[k2] && mt->dice[k2] == mt->dice[k])
          dup = true;
      if(dup)
        continue;
      for(t = t0; t <= t1; t++) {
        if(mt->type[s] < 0 && !b->n[mt->side][from][t]) {
          if(!b->bg.pt[mt->side][from] && t == t1)
            matcher_fail(mt, REF_TC_NO_PIECE, depth, from, -1);
          continue;
        }
        why = (int)ref_tc_step(b, mt->side, t, from, mt->dice[k], dir, &to);
        if(why != REF_TC_STEP_OK) {
          matcher_fail(mt, why, depth,
                       why == REF_TC_BLOCKED || why == REF_TC_PAWN_NO_BLOT
                         ? from - dir * mt->dice[k]
                         : from,
                       t);
          continue;
        }
        if(dir > 0 ? to < target : to > target) {
          matcher_fail(mt, WHY_WRONG_DICE, depth, from, t);
          continue;
        }
        nb = *b;
        hit = ref_tc_step_apply(&nb, mt->side, t, from, to);
        oldpos = mt->pos[s];
        oldnext = mt->next[s];
        oldtype = mt->type[s];
        mt->pos[s] = to;
        mt->type[s] = t;
        if(to == target)
          mt->next[s]++;
        mt->used[k] = true;
        mt->hits += hit;
        matcher_rec(mt, &nb, depth + 1);
        mt->hits -= hit;
        mt->used[k] = false;
        mt->pos[s] = oldpos;
        mt->next[s] = oldnext;
        mt->type[s] = oldtype;
      }
    }
  }
}

/* Up to TC_SUGGEST legal plays nearest to what was written: most written
 * pieces, sources and destinations among their steps first. */
static void suggest(const struct tc_state *st, const struct ref_tc_playlist *list,
                    const struct tinput *in, struct ref_err *err)
{
  size_t i, best;
  int s, k, score, top, *scores;

  if(!err || !list->n)
    return;
  scores = malloc(list->n * sizeof(*scores));
  if(!scores)
    return;
  for(i = 0; i < list->n; i++) {
    score = 0;
    for(s = 0; in && s < in->nr; s++)
      for(k = 0; k < list->v[i].n; k++) {
        if(list->v[i].from[k] == in->r[s].pt[0] &&
           (in->r[s].type < 0 || in->r[s].type == list->v[i].type[k]))
          score += 2;
        if(list->v[i].to[k] == in->r[s].pt[in->r[s].npt - 1])
          score++;
      }
    scores[i] = score;
  }
  while(err->nsuggest < TC_SUGGEST && err->nsuggest < (int)list->n) {
    top = -1;
    best = 0;
    for(i = 0; i < list->n; i++)
      if(scores[i] > top) {
        top = scores[i];
        best = i;
      }
    scores[best] = -2;
    if(play_format(&st->b, st->onroll, &list->v[best], err->suggest[err->nsuggest],
                   REF_NOTATION_MAX) >= 0)
      err->nsuggest++;
  }
  free(scores);
}

static bool is_pass(const char *text)
{
  char w[32];
  int n = 0;
  for(; *text && n < (int)sizeof(w) - 1; text++)
    if(!isspace((unsigned char)*text) && !strchr(".!?", *text))
      w[n++] = (char)tolower((unsigned char)*text);
  w[n] = '\0';
  return !*text && (!strcmp(w, "--") || !strcmp(w, "pass") || !strcmp(w, "nomove"));
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

static int tc_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  const struct tc_state *st = cst_of(s);
  struct ref_tc_playlist list = {0};
  struct tinput in;
  struct matcher *mt = NULL;
  const char *reason = NULL;
  char detail[96];
  int rc, i, pick, npick;

  if(st->phase != REF_PHASE_MOVE) {
    rc = REF_EPHASE;
    ref_err_set(err, rc, st->phase == REF_PHASE_OVER ? "game-over" : "bg-no-roll-yet", NULL);
    return rc;
  }
  rc = ref_tc_plays(&st->b, st->onroll, st->dice[0], st->dice[1], &list);
  if(rc)
    goto out;
  if(is_pass(text)) {
    if(list.n == 1 && list.v[0].n == 0) {
      play_to_move(&list.v[0], out);
      goto out;
    }
    rc = REF_EILLEGAL;
    ref_err_set(err, rc, "bg-must-move", NULL);
    suggest(st, &list, NULL, err);
    goto out;
  }
  rc = read_input(text, &in, &reason);
  if(rc) {
    ref_err_set(err, rc, reason, NULL);
    suggest(st, &list, NULL, err);
    goto out;
  }
  mt = calloc(1, sizeof(*mt));
  if(!mt) {
    rc = REF_ENOMEM;
    goto out;
  }
  mt->in = &in;
  mt->legal = &list;
  mt->side = st->onroll;
  mt->ndice = st->dice[0] == st->dice[1] ? 4 : 2;
  for(i = 0; i < 4; i++)
    mt->dice[i] = st->dice[i & 1];
  for(i = 0; i < in.nr; i++) {
    mt->pos[i] = in.r[i].pt[0];
    mt->next[i] = 1;
    mt->type[i] = in.r[i].type;
  }
  mt->exec_dice = mt->exec_pips = -1;
  mt->why = WHY_NONE;
  matcher_rec(mt, &st->b, 0);

  pick = -1;
  if(mt->ncand == 1)
    pick = 0;
  else if(mt->ncand > 1) {
    /* "R7/13" may pass a blot or not: the written hit marks decide. */
    for(npick = 0, i = 0; i < mt->ncand; i++)
      if(mt->cand_hits[i] == in.stars) {
        pick = i;
        npick++;
      }
    if(npick != 1) {
      rc = REF_EAMBIGUOUS;
      ref_err_set(err, rc, "ambiguous", NULL);
      if(err) {
        for(i = 0; i < mt->ncand && i < REF_SUGGEST_MAX; i++)
          play_format(&st->b, st->onroll, &list.v[mt->cand[i]], err->suggest[i],
                      REF_NOTATION_MAX);
        err->nsuggest = i;
        snprintf(err->detail, sizeof(err->detail), "%.40s or %.40s", err->suggest[0],
                 err->suggest[1]);
      }
      goto out;
    }
  }
  if(pick >= 0) {
    play_to_move(&list.v[mt->cand[pick]], out);
    goto out;
  }
  rc = REF_EILLEGAL;
  detail[0] = '\0';
  if(mt->exec_dice >= 0)
    /* Playable, but must-play (TC-7) wants more. */
    reason = mt->exec_dice < list.max_dice ? "bg-not-all-dice" : "bg-higher-die";
  else if(mt->exec_alone)
    reason = "tc-king-alone"; /* TC-4 */
  else {
    reason = why_reason(mt->why);
    if(mt->why == REF_TC_WRONG_DIE && mt->why_type >= 0)
      snprintf(detail, sizeof(detail), "%s", type_name[mt->why_type]);
    else if(mt->why != WHY_WRONG_DICE && mt->why != WHY_NONE) {
      if(mt->why_point == REF_BG_BAR)
        snprintf(detail, sizeof(detail), "bar");
      else if(mt->why_point >= 1 && mt->why_point <= 24)
        snprintf(detail, sizeof(detail), "%d", 25 - mt->why_point);
    }
  }
  ref_err_set(err, rc, reason, detail[0] ? detail : NULL);
  suggest(st, &list, &in, err);
out:
  free(mt);
  ref_tc_playlist_free(&list);
  return rc;
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
struct out {
  char *buf;
  size_t cap, len;
  bool full;
};

static void emit(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(struct out *o, const char *fmt, ...)
{
  va_list ap;
  int n;
  if(o->full)
    return;
  va_start(ap, fmt);
  n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
  va_end(ap);
  if(n < 0 || (size_t)n >= o->cap - o->len) {
    o->full = true;
    return;
  }
  o->len += (size_t)n;
}

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

static void half(struct out *o, const struct tc_state *st, int reader, bool top)
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
    emit(o, " |");
    for(i = 0; i < 12; i++) {
      char c = row < len[i] ? stacks[i][row] : (row == 0 ? '.' : ' ');
      if(i == 6)
        emit(o, " |  %c  |", row < len[12] ? stacks[12][row] : ' ');
      emit(o, "  %c ", c);
    }
    emit(o, " |\n");
  }
}

static void labels(struct out *o, bool top)
{
  int i;
  emit(o, "  ");
  for(i = 0; i < 12; i++) {
    if(i == 6)
      emit(o, " | bar |");
    emit(o, " %2d%s", top ? 13 + i : 12 - i, i == 11 ? "" : " ");
  }
  emit(o, "\n");
}

static int tc_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct tc_state *st = cst_of(s);
  struct out o = {buf, cap, 0, false};
  int reader = seat == 1 ? 1 : 0, side, q;
  char bar[32];

  if(!cap)
    return REF_EINVAL;
  buf[0] = '\0';
  emit(&o, " Tables Chess, %s's side: %s upper case, %s lower case.\n", seat_name[reader],
       seat_name[0], seat_name[1]);
  labels(&o, true);
  emit(&o, " +-------------------------+-----+-------------------------+\n");
  half(&o, st, reader, true);
  emit(&o, " |                         |     |                         |\n");
  half(&o, st, reader, false);
  emit(&o, " +-------------------------+-----+-------------------------+\n");
  labels(&o, false);
  for(side = 0; side < 2; side++) {
    stack_at(&st->b, side ? 25 : 0, bar);
    q = ref_tc_king_at(&st->b, side);
    emit(&o, " %s: king on %d of 24%s%s.\n", seat_name[side], q > 0 ? 25 - q : 0,
         bar[0] ? "; on the bar: " : "", bar);
  }
  if(st->idle > 0 && st->phase != REF_PHASE_OVER)
    emit(&o, " No king has moved for %d turn%s (a draw at %d, TC-8).\n", st->idle,
         st->idle == 1 ? "" : "s", TC_IDLE_MAX);
  if(st->last_seat >= 0)
    emit(&o, " Last: %s %d%d: %s\n", seat_name[st->last_seat], st->last_dice[0],
         st->last_dice[1], st->last);
  switch(st->phase) {
  case REF_PHASE_ROLL:
    if(st->opening)
      emit(&o, " Opening roll: one die each, the higher starts.\n");
    else
      emit(&o, " %s to roll.\n", seat_name[st->turn]);
    break;
  case REF_PHASE_MOVE:
    emit(&o, " %s to play %d%d.\n", seat_name[st->turn], st->dice[0], st->dice[1]);
    break;
  default:
    if(st->winner < 0)
      emit(&o, " Drawn (%s).\n", ref_end_name((enum ref_end)st->end));
    else
      emit(&o, " %s wins (%s).\n", seat_name[st->winner], ref_end_name((enum ref_end)st->end));
    break;
  }
  return o.full ? REF_EINVAL : REF_OK;
}

/* The board as data (issue 17): the pieces on their points as render
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
  if(st->last_seat >= 0)
    ref_diag_mark_play(d, st->last, st->last_seat, st->last_seat == 0);
  if(st->phase == REF_PHASE_MOVE) {
    d->dice[0] = st->dice[0];
    d->dice[1] = st->dice[1];
    d->ndice = 2;
  }
  return REF_OK;
}

static const struct ref_game_ops tc_ops = {
  tc_init,   /* init */
  tc_decode, /* decode */
  tc_encode, /* encode */
  tc_legal,  /* legal */
  tc_parse,  /* parse */
  tc_format, /* format */
  tc_apply,  /* apply */
  tc_roll,   /* roll */
  tc_act,    /* act */
  tc_status, /* status */
  tc_render, /* render */
  NULL,      /* perft: the generic one (dice fixed by the caller) */
  tc_ok,     /* ok */
  tc_diagram, /* diagram */
};

const struct ref_game_desc ref_game_tables_chess = {
  "tableschess",                  /* name */
  "Tables Chess",                 /* title */
  1,                              /* version */
  2,                              /* seats */
  {"White", "Black", NULL, NULL}, /* seat_names */
  REF_GAME_DICE | REF_GAME_DRAWS, /* flags: TC-11 no cube; TC-8 draws */
  sizeof(struct tc_state),        /* state_size */
  &tc_ops,                        /* ops */
};
