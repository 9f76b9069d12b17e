/*
 * tabula-replay: replays a game's history entries with tabula's rules core
 * (referee/rules/, pure C, linked alone) for tools/tabula-verify.
 *
 * Standard input, one entry a line, in order (docs/history-protocol.md,
 * "Verifying", step 8):
 *
 *   SEQ SEAT KIND TEXT
 *
 * The `create` entry names the game system and its options ("new NAME
 * [words] [OPTIONS] by ..."; OPTIONS the word holding '='); `start` sets the
 * position up; `move`, `roll` (text "... faces F F") and `action`
 * ("double", "take", "drop", "resign N", "draw agreed", "draw claim") are
 * played; `undo` ("move SEQ ...") puts back the position before move SEQ
 * (nothing with a rules effect lies between a move and its undo,
 * referee/games/game.c); other kinds change nothing.
 *
 * Standard output, one line an entry: "SEQ ok POSITION" (the position
 * string after it, as the mails print it; "-" before the start), or
 * "SEQ refused WHY" and exit 1 at the first entry the rules refuse.
 * Exit 2: unreadable input. Needs nothing of the service, the store or mail.
 */
#include "rules.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const action_words[REF_ACT_LAST] = {
  "double", "take", "drop", "resign", "draw agreed", "draw claim",
};

static int action_parse(const char *text, enum ref_action *a, int *arg)
{
  for(int i = 0; i < REF_ACT_LAST; i++) {
    size_t len = strlen(action_words[i]);
    if(!strncmp(text, action_words[i], len) && (text[len] == '\0' || text[len] == ' ')) {
      *a = (enum ref_action)i;
      *arg = text[len] ? atoi(text + len + 1) : 0;
      return 0;
    }
  }
  return -1;
}

/* The game system and options of a create entry's text. */
static int create_parse(const char *text, char *name, size_t ncap, char *opts, size_t ocap)
{
  char copy[1024], *save = NULL, *w;
  int i = 0;

  snprintf(copy, sizeof(copy), "%s", text);
  opts[0] = '\0';
  name[0] = '\0';
  for(w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save), i++) {
    if(i == 0 && strcmp(w, "new"))
      return -1;
    if(i == 1)
      snprintf(name, ncap, "%s", w);
    else if(i > 1 && !strcmp(w, "by"))
      break;
    else if(i > 1 && strchr(w, '='))
      snprintf(opts, ocap, "%s", w);
  }
  return name[0] ? 0 : -1;
}

struct saved {
  long long seq;
  struct ref_state *state;
};

int main(void)
{
  const struct ref_game_desc *d = NULL;
  struct ref_state *st = NULL;
  struct saved *saved = NULL;
  size_t nsaved = 0;
  char line[2048], name[64], opts[1024] = "", pos[4096];
  int started = 0, rc = 0;

  while(fgets(line, sizeof(line), stdin)) {
    long long seq;
    int seat, used = 0, r = REF_OK;
    char kind[32];
    const char *text;
    struct ref_err err;

    line[strcspn(line, "\r\n")] = '\0';
    if(!line[0])
      continue;
    if(sscanf(line, "%lld %d %31s %n", &seq, &seat, kind, &used) != 3) {
      fprintf(stderr, "tabula-replay: unreadable line: %s\n", line);
      rc = 2;
      break;
    }
    text = used ? line + used : "";
    memset(&err, 0, sizeof(err));
    snprintf(err.reason, sizeof(err.reason), "refused");
    if(!strcmp(kind, "create")) {
      if(create_parse(text, name, sizeof(name), opts, sizeof(opts)) || !(d = ref_game_find(name))) {
        printf("%lld refused the game system of \"%s\" is not known\n", seq, text);
        rc = 1;
        break;
      }
    }
    else if(!strcmp(kind, "start")) {
      if(!d) {
        printf("%lld refused the game starts before it was made\n", seq);
        rc = 1;
        break;
      }
      free(st);
      st = ref_state_new(d);
      r = st ? d->ops->init(st, opts[0] ? opts : NULL, &err) : REF_ENOMEM;
      started = 1;
    }
    else if(!started && (!strcmp(kind, "move") || !strcmp(kind, "roll") ||
                         !strcmp(kind, "action"))) {
      printf("%lld refused the game has not started\n", seq);
      rc = 1;
      break;
    }
    else if(!strcmp(kind, "move")) {
      struct ref_move m;
      struct saved *more = realloc(saved, (nsaved + 1) * sizeof(*saved));
      if(!more || !(more[nsaved].state = malloc(d->state_size))) {
        saved = more;
        fprintf(stderr, "tabula-replay: out of memory\n");
        rc = 2;
        break;
      }
      saved = more;
      saved[nsaved].seq = seq;
      memcpy(saved[nsaved++].state, st, d->state_size);
      r = d->ops->parse(st, text, &m, &err);
      if(r == REF_OK)
        r = d->ops->apply(st, &m);
    }
    else if(!strcmp(kind, "roll")) {
      int faces[8], n = 0;
      const char *p = strstr(text, "faces");
      if(!p || !d->ops->roll)
        r = REF_EPARSE;
      else {
        char *end;
        for(p += 5; n < 8; p = end) {
          long v = strtol(p, &end, 10);
          if(end == p)
            break;
          faces[n++] = (int)v;
        }
        r = d->ops->roll(st, faces, n, &err);
      }
    }
    else if(!strcmp(kind, "action")) {
      enum ref_action a;
      int arg = 0;
      r = action_parse(text, &a, &arg) ? REF_EPARSE : d->ops->act(st, seat, a, arg, &err);
    }
    else if(!strcmp(kind, "undo")) {
      long long target = 0;
      size_t i;
      if(sscanf(text, "move %lld", &target) != 1)
        r = REF_EPARSE;
      for(i = nsaved; r == REF_OK && i-- > 0;)
        if(saved[i].seq == target)
          break;
      if(r == REF_OK && (i == (size_t)-1 || i != nsaved - 1)) {
        printf("%lld refused it takes back a move that is not the last one\n", seq);
        rc = 1;
        break;
      }
      if(r == REF_OK) {
        memcpy(st, saved[i].state, d->state_size);
        free(saved[i].state);
        nsaved--;
      }
    }
    if(r != REF_OK) {
      printf("%lld refused %s\n", seq, err.reason[0] ? err.reason : "refused");
      rc = 1;
      break;
    }
    if(started && d->ops->encode(st, pos, sizeof(pos)) == REF_OK)
      printf("%lld ok %s\n", seq, pos);
    else
      printf("%lld ok -\n", seq);
  }
  for(size_t i = 0; i < nsaved; i++)
    free(saved[i].state);
  free(saved);
  free(st);
  return rc;
}
