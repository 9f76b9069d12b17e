/*
 * calendar_int.h: dates and counted time (calendar.c), layer 1 "base" of
 * docs/architecture.md: pure, below everything that holds a store or sends
 * mail. Dates are whole UTC days since 1970-01-01.
 */
#ifndef TABULA_CALENDAR_INT_H
#define TABULA_CALENDAR_INT_H

#include "store.h"

#include <stddef.h>
#include <stdint.h>

#define REF_DAY 86400 /* seconds */

/* What counts on one player's clock. */
struct ref_clock_rules {
  int weekends;                     /* Saturdays and Sundays count */
  const struct store_vacation *vac; /* days that never count */
  size_t nvac;
};
int64_t ref_day_of(int64_t t);
int ref_weekday(int64_t day); /* 0 Sunday .. 6 Saturday */
int ref_year_of_day(int64_t day);
int ref_date_parse(const char *s, int64_t *day); /* exactly YYYY-MM-DD; 0 or -1 */
void ref_date_text(char *buf, size_t cap, int64_t day);
void ref_time_text(char *buf, size_t cap, int64_t t); /* "2026-11-30 09:00 UTC" */
/* Days of [first, last] that fall in calendar year y (a vacation's share of
 * one year's allowance). */
int64_t ref_days_in_year(int64_t first, int64_t last, int y);
/* Counted seconds in [from, to); the moment `need` counted seconds after from
 * (INT64_MAX if never). */
int64_t ref_clock_counted(const struct ref_clock_rules *r, int64_t from, int64_t to);
int64_t ref_clock_reach(const struct ref_clock_rules *r, int64_t from, int64_t need);

#endif
