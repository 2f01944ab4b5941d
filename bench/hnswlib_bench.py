#!/usr/bin/python3
"""Native hnswlib (Debian's python3-hnswlib, the same library vesper wraps)
on bench/run.mjs's files: build time, index bytes per vector, recall@10 and
queries per second over ef. One thread, like vesper's WASM build.

    hnswlib_bench.py PREFIX n nq dims M efC [GRAPH [IDS]]

GRAPH, when given, caches the built index: loaded if it exists (build_s is
then 0), saved after building otherwise. IDS receives each query's ten
result ids per ef (int32), for bench/recall.py.
"""
import json
import os
import resource
import sys
import tempfile
import time

import hnswlib
import numpy as np

prefix, n, nq, dims, M, efc = sys.argv[1], *map(int, sys.argv[2:7])
data = np.fromfile(prefix + ".data.f32", dtype=np.float32).reshape(n, dims)
queries = np.fromfile(prefix + ".queries.f32", dtype=np.float32).reshape(nq, dims)
truth = np.fromfile(prefix + ".truth.i32", dtype=np.int32).reshape(nq, 10)

index = hnswlib.Index(space="ip", dim=dims)
graph = sys.argv[7] if len(sys.argv) > 7 else None
build = 0.0
load = None
if graph and os.path.exists(graph):
    t = time.perf_counter()
    index.load_index(graph, max_elements=n)
    load = time.perf_counter() - t
else:
    index.init_index(max_elements=n, M=M, ef_construction=efc, random_seed=100)
    index.set_num_threads(1)
    t = time.perf_counter()
    index.add_items(data, np.arange(n), num_threads=1)
    build = time.perf_counter() - t
    if graph:
        index.save_index(graph)
index.set_num_threads(1)
with tempfile.TemporaryDirectory() as d:
    index.save_index(os.path.join(d, "i.bin"))
    size = os.path.getsize(os.path.join(d, "i.bin"))

sweep = []
all_ids = []
for ef in (10, 20, 40, 80, 160, 320):
    index.set_ef(ef)
    labels, _ = index.knn_query(queries, k=10, num_threads=1)
    all_ids.append(labels.astype(np.int32))
    recall = np.mean([len(set(labels[i]) & set(truth[i])) / 10 for i in range(nq)])
    t = time.perf_counter()
    done = 0
    while done < 3 * nq or time.perf_counter() - t < 1.0:
        index.knn_query(queries, k=10, num_threads=1)
        done += nq
    secs = time.perf_counter() - t
    sweep.append({"ef": ef, "recall10": round(float(recall), 4), "qps": round(done / secs, 1), "us_per_query": round(1e6 * secs / done, 2)})
if len(sys.argv) > 8:
    np.concatenate(all_ids).tofile(sys.argv[8])
print(json.dumps({"bench": "hnswlib-python", "version": getattr(hnswlib, "__version__", "0.6.2 (Debian)"), "n": n, "dims": dims,
                  "queries": nq, "M": M, "efC": efc, "build_s": round(build, 3), "index_bytes_per_vector": round(size / n, 1),
                  "load_s": load and round(load, 3),
                  "peak_MiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1), "sweep": sweep}))
