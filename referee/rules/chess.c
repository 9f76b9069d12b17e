/*
 * chess.c: the chess rules core (game "chess", library tabula_rules).
 *
 * Follows docs/rules-spec.md §1 (referee conventions: tolerant move input,
 * canonical output) and §2 (chess: ChromaGames rules completed from the FIDE
 * Laws of Chess), in particular CH-1 (castling neither through nor onto an
 * attacked square) and CH-2 (the FIDE draw block, option fide_draws:
 * threefold repetition and the fifty-move rule on claim; fivefold
 * repetition, the 75-move rule and dead positions automatic). Position
 * strings are FEN as the Chess Programming Wiki and Stockfish write it;
 * moves go out as SAN (PGN standard §8.2.3) and UCI.
 *
 * Layout: FEN; the position checker; then the game layer (state, options,
 * the result through game_end.c, the reader's view of the moves through
 * chess_notation.c, the ASCII board) and the ops table. The board itself
 * (bitboards, generators, make, perft, SAN/UCI) is chess_board.c's,
 * declared in chess_int.h for the chess-family variants.
 */
#include "chess_int.h"
#include "chess_notation_int.h"
#include "diagram_int.h"
#include "game_end_int.h"
#include "game_text_int.h"
#include "rules.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What the FEN reader and the position checker need of chess_board.c's
 * square arithmetic. */
#define BIT(s) (1ull << (s))
#define SQ_FILE(s) ((unsigned)(s) & 7u)
#define SQ_RANK(s) ((unsigned)(s) >> 3)
#define EDGE_RANKS 0xFF000000000000FFull /* ranks 1 and 8: no pawn stands there */
#define SQ_E1 4
#define SQ_E8 60

static const char piece_letters[] = "PNBRQK";

static void square_name(int sq, char *out)
{
  out[0] = (char)('a' + SQ_FILE(sq));
  out[1] = (char)('1' + SQ_RANK(sq));
  out[2] = '\0';
}

/* ------------------------------------------------------------------------ */
/* FEN */

static int piece_from_letter(int c)
{
  const char *hit = c ? strchr(piece_letters, c) : NULL;
  return hit ? (int)(hit - piece_letters) : -1;
}

/* Does the castling right `right` have its king and rook at home? */
static bool castle_right_ok(const struct ref_chess_pos *p, unsigned right)
{
  int color = right & (REF_CH_WK | REF_CH_WQ) ? REF_CH_WHITE : REF_CH_BLACK;
  int king = color == REF_CH_WHITE ? SQ_E1 : SQ_E8;
  int rook = king + (right & (REF_CH_WK | REF_CH_BK) ? 3 : -4);
  return p->board[king] == REF_CH_PIECE(color, REF_CH_KING) &&
         p->board[rook] == REF_CH_PIECE(color, REF_CH_ROOK);
}

/*
 * The FEN reader. Mail is hostile (style rule 6, "validate at the
 * boundary"): everything the generator relies on is checked here, so
 * nothing past this point needs to defend itself. Stockfish crashes or
 * invents moves on such input (oracles.md §1.1); we refuse it with a key.
 * Four-field FENs (EPD style) are read with counters "0 1".
 */
int ref_chess_fen_read(struct ref_chess_pos *p, const char *fen, const char **reason)
{
  char buf[128], *field[7], *s;
  int nfield = 0, rank, file, c, checkers;
  uint32_t half = 0, full = 1;
  uint16_t moves[REF_CH_MAX_MOVES];

  *reason = "fen-syntax";
  if(!fen || (nfield = ref_text_fields(fen, buf, sizeof(buf), field, 7)) < 0)
    return REF_EINVAL;
  if(nfield != 4 && nfield != 6)
    return REF_EINVAL;

  ref_chess_clear(p);
  *reason = "fen-board";
  rank = 7;
  file = 0;
  for(s = field[0]; *s; s++) {
    c = (unsigned char)*s;
    if(c == '/') {
      if(file != 8 || rank == 0)
        return REF_EINVAL;
      rank--;
      file = 0;
    }
    else if(c >= '1' && c <= '8') {
      /* Two digits in a row (e.g. "44") are a non-canonical board. */
      if(s > field[0] && s[-1] >= '1' && s[-1] <= '8')
        return REF_EINVAL;
      file += c - '0';
      if(file > 8)
        return REF_EINVAL;
    }
    else {
      int type = piece_from_letter(c >= 'a' ? c - 'a' + 'A' : c);
      if(type < 0 || file > 7)
        return REF_EINVAL;
      ref_chess_put(p, c >= 'a' ? REF_CH_BLACK : REF_CH_WHITE, type, rank * 8 + file);
      file++;
    }
  }
  if(rank != 0 || file != 8)
    return REF_EINVAL;

  *reason = "fen-kings";
  if(ref_chess_popcount(p->pieces[0][REF_CH_KING]) != 1 ||
     ref_chess_popcount(p->pieces[1][REF_CH_KING]) != 1)
    return REF_EINVAL;
  *reason = "fen-pawn-rank";
  if((p->pieces[0][REF_CH_PAWN] | p->pieces[1][REF_CH_PAWN]) & EDGE_RANKS)
    return REF_EINVAL;
  *reason = "fen-material";
  if(!ref_chess_material_possible(p, REF_CH_WHITE) ||
     !ref_chess_material_possible(p, REF_CH_BLACK))
    return REF_EINVAL;

  *reason = "fen-side";
  if(!strcmp(field[1], "w"))
    p->side = REF_CH_WHITE;
  else if(!strcmp(field[1], "b"))
    p->side = REF_CH_BLACK;
  else
    return REF_EINVAL;

  *reason = "fen-castling";
  if(strcmp(field[2], "-")) {
    for(s = field[2]; *s; s++) {
      const char *hit = strchr("KQkq", *s);
      unsigned right;
      if(!*s || !hit)
        return REF_EINVAL;
      right = 1u << (hit - "KQkq");
      if((p->castle & right) || !castle_right_ok(p, right))
        return REF_EINVAL;
      p->castle |= (uint8_t)right;
    }
  }

  if(nfield == 6) {
    *reason = "fen-counters";
    if(!ref_text_counter(field[4], 6, &half) || !ref_text_counter(field[5], 6, &full) || full < 1)
      return REF_EINVAL;
  }
  p->halfmove = half;
  p->fullmove = full;

  *reason = "fen-en-passant";
  if(strcmp(field[3], "-")) {
    int ep, behind, front;
    if(field[3][0] < 'a' || field[3][0] > 'h' || field[3][1] < '1' || field[3][1] > '8' ||
       field[3][2])
      return REF_EINVAL;
    ep = (field[3][1] - '1') * 8 + (field[3][0] - 'a');
    /* The square a pawn of the side not to move just crossed: rank 6 with
     * White to move, with that pawn in front of it and both the square and
     * the one it came from empty; the double step also reset the clock. */
    if(p->side == REF_CH_WHITE) {
      front = ep - 8;
      behind = ep + 8;
      if(SQ_RANK(ep) != 5)
        return REF_EINVAL;
    }
    else {
      front = ep + 8;
      behind = ep - 8;
      if(SQ_RANK(ep) != 2)
        return REF_EINVAL;
    }
    if(p->board[ep] != REF_CH_EMPTY || p->board[behind] != REF_CH_EMPTY ||
       p->board[front] != REF_CH_PIECE(p->side ^ 1, REF_CH_PAWN) || half != 0)
      return REF_EINVAL;
    p->ep = (uint8_t)ep;
  }

  *reason = "fen-check";
  if(ref_chess_attacked(p, ref_chess_lsb(p->pieces[p->side ^ 1][REF_CH_KING]), p->side))
    return REF_EINVAL;
  /* No single move gives check from three pieces at once. */
  *reason = "fen-impossible-check";
  checkers = ref_chess_popcount(
    ref_chess_attackers(p, ref_chess_lsb(p->pieces[p->side][REF_CH_KING]), p->occ[0] | p->occ[1]) &
    p->occ[p->side ^ 1]);
  if(checkers > 2)
    return REF_EINVAL;

  /* Keep the e.p. square only when a capture is legal, as Stockfish and
   * chess.js write it (oracles.md §1.1), so equal positions hash equal. */
  if(p->ep != REF_CH_NO_SQ) {
    int i, n = ref_chess_gen_legal(p, moves);
    bool any = false;
    for(i = 0; i < n; i++)
      if(ref_chess_move_kind(moves[i]) == REF_CH_MV_EP)
        any = true;
    if(!any)
      p->ep = REF_CH_NO_SQ;
  }
  p->key = ref_chess_key_compute(p);
  *reason = NULL;
  return REF_OK;
}

/* Built in a local buffer first so a too-small buf is left untouched. */
int ref_chess_fen_write(const struct ref_chess_pos *p, char *buf, size_t cap)
{
  char out[128];
  size_t k = ref_chess_placement_write(p, out);

  out[k++] = ' ';
  out[k++] = p->side == REF_CH_WHITE ? 'w' : 'b';
  out[k++] = ' ';
  if(!p->castle)
    out[k++] = '-';
  if(p->castle & REF_CH_WK)
    out[k++] = 'K';
  if(p->castle & REF_CH_WQ)
    out[k++] = 'Q';
  if(p->castle & REF_CH_BK)
    out[k++] = 'k';
  if(p->castle & REF_CH_BQ)
    out[k++] = 'q';
  out[k++] = ' ';
  if(p->ep == REF_CH_NO_SQ) {
    out[k++] = '-';
  }
  else {
    out[k++] = (char)('a' + SQ_FILE(p->ep));
    out[k++] = (char)('1' + SQ_RANK(p->ep));
  }
  k += (size_t)snprintf(out + k, sizeof(out) - k, " %u %u", (unsigned)p->halfmove,
                        (unsigned)p->fullmove);
  return ref_text_copy(out, k, buf, cap);
}

/* ------------------------------------------------------------------------ */
/* The position checker (Weiss PositionOk, style-anchors.md §6): every
 * redundant field recomputed from the mailbox. */

bool ref_chess_pos_ok(const struct ref_chess_pos *p)
{
  const uint64_t(*pieces)[6] = p->pieces;
  uint16_t moves[REF_CH_MAX_MOVES];
  int c, i, n;
  unsigned r;

  if(p->side > 1 || p->castle > 15 || p->fullmove < 1 || !ref_chess_tables_ok(p))
    return false;
  for(c = 0; c < 2; c++)
    if(ref_chess_popcount(pieces[c][REF_CH_KING]) != 1)
      return false;
  if((pieces[0][REF_CH_PAWN] | pieces[1][REF_CH_PAWN]) & EDGE_RANKS)
    return false;
  for(r = 1; r <= 8; r <<= 1)
    if((p->castle & r) && !castle_right_ok(p, r))
      return false;
  /* The side that just moved cannot have left its king attacked. */
  if(ref_chess_attacked(p, ref_chess_lsb(pieces[p->side ^ 1][REF_CH_KING]), p->side))
    return false;
  if(p->ep != REF_CH_NO_SQ) {
    bool any = false;
    if(p->ep > 63 || SQ_RANK(p->ep) != (p->side == REF_CH_WHITE ? 5u : 2u) || p->halfmove != 0)
      return false;
    n = ref_chess_gen_legal(p, moves);
    for(i = 0; i < n; i++)
      if(ref_chess_move_kind(moves[i]) == REF_CH_MV_EP)
        any = true;
    if(!any)
      return false;
  }
  return p->key == ref_chess_key_compute(p);
}

/* ------------------------------------------------------------------------ */
/* The game: a position plus what the rules need beyond it */

#define CHESS_MAGIC 0x43485332u /* "CHS2": bump when the layout changes */

/*
 * Repetition (CH-2) compares positions since the last capture or pawn move,
 * so the history (game_end_int.h) holds the Zobrist keys of exactly those.
 */
struct chess_state {
  uint32_t magic;
  uint8_t fide_draws; /* CH-2 block on (1) or off (0) */
  uint8_t last_from;  /* the last move, for render; REF_CH_NO_SQ if none */
  uint8_t last_to;
  struct ref_chess_pos pos;
  struct ref_ge e; /* the result and the repetition history */
};

static bool chess_ok(const struct ref_state *s);

static struct chess_state *state_of(struct ref_state *s)
{
  return (struct chess_state *)(void *)s;
}

static const struct chess_state *cstate_of(const struct ref_state *s)
{
  return (const struct chess_state *)(const void *)s;
}

static const char start_fen[] = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

/*
 * Dead position (CH-2, FIDE 5.2.2) for the material rules-spec lists: K v K,
 * K+B v K, K+N v K, K+B v K+B with bishops on one colour. Any number of
 * bishops all on one colour is dead for the same reason (no mate can be
 * built from one colour complex), so that is how the last case is tested.
 */
static bool dead_position(const struct ref_chess_pos *p)
{
  uint64_t heavy = p->pieces[0][REF_CH_PAWN] | p->pieces[1][REF_CH_PAWN] |
                   p->pieces[0][REF_CH_ROOK] | p->pieces[1][REF_CH_ROOK] |
                   p->pieces[0][REF_CH_QUEEN] | p->pieces[1][REF_CH_QUEEN];
  uint64_t knights = p->pieces[0][REF_CH_KNIGHT] | p->pieces[1][REF_CH_KNIGHT];
  uint64_t bishops = p->pieces[0][REF_CH_BISHOP] | p->pieces[1][REF_CH_BISHOP];

  return ref_chess_dead_material(heavy, knights, bishops);
}

/* Sets the result from the position alone: checkmate and stalemate (§2.3),
 * then the automatic FIDE draws (CH-2). */
static void settle(struct chess_state *st)
{
  const struct ref_chess_pos *p = &st->pos;
  bool has_moves = ref_chess_count_legal(p) != 0;

  ref_ge_fide(&st->e, st->fide_draws, has_moves, !has_moves && ref_chess_in_check(p),
              has_moves && st->fide_draws && dead_position(p), p->halfmove, p->side ^ 1);
}

/* A fresh game state around a validated position. */
static void state_start(struct chess_state *st, const struct ref_chess_pos *p, int fide_draws)
{
  memset(st, 0, sizeof(*st));
  st->magic = CHESS_MAGIC;
  st->fide_draws = (uint8_t)fide_draws;
  st->pos = *p;
  st->last_from = st->last_to = REF_CH_NO_SQ;
  ref_ge_start(&st->e, p->key);
  settle(st);
}

/*
 * Options "key=value;key=value" (rules.h, game_text.c): fide_draws=on|off
 * (CH-2, default on) and fen=FEN (start position, validated like decode).
 * Unknown keys are REF_EINVAL, and so is a key given twice: honouring
 * either would be a guess. On failure the state is left as it was.
 */
static int chess_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct ref_chess_pos pos;
  struct ref_opt o;
  const char *reason = NULL, *b = options;
  char fen[128], key[32];
  int fide_draws = 1;
  bool seen_fide = false, seen_fen = false;

  strcpy(fen, start_fen);
  while(ref_opt_next(&b, &o)) {
    ref_opt_key(&o, key, sizeof(key));
    if(o.kb == o.ke && !o.has_value)
      continue; /* an empty segment, e.g. after a trailing ';' */
    if(ref_opt_is(o.kb, o.ke, "fide_draws")) {
      if(!o.has_value || seen_fide ||
         !(ref_opt_is(o.vb, o.ve, "on") || ref_opt_is(o.vb, o.ve, "off")))
        goto bad;
      seen_fide = true;
      fide_draws = ref_opt_is(o.vb, o.ve, "on");
    }
    else if(ref_opt_is(o.kb, o.ke, "fen")) {
      if(!o.has_value || seen_fen)
        goto bad;
      if((size_t)(o.ve - o.vb) >= sizeof(fen)) {
        ref_err_set(err, REF_EINVAL, "fen-syntax", NULL);
        return REF_EINVAL;
      }
      seen_fen = true;
      snprintf(fen, sizeof(fen), "%.*s", (int)(o.ve - o.vb), o.vb);
    }
    else {
      ref_err_set(err, REF_EINVAL, "ch-unknown-option", key);
      return REF_EINVAL;
    }
  }
  if(ref_chess_fen_read(&pos, fen, &reason) != REF_OK) {
    ref_err_set(err, REF_EINVAL, reason, NULL);
    return REF_EINVAL;
  }
  state_start(state_of(s), &pos, fide_draws);
  return REF_OK;
bad:
  ref_err_set(err, REF_EINVAL, "ch-bad-option", key);
  return REF_EINVAL;
}

/* Decoding keeps the fide_draws option of a state made by init (options
 * are not part of a FEN) and starts a fresh repetition history. */
static int chess_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct chess_state *st = state_of(s);
  struct ref_chess_pos pos;
  const char *reason = NULL;
  int fide = st->magic == CHESS_MAGIC ? st->fide_draws : 1;

  if(ref_chess_fen_read(&pos, text, &reason) != REF_OK) {
    ref_err_set(err, REF_EINVAL, reason, NULL);
    return REF_EINVAL;
  }
  state_start(st, &pos, fide);
  return REF_OK;
}

/* FEN of the current position; the e.p. square only when a capture is
 * legal (see struct ref_chess_pos). REF_EINVAL if buf is too small. */
static int chess_encode(const struct ref_state *s, char *buf, size_t cap)
{
  return ref_chess_fen_write(&cstate_of(s)->pos, buf, cap);
}

/* The legal moves of p as 32-bit words (what game_end.c and
 * chess_notation.c read). Returns the count. */
static int legal_words(const struct ref_chess_pos *p, uint32_t *moves)
{
  uint16_t legal[REF_CH_MAX_MOVES];
  int i, n = ref_chess_gen_legal(p, legal);
  for(i = 0; i < n; i++)
    moves[i] = legal[i];
  return n;
}

/* Every legal move of the position, in generation order; none once the
 * game is over (G-1). */
static int chess_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct chess_state *st = cstate_of(s);
  uint32_t moves[REF_CH_MAX_MOVES];
  return ref_ge_moves(&st->e, moves, legal_words(&st->pos, moves), 0, out);
}

/* The 16-bit move inside m if it is one of the legal moves of p, else 0
 * (no legal move encodes as 0: from == to never happens). */
static uint16_t legal_move_of(const struct ref_chess_pos *p, const struct ref_move *m)
{
  uint32_t moves[REF_CH_MAX_MOVES];
  return (uint16_t)ref_ge_find(moves, legal_words(p, moves), m);
}

/* SAN (canonical, §2.4) or UCI (computer) of m. REF_EINVAL when m is not a
 * legal move of the position or buf is too small. */
static int chess_format(const struct ref_state *s, const struct ref_move *m,
                        enum ref_notation style, char *buf, size_t cap)
{
  const struct ref_chess_pos *p = &cstate_of(s)->pos;
  uint16_t mv = legal_move_of(p, m);

  if(!mv)
    return REF_EINVAL;
  if(style == REF_NOTATION_COMPUTER)
    return ref_chess_uci(mv, buf, cap);
  return ref_chess_san(p, mv, buf, cap);
}

/*
 * Plays m and settles the result (§2.3, CH-2). The move is checked against
 * the legal list although rules.h lets apply trust it: a journal replayed
 * after a rules change must fail loudly, not corrupt the state. Returns
 * REF_EPHASE once the game is over, REF_EILLEGAL for a move not legal here.
 */
static int chess_apply(struct ref_state *s, const struct ref_move *m)
{
  struct chess_state *st = state_of(s);
  uint16_t mv;

  if(st->e.over)
    return REF_EPHASE;
  mv = legal_move_of(&st->pos, m);
  if(!mv)
    return REF_EILLEGAL;
  ref_chess_make(&st->pos, mv);
  st->last_from = (uint8_t)ref_chess_move_from(mv);
  st->last_to = (uint8_t)ref_chess_move_to(mv);
  ref_ge_push(&st->e, st->pos.key, st->pos.halfmove == 0);
  settle(st);
  assert(chess_ok(s)); /* style rule 6: the checker after every apply in debug builds */
  return REF_OK;
}

/*
 * Resignation (the other seat wins, any time, either seat), agreed draw,
 * and draw claims (CH-2). Cube actions are REF_EPHASE: chess has none.
 * Returns REF_EPHASE when the game is over, REF_EILLEGAL for a claim that
 * does not hold, REF_EINVAL for a seat or action that does not exist.
 */
static int chess_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                     struct ref_err *err)
{
  struct chess_state *st = state_of(s);
  /* CH-2: threefold and fifty moves are draws only when claimed; either
   * player may claim (the one to move, or the one who just moved and so
   * made the position appear). */
  enum ref_end claim = ref_ge_fide_claim(&st->e, st->fide_draws, st->pos.halfmove);
  int rc = ref_ge_act(&st->e, seat, action, claim,
                      st->fide_draws ? "draw-not-claimable" : "draw-rules-off", err);

  (void)arg;
  assert(rc || chess_ok(s));
  return rc;
}

/* OUT: out. Points are 1 for a win and 0 for a draw; move_number is the
 * FEN fullmove number; in_check is reported in finished games too (a mate
 * shows as in check). */
static void chess_status(const struct ref_state *s, struct ref_status *out)
{
  const struct chess_state *st = cstate_of(s);
  ref_ge_status(&st->e, st->pos.side, (int)st->pos.fullmove, ref_chess_in_check(&st->pos),
                ref_ge_fide_claim(&st->e, st->fide_draws, st->pos.halfmove) != REF_END_NONE, out);
}

/* The move generator's count (G-1): perft is the generator's test, and
 * the oracles (Stockfish, chess.js) count through positions our rules
 * call dead or drawn. */
static uint64_t chess_perft(const struct ref_state *s, int depth)
{
  return ref_chess_perft(&cstate_of(s)->pos, depth);
}

/* The game-level checker: the position's, plus history and result. */
static bool chess_ok(const struct ref_state *s)
{
  const struct chess_state *st = cstate_of(s);
  struct chess_state again;

  if(st->magic != CHESS_MAGIC || st->fide_draws > 1)
    return false;
  if(!ref_chess_pos_ok(&st->pos))
    return false;
  if(!ref_ge_hist_ok(&st->e, st->pos.key) || st->e.nhist > st->pos.halfmove + 1)
    return false;
  if((st->last_from == REF_CH_NO_SQ) != (st->last_to == REF_CH_NO_SQ) ||
     st->last_from > REF_CH_NO_SQ || st->last_to > REF_CH_NO_SQ)
    return false;
  if(st->last_to != REF_CH_NO_SQ &&
     (st->pos.board[st->last_to] == REF_CH_EMPTY ||
      REF_CH_COLOR(st->pos.board[st->last_to]) != (st->pos.side ^ 1)))
    return false;
  memcpy(&again, st, sizeof(again));
  settle(&again);
  return ref_ge_ok(&st->e, &again.e, st->fide_draws && ref_ge_repetitions(&st->e) >= 3,
                   st->fide_draws && st->pos.halfmove >= 100);
}

/* ------------------------------------------------------------------------ */
/* Reading a move (rules-spec §1.1-1.4, §2.4): chess_notation.c reads and
 * matches; here are the legal moves as it sees them and the rules' reasons
 * for a readable move that matches none. */

/* Why castling that way is refused (§2.2, CH-1). */
static const char *castle_refusal(const struct ref_chess_pos *p, bool kingside)
{
  int us = p->side, home = us == REF_CH_WHITE ? SQ_E1 : SQ_E8, dir = kingside ? 1 : -1;
  unsigned right = us == REF_CH_WHITE ? (kingside ? REF_CH_WK : REF_CH_WQ)
                                      : (kingside ? REF_CH_BK : REF_CH_BQ);
  uint64_t path = kingside ? BIT(home + 1) | BIT(home + 2)
                           : BIT(home - 1) | BIT(home - 2) | BIT(home - 3);

  if(!(p->castle & right))
    return "castle-no-right";
  if((p->occ[0] | p->occ[1]) & path)
    return "castle-blocked";
  if(ref_chess_in_check(p))
    return "castle-in-check";
  if(ref_chess_attacked(p, home + dir, us ^ 1) || ref_chess_attacked(p, home + 2 * dir, us ^ 1))
    return "castle-through-check";
  return "no-such-move";
}

/* Move m of the position ctx as notation sees it. */
static void describe(const void *ctx, uint32_t m, struct ref_cn_move *d)
{
  const struct ref_chess_pos *p = ctx;
  int from = ref_chess_move_from((uint16_t)m), to = ref_chess_move_to((uint16_t)m);
  int kind = ref_chess_move_kind((uint16_t)m);

  memset(d, 0, sizeof(*d));
  d->kind = kind == REF_CH_MV_CASTLE ? REF_CN_CASTLE : REF_CN_NORMAL;
  d->piece = (int8_t)REF_CH_TYPE(p->board[from]);
  d->ff = (int8_t)SQ_FILE(from);
  d->fr = (int8_t)(SQ_RANK(from) + 1);
  d->tf = (int8_t)SQ_FILE(to);
  d->tr = (int8_t)(SQ_RANK(to) + 1);
  d->promo = (int8_t)(kind == REF_CH_MV_PROMO ? ref_chess_move_promo((uint16_t)m) : -1);
  d->capture = p->board[to] != REF_CH_EMPTY || kind == REF_CH_MV_EP;
  d->castle = to > from ? 1 : 2;
  d->by_squares = 1; /* e1g1, Kg1: the king's move is the castling */
}

static void san_of(const void *ctx, uint32_t m, char *buf, size_t cap)
{
  ref_chess_san(ctx, (uint16_t)m, buf, cap);
}

/* Readable but not legal: castling's reason, a pseudo-legal match (the
 * king would stand attacked), or what stands on a named origin. */
static int explain(const struct ref_cn_game *g, const struct ref_cn_pattern *pats, int npat,
                   const char *in, struct ref_err *err)
{
  const struct ref_chess_pos *p = g->ctx;
  uint16_t moves[REF_CH_MAX_MOVES];
  struct ref_cn_move d;
  char sq[3];
  int i, k, n;

  for(k = 0; k < npat; k++)
    if(pats[k].castle)
      return ref_cn_refuse(g, REF_EILLEGAL, castle_refusal(p, pats[k].castle == 1), NULL,
                           &pats[k], err);
  n = ref_chess_gen_pseudo(p, 0, moves);
  for(i = 0; i < n; i++) {
    describe(p, moves[i], &d);
    for(k = 0; k < npat; k++) {
      if(!ref_cn_fits(&pats[k], &d, false))
        continue;
      if(d.kind == REF_CN_CASTLE)
        return ref_cn_refuse(g, REF_EILLEGAL, castle_refusal(p, d.castle == 1), NULL, &pats[k],
                             err);
      return ref_cn_refuse(g, REF_EILLEGAL, "king-in-check", NULL, &pats[k], err);
    }
  }
  for(k = 0; k < npat; k++) {
    if(pats[k].ff >= 0 && pats[k].fr > 0) {
      int from = (pats[k].fr - 1) * 8 + pats[k].ff;
      square_name(from, sq);
      if(p->board[from] == REF_CH_EMPTY)
        return ref_cn_refuse(g, REF_EILLEGAL, "no-piece-there", sq, &pats[k], err);
      if(REF_CH_COLOR(p->board[from]) != p->side)
        return ref_cn_refuse(g, REF_EILLEGAL, "not-your-piece", sq, &pats[k], err);
    }
  }
  return ref_cn_refuse(g, REF_EILLEGAL, "no-such-move", in, &pats[0], err);
}

/* SAN, long algebraic, UCI (§2.4) on the 8x8 board. */
static const struct ref_cn_dialect chess_dialect = {8, 8, false, false, false, NULL, 0};
static const struct ref_cn_rules chess_reader = {&chess_dialect, describe, san_of, explain};

/*
 * Reads one move of player input. OUT: out (REF_OK only). On failure err
 * carries the reason key and suggestions, chosen in this order so the
 * player hears the most specific truth:
 *   unreadable (REF_EPARSE); ambiguous (REF_EAMBIGUOUS); then REF_EILLEGAL
 *   with promotion-piece-missing, not-a-capture, the castling refusals,
 *   king-in-check (a pseudo-legal match), no-piece-there / not-your-piece
 *   (a named origin), and no-such-move.
 * REF_EPHASE when the game is over.
 */
static int chess_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                       struct ref_err *err)
{
  const struct chess_state *st = cstate_of(s);
  uint32_t moves[REF_CH_MAX_MOVES];
  int n = legal_words(&st->pos, moves);

  return ref_cn_parse(&chess_reader, &st->pos, st->e.over, moves, n, text, out, err);
}

/* ------------------------------------------------------------------------ */
/* The ASCII board */

/*
 * The board as `seat` sees it: White from rank 1 up, Black (seat 1) with
 * ranks and files turned round. Three columns a square, the last move's
 * origin and destination in brackets, letters as in FEN (upper case White),
 * '.' for an empty square; 29 columns wide, plain ASCII for text/plain mail.
 */
static int chess_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct chess_state *st = cstate_of(s);
  char out[512];
  size_t k = ref_chess_diagram(&st->pos, seat, st->last_from, st->last_to, out);

  return ref_text_copy(out, k, buf, cap);
}

/* The board as data: FEN letters, the last move marked; Black
 * (seat 1) reads from the other side. */
static int chess_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct chess_state *st = cstate_of(s);
  ref_diag_grid(d, 8, 8, seat == 1);
  ref_diag_chess_board(d, st->pos.board, st->last_from, st->last_to);
  return REF_OK;
}

/* ------------------------------------------------------------------------ */

static const struct ref_game_ops chess_ops = {
  chess_init,   /* init */
  chess_decode, /* decode */
  chess_encode, /* encode */
  chess_legal,  /* legal */
  chess_parse,  /* parse */
  chess_format, /* format */
  chess_apply,  /* apply */
  NULL,         /* roll: diceless */
  chess_act,    /* act */
  chess_status, /* status */
  chess_render, /* render */
  chess_perft,  /* perft */
  chess_ok,     /* ok */
  chess_diagram, /* diagram */
};

/* Two seats, White first (section 1.8); draws exist (CH-2). */
const struct ref_game_desc ref_game_chess = {
  "chess", "Chess", 1 /* version: bump when any ruling changes */, 2, {"White", "Black"},
  REF_GAME_DRAWS, sizeof(struct chess_state), &chess_ops};
