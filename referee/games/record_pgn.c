/*
 * record_pgn.c: a chess game as PGN: the Seven Tag Roster,
 * Variant, SetUp/FEN for a game from a set-up position, TimeControl in the
 * correspondence form "1/604800" (one move in seven days), Termination;
 * the moves in SAN as the journal holds them, offers and cube-less actions
 * as comments. pgn-extract reads every export (tests/scripts/records.py).
 *
 * Chess and Chess with Different Armies (the variant and its armies in
 * tags, its start always as SetUp/FEN) are written as PGN: the chess
 * hybrids' moves (Chessgammon's
 * bar and bear-off, Back-to-Back's 14-file board, Backgammon Chess's
 * stones) are no chess moves a PGN reader could replay, so they keep the
 * transcript of record.c with the variant named (docs/records.md).
 * Layer 3, "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pgn_move(struct ref_rec_text *t, const struct ref_game_ctx *r,
                    const struct ref_rec_step *st)
{
  (void)r;
  return ref_record_move(t, st, st->e->text); /* SAN, as the journal holds it */
}

int ref_export_pgn(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                   unsigned flags)
{
  struct ref_rec_movetext m = {.move = pgn_move};
  char name[300], tc[32];

  if(ref_record_movetext(svc, g, &m))
    return -1;
  ref_record_head(svc, g, out, flags);
  ref_record_tag(out, "Round", "-");
  ref_record_player(g, 0, flags, name, sizeof(name));
  ref_record_tag(out, "White", name);
  ref_record_player(g, 1, flags, name, sizeof(name));
  ref_record_tag(out, "Black", name);
  ref_record_tag(out, "Result", ref_record_result(&m.end));
  /* The supplemental tags (PGN 9): the variant as lichess and pgn-extract
   * name it ("Standard", "From Position" for a set-up start: PGN 9.7.1
   * SetUp/FEN), the correspondence time control, why the game ended. */
  if(!strcmp(g->desc->name, "cwda")) {
    /* Chess with Different Armies (rules-spec §12): no PGN reader knows
     * the armies' pieces, so the record names the variant and the armies
     * and always gives the start (PGN 9.7.1: SetUp/FEN; DA-4's letters). */
    const char *white = "", *black = "";
    ref_record_tag(out, "Variant", g->desc->title);
    if(ref_cwda_army_names(m.start, &white, &black)) {
      ref_record_tag(out, "WhiteArmy", white);
      ref_record_tag(out, "BlackArmy", black);
    }
    ref_record_tag(out, "SetUp", "1");
    ref_record_tag(out, "FEN", m.start);
  }
  else if(m.start[0] && strcmp(m.start, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1")) {
    ref_record_tag(out, "Variant", "From Position");
    ref_record_tag(out, "SetUp", "1");
    ref_record_tag(out, "FEN", m.start);
  }
  else
    ref_record_tag(out, "Variant", "Standard");
  ref_record_time_control(svc, g, tc, sizeof(tc));
  ref_record_tag(out, "TimeControl", tc);
  ref_record_tag(out, "Termination", ref_record_termination(&m.end));
  return ref_record_movetext_out(&m, out, ref_record_result(&m.end));
}
