/*
 * driver_pg.c: the PostgreSQL driver of tabula_store (driver.h), through
 * libpq. A store named `postgresql://...`, `postgres://...` or a libpq
 * keyword/value string (`service=club`, `host=/run/postgresql dbname=club`)
 * is a database on a PostgreSQL server; the engine keeps it durable and
 * replicated (docs/architecture.md, "The store"). The only file of the
 * store besides schema_pg.c (its SQL) that names PostgreSQL.
 *
 * A password never comes with the store's name (it would show in `ps` and
 * in tabula.ini): libpq reads it from ~/.pgpass, a `passfile=`, or the
 * server trusts the Unix socket's peer. A name that carries one is refused.
 *
 * Statements are prepared on the server once (the store's cache keeps them,
 * stmt.c) and run with text parameters, blobs as binary; results come back
 * as text, whole, at the first step. Write transactions hold one
 * transaction-scoped advisory lock, so writers take turns as on SQLite
 * (BEGIN IMMEDIATE): the store's read-then-write groups (a journal's head
 * then its next entry) stay correct with several processes on one database.
 */
#include "store_int.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The advisory lock every write transaction takes, and the daemon's
 * (lock.c's lock 0): constants the database's other users do not take,
 * negative so that no claim token's lock (1 + T, T > 0) is one of them. */
#define WRITE_LOCK "-7461627560"
#define DAEMON_LOCK INT64_C(-7461627561)

/* Statements sent ahead in pipeline mode whose results are read later
 * (settle): at most this many, then they are read before the next. */
#define AHEAD_MAX 64

struct pg_conn {
  PGconn *pg;
  int64_t changes;   /* rows the last statement changed */
  unsigned next_id;  /* names of prepared statements: s1, s2, ... */
  int ahead;         /* statements sent ahead, results not read yet */
  char ahead_what[AHEAD_MAX][80]; /* what each was, for its failure's text */
  /* the statement each prepares on the server (PQsendPrepare), else NULL:
   * one the server skipped after a failure is prepared again later */
  struct pg_stmt *ahead_prep[AHEAD_MAX];
  int late_rc;       /* a failure settle found where it could not say it */
};

struct pg_stmt {
  struct pg_conn *c;
  char name[16];
  bool keep; /* cached by the store for the session: never deallocated */
  bool ahead_ok; /* returns no rows: may be sent ahead (see pq_step) */
  bool rollback; /* ROLLBACK...: runs whatever came before it */
  bool done;     /* sent ahead this run: nothing more to step */
  bool prepared; /* on the server, as name */
  unsigned runs; /* times executed */
  char *sql;     /* until prepared on the server */
  Oid *types;    /* the parameters' types (param_type), nparams of them */
  int nparams;
  char **values; /* nparams each, malloc'd or NULL for SQL NULL */
  int *lengths;
  int *formats;
  PGresult *res; /* after the first step */
  int row, nrows;
  unsigned char *blob; /* the last column decoded by col_blob */
};

#define PGS(s) ((struct pg_stmt *)(s))

static PGconn *pg_of(struct store *st)
{
  struct pg_conn *c = st->conn;
  return c ? c->pg : NULL;
}

/* ---- errors ---- */

/* A store code for a failed result (SQLSTATE classes, PostgreSQL's
 * appendix A). */
static int map_state(const char *state)
{
  if(!state)
    return STORE_EIO; /* no server answer: the connection is gone */
  if(!strcmp(state, "53100"))
    return STORE_EFULL; /* disk_full */
  if(!strcmp(state, "53200"))
    return STORE_ENOMEM; /* out_of_memory */
  if(!strcmp(state, "40001") || !strcmp(state, "40P01") || !strcmp(state, "55P03"))
    return STORE_EBUSY; /* serialization_failure, deadlock, lock_not_available */
  if(!strncmp(state, "XX", 2) && strcmp(state, "XX000"))
    return STORE_ECORRUPT; /* data_corrupted, index_corrupted */
  return STORE_EIO;
}

/* Sets st->err to "<what>: <the server's message>" from res (or the
 * connection's message) and returns the store code. */
static int fail_res(struct store *st, const PGresult *res, const char *what)
{
  const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
  const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  PGconn *pg = pg_of(st);
  char one[400];
  size_t n;

  if(!msg) {
    /* libpq's own text ends in a newline */
    snprintf(one, sizeof(one), "%s", pg ? PQerrorMessage(pg) : "no connection");
    n = strlen(one);
    while(n && (one[n - 1] == '\n' || one[n - 1] == ' '))
      one[--n] = '\0';
    msg = one[0] ? one : "no answer from the server";
  }
  if(map_state(state) == STORE_EFULL)
    return store_fail(st, STORE_EFULL, "%s: the database's disk is full (PostgreSQL: %s)", what,
                      msg);
  return store_fail(st, map_state(state), "%s: %s", what, msg);
}

/* The rows a command changed, from its tag ("UPDATE 3"). */
static int64_t tuples(PGresult *res)
{
  const char *n = PQcmdTuples(res);
  return n && *n ? strtoll(n, NULL, 10) : 0;
}

/* ---- statements ---- */

static int settled(struct store *st, const char *what);

static int pq_exec(struct store *st, const char *sql, const char *what)
{
  struct pg_conn *c = st->conn;
  PGresult *res;
  ExecStatusType s;
  int rc = settled(st, what);

  /* a rollback undoes what failed before it: it runs all the same */
  if(rc && strncmp(sql, "ROLLBACK", 8))
    return rc;
  rc = STORE_OK;
  res = PQexec(c->pg, sql);
  s = PQresultStatus(res);

  if(s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK)
    c->changes = tuples(res);
  else
    rc = fail_res(st, res, what);
  PQclear(res);
  return rc;
}

static void stmt_free(struct pg_stmt *s)
{
  int i;

  if(!s)
    return;
  PQclear(s->res);
  for(i = 0; s->values && i < s->nparams; i++)
    free(s->values[i]);
  free(s->values);
  free(s->lengths);
  free(s->formats);
  PQfreemem(s->blob);
  free(s->sql);
  free(s->types);
  free(s);
}

/* The type of a parameter bound by format letter f (store_int.h), or 0:
 * the server infers it from where the parameter stands. Typed where the
 * server could not infer it or would infer a narrower one (nullif($4, 0)
 * is an int4 otherwise, `$1 IS NULL` nothing at all). */
static Oid param_type(char f)
{
  switch(f) {
  case 'i':
    return 20; /* int8 */
  case 'd':
    return 701; /* float8 */
  case 't':
  case 'f':
  case 's':
    return 25; /* text */
  case 'b':
    return 17; /* bytea */
  default:
    return 0;
  }
}

/* A statement whose result nobody reads but for its success and the rows
 * it changed (store_changes, which waits for it): a write without
 * RETURNING, or a SAVEPOINT. Never a RELEASE, COMMIT or ROLLBACK: those
 * wait for everything sent before them (pq_step). */
static bool sends_ahead(const char *sql)
{
  static const char *const words[] = {"INSERT ", "UPDATE ", "DELETE ", "SAVEPOINT "};
  size_t i;

  for(i = 0; i < sizeof(words) / sizeof(words[0]); i++)
    if(!strncmp(sql, words[i], strlen(words[i])))
      return strncmp(sql, "SAVEPOINT", 9) == 0 || !strstr(sql, "RETURNING");
  return false;
}

/* Reads the results of the statements sent ahead, and then of `s` when it
 * was sent after them (its result kept in s->res), and leaves pipeline
 * mode. The first failure is returned (a statement sent ahead is named by
 * its own `what`); after one the server skipped the rest, and the
 * transaction is failed, as after any failed statement on PostgreSQL. */
static int settle(struct store *st, struct pg_stmt *s, const char *what)
{
  struct pg_conn *c = st->conn;
  PGresult *r;
  int i, rc = c->late_rc;

  c->late_rc = STORE_OK;
  if(!c->ahead && !s)
    return rc;
  if(PQpipelineSync(c->pg) != 1 && rc == STORE_OK)
    rc = fail_res(st, NULL, what);
  for(i = 0; i < c->ahead; i++)
    while((r = PQgetResult(c->pg))) {
      if(PQresultStatus(r) == PGRES_COMMAND_OK) {
        if(!c->ahead_prep[i])
          c->changes = tuples(r);
      }
      else {
        if(c->ahead_prep[i])
          c->ahead_prep[i]->prepared = false;
        if(rc == STORE_OK)
          rc = fail_res(st, r, c->ahead_what[i]);
      }
      PQclear(r);
    }
  c->ahead = 0;
  if(s)
    while((r = PQgetResult(c->pg))) {
      if(!s->res)
        s->res = r;
      else
        PQclear(r);
    }
  r = PQgetResult(c->pg); /* the sync point */
  if(PQresultStatus(r) != PGRES_PIPELINE_SYNC && rc == STORE_OK)
    rc = fail_res(st, r, what);
  PQclear(r);
  if(PQexitPipelineMode(c->pg) != 1 && rc == STORE_OK)
    rc = fail_res(st, NULL, what);
  return rc;
}

/* Before a statement run the plain way (PQexec...): what was sent ahead,
 * settled. */
static int settled(struct store *st, const char *what)
{
  struct pg_conn *c = st->conn;
  return c && (c->ahead || c->late_rc) ? settle(st, NULL, what) : STORE_OK;
}

static int pq_prepare(struct store *st, struct store_stmt **stmt, const char *sql,
                      const char *fmt, bool keep, const char *what)
{
  struct pg_conn *c = st->conn;
  struct pg_stmt *s = calloc(1, sizeof(*s));
  Oid types[64];
  int ntypes = 0;
  PGresult *res;
  int rc = STORE_OK;

  if(fmt && strlen(fmt) > sizeof(types) / sizeof(types[0])) {
    free(s);
    return store_fail(st, STORE_EIO, "%s: more than %zu parameters", what,
                      sizeof(types) / sizeof(types[0]));
  }
  if(!s)
    return store_fail(st, STORE_ENOMEM, "%s: out of memory", what);
  s->c = c;
  s->keep = keep;
  s->ahead_ok = sends_ahead(sql);
  s->rollback = !strncmp(sql, "ROLLBACK", 8);
  snprintf(s->name, sizeof(s->name), "s%u", ++c->next_id);
  for(; fmt && fmt[ntypes] && ntypes < (int)(sizeof(types) / sizeof(types[0])); ntypes++)
    types[ntypes] = param_type(fmt[ntypes]);
  if(fmt) {
    /* Prepared on the server at its second run only (pq_step): most
     * statements of a `deliver` or a command run once, and an unnamed
     * statement is one round trip where prepare and run are two. */
    s->nparams = ntypes;
    s->sql = strdup(sql);
    s->types = ntypes ? malloc((size_t)ntypes * sizeof(*s->types)) : NULL;
    if(!s->sql || (ntypes && !s->types))
      rc = store_fail(st, STORE_ENOMEM, "%s: out of memory", what);
    else if(ntypes)
      memcpy(s->types, types, (size_t)ntypes * sizeof(*s->types));
    goto params;
  }
  if((rc = settled(st, what)) != STORE_OK) {
    free(s);
    return rc;
  }
  res = PQprepare(c->pg, s->name, sql, ntypes, ntypes ? types : NULL);
  if(PQresultStatus(res) != PGRES_COMMAND_OK) {
    rc = fail_res(st, res, what);
    PQclear(res);
    free(s);
    return rc;
  }
  PQclear(res);
  s->prepared = true;
  /* How many parameters, for a statement without a format (one a letter
   * otherwise: the store's SQL uses each of $1..$n, store_int.h): the
   * server's reading. */
  res = PQdescribePrepared(c->pg, s->name);
  if(PQresultStatus(res) != PGRES_COMMAND_OK)
    rc = fail_res(st, res, what);
  else
    s->nparams = PQnparams(res);
  PQclear(res);
params:
  if(rc == STORE_OK && s->nparams) {
    s->values = calloc((size_t)s->nparams, sizeof(*s->values));
    s->lengths = calloc((size_t)s->nparams, sizeof(*s->lengths));
    s->formats = calloc((size_t)s->nparams, sizeof(*s->formats));
    if(!s->values || !s->lengths || !s->formats)
      rc = store_fail(st, STORE_ENOMEM, "%s: out of memory", what);
  }
  if(rc) {
    char dealloc[40];
    if(s->prepared) {
      snprintf(dealloc, sizeof(dealloc), "DEALLOCATE %s", s->name);
      PQclear(PQexec(c->pg, dealloc));
    }
    stmt_free(s);
    return rc;
  }
  *stmt = (struct store_stmt *)s;
  return STORE_OK;
}

/* Keeps a copy of len bytes (and a NUL) as parameter idx. */
static int set_param(struct store *st, struct pg_stmt *s, int idx, const void *p, size_t len,
                     int format, const char *what)
{
  char *copy;

  if(idx < 1 || idx > s->nparams)
    return store_fail(st, STORE_EIO, "%s: no parameter $%d in the statement", what, idx);
  if(len > (size_t)INT32_MAX - 1)
    return store_fail(st, STORE_EIO, "%s: a value of %zu bytes is too long", what, len);
  copy = malloc(len + 1);
  if(!copy)
    return store_fail(st, STORE_ENOMEM, "%s: out of memory", what);
  if(len)
    memcpy(copy, p, len);
  copy[len] = '\0';
  free(s->values[idx - 1]);
  s->values[idx - 1] = copy;
  s->lengths[idx - 1] = (int)len;
  s->formats[idx - 1] = format;
  return STORE_OK;
}

static int pq_bind_int64(struct store *st, struct store_stmt *stmt, int idx, int64_t v,
                         const char *what)
{
  char text[24];
  int n = snprintf(text, sizeof(text), "%lld", (long long)v);
  return set_param(st, PGS(stmt), idx, text, (size_t)n, 0, what);
}

static int pq_bind_double(struct store *st, struct store_stmt *stmt, int idx, double v,
                          const char *what)
{
  char text[40];
  /* 17 significant digits: the double comes back bit for bit (ratings) */
  int n = snprintf(text, sizeof(text), "%.17g", v);
  return set_param(st, PGS(stmt), idx, text, (size_t)n, 0, what);
}

static int pq_bind_text(struct store *st, struct store_stmt *stmt, int idx, const char *p,
                        size_t len, const char *what)
{
  /* A text parameter ends at its first NUL: one inside would cut it. */
  if(memchr(p, '\0', len))
    return store_fail(st, STORE_EIO, "%s: a text holds a NUL byte", what);
  return set_param(st, PGS(stmt), idx, p, len, 0, what);
}

static int pq_bind_null(struct store *st, struct store_stmt *stmt, int idx, const char *what)
{
  struct pg_stmt *s = PGS(stmt);

  if(idx < 1 || idx > s->nparams)
    return store_fail(st, STORE_EIO, "%s: no parameter $%d in the statement", what, idx);
  free(s->values[idx - 1]);
  s->values[idx - 1] = NULL;
  s->lengths[idx - 1] = 0;
  s->formats[idx - 1] = 0;
  return STORE_OK;
}

static int pq_bind_blob(struct store *st, struct store_stmt *stmt, int idx, const void *p,
                        size_t len, const char *what)
{
  if(!p)
    return pq_bind_null(st, stmt, idx, what);
  return set_param(st, PGS(stmt), idx, p, len, 1, what);
}

/* Sends s's execution (and its prepare on the server, at its second run)
 * into the pipeline; each counts as one statement sent ahead but for the
 * execution of a statement whose result is read at once. */
static int send(struct store *st, struct pg_stmt *s, bool ahead, const char *what)
{
  struct pg_conn *c = s->c;
  int ok;

  if(c->ahead + 2 > AHEAD_MAX)
    return store_fail(st, STORE_EIO, "%s: too many statements sent ahead", what);
  if(!s->prepared && s->keep && s->runs >= 1) {
    if(PQsendPrepare(c->pg, s->name, s->sql, s->nparams, s->types) != 1)
      return fail_res(st, NULL, what);
    c->ahead_prep[c->ahead] = s;
    snprintf(c->ahead_what[c->ahead++], sizeof(c->ahead_what[0]), "%s", what);
    s->prepared = true;
  }
  s->runs++;
  if(s->prepared)
    ok = PQsendQueryPrepared(c->pg, s->name, s->nparams, (const char *const *)s->values,
                             s->lengths, s->formats, 0);
  else
    ok = PQsendQueryParams(c->pg, s->sql, s->nparams, s->types, (const char *const *)s->values,
                           s->lengths, s->formats, 0);
  if(ok != 1)
    return fail_res(st, NULL, what);
  if(ahead) {
    c->ahead_prep[c->ahead] = NULL;
    snprintf(c->ahead_what[c->ahead++], sizeof(c->ahead_what[0]), "%s", what);
  }
  return STORE_OK;
}

static int pq_step(struct store *st, struct store_stmt *stmt, const char *what)
{
  struct pg_stmt *s = PGS(stmt);
  struct pg_conn *c = s->c;
  ExecStatusType status;
  int rc;

  if(s->done)
    return STORE_OK;
  if(!s->res) {
    /* Round trips are what a statement costs most on a server (its CPU
     * and the wait for it: bench/engines.sh). Inside a transaction, a
     * statement that returns no rows is sent ahead in pipeline mode and
     * not waited for: its result is read with the next statement that
     * returns rows, or a RELEASE, COMMIT or ROLLBACK, in one round trip
     * (settle). A failure among them is then that statement's failure,
     * still inside the savepoint or transaction that holds them: the
     * store's groups end with a RELEASE or COMMIT, which waits. */
    bool ahead = s->ahead_ok && (c->ahead > 0 || PQtransactionStatus(c->pg) == PQTRANS_INTRANS);
    if(s->rollback && (c->ahead || c->late_rc))
      (void)settle(st, NULL, what); /* a rollback undoes a failure: it runs anyway */
    if(ahead && c->ahead + 2 > AHEAD_MAX && (rc = settle(st, NULL, what)) != STORE_OK)
      return rc;
    if(ahead && !c->ahead && PQenterPipelineMode(c->pg) != 1)
      ahead = false;
    if(ahead || c->ahead) {
      rc = send(st, s, ahead, what);
      if(rc == STORE_OK && ahead) {
        s->done = true;
        return STORE_OK;
      }
      if(rc) {
        c->late_rc = STORE_OK;
        (void)settle(st, NULL, what);
        c->late_rc = STORE_OK;
        return rc;
      }
      rc = settle(st, s, what);
      if(rc) {
        PQclear(s->res);
        s->res = NULL;
        return rc;
      }
    }
    else {
      if((rc = settled(st, what)) != STORE_OK)
        return rc;
      /* its second run: worth keeping on the server (a daemon runs the
       * same statements for every mail) */
      if(!s->prepared && s->keep && s->runs >= 1) {
        PGresult *p = PQprepare(c->pg, s->name, s->sql, s->nparams, s->types);
        if(PQresultStatus(p) != PGRES_COMMAND_OK) {
          rc = fail_res(st, p, what);
          PQclear(p);
          return rc;
        }
        PQclear(p);
        s->prepared = true;
      }
      s->runs++;
      if(s->prepared)
        s->res = PQexecPrepared(c->pg, s->name, s->nparams, (const char *const *)s->values,
                                s->lengths, s->formats, 0);
      else
        s->res = PQexecParams(c->pg, s->sql, s->nparams, s->types,
                              (const char *const *)s->values, s->lengths, s->formats, 0);
    }
    status = PQresultStatus(s->res);
    if(status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      rc = fail_res(st, s->res, what);
      PQclear(s->res);
      s->res = NULL;
      return rc;
    }
    c->changes = tuples(s->res);
    s->nrows = status == PGRES_TUPLES_OK ? PQntuples(s->res) : 0;
    s->row = -1;
  }
  if(s->row + 1 < s->nrows) {
    s->row++;
    return STORE_ROW;
  }
  s->row = s->nrows;
  return STORE_OK;
}

static void pq_reset(struct store_stmt *stmt)
{
  struct pg_stmt *s = PGS(stmt);
  int i;

  PQclear(s->res);
  s->res = NULL;
  s->done = false;
  s->row = s->nrows = 0;
  PQfreemem(s->blob);
  s->blob = NULL;
  for(i = 0; i < s->nparams; i++) {
    free(s->values[i]);
    s->values[i] = NULL;
    s->lengths[i] = 0;
    s->formats[i] = 0;
  }
}

static void pq_finalize(struct store_stmt *stmt)
{
  struct pg_stmt *s = PGS(stmt);
  char dealloc[40];
  int i;

  if(!s)
    return;
  for(i = 0; i < s->c->ahead; i++) /* its prepare's result is no more its */
    if(s->c->ahead_prep[i] == s)
      s->c->ahead_prep[i] = NULL;
  /* A statement the store cached lives as long as the session (the cache
   * is finalized only at store_close, and the server forgets a session's
   * statements with it: a DEALLOCATE each would be a round trip each). */
  if(s->prepared && !s->keep && s->c->pg && PQstatus(s->c->pg) == CONNECTION_OK &&
     PQtransactionStatus(s->c->pg) == PQTRANS_IDLE) {
    snprintf(dealloc, sizeof(dealloc), "DEALLOCATE %s", s->name);
    PQclear(PQexec(s->c->pg, dealloc));
  }
  stmt_free(s);
}

/* ---- the current row ---- */

static bool in_row(struct pg_stmt *s, int col)
{
  return s->res && s->row >= 0 && s->row < s->nrows && col >= 0 && col < PQnfields(s->res);
}

static int pq_col_count(struct store_stmt *stmt)
{
  struct pg_stmt *s = PGS(stmt);
  return s->res ? PQnfields(s->res) : 0;
}

static bool pq_col_null(struct store_stmt *stmt, int col)
{
  struct pg_stmt *s = PGS(stmt);
  return !in_row(s, col) || PQgetisnull(s->res, s->row, col);
}

static int64_t pq_col_int64(struct store_stmt *stmt, int col)
{
  struct pg_stmt *s = PGS(stmt);
  return pq_col_null(stmt, col) ? 0 : strtoll(PQgetvalue(s->res, s->row, col), NULL, 10);
}

static double pq_col_double(struct store_stmt *stmt, int col)
{
  struct pg_stmt *s = PGS(stmt);
  return pq_col_null(stmt, col) ? 0.0 : strtod(PQgetvalue(s->res, s->row, col), NULL);
}

static const char *pq_col_text(struct store_stmt *stmt, int col, size_t *len)
{
  struct pg_stmt *s = PGS(stmt);

  *len = 0;
  if(pq_col_null(stmt, col))
    return NULL;
  *len = (size_t)PQgetlength(s->res, s->row, col);
  return PQgetvalue(s->res, s->row, col);
}

static const void *pq_col_blob(struct store_stmt *stmt, int col, size_t *len)
{
  struct pg_stmt *s = PGS(stmt);

  *len = 0;
  PQfreemem(s->blob);
  s->blob = NULL;
  if(pq_col_null(stmt, col))
    return NULL;
  /* bytea comes as text, "\x" and hex */
  s->blob = PQunescapeBytea((const unsigned char *)PQgetvalue(s->res, s->row, col), len);
  if(!s->blob || !*len) {
    *len = 0;
    return NULL;
  }
  return s->blob;
}

static const char *pq_col_name(struct store_stmt *stmt, int col)
{
  struct pg_stmt *s = PGS(stmt);
  return s->res && col >= 0 && col < PQnfields(s->res) ? PQfname(s->res, col) : "";
}

/* The column's type (pg_type's oids) as the kind of value it holds. */
static char pq_col_kind(struct store_stmt *stmt, int col)
{
  struct pg_stmt *s = PGS(stmt);

  if(pq_col_null(stmt, col))
    return 'n';
  switch(PQftype(s->res, col)) {
  case 20: /* int8 */
  case 21: /* int2 */
  case 23: /* int4 */
    return 'i';
  case 700: /* float4 */
  case 701: /* float8 */
    return 'd';
  case 17: /* bytea */
    return 'b';
  default:
    return 't';
  }
}

/* ---- the connection's state ---- */

static bool pq_in_tx(struct store *st)
{
  PGTransactionStatusType t = PQtransactionStatus(pg_of(st));
  return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

static int64_t pq_changes(struct store *st)
{
  struct pg_conn *c = st->conn;
  /* the count of a statement sent ahead: its result read now; a failure
   * is kept for the next statement to return (late_rc) */
  if(c->ahead) {
    int rc = settle(st, NULL, "reading the rows changed");
    if(rc)
      c->late_rc = rc;
  }
  return c->changes;
}

static int pq_begin(struct store *st, const char *what)
{
  /* One round trip: the transaction and the writers' lock (above). */
  return pq_exec(st, "BEGIN; SELECT pg_advisory_xact_lock(" WRITE_LOCK ")", what);
}

/* ---- the schema ---- */

/* The version lives in a table of its own, tabula_schema (schema_pg.c);
 * none yet is version 0. */
static int pq_schema_version(struct store *st, int *version)
{
  PGresult *res;
  int rc = settled(st, "reading the schema version");

  *version = 0;
  if(rc)
    return rc;
  res = PQexec(pg_of(st), "SELECT to_regclass('tabula_schema') IS NOT NULL");
  if(PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
    rc = fail_res(st, res, "reading the schema version");
    PQclear(res);
    return rc;
  }
  if(strcmp(PQgetvalue(res, 0, 0), "t")) {
    PQclear(res);
    return STORE_OK;
  }
  PQclear(res);
  res = PQexec(pg_of(st), "SELECT max(version) FROM tabula_schema");
  if(PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1)
    rc = fail_res(st, res, "reading the schema version");
  else if(!PQgetisnull(res, 0, 0))
    *version = atoi(PQgetvalue(res, 0, 0));
  PQclear(res);
  return rc;
}

static int pq_set_schema_version(struct store *st, int version)
{
  char sql[200];

  /* the number comes from the store's own list of versions */
  snprintf(sql, sizeof(sql),
           "CREATE TABLE IF NOT EXISTS tabula_schema(version integer NOT NULL);"
           "DELETE FROM tabula_schema; INSERT INTO tabula_schema(version) VALUES(%d)",
           version);
  return pq_exec(st, sql, "recording the schema version");
}

/* ---- the connection ---- */

static bool pq_claims(const char *target)
{
  size_t n;

  if(!strncmp(target, "postgresql://", 13) || !strncmp(target, "postgres://", 11))
    return true;
  /* a libpq keyword/value string: a keyword, then '=' */
  n = strspn(target, "abcdefghijklmnopqrstuvwxyz_");
  return n > 0 && target[n] == '=';
}

/* "PostgreSQL database DB on HOST" (or service S), from libpq's reading of
 * the name: never its password. */
static void pq_display(const char *target, char *buf, size_t cap)
{
  PQconninfoOption *opts = PQconninfoParse(target, NULL), *o;
  const char *db = NULL, *host = NULL, *service = NULL;

  for(o = opts; o && o->keyword; o++) {
    if(!o->val || !o->val[0])
      continue;
    if(!strcmp(o->keyword, "dbname"))
      db = o->val;
    else if(!strcmp(o->keyword, "host"))
      host = o->val;
    else if(!strcmp(o->keyword, "service"))
      service = o->val;
  }
  if(!opts)
    snprintf(buf, cap, "a PostgreSQL database (its name does not parse)");
  else if(service)
    snprintf(buf, cap, "PostgreSQL service %s", service);
  else
    snprintf(buf, cap, "PostgreSQL database %s on %s", db ? db : "(default)",
             host ? host : "the local socket");
  PQconninfoFree(opts);
}

static int pq_open(struct store *st, const char *target)
{
  struct pg_conn *c = calloc(1, sizeof(*c));
  PQconninfoOption *opts, *o;
  char *err = NULL;
  PGresult *res;

  if(!c)
    return store_fail(st, STORE_ENOMEM, "out of memory");
  st->conn = c;
  opts = PQconninfoParse(target, &err);
  if(!opts) {
    int rc = store_fail(st, STORE_EIO, "the store's PostgreSQL connection string: %s",
                        err ? err : "out of memory");
    PQfreemem(err);
    return rc;
  }
  for(o = opts; o->keyword; o++)
    if(!strcmp(o->keyword, "password") && o->val && o->val[0]) {
      PQconninfoFree(opts);
      return store_fail(st, STORE_EIO,
                        "the store's PostgreSQL connection string holds a password: keep it "
                        "in ~/.pgpass or a passfile= instead (tabula.ini(5))");
    }
  PQconninfoFree(opts);
  c->pg = PQconnectdb(target);
  if(!c->pg)
    return store_fail(st, STORE_ENOMEM, "connecting to PostgreSQL: out of memory");
  if(PQstatus(c->pg) != CONNECTION_OK)
    return fail_res(st, NULL, "connecting to PostgreSQL");
  /* What the store counts on, whatever the server's defaults: UTF-8
   * text, and messages it can pass on. */
  res = PQexec(c->pg, "SET client_encoding = 'UTF8'; SET client_min_messages = warning");
  if(PQresultStatus(res) != PGRES_COMMAND_OK) {
    int rc = fail_res(st, res, "setting up the connection");
    PQclear(res);
    return rc;
  }
  PQclear(res);
  return STORE_OK;
}

static int pq_configure(struct store *st)
{
  /* The replies kept in the outbox (outbox_message, tens of KB of HTML
   * each) are compressed by the server as they are stored: LZ4 takes a
   * fraction of the CPU of PostgreSQL's default (pglz) for them, measured
   * as the dearest statement of a move (bench/engines.sh, pg_stat_statements).
   * A server built without LZ4 refuses the setting: it keeps its own. */
  PQclear(PQexec(pg_of(st), "SET default_toast_compression = 'lz4'"));

  /* Every commit waits for the server's disk (and its synchronous
   * standbys, as the operator configured them): a move the player was told
   * about survives a crash, as with SQLite's synchronous=FULL. */
  /* A writer waits for another's transaction as long as SQLite's busy
   * timeout (driver_sqlite.c), then gives up with STORE_EBUSY. */
  /* Read committed, whatever the database's default (tabula.ini(5),
   * POSTGRESQL): the store's read-then-write groups are kept whole by the
   * writers' lock (pq_begin), and each statement must see what the writer
   * before had committed. Under repeatable read the transaction's snapshot
   * would be taken by the statement that waits for the lock, before the
   * other writer's commit: a journal's head read after it would be stale. */
  return pq_exec(st,
                 "SET synchronous_commit = on; SET lock_timeout = '15s';"
                 " SET default_transaction_isolation = 'read committed'",
                 "setting up the connection");
}

static void pq_close(struct store *st)
{
  struct pg_conn *c = st->conn;

  if(!c)
    return;
  if(c->ahead)
    (void)settle(st, NULL, "closing"); /* rolled back below */
  if(c->pg && PQstatus(c->pg) == CONNECTION_OK) {
    /* The server drops a closed session's locks when its backend has
     * ended, a moment after PQfinish: dropped here, before it returns, a
     * process that opens the store next finds them free (lock.c). */
    if(PQtransactionStatus(c->pg) != PQTRANS_IDLE)
      PQclear(PQexec(c->pg, "ROLLBACK"));
    PQclear(PQexec(c->pg, "SELECT pg_advisory_unlock_all()"));
  }
  if(c->pg)
    PQfinish(c->pg);
  free(c);
  st->conn = NULL;
}

/* ---- processes sharing the store (driver.h, lock.c) ---- */

/* lock.c's lock n as an advisory lock's key */
static int64_t lock_key(int64_t n)
{
  return n == 0 ? DAEMON_LOCK : n;
}

/* One row, one column of a statement with one bigint parameter, as text
 * into buf (NULL: no row). */
static int query_key(struct store *st, const char *sql, int64_t key, char *buf, size_t cap,
                     bool *row, const char *what)
{
  char text[24];
  const char *values[1] = {text};
  const Oid types[1] = {20}; /* int8 */
  PGresult *res;
  int rc = STORE_OK;

  snprintf(text, sizeof(text), "%lld", (long long)key);
  *row = false;
  if((rc = settled(st, what)) != STORE_OK)
    return rc;
  res = PQexecParams(pg_of(st), sql, 1, types, values, NULL, NULL, 0);
  *row = false;
  if(PQresultStatus(res) != PGRES_TUPLES_OK)
    rc = fail_res(st, res, what);
  else if(PQntuples(res) > 0) {
    *row = true;
    snprintf(buf, cap, "%s", PQgetisnull(res, 0, 0) ? "" : PQgetvalue(res, 0, 0));
  }
  PQclear(res);
  return rc;
}

/* The advisory lock's holders other than this session: pg_locks shows a
 * bigint key as classid (high half) and objid (low half), objsubid 1. */
#define HOLDERS                                                                               \
  " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1"                            \
  " AND ((l.classid::bigint << 32) | l.objid::bigint) = $1 AND l.pid <> pg_backend_pid()"     \
  " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"

static int pq_lock_take(struct store *st, int64_t n, bool *got)
{
  char value[8], name[64];
  bool row;
  int rc = query_key(st, "SELECT pg_try_advisory_lock($1)", lock_key(n), value, sizeof(value),
                     &row, "taking a lock");

  *got = rc == STORE_OK && row && !strcmp(value, "t");
  if(*got && n == 0) {
    /* for the message that turns a second daemon away (pq_lock_holder) */
    snprintf(name, sizeof(name), "SET application_name = 'tabula serve (pid %ld)'",
             (long)getpid());
    PQclear(PQexec(pg_of(st), name));
  }
  return rc;
}

static int pq_lock_held(struct store *st, int64_t n, bool *held)
{
  char value[8];
  return query_key(st, "SELECT 1 FROM pg_locks l" HOLDERS " LIMIT 1", lock_key(n), value, sizeof(value), held,
                   "looking at a lock");
}

static void pq_lock_holder(struct store *st, int64_t n, char *buf, size_t cap)
{
  char saved[sizeof(st->err)];
  bool row = false;

  memcpy(saved, st->err, sizeof(saved));
  if(query_key(st,
               "SELECT coalesce(a.application_name, '') || coalesce(' on ' ||"
               " host(a.client_addr), '')"
               " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid" HOLDERS " LIMIT 1",
               lock_key(n), buf, cap, &row, "naming a lock's holder") != STORE_OK ||
     !row)
    buf[0] = '\0';
  memcpy(st->err, saved, sizeof(saved));
}

/* ---- durability and upkeep ---- */

static int pq_lazy(struct store *st, bool on)
{
  /* A lazy batch's commit may be lost in a crash of the server, never
   * torn: synchronous_commit = off, PostgreSQL's own words for it. */
  return pq_exec(st, on ? "SET synchronous_commit = off" : "SET synchronous_commit = on",
                 "lazy batch");
}

/* PostgreSQL checks its pages itself (checksums, when the cluster has
 * them) and its operator has amcheck; the store's own checks (`tabula
 * check`: every journal's chain, every game replayed) run on it as on
 * SQLite. */
static int pq_integrity_check(struct store *st, char **problems)
{
  *problems = calloc(1, 1);
  if(!*problems)
    return store_fail(st, STORE_ENOMEM, "integrity check: out of memory");
  return STORE_OK;
}

/* ---- moving a store (copy.c) ---- */

/* Every identity column of `table` (schema_pg.c: BY DEFAULT, so a copy
 * wrote the ids it brought) set to go on after the highest id there; an
 * empty table's stays where it is (setval of NULL does nothing). */
static int pq_ids_follow(struct store *st, const char *table)
{
  const char *values[1] = {table};
  PGresult *res;
  int rc0 = settled(st, "setting the next id");

  if(rc0)
    return rc0;
  res = PQexecParams(pg_of(st),
                               "SELECT column_name FROM information_schema.columns"
                               " WHERE table_schema = current_schema() AND table_name = $1"
                               " AND is_identity = 'YES'",
                               1, NULL, values, NULL, NULL, 0);
  int i, rc = STORE_OK;

  if(PQresultStatus(res) != PGRES_TUPLES_OK) {
    rc = fail_res(st, res, "reading the identity columns");
    PQclear(res);
    return rc;
  }
  for(i = 0; rc == STORE_OK && i < PQntuples(res); i++) {
    char *t = PQescapeIdentifier(pg_of(st), table, strlen(table));
    char *c = PQescapeIdentifier(pg_of(st), PQgetvalue(res, i, 0), strlen(PQgetvalue(res, i, 0)));
    char sql[400];
    const char *args[2] = {t, PQgetvalue(res, i, 0)};
    PGresult *set;

    if(!t || !c) {
      rc = store_fail(st, STORE_ENOMEM, "setting the next id: out of memory");
    }
    else {
      snprintf(sql, sizeof(sql),
               "SELECT setval(pg_get_serial_sequence($1, $2), max(%s)) FROM %s", c, t);
      set = PQexecParams(pg_of(st), sql, 2, NULL, args, NULL, NULL, 0);
      if(PQresultStatus(set) != PGRES_TUPLES_OK)
        rc = fail_res(st, set, "setting the next id");
      PQclear(set);
    }
    PQfreemem(t);
    PQfreemem(c);
  }
  PQclear(res);
  return rc;
}

const struct store_driver store_driver_pg = {
  .name = "PostgreSQL",
  .claims = pq_claims,
  .display = pq_display,
  .open = pq_open,
  .configure = pq_configure,
  .close = pq_close,
  .exec = pq_exec,
  .prepare = pq_prepare,
  .bind_int64 = pq_bind_int64,
  .bind_double = pq_bind_double,
  .bind_text = pq_bind_text,
  .bind_blob = pq_bind_blob,
  .bind_null = pq_bind_null,
  .step = pq_step,
  .reset = pq_reset,
  .finalize = pq_finalize,
  .col_count = pq_col_count,
  .col_null = pq_col_null,
  .col_int64 = pq_col_int64,
  .col_double = pq_col_double,
  .col_text = pq_col_text,
  .col_blob = pq_col_blob,
  .col_name = pq_col_name,
  .col_kind = pq_col_kind,
  .in_tx = pq_in_tx,
  .changes = pq_changes,
  .begin = pq_begin,
  .schema_version = pq_schema_version,
  .set_schema_version = pq_set_schema_version,
  .migrations = store_pg_migrations,
  .lock_take = pq_lock_take,
  .lock_held = pq_lock_held,
  .lock_holder = pq_lock_holder,
  .lazy = pq_lazy,
  .checkpoint_later = NULL,
  .checkpoint_idle = NULL,
  .integrity_check = pq_integrity_check,
  .tables_sql = "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema()"
                " AND tablename <> 'tabula_schema' ORDER BY 1",
  .ids_follow = pq_ids_follow,
};
