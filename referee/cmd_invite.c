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
int ref_do_new(struct ref_msg_ctx *m, const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  const struct ref_game_desc *d = ref_game_find(c->arg);
  struct ref_game_ctx g;
  struct ref_terms t;
  struct ref_err err;
  char *save = NULL, *tok, copy[256], text[600], to[REF_WITH_MAX * 258] = "";
  int inviter_seat = 0, rc = -1, i;
  const char *with[REF_WITH_MAX];
  int64_t id;

  memset(&g, 0, sizeof(g));
  ref_terms_init(&t);
  switch(ref_confirm_first(m, c->line)) {
  case -1: return -1;
  case 0: return 0; /* asked to confirm first (optin.c) */
  default: break;
  }
  if(!d)
    return ref_refuse(m, NULL, -1, c->line, "unknown-game", c->arg, NULL);
  if(c->nwith != d->seats - 1)
    return ref_refuse(m, NULL, -1, c->line, "wrong-player-count", "", NULL);
  if(c->options_cut)
    return ref_refuse(m, NULL, -1, c->line, "options-too-long", "", NULL);
  for(i = 0; i < c->nwith; i++) {
    if(!mail_addr_valid(c->with[i]))
      return ref_refuse(m, NULL, -1, c->line, "bad-address", c->with[i], NULL);
    if(!strcasecmp(c->with[i], m->mail->from))
      return ref_refuse(m, NULL, -1, c->line, "self-invite", c->with[i], NULL);
  }
  /* the terms (terms.c): "as black" picks the inviter's seat, the
   * service's words, the clock's, and key=value words for the rules */
  snprintf(copy, sizeof(copy), "%s", c->options);
  memset(&err, 0, sizeof(err));
  for(tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
    switch(ref_terms_word(d, &t, tok, &err)) {
    case 1: break;
    case 0: return ref_refuse(m, NULL, -1, c->line, "bad-option", tok, NULL);
    default: return ref_refuse(m, NULL, -1, c->line, err.reason, err.detail, NULL);
    }
  if(t.seat >= 0)
    inviter_seat = t.seat;
  /* The options must make a game before anyone is invited to it. */
  switch(ref_terms_check(d, t.opts, &err)) {
  case 0: break;
  case -1: return ref_refuse(m, NULL, -1, c->line, err.reason, err.detail, NULL);
  default: return -1;
  }
  /* An invitation to an address that holds no seat and never answered us
   * is mail to a stranger: within the hourly budget (optin.c), else the
   * inviter hears why and nothing is created. */
  for(i = 0; i < c->nwith; i++)
    with[i] = c->with[i];
  switch(ref_invitations_budget(svc, with, c->nwith, to, sizeof(to))) {
  case -1: return -1;
  case 0: return ref_refuse(m, NULL, -1, c->line, "stranger-budget", to, NULL);
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
  if(ref_clock_create(svc, id, t.days, t.weekends))
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
      snprintf(s->entropy, sizeof(s->entropy), "%s", m->message_id);
    }
    else
      snprintf(s->address, sizeof(s->address), "%s", c->with[invitee]);
    if(ref_make_token(s->token, sizeof(s->token)) || store_seat_put(svc->st, s) != STORE_OK)
      goto out;
  }
  /* dice-protocol.md: the chain is drawn and its commitment mailed before
   * any player accepts. */
  if((d->flags & REF_GAME_DICE) && ref_dice_new_chain(svc, id, 1, 0))
    goto out;
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
  if((i = (size_t)ref_tournament_answer(m, g, seat, c, 1)) != 1)
    return (int)i;
  if(s->accepted)
    return ref_refuse(m, g, seat, c->line, "already-accepted", "", NULL);
  s->accepted = true;
  /* dice-protocol.md: the text after "entropy:", else the Message-ID */
  snprintf(s->entropy, sizeof(s->entropy), "%s", c->entropy[0] ? c->entropy : m->message_id);
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
  int t;
  if(g->row.phase != STORE_GAME_INVITED)
    return ref_refuse(m, g, seat, c->line, "not-invited", "", NULL);
  /* a round robin's game: the whole tournament is cancelled */
  if((t = ref_tournament_answer(m, g, seat, c, 0)) != 1)
    return t;
  g->row.phase = STORE_GAME_CANCELLED;
  snprintf(g->row.result, sizeof(g->row.result), "declined by %s", g->desc->seat_names[seat]);
  if(ref_journal(m->svc, g, seat, "decline", "", NULL) || ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  return ref_tell_all(m, g, "declined.txt", extra, 1);
}
