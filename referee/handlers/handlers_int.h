/*
 * handlers_int.h: layer 6 of the service, "handlers" (docs/architecture.md):
 * one handler per command (the `run` column of commands.h's table, one
 * signature: ref_cmd_fn), grouped by file; dispatch.c calls them in the
 * order a mail's commands run. Each handler decides through the rules,
 * journals and saves what changes, and tells who must hear (views.c); a
 * refusal changes nothing. Calls only layers 1 to 5.
 */
#ifndef TABULA_HANDLERS_INT_H
#define TABULA_HANDLERS_INT_H

#include "commands.h"
#include "compete_int.h"
#include "rc.h"
#include "views_int.h"

/* One command of a mail being run (dispatch.c, from the table in
 * commands.h): the game and seat it is for, the whole mail, and what the
 * mail's commands did so far. */
struct ref_cmd_run {
  struct ref_msg_ctx *m;
  struct ref_game_ctx *g;      /* NULL: a mail that names no game (REF_CF_NOKEY) */
  int seat;                    /* the sender's seat in g; -1 without g */
  const struct ref_cmds *cmds; /* the whole mail: its move lines, its "#N" */
  int moved;                   /* the mail's move was played (before its draw
                                  offer or claim: FIDE 9.1.2.1, CH-2) */
  int roll_with_play;          /* "roll" goes with the mail's play (§1.6) */
  int prepared;                /* the mail's "if" lines were read, all at once */
};

/* The one signature of a command's handler (the table's `run` column):
 * REF_RC_OK, the next command runs; REF_RC_REFUSED (the sender told why),
 * REF_RC_STOP or REF_RC_FAIL, the mail's other commands do not. */
typedef enum ref_rc ref_cmd_fn(struct ref_cmd_run *r, const struct ref_cmd *c);

/* cmd_invite.c: new GAME [as SEAT] [key=value...] with ADDRESS; accept
 * [entropy: TEXT] and decline of an invitation (ref_do_answer's, before
 * the start). */
ref_cmd_fn ref_do_new;
int ref_do_accept(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                  const struct ref_cmd *c);
int ref_do_decline(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                   const struct ref_cmd *c);

/* cmd_play.c: a move (the mail's candidate lines; `notify` 0 leaves the
 * mails, and the opponent's prepared answers, to a draw claim that
 * follows it: ref_move_answered when the claim fails); draw offer|accept|
 * decline|claim (an offer or a claim with a move plays the move first);
 * double, take, drop, roll ("roll" with a play: the standing answer goes
 * with it); resign [match|gammon|backgammon]; accept and decline, the
 * answer to what waits: a double, the opponent's takeback request, a
 * resignation offer, else the invitation. */
int ref_do_move(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                const struct ref_cmds *cmds, int notify);
ref_cmd_fn ref_do_draw;
ref_cmd_fn ref_do_cube;
ref_cmd_fn ref_do_resign;
ref_cmd_fn ref_do_answer;
/* The mails of seat's move just made by ref_do_move (notify 0), after the
 * other player's prepared answers it calls for: a move sent
 * with a draw claim that failed. */
int ref_move_answered(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat);
/* The two questions asked of a mail's move lines (read as turnread.c
 * reads them, a line alone or lines joined). Without memory both say yes:
 * the move is then tried, and fails as it should. */
enum ref_move_test {
  /* A move of this game, legal or not: an illegal or ambiguous move, or
   * two moves in one mail (§1.1), is still a move. Asked where the lines
   * may be prose beside a command (a draw offer or "roll" with a play,
   * any command with words): a move must reach ref_do_move, to be played
   * or refused with its reason, and only a line that reads as no move at
   * all is let be as prose. */
  REF_MOVE_READS,
  /* A move played now: the seat's turn to move and a line (or lines
   * together) the rules read as a legal move. Asked of a keyless mail of
   * only move lines: a move that would be refused anyway is refused at
   * once, changing nothing, rather than asked to be confirmed first. */
  REF_MOVE_PLAYABLE
};
int ref_mail_move(struct ref_game_ctx *g, int seat, const struct ref_cmds *cmds,
                  enum ref_move_test want);
/* A play and "roll" in one mail (rules-spec §1.6): the play with the
 * standing answer to the next cube question, kept only when the play is. */
int ref_move_then_roll(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                       const struct ref_cmds *cmds);

/* cmd_takeback.c: takeback, its answers, a move declining it.
 * ref_takeback_waiting: 1 when the opponent's request waits for `seat`'s
 * answer, 0 not, -1 on a store failure. ref_takeback_moved: `seat` moves,
 * which declines the opponent's standing request (journaled before the
 * move; a line in the move's mails). ref_do_takeback_answer: takeback
 * accept|decline, or accept|decline (ref_do_answer's) */
ref_cmd_fn ref_do_takeback;
ref_cmd_fn ref_do_takeback_answer;
int ref_takeback_waiting(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat);
int ref_takeback_moved(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat);

/* cmd_conditional.c: the mail's "if ... then ..." lines, all
 * at once (checked in sequence from the position they start at, after the
 * sender's move when the mail has one; refused whole, nothing kept, when
 * one fails); conditionals [clear]. ref_conditional_answer: after a move
 * `played` (canonical) of the opponent made at move count `ply`, owner's
 * branches go on or are discarded; 1 with the answer to play (`reply`,
 * canonical) and the line as written, 0 none, -1 store error; the lines
 * the move did not match are added to `dropped`, one a line. */
ref_cmd_fn ref_do_if;
ref_cmd_fn ref_do_conditionals;
int ref_conditional_answer(struct ref_service *svc, struct ref_game_ctx *g, int owner,
                           const char *played, int64_t ply, char *reply, size_t cap,
                           char *line, size_t linecap, char *dropped, size_t dcap);

/* cmd_query.c: board, legal, help [GAME], history, preview MOVE, verify,
 * games. Without a game (g NULL, seat -1) help and games answer the
 * sender. */
/* board [#N] (the board at move N), history [full] (a board per
 * move, within a size cap) */
ref_cmd_fn ref_do_board;
ref_cmd_fn ref_do_legal;
ref_cmd_fn ref_do_help;
ref_cmd_fn ref_do_history;
ref_cmd_fn ref_do_preview;
ref_cmd_fn ref_do_verify;
ref_cmd_fn ref_do_games;
/* The lines of `games` for `address` into b; *running: how many run (not
 * finished or cancelled). 1 when the address plays no game. */
int ref_games_list(struct ref_msg_ctx *m, const char *address, struct base_buf *b, int *running);

/* cmd_observe.c: observe GAME (on 1: a confirmation request), unobserve
 * [GAME] (on 0); the confirmed observe of game (its command line quoted in
 * a refusal). */
ref_cmd_fn ref_do_observe;
int ref_do_observe_confirmed(struct ref_msg_ctx *m, int64_t game, const char *line);

/* cmd_confirm.c: the answer to a confirmation request, found by its key:
 * a stored `observe` runs; a request of kind "keyless" (a mail without a
 * game's key: its game, the address of record, its lines) or "new" (a
 * command flagged REF_CF_CONFIRMED) is handed back in *run (run->kind ""
 * for none) for the entry layer to run, so that no handler calls the
 * layer above it. */
enum ref_rc ref_do_confirm(struct ref_msg_ctx *m, const char *key, const struct ref_cmds *cmds,
                           struct store_confirm *run);

/* cmd_keyless.c: a player's mail without a game's key. The
 * action of cmds in game g stored as a confirmation request and the
 * seat's address of record asked to confirm it, with the board (the "#N"
 * guard of now added unless player_wide: vacation, digest, comments); the list of
 * the sender's running games when it named none of several (`one` of them
 * for the example). */
int ref_keyless_ask(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                    const struct ref_cmds *cmds, int player_wide);
int ref_keyless_which(struct ref_msg_ctx *m, const struct ref_cmds *cmds, int64_t one);

/* cmd_time.c: vacation FROM TO, digest on|off, claim time; the loss on
 * time, mailed (a claim, a late mail, the tick). */
ref_cmd_fn ref_do_vacation;
ref_cmd_fn ref_do_digest;
ref_cmd_fn ref_do_timezone;
ref_cmd_fn ref_do_give;
ref_cmd_fn ref_do_leave_auto;
ref_cmd_fn ref_do_calendar;
/* leave auto (rules-spec TM-8): the time of `seat` is up at `at` with
 * *deadline; when the player asked for it and the allowance lasts, days
 * of leave are taken for them, one at a time from the deadline's day, and
 * the player told. 1 when the time is no longer up (*deadline the new
 * one), 0 when no leave was taken or it did not suffice, -1 on error. */
int ref_leave_auto(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, int64_t at,
                   int64_t *deadline);
ref_cmd_fn ref_do_claim_time;
int ref_lost_on_time(struct ref_msg_ctx *m, struct ref_game_ctx *g, int loser, int64_t deadline,
                     int claimed);

/* cmd_talk.c: message [TEXT], the mail's words (m->comment,
 * talk.c) to the other players of a started or finished game; comments
 * on|off, the sender's own. */
ref_cmd_fn ref_do_message;
ref_cmd_fn ref_do_comments;

/* cmd_compete.c: ratings [GAME], rating. Without a game (g
 * NULL, seat -1) the sender is answered when it plays somewhere. */
ref_cmd_fn ref_do_ratings;
ref_cmd_fn ref_do_rating;
/* cmd_compete.c: tournament GAME [NAME] [double] [unrated] [options] with
 * ADDRESS..., standings [NAME]. */
ref_cmd_fn ref_do_tournament;
ref_cmd_fn ref_do_standings;
/* cmd_compete.c: resign match (a backgammon match, at once). */
int ref_do_resign_match(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const struct ref_cmd *c);

/* cmd_seek.c: seek GAME [as SEAT] [days=N] [rated|unrated]
 * [private] [options] from a confirmed address (a matching open seek
 * starts the game at once), seeks (the open ones, no addresses), seek
 * cancel / unseek [N] (N also as the mail's "#N", guard; -1 none); an open seek past its expiry closed and its
 * author told once (the tick, in its own transaction; *did 1 when it
 * did). */
ref_cmd_fn ref_do_seek;
ref_cmd_fn ref_do_seeks;
ref_cmd_fn ref_do_unseek;
int ref_seek_expire(struct ref_service *svc, int64_t id, int64_t now, int *did);

/* compete.c: after a game ended and its result was mailed, in the same
 * transaction: the rating period it closes, the end of its round robin.
 * Every handler that ends a game calls it. */
int ref_compete_game_over(struct ref_msg_ctx *m, struct ref_game_ctx *g);
/* A round robin: its games created and its players invited, one mail
 * each. 0 done (*id), 1 the name is taken, -1 error. */
int ref_tournament_create(struct ref_msg_ctx *m, const struct ref_tournament_spec *spec,
                          int64_t *id);
/* `accept` (accept 1) or `decline` of g when g belongs to a round robin:
 * for all of the player's games at once. REF_RC_PASS when g is no
 * tournament's (the caller goes on), else what it did. */
enum ref_rc ref_tournament_answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                                  const struct ref_cmd *c, int accept);
/* A game of d between addresses[0] (the first seat) and addresses[1],
 * made by the referee as `new` makes one (the row, the clock, the seats
 * with their keys, a dice game's chain, the "create" entry); the seat of
 * `accepted_by` has accepted with `entropy`. Then, once every seat has
 * accepted, started as ref_do_accept starts one (start.txt to all). For
 * the games two seeks start (cmd_seek.c). */
int ref_game_create_for(struct ref_service *svc, struct ref_game_ctx *g,
                        const struct ref_game_desc *d, const char *opts, int days, int weekends,
                        const char *control, const char *const addresses[2],
                        const char *accepted_by, const char *entropy, const char *create_text);
int ref_game_start_made(struct ref_msg_ctx *m, struct ref_game_ctx *g);
/* An expired invitation of a round robin's game: the whole tournament
 * cancelled, each player told once. REF_RC_PASS when g is no
 * tournament's. */
enum ref_rc ref_tournament_expire(struct ref_msg_ctx *m, struct ref_game_ctx *g);
/* The standings of t as a mail's extras: the table; counts: games,
 * finished, still to play. */
int ref_tournament_standings_vars(struct ref_service *svc, const struct store_tournament *t,
                                  struct base_buf *table, char counts[3][24]);

#endif
