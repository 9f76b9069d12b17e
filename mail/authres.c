/*
 * authres.c: the Authentication-Results header field read as RFC 8601 §2.2
 * writes it, and the one question the service asks of it: does the
 * receiving server the operator trusts vouch for the From's domain?
 *
 * The grammar (RFC 8601 §2.2, with RFC 5322 §3.2.2 CFWS and §3.2.4
 * quoted-string, RFC 2045 §5.1 value):
 *
 *   authres-payload = [CFWS] authserv-id [CFWS authres-version]
 *                     (no-result / 1*resinfo) [CFWS]
 *   no-result       = [CFWS] ";" [CFWS] "none"
 *   resinfo         = [CFWS] ";" methodspec [CFWS reasonspec] [CFWS 1*propspec]
 *   methodspec      = [CFWS] method [CFWS] "=" [CFWS] result
 *   method          = Keyword [[CFWS] "/" [CFWS] method-version]
 *   reasonspec      = "reason" [CFWS] "=" [CFWS] value
 *   propspec        = ptype [CFWS] "." [CFWS] property [CFWS] "=" pvalue
 *   pvalue          = [CFWS] (value / [[local-part] "@"] domain-name) [CFWS]
 *
 * A ";" or a "=pass" inside a quoted string or a comment (nested, with
 * quoted-pairs) is text, never a separator: a sender controls such text
 * (its envelope address, the reasons a server copies from it), so a reader
 * that cut at every ";" let a forger write its own resinfo. Anything the
 * grammar does not allow makes the whole field unreadable, and an
 * unreadable field vouches for nothing (a reader that guesses is a reader
 * a forger steers). Two leniencies, both inside one token and never
 * across a ";": a pvalue may hold "/", "+" and "=" unquoted (DKIM's
 * header.b, as Gmail writes it), and 8-bit text (RFC 8616) is taken in
 * quoted strings and comments only.
 *
 * Which field counts (RFC 8601 §5, §7.1): the border MTA removes fields
 * carrying its own authserv-id from incoming mail and prepends its own,
 * so the topmost field with the trusted authserv-id is the only one it
 * wrote; any below it, whatever they claim, came with the mail. What it
 * must say to vouch is rules-spec AR-1.
 */
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* RFC 5322 §3.2.2 allows comments in comments; a depth past this is no
 * server's writing. */
#define AUTHRES_COMMENT_DEPTH 16

struct rd {
  const char *s;
  size_t n;
  size_t i;
};

static bool at_end(const struct rd *r)
{
  return r->i >= r->n;
}

static int peek(const struct rd *r)
{
  return at_end(r) ? -1 : (unsigned char)r->s[r->i];
}

/* A comment at r->i (its "(" included), nested; false when it does not
 * close or holds a control character. */
static bool skip_comment(struct rd *r)
{
  int depth = 0;

  do {
    int c = peek(r);
    if(c < 0 || (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f)
      return false;
    r->i++;
    if(c == '\\') {
      c = peek(r);
      if(c < 0 || c == '\r' || c == '\n')
        return false;
      r->i++;
    }
    else if(c == '(') {
      if(++depth > AUTHRES_COMMENT_DEPTH)
        return false;
    }
    else if(c == ')')
      depth--;
  } while(depth > 0);
  return true;
}

/* [CFWS]: blanks, the folding's CR LF, comments. false on a broken
 * comment. */
static bool cfws(struct rd *r)
{
  for(;;) {
    int c = peek(r);
    if(c == ' ' || c == '\t' || c == '\r' || c == '\n')
      r->i++;
    else if(c == '(') {
      if(!skip_comment(r))
        return false;
    }
    else
      return true;
  }
}

static bool is_tspecial(int c)
{
  return c >= 0 && strchr("()<>@,;:\\\"/[]?=", c) != NULL;
}

/* RFC 2045 token character: printable US-ASCII but tspecials. */
static bool is_token_char(int c)
{
  return c > 0x20 && c < 0x7f && !is_tspecial(c);
}

/* Keyword (RFC 5321 ldh-str): letters, digits, "-", not ending in "-".
 * Copied into dst (cap > 0), lower-cased: RFC 8601's names are
 * case-insensitive as ABNF strings are. */
static bool keyword(struct rd *r, char *dst, size_t cap)
{
  size_t k = 0;

  while(!at_end(r) && (isalnum((unsigned char)r->s[r->i]) || r->s[r->i] == '-')) {
    if(k + 1 >= cap)
      return false;
    dst[k++] = (char)tolower((unsigned char)r->s[r->i]);
    r->i++;
  }
  dst[k] = '\0';
  return k && dst[k - 1] != '-';
}

static bool digits(struct rd *r, int *out)
{
  int v = 0, k = 0;

  while(isdigit(peek(r))) {
    if(++k > 6)
      return false;
    v = v * 10 + (peek(r) - '0');
    r->i++;
  }
  *out = v;
  return k > 0;
}

/* A quoted-string at r->i, its content (quoted-pairs undone) appended to
 * dst at *k; false when it does not close or does not fit. */
static bool quoted(struct rd *r, char *dst, size_t cap, size_t *k)
{
  r->i++; /* the opening DQUOTE */
  for(;;) {
    int c = peek(r);
    if(c < 0 || (c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f)
      return false;
    r->i++;
    if(c == '"')
      return true;
    if(c == '\\') {
      c = peek(r);
      if(c < 0 || c == '\r' || c == '\n')
        return false;
      r->i++;
    }
    else if(c == '\r' || c == '\n')
      continue; /* folding inside: the line break is no content */
    if(*k + 1 >= cap)
      return false;
    dst[(*k)++] = (char)c;
    dst[*k] = '\0';
  }
}

/* RFC 2045 value: a token or a quoted-string. */
static bool value(struct rd *r, char *dst, size_t cap)
{
  size_t k = 0;

  dst[0] = '\0';
  if(peek(r) == '"')
    return quoted(r, dst, cap, &k);
  while(is_token_char(peek(r))) {
    if(k + 1 >= cap)
      return false;
    dst[k++] = r->s[r->i++];
  }
  dst[k] = '\0';
  return k > 0;
}

/* pvalue: a value, or [[local-part] "@"] domain-name, where the
 * local-part may be a quoted-string: quoted pieces and runs of printable
 * US-ASCII (not CFWS, ";", "(" or DQUOTE) one after the other, all one
 * word. `quoted` says whether any piece was quoted. */
static bool pvalue(struct rd *r, char *dst, size_t cap, bool *was_quoted)
{
  size_t k = 0;

  dst[0] = '\0';
  *was_quoted = false;
  for(;;) {
    int c = peek(r);
    if(c == '"') {
      *was_quoted = true;
      if(!quoted(r, dst, cap, &k))
        return false;
    }
    else if(c > 0x20 && c < 0x7f && c != ';' && c != '(' && c != ')' && c != '\\') {
      if(k + 1 >= cap)
        return false;
      dst[k++] = (char)c;
      dst[k] = '\0';
      r->i++;
    }
    else
      break;
  }
  return k > 0 || *was_quoted;
}

/* The end of a CFWS run was needed (between two items) and is there. */
static bool cfws_between(struct rd *r)
{
  size_t before = r->i;

  if(!cfws(r))
    return false;
  return r->i > before || at_end(r) || peek(r) == ';';
}

static bool propspec(struct rd *r, struct mail_authres_prop *p)
{
  bool q;

  if(!keyword(r, p->ptype, sizeof(p->ptype)) || !cfws(r) || peek(r) != '.')
    return false;
  r->i++;
  if(!cfws(r) || !keyword(r, p->property, sizeof(p->property)) || !cfws(r) || peek(r) != '=')
    return false;
  r->i++;
  if(!cfws(r) || !pvalue(r, p->value, sizeof(p->value), &q))
    return false;
  p->quoted = q;
  return true;
}

static bool resinfo(struct rd *r, struct mail_authres_resinfo *ri)
{
  memset(ri, 0, sizeof(*ri));
  if(!cfws(r) || !keyword(r, ri->method, sizeof(ri->method)) || !cfws(r))
    return false;
  if(peek(r) == '/') {
    r->i++;
    if(!cfws(r) || !digits(r, &ri->version) || !cfws(r))
      return false;
  }
  if(peek(r) != '=')
    return false;
  r->i++;
  if(!cfws(r) || !keyword(r, ri->result, sizeof(ri->result)))
    return false;
  for(;;) {
    size_t at;
    if(!cfws_between(r))
      return false;
    if(at_end(r) || peek(r) == ';')
      return true;
    at = r->i;
    if(!ri->nprop && !ri->reason_given) {
      /* "reason" [CFWS] "=": the reasonspec; "reason." would be a ptype */
      char word[MAIL_AUTHRES_WORD];
      if(keyword(r, word, sizeof(word)) && !strcmp(word, "reason") && cfws(r) &&
         peek(r) == '=') {
        r->i++;
        if(!cfws(r) || !value(r, ri->reason, sizeof(ri->reason)))
          return false;
        ri->reason_given = true;
        continue;
      }
      r->i = at;
    }
    if(ri->nprop >= MAIL_AUTHRES_PROPS || !propspec(r, &ri->prop[ri->nprop]))
      return false;
    ri->nprop++;
  }
}

int mail_authres_parse(struct mail_authres *out, const char *field, size_t len)
{
  struct rd r = {field, len, 0};

  memset(out, 0, sizeof(*out));
  if(!field || len > MAIL_AUTHRES_MAX || memchr(field, '\0', len))
    return -2;
  /* the authserv-id: a value; dot-atoms as servers write them are tokens */
  if(!cfws(&r) || !value(&r, out->authserv_id, sizeof(out->authserv_id)) ||
     !cfws_between(&r)) {
    out->authserv_id[0] = '\0';
    return -2;
  }
  if(isdigit(peek(&r))) {
    if(!digits(&r, &out->version) || !cfws(&r))
      return -1;
  }
  else
    out->version = 1; /* RFC 8601 §2.2: absent means 1 */
  if(peek(&r) != ';')
    return -1;
  {
    /* no-result: "; none" alone */
    struct rd t = r;
    char word[MAIL_AUTHRES_WORD];
    t.i++;
    if(cfws(&t) && keyword(&t, word, sizeof(word)) && !strcmp(word, "none") && cfws(&t) &&
       at_end(&t)) {
      out->none = true;
      return 0;
    }
  }
  while(peek(&r) == ';') {
    r.i++;
    if(out->nres >= MAIL_AUTHRES_RESINFOS || !resinfo(&r, &out->res[out->nres]))
      return -1;
    out->nres++;
  }
  return at_end(&r) ? 0 : -1;
}

/* A property names the domain when its value is the domain, any case
 * (DNS names are), quoted or not (RFC 2045 value); a local-part or an
 * "@" before it is another identity. */
static bool names_domain(const struct mail_authres_resinfo *ri, const char *ptype,
                         const char *property, const char *domain)
{
  int i;

  for(i = 0; i < ri->nprop; i++)
    if(!strcmp(ri->prop[i].ptype, ptype) && !strcmp(ri->prop[i].property, property) &&
       !strcasecmp(ri->prop[i].value, domain))
      return true;
  return false;
}

bool mail_authres_vouches(const char *fields, const char *authserv_id, const char *domain)
{
  struct mail_authres ar;
  const char *p = fields;
  bool pass = false, against = false;
  int i, rc;

  if(!fields || !authserv_id || !authserv_id[0] || !domain || !domain[0])
    return false;
  /* the fields, topmost first, one a line (mail_msg.auth_results) */
  for(;;) {
    size_t n = strcspn(p, "\n");
    rc = mail_authres_parse(&ar, p, n);
    /* a field whose authserv-id cannot be read may be the trusted
     * server's own: nothing below it can be taken instead */
    if(rc == -2)
      return false;
    if(!strcasecmp(ar.authserv_id, authserv_id))
      break;
    if(!p[n])
      return false;
    p += n + 1;
  }
  /* the trusted server's own field, unreadable past its authserv-id:
   * it says nothing we could believe */
  if(rc)
    return false;
  for(i = 0; i < ar.nres; i++) {
    const struct mail_authres_resinfo *ri = &ar.res[i];
    bool is_dmarc = !strcmp(ri->method, "dmarc"), is_dkim = !strcmp(ri->method, "dkim");
    if(is_dmarc && names_domain(ri, "header", "from", domain)) {
      if(!strcmp(ri->result, "pass"))
        pass = true;
      else
        against = true; /* the server's own DMARC verdict on the domain */
    }
    else if(is_dkim && !strcmp(ri->result, "pass") && names_domain(ri, "header", "d", domain))
      pass = true;
  }
  return pass && !against;
}
