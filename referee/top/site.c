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
 * Beside each page its data as JSON for scripts (index.json, game-N.json;
 * docs/json.md), gathered with the page and as private: players by
 * initials, no address, no journal entry that names one.
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

/* What a game's page and its index row say of it, shared by the HTML and
 * the JSON. */
static const char *status_text(const struct ref_game_ctx *g)
{
  return g->row.result[0] ? g->row.result
                          : g->row.phase == STORE_GAME_ACTIVE ? "in progress" : "not started";
}

/* A published game as JSON: the fields the index and its page share
 * (docs/json.md, "The web view"); players by initials only (rules-spec
 * G-3, G-4), as the HTML names them. */
static json_t *public_game_json(const struct ref_game_ctx *g)
{
  static const char *const phases[] = {"invited", "active", "finished", "cancelled"};
  json_t *o = json_object(), *players = json_array();
  char page[48], data[48];
  size_t i;
  int bad = !o || !players;

  for(i = 0; !bad && i < g->nseats; i++) {
    char name[64];
    json_t *p = json_object();
    ref_public_name(g->seats[i].address, name, sizeof(name));
    bad = !p || ref_json_set_str(p, "side", g->desc->seat_names[i]) ||
          ref_json_set_str(p, "name", name);
    bad = bad ? (json_decref(p), 1) : ref_json_push(players, p);
  }
  snprintf(page, sizeof(page), "game-%lld.html", (long long)g->row.id);
  snprintf(data, sizeof(data), "game-%lld.json", (long long)g->row.id);
  if(bad || ref_json_set(o, "game", json_integer(g->row.id)) ||
     ref_json_set_str(o, "kind", g->desc->name) || ref_json_set_str(o, "title", g->desc->title) ||
     ref_json_set_str(o, "phase", (unsigned)g->row.phase < 4 ? phases[g->row.phase] : "?") ||
     ref_json_set(o, "result", g->row.result[0] ? ref_json_str(g->row.result) : json_null()) ||
     ref_json_set_str(o, "status", status_text(g)) ||
     ref_json_set(o, "players", json_incref(players)) || ref_json_set_str(o, "page", page) ||
     ref_json_set_str(o, "json", data)) {
    json_decref(players);
    json_decref(o);
    return NULL;
  }
  json_decref(players);
  return o;
}

static int esc(struct base_buf *out, const char *s)
{
  return ref_html_escape(out, s, strlen(s));
}

/* One board for the list of positions: after the entry `label`; and the
 * same step in the page's JSON (positions: its label, the move, the
 * position string). */
struct boards_ctx {
  struct ref_service *svc;
  struct base_buf *out;
  int n;
  json_t *positions;
  int bad; /* a position could not be added to the JSON */
};

static void position_json(struct boards_ctx *c, const struct ref_game_ctx *r, const char *label,
                          const struct ref_rec_step *st, int is_move)
{
  char pos[600];
  json_t *o = json_object();
  int bad = !o;
  r->desc->ops->encode(r->state, pos, sizeof(pos));
  bad = bad || ref_json_set(o, "step", json_integer(c->n)) || ref_json_set_str(o, "label", label) ||
        ref_json_set(o, "side", is_move && st->actor >= 0 && st->actor < r->desc->seats
                                  ? ref_json_str(r->desc->seat_names[st->actor])
                                  : json_null()) ||
        ref_json_set(o, "move", is_move ? ref_json_str(st->label) : json_null()) ||
        ref_json_set_str(o, "position", pos);
  if(bad || ref_json_push(c->positions, o)) {
    if(bad)
      json_decref(o);
    c->bad = 1;
  }
}

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
    if(board_after(c, r, label))
      return -1;
    position_json(c, r, label, st, 0);
    return 0;
  }
  if(!strcmp(st->e->kind, "move")) {
    struct tpl_var v[2] = {{"seat", st->actor >= 0 && st->actor < r->desc->seats
                                        ? r->desc->seat_names[st->actor] : ""},
                           {"move", st->label}};
    tpl_line(label, sizeof(label), dir, "phrases.txt", "site-after", v, 2);
    if(board_after(c, r, label))
      return -1;
    position_json(c, r, label, st, 1);
    return 0;
  }
  return 0;
}

/* The page's JSON: the game as the index has it, then what the page
 * shows: every position, the history, the dice lines, the record. */
static int game_json(const char *dir, const struct ref_game_ctx *g, json_t *positions,
                     const char *history, const char *dice, const char *record,
                     const char *format, const char *checkpoint)
{
  json_t *doc = ref_json_doc("site-game"), *game = public_game_json(g), *it;
  const char *key;
  char name[48], *text;
  int bad = !doc || !game, rc;
  json_object_foreach(game, key, it)
    if(!bad)
      bad = ref_json_set(doc, key, json_incref(it));
  json_decref(game);
  if(bad || ref_json_set(doc, "positions", json_incref(positions)) ||
     ref_json_set_str(doc, "history", history) ||
     ref_json_set(doc, "dice", dice[0] ? ref_json_str(dice) : json_null()) ||
     ref_json_set_str(doc, "record", record) || ref_json_set_str(doc, "record_format", format) ||
     ref_json_set_str(doc, "checkpoint", checkpoint)) {
    json_decref(doc);
    return -1;
  }
  text = ref_json_text(doc);
  json_decref(doc);
  if(!text)
    return -1;
  snprintf(name, sizeof(name), "game-%lld.json", (long long)g->row.id);
  rc = write_file(dir, name, text, strlen(text));
  free(text);
  return rc;
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
                     struct base_buf *index, json_t *index_json)
{
  const struct ref_export_kind *k = ref_export_kind(g->desc);
  struct base_buf boards, history, record, dice;
  struct boards_ctx bc = {svc, &boards, 0, json_array(), 0};
  struct ref_rec_lines lines = {&history, 1};
  char players[400], game[24], file[64], count[16], status[200];
  char *subject = NULL, *page = NULL, *note = NULL;
  struct tpl_var v[11];
  int rc = -1, nrolls = 0;

  base_buf_init(&boards, 64u * 1024u * 1024u);
  base_buf_init(&history, 16u * 1024u * 1024u);
  base_buf_init(&record, 16u * 1024u * 1024u);
  base_buf_init(&dice, 16u * 1024u * 1024u);
  snprintf(game, sizeof(game), "%lld", (long long)g->row.id);
  snprintf(file, sizeof(file), "game-%lld.%s", (long long)g->row.id, k->ext);
  player_names(g, players, sizeof(players));
  if(!bc.positions || read_boards(svc, g, &bc) || bc.bad ||
     ref_record_walk(svc, g, ref_record_line, &lines, NULL) ||
     ref_game_export(svc, g, &record, REF_EXPORT_PUBLIC))
    goto out;
  if(write_file(dir, file, record.s ? record.s : "", record.len))
    goto out;
  if((g->desc->flags & REF_GAME_DICE) && ref_dice_transcript(svc, g, &dice, &nrolls, 1) < 0)
    goto out; /* a page without its dice is not written: the next run writes it */
  /* the game's signed checkpoint, the same text as in the players' last
   * mails: anyone may keep it and compare (docs/history-protocol.md,
   * "Witnesses") */
  if(!(note = ref_history_note(svc, g->row.id)))
    goto out;
  snprintf(count, sizeof(count), "%d", bc.n);
  snprintf(status, sizeof(status), "%s", status_text(g));
  {
    /* every value the page template puts into markup is escaped here */
    struct base_buf e_title, e_players, e_status, e_history, e_dice, e_note;
    base_buf_init(&e_title, 4096);
    base_buf_init(&e_players, 4096);
    base_buf_init(&e_status, 4096);
    base_buf_init(&e_history, 16u * 1024u * 1024u);
    base_buf_init(&e_dice, 16u * 1024u * 1024u);
    base_buf_init(&e_note, 64u * 1024u);
    if(esc(&e_title, g->desc->title) || esc(&e_players, players) || esc(&e_status, status) ||
       esc(&e_history, history.s ? history.s : "") || esc(&e_dice, dice.s ? dice.s : "") ||
       esc(&e_note, note))
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
      v[10] = (struct tpl_var){"checkpoint", e_note.s};
      rc = tpl_render(&subject, &page, svc->cfg.templates_dir, "site-game.html", v, 11);
    }
    if(!rc) {
      char name[64];
      snprintf(name, sizeof(name), "game-%s.html", game);
      rc = write_file(dir, name, page, strlen(page));
    }
    if(!rc)
      rc = game_json(dir, g, bc.positions, history.s ? history.s : "", dice.s ? dice.s : "",
                     file, k->format, note) ||
           ref_json_push(index_json, public_game_json(g));
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
    base_buf_free(&e_note);
  }
out:
  free(note);
  json_decref(bc.positions);
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
  struct base_buf index, events;
  char *subject = NULL, *page = NULL, *text = NULL;
  json_t *index_json = json_array(), *doc = ref_json_doc("site-index");
  int rc = -1;

  *written = 0;
  if(!index_json || !doc) {
    json_decref(index_json);
    json_decref(doc);
    return -1;
  }
  if(mkdir(dir, 0755) && errno != EEXIST) {
    ref_log_error("site: cannot make %s: %s", dir, strerror(errno));
    json_decref(index_json);
    json_decref(doc);
    return -1;
  }
  if(store_game_list(svc->st, &ids, &n) != STORE_OK) {
    json_decref(index_json);
    json_decref(doc);
    return -1;
  }
  base_buf_init(&index, 64u * 1024u * 1024u);
  base_buf_init(&events, 4u * 1024u * 1024u);
  for(i = 0; i < n; i++) {
    struct ref_game_ctx g;
    char why[256];
    int priv = ref_game_private(svc, ids[i]);
    /* a private game is not even read for the view */
    memset(&g, 0, sizeof(g));
    if(priv == 1)
      continue;
    /* one game the store cannot give is left out this time (the next
     * run writes it), the others are still published: said in the log */
    if(priv < 0 || store_game_load(svc->st, &g.row, ids[i]) != STORE_OK) {
      ref_log_warn("site: game %lld left out: %s", (long long)ids[i], store_errmsg(svc->st));
      continue;
    }
    if(ref_game_load(svc, &g, ids[i], why, sizeof(why))) {
      ref_log_warn("site: game %lld left out: %s", (long long)ids[i], why);
      continue;
    }
    /* never published: private games; not yet a game: invitations */
    if(g.started) {
      if(g.row.updated >= since) {
        if(game_page(svc, dir, &g, &index, index_json)) {
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
        if(ref_json_push(index_json, public_game_json(&g))) {
          ref_game_free(&g);
          goto out;
        }
      }
    }
    ref_game_free(&g);
  }
  if(ref_site_events(svc, dir, &events))
    goto out;
  {
    char vkey[400];
    struct tpl_var v[3] = {{"games", index.s ? index.s : ""},
                           {"events", events.s ? events.s : ""},
                           {"referee_key", vkey}};
    /* the key every game mail's history is signed with, published where
     * the players can compare it (docs/history-protocol.md) */
    if(ref_history_vkey_text(svc, vkey, sizeof(vkey)))
      goto out;
    if(tpl_render(&subject, &page, svc->cfg.templates_dir, "site-index.html", v, 3) ||
       write_file(dir, "index.html", page, strlen(page)))
      goto out;
    if(ref_json_set_str(doc, "referee_key", vkey))
      goto out;
  }
  if(ref_json_set(doc, "games", json_incref(index_json)) || !(text = ref_json_text(doc)) ||
     write_file(dir, "index.json", text, strlen(text)))
    goto out;
  rc = 0;
out:
  json_decref(index_json);
  json_decref(doc);
  free(text);
  free(subject);
  free(page);
  free(ids);
  base_buf_free(&index);
  base_buf_free(&events);
  return rc;
}
