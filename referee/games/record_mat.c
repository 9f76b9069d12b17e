/*
 * record_mat.c: a backgammon game as a Jellyfish .mat file, the way GNU
 * Backgammon imports it (`import mat`). tabula plays money games
 * (no matches, BG-4: Jacoby off), so the file is one game of a "0 point
 * match", which gnubg reads as a money session.
 *
 * The layout gnubg's reader expects (import.c, ImportMat and ImportGame):
 * the header line "N point match"; " Game 1"; a score line "NAME : 0  NAME
 * : 0" (a name without ':' and at most 31 characters); then numbered
 * lines, White's turn on the left, Black's in the right column from
 * column 34: "52: 13/8 24/22" (dice, then the play, points as numbers, 25
 * the bar and 0 off), " Doubles => 2", " Takes", " Drops", and at the end
 * " Wins N point(s)" in the winner's column. A game that ends while still
 * being played (a resignation) is read back as the loser resigning N /
 * cube levels, so "Wins" carries the points won.
 *
 * Everything before the match line gnubg skips: the "; [Tag "value"]"
 * lines and the dice lines, so tools/tabula-verify-dice.py checks the
 * export too. A
 * resignation offer that was rejected, a loss on time and an adjudication
 * have no Jellyfish form: the first is left out, the others end the game
 * with " Wins 1 point" (docs/records.md).
 * Layer 3, "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAT_RIGHT 33 /* the right column starts here, as gnubg writes it */

struct mat_ctx {
  struct base_buf *body;
  char left[256], right[256];
  int line;      /* numbered lines written */
  int dice[2];   /* the roll the next play uses */
  int opening;   /* BG-1: the first roll is one die each */
  int cube;
};

static int flush_line(struct mat_ctx *c)
{
  int n;
  if(!c->left[0] && !c->right[0])
    return 0;
  c->line++;
  n = (int)strlen(c->left);
  if(base_buf_printf(c->body, "%3d) %-*s%s%s\n", c->line, MAT_RIGHT - 5, c->left,
                    n >= MAT_RIGHT - 5 ? " " : "", c->right))
    return -1;
  c->left[0] = c->right[0] = '\0';
  return 0;
}

/* One turn's text in its player's column: a new line when that column, or
 * for the left column anything on the line, is already taken. */
static int put(struct mat_ctx *c, int seat, const char *text)
{
  if(seat == 0) {
    if((c->left[0] || c->right[0]) && flush_line(c))
      return -1;
    snprintf(c->left, sizeof(c->left), "%s", text);
  }
  else {
    if(c->right[0] && flush_line(c))
      return -1;
    snprintf(c->right, sizeof(c->right), "%s", text);
  }
  return 0;
}

/* gnubg's play notation as Jellyfish writes it: "bar" is 25, "off" 0, a
 * repeat "6/4(2)" written out twice, a path "24/18*\/13" step by step. */
static void jellyfish_play(const char *canon, char *out, size_t cap)
{
  char copy[256], *save = NULL, *tok;
  size_t len = 0;
  out[0] = '\0';
  if(!strcmp(canon, "--"))
    return; /* no legal play: the roll stands alone */
  snprintf(copy, sizeof(copy), "%.255s", canon);
  for(tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    char pts[8][8], *p = tok;
    int n = 0, times = 1, i, k;
    char *paren = strchr(tok, '(');
    if(paren) {
      times = atoi(paren + 1);
      *paren = '\0';
    }
    while(*p && n < 8) {
      size_t w = strcspn(p, "/");
      snprintf(pts[n], sizeof(pts[n]), "%.*s", (int)w, p);
      if(!strncmp(pts[n], "bar", 3))
        snprintf(pts[n], sizeof(pts[n]), "25%s", pts[n][3] == '*' ? "*" : "");
      else if(!strncmp(pts[n], "off", 3))
        snprintf(pts[n], sizeof(pts[n]), "0");
      n++;
      p += w + (p[w] == '/');
    }
    for(k = 0; k < (times > 0 && times <= 4 ? times : 1); k++)
      for(i = 0; i + 1 < n; i++) {
        char from[8];
        snprintf(from, sizeof(from), "%s", pts[i]);
        from[strcspn(from, "*")] = '\0';
        if(len + 20 < cap)
          len += (size_t)snprintf(out + len, cap - len, "%s%s/%s", len ? " " : "", from,
                                  pts[i + 1]);
      }
  }
}

static int mat_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct mat_ctx *c = arg;
  const struct store_entry *e = st->e;
  char text[200], play[160];
  (void)r;

  if(!strcmp(e->kind, "roll")) {
    const char *f = strstr(e->text, "faces");
    int a = 0, b = 0;
    if(!f || sscanf(f + 5, "%d %d", &a, &b) != 2)
      return -1;
    if(c->opening && a == b)
      return 0; /* BG-1: a tie is rolled again */
    c->opening = 0;
    c->dice[0] = a > b ? a : b;
    c->dice[1] = a > b ? b : a;
    return 0;
  }
  if(!strcmp(e->kind, "move")) {
    jellyfish_play(e->text, play, sizeof(play));
    snprintf(text, sizeof(text), "%d%d: %s", c->dice[0], c->dice[1], play);
    return put(c, e->seat, text);
  }
  if(!strcmp(e->kind, "action")) {
    int level = 0;
    if(!strcmp(e->text, "double")) {
      c->cube *= 2;
      snprintf(text, sizeof(text), " Doubles => %d", c->cube);
      return put(c, e->seat, text);
    }
    if(!strcmp(e->text, "take"))
      return put(c, e->seat, " Takes");
    if(!strcmp(e->text, "drop")) {
      c->cube /= 2;
      return put(c, e->seat, " Drops");
    }
    if(sscanf(e->text, "resign %d", &level) == 1)
      return 0; /* the "Wins" line says it (points / cube = the level) */
  }
  return 0;
}

/* A name gnubg's score line takes: no ':' or blank, at most 31 bytes. */
static void mat_name(const char *name, char *out, size_t cap)
{
  size_t i, j = 0;
  for(i = 0; name[i] && name[i] != '@' && j + 1 < cap && j < 24; i++) {
    unsigned char ch = (unsigned char)name[i];
    if(ch == ':' || isspace(ch))
      out[j++] = '_';
    else if(ch != '.' || j)
      out[j++] = (char)ch;
  }
  out[j] = '\0';
  if(!j)
    snprintf(out, cap, "player");
}

int ref_export_mat(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags)
{
  struct mat_ctx c;
  struct base_buf body;
  struct ref_rec_end end;
  char date[16], p[2][300], names[2][32], line[120];
  int rc = -1, s;

  memset(&c, 0, sizeof(c));
  base_buf_init(&body, 4u * 1024u * 1024u);
  c.body = &body;
  c.opening = 1;
  c.cube = 1;
  if(ref_record_walk(svc, g, mat_step, &c, NULL) || ref_record_end(svc, g, &end))
    goto out;
  if(end.over && end.winner >= 0) {
    snprintf(line, sizeof(line), " Wins %d point%s", end.points, end.points == 1 ? "" : "s");
    if(put(&c, end.winner, line))
      goto out;
  }
  if(flush_line(&c))
    goto out;
  ref_record_date(g, date, sizeof(date));
  for(s = 0; s < 2; s++) {
    ref_record_player(g, s, flags, p[s], sizeof(p[s]));
    mat_name(p[s], names[s], sizeof(names[s]));
  }
  if(!strcmp(names[0], names[1])) { /* gnubg tells the players by name */
    snprintf(names[0], sizeof(names[0]), "White");
    snprintf(names[1], sizeof(names[1]), "Black");
  }
  if(base_buf_printf(out, "; [Site \"%s\"]\n; [Match ID \"tabula game %lld\"]\n",
                     ref_record_referee(svc, flags), (long long)g->row.id) ||
     base_buf_printf(out, "; [Player 1 \"%s\"]\n; [Player 2 \"%s\"]\n", p[0], p[1]) ||
     (g->row.result[0] && base_buf_printf(out, "; [Result \"%s\"]\n", g->row.result)) ||
     base_buf_printf(out,
                     "; [EventDate \"%s\"]\n; [Variation \"Backgammon\"]\n; [Jacoby \"Off\"]\n"
                     "; [CubeLimit \"64\"]\n; [Termination \"%s\"]\n",
                     date, ref_record_termination(&end)))
    goto out;
  /* The dice lines before the match line, where gnubg reads nothing (a
   * game resigned is still read on past its blank line). */
  if(ref_record_dice(svc, g, out, flags))
    goto out;
  /* "NAME : 0" twice: gnubg reads " %31[^:]:%d %31[^:]:%d" */
  snprintf(line, sizeof(line), "%s : 0", names[0]);
  if(base_buf_printf(out, "\n 0 point match\n\n Game 1\n %-*s%s : 0\n", MAT_RIGHT - 1, line,
                     names[1]) ||
     base_buf_puts(&body, "\n") || base_buf_puts(out, body.s ? body.s : ""))
    goto out;
  rc = 0;
out:
  base_buf_free(&body);
  return rc;
}
