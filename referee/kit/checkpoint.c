/*
 * checkpoint.c: checkpoints and the referee's key (checkpoint.h,
 * docs/history-protocol.md "Checkpoints").
 */
#include "checkpoint.h"

#include <inttypes.h>
#include <nettle/base64.h>
#include <nettle/eddsa.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <string.h>

int ref_history_key_init(struct ref_history_key *k, const uint8_t seed[32], const char *address)
{
  static const uint8_t alg = 0x01; /* signed-note's Ed25519 */
  uint8_t digest[SHA256_DIGEST_SIZE];
  struct sha256_ctx ctx;
  const char *at = strrchr(address, '@');
  size_t len;
  int n;

  /* The key's name, as C2SP wants an origin: a schema-less URL,
   * "DOMAIN/LOCAL" for LOCAL@DOMAIN (docs/history-protocol.md, "Checkpoints");
   * it holds no space, and no '+' (a subaddress's is written '-') */
  if(at)
    n = snprintf(k->name, sizeof(k->name), "%s/%.*s", at + 1, (int)(at - address), address);
  else
    n = snprintf(k->name, sizeof(k->name), "%s", address);
  if(n <= 0 || (size_t)n >= sizeof(k->name) || strpbrk(k->name, " \t\n") || !at || at == address ||
     !at[1])
    return -1;
  len = (size_t)n;
  for(size_t i = 0; i < len; i++)
    if(k->name[i] == '+')
      k->name[i] = '-';
  memcpy(k->seed, seed, 32);
  ed25519_sha512_public_key(k->pub, k->seed);
  sha256_init(&ctx);
  sha256_update(&ctx, len, (const uint8_t *)k->name);
  sha256_update(&ctx, 1, (const uint8_t *)"\n");
  sha256_update(&ctx, 1, &alg);
  sha256_update(&ctx, 32, k->pub);
  sha256_digest(&ctx, sizeof(digest), digest);
  memcpy(k->id, digest, 4);
  return 0;
}

int ref_history_b64(struct base_buf *out, const uint8_t *p, size_t n)
{
  char text[BASE64_ENCODE_RAW_LENGTH(512) + 1];
  if(n > 512)
    return BASE_BUF_ETOOBIG;
  base64_encode_raw(text, n, p);
  text[BASE64_ENCODE_RAW_LENGTH(n)] = '\0';
  return base_buf_puts(out, text);
}

int ref_history_vkey(struct base_buf *out, const struct ref_history_key *k)
{
  uint8_t typed[33];
  int rc;

  typed[0] = 0x01;
  memcpy(typed + 1, k->pub, 32);
  if((rc = base_buf_printf(out, "%s+%02x%02x%02x%02x+", k->name, k->id[0], k->id[1], k->id[2],
                           k->id[3])))
    return rc;
  return ref_history_b64(out, typed, sizeof(typed));
}

int ref_history_origin(struct base_buf *out, const char *name, int64_t game)
{
  return base_buf_printf(out, "%s/game/%" PRId64, name, game);
}

int ref_history_checkpoint(struct base_buf *out, const struct ref_history_key *k, int64_t game,
                           int64_t size, const uint8_t root[32])
{
  struct base_buf body;
  uint8_t sig[4 + ED25519_SIGNATURE_SIZE];
  int rc;

  base_buf_init(&body, 4096);
  rc = ref_history_origin(&body, k->name, game);
  if(!rc)
    rc = base_buf_printf(&body, "\n%" PRId64 "\n", size);
  if(!rc)
    rc = ref_history_b64(&body, root, 32);
  if(!rc)
    rc = base_buf_puts(&body, "\n");
  if(rc) {
    base_buf_free(&body);
    return rc;
  }
  memcpy(sig, k->id, 4);
  ed25519_sha512_sign(k->pub, k->seed, body.len, (const uint8_t *)body.s, sig + 4);
  rc = base_buf_add(out, body.s, body.len);
  base_buf_free(&body);
  if(!rc)
    rc = base_buf_printf(out, "\n" REF_HISTORY_DASH "%s ", k->name);
  if(!rc)
    rc = ref_history_b64(out, sig, sizeof(sig));
  if(!rc)
    rc = base_buf_puts(out, "\n");
  return rc;
}
