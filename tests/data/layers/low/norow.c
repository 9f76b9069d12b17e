/* A file the table of files does not name. */
int low_norow(void);

int low_norow(void) { return 3; }
