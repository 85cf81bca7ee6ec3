/* collectives.c - the `collectives` workload: NCCL's collectives across the ranks of a device group
 * (--backend cuda --devices LIST), timed as the slowest rank and reported as algorithm and bus
 * bandwidth with nccl-tests' definitions (docs/multi-gpu.md).
 *
 * A case is one op at one size for one group size: "collectives/all_reduce/bytes=1048576,gpus=2/fp32".
 * `bytes` is nccl-tests' size: the larger of a rank's send and receive buffers. Inputs are small
 * integers (-4..4) so that every sum over up to 64 ranks is exact in fp32 in any order: every
 * rank's output must match the reference bit for bit (tolerance 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_rng.h"
#include "xpb_workload.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_RANKS 64

static const xpb_op ops[] = {XPB_OP_ALL_REDUCE, XPB_OP_ALL_GATHER, XPB_OP_REDUCE_SCATTER,
                             XPB_OP_BROADCAST,  XPB_OP_ALL_TO_ALL, XPB_OP_SENDRECV};

/* Chunked ops split a rank's buffer into one chunk per rank. */
static bool chunked(xpb_op op)
{
    return op == XPB_OP_ALL_GATHER || op == XPB_OP_REDUCE_SCATTER || op == XPB_OP_ALL_TO_ALL;
}

/* nccl-tests' bus bandwidth factor for n ranks (PERFORMANCE.md there): what each rank's link
 * must carry relative to the algorithm bandwidth, so that busbw compares with the hardware's. */
static double bus_factor(xpb_op op, int n)
{
    switch (op) {
    case XPB_OP_ALL_REDUCE: return 2.0 * (n - 1) / n;
    case XPB_OP_ALL_GATHER:
    case XPB_OP_REDUCE_SCATTER:
    case XPB_OP_ALL_TO_ALL: return (double)(n - 1) / n;
    default: return 1.0; /* broadcast, sendrecv */
    }
}

/* Floats per rank in the send and the receive buffer for chunk c (xpb_ops.h). */
static void counts(xpb_op op, int n, int64_t c, int64_t *send, int64_t *recv)
{
    *send = op == XPB_OP_REDUCE_SCATTER || op == XPB_OP_ALL_TO_ALL ? n * c : c;
    *recv = op == XPB_OP_ALL_GATHER || op == XPB_OP_ALL_TO_ALL ? n * c : c;
}

static int ranks_of(const xpb_case *c) { return (int)xpb_case_param(c, "gpus", 1); }

/* The chunk of case c: bytes / 4 for unchunked ops, bytes / (4 n) for chunked ones. */
static int64_t chunk_of(const xpb_case *c)
{
    int64_t bytes = xpb_case_param(c, "bytes", 4);
    return chunked(c->op) ? bytes / 4 / ranks_of(c) : bytes / 4;
}

/* One case of op with chunk c on n ranks; nothing when the chunk is empty (a size below 4n bytes
 * for a chunked op has nothing to send). */
static xpb_status push(xpb_op op, int n, int64_t chunk, xpb_case_list *l, xpb_error *e)
{
    if (chunk < 1)
        return XPB_OK;
    int64_t send, recv;
    counts(op, n, chunk, &send, &recv);
    int64_t per_rank = send > recv ? send : recv;
    xpb_case c = {0};
    extern const xpb_workload_i xpb_workload_collectives;
    c.workload = &xpb_workload_collectives;
    c.op = op;
    c.dtype = XPB_DTYPE_F32;
    xpb_case_set_param(&c, "bytes", per_rank * 4);
    xpb_case_set_param(&c, "gpus", n);
    c.elements = (uint64_t)per_rank;
    c.bytes_read = (uint64_t)per_rank * 4; /* so GB/s is nccl-tests' algbw: size / time */
    c.bus_factor = bus_factor(op, n);
    xpb_case_make_id(&c);
    return xpb_case_list_push(l, &c, e);
}

/* Sizes (bytes) by preset: from 8 B by powers of two (quick: every 2^4, default: every 2^2 up to
 * 1 GiB, full: every power up to 8 GiB); conformance: odd chunks of 1, 3, 255, 257, 4097 floats. */
static xpb_status add_cases(const char *preset, const xpb_sizes *sizes, xpb_case_list *l, xpb_error *err)
{
    int n = sizes && sizes->ranks > 0 ? sizes->ranks : 1;
    if (n > MAX_RANKS)
        return xpb_fail(err, XPB_ERR_USAGE, "collectives: %d ranks; at most %d", n, MAX_RANKS);
    xpb_status st = XPB_OK;
    if (sizes && sizes->count > 0) {
        int64_t bytes;
        if (!xpb_sizes_get(sizes, "bytes", &bytes))
            return XPB_OK; /* not a collectives size */
        if (bytes < 4 || bytes > ((int64_t)1 << 36))
            return xpb_fail(err, XPB_ERR_USAGE, "bad size bytes=%lld (collectives need 4..2^36)", (long long)bytes);
        for (size_t i = 0; i < COUNT(ops) && !st; i++)
            st = push(ops[i], n, chunked(ops[i]) ? bytes / 4 / n : bytes / 4, l, err);
        return st;
    }
    if (strcmp(preset, "conformance") == 0) {
        static const int64_t odd[] = {1, 3, 255, 257, 4097};
        for (size_t i = 0; i < COUNT(ops) && !st; i++)
            for (size_t j = 0; j < COUNT(odd) && !st; j++)
                st = push(ops[i], n, odd[j], l, err);
        return st;
    }
    int first, step, top; /* sizes 2^first, 2^(first + step), ... up to and including 2^top */
    if (strcmp(preset, "quick") == 0)
        first = 3, step = 4, top = 23; /* 8 B, 128 B, .. 8 MiB */
    else if (strcmp(preset, "default") == 0)
        first = 4, step = 2, top = 30; /* 16 B, 64 B, .. 1 GiB: every 4x */
    else if (strcmp(preset, "full") == 0)
        first = 3, step = 1, top = 33; /* 8 B .. 8 GiB: every 2x */
    else
        return xpb_fail(err, XPB_ERR_USAGE, "unknown preset '%s' (quick, default, full, conformance)", preset);
    for (size_t i = 0; i < COUNT(ops) && !st; i++)
        for (int k = first; k <= top && !st; k += step) {
            int64_t bytes = (int64_t)1 << k;
            st = push(ops[i], n, chunked(ops[i]) ? bytes / 4 / n : bytes / 4, l, err);
        }
    return st;
}

static bool knows_size_key(const char *k) { return strcmp(k, "bytes") == 0; }

/* Rank r's input element i: an integer in -4..4 (exact sums, xpb_rng's hash of seed, r, i). */
static float input_value(uint64_t seed, int r, int64_t i)
{
    uint64_t h = xpb_rng_hash(seed, 100u + (uint64_t)r, (uint64_t)i);
    return (float)((int)(h % 9) - 4);
}

static xpb_status make_data(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    int n = ranks_of(c);
    int64_t send, recv;
    counts(c->op, n, chunk_of(c), &send, &recv);
    size_t total = (size_t)n * (size_t)send;
    float *p = malloc(total * sizeof *p);
    if (!p)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cannot allocate %zu bytes of host memory for the inputs",
                        total * sizeof *p);
    /* A hash per element: 2^28 of them for each rank at 1 GiB, seconds on one thread */
#pragma omp parallel for collapse(2) schedule(static)
    for (int r = 0; r < n; r++)
        for (int64_t i = 0; i < send; i++)
            p[(size_t)r * (size_t)send + (size_t)i] = input_value(seed, r, i);
    d->n_in = 1;
    d->in_name[0] = "send";
    d->in[0] = p;
    d->in_bytes[0] = total * sizeof *p;
    d->n_out = 1;
    d->out_name[0] = "recv";
    d->out_elements = (size_t)n * (size_t)recv;
    d->out_bytes[0] = d->out_elements * sizeof(float);
    return XPB_OK;
}

/* Rank r sends only its own part of the input array (rank-major, its send buffer): the upload
 * gives each rank that part alone, a quarter of the copying on 4 GPUs (xpb_workload.h). */
static size_t input_rank_part(const xpb_case *c, int i)
{
    (void)i;
    int64_t send, recv;
    counts(c->op, ranks_of(c), chunk_of(c), &send, &recv);
    return (size_t)send * sizeof(float);
}

static void make_args(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args)
{
    xpb_collective_args *a = args;
    memset(a, 0, sizeof *a);
    a->send = in[0];
    a->recv = out[0];
    a->ranks = ranks_of(c);
    counts(c->op, a->ranks, chunk_of(c), &a->send_count, &a->recv_count);
    a->root = 0;
}

/* A unit is one rank's receive buffer, or for a large one a block of it: the largest power of two
 * that divides it, at most UNIT_MAX elements. The validation works in units (a chunk of them per
 * thread, a reference array of a chunk's size per thread), so a unit of a whole 256 Mi-element
 * receive buffer meant one thread per rank (4 of 16 busy on 4 GPUs) and 2 x 2 GiB of reference
 * and tolerance per thread, first touched there: seconds of page faults per 1 GiB case. */
#define UNIT_MAX ((int64_t)1 << 16)

static size_t unit_elements(const xpb_case *c)
{
    int64_t send, recv;
    counts(c->op, ranks_of(c), chunk_of(c), &send, &recv);
    if (recv <= UNIT_MAX)
        return (size_t)recv;
    int64_t low = recv & -recv; /* the largest power of two dividing recv: units never straddle ranks */
    return (size_t)(low < UNIT_MAX ? low : UNIT_MAX);
}

/* Output elements [u0 unit, u1 unit): element e is rank e / recv's receive buffer at e % recv,
 * and what each collective leaves there (xpb_ops.h). */
static void reference(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0, size_t u1,
                      double *ref, double *tol)
{
    (void)precision;
    int n = ranks_of(c);
    int64_t ch = chunk_of(c), send, recv;
    counts(c->op, n, ch, &send, &recv);
    size_t unit = unit_elements(c), e0 = u0 * unit, e1 = u1 * unit;
    const float *in = d->in[0];
#define IN(q, i) ((double)in[(size_t)(q) * (size_t)send + (size_t)(i)])
    int64_t r = (int64_t)(e0 / (size_t)recv), j = (int64_t)(e0 % (size_t)recv); /* then stepped: no division */
    int64_t q_of_j = ch ? j / ch : 0, j_in_q = ch ? j % ch : 0;                /* j = q_of_j ch + j_in_q */
    for (size_t e = e0; e < e1; e++) {
        double v = 0;
        switch (c->op) {
        case XPB_OP_ALL_REDUCE:
            for (int q = 0; q < n; q++)
                v += IN(q, j);
            break;
        case XPB_OP_REDUCE_SCATTER:
            for (int q = 0; q < n; q++)
                v += IN(q, r * ch + j);
            break;
        case XPB_OP_ALL_GATHER: v = IN(q_of_j, j_in_q); break;
        case XPB_OP_ALL_TO_ALL: v = IN(q_of_j, r * ch + j_in_q); break;
        case XPB_OP_BROADCAST: v = IN(0, j); break; /* root 0 */
        case XPB_OP_SENDRECV: v = IN((r + n - 1) % n, j); break;
        default: v = NAN; break;
        }
        ref[e - e0] = v;
        if (++j_in_q == ch)
            j_in_q = 0, q_of_j++;
        if (++j == recv)
            j = 0, r++, q_of_j = 0, j_in_q = 0;
    }
#undef IN
    memset(tol, 0, (e1 - e0) * sizeof *tol); /* exact: small integers */
}

static const char *tolerance_text(const xpb_case *c, const char *precision)
{
    (void)c, (void)precision;
    return "exact: inputs are integers -4..4, every sum over the ranks is exact in fp32 in any order (|err| = 0)";
}

const xpb_workload_i xpb_workload_collectives = {
    .name = "collectives",
    .description = "NCCL collectives across a device group (--devices): all_reduce, all_gather, reduce_scatter, "
                   "broadcast, all_to_all, sendrecv; fp32, out of place; algbw and busbw as nccl-tests",
    .add_cases = add_cases,
    .knows_size_key = knows_size_key,
    .make_data = make_data,
    .make_args = make_args,
    .unit_elements = unit_elements,
    .reference = reference,
    .tolerance_text = tolerance_text,
    .group = true,
    .input_rank_part = input_rank_part,
};
