/*
 * journal.c: the per-game journal of tabula_store, a hash chain.
 * Contract in store.h; the table is created in schema_sqlite.c / schema_pg.c.
 *
 * Hash format "tabula-journal-1" (bump the tag if any of this changes, and
 * keep verifying old entries with the old rule):
 *
 *   hash = lower-case hex SHA-256 (FIPS 180-4) of the bytes
 *
 *     "tabula-journal-1\n" prev_hash "\n" game "\n" seq "\n" time "\n"
 *     seat "\n" kind "\n" text "\n" dice "\n"
 *
 *   where game, seq, time and seat are in plain decimal (a leading '-' for
 *   negatives such as seat -1, no '+', no leading zeros), the strings are
 *   their bytes as stored, and every field, the last included, ends in one
 *   LF. prev_hash is the previous entry's hash, or 64 '0' for seq 1.
 *
 * Because kind, text and dice may not contain LF (store_journal_append
 * refuses them), the serialisation is unambiguous. An outside check is:
 *
 *   printf 'tabula-journal-1\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n%s\n' \
 *     "$prev" "$game" "$seq" "$time" "$seat" "$kind" "$text" "$dice" | sha256sum
 *
 * (tests/oracles/store_journal_vectors.sh does exactly that.)
 */
#include "store_int.h"

#include <inttypes.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOURNAL_TAG "tabula-journal-1\n"

static const char zero_hash[] =
  "0000000000000000000000000000000000000000000000000000000000000000";

struct journal_fields {
  const char *prev_hash;
  size_t prev_len;
  int64_t game, seq, time, seat;
  const char *kind, *text, *dice;
  size_t kind_len, text_len, dice_len;
};

static void hash_bytes(struct sha256_ctx *ctx, const char *s, size_t len)
{
  sha256_update(ctx, len, (const uint8_t *)s);
  sha256_update(ctx, 1, (const uint8_t *)"\n");
}

static void hash_int(struct sha256_ctx *ctx, int64_t v)
{
  char buf[24];
  int len = snprintf(buf, sizeof(buf), "%" PRId64, v);

  hash_bytes(ctx, buf, (size_t)len);
}

/* The chain rule in the header comment, streamed into SHA-256 so the length
 * of stored text never matters (verify hashes whatever the row holds). */
static void journal_hash(char hex[65], const struct journal_fields *f)
{
  static const char digits[] = "0123456789abcdef";
  uint8_t digest[SHA256_DIGEST_SIZE];
  struct sha256_ctx ctx;
  size_t i;

  sha256_init(&ctx);
  sha256_update(&ctx, sizeof(JOURNAL_TAG) - 1, (const uint8_t *)JOURNAL_TAG);
  hash_bytes(&ctx, f->prev_hash, f->prev_len);
  hash_int(&ctx, f->game);
  hash_int(&ctx, f->seq);
  hash_int(&ctx, f->time);
  hash_int(&ctx, f->seat);
  hash_bytes(&ctx, f->kind, f->kind_len);
  hash_bytes(&ctx, f->text, f->text_len);
  hash_bytes(&ctx, f->dice, f->dice_len);
  sha256_digest(&ctx, sizeof(digest), digest);
  for(i = 0; i < sizeof(digest); i++) {
    hex[2 * i] = digits[digest[i] >> 4];
    hex[2 * i + 1] = digits[digest[i] & 0xf];
  }
  hex[64] = '\0';
}

/* Length of a caller's fixed field, or STORE_EIO when it is unterminated or
 * holds a LF (which would make the serialisation ambiguous). */
static int field_len(struct store *st, size_t *len, const char *field, size_t size,
                     const char *name)
{
  *len = strnlen(field, size);
  if(*len == size)
    return store_fail(st, STORE_EIO, "%s is not NUL-terminated within %zu bytes", name, size);
  if(memchr(field, '\n', *len))
    return store_fail(st, STORE_EIO, "%s contains a line break", name);
  return STORE_OK;
}

/* The chain's head: its last entry's seq and hash. */
struct head {
  int64_t seq;
  char hash[65];
};

static int head_row(struct store *st, const struct store_row *src, void *row)
{
  struct head *h = row;
  h->seq = store_col_int64(src, 0);
  return store_copy_column(st, h->hash, sizeof(h->hash), src, 1, "journal.hash");
}

int store_journal_append(struct store *st, int64_t *out_seq, const struct store_entry *e)
{
  return store_journal_append_head(st, out_seq, NULL, e);
}

int store_journal_append_head(struct store *st, int64_t *out_seq, char *out_hash,
                              const struct store_entry *e)
{
  struct store_group group = {false, false, 0};
  struct journal_fields f;
  struct head h;
  bool found;
  char prev[65], hash[65];
  int64_t seq = 1;
  int rc;

  if(out_seq)
    *out_seq = 0;
  memset(&f, 0, sizeof(f));
  rc = field_len(st, &f.kind_len, e->kind, sizeof(e->kind), "journal.kind");
  if(rc == STORE_OK)
    rc = field_len(st, &f.text_len, e->text, sizeof(e->text), "journal.text");
  if(rc == STORE_OK)
    rc = field_len(st, &f.dice_len, e->dice, sizeof(e->dice), "journal.dice");
  if(rc)
    return rc;

  /* Reading the head and inserting after it must be one unit, or two
   * writers could both append the same seq. */
  rc = store_group_begin(st, &group);
  if(rc)
    goto out;
  rc = store_query_maybe(st, &found, &h, sizeof(h), head_row,
                         "SELECT seq, hash FROM journal WHERE game = $1 ORDER BY seq DESC LIMIT 1",
                         "journal_append: head", "i", e->game);
  if(rc)
    goto out;
  if(found) {
    seq = h.seq + 1;
    memcpy(prev, h.hash, sizeof(prev));
  }
  else
    memcpy(prev, zero_hash, sizeof(prev));

  f.prev_hash = prev;
  f.prev_len = strlen(prev);
  f.game = e->game;
  f.seq = seq;
  f.time = e->time;
  f.seat = e->seat;
  f.kind = e->kind;
  f.text = e->text;
  f.dice = e->dice;
  journal_hash(hash, &f);

  rc = store_run(st,
                 "INSERT INTO journal(game, seq, time, seat, kind, text, dice, prev_hash,"
                 " hash) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                 "journal_append", "iiiiffftt", e->game, seq, e->time, (int64_t)e->seat,
                 e->kind, sizeof(e->kind), "journal.kind", e->text, sizeof(e->text), "journal.text", e->dice, sizeof(e->dice), "journal.dice",
                 prev, hash);
out:
  rc = store_group_end(st, &group, rc);
  if(rc == STORE_OK && out_seq)
    *out_seq = seq;
  if(rc == STORE_OK && out_hash)
    memcpy(out_hash, hash, sizeof(hash));
  return rc;
}

static int entry_row(struct store *st, const struct store_row *src, void *row)
{
  struct store_entry *e = row;
  int rc;

  e->game = store_col_int64(src, 0);
  e->seq = store_col_int64(src, 1);
  e->time = store_col_int64(src, 2);
  e->seat = store_col_int(src, 3);
  rc = store_copy_column(st, e->kind, sizeof(e->kind), src, 4, "journal.kind");
  if(rc == STORE_OK)
    rc = store_copy_column(st, e->text, sizeof(e->text), src, 5, "journal.text");
  if(rc == STORE_OK)
    rc = store_copy_column(st, e->dice, sizeof(e->dice), src, 6, "journal.dice");
  if(rc == STORE_OK)
    rc = store_copy_column(st, e->prev_hash, sizeof(e->prev_hash), src, 7,
                           "journal.prev_hash");
  if(rc == STORE_OK)
    rc = store_copy_column(st, e->hash, sizeof(e->hash), src, 8, "journal.hash");
  return rc;
}

int store_journal_load(struct store *st, struct store_entry **entries, size_t *n, int64_t game)
{
  void *v;
  int rc = store_query(st, &v, n, sizeof(struct store_entry), entry_row,
                       "SELECT game, seq, time, seat, kind, text, dice, prev_hash, hash"
                       " FROM journal WHERE game = $1 ORDER BY seq",
                       "journal_load", "i", game);
  *entries = v;
  return rc;
}

int store_journal_load_from(struct store *st, struct store_entry **entries, size_t *n,
                            int64_t game, int64_t from)
{
  void *v = NULL;
  int rc = store_query(st, &v, n, sizeof(struct store_entry), entry_row,
                       "SELECT game, seq, time, seat, kind, text, dice, prev_hash, hash"
                       " FROM journal WHERE game = $1 AND seq >= $2 ORDER BY seq",
                       "journal_load_from", "ii", game, from);
  *entries = v;
  return rc;
}

/* Text column as (pointer, length); NULL columns (impossible under the
 * schema's NOT NULL) read as empty. */
static const char *column(const struct store_row *row, int col, size_t *len)
{
  const char *s = store_col_text(row, col, len);

  if(!s)
    *len = 0;
  return s ? s : "";
}

int store_journal_verify(struct store *st, int64_t *bad_seq, int64_t game)
{
  struct store_stmt *stmt = NULL;
  struct store_row row;
  struct journal_fields f;
  char expect_prev[65], hash[65];
  const char *stored;
  int64_t expect_seq = 1;
  size_t stored_len;
  int rc;

  *bad_seq = 0;
  memcpy(expect_prev, zero_hash, sizeof(expect_prev));
  /* Works on the raw columns, not struct store_entry, so a row altered to
   * something longer than the struct fields is still hashed, and reported
   * as a broken chain rather than as an I/O error. */
  rc = store_prepare_args(st, &stmt,
                          "SELECT seq, time, seat, kind, text, dice, prev_hash, hash"
                          " FROM journal WHERE game = $1 ORDER BY seq",
                          "journal_verify", "i", game);
  if(rc)
    goto out;
  for(;;) {
    rc = store_step(st, stmt, &row, "journal_verify");
    if(rc == STORE_OK)
      break;
    if(rc != STORE_ROW)
      goto out;
    memset(&f, 0, sizeof(f));
    f.game = game;
    f.seq = store_col_int64(&row, 0);
    f.time = store_col_int64(&row, 1);
    f.seat = store_col_int64(&row, 2);
    f.kind = column(&row, 3, &f.kind_len);
    f.text = column(&row, 4, &f.text_len);
    f.dice = column(&row, 5, &f.dice_len);
    f.prev_hash = column(&row, 6, &f.prev_len);
    if(f.seq != expect_seq) {
      *bad_seq = f.seq;
      rc = store_fail(st, STORE_ECORRUPT, "journal of game %lld: entry %lld follows %lld",
                      (long long)game, (long long)f.seq, (long long)(expect_seq - 1));
      goto out;
    }
    if(f.prev_len != 64 || memcmp(f.prev_hash, expect_prev, 64)) {
      *bad_seq = f.seq;
      rc = store_fail(st, STORE_ECORRUPT,
                      "journal of game %lld: entry %lld does not link to the one before",
                      (long long)game, (long long)f.seq);
      goto out;
    }
    journal_hash(hash, &f);
    stored = column(&row, 7, &stored_len);
    if(stored_len != 64 || memcmp(stored, hash, 64)) {
      *bad_seq = f.seq;
      rc = store_fail(st, STORE_ECORRUPT,
                      "journal of game %lld: entry %lld does not match its hash",
                      (long long)game, (long long)f.seq);
      goto out;
    }
    memcpy(expect_prev, hash, sizeof(expect_prev));
    expect_seq++;
  }
  rc = STORE_OK;
out:
  store_finish(st, stmt);
  return rc;
}
