/*
 * test_dice.c: tabula-dice-1 (referee/kit/dice.c) against the protocol's test
 * vectors (tests/data/dice/vectors.txt, copied from docs/dice-protocol.md and
 * rechecked here against that document), data from an independent Python
 * oracle (tests/oracles/dice_transcripts.py: faces.txt, 64 rolls; chain2.txt,
 * a two-chain transcript), and transcripts built and tampered with here.
 */
#include "dice.h"
#include "support/support.h"
#include "unit_run.h"

#include <check.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the vectors file ---- */

struct vectors {
  char secret[65];
  int n;
  char game[16];
  char entropy[4][64];
  int nentropy;
  char E[65];
  char x[9][65];   /* x_0 .. x_8 */
  int faces[9][2]; /* faces of roll i */
  struct {
    char game[16];
    int roll;
    int faces[64];
    int nfaces;
  } rows[4];
  int nrows;
};

static struct vectors vec;

/* Reads the ints of a space-separated list into out; returns how many. */
static int read_ints(const char *s, int *out, int cap)
{
  int n = 0;

  while(*s && n < cap) {
    char *end;
    long v = strtol(s, &end, 10);
    if(end == s)
      break;
    out[n++] = (int)v;
    s = end;
  }
  return n;
}

static void load_vectors(void)
{
  char *text = ts_read(TABULA_TEST_DATA "/dice/vectors.txt");
  char *line, *save = NULL;

  memset(&vec, 0, sizeof(vec));
  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char *rest = strchr(line, ' ');
    if(line[0] == '#' || !rest)
      continue;
    *rest++ = '\0';
    if(!strcmp(line, "secret"))
      snprintf(vec.secret, sizeof(vec.secret), "%s", rest);
    else if(!strcmp(line, "n"))
      vec.n = (int)strtol(rest, NULL, 10);
    else if(!strcmp(line, "game"))
      snprintf(vec.game, sizeof(vec.game), "%s", rest);
    else if(!strcmp(line, "entropy"))
      snprintf(vec.entropy[vec.nentropy++], sizeof(vec.entropy[0]), "%s", rest);
    else if(!strcmp(line, "E"))
      snprintf(vec.E, sizeof(vec.E), "%s", rest);
    else if(!strcmp(line, "x")) {
      char *end;
      long i = strtol(rest, &end, 10);
      ck_assert(i >= 0 && i <= 8);
      snprintf(vec.x[i], sizeof(vec.x[i]), "%.64s", end + 1);
      if(i)
        ck_assert_int_eq(read_ints(end + 1 + 64, vec.faces[i], 2), 2);
    } else if(!strcmp(line, "faces")) {
      int nums[66];
      int k, n = read_ints(rest, nums, 66);
      ck_assert_int_ge(n, 3);
      snprintf(vec.rows[vec.nrows].game, sizeof(vec.rows[0].game), "%d", nums[0]);
      vec.rows[vec.nrows].roll = nums[1];
      for(k = 2; k < n; k++)
        vec.rows[vec.nrows].faces[k - 2] = nums[k];
      vec.rows[vec.nrows].nfaces = n - 2;
      vec.nrows++;
    }
  }
  free(text);
  ck_assert_int_eq(vec.n, 8);
  ck_assert_int_eq(vec.nentropy, 2);
  ck_assert_int_eq(vec.nrows, 2);
}

static void unhex32(uint8_t out[32], const char *hex)
{
  ck_assert_int_eq(ref_dice_unhex(out, 32, hex), 0);
}

static void vec_chain(struct ref_dice_chain *c)
{
  uint8_t secret[32];

  unhex32(secret, vec.secret);
  ref_dice_chain_from_secret(c, secret, vec.n);
}

/* ---- growing text buffers for transcripts ---- */

struct text {
  char *s;
  size_t len, cap;
};

static void add(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct text *t, const char *fmt, ...)
{
  va_list ap;
  int n;

  va_start(ap, fmt);
  n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if(t->len + (size_t)n + 1 > t->cap) {
    t->cap = (t->len + (size_t)n + 1) * 2;
    t->s = realloc(t->s, t->cap);
    ck_assert_ptr_nonnull(t->s);
  }
  va_start(ap, fmt);
  vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  t->len += (size_t)n;
}

/* The 8-roll transcript of the vectors, each line wrapped in pre/post. */
static char *vec_transcript(const char *pre, const char *post)
{
  struct text t = {0};
  int i;

  add(&t, "%sDice commitment: tabula-dice-1 game %s chain 1 N %d commitment %s%s", pre, vec.game,
      vec.n, vec.x[0], post);
  for(i = 0; i < vec.nentropy; i++)
    add(&t, "%sDice entropy: game %s e%d %s%s", pre, vec.game, i + 1, vec.entropy[i], post);
  add(&t, "%sDice entropy: game %s E %s%s", pre, vec.game, vec.E, post);
  for(i = 1; i <= 8; i++)
    add(&t, "%sDice roll: game %s chain 1 roll %d key %s faces %d %d%s", pre, vec.game, i, vec.x[i],
        vec.faces[i][0], vec.faces[i][1], post);
  return t.s;
}

/* A copy of s with the first occurrence of old replaced (old must occur). */
static char *replaced(const char *s, const char *old, const char *new)
{
  const char *at = strstr(s, old);
  struct text t = {0};

  ck_assert_msg(at != NULL, "'%s' not in transcript", old);
  add(&t, "%.*s%s%s", (int)(at - s), s, new, at + strlen(old));
  return t.s;
}

static char *replaced_all(const char *s, const char *old, const char *new)
{
  struct text t = {0};
  const char *at = strstr(s, old);

  add(&t, "%s", "");
  while(at) {
    add(&t, "%.*s%s", (int)(at - s), s, new);
    s = at + strlen(old);
    at = strstr(s, old);
  }
  add(&t, "%s", s);
  return t.s;
}

/* Verifies text (game NULL = the only one) and checks rc, rolls and reason. */
static void expect(const char *text, const char *game, int want_rc, int want_rolls,
                   const char *want_why)
{
  char why[256];
  int nrolls = -1;
  int rc = ref_dice_verify_game(text, game, &nrolls, why, sizeof(why));

  ck_assert_msg(rc == want_rc, "rc %d, want %d (%s)", rc, want_rc, why);
  if(want_rc == 0) {
    ck_assert_int_eq(nrolls, want_rolls);
    ck_assert_str_eq(why, "");
  } else if(strchr(want_why, '*'))
    ck_assert_msg(!strncmp(why, want_why, (size_t)(strchr(want_why, '*') - want_why)),
                  "why '%s', want '%s'", why, want_why);
  else
    ck_assert_str_eq(why, want_why);
}

/* ---- vectors ---- */

START_TEST(test_dice_vectors_in_protocol_doc)
{
  /* The data file is a copy: every value must be the protocol's own. */
  char *doc = ts_read(TABULA_SOURCE_DIR "/docs/dice-protocol.md");
  int i;

  ck_assert_ptr_nonnull(strstr(doc, vec.E));
  for(i = 0; i <= 8; i++)
    ck_assert_msg(strstr(doc, vec.x[i]) != NULL, "x_%d not in the protocol", i);
  ck_assert_ptr_nonnull(strstr(doc, "2 1 5 3 5 1 6 5 3 2 5 3 4 4 2 4 4 2 4 5 6 6 3 1 3 1 3 2 4 1 "
                                    "3 5 3 2 2 3 6 2 2 3"));
  free(doc);
}
END_TEST

START_TEST(test_dice_chain_from_secret_commitment)
{
  struct ref_dice_chain c;
  char hex[65];

  vec_chain(&c);
  ref_dice_hex(hex, c.commitment, 32);
  ck_assert_str_eq(hex, vec.x[0]);
  ck_assert_int_eq(c.n, 8);
  ref_dice_hex(hex, c.secret, 32);
  ck_assert_str_eq(hex, vec.secret);
}
END_TEST

START_TEST(test_dice_key_vectors)
{
  struct ref_dice_chain c;
  uint8_t key[32], prev[32];
  char hex[65];
  int j;

  vec_chain(&c);
  for(j = 0; j <= 8; j++) {
    ref_dice_key(key, &c, j);
    ref_dice_hex(hex, key, 32);
    ck_assert_msg(!strcmp(hex, vec.x[j]), "x_%d = %s, want %s", j, hex, vec.x[j]);
    if(j) {
      ck_assert_int_eq(ref_dice_check_key(key, prev), 0);
      /* The link only goes one way: x_(j-1) does not hash to x_j. */
      ck_assert_int_eq(ref_dice_check_key(prev, key), -1);
    }
    memcpy(prev, key, 32);
  }
}
END_TEST

START_TEST(test_dice_entropy_vector)
{
  const char *e[2] = {vec.entropy[0], vec.entropy[1]};
  char hex[65];

  ref_dice_entropy(hex, e, 2);
  ck_assert_str_eq(hex, vec.E);
  /* Order matters (seat order): swapping the seats changes E. */
  e[0] = vec.entropy[1];
  e[1] = vec.entropy[0];
  ref_dice_entropy(hex, e, 2);
  ck_assert_str_ne(hex, vec.E);
}
END_TEST

START_TEST(test_dice_faces_vectors)
{
  uint8_t key[32];
  int faces[2];
  int i;

  for(i = 1; i <= 8; i++) {
    unhex32(key, vec.x[i]);
    ck_assert_int_eq(ref_dice_faces(faces, 2, key, vec.game, i, vec.E), 0);
    ck_assert_msg(faces[0] == vec.faces[i][0] && faces[1] == vec.faces[i][1],
                  "roll %d: %d %d, want %d %d", i, faces[0], faces[1], vec.faces[i][0],
                  vec.faces[i][1]);
  }
}
END_TEST

/* LG-1: faces seen in advance are the faces the roll later shows. */
START_TEST(test_dice_peek_matches_later_rolls)
{
  struct ref_dice_chain c;
  int faces[2], ahead, next;

  vec_chain(&c);
  for(next = 1; next <= 8; next++)
    for(ahead = 0; next + ahead <= 8; ahead++) {
      ck_assert_int_eq(ref_dice_peek(faces, 2, &c, next, next, ahead, vec.game, vec.E), 0);
      ck_assert_int_eq(faces[0], vec.faces[next + ahead][0]);
      ck_assert_int_eq(faces[1], vec.faces[next + ahead][1]);
    }
  /* beyond the chain: refused, the next chain must be committed first */
  ck_assert_int_eq(ref_dice_peek(faces, 2, &c, 7, 7, 2, vec.game, vec.E), -1);
  ck_assert_int_eq(ref_dice_peek(faces, 2, &c, 1, 1, -1, vec.game, vec.E), -1);
}
END_TEST

START_TEST(test_dice_faces_rows)
{
  /* Row 0: game 123, first byte 253 skipped; row 1: 40 faces, into block_1. */
  uint8_t key[32];
  int faces[64];
  int r, k;

  ck_assert_str_eq(vec.rows[0].game, "123");
  ck_assert_int_eq(vec.rows[1].nfaces, 40);
  for(r = 0; r < vec.nrows; r++) {
    unhex32(key, vec.x[vec.rows[r].roll]);
    ck_assert_int_eq(
        ref_dice_faces(faces, vec.rows[r].nfaces, key, vec.rows[r].game, vec.rows[r].roll, vec.E),
        0);
    for(k = 0; k < vec.rows[r].nfaces; k++)
      ck_assert_msg(faces[k] == vec.rows[r].faces[k], "row %d face %d: %d, want %d", r, k, faces[k],
                    vec.rows[r].faces[k]);
  }
}
END_TEST

START_TEST(test_dice_faces_oracle_rows)
{
  /* 64 rolls from the Python oracle, covering skipped bytes 252..255 and a
   * roll reaching block_2: "GAME I KEY E FACES..." per line. */
  char *text = ts_read(TABULA_TEST_DATA "/dice/faces.txt");
  char *line, *save = NULL;
  int rows = 0;

  for(line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char game[24], keyhex[65], E[65];
    int want[80], got[80];
    int used = 0, n, k;
    long i;
    uint8_t key[32];

    if(line[0] == '#')
      continue;
    ck_assert_int_eq(sscanf(line, "%23s %ld %64s %64s %n", game, &i, keyhex, E, &used), 4);
    n = read_ints(line + used, want, 80);
    ck_assert_int_ge(n, 40);
    unhex32(key, keyhex);
    ck_assert_int_eq(ref_dice_faces(got, n, key, game, i, E), 0);
    for(k = 0; k < n; k++)
      ck_assert_msg(got[k] == want[k], "game %s roll %ld face %d: %d, want %d", game, i, k, got[k],
                    want[k]);
    rows++;
  }
  ck_assert_int_eq(rows, 64);
  free(text);
}
END_TEST

START_TEST(test_dice_faces_bad_args)
{
  uint8_t key[32] = {0};
  int faces[2];

  ck_assert_int_eq(ref_dice_faces(faces, 0, key, "7", 1, vec.E), -1);
  ck_assert_int_eq(ref_dice_faces(faces, 2, key, NULL, 1, vec.E), -1);
  ck_assert_int_eq(ref_dice_faces(faces, 2, key, "7", 1, NULL), -1);
}
END_TEST

/* ---- hex ---- */

START_TEST(test_dice_hex_roundtrip)
{
  uint8_t in[4] = {0x00, 0x9f, 0xa0, 0xff}, out[4];
  char hex[9];

  ref_dice_hex(hex, in, 4);
  ck_assert_str_eq(hex, "009fa0ff");
  ck_assert_int_eq(ref_dice_unhex(out, 4, hex), 0);
  ck_assert_mem_eq(in, out, 4);
}
END_TEST

START_TEST(test_dice_unhex_bad)
{
  static const char *const bad[] = {
      "009fa0f",   /* short */
      "009fa0ff0", /* long */
      "009FA0FF",  /* upper case: one value, one spelling */
      "009fa0fg",  /* not hex */
      "009f a0f",  /* space */
      "",
  };
  uint8_t out[4];
  size_t k;

  for(k = 0; k < sizeof(bad) / sizeof(bad[0]); k++)
    ck_assert_msg(ref_dice_unhex(out, 4, bad[k]) == -1, "'%s' accepted", bad[k]);
}
END_TEST

/* ---- fresh chains ---- */

START_TEST(test_dice_chain_new_random)
{
  struct ref_dice_chain a, b, again;
  uint8_t key[32];

  ck_assert_int_eq(ref_dice_chain_new(&a, 0), 0);
  ck_assert_int_eq(ref_dice_chain_new(&b, 16), 0);
  ck_assert_int_eq(a.n, REF_DICE_DEFAULT_N);
  ck_assert_int_eq(b.n, 16);
  ck_assert_mem_ne(a.secret, b.secret, 32);
  ck_assert_mem_ne(a.commitment, b.commitment, 32);
  /* The commitment is the secret hashed N times, whatever the secret. */
  ref_dice_chain_from_secret(&again, a.secret, a.n);
  ck_assert_mem_eq(again.commitment, a.commitment, 32);
  ref_dice_key(key, &a, 0);
  ck_assert_mem_eq(key, a.commitment, 32);
  ref_dice_key(key, &a, a.n);
  ck_assert_mem_eq(key, a.secret, 32);
  ref_dice_key(key, &b, 1);
  ck_assert_int_eq(ref_dice_check_key(key, b.commitment), 0);
}
END_TEST

/* ---- transcripts ---- */

START_TEST(test_dice_verify_vectors)
{
  char *t = vec_transcript("", "\n");

  expect(t, NULL, 0, 8, NULL);
  expect(t, "7", 0, 8, NULL);
  free(t);
  /* Forwarded or quoted mail, CRLF line ends, trailing blanks. */
  t = vec_transcript(" > >\t", " \r\n");
  expect(t, NULL, 0, 8, NULL);
  free(t);
}
END_TEST

START_TEST(test_dice_verify_duplicates)
{
  char *t = vec_transcript("", "\n");
  char *quoted = vec_transcript("> ", "\n");
  struct text twice = {0};
  char *bad;

  /* Every line in two mails, one quoting the other, other text around: fine. */
  add(&twice, "Subject: move\n\nYour move.\n%s\nOn Monday tabula wrote:\n%s-- \ntabula\n", t,
      quoted);
  expect(twice.s, NULL, 0, 8, NULL);
  /* The quoted copy of roll 4 shows other faces. */
  bad = replaced(twice.s, "faces 5 5\n> Dice roll", "faces 5 6\n> Dice roll");
  expect(bad, NULL, -1, 0, "roll 4: conflicting lines");
  free(bad);
  bad = replaced(t, "faces 5 5\n",
                 "faces 5 5\nDice roll: game 7 chain 1 roll 4 key "
                 "cefc1232dee44cc53fccf8cc078f657f4db4f1d0303725375a0694f7d395e2ea "
                 "faces 5 6\n");
  expect(bad, NULL, -1, 0, "roll 4: conflicting lines");
  free(bad);
  bad = replaced(t, "e2 <CAF00D", "e2 <CAF00D@mail.example>\nDice entropy: game 7 e2 <CAF00E");
  expect(bad, NULL, -1, 0, "entropy e2: conflicting lines");
  free(bad);
  free(twice.s);
  free(quoted);
  free(t);
}
END_TEST

START_TEST(test_dice_verify_tampered)
{
  char *t = vec_transcript("", "\n");
  char *bad, key5[65];

  /* One face of roll 5 (5 3 in the vectors). */
  bad = replaced(t, "faces 5 3", "faces 5 4");
  expect(bad, NULL, -1, 0, "roll 5: faces 5 4 printed, 5 3 computed");
  free(bad);
  /* One hex digit of key 5. */
  snprintf(key5, sizeof(key5), "%s", vec.x[5]);
  key5[10] = key5[10] == '0' ? '1' : '0';
  bad = replaced(t, vec.x[5], key5);
  expect(bad, NULL, -1, 0, "roll 5: key does not hash to the previous key");
  free(bad);
  /* Roll 2 is the first one checked against a printed key. */
  bad = replaced(t, "roll 2 key 09", "roll 2 key 19");
  expect(bad, NULL, -1, 0, "roll 2: key does not hash to the previous key");
  free(bad);
  /* Roll 1 checks against the commitment. */
  bad = replaced(t, "roll 1 key 5b", "roll 1 key 5c");
  expect(bad, NULL, -1, 0, "roll 1: key does not hash to the chain 1 commitment");
  free(bad);
  /* A key from further up the chain (x_4 shown as roll 3's key). */
  bad = replaced(t, vec.x[3], vec.x[4]);
  expect(bad, NULL, -1, 0, "roll 3: key does not hash to the previous key");
  free(bad);
  /* Roll 3's line dropped. */
  bad = replaced(t, "Dice roll: game 7 chain 1 roll 3", "Lost roll: game 7 chain 1 roll 3");
  expect(bad, NULL, -1, 0, "roll 3 missing");
  free(bad);
  /* Wrong E, or an e_s changed after the fact. */
  bad = replaced(t, "E 4811", "E 4812");
  expect(bad, NULL, -1, 0, "entropy: E printed 4812*");
  free(bad);
  bad = replaced(t, "alice-entropy", "alice-entropz");
  expect(bad, NULL, -1, 0, "entropy: E printed 4811628a*");
  free(bad);
  bad = replaced(t, "Dice entropy: game 7 e1", "Lost");
  expect(bad, NULL, -1, 0, "entropy e1 missing");
  free(bad);
  /* No entropy lines at all: E cannot be computed, not even as sha256("");
   * with E printed it is taken as printed (a published tabula-dice-1
   * record, dice.h step 3), and a changed E fails the rolls. */
  {
    char *no_e1 = replaced(t, "Dice entropy: game 7 e1", "Lost");
    char *no_e = replaced(no_e1, "Dice entropy: game 7 e2", "Lost");
    expect(no_e, NULL, 0, 8, NULL);
    bad = replaced(no_e, "E 4811", "E 4812");
    expect(bad, NULL, -1, 0, "roll 1: faces 2 1 printed, * computed");
    free(bad);
    free(no_e);
    bad = replaced_all(no_e1, "Dice entropy:", "Lost");
    expect(bad, NULL, -1, 0, "entropy e1 missing");
    free(bad);
    free(no_e1);
  }
  /* Without the printed E the rolls still verify: E comes from e_1..e_k. */
  bad = replaced(t, "Dice entropy: game 7 E", "E was");
  expect(bad, NULL, 0, 8, NULL);
  free(bad);
  bad = replaced(t, "Dice commitment:", "Commitment:");
  expect(bad, NULL, -1, 0, "roll 1: chain 1 commitment missing");
  free(bad);
  /* Malformed lines: a short key, an unknown protocol, a bare faces list. */
  bad = replaced(t, vec.x[2], "09b8c5d6");
  expect(bad, NULL, -1, 0, "line 6: malformed dice line");
  free(bad);
  bad = replaced(t, "tabula-dice-1", "tabula-dice-3");
  expect(bad, NULL, -1, 0, "line 1: malformed dice line");
  free(bad);
  /* tabula-dice-2 computes the faces as tabula-dice-1 does */
  bad = replaced(t, "tabula-dice-1", "tabula-dice-2");
  expect(bad, NULL, 0, 8, NULL);
  free(bad);
  bad = replaced(t, "faces 1 2\n", "faces\n");
  expect(bad, NULL, -1, 0, "line 12: malformed dice line");
  free(bad);
  /* Trailing words, over-long numbers and ids (grammar in dice.h). */
  bad = replaced(t, "d27b\n", "d27b extra\n");
  expect(bad, NULL, -1, 0, "line 1: malformed dice line");
  free(bad);
  bad = replaced(t, "33be\n", "33be extra\n");
  expect(bad, NULL, -1, 0, "line 4: malformed dice line");
  free(bad);
  bad = replaced(t, "faces 1 2\n", "faces 1 2 x\n");
  expect(bad, NULL, -1, 0, "line 12: malformed dice line");
  free(bad);
  bad = replaced(t, "roll 8 ", "roll 1234567890 ");
  expect(bad, NULL, -1, 0, "line 12: malformed dice line");
  free(bad);
  bad = replaced(t, "roll 8 ", "roll 08 ");
  expect(bad, NULL, -1, 0, "line 12: malformed dice line");
  free(bad);
  bad = replaced(t, "roll 8 ", "roll 123456789 ");
  expect(bad, NULL, -1, 0, "roll 8 missing");
  free(bad);
  /* Game ids: up to 20 digits (the faces then differ: the id is in the HMAC). */
  bad = replaced_all(t, "game 7 ", "game 12345678901234567890 ");
  expect(bad, NULL, -1, 0, "roll 1: faces*");
  free(bad);
  bad = replaced_all(t, "game 7 ", "game 123456789012345678901 ");
  expect(bad, NULL, -1, 0, "line 1: malformed dice line");
  free(bad);
  free(t);
}
END_TEST

/* tabula-dice-2 (docs/dice-protocol.md, "Versions"): the salt of the
 * vectors' chain and the entropy of a Message-ID under it, the protocol's
 * own values; what openssl dgst -sha256 -hmac SALT prints for the ID. */
START_TEST(test_dice_salt_and_mid_vectors)
{
  static const char salt_want[] =
    "f5957bf9d574d187a2f7559294fc6f36f9b689566341d51e49bbdf92bbfda4ed";
  static const char mid_want[] =
    "mid:44a9afd5ffaacf59ac0c41fa80a7eff2bb2cb174411869179de3914443f0cb8b";
  char *doc = ts_read(TABULA_SOURCE_DIR "/docs/dice-protocol.md");
  uint8_t secret[32];
  char salt[65], mid[80], other[80];
  int i;

  for(i = 0; i < 32; i++)
    secret[i] = (uint8_t)i;
  ref_dice_salt(salt, secret);
  ck_assert_str_eq(salt, salt_want);
  ref_dice_mid_entropy(mid, sizeof(mid), salt, "<CAF00D@mail.example>");
  ck_assert_str_eq(mid, mid_want);
  ck_assert_ptr_nonnull(strstr(doc, salt_want));
  ck_assert_ptr_nonnull(strstr(doc, mid_want));
  /* nothing of the ID shows; another salt gives another digest */
  ck_assert_ptr_null(strstr(mid, "CAF00D"));
  ck_assert_ptr_null(strchr(mid, '@'));
  secret[0] = 1;
  ref_dice_salt(salt, secret);
  ref_dice_mid_entropy(other, sizeof(other), salt, "<CAF00D@mail.example>");
  ck_assert_str_ne(other, mid);
  free(doc);
}
END_TEST

START_TEST(test_dice_verify_no_lines)
{
  expect("", NULL, -1, 0, "no dice lines found");
  expect("From: a\n\nDice are fun.\n", NULL, -1, 0, "no dice lines found");
  /* A commitment alone (game created, nobody accepted yet) is 0 rolls. */
  expect("Dice commitment: tabula-dice-1 game 3 chain 1 N 8 commitment "
         "df01f0bd30b89f4187c3919067c99d5aee753a45894e1e31be4f0e26a26dd27b\n",
         NULL, 0, 0, NULL);
}
END_TEST

/* Builds game `game`'s transcript with chains of length n from fixed secrets
 * (chain c's secret is bytes c, c+1, ...), nrolls rolls of two faces. */
static char *built_transcript(const char *game, int n, int nrolls)
{
  const char *e[3] = {"first seat", "<id.2@example.org>", "third"};
  struct ref_dice_chain chain;
  struct text t = {0};
  char E[65], hex[65];
  int i, c = 0;

  ref_dice_entropy(E, e, 3);
  for(i = 0; i < 3; i++)
    add(&t, "Dice entropy: game %s e%d %s\n", game, i + 1, e[i]);
  for(i = 1; i <= nrolls; i++) {
    uint8_t key[32];
    int faces[2];
    int j = (i - 1) % n + 1;
    if(j == 1) {
      uint8_t secret[32];
      int k;
      c++;
      for(k = 0; k < 32; k++)
        secret[k] = (uint8_t)(c + k);
      ref_dice_chain_from_secret(&chain, secret, n);
      ref_dice_hex(hex, chain.commitment, 32);
      add(&t, "Dice commitment: tabula-dice-1 game %s chain %d N %d commitment %s\n", game, c, n,
          hex);
    }
    ref_dice_key(key, &chain, j);
    ck_assert_int_eq(ref_dice_faces(faces, 2, key, game, i, E), 0);
    ref_dice_hex(hex, key, 32);
    add(&t, "Dice roll: game %s chain %d roll %d key %s faces %d %d\n", game, c, i, hex, faces[0],
        faces[1]);
  }
  return t.s;
}

START_TEST(test_dice_verify_chains)
{
  char *t = built_transcript("40", 3, 7); /* chains 1, 2, 3: rolls 1-3, 4-6, 7 */
  char *bad;

  expect(t, NULL, 0, 7, NULL);
  /* Roll 4 claimed for chain 1, whose N = 3 rolls are 1 to 3. */
  bad = replaced(t, "chain 2 roll 4", "chain 1 roll 4");
  expect(bad, NULL, -1, 0, "roll 4: chain 1 covers rolls 1 to 3");
  free(bad);
  bad = replaced(t, "chain 1 roll 3", "chain 2 roll 3");
  expect(bad, NULL, -1, 0, "roll 3: chain 2 covers rolls 4 to 6");
  free(bad);
  bad = replaced(t, "chain 3 roll 7", "chain 2 roll 7");
  expect(bad, NULL, -1, 0, "roll 7: chain 2 covers rolls 4 to 6");
  free(bad);
  /* Chain 2's commitment never mailed. */
  bad = replaced(t, "Dice commitment: tabula-dice-1 game 40 chain 2", "Lost: game 40 chain 2");
  expect(bad, NULL, -1, 0, "roll 4: chain 2 commitment missing");
  free(bad);
  /* Chain 2 announced twice with different commitments. */
  bad = replaced(t, "Dice commitment: tabula-dice-1 game 40 chain 2 N 3 commitment ",
                 "Dice commitment: tabula-dice-1 game 40 chain 2 N 3 commitment "
                 "df01f0bd30b89f4187c3919067c99d5aee753a45894e1e31be4f0e26a26dd27b\n"
                 "Dice commitment: tabula-dice-1 game 40 chain 2 N 3 commitment ");
  expect(bad, NULL, -1, 0, "chain 2 commitment: conflicting lines");
  free(bad);
  free(t);
}
END_TEST

START_TEST(test_dice_verify_chain_at_exact_boundary)
{
  /* N rolls exactly use the whole chain, including x_N = the secret. */
  char *t = built_transcript("5", 4, 8);

  expect(t, NULL, 0, 8, NULL);
  free(t);
}
END_TEST

START_TEST(test_dice_verify_oracle_transcript)
{
  /* Made by the Python oracle: chain 2, a UTF-8 entropy, quoted lines. */
  char *t = ts_read(TABULA_TEST_DATA "/dice/chain2.txt");
  char *bad;

  expect(t, NULL, 0, 7, NULL);
  bad = replaced(t, "zoë", "zoe");
  expect(bad, NULL, -1, 0, "entropy: E printed f04e07e1*");
  free(bad);
  free(t);
}
END_TEST

START_TEST(test_dice_verify_several_games)
{
  char *a = vec_transcript("", "\n");
  char *b = ts_read(TABULA_TEST_DATA "/dice/chain2.txt");
  struct text both = {0};

  add(&both, "%s%s", a, b);
  expect(both.s, NULL, -1, 0, "dice lines of several games (7, 12): choose one");
  expect(both.s, "7", 0, 8, NULL);
  expect(both.s, "12", 0, 7, NULL);
  expect(both.s, "99", -1, 0, "no dice lines for game 99");
  free(both.s);
  free(a);
  free(b);
}
END_TEST

START_TEST(test_dice_verify_every_byte_changed)
{
  /* Changing any one byte of the transcript, to a letter or to a digit (a
   * still well-formed key, face, number), must not go unnoticed: it fails,
   * or it hides a line that may be absent (the printed E, the last roll). */
  char *t = vec_transcript("", "\n");
  char *orig = strdup(t);
  size_t len = strlen(t), k, line_start = 0;
  int hidden = 0, pass;

  for(pass = 0; pass < 2; pass++) {
    line_start = 0;
    for(k = 0; k < len; k++) {
      const char *line = orig + line_start;
      char why[256];
      int nrolls = 0, rc;

      if(pass == 0)
        t[k] = orig[k] == 'x' ? 'y' : 'x';
      else
        t[k] = orig[k] == '0' ? '1' : '0';
      rc = ref_dice_verify_text(t, &nrolls, why, sizeof(why));
      if(rc != 0 && !strncmp(line, "Dice roll:", 10) && !strncmp(why, "roll ", 5)) {
        /* A failure about a roll names the roll whose line was changed. */
        char want[16];
        long roll = strtol(strstr(line, " roll ") + 6, NULL, 10);
        snprintf(want, sizeof(want), "roll %ld", roll);
        size_t wlen = strlen(want);
        ck_assert_msg(!strncmp(why, want, wlen) && !isdigit((unsigned char)why[wlen]),
                      "byte %zu set to '%c': '%s', want %s", k, t[k], why, want);
      }
      if(rc == 0) {
        bool e_line = !strncmp(line, "Dice entropy: game 7 E ", 23);
        bool last = !strncmp(line, "Dice roll: game 7 chain 1 roll 8 ", 33);
        ck_assert_msg((e_line && nrolls == 8) || (last && nrolls == 7),
                      "byte %zu set to '%c' and still %d rolls verify", k, t[k], nrolls);
        hidden++;
      }
      t[k] = orig[k];
      if(orig[k] == '\n')
        line_start = k + 1;
    }
  }
  /* Exactly the prefixes "Dice entropy:" (13) and "Dice roll:" (10), twice. */
  ck_assert_int_eq(hidden, 2 * (13 + 10));
  free(orig);
  free(t);
}
END_TEST

/* Runs tools/tabula-verify-dice.py (one Python process) over dir/0 ..
 * dir/(n-1) and returns its "RC OUTPUT" lines, file and --game hints removed
 * so they read as this library's reasons. */
static const char python_driver[] =
    "import contextlib, importlib.util, io, sys\n"
    "spec = importlib.util.spec_from_file_location('v', sys.argv[1])\n"
    "v = importlib.util.module_from_spec(spec); spec.loader.exec_module(v)\n"
    "for k in range(int(sys.argv[3])):\n"
    "    path, out = f'{sys.argv[2]}/{k}', io.StringIO()\n"
    "    with contextlib.redirect_stdout(out):\n"
    "        rc = v.main([path])\n"
    "    print(rc, out.getvalue().strip().replace(path + ' line', 'line')\n"
    "          .replace(': choose one with --game', ': choose one'))\n";

START_TEST(test_dice_verify_python_agrees)
{
  /* The standalone verifier must give the same verdict and reason as this
   * library, byte for byte, on every one-byte change of a quoted CRLF
   * transcript (to a letter and to a digit). */
  char *t = vec_transcript("> ", "\r\n");
  char *orig = strdup(t);
  char dir[] = "/tmp/test_dice_XXXXXX";
  char path[64], cmd[512], line[512];
  size_t len = strlen(t), k;
  int n = 0, pass, checked = 0;
  FILE *f, *py;

  ck_assert_ptr_nonnull(mkdtemp(dir));
  for(pass = 0; pass < 2; pass++) {
    for(k = 0; k < len; k++) {
      if(pass == 0)
        t[k] = orig[k] == 'x' ? 'y' : 'x';
      else
        t[k] = orig[k] == '0' ? '1' : '0';
      snprintf(path, sizeof(path), "%s/%d", dir, n++);
      f = fopen(path, "w");
      ck_assert_ptr_nonnull(f);
      fputs(t, f);
      fclose(f);
      t[k] = orig[k];
    }
  }
  snprintf(path, sizeof(path), "%s/driver.py", dir);
  f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(python_driver, f);
  fclose(f);
  snprintf(cmd, sizeof(cmd), "python3 %s %s/tools/tabula-verify-dice.py %s %d", path,
           TABULA_SOURCE_DIR, dir, n);
  py = popen(cmd, "r");
  ck_assert_ptr_nonnull(py);
  for(pass = 0; pass < 2; pass++) {
    for(k = 0; k < len; k++) {
      char why[256], want[512];
      int nrolls = 0, rc;

      if(pass == 0)
        t[k] = orig[k] == 'x' ? 'y' : 'x';
      else
        t[k] = orig[k] == '0' ? '1' : '0';
      rc = ref_dice_verify_text(t, &nrolls, why, sizeof(why));
      if(rc == 0)
        snprintf(want, sizeof(want), "0 all %d rolls verify\n", nrolls);
      else
        snprintf(want, sizeof(want), "1 %s\n", why);
      ck_assert_msg(fgets(line, sizeof(line), py) != NULL, "python3 stopped at case %d", checked);
      ck_assert_msg(!strcmp(line, want), "byte %zu set to '%c': C says %s, Python says %s", k, t[k],
                    want, line);
      t[k] = orig[k];
      checked++;
    }
  }
  ck_assert_int_eq(pclose(py), 0);
  ck_assert_int_eq(checked, n);
  snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
  ck_assert_int_eq(system(cmd), 0);
  free(orig);
  free(t);
}
END_TEST

static Suite *dice_suite(void)
{
  Suite *s = suite_create("dice");
  TCase *tc;

  tc = tcase_create("vectors");
  tcase_add_unchecked_fixture(tc, load_vectors, NULL);
  tcase_add_test(tc, test_dice_vectors_in_protocol_doc);
  tcase_add_test(tc, test_dice_chain_from_secret_commitment);
  tcase_add_test(tc, test_dice_key_vectors);
  tcase_add_test(tc, test_dice_peek_matches_later_rolls);
  tcase_add_test(tc, test_dice_entropy_vector);
  tcase_add_test(tc, test_dice_salt_and_mid_vectors);
  tcase_add_test(tc, test_dice_faces_vectors);
  tcase_add_test(tc, test_dice_faces_rows);
  tcase_add_test(tc, test_dice_faces_oracle_rows);
  tcase_add_test(tc, test_dice_faces_bad_args);
  suite_add_tcase(s, tc);

  tc = tcase_create("hex");
  tcase_add_test(tc, test_dice_hex_roundtrip);
  tcase_add_test(tc, test_dice_unhex_bad);
  suite_add_tcase(s, tc);

  tc = tcase_create("chain_new");
  tcase_add_test(tc, test_dice_chain_new_random);
  suite_add_tcase(s, tc);

  tc = tcase_create("verify");
  tcase_add_unchecked_fixture(tc, load_vectors, NULL);
  tcase_add_test(tc, test_dice_verify_vectors);
  tcase_add_test(tc, test_dice_verify_duplicates);
  tcase_add_test(tc, test_dice_verify_tampered);
  tcase_add_test(tc, test_dice_verify_no_lines);
  tcase_add_test(tc, test_dice_verify_chains);
  tcase_add_test(tc, test_dice_verify_chain_at_exact_boundary);
  tcase_add_test(tc, test_dice_verify_oracle_transcript);
  tcase_add_test(tc, test_dice_verify_several_games);
  tcase_add_test(tc, test_dice_verify_every_byte_changed);
  tcase_add_test(tc, test_dice_verify_python_agrees);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  return unit_run(dice_suite());
}
