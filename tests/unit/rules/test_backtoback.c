/*
 * test_backtoback.c: Back-to-Back Chess (referee/rules/backtoback.c,
 * docs/rules-spec.md §8 and §10.3) through its ops table, and the board
 * machinery under it (referee/rules/board_geometry.c) on the plain 8x8 board.
 *
 * Data (tests/data/backtoback/):
 *   perft.txt         leaf counts of both boards' start (depth 4) and of
 *                     random positions (depth 3), each confirmed by the
 *                     independent generator tests/oracles/backtoback_perft.py
 *   chess8_perft.txt  the published chess perft numbers (shared oracles.md
 *                     §1.2, Stockfish-checked) that the machinery must give
 *                     on the 8x8 board with no barrier and standard pawns
 *   parse.txt         tolerant input: expected canonical move or !reason
 *   fen_invalid.txt   position strings decode must refuse, with the key
 *   render_*.txt      exact boards
 *
 * Rule IDs: BB-1 .. BB-8 of rules-spec §8/§11, CH-1/CH-2 of §2, and the
 * decisions BB-D1 .. BB-D4 recorded at the top of backtoback.c.
 */
#include "board_geometry_int.h"
#include "rules.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TABULA_TEST_DATA "/backtoback/"

static const struct ref_game_desc *G;

/* libcheck's ck_assert records its location through a pipe on every call,
 * success or not; hot loops (random games) use this instead. */
#define REQUIRE(cond, ...)                                                                         \
  do {                                                                                             \
    if(!(cond))                                                                                    \
      ck_abort_msg(__VA_ARGS__);                                                                   \
  } while(0)

#define START_PINWHEEL                                                                             \
  "5pkqp3##/5pbbp3##/5pnnp3##/5prrp5/5PRRP5/##3PNNP5/##3PBBP5/##3PQKP5 w KQkq - 0 1"
#define START_CORNERS                                                                              \
  "##3pkqp3##/#4pbbp4#/5pnnp5/5prrp5/5PRRP5/5PNNP5/#4PBBP4#/##3PQKP3## w KQkq - 0 1"

/* BB-1, written out here again (not taken from the code under test). */
static const char *const holes_pinwheel = "a1 b1 a2 b2 a3 b3 m6 n6 m7 n7 m8 n8";
static const char *const holes_corners = "a1 b1 a2 a8 b8 a7 n1 m1 n2 n8 m8 n7";

/* Splits "a | b | c" in place; returns the number of fields. */
static int split_bars(char *line, char **f, int max)
{
  int n = 0;
  char *p = line;
  while(n < max) {
    char *bar = strstr(p, " | "), *e;
    f[n++] = p;
    e = bar ? bar : p + strlen(p);
    while(e > p && e[-1] == ' ')
      e--;
    *e = '\0';
    if(!bar)
      break;
    p = bar + 3;
  }
  return n;
}

static struct ref_state *state_new(const char *options)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  int rc;

  ck_assert_ptr_nonnull(s);
  rc = G->ops->init(s, options, &err);
  ck_assert_msg(rc == REF_OK, "init(%s): %s", options ? options : "NULL", err.reason);
  ck_assert(G->ops->ok(s));
  return s;
}

static struct ref_state *state_fen(const char *fen)
{
  struct ref_state *s = state_new(NULL);
  struct ref_err err;
  int rc = G->ops->decode(s, fen, &err);
  ck_assert_msg(rc == REF_OK, "decode(%s): %s", fen, err.reason);
  ck_assert(G->ops->ok(s));
  return s;
}

static void encode(const struct ref_state *s, char *buf, size_t cap)
{
  REQUIRE(G->ops->encode(s, buf, cap) == REF_OK, "encode failed");
}

static void canonical(const struct ref_state *s, const struct ref_move *m, char *buf)
{
  REQUIRE(G->ops->format(s, m, REF_NOTATION_CANONICAL, buf, REF_NOTATION_MAX) == REF_OK,
          "format failed");
}

/* parse must refuse `text` with `reason` and change nothing. */
static void refuse(struct ref_state *s, const char *text, enum ref_code code, const char *reason)
{
  char before[256], after[256];
  struct ref_move m;
  struct ref_err err;
  int rc;

  encode(s, before, sizeof(before));
  memset(&err, 0, sizeof(err));
  rc = G->ops->parse(s, text, &m, &err);
  ck_assert_msg(rc == (int)code, "parse(%s) = %d (%s), want %d", text, rc, err.reason, code);
  ck_assert_msg(!strcmp(err.reason, reason), "parse(%s): reason %s, want %s", text, err.reason,
                reason);
  encode(s, after, sizeof(after));
  ck_assert_str_eq(before, after);
}

/* The canonical names of every legal move, sorted, space-joined. */
static void legal_names(const struct ref_state *s, char *out, size_t cap, int *count)
{
  struct ref_movelist list = {0};
  char **names;
  size_t i, k = 0;

  ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
  names = calloc(list.n + 1, sizeof(*names));
  ck_assert_ptr_nonnull(names);
  for(i = 0; i < list.n; i++) {
    names[i] = malloc(REF_NOTATION_MAX);
    ck_assert_ptr_nonnull(names[i]);
    canonical(s, &list.v[i], names[i]);
  }
  for(i = 0; i + 1 < list.n; i++) {
    size_t j;
    for(j = i + 1; j < list.n; j++)
      if(strcmp(names[j], names[i]) < 0) {
        char *t = names[i];
        names[i] = names[j];
        names[j] = t;
      }
  }
  out[0] = '\0';
  for(i = 0; i < list.n; i++) {
    k += (size_t)snprintf(out + k, cap > k ? cap - k : 0, "%s%s", i ? " " : "", names[i]);
    free(names[i]);
  }
  ck_assert(k < cap);
  *count = (int)list.n;
  free(names);
  ref_movelist_free(&list);
}

/* The same word list, sorted, from a space-separated string. */
static void sort_words(const char *in, char *out, size_t cap)
{
  char buf[2048], *w[256], *p;
  int n = 0, i, j;
  size_t k = 0;

  snprintf(buf, sizeof(buf), "%s", in);
  for(p = strtok(buf, " "); p && n < 256; p = strtok(NULL, " "))
    w[n++] = p;
  for(i = 0; i + 1 < n; i++)
    for(j = i + 1; j < n; j++)
      if(strcmp(w[j], w[i]) < 0) {
        char *t = w[i];
        w[i] = w[j];
        w[j] = t;
      }
  out[0] = '\0';
  for(i = 0; i < n; i++)
    k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? " " : "", w[i]);
}

static bool has_move(const struct ref_state *s, const char *name)
{
  char all[8192], key[80];
  int n;
  legal_names(s, all, sizeof(all), &n);
  snprintf(key, sizeof(key), " %s ", name);
  {
    char padded[8300];
    snprintf(padded, sizeof(padded), " %s ", all);
    return strstr(padded, key) != NULL;
  }
}

/* The board by the position string, read by this test's own reader:
 * grid[row][col] is '.', a piece letter or '#'. */
static void board_grid(const struct ref_state *s, char grid[8][15])
{
  char fen[256];
  const char *p;
  int row = 7, col = 0;

  encode(s, fen, sizeof(fen));
  memset(grid, 0, 8 * 15);
  for(p = fen; *p && *p != ' '; p++) {
    if(*p == '/') {
      row--;
      col = 0;
    }
    else if(*p >= '0' && *p <= '9') {
      int n = *p - '0';
      if(p[1] >= '0' && p[1] <= '9')
        n = n * 10 + (*++p - '0');
      while(n--)
        grid[row][col++] = '.';
    }
    else {
      grid[row][col++] = *p;
    }
    REQUIRE(row >= 0 && col <= 14, "bad board in %s", fen);
  }
}

/* What stands on square `name` ("h3"). */
static char piece_at(const struct ref_state *s, const char *name)
{
  char grid[8][15];
  board_grid(s, grid);
  return grid[name[1] - '1'][name[0] - 'a'];
}

static uint64_t rng_state;

/* ---- descriptor ---- */

START_TEST(test_bb_desc)
{
  ck_assert_ptr_nonnull(G);
  ck_assert_str_eq(G->name, "backtoback");
  ck_assert_str_eq(G->title, "Back-to-Back Chess");
  ck_assert_int_eq(G->seats, 2);
  ck_assert_str_eq(G->seat_names[0], "White");
  ck_assert_str_eq(G->seat_names[1], "Black");
  ck_assert_uint_eq(G->flags, REF_GAME_DRAWS);
  ck_assert_ptr_null(G->ops->roll);
  ck_assert_ptr_nonnull(G->ops->perft);
  ck_assert_ptr_nonnull(G->ops->ok);
}
END_TEST

/* ---- §10.3 T-BB-1 .. T-BB-4 ---- */

/* T-BB-1: White has exactly the 20 listed moves (BB-1 holes, BB-2 barrier,
 * BB-3 knight paths, BB-4 sideways pawns); the four listed moves are
 * refused, each with the reason the board gives. */
START_TEST(test_bb_t1_twenty_opening_moves)
{
  static const char *const spec_list =
    "Ng3-e2 Ng3-e4 Nh3-j2 Nh3-j4 f1-e1 f1-d1 f2-e2 f2-d2 f3-e3 f3-d3 f4-e4 f4-d4 "
    "i1-j1 i1-k1 i2-j2 i2-k2 i3-j3 i3-k3 i4-j4 i4-k4";
  struct ref_state *s = state_new(NULL);
  char got[4096], want[4096];
  int n;

  legal_names(s, got, sizeof(got), &n);
  sort_words(spec_list, want, sizeof(want));
  ck_assert_int_eq(n, 20);
  ck_assert_str_eq(got, want);
  refuse(s, "Rg4-g5", REF_EILLEGAL, "bb-barrier");     /* BB-2 (and g5 is occupied) */
  refuse(s, "Ng3-f5", REF_EILLEGAL, "bb-knight-path"); /* BB-3: G4-G5 crosses */
  refuse(s, "Ng3-h5", REF_EILLEGAL, "bb-knight-path");
  refuse(s, "f4-f5", REF_EILLEGAL, "bb-barrier");      /* BB-2 for pawns too */
  refuse(s, "f1-c1", REF_EILLEGAL, "no-such-move");    /* BB-4: at most two squares */
  free(s);

  /* The corner board (BB-1 option) has the same 20 opening moves. */
  s = state_new("b2b_board=corners");
  legal_names(s, got, sizeof(got), &n);
  ck_assert_int_eq(n, 20);
  ck_assert_str_eq(got, want);
  free(s);
}
END_TEST

/* Mirror a canonical move by the 180-degree rotation (files a<->n, rows
 * 1<->8) that maps White's army onto Black's. */
static void rotate_move(const char *in, char *out)
{
  size_t i;
  for(i = 0; in[i]; i++) {
    char c = in[i];
    if(c >= 'a' && c <= 'n' && in[i + 1] >= '1' && in[i + 1] <= '8') {
      out[i] = (char)('a' + ('n' - c));
      out[i + 1] = (char)('1' + ('8' - in[i + 1]));
      i++;
      continue;
    }
    out[i] = c;
  }
  out[i] = '\0';
}

/* T-BB-1, "Black, symmetrically, 20": the start with Black to move. */
START_TEST(test_bb_t1_black_symmetric)
{
  struct ref_state *w = state_new(NULL), *b;
  char fen[256], got[4096], rotated[4096], want[4096], *tok, buf[4096], one[32];
  size_t k = 0;
  int n;

  encode(w, fen, sizeof(fen));
  strstr(fen, " w ")[1] = 'b';
  b = state_fen(fen);
  legal_names(b, got, sizeof(got), &n);
  ck_assert_int_eq(n, 20);
  legal_names(w, buf, sizeof(buf), &n);
  rotated[0] = '\0';
  for(tok = strtok(buf, " "); tok; tok = strtok(NULL, " ")) {
    rotate_move(tok, one);
    k += (size_t)snprintf(rotated + k, sizeof(rotated) - k, "%s%s", k ? " " : "", one);
  }
  sort_words(rotated, want, sizeof(want));
  ck_assert_str_eq(got, want);
  free(w);
  free(b);
}
END_TEST

/* T-BB-2: 1. Nh3-j4 f5-d5 2. i3-k3 f6-d6 3. Bh2-i3 f7-d7 4. O-O leaves the
 * White king on H3 and the rook on H2 (BB-8, seed: "H1-H3 ... H4-H2"). */
START_TEST(test_bb_t2_castling_sequence)
{
  struct ref_state *s = state_new(NULL);
  char fen[256];

  ts_play_words(G, s, "Nh3-j4 f5-d5 i3-k3 f6-d6 Bh2-i3 f7-d7 O-O");
  ck_assert_int_eq(piece_at(s, "h3"), 'K');
  ck_assert_int_eq(piece_at(s, "h2"), 'R');
  ck_assert_int_eq(piece_at(s, "h1"), '.');
  ck_assert_int_eq(piece_at(s, "h4"), '.');
  encode(s, fen, sizeof(fen));
  ck_assert_msg(strstr(fen, " b kq ") != NULL, "White's rights gone after O-O: %s", fen);
  free(s);
}
END_TEST

/* BB-8 for both sides and both wings, by rotation; CH-1 refusals. */
START_TEST(test_bb_t2_castling_shapes)
{
  /* Only kings and rooks at home, the rest of the U empty (pinwheel). */
  static const char *const bare = "6k5##/12##/12##/6rr6/6RR6/##12/##12/##5K6 w KQkq - 0 1";
  struct ref_state *s;

  /* White O-O-O: K H1-G1-G2, R G4-G1. */
  s = state_fen(bare);
  ts_play_words(G, s, "O-O-O");
  ck_assert_int_eq(piece_at(s, "g2"), 'K');
  ck_assert_int_eq(piece_at(s, "g1"), 'R');
  ck_assert_int_eq(piece_at(s, "g4"), '.');
  /* Black O-O (BB-8): K G8-G6, R G5-G7. */
  ts_play_words(G, s, "O-O");
  ck_assert_int_eq(piece_at(s, "g6"), 'k');
  ck_assert_int_eq(piece_at(s, "g7"), 'r');
  ck_assert_int_eq(piece_at(s, "g5"), '.');
  free(s);

  /* White O-O by the king's squares (BB-D4: the seed writes H1-H3). */
  s = state_fen(bare);
  ts_play_words(G, s, "Kh1-h3");
  ck_assert_int_eq(piece_at(s, "h3"), 'K');
  ck_assert_int_eq(piece_at(s, "h2"), 'R');
  /* Black O-O-O (BB-8): K G8-H8-H7, R H5-H8. */
  ts_play_words(G, s, "O-O-O");
  ck_assert_int_eq(piece_at(s, "h7"), 'k');
  ck_assert_int_eq(piece_at(s, "h8"), 'r');
  free(s);

  /* BB-D3: computer notation names castling O-O / O-O-O (h1g2 would be
   * the king's step), and reads back. */
  s = state_fen(bare);
  {
    struct ref_move m, back;
    struct ref_err err;
    char text[REF_NOTATION_MAX];
    ck_assert_int_eq(G->ops->parse(s, "O-O-O", &m, &err), REF_OK);
    ck_assert_int_eq(G->ops->format(s, &m, REF_NOTATION_COMPUTER, text, sizeof(text)), REF_OK);
    ck_assert_str_eq(text, "O-O-O");
    ck_assert_int_eq(G->ops->parse(s, "h1g2", &back, &err), REF_OK);
    ck_assert(memcmp(&m, &back, sizeof(m)) != 0);
    ck_assert_int_eq(G->ops->format(s, &back, REF_NOTATION_COMPUTER, text, sizeof(text)), REF_OK);
    ck_assert_str_eq(text, "h1g2");
  }
  free(s);

  /* h1-g2 is the king's step, not O-O-O (BB-D4): the rights go, the rook stays. */
  s = state_fen(bare);
  ts_play_words(G, s, "h1-g2");
  ck_assert_int_eq(piece_at(s, "g2"), 'K');
  ck_assert_int_eq(piece_at(s, "g4"), 'R');
  free(s);

  /* CH-1: a black rook on j3 attacks H3, where O-O would land; on j2, the
   * crossed H2; a black knight on f2 gives check. Blocked: a bishop on g3. */
  s = state_fen("6k5##/12##/12##/6rr6/6RR6/##7r4/##12/##5K6 w KQkq - 0 1");
  refuse(s, "O-O", REF_EILLEGAL, "castle-through-check");
  free(s);
  s = state_fen("6k5##/12##/12##/6rr6/6RR6/##12/##7r4/##5K6 w KQkq - 0 1");
  refuse(s, "O-O", REF_EILLEGAL, "castle-through-check");
  free(s);
  s = state_fen("6k5##/12##/12##/6rr6/6RR6/##12/##3n8/##5K6 w KQkq - 0 1");
  refuse(s, "O-O", REF_EILLEGAL, "castle-in-check");
  free(s);
  s = state_fen("6k5##/12##/12##/6rr6/6RR6/##4B7/##12/##5K6 w KQkq - 0 1");
  refuse(s, "O-O-O", REF_EILLEGAL, "castle-blocked");
  ck_assert(has_move(s, "O-O"));
  free(s);
  /* A rook that moved takes its right along. */
  s = state_fen(bare);
  ts_play_words(G, s, "Rh4-l4 Rg5-c5 Rl4-h4 Rc5-g5");
  refuse(s, "O-O", REF_EILLEGAL, "castle-no-right");
  ck_assert(has_move(s, "O-O-O"));
  free(s);
}
END_TEST

/* T-BB-3: White pawn d6, Black pawn f7 unmoved; f7-d7 crosses e7, and
 * d6xe7 takes e.p., removing the pawn on d7 (BB-6). One move later the
 * right is gone. */
START_TEST(test_bb_t3_sideways_en_passant)
{
  static const char *const start = "6k5##/5p6##/3P8##/14/14/##12/##12/##5K6 b - - 0 1";
  struct ref_state *s = state_fen(start);
  char fen[256];

  ts_play_words(G, s, "f7-d7");
  encode(s, fen, sizeof(fen));
  /* The position string names the crossed square and the pawn (e7d7). */
  ck_assert_str_eq(fen, "6k5##/3p8##/3P8##/14/14/##12/##12/##5K6 w - e7d7 0 2");
  ck_assert(has_move(s, "d6xe7"));
  ts_play_words(G, s, "d6xe7");
  ck_assert_int_eq(piece_at(s, "e7"), 'P');
  ck_assert_int_eq(piece_at(s, "d7"), '.');
  ck_assert_int_eq(piece_at(s, "d6"), '.');
  free(s);

  s = state_fen(start);
  ts_play_words(G, s, "f7-d7 Kh1-h2 Kg8-h8");
  ck_assert(!has_move(s, "d6xe7"));
  refuse(s, "d6xe7", REF_EILLEGAL, "not-a-capture");
  free(s);

  /* The e.p. record round-trips through decode. */
  s = state_fen("6k5##/3p8##/3P8##/14/14/##12/##12/##5K6 w - e7d7 0 2");
  ck_assert(has_move(s, "d6xe7"));
  free(s);
}
END_TEST

/* T-BB-4: the barrier's ends (BB-2): e4-f5-g6 is open to a bishop, f4-f5
 * is closed to a rook, and so is the diagonal f4-g5. */
START_TEST(test_bb_t4_barrier_ends)
{
  struct ref_state *s = state_fen("6k5##/p11##/12##/14/4B9/##12/##12/##5K6 w - - 0 1");
  ck_assert(has_move(s, "Be4-f5"));
  ck_assert(has_move(s, "Be4-g6"));
  ck_assert(has_move(s, "Be4-h7+"));
  free(s);

  s = state_fen("6k5##/12##/12##/14/5R8/##12/##12/##5K6 w - - 0 1");
  refuse(s, "Rf4-f5", REF_EILLEGAL, "bb-barrier");
  refuse(s, "Rf4-f8", REF_EILLEGAL, "bb-barrier");
  ck_assert(has_move(s, "Rf4-a4"));
  ck_assert(has_move(s, "Rf4-n4"));
  ck_assert(has_move(s, "Rf4-f1"));
  free(s);

  s = state_fen("6k5##/p11##/12##/14/5B8/##12/##12/##5K6 w - - 0 1");
  refuse(s, "Bf4-g5", REF_EILLEGAL, "bb-barrier");
  ck_assert(has_move(s, "Bf4-e5"));
  free(s);

  /* A king on g5 (in check from i5) cannot step down to f4, g4 or h4. */
  s = state_fen("12##/12##/12##/6k1Q5/14/##12/##12/##5K6 b - - 0 1");
  ck_assert(!has_move(s, "Kg5-g4"));
  ck_assert(!has_move(s, "Kg5-f4"));
  ck_assert(!has_move(s, "Kg5-h4"));
  refuse(s, "Kg5-g4", REF_EILLEGAL, "bb-barrier");
  free(s);
}
END_TEST

/* BB-3 with holes: a knight's path may not run over a missing cell. */
START_TEST(test_bb_knight_path_over_holes)
{
  /* Knight c3 (pinwheel): c3-a4 would run c3-b3-a3-a4 over two missing
   * cells, so it is refused though a4 is a square; c3-b5 runs c4, c5. */
  struct ref_state *s = state_fen("6k5##/p11##/12##/14/14/##N11/##12/##5K6 w - - 0 1");
  ck_assert(!has_move(s, "Nc3-a4"));
  ck_assert(has_move(s, "Nc3-b5"));
  ck_assert(has_move(s, "Nc3-e2"));
  refuse(s, "Nc3-a4", REF_EILLEGAL, "bb-knight-path");
  refuse(s, "Nc3-a2", REF_EILLEGAL, "bb-no-square");
  free(s);
  /* Knight c1: c1-a2 is a hole anyway, c1-b3 too; c1-d3 and c1-e2 stay. */
  s = state_fen("6k5##/p11##/12##/14/14/##12/##12/##N4K6 w - - 0 1");
  ck_assert(has_move(s, "Nc1-d3"));
  ck_assert(has_move(s, "Nc1-e2"));
  ck_assert(!has_move(s, "Nc1-b3"));
  free(s);
  /* BB-3 over the barrier: a knight on g4 cannot reach f6 or h6 (G4-G5
   * crosses), but e5 is open (G4-F4-E4, then E4-E5 beside the barrier);
   * knight h5 goes to j4 (H5-I5-J5, then J5-J4 beside it). */
  s = state_fen("6k5##/12##/12##/7N6/6N7/##12/##12/##5K6 w - - 0 1");
  ck_assert(!has_move(s, "Ng4-f6"));
  ck_assert(!has_move(s, "Ng4-h6"));
  ck_assert(has_move(s, "Ng4-e5"));
  ck_assert(has_move(s, "Nh5-j4"));
  ck_assert(!has_move(s, "Nh5-g3")); /* H5-H4 is across */
  ck_assert(!has_move(s, "Nh5-i3"));
  free(s);
}
END_TEST

/* BB-4 pawns, BB-D1 "unmoved", BB-7 promotion. */
START_TEST(test_bb_pawns)
{
  struct ref_state *s;

  /* A White pawn on i1 (start square, unmoved): j1, k1, and up i2, i3. */
  s = state_fen("6k5##/12##/12##/14/14/##12/##12/##2K3P5 w - - 0 1");
  ck_assert(has_move(s, "i1-j1"));
  ck_assert(has_move(s, "i1-k1"));
  ck_assert(has_move(s, "i1-h1"));
  ck_assert(has_move(s, "i1-g1"));
  ck_assert(has_move(s, "i1-i2"));
  ck_assert(has_move(s, "i1-i3"));
  /* BB-D1: after i1-j1 and back j1-i1 the pawn has moved: no two-step. */
  ts_play_words(G, s, "i1-j1 Kg8-h8 j1-i1 Kh8-g8");
  ck_assert(!has_move(s, "i1-k1"));
  ck_assert(!has_move(s, "i1-i3"));
  ck_assert(has_move(s, "i1-i2"));
  refuse(s, "i1-i3", REF_EILLEGAL, "bb-pawn-moved");
  {
    char fen[256];
    encode(s, fen, sizeof(fen));
    /* The 7th field names the moved pawn on its start square. */
    ck_assert_str_eq(fen, "6k5##/12##/12##/14/14/##12/##12/##2K3P5 w - - 1 3 i1");
    free(s);
    s = state_fen(fen);
    ck_assert(!has_move(s, "i1-i3"));
  }
  free(s);

  /* A pawn off its start squares: one step forward or sideways; never
   * backward; captures only diagonally forward, not sideways. */
  s = state_fen("6k5##/12##/12##/14/14/##3p8/##1pP9/##11K w - - 0 1");
  ck_assert(has_move(s, "e2-e3"));
  ck_assert(has_move(s, "e2-f2"));
  ck_assert(has_move(s, "e2xf3"));
  ck_assert(!has_move(s, "e2-e1"));
  ck_assert(!has_move(s, "e2xd2"));
  ck_assert(!has_move(s, "e2-e4"));
  ck_assert(!has_move(s, "e2-g2"));
  refuse(s, "e2-e4", REF_EILLEGAL, "bb-pawn-moved");
  refuse(s, "e2xd3", REF_EILLEGAL, "not-a-capture");
  free(s);

  /* BB-7: White promotes on row 8, Black on row 1, to Q, R, B or N. */
  s = state_fen("12##/1P4k5##/12##/14/14/##12/##10p1/##K11 w - - 0 1");
  ck_assert(has_move(s, "b7-b8=Q"));
  ck_assert(has_move(s, "b7-b8=N"));
  refuse(s, "b7-b8", REF_EILLEGAL, "promotion-piece-missing");
  ts_play_words(G, s, "b8=R m2-m1=Q+");
  ck_assert_int_eq(piece_at(s, "b8"), 'R');
  ck_assert_int_eq(piece_at(s, "m1"), 'q');
  free(s);
  /* A sideways pawn on its promotion row cannot exist: a White pawn on row
   * 8 is refused, on row 1 accepted (it starts there), and the reverse for
   * Black. */
  {
    struct ref_state *t = state_new(NULL);
    struct ref_err err;
    ck_assert_int_eq(G->ops->decode(t, "P5k5##/12##/12##/14/14/##12/##12/##K11 w - - 0 1", &err),
                     REF_EINVAL);
    ck_assert_str_eq(err.reason, "geo-fen-pawn-row");
    ck_assert_int_eq(G->ops->decode(t, "6k5##/12##/12##/14/14/##12/##12/##K3p7 w - - 0 1", &err),
                     REF_EINVAL);
    ck_assert_str_eq(err.reason, "geo-fen-pawn-row");
    ck_assert_int_eq(G->ops->decode(t, "6k5##/12##/12##/14/14/##12/##12/##K3P7 w - - 0 1", &err),
                     REF_OK);
    free(t);
  }
}
END_TEST

/* ---- perft ---- */

/* perft.txt: both boards' start to depth 4 (BB-1 default and option), and
 * random positions to depth 3; every number was reproduced by the
 * independent generator tests/oracles/backtoback_perft.py. The generic
 * walk (legal + apply, with ok() after each apply) agrees at depth 2. */
START_TEST(test_bb_perft_table)
{
  char *data = ts_read(DATA "perft.txt"), *cursor = data, *line, *f[4];
  int rows = 0;

  while((line = ts_next_line(&cursor))) {
    struct ref_state *s;
    char *p;
    int d;
    if(!*line || *line == '#')
      continue;
    ck_assert_int_eq(split_bars(line, f, 4), 3);
    s = state_new(NULL);
    {
      struct ref_err err;
      ck_assert_msg(G->ops->decode(s, f[1], &err) == REF_OK, "%s: %s", f[1], err.reason);
    }
    p = f[2];
    for(d = 1; *p; d++) {
      unsigned long long want = strtoull(p, &p, 10), got = G->ops->perft(s, d);
      ck_assert_msg(got == want, "%s %s d%d: %llu, want %llu", f[0], f[1], d, got, want);
      if(d == 2) {
        struct ref_movelist list = {0};
        struct ref_state *c = ref_state_new(G);
        unsigned long long walk = 0;
        size_t i;
        ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
        for(i = 0; i < list.n; i++) {
          struct ref_movelist l2 = {0};
          memcpy(c, s, G->state_size);
          ck_assert_int_eq(G->ops->apply(c, &list.v[i]), REF_OK);
          ck_assert(G->ops->ok(c));
          ck_assert_int_eq(G->ops->legal(c, &l2), REF_OK);
          walk += l2.n;
          ref_movelist_free(&l2);
        }
        ck_assert_uint_eq(walk, want);
        ref_movelist_free(&list);
        free(c);
      }
      while(*p == ' ')
        p++;
    }
    rows++;
    free(s);
  }
  ck_assert_int_ge(rows, 2);
  free(data);
}
END_TEST

/* The plain chess board as a geometry: 8x8, no holes, no wall, forward
 * pawns starting on ranks 2 and 7, promotion on the last rank and no pawn
 * on the first, the orthodox castling (CH-1). */
static const struct ref_geo_spec chess8 = {
  "chess8",
  8,
  8,
  "",
  0,
  {{0, 0, 0}, {0, 0, 0}},
  false,
  {"a2 b2 c2 d2 e2 f2 g2 h2", "a7 b7 c7 d7 e7 f7 g7 h7"},
  {7, 0},
  {1u, 1u << 7},
  {{'K', "e1", "g1", "h1", "f1", "f1 g1", "e1 f1 g1"},
   {'Q', "e1", "c1", "a1", "d1", "b1 c1 d1", "e1 d1 c1"},
   {'k', "e8", "g8", "h8", "f8", "f8 g8", "e8 f8 g8"},
   {'q', "e8", "c8", "a8", "d8", "b8 c8 d8", "e8 d8 c8"}},
  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
};

/* The machinery Back-to-Back Chess runs on reproduces the published chess
 * perft numbers on the 8x8 board (oracles.md §1.2, positions 1-6 and 4's
 * mirror, to depth 4): the generalisation checked against an outside oracle. */
START_TEST(test_bb_machinery_chess8_perft)
{
  char *data = ts_read(DATA "chess8_perft.txt"), *cursor = data, *line, *f[2];
  struct ref_geo *g = malloc(sizeof(*g));
  int rows = 0, maxdepth = (int)ts_env_long("TABULA_PERFT_MAXDEPTH", 4);

  ck_assert_ptr_nonnull(g);
  ck_assert_int_eq(ref_geo_build(g, &chess8), REF_OK);
  while((line = ts_next_line(&cursor))) {
    struct ref_geo_pos pos;
    const char *reason;
    char again[256], *p;
    int d;
    if(!*line || *line == '#')
      continue;
    ck_assert_int_eq(split_bars(line, f, 2), 2);
    ck_assert_msg(ref_geo_fen_read(g, &pos, f[0], &reason) == REF_OK, "%s: %s", f[0], reason);
    ck_assert(ref_geo_pos_ok(g, &pos));
    ck_assert_int_eq(ref_geo_fen_write(g, &pos, again, sizeof(again)), REF_OK);
    ck_assert_str_eq(again, f[0]);
    p = f[1];
    for(d = 1; *p && d <= maxdepth; d++) {
      unsigned long long want = strtoull(p, &p, 10), got = ref_geo_perft(g, &pos, d);
      ck_assert_msg(got == want, "%s d%d: %llu, want %llu", f[0], d, got, want);
      while(*p == ' ')
        p++;
    }
    rows++;
  }
  ck_assert_int_eq(rows, 7);
  free(g);
  free(data);
}
END_TEST

/* ---- invariants over random games ---- */

static bool is_hole(const char *holes, int col, int row)
{
  char name[3] = {(char)('a' + col), (char)('1' + row), 0};
  const char *p = strstr(holes, name);
  return p && (p == holes || p[-1] == ' ') && (p[2] == ' ' || !p[2]);
}

/* BB-2, computed here from coordinates: does the single step (c0,r0) ->
 * (c1,r1) go between rows 4 and 5 (0-based 3, 4) with both files in F-I? */
static bool crosses_barrier(int c0, int r0, int c1, int r1)
{
  return ((r0 == 3 && r1 == 4) || (r0 == 4 && r1 == 3)) && c0 >= 5 && c0 <= 8 && c1 >= 5 &&
         c1 <= 8;
}

/* Checks one played move, given by its canonical text, against BB-1/2/3
 * without the code under test: every cell its path touches is a square and
 * no step of it crosses the barrier. */
static void check_path(const char *holes, const char *mv)
{
  const char *p = mv;
  int c0, r0, c1, r1, dc, dr, sc, sr;
  bool knight = *p == 'N';

  if(!strncmp(mv, "O-O", 3))
    return; /* the fixed BB-8 shapes, tested by square */
  if(*p >= 'A' && *p <= 'Z')
    p++;
  c0 = p[0] - 'a';
  r0 = p[1] - '1';
  c1 = p[3] - 'a';
  r1 = p[4] - '1';
  REQUIRE(!is_hole(holes, c0, r0) && !is_hole(holes, c1, r1), "%s: ends on a hole", mv);
  dc = c1 - c0;
  dr = r1 - r0;
  if(knight) {
    /* BB-3: two along the long axis, then one across. */
    int pc[3], pr[3], i, cc = c0, cr = r0;
    if(abs(dr) == 2) {
      pc[0] = c0, pr[0] = r0 + dr / 2, pc[1] = c0, pr[1] = r1;
    }
    else {
      pc[0] = c0 + dc / 2, pr[0] = r0, pc[1] = c1, pr[1] = r0;
    }
    pc[2] = c1, pr[2] = r1;
    for(i = 0; i < 3; i++) {
      REQUIRE(!is_hole(holes, pc[i], pr[i]), "%s: knight over a hole", mv);
      REQUIRE(!crosses_barrier(cc, cr, pc[i], pr[i]), "%s: knight across BB-2", mv);
      cc = pc[i];
      cr = pr[i];
    }
    return;
  }
  REQUIRE(dc == 0 || dr == 0 || abs(dc) == abs(dr), "%s: not a line", mv);
  sc = (dc > 0) - (dc < 0);
  sr = (dr > 0) - (dr < 0);
  while(c0 != c1 || r0 != r1) {
    REQUIRE(!crosses_barrier(c0, r0, c0 + sc, r0 + sr), "%s crosses the barrier", mv);
    c0 += sc;
    r0 += sr;
    REQUIRE(!is_hole(holes, c0, r0), "%s passes a hole", mv);
  }
}

/* The position string's holes are exactly the board's (BB-1): no piece on a
 * missing cell, every missing cell drawn. */
static void check_holes(const struct ref_state *s, const char *holes)
{
  char grid[8][15];
  int row, col;
  board_grid(s, grid);
  for(row = 0; row < 8; row++)
    for(col = 0; col < 14; col++)
      REQUIRE((grid[row][col] == '#') == is_hole(holes, col, row), "cell %c%d",
                    'a' + col, row + 1);
}

/* Seeded random games on both boards: after every move ok(), the holes
 * (BB-1), the move's path (BB-2, BB-3); notation round trips (canonical and
 * computer text parse back to the same move) and position round trips. */
START_TEST(test_bb_random_playouts)
{
  long games = ts_env_long("TABULA_BB_GAMES", 60), g;
  int cap = (int)ts_env_long("TABULA_BB_PLIES", 300);
  long plies = 0, ends[REF_END_LAST] = {0};

  rng_state = 0xB2B2000000000009ull;
  for(g = 0; g < games; g++) {
    bool corners = g % 2;
    const char *holes = corners ? holes_corners : holes_pinwheel;
    struct ref_state *s = state_new(corners ? "b2b_board=corners" : NULL);
    struct ref_state *d = state_new(NULL);
    struct ref_movelist list = {0};
    struct ref_status st;
    int ply;

    ck_assert_ptr_nonnull(d);
    for(ply = 0; ply < cap; ply++) {
      struct ref_move m, back;
      struct ref_err err;
      char canon[REF_NOTATION_MAX], comp[REF_NOTATION_MAX], fen[256], fen2[256];

      G->ops->status(s, &st);
      if(st.phase == REF_PHASE_OVER)
        break;
      ref_movelist_clear(&list);
      REQUIRE(G->ops->legal(s, &list) == REF_OK && list.n > 0, "no legal move in a running game");
      m = list.v[ts_lcg(&rng_state) % list.n];
      canonical(s, &m, canon);
      REQUIRE(G->ops->format(s, &m, REF_NOTATION_COMPUTER, comp, sizeof(comp)) == REF_OK,
              "format");
      REQUIRE(G->ops->parse(s, canon, &back, &err) == REF_OK, "parse %s: %s", canon,
                    err.reason);
      REQUIRE(!memcmp(&back, &m, sizeof(m)), "%s parses to another move", canon);
      REQUIRE(G->ops->parse(s, comp, &back, &err) == REF_OK, "parse %s: %s", comp,
                    err.reason);
      REQUIRE(!memcmp(&back, &m, sizeof(m)), "%s parses to another move", comp);
      check_path(holes, canon);
      REQUIRE(G->ops->apply(s, &m) == REF_OK, "apply %s", canon);
      REQUIRE(G->ops->ok(s), "ok() after %s", canon);
      check_holes(s, holes);
      encode(s, fen, sizeof(fen));
      REQUIRE(G->ops->decode(d, fen, &err) == REF_OK, "decode %s: %s", fen, err.reason);
      encode(d, fen2, sizeof(fen2));
      REQUIRE(!strcmp(fen, fen2), "%s round-trips to %s", fen, fen2);
      plies++;
    }
    G->ops->status(s, &st);
    ends[st.phase == REF_PHASE_OVER ? st.end : REF_END_NONE]++;
    ref_movelist_free(&list);
    free(s);
    free(d);
  }
  ck_assert_int_gt(plies, games * 20);
  /* Random play must reach real endings, not only the cap. */
  ck_assert_int_gt(ends[REF_END_CHECKMATE] + ends[REF_END_STALEMATE] + ends[REF_END_DEAD_POSITION] +
                     ends[REF_END_FIVEFOLD] + ends[REF_END_SEVENTY_FIVE],
                   0);
}
END_TEST

/* ---- parsing ---- */

/* parse.txt: "POSITION | input | canonical" or "... | !reason". POSITION
 * is a position string, or "start" / "corners". */
START_TEST(test_bb_parse_cases)
{
  char *data = ts_read(DATA "parse.txt"), *cursor = data, *line, *f[3];
  int rows = 0;

  while((line = ts_next_line(&cursor))) {
    struct ref_state *s;
    struct ref_move m;
    struct ref_err err;
    int rc;
    if(!*line || *line == '#')
      continue;
    ck_assert_int_eq(split_bars(line, f, 3), 3);
    if(!strcmp(f[0], "start"))
      s = state_new(NULL);
    else if(!strcmp(f[0], "corners"))
      s = state_new("b2b_board=corners");
    else
      s = state_fen(f[0]);
    memset(&err, 0, sizeof(err));
    rc = G->ops->parse(s, f[1], &m, &err);
    if(f[2][0] == '!') {
      ck_assert_msg(rc != REF_OK, "%s: accepted, want %s", f[1], f[2]);
      ck_assert_msg(!strcmp(err.reason, f[2] + 1), "%s: reason %s, want %s", f[1], err.reason,
                    f[2] + 1);
      ts_assert_worded(err.reason);
      ck_assert_int_le(err.nsuggest, REF_SUGGEST_MAX);
    }
    else {
      char canon[REF_NOTATION_MAX];
      ck_assert_msg(rc == REF_OK, "%s: %s (%s)", f[1], err.reason, err.detail);
      canonical(s, &m, canon);
      ck_assert_msg(!strcmp(canon, f[2]), "%s: %s, want %s", f[1], canon, f[2]);
    }
    free(s);
    rows++;
  }
  ck_assert_int_ge(rows, 30);
  free(data);
}
END_TEST

/* Hostile input: random bytes, long lines, NULL. Never accepted by chance
 * in a way that changes the position; never a crash. */
START_TEST(test_bb_parse_garbage)
{
  static const char *const junk[] = {
    "", " ", "\n", "O-O-O-O", "Kn", "Kt", "N", "xx", "a0-a1", "o1-o2", "a9", "Zz9", "e2-e2",
    "Qxx4", "=Q", "e8=K", "e8=P", "-----", "e4 e5", "\xff\xfe", "N g3-e4", "g3-e4-e5",
    "Ng3xe4xd6", "P", "PPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPP",
  };
  struct ref_state *s = state_new(NULL);
  struct ref_move m;
  struct ref_err err;
  char before[256], after[256], buf[64];
  size_t i;
  int k;

  encode(s, before, sizeof(before));
  for(i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
    int rc = G->ops->parse(s, junk[i], &m, &err);
    ck_assert_msg(rc != REF_OK, "junk '%s' accepted", junk[i]);
    ts_assert_worded(err.reason);
  }
  ck_assert_int_eq(G->ops->parse(s, NULL, &m, &err), REF_EPARSE);
  rng_state = 42;
  for(k = 0; k < 3000; k++) {
    int len = (int)(ts_lcg(&rng_state) % 12), j;
    for(j = 0; j < len; j++)
      buf[j] = (char)(1 + ts_lcg(&rng_state) % 255);
    buf[len] = '\0';
    if(G->ops->parse(s, buf, &m, &err) == REF_OK) {
      /* Whatever was accepted is a legal move that formats. */
      char canon[REF_NOTATION_MAX];
      canonical(s, &m, canon);
    }
    else {
      ts_assert_worded(err.reason);
    }
  }
  encode(s, after, sizeof(after));
  ck_assert_str_eq(before, after);
  /* apply refuses a move that is not legal here; format too. */
  memset(&m, 0, sizeof(m));
  m.w[0] = 0x7FFFF;
  ck_assert_int_eq(G->ops->apply(s, &m), REF_EILLEGAL);
  ck_assert_int_eq(G->ops->format(s, &m, REF_NOTATION_CANONICAL, buf, sizeof(buf)), REF_EINVAL);
  free(s);
}
END_TEST

/* Refusals carry suggestions: the nearest legal moves (§1.4). */
START_TEST(test_bb_parse_suggestions)
{
  struct ref_state *s = state_new(NULL);
  struct ref_move m;
  struct ref_err err;
  int i;
  bool seen = false;

  ck_assert_int_eq(G->ops->parse(s, "Ng3-f5", &m, &err), REF_EILLEGAL);
  ck_assert_int_gt(err.nsuggest, 0);
  for(i = 0; i < err.nsuggest; i++)
    if(!strcmp(err.suggest[i], "Ng3-e4"))
      seen = true;
  ck_assert(seen);
  /* §1.4: two pawns can step sideways to d2, so SAN "d2" is refused and
   * both moves offered. */
  free(s);
  s = state_fen("6k5##/12##/12##/14/14/##12/##P1P9/##5K6 w - - 0 1");
  ck_assert_int_eq(G->ops->parse(s, "d2", &m, &err), REF_EAMBIGUOUS);
  ck_assert_int_eq(err.nsuggest, 2);
  ck_assert_str_eq(err.suggest[0], "c2-d2");
  ck_assert_str_eq(err.suggest[1], "e2-d2");
  free(s);
}
END_TEST

/* ---- results (§2.3, CH-2 as in chess) ---- */

START_TEST(test_bb_checkmate_and_stalemate)
{
  struct ref_state *s;
  struct ref_status st;

  /* The holes help: a king on c1 has no b1, b2 (BB-1). */
  s = state_fen("12##/12##/12##/14/6R7/##12/##12/##k1K9 w - - 0 1");
  ts_play_words(G, s, "Ke1-e2 Kc1-c2 Rg4-c4#");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_CHECKMATE);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.points, 1);
  ck_assert(st.in_check);
  refuse(s, "Kc2-c3", REF_EPHASE, "game-over");
  free(s);

  /* Stalemate: Black king n1, White queen l2. */
  s = state_fen("12##/12##/12##/14/14/##12/##9Q2/##5K5k b - - 0 1");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_STALEMATE);
  ck_assert_int_eq(st.winner, -1);
  free(s);
}
END_TEST

/* CH-2: threefold by claim, fivefold automatic; knights shuffle. */
START_TEST(test_bb_repetition)
{
  struct ref_state *s = state_new(NULL);
  struct ref_status st;
  struct ref_err err;

  ts_play_words(G, s, "Ng3-e2 Nh6-j7 Ne2-g3 Nj7-h6");
  G->ops->status(s, &st);
  ck_assert(!st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "draw-not-claimable");
  ts_play_words(G, s, "Ng3-e2 Nh6-j7 Ne2-g3 Nj7-h6");
  G->ops->status(s, &st);
  ck_assert(st.draw_claimable);
  ts_play_words(G, s, "Ng3-e2 Nh6-j7 Ne2-g3 Nj7-h6 Ng3-e2 Nh6-j7 Ne2-g3");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ts_play_words(G, s, "Nj7-h6");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_FIVEFOLD);
  free(s);

  s = state_new(NULL);
  ts_play_words(G, s, "Ng3-e2 Nh6-j7 Ne2-g3 Nj7-h6 Ng3-e2 Nh6-j7 Ne2-g3 Nj7-h6");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, &err), REF_OK);
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_THREEFOLD);
  ck_assert_int_eq(st.winner, -1);
  ck_assert(G->ops->ok(s));
  free(s);
}
END_TEST

/* CH-2: fifty moves by claim, seventy-five automatic; dead positions;
 * fide_draws=off. */
START_TEST(test_bb_move_rules_and_dead_positions)
{
  struct ref_state *s;
  struct ref_status st;
  struct ref_err err;

  s = state_fen("6k5##/12##/12##/14/14/##12/##R11/##5K6 w - - 99 80");
  ts_play_words(G, s, "Kh1-h2");
  G->ops->status(s, &st);
  ck_assert(st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_OK);
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_FIFTY_MOVES);
  free(s);

  s = state_fen("6k5##/12##/12##/14/14/##12/##R11/##5K6 w - - 149 80");
  ts_play_words(G, s, "Kh1-h2");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_SEVENTY_FIVE);
  free(s);

  /* K+B v K, K+N v K, same-coloured bishops: dead (automatic). */
  s = state_fen("6k5##/12##/12##/14/14/##12/##B11/##5K6 w - - 0 1");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_DEAD_POSITION);
  free(s);
  s = state_fen("6k5##/12##/12##/14/14/##12/##N11/##5K6 w - - 0 1");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_DEAD_POSITION);
  free(s);
  /* c2 and e2 are the same colour (row + col even), d2 the other. */
  s = state_fen("6k5##/12##/12##/14/14/##12/##B1b9/##5K6 w - - 0 1");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_DEAD_POSITION);
  free(s);
  s = state_fen("6k5##/12##/12##/14/14/##12/##Bb10/##5K6 w - - 0 1");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  free(s);

  /* fide_draws=off: no automatic or claimed draws. */
  s = state_new("fide_draws=off;fen=6k5##/12##/12##/14/14/##12/##B11/##5K6 w - - 149 80");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ts_play_words(G, s, "Kh1-h2");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert(!st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "draw-rules-off");
  free(s);
}
END_TEST

START_TEST(test_bb_actions)
{
  struct ref_state *s = state_new(NULL);
  struct ref_status st;
  struct ref_err err;

  ck_assert_int_eq(G->ops->act(s, 2, REF_ACT_RESIGN, 1, &err), REF_EINVAL);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ts_assert_worded(err.reason);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_LAST, 0, &err), REF_EINVAL);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 1, &err), REF_OK);
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_RESIGNATION);
  ck_assert_int_eq(st.winner, 1);
  ck_assert(G->ops->ok(s));
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_AGREED, 0, &err), REF_EPHASE);
  free(s);

  s = state_new(NULL);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_AGREED, 0, &err), REF_OK);
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_AGREEMENT);
  ck_assert_int_eq(st.points, 0);
  free(s);
}
END_TEST

/* ---- options, positions, board ---- */

START_TEST(test_bb_options)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  char fen[256], before[256];

  ck_assert_ptr_nonnull(s);
  /* BB-1: pinwheel by default, corners by option (and the BB-D2 alias). */
  ck_assert_int_eq(G->ops->init(s, NULL, &err), REF_OK);
  encode(s, fen, sizeof(fen));
  ck_assert_str_eq(fen, START_PINWHEEL);
  ck_assert_int_eq(G->ops->init(s, "b2b_board=corners", &err), REF_OK);
  encode(s, fen, sizeof(fen));
  ck_assert_str_eq(fen, START_CORNERS);
  ck_assert_int_eq(G->ops->init(s, "geometry=corner", &err), REF_OK);
  encode(s, fen, sizeof(fen));
  ck_assert_str_eq(fen, START_CORNERS);
  ck_assert_int_eq(G->ops->init(s, " b2b_board = pinwheel ; fide_draws=on;", &err), REF_OK);
  encode(s, fen, sizeof(fen));
  ck_assert_str_eq(fen, START_PINWHEEL);

  /* fen= with "_" for spaces (BB-D2); the holes choose the board. */
  ck_assert_int_eq(
    G->ops->init(s, "fen=12##/12##/12##/14/6R7/##12/##12/##k1K9_w_-_-_0_1", &err), REF_OK);
  encode(s, fen, sizeof(fen));
  ck_assert_str_eq(fen, "12##/12##/12##/14/6R7/##12/##12/##k1K9 w - - 0 1");
  ck_assert_int_eq(G->ops->init(s, "fen=" START_CORNERS, &err), REF_OK);
  encode(s, fen, sizeof(fen));
  ck_assert_str_eq(fen, START_CORNERS);

  /* Refused, and the state kept. */
  encode(s, before, sizeof(before));
  ck_assert_int_eq(G->ops->init(s, "b2b_board=hexagon", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bb-bad-option");
  ck_assert_int_eq(G->ops->init(s, "fide_draws=maybe", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bb-bad-option");
  ck_assert_int_eq(G->ops->init(s, "b2b_board=corners;geometry=pinwheel", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bb-bad-option");
  ck_assert_int_eq(G->ops->init(s, "colour=red", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bb-unknown-option");
  ts_assert_worded(err.reason);
  ck_assert_str_eq(err.detail, "colour");
  /* A corners position on the pinwheel board asked for explicitly. */
  ck_assert_int_eq(G->ops->init(s, "b2b_board=pinwheel;fen=" START_CORNERS, &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "geo-fen-board");
  ck_assert_int_eq(G->ops->init(s, "fen=garbage", &err), REF_EINVAL);
  encode(s, fen, sizeof(fen));
  ck_assert_str_eq(fen, before);
  free(s);
}
END_TEST

/* fen_invalid.txt: "reason | position"; decode refuses with that key and
 * leaves the state as it was. */
START_TEST(test_bb_fen_invalid)
{
  char *data = ts_read(DATA "fen_invalid.txt"), *cursor = data, *line, *f[2];
  struct ref_state *s = state_new(NULL);
  char before[256], after[256];
  int rows = 0;

  encode(s, before, sizeof(before));
  while((line = ts_next_line(&cursor))) {
    struct ref_err err;
    if(!*line || *line == '#')
      continue;
    ck_assert_int_eq(split_bars(line, f, 2), 2);
    memset(&err, 0, sizeof(err));
    ck_assert_msg(G->ops->decode(s, f[1], &err) == REF_EINVAL, "accepted: %s", f[1]);
    ck_assert_msg(!strcmp(err.reason, f[0]), "%s: %s, want %s", f[1], err.reason, f[0]);
    ts_assert_worded(err.reason);
    encode(s, after, sizeof(after));
    ck_assert_str_eq(before, after);
    ck_assert(G->ops->ok(s));
    rows++;
  }
  ck_assert_int_ge(rows, 15);
  free(s);
  free(data);
}
END_TEST

/* The invariant checker catches what it must (BB-1: no piece on a hole). */
START_TEST(test_bb_pos_ok_catches)
{
  struct ref_geo *g = malloc(sizeof(*g));
  struct ref_geo_pos p, bad;
  const char *reason;
  struct ref_geo_spec pin = {
    "pinwheel", 14, 8, "a1 b1 a2 b2 a3 b3 m6 n6 m7 n7 m8 n8", 1, {{3, 5, 8}, {0, 0, 0}}, true,
    {"f1 f2 f3 f4 i1 i2 i3 i4", "f5 f6 f7 f8 i5 i6 i7 i8"}, {7, 0}, {0, 0},
    {{'K', "h1", "h3", "h4", "h2", "h2 h3", "h1 h2 h3"},
     {'Q', "h1", "g2", "g4", "g1", "g1 g2 g3", "h1 g1 g2"},
     {'k', "g8", "g6", "g5", "g7", "g7 g6", "g8 g7 g6"},
     {'q', "g8", "h7", "h5", "h8", "h8 h7 h6", "g8 h8 h7"}},
    START_PINWHEEL};

  ck_assert_ptr_nonnull(g);
  ck_assert_int_eq(ref_geo_build(g, &pin), REF_OK);
  ck_assert_int_eq(ref_geo_fen_read(g, &p, START_PINWHEEL, &reason), REF_OK);
  ck_assert(ref_geo_pos_ok(g, &p));
  ck_assert_uint_eq(ref_geo_perft(g, &p, 3), 10290);
  bad = p;
  bad.board[0] = REF_GEO_PIECE(REF_GEO_WHITE, REF_GEO_ROOK); /* a1: a hole */
  ck_assert(!ref_geo_pos_ok(g, &bad));
  bad = p;
  bad.virgin[0] |= 1u; /* a virgin pawn where there is none */
  ck_assert(!ref_geo_pos_ok(g, &bad));
  bad = p;
  bad.king[0] = 0;
  ck_assert(!ref_geo_pos_ok(g, &bad));
  bad = p;
  bad.ep = 4 * REF_GEO_ROW + 4; /* e5: no pawn just crossed it */
  bad.ep_victim = 4 * REF_GEO_ROW + 3;
  ck_assert(!ref_geo_pos_ok(g, &bad));
  /* The tables: missing cells have no steps; the barrier has none across. */
  ck_assert_int_eq(g->exists[0], 0);
  ck_assert_int_eq(g->step[3 * REF_GEO_ROW + 6][REF_GEO_N], REF_GEO_NONE);  /* g4-g5 */
  ck_assert_int_eq(g->step[3 * REF_GEO_ROW + 5][REF_GEO_NE], REF_GEO_NONE); /* f4-g5 */
  ck_assert_int_ne(g->step[3 * REF_GEO_ROW + 5][REF_GEO_NW], REF_GEO_NONE); /* f4-e5 */
  ck_assert_int_ne(g->step[3 * REF_GEO_ROW + 4][REF_GEO_NE], REF_GEO_NONE); /* e4-f5 */
  /* The game's state holds the tables (plain data, copied with memcpy). */
  ck_assert_uint_gt(G->state_size, sizeof(struct ref_geo));
  free(g);
}
END_TEST

START_TEST(test_bb_render)
{
  static const struct {
    const char *options, *file;
    int seat;
  } cases[] = {
    {NULL, "render_start_white.txt", 0},
    {NULL, "render_start_black.txt", 1},
    {"b2b_board=corners", "render_corners_white.txt", 0},
  };
  char buf[4096], small[16];
  size_t i;

  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct ref_state *s = state_new(cases[i].options);
    char *want = ts_readf(DATA "%s", cases[i].file), *line, *cursor;
    ck_assert_int_eq(G->ops->render(s, cases[i].seat, buf, sizeof(buf)), REF_OK);
    ck_assert_str_eq(buf, want);
    /* Plain ASCII, at most 72 columns (rules.h). */
    cursor = buf;
    while((line = ts_next_line(&cursor))) {
      const char *c;
      ck_assert_int_le(strlen(line), 72);
      for(c = line; *c; c++)
        ck_assert(*c >= ' ' && *c < 0x7f);
    }
    ck_assert_int_eq(G->ops->render(s, 0, small, sizeof(small)), REF_EINVAL);
    free(want);
    free(s);
  }
}
END_TEST

static Suite *bb_suite(void)
{
  Suite *s = suite_create("backtoback");
  TCase *tc;

  tc = tcase_create("spec");
  tcase_add_test(tc, test_bb_desc);
  tcase_add_test(tc, test_bb_t1_twenty_opening_moves);
  tcase_add_test(tc, test_bb_t1_black_symmetric);
  tcase_add_test(tc, test_bb_t2_castling_sequence);
  tcase_add_test(tc, test_bb_t2_castling_shapes);
  tcase_add_test(tc, test_bb_t3_sideways_en_passant);
  tcase_add_test(tc, test_bb_t4_barrier_ends);
  tcase_add_test(tc, test_bb_knight_path_over_holes);
  tcase_add_test(tc, test_bb_pawns);
  suite_add_tcase(s, tc);

  tc = tcase_create("perft");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_bb_perft_table);
  tcase_add_test(tc, test_bb_machinery_chess8_perft);
  suite_add_tcase(s, tc);

  tc = tcase_create("random");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_bb_random_playouts);
  tcase_add_test(tc, test_bb_parse_garbage);
  suite_add_tcase(s, tc);

  tc = tcase_create("parse");
  tcase_add_test(tc, test_bb_parse_cases);
  tcase_add_test(tc, test_bb_parse_suggestions);
  suite_add_tcase(s, tc);

  tc = tcase_create("results");
  tcase_add_test(tc, test_bb_checkmate_and_stalemate);
  tcase_add_test(tc, test_bb_repetition);
  tcase_add_test(tc, test_bb_move_rules_and_dead_positions);
  tcase_add_test(tc, test_bb_actions);
  suite_add_tcase(s, tc);

  tc = tcase_create("text");
  tcase_add_test(tc, test_bb_options);
  tcase_add_test(tc, test_bb_fen_invalid);
  tcase_add_test(tc, test_bb_pos_ok_catches);
  tcase_add_test(tc, test_bb_render);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  G = ref_game_find("backtoback");
  return unit_run(bb_suite());
}
