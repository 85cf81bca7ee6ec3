/* xpb_ops.h - the ops every backend may implement, and the argument struct each op takes.
 *
 * An op is a mathematical contract (docs/workloads.md); a kernel is one backend's
 * implementation of it under a variant name. Kernels receive `const void *args` pointing to the
 * argument struct named beside the op below. Buffers are passed as views (buffer + byte offset)
 * so the harness can surround every output with guard regions. */
#ifndef XPB_OPS_H
#define XPB_OPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum xpb_op {
    /* elementwise: xpb_eltwise_args */
    XPB_OP_COPY,    /* out = x          */
    XPB_OP_ADD,     /* out = x + y      */
    XPB_OP_MUL,     /* out = x * y      */
    XPB_OP_SCALE,   /* out = a * x      */
    XPB_OP_RELU,    /* out = max(0, x)  */
    XPB_OP_SIGMOID, /* out = 1/(1+e^-x) */
    XPB_OP_SILU,    /* out = x*sigmoid(x) */
    /* row ops: xpb_rowop_args */
    XPB_OP_SOFTMAX,
    XPB_OP_RMSNORM,   /* uses w            */
    XPB_OP_LAYERNORM, /* uses w (gamma), b */
    /* rope: xpb_rope_args */
    XPB_OP_ROPE,
    /* gemm / gemv: xpb_gemm_args (GEMV is M = 1) */
    XPB_OP_GEMM,
    XPB_OP_GEMV,
    XPB_OP_COUNT
} xpb_op;

typedef enum xpb_dtype {
    XPB_DTYPE_F32,
    XPB_DTYPE_F16,
    XPB_DTYPE_I32,
    XPB_DTYPE_U8,
} xpb_dtype;

/* A backend-owned device allocation; each backend defines the struct. */
typedef struct xpb_buffer xpb_buffer;

/* A place in a buffer. offset is in bytes and is always a multiple of 256, so it satisfies
 * every device's minStorageBufferOffsetAlignment and float4 alignment. */
typedef struct xpb_view {
    xpb_buffer *buf;
    size_t offset;
} xpb_view;

/* copy, add, mul, scale, relu, sigmoid, silu. y is read only by add and mul; a only by scale. */
typedef struct xpb_eltwise_args {
    xpb_view x, y, out;
    int64_t n;
    float a;
} xpb_eltwise_args;

/* softmax, rmsnorm, layernorm over each of `rows` rows of `cols` contiguous floats.
 * w: per-column weight (rmsnorm, layernorm gamma); b: per-column bias (layernorm beta). */
typedef struct xpb_rowop_args {
    xpb_view x, w, b, out;
    int64_t rows, cols;
    float eps;
} xpb_rowop_args;

/* rope: x and out of shape [batch, heads, seq, head_dim], head_dim even. The pair
 * (x[2i], x[2i+1]) at sequence position p rotates by p * base^(-2i/head_dim). */
typedef struct xpb_rope_args {
    xpb_view x, out;
    int64_t batch, heads, seq, head_dim;
    float base;
} xpb_rope_args;

/* c = alpha * A(MxK) * B(KxN) + beta * c_in(MxN), all row-major fp32 in memory.
 * The harness poisons c before each validated run, so C's old value comes in c_in: it is read
 * only when beta != 0 (c_in.buf is NULL when beta == 0); a kernel that works in place (cuBLAS)
 * copies c_in to c first. GEMV is the M = 1 case (op XPB_OP_GEMV: y(1xN) = x(1xK) * B(KxN)).
 * Variants with lower-precision inputs (tf32, fp16) convert A and B in `prepare` (untimed) and
 * say so in their precision string. */
typedef struct xpb_gemm_args {
    xpb_view a, b, c_in, c;
    int64_t m, n, k;
    float alpha, beta;
} xpb_gemm_args;

/* Static description of an op: names and the shape of its arguments. */
typedef struct xpb_op_info {
    xpb_op op;
    const char *name;     /* "softmax"      */
    const char *workload; /* "elementwise"  */
} xpb_op_info;

const xpb_op_info *xpb_op_get(xpb_op op);
/* Returns XPB_OP_COUNT when no op has that name. */
xpb_op xpb_op_from_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
