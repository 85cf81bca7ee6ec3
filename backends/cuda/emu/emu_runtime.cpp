/* emu/emu_runtime.cpp - the few CUDA runtime calls the backend makes, on host memory: one device,
 * every call synchronous. EMU_SMS (SM count, default 2) and EMU_GRID_X (grid limit) shrink the
 * device so grid-stride loops and grid caps get exercised; EMU_OOM=1 makes cudaMalloc fail. */
#include <cuda_runtime_api.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

namespace {
cudaError_t last_error = cudaSuccess;
cudaError_t fail(cudaError_t e) { return last_error = e; }
int env_int(const char *name, int dflt) { const char *v = getenv(name); return v ? atoi(v) : dflt; }
double now_s()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
struct emu_event { double t; };
} // namespace

extern "C" {
cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return cudaSuccess; }
cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : fail(cudaErrorInvalidDevice); }
cudaError_t cudaDriverGetVersion(int *v) { *v = 13000; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int *v) { *v = 13000; return cudaSuccess; }

cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
    if (d != 0)
        return fail(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    strcpy(p->name, "CUDA emulation on the CPU");
    p->totalGlobalMem = 8ull << 30;
    p->l2CacheSize = 50 << 20;
    p->multiProcessorCount = env_int("EMU_SMS", 2);
    p->major = 9;
    p->minor = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int *v, cudaDeviceAttr a, int d)
{
    if (d != 0)
        return fail(cudaErrorInvalidDevice);
    switch (a) {
    case cudaDevAttrClockRate: *v = 1980000; break;
    case cudaDevAttrMemoryClockRate: *v = 2619000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *v = 5120; break;
    case cudaDevAttrMultiProcessorCount: *v = env_int("EMU_SMS", 2); break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *v = 2048; break;
    case cudaDevAttrMaxGridDimX: *v = env_int("EMU_GRID_X", 2147483647); break;
    case cudaDevAttrComputeCapabilityMajor: *v = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *v = 0; break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned) { *s = (cudaStream_t)malloc(1); return cudaSuccess; }
cudaError_t cudaStreamDestroy(cudaStream_t s) { free(s); return cudaSuccess; }
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }

cudaError_t cudaEventCreate(cudaEvent_t *e) { *e = (cudaEvent_t)calloc(1, sizeof(emu_event)); return cudaSuccess; }
cudaError_t cudaEventDestroy(cudaEvent_t e) { free(e); return cudaSuccess; }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t) { ((emu_event *)e)->t = now_s(); return cudaSuccess; }
cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)((((emu_event *)b)->t - ((emu_event *)a)->t) * 1e3);
    return cudaSuccess;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
    *p = getenv("EMU_OOM") ? nullptr : aligned_alloc(256, (n + 255) / 256 * 256);
    return *p ? cudaSuccess : fail(cudaErrorMemoryAllocation);
}
cudaError_t cudaFree(void *p) { free(p); return cudaSuccess; }
cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind, cudaStream_t)
{
    memcpy(d, s, n);
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    memset(d, v, n);
    return cudaSuccess;
}

cudaError_t cudaPeekAtLastError(void) { return last_error; }
cudaError_t cudaGetLastError(void) { cudaError_t e = last_error; last_error = cudaSuccess; return e; }
const char *cudaGetErrorName(cudaError_t e)
{
    return e == cudaSuccess ? "cudaSuccess" : e == cudaErrorMemoryAllocation ? "cudaErrorMemoryAllocation" : "cudaErrorEmulated";
}
const char *cudaGetErrorString(cudaError_t e)
{
    return e == cudaSuccess ? "no error" : e == cudaErrorMemoryAllocation ? "out of memory" : "emulated error";
}
}
