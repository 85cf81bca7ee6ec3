/* xpb_derive.c - throughput, roofs and speedups of a finished run: derived in this one place
 * from what each case declared (bytes, flops) and its median kernel time. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xpb_runner.h"

/* Two devices are one physical GPU seen through two APIs (cuda:0 and vulkan:0 on the same
 * H100) when both are GPUs with the same name; the CPU is only itself. */
static bool same_hardware(const xpb_device *a, const xpb_device *b)
{
    return a == b || (a->info.is_gpu && b->info.is_gpu && strcmp(a->info.name, b->info.name) == 0);
}

/* The bandwidth roof of a device: the best GB/s (read + write) of the copy op at the largest
 * copy size measured in this run on the same hardware, through any backend and variant;
 * else the datasheet figure. */
static double bandwidth_roof(const xpb_run *run, const xpb_device *dev, char *source, size_t n)
{
    double best = 0;
    uint64_t best_n = 0;
    const xpb_device *from = NULL;
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        if (r->c.op != XPB_OP_COPY || r->status != XPB_CASE_OK || !r->timed ||
            !same_hardware(dev, r->device) || r->c.elements < best_n)
            continue;
        if (r->c.elements > best_n)
            best = 0;
        best_n = r->c.elements;
        if (r->gbps > best) {
            best = r->gbps;
            from = r->device;
        }
    }
    if (best > 0) {
        snprintf(source, n, "copy op on %.40s, this run", from->label);
        return best;
    }
    snprintf(source, n, "%s", dev->info.peak_gbps > 0 ? "datasheet" : "unknown");
    return dev->info.peak_gbps;
}

/* Library variants are the measured roofs of GEMM: cuBLAS on NVIDIA GPUs, OpenBLAS on the CPU.
 * A variant is compared with the library call of its own precision: fp16 inputs with
 * cuBLAS on fp16 inputs, tf32 with cuBLAS TF32, fp32 with the strict fp32 call. */
static bool is_library_for(const xpb_result *lib, const xpb_result *r)
{
    if (strncmp(r->precision, "fp16", 4) == 0)
        return strcmp(lib->variant, "cublas-fp16") == 0;
    if (strncmp(r->precision, "tf32", 4) == 0)
        return strcmp(lib->variant, "cublas-tf32") == 0;
    return strcmp(lib->variant, "cublas") == 0 || strcmp(lib->variant, "blas") == 0;
}

static void gemm_roofs(const xpb_run *run, xpb_result *r)
{
    if (r->c.op != XPB_OP_GEMM && r->c.op != XPB_OP_GEMV)
        return;
    double peak = r->device->info.peak_gflops_fp32;
    for (size_t j = 0; j < run->count && peak <= 0; j++) /* Vulkan: the same GPU's figure via CUDA */
        if (same_hardware(r->device, run->results[j].device))
            peak = run->results[j].device->info.peak_gflops_fp32;
    r->pct_of_peak = peak > 0 ? r->gflops / peak * 100.0 : 0;
    const xpb_result *lib = NULL;
    for (size_t j = 0; j < run->count; j++) {
        const xpb_result *q = &run->results[j];
        if (q->timed && q->status == XPB_CASE_OK && same_hardware(r->device, q->device) &&
            strcmp(q->c.id, r->c.id) == 0 && is_library_for(q, r) && (!lib || q->gflops > lib->gflops))
            lib = q;
    }
    if (lib && lib->gflops > 0) {
        r->pct_of_library = r->gflops / lib->gflops * 100.0;
        snprintf(r->library_variant, sizeof r->library_variant, "%.15s/%.31s", lib->device->label, lib->variant);
    }
}

/* A figure past what the hardware can do is a broken measurement (a kernel that skips its work,
 * keeps its output across launches or patches a timer), never a speed: flagged when a working set
 * four times past the last-level cache moves faster than 1.1x the datasheet bandwidth, or fp32
 * arithmetic runs past 1.1x the datasheet fp32 peak. The margin covers datasheet rounding; the
 * cache rule leaves cache-resident cases alone, which legitimately beat DRAM. */
#define PLAUSIBLE_MARGIN 1.1
#define PLAUSIBLE_CACHE_FACTOR 4.0

static void check_plausible(const xpb_run *run, xpb_result *r)
{
    r->implausible[0] = 0;
    xpb_device_info info = r->device->info;
    for (size_t j = 0; j < run->count; j++) { /* Vulkan: the same GPU's figures via CUDA */
        const xpb_device_info *o = &run->results[j].device->info;
        if (!same_hardware(r->device, run->results[j].device))
            continue;
        info.peak_gbps = info.peak_gbps > 0 ? info.peak_gbps : o->peak_gbps;
        info.peak_gflops_fp32 = info.peak_gflops_fp32 > 0 ? info.peak_gflops_fp32 : o->peak_gflops_fp32;
        info.cache_bytes = info.cache_bytes > 0 ? info.cache_bytes : o->cache_bytes;
    }
    double bytes = (double)(r->c.bytes_read + r->c.bytes_written);
    if (info.peak_gbps > 0 && info.cache_bytes > 0 && bytes > PLAUSIBLE_CACHE_FACTOR * (double)info.cache_bytes &&
        r->gbps > PLAUSIBLE_MARGIN * info.peak_gbps)
        snprintf(r->implausible, sizeof r->implausible,
                 "%.0f GB/s moving %.3g GB, %.0fx the %.0f MiB cache: past 1.1x the hardware's %.0f GB/s", r->gbps,
                 bytes * 1e-9, bytes / (double)info.cache_bytes, (double)info.cache_bytes / 1048576.0, info.peak_gbps);
    else if (info.peak_gflops_fp32 > 0 && r->c.flops > 0 && strcmp(r->precision, "fp32") == 0 &&
             r->gflops > PLAUSIBLE_MARGIN * info.peak_gflops_fp32)
        snprintf(r->implausible, sizeof r->implausible, "%.0f GFLOP/s in fp32: past 1.1x the hardware's fp32 peak of %.0f",
                 r->gflops, info.peak_gflops_fp32);
}

void xpb_runner_derive(xpb_run *run)
{
    for (size_t i = 0; i < run->count; i++) {
        xpb_result *r = &run->results[i];
        double t = r->kernel.median;
        if (!r->timed || t <= 0)
            continue;
        r->gbps = (double)(r->c.bytes_read + r->c.bytes_written) / t * 1e-9;
        r->gflops = r->c.flops / t * 1e-9;
        if (r->run.present) /* the stateful run's figures per second and per iteration */
            xpb_run_report_derive(&r->run.report, t, r->kernel.p05, r->kernel.p95, (long long)r->kernel.n,
                                  r->run.iterations);
    }
    for (size_t i = 0; i < run->count; i++) {
        xpb_result *r = &run->results[i];
        if (!r->timed)
            continue;
        r->roof_gbps = bandwidth_roof(run, r->device, r->roof_source, sizeof r->roof_source);
        r->pct_of_roof = r->roof_gbps > 0 ? r->gbps / r->roof_gbps * 100.0 : 0;
        /* speedup against the fastest validated cpu variant of the same case */
        double cpu = 0;
        for (size_t j = 0; j < run->count; j++) {
            const xpb_result *q = &run->results[j];
            if (q->timed && q->status == XPB_CASE_OK && strcmp(q->device->backend->name, "cpu") == 0 &&
                strcmp(q->c.id, r->c.id) == 0 && (cpu == 0 || q->kernel.median < cpu))
                cpu = q->kernel.median;
        }
        r->speedup_vs_cpu = cpu > 0 ? cpu / r->kernel.median : 0;
    }
    for (size_t i = 0; i < run->count; i++)
        if (run->results[i].timed) {
            gemm_roofs(run, &run->results[i]);
            check_plausible(run, &run->results[i]);
        }
}
