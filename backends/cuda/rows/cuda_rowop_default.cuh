/* cuda_rowop_default.cuh - the "default" variant of the row ops (softmax, rmsnorm, layernorm):
 * what a user gets without naming a variant, so it takes the fastest path measured for each row
 * length (issue 36: the default within 10% of the best variant at 1024 x 262144).
 *
 *   cols <= XPB_ROWOP_HELD_MAX (32768): the held shapes of cuda_rowop.cuh, the row in registers
 *     of one warp or block (xpb_rowop_default_shapes).
 *   longer rows: the regs variant's launch (cuda_rowop_regs.cuh, called, not copied: the same
 *     plan, knobs XPB_CUDA_REGS_SHAPE / _SPIN / _GRID and XPB_CUDA_ROW_EXP, shape per op), each
 *     row read once; the streamed shape of cuda_rowop.cuh reads every long row twice (1024 x
 *     262144, % of the copy roof: H200 streamed default 61-64%, regs 70-78%; H100 regs 88-91%).
 *     Softmax then runs regs' FastExp form (xpb_exp_ftz: __expf with subnormals flushed, inside
 *     docs/validation.md's exp bound as for cuda/regs; XPB_CUDA_ROW_EXP=expf: expf).
 *   On a GPU below compute capability 7.0 (no acquire/release atomics, which regs' exchange
 *     needs) long rows keep the streamed shape: the default runs everywhere the op does.
 * State: prepare() makes regs' exchange buffers for long rows (untimed), none for the others;
 * launch() checks that they were made for these sizes (xpb_cuda_rowop_state_launch). */
#ifndef XPB_CUDA_ROWOP_DEFAULT_CUH
#define XPB_CUDA_ROWOP_DEFAULT_CUH

#include "cuda_rowop_regs.cuh" /* and cuda_rowop_onchip.cuh, cuda_rowop.cuh */

/* The plan: regs' for long rows (regs true), else one "chunk" of the whole row and no exchange. */
struct xpb_rowop_default_plan {
    int chunk, chunks; /* read by xpb_cuda_rowop_state_launch: the exchange's shape */
    bool regs;
    xpb_rowop_regs_plan r;
};

/* The variant for XPB_CUDA_ROWOP_STATE_KERNEL (cuda_rowop_onchip.cuh). */
struct xpb_rowop_default_variant {
    static constexpr const char *variant = "default";
    typedef xpb_rowop_default_plan Plan;
    template <class Op>
    static xpb_status plan(xpb_cuda_ctx *ctx, int64_t rows, int cols, const char *name, Plan *out, xpb_error *err)
    {
        *out = {};
        if (cols <= XPB_ROWOP_HELD_MAX || ctx->cc_major < 7) {
            out->chunk = cols, out->chunks = 1;
            return XPB_OK;
        }
        out->regs = true;
        xpb_status st = xpb_rowop_regs_variant::plan<Op>(ctx, rows, cols, name, &out->r, err);
        out->chunk = out->r.chunk, out->chunks = out->r.chunks;
        return st;
    }
    static size_t flag_words(const Plan &plan, int64_t rows)
    {
        return plan.regs ? xpb_rowop_regs_variant::flag_words(plan.r, rows) : 0;
    }
    static size_t part_states(const Plan &, int64_t) { return 0; }
    template <class Op>
    static xpb_status go(xpb_cuda_ctx *ctx, const xpb_rowop_ptrs &p, bool vec, xpb_rowop_exchange *s, const Plan &plan,
                         const char *name, xpb_error *err)
    {
        if (plan.regs)
            return xpb_rowop_regs_variant::go<Op>(ctx, p, vec, s, plan.r, name, err);
        return xpb_rowop_default_shapes::enqueue<Op>(ctx, p, vec, name, err);
    }
    /* "path=regs " and regs' own, or which held shape (xpb_rowop_default_shapes' order). */
    template <class Op>
    static void describe(const Plan &plan, int cols, bool vec, char *buf, size_t n)
    {
        if (plan.regs) {
            const int k = snprintf(buf, n, "path=regs ");
            if (k > 0 && (size_t)k < n)
                xpb_rowop_regs_variant::describe<Op>(plan.r, cols, vec, buf + k, n - (size_t)k);
            return;
        }
        const char *path = cols <= 32                   ? "lanes-per-row"
                           : cols <= 1024               ? "warp-per-row"
                           : cols <= XPB_ROWOP_HELD_MAX ? "block-per-row"
                                                        : "streamed";
        snprintf(buf, n, "path=%s loads=%s", path, vec && cols > 32 ? "float4" : "float");
    }
};

/* Defines `extern "C" const xpb_kernel xpb_cuda_<name>`: the default variant of row-op policy Op. */
#define XPB_CUDA_ROWOP_KERNEL(name, xpb_op_value, Op) \
    XPB_CUDA_ROWOP_STATE_KERNEL(name, xpb_op_value, Op, xpb_rowop_default_variant)

#endif
