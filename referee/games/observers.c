/*
 * observers.c: who watches a game (observe GAME): the list is
 * "observers:GAME" in the kv table, addresses separated by spaces, at most
 * OBSERVERS_MAX; a private game (new GAME private) has
 * "private:GAME" there and no observers. What observers are sent is
 * views.c's (the board from the first seat's side, no key). Layer 3,
 * "games" (docs/architecture.md).
 */
#include "game_int.h"

#include <stdio.h>
#include <string.h>

#define OBSERVERS_MAX 32

static void observers_key(char *buf, size_t cap, int64_t game)
{
  snprintf(buf, cap, "observers:%lld", (long long)game);
}

int ref_observers(struct ref_service *svc, int64_t game, char *buf, size_t cap)
{
  char key[48];
  int rc;
  observers_key(key, sizeof(key), game);
  rc = store_kv_get(svc->st, buf, cap, key);
  if(rc == STORE_OK)
    return 0;
  buf[0] = '\0';
  return rc == STORE_ENOTFOUND ? 0 : -1;
}

static int has_word(const char *list, const char *word)
{
  size_t len = strlen(word);
  const char *p = list;
  while((p = strstr(p, word))) {
    if((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
      return 1;
    p += len;
  }
  return 0;
}

int ref_is_observer(struct ref_service *svc, int64_t game, const char *address)
{
  char list[OBSERVERS_MAX * 260];
  if(ref_observers(svc, game, list, sizeof(list)))
    return -1;
  return has_word(list, address);
}

int ref_observer_set(struct ref_service *svc, int64_t game, const char *address, int on)
{
  char key[48], list[OBSERVERS_MAX * 260], next[OBSERVERS_MAX * 260] = "";
  char *save = NULL, *tok;
  int n = 0, found;

  ref_observers(svc, game, list, sizeof(list));
  found = has_word(list, address);
  if(on && found)
    return 1;
  if(!on && !found)
    return 1;
  for(tok = strtok_r(list, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
    if(!on && !strcasecmp(tok, address))
      continue;
    snprintf(next + strlen(next), sizeof(next) - strlen(next), "%s%s", n ? " " : "", tok);
    n++;
  }
  if(on) {
    if(n >= OBSERVERS_MAX || strchr(address, ' '))
      return -2;
    snprintf(next + strlen(next), sizeof(next) - strlen(next), "%s%s", n ? " " : "", address);
  }
  observers_key(key, sizeof(key), game);
  return store_kv_set(svc->st, key, next) == STORE_OK ? 0 : -1;
}

/* ---- private games: no observers ---- */

static void private_key(char *buf, size_t cap, int64_t game)
{
  snprintf(buf, cap, "private:%lld", (long long)game);
}

int ref_game_private(struct ref_service *svc, int64_t game)
{
  char key[48], value[8];
  int rc;
  private_key(key, sizeof(key), game);
  rc = store_kv_get(svc->st, value, sizeof(value), key);
  if(rc == STORE_ENOTFOUND)
    return 0;
  return rc == STORE_OK ? !strcmp(value, "1") : -1;
}

int ref_game_set_private(struct ref_service *svc, int64_t game)
{
  char key[48];
  private_key(key, sizeof(key), game);
  return store_kv_set(svc->st, key, "1") == STORE_OK ? 0 : -1;
}
