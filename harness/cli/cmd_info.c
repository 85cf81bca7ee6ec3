/* cmd_info.c - `xpubench info [--json]`: the system fingerprint that results files carry. */
#include <cjson/cJSON.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "xpb_build_info.h"
#include "xpb_cli.h"
#include "xpb_knob.h"

static cJSON *device_object(const char *backend, int index, const xpb_device_info *d)
{
    cJSON *o = cJSON_CreateObject();
    char id[32];
    snprintf(id, sizeof id, "%s:%d", backend, index);
    cJSON_AddStringToObject(o, "id", id);
    cJSON_AddStringToObject(o, "name", d->name);
    cJSON_AddStringToObject(o, "driver", d->driver);
    cJSON_AddStringToObject(o, "runtime", d->runtime);
    cJSON_AddStringToObject(o, "library", d->library);
    cJSON_AddStringToObject(o, "warning", d->warning);
    cJSON_AddNumberToObject(o, "memory_bytes", (double)d->memory_bytes);
    cJSON_AddNumberToObject(o, "cache_bytes", (double)d->cache_bytes);
    cJSON_AddNumberToObject(o, "compute_units", d->compute_units);
    cJSON_AddNumberToObject(o, "peak_gflops_fp32", d->peak_gflops_fp32);
    cJSON_AddNumberToObject(o, "peak_gbps", d->peak_gbps);
    cJSON_AddBoolToObject(o, "software_device", d->is_software);
    return o;
}

int xpb_cmd_info(int argc, char **argv)
{
    static const struct option opts[] = {{"json", no_argument, 0, 'j'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int json = 0, c;
    optind = 1;
    opterr = 0; /* the one-line error below, not getopt's */
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c == 'j')
            json = 1;
        else if (c == 'h') {
            printf("usage: xpubench info [--json]\n");
            return XPB_EXIT_OK;
        } else
            return xpb_cli_error(XPB_EXIT_USAGE, "info: unknown option '%s' (xpubench info [--json])",
                                 argv[optind - 1]);
    }
    if (optind < argc)
        return xpb_cli_error(XPB_EXIT_USAGE, "info: unexpected argument '%s'", argv[optind]);
    xpb_sysinfo s;
    xpb_sysinfo_read(&s);
    xpb_backend_status st[XPB_MAX_BACKENDS];
    int n = xpb_backends_survey(st);

    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "xpubench_version", XPB_VERSION);
    cJSON_AddStringToObject(root, "git_commit", XPB_GIT_COMMIT);
    cJSON_AddStringToObject(root, "hostname", s.hostname);
    cJSON_AddStringToObject(root, "os", s.os);
    cJSON_AddStringToObject(root, "kernel", s.kernel);
    cJSON_AddStringToObject(root, "arch", s.arch);
    cJSON_AddStringToObject(root, "cpu_model", s.cpu_model);
    cJSON_AddNumberToObject(root, "logical_cpus", s.logical_cpus);
    cJSON_AddNumberToObject(root, "sockets", s.sockets);
    cJSON_AddNumberToObject(root, "numa_nodes", s.numa_nodes);
    cJSON_AddStringToObject(root, "cpu_flags", s.cpu_flags);
    cJSON_AddStringToObject(root, "omp_proc_bind", s.omp_proc_bind);
    cJSON_AddStringToObject(root, "omp_places", s.omp_places);
    cJSON_AddNumberToObject(root, "memory_bytes", (double)s.memory_bytes);
    cJSON_AddStringToObject(root, "compiler", s.compiler);
    cJSON_AddStringToObject(root, "cuda_compiler", XPB_CUDA_COMPILER);
    cJSON_AddStringToObject(root, "nccl", XPB_BUILD_NCCL);
    cJSON_AddStringToObject(root, "mpi", XPB_BUILD_MPI);
    cJSON_AddStringToObject(root, "vulkan_shaders", XPB_BUILD_VULKAN_SHADERS);
    /* the knobs set here (harness/core/xpb_knobs.def; `xpubench list --knobs` lists them all) */
    cJSON *knobs = cJSON_AddObjectToObject(root, "knobs");
    for (int i = 0; i < XPB_KNOB_COUNT; i++)
        if (xpb_knob_value((xpb_knob_id)i))
            cJSON_AddStringToObject(knobs, xpb_knob_decl_of((xpb_knob_id)i)->name, xpb_knob_value((xpb_knob_id)i));
    cJSON *bs = cJSON_AddArrayToObject(root, "backends");
    for (int i = 0; i < n; i++) {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "name", st[i].name);
        cJSON_AddBoolToObject(b, "available", st[i].available);
        if (!st[i].available)
            cJSON_AddStringToObject(b, "reason", st[i].reason);
        cJSON *ds = cJSON_AddArrayToObject(b, "devices");
        const xpb_backend_i *be = xpb_backend_find(st[i].name);
        for (int d = 0; st[i].available && d < be->device_count(); d++) {
            xpb_device_info info;
            xpb_error err = {{0}};
            if (be->device_info(d, &info, &err) == XPB_OK)
                cJSON_AddItemToArray(ds, device_object(st[i].name, d, &info));
        }
        cJSON_AddItemToArray(bs, b);
    }
    if (json) {
        char *text = cJSON_Print(root);
        puts(text);
        free(text);
    } else {
        printf("host      %s\nos        %s (%s, %s)\ncpu       %s, %d logical CPUs, %d socket(s), %d NUMA node(s)\n"
               "          %s; OMP_PROC_BIND=%s OMP_PLACES=%s\nmemory    %.1f GiB\n"
               "compiler  %s; nvcc %s; NCCL %s; %s\nxpubench  %s (%s)\n",
               s.hostname, s.os, s.kernel, s.arch, s.cpu_model, s.logical_cpus, s.sockets, s.numa_nodes,
               s.cpu_flags[0] ? s.cpu_flags : "no vector extensions listed", s.omp_proc_bind[0] ? s.omp_proc_bind : "(unset)",
               s.omp_places[0] ? s.omp_places : "(unset)",
               (double)s.memory_bytes / 1073741824.0, s.compiler,
               XPB_CUDA_COMPILER[0] ? XPB_CUDA_COMPILER : "(not built)",
               XPB_BUILD_NCCL[0] ? XPB_BUILD_NCCL " (cuda device groups: --devices)" : "(not built: no device groups)",
               XPB_BUILD_MPI[0] ? XPB_BUILD_MPI " (mpirun launch)" : "MPI not built (no mpirun launch)",
               XPB_VERSION, XPB_GIT_COMMIT);
        if (XPB_BUILD_VULKAN_SHADERS[0]) /* which compiler built which Vulkan shaders */
            printf("shaders   %s\n", XPB_BUILD_VULKAN_SHADERS);
        printf("knobs    ");
        for (int i = 0; i < XPB_KNOB_COUNT; i++) {
            xpb_error kerr = {{0}};
            if (xpb_knob_value((xpb_knob_id)i))
                printf(" %s=%s%s", xpb_knob_decl_of((xpb_knob_id)i)->name, xpb_knob_value((xpb_knob_id)i),
                       xpb_knob_check((xpb_knob_id)i, &kerr) ? " (NOT ACCEPTED)" : "");
        }
        printf("%s (all of them: xpubench list --knobs)\n", cJSON_GetArraySize(knobs) ? "" : " none set");
        cJSON *b;
        cJSON_ArrayForEach(b, bs)
        {
            const char *name = cJSON_GetObjectItem(b, "name")->valuestring;
            if (!cJSON_IsTrue(cJSON_GetObjectItem(b, "available"))) {
                printf("%-9s unavailable: %s\n", name, cJSON_GetObjectItem(b, "reason")->valuestring);
                continue;
            }
            cJSON *d;
            cJSON_ArrayForEach(d, cJSON_GetObjectItem(b, "devices"))
            {
                const char *lib = cJSON_GetObjectItem(d, "library")->valuestring;
                const char *warn = cJSON_GetObjectItem(d, "warning")->valuestring;
                printf("%-9s %s: %s | driver %s | %s | %.1f GiB%s%s%s\n", name,
                       cJSON_GetObjectItem(d, "id")->valuestring, cJSON_GetObjectItem(d, "name")->valuestring,
                       cJSON_GetObjectItem(d, "driver")->valuestring, cJSON_GetObjectItem(d, "runtime")->valuestring,
                       cJSON_GetObjectItem(d, "memory_bytes")->valuedouble / 1073741824.0,
                       cJSON_IsTrue(cJSON_GetObjectItem(d, "software_device")) ? " | software device" : "",
                       lib[0] ? " | " : "", lib);
                if (warn[0])
                    printf("          WARNING: %s\n", warn);
            }
        }
    }
    cJSON_Delete(root);
    return XPB_EXIT_OK;
}
