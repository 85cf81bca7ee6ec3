/* xpb_rng.c - see xpb_rng.h. */
#include "xpb_rng.h"

uint64_t xpb_rng_hash(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t z = seed * 0x9E3779B97F4A7C15ull ^ (stream + 1) * 0xD1B54A32D192ED03ull;
    z += index * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

float xpb_rng_uniform(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint32_t bits = (uint32_t)(xpb_rng_hash(seed, stream, index) >> 40); /* 24 bits */
    return (float)bits * (1.0f / 8388608.0f) - 1.0f;
}

void xpb_rng_fill_f32(float *out, size_t n, uint64_t seed, uint64_t stream, float scale, float shift)
{
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        out[i] = xpb_rng_uniform(seed, stream, i) * scale + shift;
}
