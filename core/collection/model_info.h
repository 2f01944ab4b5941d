// What produced a collection's vectors. Vectors from different models live in
// different spaces: comparing them gives confident nonsense, so every load
// and every query checks this first.
#pragma once
#include <cstdint>
#include <string>

namespace vesper {

struct ModelInfo {
  std::string id;  // empty: no embedding model, the collection is lexical only
  uint32_t dims = 0;
  std::string query_template;     // e.g. "task: search result | query: {text}"
  std::string document_template;  // e.g. "title: {title} | text: {text}"
  std::string tokenizer_fingerprint;

  bool lexical_only() const { return id.empty(); }
  std::string Describe() const;
};

// Same id, dims and tokenizer: vectors are comparable.
bool SameModel(const ModelInfo& a, const ModelInfo& b);

}  // namespace vesper
