/*
 * test_maildir_put.c: deliveries under the message's own name (every
 * reply exactly once): mail_maildir_put and mail_maildir_find.
 *
 * What must hold: a second put of the same name writes nothing; a copy cut
 * short (a power loss before the sync) is written again whole; find sees a
 * message in new/ whole, or moved to cur/ with any info suffix, and not a
 * message that is only in tmp/ or cut short.
 */
#include "mail.h"
#include "unit_run.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void rm_tree(const char *path)
{
  static const char *const subs[] = {"tmp", "new", "cur"};
  char p[600], q[900];
  size_t i;
  for(i = 0; i < 3; i++) {
    struct dirent *e;
    DIR *d;
    snprintf(p, sizeof(p), "%s/%s", path, subs[i]);
    d = opendir(p);
    while(d && (e = readdir(d)))
      if(e->d_name[0] != '.') {
        snprintf(q, sizeof(q), "%s/%s", p, e->d_name);
        unlink(q);
      }
    if(d)
      closedir(d);
    rmdir(p);
  }
  rmdir(path);
}

static void setup(void)
{
  snprintf(dir, sizeof(dir), "%s/tabula-put-XXXXXX", P_tmpdir);
  ck_assert_ptr_nonnull(mkdtemp(dir));
  ck_assert_int_eq(mail_maildir_init(dir), 0);
}

static void teardown(void)
{
  rm_tree(dir);
}

static long size_of(const char *sub, const char *name)
{
  char p[600];
  struct stat st;
  snprintf(p, sizeof(p), "%s/%s/%s", dir, sub, name);
  return stat(p, &st) ? -1 : (long)st.st_size;
}

START_TEST(test_put_once)
{
  const char *m = "Subject: x\n\nhello\n";
  bool already = true;

  ck_assert_int_eq(mail_maildir_put(dir, "1795600000.R0000000007Sabc.tabula", m, strlen(m), MAIL_SYNC_NONE,
                                    &already),
                   0);
  ck_assert(!already);
  ck_assert_int_eq(size_of("new", "1795600000.R0000000007Sabc.tabula"), (long)strlen(m));
  ck_assert_int_eq(size_of("tmp", "1795600000.R0000000007Sabc.tabula"), -1);
  ck_assert_int_eq(mail_maildir_put(dir, "1795600000.R0000000007Sabc.tabula", m, strlen(m), MAIL_SYNC_ALL,
                                    &already),
                   0);
  ck_assert(already);
  /* names that are not one plain component are refused */
  ck_assert_int_ne(mail_maildir_put(dir, "a:2,S", m, strlen(m), MAIL_SYNC_NONE, &already), 0);
  ck_assert_int_ne(mail_maildir_put(dir, "../x", m, strlen(m), MAIL_SYNC_NONE, &already), 0);
  ck_assert_int_ne(mail_maildir_put(dir, ".hidden", m, strlen(m), MAIL_SYNC_NONE, &already), 0);
}
END_TEST

/* A copy cut short by a power loss is written again, whole. */
START_TEST(test_put_repairs_short_copy)
{
  const char *m = "Subject: x\n\nhello again\n";
  char p[600];
  bool already = true;
  FILE *f;

  snprintf(p, sizeof(p), "%s/new/cut.tabula", dir);
  f = fopen(p, "w");
  ck_assert_ptr_nonnull(f);
  fputs("Subj", f);
  fclose(f);
  ck_assert_int_eq(mail_maildir_put(dir, "cut.tabula", m, strlen(m), MAIL_SYNC_NONE, &already), 0);
  ck_assert(!already);
  ck_assert_int_eq(size_of("new", "cut.tabula"), (long)strlen(m));
}
END_TEST

START_TEST(test_find_new_and_cur)
{
  char *names[5] = {"a.tabula", "b.tabula", "c.tabula", "d.tabula", "e.tabula"};
  size_t lens[5] = {5, 5, 5, 5, 5};
  bool found[5], already;
  char from[600], to[600];

  mail_maildir_put(dir, "a.tabula", "12345", 5, MAIL_SYNC_NONE, &already); /* stays in new/ */
  mail_maildir_put(dir, "b.tabula", "12345", 5, MAIL_SYNC_NONE, &already); /* read: cur/ */
  snprintf(from, sizeof(from), "%s/new/b.tabula", dir);
  snprintf(to, sizeof(to), "%s/cur/b.tabula:2,RS", dir);
  ck_assert_int_eq(rename(from, to), 0);
  mail_maildir_put(dir, "c.tabula", "123", 3, MAIL_SYNC_NONE, &already); /* cut short */
  mail_maildir_put(dir, "dd.tabula", "12345", 5, MAIL_SYNC_NONE, &already); /* a longer name */
  snprintf(from, sizeof(from), "%s/new/dd.tabula", dir);
  snprintf(to, sizeof(to), "%s/cur/dd.tabula:2,S", dir);
  ck_assert_int_eq(rename(from, to), 0);
  ck_assert_int_eq(mail_maildir_find(dir, names, lens, 5, found), 0);
  ck_assert(found[0]);  /* new/, whole */
  ck_assert(found[1]);  /* cur/, with flags */
  ck_assert(!found[2]); /* cut short: write it again */
  ck_assert(!found[3]); /* d is not dd */
  ck_assert(!found[4]); /* never written */
  ck_assert_int_eq(mail_maildir_find(dir, names, lens, 0, found), 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("maildir_put");
  TCase *tc = tcase_create("put");

  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_put_once);
  tcase_add_test(tc, test_put_repairs_short_copy);
  tcase_add_test(tc, test_find_new_and_cur);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
