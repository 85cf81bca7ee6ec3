/* burst_sharded_profile.h - where a sharded burst's time goes, without a profiler on the machine
 * (XPB_CUDA_SHARDED_PROFILE=1, docs/knobs.md): events recorded on each rank's stream between the
 * phases of every burst (propagate, dynamics, all_gather, compact), read after each launch, their
 * mean a burst printed to stderr when the group closes. An interval holds the phase's device time
 * plus any wait before it: the GPU idle while the host issues the next launch shows up in the
 * phase that follows, and all_gather holds the wait for the slowest rank. Profiling makes each
 * launch wait for its events, so the run's own timings are not the op's speed then. */
#ifndef XPB_BURST_SHARDED_PROFILE_H
#define XPB_BURST_SHARDED_PROFILE_H

#include <cuda_runtime.h>

#include "xpb_status.h"

enum { XPB_SHARDED_PROF_START, XPB_SHARDED_PROF_PROPAGATE, XPB_SHARDED_PROF_DYNAMICS, XPB_SHARDED_PROF_GATHER,
       XPB_SHARDED_PROF_COMPACT, XPB_SHARDED_PROF_MARKS };

/* Whether the knob asks for it (XPB_ERR_USAGE on a bad value). */
xpb_status xpb_sharded_prof_enabled(bool *on, xpb_error *err);

/* Mark `mark` of the current burst on local rank l (device `device`, its stream s). */
xpb_status xpb_sharded_prof_mark(int l, int device, cudaStream_t s, int mark, xpb_error *err);

/* Waits for the marks recorded since the last call and adds their intervals to the sums. */
xpb_status xpb_sharded_prof_collect(xpb_error *err);

/* Prints the mean intervals a burst per rank (rank numbers `first` + l) and clears the sums. */
void xpb_sharded_prof_report(int first_rank);

#endif
