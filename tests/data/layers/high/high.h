/* The upper layer of check-layers' fixture (tests/data/layers/layers.md). */
int high_fn(int x);
