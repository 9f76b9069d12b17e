/*
 * backgammon.c: backgammon with the doubling cube, a money game or one
 * game of a match (options match=N, score=A-B, crawford=on; jacoby=on for
 * money play: BG-4), and the reusable backgammon helpers
 * declared in backgammon_int.h.
 *
 * Rules: docs/rules-spec.md section 4 (BG-1 opening roll, BG-2 must-play,
 * BG-3 backgammon, BG-4 optional cube rules, BG-5 resignation levels, BG-6
 * partial moves in any legal order) and section 1 (conventions). Position
 * strings, notation and the set of legal plays follow GNU Backgammon 1.07
 * (Position ID, Match ID, FormatMove); tests/unit/rules/test_backgammon.c
 * checks them against gnubg's own answers.
 *
 * The board, the play generator with must-play, gnubg's notation, the cube
 * and the turn frame are backgammon_board.c's; the reading of plays is
 * dice_notation.c's. Here: the Position ID and Match ID (gnubg's position
 * strings, which Backgammon Chess uses too), then the game ops, a thin
 * state machine over them.
 */
#include "backgammon_int.h"
#include "diagram_int.h"
#include "dice_notation_int.h"
#include "game_text_int.h"
#include "rules.h"

#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* Position ID and Match ID                                                */
/* ---------------------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* Base64 of nbytes bytes without the '=' padding: 10 bytes -> 14 chars,
 * 9 bytes -> 12. */
static void b64_encode(const uint8_t *key, int nbytes, char *out)
{
  int i, bit, nbits = nbytes * 8, nchar = (nbits + 5) / 6, c, v;
  for(c = 0; c < nchar; c++) {
    v = 0;
    for(i = 0; i < 6; i++) {
      bit = c * 6 + i;
      /* Base64 reads each byte from its most significant bit. */
      v <<= 1;
      if(bit < nbits && (key[bit / 8] >> (7 - bit % 8)) & 1)
        v |= 1;
    }
    out[c] = b64[v];
  }
  out[nchar] = '\0';
}

/* Inverse of b64_encode; REF_EINVAL on a bad length, character, or a set
 * padding bit. */
static int b64_decode(const char *in, int nbytes, uint8_t *key)
{
  int nbits = nbytes * 8, nchar = (nbits + 5) / 6, c, i, bit;
  const char *q;
  memset(key, 0, (size_t)nbytes);
  if(strlen(in) != (size_t)nchar)
    return REF_EINVAL;
  for(c = 0; c < nchar; c++) {
    q = strchr(b64, in[c]);
    if(!q || !in[c])
      return REF_EINVAL;
    for(i = 0; i < 6; i++) {
      bit = c * 6 + i;
      if(!((q - b64) >> (5 - i) & 1))
        continue;
      if(bit >= nbits)
        return REF_EINVAL;
      key[bit / 8] |= (uint8_t)(1u << (7 - bit % 8));
    }
  }
  return REF_OK;
}

void ref_bg_position_id(const struct ref_bg_board *b, int onroll, char out[15])
{
  uint8_t key[10] = {0};
  int bit = 0, k, s, p, c;
  for(k = 0; k < 2; k++) {
    s = k == 0 ? !onroll : onroll;
    for(p = 1; p <= REF_BG_BAR; p++) {
      for(c = 0; c < b->pt[s][p]; c++, bit++)
        key[bit / 8] |= (uint8_t)(1u << (bit % 8));
      bit++;
    }
  }
  b64_encode(key, 10, out);
}

int ref_bg_position_decode(struct ref_bg_board *b, int onroll, const char *id)
{
  uint8_t key[10];
  struct ref_bg_board nb;
  int bit = 0, k, s, p, n, total;

  if(b64_decode(id, 10, key) != REF_OK)
    return REF_EINVAL;
  memset(&nb, 0, sizeof(nb));
  for(k = 0; k < 2; k++) {
    s = k == 0 ? !onroll : onroll;
    total = 0;
    for(p = 1; p <= REF_BG_BAR; p++) {
      for(n = 0; bit < 80 && (key[bit / 8] >> (bit % 8)) & 1; bit++)
        n++;
      if(bit >= 80)
        return REF_EINVAL;
      bit++;
      total += n;
      if(total > REF_BG_CHECKERS)
        return REF_EINVAL;
      nb.pt[s][p] = (uint8_t)n;
    }
    nb.pt[s][REF_BG_OFF] = (uint8_t)(REF_BG_CHECKERS - total);
  }
  for(; bit < 80; bit++)
    if((key[bit / 8] >> (bit % 8)) & 1)
      return REF_EINVAL;
  if(!ref_bg_board_ok(&nb))
    return REF_EINVAL;
  *b = nb;
  return REF_OK;
}

/* Match ID fields in bit order: width of each. */
/* Match ID fields in bit order: width of each. The 67th bit is not in
 * the manual; gnubg 1.x stores "not Jacoby" there (matchid.c). */
static const int mid_width[14] = {4, 2, 1, 1, 3, 1, 1, 2, 3, 3, 15, 15, 15, 1};

void ref_bg_match_id(const struct ref_bg_match *m, char out[13])
{
  uint8_t key[9] = {0};
  int v[14], f, i, bit = 0;
  v[0] = m->cube_log2;
  v[1] = m->cube_owner < 0 ? 3 : m->cube_owner;
  v[2] = m->on_roll;
  v[3] = m->crawford;
  v[4] = m->state;
  v[5] = m->turn;
  v[6] = m->doubled;
  v[7] = m->resigned;
  v[8] = m->dice[0] > m->dice[1] ? m->dice[0] : m->dice[1];
  v[9] = m->dice[0] > m->dice[1] ? m->dice[1] : m->dice[0];
  v[10] = m->match_len;
  v[11] = m->score[0];
  v[12] = m->score[1];
  v[13] = !m->jacoby;
  for(f = 0; f < 14; f++)
    for(i = 0; i < mid_width[f]; i++, bit++)
      if((v[f] >> i) & 1)
        key[bit / 8] |= (uint8_t)(1u << (bit % 8));
  b64_encode(key, 9, out);
}

int ref_bg_match_decode(struct ref_bg_match *m, const char *id)
{
  uint8_t key[9];
  int v[14], f, i, bit = 0;
  if(b64_decode(id, 9, key) != REF_OK)
    return REF_EINVAL;
  for(f = 0; f < 14; f++) {
    v[f] = 0;
    for(i = 0; i < mid_width[f]; i++, bit++)
      if((key[bit / 8] >> (bit % 8)) & 1)
        v[f] |= 1 << i;
  }
  for(; bit < 72; bit++)
    if((key[bit / 8] >> (bit % 8)) & 1)
      return REF_EINVAL;
  if(v[1] == 2 || v[4] > 4 || v[8] > 6 || v[9] > 6 || (!v[8]) != (!v[9]))
    return REF_EINVAL;
  m->cube_log2 = v[0];
  m->cube_owner = v[1] == 3 ? -1 : v[1];
  m->on_roll = v[2];
  m->crawford = v[3];
  m->state = v[4];
  m->turn = v[5];
  m->doubled = v[6];
  m->resigned = v[7];
  /* the higher die first, as ref_bg_match_id writes them: a position
   * decodes the same from its own string */
  m->dice[0] = v[8] > v[9] ? v[8] : v[9];
  m->dice[1] = v[8] > v[9] ? v[9] : v[8];
  m->match_len = v[10];
  m->score[0] = v[11];
  m->score[1] = v[12];
  m->jacoby = !v[13];
  return REF_OK;
}

/* ---------------------------------------------------------------------- */
/* The game: money backgammon, seat 0 White, seat 1 Black                  */
/* ---------------------------------------------------------------------- */

/*
 * State. b.pt[seat] is in that seat's own numbering. `onroll` is the seat
 * whose turn of play it is (gnubg's dice owner); `turn` the seat that must
 * act now (the taker during REF_PHASE_CUBE_REPLY). `phase` is redundant
 * with the rest (ok() recomputes it): REF_PHASE_CUBE when the roller may
 * double, else REF_PHASE_ROLL.
 */
struct bg_state {
  struct ref_bg_board b;
  struct ref_bg_cube cube;
  struct ref_bg_turn t; /* phase, seats, dice (BG-1 opening), result */
  uint8_t resigned;     /* REF_END_RESIGNATION: level 1-3 */
  uint8_t match_len;    /* BG-4: a game of a match to this many points, 0 money */
  uint8_t score[2];     /* the match score before this game */
};

#define BG_MOVE_TAG 0x42470000u /* "BG": marks a ref_move made here */
#define BG_SUGGEST 6

static const char *const seat_name[2] = {"White", "Black"};

static struct bg_state *st_of(struct ref_state *s)
{
  return (struct bg_state *)(void *)s;
}

static const struct bg_state *cst_of(const struct ref_state *s)
{
  return (const struct bg_state *)(const void *)s;
}

/* ---- reading a play (section 4.4, BG-6): dice_notation.c --------------- */

/* The board as the shared reader sees it: one kind of checker, forward
 * only (the reader never asks backward of a game without piece names). */
static bool bg_checker_on(const void *b, int side, int q, int type)
{
  (void)type;
  return ((const struct ref_bg_board *)b)->pt[side][q] != 0;
}

static bool bg_anything_on(const void *b, int side, int q)
{
  return bg_checker_on(b, side, q, 0);
}

static int bg_reader_step(const void *b, int side, int type, int from, int die, int dir, int *to)
{
  (void)type, (void)dir;
  return (int)ref_bg_step(b, side, from, die, to);
}

static bool bg_reader_apply(void *b, int side, int type, int from, int to)
{
  (void)type;
  return ref_bg_step_apply(b, side, from, to);
}

static long bg_reader_find(const void *legal, const void *b)
{
  return ref_bg_playlist_find(legal, b);
}

/* Refusals by how much they tell: bar > blocked > bear-off > no checker. */
static const int bg_why_rank[] = {0, 1, 4, 3, 2};

static const struct ref_dn_board bg_reader_board = {
  sizeof(struct ref_bg_board), 1, bg_checker_on, bg_anything_on, bg_reader_step, bg_reader_apply,
  bg_reader_find, NULL, NULL, bg_why_rank, 0,
};

static const struct ref_dn_syntax bg_syntax = {NULL, 0, NULL}; /* gnubg's: no piece names */

static int bg_gen(const void *b, int side, int d1, int d2, void *list, struct ref_dn_plays *view)
{
  struct ref_bg_playlist *l = list;
  int rc = ref_bg_plays(b, side, d1, d2, l);
  view->v = l->v;
  view->n = l->n;
  view->max_dice = l->max_dice;
  return rc;
}

static void bg_list_free(void *list)
{
  ref_bg_playlist_free(list);
}

static int bg_text(const void *b, int side, const struct ref_bg_play *p, char *buf, size_t cap)
{
  return ref_bg_play_format(b, side, p, buf, cap);
}

/* The refusal of a readable play: "your dice do not fit" over any other
 * reason when the routes cannot fit the roll at all; the point it
 * happened on as the detail. */
static void bg_explain(const struct ref_dn_input *in, const int dice[2], int why, int at, int type,
                       const char **reason, char *detail, size_t cap)
{
  (void)type;
  if(!ref_dn_dice_fit(in, dice))
    why = REF_DN_WHY_DICE;
  switch(why) {
  case REF_BG_NO_CHECKER:
    *reason = "bg-no-checker";
    break;
  case REF_BG_BAR_FIRST:
    *reason = "bg-bar-first";
    break;
  case REF_BG_BLOCKED:
    *reason = "bg-blocked";
    break;
  case REF_BG_CANNOT_BEAR_OFF:
    *reason = "bg-cannot-bear-off";
    break;
  default:
    *reason = "bg-wrong-dice";
    break;
  }
  if(at == REF_BG_BAR)
    snprintf(detail, cap, "bar");
  else
    snprintf(detail, cap, "%d", at);
}

/* Backgammon as dice_notation.c plays it: checkers only, forward only. */
static const struct ref_dn_rules bg_rules = {
  BG_MOVE_TAG, &bg_syntax, &bg_reader_board,
  offsetof(struct bg_state, b), offsetof(struct bg_state, t),
  0, true, false, /* off is a point; forward only; no play wins before its end */
  sizeof(struct ref_bg_playlist), bg_gen, bg_list_free, bg_text, bg_explain, BG_SUGGEST,
};

int ref_bg_move_to_play(const struct ref_move *m, struct ref_bg_play *p)
{
  return ref_dn_play(&bg_rules, m, p);
}

/* The roller's turn starts: section 1.6, the cube question comes before
 * the roll and is asked only when a double is legal. */
static void start_turn(struct bg_state *st, int seat)
{
  st->t.onroll = (int8_t)seat;
  st->t.turn = (int8_t)seat;
  st->t.dice[0] = st->t.dice[1] = 0;
  st->t.phase = ref_bg_cube_may_double(&st->cube, seat) ? REF_PHASE_CUBE : REF_PHASE_ROLL;
}

static void finish(struct bg_state *st, int winner, enum ref_end end, int points)
{
  ref_bg_turn_finish(&st->t, winner, end, points);
}

/* An on/off option's value into *flag; false when it is neither. */
static bool on_off(const struct ref_opt *o, uint8_t *flag)
{
  if(!o->has_value || !(ref_opt_is(o->vb, o->ve, "on") || ref_opt_is(o->vb, o->ve, "off")))
    return false;
  *flag = ref_opt_is(o->vb, o->ve, "on");
  return true;
}

/* A number option's value, 0 to 99 digits' worth (at most 3 digits). */
static bool number(const char *b, const char *e, int *n)
{
  if(b == e || e - b > 3)
    return false;
  for(*n = 0; b < e; b++) {
    if(!isdigit((unsigned char)*b))
      return false;
    *n = *n * 10 + (*b - '0');
  }
  return true;
}

#define OPT_FEN 16

/*
 * Options (BG-4): match=N (a game of a match to N points, 1 to
 * 64), score=A-B (the match score before it, each below N), crawford=on
 * (the Crawford game: exactly one player at N-1, no cube), jacoby=on
 * (money games only), beavers=on (BG-9: money games only; refused in a
 * match as bg-beaver-match). Automatic doubles stay off.
 * fen=POSITION (bg_encode's Position ID:Match ID, dice included) starts
 * from a position, as `new GAME fen=...` does in the other games (issue
 * 13's mail cases play fixed dice with it). It stands alone: its Match ID
 * already holds the match length, the score and the Crawford flag, so any
 * other option beside it is refused (bad-option), as is a second of any.
 * Options are read as every game reads them (game_text.c). On OPT_FEN the
 * position is in fen[cap].
 */
static int bg_options(struct bg_state *st, const char *options, char *fen, size_t cap,
                      struct ref_err *err)
{
  struct ref_opt o;
  const char *b = options, *dash;
  char key[32];
  int len = 0, a = 0, c = 0, seen = 0, bit;

  while(ref_opt_next(&b, &o)) {
    ref_opt_key(&o, key, sizeof(key));
    if(o.kb == o.ke && !o.has_value)
      continue; /* an empty segment, e.g. after a trailing ';' */
    dash = o.has_value ? memchr(o.vb, '-', (size_t)(o.ve - o.vb)) : NULL;
    if(ref_opt_is(o.kb, o.ke, "match"))
      bit = o.has_value && number(o.vb, o.ve, &len) ? 1 : -1;
    else if(ref_opt_is(o.kb, o.ke, "score"))
      bit = dash && number(o.vb, dash, &a) && number(dash + 1, o.ve, &c) ? 2 : -1;
    else if(ref_opt_is(o.kb, o.ke, "crawford"))
      bit = on_off(&o, &st->cube.crawford) ? 4 : -1;
    else if(ref_opt_is(o.kb, o.ke, "jacoby"))
      bit = on_off(&o, &st->cube.jacoby) ? 8 : -1;
    else if(ref_opt_is(o.kb, o.ke, "beavers"))
      bit = on_off(&o, &st->cube.beavers) ? 32 : -1;
    else if(ref_opt_is(o.kb, o.ke, "fen"))
      bit = o.has_value ? OPT_FEN : -1;
    else
      bit = -1;
    if(bit < 0 || (seen & bit) || (seen && (bit == OPT_FEN || (seen & OPT_FEN)))) {
      ref_err_set(err, REF_EINVAL, "bad-option", key);
      return REF_EINVAL;
    }
    if(bit == OPT_FEN) {
      if((size_t)(o.ve - o.vb) >= cap) {
        ref_err_set(err, REF_EINVAL, "bg-bad-position", "too long");
        return REF_EINVAL;
      }
      snprintf(fen, cap, "%.*s", (int)(o.ve - o.vb), o.vb);
    }
    seen |= bit;
  }
  if(seen == OPT_FEN)
    return OPT_FEN;
  if((seen & 1) && (len < 1 || len > 64)) {
    ref_err_set(err, REF_EINVAL, "bg-match-length", NULL);
    return REF_EINVAL;
  }
  if(((seen & 6) && !len) || (len && (a >= len || c >= len)) ||
     (st->cube.crawford && (a == len - 1) == (c == len - 1))) {
    ref_err_set(err, REF_EINVAL, "bg-match-score", NULL);
    return REF_EINVAL;
  }
  if(st->cube.jacoby && len) {
    ref_err_set(err, REF_EINVAL, "bg-jacoby-money", NULL);
    return REF_EINVAL;
  }
  if(st->cube.beavers && len) { /* BG-9: beavers are money play's */
    ref_err_set(err, REF_EINVAL, "bg-beaver-match", NULL);
    return REF_EINVAL;
  }
  st->match_len = (uint8_t)len;
  st->score[0] = (uint8_t)a;
  st->score[1] = (uint8_t)c;
  return REF_OK;
}

static int bg_decode(struct ref_state *s, const char *text, struct ref_err *err);

static int bg_init(struct ref_state *s, const char *options, struct ref_err *err)
{
  struct bg_state *st = st_of(s), nst;
  char fen[64];
  int rc;

  memset(&nst, 0, sizeof(nst));
  ref_bg_cube_init(&nst.cube);
  rc = bg_options(&nst, options, fen, sizeof(fen), err);
  if(rc == OPT_FEN)
    return bg_decode(s, fen, err);
  if(rc != REF_OK)
    return REF_EINVAL;
  *st = nst;
  ref_bg_board_start(&st->b);
  st->t.opening = 1;
  st->t.phase = REF_PHASE_ROLL;
  st->t.turn = 0;
  st->t.onroll = 0;
  st->t.winner = -1;
  st->t.move_number = 1;
  st->t.last_seat = -1;
  return REF_OK;
}

/* ---- position strings -------------------------------------------------- */

/*
 * "PositionID:MatchID", money game (match length 0). The Position ID is
 * from the Match ID's dice owner's view. How our phases map on gnubg's
 * fields (where gnubg has no state of its own we chose):
 *   opening roll pending   game state 0 (no game yet), dice 0, cube 1 centred
 *   cube or roll question  state 1, on roll = turn = roller, dice 0
 *   double offered         state 1, double bit, turn = the taker
 *   beaver offered (BG-9)  state 1, double bit, turn = the doubler, the
 *                          cube one step up and the beaver's (as gnubg)
 *   dice rolled, to play   state 1, dice set
 *   over                   state 2 borne off / 3 resigned (resign level) /
 *                          4 double dropped; on roll = winner, turn = loser
 */
static int bg_encode(const struct ref_state *s, char *buf, size_t cap)
{
  const struct bg_state *st = cst_of(s);
  struct ref_bg_match m;
  char pid[15], mid[13];
  int view;

  memset(&m, 0, sizeof(m));
  m.cube_log2 = st->cube.log2;
  m.cube_owner = st->cube.owner;
  m.match_len = st->match_len;
  m.score[0] = st->score[0];
  m.score[1] = st->score[1];
  m.crawford = st->cube.crawford;
  m.jacoby = st->cube.jacoby;
  if(st->t.phase == REF_PHASE_OVER) {
    view = st->t.winner;
    m.state = st->t.end == REF_END_BORNE_OFF ? 2 : st->t.end == REF_END_RESIGNATION ? 3 : 4;
    m.resigned = st->t.end == REF_END_RESIGNATION ? st->resigned : 0;
    m.on_roll = st->t.winner;
    m.turn = !st->t.winner;
  }
  else {
    view = st->t.onroll;
    m.state = st->t.opening ? 0 : 1;
    m.on_roll = st->t.onroll;
    m.turn = st->t.turn;
    m.doubled = st->t.phase == REF_PHASE_CUBE_REPLY;
    m.dice[0] = st->t.dice[0];
    m.dice[1] = st->t.dice[1];
  }
  ref_bg_position_id(&st->b, view, pid);
  ref_bg_match_id(&m, mid);
  if(cap < sizeof(pid) + sizeof(mid))
    return REF_EINVAL;
  snprintf(buf, cap, "%s:%s", pid, mid);
  return REF_OK;
}

static int bad_position(struct ref_err *err, const char *what)
{
  ref_err_set(err, REF_EINVAL, "bg-bad-position", what);
  return REF_EINVAL;
}

static int bg_decode(struct ref_state *s, const char *text, struct ref_err *err)
{
  struct bg_state nst;
  struct ref_bg_match m;
  char pid[15], mid[13];
  const char *colon;
  int off0, off1;

  if(!text)
    return bad_position(err, "empty");
  while(isspace((unsigned char)*text))
    text++;
  colon = strchr(text, ':');
  if(!colon || colon - text != 14)
    return bad_position(err, "Position ID");
  memcpy(pid, text, 14);
  pid[14] = '\0';
  snprintf(mid, sizeof(mid), "%s", colon + 1);
  if(strlen(colon + 1) != 12 && !(strlen(colon + 1) > 12 && isspace((unsigned char)colon[13])))
    return bad_position(err, "Match ID");
  if(ref_bg_match_decode(&m, mid) != REF_OK)
    return bad_position(err, "Match ID");
  /* A money game: gnubg keeps its session score in the score fields, one
   * game ignores them. A game of a match (BG-4): the length, the
   * score before it, the Crawford flag (one player at N-1, no cube
   * turned). The Jacoby bit is ignored: the manual's IDs predate it (a
   * Jacoby game's position reads back as a game without). */
  if(m.match_len > 64 ||
     (m.match_len && (m.score[0] >= m.match_len || m.score[1] >= m.match_len)) ||
     (m.crawford && (!m.match_len || m.cube_log2 ||
                     (m.score[0] == m.match_len - 1) == (m.score[1] == m.match_len - 1))))
    return bad_position(err, "match");
  if(m.cube_log2 > REF_BG_CUBE_MAX_LOG2 || (m.cube_owner < 0) != (m.cube_log2 == 0))
    return bad_position(err, "cube");

  memset(&nst, 0, sizeof(nst));
  nst.cube.log2 = (int8_t)m.cube_log2;
  nst.cube.owner = (int8_t)m.cube_owner;
  nst.cube.crawford = (uint8_t)m.crawford;
  nst.match_len = (uint8_t)m.match_len;
  nst.score[0] = (uint8_t)(m.match_len ? m.score[0] : 0);
  nst.score[1] = (uint8_t)(m.match_len ? m.score[1] : 0);
  nst.t.winner = -1;
  nst.t.move_number = 1;
  nst.t.last_seat = -1;
  if(ref_bg_position_decode(&nst.b, m.on_roll, pid) != REF_OK)
    return bad_position(err, "Position ID");
  off0 = nst.b.pt[0][REF_BG_OFF];
  off1 = nst.b.pt[1][REF_BG_OFF];

  switch(m.state) {
  case 0:
    if(m.cube_log2 || m.doubled || m.resigned || m.dice[0] || m.on_roll || m.turn)
      return bad_position(err, "opening");
    nst.t.opening = 1;
    nst.t.phase = REF_PHASE_ROLL;
    break;
  case 1:
    if(m.resigned)
      return bad_position(err, "resignation");
    if(m.doubled && m.turn == m.on_roll) {
      /* BG-9: a beaver waits for the doubler, so beavers were on */
      if(m.dice[0] || m.match_len || m.cube_owner != !m.on_roll ||
         m.cube_log2 + 1 > REF_BG_CUBE_MAX_LOG2)
        return bad_position(err, "beaver");
      nst.cube.beavers = 1;
      nst.t.onroll = nst.t.turn = (int8_t)m.on_roll;
      nst.t.phase = REF_PHASE_CUBE_REPLY;
      break;
    }
    if(m.doubled) {
      if(m.dice[0] || m.turn == m.on_roll || !ref_bg_cube_may_double(&nst.cube, m.on_roll))
        return bad_position(err, "double");
      nst.t.onroll = (int8_t)m.on_roll;
      nst.t.turn = (int8_t)m.turn;
      nst.t.phase = REF_PHASE_CUBE_REPLY;
      break;
    }
    if(m.turn != m.on_roll)
      return bad_position(err, "turn");
    start_turn(&nst, m.on_roll);
    if(m.dice[0]) {
      nst.t.dice[0] = (uint8_t)m.dice[0];
      nst.t.dice[1] = (uint8_t)m.dice[1];
      nst.t.phase = REF_PHASE_MOVE;
    }
    break;
  default:
    if(m.doubled || m.dice[0] || m.turn == m.on_roll || (m.state == 3) != (m.resigned != 0))
      return bad_position(err, "game over");
    if(m.state == 2) {
      if(nst.b.pt[m.on_roll][REF_BG_OFF] != REF_BG_CHECKERS)
        return bad_position(err, "game over");
      finish(&nst, m.on_roll, REF_END_BORNE_OFF,
             ref_bg_cube_points(&nst.cube, ref_bg_game_multiplier(&nst.b, m.on_roll)));
    }
    else if(m.state == 3) {
      nst.resigned = (uint8_t)m.resigned;
      finish(&nst, m.on_roll, REF_END_RESIGNATION, ref_bg_cube_points(&nst.cube, m.resigned));
    }
    else
      finish(&nst, m.on_roll, REF_END_CUBE_DROPPED, ref_bg_cube_value(&nst.cube));
    break;
  }
  /* Whoever has borne off all 15 has won: only a finished game shows it. */
  if(m.state != 2 && (off0 == REF_BG_CHECKERS || off1 == REF_BG_CHECKERS))
    return bad_position(err, "all borne off");
  if(m.state == 2 && off0 == REF_BG_CHECKERS && off1 == REF_BG_CHECKERS)
    return bad_position(err, "all borne off");
  *st_of(s) = nst;
  return REF_OK;
}

/* ---- dice and cube ----------------------------------------------------- */

/* BG-1: the opening roll is one die each, faces[0] White's; a tie is
 * rolled again; the higher starts and plays both numbers. */
static int bg_roll(struct ref_state *s, const int *faces, int nfaces, struct ref_err *err)
{
  return ref_bg_turn_roll(&st_of(s)->t, faces, nfaces, "bg-no-roll-now", true, err);
}

/* Section 4.3: the cube; BG-5: resignation at a level; no draws. */
static const struct ref_bg_acts bg_acts = {"no-draws", "no-draws", "backgammon", NULL, NULL};

static int bg_act(struct ref_state *s, int seat, enum ref_action action, int arg,
                  struct ref_err *err)
{
  struct bg_state *st = st_of(s);
  int rc;

  if(action == REF_ACT_BEAVER && st->match_len && st->t.phase != REF_PHASE_OVER) {
    /* BG-9: no beavers in a match (gnubg refuses them there too) */
    ref_err_set(err, REF_EPHASE, "bg-beaver-match", NULL);
    return REF_EPHASE;
  }
  rc = ref_bg_turn_act(&st->t, &st->cube, seat, action, arg, &bg_acts, err);

  if(rc == REF_OK && action == REF_ACT_RESIGN)
    st->resigned = (uint8_t)arg;
  return rc;
}

/* ---- moves ------------------------------------------------------------- */

static int bg_legal(const struct ref_state *s, struct ref_movelist *out)
{
  return ref_dn_legal(&bg_rules, s, out);
}

/* REF_NOTATION_COMPUTER is the same: gnubg's notation is what the oracle
 * prints too. */
static int bg_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                     char *buf, size_t cap)
{
  (void)style;
  return ref_dn_format(&bg_rules, s, m, buf, cap);
}

static int bg_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                    struct ref_err *err)
{
  return ref_dn_parse(&bg_rules, s, text, out, err);
}

static int bg_apply(struct ref_state *s, const struct ref_move *m)
{
  struct bg_state *st = st_of(s);
  struct ref_bg_play p;
  int mover = st->t.onroll, rc = ref_dn_apply(&bg_rules, s, m, &p);

  if(rc)
    return rc;
  if(st->b.pt[mover][REF_BG_OFF] == REF_BG_CHECKERS) {
    /* Section 4.3: single, gammon or backgammon, times the cube (BG-4:
     * single under Jacoby with the cube not turned). */
    finish(st, mover, REF_END_BORNE_OFF,
           ref_bg_cube_points(&st->cube, ref_bg_game_multiplier(&st->b, mover)));
    return REF_OK;
  }
  start_turn(st, !mover);
  return REF_OK;
}

static void bg_status(const struct ref_state *s, struct ref_status *out)
{
  const struct bg_state *st = cst_of(s);
  ref_bg_turn_status(&st->t, &st->cube, out);
}

static bool bg_ok(const struct ref_state *s)
{
  const struct bg_state *st = cst_of(s);
  int off0 = st->b.pt[0][REF_BG_OFF], off1 = st->b.pt[1][REF_BG_OFF];

  if(!ref_bg_board_ok(&st->b))
    return false;
  if(!ref_bg_cube_ok(&st->cube) || st->t.onroll < 0 || st->t.onroll > 1)
    return false;
  /* BG-4: the Crawford game is a match's, with one player at
   * N-1; Jacoby is money play's */
  if((st->cube.crawford &&
      (!st->match_len || (st->score[0] == st->match_len - 1) == (st->score[1] == st->match_len - 1))) ||
     ((st->cube.jacoby || st->cube.beavers) && st->match_len) || st->match_len > 64 ||
     (st->match_len && (st->score[0] >= st->match_len || st->score[1] >= st->match_len)))
    return false;
  switch(st->t.phase) {
  case REF_PHASE_OVER:
    if(st->t.turn != -1 || st->t.winner < 0 || st->t.winner > 1)
      return false;
    if(st->t.end == REF_END_BORNE_OFF)
      return (st->t.winner ? off1 : off0) == REF_BG_CHECKERS &&
             st->t.points ==
               ref_bg_cube_points(&st->cube, ref_bg_game_multiplier(&st->b, st->t.winner));
    if(off0 == REF_BG_CHECKERS || off1 == REF_BG_CHECKERS)
      return false;
    if(st->t.end == REF_END_RESIGNATION)
      return st->resigned >= 1 && st->resigned <= 3 &&
             st->t.points == ref_bg_cube_points(&st->cube, st->resigned);
    return st->t.end == REF_END_CUBE_DROPPED && st->t.points == ref_bg_cube_value(&st->cube);
  case REF_PHASE_MOVE:
    if(st->t.dice[0] < 1 || st->t.dice[0] > 6 || st->t.dice[1] < 1 || st->t.dice[1] > 6 ||
       st->t.turn != st->t.onroll || st->t.opening)
      return false;
    break;
  case REF_PHASE_CUBE_REPLY:
    if(st->t.dice[0] || st->t.opening)
      return false;
    if(ref_bg_turn_beavered(&st->t)) /* BG-9 */
      return st->cube.beavers && st->cube.owner == !st->t.onroll && st->cube.log2 >= 1 &&
             st->cube.log2 + 1 <= REF_BG_CUBE_MAX_LOG2;
    if(st->t.turn != !st->t.onroll || !ref_bg_cube_may_double(&st->cube, st->t.onroll))
      return false;
    break;
  case REF_PHASE_CUBE:
  case REF_PHASE_ROLL:
    if(st->t.turn != st->t.onroll || st->t.dice[0] || st->t.dice[1])
      return false;
    if(st->t.opening)
      return st->t.phase == REF_PHASE_ROLL && st->cube.log2 == 0;
    if((st->t.phase == REF_PHASE_CUBE) != ref_bg_cube_may_double(&st->cube, st->t.onroll))
      return false;
    break;
  default:
    return false;
  }
  return off0 < REF_BG_CHECKERS && off1 < REF_BG_CHECKERS;
}

/* ---- the board diagram ------------------------------------------------- */

/*
 * Drawn as gnubg draws its ASCII board, from the reader's side: the
 * reader's home board bottom right, their points numbered 1-12 along the
 * bottom (right to left) and 13-24 along the top, so they move
 * counterclockwise; the opponent's home is top right (BG-8: this rather
 * than the ChromaGames picture of section 4.1, which puts White's home top
 * left, because every backgammon program and most players read this one).
 * White's checkers are O and Black's X, as gnubg's players 0 and 1. A
 * column shows five checkers; a taller one shows its count in the fifth
 * row. The bar column holds the opponent's bar checkers above, the
 * reader's below; borne-off counts, pips, cube and dice are in the margin.
 */
#define BG_ROW_MAX 80

/* Checkers on the reader's point p: count and glyph. */
static int point_at(const struct ref_bg_board *b, int reader, int p, char *glyph)
{
  static const char glyphs[2] = {'O', 'X'};
  if(b->pt[reader][p]) {
    *glyph = glyphs[reader];
    return b->pt[reader][p];
  }
  *glyph = glyphs[!reader];
  return b->pt[!reader][25 - p];
}

/* One 3-column cell: row 0 is the edge of the board. */
static void cell(char out[4], int count, char glyph, int row)
{
  if(count > 5 && row == 4)
    snprintf(out, 4, count > 9 ? "%2d " : " %d ", count);
  else if(count > row)
    snprintf(out, 4, " %c ", glyph);
  else
    snprintf(out, 4, "   ");
}

static void half_row(struct base_buf *o, const struct bg_state *st, int reader, bool top, int row)
{
  char c[4], g, line[BG_ROW_MAX];
  int i, p, n, len = 0;
  int barside = top ? !reader : reader;

  len += snprintf(line + len, sizeof(line) - (size_t)len, " |");
  for(i = 0; i < 12; i++) {
    if(i == 6) {
      cell(c, st->b.pt[barside][REF_BG_BAR], barside ? 'X' : 'O', row);
      len += snprintf(line + len, sizeof(line) - (size_t)len, "|%s|", c);
    }
    p = top ? 13 + i : 12 - i;
    n = point_at(&st->b, reader, p, &g);
    cell(c, n, g, row);
    len += snprintf(line + len, sizeof(line) - (size_t)len, "%s", c);
  }
  snprintf(line + len, sizeof(line) - (size_t)len, "|");
  ref_text_emit(o, "%s", line);
}

static void margin(struct base_buf *o, const struct bg_state *st, int side, int line, int reader)
{
  switch(line) {
  case 0:
    ref_text_emit(o, "  %c %s%s", side ? 'X' : 'O', seat_name[side],
                  side == reader ? " (you)" : "");
    break;
  case 1:
    ref_text_emit(o, "  pips %d", ref_bg_pips(&st->b, side));
    break;
  case 2:
    ref_text_emit(o, "  off %d", st->b.pt[side][REF_BG_OFF]);
    break;
  default:
    break;
  }
}

static int bg_render(const struct ref_state *s, int seat, char *buf, size_t cap)
{
  const struct bg_state *st = cst_of(s);
  struct base_buf o;
  char id[48];
  int reader = seat == 1 ? 1 : 0, row, i, p;

  if(!cap)
    return REF_EINVAL;
  base_buf_init_fixed(&o, buf, cap);
  bg_encode(s, id, sizeof(id));
  id[14] = '\0';
  ref_text_emit(&o, " Position ID: %s\n Match ID   : %s\n", id, id + 15);
  ref_text_emit(&o, " +");
  for(p = 13; p <= 24; p++)
    ref_text_emit(&o, p == 19 ? "-----%d-" : "%d-", p);
  ref_text_emit(&o, "+\n");
  for(row = 0; row < 5; row++) {
    half_row(&o, st, reader, true, row);
    margin(&o, st, !reader, row, reader);
    ref_text_emit(&o, "\n");
  }
  ref_text_emit(&o, " |                  |BAR|                  |");
  if(st->cube.owner < 0)
    ref_text_emit(&o, "  cube %d, centred\n", ref_bg_cube_value(&st->cube));
  else
    ref_text_emit(&o, "  cube %d, %s's\n", ref_bg_cube_value(&st->cube), seat_name[st->cube.owner]);
  for(row = 4; row >= 0; row--) {
    half_row(&o, st, reader, false, row);
    margin(&o, st, reader, 4 - row - 2, reader);
    ref_text_emit(&o, "\n");
  }
  ref_text_emit(&o, " +");
  for(i = 0; i < 12; i++) {
    p = 12 - i;
    if(i == 6)
      ref_text_emit(&o, "-----");
    ref_text_emit(&o, p > 9 ? "%d-" : "-%d-", p);
  }
  ref_text_emit(&o, "+\n");
  ref_bg_turn_render(&o, &st->t, &st->cube, "Opening roll: one die each, the higher plays both.");
  return base_buf_err(&o) ? REF_EINVAL : REF_OK;
}

/* The board as data: checkers on points, bar, off, the cube,
 * the dice to play, the last play marked; Black (seat 1) reads from its
 * side. */
static int bg_diagram(const struct ref_state *s, int seat, struct ref_diagram *d)
{
  const struct bg_state *st = cst_of(s);
  ref_diag_points(d, seat == 1);
  ref_diag_bg_board(d, &st->b);
  ref_diag_bg_turn(d, &st->t, true);
  d->cube = ref_bg_cube_value(&st->cube);
  d->cube_owner = st->cube.owner;
  return REF_OK;
}

static const struct ref_game_ops bg_ops = {
  bg_init,   /* init */
  bg_decode, /* decode */
  bg_encode, /* encode */
  bg_legal,  /* legal */
  bg_parse,  /* parse */
  bg_format, /* format */
  bg_apply,  /* apply */
  bg_roll,   /* roll */
  bg_act,    /* act */
  bg_status, /* status */
  bg_render, /* render */
  NULL,      /* perft: the generic one (dice fixed by the caller) */
  bg_ok,     /* ok */
  bg_diagram, /* diagram */
};

const struct ref_game_desc ref_game_backgammon = {
  "backgammon",                  /* name */
  "Backgammon",                  /* title */
  1,                             /* version */
  2,                             /* seats */
  {"White", "Black", NULL, NULL}, /* seat_names */
  REF_GAME_DICE | REF_GAME_CUBE, /* flags */
  sizeof(struct bg_state),       /* state_size */
  &bg_ops,                       /* ops */
};
