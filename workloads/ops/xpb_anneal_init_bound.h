/* xpb_anneal_init_bound.h - the farthest-point init's skip threshold (XPB_OP_ANNEAL_INIT), one
 * formula for the backends that compute it in double: the CPU's (C) and CUDA's (device code; also
 * run on the CPU by tests/cuda_emu). Vulkan computes it in fp32 in its shader
 * (anneal_init_bounds.comp) with the same terms.
 *
 * A point x owned by anchor a (its minimum is fl(|x - a|^2)) cannot come nearer to the new anchor p
 * when |a - p| >= 2 |x - a|, so its row need not be read. The threshold is the largest minimum for
 * which that holds with every rounding of both fp32 distances bounded:
 *   - D = |a - p|^2 summed in double over the fp32 coordinates (each difference, square and sum
 *     rounded once): relative error below (d + 4) 2^-53, taken as g64 = (d + 8) 2^-52;
 *   - a fp32 squared distance of d terms, in any order, with or without fused multiply-adds, is
 *     within a relative g32 = (d + 8) 2^-23 (twice (d + 4) u, u = 2^-24) of its exact value, plus
 *     eta = (d + 8) eta_unit for terms that underflow: eta_unit = 2^-149 where denormals are kept
 *     (CUDA, built without fast math), 2^-125 where they may be flushed (the CPU);
 *   - with mind >= |x - a|^2 (1 - g32) - eta and |x - p| >= |a - p| - |x - a|: if mind + eta <=
 *     (1 - g32) |a - p|^2 / 4, then |x - p|^2 >= (mind + eta) / (1 - g32), so fl(|x - p|^2) >= mind
 *     and the comparison keeps mind.
 * Rounded down to a float (a last 2^-50 for the double products); a NaN or infinite D, or a bound at
 * or below zero, gives -1: nothing skips (a NaN minimum never compares below it). */
#ifndef XPB_ANNEAL_INIT_BOUND_H
#define XPB_ANNEAL_INIT_BOUND_H

#include <math.h>
#include <stdint.h>

#if defined(__CUDACC__)
#define XPB_INIT_BOUND_FN static inline __host__ __device__
#else
#define XPB_INIT_BOUND_FN static inline
#endif

#define XPB_INIT_BOUND_ETA_KEPT 0x1p-149    /* denormals kept */
#define XPB_INIT_BOUND_ETA_FLUSHED 0x1p-125 /* denormals possibly flushed to zero */

XPB_INIT_BOUND_FN float xpb_anneal_init_threshold(double D, int64_t d, double eta_unit)
{
    if (!(D < INFINITY))
        return -1.0f;
    const double g32 = (double)(d + 8) * 0x1p-23, g64 = (double)(d + 8) * 0x1p-52, eta = (double)(d + 8) * eta_unit;
    const double t = (1.0 - g32) * (D * (1.0 - g64)) * 0.25 * (1.0 - 0x1p-50) - eta;
    if (!(t > 0.0))
        return -1.0f;
    const float f = (float)t; /* to nearest, then down where that rounded up */
    return (double)f > t ? nextafterf(f, 0.0f) : f;
}

#endif
