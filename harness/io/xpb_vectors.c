/* xpb_vectors.c - .npy and .fvecs readers (xpb_vectors.h). */
#define _POSIX_C_SOURCE 200809L
#include "xpb_vectors.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define MAX_VALUES ((int64_t)1 << 31)
#define MAX_HEADER (1 << 20)

/* What is at path, checked before it is opened: fopen opens a directory too, and ftell then
 * reports LONG_MAX bytes, so a directory, a device or an empty file is named for what it is. */
static xpb_status check_file(const char *path, size_t *size, xpb_error *err)
{
    struct stat s;
    if (stat(path, &s) != 0)
        return xpb_fail(err, XPB_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    if (S_ISDIR(s.st_mode))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: is a directory, not a .npy or .fvecs file", path);
    if (!S_ISREG(s.st_mode)) /* a pipe could not be read twice (the case is checked, then run) */
        return xpb_fail(err, XPB_ERR_USAGE, "%s: not a regular file (a pipe or a device)", path);
    if (s.st_size == 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: empty file (0 bytes)", path);
    if ((uint64_t)s.st_size > (uint64_t)MAX_VALUES * 4 + MAX_HEADER + 64)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %lld bytes, more than 2^31 float32 values", path,
                        (long long)s.st_size);
    *size = (size_t)s.st_size;
    return XPB_OK;
}

/* The whole file of `size` bytes (check_file's) in memory (inputs are at most 8 GiB by MAX_VALUES;
 * the caller copies to the device anyway). */
static xpb_status slurp(const char *path, size_t size, unsigned char **buf, xpb_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return xpb_fail(err, XPB_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    *buf = malloc(size);
    if (!*buf) {
        fclose(f);
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "%s: cannot allocate %zu bytes", path, size);
    }
    size_t got = fread(*buf, 1, size, f);
    fclose(f);
    if (got != size) {
        free(*buf);
        *buf = NULL;
        return xpb_fail(err, XPB_ERR_IO, "%s: cannot read: %zu of its %zu bytes read (did it change?)", path,
                        got, size);
    }
    return XPB_OK;
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static float le_f32(const unsigned char *p)
{
    uint32_t u = le32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* The value of 'key' in the header dict: a pointer just past "'key':" and its blanks. */
static const char *dict_value(const char *h, const char *key)
{
    char pat[32];
    snprintf(pat, sizeof pat, "'%s'", key);
    const char *p = strstr(h, pat);
    if (!p)
        return NULL;
    p += strlen(pat);
    while (*p == ' ')
        p++;
    if (*p++ != ':')
        return NULL;
    while (*p == ' ')
        p++;
    return p;
}

/* Parses "(a, b, ...)" into dims; returns the rank, or -1 when it is not a tuple of integers. */
static int parse_shape(const char *p, int64_t *dims, int max)
{
    if (*p++ != '(')
        return -1;
    int rank = 0;
    for (;;) {
        while (*p == ' ')
            p++;
        if (*p == ')')
            return rank;
        char *end;
        errno = 0;
        long long v = strtoll(p, &end, 10);
        if (end == p || errno || v < 0 || rank == max)
            return -1;
        dims[rank++] = v;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ',')
            p++;
        else if (*p != ')')
            return -1;
    }
}

static xpb_status check_finite(const char *path, const float *x, int64_t n, int64_t d, xpb_error *err)
{
    for (int64_t i = 0; i < n * d; i++)
        if (!isfinite(x[i]))
            return xpb_fail(err, XPB_ERR_USAGE, "%s: non-finite value at vector %lld, component %lld", path,
                            (long long)(i / d), (long long)(i % d));
    return XPB_OK;
}

static xpb_status read_npy(const char *path, const unsigned char *b, size_t len, xpb_vectors *v, xpb_error *err)
{
    if (len < 10 || memcmp(b, "\x93NUMPY", 6) != 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: not an .npy file (bad magic)", path);
    int major = b[6];
    size_t hlen, start;
    if (major == 1) {
        hlen = (size_t)b[8] | (size_t)b[9] << 8;
        start = 10;
    } else if ((major == 2 || major == 3) && len >= 12) {
        hlen = le32(b + 8);
        start = 12;
    } else {
        return xpb_fail(err, XPB_ERR_USAGE, "%s: .npy format version %d is not 1, 2 or 3", path, major);
    }
    if (hlen > MAX_HEADER || start + hlen > len)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: truncated .npy header", path);
    char *h = malloc(hlen + 1);
    if (!h)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    memcpy(h, b + start, hlen);
    h[hlen] = '\0';
    xpb_status st = XPB_OK;
    const char *descr = dict_value(h, "descr"), *order = dict_value(h, "fortran_order"),
               *shape = dict_value(h, "shape");
    int64_t dims[8];
    int rank = shape ? parse_shape(shape, dims, 8) : -1;
    if (!descr || !order || rank < 0)
        st = xpb_fail(err, XPB_ERR_USAGE, "%s: unreadable .npy header", path);
    else if (strncmp(descr, "'<f4'", 5) != 0)
        st = xpb_fail(err, XPB_ERR_USAGE, "%s: dtype %.*s; xpubench reads float32 ('<f4')", path,
                      *descr == '\'' && strchr(descr + 1, '\'') ? (int)(strchr(descr + 1, '\'') - descr + 1) : 8,
                      descr);
    else if (strncmp(order, "False", 5) != 0)
        st = xpb_fail(err, XPB_ERR_USAGE, "%s: Fortran-ordered array; save it in C order", path);
    else if (rank != 2)
        st = xpb_fail(err, XPB_ERR_USAGE, "%s: a %d-D array; xpubench reads 2-D (n vectors x d)", path, rank);
    else if (dims[1] < 1 || (dims[0] > 0 && dims[1] > MAX_VALUES / dims[0]))
        st = xpb_fail(err, XPB_ERR_USAGE, "%s: bad shape (%lld, %lld): d >= 1 and n*d <= 2^31 values", path,
                      (long long)dims[0], (long long)dims[1]);
    free(h);
    if (st)
        return st;
    size_t bytes = (size_t)(dims[0] * dims[1]) * 4, data = start + hlen;
    if (len - data != bytes)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %s: shape (%lld, %lld) needs %zu data bytes, the file has %zu", path,
                        len - data < bytes ? "truncated .npy" : "trailing bytes after the .npy data",
                        (long long)dims[0], (long long)dims[1], bytes, len - data);
    v->n = dims[0];
    v->d = dims[1];
    v->data = v->n ? malloc(bytes) : NULL;
    if (v->n && !v->data)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "%s: out of memory for %zu bytes", path, bytes);
    for (int64_t i = 0; i < v->n * v->d; i++)
        v->data[i] = le_f32(b + data + 4 * (size_t)i);
    return XPB_OK;
}

/* The dimension that every record of an .fvecs file repeats, walking them in order, so that a
 * bad file is named by its first bad record: one of another dimension, or a short last one. */
static xpb_status fvecs_shape(const char *path, const unsigned char *b, size_t len, int32_t *d, int64_t *n,
                              xpb_error *err)
{
    if (len < 4)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: truncated .fvecs file: %zu bytes, not even a dimension", path, len);
    *d = (int32_t)le32(b);
    if (*d < 1 || *d > (1 << 24))
        return xpb_fail(err, XPB_ERR_USAGE, "%s: vector 0 has dimension %d (want 1..2^24)", path, *d);
    size_t rec = 4 + 4 * (size_t)*d, at = 0;
    int64_t i = 0;
    for (; at < len; at += rec, i++) {
        if (len - at < 4 || (int32_t)le32(b + at) == *d) {
            if (len - at < rec)
                return xpb_fail(err, XPB_ERR_USAGE, "%s: truncated .fvecs file: vector %lld has %zu of its %zu bytes",
                                path, (long long)i, len - at, rec);
            continue;
        }
        return xpb_fail(err, XPB_ERR_USAGE, "%s: vector %lld has dimension %d, vector 0 has %d", path, (long long)i,
                        (int32_t)le32(b + at), *d);
    }
    *n = i;
    if (*n > MAX_VALUES / *d)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: more than 2^31 values", path);
    return XPB_OK;
}

static xpb_status read_fvecs(const char *path, const unsigned char *b, size_t len, xpb_vectors *v, xpb_error *err)
{
    int32_t d = 0;
    int64_t n = 0;
    xpb_status st = fvecs_shape(path, b, len, &d, &n, err);
    if (st)
        return st;
    size_t rec = 4 + 4 * (size_t)d;
    v->n = n;
    v->d = d;
    v->data = malloc((size_t)(n * d) * 4);
    if (!v->data)
        return xpb_fail(err, XPB_ERR_OUT_OF_MEMORY, "%s: out of memory", path);
    for (int64_t i = 0; i < n; i++)
        for (int32_t j = 0; j < d; j++)
            v->data[i * d + j] = le_f32(b + (size_t)i * rec + 4 + 4 * (size_t)j);
    return XPB_OK;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

xpb_status xpb_vectors_read(const char *path, xpb_vectors *out, xpb_error *err)
{
    memset(out, 0, sizeof *out);
    size_t len = 0;
    xpb_status st = check_file(path, &len, err); /* first: "data/" is a directory, not a bad extension */
    if (st)
        return st;
    bool npy = ends_with(path, ".npy"), fvecs = ends_with(path, ".fvecs");
    if (!npy && !fvecs)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: not a .npy or .fvecs file (the name's extension picks the format)",
                        path);
    unsigned char *buf = NULL;
    st = slurp(path, len, &buf, err);
    if (!st)
        st = npy ? read_npy(path, buf, len, out, err) : read_fvecs(path, buf, len, out, err);
    free(buf);
    if (!st)
        st = check_finite(path, out->data, out->n, out->d, err);
    if (st)
        xpb_vectors_free(out);
    return st;
}

void xpb_vectors_free(xpb_vectors *v)
{
    free(v->data);
    memset(v, 0, sizeof *v);
}
