/*
 * message.c: one mail, one transaction (docs/architecture.md, layer 7
 * "entry"). ref_service_process parses the mail, ignores what must never
 * be answered (a repeat of a Message-ID, automatic mail: RFC 3834; a
 * sender over the rate limit), has dispatch.c run its commands, and
 * writes message seen + journal + state + outbox in ONE store
 * transaction. The caller acknowledges the source only after that commit.
 * A mail that cannot be read is answered only when its header alone names
 * a player's game with that player's key and address.
 * A refused command changes nothing but the "message seen" record and the
 * reply that says why.
 */
#include "entry_int.h"

#include "log.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The per-sender rate limit (config rate_limit, mails per hour), counted
 * inside the message's transaction: every mail counts, those over the
 * limit too. 1 when this mail is over it, 0 when not, -1 on a store
 * failure. */
static int over_rate(struct ref_service *svc, const char *from)
{
  if(svc->cfg.rate_limit <= 0 || !from[0])
    return 0;
  return ref_hourly_count(svc, STORE_COUNT_RATE, from, 1, svc->cfg.rate_limit, true);
}

int ref_service_process(struct ref_service *svc, const char *raw, size_t len, int64_t arrived,
                        enum ref_outcome *outcome)
{
  struct mail_msg *mail = NULL, *head = NULL;
  struct ref_msg_ctx m;
  char err[256], why_head[256], digest[65], key[300];
  const char *why = NULL;
  const char *result;
  bool seen = false, automatic = false;
  int over;
  int rc = -1;

  *outcome = REF_MSG_IGNORED;
  ref_msg_init(&m, svc);
  /* A mail counts when it reached the mailbox; a claimed
   * arrival in the future counts as now, and so does none (<= 0: no mail
   * arrived in 1970) */
  if(arrived > 0 && arrived < m.arrived)
    m.arrived = arrived;
  store_sha256_hex(digest, raw, len);
  if(mail_parse(&mail, raw, len, err, sizeof(err)) != MAIL_OK) {
    /* Unreadable: nothing to answer, nothing to change; the source keeps
     * the bytes (Maildir cur/), and the digest makes a repeat a no-op. */
    ref_log_warn("unreadable message %.16s: %s", digest, err);
    mail = NULL;
    /* Its own header may still be read (a body past the MIME
     * limits); when it names a player's game with their key, the player
     * is told rather than left waiting for an answer that never comes. */
    if(mail_parse_header(&head, raw, len, why_head, sizeof(why_head)) != MAIL_OK)
      head = NULL;
    else {
      automatic = mail_is_automatic(head, svc->cfg.address, &why);
      /* a header read only in part says what is wrong with it (bare CR
       * line ends ...), which tells the player more than "no From field" */
      if(why_head[0])
        snprintf(err, sizeof(err), "%s", why_head);
    }
  }
  else
    automatic = mail_is_automatic(mail, svc->cfg.address, &why);
  /* The key that makes a repeat a no-op. Automatic mail is never acted on,
   * so it must not claim its Message-ID: a mailing list's copy
   * of a player's mail (RFC 2919 List-Id, Precedence: list) carries the
   * player's Message-ID and often comes before the player's own copy,
   * which would then be dropped as a duplicate. Such mail is keyed by its
   * bytes, so only a byte-identical repeat of it is a duplicate. */
  if(mail && mail->message_id[0] && !automatic)
    snprintf(key, sizeof(key), "%s", mail->message_id);
  else if(head && head->message_id[0] && !automatic)
    snprintf(key, sizeof(key), "%s", head->message_id); /* answered once, whatever the route */
  else
    snprintf(key, sizeof(key), "<%s@digest>", digest);
  m.mail = mail;
  m.message_id = key;

  if(store_begin(svc->st) != STORE_OK) {
    /* a store locked past the busy timeout, a full disk: the source keeps
     * the mail (an MTA on 75), and the operator reads why */
    ref_log_error("message %s not processed (%s); will retry", key, store_errmsg(svc->st));
    goto out;
  }
  if(store_message_seen(svc->st, key, &seen) != STORE_OK)
    goto rollback;
  if(seen) {
    *outcome = REF_MSG_DUPLICATE;
    ref_store_rollback(svc);
    if(!automatic && !(mail && mail->message_id[0]) && !(head && head->message_id[0]))
      /* a hand-written mail without a Message-ID is known by its bytes:
       * the same file again is the same mail (README, "Quick start"),
       * said where the person who sent it twice will look */
      ref_log_warn("message %s has no Message-ID and is byte for byte one already read: "
                   "not read again (give each mail its own Message-ID)", key);
    else
      ref_log_info("message %s already processed: nothing to do", key);
    rc = 0;
    goto out;
  }
  if(!mail && head && !automatic && (over = over_rate(svc, head->from)) <= 0) {
    if(over < 0)
      goto rollback;
    m.mail = head;
    if(ref_dispatch_unreadable(&m, err))
      goto rollback;
    *outcome = m.replied ? REF_MSG_REFUSED : REF_MSG_IGNORED;
    result = m.replied ? "refused: unreadable" : "ignored: unreadable";
  }
  else if(!mail) {
    result = "ignored: unreadable";
  }
  else if(automatic) {
    /* RFC 3834 §2: never answer automatic mail, so no loops. */
    ref_log_info("message %s ignored: %s", key, why);
    result = "ignored: automatic";
  }
  else if((over = over_rate(svc, mail->from)) != 0) {
    if(over < 0)
      goto rollback;
    /* Recorded (a repeat stays a no-op), never answered */
    ref_log_warn("message %s from %s ignored: over the rate limit of %d mails per hour",
                 key, mail->from, svc->cfg.rate_limit);
    result = "ignored: rate limit";
  }
  else {
    if(ref_dispatch(&m))
      goto rollback;
    if(m.changed)
      *outcome = m.refused ? REF_MSG_REFUSED : REF_MSG_APPLIED;
    else if(m.refused)
      *outcome = m.replied ? REF_MSG_REFUSED : REF_MSG_IGNORED;
    else
      *outcome = REF_MSG_APPLIED;
    result = *outcome == REF_MSG_APPLIED   ? "applied"
             : *outcome == REF_MSG_REFUSED ? "refused"
                                           : "ignored";
  }
  if(store_message_record(svc->st, key, digest, ref_now(svc), result) != STORE_OK)
    goto rollback;
  if(store_commit(svc->st) != STORE_OK)
    goto rollback;
  /* One line per mail, whatever became of it */
  if(m.game)
    ref_log_info("mail %s from %s: game %lld, %s", key, m.mail ? m.mail->from : "?",
                 (long long)m.game, result);
  else
    ref_log_info("mail %s from %s: %s", key, m.mail ? m.mail->from : "?", result);
  rc = 0;
  goto out;
rollback:
  /* Nothing of this message is kept; the source keeps it for a retry. */
  ref_log_error("message %s not processed (%s); will retry", key, store_errmsg(svc->st));
  ref_store_rollback(svc);
  *outcome = REF_MSG_IGNORED;
out:
  base_buf_free(&m.events);
  mail_msg_free(mail);
  mail_msg_free(head);
  return rc;
}
