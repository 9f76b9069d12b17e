/*
 * compete_int.h: competition at layer 3, "games" (docs/architecture.md,
 * "Competition"): what a finished game's journal says of its result
 * (result.c), Glicko-2 ratings rebuilt from the journals (ratings.c),
 * backgammon matches recounted from their games (match.c) and round-robin
 * tournaments' pairings and standings (tournament.c). Calls only layers 1
 * to 3; the handlers above mail what these answer (compete.c,
 * cmd_compete.c).
 */
#ifndef TABULA_COMPETE_INT_H
#define TABULA_COMPETE_INT_H

#include "game_int.h"

/* ---- result.c: a game's result, from its journal ---- */

enum ref_result_how {
  REF_RESULT_RULES,         /* the rules ended it (mate, bear-off, a drop, an agreed draw ...) */
  REF_RESULT_TIME,          /* lost on time ("timeout") */
  REF_RESULT_OPERATOR,      /* `tabula adjudicate` ("adjudicate") */
  REF_RESULT_MATCH_RESIGNED /* `resign match` ("resign-match"): the match is over too */
};

struct ref_result {
  int over;           /* the game is finished (not cancelled, not running) */
  int winner;         /* with over: the winning seat, -1 a draw */
  int points;         /* with over, by the rules: their points (cube x gammons); else 1 */
  enum ref_result_how how;
  int moves;          /* moves journaled for the players */
  int unrated;        /* created with the word "unrated" */
  int64_t ended;      /* with over: the time of its last journal entry */
};

/* The result of g (loaded: its state replayed from the journal). */
int ref_game_result(struct ref_service *svc, struct ref_game_ctx *g, struct ref_result *r);
/* The journal word of `resign match`, and whether a create entry's text
 * (`new GAME [words] [options] by ADDRESS`) carries the word `word`. */
#define REF_JOURNAL_RESIGN_MATCH "resign-match"
int ref_create_has_word(const char *create_text, const char *word);

/* ---- ratings.c: Glicko-2 ratings, one per player per game system ---- */

/* One rating period: a finished rated game or match between two players
 * (docs/architecture.md, "Ratings": each is a period of its own). */
struct ref_rated {
  char kind[32];
  char player[2][256];
  double score;    /* the first player's: 1, 0.5 or 0 */
  int64_t ended;   /* when it ended (the last journal entry) */
  int64_t unit;    /* the game that ended it: the order among equal times */
};

/* The rating period g makes now that it is over, if any: 1 with *u filled
 * when it is rated, 0 when it is not (unrated, cancelled before the first
 * move, a game of a match: the match is rated, not its games), -1 on a
 * store error. */
int ref_rated_game(struct ref_service *svc, struct ref_game_ctx *g, struct ref_rated *u);
/* The same for a match (recounted from its games' journals): 1 when it is
 * over and rated (its first game not "unrated", some move made). */
int ref_rated_match(struct ref_service *svc, int64_t match, struct ref_rated *u);
/* Applies one rating period to the stored table (a game or match that has
 * just ended). When an already rated period of the same system sorts after
 * it (a clock set back, two endings in one second), the system is rebuilt
 * instead, so the table is always what the rebuild gives. */
int ref_ratings_apply(struct ref_service *svc, const struct ref_rated *u);
/* The table rebuilt from the journals (kind NULL: every system): *rows in
 * store_rating_list's order; free() them. */
int ref_ratings_rebuild(struct ref_service *svc, const char *kind, struct store_rating **rows,
                        size_t *n);
/* Rebuilds and writes the stored table (kind NULL: every system). */
int ref_ratings_store(struct ref_service *svc, const char *kind);
/* What `tabula check` found (problems.c): each problem with what it is
 * about ("store", "game", "match", "ratings", static strings), the
 * game's or match's number (0: none) and its words, in the order found.
 * lost counts problems that could not be kept (no memory). */
struct ref_problem {
  const char *about;
  int64_t number;
  char *text;
};
struct ref_problems {
  struct ref_problem *v;
  size_t n, cap, lost;
};
void ref_problem_add(struct ref_problems *p, const char *about, int64_t number,
                     const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void ref_problems_free(struct ref_problems *p);

/* Compares the stored table with the rebuild, a problem per difference
 * added to p, *checked the ratings the journals give; 0 when they agree,
 * 1 when not, -1 on error. */
int ref_ratings_check(struct ref_service *svc, struct ref_problems *p, size_t *checked);
/* The rows of one system's table for a mail, ranked, `mark`'s line marked
 * with "*" (the columns ratings.txt heads). */
int ref_ratings_rows(struct ref_service *svc, const char *kind, const char *mark,
                     struct base_buf *out, size_t *nrows);

/* ---- tournament.c: round robins ---- */

#define REF_TOURNAMENT_MAX 16 /* players */

/* One game of a round robin: its round and the players' starting numbers. */
struct ref_pairing {
  int round, white, black;
};
/* Every pairing of `players` players, once (cycles 1) or twice with the
 * colours swapped (cycles 2), round by round; -1 when it does not fit. */
int ref_round_robin(int players, int cycles, struct ref_pairing *out, size_t cap, size_t *n);

/* What a round robin is made of, as `tournament` by mail or `tabula
 * tournament new` asked for it (compete.c makes it). */
struct ref_tournament_spec {
  const struct ref_game_desc *d;
  char name[64];           /* "" : GAME-N */
  char opts[256];          /* the rules' options of every game */
  int days, weekends;      /* the clock's (0 and -1: the configuration's) */
  char control[64];        /* the clock's time=/double= words (clock.c) */
  int unrated, cycles;     /* cycles 2: double round robin */
  int priv, pub;           /* `private` (no observers, off the site), `public-comments`:
                              every game's, as `new` marks one */
  const char *organizer;   /* who asked: a player by mail, or the referee */
  int organizer_plays;     /* by mail: the organizer is one of the players */
  char players[REF_TOURNAMENT_MAX][256];
  int nplayers;
};

/* Letters, digits, '-' and '_', not only digits, at most 32. */
int ref_tournament_name_ok(const char *name);

struct ref_tournament_count {
  size_t games, finished, cancelled;
};
/* The standings of t, recounted from its games' journals, as data: the
 * lines from the first place (place, starting number, points,
 * Sonneborn-Berger, the crosstable: cell[k] the results against player
 * number k + 1, "1" "0" "=" or "." not yet, "**" oneself), the players by
 * number, the counts. One gathering for the table below and the
 * operator's JSON (admin_compete.c). 0, or -1 when the store failed. */
struct ref_standing {
  int number, place;
  double points, sb;
  char address[256];
  char cell[REF_TOURNAMENT_MAX][3];
};
struct ref_standings {
  size_t n;
  struct ref_standing line[REF_TOURNAMENT_MAX];
  struct {
    int number;
    char address[256];
  } player[REF_TOURNAMENT_MAX];
  struct ref_tournament_count count;
};
int ref_tournament_standings(struct ref_service *svc, const struct store_tournament *t,
                             struct ref_standings *out);
/* The standings of t, recounted from its games' journals: a heading
 * (phrases.txt standings-head), a line per player from the first place
 * (place, starting number, points, Sonneborn-Berger, the crosstable: per
 * opponent the results of their games, "1" "0" "=" or "." not yet, "**"
 * oneself), then the players by number. *count: its games, how many
 * finished, how many cancelled. */
int ref_tournament_table(struct ref_service *svc, const struct store_tournament *t,
                         struct base_buf *out, struct ref_tournament_count *count);

/* ---- match.c: backgammon matches ---- */

/* A game's place in its match: the score before it, from its options. */
struct ref_match_state {
  int64_t match, first; /* the match, and its first game (whose dice it plays) */
  int number, last;     /* the game's number in it; whether it is the latest */
  int length, score[2], crawford;
};
/* The match after a finished game. */
struct ref_match_after {
  int score[2];
  int decided, game_winner, points; /* the game's result (points: by the rules) */
  enum ref_result_how how;
  int over, winner;                 /* the match is decided, for whom */
  int next_crawford;                /* the next game is the Crawford game */
};
/* A match recounted from its games' journals. */
struct ref_match_count {
  int length, score[2], next_crawford, over, winner, games, moves, unrated;
  int inconsistent;  /* the number of a game whose options do not agree, 0 none */
  int64_t last_game, ended;
  char player[2][256];
};

/* A game's options for a match: match=N;score=A-B[;crawford=on]. */
void ref_match_options(char *buf, size_t cap, int length, const int score[2], int crawford);
/* After `new` created g: with match=N in its options, the match it begins. */
int ref_match_begin(struct ref_service *svc, struct ref_game_ctx *g);
/* 1 when g is a game of a match (*ms), 0 when not, -1 on error. */
int ref_match_of(struct ref_service *svc, const struct ref_game_ctx *g,
                 struct ref_match_state *ms);
/* The score after g, finished, and what follows it. */
int ref_match_after(struct ref_service *svc, struct ref_game_ctx *g,
                    const struct ref_match_state *ms, struct ref_match_after *a);
/* "Match to 3: alice 2, bob 0; Crawford game" for every mail of a match
 * game ("" for other games); for an observer the players' initials
 * (rules-spec G-3). */
int ref_match_line(struct ref_service *svc, struct ref_game_ctx *g, int observer, char *buf,
                   size_t cap);
/* The match recounted from the journals of its games. */
int ref_match_recount(struct ref_service *svc, int64_t match, struct ref_match_count *c);
/* Every match: its games' options against the recount, its stored phase
 * and winner against the journals, a problem per match that differs
 * added to p, *checked the matches; 0 all agree, 1 not, -1 error. */
int ref_match_check(struct ref_service *svc, struct ref_problems *p, size_t *checked);

#endif
