/* cuda_device.c - is CUDA usable here (and if not, why, in the user's terms), how many devices,
 * and what each one is. */
#define _POSIX_C_SOURCE 200809L
#include "cuda_backend.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The first word of p made of digits and dots ("580.159.04") into buf; buf unchanged when there is
 * none that fits. */
static void first_version_word(const char *p, char *buf, size_t len)
{
    for (;;) {
        p += strspn(p, " \t");
        size_t word = strcspn(p, " \t\n");
        if (word == 0) /* the line's end */
            return;
        if (strspn(p, "0123456789.") == word && p[0] != '.' && word < len) {
            memcpy(buf, p, word);
            buf[word] = '\0';
            return;
        }
        p += word;
    }
}

/* The NVIDIA kernel driver's version ("580.159.04") from /proc/driver/nvidia/version (Linux):
 * "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Release Build ...", or for the open
 * modules "... Open Kernel Module for x86_64  580.159.04 ...". Leaves buf empty when that file is
 * absent or not in that form. */
static void read_kernel_driver_version(char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (!f)
        return;
    char line[512];
    if (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, "Kernel Module");
        if (p)
            first_version_word(p + strlen("Kernel Module"), buf, len);
    }
    fclose(f);
}

/* ---- why CUDA is not usable here ------------------------------------------------------------ */

/* The NVIDIA driver as it is on this machine, read around the runtime: the runtime reports a
 * machine with no driver at all as cudaErrorInsufficientDriver ("CUDA driver version is
 * insufficient for CUDA runtime version"), which reads as "update your driver". */
typedef struct driver_state {
    bool libcuda;       /* its user-space library libcuda.so.1 loads */
    bool kernel;        /* its kernel module is loaded (/proc/driver/nvidia, or WSL's /dev/dxg) */
    char kernel_version[64]; /* "580.159.04"; "" when unknown */
    int cuda_version;   /* cuDriverGetVersion of libcuda.so.1 (needs no cuInit, no GPU): 12020 =
                           CUDA 12.2; 0 when it cannot say */
} driver_state;

static void read_driver_state(driver_state *s)
{
    memset(s, 0, sizeof *s);
    s->kernel = access("/proc/driver/nvidia/version", F_OK) == 0 || access("/dev/dxg", F_OK) == 0;
    read_kernel_driver_version(s->kernel_version, sizeof s->kernel_version);
    if (s->kernel && !s->kernel_version[0] && !xpb_cuda_nvml_driver_version(s->kernel_version,
                                                                             sizeof s->kernel_version))
        s->kernel_version[0] = '\0'; /* no /proc file in some VMs: NVML's word, else unknown */
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    s->libcuda = true;
    int (*get_version)(int *) = NULL; /* CUresult cuDriverGetVersion(int *): 0 = CUDA_SUCCESS */
    *(void **)&get_version = dlsym(lib, "cuDriverGetVersion");
    if (!get_version || get_version(&s->cuda_version) != 0)
        s->cuda_version = 0;
    dlclose(lib);
}

/* " 535.104.05 (CUDA 12.2)", " (CUDA 12.2)", " 535.104.05" or "": the driver as far as it is known,
 * to follow the word "driver". */
static void format_driver(char *buf, size_t len, const driver_state *s)
{
    char cuda[32];
    format_cuda_version(cuda, sizeof cuda, s->cuda_version);
    const char *k = s->kernel_version;
    if (s->cuda_version > 0)
        snprintf(buf, len, "%s%s (CUDA %s)", k[0] ? " " : "", k, cuda);
    else
        snprintf(buf, len, "%s%s", k[0] ? " " : "", k);
}

/* " (CUDA_VISIBLE_DEVICES=...)" when that hides GPUs from CUDA, else "". */
static const char *visible_devices_note(char *buf, size_t len)
{
    const char *v = getenv("CUDA_VISIBLE_DEVICES");
    if (!v)
        return "";
    snprintf(buf, len, " (CUDA_VISIBLE_DEVICES=%s)", v);
    return buf;
}

/* Why cudaGetDeviceCount failed with e: no driver, a driver without a GPU, a driver older than
 * the runtime (only then "update the driver"), a library that does not match the kernel module,
 * or else the runtime's own words with both versions. */
static void explain_unavailable(cudaError_t e, xpb_error *why)
{
    driver_state s;
    read_driver_state(&s);
    int runtime = 0;
    if (cudaRuntimeGetVersion(&runtime) != cudaSuccess) /* cannot compare versions: say so below */
        runtime = 0;
    char drv[128], rt[32] = "?", note[256];
    format_driver(drv, sizeof drv, &s);
    if (runtime > 0)
        format_cuda_version(rt, sizeof rt, runtime);
    if (!s.libcuda && !s.kernel)
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "no NVIDIA driver on this machine (libcuda.so.1 not found)");
    else if (!s.libcuda)
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "the NVIDIA kernel driver%s is loaded, but its library libcuda.so.1 is "
                 "not found (in a container: start it with the GPUs, e.g. docker run --gpus all)", drv);
    else if (e == cudaErrorInsufficientDriver && s.cuda_version > 0 && runtime > s.cuda_version)
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "NVIDIA driver%s is older than the CUDA runtime %s this xpubench uses: "
                 "update the driver", drv, rt);
    else if (!s.kernel)
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "libcuda.so.1 is installed but no NVIDIA kernel driver is loaded (no "
                 "/proc/driver/nvidia/version), so CUDA sees no GPU (%s, error %d)", cudaGetErrorName(e), (int)e);
    else if (e == cudaErrorNoDevice)
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "the NVIDIA driver%s is loaded but sees no GPU%s", drv,
                 visible_devices_note(note, sizeof note));
    else if (e == cudaErrorSystemDriverMismatch)
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "libcuda.so.1 does not match the loaded NVIDIA kernel driver%s%s: "
                 "reboot, or reinstall the driver", s.kernel_version[0] ? " " : "", s.kernel_version);
    else
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "cudaGetDeviceCount failed: %s (%s, error %d); NVIDIA driver%s, CUDA "
                 "runtime %s", cudaGetErrorString(e), cudaGetErrorName(e), (int)e, drv[0] ? drv : " ?", rt);
}

bool xpb_cuda_probe(xpb_error *why)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        (void)cudaGetLastError(); /* not blamed on a later call */
        explain_unavailable(e, why);
        return false;
    }
    if (n < 1) {
        char note[256];
        xpb_fail(why, XPB_ERR_UNAVAILABLE, "the NVIDIA driver is loaded but sees no GPU (cudaGetDeviceCount found 0 "
                 "devices)%s", visible_devices_note(note, sizeof note));
        return false;
    }
    return true;
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
