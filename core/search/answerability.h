// Whether a collection can answer a query, decided once per query from all
// the evidence the search gathered, rather than result by result from one
// cosine bar. The decision is a small logistic model per query language,
// calibrated per embedding model on a development set (bench/quality) and
// shipped in the model's manifest ("answerability"), so the page, the CLI,
// the component and the persona decide the same way.
#pragma once
#include <array>
#include <map>
#include <string>
#include <string_view>

namespace vesper {

// What one search saw about a query (Collection::Search fills it).
struct QueryEvidence {
  std::string language;        // the query's (DetectLanguage)
  bool has_vectors = false;    // false: a lexical collection or search
  float best_cosine = 0.f;     // the nearest passage's cosine
  float typical_cosine = 0.f;  // the query's mean cosine over the whole collection
  float best_lexical = 0.f;    // the best normalised BM25 among passages in the query's language
  bool agreement = false;      // the two retrievers' top results overlap (top 1 of one in the top 5 of the other)
  bool same_language = false;  // the nearest passage is in the query's language
  float best_match = 0.f;      // the best piece-matching score (0 without a PieceMatcher)
  float typical_match = 0.f;   // the mean piece-matching score of the candidates scored
  bool top_same_language = false;   // the best-ranked passage is in the query's language
  float top_coverage_loose = 0.f;   // share of the query's weight the best-ranked passage matches loosely
  float top_coverage_strict = 0.f;  // ... and closely (piece matching only)
  float vocabulary_coverage = 0.f;  // how well the collection's vocabulary knows the query (PieceMatcher)
  float term_coverage = 0.f;  // share of the query's words some passage holds, by rarity (Bm25Index::Coverage)
};

// The features the logistic model weighs, in this order after the bias.
enum AnswerFeature : size_t {
  kBestCosine, kCosineMargin, kBestLexical, kAgreement, kSameLanguage, kBestMatch, kMatchMargin, kTopSameLanguage,
  kTopCoverageLoose, kTopCoverageStrict, kVocabularyCoverage, kTermCoverage, kFeatureCount
};
const char* AnswerFeatureName(size_t feature);
std::array<float, kFeatureCount> AnswerFeatures(const QueryEvidence& e);

struct LanguageCalibration {
  float bias = 0.f;
  std::array<float, kFeatureCount> weights{};
};

struct Answerability {
  // Per query language; "*" for the others. The cut is folded into the bias:
  // a query is answerable when bias + weights . features >= 0.
  std::map<std::string, LanguageCalibration> vector_models;
  // A lexical collection decides from lexical evidence alone.
  float lexical_cut = kDefaultLexicalCut;
  // The lowest hybrid ranking score (SearchResult::fused) a passage may have
  // and still be shown under an answerable query: the slider's default.
  float floor = 0.f;
  bool calibrated = false;  // false: the uncalibrated default below

  // Measured on bench/quality's development half with a lexical collection
  // (node bench/quality/calibrate.mjs prints it): 0.117.
  static constexpr float kDefaultLexicalCut = 0.12f;

  // The manifest's "answerability" object as JSON text; throws
  // Error(kInvalidArgument) with a readable message when it is malformed.
  static Answerability FromJson(std::string_view json);
  // Without a calibration: a cosine bar at `threshold` (what search did
  // before calibrations existed), lexical evidence for lexical collections.
  static Answerability Uncalibrated(float threshold);
};

// Below the cut but above this confidence the decision is unsure: clients say
// so and show the closest passages, rather than "nothing answers this".
// Chosen on bench/quality's development half: every answerable question the
// decision refused scored at least 0.3 (5 of the 7 with a relevant passage
// in the top 5, beside 13 unanswerable ones); below it, only unanswerable ones.
// Calibrated vector decisions only (see Decide).
inline constexpr float kUnsureConfidence = 0.3f;

// A query whose vector is this close to a passage's nearly repeats it: the
// collection answers it (Decide). Above every question of bench/quality and
// bench/docsets (the highest: 0.89), answerable or not.
inline constexpr float kNearCopyCosine = 0.9f;

struct AnswerDecision {
  bool answerable = false;
  bool unsure = false;     // not answerable, but not clearly so (kUnsureConfidence)
  float confidence = 0.f;  // logistic probability (0.5 at the cut)
};

AnswerDecision Decide(const Answerability& a, const QueryEvidence& e);

}  // namespace vesper
