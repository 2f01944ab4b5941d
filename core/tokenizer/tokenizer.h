// A SentencePiece model loaded from bytes, with the special-token policy of the
// embedding model that uses it (which ids wrap a sequence, which pads it).
#pragma once
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sentencepiece { class SentencePieceProcessor; }

namespace vesper {

struct SpecialTokenPolicy {
  bool add_bos = false;
  bool add_eos = false;
  // -1 means "use the model's own id"; models without a pad piece pad with 0.
  int bos_id = -1;
  int eos_id = -1;
  int pad_id = -1;
};

struct EncodeOptions {
  bool add_special = true;  // apply the policy's BOS/EOS
  int max_length = 0;       // 0: unlimited; counts special tokens
  int pad_to = 0;           // 0: no padding; pads ids with pad_id up to this length
  // Ids and mask only (no pieces or offsets): what embedding needs, without
  // building sentencepiece's per-piece records (a third of a bulk encode).
  bool ids_only = false;
};

struct Encoding {
  std::vector<int32_t> ids;             // padded when pad_to was given
  std::vector<int32_t> attention_mask;  // 1 for real tokens, 0 for padding
  std::vector<std::string> pieces;      // one per real token, specials included
  std::vector<uint32_t> begin;          // byte offsets into the input, per real token;
  std::vector<uint32_t> end;            //   special tokens get an empty range
  size_t length = 0;                    // real tokens, before padding
  bool truncated = false;
};

class Tokenizer {
 public:
  // Throws vesper::Error(kInvalidArgument) when the bytes are not a model.
  static std::unique_ptr<Tokenizer> FromBytes(std::string_view model_proto,
                                              SpecialTokenPolicy policy = {});
  ~Tokenizer();

  Encoding Encode(std::string_view text, const EncodeOptions& options = {}) const;
  // Ids only, into a caller-owned vector: the path for bulk work and benchmarks.
  void EncodeIds(std::string_view text, std::vector<int32_t>& ids) const;
  std::string Decode(const std::vector<int32_t>& ids) const;
  // Number of pieces `text` becomes, without special tokens.
  size_t CountTokens(std::string_view text) const;

  int vocab_size() const;
  std::string IdToPiece(int id) const;
  int bos_id() const { return bos_id_; }
  int eos_id() const { return eos_id_; }
  int pad_id() const { return pad_id_; }
  int unk_id() const;
  const SpecialTokenPolicy& policy() const { return policy_; }
  // FNV-1a of the serialized model: what a pack records to refuse vectors
  // made with another vocabulary.
  const std::string& fingerprint() const { return fingerprint_; }

 private:
  Tokenizer() = default;
  // A text's pieces' ids, no special tokens. The last kMemoTexts texts (of at
  // most kMemoTextBytes each) are remembered: a build encodes each passage for
  // its vector, then again, the same text, for piece matching's lists
  // (Collection::PiecesOf), a batch later. Not thread-safe, as nothing in the
  // core is.
  void PlainIds(std::string_view text, std::vector<int>& out) const;
  static constexpr size_t kMemoTexts = 256;  // a batch of 64 passages, their translations and titles
  static constexpr size_t kMemoTextBytes = 2048;
  mutable std::unordered_map<std::string, std::vector<int>> memo_;
  mutable std::deque<const std::string*> memo_order_;  // memo_'s keys, oldest first
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
  SpecialTokenPolicy policy_;
  int bos_id_ = -1, eos_id_ = -1, pad_id_ = 0;
  std::string fingerprint_;
};

}  // namespace vesper
