#version 450
// f32_to_f16.comp - a rows x cols fp32 matrix to a rows_p x cols_p fp16 one, zero-padded
// (vulkan/coopmat's prepare(), untimed), or with TRANSPOSE to its transpose, cols_p x rows_p
// (coopmat2's B with K contiguous). Row-major; the output's row length (push cols_p: the padded
// rows with TRANSPOSE) is even, so each invocation writes one uint: two fp16 values, the
// lower-addressed one in the low 16 bits.
// The rounding is done here, to nearest even, with integer operations: Vulkan leaves the rounding
// of packHalf2x16 / fp32->fp16 conversions to the implementation, and the validation bound of an
// fp16-input variant (2^-11 per input) assumes round-to-nearest. Overflow gives +-inf, NaN stays
// NaN, values below 2^-14 become fp16 subnormals (rounded to nearest even too).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool TRANSPOSE = false;

layout(push_constant) uniform Push {
    uint rows, cols;
    uint cols_p; // the output's row length, even
    uint units;  // rows_p * cols_p / 2
} pc;

layout(std430, set = 0, binding = 0) readonly buffer S { float src[]; };
layout(std430, set = 0, binding = 1) writeonly buffer D { uint dst[]; };

uint f16_bits(float f)
{
    uint x = floatBitsToUint(f);
    uint sign = (x >> 16) & 0x8000u, ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) // inf, NaN
        return sign | (ax > 0x7f800000u ? 0x7e00u : 0x7c00u);
    if (ax >= 0x477ff000u) // >= 65520: rounds past the largest fp16, 65504
        return sign | 0x7c00u;
    if (ax >= 0x38800000u) // >= 2^-14: normal; drop 13 mantissa bits, ties to even, rebias 127 -> 15
        return sign | ((ax + 0xfffu + ((ax >> 13) & 1u) - 0x38000000u) >> 13);
    // subnormal: the multiple of 2^-24 nearest to |f| (the product by 2^24 is exact)
    return sign | uint(roundEven(uintBitsToFloat(ax) * 16777216.0));
}

// The output's element (r, c): the source's (r, c), or (c, r) with TRANSPOSE.
float at(uint r, uint c)
{
    if (TRANSPOSE) {
        uint t = r;
        r = c;
        c = t;
    }
    return r < pc.rows && c < pc.cols ? src[r * pc.cols + c] : 0.0;
}

void main()
{
    uint half_cols = pc.cols_p / 2u;
    for (uint u = gl_GlobalInvocationID.x; u < pc.units; u += gl_NumWorkGroups.x * gl_WorkGroupSize.x) {
        uint r = u / half_cols, c = 2u * (u % half_cols);
        dst[u] = f16_bits(at(r, c)) | (f16_bits(at(r, c + 1u)) << 16);
    }
}
