/*
 * dispatch.c: what one mail asks, handed to its handlers (docs/
 * architecture.md, layer 7 "entry"). The game and seat from the tag
 * (local+GAME.TOKEN@ or "[tabula GAME TOKEN]"); the token and the From
 * must match the seat (auth = token+from); without a tag, a player's mail
 * is for the game "game N" names or their one running game
 * (keyless = confirm: queries answered, actions confirmed first); time first (a late mail finds
 * the game lost on time); the "#N" guard; then each command to its handler
 * (handlers_int.h), a mail's prepared lines before its move,
 * the move last; the clock restarted and the observers
 * told when the game changed. The transaction around it is message.c's.
 */
#include "entry_int.h"

#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- finding the game: local+GAME.TOKEN@ or "[tabula GAME TOKEN]" ---- */

/* `delim` is the MTA's recipient delimiter (config recipient_delimiter);
 * with "-" the local part may hold others, so every one is tried. */
static enum ref_rc tag_from_address(const char *addr, char delim, int64_t *game, char *token,
                                    size_t cap)
{
  const char *at = strrchr(addr, '@'), *plus;
  if(!at)
    return REF_RC_PASS;
  for(plus = addr; (plus = memchr(plus, delim, (size_t)(at - plus))); plus++) {
    const char *dot;
    char *end;
    long long id = strtoll(plus + 1, &end, 10);
    dot = end;
    /* at most 18 digits: a longer number names no game */
    if(end == plus + 1 || end - plus > 19 || !isdigit((unsigned char)plus[1]) || *dot != '.' ||
       id <= 0 ||
       dot >= at || (size_t)(at - dot - 1) >= cap || at == dot + 1)
      continue;
    memcpy(token, dot + 1, (size_t)(at - dot - 1));
    token[at - dot - 1] = '\0';
    *game = id;
    return REF_RC_OK;
  }
  return REF_RC_PASS;
}

static enum ref_rc tag_from_subject(const char *subject, int64_t *game, char *token, size_t cap)
{
  const char *p = strstr(subject, "[tabula ");
  long long id;
  char tok[64];
  size_t digits = p ? strspn(p + 8, "0123456789") : 0;
  /* At most 18 digits, then a space: a longer number names no game (%lld
   * is undefined on overflow). */
  if(!p || digits < 1 || digits > 18 || p[8 + digits] != ' ' ||
     sscanf(p, "[tabula %lld %63[a-z0-9]]", &id, tok) != 2 || id <= 0 || strlen(tok) >= cap)
    return REF_RC_PASS;
  *game = id;
  snprintf(token, cap, "%s", tok);
  return REF_RC_OK;
}

/* Whether the n bytes at k can be a confirmation key (ref_make_token's
 * letters and digits, at most 63). */
static int key_ok(const char *k, size_t n)
{
  size_t i;
  if(!n || n > 63)
    return 0;
  for(i = 0; i < n; i++)
    if(!islower((unsigned char)k[i]) && !isdigit((unsigned char)k[i]))
      return 0;
  return 1;
}

/* What a refusal of the whole mail quotes as "You wrote:" and in its
 * subject: the first command, else the first move, else the first line of
 * words, else the subject; a refusal that quotes nothing leaves the player
 * guessing which mail it answers. */
static const char *written(const struct ref_cmds *cmds, const struct mail_msg *mail, char *buf,
                           size_t cap)
{
  if(cmds->ncmd)
    return cmds->cmd[0].line;
  if(cmds->ncand)
    return cmds->cand[0];
  if(cmds->nprose) {
    unsigned len = cmds->pline[0].len;
    snprintf(buf, cap, "%.*s", (int)(len < cap ? len : cap - 1), cmds->prose + cmds->pline[0].off);
    return buf;
  }
  return mail->subject;
}

/* The key of a confirmation request being answered (optin.c):
 * local+confirm.KEY@ (To, then Delivered-To) or "[tabula confirm KEY]".
 * REF_RC_OK: found; REF_RC_PASS: the mail answers no request;
 * REF_RC_REFUSED: it carries the mark of one ("+confirm." or "[tabula
 * confirm") but no key that can be one (cut, changed): no request of any
 * other kind either (rules-spec OPT-2). */
static enum ref_rc confirm_key(const struct mail_msg *mail, char delim, char *key, size_t cap)
{
  const char *addrs[2] = {mail->to, mail->delivered_to};
  const char *p;
  int i, marked = 0;
  for(i = 0; i < 2; i++) {
    const char *addr = addrs[i], *at = strrchr(addr, '@'), *q;
    if(!at)
      continue;
    for(q = addr; (q = memchr(q, delim, (size_t)(at - q))); q++) {
      size_t n;
      if((size_t)(at - q) < 9 || strncasecmp(q + 1, "confirm.", 8))
        continue;
      n = (size_t)(at - q) - 9;
      if(!key_ok(q + 9, n) || n >= cap) {
        marked = 1;
        continue;
      }
      memcpy(key, q + 9, n);
      key[n] = '\0';
      return REF_RC_OK;
    }
  }
  if((p = strstr(mail->subject, "[tabula confirm"))) {
    const char *k = p + strlen("[tabula confirm");
    size_t n;
    if(*k == ' ')
      k++;
    n = strcspn(k, "]");
    if(k[n] == ']' && key_ok(k, n) && n < cap) {
      memcpy(key, k, n);
      key[n] = '\0';
      return REF_RC_OK;
    }
    marked = 1;
  }
  return marked ? REF_RC_REFUSED : REF_RC_PASS;
}

/* Whether the mail's commands hold the word confirm. */
static int says_confirm(const struct ref_cmds *cmds)
{
  int i;
  for(i = 0; i < cmds->ncmd; i++)
    if(cmds->cmd[i].kind == REF_CMD_CONFIRM)
      return 1;
  return 0;
}

/* The game a mail names: local+GAME.TOKEN@ in To, then Delivered-To, then
 * "[tabula GAME TOKEN]" in the Subject. REF_RC_OK when found, else
 * REF_RC_PASS. */
static enum ref_rc game_tag(const struct mail_msg *mail, char delim, int64_t *game, char *token,
                            size_t cap)
{
  return tag_from_address(mail->to, delim, game, token, cap) == REF_RC_OK ||
                 tag_from_address(mail->delivered_to, delim, game, token, cap) == REF_RC_OK ||
                 tag_from_subject(mail->subject, game, token, cap) == REF_RC_OK
             ? REF_RC_OK
             : REF_RC_PASS;
}

/* The seat whose key this is, -1 for none. */
static int seat_of_token(const struct ref_game_ctx *g, const char *token)
{
  size_t i;
  for(i = 0; i < g->nseats; i++)
    if(!strcmp(g->seats[i].token, token))
      return (int)i;
  return -1;
}

/* ---- the "#N" guard ---- */

/* Whether a mail would change the game (a move, an offer, an answer):
 * what the "#N" guard protects. Queries and the sender's own business
 * (ref_cmd_class) pass whatever N says. */
static int mail_acts(const struct ref_cmds *cmds)
{
  int i;
  if(cmds->ncand)
    return 1;
  for(i = 0; i < cmds->ncmd; i++)
    if(ref_cmd_class(&cmds->cmd[i]) == REF_CMD_ACTS)
      return 1;
  return 0;
}

/* "#N": the move number the sender saw (ops->status move_number: chess's
 * fullmove number, so 12 for both 12. Nf3 and 12... Nf6; checkers' full
 * moves; backgammon's plays made + 1), shown in every game mail. As in
 * pbmserv, a mail whose N is not the game's now was written for another
 * position: a stale or repeated move is refused whole, nothing changes. */
static int guard_refused(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                         const struct ref_cmds *cmds, int *refused)
{
  struct ref_status s;
  char now[24], wrote[24];
  *refused = 0;
  if(cmds->guard < 0 || !g->started || g->row.phase != STORE_GAME_ACTIVE || !mail_acts(cmds))
    return 0;
  g->desc->ops->status(g->state, &s);
  if(!cmds->guard_conflict && s.move_number == cmds->guard)
    return 0;
  *refused = 1;
  snprintf(now, sizeof(now), "#%d", s.move_number);
  snprintf(wrote, sizeof(wrote), "#%d", cmds->guard);
  return ref_refuse(m, g, seat, wrote, cmds->guard_conflict ? "guard-conflict" : "stale-move", now,
                    NULL);
}

/* ---- the commands, in order ---- */

/* The handlers: the `run` column of the table (commands.h), which
 * commands.c, below the handlers, reads without it. */
static ref_cmd_fn *const run_of[REF_CMD_LAST] = {
#define RUN(k, words, scope, phases, cls, flags, read, run) [REF_CMD_##k] = run,
  REF_COMMAND_TABLE(RUN)
#undef RUN
};

/* Where the game is in its life, as the table's phases column says it. */
static unsigned phase_of(const struct ref_game_ctx *g)
{
  switch(g->row.phase) {
  case STORE_GAME_INVITED: return REF_IN_INVITED;
  case STORE_GAME_ACTIVE: return REF_IN_ACTIVE;
  default: return REF_IN_OVER;
  }
}

/* Commands addressed to one game by one seat, in the mail's order, each
 * checked against its row once: outside the phases it may run in it is
 * refused (before the start "not-started", after the end "game-over", in
 * play "not-available": new and confirm, which are never a game's). After
 * a command about the game (scope GAME) the mail goes on only while the
 * game is in play: a command that ended it, started it not yet, or
 * answered about a game not in play is the mail's last (rules-spec
 * MX-6). One about no game or about all the player's games leaves this
 * one as it was, and the next runs. The move lines come last. */
static enum ref_rc game_commands(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                                 const struct ref_cmds *cmds)
{
  struct ref_cmd_run r;
  int i, stale = 0;

  /* "#N" first: a mail written for another position does nothing */
  if(guard_refused(m, g, seat, cmds, &stale))
    return REF_RC_FAIL;
  if(stale)
    return REF_RC_REFUSED;
  memset(&r, 0, sizeof(r));
  r.m = m;
  r.g = g;
  r.seat = seat;
  r.cmds = cmds;
  for(i = 0; i < cmds->ncmd; i++) {
    const struct ref_cmd *c = &cmds->cmd[i];
    const struct ref_cmd_row *row = ref_cmd_row(c->kind);
    unsigned now = phase_of(g);
    enum ref_rc rc;

    if(row->flags & REF_CF_LAST) /* `message`: after the rest (run_in_game) */
      continue;
    if(!(row->phases & now))
      return ref_rc_of(m, ref_refuse(m, g, seat, c->line,
                                     now == REF_IN_INVITED ? "not-started"
                                     : now == REF_IN_OVER  ? "game-over"
                                                           : "not-available",
                                     now == REF_IN_ACTIVE ? ref_cmd_name(c->kind) : "", NULL));
    if((rc = run_of[c->kind](&r, c)) != REF_RC_OK)
      return rc;
    if(row->scope == REF_SCOPE_GAME && g->row.phase != STORE_GAME_ACTIVE)
      return REF_RC_OK;
  }
  if(!cmds->ncand) /* a mail of nothing at all is answered */
    return cmds->ncmd ? REF_RC_OK
                      : ref_rc_of(m, ref_refuse(m, g, seat, "", "no-command", "", NULL));
  if(r.moved)
    return REF_RC_OK;
  if(g->row.phase == STORE_GAME_ACTIVE) {
    /* Beside a command, a line that reads as no move at all is the
     * player's prose ("accept" / "Looking forward to it!"): not refused. */
    if(cmds->ncmd && !ref_mail_move(g, seat, cmds, REF_MOVE_READS))
      return REF_RC_OK;
    return ref_rc_of(m, r.roll_with_play ? ref_move_then_roll(m, g, seat, cmds)
                                         : ref_do_move(m, g, seat, cmds, 1));
  }
  /* a move before the start or after the end (lost on time as this mail
   * came, say) is answered, not dropped: the sender hears why nothing
   * happened */
  if(!cmds->ncmd)
    return ref_rc_of(m, ref_refuse(m, g, seat, cmds->cand[0],
                                   g->row.phase == STORE_GAME_INVITED ? "not-started"
                                                                      : "game-over",
                                   "", NULL));
  return REF_RC_OK;
}

/* A mail of this seat's in this game, once it is known to be the seat's
 * (its key and From, or a confirmed keyless request, or keyless = act):
 * time first (a mail after the deadline finds the game lost on time), the
 * sender's words made ready, the commands (a lone `message` last), the
 * clock restarted and the observers told. */
static int run_in_game(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmds *cmds)
{
  char comment[2560];
  int rc, i;
  {
    int late;
    int64_t deadline;
    rc = ref_clock_overdue(m->svc, g, m->arrived, &late, &deadline);
    /* TM-8: leave taken for the late player who asked for it first */
    if(rc == 1) {
      rc = ref_leave_auto(m, g, late, m->arrived, &deadline);
      rc = rc < 0 ? -1 : rc ? 0 : ref_lost_on_time(m, g, late, deadline, 0);
    }
  }
  /* The sender's words beside what the mail does, for the
   * opponent's mails (views.c); only now, once the seat is proven */
  if(!rc && (rc = ref_comment_prepare(m, g, seat, cmds, comment, sizeof(comment))))
    ref_log_error("game %lld: out of memory reading a comment", (long long)g->row.id);
  if(!rc && game_commands(m, g, seat, cmds) == REF_RC_FAIL)
    rc = -1;
  /* `message` alone (REF_CF_LAST): the words go in a mail of their own;
   * beside an action they went with its mails (or the sender was told why
   * not); nothing after a refusal (the message's outcome, m->refused) */
  if(!rc && !m->refused && !m->comment_told)
    for(i = 0; i < cmds->ncmd; i++)
      if(ref_cmd_row(cmds->cmd[i].kind)->flags & REF_CF_LAST) {
        struct ref_cmd_run r = {.m = m, .g = g, .seat = seat, .cmds = cmds};
        rc = run_of[cmds->cmd[i].kind](&r, &cmds->cmd[i]) == REF_RC_FAIL ? -1 : 0;
        break;
      }
  /* the mover is charged up to its mail's arrival (TM-1) */
  if(!rc && m->changed)
    rc = ref_clock_sync_at(m->svc, g, m->arrived);
  /* observe GAME: what changed, shown to the game's observers */
  if(!rc && m->observed)
    rc = ref_tell_observers(m, g, "observed.txt", NULL, 0);
  m->comment = NULL; /* the words lived in this frame */
  return rc;
}

/* ---- mail without a key ---- */

/* Commands of scope PLAYER only (vacation, digest, comments) concern all
 * of a player's games: any game will do */
static int player_wide_only(const struct ref_cmds *cmds)
{
  int i;
  if(cmds->ncand || !cmds->ncmd)
    return 0;
  for(i = 0; i < cmds->ncmd; i++)
    if(ref_cmd_row(cmds->cmd[i].kind)->scope != REF_SCOPE_PLAYER)
      return 0;
  return 1;
}

/* Whether a keyless mail only asks: what may be answered on the From
 * alone (to the address of record). Narrower than what passes the guard
 * (mail_acts): REF_CMD_OWN (`message`, `comments`, seeks) changes nothing
 * in the game but does something, so a forged From must not get it done. */
static int keyless_query_only(const struct ref_cmds *cmds)
{
  int i;
  if(cmds->ncand)
    return 0;
  for(i = 0; i < cmds->ncmd; i++)
    if(ref_cmd_class(&cmds->cmd[i]) != REF_CMD_ASKS)
      return 0;
  return 1;
}

/* Whether the receiving server vouches for the From: the topmost
 * Authentication-Results field from the configured trusted_authserv_id
 * (RFC 8601 §5: the border MTA removes such fields from incoming mail and
 * prepends its own) says dmarc=pass for the From's domain, or dkim=pass
 * with header.d that domain; read by RFC 8601's grammar (mail/authres.c),
 * so that a ";" a sender put in a quoted string or a comment cuts
 * nothing (rules-spec AR-1). */
static int sender_authenticated(const struct ref_service *svc, const struct mail_msg *mail)
{
  const char *at = strrchr(mail->from, '@');

  return at && at[1] &&
         mail_authres_vouches(mail->auth_results, svc->cfg.trusted_authserv_id, at + 1);
}

/* A mail whose From is not proven (rules-spec MX-4) is answered at most
 * REF_UNASKED_PER_HOUR times an hour to one address: one from `to`'s
 * allowance. REF_RC_OK taken, REF_RC_REFUSED over it (the mail is
 * dropped: m->refused, logged by optin.c), REF_RC_FAIL a store error. */
static enum ref_rc unasked_over(struct ref_msg_ctx *m, const char *to, const char *what)
{
  int rc = ref_unasked_take(m->svc, to, 1, what);
  if(rc == 1)
    return REF_RC_OK;
  m->refused = 1;
  return rc < 0 ? REF_RC_FAIL : REF_RC_REFUSED;
}

/* Whether `key` is a confirmation key we sent to `from` (optin.c): such
 * an answer is the address's own, proven like a seat's key. */
static int confirm_key_of(struct ref_service *svc, const char *key, const char *from)
{
  struct store_confirm c;
  int rc = store_confirm_get(svc->st, &c, key);
  if(rc == STORE_ENOTFOUND)
    return 0;
  if(rc != STORE_OK)
    return -1;
  return !strcasecmp(c.address, from);
}

/* The confirmed request of a keyless mail (ref_do_confirm hands it back):
 * its lines run in its game as the seat's own keyed mail would. */
static int keyless_confirmed(struct ref_msg_ctx *m, int64_t game, const char *address,
                             const char *request)
{
  struct ref_game_ctx g;
  struct ref_cmds cmds;
  char why[256];
  int seat, rc;

  m->game = game;
  if(ref_game_load(m->svc, &g, game, why, sizeof(why))) {
    ref_log_warn("confirmed keyless request for game %lld: %s", (long long)game, why);
    m->refused = 1;
    return 0;
  }
  seat = ref_seat_of(&g, address);
  if(seat < 0) {
    ref_game_free(&g);
    return ref_refuse_player(m, request, "keyless-not-yours", "");
  }
  ref_commands_parse(&cmds, request, NULL);
  rc = run_in_game(m, &g, seat, &cmds);
  ref_game_free(&g);
  return rc;
}

/* A confirmed request handed back by ref_do_confirm: a mail without a key
 * (its lines, as its keyed mail), or a command its sender had to confirm
 * first (REF_CF_CONFIRMED: new, tournament, seek), run as if just sent,
 * about no game. */
static int confirmed(struct ref_msg_ctx *m, const char *key, const struct store_confirm *req)
{
  struct ref_cmds request;
  int i;

  if(!strcmp(req->kind, "keyless"))
    return keyless_confirmed(m, req->game, req->address, req->request);
  ref_commands_parse(&request, req->request, NULL);
  for(i = 0; i < request.ncmd; i++)
    if(ref_cmd_row(request.cmd[i].kind)->flags & REF_CF_CONFIRMED) {
      struct ref_cmd_run r = {.m = m, .seat = -1, .cmds = &request};
      return run_of[request.cmd[i].kind](&r, &request.cmd[i]) == REF_RC_FAIL ? -1 : 0;
    }
  ref_log_error("confirmation %s: the stored request '%s' does not read as a %s", key,
                req->request, req->kind);
  return -1;
}

/* A mail to the plain address from a player: the game it is
 * for is the one "game N" names, else the sender's one running game; with
 * several and none named the sender gets the list. keyless = act runs it
 * at once; confirm (the default) answers queries and asks the address of
 * record to confirm an action (cmd_keyless.c), unless the receiving server
 * vouches for the sender (trusted_authserv_id). 1: not such a mail (the
 * sender plays no game, or none runs), the old answer follows. */
static int keyless(struct ref_msg_ctx *m, const struct ref_cmds *cmds)
{
  struct ref_service *svc = m->svc;
  const char *from = m->mail->from;
  int64_t *ids = NULL, game = 0;
  size_t n = 0, i;
  int wide = player_wide_only(cmds), running = 0, rc, seat, vouched;
  struct ref_game_ctx g;
  char why[256], num[24];

  if(svc->cfg.keyless == REF_KEYLESS_OFF || !from[0])
    return 1;
  if(store_games_of(svc->st, &ids, &n, from) != STORE_OK)
    return -1;
  if(!n) {
    free(ids);
    return 1;
  }
  if(cmds->game_conflict) {
    free(ids);
    return ref_refuse(m, NULL, -1, "game", "keyless-two-games", "", NULL);
  }
  if(cmds->game) {
    for(i = 0; i < n && ids[i] != cmds->game; i++)
      ;
    free(ids);
    if(i == n) {
      snprintf(num, sizeof(num), "%lld", cmds->game);
      ref_log_warn("mail %s from %s names game %s, not one of theirs", m->message_id, from,
                   num);
      return ref_refuse(m, NULL, -1, num, "keyless-not-yours", num, NULL);
    }
    game = cmds->game;
  }
  else {
    int64_t any = 0;
    for(i = 0; i < n; i++) {
      struct store_game row;
      if(store_game_load(svc->st, &row, ids[i]) != STORE_OK) {
        free(ids);
        return -1;
      }
      if(row.phase == STORE_GAME_FINISHED || row.phase == STORE_GAME_CANCELLED)
        continue;
      if(!running++)
        game = ids[i];
    }
    any = n ? ids[n - 1] : 0;
    free(ids);
    if(!running && wide)
      game = any; /* a vacation needs no running game */
    else if(!running)
      return 1;
    else if(running > 1 && !wide)
      return ref_keyless_which(m, cmds, game);
  }
  m->game = game;
  if(ref_game_load(svc, &g, game, why, sizeof(why))) {
    ref_log_warn("mail %s for game %lld: %s", m->message_id, (long long)game, why);
    m->refused = 1;
    return 0;
  }
  seat = ref_seat_of(&g, from);
  if(seat < 0) { /* store_games_of said it plays: a store out of step */
    ref_game_free(&g);
    return -1;
  }
  vouched = svc->cfg.keyless == REF_KEYLESS_CONFIRM && sender_authenticated(svc, m->mail);
  ref_log_info("game %lld: a mail from %s without its key (keyless = %s%s)", (long long)game,
               from, svc->cfg.keyless == REF_KEYLESS_ACT ? "act" : "confirm",
               vouched ? ", the sender authenticated by its server" : "");
  if(svc->cfg.keyless == REF_KEYLESS_ACT || vouched)
    rc = run_in_game(m, &g, seat, cmds);
  else if(keyless_query_only(cmds) ||
          (cmds->ncand && !cmds->ncmd && !ref_mail_move(&g, seat, cmds, REF_MOVE_PLAYABLE)))
    /* a query, or a move refused whatever the answer: no change, and
     * the reply goes to the seat's address of record only */
    rc = game_commands(m, &g, seat, cmds) == REF_RC_FAIL ? -1 : 0;
  else
    rc = ref_keyless_ask(m, &g, seat, cmds, wide);
  ref_game_free(&g);
  return rc;
}

int ref_dispatch(struct ref_msg_ctx *m)
{
  struct ref_service *svc = m->svc;
  const struct mail_msg *mail = m->mail;
  struct ref_cmds cmds;
  struct ref_game_ctx g;
  char token[64], why[256], quote[128], more[16];
  int64_t game = 0;
  int seat, rc = 0, i, token_only = svc->cfg.auth == REF_AUTH_TOKEN;
  enum ref_rc ck;
  char delim = (char)svc->cfg.recipient_delimiter;

  ref_commands_parse(&cmds, mail->clean, mail->subject);
  snprintf(more, sizeof(more), "%d", cmds.cmd_more);
  /* Until a key proves the From (a seat's, a confirmation's), the mail
   * is anyone's: its answers are bounded and small (rules-spec MX-4). */
  m->unproven = 1;
  /* The answer to a confirmation request. */
  ck = confirm_key(mail, delim, token, sizeof(token));
  if(ck == REF_RC_OK) {
    switch(confirm_key_of(svc, token, mail->from)) {
    case -1: return -1;
    case 1: m->unproven = 0; break;
    default:
      /* a key we never sent to this From: a guess, a replay, a forgery */
      if((rc = unasked_over(m, mail->from, "an answer to a confirmation key not its own")) !=
         REF_RC_OK)
        return rc == REF_RC_FAIL ? -1 : 0;
    }
    {
      struct store_confirm req;
      if(ref_do_confirm(m, token, &cmds, &req) == REF_RC_FAIL)
        return -1;
      return req.kind[0] ? confirmed(m, token, &req) : 0;
    }
  }
  /* A confirmation whose key cannot be read, or a "confirm" with none and
   * no game's key either, confirms nothing and is no other request (a
   * keyless one would ask to confirm the "confirm"): refused with the
   * reason, to players and confirmed addresses only (rules-spec OPT-2),
   * within the hourly answers to mail that proves nothing of its sender. */
  if(ck == REF_RC_REFUSED ||
     (says_confirm(&cmds) && game_tag(mail, delim, &game, token, sizeof(token)) != REF_RC_OK)) {
    ref_log_info("mail %s from %s confirms with no key that can be read: refused",
                 m->message_id, mail->from);
    if((rc = unasked_over(m, mail->from, "a confirm with no key that can be read")) !=
       REF_RC_OK)
      return rc == REF_RC_FAIL ? -1 : 0;
    return ref_refuse_player(m, "confirm", "confirm-no-key", "");
  }
  rc = 0;
  if(game_tag(mail, delim, &game, token, sizeof(token)) != REF_RC_OK) {
    /* No key: the From proves nothing, unless the transport vouches for
     * it (keyless = act, or the trusted server's Authentication-Results) */
    if(svc->cfg.keyless == REF_KEYLESS_ACT ||
       (svc->cfg.keyless == REF_KEYLESS_CONFIRM && sender_authenticated(svc, mail)))
      m->unproven = 0;
    else if((rc = unasked_over(m, mail->from, "an answer to mail without a key")) != REF_RC_OK)
      return rc == REF_RC_FAIL ? -1 : 0;
    /* More commands than one mail holds, or a command line cut: none is
     * done, the first not read is named (rules-spec MX-1; a stranger
     * hears nothing) */
    if(cmds.cmd_long)
      return ref_refuse_player(m, cmds.cmd_long_line, "line-too-long", "");
    if(cmds.cmd_more)
      return ref_refuse_player(m, cmds.cmd_more_line, "too-many-commands", more);
    /* No game named: the first command that needs none (REF_CF_NOKEY)
     * runs, alone, with no game (r.g NULL, seat -1) */
    for(i = 0; i < cmds.ncmd; i++)
      if(ref_cmd_row(cmds.cmd[i].kind)->flags & REF_CF_NOKEY) {
        struct ref_cmd_run r = {.m = m, .seat = -1, .cmds = &cmds};
        return run_of[cmds.cmd[i].kind](&r, &cmds.cmd[i]) == REF_RC_FAIL ? -1 : 0;
      }
    /* A player's mail without a key */
    if((rc = keyless(m, &cmds)) != 1)
      return rc;
    /* No backscatter: strangers get no answer. */
    if(ref_known_player(svc, mail->from))
      return ref_refuse(m, NULL, -1, written(&cmds, mail, quote, sizeof(quote)), "no-game-tag",
                        "", NULL);
    m->refused = 1;
    return 0;
  }
  m->game = game;
  if(ref_game_load(svc, &g, game, why, sizeof(why))) {
    ref_log_warn("mail %s names game %lld: %s", m->message_id, (long long)game, why);
    m->refused = 1;
    return 0;
  }
  /* The token names the seat; under auth = token+from (the default) the
   * From must be that seat's player too, else a forwarded or forged mail
   * could move for them. */
  seat = seat_of_token(&g, token);
  if(seat < 0 || (!token_only && strcasecmp(g.seats[seat].address, mail->from))) {
    int sender_seat = ref_seat_of(&g, mail->from);
    m->refused = 1;
    ref_log_warn("game %lld: refused a command from %s (token %s)", (long long)game,
                 mail->from, seat < 0 ? "unknown" : "of another player");
    /* both within the allowance of unasked mail (rules-spec MX-4): a
     * wrong key from a player's From is anyone's mail, and so is a copy
     * of a player's key from another From */
    if(sender_seat >= 0 &&
       !(rc = unasked_over(m, mail->from, "the refusal of a wrong key")))
      rc = ref_refuse(m, &g, sender_seat, written(&cmds, mail, quote, sizeof(quote)), "bad-token",
                      "", NULL);
    if(rc >= 0 && seat >= 0 && seat != sender_seat &&
       !(rc = unasked_over(m, g.seats[seat].address, "the notice of a forged mail"))) {
      /* the player of record hears of it */
      struct tpl_var extra[1] = {{"sender", mail->from}};
      rc = ref_tell_seat(m, &g, seat, "forged.txt", extra, 1);
    }
    rc = rc < 0 ? -1 : 0;
    m->refused = 1;
    ref_game_free(&g);
    return rc;
  }
  m->unproven = 0; /* the seat's key (and under token+from its From) */
  /* The seat's own address answered a mail with its key, so it
   * reads our mail; it is confirmed from then on (optin.c). Under auth =
   * token another From proves nothing of the sort. */
  if(!strcasecmp(g.seats[seat].address, mail->from) &&
     ref_confirmed_add(svc, mail->from, "answered a keyed mail")) {
    ref_game_free(&g);
    return -1;
  }
  if(cmds.cmd_long || cmds.cmd_more) {
    rc = cmds.cmd_long
           ? ref_refuse(m, &g, seat, cmds.cmd_long_line, "line-too-long", "", NULL)
           : ref_refuse(m, &g, seat, cmds.cmd_more_line, "too-many-commands", more, NULL);
    ref_game_free(&g);
    return rc;
  }
  /* "game N" in a mail with another game's key is refused
   * whole: the commands were meant for another game */
  if(cmds.game && cmds.game != game) {
    char num[24];
    snprintf(num, sizeof(num), "%lld", (long long)game);
    rc = ref_refuse(m, &g, seat, written(&cmds, mail, quote, sizeof(quote)),
                    "keyless-other-game", num, NULL);
    ref_game_free(&g);
    return rc;
  }
  rc = run_in_game(m, &g, seat, &cmds);
  /* auth = token: the key alone acted; the player of record is told which
   * address used it (the Diplomacy judge's copy to the player of record) */
  if(!rc && token_only && strcasecmp(g.seats[seat].address, mail->from)) {
    struct tpl_var extra[2] = {{"sender", mail->from},
                               {"outcome", m->refused ? "refused" : "accepted"}};
    ref_log_info("game %lld: %s acted for %s with the key alone (auth = token)",
                 (long long)game, mail->from, g.seats[seat].address);
    rc = ref_tell_seat(m, &g, seat, "acted-for-you.txt", extra, 2);
  }
  ref_game_free(&g);
  return rc;
}

int ref_dispatch_unreadable(struct ref_msg_ctx *m, const char *why)
{
  struct ref_service *svc = m->svc;
  const struct mail_msg *mail = m->mail;
  struct ref_game_ctx g;
  char token[64], err[256];
  int64_t game = 0;
  int seat, rc;
  char delim = (char)svc->cfg.recipient_delimiter;

  m->refused = 1;
  /* Only a player's own mail about their game is answered: its key names
   * a seat and its From is that seat's player, whatever auth says (no
   * command could be read, so nothing of auth = token's use applies).
   * Anyone else gets nothing: no backscatter to a forged From. */
  if(game_tag(mail, delim, &game, token, sizeof(token)) != REF_RC_OK)
    return 0;
  m->game = game;
  if(ref_game_load(svc, &g, game, err, sizeof(err))) {
    ref_log_warn("mail %s names game %lld: %s", m->message_id, (long long)game, err);
    return 0;
  }
  seat = seat_of_token(&g, token);
  if(seat < 0 || strcasecmp(g.seats[seat].address, mail->from)) {
    ref_game_free(&g);
    return 0;
  }
  {
    struct tpl_var extra[2] = {{"why", why}, {"their_subject", mail->subject}};
    rc = ref_tell_seat(m, &g, seat, "unreadable-mail.txt", extra, 2);
  }
  ref_game_free(&g);
  return rc;
}
