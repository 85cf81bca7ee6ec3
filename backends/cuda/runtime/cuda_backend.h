/* cuda_backend.h - internals of the CUDA backend shared by its C and CUDA files.
 *
 * The harness sees only `xpb_backend_cuda` (xpb_backend.h); everything here is private to
 * backends/cuda/. The header is valid C11 and C++17, so the host files (.c, compiled by the C
 * compiler) and the kernel files (.cu, compiled by nvcc) share one definition of the context,
 * the buffer and the error helpers. */
#ifndef XPB_CUDA_BACKEND_H
#define XPB_CUDA_BACKEND_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "xpb_backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A device allocation from cudaMalloc (never managed memory). ptr is NULL when bytes == 0.
 * On a device group (cuda_group.c) the buffer exists once per rank: rank_ptr[l] on the GPU of
 * this process's l-th rank, group rank first_rank + l (ptr is rank_ptr[0]), and a download reads
 * part r of the array, part_bytes from part_offset on, from group rank r (the kernel that writes
 * the buffer names the parts; 0 = all from rank 0), over MPI when another process holds it. */
struct xpb_buffer {
    void *ptr;
    size_t bytes;
    void **rank_ptr; /* NULL for a one-device buffer */
    int ranks;       /* rank_ptr's count: the ranks this process drives */
    int first_rank;  /* the group rank of rank_ptr[0]: 0 in one process, the MPI rank under MPI */
    int group_ranks; /* the group's ranks over every process */
    /* Which rank's copy a download reads (xpb_cuda_group_set_parts / _set_column_parts): part r
     * is 1-D (part_bytes from part_offset + r part_bytes) or, when part_rows > 0, columns
     * [r C / P, (r+1) C / P) of a part_rows x part_cols fp32 row-major matrix at part_offset; it
     * is read from rank (r + part_shift) % P. */
    size_t part_offset, part_bytes;
    int64_t part_rows, part_cols;
    int part_shift;
};

struct cublasContext; /* cuBLAS's handle type (cublasHandle_t), kept opaque here */

/* What open() creates: one device, one non-default stream that every upload, download and
 * launch is issued on (so they run in the order issued), two events for the timer, and the
 * device limits the kernels size their grids from. The cuBLAS handle is created on first use
 * (cuda_blas.c) and destroyed by close(). */
typedef struct xpb_cuda_ctx {
    int device;
    cudaStream_t stream;
    cudaEvent_t ev_begin;
    cudaEvent_t ev_end;
    /* a second stream, and the events that order it against `stream` (no timing): work that
     * may overlap the stream's, e.g. a sharded burst's own share of the propagate during the
     * exchange (burst_sharded.cu) */
    cudaStream_t side;
    cudaEvent_t ev_fork, ev_join;
    int sm_count;
    int max_threads_per_sm;
    int max_grid_x;
    int cc_major, cc_minor;
    struct cublasContext *cublas; /* NULL until a cuBLAS variant runs */
    void *nvml_device;            /* NVML handle of this GPU, NULL until --power asks (cuda_power.c) */
    struct xpb_cuda_group *group; /* a device group's ranks (cuda_group.c); NULL for one device.
                                     A group's own fields describe its rank 0 */
} xpb_cuda_ctx;

typedef struct xpb_cuda_group xpb_cuda_group;

/* ---- errors ---------------------------------------------------------------------------------- */

/* The xpb_status a CUDA error means: cudaErrorMemoryAllocation -> XPB_ERR_OUT_OF_MEMORY; errors
 * that leave the context unusable (illegal address, launch failure, ...) -> XPB_ERR_DEVICE_LOST;
 * no driver or no device -> XPB_ERR_UNAVAILABLE; anything else -> XPB_ERR_RUNTIME. */
xpb_status xpb_cuda_status(cudaError_t e);

/* Writes "<what> failed: <error string> (<error name>, error N) at <file>:<line>" into err and
 * returns xpb_cuda_status(e). Clears the runtime's last-error state when the error is not sticky,
 * so a later cudaGetLastError() after a launch does not report this failure again. */
xpb_status xpb_cuda_fail(xpb_error *err, cudaError_t e, const char *what, const char *file,
                         int line);

/* Evaluates a CUDA runtime call; on failure returns its status from the enclosing function,
 * with the expression, file and line in err. Never exits. */
#define XPB_CUDA_CHECK(err, expr)                                                               \
    do {                                                                                        \
        cudaError_t xpb_cuda_e_ = (expr);                                                       \
        if (xpb_cuda_e_ != cudaSuccess)                                                         \
            return xpb_cuda_fail((err), xpb_cuda_e_, #expr, __FILE__, __LINE__);                \
    } while (0)

/* Same as xpb_cuda_fail for a kernel launch: "launch of <op> kernel failed: ...". */
xpb_status xpb_cuda_fail_launch(xpb_error *err, cudaError_t e, const char *op, const char *file,
                                int line);

/* Checks the launch that was just issued (bad configuration, missing kernel image for this GPU,
 * or a sticky error from earlier work). Use right after every <<<...>>>; op names the kernel's
 * op in the message. */
#define XPB_CUDA_CHECK_LAUNCH(err, op)                                                          \
    do {                                                                                        \
        cudaError_t xpb_cuda_e_ = cudaGetLastError();                                           \
        if (xpb_cuda_e_ != cudaSuccess)                                                         \
            return xpb_cuda_fail_launch((err), xpb_cuda_e_, (op), __FILE__, __LINE__);          \
    } while (0)

/* ---- context --------------------------------------------------------------------------------- */

/* Makes ctx's device current on the calling thread (a no-op when it already is; cuda_activate.c). */
xpb_status xpb_cuda_activate(const xpb_cuda_ctx *ctx, xpb_error *err);

/* Destroys ctx's cuBLAS handle, if one was created (cuda_blas.c); close() calls it. */
void xpb_cuda_blas_destroy(xpb_cuda_ctx *ctx);

/* ---- views ----------------------------------------------------------------------------------- */

/* Resolves view v to a device pointer after checking that `count` floats fit in its buffer.
 * what names the argument in the message ("softmax: x"). Fails with XPB_ERR_USAGE (no buffer
 * bound, or the view runs past the buffer's end). count must be >= 0. */
xpb_status xpb_cuda_view_f32(const xpb_view *v, int64_t count, const char *what, float **out,
                             xpb_error *err);

/* Plugin kernels (docs/plugins.md): the device pointer of view v of `bytes` bytes, NULL when it
 * overruns its buffer; the context's stream, its device made current. */
void *xpb_cuda_view_ptr(void *ctx, const xpb_view *v, size_t bytes);
xpb_status xpb_cuda_native_queue(void *ctx, void **queue, xpb_error *err);

/* Number of blocks for a grid-stride kernel: what the work needs, at most `waves` full waves
 * of the device (sm_count * resident blocks per SM), at least 1, within the grid limit. */
static inline unsigned xpb_cuda_grid(const xpb_cuda_ctx *ctx, int64_t blocks_needed,
                                     int block_threads, int waves)
{
    int64_t per_sm = block_threads > 0 ? ctx->max_threads_per_sm / block_threads : 1;
    int64_t cap = (int64_t)ctx->sm_count * (per_sm > 0 ? per_sm : 1) * waves;
    int64_t g = blocks_needed < cap ? blocks_needed : cap;
    if (g > ctx->max_grid_x)
        g = ctx->max_grid_x;
    return g < 1 ? 1u : (unsigned)g;
}

static inline int xpb_cuda_aligned16(const void *p) { return ((uintptr_t)p & 15u) == 0; }

/* ---- the backend table's functions (cuda_device.c, cuda_context.c, cuda_buffer.c; close,
 * synchronize, the timer and the buffer calls in cuda_route.c, which sends a group's ctx to
 * cuda_group.c and one device's to the xpb_cuda_dev_* below) ----------------------------------- */

bool xpb_cuda_probe(xpb_error *why);
int xpb_cuda_device_count(void);
xpb_status xpb_cuda_device_info(int device, xpb_device_info *out, xpb_error *err);

xpb_status xpb_cuda_open(int device, void **ctx, xpb_error *err);
void xpb_cuda_close(void *ctx);
xpb_status xpb_cuda_synchronize(void *ctx, xpb_error *err);
xpb_status xpb_cuda_timer_begin(void *ctx, xpb_error *err);
xpb_status xpb_cuda_timer_end(void *ctx, double *seconds, xpb_error *err);
xpb_status xpb_cuda_power_watts(void *ctx, double *watts, xpb_error *err);
xpb_status xpb_cuda_conditions(void *ctx, xpb_conditions *out, xpb_error *err);
/* run --graph (cuda_graph.c): xpb_backend_i.capture_begin, capture_end, graph_launch, graph_free */
xpb_status xpb_cuda_capture_begin(void *ctx, xpb_error *err);
xpb_status xpb_cuda_capture_end(void *ctx, void **graph, xpb_error *err);
xpb_status xpb_cuda_graph_launch(void *ctx, void *graph, xpb_error *err);
void xpb_cuda_graph_free(void *ctx, void *graph);
/* The kernel driver's version ("580.159.04") through NVML; false when NVML is not there. */
bool xpb_cuda_nvml_driver_version(char *buf, size_t len);

xpb_status xpb_cuda_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err);
void xpb_cuda_buffer_free(void *ctx, xpb_buffer *buf);
xpb_status xpb_cuda_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                                  size_t bytes, xpb_error *err);
xpb_status xpb_cuda_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst,
                                    size_t bytes, xpb_error *err);
xpb_status xpb_cuda_buffer_fill(void *ctx, xpb_buffer *buf, size_t offset, size_t bytes, uint32_t word,
                                xpb_error *err);

/* The same for one device's ctx (never a group's): cuda_context.c, cuda_buffer.c. cuda_group.c
 * drives its ranks with these. */
void xpb_cuda_dev_close(void *ctx);
xpb_status xpb_cuda_dev_synchronize(void *ctx, xpb_error *err);
xpb_status xpb_cuda_dev_timer_begin(void *ctx, xpb_error *err);
xpb_status xpb_cuda_dev_timer_end(void *ctx, double *seconds, xpb_error *err);
xpb_status xpb_cuda_dev_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err);
void xpb_cuda_dev_buffer_free(void *ctx, xpb_buffer *buf);
xpb_status xpb_cuda_dev_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                                      size_t bytes, xpb_error *err);
xpb_status xpb_cuda_dev_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst,
                                        size_t bytes, xpb_error *err);
/* A fill kernel on the ctx's stream, waited for (cuda_fill.cu). */
xpb_status xpb_cuda_dev_buffer_fill(void *ctx, xpb_buffer *buf, size_t offset, size_t bytes, uint32_t word,
                                    xpb_error *err);
/* XPB_ERR_USAGE "cuda <what>: ..." unless [offset, offset + bytes) lies inside buf (cuda_buffer.c). */
xpb_status xpb_cuda_buffer_check_range(const xpb_buffer *buf, size_t offset, size_t bytes, const char *what,
                                       xpb_error *err);

/* ---- device groups (cuda_group.c): cuda_route.c turns here for a group's ctx ------------------- */

xpb_status xpb_cuda_open_group(const int *devices, int n, void **ctx, xpb_error *err);
xpb_status xpb_cuda_group_info(const int *devices, int n, xpb_device_info *out, xpb_error *err);
xpb_status xpb_cuda_open_group_mpi(int device, void **ctx, xpb_device_info *info, xpb_group_layout *layout,
                                   xpb_error *err);
int xpb_cuda_group_rank_seconds(void *ctx, double *mean_s, int max);
xpb_status xpb_cuda_group_transports(void *ctx, char *out, size_t n, xpb_error *why);
/* How devices[0..n) connect, from NVML (cuda_nvml.c): xpb_backend_i.group_topology. */
void xpb_cuda_group_topology(const int *devices, int n, int *nvlinks, signed char *links);
void xpb_cuda_close_group(xpb_cuda_ctx *g);
xpb_status xpb_cuda_group_synchronize(xpb_cuda_ctx *g, xpb_error *err);
xpb_status xpb_cuda_group_timer_begin(xpb_cuda_ctx *g, xpb_error *err);
xpb_status xpb_cuda_group_timer_end(xpb_cuda_ctx *g, double *seconds, xpb_error *err);
xpb_status xpb_cuda_group_buffer_alloc(xpb_cuda_ctx *g, size_t bytes, xpb_buffer **out, xpb_error *err);
void xpb_cuda_group_buffer_free(xpb_cuda_ctx *g, xpb_buffer *buf);
xpb_status xpb_cuda_group_buffer_upload(xpb_cuda_ctx *g, xpb_buffer *dst, size_t offset, const void *src,
                                        size_t bytes, xpb_error *err);
xpb_status xpb_cuda_group_buffer_fill(xpb_cuda_ctx *g, xpb_buffer *buf, size_t offset, size_t bytes, uint32_t word,
                                      xpb_error *err);
/* xpb_backend_i.buffer_upload_parts: each rank its own part of src (one device: the whole). */
xpb_status xpb_cuda_buffer_upload_parts(void *ctx, xpb_buffer *dst, size_t offset, const void *src, size_t bytes,
                                        size_t part_bytes, xpb_error *err);
xpb_status xpb_cuda_group_buffer_download(xpb_cuda_ctx *g, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                          xpb_error *err);
/* xpb_backend_i.buffer_download_local: only the bytes this process's ranks hold, and which. */
xpb_status xpb_cuda_buffer_download_local(void *ctx, xpb_buffer *src, size_t offset, void *dst, size_t bytes,
                                          size_t *lo, size_t *hi, xpb_error *err);
/* xpb_backend_i.launch_n (collectives.c): a group's collective from one host thread a rank when
 * XPB_CUDA_SHARDED_LAUNCH=threads, else k->launch count times. */
xpb_status xpb_cuda_launch_n(void *ctx, const xpb_kernel *k, const void *args, void *state, int count,
                             xpb_error *err);
/* Runs fn(user, l, err) for every local rank l of g at once, one host thread a rank (rank 0's on
 * this thread; the others started at the group's first call and kept until it closes,
 * xpb_team.h), each with its rank's device current; the lowest failing rank's status and
 * message. The launch mode `threads` of XPB_CUDA_SHARDED_LAUNCH (nccl-tests' -t). */
xpb_status xpb_cuda_group_each_rank(const xpb_cuda_ctx *g, xpb_status (*fn)(void *user, int l, xpb_error *err),
                                    void *user, xpb_error *err);
/* Destroys the CUDA graphs that burst/sharded keeps for the group g (burst_sharded.cu), which
 * hold its communicators: the group's close calls it before ncclCommDestroy. */
void xpb_cuda_burst_sharded_forget(const xpb_cuda_ctx *g);
/* For the group kernels: the group's ranks over every process (0 for a one-device ctx), the ranks
 * this process drives, the group rank of its first, and its l-th rank's stream and communicator. */
int xpb_cuda_group_size(const xpb_cuda_ctx *g);
int xpb_cuda_group_local(const xpb_cuda_ctx *g);
int xpb_cuda_group_first(const xpb_cuda_ctx *g);
cudaStream_t xpb_cuda_group_stream(const xpb_cuda_ctx *g, int l);
struct ncclComm *xpb_cuda_group_comm(const xpb_cuda_ctx *g, int l);
/* The array's part r (part_bytes from offset on) is rank r's: where a download reads it. */
void xpb_cuda_group_set_parts(xpb_buffer *buf, size_t offset, size_t part_bytes);
/* The array holds a rows x cols fp32 row-major matrix at offset whose columns
 * [r cols / P, (r+1) cols / P) a download reads from rank (r + shift) % P: shift 0 reads each
 * rank's own columns, shift 1 reads each block from a rank that did not compute it (a gather's). */
void xpb_cuda_group_set_column_parts(xpb_buffer *buf, size_t offset, int64_t rows, int64_t cols, int shift);
/* Which group rank's copy a download reads byte b of buf from, and in *run_end (at most limit)
 * where the run of bytes from b that the same rank holds ends: the part's owner (shifted), the
 * first rank before the parts, the last after them; rank 0 for a buffer without parts. Pure
 * arithmetic on buf's fields (tests/unit/test_group_parts.c). */
int xpb_cuda_group_owner(const xpb_buffer *buf, size_t b, size_t limit, size_t *run_end);
/* The group's split of n columns (or points) over p ranks: rank r's first is r n / p (rounded
 * down); its last is rank r + 1's first minus one. The sharded kernels and the column parts of
 * xpb_cuda_group_set_column_parts follow it. */
int64_t xpb_cuda_shard_first(int r, int p, int64_t n);
/* The single-device context of this process's l-th rank (for cuBLAS and the like). */
xpb_cuda_ctx *xpb_cuda_group_rank_ctx(const xpb_cuda_ctx *g, int l);
/* "<what> failed: <NCCL's error string> (NCCL error N) at <file>:<line>"; its xpb_status. */
xpb_status xpb_nccl_fail(xpb_error *err, int result, const char *what, const char *file, int line);

#ifdef __cplusplus
}
#endif
#endif
