/* sharded.c - the `sharded` workload: one-GPU workloads split across the ranks of a device group
 * (--backend cuda --devices LIST, or one process per GPU under MPI; docs/multi-gpu.md).
 *
 * gemm_sharded: C = A B (fp32, row-major) split by columns of B. Rank r of n computes the columns
 * [r N / n, (r+1) N / n) of C from all of A and its columns of B. A case is
 * "sharded/gemm_sharded/m=M,n=N,k=K,gpus=n/fp32"; its variants (backends/cuda/gemm/gemm_sharded.c) are
 * `cublas` (each rank keeps its columns: the compute alone) and `cublas-gather` (every rank ends
 * with the whole C: NCCL all_gather, then each block copied into place). The inputs, the fp64
 * reference and the error bound are the gemm workload's, unchanged (workloads/gemm/gemm.c): a
 * sharded product must be as accurate as one GPU's, and it is, since every element of C is one
 * rank's ordinary fp32 dot product.
 *
 * anneal_assign_sharded: the annealing assign split by points (anneal_assign.c). Each op is a row
 * of sharded_op_i (sharded.h); the workload's functions below pass a case to its op's row. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sharded.h"
#include "xpb_input.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

extern const xpb_workload_i xpb_workload_gemm;

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

int sharded_preset(const char *preset, xpb_error *err)
{
    static const char *const names[] = {"conformance", "quick", "default", "full"};
    for (int i = 0; i < (int)COUNT(names); i++)
        if (strcmp(preset, names[i]) == 0)
            return i;
    xpb_fail(err, XPB_ERR_USAGE, "unknown preset '%s' (quick, default, full, conformance)", preset);
    return -1;
}

static xpb_status gemm_add_cases(const char *preset, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
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
    static const shape *const sets[] = {conformance, quick, standard, full};
    static const size_t counts[] = {COUNT(conformance), COUNT(quick), COUNT(standard), COUNT(full)};
    int p = sharded_preset(preset, err);
    if (p < 0)
        return XPB_ERR_USAGE;
    const shape *set = sets[p];
    size_t count = counts[p];
    bool exact_too = p == SHARDED_CONFORMANCE;
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < count && !st; i++) {
        st = push(&set[i], ranks, false, l, err);
        if (!st && exact_too)
            st = push(&set[i], ranks, true, l, err);
    }
    return st;
}

static bool gemm_knows_size_key(const char *k) { return strcmp(k, "m") == 0 || strcmp(k, "n") == 0 || strcmp(k, "k") == 0; }

/* Everything about the data is the gemm workload's: inputs, arguments, reference, bound. */
static xpb_status gemm_make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    return xpb_workload_gemm.make_data(c, seed, d, err);
}

static void gemm_make_args(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args)
{
    xpb_workload_gemm.make_args(c, in, out, args);
}

static size_t gemm_unit_elements(const xpb_case *c) { return xpb_workload_gemm.unit_elements(c); }

static void gemm_reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0, size_t u1,
                           double *ref, double *tol)
{
    xpb_workload_gemm.reference(c, d, precision, u0, u1, ref, tol);
}

static const char *gemm_tolerance_text(const xpb_case *c, const char *precision)
{
    return xpb_workload_gemm.tolerance_text(c, precision);
}

static size_t gemm_sampled_units(const xpb_case *c) { return xpb_workload_gemm.sampled_units(c); }

const sharded_op_i sharded_gemm = {
    .op = XPB_OP_GEMM_SHARDED,
    .add_cases = gemm_add_cases,
    .knows_size_key = gemm_knows_size_key,
    .make_data = gemm_make_data,
    .make_args = gemm_make_args,
    .unit_elements = gemm_unit_elements,
    .reference = gemm_reference,
    .tolerance_text = gemm_tolerance_text,
    .sampled_units = gemm_sampled_units,
};

/* ---- the workload: each case to its op's row ------------------------------------------------ */

static const sharded_op_i *const ops[] = {&sharded_gemm, &sharded_anneal_assign};

#define COUNT_OPS (sizeof ops / sizeof ops[0])

static const sharded_op_i *op_of(const xpb_case *c)
{
    for (size_t i = 0; i < COUNT_OPS; i++)
        if (ops[i]->op == c->op)
            return ops[i];
    return &sharded_gemm;
}

static xpb_status add_cases(const char *preset, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < COUNT_OPS && !st; i++)
        st = ops[i]->add_cases(preset, sizes, l, err);
    return st;
}

static bool knows_size_key(const char *k)
{
    for (size_t i = 0; i < COUNT_OPS; i++)
        if (ops[i]->knows_size_key(k))
            return true;
    return false;
}

static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    return op_of(c)->make_data(c, seed, d, err);
}

static void make_args(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args)
{
    op_of(c)->make_args(c, in, out, args);
}

static size_t unit_elements(const xpb_case *c)
{
    return op_of(c)->unit_elements(c);
}

static void reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0, size_t u1,
                      double *ref, double *tol)
{
    op_of(c)->reference(c, d, precision, u0, u1, ref, tol);
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    return op_of(c)->tolerance_text(c, precision);
}

static size_t sampled_units(const xpb_case *c)
{
    return op_of(c)->sampled_units(c);
}

const xpb_workload_i xpb_workload_sharded = {
    .name = "sharded",
    .description = "one-GPU workloads split across a device group (--devices, or mpirun): gemm_sharded, C = A B by "
                   "columns of B, without and with the all_gather of C; the gemm workload's inputs and bound; "
                   "anneal_assign_sharded, the annealing assign split by points, counts all_reduced",
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
