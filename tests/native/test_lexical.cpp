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
  a.Remove(0);
  b.Add(0, "");
  b.Remove(0);
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
  CHECK_THROWS_AS(a.Remove(0), Error);
  CHECK_THROWS_AS(a.Search(std::string("\xFF", 1), 10, ha), Error);
}
