/*
 * sendmail.c: the sendmail pipe, the way most MTAs take a message from a
 * local program: `sendmail -i -f FROM -- RCPT` with the message on
 * standard input, exit status 0 meaning accepted (sendmail(8); Postfix,
 * Exim and OpenSMTPD ship this interface).
 *
 * No shell is involved (fork + execv), and both addresses are checked by
 * mail_addr_valid first, so nothing from a player reaches the command line
 * unchecked. "-i": a line holding only "." does not end the message.
 * "--": no address can be taken for an option. Exit 75 (EX_TEMPFAIL) and
 * signals are for a retry; other non-zero exits are refusals.
 */
#include "mail_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* sendmail(8)'s exit statuses (sysexits.h, as Postfix and Exim use them)
 * in words */
static const struct {
  int code;
  const char *words;
} exit_table[] = {
  {64, "a usage error"},
  {65, "the message was refused as malformed"},
  {66, "input missing"},
  {67, "the recipient is unknown"},
  {68, "the recipient's host is unknown"},
  {69, "the mail system is unavailable"},
  {70, "an internal error of the mail system"},
  {71, "a system error"},
  {73, "it cannot create a file"},
  {74, "an I/O error"},
  {75, "a temporary failure: try again later"},
  {77, "permission denied (postdrop's group, the sandbox?)"},
  {78, "its configuration is wrong"},
  {127, "it could not be run"},
};

static const char *exit_words(int code)
{
  size_t i;
  for(i = 0; i < sizeof(exit_table) / sizeof(exit_table[0]); i++)
    if(exit_table[i].code == code)
      return exit_table[i].words;
  return "a failure";
}

int mail_sendmail(const char *path, const char *from, const char *rcpt, const char *data,
                  size_t len, char *err, size_t errcap)
{
  struct sigaction ign, old;
  int fds[2];
  pid_t pid;
  int status = 0;
  size_t off = 0;
  int rc = 0;

  if(!path || path[0] != '/') {
    snprintf(err, errcap, "sendmail: the path must be absolute");
    return MAIL_EIO;
  }
  if(!mail_addr_valid(from) || !mail_addr_valid(rcpt) || from[0] == '-' || rcpt[0] == '-') {
    snprintf(err, errcap, "sendmail: envelope address refused before sending");
    return MAIL_EREFUSED;
  }
  /* what a failed execv in the child could only say as 127 */
  if(access(path, X_OK))
    goto io;
  if(pipe(fds))
    goto io;
  pid = fork();
  if(pid < 0) {
    close(fds[0]);
    close(fds[1]);
    goto io;
  }
  if(pid == 0) {
    char *const argv[] = {(char *)path, "-i", "-f", (char *)from, "--", (char *)rcpt, NULL};
    dup2(fds[0], 0);
    close(fds[0]);
    close(fds[1]);
    execv(path, argv);
    _exit(127);
  }
  close(fds[0]);
  /* A sendmail that dies early must not kill us with SIGPIPE. */
  memset(&ign, 0, sizeof(ign));
  ign.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ign, &old);
  while(off < len) {
    ssize_t w = write(fds[1], data + off, len - off);
    if(w < 0 && errno == EINTR)
      continue;
    if(w <= 0) {
      rc = MAIL_ENET;
      break;
    }
    off += (size_t)w;
  }
  close(fds[1]);
  sigaction(SIGPIPE, &old, NULL);
  while(waitpid(pid, &status, 0) < 0) {
    if(errno != EINTR) {
      snprintf(err, errcap, "sendmail: lost the child: %s", strerror(errno));
      return MAIL_ENET;
    }
  }
  if(WIFEXITED(status) && WEXITSTATUS(status) == 0 && !rc) {
    err[0] = '\0';
    return 0;
  }
  if(WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    snprintf(err, errcap, "sendmail program %s: sending to %s failed: it exited with %d (%s)",
             path, rcpt, code, exit_words(code));
    /* 75 EX_TEMPFAIL, 127 not runnable (a broken install): retry later. */
    return code == 75 || code == 127 || rc ? MAIL_ENET : MAIL_EREFUSED;
  }
  snprintf(err, errcap, "sendmail program %s: sending to %s failed: killed by signal %d", path,
           rcpt, WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  return MAIL_ENET;
io:
  snprintf(err, errcap, "sendmail program %s: starting it failed: %s", path, strerror(errno));
  return MAIL_ENET;
}
