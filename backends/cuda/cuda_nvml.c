/* cuda_nvml.c - what xpubench reads through NVML: the board power of the CUDA device (for
 * `xpubench run --power`) and the kernel driver's version (for the system fingerprint).
 *
 * NVML is loaded at run time (dlopen of the driver's libnvidia-ml.so.1): the CUDA toolkit on
 * developer and CI machines ships no nvml.h, so the four NVML functions used are declared here
 * with the types of NVML's C API. The NVML device is matched to the CUDA device by PCI bus id. */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
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
    if (nvml.init && nvml.by_pci && nvml.power_mw && nvml.error)
        nvml.init_result = nvml.init();
}

static const char *nvml_error(nvml_return r) { return nvml.error ? nvml.error(r) : "?"; }

xpb_status xpb_cuda_power_watts(void *ctx, double *watts, xpb_error *err)
{
    xpb_cuda_ctx *c = ctx;
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
    unsigned int mw = 0;
    nvml_return r = nvml.power_mw((nvml_device)c->nvml_device, &mw);
    if (r != 0)
        return xpb_fail(err, XPB_ERR_UNAVAILABLE, "nvmlDeviceGetPowerUsage failed: %s", nvml_error(r));
    *watts = mw / 1000.0;
    return XPB_OK;
}

bool xpb_cuda_nvml_driver_version(char *buf, size_t len)
{
    pthread_once(&nvml.once, nvml_load);
    return nvml.lib && nvml.init_result == 0 && nvml.driver_version &&
           nvml.driver_version(buf, (unsigned int)len) == 0 && buf[0];
}
