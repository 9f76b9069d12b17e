/*
 * talk.c: a word to the opponent. The prose of a mail (its
 * lines that are no command, commands.c collects them as it reads the
 * mail) less the lines that made its turn (turnread.c) is the sender's
 * comment, headed "alice@example.org writes:" and quoted with "> ", so
 * that nothing inside it can pass for a line of tabula's own (a forged
 * "bob writes:" is a quoted line) and a reply that keeps it is read
 * without it (mail/clean.c drops quoted lines). views.c shows it to the
 * other seats; who may see it is kept here: a player who turned comments
 * off sees none (the store's comments_off), observers only in a game
 * created public-comments (public_comment_games).
 * Layer 3, "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* an address's case is not its identity (as the seats compare it) */
static int lower_address(char *buf, size_t cap, const char *address)
{
  size_t n;
  if(base_format(buf, cap, "%s", address))
    return -1; /* a cut address would be another's */
  for(n = 0; buf[n]; n++)
    buf[n] = (char)tolower((unsigned char)buf[n]);
  return 0;
}

int ref_comments_off(struct ref_service *svc, const char *address)
{
  char lower[400];
  bool off = false;
  if(lower_address(lower, sizeof(lower), address) ||
     store_comments_off_get(svc->st, &off, lower) != STORE_OK)
    return -1;
  return off ? 1 : 0;
}

int ref_comments_set(struct ref_service *svc, const char *address, int off)
{
  char lower[400];
  if(lower_address(lower, sizeof(lower), address))
    return -1;
  return store_comments_off_set(svc->st, lower, off != 0) == STORE_OK ? 0 : -1;
}

int ref_game_public_comments(struct ref_service *svc, int64_t game)
{
  bool on = false;
  if(store_game_flag_get(svc->st, &on, game, STORE_FLAG_PUBLIC_COMMENTS) != STORE_OK)
    return -1;
  return on ? 1 : 0;
}

int ref_game_set_public_comments(struct ref_service *svc, int64_t game)
{
  return store_game_flag_set(svc->st, game, STORE_FLAG_PUBLIC_COMMENTS) == STORE_OK ? 0 : -1;
}

int ref_comment_prepare(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const struct ref_cmds *cmds, char *buf, size_t cap)
{
  const char *dir = m->svc->cfg.templates_dir;
  char head[400], cut[100];
  struct tpl_var v = {"sender", g->seats[seat].address};
  int skip_start = 0, skip_len = 0;
  size_t n;

  buf[0] = '\0';
  m->comment = NULL;
  if(!cmds->nprose)
    return 0;
  /* the lines that make the mail's turn are the move, not words */
  if(cmds->ncand && g->started && g->row.phase == STORE_GAME_ACTIVE) {
    struct ref_turn *t = malloc(sizeof(*t));
    if(!t || ref_read_turn(g, cmds, t)) {
      free(t);
      return -1;
    }
    if(t->found) {
      skip_start = t->start;
      skip_len = t->len;
    }
    free(t);
  }
  tpl_line(head, sizeof(head), dir, "phrases.txt", "comment-head", &v, 1);
  tpl_line(cut, sizeof(cut), dir, "phrases.txt", "comment-cut", NULL, 0);
  /* a paragraph of its own where the template puts it */
  snprintf(buf, cap, "\n%s\n", head);
  n = strlen(buf);
  ref_prose_text(buf + n, cap - n, cmds, skip_start, skip_len, "> ", cut);
  if(!buf[n]) {
    buf[0] = '\0';
    return 0;
  }
  /* the template puts its own line end after the value */
  n = strlen(buf);
  while(n && buf[n - 1] == '\n')
    buf[--n] = '\0';
  m->comment = buf;
  m->comment_game = g->row.id;
  m->comment_seat = seat;
  m->comment_told = 0;
  m->comment_observers = 0;
  return 0;
}

int ref_comment_for_observers(struct ref_msg_ctx *m, const struct ref_game_ctx *g, char *buf,
                              size_t cap)
{
  /* rules-spec G-3: the same words under a heading that names the sender
   * as the web view does (initials), not by address. m->comment is "\n"
   * HEAD "\n" WORDS (ref_comment_prepare). */
  char name[64], head[400];
  struct tpl_var v = {"sender", name};
  const char *words;
  if(!m->comment || m->comment_seat < 0 || (size_t)m->comment_seat >= g->nseats ||
     !(words = strchr(m->comment + 1, '\n')))
    return -1;
  ref_public_name(g->seats[m->comment_seat].address, name, sizeof(name));
  tpl_line(head, sizeof(head), m->svc->cfg.templates_dir, "phrases.txt", "comment-head", &v, 1);
  snprintf(buf, cap, "\n%s%s", head, words);
  return 0;
}
