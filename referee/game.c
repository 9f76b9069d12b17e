/*
 * game.c: a game rebuilt from its journal, and the journal written
 * (docs/architecture.md, layer 3 "games").
 *
 * Games are not trusted to a stored blob: a game is rebuilt by replaying its
 * journal through the rules (ref_game_load), which is also what `tabula
 * check` does, so the stored position is a cache that must agree with the
 * journal. ref_game_save writes the rules' view back to the game's row.
 */
#include "game_int.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- games: load by replaying the journal ---- */

void ref_game_free(struct ref_game_ctx *g)
{
  if(!g)
    return;
  free(g->state);
  free(g->seats);
  memset(g, 0, sizeof(*g));
}

/* Replays one journal entry into g->state (also used by record.c). */
int ref_game_replay_entry(struct ref_game_ctx *g, const struct store_entry *e, char *why,
                        size_t cap)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_err err;
  struct ref_move m;
  int rc = REF_OK;

  if(!strcmp(e->kind, "start")) {
    rc = ops->init(g->state, g->row.options[0] ? g->row.options : NULL, &err);
    g->started = 1;
  }
  else if(!strcmp(e->kind, "move")) {
    rc = ops->parse(g->state, e->text, &m, &err);
    if(rc == REF_OK) {
      ref_move_label(g, e->text, g->last_move, sizeof(g->last_move));
      rc = ops->apply(g->state, &m);
    }
  }
  else if(!strcmp(e->kind, "action")) {
    enum ref_action a;
    int arg = 0;
    if(ref_action_parse(e->text, &a, &arg))
      rc = REF_EINVAL;
    else
      rc = ops->act(g->state, e->seat, a, arg, &err);
  }
  else if(!strcmp(e->kind, "roll")) {
    int faces[8], n = 0;
    const char *p = strstr(e->text, "faces");
    if(!p || !ops->roll) {
      rc = REF_EINVAL;
    }
    else {
      char *end;
      p += 5;
      for(;;) {
        long v = strtol(p, &end, 10);
        if(end == p || n == 8)
          break;
        faces[n++] = (int)v;
        p = end;
      }
      rc = ops->roll(g->state, faces, n, &err);
    }
  }
  /* create, accept, decline, offer, end: bookkeeping, no rules effect */
  if(rc != REF_OK) {
    snprintf(why, cap, "journal entry %lld (%s '%s') does not replay: %s",
             (long long)e->seq, e->kind, e->text, err.reason);
    return -1;
  }
  return 0;
}

int ref_game_load(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                  size_t cap)
{
  struct store_entry *entries = NULL;
  size_t n = 0, i;
  int rc;

  memset(g, 0, sizeof(*g));
  if((rc = store_game_load(svc->st, &g->row, id)) != STORE_OK) {
    /* issue 13: a damaged store is not "no game" */
    if(rc == STORE_ENOTFOUND)
      snprintf(why, cap, "no game %lld", (long long)id);
    else
      snprintf(why, cap, "game %lld cannot be read: %s", (long long)id, store_errmsg(svc->st));
    return -1;
  }
  rc = -1;
  g->desc = ref_game_find(g->row.kind);
  if(!g->desc) {
    snprintf(why, cap, "game %lld is of unknown kind '%s'", (long long)id, g->row.kind);
    return -1;
  }
  if(store_seat_list(svc->st, &g->seats, &g->nseats, id) != STORE_OK ||
     store_journal_load(svc->st, &entries, &n, id) != STORE_OK) {
    snprintf(why, cap, "game %lld cannot be read: %s", (long long)id, store_errmsg(svc->st));
    goto out;
  }
  g->state = ref_state_new(g->desc);
  if(!g->state) {
    snprintf(why, cap, "game %lld: out of memory", (long long)id);
    goto out;
  }
  for(i = 0; i < n; i++)
    if(ref_game_replay_entry(g, &entries[i], why, cap))
      goto out;
  g->journal_len = n;
  rc = 0;
out:
  free(entries);
  if(rc)
    ref_game_free(g);
  return rc;
}

/* "12. Nf3" / "12... Nf6" for numbered games; the bare move for dice games,
 * whose turns the dice already mark. Call before the move is applied. */
void ref_move_label(struct ref_game_ctx *g, const char *canon, char *buf, size_t cap)
{
  struct ref_status s;
  int n;
  g->desc->ops->status(g->state, &s);
  if(g->desc->flags & REF_GAME_DICE)
    n = snprintf(buf, cap, "%s", canon);
  else
    n = snprintf(buf, cap, "%d.%s %s", s.move_number, s.turn == 0 ? "" : "..", canon);
  /* Notation fits REF_NOTATION_MAX, so this never happens; if a game ever
   * writes longer, the mails show it cut, and the log says so. */
  if(n < 0 || (size_t)n >= cap)
    ref_log_error("move label cut short: %s", canon);
}

/* ---- journal and state ---- */

int ref_journal(struct ref_service *svc, struct ref_game_ctx *g, int seat, const char *kind,
                const char *text, const char *dice)
{
  struct store_entry e;
  memset(&e, 0, sizeof(e));
  e.game = g->row.id;
  e.time = ref_now(svc);
  e.seat = seat;
  snprintf(e.kind, sizeof(e.kind), "%s", kind);
  snprintf(e.text, sizeof(e.text), "%s", text);
  snprintf(e.dice, sizeof(e.dice), "%s", dice ? dice : "");
  return store_journal_append(svc->st, NULL, &e) == STORE_OK ? 0 : -1;
}

/* Writes the rules' view of the game back to its row. */
int ref_game_save(struct ref_service *svc, struct ref_game_ctx *g)
{
  struct ref_status s;
  if(g->started) {
    g->desc->ops->status(g->state, &s);
    if(g->desc->ops->encode(g->state, g->row.state, sizeof(g->row.state)) != REF_OK)
      return -1;
    g->row.turn = s.phase == REF_PHASE_OVER ? -1 : s.turn;
    if(s.phase == REF_PHASE_OVER && g->row.phase == STORE_GAME_ACTIVE) {
      g->row.phase = STORE_GAME_FINISHED;
      ref_result_text(g->row.result, sizeof(g->row.result), g->desc, &s);
    }
  }
  g->row.updated = ref_now(svc);
  return store_game_update(svc->st, &g->row) == STORE_OK ? 0 : -1;
}

void ref_result_text(char *buf, size_t cap, const struct ref_game_desc *d,
                     const struct ref_status *s)
{
  if(s->winner < 0)
    snprintf(buf, cap, "draw by %s", ref_end_name(s->end));
  else if(s->points > 1)
    snprintf(buf, cap, "%s won %d points by %s", d->seat_names[s->winner], s->points,
             ref_end_name(s->end));
  else
    snprintf(buf, cap, "%s won by %s", d->seat_names[s->winner], ref_end_name(s->end));
}

/* ---- actions in the journal: "resign 2", "draw agreed", "double" ---- */

static const char *const action_words[REF_ACT_LAST] = {
  "double", "take", "drop", "resign", "draw agreed", "draw claim",
};

void ref_action_text(char *buf, size_t cap, enum ref_action a, int arg)
{
  if(a == REF_ACT_RESIGN)
    snprintf(buf, cap, "resign %d", arg);
  else
    snprintf(buf, cap, "%s", action_words[a]);
}

int ref_action_parse(const char *text, enum ref_action *a, int *arg)
{
  int i;
  for(i = 0; i < REF_ACT_LAST; i++) {
    size_t len = strlen(action_words[i]);
    if(!strncmp(text, action_words[i], len) && (text[len] == '\0' || text[len] == ' ')) {
      *a = (enum ref_action)i;
      *arg = text[len] ? atoi(text + len + 1) : 0;
      return 0;
    }
  }
  return -1;
}

/* The seat `address` holds in g, or -1. */
int ref_seat_of(const struct ref_game_ctx *g, const char *address)
{
  size_t i;
  for(i = 0; i < g->nseats; i++)
    if(!strcasecmp(g->seats[i].address, address))
      return (int)i;
  return -1;
}
