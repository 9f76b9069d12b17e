/*
 * commands.c: see commands.h. The commands are one table (REF_COMMAND_TABLE);
 * this file reads their words, with every column of the table but the
 * handlers (dispatch.c pairs those).
 */
#include "commands.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* REF_COMMAND_TABLE without its handlers (commands.h). */
static const struct ref_cmd_row rows[REF_CMD_LAST] = {
#define ROW(k, words, scope, phases, cls, flags, read, run)                                  \
  {REF_CMD_##k, words, REF_SCOPE_##scope, phases, REF_CMD_##cls, flags, REF_READ_##read},
  REF_COMMAND_TABLE(ROW)
#undef ROW
};

const struct ref_cmd_row *ref_cmd_row(enum ref_cmd_kind kind)
{
  return (unsigned)kind < REF_CMD_LAST ? &rows[kind] : NULL;
}

/* The first of its words: "draw offer" for draw offer|offer draw|draw. */
const char *ref_cmd_name(enum ref_cmd_kind kind)
{
  static char names[REF_CMD_LAST][24];
  const char *w;
  size_t n;
  if((unsigned)kind >= REF_CMD_LAST)
    return "?";
  if(!names[kind][0]) {
    w = rows[kind].words;
    n = strcspn(w, "|");
    snprintf(names[kind], sizeof(names[kind]), "%.*s", (int)n, w);
  }
  return names[kind];
}

enum ref_cmd_class ref_cmd_class(const struct ref_cmd *cmd)
{
  /* the list asks; "conditionals clear" drops prepared moves */
  if(cmd->kind == REF_CMD_CONDITIONALS && !strcasecmp(cmd->arg, "clear"))
    return REF_CMD_ACTS;
  return (unsigned)cmd->kind < REF_CMD_LAST ? rows[cmd->kind].cls : REF_CMD_ACTS;
}

static void copy_trim(char *dst, size_t cap, const char *s, size_t len)
{
  while(len && isspace((unsigned char)*s)) {
    s++;
    len--;
  }
  while(len && isspace((unsigned char)s[len - 1]))
    len--;
  if(len >= cap)
    len = cap - 1;
  memcpy(dst, s, len);
  dst[len] = '\0';
}

/* Does `line` start with the phrase `words` (case-insensitive, whole
 * words)? Returns the length matched, or 0. */
static size_t match_phrase(const char *line, const char *words)
{
  const char *p = line, *w = words;
  while(*w) {
    if(*w == ' ') {
      if(!isspace((unsigned char)*p))
        return 0;
      while(isspace((unsigned char)*p))
        p++;
      w++;
      continue;
    }
    if(tolower((unsigned char)*p) != *w)
      return 0;
    p++;
    w++;
  }
  /* a whole word: "newer" is not "new", "draw," is "draw" */
  if(isalnum((unsigned char)*p))
    return 0;
  return (size_t)(p - line);
}

static void add_option(struct ref_cmd *c, const char *word)
{
  size_t used = strlen(c->options);
  if(used + strlen(word) + 2 > sizeof(c->options))
    c->options_cut = 1; /* do_new refuses rather than set up a cut position */
  snprintf(c->options + used, sizeof(c->options) - used, "%s%s", used ? ";" : "", word);
}

/* new GAME [as SEAT] [key=value ...] with ADDRESS [, ADDRESS ...]
 *
 * Options are split on white space only, so a value may hold commas (a PDN
 * position, B:W18,24:B12) and, quoted or simply continued, spaces: a FEN's
 * six fields after "fen=" are one value up to the next key=value, "as" or
 * "with". Keys are lower-cased (any case); values are kept as
 * written (a FEN is case-sensitive). */
static void parse_new(struct ref_cmd *c, const char *rest)
{
  char buf[256], tok[256];
  const char *p;
  int seen_with = 0, pending_as = 0, open_value = 0;

  copy_trim(buf, sizeof(buf), rest, strlen(rest));
  p = buf;
  for(;;) {
    size_t n = 0, i;
    int quoted = 0;
    while(*p && (isspace((unsigned char)*p) || (seen_with && (*p == ',' || *p == ';'))))
      p++;
    if(!*p)
      break;
    /* one token; key="a b c" keeps its spaces, the quotes are dropped;
     * an address keeps them: it is read as written, never repaired
     * (mail_addr_invitee refuses what is no plain address) */
    while(*p && n + 1 < sizeof(tok)) {
      if(*p == '"') {
        quoted = !quoted;
        if(!seen_with) {
          p++;
          continue;
        }
      }
      if(!quoted && (isspace((unsigned char)*p) || (seen_with && (*p == ',' || *p == ';'))))
        break;
      tok[n++] = *p++;
    }
    tok[n] = '\0';
    /* "fide_draws=off," : a list comma is not part of the value */
    while(n && !seen_with && (tok[n - 1] == ',' || tok[n - 1] == ';'))
      tok[--n] = '\0';
    if(!n)
      continue;
    if(!seen_with && !strcasecmp(tok, "with")) {
      seen_with = 1;
      open_value = 0;
      continue;
    }
    /* "as black" may stand before or after the addresses */
    if(!strcasecmp(tok, "as") || pending_as) {
      add_option(c, tok);
      pending_as = !pending_as;
      open_value = 0;
      continue;
    }
    if(seen_with) {
      char *t = tok;
      if(!strcasecmp(t, "and"))
        continue;
      if(c->nwith < REF_WITH_MAX) {
        /* <addr> and mailto: forms are common when clients autolink */
        if(*t == '<')
          t++;
        if(!strncasecmp(t, "mailto:", 7))
          t += 7;
        /* ...and Outlook's plain text writes a link as "a@b.c<mailto:a@b.c>" */
        copy_trim(c->with[c->nwith], sizeof(c->with[0]), t, strcspn(t, "<>"));
        for(i = 0; c->with[c->nwith][i]; i++)
          c->with[c->nwith][i] = (char)tolower((unsigned char)c->with[c->nwith][i]);
        c->nwith++;
      }
      else
        c->with_more = 1; /* no game has that many seats: refused, never cut */
      continue;
    }
    if(!c->arg[0]) {
      for(i = 0; tok[i]; i++)
        tok[i] = (char)tolower((unsigned char)tok[i]);
      snprintf(c->arg, sizeof(c->arg), "%s", tok);
      continue;
    }
    /* the service's words end a value with spaces: "days=3 unrated" is
     * two words, not days "3 unrated" */
    if(!strcasecmp(tok, "rated") || !strcasecmp(tok, "unrated") ||
       !strcasecmp(tok, "private") || !strcasecmp(tok, "public-comments")) {
      add_option(c, tok);
      open_value = 0;
      continue;
    }
    if(strchr(tok, '=')) {
      for(i = 0; tok[i] != '='; i++)
        tok[i] = (char)tolower((unsigned char)tok[i]);
      add_option(c, tok);
      open_value = 1;
      continue;
    }
    if(open_value) {
      /* the next field of a value with spaces: fen=8/8/... w - - 0 1 */
      size_t used = strlen(c->options);
      if(used + strlen(tok) + 2 > sizeof(c->options))
        c->options_cut = 1;
      snprintf(c->options + used, sizeof(c->options) - used, " %s", tok);
      continue;
    }
    add_option(c, tok); /* an unknown word: do_new refuses it by name */
  }
}

/* "#N" as a word anywhere in the line: the move-number guard. Taken out
 * of the line; "Qxf7#" is mate, not a guard (no space before the '#'). */
static void take_guard(struct ref_cmds *out, char *buf)
{
  size_t i;
  for(i = 0; buf[i]; i++) {
    size_t j = i + 1;
    long n = 0;
    if(buf[i] != '#' || (i && !isspace((unsigned char)buf[i - 1])) ||
       !isdigit((unsigned char)buf[j]))
      continue;
    while(isdigit((unsigned char)buf[j]) && n < 1000000)
      n = n * 10 + (buf[j++] - '0');
    if(isalnum((unsigned char)buf[j])) /* "#3x" is not a number word */
      continue;
    if(out->guard >= 0 && out->guard != (int)n)
      out->guard_conflict = 1;
    out->guard = (int)n;
    memset(buf + i, ' ', j - i);
  }
}

/* Whether "then" stands in `s` as a word of its own. */
static int has_then(const char *s)
{
  const char *p;
  for(p = s; *p; p++)
    if((p == s || isspace((unsigned char)p[-1])) && !strncasecmp(p, "then", 4) &&
       (!p[4] || isspace((unsigned char)p[4])))
      return 1;
  return 0;
}

/* ---- prose ---- */

/* A line of prose kept for the opponent, trimmed; blank lines are kept
 * (paragraphs), but not before the first line. */
static void add_prose(struct ref_cmds *out, const char *s, size_t len, int cand)
{
  struct ref_prose_line *l;
  size_t used;
  while(len && isspace((unsigned char)*s)) {
    s++;
    len--;
  }
  while(len && isspace((unsigned char)s[len - 1]))
    len--;
  if(!len && !out->nprose)
    return;
  if(out->nprose >= REF_PROSE_LINES) {
    out->prose_more |= len > 0;
    return;
  }
  l = &out->pline[out->nprose];
  used = out->nprose ? out->pline[out->nprose - 1].off + out->pline[out->nprose - 1].len : 0;
  if(len > sizeof(out->prose) - used) {
    out->prose_more = 1;
    len = sizeof(out->prose) - used;
    /* never half a UTF-8 character */
    while(len && ((unsigned char)s[len] & 0xc0) == 0x80)
      len--;
    if(!len)
      return;
  }
  memcpy(out->prose + used, s, len);
  l->cand = cand;
  l->off = (unsigned)used;
  l->len = (unsigned)len;
  out->nprose++;
}

/* "comments on" / "comments off", nothing else: "Comments welcome!" is
 * prose. */
static int comments_word(const char *rest)
{
  char w[8];
  size_t n;
  while(isspace((unsigned char)*rest) || *rest == ':')
    rest++;
  n = strlen(rest);
  while(n && (isspace((unsigned char)rest[n - 1]) || rest[n - 1] == '.' || rest[n - 1] == '!'))
    n--;
  if(n >= sizeof(w))
    return 0;
  memcpy(w, rest, n);
  w[n] = '\0';
  return !strcasecmp(w, "on") || !strcasecmp(w, "off");
}

/* What ends a command's own words: the rest of the line is the player's. */
static const char clause_break[] = ".!,;";

static int bare_end(const char *p)
{
  for(; *p; p++)
    if(!isspace((unsigned char)*p) && !strchr(clause_break, *p))
      return 0;
  return 1;
}

/* A command that acts on the game and takes no words of its own stands
 * alone on its line: only spaces and a clause break may follow it (after a
 * break, the player's words: parse_line).
 * "Take your time." is a sentence, not a take; "Drop me a line", "Roll on
 * summer", "Draw your own conclusions", "Double-check" are prose (a
 * sentence to the opponent must never change the game).
 * Missing a command is recoverable (the player is told nothing was found),
 * applying one nobody asked for is not: so the list errs on the side of
 * prose. `rest` is what follows the command word(s); the words a command
 * does take are allowed: "resign gammon", "accept entropy: ...".
 * The read column says it (commands.h): REF_READ_NONE, and for accept's
 * "entropy: TEXT" and resign's match|gammon|backgammon their own words. */
static int takes_no_words(enum ref_cmd_kind kind)
{
  enum ref_cmd_read r = rows[kind].read;
  return r == REF_READ_NONE || r == REF_READ_ENTROPY || r == REF_READ_LEVEL;
}

static int stands_alone(enum ref_cmd_kind kind, const char *rest)
{
  static const char *const resign_words[] = {"match", "gammon", "backgammon"};
  size_t i, n;
  while(isspace((unsigned char)*rest) || *rest == ':')
    rest++;
  if(!takes_no_words(kind) || bare_end(rest))
    return 1;
  if(rows[kind].read == REF_READ_ENTROPY) /* accept [entropy: TEXT] (dice-protocol.md) */
    return !strncasecmp(rest, "entropy:", 8);
  if(rows[kind].read == REF_READ_LEVEL) { /* resign [match|gammon|backgammon] (BG-5) */
    for(i = 0; i < sizeof(resign_words) / sizeof(resign_words[0]); i++) {
      n = strlen(resign_words[i]);
      if(!strncasecmp(rest, resign_words[i], n) && bare_end(rest + n))
        return 1;
    }
  }
  return 0;
}

/* A command line the mail holds past REF_CMD_MAX: counted and the first
 * kept, so that the reply names what was not read (rules-spec MX-1). */
static void not_read(struct ref_cmds *out, const char *line)
{
  if(!out->cmd_more++)
    snprintf(out->cmd_more_line, sizeof(out->cmd_more_line), "%.*s",
             (int)sizeof(out->cmd_more_line) - 1, line);
}

static void parse_line(struct ref_cmds *out, const char *line, size_t len, int prose)
{
  char buf[256];
  size_t i, m = 0;
  int r;
  enum ref_cmd_kind kind = REF_CMD_LAST;
  /* the prose as written: the line less its guard when it fits buf, else
   * the line itself (a long paragraph is prose, never a command) */
  int whole = len < sizeof(buf) - 1;

  copy_trim(buf, sizeof(buf), line, len);
  {
    /* "game 12: e4" or "game 12": the game a mail without a
     * key is for; the rest of the line is a line of its own (its own
     * guard, its own "board #N"). Not a row of the table: it names a
     * game, it does nothing. */
    size_t g = match_phrase(buf, "game");
    if(g) {
      const char *p = buf + g;
      long long n = 0;
      int digits = 0;
      while(isspace((unsigned char)*p))
        p++;
      for(; isdigit((unsigned char)*p) && digits < 18; p++, digits++)
        n = n * 10 + (*p - '0');
      if(digits && n > 0 && !isalnum((unsigned char)*p)) {
        while(isspace((unsigned char)*p) || *p == ':')
          p++;
        if(out->game && out->game != n)
          out->game_conflict = 1;
        out->game = n;
        if(*p)
          parse_line(out, p, strlen(p), prose);
        return;
      }
    }
  }
  {
    /* "board #12": the "#N" right after "board" is the move
     * whose board is asked for, not the guard; a later "#N" still is. */
    size_t skip = match_phrase(buf, "board");
    if(skip) {
      size_t j = skip;
      while(isspace((unsigned char)buf[j]))
        j++;
      if(buf[j] == '#' && isdigit((unsigned char)buf[j + 1])) {
        for(j++; isdigit((unsigned char)buf[j]); j++)
          ;
        skip = j;
      }
      else
        skip = 0;
    }
    take_guard(out, buf + skip);
  }
  {
    char tmp[256];
    memcpy(tmp, buf, sizeof(tmp));
    copy_trim(buf, sizeof(buf), tmp, strlen(tmp));
  }
  if(!buf[0]) {
    if(prose)
      add_prose(out, "", 0, -1);
    return;
  }
  /* the longest of the table's phrases that starts the line: "accept
   * draw" over "accept" */
  for(r = 0; r < REF_CMD_LAST; r++) {
    const char *w = rows[r].words;
    while(*w) {
      char phrase[32];
      size_t n = strcspn(w, "|"), got;
      snprintf(phrase, sizeof(phrase), "%.*s", (int)n, w);
      got = match_phrase(buf, phrase);
      if(got > m) {
        m = got;
        kind = (enum ref_cmd_kind)r;
      }
      w += n + (w[n] == '|');
    }
  }
  /* "if ... then ..." is a prepared line only with its "then";
   * "If you agree, ..." stays prose */
  if(m && rows[kind].read == REF_READ_THEN && !has_then(buf + m))
    m = 0;
  if(m && rows[kind].read == REF_READ_ONOFF && !comments_word(buf + m))
    m = 0;
  /* "give 3 days" gives time; "give up the game ..." is a sentence */
  if(m && rows[kind].read == REF_READ_AMOUNT &&
     !isdigit((unsigned char)buf[m + strspn(buf + m, " \t:")]))
    m = 0;
  /* "Accept, thanks!", "Resign. Good game!": a bare command whose own
   * words end at a clause break (. ! , ;) is a command, and what follows
   * the break is the player's words, kept as prose. Only a command word
   * followed straight by a word of the sentence ("Take your time.") is
   * prose as a whole. accept's "entropy:" text is its own, commas and all. */
  if(m && takes_no_words(kind) &&
     strncasecmp(buf + m + strspn(buf + m, " \t:"), "entropy:", 8)) {
    char *brk = strpbrk(buf + m, clause_break);
    if(brk && !bare_end(brk)) {
      char own[256], *tail = brk + 1;
      size_t k = (size_t)(brk - (buf + m));
      memcpy(own, buf + m, k);
      own[k] = '\0';
      while(*tail && (isspace((unsigned char)*tail) || strchr(clause_break, *tail)))
        tail++;
      if(stands_alone(kind, own)) {
        if(prose)
          add_prose(out, tail, strlen(tail), -1);
        *brk = '\0'; /* the command is the line up to its break */
      }
      else
        m = 0; /* "resign gammon please, ...": a sentence, whole */
    }
  }
  if(m && !stands_alone(kind, buf + m))
    m = 0;
  if(m && out->ncmd >= REF_CMD_MAX) {
    /* a command past what one mail holds: never dropped in silence, the
     * mail is refused whole naming it (dispatch.c) */
    not_read(out, buf);
    return;
  }
  if(m && rows[kind].read != REF_READ_TEXT) {
    /* a command line longer than buf was cut by copy_trim: its last
     * words (an address, an option) would be read cut short */
    size_t a = 0, b = len;
    while(a < b && isspace((unsigned char)line[a]))
      a++;
    while(b > a && isspace((unsigned char)line[b - 1]))
      b--;
    if(b - a >= sizeof(buf) - 1) {
      if(!out->cmd_long++)
        snprintf(out->cmd_long_line, sizeof(out->cmd_long_line), "%.*s ...",
                 (int)sizeof(out->cmd_long_line) - 5, buf);
      return;
    }
  }
  if(m && rows[kind].read == REF_READ_TEXT) {
    /* message TEXT: the text is the mail's prose like any other line */
    struct ref_cmd *c = &out->cmd[out->ncmd++];
    const char *rest = buf + m;
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    snprintf(c->line, sizeof(c->line), "%s", buf);
    if(!whole) {
      size_t skip = 0;
      while(skip < len && isspace((unsigned char)line[skip]))
        skip++;
      rest = line + skip + m;
      len -= skip + m;
    }
    else
      len = strlen(rest);
    while(len && (isspace((unsigned char)*rest) || *rest == ':')) {
      rest++;
      len--;
    }
    if(prose)
      add_prose(out, rest, len, -1);
    return;
  }
  if(m) {
    struct ref_cmd *c = &out->cmd[out->ncmd++];
    const char *rest = buf + m;
    memset(c, 0, sizeof(*c));
    c->kind = kind;
    snprintf(c->line, sizeof(c->line), "%s", buf);
    while(*rest && (isspace((unsigned char)*rest) || *rest == ':'))
      rest++;
    /* seek GAME [options]: the same words as new, no "with" */
    if(rows[kind].read == REF_READ_TERMS)
      parse_new(c, rest);
    else if(rows[kind].read == REF_READ_ENTROPY) {
      /* accept [entropy: TEXT] (dice-protocol.md: the text after "entropy:") */
      const char *e = strstr(rest, "entropy:");
      if(!e)
        e = strstr(rest, "Entropy:");
      if(e)
        copy_trim(c->entropy, sizeof(c->entropy), e + 8, strlen(e + 8));
    }
    else
      copy_trim(c->arg, sizeof(c->arg), rest, strlen(rest));
    /* a command that stands alone (it refuses a word "x"): "resign
     * gammon." / "draw.": the closing punctuation is no word of its own;
     * the other commands keep their words as written */
    if(takes_no_words(c->kind)) {
      size_t n = strlen(c->arg);
      while(n && (strchr(clause_break, c->arg[n - 1]) || isspace((unsigned char)c->arg[n - 1])))
        c->arg[--n] = '\0';
    }
    return;
  }
  /* "entropy: TEXT" on its own line belongs to an accept in the same mail */
  if(!strncasecmp(buf, "entropy:", 8)) {
    for(i = 0; i < (size_t)out->ncmd; i++)
      if(rows[out->cmd[i].kind].read == REF_READ_ENTROPY && !out->cmd[i].entropy[0])
        copy_trim(out->cmd[i].entropy, sizeof(out->cmd[i].entropy), buf + 8,
                  strlen(buf + 8));
    return;
  }
  /* "13/7 8/7 roll": a play with the standing answer to the next cube
   * question after it (rules-spec §1.6, help-backgammon.txt): the play is
   * the candidate, "roll" a command of its own. Only after something
   * written like a dice game's play (a point, a '/'), so that prose such
   * as "rock and roll" stays prose. */
  {
    size_t n = strlen(buf);
    if(n > 5 && n <= 64 + 5 && !strcasecmp(buf + n - 4, "roll") &&
       isspace((unsigned char)buf[n - 5]) && memchr(buf, '/', n - 5) &&
       strpbrk(buf, "0123456789")) {
      struct ref_cmd *c;
      if(out->ncmd >= REF_CMD_MAX) {
        not_read(out, buf);
        return;
      }
      c = &out->cmd[out->ncmd++];
      memset(c, 0, sizeof(*c));
      c->kind = REF_CMD_ROLL;
      snprintf(c->line, sizeof(c->line), "%s", buf);
      n -= 4;
      while(n && isspace((unsigned char)buf[n - 1]))
        n--;
      buf[n] = '\0';
    }
  }
  /* A move is short; a paragraph of prose is not a candidate. Either
   * may be the player's words to the opponent: a candidate
   * that makes the turn is left out of them later (ref_prose_text). */
  if(strlen(buf) <= 64 && out->ncand < REF_CAND_MAX) {
    if(prose)
      add_prose(out, buf, strlen(buf), out->ncand);
    memcpy(out->cand[out->ncand], buf, strlen(buf) + 1); /* 65 <= sizeof(cand[0]) */
    out->ncand++;
  }
  else if(prose)
    add_prose(out, whole ? buf : line, whole ? strlen(buf) : len, -1);
}

static void parse_text(struct ref_cmds *out, const char *text, int prose)
{
  const char *p = text;
  while(p && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    parse_line(out, p, len, prose);
    p = nl ? nl + 1 : p + len;
  }
}

/* The subject less "Re:"/"Fwd:" prefixes and the "[tabula N TOKEN]" tag. */
static void subject_payload(char *dst, size_t cap, const char *subject)
{
  const char *p = subject;
  const char *tag;
  for(;;) {
    while(isspace((unsigned char)*p))
      p++;
    if(!strncasecmp(p, "re:", 3) || !strncasecmp(p, "aw:", 3) || !strncasecmp(p, "sv:", 3))
      p += 3;
    else if(!strncasecmp(p, "fwd:", 4))
      p += 4;
    else if(!strncasecmp(p, "fw:", 3))
      p += 3;
    else
      break;
  }
  tag = strstr(p, "[tabula");
  if(tag) {
    const char *close = strchr(tag, ']');
    if(close && tag == p)
      p = close + 1;
    else if(close) {
      /* text before the tag only */
      copy_trim(dst, cap, p, (size_t)(tag - p));
      return;
    }
  }
  copy_trim(dst, cap, p, strlen(p));
}

void ref_commands_parse(struct ref_cmds *out, const char *text, const char *subject)
{
  memset(out, 0, sizeof(*out));
  out->guard = -1;
  if(text)
    parse_text(out, text, 1);
  if(!out->ncmd && !out->ncand && subject) {
    char s[256];
    subject_payload(s, sizeof(s), subject);
    /* the subject is never prose: it is the thread's, not this mail's */
    parse_text(out, s, 0);
    out->from_subject = 1;
  }
}

/* ---- the comment passed on ---- */

struct span {
  const char *p;
  size_t n;
};

/* The line's words, lower-cased, punctuation (",.!:;") as separators:
 * at most `max` words of up to 31 bytes; *caps says how many of them
 * after `from` start with a capital letter as written. */
static int words_of(struct span l, char w[][32], int max, int from, int *caps)
{
  size_t i = 0;
  int n = 0;
  *caps = 0;
  while(i < l.n) {
    size_t k = 0;
    while(i < l.n && (isspace((unsigned char)l.p[i]) || strchr(",.!:;", l.p[i])))
      i++;
    if(i >= l.n)
      break;
    if(n >= max)
      return max + 1;
    if(n >= from && isupper((unsigned char)l.p[i]))
      (*caps)++;
    while(i < l.n && !isspace((unsigned char)l.p[i]) && !strchr(",.!:;", l.p[i])) {
      if(k + 1 < sizeof(w[0]))
        w[n][k++] = (char)tolower((unsigned char)l.p[i]);
      i++;
    }
    w[n][k] = '\0';
    n++;
  }
  return n;
}

/* "Hi Ben," "Dear Ben Smith" "Hello!" "Good morning, Ben": a greeting
 * word and at most two names (capitalized as written). "Hey, good luck!"
 * is not one: its words are no names. */
static int is_greeting(struct span l)
{
  static const char *const hello[] = {"hi", "hello", "hey", "dear", "hallo", "hola",
                                      "greetings", "howdy", "moin", "bonjour", "salut"};
  char w[5][32];
  int caps, n, first = 1;
  size_t i;
  if(l.n > 40)
    return 0;
  n = words_of(l, w, 4, 1, &caps);
  if(n < 1 || n > 4)
    return 0;
  if(n >= 2 && !strcmp(w[0], "good") &&
     (!strcmp(w[1], "morning") || !strcmp(w[1], "afternoon") || !strcmp(w[1], "evening"))) {
    first = 2;
    n = words_of(l, w, 4, 2, &caps);
  }
  else {
    for(i = 0; i < sizeof(hello) / sizeof(hello[0]); i++)
      if(!strcmp(w[0], hello[i]))
        break;
    if(i == sizeof(hello) / sizeof(hello[0]))
      return 0;
  }
  return n - first <= 2 && caps == n - first;
}

/* The closing words alone ("Cheers", "Best regards,") when names is 0;
 * with names, the closing and at most two names ("Cheers, Alice"). */
static int is_closing(struct span l, int with_names)
{
  static const char *const bye[] = {
    "cheers", "best", "regards", "best regards", "kind regards", "warm regards",
    "best wishes", "all the best", "yours", "yours truly", "sincerely", "yours sincerely",
    "thanks", "many thanks", "thank you", "ciao", "bye", "take care", "love", "greetings"};
  char w[6][32], lead[100];
  int caps, n, k;
  size_t i;
  if(l.n > 60)
    return 0;
  n = words_of(l, w, 5, 0, &caps);
  if(n < 1 || n > 5)
    return 0;
  for(k = n < 3 ? n : 3; k >= 1; k--) {
    int j, after;
    lead[0] = '\0';
    for(j = 0; j < k; j++)
      snprintf(lead + strlen(lead), sizeof(lead) - strlen(lead), "%s%s", j ? " " : "", w[j]);
    for(i = 0; i < sizeof(bye) / sizeof(bye[0]); i++)
      if(!strcmp(lead, bye[i]))
        break;
    if(i == sizeof(bye) / sizeof(bye[0]))
      continue;
    if(!with_names)
      return n == k;
    words_of(l, w, 5, k, &after);
    return n - k <= 2 && after == n - k;
  }
  return 0;
}

/* A line that is only a name: one or two capitalized words ("Alice"). */
static int is_name(struct span l)
{
  char w[3][32];
  int caps, n;
  if(l.n > 40)
    return 0;
  n = words_of(l, w, 2, 0, &caps);
  return n >= 1 && n <= 2 && caps == n;
}

/* Bytes of one UTF-8 character at p (1 for a stray byte). */
static size_t char_len(const unsigned char *p, size_t left)
{
  size_t n = *p < 0xc0 ? 1 : *p < 0xe0 ? 2 : *p < 0xf0 ? 3 : 4;
  size_t i;
  if(n > left)
    return 1;
  for(i = 1; i < n; i++)
    if((p[i] & 0xc0) != 0x80)
      return 1;
  return n;
}

/* The line with control characters taken out: C0 (a tab is a space), DEL,
 * C1 (U+0080..U+009F) and the bidirectional overrides and isolates
 * (U+202A..U+202E, U+2066..U+2069), which could make the text read other
 * than it is. */
static size_t sanitize(char *dst, size_t cap, struct span l)
{
  size_t i = 0, n = 0;
  const unsigned char *p = (const unsigned char *)l.p;
  while(i < l.n) {
    size_t c = char_len(p + i, l.n - i);
    int drop = 0, space = 0;
    if(c == 1) {
      drop = p[i] < 0x20 || p[i] == 0x7f || p[i] >= 0x80; /* >= 0x80: a stray byte */
      space = p[i] == '\t';
    }
    else if(c == 2)
      drop = p[i] == 0xc2 && p[i + 1] < 0xa0;
    else if(c == 3)
      drop = p[i] == 0xe2 && ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
                              (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9));
    if(space && n + 1 < cap)
      dst[n++] = ' ';
    if(!drop && n + c < cap) {
      memcpy(dst + n, p + i, c);
      n += c;
    }
    i += c;
  }
  while(n && dst[n - 1] == ' ')
    n--;
  dst[n] = '\0';
  return n;
}

struct writer {
  char *out;
  size_t cap, len;
  int lines, bytes, cut;
  const char *prefix, *cutline;
};

static void put_line(struct writer *w, const char *s, size_t n)
{
  if(w->cut)
    return;
  if(w->lines >= REF_COMMENT_LINES || w->bytes + (int)n > REF_COMMENT_BYTES) {
    w->cut = 1;
    snprintf(w->out + w->len, w->cap - w->len, "%s%s\n", w->prefix, w->cutline);
    w->len += strlen(w->out + w->len);
    return;
  }
  snprintf(w->out + w->len, w->cap - w->len, "%s%.*s\n", n ? w->prefix : "", (int)n, s);
  w->len += strlen(w->out + w->len);
  w->lines++;
  w->bytes += (int)n;
}

/* One line wrapped at REF_COMMENT_WIDTH bytes: at the last space before,
 * else (one long word) at a character's boundary. */
static void put_wrapped(struct writer *w, const char *s, size_t n)
{
  while(n > REF_COMMENT_WIDTH && !w->cut) {
    size_t at = REF_COMMENT_WIDTH, next;
    while(at > 0 && s[at] != ' ')
      at--;
    if(at == 0) {
      at = REF_COMMENT_WIDTH;
      while(at > 0 && ((unsigned char)s[at] & 0xc0) == 0x80)
        at--;
      next = at;
    }
    else
      next = at + 1;
    put_line(w, s, at);
    s += next;
    n -= next;
    while(n && *s == ' ') {
      s++;
      n--;
    }
  }
  if(!w->cut)
    put_line(w, s, n);
}

void ref_prose_text(char *out, size_t cap, const struct ref_cmds *cmds, int skip_start,
                    int skip_len, const char *prefix, const char *cut)
{
  struct span l[REF_PROSE_LINES];
  struct writer w;
  char line[REF_PROSE_BYTES + 1];
  int n = 0, i, first, last, blank = 0;

  out[0] = '\0';
  for(i = 0; i < cmds->nprose; i++) {
    const struct ref_prose_line *p = &cmds->pline[i];
    if(p->cand >= 0 && p->cand >= skip_start && p->cand < skip_start + skip_len)
      continue;
    l[n].p = cmds->prose + p->off;
    l[n].n = p->len;
    n++;
  }
  first = 0;
  last = n - 1;
  while(first <= last && !l[first].n)
    first++;
  while(last >= first && !l[last].n)
    last--;
  if(first > last)
    return;
  /* a bare greeting and a bare closing, when words are left between */
  if(first < last && is_greeting(l[first]))
    for(first++; first < last && !l[first].n; first++)
      ;
  if(first < last) {
    int prev = last - 1;
    while(prev > first && !l[prev].n)
      prev--;
    if(is_name(l[last]) && prev > first && is_closing(l[prev], 0))
      last = prev - 1;
    else if(is_closing(l[last], 1))
      last--;
    while(last > first && !l[last].n)
      last--;
  }
  memset(&w, 0, sizeof(w));
  w.out = out;
  w.cap = cap;
  w.prefix = prefix;
  w.cutline = cut;
  for(i = first; i <= last && !w.cut; i++) {
    size_t len = sanitize(line, sizeof(line), l[i]);
    /* one blank line between paragraphs, none at either end */
    if(!len) {
      blank = w.lines > 0;
      continue;
    }
    if(blank)
      put_line(&w, "", 0);
    blank = 0;
    put_wrapped(&w, line, len);
  }
  if(cmds->prose_more && !w.cut) {
    w.lines = REF_COMMENT_LINES;
    put_line(&w, "", 0);
  }
  /* nothing but control characters: nothing to pass */
  if(!w.lines && !w.cut)
    out[0] = '\0';
}
