/*
 * test_config.c: the enum options of the configuration's one table
 * (referee/config.c): each word maps to its enum, the defaults are the
 * documented ones, and a word the table does not know is refused with a
 * message naming the option and every word it takes; the configuration is
 * then not used. The last line that sets an option counts, as for every
 * option: its word is checked once the file is read.
 */
#include "referee.h"
#include "unit_run.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

/* Loads `text` as an INI file over the defaults; the result of
 * ref_config_load, its message in err. */
static int load(const char *text, struct ref_config *cfg, char *err, size_t cap)
{
  int fd;
  FILE *f;
  int rc;

  snprintf(path, sizeof(path), "/tmp/tabula-test-config-XXXXXX");
  fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  f = fdopen(fd, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
  ref_config_defaults(cfg);
  err[0] = '\0';
  rc = ref_config_load(cfg, path, err, cap);
  unlink(path);
  return rc;
}

struct word_case {
  const char *line; /* "option = word" */
  size_t offset;    /* the option's field */
  int value;        /* its enum */
};

#define FIELD(f) offsetof(struct ref_config, f)

static const struct word_case words[] = {
  {"source = maildir", FIELD(source), REF_SOURCE_MAILDIR},
  {"source = imap", FIELD(source), REF_SOURCE_IMAP},
  {"source = pop3", FIELD(source), REF_SOURCE_POP3},
  {"sink = maildir", FIELD(sink), REF_SINK_MAILDIR},
  {"sink = smtp", FIELD(sink), REF_SINK_SMTP},
  {"sink = sendmail", FIELD(sink), REF_SINK_SENDMAIL},
  {"in_tls = implicit", FIELD(in_tls), REF_TLS_IMPLICIT},
  {"in_tls = starttls", FIELD(in_tls), REF_TLS_STARTTLS},
  {"in_tls = none", FIELD(in_tls), REF_TLS_NONE},
  {"smtp_tls = implicit", FIELD(smtp_tls), REF_TLS_IMPLICIT},
  {"smtp_tls = starttls", FIELD(smtp_tls), REF_TLS_STARTTLS},
  {"smtp_tls = none", FIELD(smtp_tls), REF_TLS_NONE},
  {"auth = token+from", FIELD(auth), REF_AUTH_TOKEN_FROM},
  {"auth = token", FIELD(auth), REF_AUTH_TOKEN},
  {"keyless = confirm", FIELD(keyless), REF_KEYLESS_CONFIRM},
  {"keyless = act", FIELD(keyless), REF_KEYLESS_ACT},
  {"keyless = off", FIELD(keyless), REF_KEYLESS_OFF},
  {"timeout = auto", FIELD(timeout), REF_TIMEOUT_AUTO},
  {"timeout = claim", FIELD(timeout), REF_TIMEOUT_CLAIM},
  {"log_format = auto", FIELD(log_format), REF_LOG_FORMAT_AUTO},
  {"log_format = journal", FIELD(log_format), REF_LOG_FORMAT_JOURNAL},
  {"log_format = plain", FIELD(log_format), REF_LOG_FORMAT_PLAIN},
  {"recipient_delimiter = +", FIELD(recipient_delimiter), '+'},
  {"recipient_delimiter = -", FIELD(recipient_delimiter), '-'},
  {"recipient_delimiter = =", FIELD(recipient_delimiter), '='},
  {"recipient_delimiter = _", FIELD(recipient_delimiter), '_'},
};

static int field_of(const struct ref_config *cfg, size_t offset)
{
  int v;
  memcpy(&v, (const char *)cfg + offset, sizeof(v));
  return v;
}

/* Each word of each enum option is stored as its enum. Every case sets a
 * word other than the option's default at least once, so a table that
 * ignored the file would fail. */
START_TEST(test_word_maps_to_enum)
{
  const struct word_case *w = &words[_i];
  struct ref_config cfg;
  char text[128], err[512];

  snprintf(text, sizeof(text), "[tabula]\n%s\n", w->line);
  ck_assert_msg(load(text, &cfg, err, sizeof(err)) == 0, "%s: %s", w->line, err);
  ck_assert_msg(field_of(&cfg, w->offset) == w->value, "%s: stored %d, not %d", w->line,
                field_of(&cfg, w->offset), w->value);
}
END_TEST

/* The defaults the table documents (and check-config prints). */
START_TEST(test_defaults)
{
  struct ref_config cfg;
  ref_config_defaults(&cfg);
  ck_assert_int_eq(cfg.source, REF_SOURCE_MAILDIR);
  ck_assert_int_eq(cfg.sink, REF_SINK_MAILDIR);
  ck_assert_int_eq(cfg.in_tls, REF_TLS_IMPLICIT);
  ck_assert_int_eq(cfg.smtp_tls, REF_TLS_STARTTLS);
  ck_assert_int_eq(cfg.auth, REF_AUTH_TOKEN_FROM);
  ck_assert_int_eq(cfg.keyless, REF_KEYLESS_CONFIRM);
  ck_assert_int_eq(cfg.timeout, REF_TIMEOUT_AUTO);
  ck_assert_int_eq(cfg.log_format, REF_LOG_FORMAT_AUTO);
  ck_assert_int_eq(cfg.recipient_delimiter, '+');
}
END_TEST

struct refusal {
  const char *line;
  const char *said; /* the whole message after "PATH: " */
};

static const struct refusal refusals[] = {
  {"source = mbox", "source: 'mbox' is not one of maildir, imap, pop3"},
  {"sink = lmtp", "sink: 'lmtp' is not one of maildir, smtp, sendmail"},
  {"in_tls = ssl", "in_tls: 'ssl' is not one of implicit, starttls, none"},
  {"smtp_tls = tls", "smtp_tls: 'tls' is not one of starttls, implicit, none"},
  {"auth = anything", "auth: 'anything' is neither token+from nor token"},
  {"keyless = maybe", "keyless: 'maybe' is not one of confirm, act, off"},
  {"timeout = never", "timeout: 'never' is neither auto nor claim"},
  {"log_format = syslog", "log_format: 'syslog' is not one of auto, journal, plain"},
  {"recipient_delimiter = .", "recipient_delimiter: '.' is not one of +, -, =, _"},
  /* words are taken as written: no case folding, no prefixes */
  {"source = IMAP", "source: 'IMAP' is not one of maildir, imap, pop3"},
  {"auth = token+", "auth: 'token+' is neither token+from nor token"},
  {"sink =", "sink: '' is not one of maildir, smtp, sendmail"},
};

/* An unknown word: refused with the file, the option, the word and every
 * word the option takes. */
START_TEST(test_unknown_word_refused)
{
  const struct refusal *r = &refusals[_i];
  struct ref_config cfg;
  char text[160], err[512], want[512];

  snprintf(text, sizeof(text), "; a comment\n[tabula]\n%s\n", r->line);
  ck_assert_int_eq(load(text, &cfg, err, sizeof(err)), REF_CONFIG_EINVALID);
  snprintf(want, sizeof(want), "%s: %s", path, r->said);
  ck_assert_str_eq(err, want);
}
END_TEST

/* The last line that sets an option counts: a word refused on an earlier
 * line and set right later is fine (mail cases append lines to their
 * configuration), a good word set wrong later is refused. */
START_TEST(test_last_line_counts)
{
  struct ref_config cfg;
  char err[512], want[512];

  ck_assert_int_eq(load("auth = anything\nkeyless = off\nauth = token\n", &cfg, err,
                        sizeof(err)),
                   0);
  ck_assert_int_eq(cfg.auth, REF_AUTH_TOKEN);
  ck_assert_int_eq(cfg.keyless, REF_KEYLESS_OFF);
  ck_assert_int_eq(load("sink = smtp\nsink = uucp\n", &cfg, err, sizeof(err)),
                   REF_CONFIG_EINVALID);
  snprintf(want, sizeof(want), "%s: sink: 'uucp' is not one of maildir, smtp, sendmail", path);
  ck_assert_str_eq(err, want);
}
END_TEST

/* The transports' options that hang together are still checked after the
 * file (ref_config_check_mail): a network source needs its host. */
START_TEST(test_transport_needs)
{
  struct ref_config cfg;
  char err[512];

  ck_assert_int_eq(load("source = imap\n", &cfg, err, sizeof(err)), 0);
  ck_assert_int_eq(ref_config_check_mail(&cfg, err, sizeof(err)), -1);
  ck_assert_str_eq(err, "source = imap needs in_host");
  ck_assert_int_eq(load("source = pop3\nin_host = mail.example\n", &cfg, err, sizeof(err)), 0);
  ck_assert_int_eq(ref_config_check_mail(&cfg, err, sizeof(err)), 0);
  ck_assert_int_eq(load("sink = smtp\n", &cfg, err, sizeof(err)), 0);
  ck_assert_int_eq(ref_config_check_mail(&cfg, err, sizeof(err)), -1);
  ck_assert_str_eq(err, "sink = smtp needs smtp_host");
  ck_assert_int_eq(load("sink = sendmail\nsendmail_path = sendmail\n", &cfg, err, sizeof(err)),
                   0);
  ck_assert_int_eq(ref_config_check_mail(&cfg, err, sizeof(err)), -1);
  ck_assert_str_eq(err, "sendmail_path must be an absolute path");
  ck_assert_int_eq(load("", &cfg, err, sizeof(err)), 0);
  ck_assert_int_eq(ref_config_check_mail(&cfg, err, sizeof(err)), 0);
}
END_TEST

/* check-config prints each enum option as its word. */
START_TEST(test_dump_words)
{
  struct ref_config cfg;
  char err[512], buf[16384];
  FILE *f = tmpfile();
  size_t n;

  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(load("source = pop3\nsink = sendmail\nkeyless = act\ntimeout = claim\n"
                        "recipient_delimiter = _\nin_tls = none\nlog_format = journal\n"
                        "auth = token\n",
                        &cfg, err, sizeof(err)),
                   0);
  ref_config_dump(f, &cfg);
  rewind(f);
  n = fread(buf, 1, sizeof(buf) - 1, f);
  buf[n] = '\0';
  fclose(f);
  ck_assert_ptr_nonnull(strstr(buf, "\nsource = pop3\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nsink = sendmail\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nkeyless = act\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\ntimeout = claim\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nrecipient_delimiter = _\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nin_tls = none\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nsmtp_tls = starttls\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nlog_format = journal\n"));
  ck_assert_ptr_nonnull(strstr(buf, "\nauth = token\n"));
}
END_TEST

static Suite *config_suite(void)
{
  Suite *s = suite_create("config");
  TCase *tc = tcase_create("enum options");
  tcase_add_loop_test(tc, test_word_maps_to_enum, 0, (int)(sizeof(words) / sizeof(words[0])));
  tcase_add_test(tc, test_defaults);
  tcase_add_loop_test(tc, test_unknown_word_refused, 0,
                      (int)(sizeof(refusals) / sizeof(refusals[0])));
  tcase_add_test(tc, test_last_line_counts);
  tcase_add_test(tc, test_transport_needs);
  tcase_add_test(tc, test_dump_words);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(config_suite());
}
