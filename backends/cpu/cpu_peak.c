/* cpu_peak.c - the fp32 peak of this CPU as this build can reach it (issue 10): every OpenMP
 * thread runs independent chains of multiply-adds on the widest vectors the build targets, long
 * enough (about 50 ms) for the clock to settle, and the rate is counted as 2 flops per lane per
 * multiply-add. It is the roof `cpu/blas` and the GEMM "% of peak" column are measured against,
 * the way a GPU's datasheet peak is. Measured once per process. A build without -march=native
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

/* Seconds for every thread to run `iters` rounds of CHAINS multiply-adds. */
static double run(long iters)
{
    double t0 = now();
    float total = 0;
#pragma omp parallel reduction(+ : total)
    {
        vfloat acc[CHAINS], x, y;
        for (int l = 0; l < LANES; l++)
            x[l] = 0.9999999f, y[l] = 1e-7f;
        for (int k = 0; k < CHAINS; k++)
            for (int l = 0; l < LANES; l++)
                acc[k][l] = (float)(k + 1) * 1e-3f + (float)omp_get_thread_num();
        for (long it = 0; it < iters; it++)
            for (int k = 0; k < CHAINS; k++)
                acc[k] = acc[k] * x + y; /* one fused multiply-add under -ffp-contract=fast */
        for (int k = 0; k < CHAINS; k++)
            for (int l = 0; l < LANES; l++)
                total += acc[k][l];
    }
    sink = total;
    return now() - t0;
}

double xpb_cpu_peak_gflops(void)
{
    static double peak = -1;
    if (peak >= 0)
        return peak;
    long iters = 1000;
    double t = run(iters);
    while (t < 0.01 && iters < (1L << 30)) /* calibrate to about 50 ms */
        t = run(iters *= 4);
    iters = (long)((double)iters * 0.05 / (t > 0 ? t : 1e-3)) + 1;
    double best = 0;
    for (int rep = 0; rep < 3; rep++) { /* the best of three: the clock settled, no preemption */
        t = run(iters);
        double flops = 2.0 * LANES * CHAINS * (double)iters * (double)omp_get_max_threads();
        if (t > 0 && flops / t > best)
            best = flops / t;
    }
    peak = best / 1e9;
    return peak;
}
