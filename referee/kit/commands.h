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

enum ref_cmd_kind {
  REF_CMD_NEW,          /* new GAME [options] with ADDRESS [ADDRESS...] */
  REF_CMD_ACCEPT,       /* accept [entropy: TEXT] */
  REF_CMD_DECLINE,      /* decline (an invitation; "drop" for a double) */
  REF_CMD_BOARD,
  REF_CMD_LEGAL,
  REF_CMD_HISTORY,
  REF_CMD_RESIGN,       /* resign [gammon|backgammon] */
  REF_CMD_DRAW_OFFER,   /* draw offer | offer draw | draw */
  REF_CMD_DRAW_ACCEPT,  /* draw accept | accept draw */
  REF_CMD_DRAW_DECLINE, /* draw decline | decline draw */
  REF_CMD_DRAW_CLAIM,   /* draw claim | claim draw */
  REF_CMD_DOUBLE,
  REF_CMD_TAKE,
  REF_CMD_DROP,
  REF_CMD_ROLL,         /* roll | no double */
  REF_CMD_VERIFY,
  REF_CMD_GAMES,
  REF_CMD_HELP,         /* help [GAME] */
  REF_CMD_PREVIEW,      /* preview MOVE: the board after it, nothing stored */
  REF_CMD_OBSERVE,      /* observe GAME: board mails of its moves, read-only */
  REF_CMD_UNOBSERVE,    /* unobserve [GAME] */
  REF_CMD_VACATION,     /* vacation FROM TO (YYYY-MM-DD): the clock stops (clock.c) */
  REF_CMD_DIGEST,       /* digest on|off: one daily mail instead of one per event */
  REF_CMD_CLAIM_TIME,   /* claim time | time claim: the opponent's time is up */
  /* cmd_compete.c */
  REF_CMD_RATINGS,      /* ratings [GAME]: the rating table */
  REF_CMD_RATING,       /* rating: the sender's ratings */
  REF_CMD_TOURNAMENT,   /* tournament GAME [NAME] [double] [options] with ADDRESS... */
  REF_CMD_STANDINGS,    /* standings [NAME]: a round robin's crosstable */
  REF_CMD_CONFIRM,      /* confirm: the answer to a confirmation request (optin.c) */
  /* cmd_conditional.c */
  REF_CMD_IF,           /* if MOVE [MOVE ...] then MOVE: a prepared line (arg: after "if") */
  REF_CMD_CONDITIONALS, /* conditionals [clear]: the sender's prepared lines */
  /* cmd_talk.c */
  REF_CMD_MESSAGE,      /* message [TEXT]: the mail's words to the opponent, no move */
  REF_CMD_COMMENTS,     /* comments on|off: whether the opponent's words reach me */
  /* cmd_seek.c */
  REF_CMD_SEEK,         /* seek GAME [as SEAT] [days=N] [rated|unrated] [options] */
  REF_CMD_SEEKS,        /* seeks: the open seeks */
  REF_CMD_UNSEEK,       /* seek cancel [N] | unseek [N]: withdraw the sender's own */
  /* cmd_takeback.c */
  REF_CMD_TAKEBACK,         /* takeback: ask the opponent to undo one's last move */
  REF_CMD_TAKEBACK_ACCEPT,  /* takeback accept | accept takeback */
  REF_CMD_TAKEBACK_DECLINE, /* takeback decline | decline takeback */
  REF_CMD_LAST
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
