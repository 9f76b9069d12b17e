/*
 * clock_control.c: the kinds of time control, one driver each (rules-spec
 * TM-2 to TM-5): days per move, Fischer (`time=30d+1d`), periods
 * (`time=10/50d`), and the ICCF double charge (`double=on`) that either
 * may carry. Pure: no store, no clock, no mail; clock.c keeps each seat's
 * bank and asks the driver what a move leaves in it.
 *
 * The model, for every kind: each seat has a bank, the counted seconds it
 * may use from the start of its next (or current) move; the running
 * seat's deadline is where its counted time used reaches what the bank
 * allows (TM-5: more than 20 days on one move are charged double). After
 * a move the driver says what the bank holds: days per move, the same
 * days again; Fischer, what was left plus the increment; periods, what was
 * left, plus a new period's days after every N-th move (ICCF art. 2.4.2:
 * unused time carries into the next period). Time given (`give`, the
 * operator's `tabula time GAME add`) is added to a bank; with days per
 * move it lasts until the seat's next move is made.
 */
#include "lifecycle_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DAY REF_DAY
/* ICCF rules art. 2.4.2: reflection beyond 20 days on one move is
 * charged double (TM-5). */
#define DOUBLE_AFTER (20 * (int64_t)DAY)

/* "N" followed by "d": whole days, 1..max (0 when zero_ok). */
static const char *read_days(const char *s, int64_t *days, int zero_ok, long max)
{
  char *end;
  long n;
  if(*s < '0' || *s > '9')
    return NULL;
  n = strtol(s, &end, 10);
  if((end[0] != 'd' && end[0] != 'D') || n > max || n < (zero_ok ? 0 : 1))
    return NULL;
  *days = n;
  return end + 1;
}

static void days_text(char *buf, size_t cap, int64_t days)
{
  snprintf(buf, cap, "%lld day%s", (long long)days, days == 1 ? "" : "s");
}

/* ---- days per move ---- */

static int per_move_parse(const char *v, struct ref_control *ctl)
{
  const char *end = read_days(v, &ctl->base, 0, 365);
  return end && !*end;
}

static void per_move_word(const struct ref_control *ctl, char *buf, size_t cap)
{
  snprintf(buf, cap, "%lldd", (long long)ctl->base);
}

static void per_move_text(const struct ref_control *ctl, char *buf, size_t cap)
{
  char d[24];
  days_text(d, sizeof(d), ctl->base);
  snprintf(buf, cap, "%s per move", d);
}

static int64_t per_move_after(const struct ref_control *ctl, int64_t bank, int64_t charged,
                              int64_t done)
{
  (void)bank, (void)charged, (void)done;
  return ctl->base * DAY;
}

/* ---- Fischer: a bank, emptied by the time used, filled by the increment ---- */

static int fischer_parse(const char *v, struct ref_control *ctl)
{
  const char *p = read_days(v, &ctl->base, 0, 365);
  if(!p || *p != '+')
    return 0;
  p = read_days(p + 1, &ctl->inc, 1, 60);
  return p && !*p;
}

static void fischer_word(const struct ref_control *ctl, char *buf, size_t cap)
{
  snprintf(buf, cap, "%lldd+%lldd", (long long)ctl->base, (long long)ctl->inc);
}

static void fischer_text(const struct ref_control *ctl, char *buf, size_t cap)
{
  char b[24], i[24];
  days_text(b, sizeof(b), ctl->base);
  days_text(i, sizeof(i), ctl->inc);
  snprintf(buf, cap, "%s + %s per move", b, i);
}

static int64_t fischer_after(const struct ref_control *ctl, int64_t bank, int64_t charged,
                             int64_t done)
{
  (void)done;
  return bank - charged + ctl->inc * DAY;
}

/* ---- periods: N moves in D days, unused time carried forward ---- */

static int periods_parse(const char *v, struct ref_control *ctl)
{
  char *end;
  long n;
  const char *p;
  if(*v < '0' || *v > '9')
    return 0;
  n = strtol(v, &end, 10);
  if(*end != '/' || n < 1 || n > 100)
    return 0;
  ctl->moves = (int)n;
  p = read_days(end + 1, &ctl->base, 0, 365);
  return p && !*p;
}

static void periods_word(const struct ref_control *ctl, char *buf, size_t cap)
{
  snprintf(buf, cap, "%d/%lldd", ctl->moves, (long long)ctl->base);
}

static void periods_text(const struct ref_control *ctl, char *buf, size_t cap)
{
  char d[24];
  days_text(d, sizeof(d), ctl->base);
  snprintf(buf, cap, "%d move%s in %s, unused time carried forward", ctl->moves,
           ctl->moves == 1 ? "" : "s", d);
}

static int64_t periods_after(const struct ref_control *ctl, int64_t bank, int64_t charged,
                             int64_t done)
{
  bank -= charged;
  /* the N-th, 2N-th ... move ends a period: the next one's days are
   * added to what is left (ICCF art. 2.4.2, TM-3) */
  if(done % ctl->moves == 0)
    bank += ctl->base * DAY;
  return bank;
}

/* ---- the table ---- */

struct ref_control_kind {
  const char *name; /* for the operator and the logs */
  int (*parse)(const char *v, struct ref_control *ctl);
  void (*word)(const struct ref_control *ctl, char *buf, size_t cap);
  void (*text)(const struct ref_control *ctl, char *buf, size_t cap);
  /* the bank after a move that was the seat's done-th and was charged
   * `charged` counted seconds */
  int64_t (*after)(const struct ref_control *ctl, int64_t bank, int64_t charged, int64_t done);
};

/* Fischer and periods first: "30d" alone is days per move. */
static const struct ref_control_kind kinds[] = {
  {"fischer", fischer_parse, fischer_word, fischer_text, fischer_after},
  {"periods", periods_parse, periods_word, periods_text, periods_after},
  {"per-move", per_move_parse, per_move_word, per_move_text, per_move_after},
};

static const struct ref_control_kind *kind_of(const char *v, struct ref_control *ctl)
{
  size_t i;
  for(i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
    struct ref_control probe = *ctl;
    if(kinds[i].parse(v, &probe)) {
      *ctl = probe;
      return &kinds[i];
    }
  }
  return NULL;
}

void ref_control_days(struct ref_control *ctl, int days)
{
  memset(ctl, 0, sizeof(*ctl));
  ctl->kind = &kinds[2];
  ctl->base = days;
}

int ref_control_word(const char *tok, struct ref_control *ctl)
{
  if(!strncasecmp(tok, "time=", 5)) {
    struct ref_control probe = *ctl;
    const struct ref_control_kind *k = kind_of(tok + 5, &probe);
    if(!k)
      return -1;
    probe.kind = k;
    *ctl = probe;
    return 1;
  }
  if(!strncasecmp(tok, "double=", 7)) {
    const char *v = tok + 7;
    if(!strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcmp(v, "1"))
      ctl->dbl = 1;
    else if(!strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcmp(v, "0"))
      ctl->dbl = 0;
    else
      return -1;
    return 1;
  }
  return 0;
}

int ref_control_parse(const char *words, int days, struct ref_control *ctl)
{
  char copy[128], *save = NULL, *tok;
  ref_control_days(ctl, days);
  snprintf(copy, sizeof(copy), "%s", words ? words : "");
  for(tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
    if(ref_control_word(tok, ctl) != 1)
      return -1;
  return 0;
}

void ref_control_words(const struct ref_control *ctl, char *buf, size_t cap)
{
  char w[48];
  ctl->kind->word(ctl, w, sizeof(w));
  snprintf(buf, cap, "time=%s%s", w, ctl->dbl ? ";double=on" : "");
}

int ref_control_is_per_move(const struct ref_control *ctl)
{
  return ctl->kind == &kinds[2];
}

const char *ref_control_kind_name(const struct ref_control *ctl)
{
  return ctl->kind->name;
}

void ref_control_text(const struct ref_control *ctl, char *buf, size_t cap)
{
  ctl->kind->text(ctl, buf, cap);
  if(ctl->dbl)
    snprintf(buf + strlen(buf), cap - strlen(buf), ", more than 20 days on one move charged double");
}

int64_t ref_control_initial(const struct ref_control *ctl)
{
  return ctl->base * DAY;
}

/* TM-5: the first 20 days of a move count once, the rest twice. */
int64_t ref_control_charge(const struct ref_control *ctl, int64_t used)
{
  if(used < 0)
    return 0;
  if(!ctl->dbl || used <= DOUBLE_AFTER)
    return used;
  return DOUBLE_AFTER + 2 * (used - DOUBLE_AFTER);
}

int64_t ref_control_allowed(const struct ref_control *ctl, int64_t bank)
{
  if(bank <= 0)
    return 0;
  if(!ctl->dbl || bank <= DOUBLE_AFTER)
    return bank;
  return DOUBLE_AFTER + (bank - DOUBLE_AFTER) / 2;
}

int64_t ref_control_after(const struct ref_control *ctl, int64_t bank, int64_t used,
                          int64_t done)
{
  return ctl->kind->after(ctl, bank, ref_control_charge(ctl, used), done);
}

void ref_duration_text(char *buf, size_t cap, int64_t s)
{
  int64_t d, h, mi;
  if(s < 0)
    s = 0;
  d = s / DAY;
  h = s % DAY / 3600;
  mi = s % 3600 / 60;
  if(d && h)
    snprintf(buf, cap, "%lld day%s %lld hour%s", (long long)d, d == 1 ? "" : "s", (long long)h,
             h == 1 ? "" : "s");
  else if(d)
    snprintf(buf, cap, "%lld day%s", (long long)d, d == 1 ? "" : "s");
  else if(h)
    snprintf(buf, cap, "%lld hour%s %lld minute%s", (long long)h, h == 1 ? "" : "s",
             (long long)mi, mi == 1 ? "" : "s");
  else
    snprintf(buf, cap, "%lld minute%s", (long long)mi, mi == 1 ? "" : "s");
}

/* "3d", "12h", "1d12h", "3 days", "1 day", "36 hours": 0 and seconds,
 * -1 when it is none of those or more than 365 days. */
int ref_duration_parse(const char *s, int64_t *secs)
{
  int64_t total = 0, n;
  int parts = 0;
  char *end;
  while(*s == ' ')
    s++;
  while(*s) {
    if(*s < '0' || *s > '9')
      return -1;
    n = strtoll(s, &end, 10);
    if(n < 0 || n > 365 * 24)
      return -1;
    while(*end == ' ')
      end++;
    if(!strncasecmp(end, "days", 4))
      total += n * DAY, end += 4;
    else if(!strncasecmp(end, "day", 3))
      total += n * DAY, end += 3;
    else if(!strncasecmp(end, "hours", 5))
      total += n * 3600, end += 5;
    else if(!strncasecmp(end, "hour", 4))
      total += n * 3600, end += 4;
    else if(*end == 'd' || *end == 'D')
      total += n * DAY, end++;
    else if(*end == 'h' || *end == 'H')
      total += n * 3600, end++;
    else
      return -1;
    while(*end == ' ')
      end++;
    s = end;
    parts++;
  }
  if(!parts || total <= 0 || total > 365 * (int64_t)DAY)
    return -1;
  *secs = total;
  return 0;
}
