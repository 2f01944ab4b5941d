// Piece matching's data in a collection (Collection members): the pieces
// each passage holds, as tokenised or as a pack stored them, and the model
// rows they need. A model may arrive row by row (StaticModel::Sparse): every
// step that needs rows asks for them before it changes anything, so the
// caller can fetch what MissingRows names and repeat the call; and a pack
// may carry the rows its passages use (the rows section), so a page that
// loads it needs only its queries' other rows, not the whole table.
#include <algorithm>
#include <unordered_set>

#include "core/collection/collection.h"
#include "core/embed/static_model.h"
#include "core/util/error.h"

namespace vesper {

namespace {

std::vector<int32_t> Marked(const std::vector<uint8_t>& seen) {
  std::vector<int32_t> out;
  for (size_t id = 0; id < seen.size(); ++id) if (seen[id]) out.push_back(static_cast<int32_t>(id));
  return out;
}

// The distinct piece ids the lists of the slots `alive` marks hold, sorted.
std::vector<int32_t> IdsHeld(const PieceLists& lists, const std::vector<uint8_t>& alive, size_t vocab) {
  std::vector<uint8_t> seen(vocab, 0);
  for (uint32_t slot = 0; slot < alive.size() && slot < lists.slots(); ++slot) {
    if (alive[slot]) lists.ForEach(slot, true, [&](int32_t id) { seen[id] = 1; });
  }
  return Marked(seen);
}

// A table of which a pack's passages use no more than this share is worth
// carrying in the pack: past it the model's own table is the smaller download.
constexpr size_t kRowsCarriedUpTo = 2;  // 1 in 2 rows

}  // namespace

// A chunk's pieces as the model saw its document text: title trail, then
// text; and its own heading's. Throws MissingRows before anything is kept.
Collection::ChunkPieces Collection::PiecesOf(const Chunk& c, const PieceMatcher& matcher, const Tokenizer& tokenizer) {
  std::string text;
  for (const auto& t : c.title) text += (text.empty() ? "" : " > ") + t;
  text += "\n" + c.text;
  std::vector<int32_t> ids;
  tokenizer.EncodeIds(text, ids);
  ChunkPieces out;
  out.text = matcher.PassagePieces(ids.data(), ids.size());
  ids.clear();
  if (!c.title.empty()) tokenizer.EncodeIds(c.title.back(), ids);
  out.title = matcher.PassagePieces(ids.data(), ids.size());
  return out;
}

// Only for the chunks Add will keep: not those whose id the collection (or
// an earlier chunk of the batch) already has, which Add skips.
std::vector<Collection::ChunkPieces> Collection::PiecesOfBatch(const std::vector<Chunk>& chunks) const {
  std::vector<ChunkPieces> out;
  if (!matcher_) return out;
  out.resize(chunks.size());
  std::unordered_set<std::string_view> batch;
  for (size_t i = 0; i < chunks.size(); ++i) {
    const Chunk& c = chunks[i];
    if (by_id_.Find(c.id, IdOfLabel()) || !batch.insert(c.id).second) continue;
    out[i] = PiecesOf(c, *matcher_, *tokenizer_);
  }
  return out;
}

void Collection::EnablePieceMatch(std::shared_ptr<const PieceMatcher> matcher, std::shared_ptr<const Tokenizer> tokenizer) {
  if (!matcher || !tokenizer) throw Error(ErrorCode::kInvalidArgument, "piece matching needs the model and its tokenizer");
  if (!has_vectors()) throw Error(ErrorCode::kInvalidArgument, "collection '" + name_ + "' is lexical only");
  if (!chunks_.empty()) RequireHeld("match its passages' pieces");  // their text is tokenised again
  // Part of a corpus that matches through neighbour lists: passages need no rows.
  if (corpus_ && corpus_->neighbors && !matcher->uses_neighbors()) {
    matcher = std::make_shared<const PieceMatcher>(matcher->shared_model(), corpus_->neighbors);
  }
  // Everything is worked out, and every row asked for, before anything changes.
  const bool stored = stored_pieces_ && stored_pieces_->fingerprint == tokenizer->fingerprint() && stored_pieces_->vocab == matcher->vocab();
  // (A model holding its whole table has them all: nothing to gather.)
  if (stored && !matcher->uses_neighbors() && matcher->model().held() < matcher->vocab()) {
    // (A removed slot's stored lists are empty: Load refuses any.)
    const std::vector<int32_t> ids = IdsHeld(stored_pieces_->lists, alive_, matcher->vocab());
    matcher->model().Require(ids.data(), ids.size());
  }
  PieceLists lists;
  if (stored) {
    lists = std::move(stored_pieces_->lists);
  } else {
    for (uint32_t label = 0; label < chunks_.size(); ++label) {
      if (!alive_[label]) continue;
      const ChunkPieces p = PiecesOf(chunks_[label], *matcher, *tokenizer);
      lists.Set(label, p.text, p.title);
    }
  }
  lists.Grow(chunks_.size());
  stored_pieces_.reset();
  matcher_ = std::move(matcher);
  tokenizer_ = std::move(tokenizer);
  pieces_ = std::move(lists);
  known_pieces_.assign(matcher_->vocab(), 0);
  if (pieces_spill_) held_pieces_.assign(matcher_->vocab(), 0);
  vocabulary_.clear();
  for (uint32_t label = 0; label < chunks_.size(); ++label) AddKnownPieces(label);
}

void Collection::StorePieces(uint32_t label, const ChunkPieces& pieces) {
  if (!pieces_spill_) {
    pieces_.Set(label, pieces.text, pieces.title);
    AddKnownPieces(label);
    return;
  }
  // Labels arrive in order, each once (a spilled collection removes none).
  ByteWriter w(pieces_batch_);
  PieceLists::Encode(w, pieces.text);
  PieceLists::Encode(w, pieces.title);
  ++pieces_spilled_slots_;
  for (int32_t id : pieces.text) AddKnown(id);
  for (const auto* list : {&pieces.text, &pieces.title}) {
    for (int32_t id : *list) held_pieces_[id] = 1;
  }
}

float Collection::PieceSimilarity(std::string_view query, std::string_view text) const {
  if (!matcher_) return -1.f;
  std::vector<int32_t> ids;
  tokenizer_->EncodeIds(query, ids);
  const std::vector<int32_t> q = matcher_->Distinct(ids.data(), ids.size());
  tokenizer_->EncodeIds(text, ids);
  return matcher_->Score(q, matcher_->PassagePieces(ids.data(), ids.size()));
}

// The collection's vocabulary grows with what is added (a removed chunk's
// pieces stay known: harmless for a coverage estimate).
void Collection::AddKnownPieces(uint32_t label) {
  if (label >= pieces_.slots()) return;
  pieces_.ForEach(label, false, [&](int32_t id) { AddKnown(id); });
}

void Collection::AddKnown(int32_t id) {
  if (!known_pieces_[id]) {
    known_pieces_[id] = 1;
    vocabulary_.push_back(id);
  }
}

void Collection::SavePieces(ByteWriter& w) const {
  w.str(tokenizer_->fingerprint());
  w.u32(static_cast<uint32_t>(matcher_->vocab()));
  w.u64(chunks_.size());
  if (pieces_spill_) return SavePiecesSpilled(w);
  pieces_.Save(w, alive_);
}

void Collection::SavePiecesSpilled(ByteWriter& w) const {
  if (!spill_failed_ && (pieces_spilled_slots_ != chunks_.size() || std::count(alive_.begin(), alive_.end(), 0))) {
    throw Error(ErrorCode::kInternal, "collection '" + name_ + "': its piece lists do not cover its passages");
  }
  WriteSpilled(*pieces_spill_, pieces_spilled_bytes_, "piece lists", w);
}

void Collection::LoadPieces(ByteReader& r) {
  auto stored = std::make_unique<StoredPieces>();
  stored->fingerprint = r.str();
  stored->vocab = r.u32();
  if (r.count(8) != chunks_.size()) r.fail("pieces do not match the chunks");
  stored->lists = PieceLists::Load(r, chunks_.size(), stored->vocab, alive_);
  stored_pieces_ = std::move(stored);
}

// The rows of the pieces live passages hold.
std::vector<int32_t> Collection::RowIds() const {
  return pieces_spill_ ? Marked(held_pieces_) : IdsHeld(pieces_, alive_, matcher_->vocab());
}

bool Collection::SavesRows() const { return matcher_ && RowIds().size() * kRowsCarriedUpTo <= matcher_->vocab(); }

void Collection::SaveRows(ByteWriter& w) const {
  const std::vector<uint8_t> rows = matcher_->model().RowSet(RowIds());
  w.raw(rows.data(), rows.size());
}

void Collection::LoadRows(ByteReader& r) {
  const size_t n = r.remaining();
  const uint8_t* bytes = r.take(n);
  StaticModel::CheckRowSet(std::string_view(reinterpret_cast<const char*>(bytes), n));
  stored_rows_.assign(bytes, bytes + n);
}

}  // namespace vesper
