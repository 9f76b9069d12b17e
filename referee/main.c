/*
 * main.c: the `tabula` command line. Thin: it parses argv and calls the
 * service (referee.h) or, for the rules tools, the rules core directly.
 *
 *   tabula serve [-c FILE]            watch the inbox, answer moves (daemon)
 *   tabula deliver [-c FILE]          process one message from stdin (MTA pipe)
 *   tabula poll [-c FILE]             one pass over the inbox, then exit (cron)
 *   tabula flush [-c FILE]            send the outbox once
 *   tabula tick [-c FILE]             the time-driven work once (clock.c), then flush
 *   tabula games [-c FILE]            list the games in the store
 *   tabula show [-c FILE] GAME        one game: players, board, journal
 *   tabula check [-c FILE]            replay every journal and compare
 *   tabula adjudicate [-c FILE] GAME RESULT   the operator decides a game
 *   tabula export [-c FILE] GAME      the game's record: PGN (chess) or transcript
 *   tabula site [-c FILE] DIR         the read-only web view of every public game
 *   tabula verify [-c FILE] GAME      check every dice roll of a game
 *   tabula check-config [-c FILE]     print the configuration in effect
 *   tabula perft [-g GAME] POS DEPTH  leaf count of the legal-move tree
 *   tabula divide [-g GAME] POS DEPTH per-move leaf counts, then the total
 *   tabula moves [-g GAME] POS        legal moves: computer and canonical notation
 *   tabula board [-g GAME] [-s SEAT] POS   the ASCII board
 *
 * POS is the game's position string (FEN for chess) or "startpos".
 */
#include "referee.h"
#include "rules.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
  (void)sig;
  stop_requested = 1; /* only a flag: the loop acts on it */
}

static void usage(FILE *out)
{
  fputs("usage: tabula COMMAND [options]\n"
        "  serve [-c FILE]              watch the inbox Maildir and answer (daemon)\n"
        "  deliver [-c FILE]            process one message from standard input\n"
        "  poll [-c FILE]               one pass over the inbox Maildir, then exit\n"
        "  flush [-c FILE]              send what the outbox holds\n"
        "  tick [-c FILE]               reminders, losses on time, expired invitations,\n"
        "                               digests due now; then the outbox (cron)\n"
        "  games [-c FILE]              list the games in the store\n"
        "  show [-c FILE] GAME          one game: seats, board, journal\n"
        "  check [-c FILE]              replay every journal, compare with the store\n"
        "  adjudicate [-c FILE] GAME RESULT  decide a running game: RESULT is a side\n"
        "                               (white, black), 1-0, 0-1 or draw; players are mailed\n"
        "  site [-c FILE] DIR           write the read-only web view: index.html, a page\n"
        "                               and the record of every game not private\n"
        "  export [-c FILE] GAME        the game's record: PGN for chess, else a\n"
        "                               transcript with the dice lines\n"
        "  verify [-c FILE] GAME        check every dice roll of a game (tabula-dice-1)\n"
        "  check-config [-c FILE]       print the configuration in effect\n"
        "  perft [-g GAME] POS DEPTH    leaf count of the legal-move tree\n"
        "  divide [-g GAME] POS DEPTH   leaf count per legal move, then the total\n"
        "  moves [-g GAME] POS          legal moves (computer and canonical notation)\n"
        "  board [-g GAME] [-s SEAT] POS  the board as a player sees it\n"
        "POS is a position string (FEN for chess) or 'startpos'; GAME defaults to chess.\n",
        out);
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

static int cmd_rules(const char *cmd, const struct ref_game_desc *g, int seat, int argc,
                     char **argv)
{
  struct ref_movelist list = {0};
  struct ref_state *s = NULL, *child = NULL;
  char **lines = NULL;
  int rc = 2, depth = 0;
  size_t i;

  if(argc < 1 || (strcmp(cmd, "moves") && strcmp(cmd, "board") && argc < 2)) {
    usage(stderr);
    return 2;
  }
  if(argc >= 2) {
    char *end;
    long d = strtol(argv[1], &end, 10);
    if(*end || d < 0 || d > 20) {
      fprintf(stderr, "tabula: depth must be 0..20\n");
      return 2;
    }
    depth = (int)d;
  }
  s = load_position(g, argv[0]);
  if(!s)
    goto out;

  if(!strcmp(cmd, "perft")) {
    printf("%llu\n", (unsigned long long)ref_perft(g, s, depth));
    rc = 0;
    goto out;
  }
  if(!strcmp(cmd, "board")) {
    char buf[8192];
    if(g->ops->render(s, seat, buf, sizeof(buf)) != REF_OK)
      goto out;
    fputs(buf, stdout);
    rc = 0;
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
        n = ref_perft(g, child, depth - 1);
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
  rc = 0;
out:
  free(lines);
  free(child);
  free(s);
  ref_movelist_free(&list);
  return rc;
}

/* ---- service commands ---- */

static int open_service(struct ref_service **svc, const char *config_path)
{
  struct ref_config cfg;
  char err[512];

  ref_config_defaults(&cfg);
  if(config_path && ref_config_load(&cfg, config_path, err, sizeof(err)) != 0) {
    fprintf(stderr, "tabula: %s\n", err);
    return 1;
  }
  if(ref_service_open(svc, &cfg, err, sizeof(err)) != 0) {
    fprintf(stderr, "tabula: %s\n", err);
    return 1;
  }
  return 0;
}

int main(int argc, char **argv)
{
  const char *cmd, *config_path = NULL, *game = "chess";
  const struct ref_game_desc *g;
  struct ref_service *svc = NULL;
  int seat = 0, rc = 0, opt;

  if(argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  cmd = argv[1];
  optind = 2;
  while((opt = getopt(argc, argv, "c:g:s:")) != -1) {
    switch(opt) {
    case 'c': config_path = optarg; break;
    case 'g': game = optarg; break;
    case 's': seat = atoi(optarg); break;
    default: usage(stderr); return 2;
    }
  }
  argc -= optind;
  argv += optind;

  if(!strcmp(cmd, "perft") || !strcmp(cmd, "divide") || !strcmp(cmd, "moves") ||
     !strcmp(cmd, "board")) {
    g = ref_game_find(game);
    if(!g) {
      fprintf(stderr, "tabula: no game called '%s'\n", game);
      return 2;
    }
    return cmd_rules(cmd, g, seat, argc, argv);
  }

  if(!strcmp(cmd, "check-config")) {
    struct ref_config cfg;
    char err[512];
    ref_config_defaults(&cfg);
    if(config_path && ref_config_load(&cfg, config_path, err, sizeof(err)) != 0) {
      fprintf(stderr, "tabula: %s\n", err);
      return 1;
    }
    ref_config_dump(stdout, &cfg);
    return 0;
  }

  if(open_service(&svc, config_path))
    return 1;
  if(!strcmp(cmd, "serve")) {
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    rc = ref_service_run(svc, &stop_requested) ? 1 : 0;
  }
  else if(!strcmp(cmd, "deliver")) {
    /* sysexits.h: 75 EX_TEMPFAIL, the MTA offers the mail again later;
     * 65 EX_DATAERR, it returns the mail to its sender with our reason. */
    int d = ref_service_deliver_fd(svc, 0);
    rc = d == 0 ? 0 : d > 0 ? 65 : 75;
  }
  else if(!strcmp(cmd, "poll")) {
    size_t processed = 0;
    rc = ref_service_poll(svc, &processed) ? 1 : 0;
  }
  else if(!strcmp(cmd, "tick")) {
    /* the daemon's time-driven work once, then the outbox (cron) */
    size_t actions = 0, sent = 0;
    rc = ref_service_tick(svc, &actions) ? 1 : 0;
    if(ref_service_flush_outbox(svc, &sent))
      rc = 1;
    printf("%zu action(s), %zu sent\n", actions, sent);
  }
  else if(!strcmp(cmd, "flush")) {
    size_t sent = 0;
    rc = ref_service_flush_outbox(svc, &sent) ? 1 : 0;
    printf("%zu sent\n", sent);
  }
  else if(!strcmp(cmd, "games")) {
    rc = ref_service_print_games(svc, stdout) ? 1 : 0;
  }
  else if(!strcmp(cmd, "show")) {
    if(argc < 1) {
      usage(stderr);
      rc = 2;
    }
    else
      rc = ref_service_print_game(svc, stdout, strtoll(argv[0], NULL, 10)) ? 1 : 0;
  }
  else if(!strcmp(cmd, "verify")) {
    if(argc < 1) {
      usage(stderr);
      rc = 2;
    }
    else
      rc = ref_service_verify(svc, stdout, strtoll(argv[0], NULL, 10)) ? 1 : 0;
  }
  else if(!strcmp(cmd, "adjudicate")) {
    size_t sent = 0;
    if(argc < 2) {
      usage(stderr);
      rc = 2;
    }
    else {
      rc = ref_service_adjudicate(svc, stdout, strtoll(argv[0], NULL, 10), argv[1]) ? 1 : 0;
      /* the players hear of it now, not at the daemon's next pass */
      if(!rc && ref_service_flush_outbox(svc, &sent))
        rc = 1;
    }
  }
  else if(!strcmp(cmd, "export")) {
    if(argc < 1) {
      usage(stderr);
      rc = 2;
    }
    else
      rc = ref_service_export(svc, stdout, strtoll(argv[0], NULL, 10)) ? 1 : 0;
  }
  else if(!strcmp(cmd, "site")) {
    size_t pages = 0;
    if(argc < 1) {
      usage(stderr);
      rc = 2;
    }
    else {
      rc = ref_service_site(svc, argv[0], 0, &pages) ? 1 : 0;
      if(!rc)
        printf("%zu game page(s) written to %s\n", pages, argv[0]);
    }
  }
  else if(!strcmp(cmd, "check")) {
    rc = ref_service_check(svc, stdout) ? 1 : 0;
  }
  else {
    fprintf(stderr, "tabula: unknown command '%s'\n", cmd);
    usage(stderr);
    rc = 2;
  }
  ref_service_close(svc);
  return rc;
}
