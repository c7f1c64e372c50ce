/* Test module: a shared object without the entry symbol. */
__attribute__((visibility("default"))) int noentry_something(void);
int noentry_something(void) { return 42; }
