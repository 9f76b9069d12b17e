/*
 * cmd_takeback.c: takebacks by agreement. Layer 6, "handlers"
 * (docs/architecture.md).
 *
 * `takeback` asks the opponent to undo the sender's own last move (a
 * misclick in a phone client); the opponent answers `takeback accept` or
 * `takeback decline` (plain `accept` / `decline` when nothing else waits
 * for an answer: dispatch.c), or declines by making a move, as a move
 * declines a standing draw offer. One request at a time, kept in the
 * store's takeback_requests (the asking seat and the move's seq; no row
 * when none), as resignation offers are in resign_offers.
 *
 * History is never rewritten: the request, the answer and the undo are
 * journal entries (`takeback` "ask SEQ LABEL", `takeback` "accept SEQ" or
 * "decline SEQ", `undo` "move SEQ LABEL"; a request the game went past
 * without an answer, after a roll and a forced play, is closed by the
 * referee's `takeback` "lapse SEQ"), and game.c's one replay rule
 * (ref_journal_undone) skips the move an undo names in every replay. The
 * undo is allowed only while nothing with a rules effect follows the move,
 * which is what makes that rule exact:
 *   - the last move must be the sender's and the opponent must not have
 *     answered it (a move or an action: undoing would take two moves);
 *   - in games with dice, no roll may follow it: the referee rolls for the
 *     opponent as soon as a play is made (unless the opponent may double
 *     first), and that roll depended on the move;
 *   - a move a conditional line played (its entry is immediately preceded
 *     by a `conditional` bookkeeping entry) is not taken back: the
 *     opponent prepared it, the sender did not misclick it;
 *   - not in the middle of a turn mailed in parts (Backgammon Chess): the
 *     sender still holds the turn.
 * On the agreed undo, in the same transaction: every conditional line of
 * the game is discarded (they were validated against the position being
 * undone), a standing draw offer goes with the move it was made with (an
 * offer is made with a move, FIDE 9.1.2.1; the opponent's offer made to
 * that move answers a position that no longer stands), the game is
 * replayed from its start, and the mover's clock starts again (dispatch.c
 * calls ref_clock_sync: the seat to move changed).
 */
#include "handlers_int.h"

#include "log.h"
#include "templates.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The standing request (takeback_requests): 1 with its seat and the
 * move's seq, 0 none, -1 on a store failure. */
static int pending(struct ref_service *svc, const struct ref_game_ctx *g, int *seat,
                   int64_t *seq)
{
  bool found = false;
  if(store_takeback_get(svc->st, &found, seat, seq, g->row.id) != STORE_OK)
    return -1;
  return found ? 1 : 0;
}

/* seat < 0: no request stands any more. */
static int set_pending(struct ref_service *svc, const struct ref_game_ctx *g, int seat,
                       int64_t seq)
{
  int rc = seat < 0 ? store_takeback_clear(svc->st, g->row.id)
                    : store_takeback_set(svc->st, g->row.id, seat, seq);
  return rc == STORE_OK ? 0 : -1;
}

int ref_takeback_waiting(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  int asker = -1;
  int64_t seq = 0;
  int rc = pending(m->svc, g, &asker, &seq);
  return rc < 0 ? -1 : rc == 1 && asker != seat;
}

static int effect(const struct store_entry *e)
{
  return !strcmp(e->kind, "start") || !strcmp(e->kind, "move") || !strcmp(e->kind, "action") ||
         !strcmp(e->kind, "roll");
}

/* Why `seat`'s last move may not be taken back now: a reason key
 * (reasons.txt) with its detail, or NULL when it may (*seq: its entry).
 * *failed on a store failure. */
static const char *refusal(struct ref_service *svc, struct ref_game_ctx *g, int seat,
                           int64_t *seq, char *detail, size_t cap, int *failed)
{
  struct store_entry *e = NULL;
  unsigned char *undone = NULL;
  struct ref_status s;
  const char *why = NULL;
  char err[256];
  size_t n = 0, j, k;

  *failed = 0;
  detail[0] = '\0';
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER)
    return "game-over";
  if(store_journal_load(svc->st, &e, &n, g->row.id) != STORE_OK || !(undone = malloc(n ? n : 1)) ||
     ref_journal_undone(e, n, undone, err, sizeof(err))) {
    *failed = 1;
    goto out;
  }
  /* the latest entry with a rules effect that still stands */
  for(j = n; j-- > 0;)
    if(!undone[j] && effect(&e[j]))
      break;
  if(j == (size_t)-1) {
    why = "takeback-no-move";
    goto out;
  }
  /* and the latest move up to it that stands */
  for(k = j + 1; k-- > 0;)
    if(!undone[k] && !strcmp(e[k].kind, "move"))
      break;
  if(k == (size_t)-1) {
    why = "takeback-no-move";
    goto out;
  }
  if(e[k].seat != seat) {
    /* the opponent moved last: does the sender have a move at all? */
    size_t i;
    for(i = 0; i < k; i++)
      if(!undone[i] && !strcmp(e[i].kind, "move") && e[i].seat == seat)
        break;
    why = i < k ? "takeback-answered" : "takeback-no-move";
    /* the opponent's answer, as its mail showed it ("1... e5"): the
     * detail names their move, never as if it were the sender's */
    snprintf(detail, cap, "%s", g->last_move[0] ? g->last_move : e[k].text);
    goto out;
  }
  if(j != k) {
    /* after the sender's move: a roll (dice games), or an action */
    if(!strcmp(e[j].kind, "roll"))
      why = "takeback-after-roll";
    else if(e[j].seat != seat) {
      why = "takeback-answered";
      snprintf(detail, cap, "%s", e[j].text);
    }
    else
      why = "takeback-no-move";
    goto out;
  }
  if(s.turn == seat) {
    why = "takeback-mid-turn";
    goto out;
  }
  if(k > 0 && !strcmp(e[k - 1].kind, "conditional")) {
    why = "takeback-conditional";
    goto out;
  }
  *seq = e[k].seq;
out:
  free(undone);
  free(e);
  return why;
}

/* A request that can no longer be agreed is closed: journaled by the
 * referee, so the journal answers every request it holds. */
static int lapse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int64_t seq)
{
  char text[64];
  snprintf(text, sizeof(text), "lapse %lld", (long long)seq);
  return ref_journal(m->svc, g, -1, "takeback", text, NULL) || set_pending(m->svc, g, -1, 0);
}

static int do_takeback(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmd *c)
{
  struct tpl_var extra[1];
  const char *why;
  char detail[300], text[256];
  int64_t seq = 0, stale = 0;
  int asker = -1, failed = 0, rc;

  if(!g->started)
    return ref_refuse(m, g, seat, c->line, "not-started", "", NULL);
  if((rc = pending(m->svc, g, &asker, &seq)) < 0)
    return -1;
  if(rc == 1) {
    int64_t still = 0;
    why = refusal(m->svc, g, asker, &still, detail, sizeof(detail), &failed);
    if(failed)
      return -1;
    if(!why && still == seq)
      return ref_refuse(m, g, seat, c->line, "takeback-pending", "", NULL);
    /* else the game moved on without a move of the opponent's (a roll,
     * a forced play): that request can no longer be agreed, and lapses
     * below if this one is made */
    stale = seq;
  }
  why = refusal(m->svc, g, seat, &seq, detail, sizeof(detail), &failed);
  if(failed)
    return -1;
  if(why)
    return ref_refuse(m, g, seat, c->line, why, detail, NULL);
  if(stale && lapse(m, g, stale))
    return -1;
  /* g->last_move is the label of that move: it is the last one standing */
  snprintf(text, sizeof(text), "ask %lld %s", (long long)seq, g->last_move);
  if(ref_journal(m->svc, g, seat, "takeback", text, NULL) || set_pending(m->svc, g, seat, seq) ||
     ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  ref_log_info("game %lld: %s asks to take back %s", (long long)g->row.id,
               g->desc->seat_names[seat], g->last_move);
  extra[0].name = "move";
  extra[0].value = g->last_move;
  return ref_tell_seat(m, g, 1 - seat, "takeback-asked.txt", extra, 1) ||
         ref_tell_seat(m, g, seat, "takeback-sent.txt", extra, 1);
}

/* The label the request journaled ("ask SEQ LABEL"): the move as it was
 * shown, for the mails after it is undone. */
static void asked_label(struct ref_service *svc, const struct ref_game_ctx *g, int64_t seq,
                        char *buf, size_t cap)
{
  struct store_entry *e = NULL;
  size_t n = 0, i;
  snprintf(buf, cap, "%s", g->last_move);
  if(store_journal_load_from(svc->st, &e, &n, g->row.id, seq) != STORE_OK)
    return;
  for(i = n; i-- > 0;) {
    long long s = 0;
    int at = 0;
    if(!strcmp(e[i].kind, "takeback") && sscanf(e[i].text, "ask %lld %n", &s, &at) == 1 &&
       at > 0 && s == seq) {
      snprintf(buf, cap, "%s", e[i].text + at);
      break;
    }
  }
  free(e);
}

static int do_takeback_answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                              const struct ref_cmd *c, int accept)
{
  struct tpl_var extra[2];
  const char *why;
  char detail[300], text[256], label[160], line[256];
  int64_t seq = 0, now = 0;
  int asker = -1, failed = 0, rc, offerer;

  if((rc = pending(m->svc, g, &asker, &seq)) < 0)
    return -1;
  if(rc == 0 || asker == seat)
    return ref_refuse(m, g, seat, c->line, "no-takeback-request", "", NULL);
  asked_label(m->svc, g, seq, label, sizeof(label));
  extra[0].name = "move";
  extra[0].value = label;
  extra[1].name = "asker";
  extra[1].value = g->desc->seat_names[asker];
  if(!accept) {
    snprintf(text, sizeof(text), "decline %lld", (long long)seq);
    if(ref_journal(m->svc, g, seat, "takeback", text, NULL) || set_pending(m->svc, g, -1, 0) ||
       ref_game_save(m->svc, g))
      return -1;
    m->changed = 1;
    return ref_tell_all(m, g, "takeback-declined.txt", extra, 2);
  }
  /* nothing with a rules effect may have come since the request */
  why = refusal(m->svc, g, asker, &now, detail, sizeof(detail), &failed);
  if(failed)
    return -1;
  if(why || now != seq)
    return ref_refuse(m, g, seat, c->line, "takeback-stale", "", NULL);
  snprintf(text, sizeof(text), "accept %lld", (long long)seq);
  if(ref_journal(m->svc, g, seat, "takeback", text, NULL))
    return -1;
  snprintf(text, sizeof(text), "move %lld %s", (long long)seq, label);
  if(ref_journal(m->svc, g, asker, "undo", text, NULL))
    return -1;
  if(set_pending(m->svc, g, -1, 0) || store_conditionals_clear(m->svc->st, g->row.id, -1) != STORE_OK)
    return -1;
  /* a standing draw offer goes with the move (journaled, so the record
   * says the offer no longer stands) */
  offerer = (int)g->row.draw_offer_seat;
  if(offerer >= 0 && ref_journal(m->svc, g, offerer, "offer", "draw withdrawn", NULL))
    return -1;
  g->row.draw_offer_seat = -1;
  /* the state before the move: the journal replayed from its start, the
   * undone move skipped (game.c, the one replay rule) */
  if(ref_game_replay_all(m->svc, g, detail, sizeof(detail))) {
    ref_log_error("game %lld: after the takeback: %s", (long long)g->row.id, detail);
    return -1;
  }
  g->played[0] = '\0';
  if(ref_game_save(m->svc, g))
    return -1;
  m->changed = 1;
  m->observed = 1;
  ref_log_info("game %lld: %s's move %s taken back", (long long)g->row.id,
               g->desc->seat_names[asker], label);
  {
    struct tpl_var v[2] = {{"seat", g->desc->seat_names[asker]}, {"move", label}};
    tpl_line(line, sizeof(line), m->svc->cfg.templates_dir, "phrases.txt", "takeback-undone", v,
             2);
    if(base_buf_printf(&m->events, "%s\n", line))
      return -1;
    if(offerer >= 0 && (size_t)offerer < g->nseats) {
      v[0].value = g->desc->seat_names[offerer];
      tpl_line(line, sizeof(line), m->svc->cfg.templates_dir, "phrases.txt",
               "takeback-draw-withdrawn", v, 1);
      if(base_buf_printf(&m->events, "%s\n", line))
        return -1;
    }
  }
  return ref_tell_all(m, g, "takeback-done.txt", extra, 2);
}

int ref_takeback_moved(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  char text[64], line[256];
  int64_t seq = 0;
  int asker = -1, rc = pending(m->svc, g, &asker, &seq);
  if(rc <= 0)
    return rc;
  /* the asker moving again: the game went on past the request (a roll
   * and a forced play of the opponent's) */
  if(asker == seat)
    return lapse(m, g, seq);
  snprintf(text, sizeof(text), "decline %lld", (long long)seq);
  if(ref_journal(m->svc, g, seat, "takeback", text, NULL) || set_pending(m->svc, g, -1, 0))
    return -1;
  {
    struct tpl_var v[2] = {{"seat", g->desc->seat_names[asker]},
                           {"player", g->desc->seat_names[seat]}};
    tpl_line(line, sizeof(line), m->svc->cfg.templates_dir, "phrases.txt",
             "takeback-declined-by-move", v, 2);
    if(base_buf_printf(&m->events, "%s\n", line))
      return -1;
  }
  return 0;
}

/* ---- the handlers (commands.h's table) ---- */

enum ref_rc ref_do_takeback(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_takeback(r->m, r->g, r->seat, c));
}

/* takeback accept|decline, and a plain accept|decline that answers the
 * request (ref_do_answer) */
enum ref_rc ref_do_takeback_answer(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  int accept = c->kind == REF_CMD_TAKEBACK_ACCEPT || c->kind == REF_CMD_ACCEPT;
  return ref_rc_of(r->m, do_takeback_answer(r->m, r->g, r->seat, c, accept));
}
