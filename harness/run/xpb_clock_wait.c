/* xpb_clock_wait.c - XPB_WARMUP_CLOCK_S's wait for a GPU's clock (xpb_clock_wait.h). */
#include "xpb_clock_wait.h"

#include <math.h>

xpb_status xpb_clock_wait(const xpb_clock_wait_io *io, double cap_s, double peak_mhz, xpb_clock_wait_outcome *out,
                          xpb_error *err)
{
    *out = (xpb_clock_wait_outcome){0, false, 0};
    const double t0 = io->now(io->user);
    bool waited = false; /* a reading that finds the clock up adds nothing */
    xpb_status st = XPB_OK;
    while (!st) {
        double mhz = 0;
        bool throttled = false;
        if (!io->read(io->user, &mhz, &throttled) || mhz <= 0)
            break;
        out->last_mhz = mhz;
        if (mhz >= XPB_CLOCK_WAIT_FRACTION * peak_mhz || throttled)
            break;
        const double t = io->now(io->user);
        if (t - t0 >= cap_s) {
            out->stays_low = true;
            break;
        }
        waited = true;
        st = io->launch_until(io->user, fmin(t + XPB_CLOCK_WAIT_SLICE_S, t0 + cap_s), err);
    }
    if (waited)
        out->waited_s = io->now(io->user) - t0;
    return st;
}
