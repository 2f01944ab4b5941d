#include "core/persona/answer.h"

#include "core/search/query.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <unordered_set>

#include "core/persona/sentences.h"
#include "core/persona/text_match.h"
#include "core/persona/voice.h"
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
  }
  return "answer";
}

std::string AnswerLanguage(std::string_view question) {
  std::string lang = DetectLanguage(question);
  if (lang == "zh" || lang == "pt" || lang == "en") return lang;
  for (size_t i = 0; i < question.size();) {
    if (utf8::IsHan(utf8::Next(question, i))) return "zh";
  }
  return "en";
}

namespace {

// Words too common to say what a question is about.
const std::unordered_set<std::string>& Stopwords() {
  static const std::unordered_set<std::string> kWords = {
      "the", "and", "for", "what", "why", "how", "does", "did", "his", "her", "him", "are", "was", "with", "that",
      "this", "from", "about", "which", "who", "when", "where", "you", "your", "can", "should", "would", "into",
      "there", "their", "they", "them", "have", "has", "had", "not", "but", "its", "our", "out", "use", "used",
      "que", "por", "para", "com", "uma", "um", "dos", "das", "ele", "ela", "como", "qual", "quais", "sobre",
      "isso", "esse", "essa", "este", "esta", "nao", "mais", "seu", "sua", "pelo", "pela", "nos", "nas", "ser",
      "karpathy", "andrej"};
  return kWords;
}

std::vector<std::string> ContentTerms(std::string_view text) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  SplitWords(text, [&](WordSpan&& w) {
    bool cjk = static_cast<unsigned char>(w.term[0]) >= 0xE0;
    if (!cjk && (w.term.size() < 3 || Stopwords().count(w.term))) return;
    if (seen.insert(w.term).second) out.push_back(w.term);
  });
  return out;
}

size_t Overlap(const std::vector<std::string>& query_terms, std::string_view text) {
  std::vector<std::string> terms = ContentTerms(text);
  std::unordered_set<std::string> have(terms.begin(), terms.end());
  size_t n = 0;
  for (const std::string& t : query_terms) n += have.count(t);
  return n;
}

bool HasCue(const std::string& folded, std::initializer_list<const char*> cues) {
  for (const char* c : cues) {
    if (ContainsWord(folded, c)) return true;
  }
  return false;
}

bool IsExample(const std::string& s) {
  std::string f = FoldText(s);
  return HasCue(f, {"for example", "e.g.", "example", "such as", "for instance", "por exemplo", "exemplo", "como por",
                    "\xE4\xBE\x8B\xE5\xA6\x82", "\xE6\xAF\x94\xE5\xA6\x82", "\xE6\xA1\x88\xE4\xBE\x8B"});  // 例如 比如 案例
}

bool IsLimitation(const std::string& s) {
  std::string f = FoldText(s);
  return HasCue(f, {"however", "but", "limitation", "limitations", "fails", "fail", "counterpoint", "cannot", "weak",
                    "porem", "mas", "limitacao", "limitacoes", "falha", "contraponto", "nao consegue",
                    "\xE5\xB1\x80\xE9\x99\x90", "\xE4\xBD\x86\xE6\x98\xAF", "\xE4\xB8\x8D\xE8\xBF\x87", "\xE5\xA4\xB1\xE8\xB4\xA5"});  // 局限 但是 不过 失败
}

std::string Replace(std::string s, const std::string& key, const std::string& value) {
  for (size_t at = s.find(key); at != std::string::npos; at = s.find(key, at + value.size())) s.replace(at, key.size(), value);
  return s;
}

std::string LanguageName(const std::string& of, const std::string& in) {
  struct Name { const char *code, *en, *pt, *zh; };
  static const Name kNames[] = {{"en", "English", "ingl\xC3\xAAs", "\xE8\x8B\xB1\xE6\x96\x87"},
                                {"pt", "Portuguese", "portugu\xC3\xAAs", "\xE8\x91\xA1\xE8\x90\x84\xE7\x89\x99\xE8\xAF\xAD"},
                                {"zh", "Chinese", "chin\xC3\xAAs", "\xE4\xB8\xAD\xE6\x96\x87"}};
  for (const Name& n : kNames) {
    if (of == n.code) return in == "pt" ? n.pt : in == "zh" ? n.zh : n.en;
  }
  return of;
}

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

// A role command said politely ("OK, you can stop role-playing now, please",
// "好的，不用扮演了吧"): the phrase itself once the persona's courtesies are
// taken off either end. Only whole phrases match, so a question that
// mentions the words ("为什么退出 Tesla？") stays a question.
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

// The passage that holds `text` verbatim (line breaks aside): where a quote or
// a Q&A answer of the persona's is cited. Found lexically, confirmed by its start.
const SearchResult* FindPassageHolding(const Collection& collection, const std::string& text,
                                       std::vector<SearchResult>& hits) {
  SearchOptions lex;
  lex.k = 3;
  lex.threshold = 0.f;
  lex.mode = SearchMode::kLexical;
  const std::string probe = text.substr(0, std::min<size_t>(text.size(), 40));
  hits = collection.Search(text.substr(0, 300), nullptr, 0, lex);
  for (const SearchResult& r : hits) {
    std::string flat = collection.chunk(r.label).text;
    std::replace(flat.begin(), flat.end(), '\n', ' ');
    if (flat.find(probe) != std::string::npos) return &r;
  }
  return nullptr;
}

struct Candidate {
  std::string text;
  size_t passage;   // index into the chosen passages
  size_t position;  // within its passage
  double score;
};

class Composer {
 public:
  Composer(const Persona& persona, const Collection& collection, bool in_role)
      : persona_(persona), collection_(collection), in_role_(in_role) {}

  // Cites a passage (once) and returns its 1-based marker.
  size_t Cite(uint32_t label, float score) {
    for (size_t i = 0; i < citations_.size(); ++i) {
      if (citations_[i].label == label) return i + 1;
    }
    const Chunk& c = collection_.chunk(label);
    citations_.push_back({label, c.id, c.title, c.source, c.language, score});
    return citations_.size();
  }
  std::vector<Citation> TakeCitations() { return std::move(citations_); }

  std::string Voice(const std::string& sentence, const std::string& passage_language) const {
    if (!in_role_) return sentence;
    return ToFirstPerson(sentence, passage_language, persona_.self_names());
  }

 private:
  const Persona& persona_;
  const Collection& collection_;
  bool in_role_;
  std::vector<Citation> citations_;
};

}  // namespace

Answer AnswerQuestion(const Persona& persona, const Collection& collection, std::string_view question,
                      const float* query_vector, size_t query_dims, ConversationState& state,
                      const AnswerOptions& opt) {
  utf8::Require(question, "question");
  std::string q(question);
  while (!q.empty() && (q.back() == ' ' || q.back() == '\n' || q.back() == '\t')) q.pop_back();
  size_t lead = q.find_first_not_of(" \n\t");
  if (lead == std::string::npos) throw Error(ErrorCode::kInvalidArgument, "the question is empty");
  q.erase(0, lead);

  Answer a;
  a.language = AnswerLanguage(q);
  const std::string key = CommandKey(q);

  // Leaving and re-entering the role are commands, not questions.
  std::string phrase_lang;
  if (MatchesCommand(key, persona.exit_phrases(), persona, &phrase_lang)) {
    a.language = phrase_lang;
    state.in_role = false;
    a.kind = AnswerKind::kExited;
    a.in_role = false;
    a.text = persona.phrases(a.language).exited;
    return a;
  }
  if (MatchesCommand(key, persona.reenter_phrases(), persona, &phrase_lang)) {
    a.language = phrase_lang;
    state.in_role = true;
    a.kind = AnswerKind::kReentered;
    a.in_role = true;
    a.text = Replace(persona.phrases(a.language).reentered, "{name}", persona.name());
    return a;
  }

  ++state.turns;
  a.in_role = state.in_role;
  const VoicePhrases& ph = persona.phrases(a.language);
  std::vector<std::string> blocks;
  auto finish = [&](Answer& out) {
    if (out.in_role && !state.disclaimer_shown) {
      auto d = persona.disclaimer().find(out.language);
      if (d == persona.disclaimer().end()) d = persona.disclaimer().find("en");
      if (d != persona.disclaimer().end()) {
        blocks.insert(blocks.begin(), d->second);
        out.disclaimer = true;
      }
      state.disclaimer_shown = true;
    }
    std::string text;
    for (const std::string& b : blocks) {
      if (b.empty()) continue;
      if (!text.empty()) text += "\n\n";
      text += b;
    }
    out.text = std::move(text);
    return out;
  };

  // Out of scope: declined in character, before looking anything up.
  if (state.in_role) {
    const std::string folded = FoldText(q);
    for (const OutOfScopeRule& rule : persona.out_of_scope()) {
      for (auto& [lang, patterns] : rule.patterns) {
        for (const std::string& p : patterns) {
          if (!ContainsWord(folded, p)) continue;
          auto reason = rule.reason.find(a.language);
          if (reason == rule.reason.end()) reason = rule.reason.find("en");
          std::string topics;
          for (size_t i = 0; i < persona.topics().size() && i < 4; ++i) {
            if (i) topics += a.language == "zh" ? "\xE3\x80\x81" : ", ";  // 、
            topics += persona.topics()[i];
          }
          a.kind = AnswerKind::kDeclined;
          blocks.push_back(Replace(Replace(ph.decline, "{reason}", reason == rule.reason.end() ? rule.id : reason->second),
                                   "{topics}", topics));
          return finish(a);
        }
      }
    }
  }

  // A question the persona's own Q&A answers: its answer, cited where the knowledge base holds it.
  const std::vector<std::string> qterms = ContentTerms(q);
  if (state.in_role) {
    for (const PersonaQa& qa : persona.qa()) {
      if (!qa.language.empty() && qa.language != a.language) continue;
      const size_t wanted = ContentTerms(qa.question).size();
      const size_t shared = Overlap(qterms, qa.question);
      if (wanted < 2 || shared < 2 || shared * 10 < wanted * 7) continue;
      std::vector<SearchResult> hits;
      const SearchResult* held = FindPassageHolding(collection, qa.answer, hits);
      if (!held) continue;
      Composer composer(persona, collection, true);
      const size_t n = composer.Cite(held->label, held->score);
      const std::string mark = " [" + std::to_string(n) + "]";
      std::vector<std::string> said;
      for (const Sentence& sentence : SplitSentences(qa.answer)) {
        if (!persona.UsesBannedWord(sentence.text)) said.push_back(sentence.text);
        if (said.size() == opt.max_sentences) break;
      }
      if (said.empty()) continue;
      std::string body = said[0] + mark;
      for (size_t i = 1; i < said.size() && i < 3; ++i) body += " " + said[i] + mark;
      blocks.push_back(body);
      if (said.size() > 3) blocks.push_back(said[3] + mark);
      blocks.push_back(ph.next_steps);
      a.kind = AnswerKind::kAnswer;
      a.citations = composer.TakeCitations();
      return finish(a);
    }
  }

  // Retrieve, and decide once whether the knowledge base can answer, as search does.
  QueryOptions qo;
  qo.k = opt.k;
  qo.min_score = opt.threshold;
  qo.exclude_meta = true;  // meta text is never quoted as an answer
  qo.mode = query_vector && collection.has_vectors() ? SearchMode::kHybrid : SearchMode::kLexical;
  const bool lexical = qo.mode == SearchMode::kLexical;
  QueryResponse found = Query(collection, q, lexical ? nullptr : query_vector, lexical ? 0 : query_dims, qo);
  // Meta text (example questions, usage notes) is never quoted as an answer.
  std::vector<SearchResult> hits;
  for (size_t i = 0; i < found.results.size(); ++i) {
    if (found.shown[i] && !collection.chunk(found.results[i].label).meta) hits.push_back(found.results[i]);
  }
  auto strength = [&](const SearchResult& r) { return lexical ? r.lexical_score : r.vector_score; };
  float best = 0.f;
  for (const SearchResult& r : hits) best = std::max(best, strength(r));
  // Prefer passages in the question's language when they are nearly as good.
  std::vector<SearchResult> same, chosen;
  for (const SearchResult& r : hits) {
    if (collection.chunk(r.label).language == a.language && strength(r) >= best - opt.language_margin) same.push_back(r);
  }
  chosen = same.empty() ? hits : same;
  if (chosen.size() > opt.max_passages) chosen.resize(opt.max_passages);

  if (chosen.empty()) {
    a.kind = AnswerKind::kDontKnow;
    blocks.push_back(state.in_role ? ph.dont_know : ph.neutral_dont_know);
    return finish(a);
  }

  // Sentences of the chosen passages, scored by what they share with the question.
  std::vector<Candidate> cands;
  for (size_t p = 0; p < chosen.size(); ++p) {
    const Chunk& c = collection.chunk(chosen[p].label);
    for (Sentence& s : SplitSentences(c.text)) {
      if (persona.UsesBannedWord(s.text)) continue;  // the persona does not say these, even quoting itself
      if (s.text.back() == ':' || s.text.size() < 40) continue;  // lead-ins to a list or a diagram say nothing alone
      double overlap = static_cast<double>(Overlap(qterms, s.text));
      double score = overlap / std::sqrt(1.0 + qterms.size()) + 0.6 / (1.0 + p) + 0.25 / (1.0 + s.index);
      cands.push_back({std::move(s.text), p, s.index, score});
    }
  }
  std::stable_sort(cands.begin(), cands.end(), [](const Candidate& x, const Candidate& y) { return x.score > y.score; });

  Composer composer(persona, collection, state.in_role);
  std::vector<bool> used(cands.size(), false);
  size_t budget = opt.max_sentences;
  auto take = [&](auto&& pred) -> int {
    for (size_t i = 0; i < cands.size(); ++i) {
      if (!used[i] && pred(cands[i])) {
        used[i] = true;
        return static_cast<int>(i);
      }
    }
    return -1;
  };
  auto cite = [&](const Candidate& c) {
    const Chunk& chunk = collection.chunk(chosen[c.passage].label);
    size_t n = composer.Cite(chosen[c.passage].label, chosen[c.passage].score);
    return composer.Voice(c.text, chunk.language) + " [" + std::to_string(n) + "]";
  };

  std::string body;
  int first = take([](const Candidate&) { return true; });
  if (first >= 0) {
    body = (state.in_role ? ph.intuition : ph.neutral_intro) + cite(cands[first]);
    --budget;
    // The mechanism: the next sentence of the same passage reads on naturally; else the next best.
    const Candidate& f = cands[first];
    int next = take([&](const Candidate& c) { return c.passage == f.passage && c.position == f.position + 1; });
    if (next < 0) next = take([](const Candidate& c) { return c.score > 0.7; });
    if (next >= 0 && budget > 0) {
      body += " " + (state.in_role ? ph.mechanism : std::string()) + cite(cands[next]);
      --budget;
    }
  } else {
    size_t n = composer.Cite(chosen[0].label, chosen[0].score);
    body = (state.in_role ? ph.intuition : ph.neutral_intro) + "[" + std::to_string(n) + "]";
  }
  blocks.push_back(body);
  if (budget > 0) {
    int ex = take([](const Candidate& c) { return IsExample(c.text); });
    if (ex >= 0) {
      blocks.push_back((state.in_role ? ph.example : std::string()) + cite(cands[ex]));
      --budget;
    }
  }
  if (budget > 0) {
    int lim = take([](const Candidate& c) { return IsLimitation(c.text) && c.score > 0.5; });
    if (lim >= 0) {
      blocks.push_back((state.in_role ? ph.limitation : std::string()) + cite(cands[lim]));
      --budget;
    }
  }

  // A quote or analogy of the persona's that shares the question's subject, cited where it appears.
  if (state.in_role) {
    // It must share two of the question's own terms: a quote that merely mentions the company is not on topic.
    size_t best_overlap = 1;
    const PersonaQuote* pick = nullptr;
    for (const PersonaQuote& quote : persona.quotes()) {
      size_t o = Overlap(qterms, quote.text);
      if (o > best_overlap && !persona.UsesBannedWord(quote.text)) {
        best_overlap = o;
        pick = &quote;
      }
    }
    std::vector<SearchResult> hits;
    if (const SearchResult* r = pick ? FindPassageHolding(collection, pick->text, hits) : nullptr) {
      size_t n = composer.Cite(r->label, r->score);
      blocks.push_back(ph.quote + "\xE2\x80\x9C" + pick->text + "\xE2\x80\x9D" +
                       (pick->source.empty() ? "" : " (" + pick->source + ")") + " [" + std::to_string(n) + "]");
    }
    blocks.push_back(ph.next_steps);
  }

  a.kind = AnswerKind::kAnswer;
  a.citations = composer.TakeCitations();
  std::set<std::string> other;
  for (const Citation& c : a.citations) {
    if (c.language != a.language) other.insert(c.language);
  }
  if (same.empty() && !other.empty()) {
    std::string names, codes;
    for (const std::string& l : other) {
      names += (names.empty() ? "" : (a.language == "zh" ? "\xE3\x80\x81" : ", ")) + LanguageName(l, a.language);
      codes += (codes.empty() ? "" : ",") + l;
    }
    a.passage_languages = codes;
    blocks.push_back(Replace(ph.other_language, "{languages}", names));
  }
  return finish(a);
}

}  // namespace vesper
