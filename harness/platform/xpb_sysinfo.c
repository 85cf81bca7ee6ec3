/* xpb_sysinfo.c - see xpb_sysinfo.h. */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "xpb_sysinfo.h"

#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "xpb_build_info.h"

/* Copies the value after "key" (and any ':' / '=' / quotes) from the first matching line. */
static void read_key(const char *path, const char *key, char *out, size_t n)
{
    FILE *f = fopen(path, "r");
    char line[512];
    if (!f)
        return;
    size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0)
            continue;
        char *v = line + kl;
        while (*v == ' ' || *v == '\t' || *v == ':' || *v == '=' || *v == '"')
            v++;
        v[strcspn(v, "\"\n")] = 0;
        snprintf(out, n, "%s", v);
        break;
    }
    fclose(f);
}

static uint64_t meminfo_kib(const char *key)
{
    char v[64] = "";
    read_key("/proc/meminfo", key, v, sizeof v);
    unsigned long long kib = 0;
    sscanf(v, "%llu", &kib);
    return (uint64_t)kib * 1024;
}

uint64_t xpb_sysinfo_mem_available(void) { return meminfo_kib("MemAvailable"); }

/* The extensions a BLAS's kernel choice depends on, in this order, that the first processor's
 * "flags" (x86) or "Features" (arm64) line of /proc/cpuinfo lists. */
static void cpu_flags(char *out, size_t n)
{
    static const char *const wanted[] = {"sse4_2", "avx",      "avx2",      "fma",     "avx512f", "avx512bw",
                                         "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16",
                                         "amx_int8", "asimd", "sve", "sve2", "sme"};
    char line[4096] = "";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "flags", 5) || !strncmp(line, "Features", 8))
            break;
        else
            line[0] = '\0';
    if (f)
        fclose(f);
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0] && used < n; i++) {
        char key[32];
        snprintf(key, sizeof key, " %s", wanted[i]);
        const char *p = strstr(line, key);
        size_t kl = strlen(key);
        if (p && (p[kl] == ' ' || p[kl] == '\n' || p[kl] == '\0'))
            used += (size_t)snprintf(out + used, n - used, "%s%s", used ? " " : "", wanted[i]);
    }
}

/* Sockets: the distinct "physical id" values of /proc/cpuinfo (at most 64 told apart). */
static int sockets(void)
{
    int ids[64], n = 0;
    char line[256];
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        int id;
        if (strncmp(line, "physical id", 11) || sscanf(line + strcspn(line, ":") + 1, "%d", &id) != 1)
            continue;
        bool seen = false;
        for (int i = 0; i < n; i++)
            seen = seen || ids[i] == id;
        if (!seen && n < 64)
            ids[n++] = id;
    }
    if (f)
        fclose(f);
    return n ? n : 1;
}

static int numa_nodes(void)
{
    int n = 0;
    char path[64];
    for (int i = 0; i < 1024; i++) {
        snprintf(path, sizeof path, "/sys/devices/system/node/node%d", i);
        if (access(path, F_OK) != 0) /* node ids are contiguous on Linux */
            break;
        n++;
    }
    return n;
}

void xpb_sysinfo_read(xpb_sysinfo *s)
{
    memset(s, 0, sizeof *s);
    gethostname(s->hostname, sizeof s->hostname - 1);
    snprintf(s->os, sizeof s->os, "unknown");
    read_key("/etc/os-release", "PRETTY_NAME", s->os, sizeof s->os);
    struct utsname u;
    if (uname(&u) == 0) {
        snprintf(s->kernel, sizeof s->kernel, "%s %s", u.sysname, u.release);
        snprintf(s->arch, sizeof s->arch, "%s", u.machine);
    }
    snprintf(s->cpu_model, sizeof s->cpu_model, "unknown");
    read_key("/proc/cpuinfo", "model name", s->cpu_model, sizeof s->cpu_model);
    s->logical_cpus = (int)sysconf(_SC_NPROCESSORS_ONLN);
    s->sockets = sockets();
    s->numa_nodes = numa_nodes();
    cpu_flags(s->cpu_flags, sizeof s->cpu_flags);
    const char *bind = getenv("OMP_PROC_BIND"), *places = getenv("OMP_PLACES");
    snprintf(s->omp_proc_bind, sizeof s->omp_proc_bind, "%s", bind ? bind : "");
    snprintf(s->omp_places, sizeof s->omp_places, "%s", places ? places : "");
    s->memory_bytes = meminfo_kib("MemTotal");
    snprintf(s->compiler, sizeof s->compiler, "%s", XPB_C_COMPILER);
}

int xpb_sysinfo_affinity_cpus(void)
{
    cpu_set_t set;
    return sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}
