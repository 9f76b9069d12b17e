/*
 * cmd_conditional.c: conditional moves, a player's prepared
 * lines: "if Nf6 then e5", "if Nf6 e5 Nc6 then d4". Layer 6, "handlers"
 * (docs/architecture.md). This file reads and validates a line when it is
 * sent, keeps its branches (store/conditionals.c), lists and clears them,
 * and says which answer a move of the opponent calls for
 * (ref_conditional_answer); cmd_play.c plays that answer through its move
 * path, so this file never calls cmd_play.c.
 *
 * The grammar, tolerant like the rest of the command reader: "if", then
 * the plies separated by spaces (a comma or semicolon after a ply is
 * dropped), "then", the player's answer; "then" stands before the last
 * ply only.
 * The plies alternate: the opponent's expected move, the player's answer,
 * the opponent's next expected move, ..., and after "then" the player's
 * last answer. Move numbers are skipped ("if 1...Nf6 then 2.e5" reads as
 * "if Nf6 then e5"). Each ply is read by the game's own parser on the
 * position it would be played in, must be legal there, and is kept as the
 * rules format it. Only games without dice; only two players.
 *
 * When sent: on the opponent's turn the line starts from the position now;
 * with the sender's own move in the same mail it starts after that move
 * (the opponent's reply is the first expected ply); on the sender's turn
 * without a move it is refused (conditional-your-turn). A mail with one
 * line that does not read or is not legal in sequence is refused whole,
 * with the rules' reason, and nothing is stored; so is a mail whose
 * branches answer the same expected move differently (also against the
 * branches already kept).
 */
#include "handlers_int.h"

#include "log.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define COND_PLIES_MAX 16

/* One line as read: its plies as written (move numbers dropped), then as
 * the rules format them. */
struct cond_line {
  char written[COND_PLIES_MAX][REF_NOTATION_MAX];
  char canon[COND_PLIES_MAX][REF_NOTATION_MAX];
  int n;
  int dup;          /* the same as a branch before it, or one kept: not stored again */
  const char *line; /* the command line as written ("if ... then ...") */
};

/* "1...Nf6" -> "Nf6", "2." -> "", "..." -> "": a move number before a
 * ply, or standing alone, is no ply. Checkers' "11-15" is kept (a digit
 * run ends a number only when dots follow it). */
static const char *skip_number(const char *tok)
{
  const char *p = tok;
  while(isdigit((unsigned char)*p))
    p++;
  if(*p == '.' || p == tok) {
    while(*p == '.')
      p++;
    return p;
  }
  return tok;
}

/* Splits the text after "if" into plies; 0 when it has the shape
 * "P [P P ...] then P" with an even count, -1 otherwise. */
static int split_line(const char *arg, struct cond_line *out)
{
  char buf[256], *save = NULL, *tok;
  int then_at = -1;
  snprintf(buf, sizeof(buf), "%s", arg);
  out->n = 0;
  for(tok = strtok_r(buf, " \t", &save); tok; tok = strtok_r(NULL, " \t", &save)) {
    const char *t;
    size_t len = strlen(tok);
    /* "if Nf6, then e5": a list comma is no part of the ply; one inside
     * a ply stays (Doublemove's "Rd1-d2,Rd2-d3") */
    while(len && (tok[len - 1] == ',' || tok[len - 1] == ';'))
      tok[--len] = '\0';
    if(!len)
      continue;
    if(!strcasecmp(tok, "then")) {
      if(then_at >= 0)
        return -1;
      then_at = out->n;
      continue;
    }
    t = skip_number(tok);
    if(!*t)
      continue;
    if(out->n == COND_PLIES_MAX || strlen(t) >= REF_NOTATION_MAX)
      return -1;
    snprintf(out->written[out->n], REF_NOTATION_MAX, "%s", t);
    out->n++;
  }
  return then_at > 0 && then_at == out->n - 1 && out->n % 2 == 0 ? 0 : -1;
}

/* Reads and checks one line from the position `from` (the opponent to
 * move): each ply legal in sequence, the turns alternating. On failure a
 * refusal is sent (m->refused) and 1 returned. */
static int check_line(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_state *from, const struct ref_cmd *c,
                      struct cond_line *cl)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_state *work;
  char input[400];
  int i, rc = 0;

  cl->line = c->line;
  if(split_line(c->arg, cl))
    return ref_refuse(m, g, seat, c->line, "conditional-unreadable", "", NULL) ? -1 : 1;
  if(!(work = ref_state_dup(g->desc, from)))
    return -1;
  for(i = 0; i < cl->n && !rc; i++) {
    struct ref_status s;
    struct ref_move mv;
    struct ref_err err;
    int want = i % 2 == 0 ? 1 - seat : seat;
    snprintf(input, sizeof(input), "%s (in: %s)", cl->written[i], c->line);
    ops->status(work, &s);
    if(s.phase == REF_PHASE_OVER) {
      rc = ref_refuse(m, g, seat, input, "conditional-after-end", "", NULL) ? -1 : 1;
      break;
    }
    if(s.phase != REF_PHASE_MOVE || s.turn != want) {
      rc = ref_refuse(m, g, seat, input, "conditional-turns", "", NULL) ? -1 : 1;
      break;
    }
    memset(&err, 0, sizeof(err));
    if(ops->parse(work, cl->written[i], &mv, &err) != REF_OK) {
      rc = ref_refuse(m, g, seat, input, err.reason[0] ? err.reason : "illegal", err.detail,
                      &err)
               ? -1
               : 1;
      break;
    }
    ops->format(work, &mv, REF_NOTATION_CANONICAL, cl->canon[i], REF_NOTATION_MAX);
    /* the branch is kept space-separated: a notation with a space is a
     * turn written in parts, which a prepared line does not follow */
    if(strchr(cl->canon[i], ' ') || ops->apply(work, &mv) != REF_OK) {
      rc = ref_refuse(m, g, seat, input, "conditional-turns", "", NULL) ? -1 : 1;
      break;
    }
  }
  free(work);
  return rc;
}

/* Splits a stored branch's plies (space-separated) into canon[]. */
static int split_plies(const char *plies, char canon[][REF_NOTATION_MAX], int max)
{
  char buf[sizeof(((struct store_conditional *)0)->plies)], *save = NULL, *tok;
  int n = 0;
  snprintf(buf, sizeof(buf), "%s", plies);
  for(tok = strtok_r(buf, " ", &save); tok && n < max; tok = strtok_r(NULL, " ", &save))
    snprintf(canon[n++], REF_NOTATION_MAX, "%s", tok);
  return n;
}

/* Two branches answer the same expected move differently: they agree up
 * to an expected move of the opponent and part at the player's answer.
 * The expected move is written to `at`. */
static int conflict(char a[][REF_NOTATION_MAX], int na, char b[][REF_NOTATION_MAX], int nb,
                    char *at, size_t cap)
{
  int l = 0;
  while(l < na && l < nb && !strcmp(a[l], b[l]))
    l++;
  if(l % 2 == 1 && l < na && l < nb) {
    snprintf(at, cap, "%s", a[l - 1]);
    return 1;
  }
  return 0;
}

/* The same branch twice. */
static int same(char a[][REF_NOTATION_MAX], int na, char b[][REF_NOTATION_MAX], int nb)
{
  int l = 0;
  if(na != nb)
    return 0;
  while(l < na && !strcmp(a[l], b[l]))
    l++;
  return l == na;
}

/* conditionals.txt: the lines still waiting, or a word that there are
 * none. */
static int tell_list(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  char list[2048];
  struct tpl_var extra[1] = {{"no_lines", ""}};
  if(ref_conditionals_text(m->svc, g, seat, list, sizeof(list)))
    return -1; /* a failure must not read as "no lines" */
  if(!list[0])
    extra[0].value = "yes";
  return ref_tell_seat(m, g, seat, "conditionals.txt", extra, 1);
}

/* A game with the cube: the one prepared answer is to the opponent's next
 * double, "if double then take" (or drop; "accept" and "decline" read as
 * those), kept until a double uses it or "conditionals clear". The last
 * such line of a mail is the one kept. */
static int cube_answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmds *cmds)
{
  struct ref_status s;
  int i, answer = REF_CUBE_ANSWER_NONE, with_move = cmds->ncand > 0;
  const char *line = "";
  for(i = 0; i < cmds->ncmd; i++) {
    const struct ref_cmd *c = &cmds->cmd[i];
    char a[16], b[16], d[16], extra[8];
    int k;
    if(c->kind != REF_CMD_IF)
      continue;
    line = c->line;
    k = sscanf(c->arg, "%15s %15s %15s %7s", a, b, d, extra);
    if(k != 3 || strcasecmp(a, "double") || strcasecmp(b, "then"))
      return ref_refuse(m, g, seat, c->line, "conditional-cube", g->desc->title, NULL);
    if(!strcasecmp(d, "take") || !strcasecmp(d, "accept"))
      answer = REF_CUBE_ANSWER_TAKE;
    else if(!strcasecmp(d, "drop") || !strcasecmp(d, "decline") || !strcasecmp(d, "pass"))
      answer = REF_CUBE_ANSWER_DROP;
    else
      return ref_refuse(m, g, seat, c->line, "conditional-cube", g->desc->title, NULL);
  }
  /* doubled already: the answer is due now, not in advance */
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_CUBE_REPLY && s.turn == seat)
    return ref_refuse(m, g, seat, line, "conditional-doubled", "", NULL);
  if(ref_cube_answer_set(m->svc, g->row.id, seat, answer))
    return -1;
  ref_log_info("game %lld: %s answers the next double in advance", (long long)g->row.id,
               g->desc->seat_names[seat]);
  /* with a play, the play's mail lists it */
  return with_move ? 0 : tell_list(m, g, seat);
}

static int do_if(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                 const struct ref_cmds *cmds)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct cond_line *lines = NULL;
  struct store_conditional *kept = NULL, row;
  struct ref_state *from = NULL;
  struct ref_status s;
  size_t nkept = 0, k;
  int64_t base = g->moves;
  int i, j, n = 0, rc = 0, first = -1, with_move = 0;
  char at[REF_NOTATION_MAX];

  for(i = 0; i < cmds->ncmd; i++)
    if(cmds->cmd[i].kind == REF_CMD_IF && first < 0)
      first = i;
  if(first < 0)
    return 0;
  if(g->desc->flags & REF_GAME_CUBE)
    return cube_answer(m, g, seat, cmds);
  if((g->desc->flags & REF_GAME_DICE) || g->nseats != 2)
    return ref_refuse(m, g, seat, cmds->cmd[first].line, "conditional-dice", g->desc->title,
                      NULL);
  ops->status(g->state, &s);
  if(!(from = ref_state_dup(g->desc, g->state)))
    return -1;
  if(s.turn == seat) {
    /* the sender's own move first: the line starts after it */
    struct ref_turn *t;
    if(!cmds->ncand) {
      free(from);
      return ref_refuse(m, g, seat, cmds->cmd[first].line, "conditional-your-turn", "", NULL);
    }
    if(!(t = malloc(sizeof(*t))) || ref_read_turn(g, cmds, t)) {
      free(t);
      free(from);
      return -1;
    }
    /* no move at all beside the line (prose): refused as a line sent on
     * the sender's own turn */
    if(!t->found && !t->conflict && t->err.code != REF_EILLEGAL &&
       t->err.code != REF_EAMBIGUOUS) {
      free(from);
      /* the nearest legal moves help a move mistyped beside the line */
      rc = ref_refuse(m, g, seat, cmds->cmd[first].line, "conditional-your-turn", "", &t->err);
      free(t);
      return rc;
    }
    /* a move that is not legal is refused by the move that follows:
     * nothing is kept then */
    if(!t->found || s.phase != REF_PHASE_MOVE || ops->apply(from, &t->mv) != REF_OK) {
      free(t);
      free(from);
      return 0;
    }
    free(t);
    with_move = 1;
    base = g->moves + 1;
    ops->status(from, &s);
    if(s.phase == REF_PHASE_OVER || s.turn == seat) {
      free(from);
      return ref_refuse(m, g, seat, cmds->cmd[first].line, "conditional-after-end", "", NULL);
    }
  }
  if(!(lines = calloc((size_t)cmds->ncmd, sizeof(*lines)))) {
    free(from);
    return -1;
  }
  for(i = 0; i < cmds->ncmd && !rc; i++) {
    if(cmds->cmd[i].kind != REF_CMD_IF)
      continue;
    rc = check_line(m, g, seat, from, &cmds->cmd[i], &lines[n]);
    n++;
  }
  free(from);
  if(rc) /* refused (1) or failed (-1): nothing kept */
    goto out;
  /* branches that answer one expected move two ways: refused whole */
  if(store_conditional_list(m->svc->st, &kept, &nkept, g->row.id, seat) != STORE_OK) {
    rc = -1;
    goto out;
  }
  for(i = 0; i < n && !rc; i++) {
    for(j = 0; j < i && !rc; j++) {
      if(conflict(lines[i].canon, lines[i].n, lines[j].canon, lines[j].n, at, sizeof(at)))
        rc = 1;
      else if(same(lines[i].canon, lines[i].n, lines[j].canon, lines[j].n))
        lines[i].dup = 1;
    }
    for(k = 0; k < nkept && !rc; k++) {
      char old[COND_PLIES_MAX][REF_NOTATION_MAX];
      int nold;
      if(kept[k].ply != base)
        continue;
      nold = split_plies(kept[k].plies, old, COND_PLIES_MAX);
      if(conflict(lines[i].canon, lines[i].n, old, nold, at, sizeof(at)))
        rc = 1;
      else if(same(lines[i].canon, lines[i].n, old, nold))
        lines[i].dup = 1;
    }
    if(rc)
      rc = ref_refuse(m, g, seat, lines[i].line, "conditional-conflict", at, NULL) ? -1 : 1;
  }
  if(rc)
    goto out;
  /* what no longer fits the game (kept for a move that came and went)
   * goes; then the new branches */
  for(k = 0; k < nkept; k++)
    if(kept[k].ply != base && store_conditional_delete(m->svc->st, kept[k].id) != STORE_OK) {
      rc = -1;
      goto out;
    }
  for(i = 0; i < n; i++) {
    size_t used = 0;
    if(lines[i].dup) /* sent again: kept once */
      continue;
    memset(&row, 0, sizeof(row));
    row.game = g->row.id;
    row.seat = seat;
    row.ply = base;
    row.created = ref_now(m->svc);
    snprintf(row.line, sizeof(row.line), "%s", lines[i].line);
    for(j = 0; j < lines[i].n; j++)
      used += (size_t)snprintf(row.plies + used, sizeof(row.plies) - used, "%s%s", j ? " " : "",
                               lines[i].canon[j]);
    if(store_conditional_add(m->svc->st, NULL, &row) != STORE_OK) {
      rc = -1;
      goto out;
    }
  }
  ref_log_info("game %lld: %s prepared %d line%s", (long long)g->row.id,
               g->desc->seat_names[seat], n, n == 1 ? "" : "s");
  /* without a move, the sender hears they are kept; with one, the move's
   * mail lists them */
  if(!with_move)
    rc = tell_list(m, g, seat);
out:
  free(kept);
  free(lines);
  return rc < 0 ? -1 : 0;
}

static int do_conditionals(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                           const struct ref_cmd *c)
{
  int cube = (g->desc->flags & REF_GAME_CUBE) != 0;
  if(((g->desc->flags & REF_GAME_DICE) && !cube) || g->nseats != 2)
    return ref_refuse(m, g, seat, c->line, "conditional-dice", g->desc->title, NULL);
  if(c->arg[0] && strcasecmp(c->arg, "clear"))
    return ref_refuse(m, g, seat, c->line, "conditional-unreadable", "", NULL);
  if(c->arg[0]) {
    if(store_conditionals_clear(m->svc->st, g->row.id, seat) ||
       (cube && ref_cube_answer_set(m->svc, g->row.id, seat, REF_CUBE_ANSWER_NONE)))
      return -1;
    ref_log_info("game %lld: %s cleared the prepared lines", (long long)g->row.id,
                 g->desc->seat_names[seat]);
  }
  return tell_list(m, g, seat);
}

int ref_conditional_answer(struct ref_service *svc, struct ref_game_ctx *g, int owner,
                           const char *played, int64_t ply, char *reply, size_t cap,
                           char *line, size_t linecap, char *dropped, size_t dcap)
{
  struct store_conditional *rows = NULL;
  size_t n = 0, i;
  int fired = 0, rc = 0;

  if(store_conditional_list(svc->st, &rows, &n, g->row.id, owner) != STORE_OK)
    return -1;
  for(i = 0; i < n && !rc; i++) {
    char p[COND_PLIES_MAX][REF_NOTATION_MAX], rest[sizeof(rows[i].plies)];
    int np = split_plies(rows[i].plies, p, COND_PLIES_MAX), j;
    size_t used = 0;
    /* stale (kept for another move) or not the move that came: discarded */
    if(rows[i].ply != ply || np < 2 || strcmp(p[0], played) ||
       (fired && strcmp(p[1], reply))) {
      size_t len = strlen(dropped);
      /* the owner hears of a line that waited for this move */
      if(rows[i].ply == ply && len < dcap)
        snprintf(dropped + len, dcap - len, "%s    %s", len ? "\n" : "", rows[i].line);
      if(store_conditional_delete(svc->st, rows[i].id) != STORE_OK)
        rc = -1;
      continue;
    }
    if(!fired) {
      snprintf(reply, cap, "%s", p[1]);
      snprintf(line, linecap, "%s", rows[i].line);
      fired = 1;
    }
    rest[0] = '\0';
    for(j = 2; j < np; j++)
      used += (size_t)snprintf(rest + used, sizeof(rest) - used, "%s%s", j > 2 ? " " : "", p[j]);
    /* played out, or on to the next expected move */
    if(np <= 2 ? store_conditional_delete(svc->st, rows[i].id) != STORE_OK
               : store_conditional_update(svc->st, rows[i].id, ply + 2, rest) != STORE_OK)
      rc = -1;
  }
  free(rows);
  return rc ? -1 : fired;
}

/* ---- the handlers (commands.h's table) ---- */

/* Every "if ... then ..." of the mail at once, at its first "if", before
 * the move it may follow (checked from the position after it, kept before
 * it is played, so that the move's answer meets them). */
enum ref_rc ref_do_if(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  enum ref_rc rc;
  (void)c;
  if(r->prepared)
    return REF_RC_OK;
  rc = ref_rc_of(r->m, do_if(r->m, r->g, r->seat, r->cmds));
  r->prepared = rc == REF_RC_OK;
  return rc;
}

enum ref_rc ref_do_conditionals(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_conditionals(r->m, r->g, r->seat, c));
}
