/*
 * dice.c: tabula-dice-1 (docs/dice-protocol.md): hash chains, faces, and the
 * verifier of the mail transcript. Hashing is nettle's SHA-256 and
 * HMAC-SHA256 (FIPS 180-4, RFC 2104); the one secret comes from getrandom(2).
 * See dice.h for the contract and the line grammar; tools/tabula-verify-dice.py
 * is the same verifier for players and must keep the same rules.
 */
#include "dice.h"

#include <errno.h>
#include <nettle/hmac.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

static void sha256(uint8_t out[32], const uint8_t *data, size_t len)
{
  struct sha256_ctx ctx;

  sha256_init(&ctx);
  sha256_update(&ctx, len, data);
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

/* x_(j-1) = SHA-256(x_j), `times` times, in place. */
static void hash_down(uint8_t x[32], long times)
{
  long t;

  for(t = 0; t < times; t++)
    sha256(x, x, 32);
}

void ref_dice_chain_from_secret(struct ref_dice_chain *out, const uint8_t secret[32], int n)
{
  if(n <= 0)
    n = REF_DICE_DEFAULT_N;
  memcpy(out->secret, secret, 32);
  memcpy(out->commitment, secret, 32);
  hash_down(out->commitment, n);
  out->n = n;
}

int ref_dice_chain_new(struct ref_dice_chain *out, int n)
{
  uint8_t secret[32];
  size_t got = 0;
  int rc = -1;

  memset(out, 0, sizeof(*out));
  /* getrandom(2) may return short or fail with EINTR before the pool is
   * ready; anything else means no randomness and no chain. */
  while(got < sizeof(secret)) {
    ssize_t r = getrandom(secret + got, sizeof(secret) - got, 0);
    if(r < 0) {
      if(errno == EINTR)
        continue;
      goto out;
    }
    got += (size_t)r;
  }
  ref_dice_chain_from_secret(out, secret, n);
  rc = 0;
out:
  explicit_bzero(secret, sizeof(secret));
  return rc;
}

void ref_dice_key(uint8_t out[32], const struct ref_dice_chain *c, int j)
{
  if(j < 0)
    j = 0;
  if(j > c->n)
    j = c->n;
  memcpy(out, c->secret, 32);
  hash_down(out, (long)c->n - j);
}

/* SHA-256 of the k strings joined by LF (protocol, "Player entropy"); len
 * NULL means NUL-terminated strings, else the transcript's spans. */
static void entropy_hex(char out_hex[65], const char *const *s, const size_t *len, size_t k)
{
  struct sha256_ctx ctx;
  uint8_t digest[32];
  size_t i;

  sha256_init(&ctx);
  for(i = 0; i < k; i++) {
    if(i)
      sha256_update(&ctx, 1, (const uint8_t *)"\n");
    sha256_update(&ctx, len ? len[i] : strlen(s[i]), (const uint8_t *)s[i]);
  }
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  ref_dice_hex(out_hex, digest, 32);
}

void ref_dice_entropy(char out_hex[65], const char *const *e, size_t k)
{
  entropy_hex(out_hex, e, NULL, k);
}

void ref_dice_salt(char out_hex[65], const uint8_t secret[32])
{
  static const char label[] = REF_DICE_PROTOCOL_2 " salt";
  struct hmac_sha256_ctx ctx;
  uint8_t digest[SHA256_DIGEST_SIZE];

  hmac_sha256_set_key(&ctx, 32, secret);
  hmac_sha256_update(&ctx, strlen(label), (const uint8_t *)label);
  hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  ref_dice_hex(out_hex, digest, 32);
}

void ref_dice_mid_entropy(char *out, size_t cap, const char *salt_hex, const char *message_id)
{
  /* Keyed, not a plain SHA-256: a Message-ID such as mutt's
   * "<20261128051234.GA1234@host>" is a date, a process id and a host, few
   * enough guesses to search a plain digest for the host; without the
   * salt, which only the players' mails carry, no guess can be tested. */
  struct hmac_sha256_ctx ctx;
  uint8_t digest[SHA256_DIGEST_SIZE];
  char hex[65];

  hmac_sha256_set_key(&ctx, strlen(salt_hex), (const uint8_t *)salt_hex);
  hmac_sha256_update(&ctx, strlen(message_id), (const uint8_t *)message_id);
  hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, digest);
  ref_dice_hex(hex, digest, 32);
  snprintf(out, cap, "mid:%s", hex);
}

int ref_dice_faces(int *faces, int nfaces, const uint8_t key[32], const char *game, long i,
                   const char *E_hex)
{
  struct hmac_sha256_ctx ctx;
  uint8_t block[SHA256_DIGEST_SIZE];
  char num[24];
  int got = 0;
  long j;

  if(!faces || nfaces < 1 || !key || !game || !E_hex)
    return -1;
  hmac_sha256_set_key(&ctx, 32, key);
  /* A block yields no face only if all 32 bytes are >= 252 (p = 2^-192), so
   * nfaces + 16 blocks never run out; the bound only stops a runaway loop. */
  for(j = 0; got < nfaces && j < (long)nfaces + 16; j++) {
    size_t b;
    int len;

    hmac_sha256_update(&ctx, strlen(REF_DICE_PROTOCOL "|"), (const uint8_t *)REF_DICE_PROTOCOL "|");
    hmac_sha256_update(&ctx, strlen(game), (const uint8_t *)game);
    len = snprintf(num, sizeof(num), "|%ld|", i);
    hmac_sha256_update(&ctx, (size_t)len, (const uint8_t *)num);
    hmac_sha256_update(&ctx, strlen(E_hex), (const uint8_t *)E_hex);
    len = snprintf(num, sizeof(num), "|%ld", j);
    hmac_sha256_update(&ctx, (size_t)len, (const uint8_t *)num);
    /* nettle's digest also resets ctx to the same key for the next block. */
    hmac_sha256_digest(&ctx, SHA256_DIGEST_SIZE, block);
    /* Bytes >= 252 are skipped: 252 = 42 * 6, so b mod 6 is then unbiased. */
    for(b = 0; b < sizeof(block) && got < nfaces; b++) {
      if(block[b] < 252)
        faces[got++] = block[b] % 6 + 1;
    }
  }
  return got == nfaces ? 0 : -1;
}

int ref_dice_check_key(const uint8_t key[32], const uint8_t prev[32])
{
  uint8_t h[32];

  sha256(h, key, 32);
  return memcmp(h, prev, 32) ? -1 : 0;
}

void ref_dice_hex(char *out, const uint8_t *in, size_t len)
{
  static const char digits[] = "0123456789abcdef";
  size_t i;

  for(i = 0; i < len; i++) {
    out[2 * i] = digits[in[i] >> 4];
    out[2 * i + 1] = digits[in[i] & 15];
  }
  out[2 * len] = '\0';
}

static int hexval(char c)
{
  if(c >= '0' && c <= '9')
    return c - '0';
  if(c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

int ref_dice_unhex(uint8_t *out, size_t len, const char *hex)
{
  size_t i;

  for(i = 0; i < len; i++) {
    int hi, lo;
    if(!hex[2 * i])
      return -1;
    hi = hexval(hex[2 * i]);
    lo = hexval(hex[2 * i + 1]);
    if(hi < 0 || lo < 0)
      return -1;
    out[i] = (uint8_t)(hi << 4 | lo);
  }
  return hex[2 * len] ? -1 : 0;
}

/* ---- the transcript verifier ---- */

enum fact_kind { FACT_COMMIT, FACT_ENTROPY, FACT_E, FACT_ROLL };

/* One parsed dice line. `value` points into the caller's text. */
struct fact {
  enum fact_kind kind;
  long line;
  char game[21];
  long chain;       /* FACT_COMMIT, FACT_ROLL */
  long n;           /* FACT_COMMIT: N */
  long index;       /* FACT_ROLL: i; FACT_ENTROPY: K of e_K */
  uint8_t hash[32]; /* commitment, E or key */
  int faces[REF_DICE_MAX_FACES];
  int nfaces;
  const char *value; /* FACT_ENTROPY */
  size_t vlen;
};

struct facts {
  struct fact *v;
  size_t n, cap;
};

/* A cursor over one stripped line [p, end). Each matcher consumes a token and
 * requires a token boundary (a space or the end) after it. */
struct cur {
  const char *p, *end;
};

static bool at_boundary(const struct cur *c)
{
  return c->p == c->end || *c->p == ' ';
}

static bool spaces(struct cur *c)
{
  const char *start = c->p;

  while(c->p < c->end && *c->p == ' ')
    c->p++;
  return c->p > start;
}

static bool word(struct cur *c, const char *w)
{
  size_t len = strlen(w);

  struct cur after;

  if((size_t)(c->end - c->p) < len || memcmp(c->p, w, len))
    return false;
  after.p = c->p + len;
  after.end = c->end;
  if(!at_boundary(&after))
    return false;
  c->p = after.p;
  return true;
}

/* [1-9][0-9]{0,8}: nine digits keep every count in a long on any platform. */
static bool number(struct cur *c, long *out)
{
  long v = 0;
  int digits = 0;

  if(c->p == c->end || *c->p < '1' || *c->p > '9')
    return false;
  while(c->p < c->end && *c->p >= '0' && *c->p <= '9' && digits < 9) {
    v = v * 10 + (*c->p - '0');
    c->p++;
    digits++;
  }
  *out = v;
  return at_boundary(c);
}

/* The game id is kept as printed: it is a string in the HMAC message. */
static bool game_id(struct cur *c, char out[21])
{
  size_t len = 0;

  while(c->p < c->end && *c->p >= '0' && *c->p <= '9' && len < 20)
    out[len++] = *c->p++;
  out[len] = '\0';
  return len > 0 && at_boundary(c);
}

static bool hex32(struct cur *c, uint8_t out[32])
{
  char buf[65];

  if(c->end - c->p < 64)
    return false;
  memcpy(buf, c->p, 64);
  buf[64] = '\0';
  if(ref_dice_unhex(out, 32, buf))
    return false;
  c->p += 64;
  return at_boundary(c);
}

static bool game_prefix(struct cur *c, struct fact *f)
{
  return spaces(c) && word(c, "game") && spaces(c) && game_id(c, f->game) && spaces(c);
}

/* Parses a line that starts with one of the three prefixes; false = malformed. */
static bool parse_commit(struct cur *c, struct fact *f)
{
  f->kind = FACT_COMMIT;
  /* both versions compute the faces alike; they differ in what e_s is */
  return spaces(c) && (word(c, REF_DICE_PROTOCOL) || word(c, REF_DICE_PROTOCOL_2)) &&
         game_prefix(c, f) && word(c, "chain") &&
         spaces(c) && number(c, &f->chain) && spaces(c) && word(c, "N") && spaces(c) &&
         number(c, &f->n) && spaces(c) && word(c, "commitment") && spaces(c) && hex32(c, f->hash) &&
         c->p == c->end;
}

static bool parse_entropy(struct cur *c, struct fact *f)
{
  if(!game_prefix(c, f))
    return false;
  if(word(c, "E")) {
    f->kind = FACT_E;
    return spaces(c) && hex32(c, f->hash) && c->p == c->end;
  }
  f->kind = FACT_ENTROPY;
  if(c->p == c->end || *c->p != 'e')
    return false;
  c->p++;
  if(!number(c, &f->index))
    return false;
  /* The value is everything after exactly one space: e_s is compared byte
   * for byte (protocol, "Player entropy"); an empty e_s has no space. */
  if(c->p < c->end)
    c->p++;
  f->value = c->p;
  f->vlen = (size_t)(c->end - c->p);
  return true;
}

static bool parse_roll(struct cur *c, struct fact *f)
{
  f->kind = FACT_ROLL;
  if(!(game_prefix(c, f) && word(c, "chain") && spaces(c) && number(c, &f->chain) && spaces(c) &&
       word(c, "roll") && spaces(c) && number(c, &f->index) && spaces(c) && word(c, "key") &&
       spaces(c) && hex32(c, f->hash) && spaces(c) && word(c, "faces")))
    return false;
  f->nfaces = 0;
  while(spaces(c)) {
    if(c->p == c->end)
      break;
    if(f->nfaces == REF_DICE_MAX_FACES || *c->p < '0' || *c->p > '9')
      return false;
    f->faces[f->nfaces++] = *c->p++ - '0';
    if(!at_boundary(c))
      return false;
  }
  return f->nfaces > 0 && c->p == c->end;
}

static int facts_push(struct facts *fs, const struct fact *f)
{
  if(fs->n == fs->cap) {
    size_t cap = fs->cap ? fs->cap * 2 : 64;
    struct fact *v = realloc(fs->v, cap * sizeof(*v));
    if(!v)
      return -1;
    fs->v = v;
    fs->cap = cap;
  }
  fs->v[fs->n++] = *f;
  return 0;
}

static void say(char *why, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t cap, const char *fmt, ...)
{
  va_list ap;

  if(!why || !cap)
    return;
  va_start(ap, fmt);
  vsnprintf(why, cap, fmt, ap);
  va_end(ap);
}

/* Splits text into lines, strips quoting and line ends (dice.h), and parses
 * every dice line. Returns 0, -1 with why set on a malformed line, -2 on OOM. */
static int parse_text(struct facts *fs, const char *text, char *why, size_t cap)
{
  static const char *const prefixes[] = {"Dice commitment:", "Dice entropy:", "Dice roll:"};
  const char *p = text;
  long line = 0;

  while(*p) {
    const char *eol = strchr(p, '\n');
    const char *next = eol ? eol + 1 : p + strlen(p);
    struct cur c = {p, eol ? eol : next};
    struct fact f;
    size_t k;
    bool ok = false;

    line++;
    p = next;
    while(c.p < c.end && (*c.p == ' ' || *c.p == '\t' || *c.p == '>'))
      c.p++;
    while(c.end > c.p && (c.end[-1] == ' ' || c.end[-1] == '\t' || c.end[-1] == '\r'))
      c.end--;
    for(k = 0; k < sizeof(prefixes) / sizeof(prefixes[0]); k++) {
      size_t len = strlen(prefixes[k]);
      if((size_t)(c.end - c.p) >= len && !memcmp(c.p, prefixes[k], len))
        break;
    }
    if(k == sizeof(prefixes) / sizeof(prefixes[0]))
      continue;
    memset(&f, 0, sizeof(f));
    f.line = line;
    c.p += strlen(prefixes[k]);
    if(k == 0)
      ok = parse_commit(&c, &f);
    else if(k == 1)
      ok = parse_entropy(&c, &f);
    else
      ok = parse_roll(&c, &f);
    if(!ok) {
      say(why, cap, "line %ld: malformed dice line", line);
      return -1;
    }
    if(facts_push(fs, &f))
      return -2;
  }
  return 0;
}

static long fact_key(const struct fact *f)
{
  return f->kind == FACT_COMMIT ? f->chain : f->index;
}

/* Facts sort by kind, then chain (commitments) or index (e_K, rolls), then
 * line, so every fact's repeats are adjacent and rolls come last. */
static int fact_cmp(const void *a, const void *b)
{
  const struct fact *x = a, *y = b;

  if(x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  if(fact_key(x) != fact_key(y))
    return fact_key(x) < fact_key(y) ? -1 : 1;
  return (x->line > y->line) - (x->line < y->line);
}

static bool same_fact(const struct fact *x, const struct fact *y)
{
  return x->chain == y->chain && x->n == y->n && !memcmp(x->hash, y->hash, 32) &&
         x->nfaces == y->nfaces && !memcmp(x->faces, y->faces, sizeof(int) * (size_t)x->nfaces) &&
         x->vlen == y->vlen && (!x->vlen || !memcmp(x->value, y->value, x->vlen));
}

/* The repeats of fact v[at] are v[at .. *last); false when they disagree. */
static bool group(const struct fact *v, size_t n, size_t at, size_t *last)
{
  size_t k = at + 1;
  bool agree = true;

  while(k < n && v[k].kind == v[at].kind && fact_key(&v[k]) == fact_key(&v[at])) {
    if(!same_fact(&v[at], &v[k]))
      agree = false;
    k++;
  }
  *last = k;
  return agree;
}

static const struct fact *find(const struct fact *v, size_t n, enum fact_kind kind, long key)
{
  size_t k;

  for(k = 0; k < n; k++) {
    if(v[k].kind == kind && fact_key(&v[k]) == key)
      return &v[k];
  }
  return NULL;
}

static void faces_text(char *out, size_t cap, const int *faces, int n)
{
  size_t used = 0;
  int k;

  out[0] = '\0';
  for(k = 0; k < n && used < cap; k++) {
    int w = snprintf(out + used, cap - used, "%s%d", k ? " " : "", faces[k]);
    if(w < 0)
      break;
    used += (size_t)w;
  }
}

/* Checks one roll (protocol, "Verifying roll i"); v sorted, r = roll i's first line. */
static int check_roll(const struct fact *v, size_t n, const struct fact *r, const uint8_t *prev_key,
                      const char *E_hex, char *why, size_t cap)
{
  const struct fact *commit = NULL;
  long long first = 1;
  long d, j;
  int computed[REF_DICE_MAX_FACES];

  /* Chain c starts after the rolls of chains 1..c-1 (dice.h, numbering). */
  for(d = 1; d <= r->chain; d++) {
    commit = find(v, n, FACT_COMMIT, d);
    if(!commit) {
      say(why, cap, "roll %ld: chain %ld commitment missing", r->index, d);
      return -1;
    }
    if(d < r->chain)
      first += commit->n;
  }
  if(r->index < first || r->index >= first + commit->n) {
    say(why, cap, "roll %ld: chain %ld covers rolls %lld to %lld", r->index, r->chain, first,
        first + commit->n - 1);
    return -1;
  }
  j = (long)(r->index - first + 1);
  if(j == 1 && ref_dice_check_key(r->hash, commit->hash)) {
    say(why, cap, "roll %ld: key does not hash to the chain %ld commitment", r->index, r->chain);
    return -1;
  }
  if(j > 1 && ref_dice_check_key(r->hash, prev_key)) {
    say(why, cap, "roll %ld: key does not hash to the previous key", r->index);
    return -1;
  }
  ref_dice_faces(computed, r->nfaces, r->hash, r->game, r->index, E_hex);
  if(memcmp(computed, r->faces, sizeof(int) * (size_t)r->nfaces)) {
    char a[64], b[64];
    faces_text(a, sizeof(a), r->faces, r->nfaces);
    faces_text(b, sizeof(b), computed, r->nfaces);
    say(why, cap, "roll %ld: faces %s printed, %s computed", r->index, a, b);
    return -1;
  }
  return 0;
}

/* Steps 2 and 3 of dice.h on the sorted facts of one game: E into E_hex. */
static int check_setup(const struct fact *v, size_t n, bool rolls, char E_hex[65], char *why,
                       size_t cap)
{
  const char **vals = NULL;
  size_t *lens = NULL;
  const struct fact *printed = NULL;
  size_t at, last, k = 0;
  int rc = -1;

  vals = calloc(n + 1, sizeof(*vals));
  lens = calloc(n + 1, sizeof(*lens));
  if(!vals || !lens) {
    say(why, cap, "out of memory");
    goto out;
  }
  for(at = 0; at < n; at = last) {
    bool agree = group(v, n, at, &last);
    if(v[at].kind == FACT_COMMIT && !agree) {
      say(why, cap, "chain %ld commitment: conflicting lines", v[at].chain);
      goto out;
    }
    if(v[at].kind == FACT_ENTROPY) {
      if(!agree) {
        say(why, cap, "entropy e%ld: conflicting lines", v[at].index);
        goto out;
      }
      /* Sorted by K, so a gap shows as K beyond the count so far. */
      if(v[at].index != (long)k + 1) {
        say(why, cap, "entropy e%zu missing", k + 1);
        goto out;
      }
      vals[k] = v[at].value;
      lens[k] = v[at].vlen;
      k++;
    }
    if(v[at].kind == FACT_E) {
      if(!agree) {
        say(why, cap, "entropy E: conflicting lines");
        goto out;
      }
      printed = &v[at];
    }
  }
  if(!k && rolls && !printed) {
    say(why, cap, "entropy e1 missing");
    goto out;
  }
  /* no e_K, E printed: a published tabula-dice-1 record (dice.h, step 3) */
  if(!k && printed)
    ref_dice_hex(E_hex, printed->hash, 32);
  else
    entropy_hex(E_hex, vals, lens, k);
  if(printed && k) {
    char hex[65];
    ref_dice_hex(hex, printed->hash, 32);
    if(strcmp(hex, E_hex)) {
      say(why, cap, "entropy: E printed %s, computed %s from e1..e%zu", hex, E_hex, k);
      goto out;
    }
  }
  rc = 0;
out:
  free(vals);
  free(lens);
  return rc;
}

/* "dice lines of several games (7, 12): choose one", games in order of
 * first appearance, as the Python verifier prints them. */
static void say_games(char *why, size_t cap, const struct facts *all)
{
  char list[160] = "";
  size_t used = 0, at, k;

  for(at = 0; at < all->n && used < sizeof(list); at++) {
    for(k = 0; k < at && strcmp(all->v[k].game, all->v[at].game); k++)
      ;
    if(k < at)
      continue;
    used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
                             all->v[at].game);
  }
  say(why, cap, "dice lines of several games (%s): choose one", list);
}

int ref_dice_verify_game(const char *text, const char *game, int *nrolls, char *why, size_t cap)
{
  struct facts all = {0}, mine = {0};
  char E_hex[65];
  size_t at, last;
  const uint8_t *prev_key = NULL;
  long i = 0;
  int parsed, rc = -1;

  if(nrolls)
    *nrolls = 0;
  say(why, cap, "%s", "");
  parsed = parse_text(&all, text ? text : "", why, cap);
  if(parsed) {
    if(parsed == -2)
      say(why, cap, "out of memory");
    goto out;
  }
  if(!all.n) {
    say(why, cap, "no dice lines found");
    goto out;
  }
  if(!game) {
    /* Without a chosen game there must be only one (step 1). */
    game = all.v[0].game;
    for(at = 1; at < all.n && !strcmp(all.v[at].game, game); at++)
      ;
    if(at < all.n) {
      say_games(why, cap, &all);
      goto out;
    }
  }
  for(at = 0; at < all.n; at++) {
    if(!strcmp(all.v[at].game, game) && facts_push(&mine, &all.v[at])) {
      say(why, cap, "out of memory");
      goto out;
    }
  }
  if(!mine.n) {
    say(why, cap, "no dice lines for game %s", game);
    goto out;
  }
  qsort(mine.v, mine.n, sizeof(*mine.v), fact_cmp);
  if(check_setup(mine.v, mine.n, mine.v[mine.n - 1].kind == FACT_ROLL, E_hex, why, cap))
    goto out;
  /* Step 4: rolls are last in sort order, by i then line. */
  for(at = 0; at < mine.n && mine.v[at].kind != FACT_ROLL; at++)
    ;
  for(; at < mine.n; at = last) {
    const struct fact *r = &mine.v[at];
    bool agree = group(mine.v, mine.n, at, &last);
    i++;
    if(r->index != i) {
      say(why, cap, "roll %ld missing", i);
      goto out;
    }
    if(!agree) {
      say(why, cap, "roll %ld: conflicting lines", i);
      goto out;
    }
    if(check_roll(mine.v, mine.n, r, prev_key, E_hex, why, cap))
      goto out;
    prev_key = r->hash;
  }
  if(nrolls)
    *nrolls = (int)i;
  rc = 0;
out:
  free(all.v);
  free(mine.v);
  return rc;
}

int ref_dice_verify_text(const char *text, int *nrolls, char *why, size_t cap)
{
  return ref_dice_verify_game(text, NULL, nrolls, why, cap);
}

int ref_dice_peek(int *faces, int nfaces, const struct ref_dice_chain *c, int next_index,
                  long next_roll, int ahead, const char *game, const char *E_hex)
{
  uint8_t key[32];
  int rc;
  if(!c || ahead < 0 || next_index < 1 || next_index + ahead > c->n)
    return -1;
  ref_dice_key(key, c, next_index + ahead);
  rc = ref_dice_faces(faces, nfaces, key, game, next_roll + ahead, E_hex);
  memset(key, 0, sizeof(key)); /* the key itself stays secret until played */
  return rc;
}
