/*
 * idle_floor.c: the floor for bench/mail_latency.sh, a bare IMAP IDLE
 * client that does nothing but wake (RFC 2177).
 *
 * Logs in over IMAPS to the bench's own loopback Dovecot (no certificate
 * check: the floor must not include work a real client would skip, and
 * tabula's check runs once per connection, not per mail), SELECTs INBOX, then loops: IDLE, poll() the socket, and on the first byte
 * prints "WAKE <epoch seconds with microseconds>" and ends the IDLE. The
 * driver delivers a mail, notes when Dovecot took it, and reads the WAKE
 * line: the difference is Dovecot's own notification delay (about 500 ms,
 * NOTIFY_DELAY_MSECS in Dovecot's mailbox-watch.c) plus the wake-up.
 *
 * usage: idle_floor HOST PORT USER PASS WAKES
 */
#include <libetpan/libetpan.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int good(int r)
{
  return r == MAILIMAP_NO_ERROR || r == MAILIMAP_NO_ERROR_AUTHENTICATED ||
         r == MAILIMAP_NO_ERROR_NON_AUTHENTICATED;
}

int main(int argc, char **argv)
{
  mailimap *imap;
  int wakes, i;

  if(argc != 6) {
    fprintf(stderr, "usage: %s HOST PORT USER PASS WAKES\n", argv[0]);
    return 2;
  }
  wakes = atoi(argv[5]);
  setvbuf(stdout, NULL, _IOLBF, 0);
  imap = mailimap_new(0, NULL);
  mailimap_set_timeout(imap, 30);
  if(!good(mailimap_ssl_connect(imap, argv[1], (uint16_t)atoi(argv[2]))) ||
     !good(mailimap_login(imap, argv[3], argv[4])) || !good(mailimap_select(imap, "INBOX"))) {
    fprintf(stderr, "idle_floor: cannot log in and select INBOX\n");
    return 1;
  }
  printf("READY\n");
  for(i = 0; i < wakes;) {
    struct pollfd pfd;
    int woke;
    if(!good(mailimap_idle(imap))) {
      fprintf(stderr, "idle_floor: IDLE failed\n");
      return 1;
    }
    woke = imap->imap_stream->read_buffer_len > 0;
    pfd.fd = mailimap_idle_get_fd(imap);
    pfd.events = POLLIN;
    pfd.revents = 0;
    if(!woke)
      woke = poll(&pfd, 1, 60000) > 0;
    if(woke) {
      printf("WAKE %.6f\n", now());
      i++;
    }
    if(!good(mailimap_idle_done(imap))) {
      fprintf(stderr, "idle_floor: DONE failed\n");
      return 1;
    }
  }
  mailimap_logout(imap);
  mailimap_free(imap);
  return 0;
}
