/*
 * clock.c: a game's clock. Its control (days per move, Fischer, periods,
 * the double charge: clock_control.c, one driver per kind), weekends
 * counted or not, vacations; what is due when (reminders at half time, 3
 * days and 24 hours before the deadline, rules-spec TM-9; the loss on
 * time, automatic or claimed).
 *
 * The model. A game's clock runs for one seat at a time: the seat the
 * rules say must act. It restarts when that seat changes or a move is
 * journaled (a backgammon "roll" and the play after it share one period;
 * a draw offer does not buy time). Time is counted in seconds of whole UTC
 * days that count: a Saturday or Sunday does not when the game says
 * weekends=off, and a day of the running player's vacation never does, so
 * a vacation pauses that player's clock in every game. Each seat has a
 * bank (clock_control.c); the deadline is the moment the counted time
 * reaches what the running seat's bank allows (rules-spec TM-2: to the
 * second, no rounding to days). When the clock restarts, the seat whose
 * move ended is charged the counted time from the clock's start to its
 * mail's arrival (TM-1) and the control's driver refills its bank. Nothing
 * here trusts a cached deadline: every decision recounts from the clock's
 * start, so a vacation booked later moves the deadline at once.
 *
 * The clock tells nobody anything: it answers what is due (data), and
 * the layers above mail the players (docs/architecture.md, layer 4 "turns
 * and time"): the time commands and the loss on time are cmd_time.c's,
 * the time-driven work (ref_service_tick) is tick.c's, the deadline a
 * mail shows is views.c's, asking ref_clock_view. The date arithmetic is
 * pure and lives below, in calendar.c.
 */
#include "lifecycle_int.h"

#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY REF_DAY

/* ---- game options: days=N, weekends=on|off, time=..., double=on|off ---- */

/* The stored words of a control: "" for days per move without the double
 * charge (what every clock was before controls came in kinds). */
static void control_store(const struct ref_control *ctl, char *control, size_t cap)
{
  if(ref_control_is_per_move(ctl))
    snprintf(control, cap, "%s", ctl->dbl ? "double=on" : "");
  else
    ref_control_words(ctl, control, cap);
}

int ref_clock_option(const char *tok, int *days, int *weekends, char *control, size_t ccap)
{
  struct ref_control ctl;
  const char *v;
  char *end;
  long n;
  int rc;

  if(ref_control_parse(control, *days > 0 ? *days : 1, &ctl))
    ref_control_days(&ctl, *days > 0 ? *days : 1);
  if(!strncasecmp(tok, "days=", 5)) {
    v = tok + 5;
    n = strtol(v, &end, 10);
    if(!*v || *end || n < 1 || n > 365)
      return -1;
    *days = (int)n;
    /* days=N is days per move: the last word written says the control;
     * double=on stays */
    {
      int dbl = ctl.dbl;
      ref_control_days(&ctl, (int)n);
      ctl.dbl = dbl;
    }
    control_store(&ctl, control, ccap);
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
  rc = ref_control_word(tok, &ctl);
  if(rc != 1)
    return rc;
  /* time=7d is days=7 (TM-2): stored as days, so seeks match either */
  if(!strncasecmp(tok, "time=", 5) && ref_control_is_per_move(&ctl))
    *days = (int)ctl.base;
  control_store(&ctl, control, ccap);
  return 1;
}

/* The control of clock c; a row that does not read (it cannot: only
 * ref_clock_option's words are stored) counts as its days per move. */
static void control_of(const struct store_clock *c, struct ref_control *ctl)
{
  if(ref_control_parse(c->control, c->days, ctl)) {
    ref_log_warn("game %lld: clock control \"%s\" unreadable, counted as days per move",
                 (long long)c->game, c->control);
    ref_control_days(ctl, c->days);
  }
}

int ref_clock_create(struct ref_service *svc, int64_t game, int days, int weekends,
                     const char *control)
{
  struct store_clock c;
  struct ref_control ctl;
  memset(&c, 0, sizeof(c));
  c.game = game;
  c.days = days > 0 ? days : svc->cfg.days_per_move;
  c.weekends = (weekends >= 0 ? weekends : svc->cfg.weekends) != 0;
  c.seat = -1;
  c.next_event = -1;
  snprintf(c.control, sizeof(c.control), "%s", control ? control : "");
  /* the configuration's control when the game wrote neither days=N nor
   * time=... (TM-2); config.c refused one that does not read */
  if(days <= 0 && !strstr(c.control, "time=") && svc->cfg.time_control[0]) {
    char word[48];
    int d = 0, w = -1;
    snprintf(word, sizeof(word), "time=%s", svc->cfg.time_control);
    if(ref_clock_option(word, &d, &w, c.control, sizeof(c.control)) == 1 && d > 0)
      c.days = d;
  }
  if(ref_control_parse(c.control, c.days, &ctl))
    return -1;
  c.bank[0] = c.bank[1] = ref_control_initial(&ctl);
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

/* The counted seconds the running seat's move may last: what its bank
 * allows (TM-5: beyond 20 days charged double). */
static int64_t move_allowed(const struct store_clock *c)
{
  struct ref_control ctl;
  if(c->seat < 0 || c->seat > 1)
    return 0;
  control_of(c, &ctl);
  return ref_control_allowed(&ctl, c->bank[c->seat]);
}

/* Counted seconds used, the deadline and the seconds allowed of clock c
 * at `now`. */
static int clock_state_ex(struct ref_service *svc, const struct store_clock *c,
                          const char *address, int64_t now, int64_t *used, int64_t *deadline,
                          int64_t *allowed)
{
  struct ref_clock_rules r;
  struct store_vacation *vacs;
  if(rules_for(svc, c, address, &r, &vacs))
    return -1;
  *allowed = move_allowed(c);
  *used = ref_clock_counted(&r, c->started, now);
  *deadline = ref_clock_reach(&r, c->started, *allowed);
  free(vacs);
  return 0;
}

static int clock_state(struct ref_service *svc, const struct store_clock *c, const char *address,
                       int64_t now, int64_t *used, int64_t *deadline)
{
  int64_t allowed;
  return clock_state_ex(svc, c, address, now, used, deadline, &allowed);
}

/* The earliest moment something may fall due on clock c: the
 * first reminder not yet sent, or the deadline, reached by counting from
 * the clock's start under the rules r. -1 when nothing more can be due
 * (no clock runs; timeout=claim and the time-up notice went out). The tick
 * reads only the clocks whose time has come (store_clock_due). */
static int64_t next_event_under(const struct ref_service *svc, const struct store_clock *c,
                                const struct ref_clock_rules *r)
{
  int64_t total = move_allowed(c), need = -1;

  if(c->seat < 0)
    return -1;
  /* the thresholds of clock_due, the earliest still to come first */
  if(!(c->reminded & 1))
    need = total / 2;
  else if(total > 6 * DAY && !(c->reminded & 8))
    need = total - 3 * DAY;
  else if(total > 2 * DAY && !(c->reminded & 2))
    need = total - DAY;
  else if(svc->cfg.timeout == REF_TIMEOUT_AUTO || !(c->reminded & 4))
    need = total;
  return need < 0 ? -1 : ref_clock_reach(r, c->started, need);
}

/* The same counted without vacations: a vacation only ever moves these
 * moments later, so this is a lower bound that needs no player's list. */
static void set_next_event(const struct ref_service *svc, struct store_clock *c)
{
  struct ref_clock_rules r = {c->weekends, NULL, 0};
  c->next_event = next_event_under(svc, c, &r);
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
    c->next_event = -1;
    c->bank[0] = c->bank[1] = (int64_t)c->days * DAY;
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

/* Clock c as the game now stands, in memory: 1 when it (re)started for
 * `seat`, the seat whose move ended charged its counted time up to `at`
 * (its mail's arrival, not later than now: TM-1) and its bank refilled by
 * the control's driver; 0 when the same decision is still awaited. */
static int clock_advance(struct ref_service *svc, struct ref_game_ctx *g, struct store_clock *c,
                         int fresh, int seat, int64_t at)
{
  int64_t now = ref_now(svc), end;
  int p = c->seat;

  if(!fresh && c->seat == seat && c->moves == g->moves)
    return 0; /* the same decision is still awaited: the clock runs on */
  if(!fresh && p >= 0 && p < 2 && (size_t)p < g->nseats) {
    struct ref_control ctl;
    struct ref_clock_rules r;
    struct store_vacation *vacs;
    int64_t used;
    control_of(c, &ctl);
    end = at > now ? now : at;
    if(end < c->started)
      end = c->started;
    if(rules_for(svc, c, g->seats[p].address, &r, &vacs))
      return -1;
    used = ref_clock_counted(&r, c->started, end);
    free(vacs);
    c->done[p]++;
    c->bank[p] = ref_control_after(&ctl, c->bank[p], used, c->done[p]);
    /* a move accepted late (timeout=claim, nobody claimed) leaves no debt
     * against the next one */
    if(c->bank[p] < 0)
      c->bank[p] = 0;
  }
  c->seat = seat;
  c->moves = g->moves;
  /* The next decision's time starts when its player is told of this one,
   * i.e. now, not at the mail's arrival: a referee that was down costs no
   * player time, neither the one who moved (judged at arrival, see
   * ref_clock_overdue) nor the one who answers. */
  c->started = now;
  c->reminded = 0;
  return 1;
}

int ref_clock_sync_at(struct ref_service *svc, struct ref_game_ctx *g, int64_t at)
{
  struct store_clock c;
  int64_t used;
  int fresh, rc, seat = running_seat(g);

  if(clock_get(svc, &c, g->row.id, &fresh))
    return -1;
  if(seat < 0) {
    if(c.seat < 0 && !fresh)
      return 0;
    c.seat = -1;
    c.deadline = 0;
    c.next_event = -1;
    return store_clock_put(svc->st, &c) == STORE_OK ? 0 : -1;
  }
  /* the "move" entries journaled (game.c keeps the count: no
   * count(*) over the journal) */
  rc = clock_advance(svc, g, &c, fresh, seat, at);
  if(rc <= 0)
    return rc;
  if(clock_state(svc, &c, g->seats[seat].address, c.started, &used, &c.deadline))
    return -1;
  set_next_event(svc, &c);
  return store_clock_put(svc->st, &c) == STORE_OK ? 0 : -1;
}

int ref_clock_sync(struct ref_service *svc, struct ref_game_ctx *g)
{
  return ref_clock_sync_at(svc, g, ref_now(svc));
}

int ref_clock_show(struct ref_service *svc, struct ref_game_ctx *g, int64_t at,
                   struct ref_clock_shown *out)
{
  struct store_clock c;
  struct ref_control ctl;
  int64_t used, allowed, now = ref_now(svc);
  int fresh, seat = running_seat(g), i;

  memset(out, 0, sizeof(*out));
  out->running = -1;
  if(clock_get(svc, &c, g->row.id, &fresh))
    return -1;
  control_of(&c, &ctl);
  ref_control_text(&ctl, out->control, sizeof(out->control));
  snprintf(out->control + strlen(out->control), sizeof(out->control) - strlen(out->control),
           ", weekends %s", c.weekends ? "counted" : "not counted");
  for(i = 0; i < 2; i++) {
    out->left[i] = ref_control_allowed(&ctl, c.bank[i]);
    out->done[i] = c.done[i];
  }
  if(seat < 0)
    return 0;
  /* what ref_clock_sync_at will store once this mail's changes are saved */
  if(clock_advance(svc, g, &c, fresh, seat, at ? at : now) < 0 ||
     clock_state_ex(svc, &c, g->seats[seat].address, now, &used, &out->deadline, &allowed)) {
    memset(out, 0, sizeof(*out));
    out->running = -1;
    return -1;
  }
  for(i = 0; i < 2; i++) {
    out->left[i] = ref_control_allowed(&ctl, c.bank[i]);
    out->done[i] = c.done[i];
  }
  out->left[seat] = allowed > used ? allowed - used : 0;
  out->running = seat;
  return 0;
}

/* ---- loss on time ---- */

int ref_clock_end(struct ref_service *svc, struct ref_game_ctx *g, int loser, int64_t deadline,
                  int claimed)
{
  char text[160], when[40];
  int winner = 1 - loser;

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
  ref_log_info("game %lld: %s", (long long)g->row.id, g->row.result);
  return 0;
}

int ref_clock_overdue(struct ref_service *svc, struct ref_game_ctx *g, int64_t at, int *late,
                      int64_t *deadline)
{
  struct store_clock c;
  int64_t used;
  int fresh, seat = running_seat(g);

  if(seat < 0 || svc->cfg.timeout != REF_TIMEOUT_AUTO)
    return 0;
  if(clock_get(svc, &c, g->row.id, &fresh))
    return -1;
  if(fresh || c.seat != seat)
    return 0;
  if(clock_state(svc, &c, g->seats[seat].address, at, &used, deadline))
    return -1;
  /* A mail that arrives after the deadline finds the game lost on time,
   * even if no tick has run since; one that arrived before it is on time
   * however late it is read (its arrival, not "now"): the ruling
   * may not depend on when the daemon looked. */
  *late = seat;
  return used >= move_allowed(&c) ? 1 : 0;
}

int ref_clock_claim(struct ref_service *svc, struct ref_game_ctx *g, int seat, int64_t at,
                    int *late, int64_t *deadline)
{
  struct store_clock k;
  int64_t used;
  int fresh;

  *late = running_seat(g);
  if(*late < 0 || *late == seat)
    return 1;
  if(clock_get(svc, &k, g->row.id, &fresh))
    return -1;
  if(fresh || k.seat != *late)
    return 1;
  if(clock_state(svc, &k, g->seats[*late].address, at, &used, deadline))
    return -1;
  /* Once the time-up notice went out the time stays up: a vacation
   * booked afterwards cannot take back a claim the opponent was offered. */
  if(used < move_allowed(&k) && !(k.reminded & 4))
    return 2;
  if(*deadline < k.started)
    *deadline = k.started;
  return 0;
}

/* ---- time given ---- */

int ref_clock_add(struct ref_service *svc, struct ref_game_ctx *g, int seat, int64_t seconds,
                  int64_t at, int64_t *deadline)
{
  struct store_clock c;
  int64_t used;
  int fresh, running = running_seat(g);

  *deadline = 0;
  if(seat < 0 || seat > 1 || clock_get(svc, &c, g->row.id, &fresh))
    return -1;
  /* the mail's own changes first (a move in the same mail) */
  if(running >= 0 && clock_advance(svc, g, &c, fresh, running, at ? at : ref_now(svc)) < 0)
    return -1;
  c.bank[seat] += seconds;
  if(running >= 0 && c.seat == seat) {
    if(clock_state(svc, &c, g->seats[seat].address, ref_now(svc), &used, &c.deadline))
      return -1;
    *deadline = c.deadline;
  }
  set_next_event(svc, &c);
  return store_clock_put(svc->st, &c) == STORE_OK ? 0 : -1;
}

/* ---- after a vacation ---- */

/* Recomputes the cached deadlines of every game whose clock runs for
 * `address` (after a vacation), listing them for the reply. */
int ref_clock_refresh(struct ref_service *svc, const char *address, struct base_buf *list)
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
      if(base_buf_printf(list, "Game %lld: your deadline is now %s.\n", (long long)ids[i], when))
        rc = -1;
    }
    free(seats);
  }
  free(ids);
  return rc;
}

/* ---- what is due (the tick, tick.c) ---- */

static enum ref_clock_due clock_due(const struct ref_service *svc, const struct store_clock *c,
                                    int64_t used)
{
  int64_t total = move_allowed(c);
  if(used >= total)
    return svc->cfg.timeout == REF_TIMEOUT_AUTO ? REF_DUE_TIMEOUT
           : (c->reminded & 4)                 ? REF_DUE_NONE
                                               : REF_DUE_TIME_UP;
  /* The reminders escalate (TM-9): half time, 3 days before, 24 hours
   * before, each once; one that would fall at or before half time is
   * left out (the last day when the move has two days or less, the last
   * three days when it has six or less). */
  if(total > 2 * DAY && used >= total - DAY)
    return (c->reminded & 2) ? REF_DUE_NONE : REF_DUE_DAY;
  if(total > 6 * DAY && used >= total - 3 * DAY)
    return (c->reminded & 8) ? REF_DUE_NONE : REF_DUE_THREE;
  if(used >= total / 2)
    return (c->reminded & 1) ? REF_DUE_NONE : REF_DUE_HALF;
  return REF_DUE_NONE;
}

enum ref_clock_due ref_clock_due_of(struct ref_service *svc, const struct store_clock *c,
                                    int64_t now)
{
  struct store_seat *seats = NULL;
  size_t ns = 0;
  int64_t used, deadline;
  enum ref_clock_due due = REF_DUE_NONE;
  if(store_seat_list(svc->st, &seats, &ns, c->game) == STORE_OK && (size_t)c->seat < ns &&
     !clock_state(svc, c, seats[c->seat].address, now, &used, &deadline))
    due = clock_due(svc, c, used);
  free(seats);
  return due;
}

int ref_clock_due_now(struct ref_service *svc, struct ref_game_ctx *g, int64_t now, int *seat,
                      int64_t *deadline, enum ref_clock_due *due)
{
  struct store_clock c;
  int64_t used;
  int fresh;

  *due = REF_DUE_NONE;
  *seat = running_seat(g);
  if(clock_get(svc, &c, g->row.id, &fresh))
    return -1;
  if(*seat < 0 || fresh || c.seat != *seat)
    return 0;
  if(clock_state(svc, &c, g->seats[*seat].address, now, &used, deadline))
    return -1;
  *due = clock_due(svc, &c, used);
  return 0;
}

int ref_clock_reminded(struct ref_service *svc, int64_t game, enum ref_clock_due due,
                       int64_t deadline)
{
  struct store_clock c;
  int fresh;
  if(clock_get(svc, &c, game, &fresh))
    return -1;
  /* the bits say which notices went out: 1 half time, 8 three days
   * left, 2 the last day, 4 time up (timeout=claim); a later one implies
   * the earlier */
  c.reminded |= due == REF_DUE_HALF    ? 1
                : due == REF_DUE_THREE ? 1 | 8
                : due == REF_DUE_DAY   ? 1 | 8 | 2
                                       : 1 | 8 | 2 | 4;
  c.deadline = deadline;
  set_next_event(svc, &c);
  return store_clock_put(svc->st, &c) == STORE_OK ? 0 : -1;
}

int64_t ref_clock_next_event(struct ref_service *svc, const struct store_clock *c)
{
  struct store_seat *seats = NULL;
  struct store_vacation *vacs = NULL;
  struct ref_clock_rules r;
  size_t ns = 0;
  int64_t next = 0; /* cannot tell: look again at the next tick */

  if(store_seat_list(svc->st, &seats, &ns, c->game) == STORE_OK && c->seat >= 0 &&
     (size_t)c->seat < ns && !rules_for(svc, c, seats[c->seat].address, &r, &vacs))
    next = next_event_under(svc, c, &r);
  free(vacs);
  free(seats);
  return next;
}
