/* cmd_plot.c - `xpubench plot RESULTS.json [--case REGEX] [--term dumb|png|svg] [-o FILE]`:
 * throughput against size, one line per op, device and variant, log-log, through gnuplot, for
 * machines without Python. The gnuplot script (.gp) and its data (.dat) are written beside the
 * output so that users can restyle the chart and rerun `gnuplot FILE.gp`. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_cli.h"
#include "xpb_cli_reporting.h"
#include "xpb_compare.h"
#include "xpb_spawn.h"

#define PATH_LEN 1024

typedef enum metric { M_AUTO, M_GBPS, M_GFLOPS, M_TIME } metric;

typedef struct plot_opts {
    const char *results, *case_re, *term, *out;
    metric metric;
} plot_opts;

typedef struct series {
    const xpb_rcase **pts;
    size_t n;
} series;

static void usage(FILE *f)
{
    fprintf(f, "usage: xpubench plot RESULTS.json [--case REGEX] [--term dumb|png|svg] [-o FILE]\n"
               "                    [--metric auto|gbps|gflops|time]\n\n"
               "A log-log chart of throughput against size (elements), one line per op, device and\n"
               "variant, drawn by gnuplot: in the terminal (dumb, the default) or into a PNG/SVG file\n"
               "(default name: RESULTS stem + .png/.svg in this directory). FILE.gp and FILE.dat are\n"
               "written beside the output (xpubench-plot.gp/.dat here for the terminal): edit the script\n"
               "and run `gnuplot FILE.gp` to restyle. Failed and unsupported cases are not drawn.\n"
               "--metric auto plots GFLOP/s when the cases are compute-heavy (gemm), else GB/s.\n");
}

static int parse_args(int argc, char **argv, plot_opts *o)
{
    static const struct option opts[] = {{"case", required_argument, 0, 'c'}, {"term", required_argument, 0, 't'},
                                         {"out", required_argument, 0, 'o'},  {"metric", required_argument, 0, 'm'},
                                         {"help", no_argument, 0, 'h'},       {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': o->case_re = optarg; break;
        case 't': o->term = optarg; break;
        case 'o': o->out = optarg; break;
        case 'm':
            o->metric = !strcmp(optarg, "gbps") ? M_GBPS : !strcmp(optarg, "gflops") ? M_GFLOPS
                      : !strcmp(optarg, "time") ? M_TIME : !strcmp(optarg, "auto") ? M_AUTO : (metric)-1;
            if ((int)o->metric < 0)
                return xpb_cli_error(XPB_EXIT_USAGE, "plot: bad --metric '%s' (auto, gbps, gflops, time)", optarg);
            break;
        case 'h': usage(stdout); return -1;
        default:
            return xpb_cli_error(XPB_EXIT_USAGE, "plot: unknown or incomplete option '%s' (xpubench plot --help)",
                                 argv[optind - 1]);
        }
    }
    if (strcmp(o->term, "dumb") && strcmp(o->term, "png") && strcmp(o->term, "svg"))
        return xpb_cli_error(XPB_EXIT_USAGE, "plot: bad --term '%s' (dumb, png or svg)", o->term);
    if (argc - optind != 1)
        return xpb_cli_error(XPB_EXIT_USAGE, "plot: give one results file (xpubench plot --help)");
    o->results = argv[optind];
    return 0;
}

static double value_of(const xpb_rcase *c, metric m)
{
    double bytes = c->bytes_read + c->bytes_written;
    if (m == M_TIME)
        return c->median_s;
    if (m == M_GFLOPS)
        return isfinite(c->gflops) ? c->gflops : c->flops / c->median_s / 1e9;
    return isfinite(c->gbps) ? c->gbps : bytes / c->median_s / 1e9;
}

static const char *metric_label(metric m)
{
    return m == M_TIME ? "median kernel time (s)" : m == M_GFLOPS ? "GFLOP/s" : "GB/s";
}

/* auto: GFLOP/s when the median case does more than 4 flops per byte moved. */
static metric choose_metric(const xpb_rcase **sel, size_t n)
{
    double *ai = malloc((n ? n : 1) * sizeof *ai);
    if (!ai)
        return M_GBPS;
    for (size_t i = 0; i < n; i++)
        ai[i] = sel[i]->flops / fmax(sel[i]->bytes_read + sel[i]->bytes_written, 1.0);
    double med = xpb_median_of(ai, n);
    free(ai);
    return med > 4 ? M_GFLOPS : M_GBPS;
}

static int series_key_cmp(const xpb_rcase *a, const xpb_rcase *b)
{
    int d = strcmp(a->workload, b->workload);
    if (!d) d = strcmp(a->op, b->op);
    if (!d) d = strcmp(a->device, b->device);
    if (!d) d = strcmp(a->variant, b->variant);
    return d;
}

static int cmp_points(const void *pa, const void *pb)
{
    const xpb_rcase *a = *(const xpb_rcase *const *)pa, *b = *(const xpb_rcase *const *)pb;
    int d = series_key_cmp(a, b);
    return d ? d : (a->elements > b->elements) - (a->elements < b->elements);
}

/* Single-quoted gnuplot string body: ' doubled. */
static void gp_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        fputs(*s == '\'' ? "''" : (char[2]){*s, 0}, f);
    fputc('\'', f);
}

static void base_name(const char *path, char *dst, size_t n)
{
    const char *s = strrchr(path, '/');
    snprintf(dst, n, "%s", s ? s + 1 : path);
}

/* Writes data (one block per series, two blank lines between) and the script. */
static int write_files(const plot_opts *o, const xpb_results_file *rf, const xpb_rcase **pts, size_t n,
                       metric m, const char *gp, const char *dat, const char *out)
{
    FILE *fd = fopen(dat, "w"), *fg = fopen(gp, "w");
    if (!fd || !fg) {
        if (fd) fclose(fd);
        if (fg) fclose(fg);
        return xpb_cli_error(XPB_EXIT_USAGE, "plot: cannot write %s", !fd ? dat : gp);
    }
    char dat_base[PATH_LEN], out_base[PATH_LEN];
    base_name(dat, dat_base, sizeof dat_base);
    fprintf(fg, "# xpubench plot of %s (run %s, host %s)\n# Restyle freely, then run: gnuplot %s\n",
            rf->path, rf->run_id, rf->hostname, strrchr(gp, '/') ? strrchr(gp, '/') + 1 : gp);
    if (!strcmp(o->term, "png"))
        fputs("if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) { set terminal pngcairo noenhanced size 1280,800 } "
              "else { set terminal png noenhanced size 1280,800 }\n", fg);
    else if (!strcmp(o->term, "svg"))
        fputs("set terminal svg noenhanced size 1280,800 dynamic\n", fg);
    else
        fprintf(fg, "set terminal dumb noenhanced size %d,%d\n", 120, 40);
    if (out) {
        base_name(out, out_base, sizeof out_base);
        fputs("set output ", fg);
        gp_quoted(fg, out_base);
        fputc('\n', fg);
    }
    fprintf(fg, "set title 'xpubench: %s against size (%s)'\nset xlabel 'elements'\nset ylabel '%s'\n"
                "set logscale xy\nset grid\nset key %s\nset datafile commentschars '#'\n",
            metric_label(m), rf->hostname[0] ? rf->hostname : "results", metric_label(m),
            strcmp(o->term, "dumb") ? "outside right top" : "below");
    fputs("plot", fg);
    size_t block = 0;
    for (size_t i = 0; i < n; block++) {
        size_t j = i;
        fprintf(fd, "# %s/%s %s %s\n# elements %s median_s\n", pts[i]->workload, pts[i]->op, pts[i]->device,
                pts[i]->variant, metric_label(m));
        for (; j < n && !series_key_cmp(pts[i], pts[j]); j++)
            fprintf(fd, "%.17g %.9g %.9g\n", pts[j]->elements, value_of(pts[j], m), pts[j]->median_s);
        fputs("\n\n", fd);
        char title[512];
        snprintf(title, sizeof title, "%s %s %s", pts[i]->op, pts[i]->device, pts[i]->variant);
        fprintf(fg, "%s ", block ? ", \\\n    " : "");
        gp_quoted(fg, dat_base);
        fprintf(fg, " index %zu using 1:2 with linespoints title ", block);
        gp_quoted(fg, title);
        i = j;
    }
    fputc('\n', fg);
    int bad = ferror(fd) | ferror(fg);
    bad |= fclose(fd) | fclose(fg);
    return bad ? xpb_cli_error(XPB_EXIT_USAGE, "plot: cannot write %s", gp) : 0;
}

/* FILE.png -> FILE.gp / FILE.dat beside it. */
static void sibling(const char *out, const char *ext, char *dst, size_t n)
{
    const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
    size_t len = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
    snprintf(dst, n, "%.*s%s", (int)len, out, ext);
}

static void note_skipped(const xpb_results_file *rf, const regex_t *re, size_t plotted)
{
    size_t not_ok = 0, non_positive = 0;
    for (size_t i = 0; i < rf->n_cases; i++) {
        const xpb_rcase *c = &rf->cases[i];
        if (re && regexec(re, c->id, 0, NULL, 0) != 0)
            continue;
        if (!xpb_rcase_is_timed_ok(c))
            not_ok++;
        else if (!(c->elements > 0))
            non_positive++;
    }
    if (not_ok)
        fprintf(stderr, "plot: %zu cases drawn; not drawn: %zu without a validated timing (failed, unsupported, "
                        "error, skipped or validate-only)\n", plotted, not_ok);
    if (non_positive)
        fprintf(stderr, "plot: not drawn: %zu cases of size 0 (log scale)\n", non_positive);
}

static int plot(const plot_opts *o, const xpb_results_file *rf, regex_t *re)
{
    const xpb_rcase **pts = malloc((rf->n_cases + 1) * sizeof *pts);
    if (!pts)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "plot: out of memory");
    size_t n = 0;
    for (size_t i = 0; i < rf->n_cases; i++) {
        const xpb_rcase *c = &rf->cases[i];
        if (xpb_rcase_is_timed_ok(c) && c->elements > 0 && (!re || regexec(re, c->id, 0, NULL, 0) == 0))
            pts[n++] = c;
    }
    note_skipped(rf, re, n);
    if (n == 0) {
        free(pts);
        return xpb_cli_error(XPB_EXIT_USAGE, "plot: no validated, timed case%s%s in %s", o->case_re ? " matches " : "",
                             o->case_re ? o->case_re : "", rf->path);
    }
    qsort(pts, n, sizeof *pts, cmp_points);
    metric m = o->metric == M_AUTO ? choose_metric(pts, n) : o->metric;
    char out[PATH_LEN], gp[PATH_LEN], dat[PATH_LEN], stem[PATH_LEN], name[PATH_LEN];
    bool to_file = o->out || strcmp(o->term, "dumb");
    base_name(o->results, name, sizeof name);
    sibling(name, "", stem, sizeof stem);
    snprintf(out, sizeof out, "%s", o->out ? o->out : stem);
    if (!o->out && to_file)
        snprintf(out + strlen(out), sizeof out - strlen(out), ".%s", o->term);
    sibling(to_file ? out : "xpubench-plot", ".gp", gp, sizeof gp);
    sibling(to_file ? out : "xpubench-plot", ".dat", dat, sizeof dat);
    int rc = write_files(o, rf, pts, n, m, gp, dat, to_file ? out : NULL);
    free(pts);
    if (rc)
        return rc;
    char dir[PATH_LEN], gp_base[PATH_LEN];
    snprintf(dir, sizeof dir, "%s", gp);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = '\0';
    base_name(gp, gp_base, sizeof gp_base);
    char *argv[] = {"gnuplot", gp_base, NULL};
    xpb_error err = {{0}};
    int st = xpb_spawn_wait(argv, slash ? dir : NULL, &err);
    if (st < 0)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "plot: %s (Debian/Ubuntu: apt-get install gnuplot-nox); the "
                             "script is %s", err.msg, gp);
    if (st)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "plot: gnuplot failed (exit %d) on %s", st, gp);
    if (!to_file)
        putchar('\n'); /* gnuplot's dumb chart ends without one */
    fflush(stdout);
    fprintf(stderr, "plot: %s%s%s (script %s, data %s)\n", to_file ? "wrote " : "", to_file ? out : "",
            to_file ? "" : "drawn", gp, dat);
    return XPB_EXIT_OK;
}

int xpb_cmd_plot(int argc, char **argv)
{
    plot_opts o = {.term = "dumb", .metric = M_AUTO};
    int rc = parse_args(argc, argv, &o);
    if (rc)
        return rc < 0 ? XPB_EXIT_OK : rc;
    regex_t re;
    if (o.case_re && regcomp(&re, o.case_re, REG_EXTENDED | REG_NOSUB) != 0)
        return xpb_cli_error(XPB_EXIT_USAGE, "plot: bad --case regex '%s'", o.case_re);
    xpb_results_file rf;
    xpb_error err = {{0}};
    if (xpb_results_load(o.results, &rf, &err))
        rc = xpb_cli_error(XPB_EXIT_USAGE, "%s", err.msg);
    else {
        rc = plot(&o, &rf, o.case_re ? &re : NULL);
        xpb_results_file_free(&rf);
    }
    if (o.case_re)
        regfree(&re);
    return rc;
}
