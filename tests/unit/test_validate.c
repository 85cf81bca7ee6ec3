/* test_validate.c - the checker: exact matches pass; one wrong, unwritten or NaN element fails;
 * guard damage fails; metrics are computed as documented; sampling records its method. */
#include <stdlib.h>
#include <string.h>

#include "xpb_test.h"
#include "xpb_validate.h"

/* A fake workload: reference[i] = i * 0.5, tolerance 1e-3 (enough to test the checker alone). */
static size_t unit1(const xpb_case *c) { (void)c; return 1; }
static void ref_fn(const xpb_case *c, const xpb_case_data *d, const char *prec, size_t u0, size_t u1,
                   double *ref, double *tol)
{
    (void)c; (void)d; (void)prec;
    for (size_t u = u0; u < u1; u++) {
        ref[u - u0] = (double)u * 0.5;
        tol[u - u0] = 1e-3;
    }
}
static const char *tol_text(const xpb_case *c, const char *p) { (void)c; (void)p; return "1e-3"; }
static const xpb_workload_i fake = {.name = "fake", .unit_elements = unit1, .reference = ref_fn,
                                    .tolerance_text = tol_text};

int main(void)
{
    enum { N = 1000 };
    xpb_case c = {.workload = &fake};
    xpb_case_data d = {.out_elements = N};
    float *out = malloc(N * sizeof *out);
    xpb_validation v;
    xpb_error err;

    for (int i = 0; i < N; i++)
        out[i] = (float)i * 0.5f;
    CHECK(xpb_validate_output(&c, &d, "fp32", out, false, 0, 1, &v, &err) == XPB_OK);
    xpb_validation_finish(&v, 0);
    CHECK(v.passed);
    CHECK(v.checked == N);
    CHECK(v.max_abs_err == 0 && v.rel_l2_err == 0 && v.max_ulp == 0);
    CHECK(strcmp(v.method, "full") == 0);

    out[500] += 0.01f; /* one element off by 10x the tolerance */
    xpb_validate_output(&c, &d, "fp32", out, false, 0, 1, &v, &err);
    xpb_validation_finish(&v, 0);
    CHECK(!v.passed);
    CHECK(v.out_of_tolerance == 1);
    CHECK(v.worst_index == 500);
    CHECK(v.n_mismatches == 1 && v.mismatches[0].index == 500);
    CHECK_NEAR(v.max_abs_err, 0.01, 1e-5);
    CHECK(v.max_err_over_tol > 9 && v.max_err_over_tol < 11);
    out[500] = 250.0f;

    uint32_t poison = XPB_POISON_BITS; /* an unwritten element */
    memcpy(&out[7], &poison, 4);
    xpb_validate_output(&c, &d, "fp32", out, false, 0, 1, &v, &err);
    xpb_validation_finish(&v, 0);
    CHECK(!v.passed && v.unwritten == 1 && v.nan_count == 0);
    out[7] = 3.5f;

    out[9] = NAN; /* NaN never passes */
    xpb_validate_output(&c, &d, "fp32", out, false, 0, 1, &v, &err);
    xpb_validation_finish(&v, 0);
    CHECK(!v.passed && v.nan_count == 1);
    out[9] = 4.5f;

    xpb_validate_output(&c, &d, "fp32", out, false, 0, 1, &v, &err); /* guard damage alone fails */
    xpb_validation_finish(&v, 3);
    CHECK(!v.passed && v.guard_violations == 3);

    unsigned char guard[XPB_GUARD_BYTES];
    xpb_poison_fill(guard, sizeof guard);
    CHECK(xpb_guard_violations(guard, sizeof guard) == 0);
    guard[100] ^= 1;
    CHECK(xpb_guard_violations(guard, sizeof guard) == 1);

    /* sampled: first, last and 16 random units; a bad first element is always caught */
    out[0] = 99.0f;
    xpb_validate_output(&c, &d, "fp32", out, true, 16, 1, &v, &err);
    xpb_validation_finish(&v, 0);
    CHECK(!v.passed && v.checked == 18);
    CHECK(strncmp(v.method, "sampled", 7) == 0);

    /* the sample's units: at most 2^24 elements' worth, at least 16 */
    CHECK(xpb_validate_sample_count(4096, 1) == 4096);
    CHECK(xpb_validate_sample_count(16, 262144) == 16);
    CHECK(xpb_validate_sample_count(4096, 262144) == 64);
    CHECK(xpb_validate_sample_count(4096, (size_t)1 << 30) == 16);
    CHECK(xpb_validate_sample_count(4096, 0) == 4096);

    /* more than XPB_MAX_MISMATCHES bad elements: the first ones by index are kept */
    for (int i = 0; i < N; i++)
        out[i] = -1.0f;
    xpb_validate_output(&c, &d, "fp32", out, false, 0, 1, &v, &err);
    CHECK(v.out_of_tolerance == N - 0 - 0 || v.out_of_tolerance == N);
    CHECK(v.n_mismatches == XPB_MAX_MISMATCHES);
    CHECK(v.mismatches[0].index == 0 || v.mismatches[0].index == 1);
    free(out);
    XPB_TEST_END();
}
