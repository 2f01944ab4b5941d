// The embedding pipeline around a model, shared by every runtime: prompt
// templates, pooling for graphs that do not pool, Matryoshka truncation and
// normalisation. The model itself runs elsewhere (ONNX Runtime), or in
// StaticModel for table models.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace vesper {

// "{text}" and "{title}" are replaced; an empty title becomes title_fallback
// (EmbeddingGemma: "title: {title} | text: {text}" with "none").
std::string FormatPrompt(std::string_view tpl, std::string_view text, std::string_view title = {},
                         std::string_view title_fallback = "none");

enum class Pooling { kMean, kCls, kLast };
Pooling ParsePooling(std::string_view name);  // "mean" | "cls" | "last"

// hidden: [batch, seq, dims]; mask: [batch, seq] of 0/1; out: [batch, dims].
// Masked mean, the first token, or the last unmasked token.
void Pool(const float* hidden, const int32_t* mask, size_t batch, size_t seq, size_t dims, Pooling pooling,
          float* out);

// Keeps the first out_dims of each row and renormalises (Matryoshka models
// are trained so that prefixes are embeddings too). out may equal in when
// out_dims == in_dims. Rows that are all zeros are an error: a model that
// returns them is broken, and a zero vector matches nothing.
void TruncateAndNormalize(const float* in, size_t rows, size_t in_dims, size_t out_dims, float* out);

}  // namespace vesper
