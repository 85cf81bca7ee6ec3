// rowop.glsl - the shared part of the row kernels (softmax, rmsnorm, layernorm).
//
// The including shader defines ROW_PARAMS: 0 (x, out), 1 (x, w, out) or 2 (x, w, b, out); the
// bindings are numbered in that order. rowop.c picks the specialization constants:
//   MODE 0, a workgroup per row (grid-stride over rows). The row is processed in chunks of
//     CHUNK = BLOCK * VPT * 4 values, each invocation holding VPT vec4 in registers (rv). A row
//     of at most CHUNK values is read once and written from registers; a longer one is read
//     twice: a statistics pass that merges per-chunk results (online softmax, sums), then a
//     write pass (layernorm: three times, layernorm.comp says why).
//   MODE 1, an invocation per row, for rows of a few values (cols < 64): plain loops.
// Reductions: subgroupAdd / subgroupMax, then one shared slot per subgroup (NSG slots, sized by
// the host from the minimum subgroup size: 8 on lavapipe, 32 on NVIDIA; WG_REDUCE). Nothing else uses
// shared memory, so no size here depends on maxComputeSharedMemorySize (32 KB on lavapipe).
// STATS_F64 1 (defined by the including shader; needs shaderFloat64): also wg_sum64, in double.
// VEC4: cols % 4 == 0, so every row starts 16-byte aligned and the rows are read as vec4; else
// as floats, with the same register layout.
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#include "../common.glsl"

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint VPT = 4;     // vec4 registers per invocation
layout(constant_id = 2) const bool VEC4 = true; // cols % 4 == 0
layout(constant_id = 3) const uint MODE = 0;    // 0: workgroup per row, 1: invocation per row
layout(constant_id = 4) const uint NSG = 32;    // >= subgroups per workgroup
// softmax's exp: false, xpb_exp_neg (common.glsl, about 1 ulp, a dozen multiply-adds); true,
// GLSL's exp (the Vulkan contract, 3 + 2|x| ulp: what docs/validation.md's softmax bound
// already budgets; on NVIDIA a multiply and one special-function op; the host's default,
// measured faster on the H100). XPB_VULKAN_ROW_EXP.
layout(constant_id = 5) const bool EXP_BUILTIN = true;

// ROW_PUSH_EXTRA: more push constants after these three (the l2 variant, rowop_l2.glsl).
layout(push_constant) uniform Push {
    uint rows;
    uint cols;
    float eps;
#ifdef ROW_PUSH_EXTRA
    ROW_PUSH_EXTRA
#endif
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X { float xs[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 xs4[]; };
#if ROW_PARAMS >= 1
layout(std430, set = 0, binding = 1) readonly buffer W { float ws[]; };
layout(std430, set = 0, binding = 1) readonly buffer W4 { vec4 ws4[]; };
#endif
#if ROW_PARAMS >= 2
layout(std430, set = 0, binding = 2) readonly buffer B { float bs[]; };
layout(std430, set = 0, binding = 2) readonly buffer B4 { vec4 bs4[]; };
#define ROW_OUT_BINDING 3
#elif ROW_PARAMS >= 1
#define ROW_OUT_BINDING 2
#else
#define ROW_OUT_BINDING 1
#endif
layout(std430, set = 0, binding = ROW_OUT_BINDING) writeonly buffer O { float os[]; };
layout(std430, set = 0, binding = ROW_OUT_BINDING) writeonly buffer O4 { vec4 os4[]; };

// exp(x) for x <= 0 (softmax's exp(x - max)): below ln(FLT_MIN) 0 (xpb_exp_neg) or what the
// device's exp gives there (denormal or 0: the bound's FLT_MIN floor covers both).
vec4 row_exp_neg(vec4 x) { return EXP_BUILTIN ? exp(x) : xpb_exp_neg(x); }
float row_exp_neg(float x) { return EXP_BUILTIN ? exp(x) : xpb_exp_neg(x); }

const uint BLOCK = gl_WorkGroupSize.x;
const uint CHUNK = BLOCK * VPT * 4u;

vec4 rv[VPT]; // this invocation's values of the current chunk

// ---- workgroup reductions (call in uniform control flow; every invocation gets the result) ----

// WG_REDUCE(NAME, T, SUBGROUP_OP, COMBINE, IDENT) defines `T NAME(T v)`: the subgroup's
// reduction, then the subgroups' in subgroup order (a fixed order: the same bits in every
// workgroup from the same values), one shared slot a subgroup, and a barrier after the reads so
// the next call may write the slots again. (One barrier a call, with two sets of slots taken in
// turn by a module-scope counter, measured slower on the H200: Vulkan softmax at 1024 x 262144
// 5.5%; results/h200/2026-11-29-s28-vk-merge-ab.txt.) A vector T reduces each component in the
// order of a scalar call, so one call of a vec2 has the bits of two calls, in half the barriers.
#define WG_ADD(a, b) ((a) + (b))
#define WG_REDUCE(NAME, T, SUBGROUP_OP, COMBINE, IDENT)                                          \
    shared T NAME##_slots[NSG];                                                                  \
    T NAME(T v)                                                                                  \
    {                                                                                            \
        v = SUBGROUP_OP(v);                                                                      \
        if (subgroupElect())                                                                     \
            NAME##_slots[gl_SubgroupID] = v;                                                     \
        memoryBarrierShared();                                                                   \
        barrier();                                                                               \
        T r = IDENT;                                                                             \
        for (uint i = gl_SubgroupInvocationID; i < gl_NumSubgroups; i += gl_SubgroupSize)        \
            r = COMBINE(r, NAME##_slots[i]);                                                     \
        r = SUBGROUP_OP(r);                                                                      \
        barrier(); /* the slots are free again */                                                \
        return r;                                                                                \
    }

// WG_REDUCE_FIRST(NAME, T, SUBGROUP_OP): the same where only the first subgroup holds values (the
// others the identity): its reduction, broadcast through one shared slot.
#define WG_REDUCE_FIRST(NAME, T, SUBGROUP_OP)                                                    \
    shared T NAME##_slot;                                                                        \
    T NAME(T v)                                                                                  \
    {                                                                                            \
        v = SUBGROUP_OP(v);                                                                      \
        if (gl_SubgroupID == 0u && subgroupElect())                                              \
            NAME##_slot = v;                                                                     \
        memoryBarrierShared();                                                                   \
        barrier();                                                                               \
        T r = NAME##_slot;                                                                       \
        barrier(); /* the slot is free again */                                                  \
        return r;                                                                                \
    }

WG_REDUCE(wg_sum, float, subgroupAdd, WG_ADD, 0.0)
WG_REDUCE(wg_max, float, subgroupMax, max, -XPB_FLT_MAX)

float hsum(vec4 v) { return (v.x + v.y) + (v.z + v.w); }
float hmax(vec4 v) { return max(max(v.x, v.y), max(v.z, v.w)); }

// ---- the register layout of a chunk ------------------------------------------------------------

// Column of component j of register k, in the chunk that starts at column c0.
uint row_col(uint c0, uint k, uint j)
{
    uint t = gl_LocalInvocationID.x;
    return VEC4 ? c0 + 4u * (t + k * BLOCK) + j : c0 + t + (4u * k + j) * BLOCK;
}

bvec4 row_valid(uint c0, uint k)
{
    uvec4 c = uvec4(row_col(c0, k, 0), row_col(c0, k, 1), row_col(c0, k, 2), row_col(c0, k, 3));
    return lessThan(c, uvec4(pc.cols));
}

// rv = the chunk at c0 of the row starting at element base; `fill` past the row's end.
void row_load(uint base, uint c0, float fill)
{
    [[unroll]] for (uint k = 0; k < VPT; k++) {
        if (VEC4) {
            uint c = row_col(c0, k, 0);
            rv[k] = c < pc.cols ? xs4[(base + c) / 4u] : vec4(fill);
        } else {
            [[unroll]] for (uint j = 0; j < 4u; j++) {
                uint c = row_col(c0, k, j);
                rv[k][j] = c < pc.cols ? xs[base + c] : fill;
            }
        }
    }
}

void row_store(uint base, uint c0, uint k, vec4 y)
{
    if (VEC4) {
        uint c = row_col(c0, k, 0);
        if (c < pc.cols)
            os4[(base + c) / 4u] = y;
    } else {
        [[unroll]] for (uint j = 0; j < 4u; j++) {
            uint c = row_col(c0, k, j);
            if (c < pc.cols)
                os[base + c] = y[j];
        }
    }
}

#if ROW_PARAMS >= 1
vec4 row_w(uint c0, uint k)
{
    vec4 r = vec4(0.0);
    if (VEC4) {
        uint c = row_col(c0, k, 0);
        if (c < pc.cols)
            r = ws4[c / 4u];
    } else {
        [[unroll]] for (uint j = 0; j < 4u; j++) {
            uint c = row_col(c0, k, j);
            if (c < pc.cols)
                r[j] = ws[c];
        }
    }
    return r;
}
#endif

#if ROW_PARAMS >= 2
vec4 row_b(uint c0, uint k)
{
    vec4 r = vec4(0.0);
    if (VEC4) {
        uint c = row_col(c0, k, 0);
        if (c < pc.cols)
            r = bs4[c / 4u];
    } else {
        [[unroll]] for (uint j = 0; j < 4u; j++) {
            uint c = row_col(c0, k, j);
            if (c < pc.cols)
                r[j] = bs[c];
        }
    }
    return r;
}
#endif

#if defined(STATS_F64) && STATS_F64
// fp64 statistics (layernorm variants f64stats and onchip; needs shaderFloat64): wg_sum in double.
WG_REDUCE(wg_sum64, double, subgroupAdd, WG_ADD, 0.0LF)
#endif
