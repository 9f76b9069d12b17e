/*
 * commands.c: see commands.h. The words are one table; aliases are rows.
 */
#include "commands.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

struct word {
  const char *words; /* one or two lower-case words, space separated */
  enum ref_cmd_kind kind;
};

/* Longest phrases first, so "accept draw" wins over "accept". */
static const struct word table[] = {
  {"draw offer", REF_CMD_DRAW_OFFER},   {"offer draw", REF_CMD_DRAW_OFFER},
  {"draw accept", REF_CMD_DRAW_ACCEPT}, {"accept draw", REF_CMD_DRAW_ACCEPT},
  {"draw decline", REF_CMD_DRAW_DECLINE}, {"decline draw", REF_CMD_DRAW_DECLINE},
  {"draw claim", REF_CMD_DRAW_CLAIM},   {"claim draw", REF_CMD_DRAW_CLAIM},
  {"claim time", REF_CMD_CLAIM_TIME},   {"time claim", REF_CMD_CLAIM_TIME},
  {"no double", REF_CMD_ROLL},
  {"new", REF_CMD_NEW},       {"accept", REF_CMD_ACCEPT}, {"decline", REF_CMD_DECLINE},
  {"reject", REF_CMD_DECLINE},
  {"board", REF_CMD_BOARD},   {"legal", REF_CMD_LEGAL},   {"history", REF_CMD_HISTORY},
  {"resign", REF_CMD_RESIGN}, {"draw", REF_CMD_DRAW_OFFER}, {"double", REF_CMD_DOUBLE},
  {"take", REF_CMD_TAKE},     {"drop", REF_CMD_DROP},     {"roll", REF_CMD_ROLL},
  {"verify", REF_CMD_VERIFY}, {"games", REF_CMD_GAMES},   {"help", REF_CMD_HELP},
  {"preview", REF_CMD_PREVIEW}, {"observe", REF_CMD_OBSERVE},
  {"unobserve", REF_CMD_UNOBSERVE},
  {"vacation", REF_CMD_VACATION}, {"digest", REF_CMD_DIGEST},
  {"ratings", REF_CMD_RATINGS}, {"rating", REF_CMD_RATING},
  {"tournament", REF_CMD_TOURNAMENT}, {"standings", REF_CMD_STANDINGS},
  {"confirm", REF_CMD_CONFIRM},
};

static const char *const names[REF_CMD_LAST] = {
  "new", "accept", "decline", "board", "legal", "history", "resign", "draw offer",
  "draw accept", "draw decline", "draw claim", "double", "take", "drop", "roll",
  "verify", "games", "help", "preview", "observe", "unobserve",
  "vacation", "digest", "claim time", "ratings", "rating", "tournament", "standings",
  "confirm",
};

const char *ref_cmd_name(enum ref_cmd_kind kind)
{
  return (unsigned)kind < REF_CMD_LAST ? names[kind] : "?";
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
 * "with". Keys are lower-cased (any case, issue 6); values are kept as
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
    /* one token; key="a b c" keeps its spaces, the quotes are dropped */
    while(*p && n + 1 < sizeof(tok)) {
      if(*p == '"') {
        quoted = !quoted;
        p++;
        continue;
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
      continue;
    }
    if(!c->arg[0]) {
      for(i = 0; tok[i]; i++)
        tok[i] = (char)tolower((unsigned char)tok[i]);
      snprintf(c->arg, sizeof(c->arg), "%s", tok);
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

static void parse_line(struct ref_cmds *out, const char *line, size_t len)
{
  char buf[256];
  size_t i, m = 0;

  copy_trim(buf, sizeof(buf), line, len);
  {
    /* "game 12: e4" or "game 12" (issue 18): the game a mail without a
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
          parse_line(out, p, strlen(p));
        return;
      }
    }
  }
  {
    /* "board #12" (issue 18): the "#N" right after "board" is the move
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
  if(!buf[0])
    return;
  for(i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
    m = match_phrase(buf, table[i].words);
    if(m)
      break;
  }
  if(m && out->ncmd < REF_CMD_MAX) {
    struct ref_cmd *c = &out->cmd[out->ncmd++];
    const char *rest = buf + m;
    memset(c, 0, sizeof(*c));
    c->kind = table[i].kind;
    snprintf(c->line, sizeof(c->line), "%s", buf);
    while(*rest && (isspace((unsigned char)*rest) || *rest == ':'))
      rest++;
    if(c->kind == REF_CMD_NEW)
      parse_new(c, rest);
    else if(c->kind == REF_CMD_ACCEPT) {
      /* accept [entropy: TEXT] (dice-protocol.md: the text after "entropy:") */
      const char *e = strstr(rest, "entropy:");
      if(!e)
        e = strstr(rest, "Entropy:");
      if(e)
        copy_trim(c->entropy, sizeof(c->entropy), e + 8, strlen(e + 8));
    }
    else
      copy_trim(c->arg, sizeof(c->arg), rest, strlen(rest));
    return;
  }
  if(m)
    return;
  /* "entropy: TEXT" on its own line belongs to an accept in the same mail */
  if(!strncasecmp(buf, "entropy:", 8)) {
    for(i = 0; i < (size_t)out->ncmd; i++)
      if(out->cmd[i].kind == REF_CMD_ACCEPT && !out->cmd[i].entropy[0])
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
       strpbrk(buf, "0123456789") && out->ncmd < REF_CMD_MAX) {
      struct ref_cmd *c = &out->cmd[out->ncmd++];
      memset(c, 0, sizeof(*c));
      c->kind = REF_CMD_ROLL;
      snprintf(c->line, sizeof(c->line), "%s", buf);
      n -= 4;
      while(n && isspace((unsigned char)buf[n - 1]))
        n--;
      buf[n] = '\0';
    }
  }
  /* A move is short; a paragraph of prose is not a candidate. */
  if(strlen(buf) <= 64 && out->ncand < REF_CAND_MAX) {
    memcpy(out->cand[out->ncand], buf, strlen(buf) + 1); /* 65 <= sizeof(cand[0]) */
    out->ncand++;
  }
}

static void parse_text(struct ref_cmds *out, const char *text)
{
  const char *p = text;
  while(p && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    parse_line(out, p, len);
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
    parse_text(out, text);
  if(!out->ncmd && !out->ncand && subject) {
    char s[256];
    subject_payload(s, sizeof(s), subject);
    parse_text(out, s);
    out->from_subject = 1;
  }
}
