/* cmd_run.c - `xpubench run`: resolve backends (no silent fallback), build the case list, run,
 * print the table and write the results files. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_cli.h"
#include "xpb_clock.h"
#include "xpb_input.h"
#include "xpb_mpi.h"
#include "xpb_plugin.h"
#include "xpb_preset_auto.h"
#include "xpb_progress.h"
#include "xpb_sysinfo.h"
#include "xpb_tuning.h"
#include "xpb_watch.h"


#include "cmd_run_opts.h"


/* XPB_SLOWDOWN=REGEX=FRACTION (xpb_runner.h): a deliberate slowdown, never silent. */
static int parse_slowdown(xpb_run_config *cfg)
{
    const char *v = getenv("XPB_SLOWDOWN");
    if (!v || !*v)
        return 0;
    const char *eq = strrchr(v, '=');
    char re[512], *end = NULL;
    double f = eq ? strtod(eq + 1, &end) : 0;
    if (!eq || eq == v || (size_t)(eq - v) >= sizeof re || end == eq + 1 || *end || !(f >= 0.01 && f <= 1))
        return xpb_cli_error(XPB_EXIT_USAGE, "bad XPB_SLOWDOWN '%s' (REGEX=FRACTION, FRACTION 0.01..1, e.g. "
                             "'copy/n=4097/=0.25')", v);
    snprintf(re, sizeof re, "%.*s", (int)(eq - v), v);
    if (regcomp(&cfg->slowdown_re, re, REG_EXTENDED | REG_NOSUB) != 0)
        return xpb_cli_error(XPB_EXIT_USAGE, "bad XPB_SLOWDOWN regex '%s'", re);
    cfg->slowdown = v;
    cfg->slowdown_fraction = f;
    long q = lround(1 / f);
    if (!cfg->progress_quiet) /* said once, by the run: not by each isolated case's process or MPI rank */
        fprintf(stderr, "xpubench: warning: XPB_SLOWDOWN=%s: cases matching '%s' run one extra launch per %ld timed "
            "launches (%.3g%% slower): their times are slowed on purpose\n", v, re, q, 100.0 / (double)q);
    return 0;
}

/* Quick and conformance presets are for CI: short rounds unless asked otherwise. The default's 5
 * rounds of 0.06 s time a case as long as the 3 back-to-back repetitions of 0.1 s did before
 * rounds existed. */
static void apply_preset_defaults(run_opts *o, const xpb_run *run)
{
    bool light = strcmp(o->preset, "quick") == 0 || strcmp(o->preset, "conformance") == 0;
    if (strcmp(o->preset, XPB_PRESET_AUTO) == 0) { /* light when every device runs the short suite */
        light = run->n_devices > 0;
        for (size_t i = 0; i < run->n_devices; i++)
            light &= run->devices[i].preset && strcmp(run->devices[i].preset, XPB_PRESET_SHORT) == 0;
    }
    if (!o->reps_set)
        o->cfg.repetitions = 1;
    if (!o->rounds_set)
        o->cfg.rounds = 5;
    if (!o->min_time_set)
        o->cfg.min_time = light ? 0.01 : 0.06;
    if (!o->warmup_set)
        o->cfg.warmup_time = light ? 0.005 : 0.05;
    /* NVML reports power averaged over about a second: shorter timed windows would mostly
     * measure the idle board before them. */
    if (o->cfg.power && !o->min_time_set && o->cfg.min_time < 1.0)
        o->cfg.min_time = 1.0;
}

/* ---- backends ------------------------------------------------------------------------------------ */

/* A device's warning (a library's fallback, a group's starved host threads): never silent, also
 * in the results; under MPI rank 0 says it for every process. */
static void warn_device(const xpb_device *d)
{
    if (d->info.warning[0] && xpb_mpi_rank() == 0)
        fprintf(stderr, "xpubench: warning: %s: %s\n", d->label, d->info.warning);
}

static int add_device(xpb_run *run, const xpb_backend_i *b, int index)
{
    for (size_t i = 0; i < run->n_devices; i++)
        if (run->devices[i].backend == b && run->devices[i].index == index)
            return XPB_EXIT_OK;
    if (run->n_devices == MAX_DEVICES)
        return xpb_cli_error(XPB_EXIT_USAGE, "too many devices (at most %d)", MAX_DEVICES);
    xpb_error err = {{0}};
    xpb_device *d = &run->devices[run->n_devices];
    if (xpb_device_open(b, index, d, &err) != XPB_OK)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "cannot open %s:%d: %s", b->name, index, err.msg);
    warn_device(d);
    run->n_devices++;
    return XPB_EXIT_OK;
}

/* Opens the requested devices. "all" takes every available backend's device 0 and reports the
 * unavailable ones; naming an unavailable backend or device is an error (exit 3). */
static int open_backends(const char *list, const xpb_backend_status *st, int n_st, xpb_run *run)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (strcmp(tok, "all") == 0) {
            for (int i = 0; i < n_st; i++) {
                if (!st[i].available) {
                    fprintf(stderr, "xpubench: skipping %s: %s\n", st[i].name, st[i].reason);
                    continue;
                }
                int rc = add_device(run, xpb_backend_find(st[i].name), 0);
                if (rc)
                    return rc;
            }
            continue;
        }
        char *colon = strchr(tok, ':');
        int64_t index = 0;
        if (colon) {
            *colon = 0;
            if (!xpb_run_parse_int(colon + 1, &index) || index < 0 || index > 1000)
                return xpb_cli_error(XPB_EXIT_USAGE, "bad device '%s:%s' (expected NAME:INDEX)", tok, colon + 1);
        }
        if (!xpb_backend_name_known(tok))
            return xpb_cli_error(XPB_EXIT_USAGE, "unknown backend '%s' (cpu, cuda, vulkan, all)", tok);
        const xpb_backend_status *s = NULL;
        for (int i = 0; i < n_st; i++)
            if (strcmp(st[i].name, tok) == 0)
                s = &st[i];
        if (!s || !s->available)
            return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "backend %s is unavailable: %s", tok, s ? s->reason : "?");
        const xpb_backend_i *b = xpb_backend_find(tok);
        if (index >= b->device_count())
            return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "device %s:%lld does not exist (%d %s device(s))", tok,
                                 (long long)index, b->device_count(), tok);
        int rc = add_device(run, b, (int)index);
        if (rc)
            return rc;
    }
    if (run->n_devices == 0)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "no backend is available");
    return XPB_EXIT_OK;
}

/* ---- cases --------------------------------------------------------------------------------------- */

static bool in_list(const char *list, const char *name) { return xpb_name_in_list(list, name); }

/* Every name of --variant LIST is a variant of some kernel of this build (else a usage error). */
static int check_variants(const char *list)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list ? list : "");
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        bool known = false;
        for (const xpb_backend_i *const *b = xpb_backends(); *b && !known; b++)
            for (const xpb_kernel *const *k = (*b)->kernels; *k && !known; k++)
                known = strcmp((*k)->variant, tok) == 0;
        if (!known && !xpb_plugin_has_variant(tok))
            return xpb_cli_error(XPB_EXIT_USAGE, "unknown variant '%s' (xpubench list shows each op's variants)", tok);
    }
    return XPB_EXIT_OK;
}

/* One group of --devices (`entry`, "0,1" or "all") parsed into group (*n of them; 0 for "all"):
 * a bad index or one named twice is exit 2, on any machine. */
static int parse_group(const run_opts *o, const char *entry, int *group, int *n)
{
    *n = 0;
    if (strcmp(entry, "all") == 0)
        return XPB_EXIT_OK;
    char buf[512];
    snprintf(buf, sizeof buf, "%s", entry);
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int64_t v;
        if (!xpb_run_parse_int(t, &v) || v < 0 || v > 1000 || *n == XPB_MAX_GROUP)
            return xpb_cli_error(XPB_EXIT_USAGE, "bad --devices '%s' (indices as 0,1 or all)", o->devices);
        for (int i = 0; i < *n; i++)
            if (group[i] == v)
                return xpb_cli_error(XPB_EXIT_USAGE, "--devices names device %lld twice", (long long)v);
        group[(*n)++] = (int)v;
    }
    if (*n == 0)
        return xpb_cli_error(XPB_EXIT_USAGE, "bad --devices '%s' (indices as 0,1 or all)", o->devices);
    return XPB_EXIT_OK;
}

/* --devices LIST parsed into o->group (*n of them; 0 for "all"). */
static int parse_device_list(run_opts *o, int *n)
{
    return parse_group(o, o->devices, o->group, n);
}

/* --devices LIST:LIST...: every group into o->groups (o->group_size[i] 0 for "all"), at most
 * MAX_DEVICES of them, no group twice; exit 2 otherwise. */
static int parse_group_sweep(run_opts *o)
{
    char buf[512];
    if (strlen(o->devices) >= sizeof buf)
        return xpb_cli_error(XPB_EXIT_USAGE, "bad --devices '%.40s...' (too long)", o->devices);
    snprintf(buf, sizeof buf, "%s", o->devices);
    o->n_groups = 0;
    int rc = XPB_EXIT_OK;
    for (char *t = buf, *end; t && !rc; t = end ? end + 1 : NULL) {
        if ((end = strchr(t, ':')))
            *end = '\0';
        if (o->n_groups == MAX_DEVICES)
            return xpb_cli_error(XPB_EXIT_USAGE, "--devices '%s': more than %d groups", o->devices, MAX_DEVICES);
        int i = o->n_groups++;
        rc = parse_group(o, t, o->groups[i], &o->group_size[i]);
        for (int j = 0; j < i && !rc; j++)
            if (o->group_size[j] == o->group_size[i] &&
                memcmp(o->groups[j], o->groups[i], (size_t)o->group_size[i] * sizeof o->groups[i][0]) == 0)
                rc = xpb_cli_error(XPB_EXIT_USAGE, "--devices '%s' names the group %s twice", o->devices, t);
    }
    return rc;
}

/* The one backend of --backend that device groups run on (*b), probed: a list, an unavailable
 * backend or one without groups is an error naming the reason (`what` says who asked). */
static int group_backend(const run_opts *o, const char *what, const xpb_backend_i **out)
{
    const xpb_backend_i *b = strchr(o->backends, ',') || strchr(o->backends, ':') ? NULL : xpb_backend_find(o->backends);
    if (!b) {
        if (xpb_backend_name_known(o->backends) && xpb_backend_missing_reason(o->backends))
            return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s: backend %s is unavailable: %s", what, o->backends,
                                 xpb_backend_missing_reason(o->backends));
        return xpb_cli_error(XPB_EXIT_USAGE, "%s needs one backend by name (--backend cuda), not '%s'", what,
                             o->backends);
    }
    if (!b->open_group)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s: the %s backend has no device groups%s", what, b->name,
                             strcmp(b->name, "cuda") == 0 ? " in this build: it was built without NCCL (XPB_NCCL: "
                             "nccl.h and libnccl from the CUDA toolkit, NCCL_HOME or libnccl-dev)"
                                                          : ": multi-device cases run on cuda with NCCL");
    xpb_error why = {{0}};
    if (!b->probe(&why))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "backend %s is unavailable: %s", b->name, why.msg);
    *out = b;
    return XPB_EXIT_OK;
}

/* Under MPI (mpirun -np N xpubench run --backend cuda ...): this process is one rank of a device
 * group over every process, on GPU L of its host, L its rank among the host's processes, or on
 * entry L of --devices LIST (docs/multi-gpu.md). */
static int resolve_mpi_group(run_opts *o)
{
    int n = 0, local = xpb_mpi_local_rank(), rc;
    char what[64];
    snprintf(what, sizeof what, "under MPI (%d processes)", xpb_mpi_size());
    const xpb_backend_i *b = NULL;
    if (o->devices && strchr(o->devices, ':')) /* every process is one rank of the one group */
        return xpb_cli_error(XPB_EXIT_USAGE, "%s: --devices %s is several device groups; under MPI the processes "
                             "are one group: run mpirun once per group size", what, o->devices);
    if ((o->devices && (rc = parse_device_list(o, &n))) || (rc = group_backend(o, what, &b)))
        return rc;
    if (n > 0 && local >= n)
        return xpb_cli_error(XPB_EXIT_USAGE, "%s: --devices %s names %d device(s); this host runs %d or more "
                             "processes (one device each)", what, o->devices, n, local + 1);
    int device = n > 0 ? o->group[local] : local, have = b->device_count();
    if (device >= have)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s: MPI rank %d would take %s:%d; its host has %d %s device(s)",
                             what, xpb_mpi_rank(), b->name, device, have, b->name);
    o->group[0] = device;
    o->sizes.ranks = xpb_mpi_size();
    return XPB_EXIT_OK;
}

/* --devices LIST: the one backend of --backend, and the group's devices (o->group, sizes.ranks).
 * The list itself first (exit 2); then a backend without device groups, an unavailable one or a
 * device it lacks: exit 3, naming the reason. */
static int resolve_group(run_opts *o)
{
    if (xpb_mpi_active())
        return resolve_mpi_group(o);
    if (!o->devices)
        return XPB_EXIT_OK;
    int rc;
    const xpb_backend_i *b = NULL;
    if ((rc = parse_group_sweep(o)) || (rc = group_backend(o, "--devices", &b)))
        return rc;
    int have = b->device_count();
    for (int g = 0; g < o->n_groups; g++) {
        int *group = o->groups[g], n = o->group_size[g];
        bool all = n == 0; /* "all": every device */
        for (; all && n < have && n < XPB_MAX_GROUP; n++)
            group[n] = n;
        for (int i = 0; i < n; i++)
            if (group[i] >= have)
                return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "--devices: %s:%d does not exist (%d %s device(s))",
                                     b->name, group[i], have, b->name);
        if (n == 0)
            return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "--devices %s: no %s device here", o->devices, b->name);
        o->group_size[g] = n;
    }
    memcpy(o->group, o->groups[0], sizeof o->group);
    o->sizes.ranks = o->group_size[0];
    return XPB_EXIT_OK;
}

/* The device group of --devices (or of the MPI processes) as the run's one device; a sweep's
 * groups (--devices 0:0,1:...) as its devices, in the order given. */
static int open_group(const run_opts *o, xpb_run *run)
{
    xpb_error err = {{0}};
    const xpb_backend_i *b = xpb_backend_find(o->backends);
    int n = xpb_mpi_active() ? 1 : o->n_groups;
    for (int g = 0; g < n; g++) {
        xpb_device *d = &run->devices[g];
        xpb_status st = xpb_mpi_active() ? xpb_device_open_group_mpi(b, o->group[0], d, &err)
                                         : xpb_device_open_group(b, o->groups[g], o->group_size[g], d, &err);
        if (st) {
            xpb_device_close(d); /* what it opened before failing */
            return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "cannot open the device group %s: %s", d->label, err.msg);
        }
        warn_device(d);
        run->n_devices = (size_t)g + 1;
    }
    return XPB_EXIT_OK;
}

/* Whether an earlier group of a sweep (--devices 0,1:2,3) has g's size: its cases are made. */
static bool size_made(const run_opts *o, int g)
{
    for (int j = 0; j < g; j++)
        if (o->group_size[j] == o->group_size[g])
            return true;
    return false;
}

/* The cases of one preset, tagged with it, appended to all. A scaling sweep's group workloads
 * make their cases once per group size (sizes.ranks: gpus=P in the id), each run only by the
 * groups of that size (xpb_runner.c): the cases and ids of separate runs per size, so compare and
 * the report's scaling section read one file as they read several. */
static int add_preset_cases(const run_opts *o, const char *preset, xpb_case_list *all)
{
    size_t from = all->count;
    int rc = XPB_EXIT_OK;
    for (const xpb_workload_i *const *w = xpb_workloads(); *w && !rc; w++) {
        if (!in_list(o->workloads, (*w)->name))
            continue;
        if (!o->workloads && (*w)->group != (o->sizes.ranks > 0))
            continue; /* "every workload": the multi-device ones on a device group, the others without */
        if (o->sizes.input && !(*w)->reads_input) { /* --input: only the workloads that read files */
            if (o->workloads)
                rc = xpb_cli_error(XPB_EXIT_USAGE, "--input: workload %s does not read input files", (*w)->name);
            continue;
        }
        for (int g = 0; g < (o->n_groups > 1 && (*w)->group ? o->n_groups : 1) && !rc; g++) {
            if (size_made(o, g))
                continue;
            xpb_sizes sizes = o->sizes;
            sizes.ranks = o->n_groups > 1 ? o->group_size[g] : o->sizes.ranks;
            xpb_error err = {{0}};
            xpb_status st = (*w)->add_cases(preset, &sizes, all, &err);
            if (st)
                rc = xpb_cli_error(st == XPB_ERR_USAGE ? XPB_EXIT_USAGE : XPB_EXIT_UNAVAILABLE, "%s", err.msg);
        }
    }
    for (size_t i = from; i < all->count; i++)
        all->items[i].preset = preset;
    return rc;
}

/* --preset auto with sizes of its own (--size) or a device group: one preset for all. */
static bool auto_per_device(const run_opts *o)
{
    return strcmp(o->preset, XPB_PRESET_AUTO) == 0 && o->sizes.count == 0 && o->sizes.ranks == 0;
}

/* The cases of the preset, or under --preset auto of both presets it chooses between (each device
 * then runs its own: xpb_preset_auto.h), filtered. */
static int build_cases(const run_opts *o, xpb_case_list *cases)
{
    if (o->workloads) { /* every named workload must exist */
        char buf[256];
        snprintf(buf, sizeof buf, "%s", o->workloads);
        char *save = NULL;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
            if (!xpb_workload_find(t))
                return xpb_cli_error(XPB_EXIT_USAGE, "unknown workload '%s' (see xpubench list)", t);
    }
    regex_t re;
    if (o->filter && regcomp(&re, o->filter, REG_EXTENDED | REG_NOSUB) != 0)
        return xpb_cli_error(XPB_EXIT_USAGE, "bad --filter regex '%s'", o->filter);
    xpb_case_list all = {0};
    bool two = auto_per_device(o);
    const char *first = strcmp(o->preset, XPB_PRESET_AUTO) == 0 ? XPB_PRESET_FULL_SUITE : o->preset;
    int rc = add_preset_cases(o, first, &all);
    if (!rc && two)
        rc = add_preset_cases(o, XPB_PRESET_SHORT, &all);
    for (size_t i = 0; i < all.count && !rc; i++) {
        if (o->filter && regexec(&re, all.items[i].id, 0, NULL, 0) != 0)
            continue;
        xpb_error err = {{0}};
        if (xpb_case_list_push(cases, &all.items[i], &err))
            rc = xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s", err.msg);
    }
    xpb_case_list_free(&all);
    if (o->filter)
        regfree(&re);
    if (!rc && cases->count == 0)
        rc = xpb_cli_error(XPB_EXIT_USAGE, "no case matches (preset %s%s%s%s)%s", o->preset,
                           o->sizes.count ? ", --size" : "", o->filter ? ", filter " : "", o->filter ? o->filter : "",
                           o->sizes.count ? ": does --size give every key the workload needs? (xpubench run --help, "
                                            "docs/workloads.md)"
                                          : "");
    return rc;
}

/* --preset auto: each opened device's preset, the note said once, and the cases no device runs
 * dropped (their inputs are never made). */
static void assign_presets(const run_opts *o, xpb_run *run, xpb_case_list *cases)
{
    if (!auto_per_device(o))
        return;
    xpb_preset_auto_assign(run, xpb_machine_has_hardware_gpu());
    if (run->preset_note[0] && xpb_mpi_rank() == 0)
        fprintf(stderr, "xpubench: %s\n", run->preset_note);
    size_t kept = 0;
    for (size_t i = 0; i < cases->count; i++) {
        bool used = false;
        for (size_t j = 0; j < run->n_devices && !used; j++)
            used = strcmp(run->devices[j].preset, cases->items[i].preset) == 0;
        if (used)
            cases->items[kept++] = cases->items[i];
    }
    cases->count = kept;
}

/* ---- outputs ------------------------------------------------------------------------------------- */

static int write_outputs(const run_opts *o, const xpb_run *run, const xpb_run_meta *meta)
{
    xpb_error err = {{0}};
    if (o->out && xpb_results_write_json(o->out, run, meta, &err))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s", err.msg);
    if (o->csv && xpb_results_write_csv(o->csv, run, &err))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s", err.msg);
    if (o->markdown && xpb_results_write_markdown(o->markdown, run, &err))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s", err.msg);
    if (o->out)
        fprintf(stderr, "xpubench: results written to %s\n", o->out);
    return XPB_EXIT_OK;
}

/* Fails before any work when an output file's folder is missing or not writable. */
static int check_output_path(const char *flag, const char *path)
{
    if (!path)
        return XPB_EXIT_OK;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if (access(dir, W_OK) != 0)
        return xpb_cli_error(XPB_EXIT_USAGE, "cannot write %s %s: folder %s: %s", flag, path, dir, strerror(errno));
    return XPB_EXIT_OK;
}

static int exit_code(const xpb_run *run)
{
    int code = XPB_EXIT_OK;
    for (size_t i = 0; i < run->count; i++) {
        if (run->results[i].status == XPB_CASE_FAILED_VALIDATION)
            return XPB_EXIT_VALIDATION;
        if (run->results[i].status == XPB_CASE_ERROR)
            code = XPB_EXIT_UNAVAILABLE;
    }
    return code;
}

static void join_args(int argc, char **argv, char *out, size_t n)
{
    size_t used = (size_t)snprintf(out, n, "xpubench");
    for (int i = 0; i < argc && used < n; i++)
        used += (size_t)snprintf(out + used, n - used, " %s", argv[i]);
}

static int run(int argc, char **argv);

/* Under an MPI launcher, MPI frames the run; every process ends with the same exit code. */
int xpb_cmd_run(int argc, char **argv)
{
    xpb_error err = {{0}};
    if (xpb_mpi_start(&err))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s", err.msg);
    int rc = xpb_mpi_max_int(run(argc, argv));
    xpb_mpi_finish();
    return rc;
}

/* What the watcher (xpb_watch.h) needs to write an interrupted run's files. */
typedef struct interrupt_ctx {
    const run_opts *o;
    const xpb_run_meta *meta;
} interrupt_ctx;

static int write_interrupted(void *user, xpb_run *snap)
{
    const interrupt_ctx *x = user;
    if (snap->cases_finished == 0) {
        fprintf(stderr, "xpubench: %s before any case finished: no results written\n", snap->interrupted);
        return 0;
    }
    xpb_runner_derive(snap);
    /* the files first: under mpirun the process has a grace period (Open MPI: 1 s by default) between
     * SIGTERM and SIGKILL, and a table printed into a pipe the launcher reads may wait */
    int rc = write_outputs(x->o, snap, x->meta);
    xpb_results_print_table(stdout, snap);
    fprintf(stderr, "xpubench: %s after %zu of %zu cases; the results hold those, marked incomplete\n",
            snap->interrupted, snap->cases_finished, snap->cases_planned);
    return rc;
}

static int run(int argc, char **argv)
{
    run_opts o = {.backends = "all", .preset = XPB_PRESET_AUTO};
    o.cfg.seed = 1;
    o.cfg.e2e_iterations = 3;
    o.cfg.sample_units = 4096;
    int rc = xpb_run_parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? XPB_EXIT_OK : rc;
    o.cfg.preset = o.preset;
    o.cfg.sizes = &o.sizes;
    o.cfg.progress_tty = isatty(2);
    if (xpb_mpi_rank() > 0) { /* under MPI rank 0 prints and writes for every rank */
        o.out = o.csv = o.markdown = NULL;
        o.cfg.dump_dir = NULL;
        o.cfg.progress_quiet = true;
        if (!freopen("/dev/null", "w", stdout))
            return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "MPI rank %d: cannot silence stdout", xpb_mpi_rank());
    }
    char fail_dir[1024]; /* failing cases are dumped beside --out: results.json -> results.dump/ */
    int dump_count = 0;
    size_t stem = o.out ? strlen(o.out) : 0;
    if (stem > 5 && strcmp(o.out + stem - 5, ".json") == 0)
        stem -= 5;
    snprintf(fail_dir, sizeof fail_dir, "%.*s%s", (int)stem, o.out ? o.out : "", o.out ? ".dump" : "xpubench-dump");
    o.cfg.dump_fail_dir = o.cfg.dump_dir ? o.cfg.dump_dir : xpb_mpi_rank() > 0 ? NULL : fail_dir;
    o.cfg.dump_count = &dump_count;
    if (o.isolated_case) { /* the run that started it prints and writes (its dumps go where the run's go) */
        o.out = o.csv = o.markdown = NULL;
        o.cfg.progress_quiet = true;
    }

    if ((rc = parse_slowdown(&o.cfg)))
        return rc;
    xpb_run_meta meta = {.cfg = &o.cfg, .filter = o.filter};
    char cmdline[1024];
    join_args(argc, argv, cmdline, sizeof cmdline);
    meta.command_line = cmdline;
    if ((rc = check_output_path("--out", o.out)) || (rc = check_output_path("--csv", o.csv)) ||
        (rc = check_output_path("--markdown", o.markdown)) || (rc = check_variants(o.cfg.variants)))
        return rc;
    xpb_case_list cases = {0};
    rc = resolve_group(&o);
    if (!rc)
        rc = build_cases(&o, &cases);
    if ((rc = xpb_mpi_max_int(rc)) || o.isolated_case) { /* under MPI no process goes on alone */
        if (!rc) /* the process of one isolated case: that case, sent back to the run */
            rc = xpb_run_isolated_case(o.backends, o.isolated_case, o.isolated_fd, &cases, &o.cfg);
        xpb_case_list_free(&cases);
        if (o.cfg.slowdown)
            regfree(&o.cfg.slowdown_re);
        return rc;
    }
    xpb_sysinfo_read(&meta.sys);
    meta.n_backends = xpb_backends_survey(meta.backends);

    xpb_device devices[MAX_DEVICES];
    xpb_run run = {.devices = devices};
    char stamp[32];
    xpb_clock_utc(run.created_utc, sizeof run.created_utc, 0);
    xpb_clock_utc(stamp, sizeof stamp, 1);
    snprintf(run.run_id, sizeof run.run_id, "%s-%.24s-%ld", stamp, meta.sys.hostname, (long)getpid());
    rc = o.devices || xpb_mpi_active() ? open_group(&o, &run) : open_backends(o.backends, meta.backends, meta.n_backends, &run);
    static xpb_tuning_state tuning; /* large; one per process, like the knobs it sets */
    xpb_error terr = {{0}};
    if (!rc && xpb_tuning_apply(&tuning, run.devices, run.n_devices, o.tuning, o.no_tuning, &terr))
        rc = xpb_cli_error(XPB_EXIT_USAGE, "%s", terr.msg);
    meta.tuning = &tuning;
    if (!rc) {
        assign_presets(&o, &run, &cases);
        apply_preset_defaults(&o, &run);
        int rounds = o.cfg.rounds > 1 && !o.cfg.validate_only ? o.cfg.rounds : 1;
        xpb_progress prog;
        xpb_progress_begin(&prog, cases.count, rounds, o.cfg.progress_tty, o.cfg.progress_quiet);
        o.cfg.progress = &prog;
        interrupt_ctx ictx = {&o, &meta};
        xpb_watch watch;
        if (!xpb_watch_start(&watch, &run, &prog, cases.count, write_interrupted, &ictx))
            fprintf(stderr, "xpubench: warning: no watcher thread: an interrupted run writes no results\n");
        xpb_error err = {{0}};
        xpb_status st = xpb_runner_run(&run, &cases, &o.cfg, &err);
        xpb_watch_stop(&watch);
        if (st) {
            rc = xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s", err.msg);
        } else {
            xpb_runner_derive(&run);
            xpb_results_print_table(stdout, &run);
            rc = write_outputs(&o, &run, &meta);
            if (!rc)
                rc = exit_code(&run);
        }
    }
    for (size_t i = 0; i < run.n_devices; i++)
        xpb_device_close(&run.devices[i]);
    xpb_run_free(&run);
    xpb_case_list_free(&cases);
    if (o.cfg.slowdown)
        regfree(&o.cfg.slowdown_re);
    return rc;
}
