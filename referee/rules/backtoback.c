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
#include "chess_notation_int.h"
#include "diagram_int.h"
#include "game_end_int.h"
#include "game_text_int.h"
#include "rules.h"

#include <assert.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

#define BB_MAGIC 0x42423232u /* "BB22": bump when the layout changes */

struct bb_state {
  uint32_t magic;
  uint8_t board_kind; /* BB_PINWHEEL or BB_CORNERS (BB-1) */
  uint8_t fide_draws; /* CH-2 block on (1) or off (0) */
  uint8_t last_from, last_to; /* the last move, for render; REF_GEO_NONE if none */
  struct ref_geo_pos pos;
  struct ref_ge e; /* the result and the repetition keys since the last capture or pawn move */
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
 * stalemate, then the automatic FIDE draws; mate first (FIDE 9.6.2). */
static void settle(struct bb_state *st)
{
  const struct ref_geo_pos *p = &st->pos;
  bool has_moves = ref_geo_gen_legal(&st->geo, p, NULL) != 0;

  ref_ge_fide(&st->e, st->fide_draws, has_moves, !has_moves && ref_geo_in_check(&st->geo, p),
              has_moves && st->fide_draws && dead_position(p), p->halfmove, p->side ^ 1);
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
  ref_ge_start(&st->e, ref_geo_key(&pos));
  settle(st);
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* Options */

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

/*
 * Options (rules.h, game_text.c): b2b_board=pinwheel|corners (BB-1, alias
 * geometry=, BB-D2), fide_draws=on|off (CH-2, default on), fen=POSITION
 * (its holes must fit the board asked for; without b2b_board they choose
 * it; BB-D2: "_" stands for a space, a mail's "new" line splits at
 * spaces). Keys and words in any case; unknown keys, and keys given
 * twice, are REF_EINVAL; on failure the state is left as it was.
 */
static int bb_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct ref_opt o;
  const char *b = options, *reason = NULL;
  char fen[256], key[32];
  int fide_draws = 1, board = BB_PINWHEEL, rc;
  bool seen_fide = false, seen_board = false, seen_fen = false;
  size_t i;

  while(ref_opt_next(&b, &o)) {
    ref_opt_key(&o, key, sizeof(key));
    if(o.kb == o.ke && !o.has_value)
      continue;
    if(ref_opt_is_ci(o.kb, o.ke, "fide_draws")) {
      /* CH-2: on or off, once */
      int on = ref_opt_is_ci(o.vb, o.ve, "on") ? 1 : ref_opt_is_ci(o.vb, o.ve, "off") ? 0 : -1;
      if(on < 0 || !o.has_value || seen_fide)
        goto bad;
      seen_fide = true;
      fide_draws = on;
    }
    else if(ref_opt_is_ci(o.kb, o.ke, "b2b_board") || ref_opt_is_ci(o.kb, o.ke, "geometry")) {
      if(!o.has_value || seen_board)
        goto bad;
      if(ref_opt_is_ci(o.vb, o.ve, "pinwheel"))
        board = BB_PINWHEEL;
      else if(ref_opt_is_ci(o.vb, o.ve, "corners") || ref_opt_is_ci(o.vb, o.ve, "corner"))
        board = BB_CORNERS;
      else
        goto bad;
      seen_board = true;
    }
    else if(ref_opt_is_ci(o.kb, o.ke, "fen")) {
      if(!o.has_value || seen_fen || (size_t)(o.ve - o.vb) >= sizeof(fen))
        goto bad;
      seen_fen = true;
      for(i = 0; i < (size_t)(o.ve - o.vb); i++)
        fen[i] = o.vb[i] == '_' ? ' ' : o.vb[i];
      fen[i] = '\0';
    }
    else {
      ref_err_set(err, REF_EINVAL, "bb-unknown-option", key);
      return REF_EINVAL;
    }
  }
  if(!seen_fen)
    snprintf(fen, sizeof(fen), "%s", specs[board]->start_fen);
  rc = start_from(state_of(s), seen_fen && !seen_board ? -1 : board, fide_draws, fen, &reason);
  if(rc != REF_OK)
    ref_err_set(err, rc, reason, NULL);
  return rc;
bad:
  ref_err_set(err, REF_EINVAL, "bb-bad-option", key);
  return REF_EINVAL;
}

static int bb_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct bb_state *st = cstate_of(s);
  return ref_geo_fen_write(&st->geo, &st->pos, buf, cap);
}

/* ------------------------------------------------------------------------ */
/* Moves through the interface */

/* None once the game is over (G-1). */
static int bb_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct bb_state *st = cstate_of(s);
  uint32_t moves[REF_GEO_MAX_MOVES];
  int n = ref_geo_gen_legal(&st->geo, &st->pos, moves);

  return ref_ge_moves(&st->e, moves, n, 0, out);
}

/* The move inside m if it is legal in st, else 0 (no move encodes as 0). */
static uint32_t legal_move_of(const struct bb_state *st, const struct ref_move *m)
{
  uint32_t moves[REF_GEO_MAX_MOVES];
  return ref_ge_find(moves, ref_geo_gen_legal(&st->geo, &st->pos, moves), m);
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

  if(st->e.over)
    return REF_EPHASE;
  mv = legal_move_of(st, m);
  if(!mv)
    return REF_EILLEGAL;
  ref_geo_make(&st->geo, &st->pos, mv);
  st->last_from = (uint8_t)ref_geo_move_from(mv);
  st->last_to = (uint8_t)ref_geo_move_to(mv);
  ref_ge_push(&st->e, ref_geo_key(&st->pos), st->pos.halfmove == 0);
  settle(st);
  assert(bb_ok(s)); /* the checker after every apply in debug builds */
  return REF_OK;
}

static void bb_status(const struct ref_state *s, struct ref_status *out)
{
  const struct bb_state *st = cstate_of(s);
  ref_ge_status(&st->e, st->pos.side, (int)st->pos.fullmove, ref_geo_in_check(&st->geo, &st->pos),
                ref_ge_fide_claim(&st->e, st->fide_draws, st->pos.halfmove) != REF_END_NONE, out);
}

/* Resignation, agreed draw and draw claims (CH-2), as chess.c: threefold
 * and fifty moves only on claim, by either player. */
static int bb_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct bb_state *st = state_of(s);
  int rc = ref_ge_act(&st->e, seat, action,
                      ref_ge_fide_claim(&st->e, st->fide_draws, st->pos.halfmove),
                      st->fide_draws ? "draw-not-claimable" : "draw-rules-off", err);

  (void)arg;
  assert(rc || bb_ok(s));
  return rc;
}

/* The move generator's count (G-1), as in chess.c. */
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
  struct bb_state *again;
  bool ok;

  if(st->magic != BB_MAGIC || st->board_kind >= BB_NBOARDS || st->fide_draws > 1)
    return false;
  if(!tables_match(st))
    return false;
  if(!ref_geo_pos_ok(&st->geo, &st->pos))
    return false;
  if(!ref_ge_hist_ok(&st->e, ref_geo_key(&st->pos)) || st->e.nhist > st->pos.halfmove + 1)
    return false;
  if((st->last_from == REF_GEO_NONE) != (st->last_to == REF_GEO_NONE))
    return false;
  if(st->last_to != REF_GEO_NONE &&
     (st->last_to >= REF_GEO_CELLS || st->pos.board[st->last_to] == REF_GEO_EMPTY ||
      REF_GEO_COLOR(st->pos.board[st->last_to]) != (st->pos.side ^ 1)))
    return false;
  /* The result the position says, on a copy (the state is large). */
  again = malloc(sizeof(*again));
  if(!again)
    return false;
  memcpy(again, st, sizeof(*again));
  settle(again);
  ok = ref_ge_ok(&st->e, &again->e, st->fide_draws && ref_ge_repetitions(&st->e) >= 3,
                 st->fide_draws && st->pos.halfmove >= 100);
  free(again);
  return ok;
}

/* ------------------------------------------------------------------------ */
/* Reading a move (§1.1-1.4, §8.4): chess_notation.c reads and matches
 * (files run a-n here, so a capital K, N or B of an all-capitals move may
 * be a file); here are the legal moves as it sees them and the rules'
 * reasons for a readable move that matches none. */

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

/* Move m as notation sees it. */
static void describe(const void *ctx, uint32_t m, struct ref_cn_move *d)
{
  const struct bb_state *st = ctx;
  const struct ref_geo *g = &st->geo;
  const struct ref_geo_pos *p = &st->pos;
  int from = ref_geo_move_from(m), to = ref_geo_move_to(m), kind = ref_geo_move_kind(m), k;
  const struct ref_geo_castle *c = ref_geo_castle_of(g, m);

  memset(d, 0, sizeof(*d));
  d->kind = c ? REF_CN_CASTLE : REF_CN_NORMAL;
  d->piece = (int8_t)REF_GEO_TYPE(p->board[from]);
  d->ff = (int8_t)ref_geo_col(from);
  d->fr = (int8_t)(ref_geo_row(from) + 1);
  d->tf = (int8_t)ref_geo_col(to);
  d->tr = (int8_t)(ref_geo_row(to) + 1);
  d->promo = (int8_t)(kind == REF_GEO_MV_PROMO ? ref_geo_move_promo(m) : -1);
  d->capture = p->board[to] != REF_GEO_EMPTY || kind == REF_GEO_MV_EP;
  if(c) {
    d->castle = c->letter == 'K' || c->letter == 'k' ? 1 : 2;
    /* BB-D4: the king's squares name castling too (seed 003 writes H1-H3),
     * unless they are also a king's step (O-O-O's H1-G2 is the step). */
    d->by_squares = 1;
    for(k = 0; k < 8; k++)
      if(g->step[from][k] == to)
        d->by_squares = 0;
  }
}

static void long_of(const void *ctx, uint32_t m, char *buf, size_t cap)
{
  const struct bb_state *st = ctx;
  char text[REF_NOTATION_MAX];
  long_algebraic(&st->geo, &st->pos, m, text);
  snprintf(buf, cap, "%s", text);
}

/* Why nothing legal matched (REF_EILLEGAL), most specific first. */
static int explain(const struct ref_cn_game *cg, const struct ref_cn_pattern *pats, int npat,
                   const char *in, struct ref_err *err)
{
  const struct bb_state *st = cg->ctx;
  const struct ref_geo *g = &st->geo;
  const struct ref_geo_pos *p = &st->pos;
  uint32_t moves[REF_GEO_MAX_MOVES];
  struct ref_cn_move d;
  char sq[4], detail[8];
  int i, k, n;

  for(k = 0; k < npat; k++)
    if(pats[k].castle)
      return ref_cn_refuse(cg, REF_EILLEGAL, castle_refusal(g, p, pats[k].castle == 1), NULL,
                           &pats[k], err);
  n = ref_geo_gen_pseudo(g, p, moves);
  for(i = 0; i < n; i++) {
    describe(st, moves[i], &d);
    for(k = 0; k < npat; k++)
      if(ref_cn_fits(&pats[k], &d, false))
        return ref_cn_refuse(cg, REF_EILLEGAL, "king-in-check", NULL, &pats[k], err);
  }
  for(k = 0; k < npat; k++) {
    const struct ref_cn_pattern *pt = &pats[k];
    int from = pt->ff >= 0 && pt->fr > 0 ? (pt->fr - 1) * REF_GEO_ROW + pt->ff : -1;
    int to = (pt->tr - 1) * REF_GEO_ROW + pt->tf;
    if(from >= 0) {
      ref_geo_square_name(from, sq);
      if(!g->exists[from] || ref_geo_col(from) >= g->cols)
        return ref_cn_refuse(cg, REF_EILLEGAL, "bb-no-square", sq, pt, err);
      if(p->board[from] == REF_GEO_EMPTY)
        return ref_cn_refuse(cg, REF_EILLEGAL, "no-piece-there", sq, pt, err);
      if(REF_GEO_COLOR(p->board[from]) != p->side)
        return ref_cn_refuse(cg, REF_EILLEGAL, "not-your-piece", sq, pt, err);
    }
    if(!g->exists[to]) {
      ref_geo_square_name(to, sq);
      return ref_cn_refuse(cg, REF_EILLEGAL, "bb-no-square", sq, pt, err);
    }
    if(from >= 0) {
      const char *why;
      detail[0] = '\0';
      why = shape_refusal(g, p, from, to, detail);
      if(why)
        return ref_cn_refuse(cg, REF_EILLEGAL, why, detail, pt, err);
    }
  }
  return ref_cn_refuse(cg, REF_EILLEGAL, "no-such-move", in, &pats[0], err);
}

/* Files a-n, rows 1-8, long algebraic (§8.4). */
static const struct ref_cn_dialect bb_dialect = {REF_GEO_MAX_COLS, 8, false, true, false, NULL, 0};
static const struct ref_cn_rules bb_reader = {&bb_dialect, describe, long_of, explain};

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
  uint32_t moves[REF_GEO_MAX_MOVES];
  int n = ref_geo_gen_legal(&st->geo, &st->pos, moves);

  return ref_cn_parse(&bb_reader, st, st->e.over, moves, n, text, out, err);
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
  return ref_text_copy(out, k, buf, cap);
}

/* The board as data: 14 files a-n, the cells that are no
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

/* Two seats, White first; draws as in chess (CH-2). */
const struct ref_game_desc ref_game_backtoback = {
  "backtoback", "Back-to-Back Chess", 1 /* version: bump when any ruling changes */, 2,
  {"White", "Black"}, REF_GAME_DRAWS, sizeof(struct bb_state), &bb_ops};
