#include <catch2/catch.hpp>

#include <set>
#include <unordered_map>

#include "core/collection/collection.h"
#include "core/collection/id_index.h"
#include "core/collection/pack.h"
#include "core/util/error.h"
#include "fake_embedder.h"
#include "helpers.h"

using namespace vesper;

namespace {

Collection SeedCollection(CollectionOptions opt = {}) {
  Collection c("karpathy", test::FakeModel(), opt);
  for (const auto& seed : test::Seeds()) {
    auto chunks = ChunkDocument(seed.name, seed.text);
    auto vectors = test::FakeEmbedChunks(chunks, 128);
    c.Add(std::move(chunks), vectors.data(), vectors.size() / 128);
  }
  return c;
}

// Documents (source, text) chunked and added with fake vectors, as a site's pages are.
void AddDocuments(Collection& c, const std::vector<std::pair<std::string, std::string>>& docs) {
  std::vector<Chunk> chunks;
  for (const auto& [source, text] : docs) {
    auto more = ChunkDocument(source, text);
    chunks.insert(chunks.end(), more.begin(), more.end());
  }
  auto vectors = test::FakeEmbedChunks(chunks, 128);
  c.Add(std::move(chunks), vectors.data(), vectors.size() / 128);
}

// What the index saw of a chunk: its heading trail and its text.
std::string Passage(const Collection& c, uint32_t label) {
  std::string s;
  for (const auto& t : c.chunk(label).title) s += t + "\n";
  return s + c.chunk(label).text;
}

std::vector<SearchResult> Query(const Collection& c, const std::string& q, SearchOptions opt) {
  auto v = test::FakeEmbed(q, 128);
  return c.Search(q, v.data(), v.size(), opt);
}

}  // namespace

TEST_CASE("a collection searches its chunks by vector, lexically and hybrid", "[collection]") {
  Collection c = SeedCollection();
  REQUIRE(c.size() > 100);
  CHECK(!c.uses_hnsw());
  SearchOptions opt;
  opt.threshold = 0.1f;
  auto hybrid = Query(c, "HydraNet shared backbone heads", opt);
  REQUIRE(!hybrid.empty());
  CHECK(Passage(c, hybrid[0].label).find("HydraNet") != std::string::npos);
  bool both = false;
  for (const auto& r : hybrid) {
    CHECK(r.score >= 0.1f);
    CHECK(r.score == r.vector_score);
    if (r.vector_rank >= 0 && r.lexical_rank >= 0) both = true;
  }
  CHECK(both);
  for (size_t i = 1; i < hybrid.size(); ++i) CHECK(hybrid[i - 1].fused >= hybrid[i].fused);

  opt.mode = SearchMode::kLexical;
  auto lexical = Query(c, "从零构建", opt);
  REQUIRE(!lexical.empty());
  CHECK(Passage(c, lexical[0].label).find("从零构建") != std::string::npos);
  for (const auto& r : lexical) CHECK(r.vector_rank == -1);

  opt.mode = SearchMode::kVector;
  auto vec = Query(c, "HydraNet shared backbone heads", opt);
  for (const auto& r : vec) CHECK(r.lexical_rank == -1);
}

TEST_CASE("the cosine threshold gates hybrid results", "[collection]") {
  Collection c = SeedCollection();
  SearchOptions opt;
  opt.threshold = 0.99f;
  // Lexical matches on common words must not pass a bar the vectors fail.
  auto r = Query(c, "the and of what is", opt);
  for (const auto& x : r) CHECK(x.vector_score >= 0.99f);
  opt.threshold = 0.0f;
  CHECK(Query(c, "the and of what is", opt).size() == 10);
}

TEST_CASE("deleted chunks never come back; duplicates are skipped", "[collection]") {
  Collection c = SeedCollection();
  // Storing the same document again adds nothing.
  auto seed = test::Seeds()[2];
  auto chunks = ChunkDocument(seed.name, seed.text);
  auto v = test::FakeEmbedChunks(chunks, 128);
  CHECK(c.Add(chunks, v.data(), chunks.size()) == 0);
  size_t before = c.size();
  SearchOptions opt;
  opt.threshold = 0.f;
  auto r = Query(c, "micrograd Value class backward", opt);
  REQUIRE(!r.empty());
  std::string gone = c.chunk(r[0].label).id;
  c.Remove(gone);
  CHECK(c.size() == before - 1);
  CHECK(!c.Find(gone));
  for (SearchMode mode : {SearchMode::kVector, SearchMode::kLexical, SearchMode::kHybrid}) {
    opt.mode = mode;
    for (const auto& x : Query(c, "micrograd Value class backward", opt)) CHECK(c.chunk(x.label).id != gone);
  }
  CHECK_THROWS_AS(c.Remove(gone), Error);
}

TEST_CASE("HNSW takes over for large collections with the same answers", "[collection]") {
  CollectionOptions hnsw;
  hnsw.hnsw_min_size = 50;
  Collection a = SeedCollection(hnsw);
  Collection b = SeedCollection();
  CHECK(a.uses_hnsw());
  SearchOptions opt;
  opt.mode = SearchMode::kVector;
  opt.k = 5;
  opt.threshold = 0.f;
  for (const char* q : {"Software 2.0 neural network weights", "tokenização BPE", "数据引擎 车队"}) {
    auto x = Query(a, q, opt), y = Query(b, q, opt);
    REQUIRE(!x.empty());
    CHECK(x[0].label == y[0].label);
  }
}

TEST_CASE("collections refuse wrong vectors and bad input", "[collection]") {
  Collection c = SeedCollection();
  std::vector<float> q(64, 0.1f);
  SearchOptions opt;
  try {
    c.Search("query", q.data(), q.size(), opt);
    FAIL("64-dim query accepted by a 128-dim collection");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kModelMismatch);
  }
  CHECK_THROWS_AS(c.Search("query", nullptr, 0, opt), Error);
  std::vector<float> zeros(128, 0.f);
  CHECK_THROWS_AS(c.Search("q", zeros.data(), 128, opt), Error);

  Chunk chunk;
  chunk.id = "x";
  chunk.text = "text";
  std::vector<float> nan(128, std::nanf(""));
  size_t before = c.size();
  CHECK_THROWS_AS(c.Add({chunk}, nan.data(), 1), Error);
  CHECK_THROWS_AS(c.Add({chunk}, nullptr, 0), Error);
  CHECK(c.size() == before);  // nothing half-added
  CHECK_THROWS_AS(Collection("", test::FakeModel()), Error);
}

TEST_CASE("a lexical-only collection works without any model", "[collection]") {
  Collection c("plain", ModelInfo{});
  for (const auto& seed : test::Seeds()) c.Add(ChunkDocument(seed.name, seed.text));
  SearchOptions opt;
  opt.threshold = 0.2f;
  auto r = c.Search("cameras LiDAR Tesla", nullptr, 0, opt);
  REQUIRE(!r.empty());
  CHECK(r[0].lexical_rank == 0);
  for (const auto& x : r) CHECK(x.score >= 0.2f);
  std::vector<float> out(8);
  CHECK(!c.vector(r[0].label, out.data()));
  std::vector<float> v(8, 1.f);
  Chunk chunk;
  chunk.id = "y";
  chunk.text = "t";
  CHECK_THROWS_AS(c.Add({chunk}, v.data(), 1), Error);
}

TEST_CASE("a stored HNSW graph that names a chunk the collection does not have is refused", "[collection]") {
  Collection c("small", test::FakeModel(16));
  auto chunks = ChunkDocument(test::Seeds()[2].name, test::Seeds()[2].text);
  chunks.resize(3);
  auto vectors = test::FakeEmbedChunks(chunks, 16);
  c.Add(chunks, vectors.data(), chunks.size());
  // The three chunks' vectors, and one more under label 7: a search could return it.
  HnswIndex graph(16);
  for (uint32_t i = 0; i < 3; ++i) graph.Add(i, vectors.data() + i * 16);
  graph.Add(7, vectors.data());
  Bytes bytes;
  ByteWriter w(bytes);
  graph.Save(w, true);
  ByteReader r(bytes.data(), bytes.size(), "hnsw");
  try {
    c.LoadHnsw(r, 8, true);
    FAIL("a graph with a label beyond the chunks loaded");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorruptData);
    CHECK(std::string(e.what()).find("no vector") != std::string::npos);  // the store has no row 7
  }
  // Without its vectors (pack version 4), likewise.
  Bytes lean;
  ByteWriter w2(lean);
  graph.Save(w2, false);
  ByteReader r2(lean.data(), lean.size(), "hnsw");
  try {
    c.LoadHnsw(r2);
    FAIL("a graph naming a label with no vector loaded");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kCorruptData);
    CHECK(std::string(e.what()).find("no vector") != std::string::npos);
  }
}

TEST_CASE("in a collection of many pages, a page that answers as a whole ranks up", "[collection]") {
  Collection c("site", test::FakeModel());
  // The words of "delete remote branch" are spread over git-push's sections;
  // each filler page repeats one of them in a passage of its own.
  std::vector<std::pair<std::string, std::string>> docs = {
      {"git-push.md", "# git-push\n\n## Deleting\n\nUse --delete to delete refs.\n\n## Remotes\n\nThe remote branch is updated.\n"}};
  for (int i = 0; i < 24; ++i) docs.push_back({"page" + std::to_string(i) + ".md", "# Page\n\nSomething about the branch number " + std::to_string(i) + " and more.\n"});
  AddDocuments(c, docs);
  SearchOptions opt;
  opt.k = 5;
  opt.threshold = -1.f;
  opt.page_weight = 0.f;
  auto without = Query(c, "delete remote branch", opt);
  opt.page_weight = 0.5f;
  auto with = Query(c, "delete remote branch", opt);
  REQUIRE(!with.empty());
  CHECK(c.chunk(with[0].label).source == "git-push.md");
  CHECK(with[0].page_score > 0.f);
  for (const SearchResult& s : without) CHECK(s.page_score == 0.f);
  // Passage by passage, a filler page matching one word ranks as high.
  REQUIRE(!without.empty());
  CHECK(with[0].fused > without[0].fused);
}

TEST_CASE("in a collection of many pages, the first results name several pages and scores still fall", "[collection]") {
  Collection c("site", test::FakeModel());
  // One long page says "rebase" in every section; other pages say it once.
  std::string long_page = "# git-rebase\n\n";
  for (int i = 0; i < 8; ++i) long_page += "## Part " + std::to_string(i) + "\n\nRebase the branch, rebase again, rebase onto " + std::to_string(i) + ".\n\n";
  std::vector<std::pair<std::string, std::string>> docs = {{"git-rebase.md", long_page}};
  for (int i = 0; i < 24; ++i) docs.push_back({"page" + std::to_string(i) + ".md", "# Page " + std::to_string(i) + "\n\nOne may rebase here, page " + std::to_string(i) + ".\n"});
  AddDocuments(c, docs);
  SearchOptions opt;
  opt.k = 5;
  opt.threshold = -1.f;
  opt.mode = SearchMode::kLexical;
  auto pages_in = [&](const std::vector<SearchResult>& rs) {
    std::set<std::string> pages;
    for (const SearchResult& s : rs) pages.insert(c.chunk(s.label).source);
    return pages.size();
  };
  opt.page_repeat_penalty = 0.f;
  auto together = c.Search("rebase", nullptr, 0, opt);
  opt.page_repeat_penalty = 0.2f;
  opt.passages_per_page = 1;
  auto spread = c.Search("rebase", nullptr, 0, opt);
  REQUIRE(spread.size() == 5);
  CHECK(pages_in(together) < 3);
  CHECK(pages_in(spread) == 5);
  CHECK(c.chunk(spread[0].label).source == "git-rebase.md");
  for (size_t i = 1; i < spread.size(); ++i) CHECK(spread[i].fused <= spread[i - 1].fused);
}

TEST_CASE("a site's sections (url#anchor) are one page for page evidence and spreading", "[collection]") {
  Collection c("site", test::FakeModel());
  std::vector<std::pair<std::string, std::string>> docs;
  for (int p = 0; p < 24; ++p) {
    for (int s = 0; s < 3; ++s) {
      docs.push_back({"/page" + std::to_string(p) + "/#s" + std::to_string(s),
                      "# Section\n\nRebase notes " + std::to_string(p * 3 + s) + (p == 0 ? " rebase rebase rebase" : "") + ".\n"});
    }
  }
  AddDocuments(c, docs);
  SearchOptions opt;
  opt.k = 5;
  opt.threshold = -1.f;
  opt.mode = SearchMode::kLexical;
  auto found = c.Search("rebase", nullptr, 0, opt);
  REQUIRE(found.size() == 5);
  std::set<std::string> pages;
  for (const SearchResult& s : found) {
    const std::string& source = c.chunk(s.label).source;
    pages.insert(source.substr(0, source.find('#')));
  }
  // Page 0's three sections say it most, but the first five name five pages.
  CHECK(pages.size() == 5);
  CHECK(c.chunk(found[0].label).source.rfind("/page0/#", 0) == 0);
}

TEST_CASE("filters narrow a search to the pages that hold them; fields survive a pack", "[collection][pack]") {
  CollectionOptions hnsw;
  hnsw.hnsw_min_size = 50;  // filtered searches scan exactly even where HNSW serves the rest
  Collection c = SeedCollection(hnsw);
  REQUIRE(c.uses_hnsw());
  // Every passage of the Portuguese seed is in section "pt"; the first one also has a version.
  size_t tagged = 0;
  const uint32_t seeded = static_cast<uint32_t>(c.slots());  // re-added passages take new slots
  for (uint32_t i = 0; i < seeded; ++i) {
    if (!c.alive(i)) continue;
    Chunk chunk = c.chunk(i);
    if (chunk.language != "pt") continue;
    chunk.fields = {{"section", "pt", true}, {"author", "Ana", false}};
    if (tagged++ == 0) chunk.fields.push_back({"version", "2", true});
    std::vector<float> v(128);
    REQUIRE(c.vector(i, v.data()));
    c.Remove(chunk.id);
    chunk.id += "-tagged";
    c.Add({chunk}, v.data(), 1);
  }
  REQUIRE(tagged > 1);
  SearchOptions opt;
  opt.k = 10;
  opt.threshold = -1.f;
  opt.filters = {{"section", {"pt"}}};
  for (SearchMode mode : {SearchMode::kHybrid, SearchMode::kVector, SearchMode::kLexical}) {
    opt.mode = mode;
    auto r = Query(c, "Software 2.0 neural network weights redes neurais", opt);
    REQUIRE(!r.empty());
    for (const auto& x : r) CHECK(c.chunk(x.label).language == "pt");
  }
  opt.mode = SearchMode::kHybrid;
  opt.filters = {{"section", {"pt", "en"}}, {"version", {"2"}}};  // every key holds, any of its values
  auto one = Query(c, "Software 2.0", opt);
  REQUIRE(one.size() == 1);
  opt.filters = {{"section", {"none"}}};
  CHECK(Query(c, "Software 2.0", opt).empty());

  // A pack keeps them, and what loads saves again byte for byte.
  auto bytes = SavePack({&c});
  auto loaded = LoadPack(bytes.data(), bytes.size());
  REQUIRE(loaded.size() == 1);
  const Chunk& back = loaded[0].chunk(one[0].label);
  REQUIRE(back.fields.size() == 3);
  CHECK(back.fields[1] == Field{"author", "Ana", false});
  CHECK(SavePack({&loaded[0]}) == bytes);

  // Bad fields are refused before anything changes.
  Chunk bad = c.chunk(one[0].label);
  bad.id = "bad";
  bad.fields = {{"", "x", true}};
  std::vector<float> v(128, 0.1f);
  CHECK_THROWS_AS(c.Add({bad}, v.data(), 1), Error);
  bad.fields = {{"k", std::string("\xff"), false}};
  CHECK_THROWS_AS(c.Add({bad}, v.data(), 1), Error);
  CHECK_FALSE(c.Find("bad"));
}

TEST_CASE("index kinds and search modes are read by name; others are refused by name", "[collection]") {
  CHECK(ParseIndexKind("auto") == IndexKind::kAuto);
  CHECK(ParseIndexKind("exact") == IndexKind::kExact);
  CHECK(ParseIndexKind("hnsw") == IndexKind::kHnsw);
  CHECK_THROWS_WITH(ParseIndexKind("HNSW"), Catch::Contains("unknown index 'HNSW'"));
  CHECK(ParseSearchMode("hybrid") == SearchMode::kHybrid);
  CHECK_THROWS_WITH(ParseSearchMode(""), Catch::Contains("unknown search mode"));
}

TEST_CASE("HNSW is built where an exact scan would read 8 MiB of vectors, never below 4096 passages", "[collection]") {
  CollectionOptions clients;  // the CLI's and the page's 'auto': float32, int8 from 4096 passages
  clients.int8_from = 4096;
  CHECK(HnswMinSizeFor(256, clients) == kHnswFromScanBytes / 260);  // 32,263 int8 rows of 256 dims
  CHECK(HnswMinSizeFor(768, clients) == kHnswFromScanBytes / 772);
  CollectionOptions floats;
  CHECK(HnswMinSizeFor(256, floats) == kHnswFromScanBytes / 1024);
  CHECK(HnswMinSizeFor(4096, floats) == kHnswMinPassages);
  // Resolved when the collection is made, so its pack carries the count; an explicit count stays.
  Collection c("auto", test::FakeModel(256), clients);
  CHECK(c.options().hnsw_min_size == kHnswFromScanBytes / 260);
  CollectionOptions fixed;
  fixed.hnsw_min_size = 50;
  CHECK(Collection("fixed", test::FakeModel(256), fixed).options().hnsw_min_size == 50);
}

TEST_CASE("the id index finds, adds and removes as a hash map of the same ids does", "[collection]") {
  // Ids of 1 to 3 characters over 4 letters: many share a run, so removal
  // shifts entries back across runs and around the table's end.
  std::vector<std::string> ids;
  for (const char* letters = "abcd"; *letters; ++letters) {
    ids.push_back(std::string(1, *letters));
    for (const char* b = "abcd"; *b; ++b) {
      ids.push_back(std::string{*letters, *b});
      for (const char* c = "abcd"; *c; ++c) ids.push_back(std::string{*letters, *b, *c});
    }
  }
  const auto id_of = [&](uint32_t label) -> std::string_view { return ids[label]; };
  IdIndex index;
  std::unordered_map<std::string, uint32_t> expected;
  uint32_t state = 7;
  const auto next = [&] { return state = state * 1103515245u + 12345u; };
  for (int step = 0; step < 20000; ++step) {
    const auto label = static_cast<uint32_t>((next() >> 8) % ids.size());
    const std::string& id = ids[label];
    const bool held = expected.count(id) > 0;
    REQUIRE(index.Find(id, id_of).has_value() == held);
    if (held) REQUIRE(*index.Find(id, id_of) == label);
    if ((next() >> 8) % 3 == 0) {
      REQUIRE(index.Erase(id, id_of) == (held ? std::optional<uint32_t>(label) : std::nullopt));
      expected.erase(id);
    } else {
      REQUIRE(index.Insert(id, label, id_of) == !held);  // an id held already is not added again
      expected.emplace(id, label);
    }
    REQUIRE(index.size() == expected.size());
  }
  for (uint32_t label = 0; label < ids.size(); ++label) {
    const bool held = expected.count(ids[label]) > 0;
    CHECK(index.Find(ids[label], id_of) == (held ? std::optional<uint32_t>(label) : std::nullopt));
  }
  CHECK_FALSE(index.Find("zz", id_of));
  CHECK_FALSE(index.Erase("zz", id_of).has_value());
}
