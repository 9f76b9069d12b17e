/*
 * history.c: the lines every mail about a game carries so that its players
 * can check the game's record (docs/history-protocol.md, "Mails"): the
 * signed checkpoint of the game's tree, the entries the tree gained since
 * the last mail to this address, an inclusion proof for each, and a
 * consistency proof from the tree that mail showed. One block, appended
 * by reply.c's compose to the text part; the tree size mailed is kept per
 * game and address (store_history_sent_*), in the mail's transaction.
 */
#include "context_int.h"
#include "checkpoint.h"
#include "log.h"

#include <inttypes.h>
#include <nettle/hmac.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint8_t hash_t[STORE_TLOG_HASH];

/* The leaves of game g as far as the journal goes now. The service keeps
 * the last game's leaves (a move's two or three mails hash its journal
 * once); they are used again only when the entry they end with still has
 * the same chain hash (journal.c), which covers every entry before it, so
 * a transaction rolled back and written otherwise is never mistaken. */
struct ref_history_cache {
  uint8_t seal[32]; /* store_history_seal's, read once */
  bool have_seal;
  int64_t game;
  size_t n, cap;
  hash_t *leaves;
  char last_hash[65];
  /* the last checkpoint signed: a move's mails to both players show the
   * same tree, and one Ed25519 signature serves them all */
  /* the entries the last reading of the journal gave (its new tail): a
   * mail reports these, most of the time, without reading them again */
  struct store_entry *tail;
  size_t ntail;
  int64_t note_game, note_size;
  hash_t note_root;
  char *note;
};

void ref_history_free(struct ref_service *svc)
{
  if(svc->hcache) {
    free(svc->hcache->tail);
    free(svc->hcache->note);
    free(svc->hcache->leaves);
    free(svc->hcache);
    svc->hcache = NULL;
  }
  free(svc->hkey);
  svc->hkey = NULL;
}

static int key_of(struct ref_service *svc, struct ref_history_key **out)
{
  uint8_t seed[32];
  bool created;

  if(!svc->hkey) {
    struct ref_history_key *k = calloc(1, sizeof(*k));
    if(!k)
      return -1;
    if(store_referee_key(svc->st, seed, true, &created) != STORE_OK ||
       ref_history_key_init(k, seed, svc->cfg.address)) {
      ref_log_error("the referee's key cannot be read or made: %s", store_errmsg(svc->st));
      free(k);
      return -1;
    }
    memset(seed, 0, sizeof(seed));
    if(created)
      ref_log_info("made the referee's signing key (tabula key prints it)");
    svc->hkey = k;
  }
  *out = svc->hkey;
  return 0;
}

/* A sealed entry's nonce: hex(HMAC-SHA256(seal, "tabula-history-1 seal|" G "|" SEQ))
 * (docs/history-protocol.md, "Sealed entries"). */
static void nonce_of(char hex[65], const uint8_t seal[32], int64_t game, int64_t seq)
{
  static const char digits[] = "0123456789abcdef";
  struct hmac_sha256_ctx ctx;
  uint8_t mac[SHA256_DIGEST_SIZE];
  char msg[80];
  int len = snprintf(msg, sizeof(msg), "tabula-history-1 seal|%" PRId64 "|%" PRId64, game, seq);

  hmac_sha256_set_key(&ctx, 32, seal);
  hmac_sha256_update(&ctx, (size_t)len, (const uint8_t *)msg);
  hmac_sha256_digest(&ctx, sizeof(mac), mac);
  for(int i = 0; i < 32; i++) {
    hex[2 * i] = digits[mac[i] >> 4];
    hex[2 * i + 1] = digits[mac[i] & 15];
  }
  hex[64] = '\0';
}

static int entry_leaf(struct ref_service *svc, struct ref_history_cache *c, uint8_t out[32],
                      const struct store_entry *e)
{
  char nonce[65];
  if(!store_tlog_sealed(e->kind)) {
    store_tlog_leaf_hash(out, e, NULL);
    return 0;
  }
  if(!c->have_seal) {
    if(store_history_seal(svc->st, c->seal) != STORE_OK)
      return -1;
    c->have_seal = true;
  }
  nonce_of(nonce, c->seal, e->game, e->seq);
  store_tlog_leaf_hash(out, e, nonce);
  return 0;
}

int ref_history_vkey_text(struct ref_service *svc, char *buf, size_t cap)
{
  struct ref_history_key *k;
  struct base_buf t;
  int rc;

  if(key_of(svc, &k))
    return -1;
  base_buf_init(&t, 4096);
  rc = ref_history_vkey(&t, k) || base_format(buf, cap, "%s", t.s) ? -1 : 0;
  base_buf_free(&t);
  return rc;
}

static int leaves_of(struct ref_service *svc, int64_t game, struct ref_history_cache **out)
{
  struct ref_history_cache *c = svc->hcache;
  struct store_entry *e = NULL;
  size_t n = 0, i, skip = 0;

  if(!c) {
    if(!(c = calloc(1, sizeof(*c))))
      return -1;
    svc->hcache = c;
  }
  if(c->game == game && c->n) {
    if(store_journal_load_from(svc->st, &e, &n, game, (int64_t)c->n) != STORE_OK)
      return -1;
    if(n && !strcmp(e[0].hash, c->last_hash))
      skip = 1;
    else {
      free(e);
      e = NULL;
      c->n = 0;
    }
  }
  else
    c->n = 0;
  c->game = game;
  if(!c->n && store_journal_load(svc->st, &e, &n, game) != STORE_OK)
    return -1;
  if(c->n + n > c->cap) {
    size_t cap = (c->n + n) * 2 + 16;
    hash_t *more = realloc(c->leaves, cap * sizeof(*more));
    if(!more) {
      free(e);
      return -1;
    }
    c->leaves = more;
    c->cap = cap;
  }
  for(i = skip; i < n; i++) {
    if(e[i].seq != (int64_t)c->n + 1) { /* the tree's index is seq - 1 */
      ref_log_error("game %" PRId64 "'s journal skips from %zu to %" PRId64, game, c->n,
                    e[i].seq);
      free(e);
      c->n = 0;
      return -1;
    }
    if(entry_leaf(svc, c, c->leaves[c->n], &e[i])) {
      free(e);
      c->n = 0;
      return -1;
    }
    c->n++;
  }
  if(n)
    memcpy(c->last_hash, e[n - 1].hash, sizeof(c->last_hash));
  free(c->tail);
  c->tail = e;
  c->ntail = n;
  *out = c;
  return 0;
}

/* A journal string as the entry line quotes it: '"' and '\' escaped with
 * '\', control bytes as \xHH (docs/history-protocol.md, "Mails"). */
BASE_CHECK static int quoted(struct base_buf *out, const char *s, size_t cap)
{
  size_t len = strnlen(s, cap), i;
  int rc = base_buf_putc(out, '"');
  for(i = 0; !rc && i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if(c == '"' || c == '\\')
      rc = base_buf_printf(out, "\\%c", c);
    else if(c < 0x20 || c == 0x7f)
      rc = base_buf_printf(out, "\\x%02x", c);
    else
      rc = base_buf_putc(out, (char)c);
  }
  return rc ? rc : base_buf_putc(out, '"');
}

BASE_CHECK static int hashes(struct base_buf *out, const hash_t *h, size_t n)
{
  int rc = 0;
  for(size_t i = 0; !rc && i < n; i++) {
    rc = base_buf_putc(out, ' ');
    if(!rc)
      rc = ref_history_b64(out, h[i], STORE_TLOG_HASH);
  }
  return rc ? rc : base_buf_putc(out, '\n');
}

/* The checkpoint as mail lines: each line after "Record checkpoint: ",
 * the signature line's "— " (U+2014 and a space) as "Record signature: ",
 * so that the text stays 7-bit ASCII (RFC 2045 §2.7); any other byte makes
 * the part quoted-printable, whose soft line breaks cut the long lines of
 * every program that reads a mail undecoded (docs/history-protocol.md,
 * "Mails"). */
BASE_CHECK static int prefixed(struct base_buf *out, const char *note)
{
  static const char dash[] = REF_HISTORY_DASH;
  int rc = 0;
  while(!rc && *note) {
    const char *nl = strchr(note, '\n');
    size_t len = nl ? (size_t)(nl - note) : strlen(note);
    if(len >= sizeof(dash) - 1 && !memcmp(note, dash, sizeof(dash) - 1)) {
      rc = base_buf_puts(out, "Record signature: ");
      if(!rc)
        rc = base_buf_add(out, note + sizeof(dash) - 1, len - (sizeof(dash) - 1));
    }
    else {
      rc = base_buf_puts(out, len ? "Record checkpoint: " : "Record checkpoint:");
      if(!rc)
        rc = base_buf_add(out, note, len);
    }
    if(!rc)
      rc = base_buf_putc(out, '\n');
    note += len + (nl ? 1 : 0);
  }
  return rc;
}

/* The signed checkpoint of c's tree (c->note), signed again only when the
 * tree changed: a move's mails to both players and the web view's page
 * show the same note (Ed25519 is deterministic, RFC 8032 §5.1.6). */
static int note_of(const struct ref_history_key *k, struct ref_history_cache *c, int64_t game)
{
  hash_t root;
  struct base_buf note;
  char *signed_note = NULL;
  int64_t size = (int64_t)c->n;

  store_tlog_root(root, (const hash_t *)c->leaves, c->n);
  if(c->note && c->note_game == game && c->note_size == size &&
     !memcmp(c->note_root, root, sizeof(root)))
    return 0;
  base_buf_init(&note, 64u * 1024u);
  if(ref_history_checkpoint(&note, k, game, size, root) || !(signed_note = strdup(note.s))) {
    base_buf_free(&note);
    return -1;
  }
  base_buf_free(&note);
  free(c->note);
  c->note = signed_note;
  c->note_game = game;
  c->note_size = size;
  memcpy(c->note_root, root, sizeof(root));
  return 0;
}

char *ref_history_note(struct ref_service *svc, int64_t game)
{
  struct ref_history_key *k;
  struct ref_history_cache *c;

  if(key_of(svc, &k) || leaves_of(svc, game, &c) || note_of(k, c, game))
    return NULL;
  return strdup(c->note);
}

int ref_history_block(struct ref_service *svc, const struct ref_game_ctx *g, int seat,
                      const char *to, struct base_buf *out)
{
  struct ref_history_key *k;
  struct ref_history_cache *c;
  struct store_entry *e = NULL;
  const struct store_entry *rep = NULL;
  hash_t proof[STORE_TLOG_MAX_PROOF];
  size_t np, i, ne = 0;
  int64_t sent, size;
  int rc = -1;

  if(key_of(svc, &k) || leaves_of(svc, g->row.id, &c) ||
     store_history_sent_get(svc->st, &sent, g->row.id, to) != STORE_OK)
    return -1;
  size = (int64_t)c->n;
  /* a tree never shrinks (the journal is append-only); a store copied
   * back from an older backup would: prove from nothing then */
  if(sent > size)
    sent = 0;
  if(note_of(k, c, g->row.id))
    return -1;
  if(sent == 0) {
    if(base_buf_puts(out, "Record key: ") || ref_history_vkey(out, k) ||
       base_buf_putc(out, '\n'))
      goto out;
  }
  if(prefixed(out, c->note))
    goto out;
  if(sent < size) {
    if(c->ntail && c->tail[0].seq <= sent + 1 && c->tail[c->ntail - 1].seq == size) {
      rep = c->tail + (sent + 1 - c->tail[0].seq);
      ne = (size_t)(size - sent);
    }
    else if(store_journal_load_from(svc->st, &e, &ne, g->row.id, sent + 1) != STORE_OK)
      goto out;
    else
      rep = e;
  }
  for(i = 0; i < ne && rep[i].seq <= size; i++) {
    const struct store_entry *x = &rep[i];
    bool sealed = store_tlog_sealed(x->kind);
    if(sealed && x->seat != seat) {
      /* another seat's sealed entry: its place in the tree, nothing of it */
      if(base_buf_printf(out, "Record sealed: %" PRId64 " %" PRId64 " ", x->game,
                         x->seq) ||
         ref_history_b64(out, c->leaves[x->seq - 1], STORE_TLOG_HASH) ||
         base_buf_putc(out, '\n'))
        goto out;
      continue;
    }
    if(base_buf_printf(out, "Record entry: %" PRId64 " %" PRId64 " %" PRId64 " %d %s ",
                       x->game, x->seq, x->time, x->seat, x->kind) ||
       quoted(out, x->text, sizeof(x->text)) || base_buf_putc(out, ' ') ||
       quoted(out, x->dice, sizeof(x->dice)))
      goto out;
    if(sealed) {
      char nonce[65];
      nonce_of(nonce, c->seal, x->game, x->seq);
      if(base_buf_printf(out, " %s", nonce))
        goto out;
    }
    if(base_buf_putc(out, '\n'))
      goto out;
  }
  for(i = 0; i < ne && rep[i].seq <= size; i++) {
    const struct store_entry *x = &rep[i];
    if(store_tlog_inclusion(proof, &np, (const hash_t *)c->leaves, c->n, (size_t)x->seq - 1) ||
       base_buf_printf(out, "Record inclusion: %" PRId64 " %" PRId64, x->seq, size) ||
       hashes(out, (const hash_t *)proof, np))
      goto out;
  }
  if(sent > 0 && sent < size) {
    if(store_tlog_consistency(proof, &np, (const hash_t *)c->leaves, c->n, (size_t)sent) ||
       base_buf_printf(out, "Record consistency: %" PRId64 " %" PRId64, sent, size) ||
       hashes(out, (const hash_t *)proof, np))
      goto out;
  }
  if(sent != size && store_history_sent_put(svc->st, g->row.id, to, size) != STORE_OK)
    goto out;
  rc = 0;
out:
  free(e);
  return rc;
}
