#include <catch2/catch.hpp>

#include "core/lexical/bm25.h"
#include "core/util/error.h"

using namespace vesper;

TEST_CASE("BM25 ranks by term rarity and frequency", "[lexical]") {
  Bm25Index bm25;
  bm25.Add(0, "The cat sat on the mat.");
  bm25.Add(1, "Tesla dropped LiDAR and bet on cameras for self-driving.");
  bm25.Add(2, "Cameras, cameras everywhere: the fleet is the dataset.");
  bm25.Add(3, "Backpropagation is just the chain rule applied recursively.");
  std::vector<Hit> hits;
  bm25.Search("cameras", 10, hits);
  REQUIRE(hits.size() == 2);
  CHECK(hits[0].label == 2);  // two occurrences
  CHECK(hits[1].label == 1);
  for (auto& h : hits) {
    CHECK(h.score > 0.f);
    CHECK(h.score <= 1.f);
  }
  bm25.Search("the", 10, hits);
  for (auto& h : hits) CHECK(h.score < 0.5f);  // a common word alone scores low
  bm25.Search("quantum chromodynamics", 10, hits);
  CHECK(hits.empty());
}

TEST_CASE("BM25 matches Portuguese without accents and Chinese by bigrams", "[lexical]") {
  Bm25Index bm25;
  bm25.Add(0, "A Tesla usa só câmeras; a decisão foi polêmica.");
  bm25.Add(1, "特斯拉只用摄像头，放弃了激光雷达。");
  bm25.Add(2, "Redes neurais aprendem com dados.");
  std::vector<Hit> hits;
  bm25.Search("CAMERAS decisao", 10, hits);
  REQUIRE(!hits.empty());
  CHECK(hits[0].label == 0);
  bm25.Search("激光雷达", 10, hits);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].label == 1);
  bm25.Search("摄像头", 10, hits);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].label == 1);
  CHECK(bm25.Score("摄像头", 1) == Approx(hits[0].score));
}

TEST_CASE("BM25 removal keeps statistics consistent", "[lexical]") {
  Bm25Index a, b;
  a.Add(0, "alpha beta");
  a.Add(1, "beta gamma");
  a.Add(2, "gamma delta");
  a.Remove(0, "alpha beta");
  b.Add(0, "");
  b.Remove(0, "");
  b.Add(1, "beta gamma");
  b.Add(2, "gamma delta");
  std::vector<Hit> ha, hb;
  a.Search("beta gamma", 10, ha);
  b.Search("beta gamma", 10, hb);
  REQUIRE(ha.size() == hb.size());
  for (size_t i = 0; i < ha.size(); ++i) {
    CHECK(ha[i].label == hb[i].label);
    CHECK(ha[i].score == Approx(hb[i].score));
  }
  a.Search("alpha", 10, ha);
  CHECK(ha.empty());
  CHECK_THROWS_AS(a.Remove(0, "alpha beta"), Error);
  CHECK_THROWS_AS(a.Search(std::string("\xFF", 1), 10, ha), Error);
}

TEST_CASE("BM25 over pages sums a page's passages and counts pages for idf", "[lexical]") {
  Bm25Index bm25;
  // Page 0 spreads "delete" and "remote" over two passages; page 1 holds
  // "delete" alone; page 2 neither word.
  bm25.Add(0, "how to delete a branch");
  bm25.Add(1, "the remote server keeps its own copy");
  bm25.Add(2, "delete a file from the index");
  bm25.Add(3, "unrelated words about cooking pasta");
  const std::vector<uint32_t> page_of = {0, 0, 1, 2};
  std::vector<float> pages;
  bm25.ScoreGroups("delete remote", page_of, 3, pages);
  REQUIRE(pages.size() == 3);
  CHECK(pages[0] > pages[1]);
  CHECK(pages[1] > 0.f);
  CHECK(pages[2] == 0.f);
  CHECK(pages[0] <= 1.f);
  // No passage alone holds both words: page evidence is what finds page 0.
  std::vector<Hit> hits;
  bm25.Search("delete remote", 4, hits);
  for (const Hit& h : hits) CHECK(h.score < pages[0]);
  // A removed passage no longer counts; labels past group_of and bad groups are skipped.
  bm25.Remove(1, "the remote server keeps its own copy");
  bm25.ScoreGroups("delete remote", page_of, 3, pages);
  CHECK(pages[0] < 0.6f);
  bm25.ScoreGroups("delete remote", {5, 5}, 3, pages);
  CHECK(pages == std::vector<float>(3, 0.f));
}

TEST_CASE("function words neither score nor count in what a query could score", "[lexical]") {
  Bm25Index bm25;
  bm25.Add(0, "Tesla bet on cameras instead of lidar");
  bm25.Add(1, "why did the model fail and what did it do");
  std::vector<Hit> content, asked;
  bm25.Search("tesla cameras", 2, content);
  bm25.Search("Why did the Tesla cameras do it?", 2, asked);
  REQUIRE(content.size() == 1);
  // Asked in a whole sentence, the same content words score the same.
  REQUIRE(asked.size() == 1);
  CHECK(asked[0].label == 0);
  CHECK(asked[0].score == Approx(content[0].score));
  std::vector<Hit> none;
  bm25.Search("why did the what", 2, none);
  CHECK(none.empty());
  // Framing words no passage holds do not sink the question either.
  std::vector<Hit> framed;
  bm25.Search("Could you explain Tesla cameras in a nutshell, briefly?", 2, framed);
  REQUIRE(framed.size() == 1);
  CHECK(framed[0].score == Approx(content[0].score));
  bm25.Search("Explique basicamente: tesla cameras", 2, framed);
  REQUIRE(framed.size() == 1);
  CHECK(framed[0].score == Approx(content[0].score));
}

TEST_CASE("term coverage: how much of a query the documents hold at all, by rarity", "[lexical]") {
  Bm25Index bm25;
  bm25.Add(0, "Undo the last commit with git reset.");
  bm25.Add(1, "Create a branch and switch to it with git switch.");
  bm25.Add(2, "Delete a branch on the remote with git push.");
  bm25.Add(3, "Remember your password with a credential helper in git.");
  CHECK(bm25.Coverage("how do I undo my last commit") == Approx(1.f));
  CHECK(bm25.Coverage("how do I renew my passport") == Approx(0.f));
  // One word held, one not: the held word weighs by its rarity, the unknown
  // one as the rarest; a word every document holds ("git") weighs least.
  const float half = bm25.Coverage("delete passport");
  CHECK(half > 0.3f);
  CHECK(half < 0.5f);
  CHECK(bm25.Coverage("git passport") < half);
  CHECK(bm25.Coverage("how do I") == 0.f);  // function words only
  CHECK(bm25.Coverage("") == 0.f);

  // A translation: a group is held when one alternative has all its words.
  const std::vector<std::vector<std::string>> held = {{"undo", "cancel"}, {"last commit", "final commit"}};
  CHECK(bm25.CoverageOfAlternatives(held) == Approx(1.f));
  const std::vector<std::vector<std::string>> part = {{"delete", "erase"}, {"passport"}};
  CHECK(bm25.CoverageOfAlternatives(part) == Approx(half));
  const std::vector<std::vector<std::string>> none = {{"renew"}, {"passport", "travel document"}};
  CHECK(bm25.CoverageOfAlternatives(none) == 0.f);
  CHECK(bm25.CoverageOfAlternatives({}) == 0.f);
}
