/* cmd_tune.c - `xpubench tune` (docs/tuning.md): sweeps the tunable knobs of one backend on one
 * device (xpb_tune_sweep.c) and writes the values that won into a tuning file keyed by the
 * device's fingerprint, which a plain `run` on that device then uses. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_build_info.h"
#include "xpb_cli.h"
#include "xpb_clock.h"
#include "xpb_preset_auto.h"
#include "xpb_source.h"
#include "xpb_tune.h"

#define MAX_RUNS 8
/* tune's least change that counts, where compare's default is 5%: a tuning picks the best value,
 * and the band stays the larger of this and three times the noise, so a noisy machine keeps its
 * defaults. On the H200 three knobs were taken at 1% (0.934 - 0.975x) and each held in an A/B of
 * its own, 2.1 - 6.6% faster (XPB_CUDA_ROW_EXP=once, XPB_VULKAN_ROW_ONCHIP_EXPS=once,
 * XPB_VULKAN_ROW_ONCHIP_CHUNK=8192, the last one "same" in every case at 5%; docs/tuning.md). */
#define TUNE_THRESHOLD 0.01

typedef struct tune_args {
    const char *backend, *preset, *filter, *knobs, *tuning, *validate, *work, *warmup;
    int runs, rounds, warmup_runs;
    double threshold;
    bool list, markdown;
    const char *candidates[XPB_KNOB_COUNT]; /* --candidates KNOB=V1|V2: "V1|V2" by knob, validated */
} tune_args;

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xpubench tune --backend NAME[:INDEX] [options]\n"
            "  sweeps each tunable knob of the backend on its device (xpubench tune --list), every\n"
            "  candidate validated and timed by `xpubench run`, and keeps a value only when compare's\n"
            "  statistics call it faster than the default (docs/tuning.md)\n"
            "  --backend B         cpu, cuda or vulkan (one device: vulkan:1; default index 0)\n"
            "  --preset NAME       the sizes to tune at: quick, default, full, conformance (default: auto,\n"
            "                      as run: default on a hardware GPU, quick on a software device)\n"
            "  --filter REGEX      only cases whose id matches (e.g. 'cols=(32768|262144)')\n"
            "  --knobs LIST        only these knobs (XPB_VULKAN_ROW_L2_CHUNK,VULKAN_ROW_L2_VALUES)\n"
            "  --candidates KNOB=V1|V2|...  these values instead of the knob's candidates (repeatable;\n"
            "                      each checked as the knob's values are; the knob must be swept)\n"
            "  --tuning FILE       write (and merge) into FILE instead of the user's cache\n"
            "                      (~/.cache/xpubench/tuning/<device>.json)\n"
            "  --runs N            processes a side, each --rounds rounds, pooled (default 2, at most 8)\n"
            "  --rounds N          rounds a run (default 5: compare's least for a verdict)\n"
            "  --warmup-runs N     discarded runs of the base (1 round each) before the first timed run,\n"
            "                      which otherwise reads an idle GPU (default 1; 0: none; at most 8)\n"
            "  --warmup S          seconds of untimed launches before every round of the runs, as\n"
            "                      run's --warmup (default: run's, 0.05 on a GPU); longer lets a GPU\n"
            "                      that idled between rounds reach its clock again (docs/tuning.md)\n"
            "  --threshold T       the least change that counts, as compare's (default 0.01, where\n"
            "                      compare's is 0.05; the band is at least three times the noise)\n"
            "  --validate MODE     full or sampled, passed to the runs\n"
            "  --work DIR          keep the runs' tuning, results and log files in DIR (default: a\n"
            "                      temporary folder, removed at the end)\n"
            "  --list [--markdown] the tunable knobs: ops, variants and candidates\n");
}

/* --candidates KNOB=V1|V2|...: a tunable knob and a list of distinct values it accepts, at most
 * XPB_KNOB_MAX_CANDIDATES, into a->candidates; a usage error otherwise (one line, before anything
 * runs). A TEXT knob's form is its reader's to check, on the device: there, a value the reader
 * refuses is a rejected candidate. */
static int parse_candidates(const char *arg, tune_args *a)
{
    const char *eq = strchr(arg, '=');
    char name[128];
    if (!eq || eq == arg || !eq[1])
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: bad --candidates '%s' (expected KNOB=V1|V2|...)", arg);
    snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
    xpb_knob_id id = xpb_knob_find(name);
    if (id == XPB_KNOB_COUNT || !xpb_knob_tune_of(id))
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: --candidates: %s is not a tunable knob (xpubench tune --list)", name);
    if (a->candidates[id])
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: --candidates: %s given twice", xpb_knob_decl_of(id)->name);
    const char *list = eq + 1;
    char seen[XPB_KNOB_MAX_CANDIDATES][XPB_KNOB_VALUE_LEN];
    int n = 0;
    for (const char *v = list;; v++) {
        size_t len = strcspn(v, "|");
        char value[XPB_KNOB_VALUE_LEN];
        xpb_error err = {{0}};
        snprintf(value, sizeof value, "%.*s", (int)(len < sizeof value ? len : sizeof value - 1), v);
        if (len >= sizeof value || !len || strcmp(value, "*") == 0 || xpb_knob_check_value(id, value, &err))
            return xpb_cli_error(XPB_EXIT_USAGE, "tune: --candidates: %s", err.msg[0] ? err.msg
                                 : "an empty, '*' or too long value: list the values, V1|V2|...");
        for (int i = 0; i < n; i++)
            if (strcmp(seen[i], value) == 0)
                return xpb_cli_error(XPB_EXIT_USAGE, "tune: --candidates: %s lists %s twice",
                                     xpb_knob_decl_of(id)->name, value);
        if (n == XPB_KNOB_MAX_CANDIDATES)
            return xpb_cli_error(XPB_EXIT_USAGE, "tune: --candidates: more than %d values for %s",
                                 XPB_KNOB_MAX_CANDIDATES, xpb_knob_decl_of(id)->name);
        snprintf(seen[n++], XPB_KNOB_VALUE_LEN, "%s", value);
        v += len;
        if (!*v)
            break;
    }
    a->candidates[id] = list;
    return 0;
}

static int parse_args(int argc, char **argv, tune_args *a)
{
    enum { O_BACKEND = 256, O_PRESET, O_FILTER, O_KNOBS, O_CANDIDATES, O_TUNING, O_RUNS, O_ROUNDS, O_WARMUP_RUNS,
           O_WARMUP, O_THRESHOLD, O_VALIDATE, O_WORK, O_LIST, O_MARKDOWN, O_HELP };
    static const struct option opts[] = {
        {"backend", required_argument, 0, O_BACKEND}, {"preset", required_argument, 0, O_PRESET},
        {"filter", required_argument, 0, O_FILTER},   {"knobs", required_argument, 0, O_KNOBS},
        {"candidates", required_argument, 0, O_CANDIDATES},
        {"tuning", required_argument, 0, O_TUNING},   {"runs", required_argument, 0, O_RUNS},
        {"rounds", required_argument, 0, O_ROUNDS},   {"threshold", required_argument, 0, O_THRESHOLD},
        {"warmup-runs", required_argument, 0, O_WARMUP_RUNS}, {"warmup", required_argument, 0, O_WARMUP},
        {"validate", required_argument, 0, O_VALIDATE}, {"work", required_argument, 0, O_WORK},
        {"list", no_argument, 0, O_LIST},             {"markdown", no_argument, 0, O_MARKDOWN},
        {"help", no_argument, 0, O_HELP},             {0, 0, 0, 0}};
    int c;
    char *end = NULL;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_BACKEND: a->backend = optarg; break;
        case O_PRESET: a->preset = optarg; break;
        case O_FILTER: a->filter = optarg; break;
        case O_KNOBS: a->knobs = optarg; break;
        case O_CANDIDATES: {
            int rc = parse_candidates(optarg, a);
            if (rc)
                return rc;
            break;
        }
        case O_TUNING: a->tuning = optarg; break;
        case O_WORK: a->work = optarg; break;
        case O_LIST: a->list = true; break;
        case O_MARKDOWN: a->markdown = true; break;
        case O_VALIDATE:
            if (strcmp(optarg, "full") != 0 && strcmp(optarg, "sampled") != 0)
                return xpb_cli_error(XPB_EXIT_USAGE, "tune: bad --validate '%s' (full or sampled)", optarg);
            a->validate = optarg;
            break;
        case O_RUNS:
        case O_ROUNDS:
        case O_WARMUP_RUNS: {
            long v = strtol(optarg, &end, 10);
            long lo = c == O_WARMUP_RUNS ? 0 : 1, hi = c == O_ROUNDS ? 100 : MAX_RUNS;
            if (end == optarg || *end || v < lo || v > hi)
                return xpb_cli_error(XPB_EXIT_USAGE, "tune: bad %s '%s' (%ld..%ld)", argv[optind - 1], optarg, lo, hi);
            *(c == O_RUNS ? &a->runs : c == O_ROUNDS ? &a->rounds : &a->warmup_runs) = (int)v;
            break;
        }
        case O_WARMUP: { /* checked here as run checks it, so no child run fails on it */
            double w;
            int rc = xpb_cli_parse_double("--warmup", optarg, 0, XPB_CLI_WARMUP_MAX_S, &w);
            if (rc)
                return rc;
            a->warmup = optarg;
            break;
        }
        case O_THRESHOLD:
            a->threshold = strtod(optarg, &end);
            if (end == optarg || *end || !(a->threshold >= 0 && a->threshold < 1))
                return xpb_cli_error(XPB_EXIT_USAGE, "tune: bad --threshold '%s' (0 <= T < 1)", optarg);
            break;
        case O_HELP: usage(stdout); return -1;
        default:
            return xpb_cli_error(XPB_EXIT_USAGE, "tune: unknown or incomplete option '%s' (see xpubench tune --help)",
                                 argv[optind - 1]);
        }
    }
    if (optind < argc)
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: unexpected argument '%s'", argv[optind]);
    for (int i = 0; i < XPB_KNOB_COUNT && a->list; i++)
        if (a->candidates[i])
            return xpb_cli_error(XPB_EXIT_USAGE, "tune: --candidates goes with a sweep, not --list");
    if (a->markdown && !a->list)
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: --markdown goes with --list");
    if (!a->list && !a->backend)
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: --backend is required (cpu, cuda or vulkan)");
    return 0;
}

static void bars_to_commas(const char *src, char *dst, size_t n)
{
    size_t o = 0;
    for (; *src && o + 3 < n; src++)
        if (*src == '|')
            dst[o++] = ',', dst[o++] = ' ';
        else
            dst[o++] = *src;
    dst[o] = '\0';
}

/* --list: every tunable knob with its ops, variants, candidates and default. */
static int list_knobs(bool markdown)
{
    if (markdown)
        printf("| knob | ops | variants | candidates | default |\n| --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < XPB_KNOB_COUNT; i++) {
        const xpb_knob_tune *t = xpb_knob_tune_of((xpb_knob_id)i);
        if (!t)
            continue;
        const xpb_knob_decl *d = xpb_knob_decl_of((xpb_knob_id)i);
        char cands[XPB_KNOB_MAX_CANDIDATES][XPB_KNOB_VALUE_LEN], list[1024] = "";
        int n = xpb_knob_candidates(t, cands);
        for (int k = 0, used = 0; k < n && used < (int)sizeof list; k++)
            used += snprintf(list + used, sizeof list - (size_t)used, markdown ? "%s`%s`" : "%s%s",
                             k ? (markdown ? ", " : " ") : "", cands[k]);
        char ops[160], variants[160]; /* "a|b" as "a, b": a bar would split a Markdown cell */
        bars_to_commas(t->ops, ops, sizeof ops);
        bars_to_commas(t->variants, variants, sizeof variants);
        if (markdown)
            printf("| `%s` | %s | %s | %s | %s |\n", d->name, ops, variants, list, d->def);
        else
            printf("%-30s %s: %s in %s\n    candidates: %s; default %s\n", d->name, d->backend, ops, variants, list,
                   d->def);
    }
    return XPB_EXIT_OK;
}

/* The device of --backend B[:I], probed, and its fingerprint into o. */
static int resolve_device(const char *arg, xpb_tune_opts *o, xpb_device_info *info)
{
    char name[32];
    long index = 0;
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, ":"), arg);
    const char *colon = strchr(arg, ':');
    char *end = NULL;
    if (colon && ((index = strtol(colon + 1, &end, 10)) < 0 || end == colon + 1 || *end || index > 1000))
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: bad device '%s' (expected NAME:INDEX)", arg);
    if (!xpb_backend_name_known(name))
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: unknown backend '%s' (cpu, cuda, vulkan)", name);
    o->backend = xpb_backend_find(name);
    if (!o->backend)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "tune: backend %s is unavailable: %s", name,
                             xpb_backend_missing_reason(name));
    xpb_error err = {{0}};
    if (!o->backend->probe(&err))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "tune: backend %s is unavailable: %s", name, err.msg);
    if (index >= o->backend->device_count())
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "tune: device %s:%ld does not exist (%d %s device(s))", name, index,
                             o->backend->device_count(), name);
    memset(info, 0, sizeof *info);
    if (o->backend->device_info((int)index, info, &err))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "tune: %s:%ld: %s", name, index, err.msg);
    snprintf(o->device, sizeof o->device, "%s:%ld", name, index);
    xpb_tuning_fingerprint_of(name, info, &o->fp);
    return XPB_EXIT_OK;
}

/* The knobs to sweep into ids (*n): the backend's tunable knobs, or those of --knobs; a knob set
 * in the environment is left out with a warning (the environment overrides any tuning). */
static int select_knobs(const char *backend, const char *only, xpb_knob_id *ids, int *n)
{
    *n = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", only ? only : "");
    char *save = NULL;
    for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        xpb_knob_id id = xpb_knob_find(t);
        if (id == XPB_KNOB_COUNT || !xpb_knob_tune_of(id) || strcmp(xpb_knob_decl_of(id)->backend, backend) != 0)
            return xpb_cli_error(XPB_EXIT_USAGE, "tune: --knobs: %s is not a tunable knob of %s (xpubench tune --list)",
                                 t, backend);
    }
    for (int i = 0; i < XPB_KNOB_COUNT; i++) {
        const xpb_knob_decl *d = xpb_knob_decl_of((xpb_knob_id)i);
        if (!xpb_knob_tune_of((xpb_knob_id)i) || strcmp(d->backend, backend) != 0 ||
            (only && !xpb_name_in_list(only, d->name) && !xpb_name_in_list(only, d->name + 4)))
            continue;
        if (xpb_knob_env((xpb_knob_id)i)) {
            fprintf(stderr, "xpubench: warning: %s=%s is set in the environment, which overrides any tuning: not tuned\n",
                    d->name, xpb_knob_env((xpb_knob_id)i));
            continue;
        }
        ids[(*n)++] = (xpb_knob_id)i;
    }
    return XPB_EXIT_OK;
}

/* --preset auto as run resolves it for this one device (xpb_preset_auto.h). */
static const char *resolve_preset(const char *preset, const xpb_tune_opts *o, const xpb_device_info *info)
{
    if (strcmp(preset, XPB_PRESET_AUTO) != 0)
        return preset;
    xpb_device d;
    memset(&d, 0, sizeof d);
    d.backend = o->backend;
    d.info = *info;
    snprintf(d.label, sizeof d.label, "%s", o->device);
    xpb_run run;
    memset(&run, 0, sizeof run);
    run.devices = &d;
    run.n_devices = 1;
    xpb_preset_auto_assign(&run, xpb_machine_has_hardware_gpu());
    return d.preset;
}

/* The sweep's record in the entry: what was run and, per knob, every candidate's evidence. */
static void add_record(cJSON *entry, const xpb_tune_opts *o, const xpb_tune_knob *k, int n)
{
    char now[32];
    xpb_clock_utc(now, sizeof now, 0);
    cJSON *t = cJSON_AddObjectToObject(entry, "tuned");
    cJSON_AddStringToObject(t, "created_utc", now);
    cJSON_AddStringToObject(t, "xpubench", XPB_VERSION);
    cJSON_AddStringToObject(t, "git_commit", XPB_GIT_COMMIT);
    cJSON_AddStringToObject(t, "device", o->device);
    cJSON_AddStringToObject(t, "preset", o->preset);
    cJSON_AddStringToObject(t, "filter", o->filter ? o->filter : "");
    cJSON_AddNumberToObject(t, "runs", o->runs);
    cJSON_AddNumberToObject(t, "rounds", o->rounds);
    cJSON_AddNumberToObject(t, "warmup_runs", o->warmup_runs);
    if (o->warmup) /* the runs' per-round warm-up, when not run's default */
        cJSON_AddNumberToObject(t, "warmup_s", strtod(o->warmup, NULL));
    cJSON_AddNumberToObject(t, "threshold", o->compare.threshold);
    cJSON_AddStringToObject(t, "method", XPB_COMPARE_METHOD);
    cJSON *env = cJSON_AddObjectToObject(t, "environment"); /* declared knobs set while tuning */
    for (int i = 0; i < XPB_KNOB_COUNT; i++)
        if (xpb_knob_env((xpb_knob_id)i) && xpb_knob_decl_of((xpb_knob_id)i)->type != XPB_KNOB_TYPE_ENV)
            cJSON_AddStringToObject(env, xpb_knob_decl_of((xpb_knob_id)i)->name, xpb_knob_env((xpb_knob_id)i));
    cJSON *sweep = cJSON_AddArrayToObject(t, "sweep");
    static const char *const outcome[] = {"faster", "not faster", "rejected", "not run"};
    for (int i = 0; i < n; i++) {
        const xpb_knob_decl *d = xpb_knob_decl_of(k[i].id);
        cJSON *s = cJSON_CreateObject();
        cJSON_AddStringToObject(s, "knob", d->name);
        cJSON_AddStringToObject(s, "base", k[i].base[0] ? k[i].base : d->def);
        cJSON_AddStringToObject(s, "chosen", k[i].chosen >= 0 ? k[i].cand[k[i].chosen].value : k[i].base[0] ? k[i].base : d->def);
        cJSON_AddNumberToObject(s, "cases", k[i].cases > 0 ? k[i].cases : 0);
        /* where the candidates came from: the knob's XPB_KNOB_TUNE row, or --candidates */
        cJSON_AddStringToObject(s, "candidates_from", o->candidates[k[i].id] ? "command line" : "xpb_knobs.def");
        if (k[i].skipped[0])
            cJSON_AddStringToObject(s, "skipped", k[i].skipped);
        if (k[i].drift.found) { /* the base's A/A check failed: nothing chosen (xpb_tune_order.h) */
            cJSON *b = cJSON_AddObjectToObject(s, "base_drift");
            cJSON_AddStringToObject(b, "outcome", xpb_verdict_name(k[i].drift.outcome));
            if (isfinite(k[i].drift.time_ratio))
                cJSON_AddNumberToObject(b, "time_ratio", k[i].drift.time_ratio);
            cJSON_AddStringToObject(b, "why", k[i].drift.why);
        }
        cJSON *cs = cJSON_AddArrayToObject(s, "candidates");
        for (int c = 0; c < k[i].n && !k[i].skipped[0]; c++) {
            const xpb_tune_candidate *cd = &k[i].cand[c];
            cJSON *x = cJSON_CreateObject();
            cJSON_AddStringToObject(x, "value", cd->value);
            cJSON_AddStringToObject(x, "outcome", outcome[cd->outcome]);
            /* the cases its runs were timed on: a per-op value's ops' alone (the other ops' cases
             * run the base's values, unchanged by construction: docs/tuning.md) */
            cJSON_AddNumberToObject(x, "cases", cd->cases);
            if (cd->ops[0])
                cJSON_AddStringToObject(x, "ops", cd->ops);
            if (isfinite(cd->geomean))
                cJSON_AddNumberToObject(x, "time_ratio", cd->geomean);
            cJSON_AddStringToObject(x, "why", cd->why);
            cJSON_AddItemToArray(cs, x);
        }
        cJSON_AddItemToArray(sweep, s);
    }
}

/* Removes the temporary folder of the runs (flat: files only). */
static void remove_work(const char *dir)
{
    DIR *dp = opendir(dir);
    if (!dp)
        return;
    for (struct dirent *e; (e = readdir(dp));) {
        char p[1400];
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            unlink(p);
        }
    }
    closedir(dp);
    rmdir(dir);
}

/* The values the destination already holds for this device, for the knobs not swept now. */
static int kept_values(const char *path, const xpb_tune_opts *o, const xpb_knob_id *ids, int n_ids,
                       xpb_tuning_value *out)
{
    xpb_tuning_file f;
    xpb_error err = {{0}};
    int n = 0;
    if (xpb_tuning_load(path, &f, NULL, &err))
        return 0;
    xpb_tuning_match how;
    bool same = false;
    const xpb_tuning_entry *e = xpb_tuning_entry_for(&f, &o->fp, &how, &same);
    for (int i = 0; e && how == XPB_TUNING_MATCH_FINGERPRINT && i < e->n_values; i++) {
        bool swept = false;
        for (int j = 0; j < n_ids; j++)
            swept |= ids[j] == e->values[i].id;
        if (!swept)
            out[n++] = e->values[i];
    }
    xpb_tuning_file_free(&f);
    return n;
}

/* One knob's outcome on stdout, as soon as its sweep ends. */
static void print_knob(const xpb_tune_knob *k)
{
    const char *def = xpb_knob_decl_of(k->id)->def, *base = k->base[0] ? k->base : def;
    printf("%-30s %s%s%s\n", xpb_knob_decl_of(k->id)->name, k->skipped[0] ? "not tuned: " : "",
           k->skipped[0] ? k->skipped : k->chosen >= 0 ? k->cand[k->chosen].value : base,
           k->skipped[0]    ? ""
           : k->chosen >= 0 ? " (faster than the base)"
           : k->drift.found ? " (the base drifted: no candidate chosen)"
                            : " (no candidate faster)");
    for (int c = 0; c < k->n && !k->skipped[0]; c++)
        printf("    %-24s %-10s %s\n", k->cand[c].value,
               k->cand[c].outcome == XPB_TUNE_FASTER     ? "faster"
               : k->cand[c].outcome == XPB_TUNE_REJECTED ? "rejected"
               : k->cand[c].outcome == XPB_TUNE_NOT_RUN  ? "not run"
                                                         : "not faster",
               k->cand[c].why);
    fflush(stdout);
}

static int tune(const tune_args *a, xpb_tune_opts *o)
{
    xpb_device_info info;
    xpb_knob_id ids[XPB_KNOB_COUNT];
    int n_ids = 0, rc;
    if ((rc = resolve_device(a->backend, o, &info)) || (rc = select_knobs(o->backend->name, a->knobs, ids, &n_ids)))
        return rc;
    for (int i = 0; i < XPB_KNOB_COUNT; i++) { /* --candidates only of a knob this tune sweeps */
        bool swept = false;
        for (int j = 0; j < n_ids; j++)
            swept |= ids[j] == (xpb_knob_id)i;
        if (a->candidates[i] && !swept)
            return xpb_cli_error(XPB_EXIT_USAGE, "tune: --candidates: %s is not swept here (%s)",
                                 xpb_knob_decl_of((xpb_knob_id)i)->name,
                                 strcmp(xpb_knob_decl_of((xpb_knob_id)i)->backend, o->backend->name) != 0
                                     ? "another backend's knob"
                                 : xpb_knob_env((xpb_knob_id)i) ? "set in the environment"
                                                                : "not in --knobs");
    }
    regex_t re;
    if (a->filter && regcomp(&re, a->filter, REG_EXTENDED | REG_NOSUB) != 0)
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: bad --filter regex '%s'", a->filter);
    if (a->filter)
        regfree(&re);
    o->preset = resolve_preset(a->preset, o, &info);
    char dest[1024], fptext[700];
    if (a->tuning)
        snprintf(dest, sizeof dest, "%s", a->tuning);
    else if (!xpb_tuning_cache_path(&o->fp, dest, sizeof dest))
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: neither XDG_CACHE_HOME nor HOME is set: name the file with --tuning");
    xpb_tuning_file existing;
    bool missing = false;
    xpb_error err = {{0}};
    if (xpb_tuning_load(dest, &existing, &missing, &err) && !missing)
        return xpb_cli_error(XPB_EXIT_USAGE, "tune: %s (not overwritten: move it away)", err.msg);
    xpb_tuning_file_free(&existing);
    if (n_ids == 0) {
        printf("%s has no tunable knobs to sweep%s (xpubench tune --list): nothing written\n", o->device,
               a->knobs ? " among --knobs" : "");
        return XPB_EXIT_OK;
    }
    fprintf(stderr, "xpubench: tune: %s, %s; preset %s; %d knob(s), %d run(s) of %d rounds a side\n", o->device,
            xpb_tuning_fingerprint_text(&o->fp, fptext, sizeof fptext), o->preset, n_ids, o->runs, o->rounds);
    bool temp = !a->work;
    if (a->work) {
        snprintf(o->work, sizeof o->work, "%s", a->work);
    } else {
        const char *tmp = getenv("TMPDIR");
        snprintf(o->work, sizeof o->work, "%s/xpubench-tune-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(o->work))
            return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "tune: cannot make a temporary folder: %s", strerror(errno));
    }
    static xpb_tune_knob knobs[XPB_KNOB_COUNT];
    xpb_tuning_value config[XPB_KNOB_COUNT];
    int n_config = kept_values(dest, o, ids, n_ids, config);
    /* Knob by knob, the file written after each: a tune cut short (a time limit, ^C) keeps the
     * knobs it finished, and a later `tune --knobs` of the rest merges into it. */
    bool saved = false;
    int warmups = o->warmup_runs; /* before the tune's first timed run: the first knob that runs */
    for (int i = 0; i < n_ids && !rc; i++) {
        memset(&knobs[i], 0, sizeof knobs[i]);
        knobs[i].id = ids[i];
        rc = xpb_tune_sweep(o, config, &n_config, &knobs[i], &warmups);
        if (rc == 1 || rc == 0) {
            cJSON *entry = xpb_tuning_entry_json(&o->fp, config, n_config);
            add_record(entry, o, knobs, i + 1);
            if (xpb_tuning_save_entry(dest, entry, &o->fp, &err))
                rc = xpb_cli_error(XPB_EXIT_UNAVAILABLE, "tune: %s", err.msg);
            else
                saved = true;
        }
        print_knob(&knobs[i]);
    }
    if (saved)
        fprintf(stderr, "xpubench: tuning written to %s%s\n", dest, rc == 0 || rc == 1 ? "" : " (the knobs swept before the stop)");
    if (temp && rc == 0)
        remove_work(o->work);
    else
        fprintf(stderr, "xpubench: tune: the runs' files are in %s\n", o->work);
    return rc;
}

int xpb_cmd_tune(int argc, char **argv)
{
    tune_args a = {.preset = XPB_PRESET_AUTO, .runs = 2, .rounds = 5, .warmup_runs = 1, .threshold = -1};
    int rc = parse_args(argc, argv, &a);
    if (rc)
        return rc < 0 ? XPB_EXIT_OK : rc;
    if (a.list)
        return list_knobs(a.markdown);
    static xpb_tune_opts o;
    xpb_compare_opts defaults = XPB_COMPARE_OPTS_DEFAULT;
    o.compare = defaults;
    o.compare.threshold = a.threshold >= 0 ? a.threshold : TUNE_THRESHOLD;
    o.filter = a.filter;
    o.validate = a.validate;
    o.runs = a.runs;
    o.rounds = a.rounds;
    o.warmup_runs = a.warmup_runs;
    o.warmup = a.warmup;
    memcpy(o.candidates, a.candidates, sizeof o.candidates);
    xpb_self_path(o.self, sizeof o.self);
    return tune(&a, &o);
}
