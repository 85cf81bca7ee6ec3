// vk_gemm.comp - a SPIR-V GEMM kernel for tests/plugins/plugins_vulkan.sh: the gemm layout (a, b,
// c_in, c; push {m, n, k, alpha, beta}) with a 16 x 16 tile of C a workgroup (tile_rows and
// tile_cols 16 in its manifest). Tiles are numbered row-major over C: tile t is tile row
// t / ceil(n / 16), tile column t % ceil(n / 16); workgroup g takes tile g, then steps on by
// gl_NumWorkGroups.x. A and B go through shared memory 16 columns of k at a time.
// DROP_LAST_K: the product leaves out k's last term, which validation must reject.
#version 450
#define T 16
layout(local_size_x = T, local_size_y = T) in;
layout(std430, set = 0, binding = 0) readonly buffer A { float a[]; };
layout(std430, set = 0, binding = 1) readonly buffer B { float b[]; };
layout(std430, set = 0, binding = 2) readonly buffer CIn { float c_in[]; };
layout(std430, set = 0, binding = 3) writeonly buffer C { float c[]; };
layout(push_constant) uniform Push { uint m; uint n; uint k; float alpha; float beta; } p;

shared float as[T][T], bs[T][T];

void main()
{
    const uint lx = gl_LocalInvocationID.x, ly = gl_LocalInvocationID.y;
    const uint tiles_n = (p.n + T - 1) / T, tiles = (p.m + T - 1) / T * tiles_n;
#ifdef DROP_LAST_K
    const uint kk = p.k - 1;
#else
    const uint kk = p.k;
#endif
    for (uint t = gl_WorkGroupID.x; t < tiles; t += gl_NumWorkGroups.x) { // uniform over the workgroup
        const uint row = t / tiles_n * T + ly, col = t % tiles_n * T + lx;
        float acc = 0.0;
        for (uint k0 = 0; k0 < kk; k0 += T) {
            as[ly][lx] = row < p.m && k0 + lx < kk ? a[row * p.k + k0 + lx] : 0.0;
            bs[ly][lx] = col < p.n && k0 + ly < kk ? b[(k0 + ly) * p.n + col] : 0.0;
            barrier();
            for (uint j = 0; j < T; j++)
                acc += as[ly][j] * bs[j][lx];
            barrier();
        }
        if (row < p.m && col < p.n)
            c[row * p.n + col] = p.alpha * acc + (p.beta != 0.0 ? p.beta * c_in[row * p.n + col] : 0.0);
    }
}
