#include "core/persona/compose.h"

#include <algorithm>

#include "core/persona/text_match.h"
#include "core/persona/voice.h"
#include "core/util/utf8.h"

namespace vesper {

namespace {

bool EndsInHan(const std::string& s) {
  size_t i = s.size();
  while (i > 0 && (static_cast<unsigned char>(s[i - 1]) & 0xC0) == 0x80) --i;
  if (i == 0) return false;
  --i;
  size_t at = i;
  return utf8::IsCjk(utf8::Next(s, at));
}

// "A → B" in notes reads "A — B" in a sentence.
std::string Unarrowed(std::string s) {
  const std::string arrow = "\xE2\x86\x92", dash = "\xE2\x80\x94";  // → —
  for (size_t at = s.find(arrow); at != std::string::npos; at = s.find(arrow, at + dash.size())) s.replace(at, arrow.size(), dash);
  return s;
}

// A list item quoted alone ends as a sentence does.
std::string Finished(std::string s) {
  if (EndsSentence(s)) return s;
  while (!s.empty() && (s.back() == ',' || s.back() == ';' || s.back() == ' ')) s.pop_back();
  return s + (EndsInHan(s) ? "\xE3\x80\x82" : ".");  // 。
}

// A lead-in worth quoting before what it introduces: more than a one-word
// label ("His thesis:" is; "证据：" is not).
bool SaysSomething(const std::string& lead) {
  constexpr size_t kMinHanLeadBytes = 18;  // six characters
  return lead.find(' ') != std::string::npos || lead.size() >= kMinHanLeadBytes;
}

// The tail of something before it: a unit that opens with a dash, a
// closing quote or bracket, or that runs one quote's attribution into the
// next ('...it." — podcast Lex Fridman "I think...').
bool StartsMidway(const std::string& s) {
  for (std::string_view start : {"\xE2\x80\x94", "\xE2\x80\x93", "- ", "\" ", ")", "\xE2\x80\x9D", ",", ";"}) {
    if (s.compare(0, start.size(), start) == 0) return true;
  }
  for (std::string_view joint : {".\" \xE2\x80\x94", ".\xE2\x80\x9D \xE2\x80\x94", "\" \xE2\x80\x94 "}) {
    if (s.find(joint) != std::string::npos) return true;
  }
  return false;
}

// Whether a unit quoted with its lead-in opens with that lead-in ("Why
// tokenization matters more than it seems:"): what Render prints, and what a
// frame of the persona's own ("The way I think about it:") would stack on.
bool OpensWithLeadIn(const Unit& u, bool with_context) {
  const size_t nl = u.sentence.text.find('\n');
  return with_context && nl != std::string::npos && SaysSomething(u.sentence.text.substr(0, nl));
}

bool IsHeadingOf(const Chunk& c, const std::string& text) {
  const std::string t = FoldText(text);
  for (const std::string& h : c.title) {
    if (!h.empty() && FoldText(h) == t) return true;
  }
  return false;
}

}  // namespace

std::vector<Unit> UnitsOf(const Persona& persona, const Collection& collection, uint32_t label, size_t rank,
                          const std::vector<std::string>& said, bool timeline) {
  std::vector<Unit> out;
  const Chunk& c = collection.chunk(label);
  std::vector<Sentence> all = SplitSentences(c.text);
  for (Sentence& s : all) {
    if (timeline && s.row) s = TimelineEntry(std::move(s));
    if (!s.quotable() || IsHeadingOf(c, s.text) || StartsMidway(s.text) || persona.UsesBannedWord(s.text)) continue;
    // An instruction to whoever plays the persona (a style rule listed under its lead-in) is not something it says.
    const bool led = s.context >= 0 && static_cast<size_t>(s.context) < all.size();
    if (persona.IsInstruction(s.text) || (led && persona.IsInstruction(all[s.context].text))) continue;
    std::string key = c.id + ":" + std::to_string(s.index);
    if (std::find(said.begin(), said.end(), key) != said.end()) continue;
    Unit u;
    u.label = label;
    u.rank = rank;
    u.section = c.source;
    for (const std::string& t : c.title) u.section += '\x1f' + t;
    // The lead-in a unit needs, carried with it.
    if (s.context >= 0 && (static_cast<size_t>(s.context) >= all.size() || persona.UsesBannedWord(all[s.context].text)))
      s.context = -1;
    u.sentence = std::move(s);
    u.key = std::move(key);
    out.push_back(std::move(u));
  }
  // Contexts point into `all`; keep their text reachable by index.
  for (Unit& u : out) {
    if (u.sentence.context >= 0) u.sentence.text = all[u.sentence.context].text + "\n" + u.sentence.text;
  }
  return out;
}

size_t AnswerWriter::Cite(uint32_t label, float score) {
  for (size_t i = 0; i < citations_.size(); ++i) {
    if (citations_[i].label == label) return i + 1;
  }
  const Chunk& c = collection_.chunk(label);
  citations_.push_back({label, c.id, c.title, c.source, c.language, score});
  return citations_.size();
}

std::string AnswerWriter::Render(const Unit& u, bool with_context) const {
  const Chunk& c = collection_.chunk(u.label);
  std::string text = u.sentence.text;
  const size_t nl = text.find('\n');
  if (nl != std::string::npos) text = (OpensWithLeadIn(u, with_context) ? text.substr(0, nl) + " " : "") + text.substr(nl + 1);
  text = Finished(Unarrowed(std::move(text)));
  return in_role_ ? ToFirstPerson(text, c.language, persona_.self_reference()) : text;
}

void AnswerWriter::Quote(const std::vector<const Unit*>& units, const std::string& frame, bool frame_yields) {
  if (units.empty()) return;
  std::string block;
  std::vector<int> contexts_said;
  for (size_t i = 0; i < units.size(); ++i) {
    const Unit& u = *units[i];
    // The lead-in once per list, before its first quoted item.
    const int ctx = u.sentence.context;
    const bool with_context = ctx >= 0 && (i == 0 || units[i - 1]->label != u.label || units[i - 1]->sentence.context != ctx);
    if (i == 0 && !(frame_yields && OpensWithLeadIn(u, with_context))) block = frame;
    if (i > 0 && block.back() != ' ') block += ' ';
    block += Render(u, with_context);
    said_.push_back(u.key);
    const bool last_of_passage = i + 1 == units.size() || units[i + 1]->label != u.label;
    if (last_of_passage) block += " [" + std::to_string(Cite(u.label, u.passage_score)) + "]";
  }
  blocks_.push_back(std::move(block));
}

}  // namespace vesper
