/* xpb_spawn.h - runs a helper program (python3, gnuplot, xpubench run for the tuner) and waits for it. */
#ifndef XPB_SPAWN_H
#define XPB_SPAWN_H

#include <stdbool.h>

#include "xpb_status.h"

/* Runs argv[0] (searched in PATH when it has no '/') with argv, in directory cwd (NULL = this
 * one), inheriting stdin/stdout/stderr, and waits. Returns its exit status (0..255), 128+signal
 * when it was killed, or -1 with err filled when it could not be started (not found: err names
 * the program). */
int xpb_spawn_wait(char *const argv[], const char *cwd, xpb_error *err);

/* The same, in this directory, with the program's stdout and stderr appended to the file `log`
 * (created when missing) instead of inherited. */
int xpb_spawn_wait_log(char *const argv[], const char *log, xpb_error *err);

/* True when `prog` is an executable file (a path) or found in PATH. */
bool xpb_program_exists(const char *prog);

#endif
