/*
 * chess_notation_int.h: reading chess-like moves, private to the rules
 * core (not part of rules.h).
 *
 * Chess (section 2.4), Back-to-Back Chess (8.4), the Chessgammon family
 * (5.1, 5.3) and the chess half of Backgammon Chess (6.5) read a player's
 * move the same way: the section 1.1 cleaning (move numbers, glyphs, check
 * marks, "e.p." and figurines), SAN or long algebraic or computer
 * notation, "Kt"/"Kn" for the knight, capitals that may be files, and the
 * seeds' bar (`Qd0-d1`, `Q@d1`) and bear-off (`Bh6-e9`, `Bh6-off`)
 * notations. The move is then matched against the legal moves, and
 * accepted only when exactly one fits (section 1.4: nothing is guessed).
 *
 * The game's board is its own (the bitboards of chess_int.h, the geometry
 * engine of board_geometry_int.h, the stacks of the 4x8 game): a game
 * describes each legal move as a struct ref_cn_move, which is all this
 * module looks at, and gives its canonical text and the rules' reasons for
 * a move that matches nothing legal.
 *
 * Files and ranks are as written: file 0 = a, rank 1 = the first rank;
 * rank 0 is the Chessgammon bar and rank 9 the imaginary rank beyond the
 * board (section 5.1).
 */
#ifndef TABULA_CHESS_NOTATION_INT_H
#define TABULA_CHESS_NOTATION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "rules.h"

/* Piece types as the chess core numbers them (chess_int.h, REF_CH_*). */
enum { REF_CN_PAWN, REF_CN_KNIGHT, REF_CN_BISHOP, REF_CN_ROOK, REF_CN_QUEEN, REF_CN_KING };
/* The pieces of Chess with Different Armies' other three armies (§12,
 * DA-4) follow as types 6-17, numbered as armies_int.h numbers its kinds
 * (ref_army_cn_type): D W F A, G I J L, S Y H C. The FIDE army's pieces
 * are the chess types above. */
#define REF_CN_ARMY_FIRST 6
#define REF_CN_TYPES 18
#define REF_CN_ANY (-1)   /* a full origin square written without a letter: any piece */
#define REF_CN_UNSET (-2) /* no letter read (yet) */

/* One legal move as notation sees it. */
enum { REF_CN_NORMAL, REF_CN_CASTLE, REF_CN_DROP, REF_CN_OFF, REF_CN_PASS };
struct ref_cn_move {
  uint8_t kind;
  int8_t piece;       /* the type moved; brought in for a drop */
  int8_t ff, fr;      /* origin file and rank (a drop: none, -1 0) */
  int8_t tf, tr;      /* destination; a bear-off: the file of rank 9 */
  int8_t promo;       /* promotion type, or -1 */
  uint8_t capture;    /* it takes something (e.p., a stone too) */
  uint8_t castle;     /* REF_CN_CASTLE: 1 king side, 2 queen side */
  uint8_t by_squares; /* REF_CN_CASTLE: the king's squares name it too (BB-D4) */
};

/* One reading of what was written. */
struct ref_cn_pattern {
  int castle;   /* 1 for O-O, 2 for O-O-O, else 0 */
  int piece;    /* a type, REF_CN_ANY or REF_CN_UNSET */
  int ff, fr;   /* origin file and rank as written, -1 when not */
  int tf, tr;   /* destination (tf -1: "off" without a file) */
  int promo;    /* promotion type written, -1 */
  bool capture; /* x : * written */
  bool drop;    /* from the bar: @, rank 0, or a bare * after the letter */
  bool star;    /* that * could also be a capture mark (section 1.2) */
};

/* How a game writes moves. */
struct ref_cn_dialect {
  int files;         /* 8, or 14 (a-n) on Back-to-Back's board */
  int ranks;         /* 8 */
  bool chessgammon;  /* ranks 0 and 9, `off`, `@`, `*` drops; castling and promotion refused */
  bool long_form;    /* the canonical form is long algebraic (a promotion's detail e7-e8) */
  bool letterless_pawn; /* 4x8 stacks: a letterless long move out of a stack is the pawn's */
  const char *one_move; /* reason for "a,b" (two moves where one is due), or NULL */
  /* DA-9: the piece types the mover's army has, a bit per type (pawn and
   * king always read). 0: the six of chess only, the other armies'
   * letters unread. With a mask, an upper-case letter of the mover's army
   * is its piece (and also a file when nothing is lower case, as B in
   * §1.3); a letter that is a file and names no piece of that army is
   * the file only; any other army letter reads as that piece, which
   * matches no move (the game's explain says why). */
  uint32_t own;
};

/*
 * What a game gives the reader (a const table per game): its dialect, how
 * one of its legal moves looks to notation (moves are the game's own
 * 32-bit words, of the position ctx), their canonical text, and the rules'
 * explanation of a readable move that matches nothing legal.
 */
struct ref_cn_game;
struct ref_cn_rules {
  const struct ref_cn_dialect *d;
  void (*describe)(const void *ctx, uint32_t m, struct ref_cn_move *out);
  void (*format)(const void *ctx, uint32_t m, char *buf, size_t cap);
  /* REF_EILLEGAL with err's reason and detail (ref_cn_refuse), for the
   * readings pats[0..npat-1] of the cleaned text `in`; NULL: no-such-move. */
  int (*explain)(const struct ref_cn_game *g, const struct ref_cn_pattern *pats, int npat,
                 const char *in, struct ref_err *err);
};

/* One position's legal moves while a move is read. */
struct ref_cn_game {
  const struct ref_cn_rules *r;
  const void *ctx;
  const uint32_t *moves;
  const struct ref_cn_move *v; /* v[i] describes moves[i] */
  int n;
};

/*
 * Section 1.1: strips surrounding blanks and punctuation, a move number
 * ("12." "12..."), annotation glyphs, check marks (+ # ch) and "e.p.";
 * figurines (the chess symbols U+2654-265F, ♘ for N) become the letters
 * they show. OUT: out, the move proper; *figurine when its piece was
 * shown by one (the letter is then a piece, never a file). False when
 * nothing is left, it is too long, or a blank is left inside.
 */
bool ref_cn_clean(const char *text, char *out, size_t cap, bool *figurine);

/* A figurine at text (U+2654-265F, white or black: the piece it shows,
 * whoever writes it): its bytes (3, or 6 with an emoji variation
 * selector), *letter the upper-case piece letter; 0 for anything else. */
int ref_cn_figurine(const char *text, char *letter);

/* O-O / 0-0 / o-o and the long forms: 1 king side, 2 queen side, else 0. */
int ref_cn_castle_kind(const char *s);

/*
 * ops->parse over the legal moves[0..n-1] of the position ctx: REF_EPHASE
 * (game-over) when `over`; REF_OK with out->w[0] the move read; or the
 * refusal with err filled (reason, detail, the nearest moves). With a
 * Chessgammon dialect a pass word ("--", "pass", "0000") reads as the
 * pass (a REF_CN_PASS move), and is refused while other moves exist.
 */
int ref_cn_parse(const struct ref_cn_rules *r, const void *ctx, bool over, const uint32_t *moves,
                 int n, const char *text, struct ref_move *out, struct ref_err *err);

/* Sets err to code, reason, detail, with the legal moves nearest to pt
 * (NULL: the first ones) as suggestions (section 1.4). Returns code. */
int ref_cn_refuse(const struct ref_cn_game *g, enum ref_code code, const char *reason,
                  const char *detail, const struct ref_cn_pattern *pt, struct ref_err *err);

/* Does move m fit pattern pt: fully, or (fully false) at least but for a
 * promotion piece or a capture mark? For explanations over other lists. */
bool ref_cn_fits(const struct ref_cn_pattern *pt, const struct ref_cn_move *m, bool fully);

/*
 * Section 5.1's long form of move m, Betza's: the piece letter (none for a
 * pawn), the origin, ':' for a capture or '-', the destination; a
 * bring-in from rank 0 (`Qd0-d1`, `h0-h7`), a bear-off to rank 9
 * (`Bh6-e9`), the pass "--". The computer form: e2e4, P@h7, h6e9, 0000;
 * with `letters` every computer move starts with its piece's letter (the
 * 4x8 stacks need it). REF_EINVAL when buf is too small.
 */
int ref_cn_write_betza(const struct ref_cn_move *m, bool computer, bool letters, char *buf,
                       size_t cap);

/* The letter of piece type t (REF_CN_PAWN ... REF_CN_TYPES - 1): P N B R
 * Q K, then the armies' letters (DA-4); '?' for anything else. */
char ref_cn_letter(int t);

/* "e4" for file 4, rank 4 (files a-n, rank as written). */
void ref_cn_square(int file, int rank, char out[3]);

#endif /* TABULA_CHESS_NOTATION_INT_H */
