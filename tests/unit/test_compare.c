/* test_compare.c - the statistics and verdicts of `xpubench compare` (cases, and the total and
 * ops of stateful cases), results-file loading errors, the .npy header format, and the tuner's
 * decision rule, which stands on compare's verdicts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_compare.h"
#include "xpb_dump.h"
#include "xpb_npy.h"
#include "xpb_results_loaded.h"
#include "xpb_test.h"
#include "xpb_tune.h"

#define Z95_TEST 1.959963984540054 /* the two-sided 95% normal quantile */

/* ---- deterministic log-normal samples ------------------------------------------------------------ */

static uint64_t rng_state;

static double uniform01(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return ((double)(rng_state >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(void)
{
    return sqrt(-2.0 * log(uniform01())) * cos(6.283185307179586 * uniform01());
}

/* n samples of median * exp(N(0, sigma)). */
static double *lognormal(size_t n, double median, double sigma, uint64_t seed)
{
    double *v = malloc(n * sizeof *v);
    rng_state = seed * 0x9E3779B97F4A7C15ull + 1;
    for (size_t i = 0; i < n; i++)
        v[i] = median * exp(sigma * gauss());
    return v;
}

static xpb_shift compare_synthetic(double shift, double sigma, size_t n, uint64_t seed)
{
    const xpb_compare_opts o = XPB_COMPARE_OPTS_DEFAULT;
    double *a = lognormal(n, 1e-3, sigma, seed), *b = lognormal(n, 1e-3 * shift, sigma, seed + 1000);
    xpb_shift s = xpb_compare_samples(a, n, NAN, NAN, b, n, NAN, NAN, &o);
    free(a);
    free(b);
    return s;
}

static void test_statistics(void)
{
    double v[] = {5, 1, 4, 2, 3};
    CHECK_NEAR(xpb_median_of(v, 5), 3.0, 0);
    CHECK_NEAR(xpb_median_of(v, 4), 3.0, 0); /* {5,1,4,2} -> (2+4)/2 */
    double med, lo, hi;
    CHECK(xpb_median_ci(v, 5, &med, &lo, &hi) == 0 && lo == 1 && hi == 5); /* tiny n: the range */
    double *w = lognormal(1000, 1.0, 0.1, 7);
    CHECK(xpb_median_ci(w, 1000, &med, &lo, &hi) == 0 && lo < med && med < hi && hi / lo < 1.05);
    free(w);
    /* Mann-Whitney: a = {1,2,3}, b = {4,5,6}: U_a = 0, z = (4.5-0.5)/sqrt(5.25), p = 0.0809 */
    double a[] = {1, 2, 3}, b[] = {4, 5, 6}, u;
    CHECK_NEAR(xpb_mann_whitney_p(a, 3, b, 3, &u), 0.080856, 1e-5);
    CHECK_NEAR(u, 0.0, 0);
    double same[] = {2, 2, 2};
    CHECK_NEAR(xpb_mann_whitney_p(same, 3, same, 3, NULL), 1.0, 0); /* all tied */
    /* ties: a = {1,2,2,3}, b = {2,3,3,4}: ranks 1,3,3,3,6,6,6,8 -> R_a = 13, U_a = 3,
     * var = 16/12 * (9 - (24+24)/56) = 10.857, z = (8-3-0.5)/3.295 = 1.3657, p = 0.1720 */
    double ta[] = {1, 2, 2, 3}, tb[] = {2, 3, 3, 4};
    CHECK_NEAR(xpb_mann_whitney_p(ta, 4, tb, 4, &u), 0.17203, 1e-4);
    CHECK_NEAR(u, 3.0, 0);
    CHECK(isnan(xpb_mann_whitney_p(a, 0, b, 3, NULL)));
    /* rounds: one stray of 6 leaves the MAD alone; processes (history): the stray counts,
     * range / d2(6) = 0.5 / 2.534 around a median of 1 */
    double procs[] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.5};
    CHECK_NEAR(xpb_relative_sigma(procs, 6), 0.0, 0);
    CHECK_NEAR(xpb_history_sigma(procs, 6), 0.5 / 2.534, 1e-12);
    CHECK(isnan(xpb_history_sigma(procs, 1)));
    /* pooled runs: the spread of the runs' medians, which the MAD of the 15 pooled rounds leaves
     * out. Base 1.0, 1.0, 1.08 and new all alike: the log medians' squares around each side's mean
     * over 2 + 2 degrees of freedom; one run, or runs without a record: NaN */
    double pooled[] = {1.0, 1.001, 0.999, 1.0, 1.0, 1.0, 0.999, 1.001, 1.0, 1.0, 1.08, 1.08, 1.079, 1.081, 1.08};
    double flat[] = {0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92, 0.92};
    size_t runs[] = {5, 5, 5}, kb, kn, df;
    double l8 = log(1.08), sp = sqrt((2 * (l8 / 3) * (l8 / 3) + (2 * l8 / 3) * (2 * l8 / 3)) / 4);
    CHECK_NEAR(xpb_process_sigma((xpb_units){pooled, 15, runs, 3}, (xpb_units){flat, 15, runs, 3}, &kb, &kn, &df),
               sp, 1e-12);
    CHECK(kb == 3 && kn == 3 && df == 4);
    CHECK(xpb_relative_sigma(pooled, 15) < 0.002);
    /* one side without a record counts as one run; its spread is not known: df from the other */
    CHECK_NEAR(xpb_process_sigma((xpb_units){pooled, 15, NULL, 0}, (xpb_units){pooled, 15, runs, 3}, &kb, &kn, &df),
               sqrt((2 * (l8 / 3) * (l8 / 3) + (2 * l8 / 3) * (2 * l8 / 3)) / 2), 1e-12);
    CHECK(kb == 1 && kn == 3 && df == 2);
    CHECK(isnan(xpb_process_sigma((xpb_units){pooled, 15, NULL, 0}, (xpb_units){pooled, 5, runs, 1}, &kb, &kn, &df)));
    CHECK(df == 0 && kb == 1 && kn == 1);
    /* Student's t with the two-sided coverage of 3 sigmas (99.73%): the tables' 235.8 (1 df),
     * 19.21 (2), 9.219 (3), 6.620 (4), 4.277 (8); 1.96 sigmas over 10 df: 2.228; toward z as df
     * grows */
    CHECK_NEAR(xpb_t_for_z(3, 1), 235.80, 0.01);
    CHECK_NEAR(xpb_t_for_z(3, 2), 19.206, 0.001);
    CHECK_NEAR(xpb_t_for_z(3, 3), 9.2187, 0.0005);
    CHECK_NEAR(xpb_t_for_z(3, 4), 6.6201, 0.0005);
    CHECK_NEAR(xpb_t_for_z(3, 8), 4.2766, 0.0005);
    CHECK_NEAR(xpb_t_for_z(Z95_TEST, 10), 2.2281, 0.0005);
    CHECK(fabs(xpb_t_for_z(3, 2000) - 3) < 0.01);
    CHECK(isnan(xpb_t_for_z(3, 0)));
    /* ... and it widens the band: 8% faster against those three runs is `same`, named so, with
     * the band t(4) * sigma * sqrt(1/3 + 1/3) */
    double faster[] = {0.92, 0.921, 0.919, 0.92, 0.92, 0.92, 0.921, 0.919, 0.92, 0.92, 0.92, 0.92, 0.921, 0.919, 0.92};
    xpb_compare_opts o = XPB_COMPARE_OPTS_DEFAULT;
    xpb_shift s = xpb_compare_units((xpb_units){pooled, 15, runs, 3}, (xpb_units){faster, 15, runs, 3}, NAN, &o);
    CHECK(s.verdict == XPB_VERDICT_SAME && !strcmp(s.noise_source, "processes"));
    double sp3 = xpb_process_sigma((xpb_units){pooled, 15, runs, 3}, (xpb_units){faster, 15, runs, 3}, &kb, &kn, &df);
    CHECK_NEAR(s.noise, sp3, 1e-15);
    CHECK_NEAR(s.band, xpb_t_for_z(3, 4) * sp3 * sqrt(2.0 / 3), 1e-12);
    s = xpb_compare_units((xpb_units){pooled, 10, runs, 2}, (xpb_units){faster, 10, runs, 2}, NAN, &o);
    CHECK(s.verdict == XPB_VERDICT_FASTER); /* two runs a side, each in one state: nothing to see */
    /* CI's aa_quick_cpu under ASan (2 runs a side): base runs 11% apart, new both 32.5% faster,
     * every round agreeing. The base side's range / d2(2) gave a noise of 9.7%, a band of 29.2%
     * and a false `faster`; over the 2 degrees of freedom of 2 + 2 runs the band is t(2) = 19.2
     * pooled sigmas: too noisy to judge */
    double aa_b[] = {1.0, 1.0, 1.0, 1.0, 1.0, 1.11, 1.11, 1.11, 1.11, 1.11};
    double aa_n[] = {0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70, 0.70};
    s = xpb_compare_units((xpb_units){aa_b, 10, runs, 2}, (xpb_units){aa_n, 10, runs, 2}, NAN, &o);
    CHECK(s.verdict == XPB_VERDICT_NOISY && !strcmp(s.noise_source, "processes") && s.band > o.max_band);
    /* a real 10% slowdown of every run of a quiet case stays `slower` on 2 and on 3 runs a side */
    double q_b[] = {1.0, 1.002, 0.998, 1.0, 1.001, 1.003, 1.001, 1.002, 1.0, 1.004, 0.999, 1.0, 0.998, 1.001, 0.999};
    double q_n[15];
    for (size_t i = 0; i < 15; i++)
        q_n[i] = 1.10 * q_b[(i + 7) % 15];
    for (size_t k = 2; k <= 3; k++) {
        s = xpb_compare_units((xpb_units){q_b, 5 * k, runs, k}, (xpb_units){q_n, 5 * k, runs, k}, NAN, &o);
        CHECK(s.verdict == XPB_VERDICT_SLOWER && s.band < 0.1);
    }
}

static void test_verdicts(void)
{
    /* a clean 10% slowdown is slower; 10% faster is faster */
    xpb_shift s = compare_synthetic(1.10, 0.01, 200, 1);
    CHECK(s.verdict == XPB_VERDICT_SLOWER);
    CHECK(s.ratio > 1.08 && s.ratio < 1.12 && s.ratio_lo > 1.05 && s.ratio_hi < 1.15 && s.p_value < 1e-6);
    CHECK(compare_synthetic(1.0 / 1.10, 0.01, 200, 2).verdict == XPB_VERDICT_FASTER);
    /* 1% is significant with 2000 clean samples, but under the 5% threshold: same */
    s = compare_synthetic(1.01, 0.01, 2000, 3);
    CHECK(s.verdict == XPB_VERDICT_SAME && s.p_value < 0.05);
    CHECK(compare_synthetic(1.0, 0.01, 200, 4).verdict == XPB_VERDICT_SAME);
    /* heavy noise: never a verdict, whatever the true shift */
    for (uint64_t seed = 10; seed < 30; seed++) {
        CHECK(compare_synthetic(1.10, 0.8, 30, seed).verdict == XPB_VERDICT_NOISY);
        CHECK(compare_synthetic(1.00, 0.8, 30, seed + 100).verdict == XPB_VERDICT_NOISY);
    }
    /* too few samples */
    CHECK(compare_synthetic(1.5, 0.01, 3, 5).verdict == XPB_VERDICT_NOISY);
    /* no samples: medians only */
    const xpb_compare_opts o = XPB_COMPARE_OPTS_DEFAULT;
    s = xpb_compare_samples(NULL, 0, 1.0, 0.01, NULL, 0, 1.02, 0.01, &o);
    CHECK(s.verdict == XPB_VERDICT_SAME && isnan(s.p_value) && fabs(s.ratio - 1.02) < 1e-12);
    s = xpb_compare_samples(NULL, 0, 1.0, 0.01, NULL, 0, 1.5, 0.01, &o);
    CHECK(s.verdict == XPB_VERDICT_NOISY);
}

/* ---- results files ---------------------------------------------------------------------------- */

static const char *GOOD =
    "{\"schema\": \"xpubench-results\", \"schema_version\": 1, \"run_id\": \"r1\","
    " \"system\": {\"hostname\": \"h\", \"devices\": [{\"id\": \"cuda:0\", \"name\": \"GPU\"}]},"
    " \"cases\": [{\"id\": \"elementwise/add/n=4/fp32\", \"backend\": \"cuda\", \"device\": \"cuda:0\","
    " \"variant\": \"default\", \"status\": \"ok\", \"work\": {\"elements\": 4, \"flops\": 4},"
    " \"validation\": {\"passed\": true, \"max_err_over_tol\": 0.5},"
    " \"timing\": {\"kernel\": {\"median_s\": 0.002, \"cv\": null, \"samples_s\": [0.001, 0.002, null, 0.003]}},"
    " \"throughput\": {\"gbps\": 12.5, \"speedup_vs_cpu\": null}}]}";

static xpb_status parse(const char *text, xpb_error *err)
{
    xpb_results_file f;
    xpb_status st = xpb_results_parse("t.json", text, strlen(text), &f, err);
    xpb_results_file_free(&f);
    return st;
}

static bool parse_fails_with(const char *text, const char *want)
{
    xpb_error err = {{0}};
    bool ok = parse(text, &err) != XPB_OK && strstr(err.msg, want) && !strchr(err.msg, '\n');
    if (!ok)
        fprintf(stderr, "  message was: %s (wanted '%s')\n", err.msg, want);
    return ok;
}

static void test_results_read(void)
{
    xpb_results_file f;
    xpb_error err = {{0}};
    CHECK(xpb_results_parse("t.json", GOOD, strlen(GOOD), &f, &err) == XPB_OK);
    CHECK(f.n_cases == 1 && f.n_devices == 1 && !strcmp(f.hostname, "h"));
    CHECK(f.cases[0].n_samples == 3 && f.cases[0].median_s == 0.002 && isnan(f.cases[0].cv));
    CHECK(xpb_rcase_is_timed_ok(&f.cases[0]) && f.cases[0].max_err_over_tol == 0.5 && f.cases[0].passed);
    CHECK(isnan(f.cases[0].speedup_vs_cpu) && isnan(f.cases[0].avg_watts));
    xpb_results_file_free(&f);

    char *cut = malloc(strlen(GOOD) + 1);
    memcpy(cut, GOOD, strlen(GOOD) + 1);
    for (size_t len = strlen(GOOD) - 1; len > 0; len -= 37) { /* every truncation is one clean line */
        cut[len] = '\0';
        CHECK(parse_fails_with(cut, "t.json: "));
        if (len < 37)
            break;
    }
    cut[strlen(GOOD) / 2] = '\0';
    CHECK(parse_fails_with(cut, "truncated results file"));
    free(cut);
    CHECK(parse_fails_with("", "empty results file"));
    CHECK(parse_fails_with("   \n", "empty results file"));
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\" \"x\"}", "corrupt results file (invalid JSON at line 1"));
    CHECK(parse_fails_with("{\"cases\": [}", "corrupt results file"));
    CHECK(parse_fails_with("{\"cases\": [{\"id\": \"a", "truncated results file"));
    CHECK(parse_fails_with("[1, 2]", "not an xpubench results file"));
    CHECK(parse_fails_with("{\"schema\": \"other\", \"schema_version\": 1}", "schema is 'other'"));
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\", \"schema_version\": 9, \"cases\": []}",
                           "schema_version 9 is not supported"));
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\", \"schema_version\": 1}", "cases: missing"));
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\", \"schema_version\": 1, \"cases\": [{\"id\": 3}]}",
                           "cases[0].id: expected a string"));
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\", \"schema_version\": 1, \"cases\": [{\"id\": \"a\","
                           " \"backend\": \"b\", \"device\": \"d\", \"variant\": \"v\", \"status\": \"ok\","
                           " \"timing\": {\"kernel\": {\"samples_s\": [\"x\"]}}}]}",
                           "cases[0].timing.kernel.samples_s: expected an array of numbers"));
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\", \"schema_version\": 1, \"cases\": []} trailing",
                           "data after the JSON document"));
    CHECK(xpb_results_load("/nonexistent/r.json", &f, &err) == XPB_ERR_IO && strstr(err.msg, "cannot read"));
}

/* ---- stateful cases: the total and each op ----------------------------------------------------- */

/* Appends the JSON array of n samples of median * exp(N(0, sigma)) to buf. */
static void append_samples(char *buf, size_t cap, size_t n, double median, double sigma, uint64_t seed)
{
    double *v = lognormal(n, median, sigma, seed);
    for (size_t i = 0; i < n; i++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s%.9g", i ? ", " : "[", v[i]);
    snprintf(buf + strlen(buf), cap - strlen(buf), "]");
    free(v);
}

typedef struct synth_run {
    int iterations;
    double assign_shift; /* the assign op's median against the others' */
    bool per_run;        /* false: a file written before the breakdown repeated */
    uint64_t seed;
} synth_run;

/* A results file with one anneal case: 20 whole runs of 10 ms; ops init, assign, stats with 12
 * breakdown runs each (1% noise). */
static char *anneal_results(const synth_run *sr)
{
    static const char *const ops[] = {"init", "assign", "stats"};
    static const double med[] = {1e-3, 6e-3, 3e-3};
    size_t cap = 1 << 16;
    char *buf = calloc(cap, 1);
    snprintf(buf, cap, "{\"schema\": \"xpubench-results\", \"schema_version\": 2, \"run_id\": \"r%llu\","
             " \"cases\": [{\"id\": \"anneal/compress/n=1000,d=64,m=32/fp32\", \"backend\": \"cpu\","
             " \"device\": \"cpu:0\", \"variant\": \"blas\", \"status\": \"ok\","
             " \"validation\": {\"passed\": true}, \"timing\": {\"kernel\": {\"median_s\": 0.01, \"samples_s\": ",
             (unsigned long long)sr->seed);
    append_samples(buf, cap, 20, 1e-2, 0.01, sr->seed);
    snprintf(buf + strlen(buf), cap - strlen(buf), "}}, \"run\": {\"iterations\": %d, \"converged\": true,"
             " \"energy\": 0.0114, \"ops\": [", sr->iterations);
    for (int k = 0; k < 3; k++) {
        double m = med[k] * (k == 1 ? sr->assign_shift : 1.0);
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s{\"op\": \"%s\", \"seconds\": %.9g, \"launches\": %d",
                 k ? ", " : "", ops[k], m, k ? sr->iterations : 1);
        if (sr->per_run) {
            snprintf(buf + strlen(buf), cap - strlen(buf), ", \"per_run\": {\"median_s\": %.9g, \"samples_s\": ", m);
            append_samples(buf, cap, 12, m, 0.01, sr->seed * 10 + (uint64_t)k);
            snprintf(buf + strlen(buf), cap - strlen(buf), "}");
        }
        snprintf(buf + strlen(buf), cap - strlen(buf), "}");
    }
    snprintf(buf + strlen(buf), cap - strlen(buf), "]}}]}");
    return buf;
}

/* Compares two synthetic anneal files; the comparison owns nothing but its rows. */
static bool compare_runs(const synth_run *a, const synth_run *b, xpb_results_file *fa, xpb_results_file *fb,
                         xpb_comparison *cmp)
{
    const xpb_compare_opts o = XPB_COMPARE_OPTS_DEFAULT;
    xpb_error err = {{0}};
    char *ta = anneal_results(a), *tb = anneal_results(b);
    bool ok = xpb_results_parse("a.json", ta, strlen(ta), fa, &err) == XPB_OK &&
              xpb_results_parse("b.json", tb, strlen(tb), fb, &err) == XPB_OK &&
              xpb_compare_files(fa, fb, &o, cmp, &err) == XPB_OK;
    if (!ok)
        fprintf(stderr, "  %s\n", err.msg);
    free(ta);
    free(tb);
    return ok;
}

static const xpb_compare_op *row_op(const xpb_compare_row *r, const char *name)
{
    for (size_t k = 0; k < r->n_ops; k++)
        if (!strcmp(r->ops[k].op, name))
            return &r->ops[k];
    return NULL;
}

static void test_stateful(void)
{
    xpb_results_file fa, fb;
    xpb_comparison cmp;
    /* the reader: iterations and per-op samples */
    synth_run base = {31, 1.0, true, 1};
    CHECK(compare_runs(&base, &base, &fa, &fb, &cmp));
    CHECK(fa.cases[0].has_run && fa.cases[0].iterations == 31 && fa.cases[0].n_ops == 3);
    CHECK(!strcmp(fa.cases[0].ops[1].op, "assign") && fa.cases[0].ops[1].n_samples == 12 && fa.cases[0].ops[1].has_runs);
    CHECK(cmp.n_stateful == 1 && cmp.rows[0].stateful && cmp.rows[0].n_ops == 3);
    xpb_comparison_free(&cmp), xpb_results_file_free(&fa), xpb_results_file_free(&fb);

    /* the same build twice (independent samples): never slower, the total and each op same */
    for (uint64_t seed = 2; seed < 12; seed++) {
        synth_run a = {31, 1.0, true, seed}, b = {31, 1.0, true, seed + 100};
        CHECK(compare_runs(&a, &b, &fa, &fb, &cmp));
        CHECK(cmp.n_verdict[XPB_VERDICT_SLOWER] == 0 && cmp.n_op_verdict[XPB_VERDICT_SLOWER] == 0);
        CHECK(cmp.rows[0].shift.verdict == XPB_VERDICT_SAME && cmp.n_op_verdict[XPB_VERDICT_SAME] == 3);
        CHECK(!xpb_comparison_regressed(&cmp));
        xpb_comparison_free(&cmp), xpb_results_file_free(&fa), xpb_results_file_free(&fb);
    }

    /* assign 30% slower, the total unchanged: the op is flagged, a regression (exit 4) */
    synth_run slow = {31, 1.3, true, 3};
    CHECK(compare_runs(&base, &slow, &fa, &fb, &cmp));
    const xpb_compare_op *as = row_op(&cmp.rows[0], "assign"), *in = row_op(&cmp.rows[0], "init");
    CHECK(as && as->tested && as->shift.verdict == XPB_VERDICT_SLOWER && as->shift.ratio > 1.25);
    CHECK(in && in->shift.verdict == XPB_VERDICT_SAME && cmp.rows[0].shift.verdict == XPB_VERDICT_SAME);
    CHECK(cmp.n_op_verdict[XPB_VERDICT_SLOWER] == 1 && xpb_comparison_regressed(&cmp));
    xpb_comparison_free(&cmp), xpb_results_file_free(&fa), xpb_results_file_free(&fb);

    /* a different iteration count: no verdict on time, said in the text, never a regression */
    synth_run longer = {36, 1.3, true, 4};
    CHECK(compare_runs(&base, &longer, &fa, &fb, &cmp));
    CHECK(cmp.rows[0].iterations_differ && cmp.rows[0].shift.verdict == XPB_VERDICT_INCOMPARABLE);
    CHECK(strstr(cmp.rows[0].shift.why, "iterations differ (31 -> 36): per-run times are not comparable") != NULL);
    as = row_op(&cmp.rows[0], "assign");
    CHECK(as && as->shift.verdict == XPB_VERDICT_INCOMPARABLE && strstr(as->shift.why, "per launch new/base"));
    CHECK(cmp.n_op_verdict[XPB_VERDICT_INCOMPARABLE] == 3 && !xpb_comparison_regressed(&cmp));
    xpb_comparison_free(&cmp), xpb_results_file_free(&fa), xpb_results_file_free(&fb);

    /* an older file (one breakdown run, no per_run): the ops are information only */
    synth_run old = {31, 1.0, false, 5}, old_slow = {31, 1.5, false, 6};
    CHECK(compare_runs(&old, &old_slow, &fa, &fb, &cmp));
    as = row_op(&cmp.rows[0], "assign");
    CHECK(as && !as->tested && fabs(as->shift.ratio - 1.5) < 1e-6 && strstr(as->shift.why, "no per-run samples"));
    CHECK(cmp.n_op_info == 3 && cmp.n_op_verdict[XPB_VERDICT_SLOWER] == 0 && !xpb_comparison_regressed(&cmp));
    xpb_comparison_free(&cmp), xpb_results_file_free(&fa), xpb_results_file_free(&fb);
    CHECK(compare_runs(&old, &slow, &fa, &fb, &cmp)); /* one side without samples: still information */
    CHECK(cmp.n_op_info == 3 && !xpb_comparison_regressed(&cmp));
    xpb_comparison_free(&cmp), xpb_results_file_free(&fa), xpb_results_file_free(&fb);

    /* a wrong type inside run.ops[] is one line naming the field */
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\", \"schema_version\": 2, \"cases\": [{\"id\": \"a\","
                           " \"backend\": \"b\", \"device\": \"d\", \"variant\": \"v\", \"status\": \"ok\","
                           " \"run\": {\"ops\": [{\"op\": \"assign\", \"per_run\": {\"samples_s\": {}}}]}}]}",
                           "cases[0].run.ops[0].per_run.samples_s: expected an array of numbers"));
    CHECK(parse_fails_with("{\"schema\": \"xpubench-results\", \"schema_version\": 2, \"cases\": [{\"id\": \"a\","
                           " \"backend\": \"b\", \"device\": \"d\", \"variant\": \"v\", \"status\": \"ok\","
                           " \"run\": {\"iterations\": \"many\"}}]}", "cases[0].run.iterations: expected a number"));
}

/* ---- .npy and dump names ---------------------------------------------------------------------- */

static void test_npy(void)
{
    const char *path = "test_compare_tmp.npy";
    float data[6] = {1, 2, 3, 4, 5, 6};
    size_t shape[2] = {2, 3};
    xpb_error err = {{0}};
    CHECK(xpb_npy_write(path, xpb_npy_descr(XPB_DTYPE_F32), 4, shape, 2, data, &err) == XPB_OK);
    FILE *f = fopen(path, "rb");
    unsigned char buf[256] = {0};
    size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    size_t hlen = buf[8] | (size_t)buf[9] << 8;
    CHECK(n == 10 + hlen + 24 && memcmp(buf, "\x93NUMPY\x01\x00", 8) == 0 && (10 + hlen) % 64 == 0);
    CHECK(strstr((char *)buf + 10, "'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }") != NULL);
    CHECK(buf[10 + hlen - 1] == '\n' && memcmp(buf + 10 + hlen, data, sizeof data) == 0);
    size_t one[1] = {5};
    CHECK(xpb_npy_write(path, "<f4", 4, one, 1, data, &err) == XPB_OK);
    f = fopen(path, "rb");
    n = f ? fread(buf, 1, sizeof buf, f) : 0;
    if (f)
        fclose(f);
    hlen = buf[8] | (size_t)buf[9] << 8;
    CHECK(strstr((char *)buf + 10, "'shape': (5,), }") != NULL && n == 10 + hlen + 20);
    remove(path);

    char stem[256], cmd[1024];
    xpb_dump_stem("elementwise/softmax/rows=4096,cols=4096/fp32", stem, sizeof stem);
    CHECK(!strcmp(stem, "elementwise__softmax__rows-4096_cols-4096__fp32"));
    xpb_workload_i w = {.name = "elementwise"};
    xpb_case c = {.id = "elementwise/softmax/rows=3,cols=7/fp32", .workload = &w, .n_params = 2,
                  .params = {{"rows", 3}, {"cols", 7}}};
    xpb_dump_rerun_command(&c, "cuda:0", 42, cmd, sizeof cmd);
    /* the first word is this binary by its absolute path (here the test's own) */
    const char *rest = strchr(cmd, ' ');
    CHECK(cmd[0] == '/' && rest && !strcmp(rest, " run --backend cuda:0 --workload elementwise --size rows=3,cols=7 "
                                           "--filter '^elementwise/softmax/rows=3,cols=7/fp32$' --seed 42"));
    size_t sh[4];
    CHECK(xpb_dump_shape(&c, "x", 21, sh) == 2 && sh[0] == 3 && sh[1] == 7);
    CHECK(xpb_dump_shape(&c, "w", 7, sh) == 1 && sh[0] == 7);
    CHECK(xpb_dump_shape(&c, "out", 5, sh) == 1 && sh[0] == 5);
    xpb_case g = {.n_params = 3, .params = {{"m", 2}, {"n", 3}, {"k", 4}}};
    CHECK(xpb_dump_shape(&g, "a", 8, sh) == 2 && sh[0] == 2 && sh[1] == 4);
    CHECK(xpb_dump_shape(&g, "b", 12, sh) == 2 && sh[0] == 4 && sh[1] == 3);
    CHECK(xpb_dump_shape(&g, "out", 6, sh) == 2 && sh[0] == 2 && sh[1] == 3);
    xpb_case r = {.n_params = 4, .params = {{"batch", 1}, {"heads", 2}, {"seq", 3}, {"head_dim", 4}}};
    CHECK(xpb_dump_shape(&r, "x", 24, sh) == 4 && sh[3] == 4);
}


/* ---- xpubench tune: when a candidate wins ------------------------------------------------------ */

/* A results file of two timed cases, a softmax and an rmsnorm (20 samples each, 2% noise; 6 rounds, 1% noise between their
 * medians): medians base * shift[0] and base * shift[1], the second case's status `second`. */
static bool tune_file(const double shift[2], const char *second, uint64_t seed, xpb_results_file *f)
{
    size_t cap = 1 << 15;
    char *buf = calloc(cap, 1);
    snprintf(buf, cap, "{\"schema\": \"xpubench-results\", \"schema_version\": 3, \"cases\": [");
    for (int k = 0; k < 2; k++) {
        const char *status = k ? second : "ok";
        snprintf(buf + strlen(buf), cap - strlen(buf),
                 "%s{\"id\": \"elementwise/%s/rows=%d,cols=65537/fp32\", \"op\": \"%s\", \"backend\": \"vulkan\","
                 " \"device\": \"vulkan:0\", \"variant\": \"l2\", \"status\": \"%s\"",
                 k ? ", " : "", k ? "rmsnorm" : "softmax", k + 1, k ? "rmsnorm" : "softmax", status);
        if (!strcmp(status, "ok")) {
            snprintf(buf + strlen(buf), cap - strlen(buf), ", \"timing\": {\"kernel\": {\"median_s\": %.9g, \"samples_s\": ",
                     1e-4 * shift[k]);
            append_samples(buf, cap, 20, 1e-4 * shift[k], 0.02, seed * 2 + (uint64_t)k);
            /* the units compare judges by: the medians of 6 rounds */
            snprintf(buf + strlen(buf), cap - strlen(buf), "}, \"units\": {\"medians_s\": ");
            append_samples(buf, cap, 6, 1e-4 * shift[k], 0.01, seed * 2 + (uint64_t)k + 500);
            snprintf(buf + strlen(buf), cap - strlen(buf), "}}");
        }
        snprintf(buf + strlen(buf), cap - strlen(buf), "}");
    }
    snprintf(buf + strlen(buf), cap - strlen(buf), "]}");
    xpb_error err = {{0}};
    bool ok = xpb_results_parse("t.json", buf, strlen(buf), f, &err) == XPB_OK;
    if (!ok)
        fprintf(stderr, "  %s\n", err.msg);
    free(buf);
    return ok;
}

static xpb_tune_outcome tune_outcome_of(const double next_shift[2], const char *second, uint64_t seed,
                                        const char *ops)
{
    static const double same[2] = {1, 1};
    const xpb_compare_opts o = XPB_COMPARE_OPTS_DEFAULT;
    xpb_results_file base, next;
    xpb_tune_candidate c;
    memset(&c, 0, sizeof c);
    if (!tune_file(same, "ok", seed, &base))
        return (xpb_tune_outcome)-1;
    if (!tune_file(next_shift, second, seed + 1000, &next)) {
        xpb_results_file_free(&base);
        return (xpb_tune_outcome)-1;
    }
    xpb_tune_judge(&o, &base, &next, ops, &c);
    if (getenv("XPB_TEST_VERBOSE"))
        fprintf(stderr, "  tune judge: outcome %d: %s\n", (int)c.outcome, c.why);
    xpb_results_file_free(&base), xpb_results_file_free(&next);
    return c.outcome;
}

static xpb_tune_outcome tune_outcome(const double next_shift[2], const char *second, uint64_t seed)
{
    return tune_outcome_of(next_shift, second, seed, NULL);
}

static void test_tune_judge(void)
{
    static const double same[2] = {1, 1}, faster[2] = {0.9, 0.9}, one_faster[2] = {0.9, 1},
                        mixed[2] = {0.9, 1.1};
    int wins = 0;
    for (uint64_t seed = 1; seed <= 20; seed++) /* the same build twice (A/A): never a winner */
        wins += tune_outcome(same, "ok", seed) == XPB_TUNE_FASTER;
    CHECK(wins == 0);
    CHECK(tune_outcome(faster, "ok", 31) == XPB_TUNE_FASTER);     /* 10% faster on both cases */
    CHECK(tune_outcome(one_faster, "ok", 32) == XPB_TUNE_FASTER); /* faster on one, the same on the other */
    CHECK(tune_outcome(mixed, "ok", 33) == XPB_TUNE_NOT_FASTER);  /* faster on one, slower on the other */
    CHECK(tune_outcome(faster, "failed-validation", 34) == XPB_TUNE_REJECTED); /* wrong somewhere: never */
    /* a per-op candidate (ops "softmax") is judged on the softmax case alone: the rmsnorm case's
     * slowdown or failure is not its (it ran with the defaults, or not at all) */
    CHECK(tune_outcome_of(mixed, "ok", 35, "softmax") == XPB_TUNE_FASTER);
    CHECK(tune_outcome_of(faster, "failed-validation", 36, "softmax") == XPB_TUNE_FASTER);
    CHECK(tune_outcome_of(mixed, "ok", 37, "rmsnorm") == XPB_TUNE_NOT_FASTER);
    CHECK(tune_outcome_of(faster, "failed-validation", 38, "rmsnorm|layernorm") == XPB_TUNE_REJECTED);
    CHECK(tune_outcome_of(mixed, "ok", 39, "softmax|rmsnorm|layernorm") == XPB_TUNE_NOT_FASTER);
}

int main(void)
{
    test_statistics();
    test_verdicts();
    test_results_read();
    test_stateful();
    test_npy();
    test_tune_judge();
    XPB_TEST_END();
}
