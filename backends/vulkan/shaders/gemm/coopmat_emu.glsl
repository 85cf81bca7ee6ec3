// coopmat_emu.glsl - the 16x16x16 matrix operations of both cooperative-matrix GEMM bodies
// (coopmat.glsl, coopmat_khr.glsl) emulated in shared memory, for lavapipe (XPB_CM_EMULATE).
// The includer defines EMU_A and EMU_B (the uvec4 shared arrays that A and B fragments index),
// EMU_STAGING (the float staging array), AS, BS, CS (their row strides) and LANE_ID.
// A "fragment" is the uvec4 index of the matrix's first row in EMU_A / EMU_B; an accumulator is 8
// floats per lane of a 32-invocation slice of the workgroup (element e: row lane/16 + 2e, column
// lane%16). Slices are not subgroups here (lavapipe's are 8 wide), so the includer's WARP_SYNC
// syncs the whole workgroup.
struct acc_t { float v[8]; };

float half_at(uvec4 q, uint h) { return unpackHalf2x16(q[(h % 8u) / 2u])[h % 2u]; }

void emu_mma(inout acc_t acc, uint fa, uint fb)
{
    uint lane = LANE_ID;
    for (uint e = 0; e < 8u; e++) {
        uint r = lane / 16u + 2u * e, col = lane % 16u;
        float s = acc.v[e];
        for (uint k = 0; k < 16u; k++)
            s += half_at(EMU_A[fa + r * AS + k / 8u], k) * half_at(EMU_B[fb + k * BS + col / 8u], col);
        acc.v[e] = s;
    }
}

void emu_store_staging(acc_t acc, uint at)
{
    uint lane = LANE_ID;
    for (uint e = 0; e < 8u; e++) {
        uint r = lane / 16u + 2u * e, col = lane % 16u;
        EMU_STAGING[at + r * CS + col] = acc.v[e];
    }
}
