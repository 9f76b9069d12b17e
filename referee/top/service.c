/*
 * service.c: opening and closing the service (docs/architecture.md, the
 * top layer: it joins the store, the Maildirs, the time source and the
 * transports). What one message does is message.c; the time-driven work,
 * tick.c.
 */
#include "service_int.h"

#include "log.h"
#include "mail.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- making directories ---- */

static int mkdirs(const char *path)
{
  char buf[600];
  size_t i, len = strlen(path);
  if(len == 0 || len >= sizeof(buf))
    return len ? -1 : 0;
  memcpy(buf, path, len + 1);
  for(i = 1; i <= len; i++) {
    if(buf[i] == '/' || buf[i] == '\0') {
      char c = buf[i];
      buf[i] = '\0';
      if(mkdir(buf, 0700) && errno != EEXIST)
        return -1;
      buf[i] = c;
    }
  }
  return 0;
}

/* ---- opening ---- */

int ref_service_open(struct ref_service **out, const struct ref_config *cfg, char *errbuf,
                     size_t errcap)
{
  struct ref_service *svc = calloc(1, sizeof(*svc));
  char dir[600];
  char *slash;

  *out = NULL;
  if(!svc) {
    snprintf(errbuf, errcap, "out of memory");
    return -1;
  }
  svc->cfg = *cfg;
  ref_service_set_clock(svc, NULL, NULL);
  ref_log_set_level((enum ref_log_level)cfg->log_level);
  if(cfg->test_clock_file[0] && ref_now_use_file(svc, errbuf, errcap))
    goto fail;
  if(!mail_addr_valid(cfg->address)) {
    snprintf(errbuf, errcap, "address '%s' is not a mail address", cfg->address);
    goto fail;
  }
  /* The store's folder, and the Maildirs in use, are made on first start:
   * an IMAP or POP3 source, an SMTP or sendmail sink, use none, and the
   * default ./tabula-data/inbox would be an empty folder nobody reads. */
  snprintf(dir, sizeof(dir), "%s", cfg->store_path);
  slash = strrchr(dir, '/');
  if(slash) {
    *slash = '\0';
    if(mkdirs(dir)) {
      snprintf(errbuf, errcap, "cannot create %s: %s", dir, strerror(errno));
      goto fail;
    }
  }
  if((!strcmp(cfg->source, "maildir") && mail_maildir_init(cfg->inbox)) ||
     (!strcmp(cfg->sink, "maildir") && mail_maildir_init(cfg->outbox))) {
    snprintf(errbuf, errcap, "cannot create the Maildirs %s and %s", cfg->inbox, cfg->outbox);
    goto fail;
  }
  switch(store_open(&svc->st, cfg->store_path, errbuf, errcap)) {
  case STORE_OK: break;
  case STORE_ECORRUPT: free(svc); return REF_OPEN_EDAMAGED;
  default: goto fail;
  }
  *out = svc;
  return 0;
fail:
  free(svc);
  return REF_OPEN_EFAIL;
}

void ref_service_close(struct ref_service *svc)
{
  if(!svc)
    return;
  ref_transport_close(svc); /* transport.c: IMAP LOGOUT, SMTP QUIT */
  store_close(svc->st);
  free(svc);
}
