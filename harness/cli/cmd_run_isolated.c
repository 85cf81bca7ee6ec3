/* cmd_run_isolated.c - `run --isolated-case ID`: the process of one isolated case
 * (xpb_isolate.h). The run that started it pinned the device, variant, preset and timing on the
 * command line after its own arguments; this process opens that device itself, runs the one case
 * as any run runs it, and sends the result back. The device's description comes from the run
 * (xpb_isolate_record.h): only its context is opened here. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xpb_cli.h"
#include "xpb_isolate_record.h"

/* "cpu:0" -> its backend and index; NULL when the name is not a backend of this build. */
static const xpb_backend_i *parse_device(const char *device, int *index)
{
    char name[32];
    const char *colon = strchr(device, ':');
    size_t len = colon ? (size_t)(colon - device) : strlen(device);
    if (len >= sizeof name)
        return NULL;
    memcpy(name, device, len);
    name[len] = '\0';
    *index = colon ? atoi(colon + 1) : 0;
    return xpb_backend_find(name);
}

int xpb_run_isolated_case(const char *device, const char *case_id, int fd, const xpb_case_list *cases,
                          const xpb_run_config *cfg)
{
    xpb_case_list one = {0};
    for (size_t i = 0; i < cases->count && !one.count; i++)
        if (strcmp(cases->items[i].id, case_id) == 0)
            one = (xpb_case_list){.items = &cases->items[i], .count = 1, .capacity = 1};
    if (!one.count)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "isolated case %s: no such case in this run", case_id);
    int index = 0;
    const xpb_backend_i *b = parse_device(device, &index);
    xpb_error err = {{0}};
    if (!b)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "isolated case %s: no backend for device %s", case_id, device);
    /* the run's device, described as the run described it; this process's own context */
    xpb_device dev = {.backend = b, .index = index};
    snprintf(dev.label, sizeof dev.label, "%s", device);
    if (xpb_isolate_info_read(fd, &dev.info, &err) || b->open(index, &dev.ctx, &err))
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "isolated case %s: cannot open %s: %s", case_id, device, err.msg);
    xpb_run run = {.devices = &dev, .n_devices = 1};
    xpb_status st = xpb_runner_run(&run, &one, cfg, &err);
    if (!st && run.count != 1)
        st = xpb_fail(&err, XPB_ERR_UNSUPPORTED, "%zu results on %s (expected one)", run.count, device);
    if (!st)
        st = xpb_isolate_record_write(fd, &run.results[0], &err);
    xpb_run_free(&run);
    if (st)
        return xpb_cli_error(XPB_EXIT_UNAVAILABLE, "isolated case %s: %s", case_id, err.msg);
    /* Out at once: the run has the result, and the device's teardown (a CUDA context after a
     * sticky error) has nothing left to give it but a chance to hang or crash. */
    fflush(stderr);
    _exit(XPB_EXIT_OK);
}
