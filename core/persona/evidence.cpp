#include "core/persona/evidence.h"

#include <algorithm>
#include <cctype>
#include <unordered_set>

#include "core/collection/collection.h"
#include "core/persona/text_match.h"
#include "core/text/lang.h"
#include "core/text/words.h"
#include "core/util/utf8.h"

namespace vesper {

namespace {

// The cues are a list of the language files (core/text/lang/), every
// language's entries: a question or a sentence is read whatever its language.
bool HasAny(const std::string& folded, std::string_view list) {
  for (const std::string& c : AllLanguageWords(list)) {
    if (ContainsWord(folded, c)) return true;
  }
  return false;
}

bool StartsWithAny(const std::string& folded, std::string_view list) {
  for (const std::string& c : AllLanguageWords(list)) {
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
  // In this order: an opinion before "how" (怎么看 is "what do you think",
  // 怎么 alone is "how"); "how many" and "how long" want a number, "how much
  // math do I need?" does not.
  static const std::pair<const char*, QuestionType> kTypes[] = {
      {"question_opinion", QuestionType::kOpinion}, {"question_limitation", QuestionType::kLimitation},
      {"question_how_many", QuestionType::kHowMany}, {"question_when", QuestionType::kWhen},
      {"question_why", QuestionType::kWhy},         {"question_who", QuestionType::kWho},
      {"question_where", QuestionType::kWhere},     {"question_what_is", QuestionType::kWhatIs},
      {"question_how", QuestionType::kHow}};
  for (const auto& [list, type] : kTypes) {
    if (HasAny(f, list)) return type;
  }
  return QuestionType::kFact;
}

namespace {

// An acronym's plural as written ("LLMs", "GPUs": two or more capitals and
// an "s") read as its singular ("llm"): the word splitter folds plurals of
// five letters and more only, and "LLMs" in a passage must meet "LLM" in a
// question. Here, not in the splitter, whose keys packs store.
std::string AcronymSingular(std::string_view text, const WordSpan& w) {
  constexpr size_t kMinCapitals = 2;
  const std::string_view surface = text.substr(w.begin, w.end - w.begin);
  if (surface.size() < kMinCapitals + 1 || surface.back() != 's') return {};
  for (size_t i = 0; i + 1 < surface.size(); ++i) {
    if (surface[i] < 'A' || surface[i] > 'Z') return {};
  }
  return w.term.substr(0, w.term.size() - 1);
}

// The SplitWords keys of a text, each once, and its acronyms' singulars.
std::unordered_set<std::string> KeysOf(std::string_view text) {
  std::unordered_set<std::string> keys;
  SplitWords(text, [&](WordSpan&& w) {
    std::string singular = AcronymSingular(text, w);
    if (!singular.empty()) keys.insert(std::move(singular));
    keys.insert(std::move(w.term));
  });
  return keys;
}

}  // namespace

QuestionTerms TermsOf(std::string_view question, const Collection& collection) {
  constexpr float kUnseen = 0.999f;  // Rarity() of a word in no passage
  QuestionTerms out;
  std::unordered_set<std::string> seen;
  SplitWords(question, [&](WordSpan&& w) {
    std::string singular = AcronymSingular(question, w);
    if (!singular.empty()) w.term = std::move(singular);  // units hold both forms (KeysOf)
    const bool cjk = static_cast<unsigned char>(w.term[0]) >= 0xE0;
    // A lone letter says little, but a digit is part of a number the word
    // splitter cut at its dot: "Software 2.0" is not "Software 1.0".
    const bool digit = w.term.size() == 1 && utf8::IsDigit(static_cast<unsigned char>(w.term[0]));
    if ((!cjk && !digit && w.term.size() < 2) || FunctionWords().count(w.term) || !seen.insert(w.term).second) return;
    // A word no passage holds cannot tell passages' sentences apart (but
    // every sentence lacks it: `unseen`).
    const float weight = collection.TermRarity(w.term);
    if (weight >= kUnseen) {
      out.unseen += 1.f;
      return;
    }
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
    if (alternatives.empty()) {
      out.unseen += 1.f;
      continue;
    }
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
  // Each language's cues ("how many", "quantos") and where its noun phrase
  // has its head: "how many Dojo chips" -> "chip", "quantos funcionários da
  // Eureka Labs" -> "funcionario".
  for (const std::string& language : KnownLanguages()) {
    const std::vector<std::string>& head = LanguageWords(language, "count_head");
    const bool head_last = !head.empty() && head.front() == "last";
    for (const std::string& cue : LanguageWords(language, "count_cues")) {
      const size_t at = f.find(cue + " ");
      if (at == std::string::npos) continue;
      std::vector<std::string> phrase;  // the content words right after the cue
      bool open = true;
      SplitWords(std::string_view(f).substr(at + cue.size() + 1), [&](WordSpan&& w) {
        if (!open) return;
        if (FunctionWords().count(w.term)) open = phrase.empty();  // a leading article is skipped; a later one ends it
        else phrase.push_back(std::move(w.term));
      });
      if (phrase.empty()) return {};
      return head_last ? phrase.back() : phrase.front();
    }
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

std::vector<std::string> NamesIn(std::string_view question, const Collection& collection,
                                 const std::vector<std::string>& own) {
  constexpr float kUnseen = 0.999f;  // as in TermsOf
  std::unordered_set<std::string> mine;
  for (const std::string& n : own) {
    SplitWords(n, [&](WordSpan&& w) { mine.insert(std::move(w.term)); });
  }
  const bool chinese = utf8::ContainsHan(question);
  std::vector<std::string> names;
  bool first = true;
  SplitWords(question, [&](WordSpan&& w) {
    const std::string_view surface = question.substr(w.begin, w.end - w.begin);
    const bool latin = !surface.empty() && static_cast<unsigned char>(surface[0]) < 0x80 && std::isalpha(static_cast<unsigned char>(surface[0]));
    bool capital = false, lower = false;
    for (size_t i = 0; i < surface.size(); ++i) {
      capital = capital || ((i > 0 || !first) && surface[i] >= 'A' && surface[i] <= 'Z');
      lower = lower || (surface[i] >= 'a' && surface[i] <= 'z');
    }
    first = false;
    // An acronym ("AI", "LLM") names a subject, which the question's other evidence weighs.
    const bool acronym = !lower && !chinese;
    if (!latin || !(capital || chinese) || acronym || mine.count(w.term) || FunctionWords().count(w.term)) return;
    if (collection.TermRarity(w.term) >= kUnseen) return;
    if (std::find(names.begin(), names.end(), w.term) == names.end()) names.push_back(std::move(w.term));
  });
  return names;
}

bool HoldsAnyKey(std::string_view text, const std::vector<std::string>& keys) {
  const std::unordered_set<std::string> have = KeysOf(text);
  return std::any_of(keys.begin(), keys.end(), [&](const std::string& k) { return have.count(k) > 0; });
}

bool HasReasonCue(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return HasAny(f, "reason_cues");
}

bool HasLimitationCue(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return StartsWithLimitation(sentence) || HasAny(f, "limitation_cues");
}

bool RefersBack(std::string_view question) {
  const std::string f = FoldText(question);
  if (HasAny(f, "refers_back")) return true;
  // An opening word: a Latin one followed by a space ("and ", "e "), a Han one as it is (那).
  for (const std::string& lead : AllLanguageWords("refers_back_leads")) {
    const bool latin = static_cast<unsigned char>(lead[0]) < 0x80;
    if (f.rfind(latin ? lead + " " : lead, 0) == 0) return true;
  }
  return false;
}

bool PointsBack(std::string_view sentence) {
  constexpr size_t kLeadingWords = 6;  // how far into the sentence a "these" still points back
  const std::string f = FoldText(sentence);
  if (StartsWithAny(f, "back_openings")) return true;
  const std::vector<std::string>& determiners = AllLanguageWords("back_determiners");
  size_t words = 0;
  for (size_t i = 0; i < f.size() && words < kLeadingWords;) {
    while (i < f.size() && !std::isalnum(static_cast<unsigned char>(f[i]))) ++i;
    size_t end = i;
    while (end < f.size() && std::isalnum(static_cast<unsigned char>(f[end]))) ++end;
    if (end == i) break;
    if (std::find(determiners.begin(), determiners.end(), f.substr(i, end - i)) != determiners.end()) return true;
    ++words;
    i = end;
  }
  return false;
}

bool HasExampleCue(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return HasAny(f, "example_cues");
}

bool StartsWithLimitation(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return StartsWithAny(f, "limitation_openings") || StartsWithAny(f, "contrast_openings");
}

bool OpensContrast(std::string_view sentence) { return StartsWithAny(FoldText(sentence), "contrast_openings"); }

bool AsksIdentity(std::string_view question) { return IsWholly(question, "question_identity"); }

bool IsWholly(std::string_view message, std::string_view list) { return !WhollyIn(message, list).empty(); }

std::string WhollyIn(std::string_view message, std::string_view list) {
  std::string f = FoldText(message);
  // Punctuation and spaces around the words: "?", "？", "!", ".", "。".
  auto punct = [](unsigned char c) { return c == ' ' || c == '?' || c == '!' || c == '.' || c == ','; };
  while (!f.empty() && punct(f.back())) f.pop_back();
  for (const char* full : {"\xEF\xBC\x9F", "\xEF\xBC\x81", "\xE3\x80\x82"}) {  // ？ ！ 。
    const std::string mark(full);
    while (f.size() >= mark.size() && f.compare(f.size() - mark.size(), mark.size(), mark) == 0) f.resize(f.size() - mark.size());
  }
  while (!f.empty() && punct(f.front())) f.erase(0, 1);
  for (const std::string& language : KnownLanguages()) {
    const std::vector<std::string>& entries = LanguageWords(language, list);
    if (std::find(entries.begin(), entries.end(), f) != entries.end()) return language;
  }
  return "";
}

bool NamesLimitation(std::string_view sentence) {
  const std::string f = FoldText(sentence);
  return StartsWithAny(f, "limitation_openings") || HasAny(f, "limitation_cues");
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
      return HasAny(f, "definition_cues") ? 0.5f : 0.f;
    case QuestionType::kHow:
      return HasAny(f, "method_cues") ? 0.5f : 0.f;
    default: return 0.f;
  }
}

}  // namespace vesper
