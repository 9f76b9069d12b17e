/*
 * rc.h: the service's one result type (docs/architecture.md, layer 1
 * "base"). What a command's handler returns (commands.h, the table), and
 * every function of the service that can do, refuse, or leave a thing to
 * its caller, so that a value means the same wherever it is read: -1 is
 * always a failure, never "refused".
 */
#ifndef TABULA_RC_H
#define TABULA_RC_H

enum ref_rc {
  /* The store or memory failed: the mail's transaction is undone and the
   * mail read again later (message.c); nothing was said to anyone. */
  REF_RC_FAIL = -1,
  /* Done, or nothing to do: the mail's next command runs. */
  REF_RC_OK = 0,
  /* Refused: nothing changed; the sender was told why (ref_refuse), or
   * nobody (a stranger, an answer over its allowance). The mail's other
   * commands are not run. */
  REF_RC_REFUSED = 1,
  /* Done, and what the caller meant to do next is not done: a command
   * that settled the rest of the mail (a draw claim with its move); a
   * command that must first be confirmed (ref_confirm_first: asked). */
  REF_RC_STOP = 2,
  /* Not this one's: nothing done, the caller goes on its own way (a word
   * that is no term of a game: ref_terms_word; a game that is no round
   * robin's: ref_tournament_answer). */
  REF_RC_PASS = 3,
};

#endif
