/* xpb_nvml.c - NVML loaded at run time (xpb_nvml.h): dlopen of the driver's libnvidia-ml.so.1
 * once per process, the functions used declared here with NVML's C types. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>

#include "xpb_nvml.h"

typedef int nvml_return; /* nvmlReturn_t: 0 = NVML_SUCCESS */

/* The library, loaded once per process (the loader's handle is process-wide by nature). */
static struct {
    pthread_once_t once;
    void *lib;
    nvml_return init_result;
    nvml_return (*init)(void);                                          /* nvmlInit_v2 */
    nvml_return (*by_pci)(const char *bus_id, xpb_nvml_device *device); /* nvmlDeviceGetHandleByPciBusId_v2 */
    nvml_return (*by_uuid)(const char *uuid, xpb_nvml_device *device);  /* nvmlDeviceGetHandleByUUID */
    nvml_return (*power_mw)(xpb_nvml_device device, unsigned int *mw);  /* nvmlDeviceGetPowerUsage */
    const char *(*error)(nvml_return r);                                /* nvmlErrorString */
    nvml_return (*driver_version)(char *version, unsigned int len);     /* nvmlSystemGetDriverVersion */
    nvml_return (*clock)(xpb_nvml_device device, int type, unsigned int *mhz); /* nvmlDeviceGetClockInfo */
    nvml_return (*max_clock)(xpb_nvml_device device, int type, unsigned int *mhz); /* nvmlDeviceGetMaxClockInfo */
    nvml_return (*temperature)(xpb_nvml_device device, int sensor, unsigned int *c); /* nvmlDeviceGetTemperature */
    /* nvmlDeviceGetCurrentClocksEventReasons (drivers >= 535), else ...ClocksThrottleReasons */
    nvml_return (*reasons)(xpb_nvml_device device, unsigned long long *reasons);
    nvml_return (*ancestor)(xpb_nvml_device a, xpb_nvml_device b, int *level); /* nvmlDeviceGetTopologyCommonAncestor */
    nvml_return (*p2p)(xpb_nvml_device a, xpb_nvml_device b, int index, int *status); /* nvmlDeviceGetP2PStatus */
    nvml_return (*nvlink_state)(xpb_nvml_device device, unsigned int link, int *active); /* nvmlDeviceGetNvLinkState */
} nvml = {.once = PTHREAD_ONCE_INIT, .init_result = -1};

static void nvml_load(void)
{
    nvml.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!nvml.lib)
        return;
    *(void **)&nvml.init = dlsym(nvml.lib, "nvmlInit_v2");
    *(void **)&nvml.by_pci = dlsym(nvml.lib, "nvmlDeviceGetHandleByPciBusId_v2");
    *(void **)&nvml.by_uuid = dlsym(nvml.lib, "nvmlDeviceGetHandleByUUID");
    *(void **)&nvml.power_mw = dlsym(nvml.lib, "nvmlDeviceGetPowerUsage");
    *(void **)&nvml.error = dlsym(nvml.lib, "nvmlErrorString");
    *(void **)&nvml.driver_version = dlsym(nvml.lib, "nvmlSystemGetDriverVersion");
    *(void **)&nvml.clock = dlsym(nvml.lib, "nvmlDeviceGetClockInfo");
    *(void **)&nvml.max_clock = dlsym(nvml.lib, "nvmlDeviceGetMaxClockInfo");
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

/* NVML loaded and initialized, else why not. */
static xpb_status ready(xpb_error *err)
{
    pthread_once(&nvml.once, nvml_load);
    if (!nvml.lib)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "no NVML: cannot load libnvidia-ml.so.1 (%s)", dlerror());
    if (!nvml.init || !nvml.by_pci || !nvml.power_mw || !nvml.error)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "libnvidia-ml.so.1 lacks the NVML functions xpubench uses");
    if (nvml.init_result != 0)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "nvmlInit_v2 failed: %s", nvml_error(nvml.init_result));
    return XPB_OK;
}

static bool ready_quiet(void)
{
    xpb_error ignored;
    return ready(&ignored) == XPB_OK;
}

xpb_status xpb_nvml_by_pci(const char *bus, xpb_nvml_device *out, xpb_error *err)
{
    *out = NULL;
    xpb_status st = ready(err);
    if (st)
        return st;
    nvml_return r = nvml.by_pci(bus, out);
    if (r != 0)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "NVML has no device at PCI %s: %s", bus, nvml_error(r));
    return XPB_OK;
}

xpb_status xpb_nvml_by_uuid(const uint8_t uuid[16], xpb_nvml_device *out, xpb_error *err)
{
    *out = NULL;
    xpb_status st = ready(err);
    if (st)
        return st;
    if (!nvml.by_uuid)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "libnvidia-ml.so.1 lacks nvmlDeviceGetHandleByUUID");
    char s[48]; /* NVML's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx */
    int k = snprintf(s, sizeof s, "GPU-");
    for (int i = 0; i < 16; i++)
        k += snprintf(s + k, sizeof s - (size_t)k, "%s%02x", i == 4 || i == 6 || i == 8 || i == 10 ? "-" : "", uuid[i]);
    nvml_return r = nvml.by_uuid(s, out);
    if (r != 0)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "NVML has no device %s: %s", s, nvml_error(r));
    return XPB_OK;
}

xpb_status xpb_nvml_power_watts(xpb_nvml_device d, double *watts, xpb_error *err)
{
    xpb_status st = ready(err);
    if (st)
        return st;
    unsigned int mw = 0;
    nvml_return r = nvml.power_mw(d, &mw);
    if (r != 0)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "nvmlDeviceGetPowerUsage failed: %s", nvml_error(r));
    *watts = mw / 1000.0;
    return XPB_OK;
}

xpb_status xpb_nvml_conditions(xpb_nvml_device d, xpb_conditions *out, xpb_error *err)
{
    xpb_status st = ready(err);
    if (st)
        return st;
    if (!nvml.clock || !nvml.temperature || !nvml.reasons)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "libnvidia-ml.so.1 lacks the clock, temperature or reasons functions");
    unsigned int sm = 0, mem = 0, temp = 0;
    unsigned long long reasons = 0;
    nvml_return r;
    if ((r = nvml.clock(d, 1 /* NVML_CLOCK_SM */, &sm)) || (r = nvml.clock(d, 2 /* NVML_CLOCK_MEM */, &mem)) ||
        (r = nvml.temperature(d, 0 /* NVML_TEMPERATURE_GPU */, &temp)) || (r = nvml.reasons(d, &reasons)))
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "NVML clocks, temperature or reasons: %s", nvml_error(r));
    double w = NAN;
    xpb_error ignored;
    if (xpb_nvml_power_watts(d, &w, &ignored))
        w = NAN;
    unsigned int sm_max = 0;
    if (!nvml.max_clock || nvml.max_clock(d, 1 /* NVML_CLOCK_SM */, &sm_max) != 0)
        sm_max = 0;
    *out = (xpb_conditions){sm, mem, temp, w, sm_max, reasons};
    return XPB_OK;
}

bool xpb_nvml_driver_version(char *buf, size_t len)
{
    return ready_quiet() && nvml.driver_version && nvml.driver_version(buf, (unsigned int)len) == 0 && buf[0];
}

bool xpb_nvml_p2p_nvlink(xpb_nvml_device a, xpb_nvml_device b, bool *nvlink)
{
    int status = -1;
    if (!ready_quiet() || !nvml.p2p || nvml.p2p(a, b, 2 /* NVML_P2P_CAPS_INDEX_NVLINK */, &status) != 0)
        return false;
    *nvlink = status == 0; /* NVML_P2P_STATUS_OK */
    return true;
}

bool xpb_nvml_common_ancestor(xpb_nvml_device a, xpb_nvml_device b, int *level)
{
    return ready_quiet() && nvml.ancestor && nvml.ancestor(a, b, level) == 0;
}

int xpb_nvml_active_nvlinks(xpb_nvml_device d)
{
    if (!ready_quiet() || !nvml.nvlink_state)
        return -1;
    int n = 0;
    for (unsigned int l = 0; l < 18; l++) { /* NVML_NVLINK_MAX_LINKS is 18; absent links fail */
        int active = 0;
        if (nvml.nvlink_state(d, l, &active) == 0 && active == 1 /* NVML_FEATURE_ENABLED */)
            n++;
    }
    return n;
}
