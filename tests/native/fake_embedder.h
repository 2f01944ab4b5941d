// A deterministic stand-in for an embedding model in core tests: hashed
// word features, so texts sharing words are close. Real models come with
// the inference issue; the core only needs vectors with that property.
#pragma once
#include <string_view>
#include <vector>

#include "core/collection/collection.h"
#include "core/index/dot.h"
#include "core/text/words.h"
#include "core/util/checksum.h"

namespace vesper::test {

inline std::vector<float> FakeEmbed(std::string_view text, size_t dims) {
  std::vector<float> v(dims, 0.f);
  for (auto& w : SplitWords(text)) {
    uint64_t h = Fnv1a64(w.term);
    v[h % dims] += (h >> 32) & 1 ? 1.f : -1.f;
  }
  v[0] += 0.01f;  // never all zeros
  Normalize(v.data(), dims);
  return v;
}

inline std::vector<float> FakeEmbedChunks(const std::vector<Chunk>& chunks, size_t dims) {
  std::vector<float> out;
  for (const auto& c : chunks) {
    auto v = FakeEmbed(c.text, dims);
    out.insert(out.end(), v.begin(), v.end());
  }
  return out;
}

inline ModelInfo FakeModel(size_t dims = 128) {
  ModelInfo m;
  m.id = "test-hashed-words";
  m.dims = static_cast<uint32_t>(dims);
  m.query_template = "{text}";
  m.document_template = "{text}";
  m.tokenizer_fingerprint = "none";
  return m;
}

}  // namespace vesper::test
