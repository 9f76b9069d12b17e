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

#include <jansson.h>

/* Mail sources and sinks (transport.c). ref_inbound_pass: one batch-wise
 * pass over the configured source (process, commit, then acknowledge);
 * ref_inbound_wait: until there may be news (IMAP IDLE, else poll_ms).
 * The outbox goes through the sink in ref_service_flush_outbox. */
int ref_inbound_pass(struct ref_service *svc, size_t *processed);
int ref_inbound_wait(struct ref_service *svc, volatile sig_atomic_t *stop);
/* Acknowledges at the source what the last passes committed and left
 * unacknowledged so that the outbox flush could come first (IMAP, issue
 * 15); 0, or -1 when the server failed (the UIDs are then acknowledged by
 * the next session, from the last committed UID in the store). */
int ref_inbound_ack(struct ref_service *svc);
/* The source and sink drivers chosen from the configuration (once: the
 * service calls them through their tables), the Maildirs in use made; 0,
 * or -1 with the reason. ref_transport_close ends their sessions (IMAP
 * LOGOUT, SMTP QUIT) and frees them; NULL is fine. */
int ref_transport_open(struct ref_service *svc, char *errbuf, size_t errcap);
void ref_transport_close(struct ref_service *svc);
/* Says in the log where mail comes from and where replies go (serve). */
void ref_transport_serving(struct ref_service *svc);
/* What the outbox flushes between the batches of the last pass sent, and
 * their wall and CPU seconds (then cleared): a Maildir pass of more than
 * one batch sends each batch's replies before reading the next. */
void ref_transport_inner_flush(struct ref_service *svc, size_t *sent, double *wall, double *cpu);
/* The daemon's stop flag: batches and the outbox flush stop at the next
 * message once it is set (SIGTERM in under a second). */
void ref_transport_stop_on(struct ref_service *svc, volatile sig_atomic_t *stop);
/* Whether that flag is set: the daemon is stopping. */
bool ref_transport_stopping(struct ref_service *svc);
/* The store's failure during the last pass (copied into buf, then
 * cleared): false when the store did not fail. daemon.c backs off on it. */
bool ref_transport_fault(struct ref_service *svc, char *buf, size_t cap);
/* Tests only: dies (_exit 86) here when TABULA_TEST_CRASH names `where`. */
void ref_test_crash(const char *where);

/* The JSON of the operator's commands and the web view (json_out.c,
 * docs/json.md). Every document begins with "tabula_json":
 * REF_JSON_VERSION and "what" (the command or file it is); the version
 * goes up only when a field is removed, renamed or changes its type or
 * meaning, never for a field added. */
#define REF_JSON_VERSION 1
json_t *ref_json_doc(const char *what);
/* A JSON string of s (NULL: ""); bytes that are not UTF-8 become U+FFFD. */
json_t *ref_json_str(const char *s);
/* Set or append, taking value's reference (NULL: a failure before); 0 or -1. */
int ref_json_set(json_t *obj, const char *key, json_t *value);
int ref_json_set_str(json_t *obj, const char *key, const char *s);
int ref_json_push(json_t *array, json_t *value);
/* The document as text: keys in the order set, indented, a final newline;
 * malloc'd, NULL when out of memory. */
char *ref_json_text(json_t *doc);
/* Writes doc to out and releases it; 0, or -1 (said on stderr). */
int ref_json_write(FILE *out, json_t *doc);

/* site_events.c: the pages of the backgammon matches and knockouts
 * (match-M.html, knockout-T.html), a list item each into `links`. */
int ref_site_events(struct ref_service *svc, const char *dir, struct base_buf *links);

#endif
