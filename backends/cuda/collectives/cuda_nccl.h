/* cuda_nccl.h - NCCL errors as xpb_status for the device-group code (cuda_group.c, collectives.c,
 * gemm_sharded.c), which alone includes nccl.h: built only with NCCL (XPB_NCCL). */
#ifndef XPB_CUDA_NCCL_H
#define XPB_CUDA_NCCL_H

#include <nccl.h>

#include "cuda_backend.h"

/* Evaluates an NCCL call; on failure returns its status from the enclosing function, with the
 * expression, NCCL's message, file and line in err (xpb_nccl_fail). Never exits. */
#define XPB_NCCL_CHECK(err, expr)                                                                \
    do {                                                                                         \
        ncclResult_t xpb_nccl_r_ = (expr);                                                       \
        if (xpb_nccl_r_ != ncclSuccess)                                                          \
            return xpb_nccl_fail((err), xpb_nccl_r_, #expr, __FILE__, __LINE__);                 \
    } while (0)

#endif
