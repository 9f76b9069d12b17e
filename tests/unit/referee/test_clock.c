/*
 * test_clock.c: the date and deadline arithmetic of referee/turns/clock.c:
 * days per move, weekends counted or not, vacations pausing the clock).
 * Deadlines come from tests/data/clock/deadlines.txt, made by an
 * independent brute-force oracle (tests/oracles/clock_deadlines.py, a
 * minute-by-minute walk with Python's datetime); day numbers and weekdays
 * below were computed with Python's calendar.timegm.
 */
#include "service_int.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

/* ---- dates ---- */

static const struct {
  const char *text;
  int64_t day; /* -1: must be refused */
} dates[] = {
  {"1970-01-01", 0},       {"2026-11-23", 20780},   {"2024-02-29", 19782},
  {"2026-12-31", 20818},   {"2027-01-01", 20819},   {"2025-02-29", -1},
  {"2026-02-30", -1},      {"2026-13-01", -1},      {"2026-00-10", -1},
  {"2026-11-00", -1},      {"1969-12-31", -1},      {"2026-2-3", -1},
  {"2026/11/23", -1},      {"2026-11-23x", -1},     {"", -1},
  {"2026-11-2", -1},       {"next week", -1},       {"2100-02-29", -1},
  {"2000-02-29", 11016},
};

START_TEST(test_clock_date_parse_and_text)
{
  size_t i;
  for(i = 0; i < sizeof(dates) / sizeof(dates[0]); i++) {
    int64_t day = 12345;
    int rc = ref_date_parse(dates[i].text, &day);
    if(dates[i].day < 0) {
      ck_assert_msg(rc == -1, "'%s' accepted as a date", dates[i].text);
      ck_assert_int_eq(day, 12345); /* bad input changes nothing */
    }
    else {
      char back[16];
      ck_assert_msg(rc == 0, "'%s' refused", dates[i].text);
      ck_assert_int_eq(day, dates[i].day);
      ref_date_text(back, sizeof(back), day);
      ck_assert_str_eq(back, dates[i].text);
    }
  }
}
END_TEST

START_TEST(test_clock_weekday_and_time_text)
{
  char buf[40];
  ck_assert_int_eq(ref_weekday(0), 4);      /* 1970-01-01, a Thursday */
  ck_assert_int_eq(ref_weekday(20780), 1);  /* 2026-11-23, a Monday */
  ck_assert_int_eq(ref_weekday(20785), 6);  /* Saturday */
  ck_assert_int_eq(ref_weekday(20786), 0);  /* Sunday */
  ck_assert_int_eq(ref_year_of_day(20818), 2026);
  ck_assert_int_eq(ref_year_of_day(20819), 2027);
  /* replies give times in UTC, ISO 8601 dates */
  ref_time_text(buf, sizeof(buf), 1795424400);
  ck_assert_str_eq(buf, "2026-11-23 09:00 UTC");
  ref_time_text(buf, sizeof(buf), 1795424400 + 86399 - 9 * 3600);
  ck_assert_str_eq(buf, "2026-11-23 23:59 UTC");
  ck_assert_int_eq(ref_day_of(-1), -1);
  ck_assert_int_eq(ref_day_of(86400), 1);
}
END_TEST

/* ---- the options of `new` ---- */

static const struct {
  const char *word;
  int rc, days, weekends; /* days/weekends after the call (start 0 / -1) */
} options[] = {
  {"days=3", 1, 3, -1},          {"DAYS=14", 1, 14, -1},      {"days=365", 1, 365, -1},
  {"days=0", -1, 0, -1},         {"days=366", -1, 0, -1},     {"days=", -1, 0, -1},
  {"days=3x", -1, 0, -1},        {"days=-2", -1, 0, -1},      {"weekends=off", 1, 0, 0},
  {"weekends=ON", 1, 0, 1},      {"weekends=no", 1, 0, 0},    {"weekends=maybe", -1, 0, -1},
  {"fide_draws=off", 0, 0, -1},  {"fen=8/8/8 w", 0, 0, -1},   {"dayss=3", 0, 0, -1},
  /* TM-2: time=7d is days=7; the other kinds go to the control words */
  {"time=7d", 1, 7, -1},         {"time=30d+1d", 1, 0, -1},   {"time=10/50d", 1, 0, -1},
  {"double=on", 1, 0, -1},       {"time=30d+", -1, 0, -1},    {"time=0d", -1, 0, -1},
  {"time=10/0d", -1, 0, -1},     {"time=0/50d", -1, 0, -1},   {"time=30", -1, 0, -1},
  {"time=30d+61d", -1, 0, -1},   {"time=101/50d", -1, 0, -1}, {"double=maybe", -1, 0, -1},
  {"time=", -1, 0, -1},          {"time=30h", -1, 0, -1},
};

START_TEST(test_clock_new_options)
{
  size_t i;
  for(i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
    int days = 0, weekends = -1;
    char control[64] = "";
    ck_assert_msg(ref_clock_option(options[i].word, &days, &weekends, control,
                                   sizeof(control)) == options[i].rc,
                  "%s", options[i].word);
    /* a refused word changes nothing */
    if(options[i].rc < 0)
      ck_assert_str_eq(control, "");
    ck_assert_msg(days == options[i].days && weekends == options[i].weekends, "%s: %d %d",
                  options[i].word, days, weekends);
  }
}
END_TEST

/* The words a control is stored as, in the order written. */
START_TEST(test_clock_control_words)
{
  static const struct {
    const char *words[3];
    int days;
    const char *control, *text;
  } cases[] = {
    {{"time=30d+1d", NULL}, 0, "time=30d+1d", "30 days + 1 day per move"},
    {{"time=10/50d", "double=on", NULL}, 0, "time=10/50d;double=on",
     "10 moves in 50 days, unused time carried forward, more than 20 days on one move charged"
     " double"},
    {{"time=30d+1d", "days=5", NULL}, 5, "", "5 days per move"},
    {{"time=30d+1d", "time=4d", NULL}, 4, "", "4 days per move"},
    {{"double=on", "days=30", NULL}, 30, "double=on",
     "30 days per move, more than 20 days on one move charged double"},
  };
  size_t i, j;
  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    int days = 0, weekends = -1;
    char control[64] = "", text[160];
    struct ref_control ctl;
    for(j = 0; cases[i].words[j]; j++)
      ck_assert_int_eq(ref_clock_option(cases[i].words[j], &days, &weekends, control,
                                        sizeof(control)), 1);
    ck_assert_int_eq(days, cases[i].days);
    ck_assert_str_eq(control, cases[i].control);
    ck_assert_int_eq(ref_control_parse(control, days ? days : 7, &ctl), 0);
    ref_control_text(&ctl, text, sizeof(text));
    ck_assert_str_eq(text, cases[i].text);
  }
}
END_TEST

/* Fischer 30d+3d (ICCF art. 2.4.2's example): the bank shrinks by the
 * time used and grows by the increment. */
START_TEST(test_clock_fischer_bank)
{
  struct ref_control ctl;
  int64_t bank;
  ck_assert_int_eq(ref_control_parse("time=30d+3d", 7, &ctl), 0);
  bank = ref_control_initial(&ctl);
  ck_assert_int_eq(bank, 30 * 86400);
  ck_assert_int_eq(ref_control_allowed(&ctl, bank), 30 * 86400);
  bank = ref_control_after(&ctl, bank, 1 * 86400, 1); /* a quick move: grows */
  ck_assert_int_eq(bank, 32 * 86400);
  bank = ref_control_after(&ctl, bank, 10 * 86400 + 3600, 2); /* a slow one: shrinks */
  ck_assert_int_eq(bank, 25 * 86400 - 3600);
}
END_TEST

/* "10 moves in 50 days": unused time carries into the next period. */
START_TEST(test_clock_periods_carry)
{
  struct ref_control ctl;
  int64_t bank;
  int move;
  ck_assert_int_eq(ref_control_parse("time=10/50d", 7, &ctl), 0);
  bank = ref_control_initial(&ctl);
  /* ten moves of 2 days: 30 days unused, then the second period's 50 */
  for(move = 1; move <= 10; move++) {
    bank = ref_control_after(&ctl, bank, 2 * 86400, move);
    ck_assert_int_eq(bank, move < 10 ? (50 - 2 * move) * 86400 : 80 * 86400);
  }
  /* ten moves of 7 days: 10 left, plus the third period's 50 */
  for(move = 11; move <= 20; move++)
    bank = ref_control_after(&ctl, bank, 7 * 86400, move);
  ck_assert_int_eq(bank, 60 * 86400);
}
END_TEST

/* ICCF art. 2.4.2: beyond 20 days on one move counts double: 23 used, 26
 * charged; and the deadline is where the charge reaches the bank. */
START_TEST(test_clock_double_charge)
{
  struct ref_control ctl, plain;
  ck_assert_int_eq(ref_control_parse("time=50d+1d;double=on", 7, &ctl), 0);
  ck_assert_int_eq(ref_control_parse("time=50d+1d", 7, &plain), 0);
  ck_assert_int_eq(ref_control_charge(&ctl, 23 * 86400), 26 * 86400);
  ck_assert_int_eq(ref_control_charge(&ctl, 20 * 86400), 20 * 86400);
  ck_assert_int_eq(ref_control_charge(&ctl, 5 * 86400), 5 * 86400);
  ck_assert_int_eq(ref_control_charge(&plain, 23 * 86400), 23 * 86400);
  ck_assert_int_eq(ref_control_after(&ctl, 50 * 86400, 23 * 86400, 1), 25 * 86400);
  /* 50 days in the bank: 20 once, 30 more charged as 15 days used */
  ck_assert_int_eq(ref_control_allowed(&ctl, 50 * 86400), 35 * 86400);
  ck_assert_int_eq(ref_control_charge(&ctl, 35 * 86400), 50 * 86400);
  ck_assert_int_eq(ref_control_allowed(&plain, 50 * 86400), 50 * 86400);
  ck_assert_int_eq(ref_control_allowed(&ctl, 0), 0);
}
END_TEST

/* The time zone reader (clock_zone.c, TM-6) against Python's zoneinfo
 * (a second reader of the same tz database): the summer time switch to
 * the second, the POSIX footer rule beyond the files' last transition
 * (2040 on), a southern zone, a half-hour offset. */
START_TEST(test_clock_zones)
{
  static const struct {
    const char *zone;
    int64_t t, offset;
    const char *abbr;
  } zones[] = {
    {"Europe/Berlin", 1774745999, 3600, "CET"},
    {"Europe/Berlin", 1774746000, 7200, "CEST"},
    {"Europe/Berlin", 2224756800, 7200, "CEST"},
    {"Europe/Berlin", 2237976000, 3600, "CET"},
    {"Australia/Sydney", 2241820800, 39600, "AEDT"},
    {"Australia/Sydney", 2254867200, 36000, "AEST"},
    {"Asia/Kolkata", 1795424400, 19800, "IST"},
    {"America/New_York", 2372914800, -14400, "EDT"},
    {"America/New_York", 2372914740, -18000, "EST"},
    {"UTC", 1767225600, 0, "UTC"},
  };
  static const char *const refused[] = {"../../etc/passwd", "/etc/localtime", "Europe/../UTC",
                                        "Mars/Olympus_Mons", "", "Europe/Berlin;rm"};
  size_t i;
  char abbr[16];
  int64_t offset;
  for(i = 0; i < sizeof(zones) / sizeof(zones[0]); i++) {
    ck_assert_msg(!ref_zone_local(REF_ZONEINFO_DIR, zones[i].zone, zones[i].t, &offset, abbr,
                                  sizeof(abbr)),
                  "%s does not read", zones[i].zone);
    ck_assert_msg(offset == zones[i].offset && !strcmp(abbr, zones[i].abbr), "%s at %lld: %lld %s",
                  zones[i].zone, (long long)zones[i].t, (long long)offset, abbr);
  }
  for(i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
    ck_assert_msg(ref_zone_local(REF_ZONEINFO_DIR, refused[i], 0, &offset, abbr, sizeof(abbr)),
                  "'%s' read as a zone", refused[i]);
}
END_TEST

/* "3 days", "1d12h": the amounts of give and tabula time. */
START_TEST(test_clock_durations)
{
  static const struct {
    const char *text;
    int64_t secs; /* -1 refused */
  } d[] = {{"3 days", 3 * 86400}, {"1 day", 86400},   {"1d12h", 86400 + 12 * 3600},
           {"12h", 12 * 3600},    {"2D", 2 * 86400},  {"36 hours", 36 * 3600},
           {"lots", -1},          {"", -1},           {"0d", -1},
           {"366d", -1},          {"3 weeks", -1},    {"-2d", -1},
           {"3", -1}};
  size_t i;
  for(i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
    int64_t s = 7;
    int rc = ref_duration_parse(d[i].text, &s);
    ck_assert_msg(d[i].secs < 0 ? rc == -1 && s == 7 : rc == 0 && s == d[i].secs, "'%s': %d %lld",
                  d[i].text, rc, (long long)s);
  }
}
END_TEST

/* ---- deadlines against the oracle ---- */

/* "2026-11-23T09:00" -> unix seconds */
static int64_t parse_time(const char *s)
{
  char date[11];
  int h, m;
  int64_t day;
  ck_assert_msg(strlen(s) == 16 && s[10] == 'T', "bad time '%s' in the data", s);
  memcpy(date, s, 10);
  date[10] = '\0';
  ck_assert_int_eq(ref_date_parse(date, &day), 0);
  ck_assert_int_eq(sscanf(s + 11, "%d:%d", &h, &m), 2);
  return day * 86400 + h * 3600 + m * 60;
}

START_TEST(test_clock_deadlines_match_oracle)
{
  FILE *f = fopen(TABULA_TEST_DATA "/clock/deadlines.txt", "r");
  char line[512];
  int rows = 0, with_vacations = 0, weekends_off = 0;

  ck_assert_ptr_nonnull(f);
  while(fgets(line, sizeof(line), f)) {
    char start[32], wk[8], vac[256], end[32];
    struct store_vacation v[8];
    struct ref_clock_rules r;
    int days;
    int64_t t0, want, got, need;
    size_t nv = 0;
    if(line[0] == '#' || line[0] == '\n')
      continue;
    ck_assert_int_eq(sscanf(line, "%31s %d %7s %255s %31s", start, &days, wk, vac, end), 5);
    if(strcmp(vac, "-")) {
      char *save = NULL, *tok;
      for(tok = strtok_r(vac, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char a[11], b[11];
        ck_assert_uint_lt(nv, 8);
        ck_assert_int_eq(sscanf(tok, "%10[0-9-]..%10[0-9-]", a, b), 2);
        ck_assert_int_eq(ref_date_parse(a, &v[nv].first_day), 0);
        ck_assert_int_eq(ref_date_parse(b, &v[nv].last_day), 0);
        nv++;
      }
      with_vacations++;
    }
    r.weekends = !strcmp(wk, "on");
    weekends_off += !r.weekends;
    r.vac = v;
    r.nvac = nv;
    t0 = parse_time(start);
    want = parse_time(end);
    need = (int64_t)days * 86400;
    got = ref_clock_reach(&r, t0, need);
    ck_assert_msg(got == want, "%s%s: got %lld, want %lld", line, "", (long long)got,
                  (long long)want);
    /* counting back from the deadline gives the full time, and a minute
     * before it the time is not yet up */
    ck_assert_int_eq(ref_clock_counted(&r, t0, got), need);
    ck_assert_int_lt(ref_clock_counted(&r, t0, got - 60), need);
    rows++;
  }
  fclose(f);
  ck_assert_int_ge(rows, 60);
  ck_assert_int_ge(with_vacations, 10);
  ck_assert_int_ge(weekends_off, 10);
}
END_TEST

/* Weekends off and the vacation pause the clock: nothing is counted on
 * those days, whatever the hour. */
START_TEST(test_clock_counted_pauses)
{
  struct store_vacation v = {20782, 20782, 0}; /* Wednesday 2026-11-25 */
  struct ref_clock_rules off = {0, NULL, 0}, vac = {1, &v, 1};
  int64_t sat = 20785 * 86400LL, wed = 20782 * 86400LL;
  ck_assert_int_eq(ref_clock_counted(&off, sat, sat + 2 * 86400), 0);
  ck_assert_int_eq(ref_clock_counted(&off, sat - 3600, sat + 2 * 86400 + 60), 3660);
  ck_assert_int_eq(ref_clock_counted(&vac, wed + 600, wed + 86400 + 600), 600);
  ck_assert_int_eq(ref_clock_reach(&vac, wed + 600, 60), wed + 86400 + 60);
  ck_assert_int_eq(ref_clock_reach(&off, sat + 5, 0), sat + 5);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("clock");
  TCase *tc = tcase_create("clock");

  tcase_add_test(tc, test_clock_date_parse_and_text);
  tcase_add_test(tc, test_clock_weekday_and_time_text);
  tcase_add_test(tc, test_clock_new_options);
  tcase_add_test(tc, test_clock_control_words);
  tcase_add_test(tc, test_clock_fischer_bank);
  tcase_add_test(tc, test_clock_periods_carry);
  tcase_add_test(tc, test_clock_double_charge);
  tcase_add_test(tc, test_clock_zones);
  tcase_add_test(tc, test_clock_durations);
  tcase_add_test(tc, test_clock_deadlines_match_oracle);
  tcase_add_test(tc, test_clock_counted_pauses);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
