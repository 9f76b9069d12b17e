/*
 * armies.c: the one table of Chess with Different Armies (rules-spec.md
 * §12, DA-1 ... DA-4) and the reader of Betza's notation that turns each
 * piece's moves into the tables cwda_board.c moves by.
 *
 * The Betza strings are Ralph Betza's own (The Chess Variant Pages, "The
 * Nutty Knights": frlRrlbK, fbNF, fhNrlbK, fhNfrlRK; the Clobberers BD, WA,
 * FAD, BN; the Rookies R4, WD, HFD, RN) written in the dialect
 * Fairy-Stockfish reads (DA-1): its file of definitions in tests/oracles/
 * holds the very same strings, so the oracle and the referee read one text.
 */
#include "armies_int.h"
#include "chess_notation_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

const struct ref_army ref_armies[REF_ARMY_COUNT] = {
  [REF_ARMY_FIDE] = {"fide",
                     "Fabulous FIDEs",
                     {{"Rook", 'R', "R"}, {"Knight", 'N', "N"}, {"Bishop", 'B', "B"}, {"Queen", 'Q', "Q"}},
                     2,
                     3},
  /* DA-3: the Bede is colourbound, so long castling takes the king to b1
   * and the Bede to c1, squares of its colour. */
  [REF_ARMY_CLOBBERERS] = {"clobberers",
                           "Colorbound Clobberers",
                           {{"Bede", 'D', "BD"}, {"Waffle", 'W', "WA"}, {"FAD", 'F', "FAD"},
                            {"Cardinal", 'A', "BN"}},
                           1,
                           2},
  /* Betza's frlRrlbK: rook forwards and sideways, king backwards; fhNrlbK:
   * the four forward knight moves, king sideways and backwards; fhNfrlRK:
   * king, forward knight, rook forwards and sideways. */
  [REF_ARMY_NUTTY] = {"nutty",
                      "Nutty Knights",
                      {{"Charging Rook", 'G', "fsRbK"}, {"Fibnif", 'I', "fbNF"},
                       {"Charging Knight", 'J', "fhNsWbK"}, {"Colonel", 'L', "fhNfsRK"}},
                      2,
                      3},
  [REF_ARMY_ROOKIES] = {"rookies",
                        "Remarkable Rookies",
                        {{"Short Rook", 'S', "R4"}, {"Woody Rook", 'Y', "WD"}, {"Half-Duck", 'H', "HFD"},
                         {"Chancellor", 'C', "RN"}},
                        2,
                        3},
};

int ref_army_find(const char *key, size_t len)
{
  for(int a = 0; a < REF_ARMY_COUNT; a++) {
    const char *k = ref_armies[a].key, *n = ref_armies[a].name;
    if((strlen(k) == len && !strncasecmp(k, key, len)) ||
       (strlen(n) == len && !strncasecmp(n, key, len)) ||
       (len == 1 && tolower((unsigned char)*key) == k[0]))
      return a;
  }
  return -1;
}

char ref_army_kind_letter(int kind)
{
  if(kind == REF_AK_PAWN)
    return 'P';
  if(kind == REF_AK_KING)
    return 'K';
  if(kind < 0 || kind >= REF_AK_COUNT)
    return '?';
  return ref_armies[REF_AK_ARMY(kind)].piece[REF_AK_SLOT(kind)].letter;
}

/* chess_notation.c numbers the armies' pieces as their kinds. */
_Static_assert(REF_AK_OF(REF_ARMY_CLOBBERERS, 0) == REF_CN_ARMY_FIRST &&
                 REF_AK_COUNT == REF_CN_TYPES,
               "army kinds and notation types agree past the FIDE army");

int ref_army_cn_type(int kind)
{
  static const int fide[REF_ARMY_SLOTS] = {REF_CN_ROOK, REF_CN_KNIGHT, REF_CN_BISHOP, REF_CN_QUEEN};
  if(kind == REF_AK_PAWN)
    return REF_CN_PAWN;
  if(kind == REF_AK_KING)
    return REF_CN_KING;
  if(kind >= 2 && kind < REF_CN_ARMY_FIRST)
    return fide[REF_AK_SLOT(kind)];
  return kind;
}

uint32_t ref_army_cn_own(int army)
{
  uint32_t own = (1u << REF_CN_PAWN) | (1u << REF_CN_KING);
  for(int slot = 0; slot < REF_ARMY_SLOTS; slot++)
    own |= 1u << ref_army_cn_type(REF_AK_OF(army, slot));
  return own;
}

int ref_army_letter_kind(char c)
{
  char u = (char)toupper((unsigned char)c);
  for(int k = 0; k < REF_AK_COUNT; k++)
    if(ref_army_kind_letter(k) == u)
      return k;
  return -1;
}

/* ------------------------------------------------------------------------ */
/* Betza's notation (DA-1).
 *
 * An atom is a leap (a, b): a squares one way, b the other (W = (1,0),
 * F = (1,1), D = (2,0), N = (2,1), A = (2,2), H = (3,0); K = W and F). R, B
 * and Q are the riders of W, F and both; a digit after an atom makes it a
 * rider of at most that many steps, the atom doubled an unlimited one.
 *
 * Direction modifiers stand before the atom. As Fairy-Stockfish reads them
 * (the oracle, DA-1), a modifier is taken in a pair with the next one when
 * the two are the same letter or one is vertical (f b v h) and the other
 * horizontal (r l s h); a lone modifier stands for itself doubled ("f" =
 * "ff"). For an orthogonal atom a mixed pair (fs, bs ...) means both of its
 * letters. Each of the atom's eight moves is taken by the pairs in its row
 * of `dirs` below (no modifier: all eight). */

struct betza_row {
  int8_t ka, kb; /* rank step = ka * a + kb * b ... */
  int8_t fa, fb; /* file step = fa * a + fb * b */
  const char *pairs;
};
/* Move (dr, df) of atom (a, b) and the modifier pairs that select it. */
static const struct betza_row dirs[8] = {
  {1, 0, 0, 1, "ff vv rf rv fh rh hr"},
  {-1, 0, 0, -1, "bb vv lb lv bh lh hr"},
  {0, -1, 1, 0, "rr ss br bs bh rh hr"},
  {0, 1, -1, 0, "ll ss fl fs fh lh hr"},
  {0, 1, 1, 0, "rr ss fr fs fh rh hl"},
  {0, -1, -1, 0, "ll ss bl bs bh lh hl"},
  {-1, 0, 0, 1, "bb vv rb rv bh rh hl"},
  {1, 0, 0, -1, "ff vv lf lv fh lh hl"},
};

static bool pair_in(const char *pairs, const char *p)
{
  for(const char *s = pairs; *s; s += s[2] ? 3 : 2)
    if(s[0] == p[0] && s[1] == p[1])
      return true;
  return false;
}

static void add_move(struct ref_betza_moves *m, int color, int dr, int df, bool rider, int max)
{
  if(color)
    dr = -dr; /* Black's forward is down the board */
  if(!rider) {
    for(int sq = 0; sq < 64; sq++) {
      int r = sq / 8 + dr, f = sq % 8 + df;
      if(r >= 0 && r < 8 && f >= 0 && f < 8)
        m->leap[sq] |= 1ull << (r * 8 + f);
    }
    return;
  }
  for(int i = 0; i < m->nrays; i++)
    if(m->ray[i].dr == dr && m->ray[i].df == df) {
      if(m->ray[i].max && (!max || max > m->ray[i].max))
        m->ray[i].max = (uint8_t)max;
      return;
    }
  if(m->nrays < REF_BETZA_MAX_RAYS)
    m->ray[m->nrays++] = (struct ref_betza_ray){(int8_t)dr, (int8_t)df, (uint8_t)max};
}

static bool is_vertical(char c)
{
  return c && strchr("fbvh", c);
}
static bool is_horizontal(char c)
{
  return c && strchr("rlsh", c);
}

bool ref_betza_read(const char *betza, int color, struct ref_betza_moves *m)
{
  static const struct {
    char c;
    int8_t a[2], b[2];
    int8_t n;
    bool rider;
  } atoms[] = {
    {'W', {1}, {0}, 1, false}, {'F', {1}, {1}, 1, false}, {'D', {2}, {0}, 1, false},
    {'N', {2}, {1}, 1, false}, {'A', {2}, {2}, 1, false}, {'H', {3}, {0}, 1, false},
    {'K', {1, 1}, {0, 1}, 2, false}, {'R', {1}, {0}, 1, true}, {'B', {1}, {1}, 1, true},
    {'Q', {1, 1}, {0, 1}, 2, true},
  };
  char pairs[16][2];
  int npairs = 0;

  memset(m, 0, sizeof(*m));
  if(!betza || !*betza)
    return false;
  for(size_t i = 0; betza[i]; i++) {
    char c = betza[i], c2 = betza[i + 1];
    size_t k;
    if(is_vertical(c) || is_horizontal(c)) {
      if(npairs == 16)
        return false;
      pairs[npairs][0] = c;
      if(c2 && (c2 == c || (is_vertical(c) && is_horizontal(c2)) ||
                (is_horizontal(c) && is_vertical(c2)))) {
        pairs[npairs][1] = c2;
        i++;
      }
      else
        pairs[npairs][1] = c;
      npairs++;
      continue;
    }
    for(k = 0; k < sizeof(atoms) / sizeof(atoms[0]) && atoms[k].c != c; k++)
      ;
    if(k == sizeof(atoms) / sizeof(atoms[0]))
      return false;
    bool rider = atoms[k].rider;
    int max = 0;
    if(c2 && (isdigit((unsigned char)c2) || c2 == c)) {
      rider = true;
      max = isdigit((unsigned char)c2) ? c2 - '0' : 0;
      i++;
    }
    for(int n = 0; n < atoms[k].n; n++) {
      int a = atoms[k].a[n], b = atoms[k].b[n];
      char sel[32][2];
      int nsel = 0;
      for(int p = 0; p < npairs; p++) {
        /* An orthogonal atom's mixed pair means each of its letters
         * (Fairy-Stockfish's reading, DA-1). */
        if(atoms[k].n == 1 && b == 0 && pairs[p][0] != pairs[p][1]) {
          sel[nsel][0] = sel[nsel][1] = pairs[p][0];
          nsel++;
          sel[nsel][0] = sel[nsel][1] = pairs[p][1];
          nsel++;
        }
        else {
          sel[nsel][0] = pairs[p][0];
          sel[nsel][1] = pairs[p][1];
          nsel++;
        }
      }
      for(int d = 0; d < 8; d++) {
        bool take = nsel == 0;
        for(int s = 0; s < nsel && !take; s++)
          take = pair_in(dirs[d].pairs, sel[s]);
        if(take)
          add_move(m, color, dirs[d].ka * a + dirs[d].kb * b, dirs[d].fa * a + dirs[d].fb * b,
                   rider, max);
      }
    }
    npairs = 0;
  }
  return npairs == 0; /* a modifier with no atom after it is an error */
}
