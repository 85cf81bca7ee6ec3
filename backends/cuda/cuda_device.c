/* cuda_device.c - is CUDA usable here, how many devices, and what each one is. */
#include "cuda_backend.h"

#include <stdio.h>
#include <string.h>

bool xpb_cuda_probe(xpb_error *why)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        xpb_fail(why, XPB_ERR_UNAVAILABLE,
                 "no CUDA driver/GPU: cudaGetDeviceCount failed: %s (error %d)",
                 cudaGetErrorString(e), (int)e);
        return false;
    }
    if (n < 1) {
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "no CUDA GPU: cudaGetDeviceCount found 0 devices");
        return false;
    }
    return true;
}

int xpb_cuda_device_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n;
}

/* FP32 lanes (CUDA cores) per SM for a compute capability; 0 when unknown. */
static int fp32_lanes_per_sm(int major, int minor)
{
    switch (major) {
    case 5: return 128;
    case 6: return minor == 0 ? 64 : 128;
    case 7: return 64;
    case 8: return minor == 0 ? 64 : 128; /* A100 (8.0) vs GA10x / Ada (8.6, 8.7, 8.9) */
    default: return major >= 9 ? 128 : 0; /* Hopper, Blackwell */
    }
}

/* "major.minor" of a CUDA version number such as 13000 or 12080. */
static void format_cuda_version(char *buf, size_t len, int v)
{
    snprintf(buf, len, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* The NVIDIA kernel driver's version ("580.159.04") from /proc/driver/nvidia/version (Linux);
 * leaves buf empty when that file is absent or not in the expected form. */
static void read_kernel_driver_version(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "Kernel Module");
        if (p) {
            p += strlen("Kernel Module");
            while (*p == ' ' || *p == '\t')
                p++;
            size_t n = strspn(p, "0123456789.");
            if (n > 0 && n < len) {
                memcpy(buf, p, n);
                buf[n] = '\0';
            }
        }
    }
    fclose(f);
}

xpb_status xpb_cuda_device_info(int device, xpb_device_info *out, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    struct cudaDeviceProp prop;
    XPB_CUDA_CHECK(err, cudaGetDeviceProperties(&prop, device));
    /* clockRate / memoryClockRate left cudaDeviceProp in CUDA 13: read them as attributes. */
    int clock_khz = 0, mem_clock_khz = 0, bus_bits = 0;
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, device));
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, device));
    XPB_CUDA_CHECK(err, cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
    int driver = 0, runtime = 0;
    XPB_CUDA_CHECK(err, cudaDriverGetVersion(&driver));
    XPB_CUDA_CHECK(err, cudaRuntimeGetVersion(&runtime));

    snprintf(out->name, sizeof out->name, "%s", prop.name);
    char drv[32], rt[32], kmod[64];
    format_cuda_version(drv, sizeof drv, driver);
    format_cuda_version(rt, sizeof rt, runtime);
    read_kernel_driver_version(kmod, sizeof kmod);
    if (!kmod[0] && !xpb_cuda_nvml_driver_version(kmod, sizeof kmod)) /* no /proc file in some VMs */
        kmod[0] = '\0';
    if (kmod[0])
        snprintf(out->driver, sizeof out->driver, "%s (CUDA %s)", kmod, drv);
    else
        snprintf(out->driver, sizeof out->driver, "CUDA %s", drv);
    snprintf(out->runtime, sizeof out->runtime, "CUDA runtime %s, sm_%d%d", rt, prop.major,
             prop.minor);
    snprintf(out->timer, sizeof out->timer, "cuda-events");

    out->memory_bytes = (uint64_t)prop.totalGlobalMem;
    out->max_buffer_bytes = 0; /* one cudaMalloc may take all of device memory */
    out->cache_bytes = prop.l2CacheSize > 0 ? (uint64_t)prop.l2CacheSize : 0;
    out->compute_units = prop.multiProcessorCount;
    /* FMA = 2 FLOPs per lane per clock. */
    out->peak_gflops_fp32 = (double)prop.multiProcessorCount *
                            fp32_lanes_per_sm(prop.major, prop.minor) * 2.0 * clock_khz * 1e-6;
    /* Double data rate: 2 transfers per memory clock over the whole bus. */
    out->peak_gbps = (double)mem_clock_khz * 1e3 * bus_bits * 2.0 / 8.0 * 1e-9;
    out->is_gpu = true;
    out->is_software = false;
    return XPB_OK;
}
