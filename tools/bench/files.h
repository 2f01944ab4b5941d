// Reading the benchmarks' input files (bench.cpp, hnsw_rows.cpp): a bad path
// or size ends the run with a message, as a benchmark's usage error does.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <vector>

#include "core/util/bytes.h"

namespace vesper::bench {

inline Bytes ReadBytes(const char* path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) { std::fprintf(stderr, "cannot read %s\n", path); std::exit(2); }
  Bytes out(static_cast<size_t>(in.tellg()));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(out.size()));
  return out;
}

// A raw little-endian array of exactly `count` elements.
template <typename T>
std::vector<T> ReadArray(const char* path, size_t count) {
  const Bytes raw = ReadBytes(path);
  if (raw.size() != count * sizeof(T)) {
    std::fprintf(stderr, "%s holds %zu bytes, expected %zu\n", path, raw.size(), count * sizeof(T));
    std::exit(2);
  }
  std::vector<T> out(count);
  std::memcpy(out.data(), raw.data(), raw.size());
  return out;
}

}  // namespace vesper::bench
