/*
 * admin.c: the operator's views over the store: `tabula games`, `tabula
 * show GAME` and `tabula check`, which replays every journal through the
 * rules and compares the result with the stored position and the hash chain,
 * so a rules change can never silently break an old game.
 */
#include "service_int.h"

#include "compete_int.h"

#include "dice.h"
#include "checkpoint.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

static const char *phase_name(enum store_game_phase p)
{
  static const char *const names[] = {"invited", "active", "finished", "cancelled"};
  return (unsigned)p < 4 ? names[p] : "?";
}

/* Loads one game for an operator's command, saying on stderr why not. */
static int load_game(struct ref_service *svc, struct ref_game_ctx *g, int64_t id)
{
  struct store_game row;
  char why[256];
  int rc = store_game_load(svc->st, &row, id);
  if(rc == STORE_ENOTFOUND) {
    fprintf(stderr, "tabula: no game %lld in %s\n", (long long)id, ref_config_store(&svc->cfg));
    return REF_ADMIN_NO_GAME;
  }
  if(rc != STORE_OK) {
    fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
    return REF_ADMIN_FAILED;
  }
  if(ref_game_load(svc, g, id, why, sizeof(why))) {
    fprintf(stderr, "tabula: %s\n", why);
    return REF_ADMIN_FAILED;
  }
  return REF_ADMIN_OK;
}

/* A seat by its side's name ("White"); numbers mean nothing to an operator
 * (`games` showed seats as 0, 1, -1). */
static const char *side_name(const struct ref_game_desc *d, int seat)
{
  return d && seat >= 0 && seat < d->seats ? d->seat_names[seat] : "-";
}

/* ---- tabula games, tabula show GAME: gathered once, written as text or
 * JSON (docs/json.md) ---- */

/* One game as `games` lists it. */
struct game_line {
  struct store_game g;
  const struct ref_game_desc *d; /* NULL: a kind this tabula does not know */
  struct store_seat *seats;
  size_t ns;
};

static void game_lines_free(struct game_line *lines, size_t n)
{
  size_t i;
  for(i = 0; lines && i < n; i++)
    free(lines[i].seats);
  free(lines);
}

/* Every game of the store, in number order. */
static int gather_games(struct ref_service *svc, struct game_line **out, size_t *count)
{
  int64_t *ids = NULL;
  size_t n = 0, i;
  struct game_line *lines;

  /* No command fails without saying why */
  if(store_game_list(svc->st, &ids, &n) != STORE_OK) {
    fprintf(stderr, "tabula: cannot list the games: %s\n", store_errmsg(svc->st));
    return REF_ADMIN_FAILED;
  }
  lines = calloc(n ? n : 1, sizeof(*lines));
  if(!lines) {
    free(ids);
    return REF_ADMIN_FAILED;
  }
  for(i = 0; i < n; i++) {
    if(store_game_load(svc->st, &lines[i].g, ids[i]) != STORE_OK ||
       store_seat_list(svc->st, &lines[i].seats, &lines[i].ns, ids[i]) != STORE_OK) {
      fprintf(stderr, "tabula: game %lld cannot be read: %s\n", (long long)ids[i],
              store_errmsg(svc->st));
      game_lines_free(lines, i + 1);
      free(ids);
      return REF_ADMIN_FAILED;
    }
    lines[i].d = ref_game_find(lines[i].g.kind);
  }
  free(ids);
  *out = lines;
  *count = n;
  return REF_ADMIN_OK;
}

enum { COL_GAME, COL_KIND, COL_PHASE, COL_TURN, COL_PLAYERS, COL_RESULT, NCOLS };

static int games_text(FILE *out, const struct game_line *lines, size_t n)
{
  static const char *const head[NCOLS] = {"game", "kind", "phase", "to move", "players",
                                          "result"};
  size_t i, c, width[NCOLS];
  char **cells;
  int rc = REF_ADMIN_OK;

  cells = calloc((n + 1) * NCOLS, sizeof(*cells));
  if(!cells)
    return REF_ADMIN_FAILED;
  for(c = 0; c < NCOLS; c++)
    cells[c] = strdup(head[c]);
  for(i = 0; i < n; i++) {
    char **row = cells + (i + 1) * NCOLS;
    const struct game_line *l = &lines[i];
    struct base_buf players;
    size_t s;
    base_buf_init(&players, 64 * 1024);
    for(s = 0; s < l->ns; s++)
      if(base_buf_printf(&players, "%s%s %s%s", s ? ", " : "",
                         side_name(l->d, l->seats[s].seat), l->seats[s].address,
                         l->seats[s].accepted ? "" : " (invited)"))
        rc = REF_ADMIN_FAILED; /* a cut list of players is not shown */
    row[COL_GAME] = malloc(24);
    if(row[COL_GAME])
      snprintf(row[COL_GAME], 24, "%lld", (long long)l->g.id);
    row[COL_KIND] = strdup(l->g.kind);
    row[COL_PHASE] = strdup(phase_name(l->g.phase));
    /* only a running game has someone to move */
    row[COL_TURN] = strdup(l->g.phase == STORE_GAME_ACTIVE ? side_name(l->d, l->g.turn) : "-");
    row[COL_PLAYERS] = strdup(players.s ? players.s : "");
    row[COL_RESULT] = strdup(l->g.result);
    base_buf_free(&players);
  }
  for(i = 0; i <= n; i++)
    for(c = 0; c < NCOLS; c++)
      if(!cells[i * NCOLS + c])
        rc = REF_ADMIN_FAILED;
  if(rc == REF_ADMIN_OK) {
    for(c = 0; c < NCOLS; c++) {
      width[c] = 0;
      for(i = 0; i <= n; i++)
        if(strlen(cells[i * NCOLS + c]) > width[c])
          width[c] = strlen(cells[i * NCOLS + c]);
    }
    for(i = 0; i <= n; i++) {
      size_t last = NCOLS - 1;
      /* no trailing blanks: the last non-empty cell is not padded */
      while(last > 0 && !cells[i * NCOLS + last][0])
        last--;
      for(c = 0; c < last; c++)
        fprintf(out, "%-*s  ", (int)width[c], cells[i * NCOLS + c]);
      fprintf(out, "%s\n", cells[i * NCOLS + last]);
    }
  }
  for(i = 0; i < (n + 1) * NCOLS; i++)
    free(cells[i]);
  free(cells);
  return rc;
}

/* A side's name as JSON: null where the text says "-" (nobody to move). */
static json_t *side_json(const struct ref_game_desc *d, int seat)
{
  return d && seat >= 0 && seat < d->seats ? ref_json_str(d->seat_names[seat]) : json_null();
}

/* The fields `games` and `show` share (docs/json.md, "A game"); the
 * operator's view, so the players' addresses are in it. */
static json_t *game_json(const struct store_game *g, const struct ref_game_desc *d,
                         const struct store_seat *seats, size_t ns)
{
  json_t *o = json_object(), *players = json_array();
  size_t s;
  int bad = !o || !players;
  for(s = 0; s < ns && !bad; s++) {
    json_t *p = json_object();
    bad = !p || ref_json_set(p, "seat", json_integer(seats[s].seat)) ||
          ref_json_set(p, "side", side_json(d, seats[s].seat)) ||
          ref_json_set_str(p, "address", seats[s].address) ||
          ref_json_set(p, "accepted", json_boolean(seats[s].accepted));
    bad = bad ? (json_decref(p), 1) : ref_json_push(players, p);
  }
  if(bad || ref_json_set(o, "game", json_integer(g->id)) ||
     ref_json_set_str(o, "kind", g->kind) ||
     ref_json_set(o, "title", d ? ref_json_str(d->title) : json_null()) ||
     ref_json_set(o, "rules_version", json_integer(g->rules_version)) ||
     ref_json_set_str(o, "phase", phase_name(g->phase)) ||
     ref_json_set(o, "to_move",
                  g->phase == STORE_GAME_ACTIVE ? side_json(d, g->turn) : json_null()) ||
     ref_json_set(o, "result", g->result[0] ? ref_json_str(g->result) : json_null()) ||
     ref_json_set_str(o, "options", g->options) ||
     ref_json_set(o, "created", json_integer(g->created)) ||
     ref_json_set(o, "updated", json_integer(g->updated)) ||
     ref_json_set(o, "deadline", g->deadline ? json_integer(g->deadline) : json_null()) ||
     ref_json_set(o, "players", json_incref(players))) {
    json_decref(players);
    json_decref(o);
    return NULL;
  }
  json_decref(players);
  return o;
}

static int games_json(FILE *out, const struct game_line *lines, size_t n)
{
  json_t *doc = ref_json_doc("games"), *games = json_array();
  size_t i;
  int bad = !doc || !games;
  for(i = 0; i < n && !bad; i++)
    bad = ref_json_push(games, game_json(&lines[i].g, lines[i].d, lines[i].seats, lines[i].ns));
  if(bad || ref_json_set(doc, "games", json_incref(games))) {
    json_decref(games);
    json_decref(doc);
    fprintf(stderr, "tabula: the JSON could not be made (out of memory)\n");
    return REF_ADMIN_FAILED;
  }
  json_decref(games);
  return ref_json_write(out, doc) ? REF_ADMIN_FAILED : REF_ADMIN_OK;
}

int ref_service_print_games(struct ref_service *svc, FILE *out, enum ref_output form)
{
  struct game_line *lines = NULL;
  size_t n = 0;
  int rc = gather_games(svc, &lines, &n);
  if(rc == REF_ADMIN_OK)
    rc = form == REF_OUTPUT_JSON ? games_json(out, lines, n) : games_text(out, lines, n);
  game_lines_free(lines, n);
  return rc;
}

/* One game as `show` shows it: the game, its board when it started, its
 * journal. */
struct game_view {
  struct ref_game_ctx g;
  char board[8192];
  int has_board;
  struct store_entry *e;
  size_t n;
  int journal_ok;
};

static void show_text(FILE *out, const struct game_view *v)
{
  const struct ref_game_ctx *g = &v->g;
  size_t i;
  fprintf(out, "game %lld: %s (rules v%d), %s%s%s\n", (long long)g->row.id, g->desc->title,
          g->row.rules_version, phase_name(g->row.phase), g->row.result[0] ? ", " : "",
          g->row.result);
  for(i = 0; i < g->nseats; i++)
    fprintf(out, "  %s: %s%s\n", g->desc->seat_names[i], g->seats[i].address,
            g->seats[i].accepted ? "" : " (invited)");
  if(v->has_board)
    fprintf(out, "\n%s\nposition: %s\n", v->board, g->row.state);
  if(!v->journal_ok)
    return;
  fputs("\njournal:\n", out);
  for(i = 0; i < v->n; i++)
    fprintf(out, "  %3lld %-10s %-7s %s%s%s\n", (long long)v->e[i].seq, v->e[i].kind,
            v->e[i].seat >= 0 ? side_name(g->desc, v->e[i].seat) : "referee", v->e[i].text,
            v->e[i].dice[0] ? "  " : "", v->e[i].dice);
}

static int show_json(FILE *out, const struct game_view *v)
{
  const struct ref_game_ctx *g = &v->g;
  json_t *doc = ref_json_doc("show"), *game = NULL, *journal = json_array();
  size_t i;
  int bad = !doc || !journal;
  for(i = 0; i < v->n && !bad; i++) {
    const struct store_entry *e = &v->e[i];
    json_t *o = json_object();
    bad = !o || ref_json_set(o, "seq", json_integer(e->seq)) ||
          ref_json_set(o, "time", json_integer(e->time)) ||
          ref_json_set_str(o, "kind", e->kind) ||
          ref_json_set(o, "seat", e->seat >= 0 ? json_integer(e->seat) : json_null()) ||
          ref_json_set(o, "by", e->seat >= 0 ? side_json(g->desc, e->seat) : ref_json_str("referee")) ||
          ref_json_set_str(o, "text", e->text) ||
          ref_json_set(o, "dice", e->dice[0] ? ref_json_str(e->dice) : json_null()) ||
          ref_json_set_str(o, "hash", e->hash);
    bad = bad ? (json_decref(o), 1) : ref_json_push(journal, o);
  }
  if(!bad) {
    json_t *it;
    const char *key;
    game = game_json(&g->row, g->desc, g->seats, g->nseats);
    bad = !game;
    /* the game's fields at the top, beside the version (docs/json.md) */
    json_object_foreach(game, key, it)
      if(!bad)
        bad = ref_json_set(doc, key, json_incref(it));
  }
  json_decref(game);
  if(bad || ref_json_set(doc, "position", v->has_board ? ref_json_str(g->row.state) : json_null()) ||
     ref_json_set(doc, "board", v->has_board ? ref_json_str(v->board) : json_null()) ||
     ref_json_set(doc, "journal", json_incref(journal))) {
    json_decref(journal);
    json_decref(doc);
    fprintf(stderr, "tabula: the JSON could not be made (out of memory)\n");
    return REF_ADMIN_FAILED;
  }
  json_decref(journal);
  return ref_json_write(out, doc) ? REF_ADMIN_FAILED : REF_ADMIN_OK;
}

int ref_service_print_game(struct ref_service *svc, FILE *out, int64_t id, enum ref_output form)
{
  struct game_view *v = calloc(1, sizeof(*v));
  int rc;

  if(!v)
    return REF_ADMIN_FAILED;
  rc = load_game(svc, &v->g, id);
  if(rc) {
    free(v);
    return rc;
  }
  v->has_board = v->g.started &&
                 v->g.desc->ops->render(v->g.state, 0, v->board, sizeof(v->board)) == REF_OK;
  if(store_journal_load(svc->st, &v->e, &v->n, id) != STORE_OK) {
    /* the text said the game before it failed; a half document is none */
    if(form == REF_OUTPUT_TEXT)
      show_text(out, v);
    fprintf(stderr, "tabula: the journal of game %lld cannot be read: %s\n", (long long)id,
            store_errmsg(svc->st));
    rc = REF_ADMIN_FAILED;
  }
  else {
    v->journal_ok = 1;
    rc = form == REF_OUTPUT_JSON ? show_json(out, v) : (show_text(out, v), REF_ADMIN_OK);
  }
  free(v->e);
  ref_game_free(&v->g);
  free(v);
  return rc;
}

/* ---- tabula check: gathered once (the problems, the counts), written as
 * text or JSON (docs/json.md) ---- */

#define PATH_MAX_TEXT 700 /* the advice: a store path (512, referee.h) and its words */

struct check_result {
  struct ref_problems problems; /* in the order found: store, games, matches, ratings */
  size_t store_problems;        /* SQLite's integrity check: its lines */
  int only_indexes;             /* every one of them in an index */
  int listed;                   /* the games could be listed (else none checked) */
  char list_error[256];
  size_t games, bad_games;
  int matches_rc, ratings_rc;   /* 0 agree, 1 differ, -1 the check failed */
  size_t matches, ratings;
  size_t state_problems;        /* the game state beside the games (check_state) */
  char matches_error[256], ratings_error[256];
};

/* SQLite's own check of the file (a flipped byte in an index
 * passes every journal replay): a "store" problem a line. */
static void check_file(struct ref_service *svc, struct check_result *r)
{
  char *problems = NULL, *line, *save = NULL;

  r->only_indexes = 1;
  if(store_integrity_check(svc->st, &problems) != STORE_OK) {
    ref_problem_add(&r->problems, "store", 0, "SQLite's integrity check cannot run: %s",
                    store_errmsg(svc->st));
    r->store_problems = 1;
    r->only_indexes = 0;
    return;
  }
  for(line = strtok_r(problems, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    ref_problem_add(&r->problems, "store", 0, "%s", line);
    if(!strstr(line, " index "))
      r->only_indexes = 0;
    r->store_problems++;
  }
  free(problems);
}

/* The game state beside the games (store_state_check: offers, standing
 * answers, observers, flags, counts): each row that points to no game,
 * seat, player or journal entry, or holds a value out of range, is a
 * "state" problem; one when the check cannot run. */
static void check_state(struct ref_service *svc, struct check_result *r)
{
  char *problems = NULL, *line, *save = NULL;

  if(store_state_check(svc->st, &problems) != STORE_OK) {
    ref_problem_add(&r->problems, "state", 0, "cannot be checked: %s", store_errmsg(svc->st));
    r->state_problems = 1;
    return;
  }
  for(line = strtok_r(problems, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    ref_problem_add(&r->problems, "state", 0, "%s", line);
    r->state_problems++;
  }
  free(problems);
}

static void check_games(struct ref_service *svc, struct check_result *r)
{
  int64_t *ids = NULL;
  size_t n = 0, i;
  struct ref_problems *p = &r->problems;

  if(store_game_list(svc->st, &ids, &n) != STORE_OK) {
    snprintf(r->list_error, sizeof(r->list_error), "%s", store_errmsg(svc->st));
    return;
  }
  r->listed = 1;
  r->games = n;
  for(i = 0; i < n; i++) {
    struct ref_game_ctx g;
    char why[256], pos[600];
    int64_t bad_seq = 0;
    int rc = store_journal_verify(svc->st, &bad_seq, ids[i]);
    if(rc == STORE_ECORRUPT && bad_seq > 0) {
      ref_problem_add(p, "game", ids[i], "journal hash chain broken at entry %lld",
                      (long long)bad_seq);
      r->bad_games++;
      continue;
    }
    if(rc != STORE_OK) {
      ref_problem_add(p, "game", ids[i], "the journal cannot be read: %s", store_errmsg(svc->st));
      r->bad_games++;
      continue;
    }
    /* every entry through the rules, whatever the snapshot says */
    if(ref_game_load_full(svc, &g, ids[i], why, sizeof(why))) {
      ref_problem_add(p, "game", ids[i], "%s", why);
      r->bad_games++;
      continue;
    }
    if(ref_game_snapshot_check(svc, &g, why, sizeof(why))) {
      ref_problem_add(p, "game", ids[i], "%s", why);
      r->bad_games++;
    }
    if(g.started) {
      g.desc->ops->encode(g.state, pos, sizeof(pos));
      if(strcmp(pos, g.row.state)) {
        ref_problem_add(p, "game", ids[i], "stored position '%s' but the journal replays to '%s'",
                        g.row.state, pos);
        r->bad_games++;
      }
      else if(g.desc->ops->ok && !g.desc->ops->ok(g.state)) {
        ref_problem_add(p, "game", ids[i], "the replayed position breaks an invariant");
        r->bad_games++;
      }
    }
    ref_game_free(&g);
  }
  free(ids);
}

static void gather_check(struct ref_service *svc, struct check_result *r)
{
  memset(r, 0, sizeof(*r));
  check_file(svc, r);
  check_games(svc, r);
  if(!r->listed)
    return;
  /* Every match's games start from the score the games before
   * them made, and the stored ratings are what the journals give */
  r->matches_rc = ref_match_check(svc, &r->problems, &r->matches);
  if(r->matches_rc < 0)
    snprintf(r->matches_error, sizeof(r->matches_error), "%s", store_errmsg(svc->st));
  r->ratings_rc = ref_ratings_check(svc, &r->problems, &r->ratings);
  if(r->ratings_rc < 0)
    snprintf(r->ratings_error, sizeof(r->ratings_error), "%s", store_errmsg(svc->st));
  check_state(svc, r);
}

/* How many problems are about `about` (the bad matches, the bad ratings:
 * each differs once). */
static size_t count_about(const struct check_result *r, const char *about)
{
  size_t i, n = 0;
  for(i = 0; i < r->problems.n; i++)
    n += !strcmp(r->problems.v[i].about, about);
  return n;
}

/* What the operator does about a damaged file (NULL: it is whole). */
static const char *store_advice(struct ref_service *svc, const struct check_result *r,
                                char *buf, size_t cap)
{
  if(!r->store_problems)
    return NULL;
  if(r->only_indexes)
    snprintf(buf, cap, "only indexes are damaged; with the daemon stopped, `sqlite3 %s REINDEX` "
                       "rebuilds them",
             svc->cfg.store_path);
  else
    snprintf(buf, cap, "the file is damaged; stop the daemon and restore the store from a backup");
  return buf;
}

static int check_failed(const struct check_result *r)
{
  return !r->listed || r->store_problems || r->bad_games || r->matches_rc ||
         r->ratings_rc || r->state_problems || r->problems.lost;
}

static void check_problems_text(FILE *out, const struct check_result *r, const char *about)
{
  size_t i;
  for(i = 0; i < r->problems.n; i++) {
    const struct ref_problem *q = &r->problems.v[i];
    if(strcmp(q->about, about))
      continue;
    if(q->number)
      fprintf(out, "%s %lld: %s\n", q->about, (long long)q->number, q->text);
    else
      fprintf(out, "%s: %s\n", q->about, q->text);
  }
}

static void check_text(struct ref_service *svc, FILE *out, const struct check_result *r)
{
  char advice[PATH_MAX_TEXT];
  const char *a = store_advice(svc, r, advice, sizeof(advice));

  check_problems_text(out, r, "store");
  if(a)
    fprintf(out, "store: %s\n", a);
  if(!r->listed) {
    fprintf(out, "store: cannot list the games: %s\n", r->list_error);
    fprintf(out, "no game checked: the store is damaged\n");
    return;
  }
  check_problems_text(out, r, "game");
  fprintf(out, "%zu game(s) checked, %zu bad\n", r->games, r->bad_games);
  if(r->store_problems)
    fprintf(out, "the store file has %zu problem(s) (store: lines above)\n", r->store_problems);
  check_problems_text(out, r, "match");
  if(r->matches_rc >= 0)
    fprintf(out, "%zu match(es) checked, %zu bad\n", r->matches,
            count_about(r, "match"));
  else
    fprintf(out, "matches: %s\n", r->matches_error);
  check_problems_text(out, r, "ratings");
  if(r->ratings_rc >= 0)
    fprintf(out, "%zu rating(s) checked, %zu bad\n", r->ratings,
            count_about(r, "ratings"));
  else
    fprintf(out, "ratings: %s\n", r->ratings_error);
  check_problems_text(out, r, "state");
}

/* A part's count as JSON: {"checked": N, "bad": M, "error": null}, or
 * checked and bad null with the error when it could not run. */
static json_t *part_json(int ran, size_t checked, size_t bad, const char *error)
{
  json_t *o = json_object();
  if(!o || ref_json_set(o, "checked", ran ? json_integer((json_int_t)checked) : json_null()) ||
     ref_json_set(o, "bad", ran ? json_integer((json_int_t)bad) : json_null()) ||
     ref_json_set(o, "error", ran ? json_null() : ref_json_str(error))) {
    json_decref(o);
    return NULL;
  }
  return o;
}

static int check_json(struct ref_service *svc, FILE *out, const struct check_result *r)
{
  char advice[PATH_MAX_TEXT];
  const char *a = store_advice(svc, r, advice, sizeof(advice));
  json_t *doc = ref_json_doc("check"), *store = json_object(), *list = json_array();
  size_t i;
  int bad = !doc || !store || !list;

  for(i = 0; !bad && i < r->problems.n; i++) {
    const struct ref_problem *q = &r->problems.v[i];
    json_t *o = json_object();
    bad = !o || ref_json_set_str(o, "about", q->about) ||
          ref_json_set(o, "number", q->number ? json_integer(q->number) : json_null()) ||
          ref_json_set_str(o, "text", q->text);
    bad = bad ? (json_decref(o), 1) : ref_json_push(list, o);
  }
  bad = bad || ref_json_set(store, "problems", json_integer((json_int_t)r->store_problems)) ||
        ref_json_set(store, "only_indexes",
                     json_boolean(r->store_problems && r->only_indexes)) ||
        ref_json_set(store, "advice", a ? ref_json_str(a) : json_null());
  if(bad || ref_json_set(doc, "ok", json_boolean(!check_failed(r))) ||
     ref_json_set(doc, "store", json_incref(store)) ||
     ref_json_set(doc, "games", part_json(r->listed, r->games, r->bad_games, r->list_error)) ||
     ref_json_set(doc, "matches",
                  r->listed ? part_json(r->matches_rc >= 0, r->matches,
                                        count_about(r, "match"), r->matches_error)
                            : json_null()) ||
     ref_json_set(doc, "ratings",
                  r->listed ? part_json(r->ratings_rc >= 0, r->ratings,
                                        count_about(r, "ratings"), r->ratings_error)
                            : json_null()) ||
     ref_json_set(doc, "state",
                  r->listed ? json_pack("{s:I}", "problems", (json_int_t)r->state_problems)
                            : json_null()) ||
     ref_json_set(doc, "problems", json_incref(list))) {
    json_decref(store);
    json_decref(list);
    json_decref(doc);
    fprintf(stderr, "tabula: the JSON could not be made (out of memory)\n");
    return -1;
  }
  json_decref(store);
  json_decref(list);
  return ref_json_write(out, doc);
}

int ref_service_check(struct ref_service *svc, FILE *out, enum ref_output form)
{
  struct check_result *r = calloc(1, sizeof(*r));
  int rc = -1;
  if(!r)
    return -1;
  gather_check(svc, r);
  if(form == REF_OUTPUT_JSON) {
    if(!check_json(svc, out, r) && !check_failed(r))
      rc = 0;
  }
  else {
    check_text(svc, out, r);
    if(!check_failed(r))
      rc = 0;
  }
  ref_problems_free(&r->problems);
  free(r);
  return rc;
}

/* ---- tabula store copy FROM TO ---- */

int ref_service_store_copy(const struct ref_config *cfg, const char *from, const char *to,
                           FILE *out)
{
  struct store_copy_report rep;
  struct ref_config target = *cfg;
  struct ref_service *svc = NULL;
  char err[1024], a[600], b[600];
  size_t i, shown = 0;
  int rc;

  store_display_name(from, a, sizeof(a));
  store_display_name(to, b, sizeof(b));
  fprintf(out, "copying %s to %s\n", a, b);
  fflush(out);
  switch(store_copy(from, to, &rep, err, sizeof(err))) {
  case STORE_OK: break;
  case STORE_ENOTFOUND:
    fprintf(stderr, "tabula: %s; nothing was copied\n", err);
    return REF_COPY_NO_SOURCE;
  case STORE_EBUSY: fprintf(stderr, "tabula: %s\n", err); return REF_COPY_BUSY;
  case STORE_EEXIST: fprintf(stderr, "tabula: %s\n", err); return REF_COPY_NOT_EMPTY;
  default:
    fprintf(stderr, "tabula: %s; the target holds nothing of the copy\n", err);
    return REF_COPY_FAILED;
  }
  /* the tables that had rows, "name count", in lines of at most 72 */
  for(i = 0; i < rep.ntables; i++)
    if(rep.tables[i].rows) {
      char item[64];
      int n = snprintf(item, sizeof(item), "%s %lld", rep.tables[i].name,
                       (long long)rep.tables[i].rows);
      if(shown && shown + 2 + (size_t)n > 72) {
        fputs(",\n", out);
        shown = 0;
      }
      fprintf(out, "%s%s", shown ? ", " : "  ", item);
      shown += 2 + (size_t)n;
    }
  fprintf(out, "%s%lld row(s) of %zu table(s) copied, the same count on both sides\n",
          shown ? "\n" : "", (long long)rep.rows, rep.ntables);
  fprintf(out, "%s\n", rep.key ? "the referee's key copied: the copy signs as the source did"
                                : "the source has no referee key yet: the copy makes one when it "
                                  "first needs it");
  /* The copy checked as `tabula check` checks a store, on the target */
  if(store_names_file(to)) {
    snprintf(target.store_path, sizeof(target.store_path), "%s", to);
    target.store[0] = '\0';
  }
  else
    snprintf(target.store, sizeof(target.store), "%s", to);
  fprintf(out, "checking the copy (tabula check):\n");
  fflush(out);
  if(ref_service_open(&svc, &target, err, sizeof(err))) {
    fprintf(stderr, "tabula: the copy cannot be opened to check it: %s\n", err);
    return REF_COPY_FAULT;
  }
  rc = ref_service_check(svc, out, REF_OUTPUT_TEXT);
  ref_service_close(svc);
  if(rc) {
    fprintf(out, "the copy does not check clean: do not serve it; the source is unchanged\n");
    return REF_COPY_FAULT;
  }
  fprintf(out, "the copy checks clean: name it in tabula.ini (%s) and start tabula on it\n",
          store_names_file(to) ? "store_path" : "store");
  return REF_COPY_OK;
}

int ref_service_key(struct ref_service *svc, FILE *out, int rotate)
{
  struct ref_history_key k;
  struct base_buf t;
  uint8_t seed[32];
  int rc;

  /* the store's own transaction: two first starts make one key (kv's
   * ON CONFLICT, the file's link) */
  rc = rotate ? store_referee_key_rotate(svc->st, seed) : store_referee_key(svc->st, seed, true, NULL);
  if(rc != STORE_OK) {
    fprintf(stderr, "tabula: the referee's key: %s\n", store_errmsg(svc->st));
    return REF_ADMIN_FAILED;
  }
  if(ref_history_key_init(&k, seed, svc->cfg.address)) {
    memset(seed, 0, sizeof(seed));
    fprintf(stderr, "tabula: the address %s cannot name a key (no space)\n",
            svc->cfg.address);
    return REF_ADMIN_REFUSED;
  }
  memset(seed, 0, sizeof(seed));
  base_buf_init(&t, 4096);
  rc = ref_history_vkey(&t, &k);
  memset(&k, 0, sizeof(k));
  if(rc) {
    base_buf_free(&t);
    return REF_ADMIN_FAILED;
  }
  fprintf(out, "%s\n", t.s);
  base_buf_free(&t);
  /* a running daemon reads its key once; it is told by its restart */
  ref_history_free(svc);
  return REF_ADMIN_OK;
}

int ref_service_verify(struct ref_service *svc, FILE *out, int64_t id)
{
  struct ref_game_ctx g;
  struct base_buf t;
  char why[256], game[24], dice[24];
  int made = 0, nrolls = 0, tr, rc = load_game(svc, &g, id);

  if(rc)
    return rc;
  rc = REF_ADMIN_FAULT;
  base_buf_init(&t, 64u * 1024u * 1024u);
  snprintf(game, sizeof(game), "%lld", (long long)id);
  /* a backgammon match's dice are its first game's */
  snprintf(dice, sizeof(dice), "%lld", (long long)ref_dice_game(svc, id));
  if((tr = ref_dice_transcript(svc, &g, &t, &made, 0)) < 0) {
    fprintf(stderr, "tabula: game %s: the dice cannot be read: %s\n", game,
            store_errmsg(svc->st));
    rc = REF_ADMIN_FAILED;
  }
  else if(tr) {
    fprintf(out, "game %s has no dice\n", game);
    rc = REF_ADMIN_REFUSED;
  }
  else if(made && ref_dice_verify_game(t.s, dice, &nrolls, why, sizeof(why)))
    fprintf(out, "game %s: %s\n", game, why);
  else if(nrolls != made)
    fprintf(out, "game %s: %d rolls made, %d verified\n", game, made, nrolls);
  else {
    fprintf(out, "game %s: all %d rolls verify\n", game, nrolls);
    rc = REF_ADMIN_OK;
  }
  base_buf_free(&t);
  ref_game_free(&g);
  return rc;
}

/* ---- tabula adjudicate GAME RESULT [--reason TEXT], tabula export GAME ---- */

/* RESULT: a seat's name (that seat wins), "1-0" / "0-1" for two seats, or
 * "draw" / "1/2-1/2" in a game with draws. -2 when it is none of those. */
static int adjudication_winner(const struct ref_game_desc *d, const char *result)
{
  int s;
  for(s = 0; s < d->seats; s++)
    if(!strcasecmp(result, d->seat_names[s]))
      return s;
  if(d->seats == 2 && !strcmp(result, "1-0"))
    return 0;
  if(d->seats == 2 && !strcmp(result, "0-1"))
    return 1;
  if((d->flags & REF_GAME_DRAWS) && (!strcasecmp(result, "draw") || !strcmp(result, "1/2-1/2")))
    return -1;
  return -2;
}

/* The operator decides a running game (REF_END_ADJUDICATED). The decision
 * is journaled ("adjudicate", replayed as bookkeeping: the position stays
 * what the moves made it; then the operator's reason, if any, as a
 * "reason" entry, so the record keeps why), the game finished, and every
 * player and observer mailed, in one transaction. */
int ref_service_adjudicate(struct ref_service *svc, FILE *out, int64_t id, const char *result,
                           const char *reason)
{
  struct ref_game_ctx g;
  struct ref_msg_ctx m;
  struct tpl_var extra[2];
  char text[32];
  int winner, rc;

  memset(&m, 0, sizeof(m));
  m.svc = svc;
  m.message_id = "";
  if(store_begin(svc->st) != STORE_OK) {
    fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
    return REF_ADMIN_FAILED;
  }
  base_buf_init(&m.events, 64 * 1024);
  rc = load_game(svc, &g, id);
  if(rc)
    goto fail;
  rc = REF_ADMIN_REFUSED;
  if(g.row.phase != STORE_GAME_ACTIVE) {
    fprintf(stderr, "tabula: game %lld is %s, not running: nothing to adjudicate\n",
            (long long)id, phase_name(g.row.phase));
    goto fail_game;
  }
  winner = adjudication_winner(g.desc, result);
  if(winner == -2) {
    fprintf(stderr, "tabula: '%s' is not a result of game %lld: write %s or %s%s%s\n", result,
            (long long)id, g.desc->seat_names[0], g.desc->seat_names[1],
            g.desc->seats == 2 ? ", 1-0 or 0-1" : "",
            (g.desc->flags & REF_GAME_DRAWS) ? ", or draw" : " (no draws in this game)");
    goto fail_game;
  }
  rc = REF_ADMIN_FAILED;
  if(winner >= 0)
    snprintf(text, sizeof(text), "winner %d", winner);
  else
    snprintf(text, sizeof(text), "draw");
  if(winner >= 0)
    snprintf(g.row.result, sizeof(g.row.result), "%s won by adjudication",
             g.desc->seat_names[winner]);
  else
    snprintf(g.row.result, sizeof(g.row.result), "draw by adjudication");
  g.row.phase = STORE_GAME_FINISHED;
  g.row.turn = -1;
  g.row.draw_offer_seat = -1;
  g.row.updated = ref_now(svc);
  if(ref_journal(svc, &g, -1, "adjudicate", text, NULL) ||
     (reason && reason[0] && ref_journal(svc, &g, -1, "reason", reason, NULL)) ||
     ref_journal(svc, &g, -1, "end", g.row.result, NULL) ||
     store_game_update(svc->st, &g.row) != STORE_OK || ref_clock_sync(svc, &g))
    goto fail_store;
  extra[0].name = "result";
  extra[0].value = g.row.result;
  extra[1].name = "reason"; /* adjudicated.txt: a line only when given */
  extra[1].value = reason ? reason : "";
  if(ref_tell_result(&m, &g, "adjudicated.txt", extra, 2) ||
     ref_tell_observers(&m, &g, "adjudicated.txt", extra, 2) || ref_compete_game_over(&m, &g))
    goto fail_store;
  if(store_commit(svc->st) != STORE_OK)
    goto fail_store;
  ref_log_info("game %lld: adjudicated, %s%s%s", (long long)id, g.row.result,
               reason && reason[0] ? "; reason: " : "", reason ? reason : "");
  fprintf(out, "game %lld: %s\n", (long long)id, g.row.result);
  ref_game_free(&g);
  base_buf_free(&m.events);
  return REF_ADMIN_OK;
fail_store:
  fprintf(stderr, "tabula: game %lld not adjudicated: %s\n", (long long)id,
          store_errmsg(svc->st));
fail_game:
  ref_game_free(&g);
fail:
  ref_store_rollback(svc);
  base_buf_free(&m.events);
  return rc;
}

/* ---- tabula time GAME [add SEAT AMOUNT REASON] ---- */

static void print_clocks(struct ref_service *svc, FILE *out, struct ref_game_ctx *g)
{
  struct ref_clock_shown ck;
  struct store_entry *e = NULL;
  size_t n = 0, i;
  int s;

  if(ref_clock_show(svc, g, 0, &ck)) {
    fprintf(out, "game %lld: the clock does not read\n", (long long)g->row.id);
    return;
  }
  fprintf(out, "game %lld: %s, %s\n", (long long)g->row.id, g->desc->title, ck.control);
  for(s = 0; s < 2 && (size_t)s < g->nseats; s++) {
    char left[48], when[40];
    ref_duration_text(left, sizeof(left), ck.left[s]);
    fprintf(out, "%s %s: %s left, %lld move%s made", g->desc->seat_names[s],
            g->seats[s].address, left, (long long)ck.done[s], ck.done[s] == 1 ? "" : "s");
    if(s == ck.running) {
      ref_time_text(when, sizeof(when), ck.deadline);
      fprintf(out, "; to move, deadline %s", when);
    }
    fputc('\n', out);
  }
  if(store_journal_load(svc->st, &e, &n, g->row.id) != STORE_OK)
    return;
  fprintf(out, "history:\n");
  for(i = 0; i < n; i++) {
    char when[40];
    if(strcmp(e[i].kind, "start") && strcmp(e[i].kind, "move") && strcmp(e[i].kind, "time") &&
       strcmp(e[i].kind, "timeout"))
      continue;
    ref_time_text(when, sizeof(when), e[i].time);
    if(!strcmp(e[i].kind, "move"))
      fprintf(out, "  %s  %s moved: %s\n", when, side_name(g->desc, e[i].seat), e[i].text);
    else if(!strcmp(e[i].kind, "start"))
      fprintf(out, "  %s  the game started\n", when);
    else
      fprintf(out, "  %s  %s\n", when, e[i].text);
  }
  free(e);
}

int ref_service_time(struct ref_service *svc, FILE *out, int64_t id, const char *seat,
                     const char *amount, const char *reason)
{
  struct ref_game_ctx g;
  struct ref_msg_ctx m;
  struct tpl_var extra[3];
  char text[400], amount_text[48], when[40] = "";
  int64_t secs, deadline;
  int s, rc;

  if(!seat) {
    rc = load_game(svc, &g, id);
    if(rc)
      return rc;
    print_clocks(svc, out, &g);
    ref_game_free(&g);
    return REF_ADMIN_OK;
  }
  memset(&m, 0, sizeof(m));
  m.svc = svc;
  m.message_id = "";
  if(store_begin(svc->st) != STORE_OK) {
    fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
    return REF_ADMIN_FAILED;
  }
  base_buf_init(&m.events, 64 * 1024);
  rc = load_game(svc, &g, id);
  if(rc)
    goto fail;
  rc = REF_ADMIN_REFUSED;
  if(g.row.phase != STORE_GAME_ACTIVE || g.nseats != 2) {
    fprintf(stderr, "tabula: game %lld is %s, not running: its clocks stand still\n",
            (long long)id, phase_name(g.row.phase));
    goto fail_game;
  }
  for(s = 0; s < 2 && strcasecmp(seat, g.desc->seat_names[s]); s++)
    ;
  if(s == 2) {
    fprintf(stderr, "tabula: '%s' is no side of game %lld: write %s or %s\n", seat,
            (long long)id, g.desc->seat_names[0], g.desc->seat_names[1]);
    goto fail_game;
  }
  if(ref_duration_parse(amount, &secs)) {
    fprintf(stderr, "tabula: '%s' is no amount of time: write 2d, 12h or 1d12h (at most 365 days)\n",
            amount);
    goto fail_game;
  }
  if(!reason || !reason[0] || strchr(reason, '\n') || strlen(reason) > 200) {
    fprintf(stderr, "tabula: time GAME add SEAT AMOUNT REASON: the reason is one line of at most"
                    " 200 bytes, and it is needed (the players read it)\n");
    goto fail_game;
  }
  rc = REF_ADMIN_FAILED;
  ref_duration_text(amount_text, sizeof(amount_text), secs);
  snprintf(text, sizeof(text), "the operator gave %s %s: %s", g.desc->seat_names[s],
           amount_text, reason);
  if(ref_clock_add(svc, &g, s, secs, 0, &deadline) ||
     ref_journal(svc, &g, -1, "time", text, NULL))
    goto fail_store;
  if(deadline)
    ref_time_text(when, sizeof(when), deadline);
  extra[0].name = "amount";
  extra[0].value = amount_text;
  extra[1].name = "side";
  extra[1].value = g.desc->seat_names[s];
  extra[2].name = "reason";
  extra[2].value = reason;
  if(ref_tell_seat(&m, &g, 0, "time-added.txt", extra, 3) ||
     ref_tell_seat(&m, &g, 1, "time-added.txt", extra, 3) || store_commit(svc->st) != STORE_OK)
    goto fail_store;
  ref_log_info("game %lld: %s", (long long)id, text);
  fprintf(out, "game %lld: %s%s%s\n", (long long)id, text, when[0] ? "; deadline now " : "", when);
  ref_game_free(&g);
  base_buf_free(&m.events);
  return REF_ADMIN_OK;
fail_store:
  fprintf(stderr, "tabula: game %lld: no time added: %s\n", (long long)id,
          store_errmsg(svc->st));
fail_game:
  ref_game_free(&g);
fail:
  ref_store_rollback(svc);
  base_buf_free(&m.events);
  return rc;
}

/* The game's record on `out`, in the game's first format or the one
 * asked for (export.c's table). */
int ref_service_export(struct ref_service *svc, FILE *out, int64_t id, const char *format)
{
  struct ref_game_ctx g;
  struct base_buf b;
  const struct ref_export_kind *k;
  int rc = load_game(svc, &g, id);

  if(rc)
    return rc;
  k = format ? ref_export_format(g.desc, format) : ref_export_kind(g.desc);
  if(!k) {
    fprintf(stderr, "tabula: game %lld (%s) has no record in format '%s': its formats are",
            (long long)id, g.desc->name, format);
    for(k = ref_export_kind(g.desc); k; k = ref_export_next(g.desc, k))
      fprintf(stderr, " %s (%s)", k->ext, k->format);
    fputc('\n', stderr);
    ref_game_free(&g);
    return REF_ADMIN_REFUSED;
  }
  base_buf_init(&b, 64u * 1024u * 1024u);
  if(!ref_game_export_as(svc, &g, k, &b, 0))
    fputs(b.s ? b.s : "", out);
  else {
    fprintf(stderr, "tabula: game %lld: the journal does not replay\n", (long long)id);
    rc = REF_ADMIN_FAULT;
  }
  base_buf_free(&b);
  ref_game_free(&g);
  return rc;
}
