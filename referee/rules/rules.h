/*
 * rules.h: the game interface of tabula's rules core (library tabula_rules).
 *
 * Every game system is one file in referee/rules/ that defines one const
 * descriptor (struct ref_game_desc) and one const operations table
 * (struct ref_game_ops). The registry (registry.c) finds them by name.
 *
 * The core is pure: no I/O, no clock, no randomness, no globals that change.
 * Dice come in as events (ops->roll), cube decisions, resignations and draw
 * agreements as actions (ops->act), so a whole game replays bit for bit from
 * its journal. Rule IDs (CH-2, BG-6, ...) refer to shared rules-spec.md as
 * copied into docs/ by the project.
 *
 * States are plain old data: a state is desc->state_size bytes, owned by the
 * caller, copied with memcpy and never holding a pointer. This lets the
 * service keep undo copies and lets perft recurse on the stack.
 *
 * Errors (three tiers, see docs/architecture.md): expected failures return a
 * negative enum ref_code and fill a caller-provided struct ref_err; broken
 * invariants abort through assert.
 */
#ifndef TABULA_RULES_H
#define TABULA_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum ref_code {
  REF_OK = 0,
  REF_EPARSE = -1,     /* not readable as a move of this game */
  REF_EILLEGAL = -2,   /* readable, but not legal in this position */
  REF_EAMBIGUOUS = -3, /* matches more than one legal move */
  REF_EPHASE = -4,     /* not now: a move while dice are awaited, a take with no double */
  REF_EINVAL = -5,     /* malformed position string, unknown option, buffer too small */
  REF_ENOMEM = -6
};

/* Nearest legal moves offered back to a player whose input was refused. */
#define REF_SUGGEST_MAX 12
#define REF_NOTATION_MAX 64

/*
 * What went wrong, for the player. `reason` is a stable key
 * ("no-such-piece", "king-in-check", "promotion-piece-missing", ...) that
 * templates/reasons.txt words; the rules core never writes sentences.
 * `detail` is an optional argument for that sentence (a square, a piece).
 */
struct ref_err {
  enum ref_code code;
  char reason[48];
  char detail[96];
  int nsuggest;
  char suggest[REF_SUGGEST_MAX][REF_NOTATION_MAX];
};

/*
 * One move: a whole turn's worth of input for the game (a chess move; a
 * backgammon play of up to four checker moves; a Doublemove pair). The words
 * mean what the game that made it says; the service never looks inside.
 */
#define REF_MOVE_WORDS 16
struct ref_move {
  uint32_t w[REF_MOVE_WORDS];
};

/* A growable list of moves; free with ref_movelist_free. */
struct ref_movelist {
  size_t n, cap;
  struct ref_move *v;
};

int ref_movelist_push(struct ref_movelist *list, const struct ref_move *m);
void ref_movelist_clear(struct ref_movelist *list);
void ref_movelist_free(struct ref_movelist *list);

/* What the game waits for. */
enum ref_phase {
  REF_PHASE_MOVE,       /* seat `turn` must move (its dice, if any, are rolled) */
  REF_PHASE_CUBE,       /* seat `turn` may double, or roll (cube games, before the roll) */
  REF_PHASE_ROLL,       /* dice needed now: the service rolls `need_faces` and calls ops->roll */
  REF_PHASE_CUBE_REPLY, /* seat `turn` must take or drop the double just offered */
  REF_PHASE_OVER
};

/* Why a game ended. Names for templates: ref_end_name(). */
enum ref_end {
  REF_END_NONE,
  REF_END_CHECKMATE,
  REF_END_STALEMATE,
  REF_END_RESIGNATION,
  REF_END_AGREEMENT,
  REF_END_THREEFOLD,    /* claimed (CH-2) */
  REF_END_FIFTY_MOVES,  /* claimed (CH-2) */
  REF_END_FIVEFOLD,     /* automatic (CH-2) */
  REF_END_SEVENTY_FIVE, /* automatic (CH-2) */
  REF_END_DEAD_POSITION,/* automatic (CH-2) */
  REF_END_NO_MOVES,     /* checkers: the side to move cannot move */
  REF_END_BORNE_OFF,    /* backgammon family: all checkers off */
  REF_END_CUBE_DROPPED,
  REF_END_REPETITION,   /* checkers CK-2, automatic */
  REF_END_FORTY_MOVES,  /* checkers CK-2, automatic */
  REF_END_TIME,         /* service: loss on time */
  REF_END_ADJUDICATED,  /* service: the operator decided */
  REF_END_SAME_MOVE_NUMBER, /* Chessgammon CG-10: both finished in one move number, a draw */
  REF_END_KING_HOME,    /* Tables Chess TC-9: a king landed on its last point */
  REF_END_LAST
};
const char *ref_end_name(enum ref_end end);

struct ref_status {
  enum ref_phase phase;
  int turn;            /* seat to act (0-based), -1 when over */
  int need_faces;      /* with REF_PHASE_ROLL: how many dice faces */
  int winner;          /* with REF_PHASE_OVER: winning seat, or -1 for a draw */
  enum ref_end end;    /* with REF_PHASE_OVER */
  int points;          /* with REF_PHASE_OVER: points won (cube x gammon factor; 1 in chess) */
  int move_number;     /* the game's own move number (chess: the FEN fullmove number) */
  bool in_check;
  bool draw_claimable; /* a claim (threefold, fifty moves) would succeed now */
  int cube;            /* cube value, 0 when the game has no cube */
  int cube_owner;      /* seat owning the cube, -1 when centred */
  int dice[4];         /* faces of the current roll, ndice of them */
  int ndice;
  bool opening;        /* the one-die-each opening roll is due (BG-1, TC-6); set by the
                        * games that have one, so a reader clears the struct first */
};

/* Actions that are not moves. Each is journaled like a move. */
enum ref_action {
  REF_ACT_DOUBLE,      /* arg unused */
  REF_ACT_TAKE,
  REF_ACT_DROP,
  REF_ACT_RESIGN,      /* arg: level (1 single, 2 gammon, 3 backgammon; 1 in chess) */
  REF_ACT_DRAW_AGREED, /* both sides agreed (the service negotiated the offer) */
  REF_ACT_DRAW_CLAIM,  /* claim by seat: threefold or fifty moves (CH-2) */
  REF_ACT_LAST
};

/* Styles for ops->format. */
enum ref_notation {
  REF_NOTATION_CANONICAL, /* what replies print: SAN, gnubg's notation, 11-15 */
  REF_NOTATION_COMPUTER   /* what oracles print: UCI for chess, as the game's docs say */
};

struct ref_state; /* incomplete on purpose: each game casts to its own struct */

/*
 * The board as data, for drawing: ops->diagram fills one of
 * these and the service draws it (HTML mails, the web view); the rules
 * core never writes markup or words. Grid boards (the chess family,
 * checkers, Back-to-Back's 14 files with holes and a barrier) and 24-point
 * boards (the backgammon family); Backgammon Chess has both.
 *
 * Coordinates are absolute. Grid: cell[rank][file], rank 0 the first
 * seat's back rank (White's rank 1; checkers: the row of squares 29-32),
 * file 0 the left file from that seat's side ("a"). Points: point[i] is
 * point i + 1 counted by the first seat (its home board is 1-6). `flip`
 * is the game's answer to "whose side is the reader at": set, the reader
 * sits at the other end (rank 0 drawn at the top, file 0 at the right,
 * the second seat's point numbers outside).
 */
#define REF_DIAG_FILES 14
#define REF_DIAG_RANKS 8
#define REF_DIAG_SHOW 5 /* pieces listed in one cell or on one point; more are counted */

enum ref_diag_kind {
  REF_DIAG_NONE,
  REF_DIAG_KING, REF_DIAG_QUEEN, REF_DIAG_ROOK, REF_DIAG_BISHOP, REF_DIAG_KNIGHT,
  REF_DIAG_PAWN,
  REF_DIAG_MAN,     /* a draughts man, a Backgammon Chess stone */
  REF_DIAG_CROWNED, /* a draughts king, a doubled stone */
  REF_DIAG_CHECKER, /* a backgammon checker */
  REF_DIAG_LETTERED /* a piece with no figurine (the armies' pieces, DA-4): its letter */
};

struct ref_diag_piece {
  uint8_t kind; /* enum ref_diag_kind */
  uint8_t dark; /* 0 the light pieces (White), 1 the dark ones (Black) */
  char letter;  /* REF_DIAG_LETTERED: its upper-case letter */
};

#define REF_DIAG_FROM 0x1u /* the last move left here */
#define REF_DIAG_TO 0x2u   /* the last move arrived here */

/* What stands in one place: n pieces, the first min(n, REF_DIAG_SHOW)
 * listed bottom first (a backgammon point lists its checkers; a stack of
 * 4x8 Chessgammon its pieces). */
struct ref_diag_stack {
  uint16_t n;
  uint8_t mark; /* REF_DIAG_FROM | REF_DIAG_TO */
  struct ref_diag_piece p[REF_DIAG_SHOW];
};

struct ref_diag_cell {
  uint8_t exists; /* 0: no square here (Back-to-Back's holes) */
  uint8_t dark;   /* the square's colour */
  char label[4];  /* printed in an empty square: checkers' square number */
  struct ref_diag_stack s;
};

struct ref_diagram {
  bool flip;
  bool has_grid, has_points;
  int files, ranks;
  int barrier; /* a wall between rank barrier - 1 and rank barrier (Back-to-Back: 4); 0 none */
  int barrier_lo, barrier_hi; /* the files it runs along, inclusive */
  char file_label[REF_DIAG_FILES][3];
  char rank_label[REF_DIAG_RANKS][3];
  struct ref_diag_cell cell[REF_DIAG_RANKS][REF_DIAG_FILES];
  struct ref_diag_stack point[24];
  /* Off the board, by colour (0 light, 1 dark): the bar (checkers or, in
   * the Chessgammon family, pieces waiting to come back), what is borne
   * off (off_of > 0: out of so many, the Chessgammon family's 16) and
   * Backgammon Chess's jail (BC-6). */
  struct ref_diag_stack bar[2], off[2];
  int off_of;
  int jail[2];
  int cube;       /* 0: no cube */
  int cube_owner; /* colour owning it, -1 centred */
  int dice[4], ndice;
  /* What the lettered pieces are, a line for each colour (0 light, 1
   * dark) when it has any: "Colorbound Clobberers: D Bede, W Waffle, ..."
   * (the game's table of pieces; empty otherwise). */
  char legend[2][96];
};

/*
 * The operations of one game system. Unless said otherwise a slot returns
 * REF_OK or a negative enum ref_code and, given a non-NULL err, fills it.
 * Slots marked "may be NULL" have the default named.
 */
struct ref_game_ops {
  /* The start position. `options` is "key=value;key=value" or NULL; unknown
   * keys are REF_EINVAL. Chess knows fide_draws=on|off and fen=FEN. */
  int (*init)(struct ref_state *s, const char *options, struct ref_err *err);
  /* Set up from the game's position string (FEN, Position ID + Match ID,
   * PDN). Validates fully: the text may come from a mail. */
  int (*decode)(struct ref_state *s, const char *text, struct ref_err *err);
  /* Write the position string into buf (NUL-terminated). */
  int (*encode)(const struct ref_state *s, char *buf, size_t cap);
  /* Every legal move in this position, appended to out, in a stable order. */
  int (*legal)(const struct ref_state *s, struct ref_movelist *out);
  /* Read one turn of player input (tolerant: rules-spec.md §1). On
   * REF_EPARSE/REF_EILLEGAL/REF_EAMBIGUOUS, err->suggest holds the nearest
   * legal moves in canonical notation. */
  int (*parse)(const struct ref_state *s, const char *text, struct ref_move *out,
               struct ref_err *err);
  /* Notation of m, which must be legal in s (the position before it). */
  int (*format)(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                char *buf, size_t cap);
  /* Play m, which must be legal (from legal or parse). Updates the result. */
  int (*apply)(struct ref_state *s, const struct ref_move *m);
  /* Give the dice asked for by REF_PHASE_ROLL. May be NULL (diceless). */
  int (*roll)(struct ref_state *s, const int *faces, int nfaces, struct ref_err *err);
  /* A cube decision, resignation or draw by `seat`. */
  int (*act)(struct ref_state *s, int seat, enum ref_action action, int arg,
             struct ref_err *err);
  void (*status)(const struct ref_state *s, struct ref_status *out);
  /* ASCII board from `seat`'s side, at most 72 columns, last move marked. */
  int (*render)(const struct ref_state *s, int seat, char *buf, size_t cap);
  /* Leaf count of the legal-move tree. May be NULL: ref_perft walks
   * legal/apply generically. */
  uint64_t (*perft)(const struct ref_state *s, int depth);
  /* Invariant checker: recomputes every redundant field. May be NULL. */
  bool (*ok)(const struct ref_state *s);
  /* The board as data from `seat`'s side, the last move marked.
   * May be NULL: the service then shows the ASCII board of render. */
  int (*diagram)(const struct ref_state *s, int seat, struct ref_diagram *out);
};

/* Flags of a game system. */
#define REF_GAME_DICE 0x1u  /* rolls dice (REF_PHASE_ROLL occurs) */
#define REF_GAME_CUBE 0x2u  /* has a doubling cube */
#define REF_GAME_DRAWS 0x4u /* draws exist (offer/accept make sense) */
/* The state holds a pointer, valid within one process: its bytes are never
 * stored, so the service keeps no snapshot of it and replays the journal.
 * No game sets it now: the Chessgammon family keeps its
 * variant's number (chessgammon_variants.c). */
#define REF_GAME_LOCAL_STATE 0x8u

struct ref_game_desc {
  const char *name;  /* registry key, lower case: "chess" */
  const char *title; /* "Chess" */
  int version;       /* rules version: bump when any ruling changes */
  int seats;
  const char *seat_names[4]; /* seat 0 moves first: "White", "Black" */
  unsigned flags;
  size_t state_size;
  const struct ref_game_ops *ops;
};

/* The registry. */
const struct ref_game_desc *ref_game_find(const char *name);
const struct ref_game_desc *ref_game_at(size_t i); /* NULL past the end */

/* Helpers over any game. */
struct ref_state *ref_state_new(const struct ref_game_desc *g); /* zeroed; free() it */
struct ref_state *ref_state_dup(const struct ref_game_desc *g, const struct ref_state *s);
/* Leaf count of the legal-move tree; 0 (depth > 0) for a game already
 * over, which lists no move (G-1). ref_perft_below counts a position
 * reached below the root: there a game's own perft counts its generator's
 * moves even where the rules call the game over (G-1); `divide` uses it for
 * each root move's subtree. */
uint64_t ref_perft(const struct ref_game_desc *g, const struct ref_state *s, int depth);
uint64_t ref_perft_below(const struct ref_game_desc *g, const struct ref_state *s, int depth);
void ref_err_set(struct ref_err *err, enum ref_code code, const char *reason,
                 const char *detail);
/* Chess with Different Armies (game "cwda", rules-spec §12): the names of
 * the armies of a position string (its letters, DA-4; "Fabulous FIDEs"
 * for a side with king and pawns only), for records such as PGN's tags.
 * false when the text is no such position. */
bool ref_cwda_army_names(const char *fen, const char **white, const char **black);

/*
 * The actions of a two-player game with no cube and no dice (chess and the
 * games built on its rules, CH-2): resignation, an agreed draw, or a draw
 * claim. `claim` is the end a claim would give now (REF_END_THREEFOLD,
 * REF_END_FIFTY_MOVES) or REF_END_NONE, refused with `no_claim` as reason.
 * On REF_OK *winner and *end say how the game ends; the caller ends it.
 */
int ref_plain_act(int seat, enum ref_action action, bool over, enum ref_end claim,
                  const char *no_claim, int *winner, enum ref_end *end, struct ref_err *err);

#endif /* TABULA_RULES_H */
