/*
 * test_cwda.c: unit tests of Chess with Different Armies in the rules core
 * (referee/rules/armies.c, cwda_board.c; docs/rules-spec.md §12).
 *
 * Data:
 *   tests/data/cwda/perft.epd        Fairy-Stockfish's perft (and legal moves
 *                                    in UCI) of the sixteen start positions and
 *                                    of positions rich in promotion, castling,
 *                                    check (also by the leapers) and e.p.
 *   tests/oracles/cwda-variants.ini  the definitions the oracle counted with
 *   (both made by tests/oracles/gen_cwda_perft.py)
 *
 * Environment: TABULA_PERFT_MAXDEPTH (default 4) and TABULA_PERFT_BUDGET
 * (nodes; by default 600000 in a build with assertions, the Debug+ASan one,
 * where those depths run in seconds, and every count in an optimised build
 * without them, Release or RelWithDebInfo).
 */
#include "armies_int.h"
#include "chess_int.h"
#include "chess_notation_int.h"
#include "rules.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef NDEBUG
#define PERFT_BUDGET 4000000000L
#else
#define PERFT_BUDGET 600000L
#endif

static int army(const char *key)
{
  int a = ref_army_find(key, strlen(key));
  ck_assert_int_ge(a, 0);
  return a;
}

static void setup(struct ref_cwda_tables *t, struct ref_cwda_pos *p, const char *w, const char *b,
                  const char *fen)
{
  const char *why = NULL;
  ck_assert(ref_cwda_tables_init(t, army(w), army(b)));
  if(fen)
    ck_assert_msg(ref_cwda_fen_read(t, p, fen, &why) == 0, "%s: %s", fen, why);
  else
    ref_cwda_start(t, p);
}

/* The legal moves of a position in UCI, space separated and sorted. */
static void legal_uci(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, char *out,
                      size_t cap)
{
  uint16_t m[REF_CWDA_MAX_MOVES];
  char list[REF_CWDA_MAX_MOVES][8];
  int n = ref_cwda_gen_legal(t, p, m);
  out[0] = 0;
  for(int i = 0; i < n; i++)
    ck_assert_int_eq(ref_cwda_uci(t, p, m[i], list[i], sizeof(list[i])), 0);
  qsort(list, (size_t)n, sizeof(list[0]), (int (*)(const void *, const void *))strcmp);
  for(int i = 0; i < n; i++) {
    strncat(out, list[i], cap - strlen(out) - 1);
    if(i + 1 < n)
      strncat(out, " ", cap - strlen(out) - 1);
  }
}

/* ---- the table (DA-1, DA-4) ---- */

START_TEST(test_cwda_table)
{
  char seen[128] = {0};
  seen['P'] = seen['K'] = 1;
  for(int a = 0; a < REF_ARMY_COUNT; a++)
    for(int s = 0; s < REF_ARMY_SLOTS; s++) {
      const struct ref_army_piece *pc = &ref_armies[a].piece[s];
      struct ref_betza_moves m;
      ck_assert_msg(isupper((unsigned char)pc->letter), "%s", pc->name);
      ck_assert_msg(!seen[(int)pc->letter], "letter %c twice (DA-4)", pc->letter);
      seen[(int)pc->letter] = 1;
      ck_assert_int_eq(ref_army_letter_kind(pc->letter), REF_AK_OF(a, s));
      ck_assert_int_eq(ref_army_letter_kind((char)tolower(pc->letter)), REF_AK_OF(a, s));
      /* Every piece is symmetric left to right: cwda_board.c finds
       * attackers with the other colour's table on that ground. */
      for(int c = 0; c < 2; c++) {
        ck_assert_msg(ref_betza_read(pc->betza, c, &m), "%s does not read", pc->betza);
        for(int sq = 0; sq < 64; sq++) {
          uint64_t mirror = 0, l = m.leap[sq];
          while(l) {
            int t = __builtin_ctzll(l);
            l &= l - 1;
            mirror |= 1ull << (t / 8 * 8 + 7 - t % 8);
          }
          ck_assert_uint_eq(mirror, m.leap[sq / 8 * 8 + 7 - sq % 8]);
        }
        for(int i = 0; i < m.nrays; i++) {
          int j;
          for(j = 0; j < m.nrays; j++)
            if(m.ray[j].dr == m.ray[i].dr && m.ray[j].df == -m.ray[i].df &&
               m.ray[j].max == m.ray[i].max)
              break;
          ck_assert_msg(j < m.nrays, "%s: a ray without its mirror", pc->name);
        }
      }
    }
  ck_assert_int_eq(ref_army_find("nutty", 5), REF_ARMY_NUTTY);
  ck_assert_int_eq(ref_army_find("Remarkable Rookies", 18), REF_ARMY_ROOKIES);
  ck_assert_int_eq(ref_army_find("c", 1), REF_ARMY_CLOBBERERS);
  ck_assert_int_eq(ref_army_find("amazons", 7), -1);
}
END_TEST

/* The oracle's definitions hold the table's very Betza strings and letters. */
START_TEST(test_cwda_oracle_definitions_agree)
{
  char *text, *line, *save = NULL;
  int checked = 0;
  text = ts_readf("%s/tests/oracles/cwda-variants.ini", TABULA_SOURCE_DIR);
  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char letter, betza[32];
    int n, k;
    if(sscanf(line, "customPiece%d = %c:%31s", &n, &letter, betza) != 3)
      continue;
    k = ref_army_letter_kind(letter);
    ck_assert_int_ge(k, 2);
    ck_assert_str_eq(betza, ref_armies[REF_AK_ARMY(k)].piece[REF_AK_SLOT(k)].betza);
    checked++;
  }
  ck_assert_int_ge(checked, 12 * 8);
  free(text);
}
END_TEST

/* ---- Betza's notation ---- */

static int leaps(const char *betza, int color, int sq)
{
  struct ref_betza_moves m;
  ck_assert(ref_betza_read(betza, color, &m));
  return ref_chess_popcount(m.leap[sq]);
}

START_TEST(test_cwda_betza)
{
  struct ref_betza_moves m;
  int e4 = 28, e1 = 4;
  ck_assert_int_eq(leaps("N", 0, e4), 8);
  ck_assert_int_eq(leaps("WA", 0, e4), 8);
  ck_assert_int_eq(leaps("FAD", 0, e4), 12);
  ck_assert_int_eq(leaps("HFD", 0, e4), 4 + 4 + 4); /* H: e7, e1, b4, h4 */
  ck_assert_int_eq(leaps("fbNF", 0, e4), 4 + 4);
  ck_assert_int_eq(leaps("fhNsWbK", 0, e4), 4 + 2 + 3);
  ck_assert_int_eq(leaps("fhNsWbK", 0, e1), 4 + 2); /* nothing behind the first rank */
  ck_assert_int_eq(leaps("fhNsWbK", 1, e1), 3 + 2); /* Black's forward is down: only sideways */
  ck_assert(ref_betza_read("R4", 0, &m));
  ck_assert_int_eq(m.nrays, 4);
  ck_assert_int_eq(m.ray[0].max, 4);
  ck_assert(ref_betza_read("fsRbK", 0, &m));
  ck_assert_int_eq(m.nrays, 3); /* forward, right, left */
  ck_assert_int_eq(ref_chess_popcount(m.leap[e4]), 3);
  ck_assert(ref_betza_read("fsRbK", 1, &m));
  for(int i = 0; i < m.nrays; i++)
    ck_assert_int_le(m.ray[i].dr, 0); /* Black charges down */
  ck_assert(!ref_betza_read("X", 0, &m));
  ck_assert(!ref_betza_read("Nf", 0, &m));
  ck_assert(!ref_betza_read("", 0, &m));
}
END_TEST

/* ---- rules: DA-2 setup, DA-3 castling, DA-4 FEN, DA-5 promotion ---- */

START_TEST(test_cwda_start_positions)
{
  struct ref_cwda_tables t;
  struct ref_cwda_pos p;
  char fen[128];
  setup(&t, &p, "nutty", "clobberers", NULL);
  ck_assert_int_eq(ref_cwda_fen_write(&p, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "dwfakfwd/pppppppp/8/8/8/8/PPPPPPPP/GIJLKJIG w KQkq - 0 1");
  setup(&t, &p, "rookies", "fide", NULL);
  ck_assert_int_eq(ref_cwda_fen_write(&p, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/SYHCKHYS w KQkq - 0 1");
}
END_TEST

START_TEST(test_cwda_castling)
{
  struct ref_cwda_tables t;
  struct ref_cwda_pos p;
  char moves[2048], fen[128];
  uint16_t m[REF_CWDA_MAX_MOVES];
  int n;

  /* DA-3: the Clobberers castle long to b1, the Bede to c1. */
  setup(&t, &p, "clobberers", "fide", "4k3/8/8/8/8/8/8/D3K2D w KQ - 0 1");
  legal_uci(&t, &p, moves, sizeof(moves));
  ck_assert_ptr_nonnull(strstr(moves, "e1b1"));
  ck_assert_ptr_nonnull(strstr(moves, "e1g1"));
  ck_assert_ptr_null(strstr(moves, "e1c1"));
  n = ref_cwda_gen_legal(&t, &p, m);
  for(int i = 0; i < n; i++)
    if(ref_cwda_move_kind(m[i]) == REF_CWDA_MV_CASTLE && ref_cwda_move_to(m[i]) == 1) {
      struct ref_cwda_pos q = p;
      ref_cwda_make(&t, &q, m[i]);
      ck_assert_int_eq(ref_cwda_fen_write(&q, fen, sizeof(fen)), 0);
      ck_assert_str_eq(fen, "4k3/8/8/8/8/8/8/1KD4D b - - 1 1");
    }
  /* Through an attacked square: a Rook on d8 bars b1 (the king crosses d1). */
  setup(&t, &p, "clobberers", "fide", "3rk3/8/8/8/8/8/8/D3K2D w Q - 0 1");
  legal_uci(&t, &p, moves, sizeof(moves));
  ck_assert_ptr_null(strstr(moves, "e1b1"));
  /* Black's other armies castle as in chess, with their corner piece. */
  setup(&t, &p, "fide", "nutty", "g3k2g/8/8/8/8/8/8/4K3 b kq - 0 1");
  legal_uci(&t, &p, moves, sizeof(moves));
  ck_assert_ptr_nonnull(strstr(moves, "e8c8"));
  ck_assert_ptr_nonnull(strstr(moves, "e8g8"));
}
END_TEST

START_TEST(test_cwda_promotion_own_army)
{
  struct ref_cwda_tables t;
  struct ref_cwda_pos p;
  char moves[2048];
  /* DA-5: into the pawn's own army only. */
  setup(&t, &p, "rookies", "nutty", "4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
  legal_uci(&t, &p, moves, sizeof(moves));
  ck_assert_ptr_nonnull(strstr(moves, "a7a8c a7a8h a7a8s a7a8y"));
  ck_assert_ptr_null(strstr(moves, "a7a8q"));
  ck_assert_ptr_null(strstr(moves, "a7a8l"));
}
END_TEST

START_TEST(test_cwda_fen_refusals)
{
  struct ref_cwda_tables t;
  struct ref_cwda_pos p;
  const char *why = NULL;
  ck_assert(ref_cwda_tables_init(&t, REF_ARMY_FIDE, REF_ARMY_NUTTY));
  /* A Colonel for White, whose army is the FIDEs (DA-4). */
  ck_assert_int_ne(ref_cwda_fen_read(&t, &p, "4k3/8/8/8/8/8/8/3LK3 w - - 0 1", &why), 0);
  ck_assert_str_eq(why, "da-fen-army");
  /* A castling right without the army's corner piece. */
  ck_assert_int_ne(ref_cwda_fen_read(&t, &p, "4k3/8/8/8/8/8/8/N3K3 w Q - 0 1", &why), 0);
  ck_assert_str_eq(why, "fen-castling");
  /* The side not to move in check by a Fibnif. */
  ck_assert_int_ne(ref_cwda_fen_read(&t, &p, "4k3/8/8/8/8/8/3i4/4K3 b - - 0 1", &why), 0);
  ck_assert_str_eq(why, "fen-check");
  ck_assert_int_ne(ref_cwda_fen_read(&t, &p, "4k3/8/8/8/8/8/8/4K3", &why), 0);
  ck_assert_str_eq(why, "fen-syntax");
  {
    /* Every key the board returns is worded: its own (da-) and chess's. */
    static const char *const files[] = {"cwda_board.c"};
    static const char *const shared[] = {"fen-board",    "fen-pawn-rank", "fen-syntax",
                                         "fen-side",     "fen-counters",  "fen-kings",
                                         "fen-castling", "fen-en-passant", "fen-check"};
    ts_assert_reason_keys(files, 1, "da-", 1, shared, sizeof(shared) / sizeof(shared[0]));
  }
}
END_TEST

/* Bad input changes nothing it should not and is refused with a worded
 * reason: every one-character change of valid FENs either reads (and then
 * writes back a FEN that reads to the same position) or is refused. */
START_TEST(test_cwda_fen_mutations)
{
  static const char *const fens[] = {
    "dwfakfwd/pppppppp/8/8/8/8/PPPPPPPP/GIJLKJIG w KQkq - 0 1",
    "s3k2s/pP4p1/8/3pP3/8/8/6p1/G3K2G w KQkq d6 0 12",
  };
  static const char alphabet[] = "KQkqPpDWFAGIJLSYHCdwfagijlsyhcRrNnBb12345678/ -wbx0e3";
  unsigned seed = 7;
  int refused = 0, read = 0;
  for(size_t f = 0; f < sizeof(fens) / sizeof(fens[0]); f++)
    for(int trial = 0; trial < 3000; trial++) {
      char fen[96], out[128], again[128];
      struct ref_cwda_tables t;
      struct ref_cwda_pos p, q;
      const char *why = NULL;
      snprintf(fen, sizeof(fen), "%s", fens[f]);
      seed = seed * 1103515245u + 12345u;
      fen[(seed >> 8) % strlen(fen)] = alphabet[(seed >> 20) % (sizeof(alphabet) - 1)];
      ck_assert(ref_cwda_tables_init(&t, REF_ARMY_NUTTY,
                                     f ? REF_ARMY_ROOKIES : REF_ARMY_CLOBBERERS));
      if(ref_cwda_fen_read(&t, &p, fen, &why) != 0) {
        ck_assert_ptr_nonnull(why);
        ts_assert_worded(why);
        refused++;
        continue;
      }
      read++;
      ck_assert_int_eq(ref_cwda_fen_write(&p, out, sizeof(out)), 0);
      ck_assert_msg(ref_cwda_fen_read(&t, &q, out, &why) == 0, "%s -> %s: %s", fen, out, why);
      ck_assert_int_eq(ref_cwda_fen_write(&q, again, sizeof(again)), 0);
      ck_assert_str_eq(out, again);
    }
  ck_assert_int_gt(refused, 1000);
  ck_assert_int_gt(read, 100);
}
END_TEST

/* The SAN of the move `uci` in the position. */
static void san_of(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, const char *uci,
                   char *out, size_t cap)
{
  uint16_t m[REF_CWDA_MAX_MOVES];
  int n = ref_cwda_gen_legal(t, p, m);
  for(int i = 0; i < n; i++) {
    char u[8];
    ck_assert_int_eq(ref_cwda_uci(t, p, m[i], u, sizeof(u)), 0);
    if(!strcmp(u, uci)) {
      ck_assert_int_eq(ref_cwda_san(t, p, m[i], out, cap), 0);
      return;
    }
  }
  ck_abort_msg("%s is not legal", uci);
}

START_TEST(test_cwda_san)
{
  struct ref_cwda_tables t;
  struct ref_cwda_pos p;
  char san[16];
  /* DA-3: the Clobberers' long castling is O-O-O like any. */
  setup(&t, &p, "clobberers", "fide", "4k3/8/8/8/8/8/8/D3K2D w KQ - 0 1");
  san_of(&t, &p, "e1b1", san, sizeof(san));
  ck_assert_str_eq(san, "O-O-O");
  san_of(&t, &p, "e1g1", san, sizeof(san));
  ck_assert_str_eq(san, "O-O");
  /* DA-5 with DA-4's letters, checks marked: the Chancellor and the Short
   * Rook (four squares) reach e8, the Woody Rook and the Half-Duck not. */
  setup(&t, &p, "rookies", "nutty", "4k3/P7/8/8/8/8/8/4K3 w - - 0 1");
  san_of(&t, &p, "a7a8c", san, sizeof(san));
  ck_assert_str_eq(san, "a8=C+");
  san_of(&t, &p, "a7a8s", san, sizeof(san));
  ck_assert_str_eq(san, "a8=S+");
  san_of(&t, &p, "a7a8y", san, sizeof(san));
  ck_assert_str_eq(san, "a8=Y");
  san_of(&t, &p, "a7a8h", san, sizeof(san));
  ck_assert_str_eq(san, "a8=H");
  /* Two Waffles reach c2: the rank tells them apart; two reach d3 ... */
  setup(&t, &p, "clobberers", "fide", "4k3/8/8/8/8/2W5/8/2W1K3 w - - 0 1");
  san_of(&t, &p, "c1c2", san, sizeof(san));
  ck_assert_str_eq(san, "W1c2");
  san_of(&t, &p, "c3c2", san, sizeof(san));
  ck_assert_str_eq(san, "W3c2");
  san_of(&t, &p, "c3a5", san, sizeof(san));
  ck_assert_str_eq(san, "Wa5");
  /* A Colonel's mate: the king on h8 boxed in by its own pawns. */
  setup(&t, &p, "nutty", "fide", "7k/6pp/8/8/8/8/8/3LK3 w - - 0 1");
  san_of(&t, &p, "d1d8", san, sizeof(san));
  ck_assert_str_eq(san, "Ld8#");
}
END_TEST

/* Over the oracle's positions: no two legal moves share a SAN, and + / #
 * mark exactly the checks and mates. */
START_TEST(test_cwda_san_unique)
{
  char *text, *line, *save = NULL;
  int moves = 0;
  text = ts_readf("%s/cwda/perft.epd", TABULA_TEST_DATA);
  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char fen[128], wa[16], ba[16], sans[REF_CWDA_MAX_MOVES][16], *f;
    struct ref_cwda_tables t;
    struct ref_cwda_pos p;
    uint16_t m[REF_CWDA_MAX_MOVES], after[REF_CWDA_MAX_MOVES];
    int n;
    if(*line == '#')
      continue;
    snprintf(fen, sizeof(fen), "%.*s", (int)(strchr(line, ';') - line - 1), line);
    f = strstr(line, ";armies ");
    ck_assert_int_eq(sscanf(f, ";armies %15[a-z]/%15[a-z]", wa, ba), 2);
    setup(&t, &p, wa, ba, fen);
    n = ref_cwda_gen_legal(&t, &p, m);
    for(int i = 0; i < n; i++) {
      struct ref_cwda_pos q = p;
      size_t len;
      bool check, mate;
      ck_assert_int_eq(ref_cwda_san(&t, &p, m[i], sans[i], sizeof(sans[i])), 0);
      for(int j = 0; j < i; j++)
        ck_assert_msg(strcmp(sans[i], sans[j]), "%s: %s twice", fen, sans[i]);
      ref_cwda_make(&t, &q, m[i]);
      check = ref_cwda_in_check(&t, &q);
      mate = check && ref_cwda_gen_legal(&t, &q, after) == 0;
      len = strlen(sans[i]);
      ck_assert_int_eq(sans[i][len - 1] == '+', check && !mate);
      ck_assert_int_eq(sans[i][len - 1] == '#', mate);
      moves++;
    }
  }
  ck_assert_int_gt(moves, 3000);
  free(text);
}
END_TEST

/* ---- reading moves: DA-9 through chess_notation.c ---- */

struct reader_ctx {
  const struct ref_cwda_tables *t;
  const struct ref_cwda_pos *p;
};

static void rd_describe(const void *ctx, uint32_t m, struct ref_cn_move *out)
{
  const struct reader_ctx *c = ctx;
  ref_cwda_describe(c->t, c->p, (uint16_t)m, out);
}

static void rd_format(const void *ctx, uint32_t m, char *buf, size_t cap)
{
  const struct reader_ctx *c = ctx;
  ref_cwda_san(c->t, c->p, (uint16_t)m, buf, cap);
}

/* Reads text for the side to move of (t, p): the UCI of the move read,
 * or "!reason". */
static void read_as(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p,
                    const char *text, char *out, size_t cap)
{
  struct ref_cn_dialect d = {8, 8, false, false, false, NULL, ref_army_cn_own(t->army[p->side])};
  struct ref_cn_rules r = {&d, rd_describe, rd_format, NULL};
  struct reader_ctx c = {t, p};
  uint16_t m[REF_CWDA_MAX_MOVES];
  uint32_t w[REF_CWDA_MAX_MOVES];
  struct ref_move mv;
  struct ref_err err;
  int n = ref_cwda_gen_legal(t, p, m), rc;

  for(int i = 0; i < n; i++)
    w[i] = m[i];
  memset(&err, 0, sizeof(err));
  rc = ref_cn_parse(&r, &c, false, w, n, text, &mv, &err);
  if(rc)
    snprintf(out, cap, "!%s", err.reason);
  else
    ck_assert_int_eq(ref_cwda_uci(t, p, (uint16_t)mv.w[0], out, cap), 0);
}

#define READS(t, p, text, want)                                                                    \
  do {                                                                                             \
    char got_[64];                                                                                 \
    read_as(t, p, text, got_, sizeof(got_));                                                       \
    ck_assert_msg(!strcmp(got_, want), "%s: read %s, want %s", text, got_, want);                  \
  } while(0)

/* DA-9: the army letters are read for the mover's army; a capital that is
 * also a file (A C D F G H) is the piece of that army, a file otherwise. */
START_TEST(test_cwda_reading_letters)
{
  struct ref_cwda_tables t;
  struct ref_cwda_pos p;

  ck_assert_int_eq(ref_cn_letter(REF_CN_KNIGHT), 'N');
  for(int k = 0; k < REF_AK_COUNT; k++)
    ck_assert_int_eq(ref_cn_letter(ref_army_cn_type(k)), ref_army_kind_letter(k));
  setup(&t, &p, "clobberers", "nutty", NULL);
  READS(&t, &p, "Wd3", "b1d3");    /* the Waffle's alfil leap */
  READS(&t, &p, "wd3", "b1d3");    /* w is no file: the piece */
  READS(&t, &p, "We3", "g1e3");
  READS(&t, &p, "Da3", "a1a3");    /* D is a file and the Bede: the Bede */
  READS(&t, &p, "DA3", "a1a3");    /* no lower case: both readings, one legal */
  READS(&t, &p, "a3", "a2a3");     /* the pawn */
  READS(&t, &p, "Fd3", "f1d3");    /* the FAD */
  READS(&t, &p, "Bb3", "b2b3");    /* B is no piece of this army: the b-file */
  READS(&t, &p, "Nc3", "!da-not-in-army");  /* another army's piece */
  READS(&t, &p, "\u2658c3", "!da-not-in-army"); /* a figurine too (G-2) */
  READS(&t, &p, "Jd3", "!da-not-in-army");
  READS(&t, &p, "b1d3", "b1d3");
  READS(&t, &p, "Wb1-d3", "b1d3");
  /* Black's Nutty Knights G I J L; G is also a file, H is a file only. */
  setup(&t, &p, "clobberers", "nutty", "gijlkjig/pppppppp/8/8/8/8/PPPPPPPP/DWFAKFWD b KQkq - 0 1");
  READS(&t, &p, "Ic6", "b8c6");    /* the Fibnif's narrow knight leap */
  READS(&t, &p, "ic6", "b8c6");    /* i is no file */
  READS(&t, &p, "Jd6", "c8d6");    /* the Charging Knight forwards (down) */
  READS(&t, &p, "jg6", "f8g6");
  READS(&t, &p, "Gg6", "!no-such-move"); /* the Charging Rook, boxed in; not the pawn */
  READS(&t, &p, "g6", "g7g6");
  READS(&t, &p, "Hh6", "h7h6");    /* the Half-Duck is the Rookies': the h-file */
  READS(&t, &p, "Wd6", "!da-not-in-army"); /* White's army's letter */
  /* DA-5: promotion named by the own army's letters, in every form. */
  setup(&t, &p, "rookies", "fide", "7k/4P3/8/8/8/8/8/4K3 w - - 0 1");
  READS(&t, &p, "e8=C", "e7e8c");
  READS(&t, &p, "e8C", "e7e8c");
  READS(&t, &p, "e8(S)", "e7e8s");
  READS(&t, &p, "e7e8y", "e7e8y");
  READS(&t, &p, "e8/H", "e7e8h");
  READS(&t, &p, "e8=Q", "!da-not-in-army");
  READS(&t, &p, "e8", "!da-promotion-piece-missing");
  {
    struct ref_cn_dialect d = {8, 8, false, false, false, NULL, ref_army_cn_own(t.army[0])};
    struct ref_cn_rules r = {&d, rd_describe, rd_format, NULL};
    struct reader_ctx c = {&t, &p};
    uint16_t m[REF_CWDA_MAX_MOVES];
    uint32_t w[REF_CWDA_MAX_MOVES];
    struct ref_move mv;
    struct ref_err err;
    int n = ref_cwda_gen_legal(&t, &p, m);
    for(int i = 0; i < n; i++)
      w[i] = m[i];
    ck_assert_int_eq(ref_cn_parse(&r, &c, false, w, n, "e8", &mv, &err), REF_EILLEGAL);
    ck_assert_str_eq(err.detail, "e8=S"); /* the example is of the own army */
    ck_assert_int_eq(ref_cn_parse(&r, &c, false, w, n, "Q8", &mv, &err), REF_EPARSE);
  }
  /* DA-3: the Clobberers' long castling, by name and by the king's squares. */
  setup(&t, &p, "clobberers", "fide", "r3k2r/8/8/8/8/8/8/D3K2D w KQkq - 0 1");
  READS(&t, &p, "O-O-O", "e1b1");
  READS(&t, &p, "0-0-0", "e1b1");
  READS(&t, &p, "e1b1", "e1b1");
  READS(&t, &p, "Kb1", "e1b1");
  READS(&t, &p, "O-O", "e1g1");
  READS(&t, &p, "Dc1", "a1c1");    /* the Bede's dabbaba leap */
}
END_TEST

/* ---- the game system "cwda" (rules.h) ---- */

static struct ref_state *game(const char *options, int want)
{
  const struct ref_game_desc *d = ref_game_find("cwda");
  struct ref_state *s;
  struct ref_err err;
  ck_assert_ptr_nonnull(d);
  s = ref_state_new(d);
  ck_assert_ptr_nonnull(s);
  memset(&err, 0, sizeof(err));
  ck_assert_msg(d->ops->init(s, options, &err) == want, "%s: %s", options, err.reason);
  return s;
}

/* Plays text; REF_OK or the refusal's code, the reason in why. */
static int play(struct ref_state *s, const char *text, char *why, size_t cap)
{
  const struct ref_game_desc *d = ref_game_find("cwda");
  struct ref_move m;
  struct ref_err err;
  int rc;
  memset(&err, 0, sizeof(err));
  rc = d->ops->parse(s, text, &m, &err);
  snprintf(why, cap, "%s", rc ? err.reason : "");
  if(!rc)
    ck_assert_int_eq(d->ops->apply(s, &m), 0);
  if(!rc)
    ck_assert(d->ops->ok(s));
  return rc;
}

#define PLAYS(s, text)                                                                             \
  do {                                                                                             \
    char why_[48];                                                                                 \
    ck_assert_msg(play(s, text, why_, sizeof(why_)) == 0, "%s: %s", text, why_);                   \
  } while(0)
#define REFUSED(s, text, reason)                                                                   \
  do {                                                                                             \
    char why_[48];                                                                                 \
    ck_assert_msg(play(s, text, why_, sizeof(why_)) != 0, "%s played", text);                      \
    ck_assert_str_eq(why_, reason);                                                                \
  } while(0)

/* DA-8: the challenger names the armies; a wrong name or key is refused. */
START_TEST(test_cwda_game_options)
{
  const struct ref_game_desc *d = ref_game_find("cwda");
  struct ref_state *s = game("white=nutty;black=clobberers", 0);
  char fen[128], board[2048];
  struct ref_err err;

  ck_assert_str_eq(d->title, "Chess with Different Armies");
  ck_assert_int_eq(d->ops->encode(s, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "dwfakfwd/pppppppp/8/8/8/8/PPPPPPPP/GIJLKJIG w KQkq - 0 1");
  ck_assert_int_eq(d->ops->render(s, 0, board, sizeof(board)), 0);
  ck_assert_ptr_nonnull(strstr(board, " 1  G  I  J  L  K  J  I  G  1\n"));
  ck_assert_ptr_nonnull(strstr(board, "White, Nutty Knights:\n"
                                      "  G Charging Rook, I Fibnif, J Charging Knight, L Colonel\n"
                                      "Black, Colorbound Clobberers:\n"
                                      "  d Bede, w Waffle, f FAD, a Cardinal\n"));
  free(s);
  s = game("white=R;black=Fabulous FIDEs;fide_draws=off", 0); /* initial and name */
  ck_assert_int_eq(d->ops->encode(s, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/SYHCKHYS w KQkq - 0 1");
  free(s);
  s = game(NULL, 0); /* fide against fide: chess */
  ck_assert_int_eq(d->ops->encode(s, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  /* refusals leave the state as it was */
  memset(&err, 0, sizeof(err));
  ck_assert_int_eq(d->ops->init(s, "white=martians", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "da-unknown-army");
  ck_assert_str_eq(err.detail, "martians");
  ck_assert_int_eq(d->ops->init(s, "white=nutty;white=rookies", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "da-bad-option");
  ck_assert_int_eq(d->ops->init(s, "armies=nutty", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "da-unknown-option");
  /* POS-1: a FEN's letters must be the named armies' (DA-4) */
  ck_assert_int_eq(d->ops->init(s, "white=rookies;fen=4k3/8/8/8/8/8/8/D3K3 w - - 0 1", &err),
                   REF_EINVAL);
  ck_assert_str_eq(err.reason, "da-fen-army");
  ck_assert_int_eq(d->ops->encode(s, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
  /* the FEN names the armies where no option does; '_' for ' ' (a mail's word) */
  ck_assert_int_eq(d->ops->init(s, "fen=4k1j1/8/8/8/8/8/8/D3K3_w_-_-_0_1", &err), 0);
  ck_assert_int_eq(d->ops->render(s, 0, board, sizeof(board)), 0);
  ck_assert_ptr_nonnull(strstr(board, "White, Colorbound Clobberers:"));
  ck_assert_ptr_nonnull(strstr(board, "Black, Nutty Knights:"));
  free(s);
}
END_TEST

/* Decoding is as strict as chess's (POS-1): the fields, the board's
 * digits, the counters, e.p. */
START_TEST(test_cwda_game_decode_strict)
{
  const struct ref_game_desc *d = ref_game_find("cwda");
  struct ref_state *s = game(NULL, 0);
  struct ref_err err;
  char fen[128];
  static const char *const bad[][2] = {
    {"4k3/8/8/8/8/8/8/4K3 w - - 0", "fen-syntax"},          /* five fields */
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 1 extra", "fen-syntax"},  /* seven */
    {"4k3/8/8/8/8/8/8/44K3 w - - 0 1", "fen-board"},        /* "44" */
    {"4k3/8/8/8/8/8/8/4K3 w - - x 1", "fen-counters"},
    {"4k3/8/8/8/8/8/8/4K3 w - - 0 0", "fen-counters"},
    {"4k3/8/8/8/4Pp2/8/8/4K3 b - e3 1 1", "fen-en-passant"}, /* clock not 0 */
    {"4k3/8/8/8/8/8/8/4K3 x - - 0 1", "fen-side"},
    {"4k3/8/8/8/8/8/8/4KK2 w - - 0 1", "fen-kings"},
    {"4k3/8/8/8/8/8/8/D3K2G w - - 0 1", "da-fen-army"},      /* two armies on a side */
    {"4k3/8/8/8/8/8/8/D3K2D w Q - 0 1", "fen-castling"},     /* Q with a Bede: the corner? */
    {"4k3/8/8/8/8/8/8/YYYYKYYY w - - 0 1", "fen-material"},   /* 7 Woody Rooks, 8 pawns missing? */
  };
  for(size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    memset(&err, 0, sizeof(err));
    if(!strcmp(bad[i][1], "fen-castling") || !strcmp(bad[i][1], "fen-material"))
      continue; /* both legal: kept below as positions that do read */
    ck_assert_msg(d->ops->decode(s, bad[i][0], &err) == REF_EINVAL, "%s read", bad[i][0]);
    ck_assert_msg(!strcmp(err.reason, bad[i][1]), "%s: %s", bad[i][0], err.reason);
  }
  /* an e.p. square with no legal capture is dropped, as chess writes it */
  ck_assert_int_eq(d->ops->decode(s, "4k3/8/8/8/4P3/8/8/4K3 b - e3 0 1", &err), 0);
  ck_assert_int_eq(d->ops->encode(s, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1");
  ck_assert_int_eq(d->ops->decode(s, "4k3/8/8/8/4Pp2/8/8/4K3 b - e3 0 1", &err), 0);
  ck_assert_int_eq(d->ops->encode(s, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "4k3/8/8/8/4Pp2/8/8/4K3 b - e3 0 1");
  /* castling with the Bede in the corner (DA-3), four fields read as 0 1 */
  ck_assert_int_eq(d->ops->decode(s, "4k3/8/8/8/8/8/8/D3K2D w KQ -", &err), 0);
  ck_assert_int_eq(d->ops->encode(s, fen, sizeof(fen)), 0);
  ck_assert_str_eq(fen, "4k3/8/8/8/8/8/8/D3K2D w KQ - 0 1");
  /* nine Woody Rooks and eight pawns: one promoted too many */
  ck_assert_int_eq(
    d->ops->decode(s, "4k3/8/8/8/8/8/PPPPPPPP/YYYYKYYY w - - 0 1", &err), REF_EINVAL);
  ck_assert_str_eq(err.reason, "fen-material");
  free(s);
}
END_TEST

/* Check, mate, the reasons of a refused move (DA-9, DA-3, CH-1). */
START_TEST(test_cwda_game_play)
{
  const struct ref_game_desc *d = ref_game_find("cwda");
  struct ref_state *s = game("white=clobberers;black=fide", 0);
  struct ref_status st;

  PLAYS(s, "f3");
  PLAYS(s, "e5");
  PLAYS(s, "g4");
  REFUSED(s, "Dd4", "no-such-move");   /* Black plays the FIDEs: D is the d-file (DA-9) */
  REFUSED(s, "Wd4", "da-not-in-army"); /* W is no file: the Waffle, not Black's */
  REFUSED(s, "Qh5", "no-such-move");
  PLAYS(s, "Qh4+"); /* no fool's mate: the Cardinal's knight leap d1-f2 parries */
  d->ops->status(s, &st);
  ck_assert(st.in_check);
  ck_assert_int_eq(st.phase, REF_PHASE_MOVE);
  REFUSED(s, "Wd3", "king-in-check");
  PLAYS(s, "Af2");
  free(s);
  /* the Colonel's mate: rook forwards, the king boxed in by its pawns */
  s = game("white=nutty;fen=7k/6pp/8/8/8/8/8/3LK3 w - - 0 1", 0);
  PLAYS(s, "Ld8#");
  d->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_CHECKMATE);
  ck_assert_int_eq(st.winner, 0);
  REFUSED(s, "h6", "game-over");
  free(s);

  /* the Clobberers' castling refused with its reason, then made */
  s = game("white=clobberers;black=fide;fen=r3k2r/8/8/8/8/8/5q2/D3K2D w KQkq - 0 1", 0);
  REFUSED(s, "O-O", "castle-in-check");
  free(s);
  s = game("white=clobberers;black=fide;fen=r3k2r/8/8/8/8/8/8/D2qK2D w KQkq - 0 1", 0);
  REFUSED(s, "O-O-O", "castle-blocked");
  free(s);
  s = game("white=clobberers;black=fide;fen=r3k2r/8/8/8/8/8/2q5/D3K2D w KQkq - 0 1", 0);
  REFUSED(s, "O-O-O", "castle-through-check"); /* the queen on c2 attacks b1, c1, d1 */
  free(s);
}
END_TEST

/* CH-2 through DA-7: threefold on claim, fivefold automatic; Fibnifs
 * and knights going back and forth. */
START_TEST(test_cwda_game_repetition)
{
  const struct ref_game_desc *d = ref_game_find("cwda");
  struct ref_state *s = game("white=nutty", 0);
  struct ref_status st;
  struct ref_err err;

  for(int round = 0; round < 4; round++) {
    PLAYS(s, "Ic3");
    PLAYS(s, "Nf6");
    PLAYS(s, "Ib1");
    PLAYS(s, "Ng8");
    d->ops->status(s, &st);
    ck_assert_int_eq(st.draw_claimable, round >= 1 && round < 3); /* none once over */
    if(round == 1) {
      struct ref_state *c = ref_state_dup(d, s);
      ck_assert_int_eq(d->ops->act(c, 0, REF_ACT_DRAW_CLAIM, 0, &err), 0);
      d->ops->status(c, &st);
      ck_assert_int_eq(st.end, REF_END_THREEFOLD);
      free(c);
    }
    d->ops->status(s, &st);
    if(round < 3)
      ck_assert_int_ne(st.phase, REF_PHASE_OVER);
  }
  d->ops->status(s, &st);
  ck_assert_int_eq(st.phase, REF_PHASE_OVER);
  ck_assert_int_eq(st.end, REF_END_FIVEFOLD);
  free(s);
  /* DA-7: a lone Waffle keeps the game alive, a lone bishop does not */
  s = game("white=clobberers;fen=4k3/8/8/8/8/8/8/W3K3 b - - 0 1", 0);
  d->ops->status(s, &st);
  ck_assert_int_ne(st.phase, REF_PHASE_OVER);
  free(s);
  s = game("fen=4k3/8/8/8/8/8/8/B3K3 b - - 0 1", 0);
  d->ops->status(s, &st);
  ck_assert_int_eq(st.end, REF_END_DEAD_POSITION);
  free(s);
}
END_TEST

/* The board as data: FIDE pieces as figurines, the others lettered, the
 * legend for each lettered army. */
START_TEST(test_cwda_game_diagram)
{
  const struct ref_game_desc *d = ref_game_find("cwda");
  struct ref_state *s = game("white=rookies;black=fide", 0);
  struct ref_diagram dg;

  ck_assert_int_eq(d->ops->diagram(s, 1, &dg), 0);
  ck_assert(dg.flip);
  ck_assert_int_eq(dg.cell[0][0].s.p[0].kind, REF_DIAG_LETTERED);
  ck_assert_int_eq(dg.cell[0][0].s.p[0].letter, 'S');
  ck_assert_int_eq(dg.cell[0][3].s.p[0].letter, 'C');
  ck_assert_int_eq(dg.cell[0][4].s.p[0].kind, REF_DIAG_KING);
  ck_assert_int_eq(dg.cell[7][3].s.p[0].kind, REF_DIAG_QUEEN);
  ck_assert_int_eq(dg.cell[7][3].s.p[0].dark, 1);
  ck_assert_str_eq(dg.legend[0],
                   "Remarkable Rookies: S Short Rook, Y Woody Rook, H Half-Duck, C Chancellor");
  ck_assert_str_eq(dg.legend[1], "");
  free(s);
}
END_TEST

/* ---- perft: Fairy-Stockfish's counts ---- */

START_TEST(test_cwda_perft_oracle)
{
  char *text, *line, *save = NULL;
  long maxdepth = ts_env_long("TABULA_PERFT_MAXDEPTH", 4);
  long budget = ts_env_long("TABULA_PERFT_BUDGET", PERFT_BUDGET);
  int positions = 0, starts = 0, checked = 0, to_b = 0, promos = 0, eps = 0, checks = 0;
  int leap_checks = 0;

  text = ts_readf("%s/cwda/perft.epd", TABULA_TEST_DATA);
  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char fen[128], wa[16], ba[16], out[128], *f, *semi;
    struct ref_cwda_tables t;
    struct ref_cwda_pos p;
    if(*line == '#')
      continue;
    semi = strchr(line, ';');
    ck_assert_ptr_nonnull(semi);
    snprintf(fen, sizeof(fen), "%.*s", (int)(semi - line - 1), line);
    f = strstr(line, ";armies ");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(sscanf(f, ";armies %15[a-z]/%15[a-z]", wa, ba), 2);
    setup(&t, &p, wa, ba, fen);
    ck_assert_int_eq(ref_cwda_fen_write(&p, out, sizeof(out)), 0);
    positions++;
    starts += strstr(line, ";id start-") != NULL;
    {
      /* What the positions exercise: DA-3's castling to b1/b8, DA-5,
       * DA-6, check. */
      uint16_t mv[REF_CWDA_MAX_MOVES];
      int n = ref_cwda_gen_legal(&t, &p, mv), pr = 0, ep = 0;
      for(int i = 0; i < n; i++) {
        int kind = ref_cwda_move_kind(mv[i]);
        to_b += kind == REF_CWDA_MV_CASTLE && ref_cwda_move_to(mv[i]) % 8 == 1;
        pr |= kind == REF_CWDA_MV_PROMO;
        ep |= kind == REF_CWDA_MV_EP;
      }
      promos += pr;
      eps += ep;
      if(ref_cwda_in_check(&t, &p)) {
        /* Checks by the armies' leapers: a piece whose table leaps onto the
         * king (looked up from the king with the other colour's table). */
        int k = ref_chess_lsb(p.bb[p.side][REF_AK_KING]);
        checks++;
        for(int kind = 2; kind < REF_AK_COUNT; kind++)
          if(t.moves[p.side][kind].leap[k] & p.bb[!p.side][kind]) {
            leap_checks++;
            break;
          }
      }
    }
    {
      /* The legal moves themselves, in UCI as the engine writes them
       * (promotion letters of the own army, castling e1b1). */
      char *want = strstr(line, ";moves "), got[4096];
      ck_assert_ptr_nonnull(want);
      legal_uci(&t, &p, got, sizeof(got));
      ck_assert_msg(!strcmp(got, want + 7), "%s: moves\n  got  %s\n  want %s", fen, got, want + 7);
    }
    for(f = semi; f; f = strchr(f + 1, ';')) {
      int depth;
      unsigned long long want;
      if(sscanf(f, ";D%d %llu", &depth, &want) != 2)
        continue;
      if(depth > maxdepth || (depth > 1 && want > (unsigned long long)budget))
        continue;
      unsigned long long got = ref_cwda_perft(&t, &p, depth);
      ck_assert_msg(got == want, "%s (%s/%s) depth %d: got %llu want %llu", fen, wa, ba, depth,
                    got, want);
      checked++;
    }
  }
  ck_assert_int_eq(starts, 16);
  ck_assert_int_ge(positions, 16 + 50);
  ck_assert_int_ge(to_b, 4);
  ck_assert_int_ge(promos, 16);
  ck_assert_int_ge(eps, 16);
  ck_assert_int_ge(checks, 32);
  ck_assert_int_ge(leap_checks, 16);
  ck_assert_int_ge(checked, positions * 2);
  free(text);
}
END_TEST

static Suite *cwda_suite(void)
{
  Suite *s = suite_create("cwda");
  TCase *tc = tcase_create("armies");
  tcase_add_test(tc, test_cwda_table);
  tcase_add_test(tc, test_cwda_oracle_definitions_agree);
  tcase_add_test(tc, test_cwda_betza);
  tcase_add_test(tc, test_cwda_start_positions);
  tcase_add_test(tc, test_cwda_castling);
  tcase_add_test(tc, test_cwda_promotion_own_army);
  tcase_add_test(tc, test_cwda_fen_refusals);
  tcase_add_test(tc, test_cwda_fen_mutations);
  tcase_add_test(tc, test_cwda_san);
  tcase_add_test(tc, test_cwda_san_unique);
  tcase_add_test(tc, test_cwda_reading_letters);
  tcase_add_test(tc, test_cwda_game_options);
  tcase_add_test(tc, test_cwda_game_decode_strict);
  tcase_add_test(tc, test_cwda_game_play);
  tcase_add_test(tc, test_cwda_game_repetition);
  tcase_add_test(tc, test_cwda_game_diagram);
  suite_add_tcase(s, tc);
  tc = tcase_create("perft");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_cwda_perft_oracle);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(cwda_suite());
}
