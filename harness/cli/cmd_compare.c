/* cmd_compare.c - `xpubench compare BASE.json NEW.json`: regressions between two runs, and
 * `xpubench compare --machines A.json B.json ...`: machines side by side (docs/reports.md). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_cli.h"
#include "xpb_cli_reporting.h"
#include "xpb_compare.h"

#define MAX_PRICES 32

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xpubench compare BASE.json NEW.json [options]\n"
            "       xpubench compare --machines A.json B.json ... [--label NAME]... [--price NAME=USD]...\n"
            "                                    [--markdown F] [--json F]\n\n"
            "Per case (id, device, variant), on independent units (the medians of the run's rounds,\n"
            "run --rounds): the ratio of the units' medians new/base against the case's band, the larger\n"
            "of --threshold and --noise-k times its noise (the spread of either side's rounds and, with\n"
            "--history, of its medians in earlier runs; with --rerun-base/--rerun-new, Student's t times\n"
            "the spread of the runs' medians). slower/faster: outside the band with every round\n"
            "on one side; noisy: fewer than 5 rounds, a band over --max-band, or rounds that overlap.\n"
            "Files without rounds fall back to the within-run samples (docs/reports.md, \"Verdicts\").\n"
            "A stateful case is also compared per op, a unit being one run's time in the op,\n"
            "with both iteration counts: when they differ, per-run times are incomparable (no verdict);\n"
            "ops of files without per-run samples are info-only. A slower op is a regression too. Its\n"
            "workload's metrics that have a direction (energy, recall, events/s) are listed, base -> new.\n\n"
            "  --threshold X   minimum effect, as a fraction or a percentage (default 0.05 = 5%%)\n"
            "  --noise-k K     a case's band is at least K times its noise (default 3)\n"
            "  --max-band X    a case whose band is wider than X is noisy: too noisy to judge (default 0.3)\n"
            "  --history F     an earlier results file of the same machine (repeat, up to 64): each\n"
            "                  case's noise is at least the spread of its medians over them and BASE\n"
            "  --rerun-base F  another run of BASE's build, in its own process (repeat, up to 16): its\n"
            "                  rounds join BASE's units, so shifts between processes count as noise\n"
            "                  and a verdict needs every round of every run on one side\n"
            "  --rerun-new F   the same for NEW\n"
            "  --alpha X       files without rounds: significance level of the U test (default 0.05)\n"
            "  --max-cv X      files without rounds: robust coefficient of variation (IQR/1.349/median)\n"
            "                  above which a case is noisy, unless its interval is inside the band (0.3)\n"
            "  --all           list unchanged (same) cases in the console table too\n"
            "  --markdown F    write a Markdown summary (for a CI job page)\n"
            "  --json F        write every row as JSON\n"
            "  --junit F       write JUnit XML: one test per case; a regression or a validation\n"
            "                  failure is a failed test\n"
            "  --machines      compare machines instead: the best validated variant of each case and\n"
            "                  precision (fp32, tf32, fp16 inputs: separate rows) per file, relative to\n"
            "                  the first file, with geometric means; machines named by their GPUs or CPU\n"
            "  --label NAME    with --machines: the name of the next file's machine (in file order)\n"
            "  --price N=USD   with --machines: the price of machine N (its name, hostname or file name)\n\n"
            "exit codes: 0 no regression, 2 usage error or unreadable/corrupt results file,\n"
            "4 a case (or an op of a stateful case) got slower or newly failed validation (or errored)\n");
}

#define MAX_HISTORY 64
#define MAX_RERUNS 16

typedef struct compare_opts {
    xpb_compare_opts stats;
    bool all, machines;
    const char *markdown, *json, *junit;
    xpb_price prices[MAX_PRICES];
    int n_prices;
    const char *labels[MAX_PRICES];
    int n_labels;
    const char *history[MAX_HISTORY]; /* --history FILE, repeated */
    int n_history;
    const char *reruns[2][MAX_RERUNS]; /* --rerun-base, --rerun-new FILE, repeated */
    int n_reruns[2];
} compare_opts;

/* A positive number, optionally with a trailing '%' (then divided by 100). */
static int parse_fraction(const char *s, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s)
        return -1;
    if (*end == '%') {
        v /= 100.0;
        end++;
    }
    if (*end || !isfinite(v) || v <= 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_price(compare_opts *o, char *arg)
{
    char *eq = strchr(arg, '=');
    char *end;
    if (!eq || eq == arg || o->n_prices == MAX_PRICES)
        return -1;
    double usd = strtod(eq + 1, &end);
    if (end == eq + 1 || *end || !(usd > 0) || !isfinite(usd))
        return -1;
    *eq = '\0';
    o->prices[o->n_prices++] = (xpb_price){arg, usd};
    return 0;
}

static int parse_args(int argc, char **argv, compare_opts *o)
{
    enum { O_THR = 256, O_ALPHA, O_MAXCV, O_ALL, O_MD, O_JSON, O_JUNIT, O_MACHINES, O_PRICE, O_LABEL, O_HELP,
           O_NOISEK, O_MAXBAND, O_HISTORY, O_RERUN_BASE, O_RERUN_NEW };
    static const struct option opts[] = {
        {"threshold", required_argument, 0, O_THR}, {"alpha", required_argument, 0, O_ALPHA},
        {"max-cv", required_argument, 0, O_MAXCV},  {"all", no_argument, 0, O_ALL},
        {"markdown", required_argument, 0, O_MD},   {"json", required_argument, 0, O_JSON},
        {"junit", required_argument, 0, O_JUNIT},   {"machines", no_argument, 0, O_MACHINES},
        {"price", required_argument, 0, O_PRICE},   {"label", required_argument, 0, O_LABEL},
        {"help", no_argument, 0, O_HELP},           {"noise-k", required_argument, 0, O_NOISEK},
        {"max-band", required_argument, 0, O_MAXBAND}, {"history", required_argument, 0, O_HISTORY},
        {"rerun-base", required_argument, 0, O_RERUN_BASE}, {"rerun-new", required_argument, 0, O_RERUN_NEW},
        {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case O_THR:
            if (parse_fraction(optarg, &o->stats.threshold) || o->stats.threshold >= 10)
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: bad --threshold '%s' (a fraction, e.g. 0.05 or 5%%)", optarg);
            break;
        case O_ALPHA:
            if (parse_fraction(optarg, &o->stats.alpha) || o->stats.alpha >= 1)
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: bad --alpha '%s' (between 0 and 1)", optarg);
            break;
        case O_MAXCV:
            if (parse_fraction(optarg, &o->stats.max_cv))
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: bad --max-cv '%s'", optarg);
            break;
        case O_NOISEK:
            if (parse_fraction(optarg, &o->stats.noise_k) || o->stats.noise_k > 100)
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: bad --noise-k '%s' (a positive number, e.g. 3)", optarg);
            break;
        case O_MAXBAND:
            if (parse_fraction(optarg, &o->stats.max_band))
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: bad --max-band '%s' (a fraction, e.g. 0.3 or 30%%)", optarg);
            break;
        case O_HISTORY:
            if (o->n_history == MAX_HISTORY)
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: more than %d --history files", MAX_HISTORY);
            o->history[o->n_history++] = optarg;
            break;
        case O_RERUN_BASE:
        case O_RERUN_NEW: {
            int side = c == O_RERUN_NEW;
            if (o->n_reruns[side] == MAX_RERUNS)
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: more than %d --rerun-%s files", MAX_RERUNS,
                                     side ? "new" : "base");
            o->reruns[side][o->n_reruns[side]++] = optarg;
            break;
        }
        case O_ALL: o->all = true; break;
        case O_MD: o->markdown = optarg; break;
        case O_JSON: o->json = optarg; break;
        case O_JUNIT: o->junit = optarg; break;
        case O_MACHINES: o->machines = true; break;
        case O_PRICE:
            if (parse_price(o, optarg))
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: bad --price '%s' (NAME=USD, e.g. h100=30000)", optarg);
            break;
        case O_LABEL:
            if (!optarg[0] || o->n_labels == MAX_PRICES)
                return xpb_cli_error(XPB_EXIT_USAGE, "compare: bad --label '%s' (a name, at most %d)", optarg, MAX_PRICES);
            o->labels[o->n_labels++] = optarg;
            break;
        case 'h':
        case O_HELP: usage(stdout); return -1;
        default:
            return xpb_cli_error(XPB_EXIT_USAGE, "compare: unknown or incomplete option '%s' (xpubench compare --help)",
                                 argv[optind - 1]);
        }
    }
    return 0;
}

static int load(const char *path, xpb_results_file *f)
{
    xpb_error err = {{0}};
    if (xpb_results_load(path, f, &err) != XPB_OK)
        return xpb_cli_error(XPB_EXIT_USAGE, "%s", err.msg);
    return 0;
}

/* Pools the rounds of another run of the same build into side (--rerun-base, --rerun-new). */
static int add_rerun(xpb_results_file *side, const char *path)
{
    xpb_results_file r;
    int rc = load(path, &r);
    if (rc)
        return rc;
    xpb_error err = {{0}};
    if (xpb_results_add_rerun(side, &r, &err))
        rc = xpb_cli_error(XPB_EXIT_UNAVAILABLE, "compare: %s", err.msg);
    xpb_results_file_free(&r);
    return rc;
}

static int write_outputs(const compare_opts *o, const xpb_comparison *cmp)
{
    xpb_error err = {{0}};
    if ((o->markdown && xpb_comparison_write_markdown(o->markdown, cmp, &err)) ||
        (o->json && xpb_comparison_write_json(o->json, cmp, &err)) ||
        (o->junit && xpb_comparison_write_junit(o->junit, cmp, &err)))
        return xpb_cli_error(XPB_EXIT_USAGE, "compare: %s", err.msg);
    return 0;
}

static int compare_two(const compare_opts *o, const char *base_path, const char *new_path)
{
    xpb_results_file base, next;
    int rc = load(base_path, &base);
    if (rc)
        return rc;
    if ((rc = load(new_path, &next))) {
        xpb_results_file_free(&base);
        return rc;
    }
    xpb_results_file *hist = calloc((size_t)o->n_history + 1, sizeof *hist);
    if (!hist) {
        xpb_results_file_free(&base);
        xpb_results_file_free(&next);
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "compare: out of memory");
    }
    int nh = 0;
    while (!rc && nh < o->n_history)
        if (!(rc = load(o->history[nh], &hist[nh])))
            nh++;
    xpb_comparison cmp;
    xpb_error err = {{0}};
    for (int side = 0; side < 2 && !rc; side++)
        for (int i = 0; i < o->n_reruns[side] && !rc; i++)
            rc = add_rerun(side ? &next : &base, o->reruns[side][i]);
    if (rc) {
        /* an unreadable history or rerun file: its one-line error is out */
    } else if (xpb_compare_files_history(&base, &next, hist, (size_t)nh, &o->stats, &cmp, &err)) {
        rc = xpb_cli_error(XPB_EXIT_UNAVAILABLE, "%s", err.msg);
    } else {
        cmp.base_runs = 1 + (size_t)o->n_reruns[0];
        cmp.new_runs = 1 + (size_t)o->n_reruns[1];
        xpb_comparison_print(stdout, &cmp, o->all);
        fflush(stdout);
        rc = write_outputs(o, &cmp);
        if (!rc && xpb_comparison_regressed(&cmp))
            rc = XPB_EXIT_REGRESSION;
        xpb_comparison_free(&cmp);
    }
    for (int h = 0; h < nh; h++)
        xpb_results_file_free(&hist[h]);
    free(hist);
    xpb_results_file_free(&base);
    xpb_results_file_free(&next);
    return rc;
}

int xpb_cmd_compare(int argc, char **argv)
{
    compare_opts o = {.stats = XPB_COMPARE_OPTS_DEFAULT};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? XPB_EXIT_OK : rc;
    int n = argc - optind;
    if (o.machines) {
        if (n < 2)
            return xpb_cli_error(XPB_EXIT_USAGE, "compare --machines: give at least two results files");
        if (o.junit)
            return xpb_cli_error(XPB_EXIT_USAGE, "compare --machines: --junit is for BASE NEW comparisons");
        return xpb_compare_machines(argv + optind, n, o.prices, o.n_prices, o.labels, o.n_labels, o.markdown, o.json);
    }
    if (o.n_prices || o.n_labels)
        return xpb_cli_error(XPB_EXIT_USAGE, "compare: --%s needs --machines", o.n_prices ? "price" : "label");
    if (n != 2)
        return xpb_cli_error(XPB_EXIT_USAGE, "compare: give exactly two results files, BASE.json NEW.json "
                                             "(got %d; xpubench compare --help)", n);
    return compare_two(&o, argv[optind], argv[optind + 1]);
}
