/*
 * test_tables_chess.c: Tables Chess (referee/rules/tables_chess.c) against
 * docs/rules-spec.md section 7.
 *
 * - T-TC-1 and the input cases of tests/data/tables_chess/parse.txt, each
 *   naming its rule (TC-2 .. TC-10);
 * - every ambiguity ID of section 7 (TC-0 .. TC-11) and this file's own
 *   decisions (TC-8a, TC-9a, TC-12) named by a test below;
 * - the cross-check with backgammon: with only rooks on the board, steps and
 *   whole plays equal backgammon's point arithmetic (bar, blots, blocks) on
 *   at least 500 random positions and rolls;
 * - position strings: round trips, tests/data/tables_chess/bad_positions.txt
 *   refused;
 * - 1,000 seeded random playouts, after every step ops->ok and an
 *   independent check from the position string: 12 pieces a side (TC-1)
 *   conserved across board and bar, no king alone at a turn's end (TC-4);
 * - the rendered start from both sides (tests/data/tables_chess/).
 */
#include "rules.h"
#include "support/support.h"
#include "tables_chess_int.h"
#include "unit_run.h"

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TABULA_TEST_DATA "/tables_chess/"
#define START "KP1NP3RP7BP13BP16NP19/kp1np3rp7bp13bp16np19"

extern const struct ref_game_desc ref_game_tables_chess;
static const struct ref_game_desc *G = &ref_game_tables_chess;

/* ---- helpers ----------------------------------------------------------- */

static struct ref_state *decode(const char *pos)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  memset(&err, 0, sizeof(err));
  ck_assert_ptr_nonnull(s);
  ck_assert_msg(G->ops->decode(s, pos, &err) == REF_OK, "decode %s: %s (%s)", pos, err.reason,
                err.detail);
  ck_assert(G->ops->ok(s));
  return s;
}

static void encode(const struct ref_state *s, char *buf, size_t cap)
{
  ck_assert_int_eq(G->ops->encode(s, buf, cap), REF_OK);
}

static int parse(const struct ref_state *s, const char *text, struct ref_move *m,
                 struct ref_err *err)
{
  memset(err, 0, sizeof(*err));
  return G->ops->parse(s, text, m, err);
}

/* Plays `text` (which must parse) and checks the invariants. */
static void play(struct ref_state *s, const char *text)
{
  struct ref_move m;
  struct ref_err err;
  int rc = parse(s, text, &m, &err);
  ck_assert_msg(rc == REF_OK, "'%s' refused: %s", text, err.reason);
  ck_assert_int_eq(G->ops->apply(s, &m), REF_OK);
  ck_assert(G->ops->ok(s));
}

static void roll(struct ref_state *s, int a, int b)
{
  int f[2] = {a, b};
  struct ref_err err;
  ck_assert_int_eq(G->ops->roll(s, f, 2, &err), REF_OK);
  ck_assert(G->ops->ok(s));
}

static char *trim(char *p)
{
  char *e;
  while(isspace((unsigned char)*p))
    p++;
  e = p + strlen(p);
  while(e > p && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return p;
}

/*
 * The invariants of section 7 read from the position string alone, not
 * from the state (so they check ops->ok too): each side's pieces are the
 * 12 of TC-1 across board and bar, no point holds both sides, and a king
 * stands with a friend unless the game was won by it reaching 24 (TC-4,
 * TC-9). Returns NULL or what is wrong.
 */
static const char *string_invariants(const char *pos)
{
  static const char letters[] = "KRBNP";
  static const int want[5] = {1, 1, 2, 2, 6};
  int count[2][5] = {{0}}, at[2][25], side = 0, n, t, pt, kingpt[2] = {-1, -1}, kingn[2] = {0};
  const char *p = pos, *colon = strchr(pos, ':');
  bool over_king = colon && colon[1] == 'x' && colon[3] == 'k';

  memset(at, 0, sizeof(at));
  if(!colon)
    return "no phase";
  while(p < colon) {
    int group[5] = {0}, ng = 0;
    if(*p == '/') {
      side++;
      p++;
      continue;
    }
    while(isalpha((unsigned char)*p)) {
      const char *q = strchr(letters, toupper((unsigned char)*p));
      if(!q)
        return "bad letter";
      if((isupper((unsigned char)*p) != 0) != (side == 0))
        return "letter case does not match the side";
      group[q - letters]++;
      ng++;
      p++;
    }
    for(pt = 0; isdigit((unsigned char)*p); p++)
      pt = pt * 10 + (*p - '0');
    if(!ng || pt > 24 || side > 1)
      return "bad group";
    for(t = 0; t < 5; t++)
      count[side][t] += group[t];
    at[side][pt] += ng;
    if(group[0]) {
      kingpt[side] = pt;
      kingn[side] = ng;
    }
  }
  for(side = 0; side < 2; side++) {
    for(t = 0; t < 5; t++)
      if(count[side][t] != want[t])
        return "pieces not conserved (TC-1)";
    for(n = 1; n <= 24; n++)
      if(at[side][n] && at[!side][25 - n])
        return "a point held by both sides";
    if(kingpt[side] == 0)
      return "a king on the bar";
    if(kingn[side] < 2 && !(over_king && kingpt[side] == 24))
      return "a king alone at the end of a turn (TC-4)";
    if(kingpt[side] == 24 && !over_king)
      return "a king home in a game not over (TC-9)";
  }
  return NULL;
}

/* ---- T-TC-1 and the input cases ---------------------------------------- */

/* tests/data/tables_chess/parse.txt: T-TC-1 (section 10.5) and the rules
 * each line names. Accepted input must also round-trip: the canonical text
 * parses back to the same play. */
START_TEST(test_parse_cases)
{
  FILE *f = fopen(DATA "parse.txt", "r");
  char line[512];
  int n = 0, ttc1 = 0;

  ck_assert_ptr_nonnull(f);
  while(fgets(line, sizeof(line), f)) {
    char *pos, *input, *expect, *bar1, *bar2;
    struct ref_state *s;
    struct ref_move m, back;
    struct ref_err err;
    char canon[REF_NOTATION_MAX];
    int rc;

    if(line[0] == '#' || !trim(line)[0])
      continue;
    bar1 = strchr(line, '|');
    bar2 = bar1 ? strchr(bar1 + 1, '|') : NULL;
    ck_assert_msg(bar2 != NULL, "bad line: %s", line);
    *bar1 = *bar2 = '\0';
    pos = trim(line);
    input = trim(bar1 + 1);
    expect = trim(bar2 + 1);
    s = decode(pos);
    rc = parse(s, input, &m, &err);
    if(!strncmp(expect, "ok ", 3)) {
      ck_assert_msg(rc == REF_OK, "%s | %s: refused (%s %s)", pos, input, err.reason,
                    err.detail);
      ck_assert_int_eq(G->ops->format(s, &m, REF_NOTATION_CANONICAL, canon, sizeof(canon)),
                       REF_OK);
      ck_assert_msg(!strcmp(canon, expect + 3), "%s | %s: '%s', want '%s'", pos, input, canon,
                    expect + 3);
      ck_assert_int_eq(parse(s, canon, &back, &err), REF_OK);
      ck_assert(!memcmp(&back, &m, sizeof(m)));
    }
    else {
      ck_assert_msg(rc != REF_OK, "%s | %s: accepted, want %s", pos, input, expect);
      ck_assert_msg(!strcmp(err.reason, expect), "%s | %s: reason %s, want %s", pos, input,
                    err.reason, expect);
      /* Section 1.4: a refusal offers the nearest legal plays. */
      ck_assert_msg(err.nsuggest > 0, "%s | %s: no suggestions", pos, input);
    }
    if(strstr(pos, START ":w21"))
      ttc1++;
    free(s);
    n++;
  }
  fclose(f);
  ck_assert_int_ge(n, 40);
  ck_assert_int_ge(ttc1, 6);
}
END_TEST

/* T-TC-1 played: K1/3 P1/2 leaves the king with the knight and pawn on 3;
 * the refusals change nothing. */
START_TEST(test_t_tc_1)
{
  struct ref_state *s = decode(START ":w21");
  struct ref_move m;
  struct ref_err err;
  char before[256], after[256];

  encode(s, before, sizeof(before));
  ck_assert_int_eq(parse(s, "R7/9", &m, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.detail, "9"); /* the block on W9 */
  ck_assert_int_eq(parse(s, "K1/2 B13/15", &m, &err), REF_EILLEGAL);
  ck_assert_int_eq(parse(s, "P1/3", &m, &err), REF_EILLEGAL);
  /* the refusal names the point written (3), not point 4, where the 1
   * then the 2 would have passed it */
  ck_assert_str_eq(err.reason, "tc-pawn-blot");
  ck_assert_str_eq(err.detail, "3");
  encode(s, after, sizeof(after));
  ck_assert_str_eq(before, after);
  play(s, "K1/3 P1/2");
  encode(s, after, sizeof(after));
  ck_assert_str_eq(after, "P2KNP3RP7BP13BP16NP19/kp1np3rp7bp13bp16np19:b:0:2");
  ck_assert_ptr_null(string_invariants(after));
  free(s);
}
END_TEST

/* ---- the ambiguity register of section 7 ------------------------------- */

/* TC-0: point colour is the parity of the number; a bishop (even dice
 * only) keeps its colour on the board: every bishop step of every legal
 * play of a few positions and rolls has even length. */
START_TEST(test_tc0_bishop_colour)
{
  struct ref_tc_playlist list = {0};
  const char *pos[] = {START ":w21", "KP1P2N5RP7BP13BP16NP19/kp1np3rp7bp13bp16n19p22:w21",
                       "NP3RP7BP13BP16NP19KP22/kp5rp7np10bp13bp16np20:w21"};
  int d1, d2, k, i, steps = 0;
  size_t j;

  for(k = 0; k < 3; k++) {
    char buf[128];
    struct ref_tc_board b;
    /* the board of the position through the internal layout */
    struct ref_state *st = decode(pos[k]);
    encode(st, buf, sizeof(buf));
    free(st);
    memset(&b, 0, sizeof(b));
    /* rebuild from the string: side 0 groups before '/', side 1 after */
    {
      const char *p = buf;
      int side = 0, types[16], nt, pt;
      while(*p && *p != ':') {
        if(*p == '/') {
          side = 1;
          p++;
          continue;
        }
        for(nt = 0; isalpha((unsigned char)*p); p++)
          types[nt++] = (int)(strchr("KRBNP", toupper((unsigned char)*p)) - "KRBNP");
        for(pt = 0; isdigit((unsigned char)*p); p++)
          pt = pt * 10 + (*p - '0');
        for(i = 0; i < nt; i++)
          b.n[side][pt ? 25 - pt : 25][types[i]]++;
      }
      ck_assert(ref_tc_board_sync(&b));
    }
    for(d1 = 1; d1 <= 6; d1++)
      for(d2 = d1; d2 <= 6; d2++) {
        ck_assert_int_eq(ref_tc_plays(&b, 0, d1, d2, &list), 0);
        for(j = 0; j < list.n; j++)
          for(i = 0; i < list.v[j].n; i++)
            if(list.v[j].type[i] == REF_TC_BISHOP && list.v[j].from[i] != 25) {
              ck_assert_int_eq((list.v[j].from[i] - list.v[j].to[i]) % 2, 0);
              steps++;
            }
      }
  }
  ck_assert_int_gt(steps, 100);
  ref_tc_playlist_free(&list);
}
END_TEST

/* TC-1: the start is the placement's 12 pieces a side (K, R, 2 B, 2 N, 6
 * P), mirrored so that king faces king; the seed's "10 pieces" is refused
 * by bad_positions.txt. */
START_TEST(test_tc1_setup)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  struct ref_status st;
  char pos[256];

  ck_assert_int_eq(G->ops->init(s, NULL, &err), REF_OK);
  ck_assert(G->ops->ok(s));
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, START ":o:0:1");
  ck_assert_ptr_null(string_invariants(pos));
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  ck_assert_int_eq(st.need_faces, 2);
  ck_assert_int_eq(st.cube, 0);
  /* fen= starts from a position; anything else is refused */
  ck_assert_int_eq(G->ops->init(s, "fen=" START ":w21", &err), REF_OK);
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, START ":w21:0:1");
  ck_assert_int_eq(G->ops->init(s, "colour=red", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "bad-option");
  ck_assert_int_eq(G->ops->init(s, "fen=KP1", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "tc-bad-position");
  free(s);
}
END_TEST

/* TC-2, TC-3, TC-10 at the level of one step (q numbering of
 * tables_chess_int.h: own point p is q = 25 - p). */
START_TEST(test_tc2_tc3_tc10_steps)
{
  struct ref_tc_board b;
  int to;

  memset(&b, 0, sizeof(b));
  b.n[0][24][REF_TC_KING] = 1; /* K+P on own 1 */
  b.n[0][24][REF_TC_PAWN] = 1;
  b.n[0][12][REF_TC_BISHOP] = 1; /* own 13 */
  b.n[0][22][REF_TC_KNIGHT] = 1; /* own 3 */
  b.n[0][3][REF_TC_ROOK] = 1;    /* own 22 */
  b.n[0][23][REF_TC_PAWN] = 1;   /* own 2 */
  ck_assert(ref_tc_board_sync(&b));
  /* TC-2: bishop even dice both ways, knight odd dice both ways */
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_BISHOP, 12, 4, 1, &to), REF_TC_STEP_OK);
  ck_assert_int_eq(to, 8);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_BISHOP, 12, 4, -1, &to), REF_TC_STEP_OK);
  ck_assert_int_eq(to, 16);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_BISHOP, 12, 3, 1, &to), REF_TC_WRONG_DIE);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_KNIGHT, 22, 1, -1, &to), REF_TC_STEP_OK);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_KNIGHT, 22, 2, 1, &to), REF_TC_WRONG_DIE);
  /* section 7.3: king 1 or 2, forward only */
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_KING, 24, 2, 1, &to), REF_TC_STEP_OK);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_KING, 24, 3, 1, &to), REF_TC_WRONG_DIE);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_KING, 23, 1, 1, &to), REF_TC_NO_PIECE);
  /* TC-3: a pawn's 2 only onto a blot */
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_PAWN, 23, 1, 1, &to), REF_TC_STEP_OK);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_PAWN, 23, 2, 1, &to), REF_TC_PAWN_NO_BLOT);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_PAWN, 23, 1, -1, &to), REF_TC_BACKWARD);
  b.n[1][25 - 21][REF_TC_PAWN] = 1; /* a Black blot on White's q 21 (own 4) */
  ck_assert(ref_tc_board_sync(&b));
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_PAWN, 23, 2, 1, &to), REF_TC_STEP_OK);
  ck_assert_int_eq(to, 21);
  /* TC-10: nothing leaves the track, either end */
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_ROOK, 3, 3, 1, &to), REF_TC_OFF_TRACK);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_ROOK, 3, 2, 1, &to), REF_TC_STEP_OK);
  ck_assert_int_eq(to, 1);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_KNIGHT, 22, 3, -1, &to), REF_TC_OFF_TRACK);
  ck_assert_int_eq(ref_tc_step(&b, 0, REF_TC_KNIGHT, 22, 1, -1, &to), REF_TC_STEP_OK);
}
END_TEST

/* TC-4: the end-of-turn rule in whole games: no legal play of any roll in a
 * crowded position leaves the king alone; a lone king in a position string
 * is refused (bad_positions.txt). */
START_TEST(test_tc4_king_company)
{
  const char *pos[] = {START, "KP1P2N5RP7BP13BP16NP19/kp1np3rp7bp13bp16n19p22"};
  struct ref_movelist list = {0};
  char text[128], after[256];
  int k, d1, d2, plays = 0;
  size_t i;

  for(k = 0; k < 2; k++)
    for(d1 = 1; d1 <= 6; d1++)
      for(d2 = 1; d2 <= 6; d2++) {
        struct ref_state *s, *c;
        snprintf(text, sizeof(text), "%s:w%d%d", pos[k], d1, d2);
        s = decode(text);
        ref_movelist_clear(&list);
        ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
        ck_assert_uint_gt(list.n, 0);
        for(i = 0; i < list.n; i++) {
          c = ref_state_dup(G, s);
          ck_assert_int_eq(G->ops->apply(c, &list.v[i]), REF_OK);
          encode(c, after, sizeof(after));
          ck_assert_msg(string_invariants(after) == NULL, "%s after %s: %s", text, after,
                        string_invariants(after));
          free(c);
          plays++;
        }
        free(s);
      }
  ck_assert_int_gt(plays, 500);
  ref_movelist_free(&list);
}
END_TEST

/* TC-6: one die each, ties again; the starter then rolls two fresh dice. */
START_TEST(test_tc6_opening)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  struct ref_status st;
  char pos[256];

  ck_assert_int_eq(G->ops->init(s, NULL, &err), REF_OK);
  roll(s, 4, 4); /* a tie: again */
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, START ":o:0:1");
  roll(s, 2, 5); /* Black's die is higher: Black starts */
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_ROLL);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(st.need_faces, 2);
  roll(s, 2, 1); /* fresh dice, not the 5-2 of the opening */
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert_int_eq(st.dice[0] + st.dice[1], 3);
  play(s, "K1/3 P1/2");
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, "KP1NP3RP7BP13BP16NP19/p2knp3rp7bp13bp16np19:w:0:2");
  free(s);
}
END_TEST

/* TC-7 at the level of plays, on a board of rooks: one rook on the bar,
 * dice 6-4, both entries open, no second die playable after either: only
 * the 6 is legal. */
START_TEST(test_tc7_higher_die)
{
  struct ref_tc_board b;
  struct ref_tc_playlist list = {0};
  int blocks[] = {23, 15}; /* White's own 2 and 10, held by Black */
  int i;

  memset(&b, 0, sizeof(b));
  b.n[0][25][REF_TC_ROOK] = 1;
  for(i = 0; i < 2; i++)
    b.n[1][25 - blocks[i]][REF_TC_ROOK] = 2;
  ck_assert(ref_tc_board_sync(&b));
  ck_assert_int_eq(ref_tc_plays(&b, 0, 6, 4, &list), 0);
  ck_assert_uint_eq(list.n, 1);
  ck_assert_int_eq(list.v[0].n, 1);
  ck_assert_int_eq(list.v[0].to[0], 19); /* own point 6 */
  ck_assert_int_eq(list.max_dice, 1);
  ck_assert_int_eq(list.max_pips, 6);
  ref_tc_playlist_free(&list);
}
END_TEST

/* Both kings stuck (TC-8): White's on its 10 behind Black's blocks on its
 * 11 and 12, Black's likewise behind White's on 13 and 14. */
#define STUCK "KP10BB13NN14RP1PP2PP3/kp10bb13nn14rp1pp2pp3"

/* TC-8, TC-8a: both kings stuck behind blocks at the end of 20 turns in a
 * row draw (the old "no king move for 100 plies" is gone: the start is
 * no stalemate, whatever the count says); a turn that frees a king starts
 * the count again; a pass is a turn; agreement; no claims. */
START_TEST(test_tc8_stalemate)
{
  struct ref_state *s = decode(STUCK ":w21:19:30");
  struct ref_status st;
  struct ref_err err;
  struct ref_tc_board b;
  char pos[256];

  /* the helper: White's king on its own 10 (q = 15) with a pawn, Black
   * blocks on White's 11 and 12 (Black's q 11 and 12); one block gone
   * frees it; a side without a king is never stuck */
  free(s);
  memset(&b, 0, sizeof(b));
  b.n[0][15][REF_TC_KING] = b.n[0][15][REF_TC_PAWN] = 1;
  b.n[1][11][REF_TC_KNIGHT] = b.n[1][12][REF_TC_BISHOP] = 2;
  ck_assert(ref_tc_board_sync(&b));
  ck_assert(ref_tc_king_stuck(&b, 0));
  ck_assert(!ref_tc_king_stuck(&b, 1));
  b.n[1][12][REF_TC_BISHOP] = 1;
  ck_assert(ref_tc_board_sync(&b));
  ck_assert(!ref_tc_king_stuck(&b, 0));
  /* a king on its 23 is stuck exactly when its goal is blocked */
  memset(&b, 0, sizeof(b));
  b.n[0][2][REF_TC_KING] = b.n[0][2][REF_TC_PAWN] = 1;
  b.n[1][24][REF_TC_PAWN] = 2;
  ck_assert(ref_tc_board_sync(&b));
  ck_assert(ref_tc_king_stuck(&b, 0));

  /* the 20th stuck turn draws */
  s = decode(STUCK ":w21:19:30");
  play(s, "R1/3 P1/2");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, -1);
  ck_assert_int_eq(st.end, REF_END_STALEMATE);
  ck_assert_int_eq(st.points, 0);
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, "PPP2RPP3KP10BB13NN14/rp1pp2pp3kp10bb13nn14:xds:20:31");
  free(s);
  s = decode(pos);
  free(s);

  /* a turn that frees Black's king (a knight leaves White's block on 14)
   * starts the count again */
  s = decode(STUCK ":w21:19:30");
  play(s, "N14/13 R1/3");
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, "P1PP2RPP3KP10BBN13N14/rp1pp2pp3kp10bb13nn14:b:0:31");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "tc-no-draw-claim");
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_AGREED, 0, &err), REF_OK);
  G->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_AGREEMENT);
  ck_assert(G->ops->ok(s));
  free(s);

  /* TC-8a: a pass is a turn too (White's rook cannot enter on 6) */
  s = decode("R0P1PP2PP3KP10BB13NN14/kp10bb13nn14rp19pp20pp21:w66:3:30");
  {
    struct ref_movelist list = {0};
    ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
    ck_assert_uint_eq(list.n, 1);
    ck_assert_int_eq(G->ops->format(s, &list.v[0], REF_NOTATION_CANONICAL, pos, sizeof(pos)),
                     REF_OK);
    ck_assert_str_eq(pos, "--");
    play(s, "--");
    ref_movelist_free(&list);
  }
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, "R0P1PP2PP3KP10BB13NN14/kp10bb13nn14rp19pp20pp21:b:4:31");
  free(s);
}
END_TEST

/* TC-9, TC-9a: exact landing on 24 wins at once, the other die unplayed,
 * and ends the game with the king alone there. */
START_TEST(test_tc9_king_home)
{
  struct ref_state *s = decode("NP3RP7BP13BP16NP19KP22/kp5rp7np10bp13bp16np20:w21");
  struct ref_status st;
  struct ref_err err;
  struct ref_move m;
  char pos[256];

  play(s, "K22/24");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.winner, 0);
  ck_assert_int_eq(st.end, REF_END_KING_HOME);
  ck_assert_int_eq(st.points, 1);
  ck_assert_str_eq(ref_end_name(st.end), "king-home");
  encode(s, pos, sizeof(pos));
  ck_assert_str_eq(pos, "NP3RP7BP13BP16NP19P22K24/kp5rp7np10bp13bp16np20:xwk:0:2");
  ck_assert_ptr_null(string_invariants(pos));
  ck_assert_int_eq(parse(s, "R7/8", &m, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "game-over");
  free(s);
  /* No overshoot: from 23 a 2 does not bring the king home. */
  s = decode("NP3RP7BP13BP16NP19KP23/kp5rp7np10bp13bp16np20:w62");
  ck_assert_int_eq(parse(s, "K23/24", &m, &err), REF_EILLEGAL);
  free(s);
}
END_TEST

/* TC-11: no cube. TC-12: resignation loses 1 point. */
START_TEST(test_tc11_tc12_cube_resign)
{
  struct ref_state *s = decode(START ":w21");
  struct ref_status st;
  struct ref_err err;

  ck_assert(!(G->flags & REF_GAME_CUBE));
  ck_assert(G->flags & REF_GAME_DICE);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "tc-no-cube");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 2, &err), REF_OK);
  G->ops->status(s, &st);
  ck_assert_int_eq(st.winner, 1);
  ck_assert_int_eq(st.end, REF_END_RESIGNATION);
  ck_assert_int_eq(st.points, 1);
  ck_assert(G->ops->ok(s));
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_RESIGN, 1, &err), REF_EPHASE);
  free(s);
}
END_TEST

/* ---- cross-check with backgammon --------------------------------------- */

static uint64_t rng_next(uint64_t *x)
{
  uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int rnd(uint64_t *x, int n)
{
  return (int)(rng_next(x) % (uint64_t)n);
}

/* A random board of rooks only: up to 15 a side, now and then some on the
 * bar, no point shared. */
static void random_rooks(struct ref_tc_board *b, uint64_t *x)
{
  int side, k, q, n;
  memset(b, 0, sizeof(*b));
  for(side = 0; side < 2; side++) {
    n = 1 + rnd(x, 15);
    for(k = 0; k < n; k++) {
      q = rnd(x, 12) == 0 ? 25 : 1 + rnd(x, 24);
      if(q != 25 && b->n[!side][25 - q][REF_TC_ROOK])
        continue;
      b->n[side][q][REF_TC_ROOK]++;
    }
  }
  ck_assert(ref_tc_board_sync(b));
  ck_assert(ref_bg_board_ok(&b->bg));
}

/*
 * Must-show 2: where the rules coincide, Tables Chess is backgammon's point
 * arithmetic. With only rooks (no king, any die) on the board:
 *   - each forward step (section 7.3) equals ref_bg_step: same landing, same
 *     refusal (bar first, blocked), same hit, same board after; entry (TC-5:
 *     own point d) is backgammon's entry; beyond 24 is TC-10's refusal;
 *   - the legal plays whose pieces all moved forward (exactly those that
 *     lower the mover's pip count by the dice used) are backgammon's legal
 *     plays (ref_bg_plays), board for board, whenever both games can use
 *     the same dice (backward rook moves may let Tables Chess use more).
 */
START_TEST(test_rooks_equal_backgammon)
{
  struct ref_tc_board b, tb;
  struct ref_bg_board gb;
  struct ref_tc_playlist tl = {0};
  struct ref_bg_playlist bl = {0};
  uint64_t x = 20261122;
  int compared = 0, steps = 0, tries, side, d1, d2, q, d, to1, to2, start;
  size_t i, fwd;

  for(tries = 0; tries < 20000 && compared < 600; tries++) {
    random_rooks(&b, &x);
    side = rnd(&x, 2);
    d1 = 1 + rnd(&x, 6);
    d2 = 1 + rnd(&x, 6);
    /* steps */
    for(q = 1; q <= 25; q++)
      for(d = 1; d <= 6; d++) {
        enum ref_tc_why tw;
        enum ref_bg_why bw;
        if(!b.bg.pt[side][q])
          continue;
        tw = ref_tc_step(&b, side, REF_TC_ROOK, q, d, 1, &to1);
        bw = ref_bg_step(&b.bg, side, q, d, &to2);
        if(q - d < 1) {
          /* backgammon would bear off or refuse; Tables Chess never moves
           * off the track (TC-10), the bar rule first */
          ck_assert(tw == REF_TC_OFF_TRACK || (tw == REF_TC_BAR_FIRST && bw == REF_BG_BAR_FIRST));
          continue;
        }
        steps++;
        ck_assert_int_eq(tw == REF_TC_STEP_OK, bw == REF_BG_STEP_OK);
        ck_assert_int_eq(tw == REF_TC_BLOCKED, bw == REF_BG_BLOCKED);
        ck_assert_int_eq(tw == REF_TC_BAR_FIRST, bw == REF_BG_BAR_FIRST);
        if(tw == REF_TC_STEP_OK) {
          ck_assert_int_eq(to1, to2);
          tb = b;
          gb = b.bg;
          ck_assert_int_eq(ref_tc_step_apply(&tb, side, REF_TC_ROOK, q, to1),
                           ref_bg_step_apply(&gb, side, q, to2));
          ck_assert(!memcmp(&tb.bg, &gb, sizeof(gb)));
        }
      }
    /* plays */
    ck_assert_int_eq(ref_tc_plays(&b, side, d1, d2, &tl), 0);
    ck_assert_int_eq(ref_bg_plays(&b.bg, side, d1, d2, &bl), 0);
    if(tl.max_dice != bl.max_dice || tl.max_pips != bl.max_pips)
      continue;
    for(i = 0; i < bl.n; i++)
      if(bl.v[i].n && bl.v[i].to[bl.v[i].n - 1] == REF_BG_OFF)
        break;
    if(i < bl.n)
      continue; /* backgammon bears off here; Tables Chess cannot */
    start = ref_bg_pips(&b.bg, side);
    fwd = 0;
    for(i = 0; i < tl.n; i++) {
      struct ref_tc_board res;
      bool forward, found = false;
      size_t j;
      ref_tc_play_result(&tl, i, &res);
      forward = ref_bg_pips(&res.bg, side) == start - tl.max_pips;
      for(j = 0; j < bl.n && !found; j++)
        found = !memcmp(&bl.res[j], &res.bg, sizeof(bl.res[j]));
      ck_assert_int_eq(forward, found);
      fwd += forward;
    }
    ck_assert_uint_eq(fwd, bl.n);
    compared++;
  }
  printf("rooks vs backgammon: %d positions and rolls tried, %d play sets compared, %d steps\n",
         tries, compared, steps);
  ck_assert_int_ge(compared, 500);
  ck_assert_int_gt(steps, 10000);
  ref_tc_playlist_free(&tl);
  ref_bg_playlist_free(&bl);
}
END_TEST

/* ---- position strings and the board ------------------------------------ */

START_TEST(test_bad_positions)
{
  FILE *f = fopen(DATA "bad_positions.txt", "r");
  char line[256];
  int n = 0;
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;

  ck_assert_ptr_nonnull(f);
  while(fgets(line, sizeof(line), f)) {
    char *p = trim(line);
    if(!*p || *p == '#')
      continue;
    memset(&err, 0, sizeof(err));
    ck_assert_msg(G->ops->decode(s, p, &err) == REF_EINVAL, "accepted: %s", p);
    ck_assert_str_eq(err.reason, "tc-bad-position");
    n++;
  }
  fclose(f);
  ck_assert_int_ge(n, 25);
  free(s);
}
END_TEST

static void check_render(const struct ref_state *s, int seat, const char *file)
{
  char buf[4096], want[4096], *line;
  FILE *f = fopen(file, "r");
  size_t n;
  ck_assert_ptr_nonnull(f);
  n = fread(want, 1, sizeof(want) - 1, f);
  want[n] = '\0';
  fclose(f);
  ck_assert_int_eq(G->ops->render(s, seat, buf, sizeof(buf)), REF_OK);
  ck_assert_str_eq(buf, want);
  for(line = buf; *line;) {
    size_t len = strcspn(line, "\n");
    ck_assert_uint_le(len, 72);
    line += len + (line[len] ? 1 : 0);
  }
}

START_TEST(test_render)
{
  struct ref_state *s = decode(START ":w21");
  check_render(s, 0, DATA "render_start_white.txt");
  check_render(s, 1, DATA "render_start_black.txt");
  free(s);
  /* pieces on the bar and the last play shown */
  s = decode("KP1P2N5RP7BP13BP16NP19/kp1np3rp7bp13bp16n19p22:w21");
  play(s, "K1/3* P2/3");
  check_render(s, 1, DATA "render_hit_black.txt");
  free(s);
}
END_TEST

/* The board as data: each side's play marked where its own
 * numbering puts it (BG 4.1: Black's point p is White's 25 - p), and the
 * pieces where render puts them. */
static void check_marks(const struct ref_diagram *d, const unsigned want[24])
{
  int p;
  for(p = 1; p <= 24; p++)
    ck_assert_msg(d->point[p - 1].mark == want[p - 1], "point %d marked %u, want %u", p,
                  d->point[p - 1].mark, want[p - 1]);
}

START_TEST(test_diagram)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_diagram d;
  struct ref_err err;
  unsigned want[24] = {0};

  /* Black starts and plays K1/3 P1/2: its 1, 3 and 2 are White's 24, 22, 23 */
  ck_assert_int_eq(G->ops->init(s, NULL, &err), REF_OK);
  roll(s, 2, 5);
  roll(s, 2, 1);
  play(s, "K1/3 P1/2");
  ck_assert_int_eq(G->ops->diagram(s, 1, &d), REF_OK);
  ck_assert(d.has_points && d.flip);
  want[23] = REF_DIAG_FROM;
  want[21] = want[22] = REF_DIAG_TO;
  check_marks(&d, want);
  ck_assert_int_eq(d.point[21].n, 3); /* the king joins its 3's knight and pawn */
  ck_assert_int_eq(d.point[21].p[0].kind, REF_DIAG_KING);
  ck_assert_int_eq(d.point[21].p[0].dark, 1);
  free(s);

  /* White's play K1/3* P2/3 in its own numbering; Black's pawn hit goes to
   * its bar */
  s = decode("KP1P2N5RP7BP13BP16NP19/kp1np3rp7bp13bp16n19p22:w21");
  play(s, "K1/3* P2/3");
  ck_assert_int_eq(G->ops->diagram(s, 0, &d), REF_OK);
  ck_assert(d.has_points && !d.flip);
  memset(want, 0, sizeof(want));
  want[0] = want[1] = REF_DIAG_FROM;
  want[2] = REF_DIAG_TO;
  check_marks(&d, want);
  ck_assert_int_eq(d.bar[1].n, 1);
  ck_assert_int_eq(d.bar[1].p[0].kind, REF_DIAG_PAWN);
  free(s);
}
END_TEST

START_TEST(test_registry_and_reasons)
{
  const char *keys[] = {"tc-bad-position", "tc-no-piece",   "tc-bar-first",  "tc-blocked",
                        "tc-off-track",    "tc-piece-die",  "tc-backward",   "tc-pawn-blot",
                        "tc-king-alone",   "tc-no-roll-now", "tc-no-cube",   "tc-no-draw-claim",
                        "bg-not-all-dice", "bg-higher-die", "bg-wrong-dice", "bg-must-move",
                        "bg-no-roll-yet",  "bg-bad-dice",   "unreadable",    "ambiguous"};
  size_t i;

  ck_assert_ptr_eq(ref_game_find("tableschess"), G);
  for(i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
    ts_assert_worded(keys[i]);
}
END_TEST

/* ---- random playouts --------------------------------------------------- */

/*
 * Must-show 3 and 5: 1,000 seeded games, a third each from the start,
 * from a race position (kings on 21 with company) so that kings get home,
 * and from a position with both kings stuck and TC-8's count at 19 so
 * that the stalemate draw comes; each capped at 120 steps. After every step: ops->ok, the position string
 * round trip, and string_invariants; every 8th move also its notation
 * round trip (the bench does every move).
 */
START_TEST(test_playouts)
{
  /* the start; a race; both kings stuck with TC-8's count near its end */
  static const char *const from[3] = {NULL, "NP3RP7BP13BP16NP17KP21/np3rp6bp13bp16np17kp21:w:0:1",
                                      STUCK ":w:19:1"};
  struct ref_movelist list = {0};
  struct ref_state *s = ref_state_new(G), *scratch = ref_state_new(G);
  struct ref_status st;
  struct ref_err err;
  char pos[256], pos2[256], text[REF_NOTATION_MAX];
  uint64_t x = 7;
  long ends[REF_END_LAST] = {0}, capped = 0, moves = 0;
  int game, step, f[2];

  for(game = 0; game < 1000; game++) {
    const char *opt = NULL;
    char optbuf[128];
    if(from[game % 3]) {
      snprintf(optbuf, sizeof(optbuf), "fen=%s", from[game % 3]);
      opt = optbuf;
    }
    ck_assert_int_eq(G->ops->init(s, opt, &err), REF_OK);
    for(step = 0; step < 120; step++) {
      G->ops->status(s, &st);
      if(st.phase == REF_PHASE_OVER)
        break;
      if(st.phase == REF_PHASE_ROLL) {
        f[0] = 1 + rnd(&x, 6);
        f[1] = 1 + rnd(&x, 6);
        ck_assert_int_eq(G->ops->roll(s, f, 2, &err), REF_OK);
      }
      else {
        const struct ref_move *m;
        ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
        ref_movelist_clear(&list);
        ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
        ck_assert_uint_gt(list.n, 0);
        m = &list.v[rnd(&x, (int)list.n)];
        if(moves++ % 8 == 0) {
          struct ref_move back;
          ck_assert_int_eq(G->ops->format(s, m, REF_NOTATION_CANONICAL, text, sizeof(text)),
                           REF_OK);
          ck_assert_msg(parse(s, text, &back, &err) == REF_OK, "'%s': %s", text, err.reason);
          ck_assert(!memcmp(&back, m, sizeof(back)));
        }
        ck_assert_int_eq(G->ops->apply(s, m), REF_OK);
      }
      ck_assert(G->ops->ok(s));
      encode(s, pos, sizeof(pos));
      ck_assert_msg(string_invariants(pos) == NULL, "game %d: %s: %s", game, pos,
                    string_invariants(pos));
      ck_assert_int_eq(G->ops->decode(scratch, pos, &err), REF_OK);
      encode(scratch, pos2, sizeof(pos2));
      ck_assert_str_eq(pos, pos2);
    }
    G->ops->status(s, &st);
    if(st.phase == REF_PHASE_OVER)
      ends[st.end]++;
    else
      capped++;
  }
  printf("tables chess playouts: 1000 games, %ld moves: king-home %ld, stalemate %ld, capped "
         "%ld\n",
         moves, ends[REF_END_KING_HOME], ends[REF_END_STALEMATE], capped);
  ck_assert_int_gt(ends[REF_END_KING_HOME], 10);
  ck_assert_int_gt(ends[REF_END_STALEMATE], 100);
  ref_movelist_free(&list);
  free(s);
  free(scratch);
}
END_TEST

static Suite *tc_suite(void)
{
  Suite *s = suite_create("tables_chess");
  TCase *tc = tcase_create("rules");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_parse_cases);
  tcase_add_test(tc, test_t_tc_1);
  tcase_add_test(tc, test_tc0_bishop_colour);
  tcase_add_test(tc, test_tc1_setup);
  tcase_add_test(tc, test_tc2_tc3_tc10_steps);
  tcase_add_test(tc, test_tc4_king_company);
  tcase_add_test(tc, test_tc6_opening);
  tcase_add_test(tc, test_tc7_higher_die);
  tcase_add_test(tc, test_tc8_stalemate);
  tcase_add_test(tc, test_tc9_king_home);
  tcase_add_test(tc, test_tc11_tc12_cube_resign);
  tcase_add_test(tc, test_bad_positions);
  tcase_add_test(tc, test_render);
  tcase_add_test(tc, test_diagram);
  tcase_add_test(tc, test_registry_and_reasons);
  suite_add_tcase(s, tc);
  tc = tcase_create("cross-check");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_rooks_equal_backgammon);
  suite_add_tcase(s, tc);
  tc = tcase_create("playouts");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_playouts);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(tc_suite());
}
