/* mutants.h - deliberately broken CPU kernels, built only into the mutation test (test_mutants.c),
 * never into xpubench. Each carries one bug a kernel author makes; the test runs it over the
 * conformance and default sizes of its op, with every input class (the largest cases: the classes
 * named in shown_by), and fails unless the checker reports a validation failure at every size
 * (docs/validation.md, "What the checker catches").
 * Each op also has a control: the same plain kernel without the bug, which must pass everywhere,
 * so that a "caught" never comes from the mutants' own code. */
#ifndef XPB_MUTANTS_H
#define XPB_MUTANTS_H

#include <stdbool.h>

#include "xpb_backend.h"
#include "xpb_workload.h"

typedef struct xpb_mutant {
    const char *name;    /* "softmax-sum-skips-last"                                 */
    const char *bug;     /* what was broken, in words                                */
    const xpb_kernel *kernel;
    bool control;        /* the unbroken kernel: must pass at every size              */
    /* Optional: true when no input can show this bug in case c, with the reason. */
    bool (*uncatchable)(const xpb_case *c, const char **why);
    /* The input classes that show this bug ("exact", "const,offset"), as docs/validation.md's
     * table has them: the only classes the largest cases run (test_mutants.c). A class named
     * here that does not catch the mutant there fails the test (MISSED). */
    const char *shown_by;
} xpb_mutant;

/* NULL-terminated: every mutant and control (mutant_list.c). */
extern const xpb_mutant *const xpb_mutants[];

/* The bugs of the plain row-op, GEMM and rope kernels (one switch each, in the kernel files). */
typedef enum mutant_bug {
    BUG_NONE,
    BUG_SOFTMAX_SUM_SKIPS_LAST,   /* the row sum leaves out the last element            */
    BUG_SOFTMAX_NO_MAX,           /* exp(x) / sum exp(x): overflows for x > 88          */
    BUG_RMSNORM_MEAN_N_MINUS_1,   /* mean of squares over n - 1                         */
    BUG_RMSNORM_NO_EPS,           /* eps left out                                       */
    BUG_LAYERNORM_SAMPLE_VAR,     /* variance divided by n - 1                          */
    BUG_LAYERNORM_EPS_OUTSIDE,    /* 1 / (sqrt(var) + eps)                              */
    BUG_LAYERNORM_ONE_PASS,       /* E[x^2] - E[x]^2 in fp32                            */
    BUG_LAYERNORM_SHIFTED_FP32,   /* sums of x - x0, (x - x0)^2 in fp32, x0 = row[0]     */
    BUG_GEMM_SKIPS_LAST_K,        /* every dot product leaves out its last k term       */
    BUG_GEMM_SKIPS_LAST_K_TILE,   /* a k loop in tiles of 16 that drops the last tile   */
    BUG_GEMV_ROW_SHORT,           /* the last output's dot product is one term short    */
    BUG_ROPE_POSITION_PLUS_1,     /* the angle uses position p + 1                      */
    BUG_STATS_TRIM_TOP_EXTRA,     /* anneal stats: one point too many dropped at the top */
    BUG_STATS_ORDER_BY_INDEX,     /* anneal stats: trims by point index, not distance   */
    BUG_STATS_VAR_OVER_C,         /* anneal stats: variance divided by c, not c - 1     */
} mutant_bug;

/* Defines `const xpb_kernel xpb_mutant_<name>` for op, whose launch calls
 * fn(args, bug, err): the kernel slot carries no user data, hence one small wrapper each. */
#define XPB_MUTANT_KERNEL(name, kop, fn, bug)                                                     \
    static xpb_status name##_launch(void *ctx, const void *args, void *state, xpb_error *err)   \
    {                                                                                             \
        (void)ctx, (void)state;                                                                   \
        return fn(args, bug, err);                                                                \
    }                                                                                             \
    const xpb_kernel xpb_mutant_##name = {                                                        \
        .op = kop, .variant = #name, .precision = "fp32", .launch = name##_launch};

#endif
