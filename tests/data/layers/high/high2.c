/* Calls down (allowed) and hands the layer below a function of its own
   (an upward call through a pointer). */
#include "low.h"

int high2_run(void);

static int high2_visit(int x) { return x * 2; }

int high2_run(void) { return low_walk(high2_visit); }
