/* xpb_clock_wait.h - XPB_WARMUP_CLOCK_S's wait for a GPU's clock after a round's warm-up
 * (docs/reports.md, "Rounds that drift"): launches back to back in slices while the SM clock
 * reads low, the clock read between slices. Apart from the runner so that its rules can be
 * tested without a GPU (tests/unit/test_clock_wait.c): the runner passes NVML's readings and its
 * own launches. */
#ifndef XPB_CLOCK_WAIT_H
#define XPB_CLOCK_WAIT_H

#include <stdbool.h>

#include "xpb_status.h"

/* Launches go in slices of this many seconds between readings: a reading costs milliseconds
 * (NVML's power reading among them), and reading after every launch left the GPU idle most of
 * the time, so NVIDIA's driver stepped the clock further down (an H200: 5 s of that held the
 * copy at 360 of 1980 MHz; slices brought it back in 0.2 - 0.4 s a case,
 * results/h200/2026-11-29-s27-warmup-clock.txt). */
#define XPB_CLOCK_WAIT_SLICE_S 0.1
/* The clock counts as back at this fraction of the highest read after an earlier timed round. */
#define XPB_CLOCK_WAIT_FRACTION 0.9

typedef struct xpb_clock_wait_io {
    void *user;
    /* The SM clock now (MHz) and whether a slowdown reason (power cap, thermal) is active; false
     * when it cannot be read (then nothing is waited for). */
    bool (*read)(void *user, double *sm_mhz, bool *throttled);
    /* Launches back to back until now() reaches `until`. */
    xpb_status (*launch_until)(void *user, double until, xpb_error *err);
    double (*now)(void *user); /* seconds, any origin */
} xpb_clock_wait_io;

typedef struct xpb_clock_wait_outcome {
    double waited_s; /* seconds from the first reading to the last, where any slice ran; else 0 */
    bool stays_low;  /* the clock was still low when cap_s ran out: not worth waiting for again */
    double last_mhz; /* the last reading (0 where none) */
} xpb_clock_wait_outcome;

/* Waits up to cap_s seconds while the SM clock reads under XPB_CLOCK_WAIT_FRACTION of peak_mhz
 * and no slowdown reason is active (a throttled GPU is not helped by waiting). A launch's error
 * ends the wait and is returned. */
xpb_status xpb_clock_wait(const xpb_clock_wait_io *io, double cap_s, double peak_mhz, xpb_clock_wait_outcome *out,
                          xpb_error *err);

#endif
