/*
 * fuzz_mail.c: libFuzzer target for the mail path: raw bytes ->
 * mail_parse -> the cleaned text -> the command reader
 * (ref_commands_parse, referee/kit/commands.c), as process.c runs them on
 * every mail that reaches the referee, from anyone.
 *
 * Besides "no crash, no leak, no undefined behaviour, no input slower than
 * the fuzzer's -timeout", each input checks the promises mail.h makes:
 *
 *   - mail_parse returns MAIL_OK or one of its refusals, and *out only
 *     with MAIL_OK;
 *   - a parsed mail's values pass the checks a reply relies on (From and
 *     the other addresses valid, msg-ids valid, text in valid UTF-8 with no
 *     control characters but TAB and LF), clean is mail_clean_text(text),
 *     mail_is_automatic gives a reason, and a reply to it composes;
 *   - a refused mail's header read alone (mail_parse_header) keeps the
 *     same promises, with head_only set and no text;
 *   - what structure.c measured bounds the tree libetpan builds: never
 *     deeper, never more parts (the limits hold only if it does);
 *   - the command reader stays inside its arrays and strings, and the
 *     comment made of a mail's prose within its cap, without
 *     a control character;
 *   - the Authentication-Results reader (mail/authres.c, RFC 8601) on
 *     each field mail_parse kept and on the raw bytes as one field: a
 *     result in its range, names and values inside their arrays, an
 *     authserv-id only when it says it read one, "none" with no resinfo;
 *     and it vouches for a domain only when the topmost field of the
 *     trusted id read whole and holds a pass naming that domain, never
 *     for a field below it;
 *   - the arrival time read from a POP3 message's top Received: field, and
 *     any date the bytes may be, is -1 or a time in years 1970-9999
 *     (every number bounded).
 *
 * A broken promise prints what broke and aborts, so libFuzzer keeps the
 * input. Seeds: corpus/fuzz_mail/ (tests/data/mail, minimised, and the
 * regressions found here).
 */
#include <libetpan/libetpan.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "commands.h"
#include "mail.h"
#include "mail_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define OWN_ADDRESS "referee@example.test"

static void broken(const char *what, const char *detail)
{
  fprintf(stderr, "fuzz_mail: %s: %s\n", what, detail ? detail : "");
  abort();
}

/* Valid UTF-8 (RFC 3629) with no control character but TAB and, when
 * lines, LF. */
static bool text_ok(const char *s, bool lines)
{
  size_t n = strlen(s);
  size_t i;

  if(!mail_utf8_valid(s, n))
    return false;
  for(i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if((c < 0x20 && c != '\t' && !(lines && c == '\n')) || c == 0x7f)
      return false;
  }
  return true;
}

static void check_ids(const char *refs)
{
  while(*refs) {
    char id[256];
    size_t k = strcspn(refs, " ");
    if(!k || k >= sizeof(id))
      broken("references", refs);
    memcpy(id, refs, k);
    id[k] = '\0';
    if(!mail_msgid_valid(id))
      broken("reference", id);
    refs += k;
    if(*refs)
      refs++;
  }
}

/* The promises of mail.h about a parsed message (mail_parse or, with
 * head_only, mail_parse_header). */
static void check_msg(const struct mail_msg *m, bool head_only)
{
  const char *why = NULL;
  char *again;
  char *out = NULL;
  char refs[1400];
  struct mail_out o;

  if(m->head_only != head_only)
    broken("head_only", NULL);
  if(!mail_addr_valid(m->from))
    broken("from", m->from);
  if(m->sender[0] && strcmp(m->sender, "<>") && !mail_addr_valid(m->sender))
    broken("sender", m->sender);
  if((m->to[0] && !mail_addr_valid(m->to)) ||
     (m->delivered_to[0] && !mail_addr_valid(m->delivered_to)))
    broken("to", m->to);
  if((m->message_id[0] && !mail_msgid_valid(m->message_id)) ||
     (m->in_reply_to[0] && !mail_msgid_valid(m->in_reply_to)))
    broken("msg-id", m->message_id);
  check_ids(m->references);
  if(!text_ok(m->from_name, false) || !text_ok(m->subject, false) ||
     !text_ok(m->auto_submitted, false) || !text_ok(m->precedence, false))
    broken("header text", m->subject);
  if(!m->text || !m->clean || !text_ok(m->text, true) || !text_ok(m->clean, true))
    broken("text", NULL);
  if(head_only && (m->text[0] || m->clean[0]))
    broken("head_only text", m->text);
  again = mail_clean_text(m->text);
  if(!again || strcmp(again, m->clean))
    broken("clean", again);
  free(again);
  mail_is_automatic(m, OWN_ADDRESS, &why);
  if(!why)
    broken("mail_is_automatic", "no reason");
  /* The service answers what it read: a reply to any parsed mail composes. */
  memset(&o, 0, sizeof(o));
  o.from = OWN_ADDRESS;
  o.from_name = "tabula referee";
  o.to = m->from;
  o.subject = m->subject;
  o.domain = "example.test";
  o.date = 1795428900;
  o.body = m->clean;
  if(m->message_id[0]) {
    o.in_reply_to = m->message_id;
    snprintf(refs, sizeof(refs), "%s%s%s", m->references, m->references[0] ? " " : "",
             m->message_id);
    o.references = refs;
  }
  if(mail_compose(&out, NULL, &o) != MAIL_OK)
    broken("mail_compose", m->subject);
  free(out);
}

/* The depth and body parts of the tree libetpan built (root 0). */
static void tree_shape(struct mailmime *mm, size_t depth, struct mail_shape *sh)
{
  clistiter *it;

  if(depth > sh->depth)
    sh->depth = depth;
  if(mm->mm_type == MAILMIME_MULTIPLE) {
    for(it = clist_begin(mm->mm_data.mm_multipart.mm_mp_list); it; it = clist_next(it)) {
      sh->parts++;
      tree_shape(clist_content(it), depth + 1, sh);
    }
  } else if(mm->mm_type == MAILMIME_MESSAGE && mm->mm_data.mm_message.mm_msg_mime)
    tree_shape(mm->mm_data.mm_message.mm_msg_mime, depth + 1, sh);
}

/* What structure.c measured bounds the tree libetpan then builds. Only for
 * messages within the limits: the others never reach libetpan. */
static void check_shape(const char *raw, size_t len)
{
  struct mail_shape want;
  struct mail_shape got;
  struct mailmime *mm = NULL;
  char detail[128];
  size_t idx = 0;
  char *copy;

  if(len >= 5 && !memcmp(raw, "From ", 5)) {
    const char *nl = memchr(raw, '\n', len);
    size_t skip = nl ? (size_t)(nl - raw) + 1 : len;
    raw += skip;
    len -= skip;
  }
  if(mail_structure_check(raw, len, &want, NULL))
    return;
  copy = calloc(1, len + 16); /* message.c's PARSE_PAD */
  if(!copy)
    return;
  memcpy(copy, raw, len);
  memset(&got, 0, sizeof(got));
  if(mailmime_parse(copy, len, &idx, &mm) == MAILIMF_NO_ERROR && mm)
    tree_shape(mm, 0, &got);
  if(got.depth > want.depth || got.parts > want.parts) {
    snprintf(detail, sizeof(detail), "libetpan depth %zu parts %zu, measured %zu %zu", got.depth,
             got.parts, want.depth, want.parts);
    broken("structure", detail);
  }
  if(mm)
    mailmime_free(mm);
  free(copy);
}

static void check_cmds(const struct mail_msg *m)
{
  struct ref_cmds c;
  int i;

  ref_commands_parse(&c, m->clean, m->subject);
  if(c.ncmd < 0 || c.ncmd > REF_CMD_MAX || c.ncand < 0 || c.ncand > REF_CAND_MAX || c.guard < -1)
    broken("commands", "counts");
  for(i = 0; i < c.ncmd; i++) {
    const struct ref_cmd *k = &c.cmd[i];
    if(k->kind < 0 || k->kind >= REF_CMD_LAST || k->nwith < 0 || k->nwith > REF_WITH_MAX ||
       strnlen(k->arg, sizeof(k->arg)) == sizeof(k->arg) ||
       strnlen(k->options, sizeof(k->options)) == sizeof(k->options) ||
       strnlen(k->entropy, sizeof(k->entropy)) == sizeof(k->entropy) ||
       strnlen(k->line, sizeof(k->line)) == sizeof(k->line) || !ref_cmd_name(k->kind))
      broken("command", k->line);
  }
  for(i = 0; i < c.ncand; i++) {
    if(strnlen(c.cand[i], sizeof(c.cand[i])) == sizeof(c.cand[i]) || !c.cand[i][0])
      broken("candidate", NULL);
  }
  /* The prose stays in its buffer, and the comment made of it
   * (ref_prose_text) within its cap, without a control character */
  if(c.nprose < 0 || c.nprose > REF_PROSE_LINES)
    broken("prose", "count");
  for(i = 0; i < c.nprose; i++)
    if((size_t)c.pline[i].off + c.pline[i].len > sizeof(c.prose) || c.pline[i].cand < -1 ||
       c.pline[i].cand >= c.ncand)
      broken("prose", "line");
  {
    char out[2560];
    size_t j, lines = 0;
    ref_prose_text(out, sizeof(out), &c, 0, c.ncand ? 1 : 0, "> ", "[cut]");
    for(j = 0; out[j]; j++) {
      unsigned char ch = (unsigned char)out[j];
      if((ch < 0x20 && ch != '\n') || ch == 0x7f)
        broken("comment", "a control character");
      lines += ch == '\n';
    }
    if(lines > REF_COMMENT_LINES + 1 ||
       j > REF_COMMENT_BYTES + (REF_COMMENT_LINES + 1) * 3 + sizeof("[cut]"))
      broken("comment", "past its cap");
  }
}

static void check_string(const char *s, size_t cap, const char *what)
{
  if(strnlen(s, cap) == cap)
    broken("authres", what);
}

/* One field's reading keeps mail.h's promises; returns its result. */
static int check_authres_field(const char *p, size_t n, struct mail_authres *ar)
{
  int rc = mail_authres_parse(ar, p, n), i, j;

  if(rc < -2 || rc > 0)
    broken("authres", "result out of range");
  check_string(ar->authserv_id, sizeof(ar->authserv_id), "authserv-id");
  if(rc == -2 && ar->authserv_id[0])
    broken("authres", "an authserv-id with -2");
  if(rc == 0 && !ar->authserv_id[0] && !memchr(p, '"', n))
    broken("authres", "read whole without an authserv-id");
  if(ar->nres < 0 || ar->nres > MAIL_AUTHRES_RESINFOS || (ar->none && ar->nres))
    broken("authres", "resinfo count");
  for(i = 0; i < ar->nres; i++) {
    const struct mail_authres_resinfo *ri = &ar->res[i];
    check_string(ri->method, sizeof(ri->method), "method");
    check_string(ri->result, sizeof(ri->result), "result");
    check_string(ri->reason, sizeof(ri->reason), "reason");
    if(ri->nprop < 0 || ri->nprop > MAIL_AUTHRES_PROPS)
      broken("authres", "property count");
    for(j = 0; j < ri->nprop; j++) {
      check_string(ri->prop[j].ptype, sizeof(ri->prop[j].ptype), "ptype");
      check_string(ri->prop[j].property, sizeof(ri->prop[j].property), "property");
      check_string(ri->prop[j].value, sizeof(ri->prop[j].value), "value");
    }
  }
  return rc;
}

/* Whether a field read whole holds a pass for the domain as
 * mail_authres_vouches counts one. */
static bool holds_pass(const struct mail_authres *ar, const char *domain)
{
  int i, j;

  for(i = 0; i < ar->nres; i++) {
    const struct mail_authres_resinfo *ri = &ar->res[i];
    const char *prop = !strcmp(ri->method, "dmarc") ? "from" : "d";
    if(strcmp(ri->result, "pass") || (strcmp(ri->method, "dmarc") && strcmp(ri->method, "dkim")))
      continue;
    for(j = 0; j < ri->nprop; j++)
      if(!strcmp(ri->prop[j].ptype, "header") && !strcmp(ri->prop[j].property, prop) &&
         !strcasecmp(ri->prop[j].value, domain))
        return true;
  }
  return false;
}

/* The fields of a mail (one a line, topmost first): each reads within
 * its promises, and vouching, for the top field's own id and the domain
 * its first value names, agrees with a reading of the fields one by one. */
static void check_authres(const char *fields)
{
  static struct mail_authres ar;
  const char *p = fields;
  char id[MAIL_AUTHRES_VALUE] = "", domain[MAIL_AUTHRES_VALUE] = "example.test";
  bool found = false, expect = false, stop = false;

  if(!fields[0])
    return;
  for(;;) {
    size_t n = strcspn(p, "\n");
    int rc = check_authres_field(p, n, &ar);
    if(p == fields) {
      snprintf(id, sizeof(id), "%s", ar.authserv_id);
      if(ar.nres && ar.res[0].nprop && ar.res[0].prop[0].value[0])
        snprintf(domain, sizeof(domain), "%s", ar.res[0].prop[0].value);
    }
    if(!stop && !found) {
      if(rc == -2)
        stop = true;
      else if(id[0] && !strcasecmp(ar.authserv_id, id)) {
        found = true;
        expect = rc == 0 && holds_pass(&ar, domain);
      }
    }
    if(!p[n])
      break;
    p += n + 1;
  }
  if(!id[0] || !domain[0])
    return;
  if(mail_authres_vouches(fields, id, domain) && !expect)
    broken("authres", "vouched without a pass in the trusted field");
}

/* -1 or a time in years 1970..9999 (mail_civil_time's range). */
static void check_time(int64_t t, const char *what)
{
  if(t != -1 && (t < 0 || t > 253402300800LL))
    broken(what, "out of range");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *raw = (const char *)data;
  struct mail_msg *m = NULL;
  char errbuf[128];
  int rc;

  if(size > MAIL_MAX_MESSAGE)
    return 0;
  check_time(mail_received_time(raw, size), "mail_received_time");
  check_time(mail_date_parse(raw, size < 256 ? size : 256), "mail_date_parse");
  {
    /* the bytes as one Authentication-Results field, NULs and all */
    static struct mail_authres ar;
    check_authres_field(raw, size, &ar);
  }
  rc = mail_parse(&m, raw, size, errbuf, sizeof(errbuf));
  check_shape(raw, size);
  if(rc == MAIL_OK) {
    if(!m)
      broken("mail_parse", "MAIL_OK without a message");
    check_msg(m, false);
    check_cmds(m);
    check_authres(m->auth_results);
    mail_msg_free(m);
    return 0;
  }
  if(m)
    broken("mail_parse", "a message with a refusal");
  if(rc != MAIL_EPARSE && rc != MAIL_ELIMIT && rc != MAIL_ETOOBIG)
    broken("mail_parse", errbuf);
  rc = mail_parse_header(&m, raw, size, errbuf, sizeof(errbuf));
  if(rc == MAIL_OK) {
    if(!m)
      broken("mail_parse_header", "MAIL_OK without a message");
    check_msg(m, true);
    mail_msg_free(m);
  } else if(m || (rc != MAIL_EPARSE && rc != MAIL_ELIMIT))
    broken("mail_parse_header", errbuf);
  return 0;
}
