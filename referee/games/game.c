/*
 * game.c: a game rebuilt from its journal, and the journal written
 * (docs/architecture.md, layer 3 "games").
 *
 * Games are not trusted to a stored blob: a game is rebuilt from its
 * journal through the rules (ref_game_load), starting from the snapshot
 * of its last save when that snapshot still matches the journal entry it
 * was taken at, and `tabula check` replays every journal in
 * full (ref_game_load_full), so the stored position and the snapshot are
 * caches that must agree with the journal. ref_game_save writes the
 * rules' view back to the game's row.
 */
#include "game_int.h"

#include "log.h"

#include "base.h"

#include <nettle/sha2.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- games: load by replaying the journal ---- */

void ref_game_free(struct ref_game_ctx *g)
{
  if(!g)
    return;
  free(g->state);
  free(g->seats);
  memset(g, 0, sizeof(*g));
}

/* Replays one journal entry into g->state (also used by record.c). */
int ref_game_replay_entry(struct ref_game_ctx *g, const struct store_entry *e, char *why,
                        size_t cap)
{
  const struct ref_game_ops *ops = g->desc->ops;
  struct ref_err err;
  struct ref_move m;
  int rc = REF_OK;

  if(!strcmp(e->kind, "start")) {
    rc = ops->init(g->state, g->row.options[0] ? g->row.options : NULL, &err);
    g->started = 1;
  }
  else if(!strcmp(e->kind, "move")) {
    rc = ops->parse(g->state, e->text, &m, &err);
    if(rc == REF_OK) {
      ref_move_label(g, e->text, g->last_move, sizeof(g->last_move));
      rc = ops->apply(g->state, &m);
    }
  }
  else if(!strcmp(e->kind, "action")) {
    enum ref_action a;
    int arg = 0;
    if(ref_action_parse(e->text, &a, &arg))
      rc = REF_EINVAL;
    else
      rc = ops->act(g->state, e->seat, a, arg, &err);
  }
  else if(!strcmp(e->kind, "roll")) {
    int faces[8], n = 0;
    const char *p = strstr(e->text, "faces");
    if(!p || !ops->roll) {
      rc = REF_EINVAL;
    }
    else {
      char *end;
      p += 5;
      for(;;) {
        long v = strtol(p, &end, 10);
        if(end == p || n == 8)
          break;
        faces[n++] = (int)v;
        p = end;
      }
      rc = ops->roll(g->state, faces, n, &err);
    }
  }
  /* create, accept, decline, offer, end, takeback, undo, conditional:
   * bookkeeping, no rules effect here; an undo's effect is that the move
   * it names is not replayed at all (ref_journal_undone) */
  if(rc != REF_OK) {
    snprintf(why, cap, "journal entry %lld (%s '%s') does not replay: %s",
             (long long)e->seq, e->kind, e->text, err.reason);
    return -1;
  }
  return 0;
}

/* ---- takebacks: the one replay rule ----
 *
 * History is never rewritten: a takeback agreed is journaled as new
 * entries (`takeback` "ask SEQ LABEL", `takeback` "accept SEQ" or
 * "decline SEQ", then `undo` "move SEQ LABEL"), and the undo's effect on
 * replay is that the move entry SEQ is skipped, as if never played. That
 * is exact because a move may be taken back only while nothing with a
 * rules effect (a move, a roll, an action) follows it, so the entries
 * between it and the undo are bookkeeping and replay the same without it.
 * Every replay (loading, `tabula check`, records and exports, results)
 * asks this one function which entries an undo cancels. */
static int has_rules_effect(const struct store_entry *e)
{
  return !strcmp(e->kind, "start") || !strcmp(e->kind, "move") || !strcmp(e->kind, "action") ||
         !strcmp(e->kind, "roll");
}

int ref_undo_target(const struct store_entry *e, int64_t *seq)
{
  long long v;
  int used = 0;
  if(strcmp(e->kind, "undo") || sscanf(e->text, "move %lld%n", &v, &used) != 1 || v < 1)
    return -1;
  *seq = (int64_t)v;
  return 0;
}

int ref_journal_undone(const struct store_entry *e, size_t n, unsigned char *undone, char *why,
                       size_t cap)
{
  size_t i, j;
  memset(undone, 0, n);
  for(i = 0; i < n; i++) {
    int64_t target;
    if(strcmp(e[i].kind, "undo"))
      continue;
    if(ref_undo_target(&e[i], &target)) {
      snprintf(why, cap, "journal entry %lld (undo '%s') names no move", (long long)e[i].seq,
               e[i].text);
      return -1;
    }
    if(!n || target < e[0].seq)
      return 1; /* before this part of the journal: replay it whole */
    /* the latest entry with a rules effect not already undone must be
     * the move named */
    for(j = i; j-- > 0;)
      if(!undone[j] && has_rules_effect(&e[j]))
        break;
    if(j == (size_t)-1 || e[j].seq != target || strcmp(e[j].kind, "move")) {
      snprintf(why, cap,
               "journal entry %lld (undo '%s') does not replay: that is not the last move",
               (long long)e[i].seq, e[i].text);
      return -1;
    }
    undone[j] = 1;
  }
  return 0;
}

/* ---- snapshots ----
 *
 * A game's stored snapshot is the rules' state as of one journal entry
 * (its seq and hash), with what the service keeps beside the state: the
 * move count, the last move's label, whether the game started. Loading
 * starts from it when that entry is still in the journal with the same
 * hash, and replays only what was journaled after it (usually nothing),
 * so a mail costs the same at the 1,000th move as at the 10th. The
 * journal stays the truth: `tabula check` replays every game in full and
 * compares (ref_game_snapshot_check), and a snapshot that does not fit
 * its journal, its game or this build is not used. States are plain data
 * (rules.h), so the bytes are the state, except where a game says its state
 * holds a pointer (REF_GAME_LOCAL_STATE: no snapshot, the journal replays); runs of zeros are packed (a
 * chess state is 1.5 KB, mostly an empty repetition history). A SHA-256
 * over the game's kind and all of it catches a snapshot edited alone.
 *
 * Layout, integers little-endian: "TSN1", u32 state size, u32 rules
 * version, u32 flags (1 started), u64 seq, u64 moves, 32 bytes entry hash,
 * u16 label length + label, u32 packed length + packed state (repeated:
 * u16 literal length, literal bytes, u16 zero count), 32 bytes SHA-256. */

#define SNAP_MAGIC "TSN1"

/* A snapshot past this is not written (the journal replays): a state is
 * a few KB, packed. */
#define SNAP_MAX (16u * 1024u * 1024u)

BASE_CHECK static int snap_uint(struct base_buf *o, uint64_t v, int bytes)
{
  unsigned char b[8];
  int i;
  for(i = 0; i < bytes; i++)
    b[i] = (unsigned char)(v >> (8 * i));
  return base_buf_add(o, b, (size_t)bytes);
}

struct snap_in {
  const unsigned char *p;
  size_t len, at;
  bool err;
};

static uint64_t snap_get_uint(struct snap_in *in, int bytes)
{
  uint64_t v = 0;
  int i;
  if(in->err || in->len - in->at < (size_t)bytes) {
    in->err = true;
    return 0;
  }
  for(i = 0; i < bytes; i++)
    v |= (uint64_t)in->p[in->at + (size_t)i] << (8 * i);
  in->at += (size_t)bytes;
  return v;
}

static const unsigned char *snap_get(struct snap_in *in, size_t n)
{
  const unsigned char *p = in->p + in->at;
  if(in->err || in->len - in->at < n) {
    in->err = true;
    return NULL;
  }
  in->at += n;
  return p;
}

static void snap_digest(uint8_t out[32], const char *kind, const unsigned char *p, size_t n)
{
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  sha256_update(&ctx, strlen(kind) + 1, (const uint8_t *)kind);
  sha256_update(&ctx, n, p);
  sha256_digest(&ctx, SHA256_DIGEST_SIZE, out);
}

static int hex_nibble(char c)
{
  return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static int unhex32(uint8_t out[32], const char *hex)
{
  int i;
  for(i = 0; i < 32; i++) {
    int a = hex_nibble(hex[2 * i]), b = a < 0 ? -1 : hex_nibble(hex[2 * i + 1]);
    if(b < 0)
      return -1;
    out[i] = (uint8_t)(a << 4 | b);
  }
  return hex[64] ? -1 : 0;
}

/* The snapshot of g as it stands (state, head, count, label); NULL when
 * memory runs out or the head is not a hash. */
static unsigned char *snap_make(const struct ref_game_ctx *g, size_t *len)
{
  const unsigned char *st = (const unsigned char *)g->state;
  size_t size = g->desc->state_size, i = 0, label = strlen(g->last_move), packed_at;
  struct base_buf o;
  uint8_t hash[32], d[32];

  if(unhex32(hash, g->head_hash))
    return NULL;
  base_buf_init(&o, SNAP_MAX);
  if(base_buf_add(&o, SNAP_MAGIC, 4) || snap_uint(&o, size, 4) ||
     snap_uint(&o, (uint64_t)g->desc->version, 4) || snap_uint(&o, g->started ? 1 : 0, 4) ||
     snap_uint(&o, (uint64_t)g->head_seq, 8) || snap_uint(&o, (uint64_t)g->moves, 8) ||
     base_buf_add(&o, hash, 32) || snap_uint(&o, label, 2) ||
     base_buf_add(&o, g->last_move, label))
    goto fail;
  packed_at = o.len;
  if(snap_uint(&o, 0, 4)) /* the packed length, set below */
    goto fail;
  while(i < size) {
    size_t lit = 0, zero = 0;
    /* literal bytes up to a run of at least four zeros */
    while(i + lit < size && lit < 65535) {
      size_t z = 0;
      while(i + lit + z < size && z < 4 && !st[i + lit + z])
        z++;
      if(z == 4 || i + lit + z == size)
        break;
      lit += z + 1;
    }
    if(lit > 65535)
      lit = 65535;
    if(snap_uint(&o, lit, 2) || base_buf_add(&o, st + i, lit))
      goto fail;
    i += lit;
    while(i + zero < size && zero < 65535 && !st[i + zero])
      zero++;
    if(snap_uint(&o, zero, 2))
      goto fail;
    i += zero;
  }
  {
    size_t n = o.len - packed_at - 4;
    for(i = 0; i < 4; i++)
      o.s[packed_at + i] = (char)(unsigned char)(n >> (8 * i));
  }
  snap_digest(d, g->desc->name, (const unsigned char *)o.s, o.len);
  if(base_buf_add(&o, d, 32))
    goto fail;
  *len = o.len;
  return (unsigned char *)base_buf_take(&o); /* not NULL: no append failed */
fail:
  base_buf_free(&o);
  return NULL;
}

/* Reads a snapshot into g (state, started, moves, last_move) and its
 * entry's seq and hash; -1 when it is damaged (not a snapshot, its digest
 * does not match, its parts do not add up), -2 when it is whole but not
 * one this build can use for g's game (another state size or rules
 * version: a snapshot of an older build after an upgrade, nothing wrong). */
static int snap_read(struct ref_game_ctx *g, const unsigned char *p, size_t len, int64_t *seq,
                     char hash[65])
{
  struct snap_in in = {p, len, 0, false};
  unsigned char *st = (unsigned char *)g->state;
  size_t size = g->desc->state_size, at = 0, label;
  const unsigned char *h, *lp;
  uint8_t d[32];
  uint64_t flags, packed;
  static const char digits[] = "0123456789abcdef";
  int i;

  if(len < 4 + 32 || memcmp(p, SNAP_MAGIC, 4))
    return -1;
  snap_digest(d, g->desc->name, p, len - 32);
  if(memcmp(d, p + len - 32, 32))
    return -1;
  in.len = len - 32;
  in.at = 4;
  if(snap_get_uint(&in, 4) != size || snap_get_uint(&in, 4) != (uint64_t)g->desc->version)
    return in.err ? -1 : -2;
  flags = snap_get_uint(&in, 4);
  *seq = (int64_t)snap_get_uint(&in, 8);
  g->moves = (int64_t)snap_get_uint(&in, 8);
  h = snap_get(&in, 32);
  label = (size_t)snap_get_uint(&in, 2);
  lp = snap_get(&in, label);
  packed = snap_get_uint(&in, 4);
  if(in.err || label >= sizeof(g->last_move) || packed != in.len - in.at || *seq < 1)
    return -1;
  memcpy(g->last_move, lp, label);
  g->last_move[label] = '\0';
  for(i = 0; i < 32; i++) {
    hash[2 * i] = digits[h[i] >> 4];
    hash[2 * i + 1] = digits[h[i] & 15];
  }
  hash[64] = '\0';
  while(in.at < in.len) {
    size_t lit = (size_t)snap_get_uint(&in, 2), zero;
    const unsigned char *src = snap_get(&in, lit);
    if(in.err || lit > size - at)
      return -1;
    memcpy(st + at, src, lit);
    at += lit;
    zero = (size_t)snap_get_uint(&in, 2);
    if(in.err || zero > size - at)
      return -1;
    memset(st + at, 0, zero);
    at += zero;
  }
  if(at != size)
    return -1;
  g->started = (flags & 1) != 0;
  return 0;
}

/* Replays entries[0..n) into g, counting moves; the head follows. Moves
 * an undo cancels are skipped. 1 when an undo names a move
 * before entries[0] (a part of the journal cannot say the state before
 * that move: the caller replays the whole journal). */
static int replay(struct ref_game_ctx *g, const struct store_entry *e, size_t n, char *why,
                  size_t cap)
{
  unsigned char *undone = malloc(n ? n : 1);
  size_t i;
  int rc;
  if(!undone) {
    snprintf(why, cap, "out of memory");
    return -1;
  }
  if((rc = ref_journal_undone(e, n, undone, why, cap))) {
    free(undone);
    return rc;
  }
  for(i = 0; i < n; i++) {
    if(!undone[i]) {
      if(ref_game_replay_entry(g, &e[i], why, cap)) {
        free(undone);
        return -1;
      }
      if(!strcmp(e[i].kind, "move"))
        g->moves++;
    }
    g->head_seq = e[i].seq;
    memcpy(g->head_hash, e[i].hash, sizeof(g->head_hash));
  }
  free(undone);
  return 0;
}

/* The row, kind and seats of game id into a zeroed g, with a zeroed state. */
static int load_row(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                    size_t cap)
{
  int rc;
  memset(g, 0, sizeof(*g));
  if((rc = store_game_load(svc->st, &g->row, id)) != STORE_OK) {
    /* A damaged store is not "no game" */
    if(rc == STORE_ENOTFOUND)
      snprintf(why, cap, "no game %lld", (long long)id);
    else
      snprintf(why, cap, "game %lld cannot be read: %s", (long long)id, store_errmsg(svc->st));
    return -1;
  }
  g->desc = ref_game_find(g->row.kind);
  if(!g->desc) {
    snprintf(why, cap, "game %lld is of unknown kind '%s'", (long long)id, g->row.kind);
    return -1;
  }
  if(store_seat_list(svc->st, &g->seats, &g->nseats, id) != STORE_OK) {
    snprintf(why, cap, "game %lld cannot be read: %s", (long long)id, store_errmsg(svc->st));
    return -1;
  }
  g->state = ref_state_new(g->desc);
  if(!g->state) {
    snprintf(why, cap, "game %lld: out of memory", (long long)id);
    return -1;
  }
  return 0;
}

/* The whole journal replayed into g (after load_row). */
static int load_full(struct ref_service *svc, struct ref_game_ctx *g, char *why, size_t cap)
{
  struct store_entry *entries = NULL;
  size_t n = 0;
  int rc = -1;

  memset(g->state, 0, g->desc->state_size);
  g->started = 0;
  g->moves = 0;
  g->head_seq = 0;
  g->head_hash[0] = g->last_move[0] = '\0';
  if(store_journal_load(svc->st, &entries, &n, g->row.id) != STORE_OK)
    snprintf(why, cap, "game %lld cannot be read: %s", (long long)g->row.id,
             store_errmsg(svc->st));
  else if(!(rc = replay(g, entries, n, why, cap)))
    ;
  else if(rc == 1) {
    snprintf(why, cap, "game %lld: an undo names a move before the journal's start",
             (long long)g->row.id);
    rc = -1;
  }
  free(entries);
  return rc;
}

/* From the snapshot, when it fits the journal: 1 when used, 0 when there
 * is none to use (g untouched), -1 on a store failure. */
static int load_snapshot(struct ref_service *svc, struct ref_game_ctx *g, char *why, size_t cap)
{
  struct store_entry *entries = NULL;
  void *blob = NULL;
  size_t len = 0, n = 0;
  int64_t seq = 0;
  char hash[65];
  int rc = 0;

  if(g->desc->flags & REF_GAME_LOCAL_STATE)
    return 0; /* its bytes hold a pointer of the process that saved it */
  if(store_game_snapshot(svc->st, &blob, &len, g->row.id) != STORE_OK) {
    snprintf(why, cap, "game %lld cannot be read: %s", (long long)g->row.id,
             store_errmsg(svc->st));
    return -1;
  }
  if(!blob)
    return 0;
  if((rc = snap_read(g, blob, len, &seq, hash))) {
    /* damaged: `tabula check` reports it too (ref_game_snapshot_check) */
    ref_log_warn("game %lld: its snapshot is %s: replayed", (long long)g->row.id,
                 rc == -2 ? "another build's" : "damaged");
    rc = 0;
    goto out;
  }
  if(store_journal_load_from(svc->st, &entries, &n, g->row.id, seq) != STORE_OK) {
    snprintf(why, cap, "game %lld cannot be read: %s", (long long)g->row.id,
             store_errmsg(svc->st));
    rc = -1;
    goto out;
  }
  /* the snapshot's own entry, unchanged: else the journal is the truth */
  if(!n || entries[0].seq != seq || strcmp(entries[0].hash, hash)) {
    ref_log_warn("game %lld: its snapshot does not match journal entry %lld: replayed",
                 (long long)g->row.id, (long long)seq);
    goto out;
  }
  g->head_seq = seq;
  memcpy(g->head_hash, hash, sizeof(g->head_hash));
  rc = replay(g, entries + 1, n - 1, why, cap);
  if(rc == 1) {
    /* An undo of a move the snapshot already holds needs the
     * state before that move, which only the whole journal gives */
    rc = 0;
    goto out;
  }
  if(rc) {
    rc = -1;
    goto out;
  }
  rc = 1;
out:
  free(entries);
  free(blob);
  return rc;
}

#ifndef NDEBUG
/* Debug builds (the test suite) check every load from a snapshot against
 * a full replay: a path that saves a state its journal does not replay
 * to shows up at once. */
static void snapshot_self_check(struct ref_service *svc, const struct ref_game_ctx *g)
{
  struct ref_game_ctx full;
  char why[256];

  if(load_row(svc, &full, g->row.id, why, sizeof(why)) || load_full(svc, &full, why, sizeof(why)))
    abort();
  if(full.started != g->started || full.moves != g->moves || full.head_seq != g->head_seq ||
     strcmp(full.head_hash, g->head_hash) || strcmp(full.last_move, g->last_move) ||
     memcmp(full.state, g->state, g->desc->state_size)) {
    ref_log_error("game %lld: the snapshot's state is not what the journal replays to",
                  (long long)g->row.id);
    abort();
  }
  ref_game_free(&full);
}
#endif

int ref_game_load(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                  size_t cap)
{
  int rc;

  if(load_row(svc, g, id, why, cap))
    goto fail;
  rc = load_snapshot(svc, g, why, cap);
  if(rc < 0 || (rc == 0 && load_full(svc, g, why, cap)))
    goto fail;
#ifndef NDEBUG
  if(rc == 1)
    snapshot_self_check(svc, g);
#endif
  g->journal_len = (size_t)g->head_seq;
  return 0;
fail:
  ref_game_free(g);
  return -1;
}

int ref_game_load_full(struct ref_service *svc, struct ref_game_ctx *g, int64_t id, char *why,
                       size_t cap)
{
  if(load_row(svc, g, id, why, cap) || load_full(svc, g, why, cap)) {
    ref_game_free(g);
    return -1;
  }
  g->journal_len = (size_t)g->head_seq;
  return 0;
}

int ref_game_replay_all(struct ref_service *svc, struct ref_game_ctx *g, char *why, size_t cap)
{
  if(load_full(svc, g, why, cap))
    return -1;
  g->journal_len = (size_t)g->head_seq;
  return 0;
}

int ref_game_snapshot_check(struct ref_service *svc, const struct ref_game_ctx *g, char *why,
                            size_t cap)
{
  struct ref_game_ctx snap;
  struct store_entry *entries = NULL;
  void *blob = NULL;
  size_t len = 0, n = 0;
  int64_t seq = 0;
  char hash[65];
  int rc = 0;

  if(g->desc->flags & REF_GAME_LOCAL_STATE)
    return 0; /* never loaded (load_snapshot) */
  if(store_game_snapshot(svc->st, &blob, &len, g->row.id) != STORE_OK) {
    snprintf(why, cap, "its snapshot cannot be read: %s", store_errmsg(svc->st));
    return 1;
  }
  if(!blob)
    return 0;
  memset(&snap, 0, sizeof(snap));
  snap.row = g->row;
  snap.desc = g->desc;
  snap.state = ref_state_new(g->desc);
  if(!snap.state) {
    snprintf(why, cap, "out of memory");
    rc = 1;
    goto out;
  }
  switch(snap_read(&snap, blob, len, &seq, hash)) {
  case 0: break;
  case -2: goto out; /* another build's (an upgrade): loads replay, nothing is wrong */
  default:
    /* Loads replay the journal, so no ruling is wrong, but bytes of the
     * store changed behind its back, which SQLite's own check cannot see
     * inside a blob: the file may be damaged elsewhere too. */
    snprintf(why, cap, "its snapshot is damaged (loads replay the journal; the next move "
                       "writes a new one): check the disk, and restore the store from a "
                       "backup if other lines show damage");
    rc = 1;
    goto out;
  }
  if(seq > g->head_seq) {
    snprintf(why, cap, "its snapshot is of journal entry %lld, past the journal's end (%lld)",
             (long long)seq, (long long)g->head_seq);
    rc = 1;
    goto out;
  }
  if(seq == g->head_seq) {
    if(strcmp(hash, g->head_hash) || snap.moves != g->moves || snap.started != g->started ||
       strcmp(snap.last_move, g->last_move) ||
       memcmp(snap.state, g->state, g->desc->state_size)) {
      snprintf(why, cap, "its snapshot (journal entry %lld) is not what the journal replays to",
               (long long)seq);
      rc = 1;
    }
    goto out;
  }
  /* an older snapshot: the entries after it replayed onto it must come to
   * the same state; one an undo after it reaches behind is never loaded
   * (load_snapshot replays the whole journal then), so nothing to check */
  if(store_journal_load_from(svc->st, &entries, &n, g->row.id, seq) != STORE_OK || !n ||
     strcmp(entries[0].hash, hash) || (rc = replay(&snap, entries + 1, n - 1, why, cap)) == -1 ||
     (rc == 0 && (snap.moves != g->moves || memcmp(snap.state, g->state, g->desc->state_size)))) {
    snprintf(why, cap, "its snapshot (journal entry %lld) is not what the journal replays to",
             (long long)seq);
    rc = 1;
  }
  else
    rc = 0;
out:
  free(entries);
  free(snap.state);
  free(blob);
  return rc;
}

/* "12. Nf3" / "12... Nf6" for numbered games; the bare move for dice games,
 * whose turns the dice already mark. Call before the move is applied. */
void ref_move_label(struct ref_game_ctx *g, const char *canon, char *buf, size_t cap)
{
  struct ref_status s;
  int n;
  g->desc->ops->status(g->state, &s);
  if(g->desc->flags & REF_GAME_DICE)
    n = snprintf(buf, cap, "%s", canon);
  else
    n = snprintf(buf, cap, "%d.%s %s", s.move_number, s.turn == 0 ? "" : "..", canon);
  /* Notation fits REF_NOTATION_MAX, so this never happens; if a game ever
   * writes longer, the mails show it cut, and the log says so. */
  if(n < 0 || (size_t)n >= cap)
    ref_log_error("move label cut short: %s", canon);
}

/* ---- journal and state ---- */

int ref_journal(struct ref_service *svc, struct ref_game_ctx *g, int seat, const char *kind,
                const char *text, const char *dice)
{
  struct store_entry e;
  int64_t seq = 0;
  memset(&e, 0, sizeof(e));
  e.game = g->row.id;
  e.time = ref_now(svc);
  e.seat = seat;
  snprintf(e.kind, sizeof(e.kind), "%s", kind);
  snprintf(e.text, sizeof(e.text), "%s", text);
  snprintf(e.dice, sizeof(e.dice), "%s", dice ? dice : "");
  if(store_journal_append_head(svc->st, &seq, g->head_hash, &e) != STORE_OK)
    return -1;
  /* the head the next snapshot is taken at, and the move count the clock
   * reads (clock.c) instead of counting the journal */
  g->head_seq = seq;
  g->journal_len = (size_t)seq;
  if(!strcmp(kind, "move"))
    g->moves++;
  return 0;
}

/* Writes the rules' view of the game back to its row, with the snapshot
 * a later load starts from. */
int ref_game_save(struct ref_service *svc, struct ref_game_ctx *g)
{
  struct ref_status s;
  if(g->started) {
    g->desc->ops->status(g->state, &s);
    if(g->desc->ops->encode(g->state, g->row.state, sizeof(g->row.state)) != REF_OK)
      return -1;
    g->row.turn = s.phase == REF_PHASE_OVER ? -1 : s.turn;
    if(s.phase == REF_PHASE_OVER && g->row.phase == STORE_GAME_ACTIVE) {
      g->row.phase = STORE_GAME_FINISHED;
      ref_result_text(g->row.result, sizeof(g->row.result), g->desc, &s);
    }
  }
  g->row.updated = ref_now(svc);
  /* (a state holding a pointer is not kept as bytes: REF_GAME_LOCAL_STATE) */
  if(g->started && g->head_seq > 0 && !(g->desc->flags & REF_GAME_LOCAL_STATE)) {
    size_t len = 0;
    unsigned char *snap = snap_make(g, &len);
    int rc = snap ? store_game_update_snapshot(svc->st, &g->row, snap, len) : -1;
    free(snap);
    if(snap)
      return rc == STORE_OK ? 0 : -1;
    /* out of memory: the row alone; loads replay from the older one */
  }
  return store_game_update(svc->st, &g->row) == STORE_OK ? 0 : -1;
}

/* The way an ending reads after "won by": the rules' key where it is a
 * word a player says, else words (a dropped double, rules-spec "Cube": "by
 * cube-dropped" is a key, not English). The key stays the rules' own
 * (positions and records name it). */
static const char *end_words(enum ref_end end)
{
  return end == REF_END_CUBE_DROPPED ? "a dropped double" : ref_end_name(end);
}

void ref_result_text(char *buf, size_t cap, const struct ref_game_desc *d,
                     const struct ref_status *s)
{
  if(s->winner < 0)
    snprintf(buf, cap, "draw by %s", end_words(s->end));
  else if(s->points > 1)
    snprintf(buf, cap, "%s won %d points by %s", d->seat_names[s->winner], s->points,
             end_words(s->end));
  else
    snprintf(buf, cap, "%s won by %s", d->seat_names[s->winner], end_words(s->end));
}

/* ---- actions in the journal: "resign 2", "draw agreed", "double" ---- */

static const char *const action_words[REF_ACT_LAST] = {
  "double", "take", "drop", "resign", "draw agreed", "draw claim", "beaver",
};

void ref_action_text(char *buf, size_t cap, enum ref_action a, int arg)
{
  if(a == REF_ACT_RESIGN)
    snprintf(buf, cap, "resign %d", arg);
  else
    snprintf(buf, cap, "%s", action_words[a]);
}

int ref_action_parse(const char *text, enum ref_action *a, int *arg)
{
  int i;
  for(i = 0; i < REF_ACT_LAST; i++) {
    size_t len = strlen(action_words[i]);
    if(!strncmp(text, action_words[i], len) && (text[len] == '\0' || text[len] == ' ')) {
      *a = (enum ref_action)i;
      *arg = text[len] ? atoi(text + len + 1) : 0;
      return 0;
    }
  }
  return -1;
}

/* The seat `address` holds in g, or -1. */
int ref_seat_of(const struct ref_game_ctx *g, const char *address)
{
  size_t i;
  for(i = 0; i < g->nseats; i++)
    if(!strcasecmp(g->seats[i].address, address))
      return (int)i;
  return -1;
}
