/*
 * backgammon.c: money-game backgammon with the doubling cube, and the
 * reusable backgammon helpers declared in backgammon_int.h.
 *
 * Rules: docs/rules-spec.md section 4 (BG-1 opening roll, BG-2 must-play,
 * BG-3 backgammon, BG-4 cube options off, BG-5 resignation levels, BG-6
 * partial moves in any legal order) and section 1 (conventions). Position
 * strings, notation and the set of legal plays follow GNU Backgammon 1.07
 * (Position ID, Match ID, FormatMove); tests/unit/rules/test_backgammon.c
 * checks them against gnubg's own answers.
 *
 * The file has two halves: first the ref_bg_* helpers (board, steps, the
 * play generator with must-play, notation, IDs, cube), then the game ops,
 * a thin state machine over them.
 */
#include "backgammon_int.h"
#include "diagram_int.h"
#include "rules.h"

#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Board                                                                   */
/* ---------------------------------------------------------------------- */

void ref_bg_board_start(struct ref_bg_board *b)
{
  int s;
  memset(b, 0, sizeof(*b));
  for(s = 0; s < 2; s++) {
    b->pt[s][24] = 2;
    b->pt[s][13] = 5;
    b->pt[s][8] = 3;
    b->pt[s][6] = 5;
  }
}

bool ref_bg_board_ok(const struct ref_bg_board *b)
{
  int s, p, n;
  for(s = 0; s < 2; s++) {
    n = 0;
    for(p = 0; p <= REF_BG_BAR; p++)
      n += b->pt[s][p];
    if(n != REF_BG_CHECKERS)
      return false;
  }
  for(p = 1; p <= 24; p++)
    if(b->pt[0][p] && b->pt[1][25 - p])
      return false;
  return true;
}

int ref_bg_pips(const struct ref_bg_board *b, int side)
{
  int p, n = 0;
  for(p = 1; p <= REF_BG_BAR; p++)
    n += p * b->pt[side][p];
  return n;
}

bool ref_bg_all_home(const struct ref_bg_board *b, int side)
{
  int p;
  for(p = 7; p <= REF_BG_BAR; p++)
    if(b->pt[side][p])
      return false;
  return true;
}

enum ref_bg_why ref_bg_step(const struct ref_bg_board *b, int side, int from, int die, int *to)
{
  const uint8_t *me = b->pt[side], *op = b->pt[!side];
  int t = from - die, p;

  if(from < 1 || from > REF_BG_BAR || !me[from])
    return REF_BG_NO_CHECKER;
  /* Section 4.2 "Bar": everything on the bar enters before anything else
   * moves. */
  if(from != REF_BG_BAR && me[REF_BG_BAR])
    return REF_BG_BAR_FIRST;
  if(t >= 1) {
    if(op[25 - t] >= 2)
      return REF_BG_BLOCKED;
    *to = t;
    return REF_BG_STEP_OK;
  }
  /* Bearing off (section 4.2): only with all 15 home; die n takes point n;
   * a larger die may take the highest checker only when none stands higher
   * than the point it leaves. */
  if(!ref_bg_all_home(b, side))
    return REF_BG_CANNOT_BEAR_OFF;
  if(t < 0)
    for(p = from + 1; p <= 6; p++)
      if(me[p])
        return REF_BG_CANNOT_BEAR_OFF;
  *to = REF_BG_OFF;
  return REF_BG_STEP_OK;
}

bool ref_bg_step_apply(struct ref_bg_board *b, int side, int from, int to)
{
  uint8_t *me = b->pt[side], *op = b->pt[!side];
  assert(me[from] > 0);
  me[from]--;
  me[to]++;
  if(to >= 1 && op[25 - to]) {
    /* A blot hit goes to its owner's bar (section 4.2). */
    assert(op[25 - to] == 1);
    op[25 - to] = 0;
    op[REF_BG_BAR]++;
    return true;
  }
  return false;
}

int ref_bg_play_apply(struct ref_bg_board *b, int side, const struct ref_bg_play *p)
{
  int i, hits = 0;
  for(i = 0; i < p->n; i++)
    hits += ref_bg_step_apply(b, side, p->from[i], p->to[i]);
  return hits;
}

int ref_bg_game_multiplier(const struct ref_bg_board *b, int winner)
{
  const uint8_t *lo = b->pt[!winner];
  int p;
  if(lo[REF_BG_OFF])
    return 1;
  /* BG-3: a backgammon needs a loser's checker on the bar or in the
   * winner's home board, i.e. the loser's points 19-24. */
  for(p = 19; p <= REF_BG_BAR; p++)
    if(lo[p])
      return 3;
  return 2;
}

/* ---------------------------------------------------------------------- */
/* Legal plays                                                             */
/* ---------------------------------------------------------------------- */

int ref_bg_mustplay_cmp(int dice_a, int pips_a, int dice_b, int pips_b)
{
  if(dice_a != dice_b)
    return dice_a < dice_b ? -1 : 1;
  if(pips_a != pips_b)
    return pips_a < pips_b ? -1 : 1;
  return 0;
}

static uint64_t board_hash(const struct ref_bg_board *b)
{
  uint64_t h = 0xcbf29ce484222325u;
  const uint8_t *p = (const uint8_t *)b->pt;
  size_t i;
  for(i = 0; i < sizeof(b->pt); i++) {
    h ^= p[i];
    h *= 0x100000001b3u;
  }
  return h;
}

long ref_bg_playlist_find(const struct ref_bg_playlist *list, const struct ref_bg_board *res)
{
  size_t mask, i;
  uint32_t k;
  if(!list->nslot)
    return -1;
  mask = list->nslot - 1;
  for(i = (size_t)board_hash(res) & mask;; i = (i + 1) & mask) {
    k = list->slot[i];
    if(!k)
      return -1;
    if(!memcmp(list->res[k - 1].pt, res->pt, sizeof(res->pt)))
      return (long)(k - 1);
  }
}

static void playlist_reset(struct ref_bg_playlist *list)
{
  list->n = 0;
  if(list->slot)
    memset(list->slot, 0, list->nslot * sizeof(*list->slot));
}

/* Room for one more entry, the hash table kept at most half full. */
static int playlist_reserve(struct ref_bg_playlist *list)
{
  size_t cap, i, mask, j;
  struct ref_bg_play *v;
  struct ref_bg_board *res;
  uint32_t *slot;

  if(list->n < list->cap)
    return REF_OK;
  cap = list->cap ? list->cap * 2 : 64;
  v = realloc(list->v, cap * sizeof(*v));
  if(!v)
    return REF_ENOMEM;
  list->v = v;
  res = realloc(list->res, cap * sizeof(*res));
  if(!res)
    return REF_ENOMEM;
  list->res = res;
  slot = calloc(cap * 2, sizeof(*slot));
  if(!slot)
    return REF_ENOMEM;
  free(list->slot);
  list->slot = slot;
  list->nslot = cap * 2;
  list->cap = cap;
  mask = list->nslot - 1;
  for(i = 0; i < list->n; i++) {
    for(j = (size_t)board_hash(&list->res[i]) & mask; slot[j]; j = (j + 1) & mask)
      ;
    slot[j] = (uint32_t)(i + 1);
  }
  return REF_OK;
}

void ref_bg_playlist_free(struct ref_bg_playlist *list)
{
  free(list->v);
  free(list->res);
  free(list->slot);
  memset(list, 0, sizeof(*list));
}

struct gen {
  struct ref_bg_playlist *out;
  int side;
  int dice[4];
  int ndice;
  bool doubles;
  struct ref_bg_play cur;
  int rc;
};

/* A complete sequence: keep it if must-play (BG-2) allows it and its
 * resulting position is new. */
static void gen_save(struct gen *g, const struct ref_bg_board *b, int used)
{
  struct ref_bg_playlist *list = g->out;
  int pips = 0, i, c;
  size_t mask, j;

  for(i = 0; i < used; i++)
    pips += g->dice[i];
  c = ref_bg_mustplay_cmp(used, pips, list->max_dice, list->max_pips);
  if(c < 0)
    return;
  if(c > 0) {
    playlist_reset(list);
    list->max_dice = used;
    list->max_pips = pips;
  }
  if(ref_bg_playlist_find(list, b) >= 0)
    return;
  if(playlist_reserve(list) != REF_OK) {
    g->rc = REF_ENOMEM;
    return;
  }
  g->cur.n = (uint8_t)used;
  list->v[list->n] = g->cur;
  list->res[list->n] = *b;
  mask = list->nslot - 1;
  for(j = (size_t)board_hash(b) & mask; list->slot[j]; j = (j + 1) & mask)
    ;
  list->slot[j] = (uint32_t)(list->n + 1);
  list->n++;
}

/*
 * Depth-first over the dice in order. With doubles the steps are taken
 * from non-increasing points: any doubles play can be reordered that way
 * (a checker moved on continues from a lower point, blocks do not change
 * and bear-off only gets easier), which avoids generating each play up to
 * 24 times.
 */
static void gen_rec(struct gen *g, const struct ref_bg_board *b, int depth, int maxfrom)
{
  struct ref_bg_board nb;
  int from, to;
  bool moved = false;

  if(g->rc)
    return;
  if(depth == g->ndice) {
    gen_save(g, b, depth);
    return;
  }
  for(from = maxfrom; from >= 1; from--) {
    if(!b->pt[g->side][from])
      continue;
    if(ref_bg_step(b, g->side, from, g->dice[depth], &to) != REF_BG_STEP_OK)
      continue;
    nb = *b;
    ref_bg_step_apply(&nb, g->side, from, to);
    g->cur.from[depth] = (uint8_t)from;
    g->cur.to[depth] = (uint8_t)to;
    moved = true;
    gen_rec(g, &nb, depth + 1, g->doubles ? from : REF_BG_BAR);
  }
  if(!moved)
    gen_save(g, b, depth);
}

int ref_bg_plays(const struct ref_bg_board *b, int side, int d1, int d2,
                 struct ref_bg_playlist *out)
{
  struct gen g;
  int rc;

  memset(&g, 0, sizeof(g));
  g.out = out;
  g.side = side;
  playlist_reset(out);
  out->max_dice = -1;
  out->max_pips = -1;
  if(d1 == d2) {
    g.doubles = true;
    g.ndice = 4;
    g.dice[0] = g.dice[1] = g.dice[2] = g.dice[3] = d1;
    gen_rec(&g, b, 0, REF_BG_BAR);
  }
  else {
    /* Both orders: the first die may be playable only after the second. */
    g.ndice = 2;
    g.dice[0] = d1 > d2 ? d1 : d2;
    g.dice[1] = d1 > d2 ? d2 : d1;
    gen_rec(&g, b, 0, REF_BG_BAR);
    g.dice[0] = d1 > d2 ? d2 : d1;
    g.dice[1] = d1 > d2 ? d1 : d2;
    gen_rec(&g, b, 0, REF_BG_BAR);
  }
  rc = g.rc;
  /* A roll that cannot be used at all still yields one play, the empty
   * one: gen_save stored it with used = 0. */
  assert(rc || out->n > 0);
  return rc;
}

/* ---------------------------------------------------------------------- */
/* Notation                                                                */
/* ---------------------------------------------------------------------- */

static char *put_point(char *p, int n)
{
  if(n == REF_BG_OFF)
    return p + sprintf(p, "off");
  if(n == REF_BG_BAR)
    return p + sprintf(p, "bar");
  return p + sprintf(p, "%d", n);
}

struct fmt_row {
  int pt[6]; /* pt[0] source, pt[1..nd-1] points hit on the way, pt[nd] destination */
  int nd;
  int count;
  bool live;
};

static int fmt_row_cmp(const void *a, const void *b)
{
  const struct fmt_row *x = a, *y = b;
  if(x->pt[0] != y->pt[0])
    return y->pt[0] - x->pt[0];
  return y->pt[1] - x->pt[1];
}

/*
 * gnubg's FormatMove (drawboard.c), which the players and the oracle know:
 * steps sorted by source then destination, highest first; a step that
 * starts where an earlier one ends continues it (the hop is kept, starred,
 * only when it hit); identical chains are counted as (n); a hit is starred
 * once per point. Hits are judged on the board before the play, as gnubg
 * does.
 */
int ref_bg_play_format(const struct ref_bg_board *b, int side, const struct ref_bg_play *p,
                       char *buf, size_t cap)
{
  struct fmt_row rows[4];
  char tmp[96], *o = tmp;
  const uint8_t *op = b->pt[!side];
  unsigned fl = 0;
  int n = p->n, i, j, k, m, len;

  if(n == 0) {
    if(cap < 3)
      return -1;
    memcpy(buf, "--", 3);
    return 2;
  }
  memset(rows, 0, sizeof(rows));
  for(i = 0; i < n; i++) {
    rows[i].pt[0] = p->from[i];
    rows[i].pt[1] = p->to[i];
    rows[i].nd = 1;
    rows[i].count = 1;
    rows[i].live = true;
  }
  qsort(rows, (size_t)n, sizeof(rows[0]), fmt_row_cmp);
  for(i = 0; i < n; i++)
    for(j = i; j < n; j++)
      if(rows[i].live && rows[j].live && rows[i].pt[rows[i].nd] == rows[j].pt[0]) {
        int d = rows[i].pt[rows[i].nd];
        if(op[25 - d])
          rows[i].pt[++rows[i].nd] = rows[j].pt[rows[j].nd];
        else
          rows[i].pt[rows[i].nd] = rows[j].pt[rows[j].nd];
        rows[j].live = false;
      }
  for(i = 0; i < n; i++) {
    if(!rows[i].live)
      continue;
    for(j = i + 1; j < n; j++) {
      if(!rows[j].live || rows[j].nd != rows[i].nd)
        continue;
      for(k = 0; k <= rows[i].nd && rows[i].pt[k] == rows[j].pt[k]; k++)
        ;
      if(k > rows[i].nd) {
        rows[i].count++;
        rows[j].live = false;
      }
    }
  }
  m = 0;
  for(i = 0; i < n; i++) {
    if(!rows[i].live)
      continue;
    if(m++)
      *o++ = ' ';
    o = put_point(o, rows[i].pt[0]);
    for(k = 1; k < rows[i].nd; k++) {
      *o++ = '/';
      o = put_point(o, rows[i].pt[k]);
      *o++ = '*';
      fl |= 1u << rows[i].pt[k];
    }
    *o++ = '/';
    k = rows[i].pt[rows[i].nd];
    o = put_point(o, k);
    if(k && op[25 - k] && !(fl & (1u << k))) {
      *o++ = '*';
      fl |= 1u << k;
    }
    if(rows[i].count > 1)
      o += sprintf(o, "(%d)", rows[i].count);
  }
  *o = '\0';
  len = (int)(o - tmp);
  if((size_t)len >= cap)
    return -1;
  memcpy(buf, tmp, (size_t)len + 1);
  return len;
}

/* ---------------------------------------------------------------------- */
/* Position ID and Match ID                                                */
/* ---------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of nbytes bytes without the '=' padding: 10 bytes -> 14 chars,
 * 9 bytes -> 12. */
static void b64_encode(const uint8_t *key, int nbytes, char *out)
{
  int i, bit, nbits = nbytes * 8, nchar = (nbits + 5) / 6, c, v;
  for(c = 0; c < nchar; c++) {
    v = 0;
    for(i = 0; i < 6; i++) {
      bit = c * 6 + i;
      /* Base64 reads each byte from its most significant bit. */
      v <<= 1;
      if(bit < nbits && (key[bit / 8] >> (7 - bit % 8)) & 1)
        v |= 1;
    }
    out[c] = b64[v];
  }
  out[nchar] = '\0';
}

/* Inverse of b64_encode; REF_EINVAL on a bad length, character, or a set
 * padding bit. */
static int b64_decode(const char *in, int nbytes, uint8_t *key)
{
  int nbits = nbytes * 8, nchar = (nbits + 5) / 6, c, i, bit;
  const char *q;
  memset(key, 0, (size_t)nbytes);
  if(strlen(in) != (size_t)nchar)
    return REF_EINVAL;
  for(c = 0; c < nchar; c++) {
    q = strchr(b64, in[c]);
    if(!q || !in[c])
      return REF_EINVAL;
    for(i = 0; i < 6; i++) {
      bit = c * 6 + i;
      if(!((q - b64) >> (5 - i) & 1))
        continue;
      if(bit >= nbits)
        return REF_EINVAL;
      key[bit / 8] |= (uint8_t)(1u << (7 - bit % 8));
    }
  }
  return REF_OK;
}

void ref_bg_position_id(const struct ref_bg_board *b, int onroll, char out[15])
{
  uint8_t key[10] = {0};
  int bit = 0, k, s, p, c;
  for(k = 0; k < 2; k++) {
    s = k == 0 ? !onroll : onroll;
    for(p = 1; p <= REF_BG_BAR; p++) {
      for(c = 0; c < b->pt[s][p]; c++, bit++)
        key[bit / 8] |= (uint8_t)(1u << (bit % 8));
      bit++;
    }
  }
  b64_encode(key, 10, out);
}

int ref_bg_position_decode(struct ref_bg_board *b, int onroll, const char *id)
{
  uint8_t key[10];
  struct ref_bg_board nb;
  int bit = 0, k, s, p, n, total;

  if(b64_decode(id, 10, key) != REF_OK)
    return REF_EINVAL;
  memset(&nb, 0, sizeof(nb));
  for(k = 0; k < 2; k++) {
    s = k == 0 ? !onroll : onroll;
    total = 0;
    for(p = 1; p <= REF_BG_BAR; p++) {
      for(n = 0; bit < 80 && (key[bit / 8] >> (bit % 8)) & 1; bit++)
        n++;
      if(bit >= 80)
        return REF_EINVAL;
      bit++;
      total += n;
      if(total > REF_BG_CHECKERS)
        return REF_EINVAL;
      nb.pt[s][p] = (uint8_t)n;
    }
    nb.pt[s][REF_BG_OFF] = (uint8_t)(REF_BG_CHECKERS - total);
  }
  for(; bit < 80; bit++)
    if((key[bit / 8] >> (bit % 8)) & 1)
      return REF_EINVAL;
  if(!ref_bg_board_ok(&nb))
    return REF_EINVAL;
  *b = nb;
  return REF_OK;
}

/* Match ID fields in bit order: width of each. */
/* Match ID fields in bit order: width of each. The 67th bit is not in
 * the manual; gnubg 1.x stores "not Jacoby" there (matchid.c). */
static const int mid_width[14] = {4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1};

void ref_bg_match_id(const struct ref_bg_match *m, char out[13])
{
  uint8_t key[9] = {0};
  int v[14], f, i, bit = 0;
  v[0] = m->cube_log2;
  v[1] = m->cube_owner < 0 ? 3 : m->cube_owner;
  v[2] = m->on_roll;
  v[3] = m->crawford;
  v[4] = m->state;
  v[5] = m->turn;
  v[6] = m->doubled;
  v[7] = m->resigned;
  v[8] = m->dice[0] > m->dice[1] ? m->dice[0] : m->dice[1];
  v[9] = m->dice[0] > m->dice[1] ? m->dice[1] : m->dice[0];
  v[10] = m->match_len;
  v[11] = m->score[0];
  v[12] = m->score[1];
  v[13] = !m->jacoby;
  for(f = 0; f < 14; f++)
    for(i = 0; i < mid_width[f]; i++, bit++)
      if((v[f] >> i) & 1)
        key[bit / 8] |= (uint8_t)(1u << (bit % 8));
  b64_encode(key, 9, out);
}

int ref_bg_match_decode(struct ref_bg_match *m, const char *id)
{
  uint8_t key[9];
  int v[14], f, i, bit = 0;
  if(b64_decode(id, 9, key) != REF_OK)
    return REF_EINVAL;
  for(f = 0; f < 14; f++) {
    v[f] = 0;
    for(i = 0; i < mid_width[f]; i++, bit++)
      if((key[bit / 8] >> (bit % 8)) & 1)
        v[f] |= 1 << i;
  }
  for(; bit < 72; bit++)
    if((key[bit / 8] >> (bit % 8)) & 1)
      return REF_EINVAL;
  if(v[1] == 2 || v[4] > 4 || v[8] > 6 || v[9] > 6 || (!v[8]) != (!v[9]))
    return REF_EINVAL;
  m->cube_log2 = v[0];
  m->cube_owner = v[1] == 3 ? -1 : v[1];
  m->on_roll = v[2];
  m->crawford = v[3];
  m->state = v[4];
  m->turn = v[5];
  m->doubled = v[6];
  m->resigned = v[7];
  m->dice[0] = v[8];
  m->dice[1] = v[9];
  m->match_len = v[10];
  m->score[0] = v[11];
  m->score[1] = v[12];
  m->jacoby = !v[13];
  return REF_OK;
}

/* ---------------------------------------------------------------------- */
/* Cube                                                                    */
/* ---------------------------------------------------------------------- */

void ref_bg_cube_init(struct ref_bg_cube *c)
{
  c->log2 = 0;
  c->owner = -1;
}

bool ref_bg_cube_may_double(const struct ref_bg_cube *c, int side)
{
  /* Section 4.3: centred or own cube, and no double beyond 64. */
  return (c->owner < 0 || c->owner == side) && c->log2 < REF_BG_CUBE_MAX_LOG2;
}

void ref_bg_cube_take(struct ref_bg_cube *c, int taker)
{
  assert(c->log2 < REF_BG_CUBE_MAX_LOG2);
  c->log2++;
  c->owner = (int8_t)taker;
}

int ref_bg_cube_value(const struct ref_bg_cube *c)
{
  return 1 << c->log2;
}

/* ---------------------------------------------------------------------- */
/* The game: money backgammon, seat 0 White, seat 1 Black                  */
/* ---------------------------------------------------------------------- */

/*
 * State. b.pt[seat] is in that seat's own numbering. `onroll` is the seat
 * whose turn of play it is (gnubg's dice owner); `turn` the seat that must
 * act now (the taker during REF_PHASE_CUBE_REPLY). `phase` is redundant
 * with the rest (ok() recomputes it): REF_PHASE_CUBE when the roller may
 * double, else REF_PHASE_ROLL.
 */
struct bg_state {
  struct ref_bg_board b;
  struct ref_bg_cube cube;
  uint8_t phase;     /* enum ref_phase */
  int8_t turn;       /* -1 when over */
  int8_t onroll;
  uint8_t opening;   /* BG-1: the one-die-each opening roll is pending */
  uint8_t dice[2];   /* phase MOVE: the roll to play, as rolled */
  int8_t winner;     /* phase OVER */
  uint8_t end;       /* enum ref_end */
  uint8_t resigned;  /* REF_END_RESIGNATION: level 1-3 */
  int16_t points;
  int16_t move_number; /* plays made so far + 1 */
  int8_t last_seat;    /* -1: no play yet */
  uint8_t last_dice[2];
  char last[40];       /* canonical notation of the last play */
};

#define BG_MOVE_TAG 0x42470000u /* "BG": marks a ref_move made here */
#define BG_SUGGEST 6

static const char *const seat_name[2] = {"White", "Black"};

static struct bg_state *st_of(struct ref_state *s)
{
  return (struct bg_state *)(void *)s;
}

static const struct bg_state *cst_of(const struct ref_state *s)
{
  return (const struct bg_state *)(const void *)s;
}

static void play_to_move(const struct ref_bg_play *p, struct ref_move *m)
{
  int i;
  memset(m, 0, sizeof(*m));
  m->w[0] = BG_MOVE_TAG | p->n;
  for(i = 0; i < p->n; i++)
    m->w[1 + i] = (uint32_t)p->from[i] | (uint32_t)p->to[i] << 8;
}

static int move_to_play(const struct ref_move *m, struct ref_bg_play *p)
{
  int i;
  if((m->w[0] & 0xffff0000u) != BG_MOVE_TAG || (m->w[0] & 0xffffu) > 4)
    return REF_EINVAL;
  memset(p, 0, sizeof(*p));
  p->n = (uint8_t)(m->w[0] & 0xffffu);
  for(i = 0; i < p->n; i++) {
    p->from[i] = (uint8_t)(m->w[1 + i] & 0xff);
    p->to[i] = (uint8_t)(m->w[1 + i] >> 8 & 0xff);
    if(p->from[i] < 1 || p->from[i] > REF_BG_BAR || p->to[i] >= p->from[i])
      return REF_EINVAL;
  }
  return REF_OK;
}

int ref_bg_move_to_play(const struct ref_move *m, struct ref_bg_play *p)
{
  return move_to_play(m, p);
}

/* The roller's turn starts: section 1.6, the cube question comes before
 * the roll and is asked only when a double is legal. */
static void start_turn(struct bg_state *st, int seat)
{
  st->onroll = (int8_t)seat;
  st->turn = (int8_t)seat;
  st->dice[0] = st->dice[1] = 0;
  st->phase = ref_bg_cube_may_double(&st->cube, seat) ? REF_PHASE_CUBE : REF_PHASE_ROLL;
}

static void finish(struct bg_state *st, int winner, enum ref_end end, int points)
{
  st->phase = REF_PHASE_OVER;
  st->turn = -1;
  st->winner = (int8_t)winner;
  st->end = (uint8_t)end;
  st->points = (int16_t)points;
  st->dice[0] = st->dice[1] = 0;
}

static int bg_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct bg_state *st = st_of(s);
  if(options && *options) {
    /* No options yet (BG-4: Jacoby, beavers, Crawford are off). */
    ref_err_set(err, REF_EINVAL, "bad-option", options);
    return REF_EINVAL;
  }
  memset(st, 0, sizeof(*st));
  ref_bg_board_start(&st->b);
  ref_bg_cube_init(&st->cube);
  st->opening = 1;
  st->phase = REF_PHASE_ROLL;
  st->turn = 0;
  st->onroll = 0;
  st->winner = -1;
  st->move_number = 1;
  st->last_seat = -1;
  return REF_OK;
}

/* ---- position strings -------------------------------------------------- */

/*
 * "PositionID:MatchID", money game (match length 0). The Position ID is
 * from the Match ID's dice owner's view. How our phases map on gnubg's
 * fields (where gnubg has no state of its own we chose):
 *   opening roll pending   game state 0 (no game yet), dice 0, cube 1 centred
 *   cube or roll question  state 1, on roll = turn = roller, dice 0
 *   double offered         state 1, double bit, turn = the taker
 *   dice rolled, to play   state 1, dice set
 *   over                   state 2 borne off / 3 resigned (resign level) /
 *                          4 double dropped; on roll = winner, turn = loser
 */
static int bg_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct bg_state *st = cst_of(s);
  struct ref_bg_match m;
  char pid[15], mid[13];
  int view;

  memset(&m, 0, sizeof(m));
  m.cube_log2 = st->cube.log2;
  m.cube_owner = st->cube.owner;
  if(st->phase == REF_PHASE_OVER) {
    view = st->winner;
    m.state = st->end == REF_END_BORNE_OFF ? 2 : st->end == REF_END_RESIGNATION ? 3 : 4;
    m.resigned = st->end == REF_END_RESIGNATION ? st->resigned : 0;
    m.on_roll = st->winner;
    m.turn = !st->winner;
  }
  else {
    view = st->onroll;
    m.state = st->opening ? 0 : 1;
    m.on_roll = st->onroll;
    m.turn = st->turn;
    m.doubled = st->phase == REF_PHASE_CUBE_REPLY;
    m.dice[0] = st->dice[0];
    m.dice[1] = st->dice[1];
  }
  ref_bg_position_id(&st->b, view, pid);
  ref_bg_match_id(&m, mid);
  if(cap < sizeof(pid) + sizeof(mid))
    return REF_EINVAL;
  snprintf(buf, cap, "%s:%s", pid, mid);
  return REF_OK;
}

static int bad_position(struct ref_err *err, const char *what)
{
  ref_err_set(err, REF_EINVAL, "bg-bad-position", what);
  return REF_EINVAL;
}

static int bg_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct bg_state nst;
  struct ref_bg_match m;
  char pid[15], mid[13];
  const char *colon;
  int off0, off1;

  if(!text)
    return bad_position(err, "empty");
  while(isspace((unsigned char)*text))
    text++;
  colon = strchr(text, ':');
  if(!colon || colon - text != 14)
    return bad_position(err, "Position ID");
  memcpy(pid, text, 14);
  pid[14] = '\0';
  snprintf(mid, sizeof(mid), "%s", colon + 1);
  if(strlen(colon + 1) != 12 && !(strlen(colon + 1) > 12 && isspace((unsigned char)colon[13])))
    return bad_position(err, "Match ID");
  if(ref_bg_match_decode(&m, mid) != REF_OK)
    return bad_position(err, "Match ID");
  /* A money game: no match length, no Crawford game. gnubg keeps its
   * session score in the score fields; one game ignores it. The Jacoby bit
   * is ignored too: the manual's IDs predate it (BG-4: Jacoby is off). */
  if(m.match_len || m.crawford)
    return bad_position(err, "money game only");
  if(m.cube_log2 > REF_BG_CUBE_MAX_LOG2 || (m.cube_owner < 0) != (m.cube_log2 == 0))
    return bad_position(err, "cube");

  memset(&nst, 0, sizeof(nst));
  nst.cube.log2 = (int8_t)m.cube_log2;
  nst.cube.owner = (int8_t)m.cube_owner;
  nst.winner = -1;
  nst.move_number = 1;
  nst.last_seat = -1;
  if(ref_bg_position_decode(&nst.b, m.on_roll, pid) != REF_OK)
    return bad_position(err, "Position ID");
  off0 = nst.b.pt[0][REF_BG_OFF];
  off1 = nst.b.pt[1][REF_BG_OFF];

  switch(m.state) {
  case 0:
    if(m.cube_log2 || m.doubled || m.resigned || m.dice[0] || m.on_roll || m.turn)
      return bad_position(err, "opening");
    nst.opening = 1;
    nst.phase = REF_PHASE_ROLL;
    break;
  case 1:
    if(m.resigned)
      return bad_position(err, "resignation");
    if(m.doubled) {
      if(m.dice[0] || m.turn == m.on_roll || !ref_bg_cube_may_double(&nst.cube, m.on_roll))
        return bad_position(err, "double");
      nst.onroll = (int8_t)m.on_roll;
      nst.turn = (int8_t)m.turn;
      nst.phase = REF_PHASE_CUBE_REPLY;
      break;
    }
    if(m.turn != m.on_roll)
      return bad_position(err, "turn");
    start_turn(&nst, m.on_roll);
    if(m.dice[0]) {
      nst.dice[0] = (uint8_t)m.dice[0];
      nst.dice[1] = (uint8_t)m.dice[1];
      nst.phase = REF_PHASE_MOVE;
    }
    break;
  default:
    if(m.doubled || m.dice[0] || m.turn == m.on_roll || (m.state == 3) != (m.resigned != 0))
      return bad_position(err, "game over");
    if(m.state == 2) {
      if(nst.b.pt[m.on_roll][REF_BG_OFF] != REF_BG_CHECKERS)
        return bad_position(err, "game over");
      finish(&nst, m.on_roll, REF_END_BORNE_OFF,
             ref_bg_game_multiplier(&nst.b, m.on_roll) * ref_bg_cube_value(&nst.cube));
    }
    else if(m.state == 3) {
      nst.resigned = (uint8_t)m.resigned;
      finish(&nst, m.on_roll, REF_END_RESIGNATION, m.resigned * ref_bg_cube_value(&nst.cube));
    }
    else
      finish(&nst, m.on_roll, REF_END_CUBE_DROPPED, ref_bg_cube_value(&nst.cube));
    break;
  }
  /* Whoever has borne off all 15 has won: only a finished game shows it. */
  if(m.state != 2 && (off0 == REF_BG_CHECKERS || off1 == REF_BG_CHECKERS))
    return bad_position(err, "all borne off");
  if(m.state == 2 && off0 == REF_BG_CHECKERS && off1 == REF_BG_CHECKERS)
    return bad_position(err, "all borne off");
  *st_of(s) = nst;
  return REF_OK;
}

/* ---- dice and cube ----------------------------------------------------- */

static int bg_roll(struct ref_state *s, const int *faces, int nfaces, struct ref_err *err)
{
  struct bg_state *st = st_of(s);

  if(st->phase != REF_PHASE_ROLL && st->phase != REF_PHASE_CUBE) {
    ref_err_set(err, REF_EPHASE, st->phase == REF_PHASE_OVER ? "game-over" : "bg-no-roll-now",
                NULL);
    return REF_EPHASE;
  }
  if(nfaces != 2 || faces[0] < 1 || faces[0] > 6 || faces[1] < 1 || faces[1] > 6) {
    ref_err_set(err, REF_EINVAL, "bg-bad-dice", NULL);
    return REF_EINVAL;
  }
  if(st->opening) {
    /* BG-1: one die each, faces[0] White's; a tie is rolled again; the
     * higher starts and plays both numbers. */
    if(faces[0] == faces[1])
      return REF_OK;
    st->opening = 0;
    st->onroll = st->turn = faces[0] > faces[1] ? 0 : 1;
  }
  /* A roll in REF_PHASE_CUBE means "no double" (section 1.6). */
  st->dice[0] = (uint8_t)faces[0];
  st->dice[1] = (uint8_t)faces[1];
  st->phase = REF_PHASE_MOVE;
  return REF_OK;
}

static int bg_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct bg_state *st = st_of(s);
  const char *why = NULL;

  if(seat < 0 || seat > 1) {
    ref_err_set(err, REF_EINVAL, "bad-seat", NULL);
    return REF_EINVAL;
  }
  if(st->phase == REF_PHASE_OVER) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  switch(action) {
  case REF_ACT_DOUBLE:
    /* Section 4.3: only at the start of one's own turn, before rolling,
     * with the cube centred or one's own, and never beyond 64. */
    if(st->phase == REF_PHASE_CUBE && seat == st->turn) {
      st->phase = REF_PHASE_CUBE_REPLY;
      st->turn = (int8_t)!seat;
      return REF_OK;
    }
    if(st->phase == REF_PHASE_CUBE_REPLY && seat == st->turn)
      why = "bg-take-or-drop"; /* BG-4: no beavers */
    else if(seat != st->turn && !st->opening)
      why = "not-your-turn";
    else if(st->phase != REF_PHASE_ROLL || st->opening)
      why = "bg-double-before-roll";
    else if(st->cube.log2 >= REF_BG_CUBE_MAX_LOG2)
      why = "bg-cube-max";
    else
      why = "bg-not-your-cube";
    break;
  case REF_ACT_TAKE:
  case REF_ACT_DROP:
    if(st->phase != REF_PHASE_CUBE_REPLY || seat != st->turn) {
      why = "bg-no-double";
      break;
    }
    if(action == REF_ACT_DROP) {
      /* The doubler wins the value before the double. */
      finish(st, st->onroll, REF_END_CUBE_DROPPED, ref_bg_cube_value(&st->cube));
      return REF_OK;
    }
    ref_bg_cube_take(&st->cube, seat);
    st->turn = st->onroll;
    st->phase = REF_PHASE_ROLL;
    return REF_OK;
  case REF_ACT_RESIGN:
    /* BG-5: the service has negotiated the level; points = level x cube. */
    if(arg < 1 || arg > 3) {
      ref_err_set(err, REF_EINVAL, "bg-resign-level", NULL);
      return REF_EINVAL;
    }
    st->resigned = (uint8_t)arg;
    finish(st, !seat, REF_END_RESIGNATION, arg * ref_bg_cube_value(&st->cube));
    return REF_OK;
  case REF_ACT_DRAW_AGREED:
  case REF_ACT_DRAW_CLAIM:
    ref_err_set(err, REF_EINVAL, "no-draws", "backgammon");
    return REF_EINVAL;
  default:
    ref_err_set(err, REF_EINVAL, "bad-option", NULL);
    return REF_EINVAL;
  }
  ref_err_set(err, REF_EPHASE, why, !strcmp(why, "not-your-turn") ? seat_name[st->turn] : NULL);
  return REF_EPHASE;
}

/* ---- moves ------------------------------------------------------------- */

static int bg_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct bg_state *st = cst_of(s);
  struct ref_bg_playlist list = {0};
  struct ref_move m;
  size_t i;
  int rc;

  if(st->phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  rc = ref_bg_plays(&st->b, st->onroll, st->dice[0], st->dice[1], &list);
  for(i = 0; !rc && i < list.n; i++) {
    play_to_move(&list.v[i], &m);
    rc = ref_movelist_push(out, &m);
  }
  ref_bg_playlist_free(&list);
  return rc;
}

static int bg_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  const struct bg_state *st = cst_of(s);
  struct ref_bg_play p;
  if(move_to_play(m, &p) != REF_OK)
    return REF_EINVAL;
  /* REF_NOTATION_COMPUTER is the same: gnubg's notation is what the
   * oracle prints too. */
  (void)style;
  if(ref_bg_play_format(&st->b, st->onroll, &p, buf, cap) < 0)
    return REF_EINVAL;
  return REF_OK;
}

/* Is every step of p a legal step with a die of the roll, each die used
 * once? (apply's cheap check; must-play is legal()'s business.) */
static bool steps_fit_dice(const struct bg_state *st, const struct ref_bg_play *p)
{
  struct ref_bg_board b = st->b;
  int dice[4], nd, i, k, to;
  bool used[4] = {false, false, false, false}, found;

  nd = st->dice[0] == st->dice[1] ? 4 : 2;
  for(i = 0; i < 4; i++)
    dice[i] = st->dice[i & 1];
  if(p->n > nd)
    return false;
  for(i = 0; i < p->n; i++) {
    found = false;
    for(k = 0; k < nd && !found; k++)
      if(!used[k] && ref_bg_step(&b, st->onroll, p->from[i], dice[k], &to) == REF_BG_STEP_OK &&
         to == p->to[i]) {
        used[k] = true;
        found = true;
      }
    if(!found)
      return false;
    ref_bg_step_apply(&b, st->onroll, p->from[i], p->to[i]);
  }
  return true;
}

static int bg_apply(struct ref_state *s, const struct ref_move *m)
{
  struct bg_state *st = st_of(s);
  struct ref_bg_play p;
  int mover = st->onroll;

  if(st->phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  if(move_to_play(m, &p) != REF_OK || !steps_fit_dice(st, &p))
    return REF_EILLEGAL;
  if(ref_bg_play_format(&st->b, mover, &p, st->last, sizeof(st->last)) < 0)
    st->last[0] = '\0';
  st->last_seat = (int8_t)mover;
  st->last_dice[0] = st->dice[0];
  st->last_dice[1] = st->dice[1];
  ref_bg_play_apply(&st->b, mover, &p);
  st->move_number++;
  if(st->b.pt[mover][REF_BG_OFF] == REF_BG_CHECKERS) {
    /* Section 4.3: single, gammon or backgammon, times the cube. */
    finish(st, mover, REF_END_BORNE_OFF,
           ref_bg_game_multiplier(&st->b, mover) * ref_bg_cube_value(&st->cube));
    return REF_OK;
  }
  start_turn(st, !mover);
  return REF_OK;
}

static void bg_status(const struct ref_state *s, struct ref_status *out)
{
  const struct bg_state *st = cst_of(s);
  memset(out, 0, sizeof(*out));
  out->phase = (enum ref_phase)st->phase;
  out->turn = st->turn;
  out->need_faces = st->phase == REF_PHASE_ROLL || st->phase == REF_PHASE_CUBE ? 2 : 0;
  out->winner = st->phase == REF_PHASE_OVER ? st->winner : -1;
  out->end = st->phase == REF_PHASE_OVER ? (enum ref_end)st->end : REF_END_NONE;
  out->points = st->phase == REF_PHASE_OVER ? st->points : 0;
  out->move_number = st->move_number;
  out->cube = ref_bg_cube_value(&st->cube);
  out->cube_owner = st->cube.owner;
  if(st->phase == REF_PHASE_MOVE) {
    out->dice[0] = st->dice[0];
    out->dice[1] = st->dice[1];
    out->ndice = 2;
  }
}

static bool bg_ok(const struct ref_state *s)
{
  const struct bg_state *st = cst_of(s);
  int off0 = st->b.pt[0][REF_BG_OFF], off1 = st->b.pt[1][REF_BG_OFF];

  if(!ref_bg_board_ok(&st->b))
    return false;
  if(st->cube.log2 < 0 || st->cube.log2 > REF_BG_CUBE_MAX_LOG2 || st->cube.owner < -1 ||
     st->cube.owner > 1 || (st->cube.owner < 0) != (st->cube.log2 == 0))
    return false;
  if(st->onroll < 0 || st->onroll > 1)
    return false;
  switch(st->phase) {
  case REF_PHASE_OVER:
    if(st->turn != -1 || st->winner < 0 || st->winner > 1)
      return false;
    if(st->end == REF_END_BORNE_OFF)
      return (st->winner ? off1 : off0) == REF_BG_CHECKERS &&
             st->points == ref_bg_game_multiplier(&st->b, st->winner) * ref_bg_cube_value(&st->cube);
    if(off0 == REF_BG_CHECKERS || off1 == REF_BG_CHECKERS)
      return false;
    if(st->end == REF_END_RESIGNATION)
      return st->resigned >= 1 && st->resigned <= 3 &&
             st->points == st->resigned * ref_bg_cube_value(&st->cube);
    return st->end == REF_END_CUBE_DROPPED && st->points == ref_bg_cube_value(&st->cube);
  case REF_PHASE_MOVE:
    if(st->dice[0] < 1 || st->dice[0] > 6 || st->dice[1] < 1 || st->dice[1] > 6 ||
       st->turn != st->onroll || st->opening)
      return false;
    break;
  case REF_PHASE_CUBE_REPLY:
    if(st->turn != !st->onroll || st->dice[0] || st->opening ||
       !ref_bg_cube_may_double(&st->cube, st->onroll))
      return false;
    break;
  case REF_PHASE_CUBE:
  case REF_PHASE_ROLL:
    if(st->turn != st->onroll || st->dice[0] || st->dice[1])
      return false;
    if(st->opening)
      return st->phase == REF_PHASE_ROLL && st->cube.log2 == 0;
    if((st->phase == REF_PHASE_CUBE) != ref_bg_cube_may_double(&st->cube, st->onroll))
      return false;
    break;
  default:
    return false;
  }
  return off0 < REF_BG_CHECKERS && off1 < REF_BG_CHECKERS;
}

/* ---- reading a play (section 4.4, BG-6) -------------------------------- */

/* One checker's route as written: waypoints in the mover's numbering,
 * pt[0] the start, pt[npt-1] the end; a chained "24/18/13" fixes 18. */
struct seg {
  int pt[6];
  int npt;
};

struct input {
  struct seg seg[4];
  int nseg;
  int stars; /* hit marks written */
};

enum {
  WHY_WRONG_DICE = 5, /* beyond enum ref_bg_why: the steps do not fit the roll */
  WHY_NONE = 6
};

/* Reads "bar", "b", "off", "o" or a number 0-25. */
static bool read_point(const char **pp, int *out)
{
  const char *p = *pp;
  int n = 0, k = 0;

  if(!strncmp(p, "bar", 3) || (p[0] == 'b' && !isalpha((unsigned char)p[1]))) {
    *out = REF_BG_BAR;
    *pp = p + (p[1] == 'a' ? 3 : 1);
    return true;
  }
  if(!strncmp(p, "off", 3) || (p[0] == 'o' && !isalpha((unsigned char)p[1]))) {
    *out = REF_BG_OFF;
    *pp = p + (p[1] == 'f' ? 3 : 1);
    return true;
  }
  while(isdigit((unsigned char)p[k]) && k < 3)
    n = n * 10 + (p[k++] - '0');
  if(!k || isdigit((unsigned char)p[k]) || n > 25)
    return false;
  *out = n;
  *pp = p + k;
  return true;
}

/*
 * Tolerant reading (section 1.1-1.2, 4.4): "13/7 8/7", "bar/22", "b/22",
 * "25/22", "6/off", "6/0", "-" for "/", "24/18*\/13", "6/4(2)"; hit marks
 * `*`, `x`, `:` are optional; a leading move number ("12.") or roll
 * ("31:") and the glyphs ! ? , ; . are ignored. Returns REF_OK, or
 * REF_EPARSE for text that is not a list of moves, or REF_EILLEGAL with a
 * reason for readable nonsense (a backward move, more moves than dice).
 */
static int read_input(const char *text, struct input *in, const char **reason)
{
  char low[256];
  const char *p;
  struct seg segs[8], *cur = NULL;
  int nseg = 0, i, k, n, pt;
  bool expect = false;

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
  /* "12." move number, "31:" roll */
  for(k = 0; isdigit((unsigned char)p[k]); k++)
    ;
  if(k && p[k] == '.')
    p += k + 1;
  else if(k == 2 && p[k] == ':' && p[0] >= '1' && p[0] <= '6' && p[1] >= '1' && p[1] <= '6')
    p += 3;

  while(*p) {
    if(isspace((unsigned char)*p) || strchr(",;.!?", *p)) {
      p++;
      continue;
    }
    if(*p == '*' || *p == 'x' || *p == ':') {
      if(!cur || expect)
        return REF_EPARSE;
      in->stars++;
      p++;
      continue;
    }
    if(*p == '/' || *p == '-') {
      if(!cur || expect)
        return REF_EPARSE;
      expect = true;
      p++;
      continue;
    }
    if(*p == '(') {
      if(!cur || expect || cur->npt < 2)
        return REF_EPARSE;
      p++;
      for(n = 0; isdigit((unsigned char)*p) && n < 10; p++)
        n = n * 10 + (*p - '0');
      if(*p != ')' || n < 1 || n > 4 || nseg + n - 1 > 8)
        return REF_EPARSE;
      p++;
      for(i = 1; i < n; i++)
        segs[nseg++] = *cur;
      cur = &segs[nseg - 1];
      continue;
    }
    if(!read_point(&p, &pt))
      return REF_EPARSE;
    if(expect) {
      if(cur->npt == 6)
        return REF_EPARSE;
      cur->pt[cur->npt++] = pt;
      expect = false;
      continue;
    }
    if(cur && cur->npt < 2)
      return REF_EPARSE;
    if(nseg == 8)
      return REF_EPARSE;
    cur = &segs[nseg++];
    cur->pt[0] = pt;
    cur->npt = 1;
  }
  if(!cur || expect || cur->npt < 2)
    return REF_EPARSE;
  for(i = 0; i < nseg; i++) {
    if(segs[i].pt[0] == REF_BG_OFF)
      return REF_EPARSE;
    for(k = 1; k < segs[i].npt; k++) {
      if(segs[i].pt[k] == REF_BG_BAR || (segs[i].pt[k] == REF_BG_OFF && k < segs[i].npt - 1))
        return REF_EPARSE;
      if(segs[i].pt[k] >= segs[i].pt[k - 1]) {
        *reason = "bg-wrong-direction";
        return REF_EILLEGAL;
      }
    }
  }
  if(nseg > 4) {
    *reason = "bg-wrong-dice";
    return REF_EILLEGAL;
  }
  memcpy(in->seg, segs, sizeof(in->seg));
  in->nseg = nseg;
  return REF_OK;
}

#define MAX_CAND 16

/* Search state: every ordering of the written routes and every assignment
 * of dice (BG-6), each step checked by ref_bg_step. */
struct matcher {
  const struct input *in;
  const struct ref_bg_playlist *legal;
  int side;
  int dice[4];
  int ndice;
  bool used[4];
  int pos[4];  /* current point of each route's checker */
  int next[4]; /* index of its next waypoint */
  struct ref_bg_play play;
  int hits;
  long cand[MAX_CAND]; /* legal plays reached (index in legal) */
  int cand_hits[MAX_CAND];
  int ncand;
  int exec_dice, exec_pips; /* best complete but illegal execution */
  int why, why_depth, why_point;
};

static void matcher_fail(struct matcher *mt, int why, int depth, int point)
{
  /* Report the most telling refusal: any rule over "dice do not fit",
   * then the deepest, then bar > blocked > bear-off > no checker. */
  static const int rank[] = {0, 1, 4, 3, 2, 0, -1};
  int a = why == WHY_WRONG_DICE ? 0 : 1, b = mt->why == WHY_WRONG_DICE ? 0 : 1;
  if(mt->why != WHY_NONE) {
    if(a != b && a < b)
      return;
    if(a == b && depth < mt->why_depth)
      return;
    if(a == b && depth == mt->why_depth && rank[why] <= rank[mt->why])
      return;
  }
  mt->why = why;
  mt->why_depth = depth;
  mt->why_point = point;
}

static void matcher_rec(struct matcher *mt, const struct ref_bg_board *b, int depth)
{
  struct ref_bg_board nb;
  int s, k, k2, to, target, from, why, oldpos, oldnext, pips, i;
  bool done = true, dup, hit;
  long idx;

  for(s = 0; s < mt->in->nseg; s++)
    if(mt->next[s] < mt->in->seg[s].npt)
      done = false;
  if(done) {
    /* Compared by resulting position (section 4.4). */
    idx = ref_bg_playlist_find(mt->legal, b);
    if(idx < 0) {
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
  if(depth == mt->ndice) {
    matcher_fail(mt, WHY_WRONG_DICE, depth, mt->pos[0]);
    return;
  }
  for(s = 0; s < mt->in->nseg; s++) {
    if(mt->next[s] >= mt->in->seg[s].npt)
      continue;
    for(k = 0; k < mt->ndice; k++) {
      if(mt->used[k])
        continue;
      for(dup = false, k2 = 0; k2 < k; k2++)
        if(!mt->used[k2] && mt->dice[k2] == mt->dice[k])
          dup = true;
      if(dup)
        continue;
      from = mt->pos[s];
      why = (int)ref_bg_step(b, mt->side, from, mt->dice[k], &to);
      if(why != REF_BG_STEP_OK) {
        matcher_fail(mt, why, depth, from);
        continue;
      }
      target = mt->in->seg[s].pt[mt->next[s]];
      if((to == REF_BG_OFF && target != REF_BG_OFF) || (to != REF_BG_OFF && to < target)) {
        matcher_fail(mt, WHY_WRONG_DICE, depth, from);
        continue;
      }
      nb = *b;
      hit = ref_bg_step_apply(&nb, mt->side, from, to);
      oldpos = mt->pos[s];
      oldnext = mt->next[s];
      mt->pos[s] = to;
      if(to == target)
        mt->next[s]++;
      mt->used[k] = true;
      mt->hits += hit;
      mt->play.from[depth] = (uint8_t)from;
      mt->play.to[depth] = (uint8_t)to;
      matcher_rec(mt, &nb, depth + 1);
      mt->hits -= hit;
      mt->used[k] = false;
      mt->pos[s] = oldpos;
      mt->next[s] = oldnext;
    }
  }
}

/* Do the written routes fit the roll at all, board aside? Each route's
 * waypoints must be hit exactly by some of the dice (off may be overshot).
 * When not, "your dice do not fit" is the refusal, whatever else is in
 * the way. */
static bool dice_fit(const struct input *in, int *pos, int *next, const int *dice, bool *used,
                     int ndice)
{
  int s, k, target, np, oldpos, oldnext;
  bool done = true, ok = false;

  for(s = 0; s < in->nseg; s++)
    if(next[s] < in->seg[s].npt)
      done = false;
  if(done)
    return true;
  for(s = 0; s < in->nseg && !ok; s++) {
    if(next[s] >= in->seg[s].npt)
      continue;
    for(k = 0; k < ndice && !ok; k++) {
      if(used[k])
        continue;
      target = in->seg[s].pt[next[s]];
      np = pos[s] - dice[k];
      if(np < target && target != REF_BG_OFF)
        continue;
      oldpos = pos[s];
      oldnext = next[s];
      pos[s] = np < 0 ? 0 : np;
      if(pos[s] == target)
        next[s]++;
      used[k] = true;
      ok = dice_fit(in, pos, next, dice, used, ndice);
      used[k] = false;
      pos[s] = oldpos;
      next[s] = oldnext;
    }
  }
  return ok;
}

static void put_detail_point(char *buf, size_t cap, int p)
{
  if(p == REF_BG_BAR)
    snprintf(buf, cap, "bar");
  else
    snprintf(buf, cap, "%d", p);
}

/* Up to BG_SUGGEST legal plays nearest to what was written: most written
 * start and end points among the play's steps first. */
static void suggest(const struct bg_state *st, const struct ref_bg_playlist *list,
                    const struct input *in, struct ref_err *err)
{
  size_t i, best;
  int s, k, score, top, *scores = NULL;
  bool taken[4];

  if(!err || !list->n)
    return;
  scores = malloc(list->n * sizeof(*scores));
  if(!scores)
    return;
  for(i = 0; i < list->n; i++) {
    score = 0;
    for(k = 0; k < 4; k++)
      taken[k] = false;
    for(s = 0; in && s < in->nseg; s++)
      for(k = 0; k < list->v[i].n; k++)
        if(!taken[k] && list->v[i].from[k] == in->seg[s].pt[0]) {
          taken[k] = true;
          score++;
          break;
        }
    for(k = 0; k < 4; k++)
      taken[k] = false;
    for(s = 0; in && s < in->nseg; s++)
      for(k = 0; k < list->v[i].n; k++)
        if(!taken[k] && list->v[i].to[k] == in->seg[s].pt[in->seg[s].npt - 1]) {
          taken[k] = true;
          score++;
          break;
        }
    scores[i] = score;
  }
  while(err->nsuggest < BG_SUGGEST && err->nsuggest < (int)list->n) {
    top = -1;
    best = 0;
    for(i = 0; i < list->n; i++)
      if(scores[i] > top) {
        top = scores[i];
        best = i;
      }
    scores[best] = -2;
    ref_bg_play_format(&st->b, st->onroll, &list->v[best], err->suggest[err->nsuggest],
                       REF_NOTATION_MAX);
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

static int bg_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  const struct bg_state *st = cst_of(s);
  struct ref_bg_playlist list = {0};
  struct input in;
  struct matcher *mt = NULL;
  const char *reason = NULL;
  char detail[96];
  int rc, i, pick, npick;

  if(st->phase != REF_PHASE_MOVE) {
    rc = REF_EPHASE;
    ref_err_set(err, rc, st->phase == REF_PHASE_OVER ? "game-over" : "bg-no-roll-yet", NULL);
    goto out;
  }
  rc = ref_bg_plays(&st->b, st->onroll, st->dice[0], st->dice[1], &list);
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
  for(i = 0; i < in.nseg; i++) {
    mt->pos[i] = in.seg[i].pt[0];
    mt->next[i] = 1;
  }
  mt->exec_dice = mt->exec_pips = -1;
  mt->why = WHY_NONE;
  matcher_rec(mt, &st->b, 0);

  pick = -1;
  if(mt->ncand == 1)
    pick = 0;
  else if(mt->ncand > 1) {
    /* "24/13" may pass a blot or not: the written hit marks decide. */
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
          ref_bg_play_format(&st->b, st->onroll, &list.v[mt->cand[i]], err->suggest[i],
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
  if(mt->exec_dice >= 0) {
    /* It can be played, but must-play (BG-2) wants more. */
    reason = mt->exec_dice < list.max_dice ? "bg-not-all-dice" : "bg-higher-die";
  }
  else {
    for(i = 0; i < in.nseg; i++) {
      mt->pos[i] = in.seg[i].pt[0];
      mt->next[i] = 1;
    }
    if(!dice_fit(&in, mt->pos, mt->next, mt->dice, mt->used, mt->ndice))
      mt->why = WHY_WRONG_DICE;
    switch(mt->why) {
    case REF_BG_NO_CHECKER:
      reason = "bg-no-checker";
      break;
    case REF_BG_BAR_FIRST:
      reason = "bg-bar-first";
      break;
    case REF_BG_BLOCKED:
      reason = "bg-blocked";
      break;
    case REF_BG_CANNOT_BEAR_OFF:
      reason = "bg-cannot-bear-off";
      break;
    default:
      reason = "bg-wrong-dice";
      break;
    }
    put_detail_point(detail, sizeof(detail), mt->why_point);
  }
  ref_err_set(err, rc, reason, detail[0] ? detail : NULL);
  suggest(st, &list, &in, err);
out:
  free(mt);
  ref_bg_playlist_free(&list);
  return rc;
}

/* ---- the board diagram ------------------------------------------------- */

/*
 * Drawn as gnubg draws its ASCII board, from the reader's side: the
 * reader's home board bottom right, their points numbered 1-12 along the
 * bottom (right to left) and 13-24 along the top, so they move
 * counterclockwise; the opponent's home is top right. (We chose this over
 * the ChromaGames picture of section 4.1, which puts White's home top
 * left, because every backgammon program and most players read this one.)
 * White's checkers are O and Black's X, as gnubg's players 0 and 1. A
 * column shows five checkers; a taller one shows its count in the fifth
 * row. The bar column holds the opponent's bar checkers above, the
 * reader's below; borne-off counts, pips, cube and dice are in the margin.
 */
#define BG_ROW_MAX 80

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

/* Checkers on the reader's point p: count and glyph. */
static int point_at(const struct ref_bg_board *b, int reader, int p, char *glyph)
{
  static const char glyphs[2] = {'O', 'X'};
  if(b->pt[reader][p]) {
    *glyph = glyphs[reader];
    return b->pt[reader][p];
  }
  *glyph = glyphs[!reader];
  return b->pt[!reader][25 - p];
}

/* One 3-column cell: row 0 is the edge of the board. */
static void cell(char out[4], int count, char glyph, int row)
{
  if(count > 5 && row == 4)
    snprintf(out, 4, count > 9 ? "%2d " : " %d ", count);
  else if(count > row)
    snprintf(out, 4, " %c ", glyph);
  else
    snprintf(out, 4, "   ");
}

static void half_row(struct out *o, const struct bg_state *st, int reader, bool top, int row)
{
  char c[4], g, line[BG_ROW_MAX];
  int i, p, n, len = 0;
  int barside = top ? !reader : reader;

  len += snprintf(line + len, sizeof(line) - (size_t)len, " |");
  for(i = 0; i < 12; i++) {
    if(i == 6) {
      cell(c, st->b.pt[barside][REF_BG_BAR], barside ? 'X' : 'O', row);
      len += snprintf(line + len, sizeof(line) - (size_t)len, "|%s|", c);
    }
    p = top ? 13 + i : 12 - i;
    n = point_at(&st->b, reader, p, &g);
    cell(c, n, g, row);
    len += snprintf(line + len, sizeof(line) - (size_t)len, "%s", c);
  }
  snprintf(line + len, sizeof(line) - (size_t)len, "|");
  emit(o, "%s", line);
}

static void margin(struct out *o, const struct bg_state *st, int side, int line, int reader)
{
  switch(line) {
  case 0:
    emit(o, "  %c %s%s", side ? 'X' : 'O', seat_name[side], side == reader ? " (you)" : "");
    break;
  case 1:
    emit(o, "  pips %d", ref_bg_pips(&st->b, side));
    break;
  case 2:
    emit(o, "  off %d", st->b.pt[side][REF_BG_OFF]);
    break;
  default:
    break;
  }
}

static int bg_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct bg_state *st = cst_of(s);
  struct out o = {buf, cap, 0, false};
  char id[48];
  int reader = seat == 1 ? 1 : 0, row, i, p;

  if(!cap)
    return REF_EINVAL;
  buf[0] = '\0';
  bg_encode(s, id, sizeof(id));
  id[14] = '\0';
  emit(&o, " Position ID: %s\n Match ID   : %s\n", id, id + 15);
  emit(&o, " +");
  for(p = 13; p <= 24; p++)
    emit(&o, p == 19 ? "-----%d-" : "%d-", p);
  emit(&o, "+\n");
  for(row = 0; row < 5; row++) {
    half_row(&o, st, reader, true, row);
    margin(&o, st, !reader, row, reader);
    emit(&o, "\n");
  }
  emit(&o, " |                  |BAR|                  |");
  if(st->cube.owner < 0)
    emit(&o, "  cube %d, centred\n", ref_bg_cube_value(&st->cube));
  else
    emit(&o, "  cube %d, %s's\n", ref_bg_cube_value(&st->cube), seat_name[st->cube.owner]);
  for(row = 4; row >= 0; row--) {
    half_row(&o, st, reader, false, row);
    margin(&o, st, reader, 4 - row - 2, reader);
    emit(&o, "\n");
  }
  emit(&o, " +");
  for(i = 0; i < 12; i++) {
    p = 12 - i;
    if(i == 6)
      emit(&o, "-----");
    emit(&o, p > 9 ? "%d-" : "-%d-", p);
  }
  emit(&o, "+\n");
  if(st->last_seat >= 0)
    emit(&o, " Last: %s %d%d: %s\n", seat_name[st->last_seat], st->last_dice[0],
         st->last_dice[1], st->last);
  switch(st->phase) {
  case REF_PHASE_ROLL:
    if(st->opening)
      emit(&o, " Opening roll: one die each, the higher plays both.\n");
    else
      emit(&o, " %s to roll.\n", seat_name[st->turn]);
    break;
  case REF_PHASE_CUBE:
    emit(&o, " %s to double or roll.\n", seat_name[st->turn]);
    break;
  case REF_PHASE_CUBE_REPLY:
    emit(&o, " %s doubles to %d: %s to take or drop.\n", seat_name[st->onroll],
         2 * ref_bg_cube_value(&st->cube), seat_name[st->turn]);
    break;
  case REF_PHASE_MOVE:
    emit(&o, " %s to play %d%d.\n", seat_name[st->turn], st->dice[0], st->dice[1]);
    break;
  default:
    emit(&o, " %s wins %d point%s (%s).\n", seat_name[st->winner], st->points,
         st->points == 1 ? "" : "s", ref_end_name((enum ref_end)st->end));
    break;
  }
  return o.full ? REF_EINVAL : REF_OK;
}

/* The board as data (issue 17): checkers on points, bar, off, the cube,
 * the dice to play, the last play marked; Black (seat 1) reads from its
 * side. */
static int bg_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct bg_state *st = cst_of(s);
  ref_diag_points(d, seat == 1);
  ref_diag_bg_board(d, &st->b);
  if(st->last_seat >= 0)
    ref_diag_mark_play(d, st->last, st->last_seat, st->last_seat == 1);
  d->cube = ref_bg_cube_value(&st->cube);
  d->cube_owner = st->cube.owner;
  if(st->phase == REF_PHASE_MOVE) {
    d->dice[0] = st->dice[0];
    d->dice[1] = st->dice[1];
    d->ndice = 2;
  }
  return REF_OK;
}

static const struct ref_game_ops bg_ops = {
  bg_init,   /* init */
  bg_decode, /* decode */
  bg_encode, /* encode */
  bg_legal,  /* legal */
  bg_parse,  /* parse */
  bg_format, /* format */
  bg_apply,  /* apply */
  bg_roll,   /* roll */
  bg_act,    /* act */
  bg_status, /* status */
  bg_render, /* render */
  NULL,      /* perft: the generic one (dice fixed by the caller) */
  bg_ok,     /* ok */
  bg_diagram, /* diagram */
};

const struct ref_game_desc ref_game_backgammon = {
  "backgammon",                  /* name */
  "Backgammon",                  /* title */
  1,                             /* version */
  2,                             /* seats */
  {"White", "Black", NULL, NULL}, /* seat_names */
  REF_GAME_DICE | REF_GAME_CUBE, /* flags */
  sizeof(struct bg_state),       /* state_size */
  &bg_ops,                       /* ops */
};
