/* sharded.c - the `sharded` workload: one-GPU workloads split across the ranks of a device group
 * (--backend cuda --devices LIST, or one process per GPU under MPI; docs/multi-gpu.md).
 *
 * gemm_sharded: C = A B (fp32, row-major) split by columns of B. Rank r of n computes the columns
 * [r N / n, (r+1) N / n) of C from all of A and its columns of B. A case is
 * "sharded/gemm_sharded/m=M,n=N,k=K,gpus=n/fp32"; its variants (backends/cuda/gemm_sharded.c) are
 * `cublas` (each rank keeps its columns: the compute alone) and `cublas-gather` (every rank ends
 * with the whole C: NCCL all_gather, then each block copied into place). The inputs, the fp64
 * reference and the error bound are the gemm workload's, unchanged (workloads/gemm/gemm.c): a
 * sharded product must be as accurate as one GPU's, and it is, since every element of C is one
 * rank's ordinary fp32 dot product. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_input.h"
#include "xpb_workload.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

extern const xpb_workload_i xpb_workload_gemm;
extern const xpb_workload_i xpb_workload_sharded;

typedef struct shape {
    int64_t m, n, k;
} shape;

/* Conformance: odd shapes, N below, at and above the rank count (ranks with no column). */
static const shape conformance[] = {{1, 1, 1}, {3, 5, 7}, {17, 33, 65}, {255, 257, 129}, {257, 4097, 3}};
static const shape quick[] = {{17, 33, 65}, {1024, 1024, 1024}};
static const shape standard[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 16384}};
static const shape full[] = {{4096, 4096, 4096}, {8192, 8192, 8192}, {16384, 16384, 16384}, {32768, 32768, 8192}};

static xpb_status push(const shape *s, int ranks, bool exact, xpb_case_list *l, xpb_error *e)
{
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.workload = &xpb_workload_sharded;
    c.op = XPB_OP_GEMM_SHARDED;
    c.dtype = XPB_DTYPE_F32;
    xpb_case_set_param(&c, "m", s->m);
    xpb_case_set_param(&c, "n", s->n);
    xpb_case_set_param(&c, "k", s->k);
    xpb_case_set_param(&c, "gpus", ranks);
    if (exact) { /* the gemm workload's exact class: small integers, every product exact */
        xpb_case_set_param(&c, XPB_INPUT_KEY, XPB_INPUT_EXACT);
        c.validate_only = true;
    }
    c.scalar[0] = 1.0; /* alpha, beta: C = A B */
    c.scalar[1] = 0.0;
    uint64_t m = (uint64_t)s->m, n = (uint64_t)s->n, k = (uint64_t)s->k;
    c.elements = m * n;
    c.bytes_read = 4 * (m * k + k * n);
    c.bytes_written = 4 * m * n;
    c.flops = 2.0 * (double)m * (double)n * (double)k;
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

static xpb_status add_cases(const char *preset, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    int ranks = sizes && sizes->ranks > 0 ? sizes->ranks : 1;
    if (sizes && sizes->count > 0) {
        shape s = {1, 1, 1};
        if (!xpb_sizes_get(sizes, "n", &s.n) || !xpb_sizes_get(sizes, "k", &s.k))
            return XPB_OK; /* not a GEMM size */
        if (!xpb_sizes_get(sizes, "m", &s.m))
            return XPB_OK;
        if (s.m < 1 || s.n < 1 || s.k < 1 || s.m > INT32_MAX || s.n > INT32_MAX || s.k > INT32_MAX)
            return xpb_fail(err, XPB_ERR_USAGE, "bad size m=%lld,n=%lld,k=%lld (1..2^31-1 each)", (long long)s.m,
                            (long long)s.n, (long long)s.k);
        return push(&s, ranks, false, l, err);
    }
    const shape *set;
    size_t count;
    bool exact_too = false;
    if (strcmp(preset, "conformance") == 0)
        set = conformance, count = COUNT(conformance), exact_too = true;
    else if (strcmp(preset, "quick") == 0)
        set = quick, count = COUNT(quick);
    else if (strcmp(preset, "default") == 0)
        set = standard, count = COUNT(standard);
    else if (strcmp(preset, "full") == 0)
        set = full, count = COUNT(full);
    else
        return xpb_fail(err, XPB_ERR_USAGE, "unknown preset '%s' (quick, default, full, conformance)", preset);
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < count && !st; i++) {
        st = push(&set[i], ranks, false, l, err);
        if (!st && exact_too)
            st = push(&set[i], ranks, true, l, err);
    }
    return st;
}

static bool knows_size_key(const char *k) { return strcmp(k, "m") == 0 || strcmp(k, "n") == 0 || strcmp(k, "k") == 0; }

/* Everything about the data is the gemm workload's: inputs, arguments, reference, bound. */
static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    return xpb_workload_gemm.make_data(c, seed, d, err);
}

static void make_args(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args)
{
    xpb_workload_gemm.make_args(c, in, out, args);
}

static size_t unit_elements(const xpb_case *c) { return xpb_workload_gemm.unit_elements(c); }

static void reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0, size_t u1,
                      double *ref, double *tol)
{
    xpb_workload_gemm.reference(c, d, precision, u0, u1, ref, tol);
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    return xpb_workload_gemm.tolerance_text(c, precision);
}

static size_t sampled_units(const xpb_case *c) { return xpb_workload_gemm.sampled_units(c); }

const xpb_workload_i xpb_workload_sharded = {
    .name = "sharded",
    .description = "one-GPU workloads split across a device group (--devices, or mpirun): gemm_sharded, C = A B by "
                   "columns of B, without and with the all_gather of C; the gemm workload's inputs and bound",
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .make_args = make_args,
    .unit_elements = unit_elements,
    .reference = reference,
    .tolerance_text = tolerance_text,
    .sampled_units = sampled_units,
    .group = true,
};
