#version 450
// rope.comp - rotary position embedding (rope.c launches it). x and out are [batch, heads, seq,
// head_dim]; the pair (x[2i], x[2i+1]) at position p rotates by theta = p * inv_freq[i], with
// inv_freq[i] = base^(-2i/head_dim) computed in fp64 on the host (binding 1).
//
// GLSL sin/cos are only specified to 2^-11 absolute on [-pi, pi], so this kernel reduces the
// angle itself: theta = p * inv_freq in fp64, k = round(theta * 2/pi), r = theta - k*pi/2 by
// Cody-Waite with two fp64 constants (pi/2 in 33 bits plus the rest), exact for any p here; then
// fp32 minimax polynomials (Cephes sinf/cosf) on |r| <= pi/4 and the quadrant k mod 4.
// Needs shaderFloat64 (rope.c checks it).
//
// Shape: VEC4 (head_dim % 4 == 0) handles two pairs per vec4, else one pair per vec2; UNROLL
// units per invocation per step; grid-stride loop.
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint UNROLL = 2;
layout(constant_id = 2) const bool VEC4 = true;

layout(push_constant) uniform Push {
    uint units;    // vec4 (VEC4) or vec2 units in x
    uint half_dim; // head_dim / 2: pairs per vector
    uint seq;
} pc;

layout(std430, set = 0, binding = 0) readonly buffer X2 { vec2 xs2[]; };
layout(std430, set = 0, binding = 0) readonly buffer X4 { vec4 xs4[]; };
layout(std430, set = 0, binding = 1) readonly buffer F { double inv_freq[]; };
layout(std430, set = 0, binding = 2) writeonly buffer O2 { vec2 os2[]; };
layout(std430, set = 0, binding = 2) writeonly buffer O4 { vec4 os4[]; };

// (cos theta, sin theta) for theta = p * inv_freq[i].
vec2 rope_cos_sin(uint p, uint i)
{
    precise double theta = double(p) * inv_freq[i];
    double k = roundEven(theta * 0.63661977236758134308LF);
    precise double rd = (theta - k * 1.57079632673412561417LF) - k * 6.07710050650619224932e-11LF;
    float r = float(rd);
    float z = r * r;
    precise float s = ((-1.9515295891e-4 * z + 8.3321608736e-3) * z - 1.6666654611e-1) * z * r + r;
    precise float c =
        ((2.443315711809948e-5 * z - 1.388731625493765e-3) * z + 4.166664568298827e-2) * z * z - 0.5 * z + 1.0;
    switch (uint(k) & 3u) {
    case 0u: return vec2(c, s);
    case 1u: return vec2(-s, c);
    case 2u: return vec2(-c, -s);
    default: return vec2(s, -c);
    }
}

vec2 rotate(vec2 v, vec2 cs)
{
    return vec2(v.x * cs.x - v.y * cs.y, v.x * cs.y + v.y * cs.x);
}

void rope_unit(uint u)
{
    if (VEC4) { // pairs 2u and 2u + 1, in the same vector since half_dim is even
        uint pair = 2u * u;
        uint i = pair % pc.half_dim;
        uint p = (pair / pc.half_dim) % pc.seq;
        vec4 v = xs4[u];
        os4[u] = vec4(rotate(v.xy, rope_cos_sin(p, i)), rotate(v.zw, rope_cos_sin(p, i + 1u)));
    } else {
        uint i = u % pc.half_dim;
        uint p = (u / pc.half_dim) % pc.seq;
        os2[u] = rotate(xs2[u], rope_cos_sin(p, i));
    }
}

void main()
{
    const uint block = gl_WorkGroupSize.x;
    const uint step = block * UNROLL;
    for (uint base = gl_WorkGroupID.x * step; base < pc.units; base += gl_NumWorkGroups.x * step) {
        [[unroll]] for (uint k = 0; k < UNROLL; k++) {
            uint u = base + gl_LocalInvocationID.x + k * block;
            if (u < pc.units)
                rope_unit(u);
        }
    }
}
