// Piece matching without the model's table: per vocabulary piece, its
// nearest pieces among those a corpus holds (cosine of the model's rows),
// the K best, and the cosine to assume for any other piece. A split index
// (core/collection/split.h) serves these lists in fragments by piece id, so
// a query downloads the lists of its own few pieces, not the rows of every
// piece its candidate passages hold (on a 10,000-page site, most of the
// table). Piece matching's score is a mean of best cosines per query piece
// (core/search/piece_match.h): a passage holding one of the piece's
// neighbours scores that neighbour's cosine, as with the rows; one holding
// none scores the assumed cosine: an estimate of the best cosine a set of
// that many unrelated pieces reaches by chance (the piece's cosine at rank
// known / (size + 1) among all the corpus's pieces), per set size, where the rows
// would give the exact, similar, value.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace vesper {

class StaticModel;

struct PieceNeighbor {
  int32_t id = 0;
  float cosine = 0.f;
};

// Floors for sets of 1, 2, 4, ... 2^(kFloorSizes-1) pieces; a set's size
// reads the nearest power of two (a passage holds tens to hundreds of
// pieces, a heading a few).
inline constexpr size_t kFloorSizes = 10;

struct PieceNeighborList {
  std::vector<PieceNeighbor> nearest;  // by id, strictly increasing
  float floors[kFloorSizes] = {};      // the cosine assumed for a piece not listed, per set size
  float Floor(size_t set_size) const;
};

// For every vocabulary piece whose row is not zero: its `k` nearest among
// `known` (sorted distinct ids, rows held), and its floors. Every row must
// be held. Pieces of a zero row get an empty list. `progress` (optional)
// hears (pieces done, pieces) now and then: a large site takes tens of seconds.
using NeighborProgress = std::function<void(size_t done, size_t total)>;
std::vector<PieceNeighborList> NearestPieces(const StaticModel& model, const std::vector<int32_t>& known, size_t k,
                                             const NeighborProgress& progress = {});

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

 private:
  std::vector<uint8_t> known_, loaded_;
  std::vector<PieceNeighborList> lists_;
};

}  // namespace vesper
