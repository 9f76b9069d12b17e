/*
 * cmd_confirm.c: the answer to a confirmation request (nothing
 * to an address that has not asked). The reply carries the request's
 * one-time key (local+confirm.KEY@ or "[tabula confirm KEY]", found by
 * dispatch.c) and the word "confirm"; it must come from the address the
 * request was mailed to (optin.c). Then the stored command runs as if
 * that address had just sent it: `observe` (cmd_observe.c) here; a
 * command stored as kind "new" (`new`, `tournament`, `seek`: the rows
 * flagged REF_CF_CONFIRMED) and the lines of a player's mail without a
 * game's key (cmd_keyless.c) are handed back to dispatch.c, which runs
 * commands. Layer 6, "handlers" (docs/architecture.md).
 */
#include "handlers_int.h"

#include "log.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum ref_rc ref_do_confirm(struct ref_msg_ctx *m, const char *key, const struct ref_cmds *cmds,
                           struct store_confirm *run)
{
  struct ref_service *svc = m->svc;
  const char *from = m->mail->from;
  struct store_confirm req;
  struct ref_cmds request;
  enum ref_confirm_state state;
  int i, word = 0;

  memset(run, 0, sizeof(*run));

  /* The word must be the sender's own line (rules-spec OPT-1): the
   * request never holds it on a line of its own (its templates say it
   * inside a sentence), so a copy of the request, as an auto-responder
   * that ignores RFC 3834 sends it back unquoted, holds no such line.
   * Nor does the subject count: it is the request's own, echoed by any
   * responder. */
  for(i = 0; i < cmds->ncmd && !cmds->from_subject; i++)
    word |= cmds->cmd[i].kind == REF_CMD_CONFIRM;
  /* Without the word the reply is no answer (an auto-responder that
   * ignores RFC 3834, say): nothing is said, so nothing can loop. */
  if(!word) {
    ref_log_info("mail %s from %s carries a confirmation key but not the word: ignored",
                 m->message_id, from);
    m->refused = 1;
    return REF_RC_REFUSED;
  }
  if(ref_confirmation_take(svc, key, from, m->arrived, &req, &state))
    return REF_RC_FAIL;
  if(state == REF_CONFIRM_UNKNOWN)
    return ref_rc_of(m, ref_refuse_player(m, "confirm", "confirm-unknown", ""));
  if(state == REF_CONFIRM_LAPSED)
    return ref_rc_of(m, ref_refuse(m, NULL, -1, req.request, "confirm-lapsed", "", NULL));
  ref_log_info("%s confirmed: %s", from, req.request);
  /* A mail without a game's key, confirmed from the address of
   * record: its lines run in its game as if they carried the seat's key;
   * a command its sender had to confirm first (kind "new": new,
   * tournament, seek) runs as if just sent. Both from the entry layer,
   * which runs commands (dispatch.c) */
  if(!strcmp(req.kind, "keyless") || !strcmp(req.kind, "new")) {
    *run = req;
    return REF_RC_OK;
  }
  ref_commands_parse(&request, req.request, NULL);
  for(i = 0; i < request.ncmd; i++)
    if(!strcmp(req.kind, "observe") && request.cmd[i].kind == REF_CMD_OBSERVE)
      return ref_rc_of(m, ref_do_observe_confirmed(m, req.game, req.request));
  ref_log_error("confirmation %s: the stored request '%s' does not read as a %s", key,
                req.request, req.kind);
  return REF_RC_FAIL;
}
