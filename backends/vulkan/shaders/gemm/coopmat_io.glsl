// coopmat_io.glsl - the push constants, buffers and derived tile sizes that both cooperative-matrix
// GEMM bodies share (coopmat.glsl, coopmat_khr.glsl; included after their specialization
// constants BM, BN, BK, WM, WN and the workgroup size; push constants: vkb_cm_push in
// coopmat_common.h).

layout(push_constant) uniform Push {
    uint m, n;
    uint kp, np;           // padded K (row length of A16) and N (row length of B16)
    uint tiles_m, tiles_n;
    uint group_m;
    float alpha, beta;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer A16 { uvec4 a16[]; };
layout(std430, set = 0, binding = 1) readonly buffer B16 { uvec4 b16[]; };
layout(std430, set = 0, binding = 2) readonly buffer Ci { float ci[]; };
layout(std430, set = 0, binding = 2) readonly buffer Ci4 { vec4 ci4[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C { float c[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C4 { vec4 c4[]; };

const uint THREADS = gl_WorkGroupSize.x;
const uint WARPS_N = BN / WN;
const uint NWARPS = (BM / WM) * WARPS_N;
const uint TI = WM / 16u, TJ = WN / 16u;
const uint AS = (BK + 8u) / 8u;                  // uvec4 per row of the A stage
const uint BS = (BN + 8u) / 8u;                  // uvec4 per row of the B stage
const uint A_STAGE = BM * AS, B_STAGE = BK * BS;
const uint A_UNITS = BM * BK / 8u / THREADS;     // uvec4 loads per invocation per slice
const uint B_UNITS = BK * BN / 8u / THREADS;
const uint CS = 20u;                             // floats per staging row: 16 + 4 padding
