#version 450
// anneal_search.comp - anneal search (anneal_search.c launches it): for nq queries and m anchors,
// dist[i * m + j] = ||q_i||^2 - 2 q_i.a_j + ||a_j||^2 in fp32 (as fma(-2, dot, ||q||^2 + ||a||^2)),
// clamped to >= +0.0 (-0.0 and NaN become +0.0). Every element of the nq x m output is written.
//
// A workgroup of W x W invocations owns a T x T tile (T = 4W queries x T anchors; tiles
// grid-stride, 1-D dispatch). Each invocation computes 4 x 4 dot products: rows ty + W*r and
// columns tx + W*c (r, c < 4). d goes in slices of BK through shared memory, both operands stored
// transposed ([k][row]); element e of a slice's load is row e / BK, column e % BK, so neighbouring
// invocations read neighbouring floats of a row. Out-of-range elements load as 0.
// The norms come from the same staged slices: invocation tid < T sums the squares of query row
// tid, T <= tid < 2T those of anchor row tid - T (W >= 8, so W*W >= 2T). Every sum runs over k in
// order, so the result does not depend on timing. The search is small next to a run (100 queries
// x 1024 anchors), so one shared-memory stage and scalar loads are enough.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;            // W * W
layout(constant_id = 1) const uint W = 16; // invocations per tile side, >= 8

layout(push_constant) uniform Push {
    uint nq, d, m;
    uint tiles_q, tiles_m; // query tiles, anchor tiles
    uint pad;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer Q { float qs[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { float as_[]; };
layout(std430, set = 0, binding = 2) writeonly buffer D { float dist[]; };

const uint B = W * W;
const uint T = 4u * W; // queries and anchors per tile
const uint BK = 16u;   // slice of d

shared float Qs[BK * T];
shared float As[BK * T];
shared float qn_s[T], an_s[T];

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint tx = tid % W, ty = tid / W;
    const uint tiles = pc.tiles_q * pc.tiles_m;
    for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) {
        const uint q0 = (t / pc.tiles_m) * T, a0 = (t % pc.tiles_m) * T;
        float acc[4][4];
        [[unroll]] for (uint r = 0u; r < 4u; r++)
            [[unroll]] for (uint c = 0u; c < 4u; c++)
                acc[r][c] = 0.0;
        float nrm = 0.0; // tid < 2T: its row's sum of squares so far
        for (uint k0 = 0u; k0 < pc.d; k0 += BK) {
            for (uint e = tid; e < T * BK; e += B) {
                const uint r = e / BK, kk = e % BK, k = k0 + kk;
                Qs[kk * T + r] = q0 + r < pc.nq && k < pc.d ? qs[(q0 + r) * pc.d + k] : 0.0;
                As[kk * T + r] = a0 + r < pc.m && k < pc.d ? as_[(a0 + r) * pc.d + k] : 0.0;
            }
            barrier();
            if (tid < 2u * T) {
                const uint r = tid % T;
                [[unroll]] for (uint kk = 0u; kk < BK; kk++) {
                    const float v = tid < T ? Qs[kk * T + r] : As[kk * T + r];
                    nrm = fma(v, v, nrm);
                }
            }
            [[unroll]] for (uint kk = 0u; kk < BK; kk++) {
                float qv[4], av[4];
                [[unroll]] for (uint r = 0u; r < 4u; r++)
                    qv[r] = Qs[kk * T + ty + W * r];
                [[unroll]] for (uint c = 0u; c < 4u; c++)
                    av[c] = As[kk * T + tx + W * c];
                [[unroll]] for (uint r = 0u; r < 4u; r++)
                    [[unroll]] for (uint c = 0u; c < 4u; c++)
                        acc[r][c] = fma(qv[r], av[c], acc[r][c]);
            }
            barrier(); // the slice is free for the next load
        }
        if (tid < T)
            qn_s[tid] = nrm;
        else if (tid < 2u * T)
            an_s[tid - T] = nrm;
        barrier();
        [[unroll]] for (uint r = 0u; r < 4u; r++) {
            const uint i = q0 + ty + W * r;
            [[unroll]] for (uint c = 0u; c < 4u; c++) {
                const uint j = a0 + tx + W * c;
                if (i < pc.nq && j < pc.m) {
                    const float v = fma(-2.0, acc[r][c], qn_s[ty + W * r] + an_s[tx + W * c]);
                    dist[i * pc.m + j] = v > 0.0 ? v : 0.0;
                }
            }
        }
        barrier(); // qn_s and an_s are free for the next tile
    }
}
