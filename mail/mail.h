/*
 * mail.h: tabula's mail layer (library tabula_mail): reading RFC 5322
 * messages into one clean UTF-8 text, composing replies, and the Maildir
 * transport in both directions.
 *
 * Standards: RFC 5322 (message format), RFC 2045-2047 (MIME, encoded words),
 * RFC 3834 (automatic responses), the Maildir spec (cr.yp.to/proto/maildir).
 *
 * Everything read here is hostile: sizes are bounded (MAIL_MAX_MESSAGE),
 * header values used again in a reply are checked (mail_addr_valid,
 * mail_msgid_valid) and never copied raw into an outgoing header.
 *
 * Conventions: 0 on success, a negative enum mail_code on failure with a
 * reason in the caller's errbuf where there is one. Returned strings and
 * structs are owned by the caller and freed with the matching _free or free().
 */
#ifndef TABULA_MAIL_H
#define TABULA_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAIL_MAX_MESSAGE (10u * 1024u * 1024u) /* bytes of one raw message */
#define MAIL_ADDR_MAX 256

enum mail_code {
  MAIL_OK = 0,
  MAIL_EPARSE = -1, /* not a usable message (no From, broken headers) */
  MAIL_ETOOBIG = -2,
  MAIL_EIO = -3,
  MAIL_ENOMEM = -4
};

/* A parsed inbound message. */
struct mail_msg {
  char from[MAIL_ADDR_MAX];    /* addr-spec of From, lower-cased; "" if unusable */
  char from_name[128];         /* display name, decoded, may be "" */
  char sender[MAIL_ADDR_MAX];  /* Return-Path addr-spec, "" if absent, "<>" for null sender */
  char to[MAIL_ADDR_MAX];      /* first To addr-spec (the +token lives here) */
  char delivered_to[MAIL_ADDR_MAX];
  char message_id[256];        /* with angle brackets as received; "" if absent or invalid */
  char in_reply_to[256];       /* first msg-id of In-Reply-To, "" if none */
  char references[1024];       /* References, checked msg-ids separated by one space */
  char subject[512];           /* decoded (RFC 2047) to UTF-8, control chars removed */
  char auto_submitted[64];     /* value of Auto-Submitted, lower-cased */
  char precedence[32];         /* value of Precedence, lower-cased */
  bool list;                   /* List-Id or List-Unsubscribe present */
  char *text;                  /* the body decoded to UTF-8 (text/plain preferred) */
  char *clean;                 /* text less quotes, signatures, reply headers */
};

/* Parses raw (len bytes, at most MAIL_MAX_MESSAGE). */
int mail_parse(struct mail_msg **out, const char *raw, size_t len, char *errbuf, size_t errcap);
void mail_msg_free(struct mail_msg *m); /* NULL is fine */

/* RFC 3834 §2 and common practice: true when tabula must not answer m
 * (Auto-Submitted other than "no", null or MAILER-DAEMON sender,
 * Precedence bulk/list/junk, list headers, or mail from own_address).
 * *why gets a short reason. */
bool mail_is_automatic(const struct mail_msg *m, const char *own_address, const char **why);

/* Removes reply clutter from text: lines quoted with '>', a "-- " signature
 * and what follows, "On ... wrote:" lines, Outlook "-----Original Message-----"
 * and "From: ... Sent: ..." blocks, "Sent from my ..." taglines. New string. */
char *mail_clean_text(const char *text);

/* addr-spec sanity for use in a header: local@domain, printable ASCII, no
 * spaces, no CR/LF, no angle brackets, at most MAIL_ADDR_MAX-1 bytes. */
bool mail_addr_valid(const char *addr);
bool mail_msgid_valid(const char *msgid);

/* An outgoing reply. NULL fields are left out. */
struct mail_out {
  const char *from;        /* addr-spec (checked) */
  const char *from_name;   /* "tabula referee" (ASCII) */
  const char *reply_to;    /* addr-spec (checked) */
  const char *to;          /* addr-spec (checked) */
  const char *subject;     /* UTF-8; encoded per RFC 2047 when not ASCII */
  const char *in_reply_to; /* msg-id (checked) */
  const char *references;  /* msg-ids separated by spaces (each checked) */
  const char *message_id;  /* msg-id to use; NULL: generated from domain */
  const char *domain;      /* right side of generated Message-IDs */
  int64_t date;            /* unix seconds for the Date header */
  const char *body;        /* UTF-8 text, LF line ends; sent text/plain, never flowed */
};

/* Composes the whole message (CRLF line ends, 7bit or quoted-printable
 * body) into *out (free()). *msgid_out, if non-NULL, gets the Message-ID
 * used (cap 256). MAIL_EPARSE when a header field fails its check. */
int mail_compose(char **out, char *msgid_out, const struct mail_out *m);

/* ---- Maildir ---- */

/* Creates dir and dir/tmp, dir/new, dir/cur as needed. */
int mail_maildir_init(const char *dir);
/* Names of the files in dir/new, sorted (delivery order); free with
 * mail_names_free. */
int mail_maildir_list_new(const char *dir, char ***names, size_t *n);
void mail_names_free(char **names, size_t n);
/* Reads dir/new/name (at most MAIL_MAX_MESSAGE bytes) into *data (free()). */
int mail_maildir_read(const char *dir, const char *name, char **data, size_t *len);
/* Acknowledges a processed message: renames dir/new/name to
 * dir/cur/name:2,S. Call only after the store committed. */
int mail_maildir_ack(const char *dir, const char *name);
/* Delivers data into dir the Maildir way: write dir/tmp/N, fsync, link to
 * dir/new/N, fsync the directory. name_out (may be NULL) gets N. */
int mail_maildir_deliver(const char *dir, const char *data, size_t len, char *name_out,
                         size_t cap);

/* Reads a whole message from fd (the MTA-pipe mode) into *data, bounded by
 * MAIL_MAX_MESSAGE. */
int mail_read_fd(int fd, char **data, size_t *len);

#endif /* TABULA_MAIL_H */
