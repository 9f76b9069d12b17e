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

/* The ratings' two writers, of the rows store_rating_list gives (by
 * kind, best first): the rank is the place within the kind. */
static size_t rank_of(const struct store_rating *rows, size_t i)
{
  size_t rank = 1, k;
  for(k = 0; k < i; k++)
    rank += !strcmp(rows[k].kind, rows[i].kind);
  return rank;
}

static void ratings_text(FILE *out, const struct store_rating *rows, size_t n, const char *kind)
{
  size_t i;
  const char *last = "";
  for(i = 0; i < n; i++) {
    size_t count = 0, k;
    if(strcmp(rows[i].kind, last)) {
      for(k = i; k < n && !strcmp(rows[k].kind, rows[i].kind); k++)
        count++;
      fprintf(out, "%s%s: %zu rated player(s), Glicko-2\n"
                   "   #   rating       RD  volatility  games  won  drawn  lost  player\n",
              i ? "\n" : "", rows[i].kind, count);
      last = rows[i].kind;
    }
    fprintf(out, "%4zu  %7.2f  %7.2f  %10.6f  %5d  %3d  %5d  %4d  %s\n", rank_of(rows, i),
            rows[i].rating, rows[i].rd, rows[i].volatility, rows[i].games, rows[i].wins,
            rows[i].draws, rows[i].losses, rows[i].address);
  }
  if(!n)
    fprintf(out, "nobody is rated%s%s yet\n", kind ? " in " : "", kind ? kind : "");
}

static int ratings_json(FILE *out, const struct store_rating *rows, size_t n, const char *kind)
{
  json_t *doc = ref_json_doc("ratings"), *list = json_array();
  size_t i;
  int bad = !doc || !list;
  for(i = 0; i < n && !bad; i++) {
    json_t *o = json_object();
    bad = !o || ref_json_set_str(o, "kind", rows[i].kind) ||
          ref_json_set(o, "rank", json_integer((json_int_t)rank_of(rows, i))) ||
          ref_json_set_str(o, "address", rows[i].address) ||
          ref_json_set(o, "rating", json_real(rows[i].rating)) ||
          ref_json_set(o, "rd", json_real(rows[i].rd)) ||
          ref_json_set(o, "volatility", json_real(rows[i].volatility)) ||
          ref_json_set(o, "games", json_integer(rows[i].games)) ||
          ref_json_set(o, "won", json_integer(rows[i].wins)) ||
          ref_json_set(o, "drawn", json_integer(rows[i].draws)) ||
          ref_json_set(o, "lost", json_integer(rows[i].losses));
    bad = bad ? (json_decref(o), 1) : ref_json_push(list, o);
  }
  if(bad || ref_json_set(doc, "kind", kind ? ref_json_str(kind) : json_null()) ||
     ref_json_set(doc, "ratings", json_incref(list))) {
    json_decref(list);
    json_decref(doc);
    fprintf(stderr, "tabula: the JSON could not be made (out of memory)\n");
    return REF_ADMIN_FAILED;
  }
  json_decref(list);
  return ref_json_write(out, doc) ? REF_ADMIN_FAILED : REF_ADMIN_OK;
}

int ref_service_ratings(struct ref_service *svc, FILE *out, const char *kind, int rebuild,
                        enum ref_output form)
{
  struct store_rating *rows = NULL;
  size_t n = 0;
  int rc = REF_ADMIN_OK;

  if(kind && !ref_game_find(kind)) {
    fprintf(stderr, "tabula: no game called '%s'\n", kind);
    return REF_ADMIN_REFUSED;
  }
  if(rebuild) {
    /* the table is a cache of the journals: rewritten in one transaction */
    if(store_begin(svc->st) != STORE_OK)
      goto fail;
    if(ref_ratings_store(svc, kind) || store_commit(svc->st) != STORE_OK) {
      ref_store_rollback(svc);
      goto fail;
    }
  }
  if(store_rating_list(svc->st, &rows, &n, kind) != STORE_OK)
    goto fail;
  if(form == REF_OUTPUT_JSON)
    rc = ratings_json(out, rows, n, kind);
  else
    ratings_text(out, rows, n, kind);
  free(rows);
  return rc;
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
      ref_store_rollback(svc);
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
    ref_store_rollback(svc);
    fprintf(stderr, "tabula: there is already a tournament called '%s'\n", name);
    break;
  default:
    ref_store_rollback(svc);
    fprintf(stderr, "tabula: the tournament was not made: %s\n", store_errmsg(svc->st));
    rc = REF_ADMIN_FAILED;
  }
done:
  free(spec);
  base_buf_free(&m.events);
  return rc;
}

static const char *const tournament_phases[] = {"invited", "playing", "finished", "cancelled"};

/* The standings as JSON (docs/json.md), from the data the table is
 * written from (tournament.c's ref_tournament_standings). */
static int standings_json(struct ref_service *svc, FILE *out, const struct store_tournament *t)
{
  struct ref_standings *st = calloc(1, sizeof(*st));
  json_t *doc = ref_json_doc("standings"), *lines = json_array(), *players = json_array();
  size_t i, k;
  int bad = !st || !doc || !lines || !players;

  if(!bad && ref_tournament_standings(svc, t, st)) {
    fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
    bad = 1;
  }
  for(i = 0; !bad && i < st->n; i++) {
    const struct ref_standing *l = &st->line[i];
    json_t *o = json_object(), *cross = json_array();
    bad = !o || !cross;
    for(k = 0; !bad && k < st->n; k++)
      bad = ref_json_push(cross, ref_json_str(l->cell[k]));
    bad = bad || ref_json_set(o, "place", json_integer(l->place)) ||
          ref_json_set(o, "number", json_integer(l->number)) ||
          ref_json_set_str(o, "address", l->address) ||
          ref_json_set(o, "points", json_real(l->points)) ||
          ref_json_set(o, "sonneborn_berger", json_real(l->sb)) ||
          ref_json_set(o, "crosstable", json_incref(cross));
    json_decref(cross);
    bad = bad ? (json_decref(o), 1) : ref_json_push(lines, o);
  }
  for(i = 0; !bad && i < st->n; i++) {
    json_t *o = json_object();
    bad = !o || ref_json_set(o, "number", json_integer(st->player[i].number)) ||
          ref_json_set_str(o, "address", st->player[i].address);
    bad = bad ? (json_decref(o), 1) : ref_json_push(players, o);
  }
  if(bad || ref_json_set(doc, "tournament", json_integer(t->id)) ||
     ref_json_set_str(doc, "name", t->name) || ref_json_set_str(doc, "kind", t->kind) ||
     ref_json_set(doc, "cycles", json_integer(t->cycles)) ||
     ref_json_set_str(doc, "phase", (unsigned)t->phase < 4 ? tournament_phases[t->phase] : "?") ||
     ref_json_set(doc, "games", json_integer((json_int_t)st->count.games)) ||
     ref_json_set(doc, "decided", json_integer((json_int_t)st->count.finished)) ||
     ref_json_set(doc, "cancelled", json_integer((json_int_t)st->count.cancelled)) ||
     ref_json_set(doc, "standings", json_incref(lines)) ||
     ref_json_set(doc, "players", json_incref(players))) {
    json_decref(lines);
    json_decref(players);
    json_decref(doc);
    free(st);
    return REF_ADMIN_FAILED;
  }
  json_decref(lines);
  json_decref(players);
  free(st);
  return ref_json_write(out, doc) ? REF_ADMIN_FAILED : REF_ADMIN_OK;
}

int ref_service_standings(struct ref_service *svc, FILE *out, const char *name,
                          enum ref_output form)
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
  {
    /* a knockout shows its bracket (its kind's table, events.c) */
    int length;
    rc = store_knockout_length(svc->st, &length, t.id);
    if(rc == STORE_OK && form != REF_OUTPUT_JSON) {
      base_buf_init(&table, 1024u * 1024u);
      if(ref_knockout_bracket(svc, &t, &table)) {
        base_buf_free(&table);
        return REF_ADMIN_FAILED;
      }
      fprintf(out, "tournament %lld (%s): %s knockout, matches to %d, %s\n\n%s\n",
              (long long)t.id, t.name, t.kind, length, tournament_phases[t.phase],
              table.s ? table.s : "");
      base_buf_free(&table);
      return REF_ADMIN_OK;
    }
    if(rc != STORE_OK && rc != STORE_ENOTFOUND) {
      fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
      return REF_ADMIN_FAILED;
    }
  }
  if(form == REF_OUTPUT_JSON)
    return standings_json(svc, out, &t);
  base_buf_init(&table, 1024u * 1024u);
  if(ref_tournament_standings_vars(svc, &t, &table, counts)) {
    base_buf_free(&table);
    return REF_ADMIN_FAILED;
  }
  fprintf(out, "tournament %lld (%s): %s, %s round robin, %s; %s of %s games decided\n\n%s\n",
          (long long)t.id, t.name, t.kind, t.cycles == 2 ? "double" : "single",
          tournament_phases[t.phase], counts[1], counts[0], table.s ? table.s : "");
  base_buf_free(&table);
  return REF_ADMIN_OK;
}
