/*
 * test_history_note.c: the referee's key and checkpoints
 * (referee/kit/history.c) against docs/history-protocol.md's test vectors,
 * read from that document itself: the key made from the seed 00 01 .. 1f,
 * its key ID and verifier key, and the checkpoint of game 7 over RFC 6962's
 * eight leaves, byte for byte (Ed25519 is deterministic); a name a
 * its name from the address ("DOMAIN/LOCAL", a '+' written '-'), and an
 * address that cannot name a key refused.
 */
#include "checkpoint.h"
#include "store.h"
#include "unit_run.h"

#include <check.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *doc(void)
{
  FILE *f = fopen(TABULA_SOURCE_DIR "/docs/history-protocol.md", "rb");
  char *s;
  long n;
  ck_assert_ptr_nonnull(f);
  fseek(f, 0, SEEK_END);
  n = ftell(f);
  rewind(f);
  s = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(s);
  ck_assert_int_eq(fread(s, 1, (size_t)n, f), n);
  s[n] = '\0';
  fclose(f);
  return s;
}

/* The text after `marker` up to the next "```" (the fenced checkpoint). */
static char *fenced_after(const char *text, const char *marker)
{
  const char *at = strstr(text, marker), *open, *close;
  ck_assert_ptr_nonnull(at);
  open = strstr(at, "```\n");
  ck_assert_ptr_nonnull(open);
  open += 4;
  close = strstr(open, "```");
  ck_assert_ptr_nonnull(close);
  return strndup(open, (size_t)(close - open));
}

static void rfc_root(uint8_t root[32])
{
  static const char *hex[8] = {"",         "00",       "10",
                               "2021",     "3031",     "40414243",
                               "5051525354555657", "606162636465666768696a6b6c6d6e6f"};
  uint8_t leaves[8][32];
  for(int i = 0; i < 8; i++) {
    uint8_t data[17] = {0};
    size_t n = strlen(hex[i]) / 2;
    struct sha256_ctx c;
    for(size_t j = 0; j < n; j++) {
      unsigned v;
      ck_assert(sscanf(hex[i] + 2 * j, "%2x", &v) == 1);
      data[j + 1] = (uint8_t)v;
    }
    sha256_init(&c);
    sha256_update(&c, n + 1, data); /* 0x00 || leaf data */
    sha256_digest(&c, 32, leaves[i]);
  }
  store_tlog_root(root, (const uint8_t(*)[32])leaves, 8);
}

START_TEST(test_vectors)
{
  struct ref_history_key k;
  struct base_buf out;
  uint8_t seed[32], root[32];
  char *text = doc(), *want = fenced_after(text, "the checkpoint of game 7 over the eight");
  char line[200];

  for(int i = 0; i < 32; i++)
    seed[i] = (uint8_t)i;
  ck_assert_int_eq(ref_history_key_init(&k, seed, "referee@example.org"), 0);
  snprintf(line, sizeof(line), "key ID `%02x%02x%02x%02x`", k.id[0], k.id[1], k.id[2], k.id[3]);
  ck_assert_msg(strstr(text, line), "the document lacks %s", line);
  base_buf_init(&out, 4096);
  ck_assert_int_eq(ref_history_vkey(&out, &k), 0);
  snprintf(line, sizeof(line), "verifier key `%s`", out.s);
  ck_assert_msg(strstr(text, line), "the document lacks %s", line);
  base_buf_free(&out);

  rfc_root(root);
  base_buf_init(&out, 4096);
  ck_assert_int_eq(ref_history_checkpoint(&out, &k, 7, 8, root), 0);
  ck_assert_str_eq(out.s, want);
  base_buf_free(&out);
  free(want);
  free(text);
}
END_TEST

START_TEST(test_bad_names)
{
  struct ref_history_key k;
  uint8_t seed[32] = {0};
  ck_assert_int_eq(ref_history_key_init(&k, seed, ""), -1);
  ck_assert_int_eq(ref_history_key_init(&k, seed, "referee"), -1);
  ck_assert_int_eq(ref_history_key_init(&k, seed, "@example.org"), -1);
  ck_assert_int_eq(ref_history_key_init(&k, seed, "a b@example.org"), -1);
  ck_assert_int_eq(ref_history_key_init(&k, seed, "a+tag@example.org"), 0);
  ck_assert_str_eq(k.name, "example.org/a-tag");
  ck_assert_int_eq(ref_history_key_init(&k, seed, "referee@example.org"), 0);
  ck_assert_str_eq(k.name, "example.org/referee");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("history_note");
  TCase *tc = tcase_create("note");
  tcase_add_test(tc, test_vectors);
  tcase_add_test(tc, test_bad_names);
  suite_add_tcase(s, tc);
  return unit_run(s);
}
