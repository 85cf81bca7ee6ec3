#version 450
// burst_propagate.comp - burst propagation, step 1 (burst_propagate.c launches it; xpb_ops.h):
// input[targets[e]] += (inhibitory[s] ? -1 : 1) * weight[e] * psp[e] for every synapse e of every
// source s in the fired list of burst b - 1, as int32 atomics (any order gives the same sums).
//
// Dispatched indirectly from counters[b].dispatch, or as a fixed grid of any size
// (XPB_VULKAN_BURST_PROPAGATE_GROUPS): group g takes the events [c * 1024, (c + 1) * 1024) for
// c = g, g + groups, ... over [0, counters[b].events), read here. Event j belongs to the
// source k with degree_scan[k] <= j < degree_scan[k + 1]: the workgroup finds the sources of a
// chunk's first and last events together, each round testing as many evenly spaced points of
// the interval left as it has invocations (2 rounds for 10^4 fired); the sources between
// (at most 1024 unless rows are empty) go to shared memory with their row start minus their
// scan value and their sign, and each event searches that window. A window too large (many
// empty rows) is searched in global memory instead. Invocations take consecutive events, so a
// row's synapses are read coalesced, and a hub row is spread over many workgroups. weight, psp
// and inhibitory are uint8 arrays read as packed uint words.

#include "burst.glsl"

layout(local_size_x_id = 0) in; // a power of two <= 256: 1024 / size events per invocation

layout(std430, set = 0, binding = 0) readonly buffer Counters { uint counters[]; };
layout(std430, set = 0, binding = 1) readonly buffer Scan { uint degree_scan[]; };
layout(std430, set = 0, binding = 2) readonly buffer Fired { uint fired[]; };
layout(std430, set = 0, binding = 3) readonly buffer Offsets { uint offsets[]; };
layout(std430, set = 0, binding = 4) readonly buffer Targets { uint targets[]; };
layout(std430, set = 0, binding = 5) readonly buffer Weight { uint weight[]; };
layout(std430, set = 0, binding = 6) readonly buffer Psp { uint psp[]; };
layout(std430, set = 0, binding = 7) readonly buffer Inhibitory { uint inhibitory[]; };
layout(std430, set = 0, binding = 8) buffer Input { int input_[]; };

const uint CHUNK = 1024u; // XPB_BURST_EVENTS_PER_GROUP
const uint WIN = 1024u;   // window of sources in shared memory

shared uint s_lo[2], s_hi[2], s_below[2];
shared uint s_scan[WIN]; // degree_scan[first + w]
shared uint s_base[WIN]; // offsets[fired[first + w]] - degree_scan[first + w] (mod 2^32)
shared uint s_neg[WIN];  // inhibitory[fired[first + w]]

uint byte_at(uint word, uint i)
{
    return (word >> ((i & 3u) * 8u)) & 0xffu;
}

// The largest k in [lo, hi] with degree_scan[k] <= j (degree_scan[lo] <= j).
uint search_global(uint lo, uint hi, uint j)
{
    while (lo < hi) {
        uint mid = hi - (hi - lo) / 2u;
        if (degree_scan[mid] <= j)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}

// s_lo[h] = the largest k < nfired with degree_scan[k] <= j_h, h = 0, 1 (degree_scan[0] = 0 <= j_h),
// by the whole workgroup: each round, invocation t tests the point lo + (t + 1) * step of each
// interval [lo, hi] not yet one point, so the interval shrinks by the workgroup size.
void find_sources(uint nfired, uint j0, uint j1)
{
    const uint t = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    if (t < 2u) {
        s_lo[t] = 0u;
        s_hi[t] = nfired - 1u;
        s_below[t] = 0u;
    }
    barrier();
    for (;;) {
        uvec2 lo = uvec2(s_lo[0], s_lo[1]), hi = uvec2(s_hi[0], s_hi[1]);
        if (lo == hi)
            break; // uniform: every invocation read the same shared words
        // m = (hi - lo) / step < size points lo + step, ..., lo + m * step: written so as not to wrap
        uvec2 step = (hi - lo) / size + 1u, m = (hi - lo) / step;
        if (t < m.x && degree_scan[lo.x + (t + 1u) * step.x] <= j0)
            atomicAdd(s_below[0], 1u);
        if (t < m.y && degree_scan[lo.y + (t + 1u) * step.y] <= j1)
            atomicAdd(s_below[1], 1u);
        barrier();
        if (t < 2u) { // the points at or below j are a prefix (degree_scan ascends)
            uint below = s_below[t];
            s_lo[t] = lo[t] + below * step[t];
            if (below < m[t])
                s_hi[t] = lo[t] + (below + 1u) * step[t] - 1u;
            s_below[t] = 0u;
        }
        barrier();
    }
}

// The largest w in [0, size) with s_scan[w] <= j (s_scan[0] <= j).
uint search_window(uint size, uint j)
{
    uint lo = 0u, hi = size - 1u;
    while (lo < hi) {
        uint mid = hi - (hi - lo) / 2u;
        if (s_scan[mid] <= j)
            lo = mid;
        else
            hi = mid - 1u;
    }
    return lo;
}

void main()
{
    const uint t = gl_LocalInvocationID.x, size = gl_WorkGroupSize.x;
    const uint nfired = counters[pc.burst * 8u], events = counters[pc.burst * 8u + 4u];
    const uint chunks = (events / CHUNK) + (events % CHUNK != 0u ? 1u : 0u);
    for (uint c = gl_WorkGroupID.x; c < chunks; c += gl_NumWorkGroups.x) {
        const uint base = c * CHUNK, last = min(base + (CHUNK - 1u), events - 1u);
        find_sources(nfired, base, last);
        const uint first = s_lo[0], hi = s_lo[1], span = hi - first + 1u;
        const bool windowed = span <= WIN;
        if (windowed)
            for (uint w = t; w < span; w += size) {
                uint k = first + w, s = fired[k], d = degree_scan[k];
                s_scan[w] = d;
                s_base[w] = offsets[s] - d;
                s_neg[w] = byte_at(inhibitory[s >> 2], s);
            }
        barrier();
        for (uint o = t; o < CHUNK && base + o <= last; o += size) {
            uint j = base + o, e, neg;
            if (windowed) {
                uint w = search_window(span, j);
                e = j + s_base[w];
                neg = s_neg[w];
            } else {
                uint k = search_global(first, hi, j), s = fired[k];
                e = offsets[s] + (j - degree_scan[k]);
                neg = byte_at(inhibitory[s >> 2], s);
            }
            int amount = int(byte_at(weight[e >> 2], e) * byte_at(psp[e >> 2], e));
            atomicAdd(input_[targets[e]], neg != 0u ? -amount : amount);
        }
        barrier(); // the window is rewritten for the next chunk
    }
}
