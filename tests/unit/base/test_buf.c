/*
 * test_buf.c: the one growable buffer (referee/base/base.h): growth from
 * nothing past many doublings, the ceiling, the sticky error, formatted
 * appends longer than any first guess, embedded NULs, reserve/commit,
 * reuse after reset and take, the fixed buffer over a caller's array, and
 * allocation failures: this test is linked with -Wl,--wrap=realloc
 * (tests/CMakeLists.txt), so realloc can be made to fail at the n-th call.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base.h"
#include "unit_run.h"

void *__real_realloc(void *p, size_t n);
void *__wrap_realloc(void *p, size_t n);

/* realloc calls left before one fails (-1: never) */
static int realloc_fails_in = -1;
static int realloc_calls;

void *__wrap_realloc(void *p, size_t n)
{
  realloc_calls++;
  if(realloc_fails_in >= 0 && realloc_fails_in-- == 0)
    return NULL;
  return __real_realloc(p, n);
}

START_TEST(test_grows_from_nothing)
{
  struct base_buf b;
  size_t i;

  base_buf_init(&b, 1 << 20);
  ck_assert_ptr_null(b.s);
  ck_assert_int_eq(base_buf_err(&b), 0);
  for(i = 0; i < 100000; i++)
    ck_assert_int_eq(base_buf_putc(&b, (char)('a' + i % 26)), 0);
  ck_assert_uint_eq(b.len, 100000);
  ck_assert_uint_ge(b.cap, 100001);
  for(i = 0; i < 100000; i++)
    ck_assert_int_eq(b.s[i], 'a' + (int)(i % 26));
  ck_assert_int_eq(b.s[b.len], '\0');
  base_buf_free(&b);
  ck_assert_ptr_null(b.s);
  ck_assert_uint_eq(b.len, 0);
}
END_TEST

START_TEST(test_puts_and_add)
{
  struct base_buf b;

  base_buf_init(&b, 100);
  ck_assert_int_eq(base_buf_puts(&b, "hello"), 0);
  ck_assert_int_eq(base_buf_add(&b, ", world!!!", 7), 0);
  ck_assert_int_eq(base_buf_add(&b, "", 0), 0);
  ck_assert_str_eq(b.s, "hello, world");
  ck_assert_uint_eq(b.len, 12);
  base_buf_free(&b);
}
END_TEST

/* The ceiling: max bytes fit, one more does not, and the error sticks:
 * nothing is appended after it, not even what would fit. */
START_TEST(test_ceiling_and_sticky_error)
{
  struct base_buf b;
  char *s;

  base_buf_init(&b, 10);
  ck_assert_int_eq(base_buf_puts(&b, "0123456789"), 0);
  ck_assert_uint_eq(b.len, 10);
  ck_assert_int_eq(base_buf_putc(&b, 'x'), BASE_BUF_ETOOBIG);
  ck_assert_str_eq(b.s, "0123456789");
  base_buf_reset(&b);
  ck_assert_int_eq(base_buf_puts(&b, "abc"), 0);
  ck_assert_int_eq(base_buf_puts(&b, "defghijk"), BASE_BUF_ETOOBIG);
  ck_assert_str_eq(b.s, "abc"); /* the refused append left nothing */
  ck_assert_int_eq(base_buf_puts(&b, "d"), BASE_BUF_ETOOBIG);
  ck_assert_int_eq(base_buf_printf(&b, "%d", 1), BASE_BUF_ETOOBIG);
  ck_assert_ptr_null(base_buf_reserve(&b, 1));
  ck_assert_str_eq(b.s, "abc");
  ck_assert_int_eq(base_buf_err(&b), BASE_BUF_ETOOBIG);
  /* take refuses a text with a failed append, and frees it */
  s = base_buf_take(&b);
  ck_assert_ptr_null(s);
  ck_assert_ptr_null(b.s);
  ck_assert_int_eq(base_buf_err(&b), BASE_BUF_ETOOBIG); /* to be read after */
  base_buf_free(&b);
  ck_assert_int_eq(base_buf_err(&b), BASE_BUF_ETOOBIG);
  base_buf_reset(&b);
  ck_assert_int_eq(base_buf_err(&b), 0);
  ck_assert_int_eq(base_buf_puts(&b, "again"), 0);
  ck_assert_str_eq(b.s, "again");
  base_buf_free(&b);
  /* a huge length does not wrap the check */
  base_buf_init(&b, SIZE_MAX);
  ck_assert_int_eq(base_buf_puts(&b, "a"), 0);
  ck_assert_int_eq(base_buf_add_slow(&b, "b", SIZE_MAX - 1), BASE_BUF_ETOOBIG);
  ck_assert_ptr_null(base_buf_reserve(&b, SIZE_MAX));
  base_buf_free(&b);
}
END_TEST

/* A formatted append longer than the room there is, and than the first
 * allocation: whole, never cut short. */
START_TEST(test_printf_long)
{
  struct base_buf b;
  char *big = malloc(70001);
  size_t i;

  ck_assert_ptr_nonnull(big);
  for(i = 0; i < 70000; i++)
    big[i] = (char)('A' + i % 26);
  big[70000] = '\0';
  base_buf_init(&b, 1 << 20);
  ck_assert_int_eq(base_buf_puts(&b, "<"), 0);
  ck_assert_int_eq(base_buf_printf(&b, "%s|%d|%s", big, 42, big), 0);
  ck_assert_int_eq(base_buf_printf(&b, ">%05d", 7), 0);
  ck_assert_uint_eq(b.len, 1 + 70000 + 4 + 70000 + 6);
  ck_assert_int_eq(memcmp(b.s + 1, big, 70000), 0);
  ck_assert_int_eq(memcmp(b.s + 70001, "|42|", 4), 0);
  ck_assert_int_eq(memcmp(b.s + 70005, big, 70000), 0);
  ck_assert_str_eq(b.s + 140005, ">00007");
  ck_assert_uint_eq(strlen(b.s), b.len);
  base_buf_free(&b);
  /* past the ceiling: refused whole, what was there stays */
  base_buf_init(&b, 100);
  ck_assert_int_eq(base_buf_puts(&b, "keep"), 0);
  ck_assert_int_eq(base_buf_printf(&b, "%s", big), BASE_BUF_ETOOBIG);
  ck_assert_str_eq(b.s, "keep");
  ck_assert_uint_eq(b.len, 4);
  base_buf_free(&b);
  /* the text fits the allocated room but not the ceiling */
  base_buf_init(&b, 8);
  ck_assert_int_eq(base_buf_puts(&b, "1234"), 0);
  ck_assert_uint_ge(b.cap, 256);
  ck_assert_int_eq(base_buf_printf(&b, "%s", "56789"), BASE_BUF_ETOOBIG);
  ck_assert_str_eq(b.s, "1234");
  base_buf_free(&b);
  free(big);
}
END_TEST

/* Bytes are counted: a NUL in the middle stays, through add and printf's
 * %c, and the text is NUL-terminated after it. */
START_TEST(test_embedded_nul)
{
  struct base_buf b;

  base_buf_init(&b, 100);
  ck_assert_int_eq(base_buf_add(&b, "a\0b", 3), 0);
  ck_assert_int_eq(base_buf_printf(&b, "%c%s", '\0', "cd"), 0);
  ck_assert_int_eq(base_buf_putc(&b, '\0'), 0);
  ck_assert_uint_eq(b.len, 7);
  ck_assert_int_eq(memcmp(b.s, "a\0b\0cd\0", 8), 0);
  base_buf_free(&b);
}
END_TEST

START_TEST(test_reserve_commit)
{
  struct base_buf b;
  char *w, *s;

  base_buf_init(&b, 1000);
  ck_assert_int_eq(base_buf_puts(&b, "x="), 0);
  w = base_buf_reserve(&b, 500);
  ck_assert_ptr_nonnull(w);
  ck_assert_uint_ge(b.cap - b.len, 501);
  memcpy(w, "12345", 5);
  base_buf_commit(&b, 3); /* fewer than reserved */
  ck_assert_str_eq(b.s, "x=123");
  ck_assert_ptr_null(base_buf_reserve(&b, 996));
  ck_assert_int_eq(base_buf_err(&b), BASE_BUF_ETOOBIG);
  base_buf_free(&b);
  /* room reserved and nothing written (a read() of nothing): still "" */
  base_buf_init(&b, 1 << 20);
  ck_assert_ptr_nonnull(base_buf_reserve(&b, 65536));
  ck_assert_uint_eq(b.len, 0);
  s = base_buf_take(&b);
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s, "");
  free(s);
}
END_TEST

/* take hands over the text and leaves a buffer to use again; reset keeps
 * the memory. */
START_TEST(test_take_and_reuse)
{
  struct base_buf b;
  char *s, *mem;

  base_buf_init(&b, 100);
  s = base_buf_take(&b);
  ck_assert_ptr_nonnull(s);
  ck_assert_str_eq(s, "");
  free(s);
  ck_assert_int_eq(base_buf_puts(&b, "one"), 0);
  s = base_buf_take(&b);
  ck_assert_str_eq(s, "one");
  ck_assert_ptr_null(b.s);
  ck_assert_int_eq(base_buf_puts(&b, "two"), 0);
  ck_assert_str_eq(b.s, "two");
  free(s);
  mem = b.s;
  base_buf_reset(&b);
  ck_assert_ptr_eq(b.s, mem);
  ck_assert_str_eq(b.s, "");
  ck_assert_uint_eq(b.len, 0);
  ck_assert_int_eq(base_buf_printf(&b, "%s", "three"), 0);
  ck_assert_str_eq(b.s, "three");
  base_buf_free(&b);
  base_buf_free(&b); /* twice is harmless */
}
END_TEST

/* A fixed buffer over a caller's array: fills it to cap - 1, refuses the
 * rest whole, never allocates, never frees. */
START_TEST(test_fixed)
{
  char mem[8];
  struct base_buf b;

  memset(mem, 'z', sizeof(mem));
  realloc_calls = 0;
  base_buf_init_fixed(&b, mem, sizeof(mem));
  ck_assert_str_eq(mem, "");
  ck_assert_int_eq(base_buf_puts(&b, "abc"), 0);
  ck_assert_int_eq(base_buf_printf(&b, "%d", 1234), 0);
  ck_assert_str_eq(mem, "abc1234");
  ck_assert_int_eq(base_buf_putc(&b, '5'), BASE_BUF_ETOOBIG);
  ck_assert_str_eq(mem, "abc1234");
  base_buf_reset(&b);
  ck_assert_int_eq(base_buf_printf(&b, "%s", "0123"), 0);
  ck_assert_int_eq(base_buf_printf(&b, "%s", "4567"), BASE_BUF_ETOOBIG);
  ck_assert_str_eq(mem, "0123"); /* the cut-off "456" was taken back */
  ck_assert_int_eq(realloc_calls, 0);
  ck_assert_ptr_null(base_buf_take(&b));
  ck_assert_ptr_eq(b.s, mem);
  base_buf_free(&b);
  ck_assert_ptr_eq(b.s, mem);
  /* no room at all: refused from the start */
  base_buf_init_fixed(&b, mem, 0);
  ck_assert_int_eq(base_buf_putc(&b, 'a'), BASE_BUF_ETOOBIG);
}
END_TEST

/* base_format: the whole text or "" and an error, never a cut one. */
START_TEST(test_format)
{
  char path[12];

  ck_assert_int_eq(base_format(path, sizeof(path), "%s/%s", "dir", "file"), 0);
  ck_assert_str_eq(path, "dir/file");
  ck_assert_int_eq(base_format(path, sizeof(path), "%s/%s", "dir", "file.tx"), 0);
  ck_assert_str_eq(path, "dir/file.tx"); /* 11 bytes and the NUL: fits */
  ck_assert_int_eq(base_format(path, sizeof(path), "%s/%s", "dir", "file.txt"),
                   BASE_BUF_ETOOBIG); /* one byte more: refused, not cut */
  ck_assert_str_eq(path, "");
  ck_assert_int_eq(base_format(path, 0, "%s", "x"), BASE_BUF_ETOOBIG);
}
END_TEST

/* realloc fails: the first growth, and a later one in the middle of a
 * formatted append; the error sticks, the text so far is intact, take
 * refuses it, and the buffer works again after reset. */
START_TEST(test_alloc_failure)
{
  struct base_buf b;
  char big[1000];
  char *s;

  memset(big, 'q', sizeof(big) - 1);
  big[sizeof(big) - 1] = '\0';
  base_buf_init(&b, 1 << 20);
  realloc_fails_in = 0;
  ck_assert_int_eq(base_buf_puts(&b, "x"), BASE_BUF_ENOMEM);
  ck_assert_ptr_null(b.s);
  ck_assert_int_eq(base_buf_err(&b), BASE_BUF_ENOMEM);
  ck_assert_int_eq(base_buf_puts(&b, "y"), BASE_BUF_ENOMEM);
  ck_assert_ptr_null(base_buf_take(&b));
  base_buf_reset(&b);

  realloc_fails_in = 1; /* the first growth works, the second fails */
  ck_assert_int_eq(base_buf_puts(&b, "start "), 0);
  ck_assert_int_eq(base_buf_printf(&b, "%s%s", big, big), BASE_BUF_ENOMEM);
  ck_assert_str_eq(b.s, "start ");
  ck_assert_int_eq(base_buf_puts(&b, "more"), BASE_BUF_ENOMEM);
  ck_assert_str_eq(b.s, "start ");
  base_buf_reset(&b);
  ck_assert_int_eq(base_buf_printf(&b, "%s", big), 0);
  ck_assert_uint_eq(b.len, sizeof(big) - 1);
  s = base_buf_take(&b);
  ck_assert_ptr_nonnull(s);
  ck_assert_uint_eq(strlen(s), sizeof(big) - 1);
  free(s);
  realloc_fails_in = -1;
}
END_TEST

static Suite *buf_suite(void)
{
  Suite *s = suite_create("base_buf");
  TCase *tc = tcase_create("buf");

  tcase_add_test(tc, test_grows_from_nothing);
  tcase_add_test(tc, test_puts_and_add);
  tcase_add_test(tc, test_ceiling_and_sticky_error);
  tcase_add_test(tc, test_printf_long);
  tcase_add_test(tc, test_embedded_nul);
  tcase_add_test(tc, test_reserve_commit);
  tcase_add_test(tc, test_take_and_reuse);
  tcase_add_test(tc, test_fixed);
  tcase_add_test(tc, test_format);
  tcase_add_test(tc, test_alloc_failure);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(buf_suite());
}
