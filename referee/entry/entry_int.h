/*
 * entry_int.h: layer 7 of the service, "entry" (docs/architecture.md):
 * where a mail (message.c, dispatch.c) or a tick (tick.c) enters, each in
 * its own store transaction; ref_service_process and ref_service_tick are
 * in referee.h. Calls only layers 1 to 6.
 */
#ifndef TABULA_ENTRY_INT_H
#define TABULA_ENTRY_INT_H

#include "handlers_int.h"

/* dispatch.c: the commands of the mail m->mail, run (inside message.c's
 * transaction). */
int ref_dispatch(struct ref_msg_ctx *m);
/* dispatch.c: a mail whose body could not be read (m->mail from
 * mail_parse_header): when its key and From name a seat, that
 * player is told why (`why`, mail_parse's reason) and that nothing
 * changed; anyone else gets nothing. Changes no game. */
int ref_dispatch_unreadable(struct ref_msg_ctx *m, const char *why);

#endif
