/*
 * support.h: what the unit tests (tests/unit/MODULE/test_*.c) share, written
 * once: reading a whole file, walking its lines, the seeded generator and
 * the environment knobs of the long tests, and the check that every reason
 * key a game returns is worded in templates/reasons.txt (the rules core
 * returns keys, never sentences: docs/architecture.md), playing a list of
 * moves. Linked into every unit test by tests/CMakeLists.txt
 * (tabula_test_support).
 */
#ifndef TABULA_TEST_SUPPORT_H
#define TABULA_TEST_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

struct ref_game_desc;
struct ref_state;

/* The whole file at path, NUL-terminated, in a buffer the caller frees;
 * its length in *len when len is not NULL. NULL when it cannot be read
 * (for the tests that check a file is absent). */
char *ts_slurp(const char *path, size_t *len);

/* The whole file at path as ts_slurp, failing the running test when it
 * cannot be read (a data file of the tests that is missing). */
char *ts_read(const char *path);

/* ts_read of the path printf(fmt, ...) makes. */
char *ts_readf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The next line of *cursor, NUL-terminated in place, or NULL at the end. */
char *ts_next_line(char **cursor);

/* strcmp for qsort over an array of char *. */
int ts_cmp_str(const void *a, const void *b);

/* The number in environment variable name, or def when unset or empty
 * (how far the long tests go: TABULA_PERFT_MAXDEPTH and the like). */
long ts_env_long(const char *name, long def);

/* The next number of a 64-bit linear congruential generator at *state
 * (Knuth's MMIX constants): the same sequence on every run from a seed
 * (the tests may be random; the rules core may not). */
uint32_t ts_lcg(uint64_t *state);

/* Fails the running test unless reason is a key of templates/reasons.txt. */
void ts_assert_worded(const char *reason);

/* Fails the running test unless every string starting with prefix ("bg-")
 * in the named files of referee/rules/ is a key of templates/reasons.txt,
 * there are at least min of them, and each of the n shared keys is too. */
void ts_assert_reason_keys(const char *const *files, size_t nfiles, const char *prefix, int min,
                           const char *const *shared, size_t nshared);

/* Parses and applies each space-separated move of moves ("e4 e5 Nf3") with
 * game g, failing the running test unless each is read, applied, and leaves
 * a state that passes g's ok() (support_rules.c: the rules' tests only). */
void ts_play_words(const struct ref_game_desc *g, struct ref_state *s, const char *moves);

#endif
