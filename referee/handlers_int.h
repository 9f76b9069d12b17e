/*
 * handlers_int.h: layer 6 of the service, "handlers" (docs/architecture.md):
 * one function per command, grouped by file; dispatch.c calls them in the
 * order a mail's commands run. Each handler decides through the rules,
 * journals and saves what changes, and tells who must hear (views.c); a
 * refusal changes nothing. Calls only layers 1 to 5.
 */
#ifndef TABULA_HANDLERS_INT_H
#define TABULA_HANDLERS_INT_H

#include "commands.h"
#include "views_int.h"

/* cmd_time.c: vacation FROM TO, digest on|off, claim time; the loss on
 * time, mailed (a claim, a late mail, the tick). */
int ref_do_vacation(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                    const struct ref_cmd *c);
int ref_do_digest(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                  const struct ref_cmd *c);
int ref_do_claim_time(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_cmd *c);
int ref_lost_on_time(struct ref_msg_ctx *m, struct ref_game_ctx *g, int loser, int64_t deadline,
                     int claimed);

#endif
