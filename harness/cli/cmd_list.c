/* cmd_list.c - `xpubench list`: workloads and ops with their kernel variants per backend, and
 * backends with their devices or the reason they are unavailable. `list --knobs`: every declared
 * environment knob (harness/core/xpb_knobs.def) with its value here; `--markdown`: docs/knobs.md's table. */
#include <stdio.h>
#include <string.h>

#include "xpb_cli.h"
#include "xpb_knob.h"
#include "xpb_plugin.h"

static void list_ops(void)
{
    printf("workloads and ops (variants per backend compiled in):\n");
    for (const xpb_workload_i *const *w = xpb_workloads(); *w; w++) {
        printf("  %s: %s\n", (*w)->name, (*w)->description);
        for (int op = 0; op < XPB_OP_COUNT; op++) {
            const xpb_op_info *oi = xpb_op_get((xpb_op)op);
            if (strcmp(oi->workload, (*w)->name) != 0)
                continue;
            printf("    %-10s", oi->name);
            for (const xpb_backend_i *const *b = xpb_backends(); *b; b++) {
                const xpb_kernel *ks[16];
                size_t n = xpb_backend_kernels_for(*b, (xpb_op)op, ks, 16);
                for (size_t i = 0; i < n; i++)
                    printf(" %s/%s%s", (*b)->name, ks[i]->variant, xpb_plugin_path_of(ks[i]) ? " (plugin)" : "");
            }
            printf("\n");
        }
    }
}

/* What a knob accepts, for a Markdown cell: the words or the form in backticks. */
static const char *markdown_accepts(const xpb_knob_decl *d, char *buf, size_t n)
{
    if (d->type == XPB_KNOB_TYPE_WORD) {
        char words[128];
        snprintf(words, sizeof words, "%s", d->values);
        buf[0] = '\0';
        int i = 0;
        for (char *w = strtok(words, "|"); w; w = strtok(NULL, "|"), i++) {
            size_t used = strlen(buf);
            snprintf(buf + used, n - used, "%s`%s`", i ? " or " : "", w);
        }
        return buf;
    }
    if (d->type == XPB_KNOB_TYPE_TEXT || d->type == XPB_KNOB_TYPE_ENV) {
        snprintf(buf, n, "`%s`", d->values);
        return buf;
    }
    return xpb_knob_accepts(d, buf, n);
}

/* docs/knobs.md's table, one row per declared knob (tests/knobs_doc.sh compares the two). */
static void list_knobs_markdown(void)
{
    printf("| knob | accepts | default (unset) | read by | what it does |\n| --- | --- | --- | --- | --- |\n");
    for (int i = 0; i < XPB_KNOB_COUNT; i++) {
        const xpb_knob_decl *d = xpb_knob_decl_of((xpb_knob_id)i);
        char accepts[256];
        printf("| `%s` | %s | %s%s%s | %s: %s | %s |\n", d->name, markdown_accepts(d, accepts, sizeof accepts),
               d->def[0] == '(' ? "" : "`", d->def, d->def[0] == '(' ? "" : "`", d->backend, d->reader, d->what);
    }
}

/* Every declared knob: its value here (or unset and the default), what it accepts, who reads it,
 * and a value it would reject, with the message the run would give. */
static void list_knobs(void)
{
    printf("knobs (XPB_* environment variables; docs/knobs.md):\n");
    for (int i = 0; i < XPB_KNOB_COUNT; i++) {
        const xpb_knob_decl *d = xpb_knob_decl_of((xpb_knob_id)i);
        const char *v = xpb_knob_value((xpb_knob_id)i);
        char accepts[256];
        xpb_error err = {{0}};
        printf("  %-30s %s%s%s  [default %s]\n", d->name, v ? "= " : "unset", v ? v : "",
               d->type == XPB_KNOB_TYPE_ENV ? " (not a tuning knob)" : "", d->def);
        printf("      %s: %s; accepts %s\n      %s\n", d->backend, d->reader, xpb_knob_accepts(d, accepts, sizeof accepts),
               d->what);
        if (xpb_knob_check((xpb_knob_id)i, &err) != XPB_OK)
            printf("      NOT ACCEPTED: %s\n", err.msg);
    }
}

int xpb_cmd_list(int argc, char **argv)
{
    bool knobs = false, markdown = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--knobs") == 0) {
            knobs = true;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            markdown = true;
        } else if (strcmp(argv[i], "--kernels") == 0 && i + 1 < argc) { /* a plugin's kernels listed too */
            int rc = xpb_plugin_cli_load(argv[++i]);
            if (rc)
                return rc;
        } else {
            return xpb_cli_error(XPB_EXIT_USAGE,
                                 "list: unexpected argument '%s' (list [--kernels PATH]... [--knobs [--markdown]])",
                                 argv[i]);
        }
    }
    if (markdown && !knobs)
        return xpb_cli_error(XPB_EXIT_USAGE, "list: --markdown goes with --knobs");
    if (knobs) {
        if (markdown)
            list_knobs_markdown();
        else
            list_knobs();
        return XPB_EXIT_OK;
    }
    list_ops();
    xpb_plugins_print(stdout);
    xpb_backend_status st[XPB_MAX_BACKENDS];
    int n = xpb_backends_survey(st);
    printf("\nbackends:\n");
    for (int i = 0; i < n; i++) {
        if (!st[i].available) {
            printf("  %-7s unavailable: %s\n", st[i].name, st[i].reason);
            continue;
        }
        const xpb_backend_i *b = xpb_backend_find(st[i].name);
        printf("  %-7s available\n", st[i].name);
        for (int d = 0; d < b->device_count(); d++) {
            xpb_device_info info;
            xpb_error err = {{0}};
            if (b->device_info(d, &info, &err) == XPB_OK)
                printf("    %s:%d  %s%s  (%s, %.1f GiB)\n", b->name, d, info.name,
                       info.is_software ? " [software device]" : "", info.driver[0] ? info.driver : info.runtime,
                       (double)info.memory_bytes / 1073741824.0);
            else
                printf("    %s:%d  (no info: %s)\n", b->name, d, err.msg);
        }
    }
    return XPB_EXIT_OK;
}
