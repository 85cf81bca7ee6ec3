/* cuda_rowop_regs.cuh - the "regs" variant of the row ops (softmax, rmsnorm, layernorm): a long
 * row in chunks of one block each, every chunk held in REGISTERS from its one read to its one
 * write, the chunks' partial statistics exchanged through a small global buffer inside one
 * launch. It is the CUDA form of vulkan/onchip (backends/vulkan/shaders/rows/rowop_onchip.glsl), which
 * reached 86% and 79% of the copy roof for rmsnorm and layernorm on the H100, where cuda/onchip
 * (chunks staged in shared memory by a persistent cooperative grid) and cuda/cluster reached
 * 66-71% (docs/performance.md, session 13). Tuned here (sessions 15 and 16) it reaches 88 / 90 /
 * 91% of the copy roof (the Vulkan copy's 2982 GB/s) for softmax / rmsnorm / layernorm at
 * 1024 x 262144.
 *
 * Tasks: block g takes task g = (row, chunk) in row-major order (row = t / chunks), grid-stride
 * over the rest where the grid is capped; a row's chunks are neighbouring blocks and normally run
 * at the same time. Nothing relies on it (an ordinary launch promises no co-residency):
 *   1. Every block loads its chunk into registers (VALUES floats a thread), folds its partial State,
 *      and thread 0 stores it to the chunk's slot (xpb_regs_slot: every 32-bit word of the State
 *      beside the launch's epoch) and adds 1 to arrive[row], both relaxed: nothing waits for the
 *      stores before the add leaves, so the row's last add reaches L2 one trip sooner than after a
 *      release (H200, 1024 x 262144: rmsnorm and layernorm 6% faster, softmax 2%;
 *      docs/performance.md).
 *   2. The block whose add returned chunks - 1 is the row's COMPLETER. It merges, writes its chunk
 *      from registers, then swaps state[c] 0 -> 2 for every other chunk c (acq_rel). Where the swap
 *      finds 1, the owner handed its chunk over: the completer reads it again (likely from L2) and
 *      writes it.
 *   3. Every other block (an OWNER): thread 0 polls arrive[row] up to SPIN times until it reads
 *      chunks. Seen: the block merges and writes its chunk from registers. (Polling arrive itself,
 *      not a flag the completer sets after its add, takes one store's trip to L2 and back off
 *      every row's wait: H200, 3 - 5% faster for softmax and rmsnorm, 1.5% for layernorm.) Timed
 *      out: it swaps state[own] 0 -> 1; 0 means the chunk is the completer's now and the block
 *      moves on without writing; 2 means the completer claimed it first, so every chunk has
 *      arrived and the block merges and writes.
 *   Each chunk is written by exactly one block. The flags (arrive[rows], state[rows x chunks])
 *   are zeroed before every launch (cudaMemsetAsync on the timed stream); the slots once, when
 *   the exchange is made, and each launch tags its partials with its own epoch (1, 2, ...).
 * Memory order: every block that merges has seen every chunk arrive, so every partial has been
 * stored; warp 0 reads the slots (relaxed) and reads again any whose words do not all carry this
 * launch's epoch yet (a relaxed add may reach L2 before the stores it follows). A 64-bit access is
 * single-copy atomic, so a word with the epoch holds this launch's value, and warp 0 merges the
 * partials in one fixed order (xpb_regs_merge_slots), so every writer of a row uses bit-identical
 * statistics. Under `run --graph` a captured launch replays its epoch, so a slot may still hold
 * the previous replay's partial under this launch's epoch: the harness replays the same inputs,
 * so that partial is bit-identical to this one's and so are the statistics; replaying a graph on
 * changed inputs would need the slots zeroed inside the graph (not done).
 * Shapes: threads x floats a thread (float4 loads where rows are 16-byte aligned) x the blocks
 * an SM the registers must allow, per op (its policy's regs_shape): rmsnorm 512 x 16 x 3 and
 * layernorm 256 x 32 x 4 (8192-float chunks), softmax 512 x 32 x 2 (16384). A block loads,
 * reduces, waits for its row, writes; what overlaps those phases is the other blocks of the SM
 * and the loads in flight a thread (H100, session 15, % of the CUDA copy: rmsnorm 78% at two
 * 512 x 16 blocks an SM, 91-94% at three; layernorm 72% at 512 x 16 x 2, 94% at 256 x 32 x 4).
 * XPB_CUDA_REGS_SHAPE=32x16x1 (512-float chunks) makes the conformance sizes run the exchange.
 * XPB_CUDA_REGS_SPIN: polls (default 4096; 0: every owner hands over at once).
 * XPB_CUDA_REGS_GRID: cap the grid (tests the grid-stride loop).
 * Softmax runs its policy's FastExp form (__expf's ex2.approx with subnormals flushed,
 * xpb_exp_ftz; softmax.cu); XPB_CUDA_ROW_EXP=expf: expf; XPB_CUDA_ROW_EXP=once: its OnceExp form
 * (the fold's exps kept, one xpb_exp_ftz a value).
 * Status: validated and sanitized on the H100 (sessions 15 and 16) and, with the tagged slots, on
 * the H200 (32x16x1 at spin 4096, 0 and 10 with 3 blocks; memcheck, racecheck); figures in
 * docs/performance.md. */
#ifndef XPB_CUDA_ROWOP_REGS_CUH
#define XPB_CUDA_ROWOP_REGS_CUH

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_rowop_onchip.cuh" /* xpb_rowop_exchange, xpb_warp_allreduce */
#include "xpb_knob.h"

#include <type_traits>

/* The compiled block shapes, X(threads, floats a thread, blocks an SM the registers must allow):
 * the occupancy sweep of docs/performance.md (session 15; each op's policy names its default,
 * `regs_shape`), then two for the H200 (issue 36: 1.4x the H100's bandwidth wants more loads in
 * flight; the defaults reached 70-78% of its copy roof): 64 floats a thread, 16 float4 loads
 * issued before any is used, at 2 or 4 blocks an SM (32768 floats an SM, as 512x32x2; sm_90,
 * ptxas: 94-118 registers of the 128 allowed, no spills in any op, float4 or scalar; 48 floats
 * a thread at 3 blocks, 36864 an SM, spilled in softmax and layernorm's float4 forms, and 16 at 4
 * blocks of 512, or 32 at 5 of 256, in every op), then the test shape of 512-float chunks.
 * XPB_CUDA_REGS_SHAPE picks one by name ("512x16x3": threads x floats x blocks; per op:
 * xpb_rowop_regs_shape_of); a name not compiled is an error. The tuner sweeps it (xpb_knobs.def). */
#define XPB_ROWOP_REGS_SHAPES(X) \
    X(512, 16, 2)                \
    X(512, 16, 3)                \
    X(256, 16, 4)                \
    X(256, 16, 6)                \
    X(512, 8, 4)                 \
    X(1024, 8, 2)                \
    X(512, 32, 2)                \
    X(256, 32, 3)                \
    X(256, 32, 4)                \
    X(128, 32, 8)                \
    X(256, 64, 2)                \
    X(128, 64, 4)                \
    X(32, 16, 1)

enum { XPB_REGS_HANDED = 0, XPB_REGS_OWNER = 1, XPB_REGS_COMPLETER = 2 };

/* The exchange's flags: arrive[rows] and state[rows x chunks] (zeroed before every launch), then
 * the partials' slots (xpb_regs_slot: rows x chunks of them, zeroed once, each launch its own
 * epoch) from a 16-byte boundary. */
__host__ __device__ __forceinline__ size_t xpb_regs_counter_words(int64_t rows, int chunks)
{
    return ((size_t)rows * ((size_t)chunks + 1) + 3) & ~(size_t)3;
}

__device__ __forceinline__ uint32_t xpb_atom_cas_acq_rel_gpu(uint32_t *p, uint32_t expect, uint32_t want)
{
    uint32_t old;
    asm volatile("atom.acq_rel.gpu.global.cas.b32 %0, [%1], %2, %3;\n"
                 : "=r"(old)
                 : "l"(p), "r"(expect), "r"(want)
                 : "memory");
    return old;
}

__device__ __forceinline__ uint32_t xpb_atom_add_relaxed_gpu(uint32_t *p, uint32_t v)
{
    uint32_t old;
    asm volatile("atom.relaxed.gpu.global.add.u32 %0, [%1], %2;\n" : "=r"(old) : "l"(p), "r"(v) : "memory");
    return old;
}

__device__ __forceinline__ void xpb_st_relaxed_gpu_v2u64(unsigned long long *p, unsigned long long a,
                                                        unsigned long long b)
{
    asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};\n" : : "l"(p), "l"(a), "l"(b) : "memory");
}

__device__ __forceinline__ void xpb_ld_relaxed_gpu_v2u64(const unsigned long long *p, unsigned long long *a,
                                                        unsigned long long *b)
{
    unsigned long long x, y;
    asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];\n" : "=l"(x), "=l"(y) : "l"(p) : "memory");
    *a = x, *b = y;
}

/* A chunk's partial State in its row's slot: each 32-bit word of the State beside the launch's
 * epoch in one 64-bit word (a 64-bit access is single-copy atomic, so a reader that finds the
 * epoch in every word has the whole State, and a slot left by an earlier launch never passes).
 * So publishing is relaxed stores that nothing waits for, and the arrival add after them needs
 * no release. Words: the State's rounded up to an even count (16-byte stores of two). (Polling
 * the slots themselves from all of warp 0, merging what the poll read, measured 8 - 35% slower:
 * spills and 32 lanes polling without a pause; docs/performance.md.) */
template <class State>
struct xpb_regs_slot {
    static constexpr int WORDS = sizeof(State) / 4;
    static constexpr int U64 = (WORDS + 1) & ~1;
    static_assert(sizeof(State) % 4 == 0, "a State is whole 32-bit words");
};

template <class State>
__device__ __forceinline__ void xpb_regs_publish(unsigned long long *slot, const State &st, uint32_t epoch)
{
    typedef xpb_regs_slot<State> S;
    unsigned w[S::U64] = {};
    memcpy(w, &st, sizeof st);
    const unsigned long long tag = (unsigned long long)epoch << 32;
#pragma unroll
    for (int i = 0; i < S::U64; i += 2)
        xpb_st_relaxed_gpu_v2u64(slot + i, tag | w[i], tag | w[i + 1]);
}

/* Reads a slot into *st; true when every word carries this launch's epoch. */
template <class State>
__device__ __forceinline__ bool xpb_regs_read_slot(const unsigned long long *slot, uint32_t epoch, State *st)
{
    typedef xpb_regs_slot<State> S;
    unsigned long long t[S::U64];
#pragma unroll
    for (int i = 0; i < S::U64; i += 2)
        xpb_ld_relaxed_gpu_v2u64(slot + i, &t[i], &t[i + 1]);
    unsigned w[S::U64];
    bool ok = true;
#pragma unroll
    for (int i = 0; i < S::U64; i++)
        ok = ok && (uint32_t)(t[i] >> 32) == epoch, w[i] = (unsigned)t[i];
    memcpy(st, w, sizeof *st);
    return ok;
}

__device__ __forceinline__ uint32_t xpb_ld_relaxed_gpu(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.relaxed.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* Thread 0: publish partial st of task t in its slot and arrive; an owner polls arrive[row]
 * until every chunk has arrived and, timed out, bids for its own chunk. Returns the block's role.
 * Neither the stores nor the add wait for anything (relaxed: the slots' epochs, not the add's
 * order, tell a reader that a partial is there), so the row's last add leaves at once. */
template <class State>
__device__ __forceinline__ int xpb_regs_arrive(unsigned long long *slots, uint32_t *arrive, uint32_t *state,
                                               int64_t t, int64_t row, int chunks, const State &st, uint32_t spin,
                                               uint32_t epoch)
{
    xpb_regs_publish(slots + (size_t)t * xpb_regs_slot<State>::U64, st, epoch);
    if (xpb_atom_add_relaxed_gpu(arrive + row, 1u) == (uint32_t)chunks - 1u)
        return XPB_REGS_COMPLETER;
    for (uint32_t i = 0; i < spin; i++) {
        if (xpb_ld_relaxed_gpu(arrive + row) == (uint32_t)chunks)
            return XPB_REGS_OWNER;
        __nanosleep(32);
    }
    return xpb_atom_cas_acq_rel_gpu(state + t, 0u, 1u) == 0u ? XPB_REGS_HANDED : XPB_REGS_OWNER;
}

/* Warp 0, once every chunk of the row has arrived: the row's statistics from every slot, merged
 * in one fixed order (as xpb_onchip_merge: lane c folds chunks c, c + 32, ..., then the warp's
 * tree), so every writer of the row uses bit-identical statistics. A slot whose stores have not
 * all reached this lane yet (the add may overtake them) is read again. */
template <class Op>
__device__ __forceinline__ typename Op::State xpb_regs_merge_slots(const unsigned long long *row_slots, int chunks,
                                                                   uint32_t epoch, typename Op::State ident)
{
    typedef typename Op::State State;
    State all = ident;
    for (int c = (int)threadIdx.x; c < chunks; c += 32) {
        State one;
        while (!xpb_regs_read_slot(row_slots + (size_t)c * xpb_regs_slot<State>::U64, epoch, &one))
            ;
        all = typename Op::Merge()(all, one);
    }
    return xpb_warp_allreduce<32>(all, typename Op::Merge());
}

/* A thread's partial State of its n held values v[0..n) (the rest are padding): the policy's
 * `fold<N>` where it has one (softmax: the max, then N independent exps; its OnceExp form leaves
 * the exps in v for its held_out), else value by value
 * with accum. The outputs: a policy with a held form computes scale = held_scale(the thread's
 * own State, r1, r2) once and y = held_out(v, scale, r1, w, b) a value (layernorm:
 * (x - mean) * (1 / sd), no divide a value); the others use the policy's map2 and out, as every
 * other variant. */
template <class Op, int N, class = void>
struct xpb_regs_has_fold : std::false_type {};
template <class Op, int N>
struct xpb_regs_has_fold<Op, N, std::void_t<decltype(&Op::template fold<N>)>> : std::true_type {};
template <class Op, class = void>
struct xpb_regs_fast_exp_form { typedef Op type; }; /* no FastExp: the op itself */
template <class Op>
struct xpb_regs_fast_exp_form<Op, std::void_t<typename Op::FastExp>> { typedef typename Op::FastExp type; };
template <class Op, class = void>
struct xpb_regs_once_exp_form { typedef Op type; }; /* no OnceExp: the op itself */
template <class Op>
struct xpb_regs_once_exp_form<Op, std::void_t<typename Op::OnceExp>> { typedef typename Op::OnceExp type; };
template <class Op, class = void>
struct xpb_regs_has_held_form : std::false_type {};
template <class Op>
struct xpb_regs_has_held_form<Op, std::void_t<decltype(&Op::held_scale)>> : std::true_type {};

template <class Op, int N>
__device__ __forceinline__ typename Op::State xpb_regs_fold(float *v, int n, const float *row)
{
    if constexpr (xpb_regs_has_fold<Op, N>::value) {
        return Op::template fold<N>(v, n, row);
    } else {
        typename Op::State st = Op::init(row);
#pragma unroll
        for (int i = 0; i < N; i++)
            if (i < n)
                Op::accum(st, v[i]);
        return st;
    }
}

/* MINB blocks an SM at least: 65536 / (BLOCK x MINB) registers a thread (512 x 16 at 2: 64, no
 * spills for the three ops on sm_90; with the thread bound alone ptxas held rmsnorm to 40
 * registers and spilled). Capped by the threads an SM holds on the architecture compiled for
 * (sm_86 and sm_89: 1536; ptxas rejects a bound past it). */
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 870 || __CUDA_ARCH__ == 890)
#define XPB_REGS_SM_THREADS 1536
#else
#define XPB_REGS_SM_THREADS 2048
#endif
#define XPB_REGS_MINB(BLOCK, MINB) ((MINB) * (BLOCK) <= XPB_REGS_SM_THREADS ? (MINB) : XPB_REGS_SM_THREADS / (BLOCK))

template <class Op, int BLOCK, int VALUES, int MINB, bool VEC>
__global__ void __launch_bounds__(BLOCK, XPB_REGS_MINB(BLOCK, MINB))
xpb_rowop_regs_kernel(xpb_rowop_ptrs p, int chunks, uint32_t *flags, uint32_t spin, uint32_t epoch)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    typedef typename Op::State State;
    constexpr int PACK = VEC ? 4 : 1;
    constexpr int NPACK = VALUES / PACK;
    constexpr int CHUNK = BLOCK * VALUES;
    __shared__ State red[32];
    __shared__ float stats[2];
    __shared__ int role_of_block;
    __shared__ unsigned char handed[BLOCK]; /* completer: chunk cb + i was handed over */

    const int cols = p.cols;
    const int64_t tasks = p.rows * chunks;
    uint32_t *const arrive = flags, *const state = flags + p.rows;
    unsigned long long *const slots = reinterpret_cast<unsigned long long *>(flags + xpb_regs_counter_words(p.rows, chunks));
    for (int64_t t = blockIdx.x; t < tasks; t += gridDim.x) { /* t is uniform in the block */
        const int64_t row = t / chunks;
        const int ch = (int)(t - row * chunks);
        const int c0 = ch * CHUNK;
        const float *xr = p.x + row * (int64_t)cols;
        float *yr = p.y + row * (int64_t)cols;

        /* the chunk into registers: pack k of thread i at column c0 + (k BLOCK + i) PACK, every
         * load issued before any is used */
        float v[VALUES];
        int held = 0; /* the packs inside the row are a prefix: held values in v[0..held) */
#pragma unroll
        for (int k = 0; k < NPACK; k++) {
            const int c = c0 + (k * BLOCK + (int)threadIdx.x) * PACK;
            if (c < cols) {
                xpb_load_pack<PACK>(xr + c, &v[k * PACK]);
                held += PACK;
            } else {
#pragma unroll
                for (int j = 0; j < PACK; j++)
                    v[k * PACK + j] = 0.0f;
            }
        }
        constexpr bool HELD_FORM = xpb_regs_has_held_form<Op>::value;
        const State mine = xpb_regs_fold<Op, VALUES>(v, held, xr);
        State st = xpb_block_allreduce(mine, typename Op::Merge(), Op::init(xr), red);

        float r1, r2;
        int role = XPB_REGS_OWNER;
        if (chunks == 1) { /* the row is this chunk: every thread has its statistics */
            Op::finish(st, p, &r1, &r2);
        } else {
            if (threadIdx.x == 0)
                role_of_block = xpb_regs_arrive(slots, arrive, state, t, row, chunks, st, spin, epoch);
            __syncthreads();
            role = role_of_block;
            if (role == XPB_REGS_HANDED)
                continue; /* uniform: the completer writes this chunk */
            if (threadIdx.x < 32) {
                const State all = xpb_regs_merge_slots<Op>(
                    slots + (size_t)row * (size_t)chunks * xpb_regs_slot<State>::U64, chunks, epoch, Op::init(xr));
                if (threadIdx.x == 0) {
                    Op::finish(all, p, &r1, &r2);
                    stats[0] = r1, stats[1] = r2;
                }
            }
            __syncthreads();
            r1 = stats[0], r2 = stats[1];
        }

        /* the chunk's outputs from registers */
        float scale = 0.0f;
        if constexpr (HELD_FORM)
            scale = Op::held_scale(mine, r1, r2);
#pragma unroll
        for (int k = 0; k < NPACK; k++) {
            const int c = c0 + (k * BLOCK + (int)threadIdx.x) * PACK;
            if (c < cols) {
                if constexpr (HELD_FORM) {
                    xpb_rowop_write_pack<Op, PACK>(p, yr, c, &v[k * PACK], [=](float x, float w, float b) {
                        return Op::held_out(x, scale, r1, w, b);
                    });
                } else {
                    if constexpr (Op::two_stage) {
#pragma unroll
                        for (int j = 0; j < PACK; j++)
                            v[k * PACK + j] = Op::map2(v[k * PACK + j], r1);
                    }
                    xpb_rowop_out_pack<Op, PACK>(p, yr, c, &v[k * PACK], r1, r2);
                }
            }
        }

        if (role == XPB_REGS_COMPLETER) { /* claim the other chunks, BLOCK at a time */
            uint32_t *const row_state = state + row * chunks;
            for (int cb = 0; cb < chunks; cb += BLOCK) {
                const int c = cb + (int)threadIdx.x;
                handed[threadIdx.x] =
                    c < chunks && c != ch && xpb_atom_cas_acq_rel_gpu(row_state + c, 0u, 2u) == 1u;
                __syncthreads();
                const int n = min(BLOCK, chunks - cb);
                for (int j = 0; j < n; j++) {
                    if (handed[j]) { /* uniform: every thread reads the same slot */
                        const int lo = (cb + j) * CHUNK, hi = min(lo + CHUNK, cols);
                        for (int i = lo + (int)threadIdx.x * PACK; i < hi; i += BLOCK * PACK)
                            xpb_rowop_out_from<Op, PACK>(p, xr + i, yr, i, r1, r2);
                    }
                }
                __syncthreads(); /* handed[] is free again */
            }
        }
        /* stats and role_of_block are rewritten only after the next task's block reduction,
         * whose barriers every thread reaches after reading them here */
    }
#else
    (void)p, (void)chunks, (void)flags, (void)spin, (void)epoch;
#endif
}

/* ---- host side --------------------------------------------------------------------------------- */

/* The launch's shape: chunk floats (block x values), chunks a row, the grid (rows x chunks
 * blocks, capped by XPB_CUDA_REGS_GRID), and which compiled shape (XPB_ROWOP_REGS_SHAPES). */
struct xpb_rowop_regs_plan {
    int chunk, chunks;
    int64_t grid;
    int block, values, minb;
    uint32_t spin; /* XPB_CUDA_REGS_SPIN */
    int slot_u64;  /* 64-bit words of a partial's slot (xpb_regs_slot of the op's State) */
    int exp_form;  /* XPB_CUDA_ROW_EXP, the index among "fast|expf|once": ops with a FastExp form
                    * (softmax: xpb_exp_ftz) run it for fast, their OnceExp form for once */
};

/* The shape by name for the op of kernel `name` ("softmax_regs", "softmax": the op is the part
 * before '_') into want: XPB_CUDA_REGS_SHAPE, either one shape for every op ("256x64x2") or a
 * list of OP:SHAPE ("softmax:256x64x2,layernorm:128x64x4"; an op not named keeps its own), so
 * that a tuning may change one op's shape alone (docs/tuning.md); unset, default_shape. An op
 * that is not a row op, or an item without its ':', is a usage error. */
static inline xpb_status xpb_rowop_regs_shape_of(const char *name, const char *default_shape, char want[64],
                                                 xpb_error *err)
{
    const char *v = xpb_knob_value(XPB_KNOB_CUDA_REGS_SHAPE);
    snprintf(want, 64, "%s", default_shape);
    if (!v || !strchr(v, ':')) {
        if (v)
            snprintf(want, 64, "%s", v);
        return XPB_OK;
    }
    const size_t op_len = strcspn(name, "_");
    xpb_op_item it;
    for (const char *pos = v; xpb_op_item_next(&pos, &it);) {
        const bool row_op = (it.op_len == 7 && (!strncmp(it.op, "softmax", 7) || !strncmp(it.op, "rmsnorm", 7))) ||
                            (it.op_len == 9 && !strncmp(it.op, "layernorm", 9));
        if (!it.val || !row_op)
            return xpb_fail(err, XPB_ERR_USAGE,
                            "%s regs: XPB_CUDA_REGS_SHAPE=%s: expected SHAPE or OP:SHAPE[,OP:SHAPE...] with OP "
                            "softmax, rmsnorm or layernorm",
                            name, v);
        if (it.op_len == op_len && !strncmp(it.op, name, op_len))
            snprintf(want, 64, "%.*s", (int)it.val_len, it.val);
    }
    return XPB_OK;
}

static inline xpb_status xpb_rowop_regs_make_plan(const xpb_cuda_ctx *ctx, int64_t rows, int cols, const char *name,
                                                  const char *default_shape, int slot_u64, xpb_rowop_regs_plan *plan,
                                                  xpb_error *err)
{
    if (ctx->cc_major < 7)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED,
                        "%s regs: acquire and release atomics need compute capability 7.0, the GPU has %d.%d", name,
                        ctx->cc_major, ctx->cc_minor);
    /* the shape: XPB_CUDA_REGS_SHAPE, one of the compiled ones by name, else the op's */
    char want[64];
    xpb_status st = xpb_rowop_regs_shape_of(name, default_shape, want, err);
    if (st)
        return st;
    int block = 0, values = 0, minb = 0;
    char names[256] = "";
#define XPB_REGS_PICK(B, V, M)                                                            \
    if (!block && strcmp(want, #B "x" #V "x" #M) == 0)              \
        block = B, values = V, minb = M;                                                  \
    snprintf(names + strlen(names), sizeof names - strlen(names), " %s", #B "x" #V "x" #M);
    XPB_ROWOP_REGS_SHAPES(XPB_REGS_PICK)
#undef XPB_REGS_PICK
    if (!block)
        return xpb_fail(err, XPB_ERR_USAGE, "%s regs: XPB_CUDA_REGS_SHAPE=%s is not a compiled shape (one of:%s)",
                        name, want, names);
    const int chunk = block * values;
    const int chunks = (cols + chunk - 1) / chunk;
    int64_t grid = rows * chunks;
    long cap, spin;
    st = xpb_knob_get_long_or(XPB_KNOB_CUDA_REGS_GRID, INT32_MAX, &cap, err);
    if (st || (st = xpb_knob_get_long(XPB_KNOB_CUDA_REGS_SPIN, &spin, err)))
        return st;
    if (grid > cap)
        grid = cap;
    int exp_form;
    if ((st = xpb_knob_get_choice(XPB_KNOB_CUDA_ROW_EXP, &exp_form, err)))
        return st;
    *plan = {chunk, chunks, grid, block, values, minb, (uint32_t)spin, slot_u64, exp_form};
    return XPB_OK;
}

template <class Op, int BLOCK, int VALUES, int MINB, bool VEC>
static xpb_status xpb_rowop_regs_go(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, xpb_rowop_exchange *s,
                                    const xpb_rowop_regs_plan &plan, const char *name, xpb_error *err)
{
    if (plan.chunks > 1) {
        const size_t counters = xpb_regs_counter_words(p.rows, plan.chunks) * sizeof(uint32_t);
        if (++s->epoch == 0) { /* after 2^32 launches: the slots zeroed again, epochs from 1 */
            XPB_CUDA_CHECK(err, cudaMemsetAsync(s->flags, 0, s->flags_bytes, ctx->stream));
            s->epoch = 1;
        } else {
            XPB_CUDA_CHECK(err, cudaMemsetAsync(s->flags, 0, counters, ctx->stream));
        }
    }
    xpb_rowop_regs_kernel<Op, BLOCK, VALUES, MINB, VEC><<<(unsigned)plan.grid, BLOCK, 0, ctx->stream>>>(
        p, plan.chunks, s->flags, plan.spin, s->epoch);
    XPB_CUDA_CHECK_LAUNCH(err, name);
    return XPB_OK;
}

/* The variant for XPB_CUDA_ROWOP_STATE_KERNEL: flags arrive[rows] and state[rows x chunks], then
 * the partials' tagged slots (xpb_regs_counter_words), none for rows of one chunk. No `part`
 * buffer (cuda/onchip's partials): the slots hold them. */
struct xpb_rowop_regs_variant {
    static constexpr const char *variant = "regs";
    typedef xpb_rowop_regs_plan Plan;
    template <class Op>
    static xpb_status plan(xpb_cuda_ctx *ctx, int64_t rows, int cols, const char *name, Plan *out, xpb_error *err)
    {
        return xpb_rowop_regs_make_plan(ctx, rows, cols, name, Op::regs_shape,
                                        xpb_regs_slot<typename Op::State>::U64, out, err);
    }
    static size_t flag_words(const Plan &plan, int64_t rows)
    {
        return plan.chunks > 1 ? xpb_regs_counter_words(rows, plan.chunks) +
                                     (size_t)rows * (size_t)plan.chunks * (size_t)plan.slot_u64 * 2
                               : 0;
    }
    static size_t part_states(const Plan &, int64_t) { return 0; }
    template <class Op>
    static xpb_status go(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec, xpb_rowop_exchange *s, const Plan &plan,
                         const char *name, xpb_error *err)
    {
        typedef typename xpb_regs_fast_exp_form<Op>::type Fast;
        typedef typename xpb_regs_once_exp_form<Op>::type Once;
        if constexpr (!std::is_same<Op, Fast>::value) {
            if (plan.exp_form == 0)
                return go_shape<Fast>(ctx, p, vec, s, plan, name, err);
        }
        if constexpr (!std::is_same<Op, Once>::value) {
            if (plan.exp_form == 2)
                return go_shape<Once>(ctx, p, vec, s, plan, name, err);
        }
        return go_shape<Op>(ctx, p, vec, s, plan, name, err);
    }
    /* The shape, its chunking, the loads and, for ops with an exp form (softmax), which one. */
    template <class Op>
    static void describe(const Plan &plan, int, bool vec, char *buf, size_t n)
    {
        constexpr bool exp_forms = !std::is_same<Op, typename xpb_regs_fast_exp_form<Op>::type>::value ||
                                   !std::is_same<Op, typename xpb_regs_once_exp_form<Op>::type>::value;
        char form[16];
        snprintf(buf, n, "shape=%dx%dx%d chunk=%d chunks=%d loads=%s%s%s", plan.block, plan.values, plan.minb,
                 plan.chunk, plan.chunks, vec ? "float4" : "float", exp_forms ? " exp=" : "",
                 exp_forms ? xpb_knob_word(XPB_KNOB_CUDA_ROW_EXP, plan.exp_form, form, sizeof form) : "");
    }
    template <class Op>
    static xpb_status go_shape(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec, xpb_rowop_exchange *s,
                               const Plan &plan, const char *name, xpb_error *err)
    {
#define XPB_REGS_GO(B, V, M)                                                   \
    if (plan.block == B && plan.values == V && plan.minb == M)                 \
        return vec ? xpb_rowop_regs_go<Op, B, V, M, true>(ctx, p, s, plan, name, err) \
                   : xpb_rowop_regs_go<Op, B, V, M, false>(ctx, p, s, plan, name, err);
        XPB_ROWOP_REGS_SHAPES(XPB_REGS_GO)
#undef XPB_REGS_GO
        return xpb_fail(err, XPB_ERR_RUNTIME, "%s regs: no kernel for the planned shape", name);
    }
};

/* Defines `extern "C" const xpb_kernel xpb_cuda_<name>`: the regs variant of row-op policy Op. */
#define XPB_CUDA_ROWOP_REGS_KERNEL(name, xpb_op_value, Op) \
    XPB_CUDA_ROWOP_STATE_KERNEL(name, xpb_op_value, Op, xpb_rowop_regs_variant)

#endif
