/*
 * main.c: the `tabula` command line. Thin: it parses argv and calls the
 * service (referee.h) or, for the rules tools, the rules core directly.
 * The commands are one table (name, arguments, options, what it does);
 * usage, `tabula help COMMAND` and the checks of every command line come
 * from it, and docs/man/tabula.1 describes the same table.
 *
 * Every command finds its configuration the same way (ref_config_locate:
 * -c FILE, else $TABULA_CONFIG, else the system file, else the built-in
 * defaults in ./tabula-data); options may stand anywhere on the line; only
 * serve, poll and deliver may create a store, every other command says
 * which store it looked for when there is none. Exit statuses follow
 * sysexits.h (tabula(1), EXIT STATUS).
 *
 * POS is the game's position string (FEN for chess) or "startpos".
 */
#include "log.h"
#include "referee.h"
#include "rules.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <unistd.h>

#ifndef TABULA_VERSION
#define TABULA_VERSION "unknown"
#endif

/* 1: the command ran and found a fault (check, verify, export). */
#define EXIT_FAULT 1

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
  (void)sig;
  stop_requested = 1; /* only a flag: the loop acts on it */
}

/* ---- the command table ---- */

enum {
  OPT_CONFIG = 1 << 0, /* -c FILE */
  OPT_GAME = 1 << 1,   /* -g GAME (the rules tools) */
  OPT_SEAT = 1 << 2,   /* -s SEAT */
  OPT_REASON = 1 << 3, /* --reason TEXT */
  OPT_REBUILD = 1 << 4, /* --rebuild (ratings) */
  OPT_DOUBLE = 1 << 5,  /* --double (tournament new) */
  OPT_JSON = 1 << 6,    /* --json (the read-only commands: docs/json.md) */
  OPT_FORMAT = 1 << 7,  /* --format FMT (export: a game's other record format) */
};

/* Options without a value. */
static const struct {
  const char *longname;
  unsigned opt;
} flags[] = {
  {"rebuild", OPT_REBUILD},
  {"double", OPT_DOUBLE},
  {"json", OPT_JSON},
};

enum store_use {
  NO_STORE,     /* rules tools, check-config, help */
  MAKES_STORE,  /* serve, poll, deliver: the first mail creates it */
  NEEDS_STORE   /* everything else: no store is an error, never a new empty one */
};

struct cli;
struct command {
  const char *name;
  const char *args;     /* after the name, for usage lines */
  int min_args, max_args;
  unsigned opts;
  enum store_use store;
  const char *summary;  /* one line */
  const char *details;  /* `tabula help NAME` */
  int (*run)(struct cli *cli);
};

struct cli {
  const struct command *cmd;
  const char *config;      /* -c FILE */
  const char *game;        /* -g GAME */
  const char *seat;        /* -s SEAT */
  const char *reason;      /* --reason TEXT */
  const char *format;      /* --format FMT */
  unsigned flags;          /* --rebuild, --double, --json */
  char *args[24];
  int nargs;
  struct ref_config cfg;
  const char *config_path; /* the file in effect, NULL for the defaults */
  const char *config_origin;
  struct ref_service *svc;
};

static int run_serve(struct cli *cli);
static int run_deliver(struct cli *cli);
static int run_poll(struct cli *cli);
static int run_flush(struct cli *cli);
static int run_tick(struct cli *cli);
static int run_games(struct cli *cli);
static int run_show(struct cli *cli);
static int run_check(struct cli *cli);
static int run_adjudicate(struct cli *cli);
static int run_time(struct cli *cli);
static int run_export(struct cli *cli);
static int run_site(struct cli *cli);
static int run_verify(struct cli *cli);
static int run_key(struct cli *cli);
static int run_ratings(struct cli *cli);
static int run_tournament(struct cli *cli);
static int run_store(struct cli *cli);
static int run_check_config(struct cli *cli);
static int run_rules(struct cli *cli);
static int run_help(struct cli *cli);

static const struct command commands[] = {
  {"serve", "", 0, 0, OPT_CONFIG, MAKES_STORE,
   "the daemon: read mail, answer, keep time, until SIGTERM",
   "Reads players' mail from the inbox Maildir (or the IMAP or POP3 server of\n"
   "the configuration), answers it, sends reminders and rules losses on time\n"
   "every minute, and retries replies that could not be sent, until SIGTERM\n"
   "or SIGINT. This is what the systemd unit runs. Creates the store and the\n"
   "Maildirs on first start.",
   run_serve},
  {"poll", "", 0, 0, OPT_CONFIG, MAKES_STORE,
   "one pass over the inbox, then exit (cron)",
   "Processes the mail waiting in the inbox (Maildir, IMAP or POP3) once,\n"
   "sends the replies, and exits. Creates the store on first use.",
   run_poll},
  {"deliver", "", 0, 0, OPT_CONFIG, MAKES_STORE,
   "one message on standard input (MTA pipe)",
   "Processes one message read from standard input, as a mail transport\n"
   "agent hands it over: a Postfix pipe(8) transport, procmail, or a\n"
   ".forward pipe. Exit status 0: taken (answered, refused with a reason, or\n"
   "ignored: nothing more to do); 65 (EX_DATAERR): it can never be taken\n"
   "(over the size limit), the MTA returns it to its sender; 75\n"
   "(EX_TEMPFAIL): anything else (store busy or unopenable, configuration\n"
   "error): nothing was changed, the MTA keeps it and offers it again later.\n"
   "While `tabula serve` runs on the store with a Maildir inbox, pipe into\n"
   "tabula-deliver instead (same arguments): it leaves the mail in the\n"
   "daemon's inbox, synced, and exits; with no daemon it runs tabula deliver.",
   run_deliver},
  {"flush", "", 0, 0, OPT_CONFIG, NEEDS_STORE, "send the replies the outbox holds",
   "Sends every reply that is due: the queue of replies not yet accepted by the\n"
   "mail server (or the outbox Maildir). Prints how many were sent.",
   run_flush},
  {"tick", "", 0, 0, OPT_CONFIG, NEEDS_STORE,
   "the inbox, then the work of the clock due now, then the outbox (cron)",
   "Reads the inbox as poll does, then sends the reminders, rules the losses\n"
   "on time, cancels the expired invitations, expires the open seeks\n"
   "(seek_days) and sends the daily digests that are due now, then the\n"
   "outbox. A move that reached the inbox before its deadline is played,\n"
   "whichever runs first. serve does this every minute; with poll or\n"
   "deliver, run it from cron (every few minutes).",
   run_tick},
  {"games", "", 0, 0, OPT_CONFIG | OPT_JSON, NEEDS_STORE,
   "list every game: sides, players, results",
   "Lists every game of the store: its number, kind, phase (invited, active,\n"
   "finished, cancelled), the side to move, the players by side and the\n"
   "result. --json writes the same as one JSON document (tabula(1), JSON).",
   run_games},
  {"show", "GAME", 1, 1, OPT_CONFIG | OPT_JSON, NEEDS_STORE, "one game: players, board, journal",
   "Shows game GAME: its players, the board from the first side, the position\n"
   "string and every journal entry (with the dice lines). --json writes the\n"
   "same as one JSON document (tabula(1), JSON).",
   run_show},
  {"check", "", 0, 0, OPT_CONFIG | OPT_JSON, NEEDS_STORE,
   "replay every journal and compare with the store",
   "Replays every game's journal through the rules and checks the journal's\n"
   "hash chain, comparing with the stored positions. Exit status 1 when a game\n"
   "does not agree. --json writes the problems found as one JSON document\n"
   "(tabula(1), JSON), with the same exit status.",
   run_check},
  {"adjudicate", "GAME RESULT", 2, 2, OPT_CONFIG | OPT_REASON, NEEDS_STORE,
   "decide a running game; the players are mailed",
   "Ends running game GAME with RESULT: a side's name (white, black: that side\n"
   "wins), 1-0, 0-1, or draw (in games with draws). The decision is journaled\n"
   "and mailed to both players and every observer at once; --reason TEXT\n"
   "(one line, at most 255 bytes) is journaled and quoted in that mail.",
   run_adjudicate},
  {"time", "GAME [add SEAT AMOUNT REASON]", 1, 5, OPT_CONFIG, NEEDS_STORE,
   "a game's clocks and their history; add time to one",
   "Prints game GAME's time control, both clocks (time left, moves made, the\n"
   "deadline of the one that runs) and their history: when each move was\n"
   "made, time given, a loss on time. With add SEAT AMOUNT REASON (white 2d\n"
   "\"the server was down\"; AMOUNT as 2d, 12h or 1d12h, at most 365 days)\n"
   "adds that time to SEAT's clock: journaled with the reason, both players\n"
   "mailed (rules-spec TM-7). Time added is never taken back.",
   run_time},
  {"export", "GAME", 1, 1, OPT_CONFIG | OPT_FORMAT, NEEDS_STORE,
   "the game's record: PGN, PDN, .mat (or SGF) or a transcript",
   "Prints the record of game GAME in its community's format: PGN for chess,\n"
   "PDN 3.0 for checkers, gnubg's .mat for backgammon, for the other games a\n"
   "transcript naming the variant; the dice lines of a dice game are in it,\n"
   "so tabula-verify-dice checks it. A game of a match prints the whole\n"
   "match. --format sgf prints a backgammon game or match as SGF (GM[6]),\n"
   "gnubg's own format, instead; --format mat is the .mat.",
   run_export},
  {"site", "DIR", 1, 1, OPT_CONFIG, NEEDS_STORE, "write the read-only web view into DIR",
   "Writes the web view of the store into folder DIR (made when missing):\n"
   "index.html, and for every game that started and is not private a page\n"
   "(the board after every move, the history, the result, the dice lines)\n"
   "and its record to download. Players are named by initials. Any web\n"
   "server can serve the folder; with site_dir set, serve keeps it current.",
   run_site},
  {"verify", "GAME", 1, 1, OPT_CONFIG, NEEDS_STORE, "check every dice roll of a game",
   "Checks every dice roll of game GAME against its commitment and the\n"
   "players' entropy (tabula-dice-1). Exit status 1 when a roll fails.",
   run_verify},
  {"key", "[rotate]", 0, 1, OPT_CONFIG, NEEDS_STORE, "the referee's public key (history signatures)",
   "Prints the referee's public key, the one the history lines of every game\n"
   "mail are signed with, as NAME+KEYID+KEY (C2SP signed-note's verifier key):\n"
   "players give it to tabula-verify. Made at the first start, kept beside the\n"
   "store as STORE.key (on PostgreSQL in the database). \"key rotate\" makes a\n"
   "new key and keeps the old one as STORE.key.1, .2, ...; restart the daemon\n"
   "and announce the new key as the first (docs/history-protocol.md).",
   run_key},
  {"ratings", "[GAME]", 0, 1, OPT_CONFIG | OPT_REBUILD | OPT_JSON, NEEDS_STORE,
   "the Glicko-2 ratings, of one game or of all",
   "Prints the Glicko-2 ratings of game system GAME (chess, backgammon, ...),\n"
   "or of every system: rating, deviation (RD), volatility, rated games won,\n"
   "drawn and lost, best first. The ratings are derived from the journals of\n"
   "finished games; --rebuild rewrites the stored table from them first\n"
   "(tabula check says whether it differs). --json writes the table as one\n"
   "JSON document (tabula(1), JSON).",
   run_ratings},
  {"tournament", "new|show ...", 2, 20, OPT_CONFIG | OPT_DOUBLE | OPT_JSON,
   NEEDS_STORE, "a round robin: make one, or show its standings",
   "tournament new GAME NAME PLAYER... makes a round-robin tournament of game\n"
   "system GAME called NAME between the players (3 to 16 mail addresses):\n"
   "every pairing is created at once as a game, twice with the colours\n"
   "swapped with --double. key=value words set the games' options as `new`\n"
   "takes them (days=3, weekends=off), \"unrated\" keeps them out of the\n"
   "ratings, \"private\" from observers and the web view (new's terms, not\n"
   "\"as\"). Every player is invited by mail and accepts once for all of\n"
   "their games; the games start when all have accepted, and the final table\n"
   "is mailed to every player when the last game ends.\n"
   "tournament show NAME prints the standings (NAME or its number): points,\n"
   "Sonneborn-Berger, the crosstable; with --json as one JSON document\n"
   "(tabula(1), JSON).",
   run_tournament},
  {"store", "copy FROM TO", 3, 3, OPT_CONFIG, NO_STORE,
   "copy a stopped store to another engine, then check it",
   "store copy FROM TO copies the store FROM into the new, empty store TO,\n"
   "each an SQLite file or a PostgreSQL database (postgresql://HOST/DB or\n"
   "libpq keywords, as the store option of tabula.ini(5) takes them): SQLite\n"
   "to PostgreSQL to move a club onto a server, and back. Every table is\n"
   "copied row for row, ids kept, in one transaction of TO; then both sides'\n"
   "rows are counted and TO is checked as tabula check checks a store (every\n"
   "journal's hash chain, every game replayed). Stop the daemon first: a\n"
   "store being served is refused, as is a TO that holds anything. FROM is\n"
   "only read (a store of an older tabula is first brought to this one's\n"
   "schema, as by any command). Exit status 0 when the copy checks clean,\n"
   "1 when it does not, 66 no store at FROM, 73 TO is not empty, 75 a\n"
   "daemon serves either or the copy failed (TO is left empty).",
   run_store},
  {"check-config", "", 0, 0, OPT_CONFIG | OPT_JSON, NO_STORE,
   "the configuration in effect, every option explained",
   "Reads the configuration the other commands would use and prints every\n"
   "option with its value, default and meaning, after a line saying which\n"
   "file it read. Passwords are not shown. Exit status 78 (EX_CONFIG) when the\n"
   "file holds an error. --json writes the same as one JSON document\n"
   "(tabula(1), JSON).",
   run_check_config},
  {"perft", "POS DEPTH", 2, 2, OPT_GAME, NO_STORE, "leaf count of the legal-move tree",
   "Counts the leaves of the legal-move tree of POS to DEPTH (0..20) in game\n"
   "-g GAME (chess by default). POS is a position string or startpos.",
   run_rules},
  {"divide", "POS DEPTH", 2, 2, OPT_GAME, NO_STORE, "leaf count per legal move, then the total",
   "Like perft, one line per legal move (computer notation), then the total.", run_rules},
  {"moves", "POS", 1, 1, OPT_GAME, NO_STORE, "legal moves: computer and canonical notation",
   "Lists the legal moves of POS in game -g GAME, computer notation then the\n"
   "canonical notation players see.",
   run_rules},
  {"board", "POS", 1, 1, OPT_GAME | OPT_SEAT, NO_STORE, "the board as a player sees it",
   "Draws POS of game -g GAME as the mails show it, from side -s SEAT (a\n"
   "number from 0 or a side's name; the first side by default).",
   run_rules},
  {"help", "[COMMAND]", 0, 1, 0, NO_STORE, "this list, or one command in full",
   "Lists the commands, or describes one.", run_help},
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
  size_t i;
  for(i = 0; i < NCOMMANDS; i++)
    if(!strcmp(commands[i].name, name))
      return &commands[i];
  return NULL;
}

static void options_text(char *buf, size_t cap, unsigned opts)
{
  snprintf(buf, cap, "%s%s%s%s%s%s%s%s", opts & OPT_CONFIG ? " [-c FILE]" : "",
           opts & OPT_GAME ? " [-g GAME]" : "", opts & OPT_SEAT ? " [-s SEAT]" : "",
           opts & OPT_REASON ? " [--reason TEXT]" : "", opts & OPT_REBUILD ? " [--rebuild]" : "",
           opts & OPT_DOUBLE ? " [--double]" : "", opts & OPT_JSON ? " [--json]" : "",
           opts & OPT_FORMAT ? " [--format FMT]" : "");
}

static void usage(FILE *out)
{
  size_t i;
  fputs("usage: tabula COMMAND [ARGUMENTS] [OPTIONS]\n"
        "       tabula --help | --version | help COMMAND\n\n",
        out);
  for(i = 0; i < NCOMMANDS; i++) {
    char line[80];
    snprintf(line, sizeof(line), "%s %s", commands[i].name, commands[i].args);
    fprintf(out, "  %-22s %s\n", line, commands[i].summary);
  }
  fprintf(out,
          "\nOptions may stand anywhere on the line:\n"
          "  -c, --config FILE      the configuration (else $TABULA_CONFIG, else\n"
          "                         %s if it exists, else the\n"
          "                         built-in defaults: everything in ./tabula-data)\n"
          "  -g, --game GAME        the game of the rules tools (chess by default)\n"
          "  -s, --seat SEAT        the side the board is drawn for\n"
          "      --reason TEXT      adjudicate: the operator's reason, mailed to the players\n"
          "      --rebuild          ratings: rewrite the stored table from the journals\n"
          "      --double           tournament new: each pairing twice, colours swapped\n"
          "      --format FMT       export: the record in another format (sgf)\n"
          "      --json             games, show, check, ratings, tournament show,\n"
          "                         check-config: one JSON document (tabula(1), JSON)\n"
          "  -h, --help             this text;  -V, --version  the version\n"
          "See tabula(1) and tabula.ini(5).\n",
          ref_config_system_file);
}

static void command_help(FILE *out, const struct command *c)
{
  char opts[160]; /* every option at once fits */
  options_text(opts, sizeof(opts), c->opts);
  fprintf(out, "usage: tabula %s%s%s%s\n\n%s\n", c->name, c->args[0] ? " " : "", c->args, opts,
          c->details);
}

static int usage_error(const struct cli *cli, const char *fmt, const char *what)
{
  fputs("tabula: ", stderr);
  fprintf(stderr, fmt, what);
  fputc('\n', stderr);
  if(cli->cmd)
    fprintf(stderr, "Try 'tabula help %s'.\n", cli->cmd->name);
  else
    fputs("Try 'tabula --help'.\n", stderr);
  return EX_USAGE;
}

/* ---- the command line: options anywhere ---- */

/* -x VALUE, -xVALUE, --long VALUE, --long=VALUE. 1 when argv[*i] is this
 * option (its value in *value, NULL when missing), else 0. */
static int take_option(int argc, char **argv, int *i, char shortname, const char *longname,
                       const char **value)
{
  const char *a = argv[*i];
  size_t n = strlen(longname);
  if(a[0] == '-' && a[1] == shortname && shortname) {
    *value = a[2] ? a + 2 : *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
  }
  if(!strncmp(a, "--", 2) && !strncmp(a + 2, longname, n) && (a[2 + n] == '\0' || a[2 + n] == '=')) {
    *value = a[2 + n] == '=' ? a + 3 + n : *i + 1 < argc ? argv[++*i] : NULL;
    return 1;
  }
  return 0;
}

/* Parses the whole line. Returns -1 to go on, else the exit status. */
static int parse_line(struct cli *cli, int argc, char **argv)
{
  static const struct {
    char shortname;
    const char *longname;
    unsigned opt;
  } valued[] = {
    {'c', "config", OPT_CONFIG},
    {'g', "game", OPT_GAME},
    {'s', "seat", OPT_SEAT},
    {0, "reason", OPT_REASON},
    {0, "format", OPT_FORMAT},
  };
  const char *positional[24];
  unsigned seen = 0;
  int npos = 0, i, k, only_args = 0, help = 0;
  size_t v;

  for(i = 1; i < argc; i++) {
    const char *a = argv[i], *value = NULL;
    if(only_args || a[0] != '-' || !a[1]) {
      if(npos == (int)(sizeof(positional) / sizeof(positional[0])))
        return usage_error(cli, "too many arguments (%s)", a);
      positional[npos++] = a;
      continue;
    }
    if(!strcmp(a, "--")) {
      only_args = 1;
      continue;
    }
    if(!strcmp(a, "-h") || !strcmp(a, "--help")) {
      help = 1;
      continue;
    }
    for(v = 0; v < sizeof(flags) / sizeof(flags[0]); v++)
      if(!strncmp(a, "--", 2) && !strcmp(a + 2, flags[v].longname))
        break;
    if(v < sizeof(flags) / sizeof(flags[0])) {
      cli->flags |= flags[v].opt;
      seen |= flags[v].opt;
      continue;
    }
    if(!strcmp(a, "-V") || !strcmp(a, "--version")) {
      printf("tabula %s\n", TABULA_VERSION);
      return EX_OK;
    }
    for(v = 0; v < sizeof(valued) / sizeof(valued[0]); v++)
      if(take_option(argc, argv, &i, valued[v].shortname, valued[v].longname, &value))
        break;
    if(v == sizeof(valued) / sizeof(valued[0]))
      return usage_error(cli, "unknown option '%s'", a);
    if(!value)
      return usage_error(cli, "option '%s' needs a value", a);
    if(seen & valued[v].opt)
      return usage_error(cli, "option '%s' given twice", a);
    seen |= valued[v].opt;
    switch(valued[v].opt) {
    case OPT_CONFIG: cli->config = value; break;
    case OPT_GAME: cli->game = value; break;
    case OPT_SEAT: cli->seat = value; break;
    case OPT_FORMAT: cli->format = value; break;
    default: cli->reason = value; break;
    }
  }
  if(npos == 0) {
    usage(help ? stdout : stderr);
    return help ? EX_OK : EX_USAGE;
  }
  cli->cmd = find_command(positional[0]);
  if(!cli->cmd) {
    fprintf(stderr, "tabula: unknown command '%s'\n", positional[0]);
    usage(stderr);
    return EX_USAGE;
  }
  if(help) { /* tabula COMMAND --help */
    command_help(stdout, cli->cmd);
    return EX_OK;
  }
  /* an option the command does not take is said, never ignored */
  for(v = 0; v < sizeof(valued) / sizeof(valued[0]); v++)
    if((seen & valued[v].opt) && !(cli->cmd->opts & valued[v].opt)) {
      char name[32];
      if(valued[v].shortname)
        snprintf(name, sizeof(name), "-%c", valued[v].shortname);
      else
        snprintf(name, sizeof(name), "--%s", valued[v].longname);
      return usage_error(cli, "%s does not apply to this command", name);
    }
  for(v = 0; v < sizeof(flags) / sizeof(flags[0]); v++)
    if((seen & flags[v].opt) && !(cli->cmd->opts & flags[v].opt)) {
      char name[32];
      snprintf(name, sizeof(name), "--%s", flags[v].longname);
      return usage_error(cli, "%s does not apply to this command", name);
    }
  if(npos - 1 < cli->cmd->min_args)
    return usage_error(cli, "%s: an argument is missing", cli->cmd->name);
  if(npos - 1 > cli->cmd->max_args)
    return usage_error(cli, "unexpected argument '%s'", positional[1 + cli->cmd->max_args]);
  for(k = 1; k < npos; k++)
    cli->args[cli->nargs++] = (char *)positional[k];
  return -1;
}

/* GAME: a game number, all digits. */
static int game_number(struct cli *cli, const char *text, int64_t *id)
{
  char *end;
  long long v;
  errno = 0;
  v = strtoll(text, &end, 10);
  if(!text[0] || *end || errno || v < 1 || text[0] == '+')
    return usage_error(cli, "'%s' is not a game number", text);
  *id = v;
  return -1;
}

/* ---- configuration and store ---- */

static int load_config(struct cli *cli)
{
  char err[768];
  int rc;
  ref_config_defaults(&cli->cfg);
  cli->config_path = ref_config_locate(cli->config, &cli->config_origin);
  if(!cli->config_path)
    return -1;
  rc = ref_config_load(&cli->cfg, cli->config_path, err, sizeof(err));
  /* the transport's options are checked by transport.c, not config.c, so
   * config.c needs nothing of the mail stack (tabula-deliver) */
  if(rc == 0 && ref_config_check_mail(&cli->cfg, err, sizeof(err)))
    rc = REF_CONFIG_EINVALID;
  if(rc == REF_CONFIG_EREAD) {
    fprintf(stderr, "tabula: %s (the configuration %s)\n", err, cli->config_origin);
    return EX_NOINPUT;
  }
  if(rc) {
    fprintf(stderr, "tabula: %s\n", err);
    return EX_CONFIG;
  }
  return -1;
}

/* Which store, in words: its path made absolute, and where that came from. */
static void store_words(const struct cli *cli, char *buf, size_t cap)
{
  char cwd[PATH_MAX];
  const char *p = ref_config_store(&cli->cfg);
  if(!ref_service_store_is_file(&cli->cfg))
    ref_service_store_name(&cli->cfg, buf, cap);
  else if(p[0] != '/' && getcwd(cwd, sizeof(cwd)))
    snprintf(buf, cap, "%s/%s", cwd, p);
  else
    snprintf(buf, cap, "%s", p);
}

static int open_store(struct cli *cli)
{
  char err[768], where[PATH_MAX + 600];
  struct stat st;
  int exists;

  store_words(cli, where, sizeof(where));
  if(!ref_service_store_is_file(&cli->cfg)) {
    /* A database on a server: made when its schema has a version. One
     * that cannot be reached now is the service's to report below. */
    if(cli->cmd->store == NEEDS_STORE && ref_service_store_made(&cli->cfg, err, sizeof(err)) == 0) {
      fprintf(stderr,
              "tabula: no store in the database %s (store of %s%s%s); nothing was created.\n"
              "Name the configuration with -c FILE or $TABULA_CONFIG.\n",
              where, cli->config_path ? cli->config_path : "", cli->config_path ? ", " : "",
              cli->config_origin);
      return EX_NOINPUT;
    }
    exists = 1;
  }
  else
    exists = stat(cli->cfg.store_path, &st) == 0;
  if(!exists && errno != ENOENT) { /* a folder on the way this user may not search */
    fprintf(stderr, "tabula: cannot open the store %s: %s; run tabula as the user who owns it\n",
            where, strerror(errno));
    return EX_NOPERM;
  }
  if(!exists && cli->cmd->store == NEEDS_STORE) {
    /* Never an empty store, which would look like lost games */
    fprintf(stderr,
            "tabula: no store at %s (store_path of %s%s%s); nothing was created.\n"
            "Name the configuration with -c FILE or $TABULA_CONFIG.\n",
            where, cli->config_path ? cli->config_path : "", cli->config_path ? ", " : "",
            cli->config_origin);
    return EX_NOINPUT;
  }
  if(exists && ref_service_store_is_file(&cli->cfg) &&
     access(cli->cfg.store_path, R_OK | W_OK) != 0) {
    fprintf(stderr, "tabula: cannot open the store %s: %s; run tabula as the user who owns it\n",
            where, strerror(errno));
    return EX_NOPERM;
  }
  switch(ref_service_open(&cli->svc, &cli->cfg, err, sizeof(err))) {
  case 0: break;
  case REF_OPEN_EDAMAGED:
    /* no database, a damaged one or a newer schema: a fault, which trying
     * again cannot mend (tabula(1), EXIT STATUS): `check` reports it as
     * the fault it found, every other command as wrong data */
    fprintf(stderr, "tabula: %s (store %s): not a store this tabula can use; nothing was "
                    "changed\n", err, where);
    return cli->cmd->run == run_check ? EXIT_FAULT : EX_DATAERR;
  default:
    fprintf(stderr, "tabula: %s (store %s)\n", err, where);
    /* not there after the attempt: it could not be made; else it is busy
     * or failing, which another try may get past */
    if(!ref_service_store_is_file(&cli->cfg))
      return EX_TEMPFAIL; /* a server may be back soon */
    return stat(cli->cfg.store_path, &st) ? EX_CANTCREAT : EX_TEMPFAIL;
  }
  return -1;
}

/* ---- service commands ---- */

static int run_serve(struct cli *cli)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof(sa));
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  ref_log_info("configuration: %s (%s)",
               cli->config_path ? cli->config_path : "built-in defaults", cli->config_origin);
  /* opens the store itself: it waits for a store that is down,
   * and refuses to run beside another serve on the same store */
  switch(ref_service_serve(&cli->cfg, &stop_requested)) {
  case 0: return EX_OK;
  case REF_OPEN_EDAMAGED: return EX_DATAERR; /* as open_store: a fault, not "later" */
  default: return EX_TEMPFAIL;
  }
}

static int run_deliver(struct cli *cli)
{
  /* sysexits.h: 75 EX_TEMPFAIL, the MTA offers the mail again later;
   * 65 EX_DATAERR, it returns the mail to its sender with our reason. */
  int d = ref_service_deliver_fd(cli->svc, 0);
  return d == 0 ? EX_OK : d > 0 ? EX_DATAERR : EX_TEMPFAIL;
}

static int run_poll(struct cli *cli)
{
  size_t processed = 0;
  return ref_service_poll(cli->svc, &processed) ? EX_TEMPFAIL : EX_OK;
}

static int run_flush(struct cli *cli)
{
  size_t sent = 0;
  int rc = ref_service_flush_outbox(cli->svc, &sent) ? EX_TEMPFAIL : EX_OK;
  printf("%zu sent\n", sent);
  return rc;
}

static int run_tick(struct cli *cli)
{
  /* the daemon's time-driven work once, then the outbox (cron); the inbox
   * first, as serve reads it before each of its ticks: a move that arrived
   * before its deadline is played, whether cron runs tick or poll first
   * (rules-spec TM-1). A pass that fails leaves the losses on time for a
   * later tick; the rest of the tick's work goes on. */
  size_t actions = 0, sent = 0, read = 0, answered = 0;
  int rc = ref_service_poll_sent(cli->svc, &read, &answered) ? EX_TEMPFAIL : EX_OK;
  if(ref_service_tick(cli->svc, &actions))
    rc = EX_TEMPFAIL;
  if(ref_service_flush_outbox(cli->svc, &sent))
    rc = EX_TEMPFAIL;
  printf("%zu message(s) read, %zu action(s), %zu sent\n", read, actions, sent + answered);
  return rc;
}

/* enum ref_admin_rc -> exit status */
static int admin_status(int rc)
{
  switch(rc) {
  case REF_ADMIN_OK: return EX_OK;
  case REF_ADMIN_FAULT: return EXIT_FAULT;
  case REF_ADMIN_NO_GAME: return EX_NOINPUT;
  case REF_ADMIN_REFUSED: return EX_DATAERR;
  default: return EX_TEMPFAIL;
  }
}

/* --json: what the read-only commands write */
static enum ref_output output_form(const struct cli *cli)
{
  return cli->flags & OPT_JSON ? REF_OUTPUT_JSON : REF_OUTPUT_TEXT;
}

static int run_games(struct cli *cli)
{
  return admin_status(ref_service_print_games(cli->svc, stdout, output_form(cli)));
}

static int run_check(struct cli *cli)
{
  return ref_service_check(cli->svc, stdout, output_form(cli)) ? EXIT_FAULT : EX_OK;
}

static int run_game_view(struct cli *cli, int (*view)(struct ref_service *, FILE *, int64_t))
{
  int64_t id;
  int rc = game_number(cli, cli->args[0], &id);
  if(rc >= 0)
    return rc;
  return admin_status(view(cli->svc, stdout, id));
}

static int run_show(struct cli *cli)
{
  int64_t id;
  int rc = game_number(cli, cli->args[0], &id);
  if(rc >= 0)
    return rc;
  return admin_status(ref_service_print_game(cli->svc, stdout, id, output_form(cli)));
}

static int run_export(struct cli *cli)
{
  int64_t id;
  int rc = game_number(cli, cli->args[0], &id);
  if(rc >= 0)
    return rc;
  return admin_status(ref_service_export(cli->svc, stdout, id, cli->format));
}

static int run_site(struct cli *cli)
{
  size_t pages = 0;
  if(ref_service_site(cli->svc, cli->args[0], 0, &pages)) {
    fprintf(stderr, "tabula: the web view could not be written to %s\n", cli->args[0]);
    return EX_CANTCREAT;
  }
  printf("%zu game page(s) written to %s\n", pages, cli->args[0]);
  return EX_OK;
}

static int run_verify(struct cli *cli)
{
  return run_game_view(cli, ref_service_verify);
}

static int run_time(struct cli *cli)
{
  int64_t id;
  size_t sent = 0;
  int rc = game_number(cli, cli->args[0], &id);
  if(rc >= 0)
    return rc;
  if(cli->nargs == 1)
    return admin_status(ref_service_time(cli->svc, stdout, id, NULL, NULL, NULL));
  if(cli->nargs != 5 || strcmp(cli->args[1], "add")) {
    fprintf(stderr, "tabula: usage: tabula time GAME [add SEAT AMOUNT REASON]\n");
    return EX_USAGE;
  }
  rc = admin_status(
    ref_service_time(cli->svc, stdout, id, cli->args[2], cli->args[3], cli->args[4]));
  if(rc == EX_OK && ref_service_flush_outbox(cli->svc, &sent)) {
    fprintf(stderr, "tabula: the mails stay queued: serve or flush sends them\n");
    rc = EX_TEMPFAIL;
  }
  return rc;
}

static int run_key(struct cli *cli)
{
  int rotate = cli->nargs == 1;
  if(rotate && strcmp(cli->args[0], "rotate")) {
    fprintf(stderr, "tabula: key takes nothing or \"rotate\"\n");
    return EX_USAGE;
  }
  return admin_status(ref_service_key(cli->svc, stdout, rotate));
}

static int run_adjudicate(struct cli *cli)
{
  int64_t id;
  size_t sent = 0;
  int rc = game_number(cli, cli->args[0], &id); /* checked by check_arguments */
  if(rc >= 0)
    return rc;
  rc = admin_status(ref_service_adjudicate(cli->svc, stdout, id, cli->args[1], cli->reason));
  /* the players hear of it now, not at the daemon's next pass */
  if(rc == EX_OK && ref_service_flush_outbox(cli->svc, &sent)) {
    fprintf(stderr, "tabula: the mails stay queued: serve or flush sends them\n");
    rc = EX_TEMPFAIL;
  }
  return rc;
}

static int run_ratings(struct cli *cli)
{
  return admin_status(ref_service_ratings(cli->svc, stdout, cli->nargs ? cli->args[0] : NULL,
                                          (cli->flags & OPT_REBUILD) != 0, output_form(cli)));
}

static int run_tournament(struct cli *cli)
{
  size_t sent = 0;
  int rc;
  if(!strcmp(cli->args[0], "show") && cli->nargs == 2 && !(cli->flags & OPT_DOUBLE))
    return admin_status(ref_service_standings(cli->svc, stdout, cli->args[1], output_form(cli)));
  /* new writes to the store and mails: no document of it */
  if(!strcmp(cli->args[0], "new") && (cli->flags & OPT_JSON))
    return usage_error(cli, "%s", "--json applies to tournament show, not new");
  if(strcmp(cli->args[0], "new") || cli->nargs < 4)
    return usage_error(cli, "%s", "tournament new GAME NAME PLAYER... | tournament show NAME");
  rc = admin_status(ref_service_tournament_new(cli->svc, stdout, cli->args[1], cli->args[2],
                                               cli->args + 3, cli->nargs - 3,
                                               cli->flags & OPT_DOUBLE ? 2 : 1));
  /* the invitations go now, not at the daemon's next pass */
  if(rc == EX_OK && ref_service_flush_outbox(cli->svc, &sent)) {
    fprintf(stderr, "tabula: the mails stay queued: serve or flush sends them\n");
    rc = EX_TEMPFAIL;
  }
  return rc;
}

static int run_store(struct cli *cli)
{
  if(strcmp(cli->args[0], "copy"))
    return usage_error(cli, "%s", "store copy FROM TO");
  switch(ref_service_store_copy(&cli->cfg, cli->args[1], cli->args[2], stdout)) {
  case REF_COPY_OK: return EX_OK;
  case REF_COPY_FAULT: return EXIT_FAULT;
  case REF_COPY_NO_SOURCE: return EX_NOINPUT;
  case REF_COPY_NOT_EMPTY: return EX_CANTCREAT;
  default: return EX_TEMPFAIL;
  }
}

static int run_check_config(struct cli *cli)
{
  if(output_form(cli) == REF_OUTPUT_JSON)
    return ref_config_json(stdout, &cli->cfg, cli->config_path, cli->config_origin)
             ? EX_SOFTWARE
             : EX_OK;
  printf("; configuration: %s (%s)\n", cli->config_path ? cli->config_path : "none",
         cli->config_origin);
  ref_config_dump(stdout, &cli->cfg);
  return EX_OK;
}

static int run_help(struct cli *cli)
{
  const struct command *c;
  if(!cli->nargs) {
    usage(stdout);
    return EX_OK;
  }
  c = find_command(cli->args[0]);
  if(!c) {
    fprintf(stderr, "tabula: unknown command '%s'\n", cli->args[0]);
    usage(stderr);
    return EX_USAGE;
  }
  command_help(stdout, c);
  return EX_OK;
}

/* ---- rules tools ---- */

static struct ref_state *load_position(const struct ref_game_desc *g, const char *pos)
{
  struct ref_state *s = ref_state_new(g);
  struct ref_err err;
  int rc;

  if(!s)
    return NULL;
  if(!strcmp(pos, "startpos"))
    rc = g->ops->init(s, NULL, &err);
  else
    rc = g->ops->decode(s, pos, &err);
  if(rc != REF_OK) {
    fprintf(stderr, "tabula: not a %s position: %s%s%s\n", g->name, err.reason,
            err.detail[0] ? ": " : "", err.detail);
    free(s);
    return NULL;
  }
  return s;
}

static int cmp_lines(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Prints `lines` sorted bytewise (LC_ALL=C order), then frees them. */
static void print_sorted(char **lines, size_t n)
{
  size_t i;
  qsort(lines, n, sizeof(*lines), cmp_lines);
  for(i = 0; i < n; i++) {
    puts(lines[i]);
    free(lines[i]);
  }
}

/* -s SEAT: a number from 0, or a side's name (black). */
static int seat_number(struct cli *cli, const struct ref_game_desc *g, int *seat)
{
  char *end;
  long v;
  int s;
  *seat = 0;
  if(!cli->seat)
    return -1;
  for(s = 0; s < g->seats; s++)
    if(!strcasecmp(cli->seat, g->seat_names[s])) {
      *seat = s;
      return -1;
    }
  v = strtol(cli->seat, &end, 10);
  if(!cli->seat[0] || *end || v < 0 || v >= g->seats)
    return usage_error(cli, "-s %s: not a side of this game", cli->seat);
  *seat = (int)v;
  return -1;
}

static int run_rules(struct cli *cli)
{
  const char *cmd = cli->cmd->name;
  const struct ref_game_desc *g = ref_game_find(cli->game ? cli->game : "chess");
  struct ref_movelist list = {0};
  struct ref_state *s = NULL, *child = NULL;
  char **lines = NULL;
  int rc, depth = 0, seat = 0;
  size_t i;

  if(!g)
    return usage_error(cli, "no game called '%s'", cli->game);
  rc = seat_number(cli, g, &seat);
  if(rc >= 0)
    return rc;
  if(cli->nargs >= 2) {
    char *end;
    long d = strtol(cli->args[1], &end, 10);
    if(!cli->args[1][0] || *end || d < 0 || d > 20)
      return usage_error(cli, "depth '%s' is not a number from 0 to 20", cli->args[1]);
    depth = (int)d;
  }
  s = load_position(g, cli->args[0]);
  if(!s)
    return EX_DATAERR;
  rc = EX_SOFTWARE;
  if(!strcmp(cmd, "perft")) {
    printf("%llu\n", (unsigned long long)ref_perft(g, s, depth));
    rc = EX_OK;
    goto out;
  }
  if(!strcmp(cmd, "board")) {
    char buf[8192];
    if(g->ops->render(s, seat, buf, sizeof(buf)) != REF_OK)
      goto out;
    fputs(buf, stdout);
    rc = EX_OK;
    goto out;
  }
  if(g->ops->legal(s, &list) != REF_OK)
    goto out;
  lines = calloc(list.n ? list.n : 1, sizeof(*lines));
  child = malloc(g->state_size);
  if(!lines || !child)
    goto out;
  if(!strcmp(cmd, "divide")) {
    uint64_t total = 0;
    for(i = 0; i < list.n; i++) {
      char mv[REF_NOTATION_MAX], line[REF_NOTATION_MAX + 32];
      uint64_t n = 1;
      g->ops->format(s, &list.v[i], REF_NOTATION_COMPUTER, mv, sizeof(mv));
      if(depth > 1) {
        memcpy(child, s, g->state_size);
        g->ops->apply(child, &list.v[i]);
        n = ref_perft_below(g, child, depth - 1);
      }
      total += n;
      snprintf(line, sizeof(line), "%s: %llu", mv, (unsigned long long)n);
      lines[i] = strdup(line);
    }
    print_sorted(lines, list.n);
    printf("total %llu\n", (unsigned long long)(depth == 0 ? 1 : total));
  }
  else {
    for(i = 0; i < list.n; i++) {
      char a[REF_NOTATION_MAX], b[REF_NOTATION_MAX], line[2 * REF_NOTATION_MAX + 2];
      g->ops->format(s, &list.v[i], REF_NOTATION_COMPUTER, a, sizeof(a));
      g->ops->format(s, &list.v[i], REF_NOTATION_CANONICAL, b, sizeof(b));
      snprintf(line, sizeof(line), "%s %s", a, b);
      lines[i] = strdup(line);
    }
    print_sorted(lines, list.n);
  }
  rc = EX_OK;
out:
  free(lines);
  free(child);
  free(s);
  ref_movelist_free(&list);
  return rc;
}

/* The arguments' form, before any file is read: a usage error is said as
 * one, whatever the configuration. */
static int check_arguments(struct cli *cli)
{
  const unsigned char *r;
  int64_t id;
  int rc;
  if(!strncmp(cli->cmd->args, "GAME", 4) && (rc = game_number(cli, cli->args[0], &id)) >= 0)
    return rc;
  /* --reason: one line of text, for the journal entry (256 bytes) and the mail */
  if(cli->reason && strlen(cli->reason) > 255)
    return usage_error(cli, "--reason: %s", "at most 255 bytes");
  for(r = (const unsigned char *)cli->reason; r && *r; r++)
    if(*r < 0x20 || *r == 0x7f)
      return usage_error(cli, "--reason: %s", "one line of text, no control characters");
  return -1;
}

int main(int argc, char **argv)
{
  struct cli cli;
  int rc;

  memset(&cli, 0, sizeof(cli));
  rc = parse_line(&cli, argc, argv);
  if(rc < 0)
    rc = check_arguments(&cli);
  if(rc >= 0)
    return rc;
  if(cli.cmd->opts & OPT_CONFIG) {
    rc = load_config(&cli);
    if(rc >= 0)
      /* deliver: the MTA keeps the mail until the operator mends the file */
      return cli.cmd->run == run_deliver ? EX_TEMPFAIL : rc;
    ref_log_set_level((enum ref_log_level)cli.cfg.log_level);
    ref_log_setup(cli.cfg.log_format, cli.cfg.log_file);
  }
  if(cli.cmd->store != NO_STORE && cli.cmd->run != run_serve) {
    rc = open_store(&cli);
    if(rc >= 0)
      return cli.cmd->run == run_deliver ? EX_TEMPFAIL : rc;
  }
  rc = cli.cmd->run(&cli);
  ref_service_close(cli.svc);
  return rc;
}
