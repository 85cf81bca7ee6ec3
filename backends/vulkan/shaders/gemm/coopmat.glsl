// coopmat.glsl - the body of vulkan/coopmat (coopmat.c): c = alpha * A * B + beta * c_in with fp16
// A and B, fp32 accumulation, on 16x16x16 cooperative matrices (included by coopmat.comp, which
// uses GL_NV_cooperative_matrix, and by coopmat_emu.comp, which emulates the four matrix
// operations below with shared-memory arithmetic so that the tiling can be tested on lavapipe).
//
// Inputs: A16 (Mp x Kp) and B16 (Kp x Np), fp16, row-major, made by f32_to_f16.comp in prepare()
// and zero-padded to multiples of the tile (Mp of BM, Np of BN, Kp of BK), so no load needs a
// bounds check; each uvec4 holds 8 consecutive fp16 values.
// Tiling: a workgroup computes a BM x BN tile of C with NWARPS = (BM/WM) * (BN/WN) subgroups of
// 32; each subgroup a WM x WN block as (WM/16) x (WN/16) fp32 accumulator matrices. K advances BK
// at a time through two shared-memory stages (rows padded by 8 fp16 = 16 bytes, which spreads a
// matrix load's 8 rows over all 32 banks); the next slice is loaded into registers while the
// current one is multiplied, then stored to the other stage; one barrier per slice.
// Epilogue: each accumulator goes through a 16 x 16 fp32 staging tile per subgroup in shared
// memory; a lane then writes 8 consecutive values of one row with alpha, beta (c_in read only when
// beta != 0) and the bounds of M and N.
// Tiles are numbered in groups of GROUP_M row tiles (L2 reuse) and visited grid-stride.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;                   // NWARPS * 32
layout(constant_id = 1) const uint BM = 128;
layout(constant_id = 2) const uint BN = 128;
layout(constant_id = 3) const uint BK = 32;       // multiple of 16
layout(constant_id = 4) const uint WM = 64;       // multiple of 16
layout(constant_id = 5) const uint WN = 64;       // multiple of 16
layout(constant_id = 6) const bool VEC_C = true;  // N % 4 == 0

#include "coopmat_io.glsl"

shared uvec4 As[2u * A_STAGE];
shared uvec4 Bs[2u * B_STAGE];
shared float Cs[NWARPS * 16u * CS]; // fp32 matrices store to float arrays only (glslang)

// ---- the four matrix operations: cooperative matrices, or their emulation --------------------
#ifndef XPB_CM_EMULATE
#define FRAG fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define ACC fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define ACC_ZERO(x) x = ACC(0.0)
#define LOAD_A(f, at) coopMatLoadNV(f, As, at, AS, false)
#define LOAD_B(f, at) coopMatLoadNV(f, Bs, at, BS, false)
#define MMA(acc, fa, fb) acc = coopMatMulAddNV(fa, fb, acc)
#define STORE_C(acc, at) coopMatStoreNV(acc, Cs, at, CS, false)
#define WARP_ID gl_SubgroupID
#define LANE_ID gl_SubgroupInvocationID
#define WARP_SYNC() subgroupMemoryBarrierShared(); subgroupBarrier()
#else
#define EMU_A As
#define EMU_B Bs
#define EMU_STAGING Cs
#define FRAG uint
#define ACC acc_t
#define ACC_ZERO(x) [[unroll]] for (uint z_ = 0; z_ < 8u; z_++) x.v[z_] = 0.0
#define LOAD_A(f, at) f = (at)
#define LOAD_B(f, at) f = (at)
#define MMA(acc, fa, fb) emu_mma(acc, fa, fb)
#define STORE_C(acc, at) emu_store_staging(acc, at)
#define WARP_ID (gl_LocalInvocationIndex / 32u)
#define LANE_ID (gl_LocalInvocationIndex % 32u)
#define WARP_SYNC() memoryBarrierShared(); barrier()
#include "coopmat_emu.glsl"
#endif

// ---- the tiling -----------------------------------------------------------------------------

uvec4 ra[A_UNITS];
uvec4 rb[B_UNITS];

void load_slice(uint m0, uint n0, uint k0)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        ra[i] = a16[(m0 + u / (BK / 8u)) * (pc.kp / 8u) + k0 / 8u + u % (BK / 8u)];
    }
    [[unroll]] for (uint i = 0; i < B_UNITS; i++) {
        uint u = tid + i * THREADS;
        rb[i] = b16[(k0 + u / (BN / 8u)) * (pc.np / 8u) + n0 / 8u + u % (BN / 8u)];
    }
}

void store_slice(uint stage)
{
    const uint tid = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0; i < A_UNITS; i++) {
        uint u = tid + i * THREADS;
        As[stage * A_STAGE + (u / (BK / 8u)) * AS + u % (BK / 8u)] = ra[i];
    }
    [[unroll]] for (uint i = 0; i < B_UNITS; i++) {
        uint u = tid + i * THREADS;
        Bs[stage * B_STAGE + (u / (BN / 8u)) * BS + u % (BN / 8u)] = rb[i];
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

        load_slice(m0, n0, 0u);
        store_slice(0u);
        barrier();
        for (uint s = 0; s < slices; s++) {
            uint stage = s & 1u;
            bool more = s + 1u < slices;
            if (more)
                load_slice(m0, n0, (s + 1u) * BK);
            [[unroll]] for (uint ks = 0; ks < BK / 16u; ks++) {
                FRAG fa[TI];
                [[unroll]] for (uint i = 0; i < TI; i++)
                    LOAD_A(fa[i], stage * A_STAGE + (wm * WM + i * 16u) * AS + ks * 2u);
                [[unroll]] for (uint j = 0; j < TJ; j++) { // one B matrix live at a time
                    FRAG fb;
                    LOAD_B(fb, stage * B_STAGE + ks * 16u * BS + (wn * WN + j * 16u) / 8u);
                    [[unroll]] for (uint i = 0; i < TI; i++)
                        MMA(acc[i][j], fa[i], fb);
                }
            }
            if (more)
                store_slice(stage ^ 1u); // stage^1 was last read before the previous barrier
            barrier();
        }

        const uint stage_at = warp * 16u * CS;
        const uint r = lane / 2u, h = lane % 2u;
        [[unroll]] for (uint i = 0; i < TI; i++) {
            [[unroll]] for (uint j = 0; j < TJ; j++) {
                STORE_C(acc[i][j], stage_at);
                WARP_SYNC();
                uint row = m0 + wm * WM + i * 16u + r, col = n0 + wn * WN + j * 16u + 8u * h;
                uint at = stage_at + r * CS + 8u * h;
                store_c(row, col, vec4(Cs[at], Cs[at + 1u], Cs[at + 2u], Cs[at + 3u]));
                store_c(row, col + 4u, vec4(Cs[at + 4u], Cs[at + 5u], Cs[at + 6u], Cs[at + 7u]));
                WARP_SYNC(); // the staging tile is free again
            }
        }
    }
}
