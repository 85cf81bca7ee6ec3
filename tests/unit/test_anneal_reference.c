/* test_anneal_reference.c - the fp64 annealing reference (workloads/anneal/): hand-checked init and
 * trimming, a full run on the contract's blobs with the original's test configuration, and
 * determinism. */
#include <stdlib.h>
#include <string.h>

#include "anneal/anneal.h"
#include "xpb_test.h"

static void test_init(void)
{
    /* points on a line 0, 1, 3, 10, 4. Anchor 0 = point 0 (0); the farthest from it is point 3
     * (10); then min distances are 1, 9, 16 (to 0 and 10: point 4 at 4 is 16 from 0, 36 from
     * 10): point 4; then points 1 (1 from 0) and 2 (1 from 4) tie at 1: the lower index, 1. */
    const float x[] = {0, 1, 3, 10, 4};
    double a[4];
    anneal_init_farthest(x, 5, 1, 4, a);
    CHECK(a[0] == 0 && a[1] == 10 && a[2] == 4 && a[3] == 1);
}

static void test_trim(void)
{
    /* 10 points, trim 0.1: t = 1, drop the nearest and the farthest by (dist, index) */
    float x[10];
    uint32_t idx[10];
    double dist[10], mu;
    for (int i = 0; i < 10; i++) {
        x[i] = (float)i;
        idx[i] = (uint32_t)(9 - i);     /* listed in reverse */
        dist[i] = (double)((i * 7) % 10); /* a permutation of 0..9 */
    }
    anneal_trimmed_mean(x, 1, idx, dist, 10, 0.1, &mu);
    /* dist 0 is listed at i = 0 (point 9), dist 9 at i = 7 (point 2): drop points 9 and 2 */
    CHECK_NEAR(mu, (45.0 - 9 - 2) / 8.0, 1e-12);
    /* ties in dist go by point index: all equal, t = 1 drops point 0 and point 9 */
    for (int i = 0; i < 10; i++)
        dist[i] = 1.0;
    anneal_trimmed_mean(x, 1, idx, dist, 10, 0.1, &mu);
    CHECK_NEAR(mu, (45.0 - 0 - 9) / 8.0, 1e-12);
    /* c = 3, trim 0.4: t = 1, the middle one is left; trim 0.7: t = 2, c - 2t < 1: the mean of
     * all; c = 2, trim 0.7: t = 1, c - 2t = 0 < 1: the mean of both */
    anneal_trimmed_mean(x, 1, idx, dist, 3, 0.4, &mu);
    CHECK_NEAR(mu, 8.0, 1e-12); /* points 9, 8, 7 at equal dist: keep the middle, 8 */
    anneal_trimmed_mean(x, 1, idx, dist, 3, 0.7, &mu);
    CHECK_NEAR(mu, 8.0, 1e-12);
    anneal_trimmed_mean(x, 1, idx, dist, 2, 0.7, &mu);
    CHECK_NEAR(mu, 8.5, 1e-12);
}

static void test_run(void)
{
    const int64_t n = 1000, d = 64, m = 32;
    float *x = malloc((size_t)(n * d) * sizeof *x);
    anneal_blobs(x, n, d, m, 1);
    /* the blobs: noise of expected squared norm 0.01 around centers in [-1, 1)^d */
    anneal_config cfg = anneal_original_test_config(m);
    anneal_result r, r2;
    xpb_error err = {{0}};
    CHECK(anneal_reference_run(x, n, d, &cfg, &r, &err) == XPB_OK);
    printf("1K x 64, m = 32, the original's test configuration: %d iterations, converged %d, energy %.5f, "
           "anchors %lld, ratio %.4f\n", r.iterations, r.converged, r.energy, (long long)r.m, r.ratio);
    CHECK(r.iterations >= 1 && r.iterations <= cfg.max_iter);
    CHECK(r.steps[0].changes == n);
    CHECK(r.energy > 0 && r.energy < 0.05); /* the anchors find the blobs (noise 0.01) */
    CHECK(r.m >= m);
    CHECK_NEAR(r.ratio, ((double)r.m * d * 2 + n * 4.0) / ((double)n * d * 4), 1e-15);
    for (int64_t i = 0; i < n; i++)
        CHECK(r.assignment[i] < (uint32_t)r.m);
    for (int i = 0; i < r.iterations; i++)
        CHECK(r.steps[i].t > 0 && r.steps[i].anchors >= m);
    if (r.converged) { /* the last three iterations met the test */
        for (int i = r.iterations - 3; i < r.iterations; i++)
            CHECK(r.steps[i].changes < cfg.min_changes);
    }
    /* the same run again: the same trajectory, bit for bit */
    CHECK(anneal_reference_run(x, n, d, &cfg, &r2, &err) == XPB_OK);
    CHECK(r2.iterations == r.iterations && r2.m == r.m);
    CHECK(memcmp(r2.steps, r.steps, (size_t)r.iterations * sizeof *r.steps) == 0);
    CHECK(memcmp(r2.anchors, r.anchors, (size_t)(r.m * d) * sizeof *r.anchors) == 0);
    anneal_result_free(&r);
    anneal_result_free(&r2);
    /* bad sizes */
    CHECK(anneal_reference_run(x, 0, d, &cfg, &r, &err) == XPB_ERR_USAGE);
    free(x);
}

int main(void)
{
    test_init();
    test_trim();
    test_run();
    XPB_TEST_END();
}
