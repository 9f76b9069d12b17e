/*
 * date.c: dates in mail, for one purpose: when a message reached the
 * referee's mailbox (a move counts at its arrival, never at the
 * sender's Date: and never at the moment tabula looked).
 *
 * Specs: RFC 5322 §3.3 (date-time) and §4.3 (the obsolete forms servers
 * still write: two-digit years, zone names, comments), RFC 5321 §4.4 (the
 * trace field each server puts on top: "Received: ... ; date-time").
 *
 * Every number is read with a bound on its digits and checked against its
 * range before it is used; a date that fails any check is no
 * date (-1), never a guess.
 */
#include "mail_int.h"

#include <string.h>
#include <strings.h>

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's
 * days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
  int64_t era;
  unsigned yoe;
  unsigned doy;
  unsigned doe;

  y -= m <= 2;
  era = (y >= 0 ? y : y - 399) / 400;
  yoe = (unsigned)(y - era * 400);
  doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

static bool leap(int y)
{
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int64_t mail_civil_time(int year, int month, int day, int hour, int minute, int second,
                        int zone_minutes)
{
  static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

  if(year < 1970 || year > 9999 || month < 1 || month > 12 || day < 1 ||
     day > mdays[month - 1] + (month == 2 && leap(year)) || hour < 0 || hour > 23 || minute < 0 ||
     minute > 59 || second < 0 || second > 60 || zone_minutes < -99 * 60 - 59 ||
     zone_minutes > 99 * 60 + 59)
    return -1;
  if(second == 60)
    second = 59; /* a leap second (RFC 5322 §3.3 allows 60) */
  return days_from_civil(year, (unsigned)month, (unsigned)day) * 86400 + hour * 3600 + minute * 60 +
         second - (int64_t)zone_minutes * 60;
}

/* ---- RFC 5322 date-time ---- */

struct reader {
  const char *s;
  size_t n;
  size_t i;
};

/* Blanks, folding and comments (CFWS), comments nested at most a little. */
static void cfws(struct reader *r)
{
  int depth = 0;

  while(r->i < r->n) {
    char c = r->s[r->i];
    if(c == '(' && depth < 8)
      depth++;
    else if(c == ')' && depth)
      depth--;
    else if(!depth && c != ' ' && c != '\t' && c != '\r' && c != '\n')
      return;
    else if(depth && c == '\\' && r->i + 1 < r->n)
      r->i++;
    r->i++;
  }
}

/* 1 to max digits (more is no number), as an int; -1 when none. */
static int digits(struct reader *r, int max, int *count)
{
  int v = 0;
  int k = 0;

  while(r->i < r->n && r->s[r->i] >= '0' && r->s[r->i] <= '9') {
    if(++k > max)
      return -1;
    v = v * 10 + (r->s[r->i] - '0');
    r->i++;
  }
  if(count)
    *count = k;
  return k ? v : -1;
}

static bool alpha(char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A word of letters, at most cap - 1 of them (a longer one is no word). */
static bool word(struct reader *r, char *dst, size_t cap)
{
  size_t k = 0;

  while(r->i < r->n && alpha(r->s[r->i])) {
    if(k + 1 >= cap)
      return false;
    dst[k++] = r->s[r->i++];
  }
  dst[k] = '\0';
  return k > 0;
}

static bool take(struct reader *r, char c)
{
  if(r->i < r->n && r->s[r->i] == c) {
    r->i++;
    return true;
  }
  return false;
}

/* The zone: +hhmm / -hhmm, or one of the obsolete names (§4.3); military
 * letters and unknown names mean "-0000", no information (§4.3). */
static bool zone(struct reader *r, int *minutes)
{
  static const struct {
    const char *name;
    int hours;
  } names[] = {{"UT", 0},   {"GMT", 0},  {"Z", 0},    {"EST", -5}, {"EDT", -4}, {"CST", -6},
               {"CDT", -5}, {"MST", -7}, {"MDT", -6}, {"PST", -8}, {"PDT", -7}};
  char w[8];
  size_t k;

  if(r->i < r->n && (r->s[r->i] == '+' || r->s[r->i] == '-')) {
    int sign = r->s[r->i] == '-' ? -1 : 1;
    int count;
    int v;
    r->i++;
    v = digits(r, 4, &count);
    if(v < 0 || count != 4 || v % 100 > 59)
      return false;
    *minutes = sign * (v / 100 * 60 + v % 100);
    return true;
  }
  if(!word(r, w, sizeof(w)))
    return false;
  *minutes = 0;
  for(k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
    if(!strcasecmp(w, names[k].name)) {
      *minutes = names[k].hours * 60;
      break;
    }
  }
  return true;
}

int64_t mail_date_parse(const char *s, size_t n)
{
  static const char *const months[12] = {"jan", "feb", "mar", "apr", "may", "jun",
                                         "jul", "aug", "sep", "oct", "nov", "dec"};
  struct reader r = {s, n, 0};
  char w[8];
  int day, month = -1, year, hour, minute, second = 0, zmin, count, k;

  cfws(&r);
  /* [day-of-week ","] */
  if(r.i < r.n && alpha(r.s[r.i])) {
    if(!word(&r, w, sizeof(w)))
      return -1;
    cfws(&r);
    if(!take(&r, ','))
      return -1;
    cfws(&r);
  }
  day = digits(&r, 2, NULL);
  cfws(&r);
  if(day < 0 || !word(&r, w, sizeof(w)))
    return -1;
  for(k = 0; k < 12; k++) {
    if(!strcasecmp(w, months[k]))
      month = k + 1;
  }
  cfws(&r);
  year = digits(&r, 4, &count);
  if(month < 0 || year < 0 || count < 2)
    return -1;
  if(count == 2)
    year += year < 50 ? 2000 : 1900; /* §4.3 */
  else if(count == 3)
    year += 1900;
  cfws(&r);
  hour = digits(&r, 2, NULL);
  cfws(&r);
  if(hour < 0 || !take(&r, ':'))
    return -1;
  cfws(&r);
  minute = digits(&r, 2, NULL);
  cfws(&r);
  if(minute < 0)
    return -1;
  if(take(&r, ':')) {
    cfws(&r);
    second = digits(&r, 2, NULL);
    if(second < 0)
      return -1;
    cfws(&r);
  }
  if(!zone(&r, &zmin))
    return -1;
  cfws(&r);
  if(r.i != r.n)
    return -1; /* something after the zone: not a date-time */
  return mail_civil_time(year, month, day, hour, minute, second, zmin);
}

/* ---- the top Received: field ---- */

int64_t mail_received_time(const char *raw, size_t len)
{
  size_t i = 0;

  if(!raw)
    return -1;
  /* An MTA pipe or mbox may start with the "From " envelope line. */
  if(len >= 5 && !memcmp(raw, "From ", 5)) {
    const char *nl = memchr(raw, '\n', len);
    i = nl ? (size_t)(nl - raw) + 1 : len;
  }
  /* The message's own header: fields until the first empty line. */
  while(i < len && raw[i] != '\n' && !(raw[i] == '\r' && i + 1 < len && raw[i + 1] == '\n')) {
    size_t start = i;
    size_t end;
    size_t semi = 0;
    bool any = false;

    /* the field: this line and the lines continuing it */
    for(end = i; end < len; end++) {
      if(raw[end] == '\n' && (end + 1 >= len || (raw[end + 1] != ' ' && raw[end + 1] != '\t')))
        break;
      if(raw[end] == ';') {
        semi = end;
        any = true;
      }
    }
    i = end < len ? end + 1 : len;
    if(end - start < 9 || strncasecmp(raw + start, "received", 8))
      continue;
    {
      size_t k = start + 8;
      while(k < end && (raw[k] == ' ' || raw[k] == '\t'))
        k++;
      if(k >= end || raw[k] != ':')
        continue;
    }
    /* RFC 5321 §4.4: the server that put it on top wrote its date after the
     * last ';'. Only the top one: the next belongs to another server. */
    return any ? mail_date_parse(raw + semi + 1, end - semi - 1) : -1;
  }
  return -1;
}
