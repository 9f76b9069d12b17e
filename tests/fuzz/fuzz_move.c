/*
 * fuzz_move.c: the move readers (ops->parse) of every game.
 *
 * Any text a player mails must either read as a move that is in the legal
 * list (whose canonical text fits the journal's REF_NOTATION_MAX bytes and
 * reads back as the same move, and which applies to a position that passes
 * the checks of rules_fuzz.c), or be refused with a reason key that
 * templates/reasons.txt words and at most REF_SUGGEST_MAX suggestions, each
 * the canonical text of a legal move (they are mailed as "legal moves
 * near yours"). Backgammon Chess reads a whole turn that legal() lists in
 * stages (rules.h, backgammon_chess.c): a move read there that is not in
 * the list must still apply and leave a position that passes the checks.
 *
 * Input: a byte choosing the game ('a' chess .. 'l' bodlaender, see
 * rules_fuzz.c; TABULA_FUZZ_GAME=NAME pins one), a byte choosing one of
 * that game's seed positions ('0' the first) (tests/data/positions/seeds.txt: start
 * positions and positions of the tests' data), a byte for the dice when the
 * position waits for a roll, then the text (up to the first NUL). A
 * position byte '!' instead takes the position from the text: its first
 * line is a position string (ops->decode) or else init options, the rest is
 * the move text; inputs that do not set up a position are skipped. This is
 * how regression inputs (corpus/fuzz_move/regress-*) name their position
 * without depending on the order of seeds.txt.
 */
#include "rules_fuzz.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAX 1024
#define SEEDS_MAX 64 /* seed positions per game */

struct seeds {
  int n;
  struct ref_state *s[SEEDS_MAX];
};

static struct seeds *seeds; /* one per game of fz_game_at */

static void seed_error(const char *line, const char *why) __attribute__((noreturn));
static void seed_error(const char *line, const char *why)
{
  fprintf(stderr, "fuzz_move: tests/data/positions/seeds.txt: %s: %s\n", why, line);
  exit(2);
}

/* tests/data/positions/seeds.txt: GAME <TAB> init|decode <TAB> TEXT */
static void load_seeds(void)
{
  const char *path = TABULA_SOURCE_DIR "/tests/data/positions/seeds.txt";
  FILE *f = fopen(path, "r");
  char line[2048];
  size_t i;

  seeds = calloc(fz_ngames(), sizeof(*seeds));
  if(!f || !seeds) {
    fprintf(stderr, "fuzz_move: cannot read %s\n", path);
    exit(2);
  }
  while(fgets(line, sizeof(line), f)) {
    char *how, *text;
    struct fz_game *game = NULL;
    struct ref_state *s;
    struct ref_err err;
    int rc;
    line[strcspn(line, "\n")] = '\0';
    if(!line[0] || line[0] == '#')
      continue;
    if(!(how = strchr(line, '\t')) || !(text = strchr(how + 1, '\t')))
      seed_error(line, "not GAME <TAB> init|decode <TAB> TEXT");
    *how++ = '\0';
    *text++ = '\0';
    for(i = 0; i < fz_ngames(); i++)
      if(!strcmp(fz_game_at(i)->name, line))
        game = fz_game_at(i);
    if(!game)
      seed_error(line, "no such game");
    if(!(s = ref_state_new(game->desc)))
      abort();
    memset(&err, 0, sizeof(err));
    if(!strcmp(how, "init"))
      rc = game->desc->ops->init(s, text[0] ? text : NULL, &err);
    else if(!strcmp(how, "decode"))
      rc = game->desc->ops->decode(s, text, &err);
    else
      seed_error(how, "neither init nor decode");
    if(rc != REF_OK)
      seed_error(text, err.reason);
    i = (size_t)(game - fz_game_at(0));
    if(seeds[i].n == SEEDS_MAX)
      seed_error(line, "too many seeds for this game");
    seeds[i].s[seeds[i].n++] = s;
  }
  fclose(f);
  for(i = 0; i < fz_ngames(); i++)
    if(!seeds[i].n)
      seed_error(fz_game_at(i)->name, "no seed position for this game");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  fz_init("fuzz_move");
  load_seeds();
  return 0;
}

/* The canonical texts of the legal moves, NUL-separated. */
static char *legal_texts(const struct ref_game_desc *g, const struct ref_state *s,
                         const struct ref_movelist *list)
{
  char *all = malloc(list->n * REF_NOTATION_MAX + 1), *p = all;
  size_t i;
  if(!all)
    abort();
  for(i = 0; i < list->n; i++) {
    if(g->ops->format(s, &list->v[i], REF_NOTATION_CANONICAL, p, REF_NOTATION_MAX) != REF_OK)
      fz_fail(g, "a legal move does not format");
    p += strlen(p) + 1;
  }
  *p = '\0';
  return all;
}

/* Whether text is one of the n texts in all, or the first part (before a
 * ',') of one: Doublemove's turns are two moves, "e4,Nf3", and a refusal
 * of the first may offer first moves (the second is asked for next). */
static bool among(const char *all, size_t n, const char *text)
{
  size_t i, len = strlen(text);
  for(i = 0; i < n; i++, all += strlen(all) + 1)
    if(!strncmp(all, text, len) && (all[len] == '\0' || all[len] == ','))
      return true;
  return false;
}

static void check_read(const struct ref_game_desc *g, const struct fz_game *game,
                       const struct ref_state *s, const struct ref_movelist *list,
                       const char *text, const struct ref_move *m, uint32_t dice)
{
  char canon[REF_NOTATION_MAX];
  struct ref_state *c = ref_state_dup(g, s);
  struct ref_move back;
  struct ref_err err;
  int rc;

  if(!c)
    abort();
  if(!fz_in_list(list, m) && !game->whole_turns)
    fz_fail(g, "'%s' reads as a move that is not in the legal list", text);
  memset(canon, 'x', sizeof(canon));
  rc = g->ops->format(s, m, REF_NOTATION_CANONICAL, canon, sizeof(canon));
  if(rc != REF_OK || !memchr(canon, '\0', sizeof(canon)) || !canon[0])
    fz_fail(g, "'%s' reads as a move whose canonical text does not fit %d bytes", text,
            REF_NOTATION_MAX);
  memset(&back, 0, sizeof(back));
  memset(&err, 0, sizeof(err));
  rc = g->ops->parse(s, canon, &back, &err);
  if(rc != REF_OK)
    fz_fail(g, "'%s' reads as '%s', which does not read back (%s %s)", text, canon, err.reason,
            err.detail);
  if(memcmp(&back, m, sizeof(back))) {
    char a[FZ_STATE_MAX], b[FZ_STATE_MAX];
    struct ref_state *y = ref_state_dup(g, s);
    if(!y || g->ops->apply(c, m) != REF_OK || g->ops->apply(y, &back) != REF_OK ||
       g->ops->encode(c, a, sizeof(a)) != REF_OK || g->ops->encode(y, b, sizeof(b)) != REF_OK ||
       strcmp(a, b))
      fz_fail(g, "'%s' reads as '%s', which reads back as another move", text, canon);
    free(y);
    memcpy(c, s, g->state_size);
  }
  rc = g->ops->apply(c, m);
  if(rc != REF_OK)
    fz_fail(g, "'%s' reads as '%s', which apply refuses (code %d)", text, canon, rc);
  fz_check_position(g, c, 0, false, dice);
  free(c);
}

/* Whether text reads as a move in a later stage of this turn (Backgammon
 * Chess: the chess moves suggested for the chess part of a whole turn
 * whose backgammon part is not played yet). */
static bool later_stage(const struct ref_game_desc *g, const struct ref_state *s,
                        const char *text, int depth)
{
  struct ref_movelist list = {0};
  struct ref_state *c;
  struct ref_status st0, st;
  bool found = false;
  size_t i;

  if(depth <= 0)
    return false;
  g->ops->status(s, &st0);
  if(st0.phase != REF_PHASE_MOVE || g->ops->legal(s, &list) != REF_OK)
    return false;
  if(!(c = ref_state_new(g)))
    abort();
  for(i = 0; i < list.n && !found; i++) {
    struct ref_move m;
    struct ref_err err;
    memcpy(c, s, g->state_size);
    if(g->ops->apply(c, &list.v[i]) != REF_OK)
      continue;
    g->ops->status(c, &st);
    if(st.phase != REF_PHASE_MOVE || st.turn != st0.turn)
      continue;
    memset(&err, 0, sizeof(err));
    found = g->ops->parse(c, text, &m, &err) == REF_OK || later_stage(g, c, text, depth - 1);
  }
  free(c);
  ref_movelist_free(&list);
  return found;
}

static void check_refused(const struct ref_game_desc *g, const struct fz_game *game,
                          const struct ref_state *s,
                          const struct ref_movelist *list, const char *text, int rc,
                          const struct ref_err *err)
{
  char *all;
  int i;

  fz_check_refusal(g, rc, err, false, "parse");
  if(err->nsuggest < 0 || err->nsuggest > REF_SUGGEST_MAX)
    fz_fail(g, "'%s' refused with %d suggestions", text, err->nsuggest);
  if(!err->nsuggest)
    return;
  all = legal_texts(g, s, list);
  for(i = 0; i < err->nsuggest; i++) {
    if(!memchr(err->suggest[i], '\0', REF_NOTATION_MAX))
      fz_fail(g, "'%s' refused with an unterminated suggestion", text);
    if(!among(all, list->n, err->suggest[i])) {
      /* not a canonical text (Backgammon Chess suggests the backgammon
       * part alone): it must still read as a legal move */
      struct ref_err e2;
      struct ref_move m;
      memset(&e2, 0, sizeof(e2));
      if(g->ops->parse(s, err->suggest[i], &m, &e2) == REF_OK
           ? !fz_in_list(list, &m) && !game->whole_turns
           : !game->whole_turns || !later_stage(g, s, err->suggest[i], 3))
        fz_fail(g, "'%s' refused (%s) suggesting '%s', which is no legal move", text,
                err->reason, err->suggest[i]);
    }
  }
  free(all);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  struct fz_game *game;
  const struct ref_game_desc *g;
  const struct seeds *sd;
  struct ref_state *s;
  struct ref_movelist list = {0};
  struct ref_move m;
  struct ref_err err;
  char *text;
  size_t n;
  uint32_t dice;
  int rc;

  if(size < 3)
    return 0;
  game = fz_start(data, size);
  g = game->desc;
  sd = &seeds[game - fz_game_at(0)];
  n = strnlen((const char *)data + 3, size - 3);
  if(n > TEXT_MAX)
    return 0;
  text = malloc(n + 1);
  s = ref_state_dup(g, sd->s[(uint8_t)(data[1] - '0') % sd->n]);
  if(!text || !s)
    abort();
  memcpy(text, data + 3, n);
  text[n] = '\0';
  if(data[1] == '!') {
    /* "POSITION\nMOVE": the position from the input itself */
    char *nl = strchr(text, '\n');
    struct ref_err perr;
    if(!nl) {
      free(s);
      free(text);
      return 0;
    }
    *nl = '\0';
    memset(s, 0, g->state_size);
    if(g->ops->decode(s, text, &perr) != REF_OK &&
       g->ops->init(s, text[0] ? text : NULL, &perr) != REF_OK) {
      free(s);
      free(text);
      return 0;
    }
    memmove(text, nl + 1, strlen(nl + 1) + 1);
  }
  /* two faces from the byte, the rest fixed */
  dice = (uint32_t)(data[2] % 6) | (uint32_t)(data[2] / 6 % 6) << 4 | 0x543200u;
  fz_roll(g, s, dice);
  fz_legal(g, s, &list);

  memset(&m, 0, sizeof(m));
  memset(&err, 0, sizeof(err));
  rc = g->ops->parse(s, text, &m, &err);
  if(rc == REF_OK) {
    game->accepted++;
    check_read(g, game, s, &list, text, &m, dice);
  }
  else
    check_refused(g, game, s, &list, text, rc, &err);
  ref_movelist_free(&list);
  free(s);
  free(text);
  return 0;
}
