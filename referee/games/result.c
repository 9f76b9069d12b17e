/*
 * result.c: what a game's journal says of its result: who won,
 * by how many points, how (the rules, the clock, the operator, a match
 * resigned), whether any move was made and whether it was created
 * "unrated". Ratings, match scores and tournament standings are all
 * recounted from this, so they are derived data: the journal is the only
 * record of who beat whom. Layer 3, "games" (docs/architecture.md).
 */
#include "compete_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ref_create_has_word(const char *create_text, const char *word)
{
  char copy[256], *save = NULL, *tok;
  snprintf(copy, sizeof(copy), "%s", create_text);
  /* "new GAME [private] [unrated] [options] by ADDRESS": the words before
   * "by" (an address could hold any word) */
  for(tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if(!strcmp(tok, "by"))
      return 0;
    if(!strcmp(tok, word))
      return 1;
  }
  return 0;
}

int ref_game_result(struct ref_service *svc, struct ref_game_ctx *g, struct ref_result *r)
{
  struct store_entry *e = NULL;
  unsigned char *undone = NULL;
  char why[256];
  size_t n = 0, i;

  memset(r, 0, sizeof(*r));
  r->winner = -1;
  r->points = 1;
  if(store_journal_load(svc->st, &e, &n, g->row.id) != STORE_OK)
    return -1;
  /* A move taken back was not made (the one replay rule) */
  if(!(undone = malloc(n ? n : 1)) || ref_journal_undone(e, n, undone, why, sizeof(why))) {
    free(undone);
    free(e);
    return -1;
  }
  for(i = 0; i < n; i++) {
    if(!strcmp(e[i].kind, "create") && ref_create_has_word(e[i].text, "unrated"))
      r->unrated = 1;
    else if(!strcmp(e[i].kind, "move") && e[i].seat >= 0 && !undone[i])
      r->moves++;
    else if(!strcmp(e[i].kind, "adjudicate")) {
      int w;
      r->how = REF_RESULT_OPERATOR;
      r->winner = sscanf(e[i].text, "winner %d", &w) == 1 ? w : -1;
    }
    else if(!strcmp(e[i].kind, "timeout")) {
      /* clock.c journals the late seat */
      r->how = REF_RESULT_TIME;
      r->winner = 1 - e[i].seat;
    }
    else if(!strcmp(e[i].kind, REF_JOURNAL_RESIGN_MATCH)) {
      r->how = REF_RESULT_MATCH_RESIGNED;
      r->winner = 1 - e[i].seat;
    }
  }
  r->over = g->row.phase == STORE_GAME_FINISHED;
  if(r->over && n)
    r->ended = e[n - 1].time;
  if(r->over && r->how == REF_RESULT_RULES && g->started) {
    struct ref_status s;
    g->desc->ops->status(g->state, &s);
    if(s.phase == REF_PHASE_OVER) {
      r->winner = s.winner;
      r->points = s.points > 0 ? s.points : 1;
    }
  }
  free(undone);
  free(e);
  return 0;
}
