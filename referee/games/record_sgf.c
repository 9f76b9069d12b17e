/*
 * record_sgf.c: a backgammon game, or a whole match, as SGF (FF[4],
 * GM[6]: https://www.red-bean.com/sgf/backgammon.html), the format GNU
 * Backgammon saves its own matches in and loads (`load match`). A match is
 * a collection: one game tree per game, in order; a money game is one
 * tree with MI[length:0]. docs/records.md shows one.
 *
 * What gnubg's sgf.c reads (RestoreRootNode, RestoreNode), and so what is
 * written:
 *   root  FF[4]GM[6]CA[UTF-8]AP[tabula]
 *         MI[length:N][game:K][ws:A][bs:B]  the match, the game's number
 *                                   from 0, the score before it (White, Black)
 *         PW[..]PB[..]              the players (as the .mat names them)
 *         DT[YYYY-MM-DD]EV[..]PC[..] the first game only, as gnubg does
 *         RU[Crawford:CrawfordGame] a match (the Crawford game marked), or
 *         RU[Jacoby] a money game with jacoby=on
 *         RE[W+2] / RE[B+1R]        the winner, the points, R when the game
 *                                   did not end on the board or by a drop
 *   nodes ;W[52pkjf]  the dice, then the play a point pair a die: for
 *                     White 'a' + point - 1, for Black 'x' - (point - 1),
 *                     'y' the bar, 'z' off (sgf.c WriteMove / Point)
 *         ;B[double] ;W[take] ;W[drop]
 * A beaver (BG-9) is the taker's ;W[double] while the double waits, as
 * gnubg records its `redouble` command; the doubler's take or drop follows.
 * A resignation has no node: RE's R says it, and gnubg adds the
 * resignation at the level points / cube. Jellyfish's limits are SGF's too:
 * a loss on time or an operator's decision is written as a resignation
 * (R), in a match for the points the winner lacked (record_mat.c).
 * Layer 3, "games" (docs/architecture.md).
 */
#include "compete_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sgf_ctx {
  struct base_buf *out;
  int dice[2];
  int opening;
};

/* An SGF text value: ']' and '\' escaped (SGF FF[4], Text). */
static int sgf_text(struct base_buf *out, const char *prop, const char *value)
{
  const char *p;
  if(base_buf_printf(out, "%s[", prop))
    return -1;
  for(p = value; *p; p++)
    if(((*p == ']' || *p == '\\') && base_buf_puts(out, "\\")) || base_buf_add(out, p, 1))
      return -1;
  return base_buf_puts(out, "]");
}

/* A point of the mover's numbering as an SGF letter (sgf.c Point). */
static char sgf_point(int seat, int point)
{
  if(point == 25)
    return 'y';
  if(point <= 0)
    return 'z';
  return seat ? (char)('x' - (point - 1)) : (char)('a' + (point - 1));
}

/* gnubg writes a play a die at a time ("24/18 18/15", not "24/15"), the
 * steps from the highest point down (its move generator's order, and an
 * order they can be made in): steps[] split and sorted so. With doubles a
 * step of several dice goes die by die (the last may bear off with pips to
 * spare); with two different dice a lone step that uses both goes first
 * with the higher die, as gnubg does, when no checker of the opponent's
 * stands where it would stop in `before` (the board as data, rules.h),
 * else with the lower: the play names no hit, so it passes no blot. Returns
 * the new count, at most max. */
static int split_steps(const struct ref_game_ctx *r, const struct ref_state *before, int seat,
                       const int dice[2], struct ref_bg_step *steps, int n, int max)
{
  struct ref_bg_step out[8];
  int k = 0, i;

  if(dice[0] == dice[1]) {
    int d = dice[0];
    for(i = 0; i < n; i++) {
      int from = steps[i].from;
      while(from - d > steps[i].to && from - d > 0 && k < 7) {
        out[k].from = from;
        out[k].to = from - d;
        out[k++].hit = 0;
        from -= d;
      }
      if(k < 8) {
        out[k] = steps[i];
        out[k++].from = from;
      }
    }
  }
  else if(n == 1 && steps[0].from - steps[0].to != dice[0] &&
          steps[0].from - steps[0].to != dice[1] &&
          (steps[0].to > 0 || steps[0].from > (dice[0] > dice[1] ? dice[0] : dice[1]))) {
    int lo = dice[0] < dice[1] ? dice[0] : dice[1], hi = dice[0] + dice[1] - lo, first = lo;
    int mid = steps[0].from - hi;
    if(before && mid > 0 && r->desc->ops->diagram) {
      struct ref_diagram d;
      const struct ref_diag_stack *at;
      if(r->desc->ops->diagram(before, 0, &d) == REF_OK) {
        /* point[i] is point i + 1 as White counts them */
        at = &d.point[(seat ? 25 - mid : mid) - 1];
        if(!at->n || at->p[0].dark == (seat != 0))
          first = hi;
      }
    }
    out[0].from = steps[0].from;
    out[0].to = steps[0].from - first;
    out[0].hit = 0;
    out[1] = steps[0];
    out[1].from = out[0].to;
    k = 2;
  }
  else
    k = -1;
  if(k >= 0) {
    for(i = 0; i < k && i < max; i++)
      steps[i] = out[i];
    n = k < max ? k : max;
  }
  for(i = 1; i < n; i++) { /* insertion sort: stable, from the highest point */
    struct ref_bg_step x = steps[i];
    int j = i;
    while(j > 0 && steps[j - 1].from < x.from) {
      steps[j] = steps[j - 1];
      j--;
    }
    steps[j] = x;
  }
  return n;
}

static int sgf_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct sgf_ctx *c = arg;
  const struct store_entry *e = st->e;
  char who = e->seat ? 'B' : 'W';

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
    struct ref_bg_step steps[8];
    int n = ref_bg_record_steps(e->text, steps, 8), i;
    n = split_steps(r, st->before, e->seat, c->dice, steps, n, 8);
    if(base_buf_printf(c->out, "\n;%c[%d%d", who, c->dice[0], c->dice[1]))
      return -1;
    for(i = 0; i < n; i++)
      if(base_buf_printf(c->out, "%c%c", sgf_point(e->seat, steps[i].from),
                         sgf_point(e->seat, steps[i].to)))
        return -1;
    return base_buf_puts(c->out, "]");
  }
  if(!strcmp(e->kind, "action")) {
    /* BG-9: a beaver is the taker's double while the double waits */
    const char *word = !strcmp(e->text, "double") || !strcmp(e->text, "beaver") ? "double"
                       : !strcmp(e->text, "take")                              ? "take"
                       : !strcmp(e->text, "drop")                              ? "drop"
                                                                                : NULL;
    if(word)
      return base_buf_printf(c->out, "\n;%c[%s]", who, word);
  }
  return 0;
}

/* What a game tree's root says about the game, besides the players. */
struct sgf_game {
  int length, number, score[2], crawford; /* number from 0 */
  int winner, points, resigned;           /* winner -1: not over */
};

/* One game tree: the root, then the game's nodes. */
static int sgf_tree(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                    unsigned flags, const struct sgf_game *k, int first, int64_t match)
{
  struct sgf_ctx c;
  char p[2][300], names[2][32], date[16], event[64];
  size_t i;

  ref_bg_record_names(g, flags, p, names);
  if(base_buf_printf(out, "(;FF[4]GM[6]CA[UTF-8]AP[tabula]MI[length:%d][game:%d][ws:%d][bs:%d]",
                     k->length, k->number, k->score[0], k->score[1]) ||
     sgf_text(out, "PW", names[0]) || sgf_text(out, "PB", names[1]))
    return -1;
  if(first) {
    ref_record_date(g, date, sizeof(date));
    for(i = 0; date[i]; i++)
      if(date[i] == '.')
        date[i] = '-'; /* SGF's DT is ISO 8601 */
    if(match)
      snprintf(event, sizeof(event), "tabula match %lld", (long long)match);
    else
      snprintf(event, sizeof(event), "tabula game %lld", (long long)g->row.id);
    if(sgf_text(out, "DT", date) || sgf_text(out, "EV", event) ||
       sgf_text(out, "PC", ref_record_referee(svc, flags)))
      return -1;
  }
  if(k->length && base_buf_printf(out, "RU[Crawford%s]", k->crawford ? ":CrawfordGame" : ""))
    return -1;
  if(!k->length && ref_record_option_on(g->row.options, "jacoby") &&
     base_buf_puts(out, "RU[Jacoby]"))
    return -1;
  if(k->winner >= 0 && base_buf_printf(out, "RE[%c+%d%s]", k->winner ? 'B' : 'W', k->points,
                                       k->resigned ? "R" : ""))
    return -1;
  memset(&c, 0, sizeof(c));
  c.out = out;
  c.opening = 1;
  if(ref_record_walk(svc, g, sgf_step, &c, NULL))
    return -1;
  return base_buf_puts(out, ")\n");
}

/* R: the game did not end on the board or by a drop. */
static int sgf_resigned(const struct ref_rec_end *end)
{
  return end->end != REF_END_BORNE_OFF && end->end != REF_END_CUBE_DROPPED;
}

static int export_money(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                        unsigned flags)
{
  struct ref_rec_end end;
  struct sgf_game k;

  if(ref_record_end(svc, g, &end))
    return -1;
  memset(&k, 0, sizeof(k));
  k.winner = end.over && end.winner >= 0 ? end.winner : -1;
  k.points = end.points > 0 ? end.points : 1;
  k.resigned = sgf_resigned(&end);
  return sgf_tree(svc, g, out, flags, &k, 1, 0);
}

/* Every game of the match so far, each with the score before it. */
static int export_match(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                        unsigned flags, const struct ref_match_state *whole)
{
  int64_t *games = NULL;
  size_t n = 0, i;
  char why[256];
  int rc = -1;

  if(store_match_games(svc->st, &games, &n, whole->match) != STORE_OK || !n)
    goto out;
  for(i = 0; i < n; i++) {
    struct ref_game_ctx k;
    struct ref_match_state ms;
    struct ref_match_after a;
    struct ref_rec_end end;
    struct sgf_game sg;
    int bad;

    if(ref_game_load(svc, &k, games[i], why, sizeof(why)))
      goto out;
    memset(&sg, 0, sizeof(sg));
    sg.winner = -1;
    bad = ref_match_of(svc, &k, &ms) != 1 || ref_record_end(svc, &k, &end);
    if(!bad) {
      sg.length = ms.length;
      sg.number = ms.number - 1;
      sg.score[0] = ms.score[0];
      sg.score[1] = ms.score[1];
      sg.crawford = ms.crawford;
    }
    if(!bad && k.row.phase == STORE_GAME_FINISHED) {
      /* as the .mat says it (record_mat.c): the rules' points, or for a
       * loss on time, an operator's decision or `resign match` the points
       * the winner lacked */
      bad = ref_match_after(svc, &k, &ms, &a);
      if(!bad && a.decided) {
        sg.winner = a.game_winner;
        sg.points = a.how == REF_RESULT_RULES ? a.points : ms.length - ms.score[sg.winner];
        if(sg.points < 1)
          sg.points = 1;
        sg.resigned = a.how != REF_RESULT_RULES || sgf_resigned(&end);
      }
    }
    if(!bad)
      bad = sgf_tree(svc, &k, out, flags, &sg, i == 0, whole->match);
    ref_game_free(&k);
    if(bad)
      goto out;
  }
  rc = 0;
out:
  free(games);
  return rc;
}

int ref_export_sgf(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags)
{
  struct ref_match_state ms;
  int rc = ref_match_of(svc, g, &ms);
  if(rc < 0)
    return -1;
  return rc ? export_match(svc, g, out, flags, &ms) : export_money(svc, g, out, flags);
}
