#include "core/embed/static_model.h"

#include <algorithm>
#include <limits>

#include <cmath>
#include <cstring>

#include "core/index/dot.h"
#include "core/index/quantize.h"
#include "core/util/bytes.h"
#include "core/util/checksum.h"
#include "core/util/error.h"

namespace vesper {

namespace {

constexpr char kRowSetMagic[4] = {'V', 'R', 'O', 'W'};
constexpr uint32_t kRowSetVersion = 1;
constexpr size_t kRowSetHeaderBytes = 4 + 6 * 4;
constexpr uint32_t kMaxDims = 65536;

uint64_t RowBytesOf(uint32_t dtype, uint64_t dims) { return dtype == 0 ? dims * 4 : dtype == 1 ? 4 + dims : 0; }

struct RowSetHeader {
  uint32_t vocab, dims, dtype, table_id, count;
};

// Framing, checksum and shape of a row set; leaves `r` at its first id.
RowSetHeader ReadRowSetHeader(std::string_view bytes, ByteReader& r) {
  char magic[4];
  r.raw(magic, 4);
  if (std::memcmp(magic, kRowSetMagic, 4) != 0) r.fail("not a vesper row set (bad magic bytes)");
  const uint32_t version = r.u32();
  if (version != kRowSetVersion) throw Error(ErrorCode::kUnsupported, "row set version " + std::to_string(version) + " is not supported");
  RowSetHeader h{r.u32(), r.u32(), r.u32(), r.u32(), r.u32()};
  const uint64_t row_bytes = RowBytesOf(h.dtype, h.dims);
  if (!row_bytes || h.dims == 0 || h.dims > kMaxDims || h.vocab == 0) r.fail("implausible row set shape");
  if (h.count > h.vocab) r.fail("more rows than the vocabulary holds");
  // In 64 bits, so a crafted count cannot wrap the size on wasm32.
  const uint64_t expected = kRowSetHeaderBytes + uint64_t{h.count} * (4 + row_bytes) + 4;
  if (bytes.size() != expected) r.fail("size does not match its row count (" + std::to_string(bytes.size()) + " bytes, " + std::to_string(expected) + " expected)");
  uint32_t stored;
  std::memcpy(&stored, bytes.data() + bytes.size() - 4, 4);
  if (Crc32(bytes.data(), bytes.size() - 4) != stored) r.fail("checksum mismatch");
  return h;
}

}  // namespace

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
  if (m->vocab_ == 0 || m->dims_ == 0 || m->dims_ > kMaxDims) r.fail("implausible table shape");
  const uint64_t row_bytes = RowBytesOf(dtype, m->dims_);
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
  m->Allocate(dtype);
  for (size_t v = 0; v < m->vocab_; ++v) m->ReadRow(r, v);
  m->table_id_ = Crc32(bytes.data(), bytes.size());
  return m;
}

std::unique_ptr<StaticModel> StaticModel::Sparse(uint32_t vocab, uint32_t dims) {
  if (vocab == 0 || dims == 0 || dims > kMaxDims) throw Error(ErrorCode::kInvalidArgument, "implausible model shape");
  if (uint64_t{vocab} * dims > std::numeric_limits<size_t>::max() / sizeof(float)) throw Error(ErrorCode::kInvalidArgument, "table too large for this build");
  auto m = std::make_unique<StaticModel>();
  m->vocab_ = vocab;
  m->dims_ = dims;
  m->present_.assign(vocab, 0);
  m->norms_.assign(vocab, 0.f);
  return m;
}

void StaticModel::Allocate(uint32_t dtype) {
  dtype_ = dtype;
  dtype_known_ = true;
  if (dtype == 0) {
    table_.assign(vocab_ * dims_, 0.f);
  } else {
    codes_.assign(vocab_ * dims_, 0);
    scales_.assign(vocab_, 0.f);
  }
  present_.assign(vocab_, 0);
  norms_.assign(vocab_, 0.f);
}

// One row from a table or a row set; a non-finite value is refused.
void StaticModel::ReadRow(ByteReader& r, size_t id) {
  if (dtype_ == 0) {
    float* row = table_.data() + id * dims_;
    r.raw(row, dims_ * 4);
    for (size_t d = 0; d < dims_; ++d) if (!std::isfinite(row[d])) r.fail("table holds a non-finite value");
  } else {
    scales_[id] = r.f32();
    if (!std::isfinite(scales_[id])) r.fail("table holds a non-finite value");
    r.raw(codes_.data() + id * dims_, dims_);
  }
  if (!present_[id]) ++held_;
  present_[id] = 1;
  SetNorm(id);
}

// As the decoded row's own dot product, so piece-matching scores do not
// depend on whether the row came with the table or later.
void StaticModel::SetNorm(size_t id) {
  scratch_.resize(dims_);
  Row(id, scratch_.data());
  norms_[id] = std::sqrt(Dot(scratch_.data(), scratch_.data(), dims_));
}

uint32_t StaticModel::CheckRowSet(std::string_view bytes) {
  ByteReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "row set");
  return ReadRowSetHeader(bytes, r).count;
}

void StaticModel::AddRows(std::string_view bytes) {
  ByteReader r(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size(), "row set");
  const RowSetHeader h = ReadRowSetHeader(bytes, r);
  if (h.vocab != vocab_ || h.dims != dims_ || (dtype_known_ && (h.dtype != dtype_ || h.table_id != table_id_))) {
    throw Error(ErrorCode::kModelMismatch, "these model rows belong to another table than the model loaded (" + std::to_string(h.vocab) + " x " +
                                               std::to_string(h.dims) + "): reload the model");
  }
  std::vector<uint32_t> ids(h.count);
  for (uint32_t i = 0; i < h.count; ++i) {
    ids[i] = r.u32();
    if (ids[i] >= vocab_ || (i && ids[i] <= ids[i - 1])) r.fail("row ids out of order or outside the vocabulary");
  }
  // Every row checked, on a second reader over them, before the first is
  // kept, so a bad set adds nothing.
  ByteReader check = r;
  for (uint32_t i = 0; i < h.count; ++i) {
    const size_t floats = h.dtype == 0 ? dims_ : 1;  // a float row, or an int8 row's scale
    for (size_t f = 0; f < floats; ++f) if (!std::isfinite(check.f32())) r.fail("a row holds a non-finite value");
    if (h.dtype != 0) check.take(dims_);
  }
  if (!dtype_known_) {
    Allocate(h.dtype);
    table_id_ = h.table_id;
  }
  for (uint32_t id : ids) {
    if (present_[id]) r.take(RowBytesOf(dtype_, dims_));  // the same table: nothing to change
    else ReadRow(r, id);
  }
}

void StaticModel::AddTable(std::string_view bytes) {
  std::unique_ptr<StaticModel> whole = FromBytes(bytes);
  if (whole->vocab_ != vocab_ || whole->dims_ != dims_ || (dtype_known_ && (whole->dtype_ != dtype_ || whole->table_id_ != table_id_))) {
    throw Error(ErrorCode::kModelMismatch, "this table is not the one the model's rows came from: reload the model");
  }
  // In place: collections hold this object through their piece matchers.
  *this = std::move(*whole);
}

std::vector<uint8_t> StaticModel::RowSet(const std::vector<int32_t>& ids) const {
  for (size_t i = 0; i < ids.size(); ++i) {
    if (ids[i] < 0 || !Has(static_cast<size_t>(ids[i])) || (i && ids[i] <= ids[i - 1])) {
      throw Error(ErrorCode::kInvalidArgument, "a row set needs sorted, distinct ids of rows the model holds");
    }
  }
  Bytes out;
  ByteWriter w(out);
  w.raw(kRowSetMagic, 4);
  for (uint32_t v : {kRowSetVersion, static_cast<uint32_t>(vocab_), static_cast<uint32_t>(dims_), dtype_, table_id_,
                     static_cast<uint32_t>(ids.size())}) {
    w.u32(v);
  }
  for (int32_t id : ids) w.u32(static_cast<uint32_t>(id));
  for (int32_t id : ids) {
    if (dtype_ == 0) {
      w.raw(table_.data() + id * dims_, dims_ * 4);
    } else {
      w.f32(scales_[id]);
      w.raw(codes_.data() + id * dims_, dims_);
    }
  }
  w.u32(Crc32(out.data(), out.size()));
  return out;
}

void StaticModel::Require(const int32_t* ids, size_t n) const {
  if (held_ == vocab_) return;
  std::vector<int32_t> missing;
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] >= 0 && static_cast<size_t>(ids[i]) < vocab_ && !present_[ids[i]]) missing.push_back(ids[i]);
  }
  if (missing.empty()) return;
  std::sort(missing.begin(), missing.end());
  missing.erase(std::unique(missing.begin(), missing.end()), missing.end());
  throw MissingRows(std::move(missing));
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

namespace {

void AddRow(float* __restrict out, const float* __restrict row, size_t n) {
  for (size_t d = 0; d < n; ++d) out[d] += row[d];
}

}  // namespace

void StaticModel::Embed(const int32_t* ids, size_t n, float* out) const {
  for (size_t i = 0; i < n; ++i) {
    if (ids[i] < 0 || static_cast<size_t>(ids[i]) >= vocab_) {
      throw Error(ErrorCode::kInvalidArgument, "token id " + std::to_string(ids[i]) + " is outside the model's vocabulary (" +
                                                   std::to_string(vocab_) + ")");
    }
  }
  Require(ids, n);
  std::fill(out, out + dims_, 0.f);
  for (size_t i = 0; i < n; ++i) {
    const size_t id = static_cast<size_t>(ids[i]);
    if (codes_.empty()) AddRow(out, table_.data() + id * dims_, dims_);
    else AddScaledInt8(out, codes_.data() + id * dims_, dims_, scales_[id]);
  }
  if (Normalize(out, dims_) <= 0.f) throw Error(ErrorCode::kInvalidArgument, "the text has no token the model knows");
}

}  // namespace vesper
