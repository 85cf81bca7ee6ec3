// softmax.comp - an example SPIR-V kernel for xpubench's vulkan backend: softmax per row
// (docs/plugins.md "Vulkan: SPIR-V kernels"). No C and no xpubench header: compile it with
//     glslc --target-env=vulkan1.2 -O softmax.comp -o softmax.spv
// and run it with its manifest softmax.spv.json beside it:
//     xpubench run --backend vulkan --kernels softmax.spv --filter softmax
//
// The layout xpubench binds for softmax: set 0, binding 0 x and binding 1 out (storage buffers,
// rows x cols floats, row-major) and the push constants {rows, cols, row_stride, eps}. The
// manifest leaves rows_per_workgroup at 1, so workgroup g takes row g; the grid is capped at the
// device's maxComputeWorkGroupCount, so it steps on by gl_NumWorkGroups.x while rows remain.
//
// One workgroup of 256 invocations per row, three passes over it: the maximum, the sum of
// e^(x - max), then the output. Plain shared-memory reductions: clear, not fast.
//
// Built in xpubench's tree three times (CMakeLists.txt): as it is, and with one of two faults
// that xpubench must catch:
//   EXAMPLE_DROP_LAST  the sum leaves out the row's last element: validation fails (exit 1).
//   EXAMPLE_BAD_BINDING  out at binding 2: not softmax's layout, refused at load (exit 2).
#version 450

#define BLOCK 256
layout(local_size_x = BLOCK) in;

layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
#ifdef EXAMPLE_BAD_BINDING
layout(std430, set = 0, binding = 2) writeonly buffer Out { float y[]; };
#else
layout(std430, set = 0, binding = 1) writeonly buffer Out { float y[]; };
#endif

layout(push_constant) uniform Push {
    uint rows;
    uint cols;
    uint row_stride; // floats from one row to the next
    float eps;       // not used by softmax
} p;

shared float part[BLOCK];

// The workgroup's maximum (want_max) or sum of v; every invocation gets it.
float reduce(float v, bool want_max)
{
    uint t = gl_LocalInvocationID.x;
    part[t] = v;
    barrier();
    for (uint s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < s)
            part[t] = want_max ? max(part[t], part[t + s]) : part[t] + part[t + s];
        barrier();
    }
    float r = part[0];
    barrier(); // part is reused by the next reduction
    return r;
}

void main()
{
    uint t = gl_LocalInvocationID.x;
#ifdef EXAMPLE_DROP_LAST
    uint sum_cols = p.cols - 1;
#else
    uint sum_cols = p.cols;
#endif
    for (uint row = gl_WorkGroupID.x; row < p.rows; row += gl_NumWorkGroups.x) {
        uint base = row * p.row_stride;
        float m = uintBitsToFloat(0xff800000u); // -inf
        for (uint i = t; i < p.cols; i += BLOCK)
            m = max(m, x[base + i]);
        m = reduce(m, true);
        float sum = 0.0;
        for (uint i = t; i < sum_cols; i += BLOCK)
            sum += exp(x[base + i] - m);
        sum = reduce(sum, false);
        for (uint i = t; i < p.cols; i += BLOCK)
            y[base + i] = exp(x[base + i] - m) / sum;
    }
}
