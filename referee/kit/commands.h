/*
 * commands.h: the mail command language (internal to the service).
 *
 * A mail's clean text (quotes, signatures and reply headers already gone) is
 * read line by line. A line whose first word is a command word is that
 * command; any other short line is a move candidate, judged later by the
 * game's own parser ("if" counts as a command word only on a line with
 * "then"). The subject is read only when the body holds nothing.
 * Nothing is guessed: unknown words stay unknown and are answered with help.
 * A word "#N" (N digits, at the start of a line or after a space) anywhere
 * is the move-number guard, as in pbmserv: it is taken out of its line;
 * but a "#N" right after "board" is the move whose board is asked for,
 * kept as the command's argument. A line "game N" or "game
 * N: COMMAND" names the game a mail without a key is for
 * (dispatch.c); the rest of the line is read as a line of its own.
 */
#ifndef TABULA_COMMANDS_H
#define TABULA_COMMANDS_H

#include <stddef.h>

/*
 * THE COMMANDS, one row each: adding a command is adding a row here and
 * its handler (handlers_int.h, one signature: ref_cmd_fn). Columns:
 *   KIND    the command's name in code: REF_CMD_KIND
 *   words   its words, aliases after '|'; the first is its name in replies
 *           ("not-available ...") and in the log. Two-word phrases win over
 *           their first word ("accept draw" over "accept"): the longest
 *           phrase that matches is the command
 *   scope   GAME: about the game of the mail; PLAYER: about every game of
 *           the sender (vacation, digest, comments: any game of theirs
 *           will do for a mail without a key); NONE: about no game in
 *           particular (it runs whatever the game's phase)
 *   phases  where in a game's life it may run (REF_IN_*); outside them it
 *           is refused as "not-started", "game-over" or "not-available"
 *           (dispatch.c, from the row)
 *   class   ASKS, OWN or ACTS (enum ref_cmd_class): what the "#N" guard
 *           protects and what a mail without a key may get done
 *   flags   REF_CF_NOKEY: also runs in a mail that names no game (the
 *           first such command of the mail, alone; dispatch.c);
 *           REF_CF_CONFIRMED: its sender confirms it first
 *           (ref_confirm_first); the stored line runs again once confirmed;
 *           REF_CF_LAST: runs after the mail's other commands, and only
 *           when they did not carry it (message)
 *   read    what follows the words on its line (enum ref_cmd_read,
 *           commands.c): nothing, an argument, the terms of a game ...
 *   run     the handler (dispatch.c runs it; NULL for `confirm`, which
 *           dispatch.c runs with its key before the table)
 * The table is written once, here; commands.c (layer 1) reads every column
 * but `run`, dispatch.c (layer 7) the `run` column too, so that the words
 * are read low and the handlers called from above them (docs/
 * architecture.md, "The service").
 */
#define REF_COMMAND_TABLE(X)                                                                 \
  /* cmd_invite.c */                                                                         \
  X(NEW, "new", NONE, 0, ACTS, REF_CF_NOKEY | REF_CF_CONFIRMED, TERMS, ref_do_new)           \
  /* accept, decline: an invitation; in play what waits (cmd_play.c) */                     \
  X(ACCEPT, "accept", GAME, REF_IN_INVITED | REF_IN_ACTIVE, ACTS, 0, ENTROPY, ref_do_answer) \
  X(DECLINE, "decline|reject", GAME, REF_IN_INVITED | REF_IN_ACTIVE, ACTS, 0, NONE,          \
    ref_do_answer)                                                                           \
  /* cmd_query.c */                                                                          \
  X(BOARD, "board", GAME, REF_IN_ACTIVE | REF_IN_OVER, ASKS, 0, ARG, ref_do_board)           \
  X(LEGAL, "legal", GAME, REF_IN_ACTIVE, ASKS, 0, NONE, ref_do_legal)                        \
  X(HISTORY, "history", GAME, REF_IN_ANY, ASKS, 0, ARG, ref_do_history)                      \
  /* cmd_play.c */                                                                           \
  X(RESIGN, "resign", GAME, REF_IN_ACTIVE, ACTS, 0, LEVEL, ref_do_resign)                    \
  X(DRAW_OFFER, "draw offer|offer draw|draw", GAME, REF_IN_ACTIVE, ACTS, 0, NONE,            \
    ref_do_draw)                                                                             \
  X(DRAW_ACCEPT, "draw accept|accept draw", GAME, REF_IN_ACTIVE, ACTS, 0, NONE, ref_do_draw) \
  X(DRAW_DECLINE, "draw decline|decline draw", GAME, REF_IN_ACTIVE, ACTS, 0, NONE,           \
    ref_do_draw)                                                                             \
  X(DRAW_CLAIM, "draw claim|claim draw", GAME, REF_IN_ACTIVE, ACTS, 0, NONE, ref_do_draw)    \
  X(DOUBLE, "double", GAME, REF_IN_ACTIVE, ACTS, 0, NONE, ref_do_cube)                       \
  X(TAKE, "take", GAME, REF_IN_ACTIVE, ACTS, 0, NONE, ref_do_cube)                           \
  X(DROP, "drop", GAME, REF_IN_ACTIVE, ACTS, 0, NONE, ref_do_cube)                           \
  X(ROLL, "roll|no double", GAME, REF_IN_ACTIVE, ACTS, 0, NONE, ref_do_cube)                 \
  /* cmd_query.c */                                                                          \
  X(VERIFY, "verify", GAME, REF_IN_ACTIVE | REF_IN_OVER, ASKS, 0, ARG, ref_do_verify)        \
  X(GAMES, "games", NONE, REF_IN_ANY, ASKS, REF_CF_NOKEY, ARG, ref_do_games)                 \
  X(HELP, "help", GAME, REF_IN_ANY, ASKS, REF_CF_NOKEY, ARG, ref_do_help)                    \
  X(PREVIEW, "preview", GAME, REF_IN_ACTIVE, ASKS, 0, ARG, ref_do_preview)                   \
  /* cmd_observe.c */                                                                        \
  X(OBSERVE, "observe", NONE, REF_IN_ANY, OWN, REF_CF_NOKEY, ARG, ref_do_observe)            \
  X(UNOBSERVE, "unobserve", NONE, REF_IN_ANY, OWN, REF_CF_NOKEY, ARG, ref_do_observe)        \
  /* cmd_time.c: vacation FROM TO (YYYY-MM-DD), digest on|off, timezone NAME, claim time */ \
  X(VACATION, "vacation", PLAYER, REF_IN_ANY, ACTS, 0, ARG, ref_do_vacation)                 \
  X(DIGEST, "digest", PLAYER, REF_IN_ANY, ACTS, 0, ARG, ref_do_digest)                       \
  X(LEAVE_AUTO, "leave auto", PLAYER, REF_IN_ANY, ACTS, 0, ONOFF, ref_do_leave_auto)         \
  X(CALENDAR, "calendar", PLAYER, REF_IN_ANY, ACTS, 0, ONOFF, ref_do_calendar)               \
  X(TIMEZONE, "timezone", PLAYER, REF_IN_ANY, ACTS, 0, ARG, ref_do_timezone)                 \
  X(GIVE, "give", GAME, REF_IN_ACTIVE, ACTS, 0, AMOUNT, ref_do_give)                         \
  X(CLAIM_TIME, "claim time|time claim", GAME, REF_IN_ANY, ACTS, 0, NONE, ref_do_claim_time) \
  /* cmd_compete.c */                                                                        \
  X(RATINGS, "ratings", NONE, REF_IN_ANY, ASKS, REF_CF_NOKEY, ARG, ref_do_ratings)           \
  X(RATING, "rating", NONE, REF_IN_ANY, ASKS, REF_CF_NOKEY, ARG, ref_do_rating)              \
  X(TOURNAMENT, "tournament", NONE, REF_IN_ANY, ACTS, REF_CF_NOKEY | REF_CF_CONFIRMED, ARG,  \
    ref_do_tournament)                                                                       \
  X(STANDINGS, "standings", NONE, REF_IN_ANY, ASKS, REF_CF_NOKEY, ARG, ref_do_standings)     \
  /* cmd_confirm.c: run by dispatch.c with the mail's confirmation key */                    \
  X(CONFIRM, "confirm", NONE, 0, ACTS, 0, NONE, NULL)                                        \
  /* cmd_conditional.c */                                                                    \
  X(IF, "if", GAME, REF_IN_ACTIVE, ACTS, 0, THEN, ref_do_if)                                 \
  X(CONDITIONALS, "conditionals|conditional", GAME, REF_IN_ACTIVE, ASKS, 0, ARG,             \
    ref_do_conditionals)                                                                     \
  /* cmd_talk.c */                                                                           \
  X(MESSAGE, "message", GAME, REF_IN_ANY, OWN, REF_CF_LAST, TEXT, ref_do_message)            \
  X(COMMENTS, "comments", PLAYER, REF_IN_ANY, OWN, 0, ONOFF, ref_do_comments)                \
  /* cmd_seek.c */                                                                           \
  X(SEEK, "seek", NONE, REF_IN_ANY, OWN, REF_CF_NOKEY | REF_CF_CONFIRMED, TERMS,             \
    ref_do_seek)                                                                             \
  X(SEEKS, "seeks", NONE, REF_IN_ANY, ASKS, REF_CF_NOKEY, ARG, ref_do_seeks)                 \
  X(UNSEEK, "seek cancel|cancel seek|unseek", NONE, REF_IN_ANY, OWN, REF_CF_NOKEY, ARG,      \
    ref_do_unseek)                                                                           \
  /* cmd_takeback.c */                                                                       \
  X(TAKEBACK, "takeback", GAME, REF_IN_ACTIVE, ACTS, 0, NONE, ref_do_takeback)               \
  X(TAKEBACK_ACCEPT, "takeback accept|accept takeback", GAME, REF_IN_ACTIVE, ACTS, 0, NONE,  \
    ref_do_takeback_answer)                                                                  \
  X(TAKEBACK_DECLINE, "takeback decline|decline takeback", GAME, REF_IN_ACTIVE, ACTS, 0,     \
    NONE, ref_do_takeback_answer)

/* Where in a game's life a command may run (the phases column). */
#define REF_IN_INVITED 1u /* invited, not every seat has accepted */
#define REF_IN_ACTIVE 2u  /* in play */
#define REF_IN_OVER 4u    /* finished or cancelled */
#define REF_IN_ANY 7u

/* The flags column. */
#define REF_CF_NOKEY 1u /* runs in a mail that names no game */
#define REF_CF_LAST 2u  /* runs after the others, when they did not carry it */
#define REF_CF_CONFIRMED 4u /* confirmed first; runs from the stored line */

enum ref_cmd_kind {
#define REF_CMD_KIND_(k, ...) REF_CMD_##k,
  REF_COMMAND_TABLE(REF_CMD_KIND_)
#undef REF_CMD_KIND_
  REF_CMD_LAST
};

enum ref_cmd_scope { REF_SCOPE_GAME, REF_SCOPE_PLAYER, REF_SCOPE_NONE };

/* What follows a command's words on its line (commands.c). A command
 * that takes no words stands alone on its line: only spaces and a clause
 * break may follow it (the player's words after the break are prose). */
enum ref_cmd_read {
  REF_READ_NONE,    /* no words: "Take your time." is prose, not a take */
  REF_READ_ARG,     /* the rest of the line, trimmed: arg */
  REF_READ_TERMS,   /* GAME [as SEAT] [key=value ...] [with ADDRESS ...]: arg,
                       options, with */
  REF_READ_ENTROPY, /* none, or "entropy: TEXT" (docs/dice-protocol.md) */
  REF_READ_LEVEL,   /* none, or match|gammon|backgammon (BG-5): arg */
  REF_READ_THEN,    /* a command only with "then" on its line: arg */
  REF_READ_ONOFF,   /* "on" or "off" and nothing else ("Comments welcome!" is prose) */
  REF_READ_TEXT,    /* the rest of the line is prose like any other line */
  REF_READ_AMOUNT,  /* a number first ("give 3 days"): arg; "give up the game" is prose */
};

#define REF_CMD_MAX 8
#define REF_CAND_MAX 8
#define REF_WITH_MAX 4

struct ref_cmd {
  enum ref_cmd_kind kind;
  char arg[256];                    /* GAME for new/seek/help; level for resign */
  char options[256];                /* new, seek: "key=value;..." */
  int options_cut;                  /* new, seek: the options did not fit in options[] */
  char with[REF_WITH_MAX][256];     /* new: invitees as written */
  int nwith;
  int with_more;                    /* new: more invitees written than with[] holds */
  char entropy[256];                /* accept: the entropy text, trimmed */
  char line[256];                   /* the line as written, for quoting */
};

/* The mail's prose: every body line that is no command, kept
 * as written (trimmed) for the opponent. A line that also became a move
 * candidate says which (cand), so that the lines that made the turn can be
 * left out once the game has read it (turnread.c). Bounded: at most
 * REF_PROSE_LINES lines and REF_PROSE_BYTES bytes are kept (more than any
 * comment may pass, ref_prose_text's cap); prose_more says more was there. */
#define REF_PROSE_LINES 48
#define REF_PROSE_BYTES 4096

struct ref_prose_line {
  int cand;          /* the candidate index this line became, -1 for none */
  unsigned off, len; /* in ref_cmds.prose */
};

struct ref_cmds {
  struct ref_cmd cmd[REF_CMD_MAX];
  int ncmd;
  char cand[REF_CAND_MAX][128];     /* move candidates, in order */
  int ncand;
  int from_subject;                 /* 1 when read from the subject */
  int guard;                        /* "#N" anywhere: the move number the sender
                                       saw (ops->status move_number); -1 none */
  int guard_conflict;               /* two different #N in one mail */
  long long game;                   /* "game N" / "game N: COMMAND": the game
                                       a mail without a key is for; 0 none */
  int game_conflict;                /* two different games named */
  int cmd_more;                     /* command lines past REF_CMD_MAX: not read, so the
                                       mail is refused whole (dispatch.c), never cut */
  char cmd_more_line[128];          /* the first of them, as written (for the refusal) */
  int cmd_long;                     /* command lines longer than a command holds (255
                                       bytes): refused whole, never read cut short */
  char cmd_long_line[64];           /* the first one's start */
  char prose[REF_PROSE_BYTES];      /* the prose lines' text */
  struct ref_prose_line pline[REF_PROSE_LINES];
  int nprose;
  int prose_more;                   /* prose past what was kept */
};

/* What a command does to a game, the one place that says it:
 * the "#N" guard protects what acts; a mail without a key (keyless =
 * confirm) is answered on its From alone only when every command asks. */
enum ref_cmd_class {
  REF_CMD_ASKS,  /* a query: changes nothing, answered to the sender */
  REF_CMD_OWN,   /* the sender's own business, no game touched (words,
                    comments, seeks, observing): passes the guard, but a
                    forged From must not get it done */
  REF_CMD_ACTS,  /* changes a game: a move, an offer, an answer ... */
};

enum ref_cmd_class ref_cmd_class(const struct ref_cmd *cmd);

/* A row of REF_COMMAND_TABLE as commands.c holds it: every column but
 * `run` (the handlers are above this layer; dispatch.c pairs them). */
struct ref_cmd_row {
  enum ref_cmd_kind kind;
  const char *words;
  enum ref_cmd_scope scope;
  unsigned phases;
  enum ref_cmd_class cls;
  unsigned flags;
  enum ref_cmd_read read;
};
const struct ref_cmd_row *ref_cmd_row(enum ref_cmd_kind kind);

/* Reads the commands of a mail. Never fails: a mail with nothing readable
 * gives ncmd = ncand = 0. */
void ref_commands_parse(struct ref_cmds *out, const char *text, const char *subject);
const char *ref_cmd_name(enum ref_cmd_kind kind);

/* The comment a mail passes to the opponent: its prose lines
 * less the candidates skip_start .. skip_start + skip_len - 1 (the lines
 * that made the turn; skip_len 0 for none), a bare greeting first and a
 * bare closing last ("Hi Ben," / "Cheers, Alice") dropped when more is
 * left, control characters (C0, DEL, C1, bidirectional overrides) taken
 * out, blank lines collapsed, long lines wrapped at REF_COMMENT_WIDTH
 * bytes; each line written after `prefix`. At most REF_COMMENT_LINES lines
 * and REF_COMMENT_BYTES bytes of text: what is past that is replaced by
 * the line `cut` (after the prefix). "" when nothing is left. */
#define REF_COMMENT_LINES 20
#define REF_COMMENT_BYTES 1000
#define REF_COMMENT_WIDTH 76
void ref_prose_text(char *out, size_t cap, const struct ref_cmds *cmds, int skip_start,
                    int skip_len, const char *prefix, const char *cut);

#endif
