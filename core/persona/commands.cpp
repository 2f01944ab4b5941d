#include "core/persona/commands.h"

#include <algorithm>
#include <vector>

#include "core/persona/answer.h"
#include "core/persona/text_match.h"
#include "core/text/lang.h"
#include "core/util/utf8.h"

namespace vesper {

namespace {

bool MatchesPhrase(const std::string& key, const ListByLanguage& phrases, std::string* language) {
  for (auto& [lang, list] : phrases) {
    for (const std::string& p : list) {
      if (!p.empty() && key == CommandKey(p)) {
        *language = lang;
        return true;
      }
    }
  }
  return false;
}

// The phrase itself once the persona's courtesies are taken off either end.
bool MatchesCommand(const std::string& key, const ListByLanguage& phrases, const Persona& persona, std::string* language,
                    int depth = 0) {
  constexpr int kMaxCourtesies = 4;  // "ok" + "you can" + ... + "please": a handful at most
  if (MatchesPhrase(key, phrases, language)) return true;
  if (depth == kMaxCourtesies) return false;
  // Every way of taking one courtesy off either end ("okay" is not "ok" + "ay").
  for (const ListByLanguage* side : {&persona.command_leads(), &persona.command_tails()}) {
    const bool lead = side == &persona.command_leads();
    for (auto& [lang, list] : *side) {
      for (const std::string& w : list) {
        std::string c = CommandKey(w);
        if (c.empty() || c.size() >= key.size()) continue;
        bool at = lead ? key.compare(0, c.size(), c) == 0 : key.compare(key.size() - c.size(), c.size(), c) == 0;
        if (!at) continue;
        std::string rest = lead ? key.substr(c.size()) : key.substr(0, key.size() - c.size());
        if (MatchesCommand(rest, phrases, persona, language, depth + 1)) return true;
      }
    }
  }
  return false;
}

constexpr size_t kMaxCommandWords = 14;     // a longer sentence is not a role command
constexpr size_t kMaxCommandHan = 24;       // the same for Chinese, in characters

// Asking, not requesting: a question word first ("why", "o que"), or one
// that asks from anywhere (为什么), as the language files list them.
bool AsksSomething(const std::string& folded) {
  for (const std::string& w : AllLanguageWords("question_openings")) {
    if (FindWord(folded, w) == 0) return true;
  }
  for (const std::string& w : AllLanguageWords("question_words_anywhere")) {
    if (folded.find(w) != std::string::npos) return true;
  }
  return false;
}

bool Short(const std::string& folded) {
  size_t words = 0, han = 0;
  bool in = false;
  for (size_t i = 0; i < folded.size();) {
    const char32_t cp = utf8::Next(folded, i);
    if (utf8::IsHan(cp)) ++han;
    const bool letter = utf8::IsLatinLetter(cp) || utf8::IsDigit(cp);
    if (letter && !in) ++words;
    in = letter;
  }
  return words <= kMaxCommandWords && han <= kMaxCommandHan;
}

// The first place any of `words` occurs, in any language; npos if none.
// language: that word's language.
size_t First(const std::string& folded, const std::map<std::string, RoleWords>& all,
             std::vector<std::string> RoleWords::*member, std::string* language = nullptr) {
  size_t best = std::string::npos;
  for (auto& [lang, w] : all) {
    for (const std::string& word : w.*member) {
      const size_t at = FindWord(folded, word);
      if (at < best) {
        best = at;
        if (language) *language = lang;
      }
    }
  }
  return best;
}

// A request said in other words: leaving (a verb of leaving with a word for
// the role, or any verb with the plain self: "be yourself again") or
// returning (a verb of returning with a word for the role); the earlier verb
// decides when a request has both ("para de fingir e volta a ser você mesmo"),
// and a verb of returning whose object is the plain self asks to leave
// ("volte a ser você mesmo, pode parar o roleplay").
RoleCommand ByRoleWords(const Persona& persona, std::string_view question, std::string* language) {
  const std::string folded = FoldText(question);
  const auto& all = persona.role_words();
  if (all.empty() || AsksSomething(folded) || !Short(folded)) return RoleCommand::kNone;
  std::string exit_language, back_language;
  const size_t exit = First(folded, all, &RoleWords::exit, &exit_language);
  const size_t back = First(folded, all, &RoleWords::reenter, &back_language);
  const size_t role_at = First(folded, all, &RoleWords::role);
  const size_t self_at = First(folded, all, &RoleWords::self);
  const bool role = role_at != std::string::npos;
  const bool self = self_at != std::string::npos;
  const size_t verb = std::min(exit, back);
  if (verb == std::string::npos || (!role && !self)) return RoleCommand::kNone;
  // Answered in the language of the verb that asked ("volta a ser o
  // Karpathy" is too short, and too full of a name, to detect).
  *language = exit < back ? exit_language : back_language;
  if (self && !role) return RoleCommand::kExit;
  if (exit < back) return RoleCommand::kExit;
  // Returning to what comes first after the verb: the plain self is leaving the role.
  const bool to_self = self && self_at > back && (role_at < back || self_at < role_at);
  return to_self ? RoleCommand::kExit : RoleCommand::kReenter;
}

}  // namespace

RoleCommand ParseRoleCommand(const Persona& persona, std::string_view question, std::string* language) {
  const std::string key = CommandKey(question);
  if (key.empty()) return RoleCommand::kNone;
  if (MatchesCommand(key, persona.exit_phrases(), persona, language)) return RoleCommand::kExit;
  if (MatchesCommand(key, persona.reenter_phrases(), persona, language)) return RoleCommand::kReenter;
  return ByRoleWords(persona, question, language);
}

}  // namespace vesper
