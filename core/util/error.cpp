#include "core/util/error.h"

namespace vesper {

MissingRows::MissingRows(std::vector<int32_t> ids)
    : Error(ErrorCode::kMissingRows, "the model's rows for " + std::to_string(ids.size()) +
                                         " pieces are not loaded yet"),
      ids_(std::move(ids)) {}

MissingShards::MissingShards(std::vector<std::string> names)
    : Error(ErrorCode::kMissingLexicon, "the lexicon's shards for " + std::to_string(names.size()) + " words are not loaded yet"),
      names_(std::move(names)) {}

const char* ErrorCodeName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidArgument: return "invalid_argument";
    case ErrorCode::kEmptyInput: return "empty_input";
    case ErrorCode::kInvalidUtf8: return "invalid_utf8";
    case ErrorCode::kCorruptData: return "corrupt_data";
    case ErrorCode::kModelMismatch: return "model_mismatch";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kUnsupported: return "unsupported";
    case ErrorCode::kInternal: return "internal";
    case ErrorCode::kMissingRows: return "missing_rows";
    case ErrorCode::kMissingLexicon: return "missing_lexicon";
  }
  return "unknown";
}

}  // namespace vesper
