// row_parts.glsl - a chunk's partials and their merge, shared by the row variants l2 and onchip
// (rowop_l2.glsl, rowop_onchip.glsl include it in their softmax part, after declaring `part`
// with vec2 elements, or defining ROW_PART(pbase, i, held) to read partial pbase + i another way;
// BLOCK, wg_max and wg_sum come from rowop.glsl). Invocation i takes partials i, i + BLOCK, ...
// in turn, then the workgroup reduction: a fixed order, so every workgroup of a row gets the
// same bits from the same partials. The loops run over BLOCK-wide batches, the same number of
// times in every invocation (a ROW_PART may read with atomics, which lavapipe mishandles in a
// loop only part of the workgroup runs: rowop_onchip.glsl).

// Softmax: the chunk's partial (its max, its sum of exp(x - max)) from its values in rv (loaded
// by row_load at column c0 with -XPB_FLT_MAX for the columns past the row). keep (a constant at
// every call site): rv keeps the exps it summed (0 past the row) instead of the values, for a
// write that scales them (rowop_onchip.glsl's OC_ONCE); the partial's bits are the same.
vec2 row_softmax_partial(uint c0, bool keep)
{
    vec4 mv = rv[0];
    [[unroll]] for (uint k = 1; k < VPT; k++)
        mv = max(mv, rv[k]);
    float m = wg_max(hmax(mv));
    vec4 sv = vec4(0.0);
    [[unroll]] for (uint k = 0; k < VPT; k++) {
        vec4 e = mix(vec4(0.0), row_exp_neg(rv[k] - m), row_valid(c0, k));
        sv += e;
        if (keep)
            rv[k] = e;
    }
    return vec2(m, wg_sum(hsum(sv)));
}

// Softmax: the row's max and its sum of exp(x - max), from the chunks' (max, sum of exp(x - its
// max)) at part[pbase ..], each chunk's sum rescaled to the row's max (exponents <= 0).
#ifndef ROW_PART
#define ROW_PART(pbase, i, held) part[(pbase) + (i)]
#endif

// held: passed to ROW_PART (rowop_onchip.glsl's tagged form: this invocation's first partial).
// The sum of the chunks' sums rescaled to the row's max mrow.
float row_softmax_sum(uint pbase, vec2 held, float mrow)
{
    float sp = 0.0;
    for (uint ib = 0u; ib < pc.chunks; ib += BLOCK) {
        uint i = ib + gl_LocalInvocationID.x;
        if (i < pc.chunks) {
            vec2 q = ROW_PART(pbase, i, held);
            sp += q.y * row_exp_neg(q.x - mrow);
        }
    }
    return wg_sum(sp);
}

vec2 row_softmax_total(uint pbase, vec2 held)
{
    float mp = -XPB_FLT_MAX;
    for (uint ib = 0u; ib < pc.chunks; ib += BLOCK) {
        uint i = ib + gl_LocalInvocationID.x;
        if (i < pc.chunks)
            mp = max(mp, ROW_PART(pbase, i, held).x);
    }
    float mrow = wg_max(mp);
    return vec2(mrow, row_softmax_sum(pbase, held, mrow));
}
