/*
 * reply.c: turning a template into an outbox row. Every mail tabula sends
 * goes through ref_reply: the template gives the words, mail_compose the
 * RFC 5322 form (threading, Auto-Submitted), and the store keeps it in the
 * same transaction as the move it reports: in the outbox, or in the
 * reader's digest queue when the reader asked for a daily digest.
 * A mail that shows a board also gets an HTML part with the same words and
 * the board drawn as a table (html = 1): the template is
 * rendered once more with a marker where the board goes, the text around
 * it becomes paragraphs (board_html.c), and templates/mail.html frames it.
 * The text part stays exactly what it was. Files (the game's record) are
 * attached as asked.
 * Layer 2, "mail out" (docs/architecture.md): it calls nothing above.
 */
#include "context_int.h"

#include "board_html.h"
#include "log.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* local+TAG@domain from the referee's own address: replying is all a player
 * does, and the tag (GAME.TOKEN, or confirm.KEY) says what the reply
 * answers. The delimiter is the MTA's (config recipient_delimiter, "+" by
 * default). */
static int tagged_address(char *buf, size_t cap, const char *address, char delim,
                          const char *tag)
{
  const char *at = strrchr(address, '@');
  int n;
  if(!at)
    return -1;
  n = snprintf(buf, cap, "%.*s%c%s%s", (int)(at - address), address, delim ? delim : '+', tag,
               at);
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

static int tokened_address(char *buf, size_t cap, const char *address, char delim,
                           int64_t game, const char *token)
{
  char tag[128];
  if(base_format(tag, sizeof(tag), "%lld.%s", (long long)game, token))
    return -1; /* a cut key would route the answer nowhere */
  return tagged_address(buf, cap, address, delim, tag);
}

int ref_seat_reply_to(const struct ref_service *svc, const struct ref_game_ctx *g, int seat,
                      char *buf, size_t cap)
{
  if(seat < 0 || (size_t)seat >= g->nseats)
    return -1;
  return tokened_address(buf, cap, svc->cfg.address, (char)svc->cfg.recipient_delimiter,
                         g->row.id, g->seats[seat].token);
}

/* ---- the digest: where a mail may wait ---- */

/* Mails that may wait for a player's daily digest: news of what others
 * did. Never held: answers to the player's own mail (confirmations and
 * refusals), invitations, forgery notices, anything about time running out
 * (reminders, time up, the loss on time), the end of a game, and private
 * dice (lag-faces.txt, LG-1): those must arrive when they happen. An
 * allow-list, so a new kind of mail is sent at once until listed here.
 * Held mails go out in one mail a day (tick.c); `digest on|off` is the
 * player's. 1 when held, 0 to send now, -1 on a store error. */
static const char *const digestible[] = {
  "your-move.txt",    "opponent-moved.txt", "start.txt", "rolled.txt", "cube-taken.txt",
  "draw-offered.txt", "draw-declined.txt",  "double-offered.txt", "resign-offered.txt",
  "resign-rejected.txt", "message.txt", /* Words are news, not answers */
  "conditional-played.txt",             /* The opponent's move, and one's answer */
};

static int digest_hold(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *to,
                       const char *tmpl, const char *subject, const char *reply_to,
                       const char *body)
{
  size_t i;
  bool on = false;
  if(!g)
    return 0;
  if(m->mail && !strcasecmp(to, m->mail->from))
    return 0;
  for(i = 0; i < sizeof(digestible) / sizeof(digestible[0]); i++)
    if(!strcmp(tmpl, digestible[i]))
      break;
  if(i == sizeof(digestible) / sizeof(digestible[0]))
    return 0;
  if(store_digest_pref_get(m->svc->st, &on, to) != STORE_OK)
    return -1;
  if(!on)
    return 0;
  if(store_digest_add(m->svc->st, to, g->row.id, ref_now(m->svc), subject,
                      reply_to ? reply_to : "", body) != STORE_OK)
    return -1;
  ref_log_debug("game %lld: %s to %s held for the digest", (long long)g->row.id, tmpl, to);
  return 1;
}

/* ---- the HTML part ---- */

#define BOARD_MARK "\x1e" "board" "\x1e"

/* The mail's words as HTML, the board drawn where the template puts it;
 * NULL when the template shows no board. */
static char *html_part(struct ref_service *svc, const char *tmpl, const struct tpl_var *vars,
                       size_t nvars, const char *subject, const char *body,
                       const struct ref_reply_extra *x)
{
  const char *dir = svc->cfg.templates_dir;
  struct tpl_var *v = NULL, frame[3];
  struct base_buf content, esc_subject = {0}, esc_link = {0};
  char *marked = NULL, *msubj = NULL, *fsubj = NULL, *page = NULL, *at;
  const char *ascii = NULL;
  size_t i;

  for(i = 0; i < nvars; i++)
    if(!strcmp(vars[i].name, "board"))
      ascii = vars[i].value;
  if(!ascii || !ascii[0] || !strstr(body, ascii))
    return NULL;
  v = malloc(nvars * sizeof(*v));
  if(!v)
    return NULL;
  for(i = 0; i < nvars; i++) {
    v[i] = vars[i];
    if(!strcmp(v[i].name, "board"))
      v[i].value = BOARD_MARK;
  }
  base_buf_init(&content, 1024u * 1024u);
  if(tpl_render(&msubj, &marked, dir, tmpl, v, nvars) || !(at = strstr(marked, BOARD_MARK)))
    goto out;
  *at = '\0';
  if(ref_html_text(&content, marked) ||
     (x && x->diagram ? ref_html_board(&content, x->diagram, dir) : ref_html_pre(&content, ascii)) ||
     ref_html_text(&content, at + strlen(BOARD_MARK)))
    goto out;
  /* values the frame puts into markup are escaped like the words */
  base_buf_init(&esc_subject, 4096);
  base_buf_init(&esc_link, 4096);
  if(ref_html_escape(&esc_subject, subject, strlen(subject)) ||
     (x && x->link && ref_html_escape(&esc_link, x->link, strlen(x->link))))
    goto out;
  frame[0].name = "subject";
  frame[0].value = esc_subject.s;
  frame[1].name = "content";
  frame[1].value = content.s;
  frame[2].name = "link";
  frame[2].value = esc_link.s ? esc_link.s : "";
  if(tpl_render(&fsubj, &page, dir, "mail.html", frame, 3)) {
    ref_log_error("template mail.html is missing or malformed");
    page = NULL;
  }
out:
  base_buf_free(&content);
  base_buf_free(&esc_subject);
  base_buf_free(&esc_link);
  free(v);
  free(marked);
  free(msubj);
  free(fsubj);
  return page;
}

/* ---- composing and queueing ---- */

/* The template to `to`: `prefix` goes in front of the subject ("[tabula
 * GAME TOKEN]"), `reply_to` (or NULL) is the address a reply goes to; `x`
 * (or NULL) the board as data, the game's link, the files. */
static int compose(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *to,
                   const char *tmpl, const struct tpl_var *vars, size_t nvars,
                   const char *prefix, const char *reply_to, const struct ref_reply_extra *x,
                   int history_seat)
{
  struct ref_service *svc = m->svc;
  struct mail_out out;
  char *subject = NULL, *body = NULL, *message = NULL, *html = NULL;
  char full_subject[600], refs[1400];
  int rc = -1;

  memset(&out, 0, sizeof(out));
  if(tpl_render(&subject, &body, svc->cfg.templates_dir, tmpl, vars, nvars)) {
    ref_log_error("template %s is missing or malformed", tmpl);
    goto out;
  }
  if(x && x->link && x->link[0]) {
    /* the game's page (site_url): one line at the end, the words a phrase */
    char line[700];
    struct tpl_var lv = {"link", x->link};
    size_t len = strlen(body);
    tpl_line(line, sizeof(line), svc->cfg.templates_dir, "phrases.txt", "game-link", &lv, 1);
    char *longer = malloc(len + strlen(line) + 3);
    if(!longer)
      goto out;
    snprintf(longer, len + strlen(line) + 3, "%s%s%s\n", body,
             len && body[len - 1] != '\n' ? "\n" : "", line);
    free(body);
    body = longer;
  }
  if(history_seat >= 0) {
    /* the game's record, provable (rules-spec HI-1, docs/history-protocol.md): one block
     * at the end of the text part, after a sentence saying what it is */
    struct base_buf block;
    char line[700];
    size_t len = strlen(body);
    tpl_line(line, sizeof(line), svc->cfg.templates_dir, "phrases.txt", "history-intro", NULL, 0);
    base_buf_init(&block, 16u * 1024u * 1024u);
    if(base_buf_puts(&block, body) ||
       base_buf_puts(&block, len && body[len - 1] != '\n' ? "\n\n" : "\n") ||
       (line[0] && (base_buf_puts(&block, line) || base_buf_putc(&block, '\n'))) ||
       ref_history_block(svc, g, history_seat, to, &block)) {
      base_buf_free(&block);
      goto out;
    }
    free(body);
    body = base_buf_take(&block);
    if(!body)
      goto out;
  }
  out.from = svc->cfg.address;
  out.from_name = "tabula referee";
  out.to = to;
  out.domain = svc->cfg.domain;
  out.date = ref_now(svc);
  out.body = body;
  out.reply_to = reply_to;
  snprintf(full_subject, sizeof(full_subject), "%s%s%s", prefix, prefix[0] ? " " : "", subject);
  out.subject = full_subject;
  /* A player who asked for a daily digest gets news of others' moves there. */
  switch(digest_hold(m, g, to, tmpl, subject, out.reply_to, body)) {
  case 1: rc = 0; goto out;
  case -1: goto out;
  default: break;
  }
  /* Thread under the mail being answered (RFC 5322 §3.6.4). */
  if(m->mail && m->mail->message_id[0] && !strcmp(to, m->mail->from)) {
    out.in_reply_to = m->mail->message_id;
    snprintf(refs, sizeof(refs), "%s%s%s", m->mail->references,
             m->mail->references[0] ? " " : "", m->mail->message_id);
    out.references = refs;
  }
  /* an answer to mail that proves nothing of its From is text only: it
   * may be a forger's, sent to the real player (rules-spec MX-4). Mail it
   * causes to others (an invitation) keeps its board: the invitee needs it
   * to decide, and the invitation budget already bounds it (MX-4). */
  if(svc->cfg.html && !(m->unproven && m->mail && !strcmp(to, m->mail->from)))
    html = html_part(svc, tmpl, vars, nvars, full_subject, body, x);
  out.html = html;
  if(x && x->nattach) {
    out.attach = x->attach;
    out.nattach = x->nattach;
  }
  if(mail_compose(&message, NULL, &out) != MAIL_OK) {
    ref_log_error("cannot compose %s to a checked address", tmpl);
    goto out;
  }
  if(store_outbox_add(svc->st, NULL, g ? g->row.id : 0, to, message, ref_now(svc)) !=
     STORE_OK)
    goto out;
  m->replied++;
  rc = 0;
out:
  free(subject);
  free(body);
  free(html);
  free(message);
  return rc;
}

/* The seat's mails that carry no Record lines (rules-spec HI-1): Lag
 * Backgammon Chess's private faces (lag.c, LG-1) are no game view, and
 * that mail shows faces only; the next game mail carries the record. */
static bool history_less(const char *tmpl)
{
  static const char *const none[] = {"lag-faces.txt"};
  for(size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
    if(!strcmp(tmpl, none[i]))
      return true;
  return false;
}

int ref_reply(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *to,
              const char *tmpl, const struct tpl_var *vars, size_t nvars)
{
  return ref_reply_ex(m, g, seat, to, tmpl, vars, nvars, NULL);
}

int ref_reply_ex(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *to,
                 const char *tmpl, const struct tpl_var *vars, size_t nvars,
                 const struct ref_reply_extra *x)
{
  struct ref_service *svc = m->svc;
  char prefix[128] = "", reply_to[MAIL_ADDR_MAX];
  const char *rt = NULL;

  /* the subject's tag routes the answer (dispatch.c): whole or no mail */
  if(g && seat >= 0 && (size_t)seat < g->nseats) {
    if(base_format(prefix, sizeof(prefix), "[tabula %lld %s]", (long long)g->row.id,
                   g->seats[seat].token))
      return -1;
    if(tokened_address(reply_to, sizeof(reply_to), svc->cfg.address,
                       (char)svc->cfg.recipient_delimiter, g->row.id, g->seats[seat].token) == 0)
      rt = reply_to;
  }
  else if(g)
    /* observers: the game's number, never a key */
    if(base_format(prefix, sizeof(prefix), "[tabula %lld]", (long long)g->row.id))
      return -1;
  /* the history lines go to the players (a seat's mail, its key in the
   * subject); an observer is not a party to the record (rules-spec HI-1) */
  return compose(m, g, to, tmpl, vars, nvars, prefix, rt, x,
                 g && seat >= 0 && (size_t)seat < g->nseats && !history_less(tmpl) ? seat : -1);
}

/* A confirmation request (optin.c): the one-time key in the
 * subject ("[tabula confirm KEY]") and in the Reply-To (local+confirm.KEY@),
 * as a game mail carries a seat's key, so that replying is all it takes. */
int ref_reply_confirm(struct ref_msg_ctx *m, const char *to, const char *key, const char *tmpl,
                      const struct tpl_var *vars, size_t nvars)
{
  struct ref_service *svc = m->svc;
  char prefix[128], tag[96], reply_to[MAIL_ADDR_MAX];
  if(base_format(prefix, sizeof(prefix), "[tabula confirm %s]", key) ||
     base_format(tag, sizeof(tag), "confirm.%s", key))
    return -1; /* the key routes the answer: whole or no mail */
  return compose(m, NULL, to, tmpl, vars, nvars, prefix,
                 tagged_address(reply_to, sizeof(reply_to), svc->cfg.address,
                                (char)svc->cfg.recipient_delimiter, tag) == 0
                   ? reply_to
                   : NULL,
                 NULL, -1);
}
