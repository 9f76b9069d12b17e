/*
 * board_geometry.c: the generic chess machinery for boards given as data
 * (board_geometry_int.h). Used by Back-to-Back Chess (backtoback.c, §8);
 * the tests also run it on the plain 8x8 board, where it must reproduce the
 * published chess perft numbers.
 *
 * Layout: building the tables from a spec (cells, walls, the BB-3 knight
 * paths); attacks; the pseudo-legal generator (BB-4 pawns, castling shapes
 * such as BB-8's U); legality and make (BB-6 e.p.); perft; the key; FEN;
 * the invariant checker.
 *
 * A mailbox engine, not bitboards: 112 cells do not fit a 64-bit word, and
 * a step table makes missing cells and walls free at move time (a slider
 * simply finds REF_GEO_NONE where the board stops).
 */
#include "board_geometry_int.h"
#include "game_text_int.h"

#include <stdio.h>
#include <string.h>

static const int dir_col[8] = {0, 1, 1, 1, 0, -1, -1, -1};
static const int dir_row[8] = {1, 1, 0, -1, -1, -1, 0, 1};
static const char piece_letters[] = "PNBRQK";

/* ------------------------------------------------------------------------ */
/* Building the tables */

/* "a1" -> cell within cols x rows, or -1. */
static int parse_square(const char *s, int cols, int rows)
{
  int c, r;
  if(!s || s[0] < 'a' || s[0] > 'a' + REF_GEO_MAX_COLS - 1 || s[1] < '1' || s[1] > '8')
    return -1;
  c = s[0] - 'a';
  r = s[1] - '1';
  if(c >= cols || r >= rows)
    return -1;
  return r * REF_GEO_ROW + c;
}

/* Reads a space-separated square list into out (at most max). Returns the
 * count, or -1 on a bad name or overflow. */
static int parse_squares(const char *s, int cols, int rows, uint8_t *out, int max)
{
  int n = 0;
  while(s && *s) {
    int cell;
    while(*s == ' ')
      s++;
    if(!*s)
      break;
    cell = parse_square(s, cols, rows);
    if(cell < 0 || n == max || (s[2] && s[2] != ' '))
      return -1;
    out[n++] = (uint8_t)cell;
    s += 2;
  }
  return n;
}

static void set_bit(uint64_t *set, int cell)
{
  set[cell >> 6] |= 1ull << (cell & 63);
}

static bool has_bit(const uint64_t *set, int cell)
{
  return (set[cell >> 6] >> (cell & 63)) & 1u;
}

/* BB-2: does a wall forbid the single step a -> b? */
static bool walled(const struct ref_geo_spec *spec, int a, int b)
{
  int ra = ref_geo_row(a), rb = ref_geo_row(b), ca = ref_geo_col(a), cb = ref_geo_col(b), i;

  for(i = 0; i < spec->nwalls; i++) {
    const struct ref_geo_wall *w = &spec->walls[i];
    bool across = (ra == w->row && rb == w->row + 1) || (rb == w->row && ra == w->row + 1);
    if(across && ca >= w->col_lo && ca <= w->col_hi && cb >= w->col_lo && cb <= w->col_hi)
      return true;
  }
  return false;
}

/*
 * BB-3: a knight's move is two steps along the long axis, then one across;
 * legal only if every step exists and crosses no wall (the cells passed
 * need not be empty: it still jumps). On a plain rectangle every such path
 * exists, so this is the ordinary knight there.
 */
static uint8_t knight_target(const struct ref_geo *g, int from, int dc, int dr)
{
  int along, across, a, b;
  if(dr == 2 || dr == -2) {
    along = dr > 0 ? REF_GEO_N : REF_GEO_S;
    across = dc > 0 ? REF_GEO_E : REF_GEO_W;
  }
  else {
    along = dc > 0 ? REF_GEO_E : REF_GEO_W;
    across = dr > 0 ? REF_GEO_N : REF_GEO_S;
  }
  a = g->step[from][along];
  if(a == REF_GEO_NONE)
    return REF_GEO_NONE;
  b = g->step[a][along];
  if(b == REF_GEO_NONE)
    return REF_GEO_NONE;
  return g->step[b][across];
}

int ref_geo_build(struct ref_geo *g, const struct ref_geo_spec *spec)
{
  static const int kdc[8] = {1, 2, 2, 1, -1, -2, -2, -1};
  static const int kdr[8] = {2, 1, -1, -2, -2, -1, 1, 2};
  uint8_t cells[REF_GEO_CELLS];
  int r, c, d, i, n, color;

  memset(g, 0, sizeof(*g));
  if(spec->cols < 1 || spec->cols > REF_GEO_MAX_COLS || spec->rows < 2 ||
     spec->rows > REF_GEO_MAX_ROWS || spec->nwalls < 0 || spec->nwalls > 2)
    return REF_EINVAL;
  g->cols = (uint8_t)spec->cols;
  g->rows = (uint8_t)spec->rows;
  for(r = 0; r < spec->rows; r++)
    for(c = 0; c < spec->cols; c++)
      g->exists[r * REF_GEO_ROW + c] = 1;
  n = parse_squares(spec->holes, spec->cols, spec->rows, cells, REF_GEO_CELLS);
  if(n < 0)
    return REF_EINVAL;
  for(i = 0; i < n; i++)
    g->exists[cells[i]] = 0;

  memset(g->step, REF_GEO_NONE, sizeof(g->step));
  memset(g->knight, REF_GEO_NONE, sizeof(g->knight));
  memset(g->knight_from, REF_GEO_NONE, sizeof(g->knight_from));
  for(i = 0; i < REF_GEO_CELLS; i++) {
    if(!g->exists[i])
      continue;
    for(d = 0; d < 8; d++) {
      int tc = ref_geo_col(i) + dir_col[d], tr = ref_geo_row(i) + dir_row[d], t;
      if(tc < 0 || tc >= spec->cols || tr < 0 || tr >= spec->rows)
        continue;
      t = tr * REF_GEO_ROW + tc;
      if(g->exists[t] && !walled(spec, i, t))
        g->step[i][d] = (uint8_t)t;
    }
  }
  for(i = 0; i < REF_GEO_CELLS; i++) {
    if(!g->exists[i])
      continue;
    for(d = 0; d < 8; d++) {
      uint8_t t = knight_target(g, i, kdc[d], kdr[d]);
      g->knight[i][d] = t;
      if(t != REF_GEO_NONE)
        g->knight_from[t][d] = (uint8_t)i;
    }
  }

  /* §2.2 pawns: forward only; BB-4 adds left and right. */
  g->push[REF_GEO_WHITE][0] = REF_GEO_N;
  g->push[REF_GEO_BLACK][0] = REF_GEO_S;
  g->npush = 1;
  if(spec->pawn_sideways) {
    for(color = 0; color < 2; color++) {
      g->push[color][1] = REF_GEO_W;
      g->push[color][2] = REF_GEO_E;
    }
    g->npush = 3;
  }
  g->capt[REF_GEO_WHITE][0] = REF_GEO_NW;
  g->capt[REF_GEO_WHITE][1] = REF_GEO_NE;
  g->capt[REF_GEO_BLACK][0] = REF_GEO_SW;
  g->capt[REF_GEO_BLACK][1] = REF_GEO_SE;
  for(color = 0; color < 2; color++) {
    if(spec->promo_row[color] < 0 || spec->promo_row[color] >= spec->rows)
      return REF_EINVAL;
    g->promo_row[color] = (uint8_t)spec->promo_row[color];
    g->pawn_bad_rows[color] = (uint8_t)(spec->pawn_bad_rows[color] | (1u << spec->promo_row[color]));
    n = parse_squares(spec->pawn_start[color], spec->cols, spec->rows, cells, REF_GEO_CELLS);
    if(n < 0)
      return REF_EINVAL;
    for(i = 0; i < n; i++) {
      if(!g->exists[cells[i]] || ((g->pawn_bad_rows[color] >> ref_geo_row(cells[i])) & 1u))
        return REF_EINVAL;
      set_bit(g->pawn_start[color], cells[i]);
    }
  }

  memset(g->castle_keep, 15, sizeof(g->castle_keep));
  for(i = 0; i < 4 && spec->castles[i].letter; i++) {
    const struct ref_geo_castle_spec *cs = &spec->castles[i];
    struct ref_geo_castle *cg = &g->castles[i];
    const char *hit = strchr("KQkq", cs->letter);
    int sq[4];
    if(!hit)
      return REF_EINVAL;
    cg->letter = cs->letter;
    cg->right = (uint8_t)(1u << (hit - "KQkq"));
    cg->color = (uint8_t)(hit - "KQkq" >= 2 ? REF_GEO_BLACK : REF_GEO_WHITE);
    sq[0] = parse_square(cs->king_from, spec->cols, spec->rows);
    sq[1] = parse_square(cs->king_to, spec->cols, spec->rows);
    sq[2] = parse_square(cs->rook_from, spec->cols, spec->rows);
    sq[3] = parse_square(cs->rook_to, spec->cols, spec->rows);
    for(c = 0; c < 4; c++)
      if(sq[c] < 0 || !g->exists[sq[c]])
        return REF_EINVAL;
    cg->king_from = (uint8_t)sq[0];
    cg->king_to = (uint8_t)sq[1];
    cg->rook_from = (uint8_t)sq[2];
    cg->rook_to = (uint8_t)sq[3];
    n = parse_squares(cs->empty, spec->cols, spec->rows, cg->empty, 6);
    if(n < 0)
      return REF_EINVAL;
    cg->nempty = (uint8_t)n;
    n = parse_squares(cs->safe, spec->cols, spec->rows, cg->safe, 6);
    if(n < 0)
      return REF_EINVAL;
    cg->nsafe = (uint8_t)n;
    /* Moving or capturing on a home square ends the rights it carries. */
    g->castle_keep[cg->king_from] &= (uint8_t)~(cg->color == REF_GEO_WHITE ? 3u : 12u);
    g->castle_keep[cg->rook_from] &= (uint8_t)~cg->right;
  }
  g->ncastles = (uint8_t)i;
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* Attacks */

bool ref_geo_attacked(const struct ref_geo *g, const struct ref_geo_pos *p, int cell, int by)
{
  const uint8_t *b = p->board;
  uint8_t pawn = REF_GEO_PIECE(by, REF_GEO_PAWN), knight = REF_GEO_PIECE(by, REF_GEO_KNIGHT);
  uint8_t king = REF_GEO_PIECE(by, REF_GEO_KING), queen = REF_GEO_PIECE(by, REF_GEO_QUEEN);
  uint8_t rook = REF_GEO_PIECE(by, REF_GEO_ROOK), bishop = REF_GEO_PIECE(by, REF_GEO_BISHOP);
  int d, k, o;

  /* A pawn on o attacks cell when its capture step from o lands on cell;
   * steps are symmetric, so o is one step back from cell. */
  for(k = 0; k < 2; k++) {
    o = g->step[cell][g->capt[by][k] ^ 4];
    if(o != REF_GEO_NONE && b[o] == pawn)
      return true;
  }
  /* BB-3 paths are not symmetric (long axis first), hence knight_from. */
  for(k = 0; k < 8; k++) {
    o = g->knight_from[cell][k];
    if(o != REF_GEO_NONE && b[o] == knight)
      return true;
  }
  for(d = 0; d < 8; d++) {
    uint8_t slider = d & 1 ? bishop : rook;
    o = g->step[cell][d];
    if(o == REF_GEO_NONE)
      continue;
    if(b[o] == king)
      return true;
    for(;;) {
      if(b[o] != REF_GEO_EMPTY) {
        if(b[o] == slider || b[o] == queen)
          return true;
        break;
      }
      o = g->step[o][d];
      if(o == REF_GEO_NONE)
        break;
    }
  }
  return false;
}

bool ref_geo_in_check(const struct ref_geo *g, const struct ref_geo_pos *p)
{
  return ref_geo_attacked(g, p, p->king[p->side], p->side ^ 1);
}

/* ------------------------------------------------------------------------ */
/* The pseudo-legal generator */

static int emit_pawn(const struct ref_geo *g, uint32_t *moves, int n, int us, int from, int to,
                     int kind)
{
  if(kind == REF_GEO_MV_NORMAL && ref_geo_row(to) == g->promo_row[us]) {
    /* BB-7 / §2.2: promotion to Q, R, B or N, as part of the move. */
    moves[n++] = ref_geo_move(from, to, REF_GEO_MV_PROMO, REF_GEO_QUEEN);
    moves[n++] = ref_geo_move(from, to, REF_GEO_MV_PROMO, REF_GEO_ROOK);
    moves[n++] = ref_geo_move(from, to, REF_GEO_MV_PROMO, REF_GEO_BISHOP);
    moves[n++] = ref_geo_move(from, to, REF_GEO_MV_PROMO, REF_GEO_KNIGHT);
    return n;
  }
  moves[n++] = ref_geo_move(from, to, kind, 0);
  return n;
}

static int gen_pawn(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t *moves, int n,
                    int from)
{
  int us = p->side, k;

  /* BB-4: one step forward (or sideways where the geometry allows), to an
   * empty square; an unmoved pawn also two in one of those directions,
   * both squares empty. Walls and holes are absent steps. */
  for(k = 0; k < g->npush; k++) {
    int d = g->push[us][k], t = g->step[from][d];
    if(t == REF_GEO_NONE || p->board[t] != REF_GEO_EMPTY)
      continue;
    n = emit_pawn(g, moves, n, us, from, t, REF_GEO_MV_NORMAL);
    if(ref_geo_is_virgin(p, from)) {
      int t2 = g->step[t][d];
      if(t2 != REF_GEO_NONE && p->board[t2] == REF_GEO_EMPTY)
        n = emit_pawn(g, moves, n, us, from, t2, REF_GEO_MV_NORMAL);
    }
  }
  /* BB-4: captures only diagonally forward; BB-6 e.p. onto the crossed square. */
  for(k = 0; k < 2; k++) {
    int t = g->step[from][g->capt[us][k]];
    if(t == REF_GEO_NONE)
      continue;
    if(p->board[t] != REF_GEO_EMPTY) {
      if(REF_GEO_COLOR(p->board[t]) != us)
        n = emit_pawn(g, moves, n, us, from, t, REF_GEO_MV_NORMAL);
    }
    else if(t == p->ep) {
      moves[n++] = ref_geo_move(from, t, REF_GEO_MV_EP, 0);
    }
  }
  return n;
}

static int gen_slider(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t *moves, int n,
                      int from, int d0, int dstep)
{
  int us = p->side, d;
  for(d = d0; d < 8; d += dstep) {
    int t = g->step[from][d];
    while(t != REF_GEO_NONE) {
      int code = p->board[t];
      if(code != REF_GEO_EMPTY) {
        if(REF_GEO_COLOR(code) != us)
          moves[n++] = ref_geo_move(from, t, REF_GEO_MV_NORMAL, 0);
        break;
      }
      moves[n++] = ref_geo_move(from, t, REF_GEO_MV_NORMAL, 0);
      t = g->step[t][d];
    }
  }
  return n;
}

/* Castling (§2.2 with CH-1; BB-8 shapes): the right (so king and rook are
 * at home), the listed squares empty, the king's squares not attacked. */
static int gen_castles(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t *moves, int n)
{
  int i, k, us = p->side;

  for(i = 0; i < g->ncastles; i++) {
    const struct ref_geo_castle *c = &g->castles[i];
    bool ok = c->color == us && (p->castle & c->right);
    for(k = 0; ok && k < c->nempty; k++)
      ok = p->board[c->empty[k]] == REF_GEO_EMPTY;
    for(k = 0; ok && k < c->nsafe; k++)
      ok = !ref_geo_attacked(g, p, c->safe[k], us ^ 1);
    if(ok)
      moves[n++] = ref_geo_move(c->king_from, c->king_to, REF_GEO_MV_CASTLE, 0);
  }
  return n;
}

int ref_geo_gen_pseudo(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t *moves)
{
  int n = 0, from, us = p->side, k;

  for(from = 0; from < REF_GEO_CELLS; from++) {
    int code = p->board[from];
    if(code == REF_GEO_EMPTY || REF_GEO_COLOR(code) != us)
      continue;
    switch(REF_GEO_TYPE(code)) {
    case REF_GEO_PAWN:
      n = gen_pawn(g, p, moves, n, from);
      break;
    case REF_GEO_KNIGHT:
      for(k = 0; k < 8; k++) {
        int t = g->knight[from][k];
        if(t != REF_GEO_NONE &&
           (p->board[t] == REF_GEO_EMPTY || REF_GEO_COLOR(p->board[t]) != us))
          moves[n++] = ref_geo_move(from, t, REF_GEO_MV_NORMAL, 0);
      }
      break;
    case REF_GEO_BISHOP:
      n = gen_slider(g, p, moves, n, from, 1, 2);
      break;
    case REF_GEO_ROOK:
      n = gen_slider(g, p, moves, n, from, 0, 2);
      break;
    case REF_GEO_QUEEN:
      n = gen_slider(g, p, moves, n, from, 0, 1);
      break;
    default: /* king */
      for(k = 0; k < 8; k++) {
        int t = g->step[from][k];
        if(t != REF_GEO_NONE &&
           (p->board[t] == REF_GEO_EMPTY || REF_GEO_COLOR(p->board[t]) != us))
          moves[n++] = ref_geo_move(from, t, REF_GEO_MV_NORMAL, 0);
      }
      break;
    }
  }
  return gen_castles(g, p, moves, n);
}

/* ------------------------------------------------------------------------ */
/* Legality and make */

const struct ref_geo_castle *ref_geo_castle_of(const struct ref_geo *g, uint32_t m)
{
  int i;
  if(ref_geo_move_kind(m) != REF_GEO_MV_CASTLE)
    return NULL;
  for(i = 0; i < g->ncastles; i++)
    if(g->castles[i].king_from == ref_geo_move_from(m) && g->castles[i].king_to == ref_geo_move_to(m))
      return &g->castles[i];
  return NULL;
}

/* The board part of m alone (pieces and king squares), for legality tests. */
static void move_pieces(const struct ref_geo *g, struct ref_geo_pos *p, uint32_t m)
{
  int from = ref_geo_move_from(m), to = ref_geo_move_to(m), kind = ref_geo_move_kind(m);
  int us = p->side;
  uint8_t code = p->board[from];

  if(kind == REF_GEO_MV_CASTLE) {
    const struct ref_geo_castle *c = ref_geo_castle_of(g, m);
    /* Lift both, then put both: in some shapes the squares could overlap. */
    p->board[c->king_from] = REF_GEO_EMPTY;
    p->board[c->rook_from] = REF_GEO_EMPTY;
    p->board[c->king_to] = REF_GEO_PIECE(us, REF_GEO_KING);
    p->board[c->rook_to] = REF_GEO_PIECE(us, REF_GEO_ROOK);
    p->king[us] = c->king_to;
    return;
  }
  if(kind == REF_GEO_MV_EP)
    p->board[p->ep_victim] = REF_GEO_EMPTY;
  p->board[to] = kind == REF_GEO_MV_PROMO ? REF_GEO_PIECE(us, ref_geo_move_promo(m)) : code;
  p->board[from] = REF_GEO_EMPTY;
  if(REF_GEO_TYPE(code) == REF_GEO_KING)
    p->king[us] = (uint8_t)to;
}

bool ref_geo_leaves_check(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t m)
{
  struct ref_geo_pos c = *p;
  move_pieces(g, &c, m);
  return ref_geo_attacked(g, &c, c.king[p->side], p->side ^ 1);
}

/* Our pieces that are the only thing between our king and an enemy slider
 * (128-bit set). Every other non-king move keeps the king as safe as it
 * was, so only these, king moves, e.p. and castling need a trial move. */
static void pinned_set(const struct ref_geo *g, const struct ref_geo_pos *p, uint64_t *pinned)
{
  int us = p->side, them = us ^ 1, k = p->king[us], d;

  pinned[0] = pinned[1] = 0;
  for(d = 0; d < 8; d++) {
    uint8_t slider = REF_GEO_PIECE(them, d & 1 ? REF_GEO_BISHOP : REF_GEO_ROOK);
    uint8_t queen = REF_GEO_PIECE(them, REF_GEO_QUEEN);
    int c = g->step[k][d], first = -1;
    while(c != REF_GEO_NONE) {
      int code = p->board[c];
      if(code != REF_GEO_EMPTY) {
        if(first < 0 && REF_GEO_COLOR(code) == us) {
          first = c;
        }
        else {
          if(first >= 0 && (code == slider || code == queen))
            set_bit(pinned, first);
          break;
        }
      }
      c = g->step[c][d];
    }
  }
}

int ref_geo_gen_legal(const struct ref_geo *g, const struct ref_geo_pos *p, uint32_t *moves)
{
  uint32_t buf[REF_GEO_MAX_MOVES], *pm = moves ? moves : buf;
  uint64_t pinned[2];
  int i, n = ref_geo_gen_pseudo(g, p, pm), kept = 0, us = p->side;
  bool check = ref_geo_attacked(g, p, p->king[us], us ^ 1);

  pinned_set(g, p, pinned);
  for(i = 0; i < n; i++) {
    uint32_t m = pm[i];
    int from = ref_geo_move_from(m), kind = ref_geo_move_kind(m);
    bool safe = !check && from != p->king[us] && kind != REF_GEO_MV_EP &&
                kind != REF_GEO_MV_CASTLE && !has_bit(pinned, from);
    if(safe || !ref_geo_leaves_check(g, p, m))
      pm[kept++] = m;
  }
  return kept;
}

/* After a two-step that crossed `mid`, with the opponent now to move: can
 * a pawn of theirs take e.p. without exposing its king (FIDE 9.2.3: only
 * then do positions differ)? BB-6: the capturing pawn must attack `mid`. */
static bool ep_possible(const struct ref_geo *g, const struct ref_geo_pos *p)
{
  int us = p->side, k;
  for(k = 0; k < 2; k++) {
    int o = g->step[p->ep][g->capt[us][k] ^ 4];
    if(o != REF_GEO_NONE && p->board[o] == REF_GEO_PIECE(us, REF_GEO_PAWN) &&
       !ref_geo_leaves_check(g, p, ref_geo_move(o, p->ep, REF_GEO_MV_EP, 0)))
      return true;
  }
  return false;
}

void ref_geo_make(const struct ref_geo *g, struct ref_geo_pos *p, uint32_t m)
{
  int from = ref_geo_move_from(m), to = ref_geo_move_to(m), kind = ref_geo_move_kind(m);
  int type = REF_GEO_TYPE(p->board[from]), diff = to - from;
  bool capture = p->board[to] != REF_GEO_EMPTY || kind == REF_GEO_MV_EP;

  move_pieces(g, p, m);
  p->ep = p->ep_victim = REF_GEO_NONE;
  if(p->halfmove < REF_GEO_COUNTER_MAX)
    p->halfmove++;
  /* FIDE 9.3: captures and pawn moves reset the fifty-move count. */
  if(capture || type == REF_GEO_PAWN)
    p->halfmove = 0;
  /* BB-4: a pawn that moves, or is taken, is no longer unmoved. */
  p->virgin[from >> 6] &= ~(1ull << (from & 63));
  p->virgin[to >> 6] &= ~(1ull << (to & 63));
  p->castle &= (uint8_t)(g->castle_keep[from] & g->castle_keep[to]);
  p->side ^= 1;
  if(p->side == REF_GEO_WHITE && p->fullmove < REF_GEO_COUNTER_MAX)
    p->fullmove++;
  /* BB-6: a two-step, forward or sideways, leaves the crossed square open
   * to e.p. for one move. Pawn pushes are orthogonal, so two squares apart
   * in index space is 2 (a row) or 32 (a column). */
  if(type == REF_GEO_PAWN && !capture &&
     (diff == 2 || diff == -2 || diff == 2 * REF_GEO_ROW || diff == -2 * REF_GEO_ROW)) {
    p->ep = (uint8_t)((from + to) / 2);
    p->ep_victim = (uint8_t)to;
    if(!ep_possible(g, p))
      p->ep = p->ep_victim = REF_GEO_NONE;
  }
}

static uint64_t perft_rec(const struct ref_geo *g, const struct ref_geo_pos *p, int depth)
{
  uint32_t moves[REF_GEO_MAX_MOVES];
  uint64_t total = 0;
  int i, n;

  if(depth == 1)
    return (uint64_t)ref_geo_gen_legal(g, p, NULL);
  n = ref_geo_gen_legal(g, p, moves);
  for(i = 0; i < n; i++) {
    struct ref_geo_pos c = *p;
    ref_geo_make(g, &c, moves[i]);
    total += perft_rec(g, &c, depth - 1);
  }
  return total;
}

uint64_t ref_geo_perft(const struct ref_geo *g, const struct ref_geo_pos *p, int depth)
{
  return depth <= 0 ? 1 : perft_rec(g, p, depth);
}

/* ------------------------------------------------------------------------ */
/* The key: SplitMix64 of a feature index, XORed over the features. */

static uint64_t mix(uint64_t i)
{
  uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint64_t ref_geo_key(const struct ref_geo_pos *p)
{
  uint64_t key = 0;
  int c;

  for(c = 0; c < REF_GEO_CELLS; c++) {
    int code = p->board[c];
    if(code != REF_GEO_EMPTY)
      key ^= mix((uint64_t)((REF_GEO_COLOR(code) * 6 + REF_GEO_TYPE(code)) * REF_GEO_CELLS + c));
    if(ref_geo_is_virgin(p, c))
      key ^= mix(2000u + (uint64_t)c);
  }
  if(p->side == REF_GEO_BLACK)
    key ^= mix(1536);
  key ^= mix(1540u + p->castle);
  if(p->ep != REF_GEO_NONE)
    key ^= mix(1600u + p->ep);
  return key;
}

/* ------------------------------------------------------------------------ */
/* FEN */

void ref_geo_square_name(int cell, char *out)
{
  out[0] = (char)('a' + ref_geo_col(cell));
  out[1] = (char)('1' + ref_geo_row(cell));
  out[2] = '\0';
}

/* At most 8 pawns, and every piece beyond the start set a promoted pawn. */
static bool material_possible(const struct ref_geo_pos *p, int color)
{
  int count[6] = {0}, c, extra = 0;
  for(c = 0; c < REF_GEO_CELLS; c++)
    if(p->board[c] != REF_GEO_EMPTY && REF_GEO_COLOR(p->board[c]) == color)
      count[REF_GEO_TYPE(p->board[c])]++;
  extra += count[REF_GEO_QUEEN] > 1 ? count[REF_GEO_QUEEN] - 1 : 0;
  extra += count[REF_GEO_ROOK] > 2 ? count[REF_GEO_ROOK] - 2 : 0;
  extra += count[REF_GEO_BISHOP] > 2 ? count[REF_GEO_BISHOP] - 2 : 0;
  extra += count[REF_GEO_KNIGHT] > 2 ? count[REF_GEO_KNIGHT] - 2 : 0;
  return count[REF_GEO_PAWN] <= 8 && extra <= 8 - count[REF_GEO_PAWN];
}

/* A square name inside the board at s (2 characters), or -1. */
static int board_square(const struct ref_geo *g, const char *s)
{
  int cell = parse_square(s, g->cols, g->rows);
  return cell >= 0 && g->exists[cell] ? cell : -1;
}

/* Is the e.p. record (crossed square, pawn) consistent with p? The pawn of
 * the side that just moved stands two pushes from an empty start square,
 * the crossed square between them (BB-6). */
static bool ep_record_ok(const struct ref_geo *g, const struct ref_geo_pos *p, int ep, int victim)
{
  int mover = p->side ^ 1, k, origin;
  if(p->board[ep] != REF_GEO_EMPTY || p->board[victim] != REF_GEO_PIECE(mover, REF_GEO_PAWN) ||
     p->halfmove != 0)
    return false;
  for(k = 0; k < g->npush; k++) {
    int d = g->push[mover][k];
    if(g->step[ep][d] != victim)
      continue;
    origin = g->step[ep][d ^ 4];
    return origin != REF_GEO_NONE && p->board[origin] == REF_GEO_EMPTY &&
           has_bit(g->pawn_start[mover], origin);
  }
  return false;
}

int ref_geo_fen_read(const struct ref_geo *g, struct ref_geo_pos *p, const char *fen,
                     const char **reason)
{
  char buf[256], *field[8], *s;
  int nfield = 0, row, col, color, c;
  uint32_t half = 0, full = 1;

  *reason = "geo-fen-syntax";
  if(!fen || (nfield = ref_text_fields(fen, buf, sizeof(buf), field, 7)) < 0)
    return REF_EINVAL;
  if(nfield != 4 && nfield != 6 && nfield != 7)
    return REF_EINVAL;

  memset(p, 0, sizeof(*p));
  p->ep = p->ep_victim = REF_GEO_NONE;
  p->king[0] = p->king[1] = REF_GEO_NONE;

  /* Rows from the top; every cell accounted for exactly once, '#' exactly
   * where the geometry has no square (BB-1). */
  *reason = "geo-fen-board";
  row = g->rows - 1;
  col = 0;
  for(s = field[0]; *s; s++) {
    int ch = (unsigned char)*s;
    if(ch == '/') {
      if(col != g->cols || row == 0)
        return REF_EINVAL;
      row--;
      col = 0;
    }
    else if(ch >= '1' && ch <= '9') {
      int run = ch - '0';
      /* No leading zero, no two runs in a row ("44" is not canonical). */
      if(s > field[0] && s[-1] >= '0' && s[-1] <= '9')
        return REF_EINVAL;
      if(s[1] >= '0' && s[1] <= '9') {
        run = run * 10 + (s[1] - '0');
        s++;
        if(s[1] >= '0' && s[1] <= '9')
          return REF_EINVAL;
      }
      if(col + run > g->cols)
        return REF_EINVAL;
      for(; run > 0; run--, col++)
        if(!g->exists[row * REF_GEO_ROW + col])
          return REF_EINVAL;
    }
    else if(ch == '#') {
      if(col >= g->cols || g->exists[row * REF_GEO_ROW + col])
        return REF_EINVAL;
      col++;
    }
    else {
      const char *hit = strchr(piece_letters, ch >= 'a' ? ch - 'a' + 'A' : ch);
      int cell = row * REF_GEO_ROW + col;
      if(!ch || !hit || col >= g->cols || !g->exists[cell])
        return REF_EINVAL;
      color = ch >= 'a' ? REF_GEO_BLACK : REF_GEO_WHITE;
      p->board[cell] = REF_GEO_PIECE(color, (int)(hit - piece_letters));
      if(hit - piece_letters == REF_GEO_KING) {
        if(p->king[color] != REF_GEO_NONE) {
          *reason = "geo-fen-kings";
          return REF_EINVAL;
        }
        p->king[color] = (uint8_t)cell;
      }
      col++;
    }
  }
  if(row != 0 || col != g->cols)
    return REF_EINVAL;

  *reason = "geo-fen-kings";
  if(p->king[0] == REF_GEO_NONE || p->king[1] == REF_GEO_NONE)
    return REF_EINVAL;
  *reason = "geo-fen-pawn-row";
  for(c = 0; c < REF_GEO_CELLS; c++) {
    int code = p->board[c];
    if(code != REF_GEO_EMPTY && REF_GEO_TYPE(code) == REF_GEO_PAWN &&
       ((g->pawn_bad_rows[REF_GEO_COLOR(code)] >> ref_geo_row(c)) & 1u))
      return REF_EINVAL;
  }
  *reason = "geo-fen-material";
  if(!material_possible(p, REF_GEO_WHITE) || !material_possible(p, REF_GEO_BLACK))
    return REF_EINVAL;

  *reason = "geo-fen-side";
  if(!strcmp(field[1], "w"))
    p->side = REF_GEO_WHITE;
  else if(!strcmp(field[1], "b"))
    p->side = REF_GEO_BLACK;
  else
    return REF_EINVAL;

  *reason = "geo-fen-castling";
  if(strcmp(field[2], "-")) {
    for(s = field[2]; *s; s++) {
      const struct ref_geo_castle *cg = NULL;
      int i;
      for(i = 0; i < g->ncastles; i++)
        if(g->castles[i].letter == *s)
          cg = &g->castles[i];
      if(!cg || (p->castle & cg->right) ||
         p->board[cg->king_from] != REF_GEO_PIECE(cg->color, REF_GEO_KING) ||
         p->board[cg->rook_from] != REF_GEO_PIECE(cg->color, REF_GEO_ROOK))
        return REF_EINVAL;
      p->castle |= cg->right;
    }
  }

  if(nfield >= 6) {
    *reason = "geo-fen-counters";
    if(!ref_text_counter(field[4], 6, &half) || !ref_text_counter(field[5], 6, &full) || full < 1)
      return REF_EINVAL;
  }
  p->halfmove = half;
  p->fullmove = full;

  /* BB-4: pawns on their own start squares are unmoved unless field 7
   * names them. */
  for(c = 0; c < REF_GEO_CELLS; c++) {
    int code = p->board[c];
    if(code != REF_GEO_EMPTY && REF_GEO_TYPE(code) == REF_GEO_PAWN &&
       has_bit(g->pawn_start[REF_GEO_COLOR(code)], c))
      set_bit(p->virgin, c);
  }
  if(nfield == 7 && strcmp(field[6], "-")) {
    *reason = "geo-fen-moved";
    for(s = field[6]; *s; s += 2) {
      int cell = board_square(g, s);
      if(cell < 0 || !ref_geo_is_virgin(p, cell))
        return REF_EINVAL;
      p->virgin[cell >> 6] &= ~(1ull << (cell & 63));
    }
  }

  *reason = "geo-fen-en-passant";
  if(strcmp(field[3], "-")) {
    int ep = board_square(g, field[3]), victim = -1;
    if(ep < 0)
      return REF_EINVAL;
    if(field[3][2]) {
      victim = board_square(g, field[3] + 2);
      if(victim < 0 || field[3][4])
        return REF_EINVAL;
    }
    else {
      victim = g->step[ep][g->push[p->side ^ 1][0]];
      if(victim == REF_GEO_NONE)
        return REF_EINVAL;
    }
    if(!ep_record_ok(g, p, ep, victim))
      return REF_EINVAL;
    /* The pawn that just stepped two has moved, whatever field 7 says. */
    p->virgin[victim >> 6] &= ~(1ull << (victim & 63));
    p->ep = (uint8_t)ep;
    p->ep_victim = (uint8_t)victim;
  }

  *reason = "geo-fen-check";
  if(ref_geo_attacked(g, p, p->king[p->side ^ 1], p->side))
    return REF_EINVAL;
  /* Keep the e.p. square only when a capture is legal (chess.c does too),
   * so equal positions hash equal. */
  if(p->ep != REF_GEO_NONE && !ep_possible(g, p))
    p->ep = p->ep_victim = REF_GEO_NONE;
  *reason = NULL;
  return REF_OK;
}

int ref_geo_fen_write(const struct ref_geo *g, const struct ref_geo_pos *p, char *buf, size_t cap)
{
  char out[256];
  size_t k = 0;
  int row, col, i, c, empty;
  bool any = false;

  for(row = g->rows - 1; row >= 0; row--) {
    empty = 0;
    for(col = 0; col < g->cols; col++) {
      int cell = row * REF_GEO_ROW + col, code = p->board[cell];
      if(g->exists[cell] && code == REF_GEO_EMPTY) {
        empty++;
        continue;
      }
      if(empty)
        k += (size_t)snprintf(out + k, sizeof(out) - k, "%d", empty);
      empty = 0;
      if(!g->exists[cell]) {
        out[k++] = '#';
        continue;
      }
      out[k] = piece_letters[REF_GEO_TYPE(code)];
      if(REF_GEO_COLOR(code) == REF_GEO_BLACK)
        out[k] = (char)(out[k] - 'A' + 'a');
      k++;
    }
    if(empty)
      k += (size_t)snprintf(out + k, sizeof(out) - k, "%d", empty);
    if(row)
      out[k++] = '/';
  }
  out[k++] = ' ';
  out[k++] = p->side == REF_GEO_WHITE ? 'w' : 'b';
  out[k++] = ' ';
  for(i = 0; i < g->ncastles; i++)
    if(p->castle & g->castles[i].right) {
      out[k++] = g->castles[i].letter;
      any = true;
    }
  if(!any)
    out[k++] = '-';
  out[k++] = ' ';
  if(p->ep == REF_GEO_NONE) {
    out[k++] = '-';
  }
  else {
    ref_geo_square_name(p->ep, out + k);
    k += 2;
    if(g->step[p->ep][g->push[p->side ^ 1][0]] != p->ep_victim) {
      ref_geo_square_name(p->ep_victim, out + k);
      k += 2;
    }
  }
  k += (size_t)snprintf(out + k, sizeof(out) - k, " %u %u", (unsigned)p->halfmove,
                        (unsigned)p->fullmove);
  any = false;
  for(c = 0; c < REF_GEO_CELLS; c++) {
    int code = p->board[c];
    if(code != REF_GEO_EMPTY && REF_GEO_TYPE(code) == REF_GEO_PAWN &&
       has_bit(g->pawn_start[REF_GEO_COLOR(code)], c) && !ref_geo_is_virgin(p, c)) {
      if(!any)
        out[k++] = ' ';
      any = true;
      ref_geo_square_name(c, out + k);
      k += 2;
    }
  }
  out[k] = '\0';
  if(k + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
}

/* ------------------------------------------------------------------------ */
/* The invariant checker */

bool ref_geo_pos_ok(const struct ref_geo *g, const struct ref_geo_pos *p)
{
  int kings[2] = {0, 0}, c, i;
  uint8_t rights = 0;

  if(p->side > 1 || p->fullmove < 1)
    return false;
  for(i = 0; i < g->ncastles; i++)
    rights |= g->castles[i].right;
  if(p->castle & ~rights)
    return false;
  for(c = 0; c < REF_GEO_CELLS; c++) {
    int code = p->board[c], color, type;
    if(code == REF_GEO_EMPTY) {
      if(ref_geo_is_virgin(p, c))
        return false;
      continue;
    }
    /* No piece on a cell that is not a square (BB-1). */
    if(!g->exists[c])
      return false;
    color = REF_GEO_COLOR(code);
    type = REF_GEO_TYPE(code);
    if(color > 1 || type < 0 || type > REF_GEO_KING)
      return false;
    if(type == REF_GEO_KING) {
      kings[color]++;
      if(p->king[color] != c)
        return false;
    }
    if(type == REF_GEO_PAWN && ((g->pawn_bad_rows[color] >> ref_geo_row(c)) & 1u))
      return false;
    if(ref_geo_is_virgin(p, c) && (type != REF_GEO_PAWN || !has_bit(g->pawn_start[color], c)))
      return false;
  }
  if(kings[0] != 1 || kings[1] != 1)
    return false;
  for(i = 0; i < g->ncastles; i++) {
    const struct ref_geo_castle *cg = &g->castles[i];
    if((p->castle & cg->right) &&
       (p->board[cg->king_from] != REF_GEO_PIECE(cg->color, REF_GEO_KING) ||
        p->board[cg->rook_from] != REF_GEO_PIECE(cg->color, REF_GEO_ROOK)))
      return false;
  }
  if(ref_geo_attacked(g, p, p->king[p->side ^ 1], p->side))
    return false;
  if(p->ep == REF_GEO_NONE)
    return p->ep_victim == REF_GEO_NONE;
  if(p->ep >= REF_GEO_CELLS || p->ep_victim >= REF_GEO_CELLS || !g->exists[p->ep] ||
     ref_geo_is_virgin(p, p->ep_victim))
    return false;
  return ep_record_ok(g, p, p->ep, p->ep_victim) && ep_possible(g, p);
}
