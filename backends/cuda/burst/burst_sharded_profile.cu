/* burst_sharded_profile.cu - the phase profile of the sharded burst (burst_sharded_profile.h). */
#include "burst_sharded_profile.h"

#include "cuda_backend.h"
#include "xpb_knob.h"

#include <cstdio>
#include <mutex>
#include <vector>

#define PROF_RANKS 8

namespace {
struct pending {
    int device;
    cudaEvent_t ev[XPB_SHARDED_PROF_MARKS];
    int marked; /* marks recorded so far in this burst */
};
std::mutex lock;
std::vector<pending> bursts[PROF_RANKS]; /* per local rank, the bursts not yet collected */
double sum_ms[PROF_RANKS][XPB_SHARDED_PROF_MARKS];
long counted[PROF_RANKS];
} // namespace

xpb_status xpb_sharded_prof_enabled(bool *on, xpb_error *err)
{
    int v = 0;
    const xpb_status st = xpb_knob_get_choice(XPB_KNOB_CUDA_SHARDED_PROFILE, &v, err);
    *on = v == 1;
    return st;
}

xpb_status xpb_sharded_prof_mark(int l, int device, cudaStream_t s, int mark, xpb_error *err)
{
    if (l < 0 || l >= PROF_RANKS)
        return XPB_OK; /* more ranks in a process than profiled: the first PROF_RANKS are */
    std::lock_guard<std::mutex> hold(lock);
    if (mark == XPB_SHARDED_PROF_START)
        bursts[l].push_back(pending{device, {}, 0});
    if (bursts[l].empty())
        return xpb_fail(err, XPB_ERR_RUNTIME, "burst/sharded profile: mark %d before the burst's start", mark);
    pending &b = bursts[l].back();
    XPB_CUDA_CHECK(err, cudaSetDevice(device)); /* an event belongs to the device current at its creation */
    XPB_CUDA_CHECK(err, cudaEventCreate(&b.ev[mark]));
    b.marked = mark + 1;
    XPB_CUDA_CHECK(err, cudaEventRecord(b.ev[mark], s));
    return XPB_OK;
}

xpb_status xpb_sharded_prof_collect(xpb_error *err)
{
    std::lock_guard<std::mutex> hold(lock);
    xpb_status st = XPB_OK;
    for (int l = 0; l < PROF_RANKS; l++) {
        for (pending &b : bursts[l]) {
            if (st == XPB_OK && cudaSetDevice(b.device) != cudaSuccess)
                st = xpb_fail(err, XPB_ERR_RUNTIME, "burst/sharded profile: cudaSetDevice(%d) failed", b.device);
            if (st == XPB_OK && b.marked == XPB_SHARDED_PROF_MARKS) {
                const cudaError_t ce = cudaEventSynchronize(b.ev[XPB_SHARDED_PROF_MARKS - 1]);
                if (ce != cudaSuccess)
                    st = xpb_cuda_fail(err, ce, "cudaEventSynchronize(burst/sharded profile)", __FILE__, __LINE__);
                for (int m = 1; m < XPB_SHARDED_PROF_MARKS && st == XPB_OK; m++) {
                    float ms = 0;
                    const cudaError_t ee = cudaEventElapsedTime(&ms, b.ev[m - 1], b.ev[m]);
                    if (ee != cudaSuccess)
                        st = xpb_cuda_fail(err, ee, "cudaEventElapsedTime(burst/sharded profile)", __FILE__, __LINE__);
                    sum_ms[l][m] += ms;
                }
                counted[l] += st == XPB_OK;
            }
            for (int m = 0; m < b.marked; m++)
                (void)cudaEventDestroy(b.ev[m]);
        }
        bursts[l].clear();
    }
    return st;
}

void xpb_sharded_prof_report(int first_rank)
{
    static const char *const names[XPB_SHARDED_PROF_MARKS] = {"", "propagate", "dynamics", "all_gather", "compact"};
    std::lock_guard<std::mutex> hold(lock);
    for (int l = 0; l < PROF_RANKS; l++) {
        if (counted[l] == 0)
            continue;
        double total = 0;
        fprintf(stderr, "burst/sharded profile: rank %d, %ld bursts, us a burst:", first_rank + l, counted[l]);
        for (int m = 1; m < XPB_SHARDED_PROF_MARKS; m++) {
            fprintf(stderr, " %s %.1f", names[m], 1e3 * sum_ms[l][m] / (double)counted[l]);
            total += sum_ms[l][m];
        }
        fprintf(stderr, ", total %.1f\n", 1e3 * total / (double)counted[l]);
        for (int m = 0; m < XPB_SHARDED_PROF_MARKS; m++)
            sum_ms[l][m] = 0;
        counted[l] = 0;
    }
}
