// The per-query answerability decision, the user-facing Query() over a
// collection, meta chunks, and the piece matcher that reranks static models.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/collection/pack.h"
#include "core/search/answerability.h"
#include "core/search/piece_match.h"
#include "core/search/query.h"
#include "core/text/language.h"
#include "core/util/error.h"
#include "fake_embedder.h"

using namespace vesper;

namespace {

constexpr size_t kDims = 128;

Collection Notes() {
  Collection c("notes", test::FakeModel(kDims));
  std::vector<Chunk> chunks;
  const char* texts[] = {"Cameras see lanes, signs and people on the road.",
                         "Gradient descent walks downhill on the loss surface.",
                         "Tokenizers split text into pieces before the model sees it.",
                         "How do cameras compare with lasers? Ask me about cameras."};
  for (size_t i = 0; i < 4; ++i) {
    Chunk ch;
    ch.id = "c" + std::to_string(i);
    ch.text = texts[i];
    ch.language = "en";
    ch.meta = i == 3;  // an example question, not content
    chunks.push_back(ch);
  }
  auto vectors = test::FakeEmbedChunks(chunks, kDims);
  c.Add(std::move(chunks), vectors.data(), 4);
  return c;
}

QueryResponse Ask(const Collection& c, const std::string& q, QueryOptions o = {}) {
  auto v = test::FakeEmbed(q, kDims);
  return Query(c, q, v.data(), v.size(), o);
}

// A static model of `rows` (each dims floats) in the core's table format.
std::shared_ptr<StaticModel> Table(const std::vector<std::vector<float>>& rows) {
  std::string bytes = "VSTM";
  auto u32 = [&](uint32_t x) { bytes.append(reinterpret_cast<const char*>(&x), 4); };
  u32(1);
  u32(static_cast<uint32_t>(rows.size()));
  u32(static_cast<uint32_t>(rows[0].size()));
  u32(0);
  for (const auto& r : rows) bytes.append(reinterpret_cast<const char*>(r.data()), r.size() * 4);
  return std::shared_ptr<StaticModel>(StaticModel::FromBytes(bytes));
}

}  // namespace

TEST_CASE("a calibration reads from the manifest's JSON and refuses what it cannot use", "[answerability]") {
  Answerability a = Answerability::FromJson(
      R"({"floor": 0.1, "languages": {"en": {"bias": -1, "weights": {"best_cosine": 4}}, "*": {"bias": -2, "weights": {}}}})");
  CHECK(a.calibrated);
  CHECK(a.floor == Approx(0.1f));
  QueryEvidence e;
  e.has_vectors = true;
  e.language = "en";
  e.best_cosine = 0.3f;  // -1 + 4 * 0.3 = 0.2 >= 0
  CHECK(Decide(a, e).answerable);
  CHECK(Decide(a, e).confidence == Approx(1.f / (1.f + std::exp(-0.2f))));
  CHECK_FALSE(Decide(a, e).unsure);
  e.best_cosine = 0.1f;  // -0.6: refused, but with confidence 0.35 (>= kUnsureConfidence): unsure
  CHECK_FALSE(Decide(a, e).answerable);
  CHECK(Decide(a, e).unsure);
  e.language = "pt";  // falls back to "*": -2 + 0: confidence 0.12, clearly refused
  CHECK_FALSE(Decide(a, e).answerable);
  CHECK_FALSE(Decide(a, e).unsure);
  for (const char* bad : {"[]", "{\"languages\": {}}", R"({"languages": {"en": {"bias": 0, "weights": {}}}})",
                          R"({"languages": {"*": {"bias": 0, "weights": {"shoe_size": 1}}}})",
                          R"({"languages": {"*": {"bias": "high", "weights": {}}}})", "not json"}) {
    INFO(bad);
    CHECK_THROWS_AS(Answerability::FromJson(bad), Error);
  }
  CHECK_FALSE(Answerability::FromJson(R"({"calibrated": false, "languages": {"*": {"bias": 0, "weights": {}}}})").calibrated);
}

TEST_CASE("a query that nearly repeats a passage is answerable whatever the fitted weights say", "[answerability]") {
  // As the default model's fit weighs it: a query whose words are in every
  // passage (high typical piece match) is refused, though it is a heading.
  Answerability a = Answerability::FromJson(
      R"({"languages": {"*": {"bias": -1, "weights": {"best_match": -8, "best_cosine": 1}}}})");
  QueryEvidence e;
  e.has_vectors = true;
  e.language = "en";
  e.best_match = 1.25f;
  e.best_cosine = kNearCopyCosine - 0.01f;
  CHECK_FALSE(Decide(a, e).answerable);
  e.best_cosine = 0.99f;  // "Who is Andrej Karpathy?" against the section of that title
  CHECK(Decide(a, e).answerable);
  CHECK(Decide(a, e).confidence == Approx(0.99f));
  // An uncalibrated bar is the user's: above it only.
  Answerability bar = Answerability::Uncalibrated(0.995f);
  CHECK_FALSE(Decide(bar, e).answerable);
}

TEST_CASE("without a calibration the decision is a cosine bar; lexical evidence decides lexical searches", "[answerability]") {
  Answerability bar = Answerability::Uncalibrated(0.35f);
  QueryEvidence e;
  e.has_vectors = true;
  e.best_cosine = 0.36f;
  CHECK(Decide(bar, e).answerable);
  e.best_cosine = 0.34f;
  CHECK_FALSE(Decide(bar, e).answerable);
  CHECK_FALSE(Decide(bar, e).unsure);  // confidence 0.45, but an uncalibrated bar is never "unsure"
  QueryEvidence lexical;
  lexical.best_lexical = Answerability::kDefaultLexicalCut + 0.01f;
  CHECK(Decide(bar, lexical).answerable);
  lexical.best_lexical = Answerability::kDefaultLexicalCut - 0.01f;
  CHECK_FALSE(Decide(bar, lexical).answerable);
}

TEST_CASE("Query decides once: nothing is shown for an unanswerable query, at most k for an answerable one", "[query]") {
  Collection c = Notes();
  c.set_answerability(Answerability::Uncalibrated(0.3f));
  QueryResponse hit = Ask(c, "cameras lanes signs road");
  REQUIRE(hit.decision.answerable);
  REQUIRE(hit.results.size() == 4);  // ranked deeper than shown
  CHECK(hit.shown[0]);
  CHECK(c.chunk(hit.results[0].label).id == "c0");
  QueryOptions one;
  one.k = 1;
  CHECK(Ask(c, "cameras lanes signs road", one).shown_count() == 1);
  // The slider filters what is shown under an answerable query.
  QueryOptions strict;
  strict.min_score = 0.99f;
  CHECK(Ask(c, "cameras lanes signs road", strict).shown_count() == 0);
  QueryResponse miss = Ask(c, "sourdough bread recipe");
  CHECK_FALSE(miss.decision.answerable);
  CHECK(miss.shown_count() == 0);
  CHECK_FALSE(miss.results.empty());  // the near misses are still ranked
  CHECK(miss.evidence.best_cosine < 0.3f);
  CHECK(miss.evidence.typical_cosine < miss.evidence.best_cosine);
}

// A collection of `n` passages, passage i being texts[i % size].
Collection Small(size_t n) {
  Collection c("small", test::FakeModel(kDims));
  const char* texts[] = {"Cameras cost tens of dollars; lidar cost thousands.",
                         "Tesla chose cameras over lidar because vision scales with the fleet.",
                         "Gradient descent walks downhill on the loss surface."};
  std::vector<Chunk> chunks;
  for (size_t i = 0; i < n; ++i) {
    Chunk ch;
    ch.id = "s" + std::to_string(i);
    ch.text = texts[i % 3];
    ch.language = "en";
    chunks.push_back(ch);
  }
  auto vectors = test::FakeEmbedChunks(chunks, kDims);
  c.Add(std::move(chunks), vectors.data(), n);
  return c;
}

TEST_CASE("a small site's evidence: the typical passage is not its answer, and a two-word query's words count", "[query]") {
  // Two passages, both about the question: their mean is the answer itself,
  // so the margin between the best passage and the typical one vanished and
  // every question of a small site was "not covered".
  Collection two = Small(2);
  QueryResponse r = Ask(two, "Tesla chose cameras over lidar because vision scales with the fleet.");
  REQUIRE(r.evidence.best_cosine > 0.9f);
  CHECK(r.evidence.typical_cosine < 0.1f * r.evidence.best_cosine);
  // From 300 passages on (kTypicalPassages), the typical cosine is the mean passage's, as before.
  Collection many = Small(301);
  QueryResponse m = Ask(many, "Tesla chose cameras over lidar because vision scales with the fleet.");
  CHECK(m.evidence.typical_cosine > 0.3f);
  // "lidar cost" is too short to tell its language: its words still count
  // as lexical evidence over passages in any language.
  QueryResponse und = Ask(two, "lidar cost");
  CHECK(und.evidence.language == kUndeterminedLanguage);
  CHECK(und.evidence.best_lexical > 0.f);
  CHECK(und.evidence.same_language);
}

TEST_CASE("a passage in another language yields its place to its translation in the query's language", "[query]") {
  // Four passages: a Portuguese text, its English twin (cosine 0.9), an
  // English passage on something else, and a Portuguese one.
  constexpr size_t kTwinDims = 4;
  const std::vector<std::vector<float>> rows = {
      {1.f, 0.f, 0.f, 0.f}, {0.9f, 0.43589f, 0.f, 0.f}, {0.f, 0.f, 1.f, 0.f}, {0.6f, 0.f, 0.f, 0.8f}};
  const char* languages[] = {"pt", "en", "en", "pt"};
  Collection c("twins", test::FakeModel(kTwinDims));
  std::vector<Chunk> chunks;
  std::vector<float> vectors;
  for (size_t i = 0; i < rows.size(); ++i) {
    Chunk ch;
    ch.id = "t" + std::to_string(i);
    ch.text = "passage " + std::to_string(i);
    ch.language = languages[i];
    chunks.push_back(ch);
    vectors.insert(vectors.end(), rows[i].begin(), rows[i].end());
  }
  c.Add(std::move(chunks), vectors.data(), rows.size());
  const std::vector<float> query = {0.98f, 0.f, 0.199f, 0.f};
  SearchOptions opt;  // hybrid: no word is shared, so the ranking is the cosine's
  opt.k = 4;
  opt.threshold = -1.f;
  auto ids = [&](const std::vector<SearchResult>& r) {
    std::vector<std::string> out;
    for (const auto& x : r) out.push_back(c.chunk(x.label).id);
    return out;
  };
  const auto english = c.Search("Why did the company drop the sensor?", query.data(), kTwinDims, opt);
  CHECK(ids(english) == std::vector<std::string>{"t1", "t0", "t3", "t2"});
  CHECK(english[0].fused == english[1].fused);  // the twin takes the place's score: still monotonic
  for (size_t i = 1; i < english.size(); ++i) CHECK(english[i].fused <= english[i - 1].fused);
  // Asked in Portuguese, or with the rule off, the ranking's own order.
  CHECK(ids(c.Search("Por que a empresa abandonou o sensor?", query.data(), kTwinDims, opt)) ==
        std::vector<std::string>{"t0", "t1", "t3", "t2"});
  opt.twin_cosine = 0.f;
  CHECK(ids(c.Search("Why did the company drop the sensor?", query.data(), kTwinDims, opt)) ==
        std::vector<std::string>{"t0", "t1", "t3", "t2"});
}

TEST_CASE("meta chunks rank below content and keep their mark in a pack", "[query]") {
  Collection c = Notes();
  // The meta chunk shares the most words with the query, yet content comes first.
  auto v = test::FakeEmbed("How do cameras compare?", kDims);
  SearchOptions o;
  o.threshold = -1.f;
  o.meta_penalty = 10.f;
  auto ranked = c.Search("How do cameras compare?", v.data(), v.size(), o);
  REQUIRE(ranked.size() == 4);
  CHECK(c.chunk(ranked.back().label).id == "c3");
  Bytes bytes = SavePack({&c});
  std::vector<Collection> loaded = LoadPack(bytes.data(), bytes.size());
  REQUIRE(loaded.size() == 1);
  auto label = loaded[0].Find("c3");
  REQUIRE(label);
  CHECK(loaded[0].chunk(*label).meta);
  CHECK_FALSE(loaded[0].chunk(*loaded[0].Find("c0")).meta);
}

TEST_CASE("the chunker marks sections under the persona's meta headings", "[query][chunker]") {
  ChunkerOptions o;
  o.meta_headings = {"Examples of Ideal Questions"};
  std::string doc =
      "# Guide\n\n## Overview\n\nThe guide explains the tool in enough words to be a paragraph of its own.\n\n"
      "## examples of ideal questions\n\nWhat is the tool? How does it work under the hood?\n";
  auto chunks = ChunkDocument("guide.md", doc, o);
  REQUIRE(chunks.size() == 2);
  CHECK_FALSE(chunks[0].meta);
  CHECK(chunks[1].meta);  // case-insensitive
}

TEST_CASE("the chunker marks passages that open as the persona's meta openings", "[query][chunker]") {
  // An unheaded preamble describing the agent: no heading can mark it.
  ChunkerOptions o;
  o.meta_openings = {"Agente que simula"};
  std::string doc =
      "Agente que Simula a persona, o maior educador do mundo. Use quando quiser aprender.\n\n"
      "# Vida\n\nA persona nasceu em 1986 e estudou ciência da computação por muitos anos seguidos.\n";
  auto chunks = ChunkDocument("bio.txt", doc, o);
  REQUIRE(chunks.size() == 2);
  CHECK(chunks[0].meta);  // folded like headings
  CHECK_FALSE(chunks[1].meta);
  o.meta_openings = {"Agente que simula a persona, o maior educador do mundo e mais"};  // longer than it opens with
  CHECK_FALSE(ChunkDocument("bio.txt", doc, o)[0].meta);
}

TEST_CASE("piece matching: each query piece's best cosine in the passage, weighted by the piece's weight", "[query]") {
  // Piece 0 and 1 point the same way (a translation pair), 2 elsewhere; 3 is all zeros.
  auto model = Table({{2, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 0}});
  PieceMatcher m(model);
  const int32_t ids[] = {2, 0, 0, 3, 7};  // duplicates, a zero row and an unknown id are dropped
  CHECK(m.Distinct(ids, 5) == std::vector<int32_t>{0, 2});
  CHECK(m.Score({0}, {1}) == Approx(1.f));
  CHECK(m.Score({0}, {2}) == Approx(0.f));
  // Weights are the rows' norms: piece 0 (norm 2) counts twice piece 2 (norm 1).
  CHECK(m.Score({0, 2}, {1}) == Approx(2.f / 3.f));
  CHECK(m.Coverage({0, 2}, {1}, 0.8f) == Approx(2.f / 3.f));
  CHECK(m.Score({}, {1}) == 0.f);
  std::vector<uint8_t> known = {0, 0, 1, 0};
  CHECK(m.VocabularyCoverage({0, 2}, known, {1, 2}) == Approx(1.f));  // 0 is known through 1
  CHECK(m.VocabularyCoverage({0}, known, {2}) == Approx(0.f));
  // Cosines are kept per query while one query scores many passages: a new
  // query (or the old one again) scores as a fresh matcher does.
  CHECK(m.Score({2}, {1, 2}) == Approx(1.f));
  CHECK(m.Score({0}, {1, 2}) == Approx(1.f));
  CHECK(m.Score({0, 2}, {2}) == Approx(1.f / 3.f));
  CHECK(m.Score({0}, {2}) == Approx(0.f));
  PieceMatcher fresh(model);
  CHECK(m.Score({0, 2}, {1}) == fresh.Score({0, 2}, {1}));
}

TEST_CASE("Query: meta passages can be kept out of what is shown; bad query vectors are refused", "[query]") {
  Collection c = Notes();
  c.set_answerability(Answerability::Uncalibrated(-1.f));  // everything is answerable
  QueryOptions o;
  o.k = 4;
  o.exclude_meta = true;
  QueryResponse r = Ask(c, "How do cameras compare?", o);
  REQUIRE(r.decision.answerable);
  CHECK(r.shown_count() == 3);  // the meta chunk is neither shown nor counted
  for (size_t i = 0; i < r.results.size(); ++i) {
    if (c.chunk(r.results[i].label).meta) CHECK_FALSE(r.shown[i]);
  }
  std::vector<float> nan(kDims, 0.f);
  nan[0] = std::nanf("");
  CHECK_THROWS_AS(Query(c, "cameras", nan.data(), nan.size()), Error);
  // An empty collection still reports what kind of evidence it had.
  Collection empty("empty", test::FakeModel(kDims));
  auto v = test::FakeEmbed("cameras", kDims);
  QueryResponse none = Query(empty, "cameras", v.data(), v.size());
  CHECK(none.results.empty());
  CHECK(none.evidence.has_vectors);
  CHECK_FALSE(Answerability::FromJson(R"({"calibrated": false, "languages": {"*": {"bias": 0, "weights": {}}}})").calibrated);
  CHECK_THROWS_AS(Answerability::FromJson(R"({"calibrated": 0, "languages": {"*": {"bias": 0, "weights": {}}}})"), Error);
}
