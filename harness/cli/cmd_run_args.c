/* cmd_run_args.c - the command line of `xpubench run`: its usage text and the parsing of its
 * options into run_opts (cmd_run_opts.h); what they mean is cmd_run.c's. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_run_opts.h"
#include "xpb_input.h"
#include "xpb_mpi.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xpubench run [options]\n"
            "  --backend LIST      cpu,cuda,vulkan or all (default all); a device as cuda:0, vulkan:1\n"
            "  --devices LIST      run as one device group (0,1 or all) of the one --backend named: the\n"
            "                      multi-device workloads (collectives, NCCL; cuda only) across them;\n"
            "                      groups split by ':' (0:0,1:0,1,2,3) each run as a device of one run\n"
            "                      (a scaling sweep into one results file; not under MPI)\n"
            "  --workload LIST     workloads to run (default all; see xpubench list)\n"
            "  --filter REGEX      only cases whose id matches (POSIX extended regex), e.g. 'softmax|rope'\n"
            "  --variant LIST      only these kernel variants, e.g. blas or cublas,tiled (xpubench list)\n"
            "  --kernels PATH      also run the kernels of plugin library PATH, or of SPIR-V module PATH (.spv)\n"
            "                      with its manifest PATH.json (vulkan) (repeatable; docs/plugins.md)\n"
            "  --preset NAME       auto | quick | default | full | conformance (default: auto: default on a\n"
            "                      hardware GPU and the CPU beside one; quick on a software device such\n"
            "                      as lavapipe and on the CPU of a machine without a GPU, said in one line)\n"
            "  --size K=V,...      sizes instead of the preset: n=..., rows=...,cols=..., \n"
            "                      batch=...,heads=...,seq=...,head_dim=..., m=...,n=...,k=... (V may be 2^k);\n"
            "                      input=random|exact|large|peak|tiny|const|offset|lead keeps one input class\n"
            "                      (default: every class the op has, docs/validation.md)\n"
            "  --input FILE        the workloads that read files (xpubench list) take the vectors of FILE\n"
            "                      (.npy float32 2-D, or .fvecs) instead of generated data; their --size\n"
            "                      keys: docs/workloads.md; a malformed file is an error (exit 2)\n"
            "  --rounds N          time every case N times, interleaved with the cases around it (default\n"
            "                      5): the rounds' medians are the independent repetitions compare tests;\n"
            "                      it needs 5 on each side for a verdict (docs/reports.md, \"Verdicts\")\n"
            "  --repetitions N     Google Benchmark repetitions per case in each round (default 1)\n"
            "  --min-time S        measured seconds per repetition (default 0.06; quick 0.01)\n"
            "  --warmup S          untimed launches first, seconds (default 0.05)\n"
            "  --sample-min S      a timed sample is back-to-back launches lasting at least S seconds\n"
            "                      (default 0.0002; on a device group 0.002 and at least 20 launches or 50 ms, as\n"
            "                      nccl-tests times a collective); results: launches_per_sample\n"
            "  --graph             capture each sample's launches into a graph replayed by one launch\n"
            "                      per device (CUDA graphs; nccl-tests' -G); other backends: unsupported\n"
            "  --seed N            input generator seed (default 1)\n"
            "  --validate-only     validate every case, skip timing\n"
            "  --validate MODE     full (default) or sampled (first, last and 4096 random rows)\n"
            "  --out FILE          results JSON (docs/results-schema.md)\n"
            "  --csv FILE          the same rows as CSV\n"
            "  --markdown FILE     the same rows as Markdown\n"
            "  --dump DIR          write each case's inputs, outputs, fp64 reference and tolerance as\n"
            "                      .npy with a JSON sidecar (docs/reports.md; a stateful workload: its\n"
            "                      inputs, configuration and the run's state, replayable); a case that fails\n"
            "                      validation is dumped anyway: to DIR, else OUT.dump/ beside --out,\n"
            "                      else ./xpubench-dump/\n"
            "  --power             sample board power (NVML, CUDA devices) during the timed launches:\n"
            "                      results carry average/max watts and GFLOP/s and GB/s per watt;\n"
            "                      --min-time defaults to 1 s (NVML averages power over ~1 s)\n"
            "  --inject-fault KIND self-test of the checker: corrupt each output after the run\n"
            "                      (value | unwritten | guard); every case must then fail (exit 1)\n"
            "  --isolate           run every case (each variant on each device) in a process of its own:\n"
            "                      a crash, hang or sticky device error is that case's error, and the run\n"
            "                      goes on (default for --kernels plugins' kernels; docs/plugins.md)\n"
            "  --no-isolate        run plugin kernels in xpubench's own process too\n"
            "  --case-timeout S    an isolated case running longer than S seconds is stopped (SIGTERM,\n"
            "                      then SIGKILL) and recorded as an error\n"
            "  --tuning FILE       the knob values of FILE's entry for each device (xpubench tune); default:\n"
            "                      the device's own tuning in ~/.cache/xpubench/tuning, else a shipped one\n"
            "                      (tuning/) by device name, else the defaults (docs/tuning.md)\n"
            "  --no-tuning         the default knob values, whatever tuning exists\n");
}

/* "123", "2^20" -> value. */
bool xpb_run_parse_int(const char *s, int64_t *v)
{
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (errno || end == s)
        return false;
    if (*end == '^') {
        char *e2;
        long long p = strtoll(end + 1, &e2, 10);
        if (x != 2 || *e2 || p < 0 || p > 62)
            return false;
        x = 1LL << p;
        end = e2;
    }
    *v = x;
    return *end == 0;
}

static int parse_sizes(const char *arg, xpb_sizes *s)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", arg);
    /* strtok_r skips empty items: "m=1,,k=2" and a leading or trailing comma are typos, said */
    if (!*arg || arg[0] == ',' || arg[strlen(arg) - 1] == ',' || strstr(arg, ",,"))
        return xpb_cli_error(XPB_EXIT_USAGE, "bad --size '%s': an empty item (KEY=VALUE,...)", arg);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || eq == tok)
            return xpb_cli_error(XPB_EXIT_USAGE, "bad --size '%s': expected KEY=VALUE", tok);
        *eq = 0;
        int64_t v;
        if (strcmp(tok, XPB_INPUT_KEY) == 0) { /* an input class, by name */
            v = xpb_input_from_name(eq + 1);
            if (v == XPB_INPUT_COUNT)
                return xpb_cli_error(XPB_EXIT_USAGE, "bad --size input=%s (random, exact, large, peak, tiny, "
                                     "const, offset, lead)", eq + 1);
        } else if (!xpb_run_parse_int(eq + 1, &v) || v < 0) {
            return xpb_cli_error(XPB_EXIT_USAGE, "bad --size value %s=%s (a non-negative integer or 2^k)",
                                 tok, eq + 1);
        }
        bool known = false;
        for (const xpb_workload_i *const *w = xpb_workloads(); *w; w++)
            known |= (*w)->knows_size_key(tok);
        if (!known)
            return xpb_cli_error(XPB_EXIT_USAGE, "unknown --size key '%s'", tok);
        for (int i = 0; i < s->count; i++)
            if (strcmp(s->kv[i].key, tok) == 0)
                return xpb_cli_error(XPB_EXIT_USAGE, "--size names key '%s' twice", tok);
        if (s->count == XPB_MAX_PARAMS)
            return xpb_cli_error(XPB_EXIT_USAGE, "too many --size keys");
        snprintf(s->kv[s->count].key, sizeof s->kv[0].key, "%s", tok);
        s->kv[s->count++].value = v;
    }
    return XPB_EXIT_OK;
}

/* --isolate, --no-isolate and --case-timeout into o->cfg (xpb_isolate.h); the run's arguments
 * kept for its isolated cases' processes. A process of one isolated case isolates nothing. */
static int isolation_args(run_opts *o, int argc, char **argv)
{
    xpb_run_config *cfg = &o->cfg;
    cfg->run_argc = argc - 1;
    cfg->run_argv = argv + 1;
    if (o->isolated_case) {
        cfg->isolate = XPB_ISOLATE_OFF;
        cfg->case_timeout = 0;
        return XPB_EXIT_OK;
    }
    if (o->isolate && o->no_isolate)
        return xpb_cli_error(XPB_EXIT_USAGE, "--isolate and --no-isolate: choose one");
    cfg->isolate = o->isolate ? XPB_ISOLATE_ALL : o->no_isolate ? XPB_ISOLATE_OFF : XPB_ISOLATE_PLUGINS;
    if (o->isolate && (o->devices || xpb_mpi_active()))
        return xpb_cli_error(XPB_EXIT_USAGE, "--isolate: a device group's ranks run in one process (--devices, MPI); "
                             "isolation is for cases on one device");
    if (cfg->case_timeout > 0 && (cfg->isolate == XPB_ISOLATE_OFF || (!o->isolate && !o->kernels_given)))
        return xpb_cli_error(XPB_EXIT_USAGE, "--case-timeout applies to isolated cases only: add --isolate (or "
                             "--kernels, whose kernels run isolated unless --no-isolate)");
    return XPB_EXIT_OK;
}

int xpb_run_parse_args(int argc, char **argv, run_opts *o)
{
    enum { O_BACKEND = 256, O_WORKLOAD, O_FILTER, O_PRESET, O_SIZE, O_REPS, O_MINTIME, O_WARMUP,
           O_SEED, O_SAMPLEMIN, O_GRAPH, O_OUT, O_CSV, O_MD, O_VONLY, O_VALIDATE, O_FAULT, O_HELP, O_DUMP, O_POWER, O_INPUT, O_VARIANT, O_ROUNDS, O_DEVICES, O_KERNELS,
           O_ISOLATE, O_NO_ISOLATE, O_CASE_TIMEOUT, O_ISOLATED_CASE, O_ISOLATED_FD, O_TUNING, O_NO_TUNING };
    static const struct option opts[] = {
        {"backend", required_argument, 0, O_BACKEND}, {"workload", required_argument, 0, O_WORKLOAD},
        {"filter", required_argument, 0, O_FILTER},   {"preset", required_argument, 0, O_PRESET},
        {"size", required_argument, 0, O_SIZE},       {"repetitions", required_argument, 0, O_REPS},
        {"min-time", required_argument, 0, O_MINTIME}, {"warmup", required_argument, 0, O_WARMUP},
        {"seed", required_argument, 0, O_SEED},       {"out", required_argument, 0, O_OUT},
        {"csv", required_argument, 0, O_CSV},         {"markdown", required_argument, 0, O_MD},
        {"validate-only", no_argument, 0, O_VONLY},   {"validate", required_argument, 0, O_VALIDATE},
        {"inject-fault", required_argument, 0, O_FAULT}, {"input", required_argument, 0, O_INPUT}, {"help", no_argument, 0, O_HELP},
        {"dump", required_argument, 0, O_DUMP},       {"power", no_argument, 0, O_POWER},
        {"variant", required_argument, 0, O_VARIANT}, {"rounds", required_argument, 0, O_ROUNDS},
        {"devices", required_argument, 0, O_DEVICES}, {"sample-min", required_argument, 0, O_SAMPLEMIN},
        {"graph", no_argument, 0, O_GRAPH},           {"kernels", required_argument, 0, O_KERNELS},
        {"isolate", no_argument, 0, O_ISOLATE},       {"no-isolate", no_argument, 0, O_NO_ISOLATE},
        {"case-timeout", required_argument, 0, O_CASE_TIMEOUT},
        /* internal: the process of one isolated case (xpb_isolate.h), started by the run */
        {"isolated-case", required_argument, 0, O_ISOLATED_CASE}, {"isolated-fd", required_argument, 0, O_ISOLATED_FD},
        {"tuning", required_argument, 0, O_TUNING},   {"no-tuning", no_argument, 0, O_NO_TUNING},
        {0, 0, 0, 0}};
    int c, rc = 0;
    double d = 0;
    int64_t v = 0;
    opterr = 0;
    optind = 1;
    while (!rc && (c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case O_BACKEND: o->backends = optarg; break;
        case O_DEVICES: o->devices = optarg; break;
        case O_WORKLOAD: o->workloads = optarg; break;
        case O_FILTER: o->filter = optarg; break;
        case O_VARIANT: o->cfg.variants = optarg; break;
        case O_KERNELS:
            rc = xpb_plugin_cli_load(optarg);
            o->kernels_given = true;
            break;
        case O_ISOLATE: o->isolate = true; break;
        case O_NO_ISOLATE: o->no_isolate = true; break;
        case O_CASE_TIMEOUT: rc = xpb_cli_parse_double("--case-timeout", optarg, 0.001, 86400, &o->cfg.case_timeout); break;
        case O_ISOLATED_CASE: o->isolated_case = optarg; break;
        case O_ISOLATED_FD:
            if (!xpb_run_parse_int(optarg, &v) || v < 0 || v > 65535)
                rc = xpb_cli_error(XPB_EXIT_USAGE, "bad --isolated-fd '%s'", optarg);
            o->isolated_fd = (int)v;
            break;
        case O_PRESET: o->preset = optarg; break;
        case O_SIZE: rc = parse_sizes(optarg, &o->sizes); break;
        case O_INPUT: o->sizes.input = optarg; break;
        case O_REPS:
            if (!xpb_run_parse_int(optarg, &v) || v < 1 || v > 1000)
                rc = xpb_cli_error(XPB_EXIT_USAGE, "bad --repetitions '%s' (1..1000)", optarg);
            o->cfg.repetitions = (int)v;
            o->reps_set = true;
            break;
        case O_ROUNDS:
            if (!xpb_run_parse_int(optarg, &v) || v < 1 || v > 100)
                rc = xpb_cli_error(XPB_EXIT_USAGE, "bad --rounds '%s' (1..100)", optarg);
            o->cfg.rounds = (int)v;
            o->rounds_set = true;
            break;
        case O_MINTIME:
            rc = xpb_cli_parse_double("--min-time", optarg, 1e-6, 3600, &d);
            o->cfg.min_time = d;
            o->min_time_set = true;
            break;
        case O_GRAPH: o->cfg.graph = true; break;
        case O_SAMPLEMIN:
            rc = xpb_cli_parse_double("--sample-min", optarg, 1e-6, 60, &d);
            o->cfg.sample_min = d;
            break;
        case O_WARMUP:
            rc = xpb_cli_parse_double("--warmup", optarg, 0, XPB_CLI_WARMUP_MAX_S, &d);
            o->cfg.warmup_time = d;
            o->warmup_set = true;
            break;
        case O_SEED:
            if (!xpb_run_parse_int(optarg, &v))
                rc = xpb_cli_error(XPB_EXIT_USAGE, "bad --seed '%s'", optarg);
            o->cfg.seed = (uint64_t)v;
            break;
        case O_OUT: o->out = optarg; break;
        case O_CSV: o->csv = optarg; break;
        case O_MD: o->markdown = optarg; break;
        case O_VONLY: o->cfg.validate_only = true; break;
        case O_DUMP: o->cfg.dump_dir = optarg; break;
        case O_POWER: o->cfg.power = true; break;
        case O_VALIDATE:
            if (strcmp(optarg, "full") != 0 && strcmp(optarg, "sampled") != 0)
                rc = xpb_cli_error(XPB_EXIT_USAGE, "bad --validate '%s' (full or sampled)", optarg);
            o->cfg.sampled = strcmp(optarg, "sampled") == 0;
            break;
        case O_FAULT:
            if (strcmp(optarg, "value") == 0)
                o->cfg.inject_fault = XPB_FAULT_VALUE;
            else if (strcmp(optarg, "unwritten") == 0)
                o->cfg.inject_fault = XPB_FAULT_UNWRITTEN;
            else if (strcmp(optarg, "guard") == 0)
                o->cfg.inject_fault = XPB_FAULT_GUARD;
            else
                rc = xpb_cli_error(XPB_EXIT_USAGE, "bad --inject-fault '%s' (value, unwritten, guard)", optarg);
            break;
        case O_TUNING: o->tuning = optarg; break;
        case O_NO_TUNING: o->no_tuning = true; break;
        case O_HELP: usage(stdout); return -1;
        default:
            return xpb_cli_error(XPB_EXIT_USAGE, "run: unknown or incomplete option '%s' (see xpubench run --help)",
                                 argv[optind - 1]);
        }
    }
    if (!rc && optind < argc)
        rc = xpb_cli_error(XPB_EXIT_USAGE, "run: unexpected argument '%s'", argv[optind]);
    if (!rc && o->tuning && o->no_tuning)
        rc = xpb_cli_error(XPB_EXIT_USAGE, "run: --tuning and --no-tuning exclude each other");
    return rc ? rc : isolation_args(o, argc, argv);
}
