#include "core/embed/static_model.h"

#include <algorithm>
#include <limits>

#include <cmath>
#include <cstring>

#include "core/index/dot.h"
#include "core/index/quantize.h"
#include "core/util/bytes.h"
#include "core/util/error.h"

namespace vesper {

std::unique_ptr<StaticModel> StaticModel::FromBytes(std::string_view bytes) {
  ByteReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "static model");
  char magic[4];
  r.raw(magic, 4);
  if (std::memcmp(magic, "VSTM", 4) != 0) r.fail("not a vesper static model (bad magic bytes)");
  uint32_t version = r.u32();
  if (version != 1) throw Error(ErrorCode::kUnsupported, "static model version " + std::to_string(version) + " is not supported");
  auto m = std::make_unique<StaticModel>();
  m->vocab_ = r.u32();
  m->dims_ = r.u32();
  uint32_t dtype = r.u32();
  if (m->vocab_ == 0 || m->dims_ == 0 || m->dims_ > 65536) r.fail("implausible table shape");
  const uint64_t row_bytes = dtype == 0 ? uint64_t{m->dims_} * 4 : dtype == 1 ? 4 + uint64_t{m->dims_} : 0;
  if (!row_bytes) throw Error(ErrorCode::kUnsupported, "static model dtype " + std::to_string(dtype) + " is not supported");
  // In 64 bits: on wasm32 a crafted vocab x dims would wrap a size_t into a
  // small table that the rows below then overrun.
  const uint64_t expected = row_bytes * m->vocab_;
  if (r.remaining() < expected) {
    r.fail("truncated: the table of " + std::to_string(m->vocab_) + " x " + std::to_string(m->dims_) + " needs " +
           std::to_string(expected) + " bytes, the file has " + std::to_string(r.remaining()));
  }
  if (r.remaining() != expected) r.fail("table size does not match its shape (bytes left over at the end)");
  const uint64_t cells = uint64_t{m->vocab_} * m->dims_;
  if (cells > std::numeric_limits<size_t>::max() / sizeof(float)) r.fail("table too large for this build");
  if (dtype == 0) {
    m->table_.resize(static_cast<size_t>(cells));
    r.raw(m->table_.data(), m->table_.size() * 4);
    for (float x : m->table_) if (!std::isfinite(x)) r.fail("table holds a non-finite value");
  } else {
    m->codes_.resize(static_cast<size_t>(cells));
    m->scales_.resize(m->vocab_);
    for (size_t v = 0; v < m->vocab_; ++v) {
      m->scales_[v] = r.f32();
      if (!std::isfinite(m->scales_[v])) r.fail("table holds a non-finite value");
      r.raw(m->codes_.data() + v * m->dims_, m->dims_);
    }
  }
  return m;
}

void StaticModel::Row(size_t id, float* out) const {
  if (codes_.empty()) {
    std::copy_n(table_.data() + id * dims_, dims_, out);
    return;
  }
  const int8_t* codes = codes_.data() + id * dims_;
  for (size_t d = 0; d < dims_; ++d) out[d] = scales_[id] * codes[d];
}

float StaticModel::RowDot(const float* q, size_t id) const {
  if (codes_.empty()) return Dot(q, table_.data() + id * dims_, dims_);
  return DotInt8(q, codes_.data() + id * dims_, dims_, scales_[id]);
}

void StaticModel::Embed(const int32_t* ids, size_t n, float* out) const {
  std::fill(out, out + dims_, 0.f);
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab_) {
      throw Error(ErrorCode::kInvalidArgument, "token id " + std::to_string(ids[i]) + " is outside the model's vocabulary (" +
                                                   std::to_string(vocab_) + ")");
    }
    const size_t id = static_cast<size_t>(ids[i]);
    if (codes_.empty()) {
      const float* row = table_.data() + id * dims_;
      for (size_t d = 0; d < dims_; ++d) out[d] += row[d];
    } else {
      const int8_t* codes = codes_.data() + id * dims_;
      const float scale = scales_[id];
      for (size_t d = 0; d < dims_; ++d) out[d] += scale * codes[d];
    }
  }
  if (Normalize(out, dims_) <= 0.f) throw Error(ErrorCode::kInvalidArgument, "the text has no token the model knows");
}

}  // namespace vesper
