/* test_batch.c - how many launches a timed sample holds (xpb_runner_batch): enough for the
 * sample's least time, at least one on one device and at least 20 on a device group (nccl-tests'
 * -n 20, so the skew between the ranks' starts is spread over 20 collectives) unless fewer span
 * 50 ms, at most 1000;
 * --sample-min overrides the time. */
#include "xpb_runner.h"
#include "xpb_test.h"

int main(void)
{
    xpb_device one = {0}, group = {0};
    group.n_group = 4;
    CHECK(xpb_runner_batch(&one, 0, 1e-6) == 200);     /* 200 us of 1 us launches */
    CHECK(xpb_runner_batch(&one, 0, 1e-3) == 1);       /* a launch longer than the target */
    CHECK(xpb_runner_batch(&one, 0, 30e-6) == 7);      /* ceil(200 / 30) */
    CHECK(xpb_runner_batch(&one, 0, 0) == 1000);       /* no time measured: the cap */
    CHECK(xpb_runner_batch(&one, 0, 1e-9) == 1000);    /* never more than 1000 */
    CHECK(xpb_runner_batch(&group, 0, 10e-6) == 200);  /* 2 ms of 10 us collectives */
    CHECK(xpb_runner_batch(&group, 0, 100e-6) == 20);  /* 2 ms of 100 us: 20, the least */
    CHECK(xpb_runner_batch(&group, 0, 2.5e-3) == 20);  /* 20 launches span 50 ms: still 20 */
    CHECK(xpb_runner_batch(&group, 0, 8e-3) == 7);     /* a 1 GiB all_reduce: 7 span 56 ms */
    CHECK(xpb_runner_batch(&group, 0, 50e-3) == 1);    /* an 8 GiB one: one launch is 50 ms */
    CHECK(xpb_runner_batch(&group, 0, 0.2) == 1);
    CHECK(xpb_runner_batch(&one, 1e-2, 1e-3) == 10);   /* --sample-min 0.01 */
    CHECK(xpb_runner_batch(&group, 1e-2, 1e-4) == 100);
    /* refined from a sample of the batch: 45 group launches in 0.54 ms (12 us each) -> 167 */
    CHECK(xpb_runner_batch_refine(&group, 0, 45, 0.54e-3) == 167);
    CHECK(xpb_runner_batch_refine(&group, 0, 45, 2.5e-3) == 45);  /* the sample met its target */
    CHECK(xpb_runner_batch_refine(&one, 0, 7, 7 * 30e-6) == 7);    /* no overlap: the same batch */
    CHECK(xpb_runner_batch_refine(&one, 0, 20, 20e-6) == 200);     /* 1 us launches, not 10 */
    CHECK(xpb_runner_batch_refine(&one, 0, 1000, 1e-4) == 1000);   /* the cap holds */
    CHECK(xpb_runner_batch_refine(&one, 0, 5, 0) == 5);            /* no time: unchanged */
    CHECK(xpb_runner_batch_refine(&one, 1e-2, 10, 1e-3) == 100);   /* --sample-min 0.01 */
    XPB_TEST_END();
}
