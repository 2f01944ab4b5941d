// embind surface of the core. Every entry point catches C++ errors and
// rethrows them as JS Errors with a readable message and a `code`
// (e.g. "corrupt_data"), so callers never see a bare wasm exception.
//
// Bulk data never crosses element by element: vectors and pack bytes are
// written by JS straight into wasm memory through staging views
// (stagingFloats / stagingBytes) and come back as typed-array views of wasm
// memory. wasm/vesper.mjs wraps this into the API people use.
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include "core/chunker/chunker.h"
#include "core/collection/collection.h"
#include "core/collection/pack.h"
#include "core/collection/split.h"
#include "core/embed/pipeline.h"
#include "core/embed/static_model.h"
#include "core/index/dot.h"
#include "core/persona/answer.h"
#include "core/persona/persona.h"
#include "core/persona/sentences.h"
#include "core/search/query.h"
#include "core/text/language.h"
#include "core/tokenizer/tokenizer.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

using emscripten::val;
using namespace vesper;

namespace {

// `key`, when given, carries `extra` with the error (what a missing-part
// error names, for the engine to fetch before it repeats the call).
[[noreturn]] void ThrowJs(const char* code, const char* message, const char* key = nullptr, val extra = val::undefined()) {
  val err = val::global("Error").new_(std::string(message));
  err.set("code", std::string(code));
  if (key) err.set(key, extra);
  err.throw_();
}

val CopyOutIds(const std::vector<int32_t>& ids) {
  val view(emscripten::typed_memory_view(ids.size(), ids.data()));
  return val::global("Int32Array").new_(view);
}

template <typename F>
auto Guard(F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const MissingShards& e) {
    val names = val::array();
    for (const std::string& name : e.names()) names.call<void>("push", name);
    ThrowJs(ErrorCodeName(e.code()), e.what(), "shards", names);
  } catch (const MissingRows& e) {
    ThrowJs(ErrorCodeName(e.code()), e.what(), "rows", CopyOutIds(e.ids()));
  } catch (const Error& e) {
    ThrowJs(ErrorCodeName(e.code()), e.what());
  } catch (const std::bad_alloc&) {
    ThrowJs("out_of_memory", "out of memory");
  } catch (const std::exception& e) {
    ThrowJs("internal", e.what());
  }
}

// Staging areas JS writes into before a call; reused, so steady-state calls
// allocate nothing.
std::vector<float> g_floats;
std::vector<int32_t> g_ints;
Bytes g_bytes;
// See LoadPackStaged; each is taken once (a moved-from Collection is empty
// and its pack would not load again).
std::vector<std::optional<Collection>> g_loaded;

// A staging area of n elements: a size JS cannot have meant (over the 4 GiB
// a wasm32 heap holds) or one the heap cannot grow to is an error, not a trap.
// A staging area of n elements. n arrives as a JS number (a size_t parameter
// would wrap 2^40 to 0 on wasm32): a size that is not a whole number, or over
// what a wasm32 heap holds, or one the heap cannot grow to, is an error, not a trap.
template <typename V>
val Staging(V& buffer, double requested) {
  return Guard([&] {
    constexpr double kMaxStagingBytes = double(size_t{1} << 31);
    if (!(requested >= 0) || requested != static_cast<double>(static_cast<uint64_t>(requested)) ||
        requested * sizeof(typename V::value_type) > kMaxStagingBytes)
      throw Error(ErrorCode::kInvalidArgument, "staging request too large or not a whole number");
    const size_t n = static_cast<size_t>(requested);
    if (buffer.size() < n) buffer.resize(n);
    return val(emscripten::typed_memory_view(n, buffer.data()));
  });
}
val StagingFloats(double n) { return Staging(g_floats, n); }
val StagingInts(double n) { return Staging(g_ints, n); }
val StagingBytes(double n) { return Staging(g_bytes, n); }

// Staged bytes are let go once read when they are large (a model's table, a
// lexicon, a tokenizer, a pack to inspect): a buffer held at its largest for
// the life of the page or the CLI is heap no later allocation can use (the
// default model's 8 MB table, through a whole build). Small ones (row sets,
// shards, fragments) keep it, to be reused. Declared first in a consumer, so
// that it runs after the bytes were read, on success or error.
constexpr size_t kKeptStagingBytes = size_t{1} << 20;
struct StagingRelease {
  StagingRelease() = default;
  StagingRelease(const StagingRelease&) = delete;
  StagingRelease& operator=(const StagingRelease&) = delete;
  ~StagingRelease() {
    if (g_bytes.capacity() > kKeptStagingBytes) Bytes().swap(g_bytes);
  }
};

// The first n staged bytes (stagingBytes), or kInvalidArgument naming what
// was to be staged when fewer are there.
std::string_view StagedBytes(size_t n, const char* what) {
  if (n > g_bytes.size()) throw Error(ErrorCode::kInvalidArgument, std::string("staged ") + what + " missing");
  return {reinterpret_cast<const char*>(g_bytes.data()), n};
}

template <typename T>
val ArrayOf(const std::vector<T>& v) {
  val out = val::array();
  for (size_t i = 0; i < v.size(); ++i) out.set(i, v[i]);
  return out;
}

template <typename T>
val CopyOut(const std::vector<T>& v, const char* ctor) {
  val view(emscripten::typed_memory_view(v.size(), v.data()));
  return val::global(ctor).new_(view);  // a JS-owned copy
}

std::string Str(const val& o, const char* key, const std::string& fallback = "") {
  val v = o[key];
  return v.isUndefined() || v.isNull() ? fallback : v.as<std::string>();
}
double Num(const val& o, const char* key, double fallback) {
  if (o.isUndefined() || o.isNull()) return fallback;
  val v = o[key];
  return v.isUndefined() || v.isNull() ? fallback : v.as<double>();
}
bool Bool(const val& o, const char* key, bool fallback) {
  if (o.isUndefined() || o.isNull()) return fallback;
  val v = o[key];
  return v.isUndefined() || v.isNull() ? fallback : v.as<bool>();
}

// A list of strings from a JS value that may come from a saved file: anything
// else is an error naming the field, never a trap.
std::vector<std::string> Strings(const val& o, const char* key, size_t max_items) {
  std::vector<std::string> out;
  if (o.isUndefined() || o.isNull()) return out;
  val v = o[key];
  if (v.isUndefined() || v.isNull()) return out;
  if (!v.isArray()) throw Error(ErrorCode::kInvalidArgument, std::string(key) + " must be a list of strings");
  const size_t n = v["length"].as<size_t>();
  if (n > max_items) throw Error(ErrorCode::kInvalidArgument, std::string(key) + " holds too many items");
  for (size_t i = 0; i < n; ++i) {
    if (!v[i].isString()) throw Error(ErrorCode::kInvalidArgument, std::string(key) + " must hold strings");
    out.push_back(v[i].as<std::string>());
  }
  return out;
}

constexpr size_t kMaxK = 10000;  // results one search may ask for

// A count or size from JS: a whole number from 0 to `most`; anything else
// (-1, 2.5, NaN, 1e300) is an error naming the option, never a wrapped size_t.
size_t Count(const val& o, const char* key, size_t fallback, size_t most = size_t{1} << 30) {
  const double v = Num(o, key, static_cast<double>(fallback));
  if (!(v >= 0) || v > static_cast<double>(most) || v != static_cast<double>(static_cast<size_t>(v))) {
    throw Error(ErrorCode::kInvalidArgument, std::string(key) + " must be a whole number from 0 to " + std::to_string(most));
  }
  return static_cast<size_t>(v);
}

constexpr size_t kMaxFilterItems = 256;  // keys in a search's filters, or values of one key

// A search's filters: { key: value | [values] } (a site's data-vesper-filter).
void ReadFilters(const val& options, SearchOptions& o) {
  if (options.isUndefined() || options.isNull()) return;
  val filters = options["filters"];
  if (filters.isUndefined() || filters.isNull()) return;
  if (filters.typeOf().as<std::string>() != "object" || filters.isArray()) {
    throw Error(ErrorCode::kInvalidArgument, "filters must be an object of key: value or key: [values]");
  }
  val keys = val::global("Object").call<val>("keys", filters);
  const size_t n = keys["length"].as<size_t>();
  if (n > kMaxFilterItems) throw Error(ErrorCode::kInvalidArgument, "filters name too many keys");
  for (size_t i = 0; i < n; ++i) {
    const std::string key = keys[i].as<std::string>();
    val v = filters[key];
    std::vector<std::string> values;
    if (v.isString()) values.push_back(v.as<std::string>());
    else values = Strings(filters, key.c_str(), kMaxFilterItems);
    if (values.empty()) throw Error(ErrorCode::kInvalidArgument, "filter '" + key + "' needs a value");
    o.filters.emplace_back(key, std::move(values));
  }
}

// The ranking weights a query or a search may set (evaluations choose them;
// clients leave the core's defaults), and its filters.
void ReadRankingWeights(const val& options, SearchOptions& o) {
  ReadFilters(options, o);
  o.translated_weight = static_cast<float>(Num(options, "translatedWeight", o.translated_weight));
  o.page_weight = static_cast<float>(Num(options, "pageWeight", o.page_weight));
  o.page_repeat_penalty = static_cast<float>(Num(options, "pageRepeatPenalty", o.page_repeat_penalty));
  o.passages_per_page = Count(options, "passagesPerPage", o.passages_per_page, kMaxK);
  o.twin_cosine = static_cast<float>(Num(options, "twinCosine", o.twin_cosine));
}

SearchMode ParseMode(const std::string& mode) { return ParseSearchMode(mode); }

val ChunkToJs(const Chunk& c) {
  val o = val::object();
  o.set("id", c.id);
  o.set("title", ArrayOf(c.title));
  o.set("text", c.text);
  o.set("source", c.source);
  o.set("begin", c.begin);
  o.set("end", c.end);
  o.set("language", c.language);
  o.set("meta", c.meta);
  if (!c.fields.empty()) {
    val fields = val::array();
    for (size_t i = 0; i < c.fields.size(); ++i) {
      val f = val::object();
      f.set("key", c.fields[i].key);
      f.set("value", c.fields[i].value);
      f.set("filter", c.fields[i].filter);
      fields.set(i, f);
    }
    o.set("fields", fields);
  }
  return o;
}

Chunk ChunkFromJs(const val& o) {
  Chunk c;
  c.id = Str(o, "id");
  c.text = Str(o, "text");
  c.source = Str(o, "source");
  c.language = Str(o, "language");
  c.begin = static_cast<uint32_t>(Count(o, "begin", 0, UINT32_MAX));
  c.end = static_cast<uint32_t>(Count(o, "end", 0, UINT32_MAX));
  val title = o["title"];
  if (!title.isUndefined() && !title.isNull()) {
    auto n = title["length"].as<unsigned>();
    for (unsigned i = 0; i < n; ++i) c.title.push_back(title[i].as<std::string>());
  }
  if (c.language.empty()) c.language = DetectLanguage(c.text);
  c.meta = Bool(o, "meta", false);
  val fields = o["fields"];
  if (!fields.isUndefined() && !fields.isNull()) {
    if (!fields.isArray()) throw Error(ErrorCode::kInvalidArgument, "fields must be a list of { key, value, filter }");
    const size_t n = fields["length"].as<size_t>();
    if (n > kMaxFilterItems) throw Error(ErrorCode::kInvalidArgument, "a chunk holds too many fields");
    for (size_t i = 0; i < n; ++i) {
      val f = fields[i];
      if (f.isUndefined() || f.isNull() || !f["key"].isString() || !f["value"].isString()) {
        throw Error(ErrorCode::kInvalidArgument, "a field needs a string key and value");
      }
      c.fields.push_back({f["key"].as<std::string>(), f["value"].as<std::string>(), Bool(f, "filter", false)});
    }
  }
  return c;
}

ModelInfo ModelFromJs(const val& o) {
  ModelInfo m;
  if (o.isUndefined() || o.isNull()) return m;
  m.id = Str(o, "id");
  m.dims = static_cast<uint32_t>(Count(o, "dims", 0, 1u << 16));
  m.query_template = Str(o, "queryTemplate");
  m.document_template = Str(o, "documentTemplate");
  m.tokenizer_fingerprint = Str(o, "tokenizerFingerprint");
  return m;
}

val ModelToJs(const ModelInfo& m) {
  if (m.lexical_only()) return val::null();
  val o = val::object();
  o.set("id", m.id);
  o.set("dims", m.dims);
  o.set("queryTemplate", m.query_template);
  o.set("documentTemplate", m.document_template);
  o.set("tokenizerFingerprint", m.tokenizer_fingerprint);
  return o;
}

// ---- tokenizer ----

class JsStaticModel;
class JsLexicon;

class JsTokenizer {
 public:
  explicit JsTokenizer(std::unique_ptr<Tokenizer> t) : t_(std::move(t)) {}

  // Model bytes come from stagingBytes(n).
  static JsTokenizer* FromStaged(size_t n, val policy) {
    return Guard([&] {
      SpecialTokenPolicy p;
      p.add_bos = Bool(policy, "addBos", false);
      p.add_eos = Bool(policy, "addEos", false);
      p.bos_id = static_cast<int>(Num(policy, "bosId", -1));
      p.eos_id = static_cast<int>(Num(policy, "eosId", -1));
      p.pad_id = static_cast<int>(Num(policy, "padId", -1));
      const StagingRelease release;
      std::string_view bytes(reinterpret_cast<const char*>(g_bytes.data()), std::min(n, g_bytes.size()));
      return new JsTokenizer(Tokenizer::FromBytes(bytes, p));
    });
  }

  val Encode(const std::string& text, val options) const {
    return Guard([&] {
      EncodeOptions o;
      o.add_special = Bool(options, "addSpecial", true);
      o.max_length = static_cast<int>(Num(options, "maxLength", 0));
      o.pad_to = static_cast<int>(Num(options, "padTo", 0));
      o.ids_only = Bool(options, "idsOnly", false);
      Encoding e = t_->Encode(text, o);
      val out = val::object();
      out.set("ids", CopyOut(e.ids, "Int32Array"));
      out.set("attentionMask", CopyOut(e.attention_mask, "Int32Array"));
      out.set("length", e.length);
      out.set("truncated", e.truncated);
      if (o.ids_only) return out;
      out.set("pieces", ArrayOf(e.pieces));
      out.set("begin", CopyOut(e.begin, "Uint32Array"));
      out.set("end", CopyOut(e.end, "Uint32Array"));
      return out;
    });
  }

  std::string Decode(val ids) const {
    return Guard([&] { return t_->Decode(emscripten::convertJSArrayToNumberVector<int32_t>(ids)); });
  }
  size_t CountTokens(const std::string& text) const { return Guard([&] { return t_->CountTokens(text); }); }
  int VocabSize() const { return t_->vocab_size(); }
  std::string Fingerprint() const { return t_->fingerprint(); }
  std::string IdToPiece(int id) const { return Guard([&] { return t_->IdToPiece(id); }); }
  int BosId() const { return t_->bos_id(); }
  int EosId() const { return t_->eos_id(); }
  int PadId() const { return t_->pad_id(); }
  const Tokenizer& get() const { return *t_; }
  std::shared_ptr<const Tokenizer> shared() const { return t_; }

 private:
  std::shared_ptr<Tokenizer> t_;
};

// ---- chunker ----

constexpr size_t kMaxMetaItems = 10000;  // meta headings or openings a persona may name

val Chunk_(const std::string& source, const std::string& text, val options, val tokenizer) {
  return Guard([&] {
    ChunkerOptions o;
    o.max_tokens = Count(options, "maxTokens", o.max_tokens);
    o.min_tokens = Count(options, "minTokens", o.min_tokens);
    o.overlap_tokens = Count(options, "overlapTokens", o.overlap_tokens);
    o.meta_headings = Strings(options, "metaHeadings", kMaxMetaItems);
    o.meta_openings = Strings(options, "metaOpenings", kMaxMetaItems);
    TokenCounter count;
    if (!tokenizer.isUndefined() && !tokenizer.isNull()) {
      const JsTokenizer* t = tokenizer.as<const JsTokenizer*>(emscripten::allow_raw_pointers());
      count = [t](std::string_view s) { return t->get().CountTokens(s); };
    }
    val out = val::array();
    auto chunks = ChunkDocument(source, text, o, count);
    for (size_t i = 0; i < chunks.size(); ++i) out.set(i, ChunkToJs(chunks[i]));
    return out;
  });
}

// ---- collections ----

// A spill the CLI keeps (wasm/vesper.mjs spillTo wraps it): a JS object
// whose append(view) and read(view, offset) return an error's message as a
// string rather than throw through the core, which then knows the
// collection's records are incomplete (Collection::SpillTo).
class JsSpill : public ChunkSpill {
 public:
  explicit JsSpill(val js) : js_(std::move(js)) {}

  void Append(const uint8_t* data, size_t size) override {
    val r = js_.call<val>("append", val(emscripten::typed_memory_view(size, data)));
    if (r.isString()) throw Error(ErrorCode::kInternal, "could not keep the passages being built: " + r.as<std::string>());
  }

  void ReadBack(const ByteWriter::Sink& sink) const override {
    static constexpr size_t kBlock = size_t{1} << 20;
    std::vector<uint8_t> block(kBlock);
    for (double at = 0;;) {
      val r = js_.call<val>("read", val(emscripten::typed_memory_view(block.size(), block.data())), at);
      if (r.isString()) throw Error(ErrorCode::kInternal, "could not read back the passages being built: " + r.as<std::string>());
      const double n = r.as<double>();
      if (!(n >= 0 && n <= static_cast<double>(block.size()))) throw Error(ErrorCode::kInternal, "spill read returned " + std::to_string(n));
      if (n == 0) return;
      sink(block.data(), static_cast<size_t>(n));
      at += n;
    }
  }

 private:
  val js_;
};

class JsCollection {
 public:
  explicit JsCollection(Collection c) : c_(std::move(c)) {}

  static JsCollection* Create(const std::string& name, val model, val options) {
    return Guard([&] {
      CollectionOptions o;
      o.index = ParseIndexKind(Str(options, "index", "auto"));
      o.vectors = ParseVectorFormat(Str(options, "vectors", "float32"));
      o.hnsw_min_size = Count(options, "hnswMinSize", o.hnsw_min_size);
      o.int8_from = Count(options, "int8From", 0);
      o.hnsw.M = static_cast<uint32_t>(Count(options, "M", o.hnsw.M, 1024));
      o.hnsw.ef_construction = static_cast<uint32_t>(Count(options, "efConstruction", o.hnsw.ef_construction, 1u << 16));
      o.hnsw.ef_search = static_cast<uint32_t>(Count(options, "efSearch", o.hnsw.ef_search, 1u << 16));
      return new JsCollection(Collection(name, ModelFromJs(model), o));
    });
  }

  // Vectors, when the collection has a model, are in stagingFloats(chunks * dims).
  size_t AddStaged(val chunks, size_t vector_floats) {
    return Guard([&] {
      std::vector<Chunk> cs;
      auto n = chunks["length"].as<unsigned>();
      for (unsigned i = 0; i < n; ++i) cs.push_back(ChunkFromJs(chunks[i]));
      size_t dims = c_.model().dims;
      if (vector_floats > g_floats.size()) throw Error(ErrorCode::kInvalidArgument, "staged vectors missing");
      if (dims && vector_floats != n * dims) {
        throw Error(ErrorCode::kInvalidArgument, "expected " + std::to_string(n * dims) + " floats (" + std::to_string(n) +
                                                     " x " + std::to_string(dims) + "), got " + std::to_string(vector_floats));
      }
      return c_.Add(std::move(cs), vector_floats ? g_floats.data() : nullptr, dims ? vector_floats / dims : 0);
    });
  }

  void Remove(const std::string& id) { Guard([&] { c_.Remove(id); }); }

  void SpillTo(val spill) { Guard([&] { c_.SpillTo(std::make_shared<JsSpill>(std::move(spill))); }); }
  void SpillPiecesTo(val spill) { Guard([&] { c_.SpillPiecesTo(std::make_shared<JsSpill>(std::move(spill))); }); }

  val ResultToJs(const SearchResult& r) const {
    val o = ChunkToJs(c_.chunk(r.label));
    o.set("label", r.label);
    // The score a result was ranked by, so scores fall down the list and the
    // slider filters on what the reader sees; the cosine is vectorScore.
    o.set("score", r.fused);
    o.set("similarity", r.score);
    if (r.vector_score > -1.f && c_.has_vectors()) o.set("vectorScore", r.vector_score);  // -1: not scored (lexical mode)
    o.set("lexicalScore", r.lexical_score);
    o.set("vectorRank", r.vector_rank);
    o.set("lexicalRank", r.lexical_rank);
    if (r.match_score >= 0.f) o.set("matchScore", r.match_score);
    if (r.translated_rank >= 0) o.set("translatedScore", r.translated_score);
    if (r.page_score > 0.f) o.set("pageScore", r.page_score);
    val signals = val::array();
    if (r.vector_rank >= 0) signals.call<void>("push", std::string("vector"));
    if (r.lexical_rank >= 0) signals.call<void>("push", std::string("lexical"));
    if (r.translated_rank >= 0) signals.call<void>("push", std::string("translated"));
    o.set("signals", signals);
    return o;
  }

  // A user's search (core/search/query.h): the ranking, which results are
  // shown, and the per-query answerability decision with its evidence.
  val QueryStaged(const std::string& text, size_t query_dims, val options) const {
    return Guard([&] {
      QueryOptions o;
      o.k = Count(options, "k", o.k, kMaxK);
      o.min_score = static_cast<float>(Num(options, "minScore", o.min_score));
      o.exact = Bool(options, "exact", false);
      o.mode = ParseMode(Str(options, "mode", "hybrid"));
      ReadRankingWeights(options, o.ranking);
      if (query_dims > g_floats.size()) throw Error(ErrorCode::kInvalidArgument, "staged query vector missing");
      QueryResponse r = Query(c_, text, query_dims ? g_floats.data() : nullptr, query_dims, o);
      val results = val::array();
      for (size_t i = 0; i < r.results.size(); ++i) {
        val x = ResultToJs(r.results[i]);
        x.set("shown", static_cast<bool>(r.shown[i]));
        results.set(i, x);
      }
      val e = val::object();
      e.set("language", r.evidence.language);
      e.set("bestCosine", r.evidence.best_cosine);
      e.set("typicalCosine", r.evidence.typical_cosine);
      e.set("bestLexical", r.evidence.best_lexical);
      e.set("agreement", r.evidence.agreement);
      e.set("sameLanguage", r.evidence.same_language);
      e.set("hasVectors", r.evidence.has_vectors);
      e.set("bestMatch", r.evidence.best_match);
      e.set("typicalMatch", r.evidence.typical_match);
      e.set("topSameLanguage", r.evidence.top_same_language);
      e.set("topCoverageLoose", r.evidence.top_coverage_loose);
      e.set("topCoverageStrict", r.evidence.top_coverage_strict);
      e.set("vocabularyCoverage", r.evidence.vocabulary_coverage);
      e.set("termCoverage", r.evidence.term_coverage);
      val out = val::object();
      out.set("results", results);
      out.set("answerable", r.decision.answerable);
      out.set("unsure", r.decision.unsure);
      out.set("confidence", r.decision.confidence);
      out.set("minScore", r.min_score);
      out.set("evidence", e);
      return out;
    });
  }

  // The model's calibration (the manifest's "answerability", as JSON text).
  void SetAnswerability(const std::string& json) {
    Guard([&] { c_.set_answerability(Answerability::FromJson(json)); });
  }

  float Floor() const { return c_.answerability().floor; }
  bool Calibrated() const { return c_.answerability().calibrated; }

  // Token-level reranking with a static model's table (defined below).
  void EnablePieceMatch(const JsTokenizer& tokenizer, JsStaticModel& model);
  // Cross-lingual BM25 with a model's lexicon (defined below).
  void EnableLexicon(const JsLexicon& lexicon);

  // The query vector, if any, is in stagingFloats(query_dims).
  val SearchStaged(const std::string& text, size_t query_dims, val options) const {
    return Guard([&] {
      SearchOptions o;
      o.k = Count(options, "k", o.k, kMaxK);
      o.threshold = static_cast<float>(Num(options, "threshold", o.threshold));
      o.exact = Bool(options, "exact", false);
      o.lexical_weight = static_cast<float>(Num(options, "lexicalWeight", o.lexical_weight));
      ReadRankingWeights(options, o);
      o.mode = ParseMode(Str(options, "mode", "hybrid"));
      if (query_dims > g_floats.size()) throw Error(ErrorCode::kInvalidArgument, "staged query vector missing");
      auto results = c_.Search(text, query_dims ? g_floats.data() : nullptr, query_dims, o);
      val out = val::array();
      for (size_t i = 0; i < results.size(); ++i) out.set(i, ResultToJs(results[i]));
      return out;
    });
  }

  const Collection& collection() const { return c_; }
  Collection& collection() { return c_; }

  // A view of wasm memory: valid until the next call that may grow memory.
  val VectorView(const std::string& id) const {
    return Guard([&] {
      auto label = c_.Find(id);
      if (!label) throw Error(ErrorCode::kNotFound, "no chunk '" + id + "' in '" + c_.name() + "'");
      vector_.resize(c_.model().dims);
      if (!c_.vector(*label, vector_.data())) return val::null();
      return val(emscripten::typed_memory_view(vector_.size(), vector_.data()));
    });
  }

  // One passage by id (its text, title trail, source, language), or null.
  val ChunkById(const std::string& id) const {
    Guard([&] { c_.RequireHeld("read its passages"); });
    const std::optional<uint32_t> label = c_.Find(id);
    return label && c_.alive(*label) ? ChunkToJs(c_.chunk(*label)) : val::null();
  }

  val Chunks() const {
    Guard([&] { c_.RequireHeld("read its passages"); });
    val out = val::array();
    size_t k = 0;
    for (uint32_t i = 0; i < c_.slots(); ++i) if (c_.alive(i)) out.set(k++, ChunkToJs(c_.chunk(i)));
    return out;
  }

  static JsCollection* TakeLoaded(size_t i) {
    return Guard([&] {
      if (i >= g_loaded.size()) throw Error(ErrorCode::kNotFound, "no loaded collection " + std::to_string(i));
      if (!g_loaded[i]) throw Error(ErrorCode::kInvalidArgument, "loaded collection " + std::to_string(i) + " was already taken");
      JsCollection* taken = new JsCollection(std::move(*g_loaded[i]));
      g_loaded[i].reset();
      return taken;
    });
  }

  std::string Name() const { return c_.name(); }
  void Rename(const std::string& name) {
    Guard([&] { c_.Rename(name); });
  }
  size_t Size() const { return c_.size(); }
  val Model() const { return ModelToJs(c_.model()); }
  bool UsesHnsw() const { return c_.uses_hnsw(); }
  std::string VectorFormat_() const { return VectorFormatName(c_.options().vectors); }
  size_t BytesPerVector() const { return c_.has_vectors() ? c_.bytes_per_vector() : 0; }
  const Collection& get() const { return c_; }

 private:
  Collection c_;
  mutable std::vector<float> vector_;  // VectorView's buffer
};

// ---- packs ----

// Returns a view of the saved bytes in wasm memory; copy it before the next call.
// A JS array of collections as the core's.
std::vector<const Collection*> CollectionsOf(const val& collections) {
  std::vector<const Collection*> cs;
  auto n = collections["length"].as<unsigned>();
  for (unsigned i = 0; i < n; ++i) {
    cs.push_back(&collections[i].as<const JsCollection*>(emscripten::allow_raw_pointers())->get());
  }
  return cs;
}

// The pack handed to `write` (a JS function) in pieces, each a view of wasm
// memory valid only during that call: a large pack is written out without
// ever being held whole. Returns its size.
double SavePackStream(val collections, val write) {
  return Guard([&] {
    const std::vector<const Collection*> cs = CollectionsOf(collections);
    double total = 0;
    SavePackTo(cs, [&](const uint8_t* data, size_t size) {
      write(val(emscripten::typed_memory_view(size, data)));
      total += static_cast<double>(size);
    });
    return total;
  });
}

// Loads the staged pack; its collections are then taken one by one with
// Collection.takeLoaded(), which hands ownership to JS.

size_t LoadPackStaged(size_t n, val expected) {
  return Guard([&] {
    if (n > g_bytes.size()) throw Error(ErrorCode::kInvalidArgument, "staged pack missing");
    ModelInfo m = ModelFromJs(expected);
    // The collections hold copies, or (vectors that are most of a large pack)
    // read them in place and keep the staged bytes: either way the staging
    // buffer is let go now rather than when something is staged next.
    auto staged = std::make_shared<Bytes>(std::move(g_bytes));
    Bytes().swap(g_bytes);
    std::vector<Collection> loaded = LoadPack(staged->data(), n, m.lexical_only() ? nullptr : &m, staged);
    g_loaded.clear();
    for (Collection& c : loaded) g_loaded.emplace_back(std::move(c));
    return g_loaded.size();
  });
}

val InspectPackStaged(size_t n) {
  return Guard([&] {
    const StagingRelease release;
    if (n > g_bytes.size()) throw Error(ErrorCode::kInvalidArgument, "staged pack missing");
    PackInfo info = InspectPack(g_bytes.data(), n);
    val o = val::object();
    o.set("version", info.version);
    o.set("bytes", static_cast<double>(info.bytes));
    val sections = val::array();
    for (size_t i = 0; i < info.sections.size(); ++i) {
      val s = val::object();
      s.set("kind", info.sections[i].kind);
      s.set("collection", info.sections[i].collection);
      s.set("offset", static_cast<double>(info.sections[i].offset));
      s.set("size", static_cast<double>(info.sections[i].size));
      sections.set(i, s);
    }
    o.set("sections", sections);
    val cols = val::array();
    for (size_t i = 0; i < info.collections.size(); ++i) {
      val c = val::object();
      c.set("name", info.collections[i].name);
      c.set("model", ModelToJs(info.collections[i].model));
      c.set("chunks", info.collections[i].chunks);
      c.set("hnsw", info.collections[i].hnsw);
      cols.set(i, c);
    }
    o.set("collections", cols);
    return o;
  });
}

// ---- embedding pipeline ----

std::string FormatPrompt_(const std::string& tpl, const std::string& text, const std::string& title,
                          const std::string& fallback) {
  return FormatPrompt(tpl, text, title, fallback);
}

// hidden in stagingFloats(batch * seq * dims), mask in stagingInts(batch * seq).
val PoolStaged(size_t batch, size_t seq, size_t dims, const std::string& mode) {
  return Guard([&] {
    if (batch * seq * dims > g_floats.size() || batch * seq > g_ints.size()) {
      throw Error(ErrorCode::kInvalidArgument, "staged hidden states or mask missing");
    }
    std::vector<float> out(batch * dims);
    Pool(g_floats.data(), g_ints.data(), batch, seq, dims, ParsePooling(mode), out.data());
    return CopyOut(out, "Float32Array");
  });
}

// rows x in_dims floats in stagingFloats.
val TruncateNormalizeStaged(size_t rows, size_t in_dims, size_t out_dims) {
  return Guard([&] {
    if (rows * in_dims > g_floats.size()) throw Error(ErrorCode::kInvalidArgument, "staged vectors missing");
    std::vector<float> out(rows * out_dims);
    TruncateAndNormalize(g_floats.data(), rows, in_dims, out_dims, out.data());
    return CopyOut(out, "Float32Array");
  });
}


class JsStaticModel {
 public:
  static JsStaticModel* FromStaged(size_t n) {
    return Guard([&] {
      // Built before the wrapper, so a model that fails to load leaks nothing.
      const StagingRelease release;
      auto model = StaticModel::FromBytes(StagedBytes(n, "model"));
      auto* m = new JsStaticModel();
      m->m_ = std::move(model);
      return m;
    });
  }
  // ids of one text in stagingInts(n).
  val EmbedStaged(size_t n) const {
    return Guard([&] {
      if (n > g_ints.size()) throw Error(ErrorCode::kInvalidArgument, "staged ids missing");
      std::vector<float> out(m_->dims());
      m_->Embed(g_ints.data(), n, out.data());
      return CopyOut(out, "Float32Array");
    });
  }
  // A model with no rows yet: they come as row sets (AddRowsStaged).
  static JsStaticModel* Sparse(double vocab, double dims) {
    return Guard([&] {
      if (!(vocab >= 1 && vocab <= UINT32_MAX && dims >= 1 && dims <= UINT32_MAX)) throw Error(ErrorCode::kInvalidArgument, "implausible model shape");
      auto model = StaticModel::Sparse(static_cast<uint32_t>(vocab), static_cast<uint32_t>(dims));
      auto* m = new JsStaticModel();
      m->m_ = std::move(model);
      return m;
    });
  }
  // A row set in stagingBytes(n).
  void AddRowsStaged(size_t n) {
    Guard([&] {
      const StagingRelease release;
      m_->AddRows(StagedBytes(n, "row set"));
    });
  }
  // The whole table in stagingBytes(n).
  void AddTableStaged(size_t n) {
    Guard([&] {
      const StagingRelease release;
      m_->AddTable(StagedBytes(n, "model"));
    });
  }
  void AddRowBytes(const std::vector<uint8_t>& bytes) {
    m_->AddRows(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
  }
  // The row set of the ids in stagingInts(n) (sorted, distinct, held).
  val RowSetStaged(size_t n) const {
    return Guard([&] {
      if (n > g_ints.size()) throw Error(ErrorCode::kInvalidArgument, "staged ids missing");
      return CopyOut(m_->RowSet(std::vector<int32_t>(g_ints.begin(), g_ints.begin() + n)), "Uint8Array");
    });
  }
  // Of the ids in stagingInts(n), those whose rows are not held yet.
  val MissingStaged(size_t n) const {
    return Guard([&] {
      if (n > g_ints.size()) throw Error(ErrorCode::kInvalidArgument, "staged ids missing");
      try {
        m_->Require(g_ints.data(), n);
      } catch (const MissingRows& e) {
        return CopyOutIds(e.ids());
      }
      return CopyOutIds({});
    });
  }
  size_t Dims() const { return m_->dims(); }
  size_t Vocab() const { return m_->vocab(); }
  size_t Held() const { return m_->held(); }

  std::shared_ptr<const PieceMatcher> Matcher() const {
    if (!matcher_) matcher_ = std::make_shared<PieceMatcher>(m_);
    return matcher_;
  }

 private:
  std::shared_ptr<StaticModel> m_;
  mutable std::shared_ptr<const PieceMatcher> matcher_;  // built on first use, shared by collections
};

// A pack's rows for the model go to the model first (they may be all of
// what a page loading rows on demand has of it).
void JsCollection::EnablePieceMatch(const JsTokenizer& tokenizer, JsStaticModel& model) {
  Guard([&] {
    std::vector<uint8_t> rows = c_.TakeStoredRows();
    if (!rows.empty()) model.AddRowBytes(rows);
    c_.EnablePieceMatch(model.Matcher(), tokenizer.shared());
  });
}

// A model's lexicon (core/lexical/lexicon.h), shared by its collections.
class JsLexicon {
 public:
  static JsLexicon* FromStaged(size_t n) {
    return Guard([&] {
      // Built before the wrapper, so a table that fails to load leaks nothing.
      const StagingRelease release;
      auto lexicon = Lexicon::FromTsv(StagedBytes(n, "lexicon"));
      auto* l = new JsLexicon();
      l->l_ = std::move(lexicon);
      return l;
    });
  }
  // A lexicon served in shards: { count, languages, maxWords, maxHan }.
  static JsLexicon* Sharded(val shape) {
    return Guard([&] {
      auto lexicon = Lexicon::Sharded(Count(shape, "count", 0, kMaxLexiconShards), Strings(shape, "languages", 64),
                                      Count(shape, "maxWords", 0, kMaxKeyWords), Count(shape, "maxHan", 0, kMaxKeyHan));
      auto* l = new JsLexicon();
      l->l_ = std::move(lexicon);
      return l;
    });
  }
  // The TSV in stagingBytes(n) cut into `count` shards per language:
  // { languages, maxWords, maxHan, files: [{ name, text }] }.
  static val SplitStaged(size_t n, double count) {
    return Guard([&] {
      if (!(count >= 1 && count <= kMaxLexiconShards)) throw Error(ErrorCode::kInvalidArgument, "a lexicon is cut into 1 to 4096 shards per language");
      const StagingRelease release;
      Lexicon::Shards shards = Lexicon::Split(StagedBytes(n, "lexicon"), static_cast<size_t>(count));
      val out = val::object();
      out.set("languages", ArrayOf(shards.languages));
      out.set("maxWords", shards.max_words);
      out.set("maxHan", shards.max_han);
      val files = val::array();
      for (size_t i = 0; i < shards.files.size(); ++i) {
        val f = val::object();
        f.set("name", shards.files[i].first);
        f.set("text", shards.files[i].second);
        files.set(i, f);
      }
      out.set("files", files);
      return out;
    });
  }
  // A shard's TSV in stagingBytes(n).
  void AddShardStaged(const std::string& name, size_t n) {
    Guard([&] {
      const StagingRelease release;
      l_->AddShard(name, StagedBytes(n, "lexicon shard"));
    });
  }
  void AddTableStaged(size_t n) {
    Guard([&] {
      const StagingRelease release;
      l_->AddTable(StagedBytes(n, "lexicon"));
    });
  }
  size_t Entries() const { return l_->entries(); }
  // The query's translation groups (for tests and the demo's diagnostics).
  val Translate(const std::string& text, const std::string& from, const std::string& to) const {
    return Guard([&] {
      val out = val::array();
      for (const TermGroup& g : l_->Translate(text, from, to)) out.call<void>("push", ArrayOf(g));
      return out;
    });
  }
  // The first translation of each word, joined by `glue` (what a model's
  // translation mix embeds: web/engine/translation-mix.mjs); one string
  // across the boundary instead of an array per word.
  std::string TranslateFirst(const std::string& text, const std::string& from, const std::string& to,
                             const std::string& glue) const {
    return Guard([&] {
      std::string out;
      for (const TermGroup& g : l_->Translate(text, from, to)) {
        if (g.empty() || g[0].empty()) continue;
        if (!out.empty()) out += glue;
        out += g[0];
      }
      return out;
    });
  }
  std::shared_ptr<const Lexicon> shared() const { return l_; }

 private:
  std::shared_ptr<Lexicon> l_;
};

void JsCollection::EnableLexicon(const JsLexicon& lexicon) {
  Guard([&] { c_.EnableLexicon(lexicon.shared()); });
}

// A collection cut into an entry, term, page and match fragments for a
// static site (core/collection/split.h); each comes back as a JS-owned copy.
val SplitCollection_(const JsCollection& db, val options) {
  return Guard([&] {
    SplitOptions o;
    o.term_fragment_bytes = Count(options, "termFragmentBytes", o.term_fragment_bytes, size_t{1} << 24);
    o.page_fragment_bytes = Count(options, "pageFragmentBytes", o.page_fragment_bytes, size_t{1} << 28);
    o.pages_per_term = Count(options, "pagesPerTerm", o.pages_per_term, size_t{1} << 20);
    o.match_neighbors = Count(options, "matchNeighbors", o.match_neighbors, size_t{255});
    o.match_fragment_pieces = Count(options, "matchFragmentPieces", o.match_fragment_pieces, size_t{1} << 24);
    if (!options.isUndefined() && !options.isNull() && options["onProgress"].typeOf().as<std::string>() == "function") {
      val report = options["onProgress"];
      o.on_progress = [report](size_t done, size_t total) { report(static_cast<double>(done), static_cast<double>(total)); };
    }
    SplitFiles files = SplitCollection(db.collection(), o);
    auto copies = [](const std::vector<Bytes>& parts) {
      val out = val::array();
      for (size_t i = 0; i < parts.size(); ++i) out.set(i, CopyOut(parts[i], "Uint8Array"));
      return out;
    };
    val out = val::object();
    out.set("entry", CopyOut(files.entry, "Uint8Array"));
    out.set("terms", copies(files.terms));
    out.set("pages", copies(files.pages));
    out.set("matches", copies(files.matches));
    return out;
  });
}

// The reading side: an entry, then the parts a query names as missing.
class JsSplitIndex {
 public:
  explicit JsSplitIndex(SplitIndex s) : s_(std::move(s)) {}
  static JsSplitIndex* FromStaged(size_t n) {
    return Guard([&] {
      const StagingRelease release;
      std::string_view bytes = StagedBytes(n, "split index entry");
      return new JsSplitIndex(SplitIndex::Load(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    });
  }
  JsCollection* MakeCollection() const {
    return Guard([&] { return new JsCollection(s_.MakeCollection()); });
  }
  void AddTermsStaged(size_t fragment, size_t n) {
    Guard([&] {
      const StagingRelease release;
      std::string_view bytes = StagedBytes(n, "term fragment");
      s_.AddTerms(static_cast<uint32_t>(fragment), reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    });
  }
  void AddPagesStaged(size_t fragment, size_t n, JsCollection& into) {
    Guard([&] {
      const StagingRelease release;
      std::string_view bytes = StagedBytes(n, "page fragment");
      s_.AddPages(static_cast<uint32_t>(fragment), reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), into.collection());
    });
  }
  void AddMatchesStaged(size_t fragment, size_t n) {
    Guard([&] {
      const StagingRelease release;
      std::string_view bytes = StagedBytes(n, "match fragment");
      s_.AddMatches(static_cast<uint32_t>(fragment), reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    });
  }
  val Missing(const std::string& query, const JsCollection& into, val options) const {
    return Guard([&] {
      const size_t pages = Count(options, "pages", kSplitCandidatePages, size_t{1} << 16);
      return ArrayOf(s_.Missing(query, into.collection(), pages));
    });
  }
  size_t TermFragments() const { return s_.term_fragments(); }
  size_t PageFragments() const { return s_.page_fragments(); }
  size_t MatchFragments() const { return s_.match_fragments(); }
  size_t Passages() const { return s_.passages(); }

 private:
  SplitIndex s_;
};

std::string DetectLanguage_(const std::string& text) { return DetectLanguage(text); }

// A passage as the persona reads it: its units, each with what it is and
// whether an answer may quote it (core/persona/sentences.h).
val Sentences_(const std::string& text) {
  return Guard([&] {
    utf8::Require(text, "text");
    val out = val::array();
    size_t i = 0;
    for (const Sentence& s : SplitSentences(text)) {
      val o = val::object();
      o.set("text", s.text);
      o.set("quotable", s.quotable());
      o.set("listItem", s.list_item);
      o.set("leadIn", s.lead_in);
      o.set("question", s.question);
      o.set("heading", s.heading);
      o.set("row", s.row);
      o.set("context", s.context);
      out.set(i++, o);
    }
    return out;
  });
}
std::string KernelName() { return DotKernelName(); }

}  // namespace


// ---- persona ----

// Overrides of the unit weights (core/persona/answer.h), for tuning on the
// development set; absent fields keep their defaults.
void ReadWeights(const val& w, UnitWeights& k) {
  if (w.isUndefined() || w.isNull()) return;
  k.shared = Num(w, "shared", k.shared);
  k.similarity = Num(w, "similarity", k.similarity);
  k.type = Num(w, "type", k.type);
  k.rank = Num(w, "rank", k.rank);
  k.position = Num(w, "position", k.position);
  k.topic = Num(w, "topic", k.topic);
  k.passage = Num(w, "passage", k.passage);
  k.title = Num(w, "title", k.title);
  k.other_language = Num(w, "otherLanguage", k.other_language);
  k.min_shared = static_cast<float>(Num(w, "minShared", k.min_shared));
  k.translated = static_cast<float>(Num(w, "translated", k.translated));
  k.min_similarity = static_cast<float>(Num(w, "minSimilarity", k.min_similarity));
  k.min_title_shared = static_cast<float>(Num(w, "minTitleShared", k.min_title_shared));
  k.second_ratio = Num(w, "secondRatio", k.second_ratio);
}

// The conversation's state as the page keeps it and the CLI saves it (--session).
constexpr size_t kMaxStateItems = 256;

ConversationState StateFromJs(const val& state) {
  ConversationState st;
  st.disclaimer_shown = Bool(state, "disclaimerShown", false);
  st.in_role = Bool(state, "inRole", true);
  st.turns = static_cast<uint32_t>(std::clamp(Num(state, "turns", 0), 0.0, 1e9));
  if (!state.isUndefined() && !state.isNull() && state["topic"].isString()) st.topic = state["topic"].as<std::string>();
  utf8::Require(st.topic, "state.topic");
  st.passages = Strings(state, "passages", kMaxStateItems);
  st.said = Strings(state, "said", kMaxStateItems);
  return st;
}

val StateToJs(const ConversationState& st) {
  val next = val::object();
  next.set("disclaimerShown", st.disclaimer_shown);
  next.set("inRole", st.in_role);
  next.set("turns", st.turns);
  next.set("topic", st.topic);
  next.set("passages", ArrayOf(st.passages));
  next.set("said", ArrayOf(st.said));
  return next;
}

class JsPersona {
 public:
  static JsPersona* FromJson(const std::string& json) {
    return Guard([&] { return new JsPersona(Persona::FromJson(json)); });
  }
  std::string Name() const { return p_.name(); }
  std::string Id() const { return p_.id(); }
  bool UsesBannedWord(const std::string& text) const { return Guard([&] { return p_.UsesBannedWord(text); }); }
  std::string LookupText(const std::string& question) const { return Guard([&] { return PersonaLookupText(p_, question); }); }

  // The question's vector, if any, is in stagingFloats(query_dims). `state` is
  // { disclaimerShown, inRole, turns }; the reply carries the updated state.
  val AnswerStaged(const JsCollection& db, const std::string& question, size_t query_dims, val state, val options) const {
    return Guard([&] {
      if (query_dims > g_floats.size()) throw Error(ErrorCode::kInvalidArgument, "staged query vector missing");
      ConversationState st = StateFromJs(state);
      AnswerOptions o;
      o.threshold = static_cast<float>(Num(options, "threshold", o.threshold));
      o.k = Count(options, "k", o.k, kMaxK);
      ReadWeights(options.isUndefined() || options.isNull() ? val::undefined() : options["weights"], o.weights);
      o.explain = Bool(options, "explain", false);
      Answer a = AnswerQuestion(p_, db.collection(), question, query_dims ? g_floats.data() : nullptr, query_dims, st, o);
      val out = val::object();
      out.set("answer", a.text);
      out.set("language", a.language);
      out.set("kind", std::string(AnswerKindName(a.kind)));
      out.set("declined", a.declined());
      out.set("inRole", a.in_role);
      out.set("disclaimer", a.disclaimer);
      out.set("passageLanguages", a.passage_languages);
      out.set("unsure", a.unsure);
      val cites = val::array();
      for (size_t i = 0; i < a.citations.size(); ++i) {
        const Citation& c = a.citations[i];
        val o = val::object();
        o.set("n", i + 1);
        o.set("id", c.id);
        o.set("title", ArrayOf(c.title));
        o.set("source", c.source);
        o.set("language", c.language);
        o.set("score", c.score);
        cites.set(i, o);
      }
      out.set("citations", cites);
      if (o.explain) {
        val weighed = val::array();
        for (size_t i = 0; i < a.weighed.size(); ++i) {
          const WeighedUnit& u = a.weighed[i];
          val x = val::object();
          x.set("id", u.id);
          x.set("text", u.text);
          x.set("score", u.score);
          x.set("shared", u.shared);
          x.set("similarity", u.similarity);
          x.set("chosen", u.chosen);
          weighed.set(i, x);
        }
        out.set("weighed", weighed);
      }
      out.set("state", StateToJs(st));
      return out;
    });
  }

 private:
  explicit JsPersona(Persona p) : p_(std::move(p)) {}
  Persona p_;
};

EMSCRIPTEN_BINDINGS(vesper) {
  using namespace emscripten;
  function("stagingFloats", &StagingFloats);
  function("stagingBytes", &StagingBytes);
  function("stagingInts", &StagingInts);
  function("formatPrompt", &FormatPrompt_);
  function("poolStaged", &PoolStaged);
  function("truncateNormalizeStaged", &TruncateNormalizeStaged);
  function("chunkDocument", &Chunk_);
  function("savePackStream", &SavePackStream);
  function("loadPackStaged", &LoadPackStaged);
  function("inspectPackStaged", &InspectPackStaged);
  function("detectLanguage", &DetectLanguage_);
  function("splitCollection", &SplitCollection_);
  function("sentences", &Sentences_);
  function("dotKernel", &KernelName);
  constant("packVersion", kPackVersion);

  class_<JsStaticModel>("StaticModel")
      .class_function("fromStaged", &JsStaticModel::FromStaged, allow_raw_pointers())
      .function("embedStaged", &JsStaticModel::EmbedStaged)
      .class_function("sparse", &JsStaticModel::Sparse, allow_raw_pointers())
      .function("addRowsStaged", &JsStaticModel::AddRowsStaged)
      .function("rowSetStaged", &JsStaticModel::RowSetStaged)
      .function("addTableStaged", &JsStaticModel::AddTableStaged)
      .function("missingStaged", &JsStaticModel::MissingStaged)
      .function("held", &JsStaticModel::Held)
      .function("dims", &JsStaticModel::Dims)
      .function("vocab", &JsStaticModel::Vocab);

  class_<JsLexicon>("Lexicon")
      .class_function("fromStaged", &JsLexicon::FromStaged, allow_raw_pointers())
      .class_function("sharded", &JsLexicon::Sharded, allow_raw_pointers())
      .class_function("splitStaged", &JsLexicon::SplitStaged)
      .function("addShardStaged", &JsLexicon::AddShardStaged)
      .function("addTableStaged", &JsLexicon::AddTableStaged)
      .function("entries", &JsLexicon::Entries)
      .function("translate", &JsLexicon::Translate)
      .function("translateFirst", &JsLexicon::TranslateFirst);

  class_<JsTokenizer>("Tokenizer")
      .class_function("fromStaged", &JsTokenizer::FromStaged, allow_raw_pointers())
      .function("encode", &JsTokenizer::Encode)
      .function("decode", &JsTokenizer::Decode)
      .function("countTokens", &JsTokenizer::CountTokens)
      .function("vocabSize", &JsTokenizer::VocabSize)
      .function("fingerprint", &JsTokenizer::Fingerprint)
      .function("idToPiece", &JsTokenizer::IdToPiece)
      .function("bosId", &JsTokenizer::BosId)
      .function("eosId", &JsTokenizer::EosId)
      .function("padId", &JsTokenizer::PadId);

  class_<JsPersona>("Persona")
      .class_function("fromJson", &JsPersona::FromJson, allow_raw_pointers())
      .function("name", &JsPersona::Name)
      .function("id", &JsPersona::Id)
      .function("usesBannedWord", &JsPersona::UsesBannedWord)
      .function("lookupText", &JsPersona::LookupText)
      .function("answerStaged", &JsPersona::AnswerStaged);

  class_<JsSplitIndex>("SplitIndex")
      .class_function("fromStaged", &JsSplitIndex::FromStaged, allow_raw_pointers())
      .function("makeCollection", &JsSplitIndex::MakeCollection, allow_raw_pointers())
      .function("addTermsStaged", &JsSplitIndex::AddTermsStaged)
      .function("addPagesStaged", &JsSplitIndex::AddPagesStaged)
      .function("addMatchesStaged", &JsSplitIndex::AddMatchesStaged)
      .function("missing", &JsSplitIndex::Missing)
      .function("termFragments", &JsSplitIndex::TermFragments)
      .function("pageFragments", &JsSplitIndex::PageFragments)
      .function("matchFragments", &JsSplitIndex::MatchFragments)
      .function("passages", &JsSplitIndex::Passages);

  class_<JsCollection>("Collection")
      .class_function("create", &JsCollection::Create, allow_raw_pointers())
      .class_function("takeLoaded", &JsCollection::TakeLoaded, allow_raw_pointers())
      .function("addStaged", &JsCollection::AddStaged)
      .function("remove", &JsCollection::Remove)
      .function("spillTo", &JsCollection::SpillTo)
      .function("spillPiecesTo", &JsCollection::SpillPiecesTo)
      .function("searchStaged", &JsCollection::SearchStaged)
      .function("queryStaged", &JsCollection::QueryStaged)
      .function("setAnswerability", &JsCollection::SetAnswerability)
      .function("floor", &JsCollection::Floor)
      .function("calibrated", &JsCollection::Calibrated)
      .function("enablePieceMatch", &JsCollection::EnablePieceMatch)
      .function("enableLexicon", &JsCollection::EnableLexicon)
      .function("vectorView", &JsCollection::VectorView)
      .function("chunks", &JsCollection::Chunks)
      .function("chunkById", &JsCollection::ChunkById)
      .function("name", &JsCollection::Name)
      .function("rename", &JsCollection::Rename)
      .function("size", &JsCollection::Size)
      .function("model", &JsCollection::Model)
      .function("usesHnsw", &JsCollection::UsesHnsw)
      .function("vectorFormat", &JsCollection::VectorFormat_)
      .function("bytesPerVector", &JsCollection::BytesPerVector);
}
