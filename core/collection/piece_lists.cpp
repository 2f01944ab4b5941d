#include "core/collection/piece_lists.h"

#include <limits>

#include "core/util/error.h"

namespace vesper {

PieceLists::PieceLists() : bytes_(1, 0) {}

void PieceLists::Encode(ByteWriter& w, const std::vector<int32_t>& ids) {
  w.varint(static_cast<uint32_t>(ids.size()));
  for (size_t i = 0; i < ids.size(); ++i) w.varint(static_cast<uint32_t>(ids[i]) - (i ? static_cast<uint32_t>(ids[i - 1]) + 1 : 0));
}

void PieceLists::Append(const std::vector<int32_t>& ids) {
  ByteWriter w(bytes_);
  Encode(w, ids);
}

void PieceLists::Set(uint32_t slot, const std::vector<int32_t>& text, const std::vector<int32_t>& title) {
  if (bytes_.size() > std::numeric_limits<uint32_t>::max() - 16 * (text.size() + title.size() + 2)) {
    throw Error(ErrorCode::kInvalidArgument, "piece lists past 4 GB");
  }
  if (slot >= slots()) offsets_.resize(2 * (size_t{slot} + 1), kEmptyList);
  offsets_[2 * size_t{slot}] = static_cast<uint32_t>(bytes_.size());
  Append(text);
  offsets_[2 * size_t{slot} + 1] = static_cast<uint32_t>(bytes_.size());
  Append(title);
}

void PieceLists::Clear(uint32_t slot) {
  if (slot < slots()) offsets_[2 * size_t{slot}] = offsets_[2 * size_t{slot} + 1] = kEmptyList;
}

void PieceLists::Decode(const uint8_t* p, std::vector<int32_t>& out) {
  const uint32_t n = Next(p);
  out.resize(n);
  for (uint32_t i = 0, id = 0; i < n; ++i, ++id) out[i] = static_cast<int32_t>(id += Next(p));
}

size_t PieceLists::EncodedSize(const uint8_t* p) {
  const uint8_t* start = p;
  const uint32_t n = Next(p);
  for (uint32_t i = 0; i < n; ++i) Next(p);
  return static_cast<size_t>(p - start);
}

void PieceLists::Save(ByteWriter& w, const std::vector<uint8_t>& alive) const {
  for (size_t slot = 0; slot < alive.size(); ++slot) {
    for (int list = 0; list < 2; ++list) {
      const uint8_t* p = slot < slots() && alive[slot] ? At(static_cast<uint32_t>(slot), list) : bytes_.data();
      w.raw(p, EncodedSize(p));
    }
  }
}

PieceLists PieceLists::Load(ByteReader& r, size_t slots, uint32_t vocab, const std::vector<uint8_t>& alive) {
  PieceLists out;
  out.offsets_.resize(2 * slots);
  const uint8_t* begin = r.position();
  for (size_t slot = 0; slot < slots; ++slot) {
    for (int list = 0; list < 2; ++list) {
      out.offsets_[2 * slot + list] = static_cast<uint32_t>(1 + (r.position() - begin));
      const uint32_t n = r.varint();
      if (n > r.remaining() || n > vocab) r.fail("piece count exceeds the data present");
      uint64_t next = 0;
      for (uint32_t i = 0; i < n; ++i) {
        next += r.varint();
        if (next >= vocab) r.fail("piece id outside the vocabulary");
        ++next;
      }
      if (n && !alive[slot]) r.fail("pieces for a removed chunk");
    }
  }
  const size_t size = static_cast<size_t>(r.position() - begin);
  if (size > std::numeric_limits<uint32_t>::max() - 1) r.fail("piece lists past 4 GB");
  out.bytes_.insert(out.bytes_.end(), begin, begin + size);
  return out;
}

}  // namespace vesper
