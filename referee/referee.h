/*
 * referee.h: the service's public header (library tabula_service). The one
 * place that joins the rules core, the store and the mail layer.
 *
 * The path of one message (docs/architecture.md):
 *   raw bytes -> mail_parse -> find game and seat by token -> commands ->
 *   rules -> ONE store transaction (message seen, journal, state, outbox)
 *   -> acknowledge the source -> send the outbox.
 */
#ifndef TABULA_REFEREE_H
#define TABULA_REFEREE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The configuration: one table of options (config.c) drives defaults,
 * parsing, validation and `tabula check-config`. */
struct ref_config {
  char store_path[512];    /* SQLite file */
  char inbox[512];         /* Maildir read by `serve` */
  char outbox[512];        /* Maildir that replies are written to */
  char address[256];       /* the referee's address; replies come from it */
  char domain[128];        /* right side of Message-IDs */
  char templates_dir[512]; /* override for templates/, "" = the embedded ones */
  int poll_ms;             /* inbox poll interval of `serve` */
  int log_level;           /* 0 error .. 3 debug */
  int auth_from;           /* 1: token and From must both match the seat (default) */
};

void ref_config_defaults(struct ref_config *cfg);
/* Reads an INI file over the current values; unknown keys are errors. */
int ref_config_load(struct ref_config *cfg, const char *path, char *errbuf, size_t errcap);
void ref_config_dump(FILE *out, const struct ref_config *cfg);

/* What became of one message. */
enum ref_outcome {
  REF_MSG_APPLIED,   /* commands ran; state may have changed */
  REF_MSG_REFUSED,   /* answered with an error; nothing changed */
  REF_MSG_IGNORED,   /* automatic mail, stranger, unreadable: no reply */
  REF_MSG_DUPLICATE  /* Message-ID already processed: nothing at all */
};

struct ref_service;

int ref_service_open(struct ref_service **out, const struct ref_config *cfg, char *errbuf,
                     size_t errcap);
void ref_service_close(struct ref_service *svc); /* NULL is fine */

/* The clock, injectable for tests (seconds since the epoch). */
void ref_service_set_clock(struct ref_service *svc, int64_t (*now)(void *arg), void *arg);

/* Processes one raw message in one transaction. Returns 0 when the message
 * may be acknowledged to its source (whatever the outcome), -1 on a
 * temporary failure (store busy, disk full): keep it and retry. */
int ref_service_process(struct ref_service *svc, const char *raw, size_t len,
                        enum ref_outcome *outcome);
/* The MTA-pipe mode: one message from fd, processed, outbox flushed. */
int ref_service_deliver_fd(struct ref_service *svc, int fd);
/* One pass over inbox/new: process, acknowledge after commit, flush. */
int ref_service_poll(struct ref_service *svc, size_t *processed);
/* Writes every due outbox row to the outbox Maildir, marking each sent. */
int ref_service_flush_outbox(struct ref_service *svc, size_t *sent);
/* The daemon loop: poll until *stop is set (SIGTERM/SIGINT). */
int ref_service_run(struct ref_service *svc, volatile sig_atomic_t *stop);

/* Operator views. */
int ref_service_print_games(struct ref_service *svc, FILE *out);
int ref_service_print_game(struct ref_service *svc, FILE *out, int64_t game);
/* Replays every game's journal through the rules and compares with the
 * stored state and the journal's hash chain. 0 when all agree. */
int ref_service_check(struct ref_service *svc, FILE *out);
/* Checks every dice roll of a game (tabula-dice-1) from the store. */
int ref_service_verify(struct ref_service *svc, FILE *out, int64_t game);

#endif /* TABULA_REFEREE_H */
