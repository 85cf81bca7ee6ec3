/* blobs.c - the annealing workload's default input (anneal.h, docs/workloads.md section 3). */
#include <math.h>
#include <stdlib.h>

#include "anneal.h"
#include "xpb_rng.h"

#define PI 3.14159265358979323846

enum { STREAM_CENTER = 200, STREAM_PICK = 201, STREAM_NOISE = 202 };

/* A standard normal from two hashed uniforms (Box-Muller), a pure function of its arguments. */
static double normal(uint64_t seed, uint64_t index)
{
    double u1 = ((double)(xpb_rng_hash(seed, STREAM_NOISE, 2 * index) >> 11) + 0.5) * 0x1p-53;
    double u2 = (double)(xpb_rng_hash(seed, STREAM_NOISE, 2 * index + 1) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * PI * u2);
}

void anneal_blobs(float *x, int64_t n, int64_t d, int64_t k, uint64_t seed)
{
    double sigma = sqrt(0.01 / (double)d); /* expected squared noise norm 0.01 whatever d */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        uint64_t c = xpb_rng_hash(seed, STREAM_PICK, (uint64_t)i) % (uint64_t)k;
        for (int64_t j = 0; j < d; j++) {
            double center = xpb_rng_uniform(seed, STREAM_CENTER, c * (uint64_t)d + (uint64_t)j);
            x[i * d + j] = (float)(center + sigma * normal(seed, (uint64_t)(i * d + j)));
        }
    }
}
