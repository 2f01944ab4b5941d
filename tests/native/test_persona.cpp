// The persona engine over the real knowledge base, with the default model
// (models/default) run by the core: answers in the question's language, in
// the first person, citing a passage that holds the answer; declines what is
// out of scope; says the disclaimer once; leaves and re-enters the role.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "core/chunker/chunker.h"
#include "core/collection/collection.h"
#include "core/collection/pack.h"
#include "core/embed/pipeline.h"
#include "core/embed/static_model.h"
#include "core/lexical/lexicon.h"
#include "core/persona/answer.h"
#include "core/persona/evidence.h"
#include "core/persona/followup.h"
#include "core/persona/persona.h"
#include "core/persona/sentences.h"
#include "core/persona/text_match.h"
#include "core/persona/voice.h"
#include "core/text/language.h"
#include "core/text/words.h"
#include "core/util/error.h"
#include "helpers.h"

namespace vesper {
namespace {

struct World {
  Persona persona = Persona::FromJson(test::ReadFile(std::string(VESPER_KB_DIR) + "/persona.json"));
  std::shared_ptr<Tokenizer> tok;
  std::shared_ptr<StaticModel> model;
  std::shared_ptr<const Lexicon> lexicon;
  std::unique_ptr<Collection> db;
  // The manifest's translationMix, as the engine's embedder applies it
  // (web/engine/translation-mix.mjs): 0 without one.
  float mix_weight = 0.f;
  std::vector<std::string> mix_languages;

  World() {
    const std::string dir = std::string(VESPER_MODELS_DIR) + "/default/";
    SpecialTokenPolicy policy;
    policy.add_bos = false;
    policy.add_eos = false;
    tok = Tokenizer::FromBytes(test::ReadFile(dir + "tokenizer.model"), policy);
    model = StaticModel::FromBytes(test::ReadFile(dir + "model.vtab"));
    std::string manifest = test::ReadFile(dir + "manifest.json");
    // The model's decision rule, as the engine and the CLI apply it (web/engine/kb.mjs).
    auto m = nlohmann::json::parse(manifest);
    Answerability decide = m.contains("answerability") ? Answerability::FromJson(m["answerability"].dump())
                                                       : Answerability::Uncalibrated(m.value("threshold", 0.35f));
    lexicon = Lexicon::FromTsv(test::ReadFile(dir + "lexicon.tsv"));
    if (m.contains("translationMix")) {
      mix_weight = m["translationMix"]["weight"].get<float>();
      mix_languages = m["translationMix"]["languages"].get<std::vector<std::string>>();
    }
    ModelInfo info;
    info.id = "vesper-default";
    info.dims = static_cast<uint32_t>(model->dims());
    db = std::make_unique<Collection>("karpathy", info);
    db->set_answerability(decide);
    // Static models rerank hybrid search by piece matching, as the engine sets up (web/engine/kb.mjs).
    db->EnablePieceMatch(std::make_shared<PieceMatcher>(model), tok);
    db->EnableLexicon(lexicon);
    // The persona file's meta text, as the CLI and the page mark it (web/engine/kb.mjs metaTextOf).
    ChunkerOptions chunking;
    const nlohmann::json pj = nlohmann::json::parse(test::ReadFile(std::string(VESPER_KB_DIR) + "/persona.json"));
    chunking.meta_headings = pj.value("meta_sections", std::vector<std::string>{});
    chunking.meta_openings = pj.value("meta_passages", std::vector<std::string>{});
    for (const auto& seed : test::Seeds()) {
      // Chunked as the CLI and the page chunk: budgets counted in the model's tokens.
      std::vector<Chunk> chunks = ChunkDocument(seed.name, seed.text, chunking, [this](std::string_view t) { return tok->CountTokens(t); });
      std::vector<float> vectors;
      for (const Chunk& c : chunks) {
        std::string title;
        for (const std::string& t : c.title) title += (title.empty() ? "" : " > ") + t;
        const std::string language = c.language.empty() ? DetectLanguage(c.text) : c.language;
        auto v = Embed(FormatPrompt("{title}\n{text}", c.text, title, ""), c.text, language, "{title}\n{text}");
        vectors.insert(vectors.end(), v.begin(), v.end());
      }
      db->Add(std::move(chunks), vectors.data(), vectors.size() / model->dims());
    }
  }

  std::vector<float> EmbedPlain(const std::string& prompt) const {
    std::vector<int32_t> ids = tok->Encode(prompt).ids;
    std::vector<float> v(model->dims());
    model->Embed(ids.data(), ids.size(), v.data());
    Normalize(v);
    return v;
  }

  static void Normalize(std::vector<float>& v) {
    double n = 0;
    for (float x : v) n += double{x} * x;
    if (n > 0) for (float& x : v) x = static_cast<float>(x / std::sqrt(n));
  }

  // What the engine's embedder gives: the prompt's vector plus, with the
  // manifest's translationMix, mix_weight x the vector of the text's
  // lexicon translation (first translations, word by word) into each other
  // language, renormalised.
  std::vector<float> Embed(const std::string& prompt, const std::string& text, const std::string& language,
                           const std::string& templ) const {
    std::vector<float> v = EmbedPlain(prompt);
    bool mixes = std::find(mix_languages.begin(), mix_languages.end(), language) != mix_languages.end();
    for (const std::string& to : mix_languages) {
      if (!mixes || to == language) continue;
      std::string words;
      for (const TermGroup& g : lexicon->Translate(text, language, to)) {
        if (g.empty()) continue;
        if (!words.empty() && to != "zh") words += ' ';
        words += g[0];
      }
      if (words.empty()) continue;
      std::vector<float> t = EmbedPlain(FormatPrompt(templ, words, "", ""));
      for (size_t k = 0; k < v.size(); ++k) v[k] += mix_weight * t[k];
    }
    Normalize(v);
    return v;
  }
  std::vector<float> Embed(const std::string& query) const { return Embed(query, query, DetectLanguage(query), "{text}"); }

  // The collection saved and loaded from `bytes` (its pack), equipped as
  // the engine equips a loaded pack (web/engine/kb.mjs calibrate()).
  std::vector<Collection> Reloaded(const Bytes& bytes, Answerability decide) const {
    std::vector<Collection> copy = LoadPack(bytes.data(), bytes.size());
    REQUIRE(copy.size() == 1);
    copy[0].set_answerability(std::move(decide));
    copy[0].EnablePieceMatch(std::make_shared<PieceMatcher>(model), tok);
    copy[0].EnableLexicon(lexicon);
    return copy;
  }

  // A copy of the collection that answers every question it finds passages
  // for (a cosine bar at 0 instead of the calibrated decision): for tests of
  // how an answer is built, apart from whether the question is answerable.
  std::vector<Collection> Undecided() const { return Reloaded(SavePack({db.get()}), Answerability::Uncalibrated(0.f)); }

  // `embedded`: the text to embed, when not the question (PersonaLookupText).
  Answer Ask(const std::string& q, ConversationState& state, const std::string& embedded = "") const {
    AnswerOptions o;
    std::vector<float> v = Embed(embedded.empty() ? q : embedded);
    return AnswerQuestion(persona, *db, q, v.data(), v.size(), state, o);
  }

  bool Cites(const Answer& a, const std::string& marker) const {
    std::string m = FoldText(marker);
    for (const Citation& c : a.citations) {
      const Chunk& chunk = db->chunk(c.label);
      std::string title;
      for (const std::string& t : chunk.title) title += t + " ";
      if (FoldText(title + chunk.text).find(m) != std::string::npos) return true;
    }
    return false;
  }
};

const World& TheWorld() {
  static World w;
  return w;
}

TEST_CASE("a pack keeps what piece matching tokenised: the loaded collection ranks the same", "[pack][persona]") {
  const World& w = TheWorld();
  const Bytes bytes = SavePack({w.db.get()});
  auto loaded = w.Reloaded(bytes, w.db->answerability());
  Collection& db = loaded[0];
  CHECK(SavePack({&db}) == bytes);
  SearchOptions opt;
  opt.threshold = 0.f;
  for (const char* q : {"Why did Tesla drop LiDAR?", "Por que a Tesla abandonou o LiDAR?", "什么是软件2.0", "feijoada recipe"}) {
    std::vector<float> v = w.Embed(q);
    auto a = w.db->Search(q, v.data(), v.size(), opt);
    auto b = db.Search(q, v.data(), v.size(), opt);
    REQUIRE(a.size() == b.size());
    for (size_t i = 0; i < a.size(); ++i) CHECK((a[i].label == b[i].label && a[i].fused == b[i].fused));
  }
}

bool FirstPerson(const std::string& text, const std::string& lang) {
  std::string f = FoldText(text);
  if (lang == "zh") return f.find("\xE6\x88\x91") != std::string::npos;  // 我
  if (lang == "pt") return ContainsWord(f, "eu") || ContainsWord(f, "penso") || ContainsWord(f, "citei") || ContainsWord(f, "escrevi");
  return ContainsWord(f, "i") || ContainsWord(f, "my") || ContainsWord(f, "i'm");
}

struct LanguageCase {
  const char* lang;
  const char* question;
  const char* marker;  // text of a passage that answers it
  const char* out_of_scope;
  const char* exit;
  const char* reenter;
};

const LanguageCase kCases[] = {
    {"en", "Why did Tesla decide to rely on cameras instead of LiDAR?", "cameras-only",
     "Can you write a marketing plan for my business strategy?", "exit", "back in character"},
    {"pt", "Por que a Tesla decidiu usar apenas câmeras em vez de LiDAR?", "cameras-only",
     "Você pode me dar uma estratégia de negócios para minha loja?", "sair do papel", "voltar ao papel"},
    {"zh", "为什么从零构建一个最小版本是理解系统最快的方法？", "\xE4\xBB\x8E\xE9\x9B\xB6\xE6\x9E\x84\xE5\xBB\xBA",  // 从零构建
     "你能给我一些商业策略和管理建议吗？", "\xE9\x80\x80\xE5\x87\xBA", "\xE5\x9B\x9E\xE5\x88\xB0\xE8\xA7\x92\xE8\x89\xB2"},  // 退出 回到角色
};

}  // namespace

TEST_CASE("each language gets a first-person answer in that language, citing the passage that holds it", "[persona]") {
  const World& w = TheWorld();
  for (const LanguageCase& c : kCases) {
    INFO(c.lang << ": " << c.question);
    ConversationState s;
    Answer a = w.Ask(c.question, s);
    INFO(a.text);
    CHECK(a.kind == AnswerKind::kAnswer);
    CHECK(a.language == c.lang);
    CHECK(a.in_role);
    CHECK(FirstPerson(a.text, c.lang));
    CHECK(w.Cites(a, c.marker));
    CHECK_FALSE(a.citations.empty());
    // Every [n] in the text names a citation.
    for (size_t n = 1; n <= a.citations.size(); ++n) CHECK(a.text.find("[" + std::to_string(n) + "]") != std::string::npos);
    CHECK(a.text.find("[" + std::to_string(a.citations.size() + 1) + "]") == std::string::npos);
    // Trimmed: an answer, not the passages pasted whole.
    CHECK(a.text.size() < 2200);
  }
}

TEST_CASE("a quoted list's own lead-in is not framed by a second one", "[persona]") {
  const World& w = TheWorld();
  for (const char* question : {"Why does tokenization matter more than it seems?", "Por que tokenização importa mais do que parece?"}) {
    ConversationState s;
    Answer a = w.Ask(question, s);
    INFO(a.text);
    REQUIRE(a.kind == AnswerKind::kAnswer);
    // "The way I think about it: Why tokenization matters more than it seems: ..." read as glued fragments.
    const std::string& frame = w.persona.phrases(a.language).intuition;
    const size_t at = a.text.find(frame);
    if (at != std::string::npos) {
      const std::string after = a.text.substr(at + frame.size(), 80);
      const size_t colon = after.find(':');
      const size_t stop = after.find_first_of(".!?");
      CHECK((colon == std::string::npos || (stop != std::string::npos && stop < colon)));
    }
  }
}

TEST_CASE("the disclaimer comes with the first answer only", "[persona]") {
  const World& w = TheWorld();
  for (const LanguageCase& c : kCases) {
    ConversationState s;
    Answer first = w.Ask(c.question, s);
    Answer second = w.Ask(c.question, s);
    const std::string& disclaimer = w.persona.disclaimer().at(c.lang);
    CHECK(first.disclaimer);
    CHECK(first.text.find(disclaimer) == 0);
    CHECK_FALSE(second.disclaimer);
    CHECK(second.text.find(disclaimer) == std::string::npos);
    CHECK(s.turns == 2);
  }
}

TEST_CASE("out-of-scope questions are declined in character, in the question's language", "[persona]") {
  const World& w = TheWorld();
  for (const LanguageCase& c : kCases) {
    INFO(c.out_of_scope);
    ConversationState s;
    s.disclaimer_shown = true;
    Answer a = w.Ask(c.out_of_scope, s);
    CHECK(a.declined());
    CHECK(a.language == c.lang);
    CHECK(a.citations.empty());
    CHECK(a.text.find(w.persona.phrases(c.lang).decline.substr(0, 12)) == 0);
  }
}

TEST_CASE("questions the knowledge base cannot answer get an honest 'I don't know'", "[persona]") {
  const World& w = TheWorld();
  // The 18 unrelated questions of the default model's query set (6 per language).
  std::istringstream rows(test::ReadFile(std::string(VESPER_MODELS_DIR) + "/default/eval/queries.tsv"));
  std::string row;
  size_t asked = 0, declined = 0;
  while (std::getline(rows, row)) {
    std::vector<std::string> f;
    std::istringstream cells(row);
    for (std::string cell; std::getline(cells, cell, '\t');) f.push_back(cell);
    if (row.empty() || row[0] == '#' || f.size() != 5 || f[3] != "-") continue;
    INFO(f[4]);
    ConversationState s;
    s.disclaimer_shown = true;
    Answer a = w.Ask(f[4], s);
    ++asked;
    CHECK(a.language == f[1]);
    if (a.kind != AnswerKind::kDontKnow) continue;
    ++declined;
    CHECK(a.citations.empty());
    CHECK(a.text == w.persona.phrases(f[1]).dont_know);
  }
  REQUIRE(asked == 18);
  // Measured with the committed calibration (bench/quality/EVAL.md): 14 of 18
  // (13 before the translation mix).
  // The misses share words with the knowledge base ("sistema operacional",
  // "symptoms") or are Chinese, whose single-character pieces the
  // collection's vocabulary nearly always knows.
  CHECK(declined >= 13);
  // ("Qual é a melhor receita de feijoada?" was here too: with the lexicon
  // enabled, as every client searches, it is answered, as `vesper ask` also
  // answers it with and without the translation mix; it counts among the 18.)
  for (const char* q : {"How do I bake sourdough bread at home?"}) {
    INFO(q);
    ConversationState s;
    CHECK(w.Ask(q, s).kind == AnswerKind::kDontKnow);
  }
}

TEST_CASE("role commands said naturally are commands; questions that mention the words stay questions", "[persona]") {
  const World& w = TheWorld();
  const std::pair<const char*, const char*> exits[] = {
      {"en", "OK, you can stop role-playing now."}, {"en", "Please stop pretending."}, {"en", "okay, exit please"},
      {"pt", "Pode sair do personagem, por favor."}, {"pt", "Certo, pare de fingir."},
      // Returning to the plain self is leaving, whatever else the request names.
      {"pt", "volte a ser você mesmo, pode parar o roleplay"}, {"pt", "para de fingir e volta a ser você mesmo"},
      {"zh", "\xE5\xA5\xBD\xE7\x9A\x84\xEF\xBC\x8C\xE4\xB8\x8D\xE7\x94\xA8\xE6\x89\xAE\xE6\xBC\x94\xE4\xBA\x86\xE3\x80\x82"},  // 好的，不用扮演了。
      {"zh", "\xE8\xAF\xB7\xE9\x80\x80\xE5\x87\xBA\xE8\xA7\x92\xE8\x89\xB2"},  // 请退出角色
  };
  for (auto& [lang, q] : exits) {
    INFO(q);
    ConversationState s;
    Answer a = w.Ask(q, s);
    CHECK(a.kind == AnswerKind::kExited);
    CHECK(a.language == lang);
    CHECK_FALSE(s.in_role);
  }
  const std::pair<const char*, const char*> reentries[] = {
      {"en", "OK, back in character please."}, {"pt", "Pode voltar ao papel, por favor."},
      // Too short and too full of a name to detect: answered in its verb's language.
      {"pt", "volta a ser o Karpathy"},
      {"zh", "\xE5\xA5\xBD\xE7\x9A\x84\xEF\xBC\x8C\xE7\xBB\xA7\xE7\xBB\xAD\xE6\x89\xAE\xE6\xBC\x94\xE5\x90\xA7"}};  // 好的，继续扮演吧
  for (auto& [lang, q] : reentries) {
    INFO(q);
    ConversationState s;
    s.in_role = false;
    Answer a = w.Ask(q, s);
    CHECK(a.kind == AnswerKind::kReentered);
    CHECK(a.language == lang);
    CHECK(s.in_role);
  }
  const char* questions[] = {"\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xE9\x80\x80\xE5\x87\xBA Tesla\xEF\xBC\x9F",  // 为什么退出 Tesla？
                             "Why did you exit Tesla?", "Por que ele quis sair da Tesla?"};
  for (const char* q : questions) {
    INFO(q);
    ConversationState s;
    Answer a = w.Ask(q, s);
    CHECK(a.kind != AnswerKind::kExited);
    CHECK(s.in_role);
  }
}

TEST_CASE("an exit phrase leaves the role until the user re-enters it", "[persona]") {
  const World& w = TheWorld();
  for (const LanguageCase& c : kCases) {
    INFO(c.lang);
    ConversationState s;
    w.Ask(c.question, s);
    Answer out = w.Ask(c.exit, s);
    CHECK(out.kind == AnswerKind::kExited);
    CHECK_FALSE(out.in_role);
    CHECK_FALSE(s.in_role);
    Answer neutral = w.Ask(c.question, s);
    CHECK_FALSE(neutral.in_role);
    CHECK(neutral.text.find(w.persona.phrases(c.lang).neutral_intro) == 0);
    CHECK(neutral.text.find(w.persona.phrases(c.lang).next_steps) == std::string::npos);
    CHECK_FALSE(neutral.citations.empty());
    // Out of role nothing is declined in character: an out-of-scope question is looked up plainly.
    CHECK_FALSE(w.Ask(c.out_of_scope, s).declined());
    Answer back = w.Ask(c.reenter, s);
    CHECK(back.kind == AnswerKind::kReentered);
    CHECK(s.in_role);
    Answer again = w.Ask(c.question, s);
    CHECK(again.in_role);
    CHECK_FALSE(again.disclaimer);  // once per conversation, even after re-entering
    CHECK(FirstPerson(again.text, c.lang));
  }
  // "退出" inside a question is not a command.
  ConversationState s;
  Answer q = w.Ask("\xE4\xBB\x96\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xE9\x80\x80\xE5\x87\xBA\xE7\x89\xB9\xE6\x96\xAF\xE6\x8B\x89\xEF\xBC\x9F", s);  // 他为什么退出特斯拉？
  CHECK(q.kind != AnswerKind::kExited);
  CHECK(s.in_role);
}

TEST_CASE("no answer in a battery of 36 questions uses a banned word; answers are deterministic", "[persona]") {
  const World& w = TheWorld();
  const char* battery[] = {
      "What is backpropagation?", "Is deep learning magic?", "What is Software 2.0?", "Explain vibe coding",
      "What are scaling laws?", "Why do transformers work so well?", "What is micrograd?", "What is nanoGPT?",
      "How does BPE tokenization work?", "What is the data engine at Tesla?", "What is Dojo?", "What is Eureka Labs?",
      "What does an LLM do?", "Why do LLMs hallucinate?", "What is attention?", "How should I read papers?",
      "What math do I need?", "Tell me about his PhD", "What is a revolutionary game-changer in AI?",
      "Obviously neural nets are simple, right?",
      "O que é retropropagação?", "O que é Software 2.0?", "O que é vibe coding?", "Por que a Tesla não usa LiDAR?",
      "Como começar a aprender deep learning?", "O que é tokenização?", "Redes neurais são mágica?", "O que é a Eureka Labs?",
      "什么是反向传播？", "什么是氛围编程？", "特斯拉为什么不用激光雷达？", "他的表达风格是什么？", "他拒绝什么样的软件？",
      "什么是泄漏抽象？", "深度学习是魔法吗？", "怎么从零开始学习？"};
  size_t answered = 0;
  for (const char* q : battery) {
    INFO(q);
    ConversationState s1, s2;
    Answer a = w.Ask(q, s1);
    Answer b = w.Ask(q, s2);
    CHECK(a.text == b.text);
    CHECK_FALSE(w.persona.UsesBannedWord(a.text));
    if (a.kind == AnswerKind::kAnswer) ++answered;
  }
  // Not answered, by design: the two questions whose only passages use the
  // persona's banned words ("magic", "revolutionary game-changer") share no
  // evidence with anything it would say; "他的表达风格是什么？", which only the
  // style rules for whoever plays him describe (instructions, never quoted);
  // five more are the search decision's.
  CHECK(answered >= 28);
}

TEST_CASE("the persona file is validated", "[persona]") {
  CHECK_THROWS_AS(Persona::FromJson("{not json"), Error);
  CHECK_THROWS_AS(Persona::FromJson(R"({"format":"vesper-persona","version":2})"), Error);
  std::string good = test::ReadFile(std::string(VESPER_KB_DIR) + "/persona.json");
  // A phrase of the persona's own that uses one of its banned words is refused.
  std::string bad = good;
  size_t at = bad.find("\"intuition\": \"");
  REQUIRE(at != std::string::npos);
  bad.insert(at + 14, "Obviously, ");
  try {
    Persona::FromJson(bad);
    FAIL("a banned word in the persona's phrases was accepted");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("never uses") != std::string::npos);
  }
  // ... the optional greeting too.
  std::string bad_greeting = good;
  const size_t greeting = bad_greeting.find("\"greeting\": \"");
  REQUIRE(greeting != std::string::npos);
  bad_greeting.insert(greeting + 13, "Obviously, ");
  CHECK_THROWS_AS(Persona::FromJson(bad_greeting), Error);
  // An empty self name would make the first-person rewrite match everywhere.
  std::string empty_name = good;
  size_t names = empty_name.find("\"self_names\": [");
  REQUIRE(names != std::string::npos);
  empty_name.insert(names + 15, "\"\", ");
  CHECK_THROWS_AS(Persona::FromJson(empty_name), Error);
  // An empty banned word or exit phrase is named as such (it was accepted, or
  // refused as "uses a word the persona never uses" about a harmless phrase).
  for (const char* list : {"\"banned_words\": {", "\"exit_phrases\": {"}) {
    std::string empty_entry = good;
    size_t en = empty_entry.find("\"en\": [", empty_entry.find(list));
    REQUIRE(en != std::string::npos);
    empty_entry.insert(en + 8, "\" \", ");
    INFO(list);
    try {
      Persona::FromJson(empty_entry);
      FAIL("an empty entry was accepted");
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains("holds an empty entry") && Catch::Contains(".en"));
    }
  }
  ConversationState s;
  const World& w = TheWorld();
  CHECK_THROWS_AS(AnswerQuestion(w.persona, *w.db, "   ", nullptr, 0, s), Error);
  CHECK_THROWS_AS(AnswerQuestion(w.persona, *w.db, "caf\xC3", nullptr, 0, s), Error);
}

TEST_CASE("a lead-in's list written without bullets is one item a line; wrapped prose after a lead-in stays one sentence", "[persona]") {
  auto s = SplitSentences("Why this analogy is profound, not merely a metaphor:\n"
                          "OS abstracts hardware \xE2\x86\x92 LLM abstracts knowledge, provides interfaces for any domain\n"
                          "RAM fills up and items get swapped out \xE2\x86\x92 context window fills up and the model forgets\n"
                          "Apps built atop the OS without modifying the kernel \xE2\x86\x92 LLM apps via prompting");
  REQUIRE(s.size() == 4);
  CHECK(s[0].lead_in);
  for (size_t i = 1; i < 4; ++i) {
    CHECK(s[i].list_item);
    CHECK(s[i].quotable());
    CHECK(s[i].context == 0);
  }
  CHECK(s[2].text.rfind("RAM fills up", 0) == 0);
  // Ending as a sentence, the lines were one wrapped sentence.
  s = SplitSentences("His view, in short:\nModels learn what the data shows them and nothing more than what the\n"
                     "Data holds, whatever the architecture says.");
  REQUIRE(s.size() == 2);
  CHECK(s[1].text.rfind("Models learn", 0) == 0);
  CHECK(s[1].complete);
}

TEST_CASE("a lead-in cut from its list by the passage's end is a statement when it says something", "[persona]") {
  // The chunker cut between the lead-in and its diagram: before, nothing here was quotable.
  auto s = SplitSentences("Presented at Tesla AI Day, HydraNet is the core vision architecture at Tesla:\n\n"
                          "Concept:\nA single neural network featuring a shared backbone that feeds many heads:\n");
  REQUIRE(s.size() == 3);
  CHECK(s[0].text == "Presented at Tesla AI Day, HydraNet is the core vision architecture at Tesla.");
  CHECK(s[0].quotable());
  CHECK(s[1].lead_in);  // a short label stays a label
  CHECK_FALSE(s[1].quotable());
  CHECK(s[2].text == "A single neural network featuring a shared backbone that feeds many heads.");
  CHECK(s[2].quotable());
  CHECK(s[2].context == -1);
  // A lead-in whose list follows in the passage introduces it, as before.
  s = SplitSentences("The cameras-only argument has three parts, in his words:\n1. Humans drive with two eyes.\n");
  REQUIRE(s.size() == 2);
  CHECK(s[0].lead_in);
  CHECK(s[1].context == 0);
  // Chinese: the full-width colon becomes a full stop.
  s = SplitSentences("\xE8\xBF\x99\xE4\xB8\xAA\xE7\xBD\x91\xE7\xBB\x9C\xE6\x8A\x8A\xE5\x85\xAB\xE4\xB8\xAA"
                     "\xE6\x91\x84\xE5\x83\x8F\xE5\xA4\xB4\xE7\x9A\x84\xE4\xBF\xA1\xE6\x81\xAF\xE8\x9E\x8D"
                     "\xE5\x90\x88\xE5\x88\xB0\xE4\xB8\x80\xE8\xB5\xB7\xEF\xBC\x9A");  // 这个网络把八个摄像头的信息融合到一起：
  REQUIRE(s.size() == 1);
  CHECK(s[0].quotable());
  CHECK(s[0].text.substr(s[0].text.size() - 3) == "\xE3\x80\x82");  // 。
}

TEST_CASE("a question asking when may be answered by a timeline row, quoted as an entry", "[persona]") {
  auto rows = SplitSentences("Complete Timeline:\n\n2017      Director of AI at Tesla\n2022      Leaves Tesla (March)\n");
  REQUIRE(rows.size() == 3);
  CHECK(rows[2].row);
  CHECK_FALSE(rows[2].quotable());  // never quoted as it stands
  const Sentence entry = TimelineEntry(rows[2]);
  CHECK(entry.text == "2022: Leaves Tesla (March).");
  CHECK(entry.quotable());
  CHECK(TimelineEntry(rows[0]).text == rows[0].text);  // not a row: unchanged
  const World& w = TheWorld();
  ConversationState st;
  const Answer a = w.Ask("When did Karpathy leave Tesla?", st);  // before: "I don't know"
  CHECK(a.kind == AnswerKind::kAnswer);
  CHECK(a.text.find("2022: Leaves Tesla (March)") != std::string::npos);
  ConversationState st3;  // so may one that names a year (or the section on what was presented there)
  const std::string ai_day = w.Ask("What did you unveil at Tesla AI Day 2021?", st3).text;
  CHECK((ai_day.find("2021: Tesla AI Day") != std::string::npos || ai_day.find("Presented at Tesla AI Day (August 2021)") != std::string::npos));
  ConversationState st2;  // a question that does not ask when gets no rows
  CHECK(w.Ask("What did Karpathy do at Tesla?", st2).text.find("2017: Director") == std::string::npos);
}

TEST_CASE("a passage whose heading holds the question's words answers it though its sentences never repeat them", "[persona]") {
  // "HydraNet 是什么？": the Portuguese passages under "Hydranet: Uma Rede Para
  // Tudo" never name it again; before, no sentence counted as evidence.
  // The default model's decision is unsure of this question (its near misses
  // are these passages): the answer is built here apart from it.
  const World& w = TheWorld();
  std::vector<Collection> db = w.Undecided();
  ConversationState st;
  const std::string q = "HydraNet \xE6\x98\xAF\xE4\xBB\x80\xE4\xB9\x88\xEF\xBC\x9F";  // HydraNet 是什么？
  const std::vector<float> v = w.Embed(q);
  const Answer a = AnswerQuestion(w.persona, db[0], q, v.data(), v.size(), st);
  CHECK(a.kind == AnswerKind::kAnswer);
  REQUIRE_FALSE(a.citations.empty());
  CHECK(a.citations[0].title.back().find("Hydra") != std::string::npos);
}

TEST_CASE("a 'how many' question is answered only by a sentence that counts what it asks about", "[persona]") {
  std::string chips, staff;
  SplitWords("chips", [&](WordSpan&& w) { chips = w.term; });
  SplitWords("funcion\xC3\xA1rios", [&](WordSpan&& w) { staff = w.term; });
  CHECK(CountedWord("How many Dojo chips does Tesla have running today?") == chips);
  CHECK(CountedWord("Quantos funcion\xC3\xA1rios a Eureka Labs tem hoje?") == staff);
  CHECK(CountedWord("How long did it take?").empty());
  CHECK(CountedWord("What is Dojo?").empty());
  // Before: answered with "Eureka Labs is the natural synthesis ... (Zero to Hero ...)", a sentence with a digit.
  const World& w = TheWorld();
  ConversationState st;
  CHECK(w.Ask("Quantos funcion\xC3\xA1rios a Eureka Labs tem hoje?", st).kind == AnswerKind::kDontKnow);
}

TEST_CASE("a limitation added to an answer names one and qualifies a section the answer quoted", "[persona]") {
  CHECK(StartsWithLimitation("But it changes who can build software, and how."));
  CHECK_FALSE(NamesLimitation("But it changes who can build software, and how."));  // a contrast, not a limitation
  CHECK(NamesLimitation("But LiDAR fails in heavy fog."));
  CHECK(NamesLimitation("The downside is cost."));
  CHECK(NamesLimitation("\xE5\xB1\x80\xE9\x99\x90\xEF\xBC\x9A\xE4\xB8\x8D\xE6\x98\xAF\xE6\x89\x80\xE6\x9C\x89\xE7\xB3\xBB\xE7\xBB\x9F"));  // 局限：不是所有系统
  const World& w = TheWorld();
  // Before: "Onde isso não dá conta: Mas muda quem pode construir software e como.", from another section.
  ConversationState pt;
  const Answer a = w.Ask("O que voc\xC3\xAA quer dizer com Software 3.0?", pt);
  CHECK(a.text.find("Mas muda quem pode construir software") == std::string::npos);
  // A section's own caveat still comes with an answer from that section.
  ConversationState zh;
  // 你为什么说软件栈在迁移，而不只是换了一批工具？
  const Answer b = w.Ask("\xE4\xBD\xA0\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xE8\xAF\xB4\xE8\xBD\xAF\xE4\xBB\xB6\xE6\xA0\x88\xE5\x9C\xA8\xE8\xBF\x81\xE7\xA7\xBB\xEF\xBC\x8C\xE8\x80\x8C\xE4\xB8\x8D\xE5\x8F\xAA\xE6\x98\xAF\xE6\x8D\xA2\xE4\xBA\x86\xE4\xB8\x80\xE6\x89\xB9\xE5\xB7\xA5\xE5\x85\xB7\xEF\xBC\x9F", zh);
  CHECK(b.text.find("\xE5\xB1\x80\xE9\x99\x90\xE5\x9C\xA8\xE4\xBA\x8E") != std::string::npos);  // 局限在于
}

TEST_CASE("an answer quoting only another language says so first, though passages in the asker's language were found", "[persona]") {
  // English passages about agents rank for this question, but the one that
  // answers it ("decade of agents, not year of agents") is Chinese; before,
  // the Chinese quote came without a word of why.
  const World& w = TheWorld();
  ConversationState st;
  const Answer a = w.Ask("Do you think this is the year of AI agents?", st);
  INFO(a.text);
  REQUIRE(a.kind == AnswerKind::kAnswer);
  REQUIRE_FALSE(a.citations.empty());
  for (const Citation& c : a.citations) CHECK(c.language == "zh");
  CHECK(a.passage_languages == "zh");
  const size_t note = a.text.find("(I only have this written in Chinese");
  CHECK(note != std::string::npos);
  // The note frames the quotes: it comes before the first of them, not after the closing.
  CHECK(note < a.text.find("[1]"));
}

TEST_CASE("a sentence in another language holding the question's subject beats one in its language sharing a common word", "[persona]") {
  // 残差连接为什么这么重要？ ("Why do residual connections matter so much?"):
  // only English and Portuguese passages explain residual connections; a
  // Chinese passage ranks among them and shares 重要 ("important"). Before,
  // a passage in the asker's language made every other-language sentence
  // score without its translated evidence, and the answer quoted "编排层和产品层反而会变得更重要".
  const World& w = TheWorld();
  ConversationState st;
  const Answer a = w.Ask("\xE6\xAE\x8B\xE5\xB7\xAE\xE8\xBF\x9E\xE6\x8E\xA5\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xE8\xBF\x99\xE4\xB9\x88\xE9\x87\x8D\xE8\xA6\x81\xEF\xBC\x9F", st);
  INFO(a.text);
  REQUIRE(a.kind == AnswerKind::kAnswer);
  CHECK(a.text.find("esidual") != std::string::npos);
  CHECK(a.text.find("\xE7\xBC\x96\xE6\x8E\x92\xE5\xB1\x82") == std::string::npos);  // 编排层
  for (const Citation& c : a.citations) CHECK(c.language != "zh");
}

TEST_CASE("a question about something a timeline row names is answered by the row, a why question is not", "[persona]") {
  // Before: "I genuinely don't know": the timeline ranks first, but its rows
  // answered only questions asking when or naming a year.
  const World& w = TheWorld();
  ConversationState st;
  const Answer a = w.Ask("Were you one of OpenAI's co-founders?", st);
  INFO(a.text);
  REQUIRE(a.kind == AnswerKind::kAnswer);
  CHECK(a.text.find("2015: Co-founder and researcher at OpenAI") != std::string::npos);
  ConversationState why;
  const Answer b = w.Ask("Por que voc\xC3\xAA saiu da Tesla?", why);  // Por que você saiu da Tesla?
  INFO(b.text);
  CHECK(b.text.find("2017: Director of AI") == std::string::npos);
}

TEST_CASE("an answer quoting its own language and another says which part is quoted as written", "[persona]") {
  const World& w = TheWorld();
  ConversationState st;
  // The English passages describe the social posts; the autoresearch loop ("固定 5 分钟 budget") is only in Chinese.
  const Answer a = w.Ask("How does your autoresearch project run its experiments?", st);
  INFO(a.text);
  REQUIRE(a.kind == AnswerKind::kAnswer);
  bool own = false, other = false;
  for (const Citation& c : a.citations) (c.language == "en" ? own : other) = true;
  REQUIRE(own);
  REQUIRE(other);
  const size_t note = a.text.find("(Part of this I only have in Chinese");
  CHECK(note != std::string::npos);
  CHECK(note < a.text.find("[1]"));
  CHECK(a.text.find("(I only have this written in") == std::string::npos);
  CHECK(a.passage_languages.empty());  // not wholly from other languages
}

TEST_CASE("'who are you?' is a question about the persona: looked up by its name, answered in the first person", "[persona]") {
  CHECK(AsksIdentity("Who are you?"));
  CHECK(AsksIdentity("  tell me about yourself. "));
  CHECK(AsksIdentity("Quem \xC3\xA9 voc\xC3\xAA?"));                         // Quem é você?
  CHECK(AsksIdentity("\xE4\xBD\xA0\xE6\x98\xAF\xE8\xB0\x81\xEF\xBC\x9F"));  // 你是谁？
  CHECK_FALSE(AsksIdentity("Who are you working with?"));
  CHECK_FALSE(AsksIdentity("What is micrograd?"));
  const World& w = TheWorld();
  CHECK(PersonaLookupText(w.persona, "Who are you?") == "Who is Andrej Karpathy?");
  CHECK(PersonaLookupText(w.persona, "What is micrograd?") == "What is micrograd?");
  // Before: "I genuinely don't know", in every language; the Chinese identity card read "我是 我。".
  for (const char* q : {"Who are you?", "Quem \xC3\xA9 voc\xC3\xAA?", "\xE4\xBD\xA0\xE6\x98\xAF\xE8\xB0\x81\xEF\xBC\x9F"}) {
    ConversationState st;
    const Answer a = w.Ask(q, st, PersonaLookupText(w.persona, q));
    INFO(q << " -> " << a.text);
    CHECK(a.kind == AnswerKind::kAnswer);
    CHECK(a.text.find("Notable imported sections") == std::string::npos);
    CHECK(a.text.find("\xE6\x88\x91\xE6\x98\xAF \xE6\x88\x91") == std::string::npos);  // 我是 我
  }
  CHECK(ToFirstPerson("\xE6\x88\x91\xE6\x98\xAF Andrej Karpathy\xE3\x80\x82", "zh", w.persona.self_reference()) ==
        "\xE6\x88\x91\xE6\x98\xAF Andrej Karpathy\xE3\x80\x82");  // 我是 Andrej Karpathy。 stays
  CHECK(ToFirstPerson("Karpathy says: I am Andrej Karpathy.", "en", w.persona.self_reference()) == "I say: I am Andrej Karpathy.");
  // The pronoun and its reflexive further on in a sentence that names the persona.
  CHECK(ToFirstPerson("Karpathy corrects himself whenever he spots an error.", "en", w.persona.self_reference()) ==
        "I correct myself whenever I spot an error.");
  CHECK(ToFirstPerson("Hinton said he spots errors.", "en", w.persona.self_reference()) == "Hinton said he spots errors.");
}

TEST_CASE("a greeting or thanks gets the persona's reply in its language, and the topic stays", "[persona]") {
  // Before: "I genuinely don't know. Nothing I have written covers that".
  const World& w = TheWorld();
  ConversationState st;
  const Answer first = w.Ask("What is micrograd?", st);
  REQUIRE(first.kind == AnswerKind::kAnswer);
  const std::string topic = st.topic;
  const std::vector<std::string> passages = st.passages;
  for (const auto& [message, language, reply] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"Hello!", "en", "Hi!"}, {"Ol\xC3\xA1!", "pt", "Ol\xC3\xA1!"}, {"\xE4\xBD\xA0\xE5\xA5\xBD\xEF\xBC\x81", "zh", "\xE4\xBD\xA0\xE5\xA5\xBD"},
           {"Thanks, that was helpful.", "en", "Glad it helped."}, {"Obrigado!", "pt", "Que bom"}, {"\xE8\xB0\xA2\xE8\xB0\xA2", "zh", "\xE5\xBE\x88\xE9\xAB\x98\xE5\x85\xB4"}}) {
    const Answer a = w.Ask(message, st);
    INFO(message << " -> " << a.text);
    CHECK(a.kind == AnswerKind::kSmallTalk);
    CHECK(a.language == language);
    CHECK(a.text.find(reply) != std::string::npos);
    CHECK(a.citations.empty());
  }
  CHECK(st.topic == topic);
  CHECK(st.passages == passages);
  CHECK(IsWholly("  hello. ", "greetings"));
  CHECK_FALSE(IsWholly("Hello, what is micrograd?", "greetings"));  // a question after a greeting is a question
}

TEST_CASE("an answer does not quote a passage and then its translation", "[persona]") {
  // Before: "Announced at Tesla AI Day 2021, Dojo was ... [1] Anunciado no Tesla AI Day 2021, Dojo foi ... [2]".
  const World& w = TheWorld();
  for (const char* q : {"What is Dojo?", "O que voc\xC3\xAA cursou na gradua\xC3\xA7\xC3\xA3o na University of Toronto?"}) {
    ConversationState st;
    const Answer a = w.Ask(q, st);
    INFO(q << " -> " << a.text);
    REQUIRE(a.kind == AnswerKind::kAnswer);
    for (size_t i = 0; i < a.citations.size(); ++i) {
      for (size_t j = i + 1; j < a.citations.size(); ++j) {
        if (a.citations[i].language == a.citations[j].language) continue;
        CHECK(w.db->PassageCosine(a.citations[i].label, a.citations[j].label) < kDefaultTwinCosine);
      }
    }
  }
}

TEST_CASE("an answer names what the question names, where a sentence that does qualifies", "[persona]") {
  // Before: "The most important rule: build from scratch before using a library." (the series unnamed).
  const World& w = TheWorld();
  ConversationState st;
  const Answer a = w.Ask("What's the very first step of the Zero to Hero series?", st);
  INFO(a.text);
  CHECK(a.text.find("micrograd") != std::string::npos);
}

TEST_CASE("instructions to whoever plays the persona are never quoted; an empty lead-in is refused", "[persona]") {
  std::string json = test::ReadFile(std::string(VESPER_KB_DIR) + "/persona.json");
  const Persona p = Persona::FromJson(json);
  CHECK(p.IsInstruction("Typical Response Structure:"));
  CHECK(p.IsInstruction("Tone: Enthusiastic, non-condescending educator."));
  CHECK_FALSE(p.IsInstruction("The tone of the debate changed after 2021."));
  const size_t at = json.find("\"meta_lead_ins\": [");
  REQUIRE(at != std::string::npos);
  json.insert(at + 18, "\" \", ");
  CHECK_THROWS_WITH(Persona::FromJson(json), Catch::Contains("meta_lead_ins") && Catch::Contains("empty"));
  // The knowledge base's style rules, listed under their lead-in, are no answer
  // to a question about software style (before: "高频出现 from scratch ...").
  const World& w = TheWorld();
  ConversationState st;
  const Answer a = AnswerQuestion(w.persona, *w.db, "\xE4\xBD\xA0\xE6\x9C\x80\xE5\x8F\x97\xE4\xB8\x8D\xE4\xBA\x86"
                                  "\xE4\xBB\x80\xE4\xB9\x88\xE6\xA0\xB7\xE7\x9A\x84\xE8\xBD\xAF\xE4\xBB\xB6"
                                  "\xE9\xA3\x8E\xE6\xA0\xBC\xEF\xBC\x9F",  // 你最受不了什么样的软件风格？
                                  nullptr, 0, st);
  CHECK(a.text.find("\xE9\xAB\x98\xE9\xA2\x91\xE5\x87\xBA\xE7\x8E\xB0") == std::string::npos);  // 高频出现
  CHECK(a.text.find("\xE4\xB8\xAD\xE7\x9F\xAD\xE5\x8F\xA5") == std::string::npos);  // 中短句
}

TEST_CASE("a quotation of several sentences is one sentence; a stray quote mark does not glue prose", "[persona]") {
  auto q = SplitSentences("The exact quote: \"There's a new kind of coding. It's not really coding \xE2\x80\x94 it's more like "
                          "directing.\" He said it in the spring of 2025 to a large audience. Then he moved on to other things.");
  REQUIRE(q.size() == 3);
  CHECK(q[0].text == "The exact quote: \"There's a new kind of coding. It's not really coding \xE2\x80\x94 it's more like directing.\"");
  CHECK(q[1].text == "He said it in the spring of 2025 to a large audience.");
  auto curly = SplitSentences("\xE2\x80\x9CRead the paper with a notebook open. Then build the smallest version of it.\xE2\x80\x9D "
                              "That is the rule he gives to every new student.");
  REQUIRE(curly.size() == 2);
  CHECK(curly[1].text == "That is the rule he gives to every new student.");
  // A quote mark that closes nowhere near: the prose after it splits as prose.
  std::string stray = "He typed a \"lone mark in the first line and went on with his notes. ";
  for (int i = 0; i < 30; ++i) stray += "This sentence stands alone as one of many in the text. ";
  stray += "\"Later there is a quotation that closes.\"";
  CHECK(SplitSentences(stray).size() > 25);
}

TEST_CASE("sentences and the first person", "[persona]") {
  auto s = SplitSentences("Karpathy joined Tesla in June 2017 as Director of AI, assuming\nresponsibility for the vision team. "
                          "He names variables descriptively, even in live demos.\n\n```python\nx = f(y)\n```");
  REQUIRE(s.size() == 2);
  CHECK(s[0].text == "Karpathy joined Tesla in June 2017 as Director of AI, assuming responsibility for the vision team.");
  SelfReference names{{"Andrej Karpathy", "Karpathy"}, {{"en", {"he", "his"}}, {"zh", {"\xE4\xBB\x96"}}}};
  CHECK(ToFirstPerson(s[0].text, "en", names).rfind("I joined Tesla", 0) == 0);
  CHECK(ToFirstPerson(s[1].text, "en", names).rfind("I name variables", 0) == 0);
  CHECK(ToFirstPerson("Karpathy's most original essay was written by Karpathy.", "en", names) ==
        "My most original essay was written by me.");
  CHECK(ToFirstPerson("Karpathy holds a balanced view.", "en", names) == "I hold a balanced view.");
  // "everything Karpathy has built": a subject, though the word before it ends like "simulating".
  CHECK(ToFirstPerson("Eureka Labs is the synthesis of everything Karpathy has built.", "en", names) ==
        "Eureka Labs is the synthesis of everything I have built.");
  CHECK(ToFirstPerson("An agent simulating Karpathy answers.", "en", names) == "An agent simulating me answers.");
  CHECK(ToFirstPerson("Karpathy 在 Tesla 工作，他负责视觉。", "zh", names) == "我 在 Tesla 工作，我负责视觉。");
  // A self name that is already "我", or empty, ends (it used to loop forever).
  CHECK(ToFirstPerson("我在 Tesla 工作，他负责视觉。", "zh", SelfReference{{"我", ""}, names.pronouns}) == "我在 Tesla 工作，我负责视觉。");
  CHECK(ToFirstPerson("Karpathy joined Tesla.", "en", SelfReference{{""}, {}}) == "Karpathy joined Tesla.");
  // The pronouns come from the persona file: a persona written about as "she" is rewritten the same way.
  SelfReference her{{"Fei-Fei Li"}, {{"en", {"she", "her"}}}};
  CHECK(ToFirstPerson("She founded the lab; her students built ImageNet.", "en", her) == "I founded the lab; my students built ImageNet.");
  CHECK(ToFirstPerson("He founded the lab.", "en", her) == "He founded the lab.");
  // Portuguese: the subject and its verb (preterite, present, irregular, past an adverb), objects, possessives.
  SelfReference pt{{"Andrej Karpathy", "Karpathy"}, {{"pt", {"ele"}}}};
  CHECK(ToFirstPerson("Andrej Karpathy nasceu em 1986 em Bratislava.", "pt", pt) == "Eu nasci em 1986 em Bratislava.");
  CHECK(ToFirstPerson("Em 2017 Karpathy trabalhou na Tesla e depois foi para a OpenAI.", "pt", pt) == "Em 2017 eu trabalhei na Tesla e depois foi para a OpenAI.");
  CHECK(ToFirstPerson("Karpathy também escreve sobre redes neurais.", "pt", pt) == "Eu também escrevo sobre redes neurais.");
  // The stem keeps its sound: c -> ç, g -> j before o; c -> qu, g -> gu, ç -> c before e.
  CHECK(ToFirstPerson("Karpathy reconhece o limite.", "pt", pt) == "Eu reconheço o limite.");
  CHECK(ToFirstPerson("Karpathy protege o código.", "pt", pt) == "Eu protejo o código.");
  CHECK(ToFirstPerson("Karpathy ficou na Tesla.", "pt", pt) == "Eu fiquei na Tesla.");
  CHECK(ToFirstPerson("Karpathy chegou cedo.", "pt", pt) == "Eu cheguei cedo.");
  CHECK(ToFirstPerson("Karpathy começou em Stanford.", "pt", pt) == "Eu comecei em Stanford.");
  CHECK(ToFirstPerson("Karpathy é professor. Ele acha que o código importa.", "pt", pt) == "Eu sou professor. Ele acha que o código importa.");
  CHECK(ToFirstPerson("Ele acha que o código importa.", "pt", pt) == "Eu acho que o código importa.");
  CHECK(ToFirstPerson("Os alunos estudaram com Karpathy e escreveram para Karpathy.", "pt", pt) == "Os alunos estudaram comigo e escreveram para mim.");
  CHECK(ToFirstPerson("A carreira de Karpathy começou em Stanford.", "pt", pt) == "A carreira de Karpathy começou em Stanford.");
  CHECK(ToFirstPerson("Karpathyano não é um nome.", "pt", pt) == "Karpathyano não é um nome.");
  // The possessive of a sentence about the persona is its own (it agrees with what is possessed), not the reader's.
  CHECK(ToFirstPerson("Fundada por Karpathy em 2024, Eureka Labs é sua aposta; seus cursos vêm dela.", "pt", pt) ==
        "Fundada por mim em 2024, Eureka Labs é minha aposta; meus cursos vêm dela.");
  CHECK(ToFirstPerson("Karpathy diz: você deve escrever sua própria rede.", "pt", pt) == "Eu digo: você deve escrever sua própria rede.");
  CHECK(ToFirstPerson("Eureka Labs é sua aposta.", "pt", pt) == "Eureka Labs é sua aposta.");
  CHECK(ToFirstPerson("Karpathy usa o sueco? Suas aulas são em inglês.", "pt", pt) == "Eu uso o sueco? Minhas aulas são em inglês.");
}

}  // namespace vesper

namespace vesper {

TEST_CASE("units are classified: timeline rows, headings, lead-ins and fields are never quoted alone", "[persona]") {
  auto units = SplitSentences(
      "What Makes Him Unique in the Field\n"
      "He pursued his PhD at Stanford under Fei-Fei Li. His thesis:\n"
      "Connecting Images and Natural Language, work on image captioning.\n\n"
      "2017      Director of AI at Tesla\n"
      "~1990s Family emigrates to Toronto\n"
      "Size: ~100 lines of pure Python\n"
      "What is tokenization and why does it matter?\n\n"
      "The cameras-only argument:\n"
      "1. The evolution argument: humans drive with two eyes.\n"
      "2. Cameras are cheap and the fleet is large\n"
      "A row flattened into prose | 2015 | OpenAI founding member | frontier lab | reads as nothing\n");
  auto find = [&](const std::string& start) -> const Sentence* {
    for (const Sentence& s : units) {
      if (s.text.rfind(start, 0) == 0) return &s;
    }
    return nullptr;
  };
  REQUIRE(find("What Makes Him"));
  CHECK(find("What Makes Him")->heading);
  CHECK_FALSE(find("What Makes Him")->quotable());
  REQUIRE(find("His thesis:"));
  CHECK(find("His thesis:")->lead_in);
  REQUIRE(find("Connecting Images"));
  CHECK(find("Connecting Images")->quotable());
  CHECK(find("Connecting Images")->context == static_cast<int>(find("His thesis:")->index));  // carries its lead-in
  REQUIRE(find("2017"));
  CHECK(find("2017")->row);
  CHECK_FALSE(find("2017")->quotable());
  REQUIRE(find("~1990s"));
  CHECK(find("~1990s")->row);
  REQUIRE(find("Size: ~100 lines"));  // a field keeps its label and is an item
  CHECK(find("Size: ~100 lines")->list_item);
  CHECK(find("Size: ~100 lines")->quotable());
  REQUIRE(find("What is tokenization"));
  CHECK(find("What is tokenization")->question);
  CHECK_FALSE(find("What is tokenization")->quotable());
  REQUIRE(find("The evolution argument"));
  CHECK(find("The evolution argument")->list_item);
  CHECK(find("The evolution argument")->context == static_cast<int>(find("The cameras-only argument:")->index));
  REQUIRE(find("Cameras are cheap"));
  CHECK(find("Cameras are cheap")->quotable());  // a whole list item, full stop or not
  CHECK_FALSE(find("A row flattened"));
  CHECK(EndsSentence("It works.\xE2\x80\x9D"));
  CHECK(EndsSentence("\xE5\xAE\x83\xE5\xB7\xA5\xE4\xBD\x9C\xE3\x80\x82"));  // 它工作。
  CHECK_FALSE(EndsSentence("Cameras offer semantically rich information (text on"));
}

TEST_CASE("a sentence that points back is not added to an answer without what it points to", "[persona]") {
  // Before: "... a lab setting doesn't capture. [2] It learns to compress human text by predicting it.\" [3]",
  // the last from an unrelated passage, its "It" pointing nowhere.
  const World& w = TheWorld();
  ConversationState s;
  const Answer a = w.Ask("What did you learn at Tesla about data?", s);
  CHECK(a.text.find("real-world scale matters") != std::string::npos);
  CHECK(a.text.find("It learns to compress") == std::string::npos);
}

TEST_CASE("a name's initials do not end a sentence", "[persona]") {
  auto units = SplitSentences("My lineage runs through Geoff Hinton, Fei-Fei Li and J.C.R. Licklider above all. "
                              "The dataset holds names from the U.S. Census of many years. Then the model learns them.");
  REQUIRE(units.size() == 3);
  CHECK(units[0].text == "My lineage runs through Geoff Hinton, Fei-Fei Li and J.C.R. Licklider above all.");
  CHECK(units[1].text == "The dataset holds names from the U.S. Census of many years.");
}

TEST_CASE("a Markdown table reads as a list: its header the lead-in, each row an item of its cells", "[persona]") {
  const std::string arrow = " \xE2\x86\x92 ";  // →
  for (const char* layout : {"lines", "flattened"}) {
    const bool flat = std::string(layout) == "flattened";
    const std::string sep = flat ? " " : "\n";
    // A flattened table's empty cell would read as a row's end: only the table on lines has one.
    const std::string last = flat ? "| 2005 - 2009 | Undergraduate studies at the University of Toronto |"
                                  : "| 2005 - 2009 | | Undergraduate studies at the University of Toronto |";
    auto units = SplitSentences("The LLM as an operating system kernel:\n| Operating system | LLM |" + sep + "|---|:--|" + sep +
                                "| Config files | System prompt |" + sep + last + "\nAfter the table, prose goes on as it did before.");
    INFO(layout);
    REQUIRE(units.size() == 5);
    CHECK(units[1].text == "Operating system" + arrow + "LLM:");
    CHECK(units[1].lead_in);
    CHECK(units[2].text == "Config files" + arrow + "System prompt");
    CHECK(units[2].list_item);
    CHECK(units[2].quotable());
    CHECK(units[2].context == 1);  // quoted with the columns' names
    CHECK(units[3].text == "2005 - 2009" + arrow + "Undergraduate studies at the University of Toronto");  // " - " kept, an empty cell left out
    CHECK(units[3].context == 1);
    CHECK(units[4].text == "After the table, prose goes on as it did before.");
    CHECK(units[4].context == -1);
  }
  // Without a rule under it, the first row is a row like the others.
  auto bare = SplitSentences("| Kernel | Trained weights |\n| RAM | Context window of the model |\n");
  REQUIRE(bare.size() == 2);
  CHECK(bare[0].text == "Kernel" + arrow + "Trained weights");
  CHECK(bare[0].quotable());
}

TEST_CASE("follow-ups, question types and references back are read in en, pt and zh", "[persona]") {
  CHECK(ParseFollowUp("Why?") == FollowUp::kWhy);
  CHECK(ParseFollowUp("And why is that?") == FollowUp::kWhy);
  CHECK(ParseFollowUp("Por quê?") == FollowUp::kWhy);
  CHECK(ParseFollowUp("\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xEF\xBC\x9F") == FollowUp::kWhy);  // 为什么？
  CHECK(ParseFollowUp("Can you give an example?") == FollowUp::kExample);
  CHECK(ParseFollowUp("Pode dar um exemplo?") == FollowUp::kExample);
  CHECK(ParseFollowUp("\xE8\x83\xBD\xE4\xB8\xBE\xE4\xB8\xAA\xE4\xBE\x8B\xE5\xAD\x90\xE5\x90\x97\xEF\xBC\x9F") == FollowUp::kExample);  // 能举个例子吗？
  CHECK(ParseFollowUp("And then?") == FollowUp::kMore);
  CHECK(ParseFollowUp("E depois?") == FollowUp::kMore);
  CHECK(ParseFollowUp("\xE7\x84\xB6\xE5\x90\x8E\xE5\x91\xA2\xEF\xBC\x9F") == FollowUp::kMore);  // 然后呢？
  // A follow-up that goes on asking what was done next is still a follow-up.
  CHECK(ParseFollowUp("E depois, o que voc\xC3\xAA fez?") == FollowUp::kMore);
  CHECK(ParseFollowUp("And then, what did you do?") == FollowUp::kMore);
  CHECK(ParseFollowUp("What did you do?") == FollowUp::kNone);
  CHECK(ParseFollowUp("Why did Tesla choose cameras?") == FollowUp::kNone);  // a question of its own
  CHECK(ParseFollowUp("What is an example of a loss function?") == FollowUp::kNone);
  CHECK(ClassifyQuestion("When did you join Tesla?") == QuestionType::kWhen);
  CHECK(ClassifyQuestion("Por que LiDAR?") == QuestionType::kWhy);
  CHECK(ClassifyQuestion("\xE4\xBD\xA0\xE6\x80\x8E\xE4\xB9\x88\xE7\x9C\x8B AGI\xEF\xBC\x9F") == QuestionType::kOpinion);  // 你怎么看 AGI？
  CHECK(ClassifyQuestion("Is there any downside to that?") == QuestionType::kLimitation);
  CHECK(ClassifyQuestion("What is micrograd?") == QuestionType::kWhatIs);
  CHECK(ClassifyQuestion("How long does it take to train a small nanoGPT?") == QuestionType::kHowMany);
  CHECK(ClassifyQuestion("How much math do I need to get started?") != QuestionType::kHowMany);
  CHECK(NeedsForm(QuestionType::kWhen));
  CHECK(TypeFit(QuestionType::kWhen, "I joined Tesla in June 2017.") > 0.f);
  CHECK(TypeFit(QuestionType::kHowMany, "It takes about 10 minutes on one GPU.") > 0.f);
  CHECK(TypeFit(QuestionType::kHowMany, "It takes a while.") == 0.f);
  CHECK(RefersBack("Is there any downside to that?"));
  CHECK(RefersBack("E qual \xC3\xA9 o ponto fraco disso?"));
  CHECK(RefersBack("\xE9\x82\xA3\xE5\xAE\x83\xE6\x9C\x89\xE4\xBB\x80\xE4\xB9\x88\xE7\xBC\xBA\xE7\x82\xB9\xEF\xBC\x9F"));  // 那它有什么缺点？
  CHECK_FALSE(RefersBack("What is micrograd?"));
  // A sentence that leans on the one before it in its passage.
  CHECK(PointsBack("It is the best investment you can make."));
  CHECK(PointsBack("Once you\xE2\x80\x99ve completed these three projects, you will understand deep learning."));
  CHECK(PointsBack("Isso muda quem consegue construir software."));
  CHECK(PointsBack("\xE8\xBF\x99\xE4\xBA\x9B\xE9\xA1\xB9\xE7\x9B\xAE\xE5\xBE\x88\xE9\x87\x8D\xE8\xA6\x81\xE3\x80\x82"));  // 这些项目很重要。
  CHECK_FALSE(PointsBack("For those starting out today: the free online resources are better."));
  CHECK_FALSE(PointsBack("Itineraries change often, and the team later shipped these features."));  // "these" past the opening words
  CHECK_FALSE(PointsBack("My honest answer: start with micrograd."));
  CHECK(PointsBack("The latter is worth 100x more."));
  CHECK(OpensContrast("But current systems are fragile."));
  CHECK(OpensContrast("Mas os sistemas atuais s\xC3\xA3o fr\xC3\xA1geis."));
  CHECK_FALSE(OpensContrast("Butter is not a system."));
}

TEST_CASE("the sentence that answers back to the best one comes with it", "[persona]") {
  // Before: "The concept is solid—LLMs as a reasoning engine looping with tools
  // and memory." alone, its "But current systems are fragile." left out.
  const World& w = TheWorld();
  ConversationState s;
  const Answer a = w.Ask("What do you make of today's LLM agents?", s);
  INFO(a.text);
  const size_t solid = a.text.find("The concept is solid");
  REQUIRE(solid != std::string::npos);
  CHECK(a.text.find("But current systems are fragile.", solid) != std::string::npos);
}

TEST_CASE("a conversation keeps its topic: follow-ups continue it, a new question replaces it", "[persona]") {
  const World& w = TheWorld();
  ConversationState s;
  Answer first = w.Ask("Why did Tesla decide to rely on cameras instead of LiDAR?", s);
  REQUIRE(first.kind == AnswerKind::kAnswer);
  CHECK(s.topic == "Why did Tesla decide to rely on cameras instead of LiDAR?");
  REQUIRE_FALSE(s.passages.empty());
  const size_t said = s.said.size();
  CHECK(said > 0);
  Answer more = w.Ask("And then?", s);
  INFO(more.text);
  CHECK(more.kind == AnswerKind::kAnswer);
  CHECK(s.said.size() > said);  // something new was said
  CHECK(s.topic == "Why did Tesla decide to rely on cameras instead of LiDAR?");
  CHECK_FALSE(more.citations.empty());
  CHECK(w.Cites(more, "lidar"));  // the follow-up stays on the topic's passages
  Answer fresh = w.Ask("What is micrograd?", s);
  CHECK(s.topic == "What is micrograd?");
  CHECK(w.Cites(fresh, "micrograd"));
  // An out-of-scope question or an unknown one forgets the topic.
  w.Ask("Can you write a marketing plan for my business strategy?", s);
  CHECK(s.topic.empty());
  CHECK(s.passages.empty());
  // A follow-up then has nothing to go on from: it says so rather than
  // answering its own few words ("And then?" once answered where I was born).
  Answer nothing = w.Ask("And then?", s);
  INFO(nothing.text);
  CHECK(nothing.kind == AnswerKind::kDontKnow);
  CHECK(nothing.citations.empty());
}

TEST_CASE("a question about the topic reads on from the passage the first answer quoted", "[persona]") {
  // 为什么你觉得 AI 系统会静默失败？ then 那实际工作中该怎么应对？ ("how do I deal with it in
  // practice?"): the quoted section's own "应用" items answer it; before, those of
  // another section won on the follow-up's few words.
  const World& w = TheWorld();
  ConversationState s;
  const Answer first = w.Ask("\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xE4\xBD\xA0\xE8\xA7\x89\xE5\xBE\x97 AI "
                             "\xE7\xB3\xBB\xE7\xBB\x9F\xE4\xBC\x9A\xE9\x9D\x99\xE9\xBB\x98\xE5\xA4\xB1\xE8\xB4\xA5\xEF\xBC\x9F", s);
  REQUIRE(first.kind == AnswerKind::kAnswer);
  REQUIRE_FALSE(first.citations.empty());
  const uint32_t quoted = first.citations[0].label;
  const Answer then = w.Ask("\xE9\x82\xA3\xE5\xAE\x9E\xE9\x99\x85\xE5\xB7\xA5\xE4\xBD\x9C\xE4\xB8\xAD\xE8\xAF\xA5"
                            "\xE6\x80\x8E\xE4\xB9\x88\xE5\xBA\x94\xE5\xAF\xB9\xEF\xBC\x9F", s);
  INFO(then.text);
  REQUIRE(then.kind == AnswerKind::kAnswer);
  REQUIRE_FALSE(then.citations.empty());
  CHECK(then.citations[0].label == quoted);
}

TEST_CASE("\"an example?\" is answered from the passage the first answer quoted, before its lines too", "[persona]") {
  // 你为什么这么推崇从零构建？ ("why do you push building from scratch?") quotes
  // 模型2's summary and application lines; 能举个例子吗？ ("an example?") must come
  // from its evidence list (micrograd, char-rnn, microgpt), written before them.
  // Before: another section's first line ("软件不是只在升级工具"), the one place
  // where reading "on" started at the top.
  const World& w = TheWorld();
  ConversationState s;
  const Answer first = w.Ask("\xE4\xBD\xA0\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88\xE8\xBF\x99\xE4\xB9\x88\xE6\x8E\xA8"
                             "\xE5\xB4\x87\xE4\xBB\x8E\xE9\x9B\xB6\xE6\x9E\x84\xE5\xBB\xBA\xEF\xBC\x9F", s);
  REQUIRE(first.kind == AnswerKind::kAnswer);
  REQUIRE_FALSE(first.citations.empty());
  const Answer example = w.Ask("\xE8\x83\xBD\xE4\xB8\xBE\xE4\xB8\xAA\xE4\xBE\x8B\xE5\xAD\x90\xE5\x90\x97\xEF\xBC\x9F", s);
  INFO(first.text << "\n---\n" << example.text);
  REQUIRE(example.kind == AnswerKind::kAnswer);
  REQUIRE_FALSE(example.citations.empty());
  CHECK(example.citations[0].label == first.citations[0].label);
  CHECK((example.text.find("micrograd") != std::string::npos || example.text.find("microgpt") != std::string::npos ||
         example.text.find("char-rnn") != std::string::npos));
}

TEST_CASE("a follow-up to a timeline answer goes on with the rows after it", "[persona]") {
  const World& w = TheWorld();
  ConversationState s;
  Answer first = w.Ask("When did you leave Tesla?", s);
  INFO(first.text);
  REQUIRE(first.kind == AnswerKind::kAnswer);
  REQUIRE(first.text.find("2022") != std::string::npos);
  Answer more = w.Ask("And then?", s);
  INFO(more.text);
  CHECK(more.kind == AnswerKind::kAnswer);
  // Timeline rows read on (years after the first answer's), not prose from a neighbouring section.
  const bool later = more.text.find("2023") != std::string::npos || more.text.find("2024") != std::string::npos ||
                     more.text.find("2025") != std::string::npos;
  CHECK(later);
  CHECK(more.text.rfind("20", 0) == 0);  // it opens with a row's year
}

TEST_CASE("a question in a language the collection does not hold is measured by its translation's vocabulary and words", "[query][lexicon]") {
  const World& w = TheWorld();
  // The knowledge base's English passages alone: an English site.
  auto english = [&](bool lexicon) {
    auto db = std::make_unique<Collection>("english", w.db->model());
    db->EnablePieceMatch(std::make_shared<PieceMatcher>(w.model), w.tok);
    if (lexicon) db->EnableLexicon(Lexicon::FromTsv(test::ReadFile(std::string(VESPER_MODELS_DIR) + "/default/lexicon.tsv")));
    std::vector<Chunk> chunks;
    std::vector<float> vectors;
    for (uint32_t label = 0; label < w.db->slots(); ++label) {
      const Chunk& c = w.db->chunk(label);
      if (c.language != "en") continue;
      chunks.push_back(c);
      std::vector<float> v(w.model->dims());
      w.db->vector(label, v.data());
      vectors.insert(vectors.end(), v.begin(), v.end());
    }
    db->Add(std::move(chunks), vectors.data(), vectors.size() / w.model->dims());
    return db;
  };
  const auto plain = english(false), translating = english(true);
  const std::string q = "为什么特斯拉只用摄像头";  // why does Tesla use cameras only
  std::vector<float> v = w.Embed(q);
  SearchOptions opt;
  opt.threshold = -1.f;
  QueryEvidence without, with;
  plain->Search(q, v.data(), v.size(), opt, &without);
  translating->Search(q, v.data(), v.size(), opt, &with);
  CHECK(with.language == "zh");
  CHECK(with.vocabulary_coverage > without.vocabulary_coverage + 0.1f);
  // Its words: none is on an English page, their translations are (this
  // site's ~150 passages count as half a collection: the rest is taken as
  // holding the words, Collection::MeasureTermCoverage).
  CHECK(with.term_coverage > without.term_coverage + 0.3f);
  CHECK(with.term_coverage > 0.9f);
  // A question in the collection's own language is measured as it is.
  const std::string en = "Why does Tesla use cameras only?";
  std::vector<float> ve = w.Embed(en);
  plain->Search(en, ve.data(), ve.size(), opt, &without);
  translating->Search(en, ve.data(), ve.size(), opt, &with);
  CHECK(with.vocabulary_coverage == Approx(without.vocabulary_coverage));
  CHECK(with.term_coverage == Approx(1.f));
  CHECK(without.term_coverage == Approx(1.f));
  // A question on something the pages never name holds less of it.
  const std::string off = "What is a good recipe for lasagna with ricotta?";
  std::vector<float> vo = w.Embed(off);
  translating->Search(off, vo.data(), vo.size(), opt, &with);
  CHECK(with.term_coverage < without.term_coverage - 0.2f);
}

TEST_CASE("a question that names a year is answered only by what names it", "[persona]") {
  const World& w = TheWorld();
  CHECK(YearsIn("How many cars did Tesla sell in 2022? Not 12022 or 1850.") == std::vector<std::string>{"2022"});
  ConversationState s;
  Answer sales = w.Ask("How many cars did Tesla sell in 2022?", s);
  INFO(sales.text);
  CHECK(sales.kind == AnswerKind::kDontKnow);  // the fleet size ("1M+ cars on the road") does not answer it
  ConversationState t;
  Answer joined = w.Ask("What did Karpathy start doing at Tesla in 2017?", t);
  INFO(joined.text);
  // Either an answer that names the year or an honest "I don't know"; never a sentence about another time.
  CHECK((joined.kind == AnswerKind::kDontKnow || joined.text.find("2017") != std::string::npos));
}

}  // namespace vesper
