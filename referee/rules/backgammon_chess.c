/*
 * backgammon_chess.c: Backgammon Chess (zzo38 A. Black) and Lag Backgammon
 * Chess, rules-spec.md section 6 (BC-1 .. BC-9, LG-1).
 *
 * A chess game and a backgammon game side by side. It stands on three
 * cores and copies none of them: the chess position, its pseudo-legal
 * generator and make (chess_int.h); the backgammon board, plays with
 * must-play, notation and the cube (backgammon_int.h), and for reading a
 * player's backgammon part the backgammon game's own tolerant parser,
 * called through its ops on a state decoded from our board; the checkers
 * generator on the wrapping 64-square board (checkers_int.h,
 * ref_ck_geom_wrap64) for the stones.
 *
 * A turn (section 6.2): the cube, the roll, the backgammon play; each
 * checker borne off is placed on the chess board as a stone; then one chess
 * move if a die was played. One ref_move can carry a whole turn (what a
 * player mails: `8/5 6/5 ; e5`). legal() lists the turn in stages (the
 * backgammon play; one placement; the chess move), because the whole turns
 * multiply out (four bear-offs with forty vacant squares each and thirty
 * chess moves are millions); each stage is its own ref_move by the same
 * seat, so a player may also mail the parts one at a time, and the service
 * plays a stage with a single choice for them.
 *
 * Stones (6.3): not chess pieces. They live in their own bitboards beside
 * the chess position, which holds pieces only (so ref_chess_make and the
 * Zobrist key stay the chess core's); every generator call sees them as
 * blockers and as targets. Attack (BC-7): a chess attack with stones as
 * blockers, or an enemy stone's jump sequence that takes the square.
 * Invariant (ops->ok): per side, checkers on the backgammon points + jail
 * (the bar) + off = 15, and off = stone checkers on the chess board (V 1,
 * X 2) + placements still owed this turn.
 *
 * Decisions the spec leaves open (tested in test_backgammon_chess.c): the
 * 6.2e win comes before the chess move, so a chess part written with it is
 * read but not played, and the game ends as a checkmate (rules.h has no
 * other name); the 15th checker off wins at once, its turn's placements
 * unneeded; a turn with no die played flips the chess side to move too (no
 * e.p. afterwards); e.p. is refused onto a stone the capturer placed; a
 * stone jumping a rook on its corner ends that castling right; castling is
 * judged with the king standing on each square it crosses (a stone attacks
 * only what it can jump, BC-7); there is no cube on White's chess-only
 * first turn; resignation is single, gammon or backgammon times the cube.
 * A stone always has a vacant square (at most 32 pieces and 30 stone
 * squares), so BC-2's "no legal placement" never arises.
 *
 * Options (init): lag=L (0-9, section 6.9; the service mails the private
 * dice, the rules play alike), draws=on|off (BC-8: agreement, off by
 * default), pos=POSITION (tests; '_' may stand for a space). The game
 * `lagbgchess` is the same with lag=2 unless given.
 *
 * Position string (one line, fields separated by one space):
 *   PLACEMENT SIDE CASTLING EP FULLMOVE PID:MID STAGE [lag=L] [draws=on]
 * PLACEMENT is FEN's with stones: V X White's single and doubled stones,
 * v x Black's. SIDE is w or b: the seat whose turn it is (and the chess
 * side to move). CASTLING, EP, FULLMOVE as FEN. PID:MID are gnubg's
 * Position ID (the backgammon board from SIDE's view: jail is the bar,
 * off is 15 less the rest) and Match ID (cube, dice, the double bit).
 * STAGE: `first` (White's opening chess move, no dice), `turn` (before the
 * roll: cube or roll), `reply` (a double to take or drop), `bg` (dice to
 * play), `place:N` (N stones to place), `chess` (the chess move), or
 * `over:W:END:POINTS` (W is w, b or - for a draw; END as ref_end_name).
 * Example, the start: rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq
 * - 1 4HPwATDgc/ABMA:MAEAAAAAAAAE first
 */
#include "backgammon_int.h"
#include "checkers_int.h"
#include "chess_int.h"
#include "diagram_int.h"
#include "rules.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ref_game_desc ref_game_backgammon;

#define BC_MAGIC 0x42434831u /* "BCH1" */
#define BC_TAG 0x42430000u   /* "BC": marks a ref_move made here */
#define BC_HAS_BG 0x1u
#define BC_HAS_CHESS 0x2u
#define BC_NPLACE_SHIFT 4
#define BC_LAG_MAX 9
#define BC_LAG_DEFAULT 2 /* lagbgchess without lag=: section 6.9 leaves L open */
#define BIT(sq) (UINT64_C(1) << (sq))
#define NO_SQ REF_CH_NO_SQ

enum stage { ST_NONE, ST_BG, ST_PLACE, ST_CHESS };

/*
 * The state. pos holds pieces only; pos.side is always `onroll` while the
 * game runs and pos.ep always NO_SQ (our own `ep` is stone-aware).
 * `bgtext` is this turn's backgammon play as played (so a player who
 * repeats it with the chess move is understood); it is not part of the
 * position string.
 */
struct bc_state {
  uint32_t magic;
  struct ref_chess_pos pos;
  uint64_t stones[2]; /* squares holding a stone of that side */
  uint64_t dbl[2];    /* the doubled ones (X), a subset */
  struct ref_bg_board b;
  struct ref_bg_cube cube;
  uint8_t phase; /* enum ref_phase */
  uint8_t stage; /* enum stage, in REF_PHASE_MOVE */
  int8_t turn;   /* seat to act, -1 when over */
  int8_t onroll; /* seat whose turn it is */
  uint8_t dice[2];
  uint8_t pending; /* stones still to place (stage ST_PLACE) */
  uint8_t first;   /* White's first turn: chess only (6.2.1) */
  uint8_t ep;      /* e.p. target or NO_SQ */
  uint8_t lag;
  uint8_t draws;
  int8_t winner;
  uint8_t end;
  int16_t points;
  uint8_t last_from, last_to; /* the last chess move, for render */
  char bgtext[48];
};

/* One chess-board move: a piece move (the chess core's 16 bits) or a stone
 * path (the checkers generator's). */
struct cmove {
  uint8_t stone;
  uint16_t m;
  struct ref_ck_path path;
};

struct cmlist {
  int n, cap;
  struct cmove *v;
};

/* A whole or partial turn as parsed or listed. */
struct turn {
  bool has_bg;
  struct ref_bg_play play;
  int nplace;
  uint8_t place[4];
  bool has_chess;
  struct cmove cm;
};

static const char *const seat_name[2] = {"White", "Black"};

static struct bc_state *st_of(struct ref_state *s)
{
  return (struct bc_state *)(void *)s;
}

static const struct bc_state *cst_of(const struct ref_state *s)
{
  return (const struct bc_state *)(const void *)s;
}

static void sq_name(int sq, char out[3])
{
  out[0] = (char)('a' + sq % 8);
  out[1] = (char)('1' + sq / 8);
  out[2] = '\0';
}

/* "e4" (either case) at p: the square, else -1. */
static int sq_read(const char *p)
{
  int f = tolower((unsigned char)p[0]) - 'a', r = p[1] - '1';
  if(f < 0 || f > 7 || r < 0 || r > 7)
    return -1;
  return r * 8 + f;
}

/* ---------------------------------------------------------------------- */
/* Stones                                                                  */
/* ---------------------------------------------------------------------- */

static uint64_t occ_all(const struct bc_state *st)
{
  return st->pos.occ[0] | st->pos.occ[1] | st->stones[0] | st->stones[1];
}

/* Checkers a side has on the chess board (V 1, X 2). */
static int stone_checkers(const struct bc_state *st, int side)
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

static bool king_attacked(const struct bc_state *st, int side)
{
  uint64_t k = st->pos.pieces[side][REF_CH_KING];
  return k && attacked(st, ref_chess_lsb(k), !side);
}

/* ---------------------------------------------------------------------- */
/* Chess-board moves                                                       */
/* ---------------------------------------------------------------------- */

static int cm_push(struct cmlist *l, const struct cmove *m)
{
  if(l->n == l->cap) {
    int cap = l->cap ? l->cap * 2 : 64;
    struct cmove *v = realloc(l->v, (size_t)cap * sizeof(*v));
    if(!v)
      return REF_ENOMEM;
    l->v = v;
    l->cap = cap;
  }
  l->v[l->n++] = *m;
  return REF_OK;
}

static void cm_free(struct cmlist *l)
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
static void flip_side(struct ref_chess_pos *p)
{
  p->side ^= 1;
  p->key ^= ref_chess_zobrist_side;
  if(p->side == REF_CH_WHITE)
    p->fullmove++;
}

/* Plays a chess-board move of the side to move (no legality check). */
static void cm_do(struct bc_state *st, const struct cmove *cm)
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
    flip_side(&st->pos);
    st->last_from = p->from;
    st->last_to = (uint8_t)to;
  }
}

struct stone_gen {
  struct cmlist *out;
  const struct bc_state *st;
  int us;
  int rc;
};

static int emit_stone(void *ctx, const struct ref_ck_path *p)
{
  struct stone_gen *g = ctx;
  struct bc_state c = *g->st;
  struct cmove cm;

  memset(&cm, 0, sizeof(cm));
  cm.stone = 1;
  cm.path.from = p->from;
  cm.path.nhops = p->nhops;
  cm.path.capture = p->capture;
  cm.path.captured = p->captured;
  memcpy(cm.path.to, p->to, p->nhops);
  memcpy(cm.path.over, p->over, p->nhops);
  cm_do(&c, &cm);
  /* 6.2.4: no move may leave one's own king attacked. */
  if(king_attacked(&c, g->us))
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
static int gen_chess(const struct bc_state *st, struct cmlist *out)
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
    struct cmove cm;
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
      cm_do(&c, &cm);
      ok = !king_attacked(&c, us);
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

static bool cm_same(const struct cmove *a, const struct cmove *b)
{
  if(a->stone != b->stone)
    return false;
  if(!a->stone)
    return a->m == b->m;
  return a->path.from == b->path.from && a->path.nhops == b->path.nhops &&
         a->path.capture == b->path.capture && !memcmp(a->path.to, b->path.to, a->path.nhops);
}

/* ---------------------------------------------------------------------- */
/* The turn                                                                */
/* ---------------------------------------------------------------------- */

static void finish(struct bc_state *st, int winner, enum ref_end end, int points)
{
  st->phase = REF_PHASE_OVER;
  st->stage = ST_NONE;
  st->turn = -1;
  st->winner = (int8_t)winner;
  st->end = (uint8_t)end;
  st->points = (int16_t)points;
}

/* Section 1.6 / 4.3: the cube question comes before the roll, and only
 * when a double is legal. */
static void start_turn(struct bc_state *st, int seat)
{
  st->onroll = st->turn = (int8_t)seat;
  st->dice[0] = st->dice[1] = 0;
  st->stage = ST_NONE;
  st->pending = 0;
  st->first = 0;
  st->bgtext[0] = '\0';
  st->phase = ref_bg_cube_may_double(&st->cube, seat) ? REF_PHASE_CUBE : REF_PHASE_ROLL;
}

/* 6.2e: before the chess move. The opponent's king attacked and a legal
 * chess move at hand: the player wins (seed: "you may be able to make a
 * chess move while opponent is in check. In this case, you win"). No legal
 * chess move: in check loses, else the only draw there is (6.6). */
static int enter_chess(struct bc_state *st)
{
  struct cmlist l = {0};
  int us = st->onroll, rc = gen_chess(st, &l), n = l.n;
  int cube = ref_bg_cube_value(&st->cube);

  cm_free(&l);
  if(rc)
    return rc;
  if(n && king_attacked(st, !us))
    finish(st, us, REF_END_CHECKMATE, cube);
  else if(!n && king_attacked(st, us))
    finish(st, !us, REF_END_CHECKMATE, cube);
  else if(!n)
    finish(st, -1, REF_END_STALEMATE, 0);
  else
    st->stage = ST_CHESS;
  return REF_OK;
}

/* After the backgammon play and its placements. */
static int after_backgammon(struct bc_state *st, bool played)
{
  if(!played) {
    /* 6.2f: no die played, no chess move; the chess side passes too. */
    st->ep = NO_SQ;
    flip_side(&st->pos);
    start_turn(st, !st->onroll);
    return REF_OK;
  }
  return enter_chess(st);
}

/* Plays the backgammon part. With `check`, the play must be one of
 * ref_bg_plays (must-play, BG-2), else REF_EILLEGAL; without, the caller
 * knows it is (it came from that list or from the backgammon parser). */
static int do_bg(struct bc_state *st, const struct ref_bg_play *p, bool check)
{
  struct ref_bg_playlist list = {0};
  struct ref_bg_board nb = st->b;
  int mover = st->onroll, i, off = 0, rc;

  if(st->phase != REF_PHASE_MOVE || st->stage != ST_BG)
    return REF_EPHASE;
  for(i = 0; i < p->n; i++) {
    int to;
    if(p->from[i] < 1 || p->from[i] > REF_BG_BAR || p->to[i] >= p->from[i] ||
       ref_bg_step(&nb, mover, p->from[i], p->from[i] - p->to[i] > 6 ? 6 : 1, &to) ==
         REF_BG_NO_CHECKER)
      return REF_EILLEGAL;
    ref_bg_step_apply(&nb, mover, p->from[i], p->to[i]);
    off += p->to[i] == REF_BG_OFF;
  }
  rc = check ? ref_bg_plays(&st->b, mover, st->dice[0], st->dice[1], &list) : REF_OK;
  if(!rc && check && ref_bg_playlist_find(&list, &nb) < 0)
    rc = REF_EILLEGAL;
  if(!rc && ref_bg_play_format(&st->b, mover, p, st->bgtext, sizeof(st->bgtext)) < 0)
    st->bgtext[0] = '\0';
  ref_bg_playlist_free(&list);
  if(rc)
    return rc;
  st->b = nb;
  if(st->b.pt[mover][REF_BG_OFF] == REF_BG_CHECKERS) {
    /* 6.2d, BC-9: a backgammon win takes the gammon multipliers; the last
     * stones need no placing. */
    st->pending = (uint8_t)off;
    finish(st, mover, REF_END_BORNE_OFF,
           ref_bg_game_multiplier(&st->b, mover) * ref_bg_cube_value(&st->cube));
    return REF_OK;
  }
  if(off) {
    st->stage = ST_PLACE;
    st->pending = (uint8_t)off;
    return REF_OK;
  }
  return after_backgammon(st, p->n > 0);
}

/* Why a stone may not go on sq (BC-2: any vacant square, or on one's own
 * single stone making it doubled), or NULL. */
static const char *place_refusal(const struct bc_state *st, int sq)
{
  int us = st->onroll;
  if(sq < 0 || sq > 63)
    return "bc-bad-square";
  if(st->pos.board[sq] != REF_CH_EMPTY || (st->stones[!us] & BIT(sq)))
    return "bc-square-occupied";
  if(st->dbl[us] & BIT(sq))
    return "bc-stone-full";
  return NULL;
}

static int do_place(struct bc_state *st, int sq)
{
  int us = st->onroll;
  if(st->phase != REF_PHASE_MOVE || st->stage != ST_PLACE || !st->pending)
    return REF_EPHASE;
  if(place_refusal(st, sq))
    return REF_EILLEGAL;
  if(st->stones[us] & BIT(sq))
    st->dbl[us] |= BIT(sq);
  else
    st->stones[us] |= BIT(sq);
  st->last_from = st->last_to = (uint8_t)sq;
  if(--st->pending == 0)
    return after_backgammon(st, true);
  return REF_OK;
}

static int do_chess(struct bc_state *st, const struct cmove *cm)
{
  struct cmlist l = {0};
  int i, rc, us = st->onroll;
  bool found = false;

  if(st->phase != REF_PHASE_MOVE || st->stage != ST_CHESS)
    return REF_EPHASE;
  rc = gen_chess(st, &l);
  for(i = 0; !rc && i < l.n && !found; i++)
    if(cm_same(&l.v[i], cm)) {
      found = true;
      cm_do(st, &l.v[i]); /* the generator's path: it knows what was jumped */
    }
  cm_free(&l);
  if(rc)
    return rc;
  if(!found)
    return REF_EILLEGAL;
  /* 6.2.3: the opponent checkmated (attacked, no legal chess move) loses at
   * once; future placements do not count (BC-4). */
  if(king_attacked(st, !us)) {
    rc = gen_chess(st, &l);
    if(!rc && l.n == 0)
      finish(st, us, REF_END_CHECKMATE, ref_bg_cube_value(&st->cube));
    cm_free(&l);
    if(rc)
      return rc;
    if(st->phase == REF_PHASE_OVER)
      return REF_OK;
  }
  start_turn(st, !us);
  return REF_OK;
}

/* ---------------------------------------------------------------------- */
/* ref_move <-> turn                                                       */
/* ---------------------------------------------------------------------- */

static void turn_to_move(const struct turn *t, struct ref_move *m)
{
  int i;
  memset(m, 0, sizeof(*m));
  m->w[0] = BC_TAG | (t->has_bg ? BC_HAS_BG : 0) | (t->has_chess ? BC_HAS_CHESS : 0) |
            (uint32_t)t->nplace << BC_NPLACE_SHIFT;
  if(t->has_bg) {
    m->w[1] = t->play.n;
    for(i = 0; i < t->play.n; i++) {
      m->w[2] |= (uint32_t)t->play.from[i] << (8 * i);
      m->w[3] |= (uint32_t)t->play.to[i] << (8 * i);
    }
  }
  for(i = 0; i < t->nplace; i++)
    m->w[4] |= (uint32_t)t->place[i] << (8 * i);
  if(t->has_chess) {
    if(!t->cm.stone) {
      m->w[5] = 1u | (uint32_t)t->cm.m << 16;
    }
    else {
      m->w[5] = 2u;
      m->w[6] = t->cm.path.from | (uint32_t)t->cm.path.nhops << 8 |
                (uint32_t)t->cm.path.capture << 16;
      for(i = 0; i < t->cm.path.nhops; i++)
        m->w[7 + i / 4] |= (uint32_t)t->cm.path.to[i] << (8 * (i % 4));
    }
  }
}

static int move_to_turn(const struct ref_move *m, struct turn *t)
{
  int i;
  memset(t, 0, sizeof(*t));
  if((m->w[0] & 0xffff0000u) != BC_TAG)
    return REF_EINVAL;
  t->has_bg = (m->w[0] & BC_HAS_BG) != 0;
  t->has_chess = (m->w[0] & BC_HAS_CHESS) != 0;
  t->nplace = (int)(m->w[0] >> BC_NPLACE_SHIFT & 7);
  if(t->nplace > 4 || m->w[1] > 4)
    return REF_EINVAL;
  t->play.n = (uint8_t)m->w[1];
  for(i = 0; i < t->play.n; i++) {
    t->play.from[i] = (uint8_t)(m->w[2] >> (8 * i));
    t->play.to[i] = (uint8_t)(m->w[3] >> (8 * i));
  }
  for(i = 0; i < t->nplace; i++) {
    t->place[i] = (uint8_t)(m->w[4] >> (8 * i));
    if(t->place[i] > 63)
      return REF_EINVAL;
  }
  if(t->has_chess) {
    if((m->w[5] & 0xffff) == 1) {
      t->cm.m = (uint16_t)(m->w[5] >> 16);
    }
    else if((m->w[5] & 0xffff) == 2) {
      t->cm.stone = 1;
      t->cm.path.from = (uint8_t)m->w[6];
      t->cm.path.nhops = (uint8_t)(m->w[6] >> 8);
      t->cm.path.capture = (m->w[6] >> 16 & 1) != 0;
      if(t->cm.path.from > 63 || !t->cm.path.nhops || t->cm.path.nhops > REF_CK_HOPS_MAX)
        return REF_EINVAL;
      for(i = 0; i < t->cm.path.nhops; i++)
        t->cm.path.to[i] = (uint8_t)(m->w[7 + i / 4] >> (8 * (i % 4)));
    }
    else {
      return REF_EINVAL;
    }
  }
  return REF_OK;
}

/* Plays every part of a turn in order; stops at the first refusal. */
static int do_turn(struct bc_state *st, const struct turn *t)
{
  int rc = REF_OK, i;
  if(t->has_bg)
    rc = do_bg(st, &t->play, true);
  for(i = 0; !rc && i < t->nplace; i++)
    rc = st->phase == REF_PHASE_OVER ? REF_EILLEGAL : do_place(st, t->place[i]);
  /* A chess part after a win before the chess move (6.2d, 6.2e) is moot. */
  if(!rc && t->has_chess && st->phase != REF_PHASE_OVER)
    rc = do_chess(st, &t->cm);
  return rc;
}

/* ---------------------------------------------------------------------- */
/* Notation out                                                            */
/* ---------------------------------------------------------------------- */

static bool opponent_mated(const struct bc_state *after)
{
  struct cmlist l = {0};
  bool mate = false;
  if(king_attacked(after, after->pos.side)) {
    mate = gen_chess(after, &l) == REF_OK && l.n == 0;
    cm_free(&l);
  }
  return mate;
}

/* SAN for pieces (the PGN rules, stone-aware: a stone taken is a capture,
 * the disambiguation is among this game's legal moves); for stones
 * `Vc3-d4`, `Vc3xe5xc7`, `Xd4-c3` (6.5). + and # from the position after. */
static void cm_format(const struct bc_state *st, const struct cmlist *legal,
                      const struct cmove *cm, char *out, size_t cap)
{
  static const char letters[] = "PNBRQK";
  char s[80], sq[3];
  size_t k = 0;
  int i, us = st->pos.side;
  struct bc_state c = *st;

  if(cm->stone) {
    const struct ref_ck_path *p = &cm->path;
    s[k++] = (st->dbl[us] & BIT(p->from)) ? 'X' : 'V';
    sq_name(p->from, sq);
    s[k++] = sq[0];
    s[k++] = sq[1];
    for(i = 0; i < p->nhops; i++) {
      s[k++] = p->capture ? 'x' : '-';
      sq_name(p->to[i], sq);
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
        struct cmlist own = {0};
        s[k++] = letters[type];
        /* The legal list is needed only when another such piece exists. */
        if(!legal && ref_chess_popcount(st->pos.pieces[us][type]) > 1 &&
           gen_chess(st, &own) == REF_OK)
          legal = &own;
        for(i = 0; legal && i < legal->n; i++) {
          const struct cmove *o = &legal->v[i];
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
        cm_free(&own);
      }
      if(capture)
        s[k++] = 'x';
      sq_name(to, sq);
      s[k++] = sq[0];
      s[k++] = sq[1];
      if(kind == REF_CH_MV_PROMO) {
        s[k++] = '=';
        s[k++] = letters[ref_chess_move_promo(cm->m)];
      }
    }
  }
  cm_do(&c, cm);
  if(king_attacked(&c, c.pos.side))
    s[k++] = opponent_mated(&c) ? '#' : '+';
  s[k] = '\0';
  snprintf(out, cap, "%s", s);
}

/* gnubg's notation of the play with `@sq` after each bear-off (6.5),
 * placements in the order given. */
static void bg_format(const struct bc_state *st, const struct turn *t, char *out, size_t cap)
{
  char raw[64], *tok, *save = NULL;
  size_t k = 0;
  int used = 0;

  out[0] = '\0';
  if(ref_bg_play_format(&st->b, st->onroll, &t->play, raw, sizeof(raw)) < 0)
    return;
  for(tok = strtok_r(raw, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char *off = strstr(tok, "/off"), *rep;
    int n = 1, i;
    if(!off || !t->nplace) {
      k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s", k ? " " : "", tok);
      continue;
    }
    rep = strchr(off, '(');
    if(rep) {
      n = atoi(rep + 1);
      *rep = '\0';
    }
    for(i = 0; i < n; i++) {
      char sq[3] = "";
      if(used < t->nplace)
        sq_name(t->place[used++], sq);
      k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s%s%s", k ? " " : "", tok,
                            sq[0] ? "@" : "", sq);
    }
  }
}

/* The whole notation of a turn (6.5): `(roll 3-1) 8/5 6/5 ; e5`,
 * `6/off@e4 ; Vd5xf7`, `@e4`, `Nf3`. Writes into out; false when it does not
 * fit in REF_NOTATION_MAX even without the roll. */
static bool turn_format(const struct bc_state *st, const struct turn *t, char *out, size_t cap)
{
  struct bc_state c = *st;
  char bgpart[REF_NOTATION_MAX * 2] = "", places[32] = "", chess[REF_NOTATION_MAX] = "";
  char roll[16] = "", whole[REF_NOTATION_MAX * 4];
  int i;

  if(t->has_bg) {
    bg_format(st, t, bgpart, sizeof(bgpart));
    if(t->play.n == 0)
      snprintf(bgpart, sizeof(bgpart), "--");
    snprintf(roll, sizeof(roll), "(roll %d-%d) ", st->dice[0], st->dice[1]);
    /* The position after it matters only for a chess part's SAN. */
    if(t->has_chess && do_bg(&c, &t->play, false))
      return false;
  }
  for(i = 0; i < t->nplace; i++) {
    char sq[3];
    sq_name(t->place[i], sq);
    if(!t->has_bg) /* placements alone: `@e4 @d5` */
      snprintf(places + strlen(places), sizeof(places) - strlen(places), "%s@%s", i ? " " : "",
               sq);
    if(t->has_chess && c.phase == REF_PHASE_MOVE && c.stage == ST_PLACE)
      do_place(&c, t->place[i]);
  }
  if(t->has_chess && c.phase == REF_PHASE_MOVE && c.stage == ST_CHESS)
    cm_format(&c, NULL, &t->cm, chess, sizeof(chess));
  snprintf(whole, sizeof(whole), "%s%s%s%s", bgpart, places,
           (bgpart[0] || places[0]) && chess[0] ? " ; " : "", chess);
  if(strlen(whole) >= REF_NOTATION_MAX && t->has_chess && t->cm.stone && t->cm.path.nhops > 1) {
    /* Too long for a reply's line: a long jump as origin x end, which the
     * reader takes when one path joins them (the rare rest stays long). */
    char from[3], to[3], *mark = chess + strlen(chess);
    while(mark > chess && (mark[-1] == '+' || mark[-1] == '#'))
      mark--;
    sq_name(t->cm.path.from, from);
    sq_name(t->cm.path.to[t->cm.path.nhops - 1], to);
    snprintf(whole, sizeof(whole), "%s%s ; %c%sx%s%s", bgpart, places, chess[0], from, to, mark);
  }
  if(roll[0] && strlen(roll) + strlen(whole) < REF_NOTATION_MAX) {
    memmove(whole + strlen(roll), whole, strlen(whole) + 1);
    memcpy(whole, roll, strlen(roll));
  }
  if(strlen(whole) >= REF_NOTATION_MAX || strlen(whole) >= cap)
    return false;
  memcpy(out, whole, strlen(whole) + 1);
  return true;
}

/* ---------------------------------------------------------------------- */
/* Position string                                                         */
/* ---------------------------------------------------------------------- */

static void match_of(const struct bc_state *st, struct ref_bg_match *m)
{
  memset(m, 0, sizeof(*m));
  m->cube_log2 = st->cube.log2;
  m->cube_owner = st->cube.owner;
  m->state = 1;
  m->on_roll = st->onroll;
  m->turn = st->turn < 0 ? st->onroll : st->turn;
  m->doubled = st->phase == REF_PHASE_CUBE_REPLY;
  if(st->phase == REF_PHASE_MOVE && !st->first) {
    m->dice[0] = st->dice[0];
    m->dice[1] = st->dice[1];
  }
}

static int bc_encode(const struct ref_state *s, char *buf, size_t cap)
{
  static const char letters[2][7] = {"PNBRQK", "pnbrqk"};
  const struct bc_state *st = cst_of(s);
  struct ref_bg_match m;
  char board[80], pid[15], mid[13], stage[48], cast[5], ep[3] = "-";
  int k = 0, r, f, n;
  size_t used;

  for(r = 7; r >= 0; r--) {
    int empty = 0;
    for(f = 0; f < 8; f++) {
      int sq = r * 8 + f, code = st->pos.board[sq];
      char c = 0;
      if(code != REF_CH_EMPTY)
        c = letters[REF_CH_COLOR(code)][REF_CH_TYPE(code)];
      else if(st->stones[0] & BIT(sq))
        c = (st->dbl[0] & BIT(sq)) ? 'X' : 'V';
      else if(st->stones[1] & BIT(sq))
        c = (st->dbl[1] & BIT(sq)) ? 'x' : 'v';
      if(!c) {
        empty++;
        continue;
      }
      if(empty)
        board[k++] = (char)('0' + empty);
      empty = 0;
      board[k++] = c;
    }
    if(empty)
      board[k++] = (char)('0' + empty);
    if(r)
      board[k++] = '/';
  }
  board[k] = '\0';
  k = 0;
  if(st->pos.castle & REF_CH_WK)
    cast[k++] = 'K';
  if(st->pos.castle & REF_CH_WQ)
    cast[k++] = 'Q';
  if(st->pos.castle & REF_CH_BK)
    cast[k++] = 'k';
  if(st->pos.castle & REF_CH_BQ)
    cast[k++] = 'q';
  if(!k)
    cast[k++] = '-';
  cast[k] = '\0';
  if(st->ep != NO_SQ)
    sq_name(st->ep, ep);
  ref_bg_position_id(&st->b, st->onroll, pid);
  match_of(st, &m);
  ref_bg_match_id(&m, mid);
  switch(st->phase) {
  case REF_PHASE_OVER:
    snprintf(stage, sizeof(stage), "over:%s:%s:%d",
             st->winner < 0 ? "-" : st->winner ? "b" : "w", ref_end_name((enum ref_end)st->end),
             st->points);
    break;
  case REF_PHASE_CUBE:
  case REF_PHASE_ROLL:
    snprintf(stage, sizeof(stage), "turn");
    break;
  case REF_PHASE_CUBE_REPLY:
    snprintf(stage, sizeof(stage), "reply");
    break;
  default:
    if(st->first)
      snprintf(stage, sizeof(stage), "first");
    else if(st->stage == ST_BG)
      snprintf(stage, sizeof(stage), "bg");
    else if(st->stage == ST_PLACE)
      snprintf(stage, sizeof(stage), "place:%d", st->pending);
    else
      snprintf(stage, sizeof(stage), "chess");
    break;
  }
  n = snprintf(buf, cap, "%s %c %s %s %u %s:%s %s", board, st->onroll ? 'b' : 'w', cast, ep,
               (unsigned)st->pos.fullmove, pid, mid, stage);
  if(n < 0 || (size_t)n >= cap)
    return REF_EINVAL;
  used = (size_t)n;
  if(st->lag)
    used += (size_t)snprintf(buf + used, cap - used, " lag=%d", st->lag);
  if(st->draws && used < cap)
    used += (size_t)snprintf(buf + used, cap - used, " draws=on");
  return used < cap ? REF_OK : REF_EINVAL;
}

/* Recomputes the chess position's redundant fields: pieces and occupancy
 * from the mailbox, one king a side, no pawn on an edge rank, castling
 * rights backed by king and rook, the key. (ref_chess_pos_ok would also
 * judge check without stones, which this game cannot use.) */
static bool pos_ok(const struct ref_chess_pos *p)
{
  uint64_t pieces[2][6] = {{0}}, occ[2] = {0, 0};
  int sq, c, t;

  if(p->side > 1 || p->castle > 15 || p->fullmove < 1 || p->ep != NO_SQ)
    return false;
  for(sq = 0; sq < 64; sq++) {
    int code = p->board[sq];
    if(code == REF_CH_EMPTY)
      continue;
    c = REF_CH_COLOR(code);
    t = REF_CH_TYPE(code);
    if(c > 1 || t < 0 || t > REF_CH_KING)
      return false;
    pieces[c][t] |= BIT(sq);
    occ[c] |= BIT(sq);
  }
  for(c = 0; c < 2; c++) {
    for(t = 0; t < 6; t++)
      if(pieces[c][t] != p->pieces[c][t])
        return false;
    if(occ[c] != p->occ[c] || ref_chess_popcount(pieces[c][REF_CH_KING]) != 1 ||
       ref_chess_popcount(occ[c]) > 16)
      return false;
  }
  if((pieces[0][REF_CH_PAWN] | pieces[1][REF_CH_PAWN]) & 0xFF000000000000FFull)
    return false;
  if(((p->castle & (REF_CH_WK | REF_CH_WQ)) && p->board[4] != REF_CH_PIECE(0, REF_CH_KING)) ||
     ((p->castle & REF_CH_WK) && p->board[7] != REF_CH_PIECE(0, REF_CH_ROOK)) ||
     ((p->castle & REF_CH_WQ) && p->board[0] != REF_CH_PIECE(0, REF_CH_ROOK)) ||
     ((p->castle & (REF_CH_BK | REF_CH_BQ)) && p->board[60] != REF_CH_PIECE(1, REF_CH_KING)) ||
     ((p->castle & REF_CH_BK) && p->board[63] != REF_CH_PIECE(1, REF_CH_ROOK)) ||
     ((p->castle & REF_CH_BQ) && p->board[56] != REF_CH_PIECE(1, REF_CH_ROOK)))
    return false;
  return p->key == ref_chess_key_compute(p);
}

/* The invariant checker: every redundant field recomputed. */
static bool bc_ok(const struct ref_state *s)
{
  const struct bc_state *st = cst_of(s);
  int side;

  if(st->magic != BC_MAGIC || !pos_ok(&st->pos) || !ref_bg_board_ok(&st->b))
    return false;
  if(st->lag > BC_LAG_MAX || st->draws > 1)
    return false;
  for(side = 0; side < 2; side++) {
    /* Stones still owed: in the placing stage, or when the game ended
     * there (the 15th checker off, a resignation). */
    int owed = side == st->onroll && (st->stage == ST_PLACE || st->phase == REF_PHASE_OVER)
                 ? st->pending
                 : 0;
    /* Conservation: what is off the backgammon board is on the chess board
     * as stones, or about to be placed. */
    if((st->dbl[side] & ~st->stones[side]) ||
       (st->stones[side] & (st->stones[!side] | st->pos.occ[0] | st->pos.occ[1])) ||
       st->b.pt[side][REF_BG_OFF] != stone_checkers(st, side) + owed)
      return false;
  }
  if(st->cube.log2 < 0 || st->cube.log2 > REF_BG_CUBE_MAX_LOG2 || st->cube.owner < -1 ||
     st->cube.owner > 1 || (st->cube.owner < 0) != (st->cube.log2 == 0))
    return false;
  if(st->onroll < 0 || st->onroll > 1)
    return false;
  if(st->ep != NO_SQ) {
    int pusher = st->pos.side ^ 1, front = pusher ? st->ep - 8 : st->ep + 8;
    if(st->ep > 63 || st->ep / 8 != (pusher ? 5 : 2) ||
       st->pos.board[front] != REF_CH_PIECE(pusher, REF_CH_PAWN) ||
       st->pos.board[st->ep] != REF_CH_EMPTY ||
       st->pos.board[pusher ? st->ep + 8 : st->ep - 8] != REF_CH_EMPTY)
      return false;
  }
  if(st->phase == REF_PHASE_OVER) {
    int cube = ref_bg_cube_value(&st->cube);
    if(st->turn != -1 || st->winner < -1 || st->winner > 1 || st->stage != ST_NONE)
      return false;
    switch(st->end) {
    case REF_END_BORNE_OFF:
      return st->winner >= 0 && st->b.pt[st->winner][REF_BG_OFF] == REF_BG_CHECKERS &&
             st->points == ref_bg_game_multiplier(&st->b, st->winner) * cube;
    case REF_END_STALEMATE:
    case REF_END_AGREEMENT:
      return st->winner == -1 && st->points == 0;
    case REF_END_CHECKMATE:
    case REF_END_CUBE_DROPPED:
      return st->winner >= 0 && st->points == cube;
    case REF_END_RESIGNATION:
      return st->winner >= 0 && st->points % cube == 0 && st->points / cube >= 1 &&
             st->points / cube <= 3;
    default:
      return false;
    }
  }
  if(st->b.pt[0][REF_BG_OFF] == REF_BG_CHECKERS || st->b.pt[1][REF_BG_OFF] == REF_BG_CHECKERS)
    return false;
  if(st->pos.side != st->onroll)
    return false;
  switch(st->phase) {
  case REF_PHASE_CUBE:
  case REF_PHASE_ROLL:
    return st->turn == st->onroll && !st->dice[0] && !st->dice[1] && !st->first &&
           st->stage == ST_NONE &&
           (st->phase == REF_PHASE_CUBE) == ref_bg_cube_may_double(&st->cube, st->onroll);
  case REF_PHASE_CUBE_REPLY:
    return st->turn == !st->onroll && !st->dice[0] && !st->first && st->stage == ST_NONE &&
           ref_bg_cube_may_double(&st->cube, st->onroll);
  case REF_PHASE_MOVE:
    if(st->turn != st->onroll)
      return false;
    if(st->first)
      return st->onroll == 0 && !st->dice[0] && !st->dice[1] && st->stage == ST_CHESS &&
             st->cube.log2 == 0;
    if(st->dice[0] < 1 || st->dice[0] > 6 || st->dice[1] < 1 || st->dice[1] > 6)
      return false;
    if(st->stage == ST_PLACE)
      return st->pending >= 1 && st->pending <= 4;
    if(st->stage == ST_BG)
      return st->pending == 0;
    if(st->stage == ST_CHESS) {
      /* 6.2e has been judged: the opponent's king is safe, a move exists. */
      struct cmlist l = {0};
      bool ok = st->pending == 0 && !king_attacked(st, !st->onroll) &&
                gen_chess(st, &l) == REF_OK && l.n > 0;
      cm_free(&l);
      return ok;
    }
    return false;
  default:
    return false;
  }
}

static int bad_position(struct ref_err *err, const char *what)
{
  ref_err_set(err, REF_EINVAL, "bc-bad-position", what);
  return REF_EINVAL;
}

static int read_placement(struct bc_state *st, const char *text)
{
  int r = 7, f = 0;
  const char *p;
  for(p = text; *p; p++) {
    int sq = r * 8 + f;
    const char *pc = strchr("PNBRQKpnbrqk", *p);
    if(*p == '/') {
      if(f != 8 || r == 0)
        return -1;
      r--;
      f = 0;
      continue;
    }
    if(*p >= '1' && *p <= '8') {
      f += *p - '0';
      if(f > 8)
        return -1;
      continue;
    }
    if(f > 7)
      return -1;
    if(pc && *p) {
      int idx = (int)(pc - "PNBRQKpnbrqk");
      ref_chess_put(&st->pos, idx / 6, idx % 6, sq);
    }
    else if(*p == 'V' || *p == 'X') {
      st->stones[0] |= BIT(sq);
      if(*p == 'X')
        st->dbl[0] |= BIT(sq);
    }
    else if(*p == 'v' || *p == 'x') {
      st->stones[1] |= BIT(sq);
      if(*p == 'x')
        st->dbl[1] |= BIT(sq);
    }
    else {
      return -1;
    }
    f++;
  }
  return r == 0 && f == 8 ? 0 : -1;
}

static int bc_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct bc_state nst;
  struct ref_bg_match m;
  char buf[512], *field[12], *save = NULL, *tok, *colon;
  int nf = 0, i, lag = 0, draws = 0;
  unsigned long full;
  char *end;

  if(!text || strlen(text) >= sizeof(buf))
    return bad_position(err, "length");
  /* '_' for ' ': a position fits in one word of a mail command (pos=). */
  for(i = 0; text[i]; i++)
    buf[i] = text[i] == '_' ? ' ' : text[i];
  buf[i] = '\0';
  for(tok = strtok_r(buf, " \t\r\n", &save); tok; tok = strtok_r(NULL, " \t\r\n", &save)) {
    if(nf == 12)
      return bad_position(err, "too many fields");
    field[nf++] = tok;
  }
  if(nf < 7)
    return bad_position(err, "too few fields");
  for(i = 7; i < nf; i++) {
    if(!strncmp(field[i], "lag=", 4) && field[i][4] >= '1' && field[i][4] <= '9' && !field[i][5])
      lag = field[i][4] - '0';
    else if(!strcmp(field[i], "draws=on"))
      draws = 1;
    else
      return bad_position(err, field[i]);
  }

  memset(&nst, 0, sizeof(nst));
  nst.magic = BC_MAGIC;
  ref_chess_clear(&nst.pos);
  nst.ep = NO_SQ;
  nst.winner = -1;
  nst.last_from = nst.last_to = NO_SQ;
  nst.lag = (uint8_t)lag;
  nst.draws = (uint8_t)draws;
  if(read_placement(&nst, field[0]))
    return bad_position(err, "board");
  if(strcmp(field[1], "w") && strcmp(field[1], "b"))
    return bad_position(err, "side");
  nst.onroll = (int8_t)(field[1][0] == 'b');
  nst.pos.side = (uint8_t)nst.onroll;
  if(strcmp(field[2], "-")) {
    for(i = 0; field[2][i]; i++) {
      const char *c = strchr("KQkq", field[2][i]);
      unsigned bit;
      if(!c)
        return bad_position(err, "castling");
      bit = 1u << (c - "KQkq");
      if(nst.pos.castle & bit)
        return bad_position(err, "castling");
      nst.pos.castle |= (uint8_t)bit;
    }
  }
  if(strcmp(field[3], "-")) {
    int sq = sq_read(field[3]);
    if(sq < 0 || field[3][2])
      return bad_position(err, "en passant");
    nst.ep = (uint8_t)sq;
  }
  full = strtoul(field[4], &end, 10);
  if(*end || full < 1 || full > 9999 || !isdigit((unsigned char)field[4][0]))
    return bad_position(err, "move number");
  nst.pos.fullmove = (uint32_t)full;
  nst.pos.key = ref_chess_key_compute(&nst.pos);

  colon = strchr(field[5], ':');
  if(!colon || colon - field[5] != 14 || strlen(colon + 1) != 12)
    return bad_position(err, "Position ID:Match ID");
  *colon = '\0';
  if(ref_bg_position_decode(&nst.b, nst.onroll, field[5]) != REF_OK ||
     ref_bg_match_decode(&m, colon + 1) != REF_OK)
    return bad_position(err, "Position ID:Match ID");
  if(m.match_len || m.crawford || m.resigned || m.state != 1 || m.on_roll != nst.onroll ||
     m.cube_log2 > REF_BG_CUBE_MAX_LOG2 || (m.cube_owner < 0) != (m.cube_log2 == 0))
    return bad_position(err, "Match ID");
  nst.cube.log2 = (int8_t)m.cube_log2;
  nst.cube.owner = (int8_t)m.cube_owner;

  /* The stage, checked against the Match ID's dice and double bit. */
  if(!strcmp(field[6], "first")) {
    if(m.dice[0] || m.doubled || m.turn != 0 || nst.onroll != 0)
      return bad_position(err, "first");
    nst.first = 1;
    nst.phase = REF_PHASE_MOVE;
    nst.stage = ST_CHESS;
    nst.turn = 0;
  }
  else if(!strcmp(field[6], "turn")) {
    if(m.dice[0] || m.doubled || m.turn != nst.onroll)
      return bad_position(err, "turn");
    start_turn(&nst, nst.onroll);
  }
  else if(!strcmp(field[6], "reply")) {
    if(m.dice[0] || !m.doubled || m.turn == nst.onroll ||
       !ref_bg_cube_may_double(&nst.cube, nst.onroll))
      return bad_position(err, "reply");
    nst.phase = REF_PHASE_CUBE_REPLY;
    nst.turn = (int8_t)!nst.onroll;
  }
  else if(!strcmp(field[6], "bg") || !strcmp(field[6], "chess") ||
          !strncmp(field[6], "place:", 6)) {
    if(!m.dice[0] || m.doubled || m.turn != nst.onroll)
      return bad_position(err, field[6]);
    nst.phase = REF_PHASE_MOVE;
    nst.turn = nst.onroll;
    nst.dice[0] = (uint8_t)m.dice[0];
    nst.dice[1] = (uint8_t)m.dice[1];
    nst.stage = field[6][0] == 'b' ? ST_BG : field[6][0] == 'c' ? ST_CHESS : ST_PLACE;
    if(nst.stage == ST_PLACE) {
      if(field[6][6] < '1' || field[6][6] > '4' || field[6][7])
        return bad_position(err, field[6]);
      nst.pending = (uint8_t)(field[6][6] - '0');
    }
  }
  else if(!strncmp(field[6], "over:", 5)) {
    char *w = field[6] + 5, *e = strchr(w, ':'), *pts;
    int endv = -1;
    long points;
    if(!e || e - w != 1 || !strchr("wb-", *w))
      return bad_position(err, "over");
    pts = strchr(e + 1, ':');
    if(!pts)
      return bad_position(err, "over");
    *pts++ = '\0';
    for(i = 0; i < REF_END_LAST; i++)
      if(!strcmp(e + 1, ref_end_name((enum ref_end)i)))
        endv = i;
    points = strtol(pts, &end, 10);
    if(endv < 0 || *end || !isdigit((unsigned char)*pts) || points > 192 || m.dice[0] ||
       m.doubled)
      return bad_position(err, "over");
    finish(&nst, *w == '-' ? -1 : *w == 'b', (enum ref_end)endv, (int)points);
    i = nst.b.pt[nst.onroll][REF_BG_OFF] - stone_checkers(&nst, nst.onroll);
    if(i < 0 || i > 4)
      return bad_position(err, "stones");
    nst.pending = (uint8_t)i;
  }
  else {
    return bad_position(err, "stage");
  }
  if(nst.pos.side != nst.onroll)
    return bad_position(err, "side");
  if(!bc_ok((struct ref_state *)(void *)&nst))
    return bad_position(err, "inconsistent");
  *st_of(s) = nst;
  return REF_OK;
}

/* ---------------------------------------------------------------------- */
/* Game ops                                                                */
/* ---------------------------------------------------------------------- */

static void start_position(struct bc_state *st)
{
  const char *reason = NULL;
  memset(st, 0, sizeof(*st));
  st->magic = BC_MAGIC;
  ref_chess_fen_read(&st->pos, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
                     &reason);
  ref_bg_board_start(&st->b);
  ref_bg_cube_init(&st->cube);
  st->ep = NO_SQ;
  st->winner = -1;
  st->last_from = st->last_to = NO_SQ;
  /* 6.2.1: White's first turn is a chess move only. */
  st->first = 1;
  st->phase = REF_PHASE_MOVE;
  st->stage = ST_CHESS;
  st->turn = st->onroll = 0;
}

static int init_with(struct ref_state *s, const char *options, int lag_default,
                     struct ref_err *err)
{
  struct bc_state nst;
  char buf[600], *tok, *save = NULL;
  const char *pos = NULL;
  int lag = lag_default, draws = 0;

  start_position(&nst);
  if(options && strlen(options) >= sizeof(buf)) {
    ref_err_set(err, REF_EINVAL, "bad-option", "too long");
    return REF_EINVAL;
  }
  snprintf(buf, sizeof(buf), "%s", options ? options : "");
  for(tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
    while(isspace((unsigned char)*tok))
      tok++;
    if(!*tok)
      continue;
    if(!strncmp(tok, "lag=", 4) && isdigit((unsigned char)tok[4]) && !tok[5])
      lag = tok[4] - '0';
    else if(!strcmp(tok, "draws=on") || !strcmp(tok, "draws=off"))
      draws = tok[7] == 'n';
    else if(!strncmp(tok, "pos=", 4))
      pos = options + (tok + 4 - buf);
    else {
      ref_err_set(err, REF_EINVAL, "bad-option", tok);
      return REF_EINVAL;
    }
  }
  /* Section 6.9: Lag Backgammon Chess needs L >= 1. */
  if(lag_default && lag < 1) {
    ref_err_set(err, REF_EINVAL, "bad-option", "lag");
    return REF_EINVAL;
  }
  if(pos) {
    char p[512];
    size_t n = strcspn(pos, ";");
    if(n >= sizeof(p)) {
      ref_err_set(err, REF_EINVAL, "bad-option", "pos");
      return REF_EINVAL;
    }
    memcpy(p, pos, n);
    p[n] = '\0';
    if(bc_decode((struct ref_state *)(void *)&nst, p, err) != REF_OK)
      return REF_EINVAL;
  }
  nst.lag = (uint8_t)lag;
  nst.draws = (uint8_t)draws;
  *st_of(s) = nst;
  return REF_OK;
}

static int bc_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  return init_with(s, options, 0, err);
}

static int lag_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  return init_with(s, options, BC_LAG_DEFAULT, err);
}

static int bc_roll(struct ref_state *s, const int *faces, int nfaces, struct ref_err *err)
{
  struct bc_state *st = st_of(s);
  if(st->phase != REF_PHASE_ROLL && st->phase != REF_PHASE_CUBE) {
    ref_err_set(err, REF_EPHASE, st->phase == REF_PHASE_OVER ? "game-over" : "bg-no-roll-now",
                NULL);
    return REF_EPHASE;
  }
  if(nfaces != 2 || faces[0] < 1 || faces[0] > 6 || faces[1] < 1 || faces[1] > 6) {
    ref_err_set(err, REF_EINVAL, "bg-bad-dice", NULL);
    return REF_EINVAL;
  }
  /* BC-1: an ordinary two-dice roll, doubles count; the turn order is the
   * chess game's. A roll in REF_PHASE_CUBE means "no double". */
  st->dice[0] = (uint8_t)faces[0];
  st->dice[1] = (uint8_t)faces[1];
  st->phase = REF_PHASE_MOVE;
  st->stage = ST_BG;
  return REF_OK;
}

static int bc_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct bc_state *st = st_of(s);
  const char *why;

  if(seat < 0 || seat > 1) {
    ref_err_set(err, REF_EINVAL, "bad-seat", NULL);
    return REF_EINVAL;
  }
  if(st->phase == REF_PHASE_OVER) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  switch(action) {
  case REF_ACT_DOUBLE:
    /* 6.2.2a with 4.3: before one's own roll, cube centred or one's own. */
    if(st->phase == REF_PHASE_CUBE && seat == st->turn) {
      st->phase = REF_PHASE_CUBE_REPLY;
      st->turn = (int8_t)!seat;
      return REF_OK;
    }
    if(st->phase == REF_PHASE_CUBE_REPLY && seat == st->turn)
      why = "bg-take-or-drop";
    else if(seat != st->turn)
      why = "not-your-turn";
    else if(st->phase != REF_PHASE_ROLL)
      why = st->first ? "bc-no-cube-first-turn" : "bg-double-before-roll";
    else if(st->cube.log2 >= REF_BG_CUBE_MAX_LOG2)
      why = "bg-cube-max";
    else
      why = "bg-not-your-cube";
    break;
  case REF_ACT_TAKE:
  case REF_ACT_DROP:
    if(st->phase != REF_PHASE_CUBE_REPLY || seat != st->turn) {
      why = "bg-no-double";
      break;
    }
    if(action == REF_ACT_DROP) {
      finish(st, st->onroll, REF_END_CUBE_DROPPED, ref_bg_cube_value(&st->cube));
      return REF_OK;
    }
    ref_bg_cube_take(&st->cube, seat);
    st->turn = st->onroll;
    st->phase = REF_PHASE_ROLL;
    return REF_OK;
  case REF_ACT_RESIGN:
    /* 6.8: single, gammon or backgammon (section 4.3 levels) x cube. */
    if(arg < 1 || arg > 3) {
      ref_err_set(err, REF_EINVAL, "bg-resign-level", NULL);
      return REF_EINVAL;
    }
    finish(st, !seat, REF_END_RESIGNATION, arg * ref_bg_cube_value(&st->cube));
    return REF_OK;
  case REF_ACT_DRAW_AGREED:
    /* BC-8: "no draw other than stalemate"; agreement only by option. */
    if(!st->draws) {
      ref_err_set(err, REF_EINVAL, "bc-no-draw-agreement", NULL);
      return REF_EINVAL;
    }
    finish(st, -1, REF_END_AGREEMENT, 0);
    return REF_OK;
  case REF_ACT_DRAW_CLAIM:
    /* 6.6: the chess draws (repetition, fifty moves) do not count. */
    ref_err_set(err, REF_EINVAL, "bc-no-draw-claim", NULL);
    return REF_EINVAL;
  default:
    ref_err_set(err, REF_EINVAL, "bad-option", NULL);
    return REF_EINVAL;
  }
  ref_err_set(err, REF_EPHASE, why, !strcmp(why, "not-your-turn") ? seat_name[st->turn] : NULL);
  return REF_EPHASE;
}

static int bc_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct bc_state *st = cst_of(s);
  struct ref_move m;
  struct turn t;
  int rc = REF_OK, i;

  if(st->phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  memset(&t, 0, sizeof(t));
  if(st->stage == ST_BG) {
    struct ref_bg_playlist list = {0};
    size_t k;
    rc = ref_bg_plays(&st->b, st->onroll, st->dice[0], st->dice[1], &list);
    t.has_bg = true;
    for(k = 0; !rc && k < list.n; k++) {
      t.play = list.v[k];
      turn_to_move(&t, &m);
      rc = ref_movelist_push(out, &m);
    }
    ref_bg_playlist_free(&list);
  }
  else if(st->stage == ST_PLACE) {
    t.nplace = 1;
    for(i = 0; !rc && i < 64; i++) {
      if(place_refusal(st, i))
        continue;
      t.place[0] = (uint8_t)i;
      turn_to_move(&t, &m);
      rc = ref_movelist_push(out, &m);
    }
  }
  else {
    struct cmlist l = {0};
    rc = gen_chess(st, &l);
    t.has_chess = true;
    for(i = 0; !rc && i < l.n; i++) {
      t.cm = l.v[i];
      turn_to_move(&t, &m);
      rc = ref_movelist_push(out, &m);
    }
    cm_free(&l);
  }
  return rc;
}

static int bc_apply(struct ref_state *s, const struct ref_move *m)
{
  struct bc_state *st = st_of(s), c = *st;
  struct turn t;
  int rc;

  if(st->phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  if(move_to_turn(m, &t) != REF_OK)
    return REF_EILLEGAL;
  rc = do_turn(&c, &t);
  if(rc == REF_OK)
    *st = c; /* all or nothing */
  return rc;
}

static int bc_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  struct turn t;
  (void)style; /* one notation: the referee's is what programs read too */
  if(move_to_turn(m, &t) != REF_OK || !turn_format(cst_of(s), &t, buf, cap))
    return REF_EINVAL;
  return REF_OK;
}

static void bc_status(const struct ref_state *s, struct ref_status *out)
{
  const struct bc_state *st = cst_of(s);
  memset(out, 0, sizeof(*out));
  out->phase = (enum ref_phase)st->phase;
  out->turn = st->turn;
  out->need_faces = st->phase == REF_PHASE_ROLL || st->phase == REF_PHASE_CUBE ? 2 : 0;
  out->winner = st->phase == REF_PHASE_OVER ? st->winner : -1;
  out->end = st->phase == REF_PHASE_OVER ? (enum ref_end)st->end : REF_END_NONE;
  out->points = st->phase == REF_PHASE_OVER ? st->points : 0;
  out->move_number = (int)st->pos.fullmove;
  out->in_check = st->phase != REF_PHASE_OVER && king_attacked(st, st->onroll);
  out->cube = ref_bg_cube_value(&st->cube);
  out->cube_owner = st->cube.owner;
  if(st->phase == REF_PHASE_MOVE && !st->first) {
    out->dice[0] = st->dice[0];
    out->dice[1] = st->dice[1];
    out->ndice = 2;
  }
}

/* ---------------------------------------------------------------------- */
/* Reading a turn (section 1, 6.5)                                         */
/* ---------------------------------------------------------------------- */

/* The backgammon part, read by the backgammon game itself (its tolerant
 * reader, BG-6 orders, reason keys and suggestions) on a state decoded
 * from our board and dice. */
static int parse_bg(const struct bc_state *st, const char *text, struct ref_bg_play *play,
                    struct ref_err *err)
{
  const struct ref_game_desc *bg = &ref_game_backgammon;
  struct ref_state *tmp = ref_state_new(bg);
  struct ref_bg_match m;
  struct ref_move mv;
  char pid[15], mid[13], id[32];
  int rc;

  if(!tmp)
    return REF_ENOMEM;
  ref_bg_position_id(&st->b, st->onroll, pid);
  match_of(st, &m);
  ref_bg_match_id(&m, mid);
  snprintf(id, sizeof(id), "%s:%s", pid, mid);
  rc = bg->ops->decode(tmp, id, err);
  if(rc == REF_OK)
    rc = bg->ops->parse(tmp, text, &mv, err);
  if(rc == REF_OK && ref_bg_move_to_play(&mv, play) != REF_OK)
    rc = REF_EINVAL;
  free(tmp);
  return rc;
}

/* Chess-part suggestions: legal moves sharing the destination, origin or
 * piece with what was read, best first (section 1.4). */
static void suggest_chess(const struct bc_state *st, const struct cmlist *l, int to, int from,
                          int piece, struct ref_err *err)
{
  int score[512], i, k, n = l->n < 512 ? l->n : 512;
  if(!err)
    return;
  for(i = 0; i < n; i++) {
    const struct cmove *c = &l->v[i];
    int f = c->stone ? c->path.from : ref_chess_move_from(c->m);
    int t = c->stone ? c->path.to[c->path.nhops - 1] : ref_chess_move_to(c->m);
    int type = c->stone ? 6 : REF_CH_TYPE(st->pos.board[f]);
    score[i] = (t == to) * 4 + (f == from) * 2 + (type == piece);
  }
  err->nsuggest = 0;
  for(k = 0; k < REF_SUGGEST_MAX && k < n; k++) {
    int best = -1;
    for(i = 0; i < n; i++)
      if(score[i] >= 0 && (best < 0 || score[i] > score[best]))
        best = i;
    if(best < 0 || (n > REF_SUGGEST_MAX && score[best] == 0 && k > 0))
      break;
    cm_format(st, l, &l->v[best], err->suggest[k], REF_NOTATION_MAX);
    score[best] = -1;
    err->nsuggest = k + 1;
  }
}

static int chess_fail(const struct bc_state *st, const struct cmlist *l, enum ref_code code,
                      const char *reason, const char *detail, int to, int from, int piece,
                      struct ref_err *err)
{
  ref_err_set(err, code, reason, detail);
  suggest_chess(st, l, to, from, piece, err);
  return code;
}

/*
 * The chess part: SAN or long algebraic for pieces (`e5`, `Nf3`, `exd5`,
 * `O-O`, `e7e8=Q`, `e2-e4`), stone moves `Vc3-d4`, `Vc3xe5xc7`, `Xd4-c3`
 * (also without the letter, and a jump as origin x destination when only
 * one path joins them). Move numbers, check marks and glyphs are ignored.
 */
static int parse_chess(const struct bc_state *st, const char *text, struct cmove *out,
                       struct ref_err *err)
{
  static const char pieces[] = "PNBRQK";
  struct cmlist l = {0};
  char s[64];
  int n = 0, i, sqs[REF_CK_HOPS_MAX + 1], nsq = 0, piece = -1, promo = -1, ff = -1, fr = -1;
  int to, nfound = 0, found = -1, exact = -1, castle = 0, rc;
  bool capture = false, stone_letter = false, promo_missing = false;
  const char *p;

  rc = gen_chess(st, &l);
  if(rc)
    return rc;
  /* Clean: leading move numbers and dots, trailing marks and glyphs. */
  while(isspace((unsigned char)*text) || isdigit((unsigned char)*text) || *text == '.')
    text++;
  for(p = text; *p && n < (int)sizeof(s) - 1; p++)
    if(!isspace((unsigned char)*p))
      s[n++] = *p;
  s[n] = '\0';
  while(n && strchr("+#!?", s[n - 1]))
    s[--n] = '\0';
  if(!n) {
    rc = chess_fail(st, &l, REF_EPARSE, "unreadable", NULL, -1, -1, -1, err);
    goto out;
  }
  for(i = 0, castle = 0; s[i]; i++) {
    if(s[i] == 'O' || s[i] == 'o' || s[i] == '0')
      castle++;
    else if(s[i] != '-') {
      castle = 0;
      break;
    }
  }
  if(castle == 2 || castle == 3) {
    for(i = 0; i < l.n; i++)
      if(!l.v[i].stone && ref_chess_move_kind(l.v[i].m) == REF_CH_MV_CASTLE &&
         (ref_chess_move_to(l.v[i].m) > ref_chess_move_from(l.v[i].m)) == (castle == 2))
        found = i;
    if(found < 0) {
      rc = chess_fail(st, &l, REF_EILLEGAL, "bc-cannot-castle", NULL, -1, -1, REF_CH_KING, err);
      goto out;
    }
    *out = l.v[found];
    goto out;
  }

  p = s;
  if((*p == 'V' || *p == 'X' || *p == 'v') && sq_read(p + 1) >= 0) {
    stone_letter = true;
    p++;
  }
  else if(*p == 'K' && (p[1] == 't' || p[1] == 'n')) {
    piece = REF_CH_KNIGHT;
    p += 2;
  }
  else if(strchr("KQRNB", *p) && *p) {
    piece = (int)(strchr(pieces, *p) - pieces);
    p++;
  }
  else if(strchr("kqrn", *p) && *p && !(p[1] >= '1' && p[1] <= '8')) {
    piece = (int)(strchr(pieces, toupper((unsigned char)*p)) - pieces);
    p++;
  }
  /* The rest: squares and separators, maybe an origin file or rank, maybe a
   * promotion. */
  while(*p) {
    int sq = sq_read(p);
    if(sq >= 0 && nsq <= REF_CK_HOPS_MAX) {
      sqs[nsq++] = sq;
      p += 2;
    }
    else if(strchr("-xX:*", *p)) {
      if(*p != '-')
        capture = true;
      p++;
    }
    else if(nsq == 0 && *p >= 'a' && *p <= 'h' && ff < 0) {
      ff = *p++ - 'a';
    }
    else if(nsq == 0 && *p >= '1' && *p <= '8' && fr < 0) {
      fr = *p++ - '1';
    }
    else if(nsq && (*p == '=' || *p == '/' || *p == '(')) {
      p++;
    }
    else if(nsq && promo < 0 && strchr("QRBNqrbn", *p) && *p) {
      promo = (int)(strchr(pieces, toupper((unsigned char)*p)) - pieces);
      p++;
      if(*p == ')')
        p++;
    }
    else {
      rc = chess_fail(st, &l, REF_EPARSE, "unreadable", NULL, nsq ? sqs[nsq - 1] : -1, -1,
                      piece, err);
      goto out;
    }
  }
  if(!nsq) {
    rc = chess_fail(st, &l, REF_EPARSE, "unreadable", NULL, -1, -1, piece, err);
    goto out;
  }
  to = sqs[nsq - 1];
  /* A path from a square holding one of our stones is a stone move. */
  if(stone_letter || (nsq >= 2 && piece < 0 && ff < 0 && fr < 0 &&
                      (st->stones[st->pos.side] & BIT(sqs[0])))) {
    int from = sqs[0];
    if(nsq < 2 || promo >= 0) {
      rc = chess_fail(st, &l, REF_EPARSE, "unreadable", NULL, to, from, 6, err);
      goto out;
    }
    for(i = 0; i < l.n; i++) {
      const struct ref_ck_path *pa = &l.v[i].path;
      int j;
      bool all;
      if(!l.v[i].stone || pa->from != from || pa->to[pa->nhops - 1] != to)
        continue;
      /* Every landing written (6.5), or origin and end when one path fits. */
      all = pa->nhops == nsq - 1;
      for(j = 0; all && j < pa->nhops; j++)
        all = pa->to[j] == sqs[j + 1];
      if(all) {
        exact = i;
      }
      else if(nsq == 2) {
        nfound++;
        found = i;
      }
    }
    if(exact >= 0 || nfound == 1) {
      *out = l.v[exact >= 0 ? exact : found];
      goto out;
    }
    if(nfound > 1) {
      char from_s[3], to_s[3], detail[16];
      sq_name(from, from_s);
      sq_name(to, to_s);
      snprintf(detail, sizeof(detail), "%s-%s", from_s, to_s);
      rc = chess_fail(st, &l, REF_EAMBIGUOUS, "bc-stone-path-ambiguous", detail, to, from, 6,
                      err);
      goto out;
    }
    {
      char sq[3];
      sq_name(from, sq);
      if(!(st->stones[st->pos.side] & BIT(from)))
        rc = chess_fail(st, &l, REF_EILLEGAL, "bc-no-stone", sq, to, from, 6, err);
      else
        rc = chess_fail(st, &l, REF_EILLEGAL, "bc-stone-cannot", sq, to, from, 6, err);
    }
    goto out;
  }
  if(nsq > 2) {
    rc = chess_fail(st, &l, REF_EPARSE, "unreadable", NULL, to, -1, piece, err);
    goto out;
  }
  if(nsq == 2) {
    ff = sqs[0] % 8;
    fr = sqs[0] / 8;
  }
  for(i = 0; i < l.n; i++) {
    const struct cmove *c = &l.v[i];
    int f, type, kind;
    bool cap;
    if(c->stone || ref_chess_move_to(c->m) != to)
      continue;
    f = ref_chess_move_from(c->m);
    kind = ref_chess_move_kind(c->m);
    type = REF_CH_TYPE(st->pos.board[f]);
    cap = st->pos.board[to] != REF_CH_EMPTY || (st->stones[!st->pos.side] & BIT(to)) ||
          kind == REF_CH_MV_EP;
    if(piece >= 0 ? type != piece : (nsq == 1 && type != REF_CH_PAWN))
      continue;
    if((ff >= 0 && f % 8 != ff) || (fr >= 0 && f / 8 != fr))
      continue;
    /* SAN names a pawn capture by its file: a bare "e4" is the push. */
    if(nsq == 1 && piece < 0 && ff < 0 && cap)
      continue;
    if(capture && !cap)
      continue;
    if(kind == REF_CH_MV_PROMO) {
      if(promo < 0) {
        promo_missing = true;
        continue;
      }
      if(ref_chess_move_promo(c->m) != promo)
        continue;
    }
    else if(promo >= 0) {
      continue;
    }
    nfound++;
    found = i;
  }
  if(nfound == 1) {
    *out = l.v[found];
    goto out;
  }
  {
    char sq[3];
    sq_name(to, sq);
    if(nfound > 1)
      rc = chess_fail(st, &l, REF_EAMBIGUOUS, "ambiguous", s, to, -1, piece, err);
    else if(promo_missing)
      rc = chess_fail(st, &l, REF_EILLEGAL, "promotion-piece-missing", sq, to, -1, piece, err);
    else
      rc = chess_fail(st, &l, REF_EILLEGAL, "no-such-move", s, to,
                      ff >= 0 && fr >= 0 ? fr * 8 + ff : -1, piece, err);
  }
out:
  cm_free(&l);
  return rc;
}

/* A backgammon part as a comparable string: lower case, no roll, no hit
 * marks, no placements, its moves sorted (BG-6 lets them come in any
 * order). */
static void bg_norm(const char *in, char *out, size_t cap)
{
  char tmp[128], *tok[16], *save = NULL, *w;
  size_t k = 0;
  int n = 0, i, j;

  for(i = 0; in[i] && k < sizeof(tmp) - 1; i++) {
    if(in[i] == '@' && sq_read(in + i + 1) >= 0) {
      i += 2;
      continue;
    }
    if(in[i] == '*')
      continue;
    tmp[k++] = (char)tolower((unsigned char)in[i]);
  }
  tmp[k] = '\0';
  if(!strncmp(tmp, "(roll", 5) && strchr(tmp, ')'))
    memmove(tmp, strchr(tmp, ')') + 1, strlen(strchr(tmp, ')') + 1) + 1);
  for(w = strtok_r(tmp, " \t", &save); w && n < 16; w = strtok_r(NULL, " \t", &save))
    tok[n++] = w;
  for(i = 1; i < n; i++)
    for(j = i; j > 0 && strcmp(tok[j - 1], tok[j]) > 0; j--) {
      w = tok[j];
      tok[j] = tok[j - 1];
      tok[j - 1] = w;
    }
  k = 0;
  out[0] = '\0';
  for(i = 0; i < n; i++)
    k += (size_t)snprintf(out + k, k < cap ? cap - k : 0, "%s%s", i ? " " : "", tok[i]);
}

/* Takes every `@sq` out of text (blanking it), in order. Returns the count,
 * or -1 on an `@` not followed by a square or more than four. */
static int take_places(char *text, uint8_t *places)
{
  int n = 0;
  char *p;
  for(p = text; (p = strchr(p, '@')) != NULL;) {
    int sq = sq_read(p + 1);
    if(sq < 0 || n == 4)
      return -1;
    places[n++] = (uint8_t)sq;
    p[0] = p[1] = p[2] = ' ';
  }
  return n;
}

static bool blank(const char *s)
{
  while(*s && (isspace((unsigned char)*s) || *s == ';' || *s == ','))
    s++;
  return !*s;
}

static void trim(char *s)
{
  size_t n = strlen(s), i = 0;
  while(n && (isspace((unsigned char)s[n - 1]) || s[n - 1] == ','))
    s[--n] = '\0';
  while(s[i] && isspace((unsigned char)s[i]))
    i++;
  memmove(s, s + i, n - i + 1);
}

static int fail_with(enum ref_code code, const char *reason, const char *detail,
                     struct ref_err *err)
{
  ref_err_set(err, code, reason, detail);
  return code;
}

/* Suggestions when the backgammon part is wanted: the legal plays. */
static void suggest_bg(const struct bc_state *st, struct ref_err *err)
{
  struct ref_err tmp;
  struct ref_bg_play play;
  int i;
  if(!err)
    return;
  memset(&tmp, 0, sizeof(tmp));
  parse_bg(st, "?", &play, &tmp);
  for(i = 0; i < tmp.nsuggest; i++)
    memcpy(err->suggest[i], tmp.suggest[i], sizeof(err->suggest[i]));
  err->nsuggest = tmp.nsuggest;
}

static void suggest_places(const struct bc_state *st, struct ref_err *err)
{
  int sq, k = 0;
  if(!err)
    return;
  for(sq = 0; sq < 64 && k < REF_SUGGEST_MAX; sq++)
    if(!place_refusal(st, sq)) {
      char name[3];
      sq_name(sq, name);
      snprintf(err->suggest[k++], REF_NOTATION_MAX, "@%s", name);
    }
  err->nsuggest = k;
}

/*
 * One turn, or the rest of one, as a player writes it (6.5):
 *   [(roll a-b)] [backgammon part with @sq after each /off] [; chess part]
 * In stage ST_PLACE the left part may be just the placements (`@e4`, `e4`)
 * or the turn's backgammon play repeated; in ST_CHESS a repeated
 * backgammon part before `;` is accepted. Without `;`, the last word is
 * tried as the chess part when the whole does not read as backgammon.
 */
static int bc_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  const struct bc_state *st = cst_of(s);
  struct bc_state sim;
  struct turn t;
  char buf[256], left[256], chess[256] = "", norm_a[128], norm_b[128], *semi;
  int rc, i, n;

  if(st->phase != REF_PHASE_MOVE)
    return fail_with(REF_EPHASE, st->phase == REF_PHASE_OVER ? "game-over" : "bg-no-roll-yet",
                     NULL, err);
  if(!text || strlen(text) >= sizeof(buf))
    return fail_with(REF_EPARSE, "unreadable", NULL, err);
  snprintf(buf, sizeof(buf), "%s", text);
  trim(buf);
  memset(&t, 0, sizeof(t));
  /* "(roll 3-1)" as the referee echoes it: must be this turn's roll. */
  if(!strncasecmp(buf, "(roll", 5)) {
    char *close = strchr(buf, ')');
    int a = 0, b = 0;
    if(!close || sscanf(buf + 5, " %d - %d", &a, &b) != 2)
      return fail_with(REF_EPARSE, "unreadable", NULL, err);
    if(st->first || st->stage != ST_BG ||
       !((a == st->dice[0] && b == st->dice[1]) || (a == st->dice[1] && b == st->dice[0]))) {
      char d[16];
      snprintf(d, sizeof(d), "%d-%d", st->dice[0], st->dice[1]);
      return fail_with(REF_EILLEGAL, st->stage == ST_BG ? "bc-wrong-roll" : "bc-backgammon-done",
                       st->stage == ST_BG ? d : st->bgtext, err);
    }
    memmove(buf, close + 1, strlen(close + 1) + 1);
    trim(buf);
  }
  semi = strchr(buf, ';');
  if(semi) {
    *semi = '\0';
    snprintf(chess, sizeof(chess), "%s", semi + 1);
    trim(chess);
  }
  snprintf(left, sizeof(left), "%s", buf);
  trim(left);

  if(st->stage == ST_BG) {
    struct ref_err first;
    char *sp;
    if(!left[0]) {
      rc = fail_with(REF_EILLEGAL, "bc-backgammon-first", NULL, err);
      suggest_bg(st, err);
      return rc;
    }
    n = take_places(left, t.place);
    if(n < 0)
      return fail_with(REF_EPARSE, "unreadable", NULL, err);
    t.nplace = n;
    memset(&first, 0, sizeof(first));
    rc = parse_bg(st, left, &t.play, &first);
    if(rc && !semi && (sp = strrchr(left, ' ')) != NULL) {
      /* "8/5 6/5 e5": the last word as the chess part. */
      struct ref_err second;
      memset(&second, 0, sizeof(second));
      snprintf(chess, sizeof(chess), "%s", sp + 1);
      *sp = '\0';
      if(parse_bg(st, left, &t.play, &second) == REF_OK)
        rc = REF_OK;
      else
        chess[0] = '\0';
    }
    if(rc) {
      if(err)
        *err = first;
      /* "e5" alone: a chess move where the turn starts with backgammon. */
      if(!semi && !strchr(left, '/') && rc == REF_EPARSE && err)
        snprintf(err->reason, sizeof(err->reason), "bc-backgammon-first");
      return rc;
    }
    t.has_bg = true;
  }
  else if(st->stage == ST_PLACE) {
    if(strchr(left, '/')) {
      /* The turn's play written again, with its placements. */
      n = take_places(left, t.place);
      bg_norm(left, norm_a, sizeof(norm_a));
      bg_norm(st->bgtext, norm_b, sizeof(norm_b));
      if(n < 0 || strcmp(norm_a, norm_b))
        return fail_with(REF_EILLEGAL, "bc-backgammon-done", st->bgtext, err);
      t.nplace = n;
    }
    else {
      char *w, *save = NULL, rest[256] = "";
      for(w = strtok_r(left, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
        const char *q = w[0] == '@' ? w + 1 : w;
        if(!rest[0] && t.nplace < st->pending && sq_read(q) >= 0 && !q[2]) {
          t.place[t.nplace++] = (uint8_t)sq_read(q);
          continue;
        }
        if(semi || rest[0]) {
          rc = fail_with(REF_EPARSE, "unreadable", w, err);
          suggest_places(st, err);
          return rc;
        }
        snprintf(rest, sizeof(rest), "%s", w); /* the chess part, without ';' */
      }
      if(rest[0])
        snprintf(chess, sizeof(chess), "%s", rest);
    }
    if(!t.nplace) {
      rc = fail_with(REF_EILLEGAL, "bc-placement-missing", NULL, err);
      suggest_places(st, err);
      return rc;
    }
  }
  else {
    if(semi && !blank(left)) {
      if(st->first)
        return fail_with(REF_EILLEGAL, "bc-no-dice-first-turn", NULL, err);
      bg_norm(left, norm_a, sizeof(norm_a));
      bg_norm(st->bgtext, norm_b, sizeof(norm_b));
      if(strcmp(norm_a, norm_b))
        return fail_with(REF_EILLEGAL, "bc-backgammon-done", st->bgtext, err);
    }
    if(!semi && strchr(left, '/'))
      return fail_with(REF_EILLEGAL, st->first ? "bc-no-dice-first-turn" : "bc-backgammon-done",
                       st->first ? NULL : st->bgtext, err);
    if(!semi)
      snprintf(chess, sizeof(chess), "%s", left);
    if(!chess[0])
      return fail_with(REF_EPARSE, "unreadable", NULL, err);
  }

  /* Play it through on a copy: every part must be legal where it falls. */
  sim = *st;
  if(t.has_bg && do_bg(&sim, &t.play, false) != REF_OK)
    return fail_with(REF_EILLEGAL, "illegal", NULL, err);
  for(i = 0; i < t.nplace; i++) {
    const char *why;
    char name[3];
    if(sim.phase == REF_PHASE_OVER) {
      t.nplace = i; /* 6.2d: the backgammon game is won; nothing to place */
      break;
    }
    if(sim.stage != ST_PLACE)
      return fail_with(REF_EILLEGAL, "bc-too-many-placements", NULL, err);
    why = place_refusal(&sim, t.place[i]);
    if(why) {
      sq_name(t.place[i], name);
      rc = fail_with(REF_EILLEGAL, why, name, err);
      suggest_places(&sim, err);
      return rc;
    }
    do_place(&sim, t.place[i]);
  }
  if(chess[0] && sim.phase != REF_PHASE_OVER) {
    if(sim.phase == REF_PHASE_MOVE && sim.stage == ST_PLACE) {
      char d[8];
      snprintf(d, sizeof(d), "%d", sim.pending);
      rc = fail_with(REF_EILLEGAL, "bc-placement-missing", d, err);
      suggest_places(&sim, err);
      return rc;
    }
    if(sim.phase != REF_PHASE_MOVE || sim.stage != ST_CHESS)
      return fail_with(REF_EILLEGAL, "bc-no-chess-move", NULL, err);
    rc = parse_chess(&sim, chess, &t.cm, err);
    if(rc)
      return rc;
    t.has_chess = true;
  }
  if(!t.has_bg && !t.nplace && !t.has_chess)
    return fail_with(REF_EPARSE, "unreadable", NULL, err);
  turn_to_move(&t, out);
  return REF_OK;
}

/* ---------------------------------------------------------------------- */
/* The boards                                                              */
/* ---------------------------------------------------------------------- */

struct out {
  char *buf;
  size_t cap, len;
  bool full;
};

static void emit(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void emit(struct out *o, const char *fmt, ...)
{
  va_list ap;
  int n;
  if(o->full)
    return;
  va_start(ap, fmt);
  n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
  va_end(ap);
  if(n < 0 || (size_t)n >= o->cap - o->len) {
    o->full = true;
    return;
  }
  o->len += (size_t)n;
}

/* The backgammon board as the backgammon game draws it (its rows only: the
 * IDs and its own status lines are not this game's). */
static void render_bg(const struct bc_state *st, int seat, struct out *o)
{
  const struct ref_game_desc *bg = &ref_game_backgammon;
  struct ref_state *tmp = ref_state_new(bg);
  struct ref_bg_match m;
  char pid[15], mid[13], id[32], *text = malloc(4096), *line, *save = NULL;
  int s, done = -1;

  if(!tmp || !text)
    goto out;
  memset(&m, 0, sizeof(m));
  m.cube_log2 = st->cube.log2;
  m.cube_owner = st->cube.owner;
  m.state = 1;
  m.on_roll = m.turn = st->onroll;
  for(s = 0; s < 2; s++)
    if(st->b.pt[s][REF_BG_OFF] == REF_BG_CHECKERS)
      done = s;
  if(done >= 0) {
    m.state = 2;
    m.on_roll = done;
    m.turn = !done;
  }
  ref_bg_position_id(&st->b, m.on_roll, pid);
  ref_bg_match_id(&m, mid);
  snprintf(id, sizeof(id), "%s:%s", pid, mid);
  if(bg->ops->decode(tmp, id, NULL) != REF_OK || bg->ops->render(tmp, seat, text, 4096))
    goto out;
  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
    if(!strncmp(line, " +", 2) || !strncmp(line, " |", 2))
      emit(o, "%s\n", line);
out:
  free(text);
  free(tmp);
}

/* The board as data (issue 17): the chess board with its pieces and
 * stones (V a man, X a doubled stone: BC-5), the last chess move marked,
 * the jail; and the backgammon board (its bar is the jail), the cube, the
 * dice to play. */
static int bc_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  static const char letters[2][7] = {"PNBRQK", "pnbrqk"};
  const struct bc_state *st = cst_of(s);
  int sq;
  ref_diag_grid(d, 8, 8, seat == 1);
  d->has_points = true;
  for(sq = 0; sq < 64; sq++) {
    struct ref_diag_cell *c = &d->cell[sq / 8][sq % 8];
    int code = st->pos.board[sq];
    if(code != REF_CH_EMPTY)
      ref_diag_put_letter(&c->s, letters[REF_CH_COLOR(code)][REF_CH_TYPE(code)]);
    else if(st->stones[0] & BIT(sq))
      ref_diag_put_letter(&c->s, (st->dbl[0] & BIT(sq)) ? 'X' : 'V');
    else if(st->stones[1] & BIT(sq))
      ref_diag_put_letter(&c->s, (st->dbl[1] & BIT(sq)) ? 'x' : 'v');
    if(st->phase != REF_PHASE_OVER)
      c->s.mark = (uint8_t)((sq == st->last_from ? REF_DIAG_FROM : 0) |
                            (sq == st->last_to ? REF_DIAG_TO : 0));
  }
  ref_diag_bg_board(d, &st->b);
  d->jail[0] = st->b.pt[0][REF_BG_BAR];
  d->jail[1] = st->b.pt[1][REF_BG_BAR];
  d->cube = ref_bg_cube_value(&st->cube);
  d->cube_owner = st->cube.owner;
  if(st->phase == REF_PHASE_MOVE && st->dice[0]) {
    d->dice[0] = st->dice[0];
    d->dice[1] = st->dice[1];
    d->ndice = 2;
  }
  return REF_OK;
}

/*
 * The chess board from `seat`'s side as the chess game draws it (three
 * columns a square, the last move in brackets), stones V X for White and v
 * x for Black; beneath it the backgammon board (jail is its BAR). Both
 * within 72 columns.
 */
static int bc_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  static const char letters[2][7] = {"PNBRQK", "pnbrqk"};
  const struct bc_state *st = cst_of(s);
  struct out o = {buf, cap, 0, false};
  bool flip = seat == 1;
  int row, col, side = st->onroll;

  if(!cap)
    return REF_EINVAL;
  buf[0] = '\0';
  for(row = 0; row < 8; row++) {
    int rank = flip ? row : 7 - row;
    emit(&o, " %d ", rank + 1);
    for(col = 0; col < 8; col++) {
      int file = flip ? 7 - col : col, sq = rank * 8 + file, code = st->pos.board[sq];
      bool mark = st->phase != REF_PHASE_OVER && (sq == st->last_from || sq == st->last_to);
      char c = '.';
      if(code != REF_CH_EMPTY)
        c = letters[REF_CH_COLOR(code)][REF_CH_TYPE(code)];
      else if(st->stones[0] & BIT(sq))
        c = (st->dbl[0] & BIT(sq)) ? 'X' : 'V';
      else if(st->stones[1] & BIT(sq))
        c = (st->dbl[1] & BIT(sq)) ? 'x' : 'v';
      emit(&o, "%c%c%c", mark ? '[' : ' ', c, mark ? ']' : ' ');
    }
    emit(&o, " %d", rank + 1);
    if(row == 1)
      emit(&o, "    stones: V X White, v x Black");
    if(row == 2)
      emit(&o, "    in jail: White %d, Black %d", st->b.pt[0][REF_BG_BAR],
           st->b.pt[1][REF_BG_BAR]);
    emit(&o, "\n");
  }
  emit(&o, "   ");
  for(col = 0; col < 8; col++)
    emit(&o, col < 7 ? " %c " : " %c", 'a' + (flip ? 7 - col : col));
  emit(&o, "\n\n");
  render_bg(st, seat == 1 ? 1 : 0, &o);
  switch(st->phase) {
  case REF_PHASE_CUBE:
    emit(&o, " %s to double or roll.\n", seat_name[side]);
    break;
  case REF_PHASE_ROLL:
    emit(&o, " %s to roll.\n", seat_name[side]);
    break;
  case REF_PHASE_CUBE_REPLY:
    emit(&o, " %s doubles to %d: %s to take or drop.\n", seat_name[side],
         2 * ref_bg_cube_value(&st->cube), seat_name[!side]);
    break;
  case REF_PHASE_MOVE:
    if(st->first)
      emit(&o, " %s to move: on the first turn a chess move only.\n", seat_name[side]);
    else if(st->stage == ST_BG)
      emit(&o, " %s to play %d-%d, then a chess move (\"PLAY ; MOVE\").\n", seat_name[side],
           st->dice[0], st->dice[1]);
    else if(st->stage == ST_PLACE)
      emit(&o, " %s to place %d borne-off stone%s: \"@e4\".\n", seat_name[side], st->pending,
           st->pending == 1 ? "" : "s");
    else
      emit(&o, " %s (roll %d-%d) to make a chess move%s.\n", seat_name[side], st->dice[0],
           st->dice[1], king_attacked(st, side) ? ", in check" : "");
    break;
  default:
    if(st->winner < 0)
      emit(&o, " Drawn (%s).\n", ref_end_name((enum ref_end)st->end));
    else
      emit(&o, " %s wins %d point%s (%s).\n", seat_name[st->winner], st->points,
           st->points == 1 ? "" : "s", ref_end_name((enum ref_end)st->end));
    break;
  }
  return o.full ? REF_EINVAL : REF_OK;
}

static const struct ref_game_ops bc_ops = {
  bc_init,   /* init */
  bc_decode, /* decode */
  bc_encode, /* encode */
  bc_legal,  /* legal */
  bc_parse,  /* parse */
  bc_format, /* format */
  bc_apply,  /* apply */
  bc_roll,   /* roll */
  bc_act,    /* act */
  bc_status, /* status */
  bc_render, /* render */
  NULL,      /* perft: the generic one (dice fixed by the caller) */
  bc_ok,     /* ok */
  bc_diagram, /* diagram */
};

/* Lag Backgammon Chess (6.9): the same rules; only init differs (lag=2
 * unless given). The private dice are the service's (referee/lag.c). */
static const struct ref_game_ops lag_ops = {
  lag_init, bc_decode, bc_encode, bc_legal, bc_parse, bc_format, bc_apply,
  bc_roll,  bc_act,    bc_status, bc_render, NULL,     bc_ok,
  bc_diagram, /* diagram */
};

const struct ref_game_desc ref_game_backgammon_chess = {
  "bgchess",                      /* name */
  "Backgammon Chess",             /* title */
  1,                              /* version */
  2,                              /* seats */
  {"White", "Black", NULL, NULL}, /* seat_names */
  REF_GAME_DICE | REF_GAME_CUBE,  /* flags: no draw offers (BC-8) */
  sizeof(struct bc_state),        /* state_size */
  &bc_ops,                        /* ops */
};

const struct ref_game_desc ref_game_lag_backgammon_chess = {
  "lagbgchess",
  "Lag Backgammon Chess",
  1,
  2,
  {"White", "Black", NULL, NULL},
  REF_GAME_DICE | REF_GAME_CUBE,
  sizeof(struct bc_state),
  &lag_ops,
};
