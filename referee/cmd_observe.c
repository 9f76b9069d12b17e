/*
 * cmd_observe.c: `observe GAME` and `unobserve [GAME]` (issue 6): the
 * game's list of observers (observers.c). An observer gets the board after
 * every change, read-only (views.c). Layer 6, "handlers"
 * (docs/architecture.md).
 */
#include "handlers_int.h"

#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The game an observe/unobserve names: "observe 12", "observe #12",
 * "observe game 12"; unobserve may instead answer an observer's mail,
 * whose subject carries "[tabula 12]". */
static int64_t named_game(const char *arg, const char *subject)
{
  const char *p = arg;
  long long id;
  while(*p && !isdigit((unsigned char)*p))
    p++;
  if(*p)
    return strtoll(p, NULL, 10);
  /* at most 18 digits, as in a tag (issue 20) */
  if(subject && (p = strstr(subject, "[tabula ")) && strspn(p + 8, "0123456789") <= 18 &&
     sscanf(p, "[tabula %lld]", &id) == 1)
    return id;
  return 0;
}

/* observe GAME / unobserve [GAME]: the game's list of observers. An
 * observer gets the board after every change, read-only: its mails carry
 * no key and no tokened Reply-To, so nothing an observer sends can act. */
int ref_do_observe(struct ref_msg_ctx *m, const struct ref_cmd *c, int on)
{
  struct ref_service *svc = m->svc;
  const char *from = m->mail->from;
  struct ref_game_ctx g;
  char why[256], num[24];
  int64_t id = named_game(c->arg, on ? NULL : m->mail->subject);
  int rc, set;

  snprintf(num, sizeof(num), "%lld", (long long)id);
  if(id <= 0 || ref_game_load(svc, &g, id, why, sizeof(why)))
    return ref_refuse_player(m, c->line, "no-such-game", num);
  if(ref_seat_of(&g, from) >= 0) {
    rc = ref_refuse(m, &g, ref_seat_of(&g, from), c->line, "observe-own-game", "", NULL);
    ref_game_free(&g);
    return rc;
  }
  if(on && (g.row.phase == STORE_GAME_FINISHED || g.row.phase == STORE_GAME_CANCELLED)) {
    ref_game_free(&g);
    return ref_refuse_player(m, c->line, "game-over", "");
  }
  set = ref_observer_set(svc, id, from, on);
  if(set == -1 || set == -2 || (set == 1 && !on)) {
    ref_game_free(&g);
    if(set == -1)
      return -1;
    return ref_refuse_player(m, c->line, set == -2 ? "observers-full" : "not-observing", num);
  }
  if(set == 0)
    m->changed = 1;
  ref_log_info("game %lld: %s %s", (long long)id, from, on ? "observes" : "no longer observes");
  rc = ref_tell_observer(m, &g, from, on ? "observing.txt" : "unobserved.txt", NULL, 0);
  ref_game_free(&g);
  return rc;
}
