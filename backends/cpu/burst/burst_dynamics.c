/* burst_dynamics.c - burst dynamics on the CPU (xpb_ops.h): stimulus plus the neuron update of
 * docs/workloads.md section 4, steps a-g, per neuron over the team. The fp32 steps must stay
 * uncontracted (one rounding per operation, as the contract pins), so this file is compiled with
 * -ffp-contract=off (CMakeLists.txt) unlike the rest of the backend. */
#include "cpu_burst.h"
#include "burst/burst_hash.h"

void xpb_cpu_burst_dynamics(const xpb_cpu_burst *k, const xpb_burst_args *a, uint32_t b)
{
    const int64_t n = k->n;
    const float scale = a->scale;
#pragma omp parallel for schedule(static) if (n >= XPB_CPU_PARALLEL_MIN)
    for (int64_t ii = 0; ii < n; ii++) {
        const uint32_t i = (uint32_t)ii;
        int32_t in = k->input[i] + (burst_stimulus_draw(i, b) < a->stim_floor ? a->stim : 0);
        k->input[i] = 0;
        k->fired_flag[i] = 0;
        const uint32_t limit = k->fire_limit[i];
        uint32_t count = k->count[i];
        if (k->countdown[i] > 0) { /* a: refractory; neither integrates nor leaks */
            uint32_t left = --k->countdown[i];
            if (left == 0 && limit > 0 && count >= limit)
                k->count[i] = 0;
            continue;
        }
        float f = (float)in; /* b */
        f = f * scale;
        float v = k->v[i] + f;
        const float tl = k->threshold_limit[i];
        bool fire = false;
        if (k->threshold[i] <= v && (tl == 0.0f || v <= tl)) { /* c */
            if (limit > 0 && count >= limit) {                  /* d */
                count = 0;
            } else {                                            /* e */
                const float ex = k->excitability[i];
                fire = ex >= 0.999f ||
                       (ex > 0.0f && (double)burst_excitability_draw(i, b) < (double)ex * 4294967296.0);
            }
        }
        if (fire) { /* f */
            count += 1;
            k->v[i] = 0.0f;
            k->count[i] = count;
            k->countdown[i] = k->refractory[i] + (limit > 0 && count >= limit ? k->snooze[i] : 0u);
            k->fired_flag[i] = 1;
        } else { /* g */
            k->count[i] = limit > 0 ? 0u : count;
            const float keep = 1.0f - k->leak[i];
            k->v[i] = v * keep;
        }
    }
}

static xpb_status launch(void *ctx, const void *args, void *state, xpb_error *err)
{
    (void)ctx, (void)state;
    const xpb_burst_args *a = args;
    xpb_cpu_burst k;
    xpb_status st = xpb_cpu_burst_resolve(a, 0, &k, err);
    if (!st)
        xpb_cpu_burst_dynamics(&k, a, a->burst);
    return st;
}

const xpb_kernel xpb_cpu_burst_dynamics_kernel = {
    .op = XPB_OP_BURST_DYNAMICS,
    .variant = "default",
    .precision = "exact",
    .launch = launch,
};
