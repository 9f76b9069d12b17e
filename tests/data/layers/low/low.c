/* Includes and calls the layer above: what check-layers must refuse. */
#include "high.h"
#include "low.h"

int low_walk(int (*visit)(int)) { return visit(1); }

int low_up(void) { return high_fn(2); }
