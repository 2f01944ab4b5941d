#include "core/persona/persona.h"

#include <algorithm>

#include <nlohmann/json.hpp>

#include "core/persona/text_match.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {

namespace {

using nlohmann::json;

[[noreturn]] void Bad(const std::string& field, const std::string& why) {
  throw Error(ErrorCode::kInvalidArgument, "persona: " + field + ": " + why);
}

std::string Str(const json& o, const char* key, const std::string& field, bool required = true) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) {
    if (required) Bad(field + "." + key, "missing");
    return "";
  }
  if (!it->is_string()) Bad(field + "." + key, "must be a string");
  std::string s = it->get<std::string>();
  if (utf8::FindInvalid(s) != std::string::npos) Bad(field + "." + key, "is not valid UTF-8");
  return s;
}

ByLanguage Strings(const json& o, const char* key, bool required = true) {
  ByLanguage out;
  auto it = o.find(key);
  if (it == o.end()) {
    if (required) Bad(key, "missing");
    return out;
  }
  if (!it->is_object()) Bad(key, "must map languages to strings");
  for (auto& [lang, v] : it->items()) {
    if (!v.is_string()) Bad(std::string(key) + "." + lang, "must be a string");
    out[lang] = v.get<std::string>();
  }
  return out;
}

ListByLanguage Lists(const json& o, const char* key, const std::string& field) {
  ListByLanguage out;
  auto it = o.find(key);
  if (it == o.end()) return out;
  if (!it->is_object()) Bad(field + "." + key, "must map languages to lists of strings");
  for (auto& [lang, v] : it->items()) {
    if (!v.is_array()) Bad(field + "." + key + "." + lang, "must be a list");
    for (auto& s : v) {
      if (!s.is_string()) Bad(field + "." + key + "." + lang, "must hold strings");
      const std::string& raw = s.get_ref<const std::string&>();
      if (utf8::FindInvalid(raw) != std::string::npos) Bad(field + "." + key + "." + lang, "is not valid UTF-8");
      // An empty entry would match every text: a banned word would ban every
      // phrase, an exit phrase would end the role-play on any question.
      std::string folded = FoldText(raw);
      if (folded.find_first_not_of(" \t\n\r") == std::string::npos) {
        Bad(field + "." + key + "." + lang, "holds an empty entry (\"" + raw + "\"); remove it");
      }
      out[lang].push_back(std::move(folded));
    }
  }
  return out;
}

template <typename T, typename F>
std::vector<T> Array(const json& o, const char* key, F&& each) {
  std::vector<T> out;
  auto it = o.find(key);
  if (it == o.end()) return out;
  if (!it->is_array()) Bad(key, "must be a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const json& e = (*it)[i];
    std::string field = std::string(key) + "[" + std::to_string(i) + "]";
    if (!e.is_object() && !e.is_string()) Bad(field, "must be an object");
    out.push_back(each(e, field));
  }
  return out;
}

// Every sentence frame, by its name in the file: parsed and checked from one list.
constexpr std::pair<const char*, std::string VoicePhrases::*> kPhraseFields[] = {
    {"intuition", &VoicePhrases::intuition},       {"mechanism", &VoicePhrases::mechanism},
    {"example", &VoicePhrases::example},           {"limitation", &VoicePhrases::limitation},
    {"next_steps", &VoicePhrases::next_steps},     {"quote", &VoicePhrases::quote},
    {"other_language", &VoicePhrases::other_language}, {"dont_know", &VoicePhrases::dont_know},
    {"decline", &VoicePhrases::decline},           {"exited", &VoicePhrases::exited},
    {"reentered", &VoicePhrases::reentered},       {"neutral_intro", &VoicePhrases::neutral_intro},
    {"neutral_dont_know", &VoicePhrases::neutral_dont_know},
};

VoicePhrases ParsePhrases(const json& o, const std::string& field) {
  VoicePhrases p;
  for (auto [name, member] : kPhraseFields) p.*member = Str(o, name, field);
  p.closings.push_back(p.next_steps);
  if (auto it = o.find("closings"); it != o.end()) {
    if (!it->is_array()) Bad(field + ".closings", "must be a list of strings");
    for (const json& c : *it) {
      if (!c.is_string() || utf8::FindInvalid(c.get<std::string>()) != std::string::npos)
        Bad(field + ".closings", "must hold strings (UTF-8)");
      p.closings.push_back(c.get<std::string>());
    }
  }
  p.nothing_more = Str(o, "nothing_more", field, /*required=*/false);
  p.unsure = Str(o, "unsure", field, /*required=*/false);
  p.greeting = Str(o, "greeting", field, /*required=*/false);
  p.thanks = Str(o, "thanks", field, /*required=*/false);
  p.other_language_part = Str(o, "other_language_part", field, /*required=*/false);
  return p;
}

// Optional: the persona's third-person pronouns per language, by role.
std::map<std::string, std::vector<std::string>> ParsePronouns(const json& root) {
  std::map<std::string, std::vector<std::string>> out;
  auto it = root.find("self_pronouns");
  if (it == root.end()) return out;
  if (!it->is_object()) Bad("self_pronouns", "must map languages to {subject, possessive}");
  for (auto& [lang, o] : it->items()) {
    if (!o.is_object()) Bad("self_pronouns." + lang, "must be an object");
    std::vector<std::string> roles;
    for (const char* role : {"subject", "possessive"}) {
      std::string w = Str(o, role, "self_pronouns." + lang, /*required=*/false);
      if (w.find(' ') != std::string::npos) Bad("self_pronouns." + lang + "." + role, "must be one word");
      roles.push_back(FoldText(w));
    }
    out[lang] = std::move(roles);
  }
  return out;
}

// Optional: words a role command said in other words is recognised by.
std::map<std::string, RoleWords> ParseRoleWords(const json& root) {
  std::map<std::string, RoleWords> out;
  auto rw = root.find("role_words");
  if (rw == root.end()) return out;
  if (!rw->is_object()) Bad("role_words", "must map languages to {exit, reenter, role, self}");
  for (auto& [lang, o] : rw->items()) {
    if (!o.is_object()) Bad("role_words." + lang, "must be an object");
    RoleWords w;
    for (auto [name, member] : {std::pair{"exit", &RoleWords::exit}, std::pair{"reenter", &RoleWords::reenter},
                                std::pair{"role", &RoleWords::role}, std::pair{"self", &RoleWords::self}}) {
      const std::string field = "role_words." + lang + "." + name;
      const json list = o.value(name, json::array());
      if (!list.is_array()) Bad(field, "must be a list");
      for (const json& s : list) {
        if (!s.is_string() || s.get<std::string>().empty()) Bad(field, "must hold non-empty strings");
        if (utf8::FindInvalid(s.get<std::string>()) != std::string::npos) Bad(field, "is not valid UTF-8");
        (w.*member).push_back(FoldText(s.get<std::string>()));
      }
    }
    out[lang] = std::move(w);
  }
  return out;
}

// "phrases": each language's, English at least.
std::map<std::string, VoicePhrases> ParseAllPhrases(const json& root) {
  auto phrases = root.find("phrases");
  if (phrases == root.end() || !phrases->is_object() || !phrases->contains("en")) {
    Bad("phrases", "must hold at least the English (\"en\") phrases");
  }
  std::map<std::string, VoicePhrases> out;
  for (auto& [lang, o] : phrases->items()) {
    if (!o.is_object()) Bad("phrases." + lang, "must be an object");
    out[lang] = ParsePhrases(o, "phrases." + lang);
  }
  return out;
}

}  // namespace

Persona Persona::FromJson(std::string_view text) {
  json root = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded()) throw Error(ErrorCode::kInvalidArgument, "persona: not valid JSON");
  if (!root.is_object()) Bad("(root)", "must be an object");
  // Checked by type first: json::value() throws a raw type_error when the
  // field is there but of another type ("version": {}).
  const auto format = root.find("format");
  if (format == root.end() || !format->is_string() || *format != "vesper-persona") Bad("format", "must be \"vesper-persona\"");
  const auto version = root.find("version");
  if (version == root.end() || !version->is_number_integer() || *version != 1) {
    Bad("version", "must be 1 (this build reads version 1)");
  }

  Persona p;
  p.id_ = Str(root, "id", "persona");
  p.name_ = Str(root, "name", "persona");
  p.identity_ = Strings(root, "identity");
  p.disclaimer_ = Strings(root, "disclaimer");
  p.structure_ = Array<std::string>(root, "structure", [](const json& e, const std::string& f) {
    if (!e.is_string()) Bad(f, "must be a string");
    return e.get<std::string>();
  });
  p.banned_ = Lists(root, "banned_words", "persona");
  p.quotes_ = Array<PersonaQuote>(root, "quotes", [](const json& e, const std::string& f) {
    return PersonaQuote{Str(e, "text", f), Str(e, "source", f, false), Str(e, "language", f, false)};
  });
  p.analogies_ = Array<PersonaAnalogy>(root, "analogies", [](const json& e, const std::string& f) {
    return PersonaAnalogy{Str(e, "title", f), Str(e, "text", f)};
  });
  p.qa_ = Array<PersonaQa>(root, "qa", [](const json& e, const std::string& f) {
    return PersonaQa{Str(e, "question", f), Str(e, "answer", f), Str(e, "language", f, false)};
  });
  p.topics_ = Array<std::string>(root, "topics", [](const json& e, const std::string& f) {
    if (!e.is_string()) Bad(f, "must be a string");
    return e.get<std::string>();
  });
  // Optional (older persona files lack it).
  p.meta_lead_ins_ = Array<std::string>(root, "meta_lead_ins", [](const json& e, const std::string& f) {
    if (!e.is_string() || utf8::FindInvalid(e.get_ref<const std::string&>()) != std::string::npos) {
      Bad(f, "must be a UTF-8 string");
    }
    std::string folded = FoldText(e.get_ref<const std::string&>());
    // An empty lead-in would mark every sentence as an instruction.
    if (folded.find_first_not_of(" \t\n\r") == std::string::npos) Bad(f, "is empty; remove it");
    return folded;
  });
  p.out_of_scope_ = Array<OutOfScopeRule>(root, "out_of_scope", [](const json& e, const std::string& f) {
    OutOfScopeRule r;
    r.id = Str(e, "id", f);
    r.reason = Strings(e, "reason");
    r.patterns = Lists(e, "patterns", f);
    return r;
  });
  p.exit_ = Lists(root, "exit_phrases", "persona");
  p.reenter_ = Lists(root, "reenter_phrases", "persona");
  // Optional: courtesies around role commands (older persona files lack them).
  if (root.contains("command_leads")) p.command_leads_ = Lists(root, "command_leads", "persona");
  if (root.contains("command_tails")) p.command_tails_ = Lists(root, "command_tails", "persona");
  p.role_words_ = ParseRoleWords(root);
  p.self_reference_.names = Array<std::string>(root, "self_names", [](const json& e, const std::string& f) {
    if (!e.is_string() || e.get<std::string>().empty()) Bad(f, "must be a non-empty string");
    return e.get<std::string>();
  });
  p.self_reference_.pronouns = ParsePronouns(root);
  p.phrases_ = ParseAllPhrases(root);
  p.CheckOwnWords();
  return p;
}

// The persona's own sentences must obey its own rules.
void Persona::CheckOwnWords() const {
  for (auto& [lang, ph] : phrases_) {
    for (auto [name, member] : kPhraseFields) {
      const std::string& s = ph.*member;
      if (UsesBannedWord(s)) Bad("phrases." + lang + "." + name, "\"" + s + "\" uses a word the persona never uses");
    }
    for (const std::string& s : ph.closings) {
      if (UsesBannedWord(s)) Bad("phrases." + lang + ".closings", "\"" + s + "\" uses a word the persona never uses");
    }
    for (auto [name, s] : {std::pair<const char*, const std::string*>{"nothing_more", &ph.nothing_more},
                           {"greeting", &ph.greeting}, {"thanks", &ph.thanks}, {"unsure", &ph.unsure},
                           {"other_language_part", &ph.other_language_part}}) {
      if (UsesBannedWord(*s)) Bad("phrases." + lang + "." + name, "uses a word the persona never uses");
    }
  }
  for (auto& [lang, d] : disclaimer_) {
    if (UsesBannedWord(d)) Bad("disclaimer." + lang, "uses a word the persona never uses");
  }
}

const VoicePhrases& Persona::phrases(const std::string& language) const {
  auto it = phrases_.find(language);
  return it != phrases_.end() ? it->second : phrases_.at("en");
}

bool Persona::IsInstruction(std::string_view text) const {
  if (meta_lead_ins_.empty()) return false;
  const std::string folded = FoldText(text);
  return std::any_of(meta_lead_ins_.begin(), meta_lead_ins_.end(),
                     [&](const std::string& lead_in) { return folded.compare(0, lead_in.size(), lead_in) == 0; });
}

bool Persona::UsesBannedWord(std::string_view text, const std::string& language) const {
  const std::string lower = FoldText(text);
  for (auto& [lang, words] : banned_) {
    if (!language.empty() && lang != language) continue;
    for (const std::string& w : words) {
      if (ContainsWord(lower, w)) return true;
    }
  }
  return false;
}

}  // namespace vesper
