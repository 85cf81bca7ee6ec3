#version 450
// softmax.comp - per row: y = exp(x - max(x)) / sum(exp(x - max(x))) (rowop.glsl has the layout;
// rowop.c launches it). exp is row_exp_neg (rowop.glsl: xpb_exp_neg, about 1 ulp, or GLSL's exp
// with XPB_VULKAN_ROW_EXP=builtin; its arguments are never positive).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 0
#include "rowop.glsl"

// MODE 1: one invocation per (short) row.
void softmax_serial()
{
    for (uint row = gl_GlobalInvocationID.x; row < pc.rows; row += gl_NumWorkGroups.x * BLOCK) {
        uint base = row * pc.cols;
        float m = -XPB_FLT_MAX;
        for (uint c = 0; c < pc.cols; c++)
            m = max(m, xs[base + c]);
        float s = 0.0;
        for (uint c = 0; c < pc.cols; c++)
            s += row_exp_neg(xs[base + c] - m);
        float inv = 1.0 / s;
        for (uint c = 0; c < pc.cols; c++)
            os[base + c] = row_exp_neg(xs[base + c] - m) * inv;
    }
}

void main()
{
    if (MODE == 1) {
        softmax_serial();
        return;
    }
    for (uint row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
        uint base = row * pc.cols;
        uint chunks = (pc.cols + CHUNK - 1u) / CHUNK;
        if (chunks == 1u) { // the row fits in registers: read once, write from registers
            row_load(base, 0u, -XPB_FLT_MAX);
            vec4 mv = rv[0];
            [[unroll]] for (uint k = 1; k < VPT; k++)
                mv = max(mv, rv[k]);
            float m = wg_max(hmax(mv));
            vec4 sv = vec4(0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++) {
                rv[k] = mix(vec4(0.0), row_exp_neg(rv[k] - m), row_valid(0u, k));
                sv += rv[k];
            }
            float inv = 1.0 / wg_sum(hsum(sv));
            [[unroll]] for (uint k = 0; k < VPT; k++)
                row_store(base, 0u, k, rv[k] * inv);
            continue;
        }
        // Long row. Statistics pass, streaming: each invocation keeps an online (max, sum) over
        // its values, no barrier until the end; then one max and one sum over the workgroup.
        float m = -XPB_FLT_MAX, s = 0.0;
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            row_load(base, c0, -XPB_FLT_MAX);
            vec4 mv = rv[0];
            [[unroll]] for (uint k = 1; k < VPT; k++)
                mv = max(mv, rv[k]);
            float mn = max(m, hmax(mv));
            vec4 sv = vec4(0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                sv += mix(vec4(0.0), row_exp_neg(rv[k] - mn), row_valid(c0, k));
            s = s * row_exp_neg(m - mn) + hsum(sv);
            m = mn;
        }
        float mrow = wg_max(m);
        float inv = 1.0 / wg_sum(s * row_exp_neg(m - mrow));
        // Write pass: read again.
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            row_load(base, c0, 0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                row_store(base, c0, k, row_exp_neg(rv[k] - mrow) * inv);
        }
    }
}
