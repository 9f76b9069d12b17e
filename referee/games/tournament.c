/*
 * tournament.c: round-robin tournaments at layer 3, "games"
 * (docs/architecture.md, "Competition"): who plays whom (the pairings, made once when the
 * tournament is created), and the standings, recounted from the journals
 * of its games every time they are shown: points (a win 1, a draw 1/2),
 * Sonneborn-Berger, the crosstable. What is mailed, and when, is the
 * handlers' (compete.c, cmd_compete.c).
 */
#include "compete_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pairings ---- */

/* The circle method: the last number stays, the others turn one place a
 * round; an odd field adds a bye (a number nobody plays). Colours
 * alternate along the circle; in a double round robin the second cycle
 * repeats the first with colours swapped. */
int ref_round_robin(int players, int cycles, struct ref_pairing *out, size_t cap, size_t *n)
{
  int m = players % 2 ? players + 1 : players, ring[REF_TOURNAMENT_MAX + 1], r, i, c;
  *n = 0;
  if(players < 2 || players > REF_TOURNAMENT_MAX || cycles < 1 || cycles > 2)
    return -1;
  for(c = 0; c < cycles; c++) {
    for(i = 0; i < m; i++)
      ring[i] = i + 1;
    for(r = 0; r < m - 1; r++) {
      for(i = 0; i < m / 2; i++) {
        int a = ring[i], b = ring[m - 1 - i], white_first = (r + i) % 2 == 0;
        if(a > players || b > players)
          continue; /* the bye */
        if(*n == cap)
          return -1;
        out[*n].round = c * (m - 1) + r + 1;
        out[*n].white = (white_first != (c == 1)) ? a : b;
        out[*n].black = (white_first != (c == 1)) ? b : a;
        (*n)++;
      }
      /* turn every number but the last */
      {
        int last = ring[m - 2];
        memmove(ring + 1, ring, (size_t)(m - 2) * sizeof(ring[0]));
        ring[0] = last;
      }
    }
  }
  return 0;
}

/* A tournament's name: letters, digits, '-' and '_', not only digits (a
 * number names a tournament by its number), at most 32. */
int ref_tournament_name_ok(const char *s)
{
  size_t i, digits = 0;
  for(i = 0; s[i]; i++) {
    if(!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
      return 0;
    digits += isdigit((unsigned char)s[i]) != 0;
  }
  return i > 0 && i < 33 && digits < i;
}

/* ---- the standings ---- */

struct line {
  int number;
  const char *address;
  double points, sb;
  int place;
  /* per opponent, the results of their games in cycle order, this
   * player's view: '1', '0', '=' or '.' not played yet */
  char cell[REF_TOURNAMENT_MAX][3];
};

static int by_standing(const void *a, const void *b)
{
  const struct line *x = a, *y = b;
  if(x->points != y->points)
    return x->points > y->points ? -1 : 1;
  if(x->sb != y->sb)
    return x->sb > y->sb ? -1 : 1;
  return x->number - y->number;
}

/* A game's pair of numbers and result: white's score 1, 0.5, 0, or -1 when
 * it has no result (running, cancelled). */
struct played {
  int white, black;
  double score;
  enum store_game_phase phase;
};

static int game_of(struct ref_service *svc, int64_t id, const struct store_tournament_player *p,
                   size_t np, struct played *out)
{
  struct ref_game_ctx g;
  struct ref_result r;
  char why[256];
  size_t i;
  out->white = out->black = 0;
  out->score = -1;
  if(ref_game_load(svc, &g, id, why, sizeof(why)))
    return -1;
  for(i = 0; i < np && g.nseats == 2; i++) {
    if(!strcasecmp(p[i].address, g.seats[0].address))
      out->white = p[i].number;
    if(!strcasecmp(p[i].address, g.seats[1].address))
      out->black = p[i].number;
  }
  out->phase = g.row.phase;
  if(g.row.phase == STORE_GAME_FINISHED) {
    if(ref_game_result(svc, &g, &r)) {
      ref_game_free(&g);
      return -1;
    }
    out->score = r.winner < 0 ? 0.5 : r.winner == 0 ? 1.0 : 0.0;
  }
  ref_game_free(&g);
  return 0;
}

/* Ends a line of the table without the blanks its last column left. */
static int end_line(struct base_buf *out)
{
  while(out->len && out->s[out->len - 1] == ' ')
    out->s[--out->len] = '\0';
  return base_buf_putc(out, '\n');
}

static void number_text(char *buf, size_t cap, double x, int decimals)
{
  snprintf(buf, cap, "%.*f", decimals, x);
}

int ref_tournament_standings(struct ref_service *svc, const struct store_tournament *t,
                             struct ref_standings *out)
{
  struct store_tournament_player *p = NULL;
  struct played *games = NULL;
  struct line *lines = NULL;
  int64_t *ids = NULL;
  size_t np = 0, ng = 0, i, j, k;
  struct ref_tournament_count *count = &out->count;
  int rc = -1;

  memset(out, 0, sizeof(*out));
  if(store_tournament_players(svc->st, &p, &np, t->id) != STORE_OK ||
     store_tournament_games(svc->st, &ids, &ng, t->id) != STORE_OK || np > REF_TOURNAMENT_MAX)
    goto out;
  games = calloc(ng ? ng : 1, sizeof(*games));
  lines = calloc(np ? np : 1, sizeof(*lines));
  if(!games || !lines)
    goto out;
  for(i = 0; i < ng; i++) {
    if(game_of(svc, ids[i], p, np, &games[i]))
      goto out;
    count->games++;
    count->finished += games[i].phase == STORE_GAME_FINISHED;
    count->cancelled += games[i].phase == STORE_GAME_CANCELLED;
  }
  /* points, and each cell in the order the games were made (cycle 1 first) */
  for(i = 0; i < np; i++) {
    lines[i].number = p[i].number;
    lines[i].address = p[i].address;
    for(k = 0; k < np; k++)
      snprintf(lines[i].cell[k], sizeof(lines[i].cell[k]), "%s", i == k ? "**" : "");
  }
  for(j = 0; j < ng; j++) {
    struct played *g = &games[j];
    struct line *w, *b;
    if(g->white < 1 || g->black < 1 || g->white > (int)np || g->black > (int)np)
      continue;
    w = &lines[g->white - 1];
    b = &lines[g->black - 1];
    if(g->score >= 0) {
      w->points += g->score;
      b->points += 1 - g->score;
    }
    {
      char cw = g->score < 0 ? '.' : g->score == 1 ? '1' : g->score == 0 ? '0' : '=';
      char cb = g->score < 0 ? '.' : g->score == 1 ? '0' : g->score == 0 ? '1' : '=';
      size_t lw = strlen(w->cell[g->black - 1]), lb = strlen(b->cell[g->white - 1]);
      if(lw < 2)
        w->cell[g->black - 1][lw] = cw;
      if(lb < 2)
        b->cell[g->white - 1][lb] = cb;
    }
  }
  /* Sonneborn-Berger: for every game, the player's score in it times the
   * opponent's final points (FIDE Handbook C.07, for a round robin) */
  for(j = 0; j < ng; j++) {
    struct played *g = &games[j];
    if(g->score < 0 || g->white < 1 || g->black < 1 || g->white > (int)np ||
       g->black > (int)np)
      continue;
    lines[g->white - 1].sb += g->score * lines[g->black - 1].points;
    lines[g->black - 1].sb += (1 - g->score) * lines[g->white - 1].points;
  }
  if(np)
    qsort(lines, np, sizeof(*lines), by_standing);
  for(i = 0; i < np; i++)
    lines[i].place = i && lines[i].points == lines[i - 1].points && lines[i].sb == lines[i - 1].sb
                       ? lines[i - 1].place
                       : (int)i + 1;
  out->n = np;
  for(i = 0; i < np; i++) {
    struct ref_standing *l = &out->line[i];
    l->number = lines[i].number;
    l->place = lines[i].place;
    l->points = lines[i].points;
    l->sb = lines[i].sb;
    snprintf(l->address, sizeof(l->address), "%s", lines[i].address);
    memcpy(l->cell, lines[i].cell, sizeof(l->cell));
    out->player[i].number = p[i].number;
    snprintf(out->player[i].address, sizeof(out->player[i].address), "%s", p[i].address);
  }
  rc = 0;
out:
  free(p);
  free(ids);
  free(games);
  free(lines);
  return rc;
}

int ref_tournament_table(struct ref_service *svc, const struct store_tournament *t,
                         struct base_buf *out, struct ref_tournament_count *count)
{
  struct ref_standings *st = calloc(1, sizeof(*st));
  size_t i, k, np;
  char head[160];
  int rc = -1;

  if(!st || ref_tournament_standings(svc, t, st)) {
    free(st);
    return -1;
  }
  *count = st->count;
  np = st->n;
  /* the table: the heading's words are phrases.txt's, the columns ours */
  tpl_line(head, sizeof(head), svc->cfg.templates_dir, "phrases.txt", "standings-head", NULL, 0);
  if(base_buf_puts(out, head))
    goto out;
  for(k = 0; k < np; k++)
    if(base_buf_printf(out, "  %-2zu", k + 1))
      goto out;
  if(end_line(out))
    goto out;
  for(i = 0; i < np; i++) {
    char pts[16], sb[16], place[8];
    number_text(pts, sizeof(pts), st->line[i].points, 1);
    number_text(sb, sizeof(sb), st->line[i].sb, 2);
    snprintf(place, sizeof(place), "%d", st->line[i].place);
    if(base_buf_printf(out, "%5s  %2d  %6s  %7s", place, st->line[i].number, pts, sb))
      goto out;
    for(k = 0; k < np; k++)
      if(base_buf_printf(out, "  %-2s", st->line[i].cell[k]))
        goto out;
    if(end_line(out))
      goto out;
  }
  if(base_buf_putc(out, '\n'))
    goto out;
  for(i = 0; i < np; i++)
    if(base_buf_printf(out, "%3d  %s\n", st->player[i].number, st->player[i].address))
      goto out;
  rc = 0;
out:
  free(st);
  return rc;
}
