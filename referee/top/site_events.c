/*
 * site_events.c: the web view's pages of backgammon matches and knockout
 * events (tabula site, beside site.c's game pages): match-M.html, the
 * match's score, who leads, its games in order with links, each game's
 * score before it and the Crawford game named; knockout-T.html, the
 * bracket round by round, each match linked to its page. Players by
 * initials (rules-spec G-3); a match with a private game is not
 * published, nor is a knockout before its draw. The words are templates
 * (site-match.html, site-knockout.html, phrases.txt ko-*). Layer 8,
 * "top" (docs/architecture.md).
 */
#include "service_int.h"

#include "compete_int.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int esc(struct base_buf *out, const char *s)
{
  for(; *s; s++) {
    const char *e = *s == '<' ? "&lt;" : *s == '>' ? "&gt;" : *s == '&' ? "&amp;"
                  : *s == '"' ? "&quot;" : NULL;
    if(e ? base_buf_puts(out, e) : base_buf_putc(out, *s))
      return -1;
  }
  return 0;
}

static int write_page(const char *dir, const char *name, const char *page)
{
  char path[1200], tmp[1300];
  FILE *f;
  int ok;
  if(base_format(path, sizeof(path), "%s/%s", dir, name) ||
     base_format(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name))
    return -1;
  if(!(f = fopen(tmp, "wb")))
    return -1;
  ok = fputs(page, f) >= 0;
  ok = fclose(f) == 0 && ok;
  if(!ok || rename(tmp, path)) {
    remove(tmp);
    return -1;
  }
  return 0;
}

/* One match's page; *published 1 when written (no private game). */
static int match_page(struct ref_service *svc, const char *dir, int64_t match,
                      struct base_buf *links, int *published)
{
  int64_t *games = NULL;
  size_t n = 0, i;
  struct ref_match_count c;
  struct base_buf rows, head, event;
  char names[2][64], id[24], length[16], *subject = NULL, *page = NULL, line[600];
  int rc = -1;

  *published = 0;
  base_buf_init(&rows, 4u * 1024u * 1024u);
  base_buf_init(&head, 64u * 1024u);
  base_buf_init(&event, 64u * 1024u);
  if(store_match_games(svc->st, &games, &n, match) != STORE_OK ||
     ref_match_recount(svc, match, &c))
    goto out;
  for(i = 0; i < n; i++)
    if(ref_game_private(svc, games[i]) != 0) {
      rc = 0; /* private (or unreadable): not published */
      goto out;
    }
  ref_public_name(c.player[0], names[0], sizeof(names[0]));
  ref_public_name(c.player[1], names[1], sizeof(names[1]));
  for(i = 0; i < n; i++) {
    struct ref_game_ctx g;
    struct ref_match_state ms;
    char why[256];
    if(ref_game_load(svc, &g, games[i], why, sizeof(why)))
      goto out;
    if(ref_match_of(svc, &g, &ms) != 1 ||
       base_buf_printf(&rows,
                       "<tr><td style=\"padding:2px 8px\"><a href=\"game-%lld.html\">Game %zu"
                       "</a>%s</td><td style=\"padding:2px 8px\">%d-%d</td>"
                       "<td style=\"padding:2px 8px\">",
                       (long long)games[i], i + 1, ms.crawford ? " (Crawford)" : "",
                       ms.score[0], ms.score[1]) ||
       esc(&rows, g.row.result[0] ? g.row.result : "in progress") ||
       base_buf_puts(&rows, "</td></tr>\n")) {
      ref_game_free(&g);
      goto out;
    }
    /* the match line as an observer reads it: score, who leads, Crawford */
    if(i + 1 == n && (ref_match_line(svc, &g, 1, line, sizeof(line)) || esc(&head, line))) {
      ref_game_free(&g);
      goto out;
    }
    ref_game_free(&g);
  }
  snprintf(id, sizeof(id), "%lld", (long long)match);
  snprintf(length, sizeof(length), "%d", c.length);
  {
    /* a knockout's match links its bracket */
    int64_t tid;
    int ko_length, in = n ? store_tournament_of_game(svc->st, &tid, games[0]) : STORE_ENOTFOUND;
    struct store_tournament t;
    if(in == STORE_OK && store_tournament_load(svc->st, &t, tid) == STORE_OK &&
       store_knockout_length(svc->st, &ko_length, tid) == STORE_OK &&
       (base_buf_printf(&event, "A match of the knockout <a href=\"knockout-%lld.html\">",
                        (long long)tid) ||
        esc(&event, t.name) || base_buf_puts(&event, "</a>.")))
      goto out;
  }
  {
    struct base_buf e0, e1;
    struct tpl_var v[7] = {{"match", id},       {"length", length}, {"white", ""},
                           {"black", ""},       {"line", head.s ? head.s : ""},
                           {"games", rows.s ? rows.s : ""}, {"event", event.s ? event.s : ""}};
    base_buf_init(&e0, 256);
    base_buf_init(&e1, 256);
    if(!esc(&e0, names[0]) && !esc(&e1, names[1])) {
      char file[64];
      v[2].value = e0.s;
      v[3].value = e1.s;
      snprintf(file, sizeof(file), "match-%s.html", id);
      if(!tpl_render(&subject, &page, svc->cfg.templates_dir, "site-match.html", v, 7) &&
         !write_page(dir, file, page) &&
         !base_buf_printf(links, "<li><a href=\"%s\">Match %s</a>: %s - %s, to %s points</li>\n",
                          file, id, e0.s, e1.s, length))
        rc = 0;
    }
    base_buf_free(&e0);
    base_buf_free(&e1);
  }
  *published = rc == 0;
out:
  free(games);
  free(subject);
  free(page);
  base_buf_free(&rows);
  base_buf_free(&head);
  base_buf_free(&event);
  return rc;
}

/* One knockout's bracket page: a column per round, a box per match. */
static int knockout_page(struct ref_service *svc, const char *dir, const struct store_tournament *t,
                         struct base_buf *links)
{
  const char *tdir = svc->cfg.templates_dir;
  struct ref_ko_view *v = calloc(1, sizeof(*v));
  struct base_buf cols, ename;
  char *subject = NULL, *page = NULL, file[96], length[16];
  int rc = -1, round, rounds, k;

  base_buf_init(&cols, 4u * 1024u * 1024u);
  base_buf_init(&ename, 256);
  if(!v || ref_ko_view(svc, t, v))
    goto out;
  if(!v->drawn) {
    rc = 0; /* not drawn yet: nothing to show */
    goto out;
  }
  rounds = ref_ko_rounds(v->size);
  for(round = 1; round <= rounds; round++) {
    char head[160];
    int level = rounds - round;
    ref_ko_round_text(v, round, tdir, head, sizeof(head));
    if(base_buf_puts(&cols, "<td style=\"vertical-align:middle;padding:0 12px\"><h2 "
                            "style=\"font-size:15px;margin:0 0 8px 0\">") ||
       esc(&cols, head) || base_buf_puts(&cols, "</h2>\n"))
      goto out;
    for(k = 1 << level; k < 2 << level; k++) {
      char s0[256], s1[256], state[400];
      ref_ko_side_text(v, k, 0, 1, tdir, s0, sizeof(s0));
      ref_ko_side_text(v, k, 1, 1, tdir, s1, sizeof(s1));
      ref_ko_state_text(v, k, 1, tdir, state, sizeof(state));
      if(base_buf_printf(&cols, "<div style=\"border:1px solid #888;border-radius:4px;"
                                "padding:4px 8px;margin:%dpx 0;min-width:170px\"><b>",
                         4 + 18 * ((1 << (round - 1)) - 1)))
        goto out;
      if(v->slot[k].match > 0
           ? base_buf_printf(&cols, "<a href=\"match-%lld.html\">M%d</a>",
                             (long long)v->slot[k].match, v->match[k].label)
           : base_buf_printf(&cols, "M%d", v->match[k].label))
        goto out;
      if(base_buf_puts(&cols, "</b><br>") || esc(&cols, s0) ||
         base_buf_printf(&cols, " <b>%d</b><br>", v->match[k].score[0]) || esc(&cols, s1) ||
         base_buf_printf(&cols, " <b>%d</b><br><small>", v->match[k].score[1]) ||
         esc(&cols, state) || base_buf_puts(&cols, "</small></div>\n"))
        goto out;
    }
    if(base_buf_puts(&cols, "</td>\n"))
      goto out;
  }
  if(esc(&ename, t->name))
    goto out;
  snprintf(file, sizeof(file), "knockout-%lld.html", (long long)t->id);
  snprintf(length, sizeof(length), "%d", v->length);
  {
    struct tpl_var var[3] = {{"name", ename.s}, {"length", length}, {"rounds", cols.s}};
    if(tpl_render(&subject, &page, tdir, "site-knockout.html", var, 3) ||
       write_page(dir, file, page) ||
       base_buf_printf(links, "<li><a href=\"%s\">Knockout %s</a>, matches to %s points</li>\n",
                       file, ename.s, length))
      goto out;
  }
  rc = 0;
out:
  free(v);
  free(subject);
  free(page);
  base_buf_free(&cols);
  base_buf_free(&ename);
  return rc;
}

int ref_site_events(struct ref_service *svc, const char *dir, struct base_buf *links)
{
  int64_t *ids = NULL;
  size_t n = 0, i;
  int rc = -1, published;

  if(store_match_list(svc->st, &ids, &n) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++)
    if(match_page(svc, dir, ids[i], links, &published)) {
      ref_log_warn("site: match %lld left out", (long long)ids[i]);
    }
  free(ids);
  ids = NULL;
  if(store_tournament_list(svc->st, &ids, &n, NULL) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    struct store_tournament t;
    int length;
    if(store_tournament_load(svc->st, &t, ids[i]) != STORE_OK)
      goto out;
    if(store_knockout_length(svc->st, &length, t.id) != STORE_OK)
      continue; /* a round robin: its games are on the index */
    if(knockout_page(svc, dir, &t, links))
      ref_log_warn("site: knockout %lld left out", (long long)t.id);
  }
  rc = 0;
out:
  free(ids);
  return rc;
}
