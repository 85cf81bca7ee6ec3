#version 450
// layernorm.comp - per row: y = (x - mean) / sqrt(var + eps) * w + b, population variance
// (rowop.glsl has the layout; rowop.c launches it). No E[x^2] - E[x]^2: each invocation gets the
// mean and centered sum of squares M2 of its values by two passes over registers (per chunk,
// merged by Chan's formula), and the workgroup combines them exactly:
// M2 = sum(M2_i + n_i (mean_i - mean)^2).
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
        // This invocation's count, mean and M2 over its values of every chunk: each chunk's part
        // by two passes over registers, merged by Chan's formula; no barrier inside the loop.
        float n = 0.0, mean = 0.0, m2 = 0.0;
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            row_load(base, c0, 0.0);
            vec4 cnt4 = vec4(0.0), sum4 = vec4(0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++) {
                cnt4 += vec4(row_valid(c0, k));
                sum4 += rv[k];
            }
            float cnt = hsum(cnt4);
            if (cnt > 0.0) {
                float mc = hsum(sum4) / cnt;
                vec4 q = vec4(0.0);
                [[unroll]] for (uint k = 0; k < VPT; k++) {
                    vec4 d = mix(vec4(0.0), rv[k] - mc, row_valid(c0, k));
                    q += d * d;
                }
                float nn = n + cnt;
                float delta = mc - mean;
                mean += delta * (cnt / nn);
                m2 += hsum(q) + delta * delta * (n * (cnt / nn));
                n = nn;
            }
        }
        // The workgroup's: mean = sum / cols, M2 = sum of (m2_i + n_i (mean_i - mean)^2).
        float row_mean = wg_sum(n * mean) / float(pc.cols);
        float dm = mean - row_mean;
        float row_m2 = wg_sum(m2 + n * dm * dm);
        mean = row_mean;
        m2 = row_m2;
        float r = inversesqrt(m2 / float(pc.cols) + pc.eps);
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            if (chunks > 1u) // else rv still holds the row
                row_load(base, c0, 0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                row_store(base, c0, k, (rv[k] - mean) * r * row_w(c0, k) + row_b(c0, k));
        }
    }
}
