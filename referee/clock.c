/*
 * clock.c: time in tabula (issue 6). Days per move, weekends counted or
 * not, vacations, reminders at half time and 24 hours before the deadline,
 * loss on time (automatic or claimed), invitations that expire, and the
 * opt-in daily digest.
 *
 * The model. A game's clock runs for one seat at a time: the seat the
 * rules say must act. It restarts when that seat changes or a move is
 * journaled (a backgammon "roll" and the play after it share one period;
 * a draw offer does not buy time). Time is counted in seconds of whole UTC
 * days that count: a Saturday or Sunday does not when the game says
 * weekends=off, and a day of the running player's vacation never does, so
 * a vacation pauses that player's clock in every game. The deadline is the
 * moment the counted time reaches days x 24 h. Nothing here trusts a
 * cached deadline: every decision recounts from the clock's start, so a
 * vacation booked later moves the deadline at once.
 *
 * All time-driven work happens in ref_service_tick, one transaction per
 * game (or per player for digests). Each action is recorded in the same
 * transaction as its mails (the clock's `reminded` bits, the game's phase,
 * the digest queue emptied), so a second tick at the same time sends
 * nothing twice, and a crash repeats at most an uncommitted action.
 *
 * The date arithmetic is pure and lives below, in calendar.c.
 */
#include "service_int.h"

#include "buf.h"
#include "commands.h"
#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DAY REF_DAY

/* ---- game options: days=N, weekends=on|off ---- */

int ref_clock_option(const char *tok, int *days, int *weekends)
{
  const char *v;
  char *end;
  long n;
  if(!strncasecmp(tok, "days=", 5)) {
    v = tok + 5;
    n = strtol(v, &end, 10);
    if(!*v || *end || n < 1 || n > 365)
      return -1;
    *days = (int)n;
    return 1;
  }
  if(!strncasecmp(tok, "weekends=", 9)) {
    v = tok + 9;
    if(!strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcmp(v, "1"))
      *weekends = 1;
    else if(!strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcmp(v, "0"))
      *weekends = 0;
    else
      return -1;
    return 1;
  }
  return 0;
}

int ref_clock_create(struct ref_service *svc, int64_t game, int days, int weekends)
{
  struct store_clock c;
  memset(&c, 0, sizeof(c));
  c.game = game;
  c.days = days > 0 ? days : svc->cfg.days_per_move;
  c.weekends = (weekends >= 0 ? weekends : svc->cfg.weekends) != 0;
  c.seat = -1;
  return store_clock_put(svc->st, &c) == STORE_OK ? 0 : -1;
}

/* ---- one clock ---- */

/* The counting rules for the player whose time runs on clock c. */
static int rules_for(struct ref_service *svc, const struct store_clock *c, const char *address,
                     struct ref_clock_rules *r, struct store_vacation **vacs)
{
  size_t n = 0;
  *vacs = NULL;
  if(store_vacation_list(svc->st, vacs, &n, address) != STORE_OK)
    return -1;
  r->weekends = c->weekends;
  r->vac = *vacs;
  r->nvac = n;
  return 0;
}

/* Counted seconds used and the deadline of clock c at `now`. */
static int clock_state(struct ref_service *svc, const struct store_clock *c, const char *address,
                       int64_t now, int64_t *used, int64_t *deadline)
{
  struct ref_clock_rules r;
  struct store_vacation *vacs;
  if(rules_for(svc, c, address, &r, &vacs))
    return -1;
  *used = ref_clock_counted(&r, c->started, now);
  *deadline = ref_clock_reach(&r, c->started, (int64_t)c->days * DAY);
  free(vacs);
  return 0;
}

/* Loads the clock of a game, or makes one with the defaults for games
 * created before clocks existed. *fresh says which. */
static int clock_get(struct ref_service *svc, struct store_clock *c, int64_t game, int *fresh)
{
  int rc = store_clock_load(svc->st, c, game);
  *fresh = 0;
  if(rc == STORE_ENOTFOUND) {
    memset(c, 0, sizeof(*c));
    c->game = game;
    c->days = svc->cfg.days_per_move;
    c->weekends = svc->cfg.weekends != 0;
    c->seat = -1;
    *fresh = 1;
    return 0;
  }
  return rc == STORE_OK ? 0 : -1;
}

/* Whose time runs: the seat the rules wait for, in a running two-seat
 * game; -1 otherwise. */
static int running_seat(struct ref_game_ctx *g)
{
  struct ref_status s;
  if(g->row.phase != STORE_GAME_ACTIVE || !g->started || g->nseats != 2)
    return -1;
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER || s.turn < 0 || (size_t)s.turn >= g->nseats)
    return -1;
  return s.turn;
}

int ref_clock_sync(struct ref_service *svc, struct ref_game_ctx *g)
{
  struct store_clock c;
  int64_t moves = 0, used;
  int fresh, seat = running_seat(g);

  if(clock_get(svc, &c, g->row.id, &fresh))
    return -1;
  if(seat < 0) {
    if(c.seat < 0 && !fresh)
      return 0;
    c.seat = -1;
    c.deadline = 0;
    return store_clock_put(svc->st, &c) == STORE_OK ? 0 : -1;
  }
  if(store_journal_count(svc->st, &moves, g->row.id, "move") != STORE_OK)
    return -1;
  if(!fresh && c.seat == seat && c.moves == moves)
    return 0; /* the same decision is still awaited: the clock runs on */
  c.seat = seat;
  c.moves = moves;
  c.started = ref_now(svc);
  c.reminded = 0;
  if(clock_state(svc, &c, g->seats[seat].address, c.started, &used, &c.deadline))
    return -1;
  return store_clock_put(svc->st, &c) == STORE_OK ? 0 : -1;
}

void ref_clock_view(struct ref_service *svc, struct ref_game_ctx *g, int seat, char *control,
                    size_t ccap, char *deadline, size_t dcap)
{
  struct store_clock c;
  int64_t moves = 0, used, when, started;
  int fresh;

  control[0] = deadline[0] = '\0';
  if(clock_get(svc, &c, g->row.id, &fresh))
    return;
  snprintf(control, ccap, "%d day%s per move, weekends %s", c.days, c.days == 1 ? "" : "s",
           c.weekends ? "counted" : "not counted");
  if(seat < 0 || seat != running_seat(g) ||
     store_journal_count(svc->st, &moves, g->row.id, "move") != STORE_OK)
    return;
  /* what ref_clock_sync will store once this mail's changes are saved */
  started = !fresh && c.seat == seat && c.moves == moves ? c.started : ref_now(svc);
  c.started = started;
  if(clock_state(svc, &c, g->seats[seat].address, started, &used, &when))
    return;
  ref_time_text(deadline, dcap, when);
}

/* ---- loss on time ---- */

static int end_on_time(struct ref_msg_ctx *m, struct ref_game_ctx *g, int loser,
                       int64_t deadline, int claimed)
{
  struct ref_service *svc = m->svc;
  char text[160], when[40];
  int winner = 1 - loser;
  struct tpl_var extra[2];

  ref_time_text(when, sizeof(when), deadline);
  snprintf(g->row.result, sizeof(g->row.result), "%s won on time", g->desc->seat_names[winner]);
  g->row.phase = STORE_GAME_FINISHED;
  snprintf(text, sizeof(text), "%s%s: %s did not move by %s", claimed ? "claimed: " : "",
           g->row.result, g->desc->seat_names[loser], when);
  if(ref_journal(svc, g, loser, "timeout", text, NULL) || ref_game_save(svc, g))
    return -1;
  /* The rules' position is not over, so ref_game_save kept the turn. */
  g->row.turn = -1;
  if(store_game_update(svc->st, &g->row) != STORE_OK || ref_clock_sync(svc, g))
    return -1;
  m->changed = 1;
  ref_log_info("game %lld: %s", (long long)g->row.id, g->row.result);
  extra[0].name = "deadline";
  extra[0].value = when;
  extra[1].name = "late";
  extra[1].value = g->seats[loser].address;
  return ref_tell_all(m, g, "timeout.txt", extra, 2);
}

int ref_clock_overdue(struct ref_msg_ctx *m, struct ref_game_ctx *g)
{
  struct ref_service *svc = m->svc;
  struct store_clock c;
  int64_t used, deadline;
  int fresh, seat = running_seat(g);

  if(seat < 0 || strcmp(svc->cfg.timeout, "auto"))
    return 0;
  if(clock_get(svc, &c, g->row.id, &fresh))
    return -1;
  if(fresh || c.seat != seat)
    return 0;
  if(clock_state(svc, &c, g->seats[seat].address, ref_now(svc), &used, &deadline))
    return -1;
  /* A mail that arrives after the deadline finds the game lost on time,
   * even if no tick has run since: the ruling may not depend on timing. */
  if(used >= (int64_t)c.days * DAY)
    return end_on_time(m, g, seat, deadline, 0);
  return 0;
}

/* ---- commands: vacation, digest, claim time ---- */

int ref_clock_is_command(int kind)
{
  return kind == REF_CMD_VACATION || kind == REF_CMD_DIGEST || kind == REF_CMD_CLAIM_TIME;
}

/* Recomputes the cached deadlines of every game whose clock runs for
 * `address` (after a vacation), listing them for the reply. */
static int refresh_deadlines(struct ref_service *svc, const char *address, struct ref_buf *list)
{
  int64_t *ids = NULL;
  size_t n = 0, i;
  int rc = 0;
  if(store_games_of(svc->st, &ids, &n, address) != STORE_OK)
    return -1;
  for(i = 0; i < n && !rc; i++) {
    struct store_clock c;
    struct store_seat *seats = NULL;
    size_t ns = 0;
    int fresh;
    int64_t used;
    char when[40];
    if(clock_get(svc, &c, ids[i], &fresh) || fresh || c.seat < 0)
      continue;
    if(store_seat_list(svc->st, &seats, &ns, ids[i]) != STORE_OK) {
      rc = -1;
      break;
    }
    if((size_t)c.seat < ns && !strcmp(seats[c.seat].address, address)) {
      if(clock_state(svc, &c, address, ref_now(svc), &used, &c.deadline) ||
         store_clock_put(svc->st, &c) != STORE_OK)
        rc = -1;
      ref_time_text(when, sizeof(when), c.deadline);
      ref_buf_printf(list, "Game %lld: your deadline is now %s.\n", (long long)ids[i], when);
    }
    free(seats);
  }
  free(ids);
  return rc;
}

/* vacation FROM TO: whole UTC days, inclusive; "to" or "-" between the
 * dates is fine. */
static int do_vacation(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  const char *address = g->seats[seat].address;
  char a[32] = "", b[32] = "", mid[32] = "", extra_word[8] = "", detail[96];
  char from_text[16], to_text[16], days_text[24], left_text[96];
  struct store_vacation *vacs = NULL;
  struct ref_buf list;
  struct tpl_var extra[5];
  int64_t first, last, today = ref_day_of(ref_now(svc));
  size_t n = 0, i;
  int y, words, rc;

  words = sscanf(c->arg, "%31s %31s %31s %7s", a, mid, b, extra_word);
  if(words == 2) {
    memcpy(b, mid, sizeof(b));
    mid[0] = '\0';
  }
  if((words != 2 && words != 3) || (words == 3 && strcasecmp(mid, "to") && strcmp(mid, "-")) ||
     ref_date_parse(a, &first) || ref_date_parse(b, &last))
    return ref_refuse(m, g, seat, c->line, "vacation-syntax", c->arg, NULL);
  if(last < first)
    return ref_refuse(m, g, seat, c->line, "vacation-order", "", NULL);
  ref_date_text(detail, sizeof(detail), today);
  if(first < today)
    return ref_refuse(m, g, seat, c->line, "vacation-past", detail, NULL);
  if(first > today + 366)
    return ref_refuse(m, g, seat, c->line, "vacation-too-far", "", NULL);
  if(store_vacation_list(svc->st, &vacs, &n, address) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    if(first <= vacs[i].last_day && last >= vacs[i].first_day) {
      char f[16], t[16];
      ref_date_text(f, sizeof(f), vacs[i].first_day);
      ref_date_text(t, sizeof(t), vacs[i].last_day);
      snprintf(detail, sizeof(detail), "%s to %s", f, t);
      free(vacs);
      return ref_refuse(m, g, seat, c->line, "vacation-overlap", detail, NULL);
    }
  }
  /* The allowance is per calendar year: a vacation over New Year draws on
   * both years. */
  left_text[0] = '\0';
  for(y = ref_year_of_day(first); y <= ref_year_of_day(last); y++) {
    int64_t used = 0, want = ref_days_in_year(first, last, y);
    for(i = 0; i < n; i++)
      used += ref_days_in_year(vacs[i].first_day, vacs[i].last_day, y);
    if(used + want > svc->cfg.vacation_days) {
      snprintf(detail, sizeof(detail), "%lld of %d days left in %d",
               (long long)(used < svc->cfg.vacation_days ? svc->cfg.vacation_days - used : 0),
               svc->cfg.vacation_days, y);
      free(vacs);
      return ref_refuse(m, g, seat, c->line, "vacation-allowance", detail, NULL);
    }
    snprintf(left_text + strlen(left_text), sizeof(left_text) - strlen(left_text),
             "%s%lld days left in %d", left_text[0] ? ", " : "",
             (long long)(svc->cfg.vacation_days - used - want), y);
  }
  free(vacs);
  if(store_vacation_add(svc->st, address, first, last, ref_now(svc)) != STORE_OK)
    return -1;
  ref_buf_init(&list, 64 * 1024);
  if(refresh_deadlines(svc, address, &list)) {
    ref_buf_free(&list);
    return -1;
  }
  m->changed = 1;
  ref_log_info("vacation for %s: %s to %s", address, a, b);
  ref_date_text(from_text, sizeof(from_text), first);
  ref_date_text(to_text, sizeof(to_text), last);
  snprintf(days_text, sizeof(days_text), "%lld", (long long)(last - first + 1));
  extra[0].name = "from";
  extra[0].value = from_text;
  extra[1].name = "to";
  extra[1].value = to_text;
  extra[2].name = "days";
  extra[2].value = days_text;
  extra[3].name = "left";
  extra[3].value = left_text;
  extra[4].name = "deadlines";
  extra[4].value = list.s ? list.s : "";
  rc = ref_tell_seat(m, g, seat, "vacation-ok.txt", extra, 5);
  ref_buf_free(&list);
  return rc;
}

static int do_digest(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c)
{
  char hour[8];
  struct tpl_var extra[1] = {{"hour", hour}};
  int on;
  if(!strcasecmp(c->arg, "on"))
    on = 1;
  else if(!strcasecmp(c->arg, "off"))
    on = 0;
  else
    return ref_refuse(m, g, seat, c->line, "digest-syntax", c->arg, NULL);
  if(store_digest_pref_set(m->svc->st, g->seats[seat].address, on) != STORE_OK)
    return -1;
  m->changed = 1;
  snprintf(hour, sizeof(hour), "%02d:00", m->svc->cfg.digest_hour);
  return ref_tell_seat(m, g, seat, on ? "digest-on.txt" : "digest-off.txt", extra, 1);
}

static int do_claim_time(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  struct store_clock k;
  int64_t used, deadline;
  char when[40];
  int fresh, late = running_seat(g);

  /* lost on time as this very mail arrived (timeout=auto): the result
   * mail already says so */
  if(g->row.phase == STORE_GAME_FINISHED && m->changed)
    return 0;
  if(g->row.phase != STORE_GAME_ACTIVE)
    return ref_refuse(m, g, seat, c->line, g->row.phase == STORE_GAME_INVITED ? "not-started"
                                                                              : "game-over",
                      "", NULL);
  if(late < 0 || late == seat)
    return ref_refuse(m, g, seat, c->line, "time-not-running", "", NULL);
  if(clock_get(svc, &k, g->row.id, &fresh))
    return -1;
  if(fresh || k.seat != late)
    return ref_refuse(m, g, seat, c->line, "time-not-running", "", NULL);
  if(clock_state(svc, &k, g->seats[late].address, ref_now(svc), &used, &deadline))
    return -1;
  /* Once the time-up notice went out the time stays up: a vacation
   * booked afterwards cannot take back a claim the opponent was offered. */
  if(used < (int64_t)k.days * DAY && !(k.reminded & 4)) {
    ref_time_text(when, sizeof(when), deadline);
    return ref_refuse(m, g, seat, c->line, "time-not-up", when, NULL);
  }
  return end_on_time(m, g, late, deadline < k.started ? k.started : deadline, 1);
}

int ref_clock_command(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_cmd *c)
{
  switch(c->kind) {
  case REF_CMD_VACATION: return do_vacation(m, g, seat, c);
  case REF_CMD_DIGEST: return do_digest(m, g, seat, c);
  case REF_CMD_CLAIM_TIME: return do_claim_time(m, g, seat, c);
  default: return ref_refuse(m, g, seat, c->line, "not-available", ref_cmd_name(c->kind), NULL);
  }
}

/* ---- the digest (held mails: reply.c) ---- */

/* The first digest hour strictly after t. */
static int64_t next_digest_time(const struct ref_service *svc, int64_t t)
{
  int64_t at = ref_day_of(t) * DAY + (int64_t)svc->cfg.digest_hour * 3600;
  return at > t ? at : at + DAY;
}

static int send_digest(struct ref_msg_ctx *m, const char *address)
{
  struct store_digest_item *items = NULL;
  struct ref_buf text;
  struct tpl_var vars[3];
  char count[16], date[16];
  size_t n = 0, i;
  int rc = -1;

  if(store_digest_items(m->svc->st, &items, &n, address) != STORE_OK)
    return -1;
  if(n == 0) {
    store_digest_free(items, n);
    return 0;
  }
  ref_buf_init(&text, 8u * 1024u * 1024u);
  for(i = 0; i < n; i++) {
    char when[40];
    size_t len = strlen(items[i].body);
    while(len && (items[i].body[len - 1] == '\n' || items[i].body[len - 1] == '\r'))
      items[i].body[--len] = '\0';
    ref_time_text(when, sizeof(when), items[i].created);
    if(ref_buf_printf(&text, "======== %s\n%s\n", when, items[i].subject) ||
       (items[i].reply_to[0] && ref_buf_printf(&text, "To answer: %s\n", items[i].reply_to)) ||
       ref_buf_printf(&text, "\n%s\n\n", items[i].body))
      goto out;
  }
  snprintf(count, sizeof(count), "%zu", n);
  ref_date_text(date, sizeof(date), ref_day_of(ref_now(m->svc)));
  vars[0].name = "count";
  vars[0].value = count;
  vars[1].name = "date";
  vars[1].value = date;
  vars[2].name = "entries";
  vars[2].value = text.s;
  if(ref_reply(m, NULL, -1, address, "digest.txt", vars, 3) ||
     store_digest_clear(m->svc->st, address, items[n - 1].id) != STORE_OK)
    goto out;
  rc = 0;
out:
  ref_buf_free(&text);
  store_digest_free(items, n);
  return rc;
}

/* ---- the tick ---- */

enum due { DUE_NONE, DUE_HALF, DUE_DAY, DUE_TIMEOUT, DUE_TIME_UP };

static enum due clock_due(const struct ref_service *svc, const struct store_clock *c,
                          int64_t used)
{
  int64_t total = (int64_t)c->days * DAY;
  if(used >= total)
    return !strcmp(svc->cfg.timeout, "auto") ? DUE_TIMEOUT
           : (c->reminded & 4)               ? DUE_NONE
                                             : DUE_TIME_UP;
  /* The last-day reminder only when it falls after half time (more than
   * two days per move); with two days, half time is 24 hours before. */
  if(c->days > 2 && used >= total - DAY)
    return (c->reminded & 2) ? DUE_NONE : DUE_DAY;
  if(used >= total / 2)
    return (c->reminded & 1) ? DUE_NONE : DUE_HALF;
  return DUE_NONE;
}

/* One game's due clock action, inside the caller's transaction. The game
 * and its clock are read again here, so what was decided outside the
 * transaction is decided again on the current facts. */
static int tick_clock(struct ref_service *svc, int64_t game, int64_t now, int *did)
{
  struct ref_msg_ctx m;
  struct ref_game_ctx g;
  struct store_clock c;
  struct tpl_var extra[1];
  char why[256], when[40];
  int64_t used, deadline;
  int fresh, seat, rc = -1;
  enum due due;

  *did = 0;
  if(ref_game_load(svc, &g, game, why, sizeof(why))) {
    ref_log_warn("tick: %s", why);
    return 0;
  }
  ref_msg_init(&m, svc);
  seat = running_seat(&g);
  if(clock_get(svc, &c, game, &fresh))
    goto out;
  if(seat < 0 || fresh || c.seat != seat) {
    rc = 0;
    goto out;
  }
  if(clock_state(svc, &c, g.seats[seat].address, now, &used, &deadline))
    goto out;
  due = clock_due(svc, &c, used);
  ref_time_text(when, sizeof(when), deadline);
  extra[0].name = "deadline";
  extra[0].value = when;
  switch(due) {
  case DUE_NONE: rc = 0; goto out;
  case DUE_HALF:
    c.reminded |= 1;
    rc = ref_tell_seat(&m, &g, seat, "reminder-half.txt", extra, 1);
    break;
  case DUE_DAY:
    c.reminded |= 1 | 2;
    rc = ref_tell_seat(&m, &g, seat, "reminder-last-day.txt", extra, 1);
    break;
  case DUE_TIME_UP:
    c.reminded |= 1 | 2 | 4;
    rc = ref_tell_seat(&m, &g, seat, "time-up.txt", extra, 1);
    if(!rc)
      rc = ref_tell_seat(&m, &g, 1 - seat, "time-up-claimable.txt", extra, 1);
    break;
  case DUE_TIMEOUT:
    rc = end_on_time(&m, &g, seat, deadline, 0);
    *did = !rc;
    goto out;
  }
  c.deadline = deadline;
  if(!rc && store_clock_put(svc->st, &c) != STORE_OK)
    rc = -1;
  *did = !rc;
out:
  ref_buf_free(&m.events);
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
  ref_buf_free(&m.events);
  ref_game_free(&g);
  return rc;
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
    store_rollback(svc->st);
    return -1;
  }
  *count += (size_t)did;
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

  /* Clocks: decided cheaply outside a transaction, acted on inside one. */
  if(store_clock_running(svc->st, &clocks, &n) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    struct store_seat *seats = NULL;
    size_t ns = 0;
    int64_t used, deadline;
    int act = 0;
    if(store_seat_list(svc->st, &seats, &ns, clocks[i].game) == STORE_OK &&
       (size_t)clocks[i].seat < ns &&
       !clock_state(svc, &clocks[i], seats[clocks[i].seat].address, now, &used, &deadline))
      act = clock_due(svc, &clocks[i], used) != DUE_NONE;
    free(seats);
    if(act && in_transaction(svc, clocks[i].game, now, tick_clock, actions))
      rc = -1;
  }
  free(clocks);

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
      store_rollback(svc->st);
      rc = -1;
    }
    else
      (*actions)++;
    ref_buf_free(&m.events);
  }
  free(due);
  return rc;
}
