// Little-endian byte buffers: the only "I/O" the core does. Readers never
// read past the end; running out is a kCorruptData error, not a crash.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/util/error.h"

namespace vesper {

using Bytes = std::vector<uint8_t>;

// Writes into a byte buffer, or (with a sink) passes the bytes on in
// pieces of about kSinkPiece, holding no more than one piece: what a large
// pack is streamed through, to a file or a checksum, without being held whole.
class ByteWriter {
 public:
  using Sink = std::function<void(const uint8_t* data, size_t size)>;
  static constexpr size_t kSinkPiece = size_t{1} << 18;

  explicit ByteWriter(Bytes& out) : out_(out) {}
  explicit ByteWriter(Sink sink) : out_(piece_), sink_(std::move(sink)) { piece_.reserve(kSinkPiece + 64); }
  ByteWriter(const ByteWriter&) = delete;
  ByteWriter& operator=(const ByteWriter&) = delete;

  void u8(uint8_t v) {
    out_.push_back(v);
    Spill();
  }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void f32(float v) { raw(&v, 4); }
  void f64(double v) { raw(&v, 8); }
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  // LEB128: small numbers (gaps between sorted ids, counts) in one or two bytes.
  void varint(uint32_t v) {
    for (; v >= 0x80; v >>= 7) u8(static_cast<uint8_t>(v | 0x80));
    u8(static_cast<uint8_t>(v));
  }
  void raw(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    if (sink_ && n >= kSinkPiece) {  // a large block goes on as it is
      Flush();
      sink_(p, n);
      passed_ += n;
      return;
    }
    out_.insert(out_.end(), p, p + n);
    Spill();
  }
  // Bytes written so far (passed on included).
  size_t size() const { return passed_ + out_.size(); }
  // Passes on what is held (a sink writer, which must be flushed at its
  // end; nothing to do for a buffer).
  void Flush() {
    if (!sink_ || piece_.empty()) return;
    sink_(piece_.data(), piece_.size());
    passed_ += piece_.size();
    piece_.clear();
  }
  // Patches a u32 written earlier (e.g. a length or checksum placeholder); buffer writers only.
  void patch_u32(size_t at, uint32_t v) { std::memcpy(out_.data() + at, &v, 4); }
  void patch_u64(size_t at, uint64_t v) { std::memcpy(out_.data() + at, &v, 8); }

 private:
  void Spill() {
    if (sink_ && piece_.size() >= kSinkPiece) Flush();
  }
  Bytes piece_;  // a sink writer's piece not yet passed on
  Bytes& out_;
  Sink sink_;
  size_t passed_ = 0;
};

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size, std::string what)
      : p_(data), end_(data + size), what_(std::move(what)) {}

  uint8_t u8() { uint8_t v; raw(&v, 1); return v; }
  uint32_t u32() { uint32_t v; raw(&v, 4); return v; }
  uint64_t u64() { uint64_t v; raw(&v, 8); return v; }
  float f32() { float v; raw(&v, 4); return v; }
  double f64() { double v; raw(&v, 8); return v; }
  std::string str() {
    uint32_t n = u32();
    need(n);
    std::string s(reinterpret_cast<const char*>(p_), n);
    p_ += n;
    return s;
  }
  uint32_t varint() {
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
      const uint8_t b = u8();
      if (shift == 28 && b > 0x0F) fail("varint overflows 32 bits");
      v |= uint32_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return v;
    }
    fail("varint longer than 5 bytes");
  }
  void raw(void* dst, size_t n) {
    need(n);
    if (n) std::memcpy(dst, p_, n);  // an empty section may come with no buffer at all
    p_ += n;
  }
  const uint8_t* take(size_t n) {
    need(n);
    const uint8_t* at = p_;
    p_ += n;
    return at;
  }
  // Guards element counts read from the buffer before anything is allocated,
  // so a corrupt count cannot ask for gigabytes.
  uint64_t count(uint64_t min_bytes_each) {
    uint64_t n = u64();
    if (min_bytes_each && n > remaining() / min_bytes_each) fail("element count exceeds the data present");
    return n;
  }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }
  // Where the next read starts: what a caller keeping a validated span as it is measures from.
  const uint8_t* position() const { return p_; }
  bool done() const { return p_ == end_; }
  [[noreturn]] void fail(const std::string& why) const {
    throw Error(ErrorCode::kCorruptData, what_ + ": " + why);
  }

 private:
  void need(size_t n) const {
    if (n > remaining()) fail("unexpected end of data");
  }
  const uint8_t* p_;
  const uint8_t* end_;
  std::string what_;
};

}  // namespace vesper
