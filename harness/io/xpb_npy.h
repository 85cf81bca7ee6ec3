/* xpb_npy.h - NumPy .npy files, format version 1.0 (numpy.lib.format): a magic string, a
 * little Python-dict header padded to 64 bytes, then the raw C-order data. Written through a
 * temporary file renamed over the target, so a failed write leaves no broken file. */
#ifndef XPB_NPY_H
#define XPB_NPY_H

#include <stddef.h>
#include <stdio.h>

#include "xpb_status.h"
#include "xpb_workload.h"

#define XPB_NPY_MAX_DIMS 4

/* An .npy file being written: xpb_npy_begin, any number of xpb_npy_append, xpb_npy_end. */
typedef struct xpb_npy_writer {
    FILE *f;
    char path[1024], tmp[1100];
    size_t expected, written; /* data bytes */
} xpb_npy_writer;

/* The descr of a dtype in this machine's byte order: "<f4", "<f2", "<i4", "|u1"; and of fp64
 * ("<f8", for the reference) and uint32. */
const char *xpb_npy_descr(xpb_dtype t);
const char *xpb_npy_descr_f64(void);
const char *xpb_npy_descr_u32(void); /* "<u4": indices (anneal assignments) */

/* Opens path's temporary sibling and writes the header of an array of `descr` (element size
 * elem_size bytes) and shape[0..ndim). On failure returns XPB_ERR_IO with err filled. */
xpb_status xpb_npy_begin(xpb_npy_writer *w, const char *path, const char *descr, size_t elem_size,
                         const size_t *shape, int ndim, xpb_error *err);
/* Appends bytes of data (C order). */
xpb_status xpb_npy_append(xpb_npy_writer *w, const void *data, size_t bytes, xpb_error *err);
/* Checks that exactly the announced bytes were written, then renames over the target. On any
 * failure the temporary file is removed. */
xpb_status xpb_npy_end(xpb_npy_writer *w, xpb_error *err);
/* Gives up: closes and removes the temporary file (safe after a failed call). */
void xpb_npy_abort(xpb_npy_writer *w);

/* One call for an array that is all in memory. */
xpb_status xpb_npy_write(const char *path, const char *descr, size_t elem_size, const size_t *shape,
                         int ndim, const void *data, xpb_error *err);

#endif
