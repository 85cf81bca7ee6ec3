/* xpb_results_json.c - the JSON results file (schema: docs/results-schema.md), through cJSON. */
#define _POSIX_C_SOURCE 200809L /* strcasecmp */
#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "xpb_build_info.h"
#include "xpb_atomic_file.h"
#include "xpb_json.h"
#include "xpb_knob.h"
#include "xpb_names.h"
#include "xpb_isolate.h"
#include "xpb_plugin.h"
#include "xpb_results_write.h"

static cJSON *stats_json(const xpb_stats *s, const xpb_samples *raw)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", (double)s->n);
    xpb_json_add_number(o, "median_s", s->median);
    xpb_json_add_number(o, "min_s", s->min);
    xpb_json_add_number(o, "max_s", s->max);
    xpb_json_add_number(o, "mean_s", s->mean);
    xpb_json_add_number(o, "stddev_s", s->stddev);
    xpb_json_add_number(o, "cv", s->cv);
    xpb_json_add_number(o, "p05_s", s->p05);
    xpb_json_add_number(o, "p95_s", s->p95);
    cJSON_AddItemToObject(o, "samples_s", cJSON_CreateDoubleArray(raw->v, (int)raw->n));
    return o;
}

/* The environment variables that steer NCCL's choice of transport (NCCL's "Environment
 * Variables" page); those set are recorded with a device group. */
static const char *const nccl_env_vars[] = {"NCCL_P2P_DISABLE",  "NCCL_P2P_LEVEL",     "NCCL_SHM_DISABLE",
                                            "NCCL_NET",          "NCCL_IB_DISABLE",    "NCCL_NET_PLUGIN",
                                            "NCCL_SOCKET_IFNAME", "NCCL_IB_HCA",       "NCCL_NVLS_ENABLE",
                                            "NCCL_CUMEM_ENABLE", "NCCL_ALGO",          "NCCL_PROTO"};

static bool env_on(const char *name)
{
    const char *v = getenv(name);
    return v && atoi(v) != 0;
}

/* Which transport NCCL is expected to use between the group's ranks, from the environment and
 * the links (NVML): NCCL has no API that reports its choice (its log does: NCCL_DEBUG=INFO,
 * "via P2P/CUMEM", "via SHM", "via NET/Socket/0"), so this is what the run can know, said as
 * such. On one host NCCL takes P2P over NVLink (or over PCIe where NCCL_P2P_LEVEL allows), SHM
 * when P2P is disabled, the network when both are; across hosts the network: InfiniBand/RoCE
 * when found, else sockets, unless NCCL_NET or NCCL_IB_DISABLE choose. */
static const char *nccl_transport_expected(const xpb_device *d)
{
    bool network = false, all_nvlink = true, unknown = false;
    for (int i = 0; i < d->layout.n; i++)
        for (int j = i + 1; j < d->layout.n; j++) {
            xpb_link l = (xpb_link)d->layout.link[i][j];
            network |= l == XPB_LINK_NETWORK;
            all_nvlink &= l == XPB_LINK_NVLINK || l == XPB_LINK_NETWORK;
            unknown |= l == XPB_LINK_UNKNOWN;
        }
    const char *net = getenv("NCCL_NET");
    const char *net_kind = (net && strcasecmp(net, "Socket") == 0) || env_on("NCCL_IB_DISABLE") ? "NET/Socket"
                           : net && strcasecmp(net, "IB") == 0                                   ? "NET/IB"
                                                   : "NET (IB where an InfiniBand/RoCE device is found, else Socket)";
    if (d->layout.n < 2)
        return "none (one rank)";
    if (network || (env_on("NCCL_P2P_DISABLE") && env_on("NCCL_SHM_DISABLE")))
        return net_kind;
    if (env_on("NCCL_P2P_DISABLE"))
        return "SHM";
    if (unknown)
        return "P2P or SHM (links unknown: no NVML)";
    return all_nvlink ? "P2P/NVLink" : "P2P over PCIe, or SHM (per NCCL_P2P_LEVEL and the PCIe path)";
}

/* A device group's NCCL: version (from the group's library line, "NCCL 2.28.9, ..."), the
 * transport environment that is set, the expected transport, and the transports NCCL's own log
 * reports (the backend's group_transports: every connection of the process writing the results,
 * so rank 0's under MPI; the reason where it cannot say). */
static void nccl_json(cJSON *o, const xpb_device *d)
{
    if (strncmp(d->info.library, "NCCL ", 5) != 0)
        return;
    cJSON *n = cJSON_AddObjectToObject(o, "nccl");
    char version[32];
    snprintf(version, sizeof version, "%.*s", (int)strcspn(d->info.library + 5, ", "), d->info.library + 5);
    cJSON_AddStringToObject(n, "version", version);
    cJSON *env = cJSON_AddObjectToObject(n, "env");
    for (size_t i = 0; i < sizeof nccl_env_vars / sizeof nccl_env_vars[0]; i++)
        if (getenv(nccl_env_vars[i]))
            cJSON_AddStringToObject(env, nccl_env_vars[i], getenv(nccl_env_vars[i]));
    cJSON_AddStringToObject(n, "transport_expected", nccl_transport_expected(d));
    cJSON_AddStringToObject(n, "transport_source", "the environment and the links (NCCL has no API for its choice; "
                                                   "transport_reported reads its log)");
    if (d->backend->group_transports && d->ctx) {
        char seen[256];
        xpb_error why = {{0}};
        if (d->backend->group_transports(d->ctx, seen, sizeof seen, &why) == XPB_OK)
            cJSON_AddStringToObject(n, "transport_reported", seen);
        else
            cJSON_AddStringToObject(n, "transport_reported_why", why.msg);
    }
}

static cJSON *device_json(const xpb_device *d)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", d->label);
    cJSON_AddStringToObject(o, "backend", d->backend->name);
    cJSON_AddStringToObject(o, "name", d->info.name);
    cJSON_AddStringToObject(o, "driver", d->info.driver);
    cJSON_AddStringToObject(o, "runtime", d->info.runtime);
    if (d->info.library[0])
        cJSON_AddStringToObject(o, "library", d->info.library);
    if (d->info.warning[0])
        cJSON_AddStringToObject(o, "warning", d->info.warning);
    cJSON_AddStringToObject(o, "timer", d->info.timer);
    cJSON_AddNumberToObject(o, "memory_bytes", (double)d->info.memory_bytes);
    cJSON_AddNumberToObject(o, "max_buffer_bytes", (double)d->info.max_buffer_bytes);
    cJSON_AddNumberToObject(o, "cache_bytes", (double)d->info.cache_bytes);
    cJSON_AddNumberToObject(o, "compute_units", d->info.compute_units);
    cJSON_AddNumberToObject(o, "peak_gflops_fp32", d->info.peak_gflops_fp32);
    cJSON_AddNumberToObject(o, "peak_gbps", d->info.peak_gbps);
    cJSON_AddBoolToObject(o, "is_gpu", d->info.is_gpu);
    cJSON_AddBoolToObject(o, "software_device", d->info.is_software);
    if (d->preset) /* --preset auto: the preset this device's cases came from */
        cJSON_AddStringToObject(o, "preset", d->preset);
    if (d->n_group) { /* where each rank ran: one process, or one per rank under MPI */
        cJSON_AddStringToObject(o, "launch", strstr(d->label, ":mpi") ? "mpi" : "one process");
        cJSON *ranks = cJSON_AddArrayToObject(o, "ranks");
        for (int r = 0; r < d->layout.n; r++) {
            cJSON *x = cJSON_CreateObject();
            cJSON_AddNumberToObject(x, "rank", r);
            cJSON_AddStringToObject(x, "host", d->layout.host[r]);
            cJSON_AddNumberToObject(x, "device", d->layout.device[r]);
            if (d->layout.nvlinks[r] >= 0)
                cJSON_AddNumberToObject(x, "nvlinks_active", d->layout.nvlinks[r]);
            if (d->layout.cpus[r] > 0)
                cJSON_AddNumberToObject(x, "cpus", d->layout.cpus[r]);
            cJSON_AddItemToArray(ranks, x);
        }
        cJSON *links = cJSON_AddArrayToObject(o, "links"); /* every pair once: how they connect */
        for (int i = 0; i < d->layout.n; i++)
            for (int j = i + 1; j < d->layout.n; j++) {
                cJSON *x = cJSON_CreateObject();
                cJSON_AddItemToObject(x, "ranks", cJSON_CreateIntArray((const int[]){i, j}, 2));
                cJSON_AddStringToObject(x, "path", xpb_link_name((xpb_link)d->layout.link[i][j]));
                cJSON_AddItemToArray(links, x);
            }
        nccl_json(o, d);
    }
    return o;
}

/* A check after timing (xpb_after_check) as {"status", "reason"}: nothing when it did not run. */
static void after_check_json(cJSON *v, const char *key, const xpb_after_check *a)
{
    if (a->state == XPB_CHECK_NOT_RUN)
        return;
    cJSON *o = cJSON_AddObjectToObject(v, key);
    cJSON_AddStringToObject(o, "status", xpb_check_state_name(a->state));
    if (a->reason[0])
        cJSON_AddStringToObject(o, "reason", a->reason);
}

static cJSON *validation_json(const xpb_validation *v)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "passed", v->passed);
    cJSON_AddStringToObject(o, "method", v->method);
    cJSON_AddStringToObject(o, "tolerance", v->tolerance);
    cJSON_AddNumberToObject(o, "checked", (double)v->checked);
    xpb_json_add_number(o, "max_abs_err", v->max_abs_err);
    xpb_json_add_number(o, "max_rel_err", v->max_rel_err);
    xpb_json_add_number(o, "rel_l2_err", v->rel_l2_err);
    xpb_json_add_number(o, "max_ulp", v->max_ulp);
    xpb_json_add_number(o, "max_err_over_tol", v->max_err_over_tol);
    cJSON_AddNumberToObject(o, "out_of_tolerance", (double)v->out_of_tolerance);
    cJSON_AddNumberToObject(o, "nan", (double)v->nan_count);
    cJSON_AddNumberToObject(o, "inf", (double)v->inf_count);
    cJSON_AddNumberToObject(o, "unwritten", (double)v->unwritten);
    cJSON_AddNumberToObject(o, "guard_violations", (double)v->guard_violations);
    cJSON *w = cJSON_AddObjectToObject(o, "worst");
    cJSON_AddNumberToObject(w, "index", (double)v->worst_index);
    xpb_json_add_number(w, "value", v->worst_value);
    xpb_json_add_number(w, "reference", v->worst_reference);
    xpb_json_add_number(w, "tolerance", v->worst_tolerance);
    cJSON *m = cJSON_AddArrayToObject(o, "first_mismatches");
    for (int i = 0; i < v->n_mismatches; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddNumberToObject(e, "index", (double)v->mismatches[i].index);
        xpb_json_add_number(e, "value", v->mismatches[i].value);
        xpb_json_add_number(e, "reference", v->mismatches[i].reference);
        xpb_json_add_number(e, "tolerance", v->mismatches[i].tolerance);
        cJSON_AddItemToArray(m, e);
    }
    return o;
}

/* What the workload reported beyond the generic fields (xpb_run_report.h; docs/results-schema.md,
 * run.metrics, run.timings, run.texts, run.series): written as it came, whatever the workload. */
static void report_json(cJSON *run, const xpb_run_report *rep)
{
    cJSON *ms = cJSON_AddArrayToObject(run, "metrics");
    for (int i = 0; i < rep->n_metrics; i++) {
        const xpb_report_metric *m = &rep->metrics[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", m->name);
        xpb_json_add_number(e, "value", m->value);
        cJSON_AddStringToObject(e, "unit", m->unit);
        cJSON_AddStringToObject(e, "better", xpb_better_name(m->better));
        if (m->flags & XPB_REPORT_HEADLINE)
            cJSON_AddBoolToObject(e, "headline", true);
        cJSON_AddItemToArray(ms, e);
    }
    cJSON *ts = cJSON_AddArrayToObject(run, "timings");
    for (int i = 0; i < rep->n_timings; i++) {
        const xpb_report_timing *t = &rep->timings[i];
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", t->name);
        xpb_json_add_number(e, "median_s", t->median);
        xpb_json_add_number(e, "p05_s", t->p05);
        xpb_json_add_number(e, "p95_s", t->p95);
        cJSON_AddNumberToObject(e, "count", (double)t->count);
        if (t->flags & XPB_REPORT_HEADLINE)
            cJSON_AddBoolToObject(e, "headline", true);
        cJSON_AddItemToArray(ts, e);
    }
    cJSON *xs = cJSON_AddArrayToObject(run, "texts");
    for (int i = 0; i < rep->n_texts; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", rep->texts[i].name);
        cJSON_AddStringToObject(e, "value", rep->texts[i].value);
        if (rep->texts[i].flags & XPB_REPORT_HEADLINE)
            cJSON_AddBoolToObject(e, "headline", true);
        cJSON_AddItemToArray(xs, e);
    }
    cJSON *ss = cJSON_AddArrayToObject(run, "series");
    for (int i = 0; i < rep->n_series; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", rep->series[i].name);
        cJSON_AddItemToObject(e, "values", cJSON_CreateDoubleArray(rep->series[i].v, rep->series[i].n));
        cJSON_AddItemToArray(ss, e);
    }
}

/* A stateful workload's run: what it reached, where the time went, its trajectory and its
 * two-level validation (docs/results-schema.md, "run"). */
static cJSON *run_outcome_json(const xpb_result *r)
{
    const xpb_run_outcome *o = &r->run;
    cJSON *j = cJSON_CreateObject();
    cJSON_AddNumberToObject(j, "iterations", o->iterations);
    cJSON_AddBoolToObject(j, "converged", o->converged);
    if (r->timed) {
        xpb_json_add_number(j, "total_s", r->kernel.median);
        xpb_json_add_number(j, "per_iteration_s", o->iterations ? r->kernel.median / o->iterations : 0);
        double sum = 0;
        for (int op = 0; op < XPB_OP_COUNT; op++)
            sum += o->op_seconds[op];
        cJSON_AddNumberToObject(j, "breakdown_runs", o->op_runs);
        cJSON *ops = cJSON_AddArrayToObject(j, "ops");
        double *col = o->op_runs > 0 ? malloc((size_t)o->op_runs * sizeof *col) : NULL;
        for (int op = 0; op < XPB_OP_COUNT; op++) {
            if (!o->op_launches[op])
                continue;
            cJSON *e = cJSON_CreateObject();
            cJSON_AddStringToObject(e, "op", xpb_op_get((xpb_op)op)->name);
            xpb_json_add_number(e, "seconds", o->op_seconds[op]);
            xpb_json_add_number(e, "share", sum > 0 ? o->op_seconds[op] / sum : 0);
            cJSON_AddNumberToObject(e, "launches", (double)o->op_launches[op]);
            if (col && o->op_samples) { /* each breakdown run's time in the op: compare's samples */
                for (int i = 0; i < o->op_runs; i++)
                    col[i] = o->op_samples[(size_t)i * XPB_OP_COUNT + op];
                xpb_samples raw = {col, (size_t)o->op_runs, (size_t)o->op_runs};
                xpb_stats st = xpb_stats_compute(col, raw.n);
                cJSON_AddItemToObject(e, "per_run", stats_json(&st, &raw));
            }
            if (o->op_units && o->op_rounds) { /* one per round: compare's units */
                double *u = malloc((size_t)o->op_rounds * sizeof *u);
                for (int i = 0; u && i < o->op_rounds; i++)
                    u[i] = o->op_units[(size_t)i * XPB_OP_COUNT + op];
                if (u)
                    cJSON_AddItemToObject(e, "units_s", cJSON_CreateDoubleArray(u, o->op_rounds));
                free(u);
            }
            cJSON_AddItemToArray(ops, e);
        }
        free(col);
        cJSON *x = cJSON_AddObjectToObject(j, "transfers");
        xpb_json_add_number(x, "upload_s", o->upload_s);
        cJSON_AddNumberToObject(x, "upload_bytes", (double)o->upload_bytes);
        xpb_json_add_number(x, "h2d_in_run_s", o->h2d_s);
        cJSON_AddNumberToObject(x, "h2d_in_run_bytes", (double)o->h2d_bytes);
        xpb_json_add_number(x, "d2h_in_run_s", o->d2h_s);
        cJSON_AddNumberToObject(x, "d2h_in_run_bytes", (double)o->d2h_bytes);
        if (o->inputs_kept) { /* XPB_STATEFUL_INPUTS=kept: upload_bytes is then what a later run uploaded */
            cJSON_AddStringToObject(x, "inputs", "kept");
            cJSON_AddNumberToObject(x, "inputs_kept_bytes", (double)o->inputs_kept_bytes);
        }
    }
    report_json(j, &o->report);
    cJSON *v = cJSON_AddObjectToObject(j, "check");
    cJSON_AddBoolToObject(v, "ops_passed", o->ops_passed);
    cJSON_AddNumberToObject(v, "near_ties", (double)o->near_ties);
    cJSON_AddBoolToObject(v, "run_checked", o->run_checked);
    if (o->run_checked) {
        cJSON_AddBoolToObject(v, "run_passed", o->run_passed);
        cJSON_AddNumberToObject(v, "reference_iterations", o->ref_iterations);
        if (o->parted_at >= 0)
            cJSON_AddNumberToObject(v, "parted_at", o->parted_at);
        else
            cJSON_AddNullToObject(v, "parted_at");
    }
    cJSON_AddStringToObject(v, "summary", o->summary);
    return j;
}

static cJSON *case_json(const xpb_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "id", r->c.id);
    if (r->c.input)
        cJSON_AddStringToObject(o, "input_file", r->c.input);
    cJSON_AddStringToObject(o, "workload", r->c.workload->name);
    cJSON_AddStringToObject(o, "op", xpb_op_get(r->c.op)->name);
    cJSON_AddStringToObject(o, "dtype", xpb_dtype_name(r->c.dtype));
    xpb_json_add_params(o, &r->c);
    cJSON_AddStringToObject(o, "backend", r->device->backend->name);
    cJSON_AddStringToObject(o, "device", r->device->label);
    cJSON_AddStringToObject(o, "device_name", r->device->info.name);
    cJSON_AddBoolToObject(o, "software_device", r->device->info.is_software);
    cJSON_AddStringToObject(o, "variant", r->variant);
    cJSON_AddStringToObject(o, "precision", r->precision);
    if (r->kernel_config[0])
        cJSON_AddStringToObject(o, "kernel_config", r->kernel_config);
    if (r->ran && xpb_plugin_path_of(r->ran)) /* a --kernels library's kernel: top-level "plugins" */
        cJSON_AddStringToObject(o, "plugin", xpb_plugin_path_of(r->ran));
    cJSON_AddStringToObject(o, "status", xpb_case_status_name(r->status));
    cJSON_AddBoolToObject(o, "isolated", r->isolated);
    if (r->message[0])
        cJSON_AddStringToObject(o, "message", r->message);
    cJSON *w = cJSON_AddObjectToObject(o, "work");
    cJSON_AddNumberToObject(w, "elements", (double)r->c.elements);
    cJSON_AddNumberToObject(w, "bytes_read", (double)r->c.bytes_read);
    cJSON_AddNumberToObject(w, "bytes_written", (double)r->c.bytes_written);
    cJSON_AddNumberToObject(w, "flops", r->c.flops);
    if (r->validated) {
        cJSON *v = validation_json(&r->validation);
        after_check_json(v, "timed_output", &r->timed_output);
        after_check_json(v, "recheck", &r->recheck);
        if (r->recheck.state == XPB_CHECK_PASSED || r->recheck.state == XPB_CHECK_FAILED)
            cJSON_AddNumberToObject(v, "recheck_seed", (double)r->recheck_seed); /* < 2^53: exact */
        cJSON_AddItemToObject(o, "validation", v);
    }
    if (r->run.present)
        cJSON_AddItemToObject(o, "run", run_outcome_json(r));
    if (r->phase.total_s > 0 || r->phase.data_s > 0) { /* where the case's wall time went (xpb_phase_times) */
        cJSON *ph = cJSON_AddObjectToObject(o, "phases_s");
        xpb_json_add_number(ph, "data", r->phase.data_s);
        xpb_json_add_number(ph, "setup", r->phase.setup_s);
        xpb_json_add_number(ph, "poison", r->phase.poison_s);
        xpb_json_add_number(ph, "validate", r->phase.validate_s);
        xpb_json_add_number(ph, "download", r->phase.download_s);
        xpb_json_add_number(ph, "timed", r->phase.timed_s);
        xpb_json_add_number(ph, "e2e", r->phase.e2e_s);
        xpb_json_add_number(ph, "total", r->phase.total_s);
    }
    if (r->timed) {
        cJSON *t = cJSON_AddObjectToObject(o, "timing");
        cJSON_AddStringToObject(t, "timer", r->device->info.timer);
        cJSON_AddStringToObject(t, "cache", "warm (same buffers every launch)");
        cJSON_AddNumberToObject(t, "launches_per_sample", r->launches_per_sample);
        if (r->graph) /* the launches of each sample replayed from a captured graph (run --graph) */
            cJSON_AddBoolToObject(t, "graph", true);
        cJSON_AddItemToObject(t, "kernel", stats_json(&r->kernel, &r->kernel_samples));
        if (r->has_conditions) { /* what can explain a difference (xpb_runner_record.c) */
            cJSON *k = cJSON_AddObjectToObject(o, "conditions");
            char why[96];
            xpb_json_add_number(k, "sm_mhz_before", r->cond_before.sm_mhz);
            xpb_json_add_number(k, "sm_mhz_after", r->cond_after.sm_mhz);
            xpb_json_add_number(k, "sm_mhz_lowest", r->sm_low_mhz);
            if (xpb_result_sm_max(r) > 0) {
                xpb_json_add_number(k, "sm_mhz_max", xpb_result_sm_max(r));
                cJSON_AddBoolToObject(k, "clock_low", xpb_result_clock_low(r));
            }
            xpb_json_add_number(k, "mem_mhz_before", r->cond_before.mem_mhz);
            xpb_json_add_number(k, "mem_mhz_after", r->cond_after.mem_mhz);
            xpb_json_add_number(k, "temp_c_before", r->cond_before.temp_c);
            xpb_json_add_number(k, "temp_c_after", r->cond_after.temp_c);
            xpb_json_add_number(k, "power_w_before", r->cond_before.power_w);
            xpb_json_add_number(k, "power_w_after", r->cond_after.power_w);
            cJSON_AddStringToObject(k, "throttled", xpb_reasons_text(r->reasons_seen, why, sizeof why));
            if (r->warmup_clock_s > 0) /* XPB_WARMUP_CLOCK_S: warm-up added for the clock, all rounds */
                xpb_json_add_number(k, "warmup_clock_s", r->warmup_clock_s);
        }
        if (r->units.n) { /* the independent repetitions compare tests (xpb_result.units) */
            cJSON *u = cJSON_AddObjectToObject(t, "units");
            cJSON_AddStringToObject(u, "what", "one per round: the median of the round's kernel samples");
            cJSON_AddItemToObject(u, "medians_s", cJSON_CreateDoubleArray(r->units.v, (int)r->units.n));
            const double drift = xpb_result_round_drift(r);
            if (drift != 1.0) /* the rounds move one way (xpb_result_round_drift) */
                xpb_json_add_number(u, "drift", drift);
        }
        cJSON_AddItemToObject(t, "end_to_end", stats_json(&r->e2e, &r->e2e_samples));
        cJSON *x = cJSON_AddObjectToObject(t, "transfers");
        xpb_json_add_number(x, "upload_s", r->upload_s);
        cJSON_AddNumberToObject(x, "upload_bytes", (double)r->upload_bytes);
        xpb_json_add_number(x, "download_s", r->download_s);
        cJSON_AddNumberToObject(x, "download_bytes", (double)r->download_bytes);
        if (r->power_sampled) {
            cJSON *pw = cJSON_AddObjectToObject(o, "power");
            xpb_json_add_number(pw, "avg_w", r->power_avg_w);
            xpb_json_add_number(pw, "max_w", r->power_max_w);
            cJSON_AddNumberToObject(pw, "samples", r->power_samples);
            cJSON_AddStringToObject(pw, "source", "board power (NVML), sampled every 10 ms during the timed launches");
        } else if (r->power_note[0]) {
            cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "power"), "unavailable", r->power_note);
        }
        cJSON *th = cJSON_AddObjectToObject(o, "throughput");
        xpb_json_add_number(th, "gbps", r->gbps);
        xpb_json_add_number(th, "gflops", r->gflops);
        xpb_json_add_number(th, "roof_gbps", r->roof_gbps);
        cJSON_AddStringToObject(th, "roof_source", r->roof_source);
        xpb_json_add_number(th, "pct_of_roof", r->pct_of_roof);
        if (r->implausible[0]) /* the figures above are a broken measurement, not a speed */
            cJSON_AddStringToObject(th, "implausible", r->implausible);
        if (xpb_op_get(r->c.op)->group) { /* nccl-tests' algbw (size / time) and busbw (docs/multi-gpu.md) */
            xpb_json_add_number(th, "algbw_gbps", r->gbps);
            xpb_json_add_number(th, "busbw_gbps", r->gbps * r->c.bus_factor);
            xpb_json_add_number(th, "bus_factor", r->c.bus_factor);
            if (r->n_rank_s) { /* each rank's own mean time per launch; the case's is the slowest's */
                cJSON *rs = cJSON_AddArrayToObject(o, "rank_kernel_mean_s");
                for (int i = 0; i < r->n_rank_s; i++)
                    cJSON_AddItemToArray(rs, cJSON_CreateNumber(r->rank_s[i]));
            }
        }
        if (r->c.op == XPB_OP_GEMM || r->c.op == XPB_OP_GEMV) {
            xpb_json_add_number(th, "pct_of_peak_fp32", r->pct_of_peak);
            if (r->library_variant[0]) {
                xpb_json_add_number(th, "pct_of_library", r->pct_of_library);
                cJSON_AddStringToObject(th, "library_variant", r->library_variant);
            }
        }
        if (r->power_sampled && r->power_avg_w > 0) {
            xpb_json_add_number(th, "gflops_per_watt", r->gflops / r->power_avg_w);
            xpb_json_add_number(th, "gbps_per_watt", r->gbps / r->power_avg_w);
        }
        if (r->speedup_vs_cpu > 0)
            xpb_json_add_number(th, "speedup_vs_cpu", r->speedup_vs_cpu);
        else
            cJSON_AddNullToObject(th, "speedup_vs_cpu");
    }
    return o;
}

static cJSON *system_json(const xpb_run *run, const xpb_run_meta *m)
{
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "hostname", m->sys.hostname);
    cJSON_AddStringToObject(s, "os", m->sys.os);
    cJSON_AddStringToObject(s, "kernel", m->sys.kernel);
    cJSON_AddStringToObject(s, "arch", m->sys.arch);
    cJSON_AddStringToObject(s, "cpu_model", m->sys.cpu_model);
    cJSON_AddNumberToObject(s, "logical_cpus", m->sys.logical_cpus);
    cJSON_AddNumberToObject(s, "sockets", m->sys.sockets);
    cJSON_AddNumberToObject(s, "numa_nodes", m->sys.numa_nodes);
    cJSON_AddStringToObject(s, "cpu_flags", m->sys.cpu_flags);
    cJSON_AddStringToObject(s, "omp_proc_bind", m->sys.omp_proc_bind);
    cJSON_AddStringToObject(s, "omp_places", m->sys.omp_places);
    cJSON_AddNumberToObject(s, "memory_bytes", (double)m->sys.memory_bytes);
    cJSON_AddStringToObject(s, "compiler", m->sys.compiler);
    cJSON *b = cJSON_AddArrayToObject(s, "backends");
    for (int i = 0; i < m->n_backends; i++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", m->backends[i].name);
        cJSON_AddBoolToObject(e, "compiled", m->backends[i].compiled);
        cJSON_AddBoolToObject(e, "available", m->backends[i].available);
        if (m->backends[i].reason[0])
            cJSON_AddStringToObject(e, "reason", m->backends[i].reason);
        cJSON_AddItemToArray(b, e);
    }
    cJSON *d = cJSON_AddArrayToObject(s, "devices");
    for (size_t i = 0; i < run->n_devices; i++)
        cJSON_AddItemToArray(d, device_json(&run->devices[i]));
    return s;
}

static cJSON *run_json(const xpb_run *run, const xpb_run_meta *m)
{
    cJSON *root = cJSON_CreateObject();
    cJSON_AddStringToObject(root, "schema", XPB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(root, "schema_version", XPB_RESULTS_SCHEMA_VERSION);
    cJSON_AddStringToObject(root, "run_id", run->run_id);
    cJSON_AddStringToObject(root, "created_utc", run->created_utc);
    /* A run that a signal stopped holds the cases it finished (xpb_watch.h): never mistaken for a
     * whole one by compare, report or a reader. */
    cJSON_AddBoolToObject(root, "complete", run->interrupted == NULL);
    if (run->interrupted) {
        cJSON *in = cJSON_AddObjectToObject(root, "interrupted");
        cJSON_AddStringToObject(in, "signal", run->interrupted);
        cJSON_AddNumberToObject(in, "cases_finished", (double)run->cases_finished);
        cJSON_AddNumberToObject(in, "cases_planned", (double)run->cases_planned);
    }
    if (run->preset_note[0])
        cJSON_AddStringToObject(root, "preset_note", run->preset_note);
    cJSON *x = cJSON_AddObjectToObject(root, "xpubench");
    cJSON_AddStringToObject(x, "version", XPB_VERSION);
    cJSON_AddStringToObject(x, "git_commit", XPB_GIT_COMMIT);
    cJSON *bo = cJSON_AddObjectToObject(x, "build");
    cJSON_AddStringToObject(bo, "type", XPB_BUILD_TYPE);
    cJSON_AddStringToObject(bo, "c_compiler", XPB_C_COMPILER);
    cJSON_AddStringToObject(bo, "cuda", XPB_BUILD_CUDA);
    cJSON_AddStringToObject(bo, "cuda_compiler", XPB_CUDA_COMPILER);
    cJSON_AddStringToObject(bo, "cuda_archs", XPB_CUDA_ARCHS);
    cJSON_AddStringToObject(bo, "vulkan", XPB_BUILD_VULKAN);
    cJSON_AddStringToObject(bo, "nccl", XPB_BUILD_NCCL);
    cJSON_AddStringToObject(bo, "vulkan_shaders", XPB_BUILD_VULKAN_SHADERS);
    cJSON_AddStringToObject(bo, "native", XPB_BUILD_NATIVE);
    cJSON_AddStringToObject(bo, "sanitize", XPB_BUILD_SANITIZE);
    cJSON *c = cJSON_AddObjectToObject(root, "config");
    cJSON_AddStringToObject(c, "command_line", m->command_line ? m->command_line : "");
    cJSON_AddStringToObject(c, "preset", m->cfg->preset);
    cJSON_AddStringToObject(c, "filter", m->filter ? m->filter : "");
    cJSON_AddNumberToObject(c, "seed", (double)m->cfg->seed);
    cJSON_AddNumberToObject(c, "rounds", m->cfg->rounds > 1 ? m->cfg->rounds : 1);
    if (m->cfg->slowdown) /* a deliberate slowdown (XPB_SLOWDOWN): never mistaken for a real run */
        cJSON_AddStringToObject(c, "slowdown", m->cfg->slowdown);
    cJSON_AddNumberToObject(c, "repetitions", m->cfg->repetitions);
    cJSON_AddNumberToObject(c, "min_time_s", m->cfg->min_time);
    cJSON_AddNumberToObject(c, "warmup_s", m->cfg->warmup_time);
    cJSON_AddBoolToObject(c, "graph", m->cfg->graph);
    bool group = false;
    for (size_t i = 0; i < run->n_devices; i++)
        group = group || run->devices[i].n_group > 1;
    int mode = 0;
    xpb_error kerr = {{0}};
    if (group && xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_LAUNCH, &mode, &kerr) == XPB_OK) /* a bad value failed the run */
        cJSON_AddStringToObject(c, "group_launch", mode ? "threads" : "one"); /* who issues a group's launches */
    if (m->cfg->sample_min > 0) /* else each device's default (xpb_runner_batch) */
        cJSON_AddNumberToObject(c, "sample_min_s", m->cfg->sample_min);
    cJSON_AddBoolToObject(c, "validate_only", m->cfg->validate_only);
    cJSON_AddBoolToObject(c, "power", m->cfg->power);
    cJSON_AddStringToObject(c, "validation", m->cfg->sampled ? "sampled" : "full");
    cJSON_AddStringToObject(c, "isolate", xpb_isolate_name(m->cfg->isolate));
    if (m->cfg->case_timeout > 0)
        cJSON_AddNumberToObject(c, "case_timeout_s", m->cfg->case_timeout);
    else
        cJSON_AddNullToObject(c, "case_timeout_s");
    /* the declared knobs set in the environment (XPB_VULKAN_ROW_ONCHIP_PUBLISH=release, ...): a run
     * with a knob set is another configuration, and compare says so when the sides differ; what a
     * tuning file set is under "tuning" (docs/results-schema.md) */
    cJSON *knobs = NULL;
    for (int id = 0; id < XPB_KNOB_COUNT; id++) {
        const xpb_knob_decl *d = xpb_knob_decl_of((xpb_knob_id)id);
        const char *v = xpb_knob_env((xpb_knob_id)id);
        if (d->type == XPB_KNOB_TYPE_ENV || !v)
            continue;
        if (!knobs)
            knobs = cJSON_AddObjectToObject(c, "knobs");
        cJSON_AddStringToObject(knobs, d->name, v);
    }
    cJSON_AddItemToObject(root, "system", system_json(run, m));
    xpb_plugins_json(root);
    if (m->tuning)
        xpb_tuning_json(root, m->tuning);
    cJSON *cases = cJSON_AddArrayToObject(root, "cases");
    for (size_t i = 0; i < run->count; i++)
        cJSON_AddItemToArray(cases, case_json(&run->results[i]));
    return root;
}

xpb_status xpb_results_write_json(const char *path, const xpb_run *run, const xpb_run_meta *meta,
                                  xpb_error *err)
{
    cJSON *root = run_json(run, meta);
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory while building %s", path);
    char tmp[4096];
    FILE *f = xpb_file_begin(path, tmp, sizeof tmp, err);
    if (!f) {
        free(text);
        return XPB_ERR_IO;
    }
    fputs(text, f);
    fputc('\n', f);
    free(text);
    return xpb_file_commit(f, tmp, path, err);
}
