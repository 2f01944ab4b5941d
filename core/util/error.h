// The one error type the core throws. Every message is meant for a person:
// it says what was wrong with the input, never where in our source it failed.
#pragma once
#include <stdexcept>
#include <cstdint>
#include <string>
#include <vector>

namespace vesper {

enum class ErrorCode {
  kInvalidArgument,  // caller passed something unusable (wrong dims, a bad option)
  kEmptyInput,       // text that holds nothing to work on (an empty or blank question)
  kInvalidUtf8,      // text is not valid UTF-8
  kCorruptData,      // a pack or index buffer failed validation
  kModelMismatch,    // vectors from one model offered to another
  kNotFound,         // unknown collection, id or label
  kUnsupported,      // a version or feature this build does not handle
  kInternal,         // a dependency failed in a way we did not anticipate
  kMissingRows,      // a model loaded row by row lacks rows this text needs (MissingRows)
  kMissingLexicon,   // a lexicon loaded shard by shard lacks shards this text needs (MissingShards)
};

class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const { return code_; }

 private:
  ErrorCode code_;
};

// A static model whose rows arrive on demand (StaticModel::Sparse) was asked
// for rows it does not hold yet: the caller fetches them and tries again.
// Never answered with zeros: that would be a silently wrong vector.
class MissingRows : public Error {
 public:
  explicit MissingRows(std::vector<int32_t> ids);
  const std::vector<int32_t>& ids() const { return ids_; }

 private:
  std::vector<int32_t> ids_;  // sorted, distinct
};

// The same for a lexicon loaded shard by shard (Lexicon::Sharded): the
// shards' names ("en-17"), sorted.
class MissingShards : public Error {
 public:
  explicit MissingShards(std::vector<std::string> names);
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::string> names_;
};

const char* ErrorCodeName(ErrorCode code);

}  // namespace vesper
