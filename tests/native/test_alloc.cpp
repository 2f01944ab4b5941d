// Searches allocate nothing once warmed up: the scratch they need lives in
// the index and is reused. Counted by replacing the global operator new for
// this test binary; only the window between Count() calls is counted.
#include <catch2/catch.hpp>

#include <atomic>
#include <memory>
#include <cstdlib>
#include <new>

#include "core/index/hnsw_index.h"
#include "core/index/vector_store.h"
#include "helpers.h"

namespace {
std::atomic<bool> counting{false};
std::atomic<size_t> allocations{0};
}  // namespace

void* operator new(std::size_t size) {
  if (counting.load(std::memory_order_relaxed)) allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

using namespace vesper;

namespace {
// Allocations made by `searches` calls of f after one warm-up call.
template <typename F>
size_t AllocationsAfterWarmUp(F&& f, int searches = 50) {
  f(0);
  allocations = 0;
  counting = true;
  for (int i = 1; i <= searches; ++i) f(i);
  counting = false;
  return allocations;
}
}  // namespace

TEST_CASE("warmed-up searches allocate nothing", "[index][alloc]") {
  const size_t dims = 64, n = 3000;
  auto data = test::ClusteredVectors(n, dims, 12, 0.3f, 21);
  std::vector<Hit> hits;
  hits.reserve(64);

  // The counter itself must see allocations, or the zeros below prove nothing.
  std::vector<std::unique_ptr<int>> kept;
  kept.reserve(8);
  CHECK(AllocationsAfterWarmUp([&](int i) { kept.push_back(std::make_unique<int>(i)); }, 3) == 3);

  for (VectorFormat format : {VectorFormat::kFloat32, VectorFormat::kInt8, VectorFormat::kBinary}) {
    VectorStore store(dims, format);
    for (size_t i = 0; i < n; ++i) store.Add(data.data() + i * dims);
    INFO("format " << VectorFormatName(format));
    CHECK(AllocationsAfterWarmUp([&](int i) { store.Search(data.data() + (i * 37 % n) * dims, 10, -1.f, hits); }) == 0);
    CHECK(hits.size() == 10);
  }

  HnswIndex hnsw(dims);
  for (size_t i = 0; i < n; ++i) hnsw.Add(static_cast<uint32_t>(i), data.data() + i * dims);
  CHECK(AllocationsAfterWarmUp([&](int i) { hnsw.Search(data.data() + (i * 37 % n) * dims, 10, -1.f, hits); }) == 0);
  CHECK(hits.size() == 10);
  CHECK(hits[0].label == 50 * 37 % n);  // the last query finds itself first
  hnsw.Remove(5);  // the walk through deleted nodes allocates nothing either
  CHECK(AllocationsAfterWarmUp([&](int i) { hnsw.Search(data.data() + (i * 37 % n) * dims, 10, -1.f, hits); }) == 0);

  // A graph reading an int8 store's rows: the query in int16 and the
  // results' rescoring reuse their scratch too.
  VectorStore codes(dims, VectorFormat::kInt8);
  HnswIndex by_reference = HnswIndex::ByReference(dims);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t label = codes.Add(data.data() + i * dims);
    by_reference.Add(label, codes.Rows());
  }
  const VectorRows rows = codes.Rows();
  CHECK(AllocationsAfterWarmUp([&](int i) { by_reference.Search(data.data() + (i * 37 % n) * dims, rows, 10, -1.f, hits); }) == 0);
  CHECK(hits.size() == 10);
}
