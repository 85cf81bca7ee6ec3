/* test_clock_wait.c - XPB_WARMUP_CLOCK_S's wait (harness/run/xpb_clock_wait.c) against a simulated
 * GPU: a clock that climbs while launches run and a time that only launches and readings move.
 * The rules: a clock already up, or a throttled GPU, is not waited for and adds nothing; a low one
 * is waited for in slices of XPB_CLOCK_WAIT_SLICE_S with a reading between slices (never a
 * reading a launch: that idled the GPU), until it is back or the cap runs out (then stays_low);
 * a launch's error ends the wait and is returned. */
#include "xpb_clock_wait.h"
#include "xpb_test.h"

typedef struct sim {
    double t;            /* seconds */
    double mhz;          /* the clock now */
    double climb;        /* MHz gained a second of launches */
    bool throttled;      /* a slowdown reason active */
    int readings, slices;
    xpb_status fail_at;  /* launch_until's status from slice fail_slice on */
    int fail_slice;
} sim;

static bool sim_read(void *u, double *mhz, bool *throttled)
{
    sim *s = u;
    s->readings++;
    s->t += 0.002; /* a reading costs milliseconds */
    *mhz = s->mhz;
    *throttled = s->throttled;
    return true;
}

static xpb_status sim_launch_until(void *u, double until, xpb_error *err)
{
    sim *s = u;
    if (++s->slices >= s->fail_slice && s->fail_at)
        return xpb_fail(err, s->fail_at, "launch failed");
    CHECK(until > s->t && until - s->t <= XPB_CLOCK_WAIT_SLICE_S + 1e-12);
    s->mhz += s->climb * (until - s->t);
    s->t = until;
    return XPB_OK;
}

static double sim_now(void *u) { return ((sim *)u)->t; }

static xpb_clock_wait_outcome wait_on(sim *s, double cap, xpb_status *st)
{
    xpb_clock_wait_io io = {s, sim_read, sim_launch_until, sim_now};
    xpb_clock_wait_outcome w;
    xpb_error err = {{0}};
    *st = xpb_clock_wait(&io, cap, 1980, &w, &err);
    return w;
}

int main(void)
{
    xpb_status st;
    /* the clock up: one reading, no launch, nothing added */
    sim up = {.mhz = 1980};
    xpb_clock_wait_outcome w = wait_on(&up, 3, &st);
    CHECK(st == XPB_OK && up.readings == 1 && up.slices == 0 && w.waited_s == 0 && !w.stays_low);
    /* 89.9% of the peak is low, 90% is up */
    sim edge = {.mhz = 0.9 * 1980};
    w = wait_on(&edge, 3, &st);
    CHECK(edge.slices == 0 && w.waited_s == 0);
    /* low, climbing 3000 MHz a second from 600: back after about 0.4 s of launches, in slices */
    sim low = {.mhz = 600, .climb = 3000};
    w = wait_on(&low, 3, &st);
    CHECK(st == XPB_OK && !w.stays_low && low.mhz >= 0.9 * 1980);
    CHECK(low.slices == 4 && low.readings == 5); /* a reading between slices, not a launch */
    CHECK(w.waited_s > 0.4 && w.waited_s < 0.42);
    CHECK(w.last_mhz == low.mhz);
    /* throttled (power cap, thermal): not waited for */
    sim hot = {.mhz = 1200, .climb = 3000, .throttled = true};
    w = wait_on(&hot, 3, &st);
    CHECK(hot.slices == 0 && w.waited_s == 0 && !w.stays_low);
    /* never climbs: waits the cap (0.35 s: slices of 0.1, 0.1, 0.1, 0.05), then stays_low */
    sim flat = {.mhz = 800};
    w = wait_on(&flat, 0.35, &st);
    CHECK(st == XPB_OK && w.stays_low && flat.slices == 4);
    CHECK(w.waited_s >= 0.35 && w.waited_s < 0.36);
    CHECK(w.last_mhz == 800);
    /* a launch that fails ends the wait with its error */
    sim broken = {.mhz = 600, .climb = 1, .fail_at = XPB_ERR_RUNTIME, .fail_slice = 2};
    w = wait_on(&broken, 3, &st);
    CHECK(st == XPB_ERR_RUNTIME && !w.stays_low && broken.slices == 2);
    /* a clock that cannot be read: nothing waited for */
    sim none = {.mhz = 0};
    w = wait_on(&none, 3, &st);
    CHECK(st == XPB_OK && none.slices == 0 && w.waited_s == 0);
    XPB_TEST_END();
}
