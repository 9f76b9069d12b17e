/*
 * knockout.c: knockout events of backgammon matches at layer 3, "games"
 * (docs/architecture.md, "Competition"; rules-spec KO-1..KO-4): the
 * draw, read from the faces of one roll of the event's draw chain
 * (docs/dice-protocol.md, "Knockouts"), the bracket it gives (byes by
 * the standard seeding order), and the bracket as data and as text,
 * recounted from the store's slots and the matches' journals each time it
 * is shown. When a match is made, who advances and what is mailed are the
 * handlers' (handlers/events.c).
 *
 * Slots: 0 is the draw; a match slot k (1 <= k < P, P the bracket's size,
 * a power of two) is fed by 2k and 2k+1; a number c >= P is no slot but
 * bracket position c - P + 1. Slot 1 is the final.
 */
#include "compete_int.h"

#include "dice.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ref_ko_size(int players)
{
  int p = 1;
  while(p < players)
    p *= 2;
  return p;
}

int ref_ko_rounds(int size)
{
  int r = 0;
  while((1 << r) < size)
    r++;
  return r;
}

int ref_ko_round_of(int slot, int size)
{
  int level = 0;
  while((2 << level) <= slot)
    level++;
  return ref_ko_rounds(size) - level;
}

/* KO-2: the standard seeding order: seed s at position p, seeds 1 and 2
 * in opposite halves, and so on down; the draw's k-th player is seed k,
 * so with n < P players the byes (seeds n+1..P) fall to the first P-n
 * drawn, one bye to a round-1 match, spread over the bracket. */
void ref_ko_seeds(int size, int *seed_at)
{
  int m = 1, i;
  seed_at[0] = 1;
  while(m < size) {
    for(i = m - 1; i >= 0; i--) {
      seed_at[2 * i] = seed_at[i];
      seed_at[2 * i + 1] = 2 * m + 1 - seed_at[i];
    }
    m *= 2;
  }
}

/* KO-1: Fisher-Yates over the starting numbers, i = n down to 2, each
 * swap index j uniform in 1..i from two faces read as a base-6 number
 * v = 6 (f1 - 1) + (f2 - 1) in 0..35: v < 36 - 36 mod i gives j = v mod i
 * + 1, else the pair is passed over and the next two faces read (no
 * bias). The faces are those of roll 1 of the draw chain, game string
 * "knockout-T", in order. */
int ref_ko_draw(const uint8_t key[32], const char *game, const char *E_hex, int n, int *order)
{
  enum { FACES = 2048 };
  int *faces = malloc(FACES * sizeof(int)), i, f = 0;
  if(!faces || n < 1 || n > REF_TOURNAMENT_MAX ||
     ref_dice_faces(faces, FACES, key, game, 1, E_hex)) {
    free(faces);
    return -1;
  }
  for(i = 0; i < n; i++)
    order[i] = i + 1;
  for(i = n; i >= 2; i--) {
    int v, j, tmp;
    do {
      if(f + 2 > FACES) {
        free(faces);
        return -1; /* never: 1,000 rejected pairs in a row */
      }
      v = 6 * (faces[f] - 1) + (faces[f + 1] - 1);
      f += 2;
    } while(v >= 36 - 36 % i);
    j = v % i + 1;
    tmp = order[i - 1];
    order[i - 1] = order[j - 1];
    order[j - 1] = tmp;
  }
  free(faces);
  return 0;
}

/* The label of slot k in the order players read a bracket: round 1's
 * matches first, top to bottom, then round 2's, ..., the final last. */
static int label_of(int slot, int size)
{
  int level = ref_ko_rounds(size) - ref_ko_round_of(slot, size), before = 0, l;
  /* the slots of levels deeper than this one come first */
  for(l = ref_ko_rounds(size) - 1; l > level; l--)
    before += 1 << l;
  return before + (slot - (1 << level)) + 1;
}

/* One side of slot k: a player's starting number, 0 not known yet, -1
 * nobody (a bye, or a slot nobody went on from). */
static int side_of(const struct ref_ko_view *v, int child)
{
  if(child >= v->size) {
    int pos = child - v->size + 1, i;
    for(i = 0; i < v->nplayers; i++)
      if(v->player[i].position == pos)
        return v->player[i].number;
    return v->drawn ? -1 : 0;
  }
  return v->slot[child].winner;
}

int ref_ko_sides(const struct ref_ko_view *v, int slot, int side[2])
{
  side[0] = side_of(v, 2 * slot);
  side[1] = side_of(v, 2 * slot + 1);
  return 0;
}

const char *ref_ko_address(const struct ref_ko_view *v, int number)
{
  int i;
  for(i = 0; i < v->nplayers; i++)
    if(v->player[i].number == number)
      return v->player[i].address;
  return "";
}

int ref_ko_withdrawn(const struct ref_ko_view *v, int number)
{
  int i;
  for(i = 0; i < v->nplayers; i++)
    if(v->player[i].number == number)
      return v->player[i].withdrawn;
  return 0;
}

int ref_ko_view(struct ref_service *svc, const struct store_tournament *t, struct ref_ko_view *v)
{
  struct store_tournament_player *p = NULL;
  struct store_knockout_entry *e = NULL;
  struct store_knockout_slot *s = NULL;
  size_t np = 0, ne = 0, ns = 0, i, j;
  int rc = -1;

  struct store_tournament copy = *t; /* t may be v->t itself */
  memset(v, 0, sizeof(*v));
  v->t = copy;
  if(store_knockout_length(svc->st, &v->length, copy.id) != STORE_OK ||
     store_tournament_players(svc->st, &p, &np, copy.id) != STORE_OK ||
     store_knockout_entries(svc->st, &e, &ne, copy.id) != STORE_OK ||
     store_knockout_slots(svc->st, &s, &ns, copy.id) != STORE_OK || np > REF_TOURNAMENT_MAX ||
     ns > REF_TOURNAMENT_MAX)
    goto out;
  v->nplayers = (int)np;
  v->size = ref_ko_size((int)np);
  for(i = 0; i < np; i++) {
    v->player[i].number = p[i].number;
    snprintf(v->player[i].address, sizeof(v->player[i].address), "%s", p[i].address);
    for(j = 0; j < ne; j++)
      if(e[j].number == p[i].number) {
        v->player[i].accepted = e[j].accepted;
        v->player[i].position = e[j].position;
        v->player[i].withdrawn = e[j].withdrawn;
        snprintf(v->player[i].entropy, sizeof(v->player[i].entropy), "%s", e[j].entropy);
        v->drawn |= e[j].position > 0;
      }
  }
  for(i = 0; i < ns; i++)
    if(s[i].slot >= 0 && s[i].slot < REF_TOURNAMENT_MAX)
      v->slot[s[i].slot] = s[i];
  /* the score of every match made, from its games' journals */
  for(i = 1; i < (size_t)v->size; i++) {
    struct ref_ko_match *m = &v->match[i];
    m->label = label_of((int)i, v->size);
    m->round = ref_ko_round_of((int)i, v->size);
    ref_ko_sides(v, (int)i, m->side);
    if(v->slot[i].match > 0) {
      struct ref_match_count c;
      if(ref_match_recount(svc, v->slot[i].match, &c))
        goto out;
      m->score[0] = c.score[0];
      m->score[1] = c.score[1];
      m->games = c.games;
      m->last_game = c.last_game;
      m->over = c.over;
      m->crawford = c.next_crawford;
    }
  }
  rc = 0;
out:
  free(p);
  free(e);
  free(s);
  return rc;
}

/* A player as a bracket shows them: the address, or, with `pub`, the
 * initials the web view uses (rules-spec G-3). */
static void name_of(const struct ref_ko_view *v, int number, int pub, char *buf, size_t cap)
{
  if(pub)
    ref_public_name(ref_ko_address(v, number), buf, cap);
  else
    snprintf(buf, cap, "%s", ref_ko_address(v, number));
}

void ref_ko_side_text(const struct ref_ko_view *v, int slot, int side, int pub,
                      const char *dir, char *buf, size_t cap)
{
  const struct ref_ko_match *m = &v->match[slot];
  int child = 2 * slot + side, who = m->side[side];
  char label[16];
  struct tpl_var var[1] = {{"label", label}};
  if(who > 0) {
    name_of(v, who, pub, buf, cap);
    return;
  }
  if(who < 0) {
    tpl_line(buf, cap, dir, "phrases.txt", "ko-bye", NULL, 0);
    return;
  }
  if(child >= v->size) {
    tpl_line(buf, cap, dir, "phrases.txt", "ko-undrawn", NULL, 0);
    return;
  }
  snprintf(label, sizeof(label), "%d", v->match[child].label);
  tpl_line(buf, cap, dir, "phrases.txt", "ko-winner-of", var, 1);
}

void ref_ko_state_text(const struct ref_ko_view *v, int slot, int pub, const char *dir,
                       char *buf, size_t cap)
{
  const struct ref_ko_match *m = &v->match[slot];
  int w = v->slot[slot].winner;
  char who[256], a[16], b[16], game[24];
  struct tpl_var var[4] = {{"winner", who}, {"a", a}, {"b", b}, {"game", game}};
  /* the winner's score first */
  snprintf(a, sizeof(a), "%d", m->score[w > 0 && w == m->side[1]]);
  snprintf(b, sizeof(b), "%d", m->score[!(w > 0 && w == m->side[1])]);
  snprintf(game, sizeof(game), "%lld", (long long)m->last_game);
  who[0] = '\0';
  if(w > 0)
    name_of(v, w, pub, who, sizeof(who));
  if(v->slot[slot].match > 0)
    /* a match decided short of its length was resigned (KO-4: a
     * withdrawal), lost on time or by the operator */
    tpl_line(buf, cap, dir, "phrases.txt",
             w <= 0                                                      ? "ko-playing"
             : m->score[w == m->side[1]] < v->length ? "ko-won-short"
                                                     : "ko-won",
             var, 4);
  else if(w > 0)
    /* KO-3, KO-4: no match played: a bye, or the opponent withdrew */
    tpl_line(buf, cap, dir, "phrases.txt",
             m->side[0] > 0 && m->side[1] > 0 ? "ko-walkover" : "ko-bye-on", var, 4);
  else if(w < 0)
    tpl_line(buf, cap, dir, "phrases.txt", "ko-nobody", var, 4);
  else
    /* both players known: its match is being made in this transaction */
    tpl_line(buf, cap, dir, "phrases.txt",
             m->side[0] > 0 && m->side[1] > 0 ? "ko-starting" : "ko-waiting", var, 4);
}

void ref_ko_round_text(const struct ref_ko_view *v, int round, const char *dir, char *buf,
                       size_t cap)
{
  int left = ref_ko_rounds(v->size) - round;
  char r[16], length[16];
  struct tpl_var var[2] = {{"round", r}, {"length", length}};
  snprintf(r, sizeof(r), "%d", round);
  snprintf(length, sizeof(length), "%d", v->length);
  tpl_line(buf, cap, dir, "phrases.txt",
           left == 0   ? "ko-final"
           : left == 1 ? "ko-semi-finals"
           : left == 2 ? "ko-quarter-finals"
                       : "ko-round",
           var, 2);
}

int ref_ko_text(const struct ref_ko_view *v, int pub, const char *dir, struct base_buf *out)
{
  int round, rounds = ref_ko_rounds(v->size), k;
  for(round = 1; round <= rounds; round++) {
    char head[120];
    int level = rounds - round;
    ref_ko_round_text(v, round, dir, head, sizeof(head));
    if(base_buf_printf(out, "%s%s\n", round > 1 ? "\n" : "", head))
      return -1;
    for(k = 1 << level; k < 2 << level; k++) {
      char s0[256], s1[256], state[400];
      ref_ko_side_text(v, k, 0, pub, dir, s0, sizeof(s0));
      ref_ko_side_text(v, k, 1, pub, dir, s1, sizeof(s1));
      ref_ko_state_text(v, k, pub, dir, state, sizeof(state));
      if(base_buf_printf(out, "  M%-2d %s - %s: %s\n", v->match[k].label, s0, s1, state))
        return -1;
    }
  }
  return 0;
}
