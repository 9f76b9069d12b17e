/*
 * cmd_observe.c: `observe GAME` and `unobserve [GAME]`: the
 * game's list of observers (observers.c). An observer gets the board after
 * every change, read-only (views.c). Observing is double opt-in and a
 * private game has none. Layer 6, "handlers"
 * (docs/architecture.md).
 */
#include "handlers_int.h"

#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The game an observe/unobserve names: "observe 12", "observe #12",
 * "observe game 12"; unobserve may instead answer an observer's mail,
 * whose subject carries "[tabula 12]". Other words name no game (-1):
 * "unobserve written on a line of its own", a rewrapped copy of
 * observing.txt as an auto-responder returns it, is no unobserve
 * (rules-spec OPT-1). */
static int64_t named_game(const char *arg, const char *subject)
{
  const char *p = arg + strspn(arg, " \t");
  long long id;
  if(!strncasecmp(p, "game", 4) && !isalpha((unsigned char)p[4]))
    p += 4 + strspn(p + 4, " \t");
  if(*p == '#')
    p++;
  if(isdigit((unsigned char)*p)) {
    char *end;
    id = strtoll(p, &end, 10);
    end += strspn(end, " \t.!,;");
    return *end ? -1 : id;
  }
  if(*p)
    return -1;
  /* at most 18 digits, as in a tag */
  if(subject && (p = strstr(subject, "[tabula ")) && strspn(p + 8, "0123456789") <= 18 &&
     sscanf(p, "[tabula %lld]", &id) == 1)
    return id;
  return 0;
}

/* Whether `from` may observe the loaded game g: 0 yes; else the refusal is
 * made (to a player or a confirmed address; a stranger hears nothing) and
 * 1 returned, or -1 on an error. */
static int observe_refused(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *from,
                           const char *line)
{
  char num[24];
  int priv, seat = ref_seat_of(g, from);
  snprintf(num, sizeof(num), "%lld", (long long)g->row.id);
  if(seat >= 0)
    return ref_refuse(m, g, seat, line, "observe-own-game", "", NULL) ? -1 : 1;
  if(g->row.phase == STORE_GAME_FINISHED || g->row.phase == STORE_GAME_CANCELLED)
    return ref_refuse_player(m, line, "game-over", "") ? -1 : 1;
  /* A private game has no observers */
  if((priv = ref_game_private(m->svc, g->row.id)) != 0)
    return priv < 0 || ref_refuse_player(m, line, "observe-private", num) ? -1 : 1;
  return 0;
}

/* The game's players, "White A. L. and Black B. D." (the confirmation
 * request names them). Named as the web view names them (ref_public_name,
 * rules-spec G-3): whoever asks to observe learns the game, not the
 * players' addresses. */
static void players_text(const struct ref_game_ctx *g, char *buf, size_t cap)
{
  size_t i;
  buf[0] = '\0';
  for(i = 0; i < g->nseats; i++) {
    char name[64];
    ref_public_name(g->seats[i].address, name, sizeof(name));
    snprintf(buf + strlen(buf), cap - strlen(buf), "%s%s %s",
             i == 0 ? "" : i + 1 == g->nseats ? " and " : ", ", g->desc->seat_names[i], name);
  }
}

/* Puts `from` on the list and tells it so (or, when the list is full or it
 * is on it already, says that). */
static int observe_on(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *from,
                      const char *line)
{
  char num[24];
  int set = ref_observer_set(m->svc, g->row.id, from, 1);
  snprintf(num, sizeof(num), "%lld", (long long)g->row.id);
  if(set == -1)
    return -1;
  if(set == -2)
    return ref_refuse_player(m, line, "observers-full", num);
  if(set == 0)
    m->changed = 1;
  ref_log_info("game %lld: %s observes", (long long)g->row.id, from);
  return ref_tell_observer(m, g, from, "observing.txt", NULL, 0);
}

/* observe GAME / unobserve [GAME]: the game's list of observers. An
 * observer gets the board after every change, read-only: its mails carry
 * no key and no tokened Reply-To, so nothing an observer sends can act.
 * Observing is double opt-in: whoever asks, the observer
 * address is only sent a confirmation request, and its answer
 * (ref_do_observe_confirmed) puts it on the list. Stopping needs none. */
static int do_observe(struct ref_msg_ctx *m, const struct ref_cmd *c, int on)
{
  struct ref_service *svc = m->svc;
  const char *from = m->mail->from;
  struct ref_game_ctx g;
  char why[256], num[24], players[600];
  int64_t id = named_game(c->arg, on ? NULL : m->mail->subject);
  int rc, set;

  snprintf(num, sizeof(num), "%lld", (long long)id);
  if(id <= 0 || ref_game_load(svc, &g, id, why, sizeof(why)))
    return ref_refuse_player(m, c->line, "no-such-game", num);
  if(on) {
    rc = observe_refused(m, &g, from, c->line);
    if(rc == 0 && (rc = ref_is_observer(svc, id, from)) == 1)
      rc = observe_on(m, &g, from, c->line); /* already observing: said again */
    else if(rc == 0) {
      struct tpl_var extra[3] = {{"game", num}, {"title", g.desc->title}, {"players", players}};
      players_text(&g, players, sizeof(players));
      rc = ref_ask_confirmation(m, "observe", c->line, id, "confirm-observe.txt", extra, 3);
    }
    ref_game_free(&g);
    return rc < 0 ? -1 : 0;
  }
  set = ref_observer_set(svc, id, from, 0);
  if(set == -1 || set == 1) {
    ref_game_free(&g);
    return set == -1 ? -1 : ref_refuse_player(m, c->line, "not-observing", num);
  }
  m->changed = 1;
  ref_log_info("game %lld: %s no longer observes", (long long)id, from);
  rc = ref_tell_observer(m, &g, from, "unobserved.txt", NULL, 0);
  ref_game_free(&g);
  return rc;
}

/* The answer to an observe confirmation: the game is looked at again (it
 * may have ended meanwhile), then the address goes on the list. */
int ref_do_observe_confirmed(struct ref_msg_ctx *m, int64_t game, const char *line)
{
  struct ref_game_ctx g;
  char why[256], num[24];
  int rc;
  snprintf(num, sizeof(num), "%lld", (long long)game);
  if(ref_game_load(m->svc, &g, game, why, sizeof(why)))
    return ref_refuse_player(m, line, "no-such-game", num);
  rc = observe_refused(m, &g, m->mail->from, line);
  if(rc == 0)
    rc = observe_on(m, &g, m->mail->from, line);
  ref_game_free(&g);
  return rc < 0 ? -1 : 0;
}

/* observe GAME, unobserve [GAME]: in a game's mail too, about the game
 * they name. */
enum ref_rc ref_do_observe(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_observe(r->m, c, c->kind == REF_CMD_OBSERVE));
}
