/*
 * rules_fuzz.c: the game table and the property checks of the rules fuzz
 * targets (rules_fuzz.h).
 *
 * Every check here is something the service relies on when a position or a
 * move comes from a mail: the rules' own invariant checker, a position
 * string that fits the store and decodes back to itself (the stored
 * position is what `tabula check` compares a replay with), a board that
 * fits the reply, a canonical move text that fits the journal and reads
 * back as the same move (a game is its journal replayed), reason keys that
 * templates/reasons.txt words (else a player reads the bare key).
 */
#include "rules_fuzz.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define APPLY_SAMPLE 64 /* legal moves formatted, parsed back and applied per position */

static struct fz_game games[] = {
  {"chess", "fen=", false, NULL, 0, 0},
  {"checkers", "fen=", false, NULL, 0, 0},
  {"backgammon", NULL, false, NULL, 0, 0},
  {"bgchess", "pos=", true, NULL, 0, 0},
  {"lagbgchess", "pos=", true, NULL, 0, 0},
  {"backtoback", "fen=", false, NULL, 0, 0},
  {"tableschess", "fen=", false, NULL, 0, 0},
  {"chessgammon", "fen=", false, NULL, 0, 0},
  {"chessgammon4x8", "fen=", false, NULL, 0, 0},
  {"doublemove", "fen=", false, NULL, 0, 0},
  {"racingkings", "fen=", false, NULL, 0, 0},
  {"bodlaender", "fen=", false, NULL, 0, 0},
  {"cwda", "fen=", false, NULL, 0, 0},
};
#define NGAMES (sizeof(games) / sizeof(games[0]))

static const char *target_name = "fuzz";
static struct fz_game *pinned;
static char **reasons; /* the keys worded in templates/reasons.txt, sorted */
static size_t nreasons;
static const uint8_t *cur_data;
static size_t cur_size;

static void print_counts(void)
{
  size_t i;
  for(i = 0; i < NGAMES; i++)
    if(games[i].runs)
      fprintf(stderr, "%s: %-15s %10ld inputs %10ld reached a position or move\n", target_name,
              games[i].name, games[i].runs, games[i].accepted);
}

static int cmp_str(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The keys of templates/reasons.txt ("key = text" lines), sorted. */
static void load_reasons(void)
{
  const char *path = TABULA_SOURCE_DIR "/templates/reasons.txt";
  FILE *f = fopen(path, "rb");
  size_t cap = 0;
  char line[4096];

  if(!f) {
    fprintf(stderr, "%s: cannot read %s\n", target_name, path);
    exit(2);
  }
  while(fgets(line, sizeof(line), f)) {
    char *eq = strstr(line, " = ");
    if(line[0] == '#' || !eq)
      continue;
    *eq = '\0';
    if(nreasons == cap) {
      char **v = realloc(reasons, (cap = cap ? cap * 2 : 256) * sizeof(*v));
      if(!v)
        abort();
      reasons = v;
    }
    if(!(reasons[nreasons++] = strdup(line)))
      abort();
  }
  fclose(f);
  qsort(reasons, nreasons, sizeof(*reasons), cmp_str);
}

void fz_init(const char *target)
{
  const struct ref_game_desc *d;
  const char *pin = getenv("TABULA_FUZZ_GAME");
  size_t i;

  target_name = target;
  for(i = 0; i < NGAMES; i++)
    if(!(games[i].desc = ref_game_find(games[i].name))) {
      fprintf(stderr, "%s: game %s is not registered\n", target, games[i].name);
      exit(2);
    }
  /* A game added to the registry must be added to the table (and given
   * seeds), or it would go unfuzzed without anyone noticing. */
  for(i = 0; (d = ref_game_at(i)) != NULL; i++) {
    size_t j;
    for(j = 0; j < NGAMES && games[j].desc != d; j++)
      ;
    if(j == NGAMES) {
      fprintf(stderr, "%s: registered game %s is missing from rules_fuzz.c\n", target, d->name);
      exit(2);
    }
  }
  if(pin && *pin) {
    for(i = 0; i < NGAMES && strcmp(games[i].name, pin); i++)
      ;
    if(i == NGAMES) {
      fprintf(stderr, "%s: TABULA_FUZZ_GAME=%s is no game\n", target, pin);
      exit(2);
    }
    pinned = &games[i];
  }
  load_reasons();
  atexit(print_counts);
}

struct fz_game *fz_pick(uint8_t selector)
{
  if(pinned)
    return pinned;
  /* 'a' is game 0, so seed files start with a readable letter */
  return &games[(uint8_t)(selector - 'a') % NGAMES];
}

size_t fz_ngames(void)
{
  return NGAMES;
}

struct fz_game *fz_game_at(size_t i)
{
  return i < NGAMES ? &games[i] : NULL;
}

struct fz_game *fz_start(const uint8_t *data, size_t size)
{
  struct fz_game *game = fz_pick(data[0]);
  cur_data = data;
  cur_size = size;
  game->runs++;
  return game;
}

void fz_fail(const struct ref_game_desc *g, const char *fmt, ...)
{
  va_list ap;
  size_t i;
  fprintf(stderr, "\n%s: PROPERTY FAILED in %s: ", target_name, g ? g->name : "?");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n  input (%zu bytes): \"", cur_size);
  for(i = 0; i < cur_size && i < 2048; i++) {
    uint8_t c = cur_data[i];
    if(c >= 0x20 && c < 0x7f && c != '"' && c != '\\')
      fputc(c, stderr);
    else
      fprintf(stderr, "\\x%02x", c);
  }
  fprintf(stderr, "\"\n");
  abort();
}

static bool reason_known(const char *key)
{
  return bsearch(&key, reasons, nreasons, sizeof(*reasons), cmp_str) != NULL;
}

/* A C string of at most cap - 1 characters inside buf[cap]. */
static bool terminated(const char *buf, size_t cap)
{
  return memchr(buf, '\0', cap) != NULL;
}

void fz_check_refusal(const struct ref_game_desc *g, int rc, const struct ref_err *err,
                      bool allow_empty, const char *what)
{
  if(rc >= 0 || rc < REF_ENOMEM)
    fz_fail(g, "%s: code %d is no refusal", what, rc);
  if(!terminated(err->reason, sizeof(err->reason)) ||
     !terminated(err->detail, sizeof(err->detail)))
    fz_fail(g, "%s: reason or detail not terminated", what);
  if(!err->reason[0]) {
    if(!allow_empty)
      fz_fail(g, "%s refused (code %d) without a reason key", what, rc);
    return;
  }
  if(err->code != rc)
    fz_fail(g, "%s returned %d but err.code is %d (%s)", what, rc, err->code, err->reason);
  if(!reason_known(err->reason))
    fz_fail(g, "%s: reason key '%s' is not worded in templates/reasons.txt", what, err->reason);
}

bool fz_in_list(const struct ref_movelist *list, const struct ref_move *m)
{
  size_t i;
  for(i = 0; i < list->n; i++)
    if(!memcmp(&list->v[i], m, sizeof(*m)))
      return true;
  return false;
}

/* The legal moves; out of the MOVE phase a dice game may answer
 * REF_EPHASE instead of an empty list (backgammon.c, tables_chess.c). */
static void legal_or_fail(const struct ref_game_desc *g, const struct ref_state *s,
                          struct ref_movelist *list, const char *pos)
{
  struct ref_status st;
  int rc = g->ops->legal(s, list);
  if(rc == REF_OK)
    return;
  g->ops->status(s, &st);
  if(rc != REF_EPHASE || st.phase == REF_PHASE_MOVE)
    fz_fail(g, "legal failed (code %d) in '%s'", rc, pos);
  ref_movelist_clear(list);
}

void fz_legal(const struct ref_game_desc *g, const struct ref_state *s, struct ref_movelist *list)
{
  legal_or_fail(g, s, list, "a seed position");
}

static struct ref_state *dup_or_die(const struct ref_game_desc *g, const struct ref_state *s)
{
  struct ref_state *c = ref_state_dup(g, s);
  if(!c) {
    fprintf(stderr, "out of memory\n");
    abort();
  }
  return c;
}

static void check_status(const struct ref_game_desc *g, const struct ref_status *st)
{
  int i;
  if((unsigned)st->phase > REF_PHASE_OVER)
    fz_fail(g, "status: phase %d", st->phase);
  if(st->phase == REF_PHASE_OVER) {
    if(st->turn != -1)
      fz_fail(g, "status: over, but seat %d to act", st->turn);
    if(st->winner < -1 || st->winner >= g->seats)
      fz_fail(g, "status: winner %d", st->winner);
    if(st->end <= REF_END_NONE || st->end >= REF_END_LAST)
      fz_fail(g, "status: over with end %d", st->end);
    if(st->points < 0)
      fz_fail(g, "status: %d points", st->points);
  }
  else {
    if(st->turn < 0 || st->turn >= g->seats)
      fz_fail(g, "status: seat %d to act", st->turn);
    if(st->end != REF_END_NONE)
      fz_fail(g, "status: running, with end %s", ref_end_name(st->end));
  }
  if(st->phase == REF_PHASE_ROLL && (st->need_faces < 1 || st->need_faces > 8))
    fz_fail(g, "status: a roll of %d faces", st->need_faces);
  if(st->ndice < 0 || st->ndice > 4)
    fz_fail(g, "status: %d dice", st->ndice);
  for(i = 0; i < st->ndice; i++)
    if(st->dice[i] < 1 || st->dice[i] > 6)
      fz_fail(g, "status: die %d shows %d", i, st->dice[i]);
  if(st->move_number < 0)
    fz_fail(g, "status: move number %d", st->move_number);
  if(g->flags & REF_GAME_CUBE) {
    if(st->cube < 1 || (st->cube & (st->cube - 1)))
      fz_fail(g, "status: cube %d", st->cube);
    if(st->cube_owner < -1 || st->cube_owner >= g->seats)
      fz_fail(g, "status: cube owner %d", st->cube_owner);
  }
}

static void render_all(const struct ref_game_desc *g, const struct ref_state *s,
                       char boards[][FZ_BOARD_MAX])
{
  int seat;
  for(seat = 0; seat < g->seats; seat++) {
    char *b = boards[seat];
    const char *line;
    memset(b, 'x', FZ_BOARD_MAX);
    if(g->ops->render(s, seat, b, FZ_BOARD_MAX) != REF_OK)
      fz_fail(g, "render for seat %d failed", seat);
    if(!terminated(b, FZ_BOARD_MAX) || !b[0])
      fz_fail(g, "render for seat %d: empty or not terminated", seat);
    /* rules.h: at most 72 columns (the board is mailed, read on phones) */
    for(line = b; *line;) {
      size_t len = strcspn(line, "\n");
      if(len > 72)
        fz_fail(g, "render for seat %d: a line of %zu columns: %.*s", seat, len, (int)len, line);
      line += len + (line[len] == '\n');
    }
  }
}

static void encode_or_fail(const struct ref_game_desc *g, const struct ref_state *s, char *buf,
                           const char *what)
{
  memset(buf, 'x', FZ_STATE_MAX);
  if(g->ops->encode(s, buf, FZ_STATE_MAX) != REF_OK)
    fz_fail(g, "%s: encode into the store's %d bytes failed", what, FZ_STATE_MAX);
  if(!terminated(buf, FZ_STATE_MAX) || !buf[0])
    fz_fail(g, "%s: encode gave an empty or unterminated string", what);
}

/* Same status, same legal moves, same boards: nothing of the position
 * lives outside its string. */
static void check_same(const struct ref_game_desc *g, const struct ref_state *a,
                       const struct ref_state *b, const char *pos)
{
  struct ref_status sa, sb;
  struct ref_movelist la = {0}, lb = {0};
  static char ba[4][FZ_BOARD_MAX], bb[4][FZ_BOARD_MAX];
  size_t i;
  int seat;

  g->ops->status(a, &sa);
  g->ops->status(b, &sb);
  if(sa.phase != sb.phase || sa.turn != sb.turn || sa.need_faces != sb.need_faces ||
     sa.winner != sb.winner || sa.end != sb.end || sa.points != sb.points ||
     sa.move_number != sb.move_number || sa.in_check != sb.in_check ||
     sa.draw_claimable != sb.draw_claimable || sa.cube != sb.cube ||
     sa.cube_owner != sb.cube_owner || sa.ndice != sb.ndice ||
     memcmp(sa.dice, sb.dice, sizeof(sa.dice)))
    fz_fail(g, "the position decoded from its own string '%s' has another status", pos);
  legal_or_fail(g, a, &la, pos);
  legal_or_fail(g, b, &lb, pos);
  if(la.n != lb.n)
    fz_fail(g, "the position decoded from its own string '%s' has %zu legal moves, not %zu", pos,
            lb.n, la.n);
  for(i = 0; i < la.n; i++)
    if(memcmp(&la.v[i], &lb.v[i], sizeof(la.v[i])))
      fz_fail(g, "the position decoded from its own string '%s' has other legal moves", pos);
  ref_movelist_free(&la);
  ref_movelist_free(&lb);
  render_all(g, a, ba);
  render_all(g, b, bb);
  for(seat = 0; seat < g->seats; seat++)
    if(strcmp(ba[seat], bb[seat]))
      fz_fail(g, "the position decoded from its own string '%s' renders otherwise for seat %d",
              pos, seat);
}

/* Depth 0: ok, the string round trip, status. */
static void check_light(const struct ref_game_desc *g, const struct ref_state *s, bool fresh)
{
  char a[FZ_STATE_MAX], b[FZ_STATE_MAX];
  struct ref_state *back = ref_state_new(g);
  struct ref_status st;
  struct ref_err err;
  int rc;

  if(!back)
    abort();
  if(g->ops->ok && !g->ops->ok(s)) {
    if(g->ops->encode(s, a, sizeof(a)) != REF_OK)
      snprintf(a, sizeof(a), "(unencodable)");
    fz_fail(g, "ops->ok refused the position '%s'", a);
  }
  encode_or_fail(g, s, a, "position");
  memset(&err, 0, sizeof(err));
  rc = g->ops->decode(back, a, &err);
  if(rc != REF_OK)
    fz_fail(g, "its own string '%s' does not decode (%s %s)", a, err.reason, err.detail);
  if(g->ops->ok && !g->ops->ok(back))
    fz_fail(g, "ops->ok refused the decode of its own string '%s'", a);
  encode_or_fail(g, back, b, "decoded position");
  if(strcmp(a, b))
    fz_fail(g, "position string does not round-trip:\n  '%s'\n  '%s'", a, b);
  g->ops->status(s, &st);
  check_status(g, &st);
  if(st.phase == REF_PHASE_MOVE) {
    /* rules-spec §1.5: a side that cannot move passes or loses; the game
     * must say which, never wait for a move that does not exist. */
    struct ref_movelist list = {0};
    legal_or_fail(g, s, &list, a);
    if(list.n == 0)
      fz_fail(g, "MOVE phase without a legal move: '%s'", a);
    ref_movelist_free(&list);
  }
  if(fresh)
    check_same(g, s, back, a);
  free(back);
}

/* The canonical text of a legal move: fits the service's buffer and reads
 * back as the same move (or one that leads to the same position). */
static void check_notation(const struct ref_game_desc *g, const struct ref_state *s,
                           const struct ref_move *m, const char *pos)
{
  char text[REF_NOTATION_MAX], comp[REF_NOTATION_MAX];
  struct ref_move back;
  struct ref_err err;
  int rc;

  memset(text, 'x', sizeof(text));
  if(g->ops->format(s, m, REF_NOTATION_CANONICAL, text, sizeof(text)) != REF_OK ||
     !terminated(text, sizeof(text)) || !text[0])
    fz_fail(g, "a legal move does not format into %d bytes in '%s'", REF_NOTATION_MAX, pos);
  memset(comp, 'x', sizeof(comp));
  if(g->ops->format(s, m, REF_NOTATION_COMPUTER, comp, sizeof(comp)) != REF_OK ||
     !terminated(comp, sizeof(comp)) || !comp[0])
    fz_fail(g, "legal move '%s': no computer notation in '%s'", text, pos);
  memset(&back, 0, sizeof(back));
  memset(&err, 0, sizeof(err));
  rc = g->ops->parse(s, text, &back, &err);
  if(rc != REF_OK)
    fz_fail(g, "canonical '%s' does not parse back (%s %s) in '%s'", text, err.reason, err.detail,
            pos);
  if(memcmp(&back, m, sizeof(back))) {
    /* Two encodings of one move are fine if they lead to the same place. */
    struct ref_state *x = dup_or_die(g, s), *y = dup_or_die(g, s);
    char px[FZ_STATE_MAX], py[FZ_STATE_MAX];
    if(g->ops->apply(x, m) != REF_OK || g->ops->apply(y, &back) != REF_OK)
      fz_fail(g, "canonical '%s' parses to a move apply refuses in '%s'", text, pos);
    encode_or_fail(g, x, px, "after the move");
    encode_or_fail(g, y, py, "after the move read back");
    if(strcmp(px, py))
      fz_fail(g, "canonical '%s' parses to another move in '%s'", text, pos);
    free(x);
    free(y);
  }
}

int fz_roll(const struct ref_game_desc *g, struct ref_state *s, uint32_t dice)
{
  struct ref_status st;
  struct ref_err err;
  int faces[8], n, i, rc;

  g->ops->status(s, &st);
  if((st.phase != REF_PHASE_ROLL && st.phase != REF_PHASE_CUBE) || !g->ops->roll)
    return 1;
  n = st.need_faces > 0 ? st.need_faces : 2;
  if(n > 8)
    n = 8;
  for(i = 0; i < n; i++)
    faces[i] = 1 + (int)((dice >> (4 * i)) & 0xf) % 6;
  memset(&err, 0, sizeof(err));
  rc = g->ops->roll(s, faces, n, &err);
  if(rc != REF_OK) {
    /* an opening roll may refuse a double (BG-3): give distinct faces */
    fz_check_refusal(g, rc, &err, false, "roll");
    for(i = 1; i < n; i++)
      faces[i] = faces[i - 1] % 6 + 1;
    memset(&err, 0, sizeof(err));
    rc = g->ops->roll(s, faces, n, &err);
    if(rc != REF_OK)
      fz_fail(g, "a %s phase refuses the roll %d-%d (%s)",
              st.phase == REF_PHASE_ROLL ? "ROLL" : "CUBE", faces[0], faces[1], err.reason);
  }
  return rc;
}

static void check_actions(const struct ref_game_desc *g, const struct ref_state *s)
{
  static const enum ref_action acts[] = {REF_ACT_DOUBLE, REF_ACT_TAKE, REF_ACT_DROP,
                                         REF_ACT_RESIGN, REF_ACT_DRAW_AGREED,
                                         REF_ACT_DRAW_CLAIM};
  struct ref_state *c = ref_state_new(g);
  size_t a;
  int seat;

  if(!c)
    abort();
  for(a = 0; a < sizeof(acts) / sizeof(acts[0]); a++)
    for(seat = 0; seat < g->seats; seat++) {
      struct ref_err err;
      int arg = acts[a] == REF_ACT_RESIGN ? 1 + seat : 0, rc;
      memcpy(c, s, g->state_size);
      memset(&err, 0, sizeof(err));
      rc = g->ops->act(c, seat, acts[a], arg, &err);
      if(rc == REF_OK)
        check_light(g, c, false);
      else
        fz_check_refusal(g, rc, &err, false, "act");
    }
  free(c);
}

void fz_check_position(const struct ref_game_desc *g, const struct ref_state *s, int depth,
                       bool fresh, uint32_t dice)
{
  static char boards[4][FZ_BOARD_MAX];
  char pos[FZ_STATE_MAX];
  struct ref_movelist list = {0};
  struct ref_status st;
  struct ref_state *c;
  size_t i, step;

  check_light(g, s, fresh);
  if(depth <= 0)
    return;
  encode_or_fail(g, s, pos, "position");
  render_all(g, s, boards);
  legal_or_fail(g, s, &list, pos);
  /* A finished game may still list the moves of its position (chess.c:
   * perft and the oracles want them); none of them can be played. */
  g->ops->status(s, &st);
  if(st.phase == REF_PHASE_OVER)
    ref_movelist_clear(&list);
  c = ref_state_new(g);
  if(!c)
    abort();
  /* every move when few; else a sample spread over the list, its offset
   * from the input, so a long run visits all of them */
  step = list.n <= APPLY_SAMPLE ? 1 : list.n / APPLY_SAMPLE;
  for(i = list.n <= APPLY_SAMPLE ? 0 : dice % step; i < list.n; i += step) {
    int rc;
    check_notation(g, s, &list.v[i], pos);
    memcpy(c, s, g->state_size);
    rc = g->ops->apply(c, &list.v[i]);
    if(rc != REF_OK)
      fz_fail(g, "apply refused legal move %zu (code %d) in '%s'", i, rc, pos);
    check_light(g, c, false);
  }
  ref_movelist_free(&list);
  check_actions(g, s);
  memcpy(c, s, g->state_size);
  if(fz_roll(g, c, dice) == REF_OK)
    fz_check_position(g, c, depth - 1, false, dice >> 8 | dice << 24);
  free(c);
}

void fz_walk(const struct ref_game_desc *g, const struct ref_state *start, int plies,
             uint32_t seed)
{
  struct ref_state *s = dup_or_die(g, start);
  struct ref_movelist list = {0};
  int i;

  for(i = 0; i < plies; i++) {
    struct ref_status st;
    seed = seed * 1103515245u + 12345u;
    g->ops->status(s, &st);
    if(st.phase == REF_PHASE_OVER)
      break;
    if(st.phase == REF_PHASE_ROLL || st.phase == REF_PHASE_CUBE) {
      if(fz_roll(g, s, seed >> 8) != REF_OK)
        break;
    }
    else if(st.phase == REF_PHASE_CUBE_REPLY) {
      struct ref_err err;
      if(g->ops->act(s, st.turn, (seed >> 16) & 3 ? REF_ACT_TAKE : REF_ACT_DROP, 0, &err) !=
         REF_OK)
        fz_fail(g, "take or drop refused in the CUBE_REPLY phase (%s)", err.reason);
    }
    else {
      ref_movelist_clear(&list);
      legal_or_fail(g, s, &list, "a walk");
      if(!list.n)
        break;
      const struct ref_move *m = &list.v[(seed >> 8) % list.n];
      char pos[FZ_STATE_MAX];
      encode_or_fail(g, s, pos, "a walk");
      check_notation(g, s, m, pos);
      if(g->ops->apply(s, m) != REF_OK)
        fz_fail(g, "apply refused a legal move on a walk");
    }
    fz_check_position(g, s, i == plies - 1, false, seed);
  }
  ref_movelist_free(&list);
  free(s);
}
