/*
 * backgammon_int.h: the reusable part of backgammon, private to the rules
 * core (not part of rules.h).
 *
 * Three games stand on it: plain backgammon (backgammon.c), Tables Chess
 * (chess pieces on a backgammon board: blots, blocks, bar, entry) and
 * Backgammon Chess (a normal backgammon game beside a chess game). So the
 * board, one checker step, whole plays with the must-play rule, pips, the
 * gnubg Position ID / Match ID and the doubling cube live here, each usable
 * alone, and backgammon.c is a thin layer of game ops over them.
 *
 * Rules: docs/rules-spec.md section 4 (BG-1 .. BG-6). Position ID and Match
 * ID: the GNU Backgammon manual, "A technical description of the Position
 * ID" and "... of the Match ID" (also shared oracles.md 4.3-4.4).
 *
 * Numbering. Every side counts points from its own side, as players write
 * them: 1-6 own home board, 24 the farthest point, 25 the bar, 0 off (BG
 * section 4.1). Side s's point p is the other side's point 25 - p. The
 * board keeps one array per side in that side's own numbering, which is
 * also gnubg's layout, so moves, pips and IDs need no mirroring.
 */
#ifndef TABULA_BACKGAMMON_INT_H
#define TABULA_BACKGAMMON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REF_BG_CHECKERS 15
#define REF_BG_OFF 0
#define REF_BG_BAR 25
#define REF_BG_CUBE_MAX_LOG2 6 /* 64, the last value of the cube (section 4.3) */

/* pt[side][p]: side's checkers on its own point p (1..24), on the bar
 * (25) and borne off (0). Sides are 0 and 1 (White, Black in backgammon). */
struct ref_bg_board {
  uint8_t pt[2][26];
};

/* One turn of moves on this board ("a play"), steps in the order played,
 * each in the mover's numbering: from 25 = bar, to 0 = off. n = 0 is the
 * empty play of a roll that cannot be used. Backgammon moves checkers
 * (type 0); Tables Chess moves typed pieces, and `won` marks the play that
 * takes a king home (TC-9, tables_chess_int.h). */
struct ref_bg_play {
  uint8_t n;
  uint8_t won;
  uint8_t type[4];
  uint8_t from[4];
  uint8_t to[4];
};

/* Why a single step is refused (ref_bg_step). */
enum ref_bg_why {
  REF_BG_STEP_OK = 0,
  REF_BG_NO_CHECKER,     /* nothing of the mover's on `from` */
  REF_BG_BAR_FIRST,      /* a checker is on the bar and this one is not it */
  REF_BG_BLOCKED,        /* two or more enemy checkers on the landing point */
  REF_BG_CANNOT_BEAR_OFF /* not all home, or a checker stands higher */
};

/* All distinct legal plays of one roll: one entry per resulting position
 * (as gnubg lists them). v[i] leads to res[i]. Free with
 * ref_bg_playlist_free; reuse across calls is fine. */
struct ref_bg_playlist {
  size_t n, cap;
  struct ref_bg_play *v;
  struct ref_bg_board *res;
  uint32_t *slot; /* hash of res -> index + 1, nslot entries */
  size_t nslot;
  int max_dice; /* dice used by every listed play */
  int max_pips; /* pips (sum of dice values) used by every listed play */
};

/* The start position (section 4.1: 2 on 24, 5 on 13, 3 on 8, 5 on 6). */
void ref_bg_board_start(struct ref_bg_board *b);
/* Invariants: 15 checkers per side counting bar and off, and no point
 * holding both colours. */
bool ref_bg_board_ok(const struct ref_bg_board *b);
/* Pip count of `side`: sum of point numbers, the bar counting 25. */
int ref_bg_pips(const struct ref_bg_board *b, int side);
/* True when every one of side's checkers still in play is in its home
 * board (points 1-6): the bear-off condition of section 4.2. */
bool ref_bg_all_home(const struct ref_bg_board *b, int side);

/*
 * Can `side` move a checker from `from` by `die`? Applies bar-first,
 * blocking and the bear-off rules of section 4.2. OUT: *to gets the landing
 * point (0 = off) when the answer is REF_BG_STEP_OK.
 */
enum ref_bg_why ref_bg_step(const struct ref_bg_board *b, int side, int from, int die, int *to);
/* Move one checker of `side` from `from` to `to` (the step must be legal),
 * hitting an enemy blot there. Returns true on a hit. */
bool ref_bg_step_apply(struct ref_bg_board *b, int side, int from, int to);
/* Apply a whole play (each step must be legal in turn). Returns hits. */
int ref_bg_play_apply(struct ref_bg_board *b, int side, const struct ref_bg_play *p);

/*
 * Must-play (BG-2), in gnubg's form: a play is complete when no further die
 * can be used; among complete plays only those using the most dice and, of
 * those, the most pips are legal. That is "both dice if possible, else the
 * higher one, doubles as many as possible". Returns <0, 0, >0 as play A
 * (dice used, pips) is worse than, as good as, or better than B.
 */
int ref_bg_mustplay_cmp(int dice_a, int pips_a, int dice_b, int pips_b);

/* Must-play while plays are listed: a complete play of `used` dice and
 * `pips` pips against the best so far (*max_dice, *max_pips). < 0: drop
 * it; 0: keep it beside the others; > 0: it is better, the plays kept so
 * far must go (the maxima are updated). */
int ref_bg_mustplay_rank(int *max_dice, int *max_pips, int used, int pips);

/*
 * Every legal play of `side` for the roll d1, d2, one per distinct
 * resulting position, in a stable order. With no legal play the list holds
 * one empty play (n = 0). Returns 0 or REF_ENOMEM.
 */
int ref_bg_plays(const struct ref_bg_board *b, int side, int d1, int d2,
                 struct ref_bg_playlist *out);
/* Index in `list` of the play leading to `res`, or -1. */
long ref_bg_playlist_find(const struct ref_bg_playlist *list, const struct ref_bg_board *res);
void ref_bg_playlist_free(struct ref_bg_playlist *list);

/*
 * gnubg's notation of play p by `side` on board b (the board before the
 * play): from/to per checker, highest first, bar and off by name, `*` after
 * a hit, a checker's hops merged unless one hits, `(n)` for repeats; "--"
 * for the empty play. Returns the length, or -1 if cap is too small.
 */
int ref_bg_play_format(const struct ref_bg_board *b, int side, const struct ref_bg_play *p,
                       char *buf, size_t cap);

/* The play in a ref_move made by backgammon.c's game ops: how a game
 * standing on this board (Backgammon Chess, section 6) reads what the
 * backgammon game's parser returned. REF_EINVAL (rules.h) when m is not
 * such a move. */
struct ref_move;
int ref_bg_move_to_play(const struct ref_move *m, struct ref_bg_play *p);

/* Position ID (14 characters + NUL): `onroll`'s opponent first, as gnubg. */
void ref_bg_position_id(const struct ref_bg_board *b, int onroll, char out[15]);
/* Decode a Position ID into b, side `onroll` being the one on roll.
 * Validates fully: 14 Base64 characters, at most 15 checkers a side, no
 * point held by both, padding bits zero. Returns 0 or REF_EINVAL. */
int ref_bg_position_decode(struct ref_bg_board *b, int onroll, const char *id);

/* The fields of a Match ID (bit fields as in the gnubg manual). */
struct ref_bg_match {
  int cube_log2;   /* cube value = 1 << cube_log2 */
  int cube_owner;  /* 0, 1, or -1 centred (stored as 3) */
  int on_roll;     /* dice owner */
  int crawford;
  int state;       /* 0 none, 1 playing, 2 over, 3 resigned, 4 dropped */
  int turn;        /* who must decide now */
  int doubled;     /* a double is offered */
  int resigned;    /* 0 none, 1 single, 2 gammon, 3 backgammon */
  int dice[2];     /* 0 = not rolled */
  int match_len;   /* 0 = money game */
  int score[2];
  int jacoby;      /* bit 67, which gnubg 1.x writes as "Jacoby off" */
};
/* Match ID (12 characters + NUL). Like gnubg, writes the higher die
 * first, and the decoder gives them back that way. */
void ref_bg_match_id(const struct ref_bg_match *m, char out[13]);
/* Decode a Match ID. Checks the syntax and the field ranges only (owner 2,
 * state > 4, a die of 7 ...); what a game accepts is the game's business.
 * Returns 0 or REF_EINVAL. */
int ref_bg_match_decode(struct ref_bg_match *m, const char *id);

/*
 * The doubling cube (section 4.3; BG-4: no automatic doubles). The cube
 * starts at 1 centred. `side` may double when the cube is centred or its
 * own and below 64, and never in a match's Crawford game; a take doubles
 * it and gives it to the taker. With the Jacoby rule (money games)
 * gammons and backgammons count only once the cube was turned. With
 * beavers (BG-9, money games) the doubled player may instead redouble at
 * once, keeping the cube: the cube goes up one step at the beaver, owned
 * by the beaver, and one more when the doubler takes it.
 */
struct ref_bg_cube {
  int8_t log2;      /* value = 1 << log2 */
  int8_t owner;     /* -1 centred, else the side owning it */
  uint8_t crawford; /* the Crawford game of a match: no double at all */
  uint8_t jacoby;   /* gammons count only after a double */
  uint8_t beavers;  /* BG-9: beavers=on, money play */
};
void ref_bg_cube_init(struct ref_bg_cube *c);
bool ref_bg_cube_may_double(const struct ref_bg_cube *c, int side);
void ref_bg_cube_take(struct ref_bg_cube *c, int taker);
int ref_bg_cube_value(const struct ref_bg_cube *c);
/* What a game won with `multiplier` (1 single, 2 gammon, 3 backgammon) is
 * worth: multiplier x the cube, the multiplier 1 under Jacoby with the
 * cube not yet turned. */
int ref_bg_cube_points(const struct ref_bg_cube *c, int multiplier);

/* The move number stops here: it is an int16_t, and Tables Chess writes it
 * in its position string and reads it back up to this, so every position
 * a game reaches decodes from its own string. */
#define REF_BG_MOVE_MAX 30000

/*
 * Where a game on this board stands (sections 4.2, 6.2, 7.2): the frame
 * the three dice games share, so that the phase checks, the roll's
 * checks, the status and the end are one piece of code. `onroll` is the
 * seat whose turn of play it is (gnubg's dice owner), `turn` the seat that
 * must act now (the taker while a double is offered; -1 when over).
 */
struct ref_bg_turn {
  uint8_t phase;       /* enum ref_phase */
  int8_t turn;
  int8_t onroll;
  uint8_t opening;     /* the one-die-each opening roll is pending (BG-1, TC-6) */
  uint8_t dice[2];     /* REF_PHASE_MOVE: the roll to play, as rolled */
  int8_t winner;       /* REF_PHASE_OVER: the winning seat, -1 a draw */
  uint8_t end;         /* enum ref_end, when over */
  int16_t points;      /* when over: what the winner scores */
  int16_t move_number; /* plays made so far + 1 (the service's #N), at most REF_BG_MOVE_MAX */
  int8_t last_seat;    /* the last play, for the board: who (-1: none yet), */
  uint8_t last_dice[2]; /* with which roll, */
  char last[64];       /* in canonical notation */
};
struct ref_err;
struct ref_status;
/* The game ends: phase over, no one to act, no dice. */
void ref_bg_turn_finish(struct ref_bg_turn *t, int winner, int end, int points);
/*
 * Dice arrive (ops->roll): REF_EPHASE (reason `not_now`, or game-over)
 * unless the cube question or the roll is due, REF_EINVAL (bg-bad-dice)
 * unless faces are two dice. A roll while the cube question is open means
 * "no double" (section 1.6). While the opening roll is due, faces[0] is
 * White's die and faces[1] Black's: a tie rolls again, else the higher
 * starts and, with `opening_plays`, plays these numbers (BG-1) or rolls
 * afresh (TC-6). Otherwise the roll is to play: REF_PHASE_MOVE.
 */
int ref_bg_turn_roll(struct ref_bg_turn *t, const int *faces, int nfaces, const char *not_now,
                     bool opening_plays, struct ref_err *err);
/* REF_OK when a play is due (REF_PHASE_MOVE), else REF_EPHASE: game-over,
 * bg-take-or-drop (a double waits for its answer) or bg-no-roll-yet. */
int ref_bg_turn_may_play(const struct ref_bg_turn *t, struct ref_err *err);
/* What a game allows besides moves (ops->act): NULL reasons allow. */
struct ref_bg_acts {
  const char *agree_refusal; /* a draw by agreement is refused with this reason */
  const char *claim_refusal; /* a draw claim is refused with this reason */
  const char *draw_detail;   /* the detail of both refusals */
  const char *no_cube;       /* without a cube: why cube actions are refused */
  const char *first_turn;    /* with a cube: why a double is refused on a first turn */
};
/* ops->status of the frame; cube NULL for a game without one. */
void ref_bg_turn_status(const struct ref_bg_turn *t, const struct ref_bg_cube *cube,
                        struct ref_status *out);
/*
 * ops->act: `seat` must be a seat and the game running. The cube actions
 * of section 4.3 (double, take, drop) on a game with a cube c (else
 * refused); resignation: the BG-5 levels 1-3 times the cube, or one point
 * without a cube; a draw by agreement or a claim as `a` allows. REF_OK
 * with the state advanced, or an error.
 */
int ref_bg_turn_act(struct ref_bg_turn *t, struct ref_bg_cube *c, int seat, int action, int arg,
                    const struct ref_bg_acts *a, struct ref_err *err);
/* The cube's invariants: a value up to 64, centred exactly at 1. */
/* BG-9: a beaver waits for the doubler's answer (the double's answer
 * phase with the doubler to act). */
bool ref_bg_turn_beavered(const struct ref_bg_turn *t);
bool ref_bg_cube_ok(const struct ref_bg_cube *c);

/* The lines under a diagram (ops->render): the last play, then who is to
 * do what, or the result; `opening` is the line while the opening roll is
 * due. Points are shown for a game with a cube. */
struct base_buf;
void ref_bg_turn_render(struct base_buf *o, const struct ref_bg_turn *t,
                        const struct ref_bg_cube *cube, const char *opening);

/* How many times the stake a finished game is worth to the winner, who has
 * borne off everything: 1 single, 2 gammon (loser has none off), 3
 * backgammon (also a loser's checker on the bar or in the winner's home
 * board, BG-3). */
int ref_bg_game_multiplier(const struct ref_bg_board *b, int winner);

#endif /* TABULA_BACKGAMMON_INT_H */
