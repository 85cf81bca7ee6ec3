#version 450
// anneal_changes.comp - anneal energy and changes (anneal_changes.c launches both passes).
//   PASS 0: G workgroups, points grid-stride, L lanes per point (Q points per lane group and
//           pass, their loads interleaved): the direct-form fp32 distance sum_k (x_ik - a_k)^2
//           to its anchor a = anchors[assign[i]] (lane l: units l, l + L, ...; the L partials
//           added in lane order); lane 0 adds it, in double, to its own running sum and counts
//           assign[i] != prev[i]. The workgroup's sums are added in a fixed order into scratch:
//           energy partial g (double) at [g], changes partial (uint) at word 2G + g.
//   PASS 1: one workgroup adds the G partials (invocation t: t, t + B, ... in order, then the
//           same fixed order) and writes result = {float(sum / n), changes}.
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
const uint PTS = B / L; // lane groups of a workgroup
const uint Q = 4u;      // points per lane group and pass

shared float red[Q * B];
shared double rd[B];
shared uint rc[B];

// Adds (rd, rc)[0..B) into slot 0 in a fixed order: F consecutive entries each, then the B / F
// sums in order; every invocation calls it.
const uint F = 16u;
void reduce_sums()
{
    const uint tid = gl_LocalInvocationIndex;
    barrier();
    if (tid < B / F) {
        double e = rd[tid * F];
        uint c = rc[tid * F];
        for (uint i = 1u; i < F; i++) {
            e += rd[tid * F + i];
            c += rc[tid * F + i];
        }
        rd[tid * F] = e;
        rc[tid * F] = c;
    }
    barrier();
    if (tid == 0u) {
        double e = rd[0];
        uint c = rc[0];
        for (uint i = 1u; i < B / F; i++) {
            e += rd[i * F];
            c += rc[i * F];
        }
        rd[0] = e;
        rc[0] = c;
    }
    barrier();
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint G = pc.groups;
    double e = 0.0;
    uint ch = 0u;
    if (PASS == 0u) {
        const uint g = tid / L, lane = tid % L;
        for (uint base = gl_WorkGroupID.x * PTS * Q; base < pc.n; base += gl_NumWorkGroups.x * PTS * Q) {
            // Q points per lane group, their loads interleaved; points past n use point n - 1
            uint pt[Q], an[Q];
            [[unroll]] for (uint q = 0u; q < Q; q++) {
                pt[q] = min(base + q * PTS + g, pc.n - 1u);
                an[q] = min(asg[pt[q]], pc.m - 1u);
            }
            if (VEC4) {
                const uint units = pc.d / 4u;
                vec4 acc[Q];
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    acc[q] = vec4(0.0);
                for (uint u = lane; u < units; u += L) {
                    [[unroll]] for (uint q = 0u; q < Q; q++) {
                        vec4 t = xs4[pt[q] * units + u] - as4[an[q] * units + u];
                        acc[q] += t * t;
                    }
                }
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    red[q * B + tid] = (acc[q].x + acc[q].y) + (acc[q].z + acc[q].w);
            } else {
                float acc[Q];
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    acc[q] = 0.0;
                for (uint k = lane; k < pc.d; k += L) {
                    [[unroll]] for (uint q = 0u; q < Q; q++) {
                        float t = xs[pt[q] * pc.d + k] - as_[an[q] * pc.d + k];
                        acc[q] += t * t;
                    }
                }
                [[unroll]] for (uint q = 0u; q < Q; q++)
                    red[q * B + tid] = acc[q];
            }
            barrier();
            if (lane == 0u) {
                [[unroll]] for (uint q = 0u; q < Q; q++) {
                    uint i = base + q * PTS + g;
                    if (i < pc.n) {
                        float s = red[q * B + tid];
                        [[unroll]] for (uint l = 1u; l < L; l++)
                            s += red[q * B + tid + l];
                        e += double(s);
                        ch += asg[i] != prev[i] ? 1u : 0u;
                    }
                }
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
