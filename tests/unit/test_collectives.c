/* test_collectives.c - the collectives workload's host half (workloads/collectives/): which cases a
 * preset makes for a group of n, nccl-tests' bus factors, exact small-integer inputs, and the
 * reference of every op on a 3-rank example worked out here index by index. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_test.h"
#include "xpb_workload.h"

static const xpb_case *find(const xpb_case_list *l, const char *id)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->items[i].id, id) == 0)
            return &l->items[i];
    return NULL;
}

/* The reference of case c on its own data: ref[r][j] for every rank r; NULL on failure. */
static double *reference_of(const xpb_case *c, xpb_case_data *d, int n, size_t *recv)
{
    const xpb_workload_i *w = c->workload;
    xpb_error err = {{0}};
    if (w->make_data(c, 7, d, &err) != XPB_OK)
        return NULL;
    *recv = w->unit_elements(c);
    double *ref = malloc((size_t)n * *recv * sizeof *ref), *tol = malloc((size_t)n * *recv * sizeof *tol);
    w->reference(c, d, "fp32", 0, (size_t)n, ref, tol);
    for (size_t i = 0; i < (size_t)n * *recv; i++)
        CHECK(tol[i] == 0); /* exact */
    free(tol);
    return ref;
}

int main(void)
{
    const xpb_workload_i *w = xpb_workload_find("collectives");
    CHECK(w != NULL && w->group);
    /* quick preset on a group of 2: every op from 8 B; chunked ops split the 8 B into 2 chunks */
    xpb_sizes s2 = {.ranks = 2};
    xpb_case_list l = {0};
    xpb_error err = {{0}};
    CHECK(w->add_cases("quick", &s2, &l, &err) == XPB_OK);
    const xpb_case *ar = find(&l, "collectives/all_reduce/bytes=8,gpus=2/fp32");
    const xpb_case *ag = find(&l, "collectives/all_gather/bytes=8,gpus=2/fp32");
    const xpb_case *big = find(&l, "collectives/sendrecv/bytes=8388608,gpus=2/fp32");
    CHECK(ar && ag && big);
    CHECK(ar && ar->bus_factor == 1.0 && ar->bytes_read == 8); /* 2(n-1)/n at n = 2 */
    CHECK(ag && ag->bus_factor == 0.5);
    CHECK(big && big->bus_factor == 1.0);
    xpb_case_list_free(&l);

    /* 3 ranks, --size bytes=24: unchunked ops 6 floats, chunked ones 2 per chunk */
    xpb_sizes s3 = {.count = 1, .ranks = 3, .kv = {{"bytes", 24}}};
    CHECK(w->add_cases("quick", &s3, &l, &err) == XPB_OK);
    CHECK(l.count == 6);
    const char *ids[] = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "sendrecv"};
    for (int k = 0; k < 6; k++) {
        char id[128];
        snprintf(id, sizeof id, "collectives/%s/bytes=24,gpus=3/fp32", ids[k]);
        const xpb_case *c = find(&l, id);
        CHECK(c != NULL);
        if (!c)
            continue;
        xpb_case_data d;
        size_t recv = 0;
        double *ref = reference_of(c, &d, 3, &recv);
        CHECK(ref != NULL);
        if (!ref)
            continue;
        const float *in = d.in[0];
        size_t send = d.in_bytes[0] / sizeof(float) / 3;
        for (size_t i = 0; i < 3 * send; i++)
            CHECK(in[i] == floorf(in[i]) && fabsf(in[i]) <= 4);
#define IN(q, i) ((double)in[(q) * send + (i)])
#define OUT(r, j) ref[(r) * recv + (j)]
        switch (k) {
        case 0: /* all_reduce: 6 floats each, the sum over ranks */
            CHECK(send == 6 && recv == 6);
            CHECK(OUT(2, 5) == IN(0, 5) + IN(1, 5) + IN(2, 5));
            break;
        case 1: /* all_gather: 2 floats in, 6 out: rank q's chunk at q */
            CHECK(send == 2 && recv == 6);
            CHECK(OUT(0, 3) == IN(1, 1) && OUT(2, 4) == IN(2, 0));
            break;
        case 2: /* reduce_scatter: 6 in, 2 out: chunk r of the sum */
            CHECK(send == 6 && recv == 2);
            CHECK(OUT(1, 1) == IN(0, 3) + IN(1, 3) + IN(2, 3));
            break;
        case 3: /* broadcast from rank 0 */
            CHECK(OUT(1, 2) == IN(0, 2) && OUT(2, 5) == IN(0, 5));
            break;
        case 4: /* all_to_all: rank r's chunk q is rank q's chunk r */
            CHECK(send == 6 && recv == 6);
            CHECK(OUT(1, 0 * 2 + 1) == IN(0, 1 * 2 + 1) && OUT(0, 2 * 2 + 0) == IN(2, 0 * 2 + 0));
            break;
        case 5: /* sendrecv: a ring, from rank r-1 */
            CHECK(OUT(0, 4) == IN(2, 4) && OUT(1, 0) == IN(0, 0));
            break;
        }
#undef IN
#undef OUT
        free(ref);
        xpb_case_data_free(&d);
    }
    xpb_case_list_free(&l);
    /* the default preset: every 4x from 16 B up to and including 1 GiB (docs/multi-gpu.md); full:
     * every 2x from 8 B up to and including 8 GiB */
    xpb_sizes s4 = {.ranks = 4};
    CHECK(w->add_cases("default", &s4, &l, &err) == XPB_OK);
    CHECK(find(&l, "collectives/all_reduce/bytes=16,gpus=4/fp32") != NULL);
    CHECK(find(&l, "collectives/all_reduce/bytes=1073741824,gpus=4/fp32") != NULL);
    CHECK(find(&l, "collectives/all_reduce/bytes=536870912,gpus=4/fp32") == NULL);
    CHECK(find(&l, "collectives/all_reduce/bytes=8,gpus=4/fp32") == NULL);
    size_t n_all_reduce = 0;
    for (size_t i = 0; i < l.count; i++)
        n_all_reduce += strncmp(l.items[i].id, "collectives/all_reduce/", 23) == 0;
    CHECK(n_all_reduce == 14); /* 2^4, 2^6, .., 2^30 */
    xpb_case_list_free(&l);
    CHECK(w->add_cases("full", &s4, &l, &err) == XPB_OK);
    CHECK(find(&l, "collectives/all_reduce/bytes=8589934592,gpus=4/fp32") != NULL);
    CHECK(find(&l, "collectives/all_reduce/bytes=8,gpus=4/fp32") != NULL);
    xpb_case_list_free(&l);
    /* 8 ranks, 16 B: below 4n bytes a chunked op has nothing to send, so no case */
    xpb_sizes s8 = {.count = 1, .ranks = 8, .kv = {{"bytes", 16}}};
    CHECK(w->add_cases("quick", &s8, &l, &err) == XPB_OK);
    CHECK(l.count == 3); /* all_reduce, broadcast, sendrecv */
    xpb_case_list_free(&l);
    XPB_TEST_END();
}
