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
  MAIL_ENOMEM = -4,
  MAIL_ENET = -5,     /* network or server trouble: try again later */
  MAIL_ETLS = -6,     /* TLS failed or the server's certificate is not trusted */
  MAIL_EAUTH = -7,    /* the server refused the user name or password */
  MAIL_EREFUSED = -8, /* the server refused this message for good (SMTP 5xx) */
  MAIL_ELIMIT = -9,   /* mail_parse: the MIME structure is past a limit (nesting,
                         parts, header fields, parameters, comment depth) or cannot
                         be taken apart safely; the header may still be readable */
  MAIL_EAGAIN = -10,  /* mail_maildir_read: the file is still being written (a
                         writer holds it open, or it changed a moment ago): not
                         read, look again later */
  MAIL_EEMPTY = -11   /* mail_maildir_read: the file is empty and nobody writes
                         it: no message yet, never one to acknowledge */
};

#define MAIL_AUTHRES_FIELDS 4096 /* bytes of Authentication-Results kept */

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
  char auth_results[MAIL_AUTHRES_FIELDS]; /* every Authentication-Results field
                                  (RFC 8601) as written, topmost first, one a line (the
                                  folding's CR, LF and TAB made spaces); a field that does
                                  not fit ends the list, so that what is kept is always the
                                  top of it; "" if none. Read it with mail_authres_vouches */
  bool list;                   /* List-Id, List-Unsubscribe or List-Post present */
  bool autoreply;              /* X-Autoreply or X-Autorespond present (responders that
                                  predate RFC 3834) */
  bool report;                 /* the message is a multipart/report (RFC 6522: delivery
                                  and disposition notifications) */
  char *text;                  /* the body decoded to UTF-8 (text/plain preferred) */
  char *clean;                 /* text less quotes, signatures, reply headers */
  bool head_only;              /* from mail_parse_header: the body was not read,
                                  text and clean are "" */
};

/* Parses raw (len bytes, at most MAIL_MAX_MESSAGE). 0 and *out set, or:
 *   MAIL_ETOOBIG  over MAIL_MAX_MESSAGE, or its text would be;
 *   MAIL_ELIMIT   the MIME structure is past a limit: more than 40 levels
 *                 of nesting, 5,000 body parts, 1,000 fields in one header
 *                 or 10,000 in all, 100 parameters in one field or 10,000
 *                 in all, 200 nested comments, 64 KiB of Content-* fields
 *                 in one header, or a boundary libetpan cannot take. Only
 *                 structure counts, as libetpan parses it: words in the
 *                 text ("multipart", "(", lines starting with "--") never do;
 *   MAIL_EPARSE   no usable message: no From or more than one, an address
 *                 that fails its check, no header at all;
 *   MAIL_ENOMEM.
 * errbuf gets a short reason ("too many MIME parts", "no From field"). */
int mail_parse(struct mail_msg **out, const char *raw, size_t len, char *errbuf, size_t errcap);

/* What can be read of a message mail_parse refused, so that the service
 * can still answer a player whose From and key match (and no one else):
 * the message's own header alone, with the same checks as mail_parse:
 * from, from_name, sender, to (with its +tag), delivered_to, message_id,
 * in_reply_to, references, subject (with its [tabula ...] tag),
 * auto_submitted, precedence, list, autoreply and report (so that
 * mail_is_automatic answers as for a full parse); text and clean are ""
 * and head_only is true. Looks at no more than the first MiB, so it may
 * be given the start of a message over MAIL_MAX_MESSAGE. 0 and *out set;
 * MAIL_EPARSE when the header has no usable From (mail_parse's reasons);
 * MAIL_ELIMIT when the header itself is past the limits on one header;
 * MAIL_ENOMEM. A header that cannot be read whole (past a limit, bare CR
 * line ends, a first line that is no field or begins with a space) is
 * read in part: only the fields named above, each at most 8 times (two
 * From fields stay two, and are refused), up to the first empty line,
 * checked as any; errbuf then gets what is wrong with it in words ("" when
 * it is only past a limit). */
int mail_parse_header(struct mail_msg **out, const char *raw, size_t len, char *errbuf,
                      size_t errcap);
void mail_msg_free(struct mail_msg *m); /* NULL is fine */

/* RFC 3834 §2 and common practice: true when tabula must not answer m
 * (Auto-Submitted other than "no", null or MAILER-DAEMON sender, a
 * multipart/report, Precedence bulk/list/junk/auto_reply, X-Autoreply,
 * list headers, or mail from own_address). *why gets a short reason:
 * "auto-submitted", "null sender", "mailer-daemon", "report", "precedence",
 * "x-autoreply", "mailing list", "own address" (or "" when false). */
bool mail_is_automatic(const struct mail_msg *m, const char *own_address, const char **why);

/* Removes reply clutter from text: lines quoted with '>', a "-- " signature
 * and what follows, "On ... wrote:" lines, Outlook "-----Original Message-----"
 * and "From: ... Sent: ..." blocks, "Sent from my ..." taglines. New string. */
char *mail_clean_text(const char *text);

/* ---- Authentication-Results (RFC 8601, authres.c) ----
 *
 * One field's value read by RFC 8601 §2.2's grammar: quoted strings and
 * comments (nested) are text, a ";" or "dmarc=pass" in them separates
 * nothing. Names (methods, results, ptypes, properties) lower-cased;
 * values as written, a quoted-string's quotes and quoted-pairs undone. */
#define MAIL_AUTHRES_MAX 2048     /* the longest field value read; longer: unreadable */
#define MAIL_AUTHRES_RESINFOS 16  /* resinfos a field; more: unreadable */
#define MAIL_AUTHRES_PROPS 8      /* propspecs a resinfo; more: unreadable */
#define MAIL_AUTHRES_WORD 48      /* a Keyword's bytes, with its NUL */
#define MAIL_AUTHRES_VALUE 256    /* a value's bytes, with its NUL */

struct mail_authres_prop {
  char ptype[MAIL_AUTHRES_WORD];    /* "header" */
  char property[MAIL_AUTHRES_WORD]; /* "from" */
  char value[MAIL_AUTHRES_VALUE];   /* "example.org" */
  bool quoted;                      /* some of the value was a quoted-string */
};

struct mail_authres_resinfo {
  char method[MAIL_AUTHRES_WORD]; /* "dkim" */
  int version;                    /* method-version, 0 when absent */
  char result[MAIL_AUTHRES_WORD]; /* "pass" */
  char reason[MAIL_AUTHRES_VALUE];
  bool reason_given;
  int nprop;
  struct mail_authres_prop prop[MAIL_AUTHRES_PROPS];
};

struct mail_authres {
  char authserv_id[MAIL_AUTHRES_VALUE]; /* as written, quotes undone */
  int version;                          /* authres-version, 1 when absent */
  bool none;                            /* "; none": no method was run */
  int nres;
  struct mail_authres_resinfo res[MAIL_AUTHRES_RESINFOS];
};

/* Reads the len bytes of one field value (after "Authentication-Results:").
 * 0: all of it follows the grammar; -1: the authserv-id was read (in
 * out->authserv_id) but what follows does not; -2: not even that (or
 * over MAIL_AUTHRES_MAX, or a NUL in it). */
int mail_authres_parse(struct mail_authres *out, const char *field, size_t len);

/* Whether the fields (mail_msg.auth_results: topmost first, one a line)
 * hold the trusted server's word that the mail is from `domain`: the
 * topmost field whose authserv-id is `authserv_id` (any case; RFC 8601
 * §5: the border MTA removed the others with its id and put its own on
 * top, so any below it came with the mail) reads whole and says
 * dmarc=pass with header.from `domain`, or dkim=pass with header.d
 * `domain`, and no DMARC result but pass for `domain`. False when a field
 * above it has an authserv-id that cannot be read (it could be the
 * trusted one). */
bool mail_authres_vouches(const char *fields, const char *authserv_id, const char *domain);

/* ---- arrival ----
 *
 * A mail counts at the time it reached the referee's mailbox, whenever
 * tabula reads it: each source gives that time with each message (Maildir:
 * mail_maildir_arrival; IMAP: INTERNALDATE from mail_imap_fetch; POP3,
 * which has none: mail_received_time of the message; tabula deliver: the
 * moment it runs). Never the sender's Date:, which the sender writes. A
 * time in the future is the caller's to treat as now (it alone knows its
 * clock). All in Unix seconds, -1 for "not known". */

/* RFC 5322 §3.3 date-time (and the obsolete forms of §4.3: two-digit
 * years, zone names, comments) in the n bytes of s: Unix seconds, or -1
 * when s holds anything else. */
int64_t mail_date_parse(const char *s, size_t n);
/* The date of raw's top Received: field, after its last ';' (RFC 5321
 * §4.4): written by the server that put the message into the mailbox,
 * i.e. the operator's own. -1 when the top one has none that parses. */
int64_t mail_received_time(const char *raw, size_t len);

/* addr-spec sanity for use in a header: local@domain, printable ASCII, no
 * spaces, no CR/LF, no angle brackets, at most MAIL_ADDR_MAX-1 bytes. */
bool mail_addr_valid(const char *addr);
bool mail_msgid_valid(const char *msgid);

/* What a written address is, read as RFC 5322 §3.4.1's addr-spec and
 * never repaired (nothing dropped, nothing added): the answer to "may
 * tabula mail this address it was asked to invite?". */
enum mail_addr_kind {
  MAIL_ADDR_OK,        /* dot-atom@dot-atom, a host name's characters, and mail_addr_valid */
  MAIL_ADDR_SYNTAX,    /* no addr-spec at all ("a\"b@c", "a@b@c", "a b@c") */
  MAIL_ADDR_QUOTED,    /* an addr-spec with a quoted-string local part: tabula
                          writes only dot-atom addresses into a header */
  MAIL_ADDR_LITERAL,   /* the domain is a domain literal ("[192.0.2.1]") or a bare
                          IPv4 address: a machine, not a mail domain */
  MAIL_ADDR_THIS_HOST, /* own_address itself (any +tag of it), `host`, or localhost */
};
/* `own_address` is the referee's address, `host` this machine's name (NULL
 * or "" for none); both compared without case. */
enum mail_addr_kind mail_addr_invitee(const char *text, const char *own_address,
                                      const char *host);

/* A file attached to a reply (the game's record). */
struct mail_part {
  const char *filename; /* [A-Za-z0-9._-] only, at most 64 bytes (checked) */
  const char *type;     /* "text/plain", "application/vnd.chess-pgn" (checked) */
  const char *data;
  size_t len;
};

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
  const char *html;        /* NULL, or the same content as HTML: then the body is
                              multipart/alternative, the text part first (RFC 2046 5.1.4) */
  const struct mail_part *attach; /* files: multipart/mixed around the body (RFC 2046 5.1.3) */
  size_t nattach;
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
/* When dir/new/name was delivered: the seconds its unique name starts
 * with ("1700000000.M12P34.host", cr.yp.to/proto/maildir.html: the time
 * the delivering program began), else the file's modification time; -1
 * when neither is there. The name first, because it is set once, by the
 * program that delivered the message, and goes wherever the file goes
 * (new/ to cur/, a copy to a new server, a restore from a backup), while
 * a copy without -p, a touch or an IMAP server's APPEND with a date of
 * the client's choice change the modification time. A name time before
 * 2001-09-09 (fewer than ten digits) is not taken for one. */
int64_t mail_maildir_arrival(const char *dir, const char *name);
/* Reads dir/new/name (at most MAIL_MAX_MESSAGE bytes) into *data (free()),
 * only once it is whole: a file written in place in new/ (`cat > new/m`, an
 * editor, a slow writer), not by the Maildir way of tmp/ and a rename, is
 * MAIL_EAGAIN while a writer holds it open (Linux: a read lease cannot be
 * had) or, where that cannot be asked, while it changed in the last
 * MAIL_SETTLE_S seconds, and MAIL_EEMPTY while it is empty. Neither may be
 * acknowledged: the caller looks again later (docs/architecture.md, "The
 * inbox"). */
#define MAIL_SETTLE_S 2
int mail_maildir_read(const char *dir, const char *name, char **data, size_t *len);
/* Acknowledges a processed message: renames dir/new/name to
 * dir/cur/name:2,S. Call only after the store committed. */
int mail_maildir_ack(const char *dir, const char *name);
/* Delivers data into dir the Maildir way: write dir/tmp/N, fsync, link to
 * dir/new/N, fsync the directory. name_out (may be NULL) gets N. */
int mail_maildir_deliver(const char *dir, const char *data, size_t len, char *name_out,
                         size_t cap);

/* Removes the files of dir/tmp/ neither read nor written for idle_s seconds
 * before now (the Maildir convention's 36 hours: a writer that died
 * leaves them); *removed gets their number. A missing tmp/ is no error. */
#define MAIL_MAILDIR_TMP_IDLE_S (36 * 3600)
int mail_maildir_clean_tmp(const char *dir, int64_t now, int64_t idle_s, size_t *removed);

/* Reads a whole message from fd (the MTA-pipe mode) into *data, bounded by
 * MAIL_MAX_MESSAGE. */
int mail_read_fd(int fd, char **data, size_t *len);
/* mail_maildir_ack for a batch. Neither syncs cur/: the store knows
 * every processed message, so one a crash puts back in new/ is read again
 * as a no-op. Returns the number of names that could not be moved. */
size_t mail_maildir_ack_batch(const char *dir, char *const *names, size_t n);
/* Group delivery: mail_maildir_deliver without its two fsyncs, for many
 * messages; then one mail_maildir_sync(dir) (syncfs(2): one flush of the
 * file system) makes all of them durable. Nothing delivered this way may be
 * reported as sent before mail_maildir_sync returned 0. */
int mail_maildir_deliver_nosync(const char *dir, const char *data, size_t len, char *name_out,
                                size_t cap);
int mail_maildir_sync(const char *dir);
/* new/ alone: the renames into it durable, for messages put with
 * MAIL_SYNC_FILE. A small group costs that (one fdatasync a message and
 * one of the folder), not syncfs, which writes every dirty page of the
 * file system, other programs' included. */
int mail_maildir_sync_folder(const char *dir);
/* Waiting for mail: a watch on dir/new/ (inotify), so a
 * daemon reading a Maildir wakes when a message is linked or renamed into
 * it (tabula-deliver, an MTA, a mail filter) instead of at its next poll.
 * _open: 0, or MAIL_EIO when the system cannot watch (the caller polls).
 * _wait: 1 when something arrived (every queued event is read and its
 * name kept for _take), 0 at the timeout or on a signal, -1 on an error.
 * Arrivals between two waits are queued by the kernel, so none is missed
 * once the watch is open. */
struct mail_maildir_watch;
int mail_maildir_watch_open(const char *dir, struct mail_maildir_watch **out);
int mail_maildir_watch_wait(struct mail_maildir_watch *w, int timeout_ms);
/* _fd: the watch's descriptor, readable when something arrived, for a
 * caller that waits on it beside others (poll) and then calls _wait with
 * a timeout of 0. */
int mail_maildir_watch_fd(const struct mail_maildir_watch *w);
/* _take: the messages that arrived in new/ since the last take, in
 * delivery order (as mail_maildir_list_new), each once, only those still
 * there; the caller frees them with mail_names_free. 0 with the names; 1
 * when the watch cannot say (the kernel's queue overflowed: list new/);
 * MAIL_EIO on an error. */
int mail_maildir_watch_take(struct mail_maildir_watch *w, const char *dir, char ***names,
                            size_t *n);
/* _writing: the watch saw name written in new/ (IN_MODIFY) and not closed
 * since (IN_CLOSE_WRITE): a writer, of any user, holds it open. */
bool mail_maildir_watch_writing(const struct mail_maildir_watch *w, const char *name);
/* mail_maildir_read, where the kernel cannot be asked whether a writer
 * holds the file (another user's file) going by the watch w (may be NULL)
 * too: a file it saw written and not closed is MAIL_EAGAIN however long
 * ago it changed, so `cat > new/m` typed by hand is read when cat ends. */
int mail_maildir_read_in(const char *dir, const char *name, const struct mail_maildir_watch *w,
                         char **data, size_t *len);
/* _again: name is taken again at the next _take (a message left in new/
 * because it was still being written). */
void mail_maildir_watch_again(struct mail_maildir_watch *w, const char *name);
/* _forget: drops the names kept so far (new/ is being listed whole). */
void mail_maildir_watch_forget(struct mail_maildir_watch *w);
void mail_maildir_watch_close(struct mail_maildir_watch *w);
/* Delivery under a name the caller derives from the message itself (an
 * outbox row: every reply exactly once), so a second delivery of
 * the same message is recognised instead of made: *already is set and
 * nothing written when new/NAME holds it whole (a file cut short by a
 * power loss is written again). Written to tmp/NAME, then renamed into
 * new/. sync: MAIL_SYNC_ALL as mail_maildir_deliver (the file, then new/);
 * MAIL_SYNC_FILE the file only, before the rename (the caller's
 * mail_maildir_sync_folder then makes the group's renames durable);
 * MAIL_SYNC_NONE nothing (the caller's mail_maildir_sync makes the group
 * durable, a file cut short found by its size). NAME: one path component,
 * no ':' and no leading '.'. already NULL: the caller knows NAME is new
 * (a reply just queued), nothing is looked for. */
enum mail_sync { MAIL_SYNC_NONE, MAIL_SYNC_FILE, MAIL_SYNC_ALL };
int mail_maildir_put(const char *dir, const char *name, const char *data, size_t len,
                     enum mail_sync sync,
                     bool *already);
/* Which of the messages names[0..n) (lens[i] bytes each) a Maildir holds
 * already, for messages that may have been delivered before a crash:
 * found[i] when new/NAME holds it whole or a reader moved it to
 * cur/NAME:2,... . new/ is looked at first, then cur/ in one pass, so a
 * message moved meanwhile is seen in one or the other. */
int mail_maildir_find(const char *dir, char *const *names, const size_t *lens, size_t n,
                      bool *found);

/* ---- network transports (imap.c, pop3.c, smtp.c, sendmail.c, tls.c) ----
 *
 * The promise of docs/architecture.md holds for each: a message is
 * acknowledged to its server (IMAP \Seen or MOVE, POP3 DELE) only when the
 * caller says so, after its transaction committed; an outgoing message
 * counts as sent only on the server's 250 (or sendmail's exit 0). */

enum mail_tls {
  MAIL_TLS_NONE,     /* plain text (loopback or a trusted network only) */
  MAIL_TLS_STARTTLS, /* RFC 3207 / RFC 2595: upgrade after the greeting */
  MAIL_TLS_IMPLICIT  /* IMAPS 993, POP3S 995, SMTPS 465 (RFC 8314) */
};

/* "none" | "starttls" | "implicit"; -1 when word is none of them. */
int mail_tls_parse(const char *word, enum mail_tls *out);

struct mail_server {
  const char *host;
  int port;             /* 0: the protocol's usual port for `tls` */
  enum mail_tls tls;
  const char *user;
  const char *password;
  const char *cafile;   /* PEM trust anchors; "" or NULL: the system's store */
  bool verify;          /* certificate and host name checked (default true) */
  int timeout_s;        /* per network operation */
};

/* libetpan's GnuTLS build does no certificate verification, so tabula
 * checks the server's certificate (DER) against the trust anchors and
 * the host name itself, after the handshake and before a password is sent. */
int mail_tls_verify_der(const unsigned char *der, size_t len, const char *cafile,
                        const char *host, char *err, size_t errcap);

/* IMAP4rev1 (RFC 3501) with IDLE (RFC 2177), MOVE (RFC 6851), UIDPLUS. */
struct mail_imap;
int mail_imap_open(struct mail_imap **out, const struct mail_server *srv, const char *mailbox,
                   char *err, size_t errcap);
void mail_imap_close(struct mail_imap *im); /* NULL is fine; LOGOUT when connected */
uint32_t mail_imap_uidvalidity(const struct mail_imap *im);
bool mail_imap_has_idle(const struct mail_imap *im);
/* Messages to look at, UIDs ascending: every unseen one, and when after > 0
 * every one with a UID above after (seen or not); with handled (and after
 * > 0) every message of the mailbox, so that those at or below after, all
 * committed, can be acknowledged at once: with imap_move_to, a kill
 * between \Seen and MOVE leaves them there, and without handled only the
 * highest ("after+1:*" matches it, RFC 3501 6.4.8) came back, one a pass.
 * Free *uids with free(). */
int mail_imap_search(struct mail_imap *im, uint32_t after, bool handled, uint32_t **uids,
                     size_t *n);
/* RFC822.SIZE of one message. */
int mail_imap_size(struct mail_imap *im, uint32_t uid, size_t *size);
/* UID FETCH (INTERNALDATE BODY.PEEK[]): the message stays \Unseen (RFC
 * 3501 6.4.5). *arrived (may be NULL) gets its INTERNALDATE (RFC 3501
 * 2.3.3: when the server received it) in Unix seconds, -1 when the server
 * sent none that is a valid date. */
int mail_imap_fetch(struct mail_imap *im, uint32_t uid, char **data, size_t *len,
                    int64_t *arrived);
/* Acknowledges: UID STORE +FLAGS (\Seen), or UID MOVE to move_to when
 * move_to is non-empty (COPY + \Deleted + EXPUNGE where MOVE is missing). */
int mail_imap_ack(struct mail_imap *im, const uint32_t *uids, size_t n, const char *move_to);
/* Waits up to timeout_ms for the mailbox to change: IDLE where the server
 * has it, else a plain wait. stop() is asked every 200 ms; true ends the
 * wait. 1 = the server spoke, 0 = timeout or stop, <0 = connection lost. */
int mail_imap_wait(struct mail_imap *im, int timeout_ms, bool (*stop)(void *), void *arg);
const char *mail_imap_error(const struct mail_imap *im);

/* POP3 (RFC 1939) with UIDL and STLS (RFC 2595). DELE takes effect at QUIT. */
struct mail_pop3;
struct mail_pop3_item {
  unsigned int index; /* message number in this session */
  size_t size;
  char uidl[72];      /* RFC 1939: 1 to 70 printable characters */
};
int mail_pop3_open(struct mail_pop3 **out, const struct mail_server *srv, char *err,
                   size_t errcap);
/* The maildrop's messages; free *items with free(). */
int mail_pop3_list(struct mail_pop3 *p, struct mail_pop3_item **items, size_t *n);
int mail_pop3_retr(struct mail_pop3 *p, unsigned int index, char **data, size_t *len);
int mail_pop3_dele(struct mail_pop3 *p, unsigned int index);
/* QUIT: the deletions take effect only when this returns 0. */
int mail_pop3_quit(struct mail_pop3 *p);
void mail_pop3_close(struct mail_pop3 *p); /* without QUIT: nothing deleted */
const char *mail_pop3_error(const struct mail_pop3 *p);

/* SMTP submission (RFC 6409) through libcurl: STARTTLS or implicit TLS,
 * AUTH, the connection kept for the next message. */
struct mail_smtp;
int mail_smtp_open(struct mail_smtp **out, const struct mail_server *srv, const char *helo,
                   char *err, size_t errcap);
void mail_smtp_close(struct mail_smtp *s);
/* Sends one message (CRLF line ends). 0 on the server's 250 after DATA;
 * MAIL_EREFUSED when the server refused it with a 5xx reply; MAIL_ENET,
 * MAIL_ETLS, MAIL_EAUTH otherwise. err gets the server's words. */
int mail_smtp_send(struct mail_smtp *s, const char *from, const char *rcpt, const char *data,
                   size_t len, char *err, size_t errcap);

/* The sendmail pipe: `path -i -f from -- rcpt` (no shell), the message on
 * its standard input; exit 0 means accepted. */
int mail_sendmail(const char *path, const char *from, const char *rcpt, const char *data,
                  size_t len, char *err, size_t errcap);

#endif /* TABULA_MAIL_H */
