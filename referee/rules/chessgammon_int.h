/*
 * chessgammon_int.h: the Diceless Chessgammon machinery (chessgammon.c)
 * shared with the 8x8 variants of rules-spec.md §5 (Doublemove, Racing
 * Kings, Hans Bodlaender's), inside tabula_rules only.
 *
 * The board is the chess core's (chess_int.h): bitboards, mailbox, Zobrist
 * key, and its pseudo-legal generator for the piece moves (§5.2 rule 1:
 * "standard chess rules apply"). What Chessgammon adds lives here: the two
 * bars, the borne-off counts, bringing in (from rank 0), bearing off (to
 * rank 9), the bar restriction (CG-4), passes, and the same-move-number end
 * (CG-10).
 *
 * A turn is one or more "halves" (single moves): one in Chessgammon, two in
 * Doublemove (DM-1). A half is a 32-bit word: from (bits 0-5), to (6-11;
 * for a bear-off the target file 0-7), kind (12-15), piece type (16-18, for
 * a bring-in). A struct ref_move holds the halves of one turn in w[0],
 * w[1]; the pass is one CG_K_PASS half. No half encodes as 0.
 */
#ifndef TABULA_CHESSGAMMON_INT_H
#define TABULA_CHESSGAMMON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "armies_int.h"
#include "chess_int.h"
#include "game_end_int.h"
#include "rules.h"

enum {
  REF_CG_K_NORMAL = 1, /* a chess move on the board, capture or not */
  REF_CG_K_EP = 2,     /* en passant (CG-9) */
  REF_CG_K_DROP = 3,   /* bringing in from the bar (rule 6) */
  REF_CG_K_OFF = 4,    /* bearing off to rank 9 (CG-2) */
  REF_CG_K_PASS = 5    /* no legal move: the turn passes (rule 8) */
};

static inline uint32_t ref_cg_half(int kind, int from, int to, int type)
{
  return (uint32_t)from | ((uint32_t)to << 6) | ((uint32_t)kind << 12) | ((uint32_t)type << 16);
}
static inline int ref_cg_half_from(uint32_t h)
{
  return (int)(h & 63);
}
static inline int ref_cg_half_to(uint32_t h)
{
  return (int)((h >> 6) & 63);
}
static inline int ref_cg_half_kind(uint32_t h)
{
  return (int)((h >> 12) & 15);
}
static inline int ref_cg_half_type(uint32_t h)
{
  return (int)((h >> 16) & 7);
}

/* Most single moves of one side: the chess pseudo-legal bound, plus bear-
 * offs (16 pieces x 3 files) and bring-ins (16 squares). */
#define REF_CG_MAX_HALVES 400

/* Variant identities, stored in the state beside the variant's rule table. */
enum {
  REF_CG_PLAIN = 0,
  REF_CG_DOUBLEMOVE = 1,
  REF_CG_RACING_KINGS = 2,
  REF_CG_BODLAENDER = 3,
  REF_CG_VARIANTS
};

struct ref_cg_state;

/* What one variant changes in the shared rules: its rule hooks. */
struct ref_cg_rules {
  int id;
  int halves_per_turn; /* 2 in Doublemove (DM-1) */
  bool bar;            /* false in Bodlaender's: captured pieces count as off (HB-1) */
  /* RK-2: may this position stand after a half (the state's armies, CGA-4)?
   * NULL: any. */
  bool (*position_ok)(const struct ref_cg_state *st, const struct ref_chess_pos *p);
  /* Option keys beyond fen= and fifty_moves= (DM-2 balanced_start). */
  bool balanced_option;
};

/* The tables live in chessgammon_variants.c, which uses nothing of the
 * Chessgammon files: each variant's file hands its table to ref_cg_init
 * and ref_cg_decode, the shared machinery finds it again by the number the
 * state keeps (ref_cg_rules_of), and no file cycle forms (scripts/
 * check-layers.py). A number, not a pointer, so the state's
 * bytes hold across processes and the service keeps a snapshot of them. */
extern const struct ref_cg_rules ref_cg_rules_plain;
extern const struct ref_cg_rules ref_cg_rules_doublemove;
extern const struct ref_cg_rules ref_cg_rules_racing_kings;
extern const struct ref_cg_rules ref_cg_rules_bodlaender;
/* The table of variant REF_CG_*; NULL for another number. */
const struct ref_cg_rules *ref_cg_rules_of(int variant);

#define REF_CG_MAGIC 0x43474d35u /* "CGM5": bump when the layout changes */

/*
 * CGA-1: the moves of one army piece in one colour, read once from the
 * army table's Betza string (armies.c, ref_betza_read) when the game is
 * set up: its leaps as (rank, file) steps and its rider rays. The board
 * keeps the chess types (chess_int.h); a rook, knight, bishop or queen of
 * a side stands for that side's army piece of the same place (DA-2), so
 * rule 6's squares follow from the army's setup.
 */
#define REF_CG_ARMY_LEAPS 32
struct ref_cg_army_moves {
  uint8_t nleap, nray;
  int8_t leap[REF_CG_ARMY_LEAPS][2]; /* (dr, df), Black's forward down the board */
  struct ref_betza_ray ray[REF_BETZA_MAX_RAYS];
};

/*
 * The game state (rules-spec §9): the chess position (board, side, move
 * number; its own e.p. field and castling rights stay empty), the bars,
 * the borne-off counts, the e.p. targets open to the side to move, where a
 * turn stands (which half), the result, and repetition keys for CG-12.
 */
struct ref_cg_state {
  uint32_t magic;
  uint8_t variant;  /* REF_CG_*: its rule table is ref_cg_rules_of(variant) */
  uint8_t fifty;    /* CG-12: fifty-move claim on (1) or off (0, default) */
  uint8_t balanced; /* DM-2: White's first turn has one move */
  uint8_t ep[2]; /* e.p. targets for the side to move, REF_CH_NO_SQ if none */
  uint8_t pend[2];  /* two-steps made in this turn (become ep[] of the next) */
  uint8_t half;     /* 0, or 1 while the second half of a Doublemove turn is due */
  uint8_t first_ep; /* the first half of this turn was an e.p. capture (DM-4) */
  uint8_t bar[2][6]; /* [colour][type] */
  uint8_t off[2];
  uint8_t last_from, last_to; /* the last half on the board, for render */
  uint8_t fresh;              /* this turn reset the fifty-move count (CG-12) */
  uint8_t rk_array; /* RK-1 config rk_array: the Racing Kings array, both sides bear off up */
  uint8_t army[2];  /* CGA-1: REF_ARMY_* of White and Black (REF_ARMY_FIDE: the chess core's moves) */
  uint32_t plies; /* turns since a capture, pawn move, bring-in or bear-off */
  struct ref_chess_pos pos;
  struct ref_cg_army_moves am[2][REF_ARMY_SLOTS]; /* [colour][slot], from army[] (CGA-1) */
  struct ref_ge e; /* result, repetition keys (CG-12); last: the generator needs no copy */
};

/* ---- the half-move layer (chessgammon.c) ---- */

/* Every legal half for the side to move in this position, full rules:
 * bar restriction (rule 7, CG-4), e.p. (CG-9, DM-4), the variant's
 * position test (RK-2). OUT: out, room for REF_CG_MAX_HALVES. Returns the
 * count; 0 means the side must pass. */
int ref_cg_gen(const struct ref_cg_state *st, uint32_t *out);
/* Plays a legal half; the side stays (see ref_cg_end_turn). Settles a
 * finish that happens at once (HB-4). */
void ref_cg_play(struct ref_cg_state *st, uint32_t h);
/* Ends the turn of the side to move (after its halves, or as a pass) and
 * settles the result (CG-10, CG-11, HB-4). */
void ref_cg_end_turn(struct ref_cg_state *st);
/* Reads one half of player input (rules-spec §5.1 notation). REF_OK or a
 * negative code with err filled (reason, suggestions). */
int ref_cg_parse_half(const struct ref_cg_state *st, const char *text, uint32_t *out,
                      struct ref_err *err);
/* Canonical (long, Betza's style) or computer notation of a legal half. */
int ref_cg_format_half(const struct ref_cg_state *st, uint32_t h, enum ref_notation style,
                       char *buf, size_t cap);
/* Is h one of the legal halves now? */
bool ref_cg_half_legal(const struct ref_cg_state *st, uint32_t h);

/* ---- the armies (chessgammon_armies.c, CGA-1 ... CGA-4) ---- */

/* The army slot (REF_ARMY_ROOK ...) of a chess type, -1 for pawn and
 * king; and the chess type standing for a slot. */
int ref_cg_slot_of_type(int t);
int ref_cg_type_of_slot(int slot);
/* A piece letter of either case as (chess type, army): *army -1 for pawn
 * and king, which every army has. Returns the type, -1 for no piece. */
int ref_cg_letter_type(int ch, int *army);
/* Reads the army table's Betza strings of st->army[] into st->am (CGA-1).
 * false for an army number out of range. */
bool ref_cg_armies_read(struct ref_cg_state *st);
/* Squares an army piece on `from` moves to, capture or not (own pieces
 * included: the caller masks them). */
uint64_t ref_cg_army_targets(const struct ref_cg_army_moves *am, int from, uint64_t occ);
/* CG-2 for an army piece on `from`: its bear-offs to rank `beyond` (8 or
 * -1) appended to out, one a target file. Returns the new count. */
int ref_cg_army_off(const struct ref_cg_army_moves *am, int from, int beyond, uint64_t occ,
                    uint32_t *out, int n);
/* Is sq attacked by side `by` in position p of the game st, by the
 * armies' moves (RK-2, CGA-4)? */
bool ref_cg_attacked(const struct ref_cg_state *st, const struct ref_chess_pos *p, int sq,
                     int by);

/* ---- the record and the bars, shared with the 4x8 game ---- */

/* Is h among v[0..n-1]? */
static inline bool ref_cg_has(const uint32_t *v, int n, uint32_t h)
{
  while(n-- > 0)
    if(v[n] == h)
      return true;
  return false;
}

/* Pieces on a bar (bar[type]). */
static inline int ref_cg_bar_count(const uint8_t bar[6])
{
  return bar[0] + bar[1] + bar[2] + bar[3] + bar[4] + bar[5];
}
/* The type of a piece letter P N B R Q K, either case; -1 for none. */
int ref_cg_type_of_letter(int c);

/*
 * A position record (§5.1) split into its fields: the board (the game's
 * to read), the side to move, "bar:" pieces (upper case White), "off:W/B"
 * (-1 when unwritten), "ep:" as written (NULL when absent: the game's to
 * read), the move number (0 when unwritten), and the word `extra` when
 * the game has one ("array:rk", RK-1). '_' stands for a space, so a
 * position fits in one word of a mail command.
 */
struct ref_cg_record {
  char buf[400];
  char *board;
  int side;
  uint8_t bar[2][6];
  int offw, offb;
  const char *ep;
  uint32_t fullmove;
  bool extra;
  /* CGA-2: "armies:WHITE/BLACK" (REF_ARMY_*; both REF_ARMY_FIDE when
   * unwritten); bar letters are read as those armies' (DA-4), and
   * wrong_army is set for a bar letter of another army. */
  uint8_t army[2];
  bool has_armies, wrong_army;
};
/* REF_OK, or REF_EINVAL for text of `max` bytes or more or broken fields. */
int ref_cg_read_record(const char *text, size_t max, const char *extra, struct ref_cg_record *r);
/* " w bar:Qp off:0/1 ep:EP N[ EXTRA][ armies:W/B]" after a record's
 * board (bar pieces in ASCII order, in the armies' letters; the armies
 * written unless both are the FIDEs; army NULL: the FIDEs). Returns the
 * length written (as snprintf). */
size_t ref_cg_write_record(char *out, size_t cap, int side, const uint8_t bar[2][6],
                           const uint8_t off[2], const char *ep, uint32_t fullmove,
                           const char *extra, const uint8_t *army);
/* The letter of a piece of colour c and chess type t (P N B R Q K) in
 * army army[c] (DA-4; army NULL: the FIDEs), upper case for White. */
char ref_cg_letter(const uint8_t *army, int c, int t);
/* Under a diagram: each side's bar and borne-off count, the reader's
 * (`seat`) last. Returns the length written (as snprintf). */
size_t ref_cg_render_bars(char *out, size_t cap, const uint8_t bar[2][6], const uint8_t off[2],
                          int army, int seat, const uint8_t *armies);

/* ---- ops shared by the 8x8 variants ---- */

int ref_cg_init(struct ref_state *s, const char *options, struct ref_err *err,
                const struct ref_cg_rules *rules);
int ref_cg_decode(struct ref_state *s, const char *text, struct ref_err *err,
                  const struct ref_cg_rules *rules);
int ref_cg_encode(const struct ref_state *s, char *buf, size_t cap);
int ref_cg_legal(const struct ref_state *s, struct ref_movelist *out);
int ref_cg_parse(const struct ref_state *s, const char *text, struct ref_move *out,
                 struct ref_err *err);
int ref_cg_format(const struct ref_state *s, const struct ref_move *m, enum ref_notation style,
                  char *buf, size_t cap);
int ref_cg_apply(struct ref_state *s, const struct ref_move *m);
int ref_cg_act(struct ref_state *s, int seat, enum ref_action action, int arg,
               struct ref_err *err);
void ref_cg_status(const struct ref_state *s, struct ref_status *out);
int ref_cg_render(const struct ref_state *s, int seat, char *buf, size_t cap);
int ref_cg_diagram(const struct ref_state *s, int seat, struct ref_diagram *d);
bool ref_cg_ok(const struct ref_state *s);

/* The ops table of an 8x8 variant whose turn is one half (rules-spec
 * 5.2, 5.5, 5.6): its own init and decode, which know the variant's
 * rules; the rest shared. No dice (roll NULL), the generic perft walk. */
#define REF_CG_ONE_HALF_OPS(init, decode)                                                         \
  {                                                                                               \
    init, decode, ref_cg_encode, ref_cg_legal, ref_cg_parse, ref_cg_format, ref_cg_apply, NULL,   \
      ref_cg_act, ref_cg_status, ref_cg_render, NULL, ref_cg_ok, ref_cg_diagram                   \
  }

#endif /* TABULA_CHESSGAMMON_INT_H */
