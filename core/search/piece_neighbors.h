// Piece matching without the model's table: per vocabulary piece, its
// nearest pieces among those a corpus holds (cosine of the model's rows),
// the K best, and the cosine to assume for any other piece. A split index
// (core/collection/split.h) serves these lists in fragments by piece id, so
// a query downloads the lists of its own few pieces, not the rows of every
// piece its candidate passages hold (on a 10,000-page site, most of the
// table). Piece matching's score is a mean of best cosines per query piece
// (core/search/piece_match.h): a passage holding one of the piece's
// neighbours scores that neighbour's cosine, as with the rows; one holding
// none scores the assumed cosine, an estimate of the best cosine an
// unrelated passage reaches (the piece's cosine at the rank where a
// passage's own count of pieces would find one by chance), where the rows
// would give the exact, similar, value.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace vesper {

class StaticModel;

struct PieceNeighbor {
  int32_t id = 0;
  float cosine = 0.f;
};

struct PieceNeighborList {
  std::vector<PieceNeighbor> nearest;  // by id, strictly increasing
  float floor = 0.f;                   // the cosine assumed for a piece not listed
};

// For every vocabulary piece whose row is not zero: its `k` nearest among
// `known` (sorted distinct ids, rows held), and as floor its cosine at rank
// known.size() / passage_pieces (the best of that many pieces by chance).
// Every row must be held. Pieces of a zero row get an empty list.
std::vector<PieceNeighborList> NearestPieces(const StaticModel& model, const std::vector<int32_t>& known, size_t k,
                                             size_t passage_pieces);

class PieceNeighbors {
 public:
  // `known`: per vocabulary id, whether the corpus holds it (passage pieces
  // are those; a piece of a zero row is never known).
  explicit PieceNeighbors(std::vector<uint8_t> known);
  size_t vocab() const { return known_.size(); }
  bool Known(int32_t piece) const { return known_[static_cast<size_t>(piece)] != 0; }
  bool Loaded(int32_t piece) const { return loaded_[static_cast<size_t>(piece)] != 0; }
  void Set(int32_t piece, PieceNeighborList list);
  // A loaded piece's list (empty for one never set).
  const PieceNeighborList& Of(int32_t piece) const { return lists_[static_cast<size_t>(piece)]; }
  // The cosine of `piece` (a loaded one) with `other`: listed, itself (1), or the floor.
  float Cosine(int32_t piece, int32_t other) const;

 private:
  std::vector<uint8_t> known_, loaded_;
  std::vector<PieceNeighborList> lists_;
};

}  // namespace vesper
