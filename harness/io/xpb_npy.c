/* xpb_npy.c - .npy v1.0 writer (xpb_npy.h). */
#include "xpb_npy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "xpb_atomic_file.h"

#define NPY_ALIGN 64

static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

const char *xpb_npy_descr(xpb_dtype t)
{
    switch (t) {
    case XPB_DTYPE_F32: return little_endian() ? "<f4" : ">f4";
    case XPB_DTYPE_F16: return little_endian() ? "<f2" : ">f2";
    case XPB_DTYPE_I32: return little_endian() ? "<i4" : ">i4";
    case XPB_DTYPE_U8: return "|u1";
    }
    return "|u1";
}

const char *xpb_npy_descr_f64(void) { return little_endian() ? "<f8" : ">f8"; }
const char *xpb_npy_descr_u32(void) { return little_endian() ? "<u4" : ">u4"; }

/* "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }" padded with spaces and ended
 * by '\n' so that the data starts at a multiple of 64 bytes. Returns the header length. */
static size_t make_header(char *h, size_t cap, const char *descr, const size_t *shape, int ndim)
{
    size_t n = (size_t)snprintf(h, cap, "{'descr': '%s', 'fortran_order': False, 'shape': (", descr);
    for (int i = 0; i < ndim && n < cap; i++) /* Python tuples: "(5,)", "(3, 7)" */
        n += (size_t)snprintf(h + n, cap - n, "%s%zu%s", i ? ", " : "", shape[i], ndim == 1 ? "," : "");
    if (n < cap)
        n += (size_t)snprintf(h + n, cap - n, "), }");
    size_t total = 10 + n + 1; /* magic(6) version(2) length(2) dict '\n' */
    size_t padded = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (padded - 10 > cap)
        return 0;
    memset(h + n, ' ', padded - total);
    n += padded - total;
    h[n++] = '\n';
    return n;
}

xpb_status xpb_npy_begin(xpb_npy_writer *w, const char *path, const char *descr, size_t elem_size,
                         const size_t *shape, int ndim, xpb_error *err)
{
    memset(w, 0, sizeof *w);
    char header[512];
    if (ndim < 0 || ndim > XPB_NPY_MAX_DIMS)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: %d dimensions (at most %d)", path, ndim, XPB_NPY_MAX_DIMS);
    size_t hlen = make_header(header, sizeof header, descr, shape, ndim);
    if (hlen == 0)
        return xpb_fail(err, XPB_ERR_USAGE, "%s: .npy header too long", path);
    w->expected = elem_size;
    for (int i = 0; i < ndim; i++)
        w->expected *= shape[i];
    snprintf(w->path, sizeof w->path, "%s", path);
    w->f = xpb_file_begin(path, w->tmp, sizeof w->tmp, err);
    if (!w->f)
        return XPB_ERR_IO;
    unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(hlen & 0xff),
                             (unsigned char)(hlen >> 8)};
    if (fwrite(pre, 1, sizeof pre, w->f) != sizeof pre || fwrite(header, 1, hlen, w->f) != hlen) {
        int e = errno;
        xpb_npy_abort(w);
        return xpb_fail(err, XPB_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return XPB_OK;
}

xpb_status xpb_npy_append(xpb_npy_writer *w, const void *data, size_t bytes, xpb_error *err)
{
    if (!w->f)
        return xpb_fail(err, XPB_ERR_IO, "cannot write %s: not open", w->path);
    if (bytes && fwrite(data, 1, bytes, w->f) != bytes) {
        int e = errno;
        xpb_npy_abort(w);
        return xpb_fail(err, XPB_ERR_IO, "cannot write %s: %s", w->path, strerror(e));
    }
    w->written += bytes;
    return XPB_OK;
}

xpb_status xpb_npy_end(xpb_npy_writer *w, xpb_error *err)
{
    if (!w->f)
        return xpb_fail(err, XPB_ERR_IO, "cannot write %s: not open", w->path);
    if (w->written != w->expected) {
        size_t got = w->written, want = w->expected;
        xpb_npy_abort(w);
        return xpb_fail(err, XPB_ERR_IO, "%s: wrote %zu data bytes, the shape needs %zu", w->path, got, want);
    }
    FILE *f = w->f;
    w->f = NULL;
    return xpb_file_commit(f, w->tmp, w->path, err);
}

void xpb_npy_abort(xpb_npy_writer *w)
{
    if (w->f) {
        fclose(w->f);
        remove(w->tmp);
        w->f = NULL;
    }
}

xpb_status xpb_npy_write(const char *path, const char *descr, size_t elem_size, const size_t *shape,
                         int ndim, const void *data, xpb_error *err)
{
    xpb_npy_writer w;
    xpb_status st = xpb_npy_begin(&w, path, descr, elem_size, shape, ndim, err);
    if (!st)
        st = xpb_npy_append(&w, data, w.expected, err);
    if (!st)
        st = xpb_npy_end(&w, err);
    return st;
}
