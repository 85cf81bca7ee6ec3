#version 450
// anneal_norms.comp - squared norms for anneal assign (anneal_assign.c launches it before
// anneal_assign.comp): norms[r] = sum_k v_rk^2 in fp32 for the n points (r < n) and then the m
// anchors (r = n + j), into scratch. L lanes per row (lane l: units l, l + L, ...; the L partials
// added in lane order), rows grid-stride. Fixed order: the same bits on every run.
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
const uint PTS = B / L;

shared float red[B];

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint g = tid / L, lane = tid % L;
    const uint rows = pc.n + pc.m;
    for (uint base = gl_WorkGroupID.x * PTS; base < rows; base += gl_NumWorkGroups.x * PTS) {
        uint r = base + g;
        float part = 0.0;
        if (r < rows) {
            bool pt = r < pc.n;
            uint row = pt ? r : r - pc.n;
            if (VEC4) {
                const uint units = pc.d / 4u;
                vec4 acc = vec4(0.0);
                for (uint u = lane; u < units; u += L) {
                    vec4 v = pt ? xs4[row * units + u] : as4[row * units + u];
                    acc += v * v;
                }
                part = (acc.x + acc.y) + (acc.z + acc.w);
            } else {
                for (uint k = lane; k < pc.d; k += L) {
                    float v = pt ? xs[row * pc.d + k] : as_[row * pc.d + k];
                    part += v * v;
                }
            }
        }
        red[tid] = part;
        barrier();
        if (lane == 0u && r < rows) {
            float s = red[tid];
            [[unroll]] for (uint l = 1u; l < L; l++)
                s += red[tid + l];
            norms[r] = s;
        }
        barrier();
    }
}
