/*
 * deliver_main.c: tabula-deliver, the MTA's pipe when a daemon serves the
 * store (a mail costs less than a process start).
 *
 * `tabula deliver` plays a mail in its own process: it loads SQLite,
 * libetpan, GnuTLS and the rules, opens the store, plays, commits and
 * writes the replies, and most of its cost is starting that process. When
 * `tabula serve` is running on the same store and reads a Maildir inbox,
 * the daemon already holds all of that: this small program only puts the
 * mail in the daemon's inbox, durably, and exits. It links nothing but the
 * C library (shared, as Debian wants it) and inih's archive.
 *
 *   - the configuration is found and read as every tabula command reads it
 *     (config.c: -c FILE, $TABULA_CONFIG, the system file, the defaults);
 *   - the daemon is there when it holds byte 0 of STORE.lock (store/probe.c);
 *   - the mail is written as Maildir says (mail/maildir.c: tmp/, fsync,
 *     link into new/, fsync of new/) before the exit status 0 tells the MTA
 *     it may forget it: durable before acknowledged, as `tabula deliver`;
 *   - the daemon wakes on the new file (inotify, transport.c) and plays it
 *     with the rest of its batch; its arrival time is the file's.
 *
 * In every other case (no daemon, a source other than maildir, a
 * configuration that does not read, an argument this program does not
 * know) it hands over to `tabula deliver` (exec, standard input untouched),
 * which plays the mail itself or says what is wrong. Either way the MTA sees
 * the statuses of sysexits.h: 0 taken, 65 refused for good, 75 try later.
 *
 * A daemon that stops between the probe and the write leaves the mail in
 * the inbox, where it waits for the next `serve` or `poll`: nothing lost.
 */
#include "mail.h"
#include "referee.h"
#include "store.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <unistd.h>

/* `tabula deliver`, with the same arguments: the binary beside this one
 * (the build tree and an installation alike keep them together). */
static int hand_over(char **argv)
{
  char self[PATH_MAX], full[PATH_MAX + 8];
  ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
  char *slash;
  size_t argc = 0, i;
  char **args;

  if(n <= 0) {
    fprintf(stderr, "tabula-deliver: cannot find its own path: %s\n", strerror(errno));
    return EX_TEMPFAIL;
  }
  self[n] = '\0';
  slash = strrchr(self, '/');
  if(!slash)
    return EX_TEMPFAIL;
  slash[1] = '\0';
  snprintf(full, sizeof(full), "%stabula", self);
  while(argv[argc])
    argc++;
  args = calloc(argc + 2, sizeof(*args));
  if(!args)
    return EX_TEMPFAIL;
  args[0] = full;
  args[1] = "deliver";
  for(i = 1; i < argc; i++)
    args[i + 1] = argv[i];
  execv(full, args);
  fprintf(stderr, "tabula-deliver: cannot run %s: %s\n", full, strerror(errno));
  free(args);
  return EX_TEMPFAIL; /* the MTA keeps the mail and tries again */
}

int main(int argc, char **argv)
{
  struct ref_config cfg;
  const char *option = NULL, *origin = NULL, *path;
  char err[768], name[256];
  char *data = NULL;
  size_t len = 0;
  int rc;

  /* -c FILE / --config FILE / --config=FILE, as tabula reads them; any
   * other word goes to `tabula deliver`, which knows what to say of it */
  for(int i = 1; i < argc; i++) {
    if((!strcmp(argv[i], "-c") || !strcmp(argv[i], "--config")) && i + 1 < argc)
      option = argv[++i];
    else if(!strncmp(argv[i], "--config=", 9))
      option = argv[i] + 9;
    else
      return hand_over(argv);
  }
  ref_config_defaults(&cfg);
  path = ref_config_locate(option, &origin);
  if(path && ref_config_load(&cfg, path, err, sizeof(err)))
    return hand_over(argv);
  if(strcmp(cfg.source, "maildir") || !store_daemon_running(cfg.store_path))
    return hand_over(argv);

  rc = mail_read_fd(0, &data, &len);
  if(rc == MAIL_ETOOBIG) {
    /* the words and status of `tabula deliver`: the MTA returns the mail */
    fprintf(stderr, "tabula-deliver: message on standard input is over the size limit: "
                    "refused for good\n");
    return EX_DATAERR;
  }
  if(rc != MAIL_OK) {
    fprintf(stderr, "tabula-deliver: cannot read the message from standard input\n");
    return EX_TEMPFAIL;
  }
  rc = mail_maildir_deliver(cfg.inbox, data, len, name, sizeof(name));
  free(data);
  if(rc != MAIL_OK) {
    fprintf(stderr, "tabula-deliver: cannot write the message into the inbox %s: %s\n",
            cfg.inbox, strerror(errno));
    return EX_TEMPFAIL;
  }
  return EX_OK;
}
