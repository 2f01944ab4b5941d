// Where a collection built only to be saved keeps its passages' records.
//
// A large knowledge base's text is most of what building it holds (the
// chunks section of a 54 MB knowledge base's pack is 64 MB of its 85;
// bench/limits/REPORT.md). A collection given a spill (Collection::SpillTo)
// writes each passage's record there as it is added, in the form the pack's
// chunks section stores it, and keeps in memory only what indexing and
// saving need (its id, language, flags and fields): memory then follows the
// indexes and a batch, not the corpus. The CLI's build spills to a file
// beside the pack it writes (fileSpill, tools/cli/write.mjs).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/util/bytes.h"

namespace vesper {

class ChunkSpill {
 public:
  virtual ~ChunkSpill() = default;
  // Keeps `size` bytes after those appended before; throws when it cannot
  // (a full disk): the collection is then refused saving, never half saved.
  virtual void Append(const uint8_t* data, size_t size) = 0;
  // Hands back everything appended, in order, in pieces; called once each
  // time a pack is planned and once each time it is written.
  virtual void ReadBack(const ByteWriter::Sink& sink) const = 0;
};

}  // namespace vesper
