// coopmat_store.glsl - the tile order and the checked store of C that both cooperative-matrix
// GEMM bodies share (coopmat.glsl, coopmat_khr.glsl; included after their push constants, the C
// and c_in buffers and VEC_C are declared).

// Tile t in groups of pc.group_m row tiles (L2 reuse of B): (row tile, column tile).
uvec2 tile_coords(uint t)
{
    uint per_group = pc.group_m * pc.tiles_n;
    uint first_m = (t / per_group) * pc.group_m;
    uint rows = min(pc.tiles_m - first_m, pc.group_m);
    uint r = t % per_group;
    return uvec2(first_m + r % rows, r / rows);
}

// 4 values of C at (row, col..col+3), with alpha, beta and the bounds.
void store_c(uint row, uint col, vec4 v)
{
    if (row >= pc.m)
        return;
    uint at = row * pc.n + col;
    if (VEC_C) {
        if (col >= pc.n)
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
