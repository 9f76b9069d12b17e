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
  {"no double", REF_CMD_ROLL},
  {"new", REF_CMD_NEW},       {"accept", REF_CMD_ACCEPT}, {"decline", REF_CMD_DECLINE},
  {"reject", REF_CMD_DECLINE},
  {"board", REF_CMD_BOARD},   {"legal", REF_CMD_LEGAL},   {"history", REF_CMD_HISTORY},
  {"resign", REF_CMD_RESIGN}, {"draw", REF_CMD_DRAW_OFFER}, {"double", REF_CMD_DOUBLE},
  {"take", REF_CMD_TAKE},     {"drop", REF_CMD_DROP},     {"roll", REF_CMD_ROLL},
  {"verify", REF_CMD_VERIFY}, {"games", REF_CMD_GAMES},   {"help", REF_CMD_HELP},
};

static const char *const names[REF_CMD_LAST] = {
  "new", "accept", "decline", "board", "legal", "history", "resign", "draw offer",
  "draw accept", "draw decline", "draw claim", "double", "take", "drop", "roll",
  "verify", "games", "help",
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

/* new GAME [key=value ...] with ADDRESS [, ADDRESS ...] */
static void parse_new(struct ref_cmd *c, const char *rest)
{
  char buf[256], *save = NULL, *tok;
  int seen_with = 0;

  int pending_as = 0;

  copy_trim(buf, sizeof(buf), rest, strlen(rest));
  for(tok = strtok_r(buf, " \t,;", &save); tok; tok = strtok_r(NULL, " \t,;", &save)) {
    size_t i;
    if(!seen_with && !strcasecmp(tok, "with")) {
      seen_with = 1;
      continue;
    }
    /* "as black" may stand before or after the addresses */
    if(!strcasecmp(tok, "as") || pending_as) {
      size_t used = strlen(c->options);
      snprintf(c->options + used, sizeof(c->options) - used, "%s%s", used ? ";" : "", tok);
      pending_as = !pending_as;
      continue;
    }
    if(seen_with) {
      if(!strcasecmp(tok, "and"))
        continue;
      if(c->nwith < REF_WITH_MAX) {
        /* <addr> and mailto: forms are common when clients autolink */
        if(*tok == '<')
          tok++;
        if(!strncasecmp(tok, "mailto:", 7))
          tok += 7;
        copy_trim(c->with[c->nwith], sizeof(c->with[0]), tok, strcspn(tok, ">"));
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
    }
    else if(strchr(tok, '=')) {
      size_t used = strlen(c->options);
      snprintf(c->options + used, sizeof(c->options) - used, "%s%s", used ? ";" : "", tok);
    }
    else {
      /* "as black" and the like: kept as an option word */
      size_t used = strlen(c->options);
      snprintf(c->options + used, sizeof(c->options) - used, "%s%s", used ? ";" : "", tok);
    }
  }
}

static void parse_line(struct ref_cmds *out, const char *line, size_t len)
{
  char buf[256];
  size_t i, m = 0;

  copy_trim(buf, sizeof(buf), line, len);
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
  if(text)
    parse_text(out, text);
  if(!out->ncmd && !out->ncand && subject) {
    char s[256];
    subject_payload(s, sizeof(s), subject);
    parse_text(out, s);
    out->from_subject = 1;
  }
}
