/* xpb_runner.c - the case runner: for each case and each device and kernel variant,
 * allocate guarded buffers, upload, poison, launch, validate, then time, check the timed
 * launches' output and recheck with inputs from a fresh seed (xpb_runner.h). */
#include "xpb_runner_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gbench_shim.h"
#include "xpb_clock.h"
#include "xpb_clock_wait.h"
#include "xpb_dump.h"
#include "xpb_host_arena.h"
#include "xpb_isolate.h"
#include "xpb_knob.h"
#include "xpb_mpi.h"
#include "xpb_poison.h"
#include "xpb_power.h"
#include "xpb_progress.h"
#include "xpb_sysinfo.h"

#define G XPB_GUARD_BYTES
#define MAX_VARIANTS 16

/* ---- buffers of one case on one device ---------------------------------------------------------- */

/* The host copy of every case's output, reused from case to case of a run (xpb_host_arena.c says
 * why); the runner runs one case at a time, and xpb_runner_run frees it at the end. */
static xpb_host_arena out_arena;

static void buffers_free(xpb_case_buffers *cb)
{
    const xpb_backend_i *b = cb->dev->backend;
    for (int i = 0; i < XPB_MAX_ARRAYS; i++) {
        if (cb->in[i])
            b->buffer_free(cb->dev->ctx, cb->in[i]);
        if (cb->out[i])
            b->buffer_free(cb->dev->ctx, cb->out[i]);
    }
    memset(cb, 0, sizeof *cb); /* out_host stays in out_arena for the next case */
}

xpb_status xpb_runner_upload_inputs(xpb_case_buffers *cb, const xpb_case *c, xpb_error *err)
{
    const xpb_backend_i *b = cb->dev->backend;
    for (int i = 0; i < cb->data->n_in; i++) {
        /* a group's rank that reads only its part of an input gets only that part */
        size_t part = cb->dev->n_group && b->buffer_upload_parts && c->workload->input_rank_part
                          ? c->workload->input_rank_part(c, i) : 0;
        xpb_status st = part ? b->buffer_upload_parts(cb->dev->ctx, cb->in[i], G, cb->data->in[i],
                                                      cb->data->in_bytes[i], part, err)
                             : b->buffer_upload(cb->dev->ctx, cb->in[i], G, cb->data->in[i], cb->data->in_bytes[i], err);
        if (st)
            return st;
    }
    return XPB_OK;
}

/* Fills every output, guards included, with the poison pattern: every byte of it, so an element
 * that the kernel does not write is caught whichever part of the array it is in. */
xpb_status xpb_runner_poison_outputs(xpb_case_buffers *cb, xpb_error *err)
{
    xpb_status st = XPB_OK;
    for (int i = 0; i < cb->data->n_out && !st; i++)
        st = xpb_poison_buffer(cb->dev, cb->out[i], cb->data->out_bytes[i] + 2 * G, err);
    return st;
}

static xpb_status buffers_alloc(xpb_case_buffers *cb, xpb_error *err)
{
    const xpb_backend_i *b = cb->dev->backend;
    const xpb_case_data *d = cb->data;
    xpb_status st = XPB_OK;
    for (int i = 0; i < d->n_in && !st; i++) {
        st = b->buffer_alloc(cb->dev->ctx, d->in_bytes[i] + 2 * G, &cb->in[i], err);
        cb->in_view[i] = (xpb_view){cb->in[i], G};
    }
    for (int i = 0; i < d->n_out && !st; i++) {
        st = b->buffer_alloc(cb->dev->ctx, d->out_bytes[i] + 2 * G, &cb->out[i], err);
        cb->out_view[i] = (xpb_view){cb->out[i], G};
    }
    if (!st && !(cb->out_host = xpb_host_arena_get(&out_arena, d->out_bytes[0] + 2 * G)))
        st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for the output copy");
    return st;
}

/* ---- checks before running ----------------------------------------------------------------------- */

/* Returns XPB_ERR_UNSUPPORTED (device limit) or XPB_ERR_OUT_OF_MEMORY (will not fit) with why. */
static xpb_status check_fits(const xpb_device *dev, const xpb_case_data *d, xpb_error *why)
{
    uint64_t total = 0, largest = 0;
    for (int i = 0; i < d->n_in; i++) {
        total += d->in_bytes[i] + 2 * G;
        largest = d->in_bytes[i] > largest ? d->in_bytes[i] : largest;
    }
    for (int i = 0; i < d->n_out; i++) {
        total += d->out_bytes[i] + 2 * G;
        largest = d->out_bytes[i] > largest ? d->out_bytes[i] : largest;
    }
    uint64_t lim = dev->info.max_buffer_bytes;
    if (lim && largest + 2 * G > lim)
        return xpb_fail(why, XPB_ERR_UNSUPPORTED,
                        "needs a %.1f MiB buffer; this device binds at most %.1f MiB per buffer "
                        "(maxStorageBufferRange)", (double)(largest + 2 * G) / 1048576.0,
                        (double)lim / 1048576.0);
    if (dev->info.memory_bytes && total > dev->info.memory_bytes / 10 * 9)
        return xpb_fail(why, XPB_ERR_OUT_OF_MEMORY,
                        "needs %.2f GiB of device memory; %s has %.2f GiB", (double)total / 1073741824.0,
                        dev->label, (double)dev->info.memory_bytes / 1073741824.0);
    return XPB_OK;
}

/* ---- timing ------------------------------------------------------------------------------------- */

/* A timed sample spans back-to-back launches worth at least this much device time
 * (run --sample-min), so the host's launch latency (CUDA ~4 us, Vulkan submit ~45 us) is not
 * counted in short kernels. On a device group a sample is as nccl-tests times one: at least
 * GROUP_MIN_LAUNCHES launches (its -n 20) and GROUP_SAMPLE_TARGET_S, because each rank's timer
 * starts when its own launch is queued: the skew between the ranks' starts (tens of us) and the
 * launch cost would otherwise count in every collective of 100 us. Fewer launches do where they
 * already span GROUP_LONG_SAMPLE_S: there the skew is under a thousandth of the sample, and 20
 * launches of an 8 GiB all_reduce (~50 ms each) made every sample a second long, most of a full
 * sweep's top sizes (docs/multi-gpu.md). */
#define SAMPLE_TARGET_S 200e-6
#define GROUP_SAMPLE_TARGET_S 2e-3
#define GROUP_MIN_LAUNCHES 20
#define GROUP_LONG_SAMPLE_S 50e-3
#define MAX_LAUNCHES_PER_SAMPLE 1000
/* Launches this slow get one warm-up launch and one end-to-end iteration. */
#define SLOW_LAUNCH_S 0.5

typedef struct launch_ctx {
    xpb_device *dev;
    const xpb_kernel *k;
    const void *args;
    void *state;
    int batch;    /* launches per timed sample */
    int extra;    /* XPB_SLOWDOWN (xpb_runner.h): extra launches in every sample, 0 normally */
    void *graph;  /* run --graph: the batch captured (xpb_backend_i.capture_begin), or NULL */
} launch_ctx;

/* One timed sample: `batch` launches between the device timer's marks; returns the sample's
 * time (the caller divides by the batch). */
static xpb_status timed_launch(void *user, double *seconds, xpb_error *err)
{
    launch_ctx *l = user;
    const xpb_backend_i *b = l->dev->backend;
    xpb_status st = b->timer_begin(l->dev->ctx, err);
    if (l->graph && !st)
        st = b->graph_launch(l->dev->ctx, l->graph, err);
    if (!l->graph && b->launch_n && !st)
        st = b->launch_n(l->dev->ctx, l->k, l->args, l->state, l->batch + l->extra, err);
    for (int i = 0; !l->graph && !b->launch_n && i < l->batch + l->extra && !st; i++)
        st = l->k->launch(l->dev->ctx, l->args, l->state, err);
    if (!st)
        st = b->timer_end(l->dev->ctx, seconds, err);
    return st;
}

/* run --graph: the sample's batch of launches captured once, to be replayed by one launch. */
static xpb_status capture(launch_ctx *l, xpb_error *err)
{
    const xpb_backend_i *b = l->dev->backend;
    if (!b->capture_begin)
        return xpb_fail(err, XPB_ERR_UNSUPPORTED, "--graph: the %s backend has no graphs (cuda has: CUDA graphs)",
                        b->name);
    if (l->extra)
        return xpb_fail(err, XPB_ERR_USAGE, "--graph with XPB_SLOWDOWN: the slowdown's extra launches are not captured");
    xpb_status st = b->capture_begin(l->dev->ctx, err);
    for (int i = 0; i < l->batch && !st; i++)
        st = l->k->launch(l->dev->ctx, l->args, l->state, err);
    void *g = NULL;
    xpb_status end = b->capture_end(l->dev->ctx, &g, st ? NULL : err); /* always: no stream left capturing */
    if (st) {
        if (g)
            b->graph_free(l->dev->ctx, g);
        return st;
    }
    l->graph = g;
    return end;
}

/* A sample's least device time on dev: sample_min (--sample-min), else the device's default. */
static double sample_target(const xpb_device *dev, double sample_min)
{
    return sample_min > 0 ? sample_min : dev->n_group > 0 ? GROUP_SAMPLE_TARGET_S : SAMPLE_TARGET_S;
}

/* Launches per timed sample for launches of `best` seconds on dev: the sample's target over
 * best, at least 1 (a device group: GROUP_MIN_LAUNCHES, or as many as span GROUP_LONG_SAMPLE_S
 * where that is fewer), at most MAX_LAUNCHES_PER_SAMPLE. */
int xpb_runner_batch(const xpb_device *dev, double sample_min, double best)
{
    double target = sample_target(dev, sample_min);
    int least = 1;
    if (dev->n_group > 0) {
        least = GROUP_MIN_LAUNCHES;
        if (best > 0 && best * GROUP_MIN_LAUNCHES > GROUP_LONG_SAMPLE_S)
            least = (int)ceil(GROUP_LONG_SAMPLE_S / best - 1e-9);
    }
    double want = best > 0 ? target / best : MAX_LAUNCHES_PER_SAMPLE;
    /* ceil, less the last bits' rounding: 200 us over launches of 1 us is 200, not 201 */
    int batch = want >= MAX_LAUNCHES_PER_SAMPLE ? MAX_LAUNCHES_PER_SAMPLE : (int)ceil(want - 1e-9);
    return batch < least ? least : batch;
}

int xpb_runner_batch_refine(const xpb_device *dev, double sample_min, int batch, double sample_s)
{
    if (batch < 1 || sample_s <= 0 || sample_s >= sample_target(dev, sample_min))
        return batch;
    int again = xpb_runner_batch(dev, sample_min, sample_s / batch);
    return again > batch ? again : batch;
}

/* Untimed launches for `seconds` (at least 3), then sizes the batch from the fastest of them, then
 * from one sample of that batch (twice at most): a lone launch's time holds what back-to-back
 * launches overlap (the launch itself; a group's threads being handed the job), so the batch it
 * gives fell short of the sample's target (4 x H200, one thread a rank: 45 all_to_all launches of
 * 12 us, a 0.54 ms sample against the 2 ms target, the per-sample cost paid four times as often). */
static xpb_status warm_up(launch_ctx *l, double seconds, double sample_min, xpb_error *err)
{
    double t0 = xpb_clock_now(), dt, best = 1e30;
    int iters = 0;
    l->batch = 1;
    do {
        xpb_status st = timed_launch(l, &dt, err);
        if (st)
            return st;
        best = dt < best ? dt : best; /* batch is 1 during warm-up: dt is one launch */
        iters++;
        /* a launch of half a second or more is warm after one (a software device, a huge case) */
        /* under MPI every process must make the same launches: one more while any process wants one */
    } while (xpb_mpi_any((iters < 3 && best < SLOW_LAUNCH_S) || (xpb_clock_now() - t0 < seconds && iters < 1000)));
    /* under MPI every process must make the same launches: the largest batch any process wants */
    l->batch = xpb_mpi_max_int(xpb_runner_batch(l->dev, sample_min, best));
    const bool slow = xpb_mpi_any(best >= SLOW_LAUNCH_S); /* the same answer on every process */
    for (int refine = 0; refine < 2 && !slow; refine++) {
        xpb_status st = timed_launch(l, &dt, err);
        if (st)
            return st;
        /* l->extra (XPB_SLOWDOWN) is set after the warm-up: the sample was l->batch launches */
        int again = xpb_mpi_max_int(xpb_runner_batch_refine(l->dev, sample_min, l->batch, dt));
        if (again <= l->batch) /* the same on every process: batch and again are the largest */
            break;
        l->batch = again;
    }
    return XPB_OK;
}

/* XPB_WARMUP_CLOCK_S (docs/reports.md, "Rounds that drift"; default 3 s, 0 turns it off): after
 * the warm-up, more untimed launches while the SM clock reads low (xpb_clock_wait.h has the rules).
 * Why: a GPU idle between rounds (round 1's output check, a later round's fresh buffers and
 * upload) may come back slowly; NVIDIA's driver, for a Vulkan-only process, held an H200 at 600 of
 * 1980 MHz through the next two rounds after 50 ms of warm-up
 * (results/h200/2026-11-29-s26-vk-exps-once.txt). A device whose clock stays low through a whole
 * wait (a laptop's own limits) is named once and not waited for again. Not on device groups
 * (under MPI every process must make the same launches). The seconds added go into the result. */
static bool clock_read(void *user, double *sm_mhz, bool *throttled)
{
    launch_ctx *l = user;
    xpb_conditions now;
    xpb_error ignored;
    if (l->dev->backend->conditions(l->dev->ctx, &now, &ignored) != XPB_OK)
        return false;
    *sm_mhz = now.sm_mhz;
    *throttled = (now.reasons & XPB_REASONS_THROTTLE) != 0;
    return true;
}

static xpb_status launch_until(void *user, double until, xpb_error *err)
{
    double dt;
    xpb_status st;
    do
        st = timed_launch(user, &dt, err);
    while (!st && xpb_clock_now() < until);
    return st;
}

static double clock_now(void *user)
{
    (void)user;
    return xpb_clock_now();
}

static xpb_status warm_up_clock(launch_ctx *l, xpb_device *dev, xpb_result *r, xpb_error *err)
{
    double cap = 0;
    xpb_status st = xpb_knob_get_double(XPB_KNOB_WARMUP_CLOCK_S, &cap, err);
    if (st || cap <= 0 || dev->n_group || !dev->backend->conditions || dev->sm_peak_mhz <= 0 ||
        dev->clock_stays_low)
        return st;
    const xpb_clock_wait_io io = {l, clock_read, launch_until, clock_now};
    xpb_clock_wait_outcome w;
    st = xpb_clock_wait(&io, cap, dev->sm_peak_mhz, &w, err);
    r->warmup_clock_s += w.waited_s;
    if (w.stays_low) {
        dev->clock_stays_low = true;
        fprintf(stderr, "xpubench: %s: the SM clock stayed at %.0f MHz, under %.0f%% of the %.0f it read after a "
                        "timed round, through %.1f s of launches (XPB_WARMUP_CLOCK_S): not waited for again\n",
                dev->label, w.last_mhz, 100 * XPB_CLOCK_WAIT_FRACTION, dev->sm_peak_mhz, cap);
    }
    return st;
}

/* End to end, host clock: upload the inputs, launch, synchronize, download the output. */
static xpb_status measure_e2e(xpb_case_buffers *cb, launch_ctx *l, int iters, xpb_result *r,
                              xpb_error *err)
{
    const xpb_backend_i *b = cb->dev->backend;
    xpb_samples up = {0}, down = {0};
    xpb_status st = XPB_OK;
    for (int it = 0; it < iters && !st; it++) {
        double t0 = xpb_clock_now();
        st = xpb_runner_upload_inputs(cb, &r->c, err);
        double t1 = xpb_clock_now();
        if (!st)
            st = l->k->launch(cb->dev->ctx, l->args, l->state, err);
        if (!st)
            st = b->synchronize(cb->dev->ctx, err);
        double t2 = xpb_clock_now();
        bool local;
        size_t lo, hi;
        if (!st) /* under MPI each process reads its own rank's part, as one process a GPU would */
            st = xpb_runner_download_mine(cb, &local, &lo, &hi, err);
        double t3 = xpb_clock_now();
        if (!st && (xpb_samples_push(&r->e2e_samples, t3 - t0) || xpb_samples_push(&up, t1 - t0) ||
                    xpb_samples_push(&down, t3 - t2)))
            st = xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of memory for samples");
    }
    r->e2e = xpb_stats_compute(r->e2e_samples.v, r->e2e_samples.n);
    r->upload_s = xpb_stats_compute(up.v, up.n).median;
    r->download_s = xpb_stats_compute(down.v, down.n).median;
    xpb_samples_free(&up);
    xpb_samples_free(&down);
    return st;
}

/* ---- one case, one device, one kernel ------------------------------------------------------------- */

static void summarize_failure(xpb_result *r)
{
    xpb_validation_summary(&r->validation, r->message, sizeof r->message);
}

/* One round's timing: warm-up, then Google Benchmark with the device timer; its samples are
 * appended and their median is the round's unit. The first round also times end to end and
 * samples power. */
static xpb_status time_kernel(xpb_case_buffers *cb, const xpb_kernel *k, const xpb_case *c, const void *args,
                              void *state, const xpb_run_config *cfg, bool first, xpb_result *r, xpb_error *err)
{
    launch_ctx l = {cb->dev, k, args, state, 1, 0, NULL};
    double t_start = xpb_clock_now();
    /* a device group's later rounds follow its first on the same buffers (run_kernel): warm */
    double warmup = !first && cb->dev->n_group ? 0 : cfg->warmup_time;
    xpb_status st = warm_up(&l, warmup, cfg->sample_min, err);
    if (!st)
        st = warm_up_clock(&l, cb->dev, r, err);
    if (cfg->slowdown && regexec(&cfg->slowdown_re, c->id, 0, NULL, 0) == 0) {
        /* every sample slowed alike (a median ignores a few slow ones): a batch of a multiple of q
         * launches, q = 1/fraction, and one extra launch per q; per launch: 1 + 1/q */
        int q = (int)lround(1.0 / cfg->slowdown_fraction);
        l.batch = (l.batch + q - 1) / q * q;
        l.extra = l.batch / q;
    }
    if (!st && cfg->graph)
        st = capture(&l, err);
    /* The timed launches' own output is checked after them (docs/validation.md, "After timing"):
     * poisoned here, untimed and after the warm-up, so that what is read back is what the timed
     * launches wrote, not the validation launch's or the warm-up's. Every one-shot op is out of
     * place (xpb_ops.h: outputs are written from inputs alone, GEMM's C from its own c_in), so a
     * launch repeated on the same buffers must leave the same output as one launch. */
    bool check = first && !xpb_runner_after_timing_skip(cb->dev);
    double t_poison = xpb_clock_now();
    if (!st && check)
        st = xpb_runner_poison_outputs(cb, err);
    double poison_s = check ? xpb_clock_now() - t_poison : 0;
    r->phase.poison_s += poison_s;
    xpb_gbench_config gc = {cfg->repetitions, cfg->min_time, l.batch};
    if (first) {
        r->launches_per_sample = l.batch;
        r->graph = l.graph != NULL;
    }
    bool power = first && cfg->power;
    xpb_power_sampler sampler = {0};
    if (!st && power)
        xpb_power_start(&sampler, cb->dev);
    size_t from = r->kernel_samples.n;
    xpb_runner_read_conditions(cb->dev, r, true);
    const xpb_backend_i *b = cb->dev->backend;
    bool per_rank = first && cb->dev->n_group && b->group_rank_seconds;
    double rank_s[XPB_MAX_GROUP];
    if (per_rank) /* forget the warm-up's */
        (void)b->group_rank_seconds(cb->dev->ctx, rank_s, XPB_MAX_GROUP);
    if (!st)
        st = xpb_gbench_measure(c->id, timed_launch, &l, &gc, &r->kernel_samples, err);
    if (!st && per_rank) { /* each rank's own time per launch, beside the slowest's (the case's) */
        r->n_rank_s = b->group_rank_seconds(cb->dev->ctx, rank_s, XPB_MAX_GROUP);
        for (int i = 0; i < r->n_rank_s; i++)
            r->rank_s[i] = rank_s[i] / l.batch;
    }
    xpb_runner_read_conditions(cb->dev, r, false);
    if (power)
        xpb_power_stop(&sampler, r);
    if (l.graph)
        b->graph_free(cb->dev->ctx, l.graph);
    l.graph = NULL; /* the end-to-end time below launches one by one */
    if (!st)
        st = xpb_runner_close_round(r, from, err);
    double t_timed = xpb_clock_now();
    r->phase.timed_s += t_timed - t_start - poison_s;
    if (!st && check) {
        st = xpb_runner_check_output(cb, c, cb->data, k, cfg, cfg->seed, &r->timed_output, err);
        r->phase.validate_s += xpb_clock_now() - t_timed;
        t_timed = xpb_clock_now();
    }
    /* one end-to-end iteration for a slow launch, and on a device group, whose upload writes the
     * whole array to every rank (gigabytes at the large collectives): seconds a case otherwise;
     * none when the timed output was wrong (the case will report no speed) */
    if (!st && first && r->timed_output.state != XPB_CHECK_FAILED)
        st = measure_e2e(cb, &l, r->kernel.median >= SLOW_LAUNCH_S || cb->dev->n_group ? 1 : cfg->e2e_iterations, r,
                         err);
    r->phase.e2e_s += xpb_clock_now() - t_timed;
    if (first) {
        r->timed = st == XPB_OK;
        for (int i = 0; i < cb->data->n_in; i++)
            r->upload_bytes += cb->data->in_bytes[i];
        r->download_bytes = cb->data->out_bytes[0];
    }
    return st;
}

/* A later round of a one-shot kernel: buffers and inputs afresh (no validation: round 1 did it),
 * then time_kernel. */
static void time_kernel_again(xpb_device *dev, const xpb_case *c, const xpb_case_data *d, const xpb_run_config *cfg,
                              xpb_result *r)
{
    const xpb_kernel *k = r->ran;
    xpb_error err = {{0}};
    unsigned char args[XPB_ARGS_MAX];
    xpb_case_buffers cb = {.dev = dev, .data = d};
    void *state = NULL;
    bool prepared = false;
    double t0 = xpb_clock_now();
    xpb_status st = buffers_alloc(&cb, &err);
    if (!st) {
        c->workload->make_args(c, cb.in_view, cb.out_view, args);
        st = xpb_runner_upload_inputs(&cb, c, &err);
    }
    if (!st && k->prepare && !(st = k->prepare(dev->ctx, args, &state, &err)))
        prepared = true;
    r->phase.setup_s += xpb_clock_now() - t0;
    if (!st)
        st = time_kernel(&cb, k, c, args, state, cfg, false, r, &err);
    if (st)
        xpb_runner_set_outcome(r, dev, st, &err);
    if (prepared && k->release)
        k->release(dev->ctx, state);
    buffers_free(&cb);
    r->phase.total_s += xpb_clock_now() - t0;
}

static void run_kernel(xpb_device *dev, const xpb_kernel *k, const xpb_case *c, const xpb_case_data *d,
                       xpb_recheck_inputs *ri, const xpb_run_config *cfg, xpb_result *r)
{
    const xpb_backend_i *b = dev->backend;
    xpb_error err = {{0}};
    unsigned char args[XPB_ARGS_MAX];
    xpb_case_buffers cb = {.dev = dev, .data = d};
    void *state = NULL;
    bool prepared = false;

    double t0 = xpb_clock_now();
    xpb_status st = check_fits(dev, d, &err);
    c->workload->make_args(c, cb.in_view, cb.out_view, args); /* views filled below; for supports() */
    if (!st && k->supports)
        st = k->supports(dev->ctx, args, &err);
    if (!st)
        st = buffers_alloc(&cb, &err);
    if (!st) {
        c->workload->make_args(c, cb.in_view, cb.out_view, args);
        st = xpb_runner_upload_inputs(&cb, c, &err);
    }
    if (!st) {
        double t_poison = xpb_clock_now();
        st = xpb_runner_poison_outputs(&cb, &err);
        r->phase.poison_s = xpb_clock_now() - t_poison;
    }
    if (!st && k->prepare && !(st = k->prepare(dev->ctx, args, &state, &err)))
        prepared = true;
    if (!st && k->describe)
        k->describe(dev->ctx, args, state, r->kernel_config, sizeof r->kernel_config);
    double t_valid = xpb_clock_now();
    r->phase.setup_s = t_valid - t0;
    /* 1. one launch, read everything back, validate */
    if (!st)
        st = k->launch(dev->ctx, args, state, &err);
    if (!st)
        st = b->synchronize(dev->ctx, &err);
    if (!st) /* read back (under MPI each process its own rank's part) and checked */
        st = xpb_runner_validate_launch(&cb, c, k, cfg, r, &err);
    if (!st && !r->validation.passed) {
        r->status = XPB_CASE_FAILED_VALIDATION;
        summarize_failure(r);
    }
    r->phase.validate_s = xpb_clock_now() - t_valid;
    /* 2. time (the first round), checking the timed launches' output */
    if (!st && r->validation.passed && !cfg->validate_only && !c->validate_only)
        st = time_kernel(&cb, k, c, args, state, cfg, true, r, &err);
    const char *skip = xpb_runner_after_timing_skip(dev);
    if (!st && r->timed && skip) {
        r->timed_output.state = r->recheck.state = XPB_CHECK_SKIPPED;
        snprintf(r->timed_output.reason, sizeof r->timed_output.reason, "%s", skip);
        snprintf(r->recheck.reason, sizeof r->recheck.reason, "%s", skip);
    }
    /* 3. the fresh-seed recheck, when the timed output was right */
    if (!st && r->timed && r->timed_output.state == XPB_CHECK_PASSED) {
        double t_check = xpb_clock_now();
        st = xpb_runner_recheck(&cb, k, c, args, &state, &prepared, ri, cfg, r, &err);
        r->phase.validate_s += xpb_clock_now() - t_check;
    }
    if (!st)
        xpb_runner_fail_after_timing(r);
    /* A device group times its later rounds here, back to back on the same buffers, as nccl-tests
     * times a collective: the interleaved rounds' fresh buffers meant uploading the whole array to
     * every rank again each round (16 GiB at the 1 GiB all_reduce on 4 GPUs), most of a sweep's
     * time (docs/multi-gpu.md). Its rounds are thus a fraction of a second apart, not minutes. */
    for (int round = 2; !st && r->timed && dev->n_group && round <= cfg->rounds; round++)
        st = time_kernel(&cb, k, c, args, state, cfg, false, r, &err);
    if (st)
        xpb_runner_set_outcome(r, dev, st, &err);
    if (prepared && k->release)
        k->release(dev->ctx, state);
    r->phase.download_s = cb.download_s;
    buffers_free(&cb);
    r->phase.total_s = xpb_clock_now() - t0;
}

/* ---- the run ------------------------------------------------------------------------------------ */

static void lock(xpb_run *run)
{
    if (run->lock)
        pthread_mutex_lock(run->lock);
}

static void unlock(xpb_run *run)
{
    if (run->lock)
        pthread_mutex_unlock(run->lock);
}

/* Marks r whole (or being changed): under the run's lock, so the watcher (xpb_watch.h) copies
 * either the whole result or none of it. */
static void settle(xpb_run *run, xpb_result *r, bool settled)
{
    lock(run);
    r->settled = settled;
    unlock(run);
}

/* A new result, not settled; NULL when out of host memory. Under the run's lock: results[] may
 * move. */
static xpb_result *new_result(xpb_run *run, const xpb_case *c, const xpb_device *dev,
                              const char *variant, const char *precision)
{
    lock(run);
    if (run->count == run->capacity) {
        size_t cap = run->capacity ? run->capacity * 2 : 64;
        xpb_result *r = realloc(run->results, cap * sizeof *r);
        if (!r) {
            unlock(run);
            return NULL;
        }
        run->results = r;
        run->capacity = cap;
    }
    xpb_result *r = &run->results[run->count++];
    memset(r, 0, sizeof *r);
    r->c = *c;
    r->device = dev;
    snprintf(r->variant, sizeof r->variant, "%s", variant);
    snprintf(r->precision, sizeof r->precision, "%s", precision);
    r->status = XPB_CASE_OK;
    unlock(run);
    return r;
}

static xpb_status run_on_device(xpb_run *run, xpb_device *dev, const xpb_case *c, const xpb_case_data *d,
                                xpb_recheck_inputs *ri, xpb_status data_st, const xpb_error *data_err,
                                const xpb_run_config *cfg, xpb_progress *prog)
{
    if (dev->preset && c->preset && strcmp(dev->preset, c->preset) != 0)
        return XPB_OK; /* --preset auto: this case is another preset's, not this device's */
    /* a scaling sweep (run --devices 0:0,1:...): a group runs the cases made for its size (gpus=P,
     * cmd_run.c), not another group's */
    if (dev->n_group && c->workload->group && xpb_case_param(c, "gpus", dev->n_group) != dev->n_group)
        return XPB_OK;
    const xpb_kernel *ks[MAX_VARIANTS];
    xpb_op op = !c->workload->run                                ? c->op
                : dev->n_group && c->workload->group_variant_op ? c->workload->group_variant_op
                                                                : c->workload->variant_op;
    size_t nk = xpb_backend_kernels_for(dev->backend, op, ks, MAX_VARIANTS), kept = 0;
    for (size_t i = 0; i < nk; i++) /* --variant: the user's choice, so the others leave no result */
        if (xpb_name_in_list(cfg->variants, ks[i]->variant))
            ks[kept++] = ks[i];
    if (nk > 0 && kept == 0)
        return XPB_OK;
    nk = kept;
    kept = 0;
    for (size_t i = 0; i < nk; i++) /* group kernels on device groups, the others on one device */
        if (xpb_op_get(ks[i]->op)->group == (dev->n_group > 0))
            ks[kept++] = ks[i];
    if (kept == 0) {
        xpb_result *r = new_result(run, c, dev, "-", "-");
        if (!r)
            return XPB_ERR_OUT_OF_MEMORY;
        r->status = XPB_CASE_UNSUPPORTED;
        if (nk > 0 && dev->n_group)
            snprintf(r->message, sizeof r->message, "%s is a device group: it runs the multi-device ops "
                     "(collectives) only", dev->label);
        else if (nk > 0)
            snprintf(r->message, sizeof r->message, "%s runs across a device group: --backend %s --devices LIST "
                     "(one GPU: --devices 0)", xpb_op_get(op)->name, dev->backend->name);
        else if (xpb_op_get(op)->group)
            snprintf(r->message, sizeof r->message, "the %s backend has no kernel for %s: multi-device ops run on "
                     "cuda device groups (NCCL: --backend cuda --devices LIST)", dev->backend->name,
                     xpb_op_get(op)->name);
        else
            snprintf(r->message, sizeof r->message, "the %s backend has no kernel for %s", dev->backend->name,
                     xpb_op_get(op)->name);
        settle(run, r, true);
        xpb_progress_case(prog, r);
        return XPB_OK;
    }
    nk = kept;
    for (size_t i = 0; i < nk; i++) {
        xpb_result *r = new_result(run, c, dev, ks[i]->variant, ks[i]->precision);
        if (!r)
            return XPB_ERR_OUT_OF_MEMORY;
        r->ran = ks[i];
        xpb_progress_start_variant(prog, c, dev->label, ks[i]->variant, 1);
        if (dev->lost) {
            r->status = XPB_CASE_ERROR;
            snprintf(r->message, sizeof r->message, "%s was lost earlier in this run: %.400s", dev->label,
                     dev->lost_reason);
        } else if (data_st) {
            r->status = data_st == XPB_ERR_UNSUPPORTED ? XPB_CASE_UNSUPPORTED : XPB_CASE_ERROR;
            snprintf(r->message, sizeof r->message, "%s", data_err->msg);
        } else if (xpb_isolate_applies(cfg, dev, ks[i], c)) {
            xpb_isolate_run(dev, ks[i], c, cfg, r);
        } else if (c->workload->run) {
            xpb_run_stateful(dev, ks[i], c, d, cfg, r);
        } else {
            run_kernel(dev, ks[i], c, d, ri, cfg, r);
        }
        settle(run, r, true);
        xpb_progress_case(prog, r);
    }
    return XPB_OK;
}

/* Inputs, one output copy and the poison staging must fit in the host memory available now;
 * otherwise the case is an error instead of a visit from the OOM killer. */
static xpb_status host_fits(const xpb_case *c, xpb_error *err)
{
    uint64_t need = c->bytes_read + 2 * c->bytes_written + 4 * G;
    /* the output's host copy comes from out_arena, whose pages are already out of `avail` */
    uint64_t held = out_arena.touched < c->bytes_written ? out_arena.touched : c->bytes_written;
    need -= held;
    uint64_t avail = xpb_sysinfo_mem_available();
    if (avail && need > avail / 10 * 9)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "needs %.2f GiB of host memory; %.2f GiB available",
                        (double)need / 1073741824.0, (double)avail / 1073741824.0);
    return XPB_OK;
}

/* A later round: cases [first, first + count) of case c again, those that timed. */
static void run_round_again(xpb_run *run, const xpb_case *c, const xpb_case_data *d, size_t first, size_t count,
                            const xpb_run_config *cfg, xpb_progress *prog, int round)
{
    for (size_t j = first; j < first + count; j++) {
        xpb_result *r = &run->results[j];
        xpb_device *dev = &run->devices[r->device - run->devices];
        if (r->status != XPB_CASE_OK || !r->timed || dev->lost || dev->n_group || r->isolated)
            continue; /* a device group's rounds ran in round 1 (run_kernel); an isolated case's in its process */
        xpb_progress_start_variant(prog, c, dev->label, r->variant, round + 1);
        settle(run, r, false);
        if (c->workload->run)
            xpb_run_stateful_again(dev, c, d, cfg, r);
        else
            time_kernel_again(dev, c, d, cfg, r);
        if (r->status != XPB_CASE_OK) { /* the round's error, named as such */
            char msg[sizeof r->message];
            snprintf(msg, sizeof msg, "%s", r->message);
            snprintf(r->message, sizeof r->message, "timing round %zu: %.460s", r->units.n + 1, msg);
            r->timed = false;
        }
        settle(run, r, true);
    }
}

/* Later rounds interleave the cases of a block: as many consecutive cases as fit in this much
 * host data (their inputs made once), at most ROUND_BLOCK_CASES. A block's rounds are seconds
 * apart, each with fresh device buffers, upload and warm-up; making every case's inputs again
 * in every round cost the H100's default elementwise preset 6 minutes instead of about 2. */
#define ROUND_BLOCK_BYTES ((uint64_t)2 << 30)
#define ROUND_BLOCK_CASES 64

static uint64_t case_bytes(const xpb_case *c)
{
    return c->bytes_read + c->bytes_written;
}

/* Round 1 of case c (validation and timing); [*first, *first + *count) are its results. */
static xpb_status first_round(xpb_run *run, size_t i, const xpb_case *c, const xpb_case_data *d, xpb_status data_st,
                              const xpb_error *data_err, const xpb_run_config *cfg, xpb_progress *prog, size_t *first,
                              size_t *count)
{
    xpb_progress_start_case(prog, i, c);
    *first = run->count;
    xpb_recheck_inputs ri = {0};
    xpb_status st = XPB_OK;
    for (size_t j = 0; j < run->n_devices && !st; j++)
        if (run_on_device(run, &run->devices[j], c, d, &ri, data_st, data_err, cfg, prog))
            st = XPB_ERR_OUT_OF_MEMORY;
    xpb_recheck_inputs_free(&ri);
    if (st)
        return st;
    *count = run->count - *first;
    xpb_progress_unit(prog);
    return XPB_OK;
}

xpb_status xpb_runner_run(xpb_run *run, const xpb_case_list *cases, const xpb_run_config *cfg,
                          xpb_error *err)
{
    typedef struct block_case {
        xpb_case_data d;
        xpb_status data_st;
        xpb_error data_err;
        size_t first, count; /* its results */
    } block_case;
    block_case *blk = calloc(ROUND_BLOCK_CASES, sizeof *blk);
    if (!blk)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for results");
    int rounds = cfg->rounds > 1 && !cfg->validate_only ? cfg->rounds : 1;
    xpb_status st = XPB_OK;
    xpb_progress own, *prog = cfg->progress ? cfg->progress : &own;
    if (!cfg->progress)
        xpb_progress_begin(prog, cases->count, rounds, cfg->progress_tty, cfg->progress_quiet);
    for (size_t i = 0; i < cases->count && !st;) {
        size_t n = 0;
        uint64_t bytes = 0;
        while (i + n < cases->count && n < ROUND_BLOCK_CASES &&
               (n == 0 || bytes + case_bytes(&cases->items[i + n]) <= ROUND_BLOCK_BYTES))
            bytes += case_bytes(&cases->items[i + n++]);
        size_t made = 0; /* cases of the block with their data made (or failed to be) */
        for (; made < n && !st; made++) { /* round 1, its data kept for the later rounds */
            const xpb_case *c = &cases->items[i + made];
            block_case *b = &blk[made];
            memset(&b->data_err, 0, sizeof b->data_err);
            double t0 = xpb_clock_now();
            b->data_st = host_fits(c, &b->data_err);
            if (!b->data_st)
                b->data_st = c->workload->make_data(c, cfg->seed, &b->d, &b->data_err);
            b->data_st = xpb_mpi_agree(b->data_st, &b->data_err); /* under MPI: the same cases everywhere */
            double data_s = xpb_clock_now() - t0;
            st = first_round(run, i + made, c, &b->d, b->data_st, &b->data_err, cfg, prog, &b->first, &b->count);
            if (!st && b->count) /* the case's inputs, made once for all its results: on its first */
                run->results[b->first].phase.data_s = data_s;
        }
        for (int round = 1; round < rounds && !st; round++)
            for (size_t k = 0; k < n; k++) {
                if (!blk[k].data_st)
                    run_round_again(run, &cases->items[i + k], &blk[k].d, blk[k].first, blk[k].count, cfg, prog,
                                    round);
                xpb_progress_unit(prog);
            }
        for (size_t k = 0; k < made; k++)
            if (!blk[k].data_st)
                xpb_case_data_free(&blk[k].d);
        i += n;
    }
    xpb_progress_end(prog);
    xpb_host_arena_free(&out_arena);
    free(blk);
    return st ? xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "out of host memory for results") : XPB_OK;
}

void xpb_run_free(xpb_run *run)
{
    for (size_t i = 0; i < run->count; i++) {
        xpb_samples_free(&run->results[i].kernel_samples);
        xpb_samples_free(&run->results[i].e2e_samples);
        xpb_samples_free(&run->results[i].units);
        xpb_run_outcome_free(&run->results[i].run);
    }
    free(run->results);
    run->results = NULL;
    run->count = run->capacity = 0;
}
