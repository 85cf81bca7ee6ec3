/* emu/cuda_runtime.h - stands in for the real <cuda_runtime.h> when the backend's .cu files are
 * compiled by the host C++ compiler for the CPU emulation (emu/build.sh). Not part of the build.
 *
 * CUDA threads become coroutines (emu_device.cpp): a block runs its threads in turn, switching
 * at __syncthreads and at warp shuffles, so barriers and shuffles behave as on the device (a
 * barrier some threads never reach aborts with "deadlock"). Blocks run one after another, so a
 * function-local `static` is exactly a block's __shared__ variable. The math functions are the
 * host's (glibc), not CUDA's: the emulation checks indexing, reductions and launch shapes, not
 * the last ulp of expf or sincosf. */
#pragma once
#include <cuda_runtime_api.h> /* the real one: types, error codes, dim3, float4 */
#include <vector_functions.h> /* make_float4, make_uint3 */

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>

#undef __global__
#undef __device__
#undef __forceinline__
#undef __shared__
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static

extern uint3 threadIdx, blockIdx;
extern dim3 blockDim, gridDim;

void emu_syncthreads();
int emu_lane();
float emu_shfl(float v, int src_lane); /* value of lane src_lane (0..31) of this warp */

inline void __syncthreads() { emu_syncthreads(); }

inline float __shfl_xor_sync(unsigned, float v, int lane_mask, int width)
{
    const int lane = emu_lane();
    return emu_shfl(v, (lane & ~(width - 1)) | ((lane ^ lane_mask) & (width - 1)));
}

inline float __shfl_sync(unsigned, float v, int src_lane, int width)
{
    return emu_shfl(v, (emu_lane() & ~(width - 1)) | (src_lane & (width - 1)));
}

/* Blocks run one after another on one host thread: atomics are plain read-modify-writes, fences
 * are no-ops, and the cache-hint loads are plain loads. */
inline unsigned atomicAdd(unsigned *p, unsigned v) { const unsigned old = *p; *p = old + v; return old; }
inline void __threadfence() {}
inline float __ldcg(const float *p) { return *p; }
inline float4 __ldcg(const float4 *p) { return *p; }
inline float __ldcs(const float *p) { return *p; }
inline float4 __ldcs(const float4 *p) { return *p; }

inline unsigned __float_as_uint(float f) { unsigned u; memcpy(&u, &f, sizeof u); return u; }
inline float __uint_as_float(unsigned u) { float f; memcpy(&f, &u, sizeof f); return f; }

inline void __stwb(float4 *p, float4 v) { *p = v; }
inline void __stwb(float2 *p, float2 v) { *p = v; }

/* build.sh rewrites `kernel<<<grid, block, 0, ctx->stream>>>(args)` into
 * `emu_launch(ctx->stream, dim3(grid), dim3(block), &kernel, args)` (every launch runs at once;
 * the stream is only there so that code using it for nothing but launches compiles cleanly). */
void emu_run_grid(dim3 grid, dim3 block, const std::function<void()> &body);

template <typename... P, typename... A>
void emu_launch(cudaStream_t, dim3 grid, dim3 block, void (*kernel)(P...), A... args)
{
    emu_run_grid(grid, block, [=]() { kernel(args...); });
}
