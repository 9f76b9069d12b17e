/*
 * diagram.c: helpers for the games' ops->diagram (rules.h): a
 * grid with its coordinates and square colours, a piece put on a stack,
 * chess letters as diagram kinds. The games fill in the rest.
 */
#include "diagram_int.h"

#include "backgammon_int.h"
#include "chess_int.h"

#include <stdio.h>
#include <string.h>

void ref_diag_grid(struct ref_diagram *d, int files, int ranks, bool flip)
{
  int r, f;
  memset(d, 0, sizeof(*d));
  if(files > REF_DIAG_FILES)
    files = REF_DIAG_FILES;
  if(ranks > REF_DIAG_RANKS)
    ranks = REF_DIAG_RANKS;
  d->has_grid = true;
  d->flip = flip;
  d->files = files;
  d->ranks = ranks;
  d->cube_owner = -1;
  for(f = 0; f < files; f++)
    d->file_label[f][0] = (char)('a' + f);
  for(r = 0; r < ranks; r++) {
    d->rank_label[r][0] = (char)('1' + r); /* at most 8 ranks */
    for(f = 0; f < files; f++) {
      d->cell[r][f].exists = 1;
      d->cell[r][f].dark = (r + f) % 2 == 0; /* a1 is dark */
    }
  }
}

void ref_diag_points(struct ref_diagram *d, bool flip)
{
  memset(d, 0, sizeof(*d));
  d->has_points = true;
  d->flip = flip;
  d->cube_owner = -1;
}

void ref_diag_put(struct ref_diag_stack *s, int kind, int dark)
{
  if(s->n < REF_DIAG_SHOW) {
    s->p[s->n].kind = (uint8_t)kind;
    s->p[s->n].dark = (uint8_t)(dark != 0);
  }
  s->n++;
}

void ref_diag_put_lettered(struct ref_diag_stack *s, char letter, int dark)
{
  if(s->n < REF_DIAG_SHOW)
    s->p[s->n].letter = letter;
  ref_diag_put(s, REF_DIAG_LETTERED, dark);
}

void ref_diag_put_n(struct ref_diag_stack *s, int kind, int dark, int n)
{
  while(n-- > 0)
    ref_diag_put(s, kind, dark);
}

int ref_diag_kind(char letter)
{
  switch(letter) {
  case 'K': case 'k': return REF_DIAG_KING;
  case 'Q': case 'q': return REF_DIAG_QUEEN;
  case 'R': case 'r': return REF_DIAG_ROOK;
  case 'B': case 'b': return REF_DIAG_BISHOP;
  case 'N': case 'n': return REF_DIAG_KNIGHT;
  case 'P': case 'p': return REF_DIAG_PAWN;
  case 'V': case 'v': return REF_DIAG_MAN;     /* a Backgammon Chess stone */
  case 'X': case 'x': return REF_DIAG_CROWNED; /* a doubled stone (BC-5) */
  default: return REF_DIAG_NONE;
  }
}

void ref_diag_put_letter(struct ref_diag_stack *s, char letter)
{
  int kind = ref_diag_kind(letter);
  if(kind != REF_DIAG_NONE)
    ref_diag_put(s, kind, letter >= 'a' && letter <= 'z');
}

/* A point number of `seat`'s numbering in the first seat's (BG 4.1: side
 * s's point p is the other side's 25 - p). */
static int absolute(int seat, int p)
{
  return seat == 0 ? p : 25 - p;
}

/* The last play by `seat` marked; each side numbers the points from its
 * own home (BG 4.1), so the second seat's point p is the diagram's 25 - p. */
static void mark_last_play(struct ref_diagram *d, const char *play, int seat)
{
  /* gnubg's notation: "13/7* 8/7", "bar/22", "6/off", "24/18/13", "6/4(2)" */
  const char *p = play;
  int first = 1;
  if(seat < 0 || !play)
    return;
  while(*p) {
    int point = -1;
    if(*p == ' ' || *p == '(') {
      first = 1;
      p += *p == '(' ? strcspn(p, ")") + (p[strcspn(p, ")")] ? 1 : 0) : 1;
      continue;
    }
    if(!strncmp(p, "bar", 3)) {
      d->bar[seat].mark |= REF_DIAG_FROM;
      p += 3;
    }
    else if(!strncmp(p, "off", 3)) {
      d->off[seat].mark |= REF_DIAG_TO;
      p += 3;
    }
    else if(*p >= '0' && *p <= '9') {
      point = 0;
      while(*p >= '0' && *p <= '9')
        point = point * 10 + (*p++ - '0');
    }
    else {
      p++;
      continue;
    }
    if(point >= 1 && point <= 24)
      d->point[absolute(seat, point) - 1].mark |= first ? REF_DIAG_FROM : REF_DIAG_TO;
    if(*p == '*')
      p++;
    first = *p != '/';
    if(*p == '/') {
      p++;
      first = 0;
    }
  }
}

void ref_diag_bg_board(struct ref_diagram *d, const struct ref_bg_board *b)
{
  int side, p;
  /* checkers: White (side 0) light, Black dark */
  for(side = 0; side < 2; side++) {
    for(p = 1; p <= 24; p++)
      ref_diag_put_n(&d->point[absolute(side, p) - 1], REF_DIAG_CHECKER, side,
                     b->pt[side][p]);
    ref_diag_put_n(&d->bar[side], REF_DIAG_CHECKER, side, b->pt[side][REF_BG_BAR]);
    ref_diag_put_n(&d->off[side], REF_DIAG_CHECKER, side, b->pt[side][REF_BG_OFF]);
  }
}

void ref_diag_chess_board(struct ref_diagram *d, const uint8_t *board, int last_from,
                          int last_to)
{
  static const char letters[] = "PNBRQK";
  int sq;
  for(sq = 0; sq < 64; sq++) {
    struct ref_diag_cell *c = &d->cell[sq / 8][sq % 8];
    int code = board[sq];
    if(code != REF_CH_EMPTY)
      ref_diag_put(&c->s, ref_diag_kind(letters[REF_CH_TYPE(code)]),
                   REF_CH_COLOR(code) == REF_CH_BLACK);
    c->s.mark = (uint8_t)((sq == last_from ? REF_DIAG_FROM : 0) |
                          (sq == last_to ? REF_DIAG_TO : 0));
  }
}

void ref_diag_reserves(struct ref_diagram *d, const uint8_t bar[2][6], const uint8_t off[2],
                       int of)
{
  static const char letters[] = "PNBRQK";
  int c, t, i;
  d->off_of = of;
  for(c = 0; c < 2; c++) {
    for(t = 0; t < 6; t++)
      for(i = 0; i < bar[c][t]; i++)
        ref_diag_put(&d->bar[c], ref_diag_kind(letters[t]), c == REF_CH_BLACK);
    d->off[c].n = off[c];
  }
}

void ref_diag_bg_turn(struct ref_diagram *d, const struct ref_bg_turn *t, bool mark_play)
{
  if(mark_play && t->last_seat >= 0)
    mark_last_play(d, t->last, t->last_seat);
  if(t->phase == REF_PHASE_MOVE && t->dice[0]) {
    d->dice[0] = t->dice[0];
    d->dice[1] = t->dice[1];
    d->ndice = 2;
  }
}
