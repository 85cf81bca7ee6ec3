/* test_sharded_assign.c - the sharded annealing assign's host half (workloads/sharded/anneal_assign.c)
 * without a GPU: its case ids and presets beside the sharded GEMM's, and its validation judged on
 * a "device" output that the CPU computes as the CUDA kernel does (fp32 GEMM-form distances, the
 * argmin with ties to the lowest j, the group's counts): the right output passes, and each way of
 * getting it wrong (a far anchor, a wrong index alone, a count off by one, one rank's counts
 * without the all_reduce, a distance off) fails. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_test.h"
#include "xpb_validate.h"
#include "xpb_workload.h"

static const xpb_case *find(const xpb_case_list *l, const char *id)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i].id, id) == 0)
            return &l->items[i];
    return NULL;
}

static size_t count_op(const xpb_case_list *l, const char *op)
{
    size_t k = 0;
    for (size_t i = 0; i < l->count; i++)
        k += strstr(l->items[i].id, op) != NULL;
    return k;
}

/* Output 0 as the CUDA op writes it: dist (clamped >= +0), the anchor as fp32, the counts. */
static void fake_device(const float *x, const float *a, int64_t n, int64_t d, int64_t m, float *out)
{
    float *an = malloc((size_t)m * sizeof *an);
    for (int64_t j = 0; j < m; j++) {
        float s = 0;
        for (int64_t k = 0; k < d; k++)
            s = fmaf(a[j * d + k], a[j * d + k], s);
        an[j] = s;
    }
    for (int64_t j = 0; j < m; j++)
        out[2 * n + j] = 0;
    for (int64_t i = 0; i < n; i++) {
        const float *xi = x + i * d;
        float xn = 0, best = INFINITY;
        int64_t bj = 0;
        for (int64_t k = 0; k < d; k++)
            xn = fmaf(xi[k], xi[k], xn);
        for (int64_t j = 0; j < m; j++) {
            float dot = 0;
            for (int64_t k = 0; k < d; k++)
                dot = fmaf(xi[k], a[j * d + k], dot);
            float v = fmaf(-2.0f, dot, xn + an[j]);
            if (v < best)
                best = v, bj = j;
        }
        out[i] = best > 0 ? best : 0.0f;
        out[n + i] = (float)bj;
        out[2 * n + bj] += 1;
    }
    free(an);
}

/* Validates out against case c's reference; true when it passed. */
static bool passes(const xpb_case *c, const xpb_case_data *d, const float *out)
{
    xpb_validation v;
    xpb_error err = {{0}};
    CHECK(xpb_validate_output(c, d, "fp32", out, false, 0, 1, &v, &err) == XPB_OK);
    xpb_validation_finish(&v, 0);
    return v.passed;
}

/* The farthest anchor of point i, by the fake kernel's arithmetic (enough here: far is far). */
static int64_t farthest(const float *x, const float *a, int64_t d, int64_t m, int64_t i, float *dist)
{
    int64_t fj = 0;
    *dist = -1;
    for (int64_t j = 0; j < m; j++) {
        float s = 0;
        for (int64_t k = 0; k < d; k++)
            s += (x[i * d + k] - a[j * d + k]) * (x[i * d + k] - a[j * d + k]);
        if (s > *dist)
            *dist = s, fj = j;
    }
    return fj;
}

static void check_validation(const xpb_workload_i *w, int64_t n, int64_t dim, int64_t m)
{
    xpb_sizes s = {.count = 3, .ranks = 4, .kv = {{"n", n}, {"d", dim}, {"m", m}}};
    xpb_case_list l = {0};
    xpb_error err = {{0}};
    CHECK(w->add_cases("quick", &s, &l, &err) == XPB_OK);
    CHECK(l.count == 1); /* the GEMM has no case for an n, d, m size */
    if (l.count != 1)
        return;
    const xpb_case *c = &l.items[0];
    xpb_case_data d;
    CHECK(w->make_data(c, 7, &d, &err) == XPB_OK);
    CHECK(d.host != NULL && d.n_out == 3 && d.out_elements == (size_t)(2 * n + m));
    CHECK(w->sampled_units(c) == 0);
    const float *x = d.in[0], *a = d.in[1];
    size_t total = d.out_elements;
    float *good = malloc(total * sizeof *good), *bad = malloc(total * sizeof *bad);
    fake_device(x, a, n, dim, m, good);
    CHECK(passes(c, &d, good));

    int64_t i = n / 2, j = (int64_t)good[n + i];
    float far_dist;
    int64_t fj = farthest(x, a, dim, m, i, &far_dist);
    if (fj != j) { /* point i given its farthest anchor, consistently: dist, index and counts */
        memcpy(bad, good, total * sizeof *bad);
        bad[i] = far_dist, bad[n + i] = (float)fj, bad[2 * n + j] -= 1, bad[2 * n + fj] += 1;
        CHECK(!passes(c, &d, bad));
        memcpy(bad, good, total * sizeof *bad); /* a wrong index alone */
        bad[n + i] = (float)fj;
        CHECK(!passes(c, &d, bad));
        memcpy(bad, good, total * sizeof *bad); /* the counts as if i were fj's */
        bad[2 * n + j] -= 1, bad[2 * n + fj] += 1;
        CHECK(!passes(c, &d, bad));
    }
    /* one count off by one, on an anchor whose count is exact (no near tie: the GEMM-form bound
     * makes two anchors of one blob near ties for many of its points, and their counts a range) */
    int64_t exact = -1, ranged = 0;
    for (int64_t q = 0; q < m; q++) {
        double ref, tol;
        w->reference(c, &d, "fp32", 2 * (size_t)n + (size_t)q, 2 * (size_t)n + (size_t)q + 1, &ref, &tol);
        CHECK(ref - tol <= good[2 * n + q] && good[2 * n + q] <= ref + tol);
        if (tol == 0 && exact < 0)
            exact = q;
        ranged += tol > 0;
    }
    CHECK(exact >= 0);
    printf("n=%lld d=%lld m=%lld: %lld of the counts a range (near ties)\n", (long long)n, (long long)dim, (long long)m,
           (long long)ranged);
    memcpy(bad, good, total * sizeof *bad);
    bad[2 * n + (exact >= 0 ? exact : 0)] += 1;
    CHECK(!passes(c, &d, bad));
    memcpy(bad, good, total * sizeof *bad); /* the last rank's own counts: no all_reduce */
    for (int64_t q = 0; q < m; q++)
        bad[2 * n + q] = 0;
    for (int64_t p = 3 * n / 4; p < n; p++)
        bad[2 * n + (int64_t)good[n + p]] += 1;
    CHECK(!passes(c, &d, bad));
    memcpy(bad, good, total * sizeof *bad); /* a distance 1% off */
    bad[i] = good[i] * 1.01f + 1e-3f;
    CHECK(!passes(c, &d, bad));
    free(good), free(bad);
    xpb_case_data_free(&d);
    xpb_case_list_free(&l);
}

/* Past the full reference: the points are sampled, each unit's reference is its own fp64 pass,
 * and a count is only bounded by 0 .. n. */
static void check_sampled(const xpb_workload_i *w)
{
    const int64_t n = 1000000, m = 150000; /* d = 1: n m d = 1.5e11, just past the full pass */
    xpb_sizes s = {.count = 3, .ranks = 2, .kv = {{"n", n}, {"d", 1}, {"m", m}}};
    xpb_case_list l = {0};
    xpb_error err = {{0}};
    CHECK(w->add_cases("quick", &s, &l, &err) == XPB_OK && l.count == 1);
    if (l.count != 1)
        return;
    const xpb_case *c = &l.items[0];
    xpb_case_data d;
    CHECK(w->make_data(c, 7, &d, &err) == XPB_OK);
    CHECK(d.host == NULL && w->sampled_units(c) == 4096);
    const float *x = d.in[0], *a = d.in[1];
    double ref[2], tol[2];
    w->reference(c, &d, "fp32", 2 * (size_t)n + 5, 2 * (size_t)n + 6, ref, tol);
    CHECK(ref[0] == n / 2.0 && tol[0] == n / 2.0);
    for (int64_t i = 0; i < n; i += n / 3) {
        double best = INFINITY;
        int64_t bj = 0;
        for (int64_t j = 0; j < m; j++) {
            double t = (double)x[i] - a[j];
            if (t * t < best)
                best = t * t, bj = j;
        }
        w->reference(c, &d, "fp32", (size_t)i, (size_t)i + 1, ref, tol);
        w->reference(c, &d, "fp32", (size_t)(n + i), (size_t)(n + i) + 1, ref + 1, tol + 1);
        CHECK(ref[0] == best && tol[0] > 0 && ref[1] == (double)bj);
    }
    xpb_case_data_free(&d);
    xpb_case_list_free(&l);
}

int main(void)
{
    const xpb_workload_i *w = xpb_workload_find("sharded");
    CHECK(w != NULL && w->group);
    if (!w)
        XPB_TEST_END();
    xpb_sizes s4 = {.ranks = 4};
    xpb_case_list l = {0};
    xpb_error err = {{0}};
    /* conformance: the GEMM's 10 cases unchanged, and 7 assign cases, n = 1 and 3 below 4 ranks */
    CHECK(w->add_cases("conformance", &s4, &l, &err) == XPB_OK);
    CHECK(count_op(&l, "/gemm_sharded/") == 10 && count_op(&l, "/anneal_assign_sharded/") == 7);
    CHECK(find(&l, "sharded/gemm_sharded/m=1,n=1,k=1,gpus=4/fp32") != NULL);
    CHECK(find(&l, "sharded/anneal_assign_sharded/n=1,d=1,m=1,gpus=4/fp32") != NULL);
    CHECK(find(&l, "sharded/anneal_assign_sharded/n=3,d=3,m=2,gpus=4/fp32") != NULL);
    CHECK(find(&l, "sharded/anneal_assign_sharded/n=4097,d=128,m=129,gpus=4/fp32") != NULL);
    xpb_case_list_free(&l);
    CHECK(w->add_cases("default", &s4, &l, &err) == XPB_OK);
    const xpb_case *big = find(&l, "sharded/anneal_assign_sharded/n=10000000,d=128,m=4096,gpus=4/fp32");
    CHECK(big != NULL && find(&l, "sharded/anneal_assign_sharded/n=1000000,d=128,m=1024,gpus=4/fp32") != NULL);
    CHECK(big && big->flops == 2.0 * 1e7 * 4096 * 128 && big->bytes_read == 4ull * (10000000ull + 4096) * 128);
    CHECK(big && w->sampled_units(big) == 4096);
    CHECK(find(&l, "sharded/gemm_sharded/m=4096,n=4096,k=4096,gpus=4/fp32") != NULL);
    xpb_case_list_free(&l);
    CHECK(w->add_cases("quick", &s4, &l, &err) == XPB_OK && count_op(&l, "/anneal_assign_sharded/") == 2);
    xpb_case_list_free(&l);
    CHECK(w->add_cases("full", &s4, &l, &err) == XPB_OK && count_op(&l, "/anneal_assign_sharded/") == 4);
    xpb_case_list_free(&l);
    CHECK(w->add_cases("nightly", &s4, &l, &err) == XPB_ERR_USAGE);
    /* sizes: the GEMM's keys make no assign case, and bad assign sizes are usage errors */
    xpb_sizes g = {.count = 3, .ranks = 2, .kv = {{"m", 8}, {"n", 8}, {"k", 8}}};
    CHECK(w->add_cases("quick", &g, &l, &err) == XPB_OK && l.count == 1 && count_op(&l, "/gemm_sharded/") == 1);
    xpb_case_list_free(&l);
    xpb_sizes bad1 = {.count = 3, .ranks = 2, .kv = {{"n", 3}, {"d", 1}, {"m", 4}}};
    xpb_sizes bad2 = {.count = 3, .ranks = 2, .kv = {{"n", (1 << 24) + 1}, {"d", 1}, {"m", 4}}};
    xpb_sizes bad3 = {.count = 3, .ranks = 2, .kv = {{"n", 8}, {"d", 4097}, {"m", 4}}};
    CHECK(w->add_cases("quick", &bad1, &l, &err) == XPB_ERR_USAGE);
    CHECK(w->add_cases("quick", &bad2, &l, &err) == XPB_ERR_USAGE);
    CHECK(w->add_cases("quick", &bad3, &l, &err) == XPB_ERR_USAGE);
    xpb_case_list_free(&l);

    check_validation(w, 4097, 128, 129);
    check_validation(w, 257, 3, 257);
    check_validation(w, 3, 3, 2);
    check_sampled(w);
    XPB_TEST_END();
}
