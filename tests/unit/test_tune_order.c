/* test_tune_order.c - order effects in `xpubench tune` (harness/cli/xpb_tune_order.h): the
 * alternating order of a knob's runs, and the base's A/A drift check, which keeps the base when
 * its own runs differ beyond the noise (synthetic results files: the base's last run 30% slower
 * or faster than its first). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>

#include "xpb_results_loaded.h"
#include "xpb_test.h"
#include "xpb_tune_order.h"

static void test_order(void)
{
    enum { N = 3 };
    int seen_at[2][N + 1]; /* side + 1 -> its position in runs 0 and 1 */
    for (int r = 0; r < 2; r++)
        for (int pos = 0; pos <= N; pos++) {
            int side = xpb_tune_order_side(r, pos, N);
            CHECK(side >= -1 && side < N);
            if (side >= -1 && side < N)
                seen_at[r][side + 1] = pos;
        }
    CHECK(xpb_tune_order_side(0, 0, N) == -1);    /* run 1: the base first */
    CHECK(xpb_tune_order_side(1, N, N) == -1);    /* run 2: the base last */
    CHECK(xpb_tune_order_side(1, 0, N) == N - 1); /* run 2 starts with the last candidate */
    for (int s = 0; s <= N; s++)                   /* every side early once and late once */
        CHECK(seen_at[0][s] + seen_at[1][s] == N);
    for (int pos = 0; pos <= N; pos++) /* run 3 as run 1 */
        CHECK(xpb_tune_order_side(2, pos, N) == xpb_tune_order_side(0, pos, N));
    CHECK(xpb_tune_order_side(0, 0, 0) == -1 && xpb_tune_order_side(1, 0, 0) == -1); /* the base alone */
}

/* One run of the base: three timed cases (softmax, rmsnorm, layernorm) of 5 rounds each, their
 * medians scale[k] * 100 us, 1% apart round to round. */
static bool base_run(const double scale[3], xpb_results_file *f)
{
    static const char *const ops[] = {"softmax", "rmsnorm", "layernorm"};
    static const double jitter[] = {-0.01, 0.005, 0, -0.005, 0.01};
    char buf[8192];
    int n = snprintf(buf, sizeof buf, "{\"schema\": \"xpubench-results\", \"schema_version\": 3, \"cases\": [");
    for (int k = 0; k < 3; k++) {
        double m = 1e-4 * scale[k];
        n += snprintf(buf + n, sizeof buf - (size_t)n,
                      "%s{\"id\": \"elementwise/%s/rows=2,cols=65537/fp32\", \"op\": \"%s\", \"backend\": \"vulkan\","
                      " \"device\": \"vulkan:0\", \"variant\": \"onchip\", \"status\": \"ok\","
                      " \"timing\": {\"kernel\": {\"median_s\": %.9g}, \"units\": {\"medians_s\": [",
                      k ? ", " : "", ops[k], ops[k], m);
        for (int j = 0; j < 5; j++)
            n += snprintf(buf + n, sizeof buf - (size_t)n, "%s%.9g", j ? ", " : "", m * (1 + jitter[j]));
        n += snprintf(buf + n, sizeof buf - (size_t)n, "]}}}");
    }
    snprintf(buf + n, sizeof buf - (size_t)n, "]}");
    xpb_error err = {{0}};
    if (xpb_results_parse("base.json", buf, strlen(buf), f, &err) != XPB_OK) {
        fprintf(stderr, "  %s\n", err.msg);
        return false;
    }
    return true;
}

/* The A/A check of a base whose last run is last[k] times its first; d filled. */
static bool drift_of(const double last[3], xpb_tune_drift *d)
{
    static const double one[3] = {1, 1, 1};
    const xpb_compare_opts o = XPB_COMPARE_OPTS_DEFAULT;
    xpb_results_file a, b;
    memset(d, 0, sizeof *d);
    if (!base_run(one, &a))
        return false;
    if (!base_run(last, &b)) {
        xpb_results_file_free(&a);
        return false;
    }
    bool found = xpb_tune_base_drift(&o, &a, &b, 2, d);
    if (getenv("XPB_TEST_VERBOSE"))
        fprintf(stderr, "  drift %d: %s\n", (int)found, d->why);
    xpb_results_file_free(&a);
    xpb_results_file_free(&b);
    return found;
}

static void test_drift(void)
{
    static const double same[3] = {1, 1, 1}, within[3] = {1.02, 0.99, 1.01}, slow[3] = {1.3, 1.3, 1.3},
                        fast[3] = {0.7, 0.7, 0.7}, one_slow[3] = {1.3, 1, 1}, mixed[3] = {1.3, 0.7, 1};
    xpb_tune_drift d;
    CHECK(!drift_of(same, &d) && !d.found);
    CHECK(!drift_of(within, &d) && !d.found); /* inside compare's 5% band */
    CHECK(drift_of(slow, &d) && d.found && d.outcome == XPB_VERDICT_SLOWER);
    CHECK_NEAR(d.time_ratio, 1.3, 1e-6);
    CHECK(strstr(d.why, "run 2 read 30.0% slower than its run 1") && strstr(d.why, "no candidate chosen"));
    CHECK(drift_of(fast, &d) && d.outcome == XPB_VERDICT_FASTER && strstr(d.why, "30.0% faster"));
    CHECK(drift_of(one_slow, &d) && d.outcome == XPB_VERDICT_SLOWER); /* one case of three is enough */
    /* shifts both ways are no drift of the whole base: the candidates' rule, both ways (their
     * pooled runs carry that spread into every candidate's band) */
    CHECK(!drift_of(mixed, &d));
}

/* A drift keeps the base, however fast a candidate read; without one the lowest geometric mean
 * of the candidates judged faster wins. */
static void test_choose(void)
{
    static xpb_tune_knob k;
    memset(&k, 0, sizeof k);
    k.n = 3;
    k.cand[0].outcome = XPB_TUNE_FASTER, k.cand[0].geomean = 0.9;
    k.cand[1].outcome = XPB_TUNE_FASTER, k.cand[1].geomean = 0.8;
    k.cand[2].outcome = XPB_TUNE_NOT_FASTER, k.cand[2].geomean = 0.7;
    CHECK(xpb_tune_choose(&k) == 1);
    static const double slow[3] = {1.3, 1.3, 1.3};
    CHECK(drift_of(slow, &k.drift));
    CHECK(xpb_tune_choose(&k) == -1);
    k.drift.found = false;
    k.cand[0].outcome = k.cand[1].outcome = XPB_TUNE_NOT_FASTER;
    CHECK(xpb_tune_choose(&k) == -1);
}

int main(void)
{
    test_order();
    test_drift();
    test_choose();
    XPB_TEST_END();
}
