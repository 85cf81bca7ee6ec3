/* anneal_case.h - the annealing workload's parts that meet the harness: a case's configuration
 * (workload.c), the run through a backend's ops (run.c), and the per-op checks (checks.c). */
#ifndef XPB_ANNEAL_CASE_H
#define XPB_ANNEAL_CASE_H

#include "anneal.h"
#include "xpb_validate.h"
#include "xpb_workload.h"

anneal_config anneal_case_config(const xpb_case *c);

/* xpb_workload_i.run of the anneal workload. */
xpb_status anneal_run(const xpb_case *c, const xpb_case_data *d, xpb_session *s, int inject, xpb_validation *v,
                      xpb_run_outcome *out, xpb_error *err);

/* Level 1: each op's output on the run's own inputs against fp64 (docs/validation.md,
 * "Stateful workloads"). Every check adds its elements to v; the first failing element of the
 * run is described in first_fail. */
typedef struct anneal_checks {
    xpb_validation *v;
    int64_t near_ties;   /* assign and init choices that differ from fp64 within the bound */
    char first_fail[320];
} anneal_checks;

/* init: chosen[0] = 0, anchors[j] = x[chosen[j]] bit for bit, and each choice is a farthest
 * point within the rounding bound of the fp32 distances (replayed with the kernel's own earlier
 * choices). Replays the first `steps` choices (m, or fewer on huge cases). */
void anneal_check_init(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, int64_t steps,
                       const uint32_t *chosen, const float *anchors);
/* assign over the points i = 0, stride, 2 stride, ...: the chosen anchor is nearest within the
 * bound of the GEMM-form distances, and dist is its distance within that bound. */
void anneal_check_assign(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, int64_t stride,
                         const float *anchors, const uint32_t *asg, const float *dist);
/* stats from the kernel's own assign and dist: counts exact, trimmed mean and variance within
 * the bounds of fp32 sums. */
void anneal_check_stats(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, double trim,
                        const uint32_t *asg, const float *dist, const uint32_t *counts, const float *mean,
                        const float *var);
/* update: after = before + clamp((mean - before) * lr_t, -0.1f, 0.1f) where counts > 0. */
void anneal_check_update(anneal_checks *k, int64_t m, int64_t d, float lr_t, const float *before,
                         const uint32_t *counts, const float *mean, const float *after);
/* changes: the energy of asg against anchors, and the count of asg != prev (prev NULL: all n). */
void anneal_check_changes(anneal_checks *k, const float *x, int64_t n, int64_t d, int64_t m, const float *anchors,
                          const uint32_t *asg, const uint32_t *prev, float energy, uint32_t changes);

#endif
