/*
 * backtoback.c: Back-to-Back Chess (Paul Kreutzer, 2000), game "backtoback"
 * of the rules core. docs/rules-spec.md §8, seed 003; conventions of §1.
 *
 * Where each rule lives (one jump each):
 *   BB-1 board shape   the two specs below: `pinwheel` (default) and
 *                      `corners` (option b2b_board=corners). The original
 *                      diagram (Table I) is garbled; both shapes are
 *                      reconstructions (§8.1), and the help text says so.
 *   BB-2 barrier       the `walls` of the specs; board_geometry.c walled()
 *                      turns it into missing steps for every piece.
 *   BB-3 knight path   board_geometry.c knight_target().
 *   BB-4 pawns         `pawn_sideways` and `pawn_start` below;
 *                      board_geometry.c gen_pawn() (forward/left/right, two
 *                      on the first move, captures diagonally forward).
 *   BB-6 e.p.          board_geometry.c ref_geo_make() and gen_pawn().
 *   BB-7 promotion     `promo_row` below (White row 8, Black row 1).
 *   BB-8 castling      `castles` below: the U-shaped moves for both colours.
 *   CH-1, CH-2         castling through check (`safe` squares); the FIDE
 *                      draw block, option fide_draws (settle(), bb_act()).
 * The board machinery is generic (board_geometry_int.h); this file holds the
 * geometry data, the game (draws, results), notation and the ASCII board.
 *
 * Position string (board_geometry_int.h): FEN over 14 columns, rows 8 to 1,
 * '#' for cells that are not squares, runs of empty squares as numbers up to
 * 14, then side, castling (KQkq: K = White O-O, H1-H3), e.p. ("-", "e3", or
 * "e7d7" for the crossed square and the pawn after a sideways two-step),
 * halfmove clock, fullmove number, and a 7th field only when a pawn stands
 * on a start square after having moved. The start (default board):
 *   5pkqp3##/5pbbp3##/5pnnp3##/5prrp5/5PRRP5/##3PNNP5/##3PBBP5/##3PQKP5 w KQkq - 0 1
 * The holes tell the two boards apart, so decode needs no option.
 *
 * Notation (§8.4): canonical long algebraic with files a-n, "Ng3-e4",
 * "f2-d2", "e5xd6", "d7-d8=Q", "O-O", plus "+" or "#". Read tolerantly:
 * upper-case squares, Kn/Kt for the knight, a P for pawns, SAN when it names
 * one legal move ("Ne4", "fd2", "exd6"). Computer notation: "g3e4",
 * "d7d8q", castling "O-O"/"O-O-O" (a Back-to-Back O-O-O, H1-G2, is also a
 * king step, so squares alone cannot name it).
 *
 * Decisions the spec leaves open, marked BB-D1.. in the code and tests:
 *   BB-D1 a pawn two-step is allowed only for a pawn that never moved: a
 *         pawn that walks sideways back onto its start square has moved.
 *   BB-D2 options b2b_board=pinwheel|corners (rules-spec name) and the
 *         alias geometry=pinwheel|corner|corners; fen= takes "_" for spaces
 *         because a mail's "new" line splits its words at spaces.
 *   BB-D3 computer notation writes castling as O-O / O-O-O (see above).
 *   BB-D4 castling may also be written as the king's move when that is not
 *         a king's step: "h1-h3" is O-O; "h1-g2" is always the step.
 *   BB-D5 "Kn"/"Kt" is the knight (§1.3) only where the text cannot be a
 *         king move: files run to n, so "Kn4-m5" is the king from n4.
 */
#include "board_geometry_int.h"
#include "diagram_int.h"
#include "rules.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* The geometries (BB-1 .. BB-8 as data) */

/* The U-shaped castling of seed 003 and its 180-degree rotation (BB-8).
 * White O-O: K H1-H3, R H4-H2; O-O-O: K H1-G1-G2, R G4-G1. The king's
 * squares (start, crossed, landing) must not be attacked (CH-1). */
#define BB_CASTLES                                                                                 \
  {                                                                                                \
    {'K', "h1", "h3", "h4", "h2", "h2 h3", "h1 h2 h3"},                                            \
      {'Q', "h1", "g2", "g4", "g1", "g1 g2 g3", "h1 g1 g2"},                                       \
      {'k', "g8", "g6", "g5", "g7", "g7 g6", "g8 g7 g6"},                                          \
    {                                                                                              \
      'q', "g8", "h7", "h5", "h8", "h8 h7 h6", "g8 h8 h7"                                          \
    }                                                                                              \
  }

/* BB-1 default "pinwheel": no squares at A1-B3 and M6-N8 (outer files, so
 * the F- and I-file pawns can still leave their files sideways). BB-2: the
 * barrier between rows 4 and 5 over F-I (cols 5-8). BB-4 sideways pawns,
 * starting on F1-F4/I1-I4 and F5-F8/I5-I8. BB-7 promotion on rows 8 and 1. */
static const struct ref_geo_spec spec_pinwheel = {
  "pinwheel",
  14,
  8,
  "a1 b1 a2 b2 a3 b3 m6 n6 m7 n7 m8 n8",
  1,
  {{3, 5, 8}, {0, 0, 0}},
  true,
  {"f1 f2 f3 f4 i1 i2 i3 i4", "f5 f6 f7 f8 i5 i6 i7 i8"},
  {7, 0},
  {0, 0},
  BB_CASTLES,
  "5pkqp3##/5pbbp3##/5pnnp3##/5prrp5/5PRRP5/##3PNNP5/##3PBBP5/##3PQKP5 w KQkq - 0 1",
};

/* BB-1 alternative "corners" (b2b_board=corners): mirror-symmetric corner
 * cuts A1 B1 A2, A8 B8 A7, N1 M1 N2, N8 M8 N7; 100 squares too. */
static const struct ref_geo_spec spec_corners = {
  "corners",
  14,
  8,
  "a1 b1 a2 a8 b8 a7 n1 m1 n2 n8 m8 n7",
  1,
  {{3, 5, 8}, {0, 0, 0}},
  true,
  {"f1 f2 f3 f4 i1 i2 i3 i4", "f5 f6 f7 f8 i5 i6 i7 i8"},
  {7, 0},
  {0, 0},
  BB_CASTLES,
  "##3pkqp3##/#4pbbp4#/5pnnp5/5prrp5/5PRRP5/5PNNP5/#4PBBP4#/##3PQKP3## w KQkq - 0 1",
};

enum { BB_PINWHEEL, BB_CORNERS, BB_NBOARDS };
static const struct ref_geo_spec *const specs[BB_NBOARDS] = {&spec_pinwheel, &spec_corners};

/* ------------------------------------------------------------------------ */
/* The game state */

#define BB_MAGIC 0x42423231u /* "BB21": bump when the layout changes */
/* Repetition keys since the last capture or pawn move; the 75-move rule
 * (CH-2) ends a game at 150 such plies, so 160 is room enough. */
#define BB_HIST_MAX 160

struct bb_state {
  uint32_t magic;
  uint8_t board_kind; /* BB_PINWHEEL or BB_CORNERS (BB-1) */
  uint8_t fide_draws; /* CH-2 block on (1) or off (0) */
  uint8_t over;
  int8_t winner; /* seat, or -1 for a draw (when over) */
  uint8_t end;   /* enum ref_end (when over) */
  uint8_t last_from, last_to; /* the last move, for render; REF_GEO_NONE if none */
  uint8_t pad;
  uint16_t nhist;
  struct ref_geo_pos pos;
  uint64_t hist[BB_HIST_MAX];
  struct ref_geo geo; /* tables built from specs[board_kind] */
};

static bool bb_ok(const struct ref_state *s);

static struct bb_state *state_of(struct ref_state *s)
{
  return (struct bb_state *)(void *)s;
}

static const struct bb_state *cstate_of(const struct ref_state *s)
{
  return (const struct bb_state *)(const void *)s;
}

static int repetitions(const struct bb_state *st)
{
  uint64_t key = st->hist[st->nhist - 1];
  int i, count = 0;
  for(i = (int)st->nhist - 1; i >= 0; i -= 2)
    if(st->hist[i] == key)
      count++;
  return count;
}

/* CH-2 dead positions as rules-spec lists them (K v K, K+B v K, K+N v K,
 * bishops all on one colour); square colour is (row + col) parity. */
static bool dead_position(const struct ref_geo_pos *p)
{
  int c, minors = 0, knights = 0, colours = 0;
  for(c = 0; c < REF_GEO_CELLS; c++) {
    int code = p->board[c], type;
    if(code == REF_GEO_EMPTY)
      continue;
    type = REF_GEO_TYPE(code);
    if(type == REF_GEO_PAWN || type == REF_GEO_ROOK || type == REF_GEO_QUEEN)
      return false;
    if(type == REF_GEO_KNIGHT) {
      knights++;
      minors++;
    }
    if(type == REF_GEO_BISHOP) {
      minors++;
      colours |= 1 << ((ref_geo_row(c) + ref_geo_col(c)) & 1);
    }
  }
  return minors <= 1 || (!knights && colours != 3);
}

/* The automatic result of the position (§2.3, then CH-2): mate and
 * stalemate, then the automatic FIDE draws; mate first (FIDE 9.6.2).
 * REF_END_NONE while the game goes on; OUT: *winner. */
static enum ref_end verdict(const struct bb_state *st, int *winner)
{
  const struct ref_geo_pos *p = &st->pos;

  *winner = -1;
  if(!ref_geo_gen_legal(&st->geo, p, NULL)) {
    if(!ref_geo_in_check(&st->geo, p))
      return REF_END_STALEMATE;
    *winner = p->side ^ 1;
    return REF_END_CHECKMATE;
  }
  if(!st->fide_draws)
    return REF_END_NONE;
  if(dead_position(p))
    return REF_END_DEAD_POSITION;
  if(repetitions(st) >= 5)
    return REF_END_FIVEFOLD;
  if(p->halfmove >= 150)
    return REF_END_SEVENTY_FIVE;
  return REF_END_NONE;
}

static void settle(struct bb_state *st)
{
  int winner;
  enum ref_end end = verdict(st, &winner);

  st->end = (uint8_t)end;
  st->winner = (int8_t)winner;
  st->over = end != REF_END_NONE;
}

static void history_push(struct bb_state *st)
{
  if(st->pos.halfmove == 0)
    st->nhist = 0;
  if(st->nhist == BB_HIST_MAX) {
    memmove(st->hist, st->hist + 2, (BB_HIST_MAX - 2) * sizeof(st->hist[0]));
    st->nhist -= 2;
  }
  st->hist[st->nhist++] = ref_geo_key(&st->pos);
}

/* The tables belong to this board: its size and its holes (BB-1). */
static bool tables_match(const struct bb_state *st)
{
  const struct ref_geo_spec *spec = specs[st->board_kind];
  const char *h;
  int c, cells = 0, holes = 0;

  if(st->geo.cols != spec->cols || st->geo.rows != spec->rows)
    return false;
  for(h = spec->holes; *h; h++) {
    if(*h < 'a' || *h > 'n')
      continue;
    if(st->geo.exists[(h[1] - '1') * REF_GEO_ROW + (h[0] - 'a')])
      return false;
    holes++;
    h++;
  }
  for(c = 0; c < REF_GEO_CELLS; c++)
    cells += st->geo.exists[c] != 0;
  return cells == spec->cols * spec->rows - holes;
}

/* BB-1: the board whose holes the position's '#' marks are, or -1. Only
 * the marks are looked at; ref_geo_fen_read checks everything else. */
static int board_of_text(const char *text)
{
  char marks[REF_GEO_CELLS];
  int kind, row = REF_GEO_MAX_ROWS - 1, col = 0;
  const char *p;

  memset(marks, 0, sizeof(marks));
  for(p = text; *p && *p != ' ' && *p != '\t'; p++) {
    if(*p == '/') {
      if(--row < 0)
        return -1;
      col = 0;
    }
    else if(*p >= '0' && *p <= '9') {
      int run = *p - '0';
      if(p[1] >= '0' && p[1] <= '9')
        run = run * 10 + (*++p - '0');
      col += run;
    }
    else {
      if(col >= REF_GEO_MAX_COLS)
        return -1;
      marks[row * REF_GEO_ROW + col] = *p == '#';
      col++;
    }
    if(col > REF_GEO_MAX_COLS)
      return -1;
  }
  for(kind = 0; kind < BB_NBOARDS; kind++) {
    char want[REF_GEO_CELLS];
    const char *h;
    memset(want, 0, sizeof(want));
    for(h = specs[kind]->holes; h[0] && h[1]; h++)
      if(h[0] >= 'a' && h[0] <= 'n' && h[1] >= '1' && h[1] <= '8')
        want[(h[1] - '1') * REF_GEO_ROW + (h[0] - 'a')] = 1;
    if(!memcmp(want, marks, sizeof(want)))
      return kind;
  }
  return -1;
}

/*
 * A position string on board `kind`, or (kind < 0) on the board its holes
 * describe. OUT: st, a fresh game around it (fide_draws as given). On
 * failure st is untouched and *reason is a key.
 */
static int start_from(struct bb_state *st, int kind, int fide_draws, const char *text,
                      const char **reason)
{
  struct ref_geo geo;
  struct ref_geo_pos pos;
  int rc;

  *reason = "geo-fen-syntax";
  if(!text)
    return REF_EINVAL;
  if(kind < 0)
    kind = board_of_text(text);
  /* Holes that fit no board: read on the default one for the reason. A
   * state that already holds this board's tables lends them (decoding into
   * a live game is frequent; building is much of its cost). */
  if(kind >= 0 && st->magic == BB_MAGIC && st->board_kind == kind && tables_match(st)) {
    memcpy(&geo, &st->geo, sizeof(geo));
    rc = REF_OK;
  }
  else {
    rc = ref_geo_build(&geo, specs[kind < 0 ? BB_PINWHEEL : kind]);
  }
  if(rc == REF_OK)
    rc = ref_geo_fen_read(&geo, &pos, text, reason);
  if(rc == REF_OK && kind < 0) {
    *reason = "geo-fen-board";
    rc = REF_EINVAL;
  }
  if(rc != REF_OK)
    return rc;
  memset(st, 0, offsetof(struct bb_state, geo));
  memcpy(&st->geo, &geo, sizeof(geo));
  st->magic = BB_MAGIC;
  st->board_kind = (uint8_t)kind;
  st->fide_draws = (uint8_t)fide_draws;
  st->last_from = st->last_to = REF_GEO_NONE;
  st->pos = pos;
  st->hist[0] = ref_geo_key(&pos);
  st->nhist = 1;
  settle(st);
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* Options */

static void trim(const char **b, const char **e)
{
  while(*b < *e && (**b == ' ' || **b == '\t'))
    (*b)++;
  while(*e > *b && ((*e)[-1] == ' ' || (*e)[-1] == '\t'))
    (*e)--;
}

static bool span_is(const char *b, const char *e, const char *word)
{
  return (size_t)(e - b) == strlen(word) && !strncasecmp(b, word, (size_t)(e - b));
}

struct bb_options {
  int fide_draws, board;
  bool seen_fide, seen_board, seen_fen;
  char fen[256];
};

/* One "key=value" segment [b, e). A key given twice is refused. */
static int option_one(struct bb_options *o, const char *b, const char *e, struct ref_err *err)
{
  const char *eq = memchr(b, '=', (size_t)(e - b)), *kb = b, *ke = eq ? eq : e, *vb, *ve;
  char key[32];

  trim(&kb, &ke);
  snprintf(key, sizeof(key), "%.*s", (int)(ke - kb), kb);
  if(kb == ke && !eq)
    return REF_OK;
  vb = eq ? eq + 1 : e;
  ve = e;
  trim(&vb, &ve);
  if(span_is(kb, ke, "fide_draws")) {
    if(!eq || o->seen_fide || !(span_is(vb, ve, "on") || span_is(vb, ve, "off")))
      goto bad;
    o->seen_fide = true;
    o->fide_draws = span_is(vb, ve, "on");
    return REF_OK;
  }
  /* BB-1 and BB-D2: the rules-spec name, and a shorter alias. */
  if(span_is(kb, ke, "b2b_board") || span_is(kb, ke, "geometry")) {
    if(!eq || o->seen_board)
      goto bad;
    if(span_is(vb, ve, "pinwheel"))
      o->board = BB_PINWHEEL;
    else if(span_is(vb, ve, "corners") || span_is(vb, ve, "corner"))
      o->board = BB_CORNERS;
    else
      goto bad;
    o->seen_board = true;
    return REF_OK;
  }
  if(span_is(kb, ke, "fen")) {
    size_t i;
    if(!eq || o->seen_fen || (size_t)(ve - vb) >= sizeof(o->fen))
      goto bad;
    o->seen_fen = true;
    /* BB-D2: "_" stands for a space (a mail's "new" line splits at spaces). */
    for(i = 0; i < (size_t)(ve - vb); i++)
      o->fen[i] = vb[i] == '_' ? ' ' : vb[i];
    o->fen[i] = '\0';
    return REF_OK;
  }
  ref_err_set(err, REF_EINVAL, "bb-unknown-option", key);
  return REF_EINVAL;
bad:
  ref_err_set(err, REF_EINVAL, "bb-bad-option", key);
  return REF_EINVAL;
}

/*
 * Options (rules.h): b2b_board=pinwheel|corners (BB-1, alias geometry=),
 * fide_draws=on|off (CH-2, default on), fen=POSITION (its holes must fit
 * the board asked for; without b2b_board they choose it). Unknown keys are
 * REF_EINVAL; on failure the state is left as it was.
 */
static int bb_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct bb_options o;
  const char *b = options ? options : "", *reason = NULL;
  int rc = REF_OK;

  memset(&o, 0, sizeof(o));
  o.fide_draws = 1;
  o.board = BB_PINWHEEL;
  while(*b && rc == REF_OK) {
    const char *e = strchr(b, ';');
    if(!e)
      e = b + strlen(b);
    rc = option_one(&o, b, e, err);
    b = *e ? e + 1 : e;
  }
  if(rc != REF_OK)
    return rc;
  if(!o.seen_fen)
    snprintf(o.fen, sizeof(o.fen), "%s", specs[o.board]->start_fen);
  rc = start_from(state_of(s), o.seen_fen && !o.seen_board ? -1 : o.board, o.fide_draws, o.fen,
                  &reason);
  if(rc != REF_OK)
    ref_err_set(err, rc, reason, NULL);
  return rc;
}

/* The board comes from the holes; fide_draws is kept from a state made by
 * init (options are not part of a position string). */
static int bb_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct bb_state *st = state_of(s);
  const char *reason = NULL;
  int fide = st->magic == BB_MAGIC ? st->fide_draws : 1;
  int rc = start_from(st, -1, fide, text, &reason);

  if(rc != REF_OK)
    ref_err_set(err, rc, reason, NULL);
  return rc;
}

static int bb_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct bb_state *st = cstate_of(s);
  return ref_geo_fen_write(&st->geo, &st->pos, buf, cap);
}

/* ------------------------------------------------------------------------ */
/* Moves through the interface */

static int bb_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct bb_state *st = cstate_of(s);
  uint32_t moves[REF_GEO_MAX_MOVES];
  struct ref_move m;
  int i, n = ref_geo_gen_legal(&st->geo, &st->pos, moves);

  memset(&m, 0, sizeof(m));
  for(i = 0; i < n; i++) {
    m.w[0] = moves[i];
    if(ref_movelist_push(out, &m) != REF_OK)
      return REF_ENOMEM;
  }
  return REF_OK;
}

/* The move inside m if it is legal in st, else 0 (no move encodes as 0). */
static uint32_t legal_move_of(const struct bb_state *st, const struct ref_move *m)
{
  uint32_t moves[REF_GEO_MAX_MOVES];
  int i, n;

  for(i = 1; i < REF_MOVE_WORDS; i++)
    if(m->w[i])
      return 0;
  n = ref_geo_gen_legal(&st->geo, &st->pos, moves);
  for(i = 0; i < n; i++)
    if(moves[i] == m->w[0])
      return moves[i];
  return 0;
}

/* §8.4 canonical long algebraic of legal m, with + or # after it. */
static void long_algebraic(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t m,
                           char *out)
{
  int from = ref_geo_move_from(m), to = ref_geo_move_to(m), kind = ref_geo_move_kind(m);
  int type = REF_GEO_TYPE(p->board[from]);
  bool capture = p->board[to] != REF_GEO_EMPTY || kind == REF_GEO_MV_EP;
  const struct ref_geo_castle *c = ref_geo_castle_of(g, m);
  struct ref_geo_pos after = *p;
  size_t k = 0;

  if(c) {
    strcpy(out, c->letter == 'K' || c->letter == 'k' ? "O-O" : "O-O-O");
    k = strlen(out);
  }
  else {
    if(type != REF_GEO_PAWN)
      out[k++] = "PNBRQK"[type];
    ref_geo_square_name(from, out + k);
    k += 2;
    out[k++] = capture ? 'x' : '-';
    ref_geo_square_name(to, out + k);
    k += 2;
    if(kind == REF_GEO_MV_PROMO) {
      out[k++] = '=';
      out[k++] = "PNBRQK"[ref_geo_move_promo(m)];
    }
  }
  ref_geo_make(g, &after, m);
  if(ref_geo_in_check(g, &after))
    out[k++] = ref_geo_gen_legal(g, &after, NULL) ? '+' : '#';
  out[k] = '\0';
}

/* BB-D3 computer notation: squares and promotion letter; castling O-O. */
static void computer_notation(const struct ref_geo *g, uint32_t m, char *out)
{
  const struct ref_geo_castle *c = ref_geo_castle_of(g, m);
  if(c) {
    strcpy(out, c->letter == 'K' || c->letter == 'k' ? "O-O" : "O-O-O");
    return;
  }
  ref_geo_square_name(ref_geo_move_from(m), out);
  ref_geo_square_name(ref_geo_move_to(m), out + 2);
  if(ref_geo_move_kind(m) == REF_GEO_MV_PROMO) {
    out[4] = "pnbrqk"[ref_geo_move_promo(m)];
    out[5] = '\0';
  }
}

static int bb_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  const struct bb_state *st = cstate_of(s);
  uint32_t mv = legal_move_of(st, m);
  char out[32];

  if(!mv)
    return REF_EINVAL;
  if(style == REF_NOTATION_COMPUTER)
    computer_notation(&st->geo, mv, out);
  else
    long_algebraic(&st->geo, &st->pos, mv, out);
  if(strlen(out) + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, strlen(out) + 1);
  return REF_OK;
}

/* Plays m and settles the result (§2.3, CH-2). The move is checked against
 * the legal list: a journal replayed after a rules change must fail loudly.
 * REF_EPHASE once the game is over, REF_EILLEGAL for a move not legal here. */
static int bb_apply(struct ref_state *s, const struct ref_move *m)
{
  struct bb_state *st = state_of(s);
  uint32_t mv;

  if(st->over)
    return REF_EPHASE;
  mv = legal_move_of(st, m);
  if(!mv)
    return REF_EILLEGAL;
  ref_geo_make(&st->geo, &st->pos, mv);
  st->last_from = (uint8_t)ref_geo_move_from(mv);
  st->last_to = (uint8_t)ref_geo_move_to(mv);
  history_push(st);
  settle(st);
  assert(bb_ok(s)); /* the checker after every apply in debug builds */
  return REF_OK;
}

/* Resignation, agreed draw and draw claims (CH-2), as chess.c. */
static int bb_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct bb_state *st = state_of(s);
  enum ref_end claim = REF_END_NONE, end;
  int winner, rc;

  (void)arg;
  /* CH-2: threefold and fifty moves only on claim, by either player. */
  if(st->fide_draws)
    claim = repetitions(st) >= 3 ? REF_END_THREEFOLD
          : st->pos.halfmove >= 100 ? REF_END_FIFTY_MOVES : REF_END_NONE;
  rc = ref_plain_act(seat, action, st->over, claim,
                     st->fide_draws ? "draw-not-claimable" : "draw-rules-off", &winner, &end, err);
  if(rc)
    return rc;
  st->winner = (int8_t)winner;
  st->end = (uint8_t)end;
  st->over = 1;
  assert(bb_ok(s));
  return REF_OK;
}

static void bb_status(const struct ref_state *s, struct ref_status *out)
{
  const struct bb_state *st = cstate_of(s);

  memset(out, 0, sizeof(*out));
  out->phase = st->over ? REF_PHASE_OVER : REF_PHASE_MOVE;
  out->turn = st->over ? -1 : st->pos.side;
  out->winner = st->over ? st->winner : -1;
  out->end = st->over ? (enum ref_end)st->end : REF_END_NONE;
  out->points = st->over && st->winner >= 0 ? 1 : 0;
  out->move_number = (int)st->pos.fullmove;
  out->in_check = ref_geo_in_check(&st->geo, &st->pos);
  out->draw_claimable =
    !st->over && st->fide_draws && (repetitions(st) >= 3 || st->pos.halfmove >= 100);
  out->cube = 0;
  out->cube_owner = -1;
}

static uint64_t bb_perft(const struct ref_state *s, int depth)
{
  const struct bb_state *st = cstate_of(s);
  return ref_geo_perft(&st->geo, &st->pos, depth);
}

/*
 * The position, history and result recomputed. The tables are checked
 * where they are made (start_from builds them from the spec, and the tests
 * compare); here only that they belong to the board kind, since no
 * operation writes them after that and rebuilding them on every check
 * would be most of a move's cost.
 */
static bool bb_ok(const struct ref_state *s)
{
  const struct bb_state *st = cstate_of(s);
  enum ref_end end;
  int winner;

  if(st->magic != BB_MAGIC || st->board_kind >= BB_NBOARDS || st->fide_draws > 1 || st->over > 1)
    return false;
  if(!tables_match(st))
    return false;
  if(!ref_geo_pos_ok(&st->geo, &st->pos))
    return false;
  if(st->nhist < 1 || st->nhist > BB_HIST_MAX || st->hist[st->nhist - 1] != ref_geo_key(&st->pos) ||
     st->nhist > st->pos.halfmove + 1)
    return false;
  if((st->last_from == REF_GEO_NONE) != (st->last_to == REF_GEO_NONE))
    return false;
  if(st->last_to != REF_GEO_NONE &&
     (st->last_to >= REF_GEO_CELLS || st->pos.board[st->last_to] == REF_GEO_EMPTY ||
      REF_GEO_COLOR(st->pos.board[st->last_to]) != (st->pos.side ^ 1)))
    return false;
  end = verdict(st, &winner);
  /* A running game must not have missed an automatic ending. */
  if(!st->over)
    return st->end == REF_END_NONE && st->winner == -1 && end == REF_END_NONE;
  switch(st->end) {
  case REF_END_CHECKMATE:
  case REF_END_STALEMATE:
  case REF_END_DEAD_POSITION:
  case REF_END_FIVEFOLD:
  case REF_END_SEVENTY_FIVE:
    /* Automatic results must be exactly what the position says. */
    return end == st->end && winner == st->winner;
  case REF_END_RESIGNATION:
    return st->winner == 0 || st->winner == 1;
  case REF_END_AGREEMENT:
    return st->winner == -1;
  case REF_END_THREEFOLD:
    return st->winner == -1 && st->fide_draws && repetitions(st) >= 3;
  case REF_END_FIFTY_MOVES:
    return st->winner == -1 && st->fide_draws && st->pos.halfmove >= 100;
  default:
    return false;
  }
}

/* ------------------------------------------------------------------------ */
/* The tolerant parser (§1.1-1.4, §8.4). The cleaned input is read in every
 * way it can be read (a leading capital K, N or B is a piece, or, in an
 * all-capitals move, a file: files run a-n here), each reading is matched
 * against the legal moves, and the input is accepted only when exactly one
 * legal move fits. Nothing is guessed. */

#define PIECE_ANY (-1) /* a full origin square without a letter: any piece */

struct pattern {
  int castle;   /* 0, 1 for O-O, 2 for O-O-O */
  int piece;    /* piece type, or PIECE_ANY */
  int ff, fr;   /* origin file and row, -1 when not written */
  int to;       /* destination cell (may be a hole), -1 for castling */
  int promo;    /* promotion piece, -1 when none written */
  bool capture; /* a capture mark was written */
};

enum match { MATCH_NONE, MATCH_FULL, MATCH_PROMO_MISSING, MATCH_NOT_CAPTURE };

static bool is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static bool is_digit(int c)
{
  return c >= '0' && c <= '9';
}

static int file_of(int c)
{
  if(c >= 'a' && c <= 'n')
    return c - 'a';
  if(c >= 'A' && c <= 'N')
    return c - 'A';
  return -1;
}

static int rank_of(int c)
{
  return c >= '1' && c <= '8' ? c - '1' : -1;
}

static int promo_of(int c)
{
  switch(c) {
  case 'Q':
  case 'q':
    return REF_GEO_QUEEN;
  case 'R':
  case 'r':
    return REF_GEO_ROOK;
  case 'B':
  case 'b':
    return REF_GEO_BISHOP;
  case 'N':
  case 'n':
    return REF_GEO_KNIGHT;
  default:
    return -1;
  }
}

static bool ends_with_ci(const unsigned char *b, const unsigned char *e, const char *suffix)
{
  size_t n = strlen(suffix), i;
  if((size_t)(e - b) < n)
    return false;
  for(i = 0; i < n; i++) {
    int c = e[(ptrdiff_t)i - (ptrdiff_t)n];
    if(c >= 'A' && c <= 'Z')
      c += 'a' - 'A';
    if(c != suffix[i])
      return false;
  }
  return true;
}

/* §1.1: drops surrounding punctuation, a move number, glyphs, check marks
 * and "e.p.". False when nothing is left, it is too long, or a space is
 * left inside (two words are not one move). */
static bool clean_input(const char *text, char *out, size_t cap)
{
  const unsigned char *b = (const unsigned char *)text, *e = b + strlen(text), *q;
  bool changed = true;
  size_t len;

  while(changed) {
    changed = false;
    while(b < e && (is_space(*b) || *b >= 0x80 || strchr("\"'`.,;:([{<", *b))) {
      b++;
      changed = true;
    }
    q = b;
    while(q < e && is_digit(*q))
      q++;
    if(q > b && q < e && *q == '.') {
      b = q;
      changed = true;
    }
  }
  changed = true;
  while(changed && e > b) {
    int c = e[-1];
    if(is_space(c) || c >= 0x80 || strchr("!?+#.,;:\"'`]}>", c))
      e--;
    else if(c == ')' && !memchr(b, '(', (size_t)(e - b)))
      e--;
    else if(ends_with_ci(b, e, "e.p") && (e - b == 3 || is_digit(e[-4]) || is_space(e[-4])))
      e -= 3;
    else if(ends_with_ci(b, e, "ep") && e - b > 2 && (is_digit(e[-3]) || is_space(e[-3])))
      e -= 2;
    else if(ends_with_ci(b, e, "ch") && e - b > 2 &&
            (is_digit(e[-3]) || (e[-3] && strchr("QRBNqrbn)", e[-3]))))
      e -= 2;
    else
      changed = false;
  }
  len = (size_t)(e - b);
  if(!len || len + 1 > cap)
    return false;
  for(q = b; q < e; q++)
    if(is_space(*q))
      return false;
  memcpy(out, b, len);
  out[len] = '\0';
  return true;
}

static int castle_kind(const char *s)
{
  int os = 0;
  for(; *s; s++) {
    if(*s == 'O' || *s == 'o' || *s == '0')
      os++;
    else if(*s != '-')
      return 0;
  }
  return os == 2 ? 1 : os == 3 ? 2 : 0;
}

/* Ways to read the first character(s). */
enum prefix { PFX_NONE, PFX_PIECE, PFX_KNIGHT2, PFX_COUNT };

/*
 * One reading of a cleaned move: [piece] [origin file] [origin row]
 * [- x : *] destination [promotion]. With PFX_NONE a full origin square
 * matches any piece (long algebraic, computer notation), anything less is a
 * pawn (SAN). `caps` says the input has no lower-case letter, which lets a
 * capital K/N/B be a file (§1.3: lower case means the file).
 */
static bool parse_reading(const char *s, enum prefix pfx, bool caps, struct pattern *pt)
{
  size_t n = strlen(s), i = 0, end;
  int c = (unsigned char)s[0], nsep = 0;

  memset(pt, 0, sizeof(*pt));
  pt->ff = pt->fr = pt->to = pt->promo = -1;
  pt->piece = REF_GEO_PAWN;
  if(pfx == PFX_PIECE) {
    /* Upper-case piece letters; lower case only where not a file. */
    const char *hit = strchr("PNBRQK", c);
    if(c && hit)
      pt->piece = (int)(hit - "PNBRQK");
    else if(c == 'q' || c == 'r' || c == 'p')
      pt->piece = c == 'q' ? REF_GEO_QUEEN : c == 'r' ? REF_GEO_ROOK : REF_GEO_PAWN;
    else
      return false;
    i = 1;
  }
  else if(pfx == PFX_KNIGHT2) {
    /* Kn / Kt: the knight (§1.3; seed 003's Table II writes Kn). */
    if(c != 'K' || n < 2 || !strchr("nNtT", s[1]))
      return false;
    pt->piece = REF_GEO_KNIGHT;
    i = 2;
  }
  else if((c == 'K' || c == 'N' || c == 'B') && !caps) {
    return false; /* §1.3: beside lower case, a capital K, N, B is a piece */
  }

  end = n;
  if(end >= i + 5 && s[end - 1] == ')' && s[end - 3] == '(' && promo_of(s[end - 2]) >= 0) {
    pt->promo = promo_of(s[end - 2]);
    end -= 3;
  }
  else if(end >= i + 3 && promo_of(s[end - 1]) >= 0 &&
          (s[end - 2] == '=' || s[end - 2] == '/' || rank_of(s[end - 2]) >= 0)) {
    pt->promo = promo_of(s[end - 1]);
    end--;
    if(s[end - 1] == '=' || s[end - 1] == '/')
      end--;
  }
  else if(end >= i + 3 && (s[end - 1] == '=' || s[end - 1] == '/')) {
    end--;
  }

  if(end < i + 2 || file_of(s[end - 2]) < 0 || rank_of(s[end - 1]) < 0)
    return false;
  pt->to = rank_of(s[end - 1]) * REF_GEO_ROW + file_of(s[end - 2]);
  end -= 2;
  while(end > i && strchr("-xX:*", s[end - 1])) {
    if(s[end - 1] != '-')
      pt->capture = true;
    end--;
    if(++nsep > 2)
      return false;
  }
  if(end - i == 2) {
    pt->ff = file_of(s[i]);
    pt->fr = rank_of(s[i + 1]);
    if(pt->ff < 0 || pt->fr < 0)
      return false;
    if(pfx == PFX_NONE)
      pt->piece = PIECE_ANY;
  }
  else if(end - i == 1) {
    pt->ff = file_of(s[i]);
    if(pt->ff < 0) {
      pt->fr = rank_of(s[i]);
      if(pt->fr < 0)
        return false;
    }
  }
  else if(end != i) {
    return false;
  }
  return true;
}

static enum match pattern_match(const struct ref_geo *g, const struct ref_geo_pos *p,
                                const struct pattern *pt, uint32_t m)
{
  int from = ref_geo_move_from(m), to = ref_geo_move_to(m), kind = ref_geo_move_kind(m);
  int type = REF_GEO_TYPE(p->board[from]);
  bool capture = p->board[to] != REF_GEO_EMPTY || kind == REF_GEO_MV_EP;

  if(kind == REF_GEO_MV_CASTLE) {
    const struct ref_geo_castle *c = ref_geo_castle_of(g, m);
    bool kingside = c->letter == 'K' || c->letter == 'k';
    int k;
    if(pt->castle)
      return kingside == (pt->castle == 1) ? MATCH_FULL : MATCH_NONE;
    /* BB-D4: the king's squares name castling too (seed 003 writes H1-H3),
     * unless they are also a king's step (O-O-O's H1-G2 is the step). */
    for(k = 0; k < 8; k++)
      if(g->step[from][k] == to)
        return MATCH_NONE;
  }
  else if(pt->castle) {
    return MATCH_NONE;
  }
  if(to != pt->to || (pt->piece >= 0 && type != pt->piece))
    return MATCH_NONE;
  if((pt->ff >= 0 && ref_geo_col(from) != pt->ff) || (pt->fr >= 0 && ref_geo_row(from) != pt->fr))
    return MATCH_NONE;
  /* SAN names a pawn capture by its file: a bare "d4" is a step only. */
  if(pt->piece == REF_GEO_PAWN && pt->ff < 0 && !pt->capture && capture)
    return MATCH_NONE;
  if(kind == REF_GEO_MV_PROMO) {
    if(pt->promo < 0)
      return MATCH_PROMO_MISSING;
    if(ref_geo_move_promo(m) != pt->promo)
      return MATCH_NONE;
  }
  else if(pt->promo >= 0) {
    return MATCH_NONE;
  }
  if(pt->capture && !capture)
    return MATCH_NOT_CAPTURE;
  return MATCH_FULL;
}

/* Why castling that way is refused (§8.3, CH-1). */
static const char *castle_refusal(const struct ref_geo *g, const struct ref_geo_pos *p,
                                  bool kingside)
{
  int i, k;
  for(i = 0; i < g->ncastles; i++) {
    const struct ref_geo_castle *c = &g->castles[i];
    if(c->color != p->side || (c->letter == 'K' || c->letter == 'k') != kingside)
      continue;
    if(!(p->castle & c->right))
      return "castle-no-right";
    for(k = 0; k < c->nempty; k++)
      if(p->board[c->empty[k]] != REF_GEO_EMPTY)
        return "castle-blocked";
    if(ref_geo_in_check(g, p))
      return "castle-in-check";
    for(k = 0; k < c->nsafe; k++)
      if(ref_geo_attacked(g, p, c->safe[k], p->side ^ 1))
        return "castle-through-check";
  }
  return "no-such-move";
}

/*
 * Why a move from `from` to `to` by our piece cannot be made, from the
 * board's shape alone: a cell that is not a square on the way (BB-1), a
 * step across the barrier (BB-2), a broken knight path (BB-3), a pawn's
 * diagonal onto an empty square (BB-4 captures only), a two-step by a pawn
 * that has moved (BB-4, BB-D1). NULL when the shape says nothing.
 */
static const char *shape_refusal(const struct ref_geo *g, const struct ref_geo_pos *p, int from,
                                 int to, char *detail)
{
  int type = REF_GEO_TYPE(p->board[from]);
  int dc = ref_geo_col(to) - ref_geo_col(from), dr = ref_geo_row(to) - ref_geo_row(from);
  int adc = abs(dc), adr = abs(dr), d, cur, steps;

  if(type == REF_GEO_KNIGHT && ((adc == 1 && adr == 2) || (adc == 2 && adr == 1))) {
    int k;
    for(k = 0; k < 8; k++)
      if(g->knight[from][k] == to)
        return NULL;
    ref_geo_square_name(from, detail);
    return "bb-knight-path";
  }
  if(!(dc == 0 || dr == 0 || adc == adr) || (dc == 0 && dr == 0))
    return NULL;
  for(d = 0; d < 8; d++) {
    static const int col[8] = {0, 1, 1, 1, 0, -1, -1, -1}, row[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    if(col[d] == (dc > 0) - (dc < 0) && row[d] == (dr > 0) - (dr < 0))
      break;
  }
  steps = adc > adr ? adc : adr;
  for(cur = from; steps > 0; steps--) {
    int next = cur + (to - from) / (adc > adr ? adc : adr);
    if(!g->exists[next]) {
      ref_geo_square_name(next, detail);
      return "bb-no-square";
    }
    if(g->step[cur][d] == REF_GEO_NONE)
      return "bb-barrier";
    cur = next;
  }
  if(type == REF_GEO_PAWN && adc == 1 && adr == 1 && p->board[to] == REF_GEO_EMPTY) {
    ref_geo_square_name(to, detail);
    return "not-a-capture";
  }
  if(type == REF_GEO_PAWN && (adc == 2 || adr == 2) && (dc == 0 || dr == 0) &&
     !ref_geo_is_virgin(p, from)) {
    ref_geo_square_name(from, detail);
    return "bb-pawn-moved";
  }
  return NULL;
}

/* Best-effort reading of unreadable text for suggestions. */
static void hint_pattern(const char *text, struct pattern *pt)
{
  const char *s;
  int last = -1, prev = -1;

  memset(pt, 0, sizeof(*pt));
  pt->piece = PIECE_ANY;
  pt->ff = pt->fr = pt->promo = -1;
  for(s = text; *s && s[1]; s++) {
    if(file_of(*s) >= 0 && rank_of(s[1]) >= 0) {
      prev = last;
      last = rank_of(s[1]) * REF_GEO_ROW + file_of(*s);
    }
  }
  pt->to = last;
  if(prev >= 0) {
    pt->ff = ref_geo_col(prev);
    pt->fr = ref_geo_row(prev);
  }
}

struct suggestion {
  int score;
  char text[REF_NOTATION_MAX];
};

static int cmp_suggestion(const void *a, const void *b)
{
  const struct suggestion *x = a, *y = b;
  if(x->score != y->score)
    return y->score - x->score;
  return strcmp(x->text, y->text);
}

/* err->suggest (§1.4): `only` exactly, else the legal moves sharing the
 * destination, origin or piece with what was read, or all when few. */
static void suggest(const struct ref_geo *g, const struct ref_geo_pos *p, const struct pattern *pt,
                    const uint32_t *only, int nonly, struct ref_err *err)
{
  struct suggestion *sg;
  uint32_t moves[REF_GEO_MAX_MOVES];
  int i, n, kept = 0;

  if(!err)
    return;
  if(only) {
    n = nonly;
    memcpy(moves, only, (size_t)n * sizeof(moves[0]));
  }
  else {
    n = ref_geo_gen_legal(g, p, moves);
  }
  sg = calloc((size_t)(n ? n : 1), sizeof(*sg));
  if(!sg)
    return;
  for(i = 0; i < n; i++) {
    int from = ref_geo_move_from(moves[i]), score = 0;
    if(pt && !only) {
      if(pt->castle && ref_geo_move_kind(moves[i]) == REF_GEO_MV_CASTLE)
        score += 4;
      if(ref_geo_move_to(moves[i]) == pt->to)
        score += 4;
      if((pt->ff >= 0 || pt->fr >= 0) && (pt->ff < 0 || ref_geo_col(from) == pt->ff) &&
         (pt->fr < 0 || ref_geo_row(from) == pt->fr))
        score += 2;
      if(pt->piece >= 0 && REF_GEO_TYPE(p->board[from]) == pt->piece)
        score += 1;
    }
    sg[i].score = score;
    long_algebraic(g, p, moves[i], sg[i].text);
  }
  qsort(sg, (size_t)n, sizeof(sg[0]), cmp_suggestion);
  for(i = 0; i < n && kept < REF_SUGGEST_MAX; i++) {
    if(!only && n > REF_SUGGEST_MAX && sg[i].score == 0 && sg[0].score > 0)
      break;
    memcpy(err->suggest[kept++], sg[i].text, sizeof(sg[i].text));
  }
  err->nsuggest = kept;
  free(sg);
}

static int parse_fail(const struct ref_geo *g, const struct ref_geo_pos *p, struct ref_err *err,
                      enum ref_code code, const char *reason, const char *detail,
                      const struct pattern *pt)
{
  ref_err_set(err, code, reason, detail);
  suggest(g, p, pt, NULL, 0, err);
  return code;
}

/* Why nothing legal matched (REF_EILLEGAL), most specific first. */
static int illegal_reason(const struct ref_geo *g, const struct ref_geo_pos *p,
                          const struct pattern *pats, int npat, const char *in, struct ref_err *err)
{
  uint32_t moves[REF_GEO_MAX_MOVES];
  char sq[4], detail[8];
  int i, k, n;

  for(k = 0; k < npat; k++)
    if(pats[k].castle)
      return parse_fail(g, p, err, REF_EILLEGAL, castle_refusal(g, p, pats[k].castle == 1), NULL,
                        &pats[k]);
  n = ref_geo_gen_pseudo(g, p, moves);
  for(i = 0; i < n; i++)
    for(k = 0; k < npat; k++)
      if(pattern_match(g, p, &pats[k], moves[i]) != MATCH_NONE)
        return parse_fail(g, p, err, REF_EILLEGAL, "king-in-check", NULL, &pats[k]);
  for(k = 0; k < npat; k++) {
    const struct pattern *pt = &pats[k];
    int from = pt->ff >= 0 && pt->fr >= 0 ? pt->fr * REF_GEO_ROW + pt->ff : -1;
    if(from >= 0) {
      ref_geo_square_name(from, sq);
      if(!g->exists[from] || ref_geo_col(from) >= g->cols)
        return parse_fail(g, p, err, REF_EILLEGAL, "bb-no-square", sq, pt);
      if(p->board[from] == REF_GEO_EMPTY)
        return parse_fail(g, p, err, REF_EILLEGAL, "no-piece-there", sq, pt);
      if(REF_GEO_COLOR(p->board[from]) != p->side)
        return parse_fail(g, p, err, REF_EILLEGAL, "not-your-piece", sq, pt);
    }
    if(!g->exists[pt->to]) {
      ref_geo_square_name(pt->to, sq);
      return parse_fail(g, p, err, REF_EILLEGAL, "bb-no-square", sq, pt);
    }
    if(from >= 0) {
      const char *why;
      detail[0] = '\0';
      why = shape_refusal(g, p, from, pt->to, detail);
      if(why)
        return parse_fail(g, p, err, REF_EILLEGAL, why, detail, pt);
    }
  }
  return parse_fail(g, p, err, REF_EILLEGAL, "no-such-move", in, &pats[0]);
}

/*
 * Reads one move of player input (§1, §8.4). OUT: out (REF_OK only). On
 * failure err has the reason key and suggestions: REF_EPARSE unreadable,
 * REF_EAMBIGUOUS, or REF_EILLEGAL with promotion-piece-missing,
 * not-a-capture, a castling refusal, king-in-check, bb-no-square,
 * no-piece-there, not-your-piece, bb-knight-path, bb-barrier,
 * bb-pawn-moved, no-such-move. REF_EPHASE when the game is over.
 */
static int bb_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  const struct bb_state *st = cstate_of(s);
  const struct ref_geo *g = &st->geo;
  const struct ref_geo_pos *p = &st->pos;
  struct pattern pats[PFX_COUNT], hint;
  uint32_t moves[REF_GEO_MAX_MOVES], found[REF_GEO_MAX_MOVES];
  uint32_t promo_missing = 0, not_capture = 0;
  char in[32], detail[96], sq[3];
  int npat = 0, nfound = 0, n, i, k, castle;
  bool caps = true;

  if(st->over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  if(!text || !clean_input(text, in, sizeof(in))) {
    hint_pattern(text ? text : "", &hint);
    return parse_fail(g, p, err, REF_EPARSE, "unreadable", NULL, &hint);
  }
  castle = castle_kind(in);
  if(castle) {
    memset(&pats[0], 0, sizeof(pats[0]));
    pats[0].castle = castle;
    pats[0].piece = REF_GEO_KING;
    pats[0].ff = pats[0].fr = pats[0].to = pats[0].promo = -1;
    npat = 1;
  }
  else {
    for(i = 0; in[i]; i++)
      if(in[i] >= 'a' && in[i] <= 'z')
        caps = false;
    for(k = 0; k < PFX_COUNT; k++) {
      /* BB-D5: n is a file here, so "Kn4-m5" is the king; Kn/Kt name the
       * knight only where the text is no king move ("Kng3-e4", "Ktg3"). */
      if(k == PFX_KNIGHT2 && npat && pats[npat - 1].piece == REF_GEO_KING)
        continue;
      if(parse_reading(in, (enum prefix)k, caps, &pats[npat]))
        npat++;
    }
  }
  if(!npat) {
    hint_pattern(in, &hint);
    return parse_fail(g, p, err, REF_EPARSE, "unreadable", in, &hint);
  }

  n = ref_geo_gen_legal(g, p, moves);
  for(i = 0; i < n; i++) {
    bool full = false;
    for(k = 0; k < npat; k++) {
      enum match m = pattern_match(g, p, &pats[k], moves[i]);
      if(m == MATCH_FULL)
        full = true;
      else if(m == MATCH_PROMO_MISSING && !promo_missing)
        promo_missing = moves[i];
      else if(m == MATCH_NOT_CAPTURE && !not_capture)
        not_capture = moves[i];
    }
    if(full)
      found[nfound++] = moves[i];
  }
  if(nfound == 1) {
    memset(out, 0, sizeof(*out));
    out->w[0] = found[0];
    return REF_OK;
  }
  if(nfound > 1) {
    size_t len = 0;
    char one[REF_NOTATION_MAX];
    detail[0] = '\0';
    for(i = 0; i < nfound; i++) {
      long_algebraic(g, p, found[i], one);
      if(len + strlen(one) + 3 < sizeof(detail))
        len += (size_t)snprintf(detail + len, sizeof(detail) - len, "%s%s", i ? ", " : "", one);
    }
    ref_err_set(err, REF_EAMBIGUOUS, "ambiguous", detail);
    suggest(g, p, NULL, found, nfound, err);
    return REF_EAMBIGUOUS;
  }
  if(promo_missing) {
    /* No default queen (§2.4): name the move without its piece. */
    ref_geo_square_name(ref_geo_move_from(promo_missing), sq);
    snprintf(detail, sizeof(detail), "%s-", sq);
    ref_geo_square_name(ref_geo_move_to(promo_missing), sq);
    snprintf(detail + strlen(detail), sizeof(detail) - strlen(detail), "%s", sq);
    if(p->board[ref_geo_move_to(promo_missing)] != REF_GEO_EMPTY)
      detail[2] = 'x';
    return parse_fail(g, p, err, REF_EILLEGAL, "promotion-piece-missing", detail, &pats[0]);
  }
  if(not_capture) {
    ref_geo_square_name(ref_geo_move_to(not_capture), sq);
    return parse_fail(g, p, err, REF_EILLEGAL, "not-a-capture", sq, &pats[0]);
  }
  return illegal_reason(g, p, pats, npat, in, err);
}

/* ------------------------------------------------------------------------ */
/* The ASCII board */

/*
 * The board from `seat`'s side: White from row 1 up, files a-n; Black
 * turned round. Three columns a cell, '.' an empty square, '#' a cell that
 * is not a square (BB-1), a row of '=' between the rows the barrier
 * separates, under its files (BB-2); the last move in brackets. 47 columns.
 */
static int bb_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct bb_state *st = cstate_of(s);
  const struct ref_geo *g = &st->geo;
  const struct ref_geo_spec *spec = specs[st->board_kind];
  char out[2048];
  size_t k = 0;
  int line, i, w;
  bool flip = seat == 1;

  for(i = 0; i < 2; i++) {
    if(i == 1) {
      for(line = 0; line < g->rows; line++) {
        int row = flip ? line : g->rows - 1 - line, col;
        k += (size_t)snprintf(out + k, sizeof(out) - k, " %d ", row + 1);
        for(col = 0; col < g->cols; col++) {
          int file = flip ? g->cols - 1 - col : col, cell = row * REF_GEO_ROW + file;
          int code = st->pos.board[cell];
          bool mark = cell == st->last_from || cell == st->last_to;
          char c = '.';
          if(!g->exists[cell])
            c = '#';
          else if(code != REF_GEO_EMPTY) {
            c = "PNBRQK"[REF_GEO_TYPE(code)];
            if(REF_GEO_COLOR(code) == REF_GEO_BLACK)
              c = (char)(c - 'A' + 'a');
          }
          out[k++] = mark ? '[' : ' ';
          out[k++] = c;
          out[k++] = mark ? ']' : ' ';
        }
        k += (size_t)snprintf(out + k, sizeof(out) - k, " %d\n", row + 1);
        /* BB-2: the barrier under the row above it (from this side). */
        for(w = 0; w < spec->nwalls; w++) {
          int next = flip ? row + 1 : row - 1, lo = spec->walls[w].col_lo, hi = spec->walls[w].col_hi;
          int from_col, c;
          if(line == g->rows - 1 || (flip ? row : next) != spec->walls[w].row)
            continue;
          from_col = flip ? g->cols - 1 - hi : lo;
          for(c = 0; c < 3 + 3 * from_col; c++)
            out[k++] = ' ';
          for(c = 0; c < 3 * (hi - lo + 1); c++)
            out[k++] = '=';
          out[k++] = '\n';
        }
      }
    }
    out[k++] = ' ';
    out[k++] = ' ';
    out[k++] = ' ';
    for(line = 0; line < g->cols; line++) {
      out[k++] = ' ';
      out[k++] = (char)('a' + (flip ? g->cols - 1 - line : line));
      if(line < g->cols - 1)
        out[k++] = ' ';
    }
    out[k++] = '\n';
  }
  out[k] = '\0';
  if(k + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
}

/* The board as data (issue 17): 14 files a-n, the cells that are no
 * squares as holes (BB-1), the barrier between rows 4 and 5 under its
 * files (BB-2), the last move marked; Black (seat 1) turned round. */
static int bb_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct bb_state *st = cstate_of(s);
  const struct ref_geo *g = &st->geo;
  const struct ref_geo_spec *spec = specs[st->board_kind];
  int row, file;
  ref_diag_grid(d, g->cols, g->rows, seat == 1);
  if(spec->nwalls > 0) {
    d->barrier = spec->walls[0].row + 1;
    d->barrier_lo = spec->walls[0].col_lo;
    d->barrier_hi = spec->walls[0].col_hi;
  }
  for(row = 0; row < g->rows && row < REF_DIAG_RANKS; row++)
    for(file = 0; file < g->cols && file < REF_DIAG_FILES; file++) {
      int cell = row * REF_GEO_ROW + file, code = st->pos.board[cell];
      struct ref_diag_cell *c = &d->cell[row][file];
      c->exists = g->exists[cell];
      if(c->exists && code != REF_GEO_EMPTY)
        ref_diag_put(&c->s, ref_diag_kind("PNBRQK"[REF_GEO_TYPE(code)]),
                     REF_GEO_COLOR(code) == REF_GEO_BLACK);
      c->s.mark = (uint8_t)((cell == st->last_from ? REF_DIAG_FROM : 0) |
                            (cell == st->last_to ? REF_DIAG_TO : 0));
    }
  return REF_OK;
}

/* ------------------------------------------------------------------------ */

static const struct ref_game_ops bb_ops = {
  bb_init,   /* init */
  bb_decode, /* decode */
  bb_encode, /* encode */
  bb_legal,  /* legal */
  bb_parse,  /* parse */
  bb_format, /* format */
  bb_apply,  /* apply */
  NULL,      /* roll: diceless */
  bb_act,    /* act */
  bb_status, /* status */
  bb_render, /* render */
  bb_perft,  /* perft */
  bb_ok,     /* ok */
  bb_diagram, /* diagram */
};

const struct ref_game_desc ref_game_backtoback = {
  "backtoback",              /* name */
  "Back-to-Back Chess",      /* title */
  1,                         /* version: bump when any ruling changes */
  2,                         /* seats */
  {"White", "Black"},        /* seat_names */
  REF_GAME_DRAWS,            /* flags */
  sizeof(struct bb_state),   /* state_size */
  &bb_ops,                   /* ops */
};
