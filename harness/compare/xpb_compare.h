/* xpb_compare.h - is NEW faster or slower than BASE? Statistics on two sets of timing samples,
 * the verdict, and the case-by-case comparison of two results files (docs/reports.md).
 *
 * Verdict on independent units (xpb_compare_units; files written with rounds, run --rounds): a
 * case's units are its rounds' medians, minutes apart in one process; a stateful op's are its
 * medians over each round's breakdown runs. Thousands of back-to-back samples are not independent (a drift of clocks or
 * placement between two processes moves them all together), so they decide nothing here.
 * A side may pool the units of several runs of its build, each its own process
 * (xpb_results_add_rerun; compare --rerun-base/--rerun-new): then "every unit" below means every
 * round of every run.
 *   ratio   = median(new units) / median(base units);
 *   noise   = the largest of
 *             rounds:    the relative sigma of either side's units (range / d2(n) for n < 5,
 *                        1.4826 MAD from 5 on: one stray round does not widen it);
 *             processes: with pooled runs, the sigma of the per-run medians (in log), pooled
 *                        over both sides around each side's mean (xpb_process_sigma). The
 *                        processes, not the rounds, are the independent draws of placement and
 *                        neighbours: on a shared machine two of three runs can sit in one state,
 *                        which the MAD of the pooled rounds leaves out, and three runs of the
 *                        other side in another;
 *             history:   with --history, the case's figure over earlier runs (one per process);
 *   band    = max(threshold, noise_k * noise) for rounds and history; for processes, whose sigma
 *             is estimated from few runs (df = runs_base - 1 + runs_new - 1 degrees of freedom),
 *             t * noise * sqrt(1/runs_base + 1/runs_new), t being Student's quantile with the
 *             two-sided coverage of noise_k normal sigmas (xpb_t_for_z: 19.2 for 2 runs a side,
 *             6.6 for 3; noise_k itself would undercover: with 2 runs a side and a 3% or 6%
 *             spread between processes, 2% and 4% of A/A cases came out `slower` or `faster`
 *             instead of 0.27%). The source asking for the widest band names the noise. This is
 *             the change a case must show to count;
 * In this order:
 *   noisy   : fewer than min_units (5) units on a side (say how many rounds to run);
 *   noisy   : band over max_band (too noisy to judge, with the noise);
 *   slower  : ratio >= 1+band and every new unit slower than every base unit;
 *   faster  : ratio <= 1/(1+band) and every new unit faster than every base unit;
 *   noisy   : a shift outside the band whose units overlap;
 *   same    : otherwise.
 * Files without units (written before rounds) fall back to the samples method below, which the
 * why of each verdict and a warning name.
 *
 * The samples method (files without units). Verdict of one case (times: a ratio above 1 means NEW is slower):
 *   ratio     = median(new) / median(base), with a 95% confidence interval built from the
 *               distribution-free (order-statistic) confidence interval of each median, combined
 *               in log space;
 *   p         = two-sided Mann-Whitney U test on the raw samples (normal approximation with tie
 *               and continuity corrections);
 *   band      = [1/(1+threshold), 1+threshold], the changes too small to matter.
 *   cv        = robust coefficient of variation, IQR / 1.349 / median, of either side.
 * In this order:
 *   noisy   : fewer than min_samples samples on a side;
 *   same    : the whole interval is inside the band (sure the change is small);
 *   noisy   : cv over max_cv, or an interval that spans the whole band;
 *   slower  : ratio >= 1+threshold, p < alpha and the interval above 1;
 *   faster  : ratio <= 1/(1+threshold), p < alpha and the interval below 1;
 *   noisy   : a shift outside the band that is not significant;
 *   same    : otherwise (the shift is inside the band).
 * A stateful case (a "run" object on both sides) is compared as a whole (its timing.kernel
 * samples are whole runs) and per op (each op's time in every breakdown run), by the same rules;
 * when the two runs' iteration counts differ, xpb_compare_files makes every one of those
 * verdicts incomparable instead. */
#ifndef XPB_COMPARE_H
#define XPB_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "xpb_results_loaded.h"

typedef enum xpb_verdict {
    XPB_VERDICT_SAME,
    XPB_VERDICT_FASTER,
    XPB_VERDICT_SLOWER,
    XPB_VERDICT_NOISY,
    XPB_VERDICT_INCOMPARABLE, /* runs of a stateful case with different iteration counts: a run's
                               * time measures different work (set by xpb_compare_files only) */
    XPB_VERDICT_COUNT
} xpb_verdict;

typedef struct xpb_compare_opts {
    double threshold; /* minimum effect, 0.05 = 5% */
    double alpha;     /* significance level of the U test, 0.05 */
    double max_cv;    /* above this robust coefficient of variation (either side): noisy, 0.3 */
    size_t min_samples; /* fewer samples on either side: noisy, 5 */
    double noise_k;     /* units: band = max(threshold, noise_k * noise), 3 */
    size_t min_units;   /* units: fewer on either side: noisy, 5 (with 5 each, rounds all on one side
                         * happen by chance 2 times in 252: the verdict's significance) */
    double max_band;    /* units: a band wider than this: noisy, 0.3 */
} xpb_compare_opts;

#define XPB_COMPARE_OPTS_DEFAULT {0.05, 0.05, 0.3, 5, 3.0, 5, 0.3}

/* The name of how verdicts are decided, written into compare --json ("method") and JUnit (a
 * property): the fields keep their names and meanings within a schema version, and a reader
 * tells two deciding methods apart by this (docs/reports.md, "Stability"). Change it whenever
 * the statistics change. */
#define XPB_COMPARE_METHOD "units-median-ratio+noise-band/4"
#define XPB_COMPARE_METHOD_SAMPLES "median-ratio-ci+mann-whitney-on-samples/1" /* files without units */

typedef struct xpb_shift {
    size_t n_base, n_new;
    double median_base, median_new;  /* seconds */
    double cv_base, cv_new;           /* robust CV (stddev/mean from the file without samples) */
    double ratio, ratio_lo, ratio_hi; /* new/base and its 95% CI; lo/hi NaN without samples */
    double p_value;                   /* NaN without samples */
    size_t units_base, units_new;     /* units behind the verdict; 0: the samples method decided */
    double noise, band;               /* units: relative noise and the case's band; NaN otherwise */
    const char *noise_source;         /* units: "rounds", "processes" or "history"; NULL otherwise */
    xpb_verdict verdict;
    char why[160];                    /* one line: why noisy, or the evidence for a verdict */
} xpb_shift;

const char *xpb_verdict_name(xpb_verdict v); /* "same", "faster", "slower", "noisy", "incomparable" */

/* Median of v[0..n) (NaN when n == 0); v is not reordered. */
double xpb_median_of(const double *v, size_t n);

/* Distribution-free 95% confidence interval of the median of v[0..n) from order statistics
 * (ranks n/2 -+ 1.96 sqrt(n)/2; the whole range for very small n). Returns -1 when n == 0. */
int xpb_median_ci(const double *v, size_t n, double *median, double *lo, double *hi);

/* Two-sided p-value of the Mann-Whitney U test of a against b (normal approximation, tie and
 * continuity corrected); U of a is stored in *u when u is not NULL. NaN when either is empty;
 * 1 when every value is equal. */
double xpb_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb, double *u);

/* Compares the samples of one case. When either side has no samples, falls back to the given
 * medians: the ratio only, no interval or p-value (verdict same when inside the band, else
 * noisy). Returns the filled shift. */
xpb_shift xpb_compare_samples(const double *base, size_t nb, double base_median, double base_cv,
                              const double *next, size_t nn, double new_median, double new_cv,
                              const xpb_compare_opts *o);

/* One side's units: v[0..n), and with pooled runs how many of them each run gave, in order
 * (run_units[0..n_runs), summing to n; NULL and 0 for one run). */
typedef struct xpb_units {
    const double *v;
    size_t n;
    const size_t *run_units;
    size_t n_runs;
} xpb_units;

/* Compares the units of one case (the method at the top of the file); history_noise is the
 * relative sigma of the case's medians over earlier runs, NaN when unknown. */
xpb_shift xpb_compare_units(xpb_units base, xpb_units next, double history_noise, const xpb_compare_opts *o);

/* The sigma of log(each run's median of its units), pooled over both sides around each side's
 * own mean: an estimate of the relative spread between processes over *df = (runs_base - 1) +
 * (runs_new - 1) degrees of freedom. *runs_base and *runs_new: the runs on each side (1 for a
 * side without a record of its runs). NaN (and *df 0) when neither side has 2 runs. */
double xpb_process_sigma(xpb_units base, xpb_units next, size_t *runs_base, size_t *runs_new, size_t *df);

/* The t with P(|T| <= t) = P(|Z| <= z) for Student's T with df degrees of freedom: the multiple
 * of a sigma estimated over df degrees of freedom with the coverage of z known sigmas. NaN for
 * df 0 or z <= 0. */
double xpb_t_for_z(double z, size_t df);

/* Relative sigma of v[0..n) around its median (range / d2(n) for n < 5, 1.4826 MAD from 5 on);
 * NaN for n < 2 or a median of 0. */
double xpb_relative_sigma(const double *v, size_t n);

/* The relative sigma of one figure per process (a case's median in each history file and base):
 * range / d2(n) up to 25 figures, the MAD beyond. Unlike rounds, a stray process is not left
 * out: a process that lands in another state (buffer placement, thread placement, a neighbour on
 * a shared machine) is the between-process noise a verdict must allow for. */
double xpb_history_sigma(const double *v, size_t n);

/* ---- two results files, case by case (xpb_compare_match.c) -------------------------------------- */

/* One op of a stateful case (run.ops[], matched by name). Its samples are the op's device time
 * in each breakdown run, one per independent run, so the same statistics apply as to a case. */
typedef struct xpb_compare_op {
    const char *op;   /* the op's name, in either file */
    bool tested;      /* both sides have per-run samples: a verdict, counted. Otherwise (a file
                       * without them timed one run, or the op is on one side only) the medians
                       * are information only: never a verdict, never a regression */
    xpb_shift shift;
} xpb_compare_op;

typedef struct xpb_compare_row {
    const xpb_rcase *base, *next; /* NULL in base: added; NULL in next: removed */
    bool has_shift;               /* both sides validated and timed */
    xpb_shift shift;              /* a stateful case: the whole run's time (the total) */
    bool status_changed;
    bool new_failure; /* next failed validation or errored, and base did not have that status */
    bool failing;     /* next failed validation or errored (a JUnit failure) */
    bool stateful;    /* has_shift and both sides have a run object: ops[] below */
    bool iterations_differ; /* then the total and every tested op are XPB_VERDICT_INCOMPARABLE */
    xpb_compare_op *ops;    /* base's ops in order, then those only in next; owned */
    size_t n_ops;
    char conditions[192];   /* what may explain a difference: throttled, or clocks apart; "" */
    double drift_base, drift_next; /* xpb_stats_drift of each side's rounds (1: none, or reruns pooled) */
} xpb_compare_row;

#define XPB_COMPARE_MAX_WARNINGS 16

typedef struct xpb_comparison {
    const xpb_results_file *base, *next;
    xpb_compare_opts opts;
    xpb_compare_row *rows; /* sorted by case id, device, variant */
    size_t n_rows;
    size_t n_verdict[XPB_VERDICT_COUNT];    /* cases, indexed by xpb_verdict */
    size_t n_op_verdict[XPB_VERDICT_COUNT]; /* tested ops of stateful cases */
    size_t n_op_info;                       /* ops compared as information only */
    size_t n_stateful;                      /* rows with ops */
    size_t n_added, n_removed, n_status_changed, n_new_failures;
    char warnings[XPB_COMPARE_MAX_WARNINGS][320]; /* fingerprint differences */
    int n_warnings;
    const xpb_results_file *history; /* earlier runs (--history): their medians widen the noise */
    size_t n_history;
    size_t base_runs, new_runs; /* runs pooled into each side's units: 1 + --rerun-base/--rerun-new */
    size_t n_samples_method; /* cases decided on within-run samples: a file without units */
    size_t n_throttled, n_clocks_apart; /* rows whose conditions differ (see row.conditions) */
    size_t n_drifting;                  /* rows whose rounds drift in either run (row.drift_*) */
    size_t n_inputs_differ;             /* stateful rows whose inputs were kept in one run only */
    size_t n_config_differ;             /* rows whose kernel_config differs (both sides have one) */
} xpb_comparison;

/* Matches the cases of base and next by (id, device, variant) and compares each pair. The
 * comparison points into both files, which must outlive it. Fails only when out of memory. */
xpb_status xpb_compare_files(const xpb_results_file *base, const xpb_results_file *next,
                             const xpb_compare_opts *o, xpb_comparison *out, xpb_error *err);
/* The same, with the results of earlier runs of the same cases on the same machine: each case's
 * noise is at least the spread of its medians over history and base (xpb_compare_units). */
xpb_status xpb_compare_files_history(const xpb_results_file *base, const xpb_results_file *next,
                                     const xpb_results_file *history, size_t n_history, const xpb_compare_opts *o,
                                     xpb_comparison *out, xpb_error *err);
void xpb_comparison_free(xpb_comparison *c);

/* True when some case or tested op got slower, or a case newly failed: `xpubench compare`
 * then exits 4. */
bool xpb_comparison_regressed(const xpb_comparison *c);

/* ---- output (xpb_compare_write.c) --------------------------------------------------------------- */

/* The console table: changed cases first (slower, faster, noisy, incomparable), `same` ones
 * only when all_rows; then every stateful case with its iteration counts, total and ops; then
 * added, removed and status changes, warnings and a summary line. */
void xpb_comparison_print(FILE *f, const xpb_comparison *c, bool all_rows);

/* Each writes path through a temporary file renamed over it; on failure returns XPB_ERR_IO with
 * err filled and leaves no partial file. Markdown: a summary for a CI job page; JSON: every row
 * (schema "xpubench-compare" version 1, docs/reports.md); JUnit XML: one test per case, a
 * failure for a regression (the case or one of its ops) or a validation failure/error. */
xpb_status xpb_comparison_write_markdown(const char *path, const xpb_comparison *c, xpb_error *err);
xpb_status xpb_comparison_write_json(const char *path, const xpb_comparison *c, xpb_error *err);
xpb_status xpb_comparison_write_junit(const char *path, const xpb_comparison *c, xpb_error *err);

/* "1.23 ms" etc. into buf (seconds in); "-" for NaN. Returns buf. */
const char *xpb_format_seconds(double s, char *buf, size_t n);

#endif
