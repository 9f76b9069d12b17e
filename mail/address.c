/*
 * address.c: the checks every address and Message-ID passes before it may
 * appear in an outgoing header, and the test for mail tabula must not
 * answer.
 *
 * Specs: RFC 5322 §3.4.1 (addr-spec: dot-atom local part, domain or domain
 * literal; mail_addr_invitee reads the whole grammar, quoted local parts
 * too, to say why an address is refused, where libetpan's reader is
 * lenient by design and would drop or pass what it cannot place), §3.6.4 (msg-id), RFC 3834 §2 and §5 (automatic responses),
 * RFC 2369/2919 (List-* headers), RFC 3464/5321 §4.5.5 (bounces: the null
 * reverse-path), RFC 6522 (multipart/report).
 *
 * The checks are deliberately narrower than the grammar: quoted local parts,
 * comments and folding are refused, because a value that passes is written
 * into a header as is, and only plain tokens are safe there.
 */
#include "mail_int.h"

#include <string.h>
#include <strings.h>

/* atext of RFC 5322 §3.2.3. */
static bool is_atext(char c)
{
  if((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
    return true;
  return c && strchr("!#$%&'*+-/=?^_`{|}~", c) != NULL;
}

static bool dot_atom_ok(const char *s, size_t n)
{
  size_t i;

  if(!n || s[0] == '.' || s[n - 1] == '.')
    return false;
  for(i = 0; i < n; i++) {
    if(s[i] != '.' && !is_atext(s[i]))
      return false;
  }
  return true;
}

static bool domain_ok(const char *s, size_t n)
{
  size_t i;

  if(!n)
    return false;
  if(s[0] == '[') {
    /* domain-literal: dtext only, RFC 5322 §3.4.1 */
    if(n < 3 || s[n - 1] != ']')
      return false;
    for(i = 1; i < n - 1; i++) {
      if(s[i] < 0x21 || s[i] > 0x7e || s[i] == '[' || s[i] == ']' || s[i] == '\\')
        return false;
    }
    return true;
  }
  if(s[0] == '.' || s[n - 1] == '.')
    return false;
  for(i = 0; i < n; i++) {
    char c = s[i];
    if(!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '.' || c == '_'))
      return false;
    if(c == '.' && s[i + 1] == '.')
      return false;
  }
  return true;
}

bool mail_addr_valid(const char *addr)
{
  const char *at;
  size_t n;

  if(!addr)
    return false;
  n = strlen(addr);
  if(!n || n >= MAIL_ADDR_MAX)
    return false;
  at = strchr(addr, '@');
  if(!at || strchr(at + 1, '@'))
    return false;
  /* dot_atom_ok leaves out ',' ';' '<' '>' '"' '(' ')' ':' '\' space and
   * every control: none of them can end or extend a header field. */
  return dot_atom_ok(addr, (size_t)(at - addr)) && domain_ok(at + 1, n - (size_t)(at - addr) - 1);
}

static bool is_own(const char *from, const char *own);

/* qtext or a quoted-pair's second character, RFC 5322 §3.2.4 (no obs-). */
static bool is_qtext(char c)
{
  return c == 33 || (c >= 35 && c <= 91) || (c >= 93 && c <= 126);
}

/* The end of a quoted-string local part at s (s[0] == '"'): the byte after
 * its closing quote, or NULL when it is none (RFC 5322 §3.2.4, without
 * folding white space: an address written on one line of a mail). */
static const char *quoted_end(const char *s)
{
  const char *p = s + 1;
  for(; *p && *p != '"'; p++) {
    if(*p == '\\') {
      p++;
      if(!(*p == ' ' || *p == '\t' || (*p >= 0x21 && *p <= 0x7e)))
        return NULL;
    }
    else if(!is_qtext(*p) && *p != ' ' && *p != '\t')
      return NULL;
  }
  return *p == '"' ? p + 1 : NULL;
}

/* A domain that is an IPv4 address written bare: no top-level domain is
 * all digits (RFC 3696 §2), so it names a machine, as a literal does. */
static bool bare_ipv4(const char *d)
{
  size_t i;
  for(i = 0; d[i]; i++)
    if(!((d[i] >= '0' && d[i] <= '9') || d[i] == '.'))
      return false;
  return i > 0;
}

/* localhost, *.localhost (RFC 6761 §6.3) and localhost.localdomain */
static bool is_localhost(const char *d)
{
  size_t n = strlen(d);
  return !strcasecmp(d, "localhost") || !strcasecmp(d, "localhost.localdomain") ||
         (n > 10 && !strcasecmp(d + n - 10, ".localhost"));
}

enum mail_addr_kind mail_addr_invitee(const char *text, const char *own_address,
                                      const char *host)
{
  const char *at, *dom;
  size_t n;
  bool quoted = false;

  if(!text || !text[0])
    return MAIL_ADDR_SYNTAX;
  if(text[0] == '"') {
    if(!(at = quoted_end(text)) || *at != '@')
      return MAIL_ADDR_SYNTAX;
    quoted = true;
  }
  else {
    at = strchr(text, '@');
    if(!at || !dot_atom_ok(text, (size_t)(at - text)))
      return MAIL_ADDR_SYNTAX;
  }
  dom = at + 1;
  n = strlen(dom);
  if(dom[0] == '[') {
    /* domain-literal, RFC 5322 §3.4.1: well formed or no address */
    return domain_ok(dom, n) ? MAIL_ADDR_LITERAL : MAIL_ADDR_SYNTAX;
  }
  if(!dot_atom_ok(dom, n))
    return MAIL_ADDR_SYNTAX;
  if(quoted)
    return MAIL_ADDR_QUOTED;
  if(bare_ipv4(dom))
    return MAIL_ADDR_LITERAL;
  if(is_localhost(dom) || (host && host[0] && !strcasecmp(dom, host)) ||
     is_own(text, own_address))
    return MAIL_ADDR_THIS_HOST;
  /* a host name's characters only, and short enough for a header */
  return domain_ok(dom, n) && mail_addr_valid(text) ? MAIL_ADDR_OK : MAIL_ADDR_SYNTAX;
}

bool mail_msgid_valid(const char *msgid)
{
  size_t n;
  size_t i;
  const char *at;

  if(!msgid)
    return false;
  n = strlen(msgid);
  if(n < 5 || n > 255 || msgid[0] != '<' || msgid[n - 1] != '>')
    return false;
  /* Printable ASCII without the characters that would change the meaning
   * of a References list (brackets, comments, quotes, separators). */
  for(i = 1; i < n - 1; i++) {
    char c = msgid[i];
    if(c < 0x21 || c > 0x7e || strchr("<>()\",\\", c))
      return false;
  }
  at = strrchr(msgid, '@');
  return at && at > msgid + 1 && at < msgid + n - 2;
}

/* local part of addr (before '@', and before a "+tag" when untag) */
static size_t local_len(const char *addr, bool untag)
{
  return strcspn(addr, untag ? "@+" : "@");
}

static bool is_daemon(const char *addr)
{
  size_t n;

  if(!addr[0] || !strcmp(addr, "<>"))
    return false;
  n = local_len(addr, false);
  return (n == 13 && !strncasecmp(addr, "mailer-daemon", 13)) ||
         (n == 10 && !strncasecmp(addr, "postmaster", 10));
}

/* The first token of a header value: "auto-replied; x=y" gives "auto-replied". */
static bool first_token_is(const char *value, const char *word)
{
  size_t n = strcspn(value, " \t;(");

  return n == strlen(word) && !strncasecmp(value, word, n);
}

/* from is own (case-insensitively), or own's local part with a +tag: mail
 * the referee sent to itself through a player address loops otherwise. */
static bool is_own(const char *from, const char *own)
{
  const char *fd;
  const char *od;
  size_t fl;
  size_t ol;

  if(!own || !own[0] || !from[0])
    return false;
  if(!strcasecmp(from, own))
    return true;
  fd = strchr(from, '@');
  od = strchr(own, '@');
  if(!fd || !od || strcasecmp(fd, od))
    return false;
  fl = local_len(from, true);
  ol = local_len(own, true);
  return fl == ol && !strncasecmp(from, own, fl);
}

bool mail_is_automatic(const struct mail_msg *m, const char *own_address, const char **why)
{
  const char *reason = NULL;

  if(!m)
    reason = "no message";
  else if(m->auto_submitted[0] && !first_token_is(m->auto_submitted, "no"))
    reason = "auto-submitted"; /* RFC 3834 §5.1: anything but "no" */
  else if(!strcmp(m->sender, "<>"))
    reason = "null sender"; /* RFC 5321 §4.5.5: a bounce or report */
  else if(is_daemon(m->from) || is_daemon(m->sender))
    reason = "mailer-daemon";
  else if(m->report)
    reason = "report"; /* RFC 6522: DSNs and MDNs, also when a forwarder rewrote the sender */
  else if(first_token_is(m->precedence, "bulk") || first_token_is(m->precedence, "list") ||
          first_token_is(m->precedence, "junk") || first_token_is(m->precedence, "auto_reply"))
    reason = "precedence"; /* RFC 3834 §2: common practice */
  else if(m->autoreply)
    reason = "x-autoreply"; /* vacation programs older than RFC 3834 */
  else if(m->list)
    reason = "mailing list"; /* RFC 2369/2919 headers */
  else if(is_own(m->from, own_address))
    reason = "own address";
  if(why)
    *why = reason ? reason : "";
  return reason != NULL;
}
