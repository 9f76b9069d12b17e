/*
 * compete.c: competition's part of the game's lifecycle, layer
 * 6 "handlers" (docs/architecture.md):
 *
 *  - after a game ends (ref_compete_game_over, called by every handler
 *    that ends one, after the result was mailed, in the same transaction):
 *    the rating period it closes (ratings.c); the end of its round robin
 *    when it was the last game, whose final table then goes to every
 *    player once (the tournament's phase changes in the same transaction);
 *  - round robins: every pairing created at once as a game (the row, the
 *    clock, the keys, the dice committed before anyone accepts), one
 *    invitation per player through the path `new` uses (a keyed mail to
 *    the seat); one `accept` accepts all of a player's games and the games
 *    start when every player has accepted; one `decline`, or the
 *    invitation's expiry, cancels the tournament, each player told once.
 */
#include "handlers_int.h"

#include "compete_int.h"
#include "log.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- games made by the referee ---- */

/* A game of d between addresses[0] (the first seat) and addresses[1], as
 * `new` makes one (cmd_invite.c): the row (invited), the clock, the seats
 * with their keys, the dice chain drawn before anyone accepts, the
 * "create" entry. A seat whose address is `accepted_by` has accepted
 * already, with `entropy`; with `same` every seat has, as in those seats
 * (the next game of a match, whose dice are the match's: no chain of its
 * own). g is filled; free it with ref_game_free. */
static int game_create(struct ref_service *svc, struct ref_game_ctx *g,
                       const struct ref_game_desc *d, const char *opts, int days, int weekends,
                       const char *control, const char *const addresses[2],
                       const char *accepted_by, const char *entropy, const struct store_seat *same,
                       const char *create_text)
{
  int i;
  memset(g, 0, sizeof(*g));
  snprintf(g->row.kind, sizeof(g->row.kind), "%s", d->name);
  g->row.rules_version = d->version;
  snprintf(g->row.options, sizeof(g->row.options), "%s", opts);
  g->row.phase = STORE_GAME_INVITED;
  g->row.turn = -1;
  g->row.created = g->row.updated = ref_now(svc);
  g->row.draw_offer_seat = -1;
  g->desc = d;
  g->nseats = 2;
  g->seats = calloc(2, sizeof(*g->seats));
  g->state = ref_state_new(d);
  if(!g->seats || !g->state || store_game_create(svc->st, &g->row.id, &g->row) != STORE_OK ||
     ref_clock_create(svc, g->row.id, days, weekends, control))
    return -1;
  /* dice-protocol.md: the chain is drawn and committed before any accept
   * (and before the seats: a Message-ID's entropy is keyed by its salt) */
  if((d->flags & REF_GAME_DICE) && !same && ref_dice_new_chain(svc, g->row.id, 1, 0))
    return -1;
  for(i = 0; i < 2; i++) {
    struct store_seat *s = &g->seats[i];
    s->game = g->row.id;
    s->seat = i;
    snprintf(s->address, sizeof(s->address), "%s", addresses[i]);
    if(accepted_by && !strcasecmp(addresses[i], accepted_by)) {
      s->accepted = true;
      snprintf(s->entropy, sizeof(s->entropy), "%s", entropy);
    }
    if(same) {
      s->accepted = true;
      snprintf(s->entropy, sizeof(s->entropy), "%s", same[i].entropy);
    }
    if(ref_make_token(s->token, sizeof(s->token)) || store_seat_put(svc->st, s) != STORE_OK)
      return -1;
  }
  return ref_journal(svc, g, -1, "create", create_text, NULL);
}

/* A round robin's start, told once per player (tournament-start.txt): a
 * block per game, collected as each game starts. */
struct starting {
  struct store_tournament_player *p;
  size_t np;
  struct base_buf text[REF_TOURNAMENT_MAX];
  int games[REF_TOURNAMENT_MAX];
};

static int start_block(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct starting *st)
{
  const char *dir = m->svc->cfg.templates_dir;
  struct ref_status s;
  size_t i, k;
  g->desc->ops->status(g->state, &s);
  for(i = 0; i < g->nseats && g->nseats == 2; i++) {
    char game[24], at[400], line[1200];
    struct tpl_var v[3] = {{"game", game},
                           {"seat", g->desc->seat_names[i]},
                           {"opponent", g->seats[1 - i].address}};
    for(k = 0; k < st->np && strcasecmp(st->p[k].address, g->seats[i].address); k++)
      ;
    if(k == st->np || k >= REF_TOURNAMENT_MAX)
      continue;
    snprintf(game, sizeof(game), "%lld", (long long)g->row.id);
    if(ref_seat_reply_to(m->svc, g, (int)i, at, sizeof(at)))
      return -1;
    tpl_line(line, sizeof(line), dir, "phrases.txt",
             s.phase != REF_PHASE_OVER && s.turn == (int)i ? "tournament-start-move"
                                                          : "tournament-start-wait",
             v, 3);
    if(base_buf_printf(&st->text[k], "%s%s\n    %s\n", st->games[k] ? "\n" : "", line, at) ||
       (m->events.s && m->events.s[0] &&
        base_buf_printf(&st->text[k], "%s%s", m->events.s,
                       m->events.s[strlen(m->events.s) - 1] == '\n' ? "" : "\n")))
      return -1;
    st->games[k]++;
  }
  return 0;
}

/* Starts g, whose every seat has accepted, as ref_do_accept does: the
 * rules' start position, E fixed (unless its dice are a match's, fixed
 * long ago), the first rolls, the clock; everyone told (start.txt), or,
 * with `st` (a round robin), the game's block kept for each player's one
 * mail. The rolls go into this game's mails only, after `prelude`. */
static int game_start_ex(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *prelude,
                         struct starting *st)
{
  struct ref_err err;
  struct base_buf others = m->events;
  int64_t owner = (g->desc->flags & REF_GAME_DICE) ? ref_dice_game(m->svc, g->row.id) : 0;
  int own_dice = owner == g->row.id;
  int rc = -1;

  if(owner < 0)
    return -1; /* whose dice these are cannot be read */
  base_buf_init(&m->events, 64 * 1024);
  if(prelude && base_buf_puts(&m->events, prelude))
    goto out;
  if(g->desc->ops->init(g->state, g->row.options[0] ? g->row.options : NULL, &err) != REF_OK)
    goto out;
  g->started = 1;
  g->row.phase = STORE_GAME_ACTIVE;
  if(ref_journal(m->svc, g, -1, "start", "", NULL) ||
     (own_dice && ref_dice_fix_entropy(m->svc, g, &m->events)) ||
     ref_game_advance(m, g, &m->events) || ref_game_save(m->svc, g) ||
     ref_clock_sync(m->svc, g) ||
     (st ? start_block(m, g, st) : ref_tell_all(m, g, "start.txt", NULL, 0)))
    goto out;
  ref_log_info("game %lld: started", (long long)g->row.id);
  rc = 0;
out:
  base_buf_free(&m->events);
  m->events = others;
  return rc;
}

static int game_start(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *prelude)
{
  return game_start_ex(m, g, prelude, NULL);
}

/* A game made by the referee for others (two matching seeks,
 * cmd_seek.c): game_create and game_start, as a round robin uses them. */
int ref_game_create_for(struct ref_service *svc, struct ref_game_ctx *g,
                        const struct ref_game_desc *d, const char *opts, int days, int weekends,
                        const char *control, const char *const addresses[2],
                        const char *accepted_by, const char *entropy, const char *create_text)
{
  return game_create(svc, g, d, opts, days, weekends, control, addresses, accepted_by, entropy,
                     NULL, create_text);
}

int ref_game_start_made(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  return game_start(m, g, NULL);
}

/* ---- round robins ---- */

/* The players' list, their games, the dice commitments: what an invitation
 * shows one player. */
struct invitation {
  char players[REF_TOURNAMENT_MAX * 300], games[64 * 300], commitments[64 * 220];
  char count[16], form[80], form_note[160];
};

static int invitation_of(struct ref_service *svc, const struct store_tournament *t,
                         const char *address, struct invitation *inv, int64_t *first)
{
  struct store_tournament_player *p = NULL;
  int64_t *ids = NULL;
  size_t np = 0, ng = 0, i;
  const char *dir = svc->cfg.templates_dir;
  int rc = -1;

  memset(inv, 0, sizeof(*inv));
  *first = 0;
  if(store_tournament_players(svc->st, &p, &np, t->id) != STORE_OK ||
     store_tournament_games(svc->st, &ids, &ng, t->id) != STORE_OK)
    goto out;
  for(i = 0; i < np; i++)
    snprintf(inv->players + strlen(inv->players), sizeof(inv->players) - strlen(inv->players),
             "%3d  %s\n", p[i].number, p[i].address);
  for(i = 0; i < ng; i++) {
    struct store_seat *seats = NULL;
    struct store_game row;
    size_t ns = 0;
    int me;
    if(store_seat_list(svc->st, &seats, &ns, ids[i]) != STORE_OK ||
       store_game_load(svc->st, &row, ids[i]) != STORE_OK) {
      free(seats);
      goto out;
    }
    for(me = 0; me < (int)ns && strcasecmp(seats[me].address, address); me++)
      ;
    if(me < (int)ns && ns == 2) {
      const struct ref_game_desc *d = ref_game_find(row.kind);
      char line[400], game[24], commitment[200];
      struct tpl_var v[3] = {{"game", game},
                             {"seat", d ? d->seat_names[me] : "?"},
                             {"opponent", seats[1 - me].address}};
      snprintf(game, sizeof(game), "%lld", (long long)ids[i]);
      tpl_line(line, sizeof(line), dir, "phrases.txt", "tournament-game", v, 3);
      snprintf(inv->games + strlen(inv->games), sizeof(inv->games) - strlen(inv->games), "%s\n",
               line);
      if(d && (d->flags & REF_GAME_DICE) &&
         !ref_dice_commitment_line(svc, ids[i], commitment, sizeof(commitment)))
        snprintf(inv->commitments + strlen(inv->commitments),
                 sizeof(inv->commitments) - strlen(inv->commitments), "%s\n", commitment);
      if(!*first)
        *first = ids[i];
    }
    free(seats);
  }
  snprintf(inv->count, sizeof(inv->count), "%zu", ng);
  tpl_line(inv->form, sizeof(inv->form), dir, "phrases.txt",
           t->cycles == 2 ? "tournament-double" : "tournament-single", NULL, 0);
  /* what the form means, said of this one: a single round robin's
   * invitation has no word of playing twice */
  tpl_line(inv->form_note, sizeof(inv->form_note), dir, "phrases.txt",
           t->cycles == 2 ? "tournament-double-note" : "tournament-single-note", NULL, 0);
  /* the templates place the last line end */
  if(inv->players[0])
    inv->players[strlen(inv->players) - 1] = '\0';
  if(inv->games[0])
    inv->games[strlen(inv->games) - 1] = '\0';
  if(inv->commitments[0])
    inv->commitments[strlen(inv->commitments) - 1] = '\0';
  rc = 0;
out:
  free(p);
  free(ids);
  return rc;
}

/* Tells `address` about tournament t with `tmpl`, in the thread of its
 * first game of t (the invitation carries that seat's key: replying is all
 * a player does) or, when `plain`, as a mail about no game. */
static int tell_player(struct ref_msg_ctx *m, const struct store_tournament *t,
                       const char *address, const char *tmpl, const struct tpl_var *more,
                       size_t nmore, int plain)
{
  struct invitation *inv = malloc(sizeof(*inv));
  struct ref_game_ctx g;
  struct tpl_var extra[13];
  char why[256];
  int64_t first = 0;
  size_t n = 0, i;
  int rc = -1, seat;

  if(!inv)
    return -1;
  if(invitation_of(m->svc, t, address, inv, &first))
    goto out;
  extra[n++] = (struct tpl_var){"organizer", t->organizer};
  extra[n++] = (struct tpl_var){"name", t->name};
  extra[n++] = (struct tpl_var){"form", inv->form};
  extra[n++] = (struct tpl_var){"form_note", inv->form_note};
  extra[n++] = (struct tpl_var){"count", inv->count};
  extra[n++] = (struct tpl_var){"players", inv->players};
  extra[n++] = (struct tpl_var){"your_games", inv->games};
  extra[n++] = (struct tpl_var){"commitments", inv->commitments};
  for(i = 0; i < nmore && n < sizeof(extra) / sizeof(extra[0]); i++)
    extra[n++] = more[i];
  if(plain || !first) {
    const struct ref_game_desc *d = ref_game_find(t->kind);
    if(n < sizeof(extra) / sizeof(extra[0]))
      extra[n++] = (struct tpl_var){"title", d ? d->title : t->kind};
    rc = ref_reply(m, NULL, -1, address, tmpl, extra, n);
    goto out;
  }
  if(ref_game_load(m->svc, &g, first, why, sizeof(why)))
    goto out;
  seat = ref_seat_of(&g, address);
  rc = seat < 0 ? -1 : ref_tell_seat(m, &g, seat, tmpl, extra, n);
  ref_game_free(&g);
out:
  free(inv);
  return rc;
}

/* Every player of t, told with `tmpl` as a mail about no game. */
static int tell_players(struct ref_msg_ctx *m, const struct store_tournament *t,
                        const char *tmpl, const struct tpl_var *more, size_t nmore)
{
  struct store_tournament_player *p = NULL;
  size_t np = 0, i;
  int rc = 0;
  if(store_tournament_players(m->svc->st, &p, &np, t->id) != STORE_OK)
    return -1;
  for(i = 0; i < np && !rc; i++)
    rc = tell_player(m, t, p[i].address, tmpl, more, nmore, 1);
  free(p);
  return rc;
}

/* A free default name: GAME-N. */
static int default_name(struct ref_service *svc, const char *kind, char *name, size_t cap)
{
  struct store_tournament t;
  int n, rc;
  for(n = 1; n < 100000; n++) {
    snprintf(name, cap, "%s-%d", kind, n);
    rc = store_tournament_find(svc->st, &t, name);
    if(rc == STORE_ENOTFOUND)
      return 0;
    if(rc != STORE_OK)
      return -1;
  }
  return -1;
}

int ref_tournament_create(struct ref_msg_ctx *m, const struct ref_tournament_spec *spec,
                          int64_t *id)
{
  struct ref_service *svc = m->svc;
  struct store_tournament t, same;
  struct ref_pairing pairs[REF_TOURNAMENT_MAX * REF_TOURNAMENT_MAX];
  size_t npairs = 0, i;
  int rc;

  memset(&t, 0, sizeof(t));
  if(spec->name[0])
    snprintf(t.name, sizeof(t.name), "%s", spec->name);
  else if(default_name(svc, spec->d->name, t.name, sizeof(t.name)))
    return -1;
  rc = store_tournament_find(svc->st, &same, t.name);
  if(rc == STORE_OK)
    return 1; /* the name is taken */
  if(rc != STORE_ENOTFOUND ||
     ref_round_robin(spec->nplayers, spec->cycles, pairs, sizeof(pairs) / sizeof(pairs[0]),
                     &npairs))
    return -1;
  snprintf(t.kind, sizeof(t.kind), "%s", spec->d->name);
  snprintf(t.options, sizeof(t.options), "%s", spec->opts);
  t.cycles = spec->cycles;
  snprintf(t.organizer, sizeof(t.organizer), "%s", spec->organizer);
  t.phase = STORE_TOURNAMENT_INVITED;
  t.created = ref_now(svc);
  if(store_tournament_create(svc->st, &t.id, &t) != STORE_OK)
    return -1;
  *id = t.id;
  for(i = 0; i < (size_t)spec->nplayers; i++)
    if(store_tournament_add_player(svc->st, t.id, (int)i + 1, spec->players[i]) != STORE_OK)
      return -1;
  for(i = 0; i < npairs; i++) {
    struct ref_game_ctx g;
    const char *both[2] = {spec->players[pairs[i].white - 1], spec->players[pairs[i].black - 1]};
    char text[600];
    /* the create entry's words as cmd_invite.c writes them */
    snprintf(text, sizeof(text), "new %s%s%s%s%s%s by %s for tournament %s round %d",
             spec->d->name, spec->priv ? " private" : "", spec->unrated ? " unrated" : "",
             spec->pub ? " public-comments" : "", spec->opts[0] ? " " : "", spec->opts,
             spec->organizer, t.name, pairs[i].round);
    rc = game_create(svc, &g, spec->d, spec->opts, spec->days, spec->weekends, spec->control, both,
                     spec->organizer_plays ? spec->organizer : NULL, m->message_id, NULL, text);
    if(!rc && ((spec->priv && ref_game_set_private(svc, g.row.id)) ||
               (spec->pub && ref_game_set_public_comments(svc, g.row.id))))
      rc = -1;
    if(!rc && store_tournament_add_game(svc->st, t.id, g.row.id, pairs[i].round) != STORE_OK)
      rc = -1;
    ref_game_free(&g);
    if(rc)
      return -1;
  }
  /* one invitation a player, in the thread of its first game */
  for(i = 0; i < (size_t)spec->nplayers; i++) {
    int organizer = spec->organizer_plays && !strcasecmp(spec->players[i], spec->organizer);
    struct tpl_var words[2] = {{"private", spec->priv ? "yes" : ""},
                               {"unrated", spec->unrated ? "yes" : ""}};
    if(tell_player(m, &t, spec->players[i],
                   organizer ? "tournament-sent.txt" : "tournament-invite.txt", words, 2, 0))
      return -1;
  }
  m->changed = 1;
  ref_log_info("tournament %lld (%s): %s, %d players, %zu games, invited by %s",
               (long long)t.id, t.name, t.kind, spec->nplayers, npairs, spec->organizer);
  return 0;
}

/* Every game of tournament `t`, loaded one after another: fn(g) for each.
 * `g0`, the game the mail is about, is used as it is (the caller saves
 * it), the others are loaded and freed here. */
static int each_game(struct ref_msg_ctx *m, int64_t t, struct ref_game_ctx *g0,
                     int (*fn)(struct ref_msg_ctx *, struct ref_game_ctx *, void *), void *arg)
{
  int64_t *ids = NULL;
  size_t n = 0, i;
  int rc = 0;
  if(store_tournament_games(m->svc->st, &ids, &n, t) != STORE_OK)
    return -1;
  for(i = 0; i < n && !rc; i++) {
    struct ref_game_ctx g;
    char why[256];
    if(g0 && ids[i] == g0->row.id) {
      rc = fn(m, g0, arg);
      continue;
    }
    if(ref_game_load(m->svc, &g, ids[i], why, sizeof(why)))
      rc = -1;
    else
      rc = fn(m, &g, arg);
    ref_game_free(&g);
  }
  free(ids);
  return rc;
}

struct accepting {
  const char *address, *text, *message_id; /* the entropy text, else the Message-ID */
  int waiting; /* seats still to accept, over every game */
};

static int accept_seats(struct ref_msg_ctx *m, struct ref_game_ctx *g, void *arg)
{
  struct accepting *a = arg;
  size_t s;
  for(s = 0; s < g->nseats; s++) {
    if(!strcasecmp(g->seats[s].address, a->address) && !g->seats[s].accepted) {
      g->seats[s].accepted = true;
      /* each game's own e_s: under tabula-dice-2 keyed by its own salt */
      if(ref_dice_seat_entropy(m->svc, g->row.id, a->text, a->message_id, g->seats[s].entropy,
                               sizeof(g->seats[s].entropy)))
        return -1;
      if(store_seat_put(m->svc->st, &g->seats[s]) != STORE_OK ||
         ref_journal(m->svc, g, (int)s, "accept", "", NULL))
        return -1;
    }
    a->waiting += !g->seats[s].accepted;
  }
  return 0;
}

static int start_game(struct ref_msg_ctx *m, struct ref_game_ctx *g, void *arg)
{
  return g->row.phase == STORE_GAME_INVITED ? game_start_ex(m, g, NULL, arg) : 0;
}

/* Every game of t starts; each player gets one mail listing theirs (a
 * 16-player double round robin is 30 games a player: 30 start mails each
 * would bury the games' own threads). */
static int start_all(struct ref_msg_ctx *m, const struct store_tournament *t,
                     struct ref_game_ctx *g)
{
  struct starting *st = calloc(1, sizeof(*st));
  size_t i;
  int rc = -1;
  if(!st)
    return -1;
  if(store_tournament_players(m->svc->st, &st->p, &st->np, t->id) != STORE_OK)
    goto out;
  for(i = 0; i < REF_TOURNAMENT_MAX; i++)
    base_buf_init(&st->text[i], 1024u * 1024u);
  if(each_game(m, t->id, g, start_game, st))
    goto out;
  for(i = 0; i < st->np && i < REF_TOURNAMENT_MAX; i++) {
    char mine[16];
    struct tpl_var more[2] = {{"started", st->text[i].s ? st->text[i].s : ""}, {"mine", mine}};
    snprintf(mine, sizeof(mine), "%d", st->games[i]);
    /* the template places the last line end */
    if(st->text[i].s && st->text[i].len && st->text[i].s[st->text[i].len - 1] == '\n')
      st->text[i].s[--st->text[i].len] = '\0';
    if(st->games[i] &&
       tell_player(m, t, st->p[i].address, "tournament-start.txt", more, 2, 1))
      goto out;
  }
  rc = 0;
out:
  for(i = 0; i < REF_TOURNAMENT_MAX; i++)
    base_buf_free(&st->text[i]);
  free(st->p);
  free(st);
  return rc;
}

struct cancelling {
  const char *address; /* the player who declined, or NULL: expired */
  const char *result;  /* the games' result */
  const char *entry;   /* the journal's kind ("decline", "expire") */
  const char *text;    /* and its text */
};

static int cancel_game(struct ref_msg_ctx *m, struct ref_game_ctx *g, void *arg)
{
  struct cancelling *c = arg;
  int seat = c->address ? ref_seat_of(g, c->address) : -1;
  if(g->row.phase != STORE_GAME_INVITED)
    return 0;
  g->row.phase = STORE_GAME_CANCELLED;
  snprintf(g->row.result, sizeof(g->row.result), "%s", c->result);
  return ref_journal(m->svc, g, seat, c->entry, c->text, NULL) || ref_game_save(m->svc, g);
}

/* The tournament g belongs to: 1 with *t, 0 none, -1 error. */
static int tournament_of(struct ref_service *svc, int64_t game, struct store_tournament *t)
{
  int64_t id;
  int rc = store_tournament_of_game(svc->st, &id, game);
  if(rc == STORE_ENOTFOUND)
    return 0;
  if(rc != STORE_OK || store_tournament_load(svc->st, t, id) != STORE_OK)
    return -1;
  return 1;
}

static int tournament_answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                             const struct ref_cmd *c, int accept, struct store_tournament t)
{
  const char *address = g->seats[seat].address;

  if(t.phase != STORE_TOURNAMENT_INVITED)
    return ref_refuse(m, g, seat, c->line, "not-invited", "", NULL);
  if(accept) {
    struct accepting a = {address, c->entropy, m->message_id, 0};
    if(g->seats[seat].accepted)
      return ref_refuse(m, g, seat, c->line, "already-accepted", "", NULL);
    if(each_game(m, t.id, g, accept_seats, &a))
      return -1;
    m->changed = 1;
    if(a.waiting)
      return tell_player(m, &t, address, "tournament-accepted.txt", NULL, 0, 0);
    /* everyone is in: every game starts now */
    t.phase = STORE_TOURNAMENT_PLAYING;
    if(store_tournament_update(m->svc->st, &t) != STORE_OK || start_all(m, &t, g))
      return -1;
    ref_log_info("tournament %lld (%s): every player accepted, its games start",
                 (long long)t.id, t.name);
    return 0;
  }
  {
    char text[400];
    struct cancelling cl = {address, "tournament cancelled: declined", "decline", text};
    struct tpl_var more[1] = {{"decliner", address}};
    snprintf(text, sizeof(text), "tournament %s cancelled: %s declined", t.name, address);
    t.phase = STORE_TOURNAMENT_CANCELLED;
    if(each_game(m, t.id, g, cancel_game, &cl) ||
       store_tournament_update(m->svc->st, &t) != STORE_OK)
      return -1;
    m->changed = 1;
    ref_log_info("tournament %lld (%s): cancelled, %s declined", (long long)t.id, t.name,
                 address);
    return tell_players(m, &t, "tournament-cancelled.txt", more, 1);
  }
}

enum ref_rc ref_tournament_answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                                  const struct ref_cmd *c, int accept)
{
  struct store_tournament t;
  int rc = tournament_of(m->svc, g->row.id, &t);

  if(rc <= 0)
    return rc < 0 ? REF_RC_FAIL : REF_RC_PASS;
  return ref_rc_of(m, tournament_answer(m, g, seat, c, accept, t));
}

static int tournament_expire(struct ref_msg_ctx *m, struct store_tournament t,
                             struct ref_game_ctx *g);

enum ref_rc ref_tournament_expire(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  struct store_tournament t;
  int rc = tournament_of(m->svc, g->row.id, &t);

  if(rc <= 0)
    return rc < 0 ? REF_RC_FAIL : REF_RC_PASS;
  return tournament_expire(m, t, g) ? REF_RC_FAIL : REF_RC_OK;
}

static int tournament_expire(struct ref_msg_ctx *m, struct store_tournament t,
                             struct ref_game_ctx *g)
{
  char days[16], text[200];
  struct cancelling cl = {NULL, "tournament cancelled: invitation expired", "expire", text};
  struct tpl_var more[1] = {{"days", days}};

  if(t.phase != STORE_TOURNAMENT_INVITED)
    return 0;
  snprintf(text, sizeof(text), "tournament %s cancelled: not every player accepted in %d days",
           t.name, m->svc->cfg.invite_days);
  t.phase = STORE_TOURNAMENT_CANCELLED;
  if(each_game(m, t.id, g, cancel_game, &cl) || store_tournament_update(m->svc->st, &t) != STORE_OK)
    return -1;
  snprintf(days, sizeof(days), "%d", m->svc->cfg.invite_days);
  ref_log_info("tournament %lld (%s): cancelled, not every player accepted in %s days",
               (long long)t.id, t.name, days);
  return tell_players(m, &t, "tournament-expired.txt", more, 1);
}

/* The standings as a mail's extras: the table and its counts. */
int ref_tournament_standings_vars(struct ref_service *svc, const struct store_tournament *t,
                                  struct base_buf *table, char counts[3][24])
{
  struct ref_tournament_count count;
  if(ref_tournament_table(svc, t, table, &count))
    return -1;
  while(table->len && table->s[table->len - 1] == '\n')
    table->s[--table->len] = '\0';
  snprintf(counts[0], 24, "%zu", count.games);
  snprintf(counts[1], 24, "%zu", count.finished);
  snprintf(counts[2], 24, "%zu", count.games - count.finished - count.cancelled);
  return 0;
}

/* After a game of tournament t ended: when it was the last, the final
 * table to every player, once (the phase changes with the mails). */
static int tournament_game_over(struct ref_msg_ctx *m, int64_t game)
{
  struct store_tournament t;
  struct base_buf table;
  int64_t *ids = NULL;
  size_t n = 0, i;
  char counts[3][24];
  int rc = tournament_of(m->svc, game, &t), open = 0;

  if(rc <= 0 || t.phase != STORE_TOURNAMENT_PLAYING)
    return rc < 0 ? -1 : 0;
  if(store_tournament_games(m->svc->st, &ids, &n, t.id) != STORE_OK)
    return -1;
  for(i = 0; i < n && !open; i++) {
    struct store_game row;
    if(store_game_load(m->svc->st, &row, ids[i]) != STORE_OK) {
      free(ids);
      return -1;
    }
    open = row.phase == STORE_GAME_INVITED || row.phase == STORE_GAME_ACTIVE;
  }
  free(ids);
  if(open)
    return 0;
  base_buf_init(&table, 1024u * 1024u);
  rc = ref_tournament_standings_vars(m->svc, &t, &table, counts);
  if(!rc) {
    struct tpl_var more[2] = {{"table", table.s}, {"games", counts[0]}};
    t.phase = STORE_TOURNAMENT_FINISHED;
    t.finished = ref_now(m->svc);
    rc = store_tournament_update(m->svc->st, &t) != STORE_OK ||
         tell_players(m, &t, "tournament-over.txt", more, 2);
    ref_log_info("tournament %lld (%s): over, the final table mailed", (long long)t.id, t.name);
  }
  base_buf_free(&table);
  return rc ? -1 : 0;
}

/* ---- backgammon matches ---- */

/* The next game of g's match: the same seats, already accepted, the score
 * after g in its options, the match's dice (a "Dice match" line in its
 * first mail says from which roll), g's time control, observers and the
 * words the players chose at the invitation that are the service's:
 * private (no observers, no page on the site) and public-comments; started
 * at once. A match asked for private had its second game public. */
static int match_next(struct ref_msg_ctx *m, struct ref_game_ctx *g,
                      const struct ref_match_state *ms, const struct ref_match_after *a)
{
  struct ref_service *svc = m->svc;
  struct ref_game_ctx ng;
  struct store_clock ck;
  struct base_buf prelude;
  const char *both[2] = {g->seats[0].address, g->seats[1].address};
  char opts[256], text[1024], observers[32 * 260], *save = NULL, *tok;
  int rc = -1;
  int priv = ref_game_private(svc, g->row.id), pub = ref_game_public_comments(svc, g->row.id);

  if(priv < 0 || pub < 0)
    return -1;
  ref_match_options(opts, sizeof(opts), ms->length, a->score, a->next_crawford);
  /* the words in cmd_invite.c's order ("unrated" is the match's: its first
   * game's create entry, ref_match_recount) */
  snprintf(text, sizeof(text), "new %s%s%s %s by %s for match %lld game %d", g->desc->name,
           priv ? " private" : "", pub ? " public-comments" : "", opts, svc->cfg.address,
           (long long)ms->match, ms->number + 1);
  base_buf_init(&prelude, 4096);
  if(store_clock_load(svc->st, &ck, g->row.id) != STORE_OK ||
     game_create(svc, &ng, g->desc, opts, ck.days, ck.weekends, ck.control, both, NULL, NULL,
                 g->seats, text) ||
     store_match_add_game(svc->st, ms->match, ms->number + 1, ng.row.id) != STORE_OK ||
     (priv && ref_game_set_private(svc, ng.row.id)) ||
     (pub && ref_game_set_public_comments(svc, ng.row.id)) ||
     ref_observers(svc, g->row.id, observers, sizeof(observers)))
    goto out;
  for(tok = strtok_r(observers, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
    if(ref_observer_set(svc, ng.row.id, tok, 1) < 0)
      goto out;
  if(ref_dice_match_line(svc, &ng, ms->number + 1, &prelude) ||
     game_start(m, &ng, prelude.s))
    goto out;
  ref_log_info("match %lld: game %d is game %lld (%s)", (long long)ms->match, ms->number + 1,
               (long long)ng.row.id, opts);
  rc = 0;
out:
  base_buf_free(&prelude);
  ref_game_free(&ng);
  return rc;
}

/* After a game of a match: the match decided (its row, its rating), or its
 * next game. */
static int match_game_over(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  struct ref_match_state ms;
  struct ref_match_after a;
  struct store_match row;
  struct ref_rated u;
  int rc = ref_match_of(m->svc, g, &ms), rated;

  if(rc <= 0 || !ms.last)
    return rc < 0 ? -1 : 0;
  if(store_match_load(m->svc->st, &row, ms.match) != STORE_OK)
    return -1;
  if(row.phase == STORE_MATCH_FINISHED)
    return 0;
  if(ref_match_after(m->svc, g, &ms, &a))
    return -1;
  if(!a.decided)
    return 0;
  if(!a.over)
    return match_next(m, g, &ms, &a);
  row.phase = STORE_MATCH_FINISHED;
  row.winner = a.winner;
  if(store_match_update(m->svc->st, &row) != STORE_OK)
    return -1;
  ref_log_info("match %lld: won by %s, %d-%d", (long long)ms.match, g->seats[a.winner].address,
               a.score[0], a.score[1]);
  rated = ref_rated_match(m->svc, ms.match, &u);
  return rated < 0 || (rated && ref_ratings_apply(m->svc, &u)) ? -1 : 0;
}

/* ---- the end of a game ---- */

int ref_compete_game_over(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  struct ref_rated u;
  int rated;

  if(g->row.phase != STORE_GAME_FINISHED)
    return 0;
  rated = ref_rated_game(m->svc, g, &u);
  if(rated < 0 || (rated && ref_ratings_apply(m->svc, &u)) || match_game_over(m, g))
    return -1;
  return tournament_game_over(m, g->row.id);
}
