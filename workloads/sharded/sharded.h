/* sharded.h - the `sharded` workload's ops (sharded.c): each op's cases, data, arguments and
 * fp64 reference, as one row of a small table; sharded.c dispatches on the case's op. */
#ifndef XPB_SHARDED_H
#define XPB_SHARDED_H

#include "xpb_workload.h"

/* One op's part of xpb_workload_i (the same meanings); add_cases appends only this op's cases. */
typedef struct sharded_op_i {
    xpb_op op;
    xpb_status (*add_cases)(const char *preset, const xpb_sizes *sizes, xpb_case_list *list, xpb_error *err);
    bool (*knows_size_key)(const char *key);
    xpb_status (*make_data)(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err);
    void (*make_args)(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args);
    size_t (*unit_elements)(const xpb_case *c);
    void (*reference)(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0, size_t u1,
                      double *ref, double *tol);
    const char *(*tolerance_text)(const xpb_case *c, const char *precision);
    size_t (*sampled_units)(const xpb_case *c);
} sharded_op_i;

/* The preset's index, SHARDED_CONFORMANCE .. SHARDED_FULL (each op's case sets in this order), or
 * -1 with XPB_ERR_USAGE in err naming the presets. */
enum { SHARDED_CONFORMANCE, SHARDED_QUICK, SHARDED_DEFAULT, SHARDED_FULL };
int sharded_preset(const char *preset, xpb_error *err);

/* gemm_sharded (sharded.c) and anneal_assign_sharded (anneal_assign.c). */
extern const sharded_op_i sharded_gemm;
extern const sharded_op_i sharded_anneal_assign;
extern const xpb_workload_i xpb_workload_sharded;

#endif
