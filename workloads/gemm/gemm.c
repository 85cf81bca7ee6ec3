/* gemm.c - the GEMM and GEMV workload (spec section 2): presets, inputs, argument packing and
 * the fp64 reference with a bound that depends on the variant's precision.
 *
 * C = alpha * A(MxK) * B(KxN) + beta * C(MxN), row-major. GEMV is M = 1 with its own op (it is
 * bandwidth-bound: its throughput is GB/s as well as GFLOP/s).
 *
 * Bound, per element, with S = sum_k |a_ik| |b_kj| and u = 2^-24:
 *   |out - ref| <= |alpha| S (2 u_in + (10 sqrt(K) + 2) u) + |beta| |c_ij| 2u + u |ref|
 * u_in is the unit roundoff of the inputs as the variant consumes them: 0 for fp32 (no input
 * rounding), 2^-11 for tf32 and fp16 (10 explicit mantissa bits), 2^-8 for bf16. The input
 * rounding term is the deterministic worst case (each product carries two input roundings); the
 * accumulation term is the probabilistic bound (lambda = 10) of docs/validation.md, valid for any
 * summation order, blocked, split-K or tensor-core.
 *
 * Exact-class cases (input=exact) draw every A, B and C value from the nonzero integers -4..4,
 * which fp16, bf16 and tf32 hold exactly: every product is exact and every partial sum is an
 * integer of at most S = sum_k |a_ik||b_kj| <= 16 K. While S <= 2^24 the whole computation is
 * exact in any order and any precision, so the bound is one rounding, u |ref|, and a skipped k
 * term (never 0) or k tile shows at any K. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_input.h"
#include "xpb_rng.h"
#include "xpb_workload.h"

#define U 0x1p-24
#define LAMBDA 10.0
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
/* A full fp64 check costs M*N*K multiply-adds; past this, validate sampled rows of C. */
#define FULL_CHECK_MACS ((double)(1u << 30))

extern const xpb_workload_i xpb_workload_gemm;

enum { IN_A, IN_B, IN_C };

typedef struct shape { int64_t m, n, k; int axpby; } shape;

/* axpby=1: alpha = 1.5, beta = -0.5 with a random C (the general case); else alpha 1, beta 0. */
#define AXPBY_ALPHA 1.5
#define AXPBY_BETA (-0.5)

static const shape conf_gemm[] = {{1, 1, 1, 0},     {1, 7, 3, 0},     {3, 5, 7, 0},     {17, 33, 65, 0},
                                  {65, 17, 33, 0},  {127, 129, 131, 0}, {255, 257, 1, 0}, {64, 64, 64, 1},
                                  {33, 65, 129, 1}, {257, 255, 1000, 0}};
static const shape conf_gemv[] = {{1, 1, 1, 0}, {1, 7, 3, 0}, {1, 4097, 255, 0}, {1, 1000, 1023, 1}};
static const shape quick_gemm[] = {{1, 1, 1, 0}, {17, 33, 65, 0}, {64, 64, 64, 0}, {128, 128, 128, 0},
                                   {256, 256, 256, 0}};
static const shape quick_gemv[] = {{1, 1024, 1024, 0}};
static const shape default_gemm[] = {{128, 128, 128, 0},    {256, 256, 256, 0},    {512, 512, 512, 0},
                                     {1000, 1000, 1000, 0}, {1023, 1023, 1023, 0}, {1024, 1024, 1024, 0},
                                     {1025, 1025, 1025, 0}, {2048, 2048, 2048, 0}, {4096, 4096, 4096, 0},
                                     {4097, 4097, 4097, 0}, {64, 64, 262144, 0}}; /* + a long K */
static const shape default_gemv[] = {{1, 1024, 1024, 0}, {1, 2048, 2048, 0}, {1, 4096, 4096, 0},
                                     {1, 8192, 8192, 0}, {1, 16384, 16384, 0}, {1, 256, 262144, 0}};
static const shape full_gemm[] = {{1024, 1024, 1024, 0}, {2048, 2048, 2048, 0}, {4096, 4096, 4096, 0},
                                  {8192, 8192, 8192, 0}, {16384, 1024, 1024, 0}, {1024, 1024, 16384, 0},
                                  {4096, 4096, 4096, 1}, {1000, 1000, 1000, 1}};
static const shape full_gemv[] = {{1, 8192, 8192, 0}, {1, 16384, 16384, 0}, {1, 16384, 16384, 1},
                                  {1, 65536, 4096, 0}};

typedef struct preset {
    const char *name;
    const shape *gemm; size_t n_gemm;
    const shape *gemv; size_t n_gemv;
} preset;

static const preset presets[] = {
    {"conformance", conf_gemm, COUNT(conf_gemm), conf_gemv, COUNT(conf_gemv)},
    {"quick", quick_gemm, COUNT(quick_gemm), quick_gemv, COUNT(quick_gemv)},
    {"default", default_gemm, COUNT(default_gemm), default_gemv, COUNT(default_gemv)},
    {"full", full_gemm, COUNT(full_gemm), full_gemv, COUNT(full_gemv)},
};

static xpb_status push_class(xpb_op op, const shape *s, xpb_input_class cls, xpb_case_list *l, xpb_error *e)
{
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.workload = &xpb_workload_gemm;
    c.op = op;
    c.dtype = XPB_DTYPE_F32;
    if (op == XPB_OP_GEMM)
        xpb_case_set_param(&c, "m", s->m);
    xpb_case_set_param(&c, "n", s->n);
    xpb_case_set_param(&c, "k", s->k);
    if (s->axpby)
        xpb_case_set_param(&c, "axpby", 1);
    if (cls != XPB_INPUT_RANDOM) {
        xpb_case_set_param(&c, XPB_INPUT_KEY, cls);
        c.validate_only = true;
    }
    c.scalar[0] = s->axpby ? AXPBY_ALPHA : 1.0;
    c.scalar[1] = s->axpby ? AXPBY_BETA : 0.0;
    uint64_t m = (uint64_t)s->m, n = (uint64_t)s->n, k = (uint64_t)s->k;
    c.elements = m * n;
    c.bytes_read = 4 * (m * k + k * n + (s->axpby ? m * n : 0));
    c.bytes_written = 4 * m * n;
    c.flops = 2.0 * (double)m * (double)n * (double)k + (s->axpby ? (double)(m * n) : 0);
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

/* A shape with random inputs, then with exact ones; only one of them when `only` names it. */
static xpb_status push(xpb_op op, const shape *s, int64_t only, xpb_case_list *l, xpb_error *e)
{
    xpb_status st = XPB_OK;
    if (only == XPB_INPUT_COUNT || only == XPB_INPUT_RANDOM)
        st = push_class(op, s, XPB_INPUT_RANDOM, l, e);
    if (!st && (only == XPB_INPUT_COUNT || only == XPB_INPUT_EXACT))
        st = push_class(op, s, XPB_INPUT_EXACT, l, e);
    return st;
}

static xpb_status check_dim(const char *what, int64_t v, xpb_error *err)
{
    if (v < 1 || v > ((int64_t)1 << 20))
        return xpb_fail(err, XPB_ERR_USAGE, "bad size %s=%lld (gemm needs 1..2^20)", what, (long long)v);
    return XPB_OK;
}

static xpb_status add_cases(const char *preset_name, const xpb_sizes *sizes, xpb_case_list *l,
                            xpb_error *err)
{
    if (sizes && sizes->count > 0) { /* m,n,k -> gemm (and gemv when m = 1); n,k alone -> gemv */
        shape s = {1, 0, 0, 0};
        int64_t ab = 0, only = XPB_INPUT_COUNT;
        bool has_m = xpb_sizes_get(sizes, "m", &s.m);
        xpb_sizes_get(sizes, XPB_INPUT_KEY, &only);
        if (!xpb_sizes_get(sizes, "k", &s.k) || !xpb_sizes_get(sizes, "n", &s.n))
            return XPB_OK; /* not a gemm size */
        xpb_sizes_get(sizes, "axpby", &ab);
        s.axpby = ab != 0;
        xpb_status st;
        if ((st = check_dim("m", s.m, err)) || (st = check_dim("n", s.n, err)) || (st = check_dim("k", s.k, err)))
            return st;
        if ((double)s.m * (double)s.k > (double)(1LL << 31) || (double)s.k * (double)s.n > (double)(1LL << 31) ||
            (double)s.m * (double)s.n > (double)(1LL << 31))
            return xpb_fail(err, XPB_ERR_USAGE, "bad gemm size: a matrix over 2^31 elements");
        if (has_m && (st = push(XPB_OP_GEMM, &s, only, l, err)))
            return st;
        return s.m == 1 ? push(XPB_OP_GEMV, &s, only, l, err) : XPB_OK;
    }
    for (size_t i = 0; i < COUNT(presets); i++) {
        if (strcmp(presets[i].name, preset_name) != 0)
            continue;
        xpb_status st = XPB_OK;
        for (size_t j = 0; j < presets[i].n_gemm && !st; j++)
            st = push(XPB_OP_GEMM, &presets[i].gemm[j], XPB_INPUT_COUNT, l, err);
        for (size_t j = 0; j < presets[i].n_gemv && !st; j++)
            st = push(XPB_OP_GEMV, &presets[i].gemv[j], XPB_INPUT_COUNT, l, err);
        return st;
    }
    return xpb_fail(err, XPB_ERR_USAGE, "unknown preset '%s' (quick, default, full, conformance)", preset_name);
}

static bool knows_size_key(const char *k)
{
    return strcmp(k, "m") == 0 || strcmp(k, "n") == 0 || strcmp(k, "k") == 0 || strcmp(k, "axpby") == 0 ||
           strcmp(k, XPB_INPUT_KEY) == 0;
}

static bool is_exact(const xpb_case *c) { return xpb_case_param(c, XPB_INPUT_KEY, 0) == XPB_INPUT_EXACT; }

/* Exact class: a nonzero integer in -4..4 from the generator's hash. */
static void fill_small_ints(float *p, size_t n, uint64_t seed, uint64_t stream)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++) {
        uint64_t h = xpb_rng_hash(seed, stream, i);
        p[i] = (float)(1 + (int)(h % 4)) * ((h >> 63) ? -1.0f : 1.0f);
    }
}

static xpb_status add_input(xpb_case_data *d, const char *name, size_t n, uint64_t seed, bool exact,
                            xpb_error *err)
{
    float *p = malloc(n ? n * sizeof(float) : 1);
    if (!p)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory for %s",
                        n * sizeof(float), name);
    if (exact)
        fill_small_ints(p, n, seed, (uint64_t)(10 + d->n_in));
    else
        xpb_rng_fill_f32(p, n, seed, (uint64_t)(10 + d->n_in), 1.0f, 0.0f);
    d->in_name[d->n_in] = name;
    d->in[d->n_in] = p;
    d->in_bytes[d->n_in++] = n * sizeof(float);
    return XPB_OK;
}

static int64_t dim_m(const xpb_case *c) { return xpb_case_param(c, "m", 1); }

static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    size_t m = (size_t)dim_m(c), n = (size_t)xpb_case_param(c, "n", 1), k = (size_t)xpb_case_param(c, "k", 1);
    xpb_status st = add_input(d, "a", m * k, seed, is_exact(c), err);
    if (!st)
        st = add_input(d, "b", k * n, seed, is_exact(c), err);
    if (!st && c->scalar[1] != 0)
        st = add_input(d, "c_in", m * n, seed, is_exact(c), err);
    if (st) {
        xpb_case_data_free(d);
        return st;
    }
    d->n_out = 1;
    d->out_name[0] = "c";
    d->out_bytes[0] = m * n * sizeof(float);
    d->out_elements = m * n;
    return XPB_OK;
}

static void make_args(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args)
{
    xpb_gemm_args *a = args;
    memset(a, 0, sizeof *a);
    a->a = in[IN_A];
    a->b = in[IN_B];
    if (c->scalar[1] != 0)
        a->c_in = in[IN_C];
    a->c = out[0];
    a->m = dim_m(c);
    a->n = xpb_case_param(c, "n", 1);
    a->k = xpb_case_param(c, "k", 1);
    a->alpha = (float)c->scalar[0];
    a->beta = (float)c->scalar[1];
}

static size_t unit_elements(const xpb_case *c) { return (size_t)xpb_case_param(c, "n", 1); }

/* Unit roundoff of the inputs as a variant of this precision consumes them. */
static double input_roundoff(const char *precision)
{
    if (strncmp(precision, "tf32", 4) == 0 || strncmp(precision, "fp16", 4) == 0)
        return 0x1p-11;
    if (strncmp(precision, "bf16", 4) == 0)
        return 0x1p-8;
    return 0;
}

/* One row i of C at a time, k outer so that B is read along its rows. */
static void reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0, size_t u1,
                      double *ref, double *tol)
{
    size_t n = (size_t)xpb_case_param(c, "n", 1), k = (size_t)xpb_case_param(c, "k", 1);
    const float *A = d->in[IN_A], *B = d->in[IN_B], *C = c->scalar[1] != 0 ? d->in[IN_C] : NULL;
    double alpha = (double)(float)c->scalar[0], beta = (double)(float)c->scalar[1];
    double per_term = 2.0 * input_roundoff(precision) + (LAMBDA * sqrt((double)k) + 2.0) * U;
    double *sabs = malloc(n * sizeof *sabs);
    if (!sabs) { /* no memory: an impossible bound makes every element fail loudly */
        for (size_t e = 0; e < (u1 - u0) * n; e++)
            ref[e] = NAN, tol[e] = -1;
        return;
    }
    for (size_t i = u0; i < u1; i++) {
        double *r = ref + (i - u0) * n, *t = tol + (i - u0) * n;
        for (size_t j = 0; j < n; j++)
            r[j] = 0, sabs[j] = 0;
        for (size_t p = 0; p < k; p++) {
            double a = A[i * k + p];
            const float *brow = B + p * n;
            for (size_t j = 0; j < n; j++) {
                r[j] += a * brow[j];
                sabs[j] += fabs(a * brow[j]);
            }
        }
        for (size_t j = 0; j < n; j++) {
            double cij = C ? C[i * n + j] : 0;
            r[j] = alpha * r[j] + beta * cij;
            if (is_exact(c) && sabs[j] <= 0x1p24) /* every step exact: one rounding at most */
                t[j] = U * fabs(r[j]);
            else
                t[j] = fabs(alpha) * sabs[j] * per_term + fabs(beta * cij) * 2.0 * U + U * fabs(r[j]);
        }
    }
    free(sabs);
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    if (is_exact(c))
        return "exact input (integers -4..4, sum|a||b| <= 2^24: exact in any order and precision): |err| <= u|ref|";
    double ui = input_roundoff(precision);
    if (ui == 0x1p-11)
        return "|err| <= |alpha| S (2*2^-11 + (10 sqrt(K)+2) u) + 2u|beta c| + u|ref|, S = sum|a||b| (tf32/fp16 inputs)";
    if (ui == 0x1p-8)
        return "|err| <= |alpha| S (2*2^-8 + (10 sqrt(K)+2) u) + 2u|beta c| + u|ref|, S = sum|a||b| (bf16 inputs)";
    return "|err| <= |alpha| S (10 sqrt(K)+2) u + 2u|beta c| + u|ref|, S = sum|a||b|, u = 2^-24 (fp32)";
}

/* Rows of C to check: all while M*N*K is cheap in fp64, else enough rows for ~2^30 MACs. */
static size_t sampled_units(const xpb_case *c)
{
    double m = (double)dim_m(c), nk = (double)xpb_case_param(c, "n", 1) * (double)xpb_case_param(c, "k", 1);
    if (m * nk <= FULL_CHECK_MACS)
        return 0;
    double rows = FULL_CHECK_MACS / nk;
    return rows < 16 ? 16 : (size_t)rows;
}

const xpb_workload_i xpb_workload_gemm = {
    .name = "gemm",
    .description = "C = alpha A B + beta C (GEMM) and y = x B (GEMV), fp32 in memory; variants may compute in tf32/fp16",
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .make_args = make_args,
    .unit_elements = unit_elements,
    .reference = reference,
    .tolerance_text = tolerance_text,
    .sampled_units = sampled_units,
};
