/*
 * backgammon_board.c: the reusable part of backgammon declared in
 * backgammon_int.h: the board and one checker step, whole plays with the
 * must-play rule (BG-2), gnubg's notation of a play, the doubling cube
 * and the turn frame of the three games that stand on this board
 * (backgammon.c, tables_chess.c, backgammon_chess.c).
 *
 * Rules: docs/rules-spec.md section 4. Notation and the set of legal
 * plays follow GNU Backgammon 1.07 (FormatMove); tests/unit/rules/
 * test_backgammon.c checks them against gnubg's own answers.
 */
#include "backgammon_int.h"
#include "game_text_int.h"
#include "rules.h"

#include <assert.h>
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
  /* A gammon: the loser has borne off none [seed 004]; so must the loser
   * of a backgammon (BG-7, the standard rule: the seed's sentence does
   * not say it). */
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

int ref_bg_mustplay_rank(int *max_dice, int *max_pips, int used, int pips)
{
  int c = ref_bg_mustplay_cmp(used, pips, *max_dice, *max_pips);
  if(c > 0) {
    *max_dice = used;
    *max_pips = pips;
  }
  return c;
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
  c = ref_bg_mustplay_rank(&list->max_dice, &list->max_pips, used, pips);
  if(c < 0)
    return;
  if(c > 0)
    playlist_reset(list);
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
  if(n == REF_BG_OFF || n == REF_BG_BAR) {
    memcpy(p, n == REF_BG_OFF ? "off" : "bar", 3);
    return p + 3;
  }
  return ref_text_uint(p, (unsigned)n); /* 1..24 */
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
    if(rows[i].count > 1) {
      *o++ = '(';
      o = ref_text_uint(o, (unsigned)rows[i].count); /* at most 4 (doubles) */
      *o++ = ')';
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
/* Cube                                                                    */
/* ---------------------------------------------------------------------- */

void ref_bg_cube_init(struct ref_bg_cube *c)
{
  c->log2 = 0;
  c->owner = -1;
  c->crawford = 0;
  c->jacoby = 0;
  c->beavers = 0;
}

bool ref_bg_cube_may_double(const struct ref_bg_cube *c, int side)
{
  /* Section 4.3: centred or own cube, and no double beyond 64; BG-4: none
   * at all in a match's Crawford game. */
  return !c->crawford && (c->owner < 0 || c->owner == side) && c->log2 < REF_BG_CUBE_MAX_LOG2;
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

int ref_bg_cube_points(const struct ref_bg_cube *c, int multiplier)
{
  /* BG-4, the Jacoby rule (money play): a gammon or backgammon
   * counts as a single game while the cube was not turned. */
  return (c->jacoby && c->log2 == 0 ? 1 : multiplier) * ref_bg_cube_value(c);
}

/* ---------------------------------------------------------------------- */
/* The turn frame of the dice games                                        */
/* ---------------------------------------------------------------------- */

static const char *const seat_name[2] = {"White", "Black"};

void ref_bg_turn_finish(struct ref_bg_turn *t, int winner, int end, int points)
{
  t->phase = REF_PHASE_OVER;
  t->turn = -1;
  t->winner = (int8_t)winner;
  t->end = (uint8_t)end;
  t->points = (int16_t)points;
  t->dice[0] = t->dice[1] = 0;
}

int ref_bg_turn_roll(struct ref_bg_turn *t, const int *faces, int nfaces, const char *not_now,
                     bool opening_plays, struct ref_err *err)
{
  if(t->phase != REF_PHASE_ROLL && t->phase != REF_PHASE_CUBE) {
    ref_err_set(err, REF_EPHASE, t->phase == REF_PHASE_OVER ? "game-over" : not_now, NULL);
    return REF_EPHASE;
  }
  if(nfaces != 2 || faces[0] < 1 || faces[0] > 6 || faces[1] < 1 || faces[1] > 6) {
    ref_err_set(err, REF_EINVAL, "bg-bad-dice", NULL);
    return REF_EINVAL;
  }
  if(t->opening) {
    if(faces[0] == faces[1])
      return REF_OK;
    t->opening = 0;
    t->onroll = t->turn = faces[0] > faces[1] ? 0 : 1;
    if(!opening_plays) {
      t->phase = REF_PHASE_ROLL;
      return REF_OK;
    }
  }
  t->dice[0] = (uint8_t)faces[0];
  t->dice[1] = (uint8_t)faces[1];
  t->phase = REF_PHASE_MOVE;
  return REF_OK;
}

int ref_bg_turn_may_play(const struct ref_bg_turn *t, struct ref_err *err)
{
  if(t->phase == REF_PHASE_MOVE)
    return REF_OK;
  /* the refusal says what is awaited: a double waits for its answer */
  ref_err_set(err, REF_EPHASE,
              t->phase == REF_PHASE_OVER          ? "game-over"
              : t->phase == REF_PHASE_CUBE_REPLY ? "bg-take-or-drop"
                                                  : "bg-no-roll-yet",
              NULL);
  return REF_EPHASE;
}

void ref_bg_turn_status(const struct ref_bg_turn *t, const struct ref_bg_cube *cube,
                        struct ref_status *out)
{
  bool over = t->phase == REF_PHASE_OVER;
  memset(out, 0, sizeof(*out));
  out->phase = (enum ref_phase)t->phase;
  out->turn = t->turn;
  out->need_faces = t->phase == REF_PHASE_ROLL || t->phase == REF_PHASE_CUBE ? 2 : 0;
  out->winner = over ? t->winner : -1;
  out->end = over ? (enum ref_end)t->end : REF_END_NONE;
  out->points = over ? t->points : 0;
  out->move_number = t->move_number;
  out->cube = cube ? ref_bg_cube_value(cube) : 0;
  out->cube_owner = cube ? cube->owner : -1;
  out->opening = t->opening != 0;
  out->beavered = ref_bg_turn_beavered(t);
  out->may_beaver = t->phase == REF_PHASE_CUBE_REPLY && !out->beavered && cube &&
                    cube->beavers && cube->log2 + 2 <= REF_BG_CUBE_MAX_LOG2;
  if(t->phase == REF_PHASE_MOVE) {
    out->dice[0] = t->dice[0];
    out->dice[1] = t->dice[1];
    out->ndice = 2;
  }
}

bool ref_bg_turn_beavered(const struct ref_bg_turn *t)
{
  return t->phase == REF_PHASE_CUBE_REPLY && t->turn == t->onroll;
}

/* BG-9: the doubled player beavers: the cube one step up and theirs at
 * once, the doubler to take (one more step) or drop (the cube as it now
 * stands); one beaver a double, and none that would take the cube past 64
 * (gnubg: no beaver with the cube at 32 or more). */
static const char *beaver(struct ref_bg_turn *t, struct ref_bg_cube *c, int seat)
{
  if(t->phase != REF_PHASE_CUBE_REPLY || seat != t->turn)
    return "bg-no-double";
  if(ref_bg_turn_beavered(t))
    return "bg-beaver-once";
  if(!c->beavers)
    return "bg-no-beavers";
  if(c->log2 + 2 > REF_BG_CUBE_MAX_LOG2)
    return "bg-cube-max";
  c->log2++;
  c->owner = (int8_t)seat;
  t->turn = t->onroll;
  return NULL;
}

/* Section 4.3: double, take, drop; BG-9: beaver. */
static int cube_act(struct ref_bg_turn *t, struct ref_bg_cube *c, int seat, int action,
                    const char *first_turn, struct ref_err *err)
{
  const char *why;

  if(action == REF_ACT_DOUBLE) {
    /* Only at the start of one's own turn, before rolling, with the cube
     * centred or one's own, and never beyond 64. */
    if(t->phase == REF_PHASE_CUBE && seat == t->turn) {
      t->phase = REF_PHASE_CUBE_REPLY;
      t->turn = (int8_t)!seat;
      return REF_OK;
    }
    if(c->crawford)
      why = "bg-crawford"; /* BG-4: the Crawford game has no cube */
    else if(t->phase == REF_PHASE_CUBE_REPLY && seat == t->turn)
      why = "bg-take-or-drop"; /* a beaver is its own word (BG-9) */
    else if(seat != t->turn && !t->opening)
      why = "not-your-turn";
    else if(t->phase != REF_PHASE_ROLL || t->opening)
      why = first_turn ? first_turn : "bg-double-before-roll";
    else if(c->log2 >= REF_BG_CUBE_MAX_LOG2)
      why = "bg-cube-max";
    else
      why = "bg-not-your-cube";
  }
  else if(action == REF_ACT_BEAVER) {
    if(!(why = beaver(t, c, seat)))
      return REF_OK;
  }
  else if(t->phase != REF_PHASE_CUBE_REPLY || seat != t->turn) {
    why = "bg-no-double";
  }
  else if(action == REF_ACT_DROP) {
    /* The doubler wins the value before the double; a beaver dropped,
     * the beaver wins the cube as it stands (BG-9). */
    ref_bg_turn_finish(t, !seat, REF_END_CUBE_DROPPED, ref_bg_cube_value(c));
    return REF_OK;
  }
  else if(ref_bg_turn_beavered(t)) {
    /* BG-9: the beaver taken: one more step, the beaver keeps the cube */
    c->log2++;
    t->phase = REF_PHASE_ROLL;
    return REF_OK;
  }
  else {
    ref_bg_cube_take(c, seat);
    t->turn = t->onroll;
    t->phase = REF_PHASE_ROLL;
    return REF_OK;
  }
  ref_err_set(err, REF_EPHASE, why, !strcmp(why, "not-your-turn") ? seat_name[t->turn] : NULL);
  return REF_EPHASE;
}

int ref_bg_turn_act(struct ref_bg_turn *t, struct ref_bg_cube *c, int seat, int action, int arg,
                    const struct ref_bg_acts *a, struct ref_err *err)
{
  const char *refusal = NULL;

  if(seat < 0 || seat > 1) {
    ref_err_set(err, REF_EINVAL, "bad-seat", NULL);
    return REF_EINVAL;
  }
  if(t->phase == REF_PHASE_OVER) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  switch(action) {
  case REF_ACT_DOUBLE:
  case REF_ACT_TAKE:
  case REF_ACT_DROP:
  case REF_ACT_BEAVER:
    if(c)
      return cube_act(t, c, seat, action, a->first_turn, err);
    refusal = a->no_cube;
    break;
  case REF_ACT_RESIGN:
    if(!c) {
      ref_bg_turn_finish(t, !seat, REF_END_RESIGNATION, 1);
      return REF_OK;
    }
    /* BG-5: the service has negotiated the level; points = level x cube
     * (a single game's under Jacoby with the cube not turned, BG-4). */
    if(arg < 1 || arg > 3) {
      ref_err_set(err, REF_EINVAL, "bg-resign-level", NULL);
      return REF_EINVAL;
    }
    ref_bg_turn_finish(t, !seat, REF_END_RESIGNATION, ref_bg_cube_points(c, arg));
    return REF_OK;
  case REF_ACT_DRAW_AGREED:
    if(!a->agree_refusal) {
      ref_bg_turn_finish(t, -1, REF_END_AGREEMENT, 0);
      return REF_OK;
    }
    ref_err_set(err, REF_EINVAL, a->agree_refusal, a->draw_detail);
    return REF_EINVAL;
  case REF_ACT_DRAW_CLAIM:
    ref_err_set(err, REF_EINVAL, a->claim_refusal, a->draw_detail);
    return REF_EINVAL;
  default:
    refusal = "bad-option";
    break;
  }
  ref_err_set(err, REF_EINVAL, refusal, NULL);
  return REF_EINVAL;
}

bool ref_bg_cube_ok(const struct ref_bg_cube *c)
{
  /* BG-4: no cube turned in a Crawford game; Crawford is a match's and
   * Jacoby money play's, never both. */
  return c->log2 >= 0 && c->log2 <= REF_BG_CUBE_MAX_LOG2 && c->owner >= -1 && c->owner <= 1 &&
         (c->owner < 0) == (c->log2 == 0) && c->crawford <= 1 && c->jacoby <= 1 &&
         c->beavers <= 1 && !(c->crawford && (c->log2 || c->jacoby || c->beavers));
}

void ref_bg_turn_render(struct base_buf *o, const struct ref_bg_turn *t,
                        const struct ref_bg_cube *cube, const char *opening)
{
  /* said in words where the key is none: "(a dropped double)", not
   * "(cube-dropped)" */
  const char *end = t->end == REF_END_CUBE_DROPPED ? "a dropped double"
                                                   : ref_end_name((enum ref_end)t->end);

  if(t->last_seat >= 0)
    ref_text_emit(o, " Last: %s %d%d: %s\n", seat_name[t->last_seat], t->last_dice[0],
                  t->last_dice[1], t->last);
  switch(t->phase) {
  case REF_PHASE_ROLL:
    if(t->opening)
      ref_text_emit(o, " %s\n", opening);
    else
      ref_text_emit(o, " %s to roll.\n", seat_name[t->turn]);
    break;
  case REF_PHASE_CUBE:
    ref_text_emit(o, " %s to double or roll.\n", seat_name[t->turn]);
    break;
  case REF_PHASE_CUBE_REPLY:
    if(ref_bg_turn_beavered(t)) /* BG-9 */
      ref_text_emit(o, " %s beavers to %d: %s to take or drop.\n", seat_name[!t->onroll],
                    2 * ref_bg_cube_value(cube), seat_name[t->turn]);
    else
      ref_text_emit(o, " %s doubles to %d: %s to take or drop.\n", seat_name[t->onroll],
                    2 * ref_bg_cube_value(cube), seat_name[t->turn]);
    break;
  case REF_PHASE_MOVE:
    ref_text_emit(o, " %s to play %d%d.\n", seat_name[t->turn], t->dice[0], t->dice[1]);
    break;
  default:
    if(t->winner < 0)
      ref_text_emit(o, " Drawn (%s).\n", end);
    else if(cube)
      ref_text_emit(o, " %s wins %d point%s (%s).\n", seat_name[t->winner], t->points,
                    t->points == 1 ? "" : "s", end);
    else
      ref_text_emit(o, " %s wins (%s).\n", seat_name[t->winner], end);
    break;
  }
}
