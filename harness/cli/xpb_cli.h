/* xpb_cli.h - the xpubench subcommands and what they share. Exit codes (README):
 *   0 all cases ran and validated     1 a case failed validation
 *   2 usage error                     3 backend/device unavailable, or a runtime error
 *   4 compare found a regression or a new validation failure */
#ifndef XPB_CLI_H
#define XPB_CLI_H

#include "xpb_results_write.h"

enum {
    XPB_EXIT_OK = 0,
    XPB_EXIT_VALIDATION = 1,
    XPB_EXIT_USAGE = 2,
    XPB_EXIT_UNAVAILABLE = 3,
    XPB_EXIT_REGRESSION = 4,
};

int xpb_cmd_list(int argc, char **argv);
int xpb_cmd_info(int argc, char **argv);
int xpb_cmd_run(int argc, char **argv);
int xpb_cmd_tune(int argc, char **argv); /* cmd_tune.c */

/* Fills one status per backend xpubench knows (cpu, cuda, vulkan): compiled in, usable here,
 * and why not. Returns the count. */
int xpb_backends_survey(xpb_backend_status out[3]);

/* Prints "xpubench: <msg>" to stderr and returns code. */
int xpb_cli_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* --kernels PATH on the command line (run, list): xpb_plugin_load, its error printed; returns an
 * exit code (0, or 2: docs/plugins.md). xpb_cli_plugins.c */
int xpb_plugin_cli_load(const char *path);

#endif
