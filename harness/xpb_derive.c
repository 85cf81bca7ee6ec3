/* xpb_derive.c - throughput, roofs and speedups of a finished run: derived in this one place
 * from what each case declared (bytes, flops) and its median kernel time. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xpb_runner.h"

/* The bandwidth roof of a device: the GB/s of its copy op at the largest size measured in this
 * run (read + write), else the datasheet figure. */
static double bandwidth_roof(const xpb_run *run, const xpb_device *dev, const char **source)
{
    double best = 0;
    uint64_t best_n = 0;
    for (size_t i = 0; i < run->count; i++) {
        const xpb_result *r = &run->results[i];
        if (r->device == dev && r->c.op == XPB_OP_COPY && r->status == XPB_CASE_OK && r->timed &&
            r->c.elements >= best_n) {
            best_n = r->c.elements;
            best = r->gbps;
        }
    }
    if (best > 0) {
        *source = "copy op, this run";
        return best;
    }
    *source = dev->info.peak_gbps > 0 ? "datasheet" : "unknown";
    return dev->info.peak_gbps;
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
    }
    for (size_t i = 0; i < run->count; i++) {
        xpb_result *r = &run->results[i];
        if (!r->timed)
            continue;
        const char *src;
        r->roof_gbps = bandwidth_roof(run, r->device, &src);
        snprintf(r->roof_source, sizeof r->roof_source, "%s", src);
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
}
