/*
 * admin_compete.c: the operator's commands of competition:
 * `tabula ratings [GAME] [--rebuild]`, `tabula tournament new GAME NAME
 * PLAYER... [--double]` (the players are invited by mail, as by a
 * player's `tournament`) and `tabula tournament show NAME`. Layer 8, the
 * top (docs/architecture.md); the work is ratings.c's, tournament.c's
 * and compete.c's.
 */
#include "service_int.h"

#include "compete_int.h"
#include "mail.h"

#include <ctype.h>
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

/* ---- tabula tournament new GAME NAME PLAYER... [--double] | show NAME ---- */

int ref_service_tournament_new(struct ref_service *svc, FILE *out, const char *kind,
                               const char *name, char *const *words, int nwords, int cycles)
{
  struct ref_tournament_spec *spec = calloc(1, sizeof(*spec));
  struct ref_msg_ctx m;
  struct ref_terms terms;
  struct ref_err err;
  int64_t id = 0;
  int i, k, rc = REF_ADMIN_REFUSED;

  ref_msg_init(&m, svc);
  ref_terms_init(&terms);
  if(!spec)
    goto done;
  spec->d = ref_game_find(kind);
  spec->weekends = -1;
  spec->cycles = cycles;
  spec->organizer = svc->cfg.address;
  snprintf(spec->name, sizeof(spec->name), "%s", name);
  if(!ref_tournament_name_ok(name)) {
    fprintf(stderr, "tabula: '%s' cannot name a tournament: letters, digits, - and _ (at most "
                    "32, not only digits)\n", name);
    goto done;
  }
  if(!spec->d || spec->d->seats != 2) {
    fprintf(stderr, "tabula: no two-player game called '%s'\n", kind);
    goto done;
  }
  /* PLAYER words, and the terms `new` takes, through the same reader
   * (terms.c, rules-spec MX-5): not `as`, a round robin gives the colours */
  for(i = 0; i < nwords; i++) {
    if(!strcasecmp(words[i], "as")) {
      fprintf(stderr, "tabula: 'as' is no term of a round robin: the pairing gives the colours\n");
      goto done;
    }
    memset(&err, 0, sizeof(err));
    switch(ref_terms_word(spec->d, &terms, words[i], &err)) {
    case REF_RC_OK: continue;
    case REF_RC_PASS: break;
    default:
      fprintf(stderr, "tabula: option '%s' refused (%s)\n", words[i], err.reason);
      goto done;
    }
    if(ref_invitee_refused(svc, words[i])) {
      fprintf(stderr, "tabula: '%s' is not a mail address\n", words[i]);
      goto done;
    }
    for(k = 0; k < spec->nplayers; k++)
      if(!strcasecmp(spec->players[k], words[i]))
        break;
    if(k < spec->nplayers)
      continue;
    if(spec->nplayers == REF_TOURNAMENT_MAX) {
      fprintf(stderr, "tabula: at most %d players\n", REF_TOURNAMENT_MAX);
      goto done;
    }
    snprintf(spec->players[spec->nplayers], sizeof(spec->players[0]), "%s", words[i]);
    for(k = 0; spec->players[spec->nplayers][k]; k++)
      spec->players[spec->nplayers][k] =
        (char)tolower((unsigned char)spec->players[spec->nplayers][k]);
    spec->nplayers++;
  }
  if(spec->nplayers < 3) {
    fprintf(stderr, "tabula: a round robin needs 3 to %d players\n", REF_TOURNAMENT_MAX);
    goto done;
  }
  ref_terms_to_tournament(&terms, spec);
  memset(&err, 0, sizeof(err));
  switch(ref_terms_check(spec->d, spec->opts, &err)) {
  case REF_RC_OK: break;
  case REF_RC_REFUSED:
    fprintf(stderr, "tabula: the options '%s' make no game of %s: %s\n", spec->opts, kind,
            err.reason);
    goto done;
  default: rc = REF_ADMIN_FAILED; goto done;
  }
  if(store_begin(svc->st) != STORE_OK) {
    rc = REF_ADMIN_FAILED;
    goto done;
  }
  switch(ref_tournament_create(&m, spec, &id)) {
  case 0:
    if(store_commit(svc->st) != STORE_OK) {
      store_rollback(svc->st);
      rc = REF_ADMIN_FAILED;
      break;
    }
    fprintf(out, "tournament %lld (%s): %s, %s round robin of %d players; every player is "
                 "invited\n",
            (long long)id, spec->name, spec->d->name, cycles == 2 ? "double" : "single",
            spec->nplayers);
    rc = REF_ADMIN_OK;
    break;
  case 1:
    store_rollback(svc->st);
    fprintf(stderr, "tabula: there is already a tournament called '%s'\n", name);
    break;
  default:
    store_rollback(svc->st);
    fprintf(stderr, "tabula: the tournament was not made: %s\n", store_errmsg(svc->st));
    rc = REF_ADMIN_FAILED;
  }
done:
  free(spec);
  base_buf_free(&m.events);
  return rc;
}

int ref_service_standings(struct ref_service *svc, FILE *out, const char *name)
{
  struct store_tournament t;
  struct base_buf table;
  char counts[3][24];
  int rc = store_tournament_find(svc->st, &t, name);

  if(rc == STORE_ENOTFOUND) {
    char *end;
    long long n = strtoll(name, &end, 10);
    if(!*end && n > 0)
      rc = store_tournament_load(svc->st, &t, n);
  }
  if(rc == STORE_ENOTFOUND) {
    fprintf(stderr, "tabula: no tournament called '%s'\n", name);
    return REF_ADMIN_NO_GAME;
  }
  if(rc != STORE_OK) {
    fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
    return REF_ADMIN_FAILED;
  }
  base_buf_init(&table, 1024u * 1024u);
  if(ref_tournament_standings_vars(svc, &t, &table, counts)) {
    base_buf_free(&table);
    return REF_ADMIN_FAILED;
  }
  {
    static const char *const phases[] = {"invited", "playing", "finished", "cancelled"};
    fprintf(out, "tournament %lld (%s): %s, %s round robin, %s; %s of %s games decided\n\n%s\n",
            (long long)t.id, t.name, t.kind, t.cycles == 2 ? "double" : "single",
            phases[t.phase], counts[1], counts[0], table.s ? table.s : "");
  }
  base_buf_free(&table);
  return REF_ADMIN_OK;
}
