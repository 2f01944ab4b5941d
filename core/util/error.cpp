#include "core/util/error.h"

namespace vesper {

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
  }
  return "unknown";
}

}  // namespace vesper
