/* xpb_result_record.h - one case's outcome on one backend device and kernel variant, and a run. */
#ifndef XPB_RESULT_RECORD_H
#define XPB_RESULT_RECORD_H

#include <pthread.h>
#include <stdbool.h>

#include "xpb_backend.h"
#include "xpb_names.h"
#include "xpb_stats.h"
#include "xpb_validate.h"
#include "xpb_workload.h"

/* An opened backend device. */
typedef struct xpb_device {
    const xpb_backend_i *backend;
    int index;
    char label[64]; /* "cuda:0", or a device group's "cuda:0,1" ("cuda:mpi2" under MPI) */
    int n_group;    /* a device group's size (--devices, or the MPI processes), 0 for one device */
    xpb_group_layout layout; /* a group's ranks: each one's host and device index */
    xpb_device_info info;
    void *ctx;
    bool lost;            /* the context died: later cases are errors */
    double sm_peak_mhz;   /* the highest SM clock read right after a timed round (XPB_WARMUP_CLOCK_S) */
    bool clock_stays_low; /* XPB_WARMUP_CLOCK_S waited its whole time once: not again on this device */
    /* The preset its cases come from: the run's, or under --preset auto the one chosen for this
     * device (xpb_preset_auto.h); cases of another preset skip it. */
    const char *preset;
    char lost_reason[XPB_ERROR_MSG_LEN];
} xpb_device;

/* Host wall time of a case's phases on one device and variant (seconds): where a sweep's time
 * goes outside the timed samples (docs/multi-gpu.md, results-schema.md `phases_s`). */
typedef struct xpb_phase_times {
    double data_s;     /* host_fits + make_data: once per case, on the case's first result only */
    double setup_s;    /* device buffers, input upload, poisoning, prepare (later rounds' too) */
    double poison_s;   /* of setup_s: filling the outputs with the poison pattern */
    double validate_s; /* the validation launch, synchronize, download and the host check */
    double download_s; /* of validate_s: reading the outputs back for the checks (the e2e's apart) */
    double timed_s;    /* warm-up, graph capture and the timed samples, every round */
    double e2e_s;      /* the end-to-end iterations (upload, launch, sync, download) */
    double total_s;    /* the whole of the variant on this device (data_s not included) */
} xpb_phase_times;

/* An isolated case's result crosses from its process as these bytes (xpb_isolate_record.c): a
 * field that owns memory needs a line there. */
typedef struct xpb_result {
    xpb_case c;
    const xpb_device *device;
    char variant[32];
    char precision[32];
    char kernel_config[160]; /* the kernel's describe(): what it chose by itself ("" none) */
    xpb_case_status status;
    char message[XPB_ERROR_MSG_LEN]; /* error / unsupported / skipped reason, or failure summary */
    bool isolated;     /* ran in a process of its own (run --isolate, xpb_isolate.h) */
    bool validated;
    xpb_validation validation;
    /* After the first round's timing (docs/validation.md, "After timing"): the timed launches'
     * own output, and the recheck with fresh inputs made from recheck_seed. */
    xpb_after_check timed_output, recheck;
    uint64_t recheck_seed;
    bool timed;
    xpb_samples kernel_samples; /* device timer, seconds per launch, every round's */
    xpb_stats kernel;
    /* One per round (run --rounds): the median of that round's samples. The rounds of a run
     * interleave every case, so these are the independent repetitions that compare tests. */
    xpb_samples units;
    const xpb_kernel *ran;      /* the kernel variant, for the later rounds (not written) */
    /* the GPU around the timed rounds (xpb_runner_read_conditions), when the backend reads it */
    bool has_conditions;
    xpb_conditions cond_before, cond_after;
    double sm_low_mhz;               /* the lowest SM clock of those readings */
    double warmup_clock_s;           /* warm-up added, every round, for the clock (XPB_WARMUP_CLOCK_S) */
    unsigned long long reasons_seen; /* XPB_REASONS_THROTTLE bits seen in any reading */
    int launches_per_sample;    /* back-to-back launches in one timed sample */
    bool graph;                 /* those launches replayed from a captured graph (run --graph) */
    int n_rank_s;               /* a device group's ranks with a time in rank_s */
    double rank_s[XPB_MAX_GROUP]; /* each rank's own mean time per launch (the case's is the slowest's) */
    xpb_samples e2e_samples;    /* host clock: upload + launch + sync + download */
    xpb_stats e2e;
    double upload_s, download_s; /* median host time of the input uploads / output download */
    xpb_phase_times phase;       /* host wall time per phase (xpb_phase_times) */
    /* --power: board power sampled while the timed launches ran */
    bool power_sampled;
    double power_avg_w, power_max_w;
    int power_samples;
    char power_note[160];        /* why there is no reading, when --power was asked for */
    uint64_t upload_bytes, download_bytes;
    /* derived (xpb_runner_derive) */
    double gbps, gflops;     /* from the median kernel time */
    double roof_gbps;        /* this device's bandwidth roof */
    char roof_source[80];    /* "copy op on cuda:0, this run" or "datasheet" */
    double pct_of_roof;      /* gbps / roof_gbps * 100, 0 when unknown */
    double speedup_vs_cpu;   /* cpu median / this median, 0 when no cpu result */
    double pct_of_peak;      /* gflops / datasheet fp32 peak of the hardware * 100 (GEMM) */
    double pct_of_library;   /* gflops / best library variant's at the same case (GEMM) */
    char library_variant[48]; /* that variant, "cuda:0/cublas"; empty when none */
    char implausible[200];   /* non-empty: faster than the hardware can be, and why (xpb_derive.c) */
    xpb_run_outcome run;     /* stateful workloads: the run's outcome (run.present) */
    char dump_note[1536];    /* rerun command and dump location of a failed case (printed) */
    /* Whole: the runner is not filling or changing it (an interrupted run writes only these). */
    bool settled;
} xpb_result;

/* The case's rounds drift one way (xpb_stats_drift of its round medians): the run's summary says so. */
static inline double xpb_result_round_drift(const xpb_result *r) { return xpb_stats_drift(r->units.v, r->units.n); }

/* A case whose timed rounds saw the SM clock under this fraction of its highest: the driver
 * lowered it (NVIDIA's Vulkan driver does between short batches: docs/performance.md), so the
 * case's times hold that clock. Said in the results (conditions.clock_low) and the run's summary. */
#define XPB_CLOCK_LOW_FRACTION 0.8
/* The GPU's highest SM clock as the readings give it (the last one's, else the first's), 0 unknown. */
static inline double xpb_result_sm_max(const xpb_result *r)
{
    return r->cond_after.sm_max_mhz > 0 ? r->cond_after.sm_max_mhz : r->cond_before.sm_max_mhz;
}
static inline bool xpb_result_clock_low(const xpb_result *r)
{
    const double max = xpb_result_sm_max(r);
    return r->has_conditions && max > 0 && r->sm_low_mhz > 0 && r->sm_low_mhz < XPB_CLOCK_LOW_FRACTION * max;
}

typedef struct xpb_run {
    char run_id[96];
    char created_utc[32];
    xpb_result *results;
    size_t count, capacity;
    xpb_device *devices;
    size_t n_devices;
    /* Held by the runner while it adds a result or changes a settled one, so that the watcher
     * (xpb_watch.h) copies only whole results; NULL when no watcher runs. */
    pthread_mutex_t *lock;
    /* A run that a signal stopped before its end: the signal's name ("SIGTERM"), NULL for a
     * whole run; the cases planned, and those with results in it. */
    const char *interrupted;
    size_t cases_planned, cases_finished;
    /* What --preset auto shortened, and why, one sentence; "" when nothing was. */
    char preset_note[512];
} xpb_run;

#endif
