// The million-vector benchmark in a page (bench/million.mjs --only chromium):
// the core's calls, exported plainly for a harness to time with
// performance.now(). It loads the bytes vesper_bench hnsw-rows saved (a
// VectorStore, then its HNSW graph by reference) from WASM memory, and
// searches one query at a time. One loaded index per module instance.
#include <emscripten/emscripten.h>
#include <malloc.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>

#include "core/index/hnsw_index.h"
#include "core/index/vector_store.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

using namespace vesper;

namespace {
constexpr size_t kTopK = 10;
std::unique_ptr<VectorStore> store;
std::unique_ptr<HnswIndex> graph;
std::vector<Hit> hits;
}  // namespace

extern "C" {

EMSCRIPTEN_KEEPALIVE void* vb_alloc(size_t bytes) { return std::malloc(bytes); }

// Takes `bytes` (from vb_alloc): the store reads its int8 rows in place and
// frees them with itself. 0 when loaded, else 1 (the reason is printed).
EMSCRIPTEN_KEEPALIVE int vb_load(uint8_t* bytes, size_t size) {
  try {
    std::shared_ptr<const void> owner(bytes, std::free);
    ByteReader r(bytes, size, "saved index");
    store = std::make_unique<VectorStore>(VectorStore::Load(r, owner));
    // Level-0 link lists by their count, as vesper_bench hnsw-rows and packs save them.
    graph = std::make_unique<HnswIndex>(HnswIndex::LoadByReference(r, store->Rows(), 8, false, /*compact_links=*/true));
    hits.reserve(kTopK);
    return 0;
  } catch (const Error& e) {
    std::fprintf(stderr, "vb_load: %s\n", e.what());
    return 1;
  }
}

EMSCRIPTEN_KEEPALIVE void vb_set_ef(uint32_t ef) { graph->set_ef_search(ef); }

// The ten nearest labels of one query into out (-1 where fewer).
EMSCRIPTEN_KEEPALIVE void vb_search(const float* query, int32_t* out) {
  graph->Search(query, store->Rows(), kTopK, -2.f, hits);
  for (size_t i = 0; i < kTopK; ++i) out[i] = i < hits.size() ? static_cast<int32_t>(hits[i].label) : -1;
}

// Bytes the allocator hands out now, in MiB.
EMSCRIPTEN_KEEPALIVE double vb_heap_mib() { return mallinfo().uordblks / (1024.0 * 1024.0); }

}  // extern "C"
