#version 450
// anneal_changes.comp - anneal energy and changes (anneal_changes.c launches both passes).
//   PASS 0: G workgroups, points grid-stride, L lanes per point: the direct-form fp32 distance
//           sum_k (x_ik - a_k)^2 to its anchor a = anchors[assign[i]] (lane l: units l, l + L,
//           ...; the L partials added in lane order); lane 0 adds it, in double, to its own
//           running sum and counts assign[i] != prev[i]. The workgroup's sums are added in a
//           fixed tree into scratch: energy partial g (double) at [g], changes partial (uint) at
//           word 2G + g.
//   PASS 1: one workgroup adds the G partials (invocation t: t, t + B, ... in order, then a
//           fixed tree) and writes result = {float(sum / n), changes}.
// No atomics: the same bits on every run. An assign[i] >= m (never from a valid assign) reads
// anchor m - 1 rather than out of bounds.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;                 // B, a power of two
layout(constant_id = 1) const uint L = 8;       // lanes per point (power of two <= B)
layout(constant_id = 2) const bool VEC4 = true; // d % 4 == 0
layout(constant_id = 3) const uint PASS = 0;

layout(push_constant) uniform Push {
    uint n, d, m;
    uint groups; // G: workgroups of PASS 0 = partials
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 xs4[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { float as_[]; };
layout(std430, set = 0, binding = 1) readonly buffer A4 { vec4 as4[]; };
layout(std430, set = 0, binding = 2) readonly buffer Asg { uint asg[]; };
layout(std430, set = 0, binding = 3) readonly buffer Prev { uint prev[]; };
layout(std430, set = 0, binding = 4) writeonly buffer Res { uint res[]; };
layout(std430, set = 0, binding = 5) buffer Sd { double sd[]; };
layout(std430, set = 0, binding = 5) buffer Su { uint su[]; };

const uint B = gl_WorkGroupSize.x;
const uint PTS = B / L;

shared float red[B];
shared double rd[B];
shared uint rc[B];

// Adds (rd, rc)[0..B) into slot 0 in a fixed tree; every invocation calls it.
void reduce_sums()
{
    const uint tid = gl_LocalInvocationIndex;
    barrier();
    for (uint h = B / 2u; h > 0u; h >>= 1) {
        if (tid < h) {
            rd[tid] += rd[tid + h];
            rc[tid] += rc[tid + h];
        }
        barrier();
    }
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint G = pc.groups;
    double e = 0.0;
    uint ch = 0u;
    if (PASS == 0u) {
        const uint g = tid / L, lane = tid % L;
        for (uint base = gl_WorkGroupID.x * PTS; base < pc.n; base += gl_NumWorkGroups.x * PTS) {
            uint i = base + g;
            float part = 0.0;
            if (i < pc.n) {
                uint a = min(asg[i], pc.m - 1u);
                if (VEC4) {
                    const uint units = pc.d / 4u;
                    vec4 acc = vec4(0.0);
                    for (uint u = lane; u < units; u += L) {
                        vec4 t = xs4[i * units + u] - as4[a * units + u];
                        acc += t * t;
                    }
                    part = (acc.x + acc.y) + (acc.z + acc.w);
                } else {
                    for (uint k = lane; k < pc.d; k += L) {
                        float t = xs[i * pc.d + k] - as_[a * pc.d + k];
                        part += t * t;
                    }
                }
            }
            red[tid] = part;
            barrier();
            if (lane == 0u && i < pc.n) {
                float s = red[tid];
                [[unroll]] for (uint l = 1u; l < L; l++)
                    s += red[tid + l];
                e += double(s);
                ch += asg[i] != prev[i] ? 1u : 0u;
            }
            barrier(); // red is free again
        }
    } else {
        for (uint g = tid; g < G; g += B) {
            e += sd[g];
            ch += su[2u * G + g];
        }
    }
    rd[tid] = e;
    rc[tid] = ch;
    reduce_sums();
    if (tid == 0u) {
        if (PASS == 0u) {
            sd[gl_WorkGroupID.x] = rd[0];
            su[2u * G + gl_WorkGroupID.x] = rc[0];
        } else {
            res[0] = floatBitsToUint(float(rd[0] / double(pc.n)));
            res[1] = rc[0];
        }
    }
}
