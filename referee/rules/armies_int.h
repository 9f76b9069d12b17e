/*
 * armies_int.h: Chess with Different Armies in the rules core, shared
 * inside tabula_rules only (rules-spec.md §12).
 *
 * ONE table of the four armies (armies.c): each piece's name, its letter
 * (DA-4) and its moves in Betza's notation, each army's setup, promotion
 * and castling. A Betza reader turns the notation into leaper bitboards and
 * rider directions once per game (ref_cwda_tables_init); the board code
 * (cwda_board.c) moves pieces by those tables only, never by a piece's name.
 *
 * The board stands on chess_int.h's conventions: 64 squares a1 = 0 ... h8 =
 * 63, White = 0, moves in 16 bits (from, to, kind, promotion slot), castling
 * written as the king's move (UCI).
 */
#ifndef TABULA_ARMIES_INT_H
#define TABULA_ARMIES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
  REF_ARMY_FIDE = 0,
  REF_ARMY_CLOBBERERS = 1,
  REF_ARMY_NUTTY = 2,
  REF_ARMY_ROOKIES = 3,
  REF_ARMY_COUNT = 4
};

/* The four places of an army's pieces: the corner (the rook's place), the
 * knight's, the bishop's, the queen's. */
enum { REF_ARMY_ROOK = 0, REF_ARMY_KNIGHT = 1, REF_ARMY_BISHOP = 2, REF_ARMY_QUEEN = 3 };
#define REF_ARMY_SLOTS 4

struct ref_army_piece {
  const char *name;  /* "Charging Rook" */
  char letter;       /* upper case, unique over all armies (DA-4) */
  const char *betza; /* its moves, DA-1 (read as Fairy-Stockfish reads them) */
};

struct ref_army {
  const char *key;  /* option word: fide, clobberers, nutty, rookies */
  const char *name; /* "Fabulous FIDEs" */
  struct ref_army_piece piece[REF_ARMY_SLOTS];
  /* Long castling (DA-3): the king's and the corner piece's files. */
  uint8_t long_king_file, long_rook_file;
};

extern const struct ref_army ref_armies[REF_ARMY_COUNT];

/* The army named by key (case-insensitive; also the first letter of the
 * key or the army's whole name), or -1. */
int ref_army_find(const char *key, size_t len);

/*
 * Piece kinds of the board: pawn, king and the sixteen army pieces
 * (2 + army * 4 + slot). A mailbox code is 0 for empty, else
 * (colour << 5) | (kind + 1).
 */
enum { REF_AK_PAWN = 0, REF_AK_KING = 1 };
#define REF_AK_COUNT (2 + REF_ARMY_COUNT * REF_ARMY_SLOTS)
#define REF_AK_OF(army, slot) (2 + (army) * REF_ARMY_SLOTS + (slot))
#define REF_AK_ARMY(kind) (((kind) - 2) / REF_ARMY_SLOTS)
#define REF_AK_SLOT(kind) (((kind) - 2) % REF_ARMY_SLOTS)
#define REF_AK_CODE(color, kind) ((uint8_t)(((color) << 5) | ((kind) + 1)))
#define REF_AK_KIND(code) (((code) & 31) - 1)
#define REF_AK_COLOR(code) ((code) >> 5)

/* The letter of a kind (upper case), and the kind of a letter (either
 * case), -1 if none. */
char ref_army_kind_letter(int kind);
int ref_army_letter_kind(char c);

/* Kinds as chess_notation_int.h's piece types (DA-9): the pawn, king and
 * FIDE pieces as chess's, the other armies' pieces as their kinds (6-17,
 * REF_CN_ARMY_FIRST on). */
int ref_army_cn_type(int kind);
/* The types army a's side has, a bit per type, for ref_cn_dialect.own
 * (DA-9: pawn, king and its four pieces). */
uint32_t ref_army_cn_own(int army);

/* ---- Betza's notation ---- */

#define REF_BETZA_MAX_RAYS 16
struct ref_betza_ray {
  int8_t dr, df; /* one step: ranks forward, files to the right */
  uint8_t max;   /* at most this many steps, 0 = unlimited */
};
struct ref_betza_moves {
  uint64_t leap[64]; /* leaps (capture or not, jumping) from each square */
  int nrays;
  struct ref_betza_ray ray[REF_BETZA_MAX_RAYS];
};

/*
 * Reads a Betza string (the subset of DA-1: atoms W F D N A H K R B Q,
 * a digit after an atom for a limited range, direction modifiers f b s v l r h
 * before it, alone or in pairs as Fairy-Stockfish reads them) for a piece of
 * colour `color` (Black's forward is down the board). OUT: m. Returns false
 * (m unspecified) on anything it does not read.
 */
bool ref_betza_read(const char *betza, int color, struct ref_betza_moves *m);

/* ---- the board ---- */

#define REF_CWDA_MAX_MOVES 320
enum { REF_CWDA_MV_NORMAL = 0, REF_CWDA_MV_PROMO = 1, REF_CWDA_MV_EP = 2, REF_CWDA_MV_CASTLE = 3 };

static inline uint16_t ref_cwda_move(int from, int to, int kind, int slot)
{
  return (uint16_t)(from | (to << 6) | (kind << 12) | ((kind == REF_CWDA_MV_PROMO ? slot : 0) << 14));
}
static inline int ref_cwda_move_from(uint16_t m)
{
  return m & 63;
}
static inline int ref_cwda_move_to(uint16_t m)
{
  return (m >> 6) & 63;
}
static inline int ref_cwda_move_kind(uint16_t m)
{
  return (m >> 12) & 3;
}
static inline int ref_cwda_move_slot(uint16_t m)
{
  return m >> 14;
}

/* The moves of the armies of one game, read once from the table. */
struct ref_cwda_tables {
  uint8_t army[2];
  /* [colour][kind]: only the kinds of the two armies, the king and the
   * pawn's captures (leap) are filled. */
  struct ref_betza_moves moves[2][REF_AK_COUNT];
};

/* Reads the table for White's and Black's armies. false if a Betza string
 * does not read (a defect of the table; the unit tests read all). */
bool ref_cwda_tables_init(struct ref_cwda_tables *t, int white, int black);

struct ref_cwda_pos {
  uint64_t bb[2][REF_AK_COUNT];
  uint64_t occ[2];
  uint8_t board[64];
  uint8_t side, castle, ep, pad; /* castle: REF_CH_WK ... bits; ep as chess */
  uint32_t halfmove, fullmove;
};

/* The start position of the tables' two armies (DA-2). */
void ref_cwda_start(const struct ref_cwda_tables *t, struct ref_cwda_pos *p);
/* FEN with the letters of DA-4; a piece must belong to its side's army.
 * REF_EINVAL with a reason key on failure. */
int ref_cwda_fen_read(const struct ref_cwda_tables *t, struct ref_cwda_pos *p, const char *fen,
                      const char **reason);
/* The armies a FEN's letters show (army[c] -1 where side c has only king
 * and pawns); REF_EINVAL with "da-fen-army" when a side shows two. */
int ref_cwda_fen_armies(const char *fen, int army[2], const char **reason);
int ref_cwda_fen_write(const struct ref_cwda_pos *p, char *buf, size_t cap);

bool ref_cwda_attacked(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, int sq, int by);
bool ref_cwda_in_check(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p);
/* The moves by the pieces' rules, before the test for the own king
 * (castling is listed legal only). Returns the count. */
int ref_cwda_gen_pseudo(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p,
                        uint16_t *moves);
/* Legal moves (DA-3 castling, DA-5 promotion, DA-6 e.p.). OUT: moves, room
 * for REF_CWDA_MAX_MOVES. Returns the count. */
int ref_cwda_gen_legal(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p,
                       uint16_t *moves);
void ref_cwda_make(const struct ref_cwda_tables *t, struct ref_cwda_pos *p, uint16_t m);
uint64_t ref_cwda_perft(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, int depth);
/* Move m of p as chess_notation.c sees it (types of ref_army_cn_type;
 * castling named also by the king's squares, e1g1 and e1b1). */
struct ref_cn_move;
void ref_cwda_describe(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t m,
                       struct ref_cn_move *out);
/* SAN of legal move m (DA-4 letters): Jd3, Dxb4, e8=C, O-O-O, Lf7#.
 * REF_EINVAL if cap is too small. */
int ref_cwda_san(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t m,
                 char *buf, size_t cap);
/* UCI: e2e4, e1g1 / e1c1 / e1b1 castling, e7e8c promotion (lower-case letter). */
int ref_cwda_uci(const struct ref_cwda_tables *t, const struct ref_cwda_pos *p, uint16_t m,
                 char *buf, size_t cap);

#endif
