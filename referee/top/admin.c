/*
 * admin.c: the operator's views over the store: `tabula games`, `tabula
 * show GAME` and `tabula check`, which replays every journal through the
 * rules and compares the result with the stored position and the hash chain,
 * so a rules change can never silently break an old game.
 */
#include "service_int.h"

#include "compete_int.h"

#include "dice.h"
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
    fprintf(stderr, "tabula: no game %lld in %s\n", (long long)id, svc->cfg.store_path);
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

enum { COL_GAME, COL_KIND, COL_PHASE, COL_TURN, COL_PLAYERS, COL_RESULT, NCOLS };

int ref_service_print_games(struct ref_service *svc, FILE *out)
{
  static const char *const head[NCOLS] = {"game", "kind", "phase", "to move", "players",
                                          "result"};
  int64_t *ids = NULL;
  size_t n = 0, i, c, width[NCOLS];
  char **cells;
  int rc = REF_ADMIN_OK;

  /* No command fails without saying why */
  if(store_game_list(svc->st, &ids, &n) != STORE_OK) {
    fprintf(stderr, "tabula: cannot list the games: %s\n", store_errmsg(svc->st));
    return REF_ADMIN_FAILED;
  }
  cells = calloc((n + 1) * NCOLS, sizeof(*cells));
  if(!cells) {
    free(ids);
    return REF_ADMIN_FAILED;
  }
  for(c = 0; c < NCOLS; c++)
    cells[c] = strdup(head[c]);
  for(i = 0; i < n && rc == REF_ADMIN_OK; i++) {
    char **row = cells + (i + 1) * NCOLS;
    const struct ref_game_desc *d;
    struct store_game g;
    struct store_seat *seats = NULL;
    struct base_buf players;
    size_t ns = 0, s;
    if(store_game_load(svc->st, &g, ids[i]) != STORE_OK ||
       store_seat_list(svc->st, &seats, &ns, ids[i]) != STORE_OK) {
      fprintf(stderr, "tabula: game %lld cannot be read: %s\n", (long long)ids[i],
              store_errmsg(svc->st));
      rc = REF_ADMIN_FAILED;
      break;
    }
    d = ref_game_find(g.kind);
    base_buf_init(&players, 64 * 1024);
    for(s = 0; s < ns; s++)
      if(base_buf_printf(&players, "%s%s %s%s", s ? ", " : "", side_name(d, seats[s].seat),
                         seats[s].address, seats[s].accepted ? "" : " (invited)"))
        rc = REF_ADMIN_FAILED; /* a cut list of players is not shown */
    row[COL_GAME] = malloc(24);
    if(row[COL_GAME])
      snprintf(row[COL_GAME], 24, "%lld", (long long)g.id);
    row[COL_KIND] = strdup(g.kind);
    row[COL_PHASE] = strdup(phase_name(g.phase));
    /* only a running game has someone to move */
    row[COL_TURN] = strdup(g.phase == STORE_GAME_ACTIVE ? side_name(d, g.turn) : "-");
    row[COL_PLAYERS] = strdup(players.s ? players.s : "");
    row[COL_RESULT] = strdup(g.result);
    base_buf_free(&players);
    free(seats);
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
  free(ids);
  return rc;
}

int ref_service_print_game(struct ref_service *svc, FILE *out, int64_t id)
{
  struct ref_game_ctx g;
  struct store_entry *e = NULL;
  char board[8192];
  size_t n = 0, i;
  int rc = load_game(svc, &g, id);

  if(rc)
    return rc;
  fprintf(out, "game %lld: %s (rules v%d), %s%s%s\n", (long long)id, g.desc->title,
          g.row.rules_version, phase_name(g.row.phase), g.row.result[0] ? ", " : "",
          g.row.result);
  for(i = 0; i < g.nseats; i++)
    fprintf(out, "  %s: %s%s\n", g.desc->seat_names[i], g.seats[i].address,
            g.seats[i].accepted ? "" : " (invited)");
  if(g.started && g.desc->ops->render(g.state, 0, board, sizeof(board)) == REF_OK)
    fprintf(out, "\n%s\nposition: %s\n", board, g.row.state);
  if(store_journal_load(svc->st, &e, &n, id) == STORE_OK) {
    fputs("\njournal:\n", out);
    for(i = 0; i < n; i++)
      fprintf(out, "  %3lld %-10s %-7s %s%s%s\n", (long long)e[i].seq, e[i].kind,
              e[i].seat >= 0 ? side_name(g.desc, e[i].seat) : "referee", e[i].text,
              e[i].dice[0] ? "  " : "", e[i].dice);
  }
  else
    rc = REF_ADMIN_FAILED;
  free(e);
  ref_game_free(&g);
  return rc;
}

/* SQLite's own check of the file (a flipped byte in an index
 * passes every journal replay). Prints each problem as "store: ..." and
 * returns how many there are; index-only damage gets the repair. */
static size_t check_file(struct ref_service *svc, FILE *out)
{
  char *problems = NULL, *line, *save = NULL;
  size_t bad = 0;
  bool only_indexes = true;

  if(store_integrity_check(svc->st, &problems) != STORE_OK) {
    fprintf(out, "store: SQLite's integrity check cannot run: %s\n", store_errmsg(svc->st));
    return 1;
  }
  for(line = strtok_r(problems, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    fprintf(out, "store: %s\n", line);
    if(!strstr(line, " index "))
      only_indexes = false;
    bad++;
  }
  free(problems);
  if(bad && only_indexes)
    fprintf(out, "store: only indexes are damaged; with the daemon stopped, "
                 "`sqlite3 %s REINDEX` rebuilds them\n",
            svc->cfg.store_path);
  else if(bad)
    fprintf(out, "store: the file is damaged; stop the daemon and restore the store "
                 "from a backup\n");
  return bad;
}

int ref_service_check(struct ref_service *svc, FILE *out)
{
  int64_t *ids = NULL;
  size_t n = 0, i, bad = 0, damaged;

  damaged = check_file(svc, out);
  if(store_game_list(svc->st, &ids, &n) != STORE_OK) {
    fprintf(out, "store: cannot list the games: %s\n", store_errmsg(svc->st));
    fprintf(out, "no game checked: the store is damaged\n");
    return -1;
  }
  for(i = 0; i < n; i++) {
    struct ref_game_ctx g;
    char why[256], pos[600];
    int64_t bad_seq = 0;
    int rc = store_journal_verify(svc->st, &bad_seq, ids[i]);
    if(rc == STORE_ECORRUPT && bad_seq > 0) {
      fprintf(out, "game %lld: journal hash chain broken at entry %lld\n", (long long)ids[i],
              (long long)bad_seq);
      bad++;
      continue;
    }
    if(rc != STORE_OK) {
      fprintf(out, "game %lld: the journal cannot be read: %s\n", (long long)ids[i],
              store_errmsg(svc->st));
      bad++;
      continue;
    }
    /* every entry through the rules, whatever the snapshot says */
    if(ref_game_load_full(svc, &g, ids[i], why, sizeof(why))) {
      fprintf(out, "game %lld: %s\n", (long long)ids[i], why);
      bad++;
      continue;
    }
    if(ref_game_snapshot_check(svc, &g, why, sizeof(why))) {
      fprintf(out, "game %lld: %s\n", (long long)ids[i], why);
      bad++;
    }
    if(g.started) {
      g.desc->ops->encode(g.state, pos, sizeof(pos));
      if(strcmp(pos, g.row.state)) {
        fprintf(out, "game %lld: stored position '%s' but the journal replays to '%s'\n",
                (long long)ids[i], g.row.state, pos);
        bad++;
      }
      else if(g.desc->ops->ok && !g.desc->ops->ok(g.state)) {
        fprintf(out, "game %lld: the replayed position breaks an invariant\n",
                (long long)ids[i]);
        bad++;
      }
    }
    ref_game_free(&g);
  }
  fprintf(out, "%zu game(s) checked, %zu bad\n", n, bad);
  if(damaged)
    fprintf(out, "the store file has %zu problem(s) (store: lines above)\n", damaged);
  free(ids);
  /* Every match's games start from the score the games before
   * them made, and the stored ratings are what the journals give */
  switch(ref_match_check(svc, out)) {
  case 0: break;
  case 1: bad++; break;
  default: fprintf(out, "matches: %s\n", store_errmsg(svc->st)); bad++; break;
  }
  switch(ref_ratings_check(svc, out)) {
  case 0: break;
  case 1: bad++; break;
  default: fprintf(out, "ratings: %s\n", store_errmsg(svc->st)); bad++; break;
  }
  return bad || damaged ? -1 : 0;
}

int ref_service_verify(struct ref_service *svc, FILE *out, int64_t id)
{
  struct ref_game_ctx g;
  struct base_buf t;
  char why[256], game[24], dice[24];
  int made = 0, nrolls = 0, rc = load_game(svc, &g, id);

  if(rc)
    return rc;
  rc = REF_ADMIN_FAULT;
  base_buf_init(&t, 64u * 1024u * 1024u);
  snprintf(game, sizeof(game), "%lld", (long long)id);
  /* a backgammon match's dice are its first game's */
  snprintf(dice, sizeof(dice), "%lld", (long long)ref_dice_game(svc, id));
  if(ref_dice_transcript(svc, &g, &t, &made, 0)) {
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
  store_rollback(svc->st);
  base_buf_free(&m.events);
  return rc;
}

/* The game's record on `out`: PGN for chess, a transcript with the dice
 * lines for the others (record.c). */
int ref_service_export(struct ref_service *svc, FILE *out, int64_t id)
{
  struct ref_game_ctx g;
  struct base_buf b;
  int rc = load_game(svc, &g, id);

  if(rc)
    return rc;
  base_buf_init(&b, 64u * 1024u * 1024u);
  if(!ref_game_export(svc, &g, &b, 0))
    fputs(b.s ? b.s : "", out);
  else {
    fprintf(stderr, "tabula: game %lld: the journal does not replay\n", (long long)id);
    rc = REF_ADMIN_FAULT;
  }
  base_buf_free(&b);
  ref_game_free(&g);
  return rc;
}
