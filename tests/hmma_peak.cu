// hmma_peak.cu - the throughput ceiling of mma.sync m16n8k16 (fp16 x fp16 + fp32, the HMMA.16816.F32
// instruction) on GPU 0: the instruction NVIDIA's Vulkan driver turns cooperative matrices into on
// Hopper (scripts/nv-cache-sass.py shows it), where cuBLAS uses the warpgroup MMA instead. It puts
// vulkan/coopmat2's and coopmat-khr's share of cuBLAS fp16 in context (docs/performance.md, session 17).
//
// Each warp issues mma.sync from registers only (no memory in the loop) on 8 independent
// accumulators, in 8 or 16 warps a block and 1 or 2 blocks an SM, with small-integer and random
// fp16 operands (the operands' bits decide the power drawn, and so the clock). Each configuration
// runs 20 launches of about 7 ms (long enough for the clock to settle) timed by CUDA events and
// prints the median. `--quick` runs one short launch of each (the ctest smoke test: it runs, prints
// a positive figure; no timing is asserted). Exit 77 when there is no CUDA device.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "hmma_peak: %s: %s\n", #x, cudaGetErrorString(e_));                  \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

static const int ACC = 8;      // independent accumulators a warp (covers the instruction's latency)
static const int WORDS = 12;   // operand registers a lane: two A (4) + B (2) sets

__device__ __forceinline__ void mma(float (&c)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

__global__ void peak(float *out, int iters, const unsigned *operands)
{
    const unsigned *r = operands + (size_t)(blockIdx.x * blockDim.x + threadIdx.x) * WORDS;
    unsigned a0[4] = {r[0], r[1], r[2], r[3]}, b0[2] = {r[4], r[5]};
    unsigned a1[4] = {r[6], r[7], r[8], r[9]}, b1[2] = {r[10], r[11]};
    float c[ACC][4] = {};
    for (int i = 0; i < iters; i++) {
#pragma unroll
        for (int j = 0; j < ACC; j += 2) { // alternate the operand sets so the inputs change
            mma(c[j], a0, b0);
            mma(c[j + 1], a1, b1);
        }
    }
    float s = 0;
    for (int j = 0; j < ACC; j++)
        s += c[j][0] + c[j][1] + c[j][2] + c[j][3];
    if (s == 12345.0f) // never true in practice; keeps the loop from being optimised away
        out[0] = s;
}

// fp16 pairs: random in (-1, 1) (sign, exponent 1..14, mantissa from xorshift), or small integers.
static void fill(unsigned *host, size_t words, bool random)
{
    unsigned long long x = 88172645463325252ull;
    for (size_t i = 0; i < words; i++) {
        if (!random) {
            host[i] = (unsigned)(i % WORDS) * 3u + (unsigned)(i / WORDS) % 512u;
            continue;
        }
        unsigned h[2];
        for (int k = 0; k < 2; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            unsigned e = 1u + (unsigned)(x >> 40) % 14u;
            h[k] = ((unsigned)(x >> 63) << 15) | (e << 10) | ((unsigned)x & 0x3ffu);
        }
        host[i] = h[0] | (h[1] << 16);
    }
}

static int by_value(const void *a, const void *b)
{
    float x = *(const float *)a, y = *(const float *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    bool quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("hmma_peak: skipped: no CUDA device\n");
        return 77;
    }
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    const int max_warps = 16, max_blocks_per_sm = 2;
    size_t words = (size_t)p.multiProcessorCount * max_blocks_per_sm * max_warps * 32 * WORDS;
    unsigned *host = (unsigned *)malloc(words * sizeof *host);
    if (!host) {
        fprintf(stderr, "hmma_peak: out of memory\n");
        return 1;
    }
    unsigned *operands[2];
    for (int random = 0; random < 2; random++) {
        fill(host, words, random);
        CHECK(cudaMalloc(&operands[random], words * sizeof *host));
        CHECK(cudaMemcpy(operands[random], host, words * sizeof *host, cudaMemcpyHostToDevice));
    }
    free(host);
    float *out;
    CHECK(cudaMalloc(&out, sizeof *out));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const int iters = quick ? 64 : 65536, launches = quick ? 1 : 20;
    printf("hmma_peak: %s, %d SMs: mma.sync m16n8k16 fp16 x fp16 + fp32, %d accumulators a warp\n", p.name,
           p.multiProcessorCount, ACC);
    for (int random = 0; random < 2; random++) {
        for (int warps = 8; warps <= max_warps; warps *= 2) {
            for (int per_sm = 1; per_sm <= max_blocks_per_sm; per_sm++) {
                int blocks = p.multiProcessorCount * per_sm;
                peak<<<blocks, 32 * warps>>>(out, iters, operands[random]); // warm-up
                CHECK(cudaGetLastError());
                CHECK(cudaDeviceSynchronize());
                float ms[20];
                for (int r = 0; r < launches; r++) {
                    CHECK(cudaEventRecord(e0));
                    peak<<<blocks, 32 * warps>>>(out, iters, operands[random]);
                    CHECK(cudaEventRecord(e1));
                    CHECK(cudaEventSynchronize(e1));
                    CHECK(cudaEventElapsedTime(&ms[r], e0, e1));
                }
                qsort(ms, (size_t)launches, sizeof *ms, by_value);
                double flops = 2.0 * 16 * 8 * 16 * ACC * (double)iters * blocks * warps;
                printf("hmma_peak: %-13s operands, %2d warps x %d blocks an SM: %7.1f TFLOP/s (median of %d, %.3f ms)\n",
                       random ? "random" : "small-integer", warps, per_sm, flops / (ms[launches / 2] * 1e-3) / 1e12,
                       launches, ms[launches / 2]);
            }
        }
    }
    return 0;
}
