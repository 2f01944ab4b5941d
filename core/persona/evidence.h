// What a question asks and how well a sentence answers it: the question's
// type (who, when, why, ...), its content words weighted by how rare they are
// in the collection, and the cues that mark a sentence as a reason, an
// example or a limitation. Language-level knowledge for en, pt and zh; what
// belongs to one persona lives in its file.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace vesper {

class Collection;

enum class QuestionType { kFact, kWhen, kHowMany, kWhere, kWho, kWhy, kHow, kWhatIs, kOpinion, kLimitation };

// From the question's own words ("when", "quando", "什么时候", ...).
QuestionType ClassifyQuestion(std::string_view question);

// The question's content words (SplitWords keys, stopwords dropped), each
// weighted by its rarity among the collection's passages.
struct QuestionTerms {
  std::vector<std::string> words;
  std::vector<float> weights;
  float total = 0.f;
  float unseen = 0.f;  // words no passage holds, each weighing the most a word can (1)
  // The share of the question's weight some passage holds at all.
  float seen_share() const { return total + unseen > 0.f ? total / (total + unseen) : 0.f; }
};
QuestionTerms TermsOf(std::string_view question, const Collection& collection);

// The share of the question's weight whose words `text` holds, in [0, 1]:
// the lexical evidence that a sentence is about what was asked.
float SharedEvidence(const QuestionTerms& terms, std::string_view text);

// The question's content words in another language, through the
// collection's lexicon: one entry per word, which a sentence holds when it
// holds all the words of any one of its translations; names and numbers the
// lexicon does not know stay as they are. Weighted like TermsOf: a
// translation no passage holds cannot tell sentences apart and is dropped.
struct TranslatedTerms {
  std::vector<std::vector<std::vector<std::string>>> words;  // word -> its translations -> their keys
  std::vector<float> weights;
  float total = 0.f;
  float unseen = 0.f;  // words whose every translation no passage holds, each weighing 1 (as QuestionTerms)
  float seen_share() const { return total + unseen > 0.f ? total / (total + unseen) : 0.f; }
};
TranslatedTerms TranslatedTermsOf(std::string_view question, const std::string& from, const std::string& to,
                                  const Collection& collection);
float SharedEvidence(const TranslatedTerms& terms, std::string_view text);

// How well a sentence's form fits the question's type, in [0, 1]: a year
// for "when", a reason for "why", a definition for "what is".
float TypeFit(QuestionType type, std::string_view sentence);

// The question asks for something only a sentence of a certain form gives:
// a date for "when", a number for "how many". An answer without one does not
// answer it.
bool NeedsForm(QuestionType type);

// What a "how many" question counts, as a SplitWords key: the head of the
// noun phrase after "how many" (its last word in English: "how many Dojo
// chips" -> "chip") or "quantos/quantas" (its first in Portuguese: "quantos
// funcionários a Eureka Labs" -> "funcionario"). Empty when the question
// counts no thing ("how long"), or in Chinese, whose measure words this
// does not parse.
std::string CountedWord(std::string_view question);

// The years a text names (1900-2099, not part of a longer number): a
// question that names one ("How many cars did Tesla sell in 2022?") is
// answered only by a sentence that names it too.
std::vector<std::string> YearsIn(std::string_view text);
bool NamesAnyOf(std::string_view sentence, const std::vector<std::string>& years);

// The names a question asks about, as word keys: a word written with a capital
// past the question's first word or inside it ("OpenAI", "Tesla"; not an
// acronym, "AI"), and in a question holding Chinese characters any Latin word
// ("Eureka Labs"); only
// those some passage holds, and not the words of `own` (the persona's names).
std::vector<std::string> NamesIn(std::string_view question, const Collection& collection,
                                 const std::vector<std::string>& own);
// `text` holds one of those keys.
bool HoldsAnyKey(std::string_view text, const std::vector<std::string>& keys);

bool HasReasonCue(std::string_view sentence);
// Names a weakness ("counterpoint", "fails", "contraponto", "局限").
bool HasLimitationCue(std::string_view sentence);
bool HasExampleCue(std::string_view sentence);
// Starts by qualifying what came before ("However", "But", "Porém", "但是").
bool StartsWithLimitation(std::string_view sentence);
// A sentence opening with a contrast ("But", "Mas", "但是"): it answers back
// to the one before it.
bool OpensContrast(std::string_view sentence);
// The whole message, folded and punctuation aside, is an entry of one of the
// language files' lists (any language's).
bool IsWholly(std::string_view message, std::string_view list);
// ... and the language whose list holds it ("Olá!": pt, though too short for
// the detector), or "" when none does.
std::string WhollyIn(std::string_view message, std::string_view list);
// The whole question asks who the one answering is ("who are you", "quem é
// você", "你是谁": the language files' question_identity).
bool AsksIdentity(std::string_view question);
// ... and says it is one: a limitation's opening ("the downside") or word
// ("fails", 局限), not only a contrast ("But it changes who can build software").
bool NamesLimitation(std::string_view sentence);

// Leans on what was said before: a pronoun or demonstrative ("that", "isso",
// "那"), or a leading "and"/"e"/"那" -- a question that continues the topic.
bool RefersBack(std::string_view question);

// A sentence of a passage that points back to what the passage said before
// it: it opens with a pronoun, a demonstrative or a sequel ("These", "Then",
// "Isso", "这些"), or names "these"/"those"/"such" things among its first
// words ("Once you've completed these three projects, ..."). Quoted alone it
// leaves the reader asking which.
bool PointsBack(std::string_view sentence);

}  // namespace vesper
