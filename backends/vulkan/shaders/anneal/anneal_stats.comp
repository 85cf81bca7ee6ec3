#version 450
// anneal_stats.comp - the grouping passes of anneal stats (anneal_stats.c launches them, then
// anneal_stats_anchor.comp). Scratch (uint words): members (dist bits, point index) as uvec2 at
// [0, 2n); cnt at 2n + j (zeroed by the host's vkCmdFillBuffer before PASS 0), start at
// 2n + m + j, cursor at 2n + 2m + j.
//   PASS 0 (count):   cnt[assign[i]] += 1, atomicAdd.
//   PASS 1 (scan):    one workgroup: start = exclusive prefix sum of cnt (B anchors per round,
//                     Hillis-Steele in shared memory, a carry across rounds); cursor = start;
//                     the counts output = cnt.
//   PASS 2 (scatter): members[atomicAdd(cursor[assign[i]], 1)] = (bits of dist[i], i).
// The scatter's order inside a group is not deterministic; anneal_stats_anchor.comp sorts each
// group by its key, which makes the order canonical before any float is added.
// An assign[i] >= m (never from a valid assign) is left out rather than written out of bounds.

layout(local_size_x_id = 0) in;           // B, a power of two
layout(constant_id = 1) const uint PASS = 0;

layout(push_constant) uniform Push {
    uint n, m;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer Asg { uint asg[]; };
layout(std430, set = 0, binding = 1) readonly buffer D { float dist[]; };
layout(std430, set = 0, binding = 2) writeonly buffer C { uint counts[]; };
layout(std430, set = 0, binding = 3) buffer Su { uint su[]; };
layout(std430, set = 0, binding = 3) buffer Sm { uvec2 members[]; };

const uint B = gl_WorkGroupSize.x;

shared uint sc[B];

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint cnt = 2u * pc.n, start = cnt + pc.m, cursor = start + pc.m;
    const uint stride = gl_NumWorkGroups.x * B;
    if (PASS == 0u) {
        for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
            uint a = asg[i];
            if (a < pc.m)
                atomicAdd(su[cnt + a], 1u);
        }
    } else if (PASS == 1u) {
        uint carry = 0u;
        for (uint base = 0u; base < pc.m; base += B) {
            uint j = base + tid;
            uint v = j < pc.m ? su[cnt + j] : 0u;
            sc[tid] = v;
            barrier();
            for (uint off = 1u; off < B; off <<= 1) {
                uint add = tid >= off ? sc[tid - off] : 0u;
                barrier();
                sc[tid] += add;
                barrier();
            }
            if (j < pc.m) {
                uint s = carry + sc[tid] - v;
                su[start + j] = s;
                su[cursor + j] = s;
                counts[j] = v;
            }
            carry += sc[B - 1u];
            barrier(); // sc is written again next round
        }
    } else {
        for (uint i = gl_GlobalInvocationID.x; i < pc.n; i += stride) {
            uint a = asg[i];
            if (a < pc.m) {
                uint p = atomicAdd(su[cursor + a], 1u);
                members[p] = uvec2(floatBitsToUint(dist[i]), i);
            }
        }
    }
}
