/* templates_embedded.h: the table generated from templates/ at build time
 * (scripts/cmake/embed_templates.cmake). Internal to the service. */
#ifndef TABULA_TEMPLATES_EMBEDDED_H
#define TABULA_TEMPLATES_EMBEDDED_H

struct tpl_embedded {
  const char *name; /* file name in templates/, e.g. "move.txt" */
  const char *text;
};

extern const struct tpl_embedded tpl_embedded[]; /* ends with {NULL, NULL} */

#endif
