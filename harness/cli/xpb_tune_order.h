/* xpb_tune_order.h - order effects in a knob's sweep (docs/tuning.md, "Order"): the first timed
 * run of a tune can read slow (a GPU idle until then, a first process), and a side that always
 * runs first or last carries whatever drifts during the sweep. So the runs go in alternating
 * order (ABBA), after a discarded warm-up (xpb_tune_sweep.c), and the base, run early and late,
 * is judged against itself: when it differs beyond the noise, no candidate is chosen. */
#ifndef XPB_TUNE_ORDER_H
#define XPB_TUNE_ORDER_H

#include "xpb_tune.h"

/* The side that takes position pos (0..n) of run r among the base and n candidates: -1 for the
 * base, else the candidate's index. Even runs go base, c0..c(n-1); odd runs the reverse,
 * c(n-1)..c0, base: with two runs every side sits once early and once late. */
int xpb_tune_order_side(int r, int pos, int n);

/* The base's A/A check: its last run (`last`) judged against its first (`first`) by
 * xpb_tune_judge on every case, both ways. When the last run is `faster` than the first by the
 * candidates' rule, or the first than the last (the last `slower`), fills *d (found, outcome,
 * time_ratio: the geometric mean of last/first, why) and returns true; else returns false with
 * d->found false (the same, noisy, or not comparable). */
bool xpb_tune_base_drift(const xpb_compare_opts *opts, const xpb_results_file *first, const xpb_results_file *last,
                         int last_run, xpb_tune_drift *d);

#endif
