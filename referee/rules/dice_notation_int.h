/*
 * dice_notation_int.h: reading point-to-point dice plays, private to the
 * rules core (not part of rules.h).
 *
 * Backgammon (gnubg's `13/7 8/7`, `bar/22`, `6/off`, section 4.4) and
 * Tables Chess (`K1/3 P1/2`, `R7/13*`, `Nbar/5`, section 7.6) write a turn
 * the same way: a route per piece from point to point, `*` for a hit,
 * `(n)` for repeats, any order (BG-6). Backgammon Chess reads its
 * backgammon half through backgammon's reader. One reader serves them all:
 *
 *   ref_dn_read     the tolerant text reader (sections 1.1-1.3), in the
 *                   game's syntax: with or without piece names, which
 *                   numbers it writes;
 *   ref_dn_parse    the whole of ops->parse once the game has listed its
 *                   legal plays: the pass words, reading, the match of the
 *                   written routes against the legal list in every order
 *                   and with every assignment of the dice (BG-6), the hit
 *                   marks that choose between two routes, the refusal with
 *                   the most telling reason, and the nearest plays.
 *
 * The board is the game's: the reader sees it only through struct
 * ref_dn_board (a step, applying it, finding a resulting board in the
 * legal list). Points are in the mover's backgammon numbering everywhere
 * ("q"): 25 the bar, 0 off, a forward step lowers q (backgammon_int.h).
 * Tables Chess writes its own point p as q = 25 - p (tables_chess_int.h).
 */
#ifndef TABULA_DICE_NOTATION_INT_H
#define TABULA_DICE_NOTATION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backgammon_int.h"
#include "rules.h"

#define REF_DN_BAR 25
#define REF_DN_OFF 0
#define REF_DN_ROUTES 4  /* one route a die */
#define REF_DN_BOARD_MAX 512

/* Refusal codes of the matcher beyond a game's own step codes (which run
 * from 1; 0 is a legal step). */
enum { REF_DN_WHY_DICE = 100, REF_DN_WHY_NONE = 101 };

/* One piece's route as written: waypoints pt[0] (start) .. pt[npt - 1]
 * (end); a chained `24/18/13` fixes 18. `type` is the piece named, or -1. */
struct ref_dn_route {
  int type;
  int pt[6];
  int npt;
};

struct ref_dn_input {
  struct ref_dn_route r[REF_DN_ROUTES];
  int nr;
  int stars; /* hit marks written */
};

/* A game's way of writing plays. */
struct ref_dn_syntax {
  /* Piece words ("k", "king", "kt", ...) and the type each names; NULL
   * when the game has one kind of piece (backgammon). With piece words the
   * game numbers its track 1-24 in its own numbering, 0 or `bar` the bar
   * as a source only, and "off" is refused with off_reason (TC-10);
   * without, points are 0-25 as gnubg writes them, `bar`/`b`, `off`/`o`,
   * and every route must run forward. */
  const struct ref_dn_word {
    const char *word;
    int type;
  } *words;
  int nwords;
  const char *off_reason;
};

/* The board as the matcher needs it; b points to the game's board. */
struct ref_dn_board {
  size_t size; /* bytes, at most REF_DN_BOARD_MAX */
  int ntypes;  /* piece types (1: checkers) */
  bool (*has)(const void *b, int side, int q, int type);
  bool (*any)(const void *b, int side, int q);
  /* A step of side's piece of type from `from` by die, forward (dir > 0)
   * or backward; 0 and *to, or the game's refusal code. */
  int (*step)(const void *b, int side, int type, int from, int die, int dir, int *to);
  /* Plays a legal step; true when it hit. */
  bool (*apply)(void *b, int side, int type, int from, int to);
  /* Index in the game's legal list of the play that reaches b, or -1. */
  long (*find)(const void *legal, const void *b);
  /* May be NULL. The turn is over at b (Tables Chess: the king home,
   * TC-9a): no further step. */
  bool (*finished)(const void *b, int side);
  /* May be NULL. Why a complete play may not end at b (TC-4), or NULL. */
  const char *(*end_refusal)(const void *b, int side);
  /* rank[code]: which refusal tells most, among the game's codes. */
  const int *rank;
  unsigned landing_codes; /* bit per code reported at the landing point */
};

/* A roll's legal plays as the shared code reads them. */
struct ref_dn_plays {
  const struct ref_bg_play *v;
  size_t n;
  int max_dice; /* dice every legal play uses (must-play) */
};

/*
 * One dice game on a backgammon board, as the shared code needs it: a
 * const table per game. The game's state holds its board at board_at and
 * a struct ref_bg_turn at turn_at; its list of legal plays is its own.
 */
struct ref_dn_rules {
  uint32_t tag; /* the high half of ref_move.w[0] in this game's moves */
  const struct ref_dn_syntax *syntax;
  const struct ref_dn_board *board;
  size_t board_at, turn_at;
  uint8_t lowest;    /* the lowest point a step lands on: 0 (off) or 1 (TC-10) */
  bool forward_only; /* every step lowers q (backgammon) */
  bool plays_win;    /* a play may end the game (TC-9a: `won`) */
  size_t list_size;  /* bytes of the game's list of plays (zeroed before use) */
  /* The legal plays of side's roll d1, d2 into list; their view. */
  int (*plays)(const void *board, int side, int d1, int d2, void *list,
               struct ref_dn_plays *view);
  void (*release)(void *list);
  /* The canonical text of play p by side on board (the board before it);
   * < 0 when it does not fit. */
  int (*format)(const void *board, int side, const struct ref_bg_play *p, char *buf, size_t cap);
  /* The reason and detail of a readable play that reaches no legal play:
   * `why` is the deepest refusal (a game code, REF_DN_WHY_DICE or
   * REF_DN_WHY_NONE), at the point and type it happened with. */
  void (*explain)(const struct ref_dn_input *in, const int dice[2], int why, int at, int type,
                  const char **reason, char *detail, size_t cap);
  int suggest_max; /* nearest plays offered with a refusal */
};

/* Reads text in the syntax. REF_OK; REF_EPARSE for text that is no list
 * of routes; REF_EILLEGAL with *reason for readable nonsense (a backward
 * backgammon route, more routes than dice, "off" in Tables Chess). */
int ref_dn_read(const char *text, const struct ref_dn_syntax *sx, struct ref_dn_input *in,
                const char **reason);

/* Does the written input fit the roll at all, board aside? Each route's
 * waypoints must be hit exactly by some of the dice (off may be
 * overshot). Backgammon's "your dice do not fit", whatever else is in the
 * way. */
bool ref_dn_dice_fit(const struct ref_dn_input *in, const int dice[2]);

/* Is text a pass ("--", "pass", "no move")? */
bool ref_dn_is_pass(const char *text);

/* ---- the ops of a dice game (rules.h), over the rules table ---- */

/* A play as a ref_move, and back: REF_EINVAL when m is not a play of
 * this game's shape (the tag, at most four steps, points on the board). */
void ref_dn_move(const struct ref_dn_rules *r, const struct ref_bg_play *p, struct ref_move *m);
int ref_dn_play(const struct ref_dn_rules *r, const struct ref_move *m, struct ref_bg_play *p);
/* ops->legal: REF_EPHASE unless a play is due; every legal play. */
int ref_dn_legal(const struct ref_dn_rules *r, const struct ref_state *s,
                 struct ref_movelist *out);
/* ops->parse (section 1, BG-6): a play of the roll, or the refusal with
 * the most telling reason and the nearest plays. */
int ref_dn_parse(const struct ref_dn_rules *r, const struct ref_state *s, const char *text,
                 struct ref_move *out, struct ref_err *err);
/* ops->format: the canonical text (one notation for players and programs
 * alike: gnubg's, section 7.6's). */
int ref_dn_format(const struct ref_dn_rules *r, const struct ref_state *s,
                  const struct ref_move *m, char *buf, size_t cap);
/*
 * The first half of ops->apply: the play must be due and fit the roll,
 * each step legal with a die of its own (must-play is legal()'s business;
 * a journal replayed after a rules change must fail loudly), and end where
 * the game allows. On REF_OK the board is the board after it, the play is
 * recorded as the last one, the move number counts it, and *p is the play;
 * the game then judges the end. REF_EPHASE or REF_EILLEGAL.
 */
int ref_dn_apply(const struct ref_dn_rules *r, struct ref_state *s, const struct ref_move *m,
                 struct ref_bg_play *p);

#endif /* TABULA_DICE_NOTATION_INT_H */
