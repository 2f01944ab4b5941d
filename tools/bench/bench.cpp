// Native and WASM (under node) micro-benchmarks of the core, from one source
// so the two numbers compare like for like. Prints one JSON object.
//
//   vesper_bench hnsw [n dims queries M efC]   build + recall/QPS sweep over ef
//   vesper_bench encode MODEL FILE...          SentencePiece encode MB/s
//   vesper_bench scan [n dims]                 exact fp32 scan
//   vesper_bench hnsw-file DATA QUERIES TRUTH n nq dims M efC [GRAPH]
//                                              the same on shared float32/int32 files (bench/run.mjs);
//                                              GRAPH caches the built graph
//   vesper_bench scan-formats [n dims]         fp32, int8, 1-bit + rescore vs a plain pass over the bytes
//   vesper_bench load PACK [repeats]           loading a pack from bytes in memory (best of repeats)
//   vesper_bench hnsw-rows ...                 store + graph by reference at scale (hnsw_rows.cpp)
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/collection/pack.h"
#include "core/index/dot.h"
#include "core/index/hnsw_index.h"
#include "core/index/vector_store.h"
#include "core/tokenizer/tokenizer.h"
#include "core/util/bytes.h"
#include "tools/bench/files.h"

using namespace vesper;
using vesper::bench::ReadArray;
using vesper::bench::ReadBytes;
using Clock = std::chrono::steady_clock;

namespace {

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::vector<float> Clustered(size_t n, size_t dims, size_t clusters, uint32_t seed, float spread = 0.35f) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<float> centres(clusters * dims);
  for (auto& x : centres) x = g(rng);
  std::vector<float> out(n * dims);
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  for (size_t i = 0; i < n; ++i) {
    const float* c = centres.data() + pick(rng) * dims;
    for (size_t d = 0; d < dims; ++d) out[i * dims + d] = c[d] + spread * g(rng);
    Normalize(out.data() + i * dims, dims);
  }
  return out;
}

std::string ReadFile(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) { std::fprintf(stderr, "cannot read %s\n", path); std::exit(2); }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

int Hnsw(int argc, char** argv) {
  size_t n = argc > 2 ? std::stoul(argv[2]) : 20000;
  size_t dims = argc > 3 ? std::stoul(argv[3]) : 256;
  size_t nq = argc > 4 ? std::stoul(argv[4]) : 500;
  HnswParams p;
  p.M = argc > 5 ? std::stoul(argv[5]) : 16;
  p.ef_construction = argc > 6 ? std::stoul(argv[6]) : 200;
  auto data = Clustered(n, dims, 100, 1);
  auto queries = Clustered(nq, dims, 100, 2);
  VectorStore exact(dims);
  HnswIndex index(dims, p, n);
  auto t0 = Clock::now();
  for (size_t i = 0; i < n; ++i) index.Add(static_cast<uint32_t>(i), data.data() + i * dims);
  double build = Seconds(t0, Clock::now());
  for (size_t i = 0; i < n; ++i) exact.Add(data.data() + i * dims);
  std::vector<std::set<uint32_t>> truth(nq);
  std::vector<Hit> hits;
  for (size_t q = 0; q < nq; ++q) {
    exact.Search(queries.data() + q * dims, 10, -2.f, hits);
    for (auto& h : hits) truth[q].insert(h.label);
  }
  std::printf("{\"bench\":\"hnsw\",\"kernel\":\"%s\",\"n\":%zu,\"dims\":%zu,\"queries\":%zu,\"M\":%u,\"efC\":%u,"
              "\"build_s\":%.3f,\"sweep\":[",
              DotKernelName(), n, dims, nq, p.M, p.ef_construction, build);
  bool first = true;
  for (uint32_t ef : {16u, 32u, 64u, 128u, 256u, 512u}) {
    index.set_ef_search(ef);
    for (size_t q = 0; q < nq; ++q) index.Search(queries.data() + q * dims, 10, -2.f, hits);  // warm-up
    size_t found = 0;
    auto t = Clock::now();
    int reps = 0;
    for (int rep = 0; rep < 3 || Seconds(t, Clock::now()) < 1.0; ++rep, ++reps) {
      for (size_t q = 0; q < nq; ++q) {
        index.Search(queries.data() + q * dims, 10, -2.f, hits);
        if (rep == 0) for (auto& h : hits) found += truth[q].count(h.label);
      }
    }
    double secs = Seconds(t, Clock::now());
    std::printf("%s{\"ef\":%u,\"recall10\":%.4f,\"qps\":%.1f,\"us_per_query\":%.2f}", first ? "" : ",", ef,
                static_cast<double>(found) / (10.0 * nq), reps * nq / secs, 1e6 * secs / (reps * nq));
    first = false;
  }
  std::printf("]}\n");
  return 0;
}

int Encode(int argc, char** argv) {
  if (argc < 4) { std::fprintf(stderr, "usage: vesper_bench encode MODEL FILE...\n"); return 2; }
  auto tok = Tokenizer::FromBytes(ReadFile(argv[2]));
  std::vector<std::string> lines;
  size_t bytes = 0;
  for (int i = 3; i < argc; ++i) {
    std::stringstream ss(ReadFile(argv[i]));
    std::string line;
    while (std::getline(ss, line)) if (!line.empty()) { bytes += line.size(); lines.push_back(line); }
  }
  std::vector<int32_t> ids;
  size_t tokens = 0;
  for (const auto& l : lines) tok->EncodeIds(l, ids);  // warm-up
  auto t = Clock::now();
  int reps = 0;
  while (Seconds(t, Clock::now()) < 2.0) {
    for (const auto& l : lines) { tok->EncodeIds(l, ids); tokens += ids.size(); }
    ++reps;
  }
  double secs = Seconds(t, Clock::now());
  std::printf("{\"bench\":\"encode\",\"bytes\":%zu,\"lines\":%zu,\"reps\":%d,\"MB_per_s\":%.2f,\"tokens_per_s\":%.0f}\n",
              bytes, lines.size(), reps, reps * bytes / secs / 1e6, tokens / secs);
  return 0;
}

int Scan(int argc, char** argv) {
  size_t n = argc > 2 ? std::stoul(argv[2]) : 100000;
  size_t dims = argc > 3 ? std::stoul(argv[3]) : 768;
  auto data = Clustered(n, dims, 100, 3);
  VectorStore store(dims);
  for (size_t i = 0; i < n; ++i) store.Add(data.data() + i * dims);
  std::vector<Hit> hits;
  store.Search(data.data(), 10, -2.f, hits);
  auto t = Clock::now();
  int reps = 0;
  while (Seconds(t, Clock::now()) < 2.0) { store.Search(data.data() + (reps % 100) * dims, 10, -2.f, hits); ++reps; }
  double secs = Seconds(t, Clock::now());
  double gbs = reps * n * dims * 4.0 / secs / 1e9;
  std::printf("{\"bench\":\"scan\",\"kernel\":\"%s\",\"n\":%zu,\"dims\":%zu,\"ms_per_query\":%.3f,\"GB_per_s\":%.2f}\n",
              DotKernelName(), n, dims, 1e3 * secs / reps, gbs);
  return 0;
}

// The HNSW sweep on vectors every engine of bench/run.mjs reads from the same files.
int HnswFile(int argc, char** argv) {
  if (argc < 10) { std::fprintf(stderr, "usage: vesper_bench hnsw-file DATA QUERIES TRUTH n nq dims M efC\n"); return 2; }
  size_t n = std::stoul(argv[5]), nq = std::stoul(argv[6]), dims = std::stoul(argv[7]);
  HnswParams p;
  p.M = std::stoul(argv[8]);
  p.ef_construction = std::stoul(argv[9]);
  auto data = ReadArray<float>(argv[2], n * dims);
  auto queries = ReadArray<float>(argv[3], nq * dims);
  auto truth = ReadArray<int32_t>(argv[4], nq * 10);
  // GRAPH lets later rounds time the searches again without rebuilding
  // (build_s then reads 0).
  const char* cache = argc > 10 ? argv[10] : nullptr;
  HnswIndex index(dims, p, n);
  double build = 0;
  Bytes saved;
  if (cache && std::ifstream(cache).good()) {
    saved = ReadBytes(cache);
    ByteReader r(saved.data(), saved.size(), cache);
    index = HnswIndex::Load(r);
  } else {
    auto t0 = Clock::now();
    for (size_t i = 0; i < n; ++i) index.Add(static_cast<uint32_t>(i), data.data() + i * dims);
    build = Seconds(t0, Clock::now());
    ByteWriter w(saved);
    index.Save(w, true);
    if (cache) std::ofstream(cache, std::ios::binary).write(reinterpret_cast<const char*>(saved.data()), saved.size());
  }
  std::printf("{\"bench\":\"hnsw-file\",\"kernel\":\"%s\",\"n\":%zu,\"dims\":%zu,\"queries\":%zu,\"M\":%u,\"efC\":%u,"
              "\"build_s\":%.3f,\"index_bytes_per_vector\":%.1f,\"sweep\":[",
              DotKernelName(), n, dims, nq, p.M, p.ef_construction, build, static_cast<double>(saved.size()) / n);
  std::vector<Hit> hits;
  bool first = true;
  for (uint32_t ef : {10u, 20u, 40u, 80u, 160u, 320u}) {
    index.set_ef_search(ef);
    for (size_t q = 0; q < nq; ++q) index.Search(queries.data() + q * dims, 10, -2.f, hits);  // warm-up
    size_t found = 0;
    for (size_t q = 0; q < nq; ++q) {
      index.Search(queries.data() + q * dims, 10, -2.f, hits);
      std::set<int32_t> t(truth.begin() + q * 10, truth.begin() + (q + 1) * 10);
      for (auto& h : hits) found += t.count(static_cast<int32_t>(h.label));
    }
    auto t = Clock::now();
    size_t done = 0;
    while (done < 3 * nq || Seconds(t, Clock::now()) < 1.0) {
      for (size_t q = 0; q < nq; ++q) index.Search(queries.data() + q * dims, 10, -2.f, hits);
      done += nq;
    }
    double secs = Seconds(t, Clock::now());
    std::printf("%s{\"ef\":%u,\"recall10\":%.4f,\"qps\":%.1f,\"us_per_query\":%.2f}", first ? "" : ",", ef,
                static_cast<double>(found) / (10.0 * nq), done / secs, 1e6 * secs / done);
    first = false;
  }
  std::printf("]}\n");
  return 0;
}

// Exact top-10 scans in each stored format against the memory-bandwidth bound:
// one plain pass that sums the same number of bytes (no scoring, no heap).
int ScanFormats(int argc, char** argv) {
  size_t n = argc > 2 ? std::stoul(argv[2]) : 100000;
  size_t dims = argc > 3 ? std::stoul(argv[3]) : 768;
  auto data = Clustered(n, dims, 100, 3);
  auto time_it = [](auto&& fn) {
    fn(0);
    auto t = Clock::now();
    int reps = 0;
    while (reps < 5 || Seconds(t, Clock::now()) < 1.5) fn(++reps);
    return Seconds(t, Clock::now()) / reps;
  };
  // The bound: one pass reading the fp32 vectors' bytes as 64-bit words
  // (an add per word: memory-bound, not compute-bound), scaled to the bytes
  // each format has to read.
  std::vector<uint64_t> words(n * dims / 2);
  std::memcpy(words.data(), data.data(), words.size() * 8);
  volatile uint64_t sink = 0;
  double pass = time_it([&](int) {
    uint64_t acc[8] = {0};
    const size_t m = words.size() & ~size_t(7);
    for (size_t i = 0; i < m; i += 8)
      for (int j = 0; j < 8; ++j) acc[j] += words[i + j];
    uint64_t t = 0;
    for (uint64_t a : acc) t += a;
    sink = t;
  });
  const double gbps = words.size() * 8.0 / pass / 1e9;
  const double pass_f32 = 4.0 * n * dims / (gbps * 1e9), pass_i8 = 1.0 * n * dims / (gbps * 1e9);
  std::printf("{\"bench\":\"scan-formats\",\"kernel\":\"%s\",\"n\":%zu,\"dims\":%zu,"
              "\"bound_f32\":{\"ms\":%.3f,\"GB_per_s\":%.2f},\"bound_int8\":{\"ms\":%.3f,\"GB_per_s\":%.2f},\"formats\":[",
              DotKernelName(), n, dims, 1e3 * pass_f32, gbps, 1e3 * pass_i8, gbps);
  bool first = true;
  for (VectorFormat fmt : {VectorFormat::kFloat32, VectorFormat::kInt8, VectorFormat::kBinary}) {
    VectorStore store(dims, fmt);
    for (size_t i = 0; i < n; ++i) store.Add(data.data() + i * dims);
    std::vector<Hit> hits, truth;
    VectorStore exact(dims);
    if (fmt != VectorFormat::kFloat32) for (size_t i = 0; i < n; ++i) exact.Add(data.data() + i * dims);
    double secs = time_it([&](int rep) { store.Search(data.data() + (rep % 100) * dims, 10, -2.f, hits); });
    // Recall@10 against the fp32 scan over 20 queries.
    size_t found = 0;
    for (int q = 0; q < 20; ++q) {
      store.Search(data.data() + (q * 37 % n) * dims, 10, -2.f, hits);
      (fmt == VectorFormat::kFloat32 ? store : exact).Search(data.data() + (q * 37 % n) * dims, 10, -2.f, truth);
      std::set<uint32_t> t;
      for (auto& h : truth) t.insert(h.label);
      for (auto& h : hits) found += t.count(h.label);
    }
    const char* name = fmt == VectorFormat::kFloat32 ? "float32" : fmt == VectorFormat::kInt8 ? "int8" : "binary+rescore";
    std::printf("%s{\"format\":\"%s\",\"bytes_per_vector\":%zu,\"ms_per_query\":%.3f,\"recall10\":%.3f}", first ? "" : ",",
                name, store.bytes_per_vector(), 1e3 * secs, found / 200.0);
    first = false;
  }
  std::printf("]}\n");
  return 0;
}

}  // namespace

// Loading a pack from bytes already in memory: what every client pays
// before its first query (bench/run.mjs; perf shows where the time goes).
int Load(int argc, char** argv) {
  if (argc < 3) return 2;
  const std::string bytes = ReadFile(argv[2]);
  const int repeats = argc > 3 ? std::stoi(argv[3]) : 3;
  double best = 1e30;
  size_t chunks = 0;
  for (int i = 0; i < repeats; ++i) {
    auto t0 = Clock::now();
    auto loaded = LoadPack(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    best = std::min(best, Seconds(t0, Clock::now()));
    chunks = 0;
    for (const auto& c : loaded) chunks += c.size();
  }
  std::printf("{\"bytes\": %zu, \"chunks\": %zu, \"load_s\": %.4f}\n", bytes.size(), chunks, best);
  return 0;
}

int HnswRows(int argc, char** argv);  // hnsw_rows.cpp

int main(int argc, char** argv) {
  std::string what = argc > 1 ? argv[1] : "";
  if (what == "hnsw") return Hnsw(argc, argv);
  if (what == "encode") return Encode(argc, argv);
  if (what == "scan") return Scan(argc, argv);
  if (what == "hnsw-file") return HnswFile(argc, argv);
  if (what == "scan-formats") return ScanFormats(argc, argv);
  if (what == "load") return Load(argc, argv);
  if (what == "hnsw-rows") return HnswRows(argc, argv);
  std::fprintf(stderr, "usage: vesper_bench hnsw|hnsw-file|hnsw-rows|encode|scan|scan-formats|load ...\n");
  return 2;
}
