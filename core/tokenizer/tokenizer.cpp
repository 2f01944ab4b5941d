#include "core/tokenizer/tokenizer.h"

#include <sentencepiece_processor.h>

#include "core/tokenizer/model_proto_check.h"
#include "core/util/checksum.h"
#include "core/util/error.h"
#include "core/util/utf8.h"

namespace vesper {
namespace {

// SentencePiece's messages embed absolute source paths ("/build/.../model_interface.cc(...)"):
// keep only what a person can act on.
std::string CleanStatus(const sentencepiece::util::Status& status) {
  std::string msg = status.ToString();
  size_t bracket = msg.find(") [");
  if (bracket != std::string::npos) msg = msg.substr(bracket + 2);
  return msg;
}

void Check(const sentencepiece::util::Status& status, ErrorCode code, const std::string& what) {
  if (!status.ok()) throw Error(code, what + ": " + CleanStatus(status));
}

}  // namespace

Tokenizer::~Tokenizer() = default;

std::unique_ptr<Tokenizer> Tokenizer::FromBytes(std::string_view model_proto, SpecialTokenPolicy policy) {
  if (model_proto.empty()) throw Error(ErrorCode::kInvalidArgument, "tokenizer model is empty");
  CheckModelProto(model_proto);
  std::unique_ptr<Tokenizer> t(new Tokenizer());
  t->sp_ = std::make_unique<sentencepiece::SentencePieceProcessor>();
  auto status = t->sp_->LoadFromSerializedProto(absl::string_view(model_proto.data(), model_proto.size()));
  if (!status.ok()) {
    throw Error(ErrorCode::kInvalidArgument,
                "not a SentencePiece model (" + std::to_string(model_proto.size()) + " bytes): " + CleanStatus(status));
  }
  t->policy_ = policy;
  int n = t->sp_->GetPieceSize();
  auto pick = [n](int override_id, int model_id) {
    int id = override_id >= 0 ? override_id : model_id;
    return id < n ? id : -1;
  };
  t->bos_id_ = pick(policy.bos_id, t->sp_->bos_id());
  t->eos_id_ = pick(policy.eos_id, t->sp_->eos_id());
  int pad = pick(policy.pad_id, t->sp_->pad_id());
  t->pad_id_ = pad >= 0 ? pad : 0;
  if (policy.add_bos && t->bos_id_ < 0) throw Error(ErrorCode::kInvalidArgument, "policy adds BOS but the model has none");
  if (policy.add_eos && t->eos_id_ < 0) throw Error(ErrorCode::kInvalidArgument, "policy adds EOS but the model has none");
  t->fingerprint_ = "spm-" + Hex64(Fnv1a64(model_proto));
  return t;
}

Encoding Tokenizer::Encode(std::string_view text, const EncodeOptions& options) const {
  utf8::Require(text, "text to tokenize");
  sentencepiece::ImmutableSentencePieceText spt;
  std::vector<int> plain;
  if (options.ids_only) {
    PlainIds(text, plain);
  } else {
    Check(sp_->Encode(absl::string_view(text.data(), text.size()), spt.mutable_proto()), ErrorCode::kInternal,
          "tokenizing failed");
  }

  Encoding e;
  const bool bos = options.add_special && policy_.add_bos;
  const bool eos = options.add_special && policy_.add_eos;
  size_t n = options.ids_only ? plain.size() : static_cast<size_t>(spt.pieces_size());
  size_t budget = n;
  if (options.max_length > 0) {
    size_t specials = (bos ? 1 : 0) + (eos ? 1 : 0);
    size_t room = static_cast<size_t>(options.max_length) > specials ? options.max_length - specials : 0;
    if (n > room) { budget = room; e.truncated = true; }
  }
  auto push = [&](int id, auto&& piece, uint32_t b, uint32_t en) {
    e.ids.push_back(id);
    if (options.ids_only) return;
    e.pieces.push_back(piece());
    e.begin.push_back(b);
    e.end.push_back(en);
  };
  if (bos) push(bos_id_, [&] { return sp_->IdToPiece(bos_id_); }, 0, 0);
  for (size_t i = 0; i < budget; ++i) {
    if (options.ids_only) {
      push(plain[i], [] { return std::string(); }, 0, 0);
      continue;
    }
    auto p = spt.pieces(static_cast<int>(i));
    push(static_cast<int>(p.id()), [&] { return std::string(p.piece()); }, p.begin(), p.end());
  }
  if (eos) {
    auto at = static_cast<uint32_t>(e.end.empty() ? 0 : e.end.back());
    push(eos_id_, [&] { return sp_->IdToPiece(eos_id_); }, at, at);
  }
  e.length = e.ids.size();
  e.attention_mask.assign(e.length, 1);
  if (options.pad_to > 0 && e.length < static_cast<size_t>(options.pad_to)) {
    e.ids.resize(options.pad_to, pad_id_);
    e.attention_mask.resize(options.pad_to, 0);
  }
  return e;
}

void Tokenizer::EncodeIds(std::string_view text, std::vector<int32_t>& ids) const {
  utf8::Require(text, "text to tokenize");
  std::vector<int> out;
  PlainIds(text, out);
  ids.assign(out.begin(), out.end());
}

void Tokenizer::PlainIds(std::string_view text, std::vector<int>& out) const {
  const bool memo = text.size() <= kMemoTextBytes;
  std::string key;
  if (memo) {
    key.assign(text);
    if (auto it = memo_.find(key); it != memo_.end()) {
      out = it->second;
      return;
    }
  }
  out.clear();
  Check(sp_->Encode(absl::string_view(text.data(), text.size()), &out), ErrorCode::kInternal, "tokenizing failed");
  if (!memo) return;
  if (memo_order_.size() >= kMemoTexts) {
    memo_.erase(memo_.find(*memo_order_.front()));
    memo_order_.pop_front();
  }
  memo_order_.push_back(&memo_.emplace(std::move(key), out).first->first);
}

std::string Tokenizer::Decode(const std::vector<int32_t>& ids) const {
  int n = sp_->GetPieceSize();
  std::vector<int> in;
  in.reserve(ids.size());
  for (int32_t id : ids) {
    if (id < 0 || id >= n) throw Error(ErrorCode::kInvalidArgument, "token id " + std::to_string(id) + " is outside the vocabulary (size " + std::to_string(n) + ")");
    in.push_back(id);
  }
  std::string out;
  Check(sp_->Decode(in, &out), ErrorCode::kInternal, "decoding failed");
  return out;
}

size_t Tokenizer::CountTokens(std::string_view text) const {
  std::vector<int32_t> ids;
  EncodeIds(text, ids);
  return ids.size();
}

int Tokenizer::vocab_size() const { return sp_->GetPieceSize(); }
int Tokenizer::unk_id() const { return sp_->unk_id(); }

std::string Tokenizer::IdToPiece(int id) const {
  if (id < 0 || id >= vocab_size()) throw Error(ErrorCode::kInvalidArgument, "token id " + std::to_string(id) + " is outside the vocabulary");
  return sp_->IdToPiece(id);
}

}  // namespace vesper
