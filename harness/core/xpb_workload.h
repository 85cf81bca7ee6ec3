/* xpb_workload.h - what a workload family (elementwise, gemm, ...) gives the runner.
 *
 * A workload enumerates cases for a preset, generates each case's inputs on the host, fills the
 * op's argument struct with device views, and provides the fp64 reference with a per-element
 * error bound. The runner does everything else the same way for every workload: buffers with
 * guard regions, poisoning, upload, launch, validation, timing and throughput (nvbench style: a
 * case declares elements and bytes moved; throughput is derived in one place, xpb_derive.c). */
#ifndef XPB_WORKLOAD_H
#define XPB_WORKLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "xpb_ops.h"
#include "xpb_stateful.h"
#include "xpb_status.h"

#define XPB_MAX_PARAMS 8
#define XPB_MAX_ARRAYS 6
#define XPB_CASE_ID_LEN 192

typedef struct xpb_param {
    char key[16];
    int64_t value;
} xpb_param;

/* A list of KEY=VALUE sizes from --size. */
typedef struct xpb_sizes {
    int count;
    xpb_param kv[XPB_MAX_PARAMS];
    const char *input; /* --input FILE: vectors to use instead of generated ones, or NULL */
    int ranks;         /* --devices: the device group's size (collectives' cases), 0 without one */
} xpb_sizes;

typedef struct xpb_workload_i xpb_workload_i;
typedef struct xpb_session xpb_session;
typedef struct xpb_validation xpb_validation;

typedef struct xpb_case {
    char id[XPB_CASE_ID_LEN]; /* "elementwise/softmax/rows=4096,cols=4096/fp32" (stable) */
    const xpb_workload_i *workload;
    xpb_op op;
    xpb_dtype dtype;
    int n_params;
    xpb_param params[XPB_MAX_PARAMS]; /* in id order */
    double scalar[4];                 /* op scalars: scale a, eps, rope base, alpha/beta  */
    /* What the case moves and computes (declared once here; GB/s and GFLOP/s derive from it). */
    uint64_t elements;
    uint64_t bytes_read;
    uint64_t bytes_written;
    double flops;
    /* Collectives: busbw = algbw * bus_factor (nccl-tests' definitions, docs/multi-gpu.md), where
     * algbw = bytes_read / time; 0 for every other case. */
    double bus_factor;
    /* Validated, never timed: the cases of a non-random input class (xpb_input.h), whose speed
     * is the random-input case's of the same size. */
    bool validate_only;
    /* The file the case's points come from (--input), or NULL when they are generated. */
    const char *input;
    /* The preset it comes from; it runs only on devices of that preset (xpb_device.preset). */
    const char *preset;
} xpb_case;

typedef struct xpb_case_list {
    xpb_case *items;
    size_t count, capacity;
} xpb_case_list;

/* Host data of one case. Inputs are owned here (freed by xpb_case_data_free); outputs are
 * described by size only: the runner allocates, poisons and reads them back. Output 0 is the
 * one validated; it holds `out_elements` fp32 values. */
typedef struct xpb_case_data {
    int n_in;
    const char *in_name[XPB_MAX_ARRAYS];
    void *in[XPB_MAX_ARRAYS];
    size_t in_bytes[XPB_MAX_ARRAYS];
    int n_out;
    const char *out_name[XPB_MAX_ARRAYS];
    size_t out_bytes[XPB_MAX_ARRAYS];
    size_t out_elements;
    /* Optional host state the workload computes once per case (a stateful workload's reference
     * run), freed with the data. */
    void *host;
    void (*host_free)(void *host);
} xpb_case_data;

/* Where a stateful run was made, for its dump (xpb_workload_i.dump_run): the kernel variant's
 * precision ("fp32"), the device ("cuda:0"), the variant ("default") and the input seed. */
typedef struct xpb_run_origin {
    const char *precision, *device, *variant;
    uint64_t seed;
} xpb_run_origin;

struct xpb_workload_i {
    const char *name;        /* "elementwise" */
    const char *description;

    /* Appends the cases of `preset` ("quick", "default", "full", "conformance"), or, when
     * sizes->count > 0, the cases those sizes define, for every op whose name matches
     * op_filter (NULL = all). Unknown keys are not an error here: the caller checks that some
     * workload used each key. */
    xpb_status (*add_cases)(const char *preset, const xpb_sizes *sizes, xpb_case_list *list,
                            xpb_error *err);
    /* True when this workload understands the --size key. */
    bool (*knows_size_key)(const char *key);

    /* Generates the inputs of c (seeded) and describes its outputs. */
    xpb_status (*make_data)(const xpb_case *c, uint64_t seed, xpb_case_data *d, xpb_error *err);

    /* Writes the op's argument struct for c into args (at least XPB_ARGS_MAX bytes). */
    void (*make_args)(const xpb_case *c, const xpb_view *in, const xpb_view *out, void *args);

    /* The fp64 reference. Output elements are validated in units (one element, one row, ...)
     * of unit_elements(c) elements; reference() computes ref[] and the allowed absolute error
     * tol[] for units [u0, u1), written from index 0. `precision` is the kernel variant's
     * (xpb_kernel.precision: "fp32", "tf32", "fp16-fp32acc"): the bound depends on it. */
    size_t (*unit_elements)(const xpb_case *c);
    void (*reference)(const xpb_case *c, const xpb_case_data *d, const char *precision, size_t u0,
                      size_t u1, double *ref, double *tol);
    /* The error bound in words, recorded with every result ("|err| <= u*|ref|"). */
    const char *(*tolerance_text)(const xpb_case *c, const char *precision);
    /* Optional: how many units to check when a full fp64 check would dominate the run (e.g. a
     * large GEMM); 0 or NULL = check all (unless the user asked for --validate sampled). */
    size_t (*sampled_units)(const xpb_case *c);

    /* Stateful workloads only (NULL for one-shot ones, which use make_args .. reference above):
     * runs the whole case through the session's ops (xpb_session.h), from the inputs in d to
     * the result, and fills out. When s->validating, it also checks every op it can on the
     * run's first iteration and the whole run against its reference, into *v and out (the
     * runner adds the guard check). Inject (xpb_run_config.inject_fault != 0): damage what is
     * read back before checking, the way a broken kernel would. Called several times per
     * result: validated, warm-up, timed, and once with op timing on. */
    xpb_status (*run)(const xpb_case *c, const xpb_case_data *d, xpb_session *s, int inject,
                      xpb_validation *v, xpb_run_outcome *out, xpb_error *err);
    /* Stateful workloads: the op whose kernel variants make a case's results (each variant of
     * it is one result; the other ops use their backend's first kernel). */
    xpb_op variant_op;
    /* Stateful workloads that also run across a device group (--devices): the op whose
     * variants make a case's results there (a group op, xpb_op_info.group); 0: one device only. */
    xpb_op group_variant_op;
    /* True when the workload takes its data from --input FILE (xpb_vectors.h). */
    bool reads_input;
    /* True when its cases run on device groups only (--devices; the collectives): left out of the
     * default "every workload" unless a group was asked for, and the only ones "every workload"
     * runs on a group (a workload with a group_variant_op runs there when named). */
    bool group;
    /* Group workloads, optional: when input i holds every rank's part, rank-major, and rank r
     * reads only its own (part r of this many bytes), the bytes of one part; 0 or NULL: every
     * rank reads the whole input. A group's upload then writes each rank its part alone
     * (xpb_backend_i.buffer_upload_parts) instead of the whole array to every rank. */
    size_t (*input_rank_part)(const xpb_case *c, int i);
    /* Stateful workloads, optional: the dump of one run (`--dump DIR`, or the automatic dump of
     * a failed case; docs/reports.md): writes into dir, as files named <stem>.*, the case's
     * inputs and configuration and what the validated run o produced on origin's device and
     * variant, merged into the sidecar dir/<stem>.json (pieces in xpb_dump.h). Returns XPB_OK, or
     * an error with err filled, which the runner reports without changing the case's result.
     * NULL: the workload's runs are not dumped (the runner says so). */
    xpb_status (*dump_run)(const char *dir, const char *stem, const xpb_case *c, const xpb_case_data *d,
                           const xpb_run_outcome *o, const xpb_run_origin *origin, xpb_error *err);
    /* Stateful workloads, optional: where results files of schema 1 or 2 held the figures its
     * run now reports by name (xpb_legacy_field), so that compare and report read those files
     * too; NULL: nothing to map (a workload born at schema 3). */
    const xpb_legacy_field *legacy_fields;
};

#define XPB_ARGS_MAX 256

/* The registered workloads (workloads/registry.c), NULL-terminated. */
const xpb_workload_i *const *xpb_workloads(void);
const xpb_workload_i *xpb_workload_find(const char *name);

/* Case helpers (xpb_case.c). */
xpb_status xpb_case_list_push(xpb_case_list *list, const xpb_case *c, xpb_error *err);
void xpb_case_list_free(xpb_case_list *list);
/* Builds c->id from workload, op, params and dtype. */
void xpb_case_make_id(xpb_case *c);
void xpb_case_set_param(xpb_case *c, const char *key, int64_t value);
/* Returns the value of key, or fallback when c has no such param. */
int64_t xpb_case_param(const xpb_case *c, const char *key, int64_t fallback);
/* True when name is one of the comma-separated names of list (NULL list: every name). */
bool xpb_name_in_list(const char *list, const char *name);
/* Looks up a --size key; returns false when absent. */
bool xpb_sizes_get(const xpb_sizes *s, const char *key, int64_t *value);
void xpb_case_data_free(xpb_case_data *d);
const char *xpb_dtype_name(xpb_dtype t);
size_t xpb_dtype_size(xpb_dtype t);

#endif
