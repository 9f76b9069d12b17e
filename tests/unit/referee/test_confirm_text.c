/*
 * test_confirm_text.c: a confirmation request never holds the line that
 * confirms it (rules-spec OPT-1). An auto-responder that ignores RFC 3834
 * copies the request back unquoted, perhaps rewrapped; were the word
 * confirm on a line of its own anywhere in that copy, the copy would
 * confirm what a forger asked. Each request template (confirm-new.txt,
 * confirm-observe.txt, keyless-confirm.txt, from the source tree), rendered
 * with every placeholder filled, is read by the command reader as written
 * and rewrapped at every width from 20 to 100 columns, as a responder or a
 * mail program may wrap it: no line reads as "confirm". The request still
 * names the word, so the person knows what to write.
 */
#include "commands.h"
#include "templates.h"
#include "unit_run.h"

#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define TEMPLATES TABULA_SOURCE_DIR "/templates"

static const struct tpl_var vars[] = {
  {"request", "    resign\n    #3"},
  {"referee", "referee@example.org"},
  {"expires", "2026-11-26 09:00 UTC"},
  {"game", "12"},
  {"title", "Chess"},
  {"players", "White alice@example.org, Black bob@example.org"},
  {"seat", "White"},
  {"first", "resign"},
  {"what", "do \"resign\""},
  {"where", "in game 12"},
  {"where_long", "in game 12 (Chess, you as White)"},
  {"guard", "#3"},
  {"board", "  a b c d e f g h\n8 r n b q k b n r 8"},
};

/* What a line must not hold: a confirm (the requests), or any command
 * that is not a query (every template's own words). */
static int only_confirm = 1;

/* A command a line of prose could get done: one that changes something
 * (not a query) and needs no words a sentence would not supply. The
 * commands whose words name a game, dates or a line ("new", "seek",
 * "tournament", "observe", "vacation", "if", "comments", "digest") are
 * refused when read out of a sentence. */
static int acts(const struct ref_cmd *c)
{
  switch(c->kind) {
  case REF_CMD_NEW:
  case REF_CMD_SEEK:
  case REF_CMD_TOURNAMENT:
  case REF_CMD_OBSERVE:
  case REF_CMD_VACATION:
  case REF_CMD_IF:
  case REF_CMD_COMMENTS:
  case REF_CMD_DIGEST: return 0;
  case REF_CMD_UNSEEK:
  case REF_CMD_UNOBSERVE: {
    /* their word is a game's or a seek's number, or none (cmd_seek.c,
     * cmd_observe.c refuse any other) */
    const char *a = c->arg;
    if(!strncasecmp(a, "game ", 5))
      a += 5;
    a += *a == '#';
    return !a[0] || strspn(a, "0123456789") == strlen(a);
  }
  default: return ref_cmd_class(c) != REF_CMD_ASKS;
  }
}

/* The line (len bytes) read alone: whether it holds what it must not. */
static int confirms(const char *line, size_t len)
{
  char buf[1024];
  struct ref_cmds c;
  int i;

  ck_assert_uint_lt(len, sizeof(buf));
  memcpy(buf, line, len);
  buf[len] = '\0';
  ref_commands_parse(&c, buf, NULL);
  for(i = 0; i < c.ncmd; i++)
    if(c.cmd[i].kind == REF_CMD_CONFIRM || (!only_confirm && acts(&c.cmd[i])))
      return 1;
  return 0;
}

/* Each line that would act is told on stderr, once per template and
 * line; the tests fail when any was. */
static int nfound;
static char last_found[1024];

static void found(const char *name, size_t width, const char *line, size_t n)
{
  char what[1024];
  snprintf(what, sizeof(what), "%s: %.*s", name, (int)n, line);
  nfound++;
  if(strcmp(what, last_found))
    fprintf(stderr, "%s%s%zu columns: the line \"%.*s\" would act\n", name,
            width ? " at " : ": as written, ", width, (int)n, line);
  snprintf(last_found, sizeof(last_found), "%s", what);
}

/* Each line of text as written. */
static void check_lines(const char *name, const char *text)
{
  const char *p = text;

  while(*p) {
    size_t n = strcspn(p, "\n");
    if(confirms(p, n))
      found(name, 0, p, n);
    p += n + (p[n] == '\n');
  }
}

/* Each paragraph (lines up to a blank one) refilled greedily at `width`
 * columns, as format=flowed or a responder's wrapping would. */
static void check_wrapped(const char *name, const char *text, size_t width)
{
  char words[256][128], line[1024];
  const char *p = text;

  while(*p) {
    size_t nw = 0, i, used = 0;
    /* one paragraph's words */
    for(;;) {
      size_t n = strcspn(p, "\n");
      const char *q = p, *end = p + n;
      if(!n || strspn(p, " \t") == n) {
        p += n + (p[n] == '\n');
        break;
      }
      while(q < end) {
        size_t w;
        q += strspn(q, " \t");
        w = strcspn(q, " \t\n");
        if(q + w > end)
          w = (size_t)(end - q);
        if(w && nw < 256 && w < 128) {
          memcpy(words[nw], q, w);
          words[nw++][w] = '\0';
        }
        q += w;
      }
      p += n + (p[n] == '\n');
      if(!*p)
        break;
    }
    for(i = 0; i <= nw; i++) {
      size_t wl = i < nw ? strlen(words[i]) : 0;
      if(i == nw || (used && used + 1 + wl > width)) {
        if(used && confirms(line, used))
          found(name, width, line, used);
        used = 0;
      }
      if(i < nw) {
        used += (size_t)snprintf(line + used, sizeof(line) - used, "%s%s", used ? " " : "",
                                 words[i]);
      }
    }
  }
}

static void check_template(const char *name)
{
  char *subject = NULL, *body = NULL;
  size_t width;

  ck_assert_int_eq(tpl_render(&subject, &body, TEMPLATES, name, vars,
                              sizeof(vars) / sizeof(vars[0])),
                   0);
  ck_assert_ptr_nonnull(strstr(body, "the word confirm"));
  check_lines(name, subject);
  check_lines(name, body);
  for(width = 20; width <= 100; width++)
    check_wrapped(name, body, width);
  free(subject);
  free(body);
}

START_TEST(test_requests_hold_no_confirming_line)
{
  only_confirm = 1;
  check_template("confirm-new.txt");
  check_template("confirm-observe.txt");
  check_template("keyless-confirm.txt");
  ck_assert_int_eq(nfound, 0);
}
END_TEST

/* Every reply's own words (the templates with no placeholder filled):
 * no line, as written or rewrapped, is a command that acts or is the
 * reader's own business, so that a copy of any mail tabula sends, as an
 * auto-responder returns it with the key in its subject, does nothing: an
 * invitation is accepted, an observation or a seek ended, a win on time
 * claimed only by a person (rules-spec OPT-1). The word a mail asks for
 * is named inside a sentence instead. */
START_TEST(test_replies_hold_no_acting_line)
{
  DIR *d = opendir(TEMPLATES);
  struct dirent *e;
  int n = 0;

  ck_assert_ptr_nonnull(d);
  only_confirm = 0;
  while((e = readdir(d))) {
    const char *name = e->d_name;
    size_t len = strlen(name);
    char *subject = NULL, *body = NULL;
    size_t width;
    /* the phrase files are pieces of other mails, checked with them;
     * help texts teach the commands and answer no request */
    if(len < 5 || strcmp(name + len - 4, ".txt") || !strcmp(name, "phrases.txt") ||
       !strcmp(name, "reasons.txt") || !strncmp(name, "help", 4))
      continue;
    ck_assert_int_eq(tpl_render(&subject, &body, TEMPLATES, name, NULL, 0), 0);
    check_lines(name, subject);
    check_lines(name, body);
    for(width = 20; width <= 100; width++)
      check_wrapped(name, body, width);
    free(subject);
    free(body);
    n++;
  }
  closedir(d);
  ck_assert_int_gt(n, 50);
  ck_assert_int_eq(nfound, 0);
}
END_TEST

/* The checker itself: the old wording, the word alone on an indented
 * line, is caught; so is a sentence a rewrap would end at the word. */
START_TEST(test_checker_catches_a_bare_word)
{
  only_confirm = 1;
  ck_assert(confirms("    confirm", 11));
  ck_assert(confirms("Confirm.", 8));
  ck_assert(!confirms("reply with the word confirm written on a line", 45));
  ck_assert(!confirms("confirm written on a line of its own (an automatic answer", 57));
}
END_TEST

int main(void)
{
  Suite *s = suite_create("confirm_text");
  TCase *tc = tcase_create("requests");

  tcase_add_test(tc, test_requests_hold_no_confirming_line);
  tcase_add_test(tc, test_checker_catches_a_bare_word);
  tcase_add_test(tc, test_replies_hold_no_acting_line);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
