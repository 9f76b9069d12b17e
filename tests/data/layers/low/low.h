/* The lower layer of check-layers' fixture (tests/data/layers/layers.md). */
int low_walk(int (*visit)(int));
int low_up(void);
