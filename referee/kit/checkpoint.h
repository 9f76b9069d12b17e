/*
 * checkpoint.h: the signed checkpoints of a game's history
 * (docs/history-protocol.md): C2SP tlog-checkpoint notes signed as C2SP
 * signed-note with Ed25519 (RFC 8032), the referee's verifier key, and the
 * base64 the mails print hashes in. Pure: the key and the tree's root come
 * from the caller (store_referee_key, store_tlog_root).
 */
#ifndef TABULA_CHECKPOINT_H
#define TABULA_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"

/* The note's signature line starts with U+2014 EM DASH and a space. */
#define REF_HISTORY_DASH "\xe2\x80\x94 "

struct ref_history_key {
  uint8_t seed[32]; /* the private key (RFC 8032 §5.1.5) */
  uint8_t pub[32];
  uint8_t id[4];    /* C2SP signed-note key ID: SHA-256(name "\n" 0x01 pub)[0:4] */
  char name[256];   /* the key's name: "DOMAIN/LOCAL" of the referee's address */
};

/* Fills name, pub and id from seed and the referee's address LOCAL@DOMAIN:
 * the name is "DOMAIN/LOCAL", a '+' written '-' (a signed-note key name
 * holds none); -1 when the address has no '@' or holds a space. */
int ref_history_key_init(struct ref_history_key *k, const uint8_t seed[32], const char *address);
/* The verifier key as C2SP writes it: NAME+HEXID+base64(0x01 || pub). */
BASE_CHECK int ref_history_vkey(struct base_buf *out, const struct ref_history_key *k);
/* base64 (RFC 4648 §4, padded) of n bytes. */
BASE_CHECK int ref_history_b64(struct base_buf *out, const uint8_t *p, size_t n);
/* The game's log origin: "NAME/game/G". */
BASE_CHECK int ref_history_origin(struct base_buf *out, const char *name, int64_t game);
/* The signed checkpoint of the game's tree of `size` leaves and root:
 *
 *   ORIGIN "\n" size "\n" base64(root) "\n" "\n" "— " NAME " " base64(id || sig) "\n"
 *
 * the signature being Ed25519 over the first three lines (with their LFs). */
BASE_CHECK int ref_history_checkpoint(struct base_buf *out, const struct ref_history_key *k,
                                      int64_t game, int64_t size, const uint8_t root[32]);

#endif
