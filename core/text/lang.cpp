#include "core/text/lang.h"

#include <algorithm>
#include <map>

#include "core/text/lang_files.h"

namespace vesper {
namespace {

constexpr std::string_view kArrow = " -> ";
constexpr std::string_view kAlternative = "|";
constexpr std::string_view kEmpty = "\"\"";  // the empty string, as a mapping writes it

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

WordMapping ParseMapping(std::string_view line) {
  WordMapping m;
  const size_t arrow = line.find(kArrow);
  m.from = std::string(Trim(line.substr(0, arrow)));
  for (std::string_view rest = line.substr(arrow + kArrow.size());;) {
    const size_t bar = rest.find(kAlternative);
    const std::string_view value = Trim(rest.substr(0, bar));
    m.to.emplace_back(value == kEmpty ? std::string_view() : value);
    if (bar == std::string_view::npos) break;
    rest = rest.substr(bar + kAlternative.size());
  }
  return m;
}

// Every file parsed once: lists by language and name, and the same merged
// across languages.
struct Parsed {
  std::vector<std::string> languages;
  std::map<std::string, std::map<std::string, std::vector<std::string>, std::less<>>, std::less<>> words;
  std::map<std::string, std::map<std::string, std::vector<WordMapping>, std::less<>>, std::less<>> mappings;
  std::map<std::string, std::vector<std::string>, std::less<>> merged;
  std::vector<std::string> problems;

  void ParseFile(const LanguageFile& file) {
    languages.emplace_back(file.code);
    std::vector<std::string>* list = nullptr;
    std::string name;
    std::string_view text = file.text;
    for (size_t line_no = 1; !text.empty(); ++line_no) {
      const size_t end = text.find('\n');
      const std::string_view line = Trim(text.substr(0, end));
      text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
      if (line.empty() || line.front() == '#') continue;
      if (line.front() == '[' && line.back() == ']') {
        name = std::string(line.substr(1, line.size() - 2));
        list = &words[file.code][name];
        continue;
      }
      if (!list) {
        problems.push_back(std::string(file.code) + ".txt:" + std::to_string(line_no) + ": an entry outside a list");
        continue;
      }
      list->emplace_back(line);
      if (line.find(kArrow) != std::string_view::npos) mappings[file.code][name].push_back(ParseMapping(line));
    }
  }

  Parsed() {
    for (size_t i = 0; i < kLanguageFileCount; ++i) ParseFile(kLanguageFiles[i]);
    std::sort(languages.begin(), languages.end());
    for (const std::string& language : languages) {
      for (const auto& [name, entries] : words[language]) {
        std::vector<std::string>& all = merged[name];
        all.insert(all.end(), entries.begin(), entries.end());
      }
    }
  }
};

const Parsed& Files() {
  static const Parsed kParsed;
  return kParsed;
}

template <typename Map, typename Value>
const Value& Find(const Map& by_language, std::string_view language, std::string_view list, const Value& none) {
  const auto lang = by_language.find(language);
  if (lang == by_language.end()) return none;
  const auto it = lang->second.find(list);
  return it == lang->second.end() ? none : it->second;
}

}  // namespace

const std::vector<std::string>& KnownLanguages() { return Files().languages; }

const std::vector<std::string>& LanguageWords(std::string_view language, std::string_view list) {
  static const std::vector<std::string> kNone;
  return Find(Files().words, language, list, kNone);
}

const std::vector<std::string>& AllLanguageWords(std::string_view list) {
  static const std::vector<std::string> kNone;
  const auto it = Files().merged.find(list);
  return it == Files().merged.end() ? kNone : it->second;
}

const std::vector<WordMapping>& LanguageMapping(std::string_view language, std::string_view list) {
  static const std::vector<WordMapping> kNone;
  return Find(Files().mappings, language, list, kNone);
}

const std::vector<std::string>& LanguageFileProblems() { return Files().problems; }

}  // namespace vesper
