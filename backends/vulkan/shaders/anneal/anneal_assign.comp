#version 450
// anneal_assign.comp - anneal assign (anneal_assign.c launches it after anneal_norms.comp):
// assign[i] = argmin_j dist(x_i, anchor_j), ties to the lowest j, and dist[i] = that distance,
// with dist = ||x_i||^2 - 2 x_i.a_j + ||a_j||^2 in fp32, clamped to >= +0.0 (-0.0 and NaN become
// +0.0) before the comparison. The n x m distance matrix is never written.
//
// A workgroup owns a tile of BM points (tiles grid-stride) and sweeps all anchors, BN at a time:
// each BM x BN block of dot products is a GEMM tile as in tiled.comp (TM x TN microtiles in
// registers as 4 x 4 blocks 4*THREADS_M rows / 4*THREADS_N columns apart; K = d in slices of BK
// through two shared-memory stages, the next slice prefetched into registers; one barrier per
// slice). Both operands are rows along K (points and anchors are row-major n x d, m x d), so both
// are loaded in units of 4 consecutive floats along K (a vec4 when VEC: d % 4 == 0) and stored
// transposed (Xs[k][i], As[k][j], rows padded by 4 floats). Out-of-range elements load as 0.
// The (anchor tile, slice) pairs run as one sequence, so the prefetch crosses anchor tiles.
// When an anchor tile's last slice is done, each invocation turns its microtile into distances
// (norms from scratch: points at [0, n), anchors at n + j) and keeps, per row, the smallest with
// its column; it visits its columns in ascending order and replaces only on "<", so its best is
// the lowest column among its ties. After the sweep, the THREADS_N invocations of a row merge in
// shared memory with 32-bit atomics: atomicMin of the distance bits (>= +0, so they order like
// the values), then atomicMin of the column among those whose bits equal the minimum. Exact:
// the result does not depend on the order of the atomics.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;                 // (BM / TM) * (BN / TN)
layout(constant_id = 1) const uint BM = 64;     // points per tile
layout(constant_id = 2) const uint BN = 64;     // anchors per tile
layout(constant_id = 3) const uint BK = 16;     // slice of d
layout(constant_id = 4) const uint TM = 4;      // multiple of 4
layout(constant_id = 5) const uint TN = 4;      // multiple of 4
layout(constant_id = 6) const bool VEC = true;  // d % 4 == 0

layout(push_constant) uniform Push {
    uint n, d, m;
    uint tiles_m, tiles_n; // point tiles, anchor tiles
    uint slices;           // ceil(d / BK)
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 xs4[]; };
layout(std430, set = 0, binding = 1) readonly buffer A { float as_[]; };
layout(std430, set = 0, binding = 1) readonly buffer A4 { vec4 as4[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Asg { uint asg[]; };
layout(std430, set = 0, binding = 3) writeonly buffer D { float dist[]; };
layout(std430, set = 0, binding = 4) readonly buffer N { float norms[]; };

const uint THREADS = gl_WorkGroupSize.x;
const uint THREADS_M = BM / TM;
const uint THREADS_N = BN / TN;
const uint XS_STRIDE = BM + 4u;             // floats per k-row of the transposed point tile
const uint AS_STRIDE = BN + 4u;             // floats per k-row of the transposed anchor tile
const uint X_STAGE = BK * XS_STRIDE / 4u;   // vec4 per stage
const uint A_STAGE = BK * AS_STRIDE / 4u;
const uint X_UNITS = BM * BK / 4u / THREADS; // 4-float load units per invocation
const uint A_UNITS = BN * BK / 4u / THREADS;
const uint NONE = 0xFFFFFFFFu;

shared vec4 Xs[2u * X_STAGE];
shared vec4 As[2u * A_STAGE];
shared uint best_d[BM], best_j[BM];

vec4 rx[X_UNITS]; // the next slice, on its way from global to shared memory
vec4 ra[A_UNITS];

// Unit u of a slice at k0: row r0 + u / (BK/4), columns k0 + 4 * (u % (BK/4)) + 0..3.
void load_x(uint m0, uint k0)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0u; i < X_UNITS; i++) {
        uint u = tid + i * THREADS;
        uint row = m0 + u / (BK / 4u), col = k0 + 4u * (u % (BK / 4u));
        if (VEC) {
            rx[i] = row < pc.n && col < pc.d ? xs4[(row * pc.d + col) / 4u] : vec4(0.0);
        } else {
            [[unroll]] for (uint j = 0u; j < 4u; j++)
                rx[i][j] = row < pc.n && col + j < pc.d ? xs[row * pc.d + col + j] : 0.0;
        }
    }
}

void load_a(uint n0, uint k0)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0u; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        uint row = n0 + u / (BK / 4u), col = k0 + 4u * (u % (BK / 4u));
        if (VEC) {
            ra[i] = row < pc.m && col < pc.d ? as4[(row * pc.d + col) / 4u] : vec4(0.0);
        } else {
            [[unroll]] for (uint j = 0u; j < 4u; j++)
                ra[i][j] = row < pc.m && col + j < pc.d ? as_[row * pc.d + col + j] : 0.0;
        }
    }
}

// Both tiles transposed: Xs[k][row], As[k][row].
void store_slice(uint stage)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0u; i < X_UNITS; i++) {
        uint u = tid + i * THREADS;
        uint row = u / (BK / 4u), kq = u % (BK / 4u);
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            uint f = (4u * kq + j) * XS_STRIDE + row;
            Xs[stage * X_STAGE + f / 4u][f % 4u] = rx[i][j];
        }
    }
    [[unroll]] for (uint i = 0u; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        uint row = u / (BK / 4u), kq = u % (BK / 4u);
        [[unroll]] for (uint j = 0u; j < 4u; j++) {
            uint f = (4u * kq + j) * AS_STRIDE + row;
            As[stage * A_STAGE + f / 4u][f % 4u] = ra[i][j];
        }
    }
}

// Row (within the tile) of this invocation's microtile row i.
uint tile_row(uint i, uint ty)
{
    return (i / 4u) * 4u * THREADS_M + 4u * ty + i % 4u;
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    const uint tx = tid % THREADS_N, ty = tid / THREADS_N;
    const uint total = pc.tiles_n * pc.slices;
    for (uint t = gl_WorkGroupID.x; t < pc.tiles_m; t += gl_NumWorkGroups.x) {
        const uint m0 = t * BM;
        float xn[TM], bd[TM];
        uint bj[TM];
        [[unroll]] for (uint i = 0u; i < TM; i++) {
            uint row = m0 + tile_row(i, ty);
            xn[i] = row < pc.n ? norms[row] : 0.0;
            bd[i] = 0.0;
            bj[i] = NONE;
        }
        if (tid < BM) { // read by this invocation at the end of the previous tile
            best_d[tid] = NONE;
            best_j[tid] = NONE;
        }
        vec4 acc[TM][TN / 4u];
        [[unroll]] for (uint i = 0u; i < TM; i++)
            [[unroll]] for (uint j = 0u; j < TN / 4u; j++)
                acc[i][j] = vec4(0.0);

        load_x(m0, 0u);
        load_a(0u, 0u);
        store_slice(0u);
        barrier();
        uint nt = 0u, s = 0u; // anchor tile and slice of step q
        for (uint q = 0u; q < total; q++) {
            const uint stage = q & 1u;
            const bool more = q + 1u < total;
            const bool last_slice = s + 1u == pc.slices;
            const uint nt1 = last_slice ? nt + 1u : nt, s1 = last_slice ? 0u : s + 1u;
            if (more) { // issue the next slice's global loads before the arithmetic
                load_x(m0, s1 * BK);
                load_a(nt1 * BN, s1 * BK);
            }
            [[unroll]] for (uint kk = 0u; kk < BK; kk++) {
                vec4 xv[TM / 4u], av[TN / 4u];
                [[unroll]] for (uint i = 0u; i < TM / 4u; i++)
                    xv[i] = Xs[stage * X_STAGE + kk * (XS_STRIDE / 4u) + i * THREADS_M + ty];
                [[unroll]] for (uint j = 0u; j < TN / 4u; j++)
                    av[j] = As[stage * A_STAGE + kk * (AS_STRIDE / 4u) + j * THREADS_N + tx];
                [[unroll]] for (uint i = 0u; i < TM; i++)
                    [[unroll]] for (uint j = 0u; j < TN / 4u; j++)
                        acc[i][j] += xv[i / 4u][i % 4u] * av[j];
            }
            if (last_slice) { // anchor tile nt is complete: distances, per-row best
                // Branch-free on purpose: with data-dependent branches in this loop nest the
                // NVIDIA compiler stopped unrolling it at TM = 8 and put acc in local memory
                // (13x slower; XPB_VULKAN_PIPELINE_STATS shows it as Local Memory Size).
                const uint n0 = nt * BN;
                [[unroll]] for (uint j = 0u; j < TN / 4u; j++) {
                    const uint col0 = n0 + j * 4u * THREADS_N + 4u * tx;
                    vec4 an;
                    bvec4 in_m;
                    [[unroll]] for (uint c = 0u; c < 4u; c++) {
                        in_m[c] = col0 + c < pc.m;
                        an[c] = norms[pc.n + min(col0 + c, pc.m - 1u)];
                    }
                    [[unroll]] for (uint i = 0u; i < TM; i++) {
                        vec4 dd = (vec4(xn[i]) - 2.0 * acc[i][j]) + an;
                        dd = mix(vec4(0.0), dd, greaterThan(dd, vec4(0.0))); // -0.0, NaN -> +0.0
                        [[unroll]] for (uint c = 0u; c < 4u; c++) {
                            bool take = all(bvec2(in_m[c], any(bvec2(bj[i] == NONE, dd[c] < bd[i]))));
                            bd[i] = take ? dd[c] : bd[i];
                            bj[i] = take ? col0 + c : bj[i];
                        }
                    }
                }
                [[unroll]] for (uint i = 0u; i < TM; i++)
                    [[unroll]] for (uint j = 0u; j < TN / 4u; j++)
                        acc[i][j] = vec4(0.0);
            }
            if (more)
                store_slice(stage ^ 1u); // stage^1 was last read before the previous barrier
            barrier();
            nt = nt1;
            s = s1;
        }

        // merge the THREADS_N invocations of each row: smallest bits, then lowest column
        [[unroll]] for (uint i = 0u; i < TM; i++) {
            uint rl = tile_row(i, ty);
            if (m0 + rl < pc.n && bj[i] != NONE)
                atomicMin(best_d[rl], floatBitsToUint(bd[i]));
        }
        barrier();
        [[unroll]] for (uint i = 0u; i < TM; i++) {
            uint rl = tile_row(i, ty);
            if (m0 + rl < pc.n && bj[i] != NONE && floatBitsToUint(bd[i]) == best_d[rl])
                atomicMin(best_j[rl], bj[i]);
        }
        barrier();
        if (tid < BM && m0 + tid < pc.n) {
            asg[m0 + tid] = best_j[tid];
            dist[m0 + tid] = uintBitsToFloat(best_d[tid]);
        }
    }
}
