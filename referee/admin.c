/*
 * admin.c: the operator's views over the store: `tabula games`, `tabula
 * show GAME` and `tabula check`, which replays every journal through the
 * rules and compares the result with the stored position and the hash chain,
 * so a rules change can never silently break an old game.
 */
#include "service_int.h"

#include "dice.h"

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
