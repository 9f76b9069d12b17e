/*
 * export.c: `tabula export`, the record of a game in the format of its
 * community: PGN for chess and Chess with Different Armies (record_pgn.c), PDN 3.0 for
 * checkers (record_pdn.c), gnubg's .mat for backgammon (record_mat.c).
 * The hybrids' moves are no moves any of those formats knows, so they keep
 * a transcript that names the variant (below; docs/records.md). Every
 * record of a dice game carries the dice lines, so
 * tools/tabula-verify-dice.py checks an export as it checks the mails.
 * Layer 3, "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <stdio.h>
#include <string.h>

/* docs/records.md describes this format: a header of "Key: value" lines
 * (the variant named), a blank line, the history one dated line a step,
 * a blank line, the dice lines. */
static int export_plain(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                        unsigned flags)
{
  struct ref_rec_lines c = {out, (flags & REF_EXPORT_PUBLIC) != 0};
  struct ref_rec_end end;
  char name[300], date[16], tc[32];
  size_t i;

  if(ref_record_end(svc, g, &end))
    return -1;
  ref_record_date(g, date, sizeof(date));
  ref_record_time_control(svc, g, tc, sizeof(tc));
  if(base_buf_printf(out, "tabula game %lld: %s (rules v%d)\nVariant: %s\nReferee: %s\nDate: %s\n",
                     (long long)g->row.id, g->desc->title, g->row.rules_version, g->desc->title,
                     ref_record_referee(svc, flags), date))
    return -1;
  for(i = 0; i < g->nseats; i++) {
    ref_record_player(g, (int)i, flags, name, sizeof(name));
    if(base_buf_printf(out, "%s: %s\n", g->desc->seat_names[i], name))
      return -1;
  }
  if(base_buf_printf(out, "Options: %s\nTimeControl: %s\nResult: %s\nTermination: %s\n",
                     g->row.options[0] ? g->row.options : "none", tc,
                     g->row.result[0] ? g->row.result : "in progress",
                     ref_record_termination(&end)) ||
     (end.final_position[0] && base_buf_printf(out, "Position: %s\n", end.final_position)) ||
     base_buf_puts(out, "\n"))
    return -1;
  if(ref_record_walk(svc, g, ref_record_line, &c, NULL))
    return -1;
  if((g->desc->flags & REF_GAME_DICE) && base_buf_puts(out, "\n"))
    return -1;
  return ref_record_dice(svc, g, out, flags);
}

/* ---- which format, by game ---- */

static const struct ref_export_kind kinds[] = {
  {"chess", "pgn", "application/vnd.chess-pgn", "PGN"},
  {"cwda", "pgn", "application/vnd.chess-pgn", "PGN"},
  {"checkers", "pdn", "text/plain", "PDN 3.0"},
  {"backgammon", "mat", "text/plain", "gnubg .mat"},
  {NULL, "txt", "text/plain", "tabula transcript"},
};

const struct ref_export_kind *ref_export_kind(const struct ref_game_desc *d)
{
  size_t i;
  for(i = 0; kinds[i].game; i++)
    if(!strcmp(d->name, kinds[i].game))
      return &kinds[i];
  return &kinds[i];
}

int ref_game_export(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                    unsigned flags)
{
  if(!strcmp(ref_export_kind(g->desc)->ext, "pgn"))
    return ref_export_pgn(svc, g, out, flags); /* chess and cwda */
  if(!strcmp(g->desc->name, "checkers"))
    return ref_export_pdn(svc, g, out, flags);
  if(!strcmp(g->desc->name, "backgammon"))
    return ref_export_mat(svc, g, out, flags);
  return export_plain(svc, g, out, flags);
}
