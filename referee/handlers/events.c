/*
 * events.c: the kinds of event a game can belong to, layer 6 "handlers"
 * (docs/architecture.md): the hook every handler that ends a game calls
 * (ref_compete_game_over: compete.c's part, then the tournament's by its
 * kind's driver, chosen once), and knockout events of backgammon matches
 * (rules-spec KO-1..KO-4):
 *
 *  - made by `tournament backgammon knockout match=N [NAME] with ...`
 *    (cmd_compete.c): the event, its players, one dice chain per slot
 *    drawn and committed at once (slot 0 the draw, slot k the match whose
 *    winner goes to slot k/2), every commitment in the invitation, mailed
 *    before anyone accepts (docs/dice-protocol.md, "Knockouts");
 *  - `tournament accept NAME`: the player's entropy e_s fixed (keyed by
 *    the draw chain's salt); when every player still in has accepted, the
 *    draw (games/knockout.c) from roll 1 of the draw chain, mailed to all
 *    with its proof and the bracket, and the first round's matches made;
 *  - a match is made when both of its players are known: a backgammon
 *    match to N points whose first game adopts the slot's chain and takes
 *    both players' e_s (no second invitation: they accepted the event);
 *    byes and withdrawals send a player on without a match (KO-2..KO-4);
 *  - `tournament withdraw NAME`: the player's running match resigned (the
 *    opponent goes on, KO-4), a later opponent goes on by walkover;
 *  - after a match: its winner goes on; when the final is decided every
 *    player gets the final bracket, once.
 */
#include "handlers_int.h"

#include "compete_int.h"
#include "dice.h"
#include "log.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The draw's game string in the faces' HMAC message (dice-protocol.md,
 * "Knockouts"). */
static void draw_game(char *buf, size_t cap, const struct store_tournament *t)
{
  snprintf(buf, cap, "knockout-%lld", (long long)t->id);
}

/* The commitment lines of the event: the draw's and each match slot's. */
static int commitments(struct ref_service *svc, const struct store_tournament *t,
                       struct base_buf *out)
{
  struct store_knockout_slot *s = NULL;
  size_t n = 0, i;
  char game[40];
  int rc = 0;
  draw_game(game, sizeof(game), t);
  if(store_knockout_slots(svc->st, &s, &n, t->id) != STORE_OK)
    return -1;
  for(i = 0; i < n && !rc; i++)
    rc = s[i].slot == 0
           ? base_buf_printf(out, "Dice commitment: %s %s draw N %d commitment %s\n",
                             REF_DICE_PROTOCOL_2, game, REF_DICE_DEFAULT_N, s[i].commitment)
           : base_buf_printf(out, "Dice commitment: %s %s slot %d N %d commitment %s\n",
                             REF_DICE_PROTOCOL_2, game, s[i].slot, REF_DICE_DEFAULT_N,
                             s[i].commitment);
  free(s);
  if(out->len && out->s[out->len - 1] == '\n')
    out->s[--out->len] = '\0';
  return rc ? -1 : 0;
}

int ref_knockout_bracket(struct ref_service *svc, const struct store_tournament *t,
                         struct base_buf *out)
{
  struct ref_ko_view *v = calloc(1, sizeof(*v));
  int rc = -1;
  if(v && !ref_ko_view(svc, t, v) && !ref_ko_text(v, 0, svc->cfg.templates_dir, out))
    rc = 0;
  free(v);
  if(!rc && out->len && out->s[out->len - 1] == '\n')
    out->s[--out->len] = '\0';
  return rc;
}

/* Every player of t told with `tmpl` (a mail about no game), with the
 * event's words and the bracket. */
static int tell_all(struct ref_msg_ctx *m, const struct store_tournament *t, const char *tmpl,
                    const struct tpl_var *more, size_t nmore, const char *only)
{
  struct store_tournament_player *p = NULL;
  struct base_buf bracket, commit;
  struct tpl_var v[12];
  char length[16];
  size_t np = 0, i, n = 0;
  int rc = -1, len = 0;

  base_buf_init(&bracket, 1024u * 1024u);
  base_buf_init(&commit, 1024u * 1024u);
  if(store_knockout_length(m->svc->st, &len, t->id) != STORE_OK ||
     store_tournament_players(m->svc->st, &p, &np, t->id) != STORE_OK ||
     ref_knockout_bracket(m->svc, t, &bracket) || commitments(m->svc, t, &commit))
    goto out;
  snprintf(length, sizeof(length), "%d", len);
  v[n++] = (struct tpl_var){"name", t->name};
  v[n++] = (struct tpl_var){"organizer", t->organizer};
  v[n++] = (struct tpl_var){"length", length};
  v[n++] = (struct tpl_var){"bracket", bracket.s ? bracket.s : ""};
  v[n++] = (struct tpl_var){"commitments", commit.s ? commit.s : ""};
  v[n++] = (struct tpl_var){"title", "Backgammon"};
  for(i = 0; i < nmore && n < sizeof(v) / sizeof(v[0]); i++)
    v[n++] = more[i];
  for(i = 0; i < np; i++) {
    if(only && strcasecmp(only, p[i].address))
      continue;
    if(ref_reply(m, NULL, -1, p[i].address, tmpl, v, n))
      goto out;
  }
  rc = 0;
out:
  free(p);
  base_buf_free(&bracket);
  base_buf_free(&commit);
  return rc;
}

int ref_knockout_create(struct ref_msg_ctx *m, const struct ref_tournament_spec *spec,
                        int length, int64_t *id)
{
  struct ref_service *svc = m->svc;
  struct store_tournament t, same;
  struct store_knockout_entry e;
  int size = ref_ko_size(spec->nplayers), i, rc;

  memset(&t, 0, sizeof(t));
  snprintf(t.name, sizeof(t.name), "%s", spec->name);
  if(!t.name[0]) {
    int64_t *ids = NULL;
    size_t n = 0;
    if(store_tournament_list(svc->st, &ids, &n, NULL) != STORE_OK)
      return -1;
    snprintf(t.name, sizeof(t.name), "knockout-%zu", n + 1);
    free(ids);
  }
  rc = store_tournament_find(svc->st, &same, t.name);
  if(rc == STORE_OK)
    return 1;
  if(rc != STORE_ENOTFOUND)
    return -1;
  snprintf(t.kind, sizeof(t.kind), "%s", spec->d->name);
  snprintf(t.options, sizeof(t.options), "%s", spec->opts);
  t.cycles = 1;
  snprintf(t.organizer, sizeof(t.organizer), "%s", spec->organizer);
  t.phase = STORE_TOURNAMENT_INVITED;
  t.created = ref_now(svc);
  if(store_tournament_create(svc->st, &t.id, &t) != STORE_OK ||
     store_knockout_create(svc->st, t.id, length) != STORE_OK)
    return -1;
  *id = t.id;
  /* every chain drawn now, before anyone accepts (dice-protocol.md) */
  for(i = 0; i < size; i++) {
    struct ref_dice_chain c;
    struct store_knockout_slot s;
    memset(&s, 0, sizeof(s));
    if(ref_dice_chain_new(&c, REF_DICE_DEFAULT_N))
      return -1;
    s.slot = i;
    ref_dice_hex(s.commitment, c.commitment, 32);
    ref_dice_hex(s.secret, c.secret, 32);
    explicit_bzero(&c, sizeof(c));
    rc = store_knockout_slot_put(svc->st, t.id, &s);
    explicit_bzero(s.secret, sizeof(s.secret));
    if(rc != STORE_OK)
      return -1;
  }
  for(i = 0; i < spec->nplayers; i++) {
    memset(&e, 0, sizeof(e));
    e.number = i + 1;
    if(store_tournament_add_player(svc->st, t.id, i + 1, spec->players[i]) != STORE_OK ||
       store_knockout_entry_put(svc->st, t.id, &e) != STORE_OK)
      return -1;
  }
  m->changed = 1;
  ref_log_info("knockout %lld (%s): %d players, matches to %d, invited by %s", (long long)t.id,
               t.name, spec->nplayers, length, spec->organizer);
  /* the organizer who plays accepts with the mail that made it */
  if(spec->organizer_plays)
    return ref_knockout_accept(m, &t, NULL, NULL) ? -1 : 0;
  for(i = 0; i < spec->nplayers; i++)
    if(tell_all(m, &t, "knockout-invite.txt", NULL, 0, spec->players[i]))
      return -1;
  return 0;
}

/* The draw chain's salt: a Message-ID's e_s is keyed by it. */
static int draw_salt(struct ref_service *svc, const struct store_tournament *t, char salt[65])
{
  struct store_knockout_slot *s = NULL;
  size_t n = 0;
  uint8_t secret[32];
  int rc = -1;
  if(store_knockout_slots(svc->st, &s, &n, t->id) == STORE_OK && n &&
     !ref_dice_unhex(secret, 32, s[0].secret)) {
    ref_dice_salt(salt, secret);
    rc = 0;
  }
  explicit_bzero(secret, sizeof(secret));
  if(s)
    explicit_bzero(s, n * sizeof(*s));
  free(s);
  return rc;
}

static int make_match(struct ref_msg_ctx *m, struct ref_ko_view *v, int slot);
static int advance(struct ref_msg_ctx *m, const struct store_tournament *t);
static int withdrawn_follows(struct ref_msg_ctx *m, struct store_tournament *t,
                             struct ref_ko_view *v, int me, int number);

/* KO-1: the draw, once every player still in has accepted. */
static int draw(struct ref_msg_ctx *m, struct store_tournament *t)
{
  struct ref_service *svc = m->svc;
  struct ref_ko_view *v = calloc(1, sizeof(*v));
  struct ref_dice_chain c;
  struct base_buf proof;
  uint8_t secret[32], key[32];
  const char *e[REF_TOURNAMENT_MAX];
  int in[REF_TOURNAMENT_MAX], order[REF_TOURNAMENT_MAX], seed_at[REF_TOURNAMENT_MAX];
  char E[65], game[40], keyhex[65];
  int n = 0, i, j, size, rc = -1;

  base_buf_init(&proof, 1024u * 1024u);
  if(!v || ref_ko_view(svc, t, v))
    goto out;
  draw_game(game, sizeof(game), t);
  for(i = 0; i < v->nplayers; i++)
    if(!v->player[i].withdrawn) {
      in[n] = i;
      e[n++] = v->player[i].entropy;
    }
  if(n < 2)
    goto out;
  /* E over the entrants' e_s in starting-number order */
  ref_dice_entropy(E, e, (size_t)n);
  if(ref_dice_unhex(secret, 32, v->slot[0].secret))
    goto out;
  ref_dice_chain_from_secret(&c, secret, REF_DICE_DEFAULT_N);
  ref_dice_key(key, &c, 1);
  explicit_bzero(secret, sizeof(secret));
  explicit_bzero(&c, sizeof(c));
  if(ref_ko_draw(key, game, E, n, order))
    goto out;
  size = ref_ko_size(n);
  ref_ko_seeds(size, seed_at);
  /* the k-th drawn is seed k; its position is where that seed stands */
  for(i = 0; i < n; i++) {
    struct store_knockout_entry en;
    int who = in[order[i] - 1], pos = 0;
    for(j = 0; j < size; j++)
      if(seed_at[j] == i + 1)
        pos = j + 1;
    memset(&en, 0, sizeof(en));
    en.number = v->player[who].number;
    en.accepted = 1;
    en.position = pos;
    snprintf(en.entropy, sizeof(en.entropy), "%s", v->player[who].entropy);
    if(store_knockout_entry_put(svc->st, t->id, &en) != STORE_OK)
      goto out;
  }
  /* a bracket sized for the entrants: slots past it are never played */
  for(i = 0; i < n; i++)
    if(base_buf_printf(&proof, "Dice entropy: %s e%d %s\n", game, i + 1, e[i]))
      goto out;
  ref_dice_hex(keyhex, key, 32);
  if(base_buf_printf(&proof, "Dice entropy: %s E %s\nDice draw: %s roll 1 key %s order", game,
                     E, game, keyhex))
    goto out;
  for(i = 0; i < n; i++)
    if(base_buf_printf(&proof, " %d", v->player[in[order[i] - 1]].number))
      goto out;
  /* the players' salt (dice-protocol.md, "Versions"): each checks their
   * own e_s with it; mailed to the players only, never published */
  {
    char salt[65];
    if(draw_salt(svc, t, salt) ||
       base_buf_printf(&proof, "\nDice salt: %s %s", game, salt))
      goto out;
  }
  t->phase = STORE_TOURNAMENT_PLAYING;
  if(store_tournament_update(svc->st, t) != STORE_OK)
    goto out;
  ref_log_info("knockout %lld (%s): drawn, %d players", (long long)t->id, t->name, n);
  /* the byes and the first matches first, so the draw's mail shows the
   * bracket as it stands: who went on, which matches are playing */
  if(advance(m, t))
    goto out;
  {
    struct tpl_var more[1] = {{"proof", proof.s}};
    if(tell_all(m, t, "knockout-drawn.txt", more, 1, NULL))
      goto out;
  }
  rc = 0;
out:
  explicit_bzero(key, sizeof(key));
  base_buf_free(&proof);
  free(v);
  return rc;
}

int ref_knockout_accept(struct ref_msg_ctx *m, const struct store_tournament *tt,
                        const char *entropy, const char *line)
{
  struct ref_service *svc = m->svc;
  struct store_tournament t = *tt;
  struct store_knockout_entry *e = NULL;
  struct store_tournament_player *p = NULL;
  size_t ne = 0, np = 0, i;
  int me = -1, waiting = 0, rc = -1;
  char salt[65];
  const char *from = m->mail->from;

  if(store_knockout_entries(svc->st, &e, &ne, t.id) != STORE_OK ||
     store_tournament_players(svc->st, &p, &np, t.id) != STORE_OK)
    goto out;
  for(i = 0; i < np && i < ne; i++)
    if(!strcasecmp(p[i].address, from))
      me = (int)i;
  if(me < 0) {
    rc = line ? ref_refuse_player(m, line, "no-tournament", t.name) : -1;
    goto out;
  }
  if(t.phase != STORE_TOURNAMENT_INVITED || e[me].accepted || e[me].withdrawn) {
    rc = ref_refuse_player(m, line ? line : "", "ko-not-invited", t.name);
    goto out;
  }
  /* e_s (dice-protocol.md, "Knockouts"): the entropy text, else the
   * Message-ID keyed by the draw chain's salt */
  if(entropy && entropy[0])
    snprintf(e[me].entropy, sizeof(e[me].entropy), "%s", entropy);
  else {
    if(draw_salt(svc, &t, salt))
      goto out;
    ref_dice_mid_entropy(e[me].entropy, sizeof(e[me].entropy), salt, m->message_id);
  }
  e[me].accepted = 1;
  if(store_knockout_entry_put(svc->st, t.id, &e[me]) != STORE_OK)
    goto out;
  m->changed = 1;
  for(i = 0; i < ne; i++)
    waiting += !e[i].accepted && !e[i].withdrawn;
  ref_log_info("knockout %lld (%s): %s accepted, %d to come", (long long)t.id, t.name, from,
               waiting);
  if(waiting) {
    /* the organizer's own accept is its "sent" mail: the invitations go now */
    if(!line) {
      for(i = 0; i < np; i++)
        if(tell_all(m, &t, strcasecmp(p[i].address, from) ? "knockout-invite.txt"
                                                           : "knockout-sent.txt",
                    NULL, 0, p[i].address))
          goto out;
      rc = 0;
      goto out;
    }
    rc = tell_all(m, &t, "knockout-accepted.txt", NULL, 0, from);
    goto out;
  }
  rc = draw(m, &t);
out:
  free(e);
  free(p);
  return rc;
}

/* The game in play of the match in slot k, or 0. */
static int64_t running_game(struct ref_service *svc, int64_t match)
{
  int64_t *games = NULL, last = 0;
  size_t n = 0;
  struct store_game row;
  if(store_match_games(svc->st, &games, &n, match) != STORE_OK)
    return -1;
  if(n && store_game_load(svc->st, &row, games[n - 1]) == STORE_OK &&
     row.phase == STORE_GAME_ACTIVE)
    last = games[n - 1];
  free(games);
  return last;
}

int ref_knockout_withdraw(struct ref_msg_ctx *m, const struct store_tournament *tt,
                          const char *line)
{
  struct ref_service *svc = m->svc;
  struct store_tournament t = *tt;
  struct ref_ko_view *v = calloc(1, sizeof(*v));
  struct store_knockout_entry en;
  int me = -1, i, rc = -1;
  const char *from = m->mail->from;

  if(!v || ref_ko_view(svc, &t, v))
    goto out;
  for(i = 0; i < v->nplayers; i++)
    if(!strcasecmp(v->player[i].address, from))
      me = i;
  if(me < 0) {
    rc = ref_refuse_player(m, line, "no-tournament", t.name);
    goto out;
  }
  if(v->player[me].withdrawn || t.phase == STORE_TOURNAMENT_FINISHED ||
     t.phase == STORE_TOURNAMENT_CANCELLED) {
    rc = ref_refuse_player(m, line, "ko-not-in", t.name);
    goto out;
  }
  memset(&en, 0, sizeof(en));
  en.number = v->player[me].number;
  en.accepted = v->player[me].accepted;
  en.position = v->player[me].position;
  en.withdrawn = 1;
  snprintf(en.entropy, sizeof(en.entropy), "%s", v->player[me].entropy);
  if(store_knockout_entry_put(svc->st, t.id, &en) != STORE_OK)
    goto out;
  m->changed = 1;
  ref_log_info("knockout %lld (%s): %s withdrew", (long long)t.id, t.name, from);
  /* what follows first, so everyone's mail shows the bracket after it */
  rc = withdrawn_follows(m, &t, v, me, en.number);
  if(!rc) {
    struct tpl_var more[1] = {{"withdrawn", from}};
    struct store_tournament now;
    rc = store_tournament_load(svc->st, &now, t.id) != STORE_OK ||
             tell_all(m, &now, "knockout-withdrawn.txt", more, 1, NULL)
           ? -1
           : 0;
  }
out:
  free(v);
  return rc;
}

/* KO-4: what a withdrawal sets off. */
static int withdrawn_follows(struct ref_msg_ctx *m, struct store_tournament *tp,
                             struct ref_ko_view *v, int me, int number)
{
  struct ref_service *svc = m->svc;
  struct store_tournament t = *tp;
  const char *from = v->player[me].address;
  int i, rc = -1;
  if(t.phase == STORE_TOURNAMENT_INVITED) {
    /* KO-4 before the draw: not drawn; the draw waits for the others only */
    int waiting = 0, in = 0;
    for(i = 0; i < v->nplayers; i++) {
      waiting += i != me && !v->player[i].accepted && !v->player[i].withdrawn;
      in += i != me && !v->player[i].withdrawn;
    }
    if(in < 2) {
      /* nobody left to play: the event ends, cancelled */
      t.phase = STORE_TOURNAMENT_CANCELLED;
      rc = store_tournament_update(svc->st, &t) == STORE_OK ? 0 : -1;
      goto out;
    }
    rc = waiting ? 0 : draw(m, &t);
    goto out;
  }
  /* KO-4 after it: a match in play is resigned (the opponent goes on, as
   * `resign match` gives it); a later opponent goes on by walkover */
  for(i = 1; i < v->size; i++) {
    int64_t game;
    if(v->slot[i].match <= 0 || v->slot[i].winner != 0 ||
       (v->match[i].side[0] != number && v->match[i].side[1] != number))
      continue;
    game = running_game(svc, v->slot[i].match);
    if(game < 0)
      goto out;
    if(game > 0) {
      struct ref_game_ctx g;
      char why[256];
      int seat;
      if(ref_game_load(svc, &g, game, why, sizeof(why)))
        goto out;
      seat = ref_seat_of(&g, from);
      rc = seat < 0 ? -1 : ref_match_resign(m, &g, seat) || ref_compete_game_over(m, &g);
      ref_game_free(&g);
      goto out; /* the game's end advanced the bracket */
    }
  }
  rc = advance(m, &t);
out:
  return rc;
}

/* The match of slot k between its two known players: its first game made
 * with the slot's chain and both players' e_s, started at once. */
static int make_match(struct ref_msg_ctx *m, struct ref_ko_view *v, int slot)
{
  struct ref_service *svc = m->svc;
  const struct ref_game_desc *d = ref_game_find(v->t.kind);
  struct ref_game_ctx g;
  struct store_seat seats[2];
  struct base_buf prelude, bracket;
  const char *both[2];
  char text[1200], opts[256], head[200], label[16], round[120], commitment[200];
  int i, rc = -1;
  int64_t match = 0;

  memset(&g, 0, sizeof(g));
  memset(seats, 0, sizeof(seats));
  if(!d)
    return -1;
  for(i = 0; i < 2; i++) {
    int k;
    both[i] = ref_ko_address(v, v->match[slot].side[i]);
    for(k = 0; k < v->nplayers; k++)
      if(v->player[k].number == v->match[slot].side[i])
        snprintf(seats[i].entropy, sizeof(seats[i].entropy), "%s", v->player[k].entropy);
  }
  ref_match_options(opts, sizeof(opts), v->length, (int[2]){0, 0}, 0);
  snprintf(text, sizeof(text), "new %s %s by %s for knockout %s match M%d", d->name, opts,
           v->t.organizer, v->t.name, v->match[slot].label);
  base_buf_init(&prelude, 1024u * 1024u);
  base_buf_init(&bracket, 1024u * 1024u);
  if(ref_game_create_seated(svc, &g, d, opts, both, seats, text) ||
     ref_dice_adopt_chain(svc, g.row.id, v->slot[slot].secret) || ref_match_begin(svc, &g) ||
     store_match_of_game(svc->st, &match, &i, g.row.id) != STORE_OK ||
     store_tournament_add_game(svc->st, v->t.id, g.row.id, slot) != STORE_OK)
    goto out;
  v->slot[slot].match = match;
  if(store_knockout_slot_put(svc->st, v->t.id, &v->slot[slot]) != STORE_OK)
    goto out;
  /* the start mail says which match of which event this is, the bracket,
   * and the commitment the invitation showed for this slot */
  snprintf(label, sizeof(label), "%d", v->match[slot].label);
  ref_ko_round_text(v, v->match[slot].round, svc->cfg.templates_dir, round, sizeof(round));
  {
    struct tpl_var var[3] = {{"name", v->t.name}, {"label", label}, {"round", round}};
    tpl_line(head, sizeof(head), svc->cfg.templates_dir, "phrases.txt", "ko-match-start", var, 3);
  }
  if(ref_ko_view(svc, &v->t, v) || ref_ko_text(v, 0, svc->cfg.templates_dir, &bracket) ||
     ref_dice_commitment_line(svc, g.row.id, commitment, sizeof(commitment)) ||
     base_buf_printf(&prelude, "%s\n\n%s\n%s (knockout-%lld slot %d)\n", head,
                     bracket.s ? bracket.s : "", commitment, (long long)v->t.id, slot) ||
     ref_game_start_after(m, &g, prelude.s))
    goto out;
  ref_log_info("knockout %lld (%s): M%d is match %lld, game %lld", (long long)v->t.id,
               v->t.name, v->match[slot].label, (long long)match, (long long)g.row.id);
  rc = 0;
out:
  base_buf_free(&prelude);
  base_buf_free(&bracket);
  ref_game_free(&g);
  return rc;
}

/* The k-th slot (0-based) in reading order: round 1 top to bottom, ...,
 * the final last. */
static int slot_at(int size, int k)
{
  int level = ref_ko_rounds(size) - 1;
  while(level > 0 && k >= (1 << level)) {
    k -= 1 << level;
    level--;
  }
  return (1 << level) + k;
}

/* KO-2..KO-4: every slot whose two sides are known is decided (a bye, a
 * walkover) or gets its match; again until nothing changes; the final
 * decided ends the event. */
static int advance(struct ref_msg_ctx *m, const struct store_tournament *tt)
{
  struct ref_service *svc = m->svc;
  struct store_tournament t = *tt;
  struct ref_ko_view *v = calloc(1, sizeof(*v));
  int changed = 1, k, rc = -1;

  if(!v)
    return -1;
  while(changed) {
    changed = 0;
    if(ref_ko_view(svc, &t, v))
      goto out;
    /* in the bracket's reading order (M1, M2, ...), so the matches of a
     * round are made, numbered and mailed top to bottom */
    /* the byes and walkovers first, to the end, then one match at a
     * time: a match's first mail shows every bye already gone on */
    for(k = 0; k < 2 * (v->size - 1) && !changed; k++) {
      int slot = slot_at(v->size, k % (v->size - 1)), a = v->match[slot].side[0],
          b = v->match[slot].side[1], w;
      int playable = a > 0 && b > 0 && !ref_ko_withdrawn(v, a) && !ref_ko_withdrawn(v, b);
      if(v->slot[slot].winner != 0 || v->slot[slot].match > 0 || !a || !b ||
         playable != (k >= v->size - 1))
        continue;
      if(playable) {
        if(make_match(m, v, slot))
          goto out;
        changed = 1;
        continue;
      }
      /* a bye or a walkover: who is still in goes on, else nobody */
      a = a > 0 && !ref_ko_withdrawn(v, a) ? a : -1;
      b = b > 0 && !ref_ko_withdrawn(v, b) ? b : -1;
      w = a > 0 ? a : b > 0 ? b : -1;
      v->slot[slot].winner = w;
      if(store_knockout_slot_put(svc->st, t.id, &v->slot[slot]) != STORE_OK)
        goto out;
      changed = 1;
    }
  }
  if(v->size >= 2 && v->slot[1].winner != 0 && t.phase == STORE_TOURNAMENT_PLAYING) {
    const char *champion = v->slot[1].winner > 0 ? ref_ko_address(v, v->slot[1].winner) : "";
    struct tpl_var more[1] = {{"champion", champion}};
    t.phase = STORE_TOURNAMENT_FINISHED;
    t.finished = ref_now(svc);
    if(store_tournament_update(svc->st, &t) != STORE_OK ||
       tell_all(m, &t, "knockout-over.txt", more, 1, NULL))
      goto out;
    ref_log_info("knockout %lld (%s): over, won by %s", (long long)t.id, t.name, champion);
  }
  rc = 0;
out:
  free(v);
  return rc;
}

int ref_knockout_game_over(struct ref_msg_ctx *m, const struct store_tournament *t,
                           int64_t game)
{
  struct ref_service *svc = m->svc;
  struct store_match row;
  struct store_knockout_slot *s = NULL;
  struct store_seat *seats = NULL;
  struct store_tournament_player *p = NULL;
  size_t ns = 0, nseats = 0, np = 0, i;
  int64_t match;
  int number, slot = 0, rc = -1;

  if(t->phase != STORE_TOURNAMENT_PLAYING)
    return 0;
  if(store_match_of_game(svc->st, &match, &number, game) != STORE_OK ||
     store_match_load(svc->st, &row, match) != STORE_OK)
    return -1;
  if(row.phase != STORE_MATCH_FINISHED || row.winner < 0)
    return 0; /* the match goes on */
  if(store_tournament_game_round(svc->st, &slot, game) != STORE_OK ||
     store_knockout_slots(svc->st, &s, &ns, t->id) != STORE_OK ||
     store_seat_list(svc->st, &seats, &nseats, game) != STORE_OK ||
     store_tournament_players(svc->st, &p, &np, t->id) != STORE_OK)
    goto out;
  for(i = 0; i < ns; i++)
    if(s[i].slot == slot && s[i].match == match && s[i].winner == 0 &&
       row.winner < (int)nseats) {
      size_t k;
      for(k = 0; k < np; k++)
        if(!strcasecmp(p[k].address, seats[row.winner].address))
          s[i].winner = p[k].number;
      if(store_knockout_slot_put(svc->st, t->id, &s[i]) != STORE_OK)
        goto out;
    }
  rc = advance(m, t);
out:
  free(s);
  free(seats);
  free(p);
  return rc;
}

/* ---- the kinds of event ---- */

/* A round robin (every pairing made at once, a crosstable: compete.c,
 * tournament.c) and a knockout (this file and games/knockout.c). */
static int round_robin_table(struct ref_service *svc, const struct store_tournament *t,
                             struct base_buf *out, char counts[3][24])
{
  return ref_tournament_standings_vars(svc, t, out, counts);
}

static int knockout_table(struct ref_service *svc, const struct store_tournament *t,
                          struct base_buf *out, char counts[3][24])
{
  memset(counts, 0, 3 * 24);
  return ref_knockout_bracket(svc, t, out);
}

static const struct ref_event_kind event_kinds[] = {
    {"round robin", ref_round_robin_game_over, round_robin_table, "standings.txt"},
    {"knockout", ref_knockout_game_over, knockout_table, "knockout-bracket.txt"},
};

const struct ref_event_kind *ref_event_kind_of(struct ref_service *svc,
                                               const struct store_tournament *t)
{
  int length, rc = store_knockout_length(svc->st, &length, t->id);
  if(rc != STORE_OK && rc != STORE_ENOTFOUND)
    return NULL;
  return &event_kinds[rc == STORE_OK];
}

int ref_compete_game_over(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  struct store_tournament t;
  const struct ref_event_kind *k;
  int rc;
  if(g->row.phase != STORE_GAME_FINISHED)
    return 0;
  if(ref_compete_game_ended(m, g))
    return -1;
  rc = ref_tournament_of(m->svc, g->row.id, &t);
  if(rc <= 0)
    return rc < 0 ? -1 : 0;
  if(!(k = ref_event_kind_of(m->svc, &t)))
    return -1;
  return k->game_over(m, &t, g->row.id);
}
