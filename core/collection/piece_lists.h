// What piece matching scores each passage by: per chunk slot, the distinct
// piece ids of its text and of its own heading, sorted. Held as the pack's
// pieces section stores them (a count, then LEB128 gaps between ids), in one
// buffer: a large collection's lists cost their encoded bytes (about two a
// piece) instead of four a piece plus two allocations a passage, and loading
// a pack validates its section and keeps it as it is, decoding nothing.
#pragma once
#include <cstdint>
#include <vector>

#include "core/util/bytes.h"

namespace vesper {

class PieceLists {
 public:
  PieceLists();

  size_t slots() const { return offsets_.size() / 2; }
  // A slot's lists (a slot past the end grows them, the slots between empty).
  // The old encoding stays in the buffer: a removed or replaced passage is
  // rare next to the passages added.
  void Set(uint32_t slot, const std::vector<int32_t>& text, const std::vector<int32_t>& title);
  void Clear(uint32_t slot);
  // At least `slots` slots, the new ones empty.
  void Grow(size_t slots) {
    if (slots > this->slots()) offsets_.resize(2 * slots, kEmptyList);
  }
  // Decoded into `out` (a caller's scratch: no allocation once it is large enough).
  void Text(uint32_t slot, std::vector<int32_t>& out) const { Decode(At(slot, 0), out); }
  void Title(uint32_t slot, std::vector<int32_t>& out) const { Decode(At(slot, 1), out); }
  // Calls f(id) for each id of the slot's text list (and its heading's).
  template <typename F>
  void ForEach(uint32_t slot, bool with_title, F&& f) const {
    for (int list = 0; list < (with_title ? 2 : 1); ++list) {
      const uint8_t* p = At(slot, list);
      const uint32_t n = Next(p);
      for (uint32_t i = 0, id = 0; i < n; ++i, ++id) f(static_cast<int32_t>(id += Next(p)));
    }
  }

  // One list as the section stores it (a count, then LEB128 gaps between
  // the sorted ids), appended to w: what a spilled build writes per slot.
  static void Encode(ByteWriter& w, const std::vector<int32_t>& ids);

  // The pack section's lists, slot by slot (text then heading), `alive`
  // saying which slots hold a passage: the others are written empty.
  void Save(ByteWriter& w, const std::vector<uint8_t>& alive) const;
  // Reads and validates `slots` slots' lists (ids below `vocab`; none for a
  // slot `alive` says is removed), keeping their bytes.
  static PieceLists Load(ByteReader& r, size_t slots, uint32_t vocab, const std::vector<uint8_t>& alive);

 private:
  // Trusted bytes (written here or validated by Load): LEB128 without bounds checks.
  static uint32_t Next(const uint8_t*& p) {
    uint32_t v = 0;
    for (int shift = 0;; shift += 7) {
      const uint8_t b = *p++;
      v |= uint32_t{b & 0x7Fu} << shift;
      if (!(b & 0x80)) return v;
    }
  }
  static void Decode(const uint8_t* p, std::vector<int32_t>& out);
  static size_t EncodedSize(const uint8_t* p);
  const uint8_t* At(uint32_t slot, int list) const { return bytes_.data() + offsets_[2 * size_t{slot} + list]; }
  void Append(const std::vector<int32_t>& ids);

  static constexpr uint32_t kEmptyList = 0;  // the offset of the empty list at the buffer's start
  Bytes bytes_;                    // byte 0: the empty list every empty slot points at
  std::vector<uint32_t> offsets_;  // per slot: its text list's and its heading's
};

}  // namespace vesper
