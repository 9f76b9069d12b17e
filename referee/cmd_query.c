/*
 * cmd_query.c: the commands that ask and change nothing (issue 6): `board`,
 * `legal`, `help [GAME]`, `history`, `preview MOVE`, `verify`, `games`.
 * The "#N" guard lets them pass whatever N says (dispatch.c). Layer 6,
 * "handlers" (docs/architecture.md).
 */
#include "handlers_int.h"

#include "dice.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* board: the sender's view, nothing changed. */
int ref_do_board(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  return ref_tell_seat(m, g, seat, "board.txt", NULL, 0);
}

int ref_do_legal(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  struct ref_movelist list = {0};
  struct ref_buf b;
  struct tpl_var extra[1];
  size_t i;
  int rc;

  if(!g->started)
    return ref_refuse(m, g, seat, "legal", "not-started", "", NULL);
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
    return ref_refuse(m, g, seat, "legal", s.phase == REF_PHASE_OVER ? "game-over" : "bg-no-roll-yet",
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
  rc = ref_tell_seat(m, g, seat, "legal.txt", extra, 1);
  ref_buf_free(&b);
  ref_movelist_free(&list);
  return rc;
}

/* help [GAME]: help-GAME.txt for a registered game (its notation, its
 * options for "new"), else the general help. */
int ref_do_help(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *arg)
{
  const struct ref_game_desc *d = NULL;
  char name[80], word[40] = "";
  const char *tmpl = "help.txt";
  struct tpl_var help_url[1];
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
  help_url[0].name = "help_url"; /* issue 16: the operator's page, if any */
  help_url[0].value = m->svc->cfg.help_url;
  if(g && seat >= 0)
    return ref_tell_seat(m, g, seat, tmpl, help_url, 1);
  /* issue 13: help to an address that holds no seat and never answered
   * us is mail to a stranger (the From may be forged): within the hourly
   * budget (optin.c), else nothing. */
  switch(ref_stranger(m->svc, m->mail->from)) {
  case -1: return -1;
  case 1:
    switch(ref_stranger_budget(m->svc, 1, "help", m->mail->from)) {
    case -1: return -1;
    case 0: m->refused = 1; return 0;
    default: break;
    }
    break;
  default: break;
  }
  return ref_reply(m, NULL, -1, m->mail->from, tmpl, help_url, 1);
}

/* history: the journal in words, one dated line per entry (record.c). */
int ref_do_history(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
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
  rc = ref_tell_seat(m, g, seat, "history.txt", extra, 1);
  ref_buf_free(&b);
  return rc;
}

/* preview MOVE: the move read and played on a copy of the position; the
 * board after it, and the result if it ends the game. Nothing is journaled
 * or saved and no dice are rolled (the next roll stays unknown). Any seat
 * may ask; the move is read as the side to move's. */
int ref_do_preview(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
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
    return ref_refuse(m, g, seat, c->line, "preview-what", "", NULL);
  ops->status(g->state, &s);
  if(s.phase != REF_PHASE_MOVE)
    return ref_refuse(m, g, seat, c->line, "preview-not-now", "", NULL);
  memset(&err, 0, sizeof(err));
  if(ops->parse(g->state, c->arg, &mv, &err) != REF_OK)
    return ref_refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "unreadable", err.detail,
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
  rc = ref_tell_seat(m, g, seat, "preview.txt", extra, 2);
  g->state = saved;
  memcpy(g->last_move, last, sizeof(last));
  free(copy);
  return rc;
}

/* verify: every roll of the game checked from the lines its mails showed
 * (the same check tools/tabula-verify-dice.py makes). */
int ref_do_verify(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                  const struct ref_cmd *c)
{
  struct ref_buf t;
  struct tpl_var extra[1];
  char why[256], verdict[320], game[24];
  int nrolls = 0, made = 0, rc;

  if(!(g->desc->flags & REF_GAME_DICE))
    return ref_refuse(m, g, seat, c->line, "not-available", ref_cmd_name(c->kind), NULL);
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
  rc = ref_tell_seat(m, g, seat, "verify.txt", extra, 1);
  return rc;
}

/* games: the sender's games and whose turn it is. Only a player is
 * answered (no backscatter); the list carries no keys. */
int ref_do_games(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
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
      rc = ref_tell_seat(m, g, seat, "games.txt", extra, 1);
    else
      rc = ref_reply(m, NULL, -1, address, "games.txt", extra, 1);
  }
  ref_buf_free(&b);
  return rc;
}
