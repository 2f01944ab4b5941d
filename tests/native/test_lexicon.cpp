#include <catch2/catch.hpp>

#include <algorithm>

#include "core/collection/collection.h"
#include "core/lexical/bm25.h"
#include "core/lexical/lexicon.h"
#include "core/persona/evidence.h"
#include "core/util/error.h"
#include "fake_embedder.h"
#include "helpers.h"

using namespace vesper;

namespace {

constexpr const char* kTable =
    "# a small trilingual table\n"
    "en\tthe\t-\n"
    "en\twhy\t-\n"
    "en\tdid\t-\n"
    "pt\tpor que\t-\n"
    "pt\to\t-\n"
    "zh\t为什么\t-\n"
    "en\tcamera\tpt\tcâmera|máquina fotográfica\n"
    "en\tcamera\tzh\t摄像头|照相机\n"
    "en\tcar\tpt\tcarro|automóvel\n"
    "en\tneural network\tpt\trede neural\n"
    "en\tneural\tpt\tneural\n"
    "pt\tcâmera\ten\tcamera\n"
    "pt\tcarro\ten\tcar|cart\r\n"
    "zh\t摄像头\ten\tcamera|webcam\n"
    "zh\t摄像\ten\tfilming\n"
    "zh\t特斯拉\ten\tTesla\n";

std::shared_ptr<const Lexicon> Table() { return Lexicon::FromTsv(kTable); }

struct Passage {
  std::string id, text, language;
};

// A collection of passages without vectors, searched by their words.
Collection Passages(const std::string& name, const std::vector<Passage>& passages) {
  Collection c(name, ModelInfo{}, {});
  std::vector<Chunk> chunks(passages.size());
  for (size_t i = 0; i < passages.size(); ++i) {
    chunks[i].id = passages[i].id;
    chunks[i].text = passages[i].text;
    chunks[i].language = passages[i].language;
  }
  c.Add(chunks);
  return c;
}

}  // namespace

TEST_CASE("a lexicon translates content words, longest phrase first, and drops function words", "[lexicon]") {
  auto lex = Table();
  CHECK(lex->Knows("en"));
  CHECK(lex->Knows("zh"));
  CHECK(!lex->Knows("ja"));
  auto groups = lex->Translate("Why did the Camera matter?", "en", "pt");
  REQUIRE(groups.size() == 1);  // "why", "did", "the" dropped; "matter" unknown and lower-case: dropped
  CHECK(groups[0] == TermGroup{"câmera", "máquina fotográfica"});
  groups = lex->Translate("neural network cameras Tesla Xyzzy quux", "en", "pt");
  // The phrase wins over its first word; a plural meets its singular's
  // entry; "Tesla" and "Xyzzy" read as names: kept as they are; "quux" is
  // unknown and lower-case (an inflected form, a typo): dropped.
  REQUIRE(groups.size() == 4);
  CHECK(groups[0] == TermGroup{"rede neural"});
  CHECK(groups[1] == TermGroup{"câmera", "máquina fotográfica"});
  CHECK(groups[2] == TermGroup{"tesla"});
  CHECK(groups[3] == TermGroup{"xyzzy"});
  CHECK(lex->Translate("CARRO!", "pt", "en")[0] == TermGroup{"car", "cart"});  // the \r is not part of it
  CHECK(lex->Translate("câmera", "pt", "zh").empty());  // no pt->zh entries
  CHECK(lex->Translate("Tesla only", "en", "pt").empty());  // nothing translated: plain BM25 already saw it
  CHECK(lex->Translate("camera", "en", "en").empty());
  // In a Chinese query a Latin word is a name or a term, lower case or not:
  // it crosses as it is and counts ("什么是 makemore？" was translated to nothing).
  groups = lex->Translate("\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88 makemore \xE6\x91\x84\xE5\x83\x8F\xE5\xA4\xB4", "zh", "en");  // 为什么 makemore 摄像头
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == TermGroup{"makemore"});
  CHECK(groups[1] == TermGroup{"camera", "webcam"});
  CHECK(lex->Translate("\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88 makemore", "zh", "en") == std::vector<TermGroup>{{"makemore"}});
  CHECK(lex->Translate("why makemore", "en", "pt").empty());  // not in a Chinese query: still dropped
}

TEST_CASE("an inflected word the table does not list meets its dictionary form", "[lexicon]") {
  auto lex = Lexicon::FromTsv(
      "pt\tlongo\ten\tlong\n"
      "pt\tpreferir\ten\tprefer\n"
      "pt\tcriar\ten\tcreate|raise\n"
      "pt\tcurta\ten\tshort film\n"
      "en\tcreate\tpt\tcriar\n"
      "en\trun\tpt\tcorrer\n");
  // Feminine plural -> masculine, finite verb -> infinitive, participle -> infinitive.
  auto groups = lex->Translate("ele prefere frases longas que foram criadas", "pt", "en");
  REQUIRE(groups.size() == 3);
  CHECK(groups[0] == TermGroup{"prefer"});
  CHECK(groups[1] == TermGroup{"long"});
  CHECK(groups[2] == TermGroup{"create", "raise"});
  // A form the table lists is its own entry, not a lemma's.
  CHECK(lex->Translate("curtas", "pt", "en")[0] == TermGroup{"short film"});
  groups = lex->Translate("created running", "en", "pt");
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == TermGroup{"criar"});
  CHECK(groups[1] == TermGroup{"correr"});
  CHECK(lex->Translate("zzzas", "pt", "en").empty());  // no dictionary form known: dropped as before
}

TEST_CASE("Chinese is segmented by the longest word the lexicon knows", "[lexicon]") {
  auto lex = Table();
  auto groups = lex->Translate("为什么特斯拉只用摄像头？", "zh", "en");
  // 为什么 is a function word; 只用 unknown characters are dropped; 摄像头
  // (not 摄像 + 头) is one word.
  REQUIRE(groups.size() == 2);
  CHECK(groups[0] == TermGroup{"Tesla"});
  CHECK(groups[1] == TermGroup{"camera", "webcam"});
}

TEST_CASE("a malformed lexicon is refused with its line", "[lexicon]") {
  CHECK_THROWS_WITH(Lexicon::FromTsv("en\tcamera\tpt\n"), Catch::Contains("line 1"));
  CHECK_THROWS_WITH(Lexicon::FromTsv("# x\nEN\tcamera\tpt\tcâmera\n"), Catch::Contains("line 2"));
  CHECK_THROWS_WITH(Lexicon::FromTsv("en\tcamera\tpt\tcâmera||x\n"), Catch::Contains("empty translation"));
  CHECK_THROWS_WITH(Lexicon::FromTsv("en\t\tpt\tx\n"), Catch::Contains("empty word"));
  // Found by fuzzing (tests/data/fuzz/lexicon/carriage-returns-in-translation.bin):
  // a translation ending in "\r\r" kept one '\r' more whole than sharded.
  CHECK_THROWS_WITH(Lexicon::FromTsv("en\tcamera\tpt\tcâmera\r\r\n"), Catch::Contains("control character"));
  CHECK_THROWS_WITH(Lexicon::FromTsv(std::string("en\tcam\0era\tpt\tx\n", 16)), Catch::Contains("line 1"));
  CHECK_NOTHROW(Lexicon::FromTsv("en\tcamera\tpt\tcâmera\r\nen\tthe\t-\r\n"));  // CRLF lines stay welcome
  try {
    Lexicon::FromTsv(std::string("en\tc\xff\tpt\tx\n"));
    FAIL("invalid UTF-8 accepted");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidUtf8);
  }
  // Keys a search can never meet are skipped, not fatal.
  CHECK(Lexicon::FromTsv("en\t!!!\tpt\tx\n")->entries() == 0);
}

TEST_CASE("BM25 over alternatives counts a word's translations as one word", "[lexicon]") {
  Bm25Index bm25;
  bm25.Add(0, "A câmera da Tesla.");
  bm25.Add(1, "Uma máquina fotográfica antiga.");
  bm25.Add(2, "Redes neurais aprendem.");
  std::vector<Hit> hits, plain;
  bm25.Search("câmera", 10, plain);
  REQUIRE(plain.size() == 1);
  bm25.SearchAlternatives({{"câmera", "máquina fotográfica", "nunca vista"}}, 10, hits);
  REQUIRE(hits.size() == 2);
  // One translation matching scores as the word alone would: the other
  // alternatives (one the index never saw) do not raise the bar.
  for (const Hit& h : hits) {
    if (h.label == 0) CHECK(h.score == Approx(plain[0].score));
    CHECK(h.score > 0.f);
    CHECK(h.score <= 1.f);
  }
  // A group none of whose translations the index holds weighs as an unknown word.
  bm25.SearchAlternatives({{"câmera"}, {"xyzzy"}}, 10, hits);
  REQUIRE(hits.size() == 1);
  CHECK(hits[0].score < 0.6f * plain[0].score);
}

TEST_CASE("with a lexicon, a query finds the passage written in another language", "[lexicon]") {
  Collection c = Passages("birds", {{"pt", "O carro da Tesla vê a estrada sem radar e decide sozinho o que fazer.", "pt"},
                                      {"en", "Backpropagation applies chain rules recursively.", "en"}});
  SearchOptions opt;
  opt.mode = SearchMode::kLexical;
  opt.threshold = 0.f;
  CHECK(c.Search("Why did the car matter?", nullptr, 0, opt).empty());
  c.EnableLexicon(Table());
  auto found = c.Search("Why did the car matter?", nullptr, 0, opt);
  REQUIRE(found.size() == 1);
  CHECK(c.chunk(found[0].label).id == "pt");
  CHECK(found[0].translated_rank == 0);
  CHECK(found[0].score == Approx(opt.translated_weight * found[0].translated_score));
}

TEST_CASE("a sentence in another language shares the question's words through their translations", "[lexicon][persona]") {
  const std::string car = "O carro da Tesla vê a estrada sozinho.", road = "A estrada é longa.";
  Collection c = Passages("cars", {{"pt", car, "pt"}, {"pt2", road, "pt"}});
  const std::string question = "Why did the car matter?";
  CHECK(TranslatedTermsOf(question, "en", "pt", c).words.empty());  // no lexicon: nothing translates
  c.EnableLexicon(Table());
  const TranslatedTerms t = TranslatedTermsOf(question, "en", "pt", c);
  REQUIRE(t.words.size() == 1);  // car; "matter" has no translation the passages hold
  CHECK(t.seen_share() == Approx(1.f));
  // A word whose every translation no passage holds (câmera) weighs against
  // every sentence, as a word no passage holds as written does.
  const TranslatedTerms both = TranslatedTermsOf("Why did the car and the camera matter?", "en", "pt", c);
  CHECK(both.words.size() == 1);
  CHECK(both.unseen == Approx(1.f));
  CHECK(both.seen_share() == Approx(both.total / (both.total + 1.f)));
  CHECK(SharedEvidence(t, car) == Approx(1.f));
  CHECK(SharedEvidence(t, road) == 0.f);
  CHECK(SharedEvidence(TermsOf(question, c), car) == 0.f);  // as written, the words are not there
  // A translation of several words counts for the share of them a sentence holds.
  Collection nets = Passages("nets", {{"net", "A rede neural aprende sozinha.", "pt"}});
  nets.EnableLexicon(Table());
  const TranslatedTerms n = TranslatedTermsOf("neural network", "en", "pt", nets);
  REQUIRE(n.words.size() == 1);
  CHECK(SharedEvidence(n, "A rede neural aprende.") == Approx(1.f));
  CHECK(SharedEvidence(n, "A rede aprende.") == Approx(0.5f));
}

TEST_CASE("a version number counts as evidence: Software 2.0 is not Software 1.0", "[persona]") {
  const std::string one = "Software 1.0: the programmer writes explicit code.";
  const std::string two = "Software 2.0: you specify a dataset and a loss, and the network finds the program.";
  Collection c = Passages("versions", {{"one", one, "en"}, {"two", two, "en"}, {"other", "Data engines need labels.", "en"}});
  const QuestionTerms terms = TermsOf("What is Software 2.0?", c);
  CHECK(std::find(terms.words.begin(), terms.words.end(), "2") != terms.words.end());
  CHECK(SharedEvidence(terms, two) == Approx(1.f));
  CHECK(SharedEvidence(terms, one) < SharedEvidence(terms, two));
  // A lone letter still says nothing ("plan B" holds no digit).
  Collection plans = Passages("plans", {{"b", "Plan B: label more data.", "en"}, {"c", "Plan C waits.", "en"}});
  const QuestionTerms letter = TermsOf("Is plan B enough?", plans);
  CHECK(std::find(letter.words.begin(), letter.words.end(), "plan") != letter.words.end());
  CHECK(std::find(letter.words.begin(), letter.words.end(), "b") == letter.words.end());
}

TEST_CASE("the names a question asks about: capitals past its start, not acronyms or the persona's own", "[persona]") {
  Collection c = Passages("names", {{"a", "At OpenAI the product was ideas; AI at Tesla was vision.", "en"},
                                     {"b", "Andrej Karpathy joined Tesla in 2017 and later founded Eureka Labs.", "en"},
                                     {"c", "Zero to Hero starts with micrograd.", "en"}});
  const std::vector<std::string> own = {"Andrej Karpathy", "Karpathy"};
  CHECK(NamesIn("When did Andrej Karpathy join OpenAI and not Google?", c, own) == std::vector<std::string>{"openai"});  // Google: in no passage
  CHECK(NamesIn("Is AI at Tesla about vision?", c, own) == std::vector<std::string>{"tesla"});  // "AI" is an acronym
  CHECK(NamesIn("Tesla is where?", c, own).empty());  // a capital opening the question says nothing
  // In a question holding Chinese characters, every Latin word the passages hold: 什么是 Zero to Hero？
  CHECK(NamesIn("\xE4\xBB\x80\xE4\xB9\x88\xE6\x98\xAF Zero to Hero\xEF\xBC\x9F", c, own) == std::vector<std::string>{"zero", "hero"});
  CHECK(HoldsAnyKey("He left OpenAI in 2024.", {"openai"}));
  CHECK_FALSE(HoldsAnyKey("He joined Tesla in 2017.", {"openai"}));
}

namespace {

// Translates with a lexicon loaded shard by shard, adding what each attempt
// names from `shards`, as the engine does; returns the attempts it took.
size_t TranslateSharded(Lexicon& lexicon, const Lexicon::Shards& shards, const std::string& text, const std::string& from,
                        const std::string& to, std::vector<TermGroup>& out) {
  for (size_t attempt = 1;; ++attempt) {
    try {
      out = lexicon.Translate(text, from, to);
      return attempt;
    } catch (const MissingShards& e) {
      REQUIRE(attempt < 8);
      for (const std::string& name : e.names()) {
        auto it = std::find_if(shards.files.begin(), shards.files.end(), [&](const auto& f) { return f.first == name; });
        REQUIRE(it != shards.files.end());
        lexicon.AddShard(it->first, it->second);
      }
    }
  }
}

}  // namespace

TEST_CASE("a lexicon loaded shard by shard translates as the whole table does", "[lexicon]") {
  const std::string tsv = test::ReadFile(std::string(VESPER_MODELS_DIR) + "/default/lexicon.tsv");
  const auto whole = Lexicon::FromTsv(tsv);
  const Lexicon::Shards shards = Lexicon::Split(tsv, 128);
  CHECK(shards.languages == std::vector<std::string>{"en", "pt", "zh"});
  CHECK(shards.files.size() == 3 * 128);
  auto sharded = Lexicon::Sharded(128, shards.languages, shards.max_words, shards.max_han);
  size_t most = 0;
  for (const auto& [text, from] : std::vector<std::pair<std::string, std::string>>{
           {"Why did Tesla bet on cameras instead of LiDAR?", "en"}, {"O que é Software 2.0 e por que importa?", "pt"},
           {"特斯拉为什么放弃激光雷达？", "zh"}, {"running neural networks on a laptop", "en"}}) {
    for (const std::string& to : shards.languages) {
      std::vector<TermGroup> got;
      most = std::max(most, TranslateSharded(*sharded, shards, text, from, to, got));
      CHECK(got == whole->Translate(text, from, to));
    }
  }
  CHECK(most == 2);  // every shard a translation needs is asked for at once
  CHECK(sharded->entries() < whole->entries() / 4);  // only the shards the queries touched
}

TEST_CASE("a lexicon shard with a line of another shard, or of an unknown name, adds nothing", "[lexicon]") {
  const Lexicon::Shards shards = Lexicon::Split(kTable, 4);
  auto lexicon = Lexicon::Sharded(4, shards.languages, shards.max_words, shards.max_han);
  const auto& first = *std::find_if(shards.files.begin(), shards.files.end(), [](const auto& f) { return !f.second.empty(); });
  const std::string& name = first.first;
  const std::string& text = first.second;
  const auto& other = *std::find_if(shards.files.begin(), shards.files.end(), [&](const auto& f) { return !f.second.empty() && f.first != name; });
  CHECK_THROWS_AS(lexicon->AddShard(name, text + other.second), Error);
  CHECK_THROWS_AS(lexicon->AddShard("xx-1", text), Error);
  CHECK_THROWS_AS(lexicon->AddShard(shards.languages[0] + "-9", ""), Error);
  CHECK(lexicon->entries() == 0);
  lexicon->AddShard(name, text);
  CHECK(lexicon->entries() > 0);
  // The whole table, where shards cannot be fetched: everything, the same answers.
  lexicon->AddTable(kTable);
  CHECK(lexicon->Translate("why the camera", "en", "pt") == Table()->Translate("why the camera", "en", "pt"));
  CHECK_THROWS_AS(Lexicon::Sharded(0, {"en"}, 1, 1), Error);
  CHECK_THROWS_AS(Lexicon::FromTsv(kTable)->AddShard("en-0", ""), Error);
}

TEST_CASE("an acronym's plural is its singular as evidence: LLMs in a passage answer a question about an LLM", "[persona]") {
  const std::string plural = "The concept is solid: LLMs as a reasoning engine looping with tools and memory.";
  const std::string singular = "An LLM agent still fails on long tasks.";
  Collection c = Passages("acronyms", {{"p", plural, "en"}, {"s", singular, "en"}, {"o", "Data engines need labels.", "en"}});
  const QuestionTerms one = TermsOf("What do you make of today's LLM agents?", c);
  CHECK(SharedEvidence(one, plural) > 0.f);
  const QuestionTerms many = TermsOf("Why do LLMs hallucinate?", c);
  CHECK(std::find(many.words.begin(), many.words.end(), "llm") != many.words.end());
  CHECK(SharedEvidence(many, singular) > 0.f);
  CHECK(SharedEvidence(many, plural) > 0.f);
}
