/*
 * site.c: the read-only web view. `tabula site DIR` (and the
 * daemon after each change, when site_dir is set) writes plain files any
 * web server can serve: index.html, one page per game (game-N.html) and
 * its record (game-N.pgn, .pdn, .mat or .txt). No server of our own, no
 * remote content.
 *
 * A page shows the board after every move (all of them, listed; a small
 * inline script turns the list into a slider, and the page works without
 * it), the history, the result, the dice proof lines with how to check
 * them, and the record to download. What is not published: games whose
 * invitation said "private" (new GAME private: not even in the
 * index) and players' addresses: a player is the initials of the address's local part (record.c's
 * ref_public_name), the invitation line of the history is left out, and
 * the record offered is the public one (initials, the referee by its
 * domain). The dice lines are published as the mails showed them, since
 * they are what makes the proof checkable, but for what would name a
 * player (rules-spec G-4): an entropy from a Message-ID is its keyed
 * digest (tabula-dice-2) and the players' salt is left out; a
 * tabula-dice-1 game, whose entropy lines were Message-IDs, shows E alone.
 * The words are templates (site-index.html, site-game.html, phrases.txt).
 * Layer 8, "top" (docs/architecture.md).
 */
#include "service_int.h"

#include "board_html.h"
#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Writes path atomically (a temporary file renamed over it), so a web
 * server never serves half a page. */
static int write_file(const char *dir, const char *name, const char *data, size_t len)
{
  char path[1200], tmp[1300];
  FILE *f;
  int ok;
  /* a cut path would write another file (dir/inde for dir/index.html) */
  if(base_format(path, sizeof(path), "%s/%s", dir, name) ||
     base_format(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name)) {
    ref_log_error("site: the path of %s in %s is too long", name, dir);
    return -1;
  }
  f = fopen(tmp, "wb");
  if(!f)
    return -1;
  ok = fwrite(data, 1, len, f) == len;
  ok = fclose(f) == 0 && ok;
  if(!ok || rename(tmp, path)) {
    unlink(tmp);
    return -1;
  }
  return 0;
}

static void player_names(const struct ref_game_ctx *g, char *buf, size_t cap)
{
  size_t i, len = 0;
  buf[0] = '\0';
  for(i = 0; i < g->nseats && len + 1 < cap; i++) {
    char name[64];
    ref_public_name(g->seats[i].address, name, sizeof(name));
    len += (size_t)snprintf(buf + len, cap - len, "%s%s %s", i ? ", " : "",
                            g->desc->seat_names[i], name);
  }
}

static int esc(struct base_buf *out, const char *s)
{
  return ref_html_escape(out, s, strlen(s));
}

/* One board for the list of positions: after the entry `label`. */
struct boards_ctx {
  struct ref_service *svc;
  struct base_buf *out;
  int n;
};

static int board_after(struct boards_ctx *c, const struct ref_game_ctx *r, const char *label)
{
  struct ref_diagram *d = NULL;
  char ascii[8192];
  int rc = -1;
  c->n++;
  if(base_buf_printf(c->out, "<li id=\"p%d\" data-step=\"%d\" style=\"margin:0 0 16px 0\">"
                            "<p style=\"margin:0 0 4px 0\"><b>",
                    c->n, c->n) ||
     esc(c->out, label) || base_buf_puts(c->out, "</b></p>\n"))
    return -1;
  if(r->desc->ops->diagram) {
    d = calloc(1, sizeof(*d));
    if(!d || r->desc->ops->diagram(r->state, 0, d) != REF_OK)
      goto out;
    if(ref_html_board(c->out, d, c->svc->cfg.templates_dir))
      goto out;
  }
  else if(r->desc->ops->render(r->state, 0, ascii, sizeof(ascii)) != REF_OK ||
          ref_html_pre(c->out, ascii))
    goto out;
  rc = base_buf_puts(c->out, "</li>\n");
out:
  free(d);
  return rc;
}

static int boards_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct boards_ctx *c = arg;
  char label[200];
  const char *dir = c->svc->cfg.templates_dir;
  if(!strcmp(st->e->kind, "start")) {
    tpl_line(label, sizeof(label), dir, "phrases.txt", "site-start", NULL, 0);
    return board_after(c, r, label);
  }
  if(!strcmp(st->e->kind, "move")) {
    struct tpl_var v[2] = {{"seat", st->actor >= 0 && st->actor < r->desc->seats
                                        ? r->desc->seat_names[st->actor] : ""},
                           {"move", st->label}};
    tpl_line(label, sizeof(label), dir, "phrases.txt", "site-after", v, 2);
    return board_after(c, r, label);
  }
  return 0;
}

/* The record's steps read here one at a time (record.c's iterator): the
 * games layer never calls up into this one. */
static int read_boards(struct ref_service *svc, const struct ref_game_ctx *g,
                       struct boards_ctx *bc)
{
  struct ref_rec_iter it;
  int rc = ref_record_open(svc, g, &it);
  while(!rc && (rc = ref_record_next(&it)) == 1)
    rc = boards_step(bc, &it.r, &it.st) ? -1 : 0;
  ref_record_close(&it, NULL);
  return rc;
}

static int game_page(struct ref_service *svc, const char *dir, struct ref_game_ctx *g,
                     struct base_buf *index)
{
  const struct ref_export_kind *k = ref_export_kind(g->desc);
  struct base_buf boards, history, record, dice;
  struct boards_ctx bc = {svc, &boards, 0};
  struct ref_rec_lines lines = {&history, 1};
  char players[400], game[24], file[64], count[16], status[200];
  char *subject = NULL, *page = NULL;
  struct tpl_var v[10];
  int rc = -1, nrolls = 0;

  base_buf_init(&boards, 64u * 1024u * 1024u);
  base_buf_init(&history, 16u * 1024u * 1024u);
  base_buf_init(&record, 16u * 1024u * 1024u);
  base_buf_init(&dice, 16u * 1024u * 1024u);
  snprintf(game, sizeof(game), "%lld", (long long)g->row.id);
  snprintf(file, sizeof(file), "game-%lld.%s", (long long)g->row.id, k->ext);
  player_names(g, players, sizeof(players));
  if(read_boards(svc, g, &bc) ||
     ref_record_walk(svc, g, ref_record_line, &lines, NULL) ||
     ref_game_export(svc, g, &record, REF_EXPORT_PUBLIC))
    goto out;
  if(write_file(dir, file, record.s ? record.s : "", record.len))
    goto out;
  if(g->desc->flags & REF_GAME_DICE)
    ref_dice_transcript(svc, g, &dice, &nrolls, 1);
  snprintf(count, sizeof(count), "%d", bc.n);
  snprintf(status, sizeof(status), "%s",
           g->row.result[0] ? g->row.result
                            : g->row.phase == STORE_GAME_ACTIVE ? "in progress" : "not started");
  {
    /* every value the page template puts into markup is escaped here */
    struct base_buf e_title, e_players, e_status, e_history, e_dice;
    base_buf_init(&e_title, 4096);
    base_buf_init(&e_players, 4096);
    base_buf_init(&e_status, 4096);
    base_buf_init(&e_history, 16u * 1024u * 1024u);
    base_buf_init(&e_dice, 16u * 1024u * 1024u);
    if(esc(&e_title, g->desc->title) || esc(&e_players, players) || esc(&e_status, status) ||
       esc(&e_history, history.s ? history.s : "") || esc(&e_dice, dice.s ? dice.s : ""))
      rc = -1;
    else {
      v[0] = (struct tpl_var){"game", game};
      v[1] = (struct tpl_var){"title", e_title.s};
      v[2] = (struct tpl_var){"players", e_players.s};
      v[3] = (struct tpl_var){"result", e_status.s};
      v[4] = (struct tpl_var){"boards", boards.s ? boards.s : ""};
      v[5] = (struct tpl_var){"count", count};
      v[6] = (struct tpl_var){"history", e_history.s ? e_history.s : ""};
      v[7] = (struct tpl_var){"dice", e_dice.s ? e_dice.s : ""};
      v[8] = (struct tpl_var){"record", file};
      v[9] = (struct tpl_var){"format", k->format};
      rc = tpl_render(&subject, &page, svc->cfg.templates_dir, "site-game.html", v, 10);
    }
    if(!rc) {
      char name[64];
      snprintf(name, sizeof(name), "game-%s.html", game);
      rc = write_file(dir, name, page, strlen(page));
    }
    if(!rc)
      rc = base_buf_printf(index,
                          "<tr><td><a href=\"game-%s.html\">%s</a></td><td>%s</td><td>%s</td>"
                          "<td>%s</td></tr>\n",
                          game, game, e_title.s, e_players.s, e_status.s);
    base_buf_free(&e_title);
    base_buf_free(&e_players);
    base_buf_free(&e_status);
    base_buf_free(&e_history);
    base_buf_free(&e_dice);
  }
out:
  free(subject);
  free(page);
  base_buf_free(&boards);
  base_buf_free(&history);
  base_buf_free(&record);
  base_buf_free(&dice);
  return rc;
}

int ref_service_site(struct ref_service *svc, const char *dir, int64_t since, size_t *written)
{
  int64_t *ids = NULL;
  size_t n = 0, i;
  struct base_buf index;
  char *subject = NULL, *page = NULL;
  int rc = -1;

  *written = 0;
  if(mkdir(dir, 0755) && errno != EEXIST) {
    ref_log_error("site: cannot make %s: %s", dir, strerror(errno));
    return -1;
  }
  if(store_game_list(svc->st, &ids, &n) != STORE_OK)
    return -1;
  base_buf_init(&index, 64u * 1024u * 1024u);
  for(i = 0; i < n; i++) {
    struct ref_game_ctx g;
    char why[256];
    /* a private game is not even read for the view */
    memset(&g, 0, sizeof(g));
    if(ref_game_private(svc, ids[i]) != 0 || store_game_load(svc->st, &g.row, ids[i]) != STORE_OK)
      continue;
    if(ref_game_load(svc, &g, ids[i], why, sizeof(why))) {
      ref_log_warn("site: game %lld left out: %s", (long long)ids[i], why);
      continue;
    }
    /* never published: private games; not yet a game: invitations */
    if(g.started) {
      if(g.row.updated >= since) {
        if(game_page(svc, dir, &g, &index)) {
          ref_log_error("site: game %lld: the page could not be written in %s",
                        (long long)ids[i], dir);
          ref_game_free(&g);
          goto out;
        }
        (*written)++;
      }
      else {
        /* unchanged: its page stays, its index row is written again */
        char players[400], game[24];
        player_names(&g, players, sizeof(players));
        snprintf(game, sizeof(game), "%lld", (long long)g.row.id);
        if(base_buf_printf(&index, "<tr><td><a href=\"game-%s.html\">%s</a></td><td>", game,
                           game) ||
           esc(&index, g.desc->title) || base_buf_puts(&index, "</td><td>") ||
           esc(&index, players) || base_buf_puts(&index, "</td><td>") ||
           esc(&index, g.row.result[0] ? g.row.result : "in progress") ||
           base_buf_puts(&index, "</td></tr>\n")) {
          ref_game_free(&g);
          goto out; /* an index without a game's row is not written */
        }
      }
    }
    ref_game_free(&g);
  }
  {
    struct tpl_var v[1] = {{"games", index.s ? index.s : ""}};
    if(tpl_render(&subject, &page, svc->cfg.templates_dir, "site-index.html", v, 1) ||
       write_file(dir, "index.html", page, strlen(page)))
      goto out;
  }
  rc = 0;
out:
  free(subject);
  free(page);
  free(ids);
  base_buf_free(&index);
  return rc;
}
