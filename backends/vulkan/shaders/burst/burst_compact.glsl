// burst_compact.glsl - what the two compact passes share (included by burst_compact_sums.comp and
// burst_compact_write.comp; burst_compact.c launches them): the neurons are cut into tiles of
// 4 * workgroup size (an invocation takes 4 consecutive flags, one uvec4 load), and the tiles into
// `blocks` blocks of `per_block` consecutive tiles, one workgroup each (grid-stride over blocks).
// Scratch holds each block's (fired count, degree sum) as two words.

#include "burst.glsl"

layout(local_size_x_id = 0) in; // a power of two <= 256

layout(std430, set = 0, binding = 0) readonly buffer Flag { uint flags[]; };
layout(std430, set = 0, binding = 0) readonly buffer Flag4 { uvec4 flags4[]; };
layout(std430, set = 0, binding = 1) readonly buffer Offsets { uint offsets[]; };

// The first of the 4 neurons this invocation takes in tile `tile`.
uint tile_first(uint tile)
{
    return tile * (4u * gl_WorkGroupSize.x) + 4u * gl_LocalInvocationID.x;
}

// The flags of neurons i0 .. i0 + 3 (0 past n). i0 < 2^32 - 3: tiles start below n.
uvec4 tile_flags(uint i0)
{
    if (i0 < pc.n && pc.n - i0 >= 4u)
        return flags4[i0 >> 2];
    uvec4 f = uvec4(0u);
    for (uint q = 0u; q < 4u; q++)
        if (i0 + q < pc.n)
            f[q] = flags[i0 + q];
    return f;
}

// Row lengths of the flagged neurons among i0 .. i0 + 3, 0 for the others.
uvec4 tile_degrees(uint i0, uvec4 f)
{
    uvec4 d = uvec4(0u);
    for (uint q = 0u; q < 4u; q++)
        if (f[q] != 0u)
            d[q] = offsets[i0 + q + 1u] - offsets[i0 + q];
    return d;
}

// (fired count, degree sum) of neurons i0 .. i0 + 3.
uvec2 tile_sums(uvec4 f, uvec4 d)
{
    uvec4 c = uvec4(notEqual(f, uvec4(0u)));
    return uvec2(c.x + c.y + c.z + c.w, d.x + d.y + d.z + d.w);
}
