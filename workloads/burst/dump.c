/* dump.c - `--dump DIR` of a burst case (xpb_workload_i.dump_run; docs/workloads.md section 4,
 * pinned details): the network, every parameter and the run's fired sets and final v, so that any
 * implementation of section 4 can replay the run from the dump alone (scripts/burst-replay.py is
 * one, in numpy) and must get the same fired sets and v bit for bit. Per case, once:
 *   <stem>.net.<array>.npy     offsets (n+1,) <u4, targets (S,) <u4, weight, psp (S,) |u1,
 *                              inhibitory (n,) |u1, threshold, threshold_limit, leak,
 *                              excitability (n,) <f4, refractory, fire_limit, snooze (n,) <u4
 *   <stem>.ref.fired.npy       the reference run's fired ids, all bursts concatenated (F,) <u4
 *   <stem>.ref.fired_start.npy burst b's ids are fired[fired_start[b] .. fired_start[b+1]) (B+1,) <f8
 *   <stem>.ref.final_v.npy     v after the last burst (n,) <f4
 * per run (device/variant; tag as in the anneal dump):
 *   <stem>.run.<tag>.fired.npy, .fired_start.npy   the device's fired sets (a batched run: only the
 *                                                  last burst's, fired_start (2,))
 *   <stem>.run.<tag>.final_v.npy                   the device's final v
 *   <stem>.run.<tag>.counts.npy                    (B, 2) <u4: fired and events per burst
 * and the sidecar <stem>.json (schema "xpubench-dump", version 2): "config" (every parameter, the
 * scale as its fp32 bits too), "arrays" (keys "net.<array>", "ref.<array>"), "runs" (each with its
 * own "arrays"). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "burst_case.h"
#include "xpb_dump.h"
#include "xpb_npy.h"
#include "xpb_source.h"

#define SIDECAR_VERSION 2
#define NAME_LEN 1024
#define CMD_LEN 4096

typedef struct array {
    const char *key, *descr;
    size_t elem, n, cols;
    const void *data;
} array;

/* Writes each array as DIR/<prefix>.<key>.npy, recorded in `into` as "<group><key>" (the
 * sidecar's "arrays" stays one flat object of files, as every dump's). */
static xpb_status write_arrays(const char *dir, const char *prefix, const char *group, const array *a, size_t count,
                               cJSON *into, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < count && !st; i++) {
        char file[NAME_LEN], key[64];
        snprintf(key, sizeof key, "%s%s", group, a[i].key);
        size_t shape[2] = {a[i].n, a[i].cols};
        if (snprintf(file, sizeof file, "%s.%s.npy", prefix, a[i].key) >= NAME_LEN ||
            strlen(dir) + 1 + strlen(file) >= NAME_LEN)
            st = xpb_fail(err, XPB_ERR_IO, "dump directory path too long: %s", dir);
        else
            st = xpb_dump_array(dir, file, a[i].descr, a[i].elem, shape, a[i].cols ? 2 : 1, a[i].data, into, key,
                                err);
    }
    return st;
}

/* fired_start as fp64 (exact below 2^53; .npy readers everywhere know <f8). */
static double *starts_f64(const uint64_t *s, size_t count)
{
    double *d = malloc(count * sizeof *d + 1);
    for (size_t i = 0; d && i < count; i++)
        d[i] = (double)s[i];
    return d;
}

static void put_config(cJSON *root, const xpb_case *c, const burst_network *net, uint64_t seed)
{
    cJSON_DeleteItemFromObjectCaseSensitive(root, "config");
    cJSON *o = cJSON_AddObjectToObject(root, "config");
    const burst_params *p = &net->params;
    uint32_t scale_bits;
    memcpy(&scale_bits, &net->scale, 4);
    char hex[16];
    snprintf(hex, sizeof hex, "0x%08x", scale_bits);
    const struct {
        const char *key;
        double value;
    } f[] = {{"neurons", (double)net->n},    {"synapses", (double)net->synapses}, {"fanout", (double)p->fanout},
             {"hubs", (double)p->hubs},      {"inhibitory", p->inhibitory},       {"rate", p->rate},
             {"seed", (double)p->seed},      {"stim", net->stim},                 {"p_stim", net->p_stim},
             {"stim_floor", net->stim_floor}, {"scale", net->scale},
             {"bursts", (double)xpb_case_param(c, "bursts", 1)}, {"input_seed", (double)seed}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        cJSON_AddNumberToObject(o, f[i].key, f[i].value);
    cJSON_AddStringToObject(o, "scale_bits", hex);
    cJSON_AddStringToObject(o, "contract", "docs/workloads.md section 4");
}

static xpb_status put_network(const char *dir, const char *stem, const burst_host *h, cJSON *arrays,
                              xpb_error *err)
{
    const burst_network *net = &h->net;
    const burst_run *ref = &h->ref;
    size_t n = (size_t)net->n, s = (size_t)net->synapses, nb = (size_t)ref->bursts;
    const char *u4 = xpb_npy_descr_u32(), *f4 = xpb_npy_descr(XPB_DTYPE_F32), *u1 = xpb_npy_descr(XPB_DTYPE_U8);
    double *starts = starts_f64(ref->fired_start, nb + 1);
    if (!starts)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "dump: out of host memory");
    array a[] = {
        {"offsets", u4, 4, n + 1, 0, net->offsets32},       {"targets", u4, 4, s, 0, net->targets},
        {"weight", u1, 1, s, 0, net->weight},               {"psp", u1, 1, s, 0, net->psp},
        {"inhibitory", u1, 1, n, 0, net->inhibitory},       {"threshold", f4, 4, n, 0, net->threshold},
        {"threshold_limit", f4, 4, n, 0, net->threshold_limit}, {"leak", f4, 4, n, 0, net->leak},
        {"excitability", f4, 4, n, 0, net->excitability},   {"refractory", u4, 4, n, 0, net->refractory},
        {"fire_limit", u4, 4, n, 0, net->fire_limit},       {"snooze", u4, 4, n, 0, net->snooze},
    };
    array r[] = {
        {"fired", u4, 4, (size_t)ref->fired_start[nb], 0, ref->fired},
        {"fired_start", xpb_npy_descr_f64(), 8, nb + 1, 0, starts},
        {"final_v", f4, 4, n, 0, ref->v},
    };
    char prefix[NAME_LEN];
    snprintf(prefix, sizeof prefix, "%s.net", stem);
    xpb_status st = write_arrays(dir, prefix, "net.", a, sizeof a / sizeof a[0], arrays, err);
    snprintf(prefix, sizeof prefix, "%s.ref", stem);
    if (!st)
        st = write_arrays(dir, prefix, "ref.", r, sizeof r / sizeof r[0], arrays, err);
    free(starts);
    return st;
}

/* The command that replays the dump: scripts/replay by absolute path (it runs from wherever
 * xpubench ran), which finds a Python with numpy (.venv's, else python3) or says what to install;
 * a bare `python3 scripts/burst-replay.py` works only from the repository root, with numpy in the
 * system's Python. */
static void replay_command(const char *sidecar, char *buf, size_t n)
{
    char tool[CMD_LEN];
    size_t o = 0;
    xpb_source_path("scripts/replay", tool, sizeof tool);
    xpb_shell_word(buf, n, &o, tool);
    if (o < n)
        o += (size_t)snprintf(buf + o, n - o, " ");
    xpb_shell_word(buf, n, &o, sidecar);
}

static xpb_status put_run(const char *dir, const char *stem, const char *sidecar, const xpb_case *c,
                          const xpb_run_outcome *o, const xpb_run_origin *origin, cJSON *runs, xpb_error *err)
{
    const burst_outcome *b = o->state;
    char key[128], tag[128], prefix[NAME_LEN], cmd[CMD_LEN];
    const char *device = origin->device ? origin->device : "-", *variant = origin->variant ? origin->variant : "-";
    snprintf(key, sizeof key, "%s/%s", device, variant);
    xpb_dump_stem(key, tag, sizeof tag);
    snprintf(prefix, sizeof prefix, "%s.run.%s", stem, tag);
    size_t nb = (size_t)o->iterations, sets = b->batched ? 1 : nb;
    uint32_t *counts = malloc(nb * 2 * sizeof *counts + 1);
    double *starts = starts_f64(b->fired_start, sets + 1);
    if (!counts || !starts) {
        free(counts), free(starts);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "dump: out of host memory");
    }
    for (size_t i = 0; i < nb; i++)
        counts[2 * i] = b->fired_per_burst[i], counts[2 * i + 1] = b->events_per_burst[i];
    const char *u4 = xpb_npy_descr_u32();
    array a[] = {
        {"fired", u4, 4, (size_t)b->fired_start[sets], 0, b->fired_ids},
        {"fired_start", xpb_npy_descr_f64(), 8, sets + 1, 0, starts},
        {"final_v", xpb_npy_descr(XPB_DTYPE_F32), 4, (size_t)b->neurons, 0, b->final_v},
        {"counts", u4, 4, nb, 2, counts},
    };
    cJSON *e = cJSON_CreateObject();
    snprintf(tag, sizeof tag, "%.*s", (int)strcspn(device, ":"), device); /* "cuda:0" -> "cuda" */
    cJSON_AddStringToObject(e, "backend", tag);
    cJSON_AddStringToObject(e, "device", device);
    cJSON_AddStringToObject(e, "variant", variant);
    cJSON_AddBoolToObject(e, "batched", b->batched);
    cJSON_AddStringToObject(e, "fired_sets", b->batched ? "the last burst's only (a batched run is not read between "
                                                          "bursts)" : "every burst");
    xpb_dump_rerun_command(c, origin->device, origin->seed, cmd, sizeof cmd);
    cJSON_AddStringToObject(e, "rerun", cmd);
    replay_command(sidecar, cmd, sizeof cmd);
    cJSON_AddStringToObject(e, "replay", cmd);
    cJSON *v = cJSON_AddObjectToObject(e, "check");
    cJSON_AddBoolToObject(v, "ops_passed", o->ops_passed);
    cJSON_AddBoolToObject(v, "run_passed", o->run_passed);
    cJSON_AddStringToObject(v, "summary", o->summary);
    xpb_status st = write_arrays(dir, prefix, "", a, sizeof a / sizeof a[0], cJSON_AddObjectToObject(e, "arrays"), err);
    cJSON_DeleteItemFromObjectCaseSensitive(runs, key);
    cJSON_AddItemToObject(runs, key, e);
    free(counts), free(starts);
    return st;
}

xpb_status burst_dump_run(const char *dir, const char *stem, const xpb_case *c, const xpb_case_data *d,
                          const xpb_run_outcome *o, const xpb_run_origin *origin, xpb_error *err)
{
    const burst_host *h = d->host;
    const burst_outcome *b = o->state_free == burst_outcome_free ? o->state : NULL;
    if (!b || !b->fired_start || !b->fired_ids || !b->final_v || !b->fired_per_burst)
        return xpb_fail(err, XPB_ERR_USAGE, "dump %s: the run kept no fired sets (not the validated run)", c->id);
    cJSON *root;
    xpb_status st = xpb_dump_sidecar_open(dir, stem, c, origin->seed, SIDECAR_VERSION, "runs", &root, err);
    if (st)
        return st;
    put_config(root, c, &h->net, origin->seed);
    cJSON *arrays = cJSON_GetObjectItem(root, "arrays");
    if (!cJSON_GetObjectItem(arrays, "net.offsets")) /* once per case */
        st = put_network(dir, stem, h, arrays, err);
    char sidecar[2 * NAME_LEN];
    snprintf(sidecar, sizeof sidecar, "%s/%s.json", dir, stem);
    if (!st)
        st = put_run(dir, stem, sidecar, c, o, origin, cJSON_GetObjectItem(root, "runs"), err);
    if (!st)
        st = xpb_dump_sidecar_commit(dir, stem, root, err);
    cJSON_Delete(root);
    return st;
}
