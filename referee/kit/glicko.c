/*
 * glicko.c: Glicko-2, step by step as Glickman's "Example of the Glicko-2
 * system" writes it (glicko.h). Pure: no store, no clock. The
 * unit test tests/unit/referee/test_glicko.c reproduces the paper's worked
 * example to its published digits.
 */
#include "glicko.h"

#include <math.h>

/* Step 2: the Glicko-2 scale is the Glicko scale divided by this. */
#define SCALE 173.7178

static double g_of(double phi)
{
  return 1.0 / sqrt(1.0 + 3.0 * phi * phi / (M_PI * M_PI));
}

static double e_of(double mu, double mu_j, double phi_j)
{
  return 1.0 / (1.0 + exp(-g_of(phi_j) * (mu - mu_j)));
}

/* Step 5's f(x). */
static double f_of(double x, double delta, double phi, double v, double a, double tau)
{
  double ex = exp(x), d = phi * phi + v + ex;
  return ex * (delta * delta - phi * phi - v - ex) / (2.0 * d * d) - (x - a) / (tau * tau);
}

/* Step 5: the new volatility, by the Illinois variant of regula falsi. */
static double new_volatility(double sigma, double delta, double phi, double v, double tau)
{
  double a = log(sigma * sigma), A = a, B, fa, fb;
  if(delta * delta > phi * phi + v)
    B = log(delta * delta - phi * phi - v);
  else {
    int k = 1;
    while(f_of(a - k * tau, delta, phi, v, a, tau) < 0)
      k++;
    B = a - k * tau;
  }
  fa = f_of(A, delta, phi, v, a, tau);
  fb = f_of(B, delta, phi, v, a, tau);
  while(fabs(B - A) > REF_GLICKO_EPSILON) {
    double C = A + (A - B) * fa / (fb - fa), fc = f_of(C, delta, phi, v, a, tau);
    /* the 2022 revision's "f(C)f(B) <= 0" (the 2013 text has "< 0") */
    if(fc * fb <= 0) {
      A = B;
      fa = fb;
    }
    else
      fa /= 2.0;
    B = C;
    fb = fc;
  }
  return exp(A / 2.0);
}

void ref_glicko_init(struct ref_glicko *p)
{
  p->rating = REF_GLICKO_RATING;
  p->rd = REF_GLICKO_RD;
  p->volatility = REF_GLICKO_VOLATILITY;
}

void ref_glicko_period(struct ref_glicko *p, const struct ref_glicko_game *games, size_t n,
                       double tau, struct ref_glicko_steps *steps)
{
  double mu = (p->rating - REF_GLICKO_RATING) / SCALE, phi = p->rd / SCALE;
  double v_inv = 0, sum = 0, v, delta, sigma, phi_star, phi_new;
  size_t j;

  if(n == 0) {
    /* "If the player does not compete during the rating period": only
     * the deviation grows */
    p->rd = sqrt(phi * phi + p->volatility * p->volatility) * SCALE;
    return;
  }
  /* Steps 3 and 4: the estimated variance v and improvement delta. */
  for(j = 0; j < n; j++) {
    double mu_j = (games[j].rating - REF_GLICKO_RATING) / SCALE, phi_j = games[j].rd / SCALE;
    double g = g_of(phi_j), e = e_of(mu, mu_j, phi_j);
    v_inv += g * g * e * (1.0 - e);
    sum += g * (games[j].score - e);
  }
  v = 1.0 / v_inv;
  delta = v * sum;
  sigma = new_volatility(p->volatility, delta, phi, v, tau);
  /* Steps 6 to 8. */
  phi_star = sqrt(phi * phi + sigma * sigma);
  phi_new = 1.0 / sqrt(1.0 / (phi_star * phi_star) + 1.0 / v);
  if(steps) {
    steps->mu = mu;
    steps->phi = phi;
    steps->v = v;
    steps->delta = delta;
    steps->phi_new = phi_new;
  }
  mu += phi_new * phi_new * sum;
  if(steps)
    steps->mu_new = mu;
  p->rating = mu * SCALE + REF_GLICKO_RATING;
  p->rd = phi_new * SCALE;
  p->volatility = sigma;
}
