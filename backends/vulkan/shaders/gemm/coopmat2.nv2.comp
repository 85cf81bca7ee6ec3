#version 450
// coopmat2.nv2.comp - vulkan/coopmat2 (coopmat2.c): c = alpha * A * B + beta * c_in with fp16 A and B
// and fp32 accumulation on workgroup-scope cooperative matrices (GL_NV_cooperative_matrix2).
// The .nv2.comp suffix makes the build compile it with the glslang inside PyPI's slangpy wheel
// (scripts/glslang-slang.py): glslc and glslangValidator 13 do not know GL_NV_cooperative_matrix2.
//
// A workgroup owns a BM x BN tile of C as ONE accumulator matrix of workgroup scope and walks K
// BK at a time: per step it loads a BM x BK matrix of A and a BK x BN matrix of B straight from
// the buffers through tensor layouts and multiplies; how the matrices are split over subgroups,
// staged through shared memory and fed to the tensor cores is left to the driver (that is the
// point of workgroup scope). Inputs: A16 (Mp x Kp) and B16 (Kp x Np, or Np x Kp with BT), the fp16 copies
// coopmat_common.c makes in prepare(), zero-padded to whole tiles, so the loads need no bounds.
// C is M x N: its tensor layout has C's true dimensions, so the store drops the elements of edge
// tiles that fall outside, and c_in (read only when beta != 0) loads them as 0 (clamp constant).
// Tiles are numbered in groups of GROUP_M row tiles (L2 reuse) and visited grid-stride.
// The K loop is unrolled UNROLL slices at a time: the driver can only overlap a slice's loads with
// the previous slice's multiply inside one basic block (a rolled loop measured far slower in
// llama.cpp's mul_mm_cm2, which unrolls 8 slices the same way).
#extension GL_KHR_cooperative_matrix : require
#extension GL_NV_cooperative_matrix2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;             // the flexible shape's workgroupInvocations
layout(constant_id = 1) const uint BM = 128;
layout(constant_id = 2) const uint BN = 256;
layout(constant_id = 3) const uint BK = 32;
layout(constant_id = 4) const uint UNROLL = 32;  // K slices per unrolled step
layout(constant_id = 5) const bool BT = false;   // B16 holds B transposed, Np x Kp (K contiguous)

layout(push_constant) uniform Push {
    uint m, n;
    uint kp, np;           // padded K (row length of A16) and N (row length of B16)
    uint tiles_m, tiles_n;
    uint group_m;
    float alpha, beta;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer A16 { float16_t a16[]; };
layout(std430, set = 0, binding = 1) readonly buffer B16 { float16_t b16[]; };
layout(std430, set = 0, binding = 2) readonly buffer Ci { float ci[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C { float c[]; };

// Tile t in groups of pc.group_m row tiles: (row tile, column tile). (coopmat_store.glsl has the
// same for the other two bodies; it also holds their checked store, which refers to buffers this
// shader does not declare.)
uvec2 tile_coords(uint t)
{
    uint per_group = pc.group_m * pc.tiles_n;
    uint first_m = (t / per_group) * pc.group_m;
    uint rows = min(pc.tiles_m - first_m, pc.group_m);
    uint r = t % per_group;
    return uvec2(first_m + r % rows, r / rows);
}

void main()
{
    // kp and np are multiples of BK and BN (>= 8): masking the low bits tells the compiler that
    // every row starts 16-byte aligned, so the tensor loads can be vectorised.
    uint kp = pc.kp & ~7u, np = pc.np & ~7u;
    tensorLayoutNV<2> la = createTensorLayoutNV(2);
    la = setTensorLayoutDimensionNV(la, pc.tiles_m * BM, kp);
    la = setTensorLayoutStrideNV(la, kp, 1);
    tensorLayoutNV<2> lb = createTensorLayoutNV(2);
    lb = setTensorLayoutDimensionNV(lb, kp, np);
    lb = setTensorLayoutStrideNV(lb, np, 1);
    // BT: B16 is Np x Kp; a BN x BK slice of it read through a transposing view is B's BK x BN
    // (llama.cpp's mul_mm_cm2 stores B this way: K contiguous in both operands).
    tensorLayoutNV<2> lbt = createTensorLayoutNV(2);
    lbt = setTensorLayoutDimensionNV(lbt, np, kp);
    lbt = setTensorLayoutStrideNV(lbt, kp, 1);
    tensorViewNV<2, false, 1, 0> transposed = createTensorViewNV(2, false, 1, 0);
#define LOAD_B(mb, k0, n0)                                                                      \
    if (BT)                                                                                     \
        coopMatLoadTensorNV(mb, b16, 0, sliceTensorLayoutNV(lbt, n0, BN, k0, BK), transposed);  \
    else                                                                                        \
        coopMatLoadTensorNV(mb, b16, 0, sliceTensorLayoutNV(lb, k0, BK, n0, BN))
    tensorLayoutNV<2, gl_CooperativeMatrixClampModeConstantNV> lc =
        createTensorLayoutNV(2, gl_CooperativeMatrixClampModeConstantNV);
    lc = setTensorLayoutDimensionNV(lc, pc.m, pc.n);
    lc = setTensorLayoutStrideNV(lc, pc.n, 1);
    lc = setTensorLayoutClampValueNV(lc, 0u);

    uint steps = kp / (BK * UNROLL);
    for (uint t = gl_WorkGroupID.x; t < pc.tiles_m * pc.tiles_n; t += gl_NumWorkGroups.x) {
        uvec2 tc = tile_coords(t);
        uint m0 = tc.x * BM, n0 = tc.y * BN;
        coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> acc =
            coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator>(0.0);
        uint k0 = 0;
        for (uint s = 0; s < steps; s++) {
            [[unroll]] for (uint j = 0; j < UNROLL; j++) {
                coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
                coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
                coopMatLoadTensorNV(ma, a16, 0, sliceTensorLayoutNV(la, m0, BM, k0, BK));
                LOAD_B(mb, k0, n0);
                acc = coopMatMulAdd(ma, mb, acc);
                k0 += BK;
            }
        }
        for (; k0 < kp; k0 += BK) { // the slices left over from whole steps
            coopmat<float16_t, gl_ScopeWorkgroup, BM, BK, gl_MatrixUseA> ma;
            coopmat<float16_t, gl_ScopeWorkgroup, BK, BN, gl_MatrixUseB> mb;
            coopMatLoadTensorNV(ma, a16, 0, sliceTensorLayoutNV(la, m0, BM, k0, BK));
            LOAD_B(mb, k0, n0);
            acc = coopMatMulAdd(ma, mb, acc);
        }
        acc = acc * pc.alpha;
        if (pc.beta != 0.0) {
            coopmat<float, gl_ScopeWorkgroup, BM, BN, gl_MatrixUseAccumulator> cin;
            coopMatLoadTensorNV(cin, ci, 0, sliceTensorLayoutNV(lc, m0, BM, n0, BN));
            acc = acc + cin * pc.beta;
        }
        coopMatStoreTensorNV(acc, c, 0, sliceTensorLayoutNV(lc, m0, BM, n0, BN));
    }
}
