/*
 * record_mat.c: a backgammon game, or a whole match, as a Jellyfish .mat
 * file, the way GNU Backgammon imports it (`import mat`) and eXtreme
 * Gammon reads its header. A money game (BG-4) is one game of a "0 point
 * match", which gnubg reads as a money session; a game of a match exports
 * the match it belongs to: every game so far in order, each with the score
 * before it (docs/records.md).
 *
 * The layout gnubg's reader expects (import.c, ImportMat and ImportGame):
 * the header line "N point match"; " Game K"; a score line "NAME : A  NAME
 * : B" (a name without ':' and at most 31 characters); then numbered
 * lines, White's turn on the left, Black's in the right column from
 * column 34: "52: 13/8 24/22" (dice, then the play, points as numbers, 25
 * the bar and 0 off), " Doubles => 2", " Takes", " Drops", and at the end
 * " Wins N point(s)" in the winner's column. A game that ends while still
 * being played (a resignation) is read back as the loser resigning N /
 * cube levels, so "Wins" carries the points won. gnubg tells the Crawford
 * game from the scores (the first game with one player at N-1) and reads
 * past anything after the game's number, so " Game 2 (Crawford)" marks it
 * for a person and changes nothing for the reader.
 *
 * Everything before the match line gnubg skips: the "; [Tag "value"]"
 * lines and the dice lines, so tools/tabula-verify-dice.py checks the
 * export too. A
 * resignation offer that was rejected, a loss on time and an adjudication
 * have no Jellyfish form: the first is left out, the others end the game
 * with " Wins 1 point" (docs/records.md); in a match they end the match
 * (match.c), so there " Wins" carries the points the winner lacked.
 * Layer 3, "games" (docs/architecture.md).
 */
#include "compete_int.h"

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
  int beavered;  /* BG-9: a beaver waits for the doubler */
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

int ref_bg_record_steps(const char *canon, struct ref_bg_step *steps, int max)
{
  char copy[256], *save = NULL, *tok;
  int len = 0;
  if(!strcmp(canon, "--"))
    return 0; /* no legal play: the roll stands alone */
  snprintf(copy, sizeof(copy), "%.255s", canon);
  for(tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    int pts[8], hit[8], n = 0, times = 1, i, k;
    char *paren = strchr(tok, '('), *p = tok;
    if(paren) {
      times = atoi(paren + 1);
      *paren = '\0';
    }
    while(*p && n < 8) {
      size_t w = strcspn(p, "/");
      pts[n] = !strncmp(p, "bar", 3) ? 25 : !strncmp(p, "off", 3) ? 0 : atoi(p);
      hit[n] = memchr(p, '*', w) != NULL;
      n++;
      p += w + (p[w] == '/');
    }
    for(k = 0; k < (times > 0 && times <= 4 ? times : 1); k++)
      for(i = 0; i + 1 < n && len < max; i++) {
        steps[len].from = pts[i];
        steps[len].to = pts[i + 1];
        steps[len].hit = hit[i + 1];
        len++;
      }
  }
  return len;
}

/* gnubg's play notation as Jellyfish writes it: "bar" is 25, "off" 0, a
 * repeat "6/4(2)" written out twice, a path "24/18*\/13" step by step. */
static void jellyfish_play(const char *canon, char *out, size_t cap)
{
  struct ref_bg_step st[8];
  int n = ref_bg_record_steps(canon, st, 8), i;
  size_t len = 0;
  out[0] = '\0';
  for(i = 0; i < n && len + 20 < cap; i++)
    len += (size_t)snprintf(out + len, cap - len, "%s%d/%d%s", len ? " " : "", st[i].from,
                            st[i].to, st[i].hit ? "*" : "");
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
    if(!strcmp(e->text, "beaver")) {
      /* BG-9: Jellyfish's word, which gnubg reads as the taker's double */
      c->cube *= 2;
      c->beavered = 1;
      snprintf(text, sizeof(text), " Beavers => %d", c->cube);
      return put(c, e->seat, text);
    }
    if(!strcmp(e->text, "take")) {
      /* a beaver taken has no line of its own: the doubler's next roll
       * says it (gnubg's import reads it so, and would read " Takes"
       * after " Beavers" as a take of nothing) */
      if(c->beavered) {
        c->beavered = 0;
        return 0;
      }
      return put(c, e->seat, " Takes");
    }
    if(!strcmp(e->text, "drop")) {
      c->cube /= 2;
      c->beavered = 0;
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

/* The players as the record names them (p) and as the score lines do. */
void ref_bg_record_names(const struct ref_game_ctx *g, unsigned flags, char p[2][300],
                      char names[2][32])
{
  int s;
  for(s = 0; s < 2; s++) {
    ref_record_player(g, s, flags, p[s], sizeof(p[s]));
    mat_name(p[s], names[s], sizeof(names[s]));
  }
  if(!strcmp(names[0], names[1])) { /* gnubg tells the players by name */
    snprintf(names[0], sizeof(names[0]), "White");
    snprintf(names[1], sizeof(names[1]), "Black");
  }
}

/* One game's numbered lines into body; when `winner` is a seat, its
 * " Wins N points" line at the end. */
static int mat_moves(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *body,
                     int winner, int points)
{
  struct mat_ctx c;
  char line[120];

  memset(&c, 0, sizeof(c));
  c.body = body;
  c.opening = 1;
  c.cube = 1;
  if(ref_record_walk(svc, g, mat_step, &c, NULL))
    return -1;
  if(winner >= 0) {
    snprintf(line, sizeof(line), " Wins %d point%s", points, points == 1 ? "" : "s");
    if(put(&c, winner, line))
      return -1;
  }
  return flush_line(&c);
}

/* "NAME : A" at the left, "NAME : B" from the right column: gnubg reads
 * the name up to the colon and the number after it. */
static int mat_score_line(struct base_buf *out, char names[2][32], const int score[2])
{
  char left[128]; /* a name of at most 31 bytes, " : ", a number */
  snprintf(left, sizeof(left), "%s : %d", names[0], score[0]);
  return base_buf_printf(out, " %-*s%s : %d\n", MAT_RIGHT - 1, left, names[1], score[1]);
}

/* Whether a game's options carry "NAME=on" (";"-separated words). */
int ref_record_option_on(const char *options, const char *name)
{
  size_t n = strlen(name);
  const char *p = options;
  while(p && *p) {
    size_t w = strcspn(p, "; ");
    if(w == n + 3 && !strncmp(p, name, n) && !strncmp(p + n, "=on", 3))
      return 1;
    p += w + (p[w] != '\0');
  }
  return 0;
}

static int export_money(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                        unsigned flags)
{
  struct base_buf body;
  struct ref_rec_end end;
  char date[16], p[2][300], names[2][32];
  const int zero[2] = {0, 0};
  int rc = -1;

  base_buf_init(&body, 4u * 1024u * 1024u);
  if(ref_record_end(svc, g, &end) ||
     mat_moves(svc, g, &body, end.over ? end.winner : -1, end.points))
    goto out;
  ref_record_date(g, date, sizeof(date));
  ref_bg_record_names(g, flags, p, names);
  if(base_buf_printf(out, "; [Site \"%s\"]\n; [Match ID \"tabula game %lld\"]\n",
                     ref_record_referee(svc, flags), (long long)g->row.id) ||
     base_buf_printf(out, "; [Player 1 \"%s\"]\n; [Player 2 \"%s\"]\n", p[0], p[1]) ||
     (g->row.result[0] && base_buf_printf(out, "; [Result \"%s\"]\n", g->row.result)) ||
     base_buf_printf(out,
                     "; [EventDate \"%s\"]\n; [Variation \"Backgammon\"]\n; [Jacoby \"%s\"]\n"
                     "; [Beaver \"%s\"]\n; [CubeLimit \"64\"]\n; [Termination \"%s\"]\n",
                     date, ref_record_option_on(g->row.options, "jacoby") ? "On" : "Off",
                     ref_record_option_on(g->row.options, "beavers") ? "On" : "Off",
                     ref_record_termination(&end)))
    goto out;
  /* The dice lines before the match line, where gnubg reads nothing (a
   * game resigned is still read on past its blank line). */
  if(ref_record_dice(svc, g, out, flags))
    goto out;
  if(base_buf_puts(out, "\n 0 point match\n\n Game 1\n") || mat_score_line(out, names, zero) ||
     base_buf_puts(&body, "\n") || base_buf_puts(out, body.s ? body.s : ""))
    goto out;
  rc = 0;
out:
  base_buf_free(&body);
  return rc;
}

/* One game of a match: " Game K", the score before it, its lines, and
 * how it ended for the match (match.c: the rules' points, or for a loss
 * on time, an operator's decision or `resign match` the rest of the
 * match). *a: the match after it, for the header. */
static int match_game(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *body,
                      char names[2][32], struct ref_match_after *a)
{
  struct ref_match_state ms;
  int points = 0, winner = -1;

  memset(a, 0, sizeof(*a));
  a->winner = a->game_winner = -1;
  if(ref_match_of(svc, g, &ms) != 1)
    return -1;
  if(g->row.phase == STORE_GAME_FINISHED) {
    if(ref_match_after(svc, g, &ms, a))
      return -1;
    if(a->decided) {
      winner = a->game_winner;
      points = a->how == REF_RESULT_RULES ? a->points : ms.length - ms.score[winner];
    }
  }
  if(base_buf_printf(body, "\n Game %d%s\n", ms.number, ms.crawford ? " (Crawford)" : "") ||
     mat_score_line(body, names, ms.score))
    return -1;
  return mat_moves(svc, g, body, winner, points > 0 ? points : 1);
}

static int export_match(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                        unsigned flags, const struct ref_match_state *ms)
{
  struct base_buf body;
  struct ref_game_ctx last;
  struct ref_match_after a;
  struct ref_rec_end end;
  int64_t *games = NULL;
  size_t n = 0, i;
  char date[16], p[2][300], names[2][32], why[256], result[120] = "";
  int rc = -1, have_last = 0;

  base_buf_init(&body, 16u * 1024u * 1024u);
  memset(&last, 0, sizeof(last));
  memset(&a, 0, sizeof(a));
  memset(&end, 0, sizeof(end));
  if(store_match_games(svc->st, &games, &n, ms->match) != STORE_OK || !n)
    goto out;
  ref_bg_record_names(g, flags, p, names);
  for(i = 0; i < n; i++) {
    struct ref_game_ctx k;
    int bad;
    if(ref_game_load(svc, &k, games[i], why, sizeof(why)))
      goto out;
    bad = match_game(svc, &k, &body, names, &a);
    if(!bad && i == 0)
      ref_record_date(&k, date, sizeof(date));
    if(!bad && i + 1 == n)
      bad = ref_record_end(svc, &k, &end);
    if(i + 1 == n && !bad) {
      last = k;
      have_last = 1;
    }
    else
      ref_game_free(&k);
    if(bad)
      goto out;
  }
  if(a.over)
    snprintf(result, sizeof(result), "%s won the match %d-%d", g->desc->seat_names[a.winner],
             a.score[a.winner], a.score[1 - a.winner]);
  if(base_buf_printf(out, "; [Site \"%s\"]\n; [Match ID \"tabula match %lld\"]\n",
                     ref_record_referee(svc, flags), (long long)ms->match) ||
     base_buf_printf(out, "; [Player 1 \"%s\"]\n; [Player 2 \"%s\"]\n", p[0], p[1]) ||
     (result[0] && base_buf_printf(out, "; [Result \"%s\"]\n", result)) ||
     base_buf_printf(out,
                     "; [EventDate \"%s\"]\n; [Variation \"Backgammon\"]\n; [Crawford \"On\"]\n"
                     "; [Jacoby \"Off\"]\n; [Beaver \"Off\"]\n; [CubeLimit \"64\"]\n"
                     "; [Termination \"%s\"]\n",
                     date, !a.over ? "unterminated"
                           : a.how == REF_RESULT_MATCH_RESIGNED ? "normal"
                                                                : ref_record_termination(&end)))
    goto out;
  /* The match's dice: its games share one chain (dice-protocol.md), and
   * the transcript of its latest game holds every roll of the match. */
  if(ref_record_dice(svc, &last, out, flags))
    goto out;
  if(base_buf_printf(out, "\n %d point match\n", ms->length) ||
     base_buf_puts(&body, "\n") || base_buf_puts(out, body.s ? body.s : ""))
    goto out;
  rc = 0;
out:
  if(have_last)
    ref_game_free(&last);
  free(games);
  base_buf_free(&body);
  return rc;
}

int ref_export_mat(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags)
{
  struct ref_match_state ms;
  int rc = ref_match_of(svc, g, &ms);
  if(rc < 0)
    return -1;
  return rc ? export_match(svc, g, out, flags, &ms) : export_money(svc, g, out, flags);
}
