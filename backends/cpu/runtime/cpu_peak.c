/* cpu_peak.c - the fp32 peak of this CPU as this build can reach it (issue 10): every OpenMP
 * thread runs independent chains of multiply-adds on the widest vectors the build targets, long
 * enough (about 50 ms) for the clock to settle, and the rate is counted as 2 flops per lane per
 * multiply-add. It is the roof `cpu/blas` and the GEMM "% of peak" column are measured against,
 * the way a GPU's datasheet peak is. Measured once per process (3 x 30 ms). A build without -march=native
 * (XPB_NATIVE=OFF) targets narrower vectors, and its peak is that build's, not the processor's. */
#include <omp.h>
#include <time.h>

#include "cpu_internal.h"

#if defined(__AVX512F__)
#define LANES 16
#elif defined(__AVX__)
#define LANES 8
#else
#define LANES 4
#endif
/* Independent accumulators: enough to cover two FMA units' latency (2 x 4-5 cycles) and few
 * enough to stay in registers with AVX2's 16. */
#define CHAINS 10

typedef float vfloat __attribute__((vector_size(LANES * sizeof(float))));

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static volatile float sink; /* keeps the chains' results, so they are computed */

#define CHUNK 4096       /* rounds between clock reads (a few microseconds of work) */
#define WINDOW_S 0.03    /* each thread's measuring time */

/* Every thread runs rounds of CHAINS multiply-adds for WINDOW_S of its own clock and counts them;
 * the sum of the threads' rates (they run at the same time) is the machine's. Timing each thread
 * by itself makes the figure independent of how long the team took to start. */
static double measure(void)
{
    double rate = 0;
    float total = 0;
#pragma omp parallel reduction(+ : rate, total)
    {
        vfloat acc[CHAINS], x, y;
        for (int l = 0; l < LANES; l++)
            x[l] = 0.9999999f, y[l] = 1e-7f; /* acc tends to 1: no overflow, no subnormals */
        for (int k = 0; k < CHAINS; k++)
            for (int l = 0; l < LANES; l++)
                acc[k][l] = (float)(k + 1) * 1e-3f + (float)omp_get_thread_num();
        long rounds = 0;
        double t0 = now(), t;
        do {
            for (int it = 0; it < CHUNK; it++)
                for (int k = 0; k < CHAINS; k++)
                    acc[k] = acc[k] * x + y; /* one fused multiply-add under -ffp-contract=fast */
            rounds += CHUNK;
        } while ((t = now() - t0) < WINDOW_S);
        rate += 2.0 * LANES * CHAINS * (double)rounds / t;
        for (int k = 0; k < CHAINS; k++)
            for (int l = 0; l < LANES; l++)
                total += acc[k][l];
    }
    sink = total;
    return rate;
}

double xpb_cpu_peak_gflops(void)
{
    static double peak = -1;
    if (peak >= 0)
        return peak;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) { /* the best of three: the clock settled, no preemption */
        double r = measure();
        best = r > best ? r : best;
    }
    peak = best / 1e9;
    return peak;
}
