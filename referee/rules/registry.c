/*
 * registry.c: the table of game systems, found by name. Only this file
 * knows every game; the helpers the games share are in rules.c, so no game
 * file depends on the table that lists it (scripts/check-layers.py).
 */
#include "rules.h"

#include <stdlib.h>
#include <string.h>

/* Each game file defines exactly one descriptor. */
extern const struct ref_game_desc ref_game_chess;
extern const struct ref_game_desc ref_game_checkers;
extern const struct ref_game_desc ref_game_backgammon;
extern const struct ref_game_desc ref_game_backgammon_chess;
extern const struct ref_game_desc ref_game_lag_backgammon_chess;
extern const struct ref_game_desc ref_game_backtoback;
extern const struct ref_game_desc ref_game_tables_chess;
extern const struct ref_game_desc ref_game_chessgammon;
extern const struct ref_game_desc ref_game_chessgammon_4x8;
extern const struct ref_game_desc ref_game_doublemove_chessgammon;
extern const struct ref_game_desc ref_game_racing_kings_chessgammon;
extern const struct ref_game_desc ref_game_bodlaender_chessgammon;
extern const struct ref_game_desc ref_game_cwda;

static const struct ref_game_desc *const games[] = {
  &ref_game_chess,
  &ref_game_checkers,
  &ref_game_backgammon,
  &ref_game_backgammon_chess,
  &ref_game_lag_backgammon_chess,
  &ref_game_backtoback,
  &ref_game_tables_chess,
  &ref_game_chessgammon,
  &ref_game_chessgammon_4x8,
  &ref_game_doublemove_chessgammon,
  &ref_game_racing_kings_chessgammon,
  &ref_game_bodlaender_chessgammon,
  &ref_game_cwda,
};

const struct ref_game_desc *ref_game_find(const char *name)
{
  size_t i;
  if(!name)
    return NULL;
  for(i = 0; i < sizeof(games) / sizeof(games[0]); i++)
    if(!strcmp(games[i]->name, name))
      return games[i];
  return NULL;
}

const struct ref_game_desc *ref_game_at(size_t i)
{
  return i < sizeof(games) / sizeof(games[0]) ? games[i] : NULL;
}
