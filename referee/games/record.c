/*
 * record.c: a game's record, rebuilt from its journal for people and for
 * other programs to read: `history` by mail, and what every export format
 * shares (export.c chooses the format): the journal replayed,
 * each entry in words, how the game ended, the players' names (initials
 * on a public page), the time control, tag pairs and movetext for PGN and
 * PDN, the dice lines. Layer 3, "games" (docs/architecture.md).
 *
 * The record replays the journal through the rules once more, entry by
 * entry, so each move is labelled with the move number the game had when it
 * was made (the same number the "#N" guard speaks of), and each format may
 * look at the position before the move (record_pdn.c's short captures).
 */
#include "game_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int ref_record_open(struct ref_service *svc, const struct ref_game_ctx *g, struct ref_rec_iter *it)
{
  char why[256];

  memset(it, 0, sizeof(*it));
  it->r.row = g->row;
  it->r.seats = g->seats;
  it->r.nseats = g->nseats;
  it->r.desc = g->desc;
  it->r.state = ref_state_new(g->desc);
  it->before = ref_state_new(g->desc);
  if(!it->r.state || !it->before ||
     store_journal_load(svc->st, &it->e, &it->n, g->row.id) != STORE_OK)
    return -1;
  /* A move taken back is not in the record as played (a PGN
   * reader must reach the final position); the undo entry says it was */
  if(!(it->undone = malloc(it->n ? it->n : 1)) ||
     ref_journal_undone(it->e, it->n, it->undone, why, sizeof(why)))
    return -1;
  return 0;
}

int ref_record_next(struct ref_rec_iter *it)
{
  struct ref_game_ctx *r = &it->r;
  struct ref_rec_step *st = &it->st;
  char why[256];

  while(it->i < it->n && it->undone[it->i])
    it->i++;
  if(it->i >= it->n)
    return 0;
  {
    const struct store_entry *e = &it->e[it->i++];
    struct ref_status s;
    memset(st, 0, sizeof(*st));
    st->e = e;
    st->actor = e->seat;
    st->turn = -1;
    if(r->started) {
      r->desc->ops->status(r->state, &s);
      st->move_number = s.move_number;
      st->turn = s.phase == REF_PHASE_OVER ? -1 : s.turn;
      if(!strcmp(e->kind, "roll"))
        st->actor = st->turn;
      memcpy(it->before, r->state, r->desc->state_size);
      st->before = it->before;
    }
    if(ref_game_replay_entry(r, e, why, sizeof(why)))
      return -1;
    if(!strcmp(e->kind, "move"))
      snprintf(st->label, sizeof(st->label), "%s", r->last_move);
  }
  return 1;
}

void ref_record_close(struct ref_rec_iter *it, struct ref_game_ctx *final)
{
  free(it->e);
  free(it->undone);
  free(it->before);
  if(final) {
    *final = it->r;
    final->seats = NULL;
  }
  else
    free(it->r.state);
  memset(it, 0, sizeof(*it));
}

int ref_record_walk(struct ref_service *svc, const struct ref_game_ctx *g, ref_rec_fn fn,
                    void *arg, struct ref_game_ctx *final)
{
  struct ref_rec_iter it;
  int rc = ref_record_open(svc, g, &it);

  while(!rc && (rc = ref_record_next(&it)) == 1)
    rc = fn && fn(arg, &it.r, &it.st) ? -1 : 0;
  ref_record_close(&it, final && !rc ? final : NULL);
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

void ref_record_deed(char *buf, size_t cap, const char *who, const char *text)
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
    {"draw withdrawn", "withdraws the draw offer (taken back with the move)"},
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

/* "ask SEQ LABEL", "accept SEQ", "decline SEQ" (kind takeback)
 * and "move SEQ LABEL" (kind undo) in words. */
static void ref_record_takeback(char *buf, size_t cap, const char *who,
                                const struct store_entry *e)
{
  char word[16] = "";
  long long seq = 0;
  int at = 0;
  const char *label = "";
  if(sscanf(e->text, "%15s %lld %n", word, &seq, &at) >= 2 && at > 0)
    label = e->text + at;
  if(!strcmp(e->kind, "undo"))
    snprintf(buf, cap, "%s's move %s is taken back", who, label);
  else if(!strcmp(word, "ask"))
    snprintf(buf, cap, "%s asks to take back %s", who, label);
  else if(!strcmp(word, "accept"))
    snprintf(buf, cap, "%s agrees to the takeback", who);
  else if(!strcmp(word, "decline"))
    snprintf(buf, cap, "%s declines the takeback", who);
  else if(!strcmp(word, "lapse"))
    snprintf(buf, cap, "the takeback request lapsed: the game went on");
  else
    snprintf(buf, cap, "%s: %s %s", who, e->kind, e->text);
}

void ref_record_describe(char *buf, size_t cap, const struct ref_game_ctx *r,
                         const struct ref_rec_step *st)
{
  const struct store_entry *e = st->e;
  const char *who = seat_name(r, st->actor);

  const char *seeks = strstr(e->text, " for seeks ");
  if(!strcmp(e->kind, "create") && seeks && !strncmp(e->text, "new ", 4))
    /* a game two seeks made (cmd_seek.c): "new chess by A for seeks 1 and
     * 3" was no invitation anyone answered */
    snprintf(buf, cap, "the game was made from seeks %s (%.*s)", seeks + 11,
             (int)(seeks - e->text - 4), e->text + 4);
  else if(!strcmp(e->kind, "create"))
    snprintf(buf, cap, "invitation: %s", e->text);
  else if(!strcmp(e->kind, "accept") && !strcmp(e->text, REF_JOURNAL_SEEK_PAIRED))
    snprintf(buf, cap, "%s's seek paired with it", who);
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
    struct ref_status s;
    int a, b;
    memset(&s, 0, sizeof(s));
    if(st->before)
      r->desc->ops->status(st->before, &s);
    if(s.opening && f && sscanf(f + 5, "%d %d", &a, &b) == 2 && r->nseats == 2) {
      /* BG-1, TC-6: one die each, not one player's roll of two */
      const char *w = seat_name(r, 0), *bl = seat_name(r, 1);
      if(a == b)
        snprintf(buf, cap, "opening roll: %s %d, %s %d, a tie: rolled again", w, a, bl, b);
      else
        snprintf(buf, cap, "opening roll: %s %d, %s %d: %s starts", w, a, bl, b,
                 a > b ? w : bl);
    }
    else
      snprintf(buf, cap, "%s rolled%s", who, f ? f + 5 : "");
  }
  else if(!strcmp(e->kind, "end"))
    snprintf(buf, cap, "result: %s", e->text);
  else if(!strcmp(e->kind, "adjudicate"))
    snprintf(buf, cap, "adjudicated by the operator: %s", e->text);
  else if(!strcmp(e->kind, "time")) /* time given: give, tabula time GAME add */
    snprintf(buf, cap, "%s", e->text);
  else if(!strcmp(e->kind, "reason")) /* tabula adjudicate --reason */
    snprintf(buf, cap, "the operator's reason: %s", e->text);
  else if(!strcmp(e->kind, "action") || !strcmp(e->kind, "offer"))
    ref_record_deed(buf, cap, who, e->text);
  else if(!strcmp(e->kind, "takeback") || !strcmp(e->kind, "undo"))
    ref_record_takeback(buf, cap, who, e);
  else
    snprintf(buf, cap, "%s: %s%s%s", who, e->kind, e->text[0] ? " " : "", e->text);
}

int ref_record_line(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct ref_rec_lines *c = arg;
  char text[400], date[16] = "";
  struct tm tm;
  time_t t = (time_t)st->e->time;
  if(c->public && !strcmp(st->e->kind, "create"))
    return 0;
  /* A prepared line is its owner's; the move it made follows
   * and is shown as any move */
  if(!strcmp(st->e->kind, "conditional"))
    return 0;
  ref_record_describe(text, sizeof(text), r, st);
  if(gmtime_r(&t, &tm))
    strftime(date, sizeof(date), "%Y-%m-%d", &tm);
  return base_buf_printf(c->out, "%s  %s\n", date, text);
}

int ref_game_history(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out)
{
  struct ref_rec_lines c = {out, 0};
  return ref_record_walk(svc, g, ref_record_line, &c, NULL);
}

/* ---- what every format needs: names, the end, the time control ---- */

void ref_public_name(const char *address, char *buf, size_t cap)
{
  /* A published page names a player by the initials of the
   * address's local part ("alice.liddell@..." -> "A. L."), never the
   * address. Separators are . _ - +; digits and the domain are left out. */
  size_t len = 0;
  int start = 1;
  const char *p;
  if(!cap)
    return;
  buf[0] = '\0';
  for(p = address; *p && *p != '@'; p++) {
    if(strchr("._-+", *p)) {
      start = 1;
      continue;
    }
    if(start && isalpha((unsigned char)*p) && len + 4 < cap) {
      len += (size_t)snprintf(buf + len, cap - len, "%s%c.", len ? " " : "",
                              toupper((unsigned char)*p));
      start = 0;
    }
    else if(!isalpha((unsigned char)*p))
      start = 1;
    else
      start = 0;
  }
  if(!len)
    snprintf(buf, cap, "?");
}

void ref_record_player(const struct ref_game_ctx *g, int seat, unsigned flags, char *buf,
                       size_t cap)
{
  if(seat < 0 || (size_t)seat >= g->nseats)
    snprintf(buf, cap, "?");
  else if(flags & REF_EXPORT_PUBLIC)
    ref_public_name(g->seats[seat].address, buf, cap);
  else
    snprintf(buf, cap, "%s", g->seats[seat].address);
}

int ref_record_end(struct ref_service *svc, struct ref_game_ctx *g, struct ref_rec_end *out)
{
  struct store_entry *e = NULL;
  struct ref_game_ctx fin;
  struct ref_status s;
  size_t n = 0, i;

  memset(out, 0, sizeof(*out));
  out->winner = -1;
  if(ref_record_walk(svc, g, NULL, NULL, &fin))
    return -1;
  if(fin.started) {
    fin.desc->ops->status(fin.state, &s);
    if(s.phase == REF_PHASE_OVER) {
      out->over = 1;
      out->winner = s.winner;
      out->points = s.points;
      out->end = s.end;
    }
    fin.desc->ops->encode(fin.state, out->final_position, sizeof(out->final_position));
  }
  free(fin.state);
  out->cancelled = g->row.phase == STORE_GAME_CANCELLED;
  /* Ends outside the rules (the operator, the clock) are in the journal. */
  if(store_journal_load(svc->st, &e, &n, g->row.id) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    int winner;
    if(!strcmp(e[i].kind, "adjudicate") && !adjudication_parse(e[i].text, &winner)) {
      out->over = 1;
      out->winner = winner;
      out->points = 1;
      out->end = REF_END_ADJUDICATED;
    }
    else if(!strcmp(e[i].kind, "timeout")) {
      /* the loser's seat is the entry's; a loss on time scores a single game */
      out->over = 1;
      out->winner = e[i].seat >= 0 && g->desc->seats == 2 ? 1 - e[i].seat : -1;
      out->points = 1;
      out->end = REF_END_TIME;
    }
  }
  free(e);
  return 0;
}

const char *ref_record_termination(const struct ref_rec_end *end)
{
  /* PGN standard 9.8.1 (PDN reuses it): the reason the game concluded */
  if(end->cancelled)
    return "abandoned";
  if(!end->over)
    return "unterminated";
  if(end->end == REF_END_ADJUDICATED)
    return "adjudication";
  if(end->end == REF_END_TIME)
    return "time forfeit";
  return "normal";
}

void ref_record_time_control(struct ref_service *svc, const struct ref_game_ctx *g, char *buf,
                             size_t cap)
{
  /* Correspondence play: one move in so many seconds (PGN 9.6.1 "moves/seconds",
   * the PDN 3.0 TimeControl grammar's MOVES_SECONDS): 7 days is 1/604800. */
  struct store_clock c;
  int days = svc->cfg.days_per_move;
  if(store_clock_load(svc->st, &c, g->row.id) == STORE_OK && c.days > 0)
    days = c.days;
  snprintf(buf, cap, "1/%lld", (long long)days * 86400);
}

void ref_record_date(const struct ref_game_ctx *g, char *buf, size_t cap)
{
  time_t t = (time_t)g->row.created;
  struct tm tm;
  snprintf(buf, cap, "????.??.??");
  if(gmtime_r(&t, &tm))
    strftime(buf, cap, "%Y.%m.%d", &tm);
}

void ref_record_tag(struct base_buf *out, const char *name, const char *value)
{
  const char *p;
  /* a failure sticks in out: ref_record_movetext_out, written after the
   * tags, reports it */
  if(base_buf_printf(out, "[%s \"", name))
    return;
  for(p = value; *p; p++) /* PGN 8.1.1, PDN 3.0 STRING: quote and backslash are escaped */
    if(base_buf_printf(out, "%s%c", (*p == '"' || *p == '\\') ? "\\" : "", *p))
      return;
  if(base_buf_puts(out, "\"]\n"))
    return;
}

int ref_record_word(struct ref_rec_text *t, const char *w)
{
  size_t len = strlen(w);
  /* export format: lines of at most 79 characters (PGN standard 8.2.6) */
  if(t->col && t->col + 1 + len > 79) {
    if(base_buf_puts(t->text, "\n"))
      return -1;
    t->col = 0;
  }
  if(base_buf_printf(t->text, "%s%s", t->col ? " " : "", w))
    return -1;
  t->col += (t->col ? 1 : 0) + len;
  return 0;
}

int ref_record_comment(struct ref_rec_text *t, const char *text)
{
  char w[420];
  /* braces end a comment in PGN and PDN: none may appear inside one */
  snprintf(w, sizeof(w), "{%s}", text);
  for(char *p = w + 1; *p && p[1]; p++)
    if(*p == '{' || *p == '}')
      *p = '(';
  t->need_number = 1;
  return ref_record_word(t, w);
}

int ref_record_note(struct ref_rec_text *t, const struct ref_game_ctx *r,
                    const struct ref_rec_step *st)
{
  const struct store_entry *e = st->e;
  char w[400];
  if(!strcmp(e->kind, "action") || !strcmp(e->kind, "offer")) {
    ref_record_deed(w, sizeof(w), seat_name(r, st->actor), e->text);
    return ref_record_comment(t, w);
  }
  if(!strcmp(e->kind, "adjudicate"))
    return ref_record_comment(t, "adjudicated by the operator");
  if(!strcmp(e->kind, "timeout"))
    return ref_record_comment(t, "lost on time");
  if(!strcmp(e->kind, "undo")) { /* The move itself is not in the movetext */
    ref_record_takeback(w, sizeof(w), seat_name(r, st->actor), e);
    return ref_record_comment(t, w);
  }
  return 0;
}

int ref_record_move(struct ref_rec_text *t, const struct ref_rec_step *st, const char *move)
{
  char w[32];
  if(st->turn == 0) {
    snprintf(w, sizeof(w), "%d.", st->move_number);
    if(ref_record_word(t, w))
      return -1;
  }
  else if(t->need_number) {
    snprintf(w, sizeof(w), "%d...", st->move_number);
    if(ref_record_word(t, w))
      return -1;
  }
  t->need_number = 0;
  return ref_record_word(t, move);
}

/* ---- the dice lines every dice game's record carries ---- */

int ref_record_dice(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                    unsigned flags)
{
  /* dice-protocol.md: the commitment, the entropy and every roll, as the
   * mails showed them, so tools/tabula-verify-dice.py checks the export */
  struct base_buf dice;
  int nrolls = 0, rc = 0;
  if(!(g->desc->flags & REF_GAME_DICE))
    return 0;
  base_buf_init(&dice, 64u * 1024u * 1024u);
  /* a record without the dice it should have is no record: a failure to
   * read them fails the export */
  switch(ref_dice_transcript(svc, g, &dice, &nrolls, (flags & REF_EXPORT_PUBLIC) != 0)) {
  case 0:
    if(dice.s)
      rc = base_buf_puts(out, dice.s);
    break;
  case 1: break; /* no dice committed (yet) */
  default: rc = -1; break;
  }
  base_buf_free(&dice);
  return rc;
}

static int movetext_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct ref_rec_movetext *m = arg;
  const struct store_entry *e = st->e;

  if(!strcmp(e->kind, "start"))
    return r->desc->ops->encode(r->state, m->start, sizeof(m->start)) == REF_OK ? 0 : -1;
  if(!strcmp(e->kind, "move"))
    return m->move(&m->t, r, st);
  return ref_record_note(&m->t, r, st);
}

int ref_record_movetext(struct ref_service *svc, struct ref_game_ctx *g,
                        struct ref_rec_movetext *m)
{
  base_buf_init(&m->moves, 4u * 1024u * 1024u);
  m->t.text = &m->moves;
  m->t.col = 0;
  m->t.need_number = 1;
  m->start[0] = '\0';
  if(ref_record_walk(svc, g, movetext_step, m, NULL) || ref_record_end(svc, g, &m->end)) {
    base_buf_free(&m->moves);
    return -1;
  }
  return 0;
}

int ref_record_movetext_out(struct ref_rec_movetext *m, struct base_buf *out, const char *last)
{
  int rc = -1;
  /* the tags' failures too (ref_record_tag) */
  if(!base_buf_puts(out, "\n") && !ref_record_word(&m->t, last) &&
     !base_buf_printf(out, "%s\n\n", m->moves.s ? m->moves.s : ""))
    rc = 0;
  base_buf_free(&m->moves);
  return rc;
}

const char *ref_record_referee(const struct ref_service *svc, unsigned flags)
{
  const char *at = strrchr(svc->cfg.address, '@');
  return (flags & REF_EXPORT_PUBLIC) && at ? at + 1 : svc->cfg.address;
}

void ref_record_head(struct ref_service *svc, const struct ref_game_ctx *g, struct base_buf *out,
                     unsigned flags)
{
  char date[16], event[64];
  ref_record_date(g, date, sizeof(date));
  snprintf(event, sizeof(event), "tabula game %lld", (long long)g->row.id);
  ref_record_tag(out, "Event", event);
  ref_record_tag(out, "Site", ref_record_referee(svc, flags));
  ref_record_tag(out, "Date", date);
}

const char *ref_record_result(const struct ref_rec_end *end)
{
  if(!end->over)
    return "*";
  return end->winner == 0 ? "1-0" : end->winner == 1 ? "0-1" : "1/2-1/2";
}
