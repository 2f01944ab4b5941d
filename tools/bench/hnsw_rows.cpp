// vesper_bench hnsw-rows: the index as a collection holds it, at a size
// where memory decides (bench/million.mjs: 1,000,000 x 256). The vectors
// live once, in a VectorStore (float32 or int8); the HNSW graph reads them
// by reference. Builds from DATA streamed in blocks (never the whole float
// file in memory), saves store + graph as one buffer (SAVED caches it), then
// times loading that buffer from memory, frees it, and sweeps ef with
// per-query latencies. Prints one JSON object.
//
//   vesper_bench hnsw-rows DATA QUERIES TRUTH n nq dims M efC FORMAT [SAVED [IDS]]
//
// IDS receives every query's ten result labels per ef (int32, -1 where
// fewer), for bench/recall.py to score against the float vectors.
#include <malloc.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "core/index/dot.h"
#include "core/index/hnsw_index.h"
#include "core/index/vector_store.h"
#include "core/util/bytes.h"
#include "tools/bench/files.h"

using namespace vesper;
using vesper::bench::ReadArray;
using vesper::bench::ReadBytes;

namespace {

// Level-0 link lists saved by their count, as packs store them (version 6).
constexpr bool kCompactLinks = true;

using Clock = std::chrono::steady_clock;
double Since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

constexpr size_t kBlockVectors = 4096;  // rows read from DATA at a time while building
constexpr double kMiB = 1024.0 * 1024.0;

// Bytes the allocator hands out now (freed blocks excluded).
double HeapInUseMiB() {
#if defined(__EMSCRIPTEN__)
  struct mallinfo m = mallinfo();
  return m.uordblks / kMiB;
#else
  struct mallinfo2 m = mallinfo2();
  return (m.uordblks + m.hblkhd) / kMiB;
#endif
}

// The most memory the process has held: WASM linear memory only grows.
double PeakMiB() {
#if defined(__EMSCRIPTEN__)
  return __builtin_wasm_memory_size(0) * 65536.0 / kMiB;
#else
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024.0;
#endif
}

// Store and graph built from DATA, saved into one buffer.
std::vector<uint8_t> Build(const char* data_path, size_t n, size_t dims, HnswParams p, VectorFormat format,
                           double& build_s) {
  VectorStore store(dims, format);
  HnswIndex graph = HnswIndex::ByReference(dims, p, n);
  std::ifstream in(data_path, std::ios::binary);
  if (!in) { std::fprintf(stderr, "cannot read %s\n", data_path); std::exit(2); }
  std::vector<float> block(kBlockVectors * dims);
  auto t0 = Clock::now();
  for (size_t done = 0; done < n;) {
    const size_t count = std::min(kBlockVectors, n - done);
    in.read(reinterpret_cast<char*>(block.data()), static_cast<std::streamsize>(count * dims * sizeof(float)));
    if (!in) { std::fprintf(stderr, "%s is short\n", data_path); std::exit(2); }
    for (size_t i = 0; i < count; ++i) {
      const uint32_t label = store.Add(block.data() + i * dims);
      graph.Add(label, store.Rows());
    }
    done += count;
    if (done % (kBlockVectors * 32) == 0) std::fprintf(stderr, "hnsw-rows: %zu of %zu added (%.0f s)\n", done, n, Since(t0));
  }
  build_s = Since(t0);
  std::vector<uint8_t> saved;
  ByteWriter w(saved);
  store.Save(w);
  const VectorRows rows = store.Rows();
  graph.Save(w, false, &rows, kCompactLinks);
  return saved;
}

struct Latency {
  double recall, p50_us, p99_us, mean_us;
};

Latency Sweep(const HnswIndex& graph, const VectorRows& rows, const std::vector<float>& queries,
              const std::vector<int32_t>& truth, size_t nq, size_t dims, std::vector<int32_t>& ids) {
  std::vector<Hit> hits;
  std::vector<double> us;
  size_t found = 0;
  for (size_t q = 0; q < nq; ++q) graph.Search(queries.data() + q * dims, rows, 10, -2.f, hits);  // warm-up
  for (int round = 0; round < 3; ++round) {
    for (size_t q = 0; q < nq; ++q) {
      auto t = Clock::now();
      graph.Search(queries.data() + q * dims, rows, 10, -2.f, hits);
      us.push_back(1e6 * Since(t));
      if (round) continue;
      for (size_t i = 0; i < 10; ++i) ids.push_back(i < hits.size() ? static_cast<int32_t>(hits[i].label) : -1);
      std::set<int32_t> want(truth.begin() + q * 10, truth.begin() + (q + 1) * 10);
      for (const Hit& h : hits) found += want.count(static_cast<int32_t>(h.label));
    }
  }
  std::sort(us.begin(), us.end());
  double sum = 0;
  for (double x : us) sum += x;
  return {static_cast<double>(found) / (10.0 * nq), us[us.size() / 2], us[us.size() * 99 / 100], sum / us.size()};
}

}  // namespace

int HnswRows(int argc, char** argv) {
  if (argc < 11) {
    std::fprintf(stderr, "usage: vesper_bench hnsw-rows DATA QUERIES TRUTH n nq dims M efC FORMAT [SAVED]\n");
    return 2;
  }
  const size_t n = std::stoul(argv[5]), nq = std::stoul(argv[6]), dims = std::stoul(argv[7]);
  HnswParams p;
  p.M = std::stoul(argv[8]);
  p.ef_construction = std::stoul(argv[9]);
  const VectorFormat format = ParseVectorFormat(argv[10]);
  const char* cache = argc > 11 ? argv[11] : nullptr;
  const char* ids_path = argc > 12 ? argv[12] : nullptr;
  std::vector<int32_t> ids;
  auto queries = ReadArray<float>(argv[3], nq * dims);
  auto truth = ReadArray<int32_t>(argv[4], nq * 10);
  double build_s = 0;
  const double baseline = HeapInUseMiB();  // the queries and truth
  std::vector<uint8_t> saved;
  if (cache && std::ifstream(cache).good()) {
    saved = ReadBytes(cache);
  } else {
    saved = Build(argv[2], n, dims, p, format, build_s);
    if (cache) std::ofstream(cache, std::ios::binary).write(reinterpret_cast<const char*>(saved.data()), saved.size());
  }
  const double saved_bytes = static_cast<double>(saved.size());
  auto t0 = Clock::now();
  // The store reads int8 rows in place and keeps the bytes (as a pack whose
  // rows are most of it does); it copies other formats.
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(saved));
  ByteReader r(owner->data(), owner->size(), "hnsw-rows");
  VectorStore store = VectorStore::Load(r, owner);
  HnswIndex graph = HnswIndex::LoadByReference(r, store.Rows(), 8, false, kCompactLinks);
  const double load_s = Since(t0);
  owner.reset();  // a page drops the fetched bytes once loaded, unless the store reads them
  const double index_mib = HeapInUseMiB() - baseline;  // store + graph, nothing else left
  std::printf("{\"bench\":\"hnsw-rows\",\"kernel\":\"%s\",\"format\":\"%s\",\"n\":%zu,\"dims\":%zu,\"queries\":%zu,"
              "\"M\":%u,\"efC\":%u,\"build_s\":%.2f,\"saved_bytes_per_vector\":%.1f,\"load_s\":%.3f,"
              "\"index_MiB\":%.1f,\"heap_in_use_MiB\":%.1f,\"sweep\":[",
              DotKernelName(), VectorFormatName(format), n, dims, nq, p.M, p.ef_construction, build_s, saved_bytes / n,
              load_s, index_mib, HeapInUseMiB());
  const VectorRows rows = store.Rows();
  bool first = true;
  for (uint32_t ef : {10u, 20u, 40u, 80u, 160u, 320u}) {  // bench/hnswlib_bench.py's
    graph.set_ef_search(ef);
    Latency l = Sweep(graph, rows, queries, truth, nq, dims, ids);
    std::printf("%s{\"ef\":%u,\"recall10\":%.4f,\"p50_us\":%.1f,\"p99_us\":%.1f,\"mean_us\":%.1f}", first ? "" : ",", ef,
                l.recall, l.p50_us, l.p99_us, l.mean_us);
    first = false;
  }
  std::printf("],\"peak_MiB\":%.1f}\n", PeakMiB());
  if (ids_path) std::ofstream(ids_path, std::ios::binary).write(reinterpret_cast<const char*>(ids.data()), ids.size() * sizeof(int32_t));
  return 0;
}
