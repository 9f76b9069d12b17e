/*
 * compete.c: what competition makes of a game that has just ended (issue
 * 19): the rating period it closes (ratings.c). Every handler that ends a
 * game calls ref_compete_game_over after mailing the result, inside the
 * same transaction, so what follows the result commits with it or not at
 * all. Layer 6, "handlers" (docs/architecture.md).
 */
#include "handlers_int.h"

#include "compete_int.h"

int ref_compete_game_over(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  struct ref_rated u;
  int rated;

  if(g->row.phase != STORE_GAME_FINISHED)
    return 0;
  rated = ref_rated_game(m->svc, g, &u);
  if(rated < 0 || (rated && ref_ratings_apply(m->svc, &u)))
    return -1;
  return 0;
}
