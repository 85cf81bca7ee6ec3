#version 450
// anneal_norms.comp - squared norms for anneal assign (anneal_assign.c launches it before
// anneal_assign.comp): norms[r] = sum_k v_rk^2 in fp32 for the n points (r < n) and then the m
// anchors (r = n + j), into scratch. L lanes per row (lane l: units l, l + L, ...; the L partials
// added in lane order), Q rows per lane group and pass with their loads interleaved, grid-stride.
// Fixed order: the same bits on every run.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;                 // B, a power of two
layout(constant_id = 1) const uint L = 8;       // lanes per row (power of two <= B)
layout(constant_id = 2) const bool VEC4 = true; // d % 4 == 0

layout(push_constant) uniform Push {
    uint n, d, m, pad;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 xs4[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { float as_[]; };
layout(std430, set = 0, binding = 1) readonly buffer A4 { vec4 as4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer N { float norms[]; };

const uint B = gl_WorkGroupSize.x;
const uint PTS = B / L; // lane groups of a workgroup
const uint Q = 4u;      // rows per lane group and pass

shared float red[Q * B];

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint g = tid / L, lane = tid % L;
    const uint rows = pc.n + pc.m;
    for (uint base = gl_WorkGroupID.x * PTS * Q; base < rows; base += gl_NumWorkGroups.x * PTS * Q) {
        // Q rows per lane group, their loads interleaved; rows past the end read the last one
        uint row[Q];
        bool pt[Q];
        [[unroll]] for (uint q = 0u; q < Q; q++) {
            uint r = min(base + q * PTS + g, rows - 1u);
            pt[q] = r < pc.n;
            row[q] = pt[q] ? r : r - pc.n;
        }
        if (VEC4) {
            const uint units = pc.d / 4u;
            vec4 acc[Q];
            [[unroll]] for (uint q = 0u; q < Q; q++)
                acc[q] = vec4(0.0);
            for (uint u = lane; u < units; u += L) {
                [[unroll]] for (uint q = 0u; q < Q; q++) {
                    vec4 v = pt[q] ? xs4[row[q] * units + u] : as4[row[q] * units + u];
                    acc[q] += v * v;
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
                    float v = pt[q] ? xs[row[q] * pc.d + k] : as_[row[q] * pc.d + k];
                    acc[q] += v * v;
                }
            }
            [[unroll]] for (uint q = 0u; q < Q; q++)
                red[q * B + tid] = acc[q];
        }
        barrier();
        if (lane == 0u) {
            [[unroll]] for (uint q = 0u; q < Q; q++) {
                uint r = base + q * PTS + g;
                if (r < rows) {
                    float s = red[q * B + tid];
                    [[unroll]] for (uint l = 1u; l < L; l++)
                        s += red[q * B + tid + l];
                    norms[r] = s;
                }
            }
        }
        barrier(); // red is free again
    }
}
