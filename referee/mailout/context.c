/*
 * context.c: what every layer of the service shares (docs/architecture.md,
 * layer 2): the time now, from the system clock, a test's injected clock
 * (ref_service_set_clock) or the configuration's test_clock_file; and the
 * seats' secret tokens. The contexts themselves (the service, a game, a
 * message) are declared in context_int.h.
 */
#include "context_int.h"

#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* ---- undo ---- */

void ref_store_rollback(struct ref_service *svc)
{
  if(store_rollback(svc->st) != STORE_OK)
    ref_log_error("store: the rollback failed: %s", store_errmsg(svc->st));
}

void ref_store_batch_rollback(struct ref_service *svc)
{
  if(store_batch_rollback(svc->st) != STORE_OK)
    ref_log_error("store: the batch rollback failed: %s", store_errmsg(svc->st));
}

/* ---- hourly counts ---- */

/* The window of a count as it stands now: a new one when the last began
 * an hour or more ago (or in the future: a clock set back). */
static int hourly_now(struct ref_service *svc, struct store_hourly *h, enum store_counter counter,
                      const char *address)
{
  int64_t now = ref_now(svc);
  bool found = false;
  if(store_hourly_get(svc->st, &found, h, counter, address) != STORE_OK)
    return -1;
  if(!found || now < h->start || now - h->start >= 3600) {
    h->start = now;
    h->count = 0;
  }
  return 0;
}

int ref_hourly_count(struct ref_service *svc, enum store_counter counter, const char *address,
                     int n, int limit, bool count_over)
{
  struct store_hourly h;
  int over;

  if(hourly_now(svc, &h, counter, address))
    return -1;
  over = h.count + n > limit;
  if(over && !count_over)
    return 1;
  h.count += n;
  if(store_hourly_set(svc->st, counter, address, &h) != STORE_OK)
    return -1;
  return over;
}

int ref_hourly_room(struct ref_service *svc, enum store_counter counter, const char *address,
                    int n, int limit)
{
  struct store_hourly h;
  if(hourly_now(svc, &h, counter, address))
    return -1;
  return h.count + n <= limit;
}

/* ---- the time now ---- */

static int64_t system_clock(void *arg)
{
  (void)arg;
  return (int64_t)time(NULL);
}

int64_t ref_now(struct ref_service *svc)
{
  return svc->clock(svc->clock_arg);
}

void ref_service_set_clock(struct ref_service *svc, int64_t (*now)(void *arg), void *arg)
{
  svc->clock = now ? now : system_clock;
  svc->clock_arg = arg;
}

/* ---- the test clock (test_clock_file: tests only, logged) ---- */

static int read_clock_file(const char *path, int64_t *t)
{
  char buf[64], *end;
  FILE *f = fopen(path, "r");
  size_t n;
  long long v;
  if(!f)
    return -1;
  n = fread(buf, 1, sizeof(buf) - 1, f);
  fclose(f);
  buf[n] = '\0';
  errno = 0;
  v = strtoll(buf, &end, 10);
  while(*end == '\n' || *end == ' ' || *end == '\r')
    end++;
  if(end == buf || *end || errno || v < 0)
    return -1;
  *t = v;
  return 0;
}

static int64_t file_clock(void *arg)
{
  struct timespec pause = {0, 5000000L};
  int64_t t;
  int tries = 0;
  /* a test rewriting the file may be caught half-way: look again */
  while(read_clock_file(arg, &t) && ++tries < 100)
    nanosleep(&pause, NULL);
  if(tries == 100) {
    /* Tests only: a broken test clock must stop the run, never fall back
     * to another time silently. */
    ref_log_error("test_clock_file %s is unreadable", (const char *)arg);
    abort();
  }
  return t;
}

int ref_now_use_file(struct ref_service *svc, char *errbuf, size_t errcap)
{
  int64_t t;
  if(read_clock_file(svc->cfg.test_clock_file, &t)) {
    snprintf(errbuf, errcap, "test_clock_file %s does not hold epoch seconds",
             svc->cfg.test_clock_file);
    return -1;
  }
  svc->clock = file_clock;
  svc->clock_arg = svc->cfg.test_clock_file;
  ref_log_warn("the time comes from %s (test_clock_file): for tests only",
               svc->cfg.test_clock_file);
  return 0;
}

/* ---- tokens ---- */

/* A seat's secret: 16 characters of base32 from getrandom (80 bits). */
int ref_make_token(char *out, size_t cap)
{
  static const char alphabet[] = "abcdefghijkmnpqrstuvwxyz23456789";
  unsigned char raw[16];
  size_t i;
  if(cap < sizeof(raw) + 1 || getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
    return -1;
  for(i = 0; i < sizeof(raw); i++)
    out[i] = alphabet[raw[i] & 31];
  out[sizeof(raw)] = '\0';
  return 0;
}

void ref_msg_init(struct ref_msg_ctx *m, struct ref_service *svc)
{
  memset(m, 0, sizeof(*m));
  m->svc = svc;
  m->message_id = "";
  m->arrived = ref_now(svc);
  base_buf_init(&m->events, 64 * 1024);
}
