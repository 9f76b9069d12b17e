/*
 * backgammon_chess_notation.c: a Backgammon Chess turn written out and
 * read (rules-spec.md sections 1 and 6.5): `(roll 3-1) 8/5 6/5 ; e5`,
 * `6/off@e4 ; Vd5xf7`, `@e4`. The backgammon part is read by the
 * backgammon game itself, the chess part by chess_notation.c, a stone's
 * path here.
 */
#include "backgammon_chess_int.h"
#include "chess_notation_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern const struct ref_game_desc ref_game_backgammon;

/* gnubg's notation of the play with `@sq` after each bear-off (6.5),
 * placements in the order given. */
static void bg_format(const struct bc_state *st, const struct bc_turn *t, char *out, size_t cap)
{
  char raw[64], *tok, *save = NULL;
  size_t k = 0;
  int used = 0;

  out[0] = '\0';
  if(ref_bg_play_format(&st->b, st->t.onroll, &t->play, raw, sizeof(raw)) < 0)
    return;
  for(tok = strtok_r(raw, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *off = strstr(tok, "/off"), *rep;
    int n = 1, i;
    if(!off || !t->nplace) {
      k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s", k ? " " : "", tok);
      continue;
    }
    rep = strchr(off, '(');
    if(rep) {
      n = atoi(rep + 1);
      *rep = '\0';
    }
    for(i = 0; i < n; i++) {
      char sq[3] = "";
      if(used < t->nplace)
        ref_bc_sq_name(t->place[used++], sq);
      k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s%s%s", k ? " " : "", tok,
                            sq[0] ? "@" : "", sq);
    }
  }
}

/* The whole notation of a turn (6.5): `(roll 3-1) 8/5 6/5 ; e5`,
 * `6/off@e4 ; Vd5xf7`, `@e4`, `Nf3`. Writes into out; false when it does not
 * fit in REF_NOTATION_MAX even without the roll. */
bool ref_bc_turn_format(const struct bc_state *st, const struct bc_turn *t, char *out, size_t cap)
{
  struct bc_state c = *st;
  char bgpart[REF_NOTATION_MAX * 2] = "", places[32] = "", chess[REF_NOTATION_MAX] = "";
  char roll[16] = "", whole[REF_NOTATION_MAX * 4];
  int i;

  if(t->has_bg) {
    bg_format(st, t, bgpart, sizeof(bgpart));
    if(t->play.n == 0)
      snprintf(bgpart, sizeof(bgpart), "--");
    snprintf(roll, sizeof(roll), "(roll %d-%d) ", st->t.dice[0], st->t.dice[1]);
    /* The position after it matters only for a chess part's SAN. */
    if(t->has_chess && ref_bc_do_bg(&c, &t->play, false))
      return false;
  }
  for(i = 0; i < t->nplace; i++) {
    char sq[3];
    ref_bc_sq_name(t->place[i], sq);
    if(!t->has_bg) /* placements alone: `@e4 @d5` */
      snprintf(places + strlen(places), sizeof(places) - strlen(places), "%s@%s", i ? " " : "",
               sq);
    if(t->has_chess && c.t.phase == REF_PHASE_MOVE && c.stage == ST_PLACE)
      ref_bc_do_place(&c, t->place[i]);
  }
  if(t->has_chess && c.t.phase == REF_PHASE_MOVE && c.stage == ST_CHESS)
    ref_bc_cm_format(&c, NULL, &t->cm, chess, sizeof(chess));
  snprintf(whole, sizeof(whole), "%s%s%s%s", bgpart, places,
           (bgpart[0] || places[0]) && chess[0] ? " ; " : "", chess);
  if(strlen(whole) >= REF_NOTATION_MAX && t->has_chess && t->cm.stone && t->cm.path.nhops > 1) {
    /* Too long for a reply's line: a long jump as origin x end, which the
     * reader takes when one path joins them (the rare rest stays long). */
    char from[3], to[3], *mark = chess + strlen(chess);
    while(mark > chess && (mark[-1] == '+' || mark[-1] == '#'))
      mark--;
    ref_bc_sq_name(t->cm.path.from, from);
    ref_bc_sq_name(t->cm.path.to[t->cm.path.nhops - 1], to);
    snprintf(whole, sizeof(whole), "%s%s ; %c%sx%s%s", bgpart, places, chess[0], from, to, mark);
  }
  if(roll[0] && strlen(roll) + strlen(whole) < REF_NOTATION_MAX) {
    memmove(whole + strlen(roll), whole, strlen(whole) + 1);
    memcpy(whole, roll, strlen(roll));
  }
  if(strlen(whole) >= REF_NOTATION_MAX || strlen(whole) >= cap)
    return false;
  memcpy(out, whole, strlen(whole) + 1);
  return true;
}

/* ---------------------------------------------------------------------- */
/* Reading a turn (section 1, 6.5)                                         */
/* ---------------------------------------------------------------------- */

/* The backgammon part, read by the backgammon game itself (its tolerant
 * reader, BG-6 orders, reason keys and suggestions) on a state decoded
 * from our board and dice. */
static int parse_bg(const struct bc_state *st, const char *text, struct ref_bg_play *play,
                    struct ref_err *err)
{
  const struct ref_game_desc *bg = &ref_game_backgammon;
  struct ref_state *tmp = ref_state_new(bg);
  struct ref_bg_match m;
  struct ref_move mv;
  char pid[15], mid[13], id[32];
  int rc;

  if(!tmp)
    return REF_ENOMEM;
  ref_bg_position_id(&st->b, st->t.onroll, pid);
  ref_bc_match_of(st, &m);
  ref_bg_match_id(&m, mid);
  snprintf(id, sizeof(id), "%s:%s", pid, mid);
  rc = bg->ops->decode(tmp, id, err);
  if(rc == REF_OK)
    rc = bg->ops->parse(tmp, text, &mv, err);
  if(rc == REF_OK && ref_bg_move_to_play(&mv, play) != REF_OK)
    rc = REF_EINVAL;
  free(tmp);
  return rc;
}

/* The chess-board moves of a position while its chess part is read; a
 * move is its index in l. */
struct bc_moves {
  const struct bc_state *st;
  struct bc_cmlist l;
};

/* Chess-board move i as notation sees it: a piece as in chess, a stone as
 * a move of its own kind from its square to where its path ends. */
static void describe(const void *ctx, uint32_t i, struct ref_cn_move *d)
{
  const struct bc_moves *bm = ctx;
  const struct bc_state *st = bm->st;
  const struct bc_cmove *c = &bm->l.v[i];
  int from = c->stone ? c->path.from : ref_chess_move_from(c->m);
  int to = c->stone ? c->path.to[c->path.nhops - 1] : ref_chess_move_to(c->m);
  int kind = c->stone ? REF_CH_MV_NORMAL : ref_chess_move_kind(c->m);

  memset(d, 0, sizeof(*d));
  d->kind = kind == REF_CH_MV_CASTLE ? REF_CN_CASTLE : REF_CN_NORMAL;
  d->piece = (int8_t)(c->stone ? BC_STONE : REF_CH_TYPE(st->pos.board[from]));
  d->ff = (int8_t)(from % 8);
  d->fr = (int8_t)(from / 8 + 1);
  d->tf = (int8_t)(to % 8);
  d->tr = (int8_t)(to / 8 + 1);
  d->promo = (int8_t)(kind == REF_CH_MV_PROMO ? ref_chess_move_promo(c->m) : -1);
  d->capture = c->stone ? c->path.capture
                        : st->pos.board[to] != REF_CH_EMPTY ||
                            (st->stones[!st->pos.side] & BIT(to)) || kind == REF_CH_MV_EP;
  d->castle = to > from ? 1 : 2;
  d->by_squares = 1;
}

static void cm_text(const void *ctx, uint32_t i, char *buf, size_t cap)
{
  const struct bc_moves *bm = ctx;
  ref_bc_cm_format(bm->st, &bm->l, &bm->l.v[i], buf, cap);
}

/* Readable, not legal: castling has one reason here (a stone attacks only
 * what it can jump, BC-7, so the chess reasons would mislead). */
static int explain(const struct ref_cn_game *g, const struct ref_cn_pattern *pats, int npat,
                   const char *in, struct ref_err *err)
{
  if(npat && pats[0].castle)
    return ref_cn_refuse(g, REF_EILLEGAL, "bc-cannot-castle", NULL, &pats[0], err);
  return ref_cn_refuse(g, REF_EILLEGAL, "no-such-move", in, &pats[0], err);
}

/*
 * A stone's move as 6.5 writes it: `Vc3-d4`, `Vc3xe5xc7` (every landing),
 * `Xd4-c3`, or the squares alone from a square holding one of our stones;
 * a jump as origin x destination when only one path joins them. Returns 1
 * when s is no stone move (the chess reader's), else REF_OK or a refusal.
 */
static int read_stone(const struct ref_cn_game *g, const char *s, struct bc_cmove *out,
                      struct ref_err *err)
{
  const struct bc_moves *bm = g->ctx;
  const struct bc_state *st = bm->st;
  const struct bc_cmlist *l = &bm->l;
  int sqs[REF_CK_HOPS_MAX + 1], nsq = 0, from, to, i, exact = -1, found = -1, nfound = 0;
  bool letter = (*s == 'V' || *s == 'X' || *s == 'v') && ref_bc_sq_read(s + 1) >= 0;
  const char *p = s + letter;
  char a[3], b[3], detail[16];
  struct ref_cn_pattern pt;

  if(!letter && (ref_bc_sq_read(p) < 0 || !(st->stones[st->pos.side] & BIT(ref_bc_sq_read(p)))))
    return 1;
  while(*p) {
    if(ref_bc_sq_read(p) >= 0 && nsq <= REF_CK_HOPS_MAX) {
      sqs[nsq++] = ref_bc_sq_read(p);
      p += 2;
    }
    else if(strchr("-xX:*", *p)) {
      p++;
    }
    else {
      if(!letter)
        return 1;
      return ref_cn_refuse(g, REF_EPARSE, "unreadable", NULL, NULL, err);
    }
  }
  if(nsq < 2)
    return letter ? ref_cn_refuse(g, REF_EPARSE, "unreadable", NULL, NULL, err) : 1;
  from = sqs[0];
  to = sqs[nsq - 1];
  for(i = 0; i < l->n; i++) {
    const struct ref_ck_path *pa = &l->v[i].path;
    int j;
    bool all;
    if(!l->v[i].stone || pa->from != from || pa->to[pa->nhops - 1] != to)
      continue;
    /* Every landing written (6.5), or origin and end when one path fits. */
    all = pa->nhops == nsq - 1;
    for(j = 0; all && j < pa->nhops; j++)
      all = pa->to[j] == sqs[j + 1];
    if(all) {
      exact = i;
    }
    else if(nsq == 2) {
      nfound++;
      found = i;
    }
  }
  if(exact >= 0 || nfound == 1) {
    *out = l->v[exact >= 0 ? exact : found];
    return REF_OK;
  }
  /* Refused: the stone moves from or to these squares are the nearest. */
  memset(&pt, 0, sizeof(pt));
  pt.piece = BC_STONE;
  pt.ff = from % 8;
  pt.fr = from / 8 + 1;
  pt.tf = to % 8;
  pt.tr = to / 8 + 1;
  pt.promo = -1;
  ref_bc_sq_name(from, a);
  ref_bc_sq_name(to, b);
  if(nfound > 1) {
    snprintf(detail, sizeof(detail), "%s-%s", a, b);
    return ref_cn_refuse(g, REF_EAMBIGUOUS, "bc-stone-path-ambiguous", detail, &pt, err);
  }
  return ref_cn_refuse(g, REF_EILLEGAL,
                       st->stones[st->pos.side] & BIT(from) ? "bc-stone-cannot" : "bc-no-stone", a,
                       &pt, err);
}

/* The chess part (6.5): a stone's path, or a piece's move in SAN or long
 * algebraic (`e5`, `Nf3`, `exd5`, `O-O`, `e7e8=Q`, `e2-e4`) read by
 * chess_notation.c. */
static const struct ref_cn_dialect bc_dialect = {8, 8, false, false, false, NULL, 0};
static const struct ref_cn_rules bc_reader = {&bc_dialect, describe, cm_text, explain};

static int parse_chess(const struct bc_state *st, const char *text, struct bc_cmove *out,
                       struct ref_err *err)
{
  struct bc_moves bm = {st, {0, 0, NULL}};
  struct ref_cn_move *v = NULL;
  struct ref_cn_game g = {&bc_reader, &bm, NULL, NULL, 0};
  struct ref_move m;
  uint32_t *moves = NULL;
  char s[32];
  bool figurine;
  int i, rc = ref_bc_gen_chess(st, &bm.l);

  if(rc)
    return rc;
  moves = malloc((size_t)(bm.l.n + 1) * sizeof(*moves));
  v = malloc((size_t)(bm.l.n + 1) * sizeof(*v));
  rc = moves && v ? 1 : REF_ENOMEM;
  for(i = 0; rc == 1 && i < bm.l.n; i++) {
    moves[i] = (uint32_t)i;
    describe(&bm, moves[i], &v[i]);
  }
  g.moves = moves;
  g.v = v;
  g.n = bm.l.n;
  if(rc == 1 && ref_cn_clean(text, s, sizeof(s), &figurine) && !figurine)
    rc = read_stone(&g, s, out, err);
  if(rc == 1) {
    rc = ref_cn_parse(&bc_reader, &bm, false, moves, bm.l.n, text, &m, err);
    if(rc == REF_OK)
      *out = bm.l.v[m.w[0]];
  }
  free(moves);
  free(v);
  ref_bc_cm_free(&bm.l);
  return rc;
}

/* A backgammon part as a comparable string: lower case, no roll, no hit
 * marks, no placements, its moves sorted (BG-6 lets them come in any
 * order). */
static void bg_norm(const char *in, char *out, size_t cap)
{
  char tmp[128], *tok[16], *save = NULL, *w;
  size_t k = 0;
  int n = 0, i, j;

  for(i = 0; in[i] && k < sizeof(tmp) - 1; i++) {
    if(in[i] == '@' && ref_bc_sq_read(in + i + 1) >= 0) {
      i += 2;
      continue;
    }
    if(in[i] == '*')
      continue;
    tmp[k++] = (char)tolower((unsigned char)in[i]);
  }
  tmp[k] = '\0';
  if(!strncmp(tmp, "(roll", 5) && strchr(tmp, ')'))
    memmove(tmp, strchr(tmp, ')') + 1, strlen(strchr(tmp, ')') + 1) + 1);
  for(w = strtok_r(tmp, " \t", &save); w && n < 16; w = strtok_r(NULL, " \t", &save))
    tok[n++] = w;
  for(i = 1; i < n; i++)
    for(j = i; j > 0 && strcmp(tok[j - 1], tok[j]) > 0; j--) {
      w = tok[j];
      tok[j] = tok[j - 1];
      tok[j - 1] = w;
    }
  k = 0;
  out[0] = '\0';
  for(i = 0; i < n; i++)
    k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s", i ? " " : "", tok[i]);
}

/* Takes every `@sq` out of text (blanking it), in order. Returns the count,
 * or -1 on an `@` not followed by a square or more than four. */
static int take_places(char *text, uint8_t *places)
{
  int n = 0;
  char *p;
  for(p = text; (p = strchr(p, '@')) != NULL;) {
    int sq = ref_bc_sq_read(p + 1);
    if(sq < 0 || n == 4)
      return -1;
    places[n++] = (uint8_t)sq;
    p[0] = p[1] = p[2] = ' ';
  }
  return n;
}

static bool blank(const char *s)
{
  while(*s && (isspace((unsigned char)*s) || *s == ';' || *s == ','))
    s++;
  return !*s;
}

static void trim(char *s)
{
  size_t n = strlen(s), i = 0;
  while(n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == ','))
    s[--n] = '\0';
  while(s[i] && isspace((unsigned char)s[i]))
    i++;
  memmove(s, s + i, n - i + 1);
}

static int fail_with(enum ref_code code, const char *reason, const char *detail,
                     struct ref_err *err)
{
  ref_err_set(err, code, reason, detail);
  return code;
}

/* Suggestions when the backgammon part is wanted: the legal plays. */
static void suggest_bg(const struct bc_state *st, struct ref_err *err)
{
  struct ref_err tmp;
  struct ref_bg_play play;
  int i;
  if(!err)
    return;
  memset(&tmp, 0, sizeof(tmp));
  parse_bg(st, "?", &play, &tmp);
  for(i = 0; i < tmp.nsuggest; i++)
    memcpy(err->suggest[i], tmp.suggest[i], sizeof(err->suggest[i]));
  err->nsuggest = tmp.nsuggest;
}

static void suggest_places(const struct bc_state *st, struct ref_err *err)
{
  int sq, k = 0;
  if(!err)
    return;
  for(sq = 0; sq < 64 && k < REF_SUGGEST_MAX; sq++)
    if(!ref_bc_place_refusal(st, sq)) {
      char name[3];
      ref_bc_sq_name(sq, name);
      snprintf(err->suggest[k++], REF_NOTATION_MAX, "@%s", name);
    }
  err->nsuggest = k;
}

/*
 * One turn, or the rest of one, as a player writes it (6.5):
 *   [(roll a-b)] [backgammon part with @sq after each /off] [; chess part]
 * In stage ST_PLACE the left part may be just the placements (`@e4`, `e4`)
 * or the turn's backgammon play repeated; in ST_CHESS a repeated
 * backgammon part before `;` is accepted. Without `;`, the last word is
 * tried as the chess part when the whole does not read as backgammon.
 */
int ref_bc_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                 struct ref_err *err)
{
  const struct bc_state *st = ref_bc_cst(s);
  struct bc_state sim;
  struct bc_turn t;
  char buf[256], left[256], chess[256] = "", norm_a[128], norm_b[128], *semi;
  int rc, i, n;

  if(st->t.phase != REF_PHASE_MOVE)
    return fail_with(REF_EPHASE,
                     st->t.phase == REF_PHASE_OVER          ? "game-over"
                     : st->t.phase == REF_PHASE_CUBE_REPLY ? "bg-take-or-drop"
                                                            : "bg-no-roll-yet",
                     NULL, err);
  if(!text || strlen(text) >= sizeof(buf))
    return fail_with(REF_EPARSE, "unreadable", NULL, err);
  snprintf(buf, sizeof(buf), "%s", text);
  trim(buf);
  memset(&t, 0, sizeof(t));
  /* "(roll 3-1)" as the referee echoes it: must be this turn's roll. */
  if(!strncasecmp(buf, "(roll", 5)) {
    char *close = strchr(buf, ')');
    int a = 0, b = 0, used = -1;
    /* one digit a face: %d read any length into an int */
    if(!close || sscanf(buf + 5, " %1d - %1d %n", &a, &b, &used) != 2 || buf + 5 + used != close)
      return fail_with(REF_EPARSE, "unreadable", NULL, err);
    if(st->first || st->stage != ST_BG ||
       !((a == st->t.dice[0] && b == st->t.dice[1]) ||
         (a == st->t.dice[1] && b == st->t.dice[0]))) {
      char d[16];
      snprintf(d, sizeof(d), "%d-%d", st->t.dice[0], st->t.dice[1]);
      return fail_with(REF_EILLEGAL, st->stage == ST_BG ? "bc-wrong-roll" : "bc-backgammon-done",
                       st->stage == ST_BG ? d : st->bgtext, err);
    }
    memmove(buf, close + 1, strlen(close + 1) + 1);
    trim(buf);
  }
  semi = strchr(buf, ';');
  if(semi) {
    *semi = '\0';
    snprintf(chess, sizeof(chess), "%s", semi + 1);
    trim(chess);
  }
  snprintf(left, sizeof(left), "%s", buf);
  trim(left);

  if(st->stage == ST_BG) {
    struct ref_err first;
    char *sp;
    if(!left[0]) {
      rc = fail_with(REF_EILLEGAL, "bc-backgammon-first", NULL, err);
      suggest_bg(st, err);
      return rc;
    }
    n = take_places(left, t.place);
    if(n < 0)
      return fail_with(REF_EPARSE, "unreadable", NULL, err);
    t.nplace = n;
    memset(&first, 0, sizeof(first));
    rc = parse_bg(st, left, &t.play, &first);
    if(rc && !semi && (sp = strrchr(left, ' ')) != NULL) {
      /* "8/5 6/5 e5": the last word as the chess part. */
      struct ref_err second;
      memset(&second, 0, sizeof(second));
      snprintf(chess, sizeof(chess), "%s", sp + 1);
      *sp = '\0';
      if(parse_bg(st, left, &t.play, &second) == REF_OK)
        rc = REF_OK;
      else
        chess[0] = '\0';
    }
    if(rc) {
      if(err)
        *err = first;
      /* "e5" alone: a chess move where the turn starts with backgammon. */
      if(!semi && !strchr(left, '/') && rc == REF_EPARSE && err)
        snprintf(err->reason, sizeof(err->reason), "bc-backgammon-first");
      return rc;
    }
    t.has_bg = true;
  }
  else if(st->stage == ST_PLACE) {
    if(strchr(left, '/')) {
      /* The turn's play written again, with its placements. */
      n = take_places(left, t.place);
      bg_norm(left, norm_a, sizeof(norm_a));
      bg_norm(st->bgtext, norm_b, sizeof(norm_b));
      if(n < 0 || strcmp(norm_a, norm_b))
        return fail_with(REF_EILLEGAL, "bc-backgammon-done", st->bgtext, err);
      t.nplace = n;
    }
    else {
      char *w, *save = NULL, rest[256] = "";
      for(w = strtok_r(left, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        const char *q = w[0] == '@' ? w + 1 : w;
        if(!rest[0] && t.nplace < st->pending && ref_bc_sq_read(q) >= 0 && !q[2]) {
          t.place[t.nplace++] = (uint8_t)ref_bc_sq_read(q);
          continue;
        }
        if(semi || rest[0]) {
          rc = fail_with(REF_EPARSE, "unreadable", w, err);
          suggest_places(st, err);
          return rc;
        }
        snprintf(rest, sizeof(rest), "%s", w); /* the chess part, without ';' */
      }
      if(rest[0])
        snprintf(chess, sizeof(chess), "%s", rest);
    }
    if(!t.nplace) {
      rc = fail_with(REF_EILLEGAL, "bc-placement-missing", NULL, err);
      suggest_places(st, err);
      return rc;
    }
  }
  else {
    if(semi && !blank(left)) {
      if(st->first)
        return fail_with(REF_EILLEGAL, "bc-no-dice-first-turn", NULL, err);
      bg_norm(left, norm_a, sizeof(norm_a));
      bg_norm(st->bgtext, norm_b, sizeof(norm_b));
      if(strcmp(norm_a, norm_b))
        return fail_with(REF_EILLEGAL, "bc-backgammon-done", st->bgtext, err);
    }
    if(!semi && strchr(left, '/'))
      return fail_with(REF_EILLEGAL, st->first ? "bc-no-dice-first-turn" : "bc-backgammon-done",
                       st->first ? NULL : st->bgtext, err);
    if(!semi)
      snprintf(chess, sizeof(chess), "%s", left);
    if(!chess[0])
      return fail_with(REF_EPARSE, "unreadable", NULL, err);
  }

  /* Play it through on a copy: every part must be legal where it falls. */
  sim = *st;
  if(t.has_bg && ref_bc_do_bg(&sim, &t.play, false) != REF_OK)
    return fail_with(REF_EILLEGAL, "illegal", NULL, err);
  for(i = 0; i < t.nplace; i++) {
    const char *why;
    char name[3];
    if(sim.t.phase == REF_PHASE_OVER) {
      t.nplace = i; /* 6.2d: the backgammon game is won; nothing to place */
      break;
    }
    if(sim.stage != ST_PLACE)
      return fail_with(REF_EILLEGAL, "bc-too-many-placements", NULL, err);
    why = ref_bc_place_refusal(&sim, t.place[i]);
    if(why) {
      ref_bc_sq_name(t.place[i], name);
      rc = fail_with(REF_EILLEGAL, why, name, err);
      suggest_places(&sim, err);
      return rc;
    }
    ref_bc_do_place(&sim, t.place[i]);
  }
  if(chess[0] && sim.t.phase != REF_PHASE_OVER) {
    if(sim.t.phase == REF_PHASE_MOVE && sim.stage == ST_PLACE) {
      char d[8];
      snprintf(d, sizeof(d), "%d", sim.pending);
      rc = fail_with(REF_EILLEGAL, "bc-placement-missing", d, err);
      suggest_places(&sim, err);
      return rc;
    }
    if(sim.t.phase != REF_PHASE_MOVE || sim.stage != ST_CHESS)
      return fail_with(REF_EILLEGAL, "bc-no-chess-move", NULL, err);
    rc = parse_chess(&sim, chess, &t.cm, err);
    if(rc)
      return rc;
    t.has_chess = true;
  }
  if(!t.has_bg && !t.nplace && !t.has_chess)
    return fail_with(REF_EPARSE, "unreadable", NULL, err);
  ref_bc_turn_to_move(&t, out);
  return REF_OK;
}

