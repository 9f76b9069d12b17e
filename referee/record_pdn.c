/*
 * record_pdn.c: a checkers game as PDN 3.0 (issue 17), written to the
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

struct pdn_ctx {
  struct ref_rec_text t;
  char start[600];
};

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

static int pdn_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct pdn_ctx *c = arg;
  const struct store_entry *e = st->e;
  char w[400];

  if(!strcmp(e->kind, "start"))
    return r->desc->ops->encode(r->state, c->start, sizeof(c->start)) == REF_OK ? 0 : -1;
  if(!strcmp(e->kind, "move")) {
    short_capture(r, st->before, e->text, w, sizeof(w));
    return ref_record_move(&c->t, st, w);
  }
  return ref_record_note(&c->t, r, st);
}

int ref_export_pdn(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out,
                   unsigned flags)
{
  struct pdn_ctx c;
  struct ref_buf moves;
  struct ref_rec_end end;
  struct ref_state *initial = NULL;
  char date[16], event[64], name[300], tc[32], start[600] = "";
  const char *result;
  int rc = -1;

  memset(&c, 0, sizeof(c));
  ref_buf_init(&moves, 4u * 1024u * 1024u);
  c.t.text = &moves;
  c.t.need_number = 1;
  if(ref_record_walk(svc, g, pdn_step, &c, NULL) || ref_record_end(svc, g, &end))
    goto out;
  /* the standard start needs no FEN; anything else carries it */
  initial = ref_state_new(g->desc);
  if(!initial || g->desc->ops->init(initial, NULL, NULL) != REF_OK ||
     g->desc->ops->encode(initial, start, sizeof(start)) != REF_OK)
    goto out;
  result = !end.over ? "*" : end.winner == 0 ? "1-0" : end.winner == 1 ? "0-1" : "1/2-1/2";
  ref_record_date(g, date, sizeof(date));
  snprintf(event, sizeof(event), "tabula game %lld", (long long)g->row.id);
  ref_record_tag(out, "Event", event);
  ref_record_tag(out, "Site", svc->cfg.address);
  ref_record_tag(out, "Date", date);
  ref_record_player(g, 0, flags, name, sizeof(name));
  ref_record_tag(out, "Black", name);
  ref_record_player(g, 1, flags, name, sizeof(name));
  ref_record_tag(out, "White", name);
  ref_record_tag(out, "Result", result);
  ref_record_tag(out, "GameType", "21");
  if(c.start[0] && strcmp(c.start, start))
    ref_record_tag(out, "FEN", c.start);
  ref_record_time_control(svc, g, tc, sizeof(tc));
  ref_record_tag(out, "TimeControl", tc);
  ref_record_tag(out, "Termination", ref_record_termination(&end));
  ref_buf_puts(out, "\n");
  if(ref_record_word(&c.t, "*"))
    goto out;
  ref_buf_printf(out, "%s\n\n", moves.s ? moves.s : "");
  rc = 0;
out:
  free(initial);
  ref_buf_free(&moves);
  return rc;
}
