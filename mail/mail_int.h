/*
 * mail_int.h: internals shared by the files of tabula_mail; not part of the
 * public interface (mail.h). Nothing here is used outside mail/.
 *
 * Every function that produces text writes into a struct base_buf (base.h),
 * a growable byte buffer with a hard ceiling: input from the network can
 * never make it grow past MAIL_MAX_MESSAGE-sized limits chosen by the caller.
 */
#ifndef TABULA_MAIL_INT_H
#define TABULA_MAIL_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base.h"
#include "mail.h"

/* Texts are written into the project's one buffer (base.h), with its
 * sticky error; MAIL_BUF_MAX is the ceiling of a text built from a
 * message (four times the largest message mail takes). */
#define MAIL_BUF_MAX ((size_t)MAIL_MAX_MESSAGE * 4)
/* The buffer's error as an enum mail_code: MAIL_ENOMEM, MAIL_ETOOBIG, or 0. */
static inline int mail_buf_code(int err)
{
  return !err ? 0 : err == BASE_BUF_ETOOBIG ? MAIL_ETOOBIG : MAIL_ENOMEM;
}
/* Adds the UTF-8 encoding of code point cp (U+FFFD for invalid ones). */
BASE_CHECK int mail_put_cp(struct base_buf *b, unsigned long cp);

/* ---- neterr.c ---- */

/* libetpan's IMAP and POP3 codes in words */
const char *mail_imap_words(int code);
const char *mail_pop3_words(int code);
/* Why a connect to host:port fails, in words, found by trying again */
void mail_connect_cause(const char *host, unsigned port, int timeout_s, char *buf, size_t cap);
/* "PROTO server HOST port N: STEP failed: CAUSE (DETAIL); the server said:
 * WORDS" (DETAIL and WORDS left out when NULL or empty) */
void mail_server_error(char *err, size_t cap, const char *proto, const char *host, unsigned port,
                       const char *step, const char *cause, const char *detail,
                       const char *server_said);

/* ---- charset.c ---- */

/* How many of the n bytes at s, from the first, are ASCII (below 0x80):
 * eight at a time (replies are checked whole, ~9 KB each). */
static inline size_t mail_ascii_span(const unsigned char *s, size_t n)
{
  size_t i = 0;
  uint64_t w;

  for(; i + 8 <= n; i += 8) {
    memcpy(&w, s + i, 8);
    if(w & UINT64_C(0x8080808080808080))
      break;
  }
  while(i < n && s[i] < 0x80)
    i++;
  return i;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none
 * (RFC 3629 §4: no overlongs, no surrogates, nothing above U+10FFFF). */
size_t mail_utf8_seq(const unsigned char *s, size_t n);
bool mail_utf8_valid(const char *s, size_t n);
/* Copies s to out, each invalid byte replaced by U+FFFD. */
int mail_utf8_repair(struct base_buf *out, const char *s, size_t n);
/* Converts n bytes of s in charset (a MIME charset name, may be NULL) to
 * UTF-8, appending to out. Never fails on bad input: undecodable bytes
 * become U+FFFD. Only MAIL_ENOMEM/MAIL_ETOOBIG are returned. */
int mail_to_utf8(struct base_buf *out, const char *charset, const char *s, size_t n);
/* Unicode code point for windows-1252 byte c (0x80..0x9f differ from
 * ISO-8859-1; 0 for the five undefined bytes). */
unsigned long mail_cp1252(unsigned char c);
/* Cuts s (a NUL-terminated UTF-8 string) into dst of cap bytes without
 * splitting a character. */
void mail_copy_utf8(char *dst, size_t cap, const char *s);

/* ---- html.c ---- */

/* Turns UTF-8 HTML into plain text with LF line ends: block elements become
 * line breaks, blockquote content is prefixed with "> " per level (so that
 * mail_clean_text drops it like a quote), script/style/title content is
 * dropped, entities are decoded. */
int mail_html_to_text(struct base_buf *out, const char *html, size_t n);

/* ---- structure.c ---- */

/* How deep a message's MIME tree may go (the message itself is 0, the
 * entity its header describes 1, each part or enclosed message one more):
 * the nesting mail_structure_check allows and the body search walks. */
#define MIME_MAX_DEPTH 40

/* A message's MIME structure as libetpan's mailmime_parse will take it
 * apart (counted before it does, up to the first limit passed). */
struct mail_shape {
  size_t depth;  /* deepest entity */
  size_t parts;  /* body parts of multiparts, all levels */
  size_t fields; /* header fields as parsed, all headers */
  size_t params; /* Content-Type and Content-Disposition parameters as parsed */
};

/* NULL when raw (len bytes, without an mbox "From " line) is within the
 * limits on nesting, parts, header fields, parameters and comment depth,
 * so that mailmime_parse may see it; else the reason ("too many MIME
 * parts", ...). shape (may be NULL) gets the counts; *err (may be NULL)
 * gets MAIL_ENOMEM when the check itself ran out of memory, else 0. */
const char *mail_structure_check(const char *raw, size_t len, struct mail_shape *shape, int *err);
/* The length of raw's own header (its fields and the blank line after
 * them, as libetpan reads them) when it is within the limits on one
 * header: NULL and *end set; else the reason as above. */
const char *mail_header_span(const char *raw, size_t len, size_t *end, int *err);

/* ---- date.c ---- */

/* Unix seconds of a UTC-offset civil time (zone_minutes east of UTC, as
 * +0130 is 90); -1 when a field is out of its range (years 1970-9999,
 * seconds up to 60 for a leap second). */
int64_t mail_civil_time(int year, int month, int day, int hour, int minute, int second,
                        int zone_minutes);

/* ---- clean.c ---- */

/* Trims ASCII blanks and U+00A0 from both ends of [s, s+n): *start and the
 * returned length describe what is left. */
size_t mail_trim(const char *s, size_t n, size_t *start);
/* Whether s[0..n), the rest of a line, is a no-break space (U+00A0) and a
 * "Sent from my ..." tagline (clean.c) that runs to the line's end: Samsung
 * Email's text part, made from its HTML, writes the line break between a
 * player's "take" and its "Sent from my Galaxy" that way, while the HTML
 * part has them on lines of their own. Only after a no-break space: "I'll
 * take it. Sent from my phone" with plain spaces is prose. */
bool mail_tagline_joined(const char *s, size_t n);

#endif /* TABULA_MAIL_INT_H */
