/* gemm.c - an example xpubench plugin: GEMM and GEMV for the cpu backend, twice each.
 *
 *   cpu/example        a plain, correct fp32 GEMM: rows of C split over the threads, each row
 *                      built from B's rows in blocks of k (so B streams through the cache once a
 *                      block of rows), fp32 products and sums: every case of the checker passes.
 *   cpu/example-lastk  the classic tiling bug, a k loop that stops one short when k is not a
 *                      multiple of its block: right for every k that is, wrong by one product
 *                      for the rest, so the checker's exact-input class (integers, where any
 *                      missing product shows) rejects it. Shipped to show a rejection.
 *
 * The same functions serve GEMM and GEMV (GEMV is m = 1). It includes only
 * <xpubench/xpubench_plugin.h> and links nothing of xpubench (docs/plugins.md). */
#include <stddef.h>
#include <string.h>

#include <xpubench/xpubench_plugin.h>

#define KBLOCK 64 /* rows of B a pass over a block of C's rows */
#define MBLOCK 16 /* rows of C a thread takes at a time */

/* Rows [i0, i1) of c = alpha * A B + beta * c_in. lastk: the bug above. */
static void gemm_rows(const xpb_plugin_gemm_args *g, int64_t i0, int64_t i1, int lastk)
{
    const int64_t n = g->n, k = g->k;
    for (int64_t i = i0; i < i1; i++) { /* C's row starts as 0: c is poisoned, never read */
        memset(g->c + i * n, 0, (size_t)n * sizeof(float));
    }
    const int64_t kend = lastk && k % KBLOCK ? k - 1 : k;
    for (int64_t p0 = 0; p0 < kend; p0 += KBLOCK) {
        const int64_t p1 = p0 + KBLOCK < kend ? p0 + KBLOCK : kend;
        for (int64_t i = i0; i < i1; i++) {
            float *c = g->c + i * n;
            const float *a = g->a + i * k;
            for (int64_t p = p0; p < p1; p++) {
                const float aip = a[p];
                const float *b = g->b + p * n;
                for (int64_t j = 0; j < n; j++)
                    c[j] += aip * b[j];
            }
        }
    }
    for (int64_t i = i0; i < i1; i++) {
        float *c = g->c + i * n;
        const float *cin = g->c_in ? g->c_in + i * n : NULL; /* NULL when beta == 0 */
        for (int64_t j = 0; j < n; j++)
            c[j] = g->alpha * c[j] + (cin ? g->beta * cin[j] : 0.0f);
    }
}

static int gemm(const xpb_plugin_context *ctx, const xpb_plugin_gemm_args *g, int lastk)
{
    const int64_t blocks = (g->m + MBLOCK - 1) / MBLOCK;
    /* ctx->threads: the team xpubench's own CPU kernels use, so both compete on equal terms */
#pragma omp parallel for num_threads(ctx->threads) schedule(static) if (g->m * g->n * g->k >= 65536)
    for (int64_t blk = 0; blk < blocks; blk++) {
        const int64_t i0 = blk * MBLOCK, i1 = i0 + MBLOCK < g->m ? i0 + MBLOCK : g->m;
        gemm_rows(g, i0, i1, lastk);
    }
    return XPB_PLUGIN_OK;
}

static int example_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)state;
    (void)err;
    return gemm(ctx, args, 0);
}

static int lastk_launch(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err)
{
    (void)state;
    (void)err;
    return gemm(ctx, args, 1);
}

#define EXAMPLE_KERNEL(name, which, var, fn)                                                                 \
    static const xpb_plugin_kernel name = {.op = which, .variant = var, .precision = "fp32", .launch = fn}
EXAMPLE_KERNEL(gemm_example, XPB_PLUGIN_OP_GEMM, "example", example_launch);
EXAMPLE_KERNEL(gemm_lastk, XPB_PLUGIN_OP_GEMM, "example-lastk", lastk_launch);
EXAMPLE_KERNEL(gemv_example, XPB_PLUGIN_OP_GEMV, "example", example_launch);
EXAMPLE_KERNEL(gemv_lastk, XPB_PLUGIN_OP_GEMV, "example-lastk", lastk_launch);

static const xpb_plugin_kernel *const cpu_kernels[] = {&gemm_example, &gemm_lastk, &gemv_example, &gemv_lastk, NULL};

int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out)
{
    if (abi_version == XPB_PLUGIN_ABI_VERSION)
        *out = (xpb_plugin_info){.version = "example-cpu-gemm 1.0", .cpu_kernels = cpu_kernels};
    return XPB_PLUGIN_ABI_VERSION;
}
