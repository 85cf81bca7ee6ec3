#version 450
// burst_compact_write.comp - compact, pass 2 of 2 (burst_compact.c; layout in
// burst_compact.glsl): a block's carry is the sum of the block sums before it (pass 1, at most
// VKB_BURST_MAX_BLOCKS of them, read by the whole workgroup); then tile by tile, an exclusive
// scan of the invocations' (count, degree) gives each flagged neuron its place: fired[k] = i and
// degree_scan[k] = the degree sum before it, ascending (stable, no atomic append). The last block
// ends with the totals: degree_scan[count] = events and counters[b + 1] = {count, {x, 1, 1},
// events, 0, 0, 0}, x = max(1, min(ceil(events / 1024), 65535)).

#include "burst_compact.glsl"

layout(std430, set = 0, binding = 2) readonly buffer Scratch { uint scratch[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Fired { uint fired[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Scan { uint degree_scan[]; };
layout(std430, set = 0, binding = 5) writeonly buffer Counters { uint counters[]; };

const uint MAX_WG = 256u;
shared uvec2 s_scan[MAX_WG];
shared uint s_count, s_events;

// Exclusive scan of x over the workgroup (Hillis-Steele); total: the sum of all.
uvec2 scan_exclusive(uvec2 x, out uvec2 total)
{
    const uint t = gl_LocalInvocationID.x;
    s_scan[t] = x;
    barrier();
    for (uint off = 1u; off < gl_WorkGroupSize.x; off <<= 1) {
        uvec2 y = t >= off ? s_scan[t - off] : uvec2(0u);
        barrier();
        s_scan[t] += y;
        barrier();
    }
    total = s_scan[gl_WorkGroupSize.x - 1u];
    uvec2 inclusive = s_scan[t];
    barrier(); // s_scan is rewritten by the next call
    return inclusive - x;
}

void write_counters(uint count, uint events)
{
    const uint at = (pc.burst + 1u) * 8u;
    uint groups = events / 1024u + (events % 1024u != 0u ? 1u : 0u);
    counters[at] = count;
    counters[at + 1u] = clamp(groups, 1u, 65535u);
    counters[at + 2u] = 1u;
    counters[at + 3u] = 1u;
    counters[at + 4u] = events;
    counters[at + 5u] = 0u;
    counters[at + 6u] = 0u;
    counters[at + 7u] = 0u;
}

void main()
{
    const uint t = gl_LocalInvocationID.x;
    for (uint blk = gl_WorkGroupID.x; blk < pc.blocks; blk += gl_NumWorkGroups.x) {
        if (t == 0u) {
            s_count = 0u;
            s_events = 0u;
        }
        barrier();
        uvec2 before = uvec2(0u);
        for (uint x = t; x < blk; x += gl_WorkGroupSize.x)
            before += uvec2(scratch[2u * x], scratch[2u * x + 1u]);
        if (before != uvec2(0u)) {
            atomicAdd(s_count, before.x);
            atomicAdd(s_events, before.y);
        }
        barrier();
        uvec2 carry = uvec2(s_count, s_events);
        const uint t0 = blk * pc.per_block, t1 = min(t0 + pc.per_block, pc.tiles);
        for (uint tile = t0; tile < t1; tile++) {
            uint i0 = tile_first(tile);
            uvec4 f = tile_flags(i0), d = tile_degrees(i0, f);
            uvec2 total, at = carry + scan_exclusive(tile_sums(f, d), total);
            for (uint q = 0u; q < 4u; q++)
                if (f[q] != 0u) {
                    fired[at.x] = i0 + q;
                    degree_scan[at.x] = at.y;
                    at += uvec2(1u, d[q]);
                }
            carry += total;
        }
        if (blk == pc.blocks - 1u && t == 0u) {
            degree_scan[carry.x] = carry.y;
            write_counters(carry.x, carry.y);
        }
        barrier(); // before the next block resets the carry
    }
}
