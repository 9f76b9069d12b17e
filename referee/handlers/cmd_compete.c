/*
 * cmd_compete.c: the commands of competition by mail: `ratings
 * [GAME]` (a system's Glicko-2 table, the sender's line marked), `rating`
 * (the sender's own), `standings [NAME]` (a round robin's crosstable, to
 * its players only): they change nothing, and an answer to a stranger
 * counts against the hourly budget as `help`'s does; and `tournament GAME
 * ... with ...`, which makes a round robin the way `new` makes a game
 * (compete.c), with new's opt-in rules (optin.c): from an
 * address not yet confirmed it only asks for a confirmation, and its
 * invitations to strangers count against the budget. Layer 6, "handlers"
 * (docs/architecture.md); the tables are ratings.c's and tournament.c's.
 */
#include "handlers_int.h"

#include "compete_int.h"
#include "log.h"
#include "mail.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The answer: in the game's thread when the mail named one, else to the
 * sender; to a stranger (no seat, never confirmed: the From may be forged)
 * only within the hourly budget, as `help` (optin.c). */
static int answer(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat, const char *tmpl,
                  const struct tpl_var *extra, size_t nextra)
{
  if(g && seat >= 0)
    return ref_tell_seat(m, g, seat, tmpl, extra, nextra);
  switch(ref_stranger_answer(m, tmpl)) {
  case -1: return -1;
  case 0: return 0;
  default: return ref_reply(m, NULL, -1, m->mail->from, tmpl, extra, nextra);
  }
}

static const char *sender(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat)
{
  return g && seat >= 0 ? g->seats[seat].address : m->mail->from;
}

/* One system's table: its title line, the heading, a row per player. */
static int ratings_table(struct ref_msg_ctx *m, const struct ref_game_desc *d, const char *mark,
                         struct base_buf *out)
{
  const char *dir = m->svc->cfg.templates_dir;
  struct base_buf rows;
  char line[200], count[24];
  size_t n = 0;
  struct tpl_var vars[2] = {{"title", d->title}, {"count", count}};
  base_buf_init(&rows, 1024u * 1024u);
  if(ref_ratings_rows(m->svc, d->name, mark, &rows, &n)) {
    base_buf_free(&rows);
    return -1;
  }
  snprintf(count, sizeof(count), "%zu", n);
  tpl_line(line, sizeof(line), dir, "phrases.txt", n ? "ratings-title" : "ratings-nobody", vars,
           2);
  if(base_buf_printf(out, "%s%s\n", out->len ? "\n" : "", line)) {
    base_buf_free(&rows);
    return -1;
  }
  if(n) {
    tpl_line(line, sizeof(line), dir, "phrases.txt", "ratings-head", NULL, 0);
    if(base_buf_printf(out, "%s\n%s", line, rows.s)) {
      base_buf_free(&rows);
      return -1;
    }
  }
  base_buf_free(&rows);
  return 0;
}

/* ratings [GAME]: GAME's table; without it, the table of the game the mail
 * is about, else every system the sender is rated in (every rated system
 * when none). */
static int do_ratings(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                      const struct ref_cmd *c)
{
  const char *who = sender(m, g, seat);
  const struct ref_game_desc *d = NULL;
  struct store_rating *rows = NULL;
  struct base_buf tables;
  struct tpl_var extra[2];
  char word[40] = "", what[80] = "";
  size_t n = 0, i, k, shown = 0;
  int rc = 0;

  /* The table names every rated player by address: a stranger (no seat,
   * never confirmed; its From may be forged) is not shown it, so nobody
   * can harvest a club's addresses by mail (the rule for mail to strangers). */
  if(!(g && seat >= 0)) {
    int s = ref_stranger(m->svc, m->mail->from);
    if(s < 0)
      return -1;
    if(s) {
      m->refused = 1;
      ref_log_info("ratings from %s not answered: a stranger is not shown the players' addresses",
                   m->mail->from);
      return 0;
    }
  }
  for(i = 0; c->arg[i] && !isspace((unsigned char)c->arg[i]) && i + 1 < sizeof(word); i++)
    word[i] = (char)tolower((unsigned char)c->arg[i]);
  if(word[0] && !(d = ref_game_find(word))) {
    if(g && seat >= 0)
      return ref_refuse(m, g, seat, c->line, "unknown-game", word, NULL);
    return ref_refuse_player(m, c->line, "unknown-game", word);
  }
  if(!d && g)
    d = g->desc;
  base_buf_init(&tables, 4u * 1024u * 1024u);
  if(d) {
    rc = ratings_table(m, d, who, &tables);
    snprintf(what, sizeof(what), "%s", d->title);
  }
  else if(store_rating_list(m->svc->st, &rows, &n, NULL) != STORE_OK)
    rc = -1;
  else {
    /* the systems the sender is rated in; all of them if none */
    int mine = 0;
    for(i = 0; i < n; i++)
      mine |= !strcasecmp(rows[i].address, who);
    for(i = 0; i < n && !rc; i++) {
      const struct ref_game_desc *s = ref_game_find(rows[i].kind);
      int first = 1, has = 0;
      for(k = 0; k < i; k++)
        first &= strcmp(rows[k].kind, rows[i].kind) != 0;
      for(k = 0; k < n; k++)
        has |= !strcmp(rows[k].kind, rows[i].kind) && !strcasecmp(rows[k].address, who);
      if(s && first && (has || !mine)) {
        rc = ratings_table(m, s, who, &tables);
        shown++;
      }
    }
    tpl_line(what, sizeof(what), m->svc->cfg.templates_dir, "phrases.txt", "ratings-all",
             NULL, 0);
    if(!shown) {
      char none[200];
      tpl_line(none, sizeof(none), m->svc->cfg.templates_dir, "phrases.txt", "ratings-empty",
               NULL, 0);
      if(base_buf_puts(&tables, none))
        rc = -1;
    }
  }
  free(rows);
  if(!rc) {
    while(tables.len && tables.s[tables.len - 1] == '\n') /* the template places it */
      tables.s[--tables.len] = '\0';
    extra[0].name = "tables";
    extra[0].value = tables.s;
    extra[1].name = "what";
    extra[1].value = what;
    rc = answer(m, g, seat, "ratings.txt", extra, 2);
  }
  base_buf_free(&tables);
  return rc;
}

/* rating: the sender's ratings, each with its deviation, record and rank. */
static int do_rating(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                     const struct ref_cmd *c)
{
  const char *who = sender(m, g, seat), *dir = m->svc->cfg.templates_dir;
  struct store_rating *rows = NULL;
  struct base_buf text;
  struct tpl_var extra[1];
  size_t n = 0, i, k;
  int rc = 0;
  (void)c;

  if(store_rating_list(m->svc->st, &rows, &n, NULL) != STORE_OK)
    return -1;
  base_buf_init(&text, 1024u * 1024u);
  for(i = 0; i < n; i++) {
    const struct ref_game_desc *d = ref_game_find(rows[i].kind);
    char line[400], v[8][24];
    size_t rank = 1, count = 0;
    struct tpl_var vars[9];
    if(strcasecmp(rows[i].address, who))
      continue;
    /* rows come by system, the best first */
    for(k = 0; k < n; k++)
      if(!strcmp(rows[k].kind, rows[i].kind)) {
        count++;
        rank += k < i;
      }
    snprintf(v[0], sizeof(v[0]), "%.0f", rows[i].rating);
    snprintf(v[1], sizeof(v[1]), "%.0f", rows[i].rd);
    snprintf(v[2], sizeof(v[2]), "%d", rows[i].games);
    snprintf(v[3], sizeof(v[3]), "%d", rows[i].wins);
    snprintf(v[4], sizeof(v[4]), "%d", rows[i].draws);
    snprintf(v[5], sizeof(v[5]), "%d", rows[i].losses);
    snprintf(v[6], sizeof(v[6]), "%zu", rank);
    snprintf(v[7], sizeof(v[7]), "%zu", count);
    vars[0] = (struct tpl_var){"title", d ? d->title : rows[i].kind};
    vars[1] = (struct tpl_var){"rating", v[0]};
    vars[2] = (struct tpl_var){"rd", v[1]};
    vars[3] = (struct tpl_var){"games", v[2]};
    vars[4] = (struct tpl_var){"won", v[3]};
    vars[5] = (struct tpl_var){"drawn", v[4]};
    vars[6] = (struct tpl_var){"lost", v[5]};
    vars[7] = (struct tpl_var){"rank", v[6]};
    vars[8] = (struct tpl_var){"count", v[7]};
    tpl_line(line, sizeof(line), dir, "phrases.txt", "rating-line", vars, 9);
    if(base_buf_printf(&text, "%s\n", line)) {
      rc = -1;
      break;
    }
  }
  free(rows);
  if(!rc && !text.len) {
    char none[200];
    tpl_line(none, sizeof(none), dir, "phrases.txt", "rating-none", NULL, 0);
    rc = base_buf_puts(&text, none) ? -1 : 0;
  }
  if(rc) {
    base_buf_free(&text);
    return rc;
  }
  while(text.len && text.s[text.len - 1] == '\n')
    text.s[--text.len] = '\0';
  extra[0].name = "ratings";
  extra[0].value = text.s;
  rc = answer(m, g, seat, "rating.txt", extra, 1);
  base_buf_free(&text);
  return rc;
}

/* ---- round robins ---- */

/* An address as written after "with": <a@b>, mailto:a@b, a@b, (list
 * commas already split), lower case. */
static void address_word(char *dst, size_t cap, const char *word)
{
  size_t i;
  if(*word == '<')
    word++;
  if(!strncasecmp(word, "mailto:", 7))
    word += 7;
  snprintf(dst, cap, "%.*s", (int)strcspn(word, "<>"), word);
  for(i = 0; dst[i]; i++)
    dst[i] = (char)tolower((unsigned char)dst[i]);
}

/* tournament accept|withdraw NAME: the sender's answer to a knockout
 * (events.c); a confirmed address, as every `tournament` (MX-4). */
static int knockout_answer(struct ref_msg_ctx *m, const struct ref_cmd *c, int accept,
                           const char *name)
{
  struct store_tournament t;
  int length, rc;
  switch(ref_confirm_first(m, c->line)) {
  case REF_RC_OK: break;
  case REF_RC_STOP: return 0;
  default: return -1;
  }
  rc = store_tournament_find(m->svc->st, &t, name);
  if(rc == STORE_OK)
    rc = store_knockout_length(m->svc->st, &length, t.id);
  if(rc == STORE_ENOTFOUND)
    return ref_refuse_player(m, c->line, "no-tournament", name);
  if(rc != STORE_OK)
    return -1;
  return accept ? ref_knockout_accept(m, &t, c->entropy[0] ? c->entropy : NULL, c->line)
                : ref_knockout_withdraw(m, &t, c->line);
}

/* tournament GAME [NAME] [double|single] [new's terms] with
 * ADDRESS...: a round robin of the sender and the addresses, every pairing
 * created at once (compete.c); each invitee accepts once for all of its
 * games. */
static int do_tournament(struct ref_msg_ctx *m, const struct ref_cmd *c)
{
  struct ref_tournament_spec *spec;
  struct ref_terms terms;
  struct ref_err err;
  char copy[256], *save = NULL, *tok, who[256], to[REF_TOURNAMENT_MAX * 258];
  const char *invited[REF_TOURNAMENT_MAX], *why;
  int seen_with = 0, rc = -1, i, knockout = 0, length = 0;
  int64_t id = 0;

  if(!(spec = calloc(1, sizeof(*spec))))
    return -1;
  ref_terms_init(&terms);
  memset(&err, 0, sizeof(err));
  spec->cycles = 1;
  spec->organizer = m->mail->from;
  spec->organizer_plays = 1;
  snprintf(spec->players[spec->nplayers++], sizeof(spec->players[0]), "%s", m->mail->from);
  snprintf(copy, sizeof(copy), "%s", c->arg);
  /* tournament accept|withdraw NAME: a knockout's player (rules-spec KO-4) */
  {
    char verb[16] = "", name[64] = "";
    if(sscanf(copy, "%15s %63s", verb, name) == 2 &&
       (!strcasecmp(verb, "accept") || !strcasecmp(verb, "withdraw"))) {
      rc = knockout_answer(m, c, !strcasecmp(verb, "accept"), name);
      goto out;
    }
  }
  /* Everything a tournament can be refused for is read before its
   * organizer is asked to confirm it (ref_refuse_request): a request that
   * can only be refused is refused at once (rules-spec MX-2). */
  for(tok = strtok_r(copy, " \t,;", &save); tok; tok = strtok_r(NULL, " \t,;", &save)) {
    if(!spec->d) {
      char word[40];
      size_t k;
      for(k = 0; tok[k] && k + 1 < sizeof(word); k++)
        word[k] = (char)tolower((unsigned char)tok[k]);
      word[k] = '\0';
      if(!(spec->d = ref_game_find(word)) || spec->d->seats != 2) {
        rc = ref_refuse_request(m, c->line, "unknown-game", word);
        goto out;
      }
      continue;
    }
    if(!seen_with && !strcasecmp(tok, "with")) {
      seen_with = 1;
      continue;
    }
    if(seen_with) {
      if(!strcasecmp(tok, "and"))
        continue;
      address_word(who, sizeof(who), tok);
      if((why = ref_invitee_refused(m->svc, who))) {
        rc = ref_refuse_request(m, c->line, why, who);
        goto out;
      }
      for(i = 0; i < spec->nplayers && strcasecmp(spec->players[i], who); i++)
        ;
      if(i < spec->nplayers)
        continue; /* named twice, or the sender: one player */
      if(spec->nplayers == REF_TOURNAMENT_MAX) {
        rc = ref_refuse_request(m, c->line, "tournament-players", "");
        goto out;
      }
      snprintf(spec->players[spec->nplayers++], sizeof(spec->players[0]), "%s", who);
      continue;
    }
    /* KO-1: a knockout of matches (backgammon only, match=N) */
    if(!strcasecmp(tok, "knockout")) {
      knockout = 1;
      continue;
    }
    if(!strcasecmp(tok, "double") || !strcasecmp(tok, "single")) {
      spec->cycles = !strcasecmp(tok, "double") ? 2 : 1;
      continue;
    }
    /* the terms as `new` takes them, through the same reader (terms.c):
     * private, public-comments, rated|unrated, days=, weekends=, the
     * rules' key=value; not "as SEAT", which a round robin decides
     * (rules-spec MX-5) */
    if(!strcasecmp(tok, "as")) {
      rc = ref_refuse_request(m, c->line, "bad-option", tok);
      goto out;
    }
    switch(ref_terms_word(spec->d, &terms, tok, &err)) {
    case REF_RC_OK: continue;
    case REF_RC_PASS: break;
    default: rc = ref_refuse_request(m, c->line, err.reason, err.detail); goto out;
    }
    if(spec->name[0] || !ref_tournament_name_ok(tok)) {
      rc = ref_refuse_request(m, c->line, spec->name[0] ? "bad-option" : "tournament-name",
                              tok);
      goto out;
    }
    snprintf(spec->name, sizeof(spec->name), "%s", tok);
  }
  if(!spec->d) {
    rc = ref_refuse_request(m, c->line, "unknown-game", "");
    goto out;
  }
  if(spec->nplayers < 3) {
    rc = ref_refuse_request(m, c->line, "tournament-players", "");
    goto out;
  }
  ref_terms_to_tournament(&terms, spec);
  if(knockout) {
    const char *mt = strstr(spec->opts, "match=");
    if(strcmp(spec->d->name, "backgammon") || !mt || sscanf(mt, "match=%d", &length) != 1 ||
       length < 1 || spec->cycles != 1) {
      rc = ref_refuse_request(m, c->line, "ko-terms", "");
      goto out;
    }
  }
  /* the options must make a game before anyone is invited to one (terms.c) */
  switch(ref_terms_check(spec->d, spec->opts, &err)) {
  case REF_RC_OK: break;
  case REF_RC_REFUSED: rc = ref_refuse_request(m, c->line, err.reason, err.detail); goto out;
  default: goto out;
  }
  switch(ref_confirm_first(m, c->line)) {
  case REF_RC_OK: break;
  case REF_RC_STOP: rc = 0; goto out; /* asked to confirm first: nothing made, nobody mailed */
  default: goto out;
  }
  /* the invitations, all together, within each invitee's allowance and
   * (to strangers) the budget, else nothing is made (as new's, optin.c) */
  for(i = 1; i < spec->nplayers; i++)
    invited[i - 1] = spec->players[i];
  rc = ref_invitations_budget(m->svc, invited, spec->nplayers - 1, to, sizeof(to), &why);
  if(rc <= 0) {
    rc = rc < 0 ? -1 : ref_refuse(m, NULL, -1, c->line, why, to, NULL);
    goto out;
  }
  rc = knockout ? ref_knockout_create(m, spec, length, &id) : ref_tournament_create(m, spec, &id);
  if(rc == 1)
    rc = ref_refuse(m, NULL, -1, c->line, "tournament-name-taken", spec->name, NULL);
out:
  free(spec);
  return rc;
}

/* standings [NAME]: the crosstable of a round robin the sender plays in:
 * NAME (or its number), else the one of the game the mail is about, else
 * the sender's latest. */
static int do_standings(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const struct ref_cmd *c)
{
  const char *who = sender(m, g, seat);
  struct store_tournament t;
  struct store_tournament_player *p = NULL;
  struct base_buf table;
  char name[64] = "", counts[3][24], form[80];
  size_t np = 0, i;
  int rc, found = 0, plays = 0;
  int64_t id = 0;
  const struct ref_event_kind *kind = NULL;

  sscanf(c->arg, "%63s", name);
  if(name[0]) {
    char *end;
    long long n = strtoll(name, &end, 10);
    rc = !*end && n > 0 ? store_tournament_load(m->svc->st, &t, n)
                        : store_tournament_find(m->svc->st, &t, name);
    found = rc == STORE_OK;
    if(rc != STORE_OK && rc != STORE_ENOTFOUND)
      return -1;
  }
  else {
    int64_t *ids = NULL;
    size_t n = 0;
    /* a failure is no "there is none": the message is retried */
    rc = g ? store_tournament_of_game(m->svc->st, &id, g->row.id) : STORE_ENOTFOUND;
    if(rc == STORE_ENOTFOUND) {
      rc = store_tournament_list(m->svc->st, &ids, &n, who);
      if(rc == STORE_OK && n)
        id = ids[n - 1];
      free(ids);
    }
    if(rc != STORE_OK && rc != STORE_ENOTFOUND)
      return -1;
    if(id > 0) {
      if(store_tournament_load(m->svc->st, &t, id) != STORE_OK)
        return -1;
      found = 1;
    }
  }
  /* only its players see a tournament: anyone else is told there is none */
  if(found && store_tournament_players(m->svc->st, &p, &np, t.id) != STORE_OK)
    return -1;
  for(i = 0; i < np; i++)
    plays |= !strcasecmp(p[i].address, who);
  free(p);
  if(!found || !plays) {
    const char *why = name[0] ? "no-tournament" : "no-tournaments";
    if(g && seat >= 0)
      return ref_refuse(m, g, seat, c->line, why, name, NULL);
    return ref_refuse_player(m, c->line, why, name);
  }
  base_buf_init(&table, 1024u * 1024u);
  kind = ref_event_kind_of(m->svc, &t);
  rc = kind ? kind->table(m->svc, &t, &table, counts) : -1;
  if(!rc) {
    const struct ref_game_desc *d = ref_game_find(t.kind);
    struct tpl_var extra[7] = {{"name", t.name},     {"table", table.s},
                               {"games", counts[0]}, {"finished", counts[1]},
                               {"to_play", counts[2]}, {"form", form},
                               {"kind", d ? d->title : t.kind}};
    tpl_line(form, sizeof(form), m->svc->cfg.templates_dir, "phrases.txt",
             t.cycles == 2 ? "tournament-double" : "tournament-single", NULL, 0);
    rc = answer(m, g, seat, kind->standings_template, extra, 7);
  }
  base_buf_free(&table);
  return rc;
}

/* ---- resign match ---- */

/* resign match: the whole backgammon match, at once (no answer asked: the
 * opponent can only gain by it). The game in play ends there, its
 * position as the rules have it, and the match goes to the opponent
 * (match.c reads the "resign-match" entry). */
int ref_do_resign_match(struct ref_msg_ctx *m, struct ref_game_ctx *g, int seat,
                        const struct ref_cmd *c)
{
  struct ref_match_state ms;
  int rc = ref_match_of(m->svc, g, &ms);

  if(rc < 0)
    return -1;
  if(!rc)
    return ref_refuse(m, g, seat, c->line, "no-match", "", NULL);
  return ref_match_resign(m, g, seat) || ref_compete_game_over(m, g);
}

/* ---- the handlers (commands.h's table): about no one game ---- */

/* Without a game (r->g NULL, seat -1) the sender is answered. */
enum ref_rc ref_do_ratings(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_ratings(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_rating(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_rating(r->m, r->g, r->seat, c));
}

enum ref_rc ref_do_tournament(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_tournament(r->m, c));
}

enum ref_rc ref_do_standings(struct ref_cmd_run *r, const struct ref_cmd *c)
{
  return ref_rc_of(r->m, do_standings(r->m, r->g, r->seat, c));
}
