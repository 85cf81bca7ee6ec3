/* xpb_source.h - absolute paths for the commands xpubench prints for the user to run (a dump's
 * "replay"): the project's scripts in the source tree this binary was built from, and this
 * binary itself. A printed `python3 scripts/x.py` or `xpubench run ...` works only from the
 * repository root, with numpy installed for the system's python3 and xpubench on PATH, none of
 * which the quick start gives (it builds build/xpubench and puts numpy into .venv). */
#ifndef XPB_SOURCE_H
#define XPB_SOURCE_H

#include <stdbool.h>
#include <stddef.h>

/* dst = the absolute path of `rel` (e.g. "scripts/replay") in the source tree: XPB_SOURCE_DIR,
 * where the binary was configured, else above the running binary (a build directory inside the
 * repository, moved with it). false, with dst = rel, when neither has it. */
bool xpb_source_path(const char *rel, char *dst, size_t n);

/* dst = the running binary's absolute path (/proc/self/exe); false, with dst = "xpubench", when
 * the system does not say. */
bool xpb_self_path(char *dst, size_t n);

/* Appends src to dst[*o..n) as one word for a POSIX shell: as it is when it has only characters
 * that need no quoting, else in single quotes ('\'' for a quote). Stops short at the end of dst. */
void xpb_shell_word(char *dst, size_t n, size_t *o, const char *src);

#endif
