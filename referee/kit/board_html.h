/*
 * board_html.h: a board diagram drawn as HTML, plain text as HTML
 * (board_html.c). Layer 1, "base".
 */
#ifndef TABULA_BOARD_HTML_H
#define TABULA_BOARD_HTML_H

#include "base.h"
#include "rules.h"

#include <stddef.h>

/* n bytes of s with & < > " ' escaped. */
int ref_html_escape(struct base_buf *out, const char *s, size_t n);
/* Plain text as paragraphs (blank lines) and line breaks, escaped. */
int ref_html_text(struct base_buf *out, const char *text);
/* An ASCII board as preformatted text (a game without ops->diagram). */
int ref_html_pre(struct base_buf *out, const char *ascii);
/* The diagram as HTML tables, inline styles only; words from the
 * templates directory `dir` (phrases.txt, "" = the embedded ones). */
int ref_html_board(struct base_buf *out, const struct ref_diagram *d, const char *dir);

#endif
