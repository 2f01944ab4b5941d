#include "core/tokenizer/model_proto_check.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "core/util/error.h"

namespace vesper {
namespace {

// Field numbers from sentencepiece_model.proto.
constexpr uint32_t kModelPiecesField = 1;        // ModelProto.pieces (repeated SentencePiece)
constexpr uint32_t kModelNormalizerField = 3;    // ModelProto.normalizer_spec
constexpr uint32_t kModelDenormalizerField = 5;  // ModelProto.denormalizer_spec
constexpr uint32_t kPieceTextField = 1;          // SentencePiece.piece (string)
constexpr uint32_t kCharsMapField = 2;           // NormalizerSpec.precompiled_charsmap (bytes)
constexpr int kMaxVarintBytes = 10;
constexpr uint32_t kLabelsPerNode = 256;  // a trie step reads the unit at node ^ byte

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

[[noreturn]] void Malformed(const std::string& what) {
  throw Error(ErrorCode::kInvalidArgument, "not a SentencePiece model: " + what);
}

// One protobuf field at a time over a byte range.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes) : bytes_(bytes) {}
  bool done() const { return pos_ >= bytes_.size(); }

  uint64_t Varint() {
    uint64_t value = 0;
    for (int i = 0; i < kMaxVarintBytes; ++i) {
      if (pos_ >= bytes_.size()) Malformed("truncated varint");
      const uint8_t byte = static_cast<uint8_t>(bytes_[pos_++]);
      value |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
      if ((byte & 0x80) == 0) return value;
    }
    Malformed("varint longer than 10 bytes");
  }

  std::string_view Bytes(uint64_t length) {
    if (length > bytes_.size() - pos_) Malformed("a field runs past the end of the model");
    std::string_view out = bytes_.substr(pos_, static_cast<size_t>(length));
    pos_ += static_cast<size_t>(length);
    return out;
  }

  // Reads a field's value; returns the payload of a length-delimited field
  // (empty for the others).
  std::string_view Value(uint32_t wire_type) {
    switch (wire_type) {
      case kVarint: Varint(); return {};
      case kFixed64: Bytes(8); return {};
      case kFixed32: Bytes(4); return {};
      case kLengthDelimited: return Bytes(Varint());
      default: Malformed("unsupported wire type " + std::to_string(wire_type));
    }
  }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
};

// The piece text of one SentencePiece message (protobuf keeps the last copy
// of a repeated scalar field).
std::string_view PieceText(std::string_view message) {
  WireReader reader(message);
  std::string_view text;
  while (!reader.done()) {
    const uint64_t key = reader.Varint();
    const auto wire_type = static_cast<uint32_t>(key & 7);
    std::string_view value = reader.Value(wire_type);
    if ((key >> 3) == kPieceTextField && wire_type == kLengthDelimited) text = value;
  }
  return text;
}

// The last value of `inner` across every occurrence of the embedded message
// `outer` (protobuf merges repeated copies of a message field).
std::optional<std::string_view> LastNested(std::string_view message, uint32_t outer, uint32_t inner) {
  std::optional<std::string_view> found;
  WireReader reader(message);
  while (!reader.done()) {
    const uint64_t key = reader.Varint();
    const auto wire_type = static_cast<uint32_t>(key & 7);
    std::string_view value = reader.Value(wire_type);
    if ((key >> 3) != outer || wire_type != kLengthDelimited) continue;
    WireReader nested(value);
    while (!nested.done()) {
      const uint64_t k = nested.Varint();
      const auto t = static_cast<uint32_t>(k & 7);
      std::string_view v = nested.Value(t);
      if ((k >> 3) == inner && t == kLengthDelimited) found = v;
    }
  }
  return found;
}

// A darts-clone double-array unit, as SentencePiece's normaliser reads it.
struct TrieUnit {
  uint32_t bits;
  bool has_leaf() const { return ((bits >> 8) & 1) == 1; }
  uint32_t value() const { return bits & ((1U << 31) - 1); }
  uint32_t label() const { return bits & ((1U << 31) | 0xFF); }
  uint32_t offset() const { return (bits >> 10) << ((bits & (1U << 9)) >> 6); }
};

// A precompiled character map: a little-endian uint32 trie size, the trie
// (darts-clone units) and NUL-terminated replacement strings the trie's
// values index. SentencePiece checks only the first size; the normaliser
// then follows the trie's offsets and values without bounds, so every state
// the trie can reach is walked here: each step must stay inside the trie and
// each value must name a terminated string.
void CheckCharsMap(std::string_view blob, const char* which) {
  auto broken = [which](const std::string& what) { Malformed(std::string(which) + " character map " + what); };
  uint32_t trie_bytes = 0;
  if (blob.size() <= sizeof(trie_bytes)) broken("is too short");
  std::memcpy(&trie_bytes, blob.data(), sizeof(trie_bytes));
  if (trie_bytes == 0 || trie_bytes > blob.size() - sizeof(trie_bytes) || trie_bytes % sizeof(uint32_t) != 0) {
    broken("claims a trie of " + std::to_string(trie_bytes) + " bytes in " + std::to_string(blob.size()));
  }
  const size_t units = trie_bytes / sizeof(uint32_t);
  std::vector<uint32_t> trie(units);
  std::memcpy(trie.data(), blob.data() + sizeof(trie_bytes), trie_bytes);
  const std::string_view strings = blob.substr(sizeof(trie_bytes) + trie_bytes);
  auto unit = [&](size_t id) { return TrieUnit{trie[id]}; };

  std::vector<bool> seen(units, false);
  std::vector<uint32_t> todo{unit(0).offset()};
  while (!todo.empty()) {
    const uint32_t node = todo.back();
    todo.pop_back();
    if ((static_cast<uint64_t>(node) | (kLabelsPerNode - 1)) >= units) broken("steps outside its trie");
    if (seen[node]) continue;
    seen[node] = true;
    for (uint32_t c = 0; c < kLabelsPerNode; ++c) {
      const TrieUnit child = unit(node ^ c);
      if (child.label() != c) continue;
      const uint32_t next = (node ^ c) ^ child.offset();
      if (child.has_leaf()) {
        if (next >= units) broken("has a value outside its trie");
        const uint32_t at = unit(next).value();
        if (at >= strings.size() || strings.find('\0', at) == std::string_view::npos) broken("points past its strings");
      }
      todo.push_back(next);
    }
  }
}

}  // namespace

void CheckModelProto(std::string_view model_proto) {
  WireReader reader(model_proto);
  size_t index = 0;
  while (!reader.done()) {
    const uint64_t key = reader.Varint();
    const auto wire_type = static_cast<uint32_t>(key & 7);
    std::string_view value = reader.Value(wire_type);
    if ((key >> 3) != kModelPiecesField || wire_type != kLengthDelimited) continue;
    std::string_view text = PieceText(value);
    if (text.empty()) Malformed("piece " + std::to_string(index) + " is empty");
    if (text.find('\0') != std::string_view::npos) Malformed("piece " + std::to_string(index) + " contains a NUL byte");
    ++index;
  }
  if (auto map = LastNested(model_proto, kModelNormalizerField, kCharsMapField); map && !map->empty()) {
    CheckCharsMap(*map, "the normalizer's");
  }
  if (auto map = LastNested(model_proto, kModelDenormalizerField, kCharsMapField); map && !map->empty()) {
    CheckCharsMap(*map, "the denormalizer's");
  }
}

}  // namespace vesper
