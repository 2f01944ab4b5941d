#include <catch2/catch.hpp>

#include <memory>

#include <cstring>
#include <set>

#include "core/index/dot.h"
#include "core/index/hnsw_index.h"
#include "core/index/vector_store.h"
#include "core/util/error.h"
#include "helpers.h"

using namespace vesper;

namespace {

double RecallAt10(const HnswIndex& hnsw, const VectorStore& exact, const std::vector<float>& queries, size_t dims) {
  size_t found = 0, total = 0;
  std::vector<Hit> a, b;
  for (size_t q = 0; q * dims < queries.size(); ++q) {
    exact.Search(queries.data() + q * dims, 10, -1.f, a);
    if (hnsw.by_reference()) hnsw.Search(queries.data() + q * dims, exact.Rows(), 10, -1.f, b);
    else hnsw.Search(queries.data() + q * dims, 10, -1.f, b);
    std::set<uint32_t> truth;
    for (auto& h : a) truth.insert(h.label);
    for (auto& h : b) found += truth.count(h.label);
    total += a.size();
  }
  return static_cast<double>(found) / total;
}

}  // namespace

TEST_CASE("SIMD dot product matches the scalar definition", "[index]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (size_t n : {1u, 3u, 4u, 15u, 16u, 17u, 63u, 256u, 385u, 768u}) {
    std::vector<float> a(n), b(n);
    for (size_t i = 0; i < n; ++i) a[i] = u(rng), b[i] = u(rng);
    double ref = 0;
    for (size_t i = 0; i < n; ++i) ref += static_cast<double>(a[i]) * b[i];
    CHECK(Dot(a.data(), b.data(), n) == Approx(ref).margin(1e-4));
  }
  std::vector<float> v = {3.f, 4.f};
  CHECK(Normalize(v.data(), 2) == Approx(5.f));
  CHECK(v[0] == Approx(0.6f));
}

TEST_CASE("a float32 store turned int8 equals one stored int8 from the start; filters mask the scan", "[index]") {
  const size_t dims = 32, n = 300;
  auto data = test::ClusteredVectors(n, dims, 10, 0.3f, 2);
  VectorStore grown(dims), direct(dims, VectorFormat::kInt8);
  for (size_t i = 0; i < n; ++i) grown.Add(data.data() + i * dims), direct.Add(data.data() + i * dims);
  grown.Remove(7), direct.Remove(7);
  grown.ToInt8();
  CHECK(grown.format() == VectorFormat::kInt8);
  CHECK_THROWS_AS(grown.ToInt8(), Error);
  std::vector<float> a(dims), b(dims);
  for (uint32_t i = 0; i < n; i += 37) {
    grown.Decode(i, a.data()), direct.Decode(i, b.data());
    CHECK(a == b);
  }
  std::vector<Hit> x, y;
  grown.Search(data.data(), 10, -1.f, x), direct.Search(data.data(), 10, -1.f, y);
  REQUIRE(x.size() == y.size());
  for (size_t i = 0; i < x.size(); ++i) CHECK((x[i].label == y[i].label && x[i].score == y[i].score));
  Bytes saved1, saved2;
  ByteWriter s1(saved1), s2(saved2);
  grown.Save(s1), direct.Save(s2);
  CHECK(saved1 == saved2);
  std::vector<uint8_t> allowed(n, 0);
  for (size_t i = 0; i < n; i += 3) allowed[i] = 1;
  grown.Search(data.data(), 20, -1.f, x, &allowed);
  REQUIRE(!x.empty());
  for (const Hit& h : x) CHECK(h.label % 3 == 0);
}

TEST_CASE("int8 rows read in place score, save and decode as copied ones; the first change copies them out", "[index]") {
  const size_t dims = 32, n = 200;
  auto data = test::ClusteredVectors(n, dims, 10, 0.3f, 3);
  VectorStore built(dims, VectorFormat::kInt8);
  for (size_t i = 0; i < n; ++i) built.Add(data.data() + i * dims);
  built.Remove(11);
  auto bytes = std::make_shared<Bytes>();
  ByteWriter w(*bytes);
  built.Save(w);
  ByteReader copied_reader(bytes->data(), bytes->size(), "store");
  VectorStore copied = VectorStore::Load(copied_reader);
  ByteReader r(bytes->data(), bytes->size(), "store");
  VectorStore in_place = VectorStore::Load(r, bytes);
  CHECK_FALSE(copied.reads_in_place());
  REQUIRE(in_place.reads_in_place());
  std::weak_ptr<Bytes> held = bytes;
  bytes.reset();
  CHECK_FALSE(held.expired());  // the store keeps the bytes it reads
  std::vector<Hit> x, y;
  copied.Search(data.data(), 10, -1.f, x), in_place.Search(data.data(), 10, -1.f, y);
  REQUIRE(x.size() == y.size());
  for (size_t i = 0; i < x.size(); ++i) CHECK((x[i].label == y[i].label && x[i].score == y[i].score));
  Bytes s1, s2;
  ByteWriter w1(s1), w2(s2);
  copied.Save(w1), in_place.Save(w2);
  CHECK(s1 == s2);
  copied.Add(data.data()), in_place.Add(data.data());
  CHECK_FALSE(in_place.reads_in_place());
  CHECK(held.expired());  // copied out, the bytes go
  std::vector<float> a(dims), b(dims);
  for (uint32_t i : {0u, 57u, 199u, 200u}) {
    copied.Decode(i, a.data()), in_place.Decode(i, b.data());
    CHECK(a == b);
  }
}

TEST_CASE("exact scan returns the true top-k above the threshold", "[index]") {
  const size_t dims = 32, n = 700;
  auto data = test::ClusteredVectors(n, dims, 10, 0.3f, 1);
  VectorStore store(dims);
  for (size_t i = 0; i < n; ++i) CHECK(store.Add(data.data() + i * dims) == i);
  const float* q = data.data() + 5 * dims;
  std::vector<Hit> hits;
  store.Search(q, 10, -1.f, hits);
  REQUIRE(hits.size() == 10);
  CHECK(hits[0].label == 5);
  CHECK(hits[0].score == Approx(1.f));
  std::vector<float> all(n);
  for (size_t i = 0; i < n; ++i) all[i] = Dot(q, data.data() + i * dims, dims);
  std::vector<float> sorted = all;
  std::sort(sorted.rbegin(), sorted.rend());
  for (size_t i = 0; i < 10; ++i) CHECK(hits[i].score == Approx(sorted[i]));
  store.Search(q, 1000, 0.9f, hits);
  CHECK(hits.size() == static_cast<size_t>(std::count_if(all.begin(), all.end(), [](float s) { return s >= 0.9f; })));
  store.Remove(5);
  store.Search(q, 10, -1.f, hits);
  for (auto& h : hits) CHECK(h.label != 5);
  CHECK_THROWS_AS(store.Remove(5), Error);
}

TEST_CASE("HNSW recall@10 >= 0.95 against the exact scan on clustered data", "[index]") {
  const size_t dims = 64, n = 6000, nq = 200;
  auto data = test::ClusteredVectors(n, dims, 40, 0.35f, 2);
  auto queries = test::ClusteredVectors(nq, dims, 40, 0.35f, 3);
  VectorStore exact(dims);
  HnswIndex hnsw(dims, {}, 100);  // starts small: must grow past capacity
  for (size_t i = 0; i < n; ++i) {
    exact.Add(data.data() + i * dims);
    hnsw.Add(static_cast<uint32_t>(i), data.data() + i * dims);
  }
  CHECK(hnsw.size() == n);
  CHECK(hnsw.capacity() >= n);
  double recall = RecallAt10(hnsw, exact, queries, dims);
  INFO("recall@10 = " << recall);
  CHECK(recall >= 0.95);
}

TEST_CASE("HNSW: deleted entries never come back, thresholds filter", "[index]") {
  const size_t dims = 16, n = 500;
  auto data = test::ClusteredVectors(n, dims, 5, 0.2f, 4);
  HnswIndex hnsw(dims);
  for (size_t i = 0; i < n; ++i) hnsw.Add(static_cast<uint32_t>(i), data.data() + i * dims);
  std::set<uint32_t> deleted;
  for (uint32_t i = 0; i < n; i += 3) {
    hnsw.Remove(i);
    deleted.insert(i);
  }
  CHECK(hnsw.size() == n - deleted.size());
  std::vector<Hit> hits;
  for (size_t q = 0; q < n; q += 7) {
    hnsw.Search(data.data() + q * dims, 20, -1.f, hits);
    CHECK(!hits.empty());
    for (auto& h : hits) CHECK(deleted.count(h.label) == 0);
    hnsw.Search(data.data() + q * dims, 20, 0.95f, hits);
    for (auto& h : hits) CHECK(h.score >= 0.95f);
  }
  CHECK_THROWS_AS(hnsw.Remove(0), Error);
  CHECK_THROWS_AS(hnsw.Add(1, data.data()), Error);  // label in use
}

TEST_CASE("HNSW saves to bytes and loads back identically", "[index]") {
  const size_t dims = 24, n = 800;
  auto data = test::ClusteredVectors(n, dims, 8, 0.3f, 5);
  HnswIndex hnsw(dims);
  for (size_t i = 0; i < n; ++i) hnsw.Add(static_cast<uint32_t>(i * 2), data.data() + i * dims);
  hnsw.Remove(10);
  Bytes saved;
  ByteWriter w(saved);
  hnsw.Save(w, true);
  ByteReader r(saved.data(), saved.size(), "test");
  HnswIndex loaded = HnswIndex::Load(r);
  CHECK(r.done());
  CHECK(loaded.size() == hnsw.size());
  Bytes again;
  ByteWriter w2(again);
  loaded.Save(w2, true);
  CHECK(again == saved);
  std::vector<Hit> a, b;
  for (size_t q = 0; q < n; q += 37) {
    hnsw.Search(data.data() + q * dims, 10, -1.f, a);
    loaded.Search(data.data() + q * dims, 10, -1.f, b);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].label == b[i].label);
      CHECK(a[i].score == b[i].score);
    }
  }
  // Loaded graphs keep growing.
  auto more = test::ClusteredVectors(3000, dims, 8, 0.3f, 6);
  for (size_t i = 0; i < 3000; ++i) loaded.Add(static_cast<uint32_t>(10000 + i), more.data() + i * dims);
  CHECK(loaded.size() == n - 1 + 3000);
}

TEST_CASE("an HNSW graph by reference keeps no vectors: saved it carries a deleted node's, loaded over the rows it searches as before", "[index]") {
  const size_t dims = 16, n = 300;
  auto data = test::ClusteredVectors(n, dims, 6, 0.3f, 9);
  VectorStore store(dims);
  HnswIndex hnsw = HnswIndex::ByReference(dims);
  CHECK(hnsw.by_reference());
  for (size_t i = 0; i < n; ++i) {
    store.Add(data.data() + i * dims);
    hnsw.Add(static_cast<uint32_t>(i), store.Rows());
  }
  CHECK_THROWS_AS(hnsw.Add(n + 5, store.Rows()), Error);  // no row for that label
  CHECK_THROWS_AS(hnsw.Add(static_cast<uint32_t>(n), data.data()), Error);  // holds no vectors
  std::vector<Hit> hits;
  CHECK_THROWS_AS(hnsw.Search(data.data(), 10, -1.f, hits), Error);  // needs its rows
  CHECK(RecallAt10(hnsw, store, data, dims) >= 0.95);
  hnsw.Remove(42);
  store.Remove(42);
  Bytes full, lean;
  ByteWriter wf(full), wl(lean);
  const VectorRows rows = store.Rows();
  hnsw.Save(wf, true, &rows);
  hnsw.Save(wl, false, &rows);
  CHECK_THROWS_AS(hnsw.Save(wl, false), Error);  // the deleted node's vector comes from the rows
  // The live nodes' vectors are left out; the deleted one's stays.
  CHECK(full.size() - lean.size() == (n - 1) * dims * sizeof(float));
  ByteReader r(lean.data(), lean.size(), "test");
  HnswIndex loaded = HnswIndex::LoadByReference(r, rows);
  CHECK(r.done());
  Bytes again;
  ByteWriter wa(again);
  loaded.Save(wa, true, &rows);
  CHECK(again == full);
  // The same bytes with every vector inline load by reference too (packs
  // before version 4), and as a graph with its own vectors.
  ByteReader r_full(full.data(), full.size(), "test");
  HnswIndex from_full = HnswIndex::LoadByReference(r_full, rows, 8, true);
  ByteReader r_own(full.data(), full.size(), "test");
  HnswIndex own = HnswIndex::Load(r_own);
  std::vector<Hit> a, b, c;
  for (size_t q = 0; q < n; q += 31) {
    hnsw.Search(data.data() + q * dims, rows, 10, -1.f, a);
    from_full.Search(data.data() + q * dims, rows, 10, -1.f, b);
    own.Search(data.data() + q * dims, 10, -1.f, c);
    REQUIRE(a.size() == 10);
    REQUIRE((a.size() == b.size() && a.size() == c.size()));
    for (size_t i = 0; i < a.size(); ++i) CHECK((a[i].label == b[i].label && a[i].label == c[i].label && a[i].label != 42));
  }
  // Rows that do not cover every label the graph holds: refused.
  VectorRows short_rows = rows;
  short_rows.count = n - 1;
  ByteReader r2(lean.data(), lean.size(), "test");
  CHECK_THROWS_AS(HnswIndex::LoadByReference(r2, short_rows), Error);
  CHECK_THROWS_AS(loaded.Search(data.data(), short_rows, 10, -1.f, hits), Error);
}

TEST_CASE("an HNSW graph over int8 rows finds the float neighbours and scores them as the int8 scan does", "[index]") {
  const size_t dims = 64, n = 2000;
  auto data = test::ClusteredVectors(n, dims, 20, 0.3f, 4);
  VectorStore floats(dims), codes(dims, VectorFormat::kInt8);
  HnswIndex built_int8 = HnswIndex::ByReference(dims), built_float = HnswIndex::ByReference(dims);
  for (size_t i = 0; i < n; ++i) {
    floats.Add(data.data() + i * dims);
    codes.Add(data.data() + i * dims);
    built_int8.Add(static_cast<uint32_t>(i), codes.Rows());
    built_float.Add(static_cast<uint32_t>(i), floats.Rows());
  }
  // A store turned int8 under a graph built on its floats: the graph reads the codes.
  floats.ToInt8();
  std::vector<Hit> truth, a, b, exact;
  size_t found_a = 0, found_b = 0, total = 0;
  for (size_t q = 0; q < n; q += 17) {
    const float* query = data.data() + q * dims;
    codes.Search(query, 10, -1.f, exact);
    built_int8.Search(query, codes.Rows(), 10, -1.f, a);
    built_float.Search(query, floats.Rows(), 10, -1.f, b);
    std::set<uint32_t> want;
    for (const Hit& h : exact) want.insert(h.label);
    for (const Hit& h : a) found_a += want.count(h.label);
    for (const Hit& h : b) found_b += want.count(h.label);
    total += exact.size();
    REQUIRE(!a.empty());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].score == codes.Score(query, a[i].label));
      if (i) CHECK(a[i - 1].score >= a[i].score);
    }
  }
  CHECK(static_cast<double>(found_a) / total >= 0.95);
  CHECK(static_cast<double>(found_b) / total >= 0.95);
}

TEST_CASE("HNSW load rejects damaged bytes without crashing", "[index]") {
  const size_t dims = 8;
  auto data = test::ClusteredVectors(200, dims, 4, 0.3f, 8);
  HnswIndex hnsw(dims);
  for (size_t i = 0; i < 200; ++i) hnsw.Add(static_cast<uint32_t>(i), data.data() + i * dims);
  Bytes saved;
  ByteWriter w(saved);
  hnsw.Save(w, true);
  for (size_t cut = 0; cut < saved.size(); cut += 97) {
    ByteReader r(saved.data(), cut, "hnsw");
    CHECK_THROWS_AS(HnswIndex::Load(r), Error);
  }
  // A link pointing outside the graph (a checksum would catch it in a pack;
  // the loader must not trust it either).
  Bytes bad = saved;
  size_t level0 = 4 * 5 + 8 + 4 + 4;
  uint32_t huge = 0xFFFFFF;
  std::memcpy(bad.data() + level0 + 4, &huge, 4);
  ByteReader r(bad.data(), bad.size(), "hnsw");
  CHECK_THROWS_AS(HnswIndex::Load(r), Error);
}

namespace {

// Offsets into HnswIndex::Save's bytes: a 36-byte header, then per node its
// level-0 links (count word, 2M ids), vector and 8-byte label, then per node
// its level and, above 0, M + 1 words per upper level.
struct GraphLayout {
  size_t dims, M, count;
  size_t node() const { return 4 + 8 * M + 4 * dims + 8; }
  size_t levels() const { return 36 + count * node(); }
};

template <typename T>
void Put(Bytes& b, size_t at, T v) { std::memcpy(b.data() + at, &v, sizeof(v)); }
template <typename T>
T Get(const Bytes& b, size_t at) { T v; std::memcpy(&v, b.data() + at, sizeof(v)); return v; }

bool Loads(const Bytes& b) {
  ByteReader r(b.data(), b.size(), "hnsw");
  try {
    HnswIndex::Load(r);
  } catch (const Error&) {
    return false;
  }
  return true;
}

}  // namespace

TEST_CASE("HNSW load rejects crafted graphs: sizes, fan-outs and levels a search would trust", "[index]") {
  const size_t dims = 8, n = 300;
  auto data = test::ClusteredVectors(n, dims, 4, 0.3f, 9);
  HnswIndex hnsw(dims);
  for (size_t i = 0; i < n; ++i) hnsw.Add(static_cast<uint32_t>(i), data.data() + i * dims);
  Bytes saved;
  ByteWriter w(saved);
  hnsw.Save(w, true);
  REQUIRE(Loads(saved));
  const GraphLayout g{dims, Get<uint32_t>(saved, 4), n};

  Bytes ef = saved;  // an ef_search of 2^31 would be a 2^31-entry allocation per query
  Put<uint32_t>(ef, 12, 1u << 31);
  CHECK_FALSE(Loads(ef));
  Bytes many = saved;  // a count the bytes cannot hold (on wasm32 it wrapped into a tiny graph image)
  Put<uint64_t>(many, 20, uint64_t{1} << 40);
  CHECK_FALSE(Loads(many));

  // The first node with an upper level, and one without.
  size_t at = g.levels(), upper = 0, flat = SIZE_MAX;
  uint32_t upper_node = 0;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t level = Get<uint32_t>(saved, at);
    if (level > 0 && !upper) upper = at + 4, upper_node = i;
    if (level == 0 && flat == SIZE_MAX) flat = i;
    at += 4 + level * 4 * (g.M + 1);
  }
  REQUIRE(upper);
  REQUIRE(flat != SIZE_MAX);
  Bytes fan = saved;  // more links above level 0 than M (level 0 allows 2M)
  Put<uint32_t>(fan, upper, static_cast<uint32_t>(g.M + 1));
  CHECK_FALSE(Loads(fan));
  Bytes level = saved;  // a level-1 link to a node that has no level 1
  Put<uint32_t>(level, upper, 1u);
  Put<uint32_t>(level, upper + 4, static_cast<uint32_t>(flat));
  CHECK_FALSE(Loads(level));
  CHECK(upper_node != flat);
}

TEST_CASE("int8 storage scores close to float32 and finds the same neighbours", "[index]") {
  const size_t dims = 128, n = 2000;
  auto data = test::ClusteredVectors(n, dims, 20, 0.3f, 11);
  auto queries = test::ClusteredVectors(50, dims, 20, 0.3f, 12);
  VectorStore f32(dims), i8(dims, VectorFormat::kInt8);
  for (size_t i = 0; i < n; ++i) {
    f32.Add(data.data() + i * dims);
    i8.Add(data.data() + i * dims);
  }
  CHECK(i8.bytes_per_vector() == dims + 4);
  CHECK(f32.bytes_per_vector() == 4 * dims);
  std::vector<Hit> a, b;
  size_t overlap = 0;
  float worst = 0.f;
  for (size_t q = 0; q < 50; ++q) {
    f32.Search(queries.data() + q * dims, 10, -1.f, a);
    i8.Search(queries.data() + q * dims, 10, -1.f, b);
    std::set<uint32_t> truth;
    for (auto& h : a) truth.insert(h.label);
    for (auto& h : b) {
      overlap += truth.count(h.label);
      worst = std::max(worst, std::abs(h.score - Dot(queries.data() + q * dims, data.data() + h.label * dims, dims)));
    }
  }
  INFO("top-10 overlap " << overlap / 500.0 << ", worst score error " << worst);
  CHECK(overlap >= 475);
  CHECK(worst < 0.01f);
  std::vector<float> decoded(dims);
  i8.Decode(7, decoded.data());
  CHECK(Dot(decoded.data(), data.data() + 7 * dims, dims) > 0.999f);
}

TEST_CASE("1-bit codes with rescoring give exact scores and high recall", "[index]") {
  const size_t dims = 128, n = 3000;
  auto data = test::ClusteredVectors(n, dims, 30, 0.1f, 13);
  auto queries = test::NearbyQueries(data, dims, 50, 0.1f, 14);
  VectorStore f32(dims), bin(dims, VectorFormat::kBinary);
  for (size_t i = 0; i < n; ++i) {
    f32.Add(data.data() + i * dims);
    bin.Add(data.data() + i * dims);
  }
  bin.Remove(3);
  f32.Remove(3);
  std::vector<Hit> a, b;
  size_t found = 0;
  for (size_t q = 0; q < 50; ++q) {
    const float* qv = queries.data() + q * dims;
    f32.Search(qv, 10, -1.f, a);
    bin.Search(qv, 10, -1.f, b);
    std::set<uint32_t> truth;
    for (auto& h : a) truth.insert(h.label);
    for (auto& h : b) {
      found += truth.count(h.label);
      CHECK(h.label != 3);
      CHECK(h.score == Dot(qv, data.data() + h.label * dims, dims));  // rescored exactly
    }
  }
  INFO("recall@10 " << found / 500.0);
  CHECK(found >= 450);
  Bytes saved;
  ByteWriter w(saved);
  bin.Save(w);
  ByteReader r(saved.data(), saved.size(), "store");
  VectorStore loaded = VectorStore::Load(r);
  CHECK(loaded.format() == VectorFormat::kBinary);
  loaded.Search(queries.data(), 10, -1.f, a);
  bin.Search(queries.data(), 10, -1.f, b);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].label == b[i].label);
}

TEST_CASE("HNSW bytes have one layout on every build; wasm32 graphs of pack version 1 still load", "[index]") {
  const size_t dims = 24, n = 300, M = 16;
  auto data = test::ClusteredVectors(n, dims, 6, 0.3f, 8);
  HnswIndex hnsw(dims);
  for (size_t i = 0; i < n; ++i) hnsw.Add(static_cast<uint32_t>(i * 3 + 1), data.data() + i * dims);
  Bytes saved;
  ByteWriter w(saved);
  hnsw.Save(w, true);
  // Labels sit after each node's links and vector as u64, natively and in wasm32.
  const size_t header = 36, node = 4 + 2 * M * 4 + dims * 4;
  for (size_t i : {0, 1, 299}) {
    uint64_t label;
    std::memcpy(&label, saved.data() + header + i * (node + 8) + node, 8);
    CHECK(label == i * 3 + 1);
  }
  Bytes legacy = test::WasmV1Graph(saved, dims, M);
  REQUIRE(legacy.size() == saved.size() - 4 * n);
  ByteReader r(legacy.data(), legacy.size(), "legacy");
  HnswIndex loaded = HnswIndex::Load(r, 4);
  CHECK(r.done());
  Bytes again;
  ByteWriter w2(again);
  loaded.Save(w2, true);
  CHECK(again == saved);
  ByteReader wrong(legacy.data(), legacy.size(), "legacy");
  CHECK_THROWS_AS(HnswIndex::Load(wrong, 8), Error);
}

TEST_CASE("HNSW level-0 lists saved by their count load as the full lists did; a count over 2M is refused", "[index]") {
  const size_t dims = 16, n = 400;
  auto data = test::ClusteredVectors(n, dims, 6, 0.3f, 12);
  VectorStore store(dims);
  HnswIndex hnsw = HnswIndex::ByReference(dims);
  for (size_t i = 0; i < n; ++i) {
    const uint32_t label = store.Add(data.data() + i * dims);
    hnsw.Add(label, store.Rows());
  }
  hnsw.Remove(9);
  const VectorRows rows = store.Rows();
  Bytes full, compact;
  ByteWriter wf(full), wc(compact);
  hnsw.Save(wf, false, &rows);
  hnsw.Save(wc, false, &rows, true);
  CHECK(compact.size() < full.size() * 3 / 4);  // lists are far from full
  ByteReader rc(compact.data(), compact.size(), "compact");
  HnswIndex loaded = HnswIndex::LoadByReference(rc, rows, 8, false, true);
  CHECK(rc.done());
  Bytes again_compact;
  ByteWriter ac(again_compact);
  loaded.Save(ac, false, &rows, true);
  CHECK(again_compact == compact);  // (slots past the count, stale in hnswlib's memory, are not saved)
  std::vector<Hit> a, b;
  for (size_t q = 0; q < n; q += 41) {
    hnsw.Search(data.data() + q * dims, rows, 10, -1.f, a);
    loaded.Search(data.data() + q * dims, rows, 10, -1.f, b);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK((a[i].label == b[i].label && a[i].score == b[i].score));
  }
  // The first node's count word, pushed past 2M (= 32): refused, never followed.
  Bytes bad = compact;
  const uint32_t too_many = 33;
  std::memcpy(bad.data() + 36, &too_many, sizeof(too_many));
  ByteReader rb(bad.data(), bad.size(), "compact");
  CHECK_THROWS_AS(HnswIndex::LoadByReference(rb, rows, 8, false, true), Error);
  for (size_t cut = 0; cut < compact.size(); cut += 211) {
    ByteReader rt(compact.data(), cut, "compact");
    CHECK_THROWS_AS(HnswIndex::LoadByReference(rt, rows, 8, false, true), Error);
  }
}
