/*
 * clock_zone.c: a player's time zone for the deadlines a mail shows
 * (rules-spec TM-6). A small reader of the system's tz database files
 * (TZif, RFC 8536) rather than setenv("TZ") + localtime_r: the daemon
 * must not change its process-wide environment per reader (every other
 * time it prints is UTC, and a library thread could read TZ meanwhile),
 * and a file read per mail costs nothing next to a mail.
 *
 * What it reads: the version 2+ data block (64-bit transition times),
 * each transition's local time type (UT offset, abbreviation), and for
 * a moment after the last transition the footer's POSIX TZ string
 * (RFC 8536 section 3.3), in its common form "STDoff[DST[off],Mm.w.d[/time],
 * Mm.w.d[/time]]"; a footer in another form (Julian days) counts as the
 * last transition's type. Read only, never trusted: every count is
 * checked against the file's size.
 */
#include "lifecycle_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZONE_FILE_MAX (512 * 1024)

int ref_zone_name_ok(const char *name)
{
  size_t i, n = strlen(name);
  /* a tz database name: "Europe/Berlin", "America/Argentina/Buenos_Aires",
   * "Etc/GMT+5"; never a path that leaves the database */
  if(!n || n > 64 || name[0] == '/' || name[0] == '.' || strstr(name, ".."))
    return 0;
  for(i = 0; i < n; i++)
    if(!isalnum((unsigned char)name[i]) && !strchr("/_-+", name[i]))
      return 0;
  return 1;
}

static int64_t be(const unsigned char *p, int bytes)
{
  uint64_t v = 0;
  int i;
  for(i = 0; i < bytes; i++)
    v = v << 8 | p[i];
  if(bytes == 4)
    return (int64_t)(int32_t)(uint32_t)v;
  return (int64_t)v;
}

/* ---- the POSIX TZ footer ---- */

/* [+-]hh[:mm[:ss]] -> seconds; NULL when not one */
static const char *posix_offset(const char *p, int64_t *secs)
{
  int sign = 1, part = 0;
  int64_t v = 0;
  if(*p == '+' || *p == '-')
    sign = *p++ == '-' ? -1 : 1;
  if(!isdigit((unsigned char)*p))
    return NULL;
  while(part < 3 && isdigit((unsigned char)*p)) {
    int64_t n = 0;
    while(isdigit((unsigned char)*p))
      n = n * 10 + (*p++ - '0');
    v += n * (part == 0 ? 3600 : part == 1 ? 60 : 1);
    part++;
    if(*p != ':')
      break;
    p++;
  }
  *secs = sign * v;
  return p;
}

static const char *posix_abbr(const char *p, char *abbr, size_t cap)
{
  size_t n = 0;
  if(*p == '<') {
    for(p++; *p && *p != '>'; p++)
      if(n + 1 < cap)
        abbr[n++] = *p;
    if(*p != '>')
      return NULL;
    p++;
  }
  else
    for(; isalpha((unsigned char)*p); p++)
      if(n + 1 < cap)
        abbr[n++] = *p;
  abbr[n] = '\0';
  return n >= 3 ? p : NULL;
}

struct posix_rule {
  int month, week, wday;
  int64_t time; /* local seconds after midnight */
};

static const char *posix_rule(const char *p, struct posix_rule *r)
{
  char *end;
  if(*p++ != 'M')
    return NULL;
  r->month = (int)strtol(p, &end, 10);
  if(*end != '.' || r->month < 1 || r->month > 12)
    return NULL;
  r->week = (int)strtol(end + 1, &end, 10);
  if(*end != '.' || r->week < 1 || r->week > 5)
    return NULL;
  r->wday = (int)strtol(end + 1, &end, 10);
  if(r->wday < 0 || r->wday > 6)
    return NULL;
  p = end;
  r->time = 7200;
  if(*p == '/')
    p = posix_offset(p + 1, &r->time);
  return p;
}

/* Days since 1970-01-01 of the first of month m of year y. */
static int64_t first_of_month(int y, int m)
{
  char text[40];
  int64_t day = 0;
  snprintf(text, sizeof(text), "%04d-%02d-01", y, m);
  if(ref_date_parse(text, &day))
    return 0;
  return day;
}

/* The UT moment rule r falls in year y, for a clock at `offset`. */
static int64_t rule_moment(const struct posix_rule *r, int y, int64_t offset)
{
  int64_t first = first_of_month(y, r->month), day;
  int64_t next = r->month == 12 ? first_of_month(y + 1, 1) : first_of_month(y, r->month + 1);
  day = first + ((r->wday - ref_weekday(first)) + 7) % 7 + (int64_t)(r->week - 1) * 7;
  while(day >= next) /* week 5: the last such weekday */
    day -= 7;
  return day * REF_DAY + r->time - offset;
}

/* 0 and the local type of t under footer tz; -1 when tz is not of the
 * common form. */
static int posix_local(const char *tz, int64_t t, int64_t *offset, char *abbr, size_t acap)
{
  char std[16], dst[16];
  int64_t stdoff, dstoff, on, off;
  struct posix_rule a, b;
  const char *p = posix_abbr(tz, std, sizeof(std));
  int y;

  if(!p || !(p = posix_offset(p, &stdoff)))
    return -1;
  stdoff = -stdoff; /* POSIX counts west of Greenwich */
  if(!*p) {
    *offset = stdoff;
    snprintf(abbr, acap, "%s", std);
    return 0;
  }
  if(!(p = posix_abbr(p, dst, sizeof(dst))))
    return -1;
  dstoff = stdoff + 3600;
  if(*p != ',' && (p = posix_offset(p, &dstoff)) != NULL)
    dstoff = -dstoff;
  if(!p || *p++ != ',' || !(p = posix_rule(p, &a)) || *p++ != ',' || !(p = posix_rule(p, &b)) ||
     *p)
    return -1;
  y = ref_year_of_day(ref_day_of(t));
  on = rule_moment(&a, y, stdoff);
  off = rule_moment(&b, y, dstoff);
  /* southern zones: summer time spans New Year (on after off) */
  if(on < off ? (t >= on && t < off) : (t >= on || t < off)) {
    *offset = dstoff;
    snprintf(abbr, acap, "%s", dst);
  }
  else {
    *offset = stdoff;
    snprintf(abbr, acap, "%s", std);
  }
  return 0;
}

/* ---- the file ---- */

int ref_zone_local(const char *dir, const char *name, int64_t t, int64_t *offset, char *abbr,
                   size_t acap)
{
  char path[512], footer[128];
  unsigned char *d = NULL;
  size_t len = 0, pos, need;
  int64_t timecnt, typecnt, charcnt, leapcnt, isstdcnt, isutcnt, i, type = 0;
  FILE *f;
  int rc = -1;

  if(!ref_zone_name_ok(name))
    return -1;
  snprintf(path, sizeof(path), "%s/%s", dir, name);
  f = fopen(path, "rb");
  if(!f)
    return -1;
  d = malloc(ZONE_FILE_MAX);
  if(d)
    len = fread(d, 1, ZONE_FILE_MAX, f);
  fclose(f);
  if(!d || len < 44 || memcmp(d, "TZif", 4) || d[4] < '2')
    goto out;
  /* skip the version 1 block (32-bit times) */
  isutcnt = be(d + 20, 4), isstdcnt = be(d + 24, 4), leapcnt = be(d + 28, 4);
  timecnt = be(d + 32, 4), typecnt = be(d + 36, 4), charcnt = be(d + 40, 4);
  if(isutcnt < 0 || isstdcnt < 0 || leapcnt < 0 || timecnt < 0 || typecnt < 0 || charcnt < 0 ||
     timecnt > 100000 || typecnt > 256 || charcnt > 1024 || leapcnt > 1000 || isutcnt > 256 ||
     isstdcnt > 256)
    goto out;
  pos = 44 + (size_t)(timecnt * 5 + typecnt * 6 + charcnt + leapcnt * 8 + isstdcnt + isutcnt);
  if(pos + 44 > len || memcmp(d + pos, "TZif", 4))
    goto out;
  isutcnt = be(d + pos + 20, 4), isstdcnt = be(d + pos + 24, 4), leapcnt = be(d + pos + 28, 4);
  timecnt = be(d + pos + 32, 4), typecnt = be(d + pos + 36, 4), charcnt = be(d + pos + 40, 4);
  if(isutcnt < 0 || isstdcnt < 0 || leapcnt < 0 || timecnt < 0 || typecnt < 1 || charcnt < 0 ||
     timecnt > 100000 || typecnt > 256 || charcnt > 1024 || leapcnt > 1000 || isutcnt > 256 ||
     isstdcnt > 256)
    goto out;
  pos += 44;
  need = (size_t)(timecnt * 9 + typecnt * 6 + charcnt + leapcnt * 12 + isstdcnt + isutcnt);
  if(pos + need > len)
    goto out;
  {
    const unsigned char *times = d + pos, *idx = times + timecnt * 8, *types = idx + timecnt;
    const unsigned char *chars = types + typecnt * 6;
    size_t fpos = pos + need, flen = 0;
    footer[0] = '\0';
    if(fpos < len && d[fpos] == '\n') {
      for(fpos++; fpos < len && d[fpos] != '\n' && flen + 1 < sizeof(footer); fpos++)
        footer[flen++] = (char)d[fpos];
      footer[flen] = '\0';
    }
    if(timecnt && t >= be(times + (timecnt - 1) * 8, 8) && footer[0] &&
       !posix_local(footer, t, offset, abbr, acap)) {
      rc = 0;
      goto out;
    }
    for(i = 0; i < timecnt && be(times + i * 8, 8) <= t; i++)
      type = idx[i];
    if(type >= typecnt)
      goto out;
    *offset = be(types + type * 6, 4);
    {
      int64_t ai = types[type * 6 + 5];
      size_t n = 0;
      if(ai >= charcnt)
        goto out;
      while(ai + (int64_t)n < charcnt && chars[ai + n] && n + 1 < acap) {
        abbr[n] = (char)chars[ai + n];
        n++;
      }
      abbr[n] = '\0';
    }
    rc = 0;
  }
out:
  free(d);
  return rc;
}

void ref_zone_time_text(char *buf, size_t cap, const char *dir, const char *name, int64_t t)
{
  int64_t offset = 0;
  char abbr[16];
  buf[0] = '\0';
  if(!name || !name[0] || ref_zone_local(dir, name, t, &offset, abbr, sizeof(abbr)))
    return;
  ref_time_text(buf, cap, t + offset);
  /* "2026-11-30 10:00 UTC" -> "2026-11-30 10:00 CET" */
  if(strlen(buf) > 4)
    snprintf(buf + strlen(buf) - 3, cap - (strlen(buf) - 3), "%s", abbr);
}
