#include "core/index/vector_store.h"

#include <algorithm>
#include <cmath>

#include "core/index/dot.h"
#include "core/index/quantize.h"

namespace vesper {

constexpr size_t kBinaryPoolDivisor = 100;  // pool >= 1 in this many stored vectors

const char* VectorFormatName(VectorFormat f) {
  switch (f) {
    case VectorFormat::kFloat32: return "float32";
    case VectorFormat::kInt8: return "int8";
    case VectorFormat::kBinary: return "binary";
  }
  return "unknown";
}

VectorFormat ParseVectorFormat(const std::string& name) {
  if (name == "float32") return VectorFormat::kFloat32;
  if (name == "int8") return VectorFormat::kInt8;
  if (name == "binary") return VectorFormat::kBinary;
  throw Error(ErrorCode::kInvalidArgument, "vector format must be float32, int8 or binary, not '" + name + "'");
}

VectorStore::VectorStore(size_t dims, VectorFormat format) : dims_(dims), format_(format) {}

size_t VectorStore::bytes_per_vector() const {
  switch (format_) {
    case VectorFormat::kFloat32: return 4 * dims_;
    case VectorFormat::kInt8: return dims_ + 4;
    case VectorFormat::kBinary: return 8 * BinaryWords(dims_) + 4 * dims_;
  }
  return 0;
}

VectorRows VectorStore::Rows() const {
  VectorRows rows;
  rows.format = format_;
  rows.dims = dims_;
  rows.count = alive_.size();
  if (format_ == VectorFormat::kInt8) {
    rows.codes = codes();
    rows.scales = scales_.data();
  } else {
    rows.floats = data_.data();
  }
  return rows;
}

uint32_t VectorStore::Add(const float* v) {
  if (dims_ == 0) throw Error(ErrorCode::kInvalidArgument, "vector store has no dimensions");
  if (format_ == VectorFormat::kInt8) {
    OwnCodes();
    size_t at = codes_.size();
    codes_.resize(at + dims_);
    scales_.push_back(QuantizeInt8(v, dims_, codes_.data() + at));
  } else {
    data_.insert(data_.end(), v, v + dims_);
    if (format_ == VectorFormat::kBinary) {
      size_t at = bits_.size();
      bits_.resize(at + BinaryWords(dims_));
      SignBits(v, dims_, bits_.data() + at);
    }
  }
  alive_.push_back(1);
  ++alive_count_;
  return static_cast<uint32_t>(alive_.size() - 1);
}

void VectorStore::ToInt8() {
  if (format_ != VectorFormat::kFloat32) throw Error(ErrorCode::kInvalidArgument, "only float32 vectors turn int8");
  const size_t n = alive_.size();
  codes_.resize(n * dims_);
  scales_.resize(n);
  for (size_t i = 0; i < n; ++i) scales_[i] = QuantizeInt8(data_.data() + i * dims_, dims_, codes_.data() + i * dims_);
  std::vector<float>().swap(data_);  // the floats' memory goes back now
  format_ = VectorFormat::kInt8;
}

void VectorStore::OwnCodes() {
  if (!in_place_codes_) return;
  codes_.assign(in_place_codes_, in_place_codes_ + alive_.size() * dims_);
  in_place_codes_ = nullptr;
  owner_.reset();
}

void VectorStore::Remove(uint32_t label) {
  if (!alive(label)) throw Error(ErrorCode::kNotFound, "vector " + std::to_string(label) + " is not stored");
  alive_[label] = 0;
  --alive_count_;
}

void DecodeRow(const VectorRows& rows, size_t label, float* out) {
  if (rows.format == VectorFormat::kInt8) {
    const int8_t* c = rows.codes + label * rows.dims;
    for (size_t d = 0; d < rows.dims; ++d) out[d] = rows.scales[label] * c[d];
  } else {
    const float* v = rows.floats + label * rows.dims;
    std::copy(v, v + rows.dims, out);
  }
}

void VectorStore::Decode(uint32_t label, float* out) const { DecodeRow(Rows(), label, out); }

float VectorStore::Score(const float* query, uint32_t label) const {
  if (format_ == VectorFormat::kInt8) {
    return DotInt8(query, codes() + static_cast<size_t>(label) * dims_, dims_, scales_[label]);
  }
  return Dot(query, data_.data() + static_cast<size_t>(label) * dims_, dims_);
}

void VectorStore::Search(const float* query, size_t k, float threshold, std::vector<Hit>& out,
                         const std::vector<uint8_t>* allowed) const {
  if (format_ == VectorFormat::kBinary) return SearchBinary(query, k, threshold, out, allowed);
#if defined(__wasm_simd128__)
  // WASM has no cheap int8 -> float path, but has an integer dot product:
  // scan with the query in int16, keep a few spare candidates, then score
  // those exactly, so results equal the float path's (and native's).
  const bool integer_scan = format_ == VectorFormat::kInt8;
#else
  const bool integer_scan = false;
#endif
  float q_scale = 0.f;
  if (integer_scan) {
    query_i16_.resize(dims_);
    q_scale = QuantizeQueryInt16(query, dims_, query_i16_.data());
  }
  const size_t pool = integer_scan ? k + 8 : k;
  const float bar = integer_scan ? threshold - 1e-3f : threshold;
  top_.Reset(pool);
  constexpr size_t kBlock = 256;
  if (scores_.size() < kBlock) scores_.resize(kBlock);
  const size_t n = alive_.size();
  const int8_t* code_rows = codes();  // owned or read in place: looked up once, not per row
  for (size_t start = 0; start < n; start += kBlock) {
    size_t count = std::min(kBlock, n - start);
    if (format_ == VectorFormat::kFloat32) {
      DotRows(query, data_.data() + start * dims_, count, dims_, scores_.data());
    } else if (integer_scan) {
      for (size_t i = 0; i < count; ++i) {
        scores_[i] = static_cast<float>(DotInt8Int16(query_i16_.data(), code_rows + (start + i) * dims_, dims_)) *
                     q_scale * scales_[start + i];
      }
    } else {
      for (size_t i = 0; i < count; ++i) {
        scores_[i] = DotInt8(query, code_rows + (start + i) * dims_, dims_, scales_[start + i]);
      }
    }
    for (size_t i = 0; i < count; ++i) {
      float s = scores_[i];
      if (s >= bar && alive_[start + i] && s > top_.floor() && (!allowed || (*allowed)[start + i])) {
        top_.Push(static_cast<uint32_t>(start + i), s);
      }
    }
  }
  top_.TakeSorted(out);
  if (!integer_scan) return;
  rescore_.Reset(k);
  for (const Hit& h : out) {
    float s = DotInt8(query, code_rows + static_cast<size_t>(h.label) * dims_, dims_, scales_[h.label]);
    if (s >= threshold) rescore_.Push(h.label, s);
  }
  rescore_.TakeSorted(out);
}

// Sign codes find candidates (fewest differing bits, as a negated score),
// then the full-precision vectors decide.
void VectorStore::SearchBinary(const float* query, size_t k, float threshold, std::vector<Hit>& out,
                               const std::vector<uint8_t>* allowed) const {
  const size_t words = BinaryWords(dims_);
  query_bits_.resize(words);
  SignBits(query, dims_, query_bits_.data());
  // Hamming ranks only coarsely, and the more vectors, the more of them tie
  // with the true neighbours: the candidate pool grows with the store.
  const size_t pool = std::max({k * rescore_factor_, size_t{64}, alive_count_ / kBinaryPoolDivisor});
  top_.Reset(pool);
  for (size_t i = 0; i < alive_.size(); ++i) {
    if (!alive_[i] || (allowed && !(*allowed)[i])) continue;
    float s = -static_cast<float>(Hamming(query_bits_.data(), bits_.data() + i * words, words));
    if (s > top_.floor()) top_.Push(static_cast<uint32_t>(i), s);
  }
  top_.TakeSorted(out);
  rescore_.Reset(k);
  for (const Hit& h : out) {
    float s = Dot(query, data_.data() + static_cast<size_t>(h.label) * dims_, dims_);
    if (s >= threshold) rescore_.Push(h.label, s);
  }
  rescore_.TakeSorted(out);
}

void VectorStore::Save(ByteWriter& w) const {
  w.u32(static_cast<uint32_t>(dims_));
  w.u32(static_cast<uint32_t>(format_));
  w.u64(alive_.size());
  w.raw(alive_.data(), alive_.size());
  if (format_ == VectorFormat::kInt8) {
    w.raw(scales_.data(), scales_.size() * sizeof(float));
    w.raw(codes(), alive_.size() * dims_);
  } else {
    w.raw(data_.data(), data_.size() * sizeof(float));
  }
}

VectorStore VectorStore::Load(ByteReader& r, std::shared_ptr<const void> owner) {
  size_t dims = r.u32();
  if (dims == 0 || dims > 65536) r.fail("implausible vector dimensions " + std::to_string(dims));
  uint32_t format = r.u32();
  if (format > 2) r.fail("unknown vector format " + std::to_string(format));
  VectorStore s(dims, static_cast<VectorFormat>(format));
  uint64_t n = r.count(1 + (format == 1 ? dims + 4 : 4 * dims));
  s.alive_.resize(n);
  r.raw(s.alive_.data(), n);
  for (uint8_t a : s.alive_) {
    if (a > 1) r.fail("bad live flag in vector store");
    s.alive_count_ += a;
  }
  if (s.format_ == VectorFormat::kInt8) {
    s.scales_.resize(n);
    r.raw(s.scales_.data(), n * sizeof(float));
    if (owner) {
      s.in_place_codes_ = reinterpret_cast<const int8_t*>(r.take(n * dims));
      s.owner_ = std::move(owner);
    } else {
      s.codes_.resize(n * dims);
      r.raw(s.codes_.data(), s.codes_.size());
    }
    for (float x : s.scales_) if (!std::isfinite(x) || x <= 0.f) r.fail("bad int8 scale");
  } else {
    s.data_.resize(n * dims);
    r.raw(s.data_.data(), s.data_.size() * sizeof(float));
    for (float x : s.data_) if (!std::isfinite(x)) r.fail("vector store holds a non-finite value");
    if (s.format_ == VectorFormat::kBinary) {
      // Sign codes are derived data: rebuilt, not stored.
      const size_t words = BinaryWords(dims);
      s.bits_.resize(n * words);
      for (size_t i = 0; i < n; ++i) SignBits(s.data_.data() + i * dims, dims, s.bits_.data() + i * words);
    }
  }
  return s;
}

}  // namespace vesper
