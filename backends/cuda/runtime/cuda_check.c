/* cuda_check.c - CUDA errors to xpb_status and one-line messages (see cuda_backend.h). */
#include "cuda_backend.h"

#include <string.h>

/* Errors after which the CUDA context cannot be used again: every later call returns the same
 * error until the process exits. */
static bool is_sticky(cudaError_t e)
{
    switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorECCUncorrectable:
    case cudaErrorNvlinkUncorrectable:
    case cudaErrorContextIsDestroyed:
    case cudaErrorExternalDevice:
        return true;
    default:
        return false;
    }
}

xpb_status xpb_cuda_status(cudaError_t e)
{
    if (e == cudaSuccess)
        return XPB_OK;
    if (e == cudaErrorMemoryAllocation)
        return XPB_ERR_OUT_OF_MEMORY;
    if (is_sticky(e))
        return XPB_ERR_DEVICE_LOST;
    switch (e) {
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver:
    case cudaErrorDevicesUnavailable:
    case cudaErrorSystemDriverMismatch:
    case cudaErrorCompatNotSupportedOnDevice:
        return XPB_ERR_UNAVAILABLE;
    default:
        return XPB_ERR_RUNTIME;
    }
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

xpb_status xpb_cuda_fail(xpb_error *err, cudaError_t e, const char *what, const char *file,
                         int line)
{
    /* A non-sticky error stays recorded as the runtime's "last error" and would be reported by
     * the next cudaGetLastError(), i.e. blamed on the next launch: clear it. */
    if (!is_sticky(e))
        (void)cudaGetLastError();
    return xpb_fail(err, xpb_cuda_status(e), "%s failed: %s (%s, error %d) at %s:%d", what,
                    cudaGetErrorString(e), cudaGetErrorName(e), (int)e, base_name(file), line);
}

xpb_status xpb_cuda_fail_launch(xpb_error *err, cudaError_t e, const char *op, const char *file,
                                int line)
{
    if (!is_sticky(e))
        (void)cudaGetLastError();
    return xpb_fail(err, xpb_cuda_status(e), "launch of the %s kernel failed: %s (%s, error %d) at %s:%d",
                    op, cudaGetErrorString(e), cudaGetErrorName(e), (int)e, base_name(file), line);
}
