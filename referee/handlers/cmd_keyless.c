/*
 * cmd_keyless.c: a player's mail without a game's key. A mail
 * to the plain address, without "[tabula N KEY]" or local+N.KEY@, from an
 * address that plays: dispatch.c finds the game (the one running, or the
 * one "game N" names) and, under keyless = confirm (the default), answers
 * queries at once and hands an action here. The From line alone proves
 * nothing (anyone can write any From), so the action is not done: its
 * lines are stored as a confirmation request of kind "keyless" (optin.c's
 * one-time keys, store migration 8) and the player's address of record,
 * never anyone else, is mailed the board and the request. The player's
 * reply with the key and the word "confirm" runs the lines in that game as
 * if they came with the seat's key (cmd_confirm.c, through dispatch.c);
 * the "#N" guard stored with them refuses them if the game moved meanwhile.
 * With several running games and none named, the sender is told which
 * games there are and how to name one. Layer 6, "handlers"
 * (docs/architecture.md).
 */
#include "handlers_int.h"

#include "calendar_int.h"
#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a line of the mail says anything: a command, a move candidate,
 * a guard or a "game N". */
static int line_counts(const char *line)
{
  struct ref_cmds one;
  ref_commands_parse(&one, line, NULL);
  return one.ncmd || one.ncand || one.guard >= 0 || one.game;
}

/* The mail's lines that say something, as written, one per line, with
 * "#N" (the move number now) added when `guard` >= 0: what is stored and
 * run once confirmed. -1 when they do not fit in `cap`. */
static int request_lines(const struct mail_msg *mail, const struct ref_cmds *cmds, int guard,
                         char *out, size_t cap)
{
  const char *p = cmds->from_subject ? mail->subject : mail->clean;
  size_t used = 0;
  out[0] = '\0';
  while(p && *p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[512];
    while(len && isspace((unsigned char)*p)) {
      p++;
      len--;
    }
    while(len && isspace((unsigned char)p[len - 1]))
      len--;
    if(len && len < sizeof(line)) {
      memcpy(line, p, len);
      line[len] = '\0';
      if(line_counts(line)) {
        if(used + len + 2 > cap)
          return -1;
        used += (size_t)snprintf(out + used, cap - used, "%s%s", used ? "\n" : "", line);
      }
    }
    if(!nl)
      break;
    p = nl + 1;
  }
  if(guard >= 0) {
    char g[24];
    snprintf(g, sizeof(g), "#%d", guard);
    if(used + strlen(g) + 2 > cap)
      return -1;
    snprintf(out + used, cap - used, "%s%s", used ? "\n" : "", g);
  }
  return 0;
}

int ref_keyless_ask(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                    const struct ref_cmds *cmds, int player_wide)
{
  struct ref_service *svc = m->svc;
  const char *to = g->seats[seat].address;
  struct store_confirm c;
  struct ref_status s;
  struct base_buf shown;
  struct tpl_var vars[16];
  char board[8192] = "", expires[40], first[160], what[200], game[24],
      guard[24] = "", where[120] = "", about[200] = "";
  size_t n = 0, len;
  int guard_now = -1, rc;

  memset(&c, 0, sizeof(c));
  if(g->started) {
    g->desc->ops->status(g->state, &s);
    if(s.phase != REF_PHASE_OVER) {
      guard_now = s.move_number;
      snprintf(guard, sizeof(guard), "#%d", guard_now);
    }
  }
  /* the player's own, about all their games (vacation, digest,
   * comments): never refused for a move made meanwhile in the game it was
   * filed under */
  if(request_lines(m->mail, cmds, player_wide || cmds->guard >= 0 ? -1 : guard_now, c.request,
                   sizeof(c.request)))
    return ref_refuse(m, g, seat, cmds->ncmd ? cmds->cmd[0].line : cmds->cand[0],
                      "keyless-too-long", "", NULL);
  if(ref_make_token(c.key, sizeof(c.key)))
    return -1;
  snprintf(c.address, sizeof(c.address), "%s", to);
  snprintf(c.kind, sizeof(c.kind), "keyless");
  c.game = g->row.id;
  c.created = ref_now(svc);
  c.expires = c.created + (int64_t)svc->cfg.confirm_days * REF_DAY;
  if(store_confirm_put(svc->st, &c) != STORE_OK)
    return -1;
  ref_log_info("game %lld: %s asked to confirm a mail without its key: %s", (long long)c.game,
               to, c.request);
  ref_time_text(expires, sizeof(expires), c.expires);
  /* the subject names the first command or move, without "game N:" */
  snprintf(first, sizeof(first), "%.*s", (int)sizeof(first) - 1,
           cmds->ncmd ? cmds->cmd[0].line : cmds->cand[0]);
  if(g->started &&
     g->desc->ops->render(g->state, seat, board, sizeof(board)) == REF_OK) {
    len = strlen(board);
    while(len && board[len - 1] == '\n')
      board[--len] = '\0';
  }
  else
    board[0] = '\0';
  /* the request indented, as the other confirmations quote theirs */
  base_buf_init(&shown, 4096);
  {
    const char *p = c.request;
    while(*p) {
      size_t l = strcspn(p, "\n");
      if(base_buf_printf(&shown, "%s    %.*s", shown.len ? "\n" : "", (int)l, p)) {
        base_buf_free(&shown);
        return -1;
      }
      p += l + (p[l] == '\n');
    }
  }
  {
    /* "play e4" for a mail of move lines, 'do "draw offer"' otherwise */
    struct tpl_var v[1] = {{"first", first}};
    tpl_line(what, sizeof(what), svc->cfg.templates_dir, "phrases.txt",
             cmds->ncand && !cmds->ncmd ? "keyless-play" : "keyless-do", v, 1);
  }
  snprintf(game, sizeof(game), "%lld", (long long)g->row.id);
  {
    /* vacation and digest are about every game: no game, no board */
    struct tpl_var v[3] = {
      {"game", game}, {"title", g->desc->title}, {"seat", g->desc->seat_names[seat]}};
    tpl_line(where, sizeof(where), svc->cfg.templates_dir, "phrases.txt",
             player_wide ? "keyless-all-games" : "keyless-in-game", v, 1);
    tpl_line(about, sizeof(about), svc->cfg.templates_dir, "phrases.txt",
             player_wide ? "keyless-all-games" : "keyless-in-game-long", v, 3);
    if(player_wide)
      board[0] = '\0';
  }
  vars[n++] = (struct tpl_var){"request", shown.s ? shown.s : ""};
  vars[n++] = (struct tpl_var){"first", first};
  vars[n++] = (struct tpl_var){"what", what};
  vars[n++] = (struct tpl_var){"where", where};
  vars[n++] = (struct tpl_var){"where_long", about};
  vars[n++] = (struct tpl_var){"game", game};
  vars[n++] = (struct tpl_var){"title", g->desc->title};
  vars[n++] = (struct tpl_var){"seat", g->desc->seat_names[seat]};
  vars[n++] = (struct tpl_var){"board", board};
  vars[n++] = (struct tpl_var){"guard", player_wide ? "" : guard};
  vars[n++] = (struct tpl_var){"referee", svc->cfg.address};
  vars[n++] = (struct tpl_var){"expires", expires};
  rc = ref_reply_confirm(m, to, c.key, "keyless-confirm.txt", vars, n);
  base_buf_free(&shown);
  return rc;
}

int ref_keyless_which(struct ref_msg_ctx *m, const struct ref_cmds *cmds, int64_t one)
{
  struct base_buf b;
  struct tpl_var extra[3];
  char example[260], game[24];
  int rc, running;

  /* the example line is the sender's own first command */
  snprintf(example, sizeof(example), "%s",
           cmds->ncmd ? cmds->cmd[0].line : cmds->ncand ? cmds->cand[0] : "board");
  base_buf_init(&b, 1024u * 1024u);
  rc = ref_games_list(m, m->mail->from, &b, &running);
  m->refused = 1; /* nothing was done */
  if(!rc) {
    extra[0].name = "games";
    extra[0].value = b.s ? b.s : "";
    extra[1].name = "example";
    extra[1].value = example;
    snprintf(game, sizeof(game), "%lld", (long long)one);
    extra[2].name = "one";
    extra[2].value = game;
    rc = ref_reply(m, NULL, -1, m->mail->from, "keyless-which.txt", extra, 3);
  }
  else if(rc == 1)
    rc = 0;
  base_buf_free(&b);
  return rc;
}
