/* workload.c - the annealing compression workload (docs/workloads.md section 3): its presets,
 * its input (the contract's Gaussian blobs), and its reference run, computed once per case.
 * The run itself, through each backend's ops, is run.c; the per-op checks are checks.c.
 *
 * Case params: n points of dimension d, m initial anchors; k blob centers (default m);
 * orig=1 for the original system's own test configuration (anneal_original_test_config), else
 * the contract's defaults; iters=N caps max_iter (conformance cases); file=1 when the points
 * come from --input FILE (the case's `input`) instead of the blobs; queries=Q held-out queries
 * for the retrieval report (retrieval.c; 0: no report; in the id only when it is not the
 * default, default_queries()): generated cases draw them as blob points n .. n+Q-1 (default
 * ANNEAL_QUERIES_DEFAULT); a file's are its last Q rows, n = rows - Q, only when --size names
 * queries=Q (default 0: every row is a point, so a dump's points replay as they ran). A case's op is
 * "compress" (the whole run); its kernel variants are those of `assign`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anneal.h"
#include "anneal_case.h"
#include "size_keys.h"
#include "xpb_vectors.h"
#include "xpb_workload.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* The fp64 reference run costs about n*m*d multiply-adds per iteration on the host's cores;
 * past this (the full preset's 1M-point cases) it is not computed and only the ops are checked. */
#define REFERENCE_MAX_NMD 4.5e10

extern const xpb_workload_i xpb_workload_anneal;

typedef struct shape {
    int64_t n, d, m, k;
    int orig, iters;
} shape;

/* Awkward sizes; merges (many anchors on few blobs) and splits (few anchors on many blobs). */
static const shape conf[] = {{1, 1, 1, 0, 1, 5},     {3, 3, 2, 0, 1, 5},      {255, 5, 3, 0, 1, 8},
                             {257, 3, 7, 0, 1, 8},   {300, 64, 10, 0, 1, 0},  {1000, 16, 16, 4, 1, 25},
                             {1000, 16, 4, 16, 1, 25}, {4097, 33, 17, 0, 1, 12}};
static const shape quick[] = {{1000, 64, 32, 0, 1, 0}, {300, 64, 10, 0, 1, 0}};
static const shape dflt[] = {{10000, 128, 256, 0, 1, 0}, {100000, 384, 1024, 0, 0, 0}};
static const shape full[] = {{1000000, 128, 2048, 0, 0, 0}, {1000000, 128, 1024, 0, 0, 0}};

typedef struct preset {
    const char *name;
    const shape *s;
    size_t n;
} preset;

static const preset presets[] = {
    {"conformance", conf, COUNT(conf)},
    {"quick", quick, COUNT(quick)},
    {"default", dflt, COUNT(dflt)},
    {"full", full, COUNT(full)},
};

anneal_config anneal_case_config(const xpb_case *c)
{
    int64_t m = xpb_case_param(c, "m", 1);
    anneal_config cfg = xpb_case_param(c, "orig", 0) ? anneal_original_test_config(m) : anneal_default_config(m);
    int64_t iters = xpb_case_param(c, "iters", 0);
    if (iters > 0)
        cfg.max_iter = (int)iters;
    return cfg;
}

/* Held-out queries of a case that names none: generated cases have them, files only on request. */
static int64_t default_queries(const char *input) { return input ? 0 : ANNEAL_QUERIES_DEFAULT; }

static xpb_status push(const shape *s, int64_t queries, const char *input, xpb_case_list *l, xpb_error *e)
{
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.input = input;
    c.workload = &xpb_workload_anneal;
    c.op = XPB_OP_ANNEAL_COMPRESS;
    c.dtype = XPB_DTYPE_F32;
    xpb_case_set_param(&c, "n", s->n);
    xpb_case_set_param(&c, "d", s->d);
    xpb_case_set_param(&c, "m", s->m);
    if (s->k)
        xpb_case_set_param(&c, "k", s->k);
    if (s->orig)
        xpb_case_set_param(&c, "orig", 1);
    if (s->iters)
        xpb_case_set_param(&c, "iters", s->iters);
    if (input)
        xpb_case_set_param(&c, "file", 1);
    if (queries != default_queries(input))
        xpb_case_set_param(&c, "queries", queries);
    c.elements = (uint64_t)s->n;
    c.bytes_read = 4 * (uint64_t)s->n * (uint64_t)s->d;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

static xpb_status check_shape(const shape *s, int64_t queries, xpb_error *err)
{
    double rows = (double)s->n + (double)queries;
    if (s->n < 1 || s->n > ((int64_t)1 << 31) - 1 || s->d < 1 || s->d > 4096 || s->m < 1 || s->m > s->n ||
        s->k < 0 || s->k > s->n || s->iters < 0 || queries < 0 || rows > (double)(((int64_t)1 << 31) - 1) ||
        rows * (double)s->d > (double)((int64_t)1 << 31))
        return xpb_fail(err, XPB_ERR_USAGE,
                        "bad anneal size n=%lld,d=%lld,m=%lld,k=%lld,queries=%lld (needs 1 <= m <= n, 0 <= queries, "
                        "n + queries < 2^31, 1 <= d <= 4096, (n + queries)*d <= 2^31, 0 <= k <= n)", (long long)s->n,
                        (long long)s->d, (long long)s->m, (long long)s->k, (long long)queries);
    return XPB_OK;
}

/* The file's rows against m and queries, and its columns against d's limit: named by the file and
 * the one number that does not fit, with the --size that does (check_shape then covers what --size
 * alone can get wrong). */
static xpb_status check_file_shape(const char *path, int64_t rows, const shape *s, int64_t queries, xpb_error *err)
{
    if (queries > 0 && queries >= rows)
        return xpb_fail(err, XPB_ERR_USAGE, "--input %s: %lld rows, so queries=%lld leaves no points (use --size "
                        "queries=%lld or fewer)", path, (long long)rows, (long long)queries, (long long)rows - 1);
    if (s->m > s->n && queries > 0)
        return xpb_fail(err, XPB_ERR_USAGE, "--input %s: %lld rows less queries=%lld leave %lld points, fewer than "
                        "m=%lld anchors (use --size m=%lld or fewer)", path, (long long)rows, (long long)queries,
                        (long long)s->n, (long long)s->m, (long long)s->n);
    if (s->m > s->n)
        return xpb_fail(err, XPB_ERR_USAGE, "--input %s: %lld rows, fewer than m=%lld anchors (use --size m=%lld "
                        "or fewer)", path, (long long)rows, (long long)s->m, (long long)s->n);
    if (s->d > 4096)
        return xpb_fail(err, XPB_ERR_USAGE, "--input %s: vectors of d=%lld, more than the anneal workload's 4096",
                        path, (long long)s->d);
    return XPB_OK;
}

/* --input FILE: one case over the file's vectors (read once here to check it and learn n, d). */
static xpb_status add_file_case(const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    xpb_vectors v;
    xpb_status st = xpb_vectors_read(sizes->input, &v, err);
    if (st) { /* "PATH: what": named as the option; an unreadable --input is a usage error (exit 2) too */
        char msg[XPB_ERROR_MSG_LEN];
        snprintf(msg, sizeof msg, "%s", err->msg);
        return xpb_fail(err, st == XPB_ERR_OUT_OF_MEMORY ? st : XPB_ERR_USAGE, "--input %s", msg);
    }
    /* held out: the last `queries` rows, when --size names them; the rest are compressed */
    int64_t queries = 0;
    xpb_sizes_get(sizes, "queries", &queries);
    shape s = {v.n - queries, v.d, 0, 0, 0, 0};
    s.m = s.n < 256 ? s.n : 256;
    xpb_vectors_free(&v);
    int64_t val = 0;
    xpb_sizes_get(sizes, "m", &s.m);
    if (xpb_sizes_get(sizes, "orig", &val))
        s.orig = val != 0;
    if (xpb_sizes_get(sizes, "iters", &val))
        s.iters = val < 0 || val > 1000000 ? -1 : (int)val;
    if ((st = check_file_shape(sizes->input, s.n + queries, &s, queries, err)) || (st = check_shape(&s, queries, err)))
        return st;
    return push(&s, queries, sizes->input, l, err);
}

static xpb_status add_cases(const char *preset_name, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    if (sizes && sizes->input)
        return add_file_case(sizes, l, err);
    if (sizes && sizes->count > 0) { /* n, d, m (k, orig, iters optional) */
        shape s = {0};
        int64_t v = 0, queries = ANNEAL_QUERIES_DEFAULT;
        if (!xpb_sizes_get(sizes, "n", &s.n) || !xpb_sizes_get(sizes, "d", &s.d) || !xpb_sizes_get(sizes, "m", &s.m))
            return XPB_OK; /* not an anneal size */
        xpb_sizes_get(sizes, "k", &s.k);
        if (xpb_sizes_get(sizes, "orig", &v))
            s.orig = v != 0;
        if (xpb_sizes_get(sizes, "iters", &v))
            s.iters = v < 0 || v > 1000000 ? -1 : (int)v;
        xpb_sizes_get(sizes, "queries", &queries);
        xpb_status st = check_shape(&s, queries, err);
        return st ? st : push(&s, queries, NULL, l, err);
    }
    for (size_t i = 0; i < COUNT(presets); i++) {
        if (strcmp(presets[i].name, preset_name) != 0)
            continue;
        xpb_status st = XPB_OK;
        for (size_t j = 0; j < presets[i].n && !st; j++)
            st = push(&presets[i].s[j], ANNEAL_QUERIES_DEFAULT, NULL, l, err);
        return st;
    }
    return XPB_OK;
}

static bool knows_size_key(const char *k)
{
    static const char *const keys[] = {"n", "d", "m", "k", "orig", "iters", "queries"};
    return xpb_size_key_in(k, keys, COUNT(keys));
}

static void host_free(void *p)
{
    anneal_result *r = p;
    anneal_result_free(r);
    free(r);
}

/* The blobs, and the reference run when it is affordable (d->host: anneal_result, or NULL). */
static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    int64_t n = xpb_case_param(c, "n", 1), dim = xpb_case_param(c, "d", 1), m = xpb_case_param(c, "m", 1);
    int64_t k = xpb_case_param(c, "k", m), nq = xpb_case_param(c, "queries", default_queries(c->input));
    size_t bytes = (size_t)n * (size_t)dim * sizeof(float), qbytes = (size_t)nq * (size_t)dim * sizeof(float);
    float *x, *q = NULL;
    if (c->input) { /* the file of --input (checked when the case was made): points, then the queries */
        xpb_vectors v;
        xpb_status st = xpb_vectors_read(c->input, &v, err);
        if (st)
            return st;
        if (v.n != n + nq || v.d != dim) {
            xpb_vectors_free(&v);
            return xpb_fail(err, XPB_ERR_IO, "%s changed while running", c->input);
        }
        x = v.data;
    } else { /* the queries are blob points n .. n+nq-1: each point depends on its index alone */
        if (!(x = malloc(bytes + qbytes)))
            return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory for the points",
                            bytes + qbytes);
        anneal_blobs(x, n + nq, dim, k, seed);
    }
    if (nq > 0 && !(q = malloc(qbytes))) {
        free(x);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory for the queries", qbytes);
    }
    if (q)
        memcpy(q, x + n * dim, qbytes);
    d->n_in = q ? 2 : 1;
    d->in_name[0] = "x";
    d->in[0] = x;
    d->in_bytes[0] = bytes;
    d->in_name[1] = "queries";
    d->in[1] = q;
    d->in_bytes[1] = q ? qbytes : 0;
    if ((double)n * (double)m * (double)dim > REFERENCE_MAX_NMD)
        return XPB_OK;
    anneal_result *ref = calloc(1, sizeof *ref);
    anneal_config cfg = anneal_case_config(c);
    xpb_status st = ref ? anneal_reference_run(x, n, dim, &cfg, ref, err)
                        : xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the reference");
    if (st) {
        free(ref);
        xpb_case_data_free(d);
        return st;
    }
    d->host = ref;
    d->host_free = host_free;
    return XPB_OK;
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    (void)c, (void)precision;
    return "per op: the bounds of docs/validation.md (stateful workloads); whole run: final energy "
           "within 1e-3 relative, iterations within max(2, 10%), equal compression ratio";
}

/* Where results files of schema 1 and 2 held what run.c and retrieval.c now report by name: the
 * run's energy, ratio and anchors, the reference's figures in "check", and "retrieval". */
#define H XPB_REPORT_HEADLINE
static const xpb_legacy_field legacy_fields[] = {
    {XPB_LEGACY_METRIC, "energy", "energy", "", XPB_BETTER_LOWER, 0, NULL},
    {XPB_LEGACY_METRIC, "compression_ratio", "compression_ratio", "", XPB_BETTER_LOWER, 0, NULL},
    {XPB_LEGACY_METRIC, "anchors", "anchors", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "check.reference_energy", "reference_energy", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "check.reference_ratio", "reference_compression_ratio", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "check.energy_rel_err", "energy_rel_err", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "check.energy_rel_tol", "energy_rel_tol", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "check.iteration_band", "iteration_band", "iterations", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "retrieval.queries", "queries", "", XPB_BETTER_INFO, H, NULL},
    {XPB_LEGACY_METRIC, "retrieval.anchors", "store_anchors", "", XPB_BETTER_INFO, 0, NULL},
    {XPB_LEGACY_METRIC, "retrieval.k[0]", "k1", "", XPB_BETTER_INFO, H, NULL},
    {XPB_LEGACY_METRIC, "retrieval.recall[0]", "recall@k1", "", XPB_BETTER_HIGHER, H, NULL},
    {XPB_LEGACY_METRIC, "retrieval.anchor_recall[0]", "anchor_recall@k1", "", XPB_BETTER_HIGHER, H, NULL},
    {XPB_LEGACY_METRIC, "retrieval.k[1]", "k2", "", XPB_BETTER_INFO, H, NULL},
    {XPB_LEGACY_METRIC, "retrieval.recall[1]", "recall@k2", "", XPB_BETTER_HIGHER, H, NULL},
    {XPB_LEGACY_METRIC, "retrieval.anchor_recall[1]", "anchor_recall@k2", "", XPB_BETTER_HIGHER, H, NULL},
    {XPB_LEGACY_TIMING, "retrieval.latency.compressed_batch_s", "search_compressed_batch", "", XPB_BETTER_INFO, H,
     "retrieval.latency.batches"},
    {XPB_LEGACY_TIMING, "retrieval.latency.compressed_op_s", "search_compressed_op", "", XPB_BETTER_INFO, 0,
     "retrieval.latency.batches"},
    {XPB_LEGACY_TIMING, "retrieval.latency.exact_batch_s", "search_exact_batch", "", XPB_BETTER_INFO, H,
     "retrieval.latency.batches"},
    {XPB_LEGACY_TIMING, "retrieval.latency.exact_op_s", "search_exact_op", "", XPB_BETTER_INFO, 0,
     "retrieval.latency.batches"},
    {XPB_LEGACY_METRIC, "retrieval.latency.exact_over_compressed", "exact_over_compressed", "", XPB_BETTER_HIGHER, 0,
     NULL},
    {XPB_LEGACY_TEXT, "retrieval.note", "retrieval_note", "", XPB_BETTER_INFO, 0, NULL},
    {0, NULL, NULL, NULL, 0, 0, NULL},
};
#undef H

const xpb_workload_i xpb_workload_anneal = {
    .name = "anneal",
    .description = "annealing compression of n points into m anchors (stateful: init, then assign, "
                   "stats, update, maintenance, changes per iteration)",
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .tolerance_text = tolerance_text,
    .run = anneal_run,
    .variant_op = XPB_OP_ANNEAL_ASSIGN,
    .group_variant_op = XPB_OP_ANNEAL_SHARDED,
    .reads_input = true,
    .dump_run = anneal_dump_run,
    .legacy_fields = legacy_fields,
};
