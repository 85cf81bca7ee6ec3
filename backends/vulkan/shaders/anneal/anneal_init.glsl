// anneal_init.glsl - one step of the farthest-point init (anneal_init.c records m of them in one
// launch, no host round trip): dispatch s picks chosen[s] and, unless s = m - 1, folds that
// point's distances into mind and leaves the next choice's candidates.
//
// Scratch (uint words): mind[i] (fp32 bits) at [0, n); per-workgroup candidates, double-buffered
// by the parity of the step: max mind bits at n + buf*G + g, its lowest index at n + 2G + buf*G + g;
// owner[i] (the anchor mind[i] is the distance to) at n + 4G + i; thr[a] (fp32) at 2n + 4G + a.
//
// The bound (pc.bound, XPB_VULKAN_INIT_BOUND): a point whose minimum is its distance to anchor
// a cannot come nearer to the new anchor p when |a - p| >= 2 |x - a|, so min(mind, dist) would
// keep mind and its row need not be read. BOUNDS (anneal_init_bounds.comp) builds this file as
// the dispatch before step s (1 <= s < m - 1): thr[a] for every anchor a < s, the largest mind
// for which that holds with every rounding of the fp32 distances bounded (relative g = (d + 8)
// 2^-23 each, twice (d + 4) u; an absolute eta = (d + 8) 2^-125 for underflow, denormals flushed
// or not): with D' = |a - p|^2 summed in fp32, |a - p|^2 >= (D' - eta) / (1 + g), and mind +
// eta <= (1 - g) |a - p|^2 / 4 makes fl(|x - p|^2) >= mind. thr = c (D' - 2 eta) - 2 eta with
// c = (1 - g) / (4 (1 + g)) less 16 u (anneal_init.c), so the shader's own roundings stay inside;
// a NaN or infinite D', or thr <= 0, gives -1: nothing skips. Step s then reads a row only when
// mind > thr[owner]; a skipped point keeps mind bit for bit, as the read would have left it.
//
// Step s:
//  1. p = chosen[s]: 0 when s = 0; else every workgroup reduces the G candidates of step s - 1
//     to the one with the largest mind bits (mind >= +0, so the bits order like the values),
//     ties to the lowest index. Max with a lowest-index tie-break is exact and associative, so
//     neither G nor the reduction order changes the choice.
//  2. workgroup 0 writes chosen[s] = p and anchors[s] = x[p] (a bit copy).
//  3. (s < m - 1) x[p] goes to shared memory; L lanes per point sum the direct-form distance
//     sum_k (x_ik - x_pk)^2 (lane l: units l, l + L, ...; the L partials added in lane order);
//     a pass checks K points an invocation against the bound and lists those whose row must be
//     read in shared memory, which the lane groups work through Q points at a time, their loads
//     interleaved (so skipped points cost no distance rounds: docs/performance.md, init),
//     mind[i] = dist (s = 0) or min(mind[i], dist) (odd steps from the last point to the
//     first, for the cache); the workgroup's best (bits, index) goes to
//     candidate slot g of buffer s & 1, which step s + 1 reads (step s + 2 overwrites it after
//     the barrier between dispatches).
// Integer comparisons only: the choice is the same bits on every run.
//
// SUM_SHUFFLE (set by the .comp that includes this): how a point's L lane partials meet. 0
// (anneal_init.comp): through shared memory, two barriers a pass. 1 (anneal_init_shuffle.comp):
// the group's first lane reads the others' partials with subgroup shuffles, no barrier in the
// loop; its lane groups are formed inside subgroups (the host checks that the subgroup size is a
// multiple of L). The partials are added in lane order either way: the same sums bit for bit.
#extension GL_EXT_control_flow_attributes : require
#ifndef BOUNDS
#define BOUNDS 0 // the step (anneal_init.comp, anneal_init_shuffle.comp)
#endif
#if SUM_SHUFFLE
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_shuffle : require
#endif

layout(local_size_x_id = 0) in;                 // B, a power of two
layout(constant_id = 1) const uint L = 8;       // lanes per point (power of two <= B)
layout(constant_id = 2) const bool VEC4 = true; // d % 4 == 0
layout(constant_id = 3) const uint A4 = 1024;   // ceil(d / 4): vec4 slots of the anchor

layout(push_constant) uniform Push {
    uint n, d, m;
    uint step;   // s
    uint groups; // G: workgroups of the distance steps = candidates per step
    uint bound;  // 1: skip the rows the thresholds allow (steps after the first)
    float c, eta; // the threshold's factor and underflow term (above)
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 xs4[]; };
layout(std430, set = 0, binding = 0) readonly buffer Xu { uint xu[]; };
#if BOUNDS
layout(std430, set = 0, binding = 1) readonly buffer An { float anchors[]; };
#else
layout(std430, set = 0, binding = 1) writeonly buffer An { uint anchors[]; }; // copied as bits
#endif
layout(std430, set = 0, binding = 2) writeonly buffer Ch { uint chosen[]; };
layout(std430, set = 0, binding = 3) buffer Sf { float mind[]; };
layout(std430, set = 0, binding = 3) buffer Su { uint su[]; };

const uint B = gl_WorkGroupSize.x;
const uint PTS = B / L; // lane groups of a workgroup
const uint Q = 4u;      // points per lane group and pass
const uint NONE = 0xFFFFFFFFu;

shared vec4 ash[A4];
const uint K = 4u; // points an invocation checks a pass (anneal_init.c counts the list's shared memory)
shared uint live[B * K];
shared uint live_count;
#if !SUM_SHUFFLE
shared float red[Q * B];
#endif
shared uint rb[B], ri[B];

// (b1, i1) beats (b2, i2): larger distance bits, then lower index.
bool better(uint b1, uint i1, uint b2, uint i2)
{
    return b1 > b2 || (b1 == b2 && i1 < i2);
}

// Reduces (rb, ri)[0..B) into slot 0 in two levels (F entries each, then B / F); every
// invocation calls it.
const uint F = 16u;
void reduce_best()
{
    const uint tid = gl_LocalInvocationIndex;
    barrier();
    if (tid < B / F) {
        uint b = rb[tid * F], i = ri[tid * F];
        for (uint e = 1u; e < F; e++)
            if (better(rb[tid * F + e], ri[tid * F + e], b, i)) {
                b = rb[tid * F + e];
                i = ri[tid * F + e];
            }
        rb[tid * F] = b;
        ri[tid * F] = i;
    }
    barrier();
    if (tid == 0u) {
        for (uint e = 1u; e < B / F; e++)
            if (better(rb[e * F], ri[e * F], rb[0], ri[0])) {
                rb[0] = rb[e * F];
                ri[0] = ri[e * F];
            }
    }
    barrier();
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint G = pc.groups;

    // 1. this step's point
    uint p = 0u;
    if (pc.step > 0u) {
        uint buf = (pc.step - 1u) & 1u;
        uint bb = 0u, bi = NONE;
        for (uint g = tid; g < G; g += B) {
            uint b = su[pc.n + buf * G + g], i = su[pc.n + 2u * G + buf * G + g];
            if (better(b, i, bb, bi)) {
                bb = b;
                bi = i;
            }
        }
        rb[tid] = bb;
        ri[tid] = bi;
        reduce_best();
        p = min(ri[0], pc.n - 1u); // ri[0] < n always; the min only keeps reads in bounds
        barrier();                 // rb, ri are written again below
    }

    const uint owner_at = pc.n + 4u * G, thr_at = 2u * pc.n + 4u * G;
#if BOUNDS
    // the thresholds of anchors 0 .. s-1 for step s, one invocation an anchor
    for (uint a = gl_GlobalInvocationID.x; a < pc.step; a += gl_NumWorkGroups.x * B) {
        float t = 0.0;
        for (uint k = 0u; k < pc.d; k++) {
            float u = anchors[a * pc.d + k] - xs[p * pc.d + k];
            t += u * u;
        }
        float b = pc.c * (t - 2.0 * pc.eta) - 2.0 * pc.eta;
        mind[thr_at + a] = isnan(t) || isinf(t) || !(b > 0.0) ? -1.0 : b;
    }
    return;
#else
    // 2. the choice and its anchor
    if (gl_WorkGroupID.x == 0u) {
        if (tid == 0u)
            chosen[pc.step] = p;
        for (uint k = tid; k < pc.d; k += B)
            anchors[pc.step * pc.d + k] = xu[p * pc.d + k];
    }
    if (pc.step + 1u >= pc.m)
        return; // the last step only chooses

    // 3. distances to x[p]
    for (uint u = tid; u < A4; u += B) {
        if (VEC4) {
            ash[u] = xs4[p * (pc.d / 4u) + u];
        } else {
            vec4 v;
            [[unroll]] for (uint c = 0u; c < 4u; c++) {
                uint k = 4u * u + c;
                v[c] = k < pc.d ? xs[p * pc.d + k] : 0.0;
            }
            ash[u] = v;
        }
    }
    barrier();

#if SUM_SHUFFLE
    // lane groups inside each subgroup: L divides the subgroup size (anneal_init.c)
    const uint lane = gl_SubgroupInvocationID % L;
    const uint g = gl_SubgroupID * (gl_SubgroupSize / L) + gl_SubgroupInvocationID / L;
#else
    const uint g = tid / L, lane = tid % L;
#endif
    // Odd steps walk the points from the last to the first (slot j is point n - 1 - j), so a
    // step starts on the rows the one before ended on, still in the cache. Each point's
    // distance is its own and the best (bits, index) is order-free: the choice is unchanged.
    const bool backward = (pc.step & 1u) != 0u;
    const bool bounded = pc.bound != 0u && pc.step > 0u;
    uint bb = 0u, bi = NONE;
    // A pass checks K points an invocation (B K of the workgroup's points): a point whose row the
    // bound lets it skip folds its minimum into the best at once; the others go to a list in
    // shared memory (in any order: each point's work is its own and the best is order-free),
    // which the lane groups then work through, Q points a group at a time, so the rows read are
    // those of live points only and a pass of skipped points costs no distance rounds.
    for (uint base = gl_WorkGroupID.x * B * K; base < pc.n; base += gl_NumWorkGroups.x * B * K) {
        if (tid == 0u)
            live_count = 0u;
        barrier();
        [[unroll]] for (uint kk = 0u; kk < K; kk++) {
            uint j = base + kk * B + tid;
            if (j < pc.n) {
                uint i = backward ? pc.n - 1u - j : j;
                float o = pc.step > 0u ? mind[i] : 0.0;
                if (bounded && o <= mind[thr_at + su[owner_at + i]]) {
                    uint b = floatBitsToUint(o);
                    if (better(b, i, bb, bi)) {
                        bb = b;
                        bi = i;
                    }
                } else {
                    live[atomicAdd(live_count, 1u)] = i;
                }
            }
        }
        barrier();
        const uint cnt = live_count;
        for (uint c0 = 0u; c0 < cnt; c0 += PTS * Q) { // the same trips on every invocation
            uint row[Q];
            float old[Q]; // the point's minimum before this step (step > 0)
            bool on[Q];   // a listed point (a slot past the list reads the first one's row, unused)
            [[unroll]] for (uint q = 0u; q < Q; q++) {
                uint idx = c0 + q * PTS + g;
                on[q] = idx < cnt;
                row[q] = live[on[q] ? idx : 0u];
                old[q] = pc.step > 0u ? mind[row[q]] : 0.0;
            }
            float part[Q]; // this lane's partial sum of each point
            if (VEC4) {
                const uint units = pc.d / 4u;
                vec4 acc[Q];
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    acc[q] = vec4(0.0);
                for (uint u = lane; u < units; u += L) {
                    vec4 a = ash[u];
                    [[unroll]] for (uint q = 0u; q < Q; q++)
                        if (on[q]) {
                            vec4 t = xs4[row[q] * units + u] - a;
                            acc[q] += t * t;
                        }
                }
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    part[q] = (acc[q].x + acc[q].y) + (acc[q].z + acc[q].w);
            } else {
                float acc[Q];
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    acc[q] = 0.0;
                for (uint k = lane; k < pc.d; k += L) {
                    float a = ash[k >> 2][k & 3u];
                    [[unroll]] for (uint q = 0u; q < Q; q++)
                        if (on[q]) {
                            float t = xs[row[q] * pc.d + k] - a;
                            acc[q] += t * t;
                        }
                }
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    part[q] = acc[q];
            }
            // each point's distance: its L partials added in lane order, in the group's first lane
            float dist[Q];
#if SUM_SHUFFLE
            [[unroll]] for (uint q = 0u; q < Q; q++) {
                dist[q] = part[q];
                [[unroll]] for (uint l = 1u; l < L; l++) // every invocation takes part; lane 0 keeps it
                    dist[q] += subgroupShuffle(part[q], gl_SubgroupInvocationID - lane + l);
            }
#else
            [[unroll]] for (uint q = 0u; q < Q; q++)
                red[q * B + tid] = part[q];
            barrier();
            if (lane == 0u)
                [[unroll]] for (uint q = 0u; q < Q; q++) {
                    dist[q] = red[q * B + tid];
                    [[unroll]] for (uint l = 1u; l < L; l++)
                        dist[q] += red[q * B + tid + l];
                }
#endif
            if (lane == 0u) {
                [[unroll]] for (uint q = 0u; q < Q; q++) {
                    if (on[q]) {
                        uint i = row[q];
                        float md = pc.step == 0u ? dist[q] : min(old[q], dist[q]);
                        mind[i] = md;
                        if (pc.step == 0u || floatBitsToUint(md) != floatBitsToUint(old[q]))
                            su[owner_at + i] = pc.step;
                        uint b = floatBitsToUint(md);
                        if (better(b, i, bb, bi)) {
                            bb = b;
                            bi = i;
                        }
                    }
                }
            }
#if !SUM_SHUFFLE
            barrier(); // red is free again
#endif
        }
        barrier(); // live and live_count are written again by the next pass
    }

    rb[tid] = bb;
    ri[tid] = bi;
    reduce_best();
    if (tid == 0u) {
        uint buf = pc.step & 1u;
        su[pc.n + buf * G + gl_WorkGroupID.x] = rb[0];
        su[pc.n + 2u * G + buf * G + gl_WorkGroupID.x] = ri[0];
    }
#endif
}
