#include "core/search/piece_neighbors.h"

#include <algorithm>
#include <numeric>

#include "core/embed/static_model.h"
#include "core/index/dot.h"
#include "core/util/error.h"

namespace vesper {
namespace {

// Query pieces scored together against one tile of known rows: the tile
// stays in cache while every piece of the block reads it, so the known
// matrix (megabytes) is streamed once per block, not once per piece.
constexpr size_t kBlockPieces = 32;
constexpr size_t kTileRows = 512;

// Unit rows of `ids`, one after another.
std::vector<float> UnitRows(const StaticModel& model, const std::vector<int32_t>& ids) {
  const size_t dims = model.dims();
  std::vector<float> rows(ids.size() * dims);
  for (size_t i = 0; i < ids.size(); ++i) {
    model.Row(static_cast<size_t>(ids[i]), rows.data() + i * dims);
    Normalize(rows.data() + i * dims, dims);
  }
  return rows;
}

// One piece's list from its cosines with every known piece (`order` and
// `spare`: scratch of the same length).
PieceNeighborList Select(const float* cosines, const std::vector<int32_t>& known, size_t keep, size_t floor_rank,
                         std::vector<uint32_t>& order, std::vector<float>& spare) {
  const size_t n = known.size();
  std::iota(order.begin(), order.end(), 0u);
  auto closer = [cosines](uint32_t a, uint32_t b) { return cosines[a] != cosines[b] ? cosines[a] > cosines[b] : a < b; };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep - 1), order.end(), closer);
  PieceNeighborList list;
  for (size_t i = 0; i < keep; ++i) list.nearest.push_back({known[order[i]], cosines[order[i]]});
  std::sort(list.nearest.begin(), list.nearest.end(), [](const PieceNeighbor& a, const PieceNeighbor& b) { return a.id < b.id; });
  std::copy_n(cosines, n, spare.begin());
  std::nth_element(spare.begin(), spare.begin() + static_cast<std::ptrdiff_t>(floor_rank), spare.end(), std::greater<float>());
  list.floor = std::max(0.f, spare[floor_rank]);
  return list;
}

}  // namespace

std::vector<PieceNeighborList> NearestPieces(const StaticModel& model, const std::vector<int32_t>& known, size_t k,
                                             size_t passage_pieces) {
  const size_t dims = model.dims(), n = known.size(), vocab = model.vocab();
  std::vector<PieceNeighborList> out(vocab);
  if (n == 0 || k == 0) return out;
  if (model.held() < vocab) throw Error(ErrorCode::kInvalidArgument, "nearest pieces need the model's whole table");
  std::vector<int32_t> pieces;  // every piece of a non-zero row
  for (size_t id = 0; id < vocab; ++id) {
    if (model.Norm(id) > 0.f) pieces.push_back(static_cast<int32_t>(id));
  }
  const std::vector<float> rows = UnitRows(model, known);
  const size_t keep = std::min(k, n);
  const size_t floor_rank = std::min(n - 1, passage_pieces ? n / passage_pieces : size_t{0});
  std::vector<float> cosines(kBlockPieces * n), spare(n);
  std::vector<uint32_t> order(n);
  for (size_t begin = 0; begin < pieces.size(); begin += kBlockPieces) {
    const size_t count = std::min(kBlockPieces, pieces.size() - begin);
    const std::vector<float> block = UnitRows(model, std::vector<int32_t>(pieces.begin() + begin, pieces.begin() + begin + count));
    for (size_t tile = 0; tile < n; tile += kTileRows) {
      const size_t rows_in_tile = std::min(kTileRows, n - tile);
      for (size_t i = 0; i < count; ++i) {
        DotRows(block.data() + i * dims, rows.data() + tile * dims, rows_in_tile, dims, cosines.data() + i * n + tile);
      }
    }
    for (size_t i = 0; i < count; ++i) {
      out[static_cast<size_t>(pieces[begin + i])] = Select(cosines.data() + i * n, known, keep, floor_rank, order, spare);
    }
  }
  return out;
}

PieceNeighbors::PieceNeighbors(std::vector<uint8_t> known)
    : known_(std::move(known)), loaded_(known_.size(), 0), lists_(known_.size()) {}

void PieceNeighbors::Set(int32_t piece, PieceNeighborList list) {
  lists_[static_cast<size_t>(piece)] = std::move(list);
  loaded_[static_cast<size_t>(piece)] = 1;
}

float PieceNeighbors::Cosine(int32_t piece, int32_t other) const {
  if (piece == other) return 1.f;
  const PieceNeighborList& list = lists_[static_cast<size_t>(piece)];
  auto it = std::lower_bound(list.nearest.begin(), list.nearest.end(), other,
                             [](const PieceNeighbor& a, int32_t id) { return a.id < id; });
  return it != list.nearest.end() && it->id == other ? it->cosine : list.floor;
}

}  // namespace vesper
