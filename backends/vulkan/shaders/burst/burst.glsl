// burst.glsl - what the burst shaders share (included, never compiled alone): their push
// constants, the contract's hashes (workloads/burst/burst.h), and the fp32 steps of the neuron
// update made exact on every device (docs/workloads.md section 4, "pinned details").
//
// Exactness: the reference is IEEE fp32 with subnormals; a Vulkan device may flush subnormal
// operands and results to zero (lavapipe does; float controls cannot be relied on). So the two
// steps where a subnormal can occur take an integer path there, and every hardware fp32 operation
// left has normal (or zero) operands and a normal (or zero) result, rounded to nearest even:
//  - v + f (step b): v is ±0 or subnormal only after a long decay; f = in * scale is 0 or at least
//    scale >= 2^-100 (burst_common.c checks), far above v, so the sum is f (in != 0) or v (in == 0,
//    -0 + +0 giving +0). For a normal v the hardware sum cannot be subnormal (a cancellation of
//    operands >= 2^-101 leaves a multiple of 2^-124).
//  - v * keep (step g): keep = 1 - leak is in [2^-24, 1]; for |v| >= 2^-63 the product is normal,
//    below that burst_mul_small rounds the exact product itself.
// Comparisons with a subnormal v give the same answer flushed or not, as long as the per-neuron
// parameters are normal or zero (the generator's multiples of 2^-10).
#ifndef XPB_BURST_GLSL
#define XPB_BURST_GLSL

// Push constants of every burst shader (vkb_burst_push in burst_common.h).
layout(push_constant) uniform BurstPush {
    uint n;          // neurons
    uint burst;      // b
    uint stim_floor; // floor(p_stim * 2^32)
    int stim;        // S
    float scale;     // BURST_SCALE
    uint tiles;      // compact: tiles of 4 * workgroup size neurons, ceil(n / tile)
    uint per_block;  // compact: tiles per block (a workgroup's share)
    uint blocks;     // compact: ceil(tiles / per_block)
} pc;

// pcg_hash(x), all arithmetic on uint32 mod 2^32.
uint burst_pcg_hash(uint x)
{
    uint state = x * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28) + 4u)) ^ state) * 277803737u;
    return (word >> 22) ^ word;
}

uint burst_stimulus_draw(uint i, uint b)
{
    return burst_pcg_hash(i * 3266489917u + b * 668265263u + 374761393u);
}

uint burst_excitability_draw(uint i, uint b)
{
    return burst_pcg_hash(i * 2654435761u + b * 1597334677u);
}

// Step e for 0 < ex < 0.999: (double)draw < (double)ex * 2^32 without doubles. F = ex * 2^32 is
// exact in fp32 (a power-of-two scaling of a normal float), and for an integer draw, draw < F
// iff draw < ceil(F), which fits uint32 when F < 2^32.
bool burst_draw_fires(uint draw, float ex)
{
    precise float f = ex * 4294967296.0;
    return f >= 4294967296.0 || draw < uint(ceil(f));
}

// v * k rounded to nearest even, on the integer bits, subnormal results included: for |v| < 2^-63
// and a normal k. The product of the significands P = mv * mk (< 2^48) keeps 24 bits, or fewer
// where the result falls below 2^-126 (its last place is then 2^-149).
float burst_mul_small(float v, float k)
{
    uint vb = floatBitsToUint(v), kb = floatBitsToUint(k);
    uint sign = (vb ^ kb) & 0x80000000u;
    uint ev = (vb >> 23) & 0xffu, ek = (kb >> 23) & 0xffu;
    uint mv = (vb & 0x7fffffu) | (ev != 0u ? 0x800000u : 0u);
    uint mk = (kb & 0x7fffffu) | 0x800000u;
    if (mv == 0u)
        return uintBitsToFloat(sign);
    int e = int(max(ev, 1u)) + int(ek) - 300; // |v * k| = P * 2^e
    uint hi, lo;
    umulExtended(mv, mk, hi, lo);
    int len = hi != 0u ? 33 + findMSB(hi) : 1 + findMSB(lo); // bits of P
    int d = max(len - 24, -149 - e);                         // low bits of P dropped
    uint m;
    if (d <= 0) {
        m = lo << uint(-d); // exact: P < 2^24
    } else if (d > len) {
        m = 0u; // P < 2^(d-1): below half the last place
    } else {
        uint ud = uint(d), r = ud - 1u; // r: the round bit
        uint q = ud >= 32u ? hi >> (ud - 32u) : (lo >> ud) | (hi << (32u - ud));
        bool rbit = ((r >= 32u ? hi >> (r - 32u) : lo >> r) & 1u) != 0u;
        bool sticky = r >= 32u ? (lo != 0u || (hi & ((1u << (r - 32u)) - 1u)) != 0u)
                               : (lo & ((1u << r) - 1u)) != 0u;
        m = q + (rbit && (sticky || (q & 1u) != 0u) ? 1u : 0u);
    }
    // m * 2^(e + d): m < 2^23 only on the subnormal grid (e + d = -149); a carry to 2^24 moves
    // into the exponent by itself
    return uintBitsToFloat(sign | ((uint(e + d + 149) << 23) + m));
}

// Step b: v + (float)in * scale, in fp32, uncontracted, exact as the reference.
float burst_integrate(float v, int in_, float scale)
{
    precise float f = float(in_);
    precise float fs = f * scale;
    uint vb = floatBitsToUint(v);
    if ((vb & 0x7f800000u) != 0u) {
        precise float r = v + fs;
        return r;
    }
    return in_ != 0 ? fs : (vb & 0x7fffffffu) == 0u ? 0.0 : v;
}

// Step g: v * (1 - leak), 1 - leak in fp32, exact as the reference.
float burst_leak(float v, float leak)
{
    precise float keep = 1.0 - leak;
    if ((floatBitsToUint(v) & 0x7f800000u) >= (64u << 23)) {
        precise float r = v * keep;
        return r;
    }
    return burst_mul_small(v, keep);
}

#endif
