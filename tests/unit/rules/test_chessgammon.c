/*
 * test_chessgammon.c: the Chessgammon family (rules-spec.md §5):
 * referee/rules/chessgammon.c and its variants (Doublemove, Racing Kings,
 * Bodlaender's, 4x8).
 *
 * Sources of truth:
 * - the seed's two worked games and its remarks, as §10.1 records them
 *   (T-CG-1 ... T-CG-5), the §10.2 variant cases and the armies' (§5.7,
 *   T-CGA-*; tests/oracles/cg_armies.py compares random games), written as step
 *   scripts in tests/data/chessgammon/ (*.txt) (the step language is below);
 * - the chess core's pseudo-legal generator (chess_int.h), against which
 *   the Chessgammon generator is cross-checked on random positions, and an
 *   independent bear-off oracle written here from CG-2/CG-3;
 * - the invariants (chessgammon.c's checker), checked after every move of seeded
 *   random playouts of every system.
 *
 * Step language, one step a line ('#' comments, blank lines ignored):
 *   case TITLE            a new case (the title names the rule IDs)
 *   game NAME             a fresh game of that system, default options
 *   options OPTS [=> R]   init with OPTS; with "=> R", init must fail with R
 *   start POS             decode the position string
 *   start-is POS          the position string is exactly POS
 *   badstart POS => R     decode refuses POS with reason R
 *   move TEXT [=> PREFIX] parse and apply; the position string then starts
 *                         with PREFIX (followed by a space or its end)
 *   pass                  the one legal move is the pass; it is played
 *   refuse TEXT R         parse refuses TEXT with reason R
 *   canon TEXT C          TEXT parses to the move whose canonical form is C
 *   computer TEXT C       ... whose computer form is C
 *   legal M ...           the legal moves are exactly these (canonical)
 *   legal-uci M ...       ... in computer notation
 *   legal-off M ...       the bear-offs among them are exactly these
 *   legal-drops M ...     the bring-ins among them are exactly these
 *   has M / lacks M       a legal move is / is not M
 *   lacks-first M         no legal turn begins with the half M
 *   lacks-kind off        no legal move bears off
 *   turn white|black      the side to move
 *   over WINNER END       the game is over: White, Black or draw; end name
 *   claim ok|refused      a draw claim by the side to move
 */
#include "chessgammon_int.h"
#include "chess_int.h"
#include "rules.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DATA TABULA_TEST_DATA "/chessgammon/"

/* ------------------------------------------------------------------------ */
/* The independent invariants, on the state itself. */

/* libcheck's ck_assert records a checkpoint (a write) on every call, so the
 * hot loops here test first and abort only on failure. */
#define REQUIRE(cond, ...)                                                                        \
  do {                                                                                           \
    if(!(cond))                                                                                  \
      ck_abort_msg(__VA_ARGS__);                                                                 \
  } while(0)

static void check_invariants(const struct ref_game_desc *g, const struct ref_state *s,
                             const char *where)
{
  const struct ref_cg_state *st = (const struct ref_cg_state *)(const void *)s;
  int c, t;

  REQUIRE(g->ops->ok(s), "ops->ok refused the state (%s)", where);
  if(!strcmp(g->name, "chessgammon4x8"))
    return; /* its own representation: ops->ok checks its counts */
  for(c = 0; c < 2; c++) {
    int total = st->off[c];
    for(t = 0; t < 6; t++) {
      total += ref_chess_popcount(st->pos.pieces[c][t]) + st->bar[c][t];
      /* HB-1: nothing is ever on a bar in Bodlaender's game */
      REQUIRE(st->variant != REF_CG_BODLAENDER || st->bar[c][t] == 0,
              "a piece on the bar in Bodlaender's (%s)", where);
    }
    /* RK-1 rk_array: an army of 8 (no pawns) */
    REQUIRE(total == (st->rk_array ? 8 : 16), "colour %d has %d pieces (%s)", c, total, where);
    REQUIRE(!st->rk_array ||
                (st->variant == REF_CG_RACING_KINGS && !st->pos.pieces[c][0] && !st->bar[c][0]),
            "rk_array: pawns, or not Racing Kings (%s)", where);
    /* RK-2: no king attacked after any move (with the FIDEs; the armies'
     * attacks are tests/oracles/cg_armies.py's) */
    REQUIRE(st->variant != REF_CG_RACING_KINGS || !st->pos.pieces[c][REF_CH_KING] ||
              st->army[0] != REF_ARMY_FIDE || st->army[1] != REF_ARMY_FIDE ||
              !ref_chess_attacked(&st->pos, ref_chess_lsb(st->pos.pieces[c][REF_CH_KING]), c ^ 1),
            "a king attacked in Racing Kings Chessgammon (%s)", where);
  }
}

/* The position string round-trips through decode. */
static void check_roundtrip(const struct ref_game_desc *g, const struct ref_state *s)
{
  char a[256], b[256];
  struct ref_state *c = ref_state_new(g);
  struct ref_err err;

  ck_assert_int_eq(g->ops->encode(s, a, sizeof(a)), REF_OK);
  ck_assert_msg(g->ops->decode(c, a, &err) == REF_OK, "decode of '%s': %s", a, err.reason);
  ck_assert_int_eq(g->ops->encode(c, b, sizeof(b)), REF_OK);
  ck_assert_str_eq(a, b);
  free(c);
}

/* ------------------------------------------------------------------------ */
/* The step scripts */

struct runner {
  const struct ref_game_desc *g;
  struct ref_state *s;
  char title[160];
  int line;
};

static void need_game(struct runner *r)
{
  ck_assert_msg(r->g && r->s, "line %d: no game yet", r->line);
}

/* The legal moves as text, each allocated; the caller frees them. */
static size_t legal_texts(struct runner *r, enum ref_notation style, char ***out,
                          struct ref_movelist *list)
{
  size_t i;
  char **v;

  ref_movelist_clear(list);
  ck_assert_int_eq(r->g->ops->legal(r->s, list), REF_OK);
  v = calloc(list->n + 1, sizeof(*v));
  ck_assert_ptr_nonnull(v);
  for(i = 0; i < list->n; i++) {
    v[i] = malloc(REF_NOTATION_MAX * 2);
    ck_assert_int_eq(r->g->ops->format(r->s, &list->v[i], style, v[i], REF_NOTATION_MAX * 2),
                     REF_OK);
  }
  *out = v;
  return list->n;
}

static void free_texts(char **v, size_t n)
{
  size_t i;
  for(i = 0; i < n; i++)
    free(v[i]);
  free(v);
}

/* "legal", "legal-off", "legal-drops": the set (filtered by kind) equals
 * the words of `want`. */
static void expect_set(struct runner *r, const char *want, int kind, enum ref_notation style)
{
  struct ref_movelist list = {0};
  char **v, *words[512], buf[2048], *save = NULL, *w, got[4096], exp[4096];
  size_t n = legal_texts(r, style, &v, &list), i, k = 0, nw = 0, len = 0;
  char **keep = calloc(n + 1, sizeof(*keep));

  ck_assert_ptr_nonnull(keep);

  for(i = 0; i < n; i++)
    if(!kind || ref_cg_half_kind(list.v[i].w[0]) == kind)
      keep[k++] = v[i];
  qsort(keep, k, sizeof(keep[0]), ts_cmp_str);
  snprintf(buf, sizeof(buf), "%s", want);
  for(w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save))
    words[nw++] = w;
  qsort(words, nw, sizeof(words[0]), ts_cmp_str);
  got[0] = exp[0] = '\0';
  for(i = 0; i < k; i++)
    len += (size_t)snprintf(got + len, sizeof(got) - len, "%s ", keep[i]);
  len = 0;
  for(i = 0; i < nw; i++)
    len += (size_t)snprintf(exp + len, sizeof(exp) - len, "%s ", words[i]);
  ck_assert_msg(!strcmp(got, exp), "%s line %d: legal moves\n  got:  %s\n  want: %s", r->title,
                r->line, got, exp);
  free(keep);
  free_texts(v, n);
  ref_movelist_free(&list);
}

static bool has_move(struct runner *r, const char *m, bool prefix)
{
  struct ref_movelist list = {0};
  char **v;
  size_t n = legal_texts(r, REF_NOTATION_CANONICAL, &v, &list), i, len = strlen(m);
  bool found = false;

  for(i = 0; i < n; i++)
    if(!strcmp(v[i], m) || (prefix && !strncmp(v[i], m, len) && v[i][len] == ','))
      found = true;
  free_texts(v, n);
  ref_movelist_free(&list);
  return found;
}

static void apply_move(struct runner *r, const struct ref_move *m, const char *text)
{
  ck_assert_msg(r->g->ops->apply(r->s, m) == REF_OK, "%s line %d: apply %s", r->title, r->line,
                text);
  check_invariants(r->g, r->s, text);
  check_roundtrip(r->g, r->s);
}

/* Splits "TEXT => TAIL": OUT tail (NULL without the arrow); text trimmed. */
static char *split_arrow(char *text)
{
  char *arrow = strstr(text, " => ");
  if(!arrow)
    return NULL;
  *arrow = '\0';
  return arrow + 4;
}

/* Splits off the last word of text. */
static char *last_word(char *text)
{
  char *sp = strrchr(text, ' ');
  ck_assert_ptr_nonnull(sp);
  *sp = '\0';
  return sp + 1;
}

static void step(struct runner *r, char *line)
{
  char *arg = strchr(line, ' '), *tail;
  struct ref_move m;
  struct ref_err err;
  struct ref_status st;
  char buf[256];
  int rc;

  if(arg)
    *arg++ = '\0';
  else
    arg = line + strlen(line);
  memset(&err, 0, sizeof(err));
  if(!strcmp(line, "case")) {
    snprintf(r->title, sizeof(r->title), "%s", arg);
    return;
  }
  if(!strcmp(line, "game") || !strcmp(line, "options")) {
    if(!strcmp(line, "game")) {
      r->g = ref_game_find(arg);
      ck_assert_msg(r->g != NULL, "no game %s", arg);
      arg = NULL;
    }
    ck_assert_msg(r->g != NULL, "line %d: options before game", r->line);
    free(r->s);
    r->s = ref_state_new(r->g);
    tail = arg ? split_arrow(arg) : NULL;
    rc = r->g->ops->init(r->s, arg, &err);
    if(tail) {
      ck_assert_msg(rc != REF_OK && !strcmp(err.reason, tail), "%s line %d: init(%s) gave %d %s",
                    r->title, r->line, arg, rc, err.reason);
      ck_assert_int_eq(r->g->ops->init(r->s, NULL, &err), REF_OK);
    }
    else {
      ck_assert_msg(rc == REF_OK, "%s line %d: init: %s", r->title, r->line, err.reason);
    }
    check_invariants(r->g, r->s, "init");
    return;
  }
  need_game(r);
  if(!strcmp(line, "start")) {
    rc = r->g->ops->decode(r->s, arg, &err);
    ck_assert_msg(rc == REF_OK, "%s line %d: decode: %s", r->title, r->line, err.reason);
    check_invariants(r->g, r->s, arg);
    check_roundtrip(r->g, r->s);
  }
  else if(!strcmp(line, "start-is")) {
    ck_assert_int_eq(r->g->ops->encode(r->s, buf, sizeof(buf)), REF_OK);
    ck_assert_str_eq(buf, arg);
  }
  else if(!strcmp(line, "badstart")) {
    struct ref_state *c = ref_state_new(r->g);
    tail = split_arrow(arg);
    ck_assert_ptr_nonnull(tail);
    rc = r->g->ops->decode(c, arg, &err);
    ck_assert_msg(rc == REF_EINVAL && !strcmp(err.reason, tail), "%s line %d: decode gave %d %s",
                  r->title, r->line, rc, err.reason);
    free(c);
  }
  else if(!strcmp(line, "move")) {
    tail = split_arrow(arg);
    rc = r->g->ops->parse(r->s, arg, &m, &err);
    ck_assert_msg(rc == REF_OK, "%s line %d: parse '%s': %d %s %s", r->title, r->line, arg, rc,
                  err.reason, err.detail);
    apply_move(r, &m, arg);
    if(tail) {
      size_t n = strlen(tail);
      ck_assert_int_eq(r->g->ops->encode(r->s, buf, sizeof(buf)), REF_OK);
      ck_assert_msg(!strncmp(buf, tail, n) && (buf[n] == ' ' || !buf[n]),
                    "%s line %d: after %s\n  got:  %s\n  want: %s", r->title, r->line, arg, buf,
                    tail);
    }
  }
  else if(!strcmp(line, "pass")) {
    struct ref_movelist list = {0};
    ck_assert_int_eq(r->g->ops->legal(r->s, &list), REF_OK);
    ck_assert_msg(list.n == 1, "%s line %d: %zu legal moves, not the pass alone", r->title,
                  r->line, list.n);
    ck_assert_int_eq(r->g->ops->format(r->s, &list.v[0], REF_NOTATION_CANONICAL, buf, sizeof(buf)),
                     REF_OK);
    ck_assert_str_eq(buf, "--");
    /* as the service replays it from the journal */
    ck_assert_int_eq(r->g->ops->parse(r->s, "--", &m, &err), REF_OK);
    ck_assert(!memcmp(&m, &list.v[0], sizeof(m)));
    apply_move(r, &m, "--");
    ref_movelist_free(&list);
  }
  else if(!strcmp(line, "refuse")) {
    char *reason = last_word(arg);
    rc = r->g->ops->parse(r->s, arg, &m, &err);
    ck_assert_msg(rc != REF_OK && !strcmp(err.reason, reason),
                  "%s line %d: parse '%s' gave %d '%s', want '%s'", r->title, r->line, arg, rc,
                  err.reason, reason);
    /* a refusal offers the nearest legal moves (§1.4) */
    ck_assert_msg(err.nsuggest > 0 || !strcmp(reason, "unreadable"),
                  "%s line %d: no suggestions", r->title, r->line);
  }
  else if(!strcmp(line, "canon") || !strcmp(line, "computer")) {
    char *want = last_word(arg);
    rc = r->g->ops->parse(r->s, arg, &m, &err);
    ck_assert_msg(rc == REF_OK, "%s line %d: parse '%s': %s", r->title, r->line, arg, err.reason);
    ck_assert_int_eq(r->g->ops->format(r->s, &m,
                                       !strcmp(line, "canon") ? REF_NOTATION_CANONICAL
                                                              : REF_NOTATION_COMPUTER,
                                       buf, sizeof(buf)),
                     REF_OK);
    ck_assert_msg(!strcmp(buf, want), "%s line %d: '%s' reads as %s, want %s", r->title, r->line,
                  arg, buf, want);
  }
  else if(!strcmp(line, "legal")) {
    expect_set(r, arg, 0, REF_NOTATION_CANONICAL);
  }
  else if(!strcmp(line, "legal-uci")) {
    expect_set(r, arg, 0, REF_NOTATION_COMPUTER);
  }
  else if(!strcmp(line, "legal-off")) {
    expect_set(r, arg, REF_CG_K_OFF, REF_NOTATION_CANONICAL);
  }
  else if(!strcmp(line, "legal-drops")) {
    expect_set(r, arg, REF_CG_K_DROP, REF_NOTATION_CANONICAL);
  }
  else if(!strcmp(line, "has")) {
    ck_assert_msg(has_move(r, arg, false), "%s line %d: %s is not legal", r->title, r->line, arg);
  }
  else if(!strcmp(line, "lacks")) {
    ck_assert_msg(!has_move(r, arg, false), "%s line %d: %s is legal", r->title, r->line, arg);
  }
  else if(!strcmp(line, "lacks-first")) {
    ck_assert_msg(!has_move(r, arg, true), "%s line %d: %s is legal", r->title, r->line, arg);
  }
  else if(!strcmp(line, "lacks-kind")) {
    struct ref_movelist list = {0};
    size_t i;
    ck_assert_str_eq(arg, "off");
    ck_assert_int_eq(r->g->ops->legal(r->s, &list), REF_OK);
    for(i = 0; i < list.n; i++)
      ck_assert_msg(ref_cg_half_kind(list.v[i].w[0]) != REF_CG_K_OFF, "%s line %d: a bear-off",
                    r->title, r->line);
    ref_movelist_free(&list);
  }
  else if(!strcmp(line, "turn")) {
    r->g->ops->status(r->s, &st);
    ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
    ck_assert_int_eq(st.turn, !strcmp(arg, "white") ? 0 : 1);
  }
  else if(!strcmp(line, "over")) {
    char *end = last_word(arg);
    r->g->ops->status(r->s, &st);
    ck_assert_msg(st.phase == REF_PHASE_OVER, "%s line %d: not over", r->title, r->line);
    ck_assert_int_eq(st.winner, !strcmp(arg, "White") ? 0 : !strcmp(arg, "Black") ? 1 : -1);
    ck_assert_str_eq(ref_end_name(st.end), end);
  }
  else if(!strcmp(line, "claim")) {
    r->g->ops->status(r->s, &st);
    rc = r->g->ops->act(r->s, st.turn, REF_ACT_DRAW_CLAIM, 0, &err);
    ck_assert_int_eq(rc == REF_OK, !strcmp(arg, "ok"));
    ck_assert_int_eq(st.draw_claimable, !strcmp(arg, "ok"));
    check_invariants(r->g, r->s, "claim");
  }
  else {
    ck_abort_msg("line %d: unknown step '%s'", r->line, line);
  }
}

static void run_script(const char *name)
{
  char path[512], *text, *p, *nl;
  struct runner r;

  memset(&r, 0, sizeof(r));
  snprintf(path, sizeof(path), "%s%s", DATA, name);
  text = ts_read(path);
  for(p = text; *p; p = nl ? nl + 1 : p + strlen(p)) {
    size_t len;
    nl = strchr(p, '\n');
    if(nl)
      *nl = '\0';
    r.line++;
    len = strlen(p);
    while(len && (p[len - 1] == ' ' || p[len - 1] == '\r'))
      p[--len] = '\0';
    if(!len || p[0] == '#')
      continue;
    step(&r, p);
    if(!nl)
      break;
  }
  free(r.s);
  free(text);
}

/* CGA-1 ... CGA-4: Chessgammon with different armies (§5.7) */
START_TEST(test_armies)
{
  const struct ref_game_desc *g = ref_game_find("chessgammon");
  struct ref_state *s = ref_state_new(g);
  struct ref_cg_state *st = (struct ref_cg_state *)(void *)s;
  struct ref_err err;

  run_script("armies.txt");
  /* the invariant checker refuses a state whose armies or moves are not
   * the table's (a snapshot edited or from another build) */
  ck_assert_int_eq(g->ops->init(s, "armies=nutty/rookies", &err), REF_OK);
  ck_assert(g->ops->ok(s));
  st->am[1][2].nleap--;
  ck_assert(!g->ops->ok(s));
  ck_assert_int_eq(g->ops->init(s, "armies=nutty/rookies", &err), REF_OK);
  st->army[0] = REF_ARMY_COUNT;
  ck_assert(!g->ops->ok(s));
  free(s);
}
END_TEST

/* T-CG-1 ... T-CG-5 (§10.1): the seed's games and remarks */
START_TEST(test_seed_examples)
{
  run_script("seed.txt");
}
END_TEST

/* CG-2 ... CG-14: the rules and the register beyond the seed's examples */
START_TEST(test_rules)
{
  run_script("rules.txt");
}
END_TEST

/* T-DM-1, T-RK-1, DM-1 ... DM-4, RK-1, RK-2, RK-6, HB-1, HB-4 (§10.2) */
START_TEST(test_variants)
{
  run_script("variants.txt");
}
END_TEST

/* T-V4-1, T-V4-2, V4-2, V4-3, V4-7, V4-8, V4-12, V4-13 (§5.3, §10.2) */
START_TEST(test_4x8)
{
  run_script("v4.txt");
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Cross-check with the chess core */

static uint64_t rng_state;

static uint64_t rng_next(void)
{
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static int rng_below(int n)
{
  return (int)(rng_next() % (uint64_t)n);
}

/* A random legal Chessgammon position with empty bars: each side some of
 * its army (a random subset, no more of a type than it started with),
 * pawns off their own first rank, sometimes an e.p. target. OUT: text. */
static void random_position(char *text, size_t cap, bool *has_ep)
{
  static const int start_count[6] = {8, 2, 2, 2, 1, 1};
  static const char letters[] = "PNBRQK";
  char board[64];
  int c, t, k, sq, side = rng_below(2), density = 2 + rng_below(6);
  size_t len = 0;
  int rank, file, empty;
  char ep[8] = "-";

  memset(board, 0, sizeof(board));
  for(c = 0; c < 2; c++)
    for(t = 0; t < 6; t++)
      for(k = 0; k < start_count[t]; k++) {
        if(rng_below(8) >= density)
          continue;
        do {
          sq = rng_below(64);
        } while(board[sq] || (t == 0 && ((c == 0 && sq < 8) || (c == 1 && sq >= 56))));
        board[sq] = c ? (char)(letters[t] - 'A' + 'a') : letters[t];
      }
  /* e.p.: the side not to move has a pawn on its fourth rank with the two
   * squares behind it empty, as after a two-step, and an enemy pawn beside */
  *has_ep = false;
  if(rng_below(3) == 0) {
    int mover = side ^ 1, f = rng_below(8), r4 = mover == 0 ? 3 : 4, dir = mover == 0 ? -1 : 1;
    int to = r4 * 8 + f, mid = to + 8 * dir, from = mid + 8 * dir;
    int nb = f > 0 && rng_below(2) ? to - 1 : f < 7 ? to + 1 : to - 1;
    char own = mover == 0 ? 'P' : 'p', enemy = mover == 0 ? 'p' : 'P';
    int npawns = 0, i;
    for(i = 0; i < 64; i++)
      npawns += board[i] == own;
    if(npawns < 8 || board[to] == own) {
      if(board[to] != own) {
        for(i = 0; i < 64; i++)
          if(board[i] == own) {
            board[i] = 0;
            break;
          }
      }
      board[to] = own;
      board[mid] = board[from] = 0;
      if(board[nb] != enemy) {
        int ne = 0;
        for(i = 0; i < 64; i++)
          ne += board[i] == enemy;
        if(ne == 8)
          for(i = 0; i < 64; i++)
            if(board[i] == enemy && i != nb) {
              board[i] = 0;
              break;
            }
        board[nb] = enemy;
      }
      snprintf(ep, sizeof(ep), "%c%c", 'a' + f, '1' + (mid >> 3));
      *has_ep = true;
    }
  }
  for(rank = 7; rank >= 0; rank--) {
    empty = 0;
    for(file = 0; file < 8; file++) {
      char ch = board[rank * 8 + file];
      if(!ch) {
        empty++;
        continue;
      }
      if(empty)
        text[len++] = (char)('0' + empty);
      empty = 0;
      text[len++] = ch;
    }
    if(empty)
      text[len++] = (char)('0' + empty);
    if(rank)
      text[len++] = '/';
  }
  snprintf(text + len, cap - len, " %c ep:%s", side ? 'b' : 'w', ep);
}

/* CG-2, CG-3 as an oracle of its own: piece vectors walked on a board
 * with one extra rank beyond each edge. OUT: out (from << 8 | file). */
static int oracle_off(const struct ref_chess_pos *p, int *out)
{
  static const int kn[8][2] = {{1, 2}, {2, 1}, {-1, 2}, {-2, 1}, {1, -2}, {2, -1}, {-1, -2}, {-2, -1}};
  int us = p->side, n = 0, sq, target = us == 0 ? 8 : -1, fwd = us == 0 ? 1 : -1;

  for(sq = 0; sq < 64; sq++) {
    int code = p->board[sq], f = sq & 7, r = sq >> 3, t, d, df, dr;
    if(!code || REF_CH_COLOR(code) != us)
      continue;
    t = REF_CH_TYPE(code);
    if(t == REF_CH_PAWN && r + fwd == target)
      out[n++] = sq << 8 | f;
    if(t == REF_CH_KNIGHT)
      for(d = 0; d < 8; d++)
        if(r + kn[d][1] == target && f + kn[d][0] >= 0 && f + kn[d][0] < 8)
          out[n++] = sq << 8 | (f + kn[d][0]);
    if(t == REF_CH_KING)
      for(df = -1; df <= 1; df++)
        for(dr = -1; dr <= 1; dr++)
          if(r + dr == target && f + df >= 0 && f + df < 8)
            out[n++] = sq << 8 | (f + df);
    if(t == REF_CH_BISHOP || t == REF_CH_ROOK || t == REF_CH_QUEEN)
      for(df = -1; df <= 1; df++)
        for(dr = -1; dr <= 1; dr++) {
          int k;
          if((!df && !dr) || (t == REF_CH_ROOK && df && dr) || (t == REF_CH_BISHOP && (!df || !dr)))
            continue;
          for(k = 1;; k++) {
            int ff = f + k * df, rr = r + k * dr;
            if(ff < 0 || ff > 7 || rr < -1 || rr > 8)
              break;
            if(rr == target) {
              out[n++] = sq << 8 | ff;
              break;
            }
            if(rr < 0 || rr > 7 || p->board[rr * 8 + ff])
              break;
          }
        }
  }
  return n;
}

static int cmp_int(const void *a, const void *b)
{
  return *(const int *)a - *(const int *)b;
}

START_TEST(test_crosscheck_chess_core)
{
  const struct ref_game_desc *g = ref_game_find("chessgammon");
  struct ref_state *s = ref_state_new(g);
  int compared = 0, tries = 0, with_ep = 0, offs_checked = 0;

  rng_state = 7;
  while(compared < 600 && tries < 50000) {
    char text[160];
    bool has_ep;
    struct ref_err err;
    const struct ref_cg_state *st = (const struct ref_cg_state *)(const void *)s;
    uint32_t halves[REF_CG_MAX_HALVES];
    uint16_t cm[REF_CH_MAX_MOVES];
    int a[REF_CG_MAX_HALVES], b[REF_CH_MAX_MOVES], off_a[64], off_b[64];
    int n, nc, na = 0, noa = 0, nob, i;
    struct ref_chess_pos cp;

    tries++;
    random_position(text, sizeof(text), &has_ep);
    if(g->ops->decode(s, text, &err) != REF_OK)
      continue; /* e.g. an e.p. target no pawn can take */
    n = ref_cg_gen(st, halves);
    for(i = 0; i < n; i++) {
      int kind = ref_cg_half_kind(halves[i]);
      ck_assert(kind == REF_CG_K_NORMAL || kind == REF_CG_K_EP || kind == REF_CG_K_OFF);
      if(kind == REF_CG_K_OFF)
        off_a[noa++] = ref_cg_half_from(halves[i]) << 8 | ref_cg_half_to(halves[i]);
      else
        a[na++] = (int)ref_chess_move(ref_cg_half_from(halves[i]), ref_cg_half_to(halves[i]),
                                      kind == REF_CG_K_EP ? REF_CH_MV_EP : REF_CH_MV_NORMAL, 0);
    }
    /* CG-2/CG-3 against the oracle, in every position */
    nob = oracle_off(&st->pos, off_b);
    qsort(off_a, (size_t)noa, sizeof(int), cmp_int);
    qsort(off_b, (size_t)nob, sizeof(int), cmp_int);
    ck_assert_msg(noa == nob && !memcmp(off_a, off_b, (size_t)noa * sizeof(int)),
                  "bear-offs differ from the oracle in %s", text);
    offs_checked++;
    if(noa)
      continue; /* a piece can reach rank 9: not a position for the chess comparison */
    /* The chess core's pseudo-legal moves, minus castling and promotion,
     * with the same e.p. target. */
    cp = st->pos;
    if(st->ep[0] != REF_CH_NO_SQ)
      cp.ep = st->ep[0];
    nc = ref_chess_gen_pseudo(&cp, REF_CH_GEN_NO_CASTLE | REF_CH_GEN_NO_PROMO, cm);
    for(i = 0; i < nc; i++)
      b[i] = cm[i];
    qsort(a, (size_t)na, sizeof(int), cmp_int);
    qsort(b, (size_t)nc, sizeof(int), cmp_int);
    ck_assert_msg(na == nc && !memcmp(a, b, (size_t)na * sizeof(int)),
                  "Chessgammon %d moves, chess core %d in %s", na, nc, text);
    compared++;
    with_ep += st->ep[0] != REF_CH_NO_SQ;
  }
  ck_assert_int_ge(compared, 500);
  ck_assert_int_ge(with_ep, 20);
  printf("cross-check: %d positions compared with the chess core (%d with e.p.), "
         "bear-offs checked in %d\n", compared, with_ep, offs_checked);
  fflush(stdout);
  free(s);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* Seeded random playouts */

#define PLAYOUT_GAMES 1000

struct tally {
  long games, capped, wins[2], draws, ends[REF_END_LAST], turns;
};

static void playouts(const char *name, const char *options, int games, int cap, struct tally *t)
{
  const struct ref_game_desc *g = ref_game_find(name);
  struct ref_state *s;
  struct ref_movelist list = {0};
  struct ref_status st;
  struct ref_err err;
  int game, turn;

  ck_assert_ptr_nonnull(g);
  s = ref_state_new(g);
  memset(t, 0, sizeof(*t));
  for(game = 0; game < games; game++) {
    rng_state = (uint64_t)game * 1000003u + 17;
    REQUIRE(g->ops->init(s, options, &err) == REF_OK, "init");
    for(turn = 0; turn < cap; turn++) {
      const struct ref_move *m;
      g->ops->status(s, &st);
      if(st.phase == REF_PHASE_OVER)
        break;
      REQUIRE(st.phase == REF_PHASE_MOVE, "%s game %d: phase %d", name, game, st.phase);
      ref_movelist_clear(&list);
      REQUIRE(g->ops->legal(s, &list) == REF_OK && list.n > 0,
              "%s game %d: no legal move, not even a pass", name, game);
      m = &list.v[rng_below((int)list.n)];
      REQUIRE(g->ops->apply(s, m) == REF_OK, "%s game %d turn %d: apply", name, game, turn);
      check_invariants(g, s, name);
      if(options)
        check_roundtrip(g, s); /* RK-1 "array:rk", CGA-2 "armies:" survive decode */
    }
    g->ops->status(s, &st);
    t->games++;
    t->turns += turn;
    if(st.phase != REF_PHASE_OVER) {
      t->capped++;
      continue;
    }
    if(st.winner >= 0)
      t->wins[st.winner]++;
    else
      t->draws++;
    t->ends[st.end]++;
  }
  ref_movelist_free(&list);
  free(s);
}

static void print_tally(const char *name, int cap, const struct tally *t, double secs)
{
  int e;
  printf("| %-14s | %5ld | %4d | %6ld | %6ld | %5ld | %6ld | %6.1f | %5.1f |", name, t->games,
         cap, t->wins[0], t->wins[1], t->draws, t->capped, (double)t->turns / (double)t->games,
         secs);
  for(e = 1; e < REF_END_LAST; e++)
    if(t->ends[e])
      printf(" %s %ld", ref_end_name((enum ref_end)e), t->ends[e]);
  printf("\n");
  fflush(stdout);
}

static void run_playouts(const char *name, int cap)
{
  struct tally t;
  clock_t c0 = clock();
  playouts(name, NULL, PLAYOUT_GAMES, cap, &t);
  print_tally(name, cap, &t, (double)(clock() - c0) / CLOCKS_PER_SEC);
  ck_assert_int_eq(t.games, PLAYOUT_GAMES);
}

START_TEST(test_playouts_chessgammon)
{
  run_playouts("chessgammon", 1500);
}
END_TEST

START_TEST(test_playouts_doublemove)
{
  run_playouts("doublemove", 400);
}
END_TEST

START_TEST(test_playouts_racingkings)
{
  run_playouts("racingkings", 1000);
}
END_TEST

/* RK-1 rk_array: a short seeded set in the Racing Kings array, every
 * state through ops->ok and the invariants above (8 a side, RK-2), the
 * position string round-tripping with its "array:rk". */
START_TEST(test_playouts_racingkings_rk_array)
{
  const struct ref_game_desc *g = ref_game_find("racingkings");
  struct ref_state *s = ref_state_new(g);
  struct ref_err err;
  struct tally t;
  long ended;
  int e;
  clock_t c0;

  ck_assert_int_eq(g->ops->init(s, "rk_array=on", &err), REF_OK);
  check_roundtrip(g, s);
  free(s);
  c0 = clock();
  playouts("racingkings", "rk_array=on", 200, 1000, &t);
  print_tally("rk_array", 1000, &t, (double)(clock() - c0) / CLOCKS_PER_SEC);
  ck_assert_int_eq(t.games, 200);
  for(ended = 0, e = 1; e < REF_END_LAST; e++)
    ended += t.ends[e];
  ck_assert_int_eq(ended + t.capped, 200);
}
END_TEST

/* CGA-1 ... CGA-4: every pairing of armies in each 8x8 system, a short
 * seeded set, every state through the invariants and the position string
 * round-tripping with its "armies:" (tests/oracles/cg_armies.py compares
 * the moves themselves with an independent generator). */
START_TEST(test_playouts_armies)
{
  static const char *const systems[] = {"chessgammon", "doublemove", "racingkings", "bodlaender"};
  static const char *const armies[] = {"fide", "clobberers", "nutty", "rookies"};
  struct tally t;
  char opts[64];
  size_t i, w, b;
  long games = 0;

  for(i = 0; i < sizeof(systems) / sizeof(systems[0]); i++)
    for(w = 0; w < 4; w++)
      for(b = 0; b < 4; b++) {
        snprintf(opts, sizeof(opts), "armies=%s/%s", armies[w], armies[b]);
        playouts(systems[i], opts, 2, 300, &t);
        games += t.games;
      }
  ck_assert_int_eq(games, 4 * 16 * 2);
}
END_TEST

START_TEST(test_playouts_bodlaender)
{
  run_playouts("bodlaender", 1000);
}
END_TEST

START_TEST(test_playouts_4x8)
{
  run_playouts("chessgammon4x8", 1000);
}
END_TEST

/* CG-12: with fifty_moves=on a claim succeeds after 100 turns (fifty of
 * each side) without capture, pawn move, bring-in or bear-off; off by
 * default. Random quiet piece moves, no pawns on the board. */
static void fifty_walk(const char *options, bool want_claimable)
{
  const struct ref_game_desc *g = ref_game_find("chessgammon");
  struct ref_state *s = ref_state_new(g);
  struct ref_movelist list = {0};
  struct ref_status st;
  struct ref_err err;
  char opts[200];
  int turn;

  snprintf(opts, sizeof(opts), "%sfen=rnbqkbnr/8/8/8/8/8/8/RNBQKBNR_w", options);
  ck_assert_int_eq(g->ops->init(s, opts, &err), REF_OK);
  rng_state = 99;
  for(turn = 0; turn < 100; turn++) {
    const struct ref_cg_state *cs = (const struct ref_cg_state *)(const void *)s;
    size_t i, k = 0;
    struct ref_move quiet[REF_CG_MAX_HALVES];
    g->ops->status(s, &st);
    ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
    /* no claim yet: fewer than 100 turns, and no threefold repetition */
    ck_assert(!st.draw_claimable);
    ref_movelist_clear(&list);
    ck_assert_int_eq(g->ops->legal(s, &list), REF_OK);
    for(i = 0; i < list.n; i++) {
      uint32_t h = list.v[i].w[0];
      if(ref_cg_half_kind(h) == REF_CG_K_NORMAL &&
         cs->pos.board[ref_cg_half_to(h)] == REF_CH_EMPTY && ref_cg_half_to(h) >= 16 &&
         ref_cg_half_to(h) < 48)
        quiet[k++] = list.v[i];
      else if(ref_cg_half_kind(h) == REF_CG_K_NORMAL &&
              cs->pos.board[ref_cg_half_to(h)] == REF_CH_EMPTY && k == 0 && i + 1 == list.n)
        quiet[k++] = list.v[i];
    }
    ck_assert_uint_gt(k, 0);
    ck_assert_int_eq(g->ops->apply(s, &quiet[rng_below((int)k)]), REF_OK);
    check_invariants(g, s, "fifty");
  }
  g->ops->status(s, &st);
  ck_assert_int_eq(st.draw_claimable, want_claimable);
  ck_assert_int_eq(g->ops->act(s, st.turn, REF_ACT_DRAW_CLAIM, 0, &err) == REF_OK, want_claimable);
  if(want_claimable) {
    g->ops->status(s, &st);
    ck_assert_str_eq(ref_end_name(st.end), "fifty-moves");
  }
  ref_movelist_free(&list);
  free(s);
}

START_TEST(test_fifty_moves_option)
{
  fifty_walk("fifty_moves=on;", true); /* CG-12 on */
  fifty_walk("", false);               /* CG-12: off by default */
}
END_TEST

/* ------------------------------------------------------------------------ */
/* The board: 72 columns at most, both bars and the borne-off counts. */

START_TEST(test_render)
{
  static const char *const names[] = {"chessgammon", "doublemove", "racingkings", "bodlaender",
                                      "chessgammon4x8"};
  size_t i;

  for(i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    const struct ref_game_desc *g = ref_game_find(names[i]);
    struct ref_state *s = ref_state_new(g);
    struct ref_err err;
    char buf[2048], *line;
    int seat;
    ck_assert_int_eq(g->ops->init(s, NULL, &err), REF_OK);
    if(!strcmp(names[i], "chessgammon4x8"))
      ck_assert_int_eq(g->ops->decode(s, "(rn)(qb)(kb)n/(pp)(pp)(pp)(pp)/4/4/4/4/(PP)(PP)(PP)(PP)/"
                                         "(RN)(QB)(KB)(RN) w bar:r", &err),
                       REF_OK);
    else if(strcmp(names[i], "bodlaender"))
      ck_assert_int_eq(g->ops->decode(s, "rnbqkbn1/pppppppQ/8/8/8/8/PPPPPPPP/1NB1KBNR w bar:r",
                                      &err),
                       REF_OK);
    for(seat = 0; seat < 2; seat++) {
      char *save = NULL;
      ck_assert_int_eq(g->ops->render(s, seat, buf, sizeof(buf)), REF_OK);
      ck_assert_ptr_nonnull(strstr(buf, "White bar:"));
      ck_assert_ptr_nonnull(strstr(buf, "Black bar:"));
      ck_assert_ptr_nonnull(strstr(buf, "off:"));
      if(strcmp(names[i], "bodlaender"))
        ck_assert_ptr_nonnull(strstr(buf, "Black bar: r"));
      for(line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        ck_assert_int_le(strlen(line), 72);
    }
    ck_assert_int_eq(g->ops->render(s, 0, buf, 10), REF_EINVAL);
    free(s);
  }
}
END_TEST

/* Every registered member of the family: descriptors and ops complete. */
START_TEST(test_registered)
{
  static const char *const names[] = {"chessgammon", "doublemove", "racingkings", "bodlaender",
                                      "chessgammon4x8"};
  size_t i;
  for(i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    const struct ref_game_desc *g = ref_game_find(names[i]);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(g->seats, 2);
    ck_assert(!(g->flags & REF_GAME_DICE));
    ck_assert(g->flags & REF_GAME_DRAWS);
    ck_assert_ptr_nonnull(g->ops->ok);
    ck_assert_ptr_null(g->ops->roll);
  }
  ck_assert_str_eq(ref_end_name(REF_END_SAME_MOVE_NUMBER), "same-move-number");
}
END_TEST

static Suite *chessgammon_suite(void)
{
  Suite *suite = suite_create("chessgammon");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_registered);
  tcase_add_test(tc, test_seed_examples);
  tcase_add_test(tc, test_rules);
  tcase_add_test(tc, test_variants);
  tcase_add_test(tc, test_4x8);
  tcase_add_test(tc, test_armies);
  tcase_add_test(tc, test_fifty_moves_option);
  tcase_add_test(tc, test_render);
  tcase_add_test(tc, test_crosscheck_chess_core);
  suite_add_tcase(suite, tc);
  tc = tcase_create("playouts");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_playouts_chessgammon);
  tcase_add_test(tc, test_playouts_doublemove);
  tcase_add_test(tc, test_playouts_racingkings);
  tcase_add_test(tc, test_playouts_racingkings_rk_array);
  tcase_add_test(tc, test_playouts_bodlaender);
  tcase_add_test(tc, test_playouts_armies);
  tcase_add_test(tc, test_playouts_4x8);
  suite_add_tcase(suite, tc);
  return suite;
}

int main(void)
{
  printf("| system         | games |  cap | White  | Black  | draws | capped | turns  | secs  |"
         " ends\n");
  fflush(stdout);
  return unit_run(chessgammon_suite());
}
