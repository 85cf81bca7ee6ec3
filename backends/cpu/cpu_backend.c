/* cpu_backend.c - the CPU backend's table: OpenMP over the host's cores, one device ("cpu:0").
 *
 * Kernels run synchronously inside launch (on the calling thread and its OpenMP team), so
 * synchronize has nothing to wait for and the timer is the host's monotonic clock. */
#include "cpu_internal.h"

#include <stdlib.h>
#include <time.h>

/* The kernel list. Adding a variant = its file (defining `const xpb_kernel xpb_cpu_<name>`; CMake
 * compiles every .c here) plus one line here. Within an op, the first listed is the default. */
#define XPB_CPU_KERNELS(X)                                                                        \
    X(xpb_cpu_copy)                                                                               \
    X(xpb_cpu_add)                                                                                \
    X(xpb_cpu_mul)                                                                                \
    X(xpb_cpu_scale)                                                                              \
    X(xpb_cpu_relu)                                                                               \
    X(xpb_cpu_sigmoid)                                                                            \
    X(xpb_cpu_silu)                                                                               \
    X(xpb_cpu_softmax)                                                                            \
    X(xpb_cpu_rmsnorm)                                                                            \
    X(xpb_cpu_layernorm)                                                                          \
    X(xpb_cpu_rope)                                                                               \
    X(xpb_cpu_gemm_blas)                                                                          \
    X(xpb_cpu_gemm_naive)                                                                         \
    X(xpb_cpu_gemv_blas)                                                                          \
    X(xpb_cpu_anneal_init)                                                                        \
    X(xpb_cpu_anneal_assign)                                                                      \
    X(xpb_cpu_anneal_stats)                                                                       \
    X(xpb_cpu_anneal_update)                                                                      \
    X(xpb_cpu_anneal_changes)                                                                     \
    X(xpb_cpu_anneal_search)                                                                      \
    X(xpb_cpu_burst_propagate_kernel)                                                             \
    X(xpb_cpu_burst_dynamics_kernel)                                                              \
    X(xpb_cpu_burst_compact_kernel)                                                               \
    X(xpb_cpu_burst_batch_kernel)

#define XPB_CPU_DECLARE(k) extern const xpb_kernel k;
#define XPB_CPU_ADDRESS(k) &k,
XPB_CPU_KERNELS(XPB_CPU_DECLARE)
static const xpb_kernel *const kernels[] = {XPB_CPU_KERNELS(XPB_CPU_ADDRESS) NULL};

static bool cpu_probe(xpb_error *why)
{
    (void)why;
    return true;
}

static xpb_status cpu_open(int device, void **ctx, xpb_error *err)
{
    *ctx = NULL;
    if (device != 0)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: no device %d (the cpu backend has one device, 0)",
                        device);
    xpb_cpu_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "cpu: cannot allocate a context");
    c->device = device;
    *ctx = c;
    return XPB_OK;
}

static void cpu_close(void *ctx) { free(ctx); }

static xpb_status cpu_synchronize(void *ctx, xpb_error *err)
{
    (void)ctx;
    (void)err;
    return XPB_OK;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static xpb_status cpu_timer_begin(void *ctx, xpb_error *err)
{
    (void)err;
    xpb_cpu_ctx *c = ctx;
    c->timer_running = true;
    c->timer_start = now_seconds();
    return XPB_OK;
}

static xpb_status cpu_timer_end(void *ctx, double *seconds, xpb_error *err)
{
    double t = now_seconds();
    xpb_cpu_ctx *c = ctx;
    if (!c->timer_running)
        return xpb_fail(err, XPB_ERR_USAGE, "cpu: timer_end without timer_begin");
    c->timer_running = false;
    *seconds = t - c->timer_start;
    return XPB_OK;
}

const xpb_backend_i xpb_backend_cpu = {
    .name = "cpu",
    .probe = cpu_probe,
    .device_count = xpb_cpu_device_count,
    .device_info = xpb_cpu_device_info,
    .open = cpu_open,
    .close = cpu_close,
    .buffer_alloc = xpb_cpu_buffer_alloc,
    .buffer_free = xpb_cpu_buffer_free,
    .buffer_upload = xpb_cpu_buffer_upload,
    .buffer_download = xpb_cpu_buffer_download,
    .synchronize = cpu_synchronize,
    .timer_begin = cpu_timer_begin,
    .timer_end = cpu_timer_end,
    .view_ptr = xpb_cpu_view_ptr,
    .kernels = kernels,
};
