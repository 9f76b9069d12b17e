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

#include "base.h"

/* Copies the text out[0..len) into the caller's buf: REF_OK, or REF_EINVAL
 * (buf untouched) when it does not fit. For texts built in a local buffer
 * first (positions, diagrams). */
int ref_text_copy(const char *out, size_t len, char *buf, size_t cap);
/* A diagram is written by ops->render straight into the caller's buf, a
 * fixed base_buf over it (base_buf_init_fixed). ref_text_emit appends
 * printf-style; its failure (the text does not fit) sticks in o, later
 * appends do nothing, and every render reads it once at its end
 * (base_buf_err: then REF_EINVAL), as the drawing helpers are many and
 * all of one diagram. */
void ref_text_emit(struct base_buf *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The decimal digits of n at p (no NUL); returns their end. Move
 * notation (points, counts) is written a byte at a time into arrays its
 * bounds size, as chess_board.c does: not through sprintf, whose result
 * nobody checked. */
char *ref_text_uint(char *p, unsigned n);

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
