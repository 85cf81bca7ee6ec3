/* test_knob.c - knobs from the environment (harness/core/xpb_knob.c): unset or empty takes the
 * default; a value outside its range, not a number, with trailing text, or not a power of two
 * where one is asked for, or a word not among the choices, is a usage error that names the knob
 * and leaves the default in *out. */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xpb_knob.h"
#include "xpb_test.h"

static xpb_status knob_long(const char *value, bool pow2, long *out, xpb_error *err)
{
    if (value)
        setenv("XPB_TEST_KNOB", value, 1);
    else
        unsetenv("XPB_TEST_KNOB");
    return xpb_knob_long("XPB_TEST_KNOB", 4, 64, pow2, 16, out, err);
}

int main(void)
{
    long n = 0;
    xpb_error err = {{0}};
    CHECK(knob_long(NULL, true, &n, &err) == XPB_OK && n == 16);
    CHECK(knob_long("", true, &n, &err) == XPB_OK && n == 16);
    CHECK(knob_long("32", true, &n, &err) == XPB_OK && n == 32);
    CHECK(knob_long("4", true, &n, &err) == XPB_OK && n == 4);
    CHECK(knob_long("64", true, &n, &err) == XPB_OK && n == 64);
    CHECK(knob_long("48", false, &n, &err) == XPB_OK && n == 48);
    const char *bad[] = {"48", "2", "128", "abc", "32x", " 32x", "-16", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err.msg[0] = '\0';
        CHECK(knob_long(bad[i], true, &n, &err) == XPB_ERR_USAGE && n == 16);
        CHECK(strstr(err.msg, "XPB_TEST_KNOB") != NULL);
    }
    double x = 0.0;
    setenv("XPB_TEST_KNOB", "0.25", 1);
    CHECK(xpb_knob_double("XPB_TEST_KNOB", 0.0, 1e6, 16.0, &x, &err) == XPB_OK && x == 0.25);
    const char *bad_d[] = {"0", "-1", "1e7", "x", "1.5MB", "nan"};
    for (size_t i = 0; i < sizeof bad_d / sizeof *bad_d; i++) {
        setenv("XPB_TEST_KNOB", bad_d[i], 1);
        CHECK(xpb_knob_double("XPB_TEST_KNOB", 0.0, 1e6, 16.0, &x, &err) == XPB_ERR_USAGE && x == 16.0);
    }
    unsetenv("XPB_TEST_KNOB");
    CHECK(xpb_knob_double("XPB_TEST_KNOB", 0.0, 1e6, 16.0, &x, &err) == XPB_OK && x == 16.0);
    /* a word among choices: its index, the default when unset or empty, else an error naming
     * the knob and the choices */
    static const char *const words[] = {"fast", "expf"};
    int w = -1;
    CHECK(xpb_knob_choice("XPB_TEST_KNOB", words, 2, 0, &w, &err) == XPB_OK && w == 0);
    setenv("XPB_TEST_KNOB", "", 1);
    CHECK(xpb_knob_choice("XPB_TEST_KNOB", words, 2, 1, &w, &err) == XPB_OK && w == 1);
    setenv("XPB_TEST_KNOB", "expf", 1);
    CHECK(xpb_knob_choice("XPB_TEST_KNOB", words, 2, 0, &w, &err) == XPB_OK && w == 1);
    const char *bad_w[] = {"Fast", "exp", "fast ", "expf2"};
    for (size_t i = 0; i < sizeof bad_w / sizeof *bad_w; i++) {
        setenv("XPB_TEST_KNOB", bad_w[i], 1);
        err.msg[0] = '\0';
        CHECK(xpb_knob_choice("XPB_TEST_KNOB", words, 2, 0, &w, &err) == XPB_ERR_USAGE && w == 0);
        CHECK(strstr(err.msg, "XPB_TEST_KNOB") != NULL && strstr(err.msg, "fast or expf") != NULL);
    }
    unsetenv("XPB_TEST_KNOB");
    /* a per-op integer (XPB_VULKAN_ROW_ONCHIP_VALUES, "N or OP:N[,OP:N...]", 4..64): N for every
     * op, an op's own item, the default for an op not named; a bad item is an error naming the
     * knob, with the default in *out */
    const char *ops = "softmax|rmsnorm|layernorm", *vals = "XPB_VULKAN_ROW_ONCHIP_VALUES";
    const xpb_knob_id per_op = XPB_KNOB_VULKAN_ROW_ONCHIP_VALUES;
    unsetenv(vals);
    CHECK(xpb_knob_get_long_for_op(per_op, ops, "softmax", true, 32, &n, &err) == XPB_OK && n == 32);
    setenv(vals, "16", 1);
    CHECK(xpb_knob_get_long_for_op(per_op, ops, "layernorm", true, 32, &n, &err) == XPB_OK && n == 16);
    setenv(vals, "softmax:64,layernorm:8", 1);
    CHECK(xpb_knob_get_long_for_op(per_op, ops, "softmax", true, 32, &n, &err) == XPB_OK && n == 64);
    CHECK(xpb_knob_get_long_for_op(per_op, ops, "layernorm", true, 32, &n, &err) == XPB_OK && n == 8);
    CHECK(xpb_knob_get_long_for_op(per_op, ops, "rmsnorm", true, 32, &n, &err) == XPB_OK && n == 32);
    const char *bad_op[] = {"softmax:48", "softmax:128", "sofmax:64", "softmax:", "softmax:64,16", ":64",
                            "softmax:64,rmsnorm", "softmax=64"};
    for (size_t i = 0; i < sizeof bad_op / sizeof *bad_op; i++) {
        setenv(vals, bad_op[i], 1);
        err.msg[0] = '\0';
        n = 0;
        CHECK(xpb_knob_get_long_for_op(per_op, ops, "rmsnorm", true, 32, &n, &err) == XPB_ERR_USAGE && n == 32);
        CHECK(strstr(err.msg, vals) != NULL);
    }
    unsetenv(vals);
    XPB_TEST_END();
}
