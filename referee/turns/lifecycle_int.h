/*
 * lifecycle_int.h: layer 4 of the service, "turns and time"
 * (docs/architecture.md): what happens between the players' decisions
 * (turns.c: rolls, forced plays; lag.c: Lag Backgammon Chess's private
 * dice) and a game's clock (clock.c). Calls only layers 1 to 3. The clock
 * tells nobody: it answers what is due, and the handlers above mail it.
 */
#ifndef TABULA_LIFECYCLE_INT_H
#define TABULA_LIFECYCLE_INT_H

#include "calendar_int.h"
#include "game_int.h"

/* Between decisions (turns.c): roll, play forced turns, until a player
 * must decide. Lines for the mails go to `shown`. */
int ref_game_advance(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct base_buf *shown);
int ref_game_roll_now(struct ref_msg_ctx *m, struct ref_game_ctx *g, struct base_buf *shown);
/* A player's standing "roll" (rules-spec §1.6), used at their next cube
 * question. */
int ref_autoroll_set(struct ref_service *svc, int64_t game, int seat, int on);
/* 1 when the seat's standing "roll" waits to be used, 0 when not, -1 on a
 * store error. */
int ref_autoroll_get(struct ref_service *svc, int64_t game, int seat);
/* A player's standing answer to the opponent's next double
 * ("if double then take|drop"): REF_CUBE_ANSWER_* , kept in the store (cube_answers) until used
 * or cleared. get: the answer, -1 on a store error. */
enum { REF_CUBE_ANSWER_NONE = 0, REF_CUBE_ANSWER_TAKE = 1, REF_CUBE_ANSWER_DROP = 2 };
int ref_cube_answer_set(struct ref_service *svc, int64_t game, int seat, int answer);
int ref_cube_answer_get(struct ref_service *svc, int64_t game, int seat);

/* Lag Backgammon Chess (lag.c, rules-spec 6.9): mails each player, privately,
 * the faces of their next L rolls not yet mailed. 0 for other games. */
int ref_lag_mail(struct ref_msg_ctx *m, struct ref_game_ctx *g);

/* The kinds of time control (clock_control.c, rules-spec TM-2 to TM-5):
 * one driver per kind, each seat's bank kept by clock.c. */
struct ref_control_kind;
struct ref_control {
  const struct ref_control_kind *kind;
  int64_t base;  /* days: per move, Fischer's start, a period's */
  int64_t inc;   /* Fischer: days added after each move */
  int moves;     /* periods: moves in a period */
  int dbl;       /* TM-5: beyond 20 days on one move charged double */
};
/* Days per move, no double charge. */
void ref_control_days(struct ref_control *ctl, int days);
/* One word: `time=7d` / `time=30d+1d` / `time=10/50d` / `double=on|off`:
 * 1 taken (ctl changed), 0 not such a word, -1 a bad value (ctl kept). */
int ref_control_word(const char *tok, struct ref_control *ctl);
/* The stored words ("time=30d+1d;double=on", "" for days per move) over
 * `days` per move; -1 when they do not read. */
int ref_control_parse(const char *words, int days, struct ref_control *ctl);
/* The control as stored words, "time=30d+1d;double=on". */
void ref_control_words(const struct ref_control *ctl, char *buf, size_t cap);
int ref_control_is_per_move(const struct ref_control *ctl);
const char *ref_control_kind_name(const struct ref_control *ctl);
/* As a player reads it: "30 days + 1 day per move". */
void ref_control_text(const struct ref_control *ctl, char *buf, size_t cap);
/* A seat's bank at the start of the game, in counted seconds. */
int64_t ref_control_initial(const struct ref_control *ctl);
/* Counted seconds used on one move -> seconds charged (TM-5). */
int64_t ref_control_charge(const struct ref_control *ctl, int64_t used);
/* The counted seconds a move may last with `bank` left (the inverse). */
int64_t ref_control_allowed(const struct ref_control *ctl, int64_t bank);
/* The bank after the seat's done-th move, which lasted `used`. */
int64_t ref_control_after(const struct ref_control *ctl, int64_t bank, int64_t used,
                          int64_t done);
/* "3 days 4 hours", "5 hours 10 minutes". */
void ref_duration_text(char *buf, size_t cap, int64_t seconds);
/* "3d", "12h", "1d12h", "3 days": 0 and the seconds (at most 365 days),
 * -1 when it does not read. */
int ref_duration_parse(const char *s, int64_t *secs);

/* A player's time zone (clock_zone.c, rules-spec TM-6): a tz database
 * name that names no path outside the database; the local offset (seconds
 * east of UT) and abbreviation of t in zone `name` read from `dir`
 * ("/usr/share/zoneinfo"), -1 when the zone does not read; and t as
 * "2026-11-30 10:00 CET" ("" when it does not). */
#define REF_ZONEINFO_DIR "/usr/share/zoneinfo"
int ref_zone_name_ok(const char *name);
int ref_zone_local(const char *dir, const char *name, int64_t t, int64_t *offset, char *abbr,
                   size_t acap);
void ref_zone_time_text(char *buf, size_t cap, const char *dir, const char *name, int64_t t);

/* The clock (clock.c). A `new` option word: 1 taken (days=N,
 * weekends=on|off, time=..., double=on|off), 0 not a clock option, -1 a
 * clock option with a bad value. `control` gathers the words other than
 * days per move, as stored ("time=30d+1d;double=on"); `time=7d` is days=7. */
int ref_clock_option(const char *tok, int *days, int *weekends, char *control, size_t ccap);
int ref_clock_create(struct ref_service *svc, int64_t game, int days, int weekends,
                     const char *control);

/* A game's terms as written after its name in `new`, `seek` and
 * `tournament` (terms.c: read once). */
struct ref_terms {
  int seat;         /* `as SEAT`: the writer's seat, -1 when not written */
  int priv;         /* private: nobody may observe */
  int pub;          /* public-comments: observers see the words */
  int unrated;      /* unrated: counts for no rating */
  int days;         /* days=N, 0 when not written (the configured default) */
  int weekends;     /* weekends=on|off, -1 when not written */
  char control[64]; /* time=... and double=..., as stored (clock.c) */
  char opts[256];   /* the rules' options, "key=value;..." */
  int pending_as;   /* `as` read, its seat not yet */
};
void ref_terms_init(struct ref_terms *t);
/* One word of the terms: REF_RC_OK taken; REF_RC_PASS no word of the
 * terms (the caller's own word, or a bad option); REF_RC_REFUSED,
 * err->reason and err->detail say why (bad-seat, bad-clock-option,
 * options-too-long). */
enum ref_rc ref_terms_word(const struct ref_game_desc *d, struct ref_terms *t, const char *tok,
                           struct ref_err *err);
/* Whether the rules' options make a game: REF_RC_OK yes; REF_RC_REFUSED
 * no, with the rules' own reason in err (or bad-option); REF_RC_FAIL out
 * of memory. */
enum ref_rc ref_terms_check(const struct ref_game_desc *d, const char *opts,
                            struct ref_err *err);
/* The terms a round robin's every game is made with, from `tournament`
 * by mail and `tabula tournament new` alike (rules-spec MX-5). */
struct ref_tournament_spec;
void ref_terms_to_tournament(const struct ref_terms *t, struct ref_tournament_spec *spec);
/* After a mail changed a game: restart the clock if another decision is now
 * awaited. */
int ref_clock_sync(struct ref_service *svc, struct ref_game_ctx *g);
/* The same, charging the seat that moved up to `at` (its mail's arrival,
 * TM-1) rather than now. */
int ref_clock_sync_at(struct ref_service *svc, struct ref_game_ctx *g, int64_t at);
/* For a mail's view: the time control ("7 days per move, weekends
 * counted"), the seat whose time runs (-1 none) and its deadline, and the
 * counted time each seat has left (the running seat's up to its deadline,
 * the other's for its next move), as the game will stand once this mail's
 * changes are saved with ref_clock_sync_at(`at`) (0: now). -1 on a store
 * failure. */
struct ref_clock_shown {
  char control[160];
  int running;
  int64_t deadline;
  int64_t left[2];
  int64_t done[2]; /* moves each seat made on this clock */
};
int ref_clock_show(struct ref_service *svc, struct ref_game_ctx *g, int64_t at,
                   struct ref_clock_shown *out);
/* Before a mail's commands (timeout=auto): 1 when the running seat's time
 * was up at `at` (the mail's arrival; *late that seat, *deadline
 * when it ran out), 0 when not, -1 on a store error. */
int ref_clock_overdue(struct ref_service *svc, struct ref_game_ctx *g, int64_t at, int *late,
                      int64_t *deadline);
/* `claim time` by `seat`, judged at `at` (the claim's arrival):
 * 0 when the opponent's time is up (*late, and *deadline when it ran out),
 * 1 when no time runs against another seat, 2 when it is not up yet
 * (*deadline: when it will be), -1 on error. */
int ref_clock_claim(struct ref_service *svc, struct ref_game_ctx *g, int seat, int64_t at,
                    int *late, int64_t *deadline);
/* The game lost on time by `loser`: journaled ("timeout"), finished, the
 * clock stopped. Tells nobody: the caller mails timeout.txt. */
int ref_clock_end(struct ref_service *svc, struct ref_game_ctx *g, int loser, int64_t deadline,
                  int claimed);
/* Time given (`give`, rules-spec TM-7; the operator's `tabula time GAME
 * add`): `seconds` added to the seat's bank (after the changes of a mail
 * that arrived `at`, 0: now), its deadline moved when its
 * time runs (*deadline then, else 0). The reminders already sent stay
 * sent. Never taken back. -1 on a store error. */
int ref_clock_add(struct ref_service *svc, struct ref_game_ctx *g, int seat, int64_t seconds,
                  int64_t at, int64_t *deadline);
/* After a vacation: the deadlines of every game whose clock runs for
 * `address` recomputed, one line each in `list`. */
int ref_clock_refresh(struct ref_service *svc, const char *address, struct base_buf *list);
/* What a running clock owes (tick.c): nothing, a reminder, the loss on
 * time (timeout=auto) or the time-up notice (timeout=claim). */
enum ref_clock_due {
  REF_DUE_NONE,
  REF_DUE_HALF,
  REF_DUE_THREE, /* three days left (TM-9) */
  REF_DUE_DAY,
  REF_DUE_TIMEOUT,
  REF_DUE_TIME_UP
};
/* From the stored clock alone, cheaply, outside any transaction. */
enum ref_clock_due ref_clock_due_of(struct ref_service *svc, const struct store_clock *c,
                                    int64_t now);
/* Inside the transaction, on the game as it is now: what is due, for which
 * seat, and its deadline. */
int ref_clock_due_now(struct ref_service *svc, struct ref_game_ctx *g, int64_t now, int *seat,
                      int64_t *deadline, enum ref_clock_due *due);
/* Records that the notice for `due` went out (so it goes once). */
/* When something next falls due on clock c, counting the running
 * player's vacations (the stored next_event counts none: a lower bound);
 * -1 never, 0 when it cannot be read (look again). */
int64_t ref_clock_next_event(struct ref_service *svc, const struct store_clock *c);
int ref_clock_reminded(struct ref_service *svc, int64_t game, enum ref_clock_due due,
                       int64_t deadline);

#endif
