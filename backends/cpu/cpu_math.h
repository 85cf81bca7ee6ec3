/* cpu_math.h - exp, sigmoid and sin/cos written so that GCC and Clang vectorize them inside
 * `omp simd` loops (glibc's expf/sinf/cosf are scalar calls and run the sigmoid at ~4 GB/s on two
 * cores, an eighth of copy), and as accurate as those libm functions.
 *
 * The float functions evaluate in double, so the only error that matters is the final rounding
 * to float: xpb_cpu_expf is within 0.51 ulp of exp over every float (checked exhaustively against
 * (float)exp((double)x)), like glibc's expf (0.502 ulp). No table lookups (they would need
 * gathers), no branches: every operation is done on every lane. Needs -fno-trapping-math to
 * vectorize (see CMakeLists.txt); it is correct without it. */
#ifndef XPB_CPU_MATH_H
#define XPB_CPU_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* e^x rounded to float, for a double x (softmax passes x - max exactly this way):
 * NaN -> NaN, x > 88.73 -> +inf, results below 2^-150 -> 0, subnormal results rounded. */
static inline float xpb_cpu_expf_d(double x)
{
    const double log2e = 0x1.71547652b82fep0;
    const double ln2 = 0x1.62e42fefa39efp-1;
    const double shift = 0x1.8p52; /* adding it rounds to an integer and puts it in the low bits */
    /* Clamp so that the exponent arithmetic below stays in range (NaN becomes -150 here and is
     * restored at the end); the results at both clamps are already 0 and +inf in float. */
    double xc = x > -150.0 ? x : -150.0;
    xc = xc < 128.0 ? xc : 128.0;
    /* x = k ln2 + t, k integer, |t| <= ln2/2 */
    double kd = xc * log2e + shift;
    uint64_t kbits;
    memcpy(&kbits, &kd, sizeof kbits);
    kd -= shift;
    double t = xc - kd * ln2;
    /* e^t on [-ln2/2, ln2/2]: Chebyshev fit of degree 7 (mpmath.chebyfit), max error 4.3e-11. */
    double p = 0x1.a17e052cd2c8fp-13;
    p = p * t + 0x1.6da767a4988a9p-10;
    p = p * t + 0x1.1110a6173845ep-7;
    p = p * t + 0x1.555464884204ep-5;
    p = p * t + 0x1.5555557e7777ep-3;
    p = p * t + 0x1.0000005c981fcp-1;
    p = p * t + 0x1.fffffffff61ddp-1;
    p = p * t + 0x1.ffffffffa7011p-1;
    /* times 2^k: add k to the exponent field (k in [-217, 185]; the result is a normal double). */
    uint64_t pbits;
    memcpy(&pbits, &p, sizeof pbits);
    pbits += kbits << 52;
    memcpy(&p, &pbits, sizeof p);
    return x == x ? (float)p : (float)x;
}

/* e^x for float x, as xpb_cpu_expf_d. */
static inline float xpb_cpu_expf(float x) { return xpb_cpu_expf_d((double)x); }

/* 1 / (1 + e^-x), stable for large |x|: e = e^-|x| never overflows, and for x < 0 the result is
 * e / (1 + e) = e^x / (1 + e^x), which keeps its relative accuracy down to the subnormals. */
static inline float xpb_cpu_sigmoidf(float x)
{
    float e = xpb_cpu_expf(-fabsf(x));
    float num = x >= 0.0f ? 1.0f : e;
    return num / (1.0f + e);
}

/* sin and cos of a double angle, accurate to ~1e-15 relative for |a| < 1.6e6 (then the error
 * grows like |a| * 2^-53, still far below a float ulp of the results for any rope angle). */
static inline void xpb_cpu_sincos(double a, double *s, double *c)
{
    /* a = k pi/2 + r, |r| <= pi/4: Cody-Waite with pi/2 in three parts (fdlibm's pio2_1, pio2_2
     * and pio2_2t; the first two have 33 significant bits, so k * part is exact for k < 2^20). */
    const double two_over_pi = 0x1.45f306dc9c883p-1;
    const double pio2_1 = 0x1.921fb544p0, pio2_2 = 0x1.0b4611a6p-34, pio2_3 = 0x1.3198a2e037073p-69;
    const double shift = 0x1.8p52;
    double kd = a * two_over_pi + shift;
    uint64_t kbits;
    memcpy(&kbits, &kd, sizeof kbits);
    kd -= shift;
    double r = ((a - kd * pio2_1) - kd * pio2_2) - kd * pio2_3;
    double z = r * r;
    /* sin(r) = r * S(r^2), cos(r) = C(r^2) on |r| <= pi/4: Chebyshev fits in r^2 (mpmath.chebyfit),
     * max error 4.3e-12 and 4.8e-11. */
    double sp = 0x1.6cb5f9ee3566cp-19;
    sp = sp * z - 0x1.a00ee23c4a17fp-13;
    sp = sp * z + 0x1.11110743b51a1p-7;
    sp = sp * z - 0x1.555555493bbafp-3;
    sp = sp * z + 0x1.fffffffff6700p-1;
    double sr = r * sp;
    double cr = 0x1.9904c7bcdc6bdp-16;
    cr = cr * z - 0x1.6c077c4bf6bb2p-10;
    cr = cr * z + 0x1.55553a6c64313p-5;
    cr = cr * z - 0x1.ffffffbd91996p-2;
    cr = cr * z + 0x1.ffffffff97004p-1;
    /* quadrant k mod 4: (sin, cos) = (s, c), (c, -s), (-s, -c), (-c, s) */
    uint64_t q = kbits & 3u;
    double sv = (q & 1u) ? cr : sr;
    double cv = (q & 1u) ? sr : cr;
    *s = (q & 2u) ? -sv : sv;
    *c = ((q + 1u) & 2u) ? -cv : cv;
}

#endif
