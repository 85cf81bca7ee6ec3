// coopmat_khr.glsl - the body of vulkan/coopmat-khr (coopmat_khr.c): c = alpha * A * B + beta * c_in
// with fp16 A and B and fp32 accumulation on 16x16x16 cooperative matrices. Included by
// coopmat_khr.khr.comp (GL_KHR_cooperative_matrix, compiled by glslangValidator >= 13) and by
// coopmat_khr_emu.comp (glslc; the matrix operations emulated in shared memory, so that the tiling,
// indexing and both epilogues can be tested on lavapipe).
//
// Inputs: A16 (Mp x Kp) and B16 (Kp x Np), fp16, row-major, made by f32_to_f16.comp in prepare()
// and zero-padded to whole tiles (Mp of BM, Np of BN, Kp of BK): the main loop has no bounds
// checks. Each uvec4 holds 8 consecutive fp16 values, so every global load is 16 bytes.
// Tiling: a workgroup computes a BM x BN tile of C with NWARPS = (BM/WM) * (BN/WN) subgroups of 32,
// each a WM x WN block as (WM/16) x (WN/16) fp32 accumulators. K advances BK at a time.
// Pipeline of STAGES slices: the one being multiplied, from one of two shared-memory buffers (rows
// padded by 8 fp16 = 16 bytes: the 8 rows of a 16-byte-per-row matrix load then fall on distinct
// banks), and STAGES - 1 in flight in registers. Vulkan GLSL has no asynchronous global->shared
// copy, so the depth of the pipeline is in registers (R = STAGES - 1 sets): slice s + R is loaded
// while slice s is multiplied, and slice s + 1, loaded R slices earlier, is stored into the other
// buffer after it; one barrier per slice. Two shared buffers suffice for any R (the store goes to
// the buffer nobody reads in this slice, whose last readers passed the previous barrier), so
// STAGES costs registers, 16 bytes x (BM*BK + BK*BN)/8/invocations per extra stage, not shared
// memory. The loop is unrolled by R so each register set has a constant index.
// coopMatLoad reads straight from the buffers; one B matrix is live at a time, TI A matrices.
// Epilogue: where the tile is interior (m0 + BM <= M, n0 + BN <= N), beta == 0 and N % 4 == 0
// (16-byte rows), each accumulator, times alpha, is stored straight to C with coopMatStore;
// elsewhere it goes through a 16 x 20 fp32 staging tile per subgroup (its own float array: the
// pattern vulkan/coopmat uses on the same drivers, rather than an fp32 store into the uvec4
// buffers) and the lanes write C with alpha, beta (c_in read only when beta != 0) and the bounds.
// Tiles are numbered in groups of GROUP_M row tiles (L2 reuse) and visited grid-stride.
#extension GL_EXT_control_flow_attributes : require

// Declared per body, not in coopmat_io.glsl: the defaults differ and STAGES is KHR only (the host sets all).
layout(local_size_x_id = 0) in;                   // NWARPS * 32
layout(constant_id = 1) const uint BM = 128;
layout(constant_id = 2) const uint BN = 256;
layout(constant_id = 3) const uint BK = 16;       // multiple of 16
layout(constant_id = 4) const uint WM = 64;       // multiple of 16
layout(constant_id = 5) const uint WN = 64;       // multiple of 16
layout(constant_id = 6) const bool VEC_C = true;  // N % 4 == 0
layout(constant_id = 7) const uint STAGES = 2;    // >= 2: slices in flight (R = STAGES - 1 in registers)

#include "coopmat_io.glsl"
const uint B_BASE = 2u * A_STAGE;                // the B buffers follow the A buffers
const uint R = STAGES - 1u;                      // register sets

shared uvec4 smem[2u * (A_STAGE + B_STAGE)];     // the two buffers
shared float cs[NWARPS * 16u * CS];              // the epilogue's staging tiles

// ---- the matrix operations: cooperative matrices, or their emulation ------------------------
#ifndef XPB_CM_EMULATE
#define FRAG_A coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseA>
#define FRAG_B coopmat<float16_t, gl_ScopeSubgroup, 16, 16, gl_MatrixUseB>
#define ACC coopmat<float, gl_ScopeSubgroup, 16, 16, gl_MatrixUseAccumulator>
#define ROW_MAJOR gl_CooperativeMatrixLayoutRowMajor
#define ACC_ZERO(x) x = ACC(0.0)
#define LOAD_A(f, at) coopMatLoad(f, smem, at, AS, ROW_MAJOR)
#define LOAD_B(f, at) coopMatLoad(f, smem, at, BS, ROW_MAJOR)
#define MMA(acc, fa, fb) acc = coopMatMulAdd(fa, fb, acc)
#define STORE_STAGING(acc, at) coopMatStore(acc, cs, at, CS, ROW_MAJOR)
#define STORE_GLOBAL(acc, at) { ACC t_ = acc * pc.alpha; coopMatStore(t_, c, at, pc.n, ROW_MAJOR); }
#define WARP_ID gl_SubgroupID
#define LANE_ID gl_SubgroupInvocationID
#define WARP_SYNC() subgroupMemoryBarrierShared(); subgroupBarrier()
#else
#define EMU_A smem
#define EMU_B smem
#define EMU_STAGING cs
#define FRAG_A uint
#define FRAG_B uint
#define ACC acc_t
#define ACC_ZERO(x) [[unroll]] for (uint z_ = 0; z_ < 8u; z_++) x.v[z_] = 0.0
#define LOAD_A(f, at) f = (at)
#define LOAD_B(f, at) f = (at)
#define MMA(acc, fa, fb) emu_mma(acc, fa, fb)
#define STORE_STAGING(acc, at) emu_store_staging(acc, at)
#define STORE_GLOBAL(acc, at) emu_store_global(acc, at)
#define WARP_ID (gl_LocalInvocationIndex / 32u)
#define LANE_ID (gl_LocalInvocationIndex % 32u)
#define WARP_SYNC() memoryBarrierShared(); barrier()
#include "coopmat_emu.glsl"

void emu_store_global(acc_t acc, uint at)
{
    uint lane = LANE_ID;
    for (uint e = 0; e < 8u; e++) {
        uint r = lane / 16u + 2u * e, col = lane % 16u;
        c[at + r * pc.n + col] = pc.alpha * acc.v[e];
    }
}
#endif

// ---- the tiling -----------------------------------------------------------------------------

uvec4 ra[R][A_UNITS];
uvec4 rb[R][B_UNITS];

// Issues slice k0's global loads into register set `set` (a constant after unrolling).
void load_slice(uint set, uint m0, uint n0, uint k0)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        ra[set][i] = a16[(m0 + u / (BK / 8u)) * (pc.kp / 8u) + k0 / 8u + u % (BK / 8u)];
    }
    [[unroll]] for (uint i = 0; i < B_UNITS; i++) {
        uint u = tid + i * THREADS;
        rb[set][i] = b16[(k0 + u / (BN / 8u)) * (pc.np / 8u) + n0 / 8u + u % (BN / 8u)];
    }
}

void store_slice(uint set, uint buf)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        smem[buf * A_STAGE + (u / (BK / 8u)) * AS + u % (BK / 8u)] = ra[set][i];
    }
    [[unroll]] for (uint i = 0; i < B_UNITS; i++) {
        uint u = tid + i * THREADS;
        smem[B_BASE + buf * B_STAGE + (u / (BN / 8u)) * BS + u % (BN / 8u)] = rb[set][i];
    }
}

#include "coopmat_store.glsl"

void main()
{
    const uint warp = WARP_ID, lane = LANE_ID;
    const uint wm = warp / WARPS_N, wn = warp % WARPS_N;
    const uint slices = pc.kp / BK;
    for (uint t = gl_WorkGroupID.x; t < pc.tiles_m * pc.tiles_n; t += gl_NumWorkGroups.x) {
        uvec2 tc = tile_coords(t);
        uint m0 = tc.x * BM, n0 = tc.y * BN;
        ACC acc[TI][TJ];
        [[unroll]] for (uint i = 0; i < TI; i++)
            [[unroll]] for (uint j = 0; j < TJ; j++)
                ACC_ZERO(acc[i][j]);

        // Prologue: slice 0 into buffer 0, slices 1 .. R-1 in flight (slice q in set q % R).
        load_slice(0u, m0, n0, 0u);
        store_slice(0u, 0u);
        [[unroll]] for (uint q = 1u; q < R; q++)
            if (q < slices)
                load_slice(q, m0, n0, q * BK);
        barrier();
        for (uint s0 = 0; s0 < slices; s0 += R) {
            [[unroll]] for (uint r = 0; r < R; r++) { // s % R == r
                uint s = s0 + r;
                if (s >= slices)
                    break;
                uint buf = s & 1u;
                if (s + R < slices) // set r held slice s, stored before the last barrier
                    load_slice(r, m0, n0, (s + R) * BK);
                [[unroll]] for (uint ks = 0; ks < BK / 16u; ks++) {
                    FRAG_A fa[TI];
                    [[unroll]] for (uint i = 0; i < TI; i++)
                        LOAD_A(fa[i], buf * A_STAGE + (wm * WM + i * 16u) * AS + ks * 2u);
                    [[unroll]] for (uint j = 0; j < TJ; j++) {
                        FRAG_B fb;
                        LOAD_B(fb, B_BASE + buf * B_STAGE + ks * 16u * BS + (wn * WN + j * 16u) / 8u);
                        [[unroll]] for (uint i = 0; i < TI; i++)
                            MMA(acc[i][j], fa[i], fb);
                    }
                }
                // Slice s + 1 (set (r + 1) % R) into the other buffer: its last readers (slice
                // s - 1) passed the previous barrier.
                if (s + 1u < slices)
                    store_slice((r + 1u) % R, buf ^ 1u);
                barrier();
            }
        }

        if (VEC_C && pc.beta == 0.0 && m0 + BM <= pc.m && n0 + BN <= pc.n) {
            // Interior tile: straight to C, no staging, no bounds.
            [[unroll]] for (uint i = 0; i < TI; i++)
                [[unroll]] for (uint j = 0; j < TJ; j++)
                    STORE_GLOBAL(acc[i][j], (m0 + wm * WM + i * 16u) * pc.n + n0 + wn * WN + j * 16u);
        } else {
            const uint stage_at = warp * 16u * CS;
            const uint r = lane / 2u, h = lane % 2u;
            [[unroll]] for (uint i = 0; i < TI; i++) {
                [[unroll]] for (uint j = 0; j < TJ; j++) {
                    STORE_STAGING(acc[i][j], stage_at);
                    WARP_SYNC();
                    uint row = m0 + wm * WM + i * 16u + r, col = n0 + wn * WN + j * 16u + 8u * h;
                    uint at = stage_at + r * CS + 8u * h;
                    store_c(row, col, vec4(cs[at], cs[at + 1u], cs[at + 2u], cs[at + 3u]));
                    store_c(row, col + 4u, vec4(cs[at + 4u], cs[at + 5u], cs[at + 6u], cs[at + 7u]));
                    WARP_SYNC(); // the staging tile is free again
                }
            }
        }
        // No barrier here: the main loop ended with one, so the next tile's prologue overwrites
        // no buffer anybody still reads, and the staging tiles are per subgroup.
    }
}
