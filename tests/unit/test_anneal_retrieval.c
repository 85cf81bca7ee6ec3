/* test_anneal_retrieval.c - the retrieval report's host half (workloads/anneal/retrieval.c) on
 * hand-made cases whose recall is known exactly: fp16 rounding, exact and compressed top-k with
 * their tie rules (equal distances to the lowest point index, also across anchors; empty anchors
 * skipped), recall and anchor-level recall, and the search check's bound. */
#include <stdlib.h>
#include <string.h>

#include "anneal/anneal_case.h"
#include "xpb_test.h"

static void test_fp16(void)
{
    CHECK(anneal_fp16_round(1.0f) == 1.0f);
    CHECK(anneal_fp16_round(-2.5f) == -2.5f);
    CHECK(anneal_fp16_round(1.0f + 0x1p-11f) == 1.0f);                  /* tie: to the even 1.0 */
    CHECK(anneal_fp16_round(1.0f + 3 * 0x1p-11f) == 1.0f + 0x1p-9f);    /* tie: to the even mantissa */
    CHECK(anneal_fp16_round(1.0f + 0x1p-11f + 0x1p-20f) == 1.0f + 0x1p-10f);
    CHECK(anneal_fp16_round(0.1f) == 0.0999755859375f);
    CHECK(anneal_fp16_round(65519.0f) == 65504.0f);
    CHECK(isinf(anneal_fp16_round(65520.0f)));                          /* halfway to 65536: inf */
    CHECK(anneal_fp16_round(0x1p-25f) == 0.0f);                         /* half the smallest subnormal */
    CHECK(anneal_fp16_round(3 * 0x1p-25f) == 0x1p-23f);
    CHECK(anneal_fp16_round(0x1p-14f - 0x1p-30f) == 0x1p-14f);          /* rounds up to the smallest normal */
}

/* Six points on a line, 0 1 2 | 5 6 7, in two anchors at 1 and 6, and a third anchor, empty (a
 * merged one), that sits on every query: it must never rank. Distances are exact in fp32. */
static const float X[] = {0, 1, 2, 5, 6, 7};
static const uint32_t ASG[] = {0, 0, 0, 1, 1, 1};
static const float Q[] = {2.5f, 4.0f, 3.5f};

static void anchor_row(float q, float *row)
{
    row[0] = (q - 1) * (q - 1), row[1] = (q - 6) * (q - 6), row[2] = 0.0f;
}

static void test_rankings(void)
{
    uint32_t ex[3 * 4], got[3 * 4], row_top[4];
    anneal_exact_topk(X, 6, 1, Q, 3, 4, ex);
    /* q = 2.5: distances 6.25 2.25 0.25 6.25 12.25 20.25: 2, 1, then 0 and 3 tie: 0 first */
    CHECK(ex[0] == 2 && ex[1] == 1 && ex[2] == 0 && ex[3] == 3);
    /* q = 4: 16 9 4 1 4 9: 3, then 2 and 4 tie at 4, then 1 and 5 at 9 */
    CHECK(ex[4] == 3 && ex[5] == 2 && ex[6] == 4 && ex[7] == 1);
    /* q = 3.5: 12.25 6.25 2.25 2.25 6.25 12.25: 2, 3, 1, 4 */
    CHECK(ex[8] == 2 && ex[9] == 3 && ex[10] == 1 && ex[11] == 4);
    float row6[6];
    for (int i = 0; i < 6; i++)
        row6[i] = (4.0f - X[i]) * (4.0f - X[i]);
    anneal_row_topk(row6, 6, 4, row_top); /* the same ranking over an fp32 row */
    CHECK(memcmp(row_top, ex + 4, sizeof row_top) == 0);

    anneal_csr csr;
    int64_t work[6];
    CHECK(anneal_csr_build(&csr, ASG, 6, 3));
    for (int q = 0; q < 3; q++) {
        float row[3];
        anchor_row(Q[q], row);
        anneal_compressed_topk(row, &csr, 4, work, got + 4 * q);
    }
    /* q = 2.5: anchor 0 (2.25) before anchor 1 (12.25): 0 1 2, then 3 */
    CHECK(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == 3);
    /* q = 4: anchor 1 (4) first: 3 4 5, then 0 */
    CHECK(got[4] == 3 && got[5] == 4 && got[6] == 5 && got[7] == 0);
    /* q = 3.5: both anchors at 6.25: their points merged by index */
    CHECK(got[8] == 0 && got[9] == 1 && got[10] == 2 && got[11] == 3);
    /* a row with a NaN (a broken kernel) ranks what it can and marks the rest */
    float bad[3] = {NAN, NAN, 0.0f};
    uint32_t part[4];
    anneal_compressed_topk(bad, &csr, 4, work, part);
    CHECK(part[0] == UINT32_MAX && part[3] == UINT32_MAX);
    anneal_csr_free(&csr);

    /* recall over q = 2.5 and q = 4 (the first two rows):
     *   k = 2: {0,1} vs {2,1}: 1/2; {3,4} vs {3,2}: 1/2          -> 0.5
     *   k = 3: {0,1,2} vs {2,1,0}: 1; {3,4,5} vs {3,2,4}: 2/3     -> 5/6
     *   k = 4: 1; {3,4,5,0} vs {3,2,4,1}: 2/4                     -> 0.75
     * anchor level, k = 2: q = 2.5 holds anchor 0, exact 2 and 1 are both in it: 1; q = 4 holds
     * anchor 1, exact 3 is in it, 2 is not: 1/2 -> 0.75. With q = 3.5 (k = 2: {0,1} vs {2,3}: 0;
     * anchor level: only anchor 0 is held, so 2 counts and 3 does not: 1/2) the means over three. */
    double r, ar;
    anneal_recall(got, ex, ASG, 2, 4, 2, &r, &ar);
    CHECK_NEAR(r, 0.5, 1e-15);
    CHECK_NEAR(ar, 0.75, 1e-15);
    anneal_recall(got, ex, ASG, 2, 4, 3, &r, &ar);
    CHECK_NEAR(r, 5.0 / 6.0, 1e-15);
    anneal_recall(got, ex, ASG, 2, 4, 4, &r, &ar);
    CHECK_NEAR(r, 0.75, 1e-15);
    anneal_recall(got, ex, ASG, 3, 4, 2, &r, &ar);
    CHECK_NEAR(r, (0.5 + 0.5 + 0.0) / 3, 1e-15);
    CHECK_NEAR(ar, (1 + 0.5 + 0.5) / 3, 1e-15);
    anneal_recall(got, ex, ASG, 3, 4, 4, &r, &ar); /* q = 3.5, k = 4: {0,1,2,3} vs {2,3,1,4}: 3/4 */
    CHECK_NEAR(r, (1 + 0.5 + 0.75) / 3, 1e-15);
}

/* The search check accepts the GEMM-form distances and rejects one off by more than its bound. */
static void test_search_check(void)
{
    const float q[] = {0.5f, -1.0f, 2.0f, 0.25f}, a[] = {1.0f, 1.0f, -3.0f, 0.0f, 0.5f, -1.0f};
    float dist[2 * 3];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++) {
            float qn = q[2 * i] * q[2 * i] + q[2 * i + 1] * q[2 * i + 1];
            float an = a[2 * j] * a[2 * j] + a[2 * j + 1] * a[2 * j + 1];
            float v = qn - 2.0f * (q[2 * i] * a[2 * j] + q[2 * i + 1] * a[2 * j + 1]) + an;
            dist[i * 3 + j] = v > 0 ? v : 0.0f;
        }
    xpb_validation v;
    memset(&v, 0, sizeof v);
    anneal_checks k = {.v = &v};
    CHECK(anneal_check_search(&k, q, 2, 2, a, 3, 1, dist));
    CHECK(v.checked == 6 && k.first_fail[0] == 0);
    dist[4] *= 1.001f; /* a wrong element: 1e-3 relative, far past gamma_4 */
    CHECK(!anneal_check_search(&k, q, 2, 2, a, 3, 1, dist));
    CHECK(strstr(k.first_fail, "search") != NULL);
    dist[4] = -0.0f; /* a negative zero is never a distance ... */
    memset(&k, 0, sizeof k), k.v = &v;
    CHECK(!anneal_check_search(&k, q, 2, 2, a, 3, 1, dist));
    CHECK(strstr(k.first_fail, "negative") != NULL);
    memset(&k, 0, sizeof k), k.v = &v; /* ... but stride 2 checks query 0 alone */
    CHECK(anneal_check_search(&k, q, 2, 2, a, 3, 2, dist));
}

int main(void)
{
    test_fp16();
    test_rankings();
    test_search_check();
    XPB_TEST_END();
}
