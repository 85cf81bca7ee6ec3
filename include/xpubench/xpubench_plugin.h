/* xpubench_plugin.h - all that a kernel plugin sees of xpubench (docs/plugins.md).
 *
 * A plugin is a shared library exporting one function,
 *
 *     int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out);
 *
 * `xpubench run --kernels LIB.so` loads it, asks it for its kernels, and runs each one on every
 * case of its op exactly like a built-in variant: inputs of every class, the fp64 reference and
 * its derived bound, poisoned outputs, guard regions, validation before timing.
 *
 * The entry point returns the XPB_PLUGIN_ABI_VERSION it was compiled with, always, and fills
 * *out only when abi_version (xpubench's) equals it; xpubench refuses a plugin of another
 * version with one line naming both. So a plugin never writes a struct laid out for another
 * version.
 *
 * The plugin sees plain pointers, never xpubench's buffers: host pointers on the cpu backend,
 * device pointers on cuda. C11 or C++; no xpubench library to link. */
#ifndef XPUBENCH_PLUGIN_H
#define XPUBENCH_PLUGIN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bumped whenever any struct, enum value or signature below changes meaning or layout. A new op
 * (a new enum value and its args struct) is an addition, not a change: an xpubench that does not
 * know an op refuses that plugin with one line naming the op's number. */
#define XPB_PLUGIN_ABI_VERSION 1

/* The ops a plugin may implement. The numbers are the ABI (never renumbered); each op's contract
 * (what it computes, its accuracy bound) is docs/workloads.md's. */
typedef enum xpb_plugin_op {
    /* elementwise: args is a const xpb_plugin_eltwise_args * */
    XPB_PLUGIN_OP_COPY = 1,    /* out = x           */
    XPB_PLUGIN_OP_ADD = 2,     /* out = x + y       */
    XPB_PLUGIN_OP_MUL = 3,     /* out = x * y       */
    XPB_PLUGIN_OP_SCALE = 4,   /* out = a * x       */
    XPB_PLUGIN_OP_RELU = 5,    /* out = max(0, x)   */
    XPB_PLUGIN_OP_SIGMOID = 6, /* out = 1/(1+e^-x)  */
    XPB_PLUGIN_OP_SILU = 7,    /* out = x*sigmoid(x) */
    /* row ops: args is a const xpb_plugin_rowop_args * */
    XPB_PLUGIN_OP_SOFTMAX = 8,   /* out = e^(x - max) / sum e^(x - max), per row   */
    XPB_PLUGIN_OP_RMSNORM = 9,   /* out = x / sqrt(mean(x^2) + eps) * w, per row   */
    XPB_PLUGIN_OP_LAYERNORM = 10, /* out = (x - mean) / sqrt(var + eps) * w + b     */
    /* matrix products: args is a const xpb_plugin_gemm_args * */
    XPB_PLUGIN_OP_GEMM = 11, /* c = alpha * A B + beta * c_in                    */
    XPB_PLUGIN_OP_GEMV = 12  /* the same with m = 1: y(1 x n) = x(1 x k) B(k x n) */
} xpb_plugin_op;

/* What a kernel function returns. */
typedef enum xpb_plugin_status {
    XPB_PLUGIN_OK = 0,
    XPB_PLUGIN_UNSUPPORTED = 1,   /* supports(): this kernel cannot run these args (say why)  */
    XPB_PLUGIN_OUT_OF_MEMORY = 2, /* an allocation failed                                     */
    XPB_PLUGIN_RUNTIME = 3,       /* anything else failed (a CUDA call, a bad argument)       */
    XPB_PLUGIN_DEVICE_LOST = 4    /* the device context is unusable (an illegal address, ...) */
} xpb_plugin_status;

/* Where a kernel writes why it failed or is unsupported: one line, NUL-terminated. */
#define XPB_PLUGIN_ERROR_LEN 256
typedef struct xpb_plugin_error {
    char msg[XPB_PLUGIN_ERROR_LEN];
} xpb_plugin_error;

/* Elementwise ops over n contiguous floats. x, y and out are 256-byte aligned and never overlap.
 * y is set for add and mul only (else NULL); a is read by scale only. */
typedef struct xpb_plugin_eltwise_args {
    const float *x;
    const float *y;
    float *out;
    int64_t n;
    float a;
} xpb_plugin_eltwise_args;

/* Row ops over rows x cols floats, row-major, rows contiguous (row r at x + r * cols). w is the
 * per-column weight (rmsnorm, layernorm gamma), b the per-column bias (layernorm beta); NULL for
 * ops that do not read them. eps: rmsnorm and layernorm. */
typedef struct xpb_plugin_rowop_args {
    const float *x;
    const float *w;
    const float *b;
    float *out;
    int64_t rows, cols;
    float eps;
} xpb_plugin_rowop_args;

/* c = alpha * A(m x k) B(k x n) + beta * c_in(m x n), every matrix fp32 and row-major with no
 * padding (element (i, j) of A at a[i * k + j]). c never overlaps a, b or c_in: xpubench poisons c
 * before each validated launch, so C's old value comes in c_in, which is NULL when beta == 0 (do
 * not read it then; a kernel that works in place copies c_in to c first). GEMV is m = 1.
 * The accuracy bound (docs/validation.md) depends on the kernel's precision string: one starting
 * "tf32" or "fp16" is allowed the rounding of A and B to 11 bits, "bf16" to 8, anything else none
 * (fp32 inputs). Converting A and B belongs in prepare (untimed), as xpubench's own variants do. */
typedef struct xpb_plugin_gemm_args {
    const float *a;
    const float *b;
    const float *c_in;
    float *c;
    int64_t m, n, k;
    float alpha, beta;
} xpb_plugin_gemm_args;

/* Which backend a context belongs to. */
typedef enum xpb_plugin_backend {
    XPB_PLUGIN_BACKEND_CPU = 1,
    XPB_PLUGIN_BACKEND_CUDA = 2
} xpb_plugin_backend;

/* What a kernel gets of the device it runs on.
 *   cpu:  pointers are host pointers; threads is the OpenMP team size xpubench's own CPU kernels
 *         use (OMP_NUM_THREADS or the machine's); stream is NULL. launch runs synchronously.
 *   cuda: pointers are device pointers of the current device (xpubench makes the stream's device
 *         current before each call); stream is the cudaStream_t to launch on, as void *. launch
 *         only enqueues (never synchronizes: xpubench does, and times with CUDA events on that
 *         stream; launches may be captured into a CUDA graph under run --graph). threads is 0. */
typedef struct xpb_plugin_context {
    xpb_plugin_backend backend;
    int threads;
    void *stream;
} xpb_plugin_context;

/* One kernel: an implementation of one op on one backend, under a variant name. args points to
 * the op's argument struct (above). Every function may be called from any thread, one call at a
 * time per context. */
typedef struct xpb_plugin_kernel {
    xpb_plugin_op op;
    const char *variant;   /* its name in list and results: [a-z0-9_.-], at most 31 characters,
                            * not a built-in variant's name for the same op and backend     */
    const char *precision; /* what it computes in: "fp32", "fp16-fp32acc", ...              */
    /* Optional (NULL: every args). Called before any buffer exists: the pointers in args are
     * NULL, decide on the sizes alone. XPB_PLUGIN_UNSUPPORTED with the reason in why makes the
     * case `unsupported` with that reason. */
    int (*supports)(const xpb_plugin_context *ctx, const void *args, xpb_plugin_error *why);
    /* Optional: untimed set-up for these args (plans, converted weights); *state is passed to
     * launch and release. */
    int (*prepare)(const xpb_plugin_context *ctx, const void *args, void **state, xpb_plugin_error *err);
    /* Required: compute out. Timed: called back to back, many times. */
    int (*launch)(const xpb_plugin_context *ctx, const void *args, void *state, xpb_plugin_error *err);
    /* Optional: frees what prepare made. */
    void (*release)(const xpb_plugin_context *ctx, void *state);
} xpb_plugin_kernel;

/* What the entry point fills in. The kernel lists are NULL-terminated arrays (or NULL for none)
 * and, like every string and kernel they point to, must live as long as the library is loaded
 * (static data). */
typedef struct xpb_plugin_info {
    const char *version;                          /* the plugin's own version, e.g. "1.0.2 (g1a2b3c)" */
    const xpb_plugin_kernel *const *cpu_kernels;  /* kernels for the cpu backend                      */
    const xpb_plugin_kernel *const *cuda_kernels; /* kernels for the cuda backend                     */
} xpb_plugin_info;

/* The one symbol xpubench looks up. Returns XPB_PLUGIN_ABI_VERSION; fills *out only when
 * abi_version == XPB_PLUGIN_ABI_VERSION. */
#if defined(__GNUC__)
__attribute__((visibility("default")))
#endif
int xpubench_plugin_entry(int abi_version, xpb_plugin_info *out);
typedef int (*xpb_plugin_entry_fn)(int abi_version, xpb_plugin_info *out);
#define XPB_PLUGIN_ENTRY_NAME "xpubench_plugin_entry"

#ifdef __cplusplus
}
#endif
#endif
