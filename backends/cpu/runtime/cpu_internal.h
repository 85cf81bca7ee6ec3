/* cpu_internal.h - what the files of the CPU backend share: its context, its buffer, argument
 * checks and the helpers that split work over the OpenMP team. Not part of the harness interface. */
#ifndef XPB_CPU_INTERNAL_H
#define XPB_CPU_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpb_backend.h"

/* Alignment of every buffer allocation, in bytes (views are offset by multiples of 256 too). */
#define XPB_CPU_ALIGN 256
/* Fewest elements worth waking the thread team for; smaller cases run on the calling thread. */
#define XPB_CPU_PARALLEL_MIN 32768
/* Independent accumulators of the reductions (4 AVX-512 vectors of doubles): one accumulator
 * would make the loop wait on the latency of its adds. */
#define XPB_CPU_ACC 32
/* Most threads that cooperate on one row (row ops with fewer rows than threads). */
#define XPB_CPU_MAX_SPLIT 64

/* A host allocation. data is XPB_CPU_ALIGN-aligned; [0, bytes) is what views may address. */
struct xpb_buffer {
    void *data;
    size_t bytes;
};

/* Per-open state (no file-scope globals). Kernels run synchronously on the calling thread and
 * its OpenMP team, so the timer is a host clock. */
typedef struct xpb_cpu_ctx {
    int device;
    bool timer_running;
    double timer_start; /* CLOCK_MONOTONIC seconds at timer_begin */
} xpb_cpu_ctx;

/* cpu_blas_info.c: the BLAS as it describes itself, led by its XPB_BLAS choice
 * ("scipy-openblas: OpenBLAS 0.3.34 ..., core Haswell, 16 threads (pthreads)", "blis: BLIS 0.9.0,
 * core zen2, 16 threads (OpenMP)"), and into warning (else "") why its figures understate the CPU:
 * a generic core, or an AVX2 core on an Intel processor with AVX-512 (core_is_narrow). */
void xpb_cpu_blas_describe(char *out, size_t n, char *warning, size_t wn);
bool xpb_cpu_blas_core_is_generic(const char *core);
bool xpb_cpu_blas_core_is_narrow(const char *core, bool intel_avx512);

/* cpu_peak.c: the fp32 multiply-add rate of all threads, measured once (about 0.1 s), GFLOP/s. */
double xpb_cpu_peak_gflops(void);

/* cpu_device.c */
int xpb_cpu_device_count(void);
xpb_status xpb_cpu_device_info(int device, xpb_device_info *out, xpb_error *err);

/* cpu_buffer.c: the buffer slots of the backend table. */
xpb_status xpb_cpu_buffer_alloc(void *ctx, size_t bytes, xpb_buffer **out, xpb_error *err);
void xpb_cpu_buffer_free(void *ctx, xpb_buffer *buf);
xpb_status xpb_cpu_buffer_upload(void *ctx, xpb_buffer *dst, size_t offset, const void *src,
                                 size_t bytes, xpb_error *err);
xpb_status xpb_cpu_buffer_download(void *ctx, xpb_buffer *src, size_t offset, void *dst,
                                   size_t bytes, xpb_error *err);
/* A plugin kernel's pointer for view v of `bytes` bytes; NULL when it overruns the buffer. */
void *xpb_cpu_view_ptr(void *ctx, const xpb_view *v, size_t bytes);
/* Copies bytes from src to dst with the whole team when it is large (memcpy semantics). */
void xpb_cpu_memcpy(void *dst, const void *src, size_t bytes);

/* cpu_args.c: argument checks. Each resolves the views a kernel uses into host pointers after
 * checking sizes (negative or overflowing -> XPB_ERR_USAGE) and that every view lies inside its
 * buffer (XPB_ERR_USAGE, never an out-of-bounds access). Unused views are left NULL. */
typedef struct xpb_cpu_eltwise_view {
    const float *x, *y;
    float *out;
    int64_t n;
} xpb_cpu_eltwise_view;
/* need_y: the op reads y (add, mul). */
xpb_status xpb_cpu_eltwise_resolve(const xpb_eltwise_args *a, bool need_y, xpb_cpu_eltwise_view *v,
                                   xpb_error *err);

typedef struct xpb_cpu_rowop_view {
    const float *x, *w, *b;
    float *out;
    int64_t rows, cols;
} xpb_cpu_rowop_view;
xpb_status xpb_cpu_rowop_resolve(const xpb_rowop_args *a, bool need_w, bool need_b,
                                 xpb_cpu_rowop_view *v, xpb_error *err);

typedef struct xpb_cpu_rope_view {
    const float *x;
    float *out;
    int64_t batch_heads, seq, head_dim;
} xpb_cpu_rope_view;
xpb_status xpb_cpu_rope_resolve(const xpb_rope_args *a, xpb_cpu_rope_view *v, xpb_error *err);

/* Work splitting. */
/* [*begin, *end): part t of nt of [0, n), boundaries on multiples of 16 floats. */
void xpb_cpu_chunk(int64_t n, int t, int nt, int64_t *begin, int64_t *end);
/* [*r0, *r1): the rows the calling thread of an OpenMP team takes in whole-rows mode (a static,
 * contiguous share; all of [0, rows) outside a parallel region). */
void xpb_cpu_thread_rows(int64_t rows, int64_t *r0, int64_t *r1);

/* Software prefetch for row ops. Hardware prefetchers follow demand misses, so while a row op
 * works on a row from cache (exponentials, normalization) memory sits idle. The passes that run
 * from cache therefore go in blocks of XPB_CPU_BLOCK floats and prefetch a matching part of the
 * thread's next row, so that memory and arithmetic overlap (softmax +20-40% at 1000-4096
 * columns). Of a long row only the first XPB_CPU_PREFETCH_MAX floats are prefetched (spread over
 * the whole pass), so that the current row, its output and the prefetched part fit in L2. */
#define XPB_CPU_BLOCK 256
#define XPB_CPU_PREFETCH_MAX 32768

/* Row r + 1 of x (rows of cols floats) when it is the calling thread's next row, else NULL. */
static inline const float *xpb_cpu_next_row(const float *x, int64_t r, int64_t r1, int64_t cols)
{
    return r + 1 < r1 ? x + (r + 1) * cols : NULL;
}

/* Called for block [b, e) of a pass over a row of n floats: prefetches the matching part of
 * next (the next row, or NULL) into L2, one request per 64-byte line. */
static inline void xpb_cpu_prefetch_next(const float *next, int64_t b, int64_t e, int64_t n)
{
    if (!next)
        return;
    int64_t span = n < XPB_CPU_PREFETCH_MAX ? n : XPB_CPU_PREFETCH_MAX;
    int64_t pb = b * span / n, pe = e * span / n;
    for (int64_t i = pb - pb % 16; i < pe; i += 16)
        __builtin_prefetch(next + i, 0, 2);
}

/* Should a row op split each row over the team (few long rows) rather than give whole rows to
 * threads? Returns the team size to use, or 0 for whole rows. */
int xpb_cpu_row_split_threads(int64_t rows, int64_t cols);

/* A row op's work on row r of v (eps: the op's epsilon, unused by softmax); next: the calling
 * thread's next row or NULL (xpb_cpu_prefetch_next). */
typedef void (*xpb_cpu_row_fn)(const xpb_cpu_rowop_view *v, int64_t r, float eps, const float *next);
/* A row op's work on every row of v, each row split over a team of nt threads. */
typedef void (*xpb_cpu_split_fn)(const xpb_cpu_rowop_view *v, float eps, int nt);
/* A row op's launch (cpu_rowop.c): resolves a's views (need_w, need_b as xpb_cpu_rowop_resolve),
 * then split() when xpb_cpu_row_split_threads says so, else row() for each row, whole rows per
 * thread (on the calling thread below XPB_CPU_PARALLEL_MIN elements). */
xpb_status xpb_cpu_rowop_run(const xpb_rowop_args *a, bool need_w, bool need_b, xpb_cpu_row_fn row,
                             xpb_cpu_split_fn split, xpb_error *err);

#endif
