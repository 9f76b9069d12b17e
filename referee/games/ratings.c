/*
 * ratings.c: Glicko-2 ratings, one per player per game system,
 * derived from the journals of finished games (docs/architecture.md,
 * "Ratings").
 *
 * A rating period is one finished rated game (or backgammon match): its
 * two players are rated against each other's rating before it, the
 * periods in the order they ended (the time of the last journal entry,
 * then the number of the game that ended them). Mail games end one at a
 * time over months, so a calendar period would leave the table stale for
 * weeks and need a scheduled job; Glickman's advice of 10 to 15 games a
 * period suits a busy server, not a club by mail. Nobody else's deviation
 * grows when a game ends: the table depends on the games alone, never on
 * when it was computed, so the rebuild is exact.
 *
 * Which games count: finished games (a win, a loss, a draw, a loss on
 * time, an adjudication), unless created "unrated" or ended before any
 * player moved (that is a game cancelled before the first move, like a
 * declined or expired invitation, which is never finished). The games of a
 * match are not rated one by one: the match is, as one game won by the
 * player who won it (match.c).
 *
 * The table in the store is a cache of the rebuild: ref_ratings_apply
 * updates it when a period ends, `tabula check` compares it with the
 * rebuild (ref_ratings_check), `tabula ratings --rebuild` rewrites it.
 * Layer 3, "games" (docs/architecture.md).
 */
#include "compete_int.h"

#include "glicko.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the rating periods, from the journals ---- */

int ref_rated_game(struct ref_service *svc, struct ref_game_ctx *g, struct ref_rated *u)
{
  struct ref_result r;
  int64_t match;
  int number, rc;

  if(g->nseats != 2 || g->row.phase != STORE_GAME_FINISHED)
    return 0;
  rc = store_match_of_game(svc->st, &match, &number, g->row.id);
  if(rc == STORE_OK)
    return 0; /* the match is rated, not its games */
  if(rc != STORE_ENOTFOUND)
    return -1;
  if(ref_game_result(svc, g, &r))
    return -1;
  if(!r.over || r.unrated || !r.moves)
    return 0;
  memset(u, 0, sizeof(*u));
  snprintf(u->kind, sizeof(u->kind), "%s", g->row.kind);
  snprintf(u->player[0], sizeof(u->player[0]), "%s", g->seats[0].address);
  snprintf(u->player[1], sizeof(u->player[1]), "%s", g->seats[1].address);
  u->score = r.winner < 0 ? 0.5 : r.winner == 0 ? 1.0 : 0.0;
  u->ended = r.ended;
  u->unit = g->row.id;
  return 1;
}

int ref_rated_match(struct ref_service *svc, int64_t match, struct ref_rated *u)
{
  struct ref_match_count c;
  if(ref_match_recount(svc, match, &c))
    return -1;
  if(!c.over || c.unrated || !c.moves)
    return 0;
  memset(u, 0, sizeof(*u));
  snprintf(u->kind, sizeof(u->kind), "backgammon");
  snprintf(u->player[0], sizeof(u->player[0]), "%s", c.player[0]);
  snprintf(u->player[1], sizeof(u->player[1]), "%s", c.player[1]);
  u->score = c.winner == 0 ? 1.0 : 0.0;
  u->ended = c.ended;
  u->unit = c.last_game;
  return 1;
}

/* One more period in the growing array; -1 when memory runs out. */
static int push_unit(struct ref_rated **units, size_t *n, size_t *cap, const struct ref_rated *u)
{
  if(*n == *cap) {
    struct ref_rated *grown = realloc(*units, (*cap * 2 + 16) * sizeof(*u));
    if(!grown)
      return -1;
    *units = grown;
    *cap = *cap * 2 + 16;
  }
  (*units)[(*n)++] = *u;
  return 0;
}

static int unit_cmp(const void *a, const void *b)
{
  const struct ref_rated *x = a, *y = b;
  if(x->ended != y->ended)
    return x->ended < y->ended ? -1 : 1;
  return x->unit < y->unit ? -1 : x->unit > y->unit;
}

/* Every rating period of `kind` (NULL: all), in order. */
static int collect(struct ref_service *svc, const char *kind, struct ref_rated **units,
                   size_t *n)
{
  int64_t *ids = NULL;
  size_t nids = 0, i, cap = 0;
  int rc = 0;

  *units = NULL;
  *n = 0;
  if(store_game_list(svc->st, &ids, &nids) != STORE_OK)
    return -1;
  for(i = 0; i < nids && !rc; i++) {
    struct store_game row;
    struct ref_game_ctx g;
    struct ref_rated u;
    char why[256];
    int got;
    if(store_game_load(svc->st, &row, ids[i]) != STORE_OK) {
      rc = -1;
      break;
    }
    /* only what can count is replayed */
    if(row.phase != STORE_GAME_FINISHED || (kind && strcmp(row.kind, kind)))
      continue;
    if(ref_game_load(svc, &g, ids[i], why, sizeof(why))) {
      rc = -1;
      break;
    }
    got = ref_rated_game(svc, &g, &u);
    ref_game_free(&g);
    if(got < 0 || (got && push_unit(units, n, &cap, &u)))
      rc = -1;
  }
  free(ids);
  /* a backgammon match is one period, recounted from its games */
  ids = NULL;
  if(!rc && (!kind || !strcmp(kind, "backgammon")) &&
     store_match_list(svc->st, &ids, &nids) != STORE_OK)
    rc = -1;
  for(i = 0; !rc && ids && i < nids; i++) {
    struct ref_rated u;
    int got = ref_rated_match(svc, ids[i], &u);
    if(got < 0 || (got && push_unit(units, n, &cap, &u)))
      rc = -1;
  }
  free(ids);
  if(rc) {
    free(*units);
    *units = NULL;
    *n = 0;
    return -1;
  }
  if(*n) /* qsort wants an array, even of none */
    qsort(*units, *n, sizeof(**units), unit_cmp);
  return 0;
}

/* ---- one period ---- */

static void unrated(struct store_rating *r, const char *kind, const char *address)
{
  struct ref_glicko p;
  memset(r, 0, sizeof(*r));
  snprintf(r->kind, sizeof(r->kind), "%s", kind);
  snprintf(r->address, sizeof(r->address), "%s", address);
  ref_glicko_init(&p);
  r->rating = p.rating;
  r->rd = p.rd;
  r->volatility = p.volatility;
}

/* The two players after period u, from their ratings before it. */
static void period(struct store_rating *a, struct store_rating *b, const struct ref_rated *u)
{
  struct ref_glicko pa = {a->rating, a->rd, a->volatility}, pb = {b->rating, b->rd, b->volatility};
  struct ref_glicko_game ga = {b->rating, b->rd, u->score}, gb = {a->rating, a->rd, 1 - u->score};
  struct store_rating *both[2] = {a, b};
  const struct ref_glicko *after[2] = {&pa, &pb};
  int i;
  ref_glicko_period(&pa, &ga, 1, REF_GLICKO_TAU, NULL);
  ref_glicko_period(&pb, &gb, 1, REF_GLICKO_TAU, NULL);
  for(i = 0; i < 2; i++) {
    double s = i == 0 ? u->score : 1 - u->score;
    both[i]->rating = after[i]->rating;
    both[i]->rd = after[i]->rd;
    both[i]->volatility = after[i]->volatility;
    both[i]->games++;
    both[i]->wins += s == 1.0;
    both[i]->draws += s == 0.5;
    both[i]->losses += s == 0.0;
    both[i]->last_ended = u->ended;
    both[i]->last_unit = u->unit;
  }
}

/* ---- the rebuild ---- */

static int row_cmp(const void *a, const void *b)
{
  const struct store_rating *x = a, *y = b;
  int c = strcmp(x->kind, y->kind);
  if(c)
    return c;
  if(x->rating != y->rating)
    return x->rating > y->rating ? -1 : 1;
  return strcmp(x->address, y->address);
}

/* The index of (kind, address) in the table being built, added unrated
 * if new; -1 when memory runs out. */
static long row_of(struct store_rating **rows, size_t *n, size_t *cap, const char *kind,
                   const char *address)
{
  size_t i;
  for(i = 0; i < *n; i++)
    if(!strcmp((*rows)[i].kind, kind) && !strcmp((*rows)[i].address, address))
      return (long)i;
  if(*n == *cap) {
    struct store_rating *grown = realloc(*rows, (*cap * 2 + 16) * sizeof(**rows));
    if(!grown)
      return -1;
    *rows = grown;
    *cap = *cap * 2 + 16;
  }
  unrated(&(*rows)[*n], kind, address);
  return (long)(*n)++;
}

int ref_ratings_rebuild(struct ref_service *svc, const char *kind, struct store_rating **rows,
                        size_t *n)
{
  struct ref_rated *units = NULL;
  size_t nunits = 0, i, cap = 0;

  *rows = NULL;
  *n = 0;
  if(collect(svc, kind, &units, &nunits))
    return -1;
  for(i = 0; i < nunits; i++) {
    long a = row_of(rows, n, &cap, units[i].kind, units[i].player[0]);
    long b = a < 0 ? -1 : row_of(rows, n, &cap, units[i].kind, units[i].player[1]);
    if(b < 0) {
      free(units);
      free(*rows);
      *rows = NULL;
      *n = 0;
      return -1;
    }
    period(&(*rows)[a], &(*rows)[b], &units[i]);
  }
  free(units);
  if(*n)
    qsort(*rows, *n, sizeof(**rows), row_cmp);
  return 0;
}

int ref_ratings_store(struct ref_service *svc, const char *kind)
{
  struct store_rating *rows = NULL;
  size_t n = 0, i;
  int rc = 0;
  if(ref_ratings_rebuild(svc, kind, &rows, &n))
    return -1;
  if(store_rating_clear(svc->st, kind) != STORE_OK)
    rc = -1;
  for(i = 0; i < n && !rc; i++)
    if(store_rating_put(svc->st, &rows[i]) != STORE_OK)
      rc = -1;
  free(rows);
  return rc;
}

/* ---- a period that has just ended ---- */

int ref_ratings_apply(struct ref_service *svc, const struct ref_rated *u)
{
  struct store_rating *rows = NULL, a, b;
  size_t n = 0, i;
  int later = 0, rc;

  /* A period already in the table that sorts after this one (the clock
   * set back, two games ended in one second in the other order): the
   * table is rebuilt instead, so it stays what the rebuild gives. */
  if(store_rating_list(svc->st, &rows, &n, u->kind) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++)
    if(rows[i].last_ended > u->ended ||
       (rows[i].last_ended == u->ended && rows[i].last_unit > u->unit))
      later = 1;
  free(rows);
  if(later)
    return ref_ratings_store(svc, u->kind);
  rc = store_rating_get(svc->st, &a, u->kind, u->player[0]);
  if(rc == STORE_ENOTFOUND)
    unrated(&a, u->kind, u->player[0]);
  else if(rc != STORE_OK)
    return -1;
  rc = store_rating_get(svc->st, &b, u->kind, u->player[1]);
  if(rc == STORE_ENOTFOUND)
    unrated(&b, u->kind, u->player[1]);
  else if(rc != STORE_OK)
    return -1;
  period(&a, &b, u);
  return store_rating_put(svc->st, &a) == STORE_OK && store_rating_put(svc->st, &b) == STORE_OK
           ? 0
           : -1;
}

/* ---- the check ---- */

int ref_ratings_check(struct ref_service *svc, struct ref_problems *p, size_t *checked)
{
  struct store_rating *stored = NULL, *built = NULL;
  size_t ns = 0, nb = 0, i, j, bad = 0;

  *checked = 0;
  if(store_rating_list(svc->st, &stored, &ns, NULL) != STORE_OK ||
     ref_ratings_rebuild(svc, NULL, &built, &nb)) {
    free(stored);
    return -1;
  }
  for(i = 0; i < nb; i++) {
    const struct store_rating *b = &built[i], *s = NULL;
    for(j = 0; j < ns && !s; j++)
      if(!strcmp(stored[j].kind, b->kind) && !strcmp(stored[j].address, b->address))
        s = &stored[j];
    /* the same arithmetic in the same order: equal to the last bit */
    if(!s)
      ref_problem_add(p, "ratings", 0,
                      "%s %s: none stored, the journals give %.2f (RD %.2f, %d games)", b->kind,
                      b->address, b->rating, b->rd, b->games);
    else if(s->rating != b->rating || s->rd != b->rd || s->volatility != b->volatility ||
            s->games != b->games || s->wins != b->wins || s->draws != b->draws ||
            s->losses != b->losses)
      ref_problem_add(p, "ratings", 0,
                      "%s %s: stored %.2f (RD %.2f, %d games), the journals give %.2f"
                      " (RD %.2f, %d games)",
                      b->kind, b->address, s->rating, s->rd, s->games, b->rating, b->rd,
                      b->games);
    else
      continue;
    bad++;
  }
  /* and nothing stored that the journals do not give */
  for(j = 0; j < ns; j++) {
    for(i = 0; i < nb; i++)
      if(!strcmp(stored[j].kind, built[i].kind) && !strcmp(stored[j].address, built[i].address))
        break;
    if(i == nb) {
      ref_problem_add(p, "ratings", 0, "%s %s: stored %.2f, the journals give no rated game",
                      stored[j].kind, stored[j].address, stored[j].rating);
      bad++;
    }
  }
  *checked = nb;
  free(stored);
  free(built);
  return bad ? 1 : 0;
}

/* ---- the table for a mail ---- */

int ref_ratings_rows(struct ref_service *svc, const char *kind, const char *mark,
                     struct base_buf *out, size_t *nrows)
{
  struct store_rating *rows = NULL;
  size_t n = 0, i;
  if(store_rating_list(svc->st, &rows, &n, kind) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++)
    if(base_buf_printf(out, "%s%4zu  %6.0f  %4.0f  %5d  %s\n",
                       mark && !strcasecmp(rows[i].address, mark) ? "*" : " ", i + 1,
                       rows[i].rating, rows[i].rd, rows[i].games, rows[i].address)) {
      free(rows);
      return -1;
    }
  *nrows = n;
  free(rows);
  return 0;
}
