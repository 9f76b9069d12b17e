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
 * ref_ck_geom_wrap64) for the stones. This file holds the
 * position string and the ops; the turn played part by part is in
 * backgammon_chess_turn.c, the chess board with stones in
 * backgammon_chess_board.c, a turn's notation in
 * backgammon_chess_notation.c (types: backgammon_chess_int.h).
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
#include "backgammon_chess_int.h"
#include "diagram_int.h"
#include "game_text_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const struct ref_game_desc ref_game_backgammon;

static const char *const seat_name[2] = {"White", "Black"};

/* ---------------------------------------------------------------------- */
/* Position string                                                         */
/* ---------------------------------------------------------------------- */

static int bc_encode(const struct ref_state *s, char *buf, size_t cap)
{
  static const char letters[2][7] = {"PNBRQK", "pnbrqk"};
  const struct bc_state *st = ref_bc_cst(s);
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
    ref_bc_sq_name(st->ep, ep);
  ref_bg_position_id(&st->b, st->t.onroll, pid);
  ref_bc_match_of(st, &m);
  ref_bg_match_id(&m, mid);
  switch(st->t.phase) {
  case REF_PHASE_OVER:
    snprintf(stage, sizeof(stage), "over:%s:%s:%d",
             st->t.winner < 0 ? "-" : st->t.winner ? "b" : "w",
             ref_end_name((enum ref_end)st->t.end), st->t.points);
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
  n = snprintf(buf, cap, "%s %c %s %s %u %s:%s %s", board, st->t.onroll ? 'b' : 'w', cast, ep,
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
 * from the mailbox, one king a side, material a game can have (§2.2
 * promotion), no pawn on an edge rank, castling
 * rights backed by king and rook, the key. (ref_chess_pos_ok would also
 * judge check without stones, which this game cannot use.) */
static bool pos_ok(const struct ref_chess_pos *p)
{
  int c;

  if(p->side > 1 || p->castle > 15 || p->fullmove < 1 || p->ep != NO_SQ ||
     !ref_chess_tables_ok(p))
    return false;
  for(c = 0; c < 2; c++)
    if(ref_chess_popcount(p->pieces[c][REF_CH_KING]) != 1 || ref_chess_popcount(p->occ[c]) > 16 ||
       !ref_chess_material_possible(p, c))
      return false;
  if((p->pieces[0][REF_CH_PAWN] | p->pieces[1][REF_CH_PAWN]) & 0xFF000000000000FFull)
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

/* A rule of §6.2 the live position breaks (BC-10): the reason key, with
 * the seed's rule in *rule, or NULL. Judged on chess-board moves only
 * (BC-4, BC-7: stones attack what they could jump). Only stages whose
 * past is known are judged:
 *   first   White's opening chess move (6.2.1): Black's king is not
 *           attacked (6.2.4: no game reaches it, and White would take it)
 *           and White has a chess move (else the game would be over);
 *   turn, reply (before the roll): the side to roll is not checkmated
 *           (6.2.3: the mate ended the game at once), and the kings are not
 *           both attacked (6.2.4: the last chess move left its mover's king
 *           safe, and a side that passed left the position as after the
 *           other side's own legal move);
 *   chess   6.2.2e has been judged: the opponent's king is safe (else the
 *           mover has won) and a chess move exists (else the game is over).
 * In bg and place the stones placed this turn may attack either king,
 * which 6.2.2e then judges: nothing to refuse there. */
static const char *stage_rule(const struct bc_state *st, const char **rule)
{
  struct bc_cmlist l = {0};
  const char *why = NULL;
  int us = st->t.onroll;
  bool chess_stage = st->t.phase == REF_PHASE_MOVE && st->stage == ST_CHESS;
  bool before_roll = st->t.phase == REF_PHASE_CUBE || st->t.phase == REF_PHASE_ROLL ||
                     st->t.phase == REF_PHASE_CUBE_REPLY;

  if(!chess_stage && !before_roll)
    return NULL;
  if(ref_bc_gen_chess(st, &l) != REF_OK)
    return NULL; /* out of memory: no ruling */
  if(chess_stage && st->first) {
    if(ref_bc_king_attacked(st, !us)) {
      why = "bc-rule-king-attacked";
      *rule = "6.2.4";
    }
    else if(!l.n) {
      why = "bc-rule-no-first-move";
      *rule = "6.2.1";
    }
  }
  else if(chess_stage) {
    if(ref_bc_king_attacked(st, !us) || !l.n) {
      why = "bc-rule-chess-stage";
      *rule = "6.2.2e";
    }
  }
  else if(ref_bc_king_attacked(st, us) && !l.n) {
    why = "bc-rule-mated";
    *rule = "6.2.3";
  }
  else if(ref_bc_king_attacked(st, us) && ref_bc_king_attacked(st, !us)) {
    why = "bc-rule-both-kings-attacked";
    *rule = "6.2.4";
  }
  ref_bc_cm_free(&l);
  return why;
}

/* The invariant checker: every redundant field recomputed (bc_ok adds
 * the rules of the stage, stage_rule). */
static bool bc_sane(const struct bc_state *st)
{
  int side;

  if(st->magic != BC_MAGIC || !pos_ok(&st->pos) || !ref_bg_board_ok(&st->b))
    return false;
  if(st->lag > BC_LAG_MAX || st->draws > 1)
    return false;
  for(side = 0; side < 2; side++) {
    /* Stones still owed: in the placing stage, or when the game ended
     * there (the 15th checker off, a resignation). */
    int owed = side == st->t.onroll && (st->stage == ST_PLACE || st->t.phase == REF_PHASE_OVER)
                 ? st->pending
                 : 0;
    /* Conservation: what is off the backgammon board is on the chess board
     * as stones, or about to be placed. */
    if((st->dbl[side] & ~st->stones[side]) ||
       (st->stones[side] & (st->stones[!side] | st->pos.occ[0] | st->pos.occ[1])) ||
       st->b.pt[side][REF_BG_OFF] != ref_bc_stone_checkers(st, side) + owed)
      return false;
  }
  if(!ref_bg_cube_ok(&st->cube) || st->t.onroll < 0 || st->t.onroll > 1)
    return false;
  if(st->ep != NO_SQ) {
    int pusher = st->pos.side ^ 1, front = pusher ? st->ep - 8 : st->ep + 8;
    if(st->ep > 63 || st->ep / 8 != (pusher ? 5 : 2) ||
       st->pos.board[front] != REF_CH_PIECE(pusher, REF_CH_PAWN) ||
       st->pos.board[st->ep] != REF_CH_EMPTY ||
       st->pos.board[pusher ? st->ep + 8 : st->ep - 8] != REF_CH_EMPTY)
      return false;
  }
  if(st->t.phase == REF_PHASE_OVER) {
    int cube = ref_bg_cube_value(&st->cube);
    if(st->t.turn != -1 || st->t.winner < -1 || st->t.winner > 1 || st->stage != ST_NONE)
      return false;
    switch(st->t.end) {
    case REF_END_BORNE_OFF:
      return st->t.winner >= 0 && st->b.pt[st->t.winner][REF_BG_OFF] == REF_BG_CHECKERS &&
             st->t.points == ref_bg_game_multiplier(&st->b, st->t.winner) * cube;
    case REF_END_STALEMATE:
    case REF_END_AGREEMENT:
      return st->t.winner == -1 && st->t.points == 0;
    case REF_END_CHECKMATE:
    case REF_END_CUBE_DROPPED:
      return st->t.winner >= 0 && st->t.points == cube;
    case REF_END_RESIGNATION:
      return st->t.winner >= 0 && st->t.points % cube == 0 && st->t.points / cube >= 1 &&
             st->t.points / cube <= 3;
    default:
      return false;
    }
  }
  if(st->b.pt[0][REF_BG_OFF] == REF_BG_CHECKERS || st->b.pt[1][REF_BG_OFF] == REF_BG_CHECKERS)
    return false;
  if(st->pos.side != st->t.onroll)
    return false;
  switch(st->t.phase) {
  case REF_PHASE_CUBE:
  case REF_PHASE_ROLL:
    return st->t.turn == st->t.onroll && !st->t.dice[0] && !st->t.dice[1] && !st->first &&
           st->stage == ST_NONE &&
           (st->t.phase == REF_PHASE_CUBE) == ref_bg_cube_may_double(&st->cube, st->t.onroll);
  case REF_PHASE_CUBE_REPLY:
    return st->t.turn == !st->t.onroll && !st->t.dice[0] && !st->first && st->stage == ST_NONE &&
           ref_bg_cube_may_double(&st->cube, st->t.onroll);
  case REF_PHASE_MOVE:
    if(st->t.turn != st->t.onroll)
      return false;
    if(st->first)
      return st->t.onroll == 0 && !st->t.dice[0] && !st->t.dice[1] && st->stage == ST_CHESS &&
             st->cube.log2 == 0;
    if(st->t.dice[0] < 1 || st->t.dice[0] > 6 || st->t.dice[1] < 1 || st->t.dice[1] > 6)
      return false;
    if(st->stage == ST_PLACE)
      return st->pending >= 1 && st->pending <= 4;
    if(st->stage == ST_BG)
      return st->pending == 0;
    if(st->stage == ST_CHESS)
      return st->pending == 0; /* 6.2.2e: stage_rule */
    return false;
  default:
    return false;
  }
}

static bool bc_ok(const struct ref_state *s)
{
  const struct bc_state *st = ref_bc_cst(s);
  const char *rule = NULL;
  return bc_sane(st) && !stage_rule(st, &rule);
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
  nst.t.winner = -1;
  nst.last_from = nst.last_to = NO_SQ;
  nst.lag = (uint8_t)lag;
  nst.draws = (uint8_t)draws;
  if(read_placement(&nst, field[0]))
    return bad_position(err, "board");
  /* POS-1, BC-10: the chess part's men as a game of §2 can have them */
  if(!ref_chess_material_possible(&nst.pos, 0) || !ref_chess_material_possible(&nst.pos, 1)) {
    ref_err_set(err, REF_EINVAL, "bc-rule-material", "§2.2");
    return REF_EINVAL;
  }
  if(strcmp(field[1], "w") && strcmp(field[1], "b"))
    return bad_position(err, "side");
  nst.t.onroll = (int8_t)(field[1][0] == 'b');
  nst.pos.side = (uint8_t)nst.t.onroll;
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
    int sq = ref_bc_sq_read(field[3]);
    if(sq < 0 || field[3][2])
      return bad_position(err, "en passant");
    nst.ep = (uint8_t)sq;
  }
  full = strtoul(field[4], &end, 10);
  /* the chess core's limit, where its make stops counting: every position
   * a game reaches decodes (9999 here was passed in four moves) */
  if(*end || full < 1 || full > REF_CH_COUNTER_MAX || !isdigit((unsigned char)field[4][0]))
    return bad_position(err, "move number");
  nst.pos.fullmove = (uint32_t)full;
  nst.pos.key = ref_chess_key_compute(&nst.pos);

  colon = strchr(field[5], ':');
  if(!colon || colon - field[5] != 14 || strlen(colon + 1) != 12)
    return bad_position(err, "Position ID:Match ID");
  *colon = '\0';
  if(ref_bg_position_decode(&nst.b, nst.t.onroll, field[5]) != REF_OK ||
     ref_bg_match_decode(&m, colon + 1) != REF_OK)
    return bad_position(err, "Position ID:Match ID");
  if(m.match_len || m.crawford || m.resigned || m.state != 1 || m.on_roll != nst.t.onroll ||
     m.cube_log2 > REF_BG_CUBE_MAX_LOG2 || (m.cube_owner < 0) != (m.cube_log2 == 0))
    return bad_position(err, "Match ID");
  nst.cube.log2 = (int8_t)m.cube_log2;
  nst.cube.owner = (int8_t)m.cube_owner;

  /* The stage, checked against the Match ID's dice and double bit. */
  if(!strcmp(field[6], "first")) {
    if(m.dice[0] || m.doubled || m.turn != 0 || nst.t.onroll != 0)
      return bad_position(err, "first");
    nst.first = 1;
    nst.t.phase = REF_PHASE_MOVE;
    nst.stage = ST_CHESS;
    nst.t.turn = 0;
  }
  else if(!strcmp(field[6], "turn")) {
    if(m.dice[0] || m.doubled || m.turn != nst.t.onroll)
      return bad_position(err, "turn");
    ref_bc_start_turn(&nst, nst.t.onroll);
  }
  else if(!strcmp(field[6], "reply")) {
    if(m.dice[0] || !m.doubled || m.turn == nst.t.onroll ||
       !ref_bg_cube_may_double(&nst.cube, nst.t.onroll))
      return bad_position(err, "reply");
    nst.t.phase = REF_PHASE_CUBE_REPLY;
    nst.t.turn = (int8_t)!nst.t.onroll;
  }
  else if(!strcmp(field[6], "bg") || !strcmp(field[6], "chess") ||
          !strncmp(field[6], "place:", 6)) {
    if(!m.dice[0] || m.doubled || m.turn != nst.t.onroll)
      return bad_position(err, field[6]);
    nst.t.phase = REF_PHASE_MOVE;
    nst.t.turn = nst.t.onroll;
    nst.t.dice[0] = (uint8_t)m.dice[0];
    nst.t.dice[1] = (uint8_t)m.dice[1];
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
    ref_bc_finish(&nst, *w == '-' ? -1 : *w == 'b', (enum ref_end)endv, (int)points);
    i = nst.b.pt[nst.t.onroll][REF_BG_OFF] - ref_bc_stone_checkers(&nst, nst.t.onroll);
    if(i < 0 || i > 4)
      return bad_position(err, "stones");
    nst.pending = (uint8_t)i;
  }
  else {
    return bad_position(err, "stage");
  }
  if(nst.pos.side != nst.t.onroll)
    return bad_position(err, "side");
  if(!bc_sane(&nst))
    return bad_position(err, "inconsistent");
  /* POS-1, BC-10: a position the rules forbid, refused naming the rule */
  {
    const char *rule = NULL, *why = stage_rule(&nst, &rule);
    if(why) {
      ref_err_set(err, REF_EINVAL, why, rule);
      return REF_EINVAL;
    }
  }
  *ref_bc_st(s) = nst;
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
  st->t.winner = -1;
  st->last_from = st->last_to = NO_SQ;
  /* 6.2.1: White's first turn is a chess move only. */
  st->first = 1;
  st->t.phase = REF_PHASE_MOVE;
  st->stage = ST_CHESS;
  st->t.turn = st->t.onroll = 0;
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
  *ref_bc_st(s) = nst;
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
  struct bc_state *st = ref_bc_st(s);
  /* BC-1: an ordinary two-dice roll, doubles count (no opening roll: the
   * turn order is the chess game's). */
  int rc = ref_bg_turn_roll(&st->t, faces, nfaces, "bg-no-roll-now", true, err);

  if(rc == REF_OK)
    st->stage = ST_BG;
  return rc;
}

/* 6.2.2a with 4.3: the cube before one's own roll (none on White's first
 * turn); 6.8: resignation single, gammon or backgammon (section 4.3
 * levels) x cube; BC-8: "no draw other than stalemate", agreement only by
 * option; 6.6: the chess draws (repetition, fifty moves) do not count. */
static int bc_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct bc_state *st = ref_bc_st(s);
  struct ref_bg_acts a = {st->draws ? NULL : "bc-no-draw-agreement", "bc-no-draw-claim", NULL,
                          NULL, st->first ? "bc-no-cube-first-turn" : NULL};
  int rc = ref_bg_turn_act(&st->t, &st->cube, seat, action, arg, &a, err);

  if(rc == REF_OK && st->t.phase == REF_PHASE_OVER)
    st->stage = ST_NONE;
  return rc;
}

static int bc_legal(const struct ref_state *s, struct ref_movelist *out)
{
  const struct bc_state *st = ref_bc_cst(s);
  struct ref_move m;
  struct bc_turn t;
  int rc = REF_OK, i;

  if(st->t.phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  memset(&t, 0, sizeof(t));
  if(st->stage == ST_BG) {
    struct ref_bg_playlist list = {0};
    size_t k;
    rc = ref_bg_plays(&st->b, st->t.onroll, st->t.dice[0], st->t.dice[1], &list);
    t.has_bg = true;
    for(k = 0; !rc && k < list.n; k++) {
      t.play = list.v[k];
      ref_bc_turn_to_move(&t, &m);
      rc = ref_movelist_push(out, &m);
    }
    ref_bg_playlist_free(&list);
  }
  else if(st->stage == ST_PLACE) {
    t.nplace = 1;
    for(i = 0; !rc && i < 64; i++) {
      if(ref_bc_place_refusal(st, i))
        continue;
      t.place[0] = (uint8_t)i;
      ref_bc_turn_to_move(&t, &m);
      rc = ref_movelist_push(out, &m);
    }
  }
  else {
    struct bc_cmlist l = {0};
    rc = ref_bc_gen_chess(st, &l);
    t.has_chess = true;
    for(i = 0; !rc && i < l.n; i++) {
      t.cm = l.v[i];
      ref_bc_turn_to_move(&t, &m);
      rc = ref_movelist_push(out, &m);
    }
    ref_bc_cm_free(&l);
  }
  return rc;
}

static int bc_apply(struct ref_state *s, const struct ref_move *m)
{
  struct bc_state *st = ref_bc_st(s), c = *st;
  struct bc_turn t;
  int rc;

  if(st->t.phase != REF_PHASE_MOVE)
    return REF_EPHASE;
  if(ref_bc_move_to_turn(m, &t) != REF_OK)
    return REF_EILLEGAL;
  rc = ref_bc_do_turn(&c, &t);
  if(rc == REF_OK)
    *st = c; /* all or nothing */
  return rc;
}

static int bc_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  struct bc_turn t;
  (void)style; /* one notation: the referee's is what programs read too */
  if(ref_bc_move_to_turn(m, &t) != REF_OK || !ref_bc_turn_format(ref_bc_cst(s), &t, buf, cap))
    return REF_EINVAL;
  return REF_OK;
}

static void bc_status(const struct ref_state *s, struct ref_status *out)
{
  const struct bc_state *st = ref_bc_cst(s);
  ref_bg_turn_status(&st->t, &st->cube, out);
  out->move_number = (int)st->pos.fullmove;
  out->in_check = st->t.phase != REF_PHASE_OVER && ref_bc_king_attacked(st, st->t.onroll);
  if(st->first) { /* 6.2.1: no dice on White's first turn */
    out->dice[0] = out->dice[1] = 0;
    out->ndice = 0;
  }
}
/* ---------------------------------------------------------------------- */
/* The boards                                                              */
/* ---------------------------------------------------------------------- */

/* The backgammon board as the backgammon game draws it (its rows only: the
 * IDs and its own status lines are not this game's). */
static void render_bg(const struct bc_state *st, int seat, struct base_buf *o)
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
  m.on_roll = m.turn = st->t.onroll;
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
      ref_text_emit(o, "%s\n", line);
out:
  free(text);
  free(tmp);
}

/* The board as data: the chess board with its pieces and
 * stones (V a man, X a doubled stone: BC-5), the last chess move marked,
 * the jail; and the backgammon board (its bar is the jail), the cube, the
 * dice to play. */
static int bc_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  static const char letters[2][7] = {"PNBRQK", "pnbrqk"};
  const struct bc_state *st = ref_bc_cst(s);
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
    if(st->t.phase != REF_PHASE_OVER)
      c->s.mark = (uint8_t)((sq == st->last_from ? REF_DIAG_FROM : 0) |
                            (sq == st->last_to ? REF_DIAG_TO : 0));
  }
  ref_diag_bg_board(d, &st->b);
  d->jail[0] = st->b.pt[0][REF_BG_BAR];
  d->jail[1] = st->b.pt[1][REF_BG_BAR];
  d->cube = ref_bg_cube_value(&st->cube);
  d->cube_owner = st->cube.owner;
  ref_diag_bg_turn(d, &st->t, false);
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
  const struct bc_state *st = ref_bc_cst(s);
  struct base_buf o;
  bool flip = seat == 1;
  int row, col, side = st->t.onroll;

  if(!cap)
    return REF_EINVAL;
  base_buf_init_fixed(&o, buf, cap);
  for(row = 0; row < 8; row++) {
    int rank = flip ? row : 7 - row;
    ref_text_emit(&o, " %d ", rank + 1);
    for(col = 0; col < 8; col++) {
      int file = flip ? 7 - col : col, sq = rank * 8 + file, code = st->pos.board[sq];
      bool mark = st->t.phase != REF_PHASE_OVER && (sq == st->last_from || sq == st->last_to);
      char c = '.';
      if(code != REF_CH_EMPTY)
        c = letters[REF_CH_COLOR(code)][REF_CH_TYPE(code)];
      else if(st->stones[0] & BIT(sq))
        c = (st->dbl[0] & BIT(sq)) ? 'X' : 'V';
      else if(st->stones[1] & BIT(sq))
        c = (st->dbl[1] & BIT(sq)) ? 'x' : 'v';
      ref_text_emit(&o, "%c%c%c", mark ? '[' : ' ', c, mark ? ']' : ' ');
    }
    ref_text_emit(&o, " %d", rank + 1);
    if(row == 1)
      ref_text_emit(&o, "    stones: V X White, v x Black");
    if(row == 2)
      ref_text_emit(&o, "    in jail: White %d, Black %d", st->b.pt[0][REF_BG_BAR],
                    st->b.pt[1][REF_BG_BAR]);
    ref_text_emit(&o, "\n");
  }
  ref_text_emit(&o, "   ");
  for(col = 0; col < 8; col++)
    ref_text_emit(&o, col < 7 ? " %c " : " %c", 'a' + (flip ? 7 - col : col));
  ref_text_emit(&o, "\n\n");
  render_bg(st, seat == 1 ? 1 : 0, &o);
  if(st->t.phase == REF_PHASE_MOVE) {
    if(st->first)
      ref_text_emit(&o, " %s to move: on the first turn a chess move only.\n", seat_name[side]);
    else if(st->stage == ST_BG)
      ref_text_emit(&o, " %s to play %d-%d, then a chess move (\"PLAY ; MOVE\").\n",
                    seat_name[side], st->t.dice[0], st->t.dice[1]);
    else if(st->stage == ST_PLACE)
      ref_text_emit(&o, " %s to place %d borne-off stone%s: \"@e4\".\n", seat_name[side],
                    st->pending, st->pending == 1 ? "" : "s");
    else
      ref_text_emit(&o, " %s (roll %d-%d) to make a chess move%s.\n", seat_name[side],
                    st->t.dice[0], st->t.dice[1],
                    ref_bc_king_attacked(st, side) ? ", in check" : "");
  }
  else {
    /* The last chess move is marked on the board itself. */
    struct ref_bg_turn t = st->t;
    t.last_seat = -1;
    ref_bg_turn_render(&o, &t, &st->cube, "");
  }
  return base_buf_err(&o) ? REF_EINVAL : REF_OK;
}

static const struct ref_game_ops bc_ops = {
  bc_init,      /* init */
  bc_decode,    /* decode */
  bc_encode,    /* encode */
  bc_legal,     /* legal */
  ref_bc_parse, /* parse: backgammon_chess_notation.c */
  bc_format,    /* format */
  bc_apply,     /* apply */
  bc_roll,      /* roll */
  bc_act,       /* act */
  bc_status,    /* status */
  bc_render,    /* render */
  NULL,         /* perft: the generic one (dice fixed by the caller) */
  bc_ok,        /* ok */
  bc_diagram,   /* diagram */
};

/* Lag Backgammon Chess (6.9): the same rules; only init differs (lag=2
 * unless given). The private dice are the service's (referee/turns/lag.c). */
static const struct ref_game_ops lag_ops = {
  lag_init, bc_decode, bc_encode, bc_legal, ref_bc_parse, bc_format, bc_apply,
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

