// Shared test fixtures: files the project ships, the trained test tokenizers,
// and synthetic clustered vectors.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/index/dot.h"
#include "core/util/bytes.h"
#include "core/tokenizer/tokenizer.h"

namespace vesper::test {

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("test fixture missing: " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Seed {
  std::string name;
  std::string text;
};

inline std::vector<Seed> Seeds() {
  static const char* names[] = {"000_a7129b241560df3c.txt", "001_1978079c4e36f2a4.txt", "002_6590c5b5da9c1cba.txt",
                                "003_c06ab8017086ce50.txt", "004_5e780afbf1eb5331.txt"};
  std::vector<Seed> seeds;
  for (const char* n : names) seeds.push_back({n, ReadFile(std::string(VESPER_KB_DIR) + "/" + n)});
  return seeds;
}

inline std::unique_ptr<Tokenizer> TestTokenizer(const std::string& kind, SpecialTokenPolicy policy = {}) {
  return Tokenizer::FromBytes(ReadFile(std::string(VESPER_TEST_MODEL_DIR) + "/" + kind + ".model"), policy);
}

// Unit vectors around `clusters` random centres: the shape of real
// embeddings (topics), which is where approximate search gets hard.
inline std::vector<float> ClusteredVectors(size_t n, size_t dims, size_t clusters, float spread, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.f, 1.f);
  std::vector<float> centres(clusters * dims);
  for (auto& x : centres) x = g(rng);
  for (size_t c = 0; c < clusters; ++c) Normalize(centres.data() + c * dims, dims);
  std::vector<float> out(n * dims);
  std::uniform_int_distribution<size_t> pick(0, clusters - 1);
  for (size_t i = 0; i < n; ++i) {
    const float* c = centres.data() + pick(rng) * dims;
    float* v = out.data() + i * dims;
    for (size_t d = 0; d < dims; ++d) v[d] = c[d] + spread * g(rng);
    Normalize(v, dims);
  }
  return out;
}

// Queries near stored vectors (a stored vector plus noise), as real queries
// are near the passages that answer them.
inline std::vector<float> NearbyQueries(const std::vector<float>& data, size_t dims, size_t n, float noise, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> g(0.f, 1.f);
  std::uniform_int_distribution<size_t> pick(0, data.size() / dims - 1);
  std::vector<float> out(n * dims);
  for (size_t i = 0; i < n; ++i) {
    const float* src = data.data() + pick(rng) * dims;
    float* q = out.data() + i * dims;
    for (size_t d = 0; d < dims; ++d) q[d] = src[d] + noise * g(rng) / std::sqrt(static_cast<float>(dims));
    Normalize(q, dims);
  }
  return out;
}

// An HNSW section as wasm32 builds wrote it before pack version 2: the same
// bytes with each node's label cut to its low 4 bytes.
inline Bytes WasmV1Graph(const Bytes& graph, size_t dims, size_t M) {
  const size_t header = 5 * 4 + 8 + 4 + 4, node = 4 + 2 * M * 4 + dims * 4;
  uint64_t count;
  std::memcpy(&count, graph.data() + 20, 8);
  Bytes out(graph.begin(), graph.begin() + header);
  size_t at = header;
  for (uint64_t i = 0; i < count; ++i, at += node + 8) out.insert(out.end(), graph.begin() + at, graph.begin() + at + node + 4);
  out.insert(out.end(), graph.begin() + at, graph.end());
  return out;
}

}  // namespace vesper::test
