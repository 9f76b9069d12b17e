/*
 * admin_compete.c: the operator's commands of competition (issue 19):
 * `tabula ratings [GAME] [--rebuild]`. Layer 8, the top
 * (docs/architecture.md); the tables are ratings.c's.
 */
#include "service_int.h"

#include "compete_int.h"

#include <stdlib.h>
#include <string.h>

int ref_service_ratings(struct ref_service *svc, FILE *out, const char *kind, int rebuild)
{
  struct store_rating *rows = NULL;
  size_t n = 0, i;
  const char *last = "";

  if(kind && !ref_game_find(kind)) {
    fprintf(stderr, "tabula: no game called '%s'\n", kind);
    return REF_ADMIN_REFUSED;
  }
  if(rebuild) {
    /* the table is a cache of the journals: rewritten in one transaction */
    if(store_begin(svc->st) != STORE_OK)
      goto fail;
    if(ref_ratings_store(svc, kind) || store_commit(svc->st) != STORE_OK) {
      store_rollback(svc->st);
      goto fail;
    }
  }
  if(store_rating_list(svc->st, &rows, &n, kind) != STORE_OK)
    goto fail;
  for(i = 0; i < n; i++) {
    size_t rank = 1, count = 0, k;
    if(strcmp(rows[i].kind, last)) {
      for(k = i; k < n && !strcmp(rows[k].kind, rows[i].kind); k++)
        count++;
      fprintf(out, "%s%s: %zu rated player(s), Glicko-2\n"
                   "   #   rating       RD  volatility  games  won  drawn  lost  player\n",
              i ? "\n" : "", rows[i].kind, count);
      last = rows[i].kind;
    }
    for(k = 0; k < i; k++)
      rank += !strcmp(rows[k].kind, rows[i].kind);
    fprintf(out, "%4zu  %7.2f  %7.2f  %10.6f  %5d  %3d  %5d  %4d  %s\n", rank, rows[i].rating,
            rows[i].rd, rows[i].volatility, rows[i].games, rows[i].wins, rows[i].draws,
            rows[i].losses, rows[i].address);
  }
  if(!n)
    fprintf(out, "nobody is rated%s%s yet\n", kind ? " in " : "", kind ? kind : "");
  free(rows);
  return REF_ADMIN_OK;
fail:
  fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
  free(rows);
  return REF_ADMIN_FAILED;
}
