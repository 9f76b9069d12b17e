/*
 * cwda_board.c: the board of Chess with Different Armies (rules-spec.md
 * §12): set-up, FEN, attacks, legal moves, make and perft, moving every
 * piece but pawn and king by the tables armies.c read from Betza's
 * notation. Chess rules §2.2 otherwise: a move may not leave one's own king
 * attacked; castling DA-3 (CH-1 for the squares the king crosses);
 * promotion DA-5; en passant DA-6.
 */
#include "armies_int.h"
#include "chess_int.h"
#include "chess_notation_int.h"
#include "game_text_int.h"

#include <stdio.h>
#include <string.h>

#define BIT(s) (1ull << (s))

bool ref_cwda_tables_init(struct ref_cwda_tables *t, int white, int black)
{
  memset(t, 0, sizeof(*t));
  if(white < 0 || white >= REF_ARMY_COUNT || black < 0 || black >= REF_ARMY_COUNT)
    return false;
  t->army[0] = (uint8_t)white;
  t->army[1] = (uint8_t)black;
  for(int c = 0; c < 2; c++) {
    /* The pawn's table holds its captures (fF); its steps are the pawn's
     * own rules (§2.2), not a table's. */
    if(!ref_betza_read("fF", c, &t->moves[c][REF_AK_PAWN]) ||
       !ref_betza_read("K", c, &t->moves[c][REF_AK_KING]))
      return false;
    for(int slot = 0; slot < REF_ARMY_SLOTS; slot++)
      for(int side = 0; side < 2; side++) {
        /* Both armies' pieces for both colours: attacks on a square are
         * found with the other colour's table (below). */
        int army = t->army[side], kind = REF_AK_OF(army, slot);
        if(!ref_betza_read(ref_armies[army].piece[slot].betza, c, &t->moves[c][kind]))
          return false;
      }
  }
  return true;
}

/* ---- primitives ---- */

static void put(struct ref_cwda_pos *p, int color, int kind, int sq)
{
  p->bb[color][kind] |= BIT(sq);
  p->occ[color] |= BIT(sq);
  p->board[sq] = REF_AK_CODE(color, kind);
}

static void take(struct ref_cwda_pos *p, int sq)
{
  int code = p->board[sq];
  if(!code)
    return;
  p->bb[REF_AK_COLOR(code)][REF_AK_KIND(code)] &= ~BIT(sq);
  p->occ[REF_AK_COLOR(code)] &= ~BIT(sq);
  p->board[sq] = 0;
}

static void clear(struct ref_cwda_pos *p)
{
  memset(p, 0, sizeof(*p));
  p->ep = REF_CH_NO_SQ;
  p->fullmove = 1;
}

void ref_cwda_start(const struct ref_cwda_tables *t, struct ref_cwda_pos *p)
{
  static const int back[8] = {REF_ARMY_ROOK,   REF_ARMY_KNIGHT, REF_ARMY_BISHOP, REF_ARMY_QUEEN,
                              -1,              REF_ARMY_BISHOP, REF_ARMY_KNIGHT, REF_ARMY_ROOK};
  clear(p);
  for(int c = 0; c < 2; c++)
    for(int f = 0; f < 8; f++) {
      int home = c ? 56 + f : f, pawn = c ? 48 + f : 8 + f;
      put(p, c, back[f] < 0 ? REF_AK_KING : REF_AK_OF(t->army[c], back[f]), home);
      put(p, c, REF_AK_PAWN, pawn);
    }
  p->castle = REF_CH_WK | REF_CH_WQ | REF_CH_BK | REF_CH_BQ;
}

/* ---- attacks ---- */

static uint64_t ray_att(const struct ref_betza_moves *m, int sq, uint64_t occ)
{
  uint64_t att = 0;
  for(int i = 0; i < m->nrays; i++) {
    int r = sq / 8, f = sq % 8, n = 0;
    for(;;) {
      r += m->ray[i].dr;
      f += m->ray[i].df;
      if(r < 0 || r > 7 || f < 0 || f > 7)
        break;
      att |= BIT(r * 8 + f);
      if(occ & BIT(r * 8 + f) || (m->ray[i].max && ++n >= m->ray[i].max))
        break;
    }
  }
  return att;
}

/* Squares a piece of `kind` and `color` on sq attacks (moves to, for all
 * but the pawn). */
static uint64_t piece_att(const struct ref_cwda_tables *t, int color, int kind, int sq, uint64_t occ)
{
  const struct ref_betza_moves *m = &t->moves[color][kind];
  return m->leap[sq] | (m->nrays ? ray_att(m, sq, occ) : 0);
}

/* Every piece of every army is symmetric left to right (a unit test checks
 * it), so the squares from which a piece of colour `by` attacks sq are the
 * squares the same piece of the other colour attacks from sq. */
static bool attacked_occ(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, int sq,
                         int by, uint64_t occ)
{
  for(int kind = 0; kind < REF_AK_COUNT; kind++) {
    uint64_t mine = p->bb[by][kind] & occ;
    if(mine && (piece_att(t, !by, kind, sq, occ) & mine))
      return true;
  }
  return false;
}

bool ref_cwda_attacked(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, int sq, int by)
{
  return attacked_occ(t, p, sq, by, p->occ[0] | p->occ[1]);
}

static int king_sq(const struct ref_cwda_pos *p, int c)
{
  uint64_t k = p->bb[c][REF_AK_KING];
  return k ? ref_chess_lsb(k) : -1;
}

bool ref_cwda_in_check(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p)
{
  int k = king_sq(p, p->side);
  return k >= 0 && ref_cwda_attacked(t, p, k, !p->side);
}

/* ---- making moves ---- */

/* Rights that survive a move touching a square (as chess: the king's and
 * the corner pieces' home squares). */
static uint8_t castle_keep(int sq)
{
  switch(sq) {
  case 0: return 15 & ~REF_CH_WQ;
  case 4: return 15 & ~(REF_CH_WK | REF_CH_WQ);
  case 7: return 15 & ~REF_CH_WK;
  case 56: return 15 & ~REF_CH_BQ;
  case 60: return 15 & ~(REF_CH_BK | REF_CH_BQ);
  case 63: return 15 & ~REF_CH_BK;
  default: return 15;
  }
}

/* The corner piece's squares in castling from its destination for the
 * king: (rook from, rook to). */
static void castle_rook(const struct ref_cwda_tables *t, int color, int kto, int *rfrom, int *rto)
{
  int base = color ? 56 : 0;
  const struct ref_army *a = &ref_armies[t->army[color]];
  if(kto == base + 6) {
    *rfrom = base + 7;
    *rto = base + 5;
  }
  else {
    (void)a;
    *rfrom = base;
    *rto = base + a->long_rook_file;
  }
}

void ref_cwda_make(const struct ref_cwda_tables *t, struct ref_cwda_pos *p, uint16_t m)
{
  int from = ref_cwda_move_from(m), to = ref_cwda_move_to(m), kind = ref_cwda_move_kind(m);
  int us = p->side, code = p->board[from], moving = REF_AK_KIND(code);
  bool capture = p->board[to] != 0 || kind == REF_CWDA_MV_EP;

  p->ep = REF_CH_NO_SQ;
  if(kind == REF_CWDA_MV_CASTLE) {
    int rfrom, rto;
    castle_rook(t, us, to, &rfrom, &rto);
    int rook = REF_AK_KIND(p->board[rfrom]);
    take(p, from);
    take(p, rfrom);
    put(p, us, REF_AK_KING, to);
    put(p, us, rook, rto);
  }
  else {
    if(kind == REF_CWDA_MV_EP)
      take(p, us ? to + 8 : to - 8);
    take(p, to);
    take(p, from);
    put(p, us,
        kind == REF_CWDA_MV_PROMO ? REF_AK_OF(t->army[us], ref_cwda_move_slot(m)) : moving, to);
  }
  p->castle &= castle_keep(from) & castle_keep(to);
  if(moving == REF_AK_PAWN || capture)
    p->halfmove = 0;
  else if(p->halfmove < REF_CH_COUNTER_MAX)
    p->halfmove++;
  if(us == 1 && p->fullmove < REF_CH_COUNTER_MAX)
    p->fullmove++;
  p->side = (uint8_t)!us;
  /* e.p. square only when a capture there is legal (FIDE 9.2.3, as chess). */
  if(moving == REF_AK_PAWN && (to - from == 16 || from - to == 16)) {
    int mid = (from + to) / 2, them = !us;
    uint64_t capturers = t->moves[us][REF_AK_PAWN].leap[mid] & p->bb[them][REF_AK_PAWN];
    while(capturers) {
      int c = ref_chess_lsb(capturers);
      struct ref_cwda_pos q = *p;
      capturers &= capturers - 1;
      take(&q, to);
      take(&q, c);
      put(&q, them, REF_AK_PAWN, mid);
      int k = king_sq(&q, them);
      if(k < 0 || !ref_cwda_attacked(t, &q, k, us)) {
        p->ep = (uint8_t)mid;
        break;
      }
    }
  }
}

/* ---- generation ---- */

static int add_pawn_moves(const struct ref_cwda_pos *p, int from, int to, uint16_t *out, int n)
{
  int last = p->side ? 0 : 7;
  if(to / 8 == last) {
    /* DA-5: a piece of the pawn's own army, any of its four. */
    for(int slot = 0; slot < REF_ARMY_SLOTS; slot++)
      out[n++] = ref_cwda_move(from, to, REF_CWDA_MV_PROMO, slot);
  }
  else
    out[n++] = ref_cwda_move(from, to, REF_CWDA_MV_NORMAL, 0);
  return n;
}

int ref_cwda_gen_pseudo(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t *out)
{
  int us = p->side, them = !us, n = 0;
  uint64_t occ = p->occ[0] | p->occ[1];

  for(int kind = 0; kind < REF_AK_COUNT; kind++) {
    uint64_t b = p->bb[us][kind];
    while(b) {
      int from = ref_chess_lsb(b);
      b &= b - 1;
      if(kind == REF_AK_PAWN) {
        int step = us ? -8 : 8, one = from + step;
        uint64_t caps = t->moves[us][REF_AK_PAWN].leap[from] & p->occ[them];
        if(!(occ & BIT(one))) {
          n = add_pawn_moves(p, from, one, out, n);
          if(from / 8 == (us ? 6 : 1) && !(occ & BIT(one + step)))
            out[n++] = ref_cwda_move(from, one + step, REF_CWDA_MV_NORMAL, 0);
        }
        while(caps) {
          int to = ref_chess_lsb(caps);
          caps &= caps - 1;
          n = add_pawn_moves(p, from, to, out, n);
        }
        if(p->ep != REF_CH_NO_SQ && (t->moves[us][REF_AK_PAWN].leap[from] & BIT(p->ep)))
          out[n++] = ref_cwda_move(from, p->ep, REF_CWDA_MV_EP, 0);
        continue;
      }
      uint64_t to_set = piece_att(t, us, kind, from, occ) & ~p->occ[us];
      while(to_set) {
        int to = ref_chess_lsb(to_set);
        to_set &= to_set - 1;
        out[n++] = ref_cwda_move(from, to, REF_CWDA_MV_NORMAL, 0);
      }
    }
  }
  /* DA-3 castling: king on e1/e8, its army's corner piece on its corner,
   * every square between them empty; the king not in check and no square it
   * crosses or lands on attacked (CH-1). Legal as listed. */
  int base = us ? 56 : 0, king = base + 4;
  int rights[2] = {us ? REF_CH_BK : REF_CH_WK, us ? REF_CH_BQ : REF_CH_WQ};
  int corner_kind = REF_AK_OF(t->army[us], REF_ARMY_ROOK);
  if((p->castle & (rights[0] | rights[1])) && p->board[king] == REF_AK_CODE(us, REF_AK_KING) &&
     !attacked_occ(t, p, king, them, occ)) {
    for(int side = 0; side < 2; side++) {
      int corner = side ? base : base + 7;
      int kto = side ? base + ref_armies[t->army[us]].long_king_file : base + 6;
      int lo = corner < king ? corner : king, hi = corner < king ? king : corner;
      bool ok = (p->castle & rights[side]) && p->board[corner] == REF_AK_CODE(us, corner_kind);
      for(int s = lo + 1; ok && s < hi; s++)
        ok = !(occ & BIT(s));
      for(int s = king + (kto > king ? 1 : -1); ok; s += kto > king ? 1 : -1) {
        ok = !attacked_occ(t, p, s, them, occ);
        if(s == kto)
          break;
      }
      if(ok)
        out[n++] = ref_cwda_move(king, kto, REF_CWDA_MV_CASTLE, 0);
    }
  }
  return n;
}

int ref_cwda_gen_legal(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t *moves)
{
  uint16_t pseudo[REF_CWDA_MAX_MOVES];
  int n = ref_cwda_gen_pseudo(t, p, pseudo), legal = 0;
  for(int i = 0; i < n; i++) {
    struct ref_cwda_pos q = *p;
    int k;
    if(ref_cwda_move_kind(pseudo[i]) == REF_CWDA_MV_CASTLE) {
      moves[legal++] = pseudo[i];
      continue;
    }
    ref_cwda_make(t, &q, pseudo[i]);
    k = king_sq(&q, p->side);
    if(k < 0 || !ref_cwda_attacked(t, &q, k, q.side))
      moves[legal++] = pseudo[i];
  }
  return legal;
}

uint64_t ref_cwda_perft(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, int depth)
{
  uint16_t moves[REF_CWDA_MAX_MOVES];
  int n;
  uint64_t sum = 0;
  if(depth <= 0)
    return 1;
  n = ref_cwda_gen_legal(t, p, moves);
  if(depth == 1)
    return (uint64_t)n;
  for(int i = 0; i < n; i++) {
    struct ref_cwda_pos q = *p;
    ref_cwda_make(t, &q, moves[i]);
    sum += ref_cwda_perft(t, &q, depth - 1);
  }
  return sum;
}

/* ---- text ---- */

int ref_cwda_uci(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t m,
                 char *buf, size_t cap)
{
  int from = ref_cwda_move_from(m), to = ref_cwda_move_to(m);
  char promo[2] = {0, 0};
  if(ref_cwda_move_kind(m) == REF_CWDA_MV_PROMO)
    promo[0] = (char)(ref_armies[t->army[p->side]].piece[ref_cwda_move_slot(m)].letter - 'A' + 'a');
  int len = snprintf(buf, cap, "%c%d%c%d%s", 'a' + from % 8, from / 8 + 1, 'a' + to % 8, to / 8 + 1,
                     promo);
  return len < 0 || (size_t)len >= cap ? REF_EINVAL : REF_OK;
}

void ref_cwda_describe(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t m,
                       struct ref_cn_move *d)
{
  int from = ref_cwda_move_from(m), to = ref_cwda_move_to(m), kind = ref_cwda_move_kind(m);

  memset(d, 0, sizeof(*d));
  d->kind = kind == REF_CWDA_MV_CASTLE ? REF_CN_CASTLE : REF_CN_NORMAL;
  d->piece = (int8_t)ref_army_cn_type(REF_AK_KIND(p->board[from]));
  d->ff = (int8_t)(from % 8);
  d->fr = (int8_t)(from / 8 + 1);
  d->tf = (int8_t)(to % 8);
  d->tr = (int8_t)(to / 8 + 1);
  /* DA-5: the slot names a piece of the mover's own army. */
  d->promo = (int8_t)(kind == REF_CWDA_MV_PROMO
                        ? ref_army_cn_type(REF_AK_OF(t->army[p->side], ref_cwda_move_slot(m)))
                        : -1);
  d->capture = p->board[to] != 0 || kind == REF_CWDA_MV_EP;
  d->castle = to > from ? 1 : 2;
  d->by_squares = 1; /* e1g1, e1b1, Kb1: the king's move is the castling */
}

/* SAN as chess writes it (PGN standard §8.2.3, chess_board.c), with the
 * letters of DA-4: the piece's letter, then the origin's file, rank or both
 * when another piece of the same kind reaches the square, x for a capture,
 * =L for a promotion into the own army (DA-5), O-O-O for every long
 * castling (DA-3: the Clobberers' e1b1 too), + or #. */
int ref_cwda_san(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t m,
                 char *buf, size_t cap)
{
  char out[16];
  size_t k = 0;
  int from = ref_cwda_move_from(m), to = ref_cwda_move_to(m), kind = ref_cwda_move_kind(m);
  int moving = REF_AK_KIND(p->board[from]);
  bool capture = p->board[to] != 0 || kind == REF_CWDA_MV_EP;
  uint16_t moves[REF_CWDA_MAX_MOVES];
  struct ref_cwda_pos c;

  if(kind == REF_CWDA_MV_CASTLE) {
    memcpy(out, to > from ? "O-O" : "O-O-O", to > from ? 3 : 5);
    k = to > from ? 3 : 5;
  }
  else {
    if(moving != REF_AK_PAWN) {
      int i, n = ref_cwda_gen_legal(t, p, moves);
      bool others = false, same_file = false, same_rank = false;
      out[k++] = ref_army_kind_letter(moving);
      for(i = 0; i < n; i++) {
        int f2 = ref_cwda_move_from(moves[i]);
        if(f2 == from || ref_cwda_move_to(moves[i]) != to || p->board[f2] != p->board[from])
          continue;
        others = true;
        same_file |= f2 % 8 == from % 8;
        same_rank |= f2 / 8 == from / 8;
      }
      if(others && (!same_file || same_rank))
        out[k++] = (char)('a' + from % 8);
      if(others && same_file)
        out[k++] = (char)('1' + from / 8);
    }
    else if(capture)
      out[k++] = (char)('a' + from % 8);
    if(capture)
      out[k++] = 'x';
    out[k++] = (char)('a' + to % 8);
    out[k++] = (char)('1' + to / 8);
    if(kind == REF_CWDA_MV_PROMO) {
      out[k++] = '=';
      out[k++] = ref_armies[t->army[p->side]].piece[ref_cwda_move_slot(m)].letter;
    }
  }
  c = *p;
  ref_cwda_make(t, &c, m);
  if(ref_cwda_in_check(t, &c))
    out[k++] = ref_cwda_gen_legal(t, &c, moves) ? '+' : '#';
  out[k] = '\0';
  if(k + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, k + 1);
  return REF_OK;
}

int ref_cwda_fen_write(const struct ref_cwda_pos *p, char *buf, size_t cap)
{
  char out[128];
  size_t n = 0;
  for(int r = 7; r >= 0; r--) {
    int empty = 0;
    for(int f = 0; f < 8; f++) {
      int code = p->board[r * 8 + f];
      if(!code) {
        empty++;
        continue;
      }
      if(empty)
        out[n++] = (char)('0' + empty);
      empty = 0;
      char l = ref_army_kind_letter(REF_AK_KIND(code));
      out[n++] = REF_AK_COLOR(code) ? (char)(l - 'A' + 'a') : l;
    }
    if(empty)
      out[n++] = (char)('0' + empty);
    if(r)
      out[n++] = '/';
  }
  out[n] = 0;
  char castle[5] = "-";
  size_t c = 0;
  if(p->castle & REF_CH_WK)
    castle[c++] = 'K';
  if(p->castle & REF_CH_WQ)
    castle[c++] = 'Q';
  if(p->castle & REF_CH_BK)
    castle[c++] = 'k';
  if(p->castle & REF_CH_BQ)
    castle[c++] = 'q';
  if(c)
    castle[c] = 0;
  char ep[3] = "-";
  if(p->ep != REF_CH_NO_SQ) {
    ep[0] = (char)('a' + p->ep % 8);
    ep[1] = (char)('1' + p->ep / 8);
    ep[2] = 0;
  }
  int len = snprintf(buf, cap, "%s %c %s %s %u %u", out, p->side ? 'b' : 'w', castle, ep,
                     p->halfmove, p->fullmove);
  return len < 0 || (size_t)len >= cap ? REF_EINVAL : REF_OK;
}

/* The counts a side can have (as chess's ref_chess_material_possible):
 * at most eight pawns, and every piece beyond the army's start (two of the
 * corner, knight's and bishop's kinds, one of the queen's) a promoted pawn. */
static bool material_possible(const struct ref_cwda_pos *p, int c)
{
  int pawns = ref_chess_popcount(p->bb[c][REF_AK_PAWN]), extra = 0;
  for(int k = 2; k < REF_AK_COUNT; k++) {
    int n = ref_chess_popcount(p->bb[c][k]), start = REF_AK_SLOT(k) == REF_ARMY_QUEEN ? 1 : 2;
    extra += n > start ? n - start : 0;
  }
  return pawns <= 8 && extra <= 8 - pawns;
}

int ref_cwda_fen_armies(const char *fen, int army[2], const char **reason)
{
  army[0] = army[1] = -1;
  *reason = "fen-board";
  if(!fen)
    return REF_EINVAL;
  for(const char *s = fen; *s && *s != ' '; s++) {
    int kind = ref_army_letter_kind(*s), color = *s >= 'a';
    if(kind < 2)
      continue;
    if(army[color] >= 0 && army[color] != REF_AK_ARMY(kind)) {
      *reason = "da-fen-army";
      return REF_EINVAL;
    }
    army[color] = REF_AK_ARMY(kind);
  }
  *reason = NULL;
  return REF_OK;
}

/*
 * As strict as chess's reader (chess.c, ref_chess_fen_read; POS-1): four
 * or six fields and nothing else, one digit for a run of empty squares,
 * the counters bounded, the castling rights with king and corner piece at
 * home, the e.p. square only behind a pawn that just made its double step
 * (and the clock at 0), the side not to move not in check; the e.p. square
 * kept only when a capture there is legal (DA-6), so equal positions write
 * one FEN.
 */
int ref_cwda_fen_read(const struct ref_cwda_tables *t, struct ref_cwda_pos *p, const char *fen,
                      const char **reason)
{
  char buf[128], *field[7];
  int nfield, r = 7, f = 0;
  uint32_t half = 0, full = 1;

  *reason = "fen-syntax";
  clear(p);
  if(!fen || (nfield = ref_text_fields(fen, buf, sizeof(buf), field, 7)) < 0 ||
     (nfield != 4 && nfield != 6))
    return REF_EINVAL;
  *reason = "fen-board";
  for(const char *s = field[0]; *s; s++) {
    if(*s == '/') {
      if(f != 8 || r == 0)
        return REF_EINVAL;
      r--;
      f = 0;
    }
    else if(*s >= '1' && *s <= '8') {
      if(s > field[0] && s[-1] >= '1' && s[-1] <= '8')
        return REF_EINVAL; /* "44": not a FEN's board */
      f += *s - '0';
      if(f > 8)
        return REF_EINVAL;
    }
    else {
      int kind = ref_army_letter_kind(*s), color = *s >= 'a';
      if(kind < 0 || f > 7)
        return REF_EINVAL;
      /* A piece of an army belongs to its side's army only (DA-4). */
      if(kind >= 2 && REF_AK_ARMY(kind) != t->army[color]) {
        *reason = "da-fen-army";
        return REF_EINVAL;
      }
      if(kind == REF_AK_PAWN && (r == 0 || r == 7)) {
        *reason = "fen-pawn-rank";
        return REF_EINVAL;
      }
      put(p, color, kind, r * 8 + f);
      f++;
    }
  }
  if(r != 0 || f != 8)
    return REF_EINVAL;
  *reason = "fen-kings";
  if(ref_chess_popcount(p->bb[0][REF_AK_KING]) != 1 || ref_chess_popcount(p->bb[1][REF_AK_KING]) != 1)
    return REF_EINVAL;
  *reason = "fen-material";
  if(!material_possible(p, 0) || !material_possible(p, 1))
    return REF_EINVAL;
  *reason = "fen-side";
  if(strcmp(field[1], "w") && strcmp(field[1], "b"))
    return REF_EINVAL;
  p->side = field[1][0] == 'b';
  if(nfield == 6) {
    *reason = "fen-counters";
    if(!ref_text_counter(field[4], 6, &half) || !ref_text_counter(field[5], 6, &full) || full < 1)
      return REF_EINVAL;
  }
  p->halfmove = half;
  p->fullmove = full;
  *reason = "fen-castling";
  if(strcmp(field[2], "-")) {
    for(const char *c = field[2]; *c; c++) {
      int bit = *c == 'K' ? REF_CH_WK : *c == 'Q' ? REF_CH_WQ : *c == 'k' ? REF_CH_BK : *c == 'q' ? REF_CH_BQ : 0;
      if(!bit || (p->castle & bit))
        return REF_EINVAL;
      int color = bit >= (int)REF_CH_BK, base = color ? 56 : 0;
      int corner = (bit == REF_CH_WK || bit == REF_CH_BK) ? base + 7 : base;
      if(p->board[base + 4] != REF_AK_CODE(color, REF_AK_KING) ||
         p->board[corner] != REF_AK_CODE(color, REF_AK_OF(t->army[color], REF_ARMY_ROOK)))
        return REF_EINVAL;
      p->castle |= (uint8_t)bit;
    }
  }
  *reason = "fen-en-passant";
  if(strcmp(field[3], "-")) {
    const char *eps = field[3];
    if(eps[0] < 'a' || eps[0] > 'h' || eps[1] != (p->side ? '3' : '6') || eps[2] || half != 0)
      return REF_EINVAL;
    int ep = (eps[1] - '1') * 8 + (eps[0] - 'a'), pawn = p->side ? ep + 8 : ep - 8;
    if(p->board[pawn] != REF_AK_CODE(!p->side, REF_AK_PAWN) || p->board[ep] ||
       p->board[p->side ? ep - 8 : ep + 8])
      return REF_EINVAL;
    p->ep = (uint8_t)ep;
  }
  /* The side not to move may not be in check. */
  *reason = "fen-check";
  if(ref_cwda_attacked(t, p, king_sq(p, !p->side), p->side))
    return REF_EINVAL;
  if(p->ep != REF_CH_NO_SQ) {
    uint16_t moves[REF_CWDA_MAX_MOVES];
    int n = ref_cwda_gen_legal(t, p, moves);
    bool any = false;
    for(int i = 0; i < n; i++)
      any |= ref_cwda_move_kind(moves[i]) == REF_CWDA_MV_EP;
    if(!any)
      p->ep = REF_CH_NO_SQ;
  }
  *reason = NULL;
  return REF_OK;
}
