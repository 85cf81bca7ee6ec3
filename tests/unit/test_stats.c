/* test_stats.c - summary statistics against hand-computed values. */
#include "xpb_stats.h"
#include "xpb_test.h"

int main(void)
{
    const double v[] = {5, 1, 4, 2, 3};
    xpb_stats s = xpb_stats_compute(v, 5);
    CHECK(s.n == 5);
    CHECK_NEAR(s.median, 3, 0);
    CHECK_NEAR(s.min, 1, 0);
    CHECK_NEAR(s.max, 5, 0);
    CHECK_NEAR(s.mean, 3, 1e-15);
    CHECK_NEAR(s.stddev, sqrt(2.5), 1e-15); /* sample standard deviation */
    CHECK_NEAR(s.cv, sqrt(2.5) / 3, 1e-15);
    CHECK_NEAR(s.p05, 1.2, 1e-12);
    CHECK_NEAR(s.p95, 4.8, 1e-12);
    CHECK(v[0] == 5); /* input not reordered */

    const double even[] = {1, 2, 3, 10};
    CHECK_NEAR(xpb_stats_compute(even, 4).median, 2.5, 0);
    xpb_stats one = xpb_stats_compute(even, 1);
    CHECK(one.n == 1 && one.stddev == 0 && one.median == 1);
    CHECK(xpb_stats_compute(even, 0).n == 0);

    xpb_samples smp = {0};
    for (int i = 0; i < XPB_MAX_SAMPLES + 10; i++)
        CHECK(xpb_samples_push(&smp, i) == 0);
    CHECK(smp.n == XPB_MAX_SAMPLES); /* capped, never grows without bound */
    xpb_samples_free(&smp);
    XPB_TEST_END();
}
