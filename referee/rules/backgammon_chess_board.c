/*
 * backgammon_chess_board.c: Backgammon Chess's chess board with stones
 * (rules-spec.md section 6.3, 6.4): a stone to jail (BC-6), attack (BC-7),
 * the legal chess-board moves of the side to move (the chess core's
 * generator with stones as blockers and targets, the checkers generator on
 * the wrapping board for the stones), playing one, and its SAN (6.5).
 */
#include "backgammon_chess_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Stones                                                                  */
/* ---------------------------------------------------------------------- */

static uint64_t occ_all(const struct bc_state *st)
{
  return st->pos.occ[0] | st->pos.occ[1] | st->stones[0] | st->stones[1];
}

/* Checkers a side has on the chess board (V 1, X 2). */
int ref_bc_stone_checkers(const struct bc_state *st, int side)
{
  return ref_chess_popcount(st->stones[side]) + ref_chess_popcount(st->dbl[side]);
}

/* BC-6: a captured stone goes to its owner's jail, V 1 checker, X 2, and
 * stops counting as borne off. */
static void stone_to_jail(struct bc_state *st, int side, int sq)
{
  int n = (st->dbl[side] & BIT(sq)) ? 2 : 1;
  st->stones[side] &= ~BIT(sq);
  st->dbl[side] &= ~BIT(sq);
  st->b.pt[side][REF_BG_OFF] = (uint8_t)(st->b.pt[side][REF_BG_OFF] - n);
  st->b.pt[side][REF_BG_BAR] = (uint8_t)(st->b.pt[side][REF_BG_BAR] + n);
}

/* A stone's directions: V forward (White north, Black south), X all four
 * (BC-5: doubled = crowned). */
static unsigned stone_dirs(const struct bc_state *st, int side, int sq)
{
  if(st->dbl[side] & BIT(sq))
    return REF_CK_ALL;
  return side == REF_CH_WHITE ? REF_CK_NORTH : REF_CK_SOUTH;
}

static void ck_board_of(const struct bc_state *st, int side, struct ref_ck_board *cb)
{
  cb->geom = &ref_ck_geom_wrap64;
  cb->occupied = occ_all(st);
  cb->enemy = st->pos.occ[!side] | st->stones[!side];
}

static int emit_takes(void *ctx, const struct ref_ck_path *p)
{
  return (p->captured & *(const uint64_t *)ctx) ? 1 : 0;
}

/* BC-7: sq is attacked by `by` if a chess piece of `by` attacks it (stones
 * block lines) or a stone of `by` could take it in a jump sequence. */
static bool attacked(const struct bc_state *st, int sq, int by)
{
  struct ref_ck_board cb;
  uint64_t b, target = BIT(sq);

  if(ref_chess_attackers(&st->pos, sq, occ_all(st)) & st->pos.occ[by])
    return true;
  if(!st->stones[by])
    return false;
  ck_board_of(st, by, &cb);
  for(b = st->stones[by]; b; b &= b - 1) {
    int from = ref_chess_lsb(b);
    unsigned dirs = stone_dirs(st, by, from);
    if(ref_ck_can_jump(&cb, from, dirs) && ref_ck_jumps(&cb, from, dirs, 0, emit_takes, &target))
      return true;
  }
  return false;
}

bool ref_bc_king_attacked(const struct bc_state *st, int side)
{
  uint64_t k = st->pos.pieces[side][REF_CH_KING];
  return k && attacked(st, ref_chess_lsb(k), !side);
}

/* ---------------------------------------------------------------------- */
/* Chess-board moves                                                       */
/* ---------------------------------------------------------------------- */

static int cm_push(struct bc_cmlist *l, const struct bc_cmove *m)
{
  if(l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 64;
    struct bc_cmove *v = realloc(l->v, (size_t)cap * sizeof(*v));
    if(!v)
      return REF_ENOMEM;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = *m;
  return REF_OK;
}

void ref_bc_cm_free(struct bc_cmlist *l)
{
  free(l->v);
  memset(l, 0, sizeof(*l));
}

/* A stone captured a piece on a rook's corner: that castling right goes,
 * as ref_chess_make does for piece captures (the key follows). */
static void drop_rights(struct ref_chess_pos *p, int sq)
{
  unsigned r = p->castle;
  if(sq == 0)
    r &= ~REF_CH_WQ;
  else if(sq == 7)
    r &= ~REF_CH_WK;
  else if(sq == 56)
    r &= ~REF_CH_BQ;
  else if(sq == 63)
    r &= ~REF_CH_BK;
  if(r != p->castle) {
    p->key ^= ref_chess_zobrist_castle[p->castle] ^ ref_chess_zobrist_castle[r];
    p->castle = (uint8_t)r;
  }
}

/* The chess side to move changes without a piece move (a stone move, or a
 * turn with no chess move: 6.2f). */
void ref_bc_flip_side(struct ref_chess_pos *p)
{
  p->side ^= 1;
  p->key ^= ref_chess_zobrist_side;
  if(p->side == REF_CH_WHITE && p->fullmove < REF_CH_COUNTER_MAX)
    p->fullmove++;
}

/* Plays a chess-board move of the side to move (no legality check). */
void ref_bc_cm_do(struct bc_state *st, const struct bc_cmove *cm)
{
  int us = st->pos.side, them = !us;

  st->ep = NO_SQ;
  if(!cm->stone) {
    int from = ref_chess_move_from(cm->m), to = ref_chess_move_to(cm->m);
    bool pawn = REF_CH_TYPE(st->pos.board[from]) == REF_CH_PAWN;
    /* 6.3: chess pieces take stones the normal way; the stone goes to jail. */
    if(st->stones[them] & BIT(to))
      stone_to_jail(st, them, to);
    ref_chess_make(&st->pos, cm->m);
    if(st->pos.ep != NO_SQ) {
      st->pos.key ^= ref_chess_zobrist_ep[st->pos.ep & 7];
      st->pos.ep = NO_SQ;
    }
    /* Our own e.p. square: after a double step, when an enemy pawn stands
     * to take (stones never are taken e.p., 6.3; legality is the
     * generator's business, which knows about stones). */
    if(pawn && (from ^ to) == 16 &&
       (ref_chess_pawn_att[us][(from + to) / 2] & st->pos.pieces[them][REF_CH_PAWN]))
      st->ep = (uint8_t)((from + to) / 2);
    st->last_from = (uint8_t)from;
    st->last_to = (uint8_t)to;
    return;
  }
  {
    const struct ref_ck_path *p = &cm->path;
    int to = p->to[p->nhops - 1];
    bool x = (st->dbl[us] & BIT(p->from)) != 0;
    uint64_t c;
    st->stones[us] &= ~BIT(p->from);
    st->dbl[us] &= ~BIT(p->from);
    st->stones[us] |= BIT(to);
    if(x)
      st->dbl[us] |= BIT(to);
    for(c = p->captured; c; c &= c - 1) {
      int sq = ref_chess_lsb(c);
      if(st->stones[them] & BIT(sq)) {
        stone_to_jail(st, them, sq);
      }
      else {
        ref_chess_remove(&st->pos, sq);
        drop_rights(&st->pos, sq);
      }
    }
    st->pos.halfmove = p->capture ? 0 : st->pos.halfmove + 1;
    ref_bc_flip_side(&st->pos);
    st->last_from = p->from;
    st->last_to = (uint8_t)to;
  }
}

struct stone_gen {
  struct bc_cmlist *out;
  const struct bc_state *st;
  int us;
  int rc;
};

static int emit_stone(void *ctx, const struct ref_ck_path *p)
{
  struct stone_gen *g = ctx;
  struct bc_state c = *g->st;
  struct bc_cmove cm;

  memset(&cm, 0, sizeof(cm));
  cm.stone = 1;
  cm.path.from = p->from;
  cm.path.nhops = p->nhops;
  cm.path.capture = p->capture;
  cm.path.captured = p->captured;
  memcpy(cm.path.to, p->to, p->nhops);
  memcpy(cm.path.over, p->over, p->nhops);
  ref_bc_cm_do(&c, &cm);
  /* 6.2.4: no move may leave one's own king attacked. */
  if(ref_bc_king_attacked(&c, g->us))
    return 0;
  g->rc = cm_push(g->out, &cm);
  return g->rc;
}

/* Would the king of the side to move, standing on `from`, be attacked on
 * sq? A stone attacks only what it could jump (BC-7), so an empty square
 * the king passes when castling is tried with the king on it. */
static bool king_safe_on(const struct bc_state *st, int from, int sq)
{
  struct bc_state c;
  int us = st->pos.side;
  if(sq == from)
    return !attacked(st, sq, !us);
  c = *st;
  ref_chess_remove(&c.pos, from);
  ref_chess_put(&c.pos, us, REF_CH_KING, sq);
  return !attacked(&c, sq, !us);
}

/*
 * Every legal chess-board move of the side to move, in a stable order:
 * pieces as the chess generator lists them, then stones square by square,
 * steps before jumps. Legal: not leaving one's own king attacked (BC-7),
 * castling not out of, through or into attack (CH-1 with BC-7).
 */
int ref_bc_gen_chess(const struct bc_state *st, struct bc_cmlist *out)
{
  struct ref_chess_pos w = st->pos;
  uint16_t moves[REF_CH_MAX_MOVES];
  struct stone_gen sg;
  struct ref_ck_board cb;
  int us = st->pos.side, n, i;
  uint64_t b;

  out->n = 0;
  /* The generator sees stones as units: blockers, and targets when enemy. */
  w.occ[0] |= st->stones[0];
  w.occ[1] |= st->stones[1];
  w.ep = st->ep != NO_SQ && !(occ_all(st) & BIT(st->ep)) ? st->ep : NO_SQ;
  n = ref_chess_gen_pseudo(&w, 0, moves);
  for(i = 0; i < n; i++) {
    struct bc_cmove cm;
    bool ok;
    memset(&cm, 0, sizeof(cm));
    cm.m = moves[i];
    if(ref_chess_move_kind(moves[i]) == REF_CH_MV_CASTLE) {
      int from = ref_chess_move_from(moves[i]), to = ref_chess_move_to(moves[i]);
      ok = king_safe_on(st, from, from) && king_safe_on(st, from, (from + to) / 2) &&
           king_safe_on(st, from, to);
    }
    else {
      struct bc_state c = *st;
      c.pos.ep = w.ep; /* for the e.p. capture's make; cleared again by cm_do */
      if(w.ep != NO_SQ)
        c.pos.key ^= ref_chess_zobrist_ep[w.ep & 7];
      ref_bc_cm_do(&c, &cm);
      ok = !ref_bc_king_attacked(&c, us);
    }
    if(ok && cm_push(out, &cm))
      return REF_ENOMEM;
  }
  sg.out = out;
  sg.st = st;
  sg.us = us;
  sg.rc = 0;
  ck_board_of(st, us, &cb);
  for(b = st->stones[us]; b; b &= b - 1) {
    int from = ref_chess_lsb(b);
    unsigned dirs = stone_dirs(st, us, from);
    if(ref_ck_steps(&cb, from, dirs, emit_stone, &sg) || sg.rc)
      return sg.rc ? sg.rc : REF_ENOMEM;
    if(ref_ck_jumps(&cb, from, dirs, 0, emit_stone, &sg) || sg.rc)
      return sg.rc ? sg.rc : REF_ENOMEM;
  }
  return REF_OK;
}

bool ref_bc_cm_same(const struct bc_cmove *a, const struct bc_cmove *b)
{
  if(a->stone != b->stone)
    return false;
  if(!a->stone)
    return a->m == b->m;
  return a->path.from == b->path.from && a->path.nhops == b->path.nhops &&
         a->path.capture == b->path.capture && !memcmp(a->path.to, b->path.to, a->path.nhops);
}

/* ---------------------------------------------------------------------- */
/* Notation out                                                            */
/* ---------------------------------------------------------------------- */

static bool opponent_mated(const struct bc_state *after)
{
  struct bc_cmlist l = {0};
  bool mate = false;
  if(ref_bc_king_attacked(after, after->pos.side)) {
    mate = ref_bc_gen_chess(after, &l) == REF_OK && l.n == 0;
    ref_bc_cm_free(&l);
  }
  return mate;
}

/* SAN for pieces (the PGN rules, stone-aware: a stone taken is a capture,
 * the disambiguation is among this game's legal moves); for stones
 * `Vc3-d4`, `Vc3xe5xc7`, `Xd4-c3` (6.5). + and # from the position after. */
void ref_bc_cm_format(const struct bc_state *st, const struct bc_cmlist *legal,
                      const struct bc_cmove *cm, char *out, size_t cap)
{
  static const char letters[] = "PNBRQK";
  char s[80], sq[3];
  size_t k = 0;
  int i, us = st->pos.side;
  struct bc_state c = *st;

  if(cm->stone) {
    const struct ref_ck_path *p = &cm->path;
    s[k++] = (st->dbl[us] & BIT(p->from)) ? 'X' : 'V';
    ref_bc_sq_name(p->from, sq);
    s[k++] = sq[0];
    s[k++] = sq[1];
    for(i = 0; i < p->nhops; i++) {
      s[k++] = p->capture ? 'x' : '-';
      ref_bc_sq_name(p->to[i], sq);
      s[k++] = sq[0];
      s[k++] = sq[1];
    }
  }
  else {
    int from = ref_chess_move_from(cm->m), to = ref_chess_move_to(cm->m);
    int kind = ref_chess_move_kind(cm->m), type = REF_CH_TYPE(st->pos.board[from]);
    bool capture = st->pos.board[to] != REF_CH_EMPTY || (st->stones[!us] & BIT(to)) ||
                   kind == REF_CH_MV_EP;
    if(kind == REF_CH_MV_CASTLE) {
      k = (size_t)snprintf(s, sizeof(s), "%s", to > from ? "O-O" : "O-O-O");
    }
    else {
      if(type == REF_CH_PAWN) {
        if(capture)
          s[k++] = (char)('a' + from % 8);
      }
      else {
        bool others = false, same_file = false, same_rank = false;
        struct bc_cmlist own = {0};
        s[k++] = letters[type];
        /* The legal list is needed only when another such piece exists. */
        if(!legal && ref_chess_popcount(st->pos.pieces[us][type]) > 1 &&
           ref_bc_gen_chess(st, &own) == REF_OK)
          legal = &own;
        for(i = 0; legal && i < legal->n; i++) {
          const struct bc_cmove *o = &legal->v[i];
          int f2 = ref_chess_move_from(o->m);
          if(o->stone || f2 == from || ref_chess_move_to(o->m) != to ||
             st->pos.board[f2] != st->pos.board[from])
            continue;
          others = true;
          same_file |= f2 % 8 == from % 8;
          same_rank |= f2 / 8 == from / 8;
        }
        if(others && (!same_file || same_rank))
          s[k++] = (char)('a' + from % 8);
        if(others && same_file)
          s[k++] = (char)('1' + from / 8);
        ref_bc_cm_free(&own);
      }
      if(capture)
        s[k++] = 'x';
      ref_bc_sq_name(to, sq);
      s[k++] = sq[0];
      s[k++] = sq[1];
      if(kind == REF_CH_MV_PROMO) {
        s[k++] = '=';
        s[k++] = letters[ref_chess_move_promo(cm->m)];
      }
    }
  }
  ref_bc_cm_do(&c, cm);
  if(ref_bc_king_attacked(&c, c.pos.side))
    s[k++] = opponent_mated(&c) ? '#' : '+';
  s[k] = '\0';
  snprintf(out, cap, "%s", s);
}

