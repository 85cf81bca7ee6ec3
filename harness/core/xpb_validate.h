/* xpb_validate.h - checks one output against the fp64 reference and its per-element bound.
 *
 * Before a run every output buffer, guard regions included, is filled with a poison bit pattern
 * (a NaN with a recognizable payload). After the run the whole buffer is read back: guard bytes
 * must be unchanged (an out-of-bounds write fails), no element may still hold the poison
 * (an unwritten element fails), and every element must satisfy |out - ref| <= tol (NaN fails). */
#ifndef XPB_VALIDATE_H
#define XPB_VALIDATE_H

#include <stdbool.h>
#include <stdint.h>

#include "xpb_workload.h"

#define XPB_GUARD_BYTES 256           /* before and after every output; keeps views 256-aligned */
#define XPB_POISON_BITS 0x7FC0DEADu   /* quiet NaN, payload 0xDEAD                             */
#define XPB_MAX_MISMATCHES 10

typedef struct xpb_mismatch {
    int64_t index;
    double value, reference, tolerance;
} xpb_mismatch;

typedef struct xpb_validation {
    char method[64];        /* "full" or "sampled (k of n units)"                 */
    char tolerance[192];    /* the bound in words (workload's tolerance_text)     */
    uint64_t checked;       /* elements compared                                  */
    double max_abs_err;
    double max_rel_err;     /* over elements with ref != 0                        */
    double rel_l2_err;      /* ||out - ref|| / ||ref|| (absolute when ||ref|| = 0) */
    double max_ulp;         /* against the fp32-rounded reference                 */
    double max_err_over_tol; /* worst |err| / tol: <= 1 passes; 0/0 counts as 0  */
    int64_t worst_index;
    double worst_value, worst_reference, worst_tolerance;
    uint64_t out_of_tolerance, nan_count, inf_count, unwritten, guard_violations;
    int n_mismatches;
    xpb_mismatch mismatches[XPB_MAX_MISMATCHES]; /* the first ones, by index */
    bool passed;
} xpb_validation;

/* A check made after a case's timed launches (docs/validation.md, "After timing"): that the
 * timed launches' own output is right, and the fresh-seed recheck (new inputs, one launch, a new
 * reference). NOT_RUN: the case was not timed, so there was nothing to check (not written). */
typedef enum xpb_check_state {
    XPB_CHECK_NOT_RUN,
    XPB_CHECK_PASSED,
    XPB_CHECK_FAILED,
    XPB_CHECK_SKIPPED,
} xpb_check_state;

typedef struct xpb_after_check {
    xpb_check_state state;
    char reason[200]; /* skipped: why; failed: what was wrong (the failure's summary) */
} xpb_after_check;

/* "passed", "failed", "skipped" (results' validation.timed_output and .recheck); "" for NOT_RUN. */
const char *xpb_check_state_name(xpb_check_state s);

/* Fills bytes (a multiple of 4) with XPB_POISON_BITS. */
void xpb_poison_fill(void *p, size_t bytes);

/* Counts guard bytes that differ from the poison pattern. */
uint64_t xpb_guard_violations(const void *guard, size_t bytes);

/* The random units a sampled validation checks beside the first and the last: sample_units, but
 * no more than XPB_VALIDATE_SAMPLED_ELEMENTS elements' worth of units of unit_elements each (at
 * least 16): 4096 rows of 262144 would be the whole of a 1024-row case, whose fp64 reference took
 * 3 s of a 4 s case on a 16-core host, a tune's candidate runs included. */
#define XPB_VALIDATE_SAMPLED_ELEMENTS ((size_t)1 << 24)
size_t xpb_validate_sample_count(size_t sample_units, size_t unit_elements);

/* Compares out[0 .. d->out_elements) with the workload's reference. sampled: check the first,
 * the last and up to xpb_validate_sample_count(sample_units, unit) random units instead of all
 * (method recorded in v). */
xpb_status xpb_validate_output(const xpb_case *c, const xpb_case_data *d, const char *precision,
                               const float *out, bool sampled, size_t sample_units, uint64_t seed,
                               xpb_validation *v, xpb_error *err);

/* One process's share of a validation (under MPI each process checks its own rank's part of a
 * group's output): its record, its sums for ||err|| / ||ref||, and how many of the units it
 * checked. xpb_validation_combine folds the shares of every process into the one verdict. */
typedef struct xpb_validation_part {
    xpb_validation v; /* v.guard_violations: the guard bytes this share checked that differ */
    double err2, ref2;
    size_t units_checked; /* units of [unit_first, unit_last) checked (of the sample, when sampled) */
    size_t units_picked;  /* the units the whole validation checks: n_units, or the sample's */
    size_t n_units;
} xpb_validation_part;

/* xpb_validate_output's check of units [unit_first, unit_last) only (of the sample's units, when
 * sampled: the same sample as the whole's, so the shares of a split add up to the whole). out is
 * the whole array's address; only those units of it are read. */
xpb_status xpb_validate_units(const xpb_case *c, const xpb_case_data *d, const char *precision, const float *out,
                              size_t unit_first, size_t unit_last, bool sampled, size_t sample_units, uint64_t seed,
                              xpb_validation_part *part, xpb_error *err);
/* The verdict of shares that together covered every unit (in order: the same on every process),
 * as xpb_validate_output gives it; v->guard_violations is their sum (xpb_validation_finish next). */
void xpb_validation_combine(const xpb_validation_part *parts, int n, const xpb_case *c, const char *precision,
                            xpb_validation *v);

/* One element checked outside xpb_validate_output (the stateful workloads' per-op checks): the
 * same counting as a one-shot output (unwritten when out holds the poison, NaN, |out - ref| <=
 * tol). v starts zeroed with worst_index = -1. The _f64 form takes a value the check derived in
 * fp64 (e.g. the exact distance to the anchor a kernel chose) and says whether it was unwritten. */
void xpb_validation_add(xpb_validation *v, int64_t index, float out, double ref, double tol);
void xpb_validation_add_f64(xpb_validation *v, int64_t index, double out, bool unwritten, double ref, double tol);

/* Combines guard results into v and sets v->passed. */
void xpb_validation_finish(xpb_validation *v, uint64_t guard_violations);

/* A failed v in one line: how many elements were wrong and how, and the worst one. */
void xpb_validation_summary(const xpb_validation *v, char *buf, size_t size);

#endif
