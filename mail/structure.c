/*
 * structure.c: the limits on a raw message's MIME structure, measured the
 * way libetpan's mailmime_parse will take the message apart, before it
 * does.
 *
 * Why: libetpan recurses once per nested multipart or message/rfc822 and
 * once per nested comment, so a message built to nest deeply exhausts the
 * stack; it builds a structure for every header field, MIME part and
 * parameter, 30 to 40 times the bytes they take (a 10 MiB message of tiny
 * fields, parts or parameters cost 300-430 MB, measured); and it decodes
 * RFC 2047 words in a Content-Type value by reallocating the whole result
 * for each word, which is quadratic (40,000 words took 0.9 s, a million
 * would take minutes).
 *
 * The limits count structure, never words in the text: an earlier version
 * counted "multipart", "(" and lines starting with "--" anywhere in the
 * raw bytes and so refused a player's plain mail whose quoted text held
 * them. Here only what libetpan reads as structure counts:
 *
 *   - each header (the message's, each part's, each message/rfc822's) is
 *     first bounded cheaply, on a superset of what libetpan's header
 *     parsers can take from it (header_bounds): the lines that could be
 *     fields, comment nesting, the bytes of Content-* fields;
 *   - then parsed with libetpan's own functions (mailimf_*_fields_parse,
 *     mailmime_fields_parse), so the content type, boundary and transfer
 *     encoding are exactly the ones mailmime_parse will use, and fields
 *     and parameters are counted as parsed;
 *   - multipart bodies are split at the delimiters libetpan finds
 *     (mailmime_content.c of libetpan 1.9.4: the preamble, the delimiter
 *     search, transport padding, the close delimiter). That search is
 *     re-implemented here step for step, quirks included (a delimiter
 *     needs a byte after it; an unclosed multipart whose last delimiter
 *     ends the data loses all its parts), because the split decides which
 *     bytes are headers. tests/fuzz/fuzz_mail.c checks on every input
 *     that what is counted here bounds the tree libetpan then builds.
 *
 * One header is parsed at a time and freed, so this costs little memory;
 * time is linear per nesting level, as libetpan's own parse is.
 */
#include "mail_int.h"

#include <libetpan/libetpan.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Real mail stays far below each: a long Received/DKIM/ARC chain is ~200
 * fields, a part's header has a handful, a Content-Type a few parameters.
 * MIME_MAX_DEPTH (mail_int.h) bounds the nesting. */
#define MAIL_MAX_FIELDS 1000          /* lines that may be fields, one header */
#define MAIL_MAX_FIELDS_TOTAL 10000   /* fields as parsed, all headers */
#define MIME_MAX_PARTS 5000           /* body parts of multiparts, all levels */
#define MIME_MAX_PARAMS 100           /* parameters of one Content-* field */
#define MIME_MAX_PARAMS_TOTAL 10000   /* parameters as parsed, all headers */
#define MAX_COMMENT_DEPTH 200         /* nested "(" in one field */
#define MIME_FIELDS_MAX (64u * 1024u) /* bytes of Content-* fields, one header */

struct scan {
  struct mail_shape *sh;
  const char *why; /* the first limit passed, or NULL */
  int err;         /* MAIL_ENOMEM, or 0 */
};

static bool fail(struct scan *s, const char *why)
{
  if(!s->why)
    s->why = why;
  return false;
}

/* ---- one header ---- */

/* RFC 5322 ftext as libetpan takes it: any byte above the space but ':'. */
static bool ftext(char c)
{
  return (unsigned char)c > 32 && c != ':';
}

static bool wsp(char c)
{
  return c == ' ' || c == '\t';
}

/* Whether a line starting at p could start a field for libetpan: a name,
 * then blanks, then ':', a comment, or a line break folded onto a line
 * that starts with a blank (CFWS may stand between name and colon). */
static bool may_be_field(const char *p, size_t n)
{
  size_t k = 0;

  while(k < n && ftext(p[k]))
    k++;
  if(!k)
    return false;
  while(k < n && wsp(p[k]))
    k++;
  if(k < n && (p[k] == ':' || p[k] == '('))
    return true;
  if(k < n && p[k] == '\r')
    k++;
  return k + 1 < n && p[k] == '\n' && wsp(p[k + 1]);
}

/* A cheap bound on the header at p (n bytes to the end of its entity),
 * checked before libetpan parses it. libetpan takes fields while each
 * starts a line with a name and CFWS ':'; a field goes on over lines that
 * start with a blank, and (inside a comment or quoted string of a
 * structured field) over a line break escaped by a backslash. So the
 * lines looked at here are a superset of libetpan's: they go on while a
 * line may be a field, continues one, or follows an escaped line break.
 * Counted: lines that may start a field, the depth of "(" in each field
 * (never reset across a continuation), the bytes of fields whose name
 * starts with "Content-" (libetpan parses those for parameters and
 * decodes RFC 2047 words in Content-Type). */
static bool header_bounds(struct scan *s, const char *p, size_t n)
{
  size_t i = 0;
  size_t fields = 0;
  size_t depth = 0;
  size_t content = 0;
  bool in_content = false;
  bool escaped = false; /* the previous line ended in "\\\n" */

  while(i < n) {
    bool cont = i > 0 && (wsp(p[i]) || escaped);
    const char *nl;
    size_t end;
    size_t k;

    if(!cont || (escaped && !wsp(p[i]))) {
      bool field = may_be_field(p + i, n - i);
      if(!field && !cont)
        break;
      if(field) {
        if(++fields > MAIL_MAX_FIELDS)
          return fail(s, "too many header fields");
        in_content = n - i >= 8 && !strncasecmp(p + i, "content-", 8);
      }
      if(!escaped)
        depth = 0;
    }
    nl = memchr(p + i, '\n', n - i);
    end = nl ? (size_t)(nl - p) + 1 : n;
    for(k = i; k < end; k++) {
      if(p[k] == '(' && ++depth > MAX_COMMENT_DEPTH)
        return fail(s, "comments nested too deep");
      if(p[k] == ')' && depth)
        depth--;
    }
    if(in_content && (content += end - i) > MIME_FIELDS_MAX)
      return fail(s, "MIME header fields too long");
    escaped = nl && nl > p + i && nl[-1] == '\\';
    i = end;
  }
  return true;
}

static size_t list_count(clist *l)
{
  size_t n = 0;
  clistiter *it;

  for(it = l ? clist_begin(l) : NULL; it; it = clist_next(it))
    n++;
  return n;
}

static bool count_params(struct scan *s, size_t n)
{
  if(n > MIME_MAX_PARAMS)
    return fail(s, "too many MIME parameters");
  s->sh->params += n;
  if(s->sh->params > MIME_MAX_PARAMS_TOTAL)
    return fail(s, "too many MIME parameters");
  return true;
}

/* Parses the header at p[*at] the way mailmime_parse does (envelope: the
 * message's own header and a message/rfc822's; else a body part's),
 * counts its fields and parameters, and moves *at past it and the blank
 * line after it. *mf gets its MIME fields (NULL when none or on failure;
 * free with mailmime_fields_free). */
static bool header(struct scan *s, const char *p, size_t n, size_t *at, bool envelope,
                   struct mailmime_fields **mf)
{
  struct mailimf_fields *f = NULL;
  size_t idx = *at;
  clistiter *it;
  int r;

  *mf = NULL;
  if(!header_bounds(s, p + *at, n - *at))
    return false;
  r = envelope ? mailimf_envelope_and_optional_fields_parse(p, n, &idx, &f)
               : mailimf_optional_fields_parse(p, n, &idx, &f);
  if(r == MAILIMF_ERROR_MEMORY) {
    s->err = MAIL_ENOMEM;
    return fail(s, "out of memory");
  }
  if(r != MAILIMF_NO_ERROR || !f) {
    idx = *at;
    f = NULL;
  }
  if(f) {
    s->sh->fields += list_count(f->fld_list);
    if(s->sh->fields > MAIL_MAX_FIELDS_TOTAL) {
      mailimf_fields_free(f);
      return fail(s, "too many header fields");
    }
    r = mailmime_fields_parse(f, mf);
    mailimf_fields_free(f);
    if(r == MAILIMF_ERROR_MEMORY) {
      s->err = MAIL_ENOMEM;
      return fail(s, "out of memory");
    }
    if(r != MAILIMF_NO_ERROR)
      *mf = NULL;
  }
  mailimf_crlf_parse(p, n, &idx);
  *at = idx;
  for(it = *mf ? clist_begin((*mf)->fld_list) : NULL; it; it = clist_next(it)) {
    struct mailmime_field *mfield = clist_content(it);
    if((mfield->fld_type == MAILMIME_FIELD_TYPE && mfield->fld_data.fld_content &&
        !count_params(s, list_count(mfield->fld_data.fld_content->ct_parameters))) ||
       (mfield->fld_type == MAILMIME_FIELD_DISPOSITION && mfield->fld_data.fld_disposition &&
        !count_params(s, list_count(mfield->fld_data.fld_disposition->dsp_parms)))) {
      mailmime_fields_free(*mf);
      *mf = NULL;
      return false;
    }
  }
  return true;
}

/* ---- libetpan's multipart split (mailmime_content.c), step for step ---- */

/* mailmime_preamble_parse: "--" at a line start, where a line starts at
 * *at when bol, after CR, after LF; libetpan also takes "--" one byte
 * after a line start. *at moves after the dashes. */
static bool find_dashes(const char *p, size_t n, size_t *at, bool bol)
{
  enum { BOL, MID, DASH_BOL, CR, LF, DASH, FOUND } st = bol ? BOL : MID;
  size_t k = *at;

  while(st != FOUND) {
    char c;
    if(k >= n)
      return false;
    c = p[k];
    switch(st) {
    case BOL:
      st = c == '-' ? DASH_BOL : c == '\r' ? CR : c == '\n' ? LF : MID;
      break;
    case MID:
      st = c == '\r' ? CR : c == '\n' ? LF : MID;
      break;
    case DASH_BOL:
      st = c == '-' ? FOUND : c == '\r' ? CR : c == '\n' ? LF : MID;
      break;
    case CR:
      st = c == '\r' ? CR : c == '\n' ? LF : c == '-' ? DASH : BOL;
      break;
    case LF:
      st = c == '-' ? DASH : c == '\r' ? CR : c == '\n' ? LF : BOL;
      break;
    case DASH:
      st = c == '-' ? FOUND : MID;
      break;
    case FOUND:
      break;
    }
    k++;
  }
  *at = k;
  return true;
}

/* mailmime_boundary_parse: the boundary at *at, with a byte after it. */
static bool boundary_at(const char *p, size_t n, size_t *at, const char *b, size_t blen)
{
  if(*at + blen >= n || memcmp(p + *at, b, blen))
    return false;
  *at += blen;
  return true;
}

/* mailmime_lwsp_parse: one or more blanks. */
static bool blanks(const char *p, size_t n, size_t *at)
{
  size_t k = *at;

  while(k < n && wsp(p[k]))
    k++;
  if(k == *at)
    return false;
  *at = k;
  return true;
}

/* mailimf_crlf_parse: LF or CR LF. */
static bool line_end(const char *p, size_t n, size_t *at)
{
  size_t k = *at;

  if(k < n && p[k] == '\r')
    k++;
  if(k >= n || p[k] != '\n')
    return false;
  *at = k + 1;
  return true;
}

/* mailmime_body_part_dash2_parse: the text from *at up to the next line
 * starting with "--" and the boundary; *at moves past the boundary (or
 * to the end when none follows). The text ends before the line break in
 * front of the last line that started with '-', or at the end. */
static bool dash_boundary(const char *p, size_t n, size_t *at, const char *b, size_t blen,
                          size_t *tb, size_t *tn)
{
  enum { TEXT, CR, LF, DASH1, DASH2, MATCHED } st = TEXT;
  size_t k = *at;
  size_t end = n;

  while(st != MATCHED && k < n) {
    char c = p[k];
    switch(st) {
    case TEXT:
      st = c == '\r' ? CR : c == '\n' ? LF : TEXT;
      break;
    case CR:
      st = c == '\n' ? LF : TEXT;
      break;
    case LF:
      if(c == '-')
        end = k;
      st = c == '-' ? DASH1 : c == '\r' ? CR : c == '\n' ? LF : TEXT;
      break;
    case DASH1:
      st = c == '\r' ? CR : c == '\n' ? LF : c == '-' ? DASH2 : TEXT;
      break;
    case DASH2:
      /* no byte taken here: matched, k is past the boundary; else the
       * byte after the dashes is looked at again as text */
      st = boundary_at(p, n, &k, b, blen) ? MATCHED : TEXT;
      continue;
    case MATCHED:
      break;
    }
    k++;
  }
  if(end > *at && p[end - 1] == '\r')
    end--;
  else if(end > *at && p[end - 1] == '\n') {
    end--;
    if(end > *at && p[end - 1] == '\r')
      end--;
  }
  if(end == *at)
    return false;
  *tb = *at;
  *tn = end - *at;
  *at = k;
  return true;
}

/* A body part from *at: libetpan's mailmime_body_part_dash2_transport_crlf_parse
 * (last false: ended by a delimiter line, the boundary then blanks and a
 * line break) or mailmime_body_part_dash2_close_parse (last: ended by the
 * close delimiter, "--" after the boundary, or by the end of the data). */
static bool part_at(const char *p, size_t n, size_t *at, const char *b, size_t blen, bool last,
                    size_t *tb, size_t *tn)
{
  size_t k = *at;
  size_t db;
  size_t dn;

  for(;;) {
    if(!dash_boundary(p, n, &k, b, blen, &db, &dn))
      return false;
    if(last && (k >= n || (k + 1 < n && p[k] == '-' && p[k + 1] == '-')))
      break;
    if(!last) {
      while(blanks(p, n, &k))
        ;
      if(line_end(p, n, &k))
        break;
    }
  }
  *tb = *at;
  *tn = db + dn - *at;
  *at = k;
  return true;
}

/* mailmime_multipart_next_parse: blanks and one line break, if there. */
static void skip_line_end(const char *p, size_t n, size_t *at)
{
  size_t k = *at;

  while(k < n && wsp(p[k]))
    k++;
  if(line_end(p, n, &k))
    *at = k;
}

static bool entity(struct scan *s, const char *p, size_t n, size_t at, struct mailmime_fields *mf,
                   bool message_default, size_t depth);

/* mailmime_multipart_body_parse: each part's header and body. */
static bool multipart(struct scan *s, const char *p, size_t n, size_t at, const char *b,
                      bool digest, size_t depth)
{
  size_t blen = strlen(b);
  size_t k = at;
  size_t begin;
  bool last = false;

  if(find_dashes(p, n, &k, true)) {
    while(!boundary_at(p, n, &k, b, blen) && find_dashes(p, n, &k, false))
      ;
  }
  begin = k;
  for(;;) {
    blanks(p, n, &k);
    if(!line_end(p, n, &k))
      break;
    begin = k;
  }
  k = begin;
  while(!last) {
    struct mailmime_fields *mf = NULL;
    size_t tb;
    size_t tn;
    size_t body = 0;
    bool ok;

    if(!part_at(p, n, &k, b, blen, false, &tb, &tn)) {
      if(!part_at(p, n, &k, b, blen, true, &tb, &tn))
        break; /* libetpan drops the parts: counted all the same */
      last = true;
    }
    if(++s->sh->parts > MIME_MAX_PARTS)
      return fail(s, "too many MIME parts");
    if(!header(s, p + tb, tn, &body, false, &mf))
      return false;
    ok = entity(s, p + tb, tn, body, mf, digest, depth + 1);
    if(mf)
      mailmime_fields_free(mf);
    if(!ok)
      return false;
    skip_line_end(p, n, &k);
  }
  return true;
}

/* ---- entities ---- */

/* A message (the whole one, or a message/rfc822 body) at p[at]: its
 * header, then its body as the entity below it. */
static bool message(struct scan *s, const char *p, size_t n, size_t at, size_t depth)
{
  struct mailmime_fields *mf = NULL;
  bool ok;

  if(!header(s, p, n, &at, true, &mf))
    return false;
  ok = entity(s, p, n, at, mf, false, depth + 1);
  if(mf)
    mailmime_fields_free(mf);
  return ok;
}

/* mailmime_parse_with_default: the entity whose body starts at p[at] and
 * whose header gave mf; message_default for a multipart/digest's parts. */
static bool entity(struct scan *s, const char *p, size_t n, size_t at, struct mailmime_fields *mf,
                   bool message_default, size_t depth)
{
  struct mailmime_content *ct = NULL;
  clistiter *it;
  const char *value;
  char *boundary;
  bool encoded;
  bool ok;
  int enc;

  if(depth > s->sh->depth)
    s->sh->depth = depth;
  if(depth > MIME_MAX_DEPTH)
    return fail(s, "MIME structure nested too deep");
  for(it = mf ? clist_begin(mf->fld_list) : NULL; it && !ct; it = clist_next(it)) {
    struct mailmime_field *f = clist_content(it);
    if(f->fld_type == MAILMIME_FIELD_TYPE)
      ct = f->fld_data.fld_content;
  }
  enc = mf ? mailmime_transfer_encoding_get(mf) : MAILMIME_MECHANISM_8BIT;
  /* a message/rfc822 body in quoted-printable or base64 is not parsed */
  encoded = enc == MAILMIME_MECHANISM_QUOTED_PRINTABLE || enc == MAILMIME_MECHANISM_BASE64;
  if(!ct)
    return message_default && !encoded ? message(s, p, n, at, depth) : true;
  if(!ct->ct_type || ct->ct_type->tp_type != MAILMIME_TYPE_COMPOSITE_TYPE ||
     !ct->ct_type->tp_data.tp_composite_type)
    return true;
  if(ct->ct_type->tp_data.tp_composite_type->ct_type == MAILMIME_COMPOSITE_TYPE_MESSAGE) {
    if(!ct->ct_subtype || strcasecmp(ct->ct_subtype, "rfc822") || encoded)
      return true;
    return message(s, p, n, at, depth);
  }
  if(ct->ct_type->tp_data.tp_composite_type->ct_type != MAILMIME_COMPOSITE_TYPE_MULTIPART)
    return true;
  /* libetpan 1.9.4's mailmime_extract_boundary strips quotes from a value
   * that starts with one by copying strlen - 2 bytes: for boundary="\""
   * (the value one '"') that is SIZE_MAX bytes, and a 90-byte mail
   * crashed the daemon (found here). Such a mail is refused
   * before libetpan sees it. */
  value = mailmime_content_param_get(ct, "boundary");
  if(value && value[0] == '"' && strlen(value) < 2)
    return fail(s, "MIME boundary unusable");
  boundary = mailmime_extract_boundary(ct);
  if(!boundary)
    return true;
  ok = multipart(s, p, n, at, boundary, ct->ct_subtype && !strcasecmp(ct->ct_subtype, "digest"),
                 depth);
  free(boundary);
  return ok;
}

const char *mail_structure_check(const char *raw, size_t len, struct mail_shape *shape, int *err)
{
  struct mail_shape local;
  struct scan s;

  memset(&local, 0, sizeof(local));
  s.sh = shape ? shape : &local;
  memset(s.sh, 0, sizeof(*s.sh));
  s.why = NULL;
  s.err = 0;
  message(&s, raw, len, 0, 0);
  if(err)
    *err = s.err;
  return s.why;
}

const char *mail_header_span(const char *raw, size_t len, size_t *end, int *err)
{
  struct mail_shape sh;
  struct mailmime_fields *mf = NULL;
  struct scan s;
  size_t at = 0;

  memset(&sh, 0, sizeof(sh));
  s.sh = &sh;
  s.why = NULL;
  s.err = 0;
  if(header(&s, raw, len, &at, true, &mf))
    *end = at;
  if(mf)
    mailmime_fields_free(mf);
  if(err)
    *err = s.err;
  return s.why;
}
