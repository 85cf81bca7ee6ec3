/* main.c - the xpubench command line: dispatches to one function per subcommand. */
#include <stdio.h>
#include <string.h>

#include "xpb_build_info.h"
#include "xpb_cli.h"
#include "xpb_cli_reporting.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: xpubench <command> [options]\n\n"
            "commands:\n"
            "  list                 workloads, ops, backends and devices (with why one is unavailable)\n"
            "  info [--json]        system fingerprint: CPU, memory, OS, compiler, GPUs, drivers\n"
            "  run [options]        run, validate and time cases (xpubench run --help)\n"
            "  tune --backend B     sweep the backend's tunable knobs on its device and write the\n"
            "                       values that are faster into a tuning file (xpubench tune --help)\n"
            "  compare BASE NEW     regressions between two results files; --machines A B ... compares\n"
            "                       machines (xpubench compare --help)\n"
            "  report FILE... -o D  HTML report with plots (Python + matplotlib: scripts/report-env.sh)\n"
            "  plot FILE            quick chart through gnuplot, in the terminal or a PNG/SVG file\n"
            "  version              print the version\n\n"
            "exit codes: 0 ok, 1 validation failure, 2 usage error, 3 backend unavailable or runtime\n"
            "error, 4 regression found by compare\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return XPB_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "list") == 0)
        return xpb_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "info") == 0)
        return xpb_cmd_info(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return xpb_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "tune") == 0)
        return xpb_cmd_tune(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return xpb_cmd_compare(argc - 1, argv + 1);
    if (strcmp(cmd, "report") == 0)
        return xpb_cmd_report(argc - 1, argv + 1);
    if (strcmp(cmd, "plot") == 0)
        return xpb_cmd_plot(argc - 1, argv + 1);
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("xpubench %s (%s)\n", XPB_VERSION, XPB_GIT_COMMIT);
        return XPB_EXIT_OK;
    }
    if (strcmp(cmd, "help") == 0 || strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        usage(stdout);
        return XPB_EXIT_OK;
    }
    usage(stderr);
    return xpb_cli_error(XPB_EXIT_USAGE, "unknown command '%s'", cmd);
}
