#include <catch2/catch.hpp>

#include <algorithm>

#include "core/text/lang.h"
#include "core/text/language.h"
#include "core/text/words.h"
#include "core/util/error.h"
#include "core/util/utf8.h"
#include "helpers.h"

using namespace vesper;

TEST_CASE("UTF-8 validation finds the first bad byte", "[text]") {
  CHECK(utf8::FindInvalid("plain ascii") == std::string::npos);
  CHECK(utf8::FindInvalid("ação 自动驾驶 🌍") == std::string::npos);
  CHECK(utf8::FindInvalid(std::string("ab\xFF", 3)) == 2);
  CHECK(utf8::FindInvalid(std::string("\xC0\xAF", 2)) == 0);          // overlong '/'
  CHECK(utf8::FindInvalid(std::string("x\xED\xA0\x80", 4)) == 1);     // UTF-16 surrogate
  CHECK(utf8::FindInvalid(std::string("\xF4\x90\x80\x80", 4)) == 0);  // > U+10FFFF
  CHECK(utf8::FindInvalid(std::string("ok\xE6\x97", 4)) == 2);        // truncated sequence
  try {
    utf8::Require(std::string("abc\x80", 4), "query");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::kInvalidUtf8);
    CHECK(std::string(e.what()) == "query is not valid UTF-8 (bad byte at offset 3)");
  }
}

TEST_CASE("a byte cap never splits a character", "[text]") {
  const std::string s = "ab\xE4\xB8\xAD\xE6\x96\x87\xF0\x9F\x8C\x8D!";  // ab 中 文 🌍 !
  CHECK(utf8::Prefix(s, 100) == s);
  CHECK(utf8::Prefix(s, 2) == "ab");
  CHECK(utf8::Prefix(s, 3) == "ab");
  CHECK(utf8::Prefix(s, 4) == "ab");
  CHECK(utf8::Prefix(s, 5) == "ab\xE4\xB8\xAD");
  CHECK(utf8::Prefix(s, 10) == "ab\xE4\xB8\xAD\xE6\x96\x87");
  CHECK(utf8::Prefix(s, 12) == "ab\xE4\xB8\xAD\xE6\x96\x87\xF0\x9F\x8C\x8D");
  for (size_t n = 0; n <= s.size(); ++n) CHECK(utf8::FindInvalid(utf8::Prefix(s, n)) == std::string_view::npos);
}

TEST_CASE("language detection on the seeds and on short queries", "[text]") {
  auto seeds = test::Seeds();
  CHECK(DetectLanguage(seeds[0].text) == "pt");
  CHECK(DetectLanguage(seeds[2].text) == "pt");
  CHECK(DetectLanguage(seeds[3].text) == "en");
  CHECK(DetectLanguage(seeds[4].text) == "zh");
  CHECK(DetectLanguage("Why did Tesla drop LiDAR?") == "en");
  CHECK(DetectLanguage("Por que a Tesla abandonou o LiDAR?") == "pt");
  CHECK(DetectLanguage("特斯拉为什么放弃激光雷达？") == "zh");
  CHECK(DetectLanguage("Karpathy 在 Tesla 负责 Autopilot") == "zh");
  // Short Portuguese questions whose one shared word ("do") once tied with English.
  CHECK(DetectLanguage("mudar o idioma do sistema") == "pt");
  CHECK(DetectLanguage("qual pacote contém este arquivo") == "pt");
  CHECK(DetectLanguage("Quantos parâmetros tem o GPT-4?") == "pt");
  CHECK(DetectLanguage("how do I undo my last commit") == "en");
  CHECK(DetectLanguage("make a patch and apply it to the tree") == "en");
  CHECK(DetectLanguage("") == "und");
  CHECK(DetectLanguage("🌍🌍") == "und");
  // A passage's own prose decides, not what it quotes: this Portuguese
  // paragraph was tagged English for its quote (and its sentences were then
  // quoted as English beside their English originals).
  const std::string quoting =
      "Eureka Labs é a síntese natural de tudo que Karpathy construiu: \"I want to create the best AI education in the "
      "world. The AI teaching assistant is the key, it scales the best teacher to every student in the world.\" "
      "Antes de usar transformers, implemente attention do zero.";
  CHECK(DetectLanguage(quoting) == "en");
  CHECK(DetectProseLanguage(quoting) == "pt");
  CHECK(DetectProseLanguage("\xE2\x80\x9CWe are reprogramming computers with data.\xE2\x80\x9D") == "en");  // only a quote: the quote's
  CHECK(DetectProseLanguage("Why did Tesla drop \"LiDAR\"?") == "en");
  CHECK(DetectProseLanguage("an \"unclosed quote stays in") == "en");
}

TEST_CASE("word splitting folds case and accents and makes CJK bigrams", "[text]") {
  auto terms = [](std::string_view s) {
    std::vector<std::string> t;
    for (auto& w : SplitWords(s)) t.push_back(w.term);
    return t;
  };
  CHECK(terms("Câmera CAMERA ação São-Paulo") == std::vector<std::string>{"camera", "camera", "acao", "sao", "paulo"});
  CHECK(terms("自动驾驶") == std::vector<std::string>{"自动", "动驾", "驾驶"});
  CHECK(terms("用 GPT-2 训练") == std::vector<std::string>{"用", "gpt", "2", "训练"});
  // Plurals meet their singulars, in English and Portuguese alike; short
  // words, words with digits and singulars ending in s are left alone.
  CHECK(terms("cameras policies classes batches decisões neurais níveis redes") ==
        std::vector<std::string>{"camera", "policy", "class", "batch", "decisao", "neural", "nivel", "rede"});
  CHECK(terms("does this status analysis gpt4s") == std::vector<std::string>{"does", "this", "status", "analysis", "gpt4s"});
  auto spans = SplitWords("über 摄像头");
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].begin == 0);
  CHECK(spans[0].end == 5);  // "über" is five bytes
  CHECK(spans[1].term == "摄像");
  CHECK(spans[2].end == std::string("über 摄像头").size());
}

TEST_CASE("the word splitter stays inside its input on invalid UTF-8", "[text]") {
  // Was: a lead byte at the end (a 4-byte sequence cut short) moved the
  // cursor past the input and the last span ended beyond it.
  for (std::string s : {std::string("abc\xF0"), std::string("abc\xE4\xB8"), std::string("\xFF\xFE" "abc"),
                        std::string("x\xC3" "y"), std::string("\x80\x80" "de"), std::string("摄像\xE5")}) {
    INFO(s.size());
    size_t terms = 0;
    for (const WordSpan& w : SplitWords(s)) {
      CHECK(w.begin <= w.end);
      CHECK(w.end <= s.size());
      ++terms;
    }
    CHECK(terms >= 1);
  }
  size_t i = 0;
  const std::string cut = "\xF0\x9F";
  CHECK(utf8::Next(cut, i) == utf8::kReplacementChar);
  CHECK(i == 1);
}

TEST_CASE("the language files parse, and every list the core reads is there", "[text]") {
  CHECK(vesper::LanguageFileProblems().empty());
  CHECK(vesper::KnownLanguages() == std::vector<std::string>{"en", "pt", "zh"});
  // A list a rule reads by name: a misspelt name would read as empty.
  for (const char* list :
       {"detect", "function_words", "framing_words", "question_opinion", "question_limitation", "question_how_many",
        "question_when", "question_why", "question_who", "question_where", "question_what_is", "question_how",
        "count_cues", "count_head", "reason_cues", "limitation_cues", "limitation_openings", "contrast_openings", "example_cues",
        "definition_cues", "method_cues", "refers_back", "refers_back_leads", "followup_why", "followup_example",
        "followup_more", "followup_leads", "followup_tails", "question_openings", "question_words_anywhere",
        "lemma_endings", "first_person_verbs", "subject_verbs", "object_before", "adverbs", "possessives", "reader_pronouns", "self_copula", "question_identity", "identity_lookup", "greetings", "thanks", "reflexives", "name"}) {
    INFO(list);
    CHECK_FALSE(vesper::AllLanguageWords(list).empty());
  }
  // Entries as written: phrases keep their spaces, Chinese its characters.
  const auto& why = vesper::LanguageWords("pt", "question_why");
  CHECK(std::find(why.begin(), why.end(), "por que") != why.end());
  const auto& zh = vesper::LanguageWords("zh", "question_why");
  CHECK(std::find(zh.begin(), zh.end(), "\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88") != zh.end());  // 为什么
  CHECK(vesper::LanguageWords("xx", "question_why").empty());
  CHECK(vesper::LanguageWords("en", "no_such_list").empty());
  // Mappings: alternatives in order, "" for the empty string.
  const auto& endings = vesper::LanguageMapping("pt", "lemma_endings");
  REQUIRE(endings.size() > 2);
  CHECK(endings[0].from == "amente");
  CHECK(endings[0].to == std::vector<std::string>{"o", "a", ""});
  CHECK(endings[1].to == std::vector<std::string>{""});
}
