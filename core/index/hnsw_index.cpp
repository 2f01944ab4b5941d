// The only translation unit that includes hnswlib: its headers define
// non-inline functions natively, so a second includer breaks the link.
#include "core/index/hnsw_index.h"

#include <hnswlib/hnswlib.h>

#include <cstring>
#include <unordered_set>

#include "core/index/dot.h"
#include "core/index/dot_kernel.h"

namespace vesper {
namespace {

#if defined(__EMSCRIPTEN__)
float SimdInnerProductDistance(const void* a, const void* b, const void* dims) {
  return 1.f - DotKernel(static_cast<const float*>(a), static_cast<const float*>(b), *static_cast<const size_t*>(dims));
}

class SimdInnerProductSpace : public hnswlib::SpaceInterface<float> {
 public:
  explicit SimdInnerProductSpace(size_t dims) : dims_(dims) {}
  size_t get_data_size() override { return dims_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return SimdInnerProductDistance; }
  void* get_dist_func_param() override { return &dims_; }

 private:
  size_t dims_;
};
using Space = SimdInnerProductSpace;
#else
using Space = hnswlib::InnerProductSpace;
#endif

using Graph = hnswlib::HierarchicalNSW<float>;

}  // namespace

struct HnswIndex::Impl {
  explicit Impl(size_t dims) : space(dims) {}
  Space space;
  std::unique_ptr<Graph> graph;
};

HnswIndex::HnswIndex(size_t dims, HnswParams params, size_t initial_capacity)
    : dims_(dims), params_(params), impl_(std::make_unique<Impl>(dims)) {
  if (dims == 0) throw Error(ErrorCode::kInvalidArgument, "HNSW index needs at least one dimension");
  if (params.M < 2 || params.M > 256) throw Error(ErrorCode::kInvalidArgument, "HNSW M must be in [2, 256]");
  impl_->graph = std::make_unique<Graph>(&impl_->space, std::max<size_t>(initial_capacity, 16), params.M,
                                         params.ef_construction, params.seed);
}

HnswIndex::~HnswIndex() = default;
HnswIndex::HnswIndex(HnswIndex&&) noexcept = default;
HnswIndex& HnswIndex::operator=(HnswIndex&&) noexcept = default;

size_t HnswIndex::size() const { return impl_->graph->cur_element_count - impl_->graph->num_deleted_; }
size_t HnswIndex::capacity() const { return impl_->graph->max_elements_; }

void HnswIndex::Add(uint32_t label, const float* v) {
  Graph& g = *impl_->graph;
  if (g.label_lookup_.count(label)) {
    throw Error(ErrorCode::kInvalidArgument, "HNSW label " + std::to_string(label) + " is already in use");
  }
  // hnswlib throws when full; grow geometrically instead.
  if (g.cur_element_count >= g.max_elements_) g.resizeIndex(g.max_elements_ * 2);
  g.addPoint(v, label);
}

void HnswIndex::Remove(uint32_t label) {
  Graph& g = *impl_->graph;
  auto it = g.label_lookup_.find(label);
  if (it == g.label_lookup_.end() || g.isMarkedDeleted(it->second)) {
    throw Error(ErrorCode::kNotFound, "HNSW label " + std::to_string(label) + " is not in the index");
  }
  g.markDelete(label);
}

bool HnswIndex::Contains(uint32_t label) const {
  const Graph& g = *impl_->graph;
  auto it = g.label_lookup_.find(label);
  return it != g.label_lookup_.end() && !g.isMarkedDeleted(it->second);
}

void HnswIndex::Search(const float* query, size_t k, float threshold, std::vector<Hit>& out) const {
  out.clear();
  Graph& g = *impl_->graph;
  if (k == 0 || g.cur_element_count == g.num_deleted_) return;
  g.setEf(std::max<size_t>(params_.ef_search, k));
  auto heap = g.searchKnn(query, k);  // farthest first
  out.resize(heap.size());
  size_t n = heap.size();
  while (!heap.empty()) {
    out[--n] = Hit{static_cast<uint32_t>(heap.top().second), 1.f - heap.top().first};
    heap.pop();
  }
  size_t keep = 0;
  for (const Hit& h : out) if (h.score >= threshold) out[keep++] = h;
  out.resize(keep);
}

// hnswlib 0.6.2 saves only to files; this writes the same state to bytes
// through its public members, and Load validates every link before use.
void HnswIndex::Save(ByteWriter& w) const {
  const Graph& g = *impl_->graph;
  w.u32(static_cast<uint32_t>(dims_));
  w.u32(params_.M);
  w.u32(params_.ef_construction);
  w.u32(params_.ef_search);
  w.u32(params_.seed);
  w.u64(g.cur_element_count);
  w.u32(static_cast<uint32_t>(g.maxlevel_));
  w.u32(g.enterpoint_node_);
  w.raw(g.data_level0_memory_, g.cur_element_count * g.size_data_per_element_);
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    w.u32(static_cast<uint32_t>(g.element_levels_[i]));
    if (g.element_levels_[i] > 0) w.raw(g.linkLists_[i], g.size_links_per_element_ * g.element_levels_[i]);
  }
}

HnswIndex HnswIndex::Load(ByteReader& r) {
  size_t dims = r.u32();
  if (dims == 0 || dims > 65536) r.fail("implausible HNSW dimensions");
  HnswParams p;
  p.M = r.u32();
  p.ef_construction = r.u32();
  p.ef_search = r.u32();
  p.seed = r.u32();
  if (p.M < 2 || p.M > 256 || p.ef_construction == 0 || p.ef_search == 0) r.fail("bad HNSW parameters");
  uint64_t count = r.count(dims * sizeof(float));
  HnswIndex index(dims, p, count);
  Graph& g = *index.impl_->graph;
  uint32_t maxlevel = r.u32();
  uint32_t entry = r.u32();
  if (count > 0 && (entry >= count || maxlevel > 64)) r.fail("bad HNSW entry point");
  const uint8_t* level0 = r.take(count * g.size_data_per_element_);
  std::memcpy(g.data_level0_memory_, level0, count * g.size_data_per_element_);

  auto check_links = [&](const char* list) {
    hnswlib::linklistsizeint n;
    std::memcpy(&n, list, sizeof(n));
    unsigned short links = n & 0xFFFF;
    if (links > g.maxM0_) r.fail("HNSW node has too many links");
    const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + sizeof(n));
    for (unsigned short j = 0; j < links; ++j) if (ids[j] >= count) r.fail("HNSW link points outside the graph");
  };
  g.cur_element_count = 0;  // raised as nodes are validated, so the destructor frees only what exists
  for (size_t i = 0; i < count; ++i) {
    uint32_t level = r.u32();
    if (level > maxlevel) r.fail("HNSW node level exceeds the graph's");
    check_links(g.data_level0_memory_ + i * g.size_data_per_element_);
    g.element_levels_[i] = static_cast<int>(level);
    g.linkLists_[i] = nullptr;
    if (level > 0) {
      size_t bytes = g.size_links_per_element_ * level;
      const uint8_t* src = r.take(bytes);
      g.linkLists_[i] = static_cast<char*>(std::malloc(bytes));
      if (!g.linkLists_[i]) throw Error(ErrorCode::kInternal, "out of memory loading HNSW graph");
      std::memcpy(g.linkLists_[i], src, bytes);
      g.cur_element_count = i + 1;  // from here the destructor frees this node's links
      for (uint32_t l = 1; l <= level; ++l) check_links(g.linkLists_[i] + (l - 1) * g.size_links_per_element_);
    }
    g.cur_element_count = i + 1;  // level-0 nodes own no separate allocation
    hnswlib::labeltype label = g.getExternalLabel(static_cast<hnswlib::tableint>(i));
    if (!g.label_lookup_.emplace(label, static_cast<hnswlib::tableint>(i)).second) r.fail("duplicate HNSW label");
    if (g.isMarkedDeleted(static_cast<hnswlib::tableint>(i))) ++g.num_deleted_;
  }
  g.maxlevel_ = count ? static_cast<int>(maxlevel) : -1;
  g.enterpoint_node_ = count ? entry : static_cast<hnswlib::tableint>(-1);
  if (count && g.element_levels_[entry] != static_cast<int>(maxlevel)) r.fail("HNSW entry point is not on the top level");
  return index;
}

}  // namespace vesper
