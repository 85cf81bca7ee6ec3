// rowop_onchip.glsl - variant onchip of the row ops (softmax, rmsnorm, layernorm): each row in
// chunks of CHUNK values, one workgroup per chunk, the chunk held in registers from its one read
// to its one write; the chunks' partial statistics meet in a small buffer inside ONE dispatch
// (rowop_onchip.c launches it).
//
// Why: the default variant reads a long row twice (layernorm f32: three times), and `l2` reads
// each chunk twice too (the second time from L2, across a dispatch boundary). Here the row
// crosses DRAM once each way, the copy's traffic.
//
// Tasks: workgroup g takes task g = (row, chunk), row-major (row = t / chunks, ch = t % chunks),
// grid-stride over the rest where the host capped the grid. So a row's chunks are neighbouring
// workgroups and normally run at the same time.
//
// The exchange (deadlock-free: no workgroup ever waits unboundedly, so it is correct even where
// workgroups run one at a time, as on lavapipe; co-residency is never assumed):
//   1. Every workgroup loads its chunk (rv), reduces its partial statistics, and invocation 0
//      writes them to part[row * chunks + ch], then atomicAdd(arrive[row], 1) with release
//      (and acquire) semantics at device scope.
//   2. The workgroup whose atomicAdd returned chunks - 1 is the row's COMPLETER: every other
//      partial is visible to it (acquire). It merges the partials, writes its own chunk from
//      registers, then for every other chunk c does
//      atomicCompSwap(state[row * chunks + c], 0, 2). Where that returns 1, the owner has given
//      up and handed the chunk over: the completer re-reads it (likely from L2) and writes it.
//   3. Every other workgroup (an OWNER) polls arrive[row] (acquire) up to SPIN times, until it
//      reads chunks (polling arrive itself, not a flag the completer sets after its add, saves
//      a store's trip to memory and back a row: H200, 1024 x 262144, 2 - 5% faster; push
//      constant `spin`; 0 allowed): invocation 0 loads, the whole workgroup loops with it, the
//      result broadcast through shared memory. Seen: it merges the partials and writes its chunk
//      from registers. Timed out: it does atomicCompSwap(state[own], 0, 1). 0 (now 1): the chunk
//      is the completer's; it exits without writing. 2: the completer already claimed it, so it
//      merges and writes itself (the failed swap acquires the completer's release, and with it
//      every partial). Test knob `poll_state`: owners poll state[own] instead of arrive[row] and
//      then always swap, so one that runs beside its completer reaches the 2.
//   Each chunk is written by exactly one workgroup: its owner unless it handed over first.
//   All flags (arrive[rows], state[rows * chunks]) are zero at the dispatch's start:
//   the host records a vkCmdFillBuffer and a barrier before it in the same launch.
//   A row of one chunk has no exchange: its workgroup writes it from its own partial.
//
// Tagged partials (OC_TAGGED 1: the *_onchip_tagged shaders; need shaderInt64 and
// shaderBufferInt64Atomics; rowop_onchip.c picks them where the device has both): invocation 0
// stores each 32-bit word of its partial as one 64-bit slot {word, launch epoch} (push constant
// `epoch`, 1, 2, ... a launch) with a relaxed atomic store, then adds to arrive[row] relaxed too:
// the add need not wait for the store to reach memory first, as a release add does (on the H200
// that wait is most of a row's signal; here 1 - 3% faster at 1024 x 262144). Every
// reader (owner or completer) then reads each partial's words with relaxed atomic loads until all
// carry this launch's epoch (oc_total_tagged): a word from an earlier launch is never taken. The flag
// atomics go relaxed as well (no partial is passed through them any more). The slots are zeroed
// when made and when the epoch wraps; only the flags are zeroed each launch.
//
// Memory model: the shader keeps the GLSL450 memory model (no device feature to enable): part
// and flags are `coherent` (device-scope availability and visibility of their plain accesses),
// the flag atomics carry explicit device-scope acquire/release semantics (relaxed when tagged)
// (GL_KHR_memory_scope_semantics), and the broadcasts' barriers order buffer memory across the
// workgroup (controlBarrier with StorageBuffer semantics), so what invocation 0 acquired is
// visible to every invocation of the workgroup.
//
// Merging: every writer of a row merges the same partials with the same code at one call site in
// the same fixed order (invocation i takes partials i, i + BLOCK, ..., then the workgroup
// reduction, as rowop_l2.glsl's part_sum; rmsnorm's and layernorm's tagged merge in the first
// subgroup alone, below), so every chunk of a row uses bit-identical statistics.
// Statistics (docs/validation.md): softmax (max, sum of exp(x - max)) per chunk, merged as `l2`;
// rmsnorm the sum of x^2; layernorm the fp64 sums of d = x - x0 and d^2 around the row's first
// value x0, as variant f64stats (layernorm.glsl), one exchange round (needs shaderFloat64).
//
// The including shader defines ROW_PARAMS (as rowop.glsl) and ONCHIP_OP: 0 softmax, 1 rmsnorm,
// 2 layernorm (with STATS_F64 1).
#extension GL_KHR_memory_scope_semantics : require
#extension GL_KHR_shader_subgroup_shuffle : require
#if OC_TAGGED
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require
#endif
#define ROW_PUSH_EXTRA                                                                          \
    uint chunks;     /* chunks per row (CHUNK values each)                                */   \
    uint spin;       /* polls of arrive[row] before an owner hands its chunk to the completer */ \
    uint poll_state; /* test: poll the own state word instead (XPB_VULKAN_ROW_ONCHIP_POLL)  */   \
    uint epoch;      /* OC_TAGGED: this launch's tag on the partials' words (1, 2, ...)      */
#include "rowop.glsl"

#if ONCHIP_OP == 2
#define OC_PART dvec2
#else
#define OC_PART vec2
#endif
// Partial statistics of each chunk (row * chunks + ch): softmax (max, sum of exp(x - max)),
// rmsnorm (sum of x^2, -), layernorm (sum of d, sum of d^2) in fp64.
#if OC_TAGGED
// ... as its 32-bit words (softmax 2, rmsnorm 1, layernorm 4), each in a 64-bit slot
// (epoch << 32 | word), slot[words * t + j] (oc_publish, oc_read).
layout(std430, set = 0, binding = ROW_OUT_BINDING + 1) coherent buffer Part { uint64_t slot[]; };
#else
layout(std430, set = 0, binding = ROW_OUT_BINDING + 1) coherent buffer Part { OC_PART part[]; };
#endif
// arrive[row] = flags[row], state[t] = flags[rows + t].
layout(std430, set = 0, binding = ROW_OUT_BINDING + 2) coherent buffer Flags { uint flags[]; };

const uint OC_HANDED = 0u;    // an owner that gave its chunk to the completer: writes nothing
const uint OC_OWNER = 1u;     // writes its own chunk
const uint OC_COMPLETER = 2u; // writes its own chunk and every chunk handed to it

shared uint oc_word;            // invocation 0's result, for the whole workgroup
shared uint oc_handed[BLOCK];   // completer: chunk cb + i was handed over

// A workgroup barrier that also orders buffer memory (what invocation 0 acquired, all see).
void oc_sync()
{
    const int storage = gl_StorageSemanticsBuffer | gl_StorageSemanticsShared;
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, storage, gl_SemanticsAcquireRelease);
}

// Invocation 0's v, in every invocation (uniform control flow).
uint oc_broadcast(uint v)
{
    if (gl_LocalInvocationID.x == 0u)
        oc_word = v;
    oc_sync();
    uint r = oc_word;
    oc_sync(); // oc_word is free again
    return r;
}

// The flag atomics' semantics: acquire / release where the partials pass through them (untagged),
// relaxed where the tagged slots carry the partials themselves.
#if OC_TAGGED
const int OC_STORAGE = 0;
const int OC_ACQ = gl_SemanticsRelaxed;
const int OC_ACQ_REL = gl_SemanticsRelaxed;
#else
const int OC_STORAGE = gl_StorageSemanticsBuffer;
const int OC_ACQ = gl_SemanticsAcquire;
const int OC_ACQ_REL = gl_SemanticsAcquireRelease;
#endif

// ---- the tagged partials: publish, read ----------------------------------------------------------
// (No arrays and no module-scope variables here: a first form with a word array and the held
// partial at module scope ran softmax 17% and layernorm 9% slower than the release form on the
// H200; this one runs all three faster. The driver still reports 20 KiB of shared memory for
// softmax's tagged pipeline, 2 KiB untagged: results/h200/2026-11-29-s25-vk-tagged.txt.)
#if OC_TAGGED
uint64_t oc_load(uint s) { return atomicLoad(slot[s], gl_ScopeDevice, 0, gl_SemanticsRelaxed); }
void oc_store(uint s, uint w)
{
    atomicStore(slot[s], (uint64_t(pc.epoch) << 32) | uint64_t(w), gl_ScopeDevice, 0, gl_SemanticsRelaxed);
}
// The word of slot value v; tagged stays true only while every word has this launch's epoch.
uint oc_word_of(uint64_t v, inout bool tagged)
{
    tagged = tagged && uint(v >> 32) == pc.epoch;
    return uint(v);
}

// oc_publish: partial p of task t into its slots (invocation 0). oc_read: partial t's words, one
// relaxed atomic load each, all issued before any is used; true when every one has this epoch.
#if ONCHIP_OP == 2
void oc_publish(uint t, dvec2 p)
{
    uvec2 a = unpackDouble2x32(p.x), b = unpackDouble2x32(p.y);
    oc_store(4u * t, a.x);
    oc_store(4u * t + 1u, a.y);
    oc_store(4u * t + 2u, b.x);
    oc_store(4u * t + 3u, b.y);
}
bool oc_read(uint t, out dvec2 p)
{
    uint64_t v0 = oc_load(4u * t), v1 = oc_load(4u * t + 1u), v2 = oc_load(4u * t + 2u), v3 = oc_load(4u * t + 3u);
    bool tagged = true;
    uvec2 a = uvec2(oc_word_of(v0, tagged), oc_word_of(v1, tagged));
    uvec2 b = uvec2(oc_word_of(v2, tagged), oc_word_of(v3, tagged));
    p = dvec2(packDouble2x32(a), packDouble2x32(b));
    return tagged;
}
#elif ONCHIP_OP == 0
void oc_publish(uint t, vec2 p)
{
    oc_store(2u * t, floatBitsToUint(p.x));
    oc_store(2u * t + 1u, floatBitsToUint(p.y));
}
bool oc_read(uint t, out vec2 p)
{
    uint64_t v0 = oc_load(2u * t), v1 = oc_load(2u * t + 1u);
    bool tagged = true;
    p = vec2(uintBitsToFloat(oc_word_of(v0, tagged)), uintBitsToFloat(oc_word_of(v1, tagged)));
    return tagged;
}
#else
void oc_publish(uint t, vec2 p) { oc_store(t, floatBitsToUint(p.x)); }
bool oc_read(uint t, out vec2 p)
{
    bool tagged = true;
    p = vec2(uintBitsToFloat(oc_word_of(oc_load(t), tagged)), 0.0);
    return tagged;
}
#endif

// The tagged merge (oc_total_tagged, per op below): every invocation reads its partials of the
// row at pbase (lid, lid + BLOCK, ...) with relaxed atomic loads and counts those whose words do
// not all carry this launch's epoch yet; that count rides in the same workgroup reduction as the
// merge, and the whole workgroup reads and merges again while it is not 0 (uniform control flow:
// lavapipe loses the invocations of a loop over an atomic only part of the workgroup runs). A
// pass whose count is 0 read every partial of this launch, so its merge is the row's, in the
// same order and with the same bits as the untagged oc_total (one reduction, where a count
// first, then the merge, took two or three). Every partial was stored before its chunk's add,
// and every add has happened (the caller saw arrive[row] reach chunks, or is the completer, or
// lost its swap to it), so the loop ends.
// Rmsnorm and layernorm read and reduce in the first subgroup alone (lane j: partials j, j +
// subgroup size, ...; WG_REDUCE_FIRST broadcasts its sum): the same bits as oc_total where the
// row's chunks fit in a subgroup (32 of 8192 values at 262144 columns on NVIDIA), and on the
// H200 at 1024 x 262144 rmsnorm 0.5% and layernorm 0.75% faster than the whole workgroup's
// reduction, every process (results/h200/2026-11-29-s31-vk-merge-ab.txt). A merge pass costs
// layernorm 33 us there and rmsnorm 14 (the same file: a forced second pass).

// Partial i of the row at pbase, in the invocation that had read it in a pass that saw every
// partial (i = lid + k * BLOCK):
// `held` for the first, one past the first BLOCK read again: a later atomic read of a word by the
// invocation that read this launch's value cannot return an older one (read-read coherence).
OC_PART oc_part(uint pbase, uint i, OC_PART held)
{
    if (i < BLOCK)
        return held;
    OC_PART p;
    oc_read(pbase + i, p);
    return p;
}
#define ROW_PART(pbase, i, held) oc_part(pbase, i, held)
#else
#define ROW_PART(pbase, i, held) part[(pbase) + (i)]
#endif

// ---- the three ops: fill value, partial of the chunk in rv, merge, statistics, write --------

#if ONCHIP_OP == 0 // softmax

float g_m, g_inv; // the row's max and 1 / sum of exp(x - max)

void oc_row_begin(uint base) {}
float oc_fill() { return -XPB_FLT_MAX; }

#include "row_parts.glsl"

#ifndef OC_ONCE
#define OC_ONCE 0
#endif

// OC_ONCE (softmax_onchip*_once.comp, XPB_VULKAN_ROW_ONCHIP_EXPS=once): one exp a value. The
// partial leaves e = exp(x - m_c) in rv (m_c: the chunk's max) and the write stores e * g_f, with
// g_f = exp(m_c - max) / sum computed in fp64 and rounded once (docs/validation.md: e's error,
// then half an ulp for g_f and half for the product, inside the bound of exp(x - max) * (1 / sum)).
// A chunk handed over to the completer is read again and written from x (oc_write_x).
#if OC_ONCE
float g_mc, g_f;

// e^a in fp64 for a <= 0: a = k ln2 + r, |r| <= ln2 / 2, Taylor to r^13 (relative error under
// 1e-16), times 2^k built from its exponent bits; 0 below -708 (then g_f is far under FLT_MIN).
double oc_exp64(double a)
{
    if (!(a >= -708.0LF))
        return 0.0LF;
    double k = round(a * 1.4426950408889634LF);
    double r = (a - k * 0.6931471803691238LF) - k * 1.9082149292705877e-10LF;
    double p = 1.0LF / 6227020800.0LF; // 1 / 13!
    const double inv_fact[13] = double[](1.0LF / 479001600.0LF, 1.0LF / 39916800.0LF, 1.0LF / 3628800.0LF,
                                         1.0LF / 362880.0LF, 1.0LF / 40320.0LF, 1.0LF / 5040.0LF,
                                         1.0LF / 720.0LF, 1.0LF / 120.0LF, 1.0LF / 24.0LF, 1.0LF / 6.0LF,
                                         0.5LF, 1.0LF, 1.0LF);
    [[unroll]] for (int i = 0; i < 13; i++)
        p = p * r + inv_fact[i];
    return p * packDouble2x32(uvec2(0u, uint(int(k) + 1023) << 20));
}
#endif

vec2 oc_partial(uint c0)
{
#if OC_ONCE
    vec2 p = row_softmax_partial(c0, true);
    g_mc = max(p.x, -XPB_FLT_MAX); // (a chunk of -inf only: its exps are 0, so is its factor's use)
    return p;
#else
    return row_softmax_partial(c0, false);
#endif
}

// The row's max, then its sum (row_parts.glsl).
vec2 oc_total(uint pbase, vec2 held) { return row_softmax_total(pbase, held); }

#if OC_TAGGED
WG_REDUCE(wg_max2, vec2, subgroupMax, max, vec2(-XPB_FLT_MAX, 0.0))

// The row's max with the count of partials not yet seen (any: its max over the workgroup is 1),
// then its sum from the partials that pass read (row_parts.glsl).
vec2 oc_total_tagged(uint pbase)
{
    vec2 held = vec2(0.0), r;
    do {
        vec2 mu = vec2(-XPB_FLT_MAX, 0.0);
        for (uint ib = 0u; ib < pc.chunks; ib += BLOCK) {
            uint i = ib + gl_LocalInvocationID.x;
            if (i < pc.chunks) {
                vec2 q;
                bool seen = oc_read(pbase + i, q);
                if (ib == 0u)
                    held = q;
                mu = vec2(max(mu.x, q.x), seen ? mu.y : 1.0);
            }
        }
        r = wg_max2(mu);
    } while (r.y != 0.0);
    return vec2(r.x, row_softmax_sum(pbase, held, r.x));
}
#endif

void oc_stats(vec2 t)
{
    g_m = t.x;
    g_inv = 1.0 / t.y;
#if OC_ONCE
    g_f = float(oc_exp64(double(g_mc) - double(g_m)) / double(t.y));
#endif
}

// The write from the values in rv (a chunk read again by the completer, or every chunk but
// OC_ONCE's own).
void oc_write_x(uint base, uint c0)
{
    [[unroll]] for (uint k = 0; k < VPT; k++)
        row_store(base, c0, k, row_exp_neg(rv[k] - g_m) * g_inv);
}

void oc_write(uint base, uint c0)
{
#if OC_ONCE
    [[unroll]] for (uint k = 0; k < VPT; k++)
        row_store(base, c0, k, rv[k] * g_f);
#else
    oc_write_x(base, c0);
#endif
}

#elif ONCHIP_OP == 1 // rmsnorm

float g_r; // 1 / sqrt(mean(x^2) + eps)

void oc_row_begin(uint base) {}
float oc_fill() { return 0.0; }

vec2 oc_partial(uint c0)
{
    vec4 acc = vec4(0.0);
    [[unroll]] for (uint k = 0; k < VPT; k++)
        acc += rv[k] * rv[k];
    return vec2(wg_sum(hsum(acc)), 0.0);
}

vec2 oc_total(uint pbase, vec2 held)
{
    float s = 0.0;
    for (uint ib = 0u; ib < pc.chunks; ib += BLOCK) { // as row_parts.glsl: the same trips in all
        uint i = ib + gl_LocalInvocationID.x;
        if (i < pc.chunks)
            s += ROW_PART(pbase, i, held).x;
    }
    return vec2(wg_sum(s), 0.0);
}

#if OC_TAGGED // oc_total_tagged's sums: the sum of squares, then the count of partials not seen
#define OC_SUMS vec2
WG_REDUCE_FIRST(oc_sums_reduce, vec2, subgroupAdd)
vec2 oc_sums_of(vec2 q, bool seen) { return vec2(q.x, seen ? 0.0 : 1.0); }
vec2 oc_sums_part(vec2 r) { return vec2(r.x, 0.0); }
#endif

void oc_stats(vec2 t) { g_r = inversesqrt(t.x / float(pc.cols) + pc.eps); }

void oc_write(uint base, uint c0)
{
    [[unroll]] for (uint k = 0; k < VPT; k++)
        row_store(base, c0, k, rv[k] * g_r * row_w(c0, k));
}

#else // layernorm, fp64 statistics around the row's first value (layernorm.glsl, STATS_F64 1)

float g_x0, g_mean, g_r;
double g_inv_n; // 1 / cols at the row's start: no fp64 divide between the merge and the write
                // (H200, 1024 x 262144: 1.0% faster; results/h200/2026-11-29-s31-vk-merge-ab.txt)

// A subgroup's sum of a double vector by an XOR butterfly of shuffles: every lane ends with the
// same bits (each step adds a pair in both lanes, and a + b == b + a). The driver's subgroupAdd
// of one guards every step for inactive lanes; this form made layernorm 0.3 - 0.4% faster at
// 1024 x 262144 on the H200 (results/h200/2026-11-29-s31-vk-ln-bfly-ab.txt). Needs subgroup
// shuffles (oc_supports).
#define SG_SUM_BFLY(T)                                                                           \
    T sg_sum_bfly(T v)                                                                           \
    {                                                                                            \
        for (uint m = gl_SubgroupSize >> 1; m > 0u; m >>= 1)                                     \
            v += subgroupShuffleXor(v, m);                                                       \
        return v;                                                                                \
    }
SG_SUM_BFLY(dvec2)
SG_SUM_BFLY(dvec3)

// Both sums in one reduction.
WG_REDUCE(wg_sum64x2, dvec2, sg_sum_bfly, WG_ADD, dvec2(0.0))

void oc_row_begin(uint base)
{
    g_x0 = xs[base];
    g_inv_n = 1.0LF / double(pc.cols);
}
float oc_fill() { return g_x0; } // past the row's end: d = 0

dvec2 oc_partial(uint c0)
{
    double s1 = 0.0, s2 = 0.0;
    [[unroll]] for (uint k = 0; k < VPT; k++) {
        dvec4 d = dvec4(rv[k]) - double(g_x0);
        s1 += (d.x + d.y) + (d.z + d.w);
        s2 += dot(d, d);
    }
    return wg_sum64x2(dvec2(s1, s2));
}

dvec2 oc_total(uint pbase, dvec2 held)
{
    dvec2 s = dvec2(0.0);
    for (uint ib = 0u; ib < pc.chunks; ib += BLOCK) {
        uint i = ib + gl_LocalInvocationID.x;
        if (i < pc.chunks)
            s += ROW_PART(pbase, i, held);
    }
    return wg_sum64x2(s);
}

#if OC_TAGGED // oc_total_tagged's sums: both sums, then the count of partials not seen
#define OC_SUMS dvec3
WG_REDUCE_FIRST(oc_sums_reduce, dvec3, sg_sum_bfly)
dvec3 oc_sums_of(dvec2 q, bool seen) { return dvec3(q, seen ? 0.0 : 1.0); }
dvec2 oc_sums_part(dvec3 r) { return r.xy; }
#endif

void oc_stats(dvec2 t)
{
    double c1 = t.x * g_inv_n;
    double var = t.y * g_inv_n - c1 * c1;
    g_mean = float(double(g_x0) + c1);
    g_r = float(inversesqrt(var + double(pc.eps)));
}

void oc_write(uint base, uint c0)
{
    [[unroll]] for (uint k = 0; k < VPT; k++)
        row_store(base, c0, k, (rv[k] - g_mean) * g_r * row_w(c0, k) + row_b(c0, k));
}
#endif

#if ONCHIP_OP != 0
void oc_write_x(uint base, uint c0) { oc_write(base, c0); } // rv holds the values in every form

#if OC_TAGGED
// rmsnorm and layernorm: the row's sums (oc_total's, in its order) with the count of partials
// not yet seen as the last component of one reduction.
OC_PART oc_total_tagged(uint pbase)
{
    OC_SUMS r;
    do {
        OC_SUMS su = OC_SUMS(0.0);
        for (uint ib = 0u; ib < pc.chunks; ib += gl_SubgroupSize) { // the first subgroup reads them all
            uint i = ib + gl_SubgroupInvocationID;
            if (gl_SubgroupID == 0u && i < pc.chunks) {
                OC_PART q;
                bool seen = oc_read(pbase + i, q);
                su += oc_sums_of(q, seen);
            }
        }
        r = oc_sums_reduce(su);
    } while (r[r.length() - 1] != 0.0);
    return oc_sums_part(r);
}
#endif
#endif

// ---- the exchange ------------------------------------------------------------------------------
// Invocation 0 does every flag atomic; the whole workgroup runs the loops around them, in uniform
// control flow, the results broadcast through shared memory. (Lavapipe, Mesa 22.3, loses the
// invocations of a loop over an atomic that only part of the workgroup runs.)

// Publish partial p of task t = row * chunks + ch and arrive. The last to arrive is the row's
// completer (the owners see its add). Returns OC_COMPLETER or OC_OWNER.
uint oc_arrive(uint row, uint t, OC_PART p)
{
    uint before = 0u;
    if (gl_LocalInvocationID.x == 0u) {
#if OC_TAGGED
        oc_publish(t, p);
#else
        part[t] = p;
#endif
        before = atomicAdd(flags[row], 1u, gl_ScopeDevice, OC_STORAGE, OC_ACQ_REL);
    }
    return oc_broadcast(before) == pc.chunks - 1u ? OC_COMPLETER : OC_OWNER;
}

// An owner: poll arrive[row] up to pc.spin times until it reads chunks; then bid for the own chunk
// t. Returns OC_OWNER (every chunk seen arrived, or the completer already claimed the chunk) or
// OC_HANDED.
// pc.poll_state (a test) polls state[t] instead: nonzero only once the completer claimed the
// chunk, so an owner that runs beside its completer leaves the loop then and takes the path of
// the failed swap (2), which timing alone reaches only rarely.
uint oc_wait(uint row, uint t)
{
    uint word = pc.poll_state != 0u ? pc.rows + t : row;
    uint done = 0u;
    for (uint i = 0u; i < pc.spin && done == 0u; i++) {
        uint d = 0u;
        if (gl_LocalInvocationID.x == 0u) {
            d = atomicLoad(flags[word], gl_ScopeDevice, OC_STORAGE, OC_ACQ);
            if (pc.poll_state == 0u)
                d = d == pc.chunks ? 1u : 0u;
        }
        done = oc_broadcast(d);
    }
    if (done != 0u && pc.poll_state == 0u) // (state polled: bid anyway, the swap finds the 2)
        return OC_OWNER;
    uint s = 0u;
    if (gl_LocalInvocationID.x == 0u)
        s = atomicCompSwap(flags[pc.rows + t], 0u, 1u, gl_ScopeDevice, OC_STORAGE, OC_ACQ_REL,
                           OC_STORAGE, OC_ACQ);
    return oc_broadcast(s) == 0u ? OC_HANDED : OC_OWNER; // 2: the completer passed: all arrived
}

// The completer, after its own chunk: claims every other chunk of the row (0 -> 2: its owner
// writes it), BLOCK chunks at a time, one per invocation; a chunk whose owner handed it over
// (1) it reads again and writes. rv and the statistics are the row's (oc_stats ran).
void oc_complete(uint row, uint ch, uint base)
{
    uint t0 = pc.rows + row * pc.chunks;
    for (uint cb = 0u; cb < pc.chunks; cb += BLOCK) {
        uint c = cb + gl_LocalInvocationID.x;
        uint handed = 0u;
        if (c < pc.chunks && c != ch)
            handed = atomicCompSwap(flags[t0 + c], 0u, 2u, gl_ScopeDevice, OC_STORAGE, OC_ACQ_REL,
                                    OC_STORAGE, OC_ACQ) == 1u ? 1u : 0u;
        oc_handed[gl_LocalInvocationID.x] = handed;
        oc_sync();
        uint n = min(BLOCK, pc.chunks - cb);
        for (uint j = 0u; j < n; j++) {
            if (oc_handed[j] != 0u) { // uniform: every invocation reads the same slot
                uint cj = (cb + j) * CHUNK;
                row_load(base, cj, oc_fill());
                oc_write_x(base, cj);
            }
        }
        oc_sync(); // oc_handed is free again
    }
}

// Task (row, ch): one read of the chunk, the exchange, at most one write of it (plus the handed
// chunks, for the completer).
void oc_task(uint row, uint ch)
{
    uint base = row * pc.cols, c0 = ch * CHUNK;
    oc_row_begin(base);
    row_load(base, c0, oc_fill());
    OC_PART p = oc_partial(c0);
    uint role = OC_OWNER;
    if (pc.chunks > 1u) {
        uint t = row * pc.chunks + ch;
        role = oc_arrive(row, t, p);
        if (role == OC_OWNER)
            role = oc_wait(row, t);
        if (role == OC_HANDED)
            return;
#if OC_TAGGED
        p = oc_total_tagged(row * pc.chunks); // the one call site of the merge: identical bits per row
#else
        p = oc_total(row * pc.chunks, OC_PART(0.0)); // (the same)
#endif
    }
    oc_stats(p);
    oc_write(base, c0);
    if (role == OC_COMPLETER)
        oc_complete(row, ch, base);
}

void main()
{
    // t is uniform in the workgroup, so the reductions' barriers are in uniform control flow.
    uint tasks = pc.rows * pc.chunks;
    for (uint t = gl_WorkGroupID.x; t < tasks; t += gl_NumWorkGroups.x) {
        uint row = t / pc.chunks;
        oc_task(row, t - row * pc.chunks);
    }
}
