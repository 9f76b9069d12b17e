/*
 * test_authres.c: the Authentication-Results reader (mail/authres.c) on
 * RFC 8601 Appendix B's own examples, read field by field, then on hostile
 * fields: what a forger can put into a mail (its envelope address, a
 * reason a server copies, a field of its own below the server's) must
 * never make the trusted server's field vouch for a domain (rules-spec
 * AR-1).
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mail.h"
#include "unit_run.h"

static struct mail_authres ar;

static int parse(const char *s)
{
  return mail_authres_parse(&ar, s, strlen(s));
}

/* The folding of a field as a mail carries it; mail_msg.auth_results
 * holds it with CR LF made spaces, and the reader takes either. */

/* B.2: "Nearly Trivial Case; Service Provided, but No Authentication
 * Done", with a version. */
START_TEST(test_rfc8601_b2)
{
  ck_assert_int_eq(parse("example.org 1; none"), 0);
  ck_assert_str_eq(ar.authserv_id, "example.org");
  ck_assert_int_eq(ar.version, 1);
  ck_assert(ar.none);
  ck_assert_int_eq(ar.nres, 0);
  ck_assert(!mail_authres_vouches("example.org 1; none", "example.org", "example.org"));
}
END_TEST

/* B.3: "Service Provided, Authentication Done". */
START_TEST(test_rfc8601_b3)
{
  ck_assert_int_eq(parse("example.com;\r\n          spf=pass smtp.mailfrom=example.net"), 0);
  ck_assert_str_eq(ar.authserv_id, "example.com");
  ck_assert_int_eq(ar.version, 1);
  ck_assert(!ar.none);
  ck_assert_int_eq(ar.nres, 1);
  ck_assert_str_eq(ar.res[0].method, "spf");
  ck_assert_str_eq(ar.res[0].result, "pass");
  ck_assert_int_eq(ar.res[0].nprop, 1);
  ck_assert_str_eq(ar.res[0].prop[0].ptype, "smtp");
  ck_assert_str_eq(ar.res[0].prop[0].property, "mailfrom");
  ck_assert_str_eq(ar.res[0].prop[0].value, "example.net");
  /* SPF binds the envelope, not the From: no vouching */
  ck_assert(!mail_authres_vouches("example.com; spf=pass smtp.mailfrom=example.net",
                                  "example.com", "example.net"));
}
END_TEST

/* B.4: "Service Provided, Several Authentications Done, Single MTA": two
 * fields, a comment as a result's annotation. */
START_TEST(test_rfc8601_b4)
{
  ck_assert_int_eq(parse("example.com;\r\n"
                         "          auth=pass (cram-md5) smtp.auth=sender@example.net;\r\n"
                         "          spf=pass smtp.mailfrom=example.net"),
                   0);
  ck_assert_int_eq(ar.nres, 2);
  ck_assert_str_eq(ar.res[0].method, "auth");
  ck_assert_str_eq(ar.res[0].result, "pass");
  ck_assert_str_eq(ar.res[0].prop[0].ptype, "smtp");
  ck_assert_str_eq(ar.res[0].prop[0].property, "auth");
  ck_assert_str_eq(ar.res[0].prop[0].value, "sender@example.net");
  ck_assert_str_eq(ar.res[1].method, "spf");
  ck_assert_str_eq(ar.res[1].prop[0].value, "example.net");
  ck_assert_int_eq(parse("example.com; iprev=pass\r\n          policy.iprev=192.0.2.200"), 0);
  ck_assert_int_eq(ar.nres, 1);
  ck_assert_str_eq(ar.res[0].method, "iprev");
  ck_assert_str_eq(ar.res[0].prop[0].ptype, "policy");
  ck_assert_str_eq(ar.res[0].prop[0].property, "iprev");
  ck_assert_str_eq(ar.res[0].prop[0].value, "192.0.2.200");
}
END_TEST

/* B.5: "Service Provided, Several Authentications Done, Different MTAs":
 * the top field (the MX's DKIM) and one below it from the same id. */
START_TEST(test_rfc8601_b5)
{
  const char *both = "example.com; dkim=pass (good signature) header.d=example.com\n"
                     "example.com; auth=pass (cram-md5) smtp.auth=sender@example.com; "
                     "spf=fail smtp.mailfrom=example.com";

  ck_assert_int_eq(parse("example.com;\r\n          dkim=pass (good signature) header.d=example.com"),
                   0);
  ck_assert_int_eq(ar.nres, 1);
  ck_assert_str_eq(ar.res[0].method, "dkim");
  ck_assert_str_eq(ar.res[0].result, "pass");
  ck_assert_str_eq(ar.res[0].prop[0].ptype, "header");
  ck_assert_str_eq(ar.res[0].prop[0].property, "d");
  ck_assert_str_eq(ar.res[0].prop[0].value, "example.com");
  ck_assert_int_eq(parse("example.com;\r\n"
                         "          auth=pass (cram-md5) smtp.auth=sender@example.com;\r\n"
                         "          spf=fail smtp.mailfrom=example.com"),
                   0);
  ck_assert_int_eq(ar.nres, 2);
  ck_assert_str_eq(ar.res[1].result, "fail");
  /* the top field vouches (DKIM for the domain) */
  ck_assert(mail_authres_vouches(both, "example.com", "example.com"));
  ck_assert(!mail_authres_vouches(both, "example.com", "example.net"));
}
END_TEST

/* B.6: "Service Provided, Multi-Tiered Authentication Done": reasons as
 * quoted strings, header.i with an "@", two fields from two ids. */
START_TEST(test_rfc8601_b6)
{
  const char *both = "example.com;       dkim=pass reason=\"good signature\"         "
                     "header.i=@mail-router.example.net;       dkim=fail reason=\"bad "
                     "signature\"         header.i=@newyork.example.com\n"
                     "example.net;       dkim=pass (good signature) header.i=@newyork.example.com";

  ck_assert_int_eq(parse("example.com;\r\n"
                         "      dkim=pass reason=\"good signature\"\r\n"
                         "        header.i=@mail-router.example.net;\r\n"
                         "      dkim=fail reason=\"bad signature\"\r\n"
                         "        header.i=@newyork.example.com"),
                   0);
  ck_assert_int_eq(ar.nres, 2);
  ck_assert_str_eq(ar.res[0].method, "dkim");
  ck_assert_str_eq(ar.res[0].result, "pass");
  ck_assert(ar.res[0].reason_given);
  ck_assert_str_eq(ar.res[0].reason, "good signature");
  ck_assert_str_eq(ar.res[0].prop[0].ptype, "header");
  ck_assert_str_eq(ar.res[0].prop[0].property, "i");
  ck_assert_str_eq(ar.res[0].prop[0].value, "@mail-router.example.net");
  ck_assert_str_eq(ar.res[1].result, "fail");
  ck_assert_str_eq(ar.res[1].reason, "bad signature");
  ck_assert_str_eq(ar.res[1].prop[0].value, "@newyork.example.com");
  ck_assert_int_eq(parse("example.net;\r\n"
                         "      dkim=pass (good signature) header.i=@newyork.example.com"),
                   0);
  ck_assert_str_eq(ar.authserv_id, "example.net");
  ck_assert_str_eq(ar.res[0].prop[0].value, "@newyork.example.com");
  ck_assert_int_eq(mail_authres_parse(&ar, both, strcspn(both, "\n")), 0);
  /* header.i is no header.d: neither field vouches for a domain */
  ck_assert(!mail_authres_vouches(both, "example.com", "newyork.example.com"));
  ck_assert(!mail_authres_vouches(both, "example.net", "newyork.example.com"));
}
END_TEST

/* B.7: "Comment-Heavy Example": comments between every token, a version
 * on the authserv-id and on the method. */
START_TEST(test_rfc8601_b7)
{
  ck_assert_int_eq(parse("foo.example.net (foobar) 1 (baz);\r\n"
                         "    dkim (Because I like it) / 1 (One yay) = (wait for it) fail\r\n"
                         "      policy (A dot can go here) . (like that) expired\r\n"
                         "      (this surprised me) = (as I wasn't expecting it) 1362471462"),
                   0);
  ck_assert_str_eq(ar.authserv_id, "foo.example.net");
  ck_assert_int_eq(ar.version, 1);
  ck_assert_int_eq(ar.nres, 1);
  ck_assert_str_eq(ar.res[0].method, "dkim");
  ck_assert_int_eq(ar.res[0].version, 1);
  ck_assert_str_eq(ar.res[0].result, "fail");
  ck_assert_int_eq(ar.res[0].nprop, 1);
  ck_assert_str_eq(ar.res[0].prop[0].ptype, "policy");
  ck_assert_str_eq(ar.res[0].prop[0].property, "expired");
  ck_assert_str_eq(ar.res[0].prop[0].value, "1362471462");
}
END_TEST

/* What real servers write, vouching as they should. */
START_TEST(test_authres_real)
{
  /* Gmail's form: comments with ":" and "=", header.b with "/" and "+" */
  const char *gmail =
      "mx.google.com;       dkim=pass header.i=@example.org header.s=20230601 "
      "header.b=AbC/dE+f;       spf=pass (google.com: domain of a@example.org designates "
      "192.0.2.1 as permitted sender) smtp.mailfrom=a@example.org;       dmarc=pass "
      "(p=NONE sp=NONE dis=NONE) header.from=example.org";
  ck_assert_int_eq(parse(gmail), 0);
  ck_assert_int_eq(ar.nres, 3);
  ck_assert_str_eq(ar.res[0].prop[2].value, "AbC/dE+f");
  ck_assert(mail_authres_vouches(gmail, "mx.google.com", "example.org"));
  ck_assert(mail_authres_vouches(gmail, "MX.Google.COM", "Example.ORG"));
  ck_assert(!mail_authres_vouches(gmail, "google.com", "example.org"));
  ck_assert(!mail_authres_vouches(gmail, "mx.google.com", "evil.example.org"));
  /* a quoted domain is the domain (RFC 2045 value) */
  ck_assert(mail_authres_vouches("mx.example.org; dkim=pass header.d=\"example.org\"",
                                 "mx.example.org", "example.org"));
  /* a quoted authserv-id too */
  ck_assert(mail_authres_vouches("\"mx.example.org\"; dmarc=pass header.from=example.org",
                                 "mx.example.org", "example.org"));
  /* another server's field above the trusted one's (an internal relay) */
  ck_assert(mail_authres_vouches("relay.example.org; spf=none smtp.mailfrom=x\n"
                                 "mx.example.org; dmarc=pass header.from=example.org",
                                 "mx.example.org", "example.org"));
  /* nothing configured, or nothing there */
  ck_assert(!mail_authres_vouches(gmail, "", "example.org"));
  ck_assert(!mail_authres_vouches("", "mx.google.com", "example.org"));
}
END_TEST

#define TRUSTED "mx.example.test"
#define DOMAIN "example.test"

static void refused(const char *fields, const char *why)
{
  if(mail_authres_vouches(fields, TRUSTED, DOMAIN))
    ck_abort_msg("vouched for %s: %s", why, fields);
}

/* Hostile fields: each would have a forged From act at once if read
 * wrong; none vouches. */
START_TEST(test_authres_hostile)
{
  char big[MAIL_AUTHRES_MAX + 200];
  size_t n;

  /* 1. a ";" in a quoted local-part of the envelope address */
  refused(TRUSTED "; spf=fail smtp.mailfrom=\"x;dmarc=pass header.from=" DOMAIN
                  "\"@evil.test; dmarc=fail header.from=" DOMAIN,
          "a quoted ;");
  ck_assert_int_eq(parse(TRUSTED "; spf=fail smtp.mailfrom=\"x;dmarc=pass header.from=" DOMAIN
                                 "\"@evil.test; dmarc=fail header.from=" DOMAIN),
                   0);
  ck_assert_int_eq(ar.nres, 2);
  ck_assert_str_eq(ar.res[0].prop[0].value, "x;dmarc=pass header.from=" DOMAIN "@evil.test");
  ck_assert(ar.res[0].prop[0].quoted);
  ck_assert_str_eq(ar.res[1].result, "fail");
  /* 2. a ";" in a quoted reason */
  refused(TRUSTED "; dkim=fail reason=\"bad; dkim=pass header.d=" DOMAIN "\" header.d=evil.test",
          "a quoted reason");
  ck_assert_int_eq(parse(TRUSTED "; dkim=fail reason=\"bad; dkim=pass header.d=" DOMAIN
                                 "\" header.d=evil.test"),
                   0);
  ck_assert_int_eq(ar.nres, 1);
  /* 3. a ";" and "=pass" in a comment */
  refused(TRUSTED "; dmarc=fail (p=reject; dmarc=pass header.from=" DOMAIN ") header.from=" DOMAIN,
          "a comment");
  /* 4. nested comments, the inner ")" closing only the inner one */
  refused(TRUSTED "; dmarc=fail (a (b) ; dmarc=pass header.from=" DOMAIN ") header.from=" DOMAIN,
          "nested comments");
  ck_assert_int_eq(parse(TRUSTED "; dmarc=fail (a (b) ; c) header.from=" DOMAIN), 0);
  ck_assert_int_eq(ar.nres, 1);
  /* 5. an unbalanced quote: unreadable, so nothing */
  refused(TRUSTED "; spf=fail smtp.mailfrom=\"x; dmarc=pass header.from=" DOMAIN, "an open quote");
  ck_assert_int_eq(parse(TRUSTED "; spf=fail smtp.mailfrom=\"x; dmarc=pass header.from=" DOMAIN),
                   -1);
  /* 6. an unbalanced comment, and one nested past any server's */
  refused(TRUSTED "; dmarc=fail (x; dmarc=pass header.from=" DOMAIN, "an open comment");
  refused(TRUSTED "; dmarc=pass ((((((((((((((((((x)))))))))))))))))) header.from=" DOMAIN,
          "17 nested comments");
  /* 7. a field claiming the trusted id below the trusted server's own */
  refused(TRUSTED "; dmarc=none header.from=" DOMAIN "\n" TRUSTED "; dmarc=pass header.from=" DOMAIN,
          "a second field below");
  refused(TRUSTED "; none\n" TRUSTED "; dmarc=pass header.from=" DOMAIN, "below a none");
  /* ... and one from an id that only looks like it */
  refused("mx.example.test.evil.test; dmarc=pass header.from=" DOMAIN, "a longer id");
  refused("evil.test (" TRUSTED "); dmarc=pass header.from=" DOMAIN, "the id in a comment");
  refused("\"" TRUSTED ";\"; dmarc=pass header.from=" DOMAIN, "a quoted id with a ;");
  /* 8. case tricks: the domain in header.d of a longer name, a property
   * "From" of another ptype, "pass" spelt into a longer result */
  refused(TRUSTED "; dkim=pass header.d=" DOMAIN ".evil.test", "a longer domain");
  refused(TRUSTED "; dkim=pass header.d=evil-" DOMAIN, "a suffix domain");
  refused(TRUSTED "; dmarc=pass smtp.from=" DOMAIN, "another ptype");
  refused(TRUSTED "; dmarc=passed header.from=" DOMAIN, "a longer result");
  refused(TRUSTED "; dmarc=fail header.from=" DOMAIN "; DKIM=PASS header.d=" DOMAIN,
          "DMARC failed for the domain");
  ck_assert(mail_authres_vouches("MX.Example.Test; DMARC=Pass Header.From=Example.TEST", TRUSTED,
                                 DOMAIN));
  /* 9. version numbers: a field version, a method version, junk after them */
  ck_assert(mail_authres_vouches(TRUSTED " 1; dmarc/1=pass header.from=" DOMAIN, TRUSTED, DOMAIN));
  refused(TRUSTED " 1 2; dmarc=pass header.from=" DOMAIN, "two versions");
  refused(TRUSTED " 1x; dmarc=pass header.from=" DOMAIN, "a version with a letter");
  refused(TRUSTED "; dmarc/1/2=pass header.from=" DOMAIN, "two method versions");
  refused(TRUSTED " 99999999999; dmarc=pass header.from=" DOMAIN, "an overlong version");
  /* 10. dmarc=pass in a property's value, quoted and not */
  refused(TRUSTED "; spf=pass smtp.mailfrom=\"dmarc=pass header.from=" DOMAIN "\"",
          "dmarc=pass in a value");
  refused(TRUSTED "; spf=pass smtp.mailfrom=dmarc=pass header.from=" DOMAIN,
          "dmarc=pass unquoted in a value");
  refused(TRUSTED "; dmarc=fail header.from=\"" DOMAIN " dmarc=pass\"", "a quoted pass");
  /* 11. overlong: a field past MAIL_AUTHRES_MAX is unreadable, whole */
  n = (size_t)snprintf(big, sizeof(big), TRUSTED "; dmarc=pass header.from=" DOMAIN " (");
  memset(big + n, 'x', sizeof(big) - n - 2);
  big[sizeof(big) - 2] = ')';
  big[sizeof(big) - 1] = '\0';
  refused(big, "an overlong field");
  ck_assert_int_eq(parse(big), -2);
  /* 12. a NUL inside, 8-bit text where the grammar wants a token, a
   * control character */
  ck_assert_int_eq(mail_authres_parse(&ar, TRUSTED "; dmarc=pass\0 header.from=" DOMAIN,
                                      sizeof(TRUSTED "; dmarc=pass\0 header.from=" DOMAIN) - 1),
                   -2);
  refused(TRUSTED "; dmarc=pass header.from=" DOMAIN "\xc3\xa9", "8-bit after the domain");
  refused(TRUSTED "; dmarc\xc3\xa9=pass header.from=" DOMAIN, "8-bit in a method");
  refused(TRUSTED "; dmarc=pass\x01 header.from=" DOMAIN, "a control character");
  ck_assert(mail_authres_vouches(TRUSTED " (caf\xc3\xa9); dmarc=pass (\xc3\xa9) header.from=" DOMAIN,
                                 TRUSTED, DOMAIN)); /* RFC 8616: 8-bit in comments */
  /* 13. "none" with results after it; an empty resinfo; a trailing ";" */
  refused(TRUSTED "; none; dmarc=pass header.from=" DOMAIN, "none and a result");
  refused(TRUSTED ";; dmarc=pass header.from=" DOMAIN, "an empty resinfo");
  refused(TRUSTED "; dmarc=pass header.from=" DOMAIN ";", "a trailing ;");
  /* 14. a field above the trusted one whose id cannot be read: it may be
   * the trusted server's own, so the one below is not taken */
  refused("\"unclosed; dmarc=none\n" TRUSTED "; dmarc=pass header.from=" DOMAIN,
          "an unreadable field on top");
  /* 15. a local-part or an "@" before the domain is another identity */
  refused(TRUSTED "; dkim=pass header.d=@" DOMAIN, "an @ before the domain");
  refused(TRUSTED "; dmarc=pass header.from=x@" DOMAIN, "a local-part");
  /* 16. a quoted-pair hiding the closing quote */
  refused(TRUSTED "; spf=pass smtp.mailfrom=\"x\\\"; dmarc=pass header.from=" DOMAIN,
          "an escaped quote");
}
END_TEST

/* mail_parse keeps every field, topmost first, folding undone; a field
 * that does not fit ends the list, so a forged field below the server's
 * own never takes its place. */
START_TEST(test_authres_from_mail)
{
  const char *raw = "Authentication-Results: mx.example.test;\r\n"
                    "\tdmarc=fail (p=reject;\r\n dis=reject) header.from=example.test\r\n"
                    "Authentication-Results: mx.example.test; dmarc=pass header.from=example.test\r\n"
                    "From: a@example.test\r\nTo: referee@example.org\r\nSubject: x\r\n\r\ne4\r\n";
  struct mail_msg *m = NULL;
  char err[128], *big;
  size_t n, k;

  ck_assert_int_eq(mail_parse(&m, raw, strlen(raw), err, sizeof(err)), MAIL_OK);
  ck_assert_str_eq(m->auth_results,
                   "mx.example.test;   dmarc=fail (p=reject;   dis=reject) header.from=example.test\n"
                   "mx.example.test; dmarc=pass header.from=example.test");
  ck_assert(!mail_authres_vouches(m->auth_results, "mx.example.test", "example.test"));
  mail_msg_free(m);
  /* the server's own field too long to keep: the forged one below is not
   * kept either */
  n = MAIL_AUTHRES_FIELDS + 4096;
  big = malloc(n);
  ck_assert_ptr_nonnull(big);
  k = (size_t)snprintf(big, n, "Authentication-Results: mx.example.test; dmarc=fail (");
  while(k < MAIL_AUTHRES_FIELDS + 100) {
    static const char line[] = "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r\n ";
    memcpy(big + k, line, sizeof(line) - 1);
    k += sizeof(line) - 1;
  }
  snprintf(big + k, n - k,
           ") header.from=example.test\r\n"
           "Authentication-Results: mx.example.test; dmarc=pass header.from=example.test\r\n"
           "From: a@example.test\r\nTo: referee@example.org\r\nSubject: x\r\n\r\ne4\r\n");
  ck_assert_int_eq(mail_parse(&m, big, strlen(big), err, sizeof(err)), MAIL_OK);
  ck_assert_str_eq(m->auth_results, "");
  ck_assert(!mail_authres_vouches(m->auth_results, "mx.example.test", "example.test"));
  mail_msg_free(m);
  free(big);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("authres");
  TCase *tc = tcase_create("rfc8601");

  tcase_add_test(tc, test_rfc8601_b2);
  tcase_add_test(tc, test_rfc8601_b3);
  tcase_add_test(tc, test_rfc8601_b4);
  tcase_add_test(tc, test_rfc8601_b5);
  tcase_add_test(tc, test_rfc8601_b6);
  tcase_add_test(tc, test_rfc8601_b7);
  suite_add_tcase(s, tc);
  tc = tcase_create("hostile");
  tcase_add_test(tc, test_authres_real);
  tcase_add_test(tc, test_authres_hostile);
  tcase_add_test(tc, test_authres_from_mail);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
