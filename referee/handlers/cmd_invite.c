/*
 * cmd_invite.c: a game's start: `new GAME [as SEAT] [private]
 * [unrated] [key=value ...] with ADDRESS`, the invitation; `accept [entropy: TEXT]` and
 * `decline` by the invited. The game starts when every seat has accepted:
 * the rules' start position, E fixed for dice games (dicechain.c), the
 * first rolls (turns.c). Layer 6, "handlers" (docs/architecture.md).
 */
#include "handlers_int.h"

#include "log.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* new GAME [as SEAT] [private] [unrated] [public-comments] [key=value...] with ADDRESS: an
 * invitation.
 * The game exists in the "invited" phase until every invitee accepts.
 * From an address that has never answered one of our mails it only asks
 * that address to confirm (optin.c): cmd_confirm.c runs it again
 * when the answer comes. */
/* When the options start the game elsewhere than its usual start (a
 * position given with pos= or fen=), that position becomes g->state with
 * g->preview set, for the invitation's board (views.c). 0 also when there
 * is nothing to show; -1 when out of memory. */
static int invite_preview(struct ref_game_ctx *g, const char *opts)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_state *given = NULL, *usual = NULL;
  char a[4096], b[4096];
  struct ref_err err;
  int rc = -1;

  if(!opts[0])
    return 0;
  given = ref_state_new(g->desc);
  usual = ref_state_new(g->desc);
  if(!given || !usual)
    goto out;
  rc = 0;
  if(ops->init(given, opts, &err) != REF_OK || ops->init(usual, NULL, &err) != REF_OK ||
     ops->encode(given, a, sizeof(a)) != REF_OK || ops->encode(usual, b, sizeof(b)) != REF_OK ||
     !strcmp(a, b))
    goto out;
  free(g->state);
  g->state = given;
  given = NULL;
  g->preview = 1;
out:
  free(given);
  free(usual);
  return rc;
}

static int do_new(struct ref_msg_ctx *m, const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  const struct ref_game_desc *d = ref_game_find(c->arg);
  struct ref_game_ctx g;
  struct ref_terms t;
  struct ref_err err;
  char *save = NULL, *tok, copy[256], text[600], to[REF_WITH_MAX * 258] = "";
  int inviter_seat = 0, rc = -1, i;
  const char *with[REF_WITH_MAX], *over = NULL;
  int64_t id;

  memset(&g, 0, sizeof(g));
  ref_terms_init(&t);
  /* Everything a `new` can be refused for is read before its sender is
   * asked to confirm it: a request that can only be refused is refused at
   * once, and no confirmation is spent on it (ref_refuse_request,
   * rules-spec MX-2); invitees are addr-specs as written (MX-3). */
  if(!d)
    return ref_refuse_request(m, c->line, "unknown-game", c->arg);
  if(c->with_more || c->nwith != d->seats - 1)
    return ref_refuse_request(m, c->line, "wrong-player-count", "");
  if(c->options_cut)
    return ref_refuse_request(m, c->line, "options-too-long", "");
  for(i = 0; i < c->nwith; i++) {
    const char *why = ref_invitee_refused(svc, c->with[i]);
    if(why)
      return ref_refuse_request(m, c->line, why, c->with[i]);
    if(!strcasecmp(c->with[i], m->mail->from))
      return ref_refuse_request(m, c->line, "self-invite", c->with[i]);
  }
  /* the terms (terms.c): "as black" picks the inviter's seat, the
   * service's words, the clock's, and key=value words for the rules */
  snprintf(copy, sizeof(copy), "%s", c->options);
  memset(&err, 0, sizeof(err));
  for(tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
    switch(ref_terms_word(d, &t, tok, &err)) {
    case REF_RC_OK: break;
    case REF_RC_PASS: return ref_refuse_request(m, c->line, "bad-option", tok);
    default: return ref_refuse_request(m, c->line, err.reason, err.detail);
    }
  if(t.seat >= 0)
    inviter_seat = t.seat;
  /* The options must make a game before anyone is invited to it. */
  switch(ref_terms_check(d, t.opts, &err)) {
  case REF_RC_OK: break;
  case REF_RC_REFUSED: return ref_refuse_request(m, c->line, err.reason, err.detail);
  default: return -1;
  }
  switch(ref_confirm_first(m, c->line)) {
  case REF_RC_OK: break;
  case REF_RC_STOP: return 0; /* asked to confirm first (optin.c) */
  default: return -1;
  }
  /* An invitation counts against its address's hourly allowance of
   * unasked mail, whoever sends it (rules-spec MX-4), and one to an address
   * that holds no seat and never answered us against the stranger budget
   * too (optin.c); over either the inviter hears why and nothing is
   * created. */
  for(i = 0; i < c->nwith; i++)
    with[i] = c->with[i];
  switch(ref_invitations_budget(svc, with, c->nwith, to, sizeof(to), &over)) {
  case -1: return -1;
  case 0: return ref_refuse(m, NULL, -1, c->line, over, to, NULL);
  default: break;
  }

  memset(&g.row, 0, sizeof(g.row));
  snprintf(g.row.kind, sizeof(g.row.kind), "%s", d->name);
  g.row.rules_version = d->version;
  snprintf(g.row.options, sizeof(g.row.options), "%s", t.opts);
  g.row.phase = STORE_GAME_INVITED;
  g.row.turn = -1;
  g.row.created = g.row.updated = ref_now(svc);
  g.row.draw_offer_seat = -1;
  if(store_game_create(svc->st, &id, &g.row) != STORE_OK)
    goto out;
  g.row.id = id;
  m->game = id;
  if(ref_clock_create(svc, id, t.days, t.weekends, t.control))
    goto out;
  /* dice-protocol.md: the chain is drawn and its commitment mailed before
   * any player accepts; before the seats, since the inviter's entropy
   * under tabula-dice-2 is keyed by the chain's salt. */
  if((d->flags & REF_GAME_DICE) && ref_dice_new_chain(svc, id, 1, 0))
    goto out;
  g.desc = d;
  g.nseats = (size_t)d->seats;
  g.seats = calloc(g.nseats, sizeof(*g.seats));
  if(!g.seats)
    goto out;
  for(i = 0; i < d->seats; i++) {
    struct store_seat *s = &g.seats[i];
    int invitee = i < inviter_seat ? i : i - 1;
    s->game = id;
    s->seat = i;
    if(i == inviter_seat) {
      snprintf(s->address, sizeof(s->address), "%s", m->mail->from);
      s->accepted = true;
      /* dice-protocol.md: the inviter's entropy is its own mail's */
      if(ref_dice_seat_entropy(svc, id, NULL, m->message_id, s->entropy, sizeof(s->entropy)))
        goto out;
    }
    else
      snprintf(s->address, sizeof(s->address), "%s", c->with[invitee]);
    if(ref_make_token(s->token, sizeof(s->token)) || store_seat_put(svc->st, s) != STORE_OK)
      goto out;
  }
  if(t.priv && ref_game_set_private(svc, id))
    goto out;
  if(t.pub && ref_game_set_public_comments(svc, id))
    goto out;
  snprintf(text, sizeof(text), "new %s%s%s%s%s%s by %s", d->name, t.priv ? " private" : "",
           t.unrated ? " unrated" : "", t.pub ? " public-comments" : "", t.opts[0] ? " " : "",
           t.opts, m->mail->from);
  if(ref_journal(svc, &g, inviter_seat, "create", text, NULL) ||
     ref_match_begin(svc, &g)) /* match=N: the first game of a match */
    goto out;
  /* POS-1: an invitation from a given position shows that position, the
   * board the invitee agrees to by accepting */
  if(invite_preview(&g, t.opts))
    goto out;
  for(i = 0; i < d->seats; i++) {
    struct tpl_var extra[4] = {{"inviter", m->mail->from},
                               {"private", t.priv ? "yes" : ""},
                               {"unrated", t.unrated ? "yes" : ""},
                               {"public_comments", t.pub ? "yes" : ""}};
    if(ref_tell_seat(m, &g, i, i == inviter_seat ? "invite-sent.txt" : "invite.txt", extra, 4))
      goto out;
  }
  m->changed = 1;
  ref_log_info("game %lld: %s invited by %s", (long long)id, d->name, m->mail->from);
  rc = 0;
out:
  ref_game_free(&g);
  return rc;
}

int ref_do_accept(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                  const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  struct store_seat *s = &g->seats[seat];
  struct ref_err err;
  size_t i, waiting = 0;

  if(g->row.phase != STORE_GAME_INVITED)
    return ref_refuse(m, g, seat, c->line, "not-invited", "", NULL);
  /* a round robin's game: one accept for all of the player's games */
  switch(ref_tournament_answer(m, g, seat, c, 1)) {
  case REF_RC_PASS: break;
  case REF_RC_FAIL: return -1;
  default: return 0;
  }
  if(s->accepted)
    return ref_refuse(m, g, seat, c->line, "already-accepted", "", NULL);
  s->accepted = true;
  /* dice-protocol.md: the text after "entropy:", else from the Message-ID */
  if(ref_dice_seat_entropy(svc, g->row.id, c->entropy, m->message_id, s->entropy,
                           sizeof(s->entropy)))
    return -1;
  if(store_seat_put(svc->st, s) != STORE_OK || ref_journal(svc, g, seat, "accept", "", NULL))
    return -1;
  for(i = 0; i < g->nseats; i++)
    if(!g->seats[i].accepted)
      waiting++;
  m->changed = 1;
  if(waiting) {
    return ref_tell_seat(m, g, seat, "accepted-waiting.txt", NULL, 0);
  }
  /* Every seat filled: the game starts from the rules' start position. */
  if(g->desc->ops->init(g->state, g->row.options[0] ? g->row.options : NULL, &err) != REF_OK)
    return -1;
  g->started = 1;
  g->row.phase = STORE_GAME_ACTIVE;
  if(ref_journal(svc, g, -1, "start", "", NULL))
    return -1;
  /* E is fixed now that every seat is filled; only then the first roll. */
  if((g->desc->flags & REF_GAME_DICE) && ref_dice_fix_entropy(svc, g, &m->events))
    return -1;
  if(ref_game_advance(m, g, &m->events) || ref_game_save(svc, g))
    return -1;
  ref_log_info("game %lld: started", (long long)g->row.id);
  m->observed = 1;
  return ref_tell_all(m, g, "start.txt", NULL, 0);
}

int ref_do_decline(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                   const struct ref_cmd *c)
{
  struct tpl_var extra[1] = {{"decliner", g->seats[seat].address}};
  if(g->row.phase != STORE_GAME_INVITED)
    return ref_refuse(m, g, seat, c->line, "not-invited", "", NULL);
  /* a round robin's game: the whole tournament is cancelled */
  switch(ref_tournament_answer(m, g, seat, c, 0)) {
  case REF_RC_PASS: break;
  case REF_RC_FAIL: return -1;
  default: return 0;
  }
  g->row.phase = STORE_GAME_CANCELLED;
  snprintf(g->row.result, sizeof(g->row.result), "declined by %s", g->desc->seat_names[seat]);
  if(ref_journal(m->svc, g, seat, "decline", "", NULL) || ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  return ref_tell_all(m, g, "declined.txt", extra, 1);
}

enum ref_rc ref_do_new(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_new(r->m, c));
}
