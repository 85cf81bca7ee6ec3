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

/* `run --isolated-case ID` (xpb_isolate.h): this process is that one isolated case, started by a
 * run that pinned its device (`device`, "cpu:0"), variant, preset and timing in cfg. Opens the
 * device, runs the case of `cases` whose id is case_id, and writes its result to fd
 * (xpb_isolate_record.h); once it is sent, the process exits at once (status 0). Returns 3 with
 * a one-line message when the device or the case cannot be found or opened, or the result not
 * sent. cmd_run_isolated.c */
int xpb_run_isolated_case(const char *device, const char *case_id, int fd, const xpb_case_list *cases,
                          const xpb_run_config *cfg);

/* Fills one status per backend xpubench knows (xpb_backend_known_name): compiled in, usable
 * here, and why not. Returns the count. */
int xpb_backends_survey(xpb_backend_status out[XPB_MAX_BACKENDS]);

/* Prints "xpubench: <msg>" to stderr and returns code. */
int xpb_cli_error(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* A number option FLAG's value S in [lo, hi] into *out, else the usage error (exit 2) naming both.
 * xpb_survey.c, beside xpb_cli_error. */
int xpb_cli_parse_double(const char *flag, const char *s, double lo, double hi, double *out);

/* run's --warmup, and tune's, which passes it to its runs: seconds, at most this many */
#define XPB_CLI_WARMUP_MAX_S 3600

/* --kernels PATH on the command line (run, list): xpb_plugin_load, its error printed; returns an
 * exit code (0, or 2: docs/plugins.md). xpb_cli_plugins.c */
int xpb_plugin_cli_load(const char *path);

#endif
