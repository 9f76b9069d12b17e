/*
 * glicko.h: the Glicko-2 rating system (glicko.c), pure arithmetic, layer 1
 * "base" of docs/architecture.md.
 *
 * Mark E. Glickman, "Example of the Glicko-2 system" (Boston University,
 * 2013, revised 2022), steps 1 to 8: a player's rating r, deviation RD and
 * volatility sigma before a rating period, the results of the period's
 * games against opponents whose r and RD are taken as they were before the
 * period, and the player's r, RD and sigma after it. What a rating period
 * is, and which games count, is the service's decision (ratings.c,
 * docs/architecture.md "Ratings").
 */
#ifndef TABULA_GLICKO_H
#define TABULA_GLICKO_H

#include <stddef.h>

/* Step 1: an unrated player, and the system constant tau (the paper
 * suggests 0.3 to 1.2; its example uses 0.5, so do we). */
#define REF_GLICKO_RATING 1500.0
#define REF_GLICKO_RD 350.0
#define REF_GLICKO_VOLATILITY 0.06
#define REF_GLICKO_TAU 0.5
/* The convergence tolerance of step 5's iteration (the paper's epsilon). */
#define REF_GLICKO_EPSILON 0.000001

struct ref_glicko {
  double rating, rd, volatility;
};

/* One game of the period as the player saw it: the opponent's rating and
 * RD before the period, and the player's score (1 won, 0.5 drawn, 0 lost). */
struct ref_glicko_game {
  double rating, rd, score;
};

/* The quantities the paper prints on the way (the Glicko-2 scale). */
struct ref_glicko_steps {
  double mu, phi, v, delta, mu_new, phi_new;
};

/* The player `p` after a rating period with these games (none: only the
 * deviation grows, step 6). `steps`, when not NULL, gets the intermediate
 * values. */
void ref_glicko_period(struct ref_glicko *p, const struct ref_glicko_game *games, size_t n,
                       double tau, struct ref_glicko_steps *steps);
/* An unrated player (step 1). */
void ref_glicko_init(struct ref_glicko *p);

#endif
