/*
 * cmd_query.c: the commands that ask and change nothing: `board`,
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

/* ---- boards of the past ---- */

/* "At move N" is said as the "#N" of every mail (ops->status
 * move_number): the board of move N is the position when the game first
 * reached N, what the mover of N's first turn was shown (in chess before
 * White's move N; in dice games with the dice when the roll came without
 * a question, before it when the cube was to be decided). The journal is replayed
 * as the record replays it (record.c), never by a replay of its own. */
struct past {
  int want, found, first, last; /* the move asked for; the range the game went through */
  const struct ref_game_desc *desc;
  struct ref_state *state;      /* the position found */
  char last_move[160];          /* the move that led to it, as labelled then */
};

/* The record's steps, read here one at a time through record.c's
 * iterator: the games layer never calls up into this one. */
typedef int step_fn(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st);
static int read_record(struct ref_service *svc, const struct ref_game_ctx *g, step_fn *step,
                       void *arg)
{
  struct ref_rec_iter it;
  int rc = ref_record_open(svc, g, &it);
  while(!rc && (rc = ref_record_next(&it)) == 1)
    rc = step(arg, &it.r, &it.st) ? -1 : 0;
  ref_record_close(&it, NULL);
  return rc;
}

static int past_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct past *p = arg;
  struct ref_status s;
  (void)st;
  if(!r->started)
    return 0;
  r->desc->ops->status(r->state, &s);
  if(!p->first)
    p->first = s.move_number;
  p->last = s.move_number;
  if(p->found == 1) {
    /* dice the rules waited for (no one was asked: no cube decision) are
     * rolled in the mail that reached N, so the board shows them */
    struct ref_status b;
    int rolled = 0;
    if(!strcmp(st->e->kind, "roll") && st->before && s.move_number == p->want) {
      r->desc->ops->status(st->before, &b);
      rolled = b.phase == REF_PHASE_ROLL;
    }
    if(rolled)
      memcpy(p->state, r->state, r->desc->state_size);
    else
      p->found = 2;
  }
  if(!p->found && s.move_number == p->want) {
    memcpy(p->state, r->state, r->desc->state_size);
    snprintf(p->last_move, sizeof(p->last_move), "%s", r->last_move);
    p->found = 1;
  }
  return 0;
}

/* "#12" or "12": the move number, -1 for anything else. */
static int past_number(const char *arg)
{
  const char *p = arg + (*arg == '#');
  long n = 0;
  if(!isdigit((unsigned char)*p))
    return -1;
  for(; isdigit((unsigned char)*p) && n < 1000000; p++)
    n = n * 10 + (*p - '0');
  while(isspace((unsigned char)*p))
    p++;
  return *p || n < 1 ? -1 : (int)n;
}

/* board #N: the board at move N from the sender's side; nothing changed. */
static int past_board(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *arg)
{
  struct past p;
  struct ref_state *saved = g->state;
  struct ref_status s;
  struct tpl_var extra[2];
  char line[300], last[160], played[160], at[24], detail[120];
  int rc;

  snprintf(line, sizeof(line), "board %s", arg);
  memset(&p, 0, sizeof(p));
  if((p.want = past_number(arg)) < 0)
    return ref_refuse(m, g, seat, line, "past-board-what", "", NULL);
  if(!g->started)
    return ref_refuse(m, g, seat, line, "not-started", "", NULL);
  p.desc = g->desc;
  if(!(p.state = ref_state_new(g->desc)))
    return -1;
  if(read_record(m->svc, g, past_step, &p)) {
    free(p.state);
    return -1;
  }
  if(!p.found) {
    free(p.state);
    snprintf(detail, sizeof(detail), "#%d (this game's moves run from #%d to #%d)", p.want,
             p.first, p.last);
    return ref_refuse(m, g, seat, line, "past-board-range", detail, NULL);
  }
  /* the view of the past position; the game itself is put back untouched */
  snprintf(at, sizeof(at), "#%d", p.want);
  g->desc->ops->status(p.state, &s);
  memcpy(last, g->last_move, sizeof(last));
  memcpy(played, g->played, sizeof(played));
  snprintf(g->last_move, sizeof(g->last_move), "%s", p.last_move);
  g->played[0] = '\0';
  g->state = p.state;
  extra[0].name = "at";
  extra[0].value = at;
  extra[1].name = "to_move";
  extra[1].value = s.phase == REF_PHASE_OVER || s.turn < 0 || s.turn >= g->desc->seats
                       ? ""
                       : g->desc->seat_names[s.turn];
  rc = ref_tell_seat(m, g, seat, "board-past.txt", extra, 2);
  g->state = saved;
  memcpy(g->last_move, last, sizeof(last));
  memcpy(g->played, played, sizeof(played));
  free(p.state);
  return rc;
}

/* board [#N]: the sender's view, nothing changed. */
static int do_board(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *arg)
{
  if(arg && arg[0])
    return past_board(m, g, seat, arg);
  return ref_tell_seat(m, g, seat, "board.txt", NULL, 0);
}

static int do_legal(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  struct ref_movelist list = {0};
  struct base_buf b;
  struct tpl_var extra[1];
  size_t i;
  int rc;

  if(!g->started)
    return ref_refuse(m, g, seat, "legal", "not-started", "", NULL);
  base_buf_init(&b, 256 * 1024);
  rc = g->desc->ops->legal(g->state, &list);
  if(rc == REF_EPHASE) {
    /* A dice game lists no moves before the roll or after the end
     * (backgammon.c, tables_chess.c, backgammon_chess.c): a refusal, not a
     * failure, which would leave the mail to be retried for ever and hold
     * up the inbox behind it. */
    struct ref_status s;
    ref_movelist_free(&list);
    g->desc->ops->status(g->state, &s);
    return ref_refuse(m, g, seat, "legal",
                      s.phase == REF_PHASE_OVER          ? "game-over"
                      : s.phase == REF_PHASE_CUBE_REPLY ? "bg-take-or-drop"
                                                        : "bg-no-roll-yet",
                      "", NULL);
  }
  if(rc != REF_OK)
    return -1;
  for(i = 0; i < list.n; i++) {
    char mv[REF_NOTATION_MAX];
    g->desc->ops->format(g->state, &list.v[i], REF_NOTATION_CANONICAL, mv, sizeof(mv));
    /* eight to a line keeps the list under 72 columns */
    if(base_buf_printf(&b, "%s%s", i == 0 ? "" : (i % 8 == 0 ? "\n" : "  "), mv)) {
      base_buf_free(&b);
      return -1;
    }
  }
  extra[0].name = "moves";
  extra[0].value = b.s ? b.s : "";
  rc = ref_tell_seat(m, g, seat, "legal.txt", extra, 1);
  base_buf_free(&b);
  ref_movelist_free(&list);
  return rc;
}

/* help [GAME]: help-GAME.txt for a registered game (its notation, its
 * options for "new"), else the general help. */
static int do_help(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *arg)
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
  help_url[0].name = "help_url"; /* The operator's page, if any */
  help_url[0].value = m->svc->cfg.help_url;
  if(g && seat >= 0)
    return ref_tell_seat(m, g, seat, tmpl, help_url, 1);
  /* Help to an address that holds no seat and never answered
   * us is mail to a stranger (the From may be forged): within the hourly
   * budget (optin.c), else nothing. */
  switch(ref_stranger_answer(m, "help")) {
  case -1: return -1;
  case 0: return 0;
  default: return ref_reply(m, NULL, -1, m->mail->from, tmpl, help_url, 1);
  }
}

/* history full: the history with the board, from the reader's
 * side, after the start and after every move, at most HISTORY_BOARDS
 * boards and HISTORY_BYTES of them: Gmail clips a mail past 102 KB, and
 * the HTML part doubles the text. Past the cap the lines go on without
 * boards, and the cut is said where it is, with "board #N" for the rest. */
#define HISTORY_BOARDS 60
#define HISTORY_BYTES (80u * 1024u)

struct full_history {
  struct ref_rec_lines lines;
  struct ref_msg_ctx *m;
  int seat, boards, cut;
};

static int full_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct full_history *h = arg;
  struct base_buf *out = h->lines.out;
  char board[8192], note[300];
  struct ref_status s;
  if(ref_record_line(&h->lines, r, st))
    return -1;
  if(!r->started || (strcmp(st->e->kind, "move") && strcmp(st->e->kind, "start")) || h->cut)
    return 0;
  if(r->desc->ops->render(r->state, h->seat, board, sizeof(board)) != REF_OK)
    return 0;
  /* an answer to mail that proves nothing of its From holds no boards:
   * it may be a forger's, sent to the real player (rules-spec MX-4) */
  if(h->m->unproven) {
    tpl_line(note, sizeof(note), h->m->svc->cfg.templates_dir, "phrases.txt",
             "history-unproven", NULL, 0);
    h->cut = 1;
    return base_buf_printf(out, "\n%s\n\n", note);
  }
  if(h->boards >= HISTORY_BOARDS || out->len + strlen(board) > HISTORY_BYTES) {
    char num[24];
    struct tpl_var v[2] = {{"count", num}, {"at", ""}};
    char at[24];
    r->desc->ops->status(r->state, &s);
    snprintf(num, sizeof(num), "%d", h->boards);
    snprintf(at, sizeof(at), "#%d", s.move_number);
    v[1].value = at;
    tpl_line(note, sizeof(note), h->m->svc->cfg.templates_dir, "phrases.txt", "history-cut", v,
             2);
    h->cut = 1;
    return base_buf_printf(out, "\n%s\n\n", note);
  }
  h->boards++;
  return base_buf_printf(out, "\n%s\n", board);
}

/* history [full]: the journal in words, one dated line per entry
 * (record.c); "full" adds the boards. */
static int do_history(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *arg)
{
  struct base_buf b;
  struct tpl_var extra[1];
  int rc;
  base_buf_init(&b, 4u * 1024u * 1024u);
  if(arg && !strcasecmp(arg, "full")) {
    struct full_history h;
    memset(&h, 0, sizeof(h));
    h.lines.out = &b;
    h.m = m;
    h.seat = seat < 0 ? 0 : seat;
    rc = read_record(m->svc, g, full_step, &h);
  }
  else if(arg && arg[0]) {
    char line[300];
    base_buf_free(&b);
    snprintf(line, sizeof(line), "history %s", arg);
    return ref_refuse(m, g, seat, line, "history-what", "", NULL);
  }
  else
    rc = ref_game_history(m->svc, g, &b);
  if(rc) {
    base_buf_free(&b);
    return -1;
  }
  extra[0].name = "history";
  extra[0].value = b.s ? b.s : "";
  rc = ref_tell_seat(m, g, seat, "history.txt", extra, 1);
  base_buf_free(&b);
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
static int do_verify(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c)
{
  struct base_buf t;
  struct tpl_var extra[1];
  char why[256], verdict[320], game[24];
  int nrolls = 0, made = 0, rc, tr;

  if(!(g->desc->flags & REF_GAME_DICE))
    return ref_refuse(m, g, seat, c->line, "not-available", ref_cmd_name(c->kind), NULL);
  base_buf_init(&t, 8u * 1024u * 1024u);
  /* a backgammon match's dice are its first game's */
  snprintf(game, sizeof(game), "%lld", (long long)ref_dice_game(m->svc, g->row.id));
  if((tr = ref_dice_transcript(m->svc, g, &t, &made, 0)) < 0) {
    /* a store failure is no "no dice": the message is retried */
    base_buf_free(&t);
    return -1;
  }
  if(tr)
    snprintf(verdict, sizeof(verdict), "no dice have been committed for this game");
  else if(made == 0)
    snprintf(verdict, sizeof(verdict), "no rolls yet; the commitment is on record");
  else if(ref_dice_verify_game(t.s, game, &nrolls, why, sizeof(why)))
    snprintf(verdict, sizeof(verdict), "FAILED: %s", why);
  else if(nrolls != made)
    snprintf(verdict, sizeof(verdict), "FAILED: %d rolls made, %d verified", made, nrolls);
  else
    snprintf(verdict, sizeof(verdict), "all %d rolls verify", nrolls);
  base_buf_free(&t);
  extra[0].name = "verdict";
  extra[0].value = verdict;
  rc = ref_tell_seat(m, g, seat, "verify.txt", extra, 1);
  return rc;
}

/* The lines of `games`: the running games of `address` with whose turn
 * it is, then how many finished; *running says how many ran (a
 * keyless mail's answer names them too). 1 when the address plays no game. */
int ref_games_list(struct ref_msg_ctx *m, const char *address, struct base_buf *b, int *running)
{
  struct ref_service *svc = m->svc;
  const char *dir = svc->cfg.templates_dir;
  int64_t *ids = NULL;
  size_t n = 0, i, finished = 0;
  char more[200] = "";
  int rc = 0;

  *running = 0;
  if(store_games_of(svc->st, &ids, &n, address) != STORE_OK)
    return -1;
  if(!n) {
    free(ids);
    return 1;
  }
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
      if(base_buf_printf(b, "  %-6lld %-12s with %s: %s\n", (long long)row.id,
                         d ? d->title : row.kind, other, state))
        rc = -1;
      (*running)++;
    }
    free(seats);
  }
  free(ids);
  if(!rc && finished) {
    char num[24];
    struct tpl_var v[1] = {{"count", num}};
    snprintf(num, sizeof(num), "%zu", finished);
    tpl_line(more, sizeof(more), dir, "phrases.txt", "games-finished", v, 1);
    if(base_buf_printf(b, "%s%s", b->s ? "\n" : "", more))
      rc = -1;
  }
  while(b->s && b->len && b->s[b->len - 1] == '\n') /* the template places it */
    b->s[--b->len] = '\0';
  return rc;
}

/* games: the sender's games and whose turn it is. Only a player is
 * answered (no backscatter); the list carries no keys. */
static int do_games(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                    const char *address)
{
  struct base_buf b;
  struct tpl_var extra[1];
  int rc, running;

  base_buf_init(&b, 1024u * 1024u);
  rc = ref_games_list(m, address, &b, &running);
  if(rc == 1) {
    base_buf_free(&b);
    m->refused = 1;
    return 0;
  }
  if(!rc) {
    extra[0].name = "games";
    extra[0].value = b.s ? b.s : "";
    if(g && seat >= 0)
      rc = ref_tell_seat(m, g, seat, "games.txt", extra, 1);
    else
      rc = ref_reply(m, NULL, -1, address, "games.txt", extra, 1);
  }
  base_buf_free(&b);
  return rc;
}

/* ---- the handlers (commands.h's table) ---- */

enum ref_rc ref_do_board(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_board(r->m, r->g, r->seat, c->arg));
}

enum ref_rc ref_do_legal(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  (void)c;
  return ref_rc_of(r->m, do_legal(r->m, r->g, r->seat));
}

/* Without a game (r->g NULL, seat -1) help answers the sender. */
enum ref_rc ref_do_help(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_help(r->m, r->g, r->seat, c->arg));
}

enum ref_rc ref_do_history(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_history(r->m, r->g, r->seat, c->arg));
}

enum ref_rc ref_do_preview(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_preview(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_verify(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_verify(r->m, r->g, r->seat, c));
}

/* In a game's mail the games of the seat's address of record; without a
 * game, the sender's. */
enum ref_rc ref_do_games(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  (void)c;
  return ref_rc_of(r->m, do_games(r->m, r->g, r->seat,
                                  r->g ? r->g->seats[r->seat].address : r->m->mail->from));
}
