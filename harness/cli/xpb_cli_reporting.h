/* xpb_cli_reporting.h - the subcommands that read results files: compare, report and plot
 * (docs/reports.md). Each takes main's argc/argv shifted so that argv[0] is the command name,
 * and returns the process exit code (xpb_cli.h). */
#ifndef XPB_CLI_REPORTING_H
#define XPB_CLI_REPORTING_H

#include <stddef.h>

/* `xpubench compare BASE.json NEW.json` and `xpubench compare --machines A.json B.json ...`. */
int xpb_cmd_compare(int argc, char **argv);
/* `xpubench report RESULTS.json... -o DIR`: runs reports/report.py. */
int xpb_cmd_report(int argc, char **argv);
/* `xpubench plot RESULTS.json [--case REGEX] [--term dumb|png|svg] [-o FILE]`: gnuplot. */
int xpb_cmd_plot(int argc, char **argv);

/* A --price NAME=USD entry of `compare --machines`. */
typedef struct xpb_price {
    const char *name; /* hostname, or the results file's name without directory and .json */
    double usd;
} xpb_price;

/* `compare --machines`: the best validated variant of every case and precision class per
 * machine, relative to the first file, with geometric means; optional per-dollar and per-watt
 * columns. labels[i] (i < n_labels) names file i instead of its GPUs or CPU. Writes Markdown and
 * JSON too when md / json are not NULL. Returns an exit code (0, or 2 for a bad file). */
int xpb_compare_machines(char **files, int n_files, const xpb_price *prices, int n_prices,
                         const char *const *labels, int n_labels, const char *md, const char *json);

#endif
