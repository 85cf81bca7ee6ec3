/* xpb_vectors.h - reads a matrix of n vectors of dimension d (fp32, row-major) from a file: the
 * input of the annealing workload's `--input FILE` (docs/workloads.md section 3).
 *
 *   .npy    NumPy format 1.0, 2.0 or 3.0; dtype little-endian float32 ('<f4'), C order, 2-D
 *           shape (n, d)
 *   .fvecs  the ANN benchmark sets' format: per vector an int32 d (little-endian), then d float32
 *
 * The format is chosen by the file's extension. Anything else, and every malformed file (a
 * directory, an empty file, not a regular file, bad magic, unreadable header, other dtype,
 * Fortran order, another rank, truncated or trailing bytes, vectors of different d, a non-finite
 * value, more than 2^31 values) is XPB_ERR_USAGE with a one-line message "PATH: what is wrong"
 * (exit 2 at the command line); a missing or unreadable file is XPB_ERR_IO ("PATH: cannot read:
 * <strerror>"). Never a crash, never a partial matrix. */
#ifndef XPB_VECTORS_H
#define XPB_VECTORS_H

#include <stdint.h>

#include "xpb_status.h"

typedef struct xpb_vectors {
    float *data; /* n * d values, row-major; NULL when n == 0 */
    int64_t n, d;
} xpb_vectors;

xpb_status xpb_vectors_read(const char *path, xpb_vectors *out, xpb_error *err);
void xpb_vectors_free(xpb_vectors *v);

#endif
