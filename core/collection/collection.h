// A named database: chunks, their vectors (when it has a model) and the
// indexes over both: an exact scan, HNSW once it is large, and BM25.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/chunker/chunker.h"
#include "core/collection/chunk_spill.h"
#include "core/collection/id_index.h"
#include "core/collection/model_info.h"
#include "core/collection/piece_lists.h"
#include "core/index/hnsw_index.h"
#include "core/index/vector_store.h"
#include "core/lexical/bm25.h"
#include "core/lexical/lexicon.h"
#include "core/search/answerability.h"
#include "core/search/piece_match.h"
#include "core/tokenizer/tokenizer.h"

namespace vesper {

enum class IndexKind : uint32_t { kAuto = 0, kExact = 1, kHnsw = 2 };
enum class SearchMode : uint32_t { kVector = 0, kLexical = 1, kHybrid = 2 };
// "vector" | "lexical" | "hybrid"; anything else is kInvalidArgument.
SearchMode ParseSearchMode(std::string_view name);
// "auto" | "exact" | "hnsw"; anything else is kInvalidArgument.
IndexKind ParseIndexKind(std::string_view name);

// An exact scan of this many bytes of vectors takes about 1.5 ms in WASM
// (int8 32,768 x 256: 0.72 ms, vesper_bench scan-formats): where HNSW starts to pay.
inline constexpr size_t kHnswFromScanBytes = size_t{8} << 20;
// The fewest passages HNSW is built for automatically, whatever the bytes.
inline constexpr size_t kHnswMinPassages = 4096;

struct CollectionOptions;
// The passages from which kAuto builds HNSW: kHnswFromScanBytes of vectors in
// the format the store holds by then (int8 where float32 turns int8 earlier).
size_t HnswMinSizeFor(size_t dims, const CollectionOptions& options);

struct CollectionOptions {
  IndexKind index = IndexKind::kAuto;
  VectorFormat vectors = VectorFormat::kFloat32;
  // kAuto switches from the exact scan to HNSW at this many passages; 0 (the
  // default) resolves, when the collection is made, to where an exact scan
  // would read kHnswFromScanBytes (HnswMinSizeFor): below that the scan is
  // about as fast as the graph, exact, and costs nothing to build or load.
  size_t hnsw_min_size = 0;
  HnswParams hnsw;
  // Float32 vectors turn int8 once this many passages are live (0: never;
  // the clients' "auto" format): a large database is compact while it is
  // built, batch by batch, without knowing its final size up front.
  size_t int8_from = 0;
};

// Chosen on bench/quality's development half (bench/quality/notes.md).
inline constexpr float kDefaultTwinCosine = 0.7f;

struct SearchOptions {
  size_t k = 10;
  float threshold = 0.35f;  // on cosine when the collection has vectors, else on normalised BM25
  SearchMode mode = SearchMode::kHybrid;
  // Hybrid ranking: cosine + weight x normalised BM25, the weight depending on
  // whether the passage is in the query's language (see Collection::Search).
  // Chosen on bench/quality's development half (bench/quality/EVAL.md).
  float lexical_weight = 0.75f;
  float cross_lexical_weight = 0.0f;
  // With a lexicon (EnableLexicon): what BM25 of the query's translation
  // adds for a passage in another language, and, for lexical ranking, its
  // share of the lexical score.
  float translated_weight = 0.5f;
  // Meta text (example questions, usage notes, role-play rules: chunks the
  // knowledge base marks as about itself) ranks this much lower, so it never
  // outranks the content it describes but still answers questions about it.
  float meta_penalty = 0.1f;
  bool exact = false;        // bypass HNSW (ground truth, tests)
  // Hybrid with piece matching enabled: how many candidates of each
  // retriever the piece matcher rescores.
  size_t rerank_pool = 50;
  // ... and how much the passage's own heading adds, matched apart from its
  // text (chosen on bench/quality's development half, 0.25).
  float title_weight = 0.25f;
  // In a collection of many pages (sources; see kMinPagesForPageEvidence):
  // what BM25 of a passage's whole page adds to its ranking score, where
  // page and query share a language. A page answers as a whole: the words of
  // a question are often spread over its sections (chosen on the development
  // halves of bench/docsets, bench/docsets/EVAL.md).
  float page_weight = 0.5f;
  // ... and, there, what a page's passages after its first
  // `passages_per_page` lose in the ranking, so that the first results name
  // several pages rather than one page five times (chosen likewise).
  float page_repeat_penalty = 0.2f;
  size_t passages_per_page = 1;
  // A passage in another language than the query's, shown above its twin in
  // the query's language (the same text translated: their vectors' cosine at
  // least this), gives the twin its place and its score: an English question
  // reads the English copy first. 0 turns it off. Order only: what is shown
  // and the answerability decision are unchanged.
  float twin_cosine = kDefaultTwinCosine;
  // Only passages whose filters hold, for every key named here, one of its
  // values (a site's data-vesper-filter). Vectors are then scanned exactly
  // over the passages that pass: a filtered search never misses a passage
  // an approximate index would have had to look past.
  std::vector<std::pair<std::string, std::vector<std::string>>> filters;
};

struct SearchResult {
  uint32_t label = 0;
  float score = 0.f;          // the thresholded similarity (see SearchOptions::threshold)
  float fused = 0.f;          // the ranking score: cosine + weighted BM25 in hybrid mode, else equal to score
  float vector_score = -1.f;  // cosine, when the collection has vectors
  float lexical_score = 0.f;  // normalised BM25
  int vector_rank = -1;       // rank within each retriever, -1 when it did not find it
  int lexical_rank = -1;
  float match_score = -1.f;   // piece matching (PieceMatcher), when the collection has it
  float translated_score = 0.f;  // normalised BM25 of the query's translation into the passage's language
  int translated_rank = -1;
  float page_score = 0.f;  // normalised BM25 of the passage's whole page (its source), when used
};

// What a collection holding part of a corpus (a split index's fetched
// pages: core/collection/split.h) must know of the whole to rank as a
// search over the whole would: BM25's counts over passages and over pages,
// the languages held, the mean unit vector, the model pieces some passage
// holds. Each is the whole corpus's, not the part's.
struct CorpusView {
  CorpusStats passages, pages;
  std::vector<std::string> languages;
  std::vector<float> centroid;        // model dims; empty without vectors
  std::vector<uint8_t> known_pieces;  // per vocabulary id; empty without piece matching
  std::vector<int32_t> vocabulary;    // the same, as a list
  // Piece matching through neighbour lists instead of the passages' rows
  // (core/search/piece_neighbors.h); null: through the rows.
  std::shared_ptr<const PieceNeighbors> neighbors;
};

class Collection {
 public:
  Collection(std::string name, ModelInfo model, CollectionOptions options = {});
  Collection(Collection&&) noexcept;
  Collection& operator=(Collection&&) noexcept;
  ~Collection();

  const std::string& name() const { return name_; }
  // A new name (non-empty UTF-8), e.g. to keep an imported pack beside a
  // database of the same name.
  void Rename(std::string name);
  const ModelInfo& model() const { return model_; }
  const CollectionOptions& options() const { return options_; }
  size_t size() const { return live_; }
  size_t slots() const { return chunks_.size(); }
  bool has_vectors() const { return !model_.lexical_only(); }
  bool uses_hnsw() const { return hnsw_ != nullptr; }

  // Adds chunks with one vector each (row-major, model dims) when the
  // collection has a model; vectors are stored L2-normalised. Chunks whose
  // id is already present are skipped, so storing a document twice is
  // harmless. Returns the number added.
  size_t Add(std::vector<Chunk> chunks, const float* vectors = nullptr, size_t vector_count = 0);
  // Throws kNotFound for an unknown id.
  void Remove(std::string_view chunk_id);
  // From now on each passage added is written to `spill` (chunk_spill.h)
  // and its text, heading trail and source leave memory: the collection can
  // then be saved (its chunks section read back from the spill), not
  // searched, and its passages not removed. Only while it is empty.
  void SpillTo(std::shared_ptr<ChunkSpill> spill);
  bool spilled() const { return spill_ != nullptr; }
  // With SpillTo, piece matching's lists go to `pieces` too, in the pack's
  // form, rather than stay in memory until the save (a 121,000-passage
  // build: 12 MB). Only while empty, after SpillTo.
  void SpillPiecesTo(std::shared_ptr<ChunkSpill> pieces);
  // Refuses what a spilled collection cannot do (`what`: "search it", ...).
  void RequireHeld(const char* what) const;

  bool alive(uint32_t label) const { return label < alive_.size() && alive_[label]; }
  const Chunk& chunk(uint32_t label) const { return chunks_.at(label); }
  std::optional<uint32_t> Find(std::string_view chunk_id) const;
  // Writes the unit vector of a live chunk (model dims, decoded from the
  // store's format); false for lexical collections and deleted chunks.
  bool vector(uint32_t label, float* out) const;
  // The cosine of two live passages' vectors (as the store holds them); -1
  // without vectors. At kDefaultTwinCosine and above, across languages, one
  // is the other's translation.
  float PassageCosine(uint32_t a, uint32_t b) const;
  size_t bytes_per_vector() const { return store_.bytes_per_vector(); }

  // query_vector may be null for kLexical or for lexical-only collections.
  // evidence, when given, receives what the search saw about the query as a
  // whole (core/search/answerability.h); gathering it costs one dot product.
  std::vector<SearchResult> Search(std::string_view query_text, const float* query_vector, size_t query_dims,
                                   const SearchOptions& options, QueryEvidence* evidence = nullptr) const;

  // Hybrid search ranks by token-level matching (static models: see
  // PieceMatcher) instead of the summed-vector cosine. The tokenizer is the
  // model's; chunks added later are tokenised as they come.
  void EnablePieceMatch(std::shared_ptr<const PieceMatcher> matcher, std::shared_ptr<const Tokenizer> tokenizer);
  bool piece_match() const { return matcher_ != nullptr; }
  // BM25 also scores the query's translation (the model's lexicon) against
  // passages in the collection's other languages.
  void EnableLexicon(std::shared_ptr<const Lexicon> lexicon);
  bool translates() const { return lexicon_ != nullptr; }
  // The languages of its passages, each once.
  const std::vector<std::string>& Languages() const;
  // The lexicon's translation of `text` from one language into another, one
  // group of alternatives per content word; empty without a lexicon.
  std::vector<TermGroup> Translate(std::string_view text, const std::string& from, const std::string& to) const {
    return lexicon_ ? lexicon_->Translate(text, from, to) : std::vector<TermGroup>();
  }
  // The query's translation into each other language the collection (or
  // its corpus) holds that the lexicon knows, as cross-lingual BM25 scores
  // it: per language, one group of alternatives per content word.
  std::vector<std::pair<std::string, std::vector<TermGroup>>> QueryTranslations(std::string_view query_text,
                                                                                const std::string& query_language) const;
  // Those translations as one text, each word's first alternative: what the
  // vocabulary coverage of a query in a language the collection lacks reads.
  static std::string TranslationText(const std::vector<std::pair<std::string, std::vector<TermGroup>>>& translations);
  // The tokenizer piece matching uses; null before EnablePieceMatch.
  const Tokenizer* piece_tokenizer() const { return tokenizer_.get(); }
  // Token-level similarity of two texts through the model's pieces (what
  // hybrid reranks by), for choosing sentences within passages; -1 when
  // piece matching is not enabled.
  float PieceSimilarity(std::string_view query, std::string_view text) const;
  // How rare a word (a SplitWords() key) is among the collection's passages,
  // in [0, 1] (Bm25Index::Rarity).
  float TermRarity(const std::string& term) const { return bm25_.Rarity(term); }

  // Ranks as the corpus this collection is part of would (CorpusView); the
  // view may change between searches (its owner adds terms as they
  // arrive), never during one. Null: this collection is the whole.
  void SetCorpus(std::shared_ptr<const CorpusView> corpus);
  const CorpusView* corpus() const { return corpus_.get(); }
  // Pages (a passage's source up to '#'), numbered as first met.
  size_t pages() const { return page_ids_.size(); }
  uint32_t page_of(uint32_t label) const { return page_of_.at(label); }
  const Bm25Index& lexical() const { return bm25_; }
  // The mean of the stored unit vectors (model dims).
  const std::vector<float>& Centroid() const;
  const std::vector<uint8_t>& KnownPieces() const { return known_pieces_; }
  // Piece matching's matcher; null when it is not enabled.
  const PieceMatcher* piece_matcher() const { return matcher_.get(); }

  // How this collection decides whether a query is answerable: the model's
  // calibration (set by the client from the manifest), else a cosine bar.
  const Answerability& answerability() const { return answerability_; }
  void set_answerability(Answerability a) { answerability_ = std::move(a); }

  // Pack sections (see pack.h); each Load validates as it reads.
  void SaveMeta(ByteWriter& w) const;
  void SaveChunks(ByteWriter& w) const;
  void SaveVectors(ByteWriter& w) const;
  // compact_links: level-0 lists by their count (pack version 6).
  void SaveHnsw(ByteWriter& w, bool with_vectors = false, bool compact_links = false) const;
  static Collection LoadMeta(ByteReader& r);
  void LoadChunks(ByteReader& r);
  void LoadVectors(ByteReader& r, std::shared_ptr<const void> owner = nullptr);
  // vectors_inline: the graph carries its vectors (packs before version 4);
  // else they come from the vectors section, loaded before it.
  void LoadHnsw(ByteReader& r, size_t label_bytes = 8, bool vectors_inline = false, bool compact_links = false);
  // The lexical index as built (pack version 4): loading it skips re-reading the text.
  void SaveBm25(ByteWriter& w) const;
  void LoadBm25(ByteReader& r);
  // Each chunk's pieces as piece matching uses them (a pieces section, when
  // the collection matched pieces): kept at load until EnablePieceMatch,
  // which takes them if its tokenizer and vocabulary are the ones they came
  // from, instead of tokenising every passage again.
  void SavePieces(ByteWriter& w) const;
  void LoadPieces(ByteReader& r);
  // The model rows its passages' pieces use (a row set: StaticModel), saved
  // when piece matching is on and they are a small part of the table, so a
  // page can load the pack without the whole table. Loading only checks
  // them: the client adds them to its model (TakeStoredRows) before
  // EnablePieceMatch.
  bool SavesRows() const;
  void SaveRows(ByteWriter& w) const;
  void LoadRows(ByteReader& r);
  std::vector<uint8_t> TakeStoredRows() { return std::move(stored_rows_); }
  // Rebuilds what is derived rather than stored (BM25), after loading.
  void FinishLoad();

 private:
  void IndexLexical(uint32_t label);
  std::string LexicalText(uint32_t label) const;
  static void WriteChunk(ByteWriter& w, const Chunk& c);
  // Writes the passages from `first` on to the spill and lets their text go.
  void SpillFrom(uint32_t first);

  void AssignPage(uint32_t label);
  void ScorePages(std::string_view query_text, std::vector<SearchResult>& results) const;
  // Marks in allowed_ the live passages whose filters pass; false if none does.
  bool MarkAllowed(const std::vector<std::pair<std::string, std::vector<std::string>>>& filters) const;
  void KeepAllowed(std::vector<Hit>& hits, size_t pool) const;
  bool UsesPages() const;
  void SpreadPages(const SearchOptions& opt, std::vector<SearchResult>& results) const;
  void PreferTwinsInLanguage(const std::string& query_language, const SearchOptions& opt,
                             std::vector<SearchResult>& results) const;
  void MaybeBuildHnsw();
  void GatherEvidence(const float* q, const std::string& query_language, float translated_weight, QueryEvidence& e) const;
  void Fuse(SearchMode mode, bool use_vectors, bool rerank, const std::string& query_language, const SearchOptions& opt,
            std::vector<SearchResult>& results) const;
  void SummariseMatches(const std::vector<SearchResult>& results, size_t pool, QueryEvidence& e) const;
  size_t CorpusPassages() const;
  bool InQueryLanguage(uint32_t label, const std::string& query_language) const;
  void DescribeTop(const SearchResult& top, const std::string& query_language, bool matched, QueryEvidence& e) const;
  void MeasureTermCoverage(std::string_view query_text, const std::string& query_language, QueryEvidence& e) const;
  size_t PassagesIn(const std::string& language) const;
  float TypicalCosine(const float* unit_query) const;
  struct ChunkPieces {
    std::vector<int32_t> text, title;
  };
  static ChunkPieces PiecesOf(const Chunk& c, const PieceMatcher& matcher, const Tokenizer& tokenizer);
  std::vector<ChunkPieces> PiecesOfBatch(const std::vector<Chunk>& chunks) const;  // empty without piece matching
  void StorePieces(uint32_t label, const ChunkPieces& pieces);
  std::vector<int32_t> RowIds() const;
  // measure: also how much of the translation the collection holds (translated_coverage_), for the evidence.
  void SearchTranslated(std::string_view query_text, const std::string& query_language, size_t pool, bool measure) const;
  void RescoreByPieces(std::string_view query_text, const SearchOptions& opt, std::vector<SearchResult>& results) const;
  void MergeHits(const float* q, bool use_vectors, const SearchOptions& opt, std::vector<SearchResult>& results) const;

  std::string name_;
  ModelInfo model_;
  CollectionOptions options_;
  std::vector<Chunk> chunks_;
  // With SpillTo: where the passages' records went, how many bytes, and
  // whether an append failed (the collection then refuses to be saved).
  std::shared_ptr<ChunkSpill> spill_;
  uint64_t spilled_bytes_ = 0;
  bool spill_failed_ = false;
  // With SpillPiecesTo: where the piece lists went, how many bytes and
  // slots; the batch being added; the pieces some slot's lists hold.
  std::shared_ptr<ChunkSpill> pieces_spill_;
  uint64_t pieces_spilled_bytes_ = 0;
  size_t pieces_spilled_slots_ = 0;
  Bytes pieces_batch_;
  std::vector<uint8_t> held_pieces_;
  void SpillPiecesBatch();
  void SavePiecesSpilled(ByteWriter& w) const;
  void WriteSpilled(const ChunkSpill& spill, uint64_t kept, const char* what, ByteWriter& w) const;
  std::vector<uint8_t> alive_;
  size_t live_ = 0;
  IdIndex by_id_;  // live passages by chunk id
  // What by_id_ reads a label's id through.
  auto IdOfLabel() const {
    return [this](uint32_t label) -> std::string_view { return chunks_[label].id; };
  }
  std::vector<uint32_t> page_of_;                       // label -> page (its source), for page evidence
  std::unordered_map<std::string, uint32_t> page_ids_;  // source -> page
  mutable std::vector<float> page_scores_;              // per-query scratch
  mutable std::vector<uint32_t> page_seen_;             // per-query scratch: passages ranked per page
  VectorStore store_;
  std::unique_ptr<HnswIndex> hnsw_;
  Bm25Index bm25_;
  bool bm25_loaded_ = false;  // from a pack's bm25 section: FinishLoad keeps it
  void RebuildLexical();
  mutable std::vector<Hit> vector_hits_, lexical_hits_;  // per-query scratch
  mutable std::vector<float> twin_;                      // per-query scratch: a decoded vector
  mutable std::vector<uint8_t> allowed_;                 // per-query scratch: passages a filtered search may return
  mutable std::unordered_map<uint32_t, size_t> fused_at_;  // label -> result slot, per query
  mutable std::vector<float> query_;
  // The mean of the stored unit vectors: dot(query, centroid) is the query's
  // mean cosine over the collection. Rebuilt lazily after a change.
  mutable std::vector<float> centroid_;
  mutable bool centroid_stale_ = true;
  Answerability answerability_ = Answerability::Uncalibrated(0.35f);
  std::shared_ptr<const PieceMatcher> matcher_;
  std::shared_ptr<const Tokenizer> tokenizer_;
  PieceLists pieces_;                               // per chunk slot, its text's and its heading's, when matching
  mutable std::vector<int32_t> passage_ids_, title_ids_;  // per-query scratch: a slot's lists decoded
  std::vector<uint8_t> known_pieces_;               // per vocabulary id: some chunk holds it
  struct StoredPieces {
    std::string fingerprint;  // of the tokenizer that made them
    uint32_t vocab = 0;       // of the model whose weights chose them
    PieceLists lists;
  };
  std::unique_ptr<StoredPieces> stored_pieces_;  // from a pack, until EnablePieceMatch
  std::vector<uint8_t> stored_rows_;  // a pack's rows section, until taken
  void AddKnownPieces(uint32_t label);
  void AddKnown(int32_t id);
  std::vector<int32_t> vocabulary_;                 // the same, as a list
  std::shared_ptr<const Lexicon> lexicon_;
  std::shared_ptr<const CorpusView> corpus_;
  mutable std::vector<Hit> translated_hits_, hits_in_language_;  // per-query scratch
  mutable std::vector<std::string> languages_;  // of the live passages, rebuilt after a change
  mutable std::vector<size_t> language_passages_;  // live passages in each of languages_
  mutable bool languages_stale_ = true;
  mutable std::vector<int32_t> query_ids_;
  mutable std::vector<int32_t> query_pieces_;
  // The query's translation into the collection's other languages (each
  // word's first alternative), per query: what the collection's vocabulary
  // is measured against when it holds no text in the query's language.
  mutable std::string translated_query_;
  // How much of the query's translation the collection holds (the best over
  // its languages; Bm25Index::CoverageOfAlternatives), -1 untranslated.
  mutable float translated_coverage_ = -1.f;
};

}  // namespace vesper
