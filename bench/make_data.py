#!/usr/bin/python3
"""Clustered unit vectors, queries and their exact top-10, as raw files every
engine of bench/run.mjs reads (float32 little-endian rows; int32 ids).

    make_data.py OUT_PREFIX n nq dims [seed] [clusters]   # 100 clusters by default
    make_data.py --truth PREFIX n nq dims     # only the top-10, for vectors made elsewhere
"""
import sys

import numpy as np

BLOCK = 100_000  # data rows scored at a time: a million rows' scores at once would be 2 GB per 500 queries


def top10(queries, data):
    """Exact top-10 ids per query, nearest first, over data in blocks."""
    best_ids = np.zeros((len(queries), 0), dtype=np.int64)
    best_scores = np.zeros((len(queries), 0), dtype=np.float32)
    for start in range(0, len(data), BLOCK):
        scores = queries @ data[start:start + BLOCK].T
        keep = np.argpartition(-scores, min(10, scores.shape[1] - 1), axis=1)[:, :10]
        best_ids = np.concatenate([best_ids, keep + start], axis=1)
        best_scores = np.concatenate([best_scores, np.take_along_axis(scores, keep, axis=1)], axis=1)
        order = np.argsort(-best_scores, axis=1, kind="stable")[:, :10]
        best_ids = np.take_along_axis(best_ids, order, axis=1)
        best_scores = np.take_along_axis(best_scores, order, axis=1)
    return best_ids.astype(np.int32)


if sys.argv[1] == "--truth":
    prefix, n, nq, dims = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    data = np.fromfile(prefix + ".data.f32", dtype=np.float32).reshape(n, dims)
    queries = np.fromfile(prefix + ".queries.f32", dtype=np.float32).reshape(nq, dims)
    top10(queries, data).tofile(prefix + ".truth.i32")
    sys.exit(0)

prefix, n, nq, dims = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 1
clusters = int(sys.argv[6]) if len(sys.argv) > 6 else 100
rng = np.random.default_rng(seed)
centres = rng.standard_normal((clusters, dims), dtype=np.float32)


def clustered(count):
    x = centres[rng.integers(0, clusters, count)] + 0.35 * rng.standard_normal((count, dims), dtype=np.float32)
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


data, queries = clustered(n), clustered(nq)
truth = top10(queries, data)
data.tofile(prefix + ".data.f32")
queries.tofile(prefix + ".queries.f32")
truth.tofile(prefix + ".truth.i32")
