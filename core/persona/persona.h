// A persona: who answers, in what voice, about what, and when it steps out
// of the role. Compiled from the persona's own skill documents by
// tools/persona-compile.mjs into a JSON file people can edit by hand; this
// is the core's validated, read-only view of that file.
#pragma once
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "core/persona/voice.h"

namespace vesper {

// Per-language strings: "en", "pt", "zh".
using ByLanguage = std::map<std::string, std::string>;
using ListByLanguage = std::map<std::string, std::vector<std::string>>;

struct PersonaQuote {
  std::string text;
  std::string source;   // "micrograd lecture", "2023 Tweet", ...
  std::string language;
};

struct PersonaAnalogy {
  std::string title;  // "Attention as soft lookup"
  std::string text;
};

struct PersonaQa {
  std::string question;
  std::string answer;
  std::string language;
};

// Words a role command said in other words is recognised by, per language
// (core/persona/commands.h): leaving, returning, the role itself, and the
// plain self a user asks to go back to ("normal", "yourself").
struct RoleWords {
  std::vector<std::string> exit, reenter, role, self;
};

struct OutOfScopeRule {
  std::string id;
  ByLanguage reason;          // said when declining
  ListByLanguage patterns;    // lower-case substrings of a question that put it out of scope
};

// The persona's own sentence frames, per language. Each must be free of the
// persona's banned words; Persona::FromJson checks.
struct VoicePhrases {
  std::string intuition;         // "The way I think about it: "
  std::string mechanism;         // "Under the hood: "
  std::string example;           // "A concrete example: "
  std::string limitation;        // "Where this falls short: "
  std::string next_steps;        // the closing suggestion
  std::string quote;             // "As I like to put it: " (quote follows)
  std::string other_language;    // "{languages}" -> e.g. "Portuguese": passages came from another language
  std::string dont_know;         // nothing above the threshold
  std::string decline;           // "{reason}", "{topics}"
  std::string exited;            // acknowledgement of an exit phrase (neutral voice)
  std::string reentered;         // back in the role
  std::string neutral_intro;     // out of role: "From the knowledge base: "
  std::string neutral_dont_know; // out of role, nothing found
  // Optional: further closings, said in turn with next_steps after answers
  // about how or what something is; and what to say when a follow-up finds
  // nothing more on the topic (empty: dont_know).
  std::vector<std::string> closings;
  std::string nothing_more;
  // Optional: said before an answer from the closest passages when the
  // search is unsure the knowledge base answers ("I'm not sure this is what
  // you mean, but..."); empty: such a question gets dont_know.
  std::string unsure;
  // Optional: the reply to a greeting ("Hello!") and to thanks, "{topics}"
  // (empty: such a message is looked up as a question, and finds nothing).
  std::string greeting;
  std::string thanks;
  // Optional: said before an answer that quotes passages of the asker's
  // language and of others, "{languages}" the others (empty: no note).
  std::string other_language_part;
};

class Persona {
 public:
  // Parses and validates a persona file (format "vesper-persona", version 1).
  // Throws kInvalidArgument naming the field for anything malformed, and for
  // voice phrases that use a banned word.
  static Persona FromJson(std::string_view json);

  const std::string& id() const { return id_; }
  const std::string& name() const { return name_; }
  const ByLanguage& identity() const { return identity_; }
  const ByLanguage& disclaimer() const { return disclaimer_; }
  const std::vector<std::string>& structure() const { return structure_; }
  const ListByLanguage& banned_words() const { return banned_; }
  const std::vector<PersonaQuote>& quotes() const { return quotes_; }
  const std::vector<PersonaAnalogy>& analogies() const { return analogies_; }
  const std::vector<PersonaQa>& qa() const { return qa_; }
  const std::vector<std::string>& topics() const { return topics_; }
  const std::vector<OutOfScopeRule>& out_of_scope() const { return out_of_scope_; }
  const ListByLanguage& exit_phrases() const { return exit_; }
  const ListByLanguage& reenter_phrases() const { return reenter_; }
  // Words around a role command that do not change it ("OK, ... please",
  // "好的，...吧"): leading and trailing, per language.
  const ListByLanguage& command_leads() const { return command_leads_; }
  const ListByLanguage& command_tails() const { return command_tails_; }
  const std::map<std::string, RoleWords>& role_words() const { return role_words_; }
  // The persona's name and how passages refer to it ("Andrej Karpathy", "Karpathy"):
  // rewritten to the first person in the persona's voice.
  const std::vector<std::string>& self_names() const { return self_reference_.names; }
  // The names and the third-person pronouns ("self_pronouns": en {subject,
  // possessive}, zh {subject}) the first-person rewrite replaces.
  const SelfReference& self_reference() const { return self_reference_; }
  // Falls back to English phrases for a language the file does not cover.
  const VoicePhrases& phrases(const std::string& language) const;
  // "meta_lead_ins": lead-ins of the instructions the documents give whoever
  // plays the persona (a style guide, a response template: "Typical Response
  // Structure:", "角色扮演时必须遵循的风格规则："). True for such a lead-in, a
  // field it labels ("Tone: ...") or an item listed under it: never an answer.
  bool IsInstruction(std::string_view text) const;

  // True if `text` contains a banned word of `language` (or of any
  // language, when language is empty), as a whole word for Latin scripts.
  bool UsesBannedWord(std::string_view text, const std::string& language = "") const;

 private:
  void CheckOwnWords() const;  // throws kInvalidArgument for a phrase using a banned word
  std::string id_, name_;
  ByLanguage identity_, disclaimer_;
  std::vector<std::string> structure_;
  ListByLanguage banned_;
  std::vector<PersonaQuote> quotes_;
  std::vector<PersonaAnalogy> analogies_;
  std::vector<PersonaQa> qa_;
  std::vector<std::string> topics_;
  std::vector<std::string> meta_lead_ins_;  // folded
  std::vector<OutOfScopeRule> out_of_scope_;
  ListByLanguage exit_, reenter_, command_leads_, command_tails_;
  std::map<std::string, RoleWords> role_words_;
  SelfReference self_reference_;
  std::map<std::string, VoicePhrases> phrases_;
};

}  // namespace vesper
