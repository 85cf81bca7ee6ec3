/* cuda_nvml.c - what xpubench reads through NVML: the board power of the CUDA device (for
 * `xpubench run --power`), its clocks, temperature and throttle reasons around each case's timed
 * rounds (xpb_conditions), the kernel driver's version (for the system fingerprint), and how the
 * GPUs of a device group connect (NVLink or the PCIe path, as `nvidia-smi topo -m` shows).
 *
 * NVML is loaded at run time (dlopen of the driver's libnvidia-ml.so.1): the CUDA toolkit on
 * developer and CI machines ships no nvml.h, so the NVML functions used are declared here
 * with the types of NVML's C API. The NVML device is matched to the CUDA device by PCI bus id. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "cuda_backend.h"

typedef int nvml_return;                     /* nvmlReturn_t: 0 = NVML_SUCCESS */
typedef struct nvml_device_st *nvml_device;  /* nvmlDevice_t */

/* The library, loaded once per process (the loader's handle is process-wide by nature). */
static struct {
    pthread_once_t once;
    void *lib;
    nvml_return init_result;
    nvml_return (*init)(void);                                      /* nvmlInit_v2 */
    nvml_return (*by_pci)(const char *bus_id, nvml_device *device); /* nvmlDeviceGetHandleByPciBusId_v2 */
    nvml_return (*power_mw)(nvml_device device, unsigned int *mw);  /* nvmlDeviceGetPowerUsage */
    const char *(*error)(nvml_return r);                            /* nvmlErrorString */
    nvml_return (*driver_version)(char *version, unsigned int len); /* nvmlSystemGetDriverVersion */
    nvml_return (*clock)(nvml_device device, int type, unsigned int *mhz);  /* nvmlDeviceGetClockInfo */
    nvml_return (*temperature)(nvml_device device, int sensor, unsigned int *c); /* nvmlDeviceGetTemperature */
    /* nvmlDeviceGetCurrentClocksEventReasons (drivers >= 535), else ...ClocksThrottleReasons */
    nvml_return (*reasons)(nvml_device device, unsigned long long *reasons);
    nvml_return (*ancestor)(nvml_device a, nvml_device b, int *level); /* nvmlDeviceGetTopologyCommonAncestor */
    nvml_return (*p2p)(nvml_device a, nvml_device b, int index, int *status); /* nvmlDeviceGetP2PStatus */
    nvml_return (*nvlink_state)(nvml_device device, unsigned int link, int *active); /* nvmlDeviceGetNvLinkState */
} nvml = {.once = PTHREAD_ONCE_INIT, .init_result = -1};

static void nvml_load(void)
{
    nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml.lib)
        return;
    *(void **)&nvml.init = dlsym(nvml.lib, "nvmlInit_v2");
    *(void **)&nvml.by_pci = dlsym(nvml.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.power_mw = dlsym(nvml.lib, "nvmlDeviceGetPowerUsage");
    *(void **)&nvml.error = dlsym(nvml.lib, "nvmlErrorString");
    *(void **)&nvml.driver_version = dlsym(nvml.lib, "nvmlSystemGetDriverVersion");
    *(void **)&nvml.clock = dlsym(nvml.lib, "nvmlDeviceGetClockInfo");
    *(void **)&nvml.temperature = dlsym(nvml.lib, "nvmlDeviceGetTemperature");
    *(void **)&nvml.reasons = dlsym(nvml.lib, "nvmlDeviceGetCurrentClocksEventReasons");
    if (!nvml.reasons)
        *(void **)&nvml.reasons = dlsym(nvml.lib, "nvmlDeviceGetCurrentClocksThrottleReasons");
    *(void **)&nvml.ancestor = dlsym(nvml.lib, "nvmlDeviceGetTopologyCommonAncestor");
    *(void **)&nvml.p2p = dlsym(nvml.lib, "nvmlDeviceGetP2PStatus");
    *(void **)&nvml.nvlink_state = dlsym(nvml.lib, "nvmlDeviceGetNvLinkState");
    if (nvml.init && nvml.by_pci && nvml.power_mw && nvml.error)
        nvml.init_result = nvml.init();
}

static const char *nvml_error(nvml_return r) { return nvml.error ? nvml.error(r) : "?"; }

/* NVML ready and c's NVML handle found (the first call, from the runner's thread, looks it up). */
static xpb_status nvml_device_of(xpb_cuda_ctx *c, xpb_error *err)
{
    pthread_once(&nvml.once, nvml_load);
    if (!nvml.lib)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "no NVML: cannot load libnvidia-ml.so.1 (%s)", dlerror());
    if (!nvml.init || !nvml.by_pci || !nvml.power_mw || !nvml.error)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "libnvidia-ml.so.1 lacks the NVML functions xpubench uses");
    if (nvml.init_result != 0)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "nvmlInit_v2 failed: %s", nvml_error(nvml.init_result));
    if (!c->nvml_device) { /* first call (from the runner's thread, before sampling starts) */
        char bus[32];
        XPB_CUDA_CHECK(err, cudaDeviceGetPCIBusId(bus, (int)sizeof bus, c->device));
        nvml_return r = nvml.by_pci(bus, (nvml_device *)&c->nvml_device);
        if (r != 0)
            return xpb_fail(err, XPB_ERR_UNAVAILABLE, "NVML has no device at PCI %s: %s", bus, nvml_error(r));
    }
    return XPB_OK;
}

xpb_status xpb_cuda_power_watts(void *ctx, double *watts, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = nvml_device_of(c, err);
    if (st)
        return st;
    unsigned int mw = 0;
    nvml_return r = nvml.power_mw((nvml_device)c->nvml_device, &mw);
    if (r != 0)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "nvmlDeviceGetPowerUsage failed: %s", nvml_error(r));
    *watts = mw / 1000.0;
    return XPB_OK;
}

xpb_status xpb_cuda_conditions(void *ctx, xpb_conditions *out, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
    xpb_status st = nvml_device_of(c, err);
    if (st)
        return st;
    if (!nvml.clock || !nvml.temperature || !nvml.reasons)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "libnvidia-ml.so.1 lacks the clock, temperature or reasons functions");
    nvml_device d = (nvml_device)c->nvml_device;
    unsigned int sm = 0, mem = 0, temp = 0;
    unsigned long long reasons = 0;
    nvml_return r;
    if ((r = nvml.clock(d, 1 /* NVML_CLOCK_SM */, &sm)) || (r = nvml.clock(d, 2 /* NVML_CLOCK_MEM */, &mem)) ||
        (r = nvml.temperature(d, 0 /* NVML_TEMPERATURE_GPU */, &temp)) || (r = nvml.reasons(d, &reasons)))
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "NVML clocks, temperature or reasons: %s", nvml_error(r));
    double w = NAN;
    xpb_error ignored;
    if (xpb_cuda_power_watts(ctx, &w, &ignored))
        w = NAN;
    *out = (xpb_conditions){sm, mem, temp, w, reasons};
    return XPB_OK;
}

bool xpb_cuda_nvml_driver_version(char *buf, size_t len)
{
    pthread_once(&nvml.once, nvml_load);
    return nvml.lib && nvml.init_result == 0 && nvml.driver_version &&
           nvml.driver_version(buf, (unsigned int)len) == 0 && buf[0];
}

/* ---- device groups: how their GPUs connect --------------------------------------------------- */

/* NVML's handle of CUDA device `device`, by PCI bus id; NULL when there is none. */
static nvml_device handle_of(int device)
{
    char bus[32];
    nvml_device d = NULL;
    if (cudaDeviceGetPCIBusId(bus, (int)sizeof bus, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return NULL;
    }
    return nvml.by_pci(bus, &d) == 0 ? d : NULL;
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
    pthread_once(&nvml.once, nvml_load);
    bool ready = nvml.lib && nvml.init_result == 0 && nvml.by_pci;
    nvml_device h[XPB_MAX_GROUP] = {0};
    for (int i = 0; i < n; i++) {
        h[i] = ready ? handle_of(devices[i]) : NULL;
        nvlinks[i] = -1;
        if (h[i] && nvml.nvlink_state) { /* NVML_NVLINK_MAX_LINKS is 18; absent links fail */
            nvlinks[i] = 0;
            for (unsigned int l = 0; l < 18; l++) {
                int active = 0;
                if (nvml.nvlink_state(h[i], l, &active) == 0 && active == 1 /* NVML_FEATURE_ENABLED */)
                    nvlinks[i]++;
            }
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            xpb_link l = i == j ? XPB_LINK_SELF : XPB_LINK_UNKNOWN;
            int status = -1, level = -1;
            if (i != j && h[i] && h[j]) {
                if (nvml.p2p && nvml.p2p(h[i], h[j], 2 /* NVML_P2P_CAPS_INDEX_NVLINK */, &status) == 0 && status == 0)
                    l = XPB_LINK_NVLINK;
                else if (nvml.ancestor && nvml.ancestor(h[i], h[j], &level) == 0)
                    l = pcie_path(level);
            }
            links[i * n + j] = (signed char)l;
        }
}
