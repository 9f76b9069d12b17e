/*
 * fuzz_position.c: the position decoders of every game.
 *
 * A position string arrives by mail (`new GAME fen=...`), so any text must
 * either be refused with a reason key that templates/reasons.txt words, or
 * give a position that passes every check of fz_check_position: ops->ok,
 * the string round trip into the store's 512 bytes, status, render from
 * each seat, every legal move formatted, read back and applied (each result
 * checked again), the actions, and a roll where one is due.
 *
 * Input: one byte choosing the game ('a' chess .. 'l' bodlaender, see
 * rules_fuzz.c; TABULA_FUZZ_GAME=NAME pins one), then the text (up to the
 * first NUL). The text goes three ways:
 *   ops->decode(text)            what `tabula moves/board` and pos= read;
 *   ops->init(text)              the text as the options of `new GAME ...`;
 *   ops->init("fen=" text)       the game's position option (pos= for the
 *                                Backgammon Chess pair), as a mail sets it.
 * A decoded position must also decode from its own string to the same
 * status, legal moves and boards (nothing lives outside the string). From
 * every position reached, eight steps are played (moves, rolls and cube
 * answers chosen by the input's hash), each position checked again.
 */
#include "rules_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAX 4096
#define WALK_PLIES 8 /* steps played from each position reached, each checked */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  fz_init("fuzz_position");
  return 0;
}

/* FNV-1a of the input: the dice and the sample offset, so they vary with
 * the input but replay the same. */
static uint32_t input_hash(const uint8_t *data, size_t size)
{
  uint32_t h = 2166136261u;
  size_t i;
  for(i = 0; i < size; i++)
    h = (h ^ data[i]) * 16777619u;
  return h;
}

/* Runs one way in; returns whether it reached a position. */
static bool one_way(const struct ref_game_desc *g, const char *how, const char *text,
                    bool is_decode, int depth, uint32_t dice, char seen[][FZ_STATE_MAX],
                    int *nseen)
{
  struct ref_state *s = ref_state_new(g);
  struct ref_err err;
  char pos[FZ_STATE_MAX];
  int rc, i;

  if(!s)
    abort();
  memset(&err, 0, sizeof(err));
  rc = is_decode ? g->ops->decode(s, text, &err) : g->ops->init(s, text, &err);
  if(rc != REF_OK) {
    /* init's unknown option may come without a key: the service says
     * "bad-option" itself (process.c do_new) */
    fz_check_refusal(g, rc, &err, !is_decode, how);
    free(s);
    return false;
  }
  /* the same position reached two ways is checked once */
  if(g->ops->encode(s, pos, sizeof(pos)) == REF_OK) {
    for(i = 0; i < *nseen; i++)
      if(!strcmp(seen[i], pos)) {
        free(s);
        return true;
      }
    snprintf(seen[(*nseen)++], FZ_STATE_MAX, "%s", pos);
  }
  fz_check_position(g, s, depth, is_decode, dice);
  fz_walk(g, s, WALK_PLIES, dice);
  free(s);
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  static char seen[3][FZ_STATE_MAX];
  struct fz_game *game;
  const struct ref_game_desc *g;
  char *text, *opt;
  size_t n;
  uint32_t dice;
  int nseen = 0;
  bool any;

  if(size < 1)
    return 0;
  game = fz_start(data, size);
  g = game->desc;
  n = strnlen((const char *)data + 1, size - 1);
  if(n > TEXT_MAX)
    return 0;
  text = malloc(n + 1);
  opt = malloc(n + 8);
  if(!text || !opt)
    abort();
  memcpy(text, data + 1, n);
  text[n] = '\0';
  dice = input_hash(data, size);

  /* decode: a ROLL phase is rolled and that position checked in full too */
  any = one_way(g, "decode", text, true, 2, dice, seen, &nseen);
  any |= one_way(g, "init", text, false, 1, dice, seen, &nseen);
  if(game->posopt) {
    snprintf(opt, n + 8, "%s%s", game->posopt, text);
    any |= one_way(g, "init with a position", opt, false, 1, dice, seen, &nseen);
  }
  if(any)
    game->accepted++;
  free(text);
  free(opt);
  return 0;
}
