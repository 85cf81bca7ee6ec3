/* cmd_list.c - `xpubench list`: workloads and ops with their kernel variants per backend, and
 * backends with their devices or the reason they are unavailable. */
#include <stdio.h>
#include <string.h>

#include "xpb_cli.h"

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
                    printf(" %s/%s", (*b)->name, ks[i]->variant);
            }
            printf("\n");
        }
    }
}

int xpb_cmd_list(int argc, char **argv)
{
    (void)argv;
    if (argc > 1)
        return xpb_cli_error(XPB_EXIT_USAGE, "list takes no arguments");
    list_ops();
    xpb_backend_status st[3];
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
