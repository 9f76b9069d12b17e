/*
 * config.c: the configuration as one table. Each option has a name, a type,
 * a default, bounds and a target field; the same table drives the defaults,
 * the INI parser (inih), validation and `tabula check-config`.
 * Unknown keys are refused, so a typo never silently changes nothing.
 * An option that takes one of a few words (OPT_ENUM) is checked and turned
 * into its enum here, once, when the file is read: the rest of the program
 * compares enums, never the words.
 */
#include "referee.h"

#include "mail.h"

#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef TABULA_SYSCONFDIR
#define TABULA_SYSCONFDIR "/etc"
#endif

const char ref_config_system_file[] = TABULA_SYSCONFDIR "/tabula/tabula.ini";

/* OPT_PATH: a string naming a file or folder; relative in a file, it is
 * taken from that file's folder (the same file works from cron's
 * $HOME, systemd's / and the operator's shell alike). */
enum opt_type { OPT_STRING, OPT_PATH, OPT_INT, OPT_ENUM };

/* One word of an OPT_ENUM option and the value stored for it. */
struct enum_word {
  const char *word;
  int value;
};

struct option_def {
  const char *name;
  enum opt_type type;
  size_t offset;
  size_t size;       /* OPT_STRING: field capacity */
  const char *deflt; /* as text, for every type */
  long min, max;     /* OPT_INT bounds */
  const char *help;
  const struct enum_word *words; /* OPT_ENUM: the words taken, NULL-terminated */
};

#define STR(field, deflt, help)                                                 \
  {#field, OPT_STRING, offsetof(struct ref_config, field),                      \
   sizeof(((struct ref_config *)0)->field), deflt, 0, 0, help, NULL}
#define PATH(field, deflt, help)                                                \
  {#field, OPT_PATH, offsetof(struct ref_config, field),                        \
   sizeof(((struct ref_config *)0)->field), deflt, 0, 0, help, NULL}
#define INT(field, deflt, lo, hi, help)                                         \
  {#field, OPT_INT, offsetof(struct ref_config, field), sizeof(int), deflt, lo, hi, help, NULL}
#define ENUM(field, deflt, words, help)                                         \
  {#field, OPT_ENUM, offsetof(struct ref_config, field),                        \
   sizeof(((struct ref_config *)0)->field), deflt, 0, 0, help, words}

/* An OPT_ENUM field is stored as an int (set_option). */
_Static_assert(sizeof(enum ref_source) == sizeof(int) && sizeof(enum ref_sink) == sizeof(int) &&
                 sizeof(enum ref_tls) == sizeof(int) && sizeof(enum ref_auth) == sizeof(int) &&
                 sizeof(enum ref_keyless) == sizeof(int) &&
                 sizeof(enum ref_timeout) == sizeof(int) &&
                 sizeof(enum ref_log_format) == sizeof(int),
               "enum options are stored as int");

/* The words of each OPT_ENUM option, in the order check-config's help and
 * the refusal name them. */
static const struct enum_word source_words[] = {
  {"maildir", REF_SOURCE_MAILDIR}, {"imap", REF_SOURCE_IMAP}, {"pop3", REF_SOURCE_POP3}, {NULL, 0}};
static const struct enum_word sink_words[] = {
  {"maildir", REF_SINK_MAILDIR}, {"smtp", REF_SINK_SMTP}, {"sendmail", REF_SINK_SENDMAIL},
  {NULL, 0}};
static const struct enum_word in_tls_words[] = {
  {"implicit", REF_TLS_IMPLICIT}, {"starttls", REF_TLS_STARTTLS}, {"none", REF_TLS_NONE},
  {NULL, 0}};
static const struct enum_word smtp_tls_words[] = {
  {"starttls", REF_TLS_STARTTLS}, {"implicit", REF_TLS_IMPLICIT}, {"none", REF_TLS_NONE},
  {NULL, 0}};
static const struct enum_word auth_words[] = {
  {"token+from", REF_AUTH_TOKEN_FROM}, {"token", REF_AUTH_TOKEN}, {NULL, 0}};
static const struct enum_word keyless_words[] = {
  {"confirm", REF_KEYLESS_CONFIRM}, {"act", REF_KEYLESS_ACT}, {"off", REF_KEYLESS_OFF},
  {NULL, 0}};
static const struct enum_word timeout_words[] = {
  {"auto", REF_TIMEOUT_AUTO}, {"claim", REF_TIMEOUT_CLAIM}, {NULL, 0}};
static const struct enum_word log_format_words[] = {
  {"auto", REF_LOG_FORMAT_AUTO}, {"journal", REF_LOG_FORMAT_JOURNAL},
  {"plain", REF_LOG_FORMAT_PLAIN}, {NULL, 0}};
/* the character itself: reply.c and dispatch.c put it between the local
 * part and the key */
static const struct enum_word delimiter_words[] = {
  {"+", '+'}, {"-", '-'}, {"=", '='}, {"_", '_'}, {NULL, 0}};

/* The embedded default needs no server: Maildir in, Maildir out, SQLite. */
static const struct option_def options[] = {
  PATH(store_path, "tabula-data/tabula.db", "SQLite file holding every game"),
  STR(store, "", "a PostgreSQL database holding every game instead of store_path: postgresql://HOST/DB or libpq keywords such as service=club (the password in ~/.pgpass or a passfile=, never here)"),
  PATH(inbox, "tabula-data/inbox", "Maildir that players' mail arrives in"),
  PATH(outbox, "tabula-data/outbox", "Maildir that replies are written to"),
  STR(address, "referee@localhost", "the referee's mail address"),
  STR(domain, "localhost", "domain for Message-IDs"),
  PATH(templates_dir, "", "directory overriding the built-in templates/"),
  INT(poll_ms, "500", 10, 600000, "inbox poll interval in milliseconds"),
  INT(log_level, "2", 0, 3, "0 error, 1 warn, 2 info, 3 debug"),
  PATH(log_file, "", "a file log lines are appended to; then only errors go to standard error too"),
  ENUM(log_format, "auto", log_format_words, "auto (journal priorities when standard error is systemd's journal), journal or plain"),
  STR(help_url, "", "a web page of rules and help, named at the end of every help mail"),
  ENUM(auth, "token+from", auth_words, "who may act for a seat: token+from (the key AND the seat's From) or token"),
  ENUM(keyless, "confirm", keyless_words, "a player's mail without a game's key: confirm (queries answered, actions done once confirmed from the address of record), act (done at once: only where the MTA rejects forged senders) or off"),
  STR(trusted_authserv_id, "", "under keyless = confirm, a mail whose topmost Authentication-Results (RFC 8601) from this authserv-id says dmarc=pass, or dkim=pass with header.d the From's domain, acts at once (the MTA must remove such fields from incoming mail); empty: none trusted"),
  INT(rate_limit, "120", 0, 100000, "mails per hour read from one sender; more are recorded, not answered (0: no limit)"),
  INT(stranger_mails_per_hour, "20", 0, 100000, "mails per hour, all together, to addresses that hold no seat and never answered (confirmation requests, help, invitations); more are not sent, and logged"),
  INT(confirm_days, "3", 1, 60, "days a confirmation request waits for its answer (a first new, each observe)"),
  ENUM(recipient_delimiter, "+", delimiter_words, "the character between local part and key in reply addresses: + - = or _"),
  ENUM(source, "maildir", source_words, "where mail comes from: maildir (inbox), imap or pop3"),
  STR(in_host, "", "IMAP or POP3 server host name (checked against its certificate)"),
  INT(in_port, "0", 0, 65535, "IMAP/POP3 port; 0: 993/995 for implicit TLS, else 143/110"),
  ENUM(in_tls, "implicit", in_tls_words, "IMAP/POP3 TLS: implicit, starttls or none"),
  STR(in_user, "", "IMAP/POP3 user name"),
  STR(in_password, "", "IMAP/POP3 password (sent only after the certificate is verified)"),
  PATH(in_password_file, "", "a file whose first line is the IMAP/POP3 password, instead of in_password; with neither, $CREDENTIALS_DIRECTORY/in_password (systemd's LoadCredential=) when there is one"),
  STR(imap_mailbox, "INBOX", "IMAP folder read"),
  STR(imap_move_to, "", "IMAP: after commit, MOVE handled mail to this folder (empty: flag it \\Seen)"),
  ENUM(sink, "maildir", sink_words, "where replies go: maildir (outbox), smtp or sendmail"),
  STR(smtp_host, "", "SMTP submission server host name"),
  INT(smtp_port, "0", 0, 65535, "SMTP port; 0: 465 for implicit TLS, else 587"),
  ENUM(smtp_tls, "starttls", smtp_tls_words, "SMTP TLS: starttls, implicit or none"),
  STR(smtp_user, "", "SMTP AUTH user name (empty: no AUTH)"),
  STR(smtp_password, "", "SMTP AUTH password"),
  PATH(smtp_password_file, "", "a file whose first line is the SMTP password, instead of smtp_password; with neither, $CREDENTIALS_DIRECTORY/smtp_password (systemd's LoadCredential=) when there is one"),
  STR(sendmail_path, "/usr/sbin/sendmail", "the sendmail sink's program (absolute path)"),
  PATH(tls_cafile, "", "PEM file of trusted CAs for IMAP/POP3/SMTP (empty: the system's)"),
  INT(tls_verify, "1", 0, 1, "1: verify servers' certificates and host names"),
  INT(net_timeout_s, "30", 1, 600, "seconds a network operation may take"),
  INT(batch_max, "256", 1, 100000, "messages per transaction: one commit (fsync) per batch"),
  INT(retry_base_s, "60", 1, 86400, "first outbox retry after this many seconds, doubling"),
  INT(outbox_keep_days, "7", 0, 3650, "days a sent reply stays in the store (0: for ever)"),
  INT(days_per_move, "7", 1, 365, "days per move unless a game says days=N"),
  STR(time_control, "", "the time control unless a game says time=... or days=N: 30d+1d (Fischer: a bank of 30 days, 1 more after each move), 10/50d (10 moves in 50 days, unused time carried forward), 7d (days per move); empty: days_per_move"),
  INT(weekends, "1", 0, 1, "1: Saturdays and Sundays count toward the time (weekends=off per game)"),
  ENUM(timeout, "auto", timeout_words, "at the deadline: auto (the late player loses) or claim (the opponent may claim)"),
  INT(vacation_days, "30", 0, 366, "vacation days each player may book per calendar year"),
  INT(vacation_min_days, "1", 1, 366, "the fewest days a vacation (leave) may be booked for; leave auto takes single days"),
  INT(invite_days, "14", 1, 365, "days an invitation waits for every answer before it is cancelled"),
  INT(seek_days, "14", 1, 365, "days an open seek (`seek GAME`) waits for an opponent before it expires"),
  INT(digest_hour, "6", 0, 23, "UTC hour at which daily digests are sent"),
  PATH(test_clock_file, "", "TESTS ONLY: take the time (epoch seconds) from this file"),
  INT(html, "1", 0, 1, "1: a mail that shows a board also carries it drawn in an HTML part (0: plain text only)"),
  PATH(site_dir, "", "folder of the read-only web view (tabula site); serve rewrites it after each change (empty: none)"),
  STR(site_url, "", "address where site_dir is served; mails carry their game's link (empty: no link)"),
};

/* The refusal of a word an OPT_ENUM option does not take names every word
 * it does: "is neither A nor B", "is not one of A, B, C". */
static void enum_refused(const struct option_def *o, const char *value, char *errbuf,
                         size_t errcap)
{
  const struct enum_word *w = o->words;
  size_t n = 0, used;
  int k;

  while(w[n].word)
    n++;
  if(n == 2) {
    snprintf(errbuf, errcap, "%s: '%s' is neither %s nor %s", o->name, value, w[0].word,
             w[1].word);
    return;
  }
  k = snprintf(errbuf, errcap, "%s: '%s' is not one of ", o->name, value);
  used = k < 0 ? 0 : (size_t)k;
  for(; w->word && used < errcap; w++) {
    k = snprintf(errbuf + used, errcap - used, "%s%s", w == o->words ? "" : ", ", w->word);
    used += k < 0 ? 0 : (size_t)k;
  }
}

/* The word of an OPT_ENUM field's value (check-config prints it). */
static const char *enum_word_of(const struct option_def *o, const char *field)
{
  const struct enum_word *w;
  int v;

  memcpy(&v, field, sizeof(v));
  for(w = o->words; w->word; w++)
    if(w->value == v)
      return w->word;
  return "?";
}

static int set_option(struct ref_config *cfg, const struct option_def *o, const char *value,
                      char *errbuf, size_t errcap)
{
  char *field = (char *)cfg + o->offset;
  if(o->type == OPT_ENUM) {
    const struct enum_word *w;
    for(w = o->words; w->word; w++)
      if(!strcmp(w->word, value)) {
        memcpy(field, &w->value, sizeof(w->value));
        return 0;
      }
    enum_refused(o, value, errbuf, errcap);
    return -1;
  }
  if(o->type != OPT_INT) {
    if(strlen(value) >= o->size) {
      snprintf(errbuf, errcap, "%s: value longer than %zu bytes", o->name, o->size - 1);
      return -1;
    }
    memcpy(field, value, strlen(value) + 1);
  }
  else {
    char *end;
    long v = strtol(value, &end, 10);
    if(!*value || *end || v < o->min || v > o->max) {
      snprintf(errbuf, errcap, "%s: '%s' is not a whole number from %ld to %ld", o->name,
               value, o->min, o->max);
      return -1;
    }
    *(int *)field = (int)v;
  }
  return 0;
}

void ref_config_defaults(struct ref_config *cfg)
{
  char ignored[64];
  size_t i;
  memset(cfg, 0, sizeof(*cfg));
  for(i = 0; i < sizeof(options) / sizeof(options[0]); i++)
    set_option(cfg, &options[i], options[i].deflt, ignored, sizeof(ignored));
}

struct load_ctx {
  struct ref_config *cfg;
  char *errbuf;
  size_t errcap;
  int failed;
  char dir[PATH_MAX]; /* the file's folder, absolute, for relative paths */
  /* OPT_ENUM: the last word the file gives each, checked once the whole
   * file is read (a later line may set the option again, and the last one
   * counts); NULL: not given */
  char *words[sizeof(options) / sizeof(options[0])];
};

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
  struct load_ctx *ctx = user;
  size_t i;
  if(ctx->failed)
    return 0;
  /* Options live in [tabula] or at the top of the file. */
  if(section[0] && strcmp(section, "tabula")) {
    snprintf(ctx->errbuf, ctx->errcap, "unknown section [%s]", section);
    ctx->failed = 1;
    return 0;
  }
  for(i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
    if(!strcmp(options[i].name, name)) {
      char joined[PATH_MAX + 600];
      if(options[i].type == OPT_PATH && value[0] && value[0] != '/') {
        snprintf(joined, sizeof(joined), "%s/%s", ctx->dir, value);
        value = joined;
      }
      if(options[i].type == OPT_ENUM) {
        free(ctx->words[i]);
        if(!(ctx->words[i] = strdup(value))) {
          snprintf(ctx->errbuf, ctx->errcap, "%s: out of memory", options[i].name);
          ctx->failed = 1;
          return 0;
        }
        return 1;
      }
      if(set_option(ctx->cfg, &options[i], value, ctx->errbuf, ctx->errcap)) {
        ctx->failed = 1;
        return 0;
      }
      return 1;
    }
  }
  snprintf(ctx->errbuf, ctx->errcap, "unknown option '%s'", name);
  ctx->failed = 1;
  return 0;
}

static void words_free(struct load_ctx *ctx)
{
  size_t i;
  for(i = 0; i < sizeof(options) / sizeof(options[0]); i++) {
    free(ctx->words[i]);
    ctx->words[i] = NULL;
  }
}

/* The enum options' words the file gave, each turned into its enum:
 * 0, or -1 with the first refused (in the table's order) in ctx->errbuf;
 * the words are freed either way. */
static int enum_words(struct load_ctx *ctx)
{
  size_t i;
  int rc = 0;
  for(i = 0; rc == 0 && i < sizeof(options) / sizeof(options[0]); i++)
    if(ctx->words[i])
      rc = set_option(ctx->cfg, &options[i], ctx->words[i], ctx->errbuf, ctx->errcap);
  words_free(ctx);
  return rc;
}

/* The absolute folder of the file at `path`. */
static int file_folder(char *dir, size_t cap, const char *path)
{
  const char *slash = strrchr(path, '/');
  size_t len = slash ? (size_t)(slash - path) : 0;
  size_t used = 0;
  if(path[0] != '/') {
    if(!getcwd(dir, cap))
      return -1;
    used = strlen(dir);
    if(slash && used + 1 < cap)
      dir[used++] = '/';
  }
  else if(len == 0)
    len = 1; /* "/x.ini": the root */
  if(used + len + 1 > cap)
    return -1;
  memcpy(dir + used, path, len);
  dir[used + len] = '\0';
  {
    /* "/srv/x/../tabula" reads better as "/srv/tabula" in every message */
    char *real = realpath(dir, NULL);
    if(real && strlen(real) < cap)
      memcpy(dir, real, strlen(real) + 1);
    free(real);
  }
  return 0;
}

/* A password kept out of the INI file: the first line of *_password_file,
 * or of the systemd credential of the same name as the option
 * ($CREDENTIALS_DIRECTORY/in_password, systemd.exec(5) LoadCredential=),
 * read when the file names neither. The password field gets it; a file
 * named that cannot be read, is empty or too long is the configuration's
 * error. */
static int password_from_file(const char *path, const char *option, const char *file,
                              char *field, size_t cap, char *errbuf, size_t errcap)
{
  char line[1024];
  FILE *f = fopen(file, "r");
  size_t len;

  if(!f) {
    snprintf(errbuf, errcap, "%s: %s: cannot read %s: %s", path, option, file, strerror(errno));
    return REF_CONFIG_EINVALID;
  }
  if(!fgets(line, sizeof(line), f))
    line[0] = '\0';
  fclose(f);
  len = strcspn(line, "\r\n");
  line[len] = '\0';
  if(!len || len >= cap) {
    snprintf(errbuf, errcap, "%s: %s: %s holds %s", path, option, file,
             len ? "a first line too long for a password" : "no password on its first line");
    return REF_CONFIG_EINVALID;
  }
  memcpy(field, line, len + 1);
  return 0;
}

static int load_password(const char *path, const char *name, char *field, size_t cap,
                         const char *file, char *errbuf, size_t errcap)
{
  const char *creds = getenv("CREDENTIALS_DIRECTORY");
  char option[64], cred[PATH_MAX];
  struct stat st;

  snprintf(option, sizeof(option), "%s_file", name);
  if(file[0] && field[0]) {
    snprintf(errbuf, errcap, "%s: %s and %s: set one of them, not both", path, name, option);
    return REF_CONFIG_EINVALID;
  }
  if(file[0])
    return password_from_file(path, option, file, field, cap, errbuf, errcap);
  if(field[0] || !creds || !creds[0])
    return 0;
  snprintf(cred, sizeof(cred), "%s/%s", creds, name);
  if(stat(cred, &st))
    return 0; /* no credential of that name: none wanted */
  return password_from_file(path, "the systemd credential", cred, field, cap, errbuf, errcap);
}

int ref_config_load(struct ref_config *cfg, const char *path, char *errbuf, size_t errcap)
{
  struct load_ctx ctx;
  char inner[256] = "";
  int rc;

  memset(&ctx, 0, sizeof(ctx));
  ctx.cfg = cfg;
  ctx.errbuf = inner;
  ctx.errcap = sizeof(inner);
  if(file_folder(ctx.dir, sizeof(ctx.dir), path)) {
    snprintf(errbuf, errcap, "%s: the path is too long", path);
    return REF_CONFIG_EREAD;
  }
  {
    /* ini_parse says -1 for any fopen failure; keep errno's reason, which
     * tells a missing file from one the user may not read. */
    FILE *f = fopen(path, "r");
    if(!f) {
      snprintf(errbuf, errcap, "%s: cannot read the file: %s", path, strerror(errno));
      return REF_CONFIG_EREAD;
    }
    rc = ini_parse_file(f, on_ini, &ctx);
    fclose(f);
  }
  if(rc == 0 && !ctx.failed && enum_words(&ctx)) {
    snprintf(errbuf, errcap, "%s: %s", path, inner);
    return REF_CONFIG_EINVALID;
  }
  words_free(&ctx);
  if(rc > 0 || ctx.failed) {
    snprintf(errbuf, errcap, "%s:%d: %s", path, rc, inner[0] ? inner : "syntax error");
    return REF_CONFIG_EINVALID;
  }
  if(rc < 0) {
    snprintf(errbuf, errcap, "%s: cannot parse the file (out of memory)", path);
    return REF_CONFIG_EINVALID;
  }
  /* A bad address is the file's fault, said when it is read
   * (check-config included), not when the service opens */
  if(!mail_addr_valid(cfg->address)) {
    snprintf(errbuf, errcap, "%s: address: '%s' is not a mail address", path, cfg->address);
    return REF_CONFIG_EINVALID;
  }
  if((rc = load_password(path, "in_password", cfg->in_password, sizeof(cfg->in_password),
                         cfg->in_password_file, errbuf, errcap)) != 0 ||
     (rc = load_password(path, "smtp_password", cfg->smtp_password, sizeof(cfg->smtp_password),
                         cfg->smtp_password_file, errbuf, errcap)) != 0)
    return rc;
  return 0;
}

const char *ref_config_store(const struct ref_config *cfg)
{
  return cfg->store[0] ? cfg->store : cfg->store_path;
}

const char *ref_config_locate(const char *option_path, const char **origin)
{
  const char *env = getenv("TABULA_CONFIG");
  struct stat st;

  if(option_path) {
    *origin = "given with -c";
    return option_path;
  }
  if(env && env[0]) {
    *origin = "from $TABULA_CONFIG";
    return env;
  }
  /* Present but unreadable still counts: the caller then says it cannot
   * read it, rather than quietly falling back to ./tabula-data. */
  if(stat(ref_config_system_file, &st) == 0) {
    *origin = "the system configuration";
    return ref_config_system_file;
  }
  {
    static char words[sizeof(ref_config_system_file) + 64];
    snprintf(words, sizeof(words), "the built-in defaults: no -c, no $TABULA_CONFIG, no %s",
             ref_config_system_file);
    *origin = words;
  }
  return NULL;
}

int ref_config_option(const struct ref_config *cfg, size_t i, struct ref_config_item *item)
{
  const struct option_def *o;
  const char *field;
  if(i >= sizeof(options) / sizeof(options[0]))
    return -1;
  o = &options[i];
  field = (const char *)cfg + o->offset;
  item->name = o->name;
  item->help = o->help;
  item->deflt = o->deflt;
  item->is_int = o->type == OPT_INT;
  item->value_int = item->is_int ? *(const int *)field : 0;
  /* an enum option is held as its enum; its word is the value shown */
  item->value = item->is_int ? NULL : o->type == OPT_ENUM ? enum_word_of(o, field) : field;
  /* check-config's output gets pasted: a password is said to be set, never shown */
  item->hidden = !item->is_int && o->type != OPT_ENUM && strstr(o->name, "password") &&
                 !strstr(o->name, "_file") && field[0];
  if(item->hidden)
    item->value = NULL;
  return 0;
}

void ref_config_dump(FILE *out, const struct ref_config *cfg)
{
  struct ref_config_item it;
  size_t i;
  fputs("[tabula]\n", out);
  for(i = 0; !ref_config_option(cfg, i, &it); i++) {
    fprintf(out, "; %s (default: %s)\n", it.help, it.deflt[0] ? it.deflt : "empty");
    if(it.hidden)
      fprintf(out, "%s = (set, not shown)\n", it.name);
    else if(!it.is_int)
      fprintf(out, "%s = %s\n", it.name, it.value);
    else
      fprintf(out, "%s = %d\n", it.name, it.value_int);
  }
}
