// gpu_tool_check.cuh - the checks of the stand-alone multi-GPU tools (exchange_peak.cu,
// alltoall_forms.cu): a CUDA or NCCL call that fails prints the call and its error, prefixed by
// the tool's name (GPU_TOOL, defined before this header), and ends the process with exit 1 (from
// any of its host threads). Include after cuda_runtime.h and nccl.h.
#ifndef GPU_TOOL_CHECK_CUH
#define GPU_TOOL_CHECK_CUH

#include <stdio.h>
#include <stdlib.h>

#define CHECK(x)                                                                                 \
    do {                                                                                         \
        cudaError_t e_ = (x);                                                                    \
        if (e_ != cudaSuccess) {                                                                 \
            fprintf(stderr, "%s: %s: %s\n", GPU_TOOL, #x, cudaGetErrorString(e_));               \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)
#define NCHECK(x)                                                                                \
    do {                                                                                         \
        ncclResult_t r_ = (x);                                                                   \
        if (r_ != ncclSuccess) {                                                                 \
            fprintf(stderr, "%s: %s: %s\n", GPU_TOOL, #x, ncclGetErrorString(r_));               \
            exit(1);                                                                             \
        }                                                                                        \
    } while (0)

#endif
