// The only translation unit that includes hnswlib: its headers define
// non-inline functions natively, so a second includer breaks the link.
#include "core/index/hnsw_index.h"

// hnswlib's x86 code path prefetches the next neighbour by reading one link
// past the end of each list (nmslib/hnswlib#107, #578): a heap over-read in an
// upper level's list, which AddressSanitizer reports on a full list (a crafted
// pack found it). Turning its manual vectorisation off removes that read; the
// distance is our own SIMD kernel on every platform, so nothing else changes.
#define NO_MANUAL_VECTORIZATION
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <unordered_set>

#include "core/index/dot.h"
#include "core/index/dot_kernel.h"
#include "core/index/quantize.h"

namespace vesper {
namespace {

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
using OwnSpace = SimdInnerProductSpace;

// The links in a list, at any level (hnswlib keeps the count in the low half
// of its first word; at level 0 the byte above marks a deleted node).
size_t LinkCount(const void* list) {
  hnswlib::linklistsizeint head;
  std::memcpy(&head, list, sizeof(head));
  return head & 0xFFFF;
}

uint32_t LabelAt(const void* data) {
  uint32_t label;
  std::memcpy(&label, data, sizeof(label));
  return label;
}

// By reference a node's data is its label, and a distance reads both rows
// from the store's view. The format is looked at per call: a store turns
// int8 as it grows, under a graph built on its floats.
float ReferenceDistance(const void* a, const void* b, const void* param) {
  const auto& rows = *static_cast<const VectorRows*>(param);
  const size_t la = LabelAt(a), lb = LabelAt(b), d = rows.dims;
  if (rows.format == VectorFormat::kInt8) {
    return 1.f - static_cast<float>(DotInt8Int8(rows.codes + la * d, rows.codes + lb * d, d)) * rows.scales[la] *
                     rows.scales[lb];
  }
  return 1.f - DotKernel(rows.floats + la * d, rows.floats + lb * d, d);
}

class ReferenceSpace : public hnswlib::SpaceInterface<float> {
 public:
  size_t get_data_size() override { return sizeof(uint32_t); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return ReferenceDistance; }
  void* get_dist_func_param() override { return &rows; }
  VectorRows rows;  // the store's view, set before every insertion
};

using Graph = hnswlib::HierarchicalNSW<float>;

// Results over int8 rows are scored again with the float query; a few
// spare candidates let that reorder the last places.
constexpr size_t kInt8RescoreSpare = 8;

}  // namespace

// hnswlib's graph, searched by our own loop rather than searchKnn: the same
// best-first walk (so the same results), but with scratch kept between
// queries instead of two priority queues and a pooled visited list per call,
// and each neighbour list's distances computed four rows at a time.
struct HnswIndex::Impl {
  Impl(size_t dims, bool by_reference) : dims(dims) {
    if (by_reference) {
      auto space_by_reference = std::make_unique<ReferenceSpace>();
      reference = space_by_reference.get();
      space = std::move(space_by_reference);
    } else {
      space = std::make_unique<OwnSpace>(dims);
    }
  }
  std::unique_ptr<hnswlib::SpaceInterface<float>> space;
  ReferenceSpace* reference = nullptr;  // the space, for a graph by reference
  size_t dims;
  std::unique_ptr<Graph> graph;
  uint64_t rows_needed = 0;  // by reference: 1 + the largest label, rows a search needs

  // The search in progress: its rows (by reference) and query.
  VectorRows rows;
  const float* query = nullptr;
  bool int8 = false;
  std::vector<int16_t> query16;  // int8 rows: the query in int16
  float query16_scale = 0.f;

  using Entry = std::pair<float, hnswlib::tableint>;  // (distance, internal id)
  std::vector<uint16_t> visited;  // visited[id] == epoch: seen in this query
  uint16_t epoch = 0;
  std::vector<Entry> frontier;  // min-heap on distance: nodes to expand
  std::vector<Entry> found;     // max-heap on distance: the ef best so far
  std::vector<hnswlib::tableint> batch_ids;
  std::vector<float> batch_dist;

  size_t Row(hnswlib::tableint id) const { return LabelAt(graph->getDataByInternalId(id)); }
  const float* FloatRow(hnswlib::tableint id) const {
    if (reference) return rows.floats + Row(id) * dims;
    return reinterpret_cast<const float*>(graph->getDataByInternalId(id));
  }
  const void* RowAddress(hnswlib::tableint id) const {
    return int8 ? static_cast<const void*>(rows.codes + Row(id) * dims) : FloatRow(id);
  }
  float Distance(hnswlib::tableint id) const {
    if (!int8) return 1.f - DotKernel(query, FloatRow(id), dims);
    const size_t row = Row(id);
    return 1.f - static_cast<float>(DotInt8Int16(query16.data(), rows.codes + row * dims, dims)) * query16_scale *
                     rows.scales[row];
  }

  // Distances from the query to batch_ids[0..n) into batch_dist.
  void DistanceBatch(size_t n) {
    if (int8) {
      for (size_t j = 0; j < n; ++j) batch_dist[j] = Distance(batch_ids[j]);
      return;
    }
    size_t i = 0;
    const float* rows4[4];
    for (; i + 4 <= n; i += 4) {
      for (size_t j = 0; j < 4; ++j) rows4[j] = FloatRow(batch_ids[i + j]);
      DotKernel4(query, rows4, dims, &batch_dist[i]);
    }
    for (; i < n; ++i) batch_dist[i] = DotKernel(query, FloatRow(batch_ids[i]), dims);
    for (size_t j = 0; j < n; ++j) batch_dist[j] = 1.f - batch_dist[j];
  }

  void BeginQuery(const float* q, size_t ef) {
    const Graph& g = *graph;
    query = q;
    int8 = reference && rows.format == VectorFormat::kInt8;
    if (int8) {
      if (query16.size() < dims) query16.resize(dims);
      query16_scale = QuantizeQueryInt16(q, dims, query16.data());
    }
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
  hnswlib::tableint Descend() {
    const Graph& g = *graph;
    hnswlib::tableint current = g.enterpoint_node_;
    float best = Distance(current);
    for (int level = g.maxlevel_; level > 0; --level) {
      for (bool moved = true; moved;) {
        moved = false;
        const hnswlib::linklistsizeint* list = g.get_linklist(current, level);
        const size_t n = LinkCount(list);
        const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
        for (size_t j = 0; j < n; ++j) batch_ids[j] = ids[j];
        DistanceBatch(n);
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
  void SearchLayer0(hnswlib::tableint entry, size_t ef) {
    const Graph& g = *graph;
    const bool deletions = g.num_deleted_ != 0;
    auto nearer = [](const Entry& a, const Entry& b) { return a.first > b.first; };  // min-heap order
    auto farther = [](const Entry& a, const Entry& b) { return a.first < b.first; };  // max-heap order
    frontier.clear();
    found.clear();
    float bound = std::numeric_limits<float>::max();
    float d = Distance(entry);
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
      const size_t n = LinkCount(list);
      const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + 1);
      size_t fresh = 0;
      for (size_t j = 0; j < n; ++j) {
        hnswlib::tableint id = ids[j];
        if (visited[id] == epoch) continue;
        visited[id] = epoch;
        __builtin_prefetch(RowAddress(id));  // natively only: WASM has no prefetch
        batch_ids[fresh++] = id;
      }
      DistanceBatch(fresh);
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

  // The walk's nearest (sorted) as hits: over int8 rows the first k + spare
  // are scored again with the float query and sorted by that.
  void TakeResults(size_t k, float threshold, std::vector<Hit>& out) const {
    const Graph& g = *graph;
    const size_t take = int8 ? std::min(found.size(), k + kInt8RescoreSpare) : found.size();
    for (size_t i = 0; i < take && (int8 || out.size() < k); ++i) {
      const hnswlib::tableint id = found[i].second;
      float score = 1.f - found[i].first;
      if (int8) {
        const size_t row = Row(id);
        score = DotInt8(query, rows.codes + row * dims, dims, rows.scales[row]);
      } else if (score < threshold) {
        break;
      }
      if (score >= threshold) out.push_back(Hit{static_cast<uint32_t>(g.getExternalLabel(id)), score});
    }
    if (!int8) return;
    std::sort(out.begin(), out.end(), [](const Hit& a, const Hit& b) {
      return a.score != b.score ? a.score > b.score : a.label < b.label;
    });
    if (out.size() > k) out.resize(k);
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
    : HnswIndex(dims, params, initial_capacity, false) {}

HnswIndex HnswIndex::ByReference(size_t dims, HnswParams params, size_t initial_capacity) {
  return HnswIndex(dims, params, initial_capacity, true);
}

HnswIndex::HnswIndex(size_t dims, HnswParams params, size_t initial_capacity, bool by_reference)
    : dims_(dims), params_(params), impl_(std::make_unique<Impl>(dims, by_reference)) {
  if (dims == 0) throw Error(ErrorCode::kInvalidArgument, "HNSW index needs at least one dimension");
  if (std::string problem = HnswParamsProblem(params); !problem.empty()) throw Error(ErrorCode::kInvalidArgument, problem);
  impl_->graph = std::make_unique<Graph>(impl_->space.get(), std::max<size_t>(initial_capacity, 16), params.M,
                                         params.ef_construction, params.seed);
}

HnswIndex::~HnswIndex() = default;
HnswIndex::HnswIndex(HnswIndex&&) noexcept = default;
HnswIndex& HnswIndex::operator=(HnswIndex&&) noexcept = default;

bool HnswIndex::by_reference() const { return impl_->reference != nullptr; }
size_t HnswIndex::size() const { return impl_->graph->cur_element_count - impl_->graph->num_deleted_; }
size_t HnswIndex::capacity() const { return impl_->graph->max_elements_; }

namespace {

// Rows a graph by reference can read: its dimensions, the pointers its
// format uses, and (for a search) every label the graph holds.
void CheckRows(const VectorRows& rows, size_t dims, uint64_t needed) {
  const bool pointers = rows.format == VectorFormat::kInt8 ? rows.codes && rows.scales : rows.floats != nullptr;
  if (rows.dims != dims || rows.count < needed || (rows.count && !pointers)) {
    throw Error(ErrorCode::kInvalidArgument, "HNSW rows do not cover the graph's vectors");
  }
}

// Adds `data` (the node's vector, or its label by reference) under label,
// growing the graph geometrically where hnswlib would throw.
void Insert(Graph& g, uint32_t label, const void* data) {
  if (g.label_lookup_.count(label)) {
    throw Error(ErrorCode::kInvalidArgument, "HNSW label " + std::to_string(label) + " is already in use");
  }
  if (g.cur_element_count >= g.max_elements_) g.resizeIndex(g.max_elements_ * 2);
  g.addPoint(data, label);
}

}  // namespace

void HnswIndex::Add(uint32_t label, const float* v) {
  if (by_reference()) throw Error(ErrorCode::kInvalidArgument, "this HNSW graph reads its vectors by reference");
  Insert(*impl_->graph, label, v);
}

void HnswIndex::Add(uint32_t label, const VectorRows& rows) {
  if (!by_reference()) throw Error(ErrorCode::kInvalidArgument, "this HNSW graph holds its own vectors");
  CheckRows(rows, dims_, uint64_t{label} + 1);
  impl_->reference->rows = rows;
  Insert(*impl_->graph, label, &label);
  impl_->rows_needed = std::max<uint64_t>(impl_->rows_needed, uint64_t{label} + 1);
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
  if (by_reference()) throw Error(ErrorCode::kInvalidArgument, "this HNSW graph needs the rows it reads");
  impl_->rows = VectorRows{};
  Walk(query, k, threshold, out);
}

void HnswIndex::Search(const float* query, const VectorRows& rows, size_t k, float threshold,
                       std::vector<Hit>& out) const {
  if (!by_reference()) throw Error(ErrorCode::kInvalidArgument, "this HNSW graph holds its own vectors");
  CheckRows(rows, dims_, impl_->rows_needed);
  impl_->rows = rows;
  Walk(query, k, threshold, out);
}

void HnswIndex::Walk(const float* query, size_t k, float threshold, std::vector<Hit>& out) const {
  out.clear();
  Graph& g = *impl_->graph;
  if (k == 0 || g.cur_element_count == g.num_deleted_) return;
  Impl& impl = *impl_;
  const size_t ef = std::max<size_t>(params_.ef_search, k);
  impl.BeginQuery(query, ef);
  impl.SearchLayer0(impl.Descend(), ef);
  std::sort(impl.found.begin(), impl.found.end());  // nearest first; ties by internal id
  impl.TakeResults(k, threshold, out);
}

// hnswlib 0.6.2 saves only to files; this writes the same state to bytes
// through its public members, and Load validates every link before use.
// Each node is its level-0 links, its vector (see the header) and its label
// as a u64: hnswlib's own memory image natively for a graph with its own
// vectors, but labels are size_t, 4 bytes in wasm32, so the label is written
// out rather than copied with the image.
void HnswIndex::Save(ByteWriter& w, bool with_vectors, const VectorRows* rows, bool compact_links) const {
  const Graph& g = *impl_->graph;
  const bool by_ref = by_reference();
  if (by_ref && (with_vectors || g.num_deleted_) && !rows) {
    throw Error(ErrorCode::kInvalidArgument, "saving this HNSW graph's vectors needs the rows it reads");
  }
  if (by_ref && rows) CheckRows(*rows, dims_, impl_->rows_needed);
  w.u32(static_cast<uint32_t>(dims_));
  w.u32(params_.M);
  w.u32(params_.ef_construction);
  w.u32(params_.ef_search);
  w.u32(params_.seed);
  w.u64(g.cur_element_count);
  w.u32(static_cast<uint32_t>(g.maxlevel_));
  w.u32(g.enterpoint_node_);
  std::vector<float> vector(by_ref ? dims_ : 0);
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    const auto id = static_cast<hnswlib::tableint>(i);
    const char* node = g.data_level0_memory_ + i * g.size_data_per_element_;
    w.raw(node, compact_links ? sizeof(hnswlib::linklistsizeint) + LinkCount(node) * sizeof(hnswlib::tableint)
                              : g.size_links_level0_);
    if (with_vectors || g.isMarkedDeleted(id)) {
      if (!by_ref) {
        w.raw(node + g.size_links_level0_, g.data_size_);
      } else {
        DecodeRow(*rows, LabelAt(node + g.size_links_level0_), vector.data());
        w.raw(vector.data(), dims_ * sizeof(float));
      }
    }
    w.u64(g.getExternalLabel(id));
  }
  for (size_t i = 0; i < g.cur_element_count; ++i) {
    w.u32(static_cast<uint32_t>(g.element_levels_[i]));
    if (g.element_levels_[i] > 0) w.raw(g.linkLists_[i], g.size_links_per_element_ * g.element_levels_[i]);
  }
}

namespace {

// A node's level-0 list into its place in the graph: all 2M slots as saved,
// or (compact) the count word and that many links, the unused slots zeroed
// so that what is saved again is the same bytes.
void ReadLevel0Links(ByteReader& r, Graph& g, char* node, bool compact) {
  if (!compact) {
    std::memcpy(node, r.take(g.size_links_level0_), g.size_links_level0_);
    return;
  }
  std::memcpy(node, r.take(sizeof(hnswlib::linklistsizeint)), sizeof(hnswlib::linklistsizeint));
  const size_t links = LinkCount(node);
  if (links > g.maxM0_) r.fail("HNSW node has too many links");
  const size_t bytes = links * sizeof(hnswlib::tableint);
  char* ids = node + sizeof(hnswlib::linklistsizeint);
  std::memcpy(ids, r.take(bytes), bytes);
  std::memset(ids + bytes, 0, g.size_links_level0_ - sizeof(hnswlib::linklistsizeint) - bytes);
}

// The parameters a saved graph starts with, checked as everywhere else.
HnswParams ReadParams(ByteReader& r, size_t& dims) {
  dims = r.u32();
  if (dims == 0 || dims > 65536) r.fail("implausible HNSW dimensions");
  HnswParams p;
  p.M = r.u32();
  p.ef_construction = r.u32();
  p.ef_search = r.u32();
  p.seed = r.u32();
  if (std::string problem = HnswParamsProblem(p); !problem.empty()) r.fail("bad HNSW parameters: " + problem);
  return p;
}

// A node's links at one level: at most that level's fan-out (2M at level 0,
// M above), each to a node of the graph.
void CheckLinks(ByteReader& r, const char* list, size_t most, size_t count) {
  const size_t links = LinkCount(list);
  if (links > most) r.fail("HNSW node has too many links");
  const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + sizeof(hnswlib::linklistsizeint));
  for (size_t j = 0; j < links; ++j) if (ids[j] >= count) r.fail("HNSW link points outside the graph");
}

// Each node's upper levels, after its level-0 record: the level, and that
// many link lists, each checked; then every upper link must point to a node
// that has that level (known once every node's level is).
void ReadUpperLevels(ByteReader& r, Graph& g, size_t count, uint32_t maxlevel) {
  g.cur_element_count = 0;  // raised as nodes are validated, so the destructor frees only what exists
  g.label_lookup_.reserve(count);  // one table, not a rehash each time it doubles
  for (size_t i = 0; i < count; ++i) {
    uint32_t level = r.u32();
    if (level > maxlevel) r.fail("HNSW node level exceeds the graph's");
    CheckLinks(r, g.data_level0_memory_ + i * g.size_data_per_element_, g.maxM0_, count);
    g.element_levels_[i] = static_cast<int>(level);
    g.linkLists_[i] = nullptr;
    if (level > 0) {
      size_t bytes = g.size_links_per_element_ * level;
      const uint8_t* src = r.take(bytes);
      g.linkLists_[i] = static_cast<char*>(std::malloc(bytes));
      if (!g.linkLists_[i]) throw Error(ErrorCode::kInternal, "out of memory loading HNSW graph");
      std::memcpy(g.linkLists_[i], src, bytes);
      g.cur_element_count = i + 1;  // from here the destructor frees this node's links
      for (uint32_t l = 1; l <= level; ++l) CheckLinks(r, g.linkLists_[i] + (l - 1) * g.size_links_per_element_, g.maxM_, count);
    }
    g.cur_element_count = i + 1;  // level-0 nodes own no separate allocation
    hnswlib::labeltype label = g.getExternalLabel(static_cast<hnswlib::tableint>(i));
    if (!g.label_lookup_.emplace(label, static_cast<hnswlib::tableint>(i)).second) r.fail("duplicate HNSW label");
    if (g.isMarkedDeleted(static_cast<hnswlib::tableint>(i))) ++g.num_deleted_;
  }
  for (size_t i = 0; i < count; ++i) {
    for (int l = 1; l <= g.element_levels_[i]; ++l) {
      const char* list = g.linkLists_[i] + (l - 1) * g.size_links_per_element_;
      const auto* ids = reinterpret_cast<const hnswlib::tableint*>(list + sizeof(hnswlib::linklistsizeint));
      for (size_t j = 0, n = LinkCount(list); j < n; ++j) {
        if (g.element_levels_[ids[j]] < l) r.fail("HNSW link points to a node without that level");
      }
    }
  }
}

}  // namespace

HnswIndex HnswIndex::Load(ByteReader& r, size_t label_bytes, bool compact_links) {
  return LoadGraph(r, label_bytes, nullptr, true, compact_links);
}

HnswIndex HnswIndex::LoadByReference(ByteReader& r, const VectorRows& rows, size_t label_bytes, bool vectors_inline,
                                     bool compact_links) {
  return LoadGraph(r, label_bytes, &rows, vectors_inline, compact_links);
}

// rows null: a graph with its own vectors, every node's inline.
HnswIndex HnswIndex::LoadGraph(ByteReader& r, size_t label_bytes, const VectorRows* rows, bool vectors_inline,
                               bool compact_links) {
  size_t dims = 0;
  HnswParams p = ReadParams(r, dims);
  if (label_bytes != 4 && label_bytes != 8) throw Error(ErrorCode::kInvalidArgument, "HNSW labels are 4 or 8 bytes");
  if (rows && rows->dims != dims) r.fail("HNSW dims do not match its vectors'");
  // Each node is stored as its level-0 links, maybe its vector and its
  // label: the count is bounded by the bytes present, and the graph's own
  // image (whose per-node size differs: size_t labels) must fit a size_t,
  // which on wasm32 a crafted count would otherwise wrap into a tiny allocation.
  const uint64_t links0 = uint64_t{2} * p.M * sizeof(hnswlib::tableint) + sizeof(hnswlib::linklistsizeint);
  const uint64_t vector_bytes = uint64_t{dims} * sizeof(float);
  const uint64_t least_links = compact_links ? sizeof(hnswlib::linklistsizeint) : links0;
  uint64_t count = r.count(least_links + (vectors_inline ? vector_bytes : 0) + label_bytes);
  const uint64_t image = links0 + (rows ? sizeof(uint32_t) : vector_bytes) + sizeof(hnswlib::labeltype);
  if (count > std::numeric_limits<size_t>::max() / image / 2) r.fail("HNSW graph too large for this build");
  HnswIndex index(dims, p, count, rows != nullptr);
  Graph& g = *index.impl_->graph;
  uint32_t maxlevel = r.u32();
  uint32_t entry = r.u32();
  if (count > 0 && (entry >= count || maxlevel > 64)) r.fail("bad HNSW entry point");
  for (size_t i = 0; i < count; ++i) {
    char* node = g.data_level0_memory_ + i * g.size_data_per_element_;
    ReadLevel0Links(r, g, node, compact_links);
    const bool inline_vector = vectors_inline || g.isMarkedDeleted(static_cast<hnswlib::tableint>(i));
    if (inline_vector && !rows) std::memcpy(node + g.size_links_level0_, r.take(g.data_size_), g.data_size_);
    if (inline_vector && rows) r.take(vector_bytes);  // the rows hold it
    uint64_t label = label_bytes == 8 ? r.u64() : r.u32();
    if (label > std::numeric_limits<uint32_t>::max()) r.fail("HNSW label out of range");
    if (rows) {
      if (label >= rows->count) r.fail("HNSW node names a label with no vector");
      const auto row = static_cast<uint32_t>(label);
      std::memcpy(node + g.size_links_level0_, &row, sizeof(row));
      index.impl_->rows_needed = std::max(index.impl_->rows_needed, label + 1);
    }
    g.setExternalLabel(static_cast<hnswlib::tableint>(i), static_cast<hnswlib::labeltype>(label));
  }
  ReadUpperLevels(r, g, count, maxlevel);
  g.maxlevel_ = count ? static_cast<int>(maxlevel) : -1;
  g.enterpoint_node_ = count ? entry : static_cast<hnswlib::tableint>(-1);
  if (count && g.element_levels_[entry] != static_cast<int>(maxlevel)) r.fail("HNSW entry point is not on the top level");
  return index;
}

}  // namespace vesper
