/* support_rules.c: the rules' tests' shared helpers (support.h); in a file
 * of its own so that only the tests that call it pull in the rules core. */
#include "rules.h"
#include "support.h"

#include <check.h>
#include <stdio.h>

void ts_play_words(const struct ref_game_desc *g, struct ref_state *s, const char *moves)
{
  char buf[1024], *p = buf, *tok;
  struct ref_move m;
  struct ref_err err;

  ck_assert_msg(snprintf(buf, sizeof(buf), "%s", moves) < (int)sizeof(buf), "moves too long");
  while(*p) {
    while(*p == ' ')
      p++;
    if(!*p)
      break;
    tok = p;
    while(*p && *p != ' ')
      p++;
    if(*p)
      *p++ = '\0';
    ck_assert_msg(g->ops->parse(s, tok, &m, &err) == REF_OK, "parse %s: %s", tok, err.reason);
    ck_assert_int_eq(g->ops->apply(s, &m), REF_OK);
    ck_assert_msg(g->ops->ok(s), "ok() after %s", tok);
  }
}
