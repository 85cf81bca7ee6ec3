/* xpb_rng.h - the seeded, counter-based input generator.
 *
 * value(seed, stream, i) depends only on its three arguments, never on call order or thread count,
 * so every backend, platform and thread layout sees the same inputs. `stream` separates the
 * arrays of one case (x = 0, y = 1, w = 2, ...). */
#ifndef XPB_RNG_H
#define XPB_RNG_H

#include <stddef.h>
#include <stdint.h>

/* SplitMix64 finalizer over (seed, stream, index): a 64-bit hash with full avalanche. */
uint64_t xpb_rng_hash(uint64_t seed, uint64_t stream, uint64_t index);

/* Uniform in [-1, 1): 24 random bits, so the float is exact (k / 2^23 - 1). */
float xpb_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index);

/* Fills out[0..n) with xpb_rng_uniform(seed, stream, i) * scale + shift, in parallel. */
void xpb_rng_fill_f32(float *out, size_t n, uint64_t seed, uint64_t stream, float scale, float shift);

#endif
