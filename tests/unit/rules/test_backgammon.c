/*
 * test_backgammon.c: the backgammon rules core (referee/rules/backgammon.c)
 * against GNU Backgammon and against docs/rules-spec.md section 4.
 *
 * - oracle: the legal plays of 10,080 random (position, roll) queries, as
 *   sets of resulting Position IDs and as gnubg's notation, compared with
 *   tests/data/backgammon/plays.txt (made by tests/oracles/gen_bg_plays.sh
 *   from gnubg 1.07); full lists for the first 210 queries.
 * - the spec's cases T-BG-1..3, Position ID / Match ID round trips and the
 *   gnubg manual's Match ID example;
 * - cube and scoring, resignation, forced and no-move turns, input
 *   tolerance and refusals;
 * - 1,000 random playouts with ops->ok after every step;
 * - the rendered start position from both sides (tests/data/backgammon/).
 */
#include "backgammon_int.h"
#include "rules.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TABULA_TEST_DATA "/backgammon/"

extern const struct ref_game_desc ref_game_backgammon;
static const struct ref_game_desc *G = &ref_game_backgammon;

/* ---- helpers ----------------------------------------------------------- */

static uint64_t fnv(uint64_t h, const char *s)
{
  for(; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3u;
  }
  return h;
}

#define FNV0 0xcbf29ce484222325u

struct row {
  char id[16];
  char mv[64];
};

static int row_cmp(const void *a, const void *b)
{
  const struct row *x = a, *y = b;
  int c = strcmp(x->id, y->id);
  return c ? c : strcmp(x->mv, y->mv);
}

/* Our answer to a query in gnubg_moves.py's form: per distinct play the
 * resulting Position ID (next roller's view) and the notation, sorted;
 * n = 0 for a roll with no legal play. */
static size_t our_rows(const char *pid, int d1, int d2, struct row **out)
{
  struct ref_bg_board b, r;
  struct ref_bg_playlist list = {0};
  struct row *rows;
  size_t i, n = 0;

  ck_assert_int_eq(ref_bg_position_decode(&b, 0, pid), 0);
  ck_assert_int_eq(ref_bg_plays(&b, 0, d1, d2, &list), 0);
  rows = calloc(list.n + 1, sizeof(*rows));
  ck_assert_ptr_nonnull(rows);
  for(i = 0; i < list.n; i++) {
    if(list.v[i].n == 0) {
      ck_assert_uint_eq(list.n, 1);
      break;
    }
    r = b;
    ref_bg_play_apply(&r, 0, &list.v[i]);
    ck_assert(!memcmp(&r, &list.res[i], sizeof(r)));
    ck_assert(ref_bg_board_ok(&r));
    ref_bg_position_id(&r, 1, rows[n].id);
    ck_assert_int_gt(ref_bg_play_format(&b, 0, &list.v[i], rows[n].mv, sizeof(rows[n].mv)), 0);
    n++;
  }
  qsort(rows, n, sizeof(*rows), row_cmp);
  ref_bg_playlist_free(&list);
  *out = rows;
  return n;
}

/* ---- 1. legal plays against gnubg --------------------------------------- */

START_TEST(test_oracle_compact)
{
  FILE *f = fopen(DATA "plays.txt", "r");
  char pid[32], line[256], buf[128];
  unsigned long long want_ids, want_lines;
  int d1, d2, want_n, nq = 0, bad = 0, nomove = 0, bar = 0, off = 0, dbl = 0, hits = 0;
  size_t n, i;
  uint64_t h_ids, h_lines;
  struct row *rows;

  ck_assert_ptr_nonnull(f);
  while(fgets(line, sizeof(line), f)) {
    ck_assert_int_eq(sscanf(line, "%31s %d %d %d %llx %llx", pid, &d1, &d2, &want_n, &want_ids,
                            &want_lines), 6);
    n = our_rows(pid, d1, d2, &rows);
    h_ids = h_lines = FNV0;
    for(i = 0; i < n; i++) {
      snprintf(buf, sizeof(buf), "%s\n", rows[i].id);
      h_ids = fnv(h_ids, buf);
      snprintf(buf, sizeof(buf), "%s\t%s\n", rows[i].id, rows[i].mv);
      h_lines = fnv(h_lines, buf);
      bar += !strncmp(rows[i].mv, "bar", 3);
      off += strstr(rows[i].mv, "off") != NULL;
      hits += strchr(rows[i].mv, '*') != NULL;
    }
    nomove += n == 0;
    dbl += d1 == d2;
    if((int)n != want_n || h_ids != want_ids || h_lines != want_lines) {
      if(bad < 10)
        fprintf(stderr, "query %d: %s %d %d: %zu plays (gnubg %d)%s\n", nq, pid, d1, d2, n,
                want_n, h_ids == want_ids ? " same positions, other notation" : "");
      bad++;
    }
    free(rows);
    nq++;
  }
  fclose(f);
  fprintf(stderr, "backgammon oracle: %d queries, %d differ; %d no-move, %d doubles, "
          "plays with bar entry %d, bear-off %d, hits %d\n", nq, bad, nomove, dbl, bar, off, hits);
  ck_assert_int_ge(nq, 10000);
  /* The data must exercise every rule it is meant to cover. */
  ck_assert_int_gt(nomove, 10);
  ck_assert_int_gt(bar, 100);
  ck_assert_int_gt(off, 100);
  ck_assert_int_gt(hits, 100);
  ck_assert_int_eq(bad, 0);
}
END_TEST

/* The first 210 queries with gnubg's full answer: a difference is shown
 * play by play. */
START_TEST(test_oracle_full)
{
  FILE *f = fopen(DATA "plays_full.txt", "r");
  char line[256], pid[32], roll[8];
  struct row *want = NULL, *got = NULL;
  size_t nwant = 0, cap = 0, ngot, i, j;
  int want_n, nq = 0, bad = 0;
  bool more = true;

  ck_assert_ptr_nonnull(f);
  if(!fgets(line, sizeof(line), f))
    ck_abort_msg("empty plays_full.txt");
  while(more) {
    ck_assert_int_eq(sscanf(line, "# %31s %7s n=%d", pid, roll, &want_n), 3);
    nwant = 0;
    more = false;
    while(fgets(line, sizeof(line), f)) {
      char *tab;
      if(line[0] == '#') {
        more = true;
        break;
      }
      line[strcspn(line, "\n")] = '\0';
      tab = strchr(line, '\t');
      ck_assert_ptr_nonnull(tab);
      *tab = '\0';
      if(nwant == cap) {
        cap = cap ? 2 * cap : 256;
        want = realloc(want, cap * sizeof(*want));
        ck_assert_ptr_nonnull(want);
      }
      snprintf(want[nwant].id, sizeof(want[nwant].id), "%.15s", line);
      snprintf(want[nwant].mv, sizeof(want[nwant].mv), "%.63s", tab + 1);
      nwant++;
    }
    ck_assert_uint_eq(nwant, (size_t)want_n);
    qsort(want, nwant, sizeof(*want), row_cmp);
    ngot = our_rows(pid, roll[0] - '0', roll[1] - '0', &got);
    for(i = j = 0; i < nwant || j < ngot;) {
      int c = i == nwant ? 1 : j == ngot ? -1 : strcmp(want[i].id, got[j].id);
      if(c == 0 && strcmp(want[i].mv, got[j].mv)) {
        fprintf(stderr, "%s %s: %s gnubg writes %s, we %s\n", pid, roll, want[i].id,
                want[i].mv, got[j].mv);
        bad++;
      }
      else if(c < 0)
        fprintf(stderr, "%s %s: missing %s %s\n", pid, roll, want[i].id, want[i].mv), bad++;
      else if(c > 0)
        fprintf(stderr, "%s %s: extra %s %s\n", pid, roll, got[j].id, got[j].mv), bad++;
      i += c <= 0;
      j += c >= 0;
    }
    free(got);
    nq++;
  }
  fclose(f);
  free(want);
  ck_assert_int_eq(nq, 210);
  ck_assert_int_eq(bad, 0);
}
END_TEST

/* ---- game helpers ------------------------------------------------------ */

static void put(struct ref_bg_board *b, int side, int p, int n)
{
  b->pt[side][p] = (uint8_t)n;
}

/* Borne-off counts make each side 15. */
static void close_board(struct ref_bg_board *b)
{
  int s, p, n;
  for(s = 0; s < 2; s++) {
    for(n = 0, p = 1; p <= REF_BG_BAR; p++)
      n += b->pt[s][p];
    ck_assert_int_le(n, 15);
    b->pt[s][REF_BG_OFF] = (uint8_t)(15 - n);
  }
  ck_assert(ref_bg_board_ok(b));
}

/* A game state through ops->decode: `onroll` to play d1-d2 (0 0: to roll),
 * the cube at 1 << log2 owned by owner. */
static struct ref_state *mk(const struct ref_bg_board *b, int onroll, int d1, int d2, int log2,
                            int owner)
{
  struct ref_bg_match m;
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  char pid[15], mid[13], text[40];

  memset(&m, 0, sizeof(m));
  m.cube_log2 = log2;
  m.cube_owner = owner;
  m.on_roll = m.turn = onroll;
  m.state = 1;
  m.dice[0] = d1;
  m.dice[1] = d2;
  ref_bg_position_id(b, onroll, pid);
  ref_bg_match_id(&m, mid);
  snprintf(text, sizeof(text), "%s:%s", pid, mid);
  ck_assert_ptr_nonnull(s);
  ck_assert_msg(G->ops->decode(s, text, &err) == REF_OK, "decode %s: %s", text, err.reason);
  ck_assert(G->ops->ok(s));
  return s;
}

static struct ref_state *start_game(void)
{
  struct ref_state *s = ref_state_new(G);
  ck_assert_int_eq(G->ops->init(s, NULL, NULL), REF_OK);
  return s;
}

static void roll(struct ref_state *s, int a, int b)
{
  int f[2] = {a, b};
  struct ref_err err;
  ck_assert_int_eq(G->ops->roll(s, f, 2, &err), REF_OK);
  ck_assert(G->ops->ok(s));
}

static struct ref_status status(const struct ref_state *s)
{
  struct ref_status st;
  G->ops->status(s, &st);
  return st;
}

/* Parse text; on success return the canonical notation in out. */
static int parse_fmt(const struct ref_state *s, const char *text, char *out, struct ref_err *err)
{
  struct ref_move m;
  int rc;
  memset(err, 0, sizeof(*err));
  rc = G->ops->parse(s, text, &m, err);
  if(rc == REF_OK)
    ck_assert_int_eq(G->ops->format(s, &m, REF_NOTATION_CANONICAL, out, 64), REF_OK);
  return rc;
}

static void play(struct ref_state *s, const char *text)
{
  struct ref_move m;
  struct ref_err err;
  ck_assert_msg(G->ops->parse(s, text, &m, &err) == REF_OK, "%s: %s", text, err.reason);
  ck_assert_int_eq(G->ops->apply(s, &m), REF_OK);
  ck_assert(G->ops->ok(s));
}

static void expect_ok(const struct ref_state *s, const char *text, const char *canon)
{
  char out[64];
  struct ref_err err;
  int rc = parse_fmt(s, text, out, &err);
  ck_assert_msg(rc == REF_OK, "'%s' refused: %d %s", text, rc, err.reason);
  ck_assert_msg(!strcmp(out, canon), "'%s' read as '%s', want '%s'", text, out, canon);
}

static void expect_err(const struct ref_state *s, const char *text, int code, const char *reason)
{
  char out[64];
  struct ref_err err;
  int rc = parse_fmt(s, text, out, &err), i;
  ck_assert_msg(rc == code, "'%s': rc %d want %d (%s)", text, rc, code, rc ? err.reason : out);
  if(reason)
    ck_assert_msg(!strcmp(err.reason, reason), "'%s': reason %s want %s", text, err.reason,
                  reason);
  /* Every suggestion is a legal play, written canonically. */
  for(i = 0; i < err.nsuggest; i++)
    expect_ok(s, err.suggest[i], err.suggest[i]);
}

/* The canonical notation of every legal play. */
static int legal_strings(const struct ref_state *s, char (*out)[64], int max)
{
  struct ref_movelist list = {0};
  size_t i;
  int n = 0;
  ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
  for(i = 0; i < list.n && n < max; i++, n++)
    ck_assert_int_eq(G->ops->format(s, &list.v[i], REF_NOTATION_CANONICAL, out[n], 64), REF_OK);
  ck_assert_int_eq((int)list.n, n);
  ref_movelist_free(&list);
  return n;
}

/* ---- 2. the spec's cases ------------------------------------------------ */

/* T-BG-1 and BG-1: White 3, Black 1 -> White plays 8/5 6/5. */
START_TEST(test_t_bg_1)
{
  struct ref_state *s = start_game();
  struct ref_status st = status(s);
  char enc[40];

  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  ck_assert_int_eq(st.need_faces, 2);
  ck_assert_int_eq(st.cube, 1);
  ck_assert_int_eq(st.cube_owner, -1);
  /* No double before the opening roll; no move before a roll. */
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, NULL), REF_EPHASE);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, NULL), REF_EPHASE);
  {
    struct ref_movelist list = {0};
    struct ref_move m;
    struct ref_err err;
    ck_assert_int_eq(G->ops->legal(s, &list), REF_EPHASE);
    ck_assert_int_eq(G->ops->parse(s, "8/5 6/5", &m, &err), REF_EPHASE);
    ck_assert_str_eq(err.reason, "bg-no-roll-yet");
    ck_assert_int_eq(G->ops->roll(s, (int[]){7, 1}, 2, &err), REF_EINVAL);
    ck_assert_int_eq(G->ops->roll(s, (int[]){3}, 1, &err), REF_EINVAL);
  }
  ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
  ck_assert_str_eq(enc, "4HPwATDgc/ABMA:MAAAAAAAAAAE");
  /* A tie is rolled again. */
  roll(s, 4, 4);
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  roll(s, 3, 1);
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert_int_eq(st.turn, 0);
  ck_assert_int_eq(st.ndice, 2);
  ck_assert_int_eq(st.dice[0] + st.dice[1], 4);
  expect_ok(s, "8/5 6/5", "8/5 6/5");
  play(s, "8/5 6/5");
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_CUBE);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(st.move_number, 2);
  free(s);

  /* Black's higher die starts: Black plays 5 and 2 in its own numbering. */
  s = start_game();
  roll(s, 2, 5);
  st = status(s);
  ck_assert_int_eq(st.turn, 1);
  expect_ok(s, "13/8 13/11", "13/11 13/8");
  free(s);
}
END_TEST

/* T-BG-2: only one die can be played and either could: the higher. */
START_TEST(test_t_bg_2)
{
  struct ref_bg_board b;
  struct ref_state *s;
  char legal[8][64];

  /* White's last checker on 13; Black holds White's 2 (Black's 23): 13/7
   * or 13/8 can be played, never both. */
  memset(&b, 0, sizeof(b));
  put(&b, 0, 13, 1);
  put(&b, 1, 23, 2);
  put(&b, 1, 6, 13);
  close_board(&b);
  s = mk(&b, 0, 6, 5, 0, -1);
  ck_assert_int_eq(legal_strings(s, legal, 8), 1);
  ck_assert_str_eq(legal[0], "13/7");
  expect_ok(s, "13/7", "13/7");
  expect_err(s, "13/8", REF_EILLEGAL, "bg-higher-die");
  expect_err(s, "13/2", REF_EILLEGAL, "bg-blocked");
  free(s);

  /* Only the lower can be played: then it must be. 13/7 is blocked. */
  put(&b, 1, 18, 2);
  put(&b, 1, 6, 11);
  close_board(&b);
  s = mk(&b, 0, 6, 5, 0, -1);
  ck_assert_int_eq(legal_strings(s, legal, 8), 1);
  ck_assert_str_eq(legal[0], "13/8");
  expect_err(s, "13/7", REF_EILLEGAL, "bg-blocked");
  free(s);
}
END_TEST

/* T-BG-3: White has one checker on 5 and one on 3, roll 6-2. */
START_TEST(test_t_bg_3)
{
  struct ref_bg_board b;
  struct ref_state *s;
  char legal[8][64], out[64];
  struct ref_err err;

  memset(&b, 0, sizeof(b));
  put(&b, 0, 5, 1);
  put(&b, 0, 3, 1);
  put(&b, 1, 1, 15);
  close_board(&b);
  s = mk(&b, 0, 6, 2, 0, -1);
  /* The two legal plays. gnubg writes 5/3 3/off as "5/off": one checker
   * 5/3, the other (now the highest) off with the 6. */
  ck_assert_int_eq(legal_strings(s, legal, 8), 2);
  ck_assert(!strcmp(legal[0], "5/off 3/1") || !strcmp(legal[1], "5/off 3/1"));
  ck_assert(!strcmp(legal[0], "5/off") || !strcmp(legal[1], "5/off"));
  expect_ok(s, "5/off 3/1", "5/off 3/1");
  expect_ok(s, "5/3 3/off", "5/off");
  /* BG-6: listed out of order, accepted in the legal order. */
  expect_ok(s, "3/off 5/3", "5/off");
  expect_ok(s, "3/1 5/off", "5/off 3/1");
  /* After 5 is off a 2 cannot bear off from 3. */
  expect_err(s, "5/off 3/off", REF_EILLEGAL, NULL);
  /* "5/off" by the 6 alone leaves the 2 unplayed; the only reading of
   * "5/off" that is legal is the checker going 5/3/off. */
  expect_ok(s, "5/off", "5/off");
  expect_err(s, "3/1", REF_EILLEGAL, "bg-not-all-dice");
  ck_assert_int_eq(parse_fmt(s, "5-3, 3-0", out, &err), REF_OK);
  ck_assert_str_eq(out, "5/off");
  free(s);
}
END_TEST

/* ---- Position ID and Match ID ------------------------------------------ */

START_TEST(test_ids)
{
  struct ref_bg_board b, c;
  struct ref_bg_match m;
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  char id[16], mid[13], enc[40];
  static const char *const bad[] = {
    "4HPwATDgc/ABM:AAAAAAAAAAAA",   /* 13 characters */
    "4HPwATDgc/ABMAA:AAAAAAAAAAAA", /* 15 */
    "4HPwATDgc/AB!A:AAAAAAAAAAAA",  /* not Base64 */
    "4HPwATDgc/ABMB:AAAAAAAAAAAA",  /* a padding bit */
    "//////////////:AAAAAAAAAAAA",  /* too many checkers */
    "4HPwATDgc/ABMA:AAAAAAAAAAA",   /* Match ID 11 */
    "4HPwATDgc/ABMA:cAgAAAAAAAAA+", /* trailing junk */
    "4HPwATDgc/ABMA",               /* no Match ID */
  };
  /* Match IDs that are well formed but describe no state of ours. */
  static const struct {
    int log2, owner, on_roll, crawford, state, turn, doubled, resigned, d1, d2, len;
  } badm[] = {
    {1, -1, 0, 0, 1, 0, 0, 0, 0, 0, 0}, /* a 2-cube in the middle */
    {0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},  /* an owned 1-cube */
    {7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0},  /* 128 */
    {0, -1, 0, 0, 1, 1, 0, 0, 0, 0, 0}, /* turn not the roller's, no double */
    {0, -1, 0, 0, 2, 1, 0, 0, 0, 0, 0}, /* over, nobody has borne off */
    {0, -1, 0, 0, 5, 0, 0, 0, 0, 0, 0}, /* game state 5 */
    {0, -1, 0, 0, 1, 0, 0, 0, 7, 1, 0}, /* a die of 7 */
    {0, -1, 0, 0, 1, 0, 0, 0, 3, 0, 0}, /* one die */
    {0, -1, 0, 1, 1, 0, 0, 0, 0, 0, 5}, /* a Crawford game at 0-0 */
    {0, -1, 0, 1, 1, 0, 0, 0, 0, 0, 0}, /* Crawford */
    {0, -1, 0, 0, 1, 1, 1, 0, 3, 1, 0}, /* a double with dice rolled */
    {1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 0},  /* a double by the non-owner */
    {0, -1, 0, 0, 1, 0, 0, 1, 0, 0, 0}, /* a resignation pending */
    {0, -1, 0, 0, 0, 0, 0, 0, 3, 1, 0}, /* opening with dice */
  };
  size_t i;

  /* The start position: key E0 73 F0 01 30 E0 73 F0 01 30 (manual). */
  ref_bg_board_start(&b);
  ref_bg_position_id(&b, 0, id);
  ck_assert_str_eq(id, "4HPwATDgc/ABMA");
  ck_assert_int_eq(ref_bg_position_decode(&c, 1, "4HPwATDgc/ABMA"), 0);
  ck_assert(!memcmp(&b, &c, sizeof(b)));
  ck_assert_int_eq(ref_bg_pips(&b, 0), 167);

  /* The manual's example: 9-point match, score 2-4, player 0 owns a
   * 2-cube, player 1 has rolled 52. */
  ck_assert_int_eq(ref_bg_match_decode(&m, "QYkqASAAIAAA"), 0);
  ck_assert_int_eq(m.cube_log2, 1);
  ck_assert_int_eq(m.cube_owner, 0);
  ck_assert_int_eq(m.on_roll, 1);
  ck_assert_int_eq(m.crawford, 0);
  ck_assert_int_eq(m.state, 1);
  ck_assert_int_eq(m.turn, 1);
  ck_assert_int_eq(m.doubled, 0);
  ck_assert_int_eq(m.resigned, 0);
  ck_assert_int_eq(m.dice[0], 5);
  ck_assert_int_eq(m.dice[1], 2);
  ck_assert_int_eq(m.match_len, 9);
  ck_assert_int_eq(m.score[0], 2);
  ck_assert_int_eq(m.score[1], 4);
  ref_bg_match_id(&m, mid);
  ck_assert_str_eq(mid, "QYkqASAAIAAA");

  /* Match IDs gnubg 1.07 printed for a money session (its session score
   * rides in the score fields, which a single game ignores): start
   * position, player 0 to play 31; then a 4-cube owned by player 1. */
  ck_assert_int_eq(ref_bg_match_decode(&m, "MIEFAAAAAAAE"), 0);
  ck_assert_int_eq(m.cube_log2, 0);
  ck_assert_int_eq(m.cube_owner, -1);
  ck_assert_int_eq(m.state, 1);
  ck_assert_int_eq(m.on_roll, 0);
  ck_assert_int_eq(m.turn, 0);
  ck_assert_int_eq(m.match_len, 0);
  ck_assert_int_eq(m.dice[0] * 10 + m.dice[1], 31);
  ck_assert_int_eq(ref_bg_match_decode(&m, "EoEFAAAAAAAE"), 0);
  ck_assert_int_eq(m.cube_log2, 2);
  ck_assert_int_eq(m.cube_owner, 1);
  ck_assert_int_eq(G->ops->decode(s, "4HPwATDgc/ABMA:MIEFAAAAAAAE", &err), REF_OK);
  ck_assert_int_eq(status(s).phase, REF_PHASE_MOVE);
  ck_assert_int_eq(status(s).turn, 0);
  {
    char legal[20][64];
    ck_assert_int_eq(legal_strings(s, legal, 20), 16); /* gnubg: 16 plays for 31 */
  }
  ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
  ck_assert_str_eq(enc, "4HPwATDgc/ABMA:MIEFAAAAAAAE"); /* as gnubg wrote it */
  ck_assert_int_eq(G->ops->encode(s, enc, 20), REF_EINVAL);

  for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    ck_assert_msg(G->ops->decode(s, bad[i], &err) == REF_EINVAL, "accepted %s", bad[i]);
  for(i = 0; i < sizeof(badm) / sizeof(badm[0]); i++) {
    char text[40];
    memset(&m, 0, sizeof(m));
    m.cube_log2 = badm[i].log2;
    m.cube_owner = badm[i].owner;
    m.on_roll = badm[i].on_roll;
    m.crawford = badm[i].crawford;
    m.state = badm[i].state;
    m.turn = badm[i].turn;
    m.doubled = badm[i].doubled;
    m.resigned = badm[i].resigned;
    m.dice[0] = badm[i].d1;
    m.dice[1] = badm[i].d2;
    m.match_len = badm[i].len;
    ref_bg_match_id(&m, mid);
    snprintf(text, sizeof(text), "4HPwATDgc/ABMA:%s", mid);
    ck_assert_msg(G->ops->decode(s, text, &err) == REF_EINVAL, "accepted case %zu: %s", i, text);
  }
  /* Unchanged after a refused decode: still the last good state. */
  ck_assert_int_eq(G->ops->decode(s, "4HPwATDgc/ABMA:MIEFAAAAAAAE", &err), REF_OK);
  ck_assert_int_eq(G->ops->decode(s, "garbage", &err), REF_EINVAL);
  ck_assert_int_eq(status(s).phase, REF_PHASE_MOVE);
  /* Both colours on one point. */
  memset(&b, 0, sizeof(b));
  put(&b, 0, 10, 1);
  put(&b, 1, 15, 1);
  put(&b, 0, REF_BG_OFF, 14);
  put(&b, 1, REF_BG_OFF, 14);
  ref_bg_position_id(&b, 0, id);
  ck_assert_int_eq(ref_bg_position_decode(&c, 0, id), REF_EINVAL);
  free(s);
}
END_TEST

/* ---- 3. cube and scoring ----------------------------------------------- */

START_TEST(test_cube)
{
  struct ref_state *s = start_game();
  struct ref_status st;
  struct ref_err err;
  struct ref_bg_board b;
  char enc[40];

  roll(s, 3, 1);
  /* No double after rolling. */
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-double-before-roll");
  play(s, "8/5 6/5");
  /* Black may double; White may not (not White's turn); no take without
   * an offer. */
  ck_assert_int_eq(status(s).phase, REF_PHASE_CUBE);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "not-your-turn");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_TAKE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-no-double");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert(G->ops->ok(s));
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_CUBE_REPLY);
  ck_assert_int_eq(st.turn, 0);
  ck_assert_int_eq(st.cube, 1);
  /* The doubler cannot answer its own double, nor double again; the taker
   * cannot redouble (no beavers); the position string keeps the offer. */
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_TAKE, 0, &err), REF_EPHASE);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "not-your-turn");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-take-or-drop");
  ck_assert_int_eq(G->ops->roll(s, (int[]){3, 1}, 2, &err), REF_EPHASE);
  ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
  {
    struct ref_state *t = ref_state_new(G);
    char enc2[40];
    ck_assert_int_eq(G->ops->decode(t, enc, &err), REF_OK);
    ck_assert_int_eq(G->ops->encode(t, enc2, sizeof(enc2)), REF_OK);
    ck_assert_str_eq(enc, enc2);
    ck_assert_int_eq(status(t).phase, REF_PHASE_CUBE_REPLY);
    free(t);
  }
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_TAKE, 0, &err), REF_OK);
  st = status(s);
  ck_assert_int_eq(st.cube, 2);
  ck_assert_int_eq(st.cube_owner, 0);
  /* Back to the doubler, who must roll: White owns the cube now. */
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-not-your-cube");
  roll(s, 6, 4);
  play(s, "24/14");
  /* White owns the cube: White may redouble. Black drops: White wins 2. */
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_CUBE);
  ck_assert_int_eq(st.turn, 0);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DROP, 0, &err), REF_OK);
  ck_assert(G->ops->ok(s));
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.points, 2);
  ck_assert_int_eq(st.end, REF_END_CUBE_DROPPED);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "game-over");
  free(s);

  /* The cap: a 32-cube owned by White can go to 64, then no further. */
  ref_bg_board_start(&b);
  s = mk(&b, 0, 0, 0, 5, 0);
  ck_assert_int_eq(status(s).phase, REF_PHASE_CUBE);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_TAKE, 0, &err), REF_OK);
  ck_assert_int_eq(status(s).cube, 64);
  free(s);
  s = mk(&b, 1, 0, 0, 6, 1);
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  ck_assert_int_eq(st.cube, 64);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-cube-max");
  /* No draws in backgammon. */
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_AGREED, 0, &err), REF_EINVAL);
  free(s);
}
END_TEST

/* Gammon and backgammon, times the cube (section 4.3, BG-3). */
START_TEST(test_scoring)
{
  static const struct {
    int black_point, black_off, log2, points;
  } cases[] = {
    {6, 1, 0, 1},  /* Black has borne one off: single */
    {6, 0, 0, 2},  /* none off, all in Black's home: gammon */
    {19, 0, 0, 3}, /* none off, one in White's home (Black's 19): backgammon */
    {25, 0, 0, 3}, /* none off, one on the bar: backgammon */
    {12, 0, 0, 2}, /* none off, one in White's outer board: gammon */
    {19, 0, 2, 12},
    {6, 0, 3, 16},
    {6, 2, 6, 64},
  };
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_status st;
  char enc[40];
  size_t i;

  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    memset(&b, 0, sizeof(b));
    put(&b, 0, 1, 1);
    put(&b, 1, 5, 14 - cases[i].black_off);
    put(&b, 1, cases[i].black_point, 1);
    close_board(&b);
    s = mk(&b, 0, 2, 1, cases[i].log2, cases[i].log2 ? 1 : -1);
    play(s, "1/off");
    st = status(s);
    ck_assert_int_eq(st.phase, REF_PHASE_OVER);
    ck_assert_int_eq(st.end, REF_END_BORNE_OFF);
    ck_assert_int_eq(st.winner, 0);
    ck_assert_int_eq(st.turn, -1);
    ck_assert_msg(st.points == cases[i].points, "case %zu: %d points", i, st.points);
    /* The finished game survives its position string. */
    ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
    free(s);
    s = ref_state_new(G);
    ck_assert_int_eq(G->ops->decode(s, enc, NULL), REF_OK);
    ck_assert(G->ops->ok(s));
    ck_assert_int_eq(status(s).points, cases[i].points);
    ck_assert_int_eq(status(s).winner, 0);
    free(s);
  }
}
END_TEST

/* Match play: the match length and score travel in the Match
 * ID; the Crawford game has no cube and says why a double is refused;
 * after it doubling is back; gammons count in a match; the Jacoby rule
 * (money play) counts them only after a double. */
START_TEST(test_match_play)
{
  static const char *const refused[] = {
    "match=0", "match=65", "match=3;match=5", "score=1-0", "match=3;score=3-0",
    "match=3;score=1-1;crawford=on", "match=3;score=2-2;crawford=on", "match=3;jacoby=on",
    "match=3;score=2-0;crawford=yes", "match=3x",
  };
  struct ref_state *s = ref_state_new(G), *t = ref_state_new(G);
  struct ref_bg_match m;
  struct ref_status st;
  struct ref_err err;
  char enc[40], enc2[40];
  size_t i;

  for(i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
    ck_assert_msg(G->ops->init(s, refused[i], &err) == REF_EINVAL, "accepted %s", refused[i]);
  /* The Crawford game of a match to 3: White 2, Black 0. */
  ck_assert_int_eq(G->ops->init(s, "match=3;score=2-0;crawford=on", &err), REF_OK);
  ck_assert(G->ops->ok(s));
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  /* Black would be asked about the cube in any other game: not here */
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-crawford");
  ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
  ck_assert_int_eq(ref_bg_match_decode(&m, enc + 15), REF_OK);
  ck_assert_int_eq(m.match_len, 3);
  ck_assert_int_eq(m.score[0], 2);
  ck_assert_int_eq(m.score[1], 0);
  ck_assert_int_eq(m.crawford, 1);
  ck_assert_int_eq(G->ops->decode(t, enc, &err), REF_OK);
  ck_assert(G->ops->ok(t));
  ck_assert_int_eq(G->ops->encode(t, enc2, sizeof(enc2)), REF_OK);
  ck_assert_str_eq(enc, enc2);
  ck_assert_int_eq(G->ops->act(t, 1, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-crawford");
  /* A gammon resigned in the Crawford game is worth 2 */
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_RESIGN, 2, &err), REF_OK);
  ck_assert_int_eq(status(s).points, 2);

  /* Post-Crawford (2-1, no flag): Black may double at once */
  ck_assert_int_eq(G->ops->init(s, "match=3;score=2-1", &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  ck_assert_int_eq(status(s).phase, REF_PHASE_CUBE);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_TAKE, 0, &err), REF_OK);
  ck_assert(G->ops->ok(s));
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 2, &err), REF_OK);
  ck_assert_int_eq(status(s).points, 4); /* a gammon on a 2-cube */
  ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
  ck_assert_int_eq(G->ops->decode(t, enc, &err), REF_OK);
  ck_assert_int_eq(status(t).points, 4);

  /* Jacoby: a gammon with the cube centred is a single game ... */
  ck_assert_int_eq(G->ops->init(s, "jacoby=on", &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 2, &err), REF_OK);
  ck_assert_int_eq(status(s).points, 1);
  ck_assert(G->ops->ok(s));
  /* ... and counts once the cube was turned */
  ck_assert_int_eq(G->ops->init(s, "jacoby=on", &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_TAKE, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 2, &err), REF_OK);
  ck_assert_int_eq(status(s).points, 4);
  ck_assert(G->ops->ok(s));
  free(s);
  free(t);
}
END_TEST

/* A state through its position string and back: the same string. */
static struct ref_state *round_trip(const struct ref_state *s)
{
  struct ref_state *t = ref_state_new(G);
  struct ref_err err;
  char enc[40], enc2[40];
  ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
  ck_assert_int_eq(G->ops->decode(t, enc, &err), REF_OK);
  ck_assert(G->ops->ok(t));
  ck_assert_int_eq(G->ops->encode(t, enc2, sizeof(enc2)), REF_OK);
  ck_assert_str_eq(enc, enc2);
  return t;
}

/* BG-9: beavers=on (money play): the doubled player redoubles at once and
 * keeps the cube; the doubler takes (the cube two steps up, the beaver's)
 * or drops (the cube one step up). One beaver to a double; none in a
 * match, where beavers=on is refused too. */
START_TEST(test_beavers)
{
  struct ref_state *s = ref_state_new(G), *t;
  struct ref_status st;
  struct ref_err err;
  struct ref_bg_match m;
  char enc[40];

  /* without the option a beaver is refused */
  ck_assert_int_eq(G->ops->init(s, NULL, &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert(!status(s).may_beaver);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_BEAVER, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-no-beavers");

  /* with it: Black doubles, White beavers */
  ck_assert_int_eq(G->ops->init(s, "beavers=on", &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_BEAVER, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-no-double");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  st = status(s);
  ck_assert(st.may_beaver && !st.beavered);
  /* only the doubled player beavers */
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_BEAVER, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-no-double");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_BEAVER, 0, &err), REF_OK);
  ck_assert(G->ops->ok(s));
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_CUBE_REPLY);
  ck_assert(st.beavered && !st.may_beaver);
  ck_assert_int_eq(st.turn, 1); /* the doubler answers */
  ck_assert_int_eq(st.cube, 2);
  ck_assert_int_eq(st.cube_owner, 0);
  /* as gnubg keeps it: double bit, the doubler on roll and to act, the
   * cube at 2 and the beaver's */
  ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
  ck_assert_int_eq(ref_bg_match_decode(&m, strchr(enc, ':') + 1), REF_OK);
  ck_assert_int_eq(m.doubled, 1);
  ck_assert_int_eq(m.on_roll, 1);
  ck_assert_int_eq(m.turn, 1);
  ck_assert_int_eq(m.cube_log2, 1);
  ck_assert_int_eq(m.cube_owner, 0);
  t = round_trip(s);
  ck_assert(status(t).beavered);
  /* no raccoon: one beaver to a double; no roll, no play meanwhile */
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_BEAVER, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-beaver-once");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_TAKE, 0, &err), REF_EPHASE);
  ck_assert_int_eq(G->ops->roll(s, (int[]){3, 1}, 2, &err), REF_EPHASE);
  {
    char text[2048];
    ck_assert_int_eq(G->ops->render(s, 0, text, sizeof(text)), REF_OK);
    ck_assert_ptr_nonnull(strstr(text, "White beavers to 4: Black to take or drop."));
  }
  /* the doubler takes: the cube at 4, still White's; Black rolls */
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_TAKE, 0, &err), REF_OK);
  ck_assert(G->ops->ok(s));
  st = status(s);
  ck_assert_int_eq(st.cube, 4);
  ck_assert_int_eq(st.cube_owner, 0);
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 1, &err), REF_OK);
  ck_assert_int_eq(status(s).points, 4);
  free(t);

  /* the beaver dropped: the beaver wins the cube as it stands, 2 */
  ck_assert_int_eq(G->ops->init(s, "beavers=on", &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_BEAVER, 0, &err), REF_OK);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DROP, 0, &err), REF_OK);
  ck_assert(G->ops->ok(s));
  st = status(s);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.points, 2);
  ck_assert_int_eq(st.end, REF_END_CUBE_DROPPED);
  t = round_trip(s);
  ck_assert_int_eq(status(t).points, 2);
  free(t);

  /* a match has none: the option is refused, and so is the word */
  ck_assert_int_eq(G->ops->init(s, "match=5;beavers=on", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bg-beaver-match");
  ck_assert_int_eq(G->ops->init(s, "match=5", &err), REF_OK);
  roll(s, 3, 1);
  play(s, "8/5 6/5");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DOUBLE, 0, &err), REF_OK);
  ck_assert(!status(s).may_beaver);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_BEAVER, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "bg-beaver-match");
  ck_assert_int_eq(status(s).phase, REF_PHASE_CUBE_REPLY);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_TAKE, 0, &err), REF_OK);
  ck_assert_int_eq(status(s).cube, 2);
  free(s);
}
END_TEST

/* BG-5: the level is negotiated by the service; points = level x cube. */
START_TEST(test_resign)
{
  struct ref_bg_board b;
  struct ref_state *s, *t;
  struct ref_status st;
  struct ref_err err;
  char enc[40];
  int level;

  ref_bg_board_start(&b);
  for(level = 1; level <= 3; level++) {
    s = mk(&b, 0, 4, 2, 2, 1);
    ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_RESIGN, level, &err), REF_OK);
    ck_assert(G->ops->ok(s));
    st = status(s);
    ck_assert_int_eq(st.phase, REF_PHASE_OVER);
    ck_assert_int_eq(st.end, REF_END_RESIGNATION);
    ck_assert_int_eq(st.winner, 0);
    ck_assert_int_eq(st.points, 4 * level);
    ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
    t = ref_state_new(G);
    ck_assert_int_eq(G->ops->decode(t, enc, &err), REF_OK);
    ck_assert_int_eq(status(t).points, 4 * level);
    ck_assert_int_eq(status(t).end, REF_END_RESIGNATION);
    free(t);
    free(s);
  }
  s = mk(&b, 0, 0, 0, 0, -1);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 0, &err), REF_EINVAL);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 4, &err), REF_EINVAL);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 2, &err), REF_OK);
  ck_assert_int_eq(status(s).winner, 1);
  ck_assert_int_eq(status(s).points, 2);
  free(s);
}
END_TEST

/* No legal play: one empty play "--"; a forced play is the only one. */
START_TEST(test_no_move)
{
  struct ref_bg_board b;
  struct ref_state *s;
  struct ref_movelist list = {0};
  char out[64], legal[4][64];
  struct ref_err err;
  int p;

  /* White on the bar, Black holds its whole home board (White's 19-24). */
  memset(&b, 0, sizeof(b));
  put(&b, 0, REF_BG_BAR, 1);
  put(&b, 0, 6, 14);
  for(p = 1; p <= 6; p++)
    put(&b, 1, p, 2);
  put(&b, 1, 13, 3);
  close_board(&b);
  s = mk(&b, 0, 6, 3, 0, -1);
  ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
  ck_assert_uint_eq(list.n, 1);
  ck_assert_int_eq(G->ops->format(s, &list.v[0], REF_NOTATION_CANONICAL, out, sizeof(out)),
                   REF_OK);
  ck_assert_str_eq(out, "--");
  ref_movelist_free(&list);
  expect_ok(s, "--", "--");
  expect_ok(s, "pass", "--");
  expect_ok(s, "No move", "--");
  expect_err(s, "bar/22", REF_EILLEGAL, "bg-blocked");
  expect_err(s, "6/3", REF_EILLEGAL, "bg-bar-first");
  play(s, "--");
  ck_assert_int_eq(status(s).phase, REF_PHASE_CUBE);
  ck_assert_int_eq(status(s).turn, 1);
  free(s);

  /* One point open (White's 22): bar/22 is forced, then the 6 is lost
   * (22/16 lands on Black's 9; the checkers on 6 cannot bear off). */
  put(&b, 1, 3, 0);
  put(&b, 1, 9, 2);
  put(&b, 1, 13, 3);
  close_board(&b);
  s = mk(&b, 0, 6, 3, 0, -1);
  ck_assert_int_eq(legal_strings(s, legal, 4), 1);
  ck_assert_str_eq(legal[0], "bar/22");
  expect_err(s, "--", REF_EILLEGAL, "bg-must-move");
  expect_ok(s, "b/22", "bar/22");
  expect_ok(s, "25-22", "bar/22");
  play(s, "bar/22");
  free(s);

  /* Passing is refused while a play exists. */
  s = start_game();
  roll(s, 3, 1);
  ck_assert_int_eq(parse_fmt(s, "--", out, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "bg-must-move");
  ck_assert_int_gt(err.nsuggest, 0);
  free(s);
}
END_TEST

/* ---- input tolerance and refusals (section 1, 4.4) --------------------- */

START_TEST(test_input)
{
  struct ref_bg_board b;
  struct ref_state *s = start_game();
  struct ref_err err;
  char out[64];

  roll(s, 3, 1); /* White: 31 from the start */
  expect_ok(s, "8/5 6/5", "8/5 6/5");
  expect_ok(s, "6/5 8/5", "8/5 6/5");
  expect_ok(s, "8-5 6-5", "8/5 6/5");
  expect_ok(s, "8/5, 6/5.", "8/5 6/5");
  expect_ok(s, "  8/5 6/5 !? ", "8/5 6/5");
  expect_ok(s, "1. 8/5 6/5", "8/5 6/5");
  expect_ok(s, "31: 8/5 6/5", "8/5 6/5");
  expect_ok(s, "8 / 5 6 / 5", "8/5 6/5");
  expect_ok(s, "13/9", "13/9");
  expect_ok(s, "13/10/9", "13/9");
  expect_err(s, "13/12/9", REF_EILLEGAL, "bg-blocked"); /* 12 is Black's 13 */
  expect_ok(s, "13/10 10/9", "13/9");
  expect_ok(s, "24/23 24/21", "24/23 24/21");
  expect_err(s, "13/10", REF_EILLEGAL, "bg-not-all-dice");
  expect_err(s, "13/11", REF_EILLEGAL, "bg-wrong-dice");
  expect_err(s, "13/10 8/5 6/5", REF_EILLEGAL, "bg-wrong-dice");
  expect_err(s, "23/20 6/5", REF_EILLEGAL, "bg-no-checker");
  expect_err(s, "5/8 6/5", REF_EILLEGAL, "bg-wrong-direction");
  expect_err(s, "6/off", REF_EILLEGAL, "bg-wrong-dice"); /* 3 and 1 do not reach off */
  expect_err(s, "hello", REF_EPARSE, "unreadable");
  expect_err(s, "13/", REF_EPARSE, "unreadable");
  expect_err(s, "/13", REF_EPARSE, "unreadable");
  expect_err(s, "13//10", REF_EPARSE, "unreadable");
  expect_err(s, "13", REF_EPARSE, "unreadable");
  expect_err(s, "off/3", REF_EPARSE, "unreadable");
  expect_err(s, "13/bar", REF_EPARSE, "unreadable");
  expect_err(s, "", REF_EPARSE, "unreadable");
  /* The nearest suggestion comes first. */
  ck_assert_int_eq(parse_fmt(s, "13/10", out, &err), REF_EILLEGAL);
  ck_assert_int_gt(err.nsuggest, 0);
  ck_assert_ptr_nonnull(strstr(err.suggest[0], "13/"));
  free(s);

  /* 52: 24/19 is blocked by Black's 6-point. */
  s = start_game();
  roll(s, 5, 2);
  expect_err(s, "24/19 13/11", REF_EILLEGAL, "bg-blocked");
  free(s);
  s = start_game();
  roll(s, 6, 5);
  expect_err(s, "6/off 13/8", REF_EILLEGAL, "bg-cannot-bear-off");
  expect_ok(s, "24/18 13/8", "24/18 13/8");
  expect_ok(s, "24/13", "24/13");
  free(s);

  /* Hits, chains, bar: White on the bar, Black blots on White's 21 and
   * 18, Black's other checkers on its 10 (White's 15). */
  memset(&b, 0, sizeof(b));
  put(&b, 0, 24, 2);
  put(&b, 0, 6, 5);
  put(&b, 0, 4, 2);
  put(&b, 0, REF_BG_BAR, 1);
  put(&b, 1, 25 - 21, 1);
  put(&b, 1, 25 - 18, 1);
  put(&b, 1, 10, 13);
  close_board(&b);
  s = mk(&b, 0, 4, 3, 0, -1);
  expect_ok(s, "bar/21* 24/21", "bar/21* 24/21");
  expect_ok(s, "bar/21 24/21", "bar/21* 24/21");
  expect_ok(s, "b/21x 24-21", "bar/21* 24/21");
  expect_ok(s, "24/21 Bar/21", "bar/21* 24/21");
  expect_ok(s, "bar/21*/18*", "bar/21*/18*");
  /* bar/18 enters on 21 (hitting twice) or 22 (hitting once): the marks
   * written decide. */
  expect_ok(s, "bar/18*", "bar/18*");
  expect_ok(s, "bar/18**", "bar/21*/18*");
  expect_err(s, "6/2 6/3", REF_EILLEGAL, "bg-bar-first");
  free(s);

  /* "24/13" passes 18 (a blot) or 19: the hit marks decide. */
  put(&b, 0, REF_BG_BAR, 0);
  put(&b, 0, 6, 6);
  close_board(&b);
  s = mk(&b, 0, 6, 5, 0, -1);
  expect_ok(s, "24/18*/13", "24/18*/13");
  expect_ok(s, "24/18/13", "24/18*/13");
  expect_ok(s, "24/19/13", "24/13");
  expect_ok(s, "24/13", "24/13");
  expect_ok(s, "24/13*", "24/18*/13");
  expect_err(s, "24/18*", REF_EILLEGAL, "bg-not-all-dice");
  free(s);
  /* Both ways hit: ambiguous. */
  put(&b, 1, 25 - 19, 1);
  put(&b, 1, 10, 12);
  close_board(&b);
  s = mk(&b, 0, 6, 5, 0, -1);
  ck_assert_int_eq(parse_fmt(s, "24/13", out, &err), REF_EAMBIGUOUS);
  ck_assert_int_eq(err.nsuggest, 2);
  ck_assert_int_eq(parse_fmt(s, "24/13*", out, &err), REF_EAMBIGUOUS);
  expect_ok(s, "24/18/13", "24/18*/13");
  expect_ok(s, "24/19/13", "24/19*/13");
  free(s);

  /* Doubles: "(n)", four checkers, and bearing off. */
  memset(&b, 0, sizeof(b));
  put(&b, 0, 6, 4);
  put(&b, 0, 4, 3);
  put(&b, 0, 2, 2);
  put(&b, 1, 1, 15);
  close_board(&b);
  s = mk(&b, 0, 2, 2, 0, -1);
  expect_ok(s, "6/4(2) 4/2(2)", "6/2(2)");
  expect_ok(s, "6/4 6/4 4/2 4/2", "6/2(2)");
  expect_ok(s, "6/2(2)", "6/2(2)");
  expect_ok(s, "2/off(2) 6/4(2)", "6/4(2) 2/off(2)");
  expect_ok(s, "2/0 2/0 6-4 6-4", "6/4(2) 2/off(2)");
  expect_err(s, "6/4(2)", REF_EILLEGAL, "bg-not-all-dice");
  expect_err(s, "6/4(5)", REF_EPARSE, "unreadable");
  expect_err(s, "6/off", REF_EILLEGAL, "bg-not-all-dice"); /* 6/4/2/off: three 2s */
  free(s);
}
END_TEST

/* Every legal play's canonical notation reads back as that play, for the
 * first 210 oracle queries (all plays, through the game ops). */
START_TEST(test_notation_round_trip)
{
  FILE *f = fopen(DATA "plays.txt", "r");
  char line[256], pid[32], text[48], mid[13], buf[64];
  struct ref_movelist list = {0};
  struct ref_bg_match m;
  struct ref_state *s = ref_state_new(G), *a = ref_state_new(G), *c = ref_state_new(G);
  struct ref_move mv;
  struct ref_err err;
  int d1, d2, q, n = 0;
  size_t i;

  ck_assert_ptr_nonnull(f);
  for(q = 0; q < 630 && fgets(line, sizeof(line), f); q++) {
    ck_assert_int_eq(sscanf(line, "%31s %d %d", pid, &d1, &d2), 3);
    memset(&m, 0, sizeof(m));
    m.cube_owner = -1;
    m.state = 1;
    m.on_roll = m.turn = q & 1;
    m.dice[0] = d1;
    m.dice[1] = d2;
    ref_bg_match_id(&m, mid);
    snprintf(text, sizeof(text), "%s:%s", pid, mid);
    if(G->ops->decode(s, text, &err) != REF_OK)
      continue; /* a random position where someone has borne off all 15 */
    ref_movelist_clear(&list);
    ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
    for(i = 0; i < list.n; i++) {
      ck_assert_int_eq(G->ops->format(s, &list.v[i], REF_NOTATION_CANONICAL, buf, sizeof(buf)),
                       REF_OK);
      ck_assert_msg(G->ops->parse(s, buf, &mv, &err) == REF_OK, "%s %d%d: '%s' refused (%s)",
                    text, d1, d2, buf, err.reason);
      memcpy(a, s, G->state_size);
      memcpy(c, s, G->state_size);
      ck_assert_int_eq(G->ops->apply(a, &list.v[i]), REF_OK);
      ck_assert_int_eq(G->ops->apply(c, &mv), REF_OK);
      ck_assert(G->ops->ok(a));
      ck_assert(!memcmp(a, c, G->state_size));
      n++;
    }
  }
  fclose(f);
  fprintf(stderr, "backgammon notation round trip: %d plays\n", n);
  ck_assert_int_gt(n, 10000);
  ref_movelist_free(&list);
  free(s);
  free(a);
  free(c);
}
END_TEST

/* ---- 4. random playouts ------------------------------------------------- */

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
  /* xorshift64*: a fixed sequence, so a failure replays. */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return (uint32_t)((rng_state * 2685821657736338717u) >> 33) % n;
}

START_TEST(test_playouts)
{
  struct ref_state *s = ref_state_new(G), *t = ref_state_new(G);
  struct ref_movelist list = {0};
  struct ref_status st, st2;
  struct ref_err err;
  struct ref_move mv;
  char enc[40], enc2[40], buf[64], board[4096];
  int game, steps, ends[REF_END_LAST] = {0}, plays = 0, passes = 0, doubles = 0, maxcube = 0;
  int f[2];
  const char *line, *nl;

  rng_state = 0x9e3779b97f4a7c15u;
  for(game = 0; game < 1000; game++) {
    ck_assert_int_eq(G->ops->init(s, NULL, NULL), REF_OK);
    for(steps = 0; steps < 5000; steps++) {
      G->ops->status(s, &st);
      if(st.phase == REF_PHASE_OVER)
        break;
      /* The position string round-trips in every phase. */
      ck_assert_int_eq(G->ops->encode(s, enc, sizeof(enc)), REF_OK);
      ck_assert_msg(G->ops->decode(t, enc, &err) == REF_OK, "%s: %s", enc, err.detail);
      ck_assert_int_eq(G->ops->encode(t, enc2, sizeof(enc2)), REF_OK);
      ck_assert_str_eq(enc, enc2);
      G->ops->status(t, &st2);
      ck_assert_int_eq(st.phase, st2.phase);
      ck_assert_int_eq(st.turn, st2.turn);
      ck_assert_int_eq(st.cube, st2.cube);
      ck_assert_int_eq(st.cube_owner, st2.cube_owner);
      if(game < 50) {
        ck_assert_int_eq(G->ops->render(s, st.turn < 0 ? 0 : st.turn, board, sizeof(board)),
                         REF_OK);
        for(line = board; *line; line = nl + 1) {
          nl = strchr(line, '\n');
          ck_assert_ptr_nonnull(nl);
          ck_assert_int_le(nl - line, 72);
        }
      }
      switch(st.phase) {
      case REF_PHASE_CUBE:
      case REF_PHASE_ROLL:
        if(st.phase == REF_PHASE_CUBE && rnd(6) == 0) {
          ck_assert_int_eq(G->ops->act(s, st.turn, REF_ACT_DOUBLE, 0, &err), REF_OK);
          doubles++;
          break;
        }
        /* In REF_PHASE_CUBE a roll means "no double". */
        f[0] = 1 + (int)rnd(6);
        f[1] = 1 + (int)rnd(6);
        ck_assert_int_eq(G->ops->roll(s, f, 2, &err), REF_OK);
        break;
      case REF_PHASE_CUBE_REPLY:
        ck_assert_int_eq(G->ops->act(s, st.turn, rnd(5) ? REF_ACT_TAKE : REF_ACT_DROP, 0, &err),
                         REF_OK);
        break;
      case REF_PHASE_MOVE:
        if(rnd(2000) == 0) {
          ck_assert_int_eq(G->ops->act(s, (int)rnd(2), REF_ACT_RESIGN, 1 + (int)rnd(3), &err),
                           REF_OK);
          break;
        }
        ref_movelist_clear(&list);
        ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
        ck_assert_uint_gt(list.n, 0);
        mv = list.v[rnd((uint32_t)list.n)];
        /* What the referee prints reads back as the same play. */
        ck_assert_int_eq(G->ops->format(s, &mv, REF_NOTATION_CANONICAL, buf, sizeof(buf)), REF_OK);
        memcpy(t, s, G->state_size);
        ck_assert_msg(G->ops->parse(s, buf, &mv, &err) == REF_OK, "'%s': %s", buf, err.reason);
        ck_assert_int_eq(G->ops->apply(s, &mv), REF_OK);
        passes += !strcmp(buf, "--");
        plays++;
        break;
      default:
        ck_abort_msg("phase %d", st.phase);
      }
      ck_assert_msg(G->ops->ok(s), "game %d step %d", game, steps);
    }
    G->ops->status(s, &st);
    ck_assert_msg(st.phase == REF_PHASE_OVER, "game %d did not end", game);
    ck_assert_int_gt(st.points, 0);
    ck_assert_int_le(st.points, 192);
    if(st.cube > maxcube)
      maxcube = st.cube;
    ends[st.end]++;
  }
  fprintf(stderr, "backgammon playouts: 1000 games, %d plays (%d passes), %d doubles, "
          "max cube %d; ends: borne off %d, dropped %d, resigned %d\n", plays, passes, doubles,
          maxcube, ends[REF_END_BORNE_OFF], ends[REF_END_CUBE_DROPPED],
          ends[REF_END_RESIGNATION]);
  ck_assert_int_gt(ends[REF_END_BORNE_OFF], 100);
  ck_assert_int_gt(ends[REF_END_CUBE_DROPPED], 10);
  ck_assert_int_gt(passes, 10);
  ref_movelist_free(&list);
  free(s);
  free(t);
}
END_TEST

START_TEST(test_render)
{
  struct ref_state *s = start_game();
  char buf[4096], *want;
  static const char *const files[2] = {DATA "render_start_white.txt",
                                       DATA "render_start_black.txt"};
  int seat;

  for(seat = 0; seat < 2; seat++) {
    ck_assert_int_eq(G->ops->render(s, seat, buf, sizeof(buf)), REF_OK);
    want = ts_read(files[seat]);
    ck_assert_msg(!strcmp(buf, want), "render seat %d:\n%s", seat, buf);
    free(want);
  }
  ck_assert_int_eq(G->ops->render(s, 0, buf, 100), REF_EINVAL);
  free(s);
}
END_TEST

START_TEST(test_registry)
{
  const struct ref_game_desc *g = ref_game_find("backgammon");
  ck_assert_ptr_eq(g, G);
  ck_assert_str_eq(g->title, "Backgammon");
  ck_assert_int_eq(g->seats, 2);
  ck_assert_str_eq(g->seat_names[0], "White");
  ck_assert_str_eq(g->seat_names[1], "Black");
  ck_assert_uint_eq(g->flags, REF_GAME_DICE | REF_GAME_CUBE);
  {
    struct ref_state *s = ref_state_new(G);
    ck_assert_int_eq(G->ops->init(s, "jacoby=maybe", NULL), REF_EINVAL);
    ck_assert_int_eq(G->ops->init(s, "beaver=on", NULL), REF_EINVAL);
    free(s);
  }
}
END_TEST

/* new backgammon fen=PositionID:MatchID starts from that position, the
 * dice included (the mail cases play fixed dice with it); a bad
 * string or another option beside it is refused. */
START_TEST(test_init_fen)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_status st;
  struct ref_err err;
  char buf[64];
  ck_assert_int_eq(G->ops->init(s, "fen=4HPwATDgc/ABMA:MAEPAAAAAAAE", NULL), REF_OK);
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert_int_eq(st.turn, 0);
  ck_assert_int_eq(st.dice[0] + st.dice[1], 9);
  ck_assert_int_eq(G->ops->encode(s, buf, sizeof(buf)), REF_OK);
  ck_assert_str_eq(buf, "4HPwATDgc/ABMA:MAEPAAAAAAAE");
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(G->ops->init(s, "fen=4HPwATDgc/ABMA", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bg-bad-position");
  ck_assert_int_eq(G->ops->init(s, "fen=4HPwATDgc/ABMA:MAEPAAAAAAAE;jacoby=on", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bad-option");
  ck_assert_int_eq(G->ops->init(s, "fen=4HPwATDgc/ABMA:MAEPAAAAAAAE;fen=4HPwATDgc/ABMA", &err),
                   REF_EINVAL);
  ck_assert_str_eq(err.reason, "bad-option");
  /* Options are read as in every game (game_text.c): blanks and a trailing
   * ';' are allowed. */
  ck_assert_int_eq(G->ops->init(s, " fen = 4HPwATDgc/ABMA:MAEPAAAAAAAE ;", NULL), REF_OK);
  ck_assert_int_eq(G->ops->encode(s, buf, sizeof(buf)), REF_OK);
  ck_assert_str_eq(buf, "4HPwATDgc/ABMA:MAEPAAAAAAAE");
  free(s);
}
END_TEST

/* fen= stands alone beside the match options: its Match ID
 * already carries the match length, the score and the Crawford flag, so a
 * Crawford game's ID starts that game, and match=, score= or crawford=
 * beside fen= (before or after it) is refused as bad-option, naming the
 * option that came second. */
START_TEST(test_init_fen_stands_alone)
{
  static const char *const beside[][2] = {
    {"fen=%s;match=3", "match"},      {"match=3;fen=%s", "fen"},
    {"fen=%s;score=2-0", "score"},    {"match=3;score=2-0;fen=%s", "fen"},
    {"fen=%s;crawford=on", "crawford"}, {"crawford=on;fen=%s", "fen"},
  };
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  char crawford[64], buf[64], opts[128];
  size_t i;

  ck_assert_int_eq(G->ops->init(s, "match=3;score=2-0;crawford=on", NULL), REF_OK);
  ck_assert_int_eq(G->ops->encode(s, crawford, sizeof(crawford)), REF_OK);
  snprintf(opts, sizeof(opts), "fen=%s", crawford);
  ck_assert_int_eq(G->ops->init(s, opts, NULL), REF_OK);
  ck_assert_int_eq(G->ops->encode(s, buf, sizeof(buf)), REF_OK);
  ck_assert_str_eq(buf, crawford);
  for(i = 0; i < sizeof(beside) / sizeof(beside[0]); i++) {
    snprintf(opts, sizeof(opts), beside[i][0], crawford);
    memset(&err, 0, sizeof(err));
    ck_assert_msg(G->ops->init(s, opts, &err) == REF_EINVAL, "%s", opts);
    ck_assert_str_eq(err.reason, "bad-option");
    ck_assert_str_eq(err.detail, beside[i][1]);
  }
  free(s);
}
END_TEST

/* Every reason key backgammon can return (backgammon.c, the shared board
 * and turn code in backgammon_board.c, the reader in dice_notation.c) is
 * worded in templates/reasons.txt. */
START_TEST(test_reason_keys)
{
  static const char *const files[] = {"backgammon.c", "backgammon_board.c", "dice_notation.c"};
  static const char *const shared[] = {"unreadable", "ambiguous", "game-over", "not-your-turn",
                                       "bad-option", "bad-seat", "no-draws"};

  ts_assert_reason_keys(files, sizeof(files) / sizeof(files[0]), "bg-", 21, shared,
                        sizeof(shared) / sizeof(shared[0]));
}
END_TEST

static Suite *bg_suite(void)
{
  Suite *s = suite_create("backgammon");
  TCase *tc = tcase_create("oracle");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_oracle_compact);
  tcase_add_test(tc, test_oracle_full);
  tcase_add_test(tc, test_notation_round_trip);
  suite_add_tcase(s, tc);
  tc = tcase_create("rules");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_t_bg_1);
  tcase_add_test(tc, test_t_bg_2);
  tcase_add_test(tc, test_t_bg_3);
  tcase_add_test(tc, test_ids);
  tcase_add_test(tc, test_cube);
  tcase_add_test(tc, test_scoring);
  tcase_add_test(tc, test_beavers);
  tcase_add_test(tc, test_resign);
  tcase_add_test(tc, test_match_play);
  tcase_add_test(tc, test_no_move);
  tcase_add_test(tc, test_input);
  tcase_add_test(tc, test_render);
  tcase_add_test(tc, test_registry);
  tcase_add_test(tc, test_init_fen);
  tcase_add_test(tc, test_init_fen_stands_alone);
  tcase_add_test(tc, test_reason_keys);
  suite_add_tcase(s, tc);
  tc = tcase_create("playouts");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_playouts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(bg_suite());
}
