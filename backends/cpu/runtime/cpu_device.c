/* cpu_device.c - the one CPU device ("cpu:0") and what xpubench reports about it. */
#include "cpu_internal.h"

#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__clang__)
#define XPB_CPU_COMPILER "clang " __clang_version__
#elif defined(__GNUC__)
#define XPB_CPU_COMPILER "gcc " __VERSION__
#else
#define XPB_CPU_COMPILER "unknown compiler"
#endif

int xpb_cpu_device_count(void) { return 1; }

/* Copies the "model name" of /proc/cpuinfo into name; false when there is none (e.g. on Arm). */
static bool read_model_name(char *name, size_t size)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon)
            continue;
        char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        v[strcspn(v, "\n")] = '\0';
        snprintf(name, size, "%s", v);
        found = *v != '\0';
    }
    fclose(f);
    return found;
}

/* Size in bytes of a sysfs cache "size" file ("32768K"), 0 when unreadable. */
static uint64_t read_cache_size(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    unsigned long long v = 0;
    char unit = 0;
    int got = fscanf(f, "%llu%c", &v, &unit);
    fclose(f);
    if (got < 1)
        return 0;
    if (unit == 'K')
        v <<= 10;
    else if (unit == 'M')
        v <<= 20;
    return v;
}

/* Last-level cache: the highest-level data or unified cache cpu0's sysfs lists. sysfs is
 * preferred over sysconf(_SC_LEVEL3_CACHE_SIZE), which glibc derives from CPUID and gets wrong on
 * some virtual machines (384 MiB for a 32 MiB L3 here). 0 when unknown. */
static uint64_t last_level_cache(void)
{
    uint64_t best = 0;
    int best_level = 0;
    for (int i = 0; i < 8; i++) {
        char path[128], type[32] = "";
        int level = 0;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        int got = fscanf(f, "%d", &level);
        fclose(f);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        if ((f = fopen(path, "r"))) {
            if (fscanf(f, "%31s", type) != 1)
                type[0] = '\0';
            fclose(f);
        }
        if (got != 1 || level <= best_level || strcmp(type, "Instruction") == 0)
            continue;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        uint64_t size = read_cache_size(path);
        if (size > 0) {
            best = size;
            best_level = level;
        }
    }
#ifdef _SC_LEVEL3_CACHE_SIZE
    if (best == 0) {
        long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
        best = l3 > 0 ? (uint64_t)l3 : 0;
    }
#endif
    return best;
}

xpb_status xpb_cpu_device_info(int device, xpb_device_info *out, xpb_error *err)
{
    if (device != 0)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: no device %d (the cpu backend has one device, 0)",
                        device);
    memset(out, 0, sizeof *out);
    if (!read_model_name(out->name, sizeof out->name))
        snprintf(out->name, sizeof out->name, "unknown CPU");
    out->driver[0] = '\0';
    snprintf(out->runtime, sizeof out->runtime, "OpenMP %d (%d threads), %s", _OPENMP,
             omp_get_max_threads(), XPB_CPU_COMPILER);
    snprintf(out->timer, sizeof out->timer, "host-clock");
    xpb_cpu_blas_describe(out->library, sizeof out->library, out->warning, sizeof out->warning);
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    out->memory_bytes = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size : 0;
    out->max_buffer_bytes = 0;
    out->cache_bytes = last_level_cache();
    out->peak_gflops_fp32 = xpb_cpu_peak_gflops(); /* measured (cpu_peak.c): the CPU's GEMM roof */
    out->peak_gbps = 0.0;
    out->compute_units = omp_get_max_threads();
    out->is_gpu = false;
    out->is_software = false;
    return XPB_OK;
}
