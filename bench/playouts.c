/*
 * playouts.c: seeded random games of every registered game system, played
 * through the rules interface (rules.h) alone, with the invariant checker run
 * after every step. Prints one table: results, end reasons and game lengths.
 *
 * usage: tabula-playouts [-n GAMES] [-s SEED] [-c CAP] [-o OPTIONS] [GAME ...]
 *
 * Each step of a game is checked four ways, and any failure is printed with
 * the game's seed and the position string, and makes the exit status 1:
 *   - ops->ok (the game's own invariant checker) after every move, roll and
 *     action;
 *   - the position string round-trips: decode(encode(s)) encodes the same;
 *   - the chosen move's canonical notation parses back to the same move, so
 *     what a reply prints is what a player can type;
 *   - a MOVE phase always offers at least one move (a side that cannot move
 *     passes or loses: the game must say which, rules-spec.md §1.5).
 * Dice are drawn from a seeded generator here (the rules core never rolls);
 * cube decisions and draw claims are random too, so those paths are walked.
 * A game still running after CAP steps counts as "capped", not as a failure.
 *
 * It doubles as a test (tests/CMakeLists.txt runs it with a small count):
 * the exit status is what the test checks.
 */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_GAMES_LISTED 32
#define POS_MAX 4096

struct tally {
  long games, capped, failures;
  long wins[4], draws;
  long ends[REF_END_LAST];
  long *lengths; /* steps per finished or capped game */
  double seconds;
};

/* splitmix64: small, seedable, good enough to pick moves. */
static uint64_t rng_next(uint64_t *s)
{
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int rng_below(uint64_t *s, int n)
{
  return (int)(rng_next(s) % (uint64_t)n);
}

static int cmp_long(const void *a, const void *b)
{
  long x = *(const long *)a, y = *(const long *)b;
  return (x > y) - (x < y);
}

static void fail(const struct ref_game_desc *g, const struct ref_state *s, uint64_t seed,
                 long step, const char *what, struct tally *t)
{
  char pos[POS_MAX];
  if(g->ops->encode(s, pos, sizeof(pos)) != REF_OK)
    strcpy(pos, "(unencodable)");
  if(t->failures < 10)
    fprintf(stderr, "FAIL %s seed %llu step %ld: %s\n  position: %s\n", g->name,
            (unsigned long long)seed, step, what, pos);
  t->failures++;
}

/* The checks run after every step; returns 0 when all hold. */
static int check_state(const struct ref_game_desc *g, const struct ref_state *s,
                       struct ref_state *scratch, uint64_t seed, long step, struct tally *t)
{
  char a[POS_MAX], b[POS_MAX];
  struct ref_err err;

  if(g->ops->ok && !g->ops->ok(s)) {
    fail(g, s, seed, step, "invariant checker (ops->ok) refused the state", t);
    return -1;
  }
  if(g->ops->encode(s, a, sizeof(a)) != REF_OK) {
    fail(g, s, seed, step, "encode failed", t);
    return -1;
  }
  memset(scratch, 0, g->state_size);
  if(g->ops->decode(scratch, a, &err) != REF_OK) {
    char why[160];
    snprintf(why, sizeof(why), "decode of its own position string failed (%s)", err.reason);
    fail(g, s, seed, step, why, t);
    return -1;
  }
  if(g->ops->encode(scratch, b, sizeof(b)) != REF_OK || strcmp(a, b)) {
    fail(g, s, seed, step, "position string does not round-trip", t);
    return -1;
  }
  return 0;
}

static int check_notation(const struct ref_game_desc *g, const struct ref_state *s,
                          const struct ref_move *m, uint64_t seed, long step,
                          struct tally *t)
{
  char text[REF_NOTATION_MAX * 4], why[REF_NOTATION_MAX * 4 + 96];
  struct ref_move back;
  struct ref_err err;

  if(g->ops->format(s, m, REF_NOTATION_CANONICAL, text, sizeof(text)) != REF_OK) {
    fail(g, s, seed, step, "format failed on a legal move", t);
    return -1;
  }
  memset(&back, 0, sizeof(back));
  if(g->ops->parse(s, text, &back, &err) != REF_OK) {
    snprintf(why, sizeof(why), "canonical '%s' does not parse back (%s)", text, err.reason);
    fail(g, s, seed, step, why, t);
    return -1;
  }
  if(memcmp(&back, m, sizeof(back))) {
    /* Two encodings of one move are fine if they lead to the same place. */
    struct ref_state *x = ref_state_dup(g, s), *y = ref_state_dup(g, s);
    char px[POS_MAX], py[POS_MAX];
    int same = 0;
    if(x && y) {
      g->ops->apply(x, m);
      g->ops->apply(y, &back);
      same = g->ops->encode(x, px, sizeof(px)) == REF_OK &&
             g->ops->encode(y, py, sizeof(py)) == REF_OK && !strcmp(px, py);
    }
    free(x);
    free(y);
    if(!same) {
      snprintf(why, sizeof(why), "canonical '%s' parses to another move", text);
      fail(g, s, seed, step, why, t);
      return -1;
    }
  }
  return 0;
}

/* One game; returns its number of steps. */
static long play_one(const struct ref_game_desc *g, const char *options, uint64_t seed,
                     long cap, struct tally *t)
{
  struct ref_state *s = ref_state_new(g), *scratch = ref_state_new(g);
  struct ref_movelist list = {0};
  struct ref_status st;
  struct ref_err err;
  uint64_t rng = seed;
  long step = 0;

  if(!s || !scratch) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  if(g->ops->init(s, options, &err) != REF_OK) {
    fprintf(stderr, "%s: init(%s) refused: %s\n", g->name, options ? options : "", err.reason);
    exit(2);
  }
  if(check_state(g, s, scratch, seed, 0, t))
    goto done;
  for(step = 1; step <= cap; step++) {
    int rc = REF_OK;
    g->ops->status(s, &st);
    if(st.phase == REF_PHASE_OVER)
      break;
    switch(st.phase) {
    case REF_PHASE_ROLL:
    case REF_PHASE_CUBE: {
      int faces[8], n = st.need_faces > 0 ? st.need_faces : 2, i;
      if(st.phase == REF_PHASE_CUBE && rng_below(&rng, 8) == 0 &&
         g->ops->act(s, st.turn, REF_ACT_DOUBLE, 0, &err) == REF_OK)
        break;
      if(n > 8)
        n = 8;
      for(i = 0; i < n; i++)
        faces[i] = 1 + rng_below(&rng, 6);
      rc = g->ops->roll(s, faces, n, &err);
      if(rc != REF_OK)
        fail(g, s, seed, step, "roll refused in a ROLL/CUBE phase", t);
      break;
    }
    case REF_PHASE_CUBE_REPLY:
      rc = g->ops->act(s, st.turn, rng_below(&rng, 4) ? REF_ACT_TAKE : REF_ACT_DROP, 0, &err);
      if(rc != REF_OK)
        fail(g, s, seed, step, "take/drop refused in the CUBE_REPLY phase", t);
      break;
    case REF_PHASE_MOVE: {
      const struct ref_move *m;
      if(st.draw_claimable && (g->flags & REF_GAME_DRAWS) && rng_below(&rng, 2) &&
         g->ops->act(s, st.turn, REF_ACT_DRAW_CLAIM, 0, &err) == REF_OK)
        break;
      ref_movelist_clear(&list);
      rc = g->ops->legal(s, &list);
      if(rc != REF_OK || list.n == 0) {
        fail(g, s, seed, step, "MOVE phase with no legal move", t);
        rc = REF_EILLEGAL;
        break;
      }
      m = &list.v[rng_below(&rng, (int)list.n)];
      if(check_notation(g, s, m, seed, step, t)) {
        rc = REF_EILLEGAL;
        break;
      }
      rc = g->ops->apply(s, m);
      if(rc != REF_OK)
        fail(g, s, seed, step, "apply refused a move from legal()", t);
      break;
    }
    case REF_PHASE_OVER:
      break;
    }
    if(rc != REF_OK || check_state(g, s, scratch, seed, step, t))
      goto done;
  }
  g->ops->status(s, &st);
  if(st.phase != REF_PHASE_OVER) {
    t->capped++;
  } else {
    if(st.winner >= 0 && st.winner < 4)
      t->wins[st.winner]++;
    else
      t->draws++;
    if((unsigned)st.end < REF_END_LAST)
      t->ends[st.end]++;
  }
done:
  ref_movelist_free(&list);
  free(s);
  free(scratch);
  return step > cap ? cap : step;
}

static void run_game(const struct ref_game_desc *g, const char *options, long games,
                     uint64_t seed, long cap, struct tally *t)
{
  clock_t c0 = clock();
  long i;
  memset(t, 0, sizeof(*t));
  t->lengths = calloc((size_t)games, sizeof(long));
  if(!t->lengths)
    exit(2);
  for(i = 0; i < games; i++) {
    /* Each game its own seed, printed on failure, so one game replays alone. */
    uint64_t gs = seed * 1000003u + (uint64_t)i;
    t->lengths[i] = play_one(g, options, gs, cap, t);
    t->games++;
  }
  t->seconds = (double)(clock() - c0) / CLOCKS_PER_SEC;
  qsort(t->lengths, (size_t)games, sizeof(long), cmp_long);
}

static void print_row(const struct ref_game_desc *g, const struct tally *t)
{
  char ends[512] = "";
  size_t used = 0;
  int e;
  for(e = 0; e < REF_END_LAST; e++)
    if(t->ends[e] && used < sizeof(ends))
      used += (size_t)snprintf(ends + used, sizeof(ends) - used, "%s%s %ld", used ? ", " : "",
                               ref_end_name((enum ref_end)e), t->ends[e]);
  printf("| %-18s | %6ld | %6ld | %6ld | %5ld | %6ld | %5ld | %5ld | %5ld | %6.2f | %3ld | %s |\n",
         g->name, t->games, t->wins[0], t->wins[1], t->draws, t->capped,
         t->lengths[t->games / 2], t->lengths[(t->games * 99) / 100],
         t->lengths[t->games - 1], t->seconds, t->failures, ends);
}

int main(int argc, char **argv)
{
  long games = 1000, cap = 2000, failures = 0;
  uint64_t seed = 1;
  const char *options = NULL;
  const struct ref_game_desc *list[MAX_GAMES_LISTED];
  size_t n = 0, i;
  int a;

  for(a = 1; a < argc; a++) {
    if(!strcmp(argv[a], "-n") && a + 1 < argc)
      games = atol(argv[++a]);
    else if(!strcmp(argv[a], "-s") && a + 1 < argc)
      seed = strtoull(argv[++a], NULL, 10);
    else if(!strcmp(argv[a], "-c") && a + 1 < argc)
      cap = atol(argv[++a]);
    else if(!strcmp(argv[a], "-o") && a + 1 < argc)
      options = argv[++a];
    else if(argv[a][0] == '-') {
      fprintf(stderr, "usage: %s [-n GAMES] [-s SEED] [-c CAP] [-o OPTIONS] [GAME ...]\n",
              argv[0]);
      return 2;
    } else if(n < MAX_GAMES_LISTED) {
      if(!(list[n] = ref_game_find(argv[a]))) {
        fprintf(stderr, "unknown game '%s'\n", argv[a]);
        return 2;
      }
      n++;
    }
  }
  if(games < 1 || cap < 1)
    return 2;
  if(!n)
    while(n < MAX_GAMES_LISTED && (list[n] = ref_game_at(n)))
      n++;

  printf("Random playouts: %ld games per system, seed %llu, cap %ld steps "
         "(a step is a move, a roll or a cube action)\n\n",
         games, (unsigned long long)seed, cap);
  printf("| %-18s | %6s | %6s | %6s | %5s | %6s | %5s | %5s | %5s | %6s | %3s | %s |\n",
         "game", "games", "seat 0", "seat 1", "draws", "capped", "p50", "p99", "max",
         "cpu s", "bad", "how they ended");
  printf("|%s|--------|--------|--------|-------|--------|-------|-------|-------|--------|-----|"
         "----------------|\n", "--------------------");
  for(i = 0; i < n; i++) {
    struct tally t;
    run_game(list[i], options, games, seed, cap, &t);
    print_row(list[i], &t);
    failures += t.failures;
    free(t.lengths);
  }
  printf("\nseat 0 moves first (White, or the first seat of the game); p50/p99/max are game "
         "lengths in steps.\n%ld invariant failure%s\n", failures, failures == 1 ? "" : "s");
  return failures ? 1 : 0;
}
