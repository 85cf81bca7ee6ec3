/* xpb_sysinfo.h - the host part of the system fingerprint (GPUs come from the backends). */
#ifndef XPB_SYSINFO_H
#define XPB_SYSINFO_H

#include <stdint.h>

typedef struct xpb_sysinfo {
    char hostname[128];
    char os[160];       /* PRETTY_NAME of /etc/os-release */
    char kernel[160];   /* uname -sr */
    char arch[72];
    char cpu_model[160];
    int logical_cpus;
    int sockets;        /* distinct "physical id" of /proc/cpuinfo (1 when none is listed)   */
    int numa_nodes;     /* /sys/devices/system/node/node*, 0 when unknown                     */
    char cpu_flags[160]; /* the vector and matrix extensions present, e.g. "avx2 fma avx512f"  */
    char omp_proc_bind[32], omp_places[64]; /* the environment's thread binding, "" when unset */
    uint64_t memory_bytes;
    char compiler[96];
} xpb_sysinfo;

void xpb_sysinfo_read(xpb_sysinfo *s);
/* The CPUs this process may run on (its affinity mask: taskset, mpirun's binding, a batch
 * system's cgroup), or 0 when unknown. */
int xpb_sysinfo_affinity_cpus(void);
/* MemAvailable from /proc/meminfo, or 0 when unknown. */
uint64_t xpb_sysinfo_mem_available(void);

#endif
