// vk_rmsnorm.comp - a SPIR-V rmsnorm kernel for tests/plugins/plugins_vulkan.sh: rmsnorm's layout (x, w,
// out; push {rows, cols, row_stride, eps}) with two rows a workgroup (rows_per_workgroup 2 in its
// manifest): workgroup g takes rows 2g and 2g+1, then steps on by 2 gl_NumWorkGroups.x.
#version 450
#define BLOCK 64
#define ROWS 2
layout(local_size_x = BLOCK) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer W { float w[]; };
layout(std430, set = 0, binding = 2) writeonly buffer O { float y[]; };
layout(push_constant) uniform Push { uint rows; uint cols; uint row_stride; float eps; } p;
shared float part[BLOCK];

void main()
{
    uint t = gl_LocalInvocationID.x;
    for (uint first = gl_WorkGroupID.x * ROWS; first < p.rows; first += gl_NumWorkGroups.x * ROWS)
        for (uint row = first; row < min(first + ROWS, p.rows); row++) {
            uint base = row * p.row_stride;
            float ss = 0.0;
            for (uint i = t; i < p.cols; i += BLOCK)
                ss += x[base + i] * x[base + i];
            part[t] = ss;
            barrier();
            for (uint s = BLOCK / 2; s > 0; s >>= 1) {
                if (t < s)
                    part[t] += part[t + s];
                barrier();
            }
            float scale = 1.0 / sqrt(part[0] / float(p.cols) + p.eps);
            barrier();
            for (uint i = t; i < p.cols; i += BLOCK)
                y[base + i] = x[base + i] * scale * w[i];
        }
}
