/*
 * process.c: what one mail does. ref_service_process wraps everything in one
 * store transaction; the handlers below decide, through the rules, what
 * changes and who is told. A refused command changes nothing but the
 * "message seen" record and the reply that says why.
 */
#include "service_int.h"

#include "buf.h"
#include "commands.h"
#include "dice.h"
#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define BOARD_MAX 8192

/* ---- what every game mail shows: the view of one seat ---- */

struct view {
  char game[24], seat[32], opponent[MAIL_ADDR_MAX], player[MAIL_ADDR_MAX];
  char board[BOARD_MAX], position[600], status[400], last_move[160], result[96];
  char commitment[200], guard[24];
  char time_control[96], move_deadline[40]; /* clock.c */
  struct tpl_var vars[24];
  size_t n;
};

static void add_var(struct view *v, const char *name, const char *value)
{
  v->vars[v->n].name = name;
  v->vars[v->n].value = value;
  v->n++;
}

/* The sentence saying whose turn it is, or how the game ended. */
static void status_sentence(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                            char *buf, size_t cap)
{
  const char *dir = m->svc->cfg.templates_dir;
  struct ref_status s;
  struct tpl_var vars[3];
  char result[96];

  if(!g->started) {
    tpl_line(buf, cap, dir, "phrases.txt", "not-started", NULL, 0);
    return;
  }
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER || g->row.phase == STORE_GAME_FINISHED) {
    /* a loss on time (clock.c) ends the game outside the rules */
    if(s.phase == REF_PHASE_OVER)
      ref_result_text(result, sizeof(result), g->desc, &s);
    else
      snprintf(result, sizeof(result), "%s", g->row.result);
    vars[0].name = "result";
    vars[0].value = result;
    tpl_line(buf, cap, dir, "phrases.txt", "over", vars, 1);
    return;
  }
  vars[0].name = "seat";
  vars[0].value = g->desc->seat_names[s.turn];
  vars[1].name = "player";
  vars[1].value = g->seats[s.turn].address;
  vars[2].name = "check";
  vars[2].value = s.in_check ? " (in check)" : "";
  {
    const char *key = s.turn == seat ? "your-turn" : "their-turn";
    if(s.phase == REF_PHASE_CUBE)
      key = s.turn == seat ? "your-cube" : "their-cube";
    else if(s.phase == REF_PHASE_CUBE_REPLY)
      key = s.turn == seat ? "your-cube-reply" : "their-cube-reply";
    tpl_line(buf, cap, dir, "phrases.txt", key, vars, 3);
  }
}

static void build_view(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       struct view *v)
{
  int other = g->nseats == 2 ? 1 - seat : -1;
  memset(v, 0, sizeof(*v));
  snprintf(v->game, sizeof(v->game), "%lld", (long long)g->row.id);
  snprintf(v->seat, sizeof(v->seat), "%s", seat >= 0 ? g->desc->seat_names[seat] : "");
  if(seat >= 0)
    snprintf(v->player, sizeof(v->player), "%s", g->seats[seat].address);
  if(other >= 0)
    snprintf(v->opponent, sizeof(v->opponent), "%s", g->seats[other].address);
  if(g->started) {
    size_t len;
    if(g->desc->ops->render(g->state, seat < 0 ? 0 : seat, v->board, sizeof(v->board)) !=
       REF_OK)
      v->board[0] = '\0';
    /* the template places the board; its own line ends are enough */
    len = strlen(v->board);
    while(len && v->board[len - 1] == '\n')
      v->board[--len] = '\0';
    g->desc->ops->encode(g->state, v->position, sizeof(v->position));
    {
      /* "#N" as the guard reads it: ops->status move_number */
      struct ref_status st;
      g->desc->ops->status(g->state, &st);
      if(st.phase != REF_PHASE_OVER)
        snprintf(v->guard, sizeof(v->guard), "#%d", st.move_number);
    }
  }
  status_sentence(m, g, seat, v->status, sizeof(v->status));
  snprintf(v->last_move, sizeof(v->last_move), "%s", g->played[0] ? g->played : g->last_move);
  snprintf(v->result, sizeof(v->result), "%s", g->row.result);
  add_var(v, "game", v->game);
  add_var(v, "title", g->desc->title);
  add_var(v, "seat", v->seat);
  add_var(v, "player", v->player);
  add_var(v, "opponent", v->opponent);
  add_var(v, "board", v->board);
  add_var(v, "position", v->position);
  add_var(v, "status", v->status);
  add_var(v, "last_move", v->last_move);
  add_var(v, "result", v->result);
  add_var(v, "events", m->events.s ? m->events.s : "");
  if(g->desc->flags & REF_GAME_DICE)
    ref_dice_commitment_line(m->svc, g->row.id, v->commitment, sizeof(v->commitment));
  add_var(v, "dice_commitment", v->commitment);
  add_var(v, "guard", v->guard);
  ref_clock_view(m->svc, g, seat, v->time_control, sizeof(v->time_control), v->move_deadline,
                 sizeof(v->move_deadline));
  add_var(v, "time_control", v->time_control);
  add_var(v, "move_deadline", v->move_deadline);
}

/* Sends template `tmpl` to one seat with that seat's view, plus extras. */
static int tell_seat(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *tmpl,
                     const struct tpl_var *extra, size_t nextra)
{
  struct view *v = malloc(sizeof(*v));
  size_t i;
  int rc;
  if(!v)
    return -1;
  build_view(m, g, seat, v);
  for(i = 0; i < nextra && v->n < sizeof(v->vars) / sizeof(v->vars[0]); i++)
    v->vars[v->n++] = extra[i];
  rc = ref_reply(m, g, seat, g->seats[seat].address, tmpl, v->vars, v->n);
  free(v);
  return rc;
}

static int tell_all(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                    const struct tpl_var *extra, size_t nextra)
{
  size_t s;
  for(s = 0; s < g->nseats; s++)
    if(tell_seat(m, g, (int)s, tmpl, extra, nextra))
      return -1;
  return 0;
}

int ref_tell_seat(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *tmpl,
                  const struct tpl_var *extra, size_t nextra)
{
  return tell_seat(m, g, seat, tmpl, extra, nextra);
}

int ref_tell_all(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                 const struct tpl_var *extra, size_t nextra)
{
  return tell_all(m, g, tmpl, extra, nextra);
}

/* observe GAME: each observer gets the board from the first seat's side,
 * with no key and no tokened Reply-To, so nothing it sends can act. */
int ref_tell_observers(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                       const struct tpl_var *extra, size_t nextra)
{
  char list[32 * 260], *save = NULL, *tok;
  if(ref_observers(m->svc, g->row.id, list, sizeof(list)))
    return -1;
  for(tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    struct view *v = malloc(sizeof(*v));
    size_t i;
    int rc;
    if(!v)
      return -1;
    build_view(m, g, -1, v);
    for(i = 0; i < nextra && v->n < sizeof(v->vars) / sizeof(v->vars[0]); i++)
      v->vars[v->n++] = extra[i];
    rc = ref_reply(m, g, -1, tok, tmpl, v->vars, v->n);
    free(v);
    if(rc)
      return -1;
  }
  return 0;
}

/* A refusal: quotes the input, says why, offers the nearest legal moves.
 * Nothing in the game changes (the caller has not touched it). */
static int refuse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *input,
                  const char *reason, const char *detail, const struct ref_err *err)
{
  const char *dir = m->svc->cfg.templates_dir;
  char why[512];
  struct ref_buf sugg;
  struct tpl_var extra[6];
  char help[8] = "";
  int rc, i;

  tpl_reason(why, sizeof(why), dir, reason, detail);
  /* issue 6: unknown words are answered with help, never guessed */
  if((err && err->code == REF_EPARSE) || !strcmp(reason, "unreadable") ||
     !strcmp(reason, "no-command") || !strcmp(reason, "no-game-tag"))
    snprintf(help, sizeof(help), "yes"); /* refused.txt lists the commands */
  ref_buf_init(&sugg, 4096);
  for(i = 0; err && i < err->nsuggest; i++)
    ref_buf_printf(&sugg, "%s%s", i ? ", " : "", err->suggest[i]);
  extra[0].name = "input";
  extra[0].value = input;
  extra[1].name = "reason";
  extra[1].value = why;
  extra[2].name = "suggestions";
  extra[2].value = sugg.s ? sugg.s : "";
  extra[3].name = "help";
  extra[3].value = help;
  /* no game: the game's placeholders are empty, not left as written */
  extra[4].name = "board";
  extra[4].value = "";
  extra[5].name = "status";
  extra[5].value = "";
  m->refused = 1;
  if(g && seat >= 0)
    rc = tell_seat(m, g, seat, "refused.txt", extra, 4);
  else
    rc = ref_reply(m, NULL, -1, m->mail->from, "refused.txt", extra, 6);
  ref_buf_free(&sugg);
  return rc;
}

/* For clock.c: a refusal from outside this file. */
int ref_refuse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *input,
               const char *reason, const char *detail, const struct ref_err *err)
{
  return refuse(m, g, seat, input, reason, detail, err);
}

/* ---- finding the game: local+GAME.TOKEN@ or "[tabula GAME TOKEN]" ---- */

/* `delim` is the MTA's recipient delimiter (config recipient_delimiter);
 * with "-" the local part may hold others, so every one is tried. */
static int tag_from_address(const char *addr, char delim, int64_t *game, char *token,
                            size_t cap)
{
  const char *at = strrchr(addr, '@'), *plus;
  if(!at)
    return -1;
  for(plus = addr; (plus = memchr(plus, delim, (size_t)(at - plus))); plus++) {
    const char *dot;
    char *end;
    long long id = strtoll(plus + 1, &end, 10);
    dot = end;
    /* at most 18 digits: a longer number names no game (issue 20) */
    if(end == plus + 1 || end - plus > 19 || !isdigit((unsigned char)plus[1]) || *dot != '.' ||
       id <= 0 ||
       dot >= at || (size_t)(at - dot - 1) >= cap || at == dot + 1)
      continue;
    memcpy(token, dot + 1, (size_t)(at - dot - 1));
    token[at - dot - 1] = '\0';
    *game = id;
    return 0;
  }
  return -1;
}

static int tag_from_subject(const char *subject, int64_t *game, char *token, size_t cap)
{
  const char *p = strstr(subject, "[tabula ");
  long long id;
  char tok[64];
  size_t digits = p ? strspn(p + 8, "0123456789") : 0;
  /* At most 18 digits, then a space: a longer number names no game (%lld
   * is undefined on overflow, issue 20). */
  if(!p || digits < 1 || digits > 18 || p[8 + digits] != ' ' ||
     sscanf(p, "[tabula %lld %63[a-z0-9]]", &id, tok) != 2 || id <= 0 || strlen(tok) >= cap)
    return -1;
  *game = id;
  snprintf(token, cap, "%s", tok);
  return 0;
}

/* ---- handlers ---- */

static int seat_of(const struct ref_game_ctx *g, const char *address)
{
  size_t i;
  for(i = 0; i < g->nseats; i++)
    if(!strcasecmp(g->seats[i].address, address))
      return (int)i;
  return -1;
}

/* help [GAME]: help-GAME.txt for a registered game (its notation, its
 * options for "new"), else the general help. */
static int do_help(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *arg)
{
  const struct ref_game_desc *d = NULL;
  char name[80], word[40] = "";
  const char *tmpl = "help.txt";
  size_t i;
  for(i = 0; arg && arg[i] && !isspace((unsigned char)arg[i]) && i + 1 < sizeof(word); i++)
    word[i] = (char)tolower((unsigned char)arg[i]);
  word[i] = '\0';
  if(word[0])
    d = ref_game_find(word);
  if(d) {
    snprintf(name, sizeof(name), "help-%s.txt", d->name);
    if(tpl_exists(m->svc->cfg.templates_dir, name))
      tmpl = name;
  }
  if(g && seat >= 0)
    return tell_seat(m, g, seat, tmpl, NULL, 0);
  return ref_reply(m, NULL, -1, m->mail->from, tmpl, NULL, 0);
}

/* new GAME [as SEAT] [key=value...] with ADDRESS: an invitation. The game
 * exists in the "invited" phase until every invitee accepts. */
static int do_new(struct ref_msg_ctx *m, const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  const struct ref_game_desc *d = ref_game_find(c->arg);
  struct ref_game_ctx g;
  struct ref_state *probe = NULL;
  struct ref_err err;
  char opts[256] = "", *save = NULL, *tok, copy[256], text[600];
  int inviter_seat = 0, rc = -1, i, pending_as = 0, days = 0, weekends = -1;
  int64_t id;

  memset(&g, 0, sizeof(g));
  if(!d)
    return refuse(m, NULL, -1, c->line, "unknown-game", c->arg, NULL);
  if(c->nwith != d->seats - 1)
    return refuse(m, NULL, -1, c->line, "wrong-player-count", "", NULL);
  if(c->options_cut)
    return refuse(m, NULL, -1, c->line, "options-too-long", "", NULL);
  for(i = 0; i < c->nwith; i++) {
    if(!mail_addr_valid(c->with[i]))
      return refuse(m, NULL, -1, c->line, "bad-address", c->with[i], NULL);
    if(!strcasecmp(c->with[i], m->mail->from))
      return refuse(m, NULL, -1, c->line, "self-invite", c->with[i], NULL);
  }
  /* "as black" picks the inviter's seat; key=value words go to the rules */
  snprintf(copy, sizeof(copy), "%s", c->options);
  for(tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
    if(!strcasecmp(tok, "as")) {
      pending_as = 1;
      continue;
    }
    if(pending_as) {
      int s, found = 0;
      for(s = 0; s < d->seats; s++)
        if(!strcasecmp(tok, d->seat_names[s])) {
          inviter_seat = s;
          found = 1;
        }
      if(!found)
        return refuse(m, NULL, -1, c->line, "bad-seat", tok, NULL);
      pending_as = 0;
      continue;
    }
    if(!strchr(tok, '='))
      return refuse(m, NULL, -1, c->line, "bad-option", tok, NULL);
    /* days=N and weekends=on|off are the service's (clock.c), not the rules' */
    switch(ref_clock_option(tok, &days, &weekends)) {
    case 1: continue;
    case -1: return refuse(m, NULL, -1, c->line, "bad-clock-option", tok, NULL);
    default: break;
    }
    /* Never cut an option short: a truncated position would set up
     * another game than the one the inviter wrote. */
    if(strlen(opts) + strlen(tok) + 2 > sizeof(opts))
      return refuse(m, NULL, -1, c->line, "options-too-long", "", NULL);
    snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s", opts[0] ? ";" : "",
             tok);
  }
  /* The options must make a game before anyone is invited to it. */
  probe = ref_state_new(d);
  if(!probe)
    return -1;
  memset(&err, 0, sizeof(err));
  if(d->ops->init(probe, opts[0] ? opts : NULL, &err) != REF_OK) {
    free(probe);
    /* The rules' own reason (a bad position says what is wrong with it,
     * issue 20), or the option the rules did not know. */
    if(err.reason[0])
      return refuse(m, NULL, -1, c->line, err.reason, err.detail, NULL);
    return refuse(m, NULL, -1, c->line, "bad-option", opts, NULL);
  }
  free(probe);

  memset(&g.row, 0, sizeof(g.row));
  snprintf(g.row.kind, sizeof(g.row.kind), "%s", d->name);
  g.row.rules_version = d->version;
  snprintf(g.row.options, sizeof(g.row.options), "%s", opts);
  g.row.phase = STORE_GAME_INVITED;
  g.row.turn = -1;
  g.row.created = g.row.updated = ref_now(svc);
  g.row.draw_offer_seat = -1;
  if(store_game_create(svc->st, &id, &g.row) != STORE_OK)
    goto out;
  g.row.id = id;
  if(ref_clock_create(svc, id, days, weekends))
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
  snprintf(text, sizeof(text), "new %s%s%s by %s", d->name, opts[0] ? " " : "", opts,
           m->mail->from);
  if(ref_journal(svc, &g, inviter_seat, "create", text, NULL))
    goto out;
  for(i = 0; i < d->seats; i++) {
    struct tpl_var extra[1] = {{"inviter", m->mail->from}};
    if(tell_seat(m, &g, i, i == inviter_seat ? "invite-sent.txt" : "invite.txt", extra, 1))
      goto out;
  }
  m->changed = 1;
  ref_log_info("game %lld: %s invited by %s", (long long)id, d->name, m->mail->from);
  rc = 0;
out:
  ref_game_free(&g);
  return rc;
}

static int do_accept(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  struct store_seat *s = &g->seats[seat];
  struct ref_err err;
  size_t i, waiting = 0;

  if(g->row.phase != STORE_GAME_INVITED)
    return refuse(m, g, seat, c->line, "not-invited", "", NULL);
  if(s->accepted)
    return refuse(m, g, seat, c->line, "already-accepted", "", NULL);
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
    return tell_seat(m, g, seat, "accepted-waiting.txt", NULL, 0);
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
  return tell_all(m, g, "start.txt", NULL, 0);
}

static int do_decline(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_cmd *c)
{
  struct tpl_var extra[1] = {{"decliner", g->seats[seat].address}};
  if(g->row.phase != STORE_GAME_INVITED)
    return refuse(m, g, seat, c->line, "not-invited", "", NULL);
  g->row.phase = STORE_GAME_CANCELLED;
  snprintf(g->row.result, sizeof(g->row.result), "declined by %s", g->desc->seat_names[seat]);
  if(ref_journal(m->svc, g, seat, "decline", "", NULL) || ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  return tell_all(m, g, "declined.txt", extra, 1);
}

/* Finishes the bookkeeping of a rules change: save, and if the game ended,
 * journal the result and tell everyone. */
static int after_change(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const char *mover_tmpl, const char *other_tmpl)
{
  struct ref_status s;
  size_t i;

  if(ref_game_advance(m, g, &m->events) || ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  m->observed = 1;
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER) {
    if(ref_journal(m->svc, g, -1, "end", g->row.result, NULL))
      return -1;
    ref_log_info("game %lld: over, %s", (long long)g->row.id, g->row.result);
    return tell_all(m, g, "game-over.txt", NULL, 0);
  }
  /* A turn mailed in parts (Backgammon Chess: the play, then the chess
   * move): the mover still holds the turn and nothing was rolled or played
   * for anyone else, so the opponent has nothing new to hear yet. */
  if(s.turn == seat && s.phase == REF_PHASE_MOVE && !(m->events.s && m->events.s[0]))
    other_tmpl = NULL;
  for(i = 0; i < g->nseats; i++) {
    const char *t = (int)i == seat ? mover_tmpl : other_tmpl;
    if(t && tell_seat(m, g, (int)i, t, NULL, 0))
      return -1;
  }
  return 0;
}

static int do_action(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c, enum ref_action a, int arg)
{
  struct ref_err err;
  char text[64];
  memset(&err, 0, sizeof(err));
  if(g->desc->ops->act(g->state, seat, a, arg, &err) != REF_OK)
    return refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "illegal", err.detail,
                  &err);
  ref_action_text(text, sizeof(text), a, arg);
  if(ref_journal(m->svc, g, seat, "action", text, NULL))
    return -1;
  return after_change(m, g, seat, NULL, NULL);
}

static int do_draw(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                   const struct ref_cmd *c)
{
  int offer = (int)g->row.draw_offer_seat;
  if(!(g->desc->flags & REF_GAME_DRAWS))
    return refuse(m, g, seat, c->line, "no-draws", g->desc->title, NULL);
  switch(c->kind) {
  case REF_CMD_DRAW_OFFER:
    if(offer == seat)
      return refuse(m, g, seat, c->line, "draw-already-offered", "", NULL);
    if(offer >= 0) /* both offered: that is agreement */
      break;
    g->row.draw_offer_seat = seat;
    if(ref_journal(m->svc, g, seat, "offer", "draw offer", NULL) || ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return tell_seat(m, g, 1 - seat, "draw-offered.txt", NULL, 0) ||
           tell_seat(m, g, seat, "draw-offer-sent.txt", NULL, 0);
  case REF_CMD_DRAW_DECLINE:
    if(offer < 0 || offer == seat)
      return refuse(m, g, seat, c->line, "no-draw-offer", "", NULL);
    g->row.draw_offer_seat = -1;
    if(ref_journal(m->svc, g, seat, "offer", "draw declined", NULL) ||
       ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return tell_all(m, g, "draw-declined.txt", NULL, 0);
  case REF_CMD_DRAW_ACCEPT:
    if(offer < 0 || offer == seat)
      return refuse(m, g, seat, c->line, "no-draw-offer", "", NULL);
    break;
  case REF_CMD_DRAW_CLAIM:
    return do_action(m, g, seat, c, REF_ACT_DRAW_CLAIM, 0);
  default:
    return -1;
  }
  g->row.draw_offer_seat = -1;
  return do_action(m, g, seat, c, REF_ACT_DRAW_AGREED, 0);
}

static int do_legal(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  struct ref_movelist list = {0};
  struct ref_buf b;
  struct tpl_var extra[1];
  size_t i;
  int rc;

  if(!g->started)
    return refuse(m, g, seat, "legal", "not-started", "", NULL);
  ref_buf_init(&b, 256 * 1024);
  rc = g->desc->ops->legal(g->state, &list);
  if(rc == REF_EPHASE) {
    /* A dice game lists no moves before the roll or after the end
     * (backgammon.c, tables_chess.c, backgammon_chess.c): a refusal, not a
     * failure, which would leave the mail to be retried for ever and hold
     * up the inbox behind it. */
    struct ref_status s;
    ref_movelist_free(&list);
    g->desc->ops->status(g->state, &s);
    return refuse(m, g, seat, "legal", s.phase == REF_PHASE_OVER ? "game-over" : "bg-no-roll-yet",
                  "", NULL);
  }
  if(rc != REF_OK)
    return -1;
  for(i = 0; i < list.n; i++) {
    char mv[REF_NOTATION_MAX];
    g->desc->ops->format(g->state, &list.v[i], REF_NOTATION_CANONICAL, mv, sizeof(mv));
    /* eight to a line keeps the list under 72 columns */
    ref_buf_printf(&b, "%s%s", i == 0 ? "" : (i % 8 == 0 ? "\n" : "  "), mv);
  }
  extra[0].name = "moves";
  extra[0].value = b.s ? b.s : "";
  rc = tell_seat(m, g, seat, "legal.txt", extra, 1);
  ref_buf_free(&b);
  ref_movelist_free(&list);
  return rc;
}

/* The move of this mail: exactly one candidate line must read as a legal
 * move (rules-spec.md §1.1: one turn per email). */
static int do_move(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                   const struct ref_cmds *cmds, int notify)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_err err, best_err;
  struct ref_move mv, found;
  struct ref_status s;
  const char *best_input = NULL;
  char canon[REF_NOTATION_MAX], numbered[160];
  int i, nfound = 0, best_rank = -1;

  ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER)
    return refuse(m, g, seat, cmds->cand[0], "game-over", "", NULL);
  if(s.turn != seat)
    return refuse(m, g, seat, cmds->cand[0], "not-your-turn", g->desc->seat_names[s.turn],
                  NULL);
  memset(&best_err, 0, sizeof(best_err));
  for(i = 0; i < cmds->ncand; i++) {
    memset(&err, 0, sizeof(err));
    if(ops->parse(g->state, cmds->cand[i], &mv, &err) == REF_OK) {
      if(nfound && memcmp(&mv, &found, sizeof(mv)))
        return refuse(m, g, seat, cmds->cand[i], "one-move-per-mail", "", NULL);
      found = mv;
      nfound++;
      continue;
    }
    /* Keep the most telling failure: an illegal or ambiguous move says more
     * than an unreadable greeting. */
    {
      int rank = err.code == REF_EPARSE ? 0 : 1;
      if(rank > best_rank) {
        best_rank = rank;
        best_err = err;
        best_input = cmds->cand[i];
      }
    }
  }
  if(!nfound)
    return refuse(m, g, seat, best_input ? best_input : "",
                  best_err.reason[0] ? best_err.reason : "unreadable", best_err.detail,
                  &best_err);

  ops->format(g->state, &found, REF_NOTATION_CANONICAL, canon, sizeof(canon));
  ref_move_label(g, canon, numbered, sizeof(numbered));
  ops->apply(g->state, &found);
  snprintf(g->last_move, sizeof(g->last_move), "%s", numbered);
  snprintf(g->played, sizeof(g->played), "%s", numbered);
  if(ref_journal(m->svc, g, seat, "move", canon, NULL))
    return -1;
  /* FIDE 9.1.2.2: a move declines a standing draw offer of the opponent. */
  if(g->row.draw_offer_seat >= 0 && g->row.draw_offer_seat != seat)
    g->row.draw_offer_seat = -1;
  ref_log_info("game %lld: %s %s", (long long)g->row.id, g->desc->seat_names[seat], numbered);
  if(!notify)
    return after_change(m, g, seat, NULL, NULL);
  return after_change(m, g, seat, "move-accepted.txt", "your-move.txt");
}

/* Cube decisions and the roll (rules-spec.md §4.3, §1.6). The rules
 * judge whether each is allowed now; their reason key words the refusal. */
static int do_cube(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                   const struct ref_cmd *c, enum ref_cmd_kind kind, int has_move)
{
  struct ref_status s;
  struct ref_err err;
  enum ref_action a;
  char text[64];

  if(!(g->desc->flags & REF_GAME_DICE))
    return refuse(m, g, seat, c->line, "not-available", ref_cmd_name(kind), NULL);
  g->desc->ops->status(g->state, &s);
  if(kind == REF_CMD_ROLL) {
    if(s.phase == REF_PHASE_CUBE && s.turn == seat) {
      if(ref_game_roll_now(m, g, &m->events))
        return -1;
      return after_change(m, g, seat, "rolled.txt", "rolled.txt");
    }
    /* Not now: a standing answer to this player's next cube question. */
    if(ref_autoroll_set(m->svc, g->row.id, seat, 1))
      return -1;
    m->changed = 1;
    return has_move ? 0 : tell_seat(m, g, seat, "roll-noted.txt", NULL, 0);
  }
  if(!(g->desc->flags & REF_GAME_CUBE))
    return refuse(m, g, seat, c->line, "not-available", ref_cmd_name(kind), NULL);
  a = kind == REF_CMD_DOUBLE ? REF_ACT_DOUBLE : kind == REF_CMD_TAKE ? REF_ACT_TAKE
                                                                     : REF_ACT_DROP;
  memset(&err, 0, sizeof(err));
  if(g->desc->ops->act(g->state, seat, a, 0, &err) != REF_OK)
    return refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "illegal", err.detail,
                  &err);
  ref_action_text(text, sizeof(text), a, 0);
  if(ref_journal(m->svc, g, seat, "action", text, NULL))
    return -1;
  if(a == REF_ACT_DOUBLE) {
    if(ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return tell_seat(m, g, 1 - seat, "double-offered.txt", NULL, 0) ||
           tell_seat(m, g, seat, "double-sent.txt", NULL, 0);
  }
  return after_change(m, g, seat, "cube-taken.txt", "cube-taken.txt");
}

/* BG-5: in a cube game "resign [gammon|backgammon]" offers to lose that
 * much; the opponent accepts (the game ends at level x cube) or rejects
 * (play continues). The standing offer lives in the kv table; offers and
 * answers are journaled for the record. */
static void resign_key(char *buf, size_t cap, int64_t game)
{
  snprintf(buf, cap, "resign:%lld", (long long)game);
}

static int pending_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int *seat, int *level)
{
  char key[48], value[32];
  resign_key(key, sizeof(key), g->row.id);
  if(store_kv_get(m->svc->st, value, sizeof(value), key) != STORE_OK ||
     sscanf(value, "%d %d", seat, level) != 2 || *seat < 0)
    return 0;
  return 1;
}

static int set_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, int level)
{
  char key[48], value[32];
  resign_key(key, sizeof(key), g->row.id);
  snprintf(value, sizeof(value), "%d %d", seat, level);
  return store_kv_set(m->svc->st, key, value) == STORE_OK ? 0 : -1;
}

static int do_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c, int level)
{
  static const char *const names[] = {"", "a single game", "a gammon", "a backgammon"};
  struct tpl_var extra[1];
  char text[32];
  if(!(g->desc->flags & REF_GAME_CUBE))
    return do_action(m, g, seat, c, REF_ACT_RESIGN, level);
  snprintf(text, sizeof(text), "resign offer %d", level);
  if(set_resign(m, g, seat, level) || ref_journal(m->svc, g, seat, "offer", text, NULL))
    return -1;
  m->changed = 1;
  extra[0].name = "level";
  extra[0].value = names[level];
  return tell_seat(m, g, 1 - seat, "resign-offered.txt", extra, 1) ||
         tell_seat(m, g, seat, "resign-offer-sent.txt", extra, 1);
}

/* The opponent's answer to a standing resignation offer. */
static int answer_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmd *c, int accept)
{
  int offerer, level;
  if(!pending_resign(m, g, &offerer, &level) || offerer == seat)
    return refuse(m, g, seat, c->line, "no-resign-offer", "", NULL);
  if(set_resign(m, g, -1, 0))
    return -1;
  if(accept)
    return do_action(m, g, offerer, c, REF_ACT_RESIGN, level);
  if(ref_journal(m->svc, g, seat, "offer", "resign rejected", NULL))
    return -1;
  m->changed = 1;
  return tell_all(m, g, "resign-rejected.txt", NULL, 0);
}

/* verify: every roll of the game checked from the lines its mails showed
 * (the same check tools/tabula-verify-dice.py makes). */
static int do_verify(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c)
{
  struct ref_buf t;
  struct tpl_var extra[1];
  char why[256], verdict[320], game[24];
  int nrolls = 0, made = 0, rc;

  if(!(g->desc->flags & REF_GAME_DICE))
    return refuse(m, g, seat, c->line, "not-available", ref_cmd_name(c->kind), NULL);
  ref_buf_init(&t, 8u * 1024u * 1024u);
  snprintf(game, sizeof(game), "%lld", (long long)g->row.id);
  if(ref_dice_transcript(m->svc, g, &t, &made))
    snprintf(verdict, sizeof(verdict), "no dice have been committed for this game");
  else if(made == 0)
    snprintf(verdict, sizeof(verdict), "no rolls yet; the commitment is on record");
  else if(ref_dice_verify_game(t.s, game, &nrolls, why, sizeof(why)))
    snprintf(verdict, sizeof(verdict), "FAILED: %s", why);
  else if(nrolls != made)
    snprintf(verdict, sizeof(verdict), "FAILED: %d rolls made, %d verified", made, nrolls);
  else
    snprintf(verdict, sizeof(verdict), "all %d rolls verify", nrolls);
  ref_buf_free(&t);
  extra[0].name = "verdict";
  extra[0].value = verdict;
  rc = tell_seat(m, g, seat, "verify.txt", extra, 1);
  return rc;
}

/* ---- issue 6: history, preview, games, observe, the "#N" guard ---- */

/* history: the journal in words, one dated line per entry (record.c). */
static int do_history(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  struct ref_buf b;
  struct tpl_var extra[1];
  int rc;
  ref_buf_init(&b, 4u * 1024u * 1024u);
  if(ref_game_history(m->svc, g, &b)) {
    ref_buf_free(&b);
    return -1;
  }
  extra[0].name = "history";
  extra[0].value = b.s ? b.s : "";
  rc = tell_seat(m, g, seat, "history.txt", extra, 1);
  ref_buf_free(&b);
  return rc;
}

/* preview MOVE: the move read and played on a copy of the position; the
 * board after it, and the result if it ends the game. Nothing is journaled
 * or saved and no dice are rolled (the next roll stays unknown). Any seat
 * may ask; the move is read as the side to move's. */
static int do_preview(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_cmd *c)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_state *saved = g->state, *copy;
  struct ref_status s;
  struct ref_err err;
  struct ref_move mv;
  struct tpl_var extra[2];
  char canon[REF_NOTATION_MAX], label[160], last[160];
  int rc;

  if(!c->arg[0])
    return refuse(m, g, seat, c->line, "preview-what", "", NULL);
  ops->status(g->state, &s);
  if(s.phase != REF_PHASE_MOVE)
    return refuse(m, g, seat, c->line, "preview-not-now", "", NULL);
  memset(&err, 0, sizeof(err));
  if(ops->parse(g->state, c->arg, &mv, &err) != REF_OK)
    return refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "unreadable", err.detail,
                  &err);
  copy = ref_state_dup(g->desc, g->state);
  if(!copy)
    return -1;
  ops->format(g->state, &mv, REF_NOTATION_CANONICAL, canon, sizeof(canon));
  ref_move_label(g, canon, label, sizeof(label));
  ops->apply(copy, &mv);
  /* the view of the copy; the game itself is put back untouched */
  memcpy(last, g->last_move, sizeof(last));
  snprintf(g->last_move, sizeof(g->last_move), "%s", label);
  g->state = copy;
  extra[0].name = "move";
  extra[0].value = label;
  extra[1].name = "mover";
  extra[1].value = g->desc->seat_names[s.turn];
  rc = tell_seat(m, g, seat, "preview.txt", extra, 2);
  g->state = saved;
  memcpy(g->last_move, last, sizeof(last));
  free(copy);
  return rc;
}

/* games: the sender's games and whose turn it is. Only a player is
 * answered (no backscatter); the list carries no keys. */
static int do_games(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                    const char *address)
{
  struct ref_service *svc = m->svc;
  const char *dir = svc->cfg.templates_dir;
  int64_t *ids = NULL;
  size_t n = 0, i, finished = 0;
  struct ref_buf b;
  struct tpl_var extra[1];
  char more[200] = "";
  int rc = 0;

  if(store_games_of(svc->st, &ids, &n, address) != STORE_OK)
    return -1;
  if(!n) {
    free(ids);
    m->refused = 1;
    return 0;
  }
  ref_buf_init(&b, 1024u * 1024u);
  for(i = 0; i < n && !rc; i++) {
    struct store_game row;
    struct store_seat *seats = NULL;
    const struct ref_game_desc *d;
    size_t ns = 0, k;
    int me = -1;
    char state[200], other[600] = "";
    struct tpl_var vars[1];
    if(store_game_load(svc->st, &row, ids[i]) != STORE_OK ||
       store_seat_list(svc->st, &seats, &ns, ids[i]) != STORE_OK) {
      rc = -1;
      break;
    }
    d = ref_game_find(row.kind);
    for(k = 0; k < ns; k++) {
      if(!strcasecmp(seats[k].address, address))
        me = (int)k;
      else
        snprintf(other + strlen(other), sizeof(other) - strlen(other), "%s%s",
                 other[0] ? ", " : "", seats[k].address);
    }
    vars[0].name = "seat";
    vars[0].value = "?";
    if(row.phase == STORE_GAME_FINISHED || row.phase == STORE_GAME_CANCELLED)
      finished++;
    else {
      const char *key = "games-their-turn";
      if(row.phase == STORE_GAME_INVITED)
        key = me >= 0 && !seats[me].accepted ? "games-invited-you" : "games-invited";
      else if(row.turn == me)
        key = "games-your-turn";
      if(d && row.turn >= 0 && row.turn < d->seats)
        vars[0].value = d->seat_names[row.turn];
      tpl_line(state, sizeof(state), dir, "phrases.txt", key, vars, 1);
      ref_buf_printf(&b, "  %-6lld %-12s with %s: %s\n", (long long)row.id,
                     d ? d->title : row.kind, other, state);
    }
    free(seats);
  }
  free(ids);
  if(!rc && finished) {
    char num[24];
    struct tpl_var v[1] = {{"count", num}};
    snprintf(num, sizeof(num), "%zu", finished);
    tpl_line(more, sizeof(more), dir, "phrases.txt", "games-finished", v, 1);
    ref_buf_printf(&b, "%s%s", b.s ? "\n" : "", more);
  }
  while(b.s && b.len && b.s[b.len - 1] == '\n') /* the template places it */
    b.s[--b.len] = '\0';
  if(!rc) {
    extra[0].name = "games";
    extra[0].value = b.s ? b.s : "";
    if(g && seat >= 0)
      rc = tell_seat(m, g, seat, "games.txt", extra, 1);
    else
      rc = ref_reply(m, NULL, -1, address, "games.txt", extra, 1);
  }
  ref_buf_free(&b);
  return rc;
}

static int known_player(struct ref_service *svc, const char *address);

/* A refusal to a mail that names no game of the sender's: a player of
 * some game is told why, a stranger hears nothing (no backscatter). */
static int refuse_if_known(struct ref_msg_ctx *m, const char *input, const char *reason,
                           const char *detail)
{
  if(known_player(m->svc, m->mail->from))
    return refuse(m, NULL, -1, input, reason, detail, NULL);
  m->refused = 1;
  return 0;
}

/* The game an observe/unobserve names: "observe 12", "observe #12",
 * "observe game 12"; unobserve may instead answer an observer's mail,
 * whose subject carries "[tabula 12]". */
static int64_t named_game(const char *arg, const char *subject)
{
  const char *p = arg;
  long long id;
  while(*p && !isdigit((unsigned char)*p))
    p++;
  if(*p)
    return strtoll(p, NULL, 10);
  /* at most 18 digits, as in a tag (issue 20) */
  if(subject && (p = strstr(subject, "[tabula ")) && strspn(p + 8, "0123456789") <= 18 &&
     sscanf(p, "[tabula %lld]", &id) == 1)
    return id;
  return 0;
}

/* observe GAME / unobserve [GAME]: the game's list of observers. An
 * observer gets the board after every change, read-only: its mails carry
 * no key and no tokened Reply-To, so nothing an observer sends can act. */
static int do_observe(struct ref_msg_ctx *m, const struct ref_cmd *c, int on)
{
  struct ref_service *svc = m->svc;
  const char *from = m->mail->from;
  struct ref_game_ctx g;
  struct view *v;
  char why[256], num[24];
  int64_t id = named_game(c->arg, on ? NULL : m->mail->subject);
  int rc, set;

  snprintf(num, sizeof(num), "%lld", (long long)id);
  if(id <= 0 || ref_game_load(svc, &g, id, why, sizeof(why)))
    return refuse_if_known(m, c->line, "no-such-game", num);
  if(seat_of(&g, from) >= 0) {
    rc = refuse(m, &g, seat_of(&g, from), c->line, "observe-own-game", "", NULL);
    ref_game_free(&g);
    return rc;
  }
  if(on && (g.row.phase == STORE_GAME_FINISHED || g.row.phase == STORE_GAME_CANCELLED)) {
    ref_game_free(&g);
    return refuse_if_known(m, c->line, "game-over", "");
  }
  set = ref_observer_set(svc, id, from, on);
  if(set == -1 || set == -2 || (set == 1 && !on)) {
    ref_game_free(&g);
    if(set == -1)
      return -1;
    return refuse_if_known(m, c->line, set == -2 ? "observers-full" : "not-observing", num);
  }
  if(set == 0)
    m->changed = 1;
  ref_log_info("game %lld: %s %s", (long long)id, from, on ? "observes" : "no longer observes");
  v = malloc(sizeof(*v));
  if(!v) {
    ref_game_free(&g);
    return -1;
  }
  build_view(m, &g, -1, v);
  rc = ref_reply(m, &g, -1, from, on ? "observing.txt" : "unobserved.txt", v->vars, v->n);
  free(v);
  ref_game_free(&g);
  return rc;
}

/* Whether a mail would change the game (a move, an offer, an answer):
 * what the "#N" guard protects. Queries pass whatever N says. */
static int mail_acts(const struct ref_cmds *cmds)
{
  int i;
  if(cmds->ncand)
    return 1;
  for(i = 0; i < cmds->ncmd; i++)
    switch(cmds->cmd[i].kind) {
    case REF_CMD_BOARD:
    case REF_CMD_LEGAL:
    case REF_CMD_HISTORY:
    case REF_CMD_HELP:
    case REF_CMD_VERIFY:
    case REF_CMD_GAMES:
    case REF_CMD_PREVIEW:
    case REF_CMD_OBSERVE:
    case REF_CMD_UNOBSERVE: break;
    default: return 1;
    }
  return 0;
}

/* "#N": the move number the sender saw (ops->status move_number: chess's
 * fullmove number, so 12 for both 12. Nf3 and 12... Nf6; checkers' full
 * moves; backgammon's plays made + 1), shown in every game mail. As in
 * pbmserv, a mail whose N is not the game's now was written for another
 * position: a stale or repeated move is refused whole, nothing changes. */
static int guard_refused(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmds *cmds, int *refused)
{
  struct ref_status s;
  char now[24], wrote[24];
  *refused = 0;
  if(cmds->guard < 0 || !g->started || g->row.phase != STORE_GAME_ACTIVE || !mail_acts(cmds))
    return 0;
  g->desc->ops->status(g->state, &s);
  if(!cmds->guard_conflict && s.move_number == cmds->guard)
    return 0;
  *refused = 1;
  snprintf(now, sizeof(now), "#%d", s.move_number);
  snprintf(wrote, sizeof(wrote), "#%d", cmds->guard);
  return refuse(m, g, seat, wrote, cmds->guard_conflict ? "guard-conflict" : "stale-move", now,
                NULL);
}

/* Whether some candidate line reads as a move of this game (legal or
 * not: an illegal or ambiguous move is still a move, and is refused). */
static int move_like(struct ref_game_ctx *g, const struct ref_cmds *cmds)
{
  int i;
  for(i = 0; i < cmds->ncand; i++) {
    struct ref_err err;
    struct ref_move mv;
    int rc;
    memset(&err, 0, sizeof(err));
    rc = g->desc->ops->parse(g->state, cmds->cand[i], &mv, &err);
    if(rc == REF_OK || rc == REF_EILLEGAL || rc == REF_EAMBIGUOUS)
      return 1;
  }
  return 0;
}

/* Commands addressed to one game by one seat. */
static int game_commands(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmds *cmds)
{
  int i, moved = 0, stale = 0;

  /* "#N" first: a mail written for another position does nothing */
  if(guard_refused(m, g, seat, cmds, &stale))
    return -1;
  if(stale)
    return 0;
  for(i = 0; i < cmds->ncmd; i++) {
    const struct ref_cmd *c = &cmds->cmd[i];
    int rc = 0;
    /* about no game in particular, or about another: in any phase */
    if(c->kind == REF_CMD_GAMES || c->kind == REF_CMD_OBSERVE ||
       c->kind == REF_CMD_UNOBSERVE) {
      rc = c->kind == REF_CMD_GAMES ? do_games(m, g, seat, g->seats[seat].address)
                                    : do_observe(m, c, c->kind == REF_CMD_OBSERVE);
      if(rc || m->refused)
        return rc;
      continue;
    }
    /* vacation and digest are the player's, in any phase; claim time
     * checks the phase itself (clock.c) */
    if(ref_clock_is_command(c->kind)) {
      rc = ref_clock_command(m, g, seat, c);
      if(rc || m->refused || g->row.phase == STORE_GAME_FINISHED)
        return rc;
      continue;
    }
    if(g->row.phase == STORE_GAME_INVITED && c->kind != REF_CMD_ACCEPT &&
       c->kind != REF_CMD_DECLINE && c->kind != REF_CMD_HELP && c->kind != REF_CMD_HISTORY) {
      rc = refuse(m, g, seat, c->line, "not-started", "", NULL);
      return rc;
    }
    if((g->row.phase == STORE_GAME_FINISHED || g->row.phase == STORE_GAME_CANCELLED) &&
       c->kind != REF_CMD_BOARD && c->kind != REF_CMD_HELP && c->kind != REF_CMD_HISTORY &&
       c->kind != REF_CMD_VERIFY)
      return refuse(m, g, seat, c->line, "game-over", "", NULL);
    /* A claim goes with the move that makes it good (CH-2): the move
     * first, its mails only if the claim then fails (one result mail, not
     * four, when it succeeds). */
    /* FIDE 9.1.2.1: a draw is offered after making a move, so a move in
     * the same mail is played first and the offer shows the board after it */
    if(c->kind == REF_CMD_DRAW_OFFER && cmds->ncand && !moved && g->started &&
       move_like(g, cmds)) {
      if(do_move(m, g, seat, cmds, 1))
        return -1;
      moved = 1;
      if(m->refused || g->row.phase != STORE_GAME_ACTIVE)
        return 0;
    }
    if(c->kind == REF_CMD_DRAW_CLAIM && cmds->ncand && !moved) {
      if(do_move(m, g, seat, cmds, 0))
        return -1;
      moved = 1;
      if(m->refused || g->row.phase != STORE_GAME_ACTIVE)
        return 0;
      rc = do_draw(m, g, seat, c);
      if(!rc && g->row.phase == STORE_GAME_ACTIVE)
        rc = tell_seat(m, g, seat, "move-accepted.txt", NULL, 0) ||
             tell_seat(m, g, 1 - seat, "your-move.txt", NULL, 0);
      return rc;
    }
    {
      /* "accept" and "decline" answer a double when one is pending */
      struct ref_status st;
      enum ref_cmd_kind kind = c->kind;
      if(g->started) {
        g->desc->ops->status(g->state, &st);
        if(st.phase == REF_PHASE_CUBE_REPLY && kind == REF_CMD_ACCEPT)
          kind = REF_CMD_TAKE;
        if(st.phase == REF_PHASE_CUBE_REPLY && kind == REF_CMD_DECLINE)
          kind = REF_CMD_DROP;
      }
      if(kind == REF_CMD_DOUBLE || kind == REF_CMD_TAKE || kind == REF_CMD_DROP ||
         kind == REF_CMD_ROLL) {
        rc = do_cube(m, g, seat, c, kind, cmds->ncand > 0);
        if(rc || m->refused || g->row.phase != STORE_GAME_ACTIVE)
          return rc;
        continue;
      }
    }
    if(g->row.phase == STORE_GAME_ACTIVE &&
       (c->kind == REF_CMD_ACCEPT || c->kind == REF_CMD_DECLINE)) {
      rc = answer_resign(m, g, seat, c, c->kind == REF_CMD_ACCEPT);
      if(rc || m->refused || g->row.phase != STORE_GAME_ACTIVE)
        return rc;
      continue;
    }
    switch(c->kind) {
    case REF_CMD_ACCEPT: rc = do_accept(m, g, seat, c); break;
    case REF_CMD_DECLINE:
      rc = do_decline(m, g, seat, c);
      break;
    case REF_CMD_VERIFY: rc = do_verify(m, g, seat, c); break;
    case REF_CMD_BOARD: rc = tell_seat(m, g, seat, "board.txt", NULL, 0); break;
    case REF_CMD_LEGAL: rc = do_legal(m, g, seat); break;
    case REF_CMD_HELP: rc = do_help(m, g, seat, c->arg); break;
    case REF_CMD_HISTORY: rc = do_history(m, g, seat); break;
    case REF_CMD_PREVIEW: rc = do_preview(m, g, seat, c); break;
    case REF_CMD_RESIGN:
      /* BG-5: "resign gammon" / "resign backgammon" offer more */
      rc = do_resign(m, g, seat, c,
                     !strcasecmp(c->arg, "backgammon") ? 3 : !strcasecmp(c->arg, "gammon") ? 2
                                                                                             : 1);
      break;
    case REF_CMD_DRAW_OFFER:
    case REF_CMD_DRAW_ACCEPT:
    case REF_CMD_DRAW_DECLINE:
    case REF_CMD_DRAW_CLAIM: rc = do_draw(m, g, seat, c); break;
    default:
      rc = refuse(m, g, seat, c->line, "not-available", ref_cmd_name(c->kind), NULL);
      break;
    }
    if(rc || m->refused || g->row.phase != STORE_GAME_ACTIVE)
      return rc;
  }
  /* Beside a command, a line that reads as no move at all is the
   * player's prose ("accept" / "Looking forward to it!"): not refused. */
  if(cmds->ncand && !moved && g->row.phase == STORE_GAME_ACTIVE && cmds->ncmd &&
     !move_like(g, cmds))
    return 0;
  if(cmds->ncand && !moved && g->row.phase == STORE_GAME_ACTIVE)
    return do_move(m, g, seat, cmds, 1);
  /* a move before the start or after the end is answered, not dropped */
  if(cmds->ncand && !moved && !cmds->ncmd)
    return refuse(m, g, seat, cmds->cand[0],
                  g->row.phase == STORE_GAME_INVITED ? "not-started" : "game-over", "", NULL);
  /* Only a move, for a game that is over (lost on time as this mail came,
   * say): the sender hears why nothing happened. */
  if(cmds->ncand && !cmds->ncmd && !m->refused &&
     (g->row.phase == STORE_GAME_FINISHED || g->row.phase == STORE_GAME_CANCELLED))
    return refuse(m, g, seat, cmds->cand[0], "game-over", "", NULL);
  if(!cmds->ncmd && !cmds->ncand)
    return refuse(m, g, seat, "", "no-command", "", NULL);
  return 0;
}

/* Whether the sender holds a seat in any game (so may be answered). */
static int known_player(struct ref_service *svc, const char *address)
{
  int64_t *ids = NULL;
  size_t n = 0;
  if(store_games_of(svc->st, &ids, &n, address) != STORE_OK)
    return 0;
  free(ids);
  return n > 0;
}

int ref_process_commands(struct ref_msg_ctx *m)
{
  struct ref_service *svc = m->svc;
  const struct mail_msg *mail = m->mail;
  struct ref_cmds cmds;
  struct ref_game_ctx g;
  char token[64], why[256];
  int64_t game = 0;
  int seat, rc = 0, i, token_only = !strcmp(svc->cfg.auth, "token");
  char delim = svc->cfg.recipient_delimiter[0] ? svc->cfg.recipient_delimiter[0] : '+';

  ref_commands_parse(&cmds, mail->clean, mail->subject);
  if(tag_from_address(mail->to, delim, &game, token, sizeof(token)) &&
     tag_from_address(mail->delivered_to, delim, &game, token, sizeof(token)) &&
     tag_from_subject(mail->subject, &game, token, sizeof(token))) {
    /* No game named: only commands that need none. */
    for(i = 0; i < cmds.ncmd; i++) {
      const struct ref_cmd *c = &cmds.cmd[i];
      if(c->kind == REF_CMD_NEW)
        return do_new(m, c);
      if(c->kind == REF_CMD_HELP)
        return do_help(m, NULL, -1, c->arg);
      if(c->kind == REF_CMD_GAMES)
        return do_games(m, NULL, -1, mail->from);
      if(c->kind == REF_CMD_OBSERVE || c->kind == REF_CMD_UNOBSERVE)
        return do_observe(m, c, c->kind == REF_CMD_OBSERVE);
    }
    /* No backscatter: strangers get no answer. */
    if(known_player(svc, mail->from))
      return refuse(m, NULL, -1, cmds.ncmd ? cmds.cmd[0].line : (cmds.ncand ? cmds.cand[0] : ""),
                    "no-game-tag", "", NULL);
    m->refused = 1;
    return 0;
  }
  if(ref_game_load(svc, &g, game, why, sizeof(why))) {
    ref_log_warn("mail %s names game %lld: %s", m->message_id, (long long)game, why);
    m->refused = 1;
    return 0;
  }
  /* The token names the seat; under auth = token+from (the default) the
   * From must be that seat's player too, else a forwarded or forged mail
   * could move for them. */
  seat = -1;
  for(i = 0; i < (int)g.nseats; i++)
    if(!strcmp(g.seats[i].token, token))
      seat = i;
  if(seat < 0 || (!token_only && strcasecmp(g.seats[seat].address, mail->from))) {
    int sender_seat = seat_of(&g, mail->from);
    m->refused = 1;
    ref_log_warn("game %lld: refused a command from %s (token %s)", (long long)game,
                 mail->from, seat < 0 ? "unknown" : "of another player");
    if(sender_seat >= 0)
      rc = refuse(m, &g, sender_seat, cmds.ncmd ? cmds.cmd[0].line : "", "bad-token", "",
                  NULL);
    if(!rc && seat >= 0 && seat != sender_seat) {
      /* the player of record always hears of it */
      struct tpl_var extra[1] = {{"sender", mail->from}};
      rc = tell_seat(m, &g, seat, "forged.txt", extra, 1);
    }
    ref_game_free(&g);
    return rc;
  }
  /* Time first: a mail after the deadline finds the game lost on time. */
  rc = ref_clock_overdue(m, &g);
  if(!rc)
    rc = game_commands(m, &g, seat, &cmds);
  if(!rc && m->changed)
    rc = ref_clock_sync(svc, &g);
  /* observe GAME: what changed, shown to the game's observers */
  if(!rc && m->observed)
    rc = ref_tell_observers(m, &g, "observed.txt", NULL, 0);
  /* auth = token: the key alone acted; the player of record is told which
   * address used it (the Diplomacy judge's copy to the player of record) */
  if(!rc && token_only && strcasecmp(g.seats[seat].address, mail->from)) {
    struct tpl_var extra[2] = {{"sender", mail->from},
                               {"outcome", m->refused ? "refused" : "accepted"}};
    ref_log_info("game %lld: %s acted for %s with the key alone (auth = token)",
                 (long long)game, mail->from, g.seats[seat].address);
    rc = tell_seat(m, &g, seat, "acted-for-you.txt", extra, 2);
  }
  ref_game_free(&g);
  return rc;
}

/* ---- the transaction around it all ---- */

/* The per-sender rate limit (config rate_limit, mails per hour): a count
 * per address in the kv table over a window that starts with the first
 * mail and lasts an hour. 1 when this mail is over it, 0 when not, -1 on a
 * store failure. Counted inside the message's transaction. */
static int over_rate(struct ref_service *svc, const char *from)
{
  char key[300], value[64];
  long long start = 0, count = 0;
  int64_t now = ref_now(svc);
  int rc;

  if(svc->cfg.rate_limit <= 0 || !from[0])
    return 0;
  snprintf(key, sizeof(key), "rate:%s", from);
  rc = store_kv_get(svc->st, value, sizeof(value), key);
  if(rc != STORE_OK && rc != STORE_ENOTFOUND)
    return -1;
  if(rc != STORE_OK || sscanf(value, "%lld %lld", &start, &count) != 2 || now < start ||
     now - start >= 3600) {
    start = now;
    count = 0;
  }
  count++;
  snprintf(value, sizeof(value), "%lld %lld", start, count);
  if(store_kv_set(svc->st, key, value) != STORE_OK)
    return -1;
  return count > svc->cfg.rate_limit ? 1 : 0;
}

int ref_service_process(struct ref_service *svc, const char *raw, size_t len,
                        enum ref_outcome *outcome)
{
  struct mail_msg *mail = NULL;
  struct ref_msg_ctx m;
  char err[256], digest[65], key[300];
  const char *why = NULL;
  const char *result;
  bool seen = false;
  int over;
  int rc = -1;

  *outcome = REF_MSG_IGNORED;
  memset(&m, 0, sizeof(m));
  m.svc = svc;
  ref_buf_init(&m.events, 64 * 1024);
  store_sha256_hex(digest, raw, len);
  if(mail_parse(&mail, raw, len, err, sizeof(err)) != MAIL_OK) {
    /* Unreadable: nothing to answer, nothing to change; the source keeps
     * the bytes (Maildir cur/), and the digest makes a repeat a no-op. */
    ref_log_warn("unreadable message %.16s: %s", digest, err);
    snprintf(key, sizeof(key), "<%s@digest>", digest);
    mail = NULL;
  }
  else if(mail->message_id[0])
    snprintf(key, sizeof(key), "%s", mail->message_id);
  else
    snprintf(key, sizeof(key), "<%s@digest>", digest);
  m.mail = mail;
  m.message_id = key;

  if(store_begin(svc->st) != STORE_OK)
    goto out;
  if(store_message_seen(svc->st, key, &seen) != STORE_OK)
    goto rollback;
  if(seen) {
    *outcome = REF_MSG_DUPLICATE;
    store_rollback(svc->st);
    ref_log_info("message %s already processed: nothing to do", key);
    rc = 0;
    goto out;
  }
  if(!mail) {
    result = "ignored: unreadable";
  }
  else if(mail_is_automatic(mail, svc->cfg.address, &why)) {
    /* RFC 3834 §2: never answer automatic mail, so no loops. */
    ref_log_info("message %s ignored: %s", key, why);
    result = "ignored: automatic";
  }
  else if((over = over_rate(svc, mail->from)) != 0) {
    if(over < 0)
      goto rollback;
    /* issue 6: recorded (a repeat stays a no-op), never answered */
    ref_log_warn("message %s from %s ignored: over the rate limit of %d mails per hour",
                 key, mail->from, svc->cfg.rate_limit);
    result = "ignored: rate limit";
  }
  else {
    if(ref_process_commands(&m))
      goto rollback;
    if(m.changed)
      *outcome = m.refused ? REF_MSG_REFUSED : REF_MSG_APPLIED;
    else if(m.refused)
      *outcome = m.replied ? REF_MSG_REFUSED : REF_MSG_IGNORED;
    else
      *outcome = REF_MSG_APPLIED;
    result = *outcome == REF_MSG_APPLIED   ? "applied"
             : *outcome == REF_MSG_REFUSED ? "refused"
                                           : "ignored";
  }
  if(store_message_record(svc->st, key, digest, ref_now(svc), result) != STORE_OK)
    goto rollback;
  if(store_commit(svc->st) != STORE_OK)
    goto rollback;
  rc = 0;
  goto out;
rollback:
  /* Nothing of this message is kept; the source keeps it for a retry. */
  ref_log_error("message %s not processed (%s); will retry", key, store_errmsg(svc->st));
  store_rollback(svc->st);
  *outcome = REF_MSG_IGNORED;
out:
  ref_buf_free(&m.events);
  mail_msg_free(mail);
  return rc;
}
