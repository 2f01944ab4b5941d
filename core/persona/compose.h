// Writing an answer from passage units: each quoted as a whole sentence or a
// whole list item (with the sentence that introduces its list), in the
// persona's first person, units of one passage sharing one citation mark.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/collection/collection.h"
#include "core/persona/answer.h"
#include "core/persona/persona.h"
#include "core/persona/sentences.h"

namespace vesper {

// A unit of a passage an answer may quote, with how well it answers.
struct Unit {
  uint32_t label = 0;  // the passage (chunk)
  size_t rank = 0;     // of its passage among those considered, 0 best
  float passage_score = 0.f;  // the passage's search score, reported with its citation
  float strength = 0.f;       // the passage's ranking score over the best passage's, in [0, 1]
  float title_shared = 0.f;   // SharedEvidence of the passage's own heading
  bool other_language = false;  // in another language than the question, where passages in its language answer
  Sentence sentence;
  float shared = 0.f;  // SharedEvidence with the question
  float similarity = -1.f;  // the model's piece similarity; -1 when unavailable
  double score = 0.0;
  std::string key;     // "chunk-id:index": what the conversation remembers as said
  std::string section; // the passage's document and heading trail: units of one section read on
  // The unit without the lead-in carried before it.
  std::string own_text() const {
    const size_t nl = sentence.text.find('\n');
    return nl == std::string::npos ? sentence.text : sentence.text.substr(nl + 1);
  }
};

// The quotable units of a passage, without those the persona would not say
// (banned words), those already said, and the passage's own headings. With
// `timeline`, its timeline rows are units too, as entries ("2022: Leaves
// Tesla (March)."): what answers a question asking when.
std::vector<Unit> UnitsOf(const Persona& persona, const Collection& collection, uint32_t label, size_t rank,
                          const std::vector<std::string>& said, bool timeline = false);

class AnswerWriter {
 public:
  AnswerWriter(const Persona& persona, const Collection& collection, bool in_role)
      : persona_(persona), collection_(collection), in_role_(in_role) {}

  // One block: `frame` then the units in the order given. A frame that
  // only introduces (frame_yields) is left out where the first unit opens
  // with its own lead-in: two lead-ins in a row read as glued fragments.
  void Quote(const std::vector<const Unit*>& units, const std::string& frame, bool frame_yields = false);
  // A block of the persona's own words.
  void Say(const std::string& text) { if (!text.empty()) blocks_.push_back(text); }
  // Cites a passage (once) and returns its 1-based marker.
  size_t Cite(uint32_t label, float score);

  bool empty() const { return said_.empty(); }
  const std::vector<std::string>& said() const { return said_; }
  std::vector<std::string>& blocks() { return blocks_; }
  std::vector<Citation> TakeCitations() { return std::move(citations_); }
  const std::vector<Citation>& citations() const { return citations_; }

 private:
  std::string Render(const Unit& u, bool with_context) const;

  const Persona& persona_;
  const Collection& collection_;
  bool in_role_;
  std::vector<Citation> citations_;
  std::vector<std::string> blocks_;
  std::vector<std::string> said_;
};

}  // namespace vesper
