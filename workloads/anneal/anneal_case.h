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

/* What a run reached, kept by the workload: published into the outcome's report, and held as
 * the outcome's state by the validated run (for the dump; freed by anneal_outcome_free). */
typedef struct anneal_outcome {
    double energy, ratio;  /* the final energy and compression ratio */
    int64_t anchors;       /* the final anchor count, empty anchors included */
    anneal_step *steps;    /* one per iteration run */
    /* the validated run's state: anchors after init (init_anchor_count x d), the final anchors
     * (anchors x d) and assignments (one per point); NULL in other runs */
    float *init_anchors;
    int64_t init_anchor_count;
    float *final_anchors;
    uint32_t *final_assign;
} anneal_outcome;
void anneal_outcome_free(void *outcome);

/* xpb_workload_i.dump_run of the anneal workload (dump.c): points, configuration, and the run's
 * anchors, assignments and trajectory as .npy with a JSON sidecar (docs/reports.md). */
xpb_status anneal_dump_run(const char *dir, const char *stem, const xpb_case *c, const xpb_case_data *d,
                           const xpb_run_outcome *o, const xpb_run_origin *origin, xpb_error *err);

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
/* assign's rule, shared with the sharded assign's reference (workloads/sharded/anneal_assign.c):
 * ||v||^2 in fp64 over d floats; */
double anneal_sqnorm64(const float *v, int64_t d);
/* the fp64 squared distance of point xi to anchor a (direct form) and, in *bound, the bound on the
 * error of its fp32 GEMM-form distance, gamma_{d+2} (xn + 2 sum|x_k a_k| + an), where xn and an
 * are the two squared norms (anneal_sqnorm64); */
double anneal_assign_dist(const float *xi, const float *a, int64_t d, double xn, double an, double *bound);
/* and whether an anchor at fp64 distance dj (bound ej) is a right choice for a point whose nearest
 * anchor is at best (bound best_e): the two fp32 distances may compare either way (a near tie). */
static inline bool anneal_assign_acceptable(double dj, double ej, double best, double best_e)
{
    return dj - best <= ej + best_e;
}
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

/* search: the rows q = 0, stride, 2 stride, ... of dist (nq x m) against fp64 within the bound of
 * the GEMM-form distance (as assign's), and dist >= +0. True when every checked element passed. */
bool anneal_check_search(anneal_checks *k, const float *queries, int64_t nq, int64_t d, const float *anchors,
                         int64_t m, int64_t stride, const float *dist);

/* ---- retrieval on held-out queries (retrieval.c; docs/workloads.md section 3) ----------------- */

#define ANNEAL_QUERIES_DEFAULT 100 /* the case param `queries` when absent; 0: no retrieval report */
#define ANNEAL_TOPK_MAX 20         /* the report's k: 10 and 20 (at most the point count)        */

/* The validated run's end state and what the report needs beside it. */
typedef struct anneal_retrieval_in {
    const float *x;            /* n x d points (host)                           */
    int64_t n, d;
    const float *queries;      /* nq x d held-out queries (host)                */
    int64_t nq;
    const float *anchors;      /* m x d final anchors, fp32 (rounded to fp16 here) */
    int64_t m;
    const uint32_t *assign;    /* n final assignments                           */
    xpb_view x_dev;            /* the points on the device: the exact search's anchors */
} anneal_retrieval_in;

/* The retrieval report of a validated run (docs/results-schema.md, "anneal"); queries = 0: none. */
typedef struct anneal_latency {
    double median, p05, p95;
} anneal_latency;
typedef struct anneal_retrieval_report {
    int64_t queries;         /* held-out queries, one batch                               */
    int k[2];                /* top-k sizes: 10 and 20, at most the point count            */
    double recall[2];        /* mean |compressed top-k and exact top-k| / k                */
    double anchor_recall[2]; /* exact top-k points whose anchor the compressed top-k holds */
    int64_t anchors;         /* the compressed store's anchors (the search's m)            */
    bool timed;              /* latency measured (the search op validated)                 */
    bool exact_timed;        /* the exact-search baseline too (under its cap)              */
    int batches;             /* timed batches of all queries, after one warm-up            */
    int exact_batches;       /* the same for the exact search                              */
    /* per batch: host clock (upload + op + download + ranking) and the op's device time */
    anneal_latency compressed, compressed_op, exact, exact_op;
    char note[256];          /* what was not measured, and why                             */
} anneal_retrieval_report;

/* The report (anneal_retrieval_report): recall@10 and @20 of the compressed search against exact
 * search, and the query latency of both on the session's device, with the search op validated
 * on its first launch (into k; inject damages what it reads back). Its buffers stay allocated,
 * so the runner's guard check covers them. XPB_OK also when the backend cannot search (said in
 * out->note); an error only when the device or the host fails. */
xpb_status anneal_retrieval(xpb_session *s, const anneal_retrieval_in *in, anneal_checks *k, int inject,
                            anneal_retrieval_report *out, xpb_error *err);

/* The report as the run's named metrics, timings and texts (xpb_run_report.h). */
void anneal_retrieval_publish(const anneal_retrieval_report *q, xpb_run_report *rep);

/* The host half, exposed for tests/unit/test_anneal_retrieval.c. */
/* fp16 (binary16, round to nearest even, overflow to inf) and back: the stored anchor value. */
float anneal_fp16_round(float f);
/* Points grouped by anchor, each anchor's points in index order (CSR: pts[start[j] .. start[j+1])). */
typedef struct anneal_csr {
    int64_t m;
    int64_t *start; /* m + 1 */
    uint32_t *pts;  /* n     */
} anneal_csr;
bool anneal_csr_build(anneal_csr *c, const uint32_t *assign, int64_t n, int64_t m); /* false: out of memory */
void anneal_csr_free(anneal_csr *c);
/* Exact top-k (k <= ANNEAL_TOPK_MAX) of each query among the n points: fp64 squared distance on
 * the fp32 values, ties to the lowest index; idx is nq x k. */
void anneal_exact_topk(const float *x, int64_t n, int64_t d, const float *queries, int64_t nq, int64_t k,
                       uint32_t *idx);
/* The same ranking over one row of n fp32 distances (the exact-search op's output). */
void anneal_row_topk(const float *row, int64_t n, int64_t k, uint32_t *idx);
/* Compressed top-k of one query from its m anchor distances: points ranked by their anchor's
 * distance, ties (equal distances, also of different anchors) to the lowest point index.
 * work: 2m int64 of workspace. Slots past the points the row can rank (only a broken row, NaN)
 * are UINT32_MAX. */
void anneal_compressed_topk(const float *dist, const anneal_csr *c, int64_t k, int64_t *work, uint32_t *idx);
/* recall = mean over queries of |got top-k and exact top-k| / k; anchor_recall = mean of the share
 * of exact top-k points whose anchor holds one of the got top-k points. got and exact are
 * nq x kmax (their first k columns are the top-k: both rankings are total orders). */
void anneal_recall(const uint32_t *got, const uint32_t *exact, const uint32_t *assign, int64_t nq, int64_t kmax,
                   int64_t k, double *recall, double *anchor_recall);

#endif
