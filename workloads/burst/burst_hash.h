/* burst_hash.h - the hashes that burst propagation's contract pins (docs/workloads.md
 * section 4, "Pinned details"): one C definition for the reference (workloads/burst) and the
 * CPU kernels. The CUDA (backends/cuda/burst/cuda_burst.cuh) and GLSL
 * (backends/vulkan/shaders/burst/burst.glsl) copies are checked against these bit for bit by every
 * validated run. */
#ifndef XPB_WORKLOADS_BURST_HASH_H
#define XPB_WORKLOADS_BURST_HASH_H

#include <stdint.h>

/* pcg_hash(x), all arithmetic on uint32 mod 2^32. */
static inline uint32_t burst_pcg_hash(uint32_t x)
{
    uint32_t state = x * 747796405u + 2891336453u;
    uint32_t word = ((state >> ((state >> 28) + 4u)) ^ state) * 277803737u;
    return (word >> 22) ^ word;
}

/* The stimulus draw of neuron i in burst b: i gets +S iff it is < the stimulus floor. */
static inline uint32_t burst_stimulus_draw(uint32_t i, uint32_t b)
{
    return burst_pcg_hash(i * 3266489917u + b * 668265263u + 374761393u);
}

/* The excitability draw of neuron i in burst b (step e). */
static inline uint32_t burst_excitability_draw(uint32_t i, uint32_t b)
{
    return burst_pcg_hash(i * 2654435761u + b * 1597334677u);
}

#endif
