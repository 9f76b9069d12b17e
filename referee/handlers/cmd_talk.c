/*
 * cmd_talk.c: a word to the opponent. `message [TEXT]` passes
 * the mail's words (the text after the word and the mail's other prose,
 * talk.c's comment) to the other players of a started or finished game
 * (a "gg" after the end), in a mail of its own; beside an accepted action
 * the words went with that action's mails instead (views.c) and dispatch.c
 * does not call this. `comments on|off` is the sender's: off, no words of
 * an opponent reach them, and an opponent's `message` is refused with the
 * reason (the sender of a move is told in its confirmation instead).
 * Nothing here touches the game or its journal: words are not moves.
 * Layer 6, "handlers" (docs/architecture.md).
 */
#include "handlers_int.h"

#include <stdio.h>
#include <string.h>

static int do_message(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_cmd *c)
{
  size_t s;
  int off;
  if(g->row.phase == STORE_GAME_INVITED || !g->started)
    return ref_refuse(m, g, seat, c->line, "not-started", "", NULL);
  if(g->row.phase != STORE_GAME_ACTIVE && g->row.phase != STORE_GAME_FINISHED)
    return ref_refuse(m, g, seat, c->line, "game-over", "", NULL);
  if(!m->comment || !m->comment[0] || m->comment_game != g->row.id)
    return ref_refuse(m, g, seat, c->line, "message-empty", "", NULL);
  /* every other player must take words: a message half delivered would
   * leave the sender guessing who read it */
  for(s = 0; s < g->nseats; s++) {
    if((int)s == seat)
      continue;
    if((off = ref_comments_off(m->svc, g->seats[s].address)) < 0)
      return -1;
    if(off)
      return ref_refuse(m, g, seat, c->line, "comments-off", g->seats[s].address, NULL);
  }
  for(s = 0; s < g->nseats; s++)
    if((int)s != seat && ref_tell_seat(m, g, (int)s, "message.txt", NULL, 0))
      return -1;
  return ref_tell_seat(m, g, seat, "message-sent.txt", NULL, 0);
}

static int do_comments(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmd *c)
{
  /* commands.c takes "comments" as a command only before on or off */
  int off = !strncasecmp(c->arg, "off", 3);
  if(ref_comments_set(m->svc, g->seats[seat].address, off))
    return -1;
  m->changed = 1;
  return ref_tell_seat(m, g, seat, off ? "comments-off.txt" : "comments-on.txt", NULL, 0);
}

enum ref_rc ref_do_message(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_message(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_comments(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_comments(r->m, r->g, r->seat, c));
}
