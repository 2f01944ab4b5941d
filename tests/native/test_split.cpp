#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

#include "core/collection/pack.h"
#include "core/collection/split.h"
#include "core/embed/static_model.h"
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
      else if (name[0] == 'm') l.index.AddMatches(i, files.matches[i].data(), files.matches[i].size());
      else l.index.AddPages(i, files.pages[i].data(), files.pages[i].size(), l.part);
      l.fetched.insert(name);
    }
  }
  FAIL("a query still misses parts after four rounds");
}

// How many parts of a kind ('t', 'p', 'm') a query fetched.
size_t Fetched(const Loaded& l, char kind) {
  return static_cast<size_t>(std::count_if(l.fetched.begin(), l.fetched.end(), [kind](const std::string& n) { return n[0] == kind; }));
}

// Whether `id` is among the first five of `whole`'s results.
bool AmongFirstFive(const Collection& whole, const std::vector<SearchResult>& results, const std::string& id) {
  for (size_t i = 0; i < 5 && i < results.size(); ++i) {
    if (whole.chunk(results[i].label).id == id) return true;
  }
  return false;
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
    CHECK(AmongFirstFive(whole, h, l.part.chunk(k[0].label).id));
  }
  const size_t pages = Fetched(l, 'p');
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

namespace {

// Piece matching with the default model: its tokenizer and whole table.
struct Matched {
  std::shared_ptr<const Tokenizer> tok;
  std::shared_ptr<StaticModel> full;
  ModelInfo info;
  std::vector<float> Embed(const StaticModel& m, const std::string& text) const {
    std::vector<int32_t> ids = tok->Encode(text).ids;
    std::vector<float> v(m.dims());
    m.Embed(ids.data(), ids.size(), v.data());
    return v;
  }
};

Matched DefaultModel() {
  const std::string dir = std::string(VESPER_MODELS_DIR) + "/default/";
  SpecialTokenPolicy policy;
  policy.add_bos = policy.add_eos = false;
  Matched m{Tokenizer::FromBytes(test::ReadFile(dir + "tokenizer.model"), policy),
            StaticModel::FromBytes(test::ReadFile(dir + "model.vtab")), {}};
  m.info.id = "vesper-default";
  m.info.dims = static_cast<uint32_t>(m.full->dims());
  return m;
}

// The first `per_seed` passages of each seed, one page per passage.
Collection MatchedSite(const Matched& m, size_t per_seed) {
  Collection c("site", m.info);
  c.EnablePieceMatch(std::make_shared<PieceMatcher>(m.full), m.tok);
  for (const auto& seed : test::Seeds()) {
    std::vector<Chunk> chunks = ChunkDocument(seed.name, seed.text);
    chunks.resize(std::min(chunks.size(), per_seed));
    std::vector<float> vectors;
    for (size_t i = 0; i < chunks.size(); ++i) {
      chunks[i].source = seed.name + "/" + std::to_string(i);
      auto v = m.Embed(*m.full, chunks[i].text);
      vectors.insert(vectors.end(), v.begin(), v.end());
    }
    c.Add(std::move(chunks), vectors.data(), vectors.size() / m.full->dims());
  }
  return c;
}

// Every part of a split, into a collection matching with `model`.
Loaded OpenWhole(const SplitFiles& files, const Matched& m, std::shared_ptr<StaticModel> model) {
  Loaded l = Open(files);
  l.part.EnablePieceMatch(std::make_shared<PieceMatcher>(std::move(model)), m.tok);
  for (uint32_t i = 0; i < files.terms.size(); ++i) l.index.AddTerms(i, files.terms[i].data(), files.terms[i].size());
  for (uint32_t i = 0; i < files.matches.size(); ++i) l.index.AddMatches(i, files.matches[i].data(), files.matches[i].size());
  for (uint32_t i = 0; i < files.pages.size(); ++i) l.index.AddPages(i, files.pages[i].data(), files.pages[i].size(), l.part);
  return l;
}

}  // namespace

TEST_CASE("a split's neighbour lists score piece matching as the rows do, with no passage's rows", "[split]") {
  const Matched m = DefaultModel();
  const Collection whole = MatchedSite(m, 1);
  SplitOptions o;
  o.match_neighbors = 255;  // more than the corpus's pieces: every cosine is listed, none assumed
  o.match_fragment_pieces = 4096;
  REQUIRE(std::count(whole.KnownPieces().begin(), whole.KnownPieces().end(), 1) <= 255);
  const SplitFiles files = SplitCollection(whole, o);
  REQUIRE(files.matches.size() == (m.full->vocab() + 4095) / 4096);
  // A page's model holds no row at all: passages are added and matched without any.
  std::shared_ptr<StaticModel> sparse = StaticModel::Sparse(static_cast<uint32_t>(m.full->vocab()), static_cast<uint32_t>(m.full->dims()));
  Loaded l = OpenWhole(files, m, sparse);
  REQUIRE(l.part.size() == whole.size());
  CHECK(sparse->held() == 0);
  for (const std::string& q : kQueries) {
    INFO(q);
    // The query's own rows are all it needs (to embed it and weigh its pieces).
    std::vector<int32_t> ids = m.tok->Encode(q).ids;
    std::sort(ids.begin(), ids.end());
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    const std::vector<uint8_t> rows = m.full->RowSet(ids);
    sparse->AddRows(std::string_view(reinterpret_cast<const char*>(rows.data()), rows.size()));
    SearchOptions opt;
    opt.threshold = -1.f;
    const auto a = whole.Search(q, m.Embed(*m.full, q).data(), m.full->dims(), opt);
    const auto b = l.part.Search(q, m.Embed(*sparse, q).data(), m.full->dims(), opt);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].match_score < 0.f) continue;
      // Cosines as bytes: within a rounding step of the rows' own.
      const auto same = std::find_if(b.begin(), b.end(), [&](const SearchResult& r) { return l.part.chunk(r.label).id == whole.chunk(a[i].label).id; });
      REQUIRE(same != b.end());
      CHECK(same->match_score == Approx(a[i].match_score).margin(2.5f / 255.f));
    }
    CHECK(whole.chunk(a[0].label).id == l.part.chunk(b[0].label).id);
  }
}

TEST_CASE("a query fetches the neighbour lists of its own pieces and ranks near the whole", "[split]") {
  const Matched m = DefaultModel();
  const Collection whole = MatchedSite(m, 8);
  const SplitFiles files = SplitCollection(whole, SmallParts());  // 16 neighbours, the default pieces a fragment
  const size_t per = SplitOptions{}.match_fragment_pieces;
  REQUIRE(files.matches.size() == (m.full->vocab() + per - 1) / per);
  Loaded l = Open(files);
  l.part.EnablePieceMatch(std::make_shared<PieceMatcher>(m.full), m.tok);
  for (const std::string& q : kQueries) {
    INFO(q);
    Fetch(l, files, q);
    SearchOptions opt;
    opt.threshold = -1.f;
    const auto h = whole.Search(q, m.Embed(*m.full, q).data(), m.full->dims(), opt);
    const auto k = l.part.Search(q, m.Embed(*m.full, q).data(), m.full->dims(), opt);
    REQUIRE(!k.empty());
    CHECK(AmongFirstFive(whole, h, l.part.chunk(k[0].label).id));
  }
  const size_t matches = Fetched(l, 'm');
  CHECK(matches > 0);
  CHECK(matches < files.matches.size() / 10);
  // A fragment's lists are checked: offered as another, or damaged.
  CHECK_THROWS_AS(l.index.AddMatches(1, files.matches[2].data(), files.matches[2].size()), Error);
  Bytes damaged = files.matches[0];
  damaged[30] ^= 1;
  CHECK_THROWS_AS(l.index.AddMatches(0, damaged.data(), damaged.size()), Error);
}
