#include "core/collection/model_info.h"

namespace vesper {

std::string ModelInfo::Describe() const {
  if (lexical_only()) return "no embedding model (lexical only)";
  std::string s = "'" + id + "' (" + std::to_string(dims) + " dims";
  if (!tokenizer_fingerprint.empty()) s += ", tokenizer " + tokenizer_fingerprint;
  return s + ")";
}

bool SameModel(const ModelInfo& a, const ModelInfo& b) {
  return a.id == b.id && a.dims == b.dims && a.tokenizer_fingerprint == b.tokenizer_fingerprint;
}

}  // namespace vesper
