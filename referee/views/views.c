/*
 * views.c: what every game mail shows, and who is sent it (docs/
 * architecture.md, layer 5 "views"). One seat's view of a game: the board
 * from that seat's side, the position string, whose turn it is, the last
 * move, the "#N" guard, the dice commitment, the time control and
 * deadline (clock.c); sent to one seat, to every seat, or to the
 * observers (the first seat's side, no key). And the refusal: the input
 * quoted, the reason worded (templates/reasons.txt), the nearest legal
 * moves offered; nothing in the game changes. The handlers above say what
 * to tell; nothing here decides a game.
 */
#include "views_int.h"

#include "compete_int.h"

#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BOARD_MAX 8192

/* ---- what every game mail shows: the view of one seat ---- */

struct view {
  char game[24], seat[32], opponent[MAIL_ADDR_MAX], player[MAIL_ADDR_MAX];
  char board[BOARD_MAX], position[600], status[400], last_move[160], result[96];
  char commitment[200], guard[24], salt[120];
  char time_control[160], move_deadline[120], time_left[200]; /* clock.c */
  int64_t deadline;                         /* the reader's, when set */
  int calendar;                             /* the reader asked for events */
  char ics[2048];                           /* the event (RFC 5545) */
  char autoroll[200];                       /* a standing "roll", to the player who wrote it */
  char match[600];                          /* a backgammon match's score (match.c) */
  char link[400];                           /* the game's web page (site_url) */
  char prepared[2048];                      /* the reader's prepared lines */
  char comment_note[400];                   /* the sender's words were not passed */
  char observer_comment[4096];              /* the words as observers see them (rules-spec G-3) */
  struct base_buf observer_events;           /* what happened, as observers see it (G-3) */
  struct ref_diagram diagram;               /* the board as data: the HTML part */
  int has_diagram;
  struct tpl_var vars[40];
  size_t n;
};

int ref_game_link(struct ref_service *svc, const struct ref_game_ctx *g, char *buf, size_t cap)
{
  const char *url = svc->cfg.site_url;
  size_t len = strlen(url);
  int priv;
  buf[0] = '\0';
  if(!len)
    return 0;
  /* a private game (new GAME private) has no page */
  if((priv = ref_game_private(svc, g->row.id)) != 0)
    return priv < 0 ? -1 : 0;
  if(base_format(buf, cap, "%s%sgame-%lld.html", url, url[len - 1] == '/' ? "" : "/",
                 (long long)g->row.id))
    buf[0] = '\0'; /* no link rather than a cut one (base_format leaves "") */
  return 0;
}

static void add_var(struct view *v, const char *name, const char *value)
{
  v->vars[v->n].name = name;
  v->vars[v->n].value = value;
  v->n++;
}

/* The clock's lines (rules-spec TM-6): the control; to the seat that must
 * act, its deadline in UTC and, when the reader set a time zone, in that
 * zone's time too, and both seats' time left. */
static int clock_lines(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, struct view *v)
{
  struct ref_clock_shown ck;
  char zone[64], local[48], a[40], b[40];
  if(ref_clock_show(m->svc, g, m->arrived, &ck))
    return -1;
  snprintf(v->time_control, sizeof(v->time_control), "%s", ck.control);
  if(seat < 0 || seat != ck.running)
    return 0;
  ref_time_text(v->move_deadline, sizeof(v->move_deadline), ck.deadline);
  v->deadline = ck.deadline;
  {
    bool on = false;
    if(store_calendar_get(m->svc->st, &on, g->seats[seat].address) != STORE_OK)
      return -1;
    v->calendar = on;
  }
  if(store_timezone_get(m->svc->st, zone, sizeof(zone), g->seats[seat].address) != STORE_OK)
    return -1;
  ref_zone_time_text(local, sizeof(local), REF_ZONEINFO_DIR, zone, ck.deadline);
  if(local[0])
    snprintf(v->move_deadline + strlen(v->move_deadline),
             sizeof(v->move_deadline) - strlen(v->move_deadline), ",\n%s in %s", local, zone);
  ref_duration_text(a, sizeof(a), ck.left[0]);
  ref_duration_text(b, sizeof(b), ck.left[1]);
  snprintf(v->time_left, sizeof(v->time_left), "%s %s, %s %s", g->desc->seat_names[0], a,
           g->desc->seat_names[1], b);
  return 0;
}

/* The sentence saying whose turn it is, or how the game ended. */
static void status_sentence(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                            char *buf, size_t cap)
{
  const char *dir = m->svc->cfg.templates_dir;
  struct ref_status s;
  struct tpl_var vars[3];
  char result[96], name[64];

  if(!g->started) {
    tpl_line(buf, cap, dir, "phrases.txt", "not-started", NULL, 0);
    return;
  }
  g->desc->ops->status(g->state, &s);
  if(s.phase == REF_PHASE_OVER || g->row.phase == STORE_GAME_FINISHED) {
    /* a loss on time (clock.c) ends the game outside the rules */
    if(s.phase == REF_PHASE_OVER)
      ref_result_text(result, sizeof(result), g->desc, &s);
    else
      snprintf(result, sizeof(result), "%s", g->row.result);
    vars[0].name = "result";
    vars[0].value = result;
    tpl_line(buf, cap, dir, "phrases.txt", "over", vars, 1);
    return;
  }
  vars[0].name = "seat";
  vars[0].value = g->desc->seat_names[s.turn];
  vars[1].name = "player";
  vars[1].value = g->seats[s.turn].address;
  /* rules-spec G-3: an observer (seat < 0) sees the player as the web
   * view names them, never the address */
  if(seat < 0) {
    ref_public_name(g->seats[s.turn].address, name, sizeof(name));
    vars[1].value = name;
  }
  vars[2].name = "check";
  vars[2].value = s.in_check ? " (in check)" : "";
  {
    const char *key = s.turn == seat ? "your-turn" : "their-turn";
    if(s.phase == REF_PHASE_CUBE)
      key = s.turn == seat ? "your-cube" : "their-cube";
    else if(s.phase == REF_PHASE_CUBE_REPLY)
      key = s.turn == seat ? "your-cube-reply" : "their-cube-reply";
    tpl_line(buf, cap, dir, "phrases.txt", key, vars, 3);
  }
}

/* text without its lines "Dice entropy: game G eK ..." (E stays). */
static void without_entropy_lines(const char *text, struct base_buf *out)
{
  static const char prefix[] = "Dice entropy: game ";
  const char *p = text;
  base_buf_init(out, 64u * 1024u);
  while(*p) {
    const char *eol = strchr(p, '\n'), *next = eol ? eol + 1 : p + strlen(p);
    const char *q = p + strlen(prefix);
    int skip = !strncmp(p, prefix, strlen(prefix));
    if(skip) {
      q += strspn(q, "0123456789");
      skip = q[0] == ' ' && q[1] == 'e';
    }
    /* out holds no more than text (the events' own ceiling, 64 KiB), so
     * this fails only when memory does; then the observer sees no events
     * rather than some of them */
    if(!skip && base_buf_add(out, p, (size_t)(next - p))) {
      base_buf_free(out);
      return;
    }
    p = next;
  }
}

/* -1 when something the view shows cannot be read from the store: the
 * mail is not sent without it (the message fails and is retried). */
static int build_view(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      struct view *v)
{
  int version = 0, autoroll = 0;
  /* the observers' view (seat < 0) has no player and no opponent */
  int other = g->nseats == 2 && seat >= 0 ? 1 - seat : -1;
  memset(v, 0, sizeof(*v));
  snprintf(v->game, sizeof(v->game), "%lld", (long long)g->row.id);
  snprintf(v->seat, sizeof(v->seat), "%s", seat >= 0 ? g->desc->seat_names[seat] : "");
  if(seat >= 0)
    snprintf(v->player, sizeof(v->player), "%s", g->seats[seat].address);
  if(other >= 0)
    snprintf(v->opponent, sizeof(v->opponent), "%s", g->seats[other].address);
  if((g->started || g->preview) && g->state) {
    size_t len;
    if(g->desc->ops->render(g->state, seat < 0 ? 0 : seat, v->board, sizeof(v->board)) !=
       REF_OK)
      v->board[0] = '\0';
    /* the template places the board; its own line ends are enough */
    len = strlen(v->board);
    while(len && v->board[len - 1] == '\n')
      v->board[--len] = '\0';
    g->desc->ops->encode(g->state, v->position, sizeof(v->position));
    /* the board as data for the HTML part, when the game has it */
    if(m->svc->cfg.html && g->desc->ops->diagram &&
       g->desc->ops->diagram(g->state, seat < 0 ? 0 : seat, &v->diagram) == REF_OK)
      v->has_diagram = 1;
    if(g->started) {
      /* "#N" as the guard reads it: ops->status move_number */
      struct ref_status st;
      g->desc->ops->status(g->state, &st);
      if(st.phase != REF_PHASE_OVER)
        snprintf(v->guard, sizeof(v->guard), "#%d", st.move_number);
    }
  }
  status_sentence(m, g, seat, v->status, sizeof(v->status));
  snprintf(v->last_move, sizeof(v->last_move), "%s", g->played[0] ? g->played : g->last_move);
  snprintf(v->result, sizeof(v->result), "%s", g->row.result);
  if(ref_game_link(m->svc, g, v->link, sizeof(v->link)))
    return -1;
  add_var(v, "game", v->game);
  add_var(v, "title", g->desc->title);
  add_var(v, "seat", v->seat);
  add_var(v, "player", v->player);
  add_var(v, "opponent", v->opponent);
  add_var(v, "board", v->board);
  add_var(v, "position", v->position);
  add_var(v, "status", v->status);
  add_var(v, "last_move", v->last_move);
  add_var(v, "result", v->result);
  /* rules-spec G-3, G-4: a tabula-dice-1 game's entropy lines are the
   * players' Message-IDs; an observer's copy of what happened leaves
   * them out (a tabula-dice-2 game's are digests, shown to all) */
  if(seat < 0 && m->events.s && (g->desc->flags & REF_GAME_DICE) &&
     strstr(m->events.s, "Dice entropy: ") && (version = ref_dice_version(m->svc, g->row.id)) < 0)
    return -1;
  if(seat < 0 && m->events.s && (g->desc->flags & REF_GAME_DICE) &&
     strstr(m->events.s, "Dice entropy: ") && version != 2) {
    without_entropy_lines(m->events.s, &v->observer_events);
    add_var(v, "events", v->observer_events.s ? v->observer_events.s : "");
  }
  else
    add_var(v, "events", m->events.s ? m->events.s : "");
  if((g->desc->flags & REF_GAME_DICE) &&
     ref_dice_commitment_line(m->svc, g->row.id, v->commitment, sizeof(v->commitment)))
    return -1;
  add_var(v, "dice_commitment", v->commitment);
  add_var(v, "dice_salt", v->salt); /* send_view fills it where it is shown */
  add_var(v, "guard", v->guard);
  /* Every mail of a match game shows the match score (initials to an
   * observer, rules-spec G-3) */
  if(ref_match_line(m->svc, g, seat < 0, v->match, sizeof(v->match)) < 0)
    return -1;
  add_var(v, "match", v->match);
  if(clock_lines(m, g, seat, v))
    return -1;
  add_var(v, "time_control", v->time_control);
  add_var(v, "move_deadline", v->move_deadline);
  add_var(v, "time_left", v->time_left);
  if(seat >= 0 && (g->desc->flags & REF_GAME_DICE) &&
     (autoroll = ref_autoroll_get(m->svc, g->row.id, seat)) < 0)
    return -1;
  if(autoroll == 1)
    tpl_line(v->autoroll, sizeof(v->autoroll), m->svc->cfg.templates_dir, "phrases.txt",
             "autoroll-standing", NULL, 0);
  add_var(v, "autoroll", v->autoroll);
  /* The moves prepared lines made with this mail, shown to all
   * as moves; the reader's own lines that still wait, to the reader only */
  add_var(v, "reply", g->reply);
  if(seat >= 0 && ref_conditionals_text(m->svc, g, seat, v->prepared, sizeof(v->prepared)))
    return -1;
  add_var(v, "conditionals", v->prepared);
  return 0;
}

/* The seat's prepared lines that still wait, one a line as
 * "if Nf6 then e5"; "" when none. A branch kept for a move that came and
 * went (ply passed) no longer waits and is not shown. In a game with the
 * cube: the standing answer to the next double. */
int ref_conditionals_text(struct ref_service *svc, struct ref_game_ctx *g, int seat, char *buf,
                          size_t cap)
{
  struct store_conditional *rows = NULL;
  struct ref_status s;
  size_t n = 0, i, used = 0;
  buf[0] = '\0';
  /* a dice game's one prepared answer: to the next double */
  if(g->started && (g->desc->flags & REF_GAME_CUBE)) {
    int a = ref_cube_answer_get(svc, g->row.id, seat);
    if(a > 0)
      snprintf(buf, cap, "    if double then %s", a == REF_CUBE_ANSWER_TAKE ? "take" : "drop");
    return a < 0 ? -1 : 0;
  }
  if(!g->started || (g->desc->flags & REF_GAME_DICE) || g->nseats != 2)
    return 0;
  g->desc->ops->status(g->state, &s);
  if(s.phase != REF_PHASE_MOVE || s.turn == seat)
    return 0;
  /* a failure is no "no lines": the reader would be told none wait */
  if(store_conditional_list(svc->st, &rows, &n, g->row.id, seat) != STORE_OK)
    return -1;
  for(i = 0; i < n && used < cap; i++) {
    char *last;
    int k;
    if(rows[i].ply != g->moves || !(last = strrchr(rows[i].plies, ' ')))
      continue;
    k = snprintf(buf + used, cap - used, "%s    if %.*s then %s", used ? "\n" : "",
                 (int)(last - rows[i].plies), rows[i].plies, last + 1);
    if(k < 0 || (size_t)k >= cap - used) {
      buf[used] = '\0';
      break;
    }
    used += (size_t)k;
  }
  free(rows);
  return 0;
}

/* The sender's words to the opponent (talk.c): {comment} in
 * the first mail of this message to each other seat that has comments on
 * (and to each observer of a public-comments game); {comment_note} in the
 * sender's first mail when a seat turned comments off. A comment is only
 * ever prepared for an authenticated seat, and only the mails of an
 * accepted action carry these placeholders (never refused.txt). -1 when
 * who may read it cannot be read from the store. */
static int comment_vars(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const char *tmpl, struct view *v)
{
  const char *dir = m->svc->cfg.templates_dir, *comment = "";
  size_t s;
  int pub, off;
  if(!m->comment || !m->comment[0] || m->comment_game != g->row.id ||
     !tpl_mentions(dir, tmpl, seat == m->comment_seat ? "comment_note" : "comment")) {
    add_var(v, "comment", "");
    add_var(v, "comment_note", "");
    return 0;
  }
  if(seat < 0) {
    /* rules-spec G-3: the heading names the sender as the web view does */
    if((pub = ref_game_public_comments(m->svc, g->row.id)) < 0)
      return -1;
    if(pub == 1 &&
       !ref_comment_for_observers(m, g, v->observer_comment, sizeof(v->observer_comment)))
      comment = v->observer_comment;
  }
  else if(seat != m->comment_seat && !(m->comment_told & (1u << (seat & 31)))) {
    if((off = ref_comments_off(m->svc, g->seats[seat].address)) < 0)
      return -1;
    if(!off) {
      comment = m->comment;
      m->comment_told |= 1u << (seat & 31);
    }
  }
  else if(seat == m->comment_seat && !(m->comment_told & (1u << (seat & 31)))) {
    for(s = 0; s < g->nseats; s++) {
      if((int)s == seat)
        continue;
      if((off = ref_comments_off(m->svc, g->seats[s].address)) < 0)
        return -1;
      if(off) {
        struct tpl_var who = {"opponent", g->seats[s].address};
        tpl_line(v->comment_note, sizeof(v->comment_note), dir, "phrases.txt",
                 "comment-not-passed", &who, 1);
        m->comment_told |= 1u << (seat & 31);
        break;
      }
    }
  }
  add_var(v, "comment", comment);
  add_var(v, "comment_note", v->comment_note);
  return 0;
}

/* ---- the calendar event (rules-spec TM-10) ---- */

/* RFC 5545 3.3.11: a TEXT value's backslash, semicolon, comma, newline. */
static void ics_text(char *out, size_t cap, const char *in)
{
  size_t n = 0;
  for(; *in && n + 3 < cap; in++) {
    if(*in == '\\' || *in == ';' || *in == ',')
      out[n++] = '\\', out[n++] = *in;
    else if(*in == '\n')
      out[n++] = '\\', out[n++] = 'n';
    else if((unsigned char)*in >= 0x20)
      out[n++] = *in;
  }
  out[n] = '\0';
}

/* RFC 5545 3.3.5: a UTC date-time, "20261130T090000Z". */
static void ics_time(char *out, size_t cap, int64_t t)
{
  char date[16];
  int64_t s = t - ref_day_of(t) * REF_DAY;
  ref_date_text(date, sizeof(date), ref_day_of(t));
  snprintf(out, cap, "%.4s%.2s%.2sT%02d%02d%02dZ", date, date + 5, date + 8, (int)(s / 3600),
           (int)(s / 60 % 60), (int)(s % 60));
}

/* Appends one content line, folded at 75 octets (RFC 5545 3.1), never
 * inside a UTF-8 sequence. */
static void ics_line(char *out, size_t cap, const char *line)
{
  size_t n = strlen(out), col = 0;
  const char *p;
  for(p = line; *p && n + 4 < cap; p++) {
    if(col >= 74 && ((unsigned char)*p & 0xC0) != 0x80) {
      out[n++] = '\r', out[n++] = '\n', out[n++] = ' ';
      col = 1;
    }
    out[n++] = *p;
    col++;
  }
  if(n + 2 < cap)
    out[n++] = '\r', out[n++] = '\n';
  out[n] = '\0';
}

/* The event of the reader's deadline: one UID per game and seat, so a
 * calendar replaces the event when the deadline moves; its SEQUENCE the
 * deadline's minute since the game was made, which only grows (a move's
 * deadline comes after the one before it; leave and time given move it
 * later), as RFC 5546 2.1.4 asks of a revision. METHOD:PUBLISH, RFC 6047. */
static void calendar_event(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                           struct view *v)
{
  const char *dir = m->svc->cfg.templates_dir;
  struct tpl_var vars[4] = {{"game", v->game},
                            {"title", g->desc->title},
                            {"opponent", v->opponent},
                            {"deadline", v->move_deadline}};
  char summary[300], text[400], esc[800], line[900], start[24], end[24], stamp[24];
  v->ics[0] = '\0';
  ics_time(start, sizeof(start), v->deadline - 3600);
  ics_time(end, sizeof(end), v->deadline);
  ics_time(stamp, sizeof(stamp), ref_now(m->svc));
  ics_line(v->ics, sizeof(v->ics), "BEGIN:VCALENDAR");
  ics_line(v->ics, sizeof(v->ics), "VERSION:2.0");
  ics_line(v->ics, sizeof(v->ics), "PRODID:-//tabula//correspondence referee//EN");
  ics_line(v->ics, sizeof(v->ics), "METHOD:PUBLISH");
  ics_line(v->ics, sizeof(v->ics), "BEGIN:VEVENT");
  snprintf(line, sizeof(line), "UID:tabula-game-%lld-seat-%d@%s", (long long)g->row.id, seat,
           m->svc->cfg.domain);
  ics_line(v->ics, sizeof(v->ics), line);
  snprintf(line, sizeof(line), "SEQUENCE:%lld",
           (long long)((v->deadline - g->row.created) / 60 > 0 ? (v->deadline - g->row.created) / 60
                                                                : 0));
  ics_line(v->ics, sizeof(v->ics), line);
  snprintf(line, sizeof(line), "DTSTAMP:%s", stamp);
  ics_line(v->ics, sizeof(v->ics), line);
  snprintf(line, sizeof(line), "DTSTART:%s", start);
  ics_line(v->ics, sizeof(v->ics), line);
  snprintf(line, sizeof(line), "DTEND:%s", end);
  ics_line(v->ics, sizeof(v->ics), line);
  tpl_line(summary, sizeof(summary), dir, "phrases.txt", "calendar-summary", vars, 4);
  ics_text(esc, sizeof(esc), summary);
  snprintf(line, sizeof(line), "SUMMARY:%s", esc);
  ics_line(v->ics, sizeof(v->ics), line);
  tpl_line(text, sizeof(text), dir, "phrases.txt", "calendar-description", vars, 4);
  ics_text(esc, sizeof(esc), text);
  snprintf(line, sizeof(line), "DESCRIPTION:%s", esc);
  ics_line(v->ics, sizeof(v->ics), line);
  ics_line(v->ics, sizeof(v->ics), "BEGIN:VALARM");
  ics_line(v->ics, sizeof(v->ics), "ACTION:DISPLAY");
  ics_line(v->ics, sizeof(v->ics), "TRIGGER;RELATED=END:-PT24H");
  snprintf(line, sizeof(line), "DESCRIPTION:%s", esc);
  ics_line(v->ics, sizeof(v->ics), line);
  ics_line(v->ics, sizeof(v->ics), "END:VALARM");
  ics_line(v->ics, sizeof(v->ics), "END:VEVENT");
  ics_line(v->ics, sizeof(v->ics), "END:VCALENDAR");
}

/* ---- to whom ---- */

/* Template `tmpl` with seat's view (-1: the observers' view) plus extras,
 * to `to`. */
static int send_view(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *to,
                     const char *tmpl, const struct tpl_var *extra, size_t nextra,
                     const struct mail_part *files, size_t nfiles)
{
  struct view *v = malloc(sizeof(*v));
  struct ref_reply_extra x;
  struct mail_part ics;
  char name[48];
  size_t i;
  int rc;
  if(!v)
    return -1;
  /* what the mail shows, or no mail: a store failure fails the message
   * (retried), never a mail that leaves out what could not be read */
  if(build_view(m, g, seat, v) || comment_vars(m, g, seat, tmpl, v) ||
     /* tabula-dice-2: the salt that keys a Message-ID's entropy, to the
      * players alone (rules-spec G-4): never an observer, never the
      * site; only looked up for a template that shows it (start.txt) */
     (seat >= 0 && (g->desc->flags & REF_GAME_DICE) &&
      tpl_mentions(m->svc->cfg.templates_dir, tmpl, "dice_salt") &&
      ref_dice_salt_line(m->svc, g->row.id, v->salt, sizeof(v->salt)))) {
    base_buf_free(&v->observer_events);
    free(v);
    return -1;
  }
  for(i = 0; i < nextra && v->n < sizeof(v->vars) / sizeof(v->vars[0]); i++)
    v->vars[v->n++] = extra[i];
  memset(&x, 0, sizeof(x));
  x.diagram = v->has_diagram ? &v->diagram : NULL;
  x.link = v->link;
  x.attach = files;
  x.nattach = nfiles;
  /* TM-10: the reader's deadline as an event, when asked for */
  if(seat >= 0 && v->calendar && v->move_deadline[0] && !nfiles) {
    calendar_event(m, g, seat, v);
    snprintf(name, sizeof(name), "tabula-game-%lld.ics", (long long)g->row.id);
    ics.filename = name;
    ics.type = "text/calendar; method=PUBLISH";
    ics.data = v->ics;
    ics.len = strlen(v->ics);
    x.attach = &ics;
    x.nattach = 1;
  }
  rc = ref_reply_ex(m, g, seat, to, tmpl, v->vars, v->n, &x);
  base_buf_free(&v->observer_events);
  free(v);
  return rc;
}

int ref_tell_seat(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *tmpl,
                  const struct tpl_var *extra, size_t nextra)
{
  return send_view(m, g, seat, g->seats[seat].address, tmpl, extra, nextra, NULL, 0);
}

/* The end of a game to every player, the record attached: the
 * file other programs read (record.c: PGN, PDN, .mat, or the transcript). */
int ref_tell_result(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                    const struct tpl_var *extra, size_t nextra)
{
  const struct ref_export_kind *k = ref_export_kind(g->desc);
  struct base_buf record;
  struct mail_part file = {0};
  char name[64];
  size_t s, nfiles = 0;
  int rc = 0;

  base_buf_init(&record, 4u * 1024u * 1024u);
  if(!ref_game_export(m->svc, g, &record, 0) && record.s) {
    snprintf(name, sizeof(name), "tabula-game-%lld.%s", (long long)g->row.id, k->ext);
    file.filename = name;
    file.type = k->mime;
    file.data = record.s;
    file.len = record.len;
    nfiles = 1;
  }
  for(s = 0; s < g->nseats && !rc; s++)
    rc = send_view(m, g, (int)s, g->seats[s].address, tmpl, extra, nextra, &file, nfiles);
  base_buf_free(&record);
  return rc;
}

int ref_tell_all(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                 const struct tpl_var *extra, size_t nextra)
{
  size_t s;
  for(s = 0; s < g->nseats; s++)
    if(ref_tell_seat(m, g, (int)s, tmpl, extra, nextra))
      return -1;
  return 0;
}

/* observe GAME: each observer gets the board from the first seat's side,
 * with no key and no tokened Reply-To, so nothing it sends can act. */
int ref_tell_observer(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *to,
                      const char *tmpl, const struct tpl_var *extra, size_t nextra)
{
  return send_view(m, g, -1, to, tmpl, extra, nextra, NULL, 0);
}

int ref_tell_observers(struct ref_msg_ctx *m, struct ref_game_ctx *g, const char *tmpl,
                       const struct tpl_var *extra, size_t nextra)
{
  char list[32 * 260], *save = NULL, *tok;
  if(ref_observers(m->svc, g->row.id, list, sizeof(list)))
    return -1;
  for(tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
    if(ref_tell_observer(m, g, tok, tmpl, extra, nextra))
      return -1;
  return 0;
}

/* ---- refusals ---- */

/* A refusal: quotes the input, says why, offers the nearest legal moves.
 * Nothing in the game changes (the caller has not touched it). */
enum ref_rc ref_rc_of(const struct ref_msg_ctx *m, int rc)
{
  return rc ? REF_RC_FAIL : m->refused ? REF_RC_REFUSED : REF_RC_OK;
}

int ref_refuse(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *input,
               const char *reason, const char *detail, const struct ref_err *err)
{
  const char *dir = m->svc->cfg.templates_dir;
  char why[512];
  struct base_buf sugg;
  struct tpl_var extra[9];
  char help[8] = "";
  int rc, i, lines = 0;

  tpl_reason(why, sizeof(why), dir, reason, detail);
  /* Unknown words are answered with help, never guessed */
  if((err && err->code == REF_EPARSE) || !strcmp(reason, "unreadable") ||
     !strcmp(reason, "no-command") || !strcmp(reason, "no-game-tag"))
    snprintf(help, sizeof(help), "yes"); /* refused.txt lists the commands */
  /* A move written in parts (Doublemove's "e2-e4,Nf3", backgammon's
   * "13/7 8/7") is not joined to the next with ", ": one a line, indented
   * as a line to copy (monospace, never split, in the HTML part). */
  for(i = 0; err && i < err->nsuggest; i++)
    if(strpbrk(err->suggest[i], ", "))
      lines = 1;
  base_buf_init(&sugg, 4096);
  /* the suggestions are a few short moves: were they ever past the
   * ceiling, the refusal goes without them rather than with some */
  for(i = 0; err && i < err->nsuggest; i++)
    if(base_buf_printf(&sugg, "%s%s", lines ? (i ? "\n    " : "    ") : (i ? ", " : ""),
                       err->suggest[i])) {
      base_buf_free(&sugg);
      break;
    }
  extra[0].name = "input";
  extra[0].value = input;
  extra[1].name = "reason";
  extra[1].value = why;
  extra[2].name = "suggestions";
  extra[2].value = sugg.s && !lines ? sugg.s : "";
  extra[3].name = "suggestion_lines";
  extra[3].value = sugg.s && lines ? sugg.s : "";
  extra[4].name = "help";
  extra[4].value = help;
  /* no game: the game's placeholders are empty, not left as written */
  extra[5].name = "board";
  extra[5].value = "";
  extra[6].name = "status";
  extra[6].value = "";
  extra[7].name = "match"; /* a backgammon match's line: none without a game */
  extra[7].value = "";
  /* no game, so refused.txt does not say "nothing has changed in the
   * game" (its {?game} line) to a mail that concerned none */
  extra[8].name = "game";
  extra[8].value = "";
  m->refused = 1;
  if(g && seat >= 0)
    rc = ref_tell_seat(m, g, seat, "refused.txt", extra, 5);
  else
    rc = ref_reply(m, NULL, -1, m->mail->from, "refused.txt", extra, 9);
  base_buf_free(&sugg);
  return rc;
}

/* Whether the sender may be answered: it holds a seat in some game, or
 * has answered one of our mails (optin.c). */
int ref_known_player(struct ref_service *svc, const char *address)
{
  return ref_stranger(svc, address) == 0;
}

/* A refusal to a mail that names no game of the sender's: a player of
 * some game or a confirmed address is told why, a stranger hears nothing
 * (no backscatter). */
int ref_refuse_player(struct ref_msg_ctx *m, const char *input, const char *reason,
                      const char *detail)
{
  if(ref_known_player(m->svc, m->mail->from))
    return ref_refuse(m, NULL, -1, input, reason, detail, NULL);
  m->refused = 1;
  return 0;
}

int ref_refuse_request(struct ref_msg_ctx *m, const char *input, const char *reason,
                       const char *detail)
{
  switch(ref_stranger_answer(m, "a refusal")) {
  case -1: return -1;
  case 0: return 0; /* over the budget: m->refused set, nothing sent */
  default: return ref_refuse(m, NULL, -1, input, reason, detail, NULL);
  }
}
