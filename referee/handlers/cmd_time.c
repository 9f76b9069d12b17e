/*
 * cmd_time.c: the commands about time: `vacation FROM TO`,
 * `digest on|off`, `timezone NAME|off`, `give N days`, `claim time`; and the loss on time, whoever notices it
 * (a claim here, a late mail in dispatch.c, the tick in tick.c): the clock
 * (clock.c) says what is due, these handlers journal it and tell the
 * players. Layer 6, "handlers" (docs/architecture.md).
 */
#include "handlers_int.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ref_lost_on_time(struct ref_msg_ctx *m, struct ref_game_ctx *g, int loser, int64_t deadline,
                     int claimed)
{
  char when[40];
  struct tpl_var extra[2];

  if(ref_clock_end(m->svc, g, loser, deadline, claimed))
    return -1;
  m->changed = 1;
  ref_time_text(when, sizeof(when), deadline);
  extra[0].name = "deadline";
  extra[0].value = when;
  extra[1].name = "late";
  extra[1].value = g->seats[loser].address;
  return ref_tell_result(m, g, "timeout.txt", extra, 2) || ref_compete_game_over(m, g);
}

/* TM-8: the opponents in every running game of `address` told of a leave
 * booked, with its dates: their deadlines do not move, the player's do. */
static int tell_opponents(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *address,
                          const char *from, const char *to)
{
  struct tpl_var extra[3] = {{"from", from}, {"to", to}, {"away", address}};
  int64_t *ids = NULL;
  size_t n = 0, i;
  int rc = 0;
  if(store_games_of(m->svc->st, &ids, &n, address) != STORE_OK)
    return -1;
  for(i = 0; i < n && !rc; i++) {
    struct ref_game_ctx other, *h = g;
    char why[256];
    int s;
    if(ids[i] != g->row.id) {
      if(ref_game_load(m->svc, &other, ids[i], why, sizeof(why)))
        continue;
      h = &other;
    }
    if(h->row.phase == STORE_GAME_ACTIVE && h->nseats == 2)
      for(s = 0; s < 2 && !rc; s++)
        if(!strcmp(h->seats[s].address, address) && strcmp(h->seats[1 - s].address, address))
          rc = ref_tell_seat(m, h, 1 - s, "leave-opponent.txt", extra, 3);
    if(h != g)
      ref_game_free(h);
  }
  free(ids);
  return rc;
}

/* leave auto on|off (TM-8): at a deadline that would pass, a day of the
 * player's allowance is taken for them instead, as long as it lasts. */
static int do_leave_auto(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmd *c)
{
  char days[16];
  struct tpl_var extra[1] = {{"days", days}};
  int on = !strncasecmp(c->arg, "on", 2);
  if(store_leave_auto_set(m->svc->st, g->seats[seat].address, on) != STORE_OK)
    return -1;
  m->changed = 1;
  snprintf(days, sizeof(days), "%d", m->svc->cfg.vacation_days);
  return ref_tell_seat(m, g, seat, on ? "leave-auto-on.txt" : "leave-auto-off.txt", extra, 1);
}

/* calendar on|off (TM-10): "your move" mails carry the deadline as an
 * iCalendar event (RFC 5545, RFC 6047 PUBLISH). */
static int do_calendar(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmd *c)
{
  int on = !strncasecmp(c->arg, "on", 2);
  if(store_calendar_set(m->svc->st, g->seats[seat].address, on) != STORE_OK)
    return -1;
  m->changed = 1;
  return ref_tell_seat(m, g, seat, on ? "calendar-on.txt" : "calendar-off.txt", NULL, 0);
}

/* Days of year y booked by the player. */
static int64_t booked_in(const struct store_vacation *v, size_t n, int y)
{
  int64_t used = 0;
  size_t i;
  for(i = 0; i < n; i++)
    used += ref_days_in_year(v[i].first_day, v[i].last_day, y);
  return used;
}

int ref_leave_auto(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, int64_t at,
                   int64_t *deadline)
{
  struct ref_service *svc = m->svc;
  const char *address = g->seats[seat].address;
  struct store_vacation *vacs = NULL;
  struct base_buf list;
  char from[16], to[16], when[40], left[64], count[16];
  struct tpl_var extra[5] = {{"from", from}, {"to", to}, {"deadline", when}, {"left", left},
                             {"days", count}};
  enum ref_clock_due due = REF_DUE_TIMEOUT;
  int64_t first = -1, last = -1, booked = 0;
  size_t n = 0;
  bool on = false;
  int running, rc;

  if(svc->cfg.timeout != REF_TIMEOUT_AUTO ||
     store_leave_auto_get(svc->st, &on, address) != STORE_OK)
    return on ? -1 : 0;
  if(!on)
    return 0;
  /* one day at a time, the day of the deadline's last counted second,
   * while the allowance of its year lasts and the time is still up */
  while(due == REF_DUE_TIMEOUT && booked < 366) {
    int64_t day = ref_day_of(*deadline - 1);
    free(vacs);
    vacs = NULL;
    if(store_vacation_list(svc->st, &vacs, &n, address) != STORE_OK)
      return -1;
    if(booked_in(vacs, n, ref_year_of_day(day)) + 1 > svc->cfg.vacation_days)
      break;
    if(store_vacation_add(svc->st, address, day, day, ref_now(svc)) != STORE_OK) {
      free(vacs);
      return -1;
    }
    booked++;
    first = first < 0 || day < first ? day : first;
    last = day > last ? day : last;
    if(ref_clock_due_now(svc, g, at, &running, deadline, &due)) {
      free(vacs);
      return -1;
    }
  }
  if(!booked) {
    free(vacs);
    return 0;
  }
  free(vacs);
  vacs = NULL;
  if(store_vacation_list(svc->st, &vacs, &n, address) != STORE_OK)
    return -1;
  snprintf(left, sizeof(left), "%lld days left in %d",
           (long long)(svc->cfg.vacation_days - booked_in(vacs, n, ref_year_of_day(last))),
           ref_year_of_day(last));
  free(vacs);
  base_buf_init(&list, 64 * 1024);
  if(ref_clock_refresh(svc, address, &list)) {
    base_buf_free(&list);
    return -1;
  }
  base_buf_free(&list);
  m->changed = 1;
  ref_date_text(from, sizeof(from), first);
  ref_date_text(to, sizeof(to), last);
  ref_time_text(when, sizeof(when), *deadline);
  snprintf(count, sizeof(count), "%lld", (long long)booked);
  ref_log_info("game %lld: leave auto for %s: %s to %s", (long long)g->row.id, address, from, to);
  rc = ref_tell_seat(m, g, seat, due == REF_DUE_TIMEOUT ? "leave-auto-spent.txt"
                                                        : "leave-auto-taken.txt", extra, 5);
  if(rc)
    return -1;
  return due == REF_DUE_TIMEOUT ? 0 : 1;
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
  struct base_buf list;
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
  /* TM-8: the organiser's minimum booking (leave auto's single days are
   * the referee's, not a booking) */
  if(last - first + 1 < svc->cfg.vacation_min_days) {
    snprintf(detail, sizeof(detail), "%d", svc->cfg.vacation_min_days);
    return ref_refuse(m, g, seat, c->line, "vacation-too-short", detail, NULL);
  }
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
  base_buf_init(&list, 64 * 1024);
  if(ref_clock_refresh(svc, address, &list)) {
    base_buf_free(&list);
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
  base_buf_free(&list);
  return rc || tell_opponents(m, g, address, from_text, to_text);
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

/* timezone NAME | timezone off: the deadlines of this player's mails
 * shown in NAME's time too (TM-6); UTC stays the reference. */
static int do_timezone(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmd *c)
{
  char zone[72], local[48], utc[40], abbr[16];
  struct tpl_var extra[3] = {{"zone", zone}, {"local", local}, {"utc", utc}};
  int64_t offset, now = ref_now(m->svc);
  int off;

  if(sscanf(c->arg, "%71s", zone) != 1)
    return ref_refuse(m, g, seat, c->line, "timezone-syntax", c->arg, NULL);
  off = !strcasecmp(zone, "off") || !strcasecmp(zone, "UTC");
  if(!off && ref_zone_local(REF_ZONEINFO_DIR, zone, now, &offset, abbr, sizeof(abbr)))
    return ref_refuse(m, g, seat, c->line, "timezone-unknown", zone, NULL);
  if(store_timezone_set(m->svc->st, g->seats[seat].address, off ? "" : zone) != STORE_OK)
    return -1;
  m->changed = 1;
  ref_time_text(utc, sizeof(utc), now);
  ref_zone_time_text(local, sizeof(local), REF_ZONEINFO_DIR, zone, now);
  return ref_tell_seat(m, g, seat, off ? "timezone-off.txt" : "timezone-on.txt", extra, 3);
}

/* give N days: time added to the opponent's clock (rules-spec TM-7,
 * SchemingMind's "lifeline"): journaled as "time", shown in the history,
 * never taken back. */
static int do_give(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                   const struct ref_cmd *c)
{
  char amount[64], text[160], when[40] = "";
  const char *arg = c->arg;
  struct tpl_var extra[3] = {{"amount", amount}, {"deadline", when}, {"giver", ""}};
  int64_t secs, deadline;
  int other = 1 - seat;

  if(g->nseats != 2 || ref_duration_parse(arg, &secs) || secs > 60 * (int64_t)REF_DAY)
    return ref_refuse(m, g, seat, c->line, "give-syntax", arg, NULL);
  if(ref_clock_add(m->svc, g, other, secs, m->arrived, &deadline))
    return -1;
  ref_duration_text(amount, sizeof(amount), secs);
  snprintf(text, sizeof(text), "%s gave %s %s", g->desc->seat_names[seat],
           g->desc->seat_names[other], amount);
  if(ref_journal(m->svc, g, seat, "time", text, NULL))
    return -1;
  m->changed = 1;
  ref_log_info("game %lld: %s", (long long)g->row.id, text);
  if(deadline)
    ref_time_text(when, sizeof(when), deadline);
  extra[2].value = g->seats[seat].address;
  return ref_tell_seat(m, g, seat, "time-given.txt", extra, 3) ||
         ref_tell_seat(m, g, other, "time-received.txt", extra, 3);
}

static int do_claim_time(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmd *c)
{
  int64_t deadline;
  char when[40];
  int late, rc;

  /* lost on time as this very mail arrived (timeout=auto): the result
   * mail already says so */
  if(g->row.phase == STORE_GAME_FINISHED && m->changed)
    return 0;
  if(g->row.phase != STORE_GAME_ACTIVE)
    return ref_refuse(m, g, seat, c->line, g->row.phase == STORE_GAME_INVITED ? "not-started"
                                                                              : "game-over",
                      "", NULL);
  rc = ref_clock_claim(m->svc, g, seat, m->arrived, &late, &deadline);
  if(rc == 1)
    return ref_refuse(m, g, seat, c->line, "time-not-running", "", NULL);
  if(rc == 2) {
    ref_time_text(when, sizeof(when), deadline);
    return ref_refuse(m, g, seat, c->line, "time-not-up", when, NULL);
  }
  if(rc)
    return -1;
  return ref_lost_on_time(m, g, late, deadline, 1);
}

/* ---- the handlers (commands.h's table) ---- */

enum ref_rc ref_do_vacation(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_vacation(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_digest(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_digest(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_timezone(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_timezone(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_leave_auto(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_leave_auto(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_calendar(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_calendar(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_give(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_give(r->m, r->g, r->seat, c));
}

/* claim time checks the game's phase itself (clock.c says what is due) */
enum ref_rc ref_do_claim_time(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_claim_time(r->m, r->g, r->seat, c));
}
