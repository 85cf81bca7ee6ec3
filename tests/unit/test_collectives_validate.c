/* test_collectives_validate.c - the collectives' validation on the host, at sizes where a rank's
 * receive buffer is larger than one validation unit (workloads/collectives/: units are blocks of
 * at most 2^16 elements, never straddling two ranks): a correct output passes with every element
 * checked, a rank whose receive buffer the collective never wrote (still the poison) fails with
 * every one of its elements unwritten, one wrong element fails at its index.
 *
 * `test_collectives_validate --bench OP BYTES GPUS` times the host phases of one case instead
 * (make_data, the poison fill of a block, the full validation of a correct output) and prints one
 * line: the CPU-side cost of a case that docs/multi-gpu.md tabulates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_clock.h"
#include "xpb_mpi.h"
#include "xpb_test.h"
#include "xpb_validate.h"
#include "xpb_workload.h"

/* The case of op at --size bytes on n ranks, or NULL. */
static const xpb_case *case_of(xpb_case_list *l, const char *op, long long bytes, int n)
{
    const xpb_workload_i *w = xpb_workload_find("collectives");
    xpb_sizes s = {.count = 1, .ranks = n, .kv = {{"bytes", bytes}}};
    xpb_error err = {{0}};
    if (!w || w->add_cases("default", &s, l, &err) != XPB_OK)
        return NULL;
    char prefix[64];
    snprintf(prefix, sizeof prefix, "collectives/%s/", op);
    for (size_t i = 0; i < l->count; i++)
        if (strncmp(l->items[i].id, prefix, strlen(prefix)) == 0)
            return &l->items[i];
    return NULL;
}

/* The correct output of c on d (the reference, in fp32: exact small integers), or NULL. */
static float *correct_output(const xpb_case *c, const xpb_case_data *d)
{
    size_t unit = c->workload->unit_elements(c), n = d->out_elements;
    float *out = malloc(n * sizeof *out);
    double *ref = malloc(unit * sizeof *ref), *tol = malloc(unit * sizeof *tol);
    if (out && ref && tol)
        for (size_t u = 0; u < n / unit; u++) {
            c->workload->reference(c, d, "fp32", u, u + 1, ref, tol);
            for (size_t e = 0; e < unit; e++)
                out[u * unit + e] = (float)ref[e];
        }
    free(ref);
    free(tol);
    return out;
}

static int bench(const char *op, long long bytes, int n)
{
    xpb_case_list l = {0};
    const xpb_case *c = case_of(&l, op, bytes, n);
    if (!c) {
        fprintf(stderr, "no collectives case %s bytes=%lld gpus=%d\n", op, bytes, n);
        return 2;
    }
    xpb_case_data d;
    xpb_error err = {{0}};
    double t0 = xpb_clock_now();
    if (c->workload->make_data(c, 1, &d, &err) != XPB_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 3;
    }
    double t_data = xpb_clock_now() - t0;
    size_t block = (size_t)16 << 20;
    void *p = malloc(block);
    t0 = xpb_clock_now();
    xpb_poison_fill(p, block);
    double t_poison = xpb_clock_now() - t0;
    float *out = correct_output(c, &d); /* untimed: stands for the download */
    xpb_validation v;
    t0 = xpb_clock_now();
    xpb_status st = xpb_validate_output(c, &d, "fp32", out, false, 0, 1, &v, &err);
    double t_valid = xpb_clock_now() - t0;
    xpb_validation_finish(&v, 0);
    printf("%s: in %.3f GiB, out %.3f GiB; make_data %.3f s, poison block fill (16 MiB) %.4f s, validate %.3f s "
           "(%llu elements, %s, %s)\n",
           c->id, (double)d.in_bytes[0] / 1073741824.0, (double)d.out_bytes[0] / 1073741824.0, t_data, t_poison,
           t_valid, (unsigned long long)v.checked, v.method, st == XPB_OK && v.passed ? "passed" : "FAILED");
    free(p);
    free(out);
    xpb_case_data_free(&d);
    xpb_case_list_free(&l);
    return st == XPB_OK && v.passed ? 0 : 1;
}

/* Validates out against c; returns the record. */
static xpb_validation check(const xpb_case *c, const xpb_case_data *d, const float *out)
{
    xpb_validation v;
    xpb_error err = {{0}};
    CHECK(xpb_validate_output(c, d, "fp32", out, false, 0, 1, &v, &err) == XPB_OK);
    xpb_validation_finish(&v, 0);
    return v;
}

/* As under MPI (xpb_runner_validate.c): each rank's receive buffer checked as a share of its own
 * (xpb_validate_units over its units), the shares combined (xpb_validation_combine); the verdict
 * must be the whole's, element for element counted once. sampled: the same sample split. */
static void check_split(const xpb_case *c, const xpb_case_data *d, const float *out, int n, bool sampled)
{
    xpb_validation whole, v;
    xpb_error err = {{0}};
    CHECK(xpb_validate_output(c, d, "fp32", out, sampled, 8, 5, &whole, &err) == XPB_OK);
    xpb_validation_finish(&whole, 0);
    size_t unit = c->workload->unit_elements(c), per = d->out_elements / (size_t)n / unit;
    xpb_validation_part parts[8];
    for (int r = 0; r < n && r < 8; r++) {
        CHECK(xpb_validate_units(c, d, "fp32", out, (size_t)r * per, (size_t)(r + 1) * per, sampled, 8, 5, &parts[r],
                                 &err) == XPB_OK);
        parts[r].v.guard_violations = r == n - 1; /* one guard byte held by the last rank */
    }
    xpb_validation_combine(parts, n, c, "fp32", &v);
    CHECK(v.guard_violations == 1);
    xpb_validation_finish(&v, 0);
    CHECK(v.passed == whole.passed && v.checked == whole.checked && v.unwritten == whole.unwritten &&
          v.out_of_tolerance == whole.out_of_tolerance && v.n_mismatches == whole.n_mismatches &&
          strcmp(v.method, whole.method) == 0);
    if (whole.out_of_tolerance == 1 && whole.unwritten == 0) /* a unique worst (ties go to whichever thread merged first) */
        CHECK(v.worst_index == whole.worst_index);
    CHECK(v.n_mismatches == 0 || v.mismatches[0].index == whole.mismatches[0].index);
    CHECK_NEAR(v.rel_l2_err, whole.rel_l2_err, 1e-12);
}

/* The case of op at bytes on n ranks with its inputs made in d (seed 3), or NULL (a failed CHECK). */
static const xpb_case *case_with_data(xpb_case_list *l, const char *op, long long bytes, int n, xpb_case_data *d)
{
    const xpb_case *c = case_of(l, op, bytes, n);
    xpb_error err = {{0}};
    CHECK(c != NULL && c->workload->make_data(c, 3, d, &err) == XPB_OK);
    return c && d->in[0] ? c : NULL;
}

/* op on n ranks at bytes: correct, one rank unwritten, one element wrong. */
static void one_op(const char *op, long long bytes, int n, size_t want_unit)
{
    xpb_case_list l = {0};
    xpb_case_data d;
    const xpb_case *c = case_with_data(&l, op, bytes, n, &d);
    if (!c)
        return;
    size_t unit = c->workload->unit_elements(c), recv = d.out_elements / (size_t)n;
    CHECK(unit == want_unit);
    CHECK(recv % unit == 0); /* units never straddle two ranks */
    float *out = correct_output(c, &d);
    CHECK(out != NULL);
    if (!out)
        return;
    xpb_validation v = check(c, &d, out);
    CHECK(v.passed && v.checked == d.out_elements && strcmp(v.method, "full") == 0);
    check_split(c, &d, out, n, false);
    check_split(c, &d, out, n, true);
    /* the last rank's receive buffer left as the poison: every element of it unwritten */
    float *bad = malloc(d.out_bytes[0]);
    memcpy(bad, out, d.out_bytes[0]);
    xpb_poison_fill(bad + (size_t)(n - 1) * recv, recv * sizeof *bad);
    v = check(c, &d, bad);
    CHECK(!v.passed && v.unwritten == recv && v.mismatches[0].index == (int64_t)((size_t)(n - 1) * recv));
    check_split(c, &d, bad, n, false);
    /* one wrong element in rank 1, past its first unit */
    memcpy(bad, out, d.out_bytes[0]);
    size_t at = recv + recv / 2 + 1;
    bad[at] += 1.0f;
    v = check(c, &d, bad);
    CHECK(!v.passed && v.out_of_tolerance == 1 && v.worst_index == (int64_t)at);
    check_split(c, &d, bad, n, false);
    free(bad);
    free(out);
    xpb_case_data_free(&d);
    xpb_case_list_free(&l);
}

/* The reference of op over units [u0, u1) against each element worked out here from the inputs
 * (independent of the workload's stepping through ranks and chunks), at a size where chunks and
 * units cut each other mid-way. */
static void reference_direct(const char *op, long long bytes, int n, size_t u0, size_t u1)
{
    xpb_case_list l = {0};
    xpb_case_data d;
    const xpb_case *c = case_with_data(&l, op, bytes, n, &d);
    if (!c)
        return;
    size_t unit = c->workload->unit_elements(c), recv = d.out_elements / (size_t)n;
    size_t send = d.in_bytes[0] / sizeof(float) / (size_t)n, ch = strcmp(op, "all_gather") == 0 ? send : recv / (size_t)n;
    const float *in = d.in[0];
    double *ref = malloc((u1 - u0) * unit * sizeof *ref), *tol = malloc((u1 - u0) * unit * sizeof *tol);
    c->workload->reference(c, &d, "fp32", u0, u1, ref, tol);
    size_t bad = 0;
    for (size_t e = u0 * unit; e < u1 * unit; e++) {
        size_t r = e / recv, j = e % recv, q = j / ch;
        double want = strcmp(op, "all_gather") == 0 ? in[q * send + j % ch] : in[q * send + r * ch + j % ch];
        bad += ref[e - u0 * unit] != want;
    }
    CHECK(bad == 0);
    free(ref);
    free(tol);
    xpb_case_data_free(&d);
    xpb_case_list_free(&l);
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "--bench") == 0)
        return bench(argv[2], atoll(argv[3]), atoi(argv[4]));
    /* 2 MiB per rank: 2^19 floats, units of 2^16 */
    one_op("all_reduce", 1 << 21, 2, 1 << 16);
    one_op("all_gather", 12 << 16, 3, 1 << 16); /* 3 ranks: chunks of 2^16 floats, 3 x 2^16 received */
    one_op("reduce_scatter", 3 << 19, 3, 1 << 16);
    one_op("all_to_all", 1 << 20, 4, 1 << 16);
    one_op("broadcast", 1 << 20, 2, 1 << 16);
    one_op("sendrecv", 1 << 20, 2, 1 << 16);
    /* chunks of 3 x 2^15 floats, units of 2^16: a unit starts mid-chunk, a chunk mid-unit */
    one_op("all_to_all", 786432, 2, 1 << 16);
    one_op("all_gather", 786432, 2, 1 << 16);
    reference_direct("all_to_all", 786432, 2, 1, 3); /* from mid-rank 0 into rank 1 */
    reference_direct("all_gather", 786432, 2, 1, 3);
    reference_direct("all_to_all", 786432, 2, 0, 6);
    /* 65537 floats per rank (odd): units of one element, still every element checked */
    one_op("all_reduce", 4 * 65537, 2, 1);
    /* a small receive buffer is one unit, as before */
    one_op("sendrecv", 4 * 255, 3, 255);
    /* each MPI process's OpenMP threads: its share of the host's cores, within its affinity mask */
    CHECK(xpb_mpi_threads_for(64, 64, 4) == 16);
    CHECK(xpb_mpi_threads_for(64, 32, 4) == 16); /* bound to a socket of 32, two processes on it */
    CHECK(xpb_mpi_threads_for(64, 1, 4) == 1);   /* bound to one core */
    CHECK(xpb_mpi_threads_for(64, 0, 4) == 16);  /* mask unknown */
    CHECK(xpb_mpi_threads_for(2, 2, 4) == 1);    /* more processes than cores: one each */
    CHECK(xpb_mpi_threads_for(16, 16, 1) == 16);
    XPB_TEST_END();
}
