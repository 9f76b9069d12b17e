/*
 * test_commands.c: the command language (referee/kit/commands.c).
 *
 *  - every command word, in any case, reads as its command (a table);
 *  - "#N" anywhere is the move-number guard, "Qxf7#" is not;
 *  - `new GAME [options] with ADDRESS`: for EVERY registered game, its start
 *    position string given as fen=... (spaces, commas, colons, slashes and
 *    all) reaches ops->init unchanged, so every game's position option is
 *    reachable by mail; plus each game's switches from a table.
 */
#include "commands.h"
#include "rules.h"
#include "unit_run.h"

#include <check.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the words ---- */

static const struct {
  const char *line;
  enum ref_cmd_kind kind;
  const char *arg;
} words[] = {
  {"new chess with b@example.org", REF_CMD_NEW, "chess"},
  {"ACCEPT", REF_CMD_ACCEPT, ""},
  {"Decline", REF_CMD_DECLINE, ""},
  {"board", REF_CMD_BOARD, ""},
  {"give 3 days", REF_CMD_GIVE, "3 days"},
  {"timezone Europe/Berlin", REF_CMD_TIMEZONE, "Europe/Berlin"},
  {"legal", REF_CMD_LEGAL, ""},
  {"History", REF_CMD_HISTORY, ""},
  {"games", REF_CMD_GAMES, ""},
  {"resign gammon", REF_CMD_RESIGN, "gammon"},
  {"resign backgammon", REF_CMD_RESIGN, "backgammon"},
  {"draw offer", REF_CMD_DRAW_OFFER, ""},
  {"Draw Accept", REF_CMD_DRAW_ACCEPT, ""},
  {"draw decline", REF_CMD_DRAW_DECLINE, ""},
  {"DRAW CLAIM", REF_CMD_DRAW_CLAIM, ""},
  {"double", REF_CMD_DOUBLE, ""},
  {"take", REF_CMD_TAKE, ""},
  {"drop", REF_CMD_DROP, ""},
  {"roll", REF_CMD_ROLL, ""},
  {"verify", REF_CMD_VERIFY, ""},
  {"preview Nf3", REF_CMD_PREVIEW, "Nf3"},
  {"PREVIEW 13/7 8/7", REF_CMD_PREVIEW, "13/7 8/7"},
  {"observe 12", REF_CMD_OBSERVE, "12"},
  {"Observe game 12", REF_CMD_OBSERVE, "game 12"},
  {"unobserve", REF_CMD_UNOBSERVE, ""},
  {"help backgammon", REF_CMD_HELP, "backgammon"},
  {"help", REF_CMD_HELP, ""},
  {"message", REF_CMD_MESSAGE, ""},
  {"comments off", REF_CMD_COMMENTS, "off"},
  {"Comments On", REF_CMD_COMMENTS, "On"},
  /* Seeks */
  {"seek chess", REF_CMD_SEEK, "chess"},
  {"Seek Backgammon days=3 unrated", REF_CMD_SEEK, "backgammon"},
  {"seeks", REF_CMD_SEEKS, ""},
  {"seek cancel", REF_CMD_UNSEEK, ""},
  {"seek cancel 3", REF_CMD_UNSEEK, "3"},
  {"unseek 3", REF_CMD_UNSEEK, "3"},
  /* The two-word answers before "accept"/"decline" alone */
  {"takeback", REF_CMD_TAKEBACK, ""},
  {"Takeback Accept", REF_CMD_TAKEBACK_ACCEPT, ""},
  {"accept takeback", REF_CMD_TAKEBACK_ACCEPT, ""},
  {"takeback decline", REF_CMD_TAKEBACK_DECLINE, ""},
  {"DECLINE TAKEBACK", REF_CMD_TAKEBACK_DECLINE, ""},
  /* alone on the line, closing punctuation allowed */
  {"Take.", REF_CMD_TAKE, ""},
  {"take!", REF_CMD_TAKE, ""},
  {"TAKE", REF_CMD_TAKE, ""},
  {"  drop ,  ", REF_CMD_DROP, ""},
  {"Double!", REF_CMD_DOUBLE, ""},
  {"no double.", REF_CMD_ROLL, ""},
  {"Resign.", REF_CMD_RESIGN, ""},
  {"resign gammon.", REF_CMD_RESIGN, "gammon"},
  {"resign match", REF_CMD_RESIGN, "match"},
  {"draw.", REF_CMD_DRAW_OFFER, ""},
  {"accept entropy: lucky words", REF_CMD_ACCEPT, ""},
};

START_TEST(test_every_word)
{
  size_t i;
  for(i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
    struct ref_cmds c;
    ref_commands_parse(&c, words[i].line, NULL);
    ck_assert_msg(c.ncmd == 1 && c.ncand == 0, "'%s': %d commands, %d candidates",
                  words[i].line, c.ncmd, c.ncand);
    ck_assert_msg(c.cmd[0].kind == words[i].kind, "'%s' read as '%s'", words[i].line,
                  ref_cmd_name(c.cmd[0].kind));
    ck_assert_msg(!strcmp(c.cmd[0].arg, words[i].arg), "'%s': arg '%s'", words[i].line,
                  c.cmd[0].arg);
  }
}
END_TEST

/* The table (commands.h): each row is its own kind; every word and alias
 * of a row reads as that row's command, whatever the order of the rows
 * (the longest phrase wins: "accept draw" over "accept"); the name in
 * replies is the first word; no two rows share a name. */
START_TEST(test_table_rows)
{
  int k, j;
  for(k = 0; k < REF_CMD_LAST; k++) {
    const struct ref_cmd_row *row = ref_cmd_row((enum ref_cmd_kind)k);
    const char *w;
    ck_assert_msg(row && row->kind == (enum ref_cmd_kind)k, "row %d is not kind %d", k, k);
    ck_assert_msg(!strncmp(ref_cmd_name(row->kind), row->words, strlen(ref_cmd_name(row->kind))),
                  "row %d: name %s, words %s", k, ref_cmd_name(row->kind), row->words);
    for(j = 0; j < k; j++)
      ck_assert_msg(strcmp(ref_cmd_name((enum ref_cmd_kind)j), ref_cmd_name(row->kind)),
                    "two rows named %s", ref_cmd_name(row->kind));
    for(w = row->words; *w;) {
      char line[64];
      struct ref_cmds c;
      size_t n = strcspn(w, "|");
      /* what a command of its reader needs to be one */
      snprintf(line, sizeof(line), "%.*s%s", (int)n, w,
               row->read == REF_READ_THEN    ? " e4 then e5"
               : row->read == REF_READ_ONOFF  ? " on"
               : row->read == REF_READ_AMOUNT ? " 3 days"
               : row->read == REF_READ_TERMS  ? " chess"
                                              : "");
      ref_commands_parse(&c, line, NULL);
      ck_assert_msg(c.ncmd == 1 && c.cmd[0].kind == row->kind, "'%s' read as %s, not %s", line,
                    c.ncmd ? ref_cmd_name(c.cmd[0].kind) : "nothing", ref_cmd_name(row->kind));
      w += n + (w[n] == '|');
    }
  }
  ck_assert_ptr_null(ref_cmd_row(REF_CMD_LAST));
  ck_assert_str_eq(ref_cmd_name(REF_CMD_LAST), "?");
}
END_TEST

/* What a mail without a key may hold, and what runs after the rest: the
 * flags of the rows, as dispatch.c reads them (architecture.md). */
START_TEST(test_table_flags)
{
  static const enum ref_cmd_kind nokey[] = {
    REF_CMD_NEW, REF_CMD_HELP, REF_CMD_GAMES, REF_CMD_OBSERVE, REF_CMD_UNOBSERVE,
    REF_CMD_RATINGS, REF_CMD_RATING, REF_CMD_STANDINGS, REF_CMD_TOURNAMENT, REF_CMD_SEEK,
    REF_CMD_SEEKS, REF_CMD_UNSEEK};
  int k, n = 0;
  size_t i;
  for(i = 0; i < sizeof(nokey) / sizeof(nokey[0]); i++)
    ck_assert_msg(ref_cmd_row(nokey[i])->flags & REF_CF_NOKEY, "%s needs a key",
                  ref_cmd_name(nokey[i]));
  for(k = 0; k < REF_CMD_LAST; k++)
    n += !!(ref_cmd_row((enum ref_cmd_kind)k)->flags & REF_CF_NOKEY);
  ck_assert_int_eq(n, (int)(sizeof(nokey) / sizeof(nokey[0])));
  ck_assert(ref_cmd_row(REF_CMD_MESSAGE)->flags & REF_CF_LAST);
  /* confirmed first, then run from the stored line (cmd_confirm.c) */
  for(k = 0, n = 0; k < REF_CMD_LAST; k++)
    n += !!(ref_cmd_row((enum ref_cmd_kind)k)->flags & REF_CF_CONFIRMED);
  ck_assert_int_eq(n, 3);
  ck_assert(ref_cmd_row(REF_CMD_NEW)->flags & REF_CF_CONFIRMED);
  ck_assert(ref_cmd_row(REF_CMD_TOURNAMENT)->flags & REF_CF_CONFIRMED);
  ck_assert(ref_cmd_row(REF_CMD_SEEK)->flags & REF_CF_CONFIRMED);
  /* vacation, digest and comments are about all of a player's games */
  ck_assert_int_eq(ref_cmd_row(REF_CMD_VACATION)->scope, REF_SCOPE_PLAYER);
  ck_assert_int_eq(ref_cmd_row(REF_CMD_DIGEST)->scope, REF_SCOPE_PLAYER);
  ck_assert_int_eq(ref_cmd_row(REF_CMD_COMMENTS)->scope, REF_SCOPE_PLAYER);
  /* new and confirm are never a game's: refused in any phase of one */
  ck_assert_uint_eq(ref_cmd_row(REF_CMD_NEW)->phases, 0);
  ck_assert_uint_eq(ref_cmd_row(REF_CMD_CONFIRM)->phases, 0);
}
END_TEST

/* Unknown words are never guessed: they stay move candidates, which the
 * game's parser refuses and the refusal lists the commands. */
START_TEST(test_unknown_words_not_guessed)
{
  static const char *const lines[] = {"boards", "resigns", "previewe4", "helpme", "observer",
                                       "seeker"};
  size_t i;
  for(i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
    struct ref_cmds c;
    ref_commands_parse(&c, lines[i], NULL);
    ck_assert_msg(c.ncmd == 0 && c.ncand == 1 && !strcmp(c.cand[0], lines[i]),
                  "'%s' was read as a command", lines[i]);
  }
}
END_TEST

/* A command that takes no words is a command only
 * alone on its line; a sentence that starts with its word is prose (and a
 * candidate like any prose line, which no game reads as a move). */
START_TEST(test_sentences_not_commands)
{
  static const char *const lines[] = {
    "Take your time.",       "Drop me a line when you can.", "Double-check your move",
    "Double-check",          "Resign yourself to a long game", "Roll on summer",
    "Draw your own conclusions.", "draw offer of the century", "Accept my apologies.",
    "Decline and fall",      "No double-dealing!",            "legal advice, please",
    "takeback the night",    "Take care",                     "resign gammon please",
    "give up the game at the current stake", "Give me a day to think",
    /* rules-spec OPT-1: a rewrapped copy of a confirmation request */
    "confirm written on a line of its own", "Confirm your request by replying",
  };
  size_t i;
  for(i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
    struct ref_cmds c;
    ref_commands_parse(&c, lines[i], NULL);
    ck_assert_msg(c.ncmd == 0, "'%s' was read as '%s'", lines[i], ref_cmd_name(c.cmd[0].kind));
    ck_assert_msg(c.nprose == 1 && c.pline[0].len == strlen(lines[i]) &&
                    !memcmp(c.prose + c.pline[0].off, lines[i], c.pline[0].len),
                  "'%s' not kept as prose", lines[i]);
  }
}
END_TEST

/* A bare command ended by a clause break, then the player's words: the
 * command, and the words kept as prose ("Accept, thanks!"). */
START_TEST(test_command_then_words)
{
  static const struct {
    const char *line;
    enum ref_cmd_kind kind;
    const char *arg, *words;
  } rows[] = {
      {"Accept, thanks!", REF_CMD_ACCEPT, "", "thanks!"},
      {"Resign. Good game!", REF_CMD_RESIGN, "", "Good game!"},
      {"resign gammon, well played", REF_CMD_RESIGN, "gammon", "well played"},
      {"Take! Nice double.", REF_CMD_TAKE, "", "Nice double."},
      {"draw; it is dead equal", REF_CMD_DRAW_OFFER, "", "it is dead equal"},
      {"Confirm, thanks!", REF_CMD_CONFIRM, "", "thanks!"},
  };
  size_t i;
  for(i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
    struct ref_cmds c;
    ref_commands_parse(&c, rows[i].line, NULL);
    ck_assert_msg(c.ncmd == 1 && c.cmd[0].kind == rows[i].kind, "'%s' read as %d command(s)",
                  rows[i].line, c.ncmd);
    ck_assert_str_eq(c.cmd[0].arg, rows[i].arg);
    ck_assert_msg(c.nprose == 1 && c.pline[0].len == strlen(rows[i].words) &&
                    !memcmp(c.prose + c.pline[0].off, rows[i].words, c.pline[0].len),
                  "'%s': the words after the command not kept", rows[i].line);
  }
}
END_TEST

/* ---- the "#N" guard (as in pbmserv) ---- */

static const struct {
  const char *text;
  int guard, conflict;
  const char *cand; /* the one candidate left, or NULL for none */
} guards[] = {
  {"e4 #12", 12, 0, "e4"},
  {"#12 e4", 12, 0, "e4"},
  {"#7", 7, 0, NULL},
  {"Qxf7#", -1, 0, "Qxf7#"},    /* mate, not a guard */
  {"Qxf7# #9", 9, 0, "Qxf7#"},
  {"e4 #3\n#4", 4, 1, "e4"},    /* two different numbers */
  {"e4 #3\n#3", 3, 0, "e4"},
  {"e4 #3x", -1, 0, "e4 #3x"},  /* not a number word */
  {"e4 # 3", -1, 0, "e4 # 3"},
};

/* One classification (ref_cmd_class): what the "#N" guard
 * protects and what a mail without a key may get answered on its From. */
static const struct {
  const char *line;
  enum ref_cmd_class cls;
} classes[] = {
  {"board", REF_CMD_ASKS},          {"history full", REF_CMD_ASKS},
  {"legal", REF_CMD_ASKS},          {"seeks", REF_CMD_ASKS},
  {"conditionals", REF_CMD_ASKS},   {"conditionals clear", REF_CMD_ACTS},
  {"message good luck", REF_CMD_OWN}, {"comments off", REF_CMD_OWN},
  {"seek chess", REF_CMD_OWN},      {"seek cancel", REF_CMD_OWN},
  {"observe 3", REF_CMD_OWN},       {"takeback", REF_CMD_ACTS},
  {"if e5 then Nf3", REF_CMD_ACTS}, {"draw offer", REF_CMD_ACTS},
  {"resign", REF_CMD_ACTS},         {"vacation 2026-12-01 2026-12-03", REF_CMD_ACTS},
  {"accept", REF_CMD_ACTS},
};

START_TEST(test_classes)
{
  struct ref_cmds c;
  ref_commands_parse(&c, classes[_i].line, "");
  ck_assert_int_eq(c.ncmd, 1);
  ck_assert_msg(ref_cmd_class(&c.cmd[0]) == classes[_i].cls, "%s: class %d, want %d",
                classes[_i].line, (int)ref_cmd_class(&c.cmd[0]), (int)classes[_i].cls);
}
END_TEST

START_TEST(test_guard)
{
  size_t i;
  for(i = 0; i < sizeof(guards) / sizeof(guards[0]); i++) {
    struct ref_cmds c;
    ref_commands_parse(&c, guards[i].text, NULL);
    ck_assert_msg(c.guard == guards[i].guard && c.guard_conflict == guards[i].conflict,
                  "'%s': guard %d conflict %d", guards[i].text, c.guard, c.guard_conflict);
    if(guards[i].cand)
      ck_assert_msg(c.ncand == 1 && !strcmp(c.cand[0], guards[i].cand), "'%s': cand '%s'",
                    guards[i].text, c.ncand ? c.cand[0] : "(none)");
    else
      ck_assert_msg(c.ncand == 0, "'%s': %d candidates", guards[i].text, c.ncand);
  }
}
END_TEST

/* "board #12" asks for the board at move 12; the "#12" is its
 * argument, not the guard, and a later "#N" on any line still is one. */
static const struct {
  const char *text;
  int guard;
  const char *arg;
} past_boards[] = {
  {"board #12", -1, "#12"},
  {"Board   #3", -1, "#3"},
  {"board 12", -1, "12"},
  {"board #2 #7", 7, "#2"},
  {"board #2\n#5", 5, "#2"},
  {"board", -1, ""},
  {"#4 board", 4, ""},
  {"boards #4", 4, NULL}, /* no command word: a candidate, and a guard */
};

START_TEST(test_board_at_move)
{
  size_t i;
  for(i = 0; i < sizeof(past_boards) / sizeof(past_boards[0]); i++) {
    struct ref_cmds c;
    ref_commands_parse(&c, past_boards[i].text, NULL);
    ck_assert_msg(c.guard == past_boards[i].guard, "'%s': guard %d", past_boards[i].text,
                  c.guard);
    if(past_boards[i].arg)
      ck_assert_msg(c.ncmd == 1 && c.cmd[0].kind == REF_CMD_BOARD &&
                        !strcmp(c.cmd[0].arg, past_boards[i].arg),
                    "'%s': %d commands, arg '%s'", past_boards[i].text, c.ncmd,
                    c.ncmd ? c.cmd[0].arg : "");
    else
      ck_assert_msg(c.ncmd == 0, "'%s': %d commands", past_boards[i].text, c.ncmd);
  }
}
END_TEST

/* "game N: COMMAND" and "game N" name the game of a mail
 * without a key; "games" is still the command, prose stays prose. */
START_TEST(test_game_named)
{
  struct ref_cmds c;
  ref_commands_parse(&c, "game 12: e4", NULL);
  ck_assert(c.game == 12 && !c.game_conflict);
  ck_assert(c.ncand == 1 && !strcmp(c.cand[0], "e4") && c.ncmd == 0);
  ref_commands_parse(&c, "Game 3\nvacation 2026-12-01 2026-12-03\n#4", NULL);
  ck_assert(c.game == 3 && c.ncmd == 1 && c.cmd[0].kind == REF_CMD_VACATION && c.guard == 4);
  ref_commands_parse(&c, "game 2:board #1", NULL);
  ck_assert(c.game == 2 && c.ncmd == 1 && c.cmd[0].kind == REF_CMD_BOARD &&
            !strcmp(c.cmd[0].arg, "#1") && c.guard == -1);
  ref_commands_parse(&c, "game 2: e5\ngame 3: Nf3", NULL);
  ck_assert(c.game_conflict && c.ncand == 2);
  ref_commands_parse(&c, "game 2: e5\ngame 2", NULL);
  ck_assert(c.game == 2 && !c.game_conflict);
  ref_commands_parse(&c, "games", NULL);
  ck_assert(c.game == 0 && c.ncmd == 1 && c.cmd[0].kind == REF_CMD_GAMES);
  ref_commands_parse(&c, "game over, thanks", NULL);
  ck_assert(c.game == 0 && c.ncand == 1);
  ref_commands_parse(&c, "game 0: e4", NULL);
  ck_assert(c.game == 0);
  ref_commands_parse(&c, "game 1234567890123456789: e4", NULL);
  ck_assert(c.game == 0);
  ref_commands_parse(&c, "", "game 7: resign");
  ck_assert(c.game == 7 && c.ncmd == 1 && c.cmd[0].kind == REF_CMD_RESIGN);
}
END_TEST

START_TEST(test_guard_in_subject)
{
  struct ref_cmds c;
  ref_commands_parse(&c, "", "Re: [tabula 4 abcdefgh] Nf3 #5");
  /* the text after a leading tag; the tag's number is not a guard */
  ck_assert_int_eq(c.guard, 5);
  ck_assert_str_eq(c.cand[0], "Nf3");
  ref_commands_parse(&c, "", "e4 #5");
  ck_assert_int_eq(c.guard, 5);
  ck_assert_int_eq(c.from_subject, 1);
  ck_assert_str_eq(c.cand[0], "e4");
}
END_TEST

/* "roll" at the end of a play line is the standing answer to the
 * next cube question (help-backgammon.txt), the play a candidate of its
 * own; prose that ends in "roll" stays one line, a candidate or nothing. */
static const struct {
  const char *text;
  int roll;         /* a roll command read */
  const char *cand; /* the candidate left, NULL for none */
} plays[] = {
  {"13/7 8/7 roll", 1, "13/7 8/7"},
  {"bar/22 6/off  ROLL", 1, "bar/22 6/off"},
  {"8/5 6/5 ; e5 Roll", 1, "8/5 6/5 ; e5"},
  {"K1/3 P1/2 roll", 1, "K1/3 P1/2"},
  {"roll", 1, NULL},
  {"13/7 8/7", 0, "13/7 8/7"},
  {"rock and roll", 0, "rock and roll"},
  {"let us roll 2 dice", 0, "let us roll 2 dice"},
  {"13/7 8/7 rolls", 0, "13/7 8/7 rolls"},
  {"13/7 8/7roll", 0, "13/7 8/7roll"},
};

START_TEST(test_play_then_roll)
{
  size_t i;
  for(i = 0; i < sizeof(plays) / sizeof(plays[0]); i++) {
    struct ref_cmds c;
    int k, rolls = 0;
    ref_commands_parse(&c, plays[i].text, NULL);
    for(k = 0; k < c.ncmd; k++)
      rolls += c.cmd[k].kind == REF_CMD_ROLL;
    ck_assert_msg(rolls == plays[i].roll, "'%s': %d roll command(s)", plays[i].text, rolls);
    if(plays[i].cand)
      ck_assert_msg(c.ncand == 1 && !strcmp(c.cand[0], plays[i].cand), "'%s': cand '%s'",
                    plays[i].text, c.ncand ? c.cand[0] : "(none)");
    else
      ck_assert_msg(c.ncand == 0, "'%s': %d candidates", plays[i].text, c.ncand);
  }
}
END_TEST

/* "if ... then ..." is a prepared line only with its "then"
 * (the rest of the line is the argument, read by cmd_conditional.c);
 * prose that starts with "If" stays prose; "conditionals [clear]". */
static const struct {
  const char *text;
  enum ref_cmd_kind kind; /* REF_CMD_LAST: no command, one candidate */
  const char *arg;
} prepared[] = {
  {"if Nf6 then e5", REF_CMD_IF, "Nf6 then e5"},
  {"IF 1...Nf6 THEN 2.e5", REF_CMD_IF, "1...Nf6 THEN 2.e5"},
  {"if Nf6 e5 Nc6 then Nd5", REF_CMD_IF, "Nf6 e5 Nc6 then Nd5"},
  {"if 11-15 then 22-18", REF_CMD_IF, "11-15 then 22-18"},
  {"If you agree", REF_CMD_LAST, "If you agree"},
  {"if thenceforth", REF_CMD_LAST, "if thenceforth"},
  {"conditionals", REF_CMD_CONDITIONALS, ""},
  {"Conditionals clear", REF_CMD_CONDITIONALS, "clear"},
};

START_TEST(test_prepared_lines)
{
  size_t i;
  for(i = 0; i < sizeof(prepared) / sizeof(prepared[0]); i++) {
    struct ref_cmds c;
    ref_commands_parse(&c, prepared[i].text, NULL);
    if(prepared[i].kind == REF_CMD_LAST) {
      ck_assert_msg(c.ncmd == 0 && c.ncand == 1 && !strcmp(c.cand[0], prepared[i].arg),
                    "'%s': %d commands, %d candidates", prepared[i].text, c.ncmd, c.ncand);
      continue;
    }
    ck_assert_msg(c.ncmd == 1 && c.ncand == 0 && c.cmd[0].kind == prepared[i].kind,
                  "'%s': %d commands, %d candidates", prepared[i].text, c.ncmd, c.ncand);
    ck_assert_str_eq(c.cmd[0].arg, prepared[i].arg);
    ck_assert_str_eq(c.cmd[0].line, prepared[i].text);
  }
}
END_TEST

/* ---- new GAME [options] with ADDRESS, for every registered game ---- */

/* Each game's switches, beyond its position (rules-spec.md; the games'
 * init comments). A game missing here still has its position checked; a
 * game here that is not registered (yet) is skipped. */
static const struct {
  const char *game, *option;
} switches[] = {
  {"chess", "fide_draws=off"},
  {"checkers", "auto_draws=off"},
  {"bgchess", "lag=3"},                 /* section 6.9 */
  {"bgchess", "draws=on"},              /* BC-8 */
  {"chessgammon", "fifty_moves=on"},    /* CG-12 */
  {"doublemove", "balanced_start=on"},  /* DM-2 */
  {"chessgammon4x8", "max_stack=4"},    /* V4-2 */
  {"backtoback", "b2b_board=corners"},  /* BB-1 */
  {"backtoback", "fide_draws=off"},
};

static void parse_new(struct ref_cmds *c, const char *fmt, const char *a, const char *b)
{
  char line[256];
  snprintf(line, sizeof(line), fmt, a, b);
  ref_commands_parse(c, line, NULL);
  ck_assert_msg(c->ncmd == 1 && c->cmd[0].kind == REF_CMD_NEW, "'%s' is not a new", line);
  ck_assert_msg(c->cmd[0].nwith == 1 && !strcmp(c->cmd[0].with[0], "bob@example.org"),
                "'%s': invitee '%s'", line, c->cmd[0].with[0]);
}

START_TEST(test_new_every_game)
{
  const struct ref_game_desc *d;
  size_t i, with_position = 0;

  for(i = 0; (d = ref_game_at(i)); i++) {
    struct ref_state *s = ref_state_new(d), *t = ref_state_new(d);
    struct ref_cmds c;
    struct ref_err err;
    char pos[600], again[600], upper[64], want[640];
    size_t k;

    ck_assert(s && t);
    /* the name, in any case */
    for(k = 0; d->name[k] && k + 1 < sizeof(upper); k++)
      upper[k] = (char)toupper((unsigned char)d->name[k]);
    upper[k] = '\0';
    parse_new(&c, "NEW %s WITH <mailto:Bob@Example.org>%s", upper, "");
    ck_assert_str_eq(c.cmd[0].arg, d->name);
    ck_assert_str_eq(c.cmd[0].options, "");

    /* the start position as fen=..., plain and quoted: the options reach
     * the rules exactly as the game wrote them */
    ck_assert_int_eq(d->ops->init(s, NULL, &err), REF_OK);
    ck_assert_int_eq(d->ops->encode(s, pos, sizeof(pos)), REF_OK);
    if(strlen(pos) > 150)
      continue; /* longer than a mail line can carry in a 256-byte command */
    snprintf(want, sizeof(want), "fen=%s", pos);
    parse_new(&c, "new %s fen=%s with bob@example.org", d->name, pos);
    /* unquoted, a value runs to the next key=value: a position string
     * holding "=" itself (lag=2) must be quoted, as below */
    if(!strchr(pos, '='))
      ck_assert_msg(!strcmp(c.cmd[0].options, want), "%s: options '%s', want '%s'", d->name,
                    c.cmd[0].options, want);
    parse_new(&c, "new %s FEN=\"%s\" as black with bob@example.org", d->name, pos);
    snprintf(want, sizeof(want), "fen=%s;as;black", pos);
    ck_assert_msg(!strcmp(c.cmd[0].options, want), "%s: options '%s', want '%s'", d->name,
                  c.cmd[0].options, want);
    memset(&err, 0, sizeof(err));
    snprintf(want, sizeof(want), "fen=%s", pos);
    if(d->ops->init(t, want, &err) == REF_OK) {
      /* the game takes positions: the one given is the one it starts from */
      ck_assert_int_eq(d->ops->encode(t, again, sizeof(again)), REF_OK);
      ck_assert_msg(!strcmp(again, pos), "%s: fen=%s started from %s", d->name, pos, again);
      with_position++;
    }
    free(s);
    free(t);
  }
  /* chess (FEN with spaces) and checkers (PDN with commas) at least */
  ck_assert_msg(with_position >= 2, "only %zu games take fen=", with_position);
}
END_TEST

START_TEST(test_new_switches)
{
  size_t i;
  for(i = 0; i < sizeof(switches) / sizeof(switches[0]); i++) {
    const struct ref_game_desc *d = ref_game_find(switches[i].game);
    struct ref_state *s;
    struct ref_cmds c;
    struct ref_err err;
    char upper[64];
    size_t k;
    if(!d)
      continue;
    /* KEY=value in capitals: keys are read in any case */
    for(k = 0; switches[i].option[k] && k + 1 < sizeof(upper); k++)
      upper[k] = switches[i].option[k] == '=' ? '=' : (char)toupper((unsigned char)switches[i].option[k]);
    upper[k] = '\0';
    {
      char *eq = strchr(upper, '=');
      strcpy(eq + 1, strchr(switches[i].option, '=') + 1); /* values as written */
    }
    parse_new(&c, "new %s %s, with bob@example.org", d->name, upper);
    ck_assert_str_eq(c.cmd[0].options, switches[i].option);
    s = ref_state_new(d);
    ck_assert_msg(d->ops->init(s, c.cmd[0].options, &err) == REF_OK, "%s: %s refused: %s",
                  d->name, c.cmd[0].options, err.reason);
    free(s);
  }
}
END_TEST

START_TEST(test_new_addresses)
{
  struct ref_cmds c;
  ref_commands_parse(&c, "new chess with bob@example.org, carol@example.org and "
                         "<mailto:Dave@Example.org>", NULL);
  ck_assert_int_eq(c.cmd[0].nwith, 3);
  ck_assert_str_eq(c.cmd[0].with[0], "bob@example.org");
  ck_assert_str_eq(c.cmd[0].with[1], "carol@example.org");
  ck_assert_str_eq(c.cmd[0].with[2], "dave@example.org");
  /* a chess FEN continues its value until the next key, "as" or "with" */
  ref_commands_parse(&c,
                     "new chess fen=8/8/8/4k3/8/8/4P3/4K3 w - - 0 1 fide_draws=off with "
                     "bob@example.org as black",
                     NULL);
  ck_assert_str_eq(c.cmd[0].options, "fen=8/8/8/4k3/8/8/4P3/4K3 w - - 0 1;fide_draws=off;as;black");
  /* an address is kept as written, quotes and all (rules-spec MX-3):
   * never o'brienx@evil.test */
  ref_commands_parse(&c, "new chess with o'brien\"x@evil.test", NULL);
  ck_assert_int_eq(c.cmd[0].nwith, 1);
  ck_assert_str_eq(c.cmd[0].with[0], "o'brien\"x@evil.test");
  ref_commands_parse(&c, "new chess with \"john doe\"@example.net", NULL);
  ck_assert_int_eq(c.cmd[0].nwith, 1);
  ck_assert_str_eq(c.cmd[0].with[0], "\"john doe\"@example.net");
  /* more invitees than any game has seats: said, never cut */
  ref_commands_parse(&c, "new chess with a@x.test b@x.test c@x.test d@x.test e@x.test", NULL);
  ck_assert_int_eq(c.cmd[0].nwith, REF_WITH_MAX);
  ck_assert_int_eq(c.cmd[0].with_more, 1);
}
END_TEST

/* A mail holds at most REF_CMD_MAX commands; the ones past it are never
 * dropped in silence: counted, and the first kept for the refusal. */
START_TEST(test_commands_past_the_cap)
{
  struct ref_cmds c;
    char text[1024] = "";
  int i;
  for(i = 0; i < 12; i++)
    snprintf(text + strlen(text), sizeof(text) - strlen(text), "if e%d then d4\n", i);
  ref_commands_parse(&c, text, NULL);
  ck_assert_int_eq(c.ncmd, REF_CMD_MAX);
  ck_assert_int_eq(c.cmd_more, 12 - REF_CMD_MAX);
  ck_assert_str_eq(c.cmd_more_line, "if e8 then d4");
  /* eight are read whole, nothing over */
  text[0] = '\0';
  for(i = 0; i < REF_CMD_MAX; i++)
    snprintf(text + strlen(text), sizeof(text) - strlen(text), "board\n");
  ref_commands_parse(&c, text, NULL);
  ck_assert_int_eq(c.ncmd, REF_CMD_MAX);
  ck_assert_int_eq(c.cmd_more, 0);
  /* a play with "roll" past the cap is named too */
  ref_commands_parse(&c, "board\nboard\nboard\nboard\nboard\nboard\nboard\nboard\n13/7 8/7 roll",
                     NULL);
  ck_assert_int_eq(c.cmd_more, 1);
  ck_assert_str_eq(c.cmd_more_line, "13/7 8/7 roll");
}
END_TEST

/* ---- the prose ---- */

static void prose(char *out, size_t cap, const char *text, int skip_start, int skip_len)
{
  struct ref_cmds c;
  ref_commands_parse(&c, text, NULL);
  ref_prose_text(out, cap, &c, skip_start, skip_len, "> ", "[cut]");
}

/* Every line that is no command, in order, blank lines collapsed; the
 * lines of the turn left out by candidate index. */
START_TEST(test_prose_lines)
{
  char out[2048];
  prose(out, sizeof(out), "e4\nGood luck!\n\n\nHave fun.\ndraw offer\n", 0, 1);
  ck_assert_str_eq(out, "> Good luck!\n\n> Have fun.\n");
  /* without the turn skipped, the move line is prose like any other */
  prose(out, sizeof(out), "e4\nGood luck!", 0, 0);
  ck_assert_str_eq(out, "> e4\n> Good luck!\n");
  /* a two-line play (candidates 1 and 2) left out whole */
  prose(out, sizeof(out), "Here goes:\n24/21\n13/7\nyour turn", 1, 2);
  ck_assert_str_eq(out, "> Here goes:\n> your turn\n");
  /* only commands: nothing */
  prose(out, sizeof(out), "accept\ndraw offer", 0, 0);
  ck_assert_str_eq(out, "");
  /* "comments" is a command only before on/off */
  {
    struct ref_cmds c;
    ref_commands_parse(&c, "Comments welcome!", NULL);
    ck_assert_int_eq(c.ncmd, 0);
    ck_assert_int_eq(c.nprose, 1);
  }
}
END_TEST

/* message TEXT: its text is prose, the command carries none of it. */
START_TEST(test_prose_message)
{
  char out[2048];
  struct ref_cmds c;
  ref_commands_parse(&c, "message: gg\nwell played", NULL);
  ck_assert_int_eq(c.ncmd, 1);
  ck_assert_int_eq(c.cmd[0].kind, REF_CMD_MESSAGE);
  ref_prose_text(out, sizeof(out), &c, 0, 0, "> ", "[cut]");
  ck_assert_str_eq(out, "> gg\n> well played\n");
  /* the subject is never prose */
  ref_commands_parse(&c, "", "Re: good game");
  ck_assert_int_eq(c.nprose, 0);
}
END_TEST

/* A bare greeting and closing go when words are left; never the words. */
START_TEST(test_prose_greetings)
{
  char out[2048];
  prose(out, sizeof(out), "Hi Ben,\nGood luck!\nCheers,\nAlice", 0, 0);
  ck_assert_str_eq(out, "> Good luck!\n");
  prose(out, sizeof(out), "Dear Ben Smith\n\nNice move.\n\nBest regards, Alice", 0, 0);
  ck_assert_str_eq(out, "> Nice move.\n");
  prose(out, sizeof(out), "Good morning, Ben!\nReady?\nThanks!", 0, 0);
  ck_assert_str_eq(out, "> Ready?\n");
  /* greetings with words after them are words */
  prose(out, sizeof(out), "Hey, good luck!\nThanks, good game", 0, 0);
  ck_assert_str_eq(out, "> Hey, good luck!\n> Thanks, good game\n");
  /* alone, a greeting is the whole comment */
  prose(out, sizeof(out), "Hello Ben!", 0, 0);
  ck_assert_str_eq(out, "> Hello Ben!\n");
  prose(out, sizeof(out), "Cheers", 0, 0);
  ck_assert_str_eq(out, "> Cheers\n");
}
END_TEST

/* Control characters out, long lines wrapped, the cap cut. */
START_TEST(test_prose_hostile)
{
  char out[4096], text[12000];
  size_t i, lines = 0;
  prose(out, sizeof(out),
        "a\tb\x01\x1b[31mc\x7f\xc2\x85" "d \xe2\x80\xae" "evil\x1e" "board\x1e", 0, 0);
  ck_assert_str_eq(out, "> a b[31mcd evilboard\n");
  /* 10,000 characters on one line: wrapped at 76, cut at 1,000 */
  for(i = 0; i < 10000; i++)
    text[i] = (char)('0' + i % 10);
  text[i] = '\0';
  prose(out, sizeof(out), text, 0, 0);
  for(i = 0; out[i]; i++)
    lines += out[i] == '\n';
  ck_assert_uint_le(strlen(out), REF_COMMENT_BYTES + (REF_COMMENT_LINES + 1) * 3 + 8);
  ck_assert_uint_le(lines, REF_COMMENT_LINES + 1);
  ck_assert_ptr_nonnull(strstr(out, "\n> [cut]\n"));
  ck_assert_ptr_nonnull(strstr(out, "> 0123456789012345678901234567890123456789012345678901234567890123"
                                    "456789012345\n"));
  /* 30 short lines: 20 kept, then the cut */
  text[0] = '\0';
  for(i = 0; i < 30; i++)
    snprintf(text + strlen(text), sizeof(text) - strlen(text), "line %zu is words\n", i);
  prose(out, sizeof(out), text, 0, 0);
  ck_assert_ptr_nonnull(strstr(out, "> line 19 is words\n> [cut]\n"));
  ck_assert_ptr_null(strstr(out, "line 20"));
  /* words wrap at a space */
  prose(out, sizeof(out),
        "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen",
        0, 0);
  ck_assert_str_eq(out, "> one two three four five six seven eight nine ten eleven twelve thirteen\n"
                        "> fourteen fifteen\n");
}
END_TEST

/* A seek's terms are read as new's options are, without "with" */
START_TEST(test_seek_terms)
{
  struct ref_cmds c;
  ref_commands_parse(&c, "seek Chess as black DAYS=3 unrated fide_draws=off", NULL);
  ck_assert_int_eq(c.ncmd, 1);
  ck_assert_int_eq(c.cmd[0].kind, REF_CMD_SEEK);
  ck_assert_str_eq(c.cmd[0].arg, "chess");
  ck_assert_str_eq(c.cmd[0].options, "as;black;days=3;unrated;fide_draws=off");
  ck_assert_int_eq(c.cmd[0].nwith, 0);
  /* public-comments ends a value as private does: it was read as days
   * "2 public-comments" and refused */
  ref_commands_parse(&c, "new chess days=2 public-comments with b@example.org", NULL);
  ck_assert_int_eq(c.ncmd, 1);
  ck_assert_str_eq(c.cmd[0].options, "days=2;public-comments");
  ck_assert_int_eq(c.cmd[0].nwith, 1);
}
END_TEST

static Suite *commands_suite(void)
{
  Suite *s = suite_create("commands");
  TCase *tc = tcase_create("words");
  tcase_add_test(tc, test_every_word);
  tcase_add_test(tc, test_unknown_words_not_guessed);
  tcase_add_test(tc, test_sentences_not_commands);
  tcase_add_test(tc, test_command_then_words);
  tcase_add_test(tc, test_table_rows);
  tcase_add_test(tc, test_table_flags);
  tcase_add_loop_test(tc, test_classes, 0, (int)(sizeof(classes) / sizeof(classes[0])));
  tcase_add_test(tc, test_guard);
  tcase_add_test(tc, test_guard_in_subject);
  tcase_add_test(tc, test_board_at_move);
  tcase_add_test(tc, test_game_named);
  tcase_add_test(tc, test_play_then_roll);
  tcase_add_test(tc, test_prepared_lines);
  suite_add_tcase(s, tc);
  tc = tcase_create("new");
  tcase_add_test(tc, test_new_every_game);
  tcase_add_test(tc, test_new_switches);
  tcase_add_test(tc, test_new_addresses);
  tcase_add_test(tc, test_seek_terms);
  tcase_add_test(tc, test_commands_past_the_cap);
  suite_add_tcase(s, tc);
  tc = tcase_create("prose");
  tcase_add_test(tc, test_prose_lines);
  tcase_add_test(tc, test_prose_message);
  tcase_add_test(tc, test_prose_greetings);
  tcase_add_test(tc, test_prose_hostile);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(commands_suite());
}
