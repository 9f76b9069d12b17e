/*
 * record.c: a game's record, rebuilt from its journal for people to read:
 * `history` by mail, and `tabula export` (PGN for chess, a plain transcript
 * with the dice lines for the other games, so an export verifies with
 * tools/tabula-verify-dice.py). Layer 3, "games" (docs/architecture.md).
 *
 * The record replays the journal through the rules once more, entry by
 * entry, so each move is labelled with the move number the game had when it
 * was made (the same number the "#N" guard speaks of).
 */
#include "game_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* One journal entry as the record sees it. */
struct rec_step {
  const struct store_entry *e;
  char label[160]; /* moves: "12. Nf3", "12... Nf6" (numbered games) or "13/7 8/7" */
  int actor;       /* the acting seat; for a roll, the seat that rolled */
  int move_number; /* ops->status before the entry */
  int turn;
};

typedef int (*rec_fn)(void *arg, const struct ref_game_ctx *r, const struct rec_step *st);

/* Replays g's journal into a private copy, calling fn for every entry. */
static int walk(struct ref_service *svc, const struct ref_game_ctx *g, rec_fn fn, void *arg,
                struct ref_game_ctx *final)
{
  struct store_entry *e = NULL;
  struct ref_game_ctx r;
  size_t n = 0, i;
  char why[256];
  int rc = -1;

  memset(&r, 0, sizeof(r));
  r.row = g->row;
  r.seats = g->seats;
  r.nseats = g->nseats;
  r.desc = g->desc;
  r.state = ref_state_new(g->desc);
  if(!r.state || store_journal_load(svc->st, &e, &n, g->row.id) != STORE_OK)
    goto out;
  for(i = 0; i < n; i++) {
    struct rec_step st;
    struct ref_status s;
    memset(&st, 0, sizeof(st));
    st.e = &e[i];
    st.actor = e[i].seat;
    st.turn = -1;
    if(r.started) {
      r.desc->ops->status(r.state, &s);
      st.move_number = s.move_number;
      st.turn = s.phase == REF_PHASE_OVER ? -1 : s.turn;
      if(!strcmp(e[i].kind, "roll"))
        st.actor = st.turn;
    }
    if(ref_game_replay_entry(&r, &e[i], why, sizeof(why)))
      goto out;
    if(!strcmp(e[i].kind, "move"))
      snprintf(st.label, sizeof(st.label), "%s", r.last_move);
    if(fn && fn(arg, &r, &st))
      goto out;
  }
  rc = 0;
out:
  free(e);
  if(final && !rc) {
    *final = r;
    final->seats = NULL;
  }
  else
    free(r.state);
  return rc;
}

static const char *seat_name(const struct ref_game_ctx *r, int seat)
{
  return seat >= 0 && seat < r->desc->seats ? r->desc->seat_names[seat] : "Referee";
}

/* "winner SEAT" or "draw": what `tabula adjudicate` journals. */
static int adjudication_parse(const char *text, int *winner)
{
  if(!strcmp(text, "draw")) {
    *winner = -1;
    return 0;
  }
  return sscanf(text, "winner %d", winner) == 1 ? 0 : -1;
}

/* An action or offer in words: "White offers a draw", "Black takes". */
static void deed(char *buf, size_t cap, const char *who, const char *text)
{
  static const struct {
    const char *text, *words;
  } deeds[] = {
    {"double", "doubles"},
    {"take", "takes"},
    {"drop", "drops"},
    {"draw agreed", "agrees to a draw"},
    {"draw claim", "claims a draw"},
    {"draw offer", "offers a draw"},
    {"draw declined", "declines the draw"},
    {"resign rejected", "rejects the resignation"},
  };
  static const char *const levels[] = {"", "", " (a gammon)", " (a backgammon)"};
  size_t i;
  int level = 0;
  for(i = 0; i < sizeof(deeds) / sizeof(deeds[0]); i++)
    if(!strcmp(text, deeds[i].text)) {
      snprintf(buf, cap, "%s %s", who, deeds[i].words);
      return;
    }
  /* BG-5: "resign offer N" is an offer, "resign N" the resignation */
  if(sscanf(text, "resign offer %d", &level) == 1)
    snprintf(buf, cap, "%s offers to resign%s", who, levels[level >= 0 && level < 4 ? level : 0]);
  else if(sscanf(text, "resign %d", &level) == 1)
    snprintf(buf, cap, "%s resigns%s", who, levels[level >= 0 && level < 4 ? level : 0]);
  else
    snprintf(buf, cap, "%s: %s", who, text);
}

/* One entry in words, for `history` and the plain export. */
static void describe(char *buf, size_t cap, const struct ref_game_ctx *r,
                     const struct rec_step *st)
{
  const struct store_entry *e = st->e;
  const char *who = seat_name(r, st->actor);

  if(!strcmp(e->kind, "create"))
    snprintf(buf, cap, "invitation: %s", e->text);
  else if(!strcmp(e->kind, "accept"))
    snprintf(buf, cap, "%s accepted", who);
  else if(!strcmp(e->kind, "decline"))
    snprintf(buf, cap, "%s declined", who);
  else if(!strcmp(e->kind, "start"))
    snprintf(buf, cap, "the game started");
  else if(!strcmp(e->kind, "move"))
    snprintf(buf, cap, (r->desc->flags & REF_GAME_DICE) ? "%s plays %s" : "%.0s%s", who,
             st->label);
  else if(!strcmp(e->kind, "roll")) {
    const char *f = strstr(e->text, "faces");
    snprintf(buf, cap, "%s rolled%s", who, f ? f + 5 : "");
  }
  else if(!strcmp(e->kind, "end"))
    snprintf(buf, cap, "result: %s", e->text);
  else if(!strcmp(e->kind, "adjudicate"))
    snprintf(buf, cap, "adjudicated by the operator: %s", e->text);
  else if(!strcmp(e->kind, "reason")) /* tabula adjudicate --reason */
    snprintf(buf, cap, "the operator's reason: %s", e->text);
  else if(!strcmp(e->kind, "action") || !strcmp(e->kind, "offer"))
    deed(buf, cap, who, e->text);
  else
    snprintf(buf, cap, "%s: %s%s%s", who, e->kind, e->text[0] ? " " : "", e->text);
}

struct lines_ctx {
  struct ref_buf *out;
};

static int history_line(void *arg, const struct ref_game_ctx *r, const struct rec_step *st)
{
  struct lines_ctx *c = arg;
  char text[400], date[16] = "";
  struct tm tm;
  time_t t = (time_t)st->e->time;
  describe(text, sizeof(text), r, st);
  if(gmtime_r(&t, &tm))
    strftime(date, sizeof(date), "%Y-%m-%d", &tm);
  return ref_buf_printf(c->out, "%s  %s\n", date, text);
}

int ref_game_history(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out)
{
  struct lines_ctx c = {out};
  return walk(svc, g, history_line, &c, NULL);
}

/* ---- PGN (chess): the Seven Tag Roster, SetUp/FEN, movetext ---- */

struct pgn_ctx {
  struct ref_buf *text;
  size_t col;
  int need_number; /* the next Black move needs "N..." */
  int adjudicated, winner;
};

static int pgn_word(struct pgn_ctx *c, const char *w)
{
  size_t len = strlen(w);
  /* export format: lines of at most 79 characters (PGN standard 8.2.6) */
  if(c->col && c->col + 1 + len > 79) {
    if(ref_buf_puts(c->text, "\n"))
      return -1;
    c->col = 0;
  }
  if(ref_buf_printf(c->text, "%s%s", c->col ? " " : "", w))
    return -1;
  c->col += (c->col ? 1 : 0) + len;
  return 0;
}

static int pgn_comment(struct pgn_ctx *c, const char *text)
{
  char w[420];
  /* braces end a PGN comment: none may appear inside one */
  snprintf(w, sizeof(w), "{%s}", text);
  for(char *p = w + 1; *p && p[1]; p++)
    if(*p == '{' || *p == '}')
      *p = '(';
  c->need_number = 1;
  return pgn_word(c, w);
}

static int pgn_step(void *arg, const struct ref_game_ctx *r, const struct rec_step *st)
{
  struct pgn_ctx *c = arg;
  const struct store_entry *e = st->e;
  char w[400];

  if(!strcmp(e->kind, "move")) {
    if(st->turn == 0) {
      snprintf(w, sizeof(w), "%d.", st->move_number);
      if(pgn_word(c, w))
        return -1;
    }
    else if(c->need_number) {
      snprintf(w, sizeof(w), "%d...", st->move_number);
      if(pgn_word(c, w))
        return -1;
    }
    c->need_number = 0;
    return pgn_word(c, e->text);
  }
  if(!strcmp(e->kind, "action") || !strcmp(e->kind, "offer")) {
    deed(w, sizeof(w), seat_name(r, st->actor), e->text);
    return pgn_comment(c, w);
  }
  if(!strcmp(e->kind, "adjudicate")) {
    c->adjudicated = !adjudication_parse(e->text, &c->winner);
    return pgn_comment(c, "adjudicated by the operator");
  }
  return 0;
}

static void tag(struct ref_buf *out, const char *name, const char *value)
{
  const char *p;
  ref_buf_printf(out, "[%s \"", name);
  for(p = value; *p; p++) /* PGN 8.1.1: quote and backslash are escaped */
    ref_buf_printf(out, "%s%c", (*p == '"' || *p == '\\') ? "\\" : "", *p);
  ref_buf_puts(out, "\"]\n");
}

static const char *pgn_result(int over, int winner)
{
  if(!over)
    return "*";
  return winner == 0 ? "1-0" : winner == 1 ? "0-1" : "1/2-1/2";
}

static int export_pgn(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out)
{
  struct pgn_ctx c;
  struct ref_buf moves;
  struct ref_game_ctx fin;
  struct ref_status s;
  char date[16] = "????.??.??", event[64];
  const char *fen = strstr(g->row.options, "fen=");
  struct tm tm;
  time_t t = (time_t)g->row.created;
  int over = 0, winner = -1, rc = -1;

  memset(&c, 0, sizeof(c));
  memset(&s, 0, sizeof(s));
  ref_buf_init(&moves, 4u * 1024u * 1024u);
  c.text = &moves;
  c.need_number = 1;
  if(walk(svc, g, pgn_step, &c, &fin))
    goto out;
  if(fin.started) {
    fin.desc->ops->status(fin.state, &s);
    over = s.phase == REF_PHASE_OVER;
    winner = s.winner;
  }
  free(fin.state);
  if(c.adjudicated) {
    over = 1;
    winner = c.winner;
  }
  if(gmtime_r(&t, &tm))
    strftime(date, sizeof(date), "%Y.%m.%d", &tm);
  snprintf(event, sizeof(event), "tabula game %lld", (long long)g->row.id);
  tag(out, "Event", event);
  tag(out, "Site", svc->cfg.address);
  tag(out, "Date", date);
  tag(out, "Round", "-");
  tag(out, "White", g->nseats > 0 ? g->seats[0].address : "?");
  tag(out, "Black", g->nseats > 1 ? g->seats[1].address : "?");
  tag(out, "Result", pgn_result(over, winner));
  if(fen) {
    /* PGN 9.7: a game from a set-up position carries it */
    char value[256];
    snprintf(value, sizeof(value), "%.*s", (int)strcspn(fen + 4, ";"), fen + 4);
    tag(out, "SetUp", "1");
    tag(out, "FEN", value);
  }
  if(c.adjudicated)
    tag(out, "Termination", "adjudication");
  else if(over && s.end == REF_END_TIME)
    tag(out, "Termination", "time forfeit");
  else if(g->row.phase == STORE_GAME_CANCELLED)
    tag(out, "Termination", "abandoned");
  ref_buf_puts(out, "\n");
  if(pgn_word(&c, pgn_result(over, winner)))
    goto out;
  ref_buf_printf(out, "%s\n\n", moves.s ? moves.s : "");
  rc = 0;
out:
  ref_buf_free(&moves);
  return rc;
}

/* ---- the plain transcript (every other game) ---- */

static int export_plain(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out)
{
  struct lines_ctx c = {out};
  struct ref_buf dice;
  size_t i;
  int nrolls = 0;

  ref_buf_printf(out, "tabula game %lld: %s (rules v%d)\nReferee: %s\n", (long long)g->row.id,
                 g->desc->title, g->row.rules_version, svc->cfg.address);
  for(i = 0; i < g->nseats; i++)
    ref_buf_printf(out, "%s: %s\n", g->desc->seat_names[i], g->seats[i].address);
  ref_buf_printf(out, "Options: %s\nResult: %s\n\n", g->row.options[0] ? g->row.options : "none",
                 g->row.result[0] ? g->row.result : "in progress");
  if(walk(svc, g, history_line, &c, NULL))
    return -1;
  /* dice-protocol.md: the commitment, the entropy and every roll, as the
   * mails showed them, so tools/tabula-verify-dice.py checks the export */
  ref_buf_init(&dice, 64u * 1024u * 1024u);
  if(!ref_dice_transcript(svc, g, &dice, &nrolls) && dice.s)
    ref_buf_printf(out, "\n%s", dice.s);
  ref_buf_free(&dice);
  return 0;
}

int ref_game_export(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out)
{
  if(!strcmp(g->desc->name, "chess"))
    return export_pgn(svc, g, out);
  return export_plain(svc, g, out);
}
