/* xpb_nvml.h - NVIDIA's management library (NVML), loaded at run time, for the backends that
 * drive NVIDIA GPUs: the clocks, temperature and throttle reasons around a case's timed rounds
 * (xpb_conditions), the board power (`run --power`), the driver's version, and the calls the CUDA
 * backend's group topology needs. The CUDA backend finds its GPU by PCI bus id; the Vulkan backend
 * by the device UUID Vulkan reports (NVIDIA's Vulkan deviceUUID is the GPU's UUID).
 *
 * No nvml.h is needed to build (the CUDA toolkit on developer and CI machines ships none): the
 * functions used are declared in xpb_nvml.c with the types of NVML's C API, and a machine without
 * libnvidia-ml.so.1 gets XPB_ERR_UNAVAILABLE with the loader's reason, never a crash. */
#ifndef XPB_NVML_H
#define XPB_NVML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpb_backend.h"
#include "xpb_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct xpb_nvml_device_st *xpb_nvml_device; /* nvmlDevice_t */

/* NVML's handle of the GPU at PCI bus id `bus` ("0000:3b:00.0"), or of the GPU whose UUID is the
 * 16 bytes `uuid` (as Vulkan's VkPhysicalDeviceIDProperties.deviceUUID gives them). */
xpb_status xpb_nvml_by_pci(const char *bus, xpb_nvml_device *out, xpb_error *err);
xpb_status xpb_nvml_by_uuid(const uint8_t uuid[16], xpb_nvml_device *out, xpb_error *err);

/* What the GPU runs at now: SM and memory clocks, temperature, board power (NaN when NVML cannot
 * read it), the highest SM clock it runs at (0 when unknown) and the clocks event reasons. */
xpb_status xpb_nvml_conditions(xpb_nvml_device d, xpb_conditions *out, xpb_error *err);
xpb_status xpb_nvml_power_watts(xpb_nvml_device d, double *watts, xpb_error *err);
bool xpb_nvml_driver_version(char *buf, size_t len);

/* Group topology (the CUDA backend's device groups): false where NVML or the function is missing. */
bool xpb_nvml_p2p_nvlink(xpb_nvml_device a, xpb_nvml_device b, bool *nvlink);
bool xpb_nvml_common_ancestor(xpb_nvml_device a, xpb_nvml_device b, int *level);
int xpb_nvml_active_nvlinks(xpb_nvml_device d); /* -1 when unknown */

#ifdef __cplusplus
}
#endif

#endif
