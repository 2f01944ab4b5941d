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
  // The topic a follow-up ("why?", "e depois?", "能举个例子吗？") continues:
  // the question, the passages it drew on (chunk ids, best first) and the
  // units already quoted ("chunk-id:index"). A new question replaces it.
  std::string topic;
  std::vector<std::string> passages;
  std::vector<std::string> said;
};

// kSmallTalk: a greeting or thanks, answered with the persona's reply (no passage).
enum class AnswerKind { kAnswer, kDontKnow, kDeclined, kExited, kReentered, kSmallTalk };
const char* AnswerKindName(AnswerKind kind);

struct Citation {
  uint32_t label = 0;
  std::string id;
  std::vector<std::string> title;
  std::string source;
  std::string language;
  float score = 0.f;
};

// A unit an answer weighed (AnswerOptions::explain): what it says, how it scored.
struct WeighedUnit {
  std::string id;  // the passage (chunk id)
  std::string text;
  double score = 0.0;
  float shared = 0.f, similarity = -1.f;
  bool chosen = false;
};

struct Answer {
  std::string text;
  std::string language;  // of the question, and so of the answer: "en", "pt", "zh"
  AnswerKind kind = AnswerKind::kAnswer;
  bool in_role = true;
  bool disclaimer = false;        // this answer carries the one-time disclaimer
  std::string passage_languages;  // set when the passages came from other languages ("pt", "en,pt")
  bool unsure = false;            // answered from the closest passages the search was unsure of (phrases' "unsure")
  std::vector<Citation> citations;
  std::vector<WeighedUnit> weighed;  // with AnswerOptions::explain: every unit considered, best first
  bool declined() const { return kind == AnswerKind::kDeclined; }
};

// How the sentences (units) of the retrieved passages are scored against the
// question; the defaults were chosen on the development half of
// bench/persona/set-*.json (bench/persona/notes.md).
struct UnitWeights {
  double shared = 0.6;      // the share of the question's rare words the unit holds
  double similarity = 0.8;  // the model's piece similarity (static models)
  double type = 0.35;       // a year for "when", a reason for "why"
  double rank = 0.15;       // the passage's place in the ranking
  double passage = 0.5;     // the passage's ranking score over the best one's
  double title = 0.3;       // the share of the question's rare words in the passage's own heading
  double position = 0.05;   // earlier in its passage
  // A question about the topic ("那实际工作中该怎么应对？") reads on from the
  // passages the conversation quoted, not from a new search on its few words.
  double topic = 0.2;
  // Held against a unit in another language when passages in the question's
  // language answer too: the issue asks for the asker's language where it
  // answers as well. Since such units score with their translated evidence,
  // the development half reads 79 of 136 from 0 to 0.15, 78 at 0.2-0.25 and
  // 72 at 0.45 (bench/persona/notes.md, session 55).
  double other_language = 0.15;
  // A unit shares real evidence with the question when it holds this share
  // of its rare words, or the model finds it this similar.
  float min_shared = 0.1f;
  // A word shared through the lexicon's translation (a sentence in another
  // language than the question) counts this much of one shared as written.
  float translated = 1.0f;
  float min_similarity = 0.45f;
  // Or when its passage's own heading holds this share of them.
  float min_title_shared = 0.5f;
  double second_ratio = 0.75;  // another unit joins the best one at this share of its score
};

struct AnswerOptions {
  // The slider's bar for passages under an answerable question (cosine, or
  // normalised BM25 for lexical collections); negative: the collection's
  // calibrated floor. Whether the question is answerable at all is the
  // collection's answerability decision (core/search/query.h).
  float threshold = -1.f;
  size_t k = 8;              // passages retrieved
  size_t max_passages = 3;   // passages an answer may draw on
  size_t max_sentences = 4;  // sentences quoted from them (a compact passage is given whole)
  UnitWeights weights;
  bool explain = false;  // fill Answer::weighed
};

// query_vector: the question embedded with the collection's model (query
// prompt), or null for a lexical-only collection. Updates `state`.
// Throws kInvalidArgument for an empty question, kInvalidUtf8 for bad text.
Answer AnswerQuestion(const Persona& persona, const Collection& collection, std::string_view question,
                      const float* query_vector, size_t query_dims, ConversationState& state,
                      const AnswerOptions& options = {});

// The language an answer to `question` is written in: en, pt or zh.
std::string AnswerLanguage(std::string_view question);

// What the persona looks up for `question`, and what clients embed for it:
// the question itself, or, where it asks who the persona is ("Who are you?",
// "Quem é você?", "你是谁？", AsksIdentity), that question about the
// persona's name in its language ("who is Andrej Karpathy"). Its own words
// name nobody: it found nothing, and the persona said "I don't know".
std::string PersonaLookupText(const Persona& persona, std::string_view question);

}  // namespace vesper
