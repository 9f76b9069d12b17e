/*
 * chess_notation.c: reading chess-like moves (chess_notation_int.h):
 * rules-spec sections 1.1-1.4, 2.4, 5.1, 6.5, 8.4. The input is cleaned,
 * read into every pattern it can mean (a capital B may be the bishop or
 * the b-file), and the patterns are matched against the game's legal
 * moves. Nothing is guessed: no match or several matches is an error that
 * names the reason and offers the nearest legal moves.
 */
#include "chess_notation_int.h"

#include "armies_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum match { MATCH_NONE, MATCH_FULL, MATCH_PROMO_MISSING, MATCH_NOT_CAPTURE };
enum shape { SHAPE_OK, SHAPE_BAD, SHAPE_PROMO };

static const char piece_letters[] = "PNBRQK";

/* The armies' letters are armies.c's table (DA-4): one table. */
char ref_cn_letter(int t)
{
  if(t >= 0 && t < REF_CN_ARMY_FIRST)
    return piece_letters[t];
  return t >= REF_CN_ARMY_FIRST && t < REF_CN_TYPES ? ref_army_kind_letter(t) : '?';
}

static bool is_space(int c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

static bool is_digit(int c)
{
  return c >= '0' && c <= '9';
}

static int lower(int c)
{
  return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c;
}

void ref_cn_square(int file, int rank, char out[3])
{
  out[0] = (char)('a' + file);
  out[1] = (char)('0' + rank);
  out[2] = '\0';
}

int ref_cn_write_betza(const struct ref_cn_move *m, bool computer, bool letters, char *buf,
                       size_t cap)
{
  char out[24], a[3], b[3], l = ref_cn_letter(m->piece >= 0 && m->piece < REF_CN_TYPES ? m->piece : 0);
  const char *lead = m->piece == REF_CN_PAWN ? "" : (char[2]){l, '\0'};
  const char *clead = letters ? (char[2]){l, '\0'} : "";

  ref_cn_square(m->ff, m->fr, a);
  ref_cn_square(m->tf, m->tr, b);
  switch(m->kind) {
  case REF_CN_DROP:
    if(computer)
      snprintf(out, sizeof(out), "%c@%s", l, b);
    else
      snprintf(out, sizeof(out), "%s%c0-%s", lead, b[0], b);
    break;
  case REF_CN_OFF:
    snprintf(out, sizeof(out), computer ? "%s%s%c9" : "%s%s-%c9", computer ? clead : lead, a,
             b[0]);
    break;
  case REF_CN_PASS:
    snprintf(out, sizeof(out), "%s", computer ? "0000" : "--");
    break;
  default:
    if(computer)
      snprintf(out, sizeof(out), "%s%s%s", clead, a, b);
    else
      snprintf(out, sizeof(out), "%s%s%c%s", lead, a, m->capture ? ':' : '-', b);
    break;
  }
  if(strlen(out) + 1 > cap)
    return REF_EINVAL;
  memcpy(buf, out, strlen(out) + 1);
  return REF_OK;
}

/* ---------------------------------------------------------------------- */
/* Cleaning (section 1.1)                                                  */
/* ---------------------------------------------------------------------- */

/* The chess symbols U+2654-U+265F (UTF-8 E2 99 94-9F), white and black
 * alike: a figurine shows a piece, whoever writes it. */
int ref_cn_figurine(const char *text, char *letter)
{
  static const char letters[] = "KQRBNPKQRBNP";
  const unsigned char *p = (const unsigned char *)text;
  if(p[0] != 0xE2 || p[1] != 0x99 || p[2] < 0x94 || p[2] > 0x9F)
    return 0;
  *letter = letters[p[2] - 0x94];
  /* U+FE0F after it (emoji presentation) goes with it. */
  return !memcmp(text + 3, "\xEF\xB8\x8F", 3) ? 6 : 3;
}

static bool ends_with_ci(const unsigned char *b, const unsigned char *e, const char *suffix)
{
  size_t n = strlen(suffix), i;
  if((size_t)(e - b) < n)
    return false;
  for(i = 0; i < n; i++)
    if(lower(e[(ptrdiff_t)i - (ptrdiff_t)n]) != suffix[i])
      return false;
  return true;
}

bool ref_cn_clean(const char *text, char *out, size_t cap, bool *figurine)
{
  size_t n = strlen(text), k = 0, len, i;
  unsigned char *buf = malloc(n + 1);
  bool *fig = malloc(n + 1), changed = true, ok = false;
  const unsigned char *b, *e, *q;

  *figurine = false;
  if(!buf || !fig)
    goto out;
  /* Figurines become their letters, a variation selector after one
   * (U+FE0F, emoji presentation) goes with it. */
  for(i = 0; i < n;) {
    char f;
    int bytes = ref_cn_figurine(text + i, &f);
    if(bytes) {
      fig[k] = true;
      buf[k++] = (unsigned char)f;
      i += (size_t)bytes;
      continue;
    }
    fig[k] = false;
    buf[k++] = (unsigned char)text[i++];
  }
  buf[k] = '\0';
  b = buf;
  e = buf + k;
  while(changed) {
    changed = false;
    while(b < e && (is_space(*b) || *b >= 0x80 || strchr("\"'`.,;:([{<", *b))) {
      b++;
      changed = true;
    }
    q = b;
    while(q < e && is_digit(*q))
      q++;
    if(q > b && q < e && *q == '.') {
      b = q;
      changed = true;
    }
  }
  changed = true;
  while(changed && e > b) {
    int c = e[-1];
    if(is_space(c) || c >= 0x80 || strchr("!?+#.,;:\"'`]}>", c))
      e--;
    else if(c == ')' && !memchr(b, '(', (size_t)(e - b)))
      e--;
    else if(ends_with_ci(b, e, "e.p") && (e - b == 3 || is_digit(e[-4]) || is_space(e[-4])))
      e -= 3;
    else if(ends_with_ci(b, e, "ep") && e - b > 2 && (is_digit(e[-3]) || is_space(e[-3])))
      e -= 2;
    else if(ends_with_ci(b, e, "ch") && e - b > 2 &&
            (is_digit(e[-3]) || (e[-3] && strchr("QRBNqrbn)", e[-3]))))
      e -= 2;
    else
      changed = false;
  }
  len = (size_t)(e - b);
  if(!len || len + 1 > cap)
    goto out;
  for(q = b; q < e; q++)
    if(is_space(*q))
      goto out;
  memcpy(out, b, len);
  out[len] = '\0';
  *figurine = fig[b - buf];
  ok = true;
out:
  free(buf);
  free(fig);
  return ok;
}

int ref_cn_castle_kind(const char *s)
{
  int os = 0;
  for(; *s; s++) {
    if(*s == 'O' || *s == 'o' || *s == '0')
      os++;
    else if(*s != '-')
      return 0;
  }
  return os == 2 ? 1 : os == 3 ? 2 : 0;
}

/* ---------------------------------------------------------------------- */
/* Reading (sections 1.2-1.3, 2.4, 5.1, 8.4)                               */
/* ---------------------------------------------------------------------- */

static int file_of(const struct ref_cn_dialect *d, int c)
{
  c = lower(c);
  return c >= 'a' && c < 'a' + d->files ? c - 'a' : -1;
}

/* A rank digit from lo to hi, or -1. */
static int rank_of(int c, int lo, int hi)
{
  return is_digit(c) && c - '0' >= lo && c - '0' <= hi ? c - '0' : -1;
}

/*
 * The piece type letter c names (either case), or -1. Chess's dialects
 * (own 0) know P N B R Q K only. DA-9: with the mover's army in d->own,
 * a letter of that army (and P, K) is its piece; another army's letter
 * that is also a file is the file only, one that is no file is read as
 * that piece, to be refused by the game's explain with its reason.
 */
static int piece_of(const struct ref_cn_dialect *d, int c)
{
  int u = c >= 'a' && c <= 'z' ? c - 'a' + 'A' : c, t;

  for(t = 0; c && t < REF_CN_TYPES; t++)
    if(ref_cn_letter(t) == u)
      break;
  if(!c || t == REF_CN_TYPES)
    return -1;
  if(!d->own)
    return t < REF_CN_ARMY_FIRST ? t : -1;
  if(t == REF_CN_PAWN || t == REF_CN_KING || (d->own & (1u << t)))
    return t;
  return file_of(d, c) >= 0 ? -1 : t;
}

/* A promotion piece: any type but pawn and king (chess: N B R Q; the
 * armies: the mover's four, DA-5, the others refused by the game). */
static int promo_of(const struct ref_cn_dialect *d, int c)
{
  int t = piece_of(d, c);
  return t > REF_CN_PAWN && t != REF_CN_KING ? t : -1;
}

static void pattern_clear(struct ref_cn_pattern *pt)
{
  memset(pt, 0, sizeof(*pt));
  pt->piece = REF_CN_UNSET;
  pt->ff = pt->fr = pt->tf = pt->tr = pt->promo = -1;
}

/*
 * The rest of a reading, s[i..]: [origin file] [origin rank] [- x : *]
 * destination [promotion]; in Chessgammon's notation also rank 0 (the
 * bar) and `@`, `*` for bringing in, rank 9 or `off` for bearing off, and
 * a promotion is recognised only to be refused (section 5.2 rule 2).
 */
static enum shape read_rest(const struct ref_cn_dialect *d, const char *s, size_t i,
                            struct ref_cn_pattern *pt)
{
  size_t n = strlen(s), end = n;
  int nsep = 0, lo = d->chessgammon ? 0 : 1, top = d->chessgammon ? d->ranks + 1 : d->ranks;

  if(d->chessgammon) {
    if((end >= i + 4 && s[end - 1] == ')' && s[end - 3] == '(') ||
       (end >= i + 3 && promo_of(d, s[end - 1]) >= 0 &&
        (s[end - 2] == '=' || s[end - 2] == '/' || rank_of(s[end - 2], 1, d->ranks) >= 0)))
      return SHAPE_PROMO;
  }
  else if(end >= i + 5 && s[end - 1] == ')' && s[end - 3] == '(' && promo_of(d, s[end - 2]) >= 0) {
    /* Promotion: =Q, /Q, (Q), or the bare letter after the rank (2.4). A
     * trailing = or / alone says "promote" without saying to what. */
    pt->promo = promo_of(d, s[end - 2]);
    end -= 3;
  }
  else if(end >= i + 3 && promo_of(d, s[end - 1]) >= 0 &&
          (s[end - 2] == '=' || s[end - 2] == '/' || rank_of(s[end - 2], 1, d->ranks) >= 0)) {
    pt->promo = promo_of(d, s[end - 1]);
    end--;
    if(s[end - 1] == '=' || s[end - 1] == '/')
      end--;
  }
  else if(end >= i + 3 && (s[end - 1] == '=' || s[end - 1] == '/')) {
    end--;
  }

  if(d->chessgammon && end >= i + 3 && ends_with_ci((const unsigned char *)s,
                                                    (const unsigned char *)s + end, "off")) {
    pt->tr = d->ranks + 1; /* CG-2: "...-off", the file inferred */
    end -= 3;
  }
  else {
    if(end < i + 2 || file_of(d, s[end - 2]) < 0 || rank_of(s[end - 1], 1, top) < 0)
      return SHAPE_BAD;
    pt->tf = file_of(d, s[end - 2]);
    pt->tr = rank_of(s[end - 1], 1, top);
    end -= 2;
  }
  while(end > i && strchr(d->chessgammon ? "-xX:*@" : "-xX:*", s[end - 1])) {
    if(s[end - 1] == '@')
      pt->drop = true;
    else if(s[end - 1] == '*' && d->chessgammon)
      pt->star = true;
    else if(s[end - 1] != '-')
      pt->capture = true;
    end--;
    if(++nsep > 2)
      return SHAPE_BAD;
  }
  if(end == i && (pt->drop || pt->star) && pt->piece == REF_CN_UNSET)
    pt->piece = REF_CN_PAWN; /* "@h7" */
  if(end - i == 2) {
    pt->ff = file_of(d, s[i]);
    pt->fr = rank_of(s[i + 1], lo, d->ranks);
    if(pt->ff < 0 || pt->fr < 0)
      return SHAPE_BAD;
  }
  else if(end - i == 1) {
    pt->ff = file_of(d, s[i]);
    if(pt->ff < 0) {
      pt->fr = rank_of(s[i], lo, d->ranks);
      if(pt->fr < 0)
        return SHAPE_BAD;
    }
  }
  else if(end != i) {
    return SHAPE_BAD;
  }
  if(pt->star) {
    /* "Q*d1" is a bring-in (5.1), "Qh4*h7" a capture (1.2). */
    if(end == i)
      pt->drop = true;
    pt->capture = true;
  }
  if(pt->fr == 0)
    pt->drop = true;
  if(pt->drop && (pt->tr == d->ranks + 1 || pt->fr > 0))
    return SHAPE_BAD;
  if(pt->piece == REF_CN_UNSET)
    pt->piece = pt->ff >= 0 && pt->fr > 0 ? REF_CN_ANY : REF_CN_PAWN;
  return SHAPE_OK;
}

/*
 * Every reading of cleaned text s (section 1.3): a leading letter is a
 * piece (upper case always, lower case where it is no file), "Kt"/"Kn" a
 * knight, or, with no letter read, the text starts at the origin or
 * destination. A capital that is both a piece letter and a file (B; K and
 * N on Back-to-Back's files a-n) is read both ways when the text has no
 * lower case letter, and as the piece when a figurine showed it. BB-D5:
 * "Kn4-m5" is the king where n is a file; "Kn" names the knight only when
 * no king move reads. OUT: pats (room for 3). Returns how many read, or -1
 * for a promotion in a game without one.
 */
static int readings(const struct ref_cn_dialect *d, const char *s, bool figurine,
                    struct ref_cn_pattern *pats)
{
  int c = (unsigned char)s[0], pc = piece_of(d, c), fl = file_of(d, c), npat = 0, k;
  bool up = c >= 'A' && c <= 'Z', caps = true, king_read = false, promo = false;
  enum shape sh;

  for(k = 0; s[k]; k++)
    if(s[k] >= 'a' && s[k] <= 'z')
      caps = false;
  for(k = 0; k < 3; k++) {
    int step = d->files > 8 ? (k + 2) % 3 : k; /* Back-to-Back: the letterless reading first */
    struct ref_cn_pattern *pt = &pats[npat];
    size_t i;
    pattern_clear(pt);
    if(step == 0) { /* the letter is a piece */
      if(pc < 0 || (!up && fl >= 0))
        continue;
      pt->piece = pc;
      i = 1;
    }
    else if(step == 1) { /* Kt, Kn: the knight */
      if(king_read || !(c == 'K' || (c == 'k' && fl < 0)) || !s[1] || !strchr("tTnN", s[1]))
        continue;
      pt->piece = REF_CN_KNIGHT;
      i = 2;
    }
    else { /* no letter */
      if(pc >= 0 && (figurine || (up && fl < 0) || (!up && fl < 0) || (up && !caps)))
        continue;
      i = 0;
    }
    sh = read_rest(d, s, i, pt);
    if(sh == SHAPE_PROMO && npat == 0)
      promo = true;
    if(sh != SHAPE_OK)
      continue;
    if(step == 0 && pc == REF_CN_KING)
      king_read = true;
    npat++;
  }
  return npat ? npat : promo ? -1 : 0;
}

/* ---------------------------------------------------------------------- */
/* Matching                                                                */
/* ---------------------------------------------------------------------- */

/* How legal move m fits pattern pt: fully, or short only of the promotion
 * piece or of being a capture (so the error can say exactly that). */
static enum match match(const struct ref_cn_pattern *pt, const struct ref_cn_move *m)
{
  if(m->kind == REF_CN_PASS)
    return MATCH_NONE;
  if(m->kind == REF_CN_CASTLE) {
    if(pt->castle)
      return m->castle == pt->castle ? MATCH_FULL : MATCH_NONE;
    /* The king's squares name castling too (Ke1-g1, e1g1; the seed of
     * Back-to-Back writes H1-H3), unless they are also a king's step. */
    if(!m->by_squares)
      return MATCH_NONE;
  }
  else if(pt->castle) {
    return MATCH_NONE;
  }
  if(m->kind == REF_CN_DROP) {
    if(!pt->drop || (pt->piece >= 0 && m->piece != pt->piece) || pt->tr != m->tr ||
       pt->tf != m->tf || (pt->ff >= 0 && pt->ff != m->tf))
      return MATCH_NONE;
    return pt->capture && !pt->star ? MATCH_NOT_CAPTURE : MATCH_FULL;
  }
  if((pt->drop && !pt->star) || pt->fr == 0)
    return MATCH_NONE;
  if(m->kind == REF_CN_OFF) {
    if(pt->tr != m->tr || (pt->tf >= 0 && pt->tf != m->tf))
      return MATCH_NONE;
  }
  else if(pt->tr != m->tr || pt->tf != m->tf) {
    return MATCH_NONE;
  }
  if(pt->piece >= 0 && m->piece != pt->piece)
    return MATCH_NONE;
  if((pt->ff >= 0 && m->ff != pt->ff) || (pt->fr > 0 && m->fr != pt->fr))
    return MATCH_NONE;
  /* SAN names a pawn capture by its file: a bare "e5" is the step only. */
  if(pt->piece == REF_CN_PAWN && pt->ff < 0 && !pt->capture && m->capture)
    return MATCH_NONE;
  if(m->promo >= 0) {
    if(pt->promo < 0)
      return MATCH_PROMO_MISSING; /* 2.4: no default queen */
    if(m->promo != pt->promo)
      return MATCH_NONE;
  }
  else if(pt->promo >= 0) {
    return MATCH_NONE;
  }
  if(pt->capture && !m->capture)
    return pt->star && pt->drop ? MATCH_NONE : MATCH_NOT_CAPTURE;
  return MATCH_FULL;
}

bool ref_cn_fits(const struct ref_cn_pattern *pt, const struct ref_cn_move *m, bool fully)
{
  enum match k = match(pt, m);
  return fully ? k == MATCH_FULL : k != MATCH_NONE;
}

/* ---------------------------------------------------------------------- */
/* Suggestions and refusals (section 1.4)                                  */
/* ---------------------------------------------------------------------- */

struct suggestion {
  int score;
  char text[REF_NOTATION_MAX];
};

static int cmp_suggestion(const void *a, const void *b)
{
  const struct suggestion *x = a, *y = b;
  if(x->score != y->score)
    return y->score - x->score;
  return strcmp(x->text, y->text);
}

/* How near legal move m is to what was read: the destination 4, the
 * origin 2, the piece 1. */
static int nearness(const struct ref_cn_pattern *pt, const struct ref_cn_move *m)
{
  int score = 0;
  if(pt->castle && m->kind == REF_CN_CASTLE)
    score += 4;
  if(m->kind == REF_CN_OFF ? pt->tr == m->tr
                           : m->kind != REF_CN_PASS && m->tf == pt->tf && m->tr == pt->tr)
    score += 4;
  if(m->kind == REF_CN_DROP ? pt->drop
                            : (pt->ff >= 0 || pt->fr > 0) && (pt->ff < 0 || m->ff == pt->ff) &&
                                (pt->fr <= 0 || m->fr == pt->fr))
    score += 2;
  if(pt->piece >= 0 && m->piece == pt->piece)
    score += 1;
  return score;
}

/*
 * err->suggest: with `only`, exactly those legal moves; otherwise the
 * legal moves nearest to pt, best first, or all of them when there are at
 * most REF_SUGGEST_MAX (a player with few choices sees them all). Ties in
 * the canonical text's order.
 */
static void suggest(const struct ref_cn_game *g, const struct ref_cn_pattern *pt,
                    const int *only, int nonly, struct ref_err *err)
{
  struct suggestion *sg;
  int i, n = only ? nonly : g->n, kept = 0;

  if(!err)
    return;
  sg = calloc((size_t)(n ? n : 1), sizeof(*sg));
  if(!sg)
    return;
  for(i = 0; i < n; i++) {
    int k = only ? only[i] : i;
    sg[i].score = pt && !only ? nearness(pt, &g->v[k]) : 0;
    g->r->format(g->ctx, g->moves[k], sg[i].text, sizeof(sg[i].text));
  }
  qsort(sg, (size_t)n, sizeof(sg[0]), cmp_suggestion);
  for(i = 0; i < n && kept < REF_SUGGEST_MAX; i++) {
    /* Many moves: only related ones, unless nothing relates at all. */
    if(!only && n > REF_SUGGEST_MAX && sg[i].score == 0 && sg[0].score > 0)
      break;
    memcpy(err->suggest[kept++], sg[i].text, sizeof(sg[i].text));
  }
  err->nsuggest = kept;
  free(sg);
}

int ref_cn_refuse(const struct ref_cn_game *g, enum ref_code code, const char *reason,
                  const char *detail, const struct ref_cn_pattern *pt, struct ref_err *err)
{
  ref_err_set(err, code, reason, detail);
  suggest(g, pt, NULL, 0, err);
  return code;
}

/* Best-effort reading of unreadable text for suggestions: its last square
 * is taken as the destination, an earlier one as the origin, a leading
 * capital as the piece. */
static void hint(const struct ref_cn_dialect *d, const char *text, struct ref_cn_pattern *pt)
{
  const char *s;

  pattern_clear(pt);
  pt->piece = REF_CN_ANY;
  for(s = text; *s && s[1]; s++)
    if(file_of(d, *s) >= 0 && rank_of(s[1], 1, d->ranks) >= 0) {
      pt->ff = pt->tf;
      pt->fr = pt->tr;
      pt->tf = file_of(d, *s);
      pt->tr = s[1] - '0';
    }
  while(*text && is_space(*text))
    text++;
  if(*text >= 'A' && *text <= 'Z' && piece_of(d, *text) > REF_CN_PAWN)
    pt->piece = piece_of(d, *text);
}

static int ambiguous(const struct ref_cn_game *g, const int *found, int nfound,
                     struct ref_err *err)
{
  struct suggestion *sg = calloc((size_t)nfound, sizeof(*sg));
  char detail[96] = "";
  size_t len = 0;
  int i;

  for(i = 0; sg && i < nfound; i++)
    g->r->format(g->ctx, g->moves[found[i]], sg[i].text, sizeof(sg[i].text));
  if(sg)
    qsort(sg, (size_t)nfound, sizeof(sg[0]), cmp_suggestion);
  for(i = 0; sg && i < nfound; i++)
    if(len + strlen(sg[i].text) + 3 < sizeof(detail))
      len += (size_t)snprintf(detail + len, sizeof(detail) - len, "%s%s", i ? ", " : "",
                              sg[i].text);
  free(sg);
  ref_err_set(err, REF_EAMBIGUOUS, "ambiguous", detail);
  suggest(g, NULL, found, nfound, err);
  return REF_EAMBIGUOUS;
}

/* 2.4: no default queen; the move is named without its piece, as the
 * canonical form would write it (exd8, e7-e8). */
static int promotion_missing(const struct ref_cn_game *g, const struct ref_cn_move *m,
                             const struct ref_cn_pattern *pt, struct ref_err *err)
{
  char detail[16], from[3], to[3];
  ref_cn_square(m->ff, m->fr, from);
  ref_cn_square(m->tf, m->tr, to);
  if(g->r->d->own) {
    /* DA-5: the example names a piece of the mover's own army. */
    snprintf(detail, sizeof(detail), "%s%s=%c", m->ff != m->tf ? (char[3]){from[0], 'x', 0} : "",
             to, ref_cn_letter(m->promo));
    return ref_cn_refuse(g, REF_EILLEGAL, "da-promotion-piece-missing", detail, pt, err);
  }
  if(g->r->d->long_form)
    snprintf(detail, sizeof(detail), "%s%c%s", from, m->capture ? 'x' : '-', to);
  else if(m->ff != m->tf)
    snprintf(detail, sizeof(detail), "%cx%s", from[0], to);
  else
    snprintf(detail, sizeof(detail), "%s", to);
  return ref_cn_refuse(g, REF_EILLEGAL, "promotion-piece-missing", detail, pt, err);
}

static bool is_pass_word(const char *s)
{
  char low[8];
  size_t i;
  for(i = 0; s[i] && i < sizeof(low) - 1; i++)
    low[i] = (char)lower(s[i]);
  low[i] = '\0';
  return !s[i] && (!strcmp(low, "--") || !strcmp(low, "pass") || !strcmp(low, "0000"));
}

/* DA-9: when every reading names a piece (or promotes to one) the mover's
 * army does not have, the refusal says so: REF_EILLEGAL, else REF_OK. */
static int not_in_army(const struct ref_cn_game *g, const struct ref_cn_pattern *pats, int npat,
                       struct ref_err *err)
{
  uint32_t own = g->r->d->own;
  int k, t = -1;
  char letter[2] = {0, 0};

  if(!own)
    return REF_OK;
  for(k = 0; k < npat; k++) {
    if(pats[k].piece >= 0 && !(own & (1u << pats[k].piece)))
      t = pats[k].piece;
    else if(pats[k].promo >= 0 && !(own & (1u << pats[k].promo)))
      t = pats[k].promo;
    else
      return REF_OK;
  }
  letter[0] = ref_cn_letter(t);
  return ref_cn_refuse(g, REF_EILLEGAL, "da-not-in-army", letter, &pats[0], err);
}

/* The move text reads as among g's: REF_OK and *pick, or the refusal. */
static int read_move(const struct ref_cn_game *g, const char *text, int *pick,
                     struct ref_err *err)
{
  const struct ref_cn_dialect *d = g->r->d;
  struct ref_cn_pattern pats[3], hp;
  char in[32];
  int *found, nfound = 0, promo_missing = -1, not_capture = -1, npat, i, k, castle, rc;
  bool figurine;

  if(!text || !ref_cn_clean(text, in, sizeof(in), &figurine)) {
    hint(d, text ? text : "", &hp);
    return ref_cn_refuse(g, REF_EPARSE, "unreadable", NULL, d->chessgammon ? NULL : &hp, err);
  }
  if(d->chessgammon && is_pass_word(in)) {
    /* Rule 8: a pass only when there is no legal move. */
    for(i = 0; i < g->n; i++)
      if(g->v[i].kind == REF_CN_PASS) {
        *pick = i;
        return REF_OK;
      }
    return ref_cn_refuse(g, REF_EILLEGAL, "cg-cannot-pass", NULL, NULL, err);
  }
  if(d->one_move && strchr(in, ','))
    return ref_cn_refuse(g, REF_EILLEGAL, d->one_move, NULL, NULL, err);
  castle = ref_cn_castle_kind(in);
  if(castle && d->chessgammon)
    return ref_cn_refuse(g, REF_EILLEGAL, "cg-no-castling", NULL, NULL, err); /* 5.2 rule 2 */
  if(castle) {
    pattern_clear(&pats[0]);
    pats[0].castle = castle;
    pats[0].piece = REF_CN_KING;
    npat = 1;
  }
  else {
    npat = readings(d, in, figurine, pats);
  }
  if(npat < 0)
    return ref_cn_refuse(g, REF_EILLEGAL, "cg-no-promotion", NULL, NULL, err); /* 5.2 rule 2 */
  if(!npat) {
    hint(d, in, &hp);
    return ref_cn_refuse(g, REF_EPARSE, "unreadable", in, d->chessgammon ? NULL : &hp, err);
  }

  found = malloc((size_t)(g->n ? g->n : 1) * sizeof(*found));
  if(!found)
    return REF_ENOMEM;
  for(i = 0; i < g->n; i++) {
    bool full = false;
    for(k = 0; k < npat; k++) {
      enum match m = match(&pats[k], &g->v[i]);
      if(m == MATCH_FULL)
        full = true;
      else if(m == MATCH_PROMO_MISSING && promo_missing < 0)
        promo_missing = i;
      else if(m == MATCH_NOT_CAPTURE && not_capture < 0)
        not_capture = i;
    }
    if(full)
      found[nfound++] = i;
  }
  if(nfound > 1 && d->letterless_pawn && npat == 1 && pats[0].piece == REF_CN_ANY) {
    /* "b7-b6" out of a stack holding a pawn and a rook: without a letter
     * it is the pawn, as the canonical form writes pawns (stacks make the
     * letterless long form of chess ambiguous). */
    int pawns = 0, pawn = -1;
    for(i = 0; i < nfound; i++)
      if(g->v[found[i]].piece == REF_CN_PAWN) {
        pawn = found[i];
        pawns++;
      }
    if(pawns == 1) {
      found[0] = pawn;
      nfound = 1;
    }
  }
  if(nfound == 1) {
    *pick = found[0];
    rc = REF_OK;
  }
  else if(nfound > 1) {
    rc = ambiguous(g, found, nfound, err);
  }
  else if((rc = not_in_army(g, pats, npat, err)) != REF_OK) {
    /* DA-9: a piece (or promotion piece) of another army, named. */
  }
  else if(promo_missing >= 0) {
    rc = promotion_missing(g, &g->v[promo_missing], &pats[0], err);
  }
  else if(not_capture >= 0) {
    char sq[3];
    ref_cn_square(g->v[not_capture].tf, g->v[not_capture].tr, sq);
    rc = ref_cn_refuse(g, REF_EILLEGAL, "not-a-capture", sq, &pats[0], err);
  }
  else if(g->r->explain) {
    rc = g->r->explain(g, pats, npat, in, err);
  }
  else {
    rc = ref_cn_refuse(g, REF_EILLEGAL, "no-such-move", in, &pats[0], err);
  }
  free(found);
  return rc;
}

int ref_cn_parse(const struct ref_cn_rules *r, const void *ctx, bool over, const uint32_t *moves,
                 int n, const char *text, struct ref_move *out, struct ref_err *err)
{
  struct ref_cn_move *v;
  struct ref_cn_game g = {r, ctx, moves, NULL, n};
  int i, pick = 0, rc;

  if(over) {
    ref_err_set(err, REF_EPHASE, "game-over", NULL);
    return REF_EPHASE;
  }
  v = malloc((size_t)(n ? n : 1) * sizeof(*v));
  if(!v)
    return REF_ENOMEM;
  for(i = 0; i < n; i++)
    r->describe(ctx, moves[i], &v[i]);
  g.v = v;
  rc = read_move(&g, text, &pick, err);
  if(rc == REF_OK) {
    memset(out, 0, sizeof(*out));
    out->w[0] = moves[pick];
  }
  free(v);
  return rc;
}
