/* xpb_sysinfo.c - see xpb_sysinfo.h. */
#define _DEFAULT_SOURCE
#include "xpb_sysinfo.h"

#include <stdio.h>
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
    s->memory_bytes = meminfo_kib("MemTotal");
    snprintf(s->compiler, sizeof s->compiler, "%s", XPB_C_COMPILER);
}
