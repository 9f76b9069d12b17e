/*
 * cwda.c: Chess with Different Armies (game "cwda", library tabula_rules),
 * docs/rules-spec.md §12: the game system's glue over the shared parts.
 *
 * The armies are armies.c's one table (DA-1 ... DA-5), the board
 * cwda_board.c's (FEN, legal moves, SAN, perft), the reader
 * chess_notation.c's with the mover's army letters (DA-9), the result
 * game_end.c's (checkmate, stalemate, CH-2's draws as DA-7 keeps them).
 * Here: the state, the options (white=, black=, fide_draws=, fen=; DA-8),
 * the repetition key, the reasons for a readable move that is not legal,
 * the ASCII board with its legend and the board as data.
 *
 * The moves of the two armies (struct ref_cwda_tables, some 20 KB) are not
 * kept in the state, which the service stores after every move: each
 * operation reads them from the table again (microseconds), so the state
 * is the position, the armies' numbers and the history.
 */
#include "armies_int.h"
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

#define CWDA_MAGIC 0x43574431u /* "CWD1": bump when the layout changes */

struct cwda_state {
  uint32_t magic;
  uint8_t army[2];    /* White's and Black's (REF_ARMY_*) */
  uint8_t fide_draws; /* CH-2 block (DA-7) on (1) or off (0) */
  uint8_t last_from;  /* the last move, for render; REF_CH_NO_SQ if none */
  uint8_t last_to;
  uint8_t pad[3];
  uint64_t key; /* the position's repetition key (below) */
  struct ref_cwda_pos pos;
  struct ref_ge e; /* the result and the repetition history */
};

static bool cwda_ok(const struct ref_state *s);

static struct cwda_state *state_of(struct ref_state *s)
{
  return (struct cwda_state *)(void *)s;
}

static const struct cwda_state *cstate_of(const struct ref_state *s)
{
  return (const struct cwda_state *)(const void *)s;
}

static void tables_of(const struct cwda_state *st, struct ref_cwda_tables *t)
{
  bool ok = ref_cwda_tables_init(t, st->army[0], st->army[1]);
  assert(ok); /* every string of the table reads (test_cwda) */
  (void)ok;
}

/*
 * The repetition key (CH-2 through DA-7: the same position is the same
 * pieces on the same squares, the same side to move, the same castling
 * rights and e.p. possibility; the board writes the e.p. square only when
 * a capture is legal, DA-6). A hash of the mailbox with splitmix64, not
 * kept up incrementally: a position is hashed once a move.
 */
static uint64_t mix(uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

static uint64_t pos_key(const struct ref_cwda_pos *p)
{
  uint64_t k = mix(((uint64_t)p->side << 16) | ((uint64_t)p->castle << 8) | p->ep);
  for(int sq = 0; sq < 64; sq++)
    if(p->board[sq])
      k ^= mix(((uint64_t)(sq + 1) << 8) | p->board[sq]);
  return k;
}

/* DA-7: a dead position only with bare kings or FIDE pieces alone (the
 * chess list, CH-2); any piece of another army keeps the game alive. */
static bool dead_position(const struct ref_cwda_pos *p)
{
  uint64_t heavy = 0, knights = 0, bishops = 0;
  for(int c = 0; c < 2; c++) {
    for(int k = REF_CN_ARMY_FIRST; k < REF_AK_COUNT; k++)
      if(p->bb[c][k])
        return false;
    heavy |= p->bb[c][REF_AK_PAWN] | p->bb[c][REF_AK_OF(REF_ARMY_FIDE, REF_ARMY_ROOK)] |
             p->bb[c][REF_AK_OF(REF_ARMY_FIDE, REF_ARMY_QUEEN)];
    knights |= p->bb[c][REF_AK_OF(REF_ARMY_FIDE, REF_ARMY_KNIGHT)];
    bishops |= p->bb[c][REF_AK_OF(REF_ARMY_FIDE, REF_ARMY_BISHOP)];
  }
  return ref_chess_dead_material(heavy, knights, bishops);
}

static void settle(struct cwda_state *st, const struct ref_cwda_tables *t)
{
  uint16_t moves[REF_CWDA_MAX_MOVES];
  const struct ref_cwda_pos *p = &st->pos;
  bool has_moves = ref_cwda_gen_legal(t, p, moves) != 0;

  ref_ge_fide(&st->e, st->fide_draws, has_moves, !has_moves && ref_cwda_in_check(t, p),
              has_moves && st->fide_draws && dead_position(p), p->halfmove, p->side ^ 1);
}

static void state_start(struct cwda_state *st, const int army[2], const struct ref_cwda_pos *p,
                        int fide_draws)
{
  struct ref_cwda_tables t;

  memset(st, 0, sizeof(*st));
  st->magic = CWDA_MAGIC;
  st->army[0] = (uint8_t)army[0];
  st->army[1] = (uint8_t)army[1];
  st->fide_draws = (uint8_t)fide_draws;
  st->pos = *p;
  st->key = pos_key(p);
  st->last_from = st->last_to = REF_CH_NO_SQ;
  ref_ge_start(&st->e, st->key);
  tables_of(st, &t);
  settle(st, &t);
}

/* A position of armies army[] from fen (NULL: the start, DA-2). The
 * armies the FEN's letters show must be the ones named (DA-4). */
static int position(const int army[2], const char *fen, struct ref_cwda_pos *p, struct ref_err *err)
{
  struct ref_cwda_tables t;
  const char *reason = NULL;

  if(!ref_cwda_tables_init(&t, army[0], army[1])) {
    ref_err_set(err, REF_EINVAL, "da-bad-army", NULL);
    return REF_EINVAL;
  }
  if(!fen) {
    ref_cwda_start(&t, p);
    return REF_OK;
  }
  if(ref_cwda_fen_read(&t, p, fen, &reason) != REF_OK) {
    ref_err_set(err, REF_EINVAL, reason, NULL);
    return REF_EINVAL;
  }
  return REF_OK;
}

/*
 * Options (rules.h, game_text.c): white=ARMY and black=ARMY (DA-8: the
 * challenger names both; fide by default; the army's option word, its
 * initial or its name), fide_draws=on|off (CH-2 through DA-7, default on),
 * fen=FEN (a start position, '_' for each space; its letters name the
 * armies where no option does, and must agree with those that do). A key given twice, an unknown
 * key or army is REF_EINVAL; the state is then left as it was.
 */
static int cwda_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct ref_cwda_pos pos;
  struct ref_opt o;
  const char *b = options, *reason = NULL;
  char fen[128] = "", key[32];
  int army[2] = {-1, -1}, shown[2], fide_draws = 1, rc;
  bool seen_fide = false, seen_fen = false;

  while(ref_opt_next(&b, &o)) {
    ref_opt_key(&o, key, sizeof(key));
    if(o.kb == o.ke && !o.has_value)
      continue;
    if(ref_opt_is(o.kb, o.ke, "white") || ref_opt_is(o.kb, o.ke, "black")) {
      int c = ref_opt_is(o.kb, o.ke, "black"), a;
      if(!o.has_value || army[c] >= 0)
        goto bad;
      a = ref_army_find(o.vb, (size_t)(o.ve - o.vb));
      if(a < 0) {
        snprintf(key, sizeof(key), "%.*s", (int)(o.ve - o.vb < 31 ? o.ve - o.vb : 31), o.vb);
        ref_err_set(err, REF_EINVAL, "da-unknown-army", key);
        return REF_EINVAL;
      }
      army[c] = a;
    }
    else if(ref_opt_is(o.kb, o.ke, "fide_draws")) {
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
      /* '_' for ' ': a FEN fits in one word of a mail's `new` (as
       * Back-to-Back's and the Chessgammon family's fen=). */
      for(size_t i = 0; i < (size_t)(o.ve - o.vb); i++)
        fen[i] = o.vb[i] == '_' ? ' ' : o.vb[i];
      fen[o.ve - o.vb] = '\0';
    }
    else {
      ref_err_set(err, REF_EINVAL, "da-unknown-option", key);
      return REF_EINVAL;
    }
  }
  if(seen_fen) {
    if(ref_cwda_fen_armies(fen, shown, &reason) != REF_OK) {
      ref_err_set(err, REF_EINVAL, reason, NULL);
      return REF_EINVAL;
    }
    for(int c = 0; c < 2; c++)
      if(army[c] < 0)
        army[c] = shown[c];
  }
  for(int c = 0; c < 2; c++)
    if(army[c] < 0)
      army[c] = REF_ARMY_FIDE;
  rc = position(army, seen_fen ? fen : NULL, &pos, err);
  if(rc != REF_OK)
    return rc;
  state_start(state_of(s), army, &pos, fide_draws);
  return REF_OK;
bad:
  ref_err_set(err, REF_EINVAL, "da-bad-option", key);
  return REF_EINVAL;
}

/* A FEN names its armies by its letters (DA-4); a side with king and
 * pawns only keeps the army of a state made by init (fide otherwise), as
 * does the fide_draws option. The repetition history starts afresh. */
static int cwda_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct cwda_state *st = state_of(s);
  struct ref_cwda_pos pos;
  const char *reason = NULL;
  bool made = st->magic == CWDA_MAGIC;
  int army[2], fide = made ? st->fide_draws : 1, rc;

  if(ref_cwda_fen_armies(text, army, &reason) != REF_OK) {
    ref_err_set(err, REF_EINVAL, reason, NULL);
    return REF_EINVAL;
  }
  for(int c = 0; c < 2; c++)
    if(army[c] < 0)
      army[c] = made && st->army[c] < REF_ARMY_COUNT ? st->army[c] : REF_ARMY_FIDE;
  rc = position(army, text, &pos, err);
  if(rc != REF_OK)
    return rc;
  state_start(st, army, &pos, fide);
  return REF_OK;
}

static int cwda_encode(const struct ref_state *s, char *buf, size_t cap)
{
  return ref_cwda_fen_write(&cstate_of(s)->pos, buf, cap);
}

static int legal_words(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p,
                       uint32_t *moves)
{
  uint16_t legal[REF_CWDA_MAX_MOVES];
  int i, n = ref_cwda_gen_legal(t, p, legal);
  for(i = 0; i < n; i++)
    moves[i] = legal[i];
  return n;
}

static int cwda_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct cwda_state *st = cstate_of(s);
  struct ref_cwda_tables t;
  uint32_t moves[REF_CWDA_MAX_MOVES];

  tables_of(st, &t);
  return ref_ge_moves(&st->e, moves, legal_words(&t, &st->pos, moves), 0, out);
}

/* The 16-bit move inside m if legal in st's position, else 0 (no legal
 * move is 0: from == to never happens). */
static uint16_t legal_move_of(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p,
                              const struct ref_move *m)
{
  uint32_t moves[REF_CWDA_MAX_MOVES];
  return (uint16_t)ref_ge_find(moves, legal_words(t, p, moves), m);
}

/* SAN with DA-4's letters (canonical) or UCI (computer). */
static int cwda_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                       char *buf, size_t cap)
{
  const struct cwda_state *st = cstate_of(s);
  struct ref_cwda_tables t;
  uint16_t mv;

  tables_of(st, &t);
  mv = legal_move_of(&t, &st->pos, m);
  if(!mv)
    return REF_EINVAL;
  if(style == REF_NOTATION_COMPUTER)
    return ref_cwda_uci(&t, &st->pos, mv, buf, cap);
  return ref_cwda_san(&t, &st->pos, mv, buf, cap);
}

static int cwda_apply(struct ref_state *s, const struct ref_move *m)
{
  struct cwda_state *st = state_of(s);
  struct ref_cwda_tables t;
  uint16_t mv;

  if(st->e.over)
    return REF_EPHASE;
  tables_of(st, &t);
  mv = legal_move_of(&t, &st->pos, m);
  if(!mv)
    return REF_EILLEGAL;
  ref_cwda_make(&t, &st->pos, mv);
  st->key = pos_key(&st->pos);
  st->last_from = (uint8_t)ref_cwda_move_from(mv);
  st->last_to = (uint8_t)ref_cwda_move_to(mv);
  ref_ge_push(&st->e, st->key, st->pos.halfmove == 0);
  settle(st, &t);
  assert(cwda_ok(s));
  return REF_OK;
}

/* Resignation, agreed draw and the draw claims of CH-2 (DA-7). */
static int cwda_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                    struct ref_err *err)
{
  struct cwda_state *st = state_of(s);
  enum ref_end claim = ref_ge_fide_claim(&st->e, st->fide_draws, st->pos.halfmove);
  int rc = ref_ge_act(&st->e, seat, action, claim,
                      st->fide_draws ? "draw-not-claimable" : "draw-rules-off", err);
  (void)arg;
  assert(rc || cwda_ok(s));
  return rc;
}

static void cwda_status(const struct ref_state *s, struct ref_status *out)
{
  const struct cwda_state *st = cstate_of(s);
  struct ref_cwda_tables t;

  tables_of(st, &t);
  ref_ge_status(&st->e, st->pos.side, (int)st->pos.fullmove, ref_cwda_in_check(&t, &st->pos),
                ref_ge_fide_claim(&st->e, st->fide_draws, st->pos.halfmove) != REF_END_NONE, out);
}

/* The generator's count (G-1), checked against Fairy-Stockfish by test_cwda. */
static uint64_t cwda_perft(const struct ref_state *s, int depth)
{
  struct ref_cwda_tables t;
  tables_of(cstate_of(s), &t);
  return ref_cwda_perft(&t, &cstate_of(s)->pos, depth);
}

/* The invariant checker: the mailbox against the bitboards, kings,
 * pawns, castling rights, the e.p. square, the key, the history and the
 * result settled afresh. */
static bool cwda_ok(const struct ref_state *s)
{
  const struct cwda_state *st = cstate_of(s);
  const struct ref_cwda_pos *p = &st->pos;
  struct ref_cwda_tables t;
  struct cwda_state again;
  uint16_t moves[REF_CWDA_MAX_MOVES];

  if(st->magic != CWDA_MAGIC || st->fide_draws > 1 || st->army[0] >= REF_ARMY_COUNT ||
     st->army[1] >= REF_ARMY_COUNT || p->side > 1 || p->castle > 15 || p->fullmove < 1)
    return false;
  tables_of(st, &t);
  for(int c = 0; c < 2; c++) {
    uint64_t occ = 0;
    for(int k = 0; k < REF_AK_COUNT; k++) {
      if(k >= 2 && REF_AK_ARMY(k) != st->army[c] && p->bb[c][k])
        return false; /* DA-4 */
      occ |= p->bb[c][k];
    }
    if(occ != p->occ[c] || ref_chess_popcount(p->bb[c][REF_AK_KING]) != 1)
      return false;
  }
  for(int sq = 0; sq < 64; sq++) {
    int code = p->board[sq];
    if(!code ? ((p->occ[0] | p->occ[1]) >> sq) & 1
             : !((p->bb[REF_AK_COLOR(code)][REF_AK_KIND(code)] >> sq) & 1))
      return false;
  }
  if((p->bb[0][REF_AK_PAWN] | p->bb[1][REF_AK_PAWN]) & 0xFF000000000000FFull)
    return false;
  for(int c = 0; c < 2; c++) {
    int base = c ? 56 : 0, right[2] = {c ? REF_CH_BK : REF_CH_WK, c ? REF_CH_BQ : REF_CH_WQ};
    uint8_t corner = REF_AK_CODE(c, REF_AK_OF(st->army[c], REF_ARMY_ROOK));
    if((p->castle & (right[0] | right[1])) && p->board[base + 4] != REF_AK_CODE(c, REF_AK_KING))
      return false;
    if(((p->castle & right[0]) && p->board[base + 7] != corner) ||
       ((p->castle & right[1]) && p->board[base] != corner))
      return false;
  }
  for(int c = 0; c < 2; c++)
    if(c != p->side &&
       ref_cwda_attacked(&t, p, ref_chess_lsb(p->bb[c][REF_AK_KING]), p->side))
      return false;
  if(p->ep != REF_CH_NO_SQ) {
    bool any = false;
    int n;
    if(p->ep > 63 || p->ep / 8 != (p->side ? 2 : 5) || p->halfmove != 0)
      return false;
    n = ref_cwda_gen_legal(&t, p, moves);
    for(int i = 0; i < n; i++)
      any |= ref_cwda_move_kind(moves[i]) == REF_CWDA_MV_EP;
    if(!any)
      return false;
  }
  if(st->key != pos_key(p) || !ref_ge_hist_ok(&st->e, st->key) ||
     st->e.nhist > p->halfmove + 1)
    return false;
  if((st->last_from == REF_CH_NO_SQ) != (st->last_to == REF_CH_NO_SQ) ||
     st->last_from > REF_CH_NO_SQ || st->last_to > REF_CH_NO_SQ)
    return false;
  if(st->last_to != REF_CH_NO_SQ &&
     (!p->board[st->last_to] || REF_AK_COLOR(p->board[st->last_to]) != (p->side ^ 1)))
    return false;
  memcpy(&again, st, sizeof(again));
  settle(&again, &t);
  return ref_ge_ok(&st->e, &again.e, st->fide_draws && ref_ge_repetitions(&st->e) >= 3,
                   st->fide_draws && p->halfmove >= 100);
}

/* ------------------------------------------------------------------------ */
/* Reading a move (§1.1-1.4, §2.4 with DA-9): chess_notation.c reads with
 * the mover's army letters; here the reasons for a readable move that
 * matches nothing legal. */

struct reader {
  struct ref_cwda_tables t;
  const struct ref_cwda_pos *p;
};

static void describe(const void *ctx, uint32_t m, struct ref_cn_move *d)
{
  const struct reader *r = ctx;
  ref_cwda_describe(&r->t, r->p, (uint16_t)m, d);
}

static void san_of(const void *ctx, uint32_t m, char *buf, size_t cap)
{
  const struct reader *r = ctx;
  ref_cwda_san(&r->t, r->p, (uint16_t)m, buf, cap);
}

/* Why castling that way is refused (DA-3, CH-1). */
static const char *castle_refusal(const struct reader *r, bool kingside)
{
  const struct ref_cwda_pos *p = r->p;
  int us = p->side, base = us ? 56 : 0, home = base + 4;
  int kto = kingside ? base + 6 : base + ref_armies[r->t.army[us]].long_king_file;
  int corner = kingside ? base + 7 : base, dir = kingside ? 1 : -1;
  unsigned right = us ? (kingside ? REF_CH_BK : REF_CH_BQ) : (kingside ? REF_CH_WK : REF_CH_WQ);

  if(!(p->castle & right))
    return "castle-no-right";
  for(int sq = home + dir; sq != corner; sq += dir)
    if(p->board[sq])
      return "castle-blocked";
  if(ref_cwda_in_check(&r->t, p))
    return "castle-in-check";
  for(int sq = home + dir;; sq += dir) {
    if(ref_cwda_attacked(&r->t, p, sq, us ^ 1))
      return "castle-through-check";
    if(sq == kto)
      break;
  }
  return "no-such-move";
}

/* Readable, not legal: castling's reason, a move that would leave the king
 * attacked, or what stands on a named origin (as chess.c explains). */
static int explain(const struct ref_cn_game *g, const struct ref_cn_pattern *pats, int npat,
                   const char *in, struct ref_err *err)
{
  const struct reader *r = g->ctx;
  const struct ref_cwda_pos *p = r->p;
  char sq[3];

  for(int k = 0; k < npat; k++)
    if(pats[k].castle)
      return ref_cn_refuse(g, REF_EILLEGAL, castle_refusal(r, pats[k].castle == 1), NULL,
                           &pats[k], err);
  /* A pseudo-legal match: the move would leave the own king attacked. */
  {
    uint16_t moves[REF_CWDA_MAX_MOVES];
    int n = ref_cwda_gen_pseudo(&r->t, p, moves);
    for(int i = 0; i < n; i++) {
      struct ref_cn_move d;
      ref_cwda_describe(&r->t, p, moves[i], &d);
      for(int k = 0; k < npat; k++)
        if(ref_cn_fits(&pats[k], &d, false))
          return ref_cn_refuse(g, REF_EILLEGAL, "king-in-check", NULL, &pats[k], err);
    }
  }
  for(int k = 0; k < npat; k++) {
    if(pats[k].ff >= 0 && pats[k].fr > 0) {
      int from = (pats[k].fr - 1) * 8 + pats[k].ff;
      ref_cn_square(pats[k].ff, pats[k].fr, sq);
      if(!p->board[from])
        return ref_cn_refuse(g, REF_EILLEGAL, "no-piece-there", sq, &pats[k], err);
      if(REF_AK_COLOR(p->board[from]) != p->side)
        return ref_cn_refuse(g, REF_EILLEGAL, "not-your-piece", sq, &pats[k], err);
    }
  }
  return ref_cn_refuse(g, REF_EILLEGAL, "no-such-move", in, &pats[0], err);
}

static int cwda_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                      struct ref_err *err)
{
  const struct cwda_state *st = cstate_of(s);
  struct reader *r = malloc(sizeof(*r));
  uint32_t moves[REF_CWDA_MAX_MOVES];
  int n, rc;

  if(!r)
    return REF_ENOMEM;
  tables_of(st, &r->t);
  r->p = &st->pos;
  n = legal_words(&r->t, &st->pos, moves);
  {
    /* DA-9: the mover's army's letters */
    const struct ref_cn_dialect d = {8, 8, false, false, false, NULL,
                                     ref_army_cn_own(st->army[st->pos.side])};
    const struct ref_cn_rules rules = {&d, describe, san_of, explain};
    rc = ref_cn_parse(&rules, r, st->e.over, moves, n, text, out, err);
  }
  free(r);
  return rc;
}

/* ------------------------------------------------------------------------ */
/* The boards */

/* "White, Colorbound Clobberers:" and its pieces' letters as the board
 * shows them (upper case White, lower case Black) with their names. */
static void legend_line(int army, int color, char *buf, size_t cap)
{
  const struct ref_army *a = &ref_armies[army];
  size_t k = 0;
  for(int slot = 0; slot < REF_ARMY_SLOTS && k < cap; slot++) {
    char l = a->piece[slot].letter;
    int n = snprintf(buf + k, cap - k, "%s%c %s", slot ? ", " : "",
                     color ? (char)(l - 'A' + 'a') : l, a->piece[slot].name);
    if(n < 0)
      break;
    k += (size_t)n;
  }
}

/*
 * The board as `seat` sees it (chess's ASCII board: three columns a square,
 * the last move in brackets, FEN letters, '.' empty), then the legend: each
 * side's army and its pieces' letters as the board writes them.
 */
static int cwda_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct cwda_state *st = cstate_of(s);
  const struct ref_cwda_pos *p = &st->pos;
  char pieces[96];
  struct base_buf o;
  bool flip = seat == 1;

  if(!cap)
    return REF_EINVAL;
  base_buf_init_fixed(&o, buf, cap);
  for(int pass = 0; pass < 2; pass++) {
    for(int row = 0; pass == 1 && row < 8; row++) {
      int rank = flip ? row : 7 - row;
      ref_text_emit(&o, " %d ", rank + 1);
      for(int col = 0; col < 8; col++) {
        int file = flip ? 7 - col : col, sq = rank * 8 + file, code = p->board[sq];
        bool mark = sq == st->last_from || sq == st->last_to;
        char c = '.';
        if(code) {
          c = ref_army_kind_letter(REF_AK_KIND(code));
          if(REF_AK_COLOR(code))
            c = (char)(c - 'A' + 'a');
        }
        ref_text_emit(&o, "%c%c%c", mark ? '[' : ' ', c, mark ? ']' : ' ');
      }
      ref_text_emit(&o, " %d\n", rank + 1);
    }
    ref_text_emit(&o, "   ");
    for(int col = 0; col < 8; col++)
      ref_text_emit(&o, " %c%c", 'a' + (flip ? 7 - col : col), col < 7 ? ' ' : '\n');
  }
  for(int c = 0; c < 2; c++) {
    legend_line(st->army[c], c, pieces, sizeof(pieces));
    ref_text_emit(&o, "%s, %s:\n  %s\n", c ? "Black" : "White", ref_armies[st->army[c]].name,
                  pieces);
  }
  return base_buf_err(&o) ? REF_EINVAL : REF_OK;
}

/* The board as data: K, P and the FIDE pieces as chess figurines, the
 * other armies' pieces by their letters (DA-4), the legend for the
 * lettered ones. */
static int cwda_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct cwda_state *st = cstate_of(s);
  const struct ref_cwda_pos *p = &st->pos;

  ref_diag_grid(d, 8, 8, seat == 1);
  for(int sq = 0; sq < 64; sq++) {
    struct ref_diag_cell *c = &d->cell[sq / 8][sq % 8];
    int code = p->board[sq];
    if(code) {
      int kind = REF_AK_KIND(code), dark = REF_AK_COLOR(code);
      char l = ref_army_kind_letter(kind);
      if(kind < 2 || REF_AK_ARMY(kind) == REF_ARMY_FIDE)
        ref_diag_put(&c->s, ref_diag_kind(l), dark);
      else
        ref_diag_put_lettered(&c->s, l, dark);
    }
    c->s.mark = (uint8_t)((sq == st->last_from ? REF_DIAG_FROM : 0) |
                          (sq == st->last_to ? REF_DIAG_TO : 0));
  }
  for(int c = 0; c < 2; c++)
    if(st->army[c] != REF_ARMY_FIDE) {
      char pieces[80];
      legend_line(st->army[c], c, pieces, sizeof(pieces));
      snprintf(d->legend[c], sizeof(d->legend[c]), "%s: %s", ref_armies[st->army[c]].name,
               pieces);
    }
  return REF_OK;
}

bool ref_cwda_army_names(const char *fen, const char **white, const char **black)
{
  const char *reason;
  int army[2];
  if(ref_cwda_fen_armies(fen, army, &reason) != REF_OK)
    return false;
  *white = ref_armies[army[0] < 0 ? REF_ARMY_FIDE : army[0]].name;
  *black = ref_armies[army[1] < 0 ? REF_ARMY_FIDE : army[1]].name;
  return true;
}

/* ------------------------------------------------------------------------ */

static const struct ref_game_ops cwda_ops = {
  cwda_init,    /* init */
  cwda_decode,  /* decode */
  cwda_encode,  /* encode */
  cwda_legal,   /* legal */
  cwda_parse,   /* parse */
  cwda_format,  /* format */
  cwda_apply,   /* apply */
  NULL,         /* roll: diceless */
  cwda_act,     /* act */
  cwda_status,  /* status */
  cwda_render,  /* render */
  cwda_perft,   /* perft */
  cwda_ok,      /* ok */
  cwda_diagram, /* diagram */
};

/* Two seats, White first; draws exist (DA-7). */
const struct ref_game_desc ref_game_cwda = {
  "cwda", "Chess with Different Armies", 1 /* version: bump when any ruling changes */, 2,
  {"White", "Black"}, REF_GAME_DRAWS, sizeof(struct cwda_state), &cwda_ops};
