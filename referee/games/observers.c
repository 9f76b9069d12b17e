/*
 * observers.c: who watches a game (observe GAME): the store's observers
 * table, in the order they came, at most OBSERVERS_MAX; a private game
 * (new GAME private) is in private_games and has no observers. What
 * observers are sent is views.c's (the board from the first seat's side,
 * no key). Layer 3, "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OBSERVERS_MAX 32

/* The list as the callers read it: addresses separated by spaces. */
int ref_observers(struct ref_service *svc, int64_t game, char *buf, size_t cap)
{
  struct store_observer *rows = NULL;
  size_t n = 0, i, used = 0;
  int rc = 0;

  buf[0] = '\0';
  if(store_observer_list(svc->st, &rows, &n, game) != STORE_OK)
    return -1;
  for(i = 0; i < n && !rc; i++) {
    int k = snprintf(buf + used, cap - used, "%s%s", i ? " " : "", rows[i].address);
    if(k < 0 || (size_t)k >= cap - used)
      rc = -1; /* never: OBSERVERS_MAX addresses fit the callers' buffers */
    else
      used += (size_t)k;
  }
  free(rows);
  if(rc)
    buf[0] = '\0';
  return rc;
}

int ref_is_observer(struct ref_service *svc, int64_t game, const char *address)
{
  struct store_observer *rows = NULL;
  size_t n = 0, i;
  int found = 0;
  if(store_observer_list(svc->st, &rows, &n, game) != STORE_OK)
    return -1;
  for(i = 0; i < n && !found; i++)
    found = !strcmp(rows[i].address, address);
  free(rows);
  return found;
}

/* 0 done, 1 nothing to do (already one, or none), -2 no room or an
 * address that cannot be one, -1 a store failure (nothing changed: the
 * message fails and is retried). */
int ref_observer_set(struct ref_service *svc, int64_t game, const char *address, int on)
{
  struct store_observer *rows = NULL;
  size_t n = 0, i;
  bool done = false, found = false;

  if(!on)
    return store_observer_remove(svc->st, &done, game, address) != STORE_OK ? -1
           : done                                                            ? 0
                                                                             : 1;
  if(store_observer_list(svc->st, &rows, &n, game) != STORE_OK)
    return -1;
  for(i = 0; i < n && !found; i++)
    found = !strcmp(rows[i].address, address);
  free(rows);
  if(found)
    return 1;
  if(n >= OBSERVERS_MAX || !address[0] || strchr(address, ' '))
    return -2;
  if(store_observer_add(svc->st, &done, game, address) != STORE_OK)
    return -1;
  return done ? 0 : 1;
}

/* ---- private games: no observers ---- */

int ref_game_private(struct ref_service *svc, int64_t game)
{
  bool on = false;
  if(store_game_flag_get(svc->st, &on, game, STORE_FLAG_PRIVATE) != STORE_OK)
    return -1;
  return on ? 1 : 0;
}

int ref_game_set_private(struct ref_service *svc, int64_t game)
{
  return store_game_flag_set(svc->st, game, STORE_FLAG_PRIVATE) == STORE_OK ? 0 : -1;
}
