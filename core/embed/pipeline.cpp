#include "core/embed/pipeline.h"

#include <cmath>
#include <vector>

#include "core/index/dot.h"
#include "core/util/error.h"

namespace vesper {

std::string FormatPrompt(std::string_view tpl, std::string_view text, std::string_view title,
                         std::string_view title_fallback) {
  if (tpl.empty()) return std::string(text);
  std::string out;
  out.reserve(tpl.size() + text.size() + title.size());
  for (size_t i = 0; i < tpl.size();) {
    if (tpl.compare(i, 6, "{text}") == 0) {
      out += text;
      i += 6;
    } else if (tpl.compare(i, 7, "{title}") == 0) {
      out += title.empty() ? title_fallback : title;
      i += 7;
    } else {
      out += tpl[i++];
    }
  }
  return out;
}

Pooling ParsePooling(std::string_view name) {
  if (name == "mean") return Pooling::kMean;
  if (name == "cls") return Pooling::kCls;
  if (name == "last") return Pooling::kLast;
  throw Error(ErrorCode::kInvalidArgument, "unknown pooling '" + std::string(name) + "' (mean, cls or last)");
}

void Pool(const float* hidden, const int32_t* mask, size_t batch, size_t seq, size_t dims, Pooling pooling,
          float* out) {
  for (size_t b = 0; b < batch; ++b) {
    const float* h = hidden + b * seq * dims;
    const int32_t* m = mask + b * seq;
    float* o = out + b * dims;
    std::fill(o, o + dims, 0.f);
    size_t count = 0, last = 0;
    for (size_t t = 0; t < seq; ++t) {
      if (!m[t]) continue;
      ++count;
      last = t;
      if (pooling == Pooling::kMean) for (size_t d = 0; d < dims; ++d) o[d] += h[t * dims + d];
    }
    if (count == 0) throw Error(ErrorCode::kInvalidArgument, "row " + std::to_string(b) + " has no unmasked token");
    if (pooling == Pooling::kMean) {
      float inv = 1.f / static_cast<float>(count);
      for (size_t d = 0; d < dims; ++d) o[d] *= inv;
    } else {
      const float* src = h + (pooling == Pooling::kCls ? 0 : last) * dims;
      std::copy(src, src + dims, o);
    }
  }
}

void TruncateAndNormalize(const float* in, size_t rows, size_t in_dims, size_t out_dims, float* out) {
  if (out_dims == 0 || out_dims > in_dims) {
    throw Error(ErrorCode::kInvalidArgument, "cannot truncate " + std::to_string(in_dims) + "-dim vectors to " +
                                                 std::to_string(out_dims));
  }
  std::vector<float> row(out_dims);
  for (size_t r = 0; r < rows; ++r) {
    std::copy(in + r * in_dims, in + r * in_dims + out_dims, row.begin());
    for (float x : row) {
      if (!std::isfinite(x)) throw Error(ErrorCode::kInvalidArgument, "embedding " + std::to_string(r) + " has a non-finite value");
    }
    if (Normalize(row.data(), out_dims) <= 0.f) {
      throw Error(ErrorCode::kInvalidArgument, "embedding " + std::to_string(r) + " is all zeros");
    }
    std::copy(row.begin(), row.end(), out + r * out_dims);
  }
}

}  // namespace vesper
