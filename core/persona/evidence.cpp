#include "core/persona/evidence.h"

#include <algorithm>
#include <cstring>
#include <unordered_set>

#include "core/collection/collection.h"
#include "core/persona/text_match.h"
#include "core/text/words.h"
#include "core/util/utf8.h"

namespace vesper {

namespace {

bool HasAny(const std::string& folded, std::initializer_list<const char*> cues) {
  for (const char* c : cues) {
    if (ContainsWord(folded, c)) return true;
  }
  return false;
}

bool StartsWithAny(const std::string& folded, std::initializer_list<const char*> cues) {
  for (const char* c : cues) {
    std::string_view cue(c);
    if (folded.compare(0, cue.size(), cue) != 0) continue;
    // A Latin cue is a whole word; a Han one needs no boundary.
    const unsigned char next = folded.size() > cue.size() ? static_cast<unsigned char>(folded[cue.size()]) : ' ';
    if (static_cast<unsigned char>(cue[0]) >= 0x80 || !std::isalnum(next)) return true;
  }
  return false;
}

bool HasYear(std::string_view s) {
  size_t run = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    run = (s[i] >= '0' && s[i] <= '9') ? run + 1 : 0;
    const bool boundary = i + 1 >= s.size() || s[i + 1] < '0' || s[i + 1] > '9';
    if (run == 4 && boundary && (s[i - 3] == '1' || s[i - 3] == '2')) return true;
  }
  return false;
}

bool HasNumber(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    const char32_t cp = utf8::Next(s, i);
    // Digits, and the Han numerals 一 to 十, 百, 千, 万.
    if ((cp >= '0' && cp <= '9') || cp == 0x4E00 || cp == 0x4E8C || cp == 0x4E09 || cp == 0x56DB || cp == 0x4E94 ||
        cp == 0x516D || cp == 0x4E03 || cp == 0x516B || cp == 0x4E5D || cp == 0x5341 || cp == 0x767E || cp == 0x5343 ||
        cp == 0x4E07)
      return true;
  }
  return false;
}

// A digit run that is not a year ("~100 lines", "10 minutes", "1M+").
bool HasCount(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    if (s[i] < '0' || s[i] > '9') {
      ++i;
      continue;
    }
    size_t j = i;
    while (j < s.size() && s[j] >= '0' && s[j] <= '9') ++j;
    const bool year = j - i == 4 && (s[i] == '1' || s[i] == '2');
    if (!year) return true;
    i = j;
  }
  return false;
}

// Two capitalised words in a row past the sentence's first ("Fei-Fei Li", "Geoffrey Hinton").
bool HasName(std::string_view s) {
  int caps = 0;
  bool first = true;
  for (size_t i = 0; i < s.size();) {
    while (i < s.size() && s[i] == ' ') ++i;
    size_t b = i;
    while (i < s.size() && s[i] != ' ') ++i;
    if (b == i) break;
    const bool cap = s[b] >= 'A' && s[b] <= 'Z';
    if (cap && !first && ++caps >= 2) return true;
    if (!cap) caps = 0;
    first = false;
  }
  return false;
}

}  // namespace

QuestionType ClassifyQuestion(std::string_view question) {
  const std::string f = FoldText(question);
  // Opinion before "how" (怎么看 is "what do you think", 怎么 alone is "how").
  if (HasAny(f, {"think", "opinion", "view", "views", "believe", "feel about", "acha", "pensa", "opiniao", "visao",
                 "\xE6\x80\x8E\xE4\xB9\x88\xE7\x9C\x8B", "\xE7\x9C\x8B\xE6\xB3\x95", "\xE8\xAE\xA4\xE4\xB8\xBA",
                 "\xE8\xA7\x82\xE7\x82\xB9"}))  // 怎么看 看法 认为 观点
    return QuestionType::kOpinion;
  if (HasAny(f, {"downside", "downsides", "drawback", "drawbacks", "weakness", "weak point", "limitation", "limitations",
                 "fall apart", "fails", "ponto fraco", "desvantagem", "desvantagens", "limitacao", "limitacoes", "lado ruim",
                 "\xE7\xBC\xBA\xE7\x82\xB9", "\xE5\xB1\x80\xE9\x99\x90", "\xE5\xBC\xB1\xE7\x82\xB9",  // 缺点 局限 弱点
                 "\xE4\xB8\x8D\xE8\xAF\xA5\xE7\x94\xA8", "\xE9\xA3\x8E\xE9\x99\xA9"}))  // 不该用 风险
    return QuestionType::kLimitation;
  // "How much math do I need?" wants no number; "how many" and "how long" do.
  if (HasAny(f, {"how many", "how long", "quantos", "quantas", "quanto tempo", "\xE5\xA4\x9A\xE5\xB0\x91",
                 "\xE5\x87\xA0\xE4\xB8\xAA", "\xE5\x87\xA0\xE5\xB9\xB4", "\xE5\xA4\x9A\xE4\xB9\x85"}))  // 多少 几个 几年 多久
    return QuestionType::kHowMany;
  if (HasAny(f, {"when", "what year", "which year", "quando", "que ano", "em que ano",
                 "\xE4\xBB\x80\xE4\xB9\x88\xE6\x97\xB6\xE5\x80\x99", "\xE5\x93\xAA\xE4\xB8\x80\xE5\xB9\xB4",
                 "\xE5\x93\xAA\xE5\xB9\xB4", "\xE4\xBD\x95\xE6\x97\xB6"}))  // 什么时候 哪一年 哪年 何时
    return QuestionType::kWhen;
  if (HasAny(f, {"why", "por que", "porque", "pra que", "\xE4\xB8\xBA\xE4\xBB\x80\xE4\xB9\x88", "\xE4\xB8\xBA\xE4\xBD\x95",
                 "\xE5\x8E\x9F\xE5\x9B\xA0"}))  // 为什么 为何 原因
    return QuestionType::kWhy;
  if (HasAny(f, {"who", "whom", "quem", "\xE8\xB0\x81"})) return QuestionType::kWho;  // 谁
  if (HasAny(f, {"where", "onde", "\xE5\x93\xAA\xE9\x87\x8C", "\xE5\x9C\xA8\xE5\x93\xAA", "\xE5\x93\xAA\xE5\x84\xBF"}))
    return QuestionType::kWhere;  // 哪里 在哪 哪儿
  if (HasAny(f, {"what is", "what are", "whats", "what does", "mean", "o que e", "o que sao", "o que significa",
                 "\xE4\xBB\x80\xE4\xB9\x88\xE6\x98\xAF", "\xE6\x98\xAF\xE4\xBB\x80\xE4\xB9\x88",
                 "\xE6\x8C\x87\xE7\x9A\x84\xE6\x98\xAF"}))  // 什么是 是什么 指的是
    return QuestionType::kWhatIs;
  if (HasAny(f, {"how", "como", "\xE6\x80\x8E\xE4\xB9\x88", "\xE5\xA6\x82\xE4\xBD\x95", "\xE6\x80\x8E\xE6\xA0\xB7"}))
    return QuestionType::kHow;  // 怎么 如何 怎样
  return QuestionType::kFact;
}

namespace {

// The SplitWords keys of a text, each once.
std::unordered_set<std::string> KeysOf(std::string_view text) {
  std::unordered_set<std::string> keys;
  SplitWords(text, [&](WordSpan&& w) { keys.insert(std::move(w.term)); });
  return keys;
}

}  // namespace

QuestionTerms TermsOf(std::string_view question, const Collection& collection) {
  constexpr float kUnseen = 0.999f;  // Rarity() of a word in no passage
  QuestionTerms out;
  std::unordered_set<std::string> seen;
  SplitWords(question, [&](WordSpan&& w) {
    const bool cjk = static_cast<unsigned char>(w.term[0]) >= 0xE0;
    if ((!cjk && w.term.size() < 2) || FunctionWords().count(w.term) || !seen.insert(w.term).second) return;
    // A word no passage holds cannot tell passages' sentences apart.
    const float weight = collection.TermRarity(w.term);
    if (weight >= kUnseen) return;
    out.words.push_back(std::move(w.term));
    out.weights.push_back(weight);
    out.total += weight;
  });
  return out;
}

float SharedEvidence(const QuestionTerms& terms, std::string_view text) {
  if (terms.total <= 0.f) return 0.f;
  const std::unordered_set<std::string> have = KeysOf(text);
  float got = 0.f;
  for (size_t i = 0; i < terms.words.size(); ++i) {
    if (have.count(terms.words[i])) got += terms.weights[i];
  }
  return got / terms.total;
}

TranslatedTerms TranslatedTermsOf(std::string_view question, const std::string& from, const std::string& to,
                                  const Collection& collection) {
  constexpr float kUnseen = 0.999f;  // as in TermsOf
  TranslatedTerms out;
  for (const TermGroup& group : collection.Translate(question, from, to)) {
    std::vector<std::vector<std::string>> alternatives;
    float weight = 0.f;
    for (const std::string& phrase : group) {
      std::vector<std::string> keys;
      float rarity = 0.f;
      bool seen = true;
      SplitWords(phrase, [&](WordSpan&& w) {
        const float r = collection.TermRarity(w.term);
        seen &= r < kUnseen;
        rarity = std::max(rarity, r);
        keys.push_back(std::move(w.term));
      });
      if (keys.empty() || !seen) continue;
      weight = std::max(weight, rarity);
      alternatives.push_back(std::move(keys));
    }
    if (alternatives.empty()) continue;
    out.words.push_back(std::move(alternatives));
    out.weights.push_back(weight);
    out.total += weight;
  }
  return out;
}

float SharedEvidence(const TranslatedTerms& terms, std::string_view text) {
  if (terms.total <= 0.f) return 0.f;
  const std::unordered_set<std::string> have = KeysOf(text);
  float got = 0.f;
  for (size_t i = 0; i < terms.words.size(); ++i) {
    // A translation of several words counts for the share of them the text holds ("phd thesis" in "His thesis:").
    float best = 0.f;
    for (const std::vector<std::string>& keys : terms.words[i]) {
      const size_t held = std::count_if(keys.begin(), keys.end(), [&](const std::string& k) { return have.count(k) > 0; });
      best = std::max(best, static_cast<float>(held) / keys.size());
    }
    got += best * terms.weights[i];
  }
  return got / terms.total;
}

std::string CountedWord(std::string_view question) {
  const std::string f = FoldText(question);
  struct Cue { const char* text; bool head_last; };
  static const Cue kCues[] = {{"how many ", true}, {"quantos ", false}, {"quantas ", false}};
  for (const Cue& cue : kCues) {
    const size_t at = f.find(cue.text);
    if (at == std::string::npos) continue;
    std::vector<std::string> phrase;  // the content words right after the cue
    bool open = true;
    SplitWords(std::string_view(f).substr(at + std::strlen(cue.text)), [&](WordSpan&& w) {
      if (!open) return;
      if (FunctionWords().count(w.term)) open = phrase.empty();  // a leading article is skipped; a later one ends it
      else phrase.push_back(std::move(w.term));
    });
    if (phrase.empty()) return {};
    return cue.head_last ? phrase.back() : phrase.front();
  }
  return {};
}

bool NeedsForm(QuestionType type) { return type == QuestionType::kWhen || type == QuestionType::kHowMany; }

namespace {

bool IsAsciiDigit(char c) { return c >= '0' && c <= '9'; }

// The 4-digit runs of text that read as years of the last two centuries.
template <typename F>
void ForEachYear(std::string_view text, F&& f) {
  constexpr size_t kYearDigits = 4;
  for (size_t i = 0; i + kYearDigits <= text.size(); ++i) {
    if (!IsAsciiDigit(text[i]) || (i > 0 && IsAsciiDigit(text[i - 1]))) continue;
    size_t e = i;
    while (e < text.size() && IsAsciiDigit(text[e])) ++e;
    const std::string_view run = text.substr(i, e - i);
    if (run.size() == kYearDigits && (run.rfind("19", 0) == 0 || run.rfind("20", 0) == 0)) f(run);
    i = e;
  }
}

}  // namespace

std::vector<std::string> YearsIn(std::string_view text) {
  std::vector<std::string> years;
  ForEachYear(text, [&](std::string_view y) {
    if (std::find(years.begin(), years.end(), y) == years.end()) years.emplace_back(y);
  });
  return years;
}

bool NamesAnyOf(std::string_view sentence, const std::vector<std::string>& years) {
  bool found = false;
  ForEachYear(sentence, [&](std::string_view y) { found = found || std::find(years.begin(), years.end(), y) != years.end(); });
  return found;
}

bool HasReasonCue(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return HasAny(f, {"because", "since", "so that", "reason", "the point is", "which means", "due to", "porque", "pois",
                    "ja que", "por causa", "razao", "motivo", "\xE5\x9B\xA0\xE4\xB8\xBA", "\xE6\x89\x80\xE4\xBB\xA5",
                    "\xE5\x8E\x9F\xE5\x9B\xA0", "\xE7\x94\xB1\xE4\xBA\x8E"});  // 因为 所以 原因 由于
}

bool HasLimitationCue(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return StartsWithLimitation(sentence) ||
         HasAny(f, {"counterpoint", "limitation", "limitations", "downside", "fails", "fail", "weakness", "degrade",
                    "contraponto", "limitacao", "limitacoes", "falha", "degradam", "\xE5\xB1\x80\xE9\x99\x90",
                    "\xE7\xBC\xBA\xE7\x82\xB9", "\xE5\xA4\xB1\xE8\xB4\xA5", "\xE9\xA3\x8E\xE9\x99\xA9"});  // 局限 缺点 失败 风险
}

bool RefersBack(std::string_view question) {
  const std::string f = FoldText(question);
  if (HasAny(f, {"that", "this", "it", "its", "those", "these", "them", "they", "there", "isso", "disso", "nisso", "desse",
                 "dessa", "esse", "essa", "isto", "dele", "dela", "comparando"}))
    return true;
  for (const char* lead : {"and ", "but ", "so ", "e ", "mas ", "entao ", "\xE9\x82\xA3", "\xE9\x82\xA3\xE4\xB9\x88"}) {  // 那 那么
    if (f.rfind(lead, 0) == 0) return true;
  }
  for (const char* han : {"\xE5\xAE\x83", "\xE8\xBF\x99", "\xE5\xBD\x93\xE6\x97\xB6", "\xE5\x85\xB6"}) {  // 它 这 当时 其
    if (f.find(han) != std::string::npos) return true;
  }
  return false;
}

bool HasExampleCue(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return HasAny(f, {"for example", "e.g.", "such as", "for instance", "example", "por exemplo", "exemplo", "como por",
                    "\xE4\xBE\x8B\xE5\xA6\x82", "\xE6\xAF\x94\xE5\xA6\x82", "\xE4\xB8\xBE\xE4\xBE\x8B",
                    "\xE6\xA1\x88\xE4\xBE\x8B"});  // 例如 比如 举例 案例
}

bool StartsWithLimitation(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return StartsWithAny(f, {"however", "but", "the limitation", "the downside", "the catch", "that said", "still",
                           "porem", "mas", "contudo", "no entanto", "a limitacao", "\xE4\xBD\x86\xE6\x98\xAF",
                           "\xE4\xB8\x8D\xE8\xBF\x87", "\xE7\x84\xB6\xE8\x80\x8C", "\xE5\xB1\x80\xE9\x99\x90"});  // 但是 不过 然而 局限
}

float TypeFit(QuestionType type, std::string_view s) {
  const std::string f = FoldText(s);
  switch (type) {
    case QuestionType::kWhen: return HasYear(s) ? 1.f : 0.f;
    case QuestionType::kHowMany: return HasNumber(s) && !(HasYear(s) && !HasCount(s)) ? 1.f : 0.f;
    case QuestionType::kWho: return HasName(s) ? 0.6f : 0.f;
    case QuestionType::kWhy: return HasReasonCue(s) ? 1.f : 0.f;
    case QuestionType::kLimitation: return HasLimitationCue(s) ? 1.f : 0.f;
    case QuestionType::kWhatIs:
      return HasAny(f, {"is", "are", "means", "refers", "e", "sao", "significa", "\xE6\x8C\x87", "\xE5\xB0\xB1\xE6\x98\xAF"})
                 ? 0.5f : 0.f;  // 指 就是
    case QuestionType::kHow:
      return HasAny(f, {"by", "through", "using", "step", "first", "then", "usando", "atraves", "primeiro", "depois",
                        "\xE9\x80\x9A\xE8\xBF\x87", "\xE5\x85\x88", "\xE7\x84\xB6\xE5\x90\x8E", "\xE7\x94\xA8"})  // 通过 先 然后 用
                 ? 0.5f : 0.f;
    default: return 0.f;
  }
}

}  // namespace vesper
