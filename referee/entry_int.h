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

#endif
