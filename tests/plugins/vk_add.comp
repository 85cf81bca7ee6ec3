// vk_add.comp - a SPIR-V add kernel for tests/plugins/plugins_vulkan.sh: the elementwise layout (x, y, out;
// push {n, a}) with 4 elements an invocation (elements_per_invocation 4 in its manifest): workgroup
// g takes elements [512 g, 512 g + 512), then steps on by 512 gl_NumWorkGroups.x.
// BAD_PUSH: the push block's members swapped ({float a; uint n;}), which the loader refuses.
#version 450
#define BLOCK 128
#define PER 4
layout(local_size_x = BLOCK) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) readonly buffer Y { float y[]; };
layout(std430, set = 0, binding = 2) writeonly buffer O { float o[]; };
#ifdef BAD_PUSH
layout(push_constant) uniform Push { float a; uint n; } p;
#else
layout(push_constant) uniform Push { uint n; float a; } p;
#endif

void main()
{
    for (uint base = gl_WorkGroupID.x * BLOCK * PER; base < p.n; base += gl_NumWorkGroups.x * BLOCK * PER)
        for (uint k = 0; k < PER; k++) {
            uint i = base + k * BLOCK + gl_LocalInvocationID.x;
            if (i < p.n)
                o[i] = x[i] + y[i];
        }
}
