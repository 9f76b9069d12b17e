/*
 * admin.c: the operator's views over the store: `tabula games`, `tabula
 * show GAME` and `tabula check`, which replays every journal through the
 * rules and compares the result with the stored position and the hash chain,
 * so a rules change can never silently break an old game.
 */
#include "service_int.h"

#include "dice.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

static const char *phase_name(enum store_game_phase p)
{
  static const char *const names[] = {"invited", "active", "finished", "cancelled"};
  return (unsigned)p < 4 ? names[p] : "?";
}

int ref_service_print_games(struct ref_service *svc, FILE *out)
{
  int64_t *ids = NULL;
  size_t n = 0, i;

  if(store_game_list(svc->st, &ids, &n) != STORE_OK)
    return -1;
  fprintf(out, "%-6s %-12s %-10s %-8s %s\n", "game", "kind", "phase", "to move", "players");
  for(i = 0; i < n; i++) {
    struct store_game g;
    struct store_seat *seats = NULL;
    size_t ns = 0, s;
    if(store_game_load(svc->st, &g, ids[i]) != STORE_OK)
      continue;
    store_seat_list(svc->st, &seats, &ns, ids[i]);
    fprintf(out, "%-6lld %-12s %-10s %-8d ", (long long)g.id, g.kind, phase_name(g.phase),
            g.turn);
    for(s = 0; s < ns; s++)
      fprintf(out, "%s%s", s ? " v " : "", seats[s].address);
    fprintf(out, "%s%s\n", g.result[0] ? "  " : "", g.result);
    free(seats);
  }
  free(ids);
  return 0;
}

int ref_service_print_game(struct ref_service *svc, FILE *out, int64_t id)
{
  struct ref_game_ctx g;
  struct store_entry *e = NULL;
  char why[256], board[8192];
  size_t n = 0, i;

  if(ref_game_load(svc, &g, id, why, sizeof(why))) {
    fprintf(stderr, "tabula: %s\n", why);
    return -1;
  }
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
      fprintf(out, "  %3lld %-7s seat %2d  %s%s%s\n", (long long)e[i].seq, e[i].kind,
              e[i].seat, e[i].text, e[i].dice[0] ? "  " : "", e[i].dice);
  }
  free(e);
  ref_game_free(&g);
  return 0;
}

int ref_service_check(struct ref_service *svc, FILE *out)
{
  int64_t *ids = NULL;
  size_t n = 0, i, bad = 0;

  if(store_game_list(svc->st, &ids, &n) != STORE_OK)
    return -1;
  for(i = 0; i < n; i++) {
    struct ref_game_ctx g;
    char why[256], pos[600];
    int64_t bad_seq = 0;
    if(store_journal_verify(svc->st, &bad_seq, ids[i]) != STORE_OK) {
      fprintf(out, "game %lld: journal hash chain broken at entry %lld\n", (long long)ids[i],
              (long long)bad_seq);
      bad++;
      continue;
    }
    if(ref_game_load(svc, &g, ids[i], why, sizeof(why))) {
      fprintf(out, "game %lld: %s\n", (long long)ids[i], why);
      bad++;
      continue;
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
  free(ids);
  return bad ? -1 : 0;
}

int ref_service_verify(struct ref_service *svc, FILE *out, int64_t id)
{
  struct ref_game_ctx g;
  struct ref_buf t;
  char why[256], game[24];
  int made = 0, nrolls = 0, rc = -1;

  if(ref_game_load(svc, &g, id, why, sizeof(why))) {
    fprintf(stderr, "tabula: %s\n", why);
    return -1;
  }
  ref_buf_init(&t, 64u * 1024u * 1024u);
  snprintf(game, sizeof(game), "%lld", (long long)id);
  if(ref_dice_transcript(svc, &g, &t, &made))
    fprintf(out, "game %s has no dice\n", game);
  else if(made && ref_dice_verify_game(t.s, game, &nrolls, why, sizeof(why)))
    fprintf(out, "game %s: %s\n", game, why);
  else if(nrolls != made)
    fprintf(out, "game %s: %d rolls made, %d verified\n", game, made, nrolls);
  else {
    fprintf(out, "game %s: all %d rolls verify\n", game, nrolls);
    rc = 0;
  }
  ref_buf_free(&t);
  ref_game_free(&g);
  return rc;
}

/* ---- tabula adjudicate GAME RESULT, tabula export GAME ---- */

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
 * what the moves made it), the game finished, and every player and
 * observer mailed, in one transaction. */
int ref_service_adjudicate(struct ref_service *svc, FILE *out, int64_t id, const char *result)
{
  struct ref_game_ctx g;
  struct ref_msg_ctx m;
  struct tpl_var extra[1];
  char why[256], text[32];
  int winner, rc = -1;

  memset(&m, 0, sizeof(m));
  m.svc = svc;
  m.message_id = "";
  ref_buf_init(&m.events, 64 * 1024);
  if(store_begin(svc->st) != STORE_OK) {
    fprintf(stderr, "tabula: %s\n", store_errmsg(svc->st));
    ref_buf_free(&m.events);
    return -1;
  }
  if(ref_game_load(svc, &g, id, why, sizeof(why))) {
    fprintf(stderr, "tabula: %s\n", why);
    goto fail;
  }
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
     ref_journal(svc, &g, -1, "end", g.row.result, NULL) ||
     store_game_update(svc->st, &g.row) != STORE_OK || ref_clock_sync(svc, &g))
    goto fail_store;
  extra[0].name = "result";
  extra[0].value = g.row.result;
  if(ref_tell_result(&m, &g, "adjudicated.txt", extra, 1) ||
     ref_tell_observers(&m, &g, "adjudicated.txt", extra, 1))
    goto fail_store;
  if(store_commit(svc->st) != STORE_OK)
    goto fail_store;
  ref_log_info("game %lld: adjudicated, %s", (long long)id, g.row.result);
  fprintf(out, "game %lld: %s\n", (long long)id, g.row.result);
  rc = 0;
  goto done;
fail_store:
  fprintf(stderr, "tabula: game %lld not adjudicated: %s\n", (long long)id,
          store_errmsg(svc->st));
fail_game:
  ref_game_free(&g);
fail:
  store_rollback(svc->st);
  ref_buf_free(&m.events);
  return -1;
done:
  ref_game_free(&g);
  ref_buf_free(&m.events);
  return rc;
}

/* The game's record on `out`: PGN for chess, a transcript with the dice
 * lines for the others (record.c). */
int ref_service_export(struct ref_service *svc, FILE *out, int64_t id)
{
  struct ref_game_ctx g;
  struct ref_buf b;
  char why[256];
  int rc;

  if(ref_game_load(svc, &g, id, why, sizeof(why))) {
    fprintf(stderr, "tabula: %s\n", why);
    return -1;
  }
  ref_buf_init(&b, 64u * 1024u * 1024u);
  rc = ref_game_export(svc, &g, &b, 0);
  if(!rc)
    fputs(b.s ? b.s : "", out);
  else
    fprintf(stderr, "tabula: game %lld: the journal does not replay\n", (long long)id);
  ref_buf_free(&b);
  ref_game_free(&g);
  return rc ? -1 : 0;
}
