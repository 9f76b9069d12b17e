/*
 * bg_plays.c: tabula's side of the backgammon oracle check and benchmark
 * (tests/scripts/bg_oracle.sh, bench/bg_plays.sh). Compiled by those
 * scripts against libtabula_rules.a; not part of the build.
 *
 * stdin: lines "PositionID D1 D2" (PositionID from the view of the player
 * on roll), as gnubg_moves.sh reads them. stdout, in gnubg_moves.sh's
 * form: "# PositionID D1D2 n=N", then one line per distinct legal play,
 * "notation<TAB>resulting Position ID from the next roller's view", sorted
 * by that ID; n=0 when the roll cannot be played.
 */
#include "backgammon_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct row {
  char id[16];
  char mv[64];
};

static int row_cmp(const void *a, const void *b)
{
  return strcmp(((const struct row *)a)->id, ((const struct row *)b)->id);
}

int main(void)
{
  struct ref_bg_playlist list = {0};
  struct ref_bg_board b;
  struct row *rows = NULL;
  size_t cap = 0, n, i;
  char line[128], pid[32];
  int d1, d2, rc = 0;

  while(fgets(line, sizeof(line), stdin)) {
    if(sscanf(line, "%31s %d %d", pid, &d1, &d2) != 3)
      continue;
    if(ref_bg_position_decode(&b, 0, pid) || d1 < 1 || d1 > 6 || d2 < 1 || d2 > 6) {
      fprintf(stderr, "bad query: %s", line);
      rc = 1;
      continue;
    }
    if(ref_bg_plays(&b, 0, d1, d2, &list)) {
      rc = 1;
      break;
    }
    if(list.n > cap) {
      cap = list.n;
      free(rows);
      rows = malloc(cap * sizeof(*rows));
      if(!rows) {
        rc = 1;
        break;
      }
    }
    for(n = i = 0; i < list.n; i++) {
      if(!list.v[i].n)
        continue; /* the empty play: gnubg lists none */
      ref_bg_position_id(&list.res[i], 1, rows[n].id);
      ref_bg_play_format(&b, 0, &list.v[i], rows[n].mv, sizeof(rows[n].mv));
      n++;
    }
    qsort(rows, n, sizeof(*rows), row_cmp);
    printf("# %s %d%d n=%zu\n", pid, d1, d2, n);
    for(i = 0; i < n; i++)
      printf("%s\t%s\n", rows[i].mv, rows[i].id);
  }
  free(rows);
  ref_bg_playlist_free(&list);
  return rc;
}
