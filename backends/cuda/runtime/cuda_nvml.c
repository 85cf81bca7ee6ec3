/* cuda_nvml.c - what xpubench reads through NVML: the board power of the CUDA device (for
 * `xpubench run --power`), its clocks, temperature and throttle reasons around each case's timed
 * rounds (xpb_conditions), the kernel driver's version (for the system fingerprint), and how the
 * GPUs of a device group connect (NVLink or the PCIe path, as `nvidia-smi topo -m` shows).
 *
 * NVML itself is loaded at run time by harness/platform/xpb_nvml.c (the Vulkan backend reads the
 * same conditions through it); the NVML device is matched to the CUDA device by PCI bus id. */
#include <math.h>
#include <stdio.h>

#include "cuda_backend.h"
#include "xpb_nvml.h"

/* NVML's handle of c's GPU, found by PCI bus id on the first call (from the runner's thread). */
static xpb_status nvml_device_of(xpb_cuda_ctx *c, xpb_error *err)
{
    if (c->nvml_device)
        return XPB_OK;
    char bus[32];
    XPB_CUDA_CHECK(err, cudaDeviceGetPCIBusId(bus, (int)sizeof bus, c->device));
    xpb_nvml_device d;
    xpb_status st = xpb_nvml_by_pci(bus, &d, err);
    if (!st)
        c->nvml_device = d;
    return st;
}

xpb_status xpb_cuda_power_watts(void *ctx, double *watts, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = nvml_device_of(c, err);
    return st ? st : xpb_nvml_power_watts((xpb_nvml_device)c->nvml_device, watts, err);
}

xpb_status xpb_cuda_conditions(void *ctx, xpb_conditions *out, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = nvml_device_of(c, err);
    return st ? st : xpb_nvml_conditions((xpb_nvml_device)c->nvml_device, out, err);
}

bool xpb_cuda_nvml_driver_version(char *buf, size_t len)
{
    return xpb_nvml_driver_version(buf, len);
}

/* ---- device groups: how their GPUs connect --------------------------------------------------- */

/* NVML's handle of CUDA device `device`, by PCI bus id; NULL when there is none. */
static xpb_nvml_device handle_of(int device)
{
    char bus[32];
    xpb_nvml_device d = NULL;
    xpb_error ignored;
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return xpb_nvml_by_pci(bus, &d, &ignored) == XPB_OK ? d : NULL;
}

/* NVML's topology levels (nvmlGpuTopologyLevel_t) as xpb_link. */
static xpb_link pcie_path(int level)
{
    switch (level) {
    case 0: return XPB_LINK_SELF;            /* NVML_TOPOLOGY_INTERNAL: one board */
    case 10:                                 /* NVML_TOPOLOGY_SINGLE: one switch (PIX) */
    case 20: return XPB_LINK_PCIE_SWITCH;    /* NVML_TOPOLOGY_MULTIPLE: several switches (PXB) */
    case 30: return XPB_LINK_PCIE_HOSTBRIDGE; /* NVML_TOPOLOGY_HOSTBRIDGE (PHB) */
    case 40: return XPB_LINK_PCIE_NUMA_NODE; /* NVML_TOPOLOGY_NODE */
    case 50: return XPB_LINK_PCIE_SYSTEM;    /* NVML_TOPOLOGY_SYSTEM */
    default: return XPB_LINK_UNKNOWN;
    }
}

void xpb_cuda_group_topology(const int *devices, int n, int *nvlinks, signed char *links)
{
    xpb_nvml_device h[XPB_MAX_GROUP] = {0};
    for (int i = 0; i < n; i++) {
        h[i] = handle_of(devices[i]);
        nvlinks[i] = h[i] ? xpb_nvml_active_nvlinks(h[i]) : -1;
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            xpb_link l = i == j ? XPB_LINK_SELF : XPB_LINK_UNKNOWN;
            bool nvlink = false;
            int level = -1;
            if (i != j && h[i] && h[j]) {
                if (xpb_nvml_p2p_nvlink(h[i], h[j], &nvlink) && nvlink)
                    l = XPB_LINK_NVLINK;
                else if (xpb_nvml_common_ancestor(h[i], h[j], &level))
                    l = pcie_path(level);
            }
            links[i * n + j] = (signed char)l;
        }
}
