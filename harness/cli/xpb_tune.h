/* xpb_tune.h - `xpubench tune` (docs/tuning.md): each tunable knob of a backend swept over its
 * candidates on this device, every candidate run through `xpubench run` (validated, then timed in
 * rounds, as a plain run), and kept only when compare's statistics call it faster than the
 * values it would replace. cmd_tune.c: the command; xpb_tune_sweep.c: one knob's sweep;
 * xpb_tune_ops.c: the cases a candidate is timed on (a per-op value: its ops' alone);
 * xpb_tune_order.c: the order of the runs and the base's A/A drift check. */
#ifndef XPB_TUNE_H
#define XPB_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "xpb_compare.h"
#include "xpb_tuning.h"

/* How the sweeps run: the device, the cases, the child runs and what decides. */
typedef struct xpb_tune_opts {
    const xpb_backend_i *backend;
    char device[48];        /* "vulkan:0": run --backend */
    xpb_tuning_fingerprint fp;
    const char *preset;     /* resolved: never "auto" */
    const char *filter;     /* --filter REGEX on case ids, NULL: all */
    const char *validate;   /* --validate MODE for the runs, NULL: run's default */
    int runs;               /* processes per side, each --rounds rounds, pooled (compare --rerun) */
    int rounds;
    int warmup_runs;        /* discarded runs (1 round) before the tune's first timed run */
    const char *warmup;     /* --warmup SECONDS before every round of the runs, NULL: run's default */
    xpb_compare_opts compare;
    char self[1024];        /* this binary */
    char work[1024];        /* the folder of the runs' files */
    const char *candidates[XPB_KNOB_COUNT]; /* --candidates KNOB=V1|V2: "V1|V2" in place of the
                                             * knob's XPB_KNOB_TUNE row's, validated; NULL: the row's */
} xpb_tune_opts;

typedef enum xpb_tune_outcome {
    XPB_TUNE_FASTER,     /* faster outside the noise on some case, slower on none: may win */
    XPB_TUNE_NOT_FASTER, /* validated, but not faster by compare's verdicts */
    XPB_TUNE_REJECTED,   /* failed validation, errored or unsupported where the base ran */
    XPB_TUNE_NOT_RUN,    /* a per-op value none of whose ops' cases is swept (--filter) */
} xpb_tune_outcome;

typedef struct xpb_tune_candidate {
    char value[XPB_KNOB_VALUE_LEN];
    char ops[160];                      /* a per-op value's ops ("softmax"), "": every op of the knob */
    int cases;                          /* the cases its runs were timed on (a per-op value: its ops') */
    xpb_tune_outcome outcome;
    size_t verdicts[XPB_VERDICT_COUNT]; /* cases by compare's verdict against the base */
    double geomean;                     /* geometric mean of new/base median ratios; NaN: none */
    char why[400];
} xpb_tune_candidate;

/* The base's A/A check: its last run judged against its first (xpb_tune_order.h). */
typedef struct xpb_tune_drift {
    bool found;                 /* the base differs from itself beyond the noise: nothing chosen */
    xpb_verdict outcome;        /* XPB_VERDICT_FASTER or _SLOWER: the last run against the first */
    double time_ratio;          /* geometric mean of last/first time ratios; NaN: none */
    char why[400];
} xpb_tune_drift;

typedef struct xpb_tune_knob {
    xpb_knob_id id;
    char base[XPB_KNOB_VALUE_LEN]; /* the value the sweep compares against, "" the default */
    int n;
    xpb_tune_candidate cand[XPB_KNOB_MAX_CANDIDATES];
    int chosen;                    /* index into cand of the winner, -1: the base stays */
    int cases;                     /* cases of the preset it applies to */
    char skipped[400];             /* why it was not swept, "" when it was */
    xpb_tune_drift drift;          /* the base's A/A check (--runs >= 2) */
} xpb_tune_knob;

/* Judges candidate c (its runs' pooled results `next`) against the base's by compare's verdicts
 * (docs/tuning.md, "Selection") on the base's cases of the ops `ops` ("softmax|rmsnorm"; NULL or
 * "": every case; a per-op candidate ran only its ops' cases, the others are unchanged by
 * construction): XPB_TUNE_FASTER only when faster outside the noise on some case, slower on none
 * and the geometric mean of the time ratios below 1; XPB_TUNE_REJECTED when a case the base ran
 * ok is not ok; c->verdicts, c->geomean and c->why filled. */
void xpb_tune_judge(const xpb_compare_opts *opts, const xpb_results_file *base, const xpb_results_file *next,
                    const char *ops, xpb_tune_candidate *c);

/* The winner of k's judged candidates: of those XPB_TUNE_FASTER the lowest geometric mean; -1
 * when none, or when the base drifted (k->drift.found: its own runs differ beyond the noise, so a
 * candidate's lead may be the order's). */
int xpb_tune_choose(const xpb_tune_knob *k);

/* Sweeps k->id on o's device: the base is config[0..*n_config) (the tuning so far) and each
 * candidate (o->candidates' for the knob, else its XPB_KNOB_TUNE row's) that value in its place,
 * o->runs processes a side, interleaved in alternating order (xpb_tune_order.h); the base runs
 * every case of the knob's ops, a per-op candidate only its ops' (xpb_tune_ops.h). *warmups
 * discarded runs of the base go first when the knob runs anything, and *warmups is then 0 (the
 * tune's first timed run only). With o->runs >= 2 the base's last run is judged against its
 * first (k->drift); a drift keeps the base. A winner replaces or joins the knob's value in
 * config. Returns 0, 1 when the base itself fails validation, or the exit code to stop with (2: a
 * base run refused its arguments; 128 + N: interrupted); a candidate's run that exits 2 (a value
 * its reader refuses) rejects that candidate. */
int xpb_tune_sweep(const xpb_tune_opts *o, xpb_tuning_value *config, int *n_config, xpb_tune_knob *k,
                   int *warmups);

#endif
