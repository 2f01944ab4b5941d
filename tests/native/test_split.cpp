#include <catch2/catch.hpp>

#include <set>

#include "core/collection/pack.h"
#include "core/collection/split.h"
#include "core/util/error.h"
#include "fake_embedder.h"
#include "helpers.h"

using namespace vesper;

namespace {

constexpr size_t kDims = 128;

// The seeds cut at their headings into pages of their own ("001.../3.md"): dozens of pages in three languages, so page evidence
// (kMinPagesForPageEvidence) is in play.
Collection Site() {
  Collection c("site", test::FakeModel(kDims));
  for (const auto& seed : test::Seeds()) {
    size_t at = 0, page = 0;
    while (at < seed.text.size()) {
      size_t next = seed.text.find("\n#", at + 1);
      if (next == std::string::npos) next = seed.text.size();
      auto chunks = ChunkDocument(seed.name + "/" + std::to_string(page++) + ".md", seed.text.substr(at, next - at));
      auto vectors = test::FakeEmbedChunks(chunks, kDims);
      c.Add(std::move(chunks), vectors.data(), vectors.size() / kDims);
      at = next;
    }
  }
  return c;
}

struct Loaded {
  SplitIndex index;
  Collection part;
  std::set<std::string> fetched;
};

// Fetches what Missing names until it names nothing, as a page does.
void Fetch(Loaded& l, const SplitFiles& files, const std::string& query) {
  for (int round = 0; round < 4; ++round) {
    const auto missing = l.index.Missing(query, l.part);
    if (missing.empty()) return;
    for (const std::string& name : missing) {
      const uint32_t i = static_cast<uint32_t>(std::stoul(name.substr(1)));
      if (name[0] == 't') l.index.AddTerms(i, files.terms[i].data(), files.terms[i].size());
      else l.index.AddPages(i, files.pages[i].data(), files.pages[i].size(), l.part);
      l.fetched.insert(name);
    }
  }
  FAIL("a query still misses parts after four rounds");
}

Loaded Open(const SplitFiles& files) {
  SplitIndex index = SplitIndex::Load(files.entry.data(), files.entry.size());
  Collection part = index.MakeCollection();
  return Loaded{std::move(index), std::move(part), {}};
}

std::vector<SearchResult> Search(const Collection& c, const std::string& q, SearchMode mode) {
  SearchOptions opt;
  opt.mode = mode;
  opt.threshold = -1.f;
  auto v = test::FakeEmbed(q, kDims);
  return c.Search(q, v.data(), v.size(), opt);
}

const std::vector<std::string> kQueries = {"Why did Tesla bet on cameras instead of LiDAR?", "o que é Software 2.0",
                                           "神经网络训练的秘诀", "tokenization quirks"};

SplitOptions SmallParts() {
  SplitOptions o;
  o.term_fragment_bytes = 512;
  o.page_fragment_bytes = 2048;
  return o;
}

}  // namespace

TEST_CASE("a split index with every part loaded scores as the whole collection", "[split]") {
  const Collection whole = Site();
  REQUIRE(whole.pages() >= 20);
  const SplitFiles files = SplitCollection(whole, SmallParts());
  CHECK(files.terms.size() > 10);
  CHECK(files.pages.size() > 5);
  Loaded l = Open(files);
  for (uint32_t i = 0; i < files.terms.size(); ++i) l.index.AddTerms(i, files.terms[i].data(), files.terms[i].size());
  for (uint32_t i = 0; i < files.pages.size(); ++i) l.index.AddPages(i, files.pages[i].data(), files.pages[i].size(), l.part);
  REQUIRE(l.part.size() == whole.size());
  for (const std::string& q : kQueries) {
    INFO(q);
    // Lexical scores (passages and pages) from the corpus's counts, exactly.
    const auto a = Search(whole, q, SearchMode::kLexical), b = Search(l.part, q, SearchMode::kLexical);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      CHECK(whole.chunk(a[i].label).id == l.part.chunk(b[i].label).id);
      CHECK(b[i].lexical_score == Approx(a[i].lexical_score).margin(1e-5));
      CHECK(b[i].page_score == Approx(a[i].page_score).margin(1e-5));
    }
    // Hybrid: the same first results (vectors come back from int8, so cosines differ in the third decimal).
    const auto h = Search(whole, q, SearchMode::kHybrid), k = Search(l.part, q, SearchMode::kHybrid);
    REQUIRE(h.size() >= 3);
    for (size_t i = 0; i < 3; ++i) CHECK(whole.chunk(h[i].label).id == l.part.chunk(k[i].label).id);
  }
}

TEST_CASE("a query fetches the parts its words need and finds what the whole collection finds first", "[split]") {
  const Collection whole = Site();
  const SplitFiles files = SplitCollection(whole, SmallParts());
  Loaded l = Open(files);
  for (const std::string& q : {std::string("Why did Tesla bet on cameras instead of LiDAR?"), std::string("tokenization quirks")}) {
    INFO(q);
    Fetch(l, files, q);
    const auto a = Search(whole, q, SearchMode::kLexical), b = Search(l.part, q, SearchMode::kLexical);
    REQUIRE(!b.empty());
    CHECK(whole.chunk(a[0].label).id == l.part.chunk(b[0].label).id);
    CHECK(b[0].lexical_score == Approx(a[0].lexical_score).margin(1e-5));
    // Hybrid's first result is one of the whole's first five (a passage the
    // vectors alone find, on a page no query word points to, can be missed).
    const auto h = Search(whole, q, SearchMode::kHybrid), k = Search(l.part, q, SearchMode::kHybrid);
    std::set<std::string> top;
    for (size_t i = 0; i < 5 && i < h.size(); ++i) top.insert(whole.chunk(h[i].label).id);
    CHECK(top.count(l.part.chunk(k[0].label).id));
  }
  size_t pages = 0;
  for (const std::string& name : l.fetched) pages += name[0] == 'p';
  CHECK(pages > 0);
  CHECK(pages < files.pages.size());
  CHECK(l.part.size() < whole.size());
  // Asked again, nothing is missing.
  CHECK(l.index.Missing("tokenization quirks", l.part).empty());
}

TEST_CASE("a split index refuses damaged or foreign parts", "[split]") {
  const Collection whole = Site();
  SplitFiles files = SplitCollection(whole, SmallParts());
  auto code = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return e.code();
    }
    return ErrorCode::kInternal;
  };
  Bytes entry = files.entry;
  entry[40] ^= 1;
  CHECK(code([&] { SplitIndex::Load(entry.data(), entry.size()); }) == ErrorCode::kCorruptData);
  CHECK(code([&] { SplitIndex::Load(entry.data(), 10); }) == ErrorCode::kCorruptData);
  Bytes newer = files.entry;
  newer[8] = 9;
  CHECK(code([&] { SplitIndex::Load(newer.data(), newer.size()); }) == ErrorCode::kUnsupported);
  Loaded l = Open(files);
  // A fragment offered as another one, a term out of its range.
  CHECK(code([&] { l.index.AddTerms(1, files.terms[2].data(), files.terms[2].size()); }) == ErrorCode::kCorruptData);
  CHECK(code([&] { l.index.AddTerms(99999, files.terms[0].data(), files.terms[0].size()); }) == ErrorCode::kNotFound);
  // A page fragment of another model's collection.
  Collection other("site", test::FakeModel(64));
  auto chunks = ChunkDocument("x.md", "some other text about cameras");
  auto vectors = test::FakeEmbedChunks(chunks, 64);
  other.Add(std::move(chunks), vectors.data(), 1);
  const Bytes foreign = SavePack({&other});
  CHECK(code([&] { l.index.AddPages(0, foreign.data(), foreign.size(), l.part); }) == ErrorCode::kModelMismatch);
  // Pages go only into a collection the index made.
  Collection stranger("site", test::FakeModel(kDims));
  CHECK(code([&] { l.index.AddPages(0, files.pages[0].data(), files.pages[0].size(), stranger); }) == ErrorCode::kInvalidArgument);
  CHECK(code([&] { SplitCollection(Collection("empty", test::FakeModel(kDims))); }) == ErrorCode::kInvalidArgument);
}
