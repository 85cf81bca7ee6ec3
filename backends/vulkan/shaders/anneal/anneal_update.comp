#version 450
// anneal_update.comp - annealing update, in place (anneal_update.c launches it): for each anchor
// j with counts[j] > 0 and each k,
//   anchors[j][k] += clamp((mean[j][k] - anchors[j][k]) * lr_t, -0.1, 0.1)   in fp32.
// An invocation per vec4 (VEC4: d % 4 == 0, so the 4 values share one anchor) or per float,
// grid-stride. Each element is read and written by one invocation only.

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool VEC4 = true; // d % 4 == 0

layout(push_constant) uniform Push {
    uint m, d;
    float lr_t;
    uint pad;
} pc;

layout(std430, set = 0, binding = 0) buffer A { float a[]; };
layout(std430, set = 0, binding = 0) buffer A4 { vec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer C { uint counts[]; };
layout(std430, set = 0, binding = 2) readonly buffer M { float mu[]; };
layout(std430, set = 0, binding = 2) readonly buffer M4 { vec4 mu4[]; };

void main()
{
    const uint per_row = VEC4 ? pc.d / 4u : pc.d;
    const uint units = pc.m * per_row;
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint u = gl_GlobalInvocationID.x; u < units; u += stride) {
        if (counts[u / per_row] == 0u)
            continue;
        if (VEC4) {
            vec4 v = a4[u];
            vec4 step = clamp((mu4[u] - v) * pc.lr_t, vec4(-0.1), vec4(0.1));
            a4[u] = v + step;
        } else {
            float v = a[u];
            float step = clamp((mu[u] - v) * pc.lr_t, -0.1, 0.1);
            a[u] = v + step;
        }
    }
}
