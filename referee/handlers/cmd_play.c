/*
 * cmd_play.c: the commands that play (rules-spec.md §1): a move (one turn
 * per mail, §1.1), draws (offer, accept, decline, claim), the cube and the
 * roll (§4.3, §1.6), resignations (BG-5's offers in cube games). The rules
 * judge each; after a change, turns.c rolls and plays forced turns, and
 * the result or the next turn is mailed. A move may call for the other
 * player's prepared answer (cmd_conditional.c says which), and
 * a double for their standing take or drop: played here, in the same
 * mail, each after a "conditional" journal entry. Layer 6, "handlers"
 * (docs/architecture.md).
 */
#include "handlers_int.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Finishes the bookkeeping of a rules change: save, and if the game ended,
 * journal the result and tell everyone. */
static int after_change_ex(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                           const char *mover_tmpl, const char *other_tmpl,
                           const struct tpl_var *extra, size_t per_seat);

static int after_change(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const char *mover_tmpl, const char *other_tmpl)
{
  return after_change_ex(m, g, seat, mover_tmpl, other_tmpl, NULL, 0);
}

/* The same, with extras for the players' mails: `per_seat` of them each,
 * seat i's from extra[i * per_seat], to seat i alone (each
 * owner hears of their own prepared lines). */
static int after_change_ex(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                           const char *mover_tmpl, const char *other_tmpl,
                           const struct tpl_var *extra, size_t per_seat)
{
  struct ref_status s;
  size_t i;

  if(ref_game_advance(m, g, &m->events) || ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  m->observed = 1;
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER) {
    /* Prepared lines end with the game */
    if(ref_journal(m->svc, g, -1, "end", g->row.result, NULL) ||
       store_conditionals_clear(m->svc->st, g->row.id, -1))
      return -1;
    for(i = 0; i < g->nseats && (g->desc->flags & REF_GAME_CUBE); i++)
      if(ref_cube_answer_set(m->svc, g->row.id, (int)i, REF_CUBE_ANSWER_NONE))
        return -1;
    ref_log_info("game %lld: over, %s", (long long)g->row.id, g->row.result);
    return ref_tell_result(m, g, "game-over.txt", NULL, 0) || ref_compete_game_over(m, g);
  }
  /* A turn mailed in parts (Backgammon Chess: the play, then the chess
   * move): the mover still holds the turn and nothing was rolled or played
   * for anyone else, so the opponent has nothing new to hear yet. */
  if(s.turn == seat && s.phase == REF_PHASE_MOVE && !(m->events.s && m->events.s[0]) &&
     !g->reply[0])
    other_tmpl = NULL;
  for(i = 0; i < g->nseats; i++) {
    const char *t = (int)i == seat ? mover_tmpl : other_tmpl;
    /* "your move" only to the player to act: after a pass or a play made
     * for them (rules-spec §1.5) the turn is back with the mover */
    if(t && s.turn != (int)i && !strcmp(t, "your-move.txt"))
      t = "opponent-moved.txt";
    if(t && ref_tell_seat(m, g, (int)i, t, extra ? &extra[i * per_seat] : NULL,
                          extra ? per_seat : 0))
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
    return ref_refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "illegal", err.detail,
                      &err);
  ref_action_text(text, sizeof(text), a, arg);
  if(ref_journal(m->svc, g, seat, "action", text, NULL))
    return -1;
  return after_change(m, g, seat, NULL, NULL);
}

static int draw(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                const struct ref_cmd *c)
{
  int offer = (int)g->row.draw_offer_seat;
  if(!(g->desc->flags & REF_GAME_DRAWS))
    return ref_refuse(m, g, seat, c->line, "no-draws", g->desc->title, NULL);
  switch(c->kind) {
  case REF_CMD_DRAW_OFFER:
    if(offer == seat)
      return ref_refuse(m, g, seat, c->line, "draw-already-offered", "", NULL);
    if(offer >= 0) /* both offered: that is agreement */
      break;
    g->row.draw_offer_seat = seat;
    if(ref_journal(m->svc, g, seat, "offer", "draw offer", NULL) || ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_seat(m, g, 1 - seat, "draw-offered.txt", NULL, 0) ||
           ref_tell_seat(m, g, seat, "draw-offer-sent.txt", NULL, 0);
  case REF_CMD_DRAW_DECLINE:
    if(offer < 0 || offer == seat)
      return ref_refuse(m, g, seat, c->line, "no-draw-offer", "", NULL);
    g->row.draw_offer_seat = -1;
    if(ref_journal(m->svc, g, seat, "offer", "draw declined", NULL) ||
       ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_all(m, g, "draw-declined.txt", NULL, 0);
  case REF_CMD_DRAW_ACCEPT:
    if(offer < 0 || offer == seat)
      return ref_refuse(m, g, seat, c->line, "no-draw-offer", "", NULL);
    break;
  case REF_CMD_DRAW_CLAIM:
    return do_action(m, g, seat, c, REF_ACT_DRAW_CLAIM, 0);
  default:
    return -1;
  }
  g->row.draw_offer_seat = -1;
  return do_action(m, g, seat, c, REF_ACT_DRAW_AGREED, 0);
}

/* FIDE 9.1.2.2: a move declines a standing draw offer of the opponent.
 * Journaled (the record shows the offer ended) and said in the mails of
 * the move ({events}), so the offerer is told the offer lapsed rather
 * than left waiting for an answer. */
static int draw_declined_by_move(struct ref_msg_ctx *m, struct ref_game_ctx *g, int mover)
{
  int offerer = (int)g->row.draw_offer_seat;
  char line[256];
  if(offerer < 0 || offerer == mover)
    return 0;
  g->row.draw_offer_seat = -1;
  if(ref_journal(m->svc, g, mover, "offer", "draw declined", NULL))
    return -1;
  {
    struct tpl_var v[2] = {{"seat", g->desc->seat_names[offerer]},
                           {"player", g->desc->seat_names[mover]}};
    tpl_line(line, sizeof(line), m->svc->cfg.templates_dir, "phrases.txt",
             "draw-declined-by-move", v, 2);
    if(base_buf_printf(&m->events, "%s\n", line))
      return -1;
  }
  return 0;
}

/* The prepared lines a move calls for, played at once through
 * the same steps as a mailed move (the rules apply it, it is journaled,
 * a draw offer it answers lapses), each move journaled right after a
 * "conditional" entry holding the line as its owner wrote it (takeback
 * refuses a move so preceded). An answer may meet a line of the other
 * player's in turn, so the loop goes on while lines answer; `lines[s]`
 * collects the lines of seat s that played, `dropped[s]` those the move
 * did not match, `g->reply` the moves made. */
static int play_prepared(struct ref_msg_ctx *m, struct ref_game_ctx *g, int mover,
                         const char *canon, char lines[2][600], char dropped[2][600])
{
  const struct ref_game_ops *ops = g->desc->ops;
  char expected[REF_NOTATION_MAX], reply[REF_NOTATION_MAX], line[256];
  int round;

  if((g->desc->flags & REF_GAME_DICE) || g->nseats != 2)
    return 0;
  snprintf(expected, sizeof(expected), "%s", canon);
  for(round = 0; round < 64; round++) {
    int owner = 1 - mover, rc;
    struct ref_status s;
    struct ref_move mv;
    struct ref_err err;
    char rcanon[REF_NOTATION_MAX], label[160];
    size_t len;
    ops->status(g->state, &s);
    if(s.phase != REF_PHASE_MOVE || s.turn != owner)
      return 0;
    rc = ref_conditional_answer(m->svc, g, owner, expected, g->moves - 1, reply, sizeof(reply),
                                line, sizeof(line), dropped[owner], 600);
    if(rc <= 0)
      return rc;
    memset(&err, 0, sizeof(err));
    /* checked when sent on this very position; a rules change since
     * would show here, and the line is then dropped, not forced */
    if(ops->parse(g->state, reply, &mv, &err) != REF_OK) {
      ref_log_warn("game %lld: a prepared %s no longer reads (%s); dropped",
                   (long long)g->row.id, reply, err.reason);
      return store_conditionals_clear(m->svc->st, g->row.id, owner);
    }
    ops->format(g->state, &mv, REF_NOTATION_CANONICAL, rcanon, sizeof(rcanon));
    ref_move_label(g, rcanon, label, sizeof(label));
    ops->apply(g->state, &mv);
    snprintf(g->last_move, sizeof(g->last_move), "%s", label);
    if(draw_declined_by_move(m, g, owner) ||
       ref_journal(m->svc, g, owner, "conditional", line, NULL) ||
       ref_journal(m->svc, g, owner, "move", rcanon, NULL))
      return -1;
    ref_log_info("game %lld: %s %s (prepared)", (long long)g->row.id,
                 g->desc->seat_names[owner], label);
    len = strlen(g->reply);
    snprintf(g->reply + len, sizeof(g->reply) - len, "%s%s", len ? ", " : "", label);
    len = strlen(lines[owner]);
    snprintf(lines[owner] + len, 600 - len, "%s    %s", len ? "\n" : "", line);
    snprintf(expected, sizeof(expected), "%s", rcanon);
    mover = owner;
  }
  return 0;
}

/* The move of this mail: its candidate lines must read as one legal turn
 * (rules-spec.md §1.1: one turn per email; turnread.c joins a play written
 * over several lines). */
int ref_do_move(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                const struct ref_cmds *cmds, int notify)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_turn *t;
  struct ref_move found;
  struct ref_status s;
  char canon[REF_NOTATION_MAX], numbered[160];
  int rc, written_x;

  ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER)
    return ref_refuse(m, g, seat, cmds->cand[0], "game-over", "", NULL);
  if(s.turn != seat)
    return ref_refuse(m, g, seat, cmds->cand[0], "not-your-turn", g->desc->seat_names[s.turn],
                      NULL);
  if(!(t = malloc(sizeof(*t))))
    return -1;
  if(ref_read_turn(g, cmds, t)) {
    free(t);
    return -1;
  }
  if(!t->found) {
    rc = t->conflict ? ref_refuse(m, g, seat, t->input, "one-move-per-mail", "", NULL)
                     : ref_refuse(m, g, seat, t->input,
                                  t->err.reason[0] ? t->err.reason : "unreadable", t->err.detail,
                                  &t->err);
    free(t);
    return rc;
  }
  found = t->mv;
  written_x = strpbrk(t->input, "xX") && !strchr(t->input, ':');
  free(t);

  ops->format(g->state, &found, REF_NOTATION_CANONICAL, canon, sizeof(canon));
  ref_move_label(g, canon, numbered, sizeof(numbered));
  ops->apply(g->state, &found);
  snprintf(g->last_move, sizeof(g->last_move), "%s", numbered);
  snprintf(g->played, sizeof(g->played), "%s", numbered);
  /* this move's mails show the capture sign as written: "exd5" in a
   * Betza-notation game (rules-spec §5.1 reads ':' and 'x') is "e4xd5"
   * there, not "e4:d5"; the journal and last_move keep the canonical form
   * a replay gives */
  if(written_x) {
    char *colon;
    for(colon = strchr(g->played, ':'); colon; colon = strchr(colon + 1, ':'))
      *colon = 'x';
  }
  /* A move declines the opponent's standing takeback request,
   * as it declines a draw offer (journaled before the move) */
  if(ref_takeback_moved(m, g, seat) || draw_declined_by_move(m, g, seat) ||
     ref_journal(m->svc, g, seat, "move", canon, NULL))
    return -1;
  ref_log_info("game %lld: %s %s", (long long)g->row.id, g->desc->seat_names[seat], numbered);
  snprintf(g->played_canon, sizeof(g->played_canon), "%s", canon);
  /* a draw claimed with the move (notify 0) is judged on this position:
   * no prepared answer comes between; if the claim fails, the caller
   * mails the move through ref_move_answered */
  if(!notify)
    return after_change(m, g, seat, NULL, NULL);
  return ref_move_answered(m, g, seat);
}

int ref_move_answered(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  char lines[2][600] = {"", ""}, dropped[2][600] = {"", ""};
  struct tpl_var extra[4] = {{"lines", lines[0]},
                             {"dropped", dropped[0]},
                             {"lines", lines[1]},
                             {"dropped", dropped[1]}};
  if(play_prepared(m, g, seat, g->played_canon, lines, dropped))
    return -1;
  /* the owner of a line that played hears which; the mover sees the
   * answer as a move ({reply}), never the line */
  return after_change_ex(m, g, seat, "move-accepted.txt",
                         lines[1 - seat][0] ? "conditional-played.txt" : "your-move.txt",
                         extra, 2);
}

/* The doubled player's standing answer ("if double then take"),
 * given at once in the doubler's mail, after a "conditional" entry; used
 * up. The doubler sees a take or a drop as if mailed. */
static int answer_double(struct ref_msg_ctx *m, struct ref_game_ctx *g, int owner, int answer)
{
  enum ref_action a = answer == REF_CUBE_ANSWER_TAKE ? REF_ACT_TAKE : REF_ACT_DROP;
  struct ref_err err;
  char text[64], line[64], lines[2][80] = {"", ""};
  struct tpl_var extra[2] = {{"lines", lines[0]}, {"lines", lines[1]}};
  if(ref_cube_answer_set(m->svc, g->row.id, owner, REF_CUBE_ANSWER_NONE))
    return -1;
  memset(&err, 0, sizeof(err));
  snprintf(line, sizeof(line), "if double then %s", a == REF_ACT_TAKE ? "take" : "drop");
  if(g->desc->ops->act(g->state, owner, a, 0, &err) != REF_OK) {
    /* not answerable after all (a rules change): asked as usual */
    ref_log_warn("game %lld: the standing '%s' does not apply (%s)", (long long)g->row.id, line,
                 err.reason);
    if(ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_seat(m, g, owner, "double-offered.txt", NULL, 0) ||
           ref_tell_seat(m, g, 1 - owner, "double-sent.txt", NULL, 0);
  }
  ref_action_text(text, sizeof(text), a, 0);
  if(ref_journal(m->svc, g, owner, "conditional", line, NULL) ||
     ref_journal(m->svc, g, owner, "action", text, NULL))
    return -1;
  ref_log_info("game %lld: %s: %s (standing answer)", (long long)g->row.id,
               g->desc->seat_names[owner], text);
  snprintf(lines[owner], sizeof(lines[owner]), "    %s", line);
  return after_change_ex(m, g, owner, "cube-taken.txt", "cube-taken.txt", extra, 1);
}

/* Cube decisions and the roll (rules-spec.md §4.3, §1.6). The rules
 * judge whether each is allowed now; their reason key words the refusal. */
static int cube(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                const struct ref_cmd *c, enum ref_cmd_kind kind, int has_move)
{
  struct ref_status s;
  struct ref_err err;
  enum ref_action a;
  char text[64];
  int beavered;

  if(!(g->desc->flags & REF_GAME_DICE))
    return ref_refuse(m, g, seat, c->line, "not-available", ref_cmd_name(kind), NULL);
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
    return has_move ? 0 : ref_tell_seat(m, g, seat, "roll-noted.txt", NULL, 0);
  }
  if(!(g->desc->flags & REF_GAME_CUBE))
    return ref_refuse(m, g, seat, c->line, "not-available", ref_cmd_name(kind), NULL);
  a = kind == REF_CMD_DOUBLE   ? REF_ACT_DOUBLE
      : kind == REF_CMD_TAKE   ? REF_ACT_TAKE
      : kind == REF_CMD_BEAVER ? REF_ACT_BEAVER
                               : REF_ACT_DROP;
  memset(&err, 0, sizeof(err));
  beavered = s.beavered; /* BG-9: this take or drop answers a beaver */
  if(g->desc->ops->act(g->state, seat, a, 0, &err) != REF_OK)
    return ref_refuse(m, g, seat, c->line, err.reason[0] ? err.reason : "illegal", err.detail,
                      &err);
  ref_action_text(text, sizeof(text), a, 0);
  if(ref_journal(m->svc, g, seat, "action", text, NULL))
    return -1;
  if(a == REF_ACT_DOUBLE) {
    int answer = ref_cube_answer_get(m->svc, g->row.id, 1 - seat);
    if(answer < 0)
      return -1;
    if(answer != REF_CUBE_ANSWER_NONE)
      return answer_double(m, g, 1 - seat, answer);
    if(ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_seat(m, g, 1 - seat, "double-offered.txt", NULL, 0) ||
           ref_tell_seat(m, g, seat, "double-sent.txt", NULL, 0);
  }
  if(a == REF_ACT_BEAVER) {
    /* BG-9: the doubler answers the beaver; no standing answer is for it
     * (those answer a double) */
    struct tpl_var cube_to[2];
    char value[16], stake[16];
    g->desc->ops->status(g->state, &s);
    snprintf(value, sizeof(value), "%d", 2 * s.cube);
    snprintf(stake, sizeof(stake), "%d", s.cube);
    cube_to[0].name = "cube";
    cube_to[0].value = value;
    cube_to[1].name = "stake";
    cube_to[1].value = stake;
    if(ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_seat(m, g, 1 - seat, "beaver-offered.txt", cube_to, 2) ||
           ref_tell_seat(m, g, seat, "beaver-sent.txt", cube_to, 2);
  }
  {
    /* answered by hand: no standing answer played, so cube-taken.txt's
     * {lines} is empty for both (else the placeholder shows as written) */
    struct tpl_var none[2] = {{"lines", ""}, {"lines", ""}};
    const char *tmpl = beavered ? "beaver-taken.txt" : "cube-taken.txt";
    return after_change_ex(m, g, seat, tmpl, tmpl, none, 1);
  }
}

/* BG-5: in a cube game "resign [gammon|backgammon]" offers to lose that
 * much; the opponent accepts (the game ends at level x cube) or rejects
 * (play continues). The standing offer lives in the store's
 * resign_offers; offers and answers are journaled for the record. 1 with
 * the offer, 0 none, -1 on a store failure. */
static int pending_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int *seat, int *level)
{
  bool found = false;
  if(store_resign_get(m->svc->st, &found, seat, level, g->row.id) != STORE_OK)
    return -1;
  return found && *level >= 1 && *level <= 3 ? 1 : 0;
}

/* seat < 0: the offer is answered, none stands. */
static int set_resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, int level)
{
  int rc = seat < 0 ? store_resign_clear(m->svc->st, g->row.id)
                    : store_resign_set(m->svc->st, g->row.id, seat, level);
  return rc == STORE_OK ? 0 : -1;
}

static int resign(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                  const struct ref_cmd *c, int level)
{
  static const char *const names[] = {"", "a single game", "a gammon", "a backgammon"};
  struct tpl_var extra[3];
  struct ref_status s;
  char text[32], points[32], cube[16];
  if(!(g->desc->flags & REF_GAME_CUBE))
    return do_action(m, g, seat, c, REF_ACT_RESIGN, level);
  /* BG-5: the offer names what it costs, level x cube, in points: the
   * player weighs points, not a multiplier left to work out. */
  g->desc->ops->status(g->state, &s);
  if(s.cube < 1)
    s.cube = 1;
  snprintf(points, sizeof(points), "%d point%s", level * s.cube, level * s.cube == 1 ? "" : "s");
  snprintf(cube, sizeof(cube), "%d", s.cube);
  snprintf(text, sizeof(text), "resign offer %d", level);
  if(set_resign(m, g, seat, level) || ref_journal(m->svc, g, seat, "offer", text, NULL))
    return -1;
  m->changed = 1;
  extra[0].name = "level";
  extra[0].value = names[level];
  extra[1].name = "points";
  extra[1].value = points;
  extra[2].name = "cube";
  extra[2].value = cube;
  return ref_tell_seat(m, g, 1 - seat, "resign-offered.txt", extra, 3) ||
         ref_tell_seat(m, g, seat, "resign-offer-sent.txt", extra, 3);
}

/* The opponent's answer to a standing resignation offer. */
static int resign_answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmd *c, int accept)
{
  int offerer, level, pending = pending_resign(m, g, &offerer, &level);
  if(pending < 0)
    return -1;
  if(!pending || offerer == seat)
    return ref_refuse(m, g, seat, c->line, "no-resign-offer", "", NULL);
  if(set_resign(m, g, -1, 0))
    return -1;
  if(accept)
    return do_action(m, g, offerer, c, REF_ACT_RESIGN, level);
  if(ref_journal(m->svc, g, seat, "offer", "resign rejected", NULL))
    return -1;
  m->changed = 1;
  return ref_tell_all(m, g, "resign-rejected.txt", NULL, 0);
}

/* ---- a mail's move lines, and the handlers (commands.h's table) ---- */

int ref_mail_move(struct ref_game_ctx *g, int seat, const struct ref_cmds *cmds,
                  enum ref_move_test want)
{
  struct ref_turn *t;
  int i, found;
  if(want == REF_MOVE_PLAYABLE) {
    struct ref_status s;
    if(!g->started || g->row.phase != STORE_GAME_ACTIVE)
      return 0;
    g->desc->ops->status(g->state, &s);
    if(s.phase != REF_PHASE_MOVE || s.turn != seat)
      return 0;
  }
  for(i = 0; i < cmds->ncand; i++) {
    struct ref_err err;
    struct ref_move mv;
    int rc;
    memset(&err, 0, sizeof(err));
    rc = g->desc->ops->parse(g->state, cmds->cand[i], &mv, &err);
    if(rc == REF_OK || (want == REF_MOVE_READS && (rc == REF_EILLEGAL || rc == REF_EAMBIGUOUS)))
      return 1;
  }
  if(!(t = malloc(sizeof(*t))))
    return 1;
  found = ref_read_turn(g, cmds, t) ? 1 : t->found || (want == REF_MOVE_READS && t->conflict);
  free(t);
  return found;
}

int ref_move_then_roll(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmds *cmds)
{
  int before = ref_autoroll_get(m->svc, g->row.id, seat);
  if(before < 0 || ref_autoroll_set(m->svc, g->row.id, seat, 1))
    return -1;
  switch(ref_rc_of(m, ref_do_move(m, g, seat, cmds, 1))) {
  case REF_RC_FAIL: return -1;
  case REF_RC_REFUSED: return before ? 0 : ref_autoroll_set(m->svc, g->row.id, seat, 0);
  default: return 0;
  }
}

/* A claim goes with the move that makes it good (CH-2): the move first,
 * its mails only if the claim then fails (one result mail, not four, when
 * it succeeds); the mail ends with the claim. FIDE 9.1.2.1: a draw is
 * offered after making a move, so a move in the same mail is played first
 * and the offer shows the board after it. */
enum ref_rc ref_do_draw(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  struct ref_msg_ctx *m = r->m;
  struct ref_game_ctx *g = r->g;
  const struct ref_cmds *cmds = r->cmds;
  int seat = r->seat, claim = c->kind == REF_CMD_DRAW_CLAIM;
  enum ref_rc rc;

  if(cmds->ncand && !r->moved &&
     (claim || (c->kind == REF_CMD_DRAW_OFFER && g->started &&
                ref_mail_move(g, seat, cmds, REF_MOVE_READS)))) {
    rc = ref_rc_of(m, ref_do_move(m, g, seat, cmds, !claim));
    r->moved = 1;
    if(rc != REF_RC_OK)
      return rc;
    if(g->row.phase != STORE_GAME_ACTIVE)
      return REF_RC_STOP;
    if(claim) {
      /* the claim failed: the move stands, and meets the opponent's
       * prepared answers as any move */
      if(draw(m, g, seat, c) ||
         (g->row.phase == STORE_GAME_ACTIVE && ref_move_answered(m, g, seat)))
        return REF_RC_FAIL;
      return REF_RC_STOP;
    }
  }
  return ref_rc_of(m, draw(m, g, seat, c));
}

/* "roll" with a play, not at this player's cube decision: the standing
 * answer goes with the play (ref_move_then_roll, once the commands ran). */
static int roll_goes_with_play(struct ref_game_ctx *g, int seat, const struct ref_cmds *cmds)
{
  struct ref_status st;
  if(!g->started || !cmds->ncand)
    return 0;
  g->desc->ops->status(g->state, &st);
  return !(st.phase == REF_PHASE_CUBE && st.turn == seat) &&
         ref_mail_move(g, seat, cmds, REF_MOVE_READS);
}

enum ref_rc ref_do_cube(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  if(c->kind == REF_CMD_ROLL && !r->moved && roll_goes_with_play(r->g, r->seat, r->cmds)) {
    r->roll_with_play = 1;
    return REF_RC_OK;
  }
  return ref_rc_of(r->m, cube(r->m, r->g, r->seat, c, c->kind, r->cmds->ncand > 0));
}

/* resign match: a backgammon match at once (cmd_compete.c); BG-5: resign
 * gammon / backgammon offer more. */
enum ref_rc ref_do_resign(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  if(!strcasecmp(c->arg, "match"))
    return ref_rc_of(r->m, ref_do_resign_match(r->m, r->g, r->seat, c));
  return ref_rc_of(r->m, resign(r->m, r->g, r->seat, c,
                                !strcasecmp(c->arg, "backgammon") ? 3
                                : !strcasecmp(c->arg, "gammon")   ? 2
                                                                  : 1));
}

/* accept, decline: the answer to what waits for the sender. A double
 * (take, drop); in play, the opponent's takeback request when nothing
 * else waits (a resignation offer keeps the plain words), else a
 * resignation offer; before the start, the invitation. */
enum ref_rc ref_do_answer(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  struct ref_msg_ctx *m = r->m;
  struct ref_game_ctx *g = r->g;
  int seat = r->seat, accept = c->kind == REF_CMD_ACCEPT, waiting, offerer, level;

  if(g->started) {
    struct ref_status st;
    g->desc->ops->status(g->state, &st);
    if(st.phase == REF_PHASE_CUBE_REPLY)
      return ref_rc_of(m, cube(m, g, seat, c, accept ? REF_CMD_TAKE : REF_CMD_DROP,
                               r->cmds->ncand > 0));
  }
  if(g->row.phase != STORE_GAME_ACTIVE)
    return ref_rc_of(m, accept ? ref_do_accept(m, g, seat, c) : ref_do_decline(m, g, seat, c));
  if((waiting = ref_takeback_waiting(m, g, seat)) < 0)
    return REF_RC_FAIL;
  if(waiting && !pending_resign(m, g, &offerer, &level))
    return ref_do_takeback_answer(r, c);
  return ref_rc_of(m, resign_answer(m, g, seat, c, accept));
}
