#version 450
// tiled.comp - fp32 GEMM c = alpha * A(MxK) * B(KxN) + beta * c_in, row-major (tiled.c launches
// it). Any M, N, K.
//
// A workgroup computes a BM x BN tile of C; each of its (BM/TM) * (BN/TN) invocations owns a
// TM x TN microtile in registers (vec4 acc[TM][TN/4]), spread as TM/4 x TN/4 blocks of 4 x 4 that
// sit 4*THREADS_M rows / 4*THREADS_N columns apart, so that a warp's shared-memory reads are
// broadcasts (A) or one contiguous 16-byte-per-lane run (B): conflict-free LDS.128.
// K advances BK at a time through two shared-memory stages: while the workgroup multiplies stage
// s, each invocation holds the next BK slice of A and B in registers and writes it to stage s^1
// afterwards; one barrier per slice. A is stored transposed (As[k][m], rows padded by A_PAD = 4
// floats so the transposing stores collide at most 2-way on a bank; 0 where only that fits), B as
// it is (Bs[k][n]).
// MID_STORE moves the hand-over half a slice earlier: halfway through slice s's arithmetic the
// invocation stores slice s + 1 (loaded during slice s - 1) and issues the loads of slice s + 2,
// so a load has a whole slice of arithmetic to land even if the compiler issues it late. Why:
// with 64 accumulators an invocation is at the register limit, and NVIDIA's compiler then moves
// loads that are only consumed after the arithmetic down to its end, where nothing hides them
// (seen in the SASS of the CUDA kernel of the same algorithm, docs/performance.md session 10).
// Same two stages, same one barrier per slice: stage s^1 was last read before the previous
// barrier, so storing into it mid-slice is safe.
// Global loads go in units of 4 consecutive floats (along K for A, along N for B): one vec4 load
// when VEC_A (K % 4 == 0) / VEC_B (N % 4 == 0), else four bounds-checked scalar loads. Out-of-range
// elements load as 0, so edge tiles need no other care; the epilogue checks row < M, col < N.
// EDGES = false (M, N, K whole tiles, vec4 loads) drops every check: fewer instructions a load.
// c_in is read only when beta != 0 (the harness poisons c, and binds c in c_in's place when
// beta == 0).
// Tiles are numbered for L2 reuse (GROUP_M row tiles sweep the columns together) and visited
// grid-stride, so any grid size works (lavapipe caps a dimension at 65535 workgroups).
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;                 // (BM / TM) * (BN / TN)
layout(constant_id = 1) const uint BM = 128;
layout(constant_id = 2) const uint BN = 128;
layout(constant_id = 3) const uint BK = 8;
layout(constant_id = 4) const uint TM = 8;      // multiple of 4
layout(constant_id = 5) const uint TN = 8;      // multiple of 4
layout(constant_id = 6) const bool VEC_A = true; // K % 4 == 0
layout(constant_id = 7) const bool VEC_B = true; // N % 4 == 0
layout(constant_id = 8) const bool WARP_LANES = false; // lanes 4 x 8 per 32 invocations (below)
layout(constant_id = 9) const uint A_PAD = 4;   // floats after each k-row of the A tile (0 or 4)
layout(constant_id = 10) const bool EDGES = true; // false: M, N, K are whole tiles, no bounds checks
layout(constant_id = 11) const bool MID_STORE = false; // the register-staged slice is stored mid-slice (below)

layout(push_constant) uniform Push {
    uint m, n, k;
    uint tiles_m, tiles_n; // row and column tiles
    uint group_m;          // row tiles per L2 group
    float alpha, beta;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 0) readonly buffer A4 { vec4 a4[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 1) readonly buffer B4 { vec4 b4[]; };
layout(std430, set = 0, binding = 2) readonly buffer Ci { float ci[]; };
layout(std430, set = 0, binding = 2) readonly buffer Ci4 { vec4 ci4[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C { float c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C4 { vec4 c4[]; };

const uint THREADS = gl_WorkGroupSize.x;
const uint THREADS_M = BM / TM;
const uint THREADS_N = BN / TN;
const uint AS_STRIDE = BM + A_PAD;                 // floats per k-row of the transposed A tile
const uint A_STAGE = BK * AS_STRIDE / 4u;          // vec4 per stage
const uint B_STAGE = BK * BN / 4u;
const uint A_UNITS = BM * BK / 4u / THREADS;       // 4-float load units per invocation
const uint B_UNITS = BK * BN / 4u / THREADS;

shared vec4 As[2u * A_STAGE];
shared vec4 Bs[2u * B_STAGE];

vec4 ra[A_UNITS]; // the next slice, on its way from global to shared memory
vec4 rb[B_UNITS];

// Unit u of the A slice at k0: row u / (BK/4), columns k0 + 4 * (u % (BK/4)) + 0..3.
void load_a(uint m0, uint k0)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        uint row = m0 + u / (BK / 4u), col = k0 + 4u * (u % (BK / 4u));
        if (VEC_A) {
            ra[i] = !EDGES || (row < pc.m && col < pc.k) ? a4[(row * pc.k + col) / 4u] : vec4(0.0);
        } else {
            [[unroll]] for (uint j = 0; j < 4u; j++)
                ra[i][j] = row < pc.m && col + j < pc.k ? a[row * pc.k + col + j] : 0.0;
        }
    }
}

// Unit u of the B slice at k0: row k0 + u / (BN/4), columns n0 + 4 * (u % (BN/4)) + 0..3.
void load_b(uint n0, uint k0)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0; i < B_UNITS; i++) {
        uint u = tid + i * THREADS;
        uint row = k0 + u / (BN / 4u), col = n0 + 4u * (u % (BN / 4u));
        if (VEC_B) {
            rb[i] = !EDGES || (row < pc.k && col < pc.n) ? b4[(row * pc.n + col) / 4u] : vec4(0.0);
        } else {
            [[unroll]] for (uint j = 0; j < 4u; j++)
                rb[i][j] = row < pc.k && col + j < pc.n ? b[row * pc.n + col + j] : 0.0;
        }
    }
}

void store_slice(uint stage)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) { // transposed: As[k][m]
        uint u = tid + i * THREADS;
        uint row = u / (BK / 4u), kq = u % (BK / 4u);
        [[unroll]] for (uint j = 0; j < 4u; j++) {
            uint f = (4u * kq + j) * AS_STRIDE + row;
            As[stage * A_STAGE + f / 4u][f % 4u] = ra[i][j];
        }
    }
    [[unroll]] for (uint i = 0; i < B_UNITS; i++)
        Bs[stage * B_STAGE + tid + i * THREADS] = rb[i];
}

// Tile t in GROUP_M-row-tile groups: (row tile, column tile).
uvec2 tile_coords(uint t)
{
    uint per_group = pc.group_m * pc.tiles_n;
    uint first_m = (t / per_group) * pc.group_m;
    uint rows = min(pc.tiles_m - first_m, pc.group_m);
    uint r = t % per_group;
    return uvec2(first_m + r % rows, r / rows);
}

void store_c(uint row, uint col, vec4 v)
{
    if (EDGES && row >= pc.m)
        return;
    uint at = row * pc.n + col;
    if (VEC_B) { // N % 4 == 0: the 4 columns are all in or all out
        if (EDGES && col >= pc.n)
            return;
        v *= pc.alpha;
        if (pc.beta != 0.0)
            v += pc.beta * ci4[at / 4u];
        c4[at / 4u] = v;
    } else {
        [[unroll]] for (uint j = 0; j < 4u; j++) {
            if (col + j < pc.n) {
                float r = pc.alpha * v[j];
                if (pc.beta != 0.0)
                    r += pc.beta * ci[at + j];
                c[at + j] = r;
            }
        }
    }
}

void main()
{
    const uint tid = gl_LocalInvocationIndex;
    // Which microtile an invocation owns. WARP_LANES (THREADS_N % 8 == 0, THREADS_M % 4 == 0):
    // each 32 consecutive invocations (a warp on NVIDIA) take a 4 x 8 block of microtiles, so a
    // warp's shared reads per k are 4 vec4 of A and 8 of B (192 bytes) instead of 2 and 16 (288)
    // for the row-by-row order; any other subgroup size still gets a correct permutation.
    uint tx = tid % THREADS_N, ty = tid / THREADS_N;
    if (WARP_LANES) {
        const uint w = tid / 32u, l = tid % 32u, warps_n = THREADS_N / 8u;
        ty = (w / warps_n) * 4u + l / 8u;
        tx = (w % warps_n) * 8u + l % 8u;
    }
    const uint slices = (pc.k + BK - 1u) / BK;
    for (uint t = gl_WorkGroupID.x; t < pc.tiles_m * pc.tiles_n; t += gl_NumWorkGroups.x) {
        uvec2 tc = tile_coords(t);
        uint m0 = tc.x * BM, n0 = tc.y * BN;
        vec4 acc[TM][TN / 4u];
        [[unroll]] for (uint i = 0; i < TM; i++)
            [[unroll]] for (uint j = 0; j < TN / 4u; j++)
                acc[i][j] = vec4(0.0);

        load_a(m0, 0u);
        load_b(n0, 0u);
        store_slice(0u);
        if (MID_STORE && slices > 1u) {
            load_a(m0, BK);
            load_b(n0, BK);
        }
        barrier();
        for (uint s = 0; s < slices; s++) {
            uint stage = s & 1u;
            bool more = s + 1u < slices;
            if (!MID_STORE && more) { // issue the next slice's global loads before the arithmetic
                load_a(m0, (s + 1u) * BK);
                load_b(n0, (s + 1u) * BK);
            }
            [[unroll]] for (uint kk = 0; kk < BK; kk++) {
                if (MID_STORE && kk == BK / 2u) {
                    if (more)
                        store_slice(stage ^ 1u); // slice s + 1; stage^1 was last read before the previous barrier
                    if (s + 2u < slices) {
                        load_a(m0, (s + 2u) * BK);
                        load_b(n0, (s + 2u) * BK);
                    }
                }
                vec4 av[TM / 4u], bv[TN / 4u];
                [[unroll]] for (uint i = 0; i < TM / 4u; i++)
                    av[i] = As[stage * A_STAGE + kk * (AS_STRIDE / 4u) + i * THREADS_M + ty];
                [[unroll]] for (uint j = 0; j < TN / 4u; j++)
                    bv[j] = Bs[stage * B_STAGE + kk * (BN / 4u) + j * THREADS_N + tx];
                [[unroll]] for (uint i = 0; i < TM; i++)
                    [[unroll]] for (uint j = 0; j < TN / 4u; j++)
                        acc[i][j] += av[i / 4u][i % 4u] * bv[j];
            }
            if (!MID_STORE && more)
                store_slice(stage ^ 1u); // stage^1 was last read before the previous barrier
            barrier();
        }

        [[unroll]] for (uint i = 0; i < TM; i++) {
            uint row = m0 + (i / 4u) * 4u * THREADS_M + 4u * ty + i % 4u;
            [[unroll]] for (uint j = 0; j < TN / 4u; j++)
                store_c(row, n0 + j * 4u * THREADS_N + 4u * tx, acc[i][j]);
        }
    }
}
