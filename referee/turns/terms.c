/*
 * terms.c: a game's terms as players write them after the game's name, in
 * `new`, `seek` and (its options) `tournament`: `as SEAT`, `private`,
 * `public-comments`, `rated`/`unrated`, the clock's `days=N`,
 * `weekends=on|off`, `time=...` and `double=on|off` (clock.c), and the rules' own `key=value` options,
 * which must make a game before anyone is invited to it or paired for it.
 * Read once here (seeks had a second copy of new's reader).
 * Layer 4, "turns and time" (docs/architecture.md): it asks the clock
 * which words are its own. It mails nothing: a refusal comes back as a
 * reason key and its detail, which the handler words (reasons.txt).
 */
#include "lifecycle_int.h"
#include "compete_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void ref_terms_init(struct ref_terms *t)
{
  memset(t, 0, sizeof(*t));
  t->seat = -1;
  t->weekends = -1;
}

static enum ref_rc refuse(struct ref_err *err, const char *reason, const char *detail)
{
  snprintf(err->reason, sizeof(err->reason), "%s", reason);
  snprintf(err->detail, sizeof(err->detail), "%s", detail);
  return REF_RC_REFUSED;
}

enum ref_rc ref_terms_word(const struct ref_game_desc *d, struct ref_terms *t, const char *tok,
                           struct ref_err *err)
{
  int i;
  if(t->pending_as) {
    t->pending_as = 0;
    for(i = 0; i < d->seats && strcasecmp(tok, d->seat_names[i]); i++)
      ;
    if(i == d->seats)
      return refuse(err, "bad-seat", tok);
    t->seat = i;
    return REF_RC_OK;
  }
  /* "as black" picks the writer's seat */
  if(!strcasecmp(tok, "as")) {
    t->pending_as = 1;
    return REF_RC_OK;
  }
  /* private: no observers; the service's, not the rules' */
  if(!strcasecmp(tok, "private")) {
    t->priv = 1;
    return REF_RC_OK;
  }
  /* public-comments: the players' words go to the observers too (issue
   * 18, talk.c); the service's, like private */
  if(!strcasecmp(tok, "public-comments")) {
    t->pub = 1;
    return REF_RC_OK;
  }
  /* unrated: the game counts for nobody's rating (result.c
   * reads the word in the "create" entry); rated is the default */
  if(!strcasecmp(tok, "unrated") || !strcasecmp(tok, "rated")) {
    t->unrated = !strcasecmp(tok, "unrated");
    return REF_RC_OK;
  }
  if(!strchr(tok, '='))
    return REF_RC_PASS;
  /* days=N, weekends=on|off, time=... and double=on|off are the
   * service's (clock.c), not the rules' */
  switch(ref_clock_option(tok, &t->days, &t->weekends, t->control, sizeof(t->control))) {
  case 1: return REF_RC_OK;
  case -1: return refuse(err, "bad-clock-option", tok);
  default: break;
  }
  /* Never cut an option short: a truncated position would set up another
   * game than the one written. */
  if(strlen(t->opts) + strlen(tok) + 2 > sizeof(t->opts))
    return refuse(err, "options-too-long", "");
  snprintf(t->opts + strlen(t->opts), sizeof(t->opts) - strlen(t->opts), "%s%s",
           t->opts[0] ? ";" : "", tok);
  return REF_RC_OK;
}

enum ref_rc ref_terms_check(const struct ref_game_desc *d, const char *opts, struct ref_err *err)
{
  struct ref_state *probe = ref_state_new(d);
  struct ref_err e;
  int rc;
  if(!probe)
    return REF_RC_FAIL;
  memset(&e, 0, sizeof(e));
  rc = d->ops->init(probe, opts[0] ? opts : NULL, &e);
  if(rc == REF_OK) {
    struct ref_status st;
    memset(&st, 0, sizeof(st));
    d->ops->status(probe, &st);
    free(probe);
    /* POS-1: no game starts from a position its rules have ended; its
     * result would count (ratings, a match) without a move */
    if(st.phase == REF_PHASE_OVER)
      return refuse(err, "position-over", ref_end_name(st.end));
    return REF_RC_OK;
  }
  free(probe);
  /* The rules' own reason (a bad position says what is wrong with
   * it), or the options the rules did not know. */
  if(e.reason[0])
    return refuse(err, e.reason, e.detail);
  return refuse(err, "bad-option", opts);
}

void ref_terms_to_tournament(const struct ref_terms *t, struct ref_tournament_spec *spec)
{
  snprintf(spec->opts, sizeof(spec->opts), "%s", t->opts);
  spec->days = t->days;
  spec->weekends = t->weekends;
  snprintf(spec->control, sizeof(spec->control), "%s", t->control);
  spec->unrated = t->unrated;
  spec->priv = t->priv;
  spec->pub = t->pub;
}
