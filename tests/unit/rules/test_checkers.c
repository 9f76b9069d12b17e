/*
 * test_checkers.c: English checkers (referee/rules/checkers.c) and the
 * shared man/king generator (checkers_int.h).
 *
 * Sources of truth, none of them our own code:
 * - published perft from the start position, OEIS A133046 (shared
 *   oracles.md 3.1): tests/data/checkers/perft.txt;
 * - npm rapid-draughts 1.0.6 through tests/oracles/checkers_oracle.mjs:
 *   divide of the start position and of 240 random positions, perft of 8
 *   more (tests/oracles/gen_checkers_divide.sh wrote divide_start.txt,
 *   divide_random.txt and perft_oracle.txt);
 * - hand-checked positions for what rapid-draughts gets wrong (king ring
 *   captures) and for docs/rules-spec.md section 3 (T-CK-1, CK-1, CK-2);
 * - the square numbering diagram of rules-spec 3.1, recomputed here.
 */
#include "checkers_int.h"
#include "rules.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TABULA_TEST_DATA "/checkers/"

static const struct ref_game_desc *game(void)
{
  const struct ref_game_desc *g = ref_game_find("checkers");
  ck_assert_ptr_nonnull(g);
  return g;
}

/* A state set up from PDN; the caller frees it. */
static struct ref_state *from_fen(const char *fen)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = ref_state_new(g);
  struct ref_err err;
  int rc;

  ck_assert_ptr_nonnull(s);
  rc = g->ops->decode(s, fen, &err);
  ck_assert_msg(rc == REF_OK, "decode %s: %d %s %s", fen, rc, err.reason, err.detail);
  ck_assert(g->ops->ok(s));
  return s;
}

static struct ref_state *start(const char *options)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = ref_state_new(g);
  struct ref_err err;

  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(g->ops->init(s, options, &err), REF_OK);
  ck_assert(g->ops->ok(s));
  return s;
}

/* Parses and plays one move, checking the invariants after it. */
static void play(struct ref_state *s, const char *text)
{
  const struct ref_game_desc *g = game();
  struct ref_move m;
  struct ref_err err;
  int rc = g->ops->parse(s, text, &m, &err);

  ck_assert_msg(rc == REF_OK, "parse '%s': %d %s %s", text, rc, err.reason, err.detail);
  ck_assert_int_eq(g->ops->apply(s, &m), REF_OK);
  ck_assert_msg(g->ops->ok(s), "invariants broken after %s", text);
}

static void encode(const struct ref_state *s, char *buf, size_t cap)
{
  ck_assert_int_eq(game()->ops->encode(s, buf, cap), REF_OK);
}

/* The legal moves of s in `style`, sorted, joined by spaces into buf. */
static void legal_text(const struct ref_state *s, enum ref_notation style, char *buf, size_t cap)
{
  const struct ref_game_desc *g = game();
  struct ref_movelist list = {0};
  char **v;
  size_t i, len = 0;

  ck_assert_int_eq(g->ops->legal(s, &list), REF_OK);
  v = calloc(list.n + 1, sizeof(*v));
  ck_assert_ptr_nonnull(v);
  for(i = 0; i < list.n; i++) {
    v[i] = malloc(REF_NOTATION_MAX);
    ck_assert_int_eq(g->ops->format(s, &list.v[i], style, v[i], REF_NOTATION_MAX), REF_OK);
  }
  qsort(v, list.n, sizeof(*v), ts_cmp_str);
  buf[0] = '\0';
  for(i = 0; i < list.n; i++) {
    len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? " " : "", v[i]);
    ck_assert(len < cap);
    free(v[i]);
  }
  free(v);
  ref_movelist_free(&list);
}

/* Square n (1..32) in algebraic notation, from the diagram of rules-spec
 * 3.1: four squares a row from rank 8 down; rows starting at rank 8, 6, 4,
 * 2 begin on the b-file. */
static void square_name(int n, char out[3])
{
  int row = (n - 1) / 4, col = (n - 1) % 4;
  out[0] = (char)('a' + 2 * col + (row % 2 == 0 ? 1 : 0));
  out[1] = (char)('8' - row);
  out[2] = '\0';
}

/* A small PRNG for the playouts (the tests may be random; the core may not). */
static uint64_t rng_state;
static uint32_t rng(void)
{
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (uint32_t)(rng_state >> 11);
}

/* ---- descriptor ---- */

START_TEST(test_checkers_desc_registry)
{
  const struct ref_game_desc *g = game();
  size_t i;
  bool listed = false;

  ck_assert_str_eq(g->name, "checkers");
  ck_assert_str_eq(g->title, "English checkers");
  ck_assert_int_eq(g->version, 1);
  ck_assert_int_eq(g->seats, 2);
  /* CK-1: Black is seat 0 and moves first. */
  ck_assert_str_eq(g->seat_names[0], "Black");
  ck_assert_str_eq(g->seat_names[1], "White");
  ck_assert_uint_eq(g->flags, REF_GAME_DRAWS);
  ck_assert_ptr_null(g->ops->roll);
  ck_assert_ptr_nonnull(g->ops->perft);
  ck_assert_ptr_nonnull(g->ops->ok);
  for(i = 0; ref_game_at(i); i++)
    listed = listed || ref_game_at(i) == g;
  ck_assert(listed);
}
END_TEST

/* ---- geometry ---- */

START_TEST(test_checkers_geom_draughts)
{
  int8_t cell_of[64];
  struct ref_ck_geom built;
  int n, x, y;

  memset(cell_of, -1, sizeof(cell_of));
  for(n = 1; n <= 32; n++) {
    char sq[3];
    square_name(n, sq);
    cell_of[(sq[1] - '1') * 8 + (sq[0] - 'a')] = (int8_t)(n - 1);
  }
  /* a1 is dark (rules-spec 3.1): exactly the squares with file + rank even. */
  for(y = 0; y < 8; y++)
    for(x = 0; x < 8; x++)
      ck_assert_int_eq(cell_of[y * 8 + x] >= 0, (x + y) % 2 == 0);
  ck_assert_int_eq(ref_ck_geom_build(&built, 8, 8, cell_of, false), 0);
  ck_assert_int_eq(built.ncells, 32);
  ck_assert_int_eq(ref_ck_geom_draughts.ncells, 32);
  ck_assert(!memcmp(built.nb, ref_ck_geom_draughts.nb, sizeof(built.nb)));
  /* Spot checks against the diagram: 1 = b8 touches 5 (a7) and 6 (c7);
   * 32 = g1 touches 27 (f2) and 28 (h2); 14 = c5 touches 9, 10, 17, 18. */
  ck_assert_int_eq(ref_ck_geom_draughts.nb[0][REF_CK_NE], -1);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[0][REF_CK_NW], -1);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[0][REF_CK_SW], 4);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[0][REF_CK_SE], 5);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[31][REF_CK_NW], 26);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[31][REF_CK_NE], 27);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[31][REF_CK_SE], -1);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[13][REF_CK_NW], 8);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[13][REF_CK_NE], 9);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[13][REF_CK_SW], 16);
  ck_assert_int_eq(ref_ck_geom_draughts.nb[13][REF_CK_SE], 17);
  ck_assert_int_eq(ref_ck_dir_between(&ref_ck_geom_draughts, 13, 6, true), REF_CK_NE);
  ck_assert_int_eq(ref_ck_dir_between(&ref_ck_geom_draughts, 13, 6, false), -1);
  /* Inconsistent tables are refused. */
  cell_of[0] = 5;
  ck_assert_int_eq(ref_ck_geom_build(&built, 8, 8, cell_of, false), -1);
}
END_TEST

START_TEST(test_checkers_geom_wrap64)
{
  int8_t cell_of[64];
  struct ref_ck_geom built;
  int i;

  for(i = 0; i < 64; i++)
    cell_of[i] = (int8_t)i;
  ck_assert_int_eq(ref_ck_geom_build(&built, 8, 8, cell_of, true), 0);
  ck_assert(!memcmp(built.nb, ref_ck_geom_wrap64.nb, sizeof(built.nb)));
  /* rules-spec 6.3 / T-BC-2: from c8 a White stone steps to b1 or d1;
   * files do not wrap: nothing west of the a-file. */
  ck_assert_int_eq(ref_ck_geom_wrap64.nb[58][REF_CK_NE], 3);
  ck_assert_int_eq(ref_ck_geom_wrap64.nb[58][REF_CK_NW], 1);
  ck_assert_int_eq(ref_ck_geom_wrap64.nb[0][REF_CK_SW], -1);
  ck_assert_int_eq(ref_ck_geom_wrap64.nb[0][REF_CK_SE], 57); /* a1 -> b8 for Black */
}
END_TEST

/* Collects paths as "from>to>to" strings (cells of the geometry). */
struct collect {
  int n;
  char v[16][64];
};

static int collect_path(void *ctx, const struct ref_ck_path *p)
{
  struct collect *c = ctx;
  size_t len;
  int i;

  ck_assert_int_lt(c->n, 16);
  len = (size_t)snprintf(c->v[c->n], 64, "%d", p->from);
  for(i = 0; i < p->nhops; i++)
    len += (size_t)snprintf(c->v[c->n] + len, 64 - len, "%c%d", p->capture ? 'x' : '-', p->to[i]);
  c->n++;
  return 0;
}

/* The generator on the board of Backgammon Chess stones (rules-spec 6.3,
 * BC-5): wrapping ranks, no compulsion, no crowning stop. */
START_TEST(test_checkers_gen_stones)
{
  struct ref_ck_board b;
  struct collect c;

  b.geom = &ref_ck_geom_wrap64;
  /* T-BC-2: White V on d5 (35), Black pawn on e6 (44), f7 (53) empty. */
  b.occupied = UINT64_C(1) << 35 | UINT64_C(1) << 44;
  b.enemy = UINT64_C(1) << 44;
  memset(&c, 0, sizeof(c));
  ck_assert_int_eq(ref_ck_jumps(&b, 35, REF_CK_NORTH, 0, collect_path, &c), 0);
  ck_assert_int_eq(c.n, 1);
  ck_assert_str_eq(c.v[0], "35x53");
  /* A V on c8 (58) steps forward to b1 (1) or d1 (3). */
  b.occupied = UINT64_C(1) << 58;
  b.enemy = 0;
  memset(&c, 0, sizeof(c));
  ck_assert_int_eq(ref_ck_steps(&b, 58, REF_CK_NORTH, collect_path, &c), 0);
  ck_assert_int_eq(c.n, 2);
  ck_assert_str_eq(c.v[0], "58-3");
  ck_assert_str_eq(c.v[1], "58-1");
  /* From c7 (50) over d8 (59) to e1 (4), then on over f2 (13) to g3 (22):
   * the jump goes on, across the wrap, and is not stopped on rank 8 or 1. */
  b.occupied = UINT64_C(1) << 50 | UINT64_C(1) << 59 | UINT64_C(1) << 13;
  b.enemy = UINT64_C(1) << 59 | UINT64_C(1) << 13;
  memset(&c, 0, sizeof(c));
  ck_assert_int_eq(ref_ck_jumps(&b, 50, REF_CK_NORTH, 0, collect_path, &c), 0);
  ck_assert_int_eq(c.n, 1);
  ck_assert_str_eq(c.v[0], "50x4x22");
  /* The same jump with rank 1 as a stop row ends there. */
  memset(&c, 0, sizeof(c));
  ck_assert_int_eq(ref_ck_jumps(&b, 50, REF_CK_NORTH, UINT64_C(0xff), collect_path, &c), 0);
  ck_assert_int_eq(c.n, 1);
  ck_assert_str_eq(c.v[0], "50x4");
  ck_assert(ref_ck_can_jump(&b, 50, REF_CK_NORTH));
  ck_assert(!ref_ck_can_jump(&b, 50, REF_CK_SOUTH));
  /* A doubled stone (X, like a king) also jumps backward. */
  b.occupied = UINT64_C(1) << 27 | UINT64_C(1) << 18;
  b.enemy = UINT64_C(1) << 18;
  memset(&c, 0, sizeof(c));
  ck_assert_int_eq(ref_ck_jumps(&b, 27, REF_CK_NORTH, 0, collect_path, &c), 0);
  ck_assert_int_eq(c.n, 0);
  ck_assert_int_eq(ref_ck_jumps(&b, 27, REF_CK_ALL, 0, collect_path, &c), 0);
  ck_assert_int_eq(c.n, 1);
  ck_assert_str_eq(c.v[0], "27x9");
}
END_TEST

/* ---- perft and divide against published and oracle numbers ---- */

/* Checks every "FEN ;D1 n ;D2 n ..." line of an EPD-style file up to
 * max_depth; returns the number of lines. */
static int check_perft_file(const char *path, int max_depth)
{
  const struct ref_game_desc *g = game();
  char *text = ts_read(path), *line, *save = NULL;
  int lines = 0;

  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *semi = strchr(line, ';'), *p;
    struct ref_state *s;
    if(line[0] == '#' || !semi)
      continue;
    *semi = '\0';
    while(semi > line && semi[-1] == ' ')
      *--semi = '\0';
    s = from_fen(line);
    p = semi + 1;
    while(*p) {
      int depth;
      unsigned long long want;
      ck_assert_int_eq(sscanf(p, "D%d %llu", &depth, &want), 2);
      if(depth <= max_depth) {
        ck_assert_msg(g->ops->perft(s, depth) == want, "%s perft %d: %llu, want %llu", line,
                      depth, (unsigned long long)g->ops->perft(s, depth), want);
        ck_assert(ref_perft(g, s, depth) == want);
      }
      p = strchr(p, ';');
      if(!p)
        break;
      p++;
      while(*p == ' ')
        p++;
    }
    free(s);
    lines++;
  }
  free(text);
  return lines;
}

START_TEST(test_checkers_perft_published)
{
  /* OEIS A133046 to depth 8; 9 and 10 run in bench/checkers_perft.sh. */
  ck_assert_int_eq(check_perft_file(DATA "perft.txt", 8), 1);
}
END_TEST

START_TEST(test_checkers_perft_oracle)
{
  ck_assert_int_eq(check_perft_file(DATA "perft_oracle.txt", 6), 8);
}
END_TEST

/* Perft by legal/apply on full states, to check that ops->perft (which
 * recurses on the bare board) and the game's own moves agree. */
static uint64_t walk(const struct ref_state *s, int depth)
{
  const struct ref_game_desc *g = game();
  struct ref_movelist list = {0};
  struct ref_state *child = ref_state_new(g);
  uint64_t n = 0;
  size_t i;

  if(depth == 0) {
    free(child);
    return 1;
  }
  ck_assert_int_eq(g->ops->legal(s, &list), REF_OK);
  for(i = 0; i < list.n; i++) {
    memcpy(child, s, g->state_size);
    ck_assert_int_eq(g->ops->apply(child, &list.v[i]), REF_OK);
    ck_assert(g->ops->ok(child));
    n += walk(child, depth - 1);
  }
  free(child);
  ref_movelist_free(&list);
  return n;
}

/*
 * Checks every divide block of a golden file: "position FEN depth D", then
 * sorted "MOVE: n" lines in computer notation, then "total N". Returns the
 * number of blocks.
 */
static int check_divide_file(const char *path)
{
  const struct ref_game_desc *g = game();
  char *text = ts_read(path), *line, *save = NULL;
  char want[4096], got[4096], fen[256];
  int blocks = 0, depth = 0;
  size_t wlen = 0;
  bool in_block = false;

  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    unsigned long long total;
    if(line[0] == '#')
      continue;
    if(!strncmp(line, "position ", 9)) {
      ck_assert_int_eq(sscanf(line, "position %255s depth %d", fen, &depth), 2);
      in_block = true;
      wlen = 0;
      want[0] = '\0';
      continue;
    }
    ck_assert(in_block);
    if(sscanf(line, "total %llu", &total) == 1) {
      struct ref_state *s = from_fen(fen), *child = ref_state_new(g);
      struct ref_movelist list = {0};
      char **v;
      size_t i, glen = 0;
      uint64_t sum = 0;
      ck_assert_int_eq(g->ops->legal(s, &list), REF_OK);
      v = calloc(list.n + 1, sizeof(*v));
      for(i = 0; i < list.n; i++) {
        char mv[REF_NOTATION_MAX];
        uint64_t n;
        ck_assert_int_eq(g->ops->format(s, &list.v[i], REF_NOTATION_COMPUTER, mv, sizeof(mv)),
                         REF_OK);
        memcpy(child, s, g->state_size);
        ck_assert_int_eq(g->ops->apply(child, &list.v[i]), REF_OK);
        n = g->ops->perft(child, depth - 1);
        sum += n;
        v[i] = malloc(REF_NOTATION_MAX + 24);
        snprintf(v[i], REF_NOTATION_MAX + 24, "%s: %llu", mv, (unsigned long long)n);
      }
      qsort(v, list.n, sizeof(*v), ts_cmp_str);
      got[0] = '\0';
      for(i = 0; i < list.n; i++) {
        glen += (size_t)snprintf(got + glen, sizeof(got) - glen, "%s\n", v[i]);
        free(v[i]);
      }
      free(v);
      ck_assert_msg(!strcmp(got, want), "divide %s depth %d:\n%s\nwant:\n%s", fen, depth, got,
                    want);
      ck_assert_msg(sum == total, "%s total %llu want %llu", fen, (unsigned long long)sum, total);
      ck_assert(g->ops->perft(s, depth) == total);
      if(blocks % 20 == 0) /* the slow generic walk on a sample */
        ck_assert(walk(s, depth) == total);
      ref_movelist_free(&list);
      free(child);
      free(s);
      blocks++;
      in_block = false;
      continue;
    }
    wlen += (size_t)snprintf(want + wlen, sizeof(want) - wlen, "%s\n", line);
    ck_assert(wlen < sizeof(want));
  }
  free(text);
  return blocks;
}

START_TEST(test_checkers_divide_start)
{
  /* oracles.md 3.1: 10-14 175, 10-15 185, 11-15 184, 11-16 244, 12-16 237,
   * 9-13 264, 9-14 180 (total 1469). */
  ck_assert_int_eq(check_divide_file(DATA "divide_start.txt"), 1);
}
END_TEST

START_TEST(test_checkers_divide_random)
{
  ck_assert_int_ge(check_divide_file(DATA "divide_random.txt"), 200);
}
END_TEST

/* ---- rules-spec section 3 by hand ---- */

/*
 * King ring captures, where rapid-draughts is wrong (oracles.md 3.2): it
 * keeps the moving king's origin occupied during the jump. By rules-spec
 * 3.2 the king leaves its square when it starts jumping (only captured
 * pieces stay until the move ends), so WK14 (c5) with Black on 10 (d6),
 * 11 (f6), 19 (f4) and 18 (d4) jumps d6 to e7 (7), f6 to g5 (16), f4 to e3
 * (23) and d4 back to c5 (14): all four pieces, and the same ring the other
 * way round is a second move (each path is a move; the published perft
 * counts such routes separately). No other first jump exists, and no jump
 * follows on either ring, so these two are all the moves.
 */
START_TEST(test_checkers_ring_capture)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = from_fen("W:WK14:B10,11,18,19");
  struct ref_move m;
  struct ref_err err;
  struct ref_status st;
  char buf[512];

  legal_text(s, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "14x23x16x7x14 14x7x16x23x14");
  legal_text(s, REF_NOTATION_COMPUTER, buf, sizeof(buf));
  ck_assert_str_eq(buf, "14x14 [10,11,18,19] 14x14 [10,11,18,19]");
  ck_assert_uint_eq(g->ops->perft(s, 1), 2);
  /* Same ends: the path must be spelled out (rules-spec 3.4). */
  ck_assert_int_eq(g->ops->parse(s, "14x14", &m, &err), REF_EAMBIGUOUS);
  ck_assert_str_eq(err.reason, "ck-path-ambiguous");
  ck_assert_int_eq(err.nsuggest, 2);
  ck_assert_int_eq(g->ops->parse(s, "c5xc5", &m, &err), REF_EAMBIGUOUS);
  /* One intermediate square that only one ring visits first is enough. */
  ck_assert_int_eq(g->ops->parse(s, "14x7x16x14", &m, &err), REF_OK);
  g->ops->format(s, &m, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "14x7x16x23x14");
  play(s, "14x23x16x7x14");
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "B:WK14:B");
  /* Black has nothing left: no move, so Black loses (rules-spec 3.3). */
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 1);
  ck_assert_int_eq(st.end, REF_END_NO_MOVES);
  free(s);

  /*
   * The king may also cross its origin and go on: add Black on 9 (b6).
   * Either ring comes back to c5 and then takes b6 to a7 (5); taking b6
   * first lands on a7, which ends the move (b8 and a7's other neighbours
   * hold nothing to take). rapid-draughts cannot land on c5 mid-move, so
   * it would miss both long moves.
   */
  s = from_fen("W:WK14:B9,10,11,18,19");
  legal_text(s, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "14x23x16x7x14x5 14x5 14x7x16x23x14x5");
  /* "14x5" is the one-jump move written in full, not an ambiguous end. */
  ck_assert_int_eq(g->ops->parse(s, "14x5", &m, &err), REF_OK);
  g->ops->format(s, &m, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "14x5");
  ck_assert_int_eq(g->ops->parse(s, "14x16x5", &m, &err), REF_EAMBIGUOUS);
  ck_assert_int_eq(g->ops->parse(s, "14x7x16x5", &m, &err), REF_OK);
  free(s);
}
END_TEST

START_TEST(test_checkers_tck1)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = start(NULL);
  struct ref_move m;
  struct ref_err err;
  char buf[256];

  /* T-CK-1 (rules-spec 10.4): 11-15 24-20 15-19. */
  play(s, "11-15");
  play(s, "24-20");
  play(s, "15-19");
  /* White must jump; 23x16 is the only legal move. */
  legal_text(s, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "23x16");
  ck_assert_int_eq(g->ops->parse(s, "22-18", &m, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "ck-must-capture");
  ck_assert_int_eq(err.nsuggest, 1);
  ck_assert_str_eq(err.suggest[0], "23x16");
  play(s, "23x16");
  /* Black must recapture 12x19. */
  legal_text(s, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "12x19");
  ck_assert_int_eq(g->ops->parse(s, "9-13", &m, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "ck-must-capture");
  play(s, "12x19");
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "W:W20-22,25-32:B1-10,19");
  free(s);
}
END_TEST

START_TEST(test_checkers_crown_ends_move)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = from_fen("W:W11:B7,6");
  struct ref_move m;
  struct ref_err err;
  char buf[256];

  /* 11 (f6) takes 7 (e7) and lands on 2 (d8), White's crown row. As a king
   * it could take 6 (c7) next, but a man that is crowned stops (rules-spec
   * 3.2, seed 004): 11x2 is the only move. */
  legal_text(s, REF_NOTATION_COMPUTER, buf, sizeof(buf));
  ck_assert_str_eq(buf, "11x2 [7]");
  ck_assert_int_eq(g->ops->parse(s, "11x2x9", &m, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "ck-crowned-stops");
  play(s, "11x2");
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "B:WK2:B6");
  free(s);

  /* The same for Black: 22 (c3) takes 26 (d2), is crowned on 31 (e1) and
   * does not go on over 27 (f2). */
  s = from_fen("B:W26,27:B22");
  legal_text(s, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "22x31");
  play(s, "22x31");
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "W:W27:BK31");
  free(s);
}
END_TEST

START_TEST(test_checkers_ambiguous_path)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = from_fen("W:W22:B9,10,17,18");
  struct ref_move m;
  struct ref_err err;
  char buf[64];

  /* The man on 22 (c3) reaches 6 (c7) by e5 (taking 18, 10) or by a5
   * (taking 17, 9): same ends, different pieces. */
  ck_assert_int_eq(g->ops->parse(s, "22x6", &m, &err), REF_EAMBIGUOUS);
  ck_assert_str_eq(err.reason, "ck-path-ambiguous");
  ck_assert_str_eq(err.detail, "22 to 6");
  ck_assert_int_eq(err.nsuggest, 2);
  ck_assert_str_eq(err.suggest[0], "22x15x6");
  ck_assert_str_eq(err.suggest[1], "22x13x6");
  ck_assert_int_eq(g->ops->parse(s, "c3xc7", &m, &err), REF_EAMBIGUOUS);
  ck_assert_int_eq(g->ops->parse(s, "22x13x6", &m, &err), REF_OK);
  g->ops->format(s, &m, REF_NOTATION_COMPUTER, buf, sizeof(buf));
  ck_assert_str_eq(buf, "22x6 [9,17]");
  ck_assert_int_eq(g->ops->parse(s, "c3xe5xc7", &m, &err), REF_OK);
  g->ops->format(s, &m, REF_NOTATION_CANONICAL, buf, sizeof(buf));
  ck_assert_str_eq(buf, "22x15x6");
  /* Stopping on e5 is refused: the jump must go on. */
  ck_assert_int_eq(g->ops->parse(s, "22x15", &m, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "ck-must-continue");
  ck_assert_str_eq(err.detail, "15");
  free(s);
}
END_TEST

/*
 * parse.txt: "FEN | input | expectation" where the expectation is
 * "= MOVE" (canonical notation of the move read) or "CODE reason [detail]"
 * with CODE one of EPARSE EILLEGAL EAMBIGUOUS EPHASE.
 */
START_TEST(test_checkers_parse_table)
{
  const struct ref_game_desc *g = game();
  char *text = ts_read(DATA "parse.txt"), *line, *save = NULL;
  int cases = 0;

  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *fen, *input, *expect, *bar1, *bar2, code[16] = "", reason[48] = "", detail[96] = "";
    struct ref_state *s;
    struct ref_move m;
    struct ref_err err;
    int rc, want;
    if(line[0] == '#' || !line[0])
      continue;
    bar1 = strstr(line, " | ");
    ck_assert_ptr_nonnull(bar1);
    bar2 = strstr(bar1 + 3, " | ");
    ck_assert_ptr_nonnull(bar2);
    *bar1 = *bar2 = '\0';
    fen = line;
    input = bar1 + 3;
    expect = bar2 + 3;
    if(!strcmp(input, "(empty)"))
      input = "";
    s = from_fen(fen);
    memset(&err, 0, sizeof(err));
    rc = g->ops->parse(s, input, &m, &err);
    if(expect[0] == '=') {
      char buf[REF_NOTATION_MAX];
      ck_assert_msg(rc == REF_OK, "%s | %s: %d %s %s", fen, input, rc, err.reason, err.detail);
      g->ops->format(s, &m, REF_NOTATION_CANONICAL, buf, sizeof(buf));
      ck_assert_msg(!strcmp(buf, expect + 2), "%s | %s: read %s, want %s", fen, input, buf,
                    expect + 2);
    }
    else {
      ck_assert(sscanf(expect, "%15s %47s %95s", code, reason, detail) >= 2);
      want = !strcmp(code, "EPARSE")      ? REF_EPARSE
             : !strcmp(code, "EILLEGAL")  ? REF_EILLEGAL
             : !strcmp(code, "EAMBIGUOUS") ? REF_EAMBIGUOUS
             : !strcmp(code, "EPHASE")    ? REF_EPHASE
                                          : 1;
      ck_assert_int_ne(want, 1);
      ck_assert_msg(rc == want && !strcmp(err.reason, reason) &&
                      (!detail[0] || !strcmp(err.detail, detail)),
                    "%s | %s: got %d %s [%s], want %s", fen, input, rc, err.reason, err.detail,
                    expect);
      /* A refused move always comes with moves to choose from. */
      if(want != REF_EPHASE)
        ck_assert_int_gt(err.nsuggest, 0);
    }
    free(s);
    cases++;
  }
  free(text);
  ck_assert_int_ge(cases, 40);
}
END_TEST

START_TEST(test_checkers_draw_repetition)
{
  const struct ref_game_desc *g = game();
  const char *cycle[4] = {"4-8", "29-25", "8-4", "25-29"};
  struct ref_state *s;
  struct ref_status st;
  struct ref_err err;
  int i;

  /* CK-2: the same position with the same side to move for the third time.
   * The start counts as the first; it comes back after plies 4 and 8. */
  s = from_fen("B:WK29:BK4");
  for(i = 0; i < 8; i++) {
    g->ops->status(s, &st);
    ck_assert_msg(st.phase == REF_PHASE_MOVE, "over early, ply %d", i);
    play(s, cycle[i % 4]);
  }
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_REPETITION);
  ck_assert_int_eq(st.winner, -1);
  ck_assert_int_eq(st.points, 0);
  free(s);

  /* A position with the other side to move is another position: shuffling
   * one king out of step never repeats three times within 8 plies. */
  s = from_fen("B:WK29:BK4");
  play(s, "4-8");
  play(s, "29-25");
  play(s, "8-12");
  play(s, "25-29");
  play(s, "12-8");
  play(s, "29-25");
  play(s, "8-4");
  play(s, "25-29");
  g->ops->status(s, &st);
  /* Every position has come up at most twice (the start again after ply
   * 8, with Black to move; 8/29 after plies 1 and 5, White to move). */
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  free(s);

  /* auto_draws=off: no automatic end, but a claim succeeds. */
  s = start("auto_draws=off; fen=B:WK29:BK4");
  ck_assert_int_eq(g->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "ck-no-draw-claim");
  for(i = 0; i < 8; i++)
    play(s, cycle[i % 4]);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert(st.draw_claimable);
  ck_assert_int_eq(g->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_OK);
  ck_assert(g->ops->ok(s));
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_REPETITION);
  ck_assert_int_eq(st.winner, -1);
  free(s);

  /* Under automatic draws a claim is never needed, so never accepted. */
  s = from_fen("B:WK29:BK4");
  for(i = 0; i < 7; i++)
    play(s, cycle[i % 4]);
  ck_assert_int_eq(g->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  free(s);
}
END_TEST

/* The piece on square n as the board shows it from White's side (b, B, w,
 * W), or 0 when empty: read off the render, not from the game's fields. */
static char piece_on(const struct ref_state *s, int n)
{
  char board[2048], name[3];
  const char *line = board;
  int i;

  ck_assert_int_eq(game()->ops->render(s, 1, board, sizeof(board)), REF_OK);
  square_name(n, name);
  /* Two heading lines, then rank 8 first; a cell is 4 columns from column
   * 4, its piece letter in the cell's third column. */
  for(i = 0; i < 2 + ('8' - name[1]); i++)
    line = strchr(line, '\n') + 1;
  i = line[4 + 4 * (name[0] - 'a') + 2];
  return i == 'b' || i == 'B' || i == 'w' || i == 'W' ? (char)i : 0;
}

/*
 * A line of quiet play found by search (plan_quiet), for the CK-2 draw
 * tests: no capture ever (each move leaves the opponent none to make), no
 * position a third time (so no repetition draw gets in the way), kings
 * only, except at ply man_at, where a man moves. Positions are tracked by
 * their PDN, independently of the game's own history.
 */
struct plan {
  int man_at;
  long budget;
  int nseen;
  int count[256];
  char fen[256][128];
  struct ref_move moves[200];
};

static bool plan_from(struct plan *pl, const struct ref_state *s, int ply, int plies)
{
  const struct ref_game_desc *g = game();
  struct ref_movelist list = {0};
  struct ref_state *child = ref_state_new(g);
  bool found = false;
  size_t i;

  if(ply == plies || --pl->budget < 0) {
    free(child);
    return ply == plies;
  }
  ck_assert_int_eq(g->ops->legal(s, &list), REF_OK);
  /* First pass: moves to new positions; second: to positions seen once. */
  for(i = 0; i < 2 * list.n && !found; i++) {
    const struct ref_move *m = &list.v[i % list.n];
    struct ref_movelist reply = {0};
    char mv[REF_NOTATION_MAX], buf[REF_NOTATION_MAX], fen[128], piece;
    bool safe = true;
    int at = -1, k;
    g->ops->format(s, m, REF_NOTATION_CANONICAL, mv, sizeof(mv));
    if(strchr(mv, 'x'))
      continue;
    piece = piece_on(s, (int)strtol(mv, NULL, 10));
    if((piece == 'b' || piece == 'w') != (ply == pl->man_at))
      continue;
    memcpy(child, s, g->state_size);
    ck_assert_int_eq(g->ops->apply(child, m), REF_OK);
    encode(child, fen, sizeof(fen));
    for(k = 0; k < pl->nseen; k++)
      if(!strcmp(pl->fen[k], fen))
        at = k;
    if(i < list.n ? at >= 0 : (at < 0 || pl->count[at] >= 2))
      continue;
    ck_assert_int_eq(g->ops->legal(child, &reply), REF_OK);
    if(reply.n > 0) {
      g->ops->format(child, &reply.v[0], REF_NOTATION_CANONICAL, buf, sizeof(buf));
      safe = !strchr(buf, 'x');
    }
    ref_movelist_free(&reply);
    if(!safe)
      continue;
    if(at < 0) {
      ck_assert_int_lt(pl->nseen, 256);
      at = pl->nseen++;
      memcpy(pl->fen[at], fen, sizeof(fen));
      pl->count[at] = 0;
    }
    pl->count[at]++;
    pl->moves[ply] = *m;
    found = plan_from(pl, child, ply + 1, plies);
    if(!found && --pl->count[at] == 0 && at == pl->nseen - 1)
      pl->nseen--;
  }
  ref_movelist_free(&list);
  free(child);
  return found;
}

/* Finds `plies` quiet moves from s (see struct plan) into pl->moves. */
static void plan_quiet(struct plan *pl, const struct ref_state *s, int plies, int man_at)
{
  memset(pl, 0, sizeof(*pl));
  pl->man_at = man_at;
  pl->budget = 200000;
  encode(s, pl->fen[0], sizeof(pl->fen[0]));
  pl->count[0] = 1;
  pl->nseen = 1;
  ck_assert_msg(plan_from(pl, s, 0, plies), "no quiet line of %d plies", plies);
}

/* Plays moves [from, to) of a plan, checking the invariants. */
static void replay(struct ref_state *s, const struct plan *pl, int from, int to)
{
  const struct ref_game_desc *g = game();
  int i;

  for(i = from; i < to; i++) {
    ck_assert_int_eq(g->ops->apply(s, &pl->moves[i]), REF_OK);
    ck_assert(g->ops->ok(s));
  }
}

START_TEST(test_checkers_draw_forty_moves)
{
  const struct ref_game_desc *g = game();
  const char *fen = "B:WK21,K22,32:BK11,K12,1";
  struct plan *pl = calloc(1, sizeof(*pl));
  struct ref_state *s;
  struct ref_status st;

  /* CK-2: 40 moves by each side (80 plies) without a man moving or a
   * capture. The men on 1 and 32 are there to stay put. */
  s = from_fen(fen);
  plan_quiet(pl, s, 80, -1);
  replay(s, pl, 0, 79);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert(!st.draw_claimable);
  replay(s, pl, 79, 80);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_FORTY_MOVES);
  ck_assert_int_eq(st.winner, -1);
  free(s);

  /* A man move (Black's, at ply 60) starts the count again: 79 more quiet
   * plies are no draw, the 80th is. */
  s = from_fen(fen);
  plan_quiet(pl, s, 141, 60);
  replay(s, pl, 0, 140);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  replay(s, pl, 140, 141);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_FORTY_MOVES);
  free(s);

  /* auto_draws=off: play goes on past 80 plies; the claim stays open. */
  s = start("auto_draws=off;fen=B:WK21,K22,32:BK11,K12,1");
  plan_quiet(pl, s, 90, -1);
  replay(s, pl, 0, 90);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert(st.draw_claimable);
  ck_assert_int_eq(g->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, NULL), REF_OK);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_FORTY_MOVES);
  free(s);
  free(pl);
}
END_TEST

START_TEST(test_checkers_no_moves_loses)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s;
  struct ref_status st;
  struct ref_movelist list = {0};
  struct ref_move m;
  struct ref_err err;

  /* White's only man, on 29 (a1), faces 25 (b2) with 22 (c3) behind it:
   * no step, no jump. The side to move with no move loses (3.3). */
  s = from_fen("W:W29:B22,25");
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.turn, -1);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.end, REF_END_NO_MOVES);
  ck_assert_int_eq(st.points, 1);
  ck_assert_int_eq(g->ops->legal(s, &list), REF_OK);
  ck_assert_uint_eq(list.n, 0);
  ck_assert_uint_eq(g->ops->perft(s, 1), 0);
  ck_assert_int_eq(g->ops->parse(s, "29-25", &m, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "game-over");
  free(s);

  /* Blocked by a move: Black's 18-22 leaves White's 29 nothing. */
  s = from_fen("B:W29:B18,25");
  play(s, "18-22");
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.end, REF_END_NO_MOVES);
  free(s);

  /* Taking the last piece wins. */
  s = from_fen("B:W18:B14");
  play(s, "14x23");
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.end, REF_END_NO_MOVES);
  ref_movelist_free(&list);
  free(s);
}
END_TEST

START_TEST(test_checkers_pdn)
{
  const struct ref_game_desc *g = game();
  static const char *const round[][2] = {
    {"B:W21-32:B1-12", "B:W21-32:B1-12"},
    {"b:w21-32:b1-12", "B:W21-32:B1-12"},
    {"B:B1-12:W21-32", "B:W21-32:B1-12"},
    {"B:W21-32:B1-12.", "B:W21-32:B1-12"},
    {"  W:W18,K27:B12,K5  ", "W:W18,K27:BK5,12"},
    {"W:WK1-3,9:B20,21,22,K23", "W:WK1-3,9:B20-22,K23"},
    {"W:W21,22:B1,2,3,K4,K5,K6", "W:W21,22:B1-3,K4-6"},
    {"B:W32:BK1", "B:W32:BK1"},
    {"W:W:B1", "W:W:B1"},
  };
  char *text, *line, *save = NULL, buf[256];
  struct ref_state *s = ref_state_new(g);
  struct ref_err err;
  size_t i;
  int bad = 0;

  for(i = 0; i < sizeof(round) / sizeof(round[0]); i++) {
    ck_assert_msg(g->ops->decode(s, round[i][0], &err) == REF_OK, "%s: %s", round[i][0],
                  err.detail);
    ck_assert(g->ops->ok(s));
    encode(s, buf, sizeof(buf));
    ck_assert_str_eq(buf, round[i][1]);
    ck_assert_int_eq(g->ops->decode(s, buf, &err), REF_OK);
    encode(s, buf, sizeof(buf));
    ck_assert_str_eq(buf, round[i][1]);
  }
  /* The start position from init is the standard one, Black to move. */
  free(s);
  s = start(NULL);
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "B:W21-32:B1-12");
  /* Too small a buffer is an error, not a cut string. */
  ck_assert_int_eq(g->ops->encode(s, buf, 10), REF_EINVAL);

  text = ts_read(DATA "bad_fen.txt");
  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    if(line[0] == '#')
      continue;
    if(!strcmp(line, "(empty)"))
      line[0] = '\0';
    memset(&err, 0, sizeof(err));
    ck_assert_msg(g->ops->decode(s, line, &err) == REF_EINVAL, "accepted bad FEN '%s'", line);
    ck_assert_str_eq(err.reason, "ck-bad-position");
    ck_assert(err.detail[0]);
    /* A refused decode leaves the state as it was. */
    ck_assert(g->ops->ok(s));
    encode(s, buf, sizeof(buf));
    ck_assert_str_eq(buf, "B:W21-32:B1-12");
    bad++;
  }
  ck_assert_int_ge(bad, 20);
  ck_assert_int_eq(g->ops->decode(s, NULL, &err), REF_EINVAL);
  free(text);
  free(s);
}
END_TEST

/*
 * Random games from the start and from oracle positions: the invariant
 * checker after every apply, a PDN round trip at every ply, and every legal
 * move read back from its canonical, numeric-dash and algebraic spellings.
 */
START_TEST(test_checkers_playouts)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = ref_state_new(g), *t = ref_state_new(g);
  int game_no, plies = 0, ends[REF_END_LAST] = {0};

  rng_state = 0x9E3779B97F4A7C15u;
  for(game_no = 0; game_no < 300; game_no++) {
    struct ref_err err;
    struct ref_status st;
    int game_plies = 0;
    ck_assert_int_eq(g->ops->init(s, game_no % 3 ? NULL : "auto_draws=off", &err), REF_OK);
    for(;;) {
      struct ref_movelist list = {0};
      char fen[256], fen2[256];
      size_t i;
      g->ops->status(s, &st);
      if(st.phase == REF_PHASE_OVER || game_plies++ > 1000)
        break;
      encode(s, fen, sizeof(fen));
      ck_assert_int_eq(g->ops->decode(t, fen, &err), REF_OK);
      encode(t, fen2, sizeof(fen2));
      ck_assert_str_eq(fen, fen2);
      ck_assert_int_eq(g->ops->legal(s, &list), REF_OK);
      ck_assert_uint_gt(list.n, 0);
      for(i = 0; i < list.n; i++) {
        char canon[REF_NOTATION_MAX], alt[3 * REF_NOTATION_MAX], *p;
        struct ref_move m;
        size_t len = 0;
        int sq;
        ck_assert_int_eq(g->ops->format(s, &list.v[i], REF_NOTATION_CANONICAL, canon,
                                        sizeof(canon)),
                         REF_OK);
        ck_assert_int_eq(g->ops->parse(s, canon, &m, &err), REF_OK);
        ck_assert(!memcmp(&m, &list.v[i], sizeof(m)));
        /* Algebraic, every landing, with ':' as the capture mark. */
        for(p = canon; *p;) {
          char name[3];
          sq = (int)strtol(p, &p, 10);
          square_name(sq, name);
          len += (size_t)snprintf(alt + len, sizeof(alt) - len, "%s%s", len ? ":" : "", name);
          if(*p)
            p++;
        }
        ck_assert_int_eq(g->ops->parse(s, alt, &m, &err), REF_OK);
        ck_assert(!memcmp(&m, &list.v[i], sizeof(m)));
      }
      memcpy(t, s, g->state_size);
      ck_assert_int_eq(g->ops->apply(s, &list.v[rng() % list.n]), REF_OK);
      ck_assert_msg(g->ops->ok(s), "invariants broken in game %d", game_no);
      ref_movelist_free(&list);
      plies++;
    }
    if(st.phase == REF_PHASE_OVER)
      ends[st.end]++;
  }
  /* Random games end every way the rules allow. */
  ck_assert_int_gt(ends[REF_END_NO_MOVES], 0);
  ck_assert_int_gt(ends[REF_END_REPETITION] + ends[REF_END_FORTY_MOVES], 0);
  free(s);
  free(t);
}
END_TEST

START_TEST(test_checkers_render)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = start(NULL);
  char buf[4096], *want;
  const char *p;

  ck_assert_int_eq(g->ops->render(s, 0, buf, sizeof(buf)), REF_OK);
  want = ts_read(DATA "render_start_black.txt");
  ck_assert_str_eq(buf, want);
  free(want);
  ck_assert_int_eq(g->ops->render(s, 1, buf, sizeof(buf)), REF_OK);
  want = ts_read(DATA "render_start_white.txt");
  ck_assert_str_eq(buf, want);
  free(want);
  /* T-CK-1 played out: the last move 12x19 marked from Black's side. */
  play(s, "11-15");
  play(s, "24-20");
  play(s, "15-19");
  play(s, "23x16");
  play(s, "12x19");
  ck_assert_int_eq(g->ops->render(s, 0, buf, sizeof(buf)), REF_OK);
  want = ts_read(DATA "render_tck1_black.txt");
  ck_assert_str_eq(buf, want);
  free(want);
  /* At most 72 columns, no trailing blanks. */
  for(p = buf; *p;) {
    const char *nl = strchr(p, '\n');
    ck_assert_ptr_nonnull(nl);
    ck_assert_int_le(nl - p, 72);
    ck_assert(nl == p || nl[-1] != ' ');
    p = nl + 1;
  }
  ck_assert_int_eq(g->ops->render(s, 0, buf, 100), REF_EINVAL);
  free(s);
}
END_TEST

START_TEST(test_checkers_act_status)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = start(NULL);
  struct ref_status st;
  struct ref_err err;
  struct ref_move m;

  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert_int_eq(st.turn, 0);
  ck_assert_int_eq(st.move_number, 1);
  ck_assert_int_eq(st.cube, 0);
  ck_assert_int_eq(st.cube_owner, -1);
  ck_assert_int_eq(st.ndice, 0);
  play(s, "9-13");
  g->ops->status(s, &st);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(st.move_number, 1);
  play(s, "22-18");
  g->ops->status(s, &st);
  ck_assert_int_eq(st.turn, 0);
  ck_assert_int_eq(st.move_number, 2);
  ck_assert_int_eq(g->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "ck-no-cube");
  ck_assert_int_eq(g->ops->act(s, 2, REF_ACT_RESIGN, 1, &err), REF_EINVAL);
  /* Resignation is allowed out of turn (rules-spec 1.7). */
  ck_assert_int_eq(g->ops->act(s, 1, REF_ACT_RESIGN, 1, &err), REF_OK);
  ck_assert(g->ops->ok(s));
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.end, REF_END_RESIGNATION);
  ck_assert_int_eq(st.points, 1);
  ck_assert_int_eq(g->ops->act(s, 0, REF_ACT_RESIGN, 1, &err), REF_EPHASE);
  ck_assert_int_eq(g->ops->parse(s, "10-14", &m, &err), REF_EPHASE);
  ck_assert_uint_eq(g->ops->perft(s, 2), 0);
  free(s);

  s = start(NULL);
  ck_assert_int_eq(g->ops->act(s, 0, REF_ACT_DRAW_AGREED, 0, &err), REF_OK);
  g->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, -1);
  ck_assert_int_eq(st.end, REF_END_AGREEMENT);
  free(s);

  /* A position with White to move starts on White's half of move 1. */
  s = from_fen("W:W21-32:B1-12");
  g->ops->status(s, &st);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(st.move_number, 1);
  play(s, "22-18");
  g->ops->status(s, &st);
  ck_assert_int_eq(st.move_number, 2);
  free(s);
}
END_TEST

START_TEST(test_checkers_options)
{
  const struct ref_game_desc *g = game();
  struct ref_state *s = ref_state_new(g);
  struct ref_err err;
  char buf[128];

  ck_assert_int_eq(g->ops->init(s, "", &err), REF_OK);
  ck_assert_int_eq(g->ops->init(s, " auto_draws = on ; ", &err), REF_OK);
  ck_assert_int_eq(g->ops->init(s, "fen=W:W11:B7,6", &err), REF_OK);
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "W:W11:B6,7");
  ck_assert_int_eq(g->ops->init(s, "auto_draws=maybe", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "ck-bad-option");
  ck_assert_int_eq(g->ops->init(s, "flying_kings=on", &err), REF_EINVAL);
  ck_assert_str_eq(err.detail, "flying_kings");
  ck_assert_int_eq(g->ops->init(s, "auto_draws", &err), REF_EINVAL);
  ck_assert_int_eq(g->ops->init(s, "fen=B:W21-32:B1-13", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "ck-bad-position");
  free(s);
}
END_TEST

static Suite *checkers_suite(void)
{
  Suite *suite = suite_create("checkers");
  struct {
    const char *name;
    const TTest *test;
  } cases[] = {
    {"desc", test_checkers_desc_registry},
    {"geom", test_checkers_geom_draughts},
    {"geom_wrap", test_checkers_geom_wrap64},
    {"gen_stones", test_checkers_gen_stones},
    {"perft_published", test_checkers_perft_published},
    {"perft_oracle", test_checkers_perft_oracle},
    {"divide_start", test_checkers_divide_start},
    {"divide_random", test_checkers_divide_random},
    {"ring", test_checkers_ring_capture},
    {"tck1", test_checkers_tck1},
    {"crown", test_checkers_crown_ends_move},
    {"ambiguous", test_checkers_ambiguous_path},
    {"parse", test_checkers_parse_table},
    {"repetition", test_checkers_draw_repetition},
    {"forty_moves", test_checkers_draw_forty_moves},
    {"no_moves", test_checkers_no_moves_loses},
    {"pdn", test_checkers_pdn},
    {"playouts", test_checkers_playouts},
    {"render", test_checkers_render},
    {"act", test_checkers_act_status},
    {"options", test_checkers_options},
  };
  size_t i;

  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    TCase *tc = tcase_create(cases[i].name);
    /* Generous: the playouts take about 10 s under ASan and UBSan. */
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cases[i].test);
    suite_add_tcase(suite, tc);
  }
  return suite;
}

int main(void)
{
  return unit_run(checkers_suite());
}
