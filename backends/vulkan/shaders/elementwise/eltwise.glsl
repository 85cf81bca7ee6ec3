// eltwise.glsl - the body of the elementwise kernels (copy, add, mul, scale, relu, sigmoid, silu).
//
// The including shader defines ELT_BINARY (0: out = f(x); 1: out = f(x, y)) and ELT_OP(x, y), an
// expression valid for float and for vec4 arguments (pc.a is the scalar of scale).
//
// Shape: vec4 loads and stores through a vec4 view of each binding (views are 256-byte aligned),
// UNROLL vec4 per invocation per step, all loads issued before the stores; a grid-stride loop
// (grids are capped at maxComputeWorkGroupCount[0], 65535 on lavapipe); the n % 4 tail is done
// with scalar accesses by the first invocations.
#extension GL_EXT_control_flow_attributes : require
#include "../common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint UNROLL = 4;

layout(push_constant) uniform Push {
    uint n;  // elements
    uint n4; // n / 4
    float a;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 xs4[]; };
#if ELT_BINARY
layout(std430, set = 0, binding = 1) readonly buffer Y { float ys[]; };
layout(std430, set = 0, binding = 1) readonly buffer Y4 { vec4 ys4[]; };
#define ELT_OUT_BINDING 2
#define ELT_Y(i) ys[i]
#define ELT_Y4(i) ys4[i]
#else
#define ELT_OUT_BINDING 1
#define ELT_Y(i) 0.0
#define ELT_Y4(i) vec4(0.0)
#endif
layout(std430, set = 0, binding = ELT_OUT_BINDING) writeonly buffer O { float os[]; };
layout(std430, set = 0, binding = ELT_OUT_BINDING) writeonly buffer O4 { vec4 os4[]; };

void main()
{
    const uint block = gl_WorkGroupSize.x;
    const uint step = block * UNROLL; // vec4 per workgroup per iteration
    const uint t = gl_LocalInvocationID.x;
    uint base = gl_WorkGroupID.x * step;
    // Whole steps: no bounds checks.
    for (; base + step <= pc.n4; base += gl_NumWorkGroups.x * step) {
        vec4 v[UNROLL], w[UNROLL];
        [[unroll]] for (uint k = 0; k < UNROLL; k++) {
            v[k] = xs4[base + t + k * block];
            w[k] = ELT_Y4(base + t + k * block);
        }
        [[unroll]] for (uint k = 0; k < UNROLL; k++)
            os4[base + t + k * block] = ELT_OP(v[k], w[k]);
    }
    // The last partial step (only one workgroup gets here with base < n4).
    if (base < pc.n4) {
        [[unroll]] for (uint k = 0; k < UNROLL; k++) {
            uint i = base + t + k * block;
            if (i < pc.n4)
                os4[i] = ELT_OP(xs4[i], ELT_Y4(i));
        }
    }
    // Scalar tail: n % 4 elements.
    uint gid = gl_GlobalInvocationID.x;
    if (gid < pc.n - 4u * pc.n4) {
        uint i = 4u * pc.n4 + gid;
        os[i] = ELT_OP(xs[i], ELT_Y(i));
    }
}
