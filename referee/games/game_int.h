/*
 * game_int.h: layer 3 of the service, "games" (docs/architecture.md): a
 * game rebuilt from its journal and the journal written (game.c), its dice
 * chain in the store (dicechain.c), its record (record.c), its observers
 * (observers.c) and a mail's move lines read as its turn (turnread.c).
 * Calls only layers 1 and 2.
 */
#ifndef TABULA_GAME_INT_H
#define TABULA_GAME_INT_H

#include "commands.h"
#include "context_int.h"

/* game.c */
int ref_game_load(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                  size_t cap);
/* The same by replaying the whole journal, whatever the snapshot says
 * (`tabula check`). */
int ref_game_load_full(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                       size_t cap);
/* Whether the game's stored snapshot agrees with g, a full replay: 0 yes
 * (or none, or one this build does not use), 1 no (why says how). */
int ref_game_snapshot_check(struct ref_service *svc, const struct ref_game_ctx *g, char *why,
                            size_t cap);
void ref_game_free(struct ref_game_ctx *g);
/* Replays one journal entry into g->state (game loading and record.c). */
int ref_game_replay_entry(struct ref_game_ctx *g, const struct store_entry *e, char *why,
                          size_t cap);
/* Takebacks: which entries of e[0..n) a later `undo` entry
 * cancels (undone[i] = 1: the move is not replayed). 0; 1 when an undo
 * names a move before e[0] (replay the whole journal); -1 when an undo
 * names no move it may undo (why says so). The one replay rule: loading,
 * `tabula check`, records, exports and results all use it. */
int ref_journal_undone(const struct store_entry *e, size_t n, unsigned char *undone, char *why,
                       size_t cap);
/* The seq of the move an `undo` entry ("move SEQ LABEL") names; -1 if e is none. */
int ref_undo_target(const struct store_entry *e, int64_t *seq);
/* g's state, move count, last move and head replayed from the whole
 * journal again (row and seats kept): after an undo. */
int ref_game_replay_all(struct ref_service *svc, struct ref_game_ctx *g, char *why, size_t cap);
int ref_game_save(struct ref_service *svc, struct ref_game_ctx *g);
int ref_journal(struct ref_service *svc, struct ref_game_ctx *g, int seat, const char *kind,
                const char *text, const char *dice);
/* "12. Nf3" / "12... Nf6", or the bare move in dice games; before the move. */
void ref_move_label(struct ref_game_ctx *g, const char *canon, char *buf, size_t cap);
void ref_result_text(char *buf, size_t cap, const struct ref_game_desc *d,
                     const struct ref_status *s);
void ref_action_text(char *buf, size_t cap, enum ref_action a, int arg);
int ref_action_parse(const char *text, enum ref_action *a, int *arg);
int ref_seat_of(const struct ref_game_ctx *g, const char *address);

/* The game's dice chain in the store (dicechain.c, tabula-dice-1). The
 * lines the mails show go to `shown`. */
int ref_dice_new_chain(struct ref_service *svc, int64_t game, int chain, int64_t rolls);
/* A game's chain 1 from a secret drawn and committed earlier (a knockout's slot). */
int ref_dice_adopt_chain(struct ref_service *svc, int64_t game, const char *secret_hex);
int ref_dice_commitment_line(struct ref_service *svc, int64_t game, char *buf, size_t cap);
int ref_dice_fix_entropy(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *shown);
/* Rolls `need` faces: the rules get them, the journal and `shown` the proof. */
int ref_dice_roll(struct ref_service *svc, struct ref_game_ctx *g, int need,
                  struct base_buf *shown);
/* Every dice line of the game; `published` (the web view's pages and
 * records): no salt, and a tabula-dice-1 game's entropy as E alone
 * (rules-spec G-4). 0 done, 1 the game has no dice committed, -1 a store
 * failure (a transcript is never short of what could not be read). */
int ref_dice_transcript(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                        int *nrolls, int published);
/* A seat's entropy e_s (docs/dice-protocol.md): the accept's entropy text,
 * else from its Message-ID, under tabula-dice-2 as the keyed digest. */
int ref_dice_seat_entropy(struct ref_service *svc, int64_t game, const char *text,
                          const char *message_id, char *out, size_t cap);
/* The version of the game's dice: 2 (tabula-dice-2), 1 (a game drawn
 * before it, or no dice), -1 on a store error. */
int ref_dice_version(struct ref_service *svc, int64_t game);
/* "Dice salt: game G SALT" of a tabula-dice-2 game ("" under tabula-dice-1):
 * for the players' mails only. */
int ref_dice_salt_line(struct ref_service *svc, int64_t game, char *buf, size_t cap);
/* Whose chain a game's dice come from: itself, or the first game of its
 * backgammon match (one commitment a match). */
int64_t ref_dice_game(struct ref_service *svc, int64_t game);
/* "Dice match: game D part K played as game G from roll I" into `shown`:
 * where a later game of a match takes up the match's dice. */
int ref_dice_match_line(struct ref_service *svc, struct ref_game_ctx *g, int part,
                        struct base_buf *shown);

/* The record of a game (record.c): `history` by mail, `tabula export`,
 * in each community's format (record_pgn.c, record_pdn.c, record_mat.c;
 * the hybrids a transcript: docs/records.md). */
int ref_game_history(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out);
#define REF_EXPORT_PUBLIC 0x1u /* players named by initials, not addresses (the site) */
int ref_game_export(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                    unsigned flags);
/* The format of a game's export: file extension, MIME type, name, writer.
 * A game may have several (backgammon: .mat, then SGF); the first is its
 * record. */
struct ref_export_kind {
  const char *game, *ext, *mime, *format;
  int (*write)(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
               unsigned flags);
};
const struct ref_export_kind *ref_export_kind(const struct ref_game_desc *d);
/* The game's formats in turn: NULL gives the first; NULL after the last. */
const struct ref_export_kind *ref_export_next(const struct ref_game_desc *d,
                                              const struct ref_export_kind *k);
/* The game's format with that file extension ("sgf"), or NULL. */
const struct ref_export_kind *ref_export_format(const struct ref_game_desc *d, const char *ext);
int ref_game_export_as(struct ref_service *svc, struct ref_game_ctx *g,
                       const struct ref_export_kind *k, struct base_buf *out, unsigned flags);
/* "A. L." for alice.liddell@example.org: how a public page names a player. */
void ref_public_name(const char *address, char *buf, size_t cap);

/* The journal replayed for a record: fn sees every entry with the position
 * before it (NULL before "start") and the game after it. */
struct ref_rec_step {
  const struct store_entry *e;
  const struct ref_state *before;
  char label[160]; /* moves: "12. Nf3", "12... Nf6" (numbered games) or "13/7 8/7" */
  int actor;       /* the acting seat; for a roll, the seat that rolled */
  int move_number; /* ops->status before the entry */
  int turn;
};
/* The steps one at a time, for a reader in a layer above (no callback
 * up: docs/architecture.md): ref_record_open (0, -1), then
 * ref_record_next until it returns 0 (the end; 1 a step: it->st, the game
 * after it it->r; -1 a failure), then ref_record_close, always; `final`
 * (or NULL) gets the game at the end, its state to free. */
struct ref_rec_iter {
  struct ref_game_ctx r;
  struct ref_rec_step st;
  struct store_entry *e; /* the journal */
  size_t n, i;
  unsigned char *undone; /* entries taken back */
  struct ref_state *before;
};
int ref_record_open(struct ref_service *svc, const struct ref_game_ctx *g, struct ref_rec_iter *it);
int ref_record_next(struct ref_rec_iter *it);
void ref_record_close(struct ref_rec_iter *it, struct ref_game_ctx *final);
/* The same with a visitor fn, for the readers of this layer (export.c). */
typedef int (*ref_rec_fn)(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st);
int ref_record_walk(struct ref_service *svc, const struct ref_game_ctx *g, ref_rec_fn fn,
                    void *arg, struct ref_game_ctx *final);
/* How the game ended, the rules' end or the operator's or the clock's. */
struct ref_rec_end {
  int over, winner, points, cancelled;
  enum ref_end end;
  char final_position[600];
};
int ref_record_end(struct ref_service *svc, struct ref_game_ctx *g, struct ref_rec_end *out);
const char *ref_record_termination(const struct ref_rec_end *end); /* PGN 9.8.1 words */
void ref_record_time_control(struct ref_service *svc, const struct ref_game_ctx *g, char *buf,
                             size_t cap); /* "1/604800" */
void ref_record_date(const struct ref_game_ctx *g, char *buf, size_t cap); /* "2026.11.22" */
void ref_record_player(const struct ref_game_ctx *g, int seat, unsigned flags, char *buf,
                       size_t cap);
void ref_record_deed(char *buf, size_t cap, const char *who, const char *text);
/* One entry in words ("White plays 13/7 8/7"), and a ref_rec_fn writing
 * "DATE  WORDS" lines (arg: struct ref_rec_lines). */
/* The text of the "accept" entry of a game two seeks made (cmd_seek.c):
 * the newer seeker's seek answered, no invitation (the history says so). */
#define REF_JOURNAL_SEEK_PAIRED "seek paired"
void ref_record_describe(char *buf, size_t cap, const struct ref_game_ctx *r,
                         const struct ref_rec_step *st);
struct ref_rec_lines {
  struct base_buf *out;
  int public; /* the invitation names addresses: left out of public records */
};
int ref_record_line(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st);
/* The dice lines of a record; `flags` REF_EXPORT_PUBLIC: as published
 * (rules-spec G-4, ref_dice_transcript). */
int ref_record_dice(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                    unsigned flags);
/* Who refereed, as a record names it: the referee's address, or for a
 * published record its domain (rules-spec G-4: no address on the site). */
const char *ref_record_referee(const struct ref_service *svc, unsigned flags);
/* Tag pairs and movetext (PGN, PDN): lines of at most 79 characters. */
struct ref_rec_text {
  struct base_buf *text;
  size_t col;
  int need_number; /* the next second-seat move needs "N..." */
};
void ref_record_tag(struct base_buf *out, const char *name, const char *value);
int ref_record_word(struct ref_rec_text *t, const char *w);
int ref_record_comment(struct ref_rec_text *t, const char *text);
int ref_record_move(struct ref_rec_text *t, const struct ref_rec_step *st, const char *move);
/* Offers, actions, the operator's decision, a loss on time: a comment. */
int ref_record_note(struct ref_rec_text *t, const struct ref_game_ctx *r,
                    const struct ref_rec_step *st);
/* A movetext record (PGN, PDN): the journal replayed, the position at
 * "start" kept, each move written by `move`, the rest as ref_record_note's
 * comments, then how the game ended. ref_record_movetext_out writes the
 * tag pairs' blank line, the movetext and the word that ends it; both free
 * the moves, so the caller frees nothing. */
struct ref_rec_movetext {
  struct ref_rec_text t;
  struct base_buf moves;
  char start[600];
  struct ref_rec_end end;
  int (*move)(struct ref_rec_text *t, const struct ref_game_ctx *r, const struct ref_rec_step *st);
};
int ref_record_movetext(struct ref_service *svc, struct ref_game_ctx *g,
                        struct ref_rec_movetext *m);
int ref_record_movetext_out(struct ref_rec_movetext *m, struct base_buf *out, const char *last);
/* The tags a PGN or PDN record opens with: Event (the game's number), Site
 * (the referee's address), Date; and the Result tag's words (1-0, 0-1,
 * 1/2-1/2, or * for a game not over: PGN 8.1.1.7, PDN 3.0's the same). */
void ref_record_head(struct ref_service *svc, const struct ref_game_ctx *g, struct base_buf *out,
                     unsigned flags);
const char *ref_record_result(const struct ref_rec_end *end);
int ref_export_pgn(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags);
int ref_export_pdn(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags);
int ref_export_mat(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags);
/* The same game or match as SGF, FF[4] GM[6], as gnubg writes and reads
 * it (record_sgf.c). */
int ref_export_sgf(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags);
/* What the two backgammon records share (record_mat.c): a play in gnubg's
 * notation step by step, the point it leaves and the point it reaches in
 * the mover's numbering (25 the bar, 0 off), `hit` when it hits; the
 * count, at most max. */
struct ref_bg_step {
  int from, to, hit;
};
int ref_bg_record_steps(const char *canon, struct ref_bg_step *steps, int max);
/* The players as the record names them (p) and as a name the programs
 * take (names: no blank or ':', at most 24 bytes, the two different). */
void ref_bg_record_names(const struct ref_game_ctx *g, unsigned flags, char p[2][300],
                         char names[2][32]);
/* Whether a game's options carry "NAME=on". */
int ref_record_option_on(const char *options, const char *name);

/* Observers (observers.c): the list, addresses separated by spaces.
 * ref_observer_set: 0 done, 1 nothing to do (already / not an observer),
 * -2 full, -1 error. */
int ref_observers(struct ref_service *svc, int64_t game, char *buf, size_t cap);
int ref_observer_set(struct ref_service *svc, int64_t game, const char *address, int on);
int ref_is_observer(struct ref_service *svc, int64_t game, const char *address); /* 1, 0, -1 */
/* A private game (new GAME private) takes no observers: 1 when
 * private, 0 when not, -1 on a store error. */
int ref_game_private(struct ref_service *svc, int64_t game);
int ref_game_set_private(struct ref_service *svc, int64_t game);

/* A word to the opponent (talk.c). Per player (the store's
 * comments_off): 1 when the player turned comments off, 0 when not, -1
 * on a store error. Per game (public_comment_games, `new GAME
 * public-comments`): the observers see the comments too. */
int ref_comments_off(struct ref_service *svc, const char *address);
int ref_comments_set(struct ref_service *svc, const char *address, int off);
int ref_game_public_comments(struct ref_service *svc, int64_t game);
int ref_game_set_public_comments(struct ref_service *svc, int64_t game);
/* The comment of mail m by `seat` in g (its prose less the lines of its
 * turn, ref_prose_text), headed "ADDRESS writes:" (phrases.txt), written
 * into buf and set as m->comment; buf "" when the mail has none. 0, or -1
 * without memory. */
int ref_comment_prepare(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const struct ref_cmds *cmds, char *buf, size_t cap);
/* The prepared words as an observer of a public-comments game reads them:
 * the sender named by initials (rules-spec G-3). 0, or -1 when none. */
int ref_comment_for_observers(struct ref_msg_ctx *m, const struct ref_game_ctx *g, char *buf,
                              size_t cap);

/* A mail's move lines read as its one turn (turnread.c; rules-spec §1.1):
 * a line that alone is a legal whole turn, else consecutive
 * lines joined. found: mv is the turn, input the line(s) it was read from.
 * conflict: two different turns, input the second. Neither: err and input
 * are the most telling failure of a single line (input may be empty).
 * 0, or -1 without memory. */
struct ref_turn {
  int found, conflict;
  struct ref_move mv;
  struct ref_err err;
  char input[REF_CAND_MAX * 129]; /* the candidates joined by spaces */
  int start, len;                 /* found: the candidates that made it (the
                                     mail's other lines are its prose) */
};
int ref_read_turn(const struct ref_game_ctx *g, const struct ref_cmds *cmds, struct ref_turn *t);

#endif
