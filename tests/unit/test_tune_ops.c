/* test_tune_ops.c - the cases a tune candidate is timed on (harness/cli/xpb_tune_ops.h): a value
 * made of OP:VALUE items names its ops (only the knob's), any other value applies to every op;
 * the cases of some ops as the regex that `xpubench run --filter` takes. */
#define _POSIX_C_SOURCE 200809L
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_test.h"
#include "xpb_tune_ops.h"

static const char *const ROWS = "softmax|rmsnorm|layernorm";

/* xpb_tune_value_ops(ROWS, value) is n with out == want. */
static int ops_are(const char *value, int n, const char *want)
{
    char out[160] = "junk";
    int got = xpb_tune_value_ops(ROWS, value, out, sizeof out);
    if (got != n || strcmp(out, want) != 0) {
        fprintf(stderr, "  '%s': %d '%s' (want %d '%s')\n", value, got, out, n, want);
        return 0;
    }
    return 1;
}

static void test_value_ops(void)
{
    CHECK(ops_are("softmax:256x32x4", 1, "softmax"));
    CHECK(ops_are("rmsnorm:512x32x2", 1, "rmsnorm"));
    CHECK(ops_are("softmax:256x64x2,layernorm:128x64x4", 2, "softmax|layernorm"));
    CHECK(ops_are("layernorm:128x64x4,softmax:256x64x2", 2, "softmax|layernorm")); /* the knob's order */
    CHECK(ops_are("softmax:a,softmax:b", 1, "softmax"));
    CHECK(ops_are("softmax:a,rmsnorm:b,layernorm:c", 3, "softmax|rmsnorm|layernorm"));
    /* values for every op */
    CHECK(ops_are("256x64x2", 0, ""));
    CHECK(ops_are("4096", 0, ""));
    CHECK(ops_are("128x128x16/8x8", 0, ""));
    CHECK(ops_are("", 0, ""));
    /* items that are not all OP:... of the knob's ops: not per op (the reader judges the value) */
    CHECK(ops_are("gemm:1", 0, ""));
    CHECK(ops_are("soft:1", 0, ""));         /* a prefix of an op is not the op */
    CHECK(ops_are("softmaxx:1", 0, ""));
    CHECK(ops_are("softmax:1,256x64x2", 0, ""));
    CHECK(ops_are(":1", 0, ""));
    CHECK(ops_are("softmax", 0, ""));
    char small[4];
    CHECK(xpb_tune_value_ops(ROWS, "softmax:1", small, sizeof small) == 0 && small[0] == '\0'); /* does not fit */
    CHECK(xpb_tune_op_listed(ROWS, "rmsnorm") && !xpb_tune_op_listed(ROWS, "rms") && !xpb_tune_op_listed(ROWS, "gemm"));
    CHECK(xpb_tune_op_listed(NULL, "gemm") && xpb_tune_op_listed("", "gemm"));
}

/* Whether the regex re matches id in full. */
static int matches(const char *re, const char *id)
{
    regex_t r;
    if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB) != 0)
        return -1;
    int m = regexec(&r, id, 0, NULL, 0) == 0;
    regfree(&r);
    return m;
}

static void test_case_filter(void)
{
    static char all[65536], one[65536], two[65536], narrow[65536];
    int n_all = xpb_tune_case_filter("conformance", NULL, ROWS, all, sizeof all);
    int n_soft = xpb_tune_case_filter("conformance", NULL, "softmax", one, sizeof one);
    int n_two = xpb_tune_case_filter("conformance", NULL, "rmsnorm|layernorm", two, sizeof two);
    CHECK(n_soft > 0 && n_two > 0 && n_all == n_soft + n_two);
    if (getenv("XPB_TEST_VERBOSE"))
        fprintf(stderr, "  conformance cases: %d of the row ops, %d softmax, %d rmsnorm|layernorm\n", n_all, n_soft,
                n_two);
    CHECK(matches(one, "elementwise/softmax/rows=2,cols=65537/fp32") == 1);
    CHECK(matches(one, "elementwise/rmsnorm/rows=2,cols=65537/fp32") == 0);
    CHECK(matches(two, "elementwise/rmsnorm/rows=2,cols=65537/fp32") == 1);
    CHECK(matches(all, "elementwise/layernorm/rows=2,cols=65537/fp32") == 1);
    CHECK(matches(all, "elementwise/copy/n=1/fp32") == 0);
    /* the cases' '.' and '=' are literal: ids only, in full */
    CHECK(matches(one, "xelementwise/softmax/rows=2,cols=65537/fp32") == 0);
    /* --filter narrows them */
    int n_narrow = xpb_tune_case_filter("conformance", "cols=65537/", "softmax", narrow, sizeof narrow);
    CHECK(n_narrow > 0 && n_narrow < n_soft && matches(narrow, "elementwise/softmax/rows=2,cols=65537/fp32") == 1);
    CHECK(xpb_tune_case_filter("conformance", "no such case", "softmax", narrow, sizeof narrow) == 0);
    CHECK(xpb_tune_case_filter("conformance", NULL, "no_such_op", narrow, sizeof narrow) == 0);
    char tiny[16];
    CHECK(xpb_tune_case_filter("conformance", NULL, "softmax", tiny, sizeof tiny) == -1);
}

int main(void)
{
    test_value_ops();
    test_case_filter();
    XPB_TEST_END();
}
