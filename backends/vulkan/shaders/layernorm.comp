#version 450
// layernorm.comp - per row: y = (x - mean) / sqrt(var + eps) * w + b, population variance
// (rowop.glsl has the layout; rowop.c launches it). Two passes, never E[x^2] - E[x]^2: the mean
// from the row's sum, then the sum of (x - mean)^2. Plain sums, so that on rows whose sums are
// exact (the exact input class, docs/validation.md) mean and variance are exact too; merging
// per-invocation means (Chan's formula) rounded at every merge, as much at 2^18 columns as
// dividing by n - 1. A row longer than one chunk is read three times (sum, squares, output).
#extension GL_GOOGLE_include_directive : require
#define ROW_PARAMS 2
#include "rowop.glsl"

// MODE 1: one invocation per (short) row, three passes.
void layernorm_serial()
{
    for (uint row = gl_GlobalInvocationID.x; row < pc.rows; row += gl_NumWorkGroups.x * BLOCK) {
        uint base = row * pc.cols;
        float s = 0.0;
        for (uint c = 0; c < pc.cols; c++)
            s += xs[base + c];
        float mean = s / float(pc.cols);
        float m2 = 0.0;
        for (uint c = 0; c < pc.cols; c++) {
            float d = xs[base + c] - mean;
            m2 += d * d;
        }
        float r = inversesqrt(m2 / float(pc.cols) + pc.eps);
        for (uint c = 0; c < pc.cols; c++)
            os[base + c] = (xs[base + c] - mean) * r * ws[c] + bs[c];
    }
}

void main()
{
    if (MODE == 1) {
        layernorm_serial();
        return;
    }
    for (uint row = gl_WorkGroupID.x; row < pc.rows; row += gl_NumWorkGroups.x) {
        uint base = row * pc.cols;
        uint chunks = (pc.cols + CHUNK - 1u) / CHUNK;
        // Pass 1: the mean from the row's sum.
        float s = 0.0;
        for (uint ch = 0; ch < chunks; ch++) {
            row_load(base, ch * CHUNK, 0.0);
            vec4 s4 = vec4(0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                s4 += rv[k];
            s += hsum(s4);
        }
        float mean = wg_sum(s) / float(pc.cols);
        // Pass 2: the sum of (x - mean)^2, from the registers when the row is one chunk.
        float q = 0.0;
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            if (chunks > 1u)
                row_load(base, c0, 0.0);
            vec4 q4 = vec4(0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++) {
                vec4 d = mix(vec4(0.0), rv[k] - mean, row_valid(c0, k));
                q4 += d * d;
            }
            q += hsum(q4);
        }
        float r = inversesqrt(wg_sum(q) / float(pc.cols) + pc.eps);
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            if (chunks > 1u)
                row_load(base, c0, 0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                row_store(base, c0, k, (rv[k] - mean) * r * row_w(c0, k) + row_b(c0, k));
        }
    }
}
