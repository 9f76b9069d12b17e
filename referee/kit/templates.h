/*
 * templates.h: reply text as data (prefix tpl_). Every sentence a player
 * reads lives in templates/, one file per reply kind; the binary embeds them
 * and an operator may override any file from a directory (templates_dir).
 *
 * A template file is a mail in miniature:
 *   ## comment lines first (they document the placeholders)
 *   Subject: the subject line, with {placeholders}
 *   <blank line>
 *   the body, with {placeholders}
 * {name} is replaced by the variable's value. A line that holds only
 * placeholders which all expand to nothing is dropped, so optional parts
 * (dice, a draw offer) take no room when absent; a line that starts with
 * "{?name} " is kept (without that prefix) only when name has a value.
 */
#ifndef TABULA_TEMPLATES_H
#define TABULA_TEMPLATES_H

#include <stddef.h>

struct tpl_var {
  const char *name;
  const char *value; /* NULL counts as "" */
};

/* Loads the named template: dir/name when dir is non-empty and the file
 * exists, else the embedded one. Renders subject and body (malloc'd). */
int tpl_render(char **subject, char **body, const char *dir, const char *name,
               const struct tpl_var *vars, size_t nvars);
/* Whether a template of that name exists (override or embedded). */
int tpl_exists(const char *dir, const char *name);
/* Whether the template shows {placeholder} (a comment counts as
 * passed only by a mail that shows it). */
int tpl_mentions(const char *dir, const char *name, const char *placeholder);
/* The line `key = text` of a phrase file (reasons.txt, phrases.txt),
 * expanded with vars; an unknown key yields the key itself, so nothing is
 * ever silently empty. */
void tpl_line(char *buf, size_t cap, const char *dir, const char *file, const char *key,
              const struct tpl_var *vars, size_t nvars);
/* The sentence for a reason key from reasons.txt, {detail} filled in; an
 * unknown key yields the key itself, so nothing is ever silently empty. */
void tpl_reason(char *buf, size_t cap, const char *dir, const char *key, const char *detail);

#endif
