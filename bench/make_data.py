#!/usr/bin/python3
"""Clustered unit vectors, queries and their exact top-10, as raw files every
engine of bench/run.mjs reads (float32 little-endian rows; int32 ids).

    make_data.py OUT_PREFIX n nq dims [seed]
    make_data.py --truth PREFIX n nq dims     # only the top-10, for vectors made elsewhere
"""
import sys

import numpy as np

if sys.argv[1] == "--truth":
    prefix, n, nq, dims = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    data = np.fromfile(prefix + ".data.f32", dtype=np.float32).reshape(n, dims)
    queries = np.fromfile(prefix + ".queries.f32", dtype=np.float32).reshape(nq, dims)
    np.argsort(-(queries @ data.T), axis=1)[:, :10].astype(np.int32).tofile(prefix + ".truth.i32")
    sys.exit(0)

prefix, n, nq, dims = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
rng = np.random.default_rng(seed)
centres = rng.standard_normal((100, dims), dtype=np.float32)


def clustered(count):
    x = centres[rng.integers(0, 100, count)] + 0.35 * rng.standard_normal((count, dims), dtype=np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


data, queries = clustered(n), clustered(nq)
truth = np.argsort(-(queries @ data.T), axis=1)[:, :10].astype(np.int32)
data.tofile(prefix + ".data.f32")
queries.tofile(prefix + ".queries.f32")
truth.tofile(prefix + ".truth.i32")
