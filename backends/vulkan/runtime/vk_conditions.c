/* vk_conditions.c - the clocks a Vulkan device runs at around a case's timed rounds (vk_internal.h).
 *
 * Why: on NVIDIA's driver a Vulkan process that keeps the GPU busy only part of the time (a
 * stateful run's set-up and upload between short batches) sees the SM clock stepped down within
 * seconds (1980 to ~555 MHz on an H100, docs/performance.md), where a CUDA context holds it. Its
 * timings then depend on what ran before them; the results must say so. The same NVML readings as
 * the CUDA backend's (harness/platform/xpb_nvml.c), the GPU found by the UUID Vulkan reports. */
#include "vk_internal.h"
#include "xpb_nvml.h"

xpb_status vkb_conditions(void *ctx, xpb_conditions *out, xpb_error *err)
{
    vkb_ctx *c = ctx;
    if (!c->nvml_device) {
        if (c->nvml_tried) /* looked up once: a device NVML does not know stays unknown */
            return xpb_fail(err, XPB_ERR_UNAVAILABLE, "NVML does not know %s", c->caps.props.deviceName);
        c->nvml_tried = true;
        if (c->caps.props.vendorID != 0x10de)
            return xpb_fail(err, XPB_ERR_UNAVAILABLE, "%s is not an NVIDIA GPU: no NVML", c->caps.props.deviceName);
        xpb_nvml_device d;
        xpb_status st = xpb_nvml_by_uuid(c->caps.uuid, &d, err);
        if (st)
            return st;
        c->nvml_device = d;
    }
    return xpb_nvml_conditions((xpb_nvml_device)c->nvml_device, out, err);
}
