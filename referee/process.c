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
  char commitment[200];
  struct tpl_var vars[20];
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
  if(s.phase == REF_PHASE_OVER) {
    ref_result_text(result, sizeof(result), g->desc, &s);
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
  }
  status_sentence(m, g, seat, v->status, sizeof(v->status));
  snprintf(v->last_move, sizeof(v->last_move), "%s", g->last_move);
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

/* A refusal: quotes the input, says why, offers the nearest legal moves.
 * Nothing in the game changes (the caller has not touched it). */
static int refuse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *input,
                  const char *reason, const char *detail, const struct ref_err *err)
{
  const char *dir = m->svc->cfg.templates_dir;
  char why[512];
  struct ref_buf sugg;
  struct tpl_var extra[3];
  int rc, i;

  tpl_reason(why, sizeof(why), dir, reason, detail);
  ref_buf_init(&sugg, 4096);
  for(i = 0; err && i < err->nsuggest; i++)
    ref_buf_printf(&sugg, "%s%s", i ? ", " : "", err->suggest[i]);
  extra[0].name = "input";
  extra[0].value = input;
  extra[1].name = "reason";
  extra[1].value = why;
  extra[2].name = "suggestions";
  extra[2].value = sugg.s ? sugg.s : "";
  m->refused = 1;
  if(g && seat >= 0)
    rc = tell_seat(m, g, seat, "refused.txt", extra, 3);
  else
    rc = ref_reply(m, NULL, -1, m->mail->from, "refused.txt", extra, 3);
  ref_buf_free(&sugg);
  return rc;
}

/* ---- finding the game: local+GAME.TOKEN@ or "[tabula GAME TOKEN]" ---- */

static int tag_from_address(const char *addr, int64_t *game, char *token, size_t cap)
{
  const char *plus = strchr(addr, '+'), *dot, *at = strrchr(addr, '@');
  char *end;
  long long id;
  if(!plus || !at || plus > at)
    return -1;
  id = strtoll(plus + 1, &end, 10);
  dot = end;
  if(end == plus + 1 || *dot != '.' || id <= 0 || (size_t)(at - dot - 1) >= cap)
    return -1;
  memcpy(token, dot + 1, (size_t)(at - dot - 1));
  token[at - dot - 1] = '\0';
  *game = id;
  return 0;
}

static int tag_from_subject(const char *subject, int64_t *game, char *token, size_t cap)
{
  const char *p = strstr(subject, "[tabula ");
  long long id;
  char tok[64];
  if(!p || sscanf(p, "[tabula %lld %63[a-z0-9]]", &id, tok) != 2 || id <= 0 ||
     strlen(tok) >= cap)
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

static int do_help(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  if(g && seat >= 0)
    return tell_seat(m, g, seat, "help.txt", NULL, 0);
  return ref_reply(m, NULL, -1, m->mail->from, "help.txt", NULL, 0);
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
  char opts[256] = "", word[64], *save = NULL, *tok, copy[256], text[600];
  int inviter_seat = 0, rc = -1, i, pending_as = 0;
  int64_t id;

  memset(&g, 0, sizeof(g));
  if(!d)
    return refuse(m, NULL, -1, c->line, "unknown-game", c->arg, NULL);
  if(c->nwith != d->seats - 1)
    return refuse(m, NULL, -1, c->line, "wrong-player-count", "", NULL);
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
    snprintf(word, sizeof(word), "%s", tok);
    if(strlen(opts) + strlen(word) + 2 < sizeof(opts))
      snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), "%s%s", opts[0] ? ";" : "",
               word);
  }
  /* The options must make a game before anyone is invited to it. */
  probe = ref_state_new(d);
  if(!probe)
    return -1;
  if(d->ops->init(probe, opts[0] ? opts : NULL, &err) != REF_OK) {
    free(probe);
    return refuse(m, NULL, -1, c->line, "bad-option", err.detail[0] ? err.detail : opts,
                  NULL);
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
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER) {
    if(ref_journal(m->svc, g, -1, "end", g->row.result, NULL))
      return -1;
    ref_log_info("game %lld: over, %s", (long long)g->row.id, g->row.result);
    return tell_all(m, g, "game-over.txt", NULL, 0);
  }
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
  if(g->desc->ops->legal(g->state, &list) != REF_OK)
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

/* Commands addressed to one game by one seat. */
static int game_commands(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmds *cmds)
{
  int i, moved = 0;

  for(i = 0; i < cmds->ncmd; i++) {
    const struct ref_cmd *c = &cmds->cmd[i];
    int rc = 0;
    if(g->row.phase == STORE_GAME_INVITED && c->kind != REF_CMD_ACCEPT &&
       c->kind != REF_CMD_DECLINE && c->kind != REF_CMD_HELP) {
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
    case REF_CMD_HELP: rc = do_help(m, g, seat); break;
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
  if(cmds->ncand && !moved && g->row.phase == STORE_GAME_ACTIVE)
    return do_move(m, g, seat, cmds, 1);
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
  int seat, rc = 0, i;

  ref_commands_parse(&cmds, mail->clean, mail->subject);
  if(tag_from_address(mail->to, &game, token, sizeof(token)) &&
     tag_from_address(mail->delivered_to, &game, token, sizeof(token)) &&
     tag_from_subject(mail->subject, &game, token, sizeof(token))) {
    /* No game named: only commands that need none. */
    for(i = 0; i < cmds.ncmd; i++) {
      if(cmds.cmd[i].kind == REF_CMD_NEW)
        return do_new(m, &cmds.cmd[i]);
      if(cmds.cmd[i].kind == REF_CMD_HELP)
        return do_help(m, NULL, -1);
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
  /* The token names the seat; the From must be that seat's player too
   * (auth_from), else a forwarded or forged mail could move for them. */
  seat = -1;
  for(i = 0; i < (int)g.nseats; i++)
    if(!strcmp(g.seats[i].token, token))
      seat = i;
  if(seat < 0 || (svc->cfg.auth_from && strcasecmp(g.seats[seat].address, mail->from))) {
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
  rc = game_commands(m, &g, seat, &cmds);
  ref_game_free(&g);
  return rc;
}

/* ---- the transaction around it all ---- */

int ref_service_process(struct ref_service *svc, const char *raw, size_t len,
                        enum ref_outcome *outcome)
{
  struct mail_msg *mail = NULL;
  struct ref_msg_ctx m;
  char err[256], digest[65], key[300];
  const char *why = NULL;
  const char *result;
  bool seen = false;
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
