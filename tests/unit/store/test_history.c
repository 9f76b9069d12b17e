/*
 * test_history.c: unit tests of store/tlog.c and store/history.c against
 * docs/history-protocol.md: the test vectors of its "Test vectors" (RFC
 * 6962's eight leaves: every root, the inclusion and consistency proofs,
 * a journal entry's leaf hash), every proof of every tree up to 33 leaves
 * made and verified, and refused when a hash, the index or a size is
 * changed; the size last mailed per game and address; the referee's key
 * made once, kept, readable only by the store's owner, and rotated with the
 * old one kept.
 */
#include "store.h"
#include "store_fixture.h"
#include "unit_run.h"

#include <check.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef uint8_t hash_t[STORE_TLOG_HASH];

static void unhex(uint8_t *out, const char *hex)
{
  for(size_t i = 0; hex[2 * i]; i++) {
    unsigned v;
    ck_assert(sscanf(hex + 2 * i, "%2x", &v) == 1);
    out[i] = (uint8_t)v;
  }
}

static void leaf_of(hash_t out, const uint8_t *data, size_t n)
{
  static const uint8_t zero = 0;
  struct sha256_ctx c;
  sha256_init(&c);
  sha256_update(&c, 1, &zero);
  sha256_update(&c, n, data);
  sha256_digest(&c, STORE_TLOG_HASH, out);
}

/* RFC 6962's test leaves (docs/history-protocol.md, "Test vectors") */
static void rfc_leaves(hash_t leaves[8])
{
  static const char *hex[8] = {"",         "00",       "10",
                               "2021",     "3031",     "40414243",
                               "5051525354555657", "606162636465666768696a6b6c6d6e6f"};
  for(int i = 0; i < 8; i++) {
    uint8_t data[16];
    unhex(data, hex[i]);
    leaf_of(leaves[i], data, strlen(hex[i]) / 2);
  }
}

static void assert_hash(const hash_t h, const char *hex)
{
  hash_t want;
  unhex(want, hex);
  ck_assert_msg(!memcmp(h, want, STORE_TLOG_HASH), "hash is not %s", hex);
}

START_TEST(test_vectors)
{
  static const char *roots[9] = {
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
  };
  hash_t leaves[8], root, proof[STORE_TLOG_MAX_PROOF];
  size_t np;
  struct store_entry e;

  rfc_leaves(leaves);
  for(size_t n = 0; n <= 8; n++) {
    store_tlog_root(root, (const hash_t *)leaves, n);
    assert_hash(root, roots[n]);
  }
  ck_assert_int_eq(store_tlog_inclusion(proof, &np, (const hash_t *)leaves, 8, 0), 0);
  ck_assert_uint_eq(np, 3);
  assert_hash(proof[0], "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7");
  assert_hash(proof[1], "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e");
  assert_hash(proof[2], "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4");
  ck_assert_int_eq(store_tlog_inclusion(proof, &np, (const hash_t *)leaves, 8, 5), 0);
  ck_assert_uint_eq(np, 3);
  assert_hash(proof[0], "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b");
  assert_hash(proof[1], "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0");
  assert_hash(proof[2], "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7");
  ck_assert_int_eq(store_tlog_inclusion(proof, &np, (const hash_t *)leaves, 3, 2), 0);
  ck_assert_uint_eq(np, 1);
  assert_hash(proof[0], "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125");
  ck_assert_int_eq(store_tlog_consistency(proof, &np, (const hash_t *)leaves, 7, 3), 0);
  ck_assert_uint_eq(np, 4);
  assert_hash(proof[0], "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7");
  assert_hash(proof[1], "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7");
  assert_hash(proof[2], "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125");
  assert_hash(proof[3], "837dbb152e9b079010717e84e865da4ebc0fa198a806d59d31bf15accef22d0e");
  ck_assert_int_eq(store_tlog_consistency(proof, &np, (const hash_t *)leaves, 7, 4), 0);
  ck_assert_uint_eq(np, 1);
  assert_hash(proof[0], "837dbb152e9b079010717e84e865da4ebc0fa198a806d59d31bf15accef22d0e");
  ck_assert_int_eq(store_tlog_consistency(proof, &np, (const hash_t *)leaves, 8, 6), 0);
  ck_assert_uint_eq(np, 3);
  assert_hash(proof[0], "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a");
  assert_hash(proof[1], "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0");
  assert_hash(proof[2], "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7");

  memset(&e, 0, sizeof(e));
  e.game = 7;
  e.seq = 1;
  e.time = 1795862713;
  e.seat = 0;
  snprintf(e.kind, sizeof(e.kind), "create");
  snprintf(e.text, sizeof(e.text), "new chess by alice@example.org");
  store_tlog_leaf_hash(root, &e, NULL);
  assert_hash(root, "b39e1f874bf9dfada3b459b451922b377e42a040ca53a4f1abb63c404e161ee3");
}
END_TEST

/* Every proof of every tree up to 33 leaves holds, and fails once
 * anything in it is changed. */
START_TEST(test_all_proofs)
{
  enum { N = 33 };
  hash_t leaves[N], roots[N + 1], proof[STORE_TLOG_MAX_PROOF];
  size_t np;

  for(int i = 0; i < N; i++) {
    uint8_t b = (uint8_t)i;
    leaf_of(leaves[i], &b, 1);
  }
  for(size_t n = 0; n <= N; n++)
    store_tlog_root(roots[n], (const hash_t *)leaves, n);
  for(size_t n = 1; n <= N; n++) {
    for(size_t i = 0; i < n; i++) {
      ck_assert_int_eq(store_tlog_inclusion(proof, &np, (const hash_t *)leaves, n, i), 0);
      ck_assert_int_eq(
        store_tlog_verify_inclusion(leaves[i], i, n, (const hash_t *)proof, np, roots[n]), 0);
      ck_assert_int_ne(store_tlog_verify_inclusion(leaves[(i + 1) % N], i, n,
                                                   (const hash_t *)proof, np, roots[n]),
                       0);
      if(n > 1)
        ck_assert_int_ne(store_tlog_verify_inclusion(leaves[i], (i + 1) % n, n,
                                                     (const hash_t *)proof, np, roots[n]),
                         0);
      if(np) {
        proof[np - 1][0] ^= 1;
        ck_assert_int_ne(
          store_tlog_verify_inclusion(leaves[i], i, n, (const hash_t *)proof, np, roots[n]), 0);
      }
    }
    ck_assert_int_eq(store_tlog_inclusion(proof, &np, (const hash_t *)leaves, n, n), -1);
    for(size_t m = 1; m <= n; m++) {
      ck_assert_int_eq(store_tlog_consistency(proof, &np, (const hash_t *)leaves, n, m), 0);
      ck_assert_int_eq(
        store_tlog_verify_consistency(m, n, roots[m], roots[n], (const hash_t *)proof, np), 0);
      if(m < n) {
        /* another old tree, or a changed hash, fails */
        ck_assert_int_ne(store_tlog_verify_consistency(m, n, roots[m - 1], roots[n],
                                                       (const hash_t *)proof, np),
                         0);
        proof[0][5] ^= 0x40;
        ck_assert_int_ne(
          store_tlog_verify_consistency(m, n, roots[m], roots[n], (const hash_t *)proof, np), 0);
      }
    }
  }
  ck_assert_int_eq(store_tlog_consistency(proof, &np, (const hash_t *)leaves, 3, 4), -1);
}
END_TEST

START_TEST(test_sent)
{
  int64_t game = scratch_game("chess"), size = -1;

  ck_assert_int_eq(store_history_sent_get(scratch_mem, &size, game, "alice@example.org"),
                   STORE_OK);
  ck_assert_int_eq(size, 0);
  ck_assert_int_eq(store_history_sent_put(scratch_mem, game, "alice@example.org", 5), STORE_OK);
  ck_assert_int_eq(store_history_sent_put(scratch_mem, game, "bob@example.org", 3), STORE_OK);
  ck_assert_int_eq(store_history_sent_put(scratch_mem, game, "alice@example.org", 9), STORE_OK);
  ck_assert_int_eq(store_history_sent_get(scratch_mem, &size, game, "alice@example.org"),
                   STORE_OK);
  ck_assert_int_eq(size, 9);
  ck_assert_int_eq(store_history_sent_get(scratch_mem, &size, game, "bob@example.org"),
                   STORE_OK);
  ck_assert_int_eq(size, 3);
}
END_TEST

/* In the database (PostgreSQL, in-memory): made once, then the same. */
START_TEST(test_key_in_database)
{
  uint8_t a[32], b[32], c[32];
  bool created;

  ck_assert_int_eq(store_referee_key(scratch_mem, a, false, &created), STORE_ENOTFOUND);
  ck_assert_int_eq(store_referee_key(scratch_mem, a, true, &created), STORE_OK);
  ck_assert(created);
  ck_assert_int_eq(store_referee_key(scratch_mem, b, true, &created), STORE_OK);
  ck_assert(!created);
  ck_assert(!memcmp(a, b, 32));
  ck_assert_int_eq(store_referee_key_rotate(scratch_mem, c), STORE_OK);
  ck_assert(memcmp(a, c, 32));
  ck_assert_int_eq(store_referee_key(scratch_mem, b, false, NULL), STORE_OK);
  ck_assert(!memcmp(b, c, 32));
}
END_TEST

/* Beside a store file: STORE.key, the owner's bits of the file's mode. */
START_TEST(test_key_file)
{
  struct store *st;
  uint8_t a[32], b[32];
  char path[700];
  struct stat sb;
  bool created;

  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_referee_key(st, a, true, &created), STORE_OK);
  ck_assert(created);
  snprintf(path, sizeof(path), "%s.key", scratch_db);
  ck_assert_int_eq(stat(path, &sb), 0);
  ck_assert_int_eq(sb.st_mode & 077, 0);
  store_close(st);
  st = scratch_open(scratch_db);
  ck_assert_int_eq(store_referee_key(st, b, true, &created), STORE_OK);
  ck_assert(!created);
  ck_assert(!memcmp(a, b, 32));
  ck_assert_int_eq(store_referee_key_rotate(st, b), STORE_OK);
  ck_assert(memcmp(a, b, 32));
  snprintf(path, sizeof(path), "%s.key.1", scratch_db);
  ck_assert_int_eq(stat(path, &sb), 0);
  store_close(st);
  remove(path);
  snprintf(path, sizeof(path), "%s.key", scratch_db);
  remove(path);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("history");
  TCase *pure = tcase_create("tree"), *mem = tcase_create("store"), *dir = tcase_create("file");

  tcase_add_test(pure, test_vectors);
  tcase_add_test(pure, test_all_proofs);
  suite_add_tcase(s, pure);
  tcase_add_checked_fixture(mem, scratch_memory_setup, scratch_memory_teardown);
  tcase_add_test(mem, test_sent);
  tcase_add_test(mem, test_key_in_database);
  suite_add_tcase(s, mem);
  tcase_add_checked_fixture(dir, scratch_dir_setup, scratch_dir_teardown);
  scratch_add_sqlite_test(dir, test_key_file);
  suite_add_tcase(s, dir);
  return unit_run(s);
}
