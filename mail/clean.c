/*
 * clean.c: reply clutter removed from a decoded mail text, so that the
 * command parser reads only what the player wrote this time.
 *
 * What goes: lines quoted with '>' (RFC 3676 §4.5 quote marks, any depth),
 * the "-- " signature separator (RFC 3676 §4.3) and all after it, reply
 * attributions ("On <date>, <name> wrote:" and the localized forms common
 * clients write, also wrapped over two lines), Outlook's
 * "-----Original Message-----" line or its "From:/Sent:/To:/Subject:"
 * header block, the forward separators (Gmail's "---------- Forwarded
 * message ---------", Thunderbird's, Apple Mail's "Begin forwarded
 * message:") and everything after them, and "Sent from my ..." taglines
 * (also one joined to the end of a line by a no-break space).
 * Trailing blank lines are trimmed. Everything else is kept byte for byte:
 * deciding what is a command is the command parser's job, not this one's.
 *
 * Each rule errs on the side of keeping text: a rule that wrongly fires
 * would hide a player's move, one that wrongly stays quiet only leaves
 * clutter the command parser will ignore.
 */
#include "mail_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Longest line a reply attribution or tagline can plausibly be. */
#define ATTRIBUTION_MAX 400
#define TAGLINE_MAX 80
/* How many lines an Outlook header block may span. */
#define OUTLOOK_BLOCK_LINES 10

struct span {
  const char *p;
  size_t n;
};

static bool blank_at(const char *s, size_t n, size_t i, size_t *w)
{
  if(i < n && (s[i] == ' ' || s[i] == '\t')) {
    *w = 1;
    return true;
  }
  if(i + 1 < n && (unsigned char)s[i] == 0xc2 && (unsigned char)s[i + 1] == 0xa0) {
    *w = 2; /* U+00A0, which Outlook and Apple Mail write for spaces */
    return true;
  }
  return false;
}

size_t mail_trim(const char *s, size_t n, size_t *start)
{
  size_t i = 0;
  size_t end = n;
  size_t w;

  while(blank_at(s, n, i, &w))
    i += w;
  while(end > i) {
    if(s[end - 1] == ' ' || s[end - 1] == '\t')
      end--;
    else if(end - i >= 2 && (unsigned char)s[end - 2] == 0xc2 && (unsigned char)s[end - 1] == 0xa0)
      end -= 2;
    else
      break;
  }
  *start = i;
  return end - i;
}

static struct span trimmed(struct span l)
{
  size_t start;
  struct span t;

  t.n = mail_trim(l.p, l.n, &start);
  t.p = l.p + start;
  return t;
}

/* The line at *pos (without its LF or a CR before it); moves *pos on. */
static struct span next_line(const char *text, size_t len, size_t *pos)
{
  struct span l;
  const char *nl = memchr(text + *pos, '\n', len - *pos);

  l.p = text + *pos;
  l.n = nl ? (size_t)(nl - l.p) : len - *pos;
  *pos += l.n + (nl ? 1 : 0);
  if(l.n && l.p[l.n - 1] == '\r')
    l.n--;
  return l;
}

static bool starts_ci(struct span t, const char *prefix)
{
  size_t k = strlen(prefix);

  return t.n >= k && !strncasecmp(t.p, prefix, k);
}

static bool contains(struct span t, const char *word)
{
  size_t k = strlen(word);
  size_t i;

  for(i = 0; k && i + k <= t.n; i++) {
    if(!memcmp(t.p + i, word, k))
      return true;
  }
  return false;
}

/* ---- the rules ---- */

static bool is_quoted(struct span t)
{
  return t.n && t.p[0] == '>';
}

static bool is_signature(struct span l)
{
  return l.n == 3 && !memcmp(l.p, "-- ", 3);
}

/* "On <date>, <name> wrote:" and its translations: the line starts with
 * the prefix, holds the verb as a word, and ends with a colon (French puts
 * a space or U+00A0 before it, which trimming removed). */
static const struct {
  const char *prefix;
  const char *verb;
} attributions[] = {{"On ", " wrote"},
                    {"Le ", " a \xc3\xa9"
                            "crit"},
                    {"Am ", " schrieb "},
                    {"El ", " escribi\xc3\xb3"},
                    {"Il ", " ha scritto"},
                    {"Op ", " schreef "},
                    {"Em ", " escreveu"},
                    {"Den ", " skrev "},
                    {"W dniu ", " pisze"}};

/* Which attribution form t starts like, -1 for none. */
static int attribution_form(struct span t)
{
  size_t i;

  for(i = 0; i < sizeof(attributions) / sizeof(attributions[0]); i++) {
    if(starts_ci(t, attributions[i].prefix))
      return (int)i;
  }
  return -1;
}

static bool is_attribution(struct span t)
{
  int f = attribution_form(t);
  struct span body;

  if(f < 0 || t.n > ATTRIBUTION_MAX || t.p[t.n - 1] != ':')
    return false;
  body.p = t.p + strlen(attributions[f].prefix);
  body.n = t.n - strlen(attributions[f].prefix);
  return contains(body, attributions[f].verb);
}

/* t and the line after it (at *pos) form one attribution that a client
 * wrapped (Gmail wraps its own at 78 columns); *pos moves past both. */
static bool is_wrapped_attribution(struct span t, const char *text, size_t len, size_t *pos)
{
  size_t p2 = *pos;
  struct span t2;
  struct base_buf both;
  bool joined = false;

  if(attribution_form(t) < 0 || t.p[t.n - 1] == ':' || *pos >= len)
    return false;
  t2 = trimmed(next_line(text, len, &p2));
  if(!t2.n || is_quoted(t2) || t2.p[t2.n - 1] != ':')
    return false;
  base_buf_init(&both, ATTRIBUTION_MAX + 2);
  if(!base_buf_add(&both, t.p, t.n) && !base_buf_putc(&both, ' ') &&
     !base_buf_add(&both, t2.p, t2.n)) {
    struct span j = {both.s, both.len};
    joined = is_attribution(j);
  }
  base_buf_free(&both);
  if(joined)
    *pos = p2;
  return joined;
}

/* "-----Original Message-----" (Outlook), also with spaces inside the
 * dashes (Outlook Express) and in the languages Outlook ships, and the
 * forward separators: "---------- Forwarded message ---------" (Gmail),
 * "-------- Forwarded Message --------" (Thunderbird), "-------- Original
 * message --------" (Samsung). Text after the closing dashes is allowed: a
 * format=flowed sender (Windows Live Mail) leaves a space after them, which
 * joins the next line on (RFC 3676 §4.2). */
static bool is_original_message(struct span t)
{
  static const char *const names[] = {"original message",
                                      "forwarded message",
                                      "urspr\xc3\xbcngliche nachricht",
                                      "weitergeleitete nachricht",
                                      "message d'origine",
                                      "message transf\xc3\xa9r\xc3\xa9",
                                      "mensaje original",
                                      "mensaje reenviado",
                                      "messaggio originale",
                                      "messaggio inoltrato",
                                      "oorspronkelijk bericht",
                                      "doorgestuurd bericht",
                                      "originalmeddelande",
                                      "mensagem original",
                                      "mensagem encaminhada",
                                      NULL};
  size_t lead = 0;
  size_t i;

  while(lead < t.n && t.p[lead] == '-')
    lead++;
  if(lead < 3)
    return false;
  while(lead < t.n && t.p[lead] == ' ')
    lead++;
  for(i = 0; names[i]; i++) {
    size_t k = strlen(names[i]);
    size_t j = lead + k;
    size_t dashes = 0;
    if(t.n - lead < k || strncasecmp(t.p + lead, names[i], k))
      continue;
    while(j < t.n && t.p[j] == ' ')
      j++;
    while(j < t.n && t.p[j] == '-') {
      j++;
      dashes++;
    }
    if(dashes >= 3)
      return true;
  }
  return false;
}

/* Apple Mail's forward: "Begin forwarded message:" on a line of its own
 * (localized as Apple ships it), the forwarded headers and text below. */
static bool is_forward_intro(struct span t)
{
  static const char *const intros[] = {"Begin forwarded message:",
                                       "Anfang der weitergeleiteten Nachricht:",
                                       "D\xc3\xa9"
                                       "but du message r\xc3\xa9"
                                       "exp\xc3\xa9"
                                       "di\xc3\xa9 :",
                                       "Inicio del mensaje reenviado:",
                                       "Inizio messaggio inoltrato:",
                                       NULL};
  size_t i;

  for(i = 0; intros[i]; i++) {
    if(t.n == strlen(intros[i]) && !strncasecmp(t.p, intros[i], t.n))
      return true;
  }
  return false;
}

struct header_labels {
  const char *from;
  const char *sent;
  const char *date;
  const char *subject;
};

/* What Outlook writes above a quoted mail, per language. */
static const struct header_labels outlook_labels[] = {
    {"From", "Sent", "Date", "Subject"},        {"Von", "Gesendet", "Datum", "Betreff"},
    {"De", "Envoy\xc3\xa9", "Date", "Objet"},   {"De", "Enviado", "Fecha", "Asunto"},
    {"Van", "Verzonden", "Datum", "Onderwerp"}, {"Da", "Inviato", "Data", "Oggetto"}};

/* t starts with "Label:" (also "*Label:*", the bold a text/plain
 * alternative of an HTML mail shows, and "Label :" as French writes). */
static bool is_label(struct span t, const char *label)
{
  size_t k = strlen(label);
  size_t i = 0;
  size_t w;

  if(i < t.n && t.p[i] == '*')
    i++;
  if(t.n - i < k || strncasecmp(t.p + i, label, k))
    return false;
  i += k;
  while(blank_at(t.p, t.n, i, &w))
    i += w;
  return i < t.n && t.p[i] == ':';
}

/* Line t (at *pos in text) starts an Outlook header block: "From:" then,
 * before a blank line, "Sent:" (or "Date:") and "Subject:". Some clients
 * put the whole block on one line. */
static bool is_outlook_block(struct span t, const char *text, size_t len, size_t pos)
{
  size_t s;

  for(s = 0; s < sizeof(outlook_labels) / sizeof(outlook_labels[0]); s++) {
    const struct header_labels *hl = &outlook_labels[s];
    bool sent = false;
    bool subject = false;
    size_t p = pos;
    int k;
    char word[24];

    if(!is_label(t, hl->from))
      continue;
    snprintf(word, sizeof(word), " %s:", hl->sent);
    sent = contains(t, word);
    snprintf(word, sizeof(word), " %s:", hl->subject);
    subject = contains(t, word);
    for(k = 0; k < OUTLOOK_BLOCK_LINES && p < len && !(sent && subject); k++) {
      struct span u = trimmed(next_line(text, len, &p));
      if(!u.n)
        break;
      if(is_label(u, hl->sent) || is_label(u, hl->date))
        sent = true;
      else if(is_label(u, hl->subject))
        subject = true;
    }
    if(sent && subject)
      return true;
  }
  return false;
}

static bool is_tagline(struct span t)
{
  static const char *const prefixes[] = {
      "Sent from my ",
      "Sent from Outlook",
      "Sent from Mail for Windows",
      "Sent from Mail<", /* Windows 10 Mail: "Sent from Mail<https://...> for Windows" */
      "Sent from Yahoo",
      "Sent from Samsung",
      "Sent from Proton Mail",
      "Sent with Proton Mail",
      "Sent from the all new AOL app",
      "Get Outlook for ",
      "Envoy\xc3\xa9 de mon ",
      "Von meinem ",
      "Enviado desde mi ",
      "Inviato da ",
      "Verzonden vanaf mijn ",
      NULL};
  size_t i;

  if(!t.n || t.n > TAGLINE_MAX)
    return false;
  for(i = 0; prefixes[i]; i++) {
    if(starts_ci(t, prefixes[i]))
      return true;
  }
  return false;
}

bool mail_tagline_joined(const char *s, size_t n)
{
  struct span rest = {s, n};

  if(n < 2 || (unsigned char)s[0] != 0xc2 || (unsigned char)s[1] != 0xa0)
    return false;
  return is_tagline(trimmed(rest));
}

/* Where a tagline joined to the end of a line by a no-break space starts
 * (the line's length when there is none); see mail_tagline_joined. */
static size_t before_joined_tagline(struct span t)
{
  size_t i;

  for(i = 1; i + 1 < t.n; i++)
    if(t.n - i <= TAGLINE_MAX + 8 && mail_tagline_joined(t.p + i, t.n - i)) {
      struct span head = {t.p, i};
      return trimmed(head).n ? i : t.n;
    }
  return t.n;
}

static bool is_rule(struct span t)
{
  size_t i;

  if(t.n < 8)
    return false;
  for(i = 0; i < t.n; i++) {
    if(t.p[i] != '_')
      return false;
  }
  return true;
}

/* Drops trailing blank lines of out; then, when rule is set, a line of
 * underscores Outlook draws above its header block, and blanks again. */
static void trim_tail(struct base_buf *out, bool rule)
{
  for(;;) {
    size_t end = out->len;
    size_t start;
    struct span l;

    if(!end)
      return;
    start = end - 1; /* out->s[end - 1] is the LF of the last line */
    while(start > 0 && out->s[start - 1] != '\n')
      start--;
    l.p = out->s + start;
    l.n = end - 1 - start;
    l = trimmed(l);
    if(l.n && !(rule && is_rule(l)))
      return;
    if(l.n)
      rule = false;
    out->len = start;
    out->s[start] = '\0';
  }
}

char *mail_clean_text(const char *text)
{
  struct base_buf out;
  size_t len;
  size_t pos = 0;
  bool rule = false;

  base_buf_init(&out, MAIL_BUF_MAX);
  if(!text)
    text = "";
  len = strlen(text);
  while(pos < len && !out.err) {
    struct span l = next_line(text, len, &pos);
    struct span t = trimmed(l);

    if(is_quoted(t))
      continue;
    if(is_signature(l) || is_original_message(t) || is_forward_intro(t))
      break;
    if(is_outlook_block(t, text, len, pos)) {
      rule = true;
      break;
    }
    if(is_attribution(t) || is_tagline(t) || is_wrapped_attribution(t, text, len, &pos))
      continue;
    {
      size_t keep = before_joined_tagline(t);
      if(keep < t.n)
        l.n = (size_t)(t.p - l.p) + keep;
    }
    if(base_buf_add(&out, l.p, l.n) || base_buf_putc(&out, '\n'))
      break; /* the error sticks: nothing is returned */
  }
  if(!out.err)
    trim_tail(&out, rule);
  return base_buf_take(&out);
}
