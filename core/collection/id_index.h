// A collection's live passages by chunk id, without a second copy of the ids.
//
// A hash map from id strings to labels held each id twice (the passage's own
// and the map's key) in a node of its own: about 60 bytes a passage on wasm32,
// 7 MB of a 121,000-passage build (bench/limits). This is an open-addressing
// table of labels only (4 bytes a slot, at most half full): a slot's id is
// read from the passage it names, through the caller's `id_of(label)`.
// Linear probing; removal shifts the run back, so no tombstones accumulate.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace vesper {

class IdIndex {
 public:
  // id_of(label) -> std::string_view: the id of a passage the index holds.
  template <typename IdOf>
  std::optional<uint32_t> Find(std::string_view id, const IdOf& id_of) const {
    if (slots_.empty()) return std::nullopt;
    for (size_t i = Home(id); slots_[i] != kEmpty; i = Next(i)) {
      if (id_of(slots_[i]) == id) return slots_[i];
    }
    return std::nullopt;
  }
  // Adds `label` under `id` unless the index holds that id already (then
  // false, nothing changed). id_of is read for the labels held, not for
  // `label`: its passage may be stored after.
  template <typename IdOf>
  bool Insert(std::string_view id, uint32_t label, const IdOf& id_of) {
    if (2 * (size_ + 1) > slots_.size()) Grow(id_of);
    size_t i = Home(id);
    for (; slots_[i] != kEmpty; i = Next(i)) {
      if (id_of(slots_[i]) == id) return false;
    }
    slots_[i] = label;
    ++size_;
    return true;
  }

  // Removes the id and returns its label; none when the index does not hold it.
  template <typename IdOf>
  std::optional<uint32_t> Erase(std::string_view id, const IdOf& id_of) {
    if (slots_.empty()) return std::nullopt;
    size_t hole = Home(id);
    while (slots_[hole] != kEmpty && id_of(slots_[hole]) != id) hole = Next(hole);
    if (slots_[hole] == kEmpty) return std::nullopt;
    const uint32_t erased = slots_[hole];
    // Each later entry of the run moves into the hole unless its home lies
    // cyclically in (hole, j]: then it would be found before the hole anyway.
    for (size_t j = Next(hole); slots_[j] != kEmpty; j = Next(j)) {
      const size_t home = Home(id_of(slots_[j]));
      const bool stays = hole < j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (stays) continue;
      slots_[hole] = slots_[j];
      hole = j;
    }
    slots_[hole] = kEmpty;
    --size_;
    return erased;
  }

  size_t size() const { return size_; }
  void Clear() {
    std::vector<uint32_t>().swap(slots_);
    size_ = 0;
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  static constexpr size_t kMinSlots = 16;
  size_t Home(std::string_view id) const { return std::hash<std::string_view>()(id) & (slots_.size() - 1); }
  size_t Next(size_t i) const { return (i + 1) & (slots_.size() - 1); }

  template <typename IdOf>
  void Grow(const IdOf& id_of) {
    std::vector<uint32_t> old(slots_.empty() ? kMinSlots : 2 * slots_.size(), kEmpty);
    old.swap(slots_);
    for (uint32_t label : old) {
      if (label == kEmpty) continue;
      size_t i = Home(id_of(label));
      while (slots_[i] != kEmpty) i = Next(i);
      slots_[i] = label;
    }
  }

  std::vector<uint32_t> slots_;  // labels; a power of two of them, or none
  size_t size_ = 0;
};

}  // namespace vesper
