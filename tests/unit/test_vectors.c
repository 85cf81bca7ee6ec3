/* test_vectors.c DIR - the .npy and .fvecs readers (harness/io/xpb_vectors.h): good files round-trip
 * exactly; every malformed file is a one-line XPB_ERR_USAGE naming what is wrong (and a missing
 * one XPB_ERR_IO), never a crash or a partial matrix. Files are written into DIR. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "xpb_npy.h"
#include "xpb_test.h"
#include "xpb_vectors.h"

static const char *dir;

static const char *at(const char *name)
{
    static char buf[8][1024];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", dir, name);
    return buf[k];
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) {
        fwrite(p, 1, n, f);
        fclose(f);
    }
}

/* An .npy v1.0 file with a given header dict and data bytes. */
static void write_npy_raw(const char *path, const char *dict, const void *data, size_t bytes)
{
    char h[256];
    int n = snprintf(h, sizeof h, "%s", dict);
    while ((10 + n + 1) % 64)
        h[n++] = ' ';
    h[n++] = '\n';
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)n, 0};
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    fwrite(pre, 1, 10, f);
    fwrite(h, 1, (size_t)n, f);
    fwrite(data, 1, bytes, f);
    fclose(f);
}

/* Reads path and expects status want with `needle` in the message. */
static void expect_error(const char *path, xpb_status want, const char *needle)
{
    xpb_vectors v;
    xpb_error err = {{0}};
    xpb_status st = xpb_vectors_read(path, &v, &err);
    CHECK(st == want);
    CHECK(v.data == NULL && v.n == 0);
    CHECK(strchr(err.msg, '\n') == NULL);
    if (!strstr(err.msg, needle)) {
        fprintf(stderr, "%s: message '%s' lacks '%s'\n", path, err.msg, needle);
        CHECK(0);
    }
}

int main(int argc, char **argv)
{
    dir = argc > 1 ? argv[1] : ".";
    enum { N = 5, D = 3 };
    float x[N * D];
    for (int i = 0; i < N * D; i++)
        x[i] = (float)i * 0.25f - 1.0f;
    xpb_error err = {{0}};

    /* good .npy, written by the harness's own writer */
    size_t shape[2] = {N, D};
    CHECK(xpb_npy_write(at("good.npy"), "<f4", 4, shape, 2, x, &err) == XPB_OK);
    xpb_vectors v;
    CHECK(xpb_vectors_read(at("good.npy"), &v, &err) == XPB_OK);
    CHECK(v.n == N && v.d == D && v.data && memcmp(v.data, x, sizeof x) == 0);
    xpb_vectors_free(&v);

    /* good .fvecs */
    unsigned char fv[N * (4 + 4 * D)];
    for (int i = 0; i < N; i++) {
        int32_t d = D;
        memcpy(fv + i * (4 + 4 * D), &d, 4);
        memcpy(fv + i * (4 + 4 * D) + 4, x + i * D, 4 * D);
    }
    write_bytes(at("good.fvecs"), fv, sizeof fv);
    CHECK(xpb_vectors_read(at("good.fvecs"), &v, &err) == XPB_OK);
    CHECK(v.n == N && v.d == D && v.data && memcmp(v.data, x, sizeof x) == 0);
    xpb_vectors_free(&v);

    /* malformed .npy */
    const char *ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 3), }";
    write_npy_raw(at("trunc.npy"), ok_dict, x, sizeof x - 4);
    expect_error(at("trunc.npy"), XPB_ERR_USAGE, "truncated");
    write_npy_raw(at("trail.npy"), ok_dict, fv, sizeof x + 8);
    expect_error(at("trail.npy"), XPB_ERR_USAGE, "trailing");
    write_npy_raw(at("f8.npy"), "{'descr': '<f8', 'fortran_order': False, 'shape': (5, 3), }", x, sizeof x);
    expect_error(at("f8.npy"), XPB_ERR_USAGE, "dtype '<f8'; xpubench");
    write_npy_raw(at("fortran.npy"), "{'descr': '<f4', 'fortran_order': True, 'shape': (5, 3), }", x, sizeof x);
    expect_error(at("fortran.npy"), XPB_ERR_USAGE, "Fortran");
    write_npy_raw(at("rank1.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (15,), }", x, sizeof x);
    expect_error(at("rank1.npy"), XPB_ERR_USAGE, "1-D");
    write_npy_raw(at("rank3.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (5, 3, 1), }", x, sizeof x);
    expect_error(at("rank3.npy"), XPB_ERR_USAGE, "3-D");
    write_npy_raw(at("garbage.npy"), "{'descr': '<f4', 'shape': [5, 3]}", x, sizeof x);
    expect_error(at("garbage.npy"), XPB_ERR_USAGE, "unreadable .npy header");
    write_npy_raw(at("huge.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999, 3), }", x,
                  sizeof x);
    expect_error(at("huge.npy"), XPB_ERR_USAGE, "bad shape");
    write_bytes(at("magic.npy"), "PK\x03\x04 not numpy at all", 22);
    expect_error(at("magic.npy"), XPB_ERR_USAGE, "bad magic");
    write_bytes(at("short.npy"), "\x93NUMPY\x01\x00\xff\x00", 10);
    expect_error(at("short.npy"), XPB_ERR_USAGE, "truncated .npy header");
    write_bytes(at("empty.npy"), "", 0);
    expect_error(at("empty.npy"), XPB_ERR_USAGE, "empty.npy: empty file (0 bytes)");
    float nan_x[N * D];
    memcpy(nan_x, x, sizeof x);
    nan_x[7] = NAN;
    write_npy_raw(at("nan.npy"), ok_dict, nan_x, sizeof nan_x);
    expect_error(at("nan.npy"), XPB_ERR_USAGE, "non-finite value at vector 2, component 1");

    /* malformed .fvecs */
    write_bytes(at("trunc.fvecs"), fv, sizeof fv - 2);
    expect_error(at("trunc.fvecs"), XPB_ERR_USAGE,
                 "trunc.fvecs: truncated .fvecs file: vector 4 has 14 of its 16 bytes");
    write_bytes(at("short.fvecs"), fv, 2);
    expect_error(at("short.fvecs"), XPB_ERR_USAGE, "truncated .fvecs file: 2 bytes, not even a dimension");
    unsigned char mixed[sizeof fv];
    memcpy(mixed, fv, sizeof fv);
    int32_t other = 2;
    memcpy(mixed + 2 * (4 + 4 * D), &other, 4);
    write_bytes(at("mixed.fvecs"), mixed, sizeof mixed);
    expect_error(at("mixed.fvecs"), XPB_ERR_USAGE, "vector 2 has dimension 2");
    int32_t zero = 0;
    write_bytes(at("zero.fvecs"), &zero, 4);
    expect_error(at("zero.fvecs"), XPB_ERR_USAGE, "dimension 0");
    write_bytes(at("empty.fvecs"), "", 0);
    expect_error(at("empty.fvecs"), XPB_ERR_USAGE, "empty.fvecs: empty file (0 bytes)");
    /* a vector of another d is named as such, not as a length that is no whole number of vector
     * 0's records (one of d = 2, then one of d = 3: 12 + 16 bytes) */
    unsigned char two[28] = {0};
    two[0] = 2, two[12] = 3;
    write_bytes(at("two.fvecs"), two, sizeof two);
    expect_error(at("two.fvecs"), XPB_ERR_USAGE, "two.fvecs: vector 1 has dimension 3, vector 0 has 2");

    /* not a vector file, a missing one, and a directory (also one named like a vector file) */
    write_bytes(at("vectors.csv"), "1,2,3\n", 6);
    expect_error(at("vectors.csv"), XPB_ERR_USAGE, "vectors.csv: not a .npy or .fvecs file");
    expect_error(at("missing.npy"), XPB_ERR_IO, "missing.npy: cannot read: No such file or directory");
    expect_error(dir, XPB_ERR_USAGE, ": is a directory, not a .npy or .fvecs file");
    char sub[1100];
    snprintf(sub, sizeof sub, "%s/dir.npy", dir);
    mkdir(sub, 0777);
    expect_error(sub, XPB_ERR_USAGE, "dir.npy: is a directory, not a .npy or .fvecs file");
    XPB_TEST_END();
}
