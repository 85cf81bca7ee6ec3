/* cmd_run_opts.h - the options of `xpubench run` (cmd_run.c) and their parsing (cmd_run_args.c). */
#ifndef XPB_CMD_RUN_OPTS_H
#define XPB_CMD_RUN_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "xpb_cli.h"

#define MAX_DEVICES 16

typedef struct run_opts {
    const char *backends, *workloads, *filter, *preset, *out, *csv, *markdown;
    const char *devices;          /* --devices LIST[:LIST...]: device groups of the one backend named */
    int group[XPB_MAX_GROUP];     /* the first group's devices (sizes.ranks of them); under MPI this process's */
    /* --devices 0:0,1:0,1,2,3 (a scaling sweep): every group, each its own device of the run */
    int n_groups;
    int groups[MAX_DEVICES][XPB_MAX_GROUP];
    int group_size[MAX_DEVICES];
    xpb_sizes sizes;
    xpb_run_config cfg;
    bool reps_set, rounds_set, min_time_set, warmup_set;
    bool isolate, no_isolate, kernels_given;
    const char *isolated_case; /* --isolated-case ID: this process is that isolated case's */
    int isolated_fd;           /* --isolated-fd N: where it sends its result */
    const char *tuning; /* --tuning FILE */
    bool no_tuning;     /* --no-tuning */
} run_opts;

/* Parses `run`'s command line into *o (zeroed by the caller): 0, -1 after --help (printed), or an
 * exit code after a one-line error. */
int xpb_run_parse_args(int argc, char **argv, run_opts *o);

/* "123", "2^20" -> *v; false when s is not such a number. */
bool xpb_run_parse_int(const char *s, int64_t *v);

#endif
