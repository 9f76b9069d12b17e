/*
 * test_chess.c: unit tests of the chess rules core (referee/rules/chess.c,
 * docs/rules-spec.md §1-§2) through its ops table, plus the board layer of
 * chess_int.h.
 *
 * Data (tests/data/chess/, generators in tests/oracles/):
 *   perft.epd    CPW perft positions and Sedlak's edge cases (published counts)
 *   divide.txt   Stockfish 15.1 divide at depth 3 of 240 random positions
 *   san.txt      chess.js 1.4.0 "uci san" lists of the same positions
 *   parse.txt    tolerant move input: expected SAN or error reason
 *   fen_invalid.txt  FENs decode must refuse, with the reason key
 *   render_*.txt exact boards from White's and Black's side
 *
 * Environment: TABULA_PERFT_MAXDEPTH (default 4) and TABULA_PERFT_BUDGET
 * (nodes, default 20000000) bound the perft case; raise them by hand to
 * check the deep published counts.
 */
#include "chess_int.h"
#include "rules.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DATA TABULA_TEST_DATA "/chess/"

static const struct ref_game_desc *G;

static const char *const roots[] = {
  "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
  "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
  "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
  "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
  "r2q1rk1/pP1p2pp/Q4n2/bbp1p3/Np6/1B3NBn/pPPP1PPP/R3K2R b KQ - 0 1",
  "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
  "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
};

static struct ref_state *state_new(const char *fen, const char *options)
{
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  int rc;

  ck_assert_ptr_nonnull(s);
  rc = G->ops->init(s, options, &err);
  ck_assert_msg(rc == REF_OK, "init(%s): %s", options ? options : "NULL", err.reason);
  if(fen && strcmp(fen, "startpos")) {
    rc = G->ops->decode(s, fen, &err);
    ck_assert_msg(rc == REF_OK, "decode(%s): %s", fen, err.reason);
  }
  ck_assert(G->ops->ok(s));
  return s;
}

static void encode(const struct ref_state *s, char *buf, size_t cap)
{
  ck_assert_int_eq(G->ops->encode(s, buf, cap), REF_OK);
}

/* Deterministic generator for the random games (tests may use one; the
 * rules core may not). */
static uint64_t rng_state;

/* ---- descriptor ---- */

START_TEST(test_chess_desc)
{
  ck_assert_ptr_nonnull(G);
  ck_assert_str_eq(G->name, "chess");
  ck_assert_str_eq(G->title, "Chess");
  ck_assert_int_eq(G->version, 1);
  ck_assert_int_eq(G->seats, 2);
  ck_assert_str_eq(G->seat_names[0], "White");
  ck_assert_str_eq(G->seat_names[1], "Black");
  ck_assert_uint_eq(G->flags, REF_GAME_DRAWS);
  ck_assert(G->ops->init && G->ops->decode && G->ops->encode && G->ops->legal &&
            G->ops->parse && G->ops->format && G->ops->apply && G->ops->act &&
            G->ops->status && G->ops->render && G->ops->perft && G->ops->ok);
  ck_assert_ptr_null(G->ops->roll);
}
END_TEST

/* ---- 1. perft: published counts ---- */

START_TEST(test_chess_perft_epd)
{
  char *text = ts_read(DATA "perft.epd"), *cur = text, *line;
  long maxdepth = ts_env_long("TABULA_PERFT_MAXDEPTH", 4);
  long budget = ts_env_long("TABULA_PERFT_BUDGET", 20000000);
  int positions = 0, checked = 0;

  while((line = ts_next_line(&cur))) {
    char *semi, *f, fen[128], out[128];
    struct ref_state *s;
    if(!*line || *line == '#')
      continue;
    semi = strchr(line, ';');
    ck_assert_ptr_nonnull(semi);
    snprintf(fen, sizeof(fen), "%.*s", (int)(semi - line - 1), line);
    s = state_new(fen, NULL);
    encode(s, out, sizeof(out));
    ck_assert_str_eq(out, fen); /* FEN round trip */
    positions++;
    for(f = semi; f; f = strchr(f + 1, ';')) {
      int depth;
      unsigned long long want;
      if(sscanf(f, ";D%d %llu", &depth, &want) != 2)
        continue;
      if(depth > maxdepth || want > (unsigned long long)budget)
        continue;
      ck_assert_msg(ref_perft(G, s, depth) == want, "%s depth %d: got %llu want %llu", fen,
                    depth, (unsigned long long)ref_perft(G, s, depth), want);
      checked++;
    }
    free(s);
  }
  ck_assert_int_eq(positions, 22);
  ck_assert_int_ge(checked, 80);
  free(text);
}
END_TEST

/* ---- 2. divide and SAN goldens from Stockfish and chess.js ---- */

START_TEST(test_chess_divide_stockfish)
{
  char *text = ts_read(DATA "divide.txt"), *cur = text, *line;
  char fen[128] = "", *want[REF_CH_MAX_MOVES], *got[REF_CH_MAX_MOVES];
  int nwant = 0, depth = 0, blocks = 0;

  while((line = ts_next_line(&cur))) {
    if(!strncmp(line, "fen ", 4)) {
      snprintf(fen, sizeof(fen), "%s", line + 4);
      nwant = 0;
    }
    else if(!strncmp(line, "depth ", 6)) {
      depth = atoi(line + 6);
    }
    else if(strchr(line, ':') && *line != '#') {
      ck_assert_int_lt(nwant, REF_CH_MAX_MOVES);
      want[nwant++] = line;
    }
    else if(!strncmp(line, "total ", 6)) {
      struct ref_state *s = state_new(fen, NULL), *child = ref_state_new(G);
      struct ref_movelist list = {0};
      unsigned long long total = 0;
      size_t i;
      ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
      ck_assert_msg((int)list.n == nwant, "%s: %zu moves, stockfish %d", fen, list.n, nwant);
      for(i = 0; i < list.n; i++) {
        char uci[REF_NOTATION_MAX];
        uint64_t n;
        ck_assert_int_eq(G->ops->format(s, &list.v[i], REF_NOTATION_COMPUTER, uci, sizeof(uci)),
                         REF_OK);
        memcpy(child, s, G->state_size);
        ck_assert_int_eq(G->ops->apply(child, &list.v[i]), REF_OK);
        ck_assert(G->ops->ok(child));
        n = ref_perft_below(G, child, depth - 1);
        total += n;
        got[i] = malloc(REF_NOTATION_MAX + 24);
        snprintf(got[i], REF_NOTATION_MAX + 24, "%s: %llu", uci, (unsigned long long)n);
      }
      qsort(got, list.n, sizeof(got[0]), ts_cmp_str);
      for(i = 0; i < list.n; i++) {
        ck_assert_msg(!strcmp(got[i], want[i]), "%s: got %s, stockfish %s", fen, got[i], want[i]);
        free(got[i]);
      }
      ck_assert_msg(total == strtoull(line + 6, NULL, 10), "%s total", fen);
      ck_assert_uint_eq(ref_perft(G, s, depth), total);
      ref_movelist_free(&list);
      free(child);
      free(s);
      blocks++;
    }
  }
  ck_assert_int_ge(blocks, 200);
  free(text);
}
END_TEST

/* Writes move m in long algebraic with its piece letter ("Ng1-f3",
 * "e5xd6", "e7-e8=Q"): another accepted input form (§2.4). */
static void long_form(const struct ref_state *s, const struct ref_move *m, const char *uci,
                      char *out, size_t cap)
{
  char san[REF_NOTATION_MAX];
  ck_assert_int_eq(G->ops->format(s, m, REF_NOTATION_CANONICAL, san, sizeof(san)), REF_OK);
  if(san[0] == 'O') {
    snprintf(out, cap, "%s", san);
    return;
  }
  snprintf(out, cap, "%s%.2s%c%.2s%s%s", strchr("KQRBN", san[0]) ? (char[]){san[0], 0} : "",
           uci, strchr(san, 'x') ? 'x' : '-', uci + 2, uci[4] ? "=" : "",
           uci[4] ? (char[]){(char)(uci[4] - 'a' + 'A'), 0} : "");
}

START_TEST(test_chess_san_chessjs)
{
  char *text = ts_read(DATA "san.txt"), *cur = text, *line;
  char fen[128] = "", *want[REF_CH_MAX_MOVES], *got[REF_CH_MAX_MOVES];
  int nwant = 0, blocks = 0;
  bool in_block = false;

  /* A blank line closes a block; the file ends with one too. */
  while((line = ts_next_line(&cur)) || in_block) {
    if(line && !strncmp(line, "fen ", 4)) {
      snprintf(fen, sizeof(fen), "%s", line + 4);
      nwant = 0;
      in_block = true;
    }
    else if(line && *line && *line != '#') {
      want[nwant++] = line;
    }
    else if(in_block) {
      struct ref_state *s = state_new(fen, NULL);
      struct ref_movelist list = {0};
      char out[128];
      size_t i;
      encode(s, out, sizeof(out));
      ck_assert_str_eq(out, fen); /* FEN round trip on every position */
      ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
      ck_assert_msg((int)list.n == nwant, "%s: %zu moves, chess.js %d", fen, list.n, nwant);
      for(i = 0; i < list.n; i++) {
        char uci[REF_NOTATION_MAX], san[REF_NOTATION_MAX], lan[REF_NOTATION_MAX];
        const char *forms[3];
        struct ref_move m;
        struct ref_err err;
        int k;
        G->ops->format(s, &list.v[i], REF_NOTATION_COMPUTER, uci, sizeof(uci));
        G->ops->format(s, &list.v[i], REF_NOTATION_CANONICAL, san, sizeof(san));
        got[i] = malloc(2 * REF_NOTATION_MAX + 2);
        snprintf(got[i], 2 * REF_NOTATION_MAX + 2, "%s %s", uci, san);
        /* Every legal move reads back from its SAN, UCI and long form. */
        long_form(s, &list.v[i], uci, lan, sizeof(lan));
        forms[0] = san;
        forms[1] = uci;
        forms[2] = lan;
        for(k = 0; k < 3; k++) {
          int rc = G->ops->parse(s, forms[k], &m, &err);
          ck_assert_msg(rc == REF_OK, "%s: parse %s: %s", fen, forms[k], err.reason);
          ck_assert_msg(!memcmp(&m, &list.v[i], sizeof(m)), "%s: %s read as another move", fen,
                        forms[k]);
        }
      }
      qsort(got, list.n, sizeof(got[0]), ts_cmp_str);
      for(i = 0; i < list.n; i++) {
        ck_assert_msg(!strcmp(got[i], want[i]), "%s: got %s, chess.js %s", fen, got[i], want[i]);
        free(got[i]);
      }
      ref_movelist_free(&list);
      free(s);
      blocks++;
      in_block = false;
    }
    if(!line)
      break;
  }
  ck_assert_int_ge(blocks, 200);
  free(text);
}
END_TEST

/* ---- 6. random games: ok() after every apply, generators agree ---- */

/* The legal generator against the slow definition: pseudo-legal moves
 * whose king survives. Also count vs list, and the position checker. */
static void check_generators(const char *fen)
{
  struct ref_chess_pos p;
  const char *reason;
  uint16_t legal[REF_CH_MAX_MOVES], pseudo[REF_CH_MAX_MOVES], filtered[REF_CH_MAX_MOVES];
  int nl, np, nf = 0, i, j;

  ck_assert_int_eq(ref_chess_fen_read(&p, fen, &reason), REF_OK);
  ck_assert(ref_chess_pos_ok(&p));
  nl = ref_chess_gen_legal(&p, legal);
  ck_assert_int_eq(ref_chess_count_legal(&p), nl);
  np = ref_chess_gen_pseudo(&p, 0, pseudo);
  for(i = 0; i < np; i++)
    if(ref_chess_pseudo_is_legal(&p, pseudo[i]))
      filtered[nf++] = pseudo[i];
  ck_assert_msg(nf == nl, "%s: legal %d, filtered pseudo %d", fen, nl, nf);
  for(i = 0; i < nl; i++) {
    bool hit = false;
    for(j = 0; j < nf; j++)
      hit = hit || filtered[j] == legal[i];
    ck_assert_msg(hit, "%s: legal move %04x not in filtered pseudo", fen, legal[i]);
  }
}

static void random_games(int ngames, const char *options, int maxplies)
{
  int g;

  for(g = 0; g < ngames; g++) {
    struct ref_state *s = state_new(roots[g % 7], options), *again = ref_state_new(G);
    struct ref_movelist list = {0};
    struct ref_status st;
    int ply;

    for(ply = 0; ply < maxplies; ply++) {
      char fen[128], fen2[128];
      struct ref_err err;
      G->ops->status(s, &st);
      if(st.phase == REF_PHASE_OVER)
        break;
      ck_assert_int_eq(st.turn, ply % 2 == 0 ? (strstr(roots[g % 7], " w ") ? 0 : 1)
                                             : (strstr(roots[g % 7], " w ") ? 1 : 0));
      encode(s, fen, sizeof(fen));
      check_generators(fen);
      /* decode(encode(s)) gives the same position string */
      ck_assert_int_eq(G->ops->decode(again, fen, &err), REF_OK);
      encode(again, fen2, sizeof(fen2));
      ck_assert_str_eq(fen, fen2);
      ref_movelist_clear(&list);
      ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
      ck_assert_uint_gt(list.n, 0);
      ck_assert_int_eq(G->ops->apply(s, &list.v[ts_lcg(&rng_state) % list.n]), REF_OK);
      ck_assert_msg(G->ops->ok(s), "ok() failed after ply %d of game %d from %s", ply, g, fen);
    }
    ref_movelist_free(&list);
    free(again);
    free(s);
  }
}

START_TEST(test_chess_random_games)
{
  rng_state = 12345;
  random_games(42, NULL, 300);
  random_games(7, "fide_draws=off", 300);
}
END_TEST

/* Hostile input must never crash the parser, and what it accepts must be
 * a legal move. */
START_TEST(test_chess_parse_garbage)
{
  static const char alphabet[] = "abcdefghABCDEFGH12345678KQRBNPkqrbnpxX:*-=/()+#!?. Oo0ept";
  struct ref_state *s = state_new(roots[1], NULL), *child = ref_state_new(G);
  int i, ok = 0;

  rng_state = 99;
  for(i = 0; i < 20000; i++) {
    char in[16];
    struct ref_move m;
    struct ref_err err;
    int len = 1 + (int)(ts_lcg(&rng_state) % 8), k, rc;
    for(k = 0; k < len; k++)
      in[k] = alphabet[ts_lcg(&rng_state) % (sizeof(alphabet) - 1)];
    in[len] = '\0';
    memset(&err, 0x55, sizeof(err));
    rc = G->ops->parse(s, in, &m, &err);
    if(rc == REF_OK) {
      memcpy(child, s, G->state_size);
      ck_assert_int_eq(G->ops->apply(child, &m), REF_OK);
      ok++;
      continue;
    }
    ck_assert(rc == REF_EPARSE || rc == REF_EILLEGAL || rc == REF_EAMBIGUOUS);
    ck_assert_int_eq(err.code, rc);
    ck_assert(err.reason[0] && memchr(err.reason, 0, sizeof(err.reason)));
    ts_assert_worded(err.reason);
    ck_assert(err.nsuggest >= 1 && err.nsuggest <= REF_SUGGEST_MAX);
  }
  ck_assert_int_gt(ok, 0);
  free(child);
  free(s);
}
END_TEST

/* ---- 4. parser cases as data ---- */

/* Field of a parse.txt line: "quoted" fields keep their spaces and know
 * the escapes \t and \n. */
static void unquote(char *f)
{
  size_t n = strlen(f), i, k = 0;
  if(n < 2 || f[0] != '"' || f[n - 1] != '"')
    return;
  for(i = 1; i + 1 < n; i++) {
    if(f[i] == '\\' && i + 2 < n && (f[i + 1] == 't' || f[i + 1] == 'n')) {
      f[k++] = f[i + 1] == 't' ? '\t' : '\n';
      i++;
    }
    else {
      f[k++] = f[i];
    }
  }
  f[k] = '\0';
}

START_TEST(test_chess_parse_cases)
{
  char *text = ts_read(DATA "parse.txt"), *cur = text, *line;
  int cases = 0;

  while((line = ts_next_line(&cur))) {
    char *a, *b, *fen = line, *input, *expect;
    struct ref_state *s;
    struct ref_move m;
    struct ref_err err;
    int rc;
    if(!*line || *line == '#')
      continue;
    a = strstr(line, " | ");
    ck_assert_ptr_nonnull(a);
    *a = '\0';
    input = a + 3;
    b = strstr(input, " | ");
    ck_assert_ptr_nonnull(b);
    *b = '\0';
    expect = b + 3;
    unquote(input);
    s = state_new(fen, NULL);
    memset(&err, 0, sizeof(err));
    rc = G->ops->parse(s, input, &m, &err);
    if(!strncmp(expect, "ERROR:", 6)) {
      char *reason = expect + 6, *detail = strchr(reason, ':');
      if(detail)
        *detail++ = '\0';
      ck_assert_msg(rc != REF_OK, "%s | %s: accepted, want %s", fen, input, expect);
      ck_assert_msg(!strcmp(err.reason, reason), "%s | %s: reason %s, want %s", fen, input,
                    err.reason, reason);
      ts_assert_worded(err.reason);
      if(detail)
        ck_assert_msg(!strcmp(err.detail, detail), "%s | %s: detail '%s', want '%s'", fen, input,
                      err.detail, detail);
      ck_assert_int_eq(err.code, rc);
      ck_assert_int_eq(rc, !strcmp(reason, "unreadable")  ? REF_EPARSE
                           : !strcmp(reason, "ambiguous") ? REF_EAMBIGUOUS
                                                          : REF_EILLEGAL);
      ck_assert_msg(err.nsuggest > 0, "%s | %s: no suggestions", fen, input);
    }
    else {
      char san[REF_NOTATION_MAX];
      ck_assert_msg(rc == REF_OK, "%s | %s: %s, want %s", fen, input, err.reason, expect);
      ck_assert_int_eq(G->ops->format(s, &m, REF_NOTATION_CANONICAL, san, sizeof(san)), REF_OK);
      ck_assert_msg(!strcmp(san, expect), "%s | %s: read as %s, want %s", fen, input, san,
                    expect);
    }
    free(s);
    cases++;
  }
  ck_assert_int_ge(cases, 200);
  free(text);
}
END_TEST

/* Suggestions (§1.4): related moves first, in canonical SAN. */
START_TEST(test_chess_parse_suggestions)
{
  struct ref_state *s = state_new("startpos", NULL);
  struct ref_move m;
  struct ref_err err;
  int i;

  /* "e5": nothing goes there; moves to e-squares are not "related", but
   * the pawn moves are (same piece type). */
  ck_assert_int_eq(G->ops->parse(s, "e5", &m, &err), REF_EILLEGAL);
  ck_assert_int_eq(err.nsuggest, 12);
  for(i = 0; i < err.nsuggest; i++)
    ck_assert_msg(strlen(err.suggest[i]) == 2, "pawn push expected, got %s", err.suggest[i]);
  /* Unreadable text still names a square: same destination ranks first,
   * then the piece letter. */
  ck_assert_int_eq(G->ops->parse(s, "Nf3x", &m, &err), REF_EPARSE);
  ck_assert_str_eq(err.reason, "unreadable");
  ck_assert_str_eq(err.suggest[0], "Nf3");
  ck_assert_str_eq(err.suggest[1], "f3");
  /* ambiguous: exactly the candidates */
  free(s);
  s = state_new("k7/8/8/8/8/4R3/8/4R2K w - - 0 1", NULL);
  ck_assert_int_eq(G->ops->parse(s, "Re2", &m, &err), REF_EAMBIGUOUS);
  ck_assert_int_eq(err.nsuggest, 2);
  ck_assert_str_eq(err.suggest[0], "R1e2");
  ck_assert_str_eq(err.suggest[1], "R3e2");
  /* few legal moves: all of them */
  free(s);
  s = state_new("k7/8/1K6/8/8/8/8/7R b - - 0 1", NULL);
  ck_assert_int_eq(G->ops->parse(s, "Kb7", &m, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "king-in-check");
  ck_assert_int_eq(err.nsuggest, 1);
  ck_assert_str_eq(err.suggest[0], "Kb8");
  /* NULL err is allowed */
  ck_assert_int_eq(G->ops->parse(s, "Ka7", &m, NULL), REF_EILLEGAL);
  free(s);
}
END_TEST

/* ---- 5. results: mate, stalemate, CH-2 draws ---- */

static void assert_over(const struct ref_state *s, enum ref_end end, int winner)
{
  struct ref_status st;
  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.turn, -1);
  ck_assert_msg(st.end == end, "end %s, want %s", ref_end_name(st.end), ref_end_name(end));
  ck_assert_int_eq(st.winner, winner);
  ck_assert_int_eq(st.points, winner >= 0 ? 1 : 0);
  ck_assert(!st.draw_claimable);
}

static void assert_running(const struct ref_state *s)
{
  struct ref_status st;
  G->ops->status(s, &st);
  ck_assert_msg(st.phase == REF_PHASE_MOVE, "game over: %s", ref_end_name(st.end));
  ck_assert_int_eq(st.end, REF_END_NONE);
}

START_TEST(test_chess_checkmate)
{
  struct ref_state *s = state_new("startpos", NULL);
  struct ref_status st;
  struct ref_move m;
  struct ref_err err;
  char san[REF_NOTATION_MAX];

  /* Fool's mate: Black wins. */
  ts_play_words(G, s, "f3 e5 g4");
  ck_assert_int_eq(G->ops->parse(s, "Qh4", &m, &err), REF_OK);
  G->ops->format(s, &m, REF_NOTATION_CANONICAL, san, sizeof(san));
  ck_assert_str_eq(san, "Qh4#");
  ck_assert_int_eq(G->ops->apply(s, &m), REF_OK);
  assert_over(s, REF_END_CHECKMATE, 1);
  G->ops->status(s, &st);
  ck_assert(st.in_check);
  ck_assert_int_eq(st.move_number, 3);
  /* nothing more is accepted */
  ck_assert_int_eq(G->ops->parse(s, "Kf2", &m, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "game-over");
  ts_assert_worded(err.reason);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 1, &err), REF_EPHASE);
  free(s);

  /* Scholar's mate (rules-spec T-CH-1): White wins. */
  s = state_new("startpos", NULL);
  ts_play_words(G, s, "e4 e5 Qh5 Nc6 Bc4 Nf6");
  assert_running(s);
  ts_play_words(G, s, "Qxf7#");
  assert_over(s, REF_END_CHECKMATE, 0);
  free(s);

  /* A mated position given as FEN is over on arrival. */
  s = state_new("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3", NULL);
  assert_over(s, REF_END_CHECKMATE, 1);
  free(s);
}
END_TEST

START_TEST(test_chess_stalemate)
{
  struct ref_state *s = state_new("k7/8/8/2Q5/8/8/8/7K w - - 0 1", NULL);
  struct ref_status st;

  ts_play_words(G, s, "Qb6");
  assert_over(s, REF_END_STALEMATE, -1);
  G->ops->status(s, &st);
  ck_assert(!st.in_check);
  free(s);
  s = state_new("7k/8/6Q1/8/8/8/8/K7 b - - 0 1", NULL); /* stalemated on arrival */
  assert_over(s, REF_END_STALEMATE, -1);
  free(s);
}
END_TEST

START_TEST(test_chess_threefold)
{
  struct ref_state *s = state_new("startpos", NULL);
  struct ref_status st;
  struct ref_err err;

  ts_play_words(G, s, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1");
  G->ops->status(s, &st);
  ck_assert(!st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "draw-not-claimable");
  ts_assert_worded(err.reason);
  assert_running(s);
  ts_play_words(G, s, "Ng8"); /* the start position for the third time */
  G->ops->status(s, &st);
  ck_assert(st.draw_claimable);
  assert_running(s); /* a claim, not automatic */
  /* the side that just moved may claim as well as the side to move */
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, &err), REF_OK);
  assert_over(s, REF_END_THREEFOLD, -1);
  ck_assert(G->ops->ok(s));
  free(s);

  /* The claim lapses once the position changes: threefold is about the
   * current position. */
  s = state_new("startpos", NULL);
  ts_play_words(G, s, "Nf3 Nf6 Ng1 Ng8 Nf3 Nf6 Ng1 Ng8 Nc3");
  G->ops->status(s, &st);
  ck_assert(!st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  free(s);

  /* Castling rights are part of the position (FIDE 9.2.3): after the kings
   * walk out and back the start position never repeats. */
  s = state_new("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", NULL);
  ts_play_words(G, s, "Kf1 Kf8 Ke1 Ke8 Kf1 Kf8 Ke1 Ke8");
  G->ops->status(s, &st);
  ck_assert(!st.draw_claimable); /* position after ply 4 seen twice only */
  ts_play_words(G, s, "Kf1 Kf8 Ke1 Ke8");
  G->ops->status(s, &st);
  ck_assert(st.draw_claimable);
  free(s);
}
END_TEST

START_TEST(test_chess_fivefold)
{
  struct ref_state *s = state_new("startpos", NULL);
  int i;

  for(i = 0; i < 3; i++)
    ts_play_words(G, s, "Nf3 Nf6 Ng1 Ng8");
  ts_play_words(G, s, "Nf3 Nf6 Ng1");
  assert_running(s);
  ts_play_words(G, s, "Ng8"); /* the start position a fifth time: automatic (CH-2) */
  assert_over(s, REF_END_FIVEFOLD, -1);
  free(s);
}
END_TEST

START_TEST(test_chess_fifty_moves)
{
  struct ref_state *s = state_new("8/8/8/4k3/8/8/R7/4K3 w - - 99 80", NULL);
  struct ref_status st;
  struct ref_err err;

  G->ops->status(s, &st);
  ck_assert(!st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  ts_play_words(G, s, "Ra3");
  G->ops->status(s, &st);
  ck_assert(st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_CLAIM, 0, &err), REF_OK);
  assert_over(s, REF_END_FIFTY_MOVES, -1);
  free(s);

  /* A capture or pawn move resets the count. */
  s = state_new("8/8/8/4k3/8/p7/R7/4K3 w - - 99 80", NULL);
  ts_play_words(G, s, "Rxa3");
  G->ops->status(s, &st);
  ck_assert(!st.draw_claimable);
  free(s);
}
END_TEST

START_TEST(test_chess_seventy_five)
{
  struct ref_state *s = state_new("k7/8/1K6/8/8/8/8/7R w - - 149 100", NULL);

  ts_play_words(G, s, "Rh2");
  assert_over(s, REF_END_SEVENTY_FIVE, -1);
  free(s);
  /* mate on the 150th ply counts (FIDE 9.6.2) */
  s = state_new("k7/8/1K6/8/8/8/8/7R w - - 149 100", NULL);
  ts_play_words(G, s, "Rh8#");
  assert_over(s, REF_END_CHECKMATE, 0);
  free(s);
  /* a FEN already past the limit is over on arrival */
  s = state_new("k7/8/1K6/8/8/8/8/7R w - - 150 100", NULL);
  assert_over(s, REF_END_SEVENTY_FIVE, -1);
  free(s);
}
END_TEST

START_TEST(test_chess_dead_position)
{
  static const char *const dead[] = {
    "8/8/8/4k3/8/3p4/4K3/8 w - - 0 1",    /* Kxd3: K v K */
    "8/8/8/4k3/8/3p4/4K3/7B w - - 0 1",   /* K+B v K */
    "8/8/8/4k3/8/3p4/4K3/7N w - - 0 1",   /* K+N v K */
    "8/8/8/3bk3/8/3p4/4K3/7B w - - 0 1",  /* K+B v K+B, both light */
    "8/8/8/2b1k3/8/3p4/4K3/2B5 w - - 0 1", /* K+B v K+B, both dark */
  };
  static const char *const alive[] = {
    "8/8/8/2b1k3/8/3p4/4K3/7B w - - 0 1", /* bishops on opposite colours */
    "8/8/8/4k3/8/3p4/4K3/6NN w - - 0 1",  /* two knights */
    "8/8/8/3nk3/8/3p4/4K3/7N w - - 0 1",  /* K+N v K+N */
    "8/8/8/3nk3/8/3p4/4K3/7B w - - 0 1",  /* K+B v K+N */
  };
  size_t i;

  for(i = 0; i < sizeof(dead) / sizeof(dead[0]); i++) {
    struct ref_state *s = state_new(dead[i], NULL);
    assert_running(s);
    ts_play_words(G, s, "Kxd3");
    assert_over(s, REF_END_DEAD_POSITION, -1);
    free(s);
    /* with the FIDE block off the game goes on */
    s = state_new(dead[i], "fide_draws=off");
    ts_play_words(G, s, "Kxd3");
    assert_running(s);
    free(s);
  }
  for(i = 0; i < sizeof(alive) / sizeof(alive[0]); i++) {
    struct ref_state *s = state_new(alive[i], NULL);
    ts_play_words(G, s, "Kxd3");
    assert_running(s);
    free(s);
  }
}
END_TEST

START_TEST(test_chess_fide_draws_off)
{
  struct ref_state *s = state_new("startpos", "fide_draws=off");
  struct ref_status st;
  struct ref_err err;
  int i;

  for(i = 0; i < 6; i++)
    ts_play_words(G, s, "Nf3 Nf6 Ng1 Ng8");
  assert_running(s); /* no fivefold */
  G->ops->status(s, &st);
  ck_assert(!st.draw_claimable);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DRAW_CLAIM, 0, &err), REF_EILLEGAL);
  ck_assert_str_eq(err.reason, "draw-rules-off");
  ts_assert_worded(err.reason);
  free(s);
  s = state_new("k7/8/1K6/8/8/8/8/7R w - - 149 100", "fide_draws=off");
  ts_play_words(G, s, "Rh2 Kb8 Rh3 Ka8");
  assert_running(s); /* no 75-move rule */
  free(s);
  /* decode keeps the option of an initialised state */
  s = state_new("8/8/8/4k3/8/8/8/4K3 w - - 0 1", "fide_draws=off");
  assert_running(s);
  free(s);
  s = state_new("8/8/8/4k3/8/8/8/4K3 w - - 0 1", NULL);
  assert_over(s, REF_END_DEAD_POSITION, -1);
  free(s);
}
END_TEST

START_TEST(test_chess_actions)
{
  struct ref_state *s = state_new("startpos", NULL);
  struct ref_move m;
  struct ref_err err;

  ck_assert_int_eq(G->ops->act(s, 2, REF_ACT_RESIGN, 1, &err), REF_EINVAL);
  ts_assert_worded(err.reason);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_DOUBLE, 0, &err), REF_EPHASE);
  ck_assert_str_eq(err.reason, "ch-no-cube");
  ts_assert_worded(err.reason);
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_LAST, 0, &err), REF_EINVAL);
  ts_assert_worded(err.reason);
  /* a resignation by the side not to move */
  ts_play_words(G, s, "e4");
  ck_assert_int_eq(G->ops->act(s, 0, REF_ACT_RESIGN, 1, &err), REF_OK);
  assert_over(s, REF_END_RESIGNATION, 1);
  ck_assert(G->ops->ok(s));
  ck_assert_int_eq(G->ops->parse(s, "e5", &m, &err), REF_EPHASE);
  ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_AGREED, 0, &err), REF_EPHASE);
  free(s);

  s = state_new("startpos", NULL);
  ts_play_words(G, s, "e4 e5");
  /* moves already legal are refused once over, and none is listed (G-1) */
  {
    struct ref_movelist list = {0};
    ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
    ck_assert_uint_gt(list.n, 0);
    ck_assert_int_eq(G->ops->act(s, 1, REF_ACT_DRAW_AGREED, 0, &err), REF_OK);
    assert_over(s, REF_END_AGREEMENT, -1);
    ck_assert(G->ops->ok(s));
    ck_assert_int_eq(G->ops->apply(s, &list.v[0]), REF_EPHASE);
    ref_movelist_clear(&list);
    ck_assert_int_eq(G->ops->legal(s, &list), REF_OK);
    ck_assert_uint_eq(list.n, 0);
    ref_movelist_free(&list);
  }
  free(s);
}
END_TEST

START_TEST(test_chess_status_and_apply)
{
  struct ref_state *s = state_new("startpos", NULL);
  struct ref_status st;
  struct ref_move bad;
  char buf[128];

  G->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  ck_assert_int_eq(st.turn, 0);
  ck_assert_int_eq(st.move_number, 1);
  ck_assert_int_eq(st.cube, 0);
  ck_assert_int_eq(st.cube_owner, -1);
  ck_assert_int_eq(st.ndice, 0);
  ts_play_words(G, s, "e4 e5 Nf3");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.turn, 1);
  ck_assert_int_eq(st.move_number, 2);
  encode(s, buf, sizeof(buf));
  /* no e.p. square: no e.p. capture is possible (oracles.md §1.1) */
  ck_assert_str_eq(buf, "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2");
  ck_assert_int_eq(G->ops->encode(s, buf, 20), REF_EINVAL);
  /* a move that is not legal here, or not a move at all */
  memset(&bad, 0, sizeof(bad));
  bad.w[0] = ref_chess_move(12, 28, REF_CH_MV_NORMAL, 0); /* e2e4: no pawn there now */
  ck_assert_int_eq(G->ops->apply(s, &bad), REF_EILLEGAL);
  ck_assert_int_eq(G->ops->format(s, &bad, REF_NOTATION_CANONICAL, buf, sizeof(buf)), REF_EINVAL);
  bad.w[0] = ref_chess_move(57, 42, REF_CH_MV_NORMAL, 0); /* Nc6 */
  bad.w[3] = 1;
  ck_assert_int_eq(G->ops->apply(s, &bad), REF_EILLEGAL);
  ck_assert(G->ops->ok(s));
  free(s);
  /* e.p. square written when the capture is legal */
  s = state_new("startpos", NULL);
  ts_play_words(G, s, "e4 Nc6 e5 d5");
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "r1bqkbnr/ppp1pppp/2n5/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3");
  G->ops->status(s, &st);
  ck_assert(!st.in_check);
  ts_play_words(G, s, "exd6");
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "r1bqkbnr/ppp1pppp/2nP4/8/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3");
  G->ops->status(s, &st);
  ck_assert_int_eq(st.move_number, 3);
  free(s);
}
END_TEST

/* ---- options and FEN validation ---- */

START_TEST(test_chess_options)
{
  static const struct {
    const char *options, *reason;
  } bad[] = {
    {"colour=red", "ch-unknown-option"},
    {"fide_draws=maybe", "ch-bad-option"},
    {"fide_draws", "ch-bad-option"},
    {"fide_draws=on;fide_draws=off", "ch-bad-option"},
    {"FIDE_DRAWS=on", "ch-unknown-option"},
    {"fen=garbage", "fen-syntax"},
    {"fen=8/8/8/8/8/8/8/8 w - - 0 1", "fen-kings"},
    {"fide_draws=on;fen=rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "fen-side"},
  };
  struct ref_state *s = ref_state_new(G);
  struct ref_err err;
  char buf[128];
  size_t i;

  for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    ck_assert_int_eq(G->ops->init(s, bad[i].options, &err), REF_EINVAL);
    ck_assert_msg(!strcmp(err.reason, bad[i].reason), "%s: %s", bad[i].options, err.reason);
    ts_assert_worded(err.reason);
  }
  ck_assert_int_eq(G->ops->init(s, "", &err), REF_OK);
  ck_assert_int_eq(G->ops->init(s, " fide_draws = off ; ", &err), REF_OK);
  ck_assert_int_eq(G->ops->init(s, "fen=4k3/8/8/8/8/8/8/R3K3 w Q - 0 1;fide_draws=on", &err),
                   REF_OK);
  encode(s, buf, sizeof(buf));
  ck_assert_str_eq(buf, "4k3/8/8/8/8/8/8/R3K3 w Q - 0 1");
  ck_assert(G->ops->ok(s));
  free(s);
}
END_TEST

START_TEST(test_chess_fen_invalid)
{
  char *text = ts_read(DATA "fen_invalid.txt"), *cur = text, *line;
  struct ref_state *s = state_new("startpos", NULL);
  char before[128], after[128];
  int cases = 0;

  encode(s, before, sizeof(before));
  while((line = ts_next_line(&cur))) {
    char *sep, *fen;
    struct ref_err err;
    if(!*line || *line == '#')
      continue;
    sep = strstr(line, " | ");
    ck_assert_ptr_nonnull(sep);
    *sep = '\0';
    fen = sep + 3;
    unquote(fen);
    ck_assert_msg(G->ops->decode(s, fen, &err) == REF_EINVAL, "accepted: %s", fen);
    ck_assert_msg(!strcmp(err.reason, line), "%s: reason %s, want %s", fen, err.reason, line);
    ts_assert_worded(err.reason);
    /* a refused decode leaves the state alone */
    encode(s, after, sizeof(after));
    ck_assert_str_eq(after, before);
    cases++;
  }
  ck_assert_int_ge(cases, 30);
  free(s);
  free(text);
}
END_TEST

START_TEST(test_chess_fen_normalise)
{
  static const struct {
    const char *in, *out;
  } cases[] = {
    /* e.p. square without a legal capture is dropped */
    {"rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
     "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"},
    /* four fields (EPD style): counters 0 1 */
    {"4k3/8/8/8/8/8/8/4K2R w K -", "4k3/8/8/8/8/8/8/4K2R w K - 0 1"},
    /* castling letters in any order, extra white space */
    {"  r3k2r/8/8/8/8/8/8/R3K2R   w qkQK - 3 9 ", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 3 9"},
  };
  size_t i;

  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct ref_state *s = state_new(cases[i].in, NULL);
    char buf[128];
    encode(s, buf, sizeof(buf));
    ck_assert_str_eq(buf, cases[i].out);
    free(s);
  }
}
END_TEST

/* The position checker itself must catch each kind of damage. */
START_TEST(test_chess_pos_ok_catches)
{
  struct ref_chess_pos p, c;
  const char *reason;

  ck_assert_int_eq(ref_chess_fen_read(&p, roots[1], &reason), REF_OK);
  ck_assert(ref_chess_pos_ok(&p));
  c = p;
  c.board[27] = REF_CH_PIECE(REF_CH_BLACK, REF_CH_QUEEN); /* mailbox only */
  ck_assert(!ref_chess_pos_ok(&c));
  c = p;
  c.pieces[0][REF_CH_PAWN] ^= 1ull << 16; /* bitboard only */
  ck_assert(!ref_chess_pos_ok(&c));
  c = p;
  c.occ[1] = 0;
  ck_assert(!ref_chess_pos_ok(&c));
  c = p;
  c.key ^= 1;
  ck_assert(!ref_chess_pos_ok(&c));
  c = p;
  ref_chess_remove(&c, 7); /* h1 rook gone, K right kept */
  c.key = ref_chess_key_compute(&c);
  ck_assert(!ref_chess_pos_ok(&c));
  c = p;
  c.side ^= 1; /* Black to move is fine here, but the key says White */
  ck_assert(!ref_chess_pos_ok(&c));
  c.key = ref_chess_key_compute(&c);
  ck_assert(ref_chess_pos_ok(&c));
  c = p;
  c.ep = 40; /* a6: nothing could take there */
  c.key = ref_chess_key_compute(&c);
  ck_assert(!ref_chess_pos_ok(&c));
  c = p;
  ref_chess_put(&c, REF_CH_WHITE, REF_CH_ROOK, 52); /* e7: Black, not to move, in check */
  ck_assert(!ref_chess_pos_ok(&c));
  c = p;
  ref_chess_put(&c, REF_CH_WHITE, REF_CH_KING, 20); /* a second white king */
  ck_assert(!ref_chess_pos_ok(&c));
}
END_TEST

/* ---- render ---- */

static void assert_render(const struct ref_state *s, int seat, const char *file)
{
  char buf[2048], *want = ts_readf(DATA "%s", file), *line, *cur = buf;
  ck_assert_int_eq(G->ops->render(s, seat, buf, sizeof(buf)), REF_OK);
  ck_assert_str_eq(buf, want);
  while((line = ts_next_line(&cur))) {
    const char *c;
    ck_assert_int_le(strlen(line), 72);
    for(c = line; *c; c++)
      ck_assert(*c >= ' ' && *c < 127);
  }
  free(want);
}

START_TEST(test_chess_render)
{
  struct ref_state *s = state_new("startpos", NULL);
  char small[16];

  assert_render(s, 0, "render_start_white.txt");
  assert_render(s, 1, "render_start_black.txt");
  ts_play_words(G, s, "e4 e5 Nf3 Nc6 Bb5 a6 Ba4 Nf6 O-O Be7");
  assert_render(s, 1, "render_black.txt");
  ck_assert_int_eq(G->ops->render(s, 0, small, sizeof(small)), REF_EINVAL);
  free(s);
}
END_TEST

static Suite *chess_suite(void)
{
  Suite *s = suite_create("chess");
  TCase *tc;

  tc = tcase_create("desc");
  tcase_add_test(tc, test_chess_desc);
  suite_add_tcase(s, tc);

  tc = tcase_create("perft");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_chess_perft_epd);
  tcase_add_test(tc, test_chess_divide_stockfish);
  tcase_add_test(tc, test_chess_san_chessjs);
  suite_add_tcase(s, tc);

  tc = tcase_create("random");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_chess_random_games);
  tcase_add_test(tc, test_chess_parse_garbage);
  suite_add_tcase(s, tc);

  tc = tcase_create("parse");
  tcase_add_test(tc, test_chess_parse_cases);
  tcase_add_test(tc, test_chess_parse_suggestions);
  suite_add_tcase(s, tc);

  tc = tcase_create("results");
  tcase_add_test(tc, test_chess_checkmate);
  tcase_add_test(tc, test_chess_stalemate);
  tcase_add_test(tc, test_chess_threefold);
  tcase_add_test(tc, test_chess_fivefold);
  tcase_add_test(tc, test_chess_fifty_moves);
  tcase_add_test(tc, test_chess_seventy_five);
  tcase_add_test(tc, test_chess_dead_position);
  tcase_add_test(tc, test_chess_fide_draws_off);
  tcase_add_test(tc, test_chess_actions);
  tcase_add_test(tc, test_chess_status_and_apply);
  suite_add_tcase(s, tc);

  tc = tcase_create("text");
  tcase_add_test(tc, test_chess_options);
  tcase_add_test(tc, test_chess_fen_invalid);
  tcase_add_test(tc, test_chess_fen_normalise);
  tcase_add_test(tc, test_chess_pos_ok_catches);
  tcase_add_test(tc, test_chess_render);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  G = ref_game_find("chess");
  return unit_run(chess_suite());
}
