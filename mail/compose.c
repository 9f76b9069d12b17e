/*
 * compose.c: one outgoing reply, as RFC 5322 text with CRLF line ends.
 *
 * Specs: RFC 5322 (§3.3 date-time, §3.6 fields, §2.1.1 line length,
 * §2.2.3 folding), RFC 2045 (§6.7 quoted-printable, §2.7 7bit data),
 * RFC 2047 (§4 B and Q encodings, §5 where encoded words may go, §2 the
 * 75-character limit), RFC 3834 §5 (Auto-Submitted: auto-replied).
 *
 * The body is sent as text/plain without format=flowed: a board drawn in
 * fixed columns must arrive with its line breaks untouched. With an HTML
 * rendering of the same content the body is multipart/alternative, the
 * plain text first (RFC 2046 5.1.4: the last part is the richest, the
 * first the one every reader can show; the HTML quoted-printable, see
 * put_html_qp); with files (the game's
 * record) a multipart/mixed holds the body and then each file, base64
 * (RFC 2045 6.8), named by Content-Disposition (RFC 2183). Every value
 * that comes from outside (addresses, Message-IDs) passes mail_addr_valid
 * or mail_msgid_valid first; the free-text ones (subject, display name)
 * are encoded, so no input can start a header line of its own.
 */
#include "mail_int.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* RFC 5322 §2.1.1: lines SHOULD stay within 78 characters, MUST within 998. */
#define LINE_SOFT 78
#define LINE_HARD 998
/* RFC 2047 §2: an encoded word is at most 75 characters. */
#define WORD_MAX 75
/* RFC 2045 §6.7 (5): encoded lines are at most 76 characters. */
#define QP_LINE 76
/* A display name longer than this is a caller bug, not a name. */
#define NAME_MAX_LEN 128

static const char hexdig[] = "0123456789ABCDEF";

/* ---- RFC 2047 encoded words ---- */

/* Bytes a character of s (at i) takes: a whole UTF-8 sequence, since an
 * encoded word must not split a character (RFC 2047 §5 (3)). */
static size_t char_len(const char *s, size_t n, size_t i)
{
  size_t k = mail_utf8_seq((const unsigned char *)s + i, n - i);

  return k ? k : 1;
}

/* Q encoding (RFC 2047 §4.2) in its strictest form (§5 (3)), so the same
 * words are good in a Subject and in a display name. */
static bool q_plain(unsigned char c)
{
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '!' ||
         c == '*' || c == '+' || c == '-' || c == '/';
}

static size_t q_len(unsigned char c)
{
  return q_plain(c) || c == ' ' ? 1 : 3;
}

static int q_put(struct base_buf *b, unsigned char c)
{
  char e[3];

  if(c == ' ')
    return base_buf_putc(b, '_');
  if(q_plain(c))
    return base_buf_putc(b, (char)c);
  e[0] = '=';
  e[1] = hexdig[c >> 4];
  e[2] = hexdig[c & 15];
  return base_buf_add(b, e, 3);
}

/* Base64 of n bytes, written straight into the buffer's room (four
 * bytes an append made it a hot spot of the poll). */
static void b64_put(struct base_buf *b, const unsigned char *p, size_t n)
{
  static const char tab[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char *o = base_buf_reserve(b, (n + 2) / 3 * 4), *w = o;
  size_t i;

  if(!o)
    return;
  for(i = 0; i + 2 < n; i += 3) {
    unsigned long v = ((unsigned long)p[i] << 16) | ((unsigned long)p[i + 1] << 8) | p[i + 2];
    w[0] = tab[(v >> 18) & 63];
    w[1] = tab[(v >> 12) & 63];
    w[2] = tab[(v >> 6) & 63];
    w[3] = tab[v & 63];
    w += 4;
  }
  if(n - i == 1) {
    unsigned long v = (unsigned long)p[i] << 16;
    w[0] = tab[(v >> 18) & 63];
    w[1] = tab[(v >> 12) & 63];
    w[2] = '=';
    w[3] = '=';
    w += 4;
  } else if(n - i == 2) {
    unsigned long v = ((unsigned long)p[i] << 16) | ((unsigned long)p[i + 1] << 8);
    w[0] = tab[(v >> 18) & 63];
    w[1] = tab[(v >> 12) & 63];
    w[2] = tab[(v >> 6) & 63];
    w[3] = '=';
    w += 4;
  }
  base_buf_commit(b, (size_t)(w - o));
}

/* Writes s as encoded words, folding between them so that no line passes
 * LINE_SOFT; col is the column the first word starts at. Q is used when
 * it is no longer than B (mostly-ASCII text stays readable). */
static void put_words(struct base_buf *b, const char *s, size_t col)
{
  static const char qpre[] = "=?utf-8?q?";
  static const char bpre[] = "=?utf-8?b?";
  size_t n = strlen(s);
  size_t qtotal = 0;
  bool use_q;
  size_t i = 0;
  bool first = true;

  for(i = 0; i < n; i++)
    qtotal += q_len((unsigned char)s[i]);
  use_q = qtotal <= (n + 2) / 3 * 4;
  i = 0;
  while(i < n && !b->err) {
    size_t room = (first ? LINE_SOFT - col : LINE_SOFT - 1);
    size_t payload;
    size_t start = i;
    size_t used = 0;

    if(room > WORD_MAX)
      room = WORD_MAX;
    payload = room - (sizeof(qpre) - 1) - 2;
    if(!first && base_buf_puts(b, "\r\n "))
      return; /* the error sticks in b: the caller reads it */
    /* Take whole characters while their encoding fits. */
    while(i < n) {
      size_t k = char_len(s, n, i);
      size_t cost = 0;
      size_t j;
      if(use_q) {
        for(j = 0; j < k; j++)
          cost += q_len((unsigned char)s[i + j]);
        if(used + cost > payload)
          break;
      } else {
        cost = k;
        if((used + cost + 2) / 3 * 4 > payload)
          break;
      }
      used += cost;
      i += k;
    }
    if(i == start)
      i += char_len(s, n, i); /* cannot happen with room >= 16; never loop */
    if(base_buf_puts(b, use_q ? qpre : bpre))
      return;
    if(use_q) {
      size_t j;
      for(j = start; j < i; j++)
        if(q_put(b, (unsigned char)s[j]))
          return;
    } else
      b64_put(b, (const unsigned char *)s + start, i - start);
    if(base_buf_puts(b, "?="))
      return;
    first = false;
  }
}

/* ---- header fields ---- */

/* "Name: value" where value is one token (an angle-addr or a msg-id, both
 * of which may be preceded by CFWS): when the line would pass LINE_SOFT the
 * fold goes right after the colon (RFC 5322 §2.2.3). A token longer than a
 * line stays whole; MAIL_ADDR_MAX and the msg-id limit keep it under 998. */
static void put_token_field(struct base_buf *b, const char *name, const char *open,
                            const char *value, const char *close)
{
  size_t n = strlen(name) + 2 + strlen(open) + strlen(value) + strlen(close);

  /* appends, not printf: five of these a reply; an error sticks in b,
   * for the caller to read */
  if(base_buf_puts(b, name) || base_buf_puts(b, n > LINE_SOFT ? ":\r\n " : ": ") ||
     base_buf_puts(b, open) || base_buf_puts(b, value) || base_buf_puts(b, close) ||
     base_buf_puts(b, "\r\n"))
    return;
}

/* Subject text made safe for one header: invalid UTF-8 repaired, every
 * control (CR and LF above all) replaced by a space. */
static char *clean_subject(const char *subject)
{
  struct base_buf b;
  char *s;
  size_t i;

  base_buf_init(&b, MAIL_BUF_MAX);
  mail_utf8_repair(&b, subject, strlen(subject));
  s = base_buf_take(&b);
  if(!s)
    return NULL;
  for(i = 0; s[i]; i++) {
    if((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      s[i] = ' ';
  }
  return s;
}

/* Subject: as is, folded at spaces, when it is printable ASCII that no
 * reader could take for an encoded word; otherwise as encoded words. */
static int put_subject(struct base_buf *b, const char *subject)
{
  char *s = clean_subject(subject);
  size_t n;
  size_t i;
  size_t col;
  size_t word = 0;
  bool plain = true;

  if(!s)
    return MAIL_ENOMEM;
  n = strlen(s);
  for(i = 0; i < n && plain; i++) {
    if((unsigned char)s[i] >= 0x80)
      plain = false;
    word = s[i] == ' ' ? 0 : word + 1;
    if(word > LINE_SOFT - 10)
      plain = false; /* a word too long to fold: encoded words can split it */
  }
  if(strstr(s, "=?"))
    plain = false;
  if(base_buf_puts(b, "Subject: ")) {
    free(s);
    return mail_buf_code(b->err);
  }
  if(!plain)
    put_words(b, s, 9);
  else {
    /* Fold before the space that starts a word that would not fit. */
    col = 9;
    i = 0;
    while(i < n) {
      size_t k = i + 1;
      while(k < n && s[k] != ' ')
        k++;
      if(i > 0 && s[i] == ' ' && col + (k - i) > LINE_SOFT) {
        if(base_buf_puts(b, "\r\n"))
          break; /* the error sticks in b */
        col = 0;
      }
      if(base_buf_add(b, s + i, k - i))
        break;
      col += k - i;
      i = k;
    }
  }
  free(s);
  return mail_buf_code(base_buf_puts(b, "\r\n"));
}

/* From: "name" <addr>. The name is a quoted-string when it is printable
 * ASCII, encoded words when it is not; controls are refused. */
static int put_from(struct base_buf *b, const char *name, const char *addr)
{
  size_t line_start;
  size_t n;
  size_t i;
  bool ascii = true;

  if(!name || !name[0]) {
    put_token_field(b, "From", "<", addr, ">");
    return mail_buf_code(b->err);
  }
  n = strlen(name);
  if(n > NAME_MAX_LEN || !mail_utf8_valid(name, n))
    return MAIL_EPARSE;
  for(i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if(c < 0x20 || c == 0x7f)
      return MAIL_EPARSE;
    if(c >= 0x80)
      ascii = false;
  }
  if(base_buf_puts(b, "From: "))
    return mail_buf_code(b->err);
  if(ascii) {
    if(base_buf_putc(b, '"'))
      return mail_buf_code(b->err);
    for(i = 0; i < n; i++)
      if(((name[i] == '"' || name[i] == '\\') && base_buf_putc(b, '\\')) ||
         base_buf_putc(b, name[i]))
        return mail_buf_code(b->err);
    if(base_buf_putc(b, '"'))
      return mail_buf_code(b->err);
  } else
    put_words(b, name, 6);
  if(b->err)
    return mail_buf_code(b->err);
  /* The angle-addr goes on a line of its own (after the fold's space)
   * when it would not fit after the name. */
  line_start = b->len;
  while(line_start > 0 && b->s[line_start - 1] != '\n')
    line_start--;
  if(b->len - line_start + 1 + strlen(addr) + 2 > LINE_SOFT && base_buf_puts(b, "\r\n"))
    return mail_buf_code(b->err);
  return mail_buf_code(base_buf_printf(b, " <%s>\r\n", addr));
}

/* References: the ids one by one (each checked), folded between ids. */
static int put_references(struct base_buf *b, const char *refs)
{
  char id[256];
  const char *p = refs;
  size_t col = 11;
  bool any = false;

  while(*p) {
    size_t n;

    p += strspn(p, " \t");
    if(!*p)
      break;
    n = strcspn(p, " \t");
    if(n >= sizeof(id))
      return MAIL_EPARSE;
    memcpy(id, p, n);
    id[n] = '\0';
    p += n;
    if(!mail_msgid_valid(id))
      return MAIL_EPARSE;
    if(!any && base_buf_puts(b, "References:"))
      return mail_buf_code(b->err);
    if(col + 1 + n > LINE_SOFT) {
      if(base_buf_puts(b, "\r\n"))
        return mail_buf_code(b->err);
      col = 0;
    }
    if(base_buf_putc(b, ' ') || base_buf_add(b, id, n))
      return mail_buf_code(b->err);
    col += 1 + n;
    any = true;
  }
  if(any && base_buf_puts(b, "\r\n"))
    return mail_buf_code(b->err);
  return mail_buf_code(b->err);
}

/* RFC 5322 §3.3 date-time in UTC, with English names whatever the locale. */
static int put_date(struct base_buf *b, int64_t when)
{
  static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
  static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  time_t t = (time_t)when;
  struct tm tm;

  if((int64_t)t != when || !gmtime_r(&t, &tm))
    return MAIL_EPARSE;
  /* §3.3: a four-digit year, 1900 or later */
  if(tm.tm_year < 0 || tm.tm_year > 9999 - 1900)
    return MAIL_EPARSE;
  return mail_buf_code(base_buf_printf(b, "Date: %s, %d %s %04d %02d:%02d:%02d +0000\r\n",
                                       days[tm.tm_wday], tm.tm_mday, months[tm.tm_mon],
                                       tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec));
}

/* n random bytes; a reply takes the ones its Message-ID and boundaries
 * need in one draw (a system call each had cost three). */
static int random_bytes(void *v, size_t n)
{
  ssize_t r = getrandom(v, n, 0);
  int fd;

  if(r == (ssize_t)n)
    return 0;
  fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if(fd < 0)
    return MAIL_EIO;
  r = read(fd, v, n);
  close(fd);
  return r == (ssize_t)n ? 0 : MAIL_EIO;
}

/* <seconds.random@domain>: unique without any state, RFC 5322 §3.6.4;
 * r is random. */
static int make_msgid(char *id, size_t cap, const struct mail_out *m, uint64_t r)
{
  const char *domain = m->domain;
  int n;

  if(!domain && m->from && strchr(m->from, '@'))
    domain = strchr(m->from, '@') + 1;
  if(!domain || !domain[0] || domain[0] == '[')
    return MAIL_EPARSE;
  n = snprintf(id, cap, "<%lld.%016llx@%s>", (long long)m->date, (unsigned long long)r, domain);
  if(n < 0 || (size_t)n >= cap || !mail_msgid_valid(id))
    return MAIL_EPARSE;
  /* The domain must be a plain host name, not just msg-id-safe. */
  if(strspn(domain, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-") !=
     strlen(domain))
    return MAIL_EPARSE;
  return 0;
}

/* ---- body ---- */

/* The body with LF ends (CRLF read as LF), valid UTF-8: body itself when
 * it is so already, as a reply's text and HTML are (copying
 * them cost a pass and an allocation a reply), else a repaired copy,
 * ending in LF, left in *owned for the caller to free. The encoders below
 * write a last line without its LF as if it had one. NULL when out of
 * memory. */
static const char *body_lines(const char *body, char **owned)
{
  struct base_buf b;
  char *r, *w, *end;
  size_t n = strlen(body);

  *owned = NULL;
  if(mail_utf8_valid(body, n) && !memchr(body, '\r', n))
    return body;
  base_buf_init(&b, MAIL_BUF_MAX);
  mail_utf8_repair(&b, body, n);
  /* CRLF -> LF in place, a run between CRs at a time */
  if(!b.err && b.len && (r = memchr(b.s, '\r', b.len))) {
    end = b.s + b.len;
    w = r;
    while(r < end) {
      char *cr;
      if(r[0] == '\r' && r + 1 < end && r[1] == '\n')
        r++;
      cr = memchr(r + 1, '\r', (size_t)(end - r - 1));
      if(!cr)
        cr = end;
      memmove(w, r, (size_t)(cr - r));
      w += cr - r;
      r = cr;
    }
    b.len = (size_t)(w - b.s);
    b.s[b.len] = '\0';
  }
  if(b.len && b.s[b.len - 1] != '\n' && base_buf_putc(&b, '\n')) {
    base_buf_free(&b);
    return NULL;
  }
  *owned = base_buf_take(&b); /* NULL after an error of the repair */
  return *owned;
}

/* 7bit (RFC 2045 §2.7) holds: ASCII, no NUL, no lone CR, lines <= 998.
 * A pass of memchr and eight bytes at a time, not a test a byte (issue
 * 15). */
static bool is_7bit(const char *s)
{
  size_t len = strlen(s);
  const char *end = s + len;

  if(mail_ascii_span((const unsigned char *)s, len) != len || memchr(s, '\r', len))
    return false;
  while(s < end) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
    if(n > LINE_HARD)
      return false;
    s += n + 1;
  }
  return true;
}

static void put_7bit(struct base_buf *b, const char *s)
{
  const char *end = s + strlen(s);

  while(s < end && !b->err) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
    char *o = base_buf_reserve(b, n + 2);
    if(!o)
      return;
    memcpy(o, s, n);
    o[n] = '\r';
    o[n + 1] = '\n';
    base_buf_commit(b, n + 2);
    s += n + 1;
  }
}

/* RFC 2045 §6.7: printable ASCII but '=' as is, the rest as =XX, blanks
 * at a line end encoded (rule 3), soft breaks keep lines at 76. */
static void put_qp(struct base_buf *b, const char *s)
{
  while(*s && !b->err) {
    size_t n = strcspn(s, "\n");
    size_t col = 0;
    size_t i;

    for(i = 0; i < n; i++) {
      unsigned char c = (unsigned char)s[i];
      bool last = i + 1 == n;
      bool lit = (c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !last);
      size_t w = lit ? 1 : 3;
      /* room for this character and, unless it ends the line, a soft '=' */
      if(col + w > QP_LINE - (last ? 0 : 1)) {
        if(base_buf_puts(b, "=\r\n"))
          return; /* the error sticks in b: the caller reads it */
        col = 0;
      }
      if(lit) {
        if(base_buf_putc(b, (char)c))
          return;
      } else {
        char e[3] = {'=', hexdig[c >> 4], hexdig[c & 15]};
        if(base_buf_add(b, e, 3))
          return;
      }
      col += w;
    }
    if(base_buf_puts(b, "\r\n"))
      return;
    s += n + (s[n] ? 1 : 0);
  }
}

/* The text part's head and body: 7bit when it is, else quoted-printable. */
static void put_text_part(struct base_buf *b, const char *subtype, const char *text)
{
  bool qp = !is_7bit(text);
  if(base_buf_puts(b, "Content-Type: text/") || base_buf_puts(b, subtype) ||
     base_buf_puts(b, qp ? "; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
                         : "; charset=utf-8\r\nContent-Transfer-Encoding: 7bit\r\n\r\n"))
    return; /* the error sticks in b: the caller reads it */
  if(qp)
    put_qp(b, text);
  else
    put_7bit(b, text);
}

/* The HTML part in quoted-printable (base64 made a chess reply
 * 21 KB, a third more than its HTML). The HTML repeats the text's lines
 * (dice proofs, positions), and tools that read a saved mail line by line
 * (tools/tabula-verify-dice.py strips blanks and '>' quote marks, then
 * looks at a line's start) must find them once, whole, in the text part:
 * so no encoded line of the HTML starts with its words: the first
 * character of every line, hard or soft, is '<' or an =XX escape (RFC 2045
 * §6.7 lets an encoder escape any character), neither of which such a
 * tool strips. */

/* What may be written as is in mid-line: printable ASCII but '=', space,
 * tab; a table, for the runs of the bulk. */
static const bool qp_as_is_tab[256] = {
  ['\t'] = 1, [' '] = 1,
  [33] = 1, [34] = 1, [35] = 1, [36] = 1, [37] = 1, [38] = 1, [39] = 1, [40] = 1, [41] = 1,
  [42] = 1, [43] = 1, [44] = 1, [45] = 1, [46] = 1, [47] = 1, [48] = 1, [49] = 1, [50] = 1,
  [51] = 1, [52] = 1, [53] = 1, [54] = 1, [55] = 1, [56] = 1, [57] = 1, [58] = 1, [59] = 1,
  [60] = 1, /* '=' (61) is not */ [62] = 1, [63] = 1, [64] = 1, [65] = 1, [66] = 1, [67] = 1,
  [68] = 1, [69] = 1, [70] = 1, [71] = 1, [72] = 1, [73] = 1, [74] = 1, [75] = 1, [76] = 1,
  [77] = 1, [78] = 1, [79] = 1, [80] = 1, [81] = 1, [82] = 1, [83] = 1, [84] = 1, [85] = 1,
  [86] = 1, [87] = 1, [88] = 1, [89] = 1, [90] = 1, [91] = 1, [92] = 1, [93] = 1, [94] = 1,
  [95] = 1, [96] = 1, [97] = 1, [98] = 1, [99] = 1, [100] = 1, [101] = 1, [102] = 1,
  [103] = 1, [104] = 1, [105] = 1, [106] = 1, [107] = 1, [108] = 1, [109] = 1, [110] = 1,
  [111] = 1, [112] = 1, [113] = 1, [114] = 1, [115] = 1, [116] = 1, [117] = 1, [118] = 1,
  [119] = 1, [120] = 1, [121] = 1, [122] = 1, [123] = 1, [124] = 1, [125] = 1, [126] = 1,
};

/* Of the eight bytes of w (loaded little-endian or not: see
 * qp_run), those that are not printable ASCII or space but '=' (the bytes
 * qp_as_is_tab takes but tab) have their high bit set in the result; the
 * usual bit tricks for "a byte below n", "above n", "zero", whose lowest
 * set bit is always right ('=' comes every few characters in
 * HTML, so the run's end is found, not walked to). */
static inline uint64_t qp_word_stops(uint64_t w)
{
  const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
  uint64_t eq = w ^ (ones * '=');
  uint64_t below = (w - ones * ' ') & ~w & highs;
  uint64_t above = ((w + ones * (127 - 126)) | w) & highs;
  uint64_t zero = (eq - ones) & ~eq & highs;
  return below | above | zero;
}

/* The length of the run of qp_as_is characters of the n at s. */
static inline size_t qp_run(const char *s, size_t n)
{
  size_t j = 0;
  for(; j + 8 <= n; j += 8) {
    uint64_t v, stops;
    memcpy(&v, s + j, 8);
    if((stops = qp_word_stops(v))) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
      j += (size_t)__builtin_ctzll(stops) / 8; /* the first byte that stops */
#endif
      break;
    }
  }
  while(j < n && qp_as_is_tab[(unsigned char)s[j]])
    j++;
  return j;
}

static void put_html_qp(struct base_buf *b, const char *s)
{
  const char *end = s + strlen(s);

  while(s < end && !b->err) {
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
    size_t col = 0, i = 0;
    /* the encoded line is written straight into the buffer: at most three
     * bytes a character, a soft break ("=" CRLF) every 24 characters at
     * the most, the CRLF */
    char *o = base_buf_reserve(b, 4 * n + 8), *w = o;

    if(!o)
      return;
    while(i < n) {
      unsigned char c = (unsigned char)s[i];
      bool last = i + 1 == n;
      /* the common case in bulk: a run of characters written as is, in
       * mid-line, not the line's last, while a soft '=' still fits after */
      if(col && col < QP_LINE - 1 && !last) {
        size_t lim = n - 1, j;
        if(lim - i > QP_LINE - 1 - col)
          lim = i + (QP_LINE - 1 - col);
        j = i + qp_run(s + i, lim - i);
        if(j > i) {
          memcpy(w, s + i, j - i);
          w += j - i;
          col += j - i;
          i = j;
          continue;
        }
      }
      /* printable ASCII but '=', blanks but at a line's end (RFC 2045
       * §6.7 (2), (3)); a line's first character only if it is '<' */
      bool as_is = ((c >= 33 && c <= 126 && c != '=') || ((c == ' ' || c == '\t') && !last)) &&
                   (col || c == '<');
      size_t wd = as_is ? 1 : 3;
      /* room for this character and, unless it ends the line, a soft '=' */
      if(col + wd > QP_LINE - (last ? 0 : 1)) {
        *w++ = '=';
        *w++ = '\r';
        *w++ = '\n';
        col = 0;
        as_is = as_is && c == '<';
        wd = as_is ? 1 : 3;
      }
      if(as_is)
        *w++ = (char)c;
      else {
        *w++ = '=';
        *w++ = hexdig[c >> 4];
        *w++ = hexdig[c & 15];
      }
      col += wd;
      i++;
    }
    *w++ = '\r';
    *w++ = '\n';
    base_buf_commit(b, (size_t)(w - o));
    s += n + 1;
  }
}

/* RFC 2045 6.8: base64 in lines of 76 characters. */
static void put_base64(struct base_buf *b, const char *data, size_t len)
{
  size_t i;
  for(i = 0; i < len && !b->err; i += 57) {
    b64_put(b, (const unsigned char *)data + i, len - i < 57 ? len - i : 57);
    if(base_buf_puts(b, "\r\n"))
      return; /* the error sticks in b: the caller reads it */
  }
}

static bool part_ok(const struct mail_part *p)
{
  size_t n = p->filename ? strlen(p->filename) : 0;
  if(!n || n > 64 || p->filename[0] == '.' ||
     strspn(p->filename, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
    return false;
  n = p->type ? strlen(p->type) : 0;
  return n && n < 80 && strchr(p->type, '/') &&
         /* a parameter too: "text/calendar; method=PUBLISH" (RFC 6047 2.4) */
         strspn(p->type, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789./+-;= ") ==
           n && (p->data || !p->len);
}

/* A boundary no encoded part can contain: quoted-printable writes "=" as
 * =3D and base64 has no "_" (RFC 2045 6.7, 6.8; RFC 2046 5.1.1); r is
 * random. */
static void make_boundary(char *buf, size_t cap, const char *kind, uint64_t r)
{
  snprintf(buf, cap, "=_tabula_%s_%016llx", kind, (unsigned long long)r);
}

/* The body: text/plain, or text and HTML as alternatives, or either with
 * the files after it. Writes the Content-Type header fields on. */
static int put_body(struct base_buf *b, const char *text, const struct mail_out *m,
                    const uint64_t rnd[2])
{
  char alt[64], mix[64];
  char *html_owned = NULL;
  const char *html = NULL;
  size_t i;

  if(!m->html && !m->nattach) {
    bool qp = !is_7bit(text);
    if(base_buf_puts(b, "MIME-Version: 1.0\r\n"
                        "Content-Type: text/plain; charset=utf-8\r\n") ||
       base_buf_printf(b, "Content-Transfer-Encoding: %s\r\n", qp ? "quoted-printable" : "7bit") ||
       /* RFC 3834 §5: a response generated by a program says so, which keeps
        * well-behaved auto-responders from answering it. */
       base_buf_puts(b, "Auto-Submitted: auto-replied\r\n\r\n"))
      return mail_buf_code(b->err);
    if(qp)
      put_qp(b, text);
    else
      put_7bit(b, text);
    return mail_buf_code(b->err);
  }
  for(i = 0; i < m->nattach; i++)
    if(!part_ok(&m->attach[i]))
      return MAIL_EPARSE;
  make_boundary(alt, sizeof(alt), "alt", rnd[0]);
  make_boundary(mix, sizeof(mix), "mix", rnd[1]);
  if(m->html && !(html = body_lines(m->html, &html_owned)))
    return MAIL_ENOMEM;
  /* room for the whole body at once, not doubling a step at a time:
   * the text, the HTML and a tenth more for its encoding */
  /* (each failure sticks in b: the put_ functions stop at it, and b's
   * error is the answer) */
  if(html && strlen(html) < MAIL_MAX_MESSAGE && strlen(text) < MAIL_MAX_MESSAGE &&
     !base_buf_reserve(b, strlen(text) + strlen(html) + strlen(html) / 8 + 1024))
    goto out;
  if(base_buf_puts(b, "MIME-Version: 1.0\r\n") ||
     /* appends, not printf, for the fixed text around the boundaries */
     base_buf_puts(b, m->nattach ? "Content-Type: multipart/mixed; boundary=\""
                                 : "Content-Type: multipart/alternative; boundary=\"") ||
     base_buf_puts(b, m->nattach ? mix : alt) ||
     base_buf_puts(b, "\"\r\nAuto-Submitted: auto-replied\r\n\r\n"))
    goto out;
  if(m->nattach) {
    if(base_buf_printf(b, "--%s\r\n", mix) ||
       (html &&
        base_buf_printf(b, "Content-Type: multipart/alternative; boundary=\"%s\"\r\n\r\n", alt)))
      goto out;
  }
  if(html) {
    if(base_buf_puts(b, "--") || base_buf_puts(b, alt) || base_buf_puts(b, "\r\n"))
      goto out;
    put_text_part(b, "plain", text);
    if(base_buf_puts(b, "--") || base_buf_puts(b, alt) ||
       base_buf_puts(b, "\r\nContent-Type: text/html; charset=utf-8\r\n"
                        "Content-Transfer-Encoding: quoted-printable\r\n\r\n"))
      goto out;
    put_html_qp(b, html);
    if(base_buf_puts(b, "--") || base_buf_puts(b, alt) || base_buf_puts(b, "--\r\n"))
      goto out;
  }
  else
    put_text_part(b, "plain", text);
  for(i = 0; i < m->nattach; i++) {
    const struct mail_part *p = &m->attach[i];
    if(base_buf_printf(b, "--%s\r\nContent-Type: %s%s; name=\"%s\"\r\n"
                          "Content-Disposition: attachment; filename=\"%s\"\r\n"
                          "Content-Transfer-Encoding: base64\r\n\r\n",
                       mix, p->type, !strncmp(p->type, "text/", 5) ? "; charset=utf-8" : "",
                       p->filename, p->filename))
      goto out;
    put_base64(b, p->data, p->len);
  }
  if(m->nattach && base_buf_printf(b, "--%s--\r\n", mix))
    goto out;
out:
  free(html_owned);
  return mail_buf_code(b->err);
}

int mail_compose(char **out, char *msgid_out, const struct mail_out *m)
{
  struct base_buf b;
  char id[256];
  char *body_owned = NULL;
  const char *body;
  /* the Message-ID's random part, then the two boundaries' */
  uint64_t rnd[3] = {0, 0, 0};
  int rc = MAIL_EPARSE;

  base_buf_init(&b, MAIL_BUF_MAX);
  if(!out || !m)
    return MAIL_EPARSE;
  *out = NULL;
  /* RFC 5322 §3.6: From and Date are the two fields a message must have. */
  if(!mail_addr_valid(m->from))
    goto out;
  if((m->reply_to && !mail_addr_valid(m->reply_to)) || (m->to && !mail_addr_valid(m->to)) ||
     (m->in_reply_to && !mail_msgid_valid(m->in_reply_to)))
    goto out;
  if(m->message_id && !mail_msgid_valid(m->message_id))
    goto out;
  if((!m->message_id || m->html || m->nattach) && random_bytes(rnd, sizeof(rnd))) {
    rc = MAIL_EIO;
    goto out;
  }
  if(m->message_id)
    memcpy(id, m->message_id, strlen(m->message_id) + 1);
  else {
    rc = make_msgid(id, sizeof(id), m, rnd[0]);
    if(rc)
      goto out;
  }
  rc = put_date(&b, m->date);
  if(!rc)
    rc = put_from(&b, m->from_name, m->from);
  if(rc)
    goto out;
  if(m->reply_to)
    put_token_field(&b, "Reply-To", "<", m->reply_to, ">");
  if(m->to)
    put_token_field(&b, "To", "<", m->to, ">");
  if(m->subject) {
    rc = put_subject(&b, m->subject);
    if(rc)
      goto out;
  }
  put_token_field(&b, "Message-ID", "", id, "");
  if(m->in_reply_to)
    put_token_field(&b, "In-Reply-To", "", m->in_reply_to, "");
  if(m->references) {
    rc = put_references(&b, m->references);
    if(rc)
      goto out;
  }
  body = body_lines(m->body ? m->body : "", &body_owned);
  if(!body) {
    rc = MAIL_ENOMEM;
    goto out;
  }
  rc = put_body(&b, body, m, rnd + 1);
  if(rc)
    goto out;
  *out = base_buf_take(&b);
  if(msgid_out)
    memcpy(msgid_out, id, strlen(id) + 1);
  rc = MAIL_OK;
out:
  free(body_owned);
  base_buf_free(&b);
  return rc;
}
