/*
 * export.c: `tabula export`, the record of a game in the format of its
 * community: PGN for chess and Chess with Different Armies (record_pgn.c),
 * PDN 3.0 for checkers (record_pdn.c), gnubg's .mat for backgammon
 * (record_mat.c) and, as its second format, SGF (record_sgf.c).
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

/* One row a format; a game's first row is its record (`tabula export`,
 * the web view), every row of it is attached to the mail that ends a game
 * (views.c). The last row, game NULL, is every other game's. */
static const struct ref_export_kind kinds[] = {
  {"chess", "pgn", "application/vnd.chess-pgn", "PGN", ref_export_pgn},
  {"cwda", "pgn", "application/vnd.chess-pgn", "PGN", ref_export_pgn},
  {"checkers", "pdn", "text/plain", "PDN 3.0", ref_export_pdn},
  {"backgammon", "mat", "text/plain", "gnubg .mat", ref_export_mat},
  {"backgammon", "sgf", "application/x-go-sgf", "SGF", ref_export_sgf},
  {NULL, "txt", "text/plain", "tabula transcript", export_plain},
};

static int kind_is(const struct ref_export_kind *k, const struct ref_game_desc *d)
{
  return k->game ? !strcmp(d->name, k->game) : 1;
}

const struct ref_export_kind *ref_export_kind(const struct ref_game_desc *d)
{
  size_t i;
  for(i = 0; kinds[i].game; i++)
    if(!strcmp(d->name, kinds[i].game))
      return &kinds[i];
  return &kinds[i];
}

const struct ref_export_kind *ref_export_next(const struct ref_game_desc *d,
                                              const struct ref_export_kind *k)
{
  if(!k)
    return ref_export_kind(d);
  return k->game && k[1].game && kind_is(&k[1], d) ? &k[1] : NULL;
}

const struct ref_export_kind *ref_export_format(const struct ref_game_desc *d, const char *ext)
{
  const struct ref_export_kind *k;
  for(k = ref_export_kind(d); k; k = ref_export_next(d, k))
    if(!strcmp(k->ext, ext))
      return k;
  return NULL;
}

int ref_game_export_as(struct ref_service *svc, struct ref_game_ctx *g,
                       const struct ref_export_kind *k, struct base_buf *out, unsigned flags)
{
  return k->write(svc, g, out, flags);
}

int ref_game_export(struct ref_service *svc, struct ref_game_ctx *g, struct base_buf *out,
                    unsigned flags)
{
  return ref_game_export_as(svc, g, ref_export_kind(g->desc), out, flags);
}
