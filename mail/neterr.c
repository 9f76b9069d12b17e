/*
 * neterr.c: a transport's failure in words an operator can act on. Every
 * error of IMAP, POP3 (libetpan) and of the TLS check names the server
 * (host and port), the step that failed (connect, STARTTLS, LOGIN, ...)
 * and the cause in words, never a bare library code: libetpan's codes are
 * translated by one table per protocol, and a failed connect adds the
 * system's reason (errno) where there is one. The server's own last words
 * follow when it sent some.
 */
#include "mail_int.h"

#include <errno.h>
#include <libetpan/libetpan.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

struct code_words {
  int code;
  const char *words;
};

/* libetpan's mailimap codes (mailimap_types.h) */
static const struct code_words imap_words[] = {
  {MAILIMAP_ERROR_BAD_STATE, "the session was in the wrong state for the command"},
  {MAILIMAP_ERROR_STREAM, "the connection broke (closed by the server, a timeout or a network fault)"},
  {MAILIMAP_ERROR_PARSE, "the server's answer is not IMAP"},
  {MAILIMAP_ERROR_CONNECTION_REFUSED, "could not connect"},
  {MAILIMAP_ERROR_MEMORY, "out of memory"},
  {MAILIMAP_ERROR_FATAL, "the server ended the session (BYE)"},
  {MAILIMAP_ERROR_PROTOCOL, "the server broke the IMAP protocol"},
  {MAILIMAP_ERROR_DONT_ACCEPT_CONNECTION, "the server does not accept the connection (its greeting was not OK)"},
  {MAILIMAP_ERROR_LOGIN, "the server refused the user name or password"},
  {MAILIMAP_ERROR_SELECT, "the server refused to open the mailbox (imap_mailbox: does it exist?)"},
  {MAILIMAP_ERROR_CAPABILITY, "the server refused CAPABILITY"},
  {MAILIMAP_ERROR_UID_FETCH, "the server refused to send the message"},
  {MAILIMAP_ERROR_UID_STORE, "the server refused to flag the message"},
  {MAILIMAP_ERROR_UID_MOVE, "the server refused to move the message (imap_move_to: does that folder exist?)"},
  {MAILIMAP_ERROR_UID_SEARCH, "the server refused the search"},
  {MAILIMAP_ERROR_STARTTLS, "the server refused STARTTLS (in_tls = implicit, or a server that offers it?)"},
  {MAILIMAP_ERROR_SSL, "the TLS handshake failed (a server that speaks no TLS on this port?)"},
  {MAILIMAP_ERROR_EXTENSION, "the server lacks an extension the command needs"},
  {MAILIMAP_ERROR_INVAL, "an invalid argument"},
};

/* libetpan's mailpop3 codes (mailpop3_types.h) */
static const struct code_words pop3_words[] = {
  {MAILPOP3_ERROR_BAD_STATE, "the session was in the wrong state for the command"},
  {MAILPOP3_ERROR_UNAUTHORIZED, "the server does not accept the connection (its greeting was not +OK)"},
  {MAILPOP3_ERROR_STREAM, "the connection broke (closed by the server, a timeout or a network fault)"},
  {MAILPOP3_ERROR_DENIED, "the server refused the command"},
  {MAILPOP3_ERROR_BAD_USER, "the server refused the user name"},
  {MAILPOP3_ERROR_BAD_PASSWORD, "the server refused the password"},
  {MAILPOP3_ERROR_CANT_LIST, "the server refused to list the maildrop"},
  {MAILPOP3_ERROR_NO_SUCH_MESSAGE, "the message is gone from the maildrop"},
  {MAILPOP3_ERROR_MEMORY, "out of memory"},
  {MAILPOP3_ERROR_CONNECTION_REFUSED, "could not connect"},
  {MAILPOP3_ERROR_CAPA_NOT_SUPPORTED, "the server does not answer CAPA"},
  {MAILPOP3_ERROR_STLS_NOT_SUPPORTED, "the server refused STLS (in_tls = implicit, or a server that offers it?)"},
  {MAILPOP3_ERROR_SSL, "the TLS handshake failed (a server that speaks no TLS on this port?)"},
  {MAILPOP3_ERROR_QUIT_FAILED, "the server refused QUIT (the deletions may not have been made)"},
};

static const char *words_of(const struct code_words *t, size_t n, int code)
{
  size_t i;
  for(i = 0; i < n; i++)
    if(t[i].code == code)
      return t[i].words;
  return "an unexpected failure";
}

const char *mail_imap_words(int code)
{
  return words_of(imap_words, sizeof(imap_words) / sizeof(imap_words[0]), code);
}

const char *mail_pop3_words(int code)
{
  return words_of(pop3_words, sizeof(pop3_words) / sizeof(pop3_words[0]), code);
}

/* The system's reason for a failed connect, when errno holds one that
 * belongs to a connect. */
static const char *connect_reason(int err)
{
  switch(err) {
  case ECONNREFUSED: return "connection refused: nothing listens on that port";
  case ETIMEDOUT: return "timed out: no answer from that address";
  case EHOSTUNREACH: return "no route to the host";
  case ENETUNREACH: return "the network is unreachable";
  case ECONNRESET: return "the connection was reset";
  case EACCES:
  case EPERM: return "not permitted (a firewall or the sandbox)";
  case EADDRNOTAVAIL: return "the address is not available";
  default: return NULL;
  }
}

/* libetpan says only "connection refused" for a name that does not
 * resolve, a port nobody listens on, a host that does not answer, and
 * keeps no errno. The cause is found by trying once more, the same way
 * (getaddrinfo, then a connect to each address, at most timeout_s each),
 * only after a failure. */
void mail_connect_cause(const char *host, unsigned port, int timeout_s, char *buf, size_t cap)
{
  struct addrinfo hints, *res = NULL, *ai;
  char service[16];
  int rc, last = 0;

  memset(&hints, 0, sizeof(hints));
  hints.ai_socktype = SOCK_STREAM;
  snprintf(service, sizeof(service), "%u", port);
  rc = getaddrinfo(host, service, &hints, &res);
  if(rc) {
    snprintf(buf, cap, "the host name does not resolve: %s",
             rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
    return;
  }
  for(ai = res; ai; ai = ai->ai_next) {
    struct pollfd pfd;
    socklen_t len = sizeof(last);
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    ai->ai_protocol);
    if(fd < 0) {
      last = errno;
      continue;
    }
    if(connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
      close(fd);
      last = 0;
      break;
    }
    last = errno;
    if(last == EINPROGRESS) {
      pfd.fd = fd;
      pfd.events = POLLOUT;
      rc = poll(&pfd, 1, (timeout_s > 0 ? timeout_s : 30) * 1000);
      if(rc == 0)
        last = ETIMEDOUT;
      else if(rc < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &last, &len))
        last = errno;
    }
    close(fd);
    if(!last)
      break;
  }
  freeaddrinfo(res);
  if(!last)
    snprintf(buf, cap, "it answers now: a passing fault");
  else if(connect_reason(last))
    snprintf(buf, cap, "%s", connect_reason(last));
  else
    snprintf(buf, cap, "%s", strerror(last));
}

void mail_server_error(char *err, size_t cap, const char *proto, const char *host, unsigned port,
                       const char *step, const char *cause, const char *detail,
                       const char *server_said)
{
  bool more = detail && detail[0];
  snprintf(err, cap, "%s server %s port %u: %s failed: %s%s%s%s", proto, host ? host : "?",
           port, step, cause, more ? " (" : "", more ? detail : "", more ? ")" : "");
  if(server_said && server_said[0]) {
    size_t used = strlen(err);
    if(used + 1 < cap)
      snprintf(err + used, cap - used, "; the server said: %s", server_said);
  }
}
