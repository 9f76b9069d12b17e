/*
 * record_pgn.c: a chess game as PGN (issue 17): the Seven Tag Roster,
 * Variant, SetUp/FEN for a game from a set-up position, TimeControl in the
 * correspondence form "1/604800" (one move in seven days), Termination;
 * the moves in SAN as the journal holds them, offers and cube-less actions
 * as comments. pgn-extract reads every export (tests/scripts/records.py).
 *
 * Only chess is written as PGN: the chess hybrids' moves (Chessgammon's
 * bar and bear-off, Back-to-Back's 14-file board, Backgammon Chess's
 * stones) are no chess moves a PGN reader could replay, so they keep the
 * transcript of record.c with the variant named (docs/records.md).
 * Layer 3, "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pgn_ctx {
  struct ref_rec_text t;
  char start[600]; /* the position at "start" */
};

static int pgn_step(void *arg, const struct ref_game_ctx *r, const struct ref_rec_step *st)
{
  struct pgn_ctx *c = arg;
  const struct store_entry *e = st->e;

  if(!strcmp(e->kind, "start"))
    return r->desc->ops->encode(r->state, c->start, sizeof(c->start)) == REF_OK ? 0 : -1;
  if(!strcmp(e->kind, "move"))
    return ref_record_move(&c->t, st, e->text);
  return ref_record_note(&c->t, r, st);
}

static const char *pgn_result(const struct ref_rec_end *end)
{
  if(!end->over)
    return "*";
  return end->winner == 0 ? "1-0" : end->winner == 1 ? "0-1" : "1/2-1/2";
}

int ref_export_pgn(struct ref_service *svc, struct ref_game_ctx *g, struct ref_buf *out,
                   unsigned flags)
{
  struct pgn_ctx c;
  struct ref_buf moves;
  struct ref_rec_end end;
  char date[16], event[64], name[300], tc[32];
  int rc = -1;

  memset(&c, 0, sizeof(c));
  ref_buf_init(&moves, 4u * 1024u * 1024u);
  c.t.text = &moves;
  c.t.need_number = 1;
  if(ref_record_walk(svc, g, pgn_step, &c, NULL) || ref_record_end(svc, g, &end))
    goto out;
  ref_record_date(g, date, sizeof(date));
  snprintf(event, sizeof(event), "tabula game %lld", (long long)g->row.id);
  ref_record_tag(out, "Event", event);
  ref_record_tag(out, "Site", svc->cfg.address);
  ref_record_tag(out, "Date", date);
  ref_record_tag(out, "Round", "-");
  ref_record_player(g, 0, flags, name, sizeof(name));
  ref_record_tag(out, "White", name);
  ref_record_player(g, 1, flags, name, sizeof(name));
  ref_record_tag(out, "Black", name);
  ref_record_tag(out, "Result", pgn_result(&end));
  /* The supplemental tags (PGN 9): the variant as lichess and pgn-extract
   * name it ("Standard", "From Position" for a set-up start: PGN 9.7.1
   * SetUp/FEN), the correspondence time control, why the game ended. */
  if(c.start[0] && strcmp(c.start, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")) {
    ref_record_tag(out, "Variant", "From Position");
    ref_record_tag(out, "SetUp", "1");
    ref_record_tag(out, "FEN", c.start);
  }
  else
    ref_record_tag(out, "Variant", "Standard");
  ref_record_time_control(svc, g, tc, sizeof(tc));
  ref_record_tag(out, "TimeControl", tc);
  ref_record_tag(out, "Termination", ref_record_termination(&end));
  ref_buf_puts(out, "\n");
  if(ref_record_word(&c.t, pgn_result(&end)))
    goto out;
  ref_buf_printf(out, "%s\n\n", moves.s ? moves.s : "");
  rc = 0;
out:
  ref_buf_free(&moves);
  return rc;
}
