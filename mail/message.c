/*
 * message.c: one raw inbound message (RFC 5322 bytes) into a struct
 * mail_msg: the header fields tabula needs and one clean UTF-8 text.
 *
 * Specs: RFC 5322 (fields, msg-id §3.6.4, unfolding §2.2.3), RFC 2045/2046
 * (MIME structure, transfer encodings, text/plain as default type §5.2),
 * RFC 2047 (encoded words), RFC 2183 (Content-Disposition: attachments are
 * skipped), RFC 3676 (format=flowed), RFC 5321 §4.4 (Return-Path),
 * RFC 4155 (the mbox "From " line an MTA pipe may put first).
 *
 * libetpan does the MIME and header grammar (mailmime_parse,
 * mailimf_optional_fields_parse, mailmime_part_parse for transfer decoding,
 * mailmime_encoded_phrase_parse for RFC 2047); this file picks the body,
 * converts it (charset.c, html.c) and checks every value it keeps: an
 * address or msg-id that fails its check is dropped, never repaired into
 * something plausible; free text loses its control characters.
 *
 * libetpan recurses on nested multiparts and nested comments and spends
 * memory on every header field, part and parameter: structure.c measures
 * the message the way libetpan will take it apart and refuses it
 * (MAIL_ELIMIT) before libetpan sees it when it is past a limit. Then
 * mail_parse_header can still read its own header, so that a player's
 * unreadable mail can be answered.
 */
#include "mail_int.h"

#include <libetpan/libetpan.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Zero bytes after the copy of the message libetpan parses: its
 * quoted-printable decoder (mailmime_part_parse, libetpan 1.9.4) reads two
 * bytes past the end of a part that ends in "=X"; found by the truncation
 * test under ASan. */
#define PARSE_PAD 16

static void set_err(char *errbuf, size_t errcap, const char *msg)
{
  if(errbuf && errcap)
    snprintf(errbuf, errcap, "%s", msg);
}

/* ---- header values ---- */

static const char *raw_field(struct mailimf_fields *raw, const char *name, int *count)
{
  const char *first = NULL;
  clistiter *it;

  if(count)
    *count = 0;
  if(!raw)
    return NULL;
  for(it = clist_begin(raw->fld_list); it; it = clist_next(it)) {
    struct mailimf_field *f = clist_content(it);
    if(f->fld_type != MAILIMF_FIELD_OPTIONAL_FIELD ||
       strcasecmp(f->fld_data.fld_optional_field->fld_name, name))
      continue;
    if(!first)
      first = f->fld_data.fld_optional_field->fld_value;
    if(count)
      (*count)++;
  }
  return first;
}

/* True when u[i] starts a C1 control (U+0080..U+009F) in UTF-8. */
static bool is_c1(const unsigned char *u, size_t n, size_t i)
{
  return u[i] == 0xc2 && i + 1 < n && u[i + 1] >= 0x80 && u[i + 1] < 0xa0;
}

/* Invisible and non-breaking spaces mail clients put into typed text: the
 * no-break spaces (U+00A0 from Apple Mail and Outlook, U+202F that Gmail
 * writes before "AM", U+2007) become a plain space, so "O-O" followed by
 * one still reads as a move; the zero-width ones (U+200B, U+2060, U+FEFF
 * inside the text) and the soft hyphen U+00AD go. Returns the length of
 * such a sequence at u[i] (0 for none); *space tells which kind. */
static size_t odd_space(const unsigned char *u, size_t n, size_t i, bool *space)
{
  *space = true;
  if(u[i] == 0xc2 && i + 1 < n && (u[i + 1] == 0xa0 || u[i + 1] == 0xad)) {
    *space = u[i + 1] == 0xa0;
    return 2;
  }
  if(i + 2 >= n)
    return 0;
  if(u[i] == 0xe2 && u[i + 1] == 0x80 && (u[i + 2] == 0xaf || u[i + 2] == 0x87))
    return 3;
  if((u[i] == 0xe2 && u[i + 1] == 0x80 && u[i + 2] == 0x8b) ||
     (u[i] == 0xe2 && u[i + 1] == 0x81 && u[i + 2] == 0xa0) ||
     (u[i] == 0xef && u[i + 1] == 0xbb && u[i + 2] == 0xbf)) {
    *space = false;
    return 3;
  }
  return 0;
}

/* One line of text from UTF-8 s: CR and LF go (they are what is left of
 * folding, RFC 5322 §2.2.3), so do the other C0 and C1 controls and DEL;
 * tabs become spaces; blanks at either end are trimmed. */
static void one_line(char *dst, size_t cap, const char *s, size_t n)
{
  struct base_buf b;
  const unsigned char *u = (const unsigned char *)s;
  size_t i;
  size_t start;
  size_t len;

  base_buf_init(&b, n + 1);
  for(i = 0; i < n && !b.err; i++) {
    bool space;
    size_t k;
    if(u[i] == '\t') {
      if(base_buf_putc(&b, ' '))
        break; /* the error sticks: checked below */
    } else if(u[i] < 0x20 || u[i] == 0x7f)
      continue;
    else if(is_c1(u, n, i))
      i++;
    else if((k = odd_space(u, n, i, &space)) != 0) {
      if(space && base_buf_putc(&b, ' '))
        break;
      i += k - 1;
    } else if(base_buf_putc(&b, (char)u[i]))
      break;
  }
  if(b.err || !b.s) {
    dst[0] = '\0';
    goto out;
  }
  len = mail_trim(b.s, b.len, &start);
  b.s[start + len] = '\0';
  mail_copy_utf8(dst, cap, b.s + start);
out:
  base_buf_free(&b);
}

/* Decodes RFC 2047 encoded words of an unstructured value or phrase into
 * one clean line. Text outside encoded words is taken as UTF-8 when it is
 * valid UTF-8 (RFC 6532), else as windows-1252.
 *
 * Only the first WORDS_MAX bytes are decoded (cut at a blank, so no encoded
 * word is split): libetpan joins adjacent encoded words by reallocating the
 * whole result for each one, which is quadratic, and a Subject of a million
 * "=?utf-8?q?a?=" took minutes (found by the limit tests). Twenty times the
 * longest field kept (512 bytes) is far more than its decoding can fill. */
#define WORDS_MAX (20u * 512u)

static int decode_words(char *dst, size_t cap, const char *value)
{
  struct base_buf b;
  size_t n = strlen(value);
  const char *fallback;
  char *dec = NULL;
  size_t idx = 0;
  int r;

  if(n > WORDS_MAX) {
    n = WORDS_MAX;
    while(n > 0 && value[n] != ' ' && value[n] != '\t' && value[n] != '\r' && value[n] != '\n')
      n--;
    if(!n)
      n = WORDS_MAX;
  }
  fallback = mail_utf8_valid(value, n) ? "utf-8" : "windows-1252";
  base_buf_init(&b, MAIL_BUF_MAX);
  r = mailmime_encoded_phrase_parse(fallback, value, n, &idx, "utf-8", &dec);
  if(r == MAILIMF_ERROR_MEMORY) {
    b.err = BASE_BUF_ENOMEM; /* the buffer's error is the function's */
    goto out;
  }
  if(r == MAILIMF_NO_ERROR && dec)
    mail_utf8_repair(&b, dec, strlen(dec));
  else
    mail_to_utf8(&b, fallback, value, n);
  if(!b.err)
    one_line(dst, cap, b.s ? b.s : "", b.len);
out:
  free(dec);
  base_buf_free(&b);
  return mail_buf_code(b.err);
}

/* A bare ASCII token value (Auto-Submitted, Precedence), lower-cased;
 * anything outside printable ASCII is left out. */
static void token_value(char *dst, size_t cap, const char *value)
{
  size_t i;
  size_t k = 0;
  size_t start;
  size_t len;

  if(!value || !cap)
    return;
  len = mail_trim(value, strlen(value), &start);
  for(i = start; i < start + len && k + 1 < cap; i++) {
    char c = value[i];
    if(c < 0x20 || c > 0x7e)
      continue;
    dst[k++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  dst[k] = '\0';
}

/* Every Authentication-Results field, topmost first, one a line, as
 * written but for the folding (CR, LF, TAB made spaces): authres.c reads
 * them by RFC 8601's grammar, which a lower-cased or filtered copy would
 * no longer follow. A field that does not fit ends the list: what is kept
 * is the top of it, so a forged field below the server's own never moves
 * up into its place. */
static void authres_fields(char *dst, size_t cap, struct mailimf_fields *raw)
{
  size_t k = 0;
  clistiter *it;

  dst[0] = '\0';
  if(!raw)
    return;
  for(it = clist_begin(raw->fld_list); it; it = clist_next(it)) {
    struct mailimf_field *f = clist_content(it);
    const char *v;
    size_t n, i, start;
    if(f->fld_type != MAILIMF_FIELD_OPTIONAL_FIELD ||
       strcasecmp(f->fld_data.fld_optional_field->fld_name, "Authentication-Results"))
      continue;
    v = f->fld_data.fld_optional_field->fld_value;
    n = v ? mail_trim(v, strlen(v), &start) : 0;
    if(k + (k ? 1 : 0) + n + 1 > cap)
      break;
    if(k)
      dst[k++] = '\n';
    for(i = 0; i < n; i++) {
      char c = v[start + i];
      dst[k++] = c == '\r' || c == '\n' || c == '\t' ? ' ' : c;
    }
    dst[k] = '\0';
  }
}

/* Keeps addr in dst when it passes mail_addr_valid, lower-cased if asked. */
static bool keep_addr(char *dst, const char *addr, size_t n, bool lower)
{
  char tmp[MAIL_ADDR_MAX];
  size_t i;

  dst[0] = '\0';
  if(!addr || n >= sizeof(tmp))
    return false;
  for(i = 0; i < n; i++) {
    char c = addr[i];
    tmp[i] = (char)(lower && c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  tmp[n] = '\0';
  if(!mail_addr_valid(tmp))
    return false;
  memcpy(dst, tmp, n + 1);
  return true;
}

/* An addr-spec written as a path ("<a@b>", Return-Path, RFC 5321 §4.1.2)
 * or bare (Delivered-To). "<>" is the null reverse-path. */
static void path_value(char *dst, const char *value, bool allow_null)
{
  size_t start;
  size_t len;
  size_t i;
  size_t inner;
  size_t k;

  dst[0] = '\0';
  if(!value)
    return;
  len = mail_trim(value, strlen(value), &start);
  value += start;
  if(len >= 2 && value[0] == '<' && value[len - 1] == '>') {
    value++;
    len -= 2;
    inner = mail_trim(value, len, &k);
    if(!inner) {
      if(allow_null)
        memcpy(dst, "<>", 3);
      return;
    }
    value += k;
    len = inner;
  }
  for(i = 0; i < len; i++) {
    if(value[i] == '<' || value[i] == '>')
      return;
  }
  keep_addr(dst, value, len, false);
}

/* Calls fn for each "<...>" token of value that passes mail_msgid_valid,
 * in order, until fn returns false. Comments and phrases around the ids
 * (RFC 5322 §4.5.4 obsolete forms) are skipped. */
static void each_msgid(const char *value, bool (*fn)(void *, const char *), void *arg)
{
  const char *p = value;
  char id[256];

  while(p && *p) {
    const char *lt = strchr(p, '<');
    const char *gt;
    const char *inner;
    size_t n;

    if(!lt)
      break;
    gt = strchr(lt + 1, '>');
    if(!gt)
      break;
    /* "<junk <id@x>": the id starts at the last '<' before the '>'
     * (found from the '>' backwards, so hostile runs of '<' stay linear) */
    inner = gt - 1;
    while(inner > lt && *inner != '<')
      inner--;
    if(inner > lt) {
      p = inner;
      continue;
    }
    n = (size_t)(gt - lt) + 1;
    p = gt + 1;
    if(n >= sizeof(id))
      continue;
    memcpy(id, lt, n);
    id[n] = '\0';
    if(mail_msgid_valid(id) && !fn(arg, id))
      break;
  }
}

static bool first_id(void *arg, const char *id)
{
  memcpy(arg, id, strlen(id) + 1); /* arg is a 256-byte field, id is at most 255 */
  return false;
}

/* The first id of a References list and a ring of the newest others:
 * bounded memory and constant work per id, however long the list. */
#define REF_RING 63

struct idlist {
  char first[256];
  char ring[REF_RING][256];
  size_t n; /* ids seen */
};

static bool collect_id(void *arg, const char *id)
{
  struct idlist *l = arg;
  char *slot = l->n ? l->ring[(l->n - 1) % REF_RING] : l->first;

  memcpy(slot, id, strlen(id) + 1);
  l->n++;
  return true;
}

/* References: the valid ids, separated by one space. When they do not all
 * fit, the first (the thread's root) and the newest are kept, as RFC 5322
 * §3.6.4 suggests for trimming. */
static void references_value(char *dst, size_t cap, const char *value)
{
  struct idlist *l = calloc(1, sizeof(*l));
  const char *ids[REF_RING + 1];
  size_t count = 0;
  size_t rest;
  size_t kept;
  size_t total = 0;
  size_t from = 1;
  size_t i;
  size_t k = 0;

  dst[0] = '\0';
  if(!l || !value)
    goto out;
  each_msgid(value, collect_id, l);
  if(!l->n)
    goto out;
  ids[count++] = l->first;
  rest = l->n - 1;
  kept = rest < REF_RING ? rest : REF_RING;
  for(i = rest - kept; i < rest; i++)
    ids[count++] = l->ring[i % REF_RING];
  for(i = 0; i < count; i++)
    total += strlen(ids[i]) + 1;
  /* drop the oldest after the root until the rest fits */
  while(total > cap && from < count) {
    total -= strlen(ids[from]) + 1;
    from++;
  }
  for(i = 0; i < count; i++) {
    size_t n = strlen(ids[i]);
    if(i && i < from)
      continue;
    if(k + n + (k ? 1 : 0) >= cap)
      break;
    if(k)
      dst[k++] = ' ';
    memcpy(dst + k, ids[i], n);
    k += n;
  }
  dst[k] = '\0';
out:
  free(l);
}

/* The first mailbox of an address list (a group's first member). */
static struct mailimf_mailbox *first_mailbox(struct mailimf_address_list *list)
{
  clistiter *it;

  if(!list)
    return NULL;
  for(it = clist_begin(list->ad_list); it; it = clist_next(it)) {
    struct mailimf_address *a = clist_content(it);
    if(a->ad_type == MAILIMF_ADDRESS_MAILBOX && a->ad_data.ad_mailbox)
      return a->ad_data.ad_mailbox;
    if(a->ad_type == MAILIMF_ADDRESS_GROUP && a->ad_data.ad_group &&
       a->ad_data.ad_group->grp_mb_list && clist_begin(a->ad_data.ad_group->grp_mb_list->mb_list))
      return clist_content(clist_begin(a->ad_data.ad_group->grp_mb_list->mb_list));
  }
  return NULL;
}

/* ---- body ---- */

/* A parameter name that is "base" or one of its RFC 2231 forms ("base*",
 * "base*0", "base*0*"). */
static bool param_named(const char *name, const char *base)
{
  size_t k = strlen(base);

  return name && !strncasecmp(name, base, k) && (name[k] == '\0' || name[k] == '*');
}

/* RFC 2183: a part with Content-Disposition: attachment is not the text.
 * Inside a multipart, neither is a part with a file name (the disposition's
 * filename, or Content-Type's older name parameter): Apple Mail sends an
 * attached text file as "inline; filename=notes.txt", wherever the player
 * dropped it, even before the text they typed. */
static bool is_attachment(struct mailmime *m)
{
  bool in_multipart = m->mm_parent_type == MAILMIME_MULTIPLE;
  clistiter *it;
  clistiter *p;

  if(in_multipart && m->mm_content_type && m->mm_content_type->ct_parameters) {
    for(p = clist_begin(m->mm_content_type->ct_parameters); p; p = clist_next(p)) {
      struct mailmime_parameter *pa = clist_content(p);
      if(param_named(pa->pa_name, "name"))
        return true;
    }
  }
  if(!m->mm_mime_fields)
    return false;
  for(it = clist_begin(m->mm_mime_fields->fld_list); it; it = clist_next(it)) {
    struct mailmime_field *f = clist_content(it);
    struct mailmime_disposition *d;
    if(f->fld_type != MAILMIME_FIELD_DISPOSITION || !f->fld_data.fld_disposition)
      continue;
    d = f->fld_data.fld_disposition;
    if(d->dsp_type && d->dsp_type->dsp_type == MAILMIME_DISPOSITION_TYPE_ATTACHMENT)
      return true;
    for(p = in_multipart && d->dsp_parms ? clist_begin(d->dsp_parms) : NULL; p; p = clist_next(p)) {
      struct mailmime_disposition_parm *dp = clist_content(p);
      if(dp->pa_type == MAILMIME_DISPOSITION_PARM_FILENAME ||
         (dp->pa_type == MAILMIME_DISPOSITION_PARM_PARAMETER && dp->pa_data.pa_parameter &&
          param_named(dp->pa_data.pa_parameter->pa_name, "filename")))
        return true;
    }
  }
  return false;
}

static bool is_text(struct mailmime *m, const char *subtype)
{
  struct mailmime_content *ct = m->mm_content_type;

  if(!ct || !ct->ct_type)
    return !strcmp(subtype, "plain"); /* RFC 2045 §5.2 default */
  return ct->ct_type->tp_type == MAILMIME_TYPE_DISCRETE_TYPE &&
         ct->ct_type->tp_data.tp_discrete_type &&
         ct->ct_type->tp_data.tp_discrete_type->dt_type == MAILMIME_DISCRETE_TYPE_TEXT &&
         ct->ct_subtype && !strcasecmp(ct->ct_subtype, subtype);
}

/* Depth-first: the first inline text/<subtype> part. An attached
 * message/rfc822 (a forward, a bounce's copy of our own mail) is not
 * searched: its text is not the sender's. */
static struct mailmime *find_text(struct mailmime *m, const char *subtype, int depth)
{
  clistiter *it;
  struct mailmime *r;

  if(!m || depth > MIME_MAX_DEPTH)
    return NULL;
  switch(m->mm_type) {
  case MAILMIME_SINGLE:
    return !is_attachment(m) && is_text(m, subtype) ? m : NULL;
  case MAILMIME_MULTIPLE:
    for(it = clist_begin(m->mm_data.mm_multipart.mm_mp_list); it; it = clist_next(it)) {
      r = find_text(clist_content(it), subtype, depth + 1);
      if(r)
        return r;
    }
    return NULL;
  case MAILMIME_MESSAGE:
    if(depth)
      return NULL;
    return find_text(m->mm_data.mm_message.mm_msg_mime, subtype, depth + 1);
  default:
    return NULL;
  }
}

static bool param_is(struct mailmime *m, const char *name, const char *value)
{
  char key[16];
  char *v;

  if(!m->mm_content_type)
    return false;
  snprintf(key, sizeof(key), "%s", name);
  v = mailmime_content_param_get(m->mm_content_type, key);
  return v && !strcasecmp(v, value);
}

/* The bytes from u[i] to the end of its line (CR or LF), at most cap + 1. */
static size_t rest_of_line(const unsigned char *u, size_t n, size_t i, size_t cap)
{
  size_t e = i;
  while(e < n && u[e] != '\r' && u[e] != '\n' && e - i <= cap)
    e++;
  return e - i;
}

/* Line ends to LF (CRLF and lone CR), C0 controls other than TAB and LF,
 * DEL and C1 controls dropped, byte order marks dropped and the odd spaces
 * made plain (odd_space); a no-break space that joins a "Sent from my ..."
 * tagline to a line with text (mail_tagline_joined) becomes the line break
 * it stood for, so the tagline is dropped as one on its own line is and
 * the command before it is read. s is valid UTF-8. */
static int normalize(struct base_buf *out, const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  size_t k;
  bool space, text = false; /* text: the line so far holds more than blanks */

  for(; i < n && !out->err; i++) {
    if(u[i] == '\r') {
      if(base_buf_putc(out, '\n'))
        break; /* the error sticks: returned below */
      if(i + 1 < n && u[i + 1] == '\n')
        i++;
      text = false;
    } else if(u[i] == '\n' || u[i] == '\t') {
      if(base_buf_putc(out, (char)u[i]))
        break;
      text = text && u[i] == '\t';
    } else if(u[i] < 0x20 || u[i] == 0x7f)
      continue;
    else if(is_c1(u, n, i))
      i++;
    else if((k = odd_space(u, n, i, &space)) != 0) {
      size_t rest;
      if(space && text && (rest = rest_of_line(u, n, i, 100)) <= 100 &&
         mail_tagline_joined(s + i, rest)) {
        if(base_buf_putc(out, '\n'))
          break;
        text = false;
      } else if(space && base_buf_putc(out, ' '))
        break;
      i += k - 1;
    } else {
      if(base_buf_putc(out, (char)u[i]))
        break;
      text = text || u[i] != ' ';
    }
  }
  return mail_buf_code(out->err);
}

/* RFC 3676 §4.2: a line ending in a space is continued by the next line of
 * the same quote depth; §4.4 space-stuffing is undone; §4.3 the "-- "
 * signature separator is never flowed; with DelSp=yes (§4.5) the space
 * before the soft break is deleted. Quoted lines keep one ">" per level and
 * a space, so that mail_clean_text still sees them as quotes. */
static int unflow(struct base_buf *out, const char *s, size_t n, bool delsp)
{
  size_t i = 0;
  bool first = true;
  bool prev_flowed = false;
  size_t prev_depth = 0;

  while(i < n && !out->err) {
    const char *nl = memchr(s + i, '\n', n - i);
    size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
    const char *p = s + i;
    size_t depth = 0;
    bool sig;
    bool flowed;

    i += len + (nl ? 1 : 0);
    while(depth < len && p[depth] == '>')
      depth++;
    p += depth;
    len -= depth;
    if(len && p[0] == ' ') {
      p++;
      len--;
    }
    sig = len == 3 && !memcmp(p, "-- ", 3);
    flowed = !sig && len && p[len - 1] == ' ';
    if(!(prev_flowed && depth == prev_depth && !sig)) {
      size_t q;
      if(!first && base_buf_putc(out, '\n'))
        break; /* the error sticks: returned below */
      for(q = 0; q < depth; q++)
        if(base_buf_putc(out, '>'))
          break;
      if(depth && len && base_buf_putc(out, ' '))
        break;
    }
    if(flowed && delsp)
      len--;
    if(base_buf_add(out, p, len))
      break;
    first = false;
    prev_flowed = flowed;
    prev_depth = depth;
  }
  if(!out->err && !first && n && s[n - 1] == '\n' && base_buf_putc(out, '\n'))
    return mail_buf_code(out->err);
  return mail_buf_code(out->err);
}

/* The text of part, decoded and converted to clean UTF-8 with LF ends. */
static int part_text(struct base_buf *out, struct mailmime *part, bool html)
{
  struct mailmime_data *data = part->mm_data.mm_single;
  struct base_buf conv;
  struct base_buf norm;
  char *dec = NULL;
  size_t dlen = 0;
  size_t idx = 0;
  const char *bytes;
  size_t nbytes;
  const char *charset = NULL;
  int encoding = MAILMIME_MECHANISM_8BIT;
  int r;

  base_buf_init(&conv, MAIL_BUF_MAX);
  base_buf_init(&norm, MAIL_BUF_MAX);
  if(!data || data->dt_type != MAILMIME_DATA_TEXT)
    goto out;
  if(data->dt_encoded)
    encoding = data->dt_encoding;
  bytes = data->dt_data.dt_text.dt_data;
  nbytes = data->dt_data.dt_text.dt_length;
  r = mailmime_part_parse(bytes, nbytes, &idx, encoding, &dec, &dlen);
  if(r == MAILIMF_ERROR_MEMORY) {
    out->err = BASE_BUF_ENOMEM; /* the buffer's error is the function's */
    goto out;
  }
  if(r == MAILIMF_NO_ERROR && dec) {
    bytes = dec;
    nbytes = dlen;
  }
  if(part->mm_content_type)
    charset = mailmime_content_charset_get(part->mm_content_type);
  if(mail_to_utf8(&conv, charset, bytes, nbytes) ||
     normalize(&norm, conv.s ? conv.s : "", conv.len)) {
    out->err = conv.err ? conv.err : norm.err;
    goto out;
  }
  if(html)
    mail_html_to_text(out, norm.s ? norm.s : "", norm.len);
  else if(param_is(part, "format", "flowed"))
    unflow(out, norm.s ? norm.s : "", norm.len, param_is(part, "delsp", "yes"));
  else if(base_buf_add(out, norm.s ? norm.s : "", norm.len))
    goto out; /* the error sticks in out */
out:
  if(dec)
    mailmime_decoded_part_free(dec);
  base_buf_free(&conv);
  base_buf_free(&norm);
  return mail_buf_code(out->err);
}

/* ---- the message ---- */

/* The header fields of m from the top-level fields of mime (structured,
 * for From and To) and the same header read as name/value pairs (raw,
 * for everything that is checked here rather than by libetpan's lenient
 * parsers, which e.g. drop the spaces inside "<a b@c>"). */
static int read_fields(struct mail_msg *m, struct mailimf_fields *fields,
                       struct mailimf_fields *raw, char *errbuf, size_t errcap)
{
  struct mailimf_mailbox *from = NULL;
  struct mailimf_mailbox *to = NULL;
  const char *v;
  clistiter *it;
  int count;
  int rc = MAIL_EPARSE;

  raw_field(raw, "From", &count);
  if(count > 1) {
    /* Two authors would let two readers of one message disagree. */
    set_err(errbuf, errcap, "more than one From field");
    goto out;
  }
  for(it = fields ? clist_begin(fields->fld_list) : NULL; it; it = clist_next(it)) {
    struct mailimf_field *f = clist_content(it);
    if(f->fld_type == MAILIMF_FIELD_FROM && !from && f->fld_data.fld_from->frm_mb_list &&
       clist_begin(f->fld_data.fld_from->frm_mb_list->mb_list))
      from = clist_content(clist_begin(f->fld_data.fld_from->frm_mb_list->mb_list));
    else if(f->fld_type == MAILIMF_FIELD_TO && !to)
      to = first_mailbox(f->fld_data.fld_to->to_addr_list);
  }
  if(!from || !from->mb_addr_spec) {
    set_err(errbuf, errcap, "no From field");
    goto out;
  }
  if(!keep_addr(m->from, from->mb_addr_spec, strlen(from->mb_addr_spec), true)) {
    set_err(errbuf, errcap, "From address unusable");
    goto out;
  }
  rc = 0;
  if(from->mb_display_name)
    rc = decode_words(m->from_name, sizeof(m->from_name), from->mb_display_name);
  if(!rc && to && to->mb_addr_spec)
    keep_addr(m->to, to->mb_addr_spec, strlen(to->mb_addr_spec), false);
  path_value(m->sender, raw_field(raw, "Return-Path", NULL), true);
  path_value(m->delivered_to, raw_field(raw, "Delivered-To", NULL), false);
  v = raw_field(raw, "Message-ID", NULL);
  if(v)
    each_msgid(v, first_id, m->message_id);
  v = raw_field(raw, "In-Reply-To", NULL);
  if(v)
    each_msgid(v, first_id, m->in_reply_to);
  references_value(m->references, sizeof(m->references), raw_field(raw, "References", NULL));
  v = raw_field(raw, "Subject", NULL);
  if(!rc && v)
    rc = decode_words(m->subject, sizeof(m->subject), v);
  token_value(m->auto_submitted, sizeof(m->auto_submitted), raw_field(raw, "Auto-Submitted", NULL));
  token_value(m->precedence, sizeof(m->precedence), raw_field(raw, "Precedence", NULL));
  /* The receiving server's verdict on the sender; the service
   * decides whether to trust it (config trusted_authserv_id) */
  authres_fields(m->auth_results, sizeof(m->auth_results), raw);
  m->list = raw_field(raw, "List-Id", NULL) || raw_field(raw, "List-Unsubscribe", NULL) ||
            raw_field(raw, "List-Post", NULL);
  m->autoreply = raw_field(raw, "X-Autoreply", NULL) || raw_field(raw, "X-Autorespond", NULL);
  if(rc)
    set_err(errbuf, errcap, "out of memory");
out:
  return rc;
}

void mail_msg_free(struct mail_msg *m)
{
  if(!m)
    return;
  free(m->text);
  free(m->clean);
  free(m);
}

/* RFC 6522: a multipart/report is machine-made whoever its envelope names. */
static bool is_report(const struct mailmime_content *ct)
{
  return ct && ct->ct_type && ct->ct_type->tp_type == MAILMIME_TYPE_COMPOSITE_TYPE &&
         ct->ct_type->tp_data.tp_composite_type &&
         ct->ct_type->tp_data.tp_composite_type->ct_type == MAILMIME_COMPOSITE_TYPE_MULTIPART &&
         ct->ct_subtype && !strcasecmp(ct->ct_subtype, "report");
}

/* At most this much of a message is looked at for its header alone
 * (mail_parse_header), whatever its size. */
#define HEADER_SCAN (1024u * 1024u)

/* mail_parse, or with head_only mail_parse_header: the same header
 * reading, over the whole message or a copy of its header alone. */
static int parse(struct mail_msg **out, const char *raw, size_t len, bool head_only, char *errbuf,
                 size_t errcap)
{
  struct mail_msg *m = NULL;
  struct mailmime *mime = NULL;
  struct mailimf_fields *env = NULL;
  struct mailimf_fields *rawf = NULL;
  struct mailmime *part;
  struct base_buf text;
  char *copy = NULL;
  bool html = false;
  size_t idx = 0;
  int rc = MAIL_EPARSE;
  int r;

  base_buf_init(&text, MAIL_BUF_MAX);
  if(errbuf && errcap)
    errbuf[0] = '\0';
  if(!out) {
    set_err(errbuf, errcap, "no output");
    return MAIL_EPARSE;
  }
  *out = NULL;
  if(!raw) {
    set_err(errbuf, errcap, "no message");
    goto out;
  }
  if(head_only && len > HEADER_SCAN)
    len = HEADER_SCAN;
  if(len > MAIL_MAX_MESSAGE) {
    set_err(errbuf, errcap, "message too big");
    rc = MAIL_ETOOBIG;
    goto out;
  }
  /* An MTA pipe or mbox may start with the "From " envelope line. */
  if(len >= 5 && !memcmp(raw, "From ", 5)) {
    const char *nl = memchr(raw, '\n', len);
    size_t skip = nl ? (size_t)(nl - raw) + 1 : len;
    raw += skip;
    len -= skip;
  }
  {
    int err = 0;
    size_t end = len;
    const char *why = head_only ? mail_header_span(raw, len, &end, &err)
                                : mail_structure_check(raw, len, NULL, &err);
    if(why) {
      rc = err ? err : MAIL_ELIMIT;
      set_err(errbuf, errcap, why);
      goto out;
    }
    len = end;
  }
  /* libetpan keeps pointers into what it parses: the copy lives until
   * mailmime_free. The header alone gets an empty body. */
  copy = malloc(len + 2 + PARSE_PAD);
  if(!copy) {
    rc = MAIL_ENOMEM;
    set_err(errbuf, errcap, "out of memory");
    goto out;
  }
  memcpy(copy, raw, len);
  if(head_only) {
    memcpy(copy + len, "\r\n", 2);
    len += 2;
  }
  memset(copy + len, 0, PARSE_PAD);
  raw = copy;
  /* The header alone is read without mailmime_parse: its Content-Type
   * may be what made mail_parse refuse the message (a boundary libetpan
   * cannot take). */
  r = head_only ? mailimf_envelope_and_optional_fields_parse(raw, len, &idx, &env)
                : mailmime_parse(raw, len, &idx, &mime);
  if(r != MAILIMF_NO_ERROR || (head_only ? !env : !mime || mime->mm_type != MAILMIME_MESSAGE)) {
    rc = r == MAILIMF_ERROR_MEMORY ? MAIL_ENOMEM : MAIL_EPARSE;
    set_err(errbuf, errcap, "MIME parse failed");
    goto out;
  }
  idx = 0;
  r = mailimf_optional_fields_parse(raw, len, &idx, &rawf);
  if(r == MAILIMF_ERROR_MEMORY) {
    rc = MAIL_ENOMEM;
    set_err(errbuf, errcap, "out of memory");
    goto out;
  }
  m = calloc(1, sizeof(*m));
  if(!m) {
    rc = MAIL_ENOMEM;
    set_err(errbuf, errcap, "out of memory");
    goto out;
  }
  m->head_only = head_only;
  rc = read_fields(m, head_only ? env : mime->mm_data.mm_message.mm_fields, rawf, errbuf, errcap);
  if(rc)
    goto out;
  /* RFC 6522: a report is machine-made whoever its envelope names. */
  if(head_only) {
    struct mailmime_fields *mf = NULL;
    clistiter *it;
    r = mailmime_fields_parse(env, &mf);
    if(r == MAILIMF_ERROR_MEMORY) {
      rc = MAIL_ENOMEM;
      set_err(errbuf, errcap, "out of memory");
      goto out;
    }
    for(it = r == MAILIMF_NO_ERROR ? clist_begin(mf->fld_list) : NULL; it; it = clist_next(it)) {
      struct mailmime_field *f = clist_content(it);
      if(f->fld_type == MAILMIME_FIELD_TYPE) {
        m->report = is_report(f->fld_data.fld_content);
        break;
      }
    }
    if(r == MAILIMF_NO_ERROR)
      mailmime_fields_free(mf);
  } else {
    struct mailmime *top = mime->mm_data.mm_message.mm_msg_mime;
    m->report = top && top->mm_type == MAILMIME_MULTIPLE && is_report(top->mm_content_type);
  }
  part = head_only ? NULL : find_text(mime, "plain", 0);
  if(!part && !head_only) {
    part = find_text(mime, "html", 0);
    html = part != NULL;
  }
  if(part)
    part_text(&text, part, html);
  m->text = base_buf_take(&text);
  if(!m->text) {
    rc = mail_buf_code(text.err);
    set_err(errbuf, errcap, rc == MAIL_ETOOBIG ? "text too big" : "out of memory");
    goto out;
  }
  m->clean = mail_clean_text(m->text);
  if(!m->clean) {
    rc = MAIL_ENOMEM;
    set_err(errbuf, errcap, "out of memory");
    goto out;
  }
  *out = m;
  m = NULL;
  rc = MAIL_OK;
out:
  mail_msg_free(m);
  if(rawf)
    mailimf_fields_free(rawf);
  if(env)
    mailimf_fields_free(env);
  if(mime)
    mailmime_free(mime);
  free(copy);
  base_buf_free(&text);
  return rc;
}

int mail_parse(struct mail_msg **out, const char *raw, size_t len, char *errbuf, size_t errcap)
{
  return parse(out, raw, len, false, errbuf, errcap);
}

/* ---- a header that cannot be read whole: what proves whose mail it is ---- */

/* The fields mail_parse_header reads (read_fields, is_report): nothing
 * else is copied into a salvaged header. */
static const char *const salvage_names[] = {
    "From",        "To",          "Return-Path",   "Delivered-To",     "Message-ID",
    "In-Reply-To", "References",  "Subject",       "Auto-Submitted",   "Precedence",
    "List-Id",     "List-Unsubscribe", "List-Post", "X-Autoreply",     "X-Autorespond",
    "Authentication-Results", "Content-Type", NULL};

/* Bounds of a salvage: a field's unfolded length, the fields copied (each
 * name at most SALVAGE_EACH times: two From fields stay two, and are
 * refused as two). */
#define SALVAGE_FIELD_MAX 4096
#define SALVAGE_EACH 8

/* The line at raw[*at], its end CR, LF or CRLF (RFC 5322 allows only
 * CRLF; a bare CR is taken for one too); moves *at past it. bare is set
 * when it ended in a CR alone. */
static size_t salvage_line(const char *raw, size_t len, size_t *at, bool *bare)
{
  size_t i = *at, n;
  while(i < len && raw[i] != '\r' && raw[i] != '\n')
    i++;
  n = i - *at;
  if(i < len && raw[i] == '\r' && i + 1 < len && raw[i + 1] == '\n')
    i += 2;
  else if(i < len) {
    if(raw[i] == '\r')
      *bare = true;
    i++;
  }
  *at = i;
  return n;
}

/* Copies one unfolded field into out when its name is one of
 * salvage_names and its count allows; a Content-Type keeps only its type
 * (is_report reads no parameter, and they may be what broke the header). */
static void salvage_field(struct base_buf *out, const char *f, size_t n, int *counts)
{
  const char *colon = memchr(f, ':', n);
  size_t name_len, k;

  if(!colon || n > SALVAGE_FIELD_MAX)
    return;
  name_len = (size_t)(colon - f);
  for(k = 0; salvage_names[k]; k++)
    if(strlen(salvage_names[k]) == name_len && !strncasecmp(f, salvage_names[k], name_len))
      break;
  if(!salvage_names[k] || counts[k] >= SALVAGE_EACH)
    return;
  counts[k]++;
  if(!strcmp(salvage_names[k], "Content-Type")) {
    size_t v = name_len + 1, e;
    while(v < n && (f[v] == ' ' || f[v] == '\t'))
      v++;
    for(e = v; e < n && f[e] != ';' && f[e] != ' ' && f[e] != '\t' && f[e] != '('; e++)
      ;
    n = e;
  }
  if(base_buf_add(out, f, n) || base_buf_puts(out, "\r\n"))
    return; /* the error sticks in out: the caller's loop ends */
}

/* A header made of the fields of raw's that read_fields needs, in RFC
 * 5322's form (CRLF ends, folding undone), from a header mail_parse_header
 * could not take: past a limit (too many fields, a Content-Type with too
 * many parameters) or not in the grammar (bare CR line ends, a first line
 * that is no field or starts with a space). The fields are read from the
 * start up to the first empty line, at most HEADER_SCAN bytes; lines that
 * are no field are skipped. why: the header's fault in words, "" when it
 * is only past a limit. NULL when memory fails. */
static char *salvage_header(const char *raw, size_t len, size_t *out_len, const char **why)
{
  struct base_buf out, field;
  int counts[sizeof(salvage_names) / sizeof(salvage_names[0])] = {0};
  size_t at = 0;
  bool bare = false, first = true;

  *why = "";
  if(len > HEADER_SCAN)
    len = HEADER_SCAN;
  base_buf_init(&out, MAIL_BUF_MAX);
  base_buf_init(&field, MAIL_BUF_MAX);
  while(at < len && !out.err && !field.err) {
    size_t start = at, n = salvage_line(raw, len, &at, &bare);
    const char *l = raw + start;
    if(!n)
      break; /* the end of the header */
    if(l[0] == ' ' || l[0] == '\t') {
      if(first)
        *why = "its header starts with a line that begins with a space";
      else if(field.len && base_buf_add(&field, l, n)) /* folding undone: the line break goes */
        break;
      first = false;
      continue;
    }
    if(field.len)
      salvage_field(&out, field.s, field.len, counts);
    base_buf_reset(&field);
    if(!memchr(l, ':', n)) {
      if(first)
        *why = "its header starts with a line that is not a header field";
      first = false;
      continue;
    }
    first = false;
    if(base_buf_add(&field, l, n))
      break;
  }
  if(field.len)
    salvage_field(&out, field.s, field.len, counts);
  if(bare && !(*why)[0])
    *why = "its lines end in a carriage return alone (CR), not CR LF as mail's must";
  base_buf_free(&field);
  if(base_buf_puts(&out, "\r\n")) {
    base_buf_free(&out);
    return NULL;
  }
  *out_len = out.len;
  return base_buf_take(&out);
}

int mail_parse_header(struct mail_msg **out, const char *raw, size_t len, char *errbuf,
                      size_t errcap)
{
  int rc = parse(out, raw, len, true, errbuf, errcap);
  const char *why = "";
  size_t n = 0;
  char *h;

  if((rc != MAIL_EPARSE && rc != MAIL_ELIMIT) || !raw)
    return rc;
  /* The header cannot be read whole, but a player's own mail about their
   * game must still be answered (its key and its From prove whose it is):
   * the fields that say so, copied into a header that can be read and
   * checked as any other. */
  h = salvage_header(raw, len, &n, &why);
  if(!h)
    return MAIL_ENOMEM;
  if(parse(out, h, n, true, NULL, 0) == MAIL_OK) {
    set_err(errbuf, errcap, why);
    rc = MAIL_OK;
  }
  free(h);
  return rc;
}
