/*
 * test_mail.c: unit tests of tabula_mail (mail/mail.h).
 *
 * The parser and the cleaner are tested on a corpus of real-looking mails,
 * tests/data/mail/NN_name.eml, each with a sidecar NN_name.expect:
 *
 *   # comment
 *   result: ok | eparse | etoobig
 *   from: ...            (and any of from_name, sender, to, delivered_to,
 *   message_id: ...       in_reply_to, references, subject, auto_submitted,
 *   subject: ...          precedence, list yes|no, why)
 *   automatic: yes|no    (mail_is_automatic with own address OWN_ADDRESS)
 *   text_has: ...        (repeatable: must occur in the decoded text)
 *   text_lacks: ...      (repeatable: must not occur in it)
 *   clean:
 *   <the exact cleaned text, every line ending in LF>
 *   .end
 *
 * An empty value ("message_id:") expects the empty string. Then the same
 * mails, truncated and mutated, are fed back to check that hostile input
 * never crashes (run under ASan) and never yields a value that breaks the
 * guarantees of mail.h. The rest: address/msg-id checks, RFC 3834 rules,
 * composition and its round trip through mail_parse, and the Maildir.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mail.h"
#include "mail_int.h" /* mail_structure_check, checked against libetpan's own tree */
#include "support/support.h"
#include "unit_run.h"

#include <libetpan/libetpan.h>

#define CORPUS TABULA_TEST_DATA "/mail"
#define OWN_ADDRESS "referee@example.test"

/* ---- helpers ---- */

/* The corpus' .eml names, sorted; *n gets the count. */
static char **corpus_names(size_t *n)
{
  DIR *d = opendir(CORPUS);
  struct dirent *e;
  char **names = NULL;
  size_t count = 0;

  ck_assert_msg(d != NULL, "cannot open %s", CORPUS);
  for(e = readdir(d); e; e = readdir(d)) {
    size_t len = strlen(e->d_name);
    if(len < 5 || strcmp(e->d_name + len - 4, ".eml"))
      continue;
    names = realloc(names, (count + 1) * sizeof(*names));
    ck_assert_ptr_nonnull(names);
    names[count] = strdup(e->d_name);
    ck_assert_ptr_nonnull(names[count]);
    count++;
  }
  closedir(d);
  qsort(names, count, sizeof(*names), ts_cmp_str);
  *n = count;
  return names;
}

static void free_names(char **names, size_t n)
{
  size_t i;

  for(i = 0; i < n; i++)
    free(names[i]);
  free(names);
}

static bool utf8_ok(const char *s)
{
  const unsigned char *u = (const unsigned char *)s;

  while(*u) {
    size_t k;
    size_t i;
    if(*u < 0x80) {
      u++;
      continue;
    }
    if(*u >= 0xc2 && *u < 0xe0)
      k = 2;
    else if(*u >= 0xe0 && *u < 0xf0)
      k = 3;
    else if(*u >= 0xf0 && *u < 0xf5)
      k = 4;
    else
      return false;
    for(i = 1; i < k; i++) {
      if((u[i] & 0xc0) != 0x80)
        return false;
    }
    u += k;
  }
  return true;
}

/* No CR, and no control but TAB and (when lines) LF. */
static bool controls_ok(const char *s, bool lines)
{
  for(; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if(c == '\t' || (lines && c == '\n'))
      continue;
    if(c < 0x20 || c == 0x7f)
      return false;
  }
  return true;
}

/* The guarantees mail.h makes about every parsed message, whatever came in. */
static void check_invariants(const struct mail_msg *m, const char *what)
{
  const char *r = m->references;
  const char *why = NULL;

  ck_assert_msg(mail_addr_valid(m->from), "%s: from '%s' not valid", what, m->from);
  ck_assert_msg(!m->sender[0] || !strcmp(m->sender, "<>") || mail_addr_valid(m->sender),
                "%s: sender", what);
  ck_assert_msg(!m->to[0] || mail_addr_valid(m->to), "%s: to", what);
  ck_assert_msg(!m->delivered_to[0] || mail_addr_valid(m->delivered_to), "%s: delivered_to", what);
  ck_assert_msg(!m->message_id[0] || mail_msgid_valid(m->message_id), "%s: message_id", what);
  ck_assert_msg(!m->in_reply_to[0] || mail_msgid_valid(m->in_reply_to), "%s: in_reply_to", what);
  while(*r) {
    char id[256];
    size_t k = strcspn(r, " ");
    ck_assert_msg(k > 0 && k < sizeof(id), "%s: references '%s'", what, m->references);
    memcpy(id, r, k);
    id[k] = '\0';
    ck_assert_msg(mail_msgid_valid(id), "%s: reference '%s'", what, id);
    r += k;
    if(*r)
      r++;
  }
  ck_assert_msg(utf8_ok(m->from_name) && controls_ok(m->from_name, false), "%s: from_name", what);
  ck_assert_msg(utf8_ok(m->subject) && controls_ok(m->subject, false), "%s: subject", what);
  ck_assert_msg(controls_ok(m->auto_submitted, false) && controls_ok(m->precedence, false),
                "%s: tokens", what);
  ck_assert_msg(m->text && m->clean, "%s: text/clean NULL", what);
  ck_assert_msg(utf8_ok(m->text) && controls_ok(m->text, true), "%s: text", what);
  ck_assert_msg(utf8_ok(m->clean) && controls_ok(m->clean, true), "%s: clean", what);
  mail_is_automatic(m, OWN_ADDRESS, &why);
  ck_assert_ptr_nonnull(why);
}

/* ---- the corpus ---- */

struct expect {
  char *buf;
  char *keys[64];
  char *values[64];
  size_t n;
  char *clean; /* NULL when the file has no clean: section */
};

/* Splits an .expect file into key/value pairs and the clean text. */
static bool expect_load(struct expect *e, const char *path)
{
  size_t len;
  char *p;

  memset(e, 0, sizeof(*e));
  e->buf = ts_slurp(path, &len);
  if(!e->buf)
    return false;
  p = e->buf;
  while(*p) {
    char *nl = strchr(p, '\n');
    char *colon;
    if(!nl)
      return false;
    *nl = '\0';
    if(p[0] == '#' || !p[0]) {
      p = nl + 1;
      continue;
    }
    if(!strcmp(p, "clean:")) {
      char *end = strstr(nl + 1, ".end\n");
      if(!end || end[5])
        return false;
      *end = '\0';
      e->clean = nl + 1;
      break;
    }
    colon = strchr(p, ':');
    if(!colon || e->n == 64)
      return false;
    *colon = '\0';
    e->keys[e->n] = p;
    e->values[e->n] = colon[1] == ' ' ? colon + 2 : colon + 1;
    e->n++;
    p = nl + 1;
  }
  return true;
}

static const char *expect_get(const struct expect *e, const char *key)
{
  size_t i;

  for(i = 0; i < e->n; i++) {
    if(!strcmp(e->keys[i], key))
      return e->values[i];
  }
  return NULL;
}

/* raw with the line before its last line (the closing MIME delimiter, after
 * an attachment's last base64 line) repeated until the whole is at least
 * size bytes: a big attachment without a big file in the corpus. */
static char *inflate(const char *raw, size_t len, size_t size, size_t *out_len)
{
  size_t last = len;
  size_t prev;
  size_t unit;
  size_t copies;
  size_t k = 0;
  size_t i;
  char *buf;

  /* start of the last non-empty line, then of the one before it */
  while(last > 0 && (raw[last - 1] == '\n' || raw[last - 1] == '\r'))
    last--;
  while(last > 0 && raw[last - 1] != '\n')
    last--;
  ck_assert_uint_gt(last, 0);
  prev = last - 1;
  while(prev > 0 && raw[prev - 1] != '\n')
    prev--;
  unit = last - prev;
  ck_assert_uint_gt(unit, 2);
  copies = size > len ? (size - len + unit - 1) / unit : 0;
  buf = malloc(len + copies * unit);
  ck_assert_ptr_nonnull(buf);
  memcpy(buf, raw, last);
  k = last;
  for(i = 0; i < copies; i++, k += unit)
    memcpy(buf + k, raw + prev, unit);
  memcpy(buf + k, raw + last, len - last);
  *out_len = k + len - last;
  return buf;
}

/* Counts and reports one mismatch (all of a file's are reported). */
static int differ(const char *file, const char *what, const char *want, const char *got)
{
  fprintf(stderr, "%s: %s: expected [%s], got [%s]\n", file, what, want, got);
  return 1;
}

static int check_field(const char *file, const struct expect *e, const char *key, const char *got)
{
  const char *want = expect_get(e, key);

  if(!want || !strcmp(want, got))
    return 0;
  return differ(file, key, want, got);
}

static int check_one(const char *name)
{
  char path[512];
  struct expect e;
  struct mail_msg *m = NULL;
  char errbuf[128];
  const char *result;
  const char *why = NULL;
  char *raw;
  size_t len = 0;
  bool automatic;
  int bad = 0;
  int rc;
  size_t i;

  snprintf(path, sizeof(path), "%s/%s", CORPUS, name);
  raw = ts_slurp(path, &len);
  ck_assert_msg(raw != NULL, "cannot read %s", path);
  snprintf(path + strlen(path) - 4, 8, ".expect");
  ck_assert_msg(expect_load(&e, path), "bad or missing %s", path);
  result = expect_get(&e, "result");
  ck_assert_msg(result != NULL, "%s: no result", path);
  rc = mail_parse(&m, raw, len, errbuf, sizeof(errbuf));
  if(strcmp(result, "ok")) {
    int want = !strcmp(result, "eparse") ? MAIL_EPARSE : MAIL_ETOOBIG;
    if(rc != want || m) {
      fprintf(stderr, "%s: expected %s, got %d\n", name, result, rc);
      bad++;
    }
    goto out;
  }
  if(rc) {
    fprintf(stderr, "%s: mail_parse failed: %d %s\n", name, rc, errbuf);
    bad++;
    goto out;
  }
  /* The brief's required fields must be stated in every ok case. */
  ck_assert_msg(expect_get(&e, "from") && expect_get(&e, "message_id") &&
                    expect_get(&e, "subject") && expect_get(&e, "automatic") && e.clean,
                "%s: from, message_id, subject, automatic and clean are required", name);
  check_invariants(m, name);
  bad += check_field(name, &e, "from", m->from);
  bad += check_field(name, &e, "from_name", m->from_name);
  bad += check_field(name, &e, "sender", m->sender);
  bad += check_field(name, &e, "to", m->to);
  bad += check_field(name, &e, "delivered_to", m->delivered_to);
  bad += check_field(name, &e, "message_id", m->message_id);
  bad += check_field(name, &e, "in_reply_to", m->in_reply_to);
  bad += check_field(name, &e, "references", m->references);
  bad += check_field(name, &e, "subject", m->subject);
  bad += check_field(name, &e, "auto_submitted", m->auto_submitted);
  bad += check_field(name, &e, "precedence", m->precedence);
  bad += check_field(name, &e, "list", m->list ? "yes" : "no");
  automatic = mail_is_automatic(m, OWN_ADDRESS, &why);
  bad += check_field(name, &e, "automatic", automatic ? "yes" : "no");
  bad += check_field(name, &e, "why", why);
  for(i = 0; i < e.n; i++) {
    if(!strcmp(e.keys[i], "text_has") && !strstr(m->text, e.values[i]))
      bad += differ(name, "text_has", e.values[i], m->text);
    if(!strcmp(e.keys[i], "text_lacks") && strstr(m->text, e.values[i]))
      bad += differ(name, "text_lacks", e.values[i], m->text);
  }
  if(strcmp(m->clean, e.clean))
    bad += differ(name, "clean", e.clean, m->clean);
  if(expect_get(&e, "inflate")) {
    /* The same mail grown past a limit: refused whole, nothing returned. */
    size_t big_len = 0;
    char *big = inflate(raw, len, (size_t)strtoul(expect_get(&e, "inflate"), NULL, 10), &big_len);
    struct mail_msg *b = NULL;
    const char *want = expect_get(&e, "inflated_result");
    ck_assert_msg(want && !strcmp(want, "etoobig"), "%s: inflated_result: etoobig", name);
    ck_assert_uint_ge(big_len, strtoul(expect_get(&e, "inflate"), NULL, 10));
    rc = mail_parse(&b, big, big_len, errbuf, sizeof(errbuf));
    if(rc != MAIL_ETOOBIG || b) {
      fprintf(stderr, "%s: inflated to %zu bytes: expected etoobig, got %d\n", name, big_len, rc);
      bad++;
    }
    mail_msg_free(b);
    free(big);
  }
out:
  mail_msg_free(m);
  free(e.buf);
  free(raw);
  return bad;
}

START_TEST(test_mail_parse_corpus)
{
  size_t n;
  char **names = corpus_names(&n);
  int bad = 0;
  size_t i;

  /* At least 40 mails as real clients write them */
  ck_assert_uint_ge(n, 40);
  for(i = 0; i < n; i++)
    bad += check_one(names[i]);
  free_names(names, n);
  ck_assert_msg(bad == 0, "%d corpus mismatches (see stderr)", bad);
}
END_TEST

/* ---- hostile input ---- */

/* xorshift64*: the same mutations on every run. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}

static void check_wire(const char *msg, size_t body_max);
static void check_wire_reply(const char *msg);

/* The reply tabula would send to m, threaded as referee/mailout/reply.c does it
 * (In-Reply-To its Message-ID, References its References plus its
 * Message-ID), with every inbound value that can reach a header: the
 * sender's address, the ids, and (harder than reply.c, which writes its
 * own subjects) "Re: " and the inbound Subject. Every mail mail_parse
 * accepts must be answerable: its values were checked on the way in. */
static char *compose_reply(const struct mail_msg *m, char *msgid, const char *what)
{
  struct mail_out o;
  char subject[600];
  char refs[1400];
  char *out = NULL;
  int rc;

  memset(&o, 0, sizeof(o));
  o.from = "referee@example.test";
  o.from_name = "tabula referee";
  o.to = m->from;
  snprintf(subject, sizeof(subject), "Re: %s", m->subject);
  o.subject = subject;
  o.domain = "example.test";
  o.date = 1795428900;
  o.body = m->clean;
  if(m->message_id[0]) {
    o.in_reply_to = m->message_id;
    snprintf(refs, sizeof(refs), "%s%s%s", m->references, m->references[0] ? " " : "",
             m->message_id);
    o.references = refs;
  }
  rc = mail_compose(&out, msgid, &o);
  ck_assert_msg(rc == MAIL_OK, "%s: cannot answer a parsed mail (%d)", what, rc);
  check_wire_reply(out);
  return out;
}

/* The depth and body parts of a tree libetpan built (root 0). */
static void tree_shape(struct mailmime *mm, size_t depth, struct mail_shape *sh)
{
  clistiter *it;

  if(!mm)
    return;
  if(depth > sh->depth)
    sh->depth = depth;
  if(mm->mm_type == MAILMIME_MULTIPLE) {
    for(it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it; it = clist_next(it)) {
      sh->parts++;
      tree_shape(clist_content(it), depth + 1, sh);
    }
  } else if(mm->mm_type == MAILMIME_MESSAGE)
    tree_shape(mm->mm_data.mm_message.mm_msg_mime, depth + 1, sh);
}

/* What structure.c measured before libetpan parses a message must bound
 * the tree libetpan then builds (the limits are only as good as
 * that). Returns 1 when the message was within the limits and compared. */
static int check_shape(const char *data, size_t len, const char *what)
{
  struct mail_shape want;
  struct mail_shape got;
  struct mailmime *mm = NULL;
  size_t idx = 0;
  char *copy;
  int err = 0;

  if(len >= 5 && !memcmp(data, "From ", 5)) {
    const char *nl = memchr(data, '\n', len);
    size_t skip = nl ? (size_t)(nl - data) + 1 : len;
    data += skip;
    len -= skip;
  }
  if(mail_structure_check(data, len, &want, &err))
    return 0;
  ck_assert_int_eq(err, 0);
  copy = calloc(1, len + 16); /* mail_parse's padding (message.c, PARSE_PAD) */
  ck_assert_ptr_nonnull(copy);
  memcpy(copy, data, len);
  memset(&got, 0, sizeof(got));
  if(mailmime_parse(copy, len, &idx, &mm) == MAILIMF_NO_ERROR)
    tree_shape(mm, 0, &got);
  ck_assert_msg(got.depth <= want.depth && got.parts <= want.parts,
                "%s: libetpan built depth %zu, %zu parts; measured %zu, %zu", what, got.depth,
                got.parts, want.depth, want.parts);
  if(mm)
    mailmime_free(mm);
  free(copy);
  return 1;
}

/* Parses data; on success checks the invariants and runs the consumers
 * (the cleaner again, and when answer is set the reply). A refused mail
 * gets its header read alone (mail_parse_header), with the same checks. */
static int parse_hostile(const char *data, size_t len, const char *what, bool answer)
{
  struct mail_msg *m = NULL;
  char errbuf[64];
  int rc = mail_parse(&m, data, len, errbuf, sizeof(errbuf));

  check_shape(data, len, what);
  if(rc == MAIL_EPARSE || rc == MAIL_ELIMIT) {
    struct mail_msg *h = NULL;
    int hrc = mail_parse_header(&h, data, len, errbuf, sizeof(errbuf));
    ck_assert(hrc == MAIL_OK || hrc == MAIL_EPARSE || hrc == MAIL_ELIMIT);
    if(!hrc) {
      ck_assert(h->head_only);
      check_invariants(h, what);
      ck_assert_str_eq(h->text, "");
      ck_assert_str_eq(h->clean, "");
    } else
      ck_assert_ptr_null(h);
    mail_msg_free(h);
  }
  if(!rc) {
    char *again;
    check_invariants(m, what);
    if(answer)
      free(compose_reply(m, NULL, what));
    again = mail_clean_text(m->text);
    ck_assert_ptr_nonnull(again);
    ck_assert_str_eq(again, m->clean);
    free(again);
  } else {
    ck_assert_ptr_null(m);
    ck_assert(rc == MAIL_EPARSE || rc == MAIL_ETOOBIG || rc == MAIL_ELIMIT);
  }
  mail_msg_free(m);
  return rc;
}

/* Prefix lengths tried at every byte (see test_mail_parse_truncated). */
#define TRUNC_ALL 256

START_TEST(test_mail_parse_truncated)
{
  size_t n;
  char **names = corpus_names(&n);
  size_t i;
  size_t parsed = 0;
  const char *env = getenv("TABULA_FUZZ_FULL");
  bool full = env && !strcmp(env, "1");

  for(i = 0; i < n; i++) {
    char path[512];
    size_t len = 0;
    size_t cut;
    char *raw;

    snprintf(path, sizeof(path), "%s/%s", CORPUS, names[i]);
    raw = ts_slurp(path, &len);
    ck_assert_ptr_nonnull(raw);
    /* Prefixes, each in a buffer of exactly that size so ASan sees any
     * read past the end: every one in the first TRUNC_ALL bytes (the
     * header and the first MIME boundaries) and the last TRUNC_ALL/8
     * (a part or an encoding cut at its end), about TRUNC_ALL spread
     * over the rest; TABULA_FUZZ_FULL=1 tries every one. */
    for(cut = 0; cut <= len; cut += (full || cut < TRUNC_ALL || len - cut < TRUNC_ALL / 8)
                                        ? 1
                                        : 1 + (len - TRUNC_ALL) / TRUNC_ALL) {
      char *copy = malloc(cut ? cut : 1);
      ck_assert_ptr_nonnull(copy);
      memcpy(copy, raw, cut);
      if(!parse_hostile(copy, cut, names[i], cut % 16 == 0))
        parsed++;
      free(copy);
    }
    free(raw);
  }
  free_names(names, n);
  /* Most prefixes that keep the From line must still parse. */
  ck_assert_uint_gt(parsed, 1000);
}
END_TEST

START_TEST(test_mail_parse_mutated)
{
  static const char *const tokens[] = {"\r\n",
                                       "\n",
                                       "\r",
                                       "=?utf-8?q?",
                                       "=?",
                                       "?=",
                                       "=?x?b?////?=",
                                       "--",
                                       "<",
                                       ">",
                                       "(",
                                       ")",
                                       ":",
                                       ";",
                                       "\"",
                                       "\\",
                                       "=",
                                       "=\r\n",
                                       "&#",
                                       "&#x110000;",
                                       "&nbsp;",
                                       "<br>",
                                       "<blockquote>",
                                       "<script>",
                                       "</pre>",
                                       "\xff",
                                       "\xc3",
                                       "\xe2\x80",
                                       "boundary=",
                                       "multipart/mixed; boundary=x",
                                       "\r\n--x\r\n",
                                       "charset=utf-16",
                                       "charset=iso-2022-jp",
                                       "format=flowed; delsp=yes",
                                       "Content-Transfer-Encoding: base64\r\n",
                                       "From: ",
                                       "\r\n\r\n",
                                       "\t",
                                       " ",
                                       "> "};
  size_t n;
  char **names = corpus_names(&n);
  size_t i;
  int round;
  /* About 4000 mutated mails in all, spread over the corpus, so that the
   * test's time does not grow with it. */
  int rounds = n ? (int)(4000 / n) : 0;
  const char *env = getenv("TABULA_FUZZ_ROUNDS"); /* deeper runs by hand: rounds per mail */

  if(env && strtol(env, NULL, 10) > 0)
    rounds = (int)strtol(env, NULL, 10);
  for(i = 0; i < n; i++) {
    char path[512];
    size_t len = 0;
    char *raw;

    snprintf(path, sizeof(path), "%s/%s", CORPUS, names[i]);
    raw = ts_slurp(path, &len);
    ck_assert_ptr_nonnull(raw);
    for(round = 0; round < rounds; round++) {
      size_t cap = len * 2 + 256;
      char *buf = malloc(cap);
      size_t blen = len;
      int ops = 1 + (int)(rng() % 4);
      int k;

      ck_assert_ptr_nonnull(buf);
      memcpy(buf, raw, len);
      for(k = 0; k < ops && blen; k++) {
        size_t at = (size_t)(rng() % blen);
        switch(rng() % 4) {
        case 0: /* overwrite a byte */
          buf[at] = (char)(rng() & 0xff);
          break;
        case 1: { /* insert a token */
          const char *t = tokens[rng() % (sizeof(tokens) / sizeof(tokens[0]))];
          size_t tl = strlen(t);
          if(blen + tl <= cap) {
            memmove(buf + at + tl, buf + at, blen - at);
            memcpy(buf + at, t, tl);
            blen += tl;
          }
          break;
        }
        case 2: { /* delete a range */
          size_t dl = (size_t)(rng() % 64);
          if(dl > blen - at)
            dl = blen - at;
          memmove(buf + at, buf + at + dl, blen - at - dl);
          blen -= dl;
          break;
        }
        default: { /* duplicate a range */
          size_t dl = (size_t)(rng() % 128);
          if(dl > blen - at)
            dl = blen - at;
          if(blen + dl <= cap) {
            memmove(buf + at + dl, buf + at, blen - at);
            blen += dl;
          }
          break;
        }
        }
      }
      /* Exact-size copy again for ASan. */
      {
        char *exact = malloc(blen ? blen : 1);
        ck_assert_ptr_nonnull(exact);
        memcpy(exact, buf, blen);
        parse_hostile(exact, blen, names[i], true);
        free(exact);
      }
      free(buf);
    }
    free(raw);
  }
  free_names(names, n);
}
END_TEST

/* A message body of n copies of unit after a header. */
static char *repeat(const char *head, const char *unit, size_t count, const char *tail, size_t *len)
{
  size_t hl = strlen(head);
  size_t ul = strlen(unit);
  size_t tl = strlen(tail);
  char *buf = malloc(hl + ul * count + tl + 1);
  size_t i;

  ck_assert_ptr_nonnull(buf);
  memcpy(buf, head, hl);
  for(i = 0; i < count; i++)
    memcpy(buf + hl + i * ul, unit, ul);
  memcpy(buf + hl + count * ul, tail, tl);
  *len = hl + ul * count + tl;
  buf[*len] = '\0';
  return buf;
}

/* A message whose multiparts nest levels deep, each level with its own
 * boundary, the text "e4" innermost: the MIME tree is levels + 1 deep. */
#define MIME_DEPTH_OK 38

static char *nested(size_t levels, size_t *len)
{
  size_t cap = 128 + levels * 120;
  char *buf = malloc(cap);
  size_t k;
  size_t i;

  ck_assert_ptr_nonnull(buf);
  k = (size_t)snprintf(buf, cap, "From: a@b.test\r\n");
  for(i = 0; i < levels; i++)
    k += (size_t)snprintf(buf + k, cap - k,
                          "Content-Type: multipart/mixed; boundary=b%zu\r\n\r\n--b%zu\r\n", i, i);
  k += (size_t)snprintf(buf + k, cap - k, "\r\ne4\r\n");
  for(i = levels; i-- > 0;)
    k += (size_t)snprintf(buf + k, cap - k, "--b%zu--\r\n", i);
  ck_assert_uint_lt(k, cap);
  *len = k;
  return buf;
}

START_TEST(test_mail_parse_hostile)
{
  struct mail_msg *m = NULL;
  char errbuf[128];
  size_t len;
  char *head;
  char *buf;
  int rc;

  /* Deep MIME nesting would overflow libetpan's recursion: refused. Each
   * level has its own boundary (with one boundary for all, libetpan splits
   * the top level at every delimiter: a flood of parts, refused too). */
  buf = nested(100000, &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_int_eq(rc, MAIL_ELIMIT);
  ck_assert_str_eq(errbuf, "MIME structure nested too deep");
  ck_assert_ptr_null(m);
  free(buf);
  buf = repeat("From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n",
               "--b\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n", 200000,
               "--b\r\n\r\nx\r\n", &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_int_eq(rc, MAIL_ELIMIT);
  ck_assert_str_eq(errbuf, "too many MIME parts");
  free(buf);
  /* Nesting as deep as real mail goes (a forward in a forward ...) is read. */
  buf = nested(MIME_DEPTH_OK, &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_msg(rc == MAIL_OK, "nested %d: %s", MIME_DEPTH_OK, errbuf);
  ck_assert_str_eq(m->clean, "e4\n");
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* Deep comment nesting in an address header: the same. */
  buf = repeat("From: a@b.test ", "(", 1000000, "\r\nSubject: x\r\n\r\nbody\r\n", &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_int_eq(rc, MAIL_ELIMIT);
  ck_assert_str_eq(errbuf, "comments nested too deep");
  free(buf);
  /* ... wherever libetpan reads comments: a part's header, a message/rfc822
   * header, between a field's name and its colon, and in a comment that a
   * backslash carries over line ends. */
  {
    static const char *const where[][3] = {
        {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n"
         "Content-Type: text/plain; x=",
         "(", "\r\n\r\ne4\r\n--b--\r\n"},
        {"From: a@b.test\r\nContent-Type: message/rfc822\r\n\r\nFrom: c@d.test ", "(",
         "\r\n\r\ne4\r\n"},
        {"From: a@b.test\r\nX-Anything ", "(", ": x\r\n\r\ne4\r\n"},
        {"From: a@b.test (", "(\\\n", ")\r\n\r\ne4\r\n"},
    };
    size_t w;
    for(w = 0; w < sizeof(where) / sizeof(where[0]); w++) {
      buf = repeat(where[w][0], where[w][1], 1000000, where[w][2], &len);
      rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
      ck_assert_msg(rc == MAIL_ELIMIT && !strcmp(errbuf, "comments nested too deep"),
                    "comments %zu: %d %s", w, rc, errbuf);
      free(buf);
    }
  }
  /* Moderate nesting is fine. */
  head = repeat("From: a@b.test ", "(x", 50, "", &len);
  buf = repeat(head, ")", 50, "\r\nSubject: x\r\n\r\nbody\r\n", &len);
  free(head);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_int_eq(rc, MAIL_OK);
  ck_assert_str_eq(m->from, "a@b.test");
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* One huge header line (1.5 MB): the subject is cut to its field. */
  buf = repeat("From: a@b.test\r\nSubject: ", "move ", 300000, "\r\n\r\nbody\r\n", &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_int_eq(rc, MAIL_OK);
  ck_assert_uint_lt(strlen(m->subject), sizeof(m->subject));
  ck_assert(strncmp(m->subject, "move move", 9) == 0);
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* Blockquotes nested deep with many short lines: bounded output. */
  buf = repeat("From: a@b.test\r\nContent-Type: text/html\r\n\r\n", "<blockquote>x<br>", 150000, "",
               &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert(rc == MAIL_OK || rc == MAIL_ETOOBIG);
  if(!rc)
    ck_assert_str_eq(m->clean, "");
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* The limits on what costs libetpan memory (structure.c): one past each
   * is refused with its reason, a real mail's worth is read. */
  {
    char fields_part[8192];
    char params_part[1024];
    size_t f = 0;
    size_t i;
    const struct {
      const char *head;
      const char *unit;
      size_t ok;  /* this many units parse */
      size_t bad; /* this many are refused */
      const char *tail;
      const char *why;
    } limits[] = {
        {"From: a@b.test\r\n", "X-Header: value\r\n", 998, 1000, "\r\ne4\r\n",
         "too many header fields"},
        {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n", "--b\r\n\r\ne4\r\n",
         4999, 5001, "--b--\r\n", "too many MIME parts"},
        {"From: a@b.test\r\nContent-Type: text/plain; charset=utf-8", "; x=y", 99, 100,
         "\r\n\r\ne4\r\n", "too many MIME parameters"},
        /* totals over all headers: 2 + 9 x 999 fields, 11 x 999 too many */
        {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n", fields_part, 9, 11,
         "--b--\r\n", "too many header fields"},
        /* 1 + 101 x 99 parameters, 102 x 99 too many */
        {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n", params_part, 101,
         102, "--b--\r\n", "too many MIME parameters"},
        /* RFC 2047 words in a Content-Type are decoded before its parameters
         * are read: 64 KiB of Content-* fields in one header at most */
        {"From: a@b.test\r\nContent-Type: text/plain; name=\"", "=?utf-8?q?a?= ", 4600, 4700,
         "\"\r\n\r\ne4\r\n", "MIME header fields too long"},
    };
    size_t k;
    f = (size_t)snprintf(fields_part, sizeof(fields_part), "--b\r\n");
    for(i = 0; i < 999; i++)
      f += (size_t)snprintf(fields_part + f, sizeof(fields_part) - f, "X:y\r\n");
    snprintf(fields_part + f, sizeof(fields_part) - f, "\r\ne4\r\n");
    f = (size_t)snprintf(params_part, sizeof(params_part), "--b\r\nContent-Type: text/plain");
    for(i = 0; i < 99; i++)
      f += (size_t)snprintf(params_part + f, sizeof(params_part) - f, ";x=y");
    snprintf(params_part + f, sizeof(params_part) - f, "\r\n\r\ne4\r\n");
    for(k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
      buf = repeat(limits[k].head, limits[k].unit, limits[k].ok, limits[k].tail, &len);
      rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
      ck_assert_msg(rc == MAIL_OK, "limit %zu: %s", k, errbuf);
      ck_assert_str_eq(m->clean, "e4\n");
      mail_msg_free(m);
      m = NULL;
      free(buf);
      buf = repeat(limits[k].head, limits[k].unit, limits[k].bad, limits[k].tail, &len);
      ck_assert_int_eq(mail_parse(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_ELIMIT);
      ck_assert_ptr_null(m);
      ck_assert_str_eq(errbuf, limits[k].why);
      free(buf);
    }
  }
  /* A million encoded words in a Subject: libetpan joins them in quadratic
   * time, so only the start is decoded (message.c, WORDS_MAX). Before that
   * this took minutes; now well under a second, a few under ASan. */
  {
    clock_t t0 = clock();
    buf = repeat("From: a@b.test\r\nSubject: ", "=?utf-8?q?a?= ", 700000, "\r\n\r\ne4\r\n", &len);
    rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
    ck_assert_int_eq(rc, MAIL_OK);
    ck_assert(strncmp(m->subject, "aaaaaaaa", 8) == 0);
    ck_assert_uint_lt(strlen(m->subject), sizeof(m->subject));
    ck_assert_msg((double)(clock() - t0) / CLOCKS_PER_SEC < 10.0, "encoded words: quadratic?");
    mail_msg_free(m);
    m = NULL;
    free(buf);
  }
  /* One long body line (8 MB): kept whole in the text, no candidate. */
  buf = repeat("From: a@b.test\r\n\r\n", "e4 e5 ", 1400000, "\r\n", &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_int_eq(rc, MAIL_OK);
  ck_assert_uint_eq(strlen(m->text), 6u * 1400000u + 1u);
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* Over the limit. */
  buf = repeat("From: a@b.test\r\n\r\n", "x", MAIL_MAX_MESSAGE, "", &len);
  rc = mail_parse(&m, buf, len, errbuf, sizeof(errbuf));
  ck_assert_int_eq(rc, MAIL_ETOOBIG);
  ck_assert_ptr_null(m);
  free(buf);
  /* Empty, NULL, NUL bytes, no header at all, two From fields. */
  ck_assert_int_eq(mail_parse(&m, "", 0, errbuf, sizeof(errbuf)), MAIL_EPARSE);
  ck_assert_int_eq(mail_parse(&m, NULL, 0, errbuf, sizeof(errbuf)), MAIL_EPARSE);
  ck_assert_int_eq(mail_parse(NULL, "x", 1, NULL, 0), MAIL_EPARSE);
  ck_assert_int_eq(mail_parse(&m, "just some text\n", 15, NULL, 0), MAIL_EPARSE);
  ck_assert_int_eq(
      mail_parse(&m, "From: a@b.test\nFrom: c@d.test\n\nx\n", 33, errbuf, sizeof(errbuf)),
      MAIL_EPARSE);
  ck_assert_str_eq(errbuf, "more than one From field");
  ck_assert_int_eq(mail_parse(&m, "From: a@b.test\n\nx\0y\n", 20, errbuf, sizeof(errbuf)), MAIL_OK);
  ck_assert_str_eq(m->text, "xy\n");
  mail_msg_free(m);
  m = NULL;
  /* An unusable From: quoted local part, no domain, display name only. */
  ck_assert_int_eq(mail_parse(&m, "From: \"a b\"@c.test\n\nx\n", 22, NULL, 0), MAIL_EPARSE);
  ck_assert_int_eq(mail_parse(&m, "From: Bob <bob>\n\nx\n", 19, NULL, 0), MAIL_EPARSE);
  ck_assert_int_eq(mail_parse(&m, "From: Bob\n\nx\n", 13, NULL, 0), MAIL_EPARSE);
}
END_TEST

/* The structure limits count MIME structure as parsed, not words
 * in the text. A plain mail from a player whose quoted text holds the word
 * "multipart" 101 times, 201 "(" on a line or 5,001 lines starting with
 * "--" was refused as unreadable (the old limits counted the raw bytes);
 * each is a move now, plain and inside a real multipart/alternative. */
START_TEST(test_mail_parse_benign_words)
{
  static const struct {
    const char *unit; /* repeated in the quoted text, or as lines of it */
    size_t count;
  } words[] = {
      {"multipart ", 101},
      {"multipart/mixed message/rfc822 ", 300},
      {"(", 201},
      {"((((((((((", 1000},
      {"\r\n--\r\n> ", 5001},
      {"\r\n--bogus", 6000}, /* "--b..." is not "--b" */
      {"; x=y", 2000},
      {"\r\nX: y", 3000},
  };
  static const char *const shapes[][2] = {
      {"From: a@b.test\r\nSubject: Re: our game\r\n\r\ne4\r\n\r\nOn Monday you wrote:\r\n> ",
       "\r\n"},
      {"From: a@b.test\r\nContent-Type: multipart/alternative; boundary=b\r\n\r\n"
       "--b\r\nContent-Type: text/plain; charset=utf-8\r\n\r\ne4\r\n\r\n> ",
       "\r\n--b\r\nContent-Type: text/html\r\n\r\n<p>e4</p>\r\n--b--\r\n"},
  };
  size_t w;
  size_t k;

  for(k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
    for(w = 0; w < sizeof(words) / sizeof(words[0]); w++) {
      struct mail_msg *m = NULL;
      char errbuf[128];
      size_t len;
      char *body = repeat(shapes[k][0], words[w].unit, words[w].count, shapes[k][1], &len);
      int rc = mail_parse(&m, body, len, errbuf, sizeof(errbuf));
      ck_assert_msg(rc == MAIL_OK, "shape %zu, word %zu (%zu times): %d %s", k, w, words[w].count,
                    rc, errbuf);
      /* the move first; the flood itself is read as text, not structure */
      ck_assert_msg(!strncmp(m->clean, "e4\n", 3), "shape %zu word %zu: clean [%.40s]", k, w,
                    m->clean);
      ck_assert_uint_ge(strlen(m->text), words[w].count);
      mail_msg_free(m);
      free(body);
    }
  }
}
END_TEST

/* libetpan 1.9.4's mailmime_extract_boundary copies strlen - 2 bytes of a
 * boundary that starts with a quote: boundary="\"" (the value one '"')
 * made that SIZE_MAX, and this 90-byte mail crashed the daemon on every
 * start, since a mail is acknowledged only after it was processed. Now it
 * is refused before libetpan sees it, at any depth; its header still reads. */
START_TEST(test_mail_parse_bad_boundary)
{
  static const char *const mails[] = {
      "From: a@b.test\r\nContent-Type: multipart/mixed; boundary=\"\\\"\"\r\n\r\n--x\r\n\r\ne4\r\n",
      "From: a@b.test\r\nContent-Type: multipart/mixed; boundary=o\r\n\r\n--o\r\n"
      "Content-Type: message/rfc822\r\n\r\nFrom: c@d.test\r\n"
      "Content-Type: multipart/alternative; boundary=\"\\\"\"\r\n\r\n--x\r\n\r\ne4\r\n--o--\r\n",
  };
  size_t i;

  for(i = 0; i < sizeof(mails) / sizeof(mails[0]); i++) {
    struct mail_msg *m = NULL;
    char errbuf[128];
    ck_assert_int_eq(mail_parse(&m, mails[i], strlen(mails[i]), errbuf, sizeof(errbuf)),
                     MAIL_ELIMIT);
    ck_assert_str_eq(errbuf, "MIME boundary unusable");
    ck_assert_int_eq(mail_parse_header(&m, mails[i], strlen(mails[i]), errbuf, sizeof(errbuf)),
                     MAIL_OK);
    ck_assert_str_eq(m->from, "a@b.test");
    mail_msg_free(m);
  }
}
END_TEST

/* mail_parse_header: what the service needs to answer a
 * player's unreadable mail, and to stay silent to strangers and machines. */
START_TEST(test_mail_parse_header_only)
{
  static const char head[] = "Return-Path: <alice@example.test>\r\n"
                             "From: Alice <Alice@Example.test>\r\n"
                             "To: referee+12.k3y@example.test\r\n"
                             "Subject: Re: [tabula 12 k3y] your move\r\n"
                             "Message-ID: <m1@example.test>\r\n"
                             "In-Reply-To: <r1@example.test>\r\n"
                             "Content-Type: multipart/mixed; boundary=b\r\n\r\n";
  struct mail_msg *m = NULL;
  const char *why = NULL;
  char errbuf[128];
  size_t len;
  char *buf;

  /* past the part limit: mail_parse refuses it, the header still reads */
  buf = repeat(head, "--b\r\n\r\ne4\r\n", 6000, "--b--\r\n", &len);
  ck_assert_int_eq(mail_parse(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_ELIMIT);
  ck_assert_ptr_null(m);
  ck_assert_int_eq(mail_parse_header(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_OK);
  ck_assert(m->head_only);
  ck_assert_str_eq(m->from, "alice@example.test");
  ck_assert_str_eq(m->from_name, "Alice");
  ck_assert_str_eq(m->sender, "alice@example.test");
  ck_assert_str_eq(m->to, "referee+12.k3y@example.test");
  ck_assert_str_eq(m->subject, "Re: [tabula 12 k3y] your move");
  ck_assert_str_eq(m->message_id, "<m1@example.test>");
  ck_assert_str_eq(m->in_reply_to, "<r1@example.test>");
  ck_assert_str_eq(m->text, "");
  ck_assert_str_eq(m->clean, "");
  ck_assert(!mail_is_automatic(m, OWN_ADDRESS, &why));
  check_invariants(m, "header only");
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* a mail that reads whole reads the same header alone */
  buf = repeat(head, "--b\r\n\r\ne4\r\n", 3, "--b--\r\n", &len);
  ck_assert_int_eq(mail_parse(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_OK);
  ck_assert(!m->head_only);
  ck_assert_str_eq(m->clean, "e4\n");
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* over MAIL_MAX_MESSAGE: only the start is looked at */
  buf = repeat(head, "x", MAIL_MAX_MESSAGE, "", &len);
  ck_assert_int_eq(mail_parse(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_ETOOBIG);
  ck_assert_int_eq(mail_parse_header(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_OK);
  ck_assert_str_eq(m->from, "alice@example.test");
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* the RFC 3834 markers read alone: an auto-reply, a report, a list */
  {
    static const char *const machine[] = {
        "From: a@b.test\r\nAuto-Submitted: auto-replied\r\n\r\n",
        "From: a@b.test\r\nContent-Type: multipart/report; boundary=\"\\\"\"\r\n\r\n",
        "From: a@b.test\r\nList-Id: <l.example.test>\r\nPrecedence: list\r\n\r\n",
        "From: a@b.test\r\nX-Autoreply: yes\r\n\r\n",
        "From: a@b.test\r\nReturn-Path: <>\r\n\r\n",
    };
    size_t i;
    for(i = 0; i < sizeof(machine) / sizeof(machine[0]); i++) {
      buf = repeat(machine[i], "--b\r\n", 6000, "", &len);
      ck_assert_int_eq(mail_parse_header(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_OK);
      ck_assert_msg(mail_is_automatic(m, OWN_ADDRESS, &why), "machine mail %zu", i);
      mail_msg_free(m);
      m = NULL;
      free(buf);
    }
  }
  /* no usable author: nothing to answer, as with mail_parse */
  ck_assert_int_eq(mail_parse_header(&m, "From: a@b.test\r\nFrom: c@d.test\r\n\r\nx\r\n", 38,
                                     errbuf, sizeof(errbuf)),
                   MAIL_EPARSE);
  ck_assert_str_eq(errbuf, "more than one From field");
  ck_assert_int_eq(mail_parse_header(&m, "Subject: x\r\n\r\n", 14, errbuf, sizeof(errbuf)),
                   MAIL_EPARSE);
  ck_assert_int_eq(mail_parse_header(&m, NULL, 0, errbuf, sizeof(errbuf)), MAIL_EPARSE);
  ck_assert_ptr_null(m);
  /* A header that cannot be read whole is read in part: only the fields
   * that say whose mail it is and whether it is automatic (a player's own
   * mail about their game is answered, saying why it was not read). Past
   * a limit (1,000 fields): its From, its key; nothing is said of it. */
  buf = repeat("From: a@b.test\r\nTo: r+1.k@x.test\r\n", "X:y\r\n", 1000,
               "\r\ne4\r\n", &len);
  ck_assert_int_eq(mail_parse_header(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_OK);
  ck_assert_str_eq(m->from, "a@b.test");
  ck_assert_str_eq(m->to, "r+1.k@x.test");
  ck_assert(m->head_only);
  ck_assert_str_eq(m->text, "");
  ck_assert_str_eq(errbuf, "");
  mail_msg_free(m);
  m = NULL;
  free(buf);
  /* not in the grammar: what is wrong is said */
  {
    static const struct {
      const char *raw, *why;
    } broken[] = {
        {"From: a@b.test\rSubject: [tabula 1 k] x\r\re4\r", "carriage return alone"},
        {"Hello\r\nFrom: a@b.test\r\nSubject: [tabula 1 k] x\r\n\r\ne4\r\n",
         "not a header field"},
        {" x\r\nFrom: a@b.test\r\nSubject: [tabula 1 k]\r\n x\r\n\r\ne4\r\n", "begins with a space"},
    };
    size_t i;
    for(i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
      ck_assert_int_eq(mail_parse_header(&m, broken[i].raw, strlen(broken[i].raw), errbuf,
                                         sizeof(errbuf)),
                       MAIL_OK);
      ck_assert_str_eq(m->from, "a@b.test");
      ck_assert_msg(!strncmp(m->subject, "[tabula 1 k]", 12), "%zu: %s", i, m->subject);
      ck_assert_msg(strstr(errbuf, broken[i].why) != NULL, "%zu: %s", i, errbuf);
      mail_msg_free(m);
      m = NULL;
    }
  }
  /* read in part, still checked: two From fields are two authors */
  {
    static const char two[] = "From: a@b.test\rFrom: c@d.test\r\rx\r";
    ck_assert_int_eq(mail_parse_header(&m, two, sizeof(two) - 1, errbuf, sizeof(errbuf)),
                     MAIL_EPARSE);
  }
  ck_assert_ptr_null(m);
  /* automatic mail read in part is still automatic */
  buf = repeat("From: a@b.test\r\nAuto-Submitted: auto-replied\r\n", "X:y\r\n", 1000,
               "\r\nx\r\n", &len);
  ck_assert_int_eq(mail_parse_header(&m, buf, len, errbuf, sizeof(errbuf)), MAIL_OK);
  {
    const char *auto_why = NULL;
    ck_assert(mail_is_automatic(m, "r@x.test", &auto_why));
  }
  mail_msg_free(m);
  free(buf);
}
END_TEST

/* What a hostile flood costs, measured in a child process: CPU seconds and
 * the growth of its peak resident memory. */
struct cost {
  int rc;
  double cpu;
  long grown_kb;
};

static struct cost flood_cost(const char *buf, size_t len)
{
  struct cost c;
  int fd[2];
  pid_t pid;
  int status;

  memset(&c, 0, sizeof(c));
  ck_assert_int_eq(pipe(fd), 0);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if(!pid) {
    struct rusage r0;
    struct rusage r1;
    struct mail_msg *m = NULL;
    clock_t t0;
    close(fd[0]);
    getrusage(RUSAGE_SELF, &r0);
    t0 = clock();
    c.rc = mail_parse(&m, buf, len, NULL, 0);
    c.cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    getrusage(RUSAGE_SELF, &r1);
    c.grown_kb = r1.ru_maxrss - r0.ru_maxrss;
    mail_msg_free(m);
    _exit(write(fd[1], &c, sizeof(c)) == (ssize_t)sizeof(c) ? 0 : 1);
  }
  close(fd[1]);
  ck_assert_int_eq(read(fd[0], &c, sizeof(c)), (ssize_t)sizeof(c));
  close(fd[0]);
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  return c;
}

/* The floods the limits exist for stay bounded in time and
 * memory, the refused ones and the worst a limit still lets through.
 * Before the limits a 10 MiB flood of tiny fields, parts or parameters
 * cost libetpan 300-430 MB; 700,000 RFC 2047 words in a Content-Type took
 * 205 s and 3.5 GB under ASan (libetpan's decoder reallocates the whole
 * result per word: glibc's mremap hides that, ASan's realloc does not).
 * Bounds: 10 s of CPU and 256 MB of growth, generous for ASan. */
START_TEST(test_mail_parse_floods)
{
  const size_t big = MAIL_MAX_MESSAGE - 256;
  char fields_part[8192];
  size_t f;
  size_t i;
  const struct {
    const char *head;
    const char *unit;
    size_t count;
    const char *tail;
    int rc;
  } floods[] = {
      {"From: a@b.test\r\n", "X:y\r\n", big / 5, "\r\ne4\r\n", MAIL_ELIMIT},
      {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n", "--b\r\n\r\ne4\r\n",
       big / 11, "--b--\r\n", MAIL_ELIMIT},
      {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n",
       "--b\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n", big / 50, "", MAIL_ELIMIT},
      {"From: a@b.test\r\nContent-Type: text/plain; charset=utf-8", "; x=y", big / 5,
       "\r\n\r\ne4\r\n", MAIL_ELIMIT},
      {"From: a@b.test\r\nContent-Type: text/plain; name=\"", "=?utf-8?q?a?= ", 700000,
       "\"\r\n\r\ne4\r\n", MAIL_ELIMIT},
      {"From: a@b.test\r\nSubject: ", "=?utf-8?q?a?= ", 700000, "\r\n\r\ne4\r\n", MAIL_OK},
      {"From: a@b.test ", "(", big, "\r\n\r\ne4\r\n", MAIL_ELIMIT},
      /* as much as the limits let through */
      {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n",
       "--b\r\nContent-Type: text/plain; a=b\r\nContent-Disposition: inline; c=d\r\n\r\ne4\r\n",
       4999, "--b--\r\n", MAIL_OK},
      {"From: a@b.test\r\nContent-Type: multipart/mixed; boundary=b\r\n\r\n", fields_part, 9,
       "--b--\r\n", MAIL_OK},
  };

  f = (size_t)snprintf(fields_part, sizeof(fields_part), "--b\r\n");
  for(i = 0; i < 999; i++)
    f += (size_t)snprintf(fields_part + f, sizeof(fields_part) - f, "X:y\r\n");
  snprintf(fields_part + f, sizeof(fields_part) - f, "\r\ne4\r\n");
  for(i = 0; i < sizeof(floods) / sizeof(floods[0]); i++) {
    size_t len;
    char *buf = repeat(floods[i].head, floods[i].unit, floods[i].count, floods[i].tail, &len);
    struct cost c;
    ck_assert_uint_le(len, MAIL_MAX_MESSAGE);
    c = flood_cost(buf, len);
    ck_assert_msg(c.rc == floods[i].rc, "flood %zu: %d", i, c.rc);
    ck_assert_msg(c.cpu < 10.0, "flood %zu: %.1f s", i, c.cpu);
    ck_assert_msg(c.grown_kb < 256 * 1024, "flood %zu: %ld MB", i, c.grown_kb / 1024);
    free(buf);
  }
}
END_TEST

/* A mail counts when it reached the mailbox; for POP3 that is the
 * top Received: field's date (RFC 5321 §4.4), an RFC 5322 date-time. Each
 * number is read with a bound on its digits and checked for its range:
 * a date that fails is no date (-1), never a guess. */
START_TEST(test_mail_date_parse)
{
  static const struct {
    const char *s;
    int64_t t;
  } dates[] = {
      {"Tue, 24 Nov 2026 08:00:00 +0000", 1795507200},
      {"24 Nov 2026 08:00:00 +0000", 1795507200},
      {"Tue, 24 Nov 2026 09:30:00 +0130", 1795507200},
      {"Tue, 24 Nov 2026 03:00:00 -0500 (EST)", 1795507200},
      {"  Tue,\r\n 24 Nov 2026 08:00 GMT\r\n", 1795507200},
      {"Tue, 24 Nov 2026 03:00:00 EST", 1795507200},
      {"Tue, 24 Nov 2026 00:00:00 PST", 1795507200},
      {"Tue, 24 nov 26 08:00:00 UT", 1795507200},  /* two-digit year, §4.3 */
      {"Tue, 24 Nov 2026 08:00:00 X", 1795507200}, /* military: no information */
      {"Thu, 1 Jan 1970 00:00:00 +0000", 0},
      {"Mon, 29 Feb 2028 12:00:00 +0000", 1835438400},
      {"Wed, 31 Dec 2025 23:59:60 +0000", 1767225599}, /* a leap second */
      /* not dates */
      {"", -1},
      {"Tue, 24 Nov 2026", -1},
      {"Tue, 24 Nov 2026 08:00:00", -1},
      {"Tue 24 Nov 2026 08:00:00 +0000", -1},
      {"Tue, 32 Nov 2026 08:00:00 +0000", -1},
      {"Tue, 29 Feb 2026 08:00:00 +0000", -1},
      {"Tue, 24 Nox 2026 08:00:00 +0000", -1},
      {"Tue, 24 Nov 2026 24:00:00 +0000", -1},
      {"Tue, 24 Nov 2026 08:60:00 +0000", -1},
      {"Tue, 24 Nov 2026 08:00:61 +0000", -1},
      {"Tue, 24 Nov 2026 08:00:00 +0060", -1},
      {"Tue, 24 Nov 2026 08:00:00 +01", -1},
      {"Tue, 24 Nov 1969 08:00:00 +0000", -1},
      {"Tue, 24 Nov 2026 08:00:00 +0000 trailing", -1},
      /* digits without end: a bound, no wrap-around into a plausible date */
      {"Tue, 4294967320 Nov 2026 08:00:00 +0000", -1},
      {"Tue, 24 Nov 18446744073709553642 08:00:00 +0000", -1},
      {"Tue, 24 Nov 2026 4294967304:00:00 +0000", -1},
      {"Tue, 24 Nov 2026 08:00:00 +4294967296", -1},
      {"Tue, 24 Nov 12026 08:00:00 +0000", -1},
      {"Tuesdayyyyyyyyyyyyyyyyy, 24 Nov 2026 08:00:00 +0000", -1},
      {"Tue, 24 Novemberrrrrr 2026 08:00:00 +0000", -1},
  };
  size_t i;

  for(i = 0; i < sizeof(dates) / sizeof(dates[0]); i++)
    ck_assert_msg(mail_date_parse(dates[i].s, strlen(dates[i].s)) == dates[i].t, "'%s': %lld",
                  dates[i].s, (long long)mail_date_parse(dates[i].s, strlen(dates[i].s)));
  /* n bytes only: no read past them */
  ck_assert_int_eq(mail_date_parse("24 Nov 2026 08:00:00 +0000junk", 26), 1795507200);
}
END_TEST

START_TEST(test_mail_received_time)
{
  static const struct {
    const char *raw;
    int64_t t;
  } mails[] = {
      /* the top one, the operator's own server; the sender's Date: never */
      {"Received: from mx.example.test by pop.example.test with LMTP;\r\n"
       " Tue, 24 Nov 2026 08:00:00 +0000\r\n"
       "Received: from sender.test by mx.example.test; Mon, 23 Nov 2026 22:00:00 +0000\r\n"
       "Date: Sun, 01 Jan 2026 00:00:00 +0000\r\nFrom: a@b.test\r\n\r\ne4\r\n",
       1795507200},
      /* the date after the last ';' (a "for <a;b@c>" before it) */
      {"RECEIVED : by x.test (Postfix, from userid 0) id 1;\r\n\tTue, 24 Nov 2026 09:00:00 +0100 "
       "(CET)\r\nFrom: a@b.test\r\n\r\nx\r\n",
       1795507200},
      {"From a@b.test Tue Nov 24 08:00:00 2026\nReceived: by x.test; 24 Nov 2026 08:00 +0000\n"
       "From: a@b.test\n\nx\n",
       1795507200},
      /* no date on the top one: -1, even when a lower one has one */
      {"Received: by x.test\r\nReceived: by y.test; 24 Nov 2026 08:00 +0000\r\n\r\nx\r\n", -1},
      {"Received: by x.test; yesterday\r\n\r\nx\r\n", -1},
      /* none in the header: not the body's, not X-Received */
      {"X-Received: by x.test; 24 Nov 2026 08:00 +0000\r\nFrom: a@b.test\r\n\r\n"
       "Received: by x.test; 24 Nov 2026 08:00 +0000\r\n",
       -1},
      {"", -1},
  };
  size_t i;

  for(i = 0; i < sizeof(mails) / sizeof(mails[0]); i++)
    ck_assert_msg(mail_received_time(mails[i].raw, strlen(mails[i].raw)) == mails[i].t,
                  "mail %zu: %lld", i,
                  (long long)mail_received_time(mails[i].raw, strlen(mails[i].raw)));
  ck_assert_int_eq(mail_received_time(NULL, 0), -1);
}
END_TEST

/* Parses a message made of a header block and a body. */
static struct mail_msg *parse_simple(const char *headers, const char *body)
{
  struct mail_msg *m = NULL;
  char errbuf[128];
  size_t len = strlen(headers) + strlen(body) + 32;
  char *raw = malloc(len);
  int rc;

  ck_assert_ptr_nonnull(raw);
  snprintf(raw, len, "From: a@b.test\r\n%s\r\n%s", headers, body);
  rc = mail_parse(&m, raw, strlen(raw), errbuf, sizeof(errbuf));
  free(raw);
  ck_assert_msg(rc == MAIL_OK, "parse failed: %s", errbuf);
  return m;
}

START_TEST(test_mail_parse_bodies)
{
  static const struct {
    const char *headers;
    const char *body;
    const char *text;
  } cases[] = {
      /* no Content-Type: text/plain us-ascii; stray UTF-8 is taken as UTF-8 */
      {"", "caf\xc3\xa9\r\n", "caf\xc3\xa9\n"},
      /* us-ascii label with windows-1252 bytes */
      {"Content-Type: text/plain; charset=us-ascii\r\n", "caf\xe9 \x80\r\n",
       "caf\xc3\xa9 \xe2\x82\xac\n"},
      /* invalid UTF-8 in a UTF-8 part: U+FFFD each */
      {"Content-Type: text/plain; charset=utf-8\r\n", "a\xff\xc3(b\n",
       "a\xef\xbf\xbd\xef\xbf\xbd(b\n"},
      /* an unknown charset: UTF-8 if it is, else windows-1252 */
      {"Content-Type: text/plain; charset=x-no-such-charset\r\n", "\xe9t\xe9\n",
       "\xc3\xa9t\xc3\xa9\n"},
      /* iconv for the others: ISO-8859-15 euro sign, KOI8-R */
      {"Content-Type: text/plain; charset=iso-8859-15\r\n", "5 \xa4\n", "5 \xe2\x82\xac\n"},
      {"Content-Type: text/plain; charset=koi8-r\r\n", "\xd0\xd2\xc9\xd7\xc5\xd4\n",
       "\xd0\xbf\xd1\x80\xd0\xb8\xd0\xb2\xd0\xb5\xd1\x82\n"},
      /* UTF-16 with a BOM, base64 */
      {"Content-Type: text/plain; charset=utf-16\r\nContent-Transfer-Encoding: base64\r\n",
       "//5lADQACgA=\r\n", "e4\n"},
      /* iconv's output is checked too: glibc passes bytes that are not
       * UTF-8 (RFC 3629 §3: above U+10FFFF, 5-byte forms) through for
       * names it reads as UTF-8 ("utf-8+") and for UCS-4; U+FFFD each,
       * as for a declared UTF-8 part */
      {"Content-Type: text/plain; charset=\"UTF-8+\"\r\n", "a\xf4\x90\x80\x80\xf8\x88z\n",
       "a\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdz\n"},
      {"Content-Type: text/plain; charset=ucs-4\r\nContent-Transfer-Encoding: base64\r\n",
       "ABEAAAAAAAo=\r\n", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n"},
      /* a charset name that is not a token is not handed to iconv */
      {"Content-Type: text/plain; charset=\"utf-8//TRANSLIT\"\r\n", "ok\n", "ok\n"},
      /* quoted-printable soft breaks and =XX; a lone CR is a line end */
      {"Content-Transfer-Encoding: quoted-printable\r\n", "e2=\r\ne4 =3D ok\rnext\r\n",
       "e2e4 = ok\nnext\n"},
      /* controls other than TAB and LF go, a BOM goes */
      {"Content-Type: text/plain; charset=utf-8\r\n",
       "\xef\xbb\xbf"
       "a\x1b[1m\tb\x7f\xc2\x85\n",
       "a[1m\tb\n"},
      /* format=flowed: quoted paragraphs joined per depth, signature kept apart */
      {"Content-Type: text/plain; format=flowed\r\n",
       ">> deep \r\n>> quote\r\n> one \r\n> more\r\nmine \r\n-- \r\nsig\r\n",
       ">> deep quote\n> one more\nmine \n-- \nsig\n"},
      /* HTML: entities, numeric windows-1252 remap, invalid numbers, pre kept */
      {"Content-Type: text/html; charset=utf-8\r\n",
       "<p>a&amp;b &lt;c&gt; &#150; &#x1F600; &#0; &#1114112; &bogus; & x</p>"
       "<pre>  e4\n    e5</pre><table><tr><td>1</td><td>2</td></tr></table>"
       "<!-- <p>hidden</p> --><p>x<br/>y</p>",
       "a&b <c> \xe2\x80\x93 \xf0\x9f\x98\x80 \xef\xbf\xbd \xef\xbf\xbd &bogus; & x\n"
       "  e4\n    e5\n1 2\nx\ny\n"},
      /* HTML: a signature separator keeps its space (tidy), with &nbsp; too */
      {"Content-Type: text/html; charset=utf-8\r\n",
       "<div>d4</div><div>-- <br>Nf3 fan since 1999</div><div>--&nbsp;<br>x</div><p>-- x</p>",
       "d4\n-- \nNf3 fan since 1999\n-- \nx\n-- x\n"},
      /* HTML: an unclosed script swallows the rest, as in a browser */
      {"Content-Type: text/html\r\n", "move<script>e4</p>", "move\n"},
      /* attachment text parts are skipped even when first */
      {"Content-Type: multipart/mixed; boundary=q\r\n",
       "--q\r\nContent-Type: text/plain\r\nContent-Disposition: attachment\r\n\r\nno\r\n"
       "--q\r\nContent-Type: text/plain\r\n\r\nyes\r\n--q--\r\n",
       "yes"},
      /* multipart/alternative with HTML first still prefers text/plain */
      {"Content-Type: multipart/alternative; boundary=q\r\n",
       "--q\r\nContent-Type: text/html\r\n\r\n<p>html</p>\r\n"
       "--q\r\nContent-Type: text/plain\r\n\r\nplain\r\n--q--\r\n",
       "plain"},
      /* no-break and zero-width spaces that clients type (corpus 33): the
       * no-break ones become spaces, the invisible ones go */
      {"Content-Type: text/plain; charset=utf-8\r\n",
       "O-O\xc2\xa0\r\nN\xe2\x80\x8b"
       "f3\xe2\x80\xaf!\xc2\xad\xe2\x81\xa0x\xef\xbb\xbfy\r\n",
       "O-O \nNf3 !xy\n"},
      /* an inline part with a file name in a multipart is an attachment
       * (corpus 41), even when first; a lone part with a name is the body */
      {"Content-Type: multipart/mixed; boundary=q\r\n",
       "--q\r\nContent-Type: text/plain; name=notes.txt\r\n\r\nno\r\n"
       "--q\r\nContent-Type: text/plain\r\nContent-Disposition: inline; filename*=utf-8''n.txt\r\n"
       "\r\nno\r\n--q\r\nContent-Type: text/plain\r\n\r\nyes\r\n--q--\r\n",
       "yes"},
      {"Content-Type: text/plain; name=move.txt\r\nContent-Disposition: inline; "
       "filename=move.txt\r\n",
       "e4\r\n", "e4\n"},
      /* no text part at all: an empty text, still a message */
      {"Content-Type: application/octet-stream\r\n", "\x01\x02", ""},
  };
  size_t i;

  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct mail_msg *m = parse_simple(cases[i].headers, cases[i].body);
    ck_assert_msg(!strcmp(m->text, cases[i].text), "case %zu: got [%s]", i, m->text);
    mail_msg_free(m);
  }
}
END_TEST

START_TEST(test_mail_parse_headers)
{
  struct mail_msg *m;

  /* RFC 2047 words: adjacent ones joined, folding undone, B and Q, raw
   * 8-bit (UTF-8 and latin-1); libetpan makes runs of blanks one space */
  m = parse_simple("Subject: =?utf-8?q?caf=C3=A9?=\r\n =?utf-8?b?IGV0IHRow6k=?=  end\r\n", "");
  ck_assert_str_eq(m->subject, "caf\xc3\xa9 et th\xc3\xa9 end");
  mail_msg_free(m);
  m = parse_simple("Subject: =?x-unknown?q?=E9t=E9?= =?iso-8859-2?q?=B1?=\r\n", "");
  ck_assert(m->subject[0] != '\0');
  ck_assert_ptr_nonnull(strstr(m->subject, "\xc4\x85")); /* U+0105 from ISO-8859-2 */
  mail_msg_free(m);
  m = parse_simple("Subject: R\xc3\xa9: e4\r\n", "");
  ck_assert_str_eq(m->subject, "R\xc3\xa9: e4");
  mail_msg_free(m);
  m = parse_simple("Subject: R\xe9: e4\r\n", "");
  ck_assert_str_eq(m->subject, "R\xc3\xa9: e4");
  mail_msg_free(m);
  /* Return-Path forms, Delivered-To, Auto-Submitted lower-cased */
  m = parse_simple("Return-Path: < >\r\nDelivered-To: <R+x@Example.test>\r\n"
                   "Auto-Submitted: Auto-Generated\r\nPrecedence: BULK\r\n",
                   "");
  ck_assert_str_eq(m->sender, "<>");
  ck_assert_str_eq(m->delivered_to, "R+x@Example.test");
  ck_assert_str_eq(m->auto_submitted, "auto-generated");
  ck_assert_str_eq(m->precedence, "bulk");
  mail_msg_free(m);
  /* To: a group's first member; In-Reply-To with an old-style phrase */
  m = parse_simple("To: players: x@y.test, z@y.test;\r\n"
                   "In-Reply-To: Your message of Mon <id.1@host.test> (comment)\r\n",
                   "");
  ck_assert_str_eq(m->to, "x@y.test");
  ck_assert_str_eq(m->in_reply_to, "<id.1@host.test>");
  mail_msg_free(m);
  /* References: long chains keep the root and the newest ids */
  {
    char refs[8192] = "References:";
    size_t k;
    for(k = 0; k < 100; k++)
      snprintf(refs + strlen(refs), sizeof(refs) - strlen(refs),
               "\r\n <%03zu.aaaaaaaaaaaaaaaaaaaaaaaa@example.test>", k);
    snprintf(refs + strlen(refs), sizeof(refs) - strlen(refs), "\r\n");
    m = parse_simple(refs, "");
    ck_assert_uint_lt(strlen(m->references), sizeof(m->references));
    ck_assert(strncmp(m->references, "<000.", 5) == 0);
    ck_assert_ptr_nonnull(strstr(m->references, "<099.aaaaaaaaaaaaaaaaaaaaaaaa@example.test>"));
    ck_assert_ptr_null(strstr(m->references, "<050."));
    mail_msg_free(m);
  }
}
END_TEST

/* ---- clean ---- */

START_TEST(test_mail_clean_text_rules)
{
  static const struct {
    const char *in;
    const char *out;
  } cases[] = {
      {"e4\n", "e4\n"},
      {"e4", "e4\n"},
      {"", ""},
      {"\n\n", ""},
      {"e4\n\n  \n\t\n", "e4\n"},
      /* quotes at any depth, also indented; the rest kept as is */
      {"> a\n>> b\n > c\ne4  \n  Nf3\n", "e4  \n  Nf3\n"},
      /* a signature: "-- " only, not "--" (a pass in some notations) */
      {"e4\n-- \nBob\n", "e4\n"},
      {"e4\n--\nBob\n", "e4\n--\nBob\n"},
      {"e4\n--  \nBob\n", "e4\n--  \nBob\n"},
      /* attributions, also wrapped and localized; not every "On" line */
      {"e4\nOn Mon, 23 Nov 2026, Bob <b@x.test> wrote:\n> x\n", "e4\n"},
      {"e4\nOn Mon, 23 Nov 2026 at 10:15, Bob Smith <\nb@x.test> wrote:\n> x\n", "e4\n"},
      {"On move 3 I play e4\n", "On move 3 I play e4\n"},
      {"On second thought:\nNf3\n", "On second thought:\nNf3\n"},
      {"Le 23/11/2026 \xc3\xa0 10:15, Bob a \xc3\xa9"
       "crit\xc2\xa0:\nd5\n",
       "d5\n"},
      {"Am 23.11.2026 um 10:15 schrieb Bob <b@x.test>:\nd5\n", "d5\n"},
      {"El lun, 23 nov 2026 a las 10:15, Bob (<b@x.test>) escribi\xc3\xb3:\nd5\n", "d5\n"},
      /* Outlook separators: everything after goes */
      {"Bxc6\n-----Original Message-----\nFrom: x\nmore\n", "Bxc6\n"},
      {"Bxc6\n----- Original Message -----\nmore\n", "Bxc6\n"},
      {"Bxc6\n-----Urspr\xc3\xbcngliche Nachricht-----\nmore\n", "Bxc6\n"},
      {"-----\n| board |\n-----\n", "-----\n| board |\n-----\n"},
      {"e4\n\n________________________________\nFrom: Ref <r@x.test>\nSent: Monday\n"
       "To: me\nSubject: game\n\nboard\n",
       "e4\n"},
      {"e4\n*From:* Ref <r@x.test>\n*Sent:* Monday\n*To:* me\n*Subject:* game\n", "e4\n"},
      {"e4\nFrom: Ref Sent: Monday To: me Subject: game\nboard\n", "e4\n"},
      {"e4\nVon: Ref <r@x.test>\nGesendet: Montag\nAn: ich\nBetreff: Partie\n", "e4\n"},
      {"e4\nDe\xc2\xa0: Ref\nEnvoy\xc3\xa9\xc2\xa0: lundi\n\xc3\x80\xc2\xa0: moi\nObjet\xc2\xa0: "
       "partie\n",
       "e4\n"},
      /* a lone "From:" line, or one without Sent/Subject, stays */
      {"From: my side, e4\nNf3\n", "From: my side, e4\nNf3\n"},
      {"From: a\nTo: b\n\nSubject: c\n", "From: a\nTo: b\n\nSubject: c\n"},
      /* taglines */
      {"e4\n\nSent from my Galaxy\n", "e4\n"},
      {"e4\nGet Outlook for iOS<https://aka.ms/o0ukef>\n", "e4\n"},
      {"e4\nEnvoy\xc3\xa9 de mon iPhone\n", "e4\n"},
      /* W1, Samsung Email's text part: the tagline joined on by U+00A0 */
      {"take\xc2\xa0Sent from my Galaxy\n", "take\n"},
      {"take\xc2\xa0\xc2\xa0 Sent from my Galaxy\n", "take\n"},
      {"  13/7 8/7\xc2\xa0Sent from my Samsung Galaxy smartphone.\n", "  13/7 8/7\n"},
      /* ...only after a no-break space, only a tagline to the line's end */
      {"I take it. Sent from my phone\n", "I take it. Sent from my phone\n"},
      {"take\xc2\xa0Sent from my Galaxy while e4 was on my mind for a very, very long time indeed, "
       "friend\n",
       "take\xc2\xa0Sent from my Galaxy while e4 was on my mind for a very, very long time indeed, "
       "friend\n"},
      {"e4  \n", "e4  \n"},
      {"Sent from my office I play e4 because the position after the opening calls for it, "
       "as we discussed.\n",
       "Sent from my office I play e4 because the position after the opening calls for it, "
       "as we discussed.\n"},
      /* forward separators (corpus 38-40): everything after goes */
      {"board\n\n---------- Forwarded message ---------\nFrom: Ref <r@x.test>\nNf3\n", "board\n"},
      {"history\n-------- Forwarded Message --------\nSubject: \tx\nNf3\n", "history\n"},
      {"legal\n\nBegin forwarded message:\n\nFrom: Ref\nNf3\n", "legal\n"},
      {"d4\n-------- Original message --------\nFrom: Ref\nNf3\n", "d4\n"},
      /* a flowed sender joined the next line on to the separator */
      {"d5\n----- Original Message ----- From: \"Ref\" <r@x.test>\nTo: me\n", "d5\n"},
      /* ...but prose that merely mentions them stays */
      {"--- forwarded message is below, e4\n", "--- forwarded message is below, e4\n"},
      {"Begin forwarded message: e4\n", "Begin forwarded message: e4\n"},
      /* CRLF input */
      {"e4\r\n> q\r\n\r\n", "e4\n"},
  };
  size_t i;

  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    char *got = mail_clean_text(cases[i].in);
    ck_assert_ptr_nonnull(got);
    ck_assert_msg(!strcmp(got, cases[i].out), "case %zu: [%s] gave [%s], want [%s]", i, cases[i].in,
                  got, cases[i].out);
    free(got);
  }
  {
    char *got = mail_clean_text(NULL);
    ck_assert_str_eq(got, "");
    free(got);
  }
}
END_TEST

/* ---- checks ---- */

START_TEST(test_mail_addr_valid)
{
  static const char *const good[] = {"a@b",           "referee+g12-w.x@example.test",
                                     "o'neil@x.test", "a!#$%&'*+-/=?^_`{|}~@x-y.z",
                                     "u@[192.0.2.1]", NULL};
  static const char *const bad[] = {"",
                                    "a",
                                    "@b",
                                    "a@",
                                    "a@@b",
                                    "a@b@c",
                                    "a b@c",
                                    "a@b c",
                                    "<a@b>",
                                    "a@b,c@d",
                                    "a@b\r\nBcc: c@d",
                                    "a@b\n",
                                    "\"a\"@b",
                                    "a(x)@b",
                                    "a;b@c",
                                    ".a@b",
                                    "a.@b",
                                    "a@.b",
                                    "a@b.",
                                    "a@b..c",
                                    "a@b:25",
                                    "a@[1.2.3.4",
                                    "\xc3\xa9@b",
                                    "a@\x7f",
                                    NULL};
  char longest[MAIL_ADDR_MAX + 1];
  size_t i;

  for(i = 0; good[i]; i++)
    ck_assert_msg(mail_addr_valid(good[i]), "%s should be valid", good[i]);
  for(i = 0; bad[i]; i++)
    ck_assert_msg(!mail_addr_valid(bad[i]), "%s should be invalid", bad[i]);
  ck_assert(!mail_addr_valid(NULL));
  memset(longest, 'a', sizeof(longest));
  longest[MAIL_ADDR_MAX - 8] = '@';
  longest[MAIL_ADDR_MAX - 1] = '\0'; /* 255 bytes */
  ck_assert(mail_addr_valid(longest));
  longest[MAIL_ADDR_MAX - 1] = 'a';
  longest[MAIL_ADDR_MAX] = '\0'; /* 256 bytes */
  ck_assert(!mail_addr_valid(longest));
}
END_TEST

/* An invitee as written, read as RFC 5322's addr-spec and never repaired:
 * what is not one is refused whole (nothing dropped to make it one). */
START_TEST(test_mail_addr_invitee)
{
  static const struct {
    const char *text;
    enum mail_addr_kind want;
  } cases[] = {
    {"bob@example.org", MAIL_ADDR_OK},
    {"o'neil@x.test", MAIL_ADDR_OK},
    {"a.b+c@sub.example.org", MAIL_ADDR_OK},
    {"o'brien\"x@evil.test", MAIL_ADDR_SYNTAX}, /* not o'brienx@evil.test */
    {"o'brien\"x\"@evil.test", MAIL_ADDR_SYNTAX},
    {"\"john doe\"@example.net", MAIL_ADDR_QUOTED},
    {"\"a\\\"b\"@example.net", MAIL_ADDR_QUOTED},
    {"\"unterminated@example.net", MAIL_ADDR_SYNTAX},
    {"\"a\"b@example.net", MAIL_ADDR_SYNTAX},
    {"x@[127.0.0.1]", MAIL_ADDR_LITERAL},
    {"x@[IPv6:::1]", MAIL_ADDR_LITERAL},
    {"x@[1.2.3.4", MAIL_ADDR_SYNTAX},
    {"x@127.0.0.1", MAIL_ADDR_LITERAL},
    {"root@localhost", MAIL_ADDR_THIS_HOST},
    {"root@LOCALHOST.localdomain", MAIL_ADDR_THIS_HOST},
    {"a@mail.localhost", MAIL_ADDR_THIS_HOST},
    {"root@thismachine", MAIL_ADDR_THIS_HOST},
    {"referee@example.org", MAIL_ADDR_THIS_HOST},
    {"Referee+1.abc@Example.org", MAIL_ADDR_THIS_HOST},
    {"referee@example.net", MAIL_ADDR_OK},
    {"alice@example.org", MAIL_ADDR_OK}, /* the referee's domain is a club's too */
    {"a@b@c", MAIL_ADDR_SYNTAX},
    {"a b@c", MAIL_ADDR_SYNTAX},
    {".a@b", MAIL_ADDR_SYNTAX},
    {"a@b..c", MAIL_ADDR_SYNTAX},
    {"a@b_c!", MAIL_ADDR_SYNTAX}, /* dot-atom, but no host name */
    {"a@", MAIL_ADDR_SYNTAX},
    {"", MAIL_ADDR_SYNTAX},
  };
  size_t i;
  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
    ck_assert_msg(mail_addr_invitee(cases[i].text, "referee@example.org", "thismachine") ==
                    cases[i].want,
                  "%s: %d, not %d", cases[i].text,
                  (int)mail_addr_invitee(cases[i].text, "referee@example.org", "thismachine"),
                  (int)cases[i].want);
  ck_assert(mail_addr_invitee(NULL, "", NULL) == MAIL_ADDR_SYNTAX);
  ck_assert(mail_addr_invitee("root@thismachine", "", NULL) == MAIL_ADDR_OK);
}
END_TEST

START_TEST(test_mail_msgid_valid)
{
  static const char *const good[] = {"<a@b>",
                                     "<1795428900.0123456789abcdef@example.test>",
                                     "<CAF3x+7k=Zq_8@mail.gmail.com>",
                                     "<x$y$@free.example>",
                                     "<a@[1.2.3.4]>",
                                     NULL};
  static const char *const bad[] = {
      "",        "a@b",       "<a@b",         "a@b>",        "<ab>",      "<@b>",    "<a@>",
      "<a b@c>", "<a@b>\r\n", "<a@b>x",       "<<a@b>>",     "<a\r\n@b>", "<a\"@b>", "<a(c)@b>",
      "<a,b@c>", "<a\\b@c>",  "<\xc3\xa9@b>", "<a@b> <c@d>", NULL};
  char longest[300];
  size_t i;

  for(i = 0; good[i]; i++)
    ck_assert_msg(mail_msgid_valid(good[i]), "%s should be valid", good[i]);
  for(i = 0; bad[i]; i++)
    ck_assert_msg(!mail_msgid_valid(bad[i]), "%s should be invalid", bad[i]);
  ck_assert(!mail_msgid_valid(NULL));
  memset(longest, 'a', sizeof(longest));
  longest[0] = '<';
  longest[100] = '@';
  longest[254] = '>';
  longest[255] = '\0';
  ck_assert(mail_msgid_valid(longest));
  longest[254] = 'a';
  longest[255] = '>';
  longest[256] = '\0';
  ck_assert(!mail_msgid_valid(longest));
}
END_TEST

START_TEST(test_mail_is_automatic)
{
  static const struct {
    const char *from;
    const char *sender;
    const char *auto_submitted;
    const char *precedence;
    bool list;
    const char *own;
    bool want;
    const char *why;
  } cases[] = {
      {"bob@x.test", "bob@x.test", "", "", false, OWN_ADDRESS, false, ""},
      {"bob@x.test", "", "no", "", false, OWN_ADDRESS, false, ""},
      {"bob@x.test", "", "no; comment", "", false, OWN_ADDRESS, false, ""},
      {"bob@x.test", "", "auto-replied", "", false, OWN_ADDRESS, true, "auto-submitted"},
      {"bob@x.test", "", "auto-generated", "", false, OWN_ADDRESS, true, "auto-submitted"},
      {"bob@x.test", "", "auto-notified", "", false, OWN_ADDRESS, true, "auto-submitted"},
      {"bob@x.test", "", "nope", "", false, OWN_ADDRESS, true, "auto-submitted"},
      {"bob@x.test", "<>", "", "", false, OWN_ADDRESS, true, "null sender"},
      {"mailer-daemon@x.test", "", "", "", false, OWN_ADDRESS, true, "mailer-daemon"},
      {"bob@x.test", "MAILER-DAEMON@x.test", "", "", false, OWN_ADDRESS, true, "mailer-daemon"},
      {"postmaster@x.test", "", "", "", false, OWN_ADDRESS, true, "mailer-daemon"},
      {"postmasters@x.test", "", "", "", false, OWN_ADDRESS, false, ""},
      {"bob@x.test", "", "", "bulk", false, OWN_ADDRESS, true, "precedence"},
      {"bob@x.test", "", "", "junk", false, OWN_ADDRESS, true, "precedence"},
      {"bob@x.test", "", "", "list", false, OWN_ADDRESS, true, "precedence"},
      {"bob@x.test", "", "", "first-class", false, OWN_ADDRESS, false, ""},
      {"bob@x.test", "", "", "", true, OWN_ADDRESS, true, "mailing list"},
      {"referee@example.test", "", "", "", false, OWN_ADDRESS, true, "own address"},
      {"referee+g12w@example.test", "", "", "", false, "Referee@Example.TEST", true, "own address"},
      {"referee+g12w@example.test", "", "", "", false, "referee+other@example.test", true,
       "own address"},
      {"referees@example.test", "", "", "", false, OWN_ADDRESS, false, ""},
      {"referee@example.org", "", "", "", false, OWN_ADDRESS, false, ""},
      {"referee@example.test", "", "", "", false, NULL, false, ""},
      {"referee@example.test", "", "", "", false, "", false, ""},
  };
  size_t i;
  const char *why = NULL;

  for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    struct mail_msg m;
    bool got;
    memset(&m, 0, sizeof(m));
    snprintf(m.from, sizeof(m.from), "%s", cases[i].from);
    snprintf(m.sender, sizeof(m.sender), "%s", cases[i].sender);
    snprintf(m.auto_submitted, sizeof(m.auto_submitted), "%s", cases[i].auto_submitted);
    snprintf(m.precedence, sizeof(m.precedence), "%s", cases[i].precedence);
    m.list = cases[i].list;
    got = mail_is_automatic(&m, cases[i].own, &why);
    ck_assert_msg(got == cases[i].want, "case %zu", i);
    ck_assert_msg(!strcmp(why, cases[i].why), "case %zu: why [%s]", i, why);
    ck_assert(mail_is_automatic(&m, cases[i].own, NULL) == cases[i].want);
  }
  ck_assert(mail_is_automatic(NULL, OWN_ADDRESS, &why));
  /* The marks older or other than RFC 3834's (corpus 43-45). */
  {
    struct mail_msg m;
    memset(&m, 0, sizeof(m));
    snprintf(m.from, sizeof(m.from), "bob@x.test");
    m.report = true; /* RFC 6522: a DSN or MDN whatever its envelope */
    ck_assert(mail_is_automatic(&m, OWN_ADDRESS, &why));
    ck_assert_str_eq(why, "report");
    m.report = false;
    m.autoreply = true; /* X-Autoreply / X-Autorespond */
    ck_assert(mail_is_automatic(&m, OWN_ADDRESS, &why));
    ck_assert_str_eq(why, "x-autoreply");
    m.autoreply = false;
    snprintf(m.precedence, sizeof(m.precedence), "auto_reply");
    ck_assert(mail_is_automatic(&m, OWN_ADDRESS, &why));
    ck_assert_str_eq(why, "precedence");
    snprintf(m.precedence, sizeof(m.precedence), "bulky");
    ck_assert(!mail_is_automatic(&m, OWN_ADDRESS, &why));
    ck_assert_str_eq(why, "");
  }
}
END_TEST

/* ---- compose ---- */

/* Every line ends in CRLF, no bare CR or LF; header lines (up to the blank
 * line) fit in 78 columns, body lines in 998. */
static void check_wire(const char *msg, size_t body_max)
{
  const char *p = msg;
  bool header = true;

  while(*p) {
    const char *crlf = strstr(p, "\r\n");
    size_t n;
    ck_assert_msg(crlf != NULL, "unterminated line [%s]", p);
    n = (size_t)(crlf - p);
    ck_assert_msg(!memchr(p, '\n', n) && !memchr(p, '\r', n), "bare CR or LF");
    if(header && !n)
      header = false;
    else
      ck_assert_msg(n <= (header ? 78 : body_max), "line of %zu: [%.*s]", n, (int)n, p);
    p = crlf + 2;
  }
  ck_assert(!header);
}

/* check_wire for replies to what came in: lines end in CRLF and stay
 * within 998 octets (RFC 5322 §2.1.1 MUST); a header line may pass 78 (the
 * SHOULD) only when it is one token that cannot be folded, a long
 * Message-ID (Outlook's are 80 and more) on its own continuation line. */
static void check_wire_reply(const char *msg)
{
  const char *p = msg;
  bool header = true;

  while(*p) {
    const char *crlf = strstr(p, "\r\n");
    size_t n;
    ck_assert_msg(crlf != NULL, "unterminated line [%s]", p);
    n = (size_t)(crlf - p);
    ck_assert_msg(!memchr(p, '\n', n) && !memchr(p, '\r', n), "bare CR or LF");
    ck_assert_msg(n <= 998, "line of %zu", n);
    if(header && !n)
      header = false;
    else if(header && n > 78)
      ck_assert_msg(p[0] == ' ' && !memchr(p + 1, ' ', n - 1), "header line of %zu: [%.*s]", n,
                    (int)n, p);
    p = crlf + 2;
  }
  ck_assert(!header);
}

/* The value of header name in msg (first line only), into dst. */
static bool header_of(const char *msg, const char *name, char *dst, size_t cap)
{
  size_t k = strlen(name);
  const char *p = msg;

  while(*p && strncmp(p, "\r\n", 2)) {
    if(!strncmp(p, name, k) && p[k] == ':') {
      const char *e = strstr(p, "\r\n");
      snprintf(dst, cap, "%.*s", (int)(e - p - k - 2), p + k + 2);
      return true;
    }
    p = strstr(p, "\r\n") + 2;
  }
  return false;
}

static const char board72[] =
    "Game 12, move 3. Black to move.                                         \n"
    "+----------------------------------------------------------------------+\n"
    "| r    n    b    q    k    b    n    r      8                           |\n"
    "| p    p    p    p    .    p    p    p      7                           |\n"
    "| .    .    .    .    .    .    .    .      6                           |\n"
    "| .    .    .    .    p    .    .    .      5                           |\n"
    "| .    .    .    .    P    .    .    .      4                           |\n"
    "| .    .    .    .    .    N    .    .      3                           |\n"
    "| P    P    P    P    .    P    P    P      2                           |\n"
    "| R    N    B    Q    K    B    .    R      1                           |\n"
    "+----------------------------------------------------------------------+\n"
    "From here the game goes on. Reply with your move.\n"
    ".\n"
    "   \n"
    "=?utf-8?q?not_a_word?= and a trailing space \n";

START_TEST(test_mail_compose_roundtrip)
{
  struct mail_out o;
  struct mail_msg *m = NULL;
  char msgid[256];
  char hv[512];
  char errbuf[128];
  char *out = NULL;
  const char *p;
  int rc;

  memset(&o, 0, sizeof(o));
  o.from = "referee+g12b@example.test";
  o.from_name = "tabula referee";
  o.reply_to = "referee+g12b@example.test";
  o.to = "alice.player@gmail.com";
  o.subject = "Partie 12 : \xc3\xa0 vous de jouer \xe2\x80\x94 coup 3 (\xe2\x99\x9e Cf3), "
              "l'\xc3\xa9tude continue avec beaucoup de texte pour plier la ligne";
  o.in_reply_to = "<CAF3x+7kQ2v9mB1=Zq8xJp0wYh4RdTn6uS5eL_a2Kc9VfGo1NwA@mail.gmail.com>";
  o.references = "<1795427700.4f1c2a9b0e7d3c55@example.test>  "
                 "<CAF3x+7kQ2v9mB1=Zq8xJp0wYh4RdTn6uS5eL_a2Kc9VfGo1NwA@mail.gmail.com> "
                 "<1795428000.0000000000000001@example.test>";
  o.domain = "example.test";
  o.date = 1795428900;
  o.body = board72;
  rc = mail_compose(&out, msgid, &o);
  ck_assert_int_eq(rc, MAIL_OK);
  ck_assert_ptr_nonnull(out);
  check_wire(out, 78);
  ck_assert(header_of(out, "Date", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "Mon, 23 Nov 2026 10:15:00 +0000");
  ck_assert(header_of(out, "From", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "\"tabula referee\" <referee+g12b@example.test>");
  ck_assert(header_of(out, "Reply-To", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "<referee+g12b@example.test>");
  ck_assert(header_of(out, "Message-ID", hv, sizeof(hv)));
  ck_assert_str_eq(hv, msgid);
  /* <seconds.16 hex digits@domain> */
  ck_assert_uint_eq(strlen(msgid), strlen("<1795428900.") + 16 + strlen("@example.test>"));
  ck_assert(!strncmp(msgid, "<1795428900.", 12));
  ck_assert_uint_eq(strspn(msgid + 12, "0123456789abcdef"), 16);
  ck_assert_str_eq(msgid + 28, "@example.test>");
  ck_assert(header_of(out, "Content-Type", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "text/plain; charset=utf-8");
  ck_assert(header_of(out, "Content-Transfer-Encoding", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "7bit");
  ck_assert(header_of(out, "MIME-Version", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "1.0");
  ck_assert(header_of(out, "Auto-Submitted", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "auto-replied");
  ck_assert_ptr_null(strstr(out, "flowed"));
  /* The subject went out as encoded words over several lines. */
  ck_assert(header_of(out, "Subject", hv, sizeof(hv)));
  ck_assert(!strncmp(hv, "=?utf-8?", 8));
  p = strstr(out, "\r\nSubject: ");
  ck_assert_ptr_nonnull(strstr(p + 2, "\r\n =?utf-8?"));
  /* The 7bit body is the board, byte for byte, in CRLF. */
  p = strstr(out, "\r\n\r\n") + 4;
  ck_assert(!strncmp(p, "Game 12, move 3. Black to move.    ", 35));

  rc = mail_parse(&m, out, strlen(out), errbuf, sizeof(errbuf));
  ck_assert_msg(rc == MAIL_OK, "%s", errbuf);
  ck_assert_str_eq(m->from, o.from);
  ck_assert_str_eq(m->from_name, "tabula referee");
  ck_assert_str_eq(m->to, o.to);
  ck_assert_str_eq(m->subject, o.subject);
  ck_assert_str_eq(m->message_id, msgid);
  ck_assert_str_eq(m->in_reply_to, o.in_reply_to);
  ck_assert_str_eq(m->references,
                   "<1795427700.4f1c2a9b0e7d3c55@example.test> "
                   "<CAF3x+7kQ2v9mB1=Zq8xJp0wYh4RdTn6uS5eL_a2Kc9VfGo1NwA@mail.gmail.com> "
                   "<1795428000.0000000000000001@example.test>");
  ck_assert_str_eq(m->auto_submitted, "auto-replied");
  ck_assert_str_eq(m->text, board72);
  ck_assert(mail_is_automatic(m, OWN_ADDRESS, NULL));
  mail_msg_free(m);
  free(out);
}
END_TEST

/* The composition folds CRLF in bulk and writes the HTML part
 * quoted-printable; the bytes stay the same: CRLF read as LF, a lone CR
 * kept, non-ASCII, '=' and soft breaks. RFC 2045 §6.7 decoding: "=\r\n"
 * is a soft break, "=XX" a byte, "\r\n" a line end (LF here). Also
 * checks what tools reading the mail line by line rely on (compose.c,
 * put_html_qp): every encoded line starts with '<' or '='. */
static size_t qp_decode(const char *in, size_t n, char *out)
{
  size_t i = 0, k = 0, start = 0;

  while(i < n) {
    /* RFC 2045 §6.7 (5): encoded lines of at most 76 characters */
    if(in[i] == '\r') {
      ck_assert_uint_le(i - start, 76);
      start = i + 2;
    }
    ck_assert(i == 0 || in[i - 1] != '\n' || in[i] == '<' || in[i] == '=' || in[i] == '\r');
    if(in[i] == '=' && i + 2 < n && in[i + 1] == '\r' && in[i + 2] == '\n') {
      ck_assert_uint_le(i + 1 - start, 76);
      i += 3;
      start = i;
      ck_assert(i >= n || in[i] == '<' || in[i] == '=');
      continue;
    }
    if(in[i] == '=' && i + 2 < n) {
      unsigned v = 0;
      ck_assert_int_eq(sscanf(in + i + 1, "%2X", &v), 1);
      out[k++] = (char)v;
      i += 3;
      continue;
    }
    if(in[i] == '\r' && i + 1 < n && in[i + 1] == '\n') {
      out[k++] = '\n';
      i += 2;
      continue;
    }
    out[k++] = in[i++];
  }
  return k;
}

START_TEST(test_mail_compose_bulk_bytes)
{
  static const char *tails[] = {"", "x", "xy"};
  struct mail_out o;
  struct mail_msg *m = NULL;
  char errbuf[128], html[600], want[600], got[600];
  char *out = NULL;
  const char *p, *q;
  int t;

  for(t = 0; t < 3; t++) {
    memset(&o, 0, sizeof(o));
    o.from = "referee@example.test";
    o.to = "alice@example.test";
    o.subject = "bytes";
    o.domain = "example.test";
    o.date = 1795428900;
    o.body = "one\r\ntwo\nthree";
    /* 99 bytes + the tail, then the LF body_lines adds */
    /* a line of words, as the HTML repeats the text's dice lines, and a
     * long one that needs soft breaks */
    snprintf(html, sizeof(html), "<p>%s\r\n%s\r%s</p>%s\nDice roll: game 7 = %s\n> %s", "a\xc3\xa9" "bcdefghijklmnopqrstuvwxyz0123456789",
             "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789abcdefghijklmnopqrstuvw", tails[t],
             "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz",
             "Dice roll: game 7 ");
    o.html = html;
    ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_OK);
    check_wire(out, 78);
    ck_assert_int_eq(mail_parse(&m, out, strlen(out), errbuf, sizeof(errbuf)), MAIL_OK);
    ck_assert_str_eq(m->text, "one\ntwo\nthree"); /* (the reader trims the last LF) */
    mail_msg_free(m);
    m = NULL;
    p = strstr(out, "Content-Type: text/html; charset=utf-8\r\n"
                    "Content-Transfer-Encoding: quoted-printable\r\n\r\n");
    ck_assert_ptr_nonnull(p);
    p = strstr(p, "\r\n\r\n") + 4;
    q = strstr(p, "\r\n--");
    ck_assert_ptr_nonnull(q);
    snprintf(want, sizeof(want), "<p>%s\n%s\r%s</p>%s\nDice roll: game 7 = %s\n> %s", "a\xc3\xa9" "bcdefghijklmnopqrstuvwxyz0123456789",
             "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789abcdefghijklmnopqrstuvw", tails[t],
             "0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz0123456789abcdefghijklmnopqrstuvwxyz",
             "Dice roll: game 7");
    /* the encoder escapes the blank that ends a line (RFC 2045 §6.7 (3)) */
    strcat(want, " \n");
    got[qp_decode(p, (size_t)(q - p + 2), got)] = '\0';
    ck_assert_str_eq(got, want);
    free(out);
    out = NULL;
  }
}
END_TEST

START_TEST(test_mail_compose_qp)
{
  struct mail_out o;
  struct mail_msg *m = NULL;
  char hv[512];
  char *body;
  char *out = NULL;
  size_t i;
  size_t k;
  int rc;

  /* Non-ASCII, a 1200-byte line, '=' signs, blanks at line ends, a CRLF
   * (read as LF), no final newline (one is added). */
  body = malloc(4096);
  ck_assert_ptr_nonnull(body);
  k = (size_t)snprintf(body, 4096, "Caf\xc3\xa9 = 1 \xe2\x82\xac, board:\n  \xe2\x99\x94 . . \t\n");
  for(i = 0; i < 1200; i++)
    body[k++] = (char)('a' + i % 26);
  snprintf(body + k, 4096 - k, "\r\nend =3D not an escape");
  memset(&o, 0, sizeof(o));
  o.from = "referee@example.test";
  o.to = "bob@example.test";
  o.subject = "e4";
  o.date = 0;
  o.body = body;
  rc = mail_compose(&out, NULL, &o);
  ck_assert_int_eq(rc, MAIL_OK);
  check_wire(out, 76);
  ck_assert(header_of(out, "Content-Transfer-Encoding", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "quoted-printable");
  ck_assert(header_of(out, "Date", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "Thu, 1 Jan 1970 00:00:00 +0000");
  ck_assert(header_of(out, "Message-ID", hv, sizeof(hv)));
  ck_assert(strstr(hv, "@example.test>") != NULL); /* domain taken from From */
  ck_assert(header_of(out, "Subject", hv, sizeof(hv)));
  ck_assert_str_eq(hv, "e4");
  ck_assert_ptr_null(strstr(out, "From: \"")); /* no display name given */
  ck_assert_int_eq(mail_parse(&m, out, strlen(out), NULL, 0), MAIL_OK);
  /* what went in, with LF ends and a final LF */
  {
    char *want = malloc(strlen(body) + 2);
    char *w = want;
    const char *s;
    for(s = body; *s; s++) {
      if(*s != '\r')
        *w++ = *s;
    }
    *w++ = '\n';
    *w = '\0';
    ck_assert_str_eq(m->text, want);
    free(want);
  }
  mail_msg_free(m);
  free(out);
  free(body);
}
END_TEST

START_TEST(test_mail_compose_subjects)
{
  static const char *const subjects[] = {
      "Re: [tabula] Game 12: your move (chess)",
      /* long ASCII: folded at spaces */
      "Re: [tabula] Game 12: your move (chess) and a subject long enough that it must be "
      "folded over more than one line of the header",
      /* a word too long to fold: encoded words split it */
      "Re: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
      /* looks like an encoded word: must come back literally */
      "=?utf-8?q?e4?=",
      /* mostly non-ASCII: B encoding, characters never split */
      "\xe2\x99\x94\xe2\x99\x95\xe2\x99\x96\xe2\x99\x97\xe2\x99\x98\xe2\x99\x99\xe2\x99\x9a"
      "\xe2\x99\x9b\xe2\x99\x9c\xe2\x99\x9d\xe2\x99\x9e\xe2\x99\x9f\xe2\x99\x94\xe2\x99\x95"
      "\xe2\x99\x96\xe2\x99\x97\xe2\x99\x98\xe2\x99\x99\xe2\x99\x9a\xe2\x99\x9b\xe2\x99\x9c"
      "\xe2\x99\x9d\xe2\x99\x9e\xe2\x99\x9f\xe6\xa3\x8b\xe8\xb0\xb1",
      "",
  };
  size_t i;

  for(i = 0; i < sizeof(subjects) / sizeof(subjects[0]); i++) {
    struct mail_out o;
    struct mail_msg *m = NULL;
    char *out = NULL;
    memset(&o, 0, sizeof(o));
    o.from = "referee@example.test";
    o.to = "bob@example.test";
    o.subject = subjects[i];
    o.date = 1795428900;
    ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_OK);
    check_wire(out, 78);
    ck_assert_int_eq(mail_parse(&m, out, strlen(out), NULL, 0), MAIL_OK);
    ck_assert_msg(!strcmp(m->subject, subjects[i]), "subject %zu came back as [%s]", i, m->subject);
    mail_msg_free(m);
    free(out);
  }
}
END_TEST

/* Collapses runs of blanks (libetpan reads a folded or spaced subject with
 * one space between words, see test_mail_parse_headers). */
static void squeeze(char *s)
{
  char *w = s;
  const char *r;

  for(r = s; *r; r++) {
    if(*r == ' ' && w > s && w[-1] == ' ')
      continue;
    *w++ = *r;
  }
  *w = '\0';
}

/* A reply to every mail of the corpus: the headers every client needs, threading
 * that carries the whole chain, and every value read back as it went out. */
START_TEST(test_mail_compose_reply_corpus)
{
  size_t n;
  char **names = corpus_names(&n);
  size_t i;
  size_t answered = 0;

  for(i = 0; i < n; i++) {
    char path[512];
    char msgid[256];
    char hv[1024];
    char want[600];
    char got[600];
    struct mail_msg *m = NULL;
    struct mail_msg *r = NULL;
    size_t len = 0;
    char *raw;
    char *out;

    snprintf(path, sizeof(path), "%s/%s", CORPUS, names[i]);
    raw = ts_slurp(path, &len);
    ck_assert_ptr_nonnull(raw);
    if(mail_parse(&m, raw, len, NULL, 0) != MAIL_OK) {
      free(raw);
      continue;
    }
    out = compose_reply(m, msgid, names[i]);
    /* RFC 5322 §3.6, RFC 2045, RFC 3834 §5; text/plain, never flowed */
    ck_assert(header_of(out, "Date", hv, sizeof(hv)));
    ck_assert(header_of(out, "Message-ID", hv, sizeof(hv)));
    ck_assert_str_eq(hv, msgid);
    ck_assert(header_of(out, "MIME-Version", hv, sizeof(hv)));
    ck_assert_str_eq(hv, "1.0");
    ck_assert(header_of(out, "Content-Type", hv, sizeof(hv)));
    ck_assert_str_eq(hv, "text/plain; charset=utf-8");
    ck_assert(header_of(out, "Auto-Submitted", hv, sizeof(hv)));
    ck_assert_str_eq(hv, "auto-replied");
    ck_assert_ptr_null(strstr(out, "flowed"));
    /* 15_header_injection: nothing of its Subject starts a header line */
    ck_assert_ptr_null(strstr(out, "\r\nBcc:"));
    ck_assert_int_eq(mail_parse(&r, out, strlen(out), NULL, 0), MAIL_OK);
    ck_assert_str_eq(r->from, "referee@example.test");
    ck_assert_str_eq(r->to, m->from);
    ck_assert_str_eq(r->message_id, msgid);
    /* the reply's own text is what it was given, whatever the mail held */
    ck_assert_str_eq(r->text, m->clean[0] ? m->clean : "");
    snprintf(want, sizeof(want), "Re: %s", m->subject);
    snprintf(got, sizeof(got), "%s", r->subject);
    squeeze(want);
    squeeze(got);
    ck_assert_msg(!strcmp(got, want), "%s: subject [%s] came back as [%s]", names[i], want, got);
    if(m->message_id[0]) {
      /* threads: In-Reply-To the mail, References its chain and the mail */
      size_t rl = strlen(r->references);
      size_t il = strlen(m->message_id);
      ck_assert_str_eq(r->in_reply_to, m->message_id);
      ck_assert(rl >= il && !strcmp(r->references + rl - il, m->message_id));
      if(m->references[0])
        ck_assert(!strncmp(r->references, m->references, strcspn(m->references, " ")));
      answered++;
    } else {
      ck_assert(!header_of(out, "In-Reply-To", hv, sizeof(hv)));
      ck_assert(!header_of(out, "References", hv, sizeof(hv)));
    }
    mail_msg_free(r);
    mail_msg_free(m);
    free(out);
    free(raw);
  }
  free_names(names, n);
  ck_assert_uint_ge(answered, 40);
}
END_TEST

/* A References chain longer than a header line: folded between ids, each
 * line within 78, the chain whole, and read back in order. */
START_TEST(test_mail_compose_references_chain)
{
  char refs[4096] = "";
  char want[4096] = "";
  struct mail_out o;
  struct mail_msg *r = NULL;
  char *out = NULL;
  size_t k;

  for(k = 0; k < 12; k++) {
    char id[80];
    snprintf(id, sizeof(id), "<1795428%03zu.%016zx@example.test>", k, k * 0x1111u);
    snprintf(refs + strlen(refs), sizeof(refs) - strlen(refs), "%s%s", k ? " " : "", id);
  }
  memcpy(want, refs, strlen(refs) + 1);
  memset(&o, 0, sizeof(o));
  o.from = "referee@example.test";
  o.to = "bob@example.test";
  o.subject = "Game 12";
  o.date = 1795428900;
  o.body = "e4\n";
  o.in_reply_to = "<1795428011.000000000000bbbb@example.test>";
  o.references = refs;
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_OK);
  check_wire(out, 78);
  ck_assert_ptr_nonnull(strstr(out, "\r\nReferences: <1795428000."));
  ck_assert_int_eq(mail_parse(&r, out, strlen(out), NULL, 0), MAIL_OK);
  ck_assert_str_eq(r->references, want);
  ck_assert_str_eq(r->in_reply_to, o.in_reply_to);
  mail_msg_free(r);
  free(out);
}
END_TEST

START_TEST(test_mail_compose_injection)
{
  struct mail_out base;
  struct mail_out o;
  struct mail_msg *m = NULL;
  char *out = (char *)"untouched";
  char msgid[256] = "untouched";
  size_t i;
  static const char *const bad_addr[] = {"bob@example.test\r\nBcc: eve@evil.test",
                                         "bob@example.test\nBcc: eve@evil.test",
                                         "bob@example.test, eve@evil.test",
                                         "Bob <bob@example.test>",
                                         "bob",
                                         "",
                                         NULL};
  static const char *const bad_id[] = {"<a@b>\r\nBcc: eve@evil.test", "<a@b> <c@d>", "a@b",
                                       "<a b@c>", NULL};

  memset(&base, 0, sizeof(base));
  base.from = "referee@example.test";
  base.to = "bob@example.test";
  base.subject = "e4";
  base.date = 1795428900;
  base.body = "e4\n";
  for(i = 0; bad_addr[i]; i++) {
    o = base;
    o.to = bad_addr[i];
    ck_assert_int_eq(mail_compose(&out, msgid, &o), MAIL_EPARSE);
    ck_assert_ptr_null(out);
    ck_assert_str_eq(msgid, "untouched");
    o = base;
    o.from = bad_addr[i];
    ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
    o = base;
    o.reply_to = bad_addr[i];
    ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  }
  for(i = 0; bad_id[i]; i++) {
    o = base;
    o.in_reply_to = bad_id[i];
    ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
    o = base;
    o.message_id = bad_id[i];
    ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  }
  o = base;
  o.references = "<a@b.test> <c@d.test>\r\nBcc: eve@evil.test";
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  o = base;
  o.references = "<a@b.test> <c d@e.test>";
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  o = base;
  o.from_name = "tabula\r\nBcc: eve@evil.test";
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  o = base;
  o.from = NULL;
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  o = base;
  o.domain = "evil.test>\r\nBcc: eve@evil.test";
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  o = base;
  o.domain = "evil test";
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_EPARSE);
  ck_assert_int_eq(mail_compose(&out, NULL, NULL), MAIL_EPARSE);
  ck_assert_int_eq(mail_compose(NULL, NULL, &base), MAIL_EPARSE);

  /* The free-text fields are neutralized rather than refused. */
  o = base;
  o.subject = "e4\r\nBcc: eve@evil.test";
  o.from_name = "Ref \"the\" \\ Bot";
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_OK);
  check_wire(out, 78);
  ck_assert_ptr_null(strstr(out, "\r\nBcc:"));
  ck_assert_int_eq(mail_parse(&m, out, strlen(out), NULL, 0), MAIL_OK);
  ck_assert_str_eq(m->subject, "e4 Bcc: eve@evil.test"); /* blanks: see parse_headers */
  ck_assert_str_eq(m->from_name, "Ref \"the\" \\ Bot");
  mail_msg_free(m);
  free(out);
  /* A non-ASCII display name is encoded. */
  o = base;
  o.from_name = "Schiedsrichter \xc3\xa4\xc3\xb6\xc3\xbc";
  ck_assert_int_eq(mail_compose(&out, NULL, &o), MAIL_OK);
  check_wire(out, 78);
  ck_assert_int_eq(mail_parse(&m, out, strlen(out), NULL, 0), MAIL_OK);
  ck_assert_str_eq(m->from_name, o.from_name);
  mail_msg_free(m);
  free(out);
}
END_TEST

/* ---- Maildir ---- */

static void rm_tree(const char *path)
{
  DIR *d = opendir(path);
  struct dirent *e;

  if(!d) {
    unlink(path);
    return;
  }
  for(e = readdir(d); e; e = readdir(d)) {
    char sub[1024];
    if(!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    snprintf(sub, sizeof(sub), "%s/%s", path, e->d_name);
    rm_tree(sub);
  }
  closedir(d);
  rmdir(path);
}

static size_t count_files(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t n = 0;

  ck_assert_ptr_nonnull(d);
  for(e = readdir(d); e; e = readdir(d)) {
    if(strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
      n++;
  }
  closedir(d);
  return n;
}

static void touch(const char *dir, const char *sub, const char *name, const char *data)
{
  char path[1024];
  FILE *f;

  snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, name);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(data, f);
  fclose(f);
}

START_TEST(test_mail_maildir_roundtrip)
{
  char top[] = "/tmp/tabula-mail-XXXXXX";
  char dir[512];
  char sub[1024];
  char names[3][256];
  char **list = NULL;
  size_t n = 0;
  char *data = NULL;
  size_t len = 0;
  static const char *const msgs[3] = {"From: a@b.test\r\n\r\none\r\n",
                                      "From: a@b.test\r\n\r\ntwo\r\n",
                                      "From: a@b.test\r\n\r\nthree\r\n"};
  struct stat st;
  size_t i;

  ck_assert_ptr_nonnull(mkdtemp(top));
  snprintf(dir, sizeof(dir), "%s/deep/er/Maildir", top);
  ck_assert_int_eq(mail_maildir_init(dir), 0);
  ck_assert_int_eq(mail_maildir_init(dir), 0); /* again: fine */
  for(i = 0; i < 3; i++) {
    ck_assert_int_eq(mail_maildir_deliver(dir, msgs[i], strlen(msgs[i]), names[i], 256), 0);
    ck_assert(names[i][0] != '.' && !strchr(names[i], '/') && !strchr(names[i], ':'));
    ck_assert_ptr_nonnull(strstr(names[i], ".M"));
  }
  ck_assert(strcmp(names[0], names[1]) && strcmp(names[1], names[2]));
  snprintf(sub, sizeof(sub), "%s/tmp", dir);
  ck_assert_uint_eq(count_files(sub), 0); /* tmp/ cleaned after delivery */
  snprintf(sub, sizeof(sub), "%s/new/%s", dir, names[0]);
  ck_assert_int_eq(stat(sub, &st), 0);
  ck_assert_int_eq(st.st_mode & 0777, 0600);
  /* dot files and directories in new/ are not messages */
  touch(dir, "new", ".hidden", "x");
  snprintf(sub, sizeof(sub), "%s/new/adir", dir);
  ck_assert_int_eq(mkdir(sub, 0700), 0);

  ck_assert_int_eq(mail_maildir_list_new(dir, &list, &n), 0);
  ck_assert_uint_eq(n, 3);
  for(i = 0; i < 3; i++) {
    ck_assert_str_eq(list[i], names[i]); /* delivery order */
    ck_assert_int_eq(mail_maildir_read(dir, list[i], &data, &len), 0);
    ck_assert_uint_eq(len, strlen(msgs[i]));
    ck_assert_str_eq(data, msgs[i]);
    free(data);
  }
  mail_names_free(list, n);

  ck_assert_int_eq(mail_maildir_ack(dir, names[0]), 0);
  ck_assert_int_eq(mail_maildir_ack(dir, names[0]), 0); /* twice: still fine */
  snprintf(sub, sizeof(sub), "%s/cur/%s:2,S", dir, names[0]);
  ck_assert_int_eq(stat(sub, &st), 0);
  snprintf(sub, sizeof(sub), "%s/new/%s", dir, names[0]);
  ck_assert_int_ne(stat(sub, &st), 0);
  ck_assert_int_eq(mail_maildir_read(dir, names[0], &data, &len), MAIL_EIO);
  ck_assert_ptr_null(data);
  ck_assert_int_eq(mail_maildir_list_new(dir, &list, &n), 0);
  ck_assert_uint_eq(n, 2);
  ck_assert_str_eq(list[0], names[1]);
  mail_names_free(list, n);

  /* names that are not one plain component are refused */
  ck_assert_int_eq(mail_maildir_read(dir, "../new/x", &data, &len), MAIL_EIO);
  ck_assert_int_eq(mail_maildir_read(dir, ".hidden", &data, &len), MAIL_EIO);
  ck_assert_int_eq(mail_maildir_read(dir, "adir", &data, &len), MAIL_EIO);
  ck_assert_int_eq(mail_maildir_ack(dir, "../tmp/x"), MAIL_EIO);
  ck_assert_int_eq(mail_maildir_ack(dir, "no-such-message"), MAIL_EIO);
  ck_assert_int_eq(mail_maildir_ack(dir, ""), MAIL_EIO);

  /* a name_out too small: refused before anything is written */
  ck_assert_int_eq(mail_maildir_deliver(dir, "x", 1, names[0], 8), MAIL_EIO);
  ck_assert_int_eq(mail_maildir_deliver(dir, "x", MAIL_MAX_MESSAGE + 1u, NULL, 0), MAIL_ETOOBIG);
  snprintf(sub, sizeof(sub), "%s/tmp", dir);
  ck_assert_uint_eq(count_files(sub), 0);
  snprintf(sub, sizeof(sub), "%s/new", dir);
  ck_assert_uint_eq(count_files(sub), 4);                         /* two messages, .hidden, adir */
  ck_assert_int_eq(mail_maildir_deliver(dir, "", 0, NULL, 0), 0); /* empty is a message */

  /* a message over the limit is not read */
  snprintf(sub, sizeof(sub), "%s/new/big", dir);
  {
    int fd = open(sub, O_WRONLY | O_CREAT, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, (off_t)MAIL_MAX_MESSAGE + 1), 0);
    close(fd);
  }
  ck_assert_int_eq(mail_maildir_read(dir, "big", &data, &len), MAIL_ETOOBIG);
  ck_assert_int_eq(truncate(sub, (off_t)MAIL_MAX_MESSAGE), 0);
  ck_assert_int_eq(mail_maildir_read(dir, "big", &data, &len), 0);
  ck_assert_uint_eq(len, MAIL_MAX_MESSAGE);
  free(data);

  /* a missing Maildir */
  snprintf(sub, sizeof(sub), "%s/nowhere", top);
  ck_assert_int_eq(mail_maildir_list_new(sub, &list, &n), MAIL_EIO);
  ck_assert_int_eq(mail_maildir_deliver(sub, "x", 1, NULL, 0), MAIL_EIO);
  rm_tree(top);
}
END_TEST

START_TEST(test_mail_maildir_order)
{
  char top[] = "/tmp/tabula-mail-XXXXXX";
  char **list = NULL;
  size_t n = 0;

  ck_assert_ptr_nonnull(mkdtemp(top));
  ck_assert_int_eq(mail_maildir_init(top), 0);
  /* Other deliverers (Dovecot, Postfix) do not pad the microseconds, and
   * an older second count is shorter: text order would be wrong. */
  touch(top, "new", "1795428900.M123P10.host", "c");
  touch(top, "new", "1795428900.M99P10.host", "b");
  touch(top, "new", "999999999.M500000P10.host", "a");
  touch(top, "new", "1795428901.M1P10.host,S=643,W=663", "d");
  touch(top, "new", "zzz-not-a-time", "e");
  ck_assert_int_eq(mail_maildir_list_new(top, &list, &n), 0);
  ck_assert_uint_eq(n, 5);
  ck_assert_str_eq(list[0], "999999999.M500000P10.host");
  ck_assert_str_eq(list[1], "1795428900.M99P10.host");
  ck_assert_str_eq(list[2], "1795428900.M123P10.host");
  ck_assert_str_eq(list[3], "1795428901.M1P10.host,S=643,W=663");
  ck_assert_str_eq(list[4], "zzz-not-a-time");
  mail_names_free(list, n);
  mail_names_free(NULL, 0);
  rm_tree(top);
}
END_TEST

START_TEST(test_mail_read_fd)
{
  int fds[2];
  char *data = NULL;
  size_t len = 0;
  char path[] = "/tmp/tabula-mail-fd-XXXXXX";
  int fd;

  ck_assert_int_eq(pipe(fds), 0);
  ck_assert_int_eq(write(fds[1], "From: a@b.test\n\ne4\n", 19), 19);
  close(fds[1]);
  ck_assert_int_eq(mail_read_fd(fds[0], &data, &len), 0);
  close(fds[0]);
  ck_assert_uint_eq(len, 19);
  ck_assert_str_eq(data, "From: a@b.test\n\ne4\n");
  free(data);

  ck_assert_int_eq(pipe(fds), 0);
  close(fds[1]);
  ck_assert_int_eq(mail_read_fd(fds[0], &data, &len), 0); /* empty input */
  ck_assert_uint_eq(len, 0);
  ck_assert_str_eq(data, "");
  free(data);
  close(fds[0]);

  fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, (off_t)MAIL_MAX_MESSAGE + 1), 0);
  ck_assert_int_eq(mail_read_fd(fd, &data, &len), MAIL_ETOOBIG);
  ck_assert_ptr_null(data);
  ck_assert_int_eq(ftruncate(fd, (off_t)MAIL_MAX_MESSAGE), 0);
  ck_assert_int_eq((int)lseek(fd, 0, SEEK_SET), 0);
  ck_assert_int_eq(mail_read_fd(fd, &data, &len), 0);
  ck_assert_uint_eq(len, MAIL_MAX_MESSAGE);
  free(data);
  close(fd);
  unlink(path);
  ck_assert_int_eq(mail_read_fd(-1, &data, &len), MAIL_EIO);
}
END_TEST

static Suite *mail_suite(void)
{
  Suite *s = suite_create("mail");
  TCase *tc;

  tc = tcase_create("parse");
  tcase_add_test(tc, test_mail_parse_corpus);
  tcase_add_test(tc, test_mail_parse_bodies);
  tcase_add_test(tc, test_mail_parse_headers);
  tcase_add_test(tc, test_mail_parse_header_only);
  tcase_add_test(tc, test_mail_date_parse);
  tcase_add_test(tc, test_mail_received_time);
  suite_add_tcase(s, tc);
  tc = tcase_create("hostile");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, test_mail_parse_hostile);
  tcase_add_test(tc, test_mail_parse_benign_words);
  tcase_add_test(tc, test_mail_parse_bad_boundary);
  tcase_add_test(tc, test_mail_parse_floods);
  tcase_add_test(tc, test_mail_parse_truncated);
  tcase_add_test(tc, test_mail_parse_mutated);
  suite_add_tcase(s, tc);
  tc = tcase_create("clean");
  tcase_add_test(tc, test_mail_clean_text_rules);
  suite_add_tcase(s, tc);
  tc = tcase_create("checks");
  tcase_add_test(tc, test_mail_addr_valid);
  tcase_add_test(tc, test_mail_addr_invitee);
  tcase_add_test(tc, test_mail_msgid_valid);
  tcase_add_test(tc, test_mail_is_automatic);
  suite_add_tcase(s, tc);
  tc = tcase_create("compose");
  tcase_add_test(tc, test_mail_compose_roundtrip);
  tcase_add_test(tc, test_mail_compose_qp);
  tcase_add_test(tc, test_mail_compose_bulk_bytes);
  tcase_add_test(tc, test_mail_compose_subjects);
  tcase_add_test(tc, test_mail_compose_injection);
  tcase_add_test(tc, test_mail_compose_reply_corpus);
  tcase_add_test(tc, test_mail_compose_references_chain);
  suite_add_tcase(s, tc);
  tc = tcase_create("maildir");
  tcase_add_test(tc, test_mail_maildir_roundtrip);
  tcase_add_test(tc, test_mail_maildir_order);
  tcase_add_test(tc, test_mail_read_fd);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(mail_suite());
}
