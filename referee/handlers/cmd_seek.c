/*
 * cmd_seek.c: finding a game (as pbmserv's `seek`): `seek GAME
 * [as SEAT] [days=N] [weekends=on|off] [rated|unrated] [private]
 * [public-comments] [key=value ...]` (read as new's are, terms.c) mailed to the referee's plain address, `seeks`, `seek
 * cancel [N]` / `unseek [N]`; the tick's expiry of open seeks. Layer 6,
 * "handlers" (docs/architecture.md).
 *
 * Only a confirmed address may seek: from any other the line
 * is only stored as a confirmation request (kind "new", as `new` and
 * `tournament` are; cmd_confirm.c runs it again when the answer comes),
 * so a forged From makes tabula mail nobody but that address, once.
 *
 * A seek's terms are its game system, the rules' options, the days per
 * move, weekends, rated or not, `private` and `public-comments`; `as SEAT` is a wish, not a
 * term. A seek whose terms equal those of an open seek of another address
 * pairs with the oldest such at once and STARTS the game: both addresses
 * are confirmed and asked for it, so there is no invitation round. Who
 * plays which side (decided here, deterministic): a seat asked for with
 * `as` is given to who asked (the older seek's wish first; two seeks that
 * ask for the same side do not match); without a wish the older seek's
 * author plays the first seat (White), as the inviter does in `new`. Dice
 * games: the chain is drawn and E fixed in the same transaction, from each
 * seat's entropy as when every seat accepted without entropy text: the
 * older seat's is "seek N" (its seek's number; the mail that made it is
 * not kept), the newer's the Message-ID of the mail that paired them.
 *
 * `seeks` shows every open seek by number and terms, never an address;
 * the reader's own are marked. A confirmed address holds at most
 * SEEKS_MAX open seeks, and the same seek twice is answered with the
 * number of the one already open. Open seeks expire after seek_days.
 */
#include "handlers_int.h"

#include "log.h"
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Open seeks one address may hold at once. */
#define SEEKS_MAX 4

/* A seek as read from its line. */
struct seek_terms {
  const struct ref_game_desc *d;
  int seat;        /* the side asked for with `as`, -1 for none */
  int days, weekends, rated, priv, pub;
  char control[64]; /* the clock's time=/double= words (clock.c) */
  char opts[256];  /* the rules' options, "key=value;..." */
  char terms[256]; /* what must match: [private;][public-comments;][weekends=off;][time=...;]opts */
  char stored[256];/* the seeks.options column: [as=SEAT;]terms */
};

/* The terms of a stored seek, less its `as=SEAT` wish; *seat the wish or -1. */
static const char *stored_terms(const struct store_seek *s, const struct ref_game_desc *d,
                                int *seat)
{
  const char *p = s->options;
  int i;
  *seat = -1;
  if(strncmp(p, "as=", 3))
    return p;
  p += 3;
  for(i = 0; d && i < d->seats; i++) {
    size_t n = strlen(d->seat_names[i]);
    if(!strncasecmp(p, d->seat_names[i], n) && (p[n] == ';' || !p[n]))
      *seat = i;
  }
  p += strcspn(p, ";");
  return *p ? p + 1 : p;
}

static int append(char *buf, size_t cap, const char *word)
{
  size_t used = strlen(buf);
  if(used + strlen(word) + 2 > cap)
    return -1;
  snprintf(buf + used, cap - used, "%s%s", used ? ";" : "", word);
  return 0;
}

/* Reads c into t. 0 done; else the refusal was sent (or -1 on an error),
 * returned through *rc. */
static int read_terms(struct ref_msg_ctx *m, const struct ref_cmd *c, struct seek_terms *t,
                      int *rc)
{
  struct ref_service *svc = m->svc;
  char copy[256], *save = NULL, *tok, words[160] = "";
  struct ref_terms w;
  struct ref_err err;
  int weekends;

  memset(t, 0, sizeof(*t));
  t->seat = -1;
  t->rated = 1;
  t->d = ref_game_find(c->arg);
  *rc = 0;
  if(!t->d || t->d->seats != 2)
    return *rc = ref_refuse(m, NULL, -1, c->line, "unknown-game", c->arg, NULL), 1;
  if(c->nwith)
    return *rc = ref_refuse(m, NULL, -1, c->line, "seek-with", "", NULL), 1;
  if(c->options_cut)
    return *rc = ref_refuse(m, NULL, -1, c->line, "options-too-long", "", NULL), 1;
  /* the terms, read as new's are (terms.c) */
  ref_terms_init(&w);
  snprintf(copy, sizeof(copy), "%s", c->options);
  memset(&err, 0, sizeof(err));
  for(tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
    switch(ref_terms_word(t->d, &w, tok, &err)) {
    case REF_RC_OK: break;
    case REF_RC_PASS: return *rc = ref_refuse(m, NULL, -1, c->line, "bad-option", tok, NULL), 1;
    default: return *rc = ref_refuse(m, NULL, -1, c->line, err.reason, err.detail, NULL), 1;
    }
  t->seat = w.seat;
  t->priv = w.priv;
  t->pub = w.pub;
  t->rated = !w.unrated;
  t->days = w.days;
  weekends = w.weekends;
  snprintf(t->control, sizeof(t->control), "%s", w.control);
  snprintf(t->opts, sizeof(t->opts), "%s", w.opts);
  /* The options must make a game before anyone is paired for it. */
  switch(ref_terms_check(t->d, t->opts, &err)) {
  case REF_RC_OK: break;
  case REF_RC_REFUSED:
    return *rc = ref_refuse(m, NULL, -1, c->line, err.reason, err.detail, NULL), 1;
  default: return *rc = -1, 1;
  }
  /* Terms compare as resolved: no days=N is the default's days, so two
   * seeks that mean the same game match however they were written. */
  if(!t->days)
    t->days = svc->cfg.days_per_move;
  t->weekends = weekends < 0 ? svc->cfg.weekends : weekends;
  if(t->priv)
    append(words, sizeof(words), "private");
  if(t->pub)
    append(words, sizeof(words), "public-comments");
  if(!t->weekends)
    append(words, sizeof(words), "weekends=off");
  if(t->control[0])
    append(words, sizeof(words), t->control);
  snprintf(t->terms, sizeof(t->terms), "%s", words);
  if(t->opts[0] && append(t->terms, sizeof(t->terms), t->opts))
    return *rc = ref_refuse(m, NULL, -1, c->line, "options-too-long", "", NULL), 1;
  t->stored[0] = '\0';
  if(t->seat >= 0) {
    char as[40];
    snprintf(as, sizeof(as), "as=%s", t->d->seat_names[t->seat]);
    append(t->stored, sizeof(t->stored), as);
  }
  if(t->terms[0] && append(t->stored, sizeof(t->stored), t->terms))
    return *rc = ref_refuse(m, NULL, -1, c->line, "options-too-long", "", NULL), 1;
  return 0;
}

/* A seek's terms as a player reads them: "Chess, 7 days per move,
 * rated, fide_draws=off"; with `own`, the side asked for as "you play
 * Black", else "the seeker plays Black". */
static void describe(char *buf, size_t cap, const struct store_seek *s, int own)
{
  const struct ref_game_desc *d = ref_game_find(s->kind);
  const char *terms;
  char copy[256], *save = NULL, *tok;
  int seat;

  terms = stored_terms(s, d, &seat);
  /* a time=... word among the terms says the control (TM-2) */
  if(strstr(terms, "time="))
    snprintf(buf, cap, "%s, %s", d ? d->title : s->kind, s->rated ? "rated" : "unrated");
  else
    snprintf(buf, cap, "%s, %d day%s per move, %s", d ? d->title : s->kind, s->days,
             s->days == 1 ? "" : "s", s->rated ? "rated" : "unrated");
  snprintf(copy, sizeof(copy), "%s", terms);
  for(tok = strtok_r(copy, ";", &save); tok; tok = strtok_r(NULL, ";", &save))
    snprintf(buf + strlen(buf), cap - strlen(buf), ", %s", tok);
  if(seat >= 0 && d)
    snprintf(buf + strlen(buf), cap - strlen(buf), ", %s %s", own ? "you play" : "the seeker plays",
             d->seat_names[seat]);
}

/* The seats of a pairing of `older` (its wish `older_seat`) and the new
 * seek (its wish `newer_seat`): the address at each seat. 0 when they
 * can be paired, -1 when both asked for the same side. */
static int seats_of(int older_seat, int newer_seat, const char *older, const char *newer,
                    const char *at[2])
{
  int o;
  if(older_seat >= 0 && older_seat == newer_seat)
    return -1;
  o = older_seat >= 0 ? older_seat : newer_seat >= 0 ? 1 - newer_seat : 0;
  at[o] = older;
  at[1 - o] = newer;
  return 0;
}

/* The game of `older` and this mail's seek `t`: made, both seats
 * accepted, started; both seeks closed as paired with it. */
static int pair(struct ref_msg_ctx *m, const struct seek_terms *t, const struct store_seek *older,
                const char *at[2])
{
  struct ref_service *svc = m->svc;
  struct ref_game_ctx g;
  struct store_seek mine;
  char text[600], entropy[40];
  int64_t newer_id = 0;
  int newer_seat = !strcasecmp(at[0], m->mail->from) ? 0 : 1, rc = -1;

  /* the new seek is recorded too, paired at once: the table tells what
   * became of every seek */
  memset(&mine, 0, sizeof(mine));
  snprintf(mine.address, sizeof(mine.address), "%s", m->mail->from);
  snprintf(mine.kind, sizeof(mine.kind), "%s", t->d->name);
  snprintf(mine.options, sizeof(mine.options), "%s", t->stored);
  mine.days = t->days;
  mine.rated = t->rated;
  mine.created = ref_now(svc);
  mine.expires = mine.created;
  if(store_seek_put(svc->st, &newer_id, &mine) != STORE_OK)
    return -1;
  snprintf(entropy, sizeof(entropy), "seek %lld", (long long)older->id);
  snprintf(text, sizeof(text), "new %s%s%s%s%s%s by %s for seeks %lld and %lld", t->d->name,
           t->priv ? " private" : "", t->rated ? "" : " unrated",
           t->pub ? " public-comments" : "", t->opts[0] ? " " : "", t->opts, older->address,
           (long long)older->id, (long long)newer_id);
  if(ref_game_create_for(svc, &g, t->d, t->opts, t->days, t->weekends, t->control, at,
                         older->address,
                         entropy, text))
    goto out;
  m->game = g.row.id;
  /* the newer seeker accepts with this mail, as an accept without
   * entropy text would (dice-protocol.md) */
  g.seats[newer_seat].accepted = true;
  if(ref_dice_seat_entropy(svc, g.row.id, NULL, m->message_id, g.seats[newer_seat].entropy,
                           sizeof(g.seats[newer_seat].entropy)) ||
     store_seat_put(svc->st, &g.seats[newer_seat]) != STORE_OK ||
     ref_journal(svc, &g, newer_seat, "accept", REF_JOURNAL_SEEK_PAIRED, NULL) ||
     ref_match_begin(svc, &g) ||
     (t->priv && ref_game_set_private(svc, g.row.id)) ||
     (t->pub && ref_game_set_public_comments(svc, g.row.id)) ||
     store_seek_close(svc->st, older->id, "paired", g.row.id) != STORE_OK ||
     store_seek_close(svc->st, newer_id, "paired", g.row.id) != STORE_OK ||
     ref_game_start_made(m, &g))
    goto out;
  m->changed = 1;
  ref_log_info("game %lld: %s started by seeks %lld and %lld", (long long)g.row.id, t->d->name,
               (long long)older->id, (long long)newer_id);
  rc = 0;
out:
  ref_game_free(&g);
  return rc;
}

static int do_seek(struct ref_msg_ctx *m, const struct ref_cmd *c)
{
  struct ref_service *svc = m->svc;
  const char *from = m->mail->from;
  struct seek_terms t;
  struct store_seek *open = NULL, s;
  struct tpl_var vars[5];
  char number[24], terms[400], expires[40], count[16];
  size_t n = 0, i, mine = 0;
  int rc;

  switch(ref_confirm_first(m, c->line)) {
  case REF_RC_OK: break;
  case REF_RC_STOP: return 0; /* asked to confirm first: nothing stored, nobody else mailed */
  default: return -1;
  }
  if(read_terms(m, c, &t, &rc))
    return rc;
  if(store_seeks_open(svc->st, &open, &n, t.d->name, NULL) != STORE_OK)
    return -1;
  /* the same seek twice is answered, not doubled */
  for(i = 0; i < n; i++)
    if(!strcasecmp(open[i].address, from) && open[i].days == t.days &&
       open[i].rated == t.rated && !strcmp(open[i].options, t.stored)) {
      snprintf(number, sizeof(number), "%lld", (long long)open[i].id);
      free(open);
      return ref_refuse(m, NULL, -1, c->line, "seek-duplicate", number, NULL);
    }
  /* the oldest open seek of another address on the same terms */
  for(i = 0; i < n; i++) {
    const char *at[2];
    int seat;
    if(strcasecmp(open[i].address, from) && open[i].days == t.days &&
       open[i].rated == t.rated && !strcmp(stored_terms(&open[i], t.d, &seat), t.terms) &&
       !seats_of(seat, t.seat, open[i].address, from, at)) {
      s = open[i];
      free(open);
      seats_of(seat, t.seat, s.address, from, at); /* into the copy */
      return pair(m, &t, &s, at);
    }
  }
  free(open);
  if(store_seeks_open(svc->st, &open, &n, NULL, from) != STORE_OK)
    return -1;
  mine = n;
  free(open);
  snprintf(count, sizeof(count), "%d", SEEKS_MAX);
  if(mine >= SEEKS_MAX)
    return ref_refuse(m, NULL, -1, c->line, "seek-limit", count, NULL);
  memset(&s, 0, sizeof(s));
  snprintf(s.address, sizeof(s.address), "%s", from);
  snprintf(s.kind, sizeof(s.kind), "%s", t.d->name);
  snprintf(s.options, sizeof(s.options), "%s", t.stored);
  s.days = t.days;
  s.rated = t.rated;
  s.created = ref_now(svc);
  s.expires = s.created + (int64_t)svc->cfg.seek_days * REF_DAY;
  if(store_seek_put(svc->st, &s.id, &s) != STORE_OK)
    return -1;
  m->changed = 1;
  snprintf(number, sizeof(number), "%lld", (long long)s.id);
  describe(terms, sizeof(terms), &s, 1);
  ref_time_text(expires, sizeof(expires), s.expires);
  snprintf(count, sizeof(count), "%zu", mine + 1);
  vars[0] = (struct tpl_var){"number", number};
  vars[1] = (struct tpl_var){"terms", terms};
  vars[2] = (struct tpl_var){"expires", expires};
  vars[3] = (struct tpl_var){"open", count};
  vars[4] = (struct tpl_var){"referee", svc->cfg.address};
  ref_log_info("seek %lld: %s by %s", (long long)s.id, c->line, from);
  return ref_reply(m, NULL, -1, from, "seek-open.txt", vars, 5);
}

static int do_seeks(struct ref_msg_ctx *m)
{
  struct ref_service *svc = m->svc;
  struct store_seek *open = NULL;
  struct base_buf list;
  struct tpl_var vars[2];
  char count[16];
  int64_t now = ref_now(svc);
  size_t n = 0, i;
  int rc = -1;

  /* the list is no one's business but players' and confirmed addresses':
   * a stranger hears nothing */
  if(!ref_known_player(svc, m->mail->from)) {
    m->refused = 1;
    return 0;
  }
  if(store_seeks_open(svc->st, &open, &n, NULL, NULL) != STORE_OK)
    return -1;
  base_buf_init(&list, 256u * 1024u);
  for(i = 0; i < n; i++) {
    char terms[400], age[40];
    int64_t days = (now - open[i].created) / REF_DAY;
    int own = !strcasecmp(open[i].address, m->mail->from);
    describe(terms, sizeof(terms), &open[i], own);
    /* the age in whole days: when a seek was made, not by whom */
    if(days < 1)
      snprintf(age, sizeof(age), "open since today");
    else
      snprintf(age, sizeof(age), "open for %lld day%s", (long long)days, days == 1 ? "" : "s");
    if(base_buf_printf(&list, "Seek %lld: %s; %s.%s\n", (long long)open[i].id, terms, age,
                      own ? " Yours." : ""))
      goto out;
  }
  if(!n && base_buf_printf(&list, "There are no open seeks.\n"))
    goto out;
  snprintf(count, sizeof(count), "%zu", n);
  vars[0] = (struct tpl_var){"seeks", list.s};
  vars[1] = (struct tpl_var){"count", count};
  rc = ref_reply(m, NULL, -1, m->mail->from, "seeks.txt", vars, 2);
out:
  base_buf_free(&list);
  free(open);
  return rc;
}

static int do_unseek(struct ref_msg_ctx *m, const struct ref_cmd *c, int guard)
{
  struct ref_service *svc = m->svc;
  struct store_seek *open = NULL;
  struct base_buf list;
  struct tpl_var vars[1];
  long long want = 0;
  char which[48] = "";
  size_t n = 0, i, done = 0;
  int rc = -1;

  /* "seek cancel #3": the number was read as the mail's "#N" guard
   * (commands.c); it names the seek, and must not widen the cancel to
   * every seek of the sender's */
  if(!c->arg[0] && guard > 0) {
    want = guard;
    snprintf(which, sizeof(which), " %d", guard);
  }
  else if(c->arg[0]) {
    char *end;
    want = strtoll(c->arg, &end, 10);
    snprintf(which, sizeof(which), " %.40s", c->arg);
    if(want <= 0 || *end)
      return ref_refuse_player(m, c->line, "seek-none", which);
  }
  if(store_seeks_open(svc->st, &open, &n, NULL, m->mail->from) != STORE_OK)
    return -1;
  base_buf_init(&list, 64u * 1024u);
  for(i = 0; i < n; i++) {
    char terms[400];
    if(want && open[i].id != want)
      continue;
    if(store_seek_close(svc->st, open[i].id, "withdrawn", 0) != STORE_OK)
      goto out;
    describe(terms, sizeof(terms), &open[i], 1);
    if(base_buf_printf(&list, "Seek %lld: %s\n", (long long)open[i].id, terms))
      goto out;
    done++;
  }
  if(!done) {
    rc = ref_refuse_player(m, c->line, "seek-none", which);
    goto out;
  }
  m->changed = 1;
  vars[0] = (struct tpl_var){"seeks", list.s};
  rc = ref_reply(m, NULL, -1, m->mail->from, "seek-withdrawn.txt", vars, 1);
out:
  base_buf_free(&list);
  free(open);
  return rc;
}

int ref_seek_expire(struct ref_service *svc, int64_t id, int64_t now, int *did)
{
  struct ref_msg_ctx m;
  struct store_seek s;
  struct tpl_var vars[3];
  char number[24], terms[400], days[24];
  int rc;

  *did = 0;
  /* read again inside the transaction: paired or withdrawn since, or not
   * yet due, it is left alone */
  rc = store_seek_get(svc->st, &s, id);
  if(rc == STORE_ENOTFOUND)
    return 0;
  if(rc != STORE_OK)
    return -1;
  if(strcmp(s.phase, "open") || s.expires > now)
    return 0;
  if(store_seek_close(svc->st, id, "expired", 0) != STORE_OK)
    return -1;
  ref_msg_init(&m, svc);
  snprintf(number, sizeof(number), "%lld", (long long)id);
  snprintf(days, sizeof(days), "%lld", (long long)((s.expires - s.created) / REF_DAY));
  describe(terms, sizeof(terms), &s, 1);
  vars[0] = (struct tpl_var){"number", number};
  vars[1] = (struct tpl_var){"terms", terms};
  vars[2] = (struct tpl_var){"days", days};
  rc = ref_reply(&m, NULL, -1, s.address, "seek-expired.txt", vars, 3);
  base_buf_free(&m.events);
  if(!rc) {
    *did = 1;
    ref_log_info("seek %lld of %s expired", (long long)id, s.address);
  }
  return rc;
}

/* ---- the handlers (commands.h's table): the sender's, about no game ---- */

enum ref_rc ref_do_seek(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_seek(r->m, c));
}

enum ref_rc ref_do_seeks(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  (void)c;
  return ref_rc_of(r->m, do_seeks(r->m));
}

/* seek cancel N, or the mail's "#N" naming the seek */
enum ref_rc ref_do_unseek(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_unseek(r->m, c, r->cmds->guard));
}
