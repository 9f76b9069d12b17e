/*
 * chessgammon_doublemove.c: Doublemove Diceless Chessgammon (game
 * "doublemove"), docs/rules-spec.md §5.4: Diceless Chessgammon
 * (chessgammon.c) with two moves a turn.
 *
 * - DM-1 (seed: "you get two moves per turn"): a turn is two halves by the
 *   same side, each obeying every Chessgammon rule in the position it is
 *   made in; the bar restriction is judged again before the second. The
 *   same piece may move twice.
 * - DM-2: White's first turn has two moves too; option balanced_start=on
 *   gives it one (balanced Marseillais chess).
 * - DM-3: the second move is compulsory when one exists; a turn with only
 *   one possible move has one; none is a pass. Finishing (all 16 off) on
 *   the first move ends the turn; CG-10 applies per turn.
 * - DM-4 (Marseillais chess): e.p. against a pawn that two-stepped on
 *   either of the opponent's moves, on the first move of the turn only; a
 *   second e.p. on the second move only if the first was one. The shared
 *   generator keeps both targets (ref_cg_state.ep) and the half counter.
 * Notation: the two moves separated by a comma, "Ng1-f3,Bf1-c4"; accepted
 * separators , ; & and "and" (vchess).
 * A move (struct ref_move) holds the halves in w[0] and w[1].
 */
#include "chessgammon_int.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

static const struct ref_cg_state *cstate_of(const struct ref_state *s)
{
  return (const struct ref_cg_state *)(const void *)s;
}

/* DM-2: the one-move opening turn when balanced_start is on. */
static bool single_turn(const struct ref_cg_state *st)
{
  return st->balanced && st->pos.fullmove == 1 && st->pos.side == REF_CH_WHITE;
}

/* Every legal turn: each first half with each second half legal after it,
 * or the first half alone when no second exists (DM-3), or the pass. */
static int dm_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct ref_cg_state *st = cstate_of(s);
  uint32_t first[REF_CG_MAX_HALVES], second[REF_CG_MAX_HALVES];
  struct ref_cg_state mid;
  struct ref_move m;
  int i, j, n1, n2;

  memset(&m, 0, sizeof(m));
  if(st->e.over)
    return REF_OK; /* G-1: none once the game is over */
  n1 = ref_cg_gen(st, first);
  if(!n1) {
    m.w[0] = ref_cg_half(REF_CG_K_PASS, 0, 0, 0);
    return ref_movelist_push(out, &m);
  }
  for(i = 0; i < n1; i++) {
    m.w[0] = first[i];
    m.w[1] = 0;
    n2 = 0;
    if(!single_turn(st)) {
      /* The history is not read by the generator: copy the rest only. */
      memcpy(&mid, st, offsetof(struct ref_cg_state, e));
      ref_cg_play(&mid, first[i]);
      n2 = ref_cg_gen(&mid, second);
    }
    if(!n2 && ref_movelist_push(out, &m) != REF_OK)
      return REF_ENOMEM;
    for(j = 0; j < n2; j++) {
      m.w[1] = second[j];
      if(ref_movelist_push(out, &m) != REF_OK)
        return REF_ENOMEM;
    }
  }
  return REF_OK;
}

/* Is m a legal turn of st? OUT: mid, the position after the first half. */
static bool turn_ok(const struct ref_cg_state *st, const struct ref_move *m,
                    struct ref_cg_state *mid)
{
  uint32_t v[REF_CG_MAX_HALVES];
  int i;

  for(i = 2; i < REF_MOVE_WORDS; i++)
    if(m->w[i])
      return false;
  if(ref_cg_half_kind(m->w[0]) == REF_CG_K_PASS)
    return m->w[0] == ref_cg_half(REF_CG_K_PASS, 0, 0, 0) && !m->w[1] && !ref_cg_gen(st, v);
  if(!ref_cg_half_legal(st, m->w[0]))
    return false;
  memcpy(mid, st, sizeof(*mid));
  ref_cg_play(mid, m->w[0]);
  if(single_turn(st))
    return !m->w[1];
  if(!m->w[1])
    return ref_cg_gen(mid, v) == 0; /* DM-3: the second move is compulsory */
  return ref_cg_half_legal(mid, m->w[1]);
}

/* Splits a turn at its separator (, ; & or the word "and"). OUT: a, b
 * (b empty for one move). */
static void split_turn(const char *text, char *a, char *b, size_t cap)
{
  char buf[160];
  size_t i, n;
  char *cut = NULL;

  snprintf(buf, sizeof(buf), "%s", text);
  n = strlen(buf);
  for(i = 0; i < n && !cut; i++) {
    if(buf[i] == ',' || buf[i] == ';' || buf[i] == '&') {
      cut = buf + i;
      *cut = '\0';
      cut++;
    }
    else if(i > 0 && i + 4 <= n && (buf[i - 1] == ' ' || buf[i - 1] == '\t') &&
            (buf[i] == 'a' || buf[i] == 'A') && (buf[i + 1] == 'n' || buf[i + 1] == 'N') &&
            (buf[i + 2] == 'd' || buf[i + 2] == 'D') &&
            (buf[i + 3] == ' ' || buf[i + 3] == '\t')) {
      buf[i] = '\0';
      cut = buf + i + 3;
    }
  }
  snprintf(a, cap, "%s", buf);
  snprintf(b, cap, "%s", cut ? cut : "");
}

static bool blank(const char *s)
{
  for(; *s; s++)
    if(*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n')
      return false;
  return true;
}

static int dm_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  const struct ref_cg_state *st = cstate_of(s);
  struct ref_cg_state mid;
  char a[160], b[160];
  uint32_t h1, h2 = 0, v[REF_CG_MAX_HALVES];
  int rc, n2;

  if(st->e.over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  split_turn(text ? text : "", a, b, sizeof(a));
  rc = ref_cg_parse_half(st, a, &h1, err);
  if(rc != REF_OK)
    return rc;
  if(ref_cg_half_kind(h1) == REF_CG_K_PASS) {
    if(!blank(b)) {
      ref_err_set(err, REF_EILLEGAL, "dm-too-many-moves", NULL);
      return REF_EILLEGAL;
    }
    memset(out, 0, sizeof(*out));
    out->w[0] = h1;
    return REF_OK;
  }
  memcpy(&mid, st, sizeof(mid));
  ref_cg_play(&mid, h1);
  n2 = single_turn(st) ? 0 : ref_cg_gen(&mid, v);
  if(blank(b)) {
    if(n2) {
      /* DM-3: name the move read, offer the second moves it allows. */
      char first[REF_NOTATION_MAX];
      int i, k = 0;
      ref_cg_format_half(st, h1, REF_NOTATION_CANONICAL, first, sizeof(first));
      ref_err_set(err, REF_EILLEGAL, "dm-second-move-missing", first);
      for(i = 0; i < n2 && k < REF_SUGGEST_MAX; i++) {
        char second[24];
        size_t la = strlen(first);
        /* halves are at most 12 characters: the pair always fits */
        if(ref_cg_format_half(&mid, v[i], REF_NOTATION_CANONICAL, second, sizeof(second)) ||
           la + strlen(second) + 2 > REF_NOTATION_MAX)
          continue;
        memcpy(err->suggest[k], first, la);
        err->suggest[k][la] = ',';
        memcpy(err->suggest[k] + la + 1, second, strlen(second) + 1);
        k++;
      }
      err->nsuggest = k;
      return REF_EILLEGAL;
    }
  }
  else {
    if(!n2) {
      /* DM-2, DM-3: this turn has one move; offer it alone. */
      ref_err_set(err, REF_EILLEGAL, "dm-too-many-moves", NULL);
      if(err && ref_cg_format_half(st, h1, REF_NOTATION_CANONICAL, err->suggest[0],
                                   sizeof(err->suggest[0])) == REF_OK)
        err->nsuggest = 1;
      return REF_EILLEGAL;
    }
    rc = ref_cg_parse_half(&mid, b, &h2, err);
    if(rc != REF_OK) {
      /* The second half's suggestions are halves after the first: offer
       * them as whole turns, which is what a player can send back. */
      char first[REF_NOTATION_MAX];
      int i, k = 0;
      if(err && ref_cg_format_half(st, h1, REF_NOTATION_CANONICAL, first, sizeof(first)) ==
                  REF_OK) {
        for(i = 0; i < err->nsuggest; i++) {
          char turn[2 * REF_NOTATION_MAX + 2];
          snprintf(turn, sizeof(turn), "%s,%s", first, err->suggest[i]);
          if(strlen(turn) < REF_NOTATION_MAX)
            memcpy(err->suggest[k++], turn, strlen(turn) + 1);
        }
        err->nsuggest = k;
      }
      return rc;
    }
    if(ref_cg_half_kind(h2) == REF_CG_K_PASS) {
      ref_err_set(err, REF_EILLEGAL, "cg-cannot-pass", NULL);
      return REF_EILLEGAL;
    }
  }
  memset(out, 0, sizeof(*out));
  out->w[0] = h1;
  out->w[1] = h2;
  return REF_OK;
}

static int dm_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  const struct ref_cg_state *st = cstate_of(s);
  struct ref_cg_state mid;
  char a[REF_NOTATION_MAX], b[REF_NOTATION_MAX];
  int rc;

  if(!turn_ok(st, m, &mid))
    return REF_EINVAL;
  rc = ref_cg_format_half(st, m->w[0], style, a, sizeof(a));
  if(rc != REF_OK)
    return rc;
  if(!m->w[1]) {
    if(strlen(a) + 1 > cap)
      return REF_EINVAL;
    memcpy(buf, a, strlen(a) + 1);
    return REF_OK;
  }
  rc = ref_cg_format_half(&mid, m->w[1], style, b, sizeof(b));
  if(rc != REF_OK)
    return rc;
  if(strlen(a) + strlen(b) + 2 > cap)
    return REF_EINVAL;
  snprintf(buf, cap, "%s,%s", a, b);
  return REF_OK;
}

static int dm_apply(struct ref_state *s, const struct ref_move *m)
{
  struct ref_cg_state *st = (struct ref_cg_state *)(void *)s;
  struct ref_cg_state mid;

  if(st->e.over)
    return REF_EPHASE;
  if(!turn_ok(st, m, &mid))
    return REF_EILLEGAL;
  if(ref_cg_half_kind(m->w[0]) != REF_CG_K_PASS) {
    ref_cg_play(st, m->w[0]);
    if(m->w[1])
      ref_cg_play(st, m->w[1]);
  }
  ref_cg_end_turn(st);
  assert(ref_cg_ok(s));
  return REF_OK;
}

static int dm_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  return ref_cg_init(s, options, err, &ref_cg_rules_doublemove);
}

static int dm_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  return ref_cg_decode(s, text, err, &ref_cg_rules_doublemove);
}

static const struct ref_game_ops doublemove_ops = {
  dm_init,        /* init */
  dm_decode,      /* decode */
  ref_cg_encode,  /* encode */
  dm_legal,       /* legal */
  dm_parse,       /* parse */
  dm_format,      /* format */
  dm_apply,       /* apply */
  NULL,           /* roll: diceless */
  ref_cg_act,     /* act */
  ref_cg_status,  /* status */
  ref_cg_render,  /* render */
  NULL,           /* perft: the generic walk */
  ref_cg_ok,      /* ok */
  ref_cg_diagram, /* diagram */
};

const struct ref_game_desc ref_game_doublemove_chessgammon = {
  "doublemove", "Doublemove Diceless Chessgammon", 1 /* version: bump when any ruling changes */,
  2, {"White", "Black"}, REF_GAME_DRAWS, sizeof(struct ref_cg_state), &doublemove_ops};

