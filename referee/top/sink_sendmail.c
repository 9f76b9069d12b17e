/*
 * sink_sendmail.c: replies handed to the local MTA's sendmail program
 * (`sink = sendmail`; mail/sendmail.c): taken when it exits 0, and marked
 * so at once by transport.c.
 */
#include "transport_int.h"

#include <stdio.h>
#include <stdlib.h>

static int check(const struct ref_config *cfg, char *err, size_t cap)
{
  if(cfg->sendmail_path[0] != '/') {
    snprintf(err, cap, "sendmail_path must be an absolute path");
    return -1;
  }
  return 0;
}

static const char *where(const struct ref_config *cfg)
{
  return cfg->sendmail_path;
}

/* Nothing kept between rows: a state only so that open says "ready". */
static void *open_state(const struct ref_config *cfg)
{
  (void)cfg;
  return calloc(1, 1);
}

static void close_state(void *state)
{
  free(state);
}

static int send_row(struct ref_service *svc, void *state, const struct store_outbox *row,
                    bool fresh, char *err, size_t cap)
{
  size_t len = 0;
  char *msg;
  int rc;

  (void)state;
  (void)fresh;
  err[0] = '\0';
  msg = ref_driver_lf_copy(row->message, &len);
  if(!msg)
    return MAIL_ENOMEM;
  rc = mail_sendmail(svc->cfg.sendmail_path, svc->cfg.address, row->recipient, msg, len, err,
                     cap);
  free(msg);
  return rc;
}

const struct ref_sink_driver ref_sink_sendmail = {
  .name = "sendmail",
  .grouped = false,
  .check = check,
  .where = where,
  .folder = NULL,
  .open = open_state,
  .close = close_state,
  .chunk = NULL,
  .send = send_row,
  .sync = NULL,
};
