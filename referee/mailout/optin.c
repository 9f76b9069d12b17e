/*
 * optin.c: nothing to an address that has not asked. Layer 2,
 * "mail out" (docs/architecture.md): who may be sent mail at all.
 *
 * A From can be forged, so a mail's sender is trusted to want our mail
 * only once it has answered one: a reply carrying a one-time key we sent
 * to that address (a confirmation request), or an authenticated mail with
 * a seat's key (an accept, a move). Such an address is "confirmed" from
 * then on (store: confirmed). Until then a `new` or a `tournament` (issue
 * 19) from it, and any `observe` whoever sends it, only asks the address
 * to confirm; the
 * request waits in the store (confirmations) for confirm_days, and only
 * the reply from that address, with the key and the word "confirm", lets
 * the handlers run it.
 *
 * Mail to a "stranger" (an address that holds no seat and has not
 * confirmed: the confirmation requests themselves, help, ratings and
 * rating to strangers, invitations to new addresses, a tournament's too)
 * is counted against one hourly budget for
 * all senders together (stranger_mails_per_hour). Over it nothing is
 * sent and the log says so: a flood of forged mail can make tabula mail
 * strangers only that often, and never twice for one forged mail.
 *
 * Mail an address did not ask for with a key of its own (rules-spec
 * MX-4: answers to mail under its From that no key proves, the notice
 * that another From used its key, invitations to it whoever sends them)
 * is counted per address (ref_unasked_take, REF_UNASKED_PER_HOUR): a
 * forger reaches a real player, stranger or not, only that often.
 */
#include "context_int.h"

#include "calendar_int.h"
#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A lapsed request is kept this long, so that a late answer is told it
 * lapsed (and proves its address) instead of hearing nothing. */
#define CONFIRM_KEEP_DAYS 30

int ref_confirmed(struct ref_service *svc, const char *address)
{
  bool yes = false;
  if(!address[0])
    return 0;
  if(store_confirmed_get(svc->st, &yes, address) != STORE_OK)
    return -1;
  return yes ? 1 : 0;
}

int ref_confirmed_add(struct ref_service *svc, const char *address, const char *how)
{
  return store_confirmed_add(svc->st, address, ref_now(svc), how) == STORE_OK ? 0 : -1;
}

int ref_stranger(struct ref_service *svc, const char *address)
{
  int64_t *ids = NULL;
  size_t n = 0;
  int confirmed = ref_confirmed(svc, address);
  if(confirmed)
    return confirmed < 0 ? -1 : 0;
  if(store_games_of(svc->st, &ids, &n, address) != STORE_OK)
    return -1;
  free(ids);
  return n == 0;
}

/* The budget is an hourly count (ref_hourly_count, as the rate limit's):
 * mail that would pass it is not sent, and not counted. */
int ref_stranger_budget(struct ref_service *svc, int n, const char *what, const char *to)
{
  int over = ref_hourly_count(svc, STORE_COUNT_STRANGERS, "", n, svc->cfg.stranger_mails_per_hour,
                              false);

  if(over < 0)
    return -1;
  if(over) {
    ref_log_warn("over stranger_mails_per_hour (%d): %s to %s not sent",
                 svc->cfg.stranger_mails_per_hour, what, to);
    return 0;
  }
  return 1;
}

int ref_stranger_answer(struct ref_msg_ctx *m, const char *what)
{
  switch(ref_stranger(m->svc, m->mail->from)) {
  case -1: return -1;
  case 0: return 1;
  default: break;
  }
  switch(ref_stranger_budget(m->svc, 1, what, m->mail->from)) {
  case -1: return -1;
  case 0: m->refused = 1; return 0;
  default: return 1;
  }
}

/* counted per address, whatever its case (as seats compare it) */
static void unasked_key(char *key, size_t cap, const char *address)
{
  size_t i, n = (size_t)snprintf(key, cap, "%s", address);
  for(i = 0; i < n && i < cap; i++)
    key[i] = (char)tolower((unsigned char)key[i]);
}

int ref_unasked_take(struct ref_service *svc, const char *address, int n, const char *what)
{
  char key[300];
  int over;
  unasked_key(key, sizeof(key), address);
  over = ref_hourly_count(svc, STORE_COUNT_UNASKED, key, n, REF_UNASKED_PER_HOUR, false);
  if(over < 0)
    return -1;
  if(over) {
    ref_log_warn("over %d unasked mails an hour to %s: %s not sent", REF_UNASKED_PER_HOUR,
                 address, what);
    return 0;
  }
  return 1;
}

int ref_invitations_budget(struct ref_service *svc, const char *const *to, int n, char *list,
                           size_t cap, const char **which)
{
  int i, strangers = 0, rc;
  list[0] = '\0';
  *which = "invitation-budget";
  /* every invitee's allowance first, nothing taken until all have room:
   * an invitation to a player counts as one to a stranger does (MX-4) */
  for(i = 0; i < n; i++) {
    char key[300];
    int s = ref_stranger(svc, to[i]);
    if(s < 0)
      return -1;
    strangers += s;
    unasked_key(key, sizeof(key), to[i]);
    switch(ref_hourly_room(svc, STORE_COUNT_UNASKED, key, 1, REF_UNASKED_PER_HOUR)) {
    case -1: return -1;
    case 0:
      snprintf(list, cap, "%s", to[i]);
      ref_log_warn("over %d unasked mails an hour to %s: the invitation not sent",
                   REF_UNASKED_PER_HOUR, to[i]);
      return 0;
    default: break;
    }
    snprintf(list + strlen(list), cap - strlen(list), "%s%s", i ? ", " : "", to[i]);
  }
  if(strangers) {
    *which = "stranger-budget";
    rc = ref_stranger_budget(svc, strangers, "an invitation", list);
    if(rc <= 0)
      return rc;
  }
  for(i = 0; i < n; i++)
    if(ref_unasked_take(svc, to[i], 1, "an invitation") != 1)
      return -1; /* room was there a moment ago: the store failed */
  return 1;
}

/* rules-spec MX-3 */
const char *ref_invitee_refused(struct ref_service *svc, const char *address)
{
  char host[256] = "";
  /* this machine's name: mail to it stays on the referee's own host */
  if(gethostname(host, sizeof(host) - 1))
    host[0] = '\0';
  switch(mail_addr_invitee(address, svc->cfg.address, host)) {
  case MAIL_ADDR_OK: return NULL;
  case MAIL_ADDR_QUOTED: return "address-quoted";
  case MAIL_ADDR_LITERAL: return "address-literal";
  case MAIL_ADDR_THIS_HOST: return "address-this-host";
  default: return "bad-address";
  }
}

int ref_ask_confirmation(struct ref_msg_ctx *m, const char *kind, const char *request,
                         int64_t game, const char *tmpl, const struct tpl_var *extra,
                         size_t nextra)
{
  struct ref_service *svc = m->svc;
  const char *from = m->mail->from;
  struct store_confirm c;
  struct tpl_var vars[12];
  char expires[40];
  size_t n = 0, i;
  int rc;

  memset(&c, 0, sizeof(c));
  if(strlen(request) >= sizeof(c.request) || strlen(from) >= sizeof(c.address)) {
    m->refused = 1; /* a command line or address that long is no one's request */
    return 0;
  }
  rc = ref_stranger_budget(svc, 1, "a confirmation request", from);
  if(rc <= 0) {
    m->refused = 1;
    return rc;
  }
  if(ref_make_token(c.key, sizeof(c.key)))
    return -1;
  snprintf(c.address, sizeof(c.address), "%s", from);
  snprintf(c.kind, sizeof(c.kind), "%s", kind);
  snprintf(c.request, sizeof(c.request), "%s", request);
  c.game = game;
  c.created = ref_now(svc);
  c.expires = c.created + (int64_t)svc->cfg.confirm_days * REF_DAY;
  if(store_confirm_put(svc->st, &c) != STORE_OK)
    return -1;
  ref_time_text(expires, sizeof(expires), c.expires);
  vars[n++] = (struct tpl_var){"request", request};
  vars[n++] = (struct tpl_var){"referee", svc->cfg.address};
  vars[n++] = (struct tpl_var){"expires", expires};
  for(i = 0; i < nextra && n < sizeof(vars) / sizeof(vars[0]); i++)
    vars[n++] = extra[i];
  ref_log_info("%s asked to confirm: %s", from, request);
  return ref_reply_confirm(m, from, c.key, tmpl, vars, n);
}

enum ref_rc ref_confirm_first(struct ref_msg_ctx *m, const char *line)
{
  switch(ref_confirmed(m->svc, m->mail->from)) {
  case -1: return REF_RC_FAIL;
  case 0:
    return ref_ask_confirmation(m, "new", line, 0, "confirm-new.txt", NULL, 0) ? REF_RC_FAIL
                                                                                : REF_RC_STOP;
  default: return REF_RC_OK;
  }
}

int ref_confirmation_take(struct ref_service *svc, const char *key, const char *from,
                          int64_t arrived, struct store_confirm *out,
                          enum ref_confirm_state *state)
{
  int rc = store_confirm_get(svc->st, out, key);
  if(rc == STORE_ENOTFOUND) {
    *state = REF_CONFIRM_UNKNOWN;
    return 0;
  }
  if(rc != STORE_OK)
    return -1;
  /* The key proves that the mail we sent reached its reader only when the
   * answer comes from the address we sent it to. */
  if(strcasecmp(out->address, from)) {
    ref_log_warn("confirmation key of %s used by %s: ignored", out->address, from);
    *state = REF_CONFIRM_UNKNOWN;
    return 0;
  }
  /* An answer that reached the mailbox in time is in time, however late
   * the referee reads it (the arrival rule of moves and claims). */
  *state = arrived >= out->expires ? REF_CONFIRM_LAPSED : REF_CONFIRM_OK;
  if(store_confirm_delete(svc->st, key) != STORE_OK ||
     ref_confirmed_add(svc, from,
                       *state == REF_CONFIRM_OK ? "confirmed a request" : "answered late"))
    return -1;
  return 0;
}

int ref_confirmations_prune(struct ref_service *svc)
{
  return store_confirm_prune(svc->st, ref_now(svc) - (int64_t)CONFIRM_KEEP_DAYS * REF_DAY) ==
             STORE_OK
           ? 0
           : -1;
}
