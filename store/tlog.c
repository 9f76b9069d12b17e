/*
 * tlog.c: the Merkle tree of a game's journal (docs/history-protocol.md),
 * RFC 9162 §2.1 over SHA-256. Pure: no I/O, no store; the leaves' hashes
 * come from the caller. Contract in store.h ("history").
 *
 *   leaf hash  = SHA-256(0x00 || leaf data)            (RFC 9162 §2.1.1)
 *   node hash  = SHA-256(0x01 || left || right)
 *   MTH({})    = SHA-256("")
 *   MTH(D[n])  = node(MTH(D[0:k]), MTH(D[k:n])), k the largest power of
 *                two smaller than n
 *
 * The leaf data of a journal entry is (docs/history-protocol.md, "Leaves")
 *
 *   "tabula-history-1\n" game "\n" seq "\n" time "\n" seat "\n"
 *   kind "\n" text "\n" dice "\n"
 *
 * with the numbers in plain decimal, as the journal's own chain writes them
 * (journal.c), but without the previous hash: the tree links the entries.
 * A sealed entry (store_tlog_sealed) ends with one more line, its nonce
 * (docs/history-protocol.md, "Sealed entries").
 */
#include "store_int.h"

#include <inttypes.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>

#define LEAF_TAG "tabula-history-1\n"

static void put_field(struct sha256_ctx *ctx, const char *s, size_t len)
{
  sha256_update(ctx, len, (const uint8_t *)s);
  sha256_update(ctx, 1, (const uint8_t *)"\n");
}

static void put_int(struct sha256_ctx *ctx, int64_t v)
{
  char buf[24];
  int len = snprintf(buf, sizeof(buf), "%" PRId64, v);
  put_field(ctx, buf, (size_t)len);
}

bool store_tlog_sealed(const char *kind)
{
  /* a player's prepared lines (cmd_play.c): the branches not played are
   * never shown to the opponent (rules-spec HI-1) */
  return !strcmp(kind, "conditional");
}

void store_tlog_leaf_hash(uint8_t out[STORE_TLOG_HASH], const struct store_entry *e,
                          const char *nonce)
{
  static const uint8_t zero = 0x00;
  struct sha256_ctx ctx;

  sha256_init(&ctx);
  sha256_update(&ctx, 1, &zero);
  sha256_update(&ctx, sizeof(LEAF_TAG) - 1, (const uint8_t *)LEAF_TAG);
  put_int(&ctx, e->game);
  put_int(&ctx, e->seq);
  put_int(&ctx, e->time);
  put_int(&ctx, e->seat);
  put_field(&ctx, e->kind, strnlen(e->kind, sizeof(e->kind)));
  put_field(&ctx, e->text, strnlen(e->text, sizeof(e->text)));
  put_field(&ctx, e->dice, strnlen(e->dice, sizeof(e->dice)));
  if(nonce)
    put_field(&ctx, nonce, strlen(nonce));
  sha256_digest(&ctx, STORE_TLOG_HASH, out);
}

void store_tlog_node(uint8_t out[STORE_TLOG_HASH], const uint8_t left[STORE_TLOG_HASH],
                     const uint8_t right[STORE_TLOG_HASH])
{
  static const uint8_t one = 0x01;
  struct sha256_ctx ctx;

  sha256_init(&ctx);
  sha256_update(&ctx, 1, &one);
  sha256_update(&ctx, STORE_TLOG_HASH, left);
  sha256_update(&ctx, STORE_TLOG_HASH, right);
  sha256_digest(&ctx, STORE_TLOG_HASH, out);
}

/* The largest power of two smaller than n (n >= 2). */
static size_t split(size_t n)
{
  size_t k = 1;
  while(k << 1 < n)
    k <<= 1;
  return k;
}

/* MTH over leaf hashes (n >= 1). */
static void mth(uint8_t out[STORE_TLOG_HASH], const uint8_t (*leaves)[STORE_TLOG_HASH], size_t n)
{
  uint8_t l[STORE_TLOG_HASH], r[STORE_TLOG_HASH];
  size_t k;

  if(n == 1) {
    memcpy(out, leaves[0], STORE_TLOG_HASH);
    return;
  }
  k = split(n);
  mth(l, leaves, k);
  mth(r, leaves + k, n - k);
  store_tlog_node(out, l, r);
}

void store_tlog_root(uint8_t out[STORE_TLOG_HASH], const uint8_t (*leaves)[STORE_TLOG_HASH],
                     size_t n)
{
  struct sha256_ctx ctx;

  if(n == 0) {
    sha256_init(&ctx);
    sha256_digest(&ctx, STORE_TLOG_HASH, out);
    return;
  }
  mth(out, leaves, n);
}

/* RFC 9162 §2.1.3.1 PATH(m, D[n]), appended at proof[*np] (deepest first). */
static void path(uint8_t (*proof)[STORE_TLOG_HASH], size_t *np,
                 const uint8_t (*leaves)[STORE_TLOG_HASH], size_t n, size_t m)
{
  size_t k;

  if(n <= 1)
    return;
  k = split(n);
  if(m < k) {
    path(proof, np, leaves, k, m);
    mth(proof[(*np)++], leaves + k, n - k);
  }
  else {
    path(proof, np, leaves + k, n - k, m - k);
    mth(proof[(*np)++], leaves, k);
  }
}

int store_tlog_inclusion(uint8_t (*proof)[STORE_TLOG_HASH], size_t *np,
                         const uint8_t (*leaves)[STORE_TLOG_HASH], size_t n, size_t index)
{
  *np = 0;
  if(index >= n)
    return -1;
  path(proof, np, leaves, n, index);
  return 0;
}

/* RFC 9162 §2.1.4.1 SUBPROOF(m, D[n], b). */
static void subproof(uint8_t (*proof)[STORE_TLOG_HASH], size_t *np,
                     const uint8_t (*leaves)[STORE_TLOG_HASH], size_t n, size_t m, int b)
{
  size_t k;

  if(m == n) {
    if(!b)
      mth(proof[(*np)++], leaves, n);
    return;
  }
  k = split(n);
  if(m <= k) {
    subproof(proof, np, leaves, k, m, b);
    mth(proof[(*np)++], leaves + k, n - k);
  }
  else {
    subproof(proof, np, leaves + k, n - k, m - k, 0);
    mth(proof[(*np)++], leaves, k);
  }
}

int store_tlog_consistency(uint8_t (*proof)[STORE_TLOG_HASH], size_t *np,
                           const uint8_t (*leaves)[STORE_TLOG_HASH], size_t n, size_t m)
{
  *np = 0;
  if(m > n)
    return -1;
  /* from an empty tree, or to the same size, there is nothing to prove */
  if(m == 0 || m == n)
    return 0;
  subproof(proof, np, leaves, n, m, 1);
  return 0;
}

/* RFC 9162 §2.1.3.2. */
int store_tlog_verify_inclusion(const uint8_t leaf[STORE_TLOG_HASH], size_t index, size_t n,
                                const uint8_t (*proof)[STORE_TLOG_HASH], size_t np,
                                const uint8_t root[STORE_TLOG_HASH])
{
  uint8_t r[STORE_TLOG_HASH];
  size_t fn = index, sn = n - 1, i;

  if(index >= n)
    return -1;
  memcpy(r, leaf, STORE_TLOG_HASH);
  for(i = 0; i < np; i++) {
    if(sn == 0)
      return -1;
    if((fn & 1) || fn == sn) {
      store_tlog_node(r, proof[i], r);
      if(!(fn & 1))
        while(fn && !(fn & 1)) {
          fn >>= 1;
          sn >>= 1;
        }
    }
    else
      store_tlog_node(r, r, proof[i]);
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && !memcmp(r, root, STORE_TLOG_HASH) ? 0 : -1;
}

/* RFC 9162 §2.1.4.2. */
int store_tlog_verify_consistency(size_t m, size_t n, const uint8_t old_root[STORE_TLOG_HASH],
                                  const uint8_t new_root[STORE_TLOG_HASH],
                                  const uint8_t (*proof)[STORE_TLOG_HASH], size_t np)
{
  uint8_t fr[STORE_TLOG_HASH], sr[STORE_TLOG_HASH];
  size_t fn, sn, i = 0;

  if(m > n)
    return -1;
  if(m == n)
    return np == 0 && !memcmp(old_root, new_root, STORE_TLOG_HASH) ? 0 : -1;
  if(m == 0)
    return np == 0 ? 0 : -1;
  if(np == 0)
    return -1;
  fn = m - 1;
  sn = n - 1;
  /* m a power of two: the old root is the proof's implicit first node */
  if(!(m & (m - 1))) {
    memcpy(fr, old_root, STORE_TLOG_HASH);
    memcpy(sr, old_root, STORE_TLOG_HASH);
  }
  else {
    memcpy(fr, proof[0], STORE_TLOG_HASH);
    memcpy(sr, proof[0], STORE_TLOG_HASH);
    i = 1;
  }
  while(fn & 1) {
    fn >>= 1;
    sn >>= 1;
  }
  for(; i < np; i++) {
    if(sn == 0)
      return -1;
    if((fn & 1) || fn == sn) {
      store_tlog_node(fr, proof[i], fr);
      store_tlog_node(sr, proof[i], sr);
      if(!(fn & 1))
        while(fn && !(fn & 1)) {
          fn >>= 1;
          sn >>= 1;
        }
    }
    else
      store_tlog_node(sr, sr, proof[i]);
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && !memcmp(fr, old_root, STORE_TLOG_HASH) &&
             !memcmp(sr, new_root, STORE_TLOG_HASH)
           ? 0
           : -1;
}
