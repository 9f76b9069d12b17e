/*
 * board_html.c: a board diagram (rules.h, struct ref_diagram) drawn as an
 * HTML table, and plain text as HTML. Used for the HTML part of
 * every mail that shows a board (reply.c) and for the web view (site.c).
 *
 * What mail clients show: tables and inline style attributes only, no
 * <style> sheet, images, scripts, fonts or anything fetched (Gmail and
 * Outlook drop or block them). The pieces are text: chess pieces as the
 * Unicode chess symbols, draughts men and backgammon checkers as circles,
 * White's hollow and Black's filled as in printed diagrams, so the board
 * reads right even where a client drops the colours; each symbol is
 * followed by U+FE0E so phones draw it as text, not as an emoji. The board
 * is drawn from the reader's side (the diagram's `flip`), the last move's
 * squares or points tinted, coordinates around it. Words shown on the
 * board ("bar", "off") come from templates/phrases.txt.
 * Layer 1, "base" (docs/architecture.md): pure, no store, no mail.
 */
#include "board_html.h"

#include "templates.h"

#include <stdio.h>
#include <string.h>

#define FONT "font-family:'DejaVu Sans','Segoe UI Symbol','Noto Sans Symbols 2','Apple Symbols',sans-serif"

int ref_html_escape(struct base_buf *out, const char *s, size_t n)
{
  size_t i, run = 0;
  for(i = 0; i < n; i++) {
    const char *e = NULL;
    switch(s[i]) {
    case '&': e = "&amp;"; break;
    case '<': e = "&lt;"; break;
    case '>': e = "&gt;"; break;
    case '"': e = "&quot;"; break;
    case '\'': e = "&#39;"; break;
    default: break;
    }
    if(!e)
      continue;
    if((i > run && base_buf_add(out, s + run, i - run)) || base_buf_puts(out, e))
      return -1;
    run = i + 1;
  }
  return i > run ? base_buf_add(out, s + run, i - run) : 0;
}

int ref_html_text(struct base_buf *out, const char *text)
{
  /* Paragraphs at blank lines, line breaks kept; an indented line (a
   * command to type, a quoted input, a move to copy) in a monospace span
   * that is never wrapped: "e2-e4,Nf3" broken at its hyphen is no move. */
  const char *p = text;
  int open = 0;
  while(*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    size_t blank = strspn(p, " \t");
    if(blank >= len) {
      if(open && base_buf_puts(out, "</p>\n"))
        return -1;
      open = 0;
    }
    else {
      if(base_buf_puts(out, open ? "<br>\n" : "<p style=\"margin:0 0 12px\">"))
        return -1;
      open = 1;
      if(blank >= 4) {
        if(base_buf_puts(out, "<span style=\"font-family:monospace;padding-left:2em;"
                             "white-space:nowrap\">") ||
           ref_html_escape(out, p + blank, len - blank) || base_buf_puts(out, "</span>"))
          return -1;
      }
      else if(ref_html_escape(out, p, len))
        return -1;
    }
    p += len + (nl ? 1 : 0);
  }
  return open ? base_buf_puts(out, "</p>\n") : 0;
}

int ref_html_pre(struct base_buf *out, const char *ascii)
{
  return base_buf_puts(out, "<pre style=\"font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;"
                           "font-size:13px;line-height:1.25;margin:0 0 12px\">") ||
         ref_html_escape(out, ascii, strlen(ascii)) || base_buf_puts(out, "</pre>\n");
}

/* ---- pieces ---- */

static const char *glyph(const struct ref_diag_piece *p)
{
  /* White: the hollow forms, Black: the filled ones (U+2654-265F, U+25CB ...). */
  static const char *const light[] = {"", "\u2654", "\u2655", "\u2656", "\u2657", "\u2658",
                                      "\u2659", "\u25cb", "\u25ce", "\u25cb"};
  static const char *const dark[] = {"", "\u265a", "\u265b", "\u265c", "\u265d", "\u265e",
                                     "\u265f", "\u25cf", "\u25c9", "\u25cf"};
  if(p->kind > REF_DIAG_CHECKER)
    return "?";
  return p->dark ? dark[p->kind] : light[p->kind];
}

/* A piece with no figurine (the armies' pieces, rules-spec DA-4): its
 * letter in a disc, White's black on white ringed black, Black's white on
 * black, as the letters of the ASCII board (upper case, the legend under
 * the board names them); where a client drops border-radius, a tile. */
static int lettered(struct base_buf *out, const struct ref_diag_piece *p)
{
  char letter = p->letter >= 'A' && p->letter <= 'Z' ? p->letter : '?';
  return base_buf_printf(out,
                         "<span data-piece=\"%c\" style=\"display:inline-block;width:26px;"
                         "height:26px;line-height:26px;border-radius:50%%;font-size:17px;"
                         "font-weight:bold;font-family:sans-serif;%s\">%c</span>",
                         p->dark ? letter - 'A' + 'a' : letter,
                         p->dark ? "background:#222;color:#fff;border:2px solid #222"
                                 : "background:#fff;color:#000;border:2px solid #000",
                         letter);
}

static int piece(struct base_buf *out, const struct ref_diag_piece *p)
{
  if(p->kind == REF_DIAG_LETTERED)
    return lettered(out, p);
  static const char *const letters = " KQRBNPMCO";
  /* data-piece: the FEN-like letter (upper case White), for tests and
   * scripts reading the page */
  char letter = p->kind <= REF_DIAG_CHECKER ? letters[p->kind] : '?';
  if(p->dark && letter >= 'A' && letter <= 'Z')
    letter = (char)(letter - 'A' + 'a');
  /* a light disc is the hollow circle filled white, so it shows on any
   * square or point (where border-radius is dropped, a white square) */
  int disc = !p->dark && p->kind >= REF_DIAG_MAN;
  char head[] = "<span data-piece=\"?\"";
  head[sizeof(head) - 3] = letter;
  return base_buf_puts(out, head) ||
         (disc && base_buf_puts(out, " style=\"background:#fafafa;border-radius:50%\"")) ||
         base_buf_puts(out, ">") || base_buf_puts(out, glyph(p)) ||
         base_buf_puts(out, "\ufe0e</span>");
}

/* A stack: its pieces one above the other (upward from the bottom edge
 * when `up`), a count when more stand there than are listed. */
static int stack(struct base_buf *out, const struct ref_diag_stack *s, int up, int vertical)
{
  int shown = s->n < REF_DIAG_SHOW ? s->n : REF_DIAG_SHOW, i;
  const char *sep = vertical ? "<br>" : "";
  if(s->n > REF_DIAG_SHOW && up && base_buf_printf(out, "<small>%u</small>%s", s->n, sep))
    return -1;
  for(i = 0; i < shown; i++) {
    const struct ref_diag_piece *p = &s->p[up ? shown - 1 - i : i];
    if(piece(out, p) || (i + 1 < shown && base_buf_puts(out, sep)))
      return -1;
  }
  if(s->n > REF_DIAG_SHOW && !up && base_buf_printf(out, "%s<small>%u</small>", sep, s->n))
    return -1;
  return 0;
}

/* ---- grid boards ---- */

/* a square is 36 pixels wide and high */

static const char *square_colour(const struct ref_diag_cell *c)
{
  if(c->s.mark)
    return c->dark ? "#aaa23a" : "#cdd26a"; /* the last move */
  return c->dark ? "#b58863" : "#f0d9b5";
}

/* A reply is written to the store and the outbox, so every byte
 * of a board counts a few times over. The styles every cell of a table
 * shares (centred text, size, colour, line height) are written once on the
 * table and inherited (the mail and the web page are standards mode);
 * sizes are written once a row (its height) and once a column (the widths
 * of its top cells); vertical-align:middle is a cell's default. */
static int label_cell(struct base_buf *out, const char *text, const char *extra)
{
  /* puts, not printf: a board has a hundred cells */
  return base_buf_puts(out, "<td style=\"font-size:12px;color:#555") || base_buf_puts(out, extra) ||
         base_buf_puts(out, "\">") || base_buf_puts(out, text) || base_buf_puts(out, "</td>");
}

static int grid(struct base_buf *out, const struct ref_diagram *d)
{
  int r, f, ri, fi;
  if(base_buf_printf(out, "<table data-board=\"grid\" "
                         "style=\"border-collapse:collapse;margin:0 0 8px;%s;text-align:center;"
                         "font-size:28px;line-height:1;color:#000\">\n<tbody><tr>",
                    FONT) ||
     label_cell(out, "", ";width:18px;height:18px"))
    return -1;
  for(fi = 0; fi < d->files; fi++)
    if(label_cell(out, d->file_label[d->flip ? d->files - 1 - fi : fi], ""))
      return -1;
  if(label_cell(out, "", ";width:18px") || base_buf_puts(out, "</tr>\n"))
    return -1;
  for(ri = 0; ri < d->ranks; ri++) {
    r = d->flip ? ri : d->ranks - 1 - ri;
    /* the barrier lies under the row drawn above it */
    int wall_row = d->barrier > 0 && ri + 1 < d->ranks &&
                   (d->flip ? r + 1 == d->barrier : r == d->barrier);
    if(base_buf_puts(out, "<tr>") || label_cell(out, d->rank_label[r], ""))
      return -1;
    for(fi = 0; fi < d->files; fi++) {
      const struct ref_diag_cell *c;
      /* one of four literals, not an snprintf a cell */
      const char *width = ri == 0 ? (fi == 0 ? ";width:36px;height:36px" : ";width:36px")
                                  : (fi == 0 ? ";height:36px" : "");
      f = d->flip ? d->files - 1 - fi : fi;
      c = &d->cell[r][f];
      int wall = wall_row && f >= d->barrier_lo && f <= d->barrier_hi;
      if(!c->exists) {
        char st[64];
        snprintf(st, sizeof(st), "%s%s", width, wall ? ";border-bottom:4px solid #333" : "");
        if(base_buf_printf(out, "<td data-hole=\"%s%s\"%s%s%s></td>", d->file_label[f],
                          d->rank_label[r], *st ? " style=\"" : "", *st ? st + 1 : "",
                          *st ? "\"" : ""))
          return -1;
        continue;
      }
      if(base_buf_puts(out, "<td data-sq=\"") || base_buf_puts(out, d->file_label[f]) ||
         base_buf_puts(out, d->rank_label[r]) || base_buf_puts(out, "\"") ||
         (c->label[0] && (base_buf_puts(out, " data-n=\"") || base_buf_puts(out, c->label) ||
                          base_buf_puts(out, "\""))) ||
         (c->s.mark && base_buf_puts(out, " data-mark=\"1\"")) ||
         base_buf_puts(out, " style=\"background:") || base_buf_puts(out, square_colour(c)) ||
         base_buf_puts(out, width) || (c->s.n > 1 && base_buf_puts(out, ";font-size:16px")) ||
         (wall && base_buf_puts(out, ";border-bottom:4px solid #333")) || base_buf_puts(out, "\">"))
        return -1;
      if(c->s.n) {
        if(stack(out, &c->s, 0, 0))
          return -1;
      }
      else if(c->label[0] &&
              base_buf_printf(out, "<span style=\"font-size:10px;color:#e8d5b5\">%s</span>",
                             c->label))
        return -1;
      if(base_buf_puts(out, "</td>"))
        return -1;
    }
    if(label_cell(out, d->rank_label[r], "") || base_buf_puts(out, "</tr>\n"))
      return -1;
  }
  if(base_buf_puts(out, "<tr>") || label_cell(out, "", ";height:18px"))
    return -1;
  for(fi = 0; fi < d->files; fi++)
    if(label_cell(out, d->file_label[d->flip ? d->files - 1 - fi : fi], ""))
      return -1;
  return label_cell(out, "", "") || base_buf_puts(out, "</tr>\n</tbody></table>\n");
}

/* ---- 24-point boards ---- */

static int point_cell(struct base_buf *out, const struct ref_diagram *d, int reader_point,
                      int top)
{
  int i = d->flip ? 25 - reader_point : reader_point; /* absolute point number */
  const struct ref_diag_stack *s = &d->point[i - 1];
  const char *bg = s->mark ? "#cdd26a" : (reader_point % 2 ? "#c9a26b" : "#7d5230");
  /* the widths on the top row, the height on a row's first cell */
  if(base_buf_printf(out, "<td data-point=\"%d\"%s style=\"background:%s;vertical-align:%s;"
                         "padding:2px 0%s%s\">",
                    i, s->mark ? " data-mark=\"1\"" : "", bg, top ? "top" : "bottom",
                    top ? ";width:30px" : "",
                    reader_point == 13 || reader_point == 12 ? ";height:128px" : "") ||
     stack(out, s, !top, 1))
    return -1;
  return base_buf_puts(out, "</td>");
}

static int number_row(struct base_buf *out, int first, int step)
{
  int k;
  if(base_buf_puts(out, "<tr style=\"font-size:11px;line-height:1.4;color:#555\">"))
    return -1;
  for(k = 0; k < 12; k++) {
    if(k == 6 && base_buf_puts(out, "<td></td>"))
      return -1;
    if(base_buf_printf(out, "<td>%d</td>", first + step * k))
      return -1;
  }
  return base_buf_puts(out, "<td></td></tr>\n");
}

/* The bar and the off tray: the top row holds the far side's, the bottom
 * row the reader's. */
static int side_cell(struct base_buf *out, const struct ref_diag_stack *s, const char *what,
                     const char *word, int top, int colour)
{
  if(base_buf_printf(out, "<td data-%s=\"%d\" style=\"background:#5b3a1e;vertical-align:%s;"
                         "padding:2px 0%s\">",
                    what, colour, top ? "top" : "bottom", top ? ";width:34px" : "") ||
     (!top && s->n && stack(out, s, 1, 1)) ||
     base_buf_printf(out, "%s<small style=\"font-size:10px;color:#fff\">%s</small>%s",
                    top ? "" : "<br>", word, top ? "<br>" : "") ||
     (top && s->n && stack(out, s, 0, 1)))
    return -1;
  return base_buf_puts(out, "</td>");
}

static int points(struct base_buf *out, const struct ref_diagram *d, const char *dir)
{
  char bar[32], off[32];
  int k, near = d->flip ? 1 : 0; /* the reader's colour sits at the bottom */
  tpl_line(bar, sizeof(bar), dir, "phrases.txt", "diagram-bar", NULL, 0);
  tpl_line(off, sizeof(off), dir, "phrases.txt", "diagram-off", NULL, 0);
  if(base_buf_printf(out, "<table data-board=\"points\" "
                         "style=\"border-collapse:collapse;margin:0 0 8px;background:#e9d9b4;"
                         "border:6px solid #5b3a1e;%s;text-align:center;font-size:22px;"
                         "line-height:1;color:#000\">\n<tbody>",
                    FONT) ||
     number_row(out, 13, 1) || base_buf_puts(out, "<tr>"))
    return -1;
  for(k = 0; k < 12; k++) {
    if(k == 6 && side_cell(out, &d->bar[near], "bar", bar, 1, near))
      return -1;
    if(point_cell(out, d, 13 + k, 1))
      return -1;
  }
  if(side_cell(out, &d->off[1 - near], "off", off, 1, 1 - near) ||
     base_buf_puts(out, "</tr>\n<tr>"))
    return -1;
  for(k = 0; k < 12; k++) {
    if(k == 6 && side_cell(out, &d->bar[1 - near], "bar", bar, 0, 1 - near))
      return -1;
    if(point_cell(out, d, 12 - k, 0))
      return -1;
  }
  if(side_cell(out, &d->off[near], "off", off, 0, near) || base_buf_puts(out, "</tr>\n") ||
     number_row(out, 12, -1) || base_buf_puts(out, "</tbody></table>\n"))
    return -1;
  if(d->cube || d->ndice) {
    char line[120], value[16], dice[32] = "";
    struct tpl_var v[2] = {{"value", value}, {"dice", dice}};
    int i;
    snprintf(value, sizeof(value), "%d", d->cube);
    for(i = 0; i < d->ndice && i < 4; i++)
      snprintf(dice + strlen(dice), sizeof(dice) - strlen(dice), "%s%d", i ? " " : "",
               d->dice[i]);
    if(base_buf_printf(out, "<p data-cube=\"%d\" style=\"margin:0 0 6px;%s\">", d->cube, FONT))
      return -1;
    if(d->cube) {
      tpl_line(line, sizeof(line), dir, "phrases.txt",
               d->cube_owner < 0 ? "diagram-cube" : d->cube_owner ? "diagram-cube-dark"
                                                                  : "diagram-cube-light",
               v, 1);
      if(ref_html_escape(out, line, strlen(line)))
        return -1;
    }
    if(d->ndice) {
      tpl_line(line, sizeof(line), dir, "phrases.txt", "diagram-dice", v, 2);
      if(base_buf_puts(out, d->cube ? " &nbsp; " : "") || ref_html_escape(out, line, strlen(line)))
        return -1;
    }
    if(base_buf_puts(out, "</p>\n"))
      return -1;
  }
  return 0;
}

/* Below a grid: what stands off it (the Chessgammon bar and borne-off
 * pieces, Backgammon Chess's jail), one line a colour, the reader's last. */
static int reserves(struct base_buf *out, const struct ref_diagram *d, const char *dir,
                    int jail_only)
{
  int k;
  for(k = 0; k < 2; k++) {
    int colour = d->flip ? k : 1 - k;
    char line[160], num[16], of[16];
    struct tpl_var v[3] = {{"count", num}, {"of", of}, {"side", NULL}};
    int any = (!jail_only && (d->bar[colour].n || d->off[colour].n || d->off_of)) ||
              d->jail[colour];
    if(!any)
      continue;
    tpl_line(line, sizeof(line), dir, "phrases.txt", colour ? "diagram-dark" : "diagram-light",
             NULL, 0);
    if(base_buf_printf(out, "<p data-reserve=\"%d\" style=\"margin:0 0 6px;%s\">", colour,
                      FONT) ||
       ref_html_escape(out, line, strlen(line)) || base_buf_puts(out, " "))
      return -1;
    if(!jail_only && (d->bar[colour].n || d->off_of)) {
      tpl_line(line, sizeof(line), dir, "phrases.txt", "diagram-bar", NULL, 0);
      if(ref_html_escape(out, line, strlen(line)) || base_buf_puts(out, ": ") ||
         (d->bar[colour].n ? stack(out, &d->bar[colour], 0, 0) : base_buf_puts(out, "-")) ||
         base_buf_puts(out, " &nbsp; "))
        return -1;
    }
    if(!jail_only && (d->off_of || d->off[colour].n)) {
      snprintf(num, sizeof(num), "%u", d->off[colour].n);
      snprintf(of, sizeof(of), "%d", d->off_of);
      tpl_line(line, sizeof(line), dir, "phrases.txt", d->off_of ? "diagram-off-of" : "diagram-off-n",
               v, 2);
      if(ref_html_escape(out, line, strlen(line)) || base_buf_puts(out, " &nbsp; "))
        return -1;
    }
    if(d->jail[colour]) {
      snprintf(num, sizeof(num), "%d", d->jail[colour]);
      tpl_line(line, sizeof(line), dir, "phrases.txt", "diagram-jail", v, 1);
      if(ref_html_escape(out, line, strlen(line)))
        return -1;
    }
    if(base_buf_puts(out, "</p>\n"))
      return -1;
  }
  return 0;
}

int ref_html_board(struct base_buf *out, const struct ref_diagram *d, const char *dir)
{
  if(d->has_grid && (d->files < 1 || d->files > REF_DIAG_FILES || d->ranks < 1 ||
                     d->ranks > REF_DIAG_RANKS))
    return -1;
  if(base_buf_puts(out, "<div data-diagram=\"1\" style=\"margin:0 0 12px\">\n"))
    return -1;
  /* Backgammon Chess: under its chess board only the jail; its bar and
   * borne-off checkers are the backgammon board's */
  if(d->has_grid && (grid(out, d) || reserves(out, d, dir, d->has_points)))
    return -1;
  /* the lettered pieces named (the game's legend, DA-4) */
  for(int c = 0; c < 2; c++)
    if(d->legend[c][0] &&
       (base_buf_puts(out, "<p data-legend=\"1\" style=\"margin:0 0 4px;font-size:13px\">") ||
        ref_html_escape(out, d->legend[c], strnlen(d->legend[c], sizeof(d->legend[c]))) ||
        base_buf_puts(out, "</p>\n")))
      return -1;
  if(d->has_points && points(out, d, dir))
    return -1;
  return base_buf_puts(out, "</div>\n");
}
