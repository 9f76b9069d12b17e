/*
 * html.c: HTML-only mail turned into plain text, good enough for the
 * command parser (not a renderer).
 *
 * Follows the HTML Living Standard where it matters for mail: character
 * references (§13.2.5.72-80: numeric references, the windows-1252 remap of
 * &#128;..&#159;, U+FFFD for zero, surrogates and values past U+10FFFF),
 * raw-text elements (script, style) whose content is not text, and the
 * block elements that start a new line. Input is already UTF-8.
 *
 * Two choices tuned for a game referee: <pre> keeps its white space (boards
 * are often sent in <pre>), and blockquote content gets "> " per level so
 * that mail_clean_text drops a quoted earlier mail as it does in plain text.
 */
#include "mail_int.h"

#include <string.h>
#include <strings.h>

struct html {
  struct base_buf *out;
  const char *s;
  size_t n;
  size_t i;
  int pre;    /* depth of <pre> */
  int quote;  /* depth of <blockquote> */
  bool bol;   /* nothing written on the current line yet */
  bool space; /* collapsed white space pending */
};

struct entity {
  const char *name;
  unsigned short cp;
};

/* The HTML 4 Latin-1 and special sets (the names mail clients emit). */
static const struct entity entities[] = {
    {"quot", 34},     {"amp", 38},      {"apos", 39},     {"lt", 60},      {"gt", 62},
    {"nbsp", 160},    {"iexcl", 161},   {"cent", 162},    {"pound", 163},  {"curren", 164},
    {"yen", 165},     {"brvbar", 166},  {"sect", 167},    {"uml", 168},    {"copy", 169},
    {"ordf", 170},    {"laquo", 171},   {"not", 172},     {"shy", 173},    {"reg", 174},
    {"macr", 175},    {"deg", 176},     {"plusmn", 177},  {"sup2", 178},   {"sup3", 179},
    {"acute", 180},   {"micro", 181},   {"para", 182},    {"middot", 183}, {"cedil", 184},
    {"sup1", 185},    {"ordm", 186},    {"raquo", 187},   {"frac14", 188}, {"frac12", 189},
    {"frac34", 190},  {"iquest", 191},  {"Agrave", 192},  {"Aacute", 193}, {"Acirc", 194},
    {"Atilde", 195},  {"Auml", 196},    {"Aring", 197},   {"AElig", 198},  {"Ccedil", 199},
    {"Egrave", 200},  {"Eacute", 201},  {"Ecirc", 202},   {"Euml", 203},   {"Igrave", 204},
    {"Iacute", 205},  {"Icirc", 206},   {"Iuml", 207},    {"ETH", 208},    {"Ntilde", 209},
    {"Ograve", 210},  {"Oacute", 211},  {"Ocirc", 212},   {"Otilde", 213}, {"Ouml", 214},
    {"times", 215},   {"Oslash", 216},  {"Ugrave", 217},  {"Uacute", 218}, {"Ucirc", 219},
    {"Uuml", 220},    {"Yacute", 221},  {"THORN", 222},   {"szlig", 223},  {"agrave", 224},
    {"aacute", 225},  {"acirc", 226},   {"atilde", 227},  {"auml", 228},   {"aring", 229},
    {"aelig", 230},   {"ccedil", 231},  {"egrave", 232},  {"eacute", 233}, {"ecirc", 234},
    {"euml", 235},    {"igrave", 236},  {"iacute", 237},  {"icirc", 238},  {"iuml", 239},
    {"eth", 240},     {"ntilde", 241},  {"ograve", 242},  {"oacute", 243}, {"ocirc", 244},
    {"otilde", 245},  {"ouml", 246},    {"divide", 247},  {"oslash", 248}, {"ugrave", 249},
    {"uacute", 250},  {"ucirc", 251},   {"uuml", 252},    {"yacute", 253}, {"thorn", 254},
    {"yuml", 255},    {"OElig", 338},   {"oelig", 339},   {"Scaron", 352}, {"scaron", 353},
    {"Yuml", 376},    {"circ", 710},    {"tilde", 732},   {"ensp", 8194},  {"emsp", 8195},
    {"thinsp", 8201}, {"zwnj", 8204},   {"zwj", 8205},    {"ndash", 8211}, {"mdash", 8212},
    {"lsquo", 8216},  {"rsquo", 8217},  {"sbquo", 8218},  {"ldquo", 8220}, {"rdquo", 8221},
    {"bdquo", 8222},  {"dagger", 8224}, {"Dagger", 8225}, {"bull", 8226},  {"hellip", 8230},
    {"permil", 8240}, {"lsaquo", 8249}, {"rsaquo", 8250}, {"euro", 8364},  {"trade", 8482},
    {"larr", 8592},   {"rarr", 8594},   {"minus", 8722}};

/* Elements that begin and end a line of text. */
static const char *const blocks[] = {
    "p",       "div",   "li",     "tr",     "h1",     "h2",      "h3",    "h4",      "h5",
    "h6",      "ul",    "ol",     "dl",     "dt",     "dd",      "table", "hr",      "address",
    "article", "aside", "center", "footer", "header", "section", "form",  "caption", "tbody",
    "thead",   "tfoot", "nav",    "main",   "figure", "body",    "html",  NULL};

/* Elements whose content is not text (raw text, or metadata). */
static const char *const dropped[] = {"script", "style", "title", "head", "template", NULL};

static bool in_list(const char *name, const char *const *list)
{
  size_t i;

  for(i = 0; list[i]; i++) {
    if(!strcmp(name, list[i]))
      return true;
  }
  return false;
}

static void put_newline(struct html *h)
{
  const struct base_buf *b = h->out;

  /* "-- <br>": the blank before the break is the separator's own (RFC 3676
   * §4.3), not white space to collapse. */
  if(h->space && b->len >= 2 && !memcmp(b->s + b->len - 2, "--", 2) &&
     (b->len == 2 || b->s[b->len - 3] == '\n') && base_buf_putc(h->out, ' '))
    return; /* the error sticks in h->out: the caller's loop ends */
  if(base_buf_putc(h->out, '\n'))
    return;
  h->bol = true;
  h->space = false;
}

/* Writes visible text, with the quote prefix first on a fresh line. */
static void put_text(struct html *h, const char *p, size_t n)
{
  int q;

  if(h->bol) {
    /* One "> " per level, but no more than a few: the prefix only has to
     * mark the line as quoted, and must not multiply the text's size. */
    for(q = 0; q < h->quote && q < 4; q++)
      if(base_buf_puts(h->out, "> "))
        return; /* the error sticks in h->out: the caller's loop ends */
    h->space = false;
  } else if(h->space && base_buf_putc(h->out, ' '))
    return;
  h->space = false;
  h->bol = false;
  if(base_buf_add(h->out, p, n))
    return;
}

static void block_break(struct html *h)
{
  if(!h->bol)
    put_newline(h);
}

static void put_cp(struct html *h, unsigned long cp)
{
  struct base_buf tmp;
  char u[8];

  /* Controls from references are no more welcome than raw ones. */
  if(cp == '\n' || cp == '\t') {
    if(h->pre && cp == '\n')
      put_newline(h);
    else
      h->space = true;
    return;
  }
  if(cp < 0x20 || cp == 0x7f)
    return;
  base_buf_init_fixed(&tmp, u, sizeof(u)); /* no allocation: 4 bytes at most */
  if(!mail_put_cp(&tmp, cp))
    put_text(h, tmp.s, tmp.len);
}

/* A character reference at h->i ('&'). Returns false when it is not one,
 * so that the '&' is kept as text. */
static bool entity(struct html *h)
{
  const char *s = h->s + h->i + 1;
  size_t left = h->n - h->i - 1;
  unsigned long cp = 0;
  size_t k = 0;
  size_t digits = 0;
  char name[12];
  size_t e;

  if(left && s[0] == '#') {
    bool hex = left > 1 && (s[1] == 'x' || s[1] == 'X');
    k = hex ? 2 : 1;
    while(k < left) {
      char c = s[k];
      int v;
      if(c >= '0' && c <= '9')
        v = c - '0';
      else if(hex && c >= 'a' && c <= 'f')
        v = c - 'a' + 10;
      else if(hex && c >= 'A' && c <= 'F')
        v = c - 'A' + 10;
      else
        break;
      if(cp <= 0x10ffff)
        cp = cp * (hex ? 16 : 10) + (unsigned long)v;
      digits++;
      k++;
    }
    if(!digits)
      return false;
    if(k < left && s[k] == ';')
      k++;
    if(cp >= 0x80 && cp < 0xa0 && mail_cp1252((unsigned char)cp))
      cp = mail_cp1252((unsigned char)cp);
    else if(cp == 0)
      cp = 0xfffd;
    put_cp(h, cp);
    h->i += 1 + k;
    return true;
  }
  while(k < left && k < sizeof(name) - 1 &&
        ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z') ||
         (s[k] >= '0' && s[k] <= '9'))) {
    name[k] = s[k];
    k++;
  }
  name[k] = '\0';
  if(!k || k >= left || s[k] != ';')
    return false;
  for(e = 0; e < sizeof(entities) / sizeof(entities[0]); e++) {
    if(strcmp(entities[e].name, name))
      continue;
    if(entities[e].cp == 160) {
      /* A hard space: written even at the start of a line, since people
       * indent boards with &nbsp; */
      put_text(h, " ", 1);
    } else
      put_cp(h, entities[e].cp);
    h->i += 1 + k + 1;
    return true;
  }
  return false;
}

/* Skips past the first case-insensitive occurrence of "</name" and its '>';
 * to the end of input when there is none (an unclosed <script> swallows
 * the rest, as in a browser). */
static void skip_element(struct html *h, const char *name)
{
  size_t len = strlen(name);

  while(h->i < h->n) {
    if(h->s[h->i] == '<' && h->i + 2 + len <= h->n && h->s[h->i + 1] == '/' &&
       !strncasecmp(h->s + h->i + 2, name, len)) {
      h->i += 2 + len;
      while(h->i < h->n && h->s[h->i] != '>')
        h->i++;
      if(h->i < h->n)
        h->i++;
      return;
    }
    h->i++;
  }
}

static void element(struct html *h, const char *name, bool closing)
{
  if(!strcmp(name, "br")) {
    put_newline(h);
    return;
  }
  if(!strcmp(name, "td") || !strcmp(name, "th")) {
    if(!h->bol)
      h->space = true;
    return;
  }
  if(!strcmp(name, "blockquote")) {
    block_break(h);
    if(closing && h->quote > 0)
      h->quote--;
    else if(!closing && h->quote < 32)
      h->quote++;
    return;
  }
  if(!strcmp(name, "pre")) {
    block_break(h);
    if(closing && h->pre > 0)
      h->pre--;
    else if(!closing)
      h->pre++;
    return;
  }
  if(!closing && in_list(name, dropped)) {
    skip_element(h, name);
    return;
  }
  if(in_list(name, blocks))
    block_break(h);
}

/* A tag, comment or declaration at h->i ('<'). Returns false when the '<'
 * starts none of them and is text. */
static bool tag(struct html *h)
{
  const char *s = h->s;
  size_t i = h->i + 1;
  bool closing = false;
  char name[16];
  size_t k = 0;
  char quote = 0;

  if(h->n - i >= 3 && !strncmp(s + i, "!--", 3)) {
    i += 3;
    while(i < h->n && !(s[i] == '>' && i >= 2 && s[i - 1] == '-' && s[i - 2] == '-'))
      i++;
    h->i = i < h->n ? i + 1 : h->n;
    return true;
  }
  if(i < h->n && (s[i] == '!' || s[i] == '?')) {
    while(i < h->n && s[i] != '>')
      i++;
    h->i = i < h->n ? i + 1 : h->n;
    return true;
  }
  if(i < h->n && s[i] == '/') {
    closing = true;
    i++;
  }
  if(i >= h->n || !((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
    return false;
  while(i < h->n && ((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
                     (s[i] >= '0' && s[i] <= '9'))) {
    if(k < sizeof(name) - 1) {
      char c = s[i];
      name[k++] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    i++;
  }
  name[k] = '\0';
  /* Attributes: a '>' inside a quoted value does not end the tag. */
  while(i < h->n) {
    if(quote) {
      if(s[i] == quote)
        quote = 0;
    } else if(s[i] == '"' || s[i] == '\'')
      quote = s[i];
    else if(s[i] == '>')
      break;
    i++;
  }
  h->i = i < h->n ? i + 1 : h->n;
  element(h, name, closing);
  return true;
}

/* Trailing blanks go, runs of blank lines shrink to one, and blank lines at
 * either end go; but a signature separator keeps its space ("-- ", RFC 3676
 * §4.3), which HTML signatures write as "-- <br>" or "--&nbsp;<br>". */
static int tidy(struct base_buf *out, const char *s, size_t n)
{
  size_t i = 0;
  int blank = 0;
  bool any = false;

  while(i < n && !out->err) {
    const char *nl = memchr(s + i, '\n', n - i);
    size_t len = nl ? (size_t)(nl - (s + i)) : n - i;
    size_t end = len;

    while(end > 0 && (s[i + end - 1] == ' ' || s[i + end - 1] == '\t'))
      end--;
    if(end == 2 && len > 2 && s[i] == '-' && s[i + 1] == '-')
      end = 3;
    if(!end)
      blank++;
    else {
      if((any && blank && base_buf_putc(out, '\n')) || base_buf_add(out, s + i, end) ||
         base_buf_putc(out, '\n'))
        break;
      any = true;
      blank = 0;
    }
    i += len + (nl ? 1 : 0);
  }
  return mail_buf_code(out->err);
}

int mail_html_to_text(struct base_buf *out, const char *html, size_t n)
{
  struct base_buf raw;
  struct html h;
  int rc;

  base_buf_init(&raw, out->max);
  memset(&h, 0, sizeof(h));
  h.out = &raw;
  h.s = html;
  h.n = n;
  h.bol = true;
  while(h.i < h.n && !raw.err) {
    char c = html[h.i];
    size_t k;

    if(c == '<' && tag(&h))
      continue;
    if(c == '&' && entity(&h))
      continue;
    if(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f') {
      if(h.pre && c == '\n')
        put_newline(&h);
      else if(h.pre && c != '\r')
        put_text(&h, &c, 1);
      else if(!h.pre)
        h.space = true;
      h.i++;
      continue;
    }
    /* A run of ordinary text up to the next markup or white space. */
    k = h.i + 1;
    while(k < h.n && html[k] != '<' && html[k] != '&' && html[k] != ' ' && html[k] != '\t' &&
          html[k] != '\n' && html[k] != '\r' && html[k] != '\f')
      k++;
    put_text(&h, html + h.i, k - h.i);
    h.i = k;
  }
  rc = mail_buf_code(raw.err);
  if(!rc)
    rc = tidy(out, raw.s ? raw.s : "", raw.len);
  base_buf_free(&raw);
  return rc;
}
