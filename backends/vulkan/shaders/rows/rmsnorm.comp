#version 450
// rmsnorm.comp - per row: y = x / sqrt(mean(x^2) + eps) * w (rowop.glsl has the layout; rowop.c
// launches it).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 1
#include "rowop.glsl"

// MODE 1: one invocation per (short) row.
void rmsnorm_serial()
{
    for (uint row = gl_GlobalInvocationID.x; row < pc.rows; row += gl_NumWorkGroups.x * BLOCK) {
        uint base = row * pc.cols;
        float ss = 0.0;
        for (uint c = 0; c < pc.cols; c++)
            ss += xs[base + c] * xs[base + c];
        float r = inversesqrt(ss / float(pc.cols) + pc.eps);
        for (uint c = 0; c < pc.cols; c++)
            os[base + c] = xs[base + c] * r * ws[c];
    }
}

void main()
{
    if (MODE == 1) {
        rmsnorm_serial();
        return;
    }
    for (uint row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
        uint base = row * pc.cols;
        uint chunks = (pc.cols + CHUNK - 1u) / CHUNK;
        // Sum of squares: per invocation over all chunks (no barrier), then over the workgroup.
        vec4 acc = vec4(0.0);
        for (uint ch = 0; ch < chunks; ch++) {
            row_load(base, ch * CHUNK, 0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                acc += rv[k] * rv[k];
        }
        float ss = wg_sum(hsum(acc));
        float r = inversesqrt(ss / float(pc.cols) + pc.eps);
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            if (chunks > 1u) // else rv still holds the row
                row_load(base, c0, 0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                row_store(base, c0, k, rv[k] * r * row_w(c0, k));
        }
    }
}
