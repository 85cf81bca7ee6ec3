/* xpb_device_open.c - opening the devices a run uses: one device of a backend, a group of them in
 * one process (its topology and the host CPUs each GPU's threads take), or this MPI rank's device
 * of a group across processes; closing them (xpb_runner.h). */
#define _POSIX_C_SOURCE 200809L /* gethostname */
#include "xpb_runner_internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xpb_group_cpus.h"
#include "xpb_mpi.h"

xpb_status xpb_device_open(const xpb_backend_i *b, int index, xpb_device *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    d->backend = b;
    d->index = index;
    snprintf(d->label, sizeof d->label, "%s:%d", b->name, index);
    xpb_status st = b->device_info(index, &d->info, err);
    if (st == XPB_OK)
        st = b->open(index, &d->ctx, err);
    return st;
}

/* The group's topology as far as this process sees it: ranks on another host than its own are
 * `network`; among the ranks on its host, the backend reads the links (NVML). Under MPI rank 0,
 * which writes the results, sees the pairs of its host. */
static void read_topology(const xpb_backend_i *b, xpb_group_layout *lay)
{
    char me[64] = "";
    (void)gethostname(me, sizeof me - 1);
    int idx[XPB_MAX_GROUP], dev[XPB_MAX_GROUP], m = 0;
    for (int i = 0; i < lay->n; i++) {
        lay->nvlinks[i] = -1;
        for (int j = 0; j < lay->n; j++)
            lay->link[i][j] = strcmp(lay->host[i], lay->host[j]) != 0 ? XPB_LINK_NETWORK
                              : i == j                                 ? XPB_LINK_SELF
                                                                       : XPB_LINK_UNKNOWN;
        if (strcmp(lay->host[i], me) == 0)
            idx[m] = i, dev[m++] = lay->device[i];
    }
    if (!b->group_topology || m == 0)
        return;
    int nvlinks[XPB_MAX_GROUP];
    signed char links[XPB_MAX_GROUP * XPB_MAX_GROUP];
    b->group_topology(dev, m, nvlinks, links);
    for (int i = 0; i < m; i++) {
        lay->nvlinks[idx[i]] = nvlinks[i];
        for (int j = 0; j < m; j++)
            if (i != j)
                lay->link[idx[i]][idx[j]] = links[i * m + j];
    }
}

/* Each rank's CPUs (xpb_group_cpus.h); a layout that starves the ranks' host threads adds its
 * warning to the device's (printed when the group opens, kept in the results). */
static xpb_status read_cpus(xpb_device *d, bool mpi, xpb_error *err)
{
    xpb_status st = xpb_group_cpus_read(&d->layout, mpi, err);
    char w[sizeof d->info.warning];
    if (st != XPB_OK || xpb_group_cpus_warning(&d->layout, mpi, w, sizeof w) == 0)
        return st;
    const size_t have = strlen(d->info.warning);
    snprintf(d->info.warning + have, sizeof d->info.warning - have, "%s%s", have ? "; " : "", w);
    return XPB_OK;
}

xpb_status xpb_device_open_group(const xpb_backend_i *b, const int *devices, int n, xpb_device *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    d->backend = b;
    if (!b->open_group)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "the %s backend has no device groups (multi-device cases run on "
                        "cuda with NCCL)", b->name);
    if (n < 1 || n > XPB_MAX_GROUP)
        return xpb_fail(err, XPB_ERR_USAGE, "a device group of %d devices (1 to %d)", n, XPB_MAX_GROUP);
    d->index = devices[0];
    d->n_group = n;
    d->layout.n = n;
    char host[64] = "";
    (void)gethostname(host, sizeof host - 1);
    int len = snprintf(d->label, sizeof d->label, "%s:", b->name);
    for (int i = 0; i < n; i++) {
        d->layout.device[i] = devices[i];
        snprintf(d->layout.host[i], sizeof d->layout.host[i], "%s", host);
        if (len > 0 && (size_t)len < sizeof d->label)
            len += snprintf(d->label + len, sizeof d->label - (size_t)len, "%s%d", i ? "," : "", devices[i]);
    }
    xpb_status st = b->group_info(devices, n, &d->info, err);
    if (st == XPB_OK)
        st = b->open_group(devices, n, &d->ctx, err);
    if (st == XPB_OK)
        read_topology(b, &d->layout);
    if (st == XPB_OK)
        st = read_cpus(d, false, err);
    return st;
}

xpb_status xpb_device_open_group_mpi(const xpb_backend_i *b, int device, xpb_device *d, xpb_error *err)
{
    memset(d, 0, sizeof *d);
    d->backend = b;
    if (!b->open_group_mpi)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "the %s backend cannot run under MPI (one process per GPU runs "
                        "cuda device groups with NCCL)", b->name);
    d->index = device;
    d->n_group = xpb_mpi_size();
    snprintf(d->label, sizeof d->label, "%s:mpi%d", b->name, d->n_group);
    xpb_status st = b->open_group_mpi(device, &d->ctx, &d->info, &d->layout, err);
    if (st == XPB_OK) /* every process's st: the backend agreed it */
        read_topology(b, &d->layout);
    if (st == XPB_OK)
        st = read_cpus(d, true, err);
    return st;
}

void xpb_device_close(xpb_device *d)
{
    if (d->ctx)
        d->backend->close(d->ctx);
    d->ctx = NULL;
}
