/*
 * transport_int.h: the mail sources and sinks as drivers, one file each
 * (source_maildir.c, source_imap.c, source_pop3.c; sink_maildir.c,
 * sink_smtp.c, sink_sendmail.c), chosen once when the service opens
 * (transport.c, ref_transport_open) from the configuration's source and
 * sink. A driver is the service's adapter to mail/'s protocol code: it
 * reads, records, acknowledges or sends as its protocol wants. What is
 * the same for all (batches and their savepoints, the commit before any
 * acknowledgement, the outbox's claims, retries and backoff) is
 * transport.c's, which calls the drivers through these tables. A driver
 * calls nothing of transport.c. Layer 8, the top (docs/architecture.md).
 */
#ifndef TABULA_TRANSPORT_INT_H
#define TABULA_TRANSPORT_INT_H

#include "service_int.h"

#include "mail.h"

/* One message of a batch, as a source read it. */
struct ref_item {
  char *data; /* NULL: not processed (too big, still being written, unreadable) */
  size_t len;
  int64_t arrived; /* when it reached the mailbox, -1 unknown */
  bool ack;     /* to be acknowledged once committed (false: unreadable, left) */
  bool writing; /* a Maildir file still being written: left, looked at again */
  bool empty;   /* a Maildir file with nothing in it: left, until written */
};

/* A source. A pass is begin, then batches (read, processed and committed
 * by transport.c with record writing the source's bookkeeping into the
 * same transaction, then committed told how many went through), then end. */
struct ref_source_driver {
  const char *name; /* the configuration's word, for the log */
  /* true: a pass reads one batch, and mail left beyond it makes the next
   * pass come at once (IMAP, POP3: a session's listing). false: a pass
   * reads every batch there is, the outbox flushed between two
   * (Maildir: a backlog's replies never all held in memory). */
  bool one_batch;
  /* The options the source needs besides its word: 0, or -1 and why. */
  int (*check)(const struct ref_config *cfg, char *err, size_t cap);
  /* Where the mail comes from, in words for the log: a host or a folder. */
  const char *(*where)(const struct ref_config *cfg);
  /* The Maildir read (made at open, its tmp/ cleaned), or NULL. */
  const char *(*folder)(const struct ref_config *cfg);
  /* The driver's state (no network yet); NULL when memory fails. */
  void *(*open)(const struct ref_config *cfg);
  /* Sessions ended (IMAP LOGOUT), the state freed; NULL is fine. */
  void (*close)(void *state);
  /* A pass begins: connected, listed. 0, or -1 (logged). */
  int (*begin)(struct ref_service *svc, void *state);
  /* The next batch, at most max items into v (zeroed): *n of them; *left:
   * mail beyond it this pass could read. *through (TM-1) is lowered to the
   * arrival of a mail the source saw and left. 0, or -1 when memory fails
   * (a failing server is said by end). */
  int (*read)(struct ref_service *svc, void *state, struct ref_item *v, size_t max, size_t *n,
              bool *left, int64_t *through);
  /* In the batch's transaction, before its commit: the source's own
   * bookkeeping, told how many leading items went through; 0 or -1.
   * NULL: none. */
  int (*record)(struct ref_service *svc, void *state, size_t good);
  /* After the batch: the first `good` of v[0..n) are committed (none when
   * the commit failed) and may be acknowledged now or later (ack). */
  void (*committed)(struct ref_service *svc, void *state, const struct ref_item *v, size_t n,
                    size_t good);
  /* The pass ends (all_good: every batch committed): POP3 deletes and
   * quits, Maildir notes what it did not read (*through = -1). 0, or -1
   * when the source failed in the pass. */
  int (*end)(struct ref_service *svc, void *state, bool all_good, int64_t *through);
  /* What committed left to acknowledge after the outbox flush (IMAP
   * \Seen or MOVE); 0 or -1. NULL: nothing is deferred. */
  int (*ack)(struct ref_service *svc, void *state);
  /* Waits for news: 0 waited (or need not), 1 cannot: the caller sleeps
   * poll_ms, -1 the session failed. NULL: always 1. */
  int (*wait)(struct ref_service *svc, void *state, volatile sig_atomic_t *stop);
};

/* A sink. */
struct ref_sink_driver {
  const char *name; /* the configuration's word, for the log */
  /* true: a chunk of rows is written, made durable at once (sync), then
   * marked sent in one transaction whose commit need not be synced; rows
   * in doubt are looked for before (chunk), and a failed write (MAIL_EIO)
   * means the sink is down (Maildir: a crash between the write and the
   * mark finds the files by name). false: each row is marked sent as the
   * sink takes it, so a crash repeats at most the one in flight (SMTP,
   * sendmail). */
  bool grouped;
  int (*check)(const struct ref_config *cfg, char *err, size_t cap);
  const char *(*where)(const struct ref_config *cfg);
  const char *(*folder)(const struct ref_config *cfg); /* the Maildir written, or NULL */
  void *(*open)(const struct ref_config *cfg);
  void (*close)(void *state); /* SMTP QUIT; the state freed; NULL is fine */
  /* grouped: before a chunk of n rows (fresh: this process just queued
   * them), found[i] for a row in doubt the sink holds already; 0, or -1
   * with errno. NULL: nothing is looked for. */
  int (*chunk)(struct ref_service *svc, void *state, const struct store_outbox *rows, size_t n,
               bool fresh, bool *found);
  /* One row: 0 once the sink took it, else a mail_code, why in err. */
  int (*send)(struct ref_service *svc, void *state, const struct store_outbox *row, bool fresh,
              char *err, size_t cap);
  /* grouped: what send wrote made durable; 0, or -1 with errno. */
  int (*sync)(struct ref_service *svc, void *state);
};

extern const struct ref_source_driver ref_source_maildir, ref_source_imap, ref_source_pop3;
extern const struct ref_sink_driver ref_sink_maildir, ref_sink_smtp, ref_sink_sendmail;

/* What the drivers share (drivers.c). The inbound (in) or SMTP server of
 * the configuration. */
void ref_driver_server(const struct ref_config *cfg, bool in, struct mail_server *s);
/* A copy of s with LF line ends (Maildir files, sendmail's input: the
 * stored message keeps CRLF for SMTP); NULL when memory fails. */
char *ref_driver_lf_copy(const char *s, size_t *len);
/* CLOCK_MONOTONIC seconds. */
double ref_driver_seconds(void);

#endif
