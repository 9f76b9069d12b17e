/*
 * tick.c: the time-driven work, `ref_service_tick` (each minute in
 * `serve`, or `tabula tick`), after a pass over the inbox (a loss on time
 * waits until the inbox is read through its deadline, rules-spec TM-1):
 * invitations left unanswered for
 * invite_days are cancelled, reminders go out at half time and on the last
 * day, games are lost on time (timeout=auto) or the time-up notice is sent
 * (timeout=claim), the daily digests of held mails (reply.c) are sent,
 * open seeks older than seek_days expire, their authors told once
 * (cmd_seek.c),
 * confirmation requests that lapsed long ago are dropped (optin.c), and
 * sent replies older than outbox_keep_days are pruned.
 *
 * One transaction per game (or per player for digests). Each action is
 * recorded in the same transaction as its mails (the clock's `reminded`
 * bits, the game's phase, the digest queue emptied), so a second tick at
 * the same time sends nothing twice, and a crash repeats at most an
 * uncommitted action. What is due is the clock's answer (clock.c); the
 * mails are sent from here. Layer 7, "entry" (docs/architecture.md), with
 * message.c: where a tick enters, as a mail enters there.
 */
#include "entry_int.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY REF_DAY

/* ---- the daily digest ---- */

/* The first digest hour strictly after t. */
static int64_t next_digest_time(const struct ref_service *svc, int64_t t)
{
  int64_t at = ref_day_of(t) * DAY + (int64_t)svc->cfg.digest_hour * 3600;
  return at > t ? at : at + DAY;
}

static int send_digest(struct ref_msg_ctx *m, const char *address)
{
  struct store_digest_item *items = NULL;
  struct base_buf text;
  struct tpl_var vars[5];
  struct ref_game_ctx g;
  char count[16], mails[32], date[16], why[256], keyed[24] = "";
  size_t n = 0, i;
  int rc = -1, loaded = 0, seat = -1;

  if(store_digest_items(m->svc->st, &items, &n, address) != STORE_OK)
    return -1;
  if(n == 0) {
    store_digest_free(items, n);
    return 0;
  }
  base_buf_init(&text, 8u * 1024u * 1024u);
  for(i = 0; i < n; i++) {
    char when[40];
    size_t len = strlen(items[i].body);
    while(len && (items[i].body[len - 1] == '\n' || items[i].body[len - 1] == '\r'))
      items[i].body[--len] = '\0';
    ref_time_text(when, sizeof(when), items[i].created);
    if(base_buf_printf(&text, "======== %s\n%s\n", when, items[i].subject) ||
       (items[i].reply_to[0] && base_buf_printf(&text, "To answer: %s\n", items[i].reply_to)) ||
       base_buf_printf(&text, "\n%s\n\n", items[i].body))
      goto out;
  }
  snprintf(count, sizeof(count), "%zu", n);
  snprintf(mails, sizeof(mails), "%zu mail%s", n, n == 1 ? "" : "s");
  ref_date_text(date, sizeof(date), ref_day_of(ref_now(m->svc)));
  vars[0].name = "count";
  vars[0].value = count;
  vars[1].name = "date";
  vars[1].value = date;
  vars[2].name = "entries";
  vars[2].value = text.s;
  vars[3].name = "mails";
  vars[3].value = mails;
  /* A digest about one game is that game's mail: the reader's key in its
   * subject and Reply-To, so replying to it acts at once. About several
   * games it carries none: a reply could not say which game it answers,
   * and each entry names its address (docs/architecture.md, "Decisions
   * the rules spec does not make"). */
  for(i = 1; i < n && items[i].game == items[0].game; i++)
    ;
  if(i == n && items[0].game > 0 && !ref_game_load(m->svc, &g, items[0].game, why, sizeof(why))) {
    loaded = 1;
    seat = ref_seat_of(&g, address);
    if(seat >= 0)
      snprintf(keyed, sizeof(keyed), "%lld", (long long)g.row.id);
  }
  vars[4].name = "keyed";
  vars[4].value = keyed;
  if(ref_reply(m, seat >= 0 ? &g : NULL, seat, address, "digest.txt", vars, 5) ||
     store_digest_clear(m->svc->st, address, items[n - 1].id) != STORE_OK)
    goto out;
  rc = 0;
out:
  if(loaded)
    ref_game_free(&g);
  base_buf_free(&text);
  store_digest_free(items, n);
  return rc;
}

/* ---- the tick ---- */

/* One game's due clock action, inside the caller's transaction. The game
 * and its clock are read again here, so what was decided outside the
 * transaction is decided again on the current facts. */
static int tick_clock(struct ref_service *svc, int64_t game, int64_t now, int *did)
{
  struct ref_msg_ctx m;
  struct ref_game_ctx g;
  struct tpl_var extra[1];
  char why[256], when[40];
  int64_t deadline;
  int seat, rc = -1;
  enum ref_clock_due due;

  *did = 0;
  if(ref_game_load(svc, &g, game, why, sizeof(why))) {
    ref_log_warn("tick: %s", why);
    return 0;
  }
  ref_msg_init(&m, svc);
  if(ref_clock_due_now(svc, &g, now, &seat, &deadline, &due))
    goto out;
  ref_time_text(when, sizeof(when), deadline);
  extra[0].name = "deadline";
  extra[0].value = when;
  /* TM-1: the time is up only if no mail that arrived before the
   * deadline still waits unread (the inbox read through it); else a
   * later tick, after the pass that reads it, decides */
  if((due == REF_DUE_TIMEOUT || due == REF_DUE_TIME_UP) && deadline > svc->read_through) {
    ref_log_debug("tick: game %lld: the inbox is not yet read through the deadline %s",
                  (long long)game, when);
    due = REF_DUE_NONE;
  }
  /* TM-8: leave taken for a player who asked for it, while it lasts */
  if(due == REF_DUE_TIMEOUT) {
    int taken = ref_leave_auto(&m, &g, seat, now, &deadline);
    if(taken < 0)
      goto out;
    if(taken) {
      rc = 0;
      *did = 1;
      goto out;
    }
  }
  switch(due) {
  case REF_DUE_NONE: rc = 0; goto out;
  case REF_DUE_HALF: rc = ref_tell_seat(&m, &g, seat, "reminder-half.txt", extra, 1); break;
  case REF_DUE_THREE:
    rc = ref_tell_seat(&m, &g, seat, "reminder-three-days.txt", extra, 1);
    break;
  case REF_DUE_DAY: rc = ref_tell_seat(&m, &g, seat, "reminder-last-day.txt", extra, 1); break;
  case REF_DUE_TIME_UP:
    rc = ref_tell_seat(&m, &g, seat, "time-up.txt", extra, 1);
    if(!rc)
      rc = ref_tell_seat(&m, &g, 1 - seat, "time-up-claimable.txt", extra, 1);
    break;
  case REF_DUE_TIMEOUT:
    rc = ref_lost_on_time(&m, &g, seat, deadline, 0);
    *did = !rc;
    goto out;
  }
  /* the notice and the record that it went out commit together */
  if(!rc && ref_clock_reminded(svc, game, due, deadline))
    rc = -1;
  *did = !rc;
out:
  base_buf_free(&m.events);
  ref_game_free(&g);
  return rc;
}

/* An invitation left unanswered for invite_days: cancelled, and each
 * party told once (the phase change and the mails commit together). */
static int tick_invitation(struct ref_service *svc, int64_t game, int64_t limit, int *did)
{
  struct ref_msg_ctx m;
  struct ref_game_ctx g;
  struct tpl_var extra[1];
  char why[256], days[16], text[64];
  int rc = -1;
  enum ref_rc erc;

  *did = 0;
  if(ref_game_load(svc, &g, game, why, sizeof(why))) {
    ref_log_warn("tick: %s", why);
    return 0;
  }
  if(g.row.phase != STORE_GAME_INVITED || g.row.created > limit) {
    ref_game_free(&g);
    return 0;
  }
  ref_msg_init(&m, svc);
  /* a round robin's game: the whole tournament, its players told once */
  if((erc = ref_tournament_expire(&m, &g)) != REF_RC_PASS) {
    *did = erc == REF_RC_OK;
    rc = erc == REF_RC_OK ? 0 : -1;
    base_buf_free(&m.events);
    ref_game_free(&g);
    return rc;
  }
  rc = -1;
  snprintf(days, sizeof(days), "%d", svc->cfg.invite_days);
  g.row.phase = STORE_GAME_CANCELLED;
  snprintf(g.row.result, sizeof(g.row.result), "invitation expired");
  snprintf(text, sizeof(text), "invitation expired after %d days", svc->cfg.invite_days);
  extra[0].name = "days";
  extra[0].value = days;
  if(!ref_journal(svc, &g, -1, "expire", text, NULL) && !ref_game_save(svc, &g) &&
     !ref_tell_all(&m, &g, "invitation-expired.txt", extra, 1)) {
    rc = 0;
    *did = 1;
    ref_log_info("game %lld: %s", (long long)game, text);
  }
  base_buf_free(&m.events);
  ref_game_free(&g);
  return rc;
}

/* An open seek past its expiry: closed and its author told,
 * together (cmd_seek.c); a second tick finds it closed. */
static int tick_seek(struct ref_service *svc, int64_t id, int64_t now, int *did)
{
  return ref_seek_expire(svc, id, now, did);
}

/* Runs fn in its own transaction; a failure rolls back only this one. */
static int in_transaction(struct ref_service *svc, int64_t id, int64_t arg,
                          int (*fn)(struct ref_service *, int64_t, int64_t, int *), size_t *count)
{
  int did = 0;
  if(store_begin(svc->st) != STORE_OK)
    return -1;
  if(fn(svc, id, arg, &did) || store_commit(svc->st) != STORE_OK) {
    ref_log_error("tick: game %lld: %s; will retry", (long long)id, store_errmsg(svc->st));
    ref_store_rollback(svc);
    return -1;
  }
  *count += (size_t)did;
  return 0;
}

/* At most this many clocks a tick: the next tick takes the rest. */
#define TICK_CLOCKS_MAX 4096

/* The clocks of `c` that came up early (game != 0) get their exact next
 * time, in one transaction; a time still in the past (it cannot be read
 * now) becomes a minute from now, so a bad row is not read every tick. */
static int postpone(struct ref_service *svc, struct store_clock *c, size_t n, int64_t now)
{
  size_t i, k = 0;
  for(i = 0; i < n; i++)
    k += c[i].game != 0;
  if(!k)
    return 0;
  if(store_begin(svc->st) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    if(!c[i].game)
      continue;
    if(c[i].next_event >= 0 && c[i].next_event <= now)
      c[i].next_event = now + 60;
    if(store_clock_set_next(svc->st, c[i].game, c[i].next_event) != STORE_OK)
      break;
  }
  if(i < n || store_commit(svc->st) != STORE_OK) {
    ref_log_error("tick: cannot record when clocks are next due: %s", store_errmsg(svc->st));
    ref_store_rollback(svc);
    return -1;
  }
  return 0;
}

int ref_service_tick(struct ref_service *svc, size_t *actions)
{
  int64_t now = ref_now(svc), *ids = NULL;
  struct store_clock *clocks = NULL;
  struct store_digest_due *due = NULL;
  size_t n = 0, i;
  int rc = 0;

  *actions = 0;
  /* Invitations. */
  if(store_games_invited_before(svc->st, &ids, &n, now - (int64_t)svc->cfg.invite_days * DAY) !=
     STORE_OK)
    return -1;
  for(i = 0; i < n; i++)
    if(in_transaction(svc, ids[i], now - (int64_t)svc->cfg.invite_days * DAY, tick_invitation,
                      actions))
      rc = -1;
  free(ids);

  /* Clocks: only those whose next_event has come (an index
   * lookup, not every running clock); decided cheaply outside a
   * transaction, acted on inside one. next_event counts no vacation, so a
   * clock whose player is away can come up early with nothing due: it is
   * given its exact time, all such in one transaction at the end. */
  if(store_clock_due(svc->st, &clocks, &n, now, TICK_CLOCKS_MAX) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    if(ref_clock_due_of(svc, &clocks[i], now) != REF_DUE_NONE) {
      if(in_transaction(svc, clocks[i].game, now, tick_clock, actions))
        rc = -1;
      clocks[i].game = 0; /* acted on: its clock was written there */
    }
    else
      clocks[i].next_event = ref_clock_next_event(svc, &clocks[i]);
  }
  if(postpone(svc, clocks, n, now))
    rc = -1;
  free(clocks);

  /* Seeks that waited seek_days for an opponent. */
  if(store_seeks_expired(svc->st, &ids, &n, now) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++)
    if(in_transaction(svc, ids[i], now, tick_seek, actions))
      rc = -1;
  free(ids);

  /* Sent replies older than outbox_keep_days leave the store:
   * it no longer grows with every move. */
  if(svc->cfg.outbox_keep_days > 0) {
    size_t pruned = 0;
    if(store_outbox_prune(svc->st, now - (int64_t)svc->cfg.outbox_keep_days * DAY, &pruned) !=
       STORE_OK) {
      ref_log_error("tick: cannot prune the outbox: %s", store_errmsg(svc->st));
      rc = -1;
    }
    else if(pruned)
      ref_log_info("outbox: %zu sent repl(ies) older than %d days deleted", pruned,
                   svc->cfg.outbox_keep_days);
  }

  /* Digests: one per player, at the first digest hour after the oldest
   * held mail. */
  if(store_digest_waiting(svc->st, &due, &n) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    struct ref_msg_ctx m;
    if(next_digest_time(svc, due[i].oldest) > now)
      continue;
    ref_msg_init(&m, svc);
    if(store_begin(svc->st) != STORE_OK) {
      rc = -1;
    }
    else if(send_digest(&m, due[i].address) || store_commit(svc->st) != STORE_OK) {
      ref_log_error("tick: digest for %s: %s; will retry", due[i].address,
                    store_errmsg(svc->st));
      ref_store_rollback(svc);
      rc = -1;
    }
    else
      (*actions)++;
    base_buf_free(&m.events);
  }
  free(due);

  /* Confirmation requests that lapsed long ago (optin.c). */
  if(store_begin(svc->st) != STORE_OK || ref_confirmations_prune(svc) ||
     store_commit(svc->st) != STORE_OK) {
    ref_log_error("tick: pruning confirmations: %s; will retry", store_errmsg(svc->st));
    ref_store_rollback(svc);
    rc = -1;
  }
  return rc;
}
