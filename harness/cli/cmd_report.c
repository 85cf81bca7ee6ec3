/* cmd_report.c - `xpubench report RESULTS.json... -o DIR`: checks the results files, then runs
 * reports/report.py (matplotlib) with the Python of the repository's .venv when there is one,
 * else python3. The report is one folder: index.html with PNG and SVG plots and tables. */
#define _POSIX_C_SOURCE 200809L
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_build_info.h"
#include "xpb_cli.h"
#include "xpb_cli_reporting.h"
#include "xpb_results_loaded.h"
#include "xpb_spawn.h"

#define PATH_LEN 4096
#define MAX_ARGS 512

static void usage(FILE *f)
{
    fprintf(f, "usage: xpubench report RESULTS.json... -o DIR [--title TEXT]\n\n"
               "Writes DIR/index.html with matplotlib plots (PNG and SVG) and tables: throughput against\n"
               "size per op and backend, speedup against the CPU, a roofline per device, validation\n"
               "error against tolerance, timing distributions, and the history of each case when\n"
               "several runs of one host are given. Failed and unsupported cases are listed as such.\n"
               "Needs Python 3 with matplotlib: scripts/report-env.sh creates .venv with them.\n"
               "Environment: XPB_PYTHON (interpreter), XPB_REPORT_SCRIPT (path of report.py).\n");
}

static bool readable(const char *p) { return access(p, R_OK) == 0; }

/* dst = dirname(path) (no trailing slash); "." when path has no '/'. */
static void dir_of(const char *path, char *dst, size_t n)
{
    const char *s = strrchr(path, '/');
    if (!s)
        snprintf(dst, n, ".");
    else
        snprintf(dst, n, "%.*s", (int)(s == path ? 1 : s - path), path);
}

/* reports/report.py: $XPB_REPORT_SCRIPT, the source tree this binary was built from, beside or
 * above the binary (build directories inside the repository), or ./reports. */
static bool find_script(char *dst, size_t n)
{
    const char *env = getenv("XPB_REPORT_SCRIPT");
    if (env && *env) {
        snprintf(dst, n, "%s", env);
        return readable(dst);
    }
#ifdef XPB_SOURCE_DIR
    snprintf(dst, n, "%s/reports/report.py", XPB_SOURCE_DIR);
    if (readable(dst))
        return true;
#endif
    char exe[PATH_LEN], dir[PATH_LEN];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        dir_of(exe, dir, sizeof dir);
        static const char *const rel[] = {"/../reports/report.py", "/reports/report.py", "/../../reports/report.py"};
        for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
            snprintf(dst, n, "%s%s", dir, rel[i]);
            if (readable(dst))
                return true;
        }
    }
    snprintf(dst, n, "reports/report.py");
    return readable(dst);
}

/* $XPB_PYTHON, else <repository>/.venv/bin/python beside reports/, else python3. */
static void find_python(const char *script, char *dst, size_t n)
{
    const char *env = getenv("XPB_PYTHON");
    if (env && *env) {
        snprintf(dst, n, "%s", env);
        return;
    }
    char reports[PATH_LEN], root[PATH_LEN];
    dir_of(script, reports, sizeof reports);
    dir_of(reports, root, sizeof root);
    if (strcmp(reports, ".") == 0)
        snprintf(root, sizeof root, "..");
    if (snprintf(dst, n, "%s/.venv/bin/python", root) >= (int)n || access(dst, X_OK) != 0)
        snprintf(dst, n, "python3");
}

int xpb_cmd_report(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'}, {"title", required_argument, 0, 't'},
                                         {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *out = NULL, *title = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        if (c == 'o')
            out = optarg;
        else if (c == 't')
            title = optarg;
        else if (c == 'h') {
            usage(stdout);
            return XPB_EXIT_OK;
        } else
            return xpb_cli_error(XPB_EXIT_USAGE, "report: unknown or incomplete option '%s' (xpubench report --help)",
                                 argv[optind - 1]);
    }
    int n = argc - optind;
    if (!out)
        return xpb_cli_error(XPB_EXIT_USAGE, "report: give the output folder with -o DIR");
    if (n < 1 || n > MAX_ARGS - 8)
        return xpb_cli_error(XPB_EXIT_USAGE, "report: give 1 to %d results files", MAX_ARGS - 8);
    for (int i = optind; i < argc; i++) { /* refuse a bad file here, with one line, before Python */
        xpb_results_file f;
        xpb_error err = {{0}};
        if (xpb_results_load(argv[i], &f, &err))
            return xpb_cli_error(XPB_EXIT_USAGE, "%s", err.msg);
        xpb_results_file_free(&f);
    }
    char script[PATH_LEN], python[PATH_LEN];
    if (!find_script(script, sizeof script))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "report: reports/report.py not found (run xpubench from the "
                             "repository, or set XPB_REPORT_SCRIPT)");
    find_python(script, python, sizeof python);
    char *args[MAX_ARGS];
    int k = 0;
    args[k++] = python;
    args[k++] = script;
    args[k++] = "-o";
    args[k++] = (char *)out;
    if (title) {
        args[k++] = "--title";
        args[k++] = (char *)title;
    }
    for (int i = optind; i < argc; i++)
        args[k++] = argv[i];
    args[k] = NULL;
    xpb_error err = {{0}};
    int st = xpb_spawn_wait(args, NULL, &err);
    if (st < 0)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "report: %s: install Python 3 and run scripts/report-env.sh",
                             err.msg);
    return st;
}
