/*
 * charset.c: everything that arrives by mail is turned into UTF-8 here.
 *
 * Specs: RFC 3629 (UTF-8; what counts as valid), RFC 2046 §4.1.2 (the
 * charset parameter), RFC 2978 (charset names as registered with IANA), and
 * the WHATWG Encoding Standard's practice of reading ISO-8859-1 as
 * windows-1252, because that is what mail labelled ISO-8859-1 really holds.
 *
 * Nothing here fails on bad input: a byte that cannot be decoded becomes
 * U+FFFD, so a hostile message can at worst produce odd characters.
 */
#include "mail_int.h"

#include <errno.h>
#include <iconv.h>
#include <string.h>

/* mail_int.h; RFC 3629 section 3 (surrogates and past U+10FFFF are no
 * characters). */
int mail_put_cp(struct base_buf *b, unsigned long cp)
{
  unsigned char u[4];
  size_t n;

  if(cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
    cp = 0xfffd;
  if(cp < 0x80) {
    u[0] = (unsigned char)cp;
    n = 1;
  } else if(cp < 0x800) {
    u[0] = (unsigned char)(0xc0 | (cp >> 6));
    u[1] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 2;
  } else if(cp < 0x10000) {
    u[0] = (unsigned char)(0xe0 | (cp >> 12));
    u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    u[2] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 3;
  } else {
    u[0] = (unsigned char)(0xf0 | (cp >> 18));
    u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
    u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
    u[3] = (unsigned char)(0x80 | (cp & 0x3f));
    n = 4;
  }
  return base_buf_add(b, u, n);
}

/* windows-1252 0x80..0x9f; 0 marks the five bytes it leaves undefined. */
static const unsigned short cp1252_high[32] = {
    0x20ac, 0,      0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160,
    0x2039, 0x0152, 0,      0x017d, 0,      0,      0x2018, 0x2019, 0x201c, 0x201d, 0x2022,
    0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0,      0x017e, 0x0178};

unsigned long mail_cp1252(unsigned char c)
{
  if(c >= 0x80 && c < 0xa0)
    return cp1252_high[c - 0x80];
  return c;
}

size_t mail_utf8_seq(const unsigned char *s, size_t n)
{
  unsigned char lo = 0x80;
  unsigned char hi = 0xbf;
  size_t need;
  size_t i;

  if(!n)
    return 0;
  if(s[0] < 0x80)
    return 1;
  if(s[0] < 0xc2)
    return 0; /* continuation byte or overlong 2-byte lead */
  if(s[0] < 0xe0)
    need = 2;
  else if(s[0] < 0xf0) {
    need = 3;
    if(s[0] == 0xe0)
      lo = 0xa0; /* overlong */
    else if(s[0] == 0xed)
      hi = 0x9f; /* UTF-16 surrogates, RFC 3629 §3 */
  } else if(s[0] < 0xf5) {
    need = 4;
    if(s[0] == 0xf0)
      lo = 0x90;
    else if(s[0] == 0xf4)
      hi = 0x8f; /* above U+10FFFF */
  } else
    return 0;
  if(n < need)
    return 0;
  if(s[1] < lo || s[1] > hi)
    return 0;
  for(i = 2; i < need; i++) {
    if(s[i] < 0x80 || s[i] > 0xbf)
      return 0;
  }
  return need;
}

bool mail_utf8_valid(const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  size_t k;

  while(i < n) {
    if(u[i] < 0x80) { /* ASCII runs without a call a byte */
      i += mail_ascii_span(u + i, n - i);
      continue;
    }
    k = mail_utf8_seq(u + i, n - i);
    if(!k)
      return false;
    i += k;
  }
  return true;
}

int mail_utf8_repair(struct base_buf *out, const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i = 0;
  size_t run = 0; /* start of the pending run of valid bytes */
  size_t k;

  while(i < n) {
    if(u[i] < 0x80) { /* ASCII runs without a call a byte */
      i += mail_ascii_span(u + i, n - i);
      continue;
    }
    k = mail_utf8_seq(u + i, n - i);
    if(k) {
      i += k;
      continue;
    }
    if(base_buf_add(out, s + run, i - run) || mail_put_cp(out, 0xfffd))
      return mail_buf_code(out->err);
    i++;
    run = i;
  }
  return mail_buf_code(base_buf_add(out, s + run, i - run));
}

static int decode_cp1252(struct base_buf *out, const char *s, size_t n)
{
  const unsigned char *u = (const unsigned char *)s;
  size_t i;
  unsigned long cp;

  for(i = 0; i < n && !out->err; i++) {
    if(u[i] < 0x80) {
      if(base_buf_putc(out, (char)u[i]))
        break;
      continue;
    }
    cp = mail_cp1252(u[i]);
    if(mail_put_cp(out, cp ? cp : 0xfffd))
      break;
  }
  return mail_buf_code(out->err);
}

/* For labels that promise ASCII (or promise nothing): mail that breaks the
 * promise is far more often UTF-8 than anything else, and what is not UTF-8
 * is most often windows-1252. */
static int decode_guess(struct base_buf *out, const char *s, size_t n)
{
  if(mail_utf8_valid(s, n))
    return mail_buf_code(base_buf_add(out, s, n));
  return decode_cp1252(out, s, n);
}

/* iconv's output is not trusted to be UTF-8: glibc passes the bytes of
 * names it reads as UTF-8 but that are not on the lists below ("utf-8+")
 * through unchecked, 5-byte forms and code points above U+10FFFF
 * included, and writes those from UCS-4 too. So what it writes goes
 * through mail_utf8_repair, the same rule as for declared UTF-8 (RFC 3629
 * §3: every decoded text is valid UTF-8 whatever the label says). */
static int decode_iconv(struct base_buf *out, iconv_t cd, const char *s, size_t n)
{
  struct base_buf raw;
  char tmp[4096];
  char *in = (char *)s; /* iconv's prototype is not const-correct */
  size_t inleft = n;
  char *outp;
  size_t outleft;
  size_t r;
  int e;

  base_buf_init(&raw, out->max); /* the same bound as the text itself */
  while(inleft > 0 && !raw.err) {
    outp = tmp;
    outleft = sizeof(tmp);
    r = iconv(cd, &in, &inleft, &outp, &outleft);
    e = errno; /* before the buffer's realloc */
    if(base_buf_add(&raw, tmp, (size_t)(outp - tmp)))
      break;
    if(r != (size_t)-1 || e == E2BIG)
      continue;
    if(mail_put_cp(&raw, 0xfffd) || e != EILSEQ)
      break; /* EINVAL: the input ends inside a character */
    in++;
    inleft--;
  }
  /* Shift sequences of stateful charsets (ISO-2022-JP) end here. */
  outp = tmp;
  outleft = sizeof(tmp);
  iconv(cd, NULL, NULL, &outp, &outleft);
  if(base_buf_add(&raw, tmp, (size_t)(outp - tmp))) {
    if(!out->err) /* out's error, sticky as its own appends' */
      out->err = raw.err;
  }
  else
    mail_utf8_repair(out, raw.s ? raw.s : "", raw.len);
  base_buf_free(&raw);
  return mail_buf_code(out->err);
}

static bool name_in(const char *name, const char *const *list)
{
  size_t i;

  for(i = 0; list[i]; i++) {
    if(!strcmp(name, list[i]))
      return true;
  }
  return false;
}

int mail_to_utf8(struct base_buf *out, const char *charset, const char *s, size_t n)
{
  static const char *const utf8[] = {"utf-8", "utf8", NULL};
  static const char *const latin[] = {"iso-8859-1",   "iso8859-1", "iso_8859-1", "latin1", "l1",
                                      "windows-1252", "cp1252",    "x-cp1252",   NULL};
  static const char *const ascii[] = {"",          "us-ascii",       "ascii",
                                      "us",        "ansi_x3.4-1968", "unknown-8bit",
                                      "x-unknown", "default",        NULL};
  char name[64];
  size_t i = 0;
  iconv_t cd;
  int rc;

  /* Charset names are tokens (RFC 2978 §2.3); anything else (or a name
   * iconv would read as options, like "x//TRANSLIT") is treated as
   * unknown rather than handed to iconv_open. */
  if(charset) {
    for(i = 0; charset[i] && i < sizeof(name) - 1; i++) {
      char c = charset[i];
      if(c >= 'A' && c <= 'Z')
        c = (char)(c - 'A' + 'a');
      if(!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' ||
           c == ':' || c == '+'))
        break;
      name[i] = c;
    }
    if(charset[i])
      i = 0;
  }
  name[i] = '\0';
  if(name_in(name, utf8))
    return mail_utf8_repair(out, s, n);
  if(name_in(name, latin))
    return decode_cp1252(out, s, n);
  if(name_in(name, ascii))
    return decode_guess(out, s, n);
  cd = iconv_open("UTF-8", name);
  if(cd == (iconv_t)-1)
    return decode_guess(out, s, n);
  rc = decode_iconv(out, cd, s, n);
  iconv_close(cd);
  return rc;
}

void mail_copy_utf8(char *dst, size_t cap, const char *s)
{
  size_t n;

  if(!cap)
    return;
  n = strlen(s);
  if(n >= cap) {
    n = cap - 1;
    /* Back off to the first byte of the character that would be cut. */
    while(n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
      n--;
  }
  memcpy(dst, s, n);
  dst[n] = '\0';
}
