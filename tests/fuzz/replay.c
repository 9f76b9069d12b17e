/*
 * replay.c: the fuzz targets' main() when libFuzzer is not linked in (gcc,
 * or clang without -DTABULA_FUZZ=ON). Runs LLVMFuzzerTestOneInput once on
 * every file named, and on every file of every directory named (sorted, so
 * a failure replays the same way), then prints how many inputs it ran.
 *
 * usage: fuzz_NAME FILE|DIR ...
 *
 * A broken property aborts inside the target, so the exit status (and the
 * ctest of each target, tests/fuzz/CMakeLists.txt) says whether the corpus
 * still passes. Arguments starting with '-' (libFuzzer's flags) are ignored,
 * so bench/fuzz.sh and ctest can pass the same command lines to both kinds
 * of binary.
 */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define INPUT_MAX (1u << 20) /* larger inputs are no seeds: refuse them */

/* Weak: a target without set-up does not define it. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static long runs;

static int run_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  uint8_t *buf = NULL;
  long size = -1;

  if(f && !fseek(f, 0, SEEK_END))
    size = ftell(f);
  if(!f || size < 0 || size > (long)INPUT_MAX || fseek(f, 0, SEEK_SET)) {
    fprintf(stderr, "%s: cannot read it, or larger than %u bytes\n", path, INPUT_MAX);
    if(f)
      fclose(f);
    return -1;
  }
  /* exactly size bytes, so ASan sees a read past the input */
  buf = malloc(size ? (size_t)size : 1);
  if(!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
    fprintf(stderr, "%s: cannot read it\n", path);
    free(buf);
    fclose(f);
    return -1;
  }
  fclose(f);
  LLVMFuzzerTestOneInput(buf, (size_t)size);
  free(buf);
  runs++;
  return 0;
}

static int cmp_names(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  char **names = NULL;
  size_t n = 0, cap = 0, i;
  int rc = 0;

  if(!d) {
    perror(dir);
    return -1;
  }
  while((e = readdir(d)) != NULL) {
    if(e->d_name[0] == '.')
      continue;
    if(n == cap) {
      char **v = realloc(names, (cap = cap ? cap * 2 : 256) * sizeof(*names));
      if(!v) {
        rc = -1;
        break;
      }
      names = v;
    }
    if(!(names[n] = strdup(e->d_name))) {
      rc = -1;
      break;
    }
    n++;
  }
  closedir(d);
  qsort(names, n, sizeof(*names), cmp_names);
  for(i = 0; i < n; i++) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
    if(!rc && run_file(path))
      rc = -1;
    free(names[i]);
  }
  free(names);
  return rc;
}

int main(int argc, char **argv)
{
  int a, rc = 0;

  if(LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  for(a = 1; a < argc; a++) {
    struct stat sb;
    if(argv[a][0] == '-')
      continue;
    if(stat(argv[a], &sb)) {
      perror(argv[a]);
      rc = 1;
    }
    else if(S_ISDIR(sb.st_mode) ? run_dir(argv[a]) : run_file(argv[a]))
      rc = 1;
  }
  printf("%s: %ld input%s replayed%s\n", argv[0], runs, runs == 1 ? "" : "s",
         rc ? ", with errors" : "");
  return rc;
}
