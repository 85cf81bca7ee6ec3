/* xpb_ops.h - the ops every backend may implement, and the argument struct each op takes.
 *
 * An op is a mathematical contract (docs/workloads.md); a kernel is one backend's
 * implementation of it under a variant name. Kernels receive `const void *args` pointing to the
 * argument struct named beside the op below. Buffers are passed as views (buffer + byte offset)
 * so the harness can surround every output with guard regions. */
#ifndef XPB_OPS_H
#define XPB_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum xpb_op {
    /* elementwise: xpb_eltwise_args */
    XPB_OP_COPY,    /* out = x          */
    XPB_OP_ADD,     /* out = x + y      */
    XPB_OP_MUL,     /* out = x * y      */
    XPB_OP_SCALE,   /* out = a * x      */
    XPB_OP_RELU,    /* out = max(0, x)  */
    XPB_OP_SIGMOID, /* out = 1/(1+e^-x) */
    XPB_OP_SILU,    /* out = x*sigmoid(x) */
    /* row ops: xpb_rowop_args */
    XPB_OP_SOFTMAX,
    XPB_OP_RMSNORM,   /* uses w            */
    XPB_OP_LAYERNORM, /* uses w (gamma), b */
    /* rope: xpb_rope_args */
    XPB_OP_ROPE,
    /* gemm / gemv: xpb_gemm_args (GEMV is M = 1) */
    XPB_OP_GEMM,
    XPB_OP_GEMV,
    /* annealing compression (docs/workloads.md section 3): a whole run (the case's op; no
     * kernel of its own), then the ops it is made of */
    XPB_OP_ANNEAL_COMPRESS,
    XPB_OP_ANNEAL_INIT,    /* xpb_anneal_init_args    */
    XPB_OP_ANNEAL_ASSIGN,  /* xpb_anneal_assign_args  */
    XPB_OP_ANNEAL_STATS,   /* xpb_anneal_stats_args   */
    XPB_OP_ANNEAL_UPDATE,  /* xpb_anneal_update_args  */
    XPB_OP_ANNEAL_CHANGES, /* xpb_anneal_changes_args */
    XPB_OP_ANNEAL_SEARCH,  /* xpb_anneal_search_args  */
    /* burst propagation (docs/workloads.md section 4): a whole run of B bursts (the case's op; no
     * kernel of its own), then its ops, all taking xpb_burst_args */
    XPB_OP_BURST_RUN,
    XPB_OP_BURST_PROPAGATE,
    XPB_OP_BURST_DYNAMICS,
    XPB_OP_BURST_COMPACT,
    XPB_OP_BURST_BATCH, /* `bursts` bursts in one submission: propagate, dynamics, compact each */

    /* collectives across the ranks of a device group (NCCL): xpb_collective_args */
    XPB_OP_ALL_REDUCE,     /* every rank: the sum over ranks                      */
    XPB_OP_ALL_GATHER,     /* every rank: every rank's chunk, in rank order       */
    XPB_OP_REDUCE_SCATTER, /* rank r: chunk r of the sum over ranks               */
    XPB_OP_BROADCAST,      /* every rank: the root's buffer                       */
    XPB_OP_ALL_TO_ALL,     /* rank r, chunk q: rank q's chunk r                   */
    XPB_OP_SENDRECV,       /* rank r sends to r+1 and receives from r-1 (a ring)  */
    /* sharded workloads across a device group: xpb_gemm_args, C = A B split by columns of B */
    XPB_OP_GEMM_SHARDED,
    /* burst propagation across a device group (xpb_burst_args, the shard_* views): each rank
     * takes the synapses that target its neurons, then bursts as `batch`, the fired sets
     * exchanged every burst (docs/multi-gpu.md) */
    XPB_OP_BURST_SHARD,
    XPB_OP_BURST_SHARDED,
    /* annealing `assign` across a device group, the points split by rank: xpb_anneal_assign_args */
    XPB_OP_ANNEAL_ASSIGN_SHARDED,
    /* the annealing run across a device group, the points split by rank (the anneal workload's
     * group op, docs/multi-gpu.md "Sharded annealing run"): xpb_anneal_sharded_args */
    XPB_OP_ANNEAL_SHARDED,
    XPB_OP_COUNT
} xpb_op;

typedef enum xpb_dtype {
    XPB_DTYPE_F32,
    XPB_DTYPE_F16,
    XPB_DTYPE_I32,
    XPB_DTYPE_U8,
} xpb_dtype;

/* A backend-owned device allocation; each backend defines the struct. */
typedef struct xpb_buffer xpb_buffer;

/* A place in a buffer. offset is in bytes and is always a multiple of 256, so it satisfies
 * every device's minStorageBufferOffsetAlignment and float4 alignment. */
typedef struct xpb_view {
    xpb_buffer *buf;
    size_t offset;
} xpb_view;

/* copy, add, mul, scale, relu, sigmoid, silu. y is read only by add and mul; a only by scale. */
typedef struct xpb_eltwise_args {
    xpb_view x, y, out;
    int64_t n;
    float a;
} xpb_eltwise_args;

/* softmax, rmsnorm, layernorm over each of `rows` rows of `cols` contiguous floats.
 * w: per-column weight (rmsnorm, layernorm gamma); b: per-column bias (layernorm beta). */
typedef struct xpb_rowop_args {
    xpb_view x, w, b, out;
    int64_t rows, cols;
    float eps;
} xpb_rowop_args;

/* rope: x and out of shape [batch, heads, seq, head_dim], head_dim even. The pair
 * (x[2i], x[2i+1]) at sequence position p rotates by p * base^(-2i/head_dim). */
typedef struct xpb_rope_args {
    xpb_view x, out;
    int64_t batch, heads, seq, head_dim;
    float base;
} xpb_rope_args;

/* c = alpha * A(MxK) * B(KxN) + beta * c_in(MxN), all row-major fp32 in memory.
 * The harness poisons c before each validated run, so C's old value comes in c_in: it is read
 * only when beta != 0 (c_in.buf is NULL when beta == 0); a kernel that works in place (cuBLAS)
 * copies c_in to c first. GEMV is the M = 1 case (op XPB_OP_GEMV: y(1xN) = x(1xK) * B(KxN)).
 * Variants with lower-precision inputs (tf32, fp16) convert A and B in `prepare` (untimed) and
 * say so in their precision string. */
typedef struct xpb_gemm_args {
    xpb_view a, b, c_in, c;
    int64_t m, n, k;
    float alpha, beta;
} xpb_gemm_args;

/* ---- annealing compression (docs/workloads.md section 3; driven by workloads/anneal/run.c) ----
 * Points x: n x d fp32, row-major. Anchors: m x d fp32, row-major. Assignments: n uint32.
 * "dist" is always the squared Euclidean distance, computed in fp32 (any summation order unless
 * an op says otherwise). Every op may use `scratch` (XPB_ANNEAL_SCRATCH_BYTES(n, m) bytes,
 * contents undefined on entry and on exit) and must not allocate device memory per launch.
 * 1 <= n < 2^31, 1 <= d <= 4096, 1 <= m <= n. Kernels of these ops are deterministic: the same
 * inputs give the same bits (no float atomics). */
/* 16 MiB beyond the per-point and per-anchor needs: room for a block of distances (the CPU's
 * BLAS tile of thousands of points x m), so a kernel never calls a library on slivers. */
#define XPB_ANNEAL_SCRATCH_BYTES(n, m) ((size_t)(n) * 8u + (size_t)(m) * 64u + ((size_t)16u << 20))

/* init: farthest-point anchors. chosen[0] = 0. mind[i] = dist(x_i, x_chosen[0]) (direct form:
 * sum over k of (x_ik - a_k)^2). For j = 1 .. m-1: chosen[j] = the i with the largest mind[i],
 * ties to the lowest i; then mind[i] = min(mind[i], dist(x_i, x_chosen[j])). anchors[j] =
 * x[chosen[j]], bit for bit. No host round trip per anchor where the backend allows it. */
typedef struct xpb_anneal_init_args {
    xpb_view x;       /* in:  n x d fp32             */
    xpb_view anchors; /* out: m x d fp32             */
    xpb_view chosen;  /* out: m uint32 point indices */
    xpb_view scratch;
    int64_t n, d, m;
} xpb_anneal_init_args;

/* assign: assign[i] = argmin_j dist(x_i, anchor_j), ties to the lowest j; dist[i] = that
 * distance, as computed, clamped to >= +0.0f (never -0.0f or NaN for finite inputs). GPU kernels
 * compute distance tiles GEMM-style, ||x||^2 - 2 x.a + ||a||^2, with the argmin fused (the n x m
 * matrix is never written). */
typedef struct xpb_anneal_assign_args {
    xpb_view x, anchors; /* in                 */
    xpb_view assign;     /* out: n uint32      */
    xpb_view dist;       /* out: n fp32        */
    xpb_view scratch;
    int64_t n, d, m;
} xpb_anneal_assign_args;

/* stats: per anchor j, with c_j = #{i : assign[i] = j}:
 *   counts[j] = c_j;
 *   mean[j]  = the trimmed mean: order j's points by the key (bits of dist[i] as uint32, i) -
 *              dist >= +0, so the bits order like the values - ascending; t = floor(c_j * trim)
 *              computed in double; drop the first t and the last t; mean of the rest (of all c_j
 *              when c_j - 2t < 1); 0 when c_j = 0. Exact selection (e.g. bisection on the key
 *              bits with counting passes), no sort required;
 *   var[j]   = per dimension, sum over all c_j points of (x - mean[j])^2 / (c_j - 1); 0 when
 *              c_j < 2.
 * Sums in fp32 or better, any order. */
typedef struct xpb_anneal_stats_args {
    xpb_view x, assign, dist; /* in                   */
    xpb_view counts;          /* out: m uint32        */
    xpb_view mean, var;       /* out: m x d fp32 each */
    xpb_view scratch;
    int64_t n, d, m;
    double trim;
} xpb_anneal_stats_args;

/* update, in place: for each j with counts[j] > 0 and each k:
 *   anchors[j][k] += clamp((mean[j][k] - anchors[j][k]) * lr_t, -0.1f, 0.1f)   (fp32)
 * Anchors with counts[j] = 0 are left as they are. */
typedef struct xpb_anneal_update_args {
    xpb_view anchors;      /* in/out: m x d fp32 */
    xpb_view counts, mean; /* in                 */
    int64_t m, d;
    float lr_t;            /* lr * T / (1 + T), from the host */
} xpb_anneal_update_args;

/* changes: result[0] (fp32) = the energy, sum over i of dist(x_i, anchors[assign[i]]) (direct
 * form) / n, summed pairwise (per-block partials, then a tree or a fixed-order pass; fp64
 * accumulation allowed); result[1] (uint32) = #{i : assign[i] != prev[i]}. result is 8 bytes. */
typedef struct xpb_anneal_changes_args {
    xpb_view x, anchors, assign, prev; /* in */
    xpb_view result;                   /* out: {float energy; uint32 changes} */
    xpb_view scratch;
    int64_t n, d, m;
} xpb_anneal_changes_args;

/* search (the retrieval report's query path, workloads/anneal/retrieval.c): for every query q
 * and anchor j, dist[q * m + j] = ||q||^2 - 2 q.a_j + ||a_j||^2 in fp32 (the GEMM form of assign,
 * any summation order), clamped to >= +0.0f (never -0.0f or NaN for finite inputs); nq x m,
 * row-major, every element written. The anchors are the compressed store (the final anchors
 * rounded to fp16 and back, so exact in fp32), or, for the exact-search baseline, the points
 * themselves (m = n). Sizes: 1 <= nq < 2^31, 1 <= d <= 4096, 1 <= m < 2^31, nq * m < 2^31 (no
 * relation between m and nq). `scratch` holds XPB_ANNEAL_SEARCH_SCRATCH_BYTES(nq, m) bytes
 * (room for both norms), contents undefined on entry and exit; deterministic like the others. */
#define XPB_ANNEAL_SEARCH_SCRATCH_BYTES(nq, m) (((size_t)(nq) + (size_t)(m)) * 4u + 1024u)
typedef struct xpb_anneal_search_args {
    xpb_view queries, anchors; /* in:  nq x d, m x d fp32 */
    xpb_view dist;             /* out: nq x m fp32        */
    xpb_view scratch;
    int64_t nq, d, m;
} xpb_anneal_search_args;

/* The annealing run on a device group of P ranks (docs/multi-gpu.md, "Sharded annealing run"):
 * every buffer exists on every rank, each the whole size; rank r owns the points
 * [r n / P, (r+1) n / P). One op, three phases, each leaving every buffer the same on every rank:
 *  INIT:    init (xpb_anneal_init_args' contract): each step, every rank the one-GPU step
 *           kernel over its own points and the winner's key max-reduced over the group, so the
 *           one-GPU chosen and anchors bit for bit on each (XPB_CUDA_SHARDED_ANNEAL_INIT=
 *           replicated: the one-GPU init on every rank over all points);
 *  STEP:    assign on the rank's points (the one-GPU kernels: the same bits per point), their
 *           assign and dist broadcast from each owner to every rank; stats as the one-GPU op
 *           defines them, with counts and each anchor's kept key range found on every rank from
 *           the gathered keys, and the mean's and var's per-anchor fp64 sums taken by each rank
 *           over its own points, then summed over the group (all_reduce); update on rank 0,
 *           then its anchors broadcast;
 *  CHANGES: changes (xpb_anneal_changes_args' contract) on every rank over all points.
 * sums: m x d fp64 (8 m d bytes); scratch: XPB_ANNEAL_SCRATCH_BYTES(n, m). */
enum { XPB_ANNEAL_SHARDED_INIT, XPB_ANNEAL_SHARDED_STEP, XPB_ANNEAL_SHARDED_CHANGES };
typedef struct xpb_anneal_sharded_args {
    int phase;
    xpb_view x, anchors, chosen;   /* n x d, m x d fp32, m uint32 (INIT)      */
    xpb_view assign, prev, dist;   /* n uint32, n uint32 (CHANGES), n fp32    */
    xpb_view counts, mean, var;    /* m uint32, m x d fp32 each               */
    xpb_view result;               /* CHANGES: {float energy; uint32 changes} */
    xpb_view sums, scratch;
    int64_t n, d, m;
    double trim;
    float lr_t;
} xpb_anneal_sharded_args;

/* ---- burst propagation (docs/workloads.md section 4; driven by workloads/burst/run.c) ----------
 * Layout on the device (the host side is burst_network / burst_state in workloads/burst/burst.h,
 * uploaded once per run): CSR by source, offsets n + 1 uint32, targets uint32 per synapse,
 * weight and psp uint8 per synapse, inhibitory uint8 per neuron (uint8 arrays are allocated
 * rounded up to a multiple of 4 bytes, so a kernel may read them as packed uint32 words);
 * per-neuron fp32 threshold, threshold_limit, leak, excitability and uint32 refractory,
 * fire_limit, snooze; state fp32 v, uint32 countdown and count. Sizes: 1 <= n < 2^32 - 1,
 * synapses < 2^32 (so every offset, degree sum and event count fits uint32; larger networks
 * are unsupported), max fan-in * 65025 + S < 2^31 (checked by the generator), so int32 input
 * never overflows. Every op is deterministic (integer atomics only) and must not allocate device
 * memory per launch. One args struct serves every burst op; each reads what it needs.
 *
 * counters: an array of xpb_burst_counters, one per burst plus one: entry 0 is all zero (the
 * empty fired set before burst 0); the compact of burst b writes entry b + 1; the propagate of
 * burst b reads entry b. The per-burst run reads entry b + 1 back after each burst (32 bytes);
 * the batched run reads the whole array back once. */
#define XPB_BURST_EVENTS_PER_GROUP 1024
typedef struct xpb_burst_counters {
    uint32_t fired;       /* ids in the fired list                                      */
    uint32_t dispatch[3]; /* propagate's grid as a VkDispatchIndirectCommand: {x, 1, 1},
                           * x = max(1, min(ceil(events / XPB_BURST_EVENTS_PER_GROUP),
                           * XPB_BURST_MAX_GROUPS)); groups stride over the events     */
    uint32_t events;      /* synaptic events: the out-degree sum of the fired list      */
    uint32_t reserved[3]; /* zero                                                       */
} xpb_burst_counters;
#define XPB_BURST_MAX_GROUPS 65535u

/* Scratch for compact (block sums of a scan, with room to spare); contents undefined on entry
 * and exit. */
#define XPB_BURST_SCRATCH_BYTES(n) ((size_t)(n) / 64u * 8u + ((size_t)1u << 20))

/* The ops, for burst b (the args' `burst`):
 *  propagate: for each k < counters[b].fired, source s = fired[k], and each synapse e of row s:
 *     input[targets[e]] += (inhibitory[s] ? -1 : 1) * weight[e] * psp[e]   (int32 atomic add)
 *   Load-balanced by events, not sources: degree_scan[k] = the out-degree sum of fired[0..k)
 *   (from compact), so event j < counters[b].events belongs to the source k with
 *   degree_scan[k] <= j < degree_scan[k + 1] (binary search), synapse offsets[s] + j -
 *   degree_scan[k]; a hub row is spread over many threads. input holds zeros before burst 0
 *   and dynamics leaves it zeroed after each burst.
 *  dynamics: per neuron i: in = input[i] + (burst_stimulus_draw(i, b) < stim_floor ? stim : 0);
 *   then steps a-g of burst_dynamics_neuron (workloads/burst/reference.c) exactly, the fp32
 *   steps uncontracted (CUDA __fmul_rn / __fadd_rn, GLSL precise, C -ffp-contract=off);
 *   fired_flag[i] = 1 if i fired, else 0; input[i] = 0.
 *  compact: fired = the i with fired_flag[i] != 0, ascending (a stable scan, not an atomic
 *   append, so the list read back is the burst's fired set in the contract's order);
 *   degree_scan[k] = the row lengths of fired[0..k) summed, for k <= count; counters[b + 1] =
 *   {count, dispatch, events = degree_scan[count]}.
 *  batch: bursts b = burst .. burst + bursts - 1 (the args' `bursts`), each propagate, dynamics, compact as above, in
 *   one submission (one command buffer with indirect dispatches on Vulkan; a CUDA graph or
 *   stream launches without a host wait on CUDA): the host reads nothing between bursts.
 * On a device group of `ranks` GPUs (docs/multi-gpu.md), every buffer exists on every rank:
 *  shard: rank r keeps, of every row s of the network, the synapses whose target is one of its
 *   neurons, in their order: shard_offsets (n + 1 rows, as offsets), shard_targets, _weight,
 *   _psp; and zeroes shard_bits. Once, after the network's upload.
 *  sharded: as batch, across the group. Per burst, each rank propagates the whole fired list
 *   through its shard (so it adds only into its own neurons' input), updates its own neurons
 *   (dynamics, with their global ids in the draws), sets their bits in its slot of shard_bits,
 *   all_gather of the slots (NCCL), then compacts the gathered bits into the fired list, the
 *   same on every rank. counters[b + 1] = {fired, dispatch, events of the whole group,
 *   reserved[0] = this rank's own events}. v, countdown and count hold each neuron's state on
 *   its owner's copy (a download reads each range from its owner); fired and counters are the
 *   same on every rank. Integer sums and the same per-neuron steps: the fired sets and v equal
 *   one device's bit for bit. */
/* Rank r's slot in shard_bits: XPB_BURST_SHARD_WORDS(n, ranks) words, bit k = neuron
 * xpb_burst_shard_first(r) + k, unused bits zero; whole 16-byte groups of words: NCCL 2.28.3's
 * symmetric all_gather (XPB_CUDA_SHARDED_EXCHANGE=window) delivered wrong words for slots that are
 * not, on 2 and 4 H200s (tests/exchange_peak.cu; docs/multi-gpu.md). */
#define XPB_BURST_SHARD_WORDS(n, ranks) ((((size_t)(n) + (size_t)(ranks) - 1u) / (size_t)(ranks) + 127u) / 128u * 4u)
#define XPB_BURST_SHARD_BITS_BYTES(n, ranks) ((size_t)(ranks) * XPB_BURST_SHARD_WORDS(n, ranks) * 4u)
static inline int64_t xpb_burst_shard_first(int r, int ranks, int64_t n) { return (int64_t)r * n / ranks; }
typedef struct xpb_burst_args {
    /* the network (in) */
    xpb_view offsets, targets, weight, psp, inhibitory;
    xpb_view threshold, threshold_limit, leak, excitability; /* n fp32 each  */
    xpb_view refractory, fire_limit, snooze;                 /* n uint32 each */
    /* the state (in/out) */
    xpb_view v, countdown, count; /* n fp32, n uint32, n uint32                      */
    xpb_view input;               /* n int32: zero between bursts                     */
    xpb_view fired_flag;          /* n uint32                                         */
    xpb_view fired;               /* n uint32: the fired list (counters[].fired used) */
    xpb_view degree_scan;         /* n + 1 uint32                                     */
    xpb_view counters;            /* (bursts + 1) xpb_burst_counters                  */
    xpb_view scratch;             /* XPB_BURST_SCRATCH_BYTES(n)                       */
    /* shard and sharded only (a device group of `ranks`; unused on one device): rank r owns the
     * neurons [r n / ranks, (r + 1) n / ranks) (xpb_burst_shard_first) */
    xpb_view shard_offsets;       /* n + 1 uint32: rank r's synapses by source           */
    xpb_view shard_targets;       /* synapses uint32 (room for all; rank r uses its own) */
    xpb_view shard_weight, shard_psp; /* synapses uint8 each, as targets                 */
    xpb_view shard_bits;          /* XPB_BURST_SHARD_BITS_BYTES(n, ranks): fired bits    */
    int ranks;
    int64_t n;
    uint64_t synapses;
    uint32_t burst;     /* b: the (first) burst                   */
    uint32_t bursts;    /* batch: bursts in this submission, >= 1 */
    int32_t stim;       /* S                                      */
    uint32_t stim_floor; /* floor(p_stim * 2^32)                  */
    float scale;        /* BURST_SCALE                            */
} xpb_burst_args;

/* A collective over the `ranks` ranks of a device group, fp32. The group holds every buffer
 * once per rank; in the views' layout rank r's send buffer is the r-th run of send_count floats
 * and its receive buffer the r-th run of recv_count floats (so the harness uploads every rank's
 * input at once and reads every rank's output back as one array). Out of place: send and recv
 * never overlap. Per rank, with n = ranks and c a chunk (docs/multi-gpu.md):
 *   all_reduce      send c, recv c          broadcast  send c, recv c (from root)
 *   all_gather      send c, recv n c        all_to_all send n c, recv n c
 *   reduce_scatter  send n c, recv c        sendrecv   send c, recv c (from rank r-1) */
typedef struct xpb_collective_args {
    xpb_view send, recv;
    int64_t send_count, recv_count; /* floats per rank */
    int ranks;
    int root; /* broadcast */
} xpb_collective_args;

/* Static description of an op: names and the shape of its arguments. */
typedef struct xpb_op_info {
    xpb_op op;
    const char *name;     /* "softmax"      */
    const char *workload; /* "elementwise"  */
    bool group;           /* runs across a device group (NCCL), never on one device */
} xpb_op_info;

const xpb_op_info *xpb_op_get(xpb_op op);
/* Returns XPB_OP_COUNT when no op has that name. */
xpb_op xpb_op_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
