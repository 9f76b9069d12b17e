/*
 * calendar.c: the pure date arithmetic of the clock. Days are
 * whole UTC days since 1970-01-01, computed with H. Hinnant's
 * civil-calendar formulas (no clock, no locale, no timegm), and "counted"
 * time: the seconds of the days that count (not Saturdays and Sundays when
 * weekends are off, never a vacation day). No store, no service: the
 * bottom layer (docs/architecture.md), tested alone (test_clock.c).
 */
#include "calendar_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

/* A bound on every day-by-day walk: no deadline lies 300 years away. */
#define WALK_MAX_DAYS 110000

/* ---- pure date arithmetic ---- */

int64_t ref_day_of(int64_t t)
{
  return t >= 0 ? t / REF_DAY : -((-t + REF_DAY - 1) / REF_DAY);
}

static int64_t days_from_civil(int64_t y, int m, int d)
{
  int64_t era, yoe, doy, doe;
  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = y - era * 400;
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int *y, int *m, int *d)
{
  int64_t era, doe, yoe, doy, mp;
  z += 719468;
  era = (z >= 0 ? z : z - 146096) / 146097;
  doe = z - era * 146097;
  yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = (int)(yoe + era * 400 + (*m <= 2));
}

int ref_year_of_day(int64_t day)
{
  int y, m, d;
  civil_from_days(day, &y, &m, &d);
  return y;
}

/* 0 Sunday .. 6 Saturday; 1970-01-01 was a Thursday. */
int ref_weekday(int64_t day)
{
  int64_t w = (day + 4) % 7;
  return (int)(w < 0 ? w + 7 : w);
}

/* Exactly YYYY-MM-DD, a real date from 1970 to 9999. */
int ref_date_parse(const char *s, int64_t *day)
{
  static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int y, m, d, i, leap;
  for(i = 0; i < 10; i++) {
    if(i == 4 || i == 7) {
      if(s[i] != '-')
        return -1;
    }
    else if(!isdigit((unsigned char)s[i]))
      return -1;
  }
  if(s[10])
    return -1;
  y = atoi(s);
  m = atoi(s + 5);
  d = atoi(s + 8);
  leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  if(y < 1970 || m < 1 || m > 12 || d < 1 || d > mdays[m - 1] || (m == 2 && d == 29 && !leap))
    return -1;
  *day = days_from_civil(y, m, d);
  return 0;
}

void ref_date_text(char *buf, size_t cap, int64_t day)
{
  int y, m, d;
  civil_from_days(day, &y, &m, &d);
  snprintf(buf, cap, "%04d-%02d-%02d", y, m, d);
}

/* ISO 8601 date and time, always UTC: "2026-11-30 09:00 UTC". */
void ref_time_text(char *buf, size_t cap, int64_t t)
{
  char date[16];
  int64_t s = t - ref_day_of(t) * REF_DAY;
  ref_date_text(date, sizeof(date), ref_day_of(t));
  snprintf(buf, cap, "%s %02d:%02d UTC", date, (int)(s / 3600), (int)(s / 60 % 60));
}

/* ---- counted time ---- */

static int day_counts(const struct ref_clock_rules *r, int64_t day)
{
  size_t i;
  int w;
  if(!r->weekends) {
    w = ref_weekday(day);
    if(w == 0 || w == 6)
      return 0;
  }
  for(i = 0; i < r->nvac; i++)
    if(day >= r->vac[i].first_day && day <= r->vac[i].last_day)
      return 0;
  return 1;
}

int64_t ref_clock_counted(const struct ref_clock_rules *r, int64_t from, int64_t to)
{
  int64_t total = 0, day, n = 0;
  for(day = ref_day_of(from); from < to && n < WALK_MAX_DAYS; day++, n++) {
    int64_t end = (day + 1) * REF_DAY;
    int64_t seg_end = end < to ? end : to;
    if(day_counts(r, day))
      total += seg_end - from;
    from = seg_end;
  }
  return total;
}

int64_t ref_clock_reach(const struct ref_clock_rules *r, int64_t from, int64_t need)
{
  int64_t day, n = 0;
  if(need <= 0)
    return from;
  for(day = ref_day_of(from); n < WALK_MAX_DAYS; day++, n++) {
    int64_t end = (day + 1) * REF_DAY;
    if(day_counts(r, day)) {
      if(end - from >= need)
        return from + need;
      need -= end - from;
    }
    from = end;
  }
  return INT64_MAX;
}

/* Days of [first, last] that fall in calendar year y. */
int64_t ref_days_in_year(int64_t first, int64_t last, int y)
{
  int64_t lo = days_from_civil(y, 1, 1), hi = days_from_civil(y, 12, 31);
  if(first > lo)
    lo = first;
  if(last < hi)
    hi = last;
  return hi >= lo ? hi - lo + 1 : 0;
}
