/*
 * checkers_board.c: the man/king move generator of checkers_int.h on any
 * board given as a diagonal neighbour table: English checkers' 32 squares
 * (checkers.c) and the wrapping 64-square board of Backgammon Chess's
 * stones (backgammon_chess.c, rules-spec.md 6.3, BC-5). It knows nothing
 * of sides, crown rows or compulsory capture (rules-spec.md 3.2 for what
 * it does).
 */
#include "checkers_int.h"
#include "rules.h"

#include <assert.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* The generic generator                                               */
/* ------------------------------------------------------------------ */

/* The draughts board as a constant table, worked out by the compiler from
 * the numbering of rules-spec 3.1: square i + 1 lies on row i / 4 counted
 * from rank 8; rows counted from 0 at rank 8 start on the b-file when even
 * (1 = b8) and on the a-file when odd (5 = a7). */
#define CKG_X(i) (2 * ((i) % 4) + ((i) / 4 % 2 == 0 ? 1 : 0))
#define CKG_Y(i) (7 - (i) / 4)
#define CKG_NB(i, dx, dy)                                                                     \
  (CKG_X(i) + (dx) < 0 || CKG_X(i) + (dx) > 7 || CKG_Y(i) + (dy) < 0 || CKG_Y(i) + (dy) > 7 \
     ? -1                                                                                     \
     : (7 - (CKG_Y(i) + (dy))) * 4 + (CKG_X(i) + (dx)) / 2)
#define CKG_CELL(i) {CKG_NB(i, 1, 1), CKG_NB(i, -1, 1), CKG_NB(i, 1, -1), CKG_NB(i, -1, -1)}
#define CKG_ROW(r) \
  CKG_CELL(4 * (r)), CKG_CELL(4 * (r) + 1), CKG_CELL(4 * (r) + 2), CKG_CELL(4 * (r) + 3)

const struct ref_ck_geom ref_ck_geom_draughts = {
  32,
  {CKG_ROW(0), CKG_ROW(1), CKG_ROW(2), CKG_ROW(3), CKG_ROW(4), CKG_ROW(5), CKG_ROW(6), CKG_ROW(7)},
};

/* The chess board with wrapping ranks (rules-spec 6.3): cell = rank * 8 +
 * file; a step off rank 8 northward arrives on rank 1, files end. */
#define CKW_NB(i, dx, dy) \
  ((i) % 8 + (dx) < 0 || (i) % 8 + (dx) > 7 ? -1 : ((i) / 8 + (dy) + 8) % 8 * 8 + (i) % 8 + (dx))
#define CKW_CELL(i) {CKW_NB(i, 1, 1), CKW_NB(i, -1, 1), CKW_NB(i, 1, -1), CKW_NB(i, -1, -1)}
#define CKW_RANK(r)                                                                          \
  CKW_CELL(8 * (r)), CKW_CELL(8 * (r) + 1), CKW_CELL(8 * (r) + 2), CKW_CELL(8 * (r) + 3),   \
    CKW_CELL(8 * (r) + 4), CKW_CELL(8 * (r) + 5), CKW_CELL(8 * (r) + 6), CKW_CELL(8 * (r) + 7)

const struct ref_ck_geom ref_ck_geom_wrap64 = {
  64,
  {CKW_RANK(0), CKW_RANK(1), CKW_RANK(2), CKW_RANK(3), CKW_RANK(4), CKW_RANK(5), CKW_RANK(6),
   CKW_RANK(7)},
};

static const int ck_dx[REF_CK_NDIRS] = {1, -1, 1, -1};
static const int ck_dy[REF_CK_NDIRS] = {1, 1, -1, -1};

int ref_ck_geom_build(struct ref_ck_geom *out, int files, int ranks, const int8_t *cell_of,
                      bool wrap_ranks)
{
  int x, y, d, n = 0;
  uint64_t seen = 0;

  memset(out, 0, sizeof(*out));
  if(files <= 0 || ranks <= 0 || files * ranks > 4 * REF_CK_CELLS_MAX)
    return -1;
  for(y = 0; y < ranks; y++)
    for(x = 0; x < files; x++) {
      int c = cell_of[y * files + x];
      if(c < 0)
        continue;
      if(c >= REF_CK_CELLS_MAX || (seen & (UINT64_C(1) << c)))
        return -1;
      seen |= UINT64_C(1) << c;
      n++;
    }
  /* Cells must be numbered 0 .. n-1 with no gap: masks and tables index them. */
  if(n == 0 || (n < REF_CK_CELLS_MAX && seen != (UINT64_C(1) << n) - 1))
    return -1;
  out->ncells = n;
  for(y = 0; y < ranks; y++)
    for(x = 0; x < files; x++) {
      int c = cell_of[y * files + x];
      if(c < 0)
        continue;
      for(d = 0; d < REF_CK_NDIRS; d++) {
        int nx = x + ck_dx[d], ny = y + ck_dy[d];
        if(wrap_ranks)
          ny = (ny + ranks) % ranks;
        if(nx < 0 || nx >= files || ny < 0 || ny >= ranks)
          out->nb[c][d] = -1;
        else
          out->nb[c][d] = cell_of[ny * files + nx];
      }
    }
  return 0;
}

int ref_ck_dir_between(const struct ref_ck_geom *g, int a, int b, bool two)
{
  int d;
  if(a < 0 || a >= g->ncells || b < 0 || b >= g->ncells)
    return -1;
  for(d = 0; d < REF_CK_NDIRS; d++) {
    int n = g->nb[a][d];
    if(two && n >= 0)
      n = g->nb[n][d];
    if(n == b)
      return d;
  }
  return -1;
}

int ref_ck_steps(const struct ref_ck_board *b, int from, unsigned dirs, ref_ck_emit_fn emit,
                 void *ctx)
{
  struct ref_ck_path path;
  int d, rc;

  /* Only the fields a step uses: this runs at every perft node. */
  path.from = (uint8_t)from;
  path.nhops = 1;
  path.capture = false;
  path.captured = 0;
  path.over[0] = 0;
  for(d = 0; d < REF_CK_NDIRS; d++) {
    int to = b->geom->nb[from][d];
    if(!(dirs & (1u << d)) || to < 0 || (b->occupied & (UINT64_C(1) << to)))
      continue;
    path.to[0] = (uint8_t)to;
    rc = emit(ctx, &path);
    if(rc)
      return rc;
  }
  return 0;
}

/* Depth-first walk of one piece's jumps. */
struct ck_walk {
  const struct ref_ck_geom *g;
  uint64_t occupied; /* without the moving piece */
  uint64_t enemy;
  uint64_t stop;
  unsigned dirs;
  ref_ck_emit_fn emit;
  void *ctx;
  struct ref_ck_path path;
};

static int ck_walk_from(struct ck_walk *w, int at)
{
  struct ref_ck_path *p = &w->path;
  bool more = false;
  int d, rc;

  /* Crowning ends the move (rules-spec 3.2): nothing follows a stop. */
  if(p->nhops == 0 || !(w->stop & (UINT64_C(1) << at))) {
    for(d = 0; d < REF_CK_NDIRS; d++) {
      int over = w->g->nb[at][d], land;
      uint64_t obit;
      if(!(w->dirs & (1u << d)) || over < 0)
        continue;
      obit = UINT64_C(1) << over;
      /* A captured piece stays until the move ends: never jumped twice. */
      if(!(w->enemy & obit) || (p->captured & obit))
        continue;
      land = w->g->nb[over][d];
      if(land < 0 || (w->occupied & (UINT64_C(1) << land)))
        continue;
      more = true;
      assert(p->nhops < REF_CK_HOPS_MAX);
      p->to[p->nhops] = (uint8_t)land;
      p->over[p->nhops] = (uint8_t)over;
      p->nhops++;
      p->captured |= obit;
      rc = ck_walk_from(w, land);
      p->nhops--;
      p->captured &= ~obit;
      if(rc)
        return rc;
    }
  }
  /* A jump must go on while it can: only dead ends are whole moves. */
  if(!more && p->nhops > 0)
    return w->emit(w->ctx, p);
  return 0;
}

int ref_ck_jumps(const struct ref_ck_board *b, int from, unsigned dirs, uint64_t stop,
                 ref_ck_emit_fn emit, void *ctx)
{
  struct ck_walk w;

  memset(&w, 0, sizeof(w));
  w.g = b->geom;
  /* The mover leaves its origin at once, so a king may cross it or end a
   * ring capture on it (shared oracles.md 3.2). */
  w.occupied = b->occupied & ~(UINT64_C(1) << from);
  w.enemy = b->enemy;
  w.stop = stop;
  w.dirs = dirs;
  w.emit = emit;
  w.ctx = ctx;
  w.path.from = (uint8_t)from;
  w.path.capture = true;
  return ck_walk_from(&w, from);
}

bool ref_ck_can_jump(const struct ref_ck_board *b, int from, unsigned dirs)
{
  uint64_t occupied = b->occupied & ~(UINT64_C(1) << from);
  int d;

  for(d = 0; d < REF_CK_NDIRS; d++) {
    int over = b->geom->nb[from][d], land;
    if(!(dirs & (1u << d)) || over < 0 || !(b->enemy & (UINT64_C(1) << over)))
      continue;
    land = b->geom->nb[over][d];
    if(land >= 0 && !(occupied & (UINT64_C(1) << land)))
      return true;
  }
  return false;
}
