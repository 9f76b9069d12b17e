/*
 * checkers.c: English checkers (the WCDF game, "straight checkers") for the
 * rules core, on the man/king move generator of checkers_board.c.
 *
 * Rules: docs/rules-spec.md section 3 (CK-1, CK-2) and the referee
 * conventions of section 1. Black moves first (CK-1); men move and capture
 * forward only, kings one square in any diagonal direction; captures are
 * compulsory but any capture path may be chosen; a jumping piece must go on
 * while it can; a man reaching the crown row is crowned and the move ends;
 * the side to move with no legal move loses. Draws (CK-2): by agreement, and
 * on the third occurrence of a position (same side to move) or after 40
 * moves by each side with no man moved and no capture, both applied
 * automatically unless the option auto_draws=off turns them into claims.
 *
 * Notation (section 3.4): canonical 11-15, 15x24, 15x24x31 (every landing
 * square); read tolerantly: 15-24 for a single jump, 15x31 when only one
 * path joins those squares, any subsequence of the landings that picks one
 * path, algebraic c3-d4 / c3xe5 / c3d4, separators - x : *, move numbers
 * and annotation glyphs (section 1.1). The computer notation is what the
 * rapid-draughts oracle wrapper prints (shared oracles.md 3.2): 9-14, and
 * for a capture "origin x final [captured squares ascending]".
 * Positions: PDN FEN, "B:W21-32:B1-12" (side to move, White's list,
 * Black's list; K marks a king; ranges are read and written).
 *
 * The move generator (ref_ck_*, checkers_board.c) knows nothing of
 * checkers' sides, crown rows or compulsory capture: it works on any cell
 * table with any direction set, which is what Backgammon Chess's wrapping
 * stones need. The game ops here are a thin layer that turn a position
 * into the generator's masks.
 */
#include "checkers_int.h"
#include "diagram_int.h"
#include "rules.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* English checkers                                                    */
/* ------------------------------------------------------------------ */

#define CK_BLACK 0 /* seat 0, moves first (CK-1), men on 1-12 going toward 32 */
#define CK_WHITE 1 /* seat 1, men on 21-32 going toward 1 */
#define CK_SQUARES 32
#define CK_PIECES_MAX 12
/* CK-2: 40 moves by each side with no man moved and no capture. */
#define CK_QUIET_LIMIT 80
#define CK_REPEAT_LIMIT 3

/* The crown row of each side (where its men become kings): Black's men
 * crown on 29-32, White's on 1-4. */
static const uint32_t ck_crown[2] = {0xF0000000u, 0x0000000Fu};
/* The directions of each side's men: toward the crown row. */
static const unsigned ck_men_dirs[2] = {REF_CK_SOUTH, REF_CK_NORTH};

/* The board alone: what perft recurses on. Bit i is square i + 1. */
struct ck_pos {
  uint32_t men[2];
  uint32_t kings[2];
  int turn;
};

/*
 * The game state (plain old data, rules.h). keys[] holds one entry per
 * position since the last irreversible move (a man move or a capture,
 * CK-2): keys[0] is the position right after it (or the set-up), keys[i]
 * the one i plies later. In that window no man moves and nothing is taken,
 * so the kings alone tell the positions apart, and the side to move follows
 * from i's parity: the key is the two kings masks, exact, not a hash.
 * After CK_QUIET_LIMIT quiet plies the forty-move draw is due (or, under
 * auto_draws=off, claimable for good), so the window never needs more.
 */
struct ck_state {
  uint32_t men[2];
  uint32_t kings[2];
  uint8_t turn;        /* CK_BLACK or CK_WHITE */
  uint8_t over;        /* the game has ended */
  int8_t winner;       /* with over: seat, or -1 for a draw */
  uint8_t end;         /* with over: enum ref_end */
  uint8_t claim_draws; /* auto_draws=off: CK-2 draws are claimed, not applied */
  uint8_t has_last;
  uint16_t quiet;   /* plies since the last man move or capture */
  uint16_t nkeys;   /* entries of keys[]: min(quiet, CK_QUIET_LIMIT) + 1 */
  uint32_t ply;     /* half-moves since a Black-to-move start: move number = 1 + ply / 2 */
  struct ref_move last;
  uint64_t keys[CK_QUIET_LIMIT + 1];
};

static uint64_t ck_key(const struct ck_state *s)
{
  return (uint64_t)s->kings[CK_BLACK] | (uint64_t)s->kings[CK_WHITE] << 32;
}

static uint32_t ck_side(const struct ck_pos *p, int side)
{
  return p->men[side] | p->kings[side];
}

static void ck_pos_of(struct ck_pos *p, const struct ck_state *s)
{
  p->men[0] = s->men[0];
  p->men[1] = s->men[1];
  p->kings[0] = s->kings[0];
  p->kings[1] = s->kings[1];
  p->turn = s->turn;
}

static int ck_lowest(uint32_t m)
{
  return __builtin_ctz(m);
}

static int ck_count(uint32_t m)
{
  return __builtin_popcount(m);
}

/*
 * Emits every legal move of the side to move of p, in square order: its
 * captures when it has any (captures are compulsory, rules-spec 3.2), else
 * its steps. Returns 0 or the first non-zero value of emit.
 */
static int ck_generate(const struct ck_pos *p, ref_ck_emit_fn emit, void *ctx)
{
  struct ref_ck_board b;
  int side = p->turn, rc = 0;
  uint32_t own = ck_side(p, side), left;
  bool capture = false;

  b.geom = &ref_ck_geom_draughts;
  b.occupied = own | ck_side(p, !side);
  b.enemy = ck_side(p, !side);
  for(left = own; left && !capture; left &= left - 1) {
    int c = ck_lowest(left);
    unsigned dirs = (p->kings[side] >> c & 1) ? REF_CK_ALL : ck_men_dirs[side];
    capture = ref_ck_can_jump(&b, c, dirs);
  }
  for(left = own; left && !rc; left &= left - 1) {
    int c = ck_lowest(left);
    bool king = p->kings[side] >> c & 1;
    unsigned dirs = king ? REF_CK_ALL : ck_men_dirs[side];
    if(capture)
      rc = ref_ck_jumps(&b, c, dirs, king ? 0 : ck_crown[side], emit, ctx);
    else
      rc = ref_ck_steps(&b, c, dirs, emit, ctx);
  }
  return rc;
}

/* Plays a path generated for p. Captured pieces go at the end of the move;
 * a man ending on its crown row is crowned. */
static void ck_pos_play(struct ck_pos *p, const struct ref_ck_path *path)
{
  int side = p->turn;
  uint32_t from = 1u << path->from, to = 1u << path->to[path->nhops - 1];
  uint32_t taken = (uint32_t)path->captured;
  bool king = p->kings[side] & from;

  p->men[side] &= ~from;
  p->kings[side] &= ~from;
  p->men[!side] &= ~taken;
  p->kings[!side] &= ~taken;
  if(king || (to & ck_crown[side]))
    p->kings[side] |= to;
  else
    p->men[side] |= to;
  p->turn = !side;
}

static int ck_stop_at_first(void *ctx, const struct ref_ck_path *path)
{
  (void)ctx;
  (void)path;
  return 1;
}

static bool ck_has_move(const struct ck_pos *p)
{
  return ck_generate(p, ck_stop_at_first, NULL) != 0;
}

/* ---- moves in struct ref_move ----
 * w[0]: from | nhops << 8 | capture << 16; w[1..4]: to[] bytes, w[5..8]:
 * over[] bytes, w[9]: captured mask. A move names its whole path. */

static void ck_pack(struct ref_move *m, const struct ref_ck_path *p)
{
  int i;
  memset(m, 0, sizeof(*m));
  m->w[0] = (uint32_t)p->from | (uint32_t)p->nhops << 8 | (uint32_t)(p->capture ? 1 : 0) << 16;
  for(i = 0; i < p->nhops; i++) {
    m->w[1 + i / 4] |= (uint32_t)p->to[i] << (8 * (i % 4));
    m->w[5 + i / 4] |= (uint32_t)p->over[i] << (8 * (i % 4));
  }
  m->w[9] = (uint32_t)p->captured;
}

/* Whether m is shaped like a move of this game: squares on the board, a
 * hop count the path can hold. */
static bool ck_move_sane(const struct ref_move *m)
{
  unsigned from = m->w[0] & 0xff, nhops = m->w[0] >> 8 & 0xff, i;

  if(from >= CK_SQUARES || nhops < 1 || nhops > REF_CK_HOPS_MAX)
    return false;
  for(i = 0; i < nhops; i++)
    if((m->w[1 + i / 4] >> (8 * (i % 4)) & 0xff) >= CK_SQUARES ||
       (m->w[5 + i / 4] >> (8 * (i % 4)) & 0xff) >= CK_SQUARES)
      return false;
  return true;
}

/* Unpacks m into p. Returns false (and asserts) when m is no move of this
 * game at all: a caller bug, but one that must not write past p->to or
 * shift past 32 bits in a build without asserts. */
static bool ck_unpack(struct ref_ck_path *p, const struct ref_move *m)
{
  int i;

  memset(p, 0, sizeof(*p));
  if(!ck_move_sane(m)) {
    assert(!"not a checkers move");
    p->nhops = 1;
    return false;
  }
  p->from = (uint8_t)(m->w[0] & 0xff);
  p->nhops = (uint8_t)(m->w[0] >> 8 & 0xff);
  p->capture = (m->w[0] >> 16 & 1) != 0;
  for(i = 0; i < p->nhops; i++) {
    p->to[i] = (uint8_t)(m->w[1 + i / 4] >> (8 * (i % 4)));
    p->over[i] = (uint8_t)(m->w[5 + i / 4] >> (8 * (i % 4)));
  }
  p->captured = m->w[9];
  return true;
}

struct ck_push {
  struct ref_movelist *out;
};

static int ck_emit_push(void *ctx, const struct ref_ck_path *path)
{
  struct ck_push *c = ctx;
  struct ref_move m;
  ck_pack(&m, path);
  return ref_movelist_push(c->out, &m);
}

/* ---- state bookkeeping ---- */

static int ck_repeats(const struct ck_state *s)
{
  int i = s->nkeys - 1, j, n = 0;
  for(j = i; j >= 0; j -= 2)
    if(s->keys[j] == s->keys[i])
      n++;
  return n;
}

/* Which CK-2 draw the position stands in, REF_END_NONE if none. */
static enum ref_end ck_draw_due(const struct ck_state *s)
{
  if(s->quiet <= CK_QUIET_LIMIT && ck_repeats(s) >= CK_REPEAT_LIMIT)
    return REF_END_REPETITION;
  if(s->quiet >= CK_QUIET_LIMIT)
    return REF_END_FORTY_MOVES;
  return REF_END_NONE;
}

static void ck_finish(struct ck_state *s, int winner, enum ref_end end)
{
  s->over = 1;
  s->winner = (int8_t)winner;
  s->end = (uint8_t)end;
}

/* Decides whether the game ended with the position just reached. The side
 * to move without a move loses (rules-spec 3.3); that comes before the
 * draws, since a lost position is no draw. */
static void ck_settle(struct ck_state *s)
{
  struct ck_pos p;
  enum ref_end draw;

  ck_pos_of(&p, s);
  if(!ck_has_move(&p)) {
    ck_finish(s, !s->turn, REF_END_NO_MOVES);
    return;
  }
  draw = ck_draw_due(s);
  if(!s->claim_draws && draw != REF_END_NONE)
    ck_finish(s, -1, draw);
}

static void ck_reset(struct ck_state *s)
{
  memset(s, 0, sizeof(*s));
  s->winner = -1;
}

/* Starts the repetition window at the current position (set-up). */
static void ck_window_start(struct ck_state *s)
{
  s->quiet = 0;
  s->nkeys = 1;
  s->keys[0] = ck_key(s);
}

/* ---- squares and text ---- */

/* The cell of file x (0 = a), rank y (0 = rank 1), or -1 on a light square. */
static int ck_cell_at(int x, int y)
{
  if(x < 0 || x > 7 || y < 0 || y > 7 || (x + y) % 2)
    return -1;
  return (7 - y) * 4 + x / 2;
}

/* Appends text to buf at *len, keeping it NUL-terminated; false when full. */
static bool ck_put(char *buf, size_t cap, size_t *len, const char *text)
{
  size_t n = strlen(text);
  if(*len + n + 1 > cap)
    return false;
  memcpy(buf + *len, text, n + 1);
  *len += n;
  return true;
}

static int ck_format_path(const struct ref_ck_path *p, enum ref_notation style, char *buf,
                          size_t cap)
{
  char num[24];
  size_t len = 0;
  int i;

  if(!cap)
    return REF_EINVAL;
  buf[0] = '\0';
  snprintf(num, sizeof(num), "%d", p->from + 1);
  if(!ck_put(buf, cap, &len, num))
    return REF_EINVAL;
  if(!p->capture) {
    snprintf(num, sizeof(num), "-%d", p->to[0] + 1);
    return ck_put(buf, cap, &len, num) ? REF_OK : REF_EINVAL;
  }
  if(style == REF_NOTATION_COMPUTER) {
    /* rapid-draughts keeps no path: origin, final square, captured set. */
    uint32_t left = (uint32_t)p->captured;
    snprintf(num, sizeof(num), "x%d [", p->to[p->nhops - 1] + 1);
    if(!ck_put(buf, cap, &len, num))
      return REF_EINVAL;
    for(; left; left &= left - 1) {
      snprintf(num, sizeof(num), "%d%s", ck_lowest(left) + 1, (left & (left - 1)) ? "," : "]");
      if(!ck_put(buf, cap, &len, num))
        return REF_EINVAL;
    }
    return REF_OK;
  }
  for(i = 0; i < p->nhops; i++) {
    snprintf(num, sizeof(num), "x%d", p->to[i] + 1);
    if(!ck_put(buf, cap, &len, num))
      return REF_EINVAL;
  }
  return REF_OK;
}

/* ---- PDN FEN ---- */

/* Writes one side's list: ascending squares, runs of three or more squares
 * of the same kind as ranges ("21-32", "K1-3"). */
static bool ck_put_list(char *buf, size_t cap, size_t *len, uint32_t men, uint32_t kings)
{
  char item[16];
  int sq = 0;
  bool first = true;

  while(sq < CK_SQUARES) {
    uint32_t kind;
    int end;
    if(!((men | kings) >> sq & 1)) {
      sq++;
      continue;
    }
    kind = (men >> sq & 1) ? men : kings;
    for(end = sq; end + 1 < CK_SQUARES && (kind >> (end + 1) & 1); end++)
      ;
    if(end - sq < 2)
      end = sq;
    if(end > sq)
      snprintf(item, sizeof(item), "%s%s%d-%d", first ? "" : ",", kind == kings ? "K" : "",
               sq + 1, end + 1);
    else
      snprintf(item, sizeof(item), "%s%s%d", first ? "" : ",", kind == kings ? "K" : "", sq + 1);
    if(!ck_put(buf, cap, len, item))
      return false;
    first = false;
    sq = end + 1;
  }
  return true;
}

static int ck_encode_board(const struct ck_state *s, char *buf, size_t cap)
{
  size_t len = 0;

  if(!cap)
    return REF_EINVAL;
  buf[0] = '\0';
  if(!ck_put(buf, cap, &len, s->turn == CK_BLACK ? "B:W" : "W:W") ||
     !ck_put_list(buf, cap, &len, s->men[CK_WHITE], s->kings[CK_WHITE]) ||
     !ck_put(buf, cap, &len, ":B") ||
     !ck_put_list(buf, cap, &len, s->men[CK_BLACK], s->kings[CK_BLACK]))
    return REF_EINVAL;
  return REF_OK;
}

static int ck_encode(const struct ref_state *st, char *buf, size_t cap)
{
  return ck_encode_board((const struct ck_state *)st, buf, cap);
}

static int ck_bad_position(struct ref_err *err, const char *why)
{
  ref_err_set(err, REF_EINVAL, "ck-bad-position", why);
  return REF_EINVAL;
}

/* Reads a square number 1..32 at *p; -1 if there is none or it is out of range. */
static int ck_read_number(const char **p)
{
  int v = 0, n = 0;
  while(isdigit((unsigned char)**p) && n < 3) {
    v = v * 10 + (**p - '0');
    (*p)++;
    n++;
  }
  if(n == 0 || n > 2 || isdigit((unsigned char)**p) || v < 1 || v > CK_SQUARES)
    return -1;
  return v;
}

/* Reads one side's list ("W21-32", "BK1,5"); the colour letter is already
 * consumed. Stops at ':' or the end. */
static int ck_read_list(const char **pp, uint32_t *men, uint32_t *kings, uint32_t *seen,
                        struct ref_err *err)
{
  const char *p = *pp;

  while(*p && *p != ':' && !isspace((unsigned char)*p) && *p != '.') {
    bool king = false;
    int a, b, sq;
    if(*p == ',') {
      p++;
      continue;
    }
    if(*p == 'K' || *p == 'k') {
      king = true;
      p++;
    }
    a = ck_read_number(&p);
    if(a < 0)
      return ck_bad_position(err, "a square is not a number from 1 to 32");
    b = a;
    if(*p == '-') {
      p++;
      b = ck_read_number(&p);
      if(b < a)
        return ck_bad_position(err, "a range of squares runs backwards or past 32");
    }
    if(*p && *p != ',' && *p != ':' && *p != '.' && !isspace((unsigned char)*p))
      return ck_bad_position(err, "unexpected character in a list of squares");
    for(sq = a - 1; sq < b; sq++) {
      if(*seen >> sq & 1)
        return ck_bad_position(err, "a square is listed twice");
      *seen |= 1u << sq;
      if(king)
        *kings |= 1u << sq;
      else
        *men |= 1u << sq;
    }
  }
  *pp = p;
  return REF_OK;
}

/* Parses PDN FEN into the board fields of s (nothing else). */
static int ck_decode_board(struct ck_state *s, const char *text, struct ref_err *err)
{
  const char *p = text;
  uint32_t seen = 0;
  bool have[2] = {false, false};
  int i, rc, side;

  if(!text)
    return ck_bad_position(err, "empty");
  while(isspace((unsigned char)*p))
    p++;
  if(*p == 'B' || *p == 'b')
    s->turn = CK_BLACK;
  else if(*p == 'W' || *p == 'w')
    s->turn = CK_WHITE;
  else
    return ck_bad_position(err, "it must start with the side to move, B or W");
  p++;
  for(i = 0; i < 2; i++) {
    if(*p != ':')
      return ck_bad_position(err, "it needs two lists, :W... and :B...");
    p++;
    if(*p == 'B' || *p == 'b')
      side = CK_BLACK;
    else if(*p == 'W' || *p == 'w')
      side = CK_WHITE;
    else
      return ck_bad_position(err, "a list must start with W or B");
    if(have[side])
      return ck_bad_position(err, "the same colour is listed twice");
    have[side] = true;
    p++;
    rc = ck_read_list(&p, &s->men[side], &s->kings[side], &seen, err);
    if(rc != REF_OK)
      return rc;
  }
  if(*p == '.')
    p++;
  while(isspace((unsigned char)*p))
    p++;
  if(*p)
    return ck_bad_position(err, "unexpected text after the lists");
  for(side = 0; side < 2; side++) {
    if(ck_count(s->men[side] | s->kings[side]) > CK_PIECES_MAX)
      return ck_bad_position(err, "more than 12 pieces of one colour");
    /* A man on its crown row would have been crowned on arriving. */
    if(s->men[side] & ck_crown[side])
      return ck_bad_position(err, "an uncrowned man stands on its crown row");
  }
  /* The loser of the last capture is the side to move: a side with no
   * pieces that is not to move cannot arise. */
  if(!(s->men[!s->turn] | s->kings[!s->turn]))
    return ck_bad_position(err, "the side not to move has no pieces");
  return REF_OK;
}

/*
 * Sets s up from PDN FEN, validated in full (the text may come by mail);
 * on any error s is left untouched. Options return to their defaults, the
 * CK-2 counters start afresh, and a position whose side to move has no
 * move is at once a finished game.
 */
static int ck_decode(struct ref_state *st, const char *text, struct ref_err *err)
{
  struct ck_state tmp;
  int rc;

  ck_reset(&tmp);
  rc = ck_decode_board(&tmp, text, err);
  if(rc != REF_OK)
    return rc;
  tmp.ply = tmp.turn == CK_WHITE ? 1 : 0;
  ck_window_start(&tmp);
  ck_settle(&tmp);
  memcpy(st, &tmp, sizeof(tmp));
  return REF_OK;
}

/* ---- init and options ---- */

#define CK_START "B:W21-32:B1-12"

/*
 * Options: "key=value;key=value". auto_draws=on|off (CK-2, default on);
 * fen=PDN (start from that position instead).
 */
static int ck_init(struct ref_state *st, const char *options, struct ref_err *err)
{
  struct ck_state tmp;
  char opt[256], fen[256] = CK_START;
  const char *p = options;
  bool claim = false;
  int rc;

  while(p && *p) {
    const char *end = strchr(p, ';');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    char *eq, *key, *val, *t;
    if(n >= sizeof(opt)) {
      ref_err_set(err, REF_EINVAL, "ck-bad-option", "an option is too long");
      return REF_EINVAL;
    }
    memcpy(opt, p, n);
    opt[n] = '\0';
    p = end ? end + 1 : p + n;
    key = opt;
    while(isspace((unsigned char)*key))
      key++;
    if(!*key)
      continue;
    eq = strchr(key, '=');
    if(!eq) {
      ref_err_set(err, REF_EINVAL, "ck-bad-option", key);
      return REF_EINVAL;
    }
    *eq = '\0';
    val = eq + 1;
    for(t = eq; t > key && isspace((unsigned char)t[-1]); t--)
      t[-1] = '\0';
    while(isspace((unsigned char)*val))
      val++;
    for(t = val + strlen(val); t > val && isspace((unsigned char)t[-1]); t--)
      t[-1] = '\0';
    if(!strcmp(key, "auto_draws") && !strcmp(val, "on"))
      claim = false;
    else if(!strcmp(key, "auto_draws") && !strcmp(val, "off"))
      claim = true;
    else if(!strcmp(key, "fen"))
      snprintf(fen, sizeof(fen), "%s", val);
    else {
      ref_err_set(err, REF_EINVAL, "ck-bad-option", key);
      return REF_EINVAL;
    }
  }
  ck_reset(&tmp);
  rc = ck_decode((struct ref_state *)&tmp, fen, err);
  if(rc != REF_OK)
    return rc;
  /* A fresh window has one position in it: no CK-2 draw can be due yet, so
   * the result ck_decode settled stands under either setting. */
  tmp.claim_draws = claim ? 1 : 0;
  memcpy(st, &tmp, sizeof(tmp));
  return REF_OK;
}

/* ---- legal, apply, perft ---- */

/* Appends every legal move in square order (none once the game is over).
 * Returns REF_OK or REF_ENOMEM. */
static int ck_legal(const struct ref_state *st, struct ref_movelist *out)
{
  const struct ck_state *s = (const struct ck_state *)st;
  struct ck_push c;
  struct ck_pos p;

  if(s->over)
    return REF_OK;
  c.out = out;
  ck_pos_of(&p, s);
  return ck_generate(&p, ck_emit_push, &c);
}

/*
 * Plays m, a move from ck_legal or ck_parse on this very state: moves the
 * piece, removes what it took, crowns a man on its crown row, passes the
 * turn, keeps the CK-2 counters and decides whether the game has ended
 * (ck_settle). Returns REF_OK; REF_EPHASE / REF_EINVAL (after an assert)
 * for a finished game or a move that is none of this game's.
 */
static int ck_apply(struct ref_state *st, const struct ref_move *m)
{
  struct ck_state *s = (struct ck_state *)st;
  struct ref_ck_path path;
  struct ck_pos p;
  bool man;

  assert(!s->over);
  if(s->over)
    return REF_EPHASE;
  if(!ck_unpack(&path, m))
    return REF_EINVAL;
  ck_pos_of(&p, s);
  assert(ck_side(&p, p.turn) >> path.from & 1);
  man = s->men[s->turn] >> path.from & 1;
  ck_pos_play(&p, &path);
  s->men[0] = p.men[0];
  s->men[1] = p.men[1];
  s->kings[0] = p.kings[0];
  s->kings[1] = p.kings[1];
  s->turn = (uint8_t)p.turn;
  s->ply++;
  s->last = *m;
  s->has_last = 1;
  /* CK-2 counts moves with no man moved and nothing removed; either one
   * also makes every earlier position unrepeatable. */
  if(man || path.capture)
    ck_window_start(s);
  else {
    if(s->quiet < UINT16_MAX)
      s->quiet++;
    if(s->nkeys <= CK_QUIET_LIMIT)
      s->keys[s->nkeys++] = ck_key(s);
  }
  ck_settle(s);
  return REF_OK;
}

struct ck_perft {
  const struct ck_pos *p;
  int depth;
  uint64_t n;
};

static uint64_t ck_perft_pos(const struct ck_pos *p, int depth);

static int ck_perft_emit(void *ctx, const struct ref_ck_path *path)
{
  struct ck_perft *c = ctx;
  struct ck_pos child;

  if(c->depth == 1) {
    c->n++;
    return 0;
  }
  child = *c->p;
  ck_pos_play(&child, path);
  c->n += ck_perft_pos(&child, c->depth - 1);
  return 0;
}

static int ck_count_emit(void *ctx, const struct ref_ck_path *path)
{
  (void)path;
  (*(uint64_t *)ctx)++;
  return 0;
}

/* The number of legal moves of p: perft's last ply, where only the count
 * matters. Steps are counted straight off the neighbour table. */
static uint64_t ck_count_moves(const struct ck_pos *p)
{
  const struct ref_ck_geom *g = &ref_ck_geom_draughts;
  uint32_t own = ck_side(p, p->turn), occupied = own | ck_side(p, !p->turn), left;
  uint64_t n = 0;

  for(left = own; left; left &= left - 1) {
    int c = ck_lowest(left), d;
    unsigned dirs = (p->kings[p->turn] >> c & 1) ? REF_CK_ALL : ck_men_dirs[p->turn];
    for(d = 0; d < REF_CK_NDIRS; d++) {
      int to = g->nb[c][d], beyond;
      if(!(dirs & (1u << d)) || to < 0)
        continue;
      if(!(occupied >> to & 1)) {
        n++;
        continue;
      }
      beyond = g->nb[to][d];
      /* A jump is possible: captures are compulsory, count them alone. */
      if(beyond >= 0 && !(occupied >> beyond & 1) && !(own >> to & 1)) {
        n = 0;
        ck_generate(p, ck_count_emit, &n);
        return n;
      }
    }
  }
  return n;
}

static uint64_t ck_perft_pos(const struct ck_pos *p, int depth)
{
  struct ck_perft c;

  if(depth <= 0)
    return 1;
  if(depth == 1)
    return ck_count_moves(p);
  c.p = p;
  c.depth = depth;
  c.n = 0;
  ck_generate(p, ck_perft_emit, &c);
  return c.n;
}

/* The move tree of the board, as published checkers perft counts it
 * (OEIS A133046): CK-2 draws inside the tree are not applied. A game that
 * has already ended has no moves. */
static uint64_t ck_perft(const struct ref_state *st, int depth)
{
  const struct ck_state *s = (const struct ck_state *)st;
  struct ck_pos p;

  if(depth <= 0)
    return 1;
  if(s->over)
    return 0;
  ck_pos_of(&p, s);
  return ck_perft_pos(&p, depth);
}

/* ---- parse ---- */

/* The squares a player wrote: sq[0] the origin, then landings. */
struct ck_input {
  int n;
  int sq[REF_CK_HOPS_MAX + 1];
};

static bool ck_is_glyph(char c)
{
  return c == '!' || c == '?' || c == '+' || c == '#' || c == '.' || c == ',' || c == ';' ||
         isspace((unsigned char)c);
}

static bool ck_is_sep(char c)
{
  return c == '-' || c == 'x' || c == 'X' || c == ':' || c == '*';
}

/* Reads one square at *pp into *cell: a number 1-32 or a dark square
 * a1..h8. Returns 1 read, 0 nothing there, -1 a square that is none of
 * ours (detail filled). */
static int ck_read_square(const char **pp, int *cell, char *detail, size_t cap)
{
  const char *p = *pp;
  char c = (char)tolower((unsigned char)*p);

  if(isdigit((unsigned char)*p)) {
    int v = 0, n = 0;
    while(isdigit((unsigned char)*p)) {
      if(n < 3)
        v = v * 10 + (*p - '0');
      n++;
      p++;
    }
    if(n > 2 || v < 1 || v > CK_SQUARES) {
      snprintf(detail, cap, "%.*s", (int)(p - *pp > 8 ? 8 : p - *pp), *pp);
      return -1;
    }
    *cell = v - 1;
    *pp = p;
    return 1;
  }
  if(c >= 'a' && c <= 'h' && p[1] >= '1' && p[1] <= '8' && !isdigit((unsigned char)p[2])) {
    int cl = ck_cell_at(c - 'a', p[1] - '1');
    if(cl < 0) {
      snprintf(detail, cap, "%c%c", c, p[1]);
      return -1;
    }
    *cell = cl;
    *pp = p + 2;
    return 1;
  }
  return 0;
}

/* Reads the squares of one move (rules-spec 1.1, 1.2, 3.4). */
static int ck_read_input(const char *text, struct ck_input *in, struct ref_err *err)
{
  const char *p = text, *q;
  char detail[16] = "";
  int rc;

  in->n = 0;
  while(isspace((unsigned char)*p))
    p++;
  /* A move number ("12." or "12...") is not a square. */
  for(q = p; isdigit((unsigned char)*q); q++)
    ;
  if(q > p && *q == '.')
    p = q;
  while(*p == '.' || isspace((unsigned char)*p))
    p++;
  for(;;) {
    int cell;
    rc = ck_read_square(&p, &cell, detail, sizeof(detail));
    if(rc < 0) {
      ref_err_set(err, REF_EPARSE, "ck-bad-square", detail);
      return REF_EPARSE;
    }
    if(rc == 0)
      break;
    /* No path has more landings than REF_CK_HOPS_MAX. */
    if(in->n == REF_CK_HOPS_MAX + 1) {
      ref_err_set(err, REF_EPARSE, "unreadable", NULL);
      return REF_EPARSE;
    }
    in->sq[in->n++] = cell;
    q = p;
    while(isspace((unsigned char)*q))
      q++;
    if(ck_is_sep(*q)) {
      q++;
      while(isspace((unsigned char)*q))
        q++;
      p = q;
      continue;
    }
    /* Algebraic squares may be run together: c3d4 (rules-spec 1.2). */
    if(p == q && isalpha((unsigned char)*p))
      continue;
    break;
  }
  while(*p && ck_is_glyph(*p))
    p++;
  if(*p || in->n < 2) {
    ref_err_set(err, REF_EPARSE, "unreadable", NULL);
    return REF_EPARSE;
  }
  return REF_OK;
}

/* Whether path p is what the player wrote: same origin and final square,
 * and the squares between, if any, landed on in that order. */
static bool ck_matches(const struct ref_ck_path *p, const struct ck_input *in)
{
  int i, j = 0;

  if(p->from != in->sq[0] || p->to[p->nhops - 1] != in->sq[in->n - 1])
    return false;
  for(i = 1; i < in->n - 1; i++) {
    while(j < p->nhops - 1 && p->to[j] != in->sq[i])
      j++;
    if(j >= p->nhops - 1)
      return false;
    j++;
  }
  return true;
}

/* Whether the player wrote path p square by square. */
static bool ck_exact(const struct ref_ck_path *p, const struct ck_input *in)
{
  int i;

  if(in->n != p->nhops + 1 || p->from != in->sq[0])
    return false;
  for(i = 0; i < p->nhops; i++)
    if(p->to[i] != in->sq[i + 1])
      return false;
  return true;
}

/* Whether the player's squares stop part way along capture p: they match
 * p up to one of its landings before the last one. */
static bool ck_stops_short(const struct ref_ck_path *p, const struct ck_input *in)
{
  struct ref_ck_path cut;
  int k;

  if(!p->capture)
    return false;
  for(k = 1; k < p->nhops; k++) {
    cut = *p;
    cut.nhops = (uint8_t)k;
    if(ck_matches(&cut, in))
      return true;
  }
  return false;
}

/* Which legal moves to offer back with a refusal. */
enum ck_pick {
  CK_PICK_ALL,   /* every legal move */
  CK_PICK_MATCH, /* those the input matches (an ambiguous path) */
  CK_PICK_FROM   /* those of the piece the input starts on */
};

static bool ck_picked(const struct ref_ck_path *p, const struct ck_input *in, enum ck_pick pick)
{
  switch(pick) {
  case CK_PICK_MATCH:
    return ck_matches(p, in);
  case CK_PICK_FROM:
    return p->from == in->sq[0];
  case CK_PICK_ALL:
    break;
  }
  return true;
}

/* Fills err->suggest with the canonical notation of the picked moves. */
static void ck_suggest(const struct ref_movelist *list, const struct ck_input *in,
                       enum ck_pick pick, struct ref_err *err)
{
  size_t i;

  if(!err)
    return;
  for(i = 0; i < list->n && err->nsuggest < REF_SUGGEST_MAX; i++) {
    struct ref_ck_path p;
    ck_unpack(&p, &list->v[i]);
    if(!ck_picked(&p, in, pick))
      continue;
    if(ck_format_path(&p, REF_NOTATION_CANONICAL, err->suggest[err->nsuggest],
                      REF_NOTATION_MAX) == REF_OK)
      err->nsuggest++;
  }
}

/*
 * Why no legal move matches in: the first broken rule along the path the
 * player wrote, hop by hop. Returns the reason key and fills detail.
 */
static const char *ck_why(const struct ck_state *s, const struct ref_movelist *list,
                          const struct ck_input *in, char *detail, size_t cap)
{
  const struct ref_ck_geom *g = &ref_ck_geom_draughts;
  int side = s->turn, from = in->sq[0], i;
  uint32_t own = s->men[side] | s->kings[side], enemy = s->men[!side] | s->kings[!side];
  uint32_t occupied = (own | enemy) & ~(1u << from), taken = 0;
  bool king, capture_due = list->n > 0 && (list->v[0].w[0] >> 16 & 1);
  size_t k;

  snprintf(detail, cap, "%d", from + 1);
  if(!((own | enemy) >> from & 1))
    return "ck-no-piece";
  if(!(own >> from & 1))
    return "ck-not-your-piece";
  king = s->kings[side] >> from & 1;
  for(k = 0; k < list->n; k++) {
    struct ref_ck_path p;
    ck_unpack(&p, &list->v[k]);
    if(ck_stops_short(&p, in)) {
      snprintf(detail, cap, "%d", in->sq[in->n - 1] + 1);
      return "ck-must-continue";
    }
  }
  for(i = 0; i + 1 < in->n; i++) {
    int a = in->sq[i], b = in->sq[i + 1], d, over;
    snprintf(detail, cap, "%d", b + 1);
    if(i > 0 && !king && (ck_crown[side] >> a & 1))
      return "ck-crowned-stops";
    d = ref_ck_dir_between(g, a, b, false);
    if(d >= 0) {
      /* A step: only as the whole move, never after a jump. */
      if(!king && !(ck_men_dirs[side] & (1u << d)))
        return "ck-men-forward-only";
      if(i > 0 || in->n > 2)
        return "ck-step-in-jump";
      if(capture_due)
        return "ck-must-capture";
      if(occupied >> b & 1)
        return "ck-blocked";
      return "illegal";
    }
    d = ref_ck_dir_between(g, a, b, true);
    if(d < 0)
      return "ck-not-diagonal";
    if(!king && !(ck_men_dirs[side] & (1u << d)))
      return "ck-men-forward-only";
    over = g->nb[a][d];
    if(!(enemy >> over & 1) || (taken >> over & 1)) {
      snprintf(detail, cap, "%d", over + 1);
      return "ck-nothing-to-jump";
    }
    if(occupied >> b & 1)
      return "ck-blocked";
    taken |= 1u << over;
  }
  /* Every hop was possible, yet no legal move matches: the jump stopped
   * while another was available (the legal list would hold it otherwise),
   * or a capture elsewhere is due. */
  snprintf(detail, cap, "%d", in->sq[in->n - 1] + 1);
  return capture_due ? "ck-must-continue" : "illegal";
}

/*
 * Reads one move (rules-spec 1, 3.4) into OUT: out. Every written square
 * must be landed on in that order, the first and last being the origin
 * and the final square; a path written out in full always matches itself.
 * REF_EPARSE: no squares to read (reason unreadable or ck-bad-square);
 * REF_EAMBIGUOUS: several paths fit (ck-path-ambiguous, the paths
 * suggested); REF_EILLEGAL: none fits, with the first broken rule as the
 * reason (ck_why); REF_EPHASE: the game is over. Suggestions: the moves of
 * the piece named, or all moves, at most REF_SUGGEST_MAX.
 */
static int ck_parse(const struct ref_state *st, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  const struct ck_state *s = (const struct ck_state *)st;
  struct ref_movelist list = {0};
  struct ck_input in;
  char detail[32];
  const char *why;
  size_t i, nmatch = 0, first = 0, nfrom = 0;
  int rc;

  if(s->over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  rc = ck_legal(st, &list);
  if(rc != REF_OK) {
    ref_err_set(err, rc, "ck-no-memory", NULL);
    goto out;
  }
  rc = ck_read_input(text ? text : "", &in, err);
  if(rc != REF_OK) {
    ck_suggest(&list, &in, CK_PICK_ALL, err);
    goto out;
  }
  for(i = 0; i < list.n; i++) {
    struct ref_ck_path p;
    ck_unpack(&p, &list.v[i]);
    if(p.from == in.sq[0])
      nfrom++;
    /* Every landing written out is the canonical form of exactly one
     * path, and wins over paths that merely fit around the squares
     * given: 14x5 is the single jump even when longer jumps also end
     * on 5. */
    if(ck_exact(&p, &in)) {
      *out = list.v[i];
      rc = REF_OK;
      goto out;
    }
    if(ck_matches(&p, &in)) {
      if(!nmatch)
        first = i;
      nmatch++;
    }
  }
  if(nmatch == 1) {
    *out = list.v[first];
    rc = REF_OK;
    goto out;
  }
  if(nmatch > 1) {
    /* Two paths between the same squares: the player must say which
     * (rules-spec 3.4), and is shown them. */
    snprintf(detail, sizeof(detail), "%d to %d", in.sq[0] + 1, in.sq[in.n - 1] + 1);
    ref_err_set(err, REF_EAMBIGUOUS, "ck-path-ambiguous", detail);
    ck_suggest(&list, &in, CK_PICK_MATCH, err);
    rc = REF_EAMBIGUOUS;
    goto out;
  }
  why = ck_why(s, &list, &in, detail, sizeof(detail));
  ref_err_set(err, REF_EILLEGAL, why, detail);
  /* The nearest moves: this piece's when it has any, else all. */
  ck_suggest(&list, &in, nfrom ? CK_PICK_FROM : CK_PICK_ALL, err);
  rc = REF_EILLEGAL;
out:
  ref_movelist_free(&list);
  return rc;
}

/* Canonical "11-15" / "15x24x31", or the oracle's "15x31 [20,27]". The
 * move carries its whole path, so the position is not needed. */
static int ck_format(const struct ref_state *st, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  struct ref_ck_path p;
  (void)st;
  if(!ck_unpack(&p, m))
    return REF_EINVAL;
  return ck_format_path(&p, style, buf, cap);
}

/* ---- act, status ---- */

/*
 * Resignation (either seat, at any time), a draw agreed by both, or a CK-2
 * draw claimed under auto_draws=off. Cube actions are REF_EPHASE (no
 * cube); anything on a finished game is REF_EPHASE (game-over).
 */
static int ck_act(struct ref_state *st, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct ck_state *s = (struct ck_state *)st;
  enum ref_end draw;

  (void)arg;
  if(seat < 0 || seat > 1) {
    ref_err_set(err, REF_EINVAL, "ck-no-such-seat", NULL);
    return REF_EINVAL;
  }
  if(s->over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  switch(action) {
  case REF_ACT_RESIGN:
    /* Allowed at any time, on either side's turn (rules-spec 1.7). */
    ck_finish(s, !seat, REF_END_RESIGNATION);
    return REF_OK;
  case REF_ACT_DRAW_AGREED:
    ck_finish(s, -1, REF_END_AGREEMENT);
    return REF_OK;
  case REF_ACT_DRAW_CLAIM:
    /* Only under auto_draws=off is a CK-2 draw left to a claim. */
    draw = ck_draw_due(s);
    if(!s->claim_draws || draw == REF_END_NONE) {
      ref_err_set(err, REF_EILLEGAL, "ck-no-draw-claim", NULL);
      return REF_EILLEGAL;
    }
    ck_finish(s, -1, draw);
    return REF_OK;
  case REF_ACT_DOUBLE:
  case REF_ACT_TAKE:
  case REF_ACT_DROP:
  case REF_ACT_BEAVER:
  case REF_ACT_LAST:
    break;
  }
  ref_err_set(err, REF_EPHASE, "ck-no-cube", NULL);
  return REF_EPHASE;
}

static void ck_status(const struct ref_state *st, struct ref_status *out)
{
  const struct ck_state *s = (const struct ck_state *)st;

  memset(out, 0, sizeof(*out));
  out->phase = s->over ? REF_PHASE_OVER : REF_PHASE_MOVE;
  out->turn = s->over ? -1 : s->turn;
  out->winner = s->over ? s->winner : -1;
  out->end = s->over ? (enum ref_end)s->end : REF_END_NONE;
  out->points = s->over && s->winner >= 0 ? 1 : 0;
  out->move_number = (int)(1 + s->ply / 2);
  out->draw_claimable = !s->over && s->claim_draws && ck_draw_due(s) != REF_END_NONE;
  out->cube_owner = -1;
}

/* ---- render ---- */

/* The last move's squares as bit sets (bit k: square k + 1): where it
 * started, where it landed (each hop), what it captured; none before the
 * first move. */
static void last_squares(const struct ck_state *s, uint32_t *from, uint32_t *to, uint32_t *took)
{
  struct ref_ck_path p;
  int i;
  *from = *to = *took = 0;
  if(!s->has_last)
    return;
  ck_unpack(&p, &s->last);
  *from = 1u << p.from;
  for(i = 0; i < p.nhops; i++)
    *to |= 1u << p.to[i];
  *took = (uint32_t)p.captured;
}

/*
 * The board from `seat`'s side: that side's pieces at the bottom. Dark
 * squares show b / B (Black man / king), w / W (White man / king) or, when
 * empty, their number, so a player can write a move from it; light squares
 * stay blank. The last move's origin and landings are marked [..], the
 * squares it captured on (..). Each row ends with its squares' numbers.
 * Seat 0 (Black) sees rank 1 at the top; seat 1 and any other seat (an
 * observer) see the usual diagram, White at the bottom.
 */
static int ck_render(const struct ref_state *st, int seat, char *buf, size_t cap)
{
  const struct ck_state *s = (const struct ck_state *)st;
  uint32_t from, to, took, mark;
  char line[96];
  size_t len = 0;
  int row, col;
  bool flip = seat == CK_BLACK;

  if(!cap)
    return REF_EINVAL;
  buf[0] = '\0';
  last_squares(s, &from, &to, &took);
  mark = from | to;
  {
    char files[40];
    for(col = 0; col < 8; col++)
      snprintf(files + 4 * col, sizeof(files) - 4 * (size_t)col, "  %c ",
               flip ? 'h' - col : 'a' + col);
    /* No trailing blanks: mail software strips them. */
    snprintf(line, sizeof(line), "    %.31s\n", files);
  }
  if(!ck_put(buf, cap, &len, line) ||
     !ck_put(buf, cap, &len, "   +--------------------------------+\n"))
    return REF_EINVAL;
  for(row = 0; row < 8; row++) {
    int y = flip ? row : 7 - row, lo = (7 - y) * 4 + 1;
    size_t at;
    at = (size_t)snprintf(line, sizeof(line), " %d |", y + 1);
    for(col = 0; col < 8; col++) {
      int x = flip ? 7 - col : col, c = ck_cell_at(x, y);
      char cell[5] = "    ";
      if(c >= 0) {
        uint32_t bit = 1u << c;
        if(s->men[CK_BLACK] & bit)
          cell[2] = 'b';
        else if(s->kings[CK_BLACK] & bit)
          cell[2] = 'B';
        else if(s->men[CK_WHITE] & bit)
          cell[2] = 'w';
        else if(s->kings[CK_WHITE] & bit)
          cell[2] = 'W';
        else {
          cell[1] = c + 1 >= 10 ? (char)('0' + (c + 1) / 10) : ' ';
          cell[2] = (char)('0' + (c + 1) % 10);
        }
        if(mark & bit) {
          cell[0] = '[';
          cell[3] = ']';
        }
        else if(took & bit) {
          cell[0] = '(';
          cell[3] = ')';
        }
      }
      memcpy(line + at, cell, 4);
      at += 4;
    }
    snprintf(line + at, sizeof(line) - at, "| %2d-%2d\n", lo, lo + 3);
    if(!ck_put(buf, cap, &len, line))
      return REF_EINVAL;
  }
  if(!ck_put(buf, cap, &len, "   +--------------------------------+\n"))
    return REF_EINVAL;
  /* the marks said under the board once there are any: a reader new to
   * the diagram cannot guess what the brackets are */
  if(mark && !ck_put(buf, cap, &len,
                     took ? "   [ ] the last move's start and landing; ( ) where it captured.\n"
                          : "   [ ] the last move's start and landing.\n"))
    return REF_EINVAL;
  return REF_OK;
}

/* ---- invariants ---- */

/* The invariant checker (rules.h ops->ok): recomputes everything the
 * state holds twice: piece sets, counters and the CK-2 window, the last
 * move, and the result against the board. */
static bool ck_ok(const struct ref_state *st)
{
  const struct ck_state *s = (const struct ck_state *)st;
  uint32_t all[2];
  struct ck_pos p;
  int side, i;

  if(s->turn > 1 || s->claim_draws > 1 || s->has_last > 1 || s->over > 1)
    return false;
  for(side = 0; side < 2; side++) {
    all[side] = s->men[side] | s->kings[side];
    if((s->men[side] & s->kings[side]) || ck_count(all[side]) > CK_PIECES_MAX ||
       (s->men[side] & ck_crown[side]))
      return false;
  }
  if(all[0] & all[1])
    return false;
  if(s->nkeys < 1 || s->nkeys > CK_QUIET_LIMIT + 1 ||
     s->nkeys != (s->quiet < CK_QUIET_LIMIT ? s->quiet : CK_QUIET_LIMIT) + 1)
    return false;
  if(s->quiet <= CK_QUIET_LIMIT && s->keys[s->nkeys - 1] != ck_key(s))
    return false;
  /* Inside the window the men stay put: every key shares today's men, so
   * only kings may differ, and no king count may grow without a capture. */
  for(i = 0; i < s->nkeys; i++)
    if(ck_count((uint32_t)s->keys[i]) != ck_count(s->kings[CK_BLACK]) ||
       ck_count((uint32_t)(s->keys[i] >> 32)) != ck_count(s->kings[CK_WHITE]))
      return false;
  if(s->has_last) {
    struct ref_ck_path last;
    if(!ck_move_sane(&s->last))
      return false;
    ck_unpack(&last, &s->last);
    if(last.nhops < 1 || last.to[last.nhops - 1] >= CK_SQUARES ||
       !(all[!s->turn] >> last.to[last.nhops - 1] & 1))
      return false;
  }
  ck_pos_of(&p, s);
  if(s->over) {
    if(s->winner < -1 || s->winner > 1 || s->end == REF_END_NONE || s->end >= REF_END_LAST)
      return false;
    if(s->end == REF_END_NO_MOVES && (ck_has_move(&p) || s->winner != !s->turn))
      return false;
    return true;
  }
  if(s->winner != -1 || s->end != REF_END_NONE)
    return false;
  /* A game still running has a move to make and, under automatic draws,
   * no draw already due. */
  if(!ck_has_move(&p))
    return false;
  if(!s->claim_draws && ck_draw_due(s) != REF_END_NONE)
    return false;
  return true;
}

/* The board as data: the playing squares numbered 1-32, men and
 * kings (Black dark, White light), the last move's origin and landings
 * marked; Black (seat 0) reads with rank 1 at the top, as ck_render. */
static int ck_diagram(const struct ref_state *st, int seat, struct ref_diagram *d)
{
  const struct ck_state *s = (const struct ck_state *)st;
  uint32_t from, to, took;
  int x, y;
  ref_diag_grid(d, 8, 8, seat == CK_BLACK);
  last_squares(s, &from, &to, &took);
  for(y = 0; y < 8; y++)
    for(x = 0; x < 8; x++) {
      struct ref_diag_cell *c = &d->cell[y][x];
      int k = ck_cell_at(x, y);
      uint32_t bit;
      c->dark = k >= 0;
      if(k < 0)
        continue;
      bit = 1u << k;
      snprintf(c->label, sizeof(c->label), "%d", k + 1);
      if((s->men[CK_BLACK] | s->kings[CK_BLACK]) & bit)
        ref_diag_put(&c->s, (s->kings[CK_BLACK] & bit) ? REF_DIAG_CROWNED : REF_DIAG_MAN, 1);
      else if((s->men[CK_WHITE] | s->kings[CK_WHITE]) & bit)
        ref_diag_put(&c->s, (s->kings[CK_WHITE] & bit) ? REF_DIAG_CROWNED : REF_DIAG_MAN, 0);
      c->s.mark = (uint8_t)(((from & bit) ? REF_DIAG_FROM : 0) | ((to & bit) ? REF_DIAG_TO : 0));
    }
  return REF_OK;
}

static const struct ref_game_ops ck_ops = {
  ck_init,   /* init */
  ck_decode, /* decode */
  ck_encode, /* encode */
  ck_legal,  /* legal */
  ck_parse,  /* parse */
  ck_format, /* format */
  ck_apply,  /* apply */
  NULL,      /* roll: diceless */
  ck_act,    /* act */
  ck_status, /* status */
  ck_render, /* render */
  ck_perft,  /* perft */
  ck_ok,     /* ok */
  ck_diagram, /* diagram */
};

const struct ref_game_desc ref_game_checkers = {
  "checkers",         /* name */
  "English checkers", /* title */
  1,                  /* version */
  2,                  /* seats */
  {"Black", "White"}, /* seat_names: Black moves first (CK-1) */
  REF_GAME_DRAWS,     /* flags */
  sizeof(struct ck_state),
  &ck_ops,
};
