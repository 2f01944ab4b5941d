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
constexpr size_t kProgressBlocks = 16;  // blocks between two progress reports

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
PieceNeighborList Select(const float* cosines, const std::vector<int32_t>& known, size_t keep,
                         std::vector<uint32_t>& order, std::vector<float>& spare) {
  const size_t n = known.size();
  std::iota(order.begin(), order.end(), 0u);
  auto closer = [cosines](uint32_t a, uint32_t b) { return cosines[a] != cosines[b] ? cosines[a] > cosines[b] : a < b; };
  std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(keep - 1), order.end(), closer);
  PieceNeighborList list;
  for (size_t i = 0; i < keep; ++i) list.nearest.push_back({known[order[i]], cosines[order[i]]});
  std::sort(list.nearest.begin(), list.nearest.end(), [](const PieceNeighbor& a, const PieceNeighbor& b) { return a.id < b.id; });
  // A piece not listed is no closer than the last listed one; with every
  // known piece listed there is none.
  const float ceiling = keep == n ? 0.f : std::max(0.f, cosines[order[keep - 1]]);
  // The best of s pieces drawn at random sits near rank n / (s + 1). Largest
  // sets first (smallest ranks): each nth_element leaves the next rank in
  // the range past it.
  std::copy_n(cosines, n, spare.begin());
  auto begin = spare.begin();
  for (size_t j = kFloorSizes; j-- > 0;) {
    const auto at = spare.begin() + static_cast<std::ptrdiff_t>(std::min(n - 1, n / ((size_t{1} << j) + 1)));
    if (at >= begin) std::nth_element(begin, at, spare.end(), std::greater<float>());
    list.floors[j] = std::clamp(*at, 0.f, ceiling);
    begin = at + 1;
  }
  return list;
}

}  // namespace

std::vector<PieceNeighborList> NearestPieces(const StaticModel& model, const std::vector<int32_t>& known, size_t k,
                                             const NeighborProgress& progress) {
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
      out[static_cast<size_t>(pieces[begin + i])] = Select(cosines.data() + i * n, known, keep, order, spare);
    }
    if (progress && (begin / kBlockPieces) % kProgressBlocks == 0) progress(begin + count, pieces.size());
  }
  if (progress) progress(pieces.size(), pieces.size());
  return out;
}

PieceNeighbors::PieceNeighbors(std::vector<uint8_t> known)
    : known_(std::move(known)), loaded_(known_.size(), 0), lists_(known_.size()) {}

void PieceNeighbors::Set(int32_t piece, PieceNeighborList list) {
  lists_[static_cast<size_t>(piece)] = std::move(list);
  loaded_[static_cast<size_t>(piece)] = 1;
}

float PieceNeighborList::Floor(size_t set_size) const {
  size_t j = 0;
  // The nearest power of two in ratio: sizes up to 1.5 * 2^j read 2^j.
  while (j + 1 < kFloorSizes && 2 * set_size > 3 * (size_t{1} << j)) ++j;
  return floors[j];
}

}  // namespace vesper
