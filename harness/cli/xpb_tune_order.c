/* xpb_tune_order.c - the order of a knob's runs and the base's A/A drift check (xpb_tune_order.h). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xpb_tune_order.h"

int xpb_tune_order_side(int r, int pos, int n)
{
    return r % 2 ? n - 1 - pos : pos - 1;
}

bool xpb_tune_base_drift(const xpb_compare_opts *opts, const xpb_results_file *first, const xpb_results_file *last,
                         int last_run, xpb_tune_drift *d)
{
    xpb_tune_candidate later, earlier; /* the last run as a candidate against the first, and back */
    memset(d, 0, sizeof *d);
    memset(&later, 0, sizeof later);
    memset(&earlier, 0, sizeof earlier);
    d->time_ratio = NAN;
    xpb_tune_judge(opts, first, last, NULL, &later);
    xpb_tune_judge(opts, last, first, NULL, &earlier);
    /* both cannot win: the second's ratios are the first's inverted */
    if (later.outcome != XPB_TUNE_FASTER && earlier.outcome != XPB_TUNE_FASTER)
        return false;
    d->found = true;
    d->outcome = later.outcome == XPB_TUNE_FASTER ? XPB_VERDICT_FASTER : XPB_VERDICT_SLOWER;
    d->time_ratio = later.geomean;
    snprintf(d->why, sizeof d->why, "the base's run %d read %.1f%% %s than its run 1 (%.280s): no candidate chosen",
             last_run, fabs(later.geomean - 1) * 100, xpb_verdict_name(d->outcome), later.why);
    return true;
}
