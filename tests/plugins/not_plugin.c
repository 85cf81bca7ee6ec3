/* not_plugin.c - a shared library without xpubench_plugin_entry: loading it with --kernels must be
 * one line and exit 2, not a crash. */
int xpb_test_not_a_plugin(int x);
int xpb_test_not_a_plugin(int x) { return x + 1; }
