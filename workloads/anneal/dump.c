/* dump.c - `--dump DIR` of an anneal case (xpb_workload_i.dump_run; docs/workloads.md section 3
 * asks for it, docs/reports.md has the layout): enough to replay the run from the dump alone,
 * with xpubench (the "replay" command: the points as --input) or any other implementation of
 * section 3 (the "config" object holds every parameter). Per case and seed, once:
 *   <stem>.points.npy                       points (n, d) <f4
 * per run (device/variant; the tag is the stem of "cpu:0/blas", "cpu_0__blas"):
 *   <stem>.run.<tag>.init_anchors.npy       anchors after init (m, d) <f4
 *   <stem>.run.<tag>.final_anchors.npy      final anchors (anchors, d) <f4, empty ones included
 *   <stem>.run.<tag>.final_assign.npy       each point's final anchor (n,) <u4
 *   <stem>.run.<tag>.trajectory.npy         (iterations, 4) <f8: energy, changes, anchors, T
 * and the sidecar <stem>.json (schema "xpubench-dump", version 2): "config", "arrays" (points),
 * "runs" (per device/variant: origin, rerun and replay commands, outcome, validation, arrays). */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "anneal_case.h"
#include "xpb_dump.h"
#include "xpb_npy.h"
#include "xpb_source.h"

#define SIDECAR_VERSION 2
#define NAME_LEN 1024
#define CMD_LEN 2048

static const char *const trajectory_columns[] = {"energy", "changes", "anchors", "t"};

/* Every parameter of the run but the points: sizes, where the points come from, the seed and
 * the anneal_config the case's params select (xpb_case_param "orig", "iters"). */
static void put_config(cJSON *root, const xpb_case *c, uint64_t seed)
{
    anneal_config cfg = anneal_case_config(c);
    cJSON_DeleteItemFromObjectCaseSensitive(root, "config");
    cJSON *o = cJSON_AddObjectToObject(root, "config");
    const struct {
        const char *key;
        double value;
    } f[] = {{"n", (double)xpb_case_param(c, "n", 1)}, {"d", (double)xpb_case_param(c, "d", 1)},
             {"m", (double)cfg.m}, {"seed", (double)seed}, {"t0", cfg.t0}, {"cooling", cfg.cooling},
             {"lr", cfg.lr}, {"trim", cfg.trim}, {"max_iter", cfg.max_iter}, {"energy_tol", cfg.energy_tol},
             {"min_changes", (double)cfg.min_changes}, {"interval", cfg.interval}};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        cJSON_AddNumberToObject(o, f[i].key, f[i].value);
    if (c->input) { /* the blob generator's k and seed did not make these points */
        cJSON_AddNullToObject(o, "k");
        cJSON_AddStringToObject(o, "input", c->input);
    } else {
        cJSON_AddNumberToObject(o, "k", (double)xpb_case_param(c, "k", cfg.m));
        cJSON_AddNullToObject(o, "input");
    }
}

/* The command that replays the run from the dumped points: case c as an --input case of them
 * (its params but k, which only shapes the blobs, and queries, held out of the points and not
 * dumped; plus file=1: the id such a case gets), run by this binary's absolute path: xpubench is
 * not on PATH after the quick start (build/xpubench). */
static void replay_command(const xpb_case *c, const char *points, const xpb_run_origin *origin, char *buf,
                           size_t n)
{
    xpb_case r = *c;
    r.input = points;
    r.n_params = 0;
    for (int i = 0; i < c->n_params; i++)
        if (strcmp(c->params[i].key, "k") != 0 && strcmp(c->params[i].key, "queries") != 0)
            r.params[r.n_params++] = c->params[i];
    xpb_case_set_param(&r, "file", 1);
    xpb_case_make_id(&r);
    xpb_dump_rerun_command(&r, origin->device, origin->seed, buf, n); /* this binary by its absolute path */
}

/* dir/<stem><suffix>: the file name into file, and whether dir/file fits in NAME_LEN. */
static bool name_file(char *file, const char *dir, const char *stem, const char *suffix)
{
    return snprintf(file, NAME_LEN, "%s%s", stem, suffix) < NAME_LEN && strlen(dir) + 1 + strlen(file) < NAME_LEN;
}

static void put_outcome(cJSON *e, const xpb_run_outcome *o)
{
    const anneal_outcome *ao = o->state;
    cJSON_AddNumberToObject(e, "iterations", o->iterations);
    cJSON_AddBoolToObject(e, "converged", o->converged);
    cJSON_AddNumberToObject(e, "energy", ao->energy);
    cJSON_AddNumberToObject(e, "init_anchors", (double)ao->init_anchor_count);
    cJSON_AddNumberToObject(e, "anchors", (double)ao->anchors);
    cJSON_AddNumberToObject(e, "compression_ratio", ao->ratio);
    cJSON *v = cJSON_AddObjectToObject(e, "check"); /* as in the results file's "run" */
    cJSON_AddBoolToObject(v, "ops_passed", o->ops_passed);
    cJSON_AddBoolToObject(v, "run_checked", o->run_checked);
    cJSON_AddBoolToObject(v, "run_passed", o->run_passed);
    cJSON_AddStringToObject(v, "summary", o->summary);
}

/* The run's state and trajectory as .npy, into the object arrays. */
static xpb_status write_run_arrays(const char *dir, const char *prefix, const xpb_case *c, const xpb_run_outcome *o,
                                   cJSON *arrays, xpb_error *err)
{
    size_t n = (size_t)xpb_case_param(c, "n", 1), dim = (size_t)xpb_case_param(c, "d", 1);
    const anneal_outcome *ao = o->state;
    size_t its = (size_t)o->iterations;
    double *traj = malloc(its * 4 * sizeof *traj + 1);
    if (!traj)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "dump %s: out of host memory", c->id);
    for (size_t i = 0; i < its; i++) {
        const anneal_step *s = &ao->steps[i];
        double row[4] = {s->energy, (double)s->changes, (double)s->anchors, s->t};
        memcpy(traj + 4 * i, row, sizeof row);
    }
    struct {
        const char *key, *descr;
        size_t elem, shape[2];
        int nd;
        const void *data;
    } a[] = {
        {"init_anchors", xpb_npy_descr(XPB_DTYPE_F32), 4, {(size_t)ao->init_anchor_count, dim}, 2, ao->init_anchors},
        {"final_anchors", xpb_npy_descr(XPB_DTYPE_F32), 4, {(size_t)ao->anchors, dim}, 2, ao->final_anchors},
        {"final_assign", xpb_npy_descr_u32(), 4, {n, 0}, 1, ao->final_assign},
        {"trajectory", xpb_npy_descr_f64(), 8, {its, 4}, 2, traj},
    };
    xpb_status st = XPB_OK;
    for (size_t i = 0; i < sizeof a / sizeof a[0] && !st; i++) {
        char suffix[64], file[NAME_LEN];
        snprintf(suffix, sizeof suffix, ".%s.npy", a[i].key);
        if (!name_file(file, dir, prefix, suffix))
            st = xpb_fail(err, XPB_ERR_IO, "dump directory path too long: %s", dir);
        else
            st = xpb_dump_array(dir, file, a[i].descr, a[i].elem, a[i].shape, a[i].nd, a[i].data, arrays, a[i].key,
                                err);
    }
    free(traj);
    if (!st)
        cJSON_AddItemToObject(cJSON_GetObjectItem(arrays, "trajectory"), "columns",
                              cJSON_CreateStringArray(trajectory_columns, 4));
    return st;
}

/* runs["<device>/<variant>"]: where the run was made, how to make it again, what it reached. */
static xpb_status put_run(const char *dir, const char *stem, const char *points, const xpb_case *c,
                          const xpb_run_outcome *o, const xpb_run_origin *origin, cJSON *runs, xpb_error *err)
{
    char key[128], tag[128], prefix[NAME_LEN], cmd[CMD_LEN];
    const char *device = origin->device ? origin->device : "-", *variant = origin->variant ? origin->variant : "-";
    snprintf(key, sizeof key, "%s/%s", device, variant);
    xpb_dump_stem(key, tag, sizeof tag);
    snprintf(prefix, sizeof prefix, "%s.run.%s", stem, tag);
    cJSON *e = cJSON_CreateObject();
    snprintf(tag, sizeof tag, "%.*s", (int)strcspn(device, ":"), device); /* "cuda:0" -> "cuda" */
    cJSON_AddStringToObject(e, "backend", tag);
    cJSON_AddStringToObject(e, "device", device);
    cJSON_AddStringToObject(e, "variant", variant);
    cJSON_AddStringToObject(e, "precision", origin->precision);
    xpb_dump_rerun_command(c, origin->device, origin->seed, cmd, sizeof cmd);
    cJSON_AddStringToObject(e, "rerun", cmd);
    replay_command(c, points, origin, cmd, sizeof cmd);
    cJSON_AddStringToObject(e, "replay", cmd);
    put_outcome(e, o);
    xpb_status st = write_run_arrays(dir, prefix, c, o, cJSON_AddObjectToObject(e, "arrays"), err);
    cJSON_DeleteItemFromObjectCaseSensitive(runs, key);
    cJSON_AddItemToObject(runs, key, e);
    return st;
}

xpb_status anneal_dump_run(const char *dir, const char *stem, const xpb_case *c, const xpb_case_data *d,
                           const xpb_run_outcome *o, const xpb_run_origin *origin, xpb_error *err)
{
    const anneal_outcome *ao = o->state_free == anneal_outcome_free ? o->state : NULL;
    if (!ao || !ao->init_anchors || !ao->final_anchors || !ao->final_assign || !ao->steps)
        return xpb_fail(err, XPB_ERR_USAGE, "dump %s: the run kept no anchors or trajectory (not the validated run)",
                        c->id);
    cJSON *root;
    xpb_status st = xpb_dump_sidecar_open(dir, stem, c, origin->seed, SIDECAR_VERSION, "runs", &root, err);
    if (st)
        return st;
    put_config(root, c, origin->seed);
    char file[NAME_LEN], points[2 * NAME_LEN + 2]; /* dir/file */
    cJSON *arrays = cJSON_GetObjectItem(root, "arrays");
    size_t shape[2] = {(size_t)xpb_case_param(c, "n", 1), (size_t)xpb_case_param(c, "d", 1)};
    if (!name_file(file, dir, stem, ".points.npy"))
        st = xpb_fail(err, XPB_ERR_IO, "dump directory path too long: %s", dir);
    else if (!cJSON_GetObjectItem(arrays, "points")) /* once per case and seed */
        st = xpb_dump_array(dir, file, xpb_npy_descr(XPB_DTYPE_F32), sizeof(float), shape, 2, d->in[0], arrays,
                            "points", err);
    snprintf(points, sizeof points, "%s/%s", dir, file);
    if (!st)
        st = put_run(dir, stem, points, c, o, origin, cJSON_GetObjectItem(root, "runs"), err);
    if (!st)
        st = xpb_dump_sidecar_commit(dir, stem, root, err);
    cJSON_Delete(root);
    return st;
}
