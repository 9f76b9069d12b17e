/*
 * match.c: backgammon matches at layer 3, "games"
 * (docs/architecture.md, "Competition"). A match to N points is a series of tabula games
 * between the same two seats (match_games); each game's options carry the
 * match as the rules need it: match=N;score=A-B[;crawford=on], the score
 * before that game, which the rules write into the gnubg Match ID. The
 * score after a game is its options' score plus what the rules gave the
 * winner (cube x single/gammon/backgammon); a loss on time, an operator's
 * decision or `resign match` ends the match itself, for the game's winner
 * (a player who stops answering would otherwise lose game after game, a
 * week each). The Crawford game is the first game after a player first
 * reaches N-1, played without the cube; the games after it are
 * post-Crawford.
 *
 * The score is derived data: ref_match_recount counts it again from the
 * journals of the match's games, and `tabula check` compares every game's
 * options with that recount (ref_match_check). What is mailed and when the
 * next game starts are compete.c's.
 */
#include "compete_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The match fields of a game's options; 0 when it has none. */
static int options_match(const char *options, int *length, int score[2], int *crawford)
{
  const char *p = options;
  *length = 0;
  score[0] = score[1] = 0;
  *crawford = 0;
  while(p && *p) {
    size_t n = strcspn(p, ";");
    char one[64];
    snprintf(one, sizeof(one), "%.*s", (int)(n < sizeof(one) ? n : sizeof(one) - 1), p);
    if(sscanf(one, "match=%d", length) != 1 && sscanf(one, "score=%d-%d", &score[0], &score[1]) != 2)
      *crawford |= !strcmp(one, "crawford=on");
    p += n + (p[n] == ';');
  }
  return *length > 0;
}

void ref_match_options(char *buf, size_t cap, int length, const int score[2], int crawford)
{
  snprintf(buf, cap, "match=%d;score=%d-%d%s", length, score[0], score[1],
           crawford ? ";crawford=on" : "");
}

int ref_match_begin(struct ref_service *svc, struct ref_game_ctx *g)
{
  int length, score[2], crawford;
  int64_t id;
  if(strcmp(g->row.kind, "backgammon") ||
     !options_match(g->row.options, &length, score, &crawford))
    return 0;
  if(store_match_create(svc->st, &id, length, g->row.created) != STORE_OK ||
     store_match_add_game(svc->st, id, 1, g->row.id) != STORE_OK)
    return -1;
  return 0;
}

int ref_match_of(struct ref_service *svc, const struct ref_game_ctx *g,
                 struct ref_match_state *ms)
{
  int64_t *games = NULL;
  size_t n = 0;
  int rc;

  memset(ms, 0, sizeof(*ms));
  rc = store_match_of_game(svc->st, &ms->match, &ms->number, g->row.id);
  if(rc == STORE_ENOTFOUND)
    return 0;
  if(rc != STORE_OK || store_match_games(svc->st, &games, &n, ms->match) != STORE_OK || !n)
    return -1;
  ms->first = games[0];
  ms->last = (size_t)ms->number == n;
  free(games);
  options_match(g->row.options, &ms->length, ms->score, &ms->crawford);
  return 1;
}

int ref_match_after(struct ref_service *svc, struct ref_game_ctx *g,
                    const struct ref_match_state *ms, struct ref_match_after *a)
{
  struct ref_result r;
  memset(a, 0, sizeof(*a));
  a->score[0] = ms->score[0];
  a->score[1] = ms->score[1];
  a->winner = -1;
  if(ref_game_result(svc, g, &r))
    return -1;
  a->how = r.how;
  if(!r.over || r.winner < 0)
    return 0;
  a->decided = 1;
  a->game_winner = r.winner;
  a->points = r.how == REF_RESULT_RULES ? r.points : 0;
  if(r.how != REF_RESULT_RULES) {
    /* time, the operator, `resign match`: the match goes to the winner */
    a->over = 1;
    a->winner = r.winner;
    return 0;
  }
  a->score[r.winner] += r.points;
  if(a->score[r.winner] >= ms->length) {
    a->over = 1;
    a->winner = r.winner;
    return 0;
  }
  /* The Crawford game: the first after a player first reaches N-1. */
  a->next_crawford = (a->score[0] == ms->length - 1 || a->score[1] == ms->length - 1) &&
                     ms->score[0] != ms->length - 1 && ms->score[1] != ms->length - 1;
  return 0;
}

/* ---- the line every mail of a match shows ---- */

int ref_match_line(struct ref_service *svc, struct ref_game_ctx *g, int observer, char *buf,
                   size_t cap)
{
  const char *dir = svc->cfg.templates_dir;
  struct ref_match_state ms;
  struct ref_match_after a;
  char length[16], s0[16], s1[16], state[200] = "", key[32], names[2][64];
  struct tpl_var v[6];
  int rc;

  buf[0] = '\0';
  rc = ref_match_of(svc, g, &ms);
  if(rc <= 0 || g->nseats != 2)
    return rc;
  memset(&a, 0, sizeof(a));
  a.score[0] = ms.score[0];
  a.score[1] = ms.score[1];
  if(g->row.phase == STORE_GAME_FINISHED && ref_match_after(svc, g, &ms, &a))
    return -1;
  snprintf(length, sizeof(length), "%d", ms.length);
  snprintf(s0, sizeof(s0), "%d", a.score[0]);
  snprintf(s1, sizeof(s1), "%d", a.score[1]);
  v[0] = (struct tpl_var){"length", length};
  v[1] = (struct tpl_var){"white", g->seats[0].address};
  v[2] = (struct tpl_var){"black", g->seats[1].address};
  /* rules-spec G-3: an observer reads the players as the web view names them */
  if(observer) {
    ref_public_name(g->seats[0].address, names[0], sizeof(names[0]));
    ref_public_name(g->seats[1].address, names[1], sizeof(names[1]));
    v[1].value = names[0];
    v[2].value = names[1];
  }
  v[3] = (struct tpl_var){"a", s0};
  v[4] = (struct tpl_var){"b", s1};
  /* what comes next, or what this game is */
  if(g->row.phase == STORE_GAME_FINISHED && a.decided) {
    v[5] = (struct tpl_var){"winner", observer ? names[a.game_winner]
                                               : g->seats[a.game_winner].address};
    snprintf(key, sizeof(key), "%s",
             a.over ? (a.how == REF_RESULT_RULES ? "match-won"
                       : a.how == REF_RESULT_TIME ? "match-won-time"
                       : a.how == REF_RESULT_OPERATOR ? "match-won-operator"
                                                      : "match-won-resigned")
             : a.next_crawford ? "match-next-crawford"
                               : "match-next");
    tpl_line(state, sizeof(state), dir, "phrases.txt", key, v, 6);
  }
  else if(g->row.phase != STORE_GAME_FINISHED) {
    int post = !ms.crawford && (ms.score[0] == ms.length - 1 || ms.score[1] == ms.length - 1);
    if(ms.crawford || post)
      tpl_line(state, sizeof(state), dir, "phrases.txt",
               ms.crawford ? "match-crawford" : "match-post-crawford", v, 5);
  }
  v[5] = (struct tpl_var){"state", state};
  {
    /* who leads, and by how much, while the match is not decided */
    char lead[200] = "", by[16], line[600];
    struct tpl_var l[2] = {{"leader", ""}, {"by", by}};
    int over = g->row.phase == STORE_GAME_FINISHED && a.decided && a.over;
    snprintf(by, sizeof(by), "%d", abs(a.score[0] - a.score[1]));
    if(!over && a.score[0] != a.score[1]) {
      l[0].value = v[a.score[0] > a.score[1] ? 1 : 2].value;
      tpl_line(lead, sizeof(lead), dir, "phrases.txt", "match-leads", l, 2);
    }
    else if(!over)
      tpl_line(lead, sizeof(lead), dir, "phrases.txt", "match-level", l, 2);
    tpl_line(line, sizeof(line), dir, "phrases.txt", "match-line", v, 6);
    snprintf(buf, cap, "%s%s%s", line, lead[0] ? " " : "", lead);
  }
  return 0;
}

/* ---- the recount ---- */

int ref_match_recount(struct ref_service *svc, int64_t match, struct ref_match_count *c)
{
  int64_t *games = NULL;
  size_t n = 0, i;
  int rc = -1;

  memset(c, 0, sizeof(*c));
  c->winner = -1;
  if(store_match_games(svc->st, &games, &n, match) != STORE_OK || !n)
    goto out;
  for(i = 0; i < n; i++) {
    struct ref_game_ctx g;
    struct ref_result r;
    struct ref_match_state ms;
    char why[256];
    int length, score[2], crawford;
    if(ref_game_load(svc, &g, games[i], why, sizeof(why)))
      goto out;
    options_match(g.row.options, &length, score, &crawford);
    if(i == 0) {
      c->length = length;
      c->score[0] = score[0];
      c->score[1] = score[1];
      c->next_crawford = crawford;
      snprintf(c->player[0], sizeof(c->player[0]), "%s", g.seats[0].address);
      snprintf(c->player[1], sizeof(c->player[1]), "%s", g.seats[1].address);
    }
    /* every game's options say the score the games before it made */
    if(length != c->length || score[0] != c->score[0] || score[1] != c->score[1] ||
       crawford != c->next_crawford || c->over)
      c->inconsistent = (int)i + 1;
    ms.length = c->length;
    ms.score[0] = c->score[0];
    ms.score[1] = c->score[1];
    ms.crawford = c->next_crawford;
    if(ref_game_result(svc, &g, &r)) {
      ref_game_free(&g);
      goto out;
    }
    c->moves += r.moves;
    c->unrated |= i == 0 && r.unrated;
    c->games++;
    c->last_game = games[i];
    if(r.over) {
      struct ref_match_after a;
      if(ref_match_after(svc, &g, &ms, &a)) {
        ref_game_free(&g);
        goto out;
      }
      c->score[0] = a.score[0];
      c->score[1] = a.score[1];
      c->next_crawford = a.next_crawford;
      c->ended = r.ended;
      if(a.over) {
        c->over = 1;
        c->winner = a.winner;
      }
    }
    ref_game_free(&g);
  }
  rc = 0;
out:
  free(games);
  return rc;
}

int ref_match_check(struct ref_service *svc, struct ref_problems *p, size_t *checked)
{
  int64_t *ids = NULL;
  size_t n = 0, i, bad = 0;
  *checked = 0;
  if(store_match_list(svc->st, &ids, &n) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    struct ref_match_count c;
    struct store_match row;
    if(ref_match_recount(svc, ids[i], &c) || store_match_load(svc->st, &row, ids[i]) != STORE_OK) {
      free(ids);
      return -1;
    }
    if(c.inconsistent) {
      ref_problem_add(p, "match", ids[i],
                      "its game %d does not start from the score its games before made",
                      c.inconsistent);
      bad++;
    }
    else if((row.phase == STORE_MATCH_FINISHED) != c.over ||
            (c.over && row.winner != c.winner)) {
      ref_problem_add(p, "match", ids[i], "stored %s, the journals give %s",
                      row.phase == STORE_MATCH_FINISHED ? "finished" : "playing",
                      c.over ? "finished" : "playing");
      bad++;
    }
  }
  *checked = n;
  free(ids);
  return bad ? 1 : 0;
}
