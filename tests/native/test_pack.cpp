#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <memory>
#include <tuple>

#include "core/collection/pack.h"
#include "core/embed/static_model.h"
#include "core/search/piece_match.h"
#include "core/tokenizer/tokenizer.h"
#include "core/util/checksum.h"
#include "core/util/error.h"
#include "fake_embedder.h"
#include "helpers.h"
#include "core/index/hnsw_index.h"
#include "tests/fuzz/targets.h"

using namespace vesper;

namespace {

std::vector<Collection> SmallCollections() {
  std::vector<Collection> out;
  CollectionOptions hnsw;
  hnsw.index = IndexKind::kHnsw;
  Collection vec("vectors", test::FakeModel(16), hnsw);
  Collection lex("lexical", ModelInfo{});
  auto seed = test::Seeds()[2];
  auto chunks = ChunkDocument(seed.name, seed.text);
  chunks.resize(6);
  auto v = test::FakeEmbedChunks(chunks, 16);
  vec.Add(chunks, v.data(), chunks.size());
  vec.Remove(chunks[1].id);
  lex.Add(chunks);
  out.push_back(std::move(vec));
  out.push_back(std::move(lex));
  return out;
}

Bytes Save(const std::vector<Collection>& cs) {
  std::vector<const Collection*> ptrs;
  for (const auto& c : cs) ptrs.push_back(&c);
  return SavePack(ptrs);
}

ErrorCode LoadError(const Bytes& b) {
  try {
    LoadPack(b.data(), b.size());
  } catch (const Error& e) {
    return e.code();
  }
  FAIL("damaged pack loaded");
  return ErrorCode::kInternal;
}

// The pack as a wasm32 build of version 1 wrote it: the same sections, the
// HNSW one with 4-byte labels, and offsets and checksums to match.
Bytes AsWasmV1Pack(const Bytes& pack, size_t dims, size_t M) {
  const size_t header = 8 + 4 + 4 + 8, entry = 4 + 4 + 8 + 8 + 4;
  uint32_t count;
  std::memcpy(&count, pack.data() + 12, 4);
  std::vector<Bytes> bodies;
  std::vector<uint32_t> kinds, owners;
  for (uint32_t i = 0; i < count; ++i) {
    const uint8_t* e = pack.data() + header + i * entry;
    uint32_t kind, owner;
    uint64_t offset, size;
    std::memcpy(&kind, e, 4);
    std::memcpy(&owner, e + 4, 4);
    std::memcpy(&offset, e + 8, 8);
    std::memcpy(&size, e + 16, 8);
    Bytes body(pack.begin() + offset, pack.begin() + offset + size);
    bodies.push_back(kind == 4 ? test::WasmV1Graph(body, dims, M) : body);
    kinds.push_back(kind);
    owners.push_back(owner);
  }
  Bytes out;
  ByteWriter w(out);
  w.raw(pack.data(), 8);
  w.u32(1);
  w.u32(count);
  uint64_t offset = header + count * entry + 4, total = offset;
  for (const Bytes& b : bodies) total += b.size();
  w.u64(total);
  for (uint32_t i = 0; i < count; ++i) {
    w.u32(kinds[i]);
    w.u32(owners[i]);
    w.u64(offset);
    w.u64(bodies[i].size());
    w.u32(Crc32(bodies[i].data(), bodies[i].size()));
    offset += bodies[i].size();
  }
  w.u32(Crc32(out.data(), out.size()));
  for (const Bytes& b : bodies) w.raw(b.data(), b.size());
  return out;
}

}  // namespace

TEST_CASE("a pack round trip is bit-exact and searches the same", "[pack]") {
  auto cs = SmallCollections();
  Bytes bytes = Save(cs);
  auto loaded = LoadPack(bytes.data(), bytes.size());
  REQUIRE(loaded.size() == 2);
  CHECK(loaded[0].name() == "vectors");
  CHECK(loaded[0].uses_hnsw());
  CHECK(loaded[0].size() == 5);
  CHECK(loaded[1].model().lexical_only());
  CHECK(Save(loaded) == bytes);
  SearchOptions opt;
  opt.threshold = 0.f;
  auto q = test::FakeEmbed("Tesla Autopilot", 16);
  auto a = cs[0].Search("Tesla Autopilot", q.data(), 16, opt);
  auto b = loaded[0].Search("Tesla Autopilot", q.data(), 16, opt);
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].label == b[i].label);
    CHECK(a[i].fused == b[i].fused);
  }
  auto info = InspectPack(bytes.data(), bytes.size());
  CHECK(info.version == kPackVersion);
  CHECK(info.collections.size() == 2);
  CHECK(info.sections.size() == 3 + 3 + 2);  // meta+chunks+bm25 each, vectors+hnsw for one
}

TEST_CASE("a pack streamed to a sink is the same bytes, never held whole", "[pack]") {
  const auto cs = SmallCollections();
  std::vector<const Collection*> ptrs;
  for (const Collection& c : cs) ptrs.push_back(&c);
  const Bytes whole = SavePack(ptrs);
  Bytes streamed;
  size_t pieces = 0;
  SavePackTo(ptrs, [&](const uint8_t* data, size_t n) {
    ++pieces;
    streamed.insert(streamed.end(), data, data + n);
  });
  CHECK(streamed == whole);
  CHECK(pieces > 1);
  // A writer with a sink holds at most a piece: a large block passes through as it is.
  size_t largest_held = 0, passed = 0;
  ByteWriter w([&](const uint8_t*, size_t n) { passed += n; });
  for (int i = 0; i < 100000; ++i) {
    w.varint(static_cast<uint32_t>(i));
    largest_held = std::max(largest_held, w.size() - passed);
  }
  const Bytes block(3 * ByteWriter::kSinkPiece, 7);
  w.raw(block.data(), block.size());
  w.Flush();
  CHECK(largest_held <= ByteWriter::kSinkPiece);
  CHECK(passed == w.size());
}

TEST_CASE("every truncation of a pack is rejected", "[pack]") {
  Bytes bytes = Save(SmallCollections());
  for (size_t cut = 0; cut < bytes.size(); ++cut) {
    Bytes part(bytes.begin(), bytes.begin() + cut);
    INFO("cut at " << cut);
    CHECK(LoadError(part) == ErrorCode::kCorruptData);
  }
  Bytes longer = bytes;
  longer.push_back(0);
  CHECK(LoadError(longer) == ErrorCode::kCorruptData);
}

TEST_CASE("a flipped byte in any section is rejected", "[pack]") {
  Bytes bytes = Save(SmallCollections());
  auto info = InspectPack(bytes.data(), bytes.size());
  // The header and table, then a sample of bytes spread over each section.
  std::vector<size_t> positions;
  for (size_t i = 0; i < info.sections.front().offset; ++i) positions.push_back(i);
  for (const auto& s : info.sections) {
    size_t step = std::max<size_t>(1, s.size / 64);
    for (size_t i = 0; i < s.size; i += step) positions.push_back(s.offset + i);
    positions.push_back(s.offset + s.size - 1);
  }
  for (size_t pos : positions) {
    for (uint8_t mask : {0x01, 0x80}) {
      Bytes bad = bytes;
      bad[pos] ^= mask;
      INFO("flip at " << pos);
      ErrorCode code = LoadError(bad);
      CHECK((code == ErrorCode::kCorruptData || code == ErrorCode::kUnsupported));
    }
  }
}

TEST_CASE("a pack from another model is refused", "[pack]") {
  Bytes bytes = Save(SmallCollections());
  ModelInfo same = test::FakeModel(16);
  ModelInfo other = test::FakeModel(16);
  other.id = "embeddinggemma-300m";
  ModelInfo other_dims = test::FakeModel(32);
  ModelInfo other_tok = test::FakeModel(16);
  other_tok.tokenizer_fingerprint = "spm-0000000000000000";
  CHECK_NOTHROW(LoadPack(bytes.data(), bytes.size(), &same) .size());
  for (const ModelInfo* m : {&other, &other_dims, &other_tok}) {
    try {
      LoadPack(bytes.data(), bytes.size(), m);
      FAIL("wrong model accepted");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::kModelMismatch);
      CHECK(std::string(e.what()).find("'vectors' was embedded with 'test-hashed-words'") != std::string::npos);
    }
  }
}

TEST_CASE("pack header errors say what is wrong", "[pack]") {
  Bytes bytes = Save(SmallCollections());
  Bytes magic = bytes;
  magic[0] = 'X';
  try {
    LoadPack(magic.data(), magic.size());
    FAIL();
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "not a vesper pack (bad magic bytes)");
  }
  Bytes version = bytes;
  version[8] = 9;
  try {
    LoadPack(version.data(), version.size());
    FAIL();
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kUnsupported);
    CHECK(std::string(e.what()).find("version 9") != std::string::npos);
  }
  Bytes half(bytes.begin(), bytes.begin() + bytes.size() / 2);
  try {
    LoadPack(half.data(), half.size());
    FAIL();
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("truncated: expected " + std::to_string(bytes.size())) != std::string::npos);
  }
  CHECK(SavePack({}).size() > 0);
  Bytes empty = SavePack({});
  CHECK(LoadPack(empty.data(), empty.size()).empty());
}

TEST_CASE("packs keep the vector format", "[pack]") {
  for (VectorFormat f : {VectorFormat::kInt8, VectorFormat::kBinary}) {
    CollectionOptions o;
    o.vectors = f;
    Collection c("q", test::FakeModel(16), o);
    auto seed = test::Seeds()[2];
    auto chunks = ChunkDocument(seed.name, seed.text);
    auto v = test::FakeEmbedChunks(chunks, 16);
    c.Add(chunks, v.data(), chunks.size());
    Bytes bytes = SavePack({&c});
    auto loaded = LoadPack(bytes.data(), bytes.size());
    CHECK(loaded[0].options().vectors == f);
    CHECK(SavePack({&loaded[0]}) == bytes);
    SearchOptions opt;
    opt.threshold = 0.f;
    auto q = test::FakeEmbed("Tesla", 16);
    auto a = c.Search("Tesla", q.data(), 16, opt);
    auto b = loaded[0].Search("Tesla", q.data(), 16, opt);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK(a[i].label == b[i].label);
  }
}

TEST_CASE("a pack whose int8 vectors are most of it is read in place and kept; a text-heavy one is copied", "[pack]") {
  for (size_t dims : {size_t{16}, size_t{2048}}) {
    CollectionOptions o;
    o.vectors = VectorFormat::kInt8;
    o.index = IndexKind::kHnsw;
    Collection c("q", test::FakeModel(dims), o);
    auto seed = test::Seeds()[2];
    auto chunks = ChunkDocument(seed.name, seed.text);
    auto v = test::FakeEmbedChunks(chunks, dims);
    c.Add(chunks, v.data(), chunks.size());
    const Bytes bytes = SavePack({&c});
    auto owner = std::make_shared<Bytes>(bytes);
    std::weak_ptr<Bytes> held = owner;
    auto loaded = LoadPack(owner->data(), owner->size(), nullptr, owner);
    owner.reset();
    const bool in_place = dims * chunks.size() * 2 >= bytes.size();
    INFO("dims " << dims << ", pack " << bytes.size() << " bytes");
    REQUIRE(in_place == (dims > 16));  // both cases are exercised
    CHECK(held.expired() == !in_place);
    CHECK(SavePack({&loaded[0]}) == bytes);
    SearchOptions opt;
    opt.threshold = 0.f;
    auto q = test::FakeEmbed("Tesla", dims);
    auto a = c.Search("Tesla", q.data(), dims, opt);
    auto b = loaded[0].Search("Tesla", q.data(), dims, opt);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK((a[i].label == b[i].label && a[i].fused == b[i].fused));
  }
}

TEST_CASE("packs of versions 1 to 3 load, whichever build wrote their HNSW graph", "[pack]") {
  auto cs = SmallCollections();
  const Bytes current = Save(cs);
  std::vector<const Collection*> ptrs;
  for (const auto& c : cs) ptrs.push_back(&c);
  // Version 3: the graph carries its vectors; no bm25 section.
  const Bytes v3 = SavePack(ptrs, 3);
  REQUIRE(InspectPack(v3.data(), v3.size()).version == 3);
  CHECK(Save(LoadPack(v3.data(), v3.size())) == current);  // and saving writes the current version
  // Version 5: level-0 link lists in full; the current writes them by their count, smaller.
  const Bytes v5 = SavePack(ptrs, 5);
  REQUIRE(InspectPack(v5.data(), v5.size()).version == 5);
  CHECK(Save(LoadPack(v5.data(), v5.size())) == current);
  CHECK(current.size() < v5.size());
  Bytes wasm_v1 = AsWasmV1Pack(v3, 16, cs[0].options().hnsw.M);
  REQUIRE(wasm_v1.size() < v3.size());
  CHECK(InspectPack(wasm_v1.data(), wasm_v1.size()).version == 1);
  auto loaded = LoadPack(wasm_v1.data(), wasm_v1.size());
  REQUIRE(loaded.size() == 2);
  CHECK(loaded[0].uses_hnsw());
  CHECK(Save(loaded) == current);
  Bytes native_v1 = v3;  // native builds wrote version 2's bytes already
  native_v1[8] = 1;
  uint32_t count;
  std::memcpy(&count, native_v1.data() + 12, 4);
  size_t table_end = 24 + count * 28;
  uint32_t crc = Crc32(native_v1.data(), table_end);
  std::memcpy(native_v1.data() + table_end, &crc, 4);
  CHECK(Save(LoadPack(native_v1.data(), native_v1.size())) == current);
}

TEST_CASE("a version-4 pack loads its lexical index as saved; a damaged one is refused", "[pack]") {
  auto cs = SmallCollections();
  const Bytes bytes = Save(cs);
  auto loaded = LoadPack(bytes.data(), bytes.size());
  SearchOptions opt;
  opt.threshold = 0.f;
  opt.mode = SearchMode::kLexical;
  for (const char* q : {"Tesla Autopilot", "neural networks", "camera"}) {
    auto a = cs[1].Search(q, nullptr, 0, opt);
    auto b = loaded[1].Search(q, nullptr, 0, opt);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK((a[i].label == b[i].label && a[i].fused == b[i].fused));
  }
  // Adding after a load keeps labels aligned.
  auto more = ChunkDocument("more.md", "# More\n\nAlbatrosses glide over the ocean.");
  loaded[1].Add(more);
  CHECK(loaded[1].Search("albatross", nullptr, 0, opt).size() == 1);
}

namespace {

// A pack of one exact-scan collection whose saved options are then patched
// (min size 2, so the graph is built at load, and the given ef / M), with
// every checksum made valid again: what a hostile pack looks like.
Bytes PackWithHnswOptions(uint32_t M, uint32_t ef_construction, uint32_t ef_search) {
  CollectionOptions o;  // auto, below hnsw_min_size: no graph is saved
  Collection c("patched", test::FakeModel(16), o);
  auto seed = test::Seeds()[2];
  auto chunks = ChunkDocument(seed.name, seed.text);
  chunks.resize(6);
  auto v = test::FakeEmbedChunks(chunks, 16);
  c.Add(chunks, v.data(), chunks.size());
  REQUIRE_FALSE(c.uses_hnsw());
  Bytes pack = SavePack({&c});
  // min size (u64), M, efConstruction, efSearch, seed as SaveMeta writes them.
  Bytes want, patch;
  ByteWriter ww(want), wp(patch);
  ww.u64(c.options().hnsw_min_size), ww.u32(o.hnsw.M), ww.u32(o.hnsw.ef_construction), ww.u32(o.hnsw.ef_search);
  wp.u64(2), wp.u32(M), wp.u32(ef_construction), wp.u32(ef_search);
  auto at = std::search(pack.begin(), pack.end(), want.begin(), want.end());
  REQUIRE(at != pack.end());
  std::copy(patch.begin(), patch.end(), at);
  REQUIRE(fuzz::RepairPackFraming(pack));
  return pack;
}

}  // namespace

TEST_CASE("HNSW parameters are checked on every path: a graph built at load, a collection made, ef set", "[pack]") {
  // Was: ef_search 0xFFFFFFFF passed (only a saved graph's parameters were
  // checked), the graph was built at load and the first search asked for
  // ~141 GB: std::bad_alloc aborted the native process.
  for (auto [M, efc, efs] : {std::tuple{16u, 200u, 0xFFFFFFFFu}, {16u, 200u, 0u}, {16u, 0u, 128u},
                             {16u, 0xFFFFFFFFu, 128u}, {1u, 200u, 128u}, {100000u, 200u, 128u}}) {
    INFO(M << " " << efc << " " << efs);
    Bytes pack = PackWithHnswOptions(M, efc, efs);
    CHECK(LoadError(pack) == ErrorCode::kCorruptData);
    try {
      LoadPack(pack.data(), pack.size());
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("bad HNSW parameters"));
    }
  }
  // In range: loads, builds its graph, searches, saves and loads again.
  Bytes fine = PackWithHnswOptions(8, 1, 65536);
  auto loaded = LoadPack(fine.data(), fine.size());
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].uses_hnsw());
  Bytes again = SavePack({&loaded[0]});
  CHECK(LoadPack(again.data(), again.size()).size() == 1);

  CollectionOptions bad;
  bad.hnsw.ef_search = 0;
  CHECK_THROWS_AS(Collection("x", test::FakeModel(16), bad), Error);
  HnswIndex index(16);
  CHECK_THROWS_AS(index.set_ef_search(0), Error);
  CHECK_THROWS_AS(index.set_ef_search(kMaxHnswEf + 1), Error);
  index.set_ef_search(kMaxHnswEf);
  CHECK(index.params().ef_search == kMaxHnswEf);
}

TEST_CASE("a pack carries the model rows its passages use: searched with only them, it ranks as with the whole table", "[pack]") {
  const std::string dir = std::string(VESPER_MODELS_DIR) + "/default/";
  SpecialTokenPolicy policy;
  policy.add_bos = policy.add_eos = false;
  std::shared_ptr<const Tokenizer> tok = Tokenizer::FromBytes(test::ReadFile(dir + "tokenizer.model"), policy);
  std::shared_ptr<StaticModel> full = StaticModel::FromBytes(test::ReadFile(dir + "model.vtab"));
  auto embed = [&](const StaticModel& m, const std::string& text) {
    std::vector<int32_t> ids = tok->Encode(text).ids;
    std::vector<float> v(m.dims());
    m.Embed(ids.data(), ids.size(), v.data());
    return v;
  };
  ModelInfo info;
  info.id = "vesper-default";
  info.dims = static_cast<uint32_t>(full->dims());
  Collection db("kb", info);
  db.EnablePieceMatch(std::make_shared<PieceMatcher>(full), tok);
  const auto seed = test::Seeds()[0];
  std::vector<Chunk> chunks = ChunkDocument(seed.name, seed.text);
  chunks.resize(std::min<size_t>(chunks.size(), 12));
  std::vector<float> vectors;
  for (const Chunk& c : chunks) {
    auto v = embed(*full, c.text);
    vectors.insert(vectors.end(), v.begin(), v.end());
  }
  db.Add(chunks, vectors.data(), chunks.size());
  const Bytes pack = SavePack({&db});
  const PackInfo pi = InspectPack(pack.data(), pack.size());
  CHECK(std::any_of(pi.sections.begin(), pi.sections.end(), [](const PackSectionInfo& s) { return s.kind == "rows"; }));

  // A page's model: no rows but the pack's.
  std::vector<Collection> loaded = LoadPack(pack.data(), pack.size(), &info);
  std::shared_ptr<StaticModel> sparse = StaticModel::Sparse(static_cast<uint32_t>(full->vocab()), static_cast<uint32_t>(full->dims()));
  const std::vector<uint8_t> rows = loaded[0].TakeStoredRows();
  sparse->AddRows(std::string_view(reinterpret_cast<const char*>(rows.data()), rows.size()));
  CHECK(sparse->held() < full->vocab() / 4);
  loaded[0].EnablePieceMatch(std::make_shared<PieceMatcher>(sparse), tok);
  auto same = [&](const std::string& q) {
    SearchOptions o;
    auto want = db.Search(q, embed(*full, q).data(), full->dims(), o);
    auto got = loaded[0].Search(q, embed(*sparse, q).data(), full->dims(), o);
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < got.size(); ++i) {
      CHECK(got[i].label == want[i].label);
      CHECK(got[i].fused == want[i].fused);
    }
  };
  // A query made of the passages' own words needs nothing more.
  same(chunks[3].text.substr(0, 60));
  // One with pieces the passages never use asks for exactly those rows.
  const std::string q = "zymurgy and quokkas in Reykjavík";
  std::vector<int32_t> ids = tok->Encode(q).ids;
  std::vector<float> v(full->dims());
  std::vector<uint8_t> more;
  try {
    sparse->Embed(ids.data(), ids.size(), v.data());
    FAIL("embedded without its rows");
  } catch (const MissingRows& e) {
    more = full->RowSet(e.ids());
  }
  REQUIRE(!more.empty());
  sparse->AddRows(std::string_view(reinterpret_cast<const char*>(more.data()), more.size()));
  same(q);
}

TEST_CASE("piece lists are kept as the pack stores them: a round trip, removed slots and bad ids", "[pack]") {
  PieceLists lists;
  lists.Set(0, {3, 7, 300, 70000}, {7});
  lists.Set(2, {1}, {});
  lists.Set(1, {0, 1, 2}, {5, 6});
  lists.Set(0, {4}, {4});  // replaced: the new lists are read
  std::vector<int32_t> out;
  lists.Text(0, out);
  CHECK(out == std::vector<int32_t>{4});
  lists.Title(1, out);
  CHECK(out == std::vector<int32_t>{5, 6});
  lists.Clear(2);
  lists.Text(2, out);
  CHECK(out.empty());
  lists.Grow(4);
  CHECK(lists.slots() == 4);
  std::vector<int32_t> seen;
  lists.ForEach(1, true, [&](int32_t id) { seen.push_back(id); });
  CHECK(seen == std::vector<int32_t>{0, 1, 2, 5, 6});

  // Saved slot by slot; a slot `alive` marks removed is written empty.
  const std::vector<uint8_t> alive = {1, 1, 0, 1};
  Bytes bytes;
  {
    ByteWriter w(bytes);
    lists.Save(w, alive);
  }
  ByteReader r(bytes.data(), bytes.size(), "pieces");
  const PieceLists loaded = PieceLists::Load(r, alive.size(), 100000, alive);
  CHECK(r.done());
  for (uint32_t slot = 0; slot < alive.size(); ++slot) {
    std::vector<int32_t> a, b;
    lists.Text(slot, a), loaded.Text(slot, b);
    CHECK(a == b);
    lists.Title(slot, a), loaded.Title(slot, b);
    CHECK(a == b);
  }
  // An id outside the vocabulary, and pieces for a slot marked removed, are refused.
  ByteReader small(bytes.data(), bytes.size(), "pieces");
  CHECK_THROWS_WITH(PieceLists::Load(small, alive.size(), 5, alive), Catch::Contains("outside the vocabulary"));
  ByteReader dead(bytes.data(), bytes.size(), "pieces");
  CHECK_THROWS_WITH(PieceLists::Load(dead, alive.size(), 100000, {1, 0, 0, 1}), Catch::Contains("removed chunk"));
}

namespace {

// A spill in memory, as the CLI's file spill behaves: `fail_after` appends
// then a full disk; `lose` bytes missing when read back.
struct MemorySpill : ChunkSpill {
  Bytes kept;
  size_t appends = 0, fail_after = SIZE_MAX, lose = 0;
  void Append(const uint8_t* data, size_t n) override {
    if (appends++ >= fail_after) throw Error(ErrorCode::kInternal, "no space left on device");
    kept.insert(kept.end(), data, data + n);
  }
  void ReadBack(const ByteWriter::Sink& sink) const override {
    const size_t n = kept.size() - std::min(lose, kept.size());
    for (size_t at = 0; at < n; at += 7) sink(kept.data() + at, std::min<size_t>(7, n - at));  // in odd pieces
  }
};

// The same passages in two batches, into a collection that spills or not.
Collection BuiltInBatches(const std::shared_ptr<ChunkSpill>& spill) {
  CollectionOptions hnsw;
  hnsw.index = IndexKind::kHnsw;
  Collection c("spilled", test::FakeModel(16), hnsw);
  if (spill) c.SpillTo(spill);
  auto seed = test::Seeds()[2];
  auto chunks = ChunkDocument(seed.name, seed.text);
  chunks.resize(8);
  chunks[3].fields = {{"lang", "en", true}};
  const auto v = test::FakeEmbedChunks(chunks, 16);
  c.Add(std::vector<Chunk>(chunks.begin(), chunks.begin() + 5), v.data(), 5);
  c.Add(std::vector<Chunk>(chunks.begin() + 3, chunks.end()), v.data() + 3 * 16, 5);  // two already there: skipped
  return c;
}

Bytes SaveOne(const Collection& c) { return SavePack({&c}); }

// The default model's tokenizer and table: collections that match pieces.
struct PieceModel {
  std::shared_ptr<const Tokenizer> tok;
  std::shared_ptr<StaticModel> table;
  ModelInfo info;
};

PieceModel DefaultPieceModel() {
  const std::string dir = std::string(VESPER_MODELS_DIR) + "/default/";
  SpecialTokenPolicy policy;
  policy.add_bos = policy.add_eos = false;
  PieceModel m;
  m.tok = Tokenizer::FromBytes(test::ReadFile(dir + "tokenizer.model"), policy);
  m.table = StaticModel::FromBytes(test::ReadFile(dir + "model.vtab"));
  m.info.id = "vesper-default";
  m.info.dims = static_cast<uint32_t>(m.table->dims());
  return m;
}

// Twelve passages in two overlapping batches, piece matching on, spilling
// what `records` and `pieces` are given for.
Collection BuiltWithPieces(const PieceModel& m, const std::shared_ptr<ChunkSpill>& records,
                           const std::shared_ptr<ChunkSpill>& pieces) {
  Collection c("kb", m.info);
  c.EnablePieceMatch(std::make_shared<PieceMatcher>(m.table), m.tok);
  if (records) c.SpillTo(records);
  if (pieces) c.SpillPiecesTo(pieces);
  std::vector<Chunk> chunks = ChunkDocument(test::Seeds()[0].name, test::Seeds()[0].text);
  chunks.resize(std::min<size_t>(chunks.size(), 12));
  std::vector<float> vectors;
  for (const Chunk& chunk : chunks) {
    std::vector<int32_t> ids = m.tok->Encode(chunk.text).ids;
    std::vector<float> v(m.table->dims());
    m.table->Embed(ids.data(), ids.size(), v.data());
    vectors.insert(vectors.end(), v.begin(), v.end());
  }
  const size_t dims = m.table->dims();
  c.Add(std::vector<Chunk>(chunks.begin(), chunks.begin() + 7), vectors.data(), 7);
  c.Add(std::vector<Chunk>(chunks.begin() + 5, chunks.end()), vectors.data() + 5 * dims, chunks.size() - 5);  // two already there
  return c;
}

}  // namespace

TEST_CASE("a collection that spills its passages saves the same pack and keeps no text", "[pack]") {
  auto spill = std::make_shared<MemorySpill>();
  const Collection spilled = BuiltInBatches(spill);
  const Collection held = BuiltInBatches(nullptr);
  CHECK(spilled.spilled());
  CHECK(spilled.size() == 8);
  CHECK(SaveOne(spilled) == SaveOne(held));  // planned and written: read back twice
  for (uint32_t label = 0; label < spilled.slots(); ++label) {
    CHECK(spilled.chunk(label).text.empty());
    CHECK(spilled.chunk(label).title.empty());
    CHECK(!spilled.chunk(label).id.empty());
  }
  auto loaded = LoadPack(SaveOne(spilled).data(), SaveOne(spilled).size());
  REQUIRE(loaded.size() == 1);
  CHECK(loaded[0].chunk(3).text == held.chunk(3).text);
  CHECK(loaded[0].chunk(3).fields == held.chunk(3).fields);
}

TEST_CASE("a build that spills its piece lists too saves the same pack, its rows included", "[pack]") {
  const PieceModel m = DefaultPieceModel();
  auto records = std::make_shared<MemorySpill>();
  auto pieces = std::make_shared<MemorySpill>();
  const Collection spilled = BuiltWithPieces(m, records, pieces);
  const Collection held = BuiltWithPieces(m, nullptr, nullptr);
  CHECK(pieces->appends == 2);  // a batch at a time
  CHECK(!pieces->kept.empty());
  const Bytes pack = SaveOne(spilled);
  CHECK(pack == SaveOne(held));  // planned and written: read back twice
  const PackInfo info = InspectPack(pack.data(), pack.size());
  CHECK(std::any_of(info.sections.begin(), info.sections.end(), [](const PackSectionInfo& s) { return s.kind == "rows"; }));

  Collection lone("x", m.info);
  CHECK_THROWS_WITH(lone.SpillPiecesTo(std::make_shared<MemorySpill>()), Catch::Contains("SpillTo first"));
  // A full disk on the second batch: the build stops, and what was built is never saved.
  auto full_disk = std::make_shared<MemorySpill>();
  full_disk->fail_after = 1;
  CHECK_THROWS_WITH(BuiltWithPieces(m, std::make_shared<MemorySpill>(), full_disk), Catch::Contains("no space left"));
  Collection part("kb", m.info);
  part.EnablePieceMatch(std::make_shared<PieceMatcher>(m.table), m.tok);
  part.SpillTo(std::make_shared<MemorySpill>());
  auto failing = std::make_shared<MemorySpill>();
  failing->fail_after = 0;
  part.SpillPiecesTo(failing);
  std::vector<Chunk> one = ChunkDocument("a.md", "One passage about cameras.");
  std::vector<float> v(m.table->dims(), 0.f);
  v[0] = 1.f;
  CHECK_THROWS_WITH(part.Add(one, v.data(), 1), Catch::Contains("no space left"));
  CHECK_THROWS_WITH(SaveOne(part), Catch::Contains("could not all be kept"));
  // Lists that come back short are never written as a pack.
  pieces->lose = 3;
  CHECK_THROWS_WITH(SaveOne(spilled), Catch::Contains("piece lists read back where"));
}

TEST_CASE("a spilled collection is saved, not searched, and says so", "[pack]") {
  Collection c = BuiltInBatches(std::make_shared<MemorySpill>());
  const auto q = test::FakeEmbed("Tesla", 16);
  CHECK_THROWS_WITH(c.Search("Tesla", q.data(), 16, SearchOptions{}), Catch::Contains("load that pack to search it"));
  CHECK_THROWS_WITH(c.Remove(c.chunk(0).id), Catch::Contains("remove its passages"));
  CHECK(c.size() == 8);
  Collection full = BuiltInBatches(nullptr);
  CHECK_THROWS_WITH(full.SpillTo(std::make_shared<MemorySpill>()), Catch::Contains("only from empty"));
}

TEST_CASE("a spill that fails or comes back short is never saved as a pack", "[pack]") {
  auto full_disk = std::make_shared<MemorySpill>();
  full_disk->fail_after = 1;  // the first batch kept, the second not
  CHECK_THROWS_WITH(BuiltInBatches(full_disk), Catch::Contains("no space left"));
  CollectionOptions options;
  Collection c("c", ModelInfo{}, options);
  c.SpillTo(full_disk);
  auto chunks = ChunkDocument("a.md", "One passage about cameras.");
  CHECK_THROWS(c.Add(chunks));
  CHECK_THROWS_WITH(SaveOne(c), Catch::Contains("could not all be kept"));

  auto short_spill = std::make_shared<MemorySpill>();
  const Collection shortened = BuiltInBatches(short_spill);
  short_spill->lose = 3;
  CHECK_THROWS_WITH(SaveOne(shortened), Catch::Contains("read back where"));
}
