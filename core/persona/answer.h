// Answers a question in the persona's voice from a collection's passages.
// No language model: the answer is composed from the retrieved passages'
// own sentences, framed by the persona's phrases in its answer structure
// (intuition, mechanism, example, limitation, next steps), each sentence
// citing its passage. Deterministic for the same inputs and state.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/collection/collection.h"
#include "core/persona/persona.h"

namespace vesper {

// What a conversation remembers between turns (the CLI keeps it in a
// --session file, the page in memory).
struct ConversationState {
  bool disclaimer_shown = false;
  bool in_role = true;
  uint32_t turns = 0;
};

enum class AnswerKind { kAnswer, kDontKnow, kDeclined, kExited, kReentered };
const char* AnswerKindName(AnswerKind kind);

struct Citation {
  uint32_t label = 0;
  std::string id;
  std::vector<std::string> title;
  std::string source;
  std::string language;
  float score = 0.f;
};

struct Answer {
  std::string text;
  std::string language;  // of the question, and so of the answer: "en", "pt", "zh"
  AnswerKind kind = AnswerKind::kAnswer;
  bool in_role = true;
  bool disclaimer = false;        // this answer carries the one-time disclaimer
  std::string passage_languages;  // set when the passages came from other languages ("pt", "en,pt")
  std::vector<Citation> citations;
  bool declined() const { return kind == AnswerKind::kDeclined; }
};

struct AnswerOptions {
  // The slider's bar for passages under an answerable question (cosine, or
  // normalised BM25 for lexical collections); negative: the collection's
  // calibrated floor. Whether the question is answerable at all is the
  // collection's answerability decision (core/search/query.h).
  float threshold = -1.f;
  size_t k = 8;              // passages retrieved
  size_t max_passages = 3;   // passages an answer may draw on
  size_t max_sentences = 4;  // sentences quoted from them
  float language_margin = 0.05f;  // how much weaker a same-language passage may be and still win
};

// query_vector: the question embedded with the collection's model (query
// prompt), or null for a lexical-only collection. Updates `state`.
// Throws kInvalidArgument for an empty question, kInvalidUtf8 for bad text.
Answer AnswerQuestion(const Persona& persona, const Collection& collection, std::string_view question,
                      const float* query_vector, size_t query_dims, ConversationState& state,
                      const AnswerOptions& options = {});

// The language an answer to `question` is written in: en, pt or zh.
std::string AnswerLanguage(std::string_view question);

}  // namespace vesper
