#version 450
// burst_compact_sums.comp - compact, pass 1 of 2 (burst_compact.c; layout in burst_compact.glsl):
// each block's fired count and degree sum into scratch[2 * block], scratch[2 * block + 1]
// (integer sums: shared atomics give the same words in any order).

#include "burst_compact.glsl"

layout(std430, set = 0, binding = 2) writeonly buffer Scratch { uint scratch[]; };

shared uint s_count, s_events;

void main()
{
    const uint t = gl_LocalInvocationID.x;
    for (uint blk = gl_WorkGroupID.x; blk < pc.blocks; blk += gl_NumWorkGroups.x) {
        if (t == 0u) {
            s_count = 0u;
            s_events = 0u;
        }
        barrier();
        uvec2 sum = uvec2(0u);
        const uint t0 = blk * pc.per_block, t1 = min(t0 + pc.per_block, pc.tiles);
        for (uint tile = t0; tile < t1; tile++) {
            uint i0 = tile_first(tile);
            uvec4 f = tile_flags(i0);
            sum += tile_sums(f, tile_degrees(i0, f));
        }
        if (sum.x != 0u) {
            atomicAdd(s_count, sum.x);
            atomicAdd(s_events, sum.y);
        }
        barrier();
        if (t == 0u) {
            scratch[2u * blk] = s_count;
            scratch[2u * blk + 1u] = s_events;
        }
        barrier(); // before the next block resets the sums
    }
}
