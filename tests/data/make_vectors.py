#!/usr/bin/env python3
"""make_vectors.py - writes the small vector files of tests/data/ (no NumPy needed): 500 points of
dimension 16 around 8 Gaussian blob centres (seed 1), as .npy (float32, 2-D) and .fvecs, and the
malformed files the CLI tests expect to be refused. Re-run to regenerate; the files are committed."""
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def npy(path, rows, descr="<f4", fmt="f", shape=None):
    shape = shape or "(%d, %d)" % (len(rows), len(rows[0]))
    hdr = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, shape)
    hdr += " " * (64 - (10 + len(hdr) + 1) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr)) + hdr.encode())
        for r in rows:
            f.write(struct.pack("<%d%s" % (len(r), fmt), *r))


def main():
    random.seed(1)
    n, d = 500, 16
    centres = [[random.uniform(-1, 1) for _ in range(d)] for _ in range(8)]
    rows = []
    for _ in range(n):
        c = centres[random.randrange(8)]
        rows.append([c[j] + random.gauss(0, 0.025) for j in range(d)])
    npy(os.path.join(HERE, "blobs500x16.npy"), rows)
    with open(os.path.join(HERE, "blobs500x16.fvecs"), "wb") as f:
        for r in rows:
            f.write(struct.pack("<i", d) + struct.pack("<%df" % d, *r))
    npy(os.path.join(HERE, "bad_float64.npy"), rows[:10], "<f8", "d")
    npy(os.path.join(HERE, "bad_rank3.npy"), rows[:10], shape="(2, 5, 16)")
    with open(os.path.join(HERE, "blobs500x16.fvecs"), "rb") as f:
        data = f.read()
    with open(os.path.join(HERE, "bad_truncated.fvecs"), "wb") as f:
        f.write(data[: 3 * (4 + 4 * d) + 7])


if __name__ == "__main__":
    main()
