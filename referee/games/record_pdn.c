/*
 * record_pdn.c: a checkers game as PDN 3.0, written to the
 * PDN 3.0 writing grammar and its restrictions (W. Wesselink, "PDN 3.0
 * Draft Standard", 2012): the tag pairs, [GameType "21"] (English
 * draughts: Black starts, squares 1-32), [FEN] for a game from a set-up
 * position, TimeControl in its MOVES_SECONDS form ("1/604800"),
 * Termination; numbered moves, a capture written from and to only unless
 * another legal capture has the same ends (restriction 8: then the whole
 * path), offers as comments, and the game separator "*" with the result in
 * the Result tag (restriction 4: only "*" separates games).
 *
 * Result: GameType 21's result type is the default one, 1-0, 0-1,
 * 1/2-1/2, written as English checkers records do, the first score the
 * first player's: "1-0" is a win for Black, who moves first (CK-1).
 * docs/records.md says so. Layer 3, "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "11x18x25" as "11x25" unless another legal capture from 11 ends on 25. */
static void short_capture(const struct ref_game_ctx *r, const struct ref_state *before,
                          const char *canon, char *out, size_t cap)
{
  const char *first = strchr(canon, 'x'), *last = strrchr(canon, 'x');
  struct ref_movelist list = {0};
  char buf[REF_NOTATION_MAX], shorter[REF_NOTATION_MAX];
  size_t i;
  int same = 0;

  snprintf(out, cap, "%s", canon);
  if(!first || first == last || !before)
    return;
  snprintf(shorter, sizeof(shorter), "%.*s%s", (int)(first - canon), canon, last);
  if(r->desc->ops->legal(before, &list) != REF_OK) {
    ref_movelist_free(&list);
    return;
  }
  for(i = 0; i < list.n; i++) {
    const char *f, *l;
    if(r->desc->ops->format(before, &list.v[i], REF_NOTATION_CANONICAL, buf, sizeof(buf)))
      continue;
    f = strchr(buf, 'x');
    l = strrchr(buf, 'x');
    if(f && (size_t)(f - buf) == (size_t)(first - canon) && !strncmp(buf, canon, (size_t)(f - buf)) &&
       !strcmp(l, last))
      same++;
  }
  ref_movelist_free(&list);
  if(same == 1)
    snprintf(out, cap, "%s", shorter);
}

static int pdn_move(struct ref_rec_text *t, const struct ref_game_ctx *r,
                    const struct ref_rec_step *st)
{
  char w[400];
  short_capture(r, st->before, st->e->text, w, sizeof(w));
  return ref_record_move(t, st, w);
}

int ref_export_pdn(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags)
{
  struct ref_rec_movetext m = {.move = pdn_move};
  struct ref_state *initial = NULL;
  char name[300], tc[32], start[600] = "";

  if(ref_record_movetext(svc, g, &m))
    return -1;
  /* the standard start needs no FEN; anything else carries it */
  initial = ref_state_new(g->desc);
  if(!initial || g->desc->ops->init(initial, NULL, NULL) != REF_OK ||
     g->desc->ops->encode(initial, start, sizeof(start)) != REF_OK) {
    free(initial);
    base_buf_free(&m.moves);
    return -1;
  }
  free(initial);
  ref_record_head(svc, g, out, flags);
  ref_record_player(g, 0, flags, name, sizeof(name));
  ref_record_tag(out, "Black", name);
  ref_record_player(g, 1, flags, name, sizeof(name));
  ref_record_tag(out, "White", name);
  ref_record_tag(out, "Result", ref_record_result(&m.end));
  ref_record_tag(out, "GameType", "21");
  if(m.start[0] && strcmp(m.start, start))
    ref_record_tag(out, "FEN", m.start);
  ref_record_time_control(svc, g, tc, sizeof(tc));
  ref_record_tag(out, "TimeControl", tc);
  ref_record_tag(out, "Termination", ref_record_termination(&m.end));
  return ref_record_movetext_out(&m, out, "*");
}
