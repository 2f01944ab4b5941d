#include "core/lexical/bm25.h"

#include <algorithm>
#include <cmath>

#include "core/text/words.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {

void Bm25Index::Add(uint32_t label, std::string_view text) {
  utf8::Require(text, "text to index");
  if (label != alive_.size()) throw Error(ErrorCode::kInvalidArgument, "lexical labels must be added in order");
  std::unordered_map<uint32_t, uint32_t> tf;
  uint32_t len = 0;
  SplitWords(text, [&](WordSpan&& w) {
    auto [it, fresh] = term_ids_.emplace(std::move(w.term), static_cast<uint32_t>(postings_.size()));
    if (fresh) {
      postings_.emplace_back();
      df_.push_back(0);
    }
    ++tf[it->second];
    ++len;
  });
  // Each term's list grows in label order (labels come in order).
  std::vector<std::pair<uint32_t, uint32_t>> counts(tf.begin(), tf.end());
  for (auto [term, count] : counts) {
    postings_[term].push_back({label, count});
    ++df_[term];
  }
  doc_len_.push_back(len);
  alive_.push_back(1);
  ++live_docs_;
  ++version_;
  live_len_ += len;
}

// Documents' lengths (0 for a removed one), then each term that some live
// document holds, with its postings in label order.
void Bm25Index::Save(ByteWriter& w) const {
  w.u64(alive_.size());
  for (size_t d = 0; d < alive_.size(); ++d) w.varint(alive_[d] ? doc_len_[d] : 0);
  // In term order, so the bytes depend on what is indexed, not on the order
  // terms were first met (an index rebuilt from a pack saves the same bytes).
  std::vector<std::pair<std::string_view, uint32_t>> live;
  for (const auto& [term, id] : term_ids_) if (df_[id] > 0) live.emplace_back(term, id);
  std::sort(live.begin(), live.end());
  w.u64(live.size());
  for (const auto& [term, id] : live) {
    w.str(term);
    w.varint(df_[id]);
    // Label gaps and counts as LEB128: most postings take two bytes.
    uint32_t next = 0;
    for (const Posting& p : postings_[id]) {
      if (!alive_[p.label]) continue;
      w.varint(p.label - next);
      w.varint(p.tf);
      next = p.label + 1;
    }
  }
}

Bm25Index Bm25Index::Load(ByteReader& r, const std::vector<uint8_t>& alive) {
  Bm25Index index;
  if (r.count(1) != alive.size()) r.fail("BM25 documents do not match the chunks");
  index.alive_ = alive;
  index.doc_len_.resize(alive.size());
  for (size_t d = 0; d < alive.size(); ++d) {
    index.doc_len_[d] = r.varint();
    if (!alive[d] && index.doc_len_[d]) r.fail("BM25 length for a removed document");
    if (alive[d]) ++index.live_docs_;
    index.live_len_ += index.doc_len_[d];
  }
  constexpr uint64_t kLeastTermBytes = 4 + 1 + 1 + 2;  // its length, a byte, its count, one posting
  const uint64_t terms = r.count(kLeastTermBytes);
  index.postings_.resize(terms);
  index.df_.resize(terms);
  index.term_ids_.reserve(terms);
  std::vector<uint64_t> held(alive.size(), 0);  // tf summed per document, to check its length
  for (uint32_t id = 0; id < terms; ++id) {
    std::string term = r.str();
    if (term.empty() || utf8::FindInvalid(term) != std::string::npos) r.fail("bad BM25 term");
    if (!index.term_ids_.emplace(std::move(term), id).second) r.fail("duplicate BM25 term");
    const uint32_t n = r.varint();
    if (n == 0 || n > r.remaining() / 2) r.fail("bad BM25 posting count");
    index.df_[id] = n;
    auto& list = index.postings_[id];
    uint64_t next = 0;
    for (uint32_t j = 0; j < n; ++j) {
      const uint64_t label = next + r.varint();
      const uint32_t tf = r.varint();
      if (label >= alive.size() || !alive[label] || tf == 0) r.fail("bad BM25 posting");
      list.push_back({static_cast<uint32_t>(label), tf});
      held[label] += tf;
      next = label + 1;
    }
  }
  for (size_t d = 0; d < alive.size(); ++d) {
    if (held[d] != index.doc_len_[d]) r.fail("BM25 document length does not match its postings");
  }
  return index;
}

void Bm25Index::Remove(uint32_t label, std::string_view text) {
  if (label >= alive_.size() || !alive_[label]) {
    throw Error(ErrorCode::kNotFound, "lexical entry " + std::to_string(label) + " is not indexed");
  }
  utf8::Require(text, "removed text");
  std::unordered_set<uint32_t> held;
  SplitWords(text, [&](WordSpan&& w) {
    auto it = term_ids_.find(w.term);
    if (it != term_ids_.end()) held.insert(it->second);
  });
  alive_[label] = 0;
  --live_docs_;
  ++version_;
  live_len_ -= doc_len_[label];
  for (uint32_t term : held) --df_[term];
}

void Bm25Index::PostingList::Put(uint32_t v) {
  for (; v >= 0x80; v >>= 7) bytes_.push_back(static_cast<uint8_t>(v | 0x80));
  bytes_.push_back(static_cast<uint8_t>(v));
}

void Bm25Index::PostingList::push_back(Posting p) {
  Put(p.label - last_);  // the first posting's gap is its label
  Put(p.tf);
  last_ = p.label;
}

void Bm25Index::PostingList::iterator::Decode() {
  if (at_ >= end_) return;
  const uint8_t* p = at_;
  auto read = [&p]() {
    uint32_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = *p++;
      v |= uint32_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return v;
    }
  };
  const uint32_t gap = read();
  cur_.tf = read();
  cur_.label += gap;
  next_ = p;
}

float Bm25Index::IdfOver(double n, double df) { return static_cast<float>(std::log(1.0 + (n - df + 0.5) / (df + 0.5))); }

float Bm25Index::Idf(size_t df) const { return IdfOver(Docs(), static_cast<double>(df)); }

void Bm25Index::PrepareQuery(std::string_view query, std::vector<QueryTerm>& terms, float& max_score) const {
  terms.clear();
  max_score = 0.f;
  if (utf8::FindInvalid(query) != std::string_view::npos) {
    throw Error(ErrorCode::kInvalidUtf8, "query is not valid UTF-8");
  }
  // Each distinct term once; a hash set keeps a long query of distinct words
  // linear (a list made it quadratic: 16 s for 1 MB).
  std::unordered_set<std::string>& seen = seen_terms_;
  seen.clear();
  SplitWords(query, [&](WordSpan&& w) {
    // Function words say how something is asked, not what about: they
    // neither score nor count in what the query could score, as a query's
    // translation (whose function words the lexicon drops) does not.
    if (seen.count(w.term) || FunctionWords().count(w.term)) return;
    auto it = term_ids_.find(w.term);
    int32_t id = (it == term_ids_.end() || df_[it->second] == 0) ? -1 : static_cast<int32_t>(it->second);
    const uint32_t df = corpus_ ? corpus_->Df(w.term) : (id < 0 ? 0 : df_[id]);
    float idf = Idf(df);
    terms.push_back({id, idf, df > 0, group_corpus_ ? group_corpus_->Df(w.term) : 0});
    // Unknown words weigh as much as a word can; known ones by their own
    // rarity, but never less than half of that, so common words alone
    // cannot reach a high score.
    max_score += TermWeight(df > 0, idf) * (k1_ + 1.f);
    seen.insert(std::move(w.term));
  });
}

void Bm25Index::Search(std::string_view query, size_t k, std::vector<Hit>& out) const {
  out.clear();
  float max_score;
  PrepareQuery(query, query_terms_, max_score);
  if (live_docs_ == 0 || max_score <= 0.f) return;
  if (acc_.size() < alive_.size()) acc_.resize(alive_.size(), 0.f);
  const float avg_len = AvgLen();
  touched_.clear();
  for (const QueryTerm& qt : query_terms_) {
    if (qt.term < 0) continue;
    for (const Posting& p : postings_[qt.term]) {
      if (!alive_[p.label]) continue;
      if (acc_[p.label] == 0.f) touched_.push_back(p.label);
      acc_[p.label] += TermScore(qt.idf, static_cast<float>(p.tf), static_cast<float>(doc_len_[p.label]), avg_len);
    }
  }
  top_.Reset(k);
  for (uint32_t label : touched_) {
    top_.Push(label, acc_[label] / max_score);
    acc_[label] = 0.f;
  }
  top_.TakeSorted(out);
}

float Bm25Index::TermWeight(bool known, float idf) const {
  return known ? std::max(idf, 0.5f * Idf(0)) : Idf(0);
}

float Bm25Index::AvgLen() const {
  if (corpus_) return corpus_->docs ? static_cast<float>(corpus_->total_len) / static_cast<float>(corpus_->docs) : 1.f;
  return static_cast<float>(live_len_) / static_cast<float>(live_docs_);
}

// The phrase's terms scored into alt_acc_ (their mean per document, so a
// two-word translation weighs as one word); returns the most it can score,
// and `known` whether any of its terms is in the index.
float Bm25Index::ScorePhrase(std::string_view phrase, float avg_len, bool& known) const {
  float most = 0.f;
  PrepareQuery(phrase, query_terms_, most);
  known = false;
  alt_touched_.clear();
  if (query_terms_.empty()) return 0.f;
  const float share = 1.f / static_cast<float>(query_terms_.size());
  for (const QueryTerm& qt : query_terms_) {
    known = known || qt.known;
    if (qt.term < 0) continue;
    for (const Posting& p : postings_[qt.term]) {
      if (!alive_[p.label]) continue;
      if (alt_acc_[p.label] == 0.f) alt_touched_.push_back(p.label);
      alt_acc_[p.label] += TermScore(share * qt.idf, static_cast<float>(p.tf), static_cast<float>(doc_len_[p.label]), avg_len);
    }
  }
  return most * share;
}

// Each group's length, live groups and total length: counted again only
// after the index or the grouping changed, not on every query.
void Bm25Index::CountGroupLengths(const std::vector<uint32_t>& group_of, size_t groups) const {
  GroupLengths& c = group_lengths_;
  if (c.version == version_ && c.groups == groups && c.labels == group_of.size()) return;
  group_len_.assign(groups, 0);
  const size_t labels = std::min(alive_.size(), group_of.size());
  for (size_t label = 0; label < labels; ++label) {
    if (alive_[label] && group_of[label] < groups) group_len_[group_of[label]] += doc_len_[label];
  }
  c = GroupLengths{version_, groups, group_of.size(), 0, 0};
  for (uint64_t len : group_len_) {
    c.total += len;
    c.live += len > 0;
  }
}

void Bm25Index::ScoreGroups(std::string_view query, const std::vector<uint32_t>& group_of, size_t groups,
                            std::vector<float>& out) const {
  out.assign(groups, 0.f);
  float unused;
  PrepareQuery(query, query_terms_, unused);
  if (live_docs_ == 0 || groups == 0) return;
  CountGroupLengths(group_of, groups);
  const size_t labels = std::min(alive_.size(), group_of.size());
  const GroupLengths& whole = group_corpus_ ? GroupLengths{0, 0, 0, group_corpus_->total_len, static_cast<size_t>(group_corpus_->docs)} : group_lengths_;
  const size_t live_groups = whole.live;
  if (live_groups == 0) return;
  const float avg_len = static_cast<float>(whole.total) / static_cast<float>(live_groups);
  const auto idf = [&](size_t df) { return IdfOver(static_cast<double>(live_groups), static_cast<double>(df)); };
  group_tf_.assign(groups, 0.f);
  float max_score = 0.f;
  for (const QueryTerm& qt : query_terms_) {
    touched_.clear();
    if (qt.term >= 0) {
      for (const Posting& p : postings_[qt.term]) {
        if (p.label >= labels || !alive_[p.label]) continue;
        const uint32_t g = group_of[p.label];
        if (g >= groups) continue;
        if (group_tf_[g] == 0.f) touched_.push_back(g);
        group_tf_[g] += static_cast<float>(p.tf);
      }
    }
    // As Search() weighs terms: unknown ones as much as a term can, known
    // ones never below half of that.
    const float term_idf = idf(group_corpus_ ? qt.group_df : touched_.size());
    max_score += std::max(term_idf, 0.5f * idf(0)) * (k1_ + 1.f);
    for (uint32_t g : touched_) {
      out[g] += TermScore(term_idf, group_tf_[g], static_cast<float>(group_len_[g]), avg_len);
      group_tf_[g] = 0.f;
    }
  }
  if (max_score <= 0.f) return;
  for (float& s : out) s /= max_score;
}

void Bm25Index::SearchAlternatives(const std::vector<std::vector<std::string>>& groups, size_t k,
                                   std::vector<Hit>& out) const {
  out.clear();
  if (live_docs_ == 0) return;
  for (auto* v : {&acc_, &group_acc_, &alt_acc_}) {
    if (v->size() < alive_.size()) v->resize(alive_.size(), 0.f);
  }
  const float avg_len = AvgLen();
  float max_score = 0.f;
  touched_.clear();
  for (const auto& group : groups) {
    // A group can score what its best known alternative can: translations
    // the index has never seen do not raise the bar; a group none of whose
    // translations it knows weighs as an unknown word does.
    float group_most = 0.f;
    bool any_known = false;
    group_touched_.clear();
    for (const std::string& phrase : group) {
      bool known = false;
      const float most = ScorePhrase(phrase, avg_len, known);
      if (known) group_most = any_known ? std::max(group_most, most) : most;
      any_known = any_known || known;
      for (uint32_t label : alt_touched_) {
        if (group_acc_[label] == 0.f) group_touched_.push_back(label);
        group_acc_[label] = std::max(group_acc_[label], alt_acc_[label]);
        alt_acc_[label] = 0.f;
      }
    }
    max_score += any_known ? group_most : Idf(0) * (k1_ + 1.f);
    for (uint32_t label : group_touched_) {
      if (acc_[label] == 0.f) touched_.push_back(label);
      acc_[label] += group_acc_[label];
      group_acc_[label] = 0.f;
    }
  }
  top_.Reset(k);
  for (uint32_t label : touched_) {
    if (max_score > 0.f) top_.Push(label, std::min(1.f, acc_[label] / max_score));
    acc_[label] = 0.f;
  }
  top_.TakeSorted(out);
}

float Bm25Index::Rarity(const std::string& term) const {
  const float most = Idf(0);
  if (most <= 0.f) return 1.f;
  auto it = term_ids_.find(term);
  const size_t df = corpus_ ? corpus_->Df(term) : it == term_ids_.end() ? 0 : df_[it->second];
  return std::clamp(Idf(df) / most, 0.f, 1.f);
}

// A query word's weight in a coverage: its rarity (Rarity) when some
// document holds it, the most there is (1) when none does.
float Bm25Index::CoverageWeight(const QueryTerm& qt, float most) {
  return qt.known ? std::clamp(qt.idf / most, 0.f, 1.f) : 1.f;
}

float Bm25Index::Coverage(std::string_view query) const {
  float unused;
  PrepareQuery(query, query_terms_, unused);
  const float most = Idf(0);
  if (query_terms_.empty() || most <= 0.f) return 0.f;
  float held = 0.f, all = 0.f;
  for (const QueryTerm& qt : query_terms_) {
    const float weight = CoverageWeight(qt, most);
    all += weight;
    if (qt.known) held += weight;
  }
  return all > 0.f ? held / all : 0.f;
}

float Bm25Index::CoverageOfAlternatives(const std::vector<std::vector<std::string>>& groups) const {
  const float most = Idf(0);
  if (most <= 0.f) return 0.f;
  float held = 0.f, all = 0.f;
  for (const auto& group : groups) {
    float best = 2.f;  // above any weight: no alternative held yet
    bool any_words = false;
    for (const std::string& phrase : group) {
      float unused;
      PrepareQuery(phrase, query_terms_, unused);
      if (query_terms_.empty()) continue;
      any_words = true;
      float rarest = 0.f;
      bool every = true;
      for (const QueryTerm& qt : query_terms_) {
        every = every && qt.known;
        rarest = std::max(rarest, CoverageWeight(qt, most));
      }
      if (every) best = std::min(best, rarest);
    }
    if (!any_words) continue;
    const bool group_held = best <= 1.f;
    all += group_held ? best : 1.f;
    if (group_held) held += best;
  }
  return all > 0.f ? held / all : 0.f;
}

float Bm25Index::Score(std::string_view query, uint32_t label) const {
  if (label >= alive_.size() || !alive_[label]) return 0.f;
  float max_score;
  PrepareQuery(query, query_terms_, max_score);
  if (max_score <= 0.f) return 0.f;
  const float avg_len = AvgLen();
  float score = 0.f;
  for (const QueryTerm& qt : query_terms_) {
    if (qt.term < 0) continue;
    const PostingList& plist = postings_[qt.term];
    auto it = plist.begin();
    while (it != plist.end() && (*it).label < label) ++it;
    if (!(it != plist.end()) || (*it).label != label) continue;
    score += TermScore(qt.idf, static_cast<float>((*it).tf), static_cast<float>(doc_len_[label]), avg_len);
  }
  return score / max_score;
}

void Bm25Index::ForEachTerm(const std::vector<uint32_t>& group_of, size_t groups,
                            const std::function<void(const TermWeights&)>& fn) const {
  CountGroupLengths(group_of, groups);
  const size_t live_groups = group_lengths_.live;
  if (live_groups == 0) return;
  const float avg_len = static_cast<float>(group_lengths_.total) / static_cast<float>(live_groups);
  const size_t labels = std::min(alive_.size(), group_of.size());
  std::unordered_map<uint32_t, uint32_t> tf;  // group -> the term's count there
  TermWeights t;
  for (const auto& [term, id] : term_ids_) {
    if (df_[id] == 0) continue;
    tf.clear();
    for (const Posting& p : postings_[id]) {
      if (p.label < labels && alive_[p.label] && group_of[p.label] < groups) tf[group_of[p.label]] += p.tf;
    }
    // As ScoreGroups weighs a term: idf over the groups, tf saturated by the group's length.
    const float idf = IdfOver(static_cast<double>(live_groups), static_cast<double>(tf.size()));
    t.term = &term;
    t.df = df_[id];
    t.groups.clear();
    for (const auto& [g, count] : tf) {
      t.groups.emplace_back(g, TermScore(idf, static_cast<float>(count), static_cast<float>(group_len_[g]), avg_len));
    }
    fn(t);
  }
}

}  // namespace vesper
