/*
 * game_text_int.h: text every game of the rules core writes or reads the
 * same way, private to the core: the board diagrams' output buffer and
 * the options string of ops->init ("key=value;key=value", rules.h).
 */
#ifndef TABULA_GAME_TEXT_INT_H
#define TABULA_GAME_TEXT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A diagram being written into a caller's buffer; `full` once something
 * did not fit (ops->render then answers REF_EINVAL). */
struct ref_text {
  char *buf;
  size_t cap, len;
  bool full;
};

/* Copies the text out[0..len) into the caller's buf: REF_OK, or REF_EINVAL
 * (buf untouched) when it does not fit. For texts built in a local buffer
 * first (positions, diagrams). */
int ref_text_copy(const char *out, size_t len, char *buf, size_t cap);
/* Starts writing into buf (cap > 0): buf is "" until something is written. */
void ref_text_init(struct ref_text *o, char *buf, size_t cap);
/* Appends printf-style; nothing once full. */
void ref_text_emit(struct ref_text *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * One "key=value" segment of an options string, trimmed of blanks and
 * tabs: [kb, ke) the key, [vb, ve) the value (empty, and has_value false,
 * without '='). ref_opt_next reads the segment at *p and moves *p past it
 * and its ';'; false at the end of the string. Empty segments (";;", a
 * trailing ';') come back with an empty key and no value.
 */
struct ref_opt {
  const char *kb, *ke, *vb, *ve;
  bool has_value;
};
bool ref_opt_next(const char **p, struct ref_opt *o);
/* Is the key (or value) [b, e) exactly `word`? (_ci: in any case) */
bool ref_opt_is(const char *b, const char *e, const char *word);
bool ref_opt_is_ci(const char *b, const char *e, const char *word);
/* The key as a string for an error's detail (cut to fit). */
void ref_opt_key(const struct ref_opt *o, char *buf, size_t cap);

/* A position string's fields (FEN and its kin, rules-spec 1.2): src copied
 * into buf (cap bytes) and split at blanks in place. The number of
 * fields, or -1 when src does not fit or has more than `max` fields. */
int ref_text_fields(const char *src, char *buf, size_t cap, char **field, int max);

/* An unsigned decimal of 1 to `maxdigits` digits, nothing else (no sign,
 * no blank): a position string's counters, bounded so that none wraps. */
bool ref_text_counter(const char *s, unsigned maxdigits, uint32_t *out);

#endif /* TABULA_GAME_TEXT_INT_H */
