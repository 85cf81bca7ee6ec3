/* rope_mutants.c - plain rope (angles and rotation in double) with the position off by one
 * (mutants.h). Test-only. */
#include <math.h>

#include "cpu_internal.h"
#include "mutants.h"

static xpb_status rope_launch(const void *args, mutant_bug bug, xpb_error *err)
{
    xpb_cpu_rope_view v;
    xpb_status st = xpb_cpu_rope_resolve(args, &v, err);
    if (st)
        return st;
    double base = ((const xpb_rope_args *)args)->base;
    int64_t half = v.head_dim / 2, shift = bug == BUG_ROPE_POSITION_PLUS_1;
#pragma omp parallel for schedule(static)
    for (int64_t row = 0; row < v.batch_heads * v.seq; row++) {
        double p = (double)(row % v.seq + shift);
        const float *x = v.x + row * v.head_dim;
        float *y = v.out + row * v.head_dim;
        for (int64_t i = 0; i < half; i++) {
            double theta = p * pow(base, -2.0 * (double)i / (double)v.head_dim);
            double c = cos(theta), s = sin(theta), x0 = x[2 * i], x1 = x[2 * i + 1];
            y[2 * i] = (float)(x0 * c - x1 * s);
            y[2 * i + 1] = (float)(x0 * s + x1 * c);
        }
    }
    return XPB_OK;
}

XPB_MUTANT_KERNEL(rope_control, XPB_OP_ROPE, rope_launch, BUG_NONE)
XPB_MUTANT_KERNEL(rope_position_plus_1, XPB_OP_ROPE, rope_launch, BUG_ROPE_POSITION_PLUS_1)
