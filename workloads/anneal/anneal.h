/* anneal.h - annealing compression (docs/workloads.md section 3): its configuration, the
 * Gaussian-blob input generator and the fp64 reference run that every backend's run is
 * validated against.
 *
 * The workload around them (cases, the run through a backend's ops, checks, dump, retrieval)
 * is the rest of this directory; tests/unit/test_anneal_reference.c tests these two. */
#ifndef XPB_ANNEAL_H
#define XPB_ANNEAL_H

#include <stdbool.h>
#include <stdint.h>

#include "xpb_status.h"

typedef struct anneal_config {
    int64_t m;           /* initial anchor count                                   */
    double t0;           /* initial temperature T                                  */
    double cooling;      /* T *= 1 - cooling after each iteration                  */
    double lr;           /* learning rate of the update                            */
    double trim;         /* fraction trimmed from each end of an anchor's points   */
    int max_iter;
    double energy_tol;   /* convergence: |E - E_prev| < energy_tol ...             */
    int64_t min_changes; /* ... and changes < min_changes, 3 iterations in a row   */
    int interval;        /* maintenance when iter > 0 and iter % interval == 0     */
} anneal_config;

/* The contract's defaults, and the original system's own test configuration. */
anneal_config anneal_default_config(int64_t m);
anneal_config anneal_original_test_config(int64_t m);

/* One iteration of a run's trajectory. T is the temperature the iteration used (before cooling). */
typedef struct anneal_step {
    double energy;
    int64_t changes;
    int64_t anchors; /* after maintenance */
    double t;
} anneal_step;

typedef struct anneal_result {
    int64_t n, d, m;      /* m: the final anchor count, empty anchors included */
    double *anchors;      /* m x d                                             */
    uint32_t *assignment; /* n: each point's anchor                            */
    anneal_step *steps;   /* one per iteration run                              */
    int iterations;
    bool converged;
    double energy;        /* the last iteration's                              */
    double ratio;         /* (m d 2 + n 4) / (n d 4), final m                   */
} anneal_result;

/* Runs section 3 in fp64 on the fp32 points x (n x d), exactly as pinned there. n >= 1, d >= 1,
 * 1 <= m. XPB_ERR_USAGE on bad sizes, XPB_ERR_OUT_OF_MEMORY. */
xpb_status anneal_reference_run(const float *x, int64_t n, int64_t d, const anneal_config *cfg,
                                anneal_result *out, xpb_error *err);
void anneal_result_free(anneal_result *r);

/* The state maintenance works on: anchors grow at splits (cap is the allocated anchor count). */
typedef struct anneal_state {
    const float *x;  /* n x d points                               */
    int64_t n, d, m, cap;
    double *a;       /* cap x d anchors (malloc'd: split may realloc) */
    int64_t *count;  /* cap: this iteration's counts                 */
    uint32_t *asg;   /* n: assignments                               */
    double *dist;    /* n: d(x) of this iteration's assign (the reference's own use) */
} anneal_state;

/* Maintenance (merge, then split) exactly as pinned: host code, the same for the reference and
 * every backend's run (workloads/anneal/run.c). t: the iteration's temperature. False when out
 * of memory. */
bool anneal_maintenance(anneal_state *s, double t);
static inline bool anneal_maintenance_due(const anneal_config *cfg, int iter)
{
    return iter > 0 && iter % cfg->interval == 0;
}

/* The steps of the reference, exposed for unit tests and for the backends' shared host code. */
/* Farthest-point init: anchors (m x d) from x, anchor 0 = point 0. */
void anneal_init_farthest(const float *x, int64_t n, int64_t d, int64_t m, double *anchors);
/* The trimmed mean of one anchor's points idx[0..c) ordered by (dist, index): writes mu (d). */
void anneal_trimmed_mean(const float *x, int64_t d, const uint32_t *idx, const double *dist, int64_t c,
                         double trim, double *mu);

/* The spec's input: k true centers uniform in [-1, 1)^d, each point's center chosen by its hash,
 * per-coordinate noise N(0, 0.01 / d). Same values on every platform for (seed, n, d, k). */
void anneal_blobs(float *x, int64_t n, int64_t d, int64_t k, uint64_t seed);

#endif
