// The only translation unit that includes hnswlib: its headers define
// non-inline functions natively, so a second includer breaks the link.
#include "core/index/hnsw_index.h"

#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
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

// hnswlib's graph, searched by our own loop rather than searchKnn: the same
// best-first walk (so the same results), but with scratch kept between
// queries instead of two priority queues and a pooled visited list per call,
// and each neighbour list's distances computed four rows at a time.
struct HnswIndex::Impl {
  explicit Impl(size_t dims) : space(dims), dims(dims) {}
  Space space;
  size_t dims;
  std::unique_ptr<Graph> graph;

  using Entry = std::pair<float, hnswlib::tableint>;  // (distance, internal id)
  std::vector<uint16_t> visited;  // visited[id] == epoch: seen in this query
  uint16_t epoch = 0;
  std::vector<Entry> frontier;  // min-heap on distance: nodes to expand
  std::vector<Entry> found;     // max-heap on distance: the ef best so far
  std::vector<hnswlib::tableint> batch_ids;
  std::vector<float> batch_dist;

  const float* Vector(hnswlib::tableint id) const {
    return reinterpret_cast<const float*>(graph->getDataByInternalId(id));
  }
  float Distance(const float* q, hnswlib::tableint id) const { return 1.f - DotKernel(q, Vector(id), dims); }

  // Distances from q to batch_ids[0..n) into batch_dist.
  void DistanceBatch(const float* q, size_t n) {
    size_t i = 0;
    const float* rows[4];
    for (; i + 4 <= n; i += 4) {
      for (size_t j = 0; j < 4; ++j) rows[j] = Vector(batch_ids[i + j]);
      DotKernel4(q, rows, dims, &batch_dist[i]);
    }
    for (; i < n; ++i) batch_dist[i] = DotKernel(q, Vector(batch_ids[i]), dims);
    for (size_t j = 0; j < n; ++j) batch_dist[j] = 1.f - batch_dist[j];
  }

  void BeginQuery(size_t ef) {
    const Graph& g = *graph;
    // Every expanded node adds at most maxM0 entries, and the walk rarely
    // expands more than ef before it stops: enough that the heaps don't grow
    // mid-query in practice (the [alloc] test holds this to zero).
    const size_t frontier_room = (ef + 1) * (g.maxM0_ + 1);
    if (frontier.capacity() < frontier_room) frontier.reserve(frontier_room);
    if (found.capacity() < ef + 1) found.reserve(ef + 1);
    if (visited.size() < g.cur_element_count) visited.resize(g.max_elements_, 0);
    if (++epoch == 0) {  // tags wrapped: forget every old mark
      std::fill(visited.begin(), visited.end(), 0);
      epoch = 1;
    }
    if (batch_ids.size() < g.maxM0_ + 1) {
      batch_ids.resize(g.maxM0_ + 1);
      batch_dist.resize(g.maxM0_ + 1);
    }
  }

  // Greedy descent through the upper layers (hnswlib's searchKnn prologue).
  hnswlib::tableint Descend(const float* q) {
    const Graph& g = *graph;
    hnswlib::tableint current = g.enterpoint_node_;
    float best = Distance(q, current);
    for (int level = g.maxlevel_; level > 0; --level) {
      for (bool moved = true; moved;) {
        moved = false;
        const hnswlib::linklistsizeint* list = g.get_linklist(current, level);
        size_t n = *reinterpret_cast<const unsigned short*>(list);  // hnswlib keeps the count in the low half
        const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
        for (size_t j = 0; j < n; ++j) batch_ids[j] = ids[j];
        DistanceBatch(q, n);
        for (size_t j = 0; j < n; ++j) {
          if (batch_dist[j] < best) best = batch_dist[j], current = batch_ids[j], moved = true;
        }
      }
    }
    return current;
  }

  // Best-first search of layer 0 from `entry` keeping the ef nearest in
  // `found` (hnswlib's searchBaseLayerST, deleted nodes walked through but
  // never kept).
  void SearchLayer0(const float* q, hnswlib::tableint entry, size_t ef) {
    const Graph& g = *graph;
    const bool deletions = g.num_deleted_ != 0;
    auto nearer = [](const Entry& a, const Entry& b) { return a.first > b.first; };  // min-heap order
    auto farther = [](const Entry& a, const Entry& b) { return a.first < b.first; };  // max-heap order
    frontier.clear();
    found.clear();
    float bound = std::numeric_limits<float>::max();
    float d = Distance(q, entry);
    if (!deletions || !g.isMarkedDeleted(entry)) {
      bound = d;
      found.push_back({d, entry});
    }
    frontier.push_back({deletions && g.isMarkedDeleted(entry) ? bound : d, entry});
    visited[entry] = epoch;
    while (!frontier.empty()) {
      Entry next = frontier.front();
      if (next.first > bound && (found.size() == ef || !deletions)) break;
      std::pop_heap(frontier.begin(), frontier.end(), nearer);
      frontier.pop_back();
      const hnswlib::linklistsizeint* list = g.get_linklist0(next.second);
      size_t n = *reinterpret_cast<const unsigned short*>(list);  // hnswlib keeps the count in the low half
      const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
      size_t fresh = 0;
      for (size_t j = 0; j < n; ++j) {
        hnswlib::tableint id = ids[j];
        if (visited[id] == epoch) continue;
        visited[id] = epoch;
        __builtin_prefetch(Vector(id));  // natively only: WASM has no prefetch
        batch_ids[fresh++] = id;
      }
      DistanceBatch(q, fresh);
      for (size_t j = 0; j < fresh; ++j) {
        float dist = batch_dist[j];
        if (found.size() >= ef && dist >= bound) continue;
        hnswlib::tableint id = batch_ids[j];
        frontier.push_back({dist, id});
        std::push_heap(frontier.begin(), frontier.end(), nearer);
        if (!deletions || !g.isMarkedDeleted(id)) {
          found.push_back({dist, id});
          std::push_heap(found.begin(), found.end(), farther);
        }
        if (found.size() > ef) {
          std::pop_heap(found.begin(), found.end(), farther);
          found.pop_back();
        }
        if (!found.empty()) bound = found.front().first;
      }
    }
  }
};

std::string HnswParamsProblem(const HnswParams& p) {
  if (p.M < kMinHnswM || p.M > kMaxHnswM) return "HNSW M must be in [2, 256] (it is " + std::to_string(p.M) + ")";
  const auto in_range = [](uint32_t ef) { return ef >= 1 && ef <= kMaxHnswEf; };
  if (!in_range(p.ef_construction)) return "HNSW efConstruction must be in [1, 65536] (it is " + std::to_string(p.ef_construction) + ")";
  if (!in_range(p.ef_search)) return "HNSW efSearch must be in [1, 65536] (it is " + std::to_string(p.ef_search) + ")";
  return {};
}

void HnswIndex::set_ef_search(uint32_t ef) {
  HnswParams p = params_;
  p.ef_search = ef;
  if (std::string problem = HnswParamsProblem(p); !problem.empty()) throw Error(ErrorCode::kInvalidArgument, problem);
  params_ = p;
}

HnswIndex::HnswIndex(size_t dims, HnswParams params, size_t initial_capacity)
    : dims_(dims), params_(params), impl_(std::make_unique<Impl>(dims)) {
  if (dims == 0) throw Error(ErrorCode::kInvalidArgument, "HNSW index needs at least one dimension");
  if (std::string problem = HnswParamsProblem(params); !problem.empty()) throw Error(ErrorCode::kInvalidArgument, problem);
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
  Impl& impl = *impl_;
  const size_t ef = std::max<size_t>(params_.ef_search, k);
  impl.BeginQuery(ef);
  impl.SearchLayer0(query, impl.Descend(query), ef);
  auto& found = impl.found;
  std::sort(found.begin(), found.end());  // nearest first; ties by internal id
  for (size_t i = 0; i < found.size() && out.size() < k; ++i) {
    float score = 1.f - found[i].first;
    if (score < threshold) break;
    out.push_back(Hit{static_cast<uint32_t>(g.getExternalLabel(found[i].second)), score});
  }
}

// hnswlib 0.6.2 saves only to files; this writes the same state to bytes
// through its public members, and Load validates every link before use.
// Each node is its level-0 links, its vector (unless the caller keeps the
// vectors: then only a deleted node's) and its label as a u64: hnswlib's own
// memory image natively, but labels are size_t, 4 bytes in wasm32, so the
// label is written out rather than copied with the image.
void HnswIndex::Save(ByteWriter& w, bool with_vectors) const {
  const Graph& g = *impl_->graph;
  w.u32(static_cast<uint32_t>(dims_));
  w.u32(params_.M);
  w.u32(params_.ef_construction);
  w.u32(params_.ef_search);
  w.u32(params_.seed);
  w.u64(g.cur_element_count);
  w.u32(static_cast<uint32_t>(g.maxlevel_));
  w.u32(g.enterpoint_node_);
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    const char* node = g.data_level0_memory_ + i * g.size_data_per_element_;
    const bool inline_vector = with_vectors || g.isMarkedDeleted(static_cast<hnswlib::tableint>(i));
    w.raw(node, g.size_links_level0_ + (inline_vector ? g.data_size_ : 0));
    w.u64(g.getExternalLabel(static_cast<hnswlib::tableint>(i)));
  }
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    w.u32(static_cast<uint32_t>(g.element_levels_[i]));
    if (g.element_levels_[i] > 0) w.raw(g.linkLists_[i], g.size_links_per_element_ * g.element_levels_[i]);
  }
}

HnswIndex HnswIndex::Load(ByteReader& r, size_t label_bytes, const VectorSource* vectors) {
  size_t dims = r.u32();
  if (dims == 0 || dims > 65536) r.fail("implausible HNSW dimensions");
  HnswParams p;
  p.M = r.u32();
  p.ef_construction = r.u32();
  p.ef_search = r.u32();
  p.seed = r.u32();
  if (std::string problem = HnswParamsProblem(p); !problem.empty()) r.fail("bad HNSW parameters: " + problem);
  if (label_bytes != 4 && label_bytes != 8) throw Error(ErrorCode::kInvalidArgument, "HNSW labels are 4 or 8 bytes");
  // Each node is stored as its level-0 links, its vector (unless the vectors
  // come from elsewhere) and its label: the count is bounded by the bytes
  // present, and the graph's own image (whose per-node size differs: size_t
  // labels) must fit a size_t, which on wasm32 a crafted count would
  // otherwise wrap into a tiny allocation.
  const uint64_t links0 = uint64_t{2} * p.M * sizeof(hnswlib::tableint) + sizeof(hnswlib::linklistsizeint);
  const uint64_t stored = links0 + (vectors ? 0 : uint64_t{dims} * sizeof(float)) + label_bytes;
  uint64_t count = r.count(stored);
  const uint64_t image = links0 + uint64_t{dims} * sizeof(float) + sizeof(hnswlib::labeltype);
  if (count > std::numeric_limits<size_t>::max() / image / 2) r.fail("HNSW graph too large for this build");
  HnswIndex index(dims, p, count);
  Graph& g = *index.impl_->graph;
  uint32_t maxlevel = r.u32();
  uint32_t entry = r.u32();
  if (count > 0 && (entry >= count || maxlevel > 64)) r.fail("bad HNSW entry point");
  for (size_t i = 0; i < count; ++i) {
    char* node = g.data_level0_memory_ + i * g.size_data_per_element_;
    std::memcpy(node, r.take(g.size_links_level0_), g.size_links_level0_);
    const bool inline_vector = !vectors || g.isMarkedDeleted(static_cast<hnswlib::tableint>(i));
    if (inline_vector) std::memcpy(node + g.size_links_level0_, r.take(g.data_size_), g.data_size_);
    uint64_t label = label_bytes == 8 ? r.u64() : r.u32();
    if (label > std::numeric_limits<uint32_t>::max()) r.fail("HNSW label out of range");
    if (!inline_vector && !(*vectors)(label, reinterpret_cast<float*>(node + g.size_links_level0_))) {
      r.fail("HNSW node names a label with no vector");
    }
    g.setExternalLabel(static_cast<hnswlib::tableint>(i), static_cast<hnswlib::labeltype>(label));
  }
  // A node's links at one level: at most that level's fan-out (2M at level 0,
  // M above), each to a node of the graph; above level 0, to a node that has
  // that level (checked once every node's level is known).
  auto check_links = [&](const char* list, size_t most) {
    hnswlib::linklistsizeint n;
    std::memcpy(&n, list, sizeof(n));
    unsigned short links = n & 0xFFFF;
    if (links > most) r.fail("HNSW node has too many links");
    const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + sizeof(n));
    for (unsigned short j = 0; j < links; ++j) if (ids[j] >= count) r.fail("HNSW link points outside the graph");
  };
  g.cur_element_count = 0;  // raised as nodes are validated, so the destructor frees only what exists
  for (size_t i = 0; i < count; ++i) {
    uint32_t level = r.u32();
    if (level > maxlevel) r.fail("HNSW node level exceeds the graph's");
    check_links(g.data_level0_memory_ + i * g.size_data_per_element_, g.maxM0_);
    g.element_levels_[i] = static_cast<int>(level);
    g.linkLists_[i] = nullptr;
    if (level > 0) {
      size_t bytes = g.size_links_per_element_ * level;
      const uint8_t* src = r.take(bytes);
      g.linkLists_[i] = static_cast<char*>(std::malloc(bytes));
      if (!g.linkLists_[i]) throw Error(ErrorCode::kInternal, "out of memory loading HNSW graph");
      std::memcpy(g.linkLists_[i], src, bytes);
      g.cur_element_count = i + 1;  // from here the destructor frees this node's links
      for (uint32_t l = 1; l <= level; ++l) check_links(g.linkLists_[i] + (l - 1) * g.size_links_per_element_, g.maxM_);
    }
    g.cur_element_count = i + 1;  // level-0 nodes own no separate allocation
    hnswlib::labeltype label = g.getExternalLabel(static_cast<hnswlib::tableint>(i));
    if (!g.label_lookup_.emplace(label, static_cast<hnswlib::tableint>(i)).second) r.fail("duplicate HNSW label");
    if (g.isMarkedDeleted(static_cast<hnswlib::tableint>(i))) ++g.num_deleted_;
  }
  for (size_t i = 0; i < count; ++i) {
    for (int l = 1; l <= g.element_levels_[i]; ++l) {
      const char* list = g.linkLists_[i] + (l - 1) * g.size_links_per_element_;
      hnswlib::linklistsizeint n;
      std::memcpy(&n, list, sizeof(n));
      const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + sizeof(n));
      for (unsigned short j = 0; j < (n & 0xFFFF); ++j) {
        if (g.element_levels_[ids[j]] < l) r.fail("HNSW link points to a node without that level");
      }
    }
  }
  g.maxlevel_ = count ? static_cast<int>(maxlevel) : -1;
  g.enterpoint_node_ = count ? entry : static_cast<hnswlib::tableint>(-1);
  if (count && g.element_levels_[entry] != static_cast<int>(maxlevel)) r.fail("HNSW entry point is not on the top level");
  return index;
}

}  // namespace vesper
