#include "core/persona/answer.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

#include "core/persona/commands.h"
#include "core/persona/compose.h"
#include "core/persona/evidence.h"
#include "core/persona/followup.h"
#include "core/persona/text_match.h"
#include "core/text/lang.h"
#include "core/search/query.h"
#include "core/text/language.h"
#include "core/text/words.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {

const char* AnswerKindName(AnswerKind kind) {
  switch (kind) {
    case AnswerKind::kAnswer: return "answer";
    case AnswerKind::kDontKnow: return "dont_know";
    case AnswerKind::kDeclined: return "declined";
    case AnswerKind::kExited: return "exited";
    case AnswerKind::kReentered: return "reentered";
    case AnswerKind::kSmallTalk: return "small_talk";
  }
  return "answer";
}

std::string AnswerLanguage(std::string_view question) {
  std::string lang = DetectLanguage(question);
  if (lang == "zh" || lang == "pt" || lang == "en") return lang;
  return utf8::ContainsHan(question) ? "zh" : "en";
}

namespace {

// Two sentences in different languages whose pieces match at least this well,
// both ways (Collection::PieceSimilarity), are one translated (Turn::Translates).
constexpr float kTranslationSimilarity = 0.6f;

// A passage this small (in quotable units and bytes) that answers is given whole.
constexpr size_t kCompactUnits = 4;
constexpr size_t kCompactBytes = 520;
constexpr size_t kListReach = 2;           // list items this close to the best one come with it
constexpr size_t kProseReach = 2;          // sentences after a lead-in's first that come with it
constexpr double kQuotedPassage = 1.0;     // a why/example follow-up: a unit of a passage it quoted (Continue)
constexpr size_t kPoolPassages = 4;        // passages whose sentences compete
constexpr size_t kTopicPassages = 4;       // passages a topic keeps for follow-ups
constexpr size_t kMaxSaid = 64;            // units a conversation remembers as said
constexpr size_t kMaxQuoteOverlap = 2;     // question words a persona quote must share
constexpr double kInformativeBytes = 120;  // a follow-up prefers units about this long over scraps
// Finding the passage a persona quote comes from: its start is looked up
// lexically (kLookupBytes), and the passage must hold its first kProbeBytes
// (both cut on a character boundary: a cut inside one is invalid UTF-8).
constexpr size_t kLookupBytes = 300;
constexpr size_t kProbeBytes = 40;
constexpr size_t kLookupPassages = 3;

// The passages (best first) that hold `text`, a quote or Q&A answer from the
// persona file: found by its words, kept if they contain its start.
std::vector<SearchResult> PassagesHolding(const Collection& db, std::string_view text) {
  SearchOptions lex;
  lex.k = kLookupPassages;
  lex.threshold = 0.f;
  lex.mode = SearchMode::kLexical;
  const std::string_view probe = utf8::Prefix(text, kProbeBytes);
  std::vector<SearchResult> found = db.Search(utf8::Prefix(text, kLookupBytes), nullptr, 0, lex);
  found.erase(std::remove_if(found.begin(), found.end(), [&](const SearchResult& r) {
    std::string flat = db.chunk(r.label).text;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    return flat.find(probe) == std::string::npos;
  }), found.end());
  return found;
}

std::string Replace(std::string s, const std::string& key, const std::string& value) {
  for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size())) s.replace(at, key.size(), value);
  return s;
}

}  // namespace

std::string PersonaLookupText(const Persona& persona, std::string_view question) {
  if (persona.name().empty() || !AsksIdentity(question)) return std::string(question);
  const std::vector<std::string>& forms = LanguageWords(AnswerLanguage(question), "identity_lookup");
  if (forms.empty() || forms.front().find("{name}") == std::string::npos) return std::string(question);
  return Replace(forms.front(), "{name}", persona.name());
}

namespace {

// The name of language `of` written in language `in` (its file's "name"
// mapping), in English where `in` has none, or the code itself.
std::string LanguageName(const std::string& of, const std::string& in) {
  std::string english = of;
  for (const WordMapping& name : LanguageMapping(of, "name")) {
    if (name.to.empty()) continue;
    if (name.from == in) return name.to.front();
    if (name.from == "en") english = name.to.front();
  }
  return english;
}

std::string Trimmed(std::string_view question) {
  utf8::Require(question, "question");
  const size_t b = question.find_first_not_of(" \n\t\r");
  if (b == std::string_view::npos) throw Error(ErrorCode::kEmptyInput, "the question is empty");
  const size_t e = question.find_last_not_of(" \n\t\r");
  return std::string(question.substr(b, e - b + 1));
}


// One turn of the conversation: the stages an answer goes through.
class Turn {
 public:
  Turn(const Persona& persona, const Collection& collection, ConversationState& state, const AnswerOptions& opt,
       std::string question)
      : persona_(persona), db_(collection), state_(state), opt_(opt), q_(std::move(question)),
        look_(PersonaLookupText(persona, q_)) {
    a_.language = AnswerLanguage(q_);
  }

  Answer Run(const float* query_vector, size_t query_dims) {
    std::string lang;
    switch (ParseRoleCommand(persona_, q_, &lang)) {
      case RoleCommand::kExit: return RoleChange(false, lang);
      case RoleCommand::kReenter: return RoleChange(true, lang);
      case RoleCommand::kNone: break;
    }
    ++state_.turns;
    a_.in_role = state_.in_role;
    if (state_.in_role && SmallTalk()) return Finish();
    const FollowUp follow = ParseFollowUp(q_);
    if (state_.in_role && Declined()) return Finish();
    const bool topic = !state_.passages.empty();
    if (follow != FollowUp::kNone) {
      // With nothing said before it ("And then?" after "I don't know"), a
      // follow-up has nothing to go on from: looking up its few words would
      // answer something unrelated ("And then?" -> where I was born).
      if (topic) Continue(follow);
      else NothingMore();
      return Finish();
    }
    // "Is there any downside to that?": a question of its own, asked about the topic.
    const bool about_topic = topic && RefersBack(q_);
    if (!(state_.in_role && !about_topic && FromPersonaQa())) FromPassages(query_vector, query_dims, about_topic);
    return Finish();
  }

 private:
  const VoicePhrases& ph() const { return persona_.phrases(a_.language); }
  // A unit shares real evidence with the question, or stands under a heading
  // that holds most of the question's words ("HydraNet 是什么？" and a passage
  // headed "HydraNet: A Network for Everything" that never repeats the name).
  bool Relevant(const Unit& u) const {
    return u.shared >= opt_.weights.min_shared || u.similarity >= opt_.weights.min_similarity ||
           u.title_shared >= opt_.weights.min_title_shared;
  }
  bool Dated(const Unit& u) const { return years_.empty() || NamesAnyOf(u.sentence.text, years_); }
  // "Quando você entrou na OpenAI?" is answered by what names OpenAI (or sits under a heading that does).
  bool Named(const Unit& u) const {
    if (names_.empty() || HoldsAnyKey(u.sentence.text, names_)) return true;
    const Chunk& c = db_.chunk(u.label);
    return !c.title.empty() && HoldsAnyKey(c.title.back(), names_);
  }
  // "How many employees ...?" is answered only by a sentence that counts employees.
  bool Counts(const Unit& u) const {
    if (counted_.empty()) return true;
    bool found = false;
    SplitWords(u.sentence.text, [&](WordSpan&& w) { found = found || counted_.count(w.term) > 0; });
    return found;
  }

  // CountedWord(q_) as written and as the lexicon translates it into the
  // collection's other languages.
  std::set<std::string> CountedKeys() const {
    const std::string word = CountedWord(q_);
    if (word.empty()) return {};
    std::set<std::string> keys = {word};
    for (const std::string& language : db_.Languages()) {
      for (const TermGroup& group : db_.Translate(word, a_.language, language)) {
        for (const std::string& phrase : group) SplitWords(phrase, [&](WordSpan&& w) { keys.insert(std::move(w.term)); });
      }
    }
    return keys;
  }

  Answer RoleChange(bool in_role, const std::string& lang) {
    a_.language = lang;
    state_.in_role = in_role;
    a_.in_role = in_role;
    a_.kind = in_role ? AnswerKind::kReentered : AnswerKind::kExited;
    a_.text = in_role ? Replace(ph().reentered, "{name}", persona_.name()) : ph().exited;
    return std::move(a_);
  }

  void Forget() {
    state_.topic.clear();
    state_.passages.clear();
    state_.said.clear();
  }

  // Out of scope: declined in character, before looking anything up.
  bool Declined() {
    const std::string folded = FoldText(q_);
    for (const OutOfScopeRule& rule : persona_.out_of_scope()) {
      for (auto& [lang, patterns] : rule.patterns) {
        for (const std::string& p : patterns) {
          if (!ContainsWord(folded, p)) continue;
          auto reason = rule.reason.find(a_.language);
          if (reason == rule.reason.end()) reason = rule.reason.find("en");
          a_.kind = AnswerKind::kDeclined;
          blocks_.push_back(Replace(Replace(ph().decline, "{reason}", reason == rule.reason.end() ? rule.id : reason->second),
                                    "{topics}", Topics()));
          Forget();
          return true;
        }
      }
    }
    return false;
  }

  // The persona's topics, as a phrase says them ("{topics}").
  std::string Topics() const {
    std::string topics;
    for (size_t i = 0; i < persona_.topics().size() && i < 4; ++i) {
      if (i) topics += a_.language == "zh" ? "\xE3\x80\x81" : ", ";  // 、
      topics += persona_.topics()[i];
    }
    return topics;
  }

  // "Hello!", "Obrigado!", "谢谢": the persona's reply, where its file has one;
  // the conversation's topic stays for what comes next.
  bool SmallTalk() {
    const std::string greets = WhollyIn(q_, "greetings"), thanks = greets.empty() ? WhollyIn(q_, "thanks") : "";
    if (greets.empty() && thanks.empty()) return false;
    a_.language = greets.empty() ? thanks : greets;  // "Olá!" is too short for the detector
    const std::string* reply = greets.empty() ? &ph().thanks : &ph().greeting;
    if (reply->empty()) return false;
    a_.kind = AnswerKind::kSmallTalk;
    blocks_.push_back(Replace(*reply, "{topics}", Topics()));
    return true;
  }

  void DontKnow() {
    a_.kind = AnswerKind::kDontKnow;
    blocks_.push_back(state_.in_role ? ph().dont_know : ph().neutral_dont_know);
    Forget();
  }

  bool FromPersonaQa();
  struct Pool {
    std::vector<uint32_t> labels;
    std::vector<float> scores, strengths;
    std::vector<size_t> ranks;
  };
  void FromPassages(const float* query_vector, size_t query_dims, bool about_topic);
  // unsure: set when the hits are the closest passages of an unsure decision.
  std::vector<SearchResult> Lookup(const float* query_vector, size_t query_dims, bool about_topic, bool& unsure) const;
  Pool BuildPool(const std::vector<SearchResult>& hits, bool about_topic) const;
  // timeline: a question asking when or naming a year, which a timeline row may answer.
  std::vector<Unit> GatherUnits(const Pool& pool, const QuestionTerms& terms, bool same_language, bool about_topic,
                                bool timeline) const;
  std::vector<uint32_t> TopicPool() const;
  std::vector<uint32_t> SectionNeighbours(uint32_t label) const;
  void Continue(FollowUp follow);
  void NothingMore() {
    a_.kind = AnswerKind::kDontKnow;
    blocks_.push_back(ph().nothing_more.empty() ? ph().dont_know : ph().nothing_more);
  }
  void Score(std::vector<Unit>& units, const QuestionTerms& terms, QuestionType type) const;
  std::vector<const Unit*> Select(const std::vector<Unit>& units, QuestionType type) const;
  void Frame(AnswerWriter& w, const std::vector<const Unit*>& main, const std::vector<Unit>& units, QuestionType type);
  bool LimitsAnswer(const Unit& u, const std::vector<const Unit*>& main) const;
  bool Translates(const Unit& u, const Unit& of) const;
  // A question about the topic reads on from the passages the conversation
  // quoted: their units gain `topic`.
  void FavourSaidPassages(std::vector<Unit>& units) const;
  const Unit* RunnerUp(const std::vector<Unit>& units, const Unit& best, const std::vector<const Unit*>& same,
                       const std::vector<const Unit*>& out) const;
  // `u` is in another language than a unit of `out` and says what it says (its passage's twin, or its translation).
  bool RepeatsInAnother(const Unit& u, const std::vector<const Unit*>& out) const;
  void AddQuote(AnswerWriter& w, const QuestionTerms& terms);
  void Remember(const AnswerWriter& w, const std::vector<uint32_t>& pool, bool fresh);
  // Says, before the answer's blocks (from `at`), that its passages are all in other languages.
  void NoteLanguages(size_t at);
  void Explain(const std::vector<Unit>& units, const std::vector<const Unit*>& chosen);
  Answer Finish();

  const Persona& persona_;
  const Collection& db_;
  ConversationState& state_;
  const AnswerOptions& opt_;
  const std::string q_;
  const std::string look_;  // what is looked up and weighed (PersonaLookupText)
  std::vector<std::string> years_;  // the years the question names
  std::vector<std::string> names_;  // the names it asks about (NamesIn)
  std::set<std::string> counted_;   // what a "how many" question counts (CountedWord), with its translations
  Answer a_;
  std::vector<std::string> blocks_;
};

// A question the persona's own Q&A answers: its answer, cited where the knowledge base holds it.
bool Turn::FromPersonaQa() {
  const QuestionTerms terms = TermsOf(look_, db_);
  constexpr float kMinQaMatch = 0.7f;  // of the Q&A question's own weight that the question holds
  for (const PersonaQa& qa : persona_.qa()) {
    if (!qa.language.empty() && qa.language != a_.language) continue;
    const QuestionTerms theirs = TermsOf(qa.question, db_);
    if (theirs.words.size() < 2 || terms.words.size() < 2) continue;
    if (SharedEvidence(theirs, look_) < kMinQaMatch || SharedEvidence(terms, qa.question) < kMinQaMatch) continue;
    for (const SearchResult& r : PassagesHolding(db_, qa.answer)) {
      std::vector<Unit> units = UnitsOf(persona_, db_, r.label, 0, {});
      if (units.empty()) continue;
      if (units.size() > opt_.max_sentences) units.resize(opt_.max_sentences);
      AnswerWriter w(persona_, db_, true);
      std::vector<const Unit*> all;
      for (const Unit& u : units) all.push_back(&u);
      w.Quote(all, "");
      for (std::string& b : w.blocks()) blocks_.push_back(std::move(b));
      a_.kind = AnswerKind::kAnswer;
      a_.citations = w.TakeCitations();
      Remember(w, {r.label}, true);
      state_.topic = q_;
      return true;
    }
  }
  return false;
}

void Turn::Score(std::vector<Unit>& units, const QuestionTerms& terms, QuestionType type) const {
  // A sentence in another language shares the question's words through
  // their translations, whether or not passages in the question's language
  // came too (those are preferred only by `other_language`).
  // A sentence's score reads its share of the whole question: words no
  // passage holds count against it (a Chinese question whose subject only
  // English passages name is not answered by the Chinese sentence sharing
  // its one common word, "重要"); whether it qualifies reads the share of
  // what the passages can hold (u.shared).
  std::map<std::string, TranslatedTerms> translated;
  for (Unit& u : units) {
    u.shared = SharedEvidence(terms, u.sentence.text);
    float scored = u.shared * terms.seen_share();
    const std::string& language = db_.chunk(u.label).language;
    if (language != a_.language && !language.empty()) {
      auto it = translated.find(language);
      if (it == translated.end()) it = translated.emplace(language, TranslatedTermsOf(look_, a_.language, language, db_)).first;
      const float through = opt_.weights.translated * SharedEvidence(it->second, u.sentence.text);
      u.shared = std::max(u.shared, through);
      scored = std::max(scored, through * it->second.seen_share());
    }
    u.similarity = db_.PieceSimilarity(look_, u.sentence.text);
    const UnitWeights& k = opt_.weights;
    u.score = k.shared * scored + k.passage * u.strength + k.title * u.title_shared + k.similarity * std::max(0.f, u.similarity) + k.type * TypeFit(type, u.sentence.text) +
              k.rank / (1.0 + u.rank) + k.position / (1.0 + u.sentence.index) - (u.other_language ? k.other_language : 0.0);
  }
}

// The unit just before `at` in its passage (`section`: its section's units),
// null where that sentence is not a unit (a passage's short sentences are
// not: "Then do makemore."; nor is the end of the passage before).
const Unit* UnitBefore(const std::vector<const Unit*>& section, const Unit& at) {
  for (const Unit* u : section) {
    if (u->label == at.label && u->sentence.index + 1 == at.sentence.index) return u;
  }
  return nullptr;
}

// A chosen sentence that points back ("It is the best investment you can
// make.") comes after what it points to: the prose before it in its passage,
// as far as the first sentence that does not point back (out: the best unit
// first; reading order is restored later).
void ReadBack(const std::vector<const Unit*>& section, size_t room, std::vector<const Unit*>& out) {
  for (const Unit* at = out.front(); out.size() < room && !at->sentence.list_item && PointsBack(at->sentence.text);) {
    const Unit* before = UnitBefore(section, *at);
    if (!before || before->sentence.list_item || std::find(out.begin(), out.end(), before) != out.end()) break;
    out.push_back(before);
    at = before;
  }
}

// Whether `u` may join the answer `out`: a sentence that points back ("It
// learns to compress human text by predicting it.") only after what it
// points to (in `section`, the best unit's passage's units), which ReadBack
// brings for the best unit only.
bool ReadsOn(const Unit& u, const std::vector<const Unit*>& section, const std::vector<const Unit*>& out) {
  if (u.sentence.list_item || !PointsBack(u.sentence.text)) return true;
  const Unit* before = UnitBefore(section, u);
  return before && std::find(out.begin(), out.end(), before) != out.end();
}

// A said unit's key, "chunk-id:index", into its parts. Keys come back from a
// saved session: false for anything malformed, which callers skip.
bool ParseSaidKey(const std::string& key, std::string& id, size_t& index) {
  const size_t colon = key.rfind(':');
  if (colon == std::string::npos || colon + 1 >= key.size()) return false;
  char* end = nullptr;
  index = std::strtoul(key.c_str() + colon + 1, &end, 10);
  if (*end != '\0') return false;
  id = key.substr(0, colon);
  return true;
}

// The units that answer: the best one, what reads on from it in its passage,
// and a strong unit of another passage; or a compact passage whole.
std::vector<const Unit*> Turn::Select(const std::vector<Unit>& units, QuestionType type) const {
  // The best unit shares evidence with the question and, for "when" and "how many", has the form asked for.
  // A unit naming what the question names, when one qualifies.
  const Unit* best = nullptr;
  for (bool named : {true, false}) {
    for (const Unit& u : units) {
      const bool formed = !NeedsForm(type) || TypeFit(type, u.sentence.text) > 0.f;
      if (Relevant(u) && Dated(u) && Counts(u) && formed && (!named || Named(u)) && (!best || u.score > best->score)) best = &u;
    }
    if (best) break;
  }
  if (!best) {  // the decision says answerable; the best-scored unit leads
    for (const Unit& u : units) {
      if (!best || u.score > best->score) best = &u;
    }
  }
  std::vector<const Unit*> same;  // the best unit's passage, in reading order
  size_t bytes = 0;
  for (const Unit& u : units) {
    if (u.section == best->section) same.push_back(&u), bytes += u.sentence.text.size();
  }
  const bool explains = type == QuestionType::kWhatIs || type == QuestionType::kHow || type == QuestionType::kWhy ||
                        type == QuestionType::kOpinion;
  if (same.size() > 1 && same.size() <= kCompactUnits && bytes <= kCompactBytes && explains) return same;

  size_t room = opt_.max_sentences > 1 ? opt_.max_sentences - 1 : 1;  // one left for an example or a limitation
  std::vector<const Unit*> out = {best};
  auto taken = [&](const Unit* u) { return std::find(out.begin(), out.end(), u) != out.end(); };
  ReadBack(same, room, out);
  // The sentence right after the best one, where it answers back to it ("But
  // current systems are fragile.", "The latter is worth 100x more."),
  // completes it: the thought is the pair, and takes no other unit's room.
  if (!best->sentence.list_item) {
    for (const Unit* u : same) {
      const bool next = UnitBefore(same, *u) == best && !u->sentence.list_item;
      if (next && !taken(u) && (PointsBack(u->sentence.text) || OpensContrast(u->sentence.text))) out.push_back(u), ++room;
    }
  }
  // A list answers whole: the best item's neighbours in its list come with it.
  if (best->sentence.list_item) {
    for (const Unit* u : same) {
      const bool sibling = u->sentence.list_item && u->sentence.context == best->sentence.context &&
                           u->sentence.index + kListReach >= best->sentence.index && u->sentence.index <= best->sentence.index + kListReach;
      if (sibling && !taken(u) && out.size() < room) out.push_back(u);
    }
  }
  // Prose a lead-in introduces reads on: "The honest counterpoint: LiDAR
  // provides depth directly." is the first of the sentences it announces.
  if (!best->sentence.list_item && best->sentence.context >= 0) {
    for (const Unit* u : same) {
      const bool next = u->label == best->label && !u->sentence.list_item && u->sentence.index > best->sentence.index &&
                        u->sentence.index <= best->sentence.index + kProseReach;
      if (next && !taken(u) && out.size() < room) out.push_back(u);
    }
  }
  const Unit* second = RunnerUp(units, *best, same, out);
  if (second && out.size() < room) out.push_back(second);
  // Then what else the best unit's section says about the question (not
  // what the runner-up already said in its language: a Portuguese timeline
  // row after its English twin).
  std::vector<const Unit*> rest;
  for (const Unit* u : same) {
    if (!taken(u) && u->score >= opt_.weights.second_ratio * best->score && ReadsOn(*u, same, out)) rest.push_back(u);
  }
  std::stable_sort(rest.begin(), rest.end(), [](const Unit* x, const Unit* y) { return x->score > y->score; });
  for (const Unit* u : rest) {
    if (out.size() >= room) break;
    if (!RepeatsInAnother(*u, out)) out.push_back(u);
  }
  // Reading order: the best unit's passage first, each passage's units as written.
  std::stable_sort(out.begin(), out.end(), [&](const Unit* x, const Unit* y) {
    if (x->section != y->section) return x->section == best->section;
    if (x->label != y->label) return x->label < y->label;
    return x->sentence.index < y->sentence.index;
  });
  return out;
}

void Turn::FavourSaidPassages(std::vector<Unit>& units) const {
  std::set<std::string> quoted;  // chunk ids of what was said
  for (const std::string& key : state_.said) {
    std::string id;
    size_t index = 0;
    if (ParseSaidKey(key, id, index)) quoted.insert(std::move(id));
  }
  for (Unit& u : units) {
    if (quoted.count(db_.chunk(u.label).id)) u.score += opt_.weights.topic;
  }
}

// The runner-up, wherever it is, when it answers too: a second passage often holds the other half.
// Not the translation of what is taken: "What is Dojo?" quoted the Portuguese
// copy of the English sentence after it.
const Unit* Turn::RunnerUp(const std::vector<Unit>& units, const Unit& best, const std::vector<const Unit*>& same,
                           const std::vector<const Unit*>& out) const {
  const Unit* second = nullptr;
  for (const Unit& u : units) {
    if (std::find(out.begin(), out.end(), &u) != out.end() || !Relevant(u) || u.score < opt_.weights.second_ratio * best.score ||
        !ReadsOn(u, same, out) || RepeatsInAnother(u, out))
      continue;
    if (!second || u.score > second->score) second = &u;
  }
  return second;
}

bool Turn::RepeatsInAnother(const Unit& u, const std::vector<const Unit*>& out) const {
  const std::string& language = db_.chunk(u.label).language;
  return std::any_of(out.begin(), out.end(), [&](const Unit* t) {
    return db_.chunk(t->label).language != language &&
           (db_.PassageCosine(t->label, u.label) >= kDefaultTwinCosine || Translates(u, *t));
  });
}

// The persona's structure where the evidence has its parts: a framing for
// questions that ask for a view or an explanation, a real example, a real
// limitation. Facts are stated plainly.
void Turn::Frame(AnswerWriter& w, const std::vector<const Unit*>& main, const std::vector<Unit>& units, QuestionType type) {
  const bool in_role = state_.in_role;
  const bool explains = type == QuestionType::kWhy || type == QuestionType::kHow || type == QuestionType::kOpinion;
  std::string frame = !in_role ? ph().neutral_intro : explains ? ph().intuition : "";
  // Out of role the intro says where the words come from: it always stays.
  w.Quote(main, frame, in_role);
  size_t budget = opt_.max_sentences > main.size() ? opt_.max_sentences - main.size() : 0;
  auto unused = [&](const Unit& u) { return std::find(main.begin(), main.end(), &u) == main.end(); };
  if (budget > 0) {
    for (const Unit& u : units) {
      if (unused(u) && Relevant(u) && HasExampleCue(u.sentence.text)) {
        w.Quote({&u}, in_role ? ph().example : "");
        --budget;
        break;
      }
    }
  }
  if (budget > 0) {
    for (const Unit& u : units) {
      if (unused(u) && LimitsAnswer(u, main) && w.said().end() == std::find(w.said().begin(), w.said().end(), u.key)) {
        w.Quote({&u}, in_role ? ph().limitation : "");
        break;
      }
    }
  }
}

// `u` says what `of` says in another language: their pieces match as a
// sentence's translation does ("Antes de usar transformers, implemente
// attention do zero." after "Before using transformers, implement attention
// from scratch.", in passages whose vectors differ as the rest of each does).
bool Turn::Translates(const Unit& u, const Unit& of) const {
  if (db_.chunk(u.label).language == db_.chunk(of.label).language) return false;
  return std::min(db_.PieceSimilarity(of.sentence.text, u.sentence.text), db_.PieceSimilarity(u.sentence.text, of.sentence.text)) >=
         kTranslationSimilarity;
}

// A limitation worth adding to an answer: it shares the question's words,
// says it is a limitation (not only "But ..."), and qualifies what the answer
// quoted: from one of its sections, in its language. Any passage's
// limitation that shared a word was added before: a mental model's caveat
// after an answer about an RNN blog post, a Chinese caveat in an English answer.
bool Turn::LimitsAnswer(const Unit& u, const std::vector<const Unit*>& main) const {
  if (main.empty() || u.shared < opt_.weights.min_shared) return false;
  if (!StartsWithLimitation(u.sentence.text) || !NamesLimitation(u.sentence.text)) return false;
  const Chunk& own = db_.chunk(u.label);
  const bool quoted = std::any_of(main.begin(), main.end(), [&](const Unit* m) {
    return m->label == u.label || db_.chunk(m->label).title == own.title;  // a long section's passages share its heading
  });
  return quoted && own.language == db_.chunk(main.front()->label).language;
}

// A quote of the persona's that shares the question's subject, cited where it appears.
void Turn::AddQuote(AnswerWriter& w, const QuestionTerms& terms) {
  const PersonaQuote* pick = nullptr;
  size_t best = kMaxQuoteOverlap - 1;
  for (const PersonaQuote& quote : persona_.quotes()) {
    const std::string folded = FoldText(quote.text);
    size_t shared = 0;
    for (size_t i = 0; i < terms.words.size(); ++i) shared += terms.weights[i] >= opt_.weights.min_shared && ContainsWord(folded, terms.words[i]);
    if (shared > best && !persona_.UsesBannedWord(quote.text)) best = shared, pick = &quote;
  }
  if (!pick) return;
  const std::vector<SearchResult> holding = PassagesHolding(db_, pick->text);
  if (holding.empty()) return;
  const size_t n = w.Cite(holding.front().label, holding.front().score);
  w.Say(ph().quote + "\xE2\x80\x9C" + pick->text + "\xE2\x80\x9D" + (pick->source.empty() ? "" : " (" + pick->source + ")") +
        " [" + std::to_string(n) + "]");
}

// The shown, non-meta results of the one search a question gets.
std::vector<SearchResult> Turn::Lookup(const float* query_vector, size_t query_dims, bool about_topic, bool& unsure) const {
  unsure = false;
  QueryOptions qo;
  qo.k = opt_.k;
  qo.min_score = opt_.threshold;
  qo.exclude_meta = true;  // meta text is never quoted as an answer
  qo.mode = query_vector && db_.has_vectors() ? SearchMode::kHybrid : SearchMode::kLexical;
  const bool lexical = qo.mode == SearchMode::kLexical;
  // A question about the topic is looked up with the topic's words too.
  const std::string lookup = about_topic ? look_ + "\n" + state_.topic : look_;
  QueryResponse found = Query(db_, lookup, lexical ? nullptr : query_vector, lexical ? 0 : query_dims, qo);
  std::vector<SearchResult> hits;
  for (size_t i = 0; i < found.results.size(); ++i) {
    if (found.shown[i] && !db_.chunk(found.results[i].label).meta) hits.push_back(found.results[i]);
  }
  // Unsure whether the knowledge base answers (the search's decision): with
  // the persona file's "unsure" phrase, the closest passages still compete and
  // the answer says it is unsure; the units still have to share evidence with
  // the question (FromPassages), or it is "I don't know". Opt-in: with the
  // default persona it answered more out-of-scope questions than it gained
  // (bench/persona/notes.md, session 52).
  if (hits.empty() && found.decision.unsure && state_.in_role && !ph().unsure.empty() && !about_topic) {
    for (const SearchResult& r : found.results) {
      if (hits.size() == kPoolPassages) break;
      if (!db_.chunk(r.label).meta) hits.push_back(r);
    }
    unsure = !hits.empty();
  }
  return hits;
}

// The passages whose units compete: the topic's first for a question about
// it, then the best hits, then the chunks beside the best hit in its section
// (which rank with it).
Turn::Pool Turn::BuildPool(const std::vector<SearchResult>& hits, bool about_topic) const {
  Pool p;
  auto add = [&](uint32_t label, float score, float strength, size_t rank) {
    if (std::find(p.labels.begin(), p.labels.end(), label) != p.labels.end()) return false;
    p.labels.push_back(label), p.scores.push_back(score), p.strengths.push_back(strength), p.ranks.push_back(rank);
    return true;
  };
  if (about_topic) {
    for (uint32_t label : TopicPool()) add(label, 0.f, 1.f, p.labels.size());
  }
  const float top = hits.empty() ? 1.f : std::max(hits[0].fused, 1e-6f);
  for (size_t i = 0, n = 0; i < hits.size() && n < kPoolPassages; ++i) {
    n += add(hits[i].label, hits[i].score, std::clamp(hits[i].fused / top, 0.f, 1.f), p.labels.size());
  }
  if (!hits.empty()) {
    const size_t lead_rank = p.ranks[std::find(p.labels.begin(), p.labels.end(), hits[0].label) - p.labels.begin()];
    for (uint32_t near : SectionNeighbours(hits[0].label)) add(near, hits[0].score, 1.f, lead_rank);
  }
  return p;
}

// Every quotable unit of the pool, marked with its passage's standing; the
// same sentence in two passages (a document and its copy) once.
std::vector<Unit> Turn::GatherUnits(const Pool& pool, const QuestionTerms& terms, bool same_language, bool about_topic,
                                    bool timeline) const {
  static const std::vector<std::string> kNothingSaid;
  std::vector<Unit> units;
  std::set<std::string> seen;
  for (size_t i = 0; i < pool.labels.size(); ++i) {
    const Chunk& c = db_.chunk(pool.labels[i]);
    const float title_shared = c.title.empty() ? 0.f : SharedEvidence(terms, c.title.back());
    for (Unit& u : UnitsOf(persona_, db_, pool.labels[i], pool.ranks[i], about_topic ? state_.said : kNothingSaid, timeline)) {
      std::string whole = u.sentence.text;
      std::replace(whole.begin(), whole.end(), '\n', ' ');
      const bool again = seen.count(FoldText(u.own_text())) || seen.count(FoldText(whole));
      seen.insert(FoldText(u.own_text()));
      seen.insert(FoldText(whole));
      if (again) continue;
      u.other_language = c.language != a_.language && same_language;
      u.passage_score = pool.scores[i];
      u.strength = pool.strengths[i];
      u.title_shared = title_shared;
      units.push_back(std::move(u));
    }
  }
  return units;
}

void Turn::FromPassages(const float* query_vector, size_t query_dims, bool about_topic) {
  bool unsure;
  const std::vector<SearchResult> hits = Lookup(query_vector, query_dims, about_topic, unsure);
  // A question about the topic is answered from the topic's passages even when the lookup finds nothing new.
  if (hits.empty() && !about_topic) return DontKnow();
  bool same_language = false;  // a passage in the question's language answers
  for (const SearchResult& r : hits) same_language |= db_.chunk(r.label).language == a_.language;
  const Pool pool = BuildPool(hits, about_topic);
  // A question about the topic ("那实际工作中该怎么应对？") is about the topic's words too.
  const QuestionTerms terms = TermsOf(about_topic ? look_ + "\n" + state_.topic : look_, db_);
  const QuestionType type = ClassifyQuestion(q_);
  // A year the question names must be named by what answers it.
  years_ = YearsIn(q_);
  names_ = NamesIn(q_, db_, persona_.self_reference().names);
  // A question asking when, or naming a year, may be answered by a timeline
  // row; so may one asking a fact, a place or a person about something the
  // passages name ("Were you one of OpenAI's co-founders?": "2015: Co-founder
  // and researcher at OpenAI."), not why, how or what something is.
  const bool records = type == QuestionType::kFact || type == QuestionType::kWhere || type == QuestionType::kWho;
  const bool timeline = type == QuestionType::kWhen || !years_.empty() || (records && !names_.empty());
  std::vector<Unit> units = GatherUnits(pool, terms, same_language, about_topic, timeline);
  if (units.empty()) return DontKnow();
  // A passage in the question's language with nothing quotable (a table, a
  // timeline) does not answer in that language: the others answer as they would alone.
  if (same_language && std::none_of(units.begin(), units.end(), [&](const Unit& u) { return db_.chunk(u.label).language == a_.language; })) {
    same_language = false;
    for (Unit& u : units) u.other_language = false;
  }
  Score(units, terms, type);
  if (about_topic) FavourSaidPassages(units);
  // An answer shares real evidence with the question: when no sentence of the
  // passages the decision let through does, the honest answer is "I don't know".
  // A date for "when", a number for "how many": without one among them, nothing here answers.
  const bool formed = !NeedsForm(type);
  if (type == QuestionType::kHowMany) counted_ = CountedKeys();
  if (!about_topic && std::none_of(units.begin(), units.end(), [&](const Unit& u) {
        return Relevant(u) && Dated(u) && Counts(u) && (formed || TypeFit(type, u.sentence.text) > 0.f);
      }))
    return DontKnow();
  if (unsure) blocks_.push_back(ph().unsure);
  a_.unsure = unsure;
  AnswerWriter w(persona_, db_, state_.in_role);
  const std::vector<const Unit*> chosen = Select(units, type);
  if (opt_.explain) Explain(units, chosen);
  Frame(w, chosen, units, type);
  if (state_.in_role) AddQuote(w, terms);
  const bool explains = type == QuestionType::kHow || type == QuestionType::kWhatIs;
  if (state_.in_role && explains && !ph().closings.empty()) w.Say(ph().closings[state_.turns % ph().closings.size()]);
  const size_t answer_at = blocks_.size();
  for (std::string& b : w.blocks()) blocks_.push_back(std::move(b));
  a_.kind = AnswerKind::kAnswer;
  a_.citations = w.citations();
  Remember(w, pool.labels, !about_topic);
  if (!about_topic) state_.topic = look_;
  NoteLanguages(answer_at);  // after "I'm not sure...", before the quotes
}

// A follow-up continues the topic from its passages and their neighbours in
// the same section: the reason for "why?", an example for "example?", the
// next unsaid sentences for "and then?".
void Turn::Continue(FollowUp follow) {
  const std::vector<uint32_t> pool = TopicPool();
  const QuestionTerms terms = TermsOf(state_.topic, db_);
  // A topic answered by timeline rows ("When did you leave Tesla?") goes on
  // with the rows after them ("And then?"), as the first answer read them.
  const bool timeline = ClassifyQuestion(state_.topic) == QuestionType::kWhen || !YearsIn(state_.topic).empty();
  std::vector<Unit> units;
  for (size_t i = 0; i < pool.size(); ++i) {
    std::vector<Unit> more = UnitsOf(persona_, db_, pool[i], i, state_.said, timeline);
    units.insert(units.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  if (units.empty()) return NothingMore();
  // Where each passage was left off: what follows it reads on.
  std::map<uint32_t, size_t> left_off;
  for (const Unit& u : units) left_off.emplace(u.label, 0);
  for (const std::string& key : state_.said) {
    std::string id;
    size_t index = 0;
    if (!ParseSaidKey(key, id, index)) continue;
    auto label = db_.Find(id);
    if (label && left_off.count(*label)) left_off[*label] = std::max<size_t>(left_off[*label], index + 1);
  }
  for (Unit& u : units) {
    u.shared = SharedEvidence(terms, u.sentence.text);
    const bool cue = follow == FollowUp::kWhy ? HasReasonCue(u.sentence.text)
                     : follow == FollowUp::kExample ? HasExampleCue(u.sentence.text) : false;
    const size_t from = left_off[u.label];
    const double next = u.sentence.index >= from ? 1.0 / (1.0 + u.sentence.index - from) : 0.0;
    const double informative = std::min(1.0, u.sentence.text.size() / kInformativeBytes);
    // "Why?" and "an example?" ask about what was quoted: the rest of a
    // passage it was quoted from answers first, wherever in it (the evidence
    // listed before the lines the first answer took), as an explicit cue would.
    const bool quoted = from > 0 && follow != FollowUp::kMore;
    u.score = (cue ? 1.0 : 0.0) + 0.3 * u.shared + next + 0.5 / (1.0 + u.rank) + 0.1 * informative + (quoted ? kQuotedPassage : 0.0);
  }
  std::vector<const Unit*> take;
  const Unit* best = &*std::max_element(units.begin(), units.end(), [](const Unit& x, const Unit& y) { return x.score < y.score; });
  take.push_back(best);
  // It reads on: the unit after it in the same passage too, unless it is the example asked for.
  const bool example = follow == FollowUp::kExample && HasExampleCue(best->sentence.text);
  if (!example) {
    for (const Unit& u : units) {
      if (u.label == best->label && u.sentence.index > best->sentence.index) {
        take.push_back(&u);
        break;
      }
    }
  }
  if (opt_.explain) Explain(units, take);
  AnswerWriter w(persona_, db_, state_.in_role);
  w.Quote(take, state_.in_role && example ? ph().example : "");
  for (std::string& b : w.blocks()) blocks_.push_back(std::move(b));
  a_.kind = AnswerKind::kAnswer;
  a_.citations = w.citations();
  Remember(w, pool, false);
}

// The chunks just before and after `label` in the same section of the same document.
std::vector<uint32_t> Turn::SectionNeighbours(uint32_t label) const {
  std::vector<uint32_t> out;
  const Chunk& c = db_.chunk(label);
  for (int64_t near : {static_cast<int64_t>(label) - 1, static_cast<int64_t>(label) + 1}) {
    if (near < 0 || static_cast<size_t>(near) >= db_.slots() || !db_.alive(static_cast<uint32_t>(near))) continue;
    const Chunk& n = db_.chunk(static_cast<uint32_t>(near));
    if (!n.meta && n.source == c.source && n.title == c.title) out.push_back(static_cast<uint32_t>(near));
  }
  return out;
}

// The topic's passages, each followed by the next passage of its section.
std::vector<uint32_t> Turn::TopicPool() const {
  std::vector<uint32_t> pool;
  auto add = [&](uint32_t label) {
    if (std::find(pool.begin(), pool.end(), label) == pool.end()) pool.push_back(label);
  };
  for (const std::string& id : state_.passages) {
    auto label = db_.Find(id);
    if (!label || !db_.alive(*label)) continue;
    add(*label);
    const uint32_t next = *label + 1;
    if (next < db_.slots() && db_.alive(next) && !db_.chunk(next).meta && db_.chunk(next).source == db_.chunk(*label).source &&
        db_.chunk(next).title == db_.chunk(*label).title)
      add(next);
  }
  return pool;
}

void Turn::Explain(const std::vector<Unit>& units, const std::vector<const Unit*>& chosen) {
  for (const Unit& u : units) {
    const bool picked = std::find(chosen.begin(), chosen.end(), &u) != chosen.end();
    a_.weighed.push_back({db_.chunk(u.label).id, u.sentence.text, u.score, u.shared, u.similarity, picked});
  }
  std::stable_sort(a_.weighed.begin(), a_.weighed.end(), [](const WeighedUnit& x, const WeighedUnit& y) { return x.score > y.score; });
}

// What the next turn may continue from.
void Turn::Remember(const AnswerWriter& w, const std::vector<uint32_t>& pool, bool fresh) {
  if (fresh) Forget();
  std::vector<std::string>& ps = state_.passages;
  auto keep = [&](uint32_t label) {
    const std::string& id = db_.chunk(label).id;
    if (ps.size() < kTopicPassages && std::find(ps.begin(), ps.end(), id) == ps.end()) ps.push_back(id);
  };
  for (const Citation& c : w.citations()) keep(c.label);
  for (uint32_t label : pool) keep(label);
  for (const std::string& k : w.said()) state_.said.push_back(k);
  if (state_.said.size() > kMaxSaid) state_.said.erase(state_.said.begin(), state_.said.end() - kMaxSaid);
}

// Say that the passages are in another language when everything the answer
// quotes is, even where passages in the asker's language were found: they
// did not answer, and a Portuguese question answered in English without a
// word of why reads as a fault.
// The note frames what follows (the issue: "Escrevi sobre isso em chinês:
// ..."), so a reader knows the quotes are in another language before reading
// them, not after the closing.
void Turn::NoteLanguages(size_t at) {
  std::set<std::string> other;
  bool own = false;  // a passage in the asker's language is quoted too
  for (const Citation& c : a_.citations) {
    if (c.language == a_.language) own = true;
    else other.insert(c.language);
  }
  if (other.empty() || (own && ph().other_language_part.empty())) return;
  std::string names, codes;
  for (const std::string& l : other) {
    names += (names.empty() ? "" : (a_.language == "zh" ? "\xE3\x80\x81" : ", ")) + LanguageName(l, a_.language);
    codes += (codes.empty() ? "" : ",") + l;
  }
  if (!own) a_.passage_languages = codes;
  blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(std::min(at, blocks_.size())),
                 Replace(own ? ph().other_language_part : ph().other_language, "{languages}", names));
}

Answer Turn::Finish() {
  if (a_.in_role && !state_.disclaimer_shown) {
    auto d = persona_.disclaimer().find(a_.language);
    if (d == persona_.disclaimer().end()) d = persona_.disclaimer().find("en");
    if (d != persona_.disclaimer().end()) {
      blocks_.insert(blocks_.begin(), d->second);
      a_.disclaimer = true;
    }
    state_.disclaimer_shown = true;
  }
  std::string text;
  for (const std::string& b : blocks_) {
    if (b.empty()) continue;
    if (!text.empty()) text += "\n\n";
    text += b;
  }
  a_.text = std::move(text);
  return std::move(a_);
}

}  // namespace

Answer AnswerQuestion(const Persona& persona, const Collection& collection, std::string_view question,
                      const float* query_vector, size_t query_dims, ConversationState& state,
                      const AnswerOptions& opt) {
  Turn turn(persona, collection, state, opt, Trimmed(question));
  return turn.Run(query_vector, query_dims);
}

}  // namespace vesper
