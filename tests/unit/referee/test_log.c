/*
 * test_log.c: holding log lines back until a commit (a move is
 * logged as played only after its transaction committed; a daemon waiting
 * for its store says so once, not at every try).
 */
#include "log.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <string.h>

static FILE *out;

static void setup(void)
{
  out = tmpfile();
  ck_assert_ptr_nonnull(out);
  ref_log_set_stream(out);
  ref_log_set_level(REF_LOG_DEBUG);
}

static void teardown(void)
{
  ref_log_set_stream(NULL);
  fclose(out);
}

/* What was written so far, without the time stamps. */
static char *written(void)
{
  static char buf[4096];
  char line[512];
  size_t len = 0;

  fflush(out);
  rewind(out);
  buf[0] = '\0';
  while(fgets(line, sizeof(line), out)) {
    const char *p = strstr(line, " tabula ");
    len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s", p ? p + 8 : line);
  }
  fseek(out, 0, SEEK_END);
  return buf;
}

START_TEST(test_hold_release)
{
  ref_log_hold();
  ref_log_info("game 1: White 1. e4");
  ck_assert_str_eq(written(), "");
  ref_log_release();
  ck_assert_str_eq(written(), "info: game 1: White 1. e4\n");
  /* not holding: written at once */
  ref_log_warn("now");
  ck_assert_str_eq(written(), "info: game 1: White 1. e4\nwarn: now\n");
}
END_TEST

/* A rolled-back message: its info lines go, its warnings stay; what came
 * before the mark is untouched. */
START_TEST(test_forget_rolled_back)
{
  size_t mark;

  ref_log_hold();
  ref_log_info("game 1: White 1. e4");
  mark = ref_log_held();
  ref_log_info("game 2: White 1. d4");
  ref_log_error("message <x> not processed (disk full); will retry");
  ref_log_debug("detail");
  ref_log_forget(mark, REF_LOG_INFO, REF_LOG_DEBUG);
  ref_log_release();
  ck_assert_str_eq(written(), "info: game 1: White 1. e4\n"
                              "error: message <x> not processed (disk full); will retry\n");
}
END_TEST

/* Nested holds: only the outermost release writes; the inner batch's
 * forgetting does not reach what the outer hold kept before it. A retry
 * that failed again drops its errors and keeps what it did. */
START_TEST(test_nested_and_retry)
{
  size_t base;

  ref_log_hold();
  ref_log_info("game 1: White 1. e4");
  ref_log_hold();
  base = ref_log_held();
  ref_log_info("game 2: White 1. d4");
  ref_log_error("batch not committed");
  ref_log_forget(base, REF_LOG_INFO, REF_LOG_DEBUG);
  ref_log_release();
  ck_assert_str_eq(written(), "");
  ref_log_forget(0, REF_LOG_ERROR, REF_LOG_WARN);
  ref_log_release();
  ck_assert_str_eq(written(), "info: game 1: White 1. e4\n");
  /* a forget past what is held changes nothing */
  ref_log_hold();
  ref_log_info("kept");
  ref_log_forget(100000, REF_LOG_ERROR, REF_LOG_DEBUG);
  ref_log_release();
  ck_assert(strstr(written(), "info: kept\n") != NULL);
}
END_TEST

/* Lines below the level are neither written nor held. */
START_TEST(test_level)
{
  ref_log_set_level(REF_LOG_WARN);
  ref_log_hold();
  ref_log_info("not shown");
  ref_log_warn("shown");
  ref_log_release();
  ck_assert_str_eq(written(), "warn: shown\n");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("log");
  TCase *tc = tcase_create("hold");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_hold_release);
  tcase_add_test(tc, test_forget_rolled_back);
  tcase_add_test(tc, test_nested_and_retry);
  tcase_add_test(tc, test_level);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
