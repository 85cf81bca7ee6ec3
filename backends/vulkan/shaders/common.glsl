// common.glsl - math shared by the xpubench shaders (included, never compiled alone).
//
// GLSL's exp() is only specified to 3 + 2|x| ulp in Vulkan, so the kernels use their own: a
// Cody-Waite reduction by ln 2 (a 9-bit high part, so k * C1 is exact) and Cephes' degree-5
// polynomial for e^r on |r| <= ln2/2, about 1 ulp. Only arguments <= 0 occur (sigmoid uses
// exp(-|x|), softmax exp(x - max)), so 2^k is built from exponent bits without overflow.
#ifndef XPB_COMMON_GLSL
#define XPB_COMMON_GLSL

const float XPB_FLT_MAX = 3.402823466e+38;
const float XPB_EXP_MIN_ARG = -87.33654; // ln(FLT_MIN): below it the result is 0

// exp(x) for x <= 0; 0 below ln(FLT_MIN) and for -inf.
vec4 xpb_exp_neg(vec4 x)
{
    vec4 xc = clamp(x, XPB_EXP_MIN_ARG, 0.0);
    vec4 k = roundEven(xc * 1.44269504088896341);
    precise vec4 r = (xc - k * 0.693359375) - k * -2.12194440e-4;
    vec4 p = vec4(1.9875691500e-4);
    p = p * r + 1.3981999507e-3;
    p = p * r + 8.3334519073e-3;
    p = p * r + 4.1665795894e-2;
    p = p * r + 1.6666665459e-1;
    p = p * r + 5.0000001201e-1;
    precise vec4 y = (p * (r * r) + r) + 1.0;
    vec4 scale = intBitsToFloat((ivec4(k) + 127) << 23); // 2^k, k in [-126, 0]
    return mix(y * scale, vec4(0.0), lessThan(x, vec4(XPB_EXP_MIN_ARG)));
}

float xpb_exp_neg(float x)
{
    float xc = clamp(x, XPB_EXP_MIN_ARG, 0.0);
    float k = roundEven(xc * 1.44269504088896341);
    precise float r = (xc - k * 0.693359375) - k * -2.12194440e-4;
    float p = 1.9875691500e-4;
    p = p * r + 1.3981999507e-3;
    p = p * r + 8.3334519073e-3;
    p = p * r + 4.1665795894e-2;
    p = p * r + 1.6666665459e-1;
    p = p * r + 5.0000001201e-1;
    precise float y = (p * (r * r) + r) + 1.0;
    float scale = intBitsToFloat((int(k) + 127) << 23);
    return x < XPB_EXP_MIN_ARG ? 0.0 : y * scale;
}

// Logistic function, stable for large |x|: with e = exp(-|x|) in (0, 1], 1 / (1 + e) for x >= 0
// and e / (1 + e) for x < 0 (one division either way; exp never overflows).
vec4 xpb_sigmoid(vec4 x)
{
    vec4 e = xpb_exp_neg(-abs(x));
    return mix(e, vec4(1.0), greaterThanEqual(x, vec4(0.0))) / (1.0 + e);
}

float xpb_sigmoid(float x)
{
    float e = xpb_exp_neg(-abs(x));
    return (x >= 0.0 ? 1.0 : e) / (1.0 + e);
}

// x * sigmoid(x). Below x = -80, e^x approaches the denormal range (flushed to 0 on many GPUs)
// while x e^x is still a normal float: there x e^x = (x e^(x+32)) e^-32 (x + 32 is exact), and
// 1 + e^x rounds to 1. The second exp is paid only when a component needs it.
const float XPB_SILU_TINY = -80.0;
const float XPB_EXP_M32 = 1.2664165549e-14; // e^-32

vec4 xpb_silu(vec4 x)
{
    vec4 y = x * xpb_sigmoid(x);
    bvec4 tiny = lessThan(x, vec4(XPB_SILU_TINY));
    if (any(tiny))
        y = mix(y, (x * xpb_exp_neg(x + 32.0)) * XPB_EXP_M32, tiny);
    return y;
}

float xpb_silu(float x)
{
    if (x < XPB_SILU_TINY)
        return (x * xpb_exp_neg(x + 32.0)) * XPB_EXP_M32;
    return x * xpb_sigmoid(x);
}

#endif
