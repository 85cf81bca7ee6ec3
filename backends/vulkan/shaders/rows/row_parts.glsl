// row_parts.glsl - a chunk's partials and their merge, shared by the row variants l2 and onchip
// (rowop_l2.glsl, rowop_onchip.glsl include it in their softmax part, after declaring `part`
// with vec2 elements; BLOCK, wg_max and wg_sum come from rowop.glsl). Invocation i takes
// partials i, i + BLOCK, ... in turn, then the workgroup reduction: a fixed order, so every
// workgroup of a row gets the same bits from the same partials.

// Softmax: the chunk's partial (its max, its sum of exp(x - max)) from its values in rv (loaded
// by row_load at column c0 with -XPB_FLT_MAX for the columns past the row).
vec2 row_softmax_partial(uint c0)
{
    vec4 mv = rv[0];
    [[unroll]] for (uint k = 1; k < VPT; k++)
        mv = max(mv, rv[k]);
    float m = wg_max(hmax(mv));
    vec4 sv = vec4(0.0);
    [[unroll]] for (uint k = 0; k < VPT; k++)
        sv += mix(vec4(0.0), row_exp_neg(rv[k] - m), row_valid(c0, k));
    return vec2(m, wg_sum(hsum(sv)));
}

// Softmax: the row's max and its sum of exp(x - max), from the chunks' (max, sum of exp(x - its
// max)) at part[pbase ..], each chunk's sum rescaled to the row's max (exponents <= 0).
vec2 row_softmax_total(uint pbase)
{
    float mp = -XPB_FLT_MAX;
    for (uint i = gl_LocalInvocationID.x; i < pc.chunks; i += BLOCK)
        mp = max(mp, part[pbase + i].x);
    float mrow = wg_max(mp);
    float sp = 0.0;
    for (uint i = gl_LocalInvocationID.x; i < pc.chunks; i += BLOCK) {
        vec2 q = part[pbase + i];
        sp += q.y * row_exp_neg(q.x - mrow);
    }
    return vec2(mrow, wg_sum(sp));
}
