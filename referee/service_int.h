/*
 * service_int.h: layer 8 of the service, the top (docs/architecture.md):
 * the transports (transport.c), the daemon loop and the outbox flush
 * (daemon.c), the operator's commands (admin.c), opening and closing
 * (service.c). It sees every layer below (entry_int.h and what that
 * includes); nothing below includes it. The public face is referee.h.
 */
#ifndef TABULA_SERVICE_INT_H
#define TABULA_SERVICE_INT_H

#include "entry_int.h"

/* Mail sources and sinks (transport.c). ref_inbound_pass: one batch-wise
 * pass over the configured source (process, commit, then acknowledge);
 * ref_inbound_wait: until there may be news (IMAP IDLE, else poll_ms);
 * ref_outbound_send: one outbox row through the configured sink, 0 once
 * the server took it (SMTP 250, sendmail exit 0, Maildir synced), else a
 * mail_code with the reason in err. */
int ref_inbound_pass(struct ref_service *svc, size_t *processed);
int ref_inbound_wait(struct ref_service *svc, volatile sig_atomic_t *stop);
int ref_outbound_send(struct ref_service *svc, const struct store_outbox *row, char *err,
                      size_t cap);
/* Makes every message ref_outbound_send wrote durable (the Maildir sink
 * writes without fsync and syncs the group here); 0 on success. */
int ref_outbound_sync(struct ref_service *svc);
void ref_transport_close(struct ref_service *svc);


#endif
