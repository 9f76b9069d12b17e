/*
 * cg_moves.c: tabula's side of the Chessgammon-with-armies comparison
 * (tests/scripts/cgarmies_oracle.sh against tests/oracles/cg_armies.py).
 * Compiled by that script against libtabula_rules.a; not part of the build.
 *
 * stdin: lines "GAME<TAB>POSITION<TAB>MOVE" (MOVE may be empty), GAME a
 * registry name (chessgammon, doublemove, racingkings, bodlaender).
 * stdout, one line each: "ENCODED<TAB>M1 M2 ...<TAB>AFTER": the position
 * string after decode (the round trip), the legal moves in computer
 * notation as ops->format writes them (in the generator's order), and the
 * position string after MOVE was parsed and applied ("-" without MOVE).
 * A position or move the rules refuse prints "ERROR <reason>" in its field.
 */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
  char line[1024], buf[512];
  struct ref_movelist list = {0};

  while(fgets(line, sizeof(line), stdin)) {
    char *game = line, *pos, *mv, *nl;
    const struct ref_game_desc *g;
    struct ref_state *s;
    struct ref_err err;
    struct ref_move m;
    size_t i;

    if((nl = strchr(line, '\n')))
      *nl = '\0';
    if(!(pos = strchr(game, '\t')) || !(mv = strchr(pos + 1, '\t'))) {
      printf("ERROR syntax\t\t\n");
      continue;
    }
    *pos++ = '\0';
    *mv++ = '\0';
    g = ref_game_find(game);
    if(!g) {
      printf("ERROR no-game\t\t\n");
      continue;
    }
    s = ref_state_new(g);
    memset(&err, 0, sizeof(err));
    if(!s || g->ops->init(s, NULL, &err) != REF_OK || g->ops->decode(s, pos, &err) != REF_OK) {
      printf("ERROR %s\t\t\n", err.reason);
      free(s);
      continue;
    }
    if(g->ops->encode(s, buf, sizeof(buf)) != REF_OK)
      snprintf(buf, sizeof(buf), "ERROR encode");
    printf("%s\t", buf);
    ref_movelist_clear(&list);
    if(g->ops->legal(s, &list) == REF_OK)
      for(i = 0; i < list.n; i++) {
        if(g->ops->format(s, &list.v[i], REF_NOTATION_COMPUTER, buf, sizeof(buf)) != REF_OK)
          snprintf(buf, sizeof(buf), "ERROR-format");
        printf("%s%s", i ? " " : "", buf);
      }
    printf("\t");
    if(!*mv)
      printf("-");
    else if(g->ops->parse(s, mv, &m, &err) != REF_OK)
      printf("ERROR parse %s", err.reason);
    else if(g->ops->apply(s, &m) != REF_OK)
      printf("ERROR apply");
    else if(g->ops->encode(s, buf, sizeof(buf)) != REF_OK)
      printf("ERROR encode");
    else
      printf("%s", buf);
    printf("\n");
    free(s);
  }
  ref_movelist_free(&list);
  return 0;
}
