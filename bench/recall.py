#!/usr/bin/python3
"""Recall@10 of saved result ids against the exact float32 search, two ways:

- strict: the share of the true top-10 ids returned;
- within 1e-3: the share of returned ids whose exact similarity is at least the
  true 10th neighbour's minus 1e-3 (ann-benchmarks' "k-nn" recall, whose
  epsilon is 1e-3). Lines that embed to nearly the same vector tie to within
  int8 rounding, and the strict measure then counts a tie broken the other way
  as a miss.

    recall.py PREFIX n nq dims IDS     # IDS: per ef, nq x 10 int32 (vesper_bench hnsw-rows, hnswlib_bench.py)

Prints one JSON object: {"strict": [...], "within_1e-3": [...]}, one value per ef in IDS's order.
"""
import json
import sys

import numpy as np

EPSILON = 1e-3

prefix, n, nq, dims, ids_path = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
data = np.fromfile(prefix + ".data.f32", dtype=np.float32).reshape(n, dims)
queries = np.fromfile(prefix + ".queries.f32", dtype=np.float32).reshape(nq, dims)
truth = np.fromfile(prefix + ".truth.i32", dtype=np.int32).reshape(nq, 10)
runs = np.fromfile(ids_path, dtype=np.int32).reshape(-1, nq, 10)

# The true 10th neighbour's similarity per query.
tenth = np.einsum("qd,qd->q", queries, data[truth[:, 9]])
strict, within = [], []
for ids in runs:
    found = [len(set(ids[q][ids[q] >= 0]) & set(truth[q])) for q in range(nq)]
    strict.append(round(sum(found) / (10 * nq), 4))
    safe = np.where(ids >= 0, ids, 0)
    sims = np.einsum("qd,qkd->qk", queries, data[safe])
    ok = (ids >= 0) & (sims >= tenth[:, None] - EPSILON)
    within.append(round(float(ok.sum()) / (10 * nq), 4))
print(json.dumps({"strict": strict, "within_1e-3": within}))
