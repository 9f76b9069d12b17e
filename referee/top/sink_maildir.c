/*
 * sink_maildir.c: replies written into the outbox Maildir (`sink =
 * maildir`, the default). Grouped (transport_int.h): a chunk is written,
 * each reply under its row's own file name, synced once, then marked sent
 * in one transaction; a chunk written before a crash and written again
 * after it is recognised by name (in new/, or in cur/ for rows in doubt)
 * instead of doubled.
 */
#include "transport_int.h"

#include "log.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A chunk of at most this many fresh replies is synced file by file (an
 * fdatasync each as it is written, then one of new/) instead of by
 * syncfs, which also writes every other dirty page of the file system: on
 * a shared server, other programs' data, at this daemon's cost and theirs.
 * A daemon's pass over one or two mails writes two to four replies; a big
 * batch keeps the one syncfs. */
#define SYNC_BY_FILE_MAX 16

struct maildir_sink {
  /* this chunk: each file synced as it is written (MAIL_SYNC_FILE); rows
   * found written before a crash are not synced by file: syncfs */
  bool by_file;
};

static int check(const struct ref_config *cfg, char *err, size_t cap)
{
  (void)cfg;
  (void)err;
  (void)cap;
  return 0;
}

static const char *folder(const struct ref_config *cfg)
{
  return cfg->outbox;
}

static void *open_state(const struct ref_config *cfg)
{
  (void)cfg;
  return calloc(1, sizeof(struct maildir_sink));
}

static void close_state(void *state)
{
  free(state);
}

/* The file for a row: the row's own name, so a reply written before a
 * crash and written again after it is the same file, recognised instead
 * of doubled. "<created>.R<id>S<store id>.tabula": seconds first, as
 * Maildir names go and readers sort; the row id padded so the text order
 * is the order of composition; the store's random id keeps two stores
 * writing into one Maildir (or a store made anew beside an old outbox)
 * apart. No host name: the name must not change with the host. Whoever
 * prunes sent rows must keep row ids from being reused (SQLite reuses the
 * highest id once its row is gone), or a new reply could be taken for an
 * old one's file. */
static int maildir_name(struct ref_service *svc, const struct store_outbox *row, char *buf,
                        size_t cap)
{
  int n = snprintf(buf, cap, "%lld.R%010lldS%s.tabula", (long long)row->created,
                   (long long)row->id, store_id(svc->st));
  return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The length of ref_driver_lf_copy(s) without making it. */
static size_t lf_len(const char *s)
{
  size_t n = strlen(s);
  const char *end = s + n, *cr = s;
  while((cr = memchr(cr, '\r', (size_t)(end - cr)))) {
    if(cr[1] == '\n')
      n--;
    cr++;
  }
  return n;
}

/* Which rows of a chunk taken over from a process that died (in_doubt)
 * are in the outbox already, written before the crash and perhaps moved
 * to cur/ by a reader since: found[i]. One look at new/ and cur/ for the
 * whole chunk. */
static int chunk(struct ref_service *svc, void *state, const struct store_outbox *rows, size_t n,
                 bool fresh, bool *found)
{
  struct maildir_sink *s = state;
  char **names = calloc(n + 1, sizeof(*names));
  size_t *lens = calloc(n + 1, sizeof(*lens));
  bool *hit = calloc(n + 1, sizeof(*hit));
  size_t i, k = 0;
  int rc = -1;

  s->by_file = fresh && n <= SYNC_BY_FILE_MAX;
  if(!names || !lens || !hit)
    goto out;
  for(i = 0; i < n; i++) {
    found[i] = false;
    if(!rows[i].in_doubt)
      continue;
    names[k] = malloc(128);
    if(!names[k] || maildir_name(svc, &rows[i], names[k], 128))
      goto out;
    lens[k++] = lf_len(rows[i].message);
  }
  rc = 0;
  if(k && mail_maildir_find(svc->cfg.outbox, names, lens, k, hit))
    rc = -1;
  for(i = 0, k = 0; rc == 0 && i < n; i++)
    if(rows[i].in_doubt)
      found[i] = hit[k++];
out:
  for(i = 0; names && i < n; i++)
    free(names[i]);
  free(names);
  free(lens);
  free(hit);
  return rc;
}

/* Written, durable after sync. Here already when a sync failed after the
 * write (rows in doubt were looked for before: chunk). A row just queued
 * (fresh) was never written: nothing to look for. */
static int send_row(struct ref_service *svc, void *state, const struct store_outbox *row,
                    bool fresh, char *err, size_t cap)
{
  struct maildir_sink *s = state;
  char name[128];
  size_t len = 0;
  bool already = false;
  char *msg;
  int rc;

  err[0] = '\0';
  msg = ref_driver_lf_copy(row->message, &len);
  if(!msg)
    return MAIL_ENOMEM;
  if(maildir_name(svc, row, name, sizeof(name)))
    rc = MAIL_EIO;
  else {
    rc = mail_maildir_put(svc->cfg.outbox, name, msg, len,
                          s->by_file ? MAIL_SYNC_FILE : MAIL_SYNC_NONE, fresh ? NULL : &already);
    if(rc)
      snprintf(err, cap, "cannot write to %.300s: %s", svc->cfg.outbox, strerror(errno));
    else if(already)
      ref_log_info("outbox %lld: already in %s as %s, not written again", (long long)row->id,
                   svc->cfg.outbox, name);
  }
  free(msg);
  return rc;
}

/* The chunk made durable: new/ alone when each file was synced as it was
 * written, else one syncfs. */
static int sync_chunk(struct ref_service *svc, void *state)
{
  struct maildir_sink *s = state;
  if(s->by_file)
    return mail_maildir_sync_folder(svc->cfg.outbox) ? -1 : 0;
  return mail_maildir_sync(svc->cfg.outbox) ? -1 : 0;
}

const struct ref_sink_driver ref_sink_maildir = {
  .name = "maildir",
  .grouped = true,
  .check = check,
  .where = folder,
  .folder = folder,
  .open = open_state,
  .close = close_state,
  .chunk = chunk,
  .send = send_row,
  .sync = sync_chunk,
};
