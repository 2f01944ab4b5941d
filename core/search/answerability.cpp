#include "core/search/answerability.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "core/util/error.h"

namespace vesper {

using nlohmann::json;

namespace {

constexpr const char* kFeatureNames[kFeatureCount] = {"best_cosine", "cosine_margin", "best_lexical", "agreement",
                                                      "same_language", "best_match", "match_margin", "top_same_language",
                                                      "top_coverage_loose", "top_coverage_strict", "vocabulary_coverage",
                                                      "term_coverage"};
// How steeply confidence rises around an uncalibrated cosine bar: 0.1 above
// the bar reads as 0.88.
constexpr float kUncalibratedSlope = 20.f;

[[noreturn]] void Bad(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "answerability calibration: " + what);
}

float Finite(const json& v, const std::string& what) {
  if (!v.is_number()) Bad(what + " must be a number");
  double x = v.get<double>();
  if (!std::isfinite(x) || std::fabs(x) > 1e6) Bad(what + " is out of range");
  return static_cast<float>(x);
}

LanguageCalibration ParseLanguage(const json& j, const std::string& lang) {
  if (!j.is_object()) Bad("languages." + lang + " must be an object");
  LanguageCalibration c;
  c.bias = Finite(j.value("bias", json()), lang + ".bias");
  const json& w = j.value("weights", json());
  if (!w.is_object()) Bad(lang + ".weights must be an object of feature weights");
  for (auto it = w.begin(); it != w.end(); ++it) {
    size_t f = 0;
    while (f < kFeatureCount && it.key() != kFeatureNames[f]) ++f;
    if (f == kFeatureCount) Bad("unknown feature '" + it.key() + "' in " + lang);
    c.weights[f] = Finite(it.value(), lang + ".weights." + it.key());
  }
  return c;
}

}  // namespace

const char* AnswerFeatureName(size_t feature) { return feature < kFeatureCount ? kFeatureNames[feature] : "?"; }

std::array<float, kFeatureCount> AnswerFeatures(const QueryEvidence& e) {
  std::array<float, kFeatureCount> f{};
  f[kBestCosine] = e.best_cosine;
  f[kCosineMargin] = e.best_cosine - e.typical_cosine;
  f[kBestLexical] = e.best_lexical;
  f[kAgreement] = e.agreement ? 1.f : 0.f;
  f[kSameLanguage] = e.same_language ? 1.f : 0.f;
  f[kBestMatch] = e.best_match;
  f[kMatchMargin] = e.best_match - e.typical_match;
  f[kTopSameLanguage] = e.top_same_language ? 1.f : 0.f;
  f[kTopCoverageLoose] = e.top_coverage_loose;
  f[kTopCoverageStrict] = e.top_coverage_strict;
  f[kVocabularyCoverage] = e.vocabulary_coverage;
  f[kTermCoverage] = e.term_coverage;
  return f;
}

Answerability Answerability::FromJson(std::string_view text) {
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) Bad("not a JSON object");
  Answerability a;
  // A plain bar derived from a manifest's threshold says "calibrated": false,
  // so that a bar the user gives replaces it (see Query).
  if (j.contains("calibrated") && !j["calibrated"].is_boolean()) Bad("'calibrated' must be true or false");
  a.calibrated = j.value("calibrated", true);
  if (j.contains("floor")) a.floor = Finite(j["floor"], "floor");
  if (j.contains("lexical_cut")) a.lexical_cut = Finite(j["lexical_cut"], "lexical_cut");
  const json& langs = j.value("languages", json());
  if (!langs.is_object() || langs.empty()) Bad("'languages' must name at least one language");
  for (auto it = langs.begin(); it != langs.end(); ++it) a.vector_models[it.key()] = ParseLanguage(it.value(), it.key());
  if (!a.vector_models.count("*")) Bad("'languages' needs a \"*\" entry for other languages");
  return a;
}

Answerability Answerability::Uncalibrated(float threshold) {
  Answerability a;
  LanguageCalibration c;
  c.weights[kBestCosine] = kUncalibratedSlope;
  c.bias = -kUncalibratedSlope * threshold;
  a.vector_models["*"] = c;
  a.floor = threshold;
  return a;
}

AnswerDecision Decide(const Answerability& a, const QueryEvidence& e) {
  float z;
  if (!e.has_vectors) {
    z = kUncalibratedSlope * (e.best_lexical - a.lexical_cut);
  } else {
    auto it = a.vector_models.find(e.language);
    if (it == a.vector_models.end()) it = a.vector_models.find("*");
    if (it == a.vector_models.end()) throw Error(ErrorCode::kInvalidArgument, "answerability has no model for '*'");
    const LanguageCalibration& c = it->second;
    auto f = AnswerFeatures(e);
    z = c.bias;
    for (size_t i = 0; i < kFeatureCount; ++i) z += c.weights[i] * f[i];
  }
  AnswerDecision d;
  d.answerable = z >= 0.f;
  d.confidence = 1.f / (1.f + std::exp(-z));
  // A query that nearly repeats a passage (its heading, its words) is one the
  // collection holds, whatever the fitted weights make of it: "Who is Andrej
  // Karpathy?" (cosine 0.99 with the section of that title) was refused, as
  // its words are in every passage (high typical match, low BM25), and no
  // question of the fitting sets comes near this cosine.
  if (a.calibrated && e.has_vectors && e.best_cosine >= kNearCopyCosine) {
    d.answerable = true;
    d.confidence = std::max(d.confidence, e.best_cosine);
  }
  // Only a calibrated decision knows how sure it is: a lexical pack's or an
  // uncalibrated bar's confidence is a fixed slope around a default cut.
  d.unsure = !d.answerable && a.calibrated && e.has_vectors && d.confidence >= kUnsureConfidence;
  return d;
}

}  // namespace vesper
