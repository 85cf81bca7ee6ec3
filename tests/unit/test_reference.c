/* test_reference.c - the fp64 reference itself, on values worked out by hand, and the input
 * generator's determinism. */
#include <stdlib.h>
#include <string.h>

#include "elementwise/elementwise.h"
#include "xpb_rng.h"
#include "xpb_test.h"

static xpb_case make(xpb_op op, const char *k1, int64_t v1, const char *k2, int64_t v2)
{
    xpb_case c;
    memset(&c, 0, sizeof c);
    c.workload = &xpb_workload_elementwise;
    c.op = op;
    xpb_case_set_param(&c, k1, v1);
    if (k2)
        xpb_case_set_param(&c, k2, v2);
    c.scalar[0] = 2.0;
    c.scalar[1] = 1e-6;
    c.scalar[2] = 10000.0;
    return c;
}

int main(void)
{
    /* generator: same value for the same (seed, stream, index), uniform in [-1, 1) */
    CHECK(xpb_rng_uniform(1, 0, 12345) == xpb_rng_uniform(1, 0, 12345));
    CHECK(xpb_rng_uniform(1, 0, 12345) != xpb_rng_uniform(2, 0, 12345));
    CHECK(xpb_rng_uniform(1, 0, 12345) != xpb_rng_uniform(1, 1, 12345));
    double mean = 0, lo = 1, hi = -1;
    for (int i = 0; i < 100000; i++) {
        float v = xpb_rng_uniform(3, 0, (uint64_t)i);
        mean += v;
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    CHECK(lo >= -1 && hi < 1 && fabs(mean / 100000) < 0.01);

    float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, b[4] = {0, 0, 0, 0};
    xpb_case_data d = {.n_in = 3, .in = {x, w, b}, .out_elements = 4};
    double ref[4], tol[4];

    xpb_case sm = make(XPB_OP_SOFTMAX, "rows", 1, "cols", 4);
    ew_reference(&sm, &d, "fp32", 0, 1, ref, tol);
    double s = exp(-3) + exp(-2) + exp(-1) + 1;
    CHECK_NEAR(ref[3], 1 / s, 1e-15);
    CHECK_NEAR(ref[0] + ref[1] + ref[2] + ref[3], 1, 1e-15);
    CHECK(tol[3] > 0 && tol[3] < 1e-5);

    xpb_case rms = make(XPB_OP_RMSNORM, "rows", 1, "cols", 4);
    ew_reference(&rms, &d, "fp32", 0, 1, ref, tol);
    CHECK_NEAR(ref[0], 1 / sqrt(7.5 + 1e-6), 1e-12); /* mean of squares = 30 / 4 */

    xpb_case ln = make(XPB_OP_LAYERNORM, "rows", 1, "cols", 4);
    ew_reference(&ln, &d, "fp32", 0, 1, ref, tol);
    CHECK_NEAR(ref[0], -1.5 / sqrt(1.25 + 1e-6), 1e-12); /* mean 2.5, population var 1.25 */
    CHECK_NEAR(ref[0] + ref[3], 0, 1e-12);

    /* rope at position 1, head_dim 4: pair 0 rotates by 1 rad, pair 1 by 1/100 rad */
    float x2[8] = {9, 9, 9, 9, 1, 2, 3, 4};
    xpb_case_data d2 = {.n_in = 1, .in = {x2}, .out_elements = 8};
    xpb_case rp = make(XPB_OP_ROPE, "seq", 2, "head_dim", 4);
    ew_reference(&rp, &d2, "fp32", 1, 2, ref, tol); /* unit 1 = position 1 = x2[4..8) */
    CHECK_NEAR(ref[0], 1 * cos(1.0) - 2 * sin(1.0), 1e-12);
    CHECK_NEAR(ref[3], 3 * sin(0.01) + 4 * cos(0.01), 1e-12);

    /* sigmoid stays finite and accurate far out */
    float big[2] = {-100, 100};
    xpb_case_data db = {.n_in = 1, .in = {big}, .out_elements = 2};
    xpb_case sg = make(XPB_OP_SIGMOID, "n", 2, NULL, 0);
    ew_reference(&sg, &db, "fp32", 0, 2, ref, tol);
    CHECK(ref[0] > 0 && ref[0] < 1e-40 && ref[1] == 1.0);

    xpb_case sc = make(XPB_OP_SCALE, "n", 4, NULL, 0);
    ew_reference(&sc, &d, "fp32", 0, 4, ref, tol);
    CHECK(ref[3] == 8.0 && tol[3] == 8.0 * 0x1p-24);
    xpb_case cp = make(XPB_OP_COPY, "n", 4, NULL, 0);
    ew_reference(&cp, &d, "fp32", 0, 4, ref, tol);
    CHECK(ref[2] == 3.0 && tol[2] == 0.0);
    XPB_TEST_END();
}
