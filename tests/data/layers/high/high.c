/* Called from the layer below: the fixture's upward call. */
#include "high.h"

int high_fn(int x) { return x + 1; }
