/*
 * test_drivers.c: the mail sources and sinks as drivers
 * (transport_int.h). Each driver bears its configuration word and its
 * properties as flags (a grouped sink, a source read one batch a pass);
 * the service opened with a source and a sink makes the Maildirs of those
 * drivers alone (chosen once at open: an IMAP source and an SMTP sink
 * make none). The drivers' behaviour is the transport tests'
 * (mail_servers.py, exactly_once.py, inbox_writers.sh, crash_trials.py).
 */
#include "transport_int.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

START_TEST(test_names_and_flags)
{
  ck_assert_str_eq(ref_source_maildir.name, "maildir");
  ck_assert_str_eq(ref_source_imap.name, "imap");
  ck_assert_str_eq(ref_source_pop3.name, "pop3");
  ck_assert_str_eq(ref_sink_maildir.name, "maildir");
  ck_assert_str_eq(ref_sink_smtp.name, "smtp");
  ck_assert_str_eq(ref_sink_sendmail.name, "sendmail");
  /* a Maildir pass reads every batch; IMAP and POP3 one a pass */
  ck_assert(!ref_source_maildir.one_batch);
  ck_assert(ref_source_imap.one_batch);
  ck_assert(ref_source_pop3.one_batch);
  /* only the Maildir sink writes a chunk, syncs it once, marks it at once */
  ck_assert(ref_sink_maildir.grouped && ref_sink_maildir.chunk && ref_sink_maildir.sync);
  ck_assert(!ref_sink_smtp.grouped && !ref_sink_smtp.sync);
  ck_assert(!ref_sink_sendmail.grouped && !ref_sink_sendmail.sync);
  /* IMAP alone acknowledges after the flush */
  ck_assert_ptr_nonnull(ref_source_imap.ack);
  ck_assert_ptr_null(ref_source_maildir.ack);
  ck_assert_ptr_null(ref_source_pop3.ack);
}
END_TEST

static bool is_dir(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

struct open_case {
  enum ref_source source;
  enum ref_sink sink;
  bool inbox, outbox; /* made at open */
};

static const struct open_case opens[] = {
  {REF_SOURCE_MAILDIR, REF_SINK_MAILDIR, true, true},
  {REF_SOURCE_IMAP, REF_SINK_MAILDIR, false, true},
  {REF_SOURCE_MAILDIR, REF_SINK_SMTP, true, false},
  {REF_SOURCE_POP3, REF_SINK_SENDMAIL, false, false},
};

/* The service opened with a source and a sink: the Maildirs of the chosen
 * drivers are made, no other. */
START_TEST(test_open_makes_the_drivers_maildirs)
{
  const struct open_case *c = &opens[_i];
  char dir[] = "/tmp/tabula-test-drivers-XXXXXX", cmd[128], path[600], err[512];
  struct ref_config cfg;
  struct ref_service *svc = NULL;

  ck_assert_ptr_nonnull(mkdtemp(dir));
  ref_config_defaults(&cfg);
  snprintf(cfg.store_path, sizeof(cfg.store_path), "%s/t.db", dir);
  snprintf(cfg.inbox, sizeof(cfg.inbox), "%s/inbox", dir);
  snprintf(cfg.outbox, sizeof(cfg.outbox), "%s/outbox", dir);
  snprintf(cfg.in_host, sizeof(cfg.in_host), "mail.example");
  snprintf(cfg.smtp_host, sizeof(cfg.smtp_host), "mail.example");
  cfg.source = c->source;
  cfg.sink = c->sink;
  cfg.log_level = 0;
  ck_assert_int_eq(ref_config_check_mail(&cfg, err, sizeof(err)), 0);
  ck_assert_msg(ref_service_open(&svc, &cfg, err, sizeof(err)) == 0, "%s", err);
  snprintf(path, sizeof(path), "%s/new", cfg.inbox);
  ck_assert_int_eq(is_dir(path), c->inbox);
  snprintf(path, sizeof(path), "%s/new", cfg.outbox);
  ck_assert_int_eq(is_dir(path), c->outbox);
  ref_service_close(svc);
  snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *drivers_suite(void)
{
  Suite *s = suite_create("drivers");
  TCase *tc = tcase_create("drivers");
  tcase_add_test(tc, test_names_and_flags);
  tcase_add_loop_test(tc, test_open_makes_the_drivers_maildirs, 0,
                      (int)(sizeof(opens) / sizeof(opens[0])));
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(drivers_suite());
}
