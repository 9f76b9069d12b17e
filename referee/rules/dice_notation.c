/*
 * dice_notation.c: reading point-to-point dice plays for backgammon
 * (section 4.4, BG-6) and Tables Chess (section 7.6); see
 * dice_notation_int.h. The rules stay the games': a step, its refusal, the
 * legal list with must-play; what is here is how a written turn is found
 * among the legal plays and what a player is told when it is not.
 */
#include "dice_notation_int.h"
#include "chess_notation_int.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Reading (sections 1.1-1.3)                                              */
/* ---------------------------------------------------------------------- */

static int word_type(const struct ref_dn_syntax *sx, const char *w, size_t n)
{
  int i;
  for(i = 0; i < sx->nwords; i++)
    if(strlen(sx->words[i].word) == n && !strncmp(sx->words[i].word, w, n))
      return sx->words[i].type;
  return -1;
}

/* Backgammon's points: "bar", "b", "off", "o" or a number 0-25. */
static bool read_gnubg_point(const char **pp, int *out)
{
  const char *p = *pp;
  int n = 0, k = 0;

  if(!strncmp(p, "bar", 3) || (p[0] == 'b' && !isalpha((unsigned char)p[1]))) {
    *out = REF_DN_BAR;
    *pp = p + (p[1] == 'a' ? 3 : 1);
    return true;
  }
  if(!strncmp(p, "off", 3) || (p[0] == 'o' && !isalpha((unsigned char)p[1]))) {
    *out = REF_DN_OFF;
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
 * A point in a game with piece names (Tables Chess, section 7.6): a piece
 * word (it names the next route's piece: *type, *pending), "bar" with or
 * without a piece word run into it ("nbar"), or the own point 1-24 (0 the
 * bar). Returns 1 with *pt set, 0 for a piece word alone, or a negative
 * code with *reason.
 */
static int read_track_point(const struct ref_dn_syntax *sx, const char **pp, bool busy, int *pt,
                            int *type, bool *pending, const char **reason)
{
  const char *p = *pp, *w;
  int n, k;
  size_t wl;

  if(isalpha((unsigned char)*p)) {
    for(w = p; isalpha((unsigned char)*p); p++)
      ;
    wl = (size_t)(p - w);
    *pp = p;
    if(wl >= 3 && !strncmp(p - 3, "bar", 3) && (wl == 3 || word_type(sx, w, wl - 3) >= 0)) {
      if(wl > 3) {
        if(busy)
          return REF_EPARSE;
        *type = word_type(sx, w, wl - 3);
        *pending = true;
      }
      *pt = REF_DN_BAR;
      return 1;
    }
    if(wl == 3 && !strncmp(w, "off", 3)) {
      *reason = sx->off_reason;
      return REF_EILLEGAL;
    }
    if(busy || word_type(sx, w, wl) < 0)
      return REF_EPARSE;
    *type = word_type(sx, w, wl);
    *pending = true;
    return 0;
  }
  if(!isdigit((unsigned char)*p))
    return REF_EPARSE;
  for(n = 0, k = 0; isdigit((unsigned char)*p) && k < 3; p++, k++)
    n = n * 10 + (*p - '0');
  *pp = p;
  if(k > 2 || n > 24)
    return REF_EPARSE;
  *pt = n ? 25 - n : REF_DN_BAR;
  return 1;
}

/* What the routes as a whole must satisfy once read. */
static int check_routes(const struct ref_dn_syntax *sx, const struct ref_dn_route *rs, int nr,
                        const char **reason)
{
  int i, k;

  for(i = 0; i < nr; i++) {
    if(!sx->words && rs[i].pt[0] == REF_DN_OFF)
      return REF_EPARSE;
    for(k = 1; k < rs[i].npt; k++) {
      int a = rs[i].pt[k - 1], b = rs[i].pt[k];
      if(sx->words) {
        /* Tables Chess pieces may go back (TC-2): only a standstill is nonsense. */
        if(a == b)
          return REF_EPARSE;
        continue;
      }
      if(b == REF_DN_BAR || (b == REF_DN_OFF && k < rs[i].npt - 1))
        return REF_EPARSE;
      if(b >= a) {
        *reason = "bg-wrong-direction";
        return REF_EILLEGAL;
      }
    }
  }
  if(nr > REF_DN_ROUTES) {
    *reason = "bg-wrong-dice";
    return REF_EILLEGAL;
  }
  return REF_OK;
}

/*
 * Tolerant reading (sections 1.1-1.2, 4.4, 7.6): "13/7 8/7", "bar/22",
 * "b/22", "25/22", "6/off", "-" for "/", "24/18*\/13", "6/4(2)", "K1/3
 * P1/2", "Nbar/5", "r7-13", "Kt19/22"; hit marks `*`, `x`, `:` optional;
 * a leading move number ("12.") or roll ("31:") and , ; . ! ? ignored.
 */
int ref_dn_read(const char *text, const struct ref_dn_syntax *sx, struct ref_dn_input *in,
                const char **reason)
{
  char low[256];
  const char *p;
  struct ref_dn_route rs[8], *cur = NULL;
  int nr = 0, i, k, n, pt, type = -1, rc;
  bool expect = false, pending = false;

  memset(in, 0, sizeof(*in));
  *reason = "unreadable";
  for(i = 0, k = 0; text[i] && k < (int)sizeof(low) - 1; k++) {
    char f;
    int len = sx->words ? ref_cn_figurine(text + i, &f) : 0;
    /* A figurine names the piece it shows: ♘ is N. */
    low[k] = (char)tolower(len ? (unsigned char)f : (unsigned char)text[i]);
    i += len ? len : 1;
  }
  low[k] = '\0';
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
    /* A hit mark; with piece words an x before a letter starts a word. */
    if(*p == '*' || *p == ':' || (*p == 'x' && (!sx->words || !isalpha((unsigned char)p[1])))) {
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
    if(sx->words) {
      rc = read_track_point(sx, &p, expect || pending, &pt, &type, &pending, reason);
      if(rc < 0)
        return rc;
      if(rc == 0)
        continue;
    }
    else if(!read_gnubg_point(&p, &pt)) {
      return REF_EPARSE;
    }
    if(expect) {
      if(cur->npt == 6 || (sx->words && pt == REF_DN_BAR))
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
  rc = check_routes(sx, rs, nr, reason);
  if(rc)
    return rc;
  memcpy(in->r, rs, sizeof(in->r));
  in->nr = nr;
  return REF_OK;
}

bool ref_dn_is_pass(const char *text)
{
  char w[32];
  int n = 0;
  for(; *text && n < (int)sizeof(w) - 1; text++)
    if(!isspace((unsigned char)*text) && !strchr(".!?", *text))
      w[n++] = (char)tolower((unsigned char)*text);
  w[n] = '\0';
  return !*text && (!strcmp(w, "--") || !strcmp(w, "pass") || !strcmp(w, "nomove"));
}

/* ---------------------------------------------------------------------- */
/* A position with its legal plays                                         */
/* ---------------------------------------------------------------------- */

struct pos {
  const struct ref_dn_rules *r;
  const void *board;
  const struct ref_bg_turn *t;
  void *list; /* the game's */
  struct ref_dn_plays plays;
};

static const void *board_of(const struct ref_dn_rules *r, const struct ref_state *s)
{
  return (const char *)s + r->board_at;
}

static const struct ref_bg_turn *turn_of(const struct ref_dn_rules *r, const struct ref_state *s)
{
  return (const struct ref_bg_turn *)(const void *)((const char *)s + r->turn_at);
}

/* The legal plays of s; REF_EPHASE (err filled) unless a play is due. */
static int pos_open(struct pos *ps, const struct ref_dn_rules *r, const struct ref_state *s,
                    struct ref_err *err)
{
  int rc;
  memset(ps, 0, sizeof(*ps));
  ps->r = r;
  ps->board = board_of(r, s);
  ps->t = turn_of(r, s);
  rc = ref_bg_turn_may_play(ps->t, err);
  if(rc)
    return rc;
  ps->list = calloc(1, r->list_size);
  if(!ps->list)
    return REF_ENOMEM;
  return r->plays(ps->board, ps->t->onroll, ps->t->dice[0], ps->t->dice[1], ps->list, &ps->plays);
}

static void pos_close(struct pos *ps)
{
  if(ps->list)
    ps->r->release(ps->list);
  free(ps->list);
}

static int play_text(const struct pos *ps, size_t i, char *buf, size_t cap)
{
  return ps->r->format(ps->board, ps->t->onroll, &ps->plays.v[i], buf, cap);
}

/* ---------------------------------------------------------------------- */
/* Matching (BG-6: any order of the routes, any assignment of the dice)    */
/* ---------------------------------------------------------------------- */

#define MAX_CAND 16

struct matcher {
  const struct pos *ps;
  const struct ref_dn_input *in;
  int dice[4];
  int ndice;
  bool used[4];
  int pos[4], next[4], type[4];
  int hits;
  long cand[MAX_CAND]; /* legal plays reached (index in the list) */
  int cand_hits[MAX_CAND];
  int ncand;
  int exec_dice, exec_pips; /* best complete execution that is not legal */
  const char *end_refusal;  /* a complete execution the end rule refused */
  int why, why_depth, why_point, why_type;
};

static void matcher_fail(struct matcher *mt, int why, int depth, int point, int type)
{
  /* The most telling refusal: any rule over "dice do not fit", then the
   * deepest, then the game's rank. */
  const int *rank = mt->ps->r->board->rank;
  int a = why == REF_DN_WHY_DICE ? 0 : 1, b = mt->why == REF_DN_WHY_DICE ? 0 : 1;
  if(mt->why != REF_DN_WHY_NONE) {
    if(a < b)
      return;
    if(a == b && depth < mt->why_depth)
      return;
    if(a == b && depth == mt->why_depth &&
       (why == REF_DN_WHY_DICE || rank[why] <= rank[mt->why]))
      return;
  }
  mt->why = why;
  mt->why_depth = depth;
  mt->why_point = point;
  mt->why_type = type;
}

static void matcher_done(struct matcher *mt, const void *b, int depth)
{
  const struct ref_dn_board *bo = mt->ps->r->board;
  long idx = bo->find(mt->ps->list, b);
  const char *why;
  int k, pips = 0;

  if(idx < 0) {
    why = bo->end_refusal ? bo->end_refusal(b, mt->ps->t->onroll) : NULL;
    if(why) {
      mt->end_refusal = why;
      return;
    }
    for(k = 0; k < mt->ndice; k++)
      pips += mt->used[k] ? mt->dice[k] : 0;
    /* BG-2, TC-7: the best such execution says what must-play wanted. */
    if(depth > mt->exec_dice || (depth == mt->exec_dice && pips > mt->exec_pips)) {
      mt->exec_dice = depth;
      mt->exec_pips = pips;
    }
    return;
  }
  for(k = 0; k < mt->ncand; k++)
    if(mt->cand[k] == idx)
      return;
  if(mt->ncand < MAX_CAND) {
    mt->cand[mt->ncand] = idx;
    mt->cand_hits[mt->ncand++] = mt->hits;
  }
}

static void matcher_rec(struct matcher *mt, const void *b, int depth)
{
  const struct ref_dn_board *bo = mt->ps->r->board;
  const struct ref_dn_route *r;
  int side = mt->ps->t->onroll;
  unsigned char nb[REF_DN_BOARD_MAX];
  int s, k, k2, t, t0, t1, to, target, from, why, dir, oldpos, oldnext, oldtype;
  bool done = true, dup, hit;

  for(s = 0; s < mt->in->nr; s++)
    if(mt->next[s] < mt->in->r[s].npt)
      done = false;
  if(done) {
    /* Compared by resulting board (section 4.4). */
    matcher_done(mt, b, depth);
    return;
  }
  if(depth == mt->ndice || (bo->finished && bo->finished(b, side))) {
    matcher_fail(mt, REF_DN_WHY_DICE, depth, mt->pos[0], -1);
    return;
  }
  for(s = 0; s < mt->in->nr; s++) {
    r = &mt->in->r[s];
    if(mt->next[s] >= r->npt)
      continue;
    from = mt->pos[s];
    target = r->pt[mt->next[s]];
    dir = target < from ? 1 : -1;
    t0 = mt->type[s] >= 0 ? mt->type[s] : 0;
    t1 = mt->type[s] >= 0 ? mt->type[s] : bo->ntypes - 1;
    for(k = 0; k < mt->ndice; k++) {
      if(mt->used[k])
        continue;
      for(dup = false, k2 = 0; k2 < k; k2++)
        if(!mt->used[k2] && mt->dice[k2] == mt->dice[k])
          dup = true;
      if(dup)
        continue;
      for(t = t0; t <= t1; t++) {
        if(mt->type[s] < 0 && !bo->has(b, side, from, t)) {
          if(!bo->any(b, side, from) && t == t1)
            matcher_fail(mt, 1, depth, from, -1); /* code 1: nothing there */
          continue;
        }
        why = bo->step(b, side, t, from, mt->dice[k], dir, &to);
        if(why) {
          /* a refusal named by its landing point, for a die that would
           * pass the written point, is no reason to give: that step is
           * not the one written (P1/3 on 2-1 is not refused for what
           * point 4 holds); the dice do not fit it */
          int land = from - dir * mt->dice[k], landing = bo->landing_codes >> why & 1u;
          if(landing && target != REF_DN_OFF && from != REF_DN_BAR &&
             (dir > 0 ? land < target : land > target))
            matcher_fail(mt, REF_DN_WHY_DICE, depth, from, t);
          else
            matcher_fail(mt, why, depth, landing ? land : from, t);
          continue;
        }
        if((to == REF_DN_OFF && target != REF_DN_OFF) ||
           (to != REF_DN_OFF && (dir > 0 ? to < target : to > target))) {
          matcher_fail(mt, REF_DN_WHY_DICE, depth, from, t);
          continue;
        }
        memcpy(nb, b, bo->size);
        hit = bo->apply(nb, side, t, from, to);
        oldpos = mt->pos[s];
        oldnext = mt->next[s];
        oldtype = mt->type[s];
        mt->pos[s] = to;
        mt->type[s] = t;
        if(to == target)
          mt->next[s]++;
        mt->used[k] = true;
        mt->hits += hit;
        matcher_rec(mt, nb, depth + 1);
        mt->hits -= hit;
        mt->used[k] = false;
        mt->pos[s] = oldpos;
        mt->next[s] = oldnext;
        mt->type[s] = oldtype;
      }
    }
  }
}

static bool fit_rec(const struct ref_dn_input *in, int *pos, int *next, const int *dice,
                    bool *used, int ndice)
{
  int s, k, target, np, oldpos, oldnext;
  bool done = true, ok = false;

  for(s = 0; s < in->nr; s++)
    if(next[s] < in->r[s].npt)
      done = false;
  if(done)
    return true;
  for(s = 0; s < in->nr && !ok; s++) {
    if(next[s] >= in->r[s].npt)
      continue;
    for(k = 0; k < ndice && !ok; k++) {
      if(used[k])
        continue;
      target = in->r[s].pt[next[s]];
      np = pos[s] - dice[k];
      if(np < target && target != REF_DN_OFF)
        continue;
      oldpos = pos[s];
      oldnext = next[s];
      pos[s] = np < 0 ? 0 : np;
      if(pos[s] == target)
        next[s]++;
      used[k] = true;
      ok = fit_rec(in, pos, next, dice, used, ndice);
      used[k] = false;
      pos[s] = oldpos;
      next[s] = oldnext;
    }
  }
  return ok;
}

bool ref_dn_dice_fit(const struct ref_dn_input *in, const int dice[2])
{
  int pos[4], next[4], d[4], i, nd = dice[0] == dice[1] ? 4 : 2;
  bool used[4] = {false, false, false, false};

  for(i = 0; i < 4; i++)
    d[i] = dice[i & 1];
  for(i = 0; i < in->nr; i++) {
    pos[i] = in->r[i].pt[0];
    next[i] = 1;
  }
  return fit_rec(in, pos, next, d, used, nd);
}

/* ---------------------------------------------------------------------- */
/* Suggestions and the refusal                                             */
/* ---------------------------------------------------------------------- */

/* Up to r->suggest_max legal plays nearest to in (NULL: the first ones): a
 * written start (with its piece) counts 2, a written end 1 (section 1.4). */
static void suggest(const struct pos *ps, const struct ref_dn_input *in, struct ref_err *err)
{
  const struct ref_dn_plays *pl = &ps->plays;
  size_t i, best;
  int s, k, score, top, *scores;

  if(!err || !pl->n)
    return;
  scores = malloc(pl->n * sizeof(*scores));
  if(!scores)
    return;
  for(i = 0; i < pl->n; i++) {
    const struct ref_bg_play *p = &pl->v[i];
    score = 0;
    for(s = 0; in && s < in->nr; s++)
      for(k = 0; k < p->n; k++) {
        if(p->from[k] == in->r[s].pt[0] && (in->r[s].type < 0 || in->r[s].type == p->type[k]))
          score += 2;
        if(p->to[k] == in->r[s].pt[in->r[s].npt - 1])
          score++;
      }
    scores[i] = score;
  }
  while(err->nsuggest < ps->r->suggest_max && err->nsuggest < (int)pl->n) {
    top = -1;
    best = 0;
    for(i = 0; i < pl->n; i++)
      if(scores[i] > top) {
        top = scores[i];
        best = i;
      }
    scores[best] = -2;
    if(play_text(ps, best, err->suggest[err->nsuggest], REF_NOTATION_MAX) >= 0)
      err->nsuggest++;
  }
  free(scores);
}

/* Readable, reaching no legal play: must-play (BG-2, TC-7), the end rule
 * (TC-4), or the deepest step refusal as the game words it. */
static void refuse(const struct pos *ps, const struct ref_dn_input *in, const struct matcher *mt,
                   struct ref_err *err)
{
  const char *reason;
  char detail[96];
  int dice[2] = {ps->t->dice[0], ps->t->dice[1]};

  detail[0] = '\0';
  if(mt->exec_dice >= 0)
    reason = mt->exec_dice < ps->plays.max_dice ? "bg-not-all-dice" : "bg-higher-die";
  else if(mt->end_refusal)
    reason = mt->end_refusal;
  else
    ps->r->explain(in, dice, mt->why, mt->why_point, mt->why_type, &reason, detail,
                   sizeof(detail));
  ref_err_set(err, REF_EILLEGAL, reason, detail[0] ? detail : NULL);
  suggest(ps, in, err);
}

/* Two legal plays fit and the hit marks choose neither. */
static void ambiguous(const struct pos *ps, const struct matcher *mt, struct ref_err *err)
{
  int i;
  ref_err_set(err, REF_EAMBIGUOUS, "ambiguous", NULL);
  if(!err)
    return;
  for(i = 0; i < mt->ncand && i < REF_SUGGEST_MAX; i++)
    play_text(ps, (size_t)mt->cand[i], err->suggest[i], REF_NOTATION_MAX);
  err->nsuggest = i;
  snprintf(err->detail, sizeof(err->detail), "%.40s or %.40s", err->suggest[0], err->suggest[1]);
}

/* The play text reads as, with ps open: REF_OK and *pick, or the refusal. */
static int read_play(const struct pos *ps, const char *text, size_t *pick, struct ref_err *err)
{
  const struct ref_dn_plays *pl = &ps->plays;
  struct ref_dn_input in;
  struct matcher *mt;
  const char *reason = NULL;
  int rc, i, found, nfound;

  assert(ps->r->board->size <= REF_DN_BOARD_MAX);
  if(ref_dn_is_pass(text)) {
    if(pl->n == 1 && pl->v[0].n == 0) {
      *pick = 0;
      return REF_OK;
    }
    ref_err_set(err, REF_EILLEGAL, "bg-must-move", NULL);
    suggest(ps, NULL, err);
    return REF_EILLEGAL;
  }
  rc = ref_dn_read(text, ps->r->syntax, &in, &reason);
  if(rc) {
    ref_err_set(err, rc, reason, NULL);
    suggest(ps, NULL, err);
    return rc;
  }
  mt = calloc(1, sizeof(*mt));
  if(!mt)
    return REF_ENOMEM;
  mt->ps = ps;
  mt->in = &in;
  mt->ndice = ps->t->dice[0] == ps->t->dice[1] ? 4 : 2;
  for(i = 0; i < 4; i++)
    mt->dice[i] = ps->t->dice[i & 1];
  for(i = 0; i < in.nr; i++) {
    mt->pos[i] = in.r[i].pt[0];
    mt->next[i] = 1;
    mt->type[i] = in.r[i].type;
  }
  mt->exec_dice = mt->exec_pips = -1;
  mt->why = REF_DN_WHY_NONE;
  matcher_rec(mt, ps->board, 0);

  found = -1;
  if(mt->ncand == 1)
    found = 0;
  else if(mt->ncand > 1) {
    /* "24/13" may pass a blot or not: the written hit marks decide. */
    for(nfound = 0, i = 0; i < mt->ncand; i++)
      if(mt->cand_hits[i] == in.stars) {
        found = i;
        nfound++;
      }
    if(nfound != 1) {
      ambiguous(ps, mt, err);
      free(mt);
      return REF_EAMBIGUOUS;
    }
  }
  if(found >= 0) {
    *pick = (size_t)mt->cand[found];
    free(mt);
    return REF_OK;
  }
  refuse(ps, &in, mt, err);
  free(mt);
  return REF_EILLEGAL;
}

/* ---------------------------------------------------------------------- */
/* The ops of a dice game                                                  */
/* ---------------------------------------------------------------------- */

void ref_dn_move(const struct ref_dn_rules *r, const struct ref_bg_play *p, struct ref_move *m)
{
  int i;
  memset(m, 0, sizeof(*m));
  m->w[0] = r->tag | p->n | (uint32_t)p->won << 8;
  for(i = 0; i < p->n; i++)
    m->w[1 + i] = (uint32_t)p->type[i] | (uint32_t)p->from[i] << 8 | (uint32_t)p->to[i] << 16;
}

int ref_dn_play(const struct ref_dn_rules *r, const struct ref_move *m, struct ref_bg_play *p)
{
  int i;
  if((m->w[0] & 0xffff0000u) != r->tag || (m->w[0] & 0xffu) > 4 || (m->w[0] & 0xfe00u))
    return REF_EINVAL;
  memset(p, 0, sizeof(*p));
  p->n = (uint8_t)(m->w[0] & 0xffu);
  p->won = (uint8_t)(m->w[0] >> 8 & 1u);
  for(i = 0; i < p->n; i++) {
    p->type[i] = (uint8_t)(m->w[1 + i] & 0xff);
    p->from[i] = (uint8_t)(m->w[1 + i] >> 8 & 0xff);
    p->to[i] = (uint8_t)(m->w[1 + i] >> 16 & 0xff);
    if(p->type[i] >= r->board->ntypes || p->from[i] < 1 || p->from[i] > REF_DN_BAR ||
       p->to[i] < r->lowest || p->to[i] >= REF_DN_BAR || p->to[i] == p->from[i] ||
       (r->forward_only && p->to[i] > p->from[i]))
      return REF_EINVAL;
  }
  return p->won && !r->plays_win ? REF_EINVAL : REF_OK;
}

int ref_dn_legal(const struct ref_dn_rules *r, const struct ref_state *s,
                 struct ref_movelist *out)
{
  struct pos ps;
  struct ref_move m;
  size_t i;
  int rc = pos_open(&ps, r, s, NULL);

  for(i = 0; !rc && i < ps.plays.n; i++) {
    ref_dn_move(r, &ps.plays.v[i], &m);
    rc = ref_movelist_push(out, &m);
  }
  pos_close(&ps);
  return rc;
}

int ref_dn_parse(const struct ref_dn_rules *r, const struct ref_state *s, const char *text,
                 struct ref_move *out, struct ref_err *err)
{
  struct pos ps;
  size_t pick;
  int rc = pos_open(&ps, r, s, err);

  if(!rc)
    rc = read_play(&ps, text, &pick, err);
  if(!rc)
    ref_dn_move(r, &ps.plays.v[pick], out);
  pos_close(&ps);
  return rc;
}

int ref_dn_format(const struct ref_dn_rules *r, const struct ref_state *s,
                  const struct ref_move *m, char *buf, size_t cap)
{
  struct ref_bg_play p;
  if(ref_dn_play(r, m, &p) != REF_OK ||
     r->format(board_of(r, s), turn_of(r, s)->onroll, &p, buf, cap) < 0)
    return REF_EINVAL;
  return REF_OK;
}

/* Each step of p legal with a die of the roll not used before (TC-9a:
 * nothing after the king is home), and the end allowed (TC-4). OUT:
 * after, the board after it. */
static bool fits(const struct ref_dn_rules *r, const void *board, const struct ref_bg_turn *t,
                 const struct ref_bg_play *p, void *after)
{
  const struct ref_dn_board *bo = r->board;
  int dice[4], nd = t->dice[0] == t->dice[1] ? 4 : 2, i, k, to, side = t->onroll;
  bool used[4] = {false, false, false, false}, found;

  for(i = 0; i < 4; i++)
    dice[i] = t->dice[i & 1];
  if(p->n > nd)
    return false;
  memcpy(after, board, bo->size);
  for(i = 0; i < p->n; i++) {
    int dir = p->to[i] < p->from[i] ? 1 : -1;
    if(bo->finished && bo->finished(after, side))
      return false;
    found = false;
    for(k = 0; k < nd && !found; k++)
      if(!used[k] && !bo->step(after, side, p->type[i], p->from[i], dice[k], dir, &to) &&
         to == p->to[i]) {
        used[k] = true;
        found = true;
      }
    if(!found)
      return false;
    bo->apply(after, side, p->type[i], p->from[i], p->to[i]);
  }
  return !bo->end_refusal || !bo->end_refusal(after, side);
}

int ref_dn_apply(const struct ref_dn_rules *r, struct ref_state *s, const struct ref_move *m,
                 struct ref_bg_play *p)
{
  struct ref_bg_turn *t = (struct ref_bg_turn *)(void *)((char *)s + r->turn_at);
  void *board = (char *)s + r->board_at;
  unsigned char after[REF_DN_BOARD_MAX];

  if(t->phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  if(ref_dn_play(r, m, p) != REF_OK || !fits(r, board, t, p, after))
    return REF_EILLEGAL;
  if(r->format(board, t->onroll, p, t->last, sizeof(t->last)) < 0)
    t->last[0] = '\0';
  t->last_seat = t->onroll;
  t->last_dice[0] = t->dice[0];
  t->last_dice[1] = t->dice[1];
  memcpy(board, after, r->board->size);
  if(t->move_number < REF_BG_MOVE_MAX)
    t->move_number++;
  return REF_OK;
}
