// layernorm.glsl - per row: y = (x - mean) / sqrt(var + eps) * w + b, population variance
// (rowop.glsl has the layout; rowop.c launches it). Included by layernorm.comp (STATS_F64 0, the
// default variant) and layernorm_f64.comp (STATS_F64 1, variant f64stats).
//
// Never E[x^2] - E[x]^2 in fp32, and no per-invocation means merged with Chan's formula: those
// round at every merge, as much at 2^18 columns as dividing by n - 1 (docs/validation.md). On
// rows whose sums are exact (the exact input class) both variants get mean and variance exact.
//   STATS_F64 0: two fp32 passes, the mean from the row's sum, then the sum of (x - mean)^2.
//     A row longer than one chunk is read three times (sum, squares, output).
//   STATS_F64 1: one pass summing d = x - x0 and d^2 in fp64 around the row's first value x0
//     (which removes any common offset), then the output pass: two reads of a long row. Needs
//     shaderFloat64.
#ifndef XPB_LAYERNORM_GLSL
#define XPB_LAYERNORM_GLSL

#if STATS_F64
// mean and 1 / sqrt(var + eps) of the row at base; rv holds its chunk 0 when chunks == 1.
void row_stats(uint base, uint chunks, out float mean, out float r)
{
    float x0 = xs[base];
    double s1 = 0.0, s2 = 0.0;
    for (uint ch = 0; ch < chunks; ch++) {
        row_load(base, ch * CHUNK, x0); // past the row's end: d = 0
        [[unroll]] for (uint k = 0; k < VPT; k++) {
            dvec4 d = dvec4(rv[k]) - double(x0);
            s1 += (d.x + d.y) + (d.z + d.w);
            s2 += dot(d, d);
        }
    }
    double c1 = wg_sum64(s1) / double(pc.cols);
    double var = wg_sum64(s2) / double(pc.cols) - c1 * c1;
    mean = float(double(x0) + c1);
    r = float(inversesqrt(var + double(pc.eps)));
}
#else
void row_stats(uint base, uint chunks, out float mean, out float r)
{
    // Pass 1: the mean from the row's sum.
    float s = 0.0;
    for (uint ch = 0; ch < chunks; ch++) {
        row_load(base, ch * CHUNK, 0.0);
        vec4 s4 = vec4(0.0);
        [[unroll]] for (uint k = 0; k < VPT; k++)
            s4 += rv[k];
        s += hsum(s4);
    }
    mean = wg_sum(s) / float(pc.cols);
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
    r = inversesqrt(wg_sum(q) / float(pc.cols) + pc.eps);
}
#endif

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
        float mean, r;
        row_stats(base, chunks, mean, r);
        for (uint ch = 0; ch < chunks; ch++) {
            uint c0 = ch * CHUNK;
            if (chunks > 1u) // else rv still holds the row
                row_load(base, c0, 0.0);
            [[unroll]] for (uint k = 0; k < VPT; k++)
                row_store(base, c0, k, (rv[k] - mean) * r * row_w(c0, k) + row_b(c0, k));
        }
    }
}

#endif
