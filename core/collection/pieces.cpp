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

// Sorted distinct piece ids as a count and LEB128 gaps: a passage's few
// hundred pieces in a few hundred bytes.
void PutGaps(ByteWriter& w, const std::vector<int32_t>& ids) {
  w.varint(static_cast<uint32_t>(ids.size()));
  for (size_t i = 0; i < ids.size(); ++i) w.varint(static_cast<uint32_t>(ids[i]) - (i ? static_cast<uint32_t>(ids[i - 1]) + 1 : 0));
}

std::vector<int32_t> GetGaps(ByteReader& r, uint32_t vocab) {
  const uint32_t n = r.varint();
  if (n > r.remaining() || n > vocab) r.fail("piece count exceeds the data present");
  std::vector<int32_t> ids(n);
  uint64_t next = 0;
  for (uint32_t i = 0; i < n; ++i) {
    next += r.varint();
    if (next >= vocab) r.fail("piece id outside the vocabulary");
    ids[i] = static_cast<int32_t>(next++);
  }
  return ids;
}

void Mark(const std::vector<int32_t>& ids, std::vector<uint8_t>& seen) {
  for (int32_t id : ids) seen[id] = 1;
}

std::vector<int32_t> Marked(const std::vector<uint8_t>& seen) {
  std::vector<int32_t> out;
  for (size_t id = 0; id < seen.size(); ++id) if (seen[id]) out.push_back(static_cast<int32_t>(id));
  return out;
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
    if (by_id_.count(c.id) || !batch.insert(c.id).second) continue;
    out[i] = PiecesOf(c, *matcher_, *tokenizer_);
  }
  return out;
}

void Collection::EnablePieceMatch(std::shared_ptr<const PieceMatcher> matcher, std::shared_ptr<const Tokenizer> tokenizer) {
  if (!matcher || !tokenizer) throw Error(ErrorCode::kInvalidArgument, "piece matching needs the model and its tokenizer");
  if (!has_vectors()) throw Error(ErrorCode::kInvalidArgument, "collection '" + name_ + "' is lexical only");
  // Part of a corpus that matches through neighbour lists: passages need no rows.
  if (corpus_ && corpus_->neighbors && !matcher->uses_neighbors()) {
    matcher = std::make_shared<const PieceMatcher>(matcher->shared_model(), corpus_->neighbors);
  }
  // Everything is worked out, and every row asked for, before anything changes.
  std::vector<ChunkPieces> lists(chunks_.size());
  const bool stored = stored_pieces_ && stored_pieces_->fingerprint == tokenizer->fingerprint() && stored_pieces_->vocab == matcher->vocab();
  // (A model holding its whole table has them all: nothing to gather.)
  if (stored && !matcher->uses_neighbors() && matcher->model().held() < matcher->vocab()) {
    std::vector<uint8_t> seen(matcher->vocab(), 0);
    for (uint32_t label = 0; label < chunks_.size(); ++label) Mark(stored_pieces_->pieces[label], seen), Mark(stored_pieces_->titles[label], seen);
    const std::vector<int32_t> ids = Marked(seen);
    matcher->model().Require(ids.data(), ids.size());
  }
  if (stored) {
    for (uint32_t label = 0; label < chunks_.size(); ++label) {
      lists[label] = {std::move(stored_pieces_->pieces[label]), std::move(stored_pieces_->titles[label])};
    }
  } else {
    for (uint32_t label = 0; label < chunks_.size(); ++label) {
      if (alive_[label]) lists[label] = PiecesOf(chunks_[label], *matcher, *tokenizer);
    }
  }
  stored_pieces_.reset();
  matcher_ = std::move(matcher);
  tokenizer_ = std::move(tokenizer);
  pieces_.assign(chunks_.size(), {});
  title_pieces_.assign(chunks_.size(), {});
  known_pieces_.assign(matcher_->vocab(), 0);
  vocabulary_.clear();
  for (uint32_t label = 0; label < chunks_.size(); ++label) StorePieces(label, std::move(lists[label]));
}

void Collection::StorePieces(uint32_t label, ChunkPieces pieces) {
  if (pieces_.size() <= label) pieces_.resize(label + 1);
  if (title_pieces_.size() <= label) title_pieces_.resize(label + 1);
  pieces_[label] = std::move(pieces.text);
  title_pieces_[label] = std::move(pieces.title);
  AddKnownPieces(label);
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
  for (int32_t id : pieces_[label]) {
    if (!known_pieces_[id]) {
      known_pieces_[id] = 1;
      vocabulary_.push_back(id);
    }
  }
}

void Collection::SavePieces(ByteWriter& w) const {
  w.str(tokenizer_->fingerprint());
  w.u32(static_cast<uint32_t>(matcher_->vocab()));
  w.u64(chunks_.size());
  for (uint32_t label = 0; label < chunks_.size(); ++label) {
    static const std::vector<int32_t> kNone;
    const bool live = alive_[label] && label < pieces_.size();
    PutGaps(w, live ? pieces_[label] : kNone);
    PutGaps(w, live ? title_pieces_[label] : kNone);
  }
}

void Collection::LoadPieces(ByteReader& r) {
  auto stored = std::make_unique<StoredPieces>();
  stored->fingerprint = r.str();
  stored->vocab = r.u32();
  if (r.count(8) != chunks_.size()) r.fail("pieces do not match the chunks");
  stored->pieces.resize(chunks_.size());
  stored->titles.resize(chunks_.size());
  for (uint32_t label = 0; label < chunks_.size(); ++label) {
    stored->pieces[label] = GetGaps(r, stored->vocab);
    stored->titles[label] = GetGaps(r, stored->vocab);
    if (!alive_[label] && !(stored->pieces[label].empty() && stored->titles[label].empty())) r.fail("pieces for a removed chunk");
  }
  stored_pieces_ = std::move(stored);
}

// The rows of the pieces live passages hold (removed ones' pieces are kept
// in pieces_ until saved, and are not carried).
std::vector<int32_t> Collection::RowIds() const {
  std::vector<uint8_t> seen(matcher_->vocab(), 0);
  for (uint32_t label = 0; label < chunks_.size() && label < pieces_.size(); ++label) {
    if (alive_[label]) Mark(pieces_[label], seen), Mark(title_pieces_[label], seen);
  }
  return Marked(seen);
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
