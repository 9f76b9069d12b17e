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
  /* the default control must read before a game is made with it (TM-2) */
  if(cfg->time_control[0]) {
    char word[48], control[64] = "";
    int days = 0, weekends = -1;
    snprintf(word, sizeof(word), "time=%s", cfg->time_control);
    if(ref_clock_option(word, &days, &weekends, control, sizeof(control)) != 1) {
      snprintf(errbuf, errcap, "time_control: '%s' is not a time control (30d+1d, 10/50d, 7d)",
               cfg->time_control);
      goto fail;
    }
  }
  /* The store's folder, and the Maildirs in use, are made on first start:
   * an IMAP or POP3 source, an SMTP or sendmail sink, use none, and the
   * default ./tabula-data/inbox would be an empty folder nobody reads. */
  snprintf(dir, sizeof(dir), "%s", ref_config_store(cfg));
  slash = store_names_file(dir) ? strrchr(dir, '/') : NULL;
  if(slash) {
    *slash = '\0';
    if(mkdirs(dir)) {
      snprintf(errbuf, errcap, "cannot create %s: %s", dir, strerror(errno));
      goto fail;
    }
  }
  /* the drivers of the source and sink, chosen once (transport.c) */
  if(ref_transport_open(svc, errbuf, errcap))
    goto fail;
  switch(store_open(&svc->st, ref_config_store(cfg), errbuf, errcap)) {
  case STORE_OK: break;
  case STORE_ECORRUPT: ref_transport_close(svc); free(svc); return REF_OPEN_EDAMAGED;
  default: goto fail;
  }
  *out = svc;
  return 0;
fail:
  ref_transport_close(svc);
  free(svc);
  return REF_OPEN_EFAIL;
}

bool ref_service_store_is_file(const struct ref_config *cfg)
{
  return store_names_file(ref_config_store(cfg));
}

void ref_service_store_name(const struct ref_config *cfg, char *buf, size_t cap)
{
  store_display_name(ref_config_store(cfg), buf, cap);
}

int ref_service_store_made(const struct ref_config *cfg, char *errbuf, size_t errcap)
{
  int version = 0;

  if(store_peek_version(ref_config_store(cfg), &version, errbuf, errcap) != STORE_OK)
    return -1;
  return version > 0;
}

void ref_service_close(struct ref_service *svc)
{
  if(!svc)
    return;
  ref_transport_close(svc); /* transport.c: IMAP LOGOUT, SMTP QUIT */
  ref_history_free(svc);
  store_close(svc->st);
  free(svc);
}
